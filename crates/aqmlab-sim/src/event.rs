//! The event queue: events ordered by `(time, sequence)`, so events at equal times run in the order
//! they were scheduled and a run is a pure function of (scenario, seed) (docs/architecture.md,
//! "Engine principles").
//!
//! It is a radix heap (Ahuja, Mehlhorn, Orlin & Tarjan, "Faster algorithms for the shortest path
//! problem", J. ACM 37(2):213-223, 1990), in the one-level, bit-bucket form: a monotone priority
//! queue on integer keys, here the event time in nanoseconds. Bucket `b > 0` holds the events whose
//! time first differs from the last time taken out (`last`) in bit `b − 1`, so an event only ever
//! moves to a lower bucket, at most 64 times in all, and the cost of an event does not grow with the
//! number pending (a binary heap's does, as log n); a bit mask of the occupied buckets 1–64 finds
//! the lowest one without a scan. Bucket 0 holds the events at exactly `last`, in
//! sequence order: those moved in from a higher bucket are sorted by sequence when they arrive
//! (usually one), and those scheduled later have the highest sequence yet, so appending keeps it
//! sorted. A sequence number may also be reserved when an event becomes possible and used only if
//! the event turns out to be needed ([`EventQueue::reserve`], [`EventQueue::schedule_reserved`]):
//! the event then takes the place among equal times it would have had if scheduled at once, and
//! one that is never needed costs nothing. An event certain to happen may likewise be held
//! ([`EventQueue::hold`]) and scheduled later in its place: a link whose packets arrive in the
//! order sent schedules only the first one's arrival, and the next when it arrives, so that an
//! arrival a propagation delay away does not move down the buckets while the packets sent after
//! it are scheduled and popped. Monotone means no event is scheduled before `last`: the
//! simulation never schedules into its own past; only an event between the last one taken out and
//! one merely peeked at would be, and then the queue is rebuilt around it (the simulation never
//! does that either).

use crate::units::Time;

/// What happens when an event fires. Compact (12 bytes): indices into the simulation's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Event {
    /// Link `link` finished serialising the packet it was sending.
    TxDone { link: u32 },
    /// Packet `pkt` reaches node `node` at the far end of a link.
    Arrive { node: u32, pkt: u32 },
    /// Packet `pkt` reaches the far end of link `link`, whose packets arrive in the order sent:
    /// the link holds those behind it, and only the first is an event ([`EventQueue::hold`]).
    ArriveInOrder { link: u32, pkt: u32 },
    /// Traffic source `source` is due to send.
    Source { source: u32 },
    /// TCP connection `conn` starts (its opener sends the SYN).
    TcpOpen { conn: u32 },
    /// A timer of TCP connection `conn` may be due: `which` = 4·side + timer index.
    TcpTimer { conn: u32, which: u32 },
    /// The application on session connection `conn` writes again.
    AppWake { conn: u32 },
    /// Web user `user` has finished thinking.
    WebUser { user: u32 },
    /// The queue discipline of link `link` has a timer due.
    QdiscTimer { link: u32 },
    /// The warm-up ends: measurement starts.
    WarmupEnd,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: Time,
    seq: u64,
    event: Event,
}

/// Buckets: 0 for the time `last` itself, `b` in 1..=64 for a highest differing bit `b − 1`.
const BUCKETS: usize = 65;

/// The bucket of `time` relative to `last`.
#[inline]
fn bucket(time: Time, last: Time) -> usize {
    (u64::BITS - (time.0 ^ last.0).leading_zeros()) as usize
}

/// Make room in `bucket` for one more entry (out of line: the move loop never calls it once the
/// buckets have grown to the run's needs).
#[cold]
#[inline(never)]
fn grow(bucket: &mut Vec<Entry>) {
    bucket.reserve(1);
}

/// A min-queue of events by `(time, sequence)`.
#[derive(Debug)]
pub struct EventQueue {
    buckets: [Vec<Entry>; BUCKETS],
    /// Bit `b − 1` is set if bucket `b` (1..=64) holds events, so the lowest is found without a
    /// scan (bucket 0 holds events while `head` is below its length).
    occupied: u64,
    /// Bucket 0 is taken from the front: `head` events of it are gone.
    head: usize,
    /// The time of bucket 0's events; no pending event is earlier.
    last: Time,
    len: usize,
    next_seq: u64,
    /// The sequence number of the event popped last, and how many were popped.
    current: u64,
    popped: u64,
    /// What is scheduled, while recording (`aqmlab bench`'s bare-queue ceiling).
    recording: Option<Box<Recording>>,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue {
            buckets: std::array::from_fn(|_| Vec::new()),
            occupied: 0,
            head: 0,
            last: Time::ZERO,
            len: 0,
            next_seq: 0,
            current: 0,
            popped: 0,
            recording: None,
        }
    }

    /// Schedule `event` at `time`, which must not precede the last event popped.
    #[inline]
    pub fn schedule(&mut self, time: Time, event: Event) {
        if time < self.last {
            self.rebase(time);
        }
        self.record_op(time, event);
        self.put(Entry {
            time,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
        self.len += 1;
    }

    /// Note `event`, scheduled at `time` now, in the recording, if recording and not full.
    #[inline(always)]
    fn record_op(&mut self, time: Time, event: Event) {
        if let Some(r) = self.recording.as_deref_mut() {
            if r.ops.len() < r.ops.capacity() {
                r.ops.push((self.popped, time, event));
            }
        }
    }

    /// Reserve the next sequence number for an event that may be scheduled later with
    /// [`schedule_reserved`](Self::schedule_reserved).
    #[inline]
    pub fn reserve(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedule `event` at `time` with a sequence number `seq` taken from
    /// [`reserve`](Self::reserve): among events at `time` it runs where it would have if scheduled
    /// when `seq` was reserved. `time` must not precede the last event popped, nor, if equal to
    /// it, may `seq` precede that event's.
    pub fn schedule_reserved(&mut self, time: Time, seq: u64, event: Event) {
        if time < self.last {
            self.rebase(time);
        }
        self.record_op(time, event);
        self.place(Entry { time, seq, event });
        self.len += 1;
    }

    /// Take the next sequence number for `event` at `time`, certain now but to be scheduled only
    /// later, with [`schedule_held`](Self::schedule_held): it counts among the pending events
    /// ([`len`](Self::len)) from now on, and a recording has it from now on, as if scheduled now
    /// (so that the replays of [`Recording`] push and pop the run's events as they became
    /// known, whichever of them the queue holds: the yardstick does not depend on it).
    #[inline(always)]
    pub fn hold(&mut self, time: Time, event: Event) -> u64 {
        self.record_op(time, event);
        self.len += 1;
        self.reserve()
    }

    /// Schedule the event [held](Self::hold) with sequence number `seq` at `time` (where it runs
    /// as [`schedule_reserved`](Self::schedule_reserved) would have it run).
    #[inline(always)]
    pub fn schedule_held(&mut self, time: Time, seq: u64, event: Event) {
        if time < self.last {
            self.rebase(time);
        }
        self.place(Entry { time, seq, event });
    }

    /// Put `e`, with a sequence number taken earlier, in its place.
    #[inline(always)]
    fn place(&mut self, e: Entry) {
        debug_assert!(e.seq < self.next_seq, "a reserved sequence number");
        if e.time == self.last {
            self.insert_at_last(e);
        } else {
            self.put(e);
        }
    }

    /// Insert `e`, at time `last`, in bucket 0 by sequence: it may precede events there (out of
    /// line: a held or reserved event rarely ties with the current time).
    #[cold]
    #[inline(never)]
    fn insert_at_last(&mut self, e: Entry) {
        // Bucket 0 is in sequence order from `head` on.
        let pending = &self.buckets[0][self.head..];
        let at = self.head + pending.partition_point(|x| x.seq < e.seq);
        self.buckets[0].insert(at, e);
    }

    /// Drop every pending event for which `keep(time, event)` is false (the others keep their
    /// order; [held](Self::hold) events, not scheduled yet, are all kept). It costs a pass over
    /// all pending events.
    pub fn retain(&mut self, mut keep: impl FnMut(Time, &Event) -> bool) {
        self.buckets[0].drain(..self.head);
        self.head = 0;
        self.occupied = 0;
        let scheduled: usize = self.buckets.iter().map(Vec::len).sum();
        self.len -= scheduled; // the held events
        for (b, bucket) in self.buckets.iter_mut().enumerate() {
            bucket.retain(|e| keep(e.time, &e.event));
            if b > 0 && !bucket.is_empty() {
                self.occupied |= 1 << (b - 1);
            }
            self.len += bucket.len();
        }
    }

    /// The sequence number of the event popped last (0 before any).
    #[inline]
    pub fn current_seq(&self) -> u64 {
        self.current
    }

    /// Put `e` in its bucket relative to `last`.
    #[inline]
    fn put(&mut self, e: Entry) {
        let b = bucket(e.time, self.last);
        self.buckets[b].push(e);
        if b > 0 {
            self.occupied |= 1 << (b - 1);
        }
    }

    /// Re-bucket every pending event relative to `last`, earlier than the current one (only after a
    /// peek, never in a simulation).
    #[cold]
    fn rebase(&mut self, last: Time) {
        let mut all = Vec::with_capacity(self.len);
        all.extend(self.buckets[0].drain(self.head..));
        self.buckets[0].clear(); // the events before `head` are gone
        for b in &mut self.buckets[1..] {
            all.append(b);
        }
        self.head = 0;
        self.last = last;
        self.occupied = 0;
        for e in all {
            self.put(e);
        }
    }

    /// Make bucket 0 hold the earliest events, if there are any; false if the queue is empty.
    #[inline]
    fn settle(&mut self) -> bool {
        if self.head < self.buckets[0].len() {
            return true;
        }
        self.settle_slow()
    }

    /// Bucket 0 is used up: make the lowest non-empty bucket's earliest events bucket 0. A bucket
    /// of one event (the usual case: most events have a time of their own) becomes bucket 0 by
    /// trading places with the empty one (their vectors swapped, not the event copied);
    /// a larger one is [redistributed](Self::redistribute).
    #[inline]
    fn settle_slow(&mut self) -> bool {
        self.buckets[0].clear();
        self.head = 0;
        if self.occupied == 0 {
            return false;
        }
        let b = self.occupied.trailing_zeros() as usize + 1;
        self.occupied &= self.occupied - 1;
        let (first, rest) = self.buckets.split_at_mut(b);
        if let [only] = rest[0][..] {
            self.last = only.time;
            // The two vectors' fields swapped in registers (`<[_]>::swap` goes through the stack).
            std::mem::swap(&mut first[0], &mut rest[0]);
        } else {
            self.redistribute(b);
        }
        true
    }

    /// Empty bucket `b` (of two events or more, its bit already cleared) into lower ones,
    /// relative to its earliest time. Its events agree with that time on every bit above bit
    /// `b − 1`, so each goes to a bucket below `b`: the bucket is read in place while the lower
    /// ones are written.
    #[inline(never)]
    fn redistribute(&mut self, b: usize) {
        let (lower, upper) = self.buckets.split_at_mut(b);
        let from = &mut upper[0];
        // A fold, not `min()`: the bucket is never empty, so no `Option` to test.
        let last = from.iter().fold(Time(u64::MAX), |last, e| last.min(e.time));
        self.last = last;
        // Bit `to` for every bucket `to` an event goes to (`to` < `b` ≤ 64: one shift, no wrap).
        let mut reached = 0u64;
        for e in from.iter() {
            let to = bucket(e.time, last);
            let bucket = &mut lower[to];
            if bucket.len() == bucket.capacity() {
                grow(bucket);
            }
            let len = bucket.len();
            // SAFETY: `len` < capacity (checked above); the entry is `Copy`.
            unsafe {
                bucket.as_mut_ptr().add(len).write(*e);
                bucket.set_len(len + 1);
            }
            reached |= 1 << to;
        }
        self.occupied |= reached >> 1; // bucket `to` > 0 is bit `to − 1`; bucket 0 has none
        from.clear(); // keeps its capacity
        if lower[0].len() > 1 {
            lower[0].sort_unstable_by_key(|e| e.seq);
        }
    }

    /// The time of the earliest event, if any.
    #[inline]
    pub fn peek_time(&mut self) -> Option<Time> {
        self.settle().then_some(self.last)
    }

    /// Remove and return the earliest event.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.settle().then(|| self.pop_settled())
    }

    /// Remove and return the earliest event, just [peeked](Self::peek_time) at (which found one).
    #[inline(always)]
    pub fn pop_settled(&mut self) -> (Time, Event) {
        debug_assert!(
            self.head < self.buckets[0].len(),
            "peeked: bucket 0 holds the earliest"
        );
        let e = self.buckets[0][self.head];
        self.head += 1;
        self.len -= 1;
        self.current = e.seq;
        self.popped += 1;
        (e.time, e.event)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Record the events pending now and the next `capacity` events scheduled, each with the
    /// number of events popped before it.
    pub fn record(&mut self, capacity: usize) {
        let popped = self.popped;
        let mut pending: Vec<Entry> = self.buckets[0][self.head..].to_vec();
        pending.extend(self.buckets[1..].iter().flatten());
        pending.sort_unstable_by_key(|e| e.seq);
        let mut ops = Vec::with_capacity(pending.len() + capacity);
        ops.extend(pending.iter().map(|e| (popped, e.time, e.event)));
        self.recording = Some(Box::new(Recording { ops }));
    }

    /// What was recorded (if [`record`](Self::record) was called), and stop recording.
    pub fn take_recording(&mut self) -> Option<Recording> {
        self.recording.take().map(|r| *r)
    }

    /// Whether a recording is under way and full.
    pub fn recording_full(&self) -> bool {
        self.recording
            .as_deref()
            .is_some_and(|r| r.ops.len() == r.ops.capacity())
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The events a run scheduled, each with the number of events popped before it: the run's mix of
/// queue operations, to replay on a queue alone and time as the ceiling of the engine's speed.
#[derive(Debug)]
pub struct Recording {
    ops: Vec<(u64, Time, Event)>,
}

/// A queue a [`Recording`] can be replayed on.
trait Replay {
    fn push(&mut self, time: Time, event: Event);
    fn pop_time(&mut self) -> Time;
}

impl Replay for EventQueue {
    fn push(&mut self, time: Time, event: Event) {
        self.schedule(time, event);
    }
    fn pop_time(&mut self) -> Time {
        self.pop().expect("replayed as recorded").0
    }
}

/// The yardstick: a bare binary heap of the same `(time, sequence, event)` entries.
#[derive(Default)]
struct BinaryHeapYardstick {
    heap: std::collections::BinaryHeap<std::cmp::Reverse<(Time, u64, Event)>>,
    next_seq: u64,
}

impl Replay for BinaryHeapYardstick {
    fn push(&mut self, time: Time, event: Event) {
        self.heap
            .push(std::cmp::Reverse((time, self.next_seq, event)));
        self.next_seq += 1;
    }
    fn pop_time(&mut self) -> Time {
        self.heap.pop().expect("replayed as recorded").0 .0
    }
}

impl Recording {
    /// Replay the recording on a new [`EventQueue`]: push every event as recorded, popping as
    /// many as the run had popped before it; then pop as many as the run had before its last push.
    /// Returns the events popped and a checksum of their times (so the work is not optimised away).
    pub fn replay(&self) -> (u64, u64) {
        self.replay_on(EventQueue::new())
    }

    /// The same on a bare `std` binary heap, as a yardstick.
    pub fn replay_binary_heap(&self) -> (u64, u64) {
        self.replay_on(BinaryHeapYardstick::default())
    }

    fn replay_on<Q: Replay>(&self, mut q: Q) -> (u64, u64) {
        /// Pop until `n` events have been popped in all, adding their times to `sum`.
        fn pop_until<Q: Replay>(q: &mut Q, popped: &mut u64, sum: &mut u64, n: u64) {
            while *popped < n {
                *sum = sum.wrapping_add(q.pop_time().0);
                *popped += 1;
            }
        }
        let (mut popped, mut sum) = (0u64, 0u64);
        for &(before, time, event) in &self.ops {
            pop_until(&mut q, &mut popped, &mut sum, before);
            q.push(time, event);
        }
        let end = self.ops.last().map_or(0, |op| op.0);
        pop_until(&mut q, &mut popped, &mut sum, end);
        (popped, sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;

    fn source(e: Event) -> u32 {
        match e {
            Event::Source { source } => source,
            _ => unreachable!(),
        }
    }

    /// Schedule `Source` events: (time, source).
    fn schedule_all(q: &mut EventQueue, events: &[(u64, u32)]) {
        for &(t, source) in events {
            q.schedule(Time(t), Event::Source { source });
        }
    }

    /// The sources of the events left, in the order popped.
    fn drain(q: &mut EventQueue) -> Vec<u32> {
        std::iter::from_fn(|| q.pop())
            .map(|(_, e)| source(e))
            .collect()
    }

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(20, 0), (10, 1), (20, 2), (10, 3)]);
        assert_eq!(q.len(), 4);
        let order = drain(&mut q);
        assert_eq!(order, vec![1, 3, 0, 2]);
        assert!(q.is_empty());
        assert_eq!(q.peek_time(), None);
    }

    #[test]
    fn ties_moved_down_from_a_high_bucket_keep_scheduling_order() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(1 << 40, 0), (5, 1)]);
        q.pop(); // last = 5: the event at 2^40 stays in bucket 41
        schedule_all(
            &mut q,
            &[(1 << 40, 2), (6, 3), ((1 << 40) + 1, 4), (1 << 40, 5)],
        );
        let order: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop())
            .map(|(t, e)| (t.0, source(e)))
            .collect();
        let big = 1 << 40;
        assert_eq!(
            order,
            vec![(6, 3), (big, 0), (big, 2), (big, 5), (big + 1, 4)]
        );
    }

    #[test]
    fn events_at_the_current_time_run_after_those_already_there() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(7, 0), (7, 1)]);
        assert_eq!(q.pop().map(|(_, e)| source(e)), Some(0));
        schedule_all(&mut q, &[(7, 2), (u64::MAX, 3)]);
        let order = drain(&mut q);
        assert_eq!(order, vec![1, 2, 3]);
    }

    #[test]
    fn scheduling_before_an_event_only_peeked_at() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(10, 0), (12, 1), (10, 2)]);
        assert_eq!(q.peek_time(), Some(Time(10)));
        schedule_all(&mut q, &[(9, 3), (10, 4)]);
        let order = drain(&mut q);
        assert_eq!(order, vec![3, 0, 2, 4, 1]);
    }

    #[test]
    fn an_event_before_the_last_popped_is_still_queued_and_none_pops_twice() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(10, 0), (10, 1)]);
        assert_eq!(q.pop().map(|(_, e)| source(e)), Some(0));
        schedule_all(&mut q, &[(5, 2)]); // outside the contract; still no event lost or repeated
        assert_eq!(drain(&mut q), vec![2, 1]);
    }

    /// Random schedules, as the simulation makes them (never into the past; many ties; delays
    /// from nanoseconds to hours), pop in exactly the order of a binary heap on `(time, seq)`.
    #[test]
    fn property_same_pops_as_a_binary_heap() {
        for case in 0..200u64 {
            let mut rng = Rng::stream(case, "event-queue-property");
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let mut seq = 0u32;
            let mut now = 0u64;
            // Delay scales: none (ties), a few ns, packet times, RTTs, timers, hours.
            let scales = [0u64, 4, 1 << 13, 1 << 24, 1 << 31, 1 << 42];
            let steps = 1 + rng.uniform_u64(0, 3000);
            for _ in 0..steps {
                for _ in 0..rng.uniform_u64(0, 3) {
                    let scale = scales[rng.uniform_u64(0, scales.len() as u64 - 1) as usize];
                    let t = now + rng.uniform_u64(0, scale);
                    q.schedule(Time(t), Event::Source { source: seq });
                    reference.push(Reverse((t, seq)));
                    seq += 1;
                }
                if rng.uniform_u64(0, 9) == 0 {
                    let want = reference.peek().map(|Reverse((t, _))| Time(*t));
                    assert_eq!(q.peek_time(), want, "case {case}");
                }
                if rng.uniform_u64(0, 2) > 0 {
                    let want = reference.pop().map(|Reverse(k)| k);
                    let got = q.pop().map(|(t, e)| (t.0, source(e)));
                    assert_eq!(got, want, "case {case}");
                    if let Some((t, _)) = got {
                        now = t;
                    }
                }
                assert_eq!(q.len(), reference.len());
            }
            while let Some(Reverse(want)) = reference.pop() {
                assert_eq!(q.pop().map(|(t, e)| (t.0, source(e))), Some(want));
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
    }

    #[test]
    fn a_reserved_event_takes_the_place_it_was_reserved_for() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(10, 0)]);
        let early = q.reserve();
        schedule_all(&mut q, &[(10, 1), (10, 2), (20, 3)]);
        let late = q.reserve();
        assert_eq!(q.pop().map(|(_, e)| source(e)), Some(0));
        assert_eq!(q.current_seq(), 0);
        // At the current time, between events already in bucket 0.
        q.schedule_reserved(Time(10), early, Event::Source { source: 4 });
        // Later, before an event scheduled ahead of it but reserved after.
        q.schedule_reserved(Time(20), late, Event::Source { source: 5 });
        schedule_all(&mut q, &[(20, 6)]);
        assert_eq!(drain(&mut q), vec![4, 1, 2, 3, 5, 6]);
        assert_eq!(q.current_seq(), 6);
    }

    /// Random schedules with reservations, some used and some not: the queue pops in exactly the
    /// order of a binary heap on `(time, seq)`, a reserved event with the sequence number it was
    /// reserved with.
    #[test]
    fn property_reserved_events_pop_in_reserved_order() {
        for case in 0..200u64 {
            let mut rng = Rng::stream(case, "event-queue-reserve-property");
            let mut q = EventQueue::new();
            let mut reference = BinaryHeap::new();
            let (mut seq, mut now, mut current) = (0u64, 0u64, 0u64);
            // Reserved (seq, time, whether held) not yet scheduled, and how many are held.
            let mut reserved: Vec<(u64, u64, bool)> = Vec::new();
            let mut held = 0;
            let scales = [0u64, 4, 1 << 13, 1 << 24, 1 << 31];
            for _ in 0..1 + rng.uniform_u64(0, 2000) {
                match rng.uniform_u64(0, 6) {
                    0 | 1 => {
                        let scale = scales[rng.uniform_u64(0, scales.len() as u64 - 1) as usize];
                        let t = now + rng.uniform_u64(0, scale);
                        q.schedule(Time(t), Event::Source { source: seq as u32 });
                        reference.push(Reverse((t, seq)));
                        seq += 1;
                    }
                    2 => {
                        let scale = scales[rng.uniform_u64(0, scales.len() as u64 - 1) as usize];
                        let hold = rng.uniform_u64(0, 1) == 0;
                        let t = now + rng.uniform_u64(0, scale);
                        let event = Event::Source { source: seq as u32 };
                        assert_eq!(
                            if hold {
                                q.hold(Time(t), event)
                            } else {
                                q.reserve()
                            },
                            seq
                        );
                        reserved.push((seq, t, hold));
                        held += usize::from(hold);
                        seq += 1;
                    }
                    5 if rng.uniform_u64(0, 20) == 0 => {
                        // Drop the events of odd sequence numbers.
                        q.retain(|_, e| source(*e) % 2 == 0);
                        reference.retain(|Reverse((_, s))| s % 2 == 0);
                    }
                    3 if !reserved.is_empty() => {
                        let i = rng.uniform_u64(0, reserved.len() as u64 - 1) as usize;
                        let (s, mut t, hold) = reserved.swap_remove(i);
                        let event = Event::Source { source: s as u32 };
                        // The contract: not before the event popped last (a held event is
                        // certain: it is put off).
                        if hold {
                            if (t, s) < (now, current) {
                                t = now + 1;
                            }
                            q.schedule_held(Time(t), s, event);
                            reference.push(Reverse((t, s)));
                            held -= 1;
                        } else if (t, s) > (now, current) {
                            q.schedule_reserved(Time(t), s, event);
                            reference.push(Reverse((t, s)));
                        }
                    }
                    _ => {
                        let want = reference.pop().map(|Reverse(k)| k);
                        let got = q.pop().map(|(t, e)| (t.0, u64::from(source(e))));
                        assert_eq!(got, want, "case {case}");
                        if let Some((t, s)) = got {
                            (now, current) = (t, s);
                            assert_eq!(q.current_seq(), s);
                        }
                    }
                }
                assert_eq!(q.len(), reference.len() + held);
            }
            for (s, t, _) in reserved.into_iter().filter(|r| r.2) {
                let t = if (t, s) < (now, current) { now + 1 } else { t };
                q.schedule_held(Time(t), s, Event::Source { source: s as u32 });
                reference.push(Reverse((t, s)));
            }
            assert_eq!(q.len(), reference.len());
            while let Some(Reverse(want)) = reference.pop() {
                let got = q.pop().map(|(t, e)| (t.0, u64::from(source(e))));
                assert_eq!(got, Some(want), "case {case}");
            }
            assert!(q.pop().is_none() && q.is_empty());
        }
    }

    #[test]
    fn a_held_event_counts_as_pending_and_takes_its_place() {
        let mut q = EventQueue::new();
        schedule_all(&mut q, &[(10, 0)]);
        let held = q.hold(Time(10), Event::Source { source: 3 });
        assert_eq!(q.len(), 2);
        schedule_all(&mut q, &[(20, 1), (10, 2)]);
        assert_eq!(q.pop().map(|(_, e)| source(e)), Some(0));
        q.retain(|_, _| true);
        assert_eq!(q.len(), 3, "the held event is still pending");
        // At the current time, before the event scheduled after it was held.
        q.schedule_held(Time(10), held, Event::Source { source: 3 });
        assert_eq!(q.len(), 3);
        assert_eq!(drain(&mut q), vec![3, 2, 1]);
        assert!(q.is_empty());
    }

    #[test]
    fn a_recording_replays_the_pops_of_the_run() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), Event::WarmupEnd);
        q.record(3);
        q.schedule(Time(3), Event::WarmupEnd);
        q.pop();
        q.schedule(Time(4), Event::WarmupEnd);
        assert!(!q.recording_full());
        q.pop();
        q.schedule(Time(9), Event::WarmupEnd);
        assert!(q.recording_full());
        q.schedule(Time(9), Event::WarmupEnd); // beyond the capacity: not recorded
        let r = q.take_recording().expect("recorded");
        assert_eq!(r.ops.len(), 4);
        // pops before the last recorded push: 3 then 4
        assert_eq!(r.replay(), (2, 3 + 4));
        assert_eq!(r.replay_binary_heap(), (2, 3 + 4));
        assert!(q.take_recording().is_none());
    }

    #[test]
    fn a_recording_has_a_held_event_where_it_was_held() {
        let mut q = EventQueue::new();
        q.record(4);
        q.schedule(Time(3), Event::WarmupEnd);
        let held = q.hold(Time(8), Event::WarmupEnd);
        q.schedule(Time(6), Event::WarmupEnd);
        q.pop();
        q.pop();
        q.schedule_held(Time(8), held, Event::WarmupEnd);
        q.schedule(Time(9), Event::WarmupEnd);
        let r = q.take_recording().expect("recorded");
        // Pushed when held, before any pop, between the two scheduled at once; not again when
        // scheduled.
        let pushes: Vec<(u64, u64)> = r.ops.iter().map(|&(popped, t, _)| (popped, t.0)).collect();
        assert_eq!(pushes, vec![(0, 3), (0, 8), (0, 6), (2, 9)]);
        assert_eq!(r.replay(), (2, 3 + 6));
        assert_eq!(r.replay_binary_heap(), (2, 3 + 6));
    }

    #[test]
    fn entries_stay_compact() {
        assert!(std::mem::size_of::<Entry>() <= 32);
    }
}
