//! The network part of a run: the links with their queues, the packets on their way
//! and the packet traces of the links `[capture]` names. It moves a packet from the queue of the
//! link it is offered to onto the wire, and counts what happens to it; the TCP connections a drop
//! is counted against are lent to it for the call ([`Connections`], which it defines and the TCP
//! traffic owns), so it uses nothing of the TCP traffic or the applications above it.

use super::capture::Captures;
use super::hops::{ConnDrops, FlowPaths, Way};
use crate::event::{Event, EventQueue};
use crate::measure::{IntervalCounts, QueueSampler, ThroughputBins};
use crate::network::{ArrivalDelay, Link, Monitor, NetLink, Topo, Transmitter};
use crate::packet::{Ecn, Packet, PacketArena, PacketId, Proto};
use crate::queue::config::{FlowRule, QueueSpec};
use crate::queue::{
    AnyQdisc, Bernoulli, Codel, Departure, DropReason, DropTail, FqCodel, MarkReason, Pie,
    QueueDisc, Red, Scripted, Target, Verdict,
};
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::tcp::TcpConfig;
use crate::traffic::config::TrafficKind;
use crate::traffic::udp::FlowCounters;
use crate::traffic::{App, Connection, Outcome};
use crate::units::Time;
use std::io;
use std::path::Path;

/// The size of the per-packet and per-connection state above which the simulation prefetches what
/// the next events will read ([`crate::cache`]): 1 MiB, the L2 cache of one core of the machines
/// measured (docs/performance.md, "cache misses at 10,000 flows"). Below it everything stays in
/// cache and a prefetch only costs instructions; no result depends on it.
const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

/// The links, the packets, the UDP flows' counters and the captures.
pub(crate) struct Network {
    pub topo: Topo,
    /// By link id (`topo.net.links`).
    pub links: Vec<Link>,
    pub packets: PacketArena,
    /// Each UDP flow's counters: packets sent into the network (counted by the sources), dropped
    /// in it, and delivered (counted by the sinks).
    pub udp: Vec<FlowCounters>,
    /// Each UDP flow's path and its drops at each hop.
    pub udp_paths: FlowPaths,
    /// The TCP connections' drops at each link.
    pub tcp_drops: ConnDrops,
    /// Whether the warm-up has ended: the bottleneck's links then count into the queue table's
    /// intervals and their throughput bins, and drops into the hops table.
    pub measuring: bool,
    /// Whether packets' next reads are prefetched: [`Network::outgrows_cache`] as of the last
    /// check of the limits (a hint only, no result depends on it).
    pub prefetching: bool,
    /// Packet traces being written (`[capture]`, once `Simulation::capture_to` is called).
    pub capture: Option<Box<Captures>>,
}

/// The TCP connections, as the network meets them: a dropped packet is counted against its
/// connection, a capture reads the connection a packet belongs to, and prefetching loads it. The
/// TCP traffic owns them ([`TcpTraffic`](super::tcp::TcpTraffic)); the network is lent them for a
/// call, one reference.
#[derive(Default)]
pub(crate) struct Connections {
    /// Every connection slot (web connections' slots are reused: `free`).
    pub all: Vec<Connection>,
    /// Slots given up (web connections done with: [`Connections::recycle_if_done`]).
    pub free: Vec<u32>,
    /// The TCP configurations of the traffic groups, which connections' ends name by index.
    pub cfgs: Vec<TcpConfig>,
}

impl Connections {
    /// A logged, finished web connection `c` with no packets left in flight gives up its slot.
    pub fn recycle_if_done(&mut self, c: u32) {
        let conn = &mut self.all[c as usize];
        if let App::Web(pair) = conn.app {
            if pair.logged && conn.outcome != Outcome::Open && conn.in_flight() == 0 {
                conn.app = App::Free;
                self.free.push(c);
            }
        }
    }
}

fn make_qdisc(spec: &QueueSpec, scenario: &Scenario, conns: &[Connection]) -> AnyQdisc {
    match spec {
        QueueSpec::DropTail { limit } => AnyQdisc::DropTail(DropTail::new(*limit)),
        QueueSpec::Bernoulli { p, ecn, limit } => {
            AnyQdisc::Bernoulli(Bernoulli::new(*p, *ecn, *limit))
        }
        QueueSpec::Red(red) => AnyQdisc::Red(Box::new(Red::new(red))),
        QueueSpec::Codel(c) => AnyQdisc::Codel(Codel::new(*c)),
        QueueSpec::Pie(p) => AnyQdisc::Pie(Pie::new(*p)),
        QueueSpec::FqCodel(f) => AnyQdisc::FqCodel(FqCodel::new(*f)),
        QueueSpec::Scripted { limit, drops } => {
            let rules = drops.iter().map(|FlowRule { group, flow, rule }| {
                let group = scenario
                    .traffic
                    .iter()
                    .position(|t| &t.name == group)
                    .expect("validated");
                let c = conns
                    .iter()
                    .position(|c| c.group as usize == group && c.index == *flow)
                    .expect("validated");
                let TrafficKind::Ftp { tcp, .. } = &scenario.traffic[group].kind else {
                    unreachable!("validated: scripted rules name TCP groups")
                };
                let target = Target {
                    conn: c as u32,
                    sender_is_opener: conns[c].data_sender == 0,
                    mss: tcp.mss.bytes(),
                };
                (target, *rule)
            });
            AnyQdisc::Scripted(Scripted::new(rules, *limit))
        }
    }
}

/// The run's links, by link id: each built as [`link`] builds it, a pair's extra delay (the
/// dumbbell's listed or drawn one) added where a packet reaches its host — the same for every
/// pair, it is simply part of the router → host link's delay.
fn build_links(s: &Scenario, topo: &Topo, seed: u64, conns: &[Connection]) -> Vec<Link> {
    let same_pair_delay = topo.dumbbell.as_ref().map(|d| d.same_pair_delay());
    topo.net
        .links
        .iter()
        .map(|spec| {
            let to_host = spec.to < topo.net.hosts;
            let (delay, arrival_delay) = match same_pair_delay {
                Some(Some(d)) if to_host => (spec.delay + d, ArrivalDelay::Fixed),
                Some(None) if to_host => (spec.delay, ArrivalDelay::PlusPairDelay),
                _ => (spec.delay, ArrivalDelay::Fixed),
            };
            link(s, spec, delay, arrival_delay, seed, conns)
        })
        .collect()
}

/// One-way link `spec` (its packets arriving `delay` after their transmission, plus what
/// `arrival_delay` adds), monitored if it is logged as the scenario's `[measure]` says; its queue
/// draws from the stream `queue.<name>` of `seed` and names `conns` (a scripted queue).
fn link(
    s: &Scenario,
    spec: &NetLink,
    delay: Time,
    arrival_delay: ArrivalDelay,
    seed: u64,
    conns: &[Connection],
) -> Link {
    let mut link = Link::new(
        spec.name.clone(),
        spec.to,
        Transmitter::new(spec.rate, spec.framing),
        delay,
        arrival_delay,
        make_qdisc(&spec.queue, s, conns),
        Rng::stream(seed, &format!("queue.{}", spec.name)),
    );
    if spec.monitored {
        link.monitor = Some(Box::new(Monitor {
            sampler: QueueSampler::new(s.measure.queue_sample, s.measure.queue_interval, s.warmup),
            throughput: ThroughputBins::new(s.measure.link_interval, s.warmup),
        }));
    }
    link
}

/// The one-way link named `name` (the dumbbell's `"forward"`, R1 → R2, queued by `[queue]`, or
/// `"reverse"`, by `[reverse_queue]`), as a run builds it (its queue drawing from the stream
/// `queue.<name>` of `seed`): the live router's (`aqmlab-live`), which passes no connections (a
/// scripted queue needs simulated ones: it refuses those) and runs no network with pair delays
/// on the bottleneck.
pub fn bottleneck(s: &Scenario, name: &str, seed: u64, conns: &[Connection]) -> Link {
    let spec = s
        .net
        .links
        .iter()
        .find(|l| l.name == name)
        .expect("a link of the scenario's network");
    link(s, spec, spec.delay, ArrivalDelay::Fixed, seed, conns)
}

impl Network {
    /// The links of `scenario`'s network `topo` (their queues drawing from `seed`'s streams; a
    /// scripted queue names `conns`), their queues' timers scheduled on `events`, carrying UDP
    /// flows between the hosts `udp_ends` (source, destination).
    pub fn new(
        scenario: &Scenario,
        topo: Topo,
        seed: u64,
        conns: &[Connection],
        udp_ends: impl ExactSizeIterator<Item = (u32, u32)>,
        events: &mut EventQueue,
    ) -> Network {
        let links = build_links(scenario, &topo, seed, conns);
        for (l, link) in links.iter().enumerate() {
            if let Some(t) = link.qdisc.next_timer() {
                events.schedule(t, Event::QdiscTimer { link: l as u32 });
            }
        }
        let udp = vec![FlowCounters::default(); udp_ends.len()];
        let udp_paths = FlowPaths::new(udp_ends, &topo);
        let tcp_drops = ConnDrops::new(links.len());
        Network {
            topo,
            links,
            packets: PacketArena::default(),
            udp,
            udp_paths,
            tcp_drops,
            measuring: false,
            prefetching: false,
            capture: None,
        }
    }

    /// Whether the state that packets touch (the connections, `conns` of them, and the packet
    /// arena) has outgrown [`PREFETCH_ABOVE_BYTES`]: below it, it stays in cache, and prefetching
    /// costs instructions without saving a wait. Checked with the limits (`prefetching`), not per
    /// packet.
    pub fn outgrows_cache(&self, conns: usize) -> bool {
        conns * std::mem::size_of::<Connection>()
            + self.packets.slots() * std::mem::size_of::<Packet>()
            > PREFETCH_ABOVE_BYTES
    }

    /// Packet `pkt` reaches router `node` at `now`, not its destination `dst`: offer it to the
    /// next link on its way.
    #[inline(always)]
    pub fn forward(
        &mut self,
        node: u32,
        dst: u32,
        pkt: PacketId,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        if self.prefetching {
            self.prefetch_delivery(node, pkt, &conns.all);
        }
        self.enqueue(self.topo.next_link(node, dst), pkt, now, events, conns);
    }

    /// Host `src` sends packet `pkt` for host `dst` at `now`: offer it to the link it leaves on.
    #[inline(always)]
    pub fn send(
        &mut self,
        src: u32,
        dst: u32,
        pkt: PacketId,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        self.enqueue(self.topo.next_link(src, dst), pkt, now, events, conns);
    }

    /// Packet `pkt` left on link `l` at `now` and reaches its far end at `at`; called while the
    /// state outgrows the cache (`prefetching`). The link keeps it among the packets
    /// in propagation ([`Link::propagate`]), and what the next two arrivals there will read is
    /// loaded: the connection the first one is delivered to next, if any, and the second packet
    /// (whose connection is loaded likewise a transmission later).
    #[inline]
    fn prefetch_arrivals(
        &mut self,
        l: u32,
        now: Time,
        at: Time,
        pkt: PacketId,
        conns: &[Connection],
    ) {
        let link = &mut self.links[l as usize];
        let (to, (next, after)) = (link.to, link.propagate(now, at, pkt));
        if let Some(next) = next {
            self.prefetch_delivery(to, next, conns);
        }
        if let Some(after) = after {
            self.packets.prefetch(after);
        }
    }

    /// Packet `pkt` reaches (or is about to reach) router `node`: if its host is next, start
    /// loading the connection it will be delivered to one link later, so that the wait overlaps
    /// with the events in between (a hint only: [`crate::cache`]). The packet, read here, was
    /// prefetched earlier ([`Link::propagate`]).
    #[inline]
    fn prefetch_delivery(&self, node: u32, pkt: PacketId, conns: &[Connection]) {
        let p = self.packets.get(pkt);
        if p.proto == Proto::Tcp && self.topo.net.routes.gateway(p.dst) == node {
            conns[p.flow as usize].prefetch_for_segment(usize::from(p.from_opener));
        }
    }

    /// Offer `pkt` to link `l`'s queue at `now`; start transmitting if the link is idle. A packet
    /// that would only pass through the queue of an idle link ([`QueueDisc::passes_idle`]) is
    /// counted in and out of it and sent, without being stored and taken back: the bookkeeping
    /// here is that of this function and [`Self::start_tx`] for a packet that waits 0 (keep the
    /// two alike).
    pub fn enqueue(
        &mut self,
        l: u32,
        pkt: PacketId,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        let mut link = &mut self.links[l as usize];
        // `catch_up`, written out to keep `link` at hand from here on (not looked up again):
        // only a dequeue needs the whole network, and an access link's drop-tail queue, empty
        // at a lazy end, needs none.
        if link.ended_unseen(now, events.current_seq()) {
            let end = link.end_tx(self.measuring);
            if link.needs_dequeue(end) {
                self.dequeue_and_send(l, end, now, events, conns);
                link = &mut self.links[l as usize];
            }
        }
        link.counters.arrivals += 1;
        let p = self.packets.get(pkt);
        if link.in_tx.is_none() && link.qdisc.passes_idle(p) {
            // Only a monitored link logs the passage: the others (every access link) test once.
            if link.monitor.is_some() {
                link.stays_empty(now);
                link.count_interval(self.measuring, now, |c| {
                    c.count_arrival();
                    c.count_departure(Time::ZERO);
                });
            }
            link.counters.enqueued += 1;
            link.counters.departures += 1;
            let topo = &self.topo;
            let at = link.transmit(l, now, pkt, p.size, false, events, || {
                topo.pair_delay(p.src, p.dst)
            });
            return self.on_wire(l, now, pkt, at, conns);
        }
        link.before_change(now);
        let verdict = link.qdisc.enqueue(pkt, p, now, &mut link.rng);
        link.count_interval(self.measuring, now, IntervalCounts::count_arrival);
        let link = match verdict {
            Verdict::Dropped(reason) => return self.count_drop(l, pkt, reason, false, now, conns),
            Verdict::Enqueued => link,
            Verdict::Marked(why) => {
                self.count_mark(l, pkt, why, now);
                &mut self.links[l as usize]
            }
            Verdict::DroppedFront { victim, reason } => {
                self.count_drop(l, victim, reason, true, now, conns);
                &mut self.links[l as usize]
            }
        };
        link.counters.enqueued += 1;
        self.packets.set_enqueued_at(pkt, now);
        if link.in_tx.is_none() {
            self.start_tx(l, now, now, events, conns);
        } else {
            // A packet now waits behind the one on the wire: its end becomes an event.
            link.schedule_tx_end(l, events);
        }
    }

    /// Account a packet dropped at link `l` to its flow or connection (and, while measuring, to
    /// where it was dropped: the `hops` table) and free it.
    fn drop_packet(&mut self, l: u32, pkt: PacketId, conns: &mut Connections) {
        let p = self.packets.get(pkt);
        match p.proto {
            Proto::Udp => {
                self.udp[p.flow as usize].dropped_pkts += 1;
                if self.measuring {
                    self.udp_paths.count(p.flow, l);
                }
            }
            Proto::Tcp => {
                let conn = &mut conns.all[p.flow as usize];
                conn.pkts_dropped += 1;
                if self.measuring {
                    if conn.app.is_web() {
                        self.tcp_drops.web[l as usize] += 1;
                    } else {
                        // `from_opener`: sent by the client end, `ends[0]`.
                        let side = usize::from(!p.from_opener);
                        let way = if side == conn.data_sender {
                            Way::Data
                        } else {
                            Way::Ack
                        };
                        self.tcp_drops.count(p.flow, way, l);
                    }
                }
            }
        }
        let (proto, flow) = (p.proto, p.flow);
        self.packets.free(pkt);
        if proto == Proto::Tcp {
            conns.recycle_if_done(flow);
        }
    }

    /// Take the next packet from link `l`'s queue at `at`, if any, and put it on the wire: its
    /// arrival at the far end is known at once; the end of its transmission is an event only if
    /// another packet waits behind it. `now`: the time of the event being handled.
    #[inline(always)]
    fn start_tx(
        &mut self,
        l: u32,
        at: Time,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        if self.links[l as usize].needs_dequeue(at) {
            self.dequeue_and_send(l, at, now, events, conns);
        }
    }

    /// The part of [`Self::start_tx`] that asks the queue for the next packet (its length
    /// already accounted up to `at`).
    #[inline(never)]
    fn dequeue_and_send(
        &mut self,
        l: u32,
        at: Time,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        let link = &mut self.links[l as usize];
        let next = link.qdisc.dequeue(at, &mut link.dequeue_drops);
        let link = if link.dequeue_drops.is_empty() {
            link
        } else {
            let mut dropped = std::mem::take(&mut link.dequeue_drops);
            for &(pkt, reason) in &dropped {
                self.count_drop(l, pkt, reason, true, now, conns);
            }
            dropped.clear();
            let link = &mut self.links[l as usize];
            link.dequeue_drops = dropped;
            link
        };
        let Some(Departure {
            id: pkt,
            size,
            mark,
        }) = next
        else {
            // The transmitter found nothing to send: the link is idle from now (RED's idle time).
            return link.qdisc.link_idle(at);
        };
        let link = match mark {
            None => link,
            Some(why) => {
                self.count_mark(l, pkt, why, now);
                &mut self.links[l as usize]
            }
        };
        // (A packet passed through an idle queue is counted as this one is, in `enqueue`.)
        let wait = at - self.packets.enqueued_at(pkt);
        link.count_interval(self.measuring, now, |c| c.count_departure(wait));
        link.counters.departures += 1;
        link.counters.wait_ns += u128::from(wait.0);
        let behind = link.qdisc.len_pkts() > 0;
        let (packets, topo) = (&self.packets, &self.topo);
        let arrives = link.transmit(l, at, pkt, size, behind, events, || {
            let p = packets.get(pkt);
            topo.pair_delay(p.src, p.dst)
        });
        self.on_wire(l, at, pkt, arrives, conns);
    }

    /// Packet `pkt` went on link `l`'s wire at `now` ([`Link::transmit`]) and arrives at `at`:
    /// capture it, if capturing, and (while prefetching) start loading what its arrival reads.
    #[inline(always)]
    fn on_wire(&mut self, l: u32, now: Time, pkt: PacketId, at: Time, conns: &Connections) {
        if let Some(c) = self.capture.as_deref_mut() {
            let routes = &self.topo.net.routes;
            c.record(
                l,
                now,
                self.packets.get(pkt),
                routes,
                &conns.all,
                &conns.cfgs,
            );
        }
        if self.prefetching {
            self.prefetch_arrivals(l, now, at, pkt, &conns.all);
        }
    }

    /// Count a packet link `l`'s queue dropped — the arrival itself, or (`from_queue`) one it
    /// held: a drop-front victim or a dequeue-time drop, also counted in `front_drops` — in the
    /// counters and the queue table's interval at `now`, and free it. A dropped packet counts its
    /// own size.
    fn count_drop(
        &mut self,
        l: u32,
        pkt: PacketId,
        reason: DropReason,
        from_queue: bool,
        now: Time,
        conns: &mut Connections,
    ) {
        let link = &mut self.links[l as usize];
        let size = u64::from(self.packets.get(pkt).size);
        link.counters.drops[reason.index()] += 1;
        link.counters.drop_bytes[reason.index()] += size;
        if from_queue {
            link.counters.front_drops += 1;
        }
        link.count_interval(self.measuring, now, |c| c.count_drop(size, reason));
        self.drop_packet(l, pkt, conns);
    }

    /// Count a packet link `l`'s queue marked CE (on arrival or at dequeue), and mark it.
    fn count_mark(&mut self, l: u32, pkt: PacketId, why: MarkReason, now: Time) {
        let p = self.packets.get_mut(pkt);
        let size = u64::from(p.size);
        p.ecn = Ecn::Ce;
        let link = &mut self.links[l as usize];
        link.counters.marks[why.index()] += 1;
        link.counters.mark_bytes[why.index()] += size;
        link.count_interval(self.measuring, now, |c| c.count_mark(size));
    }

    /// Link `l`'s transmission ends (at `tx_ends`): count it, and start the next one. Inlined
    /// (the dequeue itself stays out of line): it is a few counters and a test of the queue.
    /// [`Self::enqueue`] finishes the lazy ends it finds itself, with the same steps.
    #[inline(always)]
    pub fn tx_done(&mut self, l: u32, now: Time, events: &mut EventQueue, conns: &mut Connections) {
        let end = self.links[l as usize].end_tx(self.measuring);
        self.start_tx(l, end, now, events, conns);
    }

    /// Finish link `l`'s transmission if it ended before `until` without an event of its own
    /// ([`Link::ended_unseen`]): the link then found its queue empty and went idle at `tx_ends`.
    #[inline(always)]
    pub fn catch_up(
        &mut self,
        l: u32,
        until: Time,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        if self.links[l as usize].ended_unseen(until, events.current_seq()) {
            self.tx_done(l, now, events, conns);
        }
    }

    /// [`Self::catch_up`] on every link.
    pub fn catch_up_all(
        &mut self,
        until: Time,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        for l in 0..self.links.len() as u32 {
            self.catch_up(l, until, now, events, conns);
        }
    }

    /// A queue discipline's own timer (Adaptive RED on Linux's 500 ms clock) on link `l`.
    pub fn qdisc_timer(
        &mut self,
        l: u32,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        self.catch_up(l, now, now, events, conns);
        let link = &mut self.links[l as usize];
        link.before_change(now);
        link.qdisc.on_timer(now);
        if let Some(next) = link.qdisc.next_timer() {
            events.schedule(next, Event::QdiscTimer { link: l });
        }
    }

    /// Close the links' measurement at `end`, the end of the run (`now`): the transmissions that
    /// ended before it are finished (events at the end itself do not run).
    pub fn finish(
        &mut self,
        end: Time,
        now: Time,
        events: &mut EventQueue,
        conns: &mut Connections,
    ) {
        for l in 0..self.links.len() as u32 {
            if self.links[l as usize].tx_ends < end {
                self.catch_up(l, end, now, events, conns);
            }
        }
        for link in &mut self.links {
            link.close(end);
        }
    }

    /// Write the packet traces `scenario`'s `[capture]` asks for into `dir` (`<link>.pcap`),
    /// from now on, until [`finish_capture`](Self::finish_capture).
    pub fn capture_to(&mut self, scenario: &Scenario, dir: &Path) -> io::Result<()> {
        if !scenario.capture.is_off() {
            let captures = Captures::open(scenario, &self.topo, &self.links, dir)?;
            self.capture = Some(Box::new(captures));
        }
        Ok(())
    }

    /// Flush and close the packet traces; the first error met while writing them, if any.
    pub fn finish_capture(&mut self) -> io::Result<()> {
        self.capture.take().map_or(Ok(()), |c| c.finish())
    }
}
