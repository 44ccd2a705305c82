//! The simulation: an owned value holding the clock and the event queue, and the parts of the run
//! it hands each event to (docs/architecture.md, "Engine layers"):
//! - [`Network`](network::Network): the links with their queues, the packets and the captures;
//! - [`TcpTraffic`](tcp::TcpTraffic): the connections and their endpoints;
//! - [`Apps`](apps::Apps): the web users, the session applications and the UDP sources;
//! - [`Measurement`](measurement::Measurement): the warm-up snapshot and the growing tables.
//!
//! Each part is a plain struct that owns its state; a part uses only the parts below it, which
//! the hub lends it for the call (split borrows of the hub's fields), in the order above, top
//! last: the applications use the TCP traffic, which uses the network; the measurement is used
//! by all.

use crate::event::{Event, EventQueue, Recording};
use crate::network::Topo;
use crate::packet::{PacketId, Proto};
use crate::report::Report;
use crate::scenario::{Scenario, ScenarioError};
use crate::units::Time;
use apps::{Apps, Below};
use measurement::Measurement;
use network::Network;
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};
use tcp::TcpTraffic;

mod apps;
mod capture;
mod hops;
mod measurement;
mod network;
mod plan;
pub mod report;
mod tcp;

pub use apps::{web_scripts, FlowInfo, PageScript, UserScript};
pub use measurement::{RequestRow, TraceRow};
pub use network::bottleneck;
pub use plan::{planned_flows, udp_scripts, PlannedFlow, UdpScript};

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

/// One run of one scenario with one seed.
pub struct Simulation {
    pub(crate) scenario: Scenario,
    pub(crate) now: Time,
    events: EventQueue,
    pub(crate) processed: u64,
    pub(crate) wall: Duration,
    /// The event count at which the limits and the caller's `poll` are checked next.
    next_check: u64,
    pub(crate) network: Network,
    pub(crate) tcp: TcpTraffic,
    pub(crate) apps: Apps,
    pub(crate) measure: Measurement,
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
        let topo = Topo::new(&scenario.net, seed);
        let mut events = EventQueue::new();
        // Scheduled first, so it precedes every other event at the same instant.
        events.schedule(scenario.warmup, Event::WarmupEnd);
        // The groups' connections and sources, then the links (a scripted queue names
        // connections), then the web users: the order in which their first events are scheduled.
        let mut tcp = TcpTraffic::default();
        let (mut apps, web_groups) = Apps::new(&scenario, &topo, &mut events, &mut tcp);
        let udp_flows = apps.flows.len();
        let ends = apps.flows.iter().map(|f| (f.src, f.dst));
        let network = Network::new(&scenario, topo, seed, &tcp.conns.all, ends, &mut events);
        for group in web_groups {
            apps.add_web_users(group, &scenario, &network.topo, &mut events);
        }
        tcp.start_route_cache();
        let measure = Measurement::new(udp_flows, network.links.len(), tcp.conns.all.len());
        Simulation {
            scenario,
            now: Time::ZERO,
            events,
            processed: 0,
            wall: started.elapsed(),
            next_check: 0,
            network,
            tcp,
            apps,
            measure,
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
                // The wall time of this `run_until` is not yet in `self.wall`.
                let wall = self.wall + started.elapsed();
                let (s, m) = (&self.scenario, &self.measure);
                m.check_limits(s, self.processed, wall, self.now)
                    .map_err(Stop::Limit)?;
                if poll() {
                    return Err(Stop::Interrupted);
                }
                self.next_check = self.processed + POLL_EVERY;
                self.network.prefetching = self.network.outgrows_cache(self.tcp.conns.all.len());
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
                    let l = &mut self.network.links[link as usize];
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
        let now = self.now;
        let (events, network, tcp) = (&mut self.events, &mut self.network, &mut self.tcp);
        match event {
            Event::Arrive { .. } | Event::ArriveInOrder { .. } => {
                unreachable!("handled by the loop")
            }
            Event::TxDone { link } => network.tx_done(link, now, events, &mut tcp.conns),
            Event::Source { source } => self.apps.source_fires(source, now, events, tcp, network),
            Event::TcpOpen { conn } => {
                tcp.open(conn, now, events, network);
                self.apps.session_opened(conn, now, events, tcp);
            }
            Event::TcpTimer { conn, which } => {
                if tcp.timer(conn, which, now, events, network) {
                    let (apps, mut below) = self.below();
                    apps.web_settle(conn, now, &mut below);
                }
            }
            Event::QdiscTimer { link } => network.qdisc_timer(link, now, events, &mut tcp.conns),
            Event::WebUser { user } => {
                let (apps, mut below) = self.below();
                apps.web_user_wakes(user, now, &mut below);
            }
            Event::AppWake { conn } => {
                let (apps, mut below) = self.below();
                apps.app_wakes(conn, now, &mut below);
            }
            Event::WarmupEnd => self.warmup_ends(),
        }
    }

    /// The applications, and the parts below them lent to them.
    #[inline(always)]
    fn below(&mut self) -> (&mut Apps, Below<'_>) {
        let below = Below {
            events: &mut self.events,
            tcp: &mut self.tcp,
            network: &mut self.network,
            measure: &mut self.measure,
        };
        (&mut self.apps, below)
    }

    /// Packet `pkt` reaches node `node`: a router forwards it, its destination takes it.
    fn arrive(&mut self, node: u32, pkt: PacketId) {
        let p = self.network.packets.get(pkt);
        let dst = p.dst;
        if node != dst {
            let (now, events, conns) = (self.now, &mut self.events, &mut self.tcp.conns);
            return self.network.forward(node, dst, pkt, now, events, conns);
        }
        match p.proto {
            Proto::Udp => self.apps.udp_arrives(pkt, self.now, &mut self.network),
            Proto::Tcp => self.tcp_deliver(pkt),
        }
    }

    /// Packet `pkt` reaches its TCP endpoint: the endpoint handles it, the application reacts,
    /// what the endpoint produced is sent (the first packet taking `pkt`'s slot,
    /// [`TcpTraffic::emit_inline`]) and a web pair is settled.
    ///
    /// Out of line, with the sending inline in it: inline in the event loop it made the loop's
    /// code worse around it (more than a call costs), and a call of its own to send looked the
    /// connection and its configuration up again.
    #[inline(never)]
    fn tcp_deliver(&mut self, pkt: PacketId) {
        let now = self.now;
        let trace = &mut self.measure.trace;
        let (c, side, app_reacts) = self.tcp.receive(pkt, now, &self.network, trace);
        // Only web pairs, sessions and `ns2-http` connections react, each test looking the
        // connection up.
        if app_reacts {
            let (apps, mut below) = self.below();
            apps.progress(c, side, now, &mut below);
        }
        let (events, network) = (&mut self.events, &mut self.network);
        self.tcp
            .emit_inline(c, side, Some(pkt), now, events, network);
        if app_reacts {
            let (apps, mut below) = self.below();
            apps.web_settle(c, now, &mut below);
        }
    }

    /// The warm-up ends: every link's transmissions are finished up to now, the snapshot is taken
    /// and the links start counting into the queue table.
    fn warmup_ends(&mut self) {
        let now = self.now;
        let conns = &mut self.tcp.conns;
        self.network.catch_up_all(now, now, &mut self.events, conns);
        let network = &mut self.network;
        self.measure.warmup_ends(
            now,
            &mut network.links,
            &network.packets,
            &network.udp,
            &conns.all,
        );
        network.measuring = true;
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
        self.apps.log_unfinished(&self.tcp, &mut self.measure);
        self.measure
            .check_tables(&self.scenario, self.processed, self.now)?;
        let end = self.scenario.duration;
        let conns = &mut self.tcp.conns;
        self.network.finish(end, self.now, &mut self.events, conns);
        self.wall += started.elapsed();
        Ok(Report::new(self))
    }

    /// Write the packet traces the scenario's `[capture]` asks for into `dir` (`<link>.pcap`),
    /// from now on; call before running, and [`finish_capture`](Self::finish_capture) after.
    pub fn capture_to(&mut self, dir: &Path) -> io::Result<()> {
        self.network.capture_to(&self.scenario, dir)
    }

    /// Flush and close the packet traces; the first error met while writing them, if any.
    pub fn finish_capture(&mut self) -> io::Result<()> {
        self.network.finish_capture()
    }
}
