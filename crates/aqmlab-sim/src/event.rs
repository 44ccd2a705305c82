//! The event queue: events ordered by `(time, sequence)`, so events at equal times run in the order
//! they were scheduled and a run is a pure function of (scenario, seed) (DESIGN.md, engine principles).

use crate::units::Time;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens when an event fires. Compact (12 bytes): indices into the simulation's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Link `link` finished serialising the packet it was sending.
    TxDone { link: u32 },
    /// Packet `pkt` reaches node `node` at the far end of a link.
    Arrive { node: u32, pkt: u32 },
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

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.seq) == (other.time, other.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    /// Reversed, so the max-heap pops the earliest `(time, seq)` first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}

/// A min-queue of events by `(time, sequence)`.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            next_seq: 0,
        }
    }

    pub fn schedule(&mut self, time: Time, event: Event) {
        self.heap.push(Entry {
            time,
            seq: self.next_seq,
            event,
        });
        self.next_seq += 1;
    }

    /// The time of the earliest event, if any.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }

    /// Remove and return the earliest event.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        self.heap.pop().map(|e| (e.time, e.event))
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn earliest_first_and_ties_in_scheduling_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(20), Event::Source { source: 0 });
        q.schedule(Time(10), Event::Source { source: 1 });
        q.schedule(Time(20), Event::Source { source: 2 });
        q.schedule(Time(10), Event::Source { source: 3 });
        let order: Vec<u32> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::Source { source } => source,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec![1, 3, 0, 2]);
        assert!(q.is_empty());
    }

    #[test]
    fn entries_stay_compact() {
        assert!(std::mem::size_of::<Entry>() <= 32);
    }
}
