//! CUBIC congestion control: RFC 9438 ("CUBIC for Fast and Long-Distance Networks", 2023), read
//! beside Linux `net/ipv4/tcp_cubic.c` (the algorithm Linux has run by default since 2.6.19). The
//! window follows the cubic W_cubic(t) = C·(t − K)³ + W_max (RFC 9438 eq. 1), with
//! K = ∛((W_max − cwnd_epoch)/C) (eq. 2; = ∛(W_max·(1 − β)/C) right after a reduction to
//! β·W_max), in segments and seconds. Arithmetic is `f64` on segments, with time taken from the
//! integer clock; it is deterministic.
//!
//! - Congestion avoidance (§4.2): on each ACK of new data, target = W_cubic(t + RTT) clamped to
//!   [cwnd, 1.5·cwnd], and cwnd += (target − cwnd)/cwnd per segment acknowledged. t runs from the
//!   start of the congestion-avoidance epoch: the end of fast recovery, or the first ACK in
//!   congestion avoidance (Linux `bictcp_update`: `epoch_start == 0`). RTT is the sender's
//!   smoothed RTT (RFC 9438); Linux uses the smallest RTT seen (`delay_min`).
//! - Reno-friendly region (§4.3): W_est starts at cwnd_epoch and grows by α·(segments acked)/cwnd,
//!   α = 3(1 − β)/(1 + β), and by 1 per window once W_est ≥ cwnd_prior. While W_cubic(t) < W_est
//!   the window is W_est (never lowered by an ACK: cwnd = max(cwnd, W_est)).
//! - Multiplicative decrease (§4.6): the window on congestion (cwnd or the flight size, as the
//!   profile's `halve` says; Linux uses cwnd) times β, in whole segments; W_max and cwnd_prior
//!   record cwnd. Fast convergence (§4.7): a reduction below the last W_max sets
//!   W_max = cwnd·(1 + β)/2 (Linux `bictcp_recalc_ssthresh`).
//! - Timeout (§4.8): the next epoch has K = 0 and W_max = cwnd at its start (Linux resets its
//!   state on entering Loss: `bictcp_state` → `bictcp_reset`).
//! - Slow start (§4.10): RFC 5681 with byte counting up to ssthresh, the rest of the ACK going to
//!   congestion avoidance (Linux `tcp_slow_start`).
//! - Idle (§5.8): time without data in flight does not count in t: the epoch start moves forward
//!   by the idle time (Linux `bictcp_cwnd_event`, `CA_EVENT_TX_START`).
//!
//! Where Linux departs from RFC 9438 this follows the RFC: Linux's target uses the minimum RTT,
//! its Reno estimate grows by α per RTT throughout (no switch to 1 at cwnd_prior) and cwnd
//! closes the gap to it over one RTT rather than jumping to it. Linux's growth floor with no W_max
//! (before the first loss, after a timeout: at least 5% per RTT, `ca->cnt` at most 20) is an
//! option, `unknown_wmax_floor`. Linux's own arithmetic (whole segments, `cnt`, 2⁻¹⁰ s units,
//! once-per-jiffy updates) is `cubic_linux.rs`, chosen by `arithmetic` (the `linux` profile's).
//! Not modelled: the `tcp_is_cwnd_limited` check (the window also grows when not fully used),
//! spurious-congestion undo (§4.9). `docs/cubic-validation.md` checks this model against RFC 9438
//! §5.1.

use super::Acked;
use crate::units::Time;
use serde::Serialize;

/// CUBIC's constants (RFC 9438 §5: C = 0.4, β_cubic = 0.7, fast convergence on; Linux:
/// `bic_scale` 41/1024·10 ≈ 0.4, `beta` 717/1024 ≈ 0.7, `fast_convergence` 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicParams {
    /// C, in segments per second³.
    pub c: f64,
    /// β_cubic: the window's multiplicative decrease factor.
    pub beta: f64,
    pub fast_convergence: bool,
    /// Linux's growth floor while W_max is unknown (before the first loss, after a timeout):
    /// `tcp_cubic.c` `bictcp_update` caps `ca->cnt` (ACKed segments per +1 segment) at 20 when
    /// `last_max_cwnd` is 0, so the window grows by at least 1/20 segment per segment
    /// acknowledged, 5% per RTT. RFC 9438 has no such floor.
    pub unknown_wmax_floor: bool,
    /// Whose arithmetic grows and reduces the window: RFC 9438's here, or Linux's
    /// (`cubic_linux.rs`).
    pub arithmetic: CubicArithmetic,
}

/// How CUBIC's window is computed (scenario key `cubic_arithmetic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CubicArithmetic {
    /// RFC 9438's smooth curve, in fractions of a segment (this module).
    Rfc9438,
    /// Linux `tcp_cubic.c`: a whole-segment target, the segments per increment `cnt`, and
    /// `tcp_cong_avoid_ai` (`cubic_linux.rs`).
    Linux,
}

impl CubicParams {
    pub const RFC9438: CubicParams = CubicParams {
        c: 0.4,
        beta: 0.7,
        fast_convergence: true,
        unknown_wmax_floor: false,
        arithmetic: CubicArithmetic::Rfc9438,
    };

    /// Linux's `ca->cnt` bound while W_max is unknown: at most this many segments acknowledged
    /// per segment of growth.
    pub const UNKNOWN_WMAX_MAX_CNT: f64 = 20.0;

    /// α_cubic = 3(1 − β)/(1 + β) (RFC 9438 §4.3): Reno's average rate at CUBIC's β.
    pub fn alpha(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

/// One congestion-avoidance epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    /// t_epoch.
    start: Time,
    /// K, seconds.
    k: f64,
    /// The plateau the cubic grows toward (W_max, or cwnd_epoch if that is larger), segments.
    origin: f64,
    /// W_est, segments.
    w_est: f64,
}

/// CUBIC's state.
#[derive(Clone, Debug)]
pub struct Cubic {
    p: CubicParams,
    /// W_max, segments (0: none, as at the start and after a timeout).
    w_max: f64,
    /// cwnd when ssthresh was last set, segments.
    cwnd_prior: f64,
    epoch: Option<Epoch>,
}

impl Cubic {
    pub fn new(p: CubicParams) -> Cubic {
        Cubic {
            p,
            w_max: 0.0,
            cwnd_prior: 0.0,
            epoch: None,
        }
    }

    /// W_cubic(t) (RFC 9438 eq. 1) of `e`, t in seconds from its start.
    fn w_cubic(&self, e: &Epoch, t: f64) -> f64 {
        self.p.c * (t - e.k).powi(3) + e.origin
    }

    /// A congestion-avoidance epoch that begins at `now` with cwnd = `cwnd` segments.
    fn new_epoch(&self, now: Time, cwnd: f64) -> Epoch {
        let (k, origin) = if self.w_max > cwnd {
            (((self.w_max - cwnd) / self.p.c).cbrt(), self.w_max)
        } else {
            (0.0, cwnd)
        };
        Epoch {
            start: now,
            k,
            origin,
            w_est: cwnd,
        }
    }

    /// Begin a congestion-avoidance epoch at `now` with cwnd = `cwnd` segments.
    pub fn start_epoch(&mut self, now: Time, cwnd: f64) {
        self.epoch = Some(self.new_epoch(now, cwnd));
    }

    /// Did the current epoch begin less than `d` before `now`?
    pub fn epoch_younger_than(&self, now: Time, d: Time) -> bool {
        self.epoch.is_some_and(|e| now < e.start + d)
    }

    /// An ACK of new data outside recovery: slow start, then congestion avoidance.
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: f64, mss: f64, ack: Acked) {
        let mut acked = ack.bytes as f64;
        if ack.slow_start {
            let grow = acked.min((ssthresh - *cwnd).max(0.0));
            *cwnd += grow;
            acked -= grow;
            if acked <= 0.0 {
                return;
            }
        }
        let segs = acked / mss;
        let cw = *cwnd / mss;
        let mut e = self.epoch.unwrap_or_else(|| self.new_epoch(ack.now, cw));
        let alpha = if e.w_est >= self.cwnd_prior {
            1.0
        } else {
            self.p.alpha()
        };
        e.w_est += alpha * segs / cw;
        self.epoch = Some(e);
        let t = (ack.now - e.start).as_secs_f64();
        let next = if self.w_cubic(&e, t) < e.w_est {
            cw.max(e.w_est)
        } else {
            let rtt = ack.srtt_s.unwrap_or(0.0);
            let target = self.w_cubic(&e, t + rtt).clamp(cw, 1.5 * cw);
            cw + (target - cw) / cw * segs
        };
        let next = if self.p.unknown_wmax_floor && self.w_max == 0.0 {
            next.max(cw + segs / CubicParams::UNKNOWN_WMAX_MAX_CNT)
        } else {
            next
        };
        *cwnd = next * mss;
    }

    /// β times the window, in whole segments (rounded down, as Linux's integer arithmetic).
    pub fn reduced_segments(&self, window: f64, mss: f64) -> f64 {
        (window * self.p.beta / mss).floor()
    }

    /// Congestion at cwnd = `cwnd` bytes: W_max with fast convergence, cwnd_prior, end the epoch.
    pub fn on_congestion(&mut self, cwnd: f64, mss: f64) {
        let cw = cwnd / mss;
        self.w_max = if self.p.fast_convergence && cw < self.w_max {
            cw * (1.0 + self.p.beta) / 2.0
        } else {
            cw
        };
        self.cwnd_prior = cw;
        self.epoch = None;
    }

    /// A timeout: the next epoch starts from its own cwnd (K = 0).
    pub fn on_rto(&mut self) {
        self.w_max = 0.0;
        self.epoch = None;
    }

    /// Data goes out again at `now` after nothing was in flight since `idle_since`.
    pub fn on_idle(&mut self, now: Time, idle_since: Time) {
        if let Some(e) = &mut self.epoch {
            e.start = (e.start + (now - idle_since)).min(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: f64 = 1000.0;

    fn ack(now: Time, segs: u64, rtt: f64) -> Acked {
        Acked {
            now,
            bytes: segs * MSS as u64,
            srtt_s: Some(rtt),
            slow_start: false,
        }
    }

    #[test]
    fn the_constants_are_rfc_9438s() {
        let p = CubicParams::RFC9438;
        assert!((p.alpha() - 0.9 / 1.7).abs() < 1e-15);
        let c = Cubic::new(p);
        assert_eq!(c.reduced_segments(100_000.0, MSS), 70.0);
        assert_eq!(c.reduced_segments(9_999.0, MSS), 6.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_shrank() {
        let mut c = Cubic::new(CubicParams::RFC9438);
        c.on_congestion(100.0 * MSS, MSS);
        assert_eq!(c.w_max, 100.0);
        // Next loss below the last W_max: W_max = 80·(1 + 0.7)/2 = 68.
        c.on_congestion(80.0 * MSS, MSS);
        assert!((c.w_max - 68.0).abs() < 1e-12);
        // Above it: W_max is the window itself.
        c.on_congestion(90.0 * MSS, MSS);
        assert_eq!(c.w_max, 90.0);
        let mut off = Cubic::new(CubicParams {
            fast_convergence: false,
            ..CubicParams::RFC9438
        });
        off.on_congestion(100.0 * MSS, MSS);
        off.on_congestion(80.0 * MSS, MSS);
        assert_eq!(off.w_max, 80.0);
    }

    #[test]
    fn the_epoch_starts_with_k_from_w_max_and_the_window() {
        let mut c = Cubic::new(CubicParams::RFC9438);
        c.on_congestion(100.0 * MSS, MSS);
        c.start_epoch(Time::from_secs(1), 70.0);
        let e = c.epoch.unwrap();
        // K = ∛(100·0.3/0.4) = ∛75.
        assert!((e.k - 75f64.cbrt()).abs() < 1e-12);
        assert_eq!((e.origin, e.w_est), (100.0, 70.0));
        // After a timeout: K = 0, the plateau at the epoch's own window.
        c.on_rto();
        c.start_epoch(Time::from_secs(2), 5.0);
        let e = c.epoch.unwrap();
        assert_eq!((e.k, e.origin), (0.0, 5.0));
    }

    #[test]
    fn slow_start_counts_bytes_up_to_ssthresh_and_the_rest_goes_to_avoidance() {
        let mut c = Cubic::new(CubicParams::RFC9438);
        let mut cwnd = 9.5 * MSS;
        let a = Acked {
            slow_start: true,
            ..ack(Time::from_secs(1), 2, 0.1)
        };
        c.on_ack(&mut cwnd, 10.0 * MSS, MSS, a);
        // 0.5 segment of slow start, then 1.5 segments of avoidance at the epoch's start: K = 0,
        // W_cubic(0) = 10, below W_est = 10 + 1 · 1.5/10 (α = 1: no reduction yet), so the
        // Reno-friendly window it is.
        assert!((cwnd - 10.15 * MSS).abs() < 1e-9, "{cwnd}");
        assert!(c.epoch.is_some());
    }

    #[test]
    fn idle_time_does_not_count_in_the_epoch() {
        let mut c = Cubic::new(CubicParams::RFC9438);
        c.start_epoch(Time::from_secs(10), 20.0);
        c.on_idle(Time::from_secs(15), Time::from_secs(12));
        assert_eq!(c.epoch.unwrap().start, Time::from_secs(13));
        // Never into the future.
        c.on_idle(Time::from_secs(16), Time::from_secs(10));
        assert_eq!(c.epoch.unwrap().start, Time::from_secs(16));
    }

    #[test]
    fn linux_grows_at_least_one_segment_per_20_acknowledged_while_w_max_is_unknown() {
        // cwnd 100 after a timeout: W_max unknown, the epoch's own window is the plateau, and the
        // Reno-friendly rule gives α/100 segment per segment acknowledged (α = 0.53: W_est is
        // below cwnd_prior = 150). Linux's cap on ca->cnt
        // (20 while last_max_cwnd == 0) makes it 1/20: 5% per RTT.
        let floor = CubicParams {
            unknown_wmax_floor: true,
            ..CubicParams::RFC9438
        };
        let now = Time::from_secs(1);
        let reno_friendly = 100.0 + CubicParams::RFC9438.alpha() / 100.0;
        for (p, grown) in [(CubicParams::RFC9438, reno_friendly), (floor, 100.05)] {
            let mut c = Cubic::new(p);
            c.on_congestion(150.0 * MSS, MSS);
            c.on_rto();
            let mut cwnd = 100.0 * MSS;
            c.on_ack(&mut cwnd, 50.0 * MSS, MSS, ack(now, 1, 0.1));
            assert!((cwnd - grown * MSS).abs() < 1e-9, "{cwnd}");
        }
        // Once a loss has set W_max the floor is gone: the concave region right after a
        // reduction grows by less than 1/20 per segment.
        let mut c = Cubic::new(floor);
        c.on_congestion(150.0 * MSS, MSS);
        let mut cwnd = 105.0 * MSS;
        c.on_ack(&mut cwnd, 50.0 * MSS, MSS, ack(now, 1, 0.1));
        assert!(cwnd < 105.05 * MSS, "{cwnd}");
    }
}
