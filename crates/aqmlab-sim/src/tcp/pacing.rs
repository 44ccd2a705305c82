//! Pacing: the clock that spaces a sender's data segments at its pacing rate, and the rate Linux
//! gives a controller that sets none.
//!
//! Sources (read, then written anew here):
//! - Linux `net/ipv4/tcp_output.c`: `tcp_update_skb_after_send` (after each data segment the
//!   earliest departure time `tcp_wstamp_ns` moves on by its length at `sk_pacing_rate`, once 10
//!   data segments have gone: "Original sch_fq does not pace first 10 MSS"), `tcp_pacing_check`
//!   and the pacing timer (internal pacing: the segment waits in TCP until then), which the `fq`
//!   qdisc (`net/sched/sch_fq.c`) does in its stead when installed, holding each packet until
//!   its departure time (`time_next_packet`, the skb's timestamp);
//! - Linux `net/ipv4/tcp_input.c` `tcp_update_pacing_rate`: for a controller without a
//!   `cong_control` hook (CUBIC, Reno), `sk_pacing_rate` = mss · max(cwnd, packets_out) / srtt,
//!   times `tcp_pacing_ss_ratio` (200%) while cwnd < ssthresh / 2 and `tcp_pacing_ca_ratio`
//!   (120%) otherwise, on every ACK that finds data outstanding (`tcp_cong_control`) and when
//!   the connection is established.
//!
//! BBR sets its own rate (`cc/bbr.rs`); the sender (`endpoint.rs`) keeps one [`Pacer`] and
//! hands it whichever rate is in force.

use crate::units::Time;

/// Linux paces only once this many data segments have gone out (`tcp_update_skb_after_send`:
/// `data_segs_out >= 10`): the initial window leaves at once.
const UNPACED_SEGS: u64 = 10;

/// One sender's pacing clock (Linux's `tcp_wstamp_ns` and `data_segs_out`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pacer {
    /// The earliest time the next data segment may leave.
    next_send: Time,
    /// Data segments sent.
    segs_out: u64,
}

impl Pacer {
    /// If the clock holds the next segment at `now`, the time it may leave.
    #[inline]
    pub fn wait(&self, now: Time) -> Option<Time> {
        (self.next_send > now).then_some(self.next_send)
    }

    /// The earliest time the next segment may leave (`now` or earlier: at once).
    pub fn next_send(&self) -> Time {
        self.next_send
    }

    /// A segment of `len` bytes left at `now` with the pacing rate `rate` (bytes per second):
    /// the next may leave `len`/`rate` later, rounded up to the nanosecond. (Linux forgives up
    /// to half of that when the send was late, and truncates; not modelled: data segments are
    /// never closer than `len`/`rate`.)
    pub fn paced(&mut self, now: Time, len: u32, rate: f64) {
        if len == 0 {
            return;
        }
        self.segs_out += 1;
        if self.segs_out <= UNPACED_SEGS || rate <= 0.0 {
            return;
        }
        let gap = (f64::from(len) * 1e9 / rate).ceil() as u64;
        self.next_send = self.next_send.max(now) + Time(gap);
    }
}

/// Linux's pacing rate for a controller that sets none (`tcp_update_pacing_rate`), bytes per
/// second, in its integer arithmetic: `mss` · 8·10⁴ · ratio · max(`cwnd`, `packets_out`) /
/// `srtt_us8` (the smoothed RTT in µs·8, Linux's `srtt_us`; not divided before a first sample),
/// the ratio `ss_ratio` percent while `cwnd` < `ssthresh` / 2, else `ca_ratio` percent. Windows
/// in segments.
pub fn linux_rate(
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    packets_out: u64,
    srtt_us8: Option<u64>,
    (ss_ratio, ca_ratio): (u32, u32),
) -> f64 {
    let ratio = if cwnd < ssthresh / 2 {
        ss_ratio
    } else {
        ca_ratio
    };
    let rate = u128::from(mss)
        * ((1_000_000u128 / 100) << 3)
        * u128::from(ratio)
        * u128::from(cwnd.max(packets_out));
    match srtt_us8 {
        Some(s) if s > 0 => (rate / u128::from(s)) as f64,
        _ => rate as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    #[test]
    fn each_segment_holds_the_next_its_length_at_the_rate_after_the_first_ten() {
        let mut p = Pacer::default();
        let rate = 2_000_000.0;
        for _ in 0..10 {
            assert_eq!(p.wait(ms(1)), None);
            p.paced(ms(1), 1000, rate);
        }
        // Pure ACKs and the like take no time.
        p.paced(ms(1), 0, rate);
        assert_eq!(p.wait(ms(1)), None);
        p.paced(ms(1), 1000, rate);
        assert_eq!(p.wait(ms(1)), Some(ms(1) + Time::from_micros(500)));
        assert_eq!(p.wait(ms(1) + Time::from_micros(500)), None);
        // A segment sent late starts the gap from when it left; one sent early (the clock
        // still ahead) from where the clock stands.
        p.paced(ms(3), 1000, rate);
        assert_eq!(p.next_send(), ms(3) + Time::from_micros(500));
        p.paced(ms(3), 1000, rate);
        assert_eq!(p.next_send(), ms(4));
        // 1000 B at 3 B/s: 333.33… s, rounded up to the nanosecond.
        let mut q = Pacer {
            segs_out: 10,
            ..Pacer::default()
        };
        q.paced(Time::ZERO, 1000, 3.0);
        assert_eq!(q.next_send(), Time(333_333_333_334));
    }

    #[test]
    fn linux_rate_is_twice_the_window_per_rtt_in_slow_start_and_six_fifths_after() {
        // 10 segments of 1448 B per 100 ms: 144.8 kB/s.
        let srtt = Some(100_000 * 8);
        let ratios = (200, 120);
        assert_eq!(linux_rate(1448, 10, u64::MAX, 10, srtt, ratios), 289_600.0);
        // cwnd < ssthresh / 2 (in whole segments, halved as integers) is slow start's rate;
        // from half of ssthresh on, 120%.
        assert_eq!(linux_rate(1448, 10, 22, 10, srtt, ratios), 289_600.0);
        assert_eq!(linux_rate(1448, 10, 21, 10, srtt, ratios), 173_760.0);
        assert_eq!(linux_rate(1448, 10, 22, 10, srtt, (150, 100)), 217_200.0);
        // More outstanding than cwnd (after a reduction): the data outstanding counts.
        assert_eq!(linux_rate(1448, 10, 20, 15, srtt, ratios), 260_640.0);
        // Integer division: 1448·8e4·120·10 / 799 999 µs·8.
        assert_eq!(
            linux_rate(1448, 10, 20, 10, Some(799_999), ratios),
            173_760.0
        );
        assert_eq!(
            linux_rate(1448, 10, 20, 10, Some(800_001), ratios),
            173_759.0
        );
        // Before an RTT sample Linux does not divide: far too fast to hold anything.
        assert_eq!(
            linux_rate(1448, 10, u64::MAX, 0, None, ratios),
            1448.0 * 80_000.0 * 200.0 * 10.0
        );
    }
}
