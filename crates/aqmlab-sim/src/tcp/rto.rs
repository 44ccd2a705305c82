//! Round-trip time estimation and the retransmission timeout (Jacobson/Karels), in the flavours the
//! studies' systems used (see [`RtoStyle`]) — with Karn's rule: only segments sent once are timed,
//! and a backed-off timeout stays backed off until a fresh sample arrives. With RFC 7323 timestamps
//! (`timestamps`) the endpoint samples every ACK of new data instead, retransmissions included.
//! The `linux` style follows `tcp_rtt_estimator` and `tcp_set_rto` in Linux's
//! `net/ipv4/tcp_input.c` (5.x/6.x), made for those per-ACK samples.

use super::config::{RtoStyle, TcpConfig};
use crate::rounding::{ceil, floor, round};
use crate::units::Time;

/// Clock ticks of length `tick` (with phase `phase`) that start in `(from, to]`.
fn ticks_between(from: Time, to: Time, tick: Time, phase: Time) -> u64 {
    let k = |t: Time| (t.0 + phase.0) / tick.0;
    k(to) - k(from)
}

/// BSD's TCPT_RANGESET: `value` raised to `min`, else lowered to `max`.
fn range_set(value: f64, min: f64, max: f64) -> f64 {
    if value < min {
        min
    } else {
        value.min(max)
    }
}

/// The first instant after `now` at which the `n`-th tick of the grid `phase + k·tick` falls.
pub fn nth_tick_after(now: Time, n: u64, tick: Time, phase: Time) -> Time {
    let next = ((now.0 + phase.0) / tick.0 + 1) * tick.0 - phase.0;
    Time(next + (n.max(1) - 1) * tick.0)
}

/// The estimator of one sender.
#[derive(Clone, Debug)]
pub struct RtoEstimator {
    style: RtoStyle,
    tick: Time,
    min: Time,
    max: Time,
    max_backoff: u32,
    /// Tick styles: srtt·8 and rttvar·4, in ticks (4.4BSD-Lite2 `t_srtt`, `t_rttvar`; ns-2
    /// `t_srtt_`, `t_rttvar_`), or srtt·32 and rttvar·16 (FreeBSD 2.2). RFC 6298: ns, unscaled.
    /// Linux: `srtt_us` (µs·8) and `rttvar_us` (µs, the timeout's whole variance term).
    srtt: f64,
    rttvar: f64,
    /// Linux only: `mdev_us` (µs·4), `mdev_max_us` (the round trip's largest mdev, at least
    /// `min_rto`) and `rtt_seq` (the round trip ends when `snd_una` passes it).
    mdev: f64,
    mdev_max: f64,
    rtt_seq: u64,
    /// FreeBSD 2.2: the least un-backed-off timeout, in ticks: max(min, rtt + 2) from the last
    /// sample (`tcp_xmit_timer`), `min` before any.
    sample_floor: f64,
    /// The current timeout before backoff, in ns (ns-2 `t_rtxcur_`; RFC 6298 RTO). BSD derives its
    /// timeout from srtt and rttvar instead, except for the very first one (`initial`).
    base: f64,
    initial: Time,
    backoff: u32,
    /// Samples taken, saturating: whether there were none, one or more matters, and (FreeBSD
    /// 2.2's route cache, `t_rttupdated`) whether 16. (16 bits leave room for `route_rxtcur` and
    /// `timeout` in the endpoint's per-segment lines.)
    samples: u16,
    /// FreeBSD 2.2: the timeout `tcp_mss` set from the host's cached RTT, in ticks, in force until
    /// the first sample or timeout; 0 if none ([`RtoEstimator::start_from_route`]).
    route_rxtcur: u32,
    /// The timeout now in force ([`RtoEstimator::timeout`]): worked out whenever what it depends
    /// on changes, rarely, rather than for each timer it starts (about every segment).
    timeout: Time,
}

impl RtoEstimator {
    pub fn new(cfg: &TcpConfig) -> RtoEstimator {
        let tick = cfg.tick;
        let initial_ticks = (cfg.initial_rto.0 / tick.0) as f64;
        let rttvar = match cfg.rto {
            // Lite2 tcp_newtcpcb: t_srtt = 0 and t_rttvar = 2·(initial RTO in ticks), so that
            // t_rxtcur = ((srtt>>2) + rttvar)>>1 is the initial RTO (6 s: 12 ticks, rttvar 24), and
            // the first backed-off timeout is REXMTVAL·2 = (srtt/8 + rttvar)·2 = 48 ticks = 24 s.
            RtoStyle::Bsd => 2.0 * initial_ticks,
            // FreeBSD 2.2 tcp_newtcpcb: t_rttvar = (TCPTV_RTOBASE << TCP_RTTVAR_SHIFT) / 4, so that
            // TCP_REXMTVAL = (0 + rttvar) >> TCP_DELTA_SHIFT is TCPTV_RTOBASE (6 ticks, 3 s), and
            // the backed-off timeouts are 6, 12, 24 s …
            RtoStyle::FreeBsd22 => 4.0 * initial_ticks,
            _ => 0.0,
        };
        let mut r = RtoEstimator {
            style: cfg.rto,
            tick,
            min: cfg.min_rto,
            max: cfg.max_rto,
            max_backoff: cfg.max_backoff,
            srtt: 0.0,
            rttvar,
            mdev: 0.0,
            mdev_max: 0.0,
            rtt_seq: 0,
            sample_floor: (cfg.min_rto.0 / tick.0) as f64,
            base: cfg.initial_rto.0 as f64,
            initial: cfg.initial_rto,
            backoff: 1,
            samples: 0,
            route_rxtcur: 0,
            timeout: Time::ZERO,
        };
        r.timeout = r.work_out_timeout();
        r
    }

    /// Account an RTT sample for a segment sent at `sent` and acknowledged at `now`, on a clock
    /// with phase `phase`, by an ACK that moves `snd_una` to `snd_una` while `snd_nxt` is the
    /// highest sequence sent (only the `linux` style reads these two: its round trips). Resets the
    /// backoff (Karn: the timed segment was sent only once).
    pub fn sample(&mut self, sent: Time, now: Time, phase: Time, snd_una: u64, snd_nxt: u64) {
        self.backoff = 1;
        self.samples = self.samples.saturating_add(1);
        match self.style {
            RtoStyle::Bsd | RtoStyle::FreeBsd22 => {
                // t_rtt starts at 1 and counts slow ticks (tcp_slowtimo); tcp_xmit_timer
                // subtracts the 1 that t_rtt started at, except in the first sample.
                let rtt = 1.0 + ticks_between(sent, now, self.tick, phase) as f64;
                self.jacobson_in_ticks(rtt, 1.0);
                if self.style == RtoStyle::FreeBsd22 {
                    // tcp_xmit_timer: TCPT_RANGESET(t_rxtcur, TCP_REXMTVAL(tp),
                    // max(t_rttmin, rtt + 2), TCPTV_REXMTMAX).
                    self.sample_floor = self.ticks(self.min).max(rtt + 2.0);
                }
            }
            RtoStyle::Ns2Old | RtoStyle::Ns2Rfc2988 => {
                // ns-2 rtt_update: t_rtt = ticks crossed, at least 1.
                let rtt = (ticks_between(sent, now, self.tick, phase) as f64).max(1.0);
                self.jacobson_in_ticks(rtt, 0.0);
                // t_rtxcur = ((rttvar << 3) + srtt) >> 3 ticks = srtt + 4·rttvar.
                let ticks = floor((self.rttvar * 8.0 + self.srtt) / 8.0);
                self.base = ticks * self.tick.0 as f64;
            }
            RtoStyle::Rfc6298 => {
                let r = (now - sent).0 as f64;
                if self.samples == 1 {
                    self.srtt = r;
                    self.rttvar = r / 2.0;
                } else {
                    self.rttvar = 0.75 * self.rttvar + 0.25 * (self.srtt - r).abs();
                    self.srtt = 0.875 * self.srtt + 0.125 * r;
                }
                self.base = self.srtt + (self.tick.0 as f64).max(4.0 * self.rttvar);
            }
            RtoStyle::Linux => {
                self.linux_estimator(((now - sent).0 / 1_000) as f64, snd_una, snd_nxt)
            }
        }
        self.timeout = self.work_out_timeout_inline();
    }

    /// Linux `tcp_rtt_estimator` for a sample of `m` µs, in its integer arithmetic (the shifts of
    /// non-negative values as floors). `rttvar` follows the largest mdev of a round trip at once
    /// and decays toward it by a quarter per round trip, never below `min_rto`
    /// (`tcp_rto_min_us`), so the timeout stays at least srtt + `min_rto`.
    fn linux_estimator(&mut self, m: f64, snd_una: u64, snd_nxt: u64) {
        let rto_min = (self.min.0 / 1_000) as f64;
        if self.samples == 1 {
            self.srtt = m * 8.0;
            self.mdev = m * 2.0; // an RTO of 3·RTT
            self.rttvar = self.mdev.max(rto_min);
            self.mdev_max = self.rttvar;
            self.rtt_seq = snd_nxt;
        } else {
            let mut err = m - floor(self.srtt / 8.0);
            self.srtt += err; // gain 1/8
            if err < 0.0 {
                // A falling RTT moves mdev by a gain of 1/32 only (Eifel-like).
                err = -err - floor(self.mdev / 4.0);
                if err > 0.0 {
                    err = floor(err / 8.0);
                }
            } else {
                err -= floor(self.mdev / 4.0);
            }
            self.mdev += err; // gain 1/4
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar = self.rttvar.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                if self.mdev_max < self.rttvar {
                    self.rttvar -= floor((self.rttvar - self.mdev_max) / 4.0);
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max = rto_min;
            }
        }
        self.srtt = self.srtt.max(1.0);
    }

    /// FreeBSD 2.2 `tcp_close`: what a closing connection leaves in its host's route to the peer,
    /// if it took at least 16 samples (`t_rttupdated >= 16`): its `t_srtt` (ticks ×32) and
    /// `t_rttvar` (ticks ×16). `None` for the other styles.
    pub fn route_sample(&self) -> Option<(u64, u64)> {
        (self.style == RtoStyle::FreeBsd22 && self.samples >= 16)
            .then_some((self.srtt as u64, self.rttvar as u64))
    }

    /// FreeBSD 2.2 `tcp_mss`, when a SYN or SYN-ACK arrives: without an estimate yet (`t_srtt`
    /// 0), take the host's cached `srtt` (ticks ×32) and `rttvar` (ticks ×16; `None`: none cached,
    /// then ±1 RTT), and set the timeout to `((srtt >> 2) + rttvar) >> 1` ticks within
    /// [`t_rttmin`, `TCPTV_REXMTMAX`]. (That expression is 4.4BSD's for srtt ×8 and rttvar ×4, left
    /// unchanged when FreeBSD scaled them by 4 more: it gives 4·srtt + 8·rttvar ticks, not
    /// srtt + 4·rttvar; the formula proper, `TCP_REXMTVAL`, returns at the first sample or
    /// timeout.) Later samples smooth into the cached values, as the first would have.
    pub fn start_from_route(&mut self, srtt: u64, rttvar: Option<u64>) {
        if self.style != RtoStyle::FreeBsd22 || self.srtt != 0.0 {
            return;
        }
        self.srtt = srtt as f64;
        self.rttvar = match rttvar {
            Some(v) => v as f64,
            None => floor(self.srtt * 16.0 / 32.0),
        };
        let rxtcur = floor((floor(self.srtt / 4.0) + self.rttvar) / 2.0);
        let ticks = range_set(rxtcur, self.ticks(self.min), self.ticks(self.max));
        self.route_rxtcur = ticks as u32;
        self.timeout = self.work_out_timeout();
    }

    /// The finer scaling of FreeBSD 2.2: 1 << TCP_DELTA_SHIFT (srtt ×32, rttvar ×16), or 1
    /// (4.4BSD-Lite2 and ns-2: srtt ×8, rttvar ×4).
    fn delta_scale(&self) -> f64 {
        match self.style {
            RtoStyle::FreeBsd22 => 4.0,
            _ => 1.0,
        }
    }

    /// Jacobson/Karels in integer ticks with srtt kept ×8 and rttvar ×4, each times the delta scale
    /// (BSD `tcp_xmit_timer`, ns-2 `rtt_update`); `offset` is subtracted from later samples (1 for
    /// BSD's t_rtt, 0 for ns-2). In both scalings srtt is shifted right by 3 and rttvar by 2 to
    /// form the gains 1/8 and 1/4.
    fn jacobson_in_ticks(&mut self, rtt: f64, offset: f64) {
        let scale = self.delta_scale();
        if self.srtt != 0.0 {
            let mut delta = (rtt - offset) * scale - floor(self.srtt / 8.0);
            self.srtt = (self.srtt + delta).max(1.0);
            delta = delta.abs() - floor(self.rttvar / 4.0);
            self.rttvar = (self.rttvar + delta).max(1.0);
        } else {
            self.srtt = rtt * 8.0 * scale;
            self.rttvar = rtt * 2.0 * scale;
        }
    }

    fn ticks(&self, t: Time) -> f64 {
        (t.0 / self.tick.0) as f64
    }

    /// The timeout now in force, backoff included.
    #[inline]
    pub fn timeout(&self) -> Time {
        self.timeout
    }

    /// [`RtoEstimator::timeout`] from the estimator's state: called by each method that changes
    /// that state (at its end); [`Self::work_out_timeout_inline`] for the common one, a sample.
    #[inline(never)]
    fn work_out_timeout(&self) -> Time {
        self.work_out_timeout_inline()
    }

    /// [`Self::work_out_timeout`], inline in [`Self::sample`] (about one a round trip).
    #[inline(always)]
    fn work_out_timeout_inline(&self) -> Time {
        let b = f64::from(self.backoff);
        let (min, max) = (self.min.0 as f64, self.max.0 as f64);
        let ns = match self.style {
            RtoStyle::Bsd if self.samples == 0 && self.backoff == 1 => self.initial.0 as f64,
            // TCPT_RANGESET(t_rxtcur, REXMTVAL · tcp_backoff[shift], t_rttmin, REXMTMAX), with
            // REXMTVAL = srtt/8 + rttvar (rttvar kept ×4, so this is srtt + 4·rttvar).
            RtoStyle::Bsd => {
                let rexmtval = floor(self.srtt / 8.0) + self.rttvar;
                (rexmtval * b).clamp(self.ticks(self.min), self.ticks(self.max))
                    * self.tick.0 as f64
            }
            // FreeBSD 2.2: TCP_REXMTVAL = ((srtt >> 3) + rttvar) >> 2, bounded below by the floor
            // of the last sample until a timeout (tcp_timers: t_rttmin), above by TCPTV_REXMTMAX.
            RtoStyle::FreeBsd22 if self.route_rxtcur > 0 && self.samples == 0 && b == 1.0 => {
                f64::from(self.route_rxtcur) * self.tick.0 as f64
            }
            RtoStyle::FreeBsd22 => {
                let rexmtval = floor((floor(self.srtt / 8.0) + self.rttvar) / 4.0);
                let floor = if self.backoff == 1 {
                    self.sample_floor
                } else {
                    self.ticks(self.min)
                };
                range_set(rexmtval * b, floor, self.ticks(self.max)) * self.tick.0 as f64
            }
            RtoStyle::Ns2Old => (self.base * b)
                .max(min)
                .min(max)
                .max(2.0 * self.tick.0 as f64),
            RtoStyle::Ns2Rfc2988 => (self.base.max(min) * b)
                .min(max)
                .max(2.0 * self.tick.0 as f64),
            RtoStyle::Rfc6298 => (self.base.max(min) * b).min(max),
            // inet_csk_rto_backoff(icsk_rto, TCP_RTO_MAX); icsk_rto is TCP_TIMEOUT_INIT before a
            // sample, then __tcp_set_rto: usecs_to_jiffies(srtt/8 + rttvar), rounded up.
            RtoStyle::Linux => {
                let rto = if self.samples == 0 {
                    self.initial.0 as f64
                } else {
                    let ns = (floor(self.srtt / 8.0) + self.rttvar) * 1e3;
                    ceil(ns / self.tick.0 as f64) * self.tick.0 as f64
                };
                (rto * b).min(max)
            }
        };
        Time(round(ns) as u64)
    }

    /// When a timer started at `now` expires: on the host's tick grid for BSD (the slow timer
    /// counts down whole ticks), exactly otherwise.
    pub fn deadline(&self, now: Time, phase: Time) -> Time {
        let t = self.timeout();
        if self.style.is_bsd() {
            nth_tick_after(now, t.0.div_ceil(self.tick.0), self.tick, phase)
        } else {
            now + t
        }
    }

    /// The timer expired: back off. BSD and ns-2 fold srtt into rttvar after several backoffs
    /// (BSD when the shift exceeds TCP_MAXRXTSHIFT/4 = 3; ns-2 when the backoff exceeds 8).
    /// End the backoff without a sample (ns-2 `Sack1` on a partial ACK: `t_backoff_ = 1`).
    pub fn end_backoff(&mut self) {
        self.backoff = 1;
        self.timeout = self.work_out_timeout();
    }

    pub fn back_off(&mut self) {
        self.backoff = (self.backoff * 2).min(self.max_backoff);
        let fold = match self.style {
            RtoStyle::Bsd | RtoStyle::FreeBsd22 => self.backoff > 8,
            RtoStyle::Ns2Old | RtoStyle::Ns2Rfc2988 => self.backoff > 8,
            RtoStyle::Rfc6298 | RtoStyle::Linux => false,
        };
        if fold && self.srtt != 0.0 {
            // t_rttvar += t_srtt >> TCP_RTT_SHIFT (3 in Lite2, 5 in FreeBSD 2.2).
            self.rttvar += floor(self.srtt / (8.0 * self.delta_scale()));
            self.srtt = 0.0;
        }
        self.timeout = self.work_out_timeout();
    }

    /// RFC 6298 §5.7: after a SYN timed out, data starts with an RTO of at least `t`. (The
    /// `linux` style uses `t` only if there is no sample yet, as `tcp_init_metrics` does.)
    pub fn reinitialize_at_least(&mut self, t: Time) {
        self.backoff = 1;
        self.base = self.base.max(t.0 as f64);
        self.initial = self.initial.max(t);
        self.sample_floor = self.sample_floor.max(self.ticks(t));
        self.timeout = self.work_out_timeout();
    }

    /// The current backoff multiplier (1 until a timeout).
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// The smoothed RTT in seconds, if any sample was taken.
    pub fn srtt_s(&self) -> Option<f64> {
        if self.samples == 0 {
            return None;
        }
        Some(match self.style {
            RtoStyle::Rfc6298 => self.srtt * 1e-9,
            RtoStyle::Linux => floor(self.srtt / 8.0) * 1e-6,
            _ => self.srtt / (8.0 * self.delta_scale()) * self.tick.as_secs_f64(),
        })
    }

    /// The smoothed RTT as Linux keeps it, in µs·8 (`srtt_us`), once measured: the `linux`
    /// style's own value, the others' rounded to it.
    pub fn srtt_us8(&self) -> Option<u64> {
        match self.style {
            RtoStyle::Linux => (self.samples > 0).then_some(self.srtt as u64),
            _ => self.srtt_s().map(|s| (s * 8e6).round() as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est(profile: &str) -> RtoEstimator {
        RtoEstimator::new(&TcpConfig::profile(profile).unwrap())
    }

    /// 4.4BSD-Lite2's timer: the `freebsd-2.2` profile with Lite2's arithmetic and 6 s start.
    fn lite2() -> RtoEstimator {
        RtoEstimator::new(&TcpConfig {
            rto: RtoStyle::Bsd,
            initial_rto: Time::from_secs(6),
            ..TcpConfig::profile("freebsd-2.2").unwrap()
        })
    }

    #[test]
    fn freebsd_starts_from_the_route_with_tcp_mss_arithmetic_until_a_sample() {
        let mut r = est("freebsd-2.2");
        assert_eq!(r.route_sample(), None);
        // srtt 8/32 tick, rttvar 6/16: ((8 >> 2) + 6) >> 1 = 4 ticks, 2 s — where TCP_REXMTVAL,
        // ((8 >> 3) + 6) >> 2, would say 1 tick and t_rttmin raise it to 2 (1 s).
        r.start_from_route(8, Some(6));
        assert_eq!(r.timeout(), Time::from_secs(2));
        // An estimate is there: a second SYN-ACK leaves it alone.
        r.start_from_route(40, None);
        assert_eq!(r.timeout(), Time::from_secs(2));
        // Timed out: TCP_REXMTVAL (1 tick) doubled, 2 ticks (1 s).
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(1));
        // Without a cached rttvar it is ±1 RTT: srtt 40 → rttvar 20, ((40 >> 2) + 20) >> 1 = 15.
        let mut r = est("freebsd-2.2");
        r.start_from_route(40, None);
        assert_eq!(r.timeout(), Time::from_millis(7_500));
        // Sixteen samples make a route sample; other styles never do.
        let ms = Time::from_millis;
        for k in 0..16 {
            assert_eq!(r.route_sample(), None);
            r.sample(ms(1000 * k), ms(1000 * k + 100), Time::ZERO, 0, 0);
        }
        assert!(r.route_sample().is_some());
        let mut ns2 = est("ns2-2000");
        for k in 0..16 {
            ns2.sample(ms(1000 * k), ms(1000 * k + 100), Time::ZERO, 0, 0);
        }
        assert_eq!(ns2.route_sample(), None);
    }

    #[test]
    fn lite2_syn_timeouts_are_6_then_24_seconds() {
        // docs/models/freebsd-2.2.md §2: first SYN retransmission after 6 s, the next 24 s later.
        let mut r = lite2();
        assert_eq!(r.timeout(), Time::from_secs(6));
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(24));
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(48));
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(64));
    }

    #[test]
    fn freebsd_syn_timeouts_are_3_then_6_12_24_seconds() {
        // tcp_newtcpcb: t_rxtcur = TCPTV_RTOBASE (6 ticks), t_rttvar = 24 so that REXMTVAL is 6
        // ticks; tcp_timers multiplies REXMTVAL by tcp_backoff[] = 1, 2, 4, 8, … up to 64 s.
        let mut r = est("freebsd-2.2");
        let mut timeouts = vec![r.timeout().as_secs_f64()];
        for _ in 0..6 {
            r.back_off();
            timeouts.push(r.timeout().as_secs_f64());
        }
        assert_eq!(timeouts, [3.0, 6.0, 12.0, 24.0, 48.0, 64.0, 64.0]);
    }

    #[test]
    fn bsd_timers_expire_on_the_tick_grid() {
        let phase = Time::from_millis(100);
        // Ticks at 400 ms, 900 ms, …; a 6 s (12-tick) timer set at 1.0 s fires at the 12th tick
        // after it, 6.9 s; FreeBSD's 3 s (6-tick) one at the 6th, 3.9 s.
        assert_eq!(
            lite2().deadline(Time::from_secs(1), phase),
            Time::from_millis(6_900)
        );
        assert_eq!(
            est("freebsd-2.2").deadline(Time::from_secs(1), phase),
            Time::from_millis(3_900)
        );
    }

    #[test]
    fn lite2_lan_rtt_gives_the_one_second_floor_and_coarse_ticks() {
        let mut r = lite2();
        // A 79 ms RTT that crosses no tick boundary counts as 1 tick.
        r.sample(
            Time::from_millis(1_000),
            Time::from_millis(1_079),
            Time::ZERO,
            0,
            0,
        );
        // srtt = 8, rttvar = 2 (scaled): REXMTVAL = 1 + 2 = 3 ticks = 1.5 s.
        assert_eq!(r.timeout(), Time::from_millis(1_500));
        assert_eq!(r.backoff, 1);
        // Two more 1-tick samples: delta = 1 − 1 − 1 = −1 → srtt 7, rttvar 2 + 1 − 0 = 3 → REXMTVAL
        // 0 + 3 = 3; then delta = −0 − 0 = 0 … the coarse ×8/×4 scaling keeps 3 ticks.
        for _ in 0..2 {
            r.sample(Time::ZERO, Time::from_millis(79), Time::ZERO, 0, 0);
        }
        assert_eq!(r.timeout(), Time::from_millis(1_500));
    }

    #[test]
    fn freebsd_scales_finer_and_floors_at_rtt_plus_two_ticks() {
        let mut r = est("freebsd-2.2");
        // A 79 ms RTT within one tick: rtt = 1, srtt = 32, rttvar = 8 (×32, ×16):
        // REXMTVAL = (32/8 + 8)/4 = 3 ticks; floor max(2, 1 + 2) = 3 ticks: 1.5 s.
        r.sample(Time::ZERO, Time::from_millis(79), Time::ZERO, 0, 0);
        assert_eq!((r.srtt, r.rttvar), (32.0, 8.0));
        assert_eq!(r.timeout(), Time::from_millis(1_500));
        // Later 1-tick samples count rtt − 1 = 0: delta = 0 − 32/8 = −4 → srtt 28, rttvar
        // 8 + 4 − 2 = 10; REXMTVAL = (3 + 10)/4 = 3.
        r.sample(Time::ZERO, Time::from_millis(79), Time::ZERO, 0, 0);
        assert_eq!((r.srtt, r.rttvar), (28.0, 10.0));
        for _ in 0..30 {
            r.sample(Time::ZERO, Time::from_millis(79), Time::ZERO, 0, 0);
        }
        // srtt and rttvar decay until the shifts lose them (srtt 7, rttvar 3): REXMTVAL is
        // (0 + 3)/4 = 0 ticks, and the floor rtt + 2 = 3 ticks holds the timeout at 1.5 s.
        assert_eq!((r.srtt, r.rttvar), (7.0, 3.0));
        assert_eq!(r.timeout(), Time::from_millis(1_500));
        // A sample that crossed a tick boundary, rtt = 2: srtt 11, rttvar 7, REXMTVAL 2 ticks,
        // floor 4 ticks = 2 s.
        r.sample(
            Time::from_millis(450),
            Time::from_millis(529),
            Time::ZERO,
            0,
            0,
        );
        assert_eq!((r.srtt, r.rttvar), (11.0, 7.0));
        assert_eq!(r.timeout(), Time::from_secs(2));
        // A timeout: only t_rttmin (2 ticks) bounds REXMTVAL·2 = 4 ticks, 2 s; then 8 ticks.
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(2));
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(4));
    }

    #[test]
    fn ns2_counts_crossed_ticks_and_applies_its_minimum() {
        let mut r = est("ns2-2003");
        assert_eq!(r.timeout(), Time::from_secs(6));
        // 95 ms with 10 ms ticks, phase 0: ticks crossed between 0.003 and 0.098 = 9.
        r.sample(
            Time::from_millis(3),
            Time::from_millis(98),
            Time::ZERO,
            0,
            0,
        );
        // srtt = 72, rttvar = 18 → (18·8 + 72)/8 = 27 ticks = 270 ms, below min_rto 1 s.
        assert_eq!(r.timeout(), Time::from_secs(1));
        r.back_off();
        assert_eq!(r.timeout(), Time::from_secs(2));
        let mut old = est("ns2-2000");
        old.sample(Time::ZERO, Time::from_millis(250), Time::ZERO, 0, 0);
        // 2 ticks: srtt 16, rttvar 4 → 6 ticks = 600 ms; floor 2·tick = 200 ms.
        assert_eq!(old.timeout(), Time::from_millis(600));
    }

    #[test]
    fn rfc6298_follows_the_rfc_formulas() {
        let mut r = est("rfc");
        assert_eq!(r.timeout(), Time::from_secs(1));
        r.sample(Time::ZERO, Time::from_millis(400), Time::ZERO, 0, 0);
        // SRTT 400 ms, RTTVAR 200 ms → RTO 1.2 s.
        assert_eq!(r.timeout(), Time::from_millis(1_200));
        r.sample(Time::ZERO, Time::from_millis(400), Time::ZERO, 0, 0);
        // RTTVAR 150 ms → RTO 1.0 s.
        assert_eq!(r.timeout(), Time::from_millis(1_000));
        for _ in 0..10 {
            r.back_off();
        }
        assert_eq!(r.timeout(), Time::from_secs(60));
        assert!((r.srtt_s().unwrap() - 0.4).abs() < 1e-9);
    }

    #[test]
    fn linux_starts_at_three_rtts_and_a_falling_rtt_moves_mdev_by_one_32nd() {
        let mut r = est("linux");
        assert_eq!(r.timeout(), Time::from_secs(1)); // TCP_TIMEOUT_INIT
                                                     // First sample, 400 ms: srtt 400 ms (·8), mdev 200 ms (·4), rttvar = mdev·4 = 800 ms.
        r.sample(
            Time::ZERO,
            Time::from_millis(400),
            Time::ZERO,
            1_000,
            10_000,
        );
        assert_eq!(r.timeout(), Time::from_millis(1_200));
        // 100 ms: error −300 ms, srtt 362.5 ms; |error| − mdev/4 = 100 ms > 0 counts 1/8 of it:
        // mdev 812.5 ms (·4), above the round's largest, so rttvar 812.5 ms at once.
        r.sample(
            Time::ZERO,
            Time::from_millis(100),
            Time::ZERO,
            2_000,
            10_000,
        );
        assert_eq!(r.timeout(), Time::from_micros(362_500 + 812_500));
        assert!((r.srtt_s().unwrap() - 0.3625).abs() < 1e-9);
        r.back_off();
        assert_eq!(r.timeout(), Time::from_micros(2 * 1_175_000));
    }

    /// The reason for the style: with a sample at every ACK (timestamps), RFC 6298's RTTVAR decays
    /// to nothing and its timeout falls onto the SRTT (a spurious timeout whenever a repair takes a
    /// little longer than one round trip); Linux keeps srtt + `min_rto`.
    #[test]
    fn linux_keeps_min_rto_above_the_srtt_under_per_ack_samples() {
        let linux = TcpConfig::profile("linux").unwrap();
        let mut ours = RtoEstimator::new(&linux);
        let mut rfc = RtoEstimator::new(&TcpConfig {
            rto: RtoStyle::Rfc6298,
            ..linux
        });
        let mut una = 0;
        for round in 1..=40u64 {
            // 20 ACKs a round trip of a constant 400 ms; a round ends when snd_una passes the
            // snd_nxt of its start.
            for _ in 0..20 {
                una += 1_448;
                for r in [&mut ours, &mut rfc] {
                    r.sample(
                        Time::ZERO,
                        Time::from_millis(400),
                        Time::ZERO,
                        una,
                        round * 28_960,
                    );
                }
            }
        }
        let srtt = Time::from_millis(400);
        assert!(
            rfc.timeout() < srtt + Time::from_millis(2),
            "{:?}",
            rfc.timeout()
        );
        let margin = ours.timeout() - srtt;
        assert!(
            margin >= Time::from_millis(200) && margin <= Time::from_millis(201),
            "{margin:?}"
        );
    }

    /// The timeout kept by each method that changes the estimator is the one its state gives:
    /// random runs of samples, backoffs and re-initialisations, in every style and profile.
    #[test]
    fn the_timeout_kept_is_always_the_one_the_state_gives() {
        use crate::rng::Rng;
        let styles = [
            RtoStyle::Bsd,
            RtoStyle::FreeBsd22,
            RtoStyle::Ns2Old,
            RtoStyle::Ns2Rfc2988,
            RtoStyle::Rfc6298,
            RtoStyle::Linux,
        ];
        let mut rng = Rng::stream(7, "rto-property");
        for profile in crate::tcp::config::PROFILES {
            for rto in styles {
                let cfg = TcpConfig {
                    rto,
                    ..TcpConfig::profile(profile).unwrap()
                };
                let mut r = RtoEstimator::new(&cfg);
                assert_eq!(r.timeout(), r.work_out_timeout(), "{profile} {rto:?} new");
                let (mut now, mut una) = (Time::ZERO, 0u64);
                for step in 0..400 {
                    now = now + Time::from_micros(rng.uniform_u64(1, 3_000_000));
                    match rng.uniform_u64(0, 9) {
                        0 => r.back_off(),
                        1 => r.reinitialize_at_least(Time::from_millis(rng.uniform_u64(1, 7_000))),
                        _ => {
                            una += 1_000;
                            let rtt = Time::from_micros(rng.uniform_u64(1, 2_000_000));
                            r.sample(
                                Time(now.0.saturating_sub(rtt.0)),
                                now,
                                Time::ZERO,
                                una,
                                una + 10_000,
                            );
                        }
                    }
                    assert_eq!(
                        r.timeout(),
                        r.work_out_timeout(),
                        "{profile} {rto:?} step {step}"
                    );
                }
            }
        }
    }
}
