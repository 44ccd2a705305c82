//! Queue disciplines. A discipline only decides and stores; the link around it keeps the counters
//! (arrivals, enqueued, departures, drops by reason) whose identities every run checks.
//!
//! Dispatch is by trait + enum (DESIGN.md): [`QueueDisc`] is the interface, [`AnyQdisc`] the closed set
//! the engine holds, so the hot path has no dynamic dispatch.

mod bernoulli;
mod droptail;
mod fifo;
mod scripted;

pub use bernoulli::Bernoulli;
pub use droptail::DropTail;
pub use fifo::Fifo;
pub use scripted::{Action, Scripted, ScriptedRule, SegmentKind};

use crate::packet::{Packet, PacketId};
use crate::rng::Rng;
use crate::units::Time;

/// Why a packet was dropped. Every drop has one, and summaries count drops by these names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// The queue was at its limit when the packet arrived (drop-tail).
    Overflow,
    /// A fixed-probability dropper chose it (Bernoulli losses for queue-law experiments).
    Random,
    /// A scripted dropper was told to drop it (tests).
    Scripted,
}

impl DropReason {
    pub const ALL: [DropReason; 3] = [
        DropReason::Overflow,
        DropReason::Random,
        DropReason::Scripted,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Random => "random",
            DropReason::Scripted => "scripted",
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
    /// Stored, and its ECN field is to be set to CE (RFC 3168) by the caller.
    Marked,
    /// Refused; the caller frees the packet and counts the reason.
    Dropped(DropReason),
}

/// The interface of every queue discipline.
pub trait QueueDisc {
    /// Decide on arriving packet `id` (whose fields are `pkt`) and store it if accepted.
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict;
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
    Bernoulli(Bernoulli),
    Scripted(Scripted),
}

/// Apply the same call to whichever discipline `$q` holds.
macro_rules! each {
    ($q:expr, $d:ident => $call:expr) => {
        match $q {
            AnyQdisc::DropTail($d) => $call,
            AnyQdisc::Bernoulli($d) => $call,
            AnyQdisc::Scripted($d) => $call,
        }
    };
}

impl QueueDisc for AnyQdisc {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        each!(self, q => q.enqueue(id, pkt, now, rng))
    }
    #[inline]
    fn dequeue(&mut self, now: Time) -> Option<(PacketId, u32)> {
        each!(self, q => q.dequeue(now))
    }
    #[inline]
    fn len_pkts(&self) -> u64 {
        each!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        each!(self, q => q.len_bytes())
    }
}
