//! Reno congestion control (RFC 5681 §3.1): slow start adds one segment per ACK of new data (ACKs
//! are counted, not bytes, as ns-2 and 4.4BSD / FreeBSD 2.2 `tcp_input.c` do), congestion
//! avoidance adds MSS²/cwnd per ACK (about one segment per round trip), and congestion halves the
//! window (RFC 5681 eq. 4; 4.4BSD `tcp_input`; ns-2 `slowdown`). Stateless.
//!
//! Linux's Reno ([`LinuxReno`], `reno_arithmetic = "linux"`, the `linux` profile's) is
//! `tcp_reno_cong_avoid` of `net/ipv4/tcp_cong.c`: the same halving (`tcp_reno_ssthresh`), but
//! the window in whole segments grown by the segments each ACK acknowledges
//! ([`super::linux_window`]): one segment per window of data in congestion avoidance whether the
//! receiver ACKs every segment or every second one.

use super::linux_window::{acked_segments, segments, slow_start, AckedCount};
use serde::Serialize;

/// How Reno's window grows (scenario key `reno_arithmetic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RenoArithmetic {
    /// RFC 5681: per ACK, in bytes ([`grow`]).
    Rfc5681,
    /// Linux `tcp_reno_cong_avoid`: per segment acknowledged, in whole segments ([`LinuxReno`]).
    Linux,
}

/// Reno in Linux's integers: `snd_cwnd_cnt` is its only state.
#[derive(Clone, Debug, Default)]
pub struct LinuxReno {
    cwnd_cnt: AckedCount,
}

impl LinuxReno {
    /// `tcp_reno_cong_avoid`: an ACK of `bytes` new bytes, in slow start (up to `ssthresh`
    /// bytes) or congestion avoidance; `cwnd` in bytes, held in whole segments of `mss`.
    pub fn on_ack(&mut self, cwnd: &mut f64, ssthresh: f64, mss: f64, bytes: u64, slow: bool) {
        let mut acked = acked_segments(bytes, mss);
        let mut cw = segments(*cwnd, mss);
        if slow {
            let ssth = (ssthresh / mss).min(f64::from(u32::MAX)) as u32;
            acked = slow_start(&mut cw, ssth, acked);
        }
        if acked > 0 {
            let w = cw;
            self.cwnd_cnt.cong_avoid_ai(&mut cw, w, acked);
        }
        *cwnd = f64::from(cw) * mss;
    }

    /// The window was reduced, or a timeout struck: the count restarts
    /// (`tcp_init_cwnd_reduction`, `tcp_enter_loss`).
    pub fn restart_count(&mut self) {
        self.cwnd_cnt = AckedCount(0);
    }
}

/// Grow `cwnd` (bytes) on one ACK of new data.
#[inline]
pub fn grow(cwnd: &mut f64, mss: f64, slow_start: bool) {
    if slow_start {
        *cwnd += mss;
    } else {
        *cwnd += mss * mss / *cwnd;
    }
}

/// Half the window, in whole segments (rounded down).
#[inline]
pub fn reduced_segments(window: f64, mss: f64) -> f64 {
    (window / 2.0 / mss).floor()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_counts_segments_so_delayed_acks_do_not_slow_its_growth() {
        // Ten segments in flight, each ACK covering two (a delayed-ACK receiver): RFC 5681 adds
        // MSS²/cwnd per ACK, about half a segment over the window; Linux a whole one.
        let mss = 1000.0;
        let (mut rfc, mut linux, mut l) = (10.0 * mss, 10.0 * mss, LinuxReno::default());
        for _ in 0..5 {
            grow(&mut rfc, mss, false);
            l.on_ack(&mut linux, 0.0, mss, 2000, false);
        }
        assert!(rfc > 10_400.0 && rfc < 10_500.0, "{rfc}");
        assert_eq!(linux, 11.0 * mss);
        // Slow start: + the segments acknowledged, up to ssthresh; the rest to avoidance.
        let (mut cwnd, mut l) = (10.0 * mss, LinuxReno::default());
        l.on_ack(&mut cwnd, 11.0 * mss, mss, 3000, true);
        assert_eq!((cwnd, l.cwnd_cnt.0), (11.0 * mss, 2));
        l.restart_count();
        assert_eq!(l.cwnd_cnt.0, 0);
    }

    #[test]
    fn slow_start_adds_a_segment_and_avoidance_one_per_window() {
        let mut cwnd = 4000.0;
        grow(&mut cwnd, 1000.0, true);
        assert_eq!(cwnd, 5000.0);
        // Five ACKs of congestion avoidance at 5 segments: a little under one segment.
        for _ in 0..5 {
            grow(&mut cwnd, 1000.0, false);
        }
        assert!(cwnd > 5900.0 && cwnd < 6000.0, "{cwnd}");
        assert_eq!(reduced_segments(9500.0, 1000.0), 4.0);
    }
}
