//! Queue disciplines. A discipline only decides and stores; the link around it keeps the counters
//! (arrivals, enqueued, departures, drops by reason) whose identities every run checks.
//!
//! Dispatch is by trait + enum (DESIGN.md): [`QueueDisc`] is the interface, [`AnyQdisc`] the closed set
//! the engine holds, so the hot path has no dynamic dispatch.

mod droptail;
mod fifo;

pub use droptail::DropTail;
pub use fifo::Fifo;

use crate::packet::PacketId;
use crate::rng::Rng;
use crate::units::Time;

/// Why a packet was dropped. Every drop has one, and summaries count drops by these names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// The queue was at its limit when the packet arrived (drop-tail).
    Overflow,
}

impl DropReason {
    pub const ALL: [DropReason; 1] = [DropReason::Overflow];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}

/// A discipline's decision on an arriving packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Stored; it will leave by `dequeue`.
    Enqueued,
    /// Refused; the caller frees the packet and counts the reason.
    Dropped(DropReason),
}

/// The interface of every queue discipline.
pub trait QueueDisc {
    /// Decide on an arriving packet of `size` bytes and store it if accepted.
    fn enqueue(&mut self, pkt: PacketId, size: u32, now: Time, rng: &mut Rng) -> Verdict;
    /// Hand the next packet to the link, with its size.
    fn dequeue(&mut self, now: Time) -> Option<(PacketId, u32)>;
    /// Packets waiting (not counting the one being transmitted).
    fn len_pkts(&self) -> u64;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
}

/// The queue disciplines the engine knows.
#[derive(Debug)]
pub enum AnyQdisc {
    DropTail(DropTail),
}

impl QueueDisc for AnyQdisc {
    #[inline]
    fn enqueue(&mut self, pkt: PacketId, size: u32, now: Time, rng: &mut Rng) -> Verdict {
        match self {
            AnyQdisc::DropTail(q) => q.enqueue(pkt, size, now, rng),
        }
    }
    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<(PacketId, u32)> {
        match self {
            AnyQdisc::DropTail(q) => q.dequeue(now),
        }
    }
    #[inline]
    fn len_pkts(&self) -> u64 {
        match self {
            AnyQdisc::DropTail(q) => q.len_pkts(),
        }
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        match self {
            AnyQdisc::DropTail(q) => q.len_bytes(),
        }
    }
}
