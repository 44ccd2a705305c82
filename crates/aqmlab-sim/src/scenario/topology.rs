//! `[topology]`: a named topology with its parameters, each a shorthand for nodes and links
//! (`graph.rs`, `docs/scenario.md`): the dumbbell (the default `kind`), the parking lot and
//! access-core. A scenario gives either `[topology]` or its own `[[node]]`s and `[[link]]`s
//! ([`Topology`]).
//!
//! Each named topology expands into a [`Graph`], and only that graph is simulated: its hosts
//! (servers, then clients), its routers, and its links in the order the dumbbell's numbering
//! (`network.rs`) fixes — every host's access link, then the routers' links. So the dumbbell's
//! expansion is the network the engine always built, link for link and name for name.

use super::graph::{Graph, LinkDef, NodeDef, NodeKind};
use super::queue::{Queue, QueueSite};
use super::reader::{
    choice, duration, expected, integer, join, list, queue_limit, rate, size_or_zero, Fields,
    Result, ScenarioError,
};
use crate::network::{AccessSpec, DumbbellSpec, Framing, LinkSpec, PairDelay};
use crate::queue::config::QueueSpec;
use crate::units::{QueueLimit, Rate, Time};
use serde::Serialize;
use serde_json::Value;

/// A parking lot (Floyd 1991, fig. 1): `hops` bottlenecks in a row, routers `r0` … `rN`. Host
/// `s0` at `r0` sends across every hop to `c0` at `rN`; for each hop `i` (`r(i−1)` → `ri`),
/// host `si` at `r(i−1)` sends across it alone to `ci` at `ri`.
#[derive(Clone, Debug, Serialize)]
pub struct ParkingLot {
    pub hops: u32,
    /// Every hop, each direction.
    pub bottleneck: LinkSpec,
    /// Every host ↔ router link.
    pub access: AccessSpec,
}

/// A home network behind an access link behind a core link: servers behind `r1`, the core link
/// `r1` ↔ `r2`, the access link `r2` ↔ `r3` (the `bottleneck`, whose queues are `[queue]` and
/// `[reverse_queue]`), clients behind the home router `r3`.
#[derive(Clone, Debug, Serialize)]
pub struct AccessCore {
    pub servers: u32,
    pub clients: u32,
    /// The core link, each direction, with a drop-tail queue of `queue` each way.
    pub core: CoreSpec,
    pub bottleneck: LinkSpec,
    pub access: AccessSpec,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct CoreSpec {
    pub rate: Rate,
    pub delay: Time,
    pub queue: QueueLimit,
    pub framing: Framing,
}

/// A named topology, as `[topology]` gives it.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Preset {
    Dumbbell(DumbbellSpec),
    ParkingLot(ParkingLot),
    AccessCore(AccessCore),
}

/// A scenario's network: a named topology with the queues of its bottleneck (`[queue]`,
/// `[reverse_queue]`), or nodes and links as given.
#[derive(Clone, Debug)]
pub enum Topology {
    Preset(Preset),
    Graph(Graph),
}

impl Topology {
    /// The dumbbell's parameters, if the topology is the dumbbell.
    pub fn dumbbell(&self) -> Option<&DumbbellSpec> {
        match self {
            Topology::Preset(Preset::Dumbbell(d)) => Some(d),
            _ => None,
        }
    }
}

/// What the dumbbell's access links are when `access` is not given.
const DEFAULT_ACCESS: AccessSpec = AccessSpec {
    rate: Rate(100_000_000),
    delay: Time::ZERO,
    queue: QueueLimit::Packets(50),
    framing: Framing::NONE,
};

/// The most hops of a parking lot.
pub const MAX_HOPS: u64 = 1000;

pub(super) fn parse_topology(v: &Value, path: &str) -> Result<Preset> {
    let mut f = Fields::of(v, path)?;
    let kind = f.or(
        "kind",
        "dumbbell",
        choice(&["dumbbell", "parking-lot", "access-core"]),
    )?;
    let preset = match kind {
        "dumbbell" => {
            let servers = f.or("servers", 1, integer(1, 65_535))? as u32;
            let clients = f.or("clients", 1, integer(1, 65_535))? as u32;
            let bottleneck = f.req("bottleneck", parse_link_spec)?;
            let access = f.or("access", DEFAULT_ACCESS, parse_access)?;
            let pairs = servers as usize * clients as usize;
            let pair_delay = f.or("pair_delay", PairDelay::Constant(Time::ZERO), |v, p| {
                parse_pair_delay(v, p, pairs)
            })?;
            Preset::Dumbbell(DumbbellSpec {
                servers,
                clients,
                bottleneck,
                access,
                pair_delay,
            })
        }
        "parking-lot" => Preset::ParkingLot(ParkingLot {
            hops: f.or("hops", 2, integer(1, MAX_HOPS))? as u32,
            bottleneck: f.req("bottleneck", parse_link_spec)?,
            access: f.or("access", DEFAULT_ACCESS, parse_access)?,
        }),
        _ => Preset::AccessCore(AccessCore {
            servers: f.or("servers", 1, integer(1, 65_535))? as u32,
            clients: f.or("clients", 1, integer(1, 65_535))? as u32,
            core: f.req("core", |v, p| {
                let mut c = Fields::of(v, p)?;
                let spec = CoreSpec {
                    rate: c.req("rate", rate)?,
                    delay: c.or("delay", Time::ZERO, duration)?,
                    queue: c.or("queue", QueueLimit::Packets(50), queue_limit)?,
                    framing: c.or("framing", Framing::NONE, parse_framing)?,
                };
                c.finish()?;
                Ok(spec)
            })?,
            bottleneck: f.req("bottleneck", parse_link_spec)?,
            access: f.or("access", DEFAULT_ACCESS, parse_access)?,
        }),
    };
    f.finish()?;
    Ok(preset)
}

fn parse_link_spec(v: &Value, p: &str) -> Result<LinkSpec> {
    let mut b = Fields::of(v, p)?;
    let spec = LinkSpec {
        rate: b.req("rate", rate)?,
        delay: b.or("delay", Time::ZERO, duration)?,
        framing: b.or("framing", Framing::NONE, parse_framing)?,
    };
    b.finish()?;
    Ok(spec)
}

fn parse_access(v: &Value, p: &str) -> Result<AccessSpec> {
    let d = DEFAULT_ACCESS;
    let mut a = Fields::of(v, p)?;
    let spec = AccessSpec {
        rate: a.or("rate", d.rate, rate)?,
        delay: a.or("delay", d.delay, duration)?,
        queue: a.or("queue", d.queue, queue_limit)?,
        framing: a.or("framing", d.framing, parse_framing)?,
    };
    a.finish()?;
    Ok(spec)
}

/// The largest framing overhead or minimum payload a scenario may name.
const MAX_FRAMING_BYTES: u64 = 65_535;

/// `"none"`, `"ethernet"` or `{ overhead = "38B", min_payload = "46B" }` (min_payload defaults to
/// 0B).
pub(super) fn parse_framing(v: &Value, path: &str) -> Result<Framing> {
    let what = "\"none\", \"ethernet\" or a table { overhead = \"38B\", min_payload = \"46B\" }";
    match v {
        Value::String(s) if s == "none" => Ok(Framing::NONE),
        Value::String(s) if s == "ethernet" => Ok(Framing::ETHERNET),
        Value::Object(_) => {
            let mut f = Fields::of(v, path)?;
            let bytes = |v: &Value, p: &str| -> Result<u32> {
                let b = size_or_zero(v, p)?;
                if b.bytes() > MAX_FRAMING_BYTES {
                    return Err(ScenarioError::new(
                        p,
                        format!("expected a size up to {MAX_FRAMING_BYTES}B, got \"{b}\""),
                    ));
                }
                Ok(b.bytes() as u32)
            };
            let framing = Framing {
                overhead: f.req("overhead", bytes)?,
                min_payload: f.or("min_payload", 0, bytes)?,
            };
            f.finish()?;
            Ok(framing)
        }
        other => Err(expected(path, what, other)),
    }
}

fn parse_pair_delay(v: &Value, path: &str, pairs: usize) -> Result<PairDelay> {
    match v {
        Value::String(_) => Ok(PairDelay::Constant(duration(v, path)?)),
        Value::Array(_) => {
            let ts = list(duration)(v, path)?;
            if ts.len() != pairs {
                return Err(ScenarioError::new(
                    path,
                    format!(
                        "expected {pairs} delays (servers × clients, entry c·servers + s), got {}",
                        ts.len()
                    ),
                ));
            }
            Ok(PairDelay::List(ts))
        }
        Value::Object(_) => {
            let mut f = Fields::of(v, path)?;
            f.req("dist", choice(&["uniform"]))?;
            let min = f.req("min", duration)?;
            let max = f.req("max", duration)?;
            f.finish()?;
            if min > max {
                return Err(ScenarioError::new(
                    join(path, "min"),
                    format!("expected min ≤ max, got min \"{min}\" > max \"{max}\""),
                ));
            }
            Ok(PairDelay::Uniform { min, max })
        }
        _ => Err(ScenarioError::new(
            path,
            "expected a duration, a list of durations or a table { dist = \"uniform\", min, max }",
        )),
    }
}

/// A named topology as nodes and links, and what the rest of the scenario needs of it.
pub struct Expansion {
    pub graph: Graph,
    /// The hosts a traffic group uses unless it names its own: (servers, clients).
    pub servers: Vec<String>,
    pub clients: Vec<String>,
    /// The one-way links `[queue]` and `[reverse_queue]` sit on.
    pub queue_on: Vec<u32>,
    pub reverse_queue_on: Vec<u32>,
}

/// Builds a preset's graph: its nodes, then links added in order.
struct Builder {
    nodes: Vec<NodeDef>,
    links: Vec<LinkDef>,
}

impl Builder {
    fn node(&mut self, name: String, kind: NodeKind) -> String {
        self.nodes.push(NodeDef {
            name: name.clone(),
            kind,
        });
        name
    }

    /// A host's access link: `<host>.up` to `router`, `<host>.down` back, drop-tail both ways
    /// (the router → host direction `down_extra` slower: a constant pair delay).
    fn access(&mut self, host: &str, router: &str, a: &AccessSpec, down_extra: Time) {
        let queue = Queue {
            spec: QueueSpec::DropTail { limit: a.queue },
            sizes: None,
        };
        self.links.push(LinkDef {
            from: host.to_string(),
            to: router.to_string(),
            name: format!("{host}.up"),
            reverse_name: format!("{host}.down"),
            rate: a.rate,
            reverse_rate: a.rate,
            delay: a.delay,
            reverse_delay: a.delay + down_extra,
            framing: a.framing,
            queue: queue.clone(),
            reverse_queue: queue,
            measure: false,
        });
    }

    /// A link between routers `a` and `b`, named `names` (default `a-b`, `b-a`), logged; its
    /// one-way link ids.
    fn core(
        &mut self,
        (a, b): (&str, &str),
        names: Option<(&str, &str)>,
        spec: &LinkSpec,
        queues: (&Queue, &Queue),
    ) -> (u32, u32) {
        let (name, reverse_name) = match names {
            Some((n, r)) => (n.to_string(), r.to_string()),
            None => (format!("{a}-{b}"), format!("{b}-{a}")),
        };
        self.links.push(LinkDef {
            from: a.to_string(),
            to: b.to_string(),
            name,
            reverse_name,
            rate: spec.rate,
            reverse_rate: spec.rate,
            delay: spec.delay,
            reverse_delay: spec.delay,
            framing: spec.framing,
            queue: queues.0.clone(),
            reverse_queue: queues.1.clone(),
            measure: true,
        });
        let i = 2 * (self.links.len() as u32 - 1);
        (i, i + 1)
    }
}

impl Preset {
    /// Where `[queue]` sits, for its sizes and RED's automatic parameters: the bottleneck's rate
    /// and delay, and the RTT of a `"bdp"` — the dumbbell's mean base RTT over its pairs, the
    /// parking lot's end-to-end pair's (`s0` → `c0`, across every hop), access-core's (every pair
    /// has the same); each twice the one-way propagation delays, no transmission or queueing.
    pub fn queue_site(&self) -> QueueSite {
        let (link, mean_rtt) = match self {
            Preset::Dumbbell(d) => (d.bottleneck, d.mean_base_rtt()),
            Preset::ParkingLot(p) => (
                p.bottleneck,
                Time(
                    (p.bottleneck.delay.0.saturating_mul(u64::from(p.hops)))
                        .saturating_add(p.access.delay.0.saturating_mul(2))
                        .saturating_mul(2),
                ),
            ),
            Preset::AccessCore(a) => (
                a.bottleneck,
                Time(
                    (a.bottleneck.delay.0.saturating_add(a.core.delay.0))
                        .saturating_add(a.access.delay.0.saturating_mul(2))
                        .saturating_mul(2),
                ),
            ),
        };
        QueueSite {
            rate: link.rate,
            delay: link.delay,
            mean_rtt,
        }
    }

    /// The topology as nodes and links, with `queue` and `reverse_queue` on its bottleneck. A
    /// dumbbell's constant pair delay is part of every router → host link's delay (each packet
    /// between a server and a client crosses one); a listed or drawn one is not (the run adds it
    /// per pair: [`crate::network::Net::dumbbell`]).
    pub fn expand(&self, queue: &Queue, reverse_queue: &Queue) -> Expansion {
        let mut b = Builder {
            nodes: Vec::new(),
            links: Vec::new(),
        };
        let hosts = |b: &mut Builder, prefix: char, n: u32| -> Vec<String> {
            (0..n)
                .map(|i| b.node(format!("{prefix}{i}"), NodeKind::Host))
                .collect()
        };
        let (servers, clients, queue_on, reverse_queue_on) = match self {
            Preset::Dumbbell(d) => {
                let (servers, clients) =
                    (hosts(&mut b, 's', d.servers), hosts(&mut b, 'c', d.clients));
                let r1 = b.node("r1".into(), NodeKind::Router);
                let r2 = b.node("r2".into(), NodeKind::Router);
                let down_extra = match d.pair_delay {
                    PairDelay::Constant(t) => t,
                    _ => Time::ZERO,
                };
                for (side, router) in [(&servers, &r1), (&clients, &r2)] {
                    for h in side {
                        b.access(h, router, &d.access, down_extra);
                    }
                }
                let names = Some(("forward", "reverse"));
                let (f, r) = b.core((&r1, &r2), names, &d.bottleneck, (queue, reverse_queue));
                (servers, clients, vec![f], vec![r])
            }
            Preset::ParkingLot(p) => {
                let (servers, clients) = (
                    hosts(&mut b, 's', p.hops + 1),
                    hosts(&mut b, 'c', p.hops + 1),
                );
                let routers: Vec<String> = (0..=p.hops)
                    .map(|i| b.node(format!("r{i}"), NodeKind::Router))
                    .collect();
                // s0 at r0, c0 at rN; si at r(i−1), ci at ri.
                for (i, s) in servers.iter().enumerate() {
                    b.access(s, &routers[i.saturating_sub(1)], &p.access, Time::ZERO);
                }
                for (i, c) in clients.iter().enumerate() {
                    let at = if i == 0 { p.hops as usize } else { i };
                    b.access(c, &routers[at], &p.access, Time::ZERO);
                }
                let (mut on, mut reverse_on) = (Vec::new(), Vec::new());
                for w in routers.windows(2) {
                    let (f, r) =
                        b.core((&w[0], &w[1]), None, &p.bottleneck, (queue, reverse_queue));
                    on.push(f);
                    reverse_on.push(r);
                }
                (servers, clients, on, reverse_on)
            }
            Preset::AccessCore(a) => {
                let (servers, clients) =
                    (hosts(&mut b, 's', a.servers), hosts(&mut b, 'c', a.clients));
                let [r1, r2, r3] = ["r1", "r2", "r3"].map(|r| b.node(r.into(), NodeKind::Router));
                for s in &servers {
                    b.access(s, &r1, &a.access, Time::ZERO);
                }
                for c in &clients {
                    b.access(c, &r3, &a.access, Time::ZERO);
                }
                let core = LinkSpec {
                    rate: a.core.rate,
                    delay: a.core.delay,
                    framing: a.core.framing,
                };
                let fifo = Queue {
                    spec: QueueSpec::DropTail {
                        limit: a.core.queue,
                    },
                    sizes: None,
                };
                b.core((&r1, &r2), None, &core, (&fifo, &fifo));
                let (f, r) = b.core((&r2, &r3), None, &a.bottleneck, (queue, reverse_queue));
                (servers, clients, vec![f], vec![r])
            }
        };
        Expansion {
            graph: Graph {
                nodes: b.nodes,
                links: b.links,
                routes: Vec::new(),
            },
            servers,
            clients,
            queue_on,
            reverse_queue_on,
        }
    }
}
