//! Queue disciplines. A discipline only decides and stores; the link around it keeps the counters
//! (arrivals, enqueued, departures, drops by reason) whose identities every run checks.
//!
//! Dispatch is by trait + enum (docs/architecture.md, "Engine principles"): [`QueueDisc`] is the
//! interface, [`AnyQdisc`] the closed set the engine holds, so the hot path has no dynamic
//! dispatch.

mod bernoulli;
pub mod codel;
pub mod config;
mod droptail;
mod fifo;
mod fq_codel;
mod pie;
pub mod red;
mod scripted;

pub use bernoulli::Bernoulli;
pub use codel::{Codel, CodelConfig};
pub use droptail::DropTail;
pub use fifo::{Fifo, Stored};
pub use fq_codel::{FqCodel, FqCodelConfig};
pub use pie::{Pie, PieConfig};
pub use red::Red;
pub use scripted::{Action, Scripted, ScriptedRule, SegmentKind, Target};

use crate::packet::{Packet, PacketId};
use crate::rng::Rng;
use crate::units::Time;

/// Why a packet was dropped. Every drop has one, and summaries count drops by these names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// The queue was at its physical limit when the packet arrived (drop-tail; RED's limit).
    Overflow,
    /// A fixed-probability dropper chose it (Bernoulli losses for queue-law experiments).
    Random,
    /// A scripted dropper was told to drop it (tests).
    Scripted,
    /// RED's early, probabilistic decision (average between the thresholds).
    Early,
    /// RED's forced decision: the average above max_th (2·max_th when gentle).
    Forced,
    /// CoDel's control law (also FQ-CoDel's per-flow CoDel): dropped at dequeue.
    Codel,
    /// PIE's random early drop (its drop probability).
    Pie,
}

impl DropReason {
    pub const ALL: [DropReason; 7] = [
        DropReason::Overflow,
        DropReason::Random,
        DropReason::Scripted,
        DropReason::Early,
        DropReason::Forced,
        DropReason::Codel,
        DropReason::Pie,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::Random => "random",
            DropReason::Scripted => "scripted",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// A drop no AQM chose: RED's average in its forced region, or the queue at its physical
    /// limit — the signs of a queue out of control (the `forced_drops_pkts` column).
    pub fn is_forced(self) -> bool {
        matches!(self, DropReason::Forced | DropReason::Overflow)
    }
}

/// Why a packet was marked Congestion Experienced instead of dropped (RFC 3168).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MarkReason {
    Early,
    Forced,
    Scripted,
    /// A fixed-probability marker chose it (`bernoulli` with `ecn = true`).
    Random,
    /// CoDel's control law, with `ecn = true`: marked at dequeue.
    Codel,
    /// PIE's early decision, with `ecn = true` while its probability is at most 10 %.
    Pie,
}

impl MarkReason {
    pub const ALL: [MarkReason; 6] = [
        MarkReason::Early,
        MarkReason::Forced,
        MarkReason::Scripted,
        MarkReason::Random,
        MarkReason::Codel,
        MarkReason::Pie,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MarkReason::Early => "early",
            MarkReason::Forced => "forced",
            MarkReason::Scripted => "scripted",
            MarkReason::Random => "random",
            MarkReason::Codel => "codel",
            MarkReason::Pie => "pie",
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
    Marked(MarkReason),
    /// Refused; the caller frees the packet and counts the reason.
    Dropped(DropReason),
    /// Stored, but to make room the discipline dropped `victim`, a packet that was waiting
    /// (a drop-front policy). The caller frees the victim and counts the reason.
    DroppedFront {
        victim: PacketId,
        reason: DropReason,
    },
}

/// The packet a discipline hands to the link: its id and size, and whether its ECN field is to be
/// set to CE (RFC 3168) by the caller (an AQM that decides at dequeue time, like CoDel).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Departure {
    pub id: PacketId,
    pub size: u32,
    pub mark: Option<MarkReason>,
}

impl Departure {
    /// A packet handed out unmarked.
    pub fn plain((id, size): (PacketId, u32)) -> Departure {
        Departure {
            id,
            size,
            mark: None,
        }
    }
}

/// Packets a discipline dropped from its queue while choosing what to send, with their reasons:
/// a buffer the link owns and reuses, which it empties after every `dequeue`. A discipline may drop
/// several (CoDel's drop loop: RFC 8289 §5.5, Linux `codel_dequeue`).
pub type DequeueDrops = Vec<(PacketId, DropReason)>;

/// What the queue log samples of an AQM's control state (the `queue` table's `red_avg`,
/// `red_max_p`, `codel_dropping` and `pie_prob`). Each field is `NaN` for a discipline without
/// that state, so a column is `NaN` for every queue it does not apply to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AqmState {
    /// RED's average queue, in the queue's unit (packets or bytes).
    pub red_avg: f64,
    /// RED's current max_p.
    pub red_max_p: f64,
    /// CoDel queues in the dropping state: 0 or 1 for `codel`, the number of flow queues for
    /// `fq_codel`.
    pub codel_dropping: f64,
    /// PIE's drop probability.
    pub pie_prob: f64,
}

impl AqmState {
    /// A discipline without AQM state.
    pub const NONE: AqmState = AqmState {
        red_avg: f64::NAN,
        red_max_p: f64::NAN,
        codel_dropping: f64::NAN,
        pie_prob: f64::NAN,
    };
}

/// The interface of every queue discipline.
pub trait QueueDisc {
    /// Decide on arriving packet `id` (whose fields are `pkt`) and store it if accepted.
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict;
    /// Hand the next packet to the link, if any, after pushing to `dropped` the waiting packets
    /// the discipline dropped on the way. The caller counts and frees those as drops from the
    /// queue (like drop-front victims), and marks the departure if it says so.
    fn dequeue(&mut self, now: Time, dropped: &mut DequeueDrops) -> Option<Departure>;
    /// Packets waiting (not counting the one being transmitted).
    fn len_pkts(&self) -> u64;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// Whether `pkt`, arriving while the link's transmitter is idle, would be stored and handed
    /// straight back, with nothing decided, changed or dropped but the packet's passage: then
    /// the link sends it without storing it (an empty drop-tail queue with room for it). The
    /// contract: `enqueue` then `dequeue` at the same instant would accept it, hand it out
    /// unmarked, draw no random number and leave no state (no timestamp, no average, no idle
    /// time, so `link_idle` is not needed either). An AQM decides on every packet, so the
    /// default is no.
    fn passes_idle(&self, _pkt: &Packet) -> bool {
        false
    }
    /// Whether the queue is empty and the transmitter, finishing a packet, may go idle without
    /// asking it: a `dequeue` now would find nothing and change nothing, and `link_idle` would
    /// do nothing (an empty drop-tail queue). An AQM may act on both (CoDel leaves its dropping
    /// state, RED starts its idle time), so the default is no.
    fn idles_empty(&self) -> bool {
        false
    }
    /// The link went idle at `now` (its transmitter found the queue empty).
    fn link_idle(&mut self, _now: Time) {}
    /// An AQM's state for the queue log; `NaN` where the discipline has no such state.
    fn aqm_state(&self) -> AqmState {
        AqmState::NONE
    }
    /// When the discipline's own timer fires next, if it has one.
    fn next_timer(&self) -> Option<Time> {
        None
    }
    /// Its timer fired at `now`.
    fn on_timer(&mut self, _now: Time) {}
}

/// `dequeue`, `len_pkts` and `len_bytes` of a discipline that keeps its packets in an inner
/// queue `$field` (droppers in front of a drop-tail FIFO).
macro_rules! delegate_storage {
    ($field:ident) => {
        fn dequeue(&mut self, now: Time, dropped: &mut DequeueDrops) -> Option<Departure> {
            self.$field.dequeue(now, dropped)
        }
        fn len_pkts(&self) -> u64 {
            self.$field.len_pkts()
        }
        fn len_bytes(&self) -> u64 {
            self.$field.len_bytes()
        }
    };
}
pub(crate) use delegate_storage;

/// The queue disciplines the engine knows.
#[derive(Debug)]
pub enum AnyQdisc {
    DropTail(DropTail),
    Bernoulli(Bernoulli),
    Scripted(Scripted),
    Red(Box<Red>),
    Codel(Codel),
    Pie(Pie),
    FqCodel(FqCodel),
}

/// Apply the same call to whichever discipline `$q` holds.
macro_rules! each {
    ($q:expr, $d:ident => $call:expr) => {
        match $q {
            AnyQdisc::DropTail($d) => $call,
            AnyQdisc::Bernoulli($d) => $call,
            AnyQdisc::Scripted($d) => $call,
            AnyQdisc::Red($d) => $call,
            AnyQdisc::Codel($d) => $call,
            AnyQdisc::Pie($d) => $call,
            AnyQdisc::FqCodel($d) => $call,
        }
    };
}

impl QueueDisc for AnyQdisc {
    #[inline]
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        each!(self, q => q.enqueue(id, pkt, now, rng))
    }
    #[inline]
    fn dequeue(&mut self, now: Time, dropped: &mut DequeueDrops) -> Option<Departure> {
        each!(self, q => q.dequeue(now, dropped))
    }
    #[inline]
    fn len_pkts(&self) -> u64 {
        each!(self, q => q.len_pkts())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        each!(self, q => q.len_bytes())
    }
    #[inline]
    fn passes_idle(&self, pkt: &Packet) -> bool {
        each!(self, q => q.passes_idle(pkt))
    }
    #[inline]
    fn idles_empty(&self) -> bool {
        each!(self, q => q.idles_empty())
    }
    #[inline]
    fn link_idle(&mut self, now: Time) {
        each!(self, q => q.link_idle(now))
    }
    #[inline]
    fn aqm_state(&self) -> AqmState {
        each!(self, q => q.aqm_state())
    }
    fn next_timer(&self) -> Option<Time> {
        each!(self, q => q.next_timer())
    }
    fn on_timer(&mut self, now: Time) {
        each!(self, q => q.on_timer(now))
    }
}
