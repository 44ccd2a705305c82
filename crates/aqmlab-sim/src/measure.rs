//! Measurement: queue counters with their identities, the time-average of a queue's length, the
//! sampled queue log and per-interval link throughput. All of it is excluded during the warm-up:
//! counters are snapshotted when it ends and summaries use the difference.

use crate::queue::{AqmState, DropReason, MarkReason};
use crate::units::Time;

/// Cumulative counters of one link's queue (from time 0). Plain data, so a copy is a snapshot.
#[derive(Clone, Copy, Debug, Default)]
pub struct QueueCounters {
    /// Packets offered to the queue.
    pub arrivals: u64,
    /// Packets the discipline accepted.
    pub enqueued: u64,
    /// Accepted packets the discipline marked CE instead of dropping (a subset of `enqueued`), by
    /// [`MarkReason`].
    pub marks: [u64; MarkReason::ALL.len()],
    /// Drops of packets that were already queued (drop-front victims, and packets an AQM dropped
    /// at dequeue time), a subset of `drops`.
    pub front_drops: u64,
    /// Packets dropped, on arrival or from the queue, by [`DropReason`].
    pub drops: [u64; DropReason::ALL.len()],
    /// The IP bytes of the dropped packets (`drops`; a drop-front victim's own size), by
    /// [`DropReason`].
    pub drop_bytes: [u64; DropReason::ALL.len()],
    /// The IP bytes of the marked packets (`marks`), by [`MarkReason`].
    pub mark_bytes: [u64; MarkReason::ALL.len()],
    /// Packets handed to the link (left the queue).
    pub departures: u64,
    /// Sum over departed packets of the time they waited, in ns.
    pub wait_ns: u128,
    /// Packets and bytes whose transmission completed.
    pub sent_pkts: u64,
    pub sent_bytes: u64,
    /// The same transmissions' bytes on the wire, with the link's framing (= `sent_bytes` without).
    pub sent_wire_bytes: u64,
    /// ∫ queue length dt, in packet·ns and byte·ns, up to `integrated_to`.
    pub area_pkts: u128,
    pub area_bytes: u128,
    pub integrated_to: Time,
}

impl QueueCounters {
    pub fn drops_total(&self) -> u64 {
        self.drops.iter().sum()
    }

    /// Drops no AQM chose: RED's forced region and the physical limit ([`DropReason::is_forced`]).
    pub fn forced_drops_total(&self) -> u64 {
        DropReason::ALL
            .iter()
            .filter(|r| r.is_forced())
            .map(|r| self.drops[r.index()])
            .sum()
    }

    pub fn marks_total(&self) -> u64 {
        self.marks.iter().sum()
    }

    pub fn drop_bytes_total(&self) -> u64 {
        self.drop_bytes.iter().sum()
    }

    pub fn mark_bytes_total(&self) -> u64 {
        self.mark_bytes.iter().sum()
    }

    /// Account the queue's length over `[integrated_to, now)`: call before every change of length.
    #[inline]
    pub fn integrate(&mut self, now: Time, pkts: u64, bytes: u64) {
        let dt = u128::from(now.0 - self.integrated_to.0);
        self.area_pkts += u128::from(pkts) * dt;
        self.area_bytes += u128::from(bytes) * dt;
        self.integrated_to = now;
    }

    /// The queue identities (docs/architecture.md, "Engine principles"): arrivals = enqueued +
    /// dropped at enqueue; enqueued = departed + still queued + dropped from the queue (drop-front,
    /// dequeue-time drops); departed = transmitted + in transmission.
    pub fn check(&self, queued: u64, in_tx: bool, name: &str) -> Result<(), String> {
        let at_enqueue = self.drops_total() - self.front_drops;
        if self.arrivals != self.enqueued + at_enqueue {
            return Err(format!(
                "{name}: arrivals {} != enqueued {} + dropped on arrival {at_enqueue}",
                self.arrivals, self.enqueued
            ));
        }
        if self.enqueued != self.departures + queued + self.front_drops {
            return Err(format!(
                "{name}: enqueued {} != departed {} + queued {queued} + dropped from the queue {}",
                self.enqueued, self.departures, self.front_drops
            ));
        }
        if self.departures != self.sent_pkts + u64::from(in_tx) {
            return Err(format!(
                "{name}: departed {} != transmitted {} + in transmission {}",
                self.departures,
                self.sent_pkts,
                u64::from(in_tx)
            ));
        }
        Ok(())
    }
}

/// A link as the warm-up ended: its counters, the packets its queue held, and how much of the packet
/// then in transmission had been sent, in IP and wire bytes (rounded up, so that what the measured
/// period carried is rounded down and never exceeds what the link's rate allows), with the time
/// that transmission began.
#[derive(Clone, Copy, Debug, Default)]
pub struct AtWarmup {
    pub counters: QueueCounters,
    pub queued_pkts: u64,
    pub in_tx_bytes: u64,
    pub in_tx_wire_bytes: u64,
    pub in_tx_started: Option<Time>,
}

impl AtWarmup {
    /// The IP and wire bytes of the warm-up's packet in transmission sent before the warm-up,
    /// counted in the link's counters only once that transmission has ended. `sending_since`:
    /// when the link's transmission now going on began, if one is. A transmission still going on
    /// (one longer than the measured period, on a very slow link) is in no count yet, so none of
    /// it is taken off.
    ///
    /// ```
    /// use aqmlab_sim::measure::AtWarmup;
    /// use aqmlab_sim::units::Time;
    /// let w = AtWarmup { in_tx_bytes: 600, in_tx_wire_bytes: 638, in_tx_started: Some(Time(5)),
    ///                    ..AtWarmup::default() };
    /// assert_eq!(w.sent_before(None), (600, 638)); // it ended: it is in the counters
    /// assert_eq!(w.sent_before(Some(Time(9))), (600, 638)); // another one goes on now
    /// assert_eq!(w.sent_before(Some(Time(5))), (0, 0)); // still the same one
    /// ```
    pub fn sent_before(&self, sending_since: Option<Time>) -> (u64, u64) {
        match self.in_tx_started {
            Some(started) if sending_since != Some(started) => {
                (self.in_tx_bytes, self.in_tx_wire_bytes)
            }
            _ => (0, 0),
        }
    }
}

/// Running statistics of queue samples within one logging interval, in exact integers.
#[derive(Clone, Copy, Debug, Default)]
struct Moments {
    n: u64,
    sum: u128,
    sum_sq: u128,
    min: u64,
    max: u64,
}

impl Moments {
    /// Add `k` samples of value `x`.
    fn add(&mut self, x: u64, k: u64) {
        if self.n == 0 {
            self.min = x;
            self.max = x;
        }
        self.n += k;
        self.sum += u128::from(x) * u128::from(k);
        self.sum_sq += u128::from(x) * u128::from(x) * u128::from(k);
        self.min = self.min.min(x);
        self.max = self.max.max(x);
    }

    fn mean(&self) -> f64 {
        self.sum as f64 / self.n as f64
    }

    /// Population variance of the samples: (n·Σx² − (Σx)²) / n², exact until the final division.
    fn variance(&self) -> f64 {
        let n = u128::from(self.n);
        (n * self.sum_sq - self.sum * self.sum) as f64 / (n * n) as f64
    }
}

/// Packets that arrived at a queue, that it dropped (every reason, drop-front victims included;
/// apart, the forced ones: RED's forced region or the physical limit, drops no AQM chose) and
/// that it marked CE, over some period; and the IP bytes of the dropped and marked ones. Also
/// the packets that left it for the link, with the sum and the largest of their sojourn times
/// (from entering the queue to leaving it, in ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IntervalCounts {
    pub arrivals: u64,
    pub drops: u64,
    pub forced_drops: u64,
    pub marks: u64,
    pub drop_bytes: u64,
    pub mark_bytes: u64,
    pub departures: u64,
    pub wait_ns: u128,
    /// The largest sojourn time, not a sum: the cumulative counters do not know it, so
    /// [`IntervalCounts::between`] leaves it 0 and the identity check compares [`Self::sums`].
    pub max_wait_ns: u64,
}

impl IntervalCounts {
    fn add(&mut self, other: &IntervalCounts) {
        self.arrivals += other.arrivals;
        self.drops += other.drops;
        self.forced_drops += other.forced_drops;
        self.marks += other.marks;
        self.drop_bytes += other.drop_bytes;
        self.mark_bytes += other.mark_bytes;
        self.departures += other.departures;
        self.wait_ns += other.wait_ns;
        self.max_wait_ns = self.max_wait_ns.max(other.max_wait_ns);
    }

    /// A packet that left the queue after waiting `wait`.
    /// Count one arrival.
    #[inline]
    pub fn count_arrival(&mut self) {
        self.arrivals += 1;
    }

    /// Count one drop of `size` bytes, for `reason`.
    #[inline]
    pub fn count_drop(&mut self, size: u64, reason: DropReason) {
        self.drops += 1;
        self.forced_drops += u64::from(reason.is_forced());
        self.drop_bytes += size;
    }

    /// Count one CE mark of a `size`-byte packet.
    #[inline]
    pub fn count_mark(&mut self, size: u64) {
        self.marks += 1;
        self.mark_bytes += size;
    }

    /// Count one departure after a sojourn of `wait`.
    #[inline]
    pub fn count_departure(&mut self, wait: Time) {
        self.departures += 1;
        self.wait_ns += u128::from(wait.0);
        self.max_wait_ns = self.max_wait_ns.max(wait.0);
    }

    /// The counts without the largest sojourn time: what the cumulative counters can check.
    pub fn sums(&self) -> IntervalCounts {
        IntervalCounts {
            max_wait_ns: 0,
            ..*self
        }
    }

    /// The counts of the cumulative counters `now` since `then`.
    pub fn between(now: &QueueCounters, then: &QueueCounters) -> IntervalCounts {
        IntervalCounts {
            arrivals: now.arrivals - then.arrivals,
            drops: now.drops_total() - then.drops_total(),
            forced_drops: now.forced_drops_total() - then.forced_drops_total(),
            marks: now.marks_total() - then.marks_total(),
            drop_bytes: now.drop_bytes_total() - then.drop_bytes_total(),
            mark_bytes: now.mark_bytes_total() - then.mark_bytes_total(),
            departures: now.departures - then.departures,
            wait_ns: now.wait_ns - then.wait_ns,
            max_wait_ns: 0,
        }
    }

    /// The mean and the largest sojourn time of the departed packets, in seconds; `NaN` without
    /// departures.
    pub fn sojourn_s(&self) -> (f64, f64) {
        if self.departures == 0 {
            return (f64::NAN, f64::NAN);
        }
        (
            self.wait_ns as f64 * 1e-9 / self.departures as f64,
            self.max_wait_ns as f64 * 1e-9,
        )
    }
}

/// One row of the `queue` table.
#[derive(Clone, Copy, Debug)]
pub struct QueueRow {
    pub start: Time,
    pub samples: u64,
    pub mean_pkts: f64,
    pub var_pkts: f64,
    pub min_pkts: u64,
    pub max_pkts: u64,
    pub mean_bytes: f64,
    pub var_bytes: f64,
    pub min_bytes: u64,
    pub max_bytes: u64,
    /// An AQM's state: RED's average queue, CoDel's dropping state and PIE's probability as
    /// means over the samples, RED's max_p at the last sample; NaN where the queue has no such
    /// state ([`AqmState`]).
    pub aqm: AqmState,
    /// Packets that arrived, were dropped and were marked during the interval (from the end of the
    /// warm-up to the end of the run; see [`QueueSampler::count`]).
    pub counts: IntervalCounts,
}

/// What the queue looked like at one instant.
#[derive(Clone, Copy, Debug)]
pub struct QueueState {
    pub pkts: u64,
    pub bytes: u64,
    /// Its AQM's state (NaN fields where it has none).
    pub aqm: AqmState,
}

impl Default for QueueState {
    fn default() -> Self {
        QueueState {
            pkts: 0,
            bytes: 0,
            aqm: AqmState::NONE,
        }
    }
}

/// The start of a sum of [`AqmState`]s.
const AQM_ZERO: AqmState = AqmState {
    red_avg: 0.0,
    red_max_p: 0.0,
    codel_dropping: 0.0,
    pie_prob: 0.0,
};

/// Add `k` samples of `value` to `sum`, one addition per sample, so that the float sum is the same
/// however the samples come (one call or many). A state the queue does not have is NaN, and so is
/// its sum, and a state of 0 adds nothing: neither costs a loop over the samples, so a queue
/// without AQM state, or idle, is sampled per interval, not per sample.
#[inline]
fn add_samples(sum: &mut f64, value: f64, k: u64) {
    if value.is_nan() {
        *sum = f64::NAN;
    } else if value != 0.0 {
        for _ in 0..k {
            *sum += value;
        }
    }
}

/// Samples a queue every `spacing` on the grid k·spacing (from the end of the warm-up) and
/// summarises the samples per `interval`. Sampling is lazy: the engine calls `observe` before each
/// change of the queue's length, and every grid point passed since then takes the length that held,
/// so sampling costs no events, and the grid points of one interval are taken together (the work
/// per call grows with the intervals passed, not the samples). A sample at t sees the queue just
/// before any event at t.
///
/// It also counts the queue's arrivals, drops and marks per interval (integers per interval,
/// [`QueueSampler::count`]); a row reports those of its interval.
#[derive(Debug)]
pub struct QueueSampler {
    spacing: Time,
    interval: Time,
    next: Time,
    /// The interval `next` falls in, and its end (so that a sample in the same interval needs no
    /// division to find it).
    bin: u64,
    bin_end: Time,
    /// The interval the warm-up ends in: `counts[i]` holds interval `first_bin + i`.
    first_bin: u64,
    counts: Vec<IntervalCounts>,
    /// The index in `counts` of the interval the last count fell in, and that interval's end.
    count_idx: usize,
    count_end: Time,
    pkts: Moments,
    bytes: Moments,
    /// Sums over the interval's samples of the averaged [`AqmState`] fields, and its last
    /// sample (for `red_max_p`).
    aqm_sum: AqmState,
    aqm_last: AqmState,
    pub rows: Vec<QueueRow>,
}

impl QueueSampler {
    pub fn new(spacing: Time, interval: Time, warmup: Time) -> QueueSampler {
        let first = warmup.0.div_ceil(spacing.0) * spacing.0;
        QueueSampler {
            spacing,
            interval,
            next: Time(first),
            bin: first / interval.0,
            bin_end: Time((first / interval.0 + 1) * interval.0),
            first_bin: warmup.0 / interval.0,
            counts: Vec::new(),
            count_idx: 0,
            count_end: Time(0),
            pkts: Moments::default(),
            bytes: Moments::default(),
            aqm_sum: AQM_ZERO,
            aqm_last: AqmState::NONE,
            rows: Vec::new(),
        }
    }

    /// Whether a sample is due at or before `now` (so that [`QueueSampler::observe`] would take
    /// one): a caller can skip reading the queue's state when none is.
    #[inline]
    pub fn due(&self, now: Time) -> bool {
        self.next <= now
    }

    /// Take every sample due at or before `now`, with the queue as `q` (it held since the last call).
    #[inline]
    pub fn observe(&mut self, now: Time, q: QueueState) {
        while self.next <= now {
            if self.next >= self.bin_end {
                self.flush();
                self.bin = self.next.0 / self.interval.0;
                self.bin_end = Time((self.bin + 1) * self.interval.0);
            }
            let last = now.0.min(self.bin_end.0 - 1);
            self.take(q, (last - self.next.0) / self.spacing.0 + 1);
        }
    }

    /// Count arrivals, drops and marks (and their bytes) that happened at `now` (after the
    /// warm-up) in the interval `now` falls in. Each interval has its own integers; the vector
    /// grows by one entry per interval, not per packet.
    #[inline]
    pub fn count(&mut self, now: Time, counts: &IntervalCounts) {
        self.counts_at(now).add(counts);
    }

    /// The counts of the interval `now` (after the warm-up, not before the last count) falls
    /// in, to add to in place; the interval is found by a division only when `now` has left the
    /// last one.
    #[inline]
    pub fn counts_at(&mut self, now: Time) -> &mut IntervalCounts {
        if now >= self.count_end {
            let bin = now.0 / self.interval.0;
            let i = (bin - self.first_bin) as usize;
            if i >= self.counts.len() {
                self.counts.resize(i + 1, IntervalCounts::default());
            }
            self.count_idx = i;
            self.count_end = Time((bin + 1) * self.interval.0);
        }
        &mut self.counts[self.count_idx]
    }

    /// Take the samples due strictly before `end`, close the last interval and give every row
    /// its interval's counts.
    pub fn finish(&mut self, end: Time, q: QueueState) {
        self.observe(Time(end.0 - 1), q);
        self.flush();
        self.attribute_counts();
    }

    /// Give each row the counts of its interval. An interval without samples can only be a
    /// partial first or last one (the warm-up ends, or the run ends, less than `queue_sample`
    /// into it): its counts go to the first or last row, so the rows add up to the whole measured
    /// period.
    fn attribute_counts(&mut self) {
        let Some(last) = self.rows.len().checked_sub(1) else {
            return;
        };
        let mut from = 0;
        for (i, row) in self.rows.iter_mut().enumerate() {
            let to = if i == last {
                self.counts.len()
            } else {
                ((row.start.0 / self.interval.0 - self.first_bin) as usize + 1)
                    .min(self.counts.len())
            };
            let mut c = IntervalCounts::default();
            for b in self.counts.get(from..to).unwrap_or(&[]) {
                c.add(b);
            }
            row.counts = c;
            from = from.max(to);
        }
    }

    /// The counts of all rows together.
    pub fn counted(&self) -> IntervalCounts {
        let mut c = IntervalCounts::default();
        for r in &self.rows {
            c.add(&r.counts);
        }
        c
    }

    /// Take `k` samples of `q` from `next` on, all in `next`'s interval (`bin`).
    fn take(&mut self, q: QueueState, k: u64) {
        self.pkts.add(q.pkts, k);
        self.bytes.add(q.bytes, k);
        let s = &mut self.aqm_sum;
        add_samples(&mut s.red_avg, q.aqm.red_avg, k);
        add_samples(&mut s.codel_dropping, q.aqm.codel_dropping, k);
        add_samples(&mut s.pie_prob, q.aqm.pie_prob, k);
        self.aqm_last = q.aqm;
        self.next = Time(self.next.0 + k * self.spacing.0);
    }

    fn flush(&mut self) {
        if self.pkts.n == 0 {
            return;
        }
        let (p, b) = (self.pkts, self.bytes);
        self.rows.push(QueueRow {
            start: Time(self.bin * self.interval.0),
            samples: p.n,
            mean_pkts: p.mean(),
            var_pkts: p.variance(),
            min_pkts: p.min,
            max_pkts: p.max,
            mean_bytes: b.mean(),
            var_bytes: b.variance(),
            min_bytes: b.min,
            max_bytes: b.max,
            aqm: AqmState {
                red_avg: self.aqm_sum.red_avg / p.n as f64,
                red_max_p: self.aqm_last.red_max_p,
                codel_dropping: self.aqm_sum.codel_dropping / p.n as f64,
                pie_prob: self.aqm_sum.pie_prob / p.n as f64,
            },
            counts: IntervalCounts::default(),
        });
        self.pkts = Moments::default();
        self.bytes = Moments::default();
        self.aqm_sum = AQM_ZERO;
        self.aqm_last = AqmState::NONE;
    }
}

/// A link's transmissions per interval of the measured period: the IP bytes and packets whose
/// transmission completed in it, and the IP bytes it carried, each transmission's bytes spread
/// evenly over its transmission time (floored to whole bytes per interval). A packet of `S` bytes
/// takes `T = ⌈8·W/rate⌉` for `W ≥ S` wire bytes, so an interval's carried bytes never exceed
/// `rate · length / 8` (utilization ≤ 1), which counting whole packets where they complete does
/// not guarantee (a packet begun in one interval and finished in the next).
#[derive(Debug)]
pub struct ThroughputBins {
    interval: Time,
    warmup: Time,
    first_bin: u64,
    /// What each interval of the measured period counted, from the warm-up's.
    bins: Vec<Transmitted>,
    /// The index of the interval the last completion fell in, the measured start of that
    /// interval (the warm-up's end for the first) and its end: a transmission within
    /// `[cur_from, cur_end)` is counted there without a division.
    cur: usize,
    cur_from: Time,
    cur_end: Time,
}

/// What a link transmitted in one interval ([`ThroughputBins`]): the IP bytes and packets
/// whose transmission completed in it, and the IP bytes it carried. One entry per interval, so
/// that a packet's count is one bounds check.
#[derive(Clone, Copy, Debug, Default)]
struct Transmitted {
    bytes: u64,
    pkts: u64,
    carried: u64,
}

/// One row of the `link` table: an interval's start and measured length, the bytes and packets
/// completed in it and the bytes it carried ([`ThroughputBins`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkRow {
    pub start: Time,
    pub len: Time,
    pub bytes: u64,
    pub pkts: u64,
    pub carried: u64,
}

/// `⌊size · part / whole⌋`: the bytes of a `size`-byte transmission lasting `whole` sent in `part`
/// of it.
pub fn pro_rata(size: u64, part: Time, whole: Time) -> u64 {
    (u128::from(size) * u128::from(part.0) / u128::from(whole.0)) as u64
}

impl ThroughputBins {
    pub fn new(interval: Time, warmup: Time) -> ThroughputBins {
        ThroughputBins {
            interval,
            warmup,
            first_bin: warmup.0 / interval.0,
            bins: Vec::new(),
            cur: 0,
            cur_from: Time(0),
            cur_end: Time(0),
        }
    }

    /// The intervals of the measured period that `[warmup, end)` spans: the `link` table's rows
    /// (per direction).
    pub fn intervals(interval: Time, warmup: Time, end: Time) -> u64 {
        (end.0 - 1) / interval.0 - warmup.0 / interval.0 + 1
    }

    #[inline]
    fn index(&mut self, t: Time) -> usize {
        let i = (t.0 / self.interval.0 - self.first_bin) as usize;
        if i >= self.bins.len() {
            self.bins.resize(i + 1, Transmitted::default());
        }
        i
    }

    /// Count a transmission of `bytes` over `[started, now)` that completed at `now` (which is
    /// after the warm-up); its part before the warm-up is not carried in the measured period.
    #[inline(always)]
    pub fn add(&mut self, started: Time, now: Time, bytes: u32) {
        if now < self.cur_end && started >= self.cur_from {
            // The whole transmission lies in the measured part of the current interval.
            let bin = &mut self.bins[self.cur];
            bin.bytes += u64::from(bytes);
            bin.pkts += 1;
            if started < now {
                bin.carried += u64::from(bytes);
            }
            return;
        }
        self.add_across(started, now, bytes);
    }

    /// [`ThroughputBins::add`] for a transmission outside the current interval (once an
    /// interval, or once a transmission that spans two): `now`'s interval becomes the current
    /// one. Out of line, so that the usual case inlined into the transmitter stays short.
    #[cold]
    #[inline(never)]
    fn add_across(&mut self, started: Time, now: Time, bytes: u32) {
        let i = self.index(now);
        self.bins[i].bytes += u64::from(bytes);
        self.bins[i].pkts += 1;
        let (size, whole) = (u64::from(bytes), now - started);
        let mut from = started.max(self.warmup);
        while from < now {
            let edge = Time((from.0 / self.interval.0 + 1) * self.interval.0).min(now);
            let i = self.index(from);
            self.bins[i].carried += if from == started && edge == now {
                size
            } else {
                pro_rata(size, edge - from, whole)
            };
            from = edge;
        }
        let start = now.0 / self.interval.0 * self.interval.0;
        self.cur = self.index(now);
        self.cur_from = Time(start).max(self.warmup);
        self.cur_end = Time(start + self.interval.0);
    }

    /// Rows for every interval of `[warmup, end)`; the first and last may be cut short by the
    /// warm-up and the end of the run.
    pub fn rows(&self, end: Time) -> Vec<LinkRow> {
        let last_bin = (end.0 - 1) / self.interval.0;
        (self.first_bin..=last_bin)
            .map(|bin| {
                let start = Time(bin * self.interval.0);
                let from = start.max(self.warmup);
                let to = Time(start.0 + self.interval.0).min(end);
                let counted = self
                    .bins
                    .get((bin - self.first_bin) as usize)
                    .copied()
                    .unwrap_or_default();
                LinkRow {
                    start,
                    len: to - from,
                    bytes: counted.bytes,
                    pkts: counted.pkts,
                    carried: counted.carried,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integration_is_a_time_average() {
        let mut c = QueueCounters::default();
        c.integrate(Time(10), 0, 0);
        c.integrate(Time(30), 2, 3000); // 2 packets for 20 ns
        c.integrate(Time(40), 1, 1000); // 1 packet for 10 ns
        assert_eq!(c.area_pkts, 50);
        assert_eq!(c.area_bytes, 70_000);
    }

    #[test]
    fn sampler_takes_grid_points_with_the_length_that_held() {
        let q = |pkts, bytes| QueueState {
            pkts,
            bytes,
            aqm: AqmState::NONE,
        };
        let mut s = QueueSampler::new(Time(10), Time(30), Time(5));
        s.observe(Time(12), q(0, 0)); // sample at 10 → 0
        s.observe(Time(35), q(4, 400)); // samples at 20, 30 → 4 (t=20 in bin 0; t=30 in bin 1)
        s.finish(Time(50), q(1, 100)); // sample at 40 → 1; not at 50 (the end)
        assert_eq!(s.rows.len(), 2);
        let r0 = s.rows[0];
        assert_eq!(
            (r0.start, r0.samples, r0.min_pkts, r0.max_pkts),
            (Time(0), 2, 0, 4)
        );
        assert!((r0.mean_pkts - 2.0).abs() < 1e-12 && (r0.var_pkts - 4.0).abs() < 1e-12);
        let r1 = s.rows[1];
        assert_eq!((r1.start, r1.samples), (Time(30), 2));
        assert!((r1.mean_bytes - 250.0).abs() < 1e-12);
        assert!(r1.aqm.red_avg.is_nan() && r1.aqm.red_max_p.is_nan());
        assert!(r1.aqm.codel_dropping.is_nan() && r1.aqm.pie_prob.is_nan());
        let mut red = QueueSampler::new(Time(10), Time(100), Time::ZERO);
        let red_at = |red_avg, red_max_p| QueueState {
            pkts: 1,
            bytes: 1,
            aqm: AqmState {
                red_avg,
                red_max_p,
                ..AqmState::NONE
            },
        };
        red.observe(Time(25), red_at(2.0, 0.1));
        red.finish(Time(40), red_at(5.0, 0.2));
        // Samples at 0, 10, 20 see average 2; the one at 30 sees 5.
        let a = red.rows[0].aqm;
        assert_eq!((a.red_avg, a.red_max_p), (2.75, 0.2));
        assert!(a.codel_dropping.is_nan() && a.pie_prob.is_nan());
    }

    #[test]
    fn interval_counts_land_in_their_rows_and_sum_to_the_period() {
        // One packet of 100 B per drop and per mark.
        let ic = |arrivals, drops, marks| IntervalCounts {
            arrivals,
            drops,
            marks,
            drop_bytes: 100 * drops,
            mark_bytes: 100 * marks,
            ..IntervalCounts::default()
        };
        let q = QueueState::default();
        // Warm-up ends at 5, intervals of 30, samples every 10 (at 10, 20, …).
        let mut s = QueueSampler::new(Time(10), Time(30), Time(5));
        s.count(Time(6), &ic(1, 1, 0)); // before the first sample (10), in interval 0
        s.observe(Time(12), q);
        s.count(Time(12), &ic(1, 0, 0));
        s.count(Time(29), &ic(1, 0, 1));
        s.observe(Time(30), q); // sample at 30 opens interval 1 and closes interval 0
        s.count(Time(30), &ic(1, 1, 0));
        s.count(Time(59), &ic(2, 0, 0));
        s.observe(Time(61), q);
        s.count(Time(61), &ic(1, 0, 1)); // interval 2
        s.finish(Time(62), q); // interval 2's only sample is at 60
        let counts: Vec<IntervalCounts> = s.rows.iter().map(|r| r.counts).collect();
        assert_eq!(counts, vec![ic(3, 1, 1), ic(3, 1, 0), ic(1, 0, 1)]);
        assert_eq!(s.counted(), ic(7, 2, 2));
    }

    #[test]
    fn counts_of_intervals_without_samples_go_to_the_first_and_last_rows() {
        let ic = |arrivals, drops, marks| IntervalCounts {
            arrivals,
            drops,
            marks,
            drop_bytes: 1500 * drops,
            mark_bytes: 40 * marks,
            ..IntervalCounts::default()
        };
        let q = QueueState::default();
        // Intervals of 25, samples every 10. The warm-up ends at 23: the first sample is at 30, in
        // interval 1. The run ends at 78, after interval 3's start (75) but before its first
        // sample (80).
        let mut s = QueueSampler::new(Time(10), Time(25), Time(23));
        s.count(Time(24), &ic(1, 1, 0)); // interval 0: no row
        s.observe(Time(40), q);
        s.count(Time(40), &ic(1, 0, 0));
        s.observe(Time(60), q);
        s.count(Time(60), &ic(1, 0, 0));
        s.observe(Time(76), q);
        s.count(Time(76), &ic(1, 0, 1)); // interval 3: no row
        s.finish(Time(78), q);
        let starts: Vec<Time> = s.rows.iter().map(|r| r.start).collect();
        assert_eq!(starts, vec![Time(25), Time(50)]);
        assert_eq!(s.rows[0].counts, ic(2, 1, 0));
        assert_eq!(s.rows[1].counts, ic(2, 0, 1));
    }

    #[test]
    fn throughput_bins_cover_the_measured_period() {
        let mut b = ThroughputBins::new(Time(100), Time(50));
        b.add(Time(55), Time(60), 10);
        b.add(Time(240), Time(250), 5);
        let row = |start, len, bytes, pkts| LinkRow {
            start: Time(start),
            len: Time(len),
            bytes,
            pkts,
            carried: bytes,
        };
        assert_eq!(
            b.rows(Time(260)),
            vec![row(0, 50, 10, 1), row(100, 100, 0, 0), row(200, 60, 5, 1)]
        );
        assert_eq!(ThroughputBins::intervals(Time(100), Time(50), Time(260)), 3);
    }

    #[test]
    fn the_current_interval_shortcut_counts_as_the_general_rule() {
        // Random completions in time order (some on interval edges, some of zero length, some
        // begun before the warm-up or intervals earlier): `add` (with its shortcut for the
        // current interval) must give exactly the rows of the general rule alone.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for (interval, warmup) in [(100, 0), (100, 50), (100, 100), (7, 3), (1000, 2500)] {
            let (mut fast, mut general) = (
                ThroughputBins::new(Time(interval), Time(warmup)),
                ThroughputBins::new(Time(interval), Time(warmup)),
            );
            let mut now = warmup + 1;
            for _ in 0..5000 {
                now += match next(4) {
                    0 => 0,
                    1 => interval - now % interval,
                    _ => next(interval / 2 + 1),
                };
                let started = now.saturating_sub(next(3 * interval));
                let bytes = 40 + next(1500) as u32;
                fast.add(Time(started), Time(now), bytes);
                general.add_across(Time(started), Time(now), bytes);
            }
            let end = Time(now + 1);
            assert_eq!(
                fast.rows(end),
                general.rows(end),
                "interval {interval}, warm-up {warmup}"
            );
        }
    }

    #[test]
    fn a_transmission_across_interval_edges_is_carried_pro_rata() {
        // 1000 B over [30, 130): 20% before the warm-up (50), 50% in [50, 100), 30% in [100, 200).
        let mut b = ThroughputBins::new(Time(100), Time(50));
        b.add(Time(30), Time(130), 1000);
        // 999 B over [190, 490): 10, 100, 100 and 90 ns of it in four intervals, floored.
        b.add(Time(190), Time(490), 999);
        let rows = b.rows(Time(500));
        let carried: Vec<u64> = rows.iter().map(|r| r.carried).collect();
        assert_eq!(carried, vec![500, 300 + 33, 333, 333, 299]);
        let completed: Vec<(u64, u64)> = rows.iter().map(|r| (r.bytes, r.pkts)).collect();
        assert_eq!(completed, vec![(0, 0), (1000, 1), (0, 0), (0, 0), (999, 1)]);
    }

    #[test]
    fn identities_catch_a_lost_packet() {
        let mut c = QueueCounters {
            arrivals: 10,
            enqueued: 9,
            departures: 8,
            sent_pkts: 7,
            ..Default::default()
        };
        c.drops[DropReason::Overflow.index()] = 1;
        assert!(c.check(1, true, "q").is_ok());
        assert!(c.check(0, true, "q").is_err());
        assert!(c.check(1, false, "q").is_err());
    }
}
