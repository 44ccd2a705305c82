//! HyStart (Ha and Rhee, "Taming the elephants: New TCP slow start", Computer Networks 2011) as
//! Linux runs it with CUBIC (`net/ipv4/tcp_cubic.c`: `hystart_update`, `bictcp_acked`; the
//! `hystart*` module parameters at their defaults): slow start ends (ssthresh = cwnd) when, in one
//! round of slow start with cwnd ≥ 16 segments (`hystart_low_window`),
//!
//! - ACK train: ACKs keep arriving at most 2 ms apart (`hystart_ack_delta_us`) for longer than
//!   half of (the minimum RTT + the TSO/GRO allowance `hystart_ack_delay`) since the round began
//!   (no `fq` pacing, so the threshold is halved). The allowance is min(1 ms, 4 · 64 KiB / pacing
//!   rate): Linux applies it whatever the device (`sk_gso_max_size` 65536 B), with the pacing
//!   rate TCP keeps even without `fq`, 2 · cwnd / srtt in slow start (`tcp_update_pacing_rate`,
//!   `tcp_pacing_ss_ratio` 200%); none before an RTT is measured; or
//! - delay increase: after 8 samples in the round (`HYSTART_MIN_SAMPLES`), the round's smallest
//!   RTT exceeds the minimum RTT by more than η = clamp(min RTT / 8, 4 ms, 16 ms)
//!   (`HYSTART_DELAY_THRESH`, `HYSTART_DELAY_MIN`/`MAX`).
//!
//! A round ends when the cumulative ACK passes the `snd_nxt` recorded at its start (rounds are
//! counted from the start of slow start, below the low window too). Samples are
//! RTTs of the newest segment each ACK covers (none if it covers a retransmission: Karn), as
//! Linux's `ca_rtt_us` without timestamps. Once slow start has ended, HyStart is idle until a
//! retransmission timeout resets it.

use super::Round;
use crate::units::Time;

/// Slow start must reach this many segments before HyStart looks (`hystart_low_window`).
pub const LOW_WINDOW: f64 = 16.0;
/// Delay samples per round before the delay-increase test (`HYSTART_MIN_SAMPLES`).
pub const MIN_SAMPLES: u32 = 8;
/// Bounds of the delay-increase threshold η (`HYSTART_DELAY_MIN`, `HYSTART_DELAY_MAX`).
pub const DELAY_MIN: Time = Time::from_millis(4);
pub const DELAY_MAX: Time = Time::from_millis(16);
/// ACKs at most this far apart form a train (`hystart_ack_delta_us`).
pub const ACK_DELTA: Time = Time::from_millis(2);
/// The TSO/GRO allowance of the ACK-train threshold: at most 1 ms, else 4 · `GSO_MAX_SIZE` bytes at
/// the pacing rate (`hystart_ack_delay`).
pub const ACK_DELAY_MAX: Time = Time::from_millis(1);
pub const GSO_MAX_SIZE: f64 = 65536.0;

/// `hystart_ack_delay` for a window of `cwnd` bytes and smoothed RTT `srtt_s`: the pacing rate in
/// slow start is 2 · cwnd / srtt bytes per second.
fn ack_delay(cwnd: f64, srtt_s: Option<f64>) -> Time {
    match srtt_s {
        Some(srtt) if srtt > 0.0 && cwnd > 0.0 => {
            let rate = 2.0 * cwnd / srtt;
            Time((4.0 * GSO_MAX_SIZE / rate * 1e9) as u64).min(ACK_DELAY_MAX)
        }
        _ => Time::ZERO,
    }
}

/// HyStart's state.
#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Slow start has been ended.
    found: bool,
    /// The current round: when it began, the last ACK of its train, the `snd_nxt` that ends it.
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    /// The round's smallest RTT and how many samples it has seen.
    curr_rtt: Option<Time>,
    samples: u32,
}

impl HyStart {
    /// One RTT sample (at least 1 ns), the smallest so far being `delay_min` (Linux `delay_min`,
    /// kept by the controller); ends slow start by setting `ssthresh` to `cwnd` (bytes).
    pub fn on_sample(
        &mut self,
        rtt: Time,
        delay_min: Time,
        r: Round,
        cwnd: f64,
        ssthresh: &mut f64,
    ) {
        if self.found || cwnd >= *ssthresh {
            return;
        }
        // Rounds are counted below the low window too (Linux `hystart_update` resets the round
        // before its `hystart_low_window` test), so that the window that crosses it mid-round
        // times its ACK train from the round's true start.
        if r.snd_una > self.end_seq {
            self.round_start = r.now;
            self.last_ack = r.now;
            self.end_seq = r.snd_nxt;
            self.curr_rtt = None;
            self.samples = 0;
        }
        if cwnd < LOW_WINDOW * r.mss {
            return;
        }
        if r.now - self.last_ack <= ACK_DELTA {
            self.last_ack = r.now;
            let threshold = delay_min + ack_delay(cwnd, r.srtt_s);
            if r.now - self.round_start > Time(threshold.0 / 2) {
                self.found = true;
            }
        }
        let curr = self.curr_rtt.map_or(rtt, |c| c.min(rtt));
        self.curr_rtt = Some(curr);
        if self.samples < MIN_SAMPLES {
            self.samples += 1;
        } else if curr > delay_min + Time(delay_min.0 / 8).clamp(DELAY_MIN, DELAY_MAX) {
            self.found = true;
        }
        if self.found {
            *ssthresh = cwnd;
        }
    }

    /// Has HyStart ended slow start?
    pub fn found(&self) -> bool {
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// HyStart with the minimum RTT its controller keeps for it.
    #[derive(Default)]
    struct Fed {
        h: HyStart,
        delay_min: Option<Time>,
    }

    impl Fed {
        fn on_sample(&mut self, rtt: Time, r: Round, cwnd: f64, ssthresh: &mut f64) {
            let d = self.delay_min.map_or(rtt, |d| d.min(rtt));
            self.delay_min = Some(d);
            self.h.on_sample(rtt, d, r, cwnd, ssthresh);
        }

        fn found(&self) -> bool {
            self.h.found()
        }
    }

    /// Feed HyStart samples (RTT ms, arrival ms, snd_una) of a round ending at 40 001 with a
    /// window of `cwnd` bytes; returns whether slow start ended after each.
    fn feed(h: &mut Fed, ssthresh: &mut f64, cwnd: f64, samples: &[(u64, u64, u64)]) -> Vec<bool> {
        samples
            .iter()
            .map(|&(rtt, now, snd_una)| {
                let round = Round {
                    now: ms(now),
                    snd_una,
                    snd_nxt: 40_001,
                    mss: 1000.0,
                    srtt_s: None,
                };
                h.on_sample(ms(rtt), round, cwnd, ssthresh);
                h.found()
            })
            .collect()
    }

    #[test]
    fn the_delay_test_needs_eight_samples_then_an_rtt_above_min_plus_eta() {
        // Min RTT 40 ms (a first round ending at 20 001): η = clamp(5 ms, 4, 16) = 5 ms. Then a
        // round of ACKs 5 ms apart (no train) with RTTs of 46 ms (> 45): the ninth decides.
        let (mut h, mut ssthresh, cwnd) = (Fed::default(), f64::INFINITY, 20_000.0);
        h.h.end_seq = 20_001;
        let late: Vec<_> = (0..9).map(|i| (46, 100 + 5 * i, 20_002 + i)).collect();
        let found = feed(&mut h, &mut ssthresh, cwnd, &[(40, 0, 1)]);
        assert_eq!(found, [false]);
        let found = feed(&mut h, &mut ssthresh, cwnd, &late);
        assert_eq!(
            found,
            [false, false, false, false, false, false, false, false, true]
        );
        assert_eq!(ssthresh, cwnd);
        // 45 ms would not have been enough (not strictly above min + η).
        let (mut h, mut ssthresh) = (Fed::default(), f64::INFINITY);
        h.h.end_seq = 20_001;
        let level: Vec<_> = (0..20).map(|i| (45, 100 + 5 * i, 20_002 + i)).collect();
        feed(&mut h, &mut ssthresh, cwnd, &[(40, 0, 1)]);
        assert!(!feed(&mut h, &mut ssthresh, cwnd, &level).contains(&true));
        assert!(ssthresh.is_infinite());
    }

    #[test]
    fn an_ack_train_longer_than_half_the_min_rtt_ends_slow_start() {
        // Min RTT 10 ms; ACKs 1 ms apart from the round's start: the one 6 ms in (> 5 ms) ends it.
        let (mut h, mut ssthresh, cwnd) = (Fed::default(), f64::INFINITY, 32_000.0);
        let train: Vec<_> = (0..=6).map(|i| (10, 100 + i, 2 + i)).collect();
        let found = feed(&mut h, &mut ssthresh, cwnd, &train);
        assert_eq!(found, [false, false, false, false, false, false, true]);
        // ACKs 3 ms apart are no train.
        let (mut h, mut ssthresh) = (Fed::default(), f64::INFINITY);
        let spaced: Vec<_> = (0..8).map(|i| (10, 100 + 3 * i, 2 + i)).collect();
        assert!(!feed(&mut h, &mut ssthresh, cwnd, &spaced).contains(&true));
    }

    #[test]
    fn the_train_threshold_allows_for_aggregation_at_the_pacing_rate() {
        // 32 segments of 1000 B at srtt 10 ms: pacing rate 6.4 MB/s, 4 · 64 KiB of it takes 41 ms:
        // the allowance is its 1 ms cap. Min RTT 10 ms: the train must exceed (10 + 1)/2 = 5.5 ms.
        assert_eq!(ack_delay(32_000.0, Some(0.01)), ACK_DELAY_MAX);
        // At 1 GB/s (a window of 5 MB over 10 ms) it is 4 · 65536 / 1e9 s = 262 µs.
        assert_eq!(ack_delay(5e6, Some(0.01)), Time(262_144));
        assert_eq!(ack_delay(32_000.0, None), Time::ZERO);
        let mut h = Fed::default();
        let (mut ssthresh, us) = (f64::INFINITY, Time::from_micros);
        let mut found = vec![];
        for i in 0..=12u64 {
            let round = Round {
                now: Time::from_millis(100) + us(500 * i),
                snd_una: 2 + i,
                snd_nxt: 40_001,
                mss: 1000.0,
                srtt_s: Some(0.01),
            };
            h.on_sample(ms(10), round, 32_000.0, &mut ssthresh);
            found.push(h.found());
        }
        // 5.5 ms in (i = 11) is not beyond the threshold; 6 ms in is.
        assert_eq!(found.iter().position(|f| *f), Some(12));
    }

    #[test]
    fn a_round_that_began_below_the_low_window_times_its_train_from_its_start() {
        // Min RTT 10 ms. The round begins at 100 ms with 15 segments (below the low window: no
        // test), then the window is 16 and ACKs come 1 ms apart: the train is timed from 100 ms,
        // so the ACK at 106 ms (6 ms > 5 ms in) ends slow start — not 107 ms, as it would if the
        // round were taken to begin at the first ACK at 16 segments (Linux resets the round first).
        let (mut h, mut ssthresh) = (Fed::default(), f64::INFINITY);
        assert_eq!(
            feed(&mut h, &mut ssthresh, 15_000.0, &[(10, 100, 2)]),
            [false]
        );
        let train: Vec<_> = (1..=6).map(|i| (10, 100 + i, 2 + i)).collect();
        let found = feed(&mut h, &mut ssthresh, 16_000.0, &train);
        assert_eq!(found, [false, false, false, false, false, true]);
        assert_eq!(ssthresh, 16_000.0);
    }

    #[test]
    fn below_the_low_window_or_outside_slow_start_nothing_happens() {
        // Rising RTTs in a long train: either test would fire, but not below 16 segments…
        let rising: Vec<_> = (0..30).map(|i| (10 + i, 100 + i, 2 + i)).collect();
        let (mut h, mut ssthresh) = (Fed::default(), f64::INFINITY);
        assert!(!feed(&mut h, &mut ssthresh, 15_000.0, &rising).contains(&true));
        // …nor outside slow start (cwnd ≥ ssthresh).
        let mut ssthresh = 20_000.0;
        assert!(!feed(&mut h, &mut ssthresh, 20_000.0, &rising).contains(&true));
        // The minimum RTT is tracked all along.
        assert_eq!(h.delay_min, Some(ms(10)));
    }
}
