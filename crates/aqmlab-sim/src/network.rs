//! The network: full-duplex links as pairs of one-way links, each with a queue; the network a
//! run simulates in its general form ([`Net`]: named nodes, one-way links, forwarding tables from
//! [`crate::routing`]) and the dumbbell, the default topology, with its pair delays.
//!
//! ```text
//! servers 0..S ── access ── R1 ══ bottleneck ══ R2 ── access ── clients S..S+C
//! ```
//! The dumbbell's node ids: hosts `0..H` (servers first, then clients), R1 = `H`, R2 = `H + 1`.
//! Its link ids: host `h`'s uplink (host → router) is `2h`, its downlink (router → host) `2h + 1`;
//! the bottleneck is `2H` (R1 → R2, "forward") and `2H + 1` (R2 → R1, "reverse"). Any other
//! network numbers its hosts first too, then its routers; `[[link]]` `i` is links `2i` (from → to)
//! and `2i + 1`.
//!
//! # Framing
//! Packets are IP packets: their `size` is what queues count (a queue limit in bytes, RED's byte
//! mode, `mean_queue_bytes`) and what throughput counts. A link may add a link layer's framing to
//! the time a packet occupies its transmitter, and nothing else ([`Framing`], scenario keys
//! `topology.bottleneck.framing`, `topology.access.framing`, `link[i].framing`): a packet of `size` IP bytes is
//! sent as `max(size, min_payload) + overhead` bytes on the wire, so it takes
//! `(max(size, min_payload) + overhead) · 8 / rate`. IEEE 802.3 (Ethernet, the testbeds' links) has
//! `overhead` = 7 B preamble + 1 B start-of-frame delimiter + 14 B MAC header (destination,
//! source, EtherType) + 4 B frame check sequence + 12 B inter-frame gap = 38 B, and pads the
//! frame's payload to its 46 B minimum (a 64 B minimum frame): a 1500 B IP packet takes 1538 B of
//! wire time, a 40 B TCP ACK 46 + 38 = 84 B. The router's queue still holds IP packets; a
//! saturated link carries `rate · size / wire bytes` of IP bits (97.5% of the rate for 1500 B
//! packets), which the summary's `utilization` shows, and `wire_utilization` counts the wire bytes.

use crate::event::{Event, EventQueue};
use crate::measure::{
    self, AtWarmup, IntervalCounts, QueueCounters, QueueSampler, QueueState, ThroughputBins,
};
use crate::packet::PacketId;
use crate::queue::config::QueueSpec;
use crate::queue::{AnyQdisc, DequeueDrops, QueueDisc};
use crate::rng::Rng;
use crate::routing::Routes;
use crate::units::{QueueLimit, Rate, Size, Time};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::collections::VecDeque;

/// A link layer's framing: what a packet costs on the wire beyond its IP bytes (module docs).
/// A constant of the link, applied when a transmission starts; `NONE` leaves `size` as it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    /// Bytes added to every frame (header, trailer, preamble, inter-frame gap).
    pub overhead: u32,
    /// The frame payload's minimum: a shorter packet is padded up to it.
    pub min_payload: u32,
}

impl Framing {
    /// No framing: a packet occupies the link for `size · 8 / rate`.
    pub const NONE: Framing = Framing {
        overhead: 0,
        min_payload: 0,
    };
    /// IEEE 802.3: preamble 7 + SFD 1 + MAC header 14 + FCS 4 + inter-frame gap 12 = 38 B per
    /// frame, payload padded to 46 B.
    pub const ETHERNET: Framing = Framing {
        overhead: 38,
        min_payload: 46,
    };

    /// The bytes a packet of `size` IP bytes occupies on the wire.
    #[inline]
    pub fn wire_bytes(self, size: u32) -> u64 {
        u64::from(size.max(self.min_payload)) + u64::from(self.overhead)
    }
}

/// A link's transmitter: its rate and framing, and the time a packet of a given size occupies it.
/// That time is kept for the last size sent: a link carries few sizes (full segments one way,
/// ACKs the other), so most packets cost a comparison instead of a division.
#[derive(Debug)]
pub struct Transmitter {
    rate: Rate,
    framing: Framing,
    /// The last size asked for and its transmission time.
    last: (u32, Time),
}

impl Transmitter {
    pub fn new(rate: Rate, framing: Framing) -> Transmitter {
        debug_assert!(rate.0 > 0, "the scenario reader refuses a rate of 0");
        Transmitter {
            rate,
            framing,
            last: (0, rate.tx_time(framing.wire_bytes(0))),
        }
    }

    pub fn rate(&self) -> Rate {
        self.rate
    }

    /// The bytes a packet of `size` IP bytes occupies on the wire.
    #[inline]
    pub fn wire_bytes(&self, size: u32) -> u64 {
        self.framing.wire_bytes(size)
    }

    /// The time a packet of `size` IP bytes occupies the transmitter, rounded up to the next ns.
    #[inline]
    pub fn time(&mut self, size: u32) -> Time {
        if size != self.last.0 {
            self.last = (size, self.rate.tx_time(self.framing.wire_bytes(size)));
        }
        self.last.1
    }
}

/// A link keeps its packets in propagation ([`Propagation::InOrder`]) only if its delay lasts at
/// least this many transmissions of a full-size (1500 B) packet: with few packets in propagation at
/// once, the moves in the event queue it saves cost less than keeping them. A speed setting: no
/// result depends on it (the measurements are in docs/performance.md, "arrivals held in order").
pub const IN_ORDER_MIN_PACKETS: u64 = 4;

/// Whether a link sending with `tx`, its packets arriving `delay` after their transmission plus
/// what `arrival_delay` adds, should keep its packets in propagation ([`Propagation::InOrder`]):
/// they arrive in the order sent when every one takes the same delay after its transmission (no
/// pair's delay added: transmissions end in order), and keeping them pays with a delay of at least
/// [`IN_ORDER_MIN_PACKETS`] full-size packets.
pub fn keeps_in_order(tx: &Transmitter, delay: Time, arrival_delay: ArrivalDelay) -> bool {
    let full_size = tx.rate().tx_time(tx.wire_bytes(1500));
    arrival_delay == ArrivalDelay::Fixed
        && delay.0 >= full_size.0.saturating_mul(IN_ORDER_MIN_PACKETS)
}

/// What a monitored (bottleneck) link logs besides its counters.
#[derive(Debug)]
pub struct Monitor {
    pub sampler: QueueSampler,
    pub throughput: ThroughputBins,
}

/// The packets on their way to a link's far end, each with its arrival time, in the order they
/// left (a ring that grows to the most ever in propagation, then is reused).
#[derive(Debug, Default)]
pub struct Propagating(VecDeque<(Time, PacketId)>);

impl Propagating {
    /// Packet `pkt` left at `now` and arrives at `at`: forget the packets that have arrived by
    /// `now`, and return the next two to arrive before it.
    #[inline]
    pub fn push(
        &mut self,
        now: Time,
        at: Time,
        pkt: PacketId,
    ) -> (Option<PacketId>, Option<PacketId>) {
        while self.0.front().is_some_and(|&(t, _)| t <= now) {
            self.0.pop_front();
        }
        let next = |i: usize| self.0.get(i).map(|&(_, p)| p);
        let coming = (next(0), next(1));
        self.0.push_back((at, pkt));
        coming
    }
}

/// What a link adds to its delay when a packet arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrivalDelay {
    /// Nothing: every packet takes the link's `delay`.
    Fixed,
    /// The delay of the packet's host pair (a router → host link, unless every pair has the same
    /// one, which is then part of `delay`: [`Dumbbell::same_pair_delay`]).
    PlusPairDelay,
}

/// What a link does with its packets in propagation. An explicit tag, a byte, which a
/// transmission reads at once: without it the variant is told by the value of a field of the
/// data (the queue's capacity), which costs more instructions per packet.
#[derive(Debug)]
#[repr(u8)]
pub enum Propagation {
    /// Nothing: each arrival is an event of its own, and a link without delay delivers a packet
    /// while it is still in cache.
    Untracked,
    /// Each arrival is an event of its own; the packets are also kept, only to prefetch the next
    /// ones to arrive ([`Link::propagate`]; no result depends on it).
    Tracked(Propagating),
    /// Only the first packet in propagation is an event ([`Event::ArriveInOrder`]): `first`, if
    /// any, and those `behind` it, each with its arrival time and its event's sequence number
    /// ([`EventQueue::hold`]), earliest first ([`keeps_in_order`]).
    InOrder {
        first: Option<PacketId>,
        behind: VecDeque<(Time, u64, PacketId)>,
    },
}

impl Propagation {
    /// Holding the packets in order, with none in propagation.
    pub fn in_order() -> Propagation {
        Propagation::InOrder {
            first: None,
            behind: VecDeque::new(),
        }
    }
}

/// How the transmission going on ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxEnd {
    /// By a `TxDone` event: a packet waits behind it.
    Scheduled,
    /// When the link is next touched, in the place among equal times of the `TxDone` it would
    /// have been: the event sequence number reserved for it when it began.
    Reserved(u64),
}

/// One direction of a link: a queue feeding a transmitter, then propagation.
#[derive(Debug)]
pub struct Link {
    pub name: String,
    /// Node at the far end.
    pub to: u32,
    /// Its rate and framing: how long a packet occupies it.
    pub tx: Transmitter,
    pub delay: Time,
    pub arrival_delay: ArrivalDelay,
    pub propagation: Propagation,
    pub qdisc: AnyQdisc,
    /// The packets `qdisc` dropped in its last `dequeue` (a reused buffer, empty between calls).
    pub dequeue_drops: DequeueDrops,
    /// The discipline's own random stream (`queue.<link name>`).
    pub rng: Rng,
    /// The packet being transmitted, if any, and when its transmission began and ends. A
    /// transmission ends by a `TxDone` event only when a packet waits behind it (`tx_end`);
    /// otherwise it is finished when the link is next touched, in the order of the `TxDone` it
    /// would have been ([`Simulation`](crate::Simulation)'s `catch_up`), so a packet on an idle
    /// link costs no event besides its arrival.
    pub in_tx: Option<PacketId>,
    /// Its size (IP bytes), kept here so that finishing it does not read the packet.
    pub tx_size: u32,
    pub tx_started: Time,
    pub tx_ends: Time,
    pub tx_end: TxEnd,
    pub counters: QueueCounters,
    pub monitor: Option<Box<Monitor>>,
}

impl Link {
    /// An idle link named `name` to node `to`, sending at `tx`'s rate, its packets arriving
    /// `delay` after their transmission (plus what `arrival_delay` adds), queued in `qdisc`
    /// (which draws from `rng`); no monitor. It holds its packets in propagation if that pays
    /// ([`keeps_in_order`]).
    pub fn new(
        name: String,
        to: u32,
        tx: Transmitter,
        delay: Time,
        arrival_delay: ArrivalDelay,
        qdisc: AnyQdisc,
        rng: Rng,
    ) -> Link {
        let propagation = if keeps_in_order(&tx, delay, arrival_delay) {
            Propagation::in_order()
        } else if delay == Time::ZERO {
            Propagation::Untracked
        } else {
            Propagation::Tracked(Propagating::default())
        };
        Link {
            name,
            to,
            tx,
            delay,
            arrival_delay,
            propagation,
            qdisc,
            dequeue_drops: Vec::new(),
            rng,
            in_tx: None,
            tx_size: 0,
            tx_started: Time::ZERO,
            tx_ends: Time::ZERO,
            tx_end: TxEnd::Reserved(0),
            counters: QueueCounters::default(),
            monitor: None,
        }
    }

    /// Account the queue as it stood until `now`: call before every change of its length.
    /// The queue's state is read for the log only when a sample is due (most changes of length
    /// fall between two samples).
    #[inline]
    pub fn before_change(&mut self, now: Time) {
        let (pkts, bytes) = (self.qdisc.len_pkts(), self.qdisc.len_bytes());
        self.counters.integrate(now, pkts, bytes);
        self.sample_if_due(now);
    }

    /// [`Self::before_change`] where the queue is empty and stays so (a packet passed through
    /// it, or the transmitter goes idle): the log's samples due are taken, and the integrals are
    /// left as they are: an empty queue adds nothing to them, and the next integration, before
    /// the length changes, adds 0 over the time since `integrated_to`.
    #[inline]
    pub fn stays_empty(&mut self, now: Time) {
        debug_assert_eq!((self.qdisc.len_pkts(), self.qdisc.len_bytes()), (0, 0));
        self.sample_if_due(now);
    }

    /// Whether the transmission ended before the event being processed (at `now`, sequence
    /// number `seq`) without an event of its own (nothing waited behind it): it is then still to
    /// be finished. One ending exactly at `now` ended before the event if its reserved sequence
    /// number comes first, as its `TxDone` would have.
    #[inline(always)]
    pub fn ended_unseen(&self, now: Time, seq: u64) -> bool {
        match self.tx_end {
            TxEnd::Reserved(reserved) => {
                self.in_tx.is_some()
                    && (self.tx_ends < now || (self.tx_ends == now && reserved < seq))
            }
            TxEnd::Scheduled => false,
        }
    }

    /// Finish the transmission, at `tx_ends` (returned): count it (its throughput while
    /// `measuring`, on a monitored link).
    #[inline(always)]
    pub fn end_tx(&mut self, measuring: bool) -> Time {
        let now = self.tx_ends;
        self.in_tx
            .take()
            .expect("a link finishes only what it started");
        let size = self.tx_size;
        self.counters.sent_pkts += 1;
        self.counters.sent_bytes += u64::from(size);
        self.counters.sent_wire_bytes += self.tx.wire_bytes(size);
        if measuring {
            if let Some(m) = self.monitor.as_deref_mut() {
                m.throughput.add(self.tx_started, now, size);
            }
        }
        now
    }

    /// The transmitter is free at `now`: whether the queue must be asked for the next packet.
    /// Not if it idles empty ([`QueueDisc::idles_empty`]: an empty drop-tail queue): the link
    /// stays idle (the log's samples due taken), which is what `dequeue` and `link_idle` would
    /// do. Otherwise its length is accounted up to `now`, for the dequeue.
    #[inline(always)]
    pub fn needs_dequeue(&mut self, now: Time) -> bool {
        if self.qdisc.idles_empty() {
            self.stays_empty(now);
            return false;
        }
        self.before_change(now);
        true
    }

    /// A transmission waits behind the one going on: unless it already is, the end of the one
    /// going on becomes the event `TxDone` of this link `l`, where it would have been had it been
    /// scheduled when the transmission began.
    #[inline(always)]
    pub fn schedule_tx_end(&mut self, l: u32, events: &mut EventQueue) {
        if let TxEnd::Reserved(seq) = self.tx_end {
            self.tx_end = TxEnd::Scheduled;
            events.schedule_reserved(self.tx_ends, seq, Event::TxDone { link: l });
        }
    }

    /// Put packet `pkt` of `size` bytes, just out of the queue, on the wire at `now`; `behind`:
    /// whether packets wait in the queue behind it. The end of its transmission becomes an event
    /// (of link `l`, this one) only then, else its place among events is reserved; its arrival at
    /// the far end is scheduled after it, `pair_delay()` later if the link adds a pair's delay.
    /// Returns the arrival time. A method of the link, so that the caller keeps it at hand.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn transmit(
        &mut self,
        l: u32,
        now: Time,
        pkt: PacketId,
        size: u32,
        behind: bool,
        events: &mut EventQueue,
        pair_delay: impl FnOnce() -> Time,
    ) -> Time {
        self.in_tx = Some(pkt);
        self.tx_size = size;
        self.tx_started = now;
        self.tx_ends = now + self.tx.time(size);
        // The end of the transmission is scheduled before the arrival it causes, as when the
        // arrival was scheduled at the end.
        self.tx_end = if behind {
            events.schedule(self.tx_ends, Event::TxDone { link: l });
            TxEnd::Scheduled
        } else {
            TxEnd::Reserved(events.reserve())
        };
        let mut at = self.tx_ends + self.delay;
        if self.arrival_delay == ArrivalDelay::PlusPairDelay {
            at = at + pair_delay();
        }
        match &mut self.propagation {
            Propagation::InOrder {
                first: Some(_),
                behind,
            } => {
                debug_assert!(behind.back().is_none_or(|&(t, _, _)| t <= at));
                let seq = events.hold(at, Event::ArriveInOrder { link: l, pkt });
                behind.push_back((at, seq, pkt));
            }
            Propagation::InOrder { first, .. } => {
                *first = Some(pkt);
                events.schedule(at, Event::ArriveInOrder { link: l, pkt });
            }
            Propagation::Untracked | Propagation::Tracked(_) => {
                events.schedule(at, Event::Arrive { node: self.to, pkt });
            }
        }
        at
    }

    /// The first packet in propagation ([`Propagation::InOrder`]) arrived (its event, of this
    /// link `l`, was popped): the next one's arrival, if any, becomes the event.
    #[inline(always)]
    pub fn arrived(&mut self, l: u32, events: &mut EventQueue) {
        let Propagation::InOrder { first, behind } = &mut self.propagation else {
            unreachable!("only a link holding its packets in order has ArriveInOrder events")
        };
        match behind.pop_front() {
            Some((at, seq, pkt)) => {
                *first = Some(pkt);
                events.schedule_held(at, seq, Event::ArriveInOrder { link: l, pkt });
            }
            None => *first = None,
        }
    }

    /// Take the queue log's samples due at or before `now`, if any.
    #[inline]
    fn sample_if_due(&mut self, now: Time) {
        if self.monitor.as_deref().is_some_and(|m| m.sampler.due(now)) {
            self.sample(now);
        }
    }

    /// Count, with `count`, in the queue table's interval at `now` (while `measuring`, on a
    /// monitored link). Inlined so that the unmonitored links (every access link) pay one test
    /// per packet.
    #[inline(always)]
    pub fn count_interval(
        &mut self,
        measuring: bool,
        now: Time,
        count: impl FnOnce(&mut IntervalCounts),
    ) {
        if !measuring {
            return;
        }
        if let Some(m) = self.monitor.as_deref_mut() {
            count(m.sampler.counts_at(now));
        }
    }

    /// Packet `pkt` left at `now` and arrives at `at` ([`Propagating::push`]): the next two
    /// packets to arrive before it, for the caller to prefetch. With thousands of flows a packet's
    /// cache line is long evicted when it reaches the far end of a link with a propagation delay;
    /// on a busy link the next arrival is at most a transmission time away and the one after it
    /// two, so loading them now overlaps the wait with the events in between. A link without
    /// delay delivers a packet while it is still in cache: nothing to track there; one that keeps
    /// its packets in propagation in order ([`Propagation::InOrder`]) tracks them already.
    #[inline]
    pub fn propagate(
        &mut self,
        now: Time,
        at: Time,
        pkt: PacketId,
    ) -> (Option<PacketId>, Option<PacketId>) {
        match &mut self.propagation {
            // `pkt`, just sent, is the first in propagation or the last behind it.
            Propagation::InOrder { first, behind } => match behind.len() {
                0 => (None, None),
                1 => (*first, None),
                _ => (*first, Some(behind[0].2)),
            },
            Propagation::Untracked => (None, None),
            Propagation::Tracked(propagating) => propagating.push(now, at, pkt),
        }
    }

    /// Take the queue log's samples due at or before `now`.
    #[inline(never)]
    fn sample(&mut self, now: Time) {
        let q = self.state();
        if let Some(m) = self.monitor.as_deref_mut() {
            m.sampler.observe(now, q);
        }
    }

    /// The link as the warm-up ends at `now` ([`AtWarmup`]): its length accounted to `now`, its
    /// counters, and how much of the packet in transmission, if any (`in_tx_size` IP bytes), was
    /// sent before `now`.
    pub fn at_warmup(&mut self, now: Time, in_tx_size: Option<u32>) -> AtWarmup {
        self.before_change(now);
        // The part of the packet in transmission already sent, rounded up.
        let started = self.tx_started;
        let sent =
            |bytes: u64, tx: Time| bytes - measure::pro_rata(bytes, tx - (now - started), tx);
        let (in_tx_bytes, in_tx_wire_bytes) = match in_tx_size {
            Some(size) => {
                let (wire, tx) = (self.tx.wire_bytes(size), self.tx.time(size));
                (sent(u64::from(size), tx), sent(wire, tx))
            }
            None => (0, 0),
        };
        AtWarmup {
            counters: self.counters,
            queued_pkts: self.qdisc.len_pkts(),
            in_tx_bytes,
            in_tx_wire_bytes,
            in_tx_started: in_tx_size.map(|_| started),
        }
    }

    /// When the transmission now going on began, if one is.
    pub fn sending_since(&self) -> Option<Time> {
        self.in_tx.map(|_| self.tx_started)
    }

    /// Close the link's measurement at `end`: its length integrated to `end` and, on a monitored
    /// link, the queue log's last interval.
    pub fn close(&mut self, end: Time) {
        let q = self.state();
        self.counters.integrate(end, q.pkts, q.bytes);
        if let Some(m) = self.monitor.as_deref_mut() {
            m.sampler.finish(end, q);
        }
    }

    /// The queue as it stands.
    pub fn state(&self) -> QueueState {
        QueueState {
            pkts: self.qdisc.len_pkts(),
            bytes: self.qdisc.len_bytes(),
            aqm: self.qdisc.aqm_state(),
        }
    }
}

/// The addresses hosts have on the wire, in packet traces and in live mode (`aqmlab-live`):
/// server `i` is `10.1.hi.lo` and client `i` is `10.2.hi.lo`, where `hi.lo` is `i + 1` in two
/// bytes (up to 65,535 hosts a side); `node` is a dumbbell node id (servers first).
///
/// ```
/// use aqmlab_sim::network::{host_address, host_at};
/// assert_eq!(host_address(3, 0), [10, 1, 0, 1]);
/// assert_eq!(host_address(3, 3 + 256), [10, 2, 1, 1]);
/// assert_eq!(host_at(3, [10, 2, 1, 1]), Some(3 + 256));
/// assert_eq!(host_at(3, [10, 1, 0, 0]), None);
/// ```
pub fn host_address(servers: u32, node: u32) -> [u8; 4] {
    if node < servers {
        side_address(true, node)
    } else {
        side_address(false, node - servers)
    }
}

/// [`host_address`] of a host given by its side (`server` or client) and its index there.
pub fn side_address(server: bool, index: u32) -> [u8; 4] {
    address(if server { SERVERS } else { CLIENTS }, index)
}

/// The "side" byte of servers', clients' and other hosts' addresses ([`Net::host_address`]).
const SERVERS: u8 = 1;
const CLIENTS: u8 = 2;
const OTHER_HOSTS: u8 = 3;

/// `10.side.hi.lo`, where `hi.lo` is `index + 1`.
fn address(side: u8, index: u32) -> [u8; 4] {
    debug_assert!(index < MAX_HOSTS_A_SIDE);
    let [_, _, hi, lo] = (index + 1).to_be_bytes();
    [10, side, hi, lo]
}

/// The node [`host_address`] gives `addr`, if it gives one (whether that host exists is the
/// caller's to check).
pub fn host_at(servers: u32, addr: [u8; 4]) -> Option<u32> {
    let i = u32::from(u16::from_be_bytes([addr[2], addr[3]])).checked_sub(1)?;
    match addr[..2] {
        [10, 1] if i < servers => Some(i),
        [10, 2] => Some(servers + i),
        _ => None,
    }
}

/// The hosts' most addresses a side [`host_address`] can give.
pub const MAX_HOSTS_A_SIDE: u32 = 65_535;

/// A host's Ethernet address in packet traces (locally administered: `02:00:00:side:hi:lo`).
pub fn host_mac(servers: u32, node: u32) -> [u8; 6] {
    let (side, i) = if node < servers {
        (1, node)
    } else {
        (2, node - servers)
    };
    let [_, _, hi, lo] = i.to_be_bytes();
    [0x02, 0, 0, side, hi, lo]
}

/// The routers' Ethernet addresses in packet traces: router `k` (counted from 0 after the
/// hosts) is `02:00:00:00:hi:lo`, `hi.lo` = `k + 1`; the dumbbell's R1 and R2 are the first two.
pub fn router_mac(k: u32) -> [u8; 6] {
    let [_, _, hi, lo] = (k + 1).to_be_bytes();
    [0x02, 0, 0, 0, hi, lo]
}
pub const R1_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 1];
pub const R2_MAC: [u8; 6] = [0x02, 0, 0, 0, 0, 2];

/// The dumbbell: servers behind R1, clients behind R2 (docs/scenario.md), as `[topology]`
/// describes it (the default `kind`).
#[derive(Clone, Debug, Serialize)]
pub struct DumbbellSpec {
    pub servers: u32,
    pub clients: u32,
    pub bottleneck: LinkSpec,
    pub access: AccessSpec,
    pub pair_delay: PairDelay,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct LinkSpec {
    pub rate: Rate,
    pub delay: Time,
    pub framing: Framing,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct AccessSpec {
    pub rate: Rate,
    pub delay: Time,
    pub queue: QueueLimit,
    pub framing: Framing,
}

/// Resolved framing is `"none"` or its numbers: `"ethernet"` is recorded as what it means,
/// `{ overhead = "38B", min_payload = "46B" }`, so equal links resolve alike however written.
impl Serialize for Framing {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        if *self == Framing::NONE {
            return s.serialize_str("none");
        }
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("overhead", &Size(u64::from(self.overhead)))?;
        m.serialize_entry("min_payload", &Size(u64::from(self.min_payload)))?;
        m.end()
    }
}

/// Extra one-way delay per (client, server) machine pair, like a dummynet pipe.
#[derive(Clone, Debug)]
pub enum PairDelay {
    Constant(Time),
    /// Entry `c · servers + s` for client `c`, server `s`.
    List(Vec<Time>),
    /// Drawn once per pair, uniform on `[min, max]` ns, from stream `topology.pair_delay`.
    Uniform {
        min: Time,
        max: Time,
    },
}

impl Serialize for PairDelay {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            PairDelay::Constant(t) => t.serialize(s),
            PairDelay::List(ts) => ts.serialize(s),
            PairDelay::Uniform { min, max } => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("dist", "uniform")?;
                m.serialize_entry("min", min)?;
                m.serialize_entry("max", max)?;
                m.end()
            }
        }
    }
}

impl DumbbellSpec {
    /// The mean base round-trip time over the (client, server) pairs: twice the one-way
    /// propagation delay of the bottleneck, two access links and the pair's extra delay (uniform
    /// pair delays at their mean); no transmission or queueing time. The RTT of a queue's `"bdp"`.
    pub fn mean_base_rtt(&self) -> Time {
        let pair_ns: f64 = match &self.pair_delay {
            PairDelay::Constant(t) => t.0 as f64,
            PairDelay::List(ts) => {
                ts.iter().map(|t| t.0 as f64).sum::<f64>() / ts.len().max(1) as f64
            }
            PairDelay::Uniform { min, max } => (min.0 as f64 + max.0 as f64) / 2.0,
        };
        let one_way = self.bottleneck.delay.0 as f64 + 2.0 * self.access.delay.0 as f64 + pair_ns;
        Time((2.0 * one_way).round() as u64)
    }
}

/// The dumbbell's hosts and the extra delay of each (client, server) pair, drawn for a run.
/// Node ids: servers `0..S`, clients `S..S+C`, R1 = `S + C`, R2 = `S + C + 1` (the numbering of
/// the dumbbell's expansion into nodes and links, `scenario/topology.rs`).
#[derive(Clone, Debug)]
pub struct Dumbbell {
    pub servers: u32,
    pub clients: u32,
    /// Extra one-way delay of pair (client c, server s) at `c · servers + s`.
    pub pair_delay: Vec<Time>,
}

impl Dumbbell {
    /// The shape of topology `t`; uniform pair delays draw from `topology.pair_delay`.
    pub fn new(t: &DumbbellSpec, seed: u64) -> Dumbbell {
        let pairs = (t.servers * t.clients) as usize;
        let pair_delay = match &t.pair_delay {
            PairDelay::Constant(d) => vec![*d; pairs],
            PairDelay::List(ds) => ds.clone(),
            PairDelay::Uniform { min, max } => {
                let mut rng = Rng::stream(seed, "topology.pair_delay");
                (0..pairs)
                    .map(|_| Time(rng.uniform_u64(min.0, max.0)))
                    .collect()
            }
        };
        Dumbbell {
            servers: t.servers,
            clients: t.clients,
            pair_delay,
        }
    }

    pub fn hosts(&self) -> u32 {
        self.servers + self.clients
    }
    pub fn r1(&self) -> u32 {
        self.hosts()
    }
    pub fn r2(&self) -> u32 {
        self.hosts() + 1
    }
    pub fn is_server(&self, node: u32) -> bool {
        node < self.servers
    }

    /// A host's name: `s0`, `c3`.
    pub fn host_name(&self, node: u32) -> String {
        if self.is_server(node) {
            format!("s{node}")
        } else {
            format!("c{}", node - self.servers)
        }
    }

    /// The extra one-way delay every (client, server) pair has, if they all have the same (a
    /// constant, or a list or draw of equal ones).
    pub fn same_pair_delay(&self) -> Option<Time> {
        let first = *self.pair_delay.first()?;
        self.pair_delay.iter().all(|&d| d == first).then_some(first)
    }

    /// The extra one-way delay between hosts `a` and `b` (one a server, one a client).
    pub fn pair_delay(&self, a: u32, b: u32) -> Time {
        let (s, c) = if self.is_server(a) { (a, b) } else { (b, a) };
        self.pair_delay[((c - self.servers) * self.servers + s) as usize]
    }
}

/// One one-way link of a [`Net`].
#[derive(Clone, Debug)]
pub struct NetLink {
    /// Its name in outputs, in `[capture]` and in its queue's random stream (`queue.<name>`).
    pub name: String,
    pub from: u32,
    pub to: u32,
    pub rate: Rate,
    pub delay: Time,
    pub framing: Framing,
    pub queue: QueueSpec,
    /// Whether its queue and throughput are logged (the `queue` and `link` tables, a summary
    /// section of its name).
    pub monitored: bool,
}

/// The network a run simulates, in the one form every topology becomes: named nodes, one-way
/// links with their queues, and the forwarding tables ([`Routes`]). Built by the scenario
/// (`scenario/graph.rs`) before any run; nothing in it depends on the seed.
#[derive(Clone, Debug)]
pub struct Net {
    /// Node names by node id: hosts first (`0..hosts`), then routers.
    pub nodes: Vec<String>,
    pub hosts: u32,
    /// The one-way links by link id.
    pub links: Vec<NetLink>,
    pub routes: Routes,
    /// The hosts a traffic group's flows run between unless it names its own, (servers,
    /// clients): those of a named topology (`[topology]`); none for `[[node]]`s and `[[link]]`s.
    pub servers: Vec<u32>,
    pub clients: Vec<u32>,
    /// The dumbbell's pair delays, when the net is the dumbbell's.
    pub dumbbell: Option<DumbbellSpec>,
}

impl Net {
    /// Every node's id by name (for set-up: a map built here).
    pub fn ids(&self) -> std::collections::BTreeMap<&str, u32> {
        (self.nodes.iter().enumerate())
            .map(|(i, n)| (n.as_str(), i as u32))
            .collect()
    }

    /// Each host's addresses on the wire (packet traces), by node id: a host of the default
    /// servers is `10.1.hi.lo` and one of the default clients `10.2.hi.lo`, `hi.lo` its position
    /// there plus 1 ([`host_address`] on the dumbbell); any other host `10.3.hi.lo`, `hi.lo` its
    /// node id plus 1. Its Ethernet address is `02:00:00:side:hi:lo`, `hi.lo` the position or
    /// node id itself ([`host_mac`] on the dumbbell).
    pub fn host_addresses(&self) -> Vec<([u8; 4], [u8; 6])> {
        let mut at: Vec<(u8, u32)> = (0..self.hosts).map(|h| (OTHER_HOSTS, h)).collect();
        for (side, list) in [(CLIENTS, &self.clients), (SERVERS, &self.servers)] {
            for (i, &h) in list.iter().enumerate() {
                at[h as usize] = (side, i as u32);
            }
        }
        at.into_iter()
            .map(|(side, i)| {
                let [_, _, hi, lo] = i.to_be_bytes();
                (address(side, i), [0x02, 0, 0, side, hi, lo])
            })
            .collect()
    }
}

/// A [`Net`] as one run has it: each host's clock phase and the dumbbell's pair delays, drawn
/// for the run's seed.
#[derive(Clone, Debug)]
pub struct Topo {
    pub net: Net,
    /// Each host's clock phase: its timer ticks fall at `phase + k·tick` (hosts boot at random
    /// times; ns-2 draws `boot_time_` per agent, BSD hosts run free-running tick counters), from
    /// the stream `host.<name>.clock`.
    pub clock_phase: Vec<Time>,
    pub dumbbell: Option<Dumbbell>,
}

impl Topo {
    pub fn new(net: &Net, seed: u64) -> Topo {
        let clock_phase = (0..net.hosts as usize)
            .map(|h| {
                let mut rng = Rng::stream(seed, &format!("host.{}.clock", net.nodes[h]));
                Time(rng.uniform_u64(0, 9_999_999_999))
            })
            .collect();
        Topo {
            net: net.clone(),
            clock_phase,
            dumbbell: net.dumbbell.as_ref().map(|d| Dumbbell::new(d, seed)),
        }
    }

    /// A host's name in outputs (`s0`, `c3` on the dumbbell).
    pub fn host_name(&self, node: u32) -> String {
        self.net.nodes[node as usize].clone()
    }

    /// The link a packet for host `dst` leaves `node` on.
    #[inline(always)]
    pub fn next_link(&self, node: u32, dst: u32) -> u32 {
        self.net.routes.next(node, dst)
    }

    /// The extra one-way delay between hosts `a` and `b` (the dumbbell's pair delay; none
    /// elsewhere).
    pub fn pair_delay(&self, a: u32, b: u32) -> Time {
        self.dumbbell
            .as_ref()
            .map_or(Time::ZERO, |d| d.pair_delay(a, b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// Two servers, three clients; only the pair delays matter to the dumbbell's shape.
    fn dumbbell(pair_delay: PairDelay) -> Dumbbell {
        let link = LinkSpec {
            rate: Rate(10_000_000),
            delay: Time::ZERO,
            framing: Framing::NONE,
        };
        let access = AccessSpec {
            rate: Rate(100_000_000),
            delay: Time::ZERO,
            queue: QueueLimit::Packets(1000),
            framing: Framing::NONE,
        };
        let topology = DumbbellSpec {
            servers: 2,
            clients: 3,
            bottleneck: link,
            access,
            pair_delay,
        };
        Dumbbell::new(&topology, 1)
    }

    /// A link of 8 Gbps (1 ns per byte) and `delay`, to node 7, holding its packets in
    /// propagation if `in_order`.
    fn link(delay: Time, in_order: bool) -> Link {
        let mut l = Link::new(
            "l".to_string(),
            7,
            Transmitter::new(Rate(8_000_000_000), Framing::NONE),
            delay,
            ArrivalDelay::Fixed,
            AnyQdisc::DropTail(crate::queue::DropTail::new(QueueLimit::Packets(10))),
            Rng::stream(1, "queue.l"),
        );
        l.propagation = if in_order {
            Propagation::in_order()
        } else {
            Propagation::Untracked
        };
        l
    }

    /// Packets held in propagation ([`Propagation::InOrder`]) arrive when they would as events of
    /// their own, among other events at the same times (scheduled before and after them, and
    /// reserved before them) and with the link idle at times (no packet in propagation); the next
    /// ones to arrive, for prefetching, are those [`Propagating`] finds.
    #[test]
    fn packets_held_in_propagation_arrive_in_the_order_of_events() {
        // What happens, in order: (time, 700 + packet k arriving at node 7, or 1000 + k for an
        // event at the same time reserved before k was sent, 2000 + k for one scheduled after).
        let run = |in_order: bool| {
            let mut l = link(Time(5_000), in_order);
            let mut events = EventQueue::new();
            let mut propagating = Propagating::default();
            // Packet k is sent at `starts[k]` ns and takes `sizes[k]` ns to send.
            let starts = [0u64, 600, 1200, 1300, 2000, 9000, 20_000, 20_100, 20_700];
            let sizes = [500u32, 100, 100, 700, 40, 500, 100, 600, 300];
            for (k, &t) in starts.iter().enumerate() {
                events.schedule(Time(t), Event::Source { source: k as u32 });
            }
            let mut order = Vec::new();
            while let Some((now, e)) = events.pop() {
                match e {
                    Event::Source { source: k } if k < 1000 => {
                        let early = events.reserve();
                        let at =
                            l.transmit(0, now, k, sizes[k as usize], false, &mut events, || {
                                unreachable!("no pair's delay")
                            });
                        if in_order {
                            let next = l.propagate(now, at, k);
                            assert_eq!(next, propagating.push(now, at, k), "packet {k}");
                        }
                        events.schedule_reserved(at, early, Event::Source { source: 1000 + k });
                        events.schedule(at, Event::Source { source: 2000 + k });
                    }
                    Event::Source { source } => order.push((now.0, source)),
                    Event::Arrive { node, pkt } => order.push((now.0, pkt + 100 * node)),
                    Event::ArriveInOrder { link, pkt } => {
                        assert_eq!(link, 0);
                        l.arrived(link, &mut events);
                        order.push((now.0, pkt + 100 * l.to));
                    }
                    _ => unreachable!(),
                }
            }
            assert!(events.is_empty());
            if let Propagation::InOrder { first, behind } = &l.propagation {
                assert!(behind.is_empty() && first.is_none());
            }
            order
        };
        let plain = run(false);
        assert_eq!(plain.len(), 3 * 9);
        assert_eq!(&plain[..3], &[(5_500, 1000), (5_500, 700), (5_500, 2000)]);
        assert_eq!(run(true), plain);
    }

    #[test]
    fn the_next_packets_to_arrive_are_the_oldest_ones_still_propagating() {
        let ms = Time::from_millis;
        let mut p = Propagating::default();
        // Packets 7, 8, 9, 3 leave 1 ms apart and arrive 10 ms later.
        assert_eq!(p.push(ms(0), ms(11), 7), (None, None));
        assert_eq!(p.push(ms(1), ms(12), 8), (Some(7), None));
        assert_eq!(p.push(ms(2), ms(13), 9), (Some(7), Some(8)));
        assert_eq!(p.push(ms(11), ms(22), 3), (Some(8), Some(9))); // 7 has arrived
        assert_eq!(p.push(ms(22), ms(33), 4), (None, None)); // 8, 9 and 3 too
        assert_eq!(p.0.len(), 1);
    }

    #[test]
    fn dumbbell_hosts_are_named_by_side() {
        let d = dumbbell(PairDelay::Constant(Time::ZERO));
        assert_eq!((d.r1(), d.r2()), (5, 6));
        let names: Vec<String> = (0..d.hosts()).map(|h| d.host_name(h)).collect();
        assert_eq!(names, ["s0", "s1", "c0", "c1", "c2"]);
    }

    #[test]
    fn ethernet_framing_pads_and_adds_its_overhead() {
        let e = Framing::ETHERNET;
        // 1500 + 38; 1000 + 38; a 40 B ACK is padded to 46, then + 38 = 84 (a 64 B minimum frame
        // plus 8 B preamble/SFD and 12 B gap).
        assert_eq!(
            [e.wire_bytes(1500), e.wire_bytes(1000), e.wire_bytes(40)],
            [1538, 1038, 84]
        );
        assert_eq!(e.wire_bytes(46), 84);
        assert_eq!(Framing::NONE.wire_bytes(40), 40);
    }

    #[test]
    fn a_transmitter_times_every_size_as_its_rate_and_framing_say() {
        // 10 Mbps Ethernet: 1538 B take 1,230,400 ns, a 40 B ACK 84 B = 67,200 ns. Sizes
        // alternate, repeat and start at 0 (the size the transmitter is made with).
        let mut tx = Transmitter::new(Rate(10_000_000), Framing::ETHERNET);
        for size in [0, 1500, 1500, 40, 1500, 0, 40, 40, 1] {
            let want = Rate(10_000_000).tx_time(Framing::ETHERNET.wire_bytes(size));
            assert_eq!(tx.time(size), want, "{size} B");
        }
        assert_eq!(tx.time(1500), Time(1_230_400));
        assert_eq!(tx.time(40), Time(67_200));
        // Without framing, 3 bps: 1 B is 8/3 s, rounded up.
        assert_eq!(
            Transmitter::new(Rate(3), Framing::NONE).time(1),
            Time(2_666_666_667)
        );
    }

    #[test]
    fn a_pair_delay_is_shared_only_when_every_pair_has_the_same() {
        let ms = Time::from_millis;
        let same = |pd| dumbbell(pd).same_pair_delay();
        assert_eq!(same(PairDelay::Constant(ms(15))), Some(ms(15)));
        assert_eq!(same(PairDelay::List(vec![ms(4); 6])), Some(ms(4)));
        let mut list = vec![ms(4); 6];
        list[5] = ms(5); // the last pair differs
        assert_eq!(same(PairDelay::List(list)), None);
        let equal = PairDelay::Uniform {
            min: ms(7),
            max: ms(7),
        };
        assert_eq!(same(equal), Some(ms(7)));
        let drawn = PairDelay::Uniform {
            min: ms(7),
            max: ms(9),
        };
        assert_eq!(same(drawn), None);
    }

    #[test]
    fn pair_delays_index_client_major() {
        let list: Vec<Time> = (0..6).map(Time::from_millis).collect();
        let d = dumbbell(PairDelay::List(list));
        // client 2, server 1 → entry 2·2 + 1 = 5.
        assert_eq!(d.pair_delay(2 + 2, 1), Time::from_millis(5));
        assert_eq!(d.pair_delay(1, 2 + 2), Time::from_millis(5));
        let u = dumbbell(PairDelay::Uniform {
            min: Time::from_millis(7),
            max: Time::from_millis(9),
        });
        assert!(u
            .pair_delay
            .iter()
            .all(|t| (Time::from_millis(7)..=Time::from_millis(9)).contains(t)));
        assert!(u.pair_delay.windows(2).any(|w| w[0] != w[1]));
    }
}
