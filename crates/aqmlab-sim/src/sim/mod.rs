//! The simulation: an owned value holding the clock, the event queue, the packet arena, the network
//! and the traffic, advanced one event at a time.

use crate::event::{Event, EventQueue, Recording};
use crate::measure::{AtWarmup, IntervalCounts, QueueSampler, ThroughputBins};
use crate::network::{Dumbbell, Link, Monitor, Transmitter};
use crate::packet::{flags, Ecn, Packet, PacketArena, PacketId, Proto, Segment};
use crate::queue::config::{FlowRule, QueueSpec};
use crate::queue::{
    AnyQdisc, Bernoulli, Codel, Departure, DropReason, DropTail, FqCodel, MarkReason, Pie,
    QueueDisc, Red, Scripted, Target, Verdict,
};
use crate::report::Report;
use crate::rng::Rng;
use crate::scenario::{Scenario, ScenarioError};
use crate::tcp::config::Handshake;
use crate::tcp::route_cache::RouteCache;
use crate::tcp::{Out, TcpConfig, Timer};
use crate::traffic::config::{Peer, Side, Start, TrafficKind, TrafficSpec, Transfer};
use crate::traffic::session::{SessionApp, Tcplib};
use crate::traffic::udp::{FlowCounters, UdpSink, UdpSource};
use crate::traffic::web::{MahModel, PageModel, PoolModel};
use crate::traffic::{App, ConnCounts, Connection, Outcome};
use crate::units::Time;
use std::time::{Duration, Instant};

mod capture;
mod http;
pub mod report;
mod session;
mod web;

use web::WebGroup;
pub use web::{web_scripts, PageScript, RequestRow, UserScript};

/// What the outputs say about a UDP flow.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub group: String,
    pub index: u32,
    pub kind: &'static str,
    pub src: u32,
    pub dst: u32,
}

/// One row of the optional TCP trace: the data sender's state after an ACK.
#[derive(Clone, Copy, Debug)]
pub struct TraceRow {
    pub t: Time,
    pub conn: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt_s: f64,
    pub rto: Time,
}

/// Why a run stopped before the time it was asked to reach.
#[derive(Debug)]
pub enum Stop {
    /// It reached one of the scenario's `[limits]`: the error names the key, its value and what
    /// was reached.
    Limit(ScenarioError),
    /// The caller's `poll` asked it to stop (Ctrl-C).
    Interrupted,
}

/// Events between two checks of the limits and of the caller's `poll`: a few milliseconds of work,
/// so a run stops promptly, while each event pays only a comparison.
const POLL_EVERY: u64 = 1 << 14;

/// Dead TCP timer events are dropped from the queue once there are more than this many and they
/// are half of it: a pass over the queue then costs at most two pending events' worth per dead one.
const DEAD_TIMERS_MIN: u64 = 1 << 12;

/// The size of the per-packet and per-connection state above which the simulation prefetches what
/// the next events will read ([`crate::cache`]): 1 MiB, the L2 cache of one core of the machines
/// measured (docs/performance.md, "cache misses at 10,000 flows"). Below it everything stays in
/// cache and a prefetch only costs instructions; no result depends on it.
const PREFETCH_ABOVE_BYTES: usize = 1 << 20;

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
    pub(crate) conns: Vec<Connection>,
    pub(crate) tcp_cfgs: Vec<TcpConfig>,
    /// Segments an endpoint produced, waiting to become packets, and those packets but the first
    /// waiting to be queued (both reused, not reallocated).
    outbox: Vec<Out>,
    pending: Vec<PacketId>,
    pub(crate) trace: Vec<TraceRow>,
    /// Snapshots taken when the warm-up ended (all zero until then).
    pub(crate) flows_at_warmup: Vec<FlowCounters>,
    pub(crate) links_at_warmup: Vec<AtWarmup>,
    /// Each connection's counters as the warm-up ended, and its packets in the network then
    /// (counted by scanning the packet arena), for the measured window's counters and identities.
    pub(crate) conns_at_warmup: Vec<ConnCounts>,
    pub(crate) conns_in_flight_at_warmup: Vec<u64>,
    /// FreeBSD 2.2's per-host RTT cache, if a TCP configuration keeps one (`route_cache`).
    route_cache: Option<RouteCache>,
    measuring: bool,
    pub(crate) wall: Duration,
    /// The event count at which the limits and the caller's `poll` are checked next.
    next_check: u64,
    /// Whether packets' next reads are prefetched: [`Simulation::outgrows_cache`] as of the last
    /// check of the limits (every [`POLL_EVERY`] events; a hint only, no result depends on it).
    prefetching: bool,
    /// Pending TCP timer events that can no longer run (their timer is set once and was cleared,
    /// e.g. the connect timer of an open connection): dropped from the queue when they are half
    /// of it ([`Simulation::drop_dead_timers`]).
    dead_timers: u64,
    // --- web users ---
    pub(crate) web_groups: Vec<WebGroup>,
    /// Per node: the TCP configuration a host with `web-pool` users answers requests with.
    web_host_cfg: Vec<Option<u32>>,
    pub(crate) users: Vec<crate::traffic::web::WebUser>,
    /// Recycled connection slots.
    free_conns: Vec<u32>,
    /// Requests a user wants opened (reused).
    fetches: Vec<crate::traffic::web::Fetch>,
    pub(crate) requests: Vec<RequestRow>,
    /// `web-pool` users under `connections = "ns2-http"` (`http.rs`).
    http: http::HttpState,
    /// The tcplib telnet table, loaded if a telnet group needs it.
    tcplib: Option<Tcplib>,
    /// Packet traces being written (`[capture]`, once `capture_to` is called: `capture.rs`).
    capture: Option<Box<capture::Captures>>,
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

/// A flow's start time, drawn from its own stream when the group gives a distribution.
fn draw_start(start: Start, rng: &mut Rng) -> Time {
    match start {
        Start::At(t) => t,
        Start::Uniform { min, max } => Time(rng.uniform_u64(min.0, max.0)),
        Start::Exponential { mean } => Time(rng.exponential(mean.0 as f64).round() as u64),
    }
}

/// Flow `k` of group `spec` under `seed`: its random stream (`traffic.<group>[k]`) and its start
/// time, the stream's first draw when the group gives a distribution.
fn flow_start(spec: &TrafficSpec, seed: u64, k: u32) -> (Rng, Time) {
    let mut rng = Rng::stream(seed, &format!("traffic.{}[{k}]", spec.name));
    let start = draw_start(spec.start, &mut rng);
    (rng, start)
}

/// One flow of a scenario as a simulated run starts it: what live mode starts on real hosts.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlannedFlow {
    /// Its group's position in `traffic`, and its index in the group.
    pub group: u32,
    pub index: u32,
    /// The server and the client it runs between (indices on their side).
    pub server: u32,
    pub client: u32,
    /// Whether the servers send its data (`from = "servers"`).
    pub from_servers: bool,
    pub start: Time,
    /// An `ftp` flow's transfer size, drawn as a simulated run draws it (`None`: unlimited, or
    /// not an `ftp` flow).
    pub bytes: Option<u64>,
}

/// A UDP flow's packets as a simulated run sends them: what live mode's senders send.
#[derive(Clone, Debug, serde::Serialize)]
pub struct UdpScript {
    /// Its group's position in `traffic` and its index in the group.
    pub group: u32,
    pub index: u32,
    /// Each packet's departure time (ns) and size (bytes, IP), in order.
    pub departures: Vec<(u64, u32)>,
}

/// The packets of every UDP flow (`cbr`, `poisson`, `pareto`) of `scenario` under `seed`: a
/// source is open-loop, so its departures and sizes, drawn from its own stream in the order a
/// simulated run draws them (a packet's size, then the gap to the next), do not depend on the
/// network. Listed up to the flow's `stop` and the scenario's end.
pub fn udp_scripts(scenario: &Scenario, seed: u64) -> Vec<UdpScript> {
    let mut scripts = Vec::new();
    for (g, spec) in scenario.traffic.iter().enumerate() {
        if !matches!(
            spec.kind,
            TrafficKind::Cbr { .. } | TrafficKind::Poisson { .. } | TrafficKind::Pareto { .. }
        ) {
            continue;
        }
        for k in 0..spec.flows {
            let (rng, start) = flow_start(spec, seed, k);
            let mut source = UdpSource::new(0, &spec.kind, start, rng);
            let end = source.stop.min(scenario.duration);
            let mut departures = Vec::new();
            let mut t = source.first_departure(start);
            while t < end {
                departures.push((t.0, source.next_size()));
                t = source.next_departure(t);
            }
            scripts.push(UdpScript {
                group: g as u32,
                index: k,
                departures,
            });
        }
    }
    scripts
}

/// Every flow of every group of `scenario` under `seed`, with the hosts, start times and
/// transfer sizes a simulated run gives them.
pub fn planned_flows(scenario: &Scenario, seed: u64) -> Vec<PlannedFlow> {
    let t = &scenario.topology;
    let mut plan = Vec::new();
    for (g, spec) in scenario.traffic.iter().enumerate() {
        for k in 0..spec.flows {
            let (server, client) = spec.hosts_of(k, t.servers, t.clients);
            let (mut rng, start) = flow_start(spec, seed, k);
            let bytes = match &spec.kind {
                TrafficKind::Ftp {
                    size: Transfer::Bytes(b),
                    ..
                } => Some(b.sample_whole(&mut rng, 0)),
                _ => None,
            };
            plan.push(PlannedFlow {
                group: g as u32,
                index: k,
                server,
                client,
                from_servers: spec.from == Side::Servers,
                start,
                bytes,
            });
        }
    }
    plan
}

/// The (server, client) node ids of flow `k` of group `spec`.
fn hosts_of(topo: &Dumbbell, spec: &TrafficSpec, k: u32) -> (u32, u32) {
    let (s, c) = spec.hosts_of(k, topo.servers, topo.clients);
    (topo.server(s), topo.client(c))
}

/// The (source, destination) node ids of flow `k` of group `spec`.
fn endpoints(topo: &Dumbbell, spec: &TrafficSpec, k: u32) -> (u32, u32) {
    let (server, client) = hosts_of(topo, spec, k);
    match spec.from {
        Side::Servers => (server, client),
        Side::Clients => (client, server),
    }
}

/// Tables smaller than this are not checked against the memory available (reading it costs
/// a file read; a run's tables are checked every few thousand events).
const TABLES_CHECKED_AGAINST_MEMORY: u128 = 256 << 20;

/// The memory the machine has available now, bytes (Linux `MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
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
        let topo = Dumbbell::new(&scenario.topology, seed);
        let mut events = EventQueue::new();
        // Scheduled first, so it precedes every other event at the same instant.
        events.schedule(scenario.warmup, Event::WarmupEnd);

        let (mut flows, mut sources, mut conns, mut tcp_cfgs) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut web_groups = Vec::new();
        for (g, spec) in scenario.traffic.iter().enumerate() {
            match &spec.kind {
                TrafficKind::WebMah {
                    max_conns,
                    pages,
                    tcp,
                } => {
                    tcp_cfgs.push(tcp.clone());
                    let model = PageModel::Mah(Box::new(MahModel::new(pages)));
                    web_groups.push((g, *max_conns, model, tcp_cfgs.len() - 1));
                }
                TrafficKind::WebPool {
                    request,
                    page_mean,
                    think_mean,
                    peer,
                    connections,
                    tcp,
                } => {
                    tcp_cfgs.push(tcp.clone());
                    let model = PageModel::Pool(Box::new(PoolModel {
                        request: request.clone(),
                        page: page_mean.clone(),
                        think: think_mean.clone(),
                        paired: *peer == Peer::Paired,
                        connections: connections.clone(),
                    }));
                    web_groups.push((g, 1, model, tcp_cfgs.len() - 1));
                }
                TrafficKind::Ftp { size, trace, tcp } => {
                    tcp_cfgs.push(tcp.clone());
                    let cfg = (tcp_cfgs.len() - 1) as u32;
                    add_tcp_group(
                        &topo,
                        spec,
                        seed,
                        &mut conns,
                        &mut events,
                        &|k, hosts, phases, sender, mut rng| {
                            // Each connection's size is drawn once (a constant draws nothing).
                            let bytes = match size {
                                Transfer::Unlimited => None,
                                Transfer::Bytes(b) => Some(b.sample_whole(&mut rng, 0)),
                            };
                            Connection::bulk(
                                g as u32, k, cfg, tcp, hosts, phases, sender, bytes, *trace, rng,
                            )
                        },
                    );
                }
                TrafficKind::WebSession { tcp, .. } | TrafficKind::Telnet { tcp, .. } => {
                    tcp_cfgs.push(tcp.clone());
                    let cfg = (tcp_cfgs.len() - 1) as u32;
                    let app = SessionApp::of(&spec.kind);
                    add_tcp_group(
                        &topo,
                        spec,
                        seed,
                        &mut conns,
                        &mut events,
                        &|k, hosts, phases, sender, mut rng| {
                            let first = app.initial_write(&spec.kind, &mut rng);
                            Connection::session(
                                g as u32, k, cfg, tcp, hosts, phases, sender, app, first, rng,
                            )
                        },
                    );
                }
                kind => {
                    for k in 0..spec.flows {
                        let (src, dst) = endpoints(&topo, spec, k);
                        let flow = flows.len() as u32;
                        let (rng, start) = flow_start(spec, seed, k);
                        let mut source = UdpSource::new(flow, kind, start, rng);
                        let first = source.first_departure(start);
                        if first < source.stop {
                            events.schedule(
                                first,
                                Event::Source {
                                    source: sources.len() as u32,
                                },
                            );
                        }
                        sources.push(source);
                        flows.push(FlowInfo {
                            group: spec.name.clone(),
                            index: k,
                            kind: kind.name(),
                            src,
                            dst,
                        });
                    }
                }
            }
        }
        let links = build_links(&scenario, &topo, seed, &conns);
        for (l, link) in links.iter().enumerate() {
            if let Some(t) = link.qdisc.next_timer() {
                events.schedule(t, Event::QdiscTimer { link: l as u32 });
            }
        }

        let (n_flows, n_links, n_conns) = (flows.len(), links.len(), conns.len());
        let mut sim = Simulation {
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
            conns,
            tcp_cfgs,
            outbox: Vec::with_capacity(64),
            pending: Vec::with_capacity(64),
            trace: Vec::new(),
            flows_at_warmup: vec![FlowCounters::default(); n_flows],
            links_at_warmup: vec![AtWarmup::default(); n_links],
            conns_at_warmup: vec![ConnCounts::default(); n_conns],
            conns_in_flight_at_warmup: vec![0; n_conns],
            route_cache: None,
            measuring: false,
            wall: Duration::ZERO,
            next_check: 0,
            prefetching: false,
            dead_timers: 0,
            web_groups: Vec::new(),
            web_host_cfg: Vec::new(),
            users: Vec::new(),
            free_conns: Vec::new(),
            fetches: Vec::with_capacity(16),
            http: http::HttpState::default(),
            requests: Vec::new(),
            tcplib: None,
            capture: None,
        };
        if sim
            .scenario
            .traffic
            .iter()
            .any(|t| matches!(t.kind, TrafficKind::Telnet { .. }))
        {
            sim.tcplib = Some(Tcplib::load());
        }
        sim.web_host_cfg = vec![None; (sim.topo.servers + sim.topo.clients) as usize];
        for (g, max_conns, model, cfg) in web_groups {
            let spec = sim.scenario.traffic[g].clone();
            sim.add_web_users(g as u32, &spec, model, max_conns, cfg as u32);
        }
        if sim.tcp_cfgs.iter().any(|c| c.route_cache.is_some()) {
            sim.route_cache = Some(RouteCache::default());
        }
        sim.wall = started.elapsed();
        sim
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

    /// Record the next `capacity` events scheduled, to replay on the event queue alone.
    pub fn record_events(&mut self, capacity: usize) {
        self.events.record(capacity);
    }

    /// Whether the recording asked for by [`record_events`](Self::record_events) is full.
    pub fn event_recording_full(&self) -> bool {
        self.events.recording_full()
    }

    /// What was recorded, and stop recording.
    pub fn take_event_recording(&mut self) -> Option<Recording> {
        self.events.take_recording()
    }

    /// Run every event before `until` (and before the end of the scenario). Running in chunks gives
    /// exactly the same result as running at once. Every [`POLL_EVERY`] events it checks the
    /// scenario's `[limits]` and calls `poll`, and stops when a limit is reached or `poll` returns
    /// true; the run cannot go on after that.
    pub fn run_until(&mut self, until: Time, poll: &mut dyn FnMut() -> bool) -> Result<(), Stop> {
        let started = Instant::now();
        let until = until.min(self.scenario.duration);
        let result = self.run_events(until, started, poll);
        if result.is_ok() {
            self.now = self.now.max(until);
        }
        self.wall += started.elapsed();
        result
    }

    fn run_events(
        &mut self,
        until: Time,
        started: Instant,
        poll: &mut dyn FnMut() -> bool,
    ) -> Result<(), Stop> {
        while let Some(t) = self.events.peek_time() {
            if t >= until {
                break;
            }
            if self.processed == self.next_check {
                self.check_limits(started).map_err(Stop::Limit)?;
                if poll() {
                    return Err(Stop::Interrupted);
                }
                self.next_check = self.processed + POLL_EVERY;
                self.prefetching = self.outgrows_cache();
                if let Some(max) = self.scenario.limits.max_events {
                    self.next_check = self.next_check.min(max);
                }
            }
            let (t, event) = self.events.pop_settled();
            self.now = t;
            self.processed += 1;
            // Both kinds of arrival reach one call of `arrive`, which is then inlined (as it is
            // not at two).
            let (node, pkt) = match event {
                Event::Arrive { node, pkt } => (node, pkt),
                Event::ArriveInOrder { link, pkt } => {
                    let l = &mut self.links[link as usize];
                    l.arrived(link, &mut self.events);
                    (l.to, pkt)
                }
                _ => {
                    self.dispatch(event);
                    continue;
                }
            };
            self.arrive(node, pkt);
        }
        Ok(())
    }

    /// Handle `event`, other than an arrival.
    #[inline(always)]
    fn dispatch(&mut self, event: Event) {
        match event {
            Event::Arrive { .. } | Event::ArriveInOrder { .. } => {
                unreachable!("handled by the loop")
            }
            Event::TxDone { link } => self.tx_done(link),
            Event::Source { source } => self.source_fires(source),
            Event::TcpOpen { conn } => self.tcp_open(conn),
            Event::TcpTimer { conn, which } => self.tcp_timer(conn, which),
            Event::QdiscTimer { link } => self.qdisc_timer(link),
            Event::WebUser { user } => self.web_user_wakes(user),
            Event::AppWake { conn } => self.app_wakes(conn),
            Event::WarmupEnd => self.warmup_ends(),
        }
    }

    /// The scenario's `[limits]` against what the run has used; `started` is when the current
    /// `run_until` began (its wall time is not yet in `self.wall`).
    fn check_limits(&self, started: Instant) -> Result<(), ScenarioError> {
        let limits = &self.scenario.limits;
        let at = || format!("at {} of simulated time", self.now);
        if let Some(max) = limits.max_events {
            if self.processed >= max {
                return Err(ScenarioError::new(
                    "limits.max_events",
                    format!(
                        "the run reached its limit of {max} events {}; raise limits.max_events \
                         to let it go on",
                        at()
                    ),
                ));
            }
        }
        if let Some(max) = limits.max_wall {
            let wall = self.wall + started.elapsed();
            if wall.as_nanos() > u128::from(max.0) {
                return Err(ScenarioError::new(
                    "limits.max_wall",
                    format!(
                        "the run took longer than its limit of {max} wall-clock time ({} events, \
                         {}); raise limits.max_wall to let it go on",
                        self.processed,
                        at()
                    ),
                ));
            }
        }
        self.check_tables()
    }

    /// The output tables' size against `limits.max_table_memory`, and against the memory the
    /// machine has available when they pass [`TABLES_CHECKED_AGAINST_MEMORY`]. The `queue` and `link` tables
    /// have a row per interval of the measured period and direction, known from the start (so a
    /// run that cannot fit them fails at once); the `tcp_trace` and `requests` tables grow with
    /// the run.
    fn check_tables(&self) -> Result<(), ScenarioError> {
        use crate::schema::row_bytes;
        let s = &self.scenario;
        let intervals = |every: Time| 2 * ThroughputBins::intervals(every, s.warmup, s.duration);
        let rows = [
            ("queue", intervals(s.measure.queue_interval)),
            ("link", intervals(s.measure.link_interval)),
            ("tcp_trace", self.trace.len() as u64),
            ("requests", self.requests.len() as u64),
        ];
        let bytes: u128 = rows
            .iter()
            .map(|&(t, n)| u128::from(n) * u128::from(row_bytes(t)))
            .sum();
        let max = s.limits.max_table_memory;
        let counts = || -> String {
            let rows: Vec<String> = rows
                .iter()
                .filter(|r| r.1 > 0)
                .map(|(t, n)| format!("{t} {n}"))
                .collect();
            rows.join(", ")
        };
        if bytes <= u128::from(max.bytes()) {
            // A limit raised past the machine would end in an aborted allocation: tables that
            // need more than the memory available stop the run with an error instead.
            return match available_memory() {
                Some(free) if bytes > TABLES_CHECKED_AGAINST_MEMORY && bytes > u128::from(free) => {
                    Err(ScenarioError::new(
                        "limits.max_table_memory",
                        format!(
                            "the output tables would take {:.3}GB (rows: {}), more than the \
                             {:.3}GB of memory this machine has available (its limit, {max}, is \
                             higher); log less often (measure.queue_interval, \
                             measure.link_interval) or run it on a larger machine",
                            bytes as f64 / 1e9,
                            counts(),
                            free as f64 / 1e9
                        ),
                    ))
                }
                _ => Ok(()),
            };
        }
        Err(ScenarioError::new(
            "limits.max_table_memory",
            format!(
                "the output tables would take {:.3}GB (rows: {}{}), more than the limit of {max}; \
                 log less often (measure.queue_interval, measure.link_interval) or raise \
                 limits.max_table_memory",
                bytes as f64 / 1e9,
                counts(),
                if self.processed > 0 {
                    format!(", at {} of simulated time", self.now)
                } else {
                    String::new()
                }
            ),
        ))
    }

    /// Run to the end and report.
    pub fn run(mut self) -> Result<Report, ScenarioError> {
        match self.run_until(self.scenario.duration, &mut || false) {
            Ok(()) => self.finish(),
            Err(Stop::Limit(e)) => Err(e),
            Err(Stop::Interrupted) => unreachable!("nothing asks this run to stop"),
        }
    }

    /// Close the measurement at the end of the scenario and report.
    pub fn finish(mut self) -> Result<Report, ScenarioError> {
        let started = Instant::now();
        self.log_unfinished_requests();
        self.log_unanswered_http();
        self.check_tables()?;
        let end = self.scenario.duration;
        // Transmissions that ended before the end of the run (events at the end itself do not run).
        for l in 0..self.links.len() as u32 {
            if self.links[l as usize].tx_ends < end {
                self.catch_up(l, end);
            }
        }
        for link in &mut self.links {
            link.close(end);
        }
        self.wall += started.elapsed();
        Ok(Report::new(self))
    }

    fn warmup_ends(&mut self) {
        let now = self.now;
        for l in 0..self.links.len() as u32 {
            self.catch_up(l, now);
        }
        for (i, link) in self.links.iter_mut().enumerate() {
            let in_tx_size = link.in_tx.map(|pkt| self.packets.get(pkt).size);
            self.links_at_warmup[i] = link.at_warmup(now, in_tx_size);
        }
        self.flows_at_warmup.clone_from(&self.flow_counters);
        let now = self.now;
        self.conns_at_warmup = self.conns.iter().map(|c| c.counts(now)).collect();
        self.conns_in_flight_at_warmup = self
            .packets
            .live_per_flow(crate::packet::Proto::Tcp, self.conns.len());
        self.measuring = true;
    }

    fn source_fires(&mut self, s: u32) {
        let now = self.now;
        let src = &mut self.sources[s as usize];
        let flow = src.flow;
        let info = &self.flows[flow as usize];
        let (from, to) = (info.src, info.dst);
        let size = src.next_size();
        let pkt = self.packets.alloc(Packet {
            flow,
            size,
            seg: Segment {
                seq: src.take_seq(),
                ..Segment::default()
            },
            src: from,
            dst: to,
            sent_at: now,
            ..Packet::default()
        });
        let c = &mut self.flow_counters[flow as usize];
        c.sent_pkts += 1;
        c.sent_bytes += u64::from(size);
        let next = src.next_departure(now);
        if next < src.stop {
            self.events.schedule(next, Event::Source { source: s });
        }
        self.enqueue(Dumbbell::uplink(from), pkt);
    }

    fn arrive(&mut self, node: u32, pkt: PacketId) {
        let p = self.packets.get(pkt);
        let dst = p.dst;
        if node != dst {
            if self.prefetching {
                self.prefetch_delivery(node, pkt);
            }
            self.enqueue(self.topo.next_link(node, dst), pkt);
            return;
        }
        match p.proto {
            Proto::Udp => {
                let p = self.packets.take(pkt);
                let c = &mut self.flow_counters[p.flow as usize];
                self.sinks[p.flow as usize].receive(p.seg.seq, p.size, c);
                c.delay_ns += u128::from((self.now - p.sent_at).0);
            }
            Proto::Tcp => self.tcp_deliver(pkt),
        }
    }

    /// Whether the state that packets touch (the connections and the packet arena) has outgrown
    /// [`PREFETCH_ABOVE_BYTES`]: below it, it stays in cache, and prefetching costs instructions
    /// without saving a wait. Checked every [`POLL_EVERY`] events (`prefetching`), not per packet.
    fn outgrows_cache(&self) -> bool {
        self.conns.len() * std::mem::size_of::<Connection>()
            + self.packets.slots() * std::mem::size_of::<Packet>()
            > PREFETCH_ABOVE_BYTES
    }

    /// Packet `pkt` left on link `l` at `now` and reaches its far end at `at`; called while the
    /// state outgrows the cache (`prefetching`). The link keeps it among the packets
    /// in propagation ([`Link::propagate`]), and what the next two arrivals there will read is
    /// loaded: the connection the first one is delivered to next, if any, and the second packet
    /// (whose connection is loaded likewise a transmission later).
    #[inline]
    fn prefetch_arrivals(&mut self, l: u32, now: Time, at: Time, pkt: PacketId) {
        let link = &mut self.links[l as usize];
        let (to, (next, after)) = (link.to, link.propagate(now, at, pkt));
        if let Some(next) = next {
            self.prefetch_delivery(to, next);
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
    fn prefetch_delivery(&self, node: u32, pkt: PacketId) {
        let p = self.packets.get(pkt);
        if p.proto == Proto::Tcp && self.topo.next_link(node, p.dst) == Dumbbell::downlink(p.dst) {
            self.conns[p.flow as usize].prefetch_for_segment(usize::from(p.from_opener));
        }
    }

    /// Offer `pkt` to link `l`'s queue; start transmitting if the link is idle. A packet that
    /// would only pass through the queue of an idle link ([`QueueDisc::passes_idle`]) is counted
    /// in and out of it and sent, without being stored and taken back: the bookkeeping here is
    /// that of this function and [`Self::start_tx`] for a packet that waits 0 (keep the two alike).
    fn enqueue(&mut self, l: u32, pkt: PacketId) {
        let now = self.now;
        let mut link = &mut self.links[l as usize];
        // `catch_up`, written out to keep `link` at hand from here on (not looked up again):
        // only a dequeue needs the whole simulation, and an access link's drop-tail queue, empty
        // at a lazy end, needs none.
        if link.ended_unseen(now, self.events.current_seq()) {
            let end = link.end_tx(self.measuring);
            if link.needs_dequeue(end) {
                self.dequeue_and_send(l, end);
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
            let at = link.transmit(l, now, pkt, p.size, false, &mut self.events, || {
                topo.pair_delay(p.src, p.dst)
            });
            return self.on_wire(l, now, pkt, at);
        }
        link.before_change(now);
        let verdict = link.qdisc.enqueue(pkt, p, now, &mut link.rng);
        link.count_interval(self.measuring, now, IntervalCounts::count_arrival);
        let link = match verdict {
            Verdict::Dropped(reason) => return self.count_drop(l, pkt, reason, false),
            Verdict::Enqueued => link,
            Verdict::Marked(why) => {
                self.count_mark(l, pkt, why);
                &mut self.links[l as usize]
            }
            Verdict::DroppedFront { victim, reason } => {
                self.count_drop(l, victim, reason, true);
                &mut self.links[l as usize]
            }
        };
        link.counters.enqueued += 1;
        self.packets.set_enqueued_at(pkt, now);
        if link.in_tx.is_none() {
            self.start_tx(l, now);
        } else if !link.tx_done_scheduled {
            // A packet now waits behind the one on the wire: its end becomes an event, where it
            // would have been had it been scheduled when the transmission began.
            link.tx_done_scheduled = true;
            self.events.schedule_reserved(
                link.tx_ends,
                link.tx_done_seq,
                Event::TxDone { link: l },
            );
        }
    }

    /// Account a dropped packet to its flow and free it.
    fn drop_packet(&mut self, pkt: PacketId) {
        let p = self.packets.get(pkt);
        match p.proto {
            Proto::Udp => self.flow_counters[p.flow as usize].dropped_pkts += 1,
            Proto::Tcp => self.conns[p.flow as usize].pkts_dropped += 1,
        }
        let (proto, flow) = (p.proto, p.flow);
        self.packets.free(pkt);
        if proto == Proto::Tcp {
            self.recycle_if_done(flow);
        }
    }

    /// Take the next packet from link `l`'s queue at `now`, if any, and put it on the wire: its
    /// arrival at the far end is known at once; the end of its transmission is an event only if
    /// another packet waits behind it.
    #[inline(always)]
    fn start_tx(&mut self, l: u32, now: Time) {
        if self.links[l as usize].needs_dequeue(now) {
            self.dequeue_and_send(l, now);
        }
    }

    /// The part of [`Self::start_tx`] that asks the queue for the next packet (its length
    /// already accounted up to `now`).
    #[inline(never)]
    fn dequeue_and_send(&mut self, l: u32, now: Time) {
        let link = &mut self.links[l as usize];
        let next = link.qdisc.dequeue(now, &mut link.dequeue_drops);
        let link = if link.dequeue_drops.is_empty() {
            link
        } else {
            let mut dropped = std::mem::take(&mut link.dequeue_drops);
            for &(pkt, reason) in &dropped {
                self.count_drop(l, pkt, reason, true);
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
            return link.qdisc.link_idle(now);
        };
        let link = match mark {
            None => link,
            Some(why) => {
                self.count_mark(l, pkt, why);
                &mut self.links[l as usize]
            }
        };
        // (A packet passed through an idle queue is counted as this one is, in `enqueue`.)
        let wait = now - self.packets.enqueued_at(pkt);
        link.count_interval(self.measuring, self.now, |c| c.count_departure(wait));
        link.counters.departures += 1;
        link.counters.wait_ns += u128::from(wait.0);
        let behind = link.qdisc.len_pkts() > 0;
        let (packets, topo) = (&self.packets, &self.topo);
        let at = link.transmit(l, now, pkt, size, behind, &mut self.events, || {
            let p = packets.get(pkt);
            topo.pair_delay(p.src, p.dst)
        });
        self.on_wire(l, now, pkt, at);
    }

    /// Packet `pkt` went on link `l`'s wire at `now` ([`Link::transmit`]) and arrives at `at`:
    /// capture it, if capturing, and (while prefetching) start loading what its arrival reads.
    #[inline(always)]
    fn on_wire(&mut self, l: u32, now: Time, pkt: PacketId, at: Time) {
        if let Some(c) = self.capture.as_deref_mut() {
            c.record(l, now, self.packets.get(pkt), &self.conns, &self.tcp_cfgs);
        }
        if self.prefetching {
            self.prefetch_arrivals(l, now, at, pkt);
        }
    }

    /// Count a packet link `l`'s queue dropped — the arrival itself, or (`from_queue`) one it
    /// held: a drop-front victim or a dequeue-time drop, also counted in `front_drops` — in the
    /// counters and the queue table's interval, and free it. A dropped packet counts its own size.
    fn count_drop(&mut self, l: u32, pkt: PacketId, reason: DropReason, from_queue: bool) {
        let link = &mut self.links[l as usize];
        let size = u64::from(self.packets.get(pkt).size);
        link.counters.drops[reason.index()] += 1;
        link.counters.drop_bytes[reason.index()] += size;
        if from_queue {
            link.counters.front_drops += 1;
        }
        self.count_interval(l, |c| c.count_drop(size, reason));
        self.drop_packet(pkt);
    }

    /// Count a packet link `l`'s queue marked CE (on arrival or at dequeue), and mark it.
    fn count_mark(&mut self, l: u32, pkt: PacketId, why: MarkReason) {
        let p = self.packets.get_mut(pkt);
        let size = u64::from(p.size);
        p.ecn = Ecn::Ce;
        let link = &mut self.links[l as usize];
        link.counters.marks[why.index()] += 1;
        link.counters.mark_bytes[why.index()] += size;
        self.count_interval(l, |c| c.count_mark(size));
    }

    /// Count, with `count`, in the queue table's current interval of link `l` (while measuring).
    #[inline(always)]
    fn count_interval(&mut self, l: u32, count: impl FnOnce(&mut IntervalCounts)) {
        self.links[l as usize].count_interval(self.measuring, self.now, count);
    }

    /// Link `l`'s transmission ends (at `tx_ends`): count it, and start the next one. Inlined
    /// (the dequeue itself stays out of line): it is a few counters and a test of the queue.
    /// [`Self::enqueue`] finishes the lazy ends it finds itself, with the same steps.
    #[inline(always)]
    fn tx_done(&mut self, l: u32) {
        let now = self.links[l as usize].end_tx(self.measuring);
        self.start_tx(l, now);
    }

    /// Finish link `l`'s transmission if it ended before the event being processed (at `now`)
    /// without an event of its own ([`Link::ended_unseen`]): the link then found its queue empty
    /// and went idle at `tx_ends`.
    #[inline(always)]
    fn catch_up(&mut self, l: u32, now: Time) {
        if self.links[l as usize].ended_unseen(now, self.events.current_seq()) {
            self.tx_done(l);
        }
    }

    /// A queue discipline's own timer (Adaptive RED on Linux's 500 ms clock).
    fn qdisc_timer(&mut self, l: u32) {
        let now = self.now;
        self.catch_up(l, now);
        let link = &mut self.links[l as usize];
        link.before_change(now);
        link.qdisc.on_timer(now);
        if let Some(next) = link.qdisc.next_timer() {
            self.events.schedule(next, Event::QdiscTimer { link: l });
        }
    }

    // ----- TCP -----

    fn tcp_open(&mut self, c: u32) {
        let now = self.now;
        let conn = &mut self.conns[c as usize];
        let cfgs = conn.end_cfgs.map(|i| &self.tcp_cfgs[i as usize]);
        conn.started = Some(now);
        if self.tcp_cfgs[conn.end_cfgs[0] as usize].handshake == Handshake::None {
            for (e, cfg) in conn.ends.iter_mut().zip(cfgs) {
                e.start_established(cfg, now);
            }
            let s = conn.data_sender;
            conn.ends[s].kick(now, cfgs[s], &mut conn.rng, &mut self.outbox);
            self.tcp_emit(c, s);
        } else {
            let s = conn.syn_sender;
            conn.ends[s].open(now, cfgs[s], &mut self.outbox);
            self.tcp_emit(c, s);
        }
        self.session_opened(c);
    }

    /// Packet `pkt` reaches its TCP endpoint: the segment is read where it is, and the packet's
    /// slot is given up once the endpoint has handled it: to the endpoint's first answer, else
    /// freed ([`Self::tcp_emit_inline`]).
    ///
    /// Out of line, with [`Self::tcp_emit`] inline in it: inline in the event loop it made the
    /// loop's code worse around it (more than a call costs), and a call of its own to
    /// `tcp_emit` looked the connection and its configuration up again.
    #[inline(never)]
    fn tcp_deliver(&mut self, pkt: PacketId) {
        let p = self.packets.get(pkt);
        let c = p.flow;
        let side = usize::from(p.from_opener);
        let conn = &mut self.conns[c as usize];
        conn.pkts_delivered += 1;
        // A bulk transfer's application has nothing to do after a segment (and a bulk connection
        // stays one): only web pairs and sessions are told, each test looking the connection up.
        let app_reacts = !matches!(conn.app, App::Bulk);
        let cfg = &self.tcp_cfgs[conn.end_cfgs[side] as usize];
        if let (Some(cache), true) = (&mut self.route_cache, p.seg.has(flags::SYN)) {
            if cfg.route_cache.is_some() {
                // tcp_dooptions → tcp_mss: a SYN or SYN-ACK arrives (route_cache.rs).
                let (host, peer) = (conn.hosts[side], conn.hosts[1 - side]);
                if let Some((srtt, rttvar)) = cache.lookup(self.now, host, peer, cfg.tick) {
                    conn.ends[side].start_from_route(srtt, rttvar);
                }
            }
        }
        conn.ends[side].on_segment(
            &p.seg,
            p.ecn == Ecn::Ce,
            self.now,
            cfg,
            &mut conn.rng,
            &mut self.outbox,
        );
        let is_ack = p.seg.len == 0 && !p.seg.has(flags::SYN);
        if conn.trace
            && side == conn.data_sender
            && is_ack
            && conn.ends[side].state == crate::tcp::State::Established
        {
            let e = &conn.ends[side];
            self.trace.push(TraceRow {
                t: self.now,
                conn: c,
                cwnd: e.cwnd(),
                ssthresh: e.ssthresh(),
                srtt_s: e.srtt_s().unwrap_or(f64::NAN),
                rto: e.rto(),
            });
        }
        if app_reacts {
            self.web_progress(c, side);
            self.session_progress(c, side);
            self.http_progress(c, side);
        }
        self.tcp_emit_inline(c, side, Some(pkt));
        if app_reacts {
            self.web_settle(c);
        }
    }

    fn tcp_timer(&mut self, c: u32, which: u32) {
        let now = self.now;
        let (side, timer) = ((which / 4) as usize, Timer::ALL[(which % 4) as usize]);
        let conn = &mut self.conns[c as usize];
        let e = &mut conn.ends[side];
        if e.timers.armed(timer) != Some(now) {
            if timer.set_once() {
                self.dead_timers = self.dead_timers.saturating_sub(1);
            }
            return; // superseded by an earlier event for the same timer, or cleared for good
        }
        e.timers.set_armed(timer, None);
        if e.timers.deadline(timer).is_some_and(|d| d <= now) {
            let cfg = &self.tcp_cfgs[conn.end_cfgs[side] as usize];
            e.on_timer(timer, now, cfg, &mut self.outbox);
        }
        self.tcp_emit(c, side);
        self.web_settle(c);
    }

    /// Drop the dead TCP timer events from the queue: those of a timer set once that no longer
    /// expects them. An event for such a timer is live only at the time it is armed for; a
    /// connection sets it once, and a later connection in the same slot sets it later, so a dead
    /// one never comes back to life. Dropping them changes nothing but the event count.
    fn drop_dead_timers(&mut self) {
        let conns = &self.conns;
        self.events.retain(|t, e| match *e {
            Event::TcpTimer { conn, which } => {
                let (side, timer) = ((which / 4) as usize, Timer::ALL[(which % 4) as usize]);
                !timer.set_once() || conns[conn as usize].ends[side].timers.armed(timer) == Some(t)
            }
            _ => true,
        });
        self.dead_timers = 0;
    }

    /// Turn what endpoint `side` of connection `c` produced into packets, schedule its timers, and
    /// note what changed about the connection.
    ///
    /// Each call leaves both ends' timers [settled](crate::tcp::endpoint::Timers::settled), and
    /// between two calls for a connection only the end that handles a segment or a timer (`side`)
    /// changes: so the other end's timers are gone through only if `update` just stopped them (a
    /// failure).
    #[inline(never)]
    fn tcp_emit(&mut self, c: u32, side: usize) {
        self.tcp_emit_inline(c, side, None);
    }

    /// [`Self::tcp_emit`], inline where a segment is delivered (almost every call). `spare`: the
    /// slot of the packet just delivered, not yet freed: the first packet made takes it, which is
    /// what freeing it and allocating would do (the arena reuses the slot freed last first),
    /// without the two steps; with no packet to make, it is freed.
    #[inline(always)]
    fn tcp_emit_inline(&mut self, c: u32, side: usize, mut spare: Option<PacketId>) {
        let now = self.now;
        let conn = &mut self.conns[c as usize];
        debug_assert!(
            conn.ends[1 - side].timers.settled(),
            "connection {c}: the end not emitting changed its timers"
        );
        let cfg = &self.tcp_cfgs[conn.end_cfgs[side] as usize];
        let (src, dst) = (conn.hosts[side], conn.hosts[1 - side]);
        // Every packet is allocated before any is queued (a drop frees a slot, which the next
        // allocation would take). The first, usually the only one, is kept apart from `pending`.
        let mut first = None;
        for o in &self.outbox {
            conn.pkts_sent += 1;
            let head = Packet {
                flow: c,
                proto: Proto::Tcp,
                from_opener: side == 0,
                ecn: if o.ect { Ecn::Ect } else { Ecn::NotEct },
                size: cfg.wire_size(o.seg.len),
                src,
                dst,
                sent_at: now,
                ..Packet::default()
            };
            let pkt = match spare.take() {
                Some(id) => {
                    self.packets.fill(id, head, &o.seg);
                    id
                }
                None => self.packets.alloc_with(head, &o.seg),
            };
            if first.is_none() {
                first = Some(pkt);
            } else {
                self.pending.push(pkt);
            }
        }
        if let Some(id) = spare {
            self.packets.free(id);
        }
        self.outbox.clear();
        let was_open = conn.outcome == Outcome::Open;
        conn.update(now, &self.tcp_cfgs[conn.end_cfgs[0] as usize]);
        if let (Some(cache), true) = (&mut self.route_cache, was_open) {
            if conn.outcome != Outcome::Open {
                close_routes(cache, conn, &self.tcp_cfgs, now);
            }
        }
        let ends = if conn.outcome == Outcome::Failed {
            0..2
        } else {
            side..side + 1
        };
        for e in ends {
            let end = &mut conn.ends[e];
            if end.timers.settled() {
                continue; // nothing below would match
            }
            for k in 0..Timer::ALL.len() {
                let timer = Timer::ALL[k];
                let armed = end.timers.armed(timer);
                match end.timers.deadline(timer) {
                    Some(d) if armed.is_none_or(|a| a > d) => {
                        end.timers.set_armed(timer, Some(d));
                        self.events.schedule(
                            d,
                            Event::TcpTimer {
                                conn: c,
                                which: (4 * e + k) as u32,
                            },
                        );
                    }
                    // Cleared for good: its event would find nothing to do.
                    None if timer.set_once() && armed.is_some() => {
                        end.timers.set_armed(timer, None);
                        self.dead_timers += 1;
                    }
                    _ => {}
                }
            }
        }
        if self.dead_timers > DEAD_TIMERS_MIN && 2 * self.dead_timers > self.events.len() as u64 {
            self.drop_dead_timers();
        }
        if let Some(pkt) = first {
            self.enqueue(Dumbbell::uplink(src), pkt);
            for i in 0..self.pending.len() {
                self.enqueue(Dumbbell::uplink(src), self.pending[i]);
            }
            self.pending.clear();
        }
    }
}

/// Add the connections of TCP group `spec` and schedule their starts; `make` builds flow k's
/// connection from its hosts `[client, server]`, their clock phases, the data sender's side and its
/// random stream.
fn add_tcp_group(
    topo: &Dumbbell,
    spec: &TrafficSpec,
    seed: u64,
    conns: &mut Vec<Connection>,
    events: &mut EventQueue,
    make: &dyn Fn(u32, [u32; 2], [Time; 2], usize, Rng) -> Connection,
) {
    // At once: a vector of connections (1,792 bytes each) grown by doubling copies all of them at
    // each step, 18 MB twice over at 10,000 flows.
    conns.reserve(spec.flows as usize);
    for k in 0..spec.flows {
        // Clients open connections to servers whichever way the data goes.
        let (server, client) = hosts_of(topo, spec, k);
        let data_sender = match spec.from {
            Side::Clients => 0,
            Side::Servers => 1,
        };
        let (rng, start) = flow_start(spec, seed, k);
        let phases = [
            topo.clock_phase[client as usize],
            topo.clock_phase[server as usize],
        ];
        events.schedule(
            start,
            Event::TcpOpen {
                conn: conns.len() as u32,
            },
        );
        conns.push(make(k, [client, server], phases, data_sender, rng));
    }
}

/// The dumbbell's links in the order of `network.rs`'s numbering.
fn build_links(s: &Scenario, topo: &Dumbbell, seed: u64, conns: &[Connection]) -> Vec<Link> {
    let t = &s.topology;
    // A pair's extra delay is added where a packet reaches its host; the same for every pair, it
    // is simply part of the router → host link's delay.
    let same_pair_delay = topo.same_pair_delay();
    let access = |name: String, to: u32, to_host: bool| {
        let delay = match same_pair_delay {
            Some(d) if to_host => t.access.delay + d,
            _ => t.access.delay,
        };
        let rng = Rng::stream(seed, &format!("queue.{name}"));
        Link::new(
            name,
            to,
            Transmitter::new(t.access.rate, t.access.framing),
            delay,
            to_host && same_pair_delay.is_none(),
            AnyQdisc::DropTail(DropTail::new(t.access.queue)),
            rng,
        )
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
    links.push(bottleneck(s, "forward", topo.r2(), seed, conns));
    links.push(bottleneck(s, "reverse", topo.r1(), seed, conns));
    links
}

/// One direction of the bottleneck (`"forward"`, R1 → R2, queued by `[queue]`, or `"reverse"`,
/// by `[reverse_queue]`) to node `to`, monitored as the scenario's `[measure]` says; its queue
/// draws from the stream `queue.<name>` of `seed`. Also the live router's (`aqmlab-live`), which
/// passes no connections (a scripted queue needs simulated ones: it refuses those).
pub fn bottleneck(s: &Scenario, name: &str, to: u32, seed: u64, conns: &[Connection]) -> Link {
    let spec = if name == "forward" {
        &s.queue
    } else {
        &s.reverse_queue
    };
    let t = &s.topology;
    let mut link = Link::new(
        name.to_string(),
        to,
        Transmitter::new(t.bottleneck.rate, t.bottleneck.framing),
        t.bottleneck.delay,
        false,
        make_qdisc(spec, s, conns),
        Rng::stream(seed, &format!("queue.{name}")),
    );
    link.monitor = Some(Box::new(Monitor {
        sampler: QueueSampler::new(s.measure.queue_sample, s.measure.queue_interval, s.warmup),
        throughput: ThroughputBins::new(s.measure.link_interval, s.warmup),
    }));
    link
}

/// Both ends of connection `conn`, which just completed or failed, close (`tcp_close`): each
/// leaves its estimate in its host's route to the peer (route_cache.rs). A completed
/// connection's end that closed first (it sent its FIN without waiting for the peer's) does so
/// after TIME_WAIT.
fn close_routes(cache: &mut RouteCache, conn: &Connection, cfgs: &[TcpConfig], now: Time) {
    for side in 0..2 {
        let cfg = &cfgs[conn.end_cfgs[side] as usize];
        let (Some(time_wait), Some(estimate)) = (cfg.route_cache, conn.ends[side].route_sample())
        else {
            continue;
        };
        let first = conn.outcome == Outcome::Completed && !conn.ends[side].waits_for_peer_fin();
        let at = if first { now + time_wait } else { now };
        let (host, peer) = (conn.hosts[side], conn.hosts[1 - side]);
        cache.close(now, at, host, peer, estimate, cfg.tick);
    }
}
