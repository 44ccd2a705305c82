//! Reno congestion control (RFC 5681 §3.1): slow start adds one segment per ACK of new data (ACKs
//! are counted, not bytes, as ns-2 and 4.4BSD / FreeBSD 2.2 `tcp_input.c` do), congestion
//! avoidance adds MSS²/cwnd per ACK (about one segment per round trip), and congestion halves the
//! window (RFC 5681 eq. 4; 4.4BSD `tcp_input`; ns-2 `slowdown`). Stateless.

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
