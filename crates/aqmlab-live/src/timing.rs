//! The router's timing error: how late each packet left the router (was written to its host's
//! device) against the ideal schedule of the model it runs (the end of its transmission at the
//! link's rate, plus its propagation delay). Kept as a histogram of 1 µs bins up to 100 ms (one
//! allocation, at the start), so that its mean, 99th percentile and maximum cost nothing per
//! packet but an increment.

use serde::Serialize;

const BIN_NS: u64 = 1_000;
const BINS: usize = 100_000;

/// Packets' lateness against the ideal schedule.
#[derive(Debug)]
pub struct Lateness {
    bins: Vec<u64>,
    /// Packets later than the last bin.
    beyond: u64,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
}

/// What the summary reports of the lateness (seconds).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LatenessSummary {
    pub packets: u64,
    pub mean_s: f64,
    /// The 99th percentile, rounded up to its bin's upper edge (1 µs bins); `f64::INFINITY` past 100 ms.
    pub p99_s: f64,
    pub max_s: f64,
}

impl Default for Lateness {
    fn default() -> Self {
        Lateness {
            bins: vec![0; BINS],
            beyond: 0,
            count: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }
}

impl Lateness {
    /// A packet left `ns` nanoseconds after its ideal time.
    #[inline]
    pub fn record(&mut self, ns: u64) {
        match self.bins.get_mut((ns / BIN_NS) as usize) {
            Some(b) => *b += 1,
            None => self.beyond += 1,
        }
        self.count += 1;
        self.sum_ns += u128::from(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Mean, 99th percentile and maximum.
    ///
    /// ```
    /// let mut l = aqmlab_live::timing::Lateness::default();
    /// for ns in 0..100u64 {
    ///     l.record(ns * 1_000); // 0, 1, ..., 99 µs
    /// }
    /// let s = l.summary();
    /// assert_eq!(s.packets, 100);
    /// assert!((s.mean_s - 49.5e-6).abs() < 1e-12);
    /// assert!((s.p99_s - 99e-6).abs() < 1e-12 && (s.max_s - 99e-6).abs() < 1e-12);
    /// ```
    pub fn summary(&self) -> LatenessSummary {
        let p99 = if self.count == 0 {
            0.0
        } else {
            let rank = (self.count * 99).div_ceil(100);
            let mut seen = 0;
            self.bins
                .iter()
                .position(|&n| {
                    seen += n;
                    seen >= rank
                })
                .map_or(f64::INFINITY, |b| (b + 1) as f64 * BIN_NS as f64 * 1e-9)
        };
        LatenessSummary {
            packets: self.count,
            mean_s: if self.count == 0 {
                0.0
            } else {
                self.sum_ns as f64 / self.count as f64 * 1e-9
            },
            p99_s: p99,
            max_s: self.max_ns as f64 * 1e-9,
        }
    }
}
