//! What a run of a scenario starts, drawn as a simulated run draws it and known before it runs:
//! each flow's random stream, start time and hosts, and the UDP sources' packets (what live mode
//! starts and sends on real hosts).

use crate::network::Topo;
use crate::rng::Rng;
use crate::scenario::Scenario;
use crate::traffic::config::{Side, Start, TrafficKind, TrafficSpec, Transfer};
use crate::traffic::udp::UdpSource;
use crate::units::Time;

/// A flow's start time, drawn from its own stream when the group gives a distribution.
pub(crate) fn draw_start(start: Start, rng: &mut Rng) -> Time {
    match start {
        Start::At(t) => t,
        Start::Uniform { min, max } => Time(rng.uniform_u64(min.0, max.0)),
        Start::Exponential { mean } => Time(rng.exponential(mean.0 as f64).round() as u64),
    }
}

/// Flow `k` of group `spec` under `seed`: its random stream (`traffic.<group>[k]`) and its start
/// time, the stream's first draw when the group gives a distribution.
pub(crate) fn flow_start(spec: &TrafficSpec, seed: u64, k: u32) -> (Rng, Time) {
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
/// transfer sizes a simulated run gives them (on the dumbbell, whose servers are nodes `0..S`
/// and clients `S..`: what live mode runs).
pub fn planned_flows(scenario: &Scenario, seed: u64) -> Vec<PlannedFlow> {
    let net = &scenario.net;
    let servers = net.servers.len() as u32;
    let mut plan = Vec::new();
    for (g, spec) in scenario.traffic.iter().enumerate() {
        for k in 0..spec.flows {
            let (server, client) = spec.flow_hosts(k, (&net.servers, &net.clients));
            let client = client - servers;
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
pub(crate) fn hosts_of(topo: &Topo, spec: &TrafficSpec, k: u32) -> (u32, u32) {
    spec.flow_hosts(k, (&topo.net.servers, &topo.net.clients))
}

/// The (source, destination) node ids of flow `k` of group `spec`.
pub(crate) fn endpoints(topo: &Topo, spec: &TrafficSpec, k: u32) -> (u32, u32) {
    let (server, client) = hosts_of(topo, spec, k);
    match spec.from {
        Side::Servers => (server, client),
        Side::Clients => (client, server),
    }
}
