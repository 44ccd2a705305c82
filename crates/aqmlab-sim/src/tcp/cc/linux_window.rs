//! Linux's window arithmetic, shared by its controllers (`net/ipv4/tcp_cong.c`): the window held
//! in whole segments (`snd_cwnd`), grown by the segments an ACK acknowledges rather than by the
//! ACK itself.
//!
//! - `tcp_slow_start`: cwnd gains the segments acknowledged, up to ssthresh; what is left of them
//!   goes on to congestion avoidance.
//! - `tcp_cong_avoid_ai(w, acked)`: `snd_cwnd_cnt` counts segments acknowledged; each `w` of them
//!   add a segment (Reno: w = cwnd, one segment per window of data acknowledged, however many
//!   ACKs carried it; CUBIC: w = its `cnt`).
//!
//! Counting segments, not ACKs, is what sets Linux's Reno apart from RFC 5681's per-ACK rule
//! under delayed ACKs: a receiver that acknowledges every second segment halves RFC 5681's growth
//! per round trip, not Linux's (`docs/live.md` measured the difference against the kernel).

/// The segments acknowledged toward the next increment (`snd_cwnd_cnt` of `struct tcp_sock`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AckedCount(pub u32);

impl AckedCount {
    /// `tcp_cong_avoid_ai`: `acked` more segments toward increments of one per `w`.
    ///
    /// ```
    /// use aqmlab_sim::tcp::cc::linux_window::AckedCount;
    /// let (mut count, mut cwnd) = (AckedCount(0), 10);
    /// for _ in 0..5 {
    ///     count.cong_avoid_ai(&mut cwnd, 10, 2); // five delayed ACKs of two segments each
    /// }
    /// assert_eq!((cwnd, count.0), (11, 0));
    /// ```
    pub fn cong_avoid_ai(&mut self, cwnd: &mut u32, w: u32, acked: u32) {
        // Credit earned at a larger w is applied as one segment.
        if self.0 >= w {
            self.0 = 0;
            *cwnd += 1;
        }
        self.0 += acked;
        if self.0 >= w {
            let grown = self.0 / w;
            self.0 -= grown * w;
            *cwnd += grown;
        }
    }
}

/// `tcp_slow_start`: cwnd (segments) gains the `acked` segments, up to `ssthresh` (segments);
/// returns the segments left over for congestion avoidance.
///
/// ```
/// use aqmlab_sim::tcp::cc::linux_window::slow_start;
/// let mut cwnd = 10;
/// assert_eq!(slow_start(&mut cwnd, 11, 2), 1);
/// assert_eq!(cwnd, 11);
/// ```
pub fn slow_start(cwnd: &mut u32, ssthresh: u32, acked: u32) -> u32 {
    let grown = cwnd.saturating_add(acked).min(ssthresh).max(*cwnd);
    let left = acked - (grown - *cwnd);
    *cwnd = grown;
    left
}

/// A window of `bytes` in whole segments of `mss`, at least one (`snd_cwnd`).
pub fn segments(bytes: f64, mss: f64) -> u32 {
    ((bytes / mss) as u32).max(1)
}

/// The segments an ACK of `bytes` new bytes acknowledges, a partial segment counting as one.
pub fn acked_segments(bytes: u64, mss: f64) -> u32 {
    (bytes as f64 / mss).ceil() as u32
}
