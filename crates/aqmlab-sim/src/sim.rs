//! The simulation: an owned value holding the clock, the event queue, the packet arena, the network
//! and the traffic, advanced one event at a time.

use crate::event::{Event, EventQueue};
use crate::measure::{QueueCounters, QueueSampler, ThroughputBins};
use crate::network::{Dumbbell, Link, Monitor};
use crate::packet::{Packet, PacketArena, PacketId};
use crate::queue::{AnyQdisc, DropTail, QueueDisc, Verdict};
use crate::report::Report;
use crate::rng::Rng;
use crate::scenario::{QueueSpec, Scenario, Side};
use crate::traffic::udp::{FlowCounters, UdpSink, UdpSource};
use crate::units::{Rate, Time};
use std::time::{Duration, Instant};

/// What the outputs say about a flow.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub group: String,
    pub index: u32,
    pub kind: &'static str,
    pub src: u32,
    pub dst: u32,
    /// The pair's extra one-way delay, added where the packet reaches its host.
    pub extra_delay: Time,
}

/// One run of one scenario with one seed.
pub struct Simulation {
    pub(crate) scenario: Scenario,
    pub(crate) now: Time,
    events: EventQueue,
    pub(crate) processed: u64,
    pub(crate) packets: PacketArena,
    pub(crate) topo: Dumbbell,
    pub(crate) links: Vec<Link>,
    sources: Vec<UdpSource>,
    sinks: Vec<UdpSink>,
    pub(crate) flows: Vec<FlowInfo>,
    pub(crate) flow_counters: Vec<FlowCounters>,
    /// Snapshots taken when the warm-up ended (all zero until then).
    pub(crate) flows_at_warmup: Vec<FlowCounters>,
    pub(crate) links_at_warmup: Vec<QueueCounters>,
    measuring: bool,
    pub(crate) wall: Duration,
}

fn make_qdisc(spec: &QueueSpec) -> AnyQdisc {
    match spec {
        QueueSpec::DropTail { limit } => AnyQdisc::DropTail(DropTail::new(*limit)),
    }
}

impl Simulation {
    /// Build the network and traffic of `scenario`; `seed` overrides the scenario's own seed.
    pub fn new(scenario: &Scenario, seed: Option<u64>) -> Simulation {
        let started = Instant::now();
        let mut scenario = scenario.clone();
        if let Some(s) = seed {
            scenario.seed = s;
        }
        let seed = scenario.seed;
        let topo = Dumbbell::new(&scenario, seed);
        let links = build_links(&scenario, &topo, seed);

        let mut flows = Vec::new();
        let mut sources = Vec::new();
        for spec in &scenario.traffic {
            let (n_src, n_dst) = match spec.from {
                Side::Servers => (topo.servers, topo.clients),
                Side::Clients => (topo.clients, topo.servers),
            };
            for k in 0..spec.flows {
                let (src, dst) = match spec.from {
                    Side::Servers => (topo.server(k % n_src), topo.client(k % n_dst)),
                    Side::Clients => (topo.client(k % n_src), topo.server(k % n_dst)),
                };
                let flow = flows.len() as u32;
                let rng = Rng::stream(seed, &format!("traffic.{}[{k}]", spec.name));
                sources.push((spec.start, UdpSource::new(flow, spec, rng)));
                flows.push(FlowInfo {
                    group: spec.name.clone(),
                    index: k,
                    kind: spec.kind.name(),
                    src,
                    dst,
                    extra_delay: topo.pair_delay(src, dst),
                });
            }
        }

        let mut events = EventQueue::new();
        // Scheduled first, so it precedes every other event at the same instant.
        events.schedule(scenario.warmup, Event::WarmupEnd);
        let sources: Vec<UdpSource> = sources
            .into_iter()
            .enumerate()
            .map(|(i, (start, mut src))| {
                let first = src.first_departure(start);
                if first < src.stop {
                    events.schedule(first, Event::Source { source: i as u32 });
                }
                src
            })
            .collect();

        let n_flows = flows.len();
        let n_links = links.len();
        Simulation {
            scenario,
            now: Time::ZERO,
            events,
            processed: 0,
            packets: PacketArena::default(),
            topo,
            links,
            sources,
            sinks: vec![UdpSink::default(); n_flows],
            flows,
            flow_counters: vec![FlowCounters::default(); n_flows],
            flows_at_warmup: vec![FlowCounters::default(); n_flows],
            links_at_warmup: vec![QueueCounters::default(); n_links],
            measuring: false,
            wall: started.elapsed(),
        }
    }

    /// The scenario as run (resolved, with the seed in force).
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Events processed so far.
    pub fn events_processed(&self) -> u64 {
        self.processed
    }

    /// Run every event before `until` (and before the end of the scenario). Running in chunks gives
    /// exactly the same result as running at once.
    pub fn run_until(&mut self, until: Time) {
        let started = Instant::now();
        let until = until.min(self.scenario.duration);
        while let Some(t) = self.events.peek_time() {
            if t >= until {
                break;
            }
            let (t, event) = self.events.pop().expect("peeked");
            self.now = t;
            self.processed += 1;
            match event {
                Event::TxDone { link } => self.tx_done(link),
                Event::Arrive { node, pkt } => self.arrive(node, pkt),
                Event::Source { source } => self.source_fires(source),
                Event::WarmupEnd => self.warmup_ends(),
            }
        }
        self.now = self.now.max(until);
        self.wall += started.elapsed();
    }

    /// Run to the end and report.
    pub fn run(mut self) -> Report {
        self.run_until(self.scenario.duration);
        self.finish()
    }

    /// Close the measurement at the end of the scenario and report.
    pub fn finish(mut self) -> Report {
        let started = Instant::now();
        let end = self.scenario.duration;
        for link in &mut self.links {
            let (pkts, bytes) = (link.qdisc.len_pkts(), link.qdisc.len_bytes());
            link.counters.integrate(end, pkts, bytes);
            if let Some(m) = link.monitor.as_deref_mut() {
                m.sampler.finish(end, pkts, bytes);
            }
        }
        self.wall += started.elapsed();
        Report::new(self)
    }

    fn warmup_ends(&mut self) {
        for (i, link) in self.links.iter_mut().enumerate() {
            link.before_change(self.now);
            self.links_at_warmup[i] = link.counters;
        }
        self.flows_at_warmup.clone_from(&self.flow_counters);
        self.measuring = true;
    }

    fn source_fires(&mut self, s: u32) {
        let now = self.now;
        let src = &mut self.sources[s as usize];
        let flow = src.flow;
        let info = &self.flows[flow as usize];
        let (from, to) = (info.src, info.dst);
        let pkt = self.packets.alloc(Packet {
            flow,
            size: src.size,
            seq: src.take_seq(),
            src: from,
            dst: to,
            sent_at: now,
            enqueued_at: now,
        });
        let c = &mut self.flow_counters[flow as usize];
        c.sent_pkts += 1;
        c.sent_bytes += u64::from(src.size);
        let next = src.next_departure(now);
        if next < src.stop {
            self.events.schedule(next, Event::Source { source: s });
        }
        self.enqueue(Dumbbell::uplink(from), pkt);
    }

    fn arrive(&mut self, node: u32, pkt: PacketId) {
        let p = *self.packets.get(pkt);
        if node == p.dst {
            let c = &mut self.flow_counters[p.flow as usize];
            self.sinks[p.flow as usize].receive(p.seq, p.size, c);
            c.delay_ns += u128::from((self.now - p.sent_at).0);
            self.packets.free(pkt);
        } else {
            let link = self.topo.next_link(node, p.dst);
            self.enqueue(link, pkt);
        }
    }

    /// Offer `pkt` to link `l`'s queue; start transmitting if the link is idle.
    fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let now = self.now;
        let p = self.packets.get_mut(pkt);
        let link = &mut self.links[l as usize];
        link.counters.arrivals += 1;
        link.before_change(now);
        match link.qdisc.enqueue(pkt, p.size, now, &mut link.rng) {
            Verdict::Enqueued => {
                link.counters.enqueued += 1;
                p.enqueued_at = now;
                if link.in_tx.is_none() {
                    self.start_tx(l);
                }
            }
            Verdict::Dropped(reason) => {
                link.counters.drops[reason.index()] += 1;
                self.flow_counters[p.flow as usize].dropped_pkts += 1;
                self.packets.free(pkt);
            }
        }
    }

    /// Take the next packet from link `l`'s queue, if any, and put it on the wire.
    fn start_tx(&mut self, l: u32) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        link.before_change(now);
        if let Some((pkt, size)) = link.qdisc.dequeue(now) {
            link.counters.departures += 1;
            link.counters.wait_ns += u128::from((now - self.packets.get(pkt).enqueued_at).0);
            link.in_tx = Some(pkt);
            self.events.schedule(
                now + link.rate.tx_time(u64::from(size)),
                Event::TxDone { link: l },
            );
        }
    }

    fn tx_done(&mut self, l: u32) {
        let now = self.now;
        let link = &mut self.links[l as usize];
        let pkt = link
            .in_tx
            .take()
            .expect("a link finishes only what it started");
        let p = self.packets.get(pkt);
        link.counters.sent_pkts += 1;
        link.counters.sent_bytes += u64::from(p.size);
        if self.measuring {
            if let Some(m) = link.monitor.as_deref_mut() {
                m.throughput.add(now, p.size);
            }
        }
        let mut at = now + link.delay;
        if link.to_host {
            at = at + self.flows[p.flow as usize].extra_delay;
        }
        self.events
            .schedule(at, Event::Arrive { node: link.to, pkt });
        self.start_tx(l);
    }
}

/// The dumbbell's links in the order of `network.rs`'s numbering.
fn build_links(s: &Scenario, topo: &Dumbbell, seed: u64) -> Vec<Link> {
    let t = &s.topology;
    let access = |name: String, to: u32, to_host: bool| Link {
        rng: Rng::stream(seed, &format!("queue.{name}")),
        name,
        to,
        rate: t.access.rate,
        delay: t.access.delay,
        to_host,
        qdisc: AnyQdisc::DropTail(DropTail::new(t.access.queue)),
        in_tx: None,
        counters: QueueCounters::default(),
        monitor: None,
    };
    let mut links = Vec::with_capacity(2 * topo.hosts() as usize + 2);
    for h in 0..topo.hosts() {
        let router = if topo.is_server(h) {
            topo.r1()
        } else {
            topo.r2()
        };
        let host = topo.host_name(h);
        links.push(access(format!("{host}.up"), router, false));
        links.push(access(format!("{host}.down"), h, true));
    }
    let bottleneck = |name: &str, to: u32, spec: &QueueSpec, rate: Rate| Link {
        rng: Rng::stream(seed, &format!("queue.{name}")),
        name: name.to_string(),
        to,
        rate,
        delay: t.bottleneck.delay,
        to_host: false,
        qdisc: make_qdisc(spec),
        in_tx: None,
        counters: QueueCounters::default(),
        monitor: Some(Box::new(Monitor {
            sampler: QueueSampler::new(s.measure.queue_sample, s.measure.queue_interval, s.warmup),
            throughput: ThroughputBins::new(s.measure.link_interval, s.warmup),
        })),
    };
    links.push(bottleneck(
        "forward",
        topo.r2(),
        &s.queue,
        t.bottleneck.rate,
    ));
    links.push(bottleneck(
        "reverse",
        topo.r1(),
        &s.reverse_queue,
        t.bottleneck.rate,
    ));
    links
}
