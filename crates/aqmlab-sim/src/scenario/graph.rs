//! `[[node]]`, `[[link]]` and `[[route]]`: a network as data (`docs/scenario.md`, "Nodes, links
//! and routes"), and its translation into the [`Net`] a run simulates: node ids (hosts first),
//! one-way links, and forwarding tables ([`crate::routing`]) with the explicit routes in them.
//! Every named topology (`[topology]`, `topology.rs`) expands into this form.

use super::queue::{parse_queue, Queue, QueueSite};
use super::reader::{boolean, choice, duration, list, rate, string, Fields, Result, ScenarioError};
use super::topology::parse_framing;
use crate::network::{Framing, Net, NetLink};
use crate::routing::{self, Arc, RouteError, Routes};
use crate::units::{Rate, Time};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The most nodes a network may have (the dumbbell's 2 · 65,535 hosts and its two routers fit).
pub const MAX_NODES: usize = 1 << 18;

/// Names a link direction may not have: they are the summary's own sections, beside which each
/// logged link direction has one of its name.
pub const RESERVED_NAMES: [&str; 5] = ["meta", "warnings", "checks", "requests", "groups"];

/// A node: a host (it sends and receives; it forwards nothing) or a router.
#[derive(Clone, Debug, Serialize)]
pub struct NodeDef {
    pub name: String,
    pub kind: NodeKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Host,
    Router,
}

/// A full-duplex link between two nodes: two one-way links, `from` → `to` (`name`, `rate`,
/// `delay`, `queue`) and back (`reverse_name`, `reverse_rate`, `reverse_delay`,
/// `reverse_queue`), with one framing.
#[derive(Clone, Debug, Serialize)]
pub struct LinkDef {
    pub from: String,
    pub to: String,
    pub name: String,
    pub reverse_name: String,
    pub rate: Rate,
    pub reverse_rate: Rate,
    pub delay: Time,
    pub reverse_delay: Time,
    pub framing: Framing,
    pub queue: Queue,
    pub reverse_queue: Queue,
    /// Whether both directions are logged (the `queue` and `link` tables, the summary).
    pub measure: bool,
}

/// An explicit route: node `at` sends packets for the hosts `to` to its neighbour `via`.
#[derive(Clone, Debug, Serialize)]
pub struct RouteDef {
    pub at: String,
    pub to: Vec<String>,
    pub via: String,
}

/// A network as the scenario describes it.
#[derive(Clone, Debug, Serialize)]
pub struct Graph {
    #[serde(rename = "node")]
    pub nodes: Vec<NodeDef>,
    #[serde(rename = "link")]
    pub links: Vec<LinkDef>,
    #[serde(rename = "route", skip_serializing_if = "Vec::is_empty")]
    pub routes: Vec<RouteDef>,
}

/// A node or link name: letters, digits, `_`, `.` (and `-` in a link's name, whose default is
/// `from-to`), not starting with `.`. Names become file names (`<link>.pcap`) and random
/// streams' names.
fn name(link: bool) -> impl Fn(&Value, &str) -> Result<String> {
    move |v, path| {
        let s = string(v, path)?;
        let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.' || (link && c == '-');
        if s.is_empty() || s.starts_with('.') || !s.chars().all(ok) || s.len() > 64 {
            let dash = if link { ", '-'" } else { "" };
            return Err(ScenarioError::new(
                path,
                format!(
                    "expected a name of 1 to 64 letters, digits, '_', '.'{dash} (not starting \
                     with '.'), got \"{}\"",
                    s.escape_debug()
                ),
            ));
        }
        Ok(s)
    }
}

fn parse_nodes(v: &Value, path: &str) -> Result<Vec<NodeDef>> {
    let nodes = list(|v, p| {
        let mut f = Fields::of(v, p)?;
        let node = NodeDef {
            name: f.req("name", name(false))?,
            kind: match f.req("kind", choice(&["host", "router"]))? {
                "host" => NodeKind::Host,
                _ => NodeKind::Router,
            },
        };
        f.finish()?;
        Ok(node)
    })(v, path)?;
    if nodes.len() > MAX_NODES {
        return Err(ScenarioError::new(
            path,
            format!("expected at most {MAX_NODES} nodes, got {}", nodes.len()),
        ));
    }
    let mut seen = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Some(j) = seen.insert(n.name.as_str(), i) {
            return Err(ScenarioError::new(
                format!("{path}[{i}].name"),
                format!("\"{}\" names node[{j}] already", n.name),
            ));
        }
    }
    Ok(nodes)
}

/// Names the nodes so far: name → (position, kind).
type NodeIndex<'a> = BTreeMap<&'a str, (usize, NodeKind)>;

/// One `[[link]]` table at `path`, its ends among the nodes of `index`.
fn parse_link(v: &Value, path: &str, index: &NodeIndex) -> Result<LinkDef> {
    let mut f = Fields::of(v, path)?;
    let mut node = |key: &'static str| -> Result<(String, NodeKind)> {
        let at = f.key_path(key);
        let n = f.req(key, string)?;
        match index.get(n.as_str()) {
            Some(&(_, kind)) => Ok((n, kind)),
            None => Err(ScenarioError::new(
                at,
                format!(
                    "unknown node \"{}\" (expected the name of a [[node]])",
                    n.escape_debug()
                ),
            )),
        }
    };
    let (from, from_kind) = node("from")?;
    let (to, to_kind) = node("to")?;
    if from == to {
        return Err(ScenarioError::new(
            f.key_path("to"),
            format!("a link from \"{from}\" to itself"),
        ));
    }
    let name_of = name(true);
    let name = f.or("name", format!("{from}-{to}"), &name_of)?;
    let reverse_name = f.or("reverse_name", format!("{to}-{from}"), &name_of)?;
    let rate = f.req("rate", rate)?;
    let reverse_rate = f.or("reverse_rate", rate, super::reader::rate)?;
    let delay = f.or("delay", Time::ZERO, duration)?;
    let reverse_delay = f.or("reverse_delay", delay, duration)?;
    let framing = f.or("framing", Framing::NONE, parse_framing)?;
    // A general link has no mean base RTT: a queue sized as a BDP gives its own `rtt`.
    let site = |rate, delay| QueueSite {
        rate,
        delay,
        mean_rtt: Time::ZERO,
    };
    let queue = f.or("queue", Queue::default_droptail(), |v, p| {
        parse_queue(v, p, &site(rate, delay))
    })?;
    let reverse_queue = f.or("reverse_queue", Queue::default_droptail(), |v, p| {
        parse_queue(v, p, &site(reverse_rate, reverse_delay))
    })?;
    let between_routers = from_kind == NodeKind::Router && to_kind == NodeKind::Router;
    let measure = f.or("measure", between_routers, boolean)?;
    f.finish()?;
    Ok(LinkDef {
        from,
        to,
        name,
        reverse_name,
        rate,
        reverse_rate,
        delay,
        reverse_delay,
        framing,
        queue,
        reverse_queue,
        measure,
    })
}

fn parse_route(v: &Value, path: &str, index: &NodeIndex, graph: &Graph) -> Result<RouteDef> {
    let mut f = Fields::of(v, path)?;
    let known = |n: &str, at: &str| -> Result<NodeKind> {
        index.get(n).map(|&(_, k)| k).ok_or_else(|| {
            ScenarioError::new(
                at,
                format!(
                    "unknown node \"{}\" (expected the name of a [[node]])",
                    n.escape_debug()
                ),
            )
        })
    };
    let at_path = f.key_path("at");
    let at = f.req("at", string)?;
    known(&at, &at_path)?;
    let to_path = f.key_path("to");
    let to = match f.get("to") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(v) => list(string)(v, &to_path)?,
        None => return Err(ScenarioError::new(to_path, "required key is missing")),
    };
    for (i, d) in to.iter().enumerate() {
        let p = format!("{to_path}[{i}]");
        if known(d, &p)? != NodeKind::Host {
            return Err(ScenarioError::new(
                p,
                format!("\"{d}\" is a router: routes lead to hosts"),
            ));
        }
        if *d == at {
            return Err(ScenarioError::new(
                p,
                format!("a route at \"{at}\" to itself"),
            ));
        }
    }
    let via_path = f.key_path("via");
    let via = f.req("via", string)?;
    let via_kind = known(&via, &via_path)?;
    let linked = graph
        .links
        .iter()
        .any(|l| (l.from == at && l.to == via) || (l.to == at && l.from == via));
    if !linked {
        return Err(ScenarioError::new(
            via_path,
            format!("\"{via}\" has no link with \"{at}\""),
        ));
    }
    if via_kind == NodeKind::Host && !to.iter().all(|d| *d == via) {
        return Err(ScenarioError::new(
            via_path,
            format!(
                "\"{via}\" is a host, which forwards nothing: a route via it leads to it alone"
            ),
        ));
    }
    f.finish()?;
    Ok(RouteDef { at, to, via })
}

/// Reads the scenario's `node`, `link` and `route` arrays (`f`: the top-level table).
pub fn parse_graph(f: &mut Fields) -> Result<Graph> {
    let nodes = f.req("node", parse_nodes)?;
    let index: NodeIndex = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.name.as_str(), (i, n.kind)))
        .collect();
    let links_path = f.key_path("link");
    let links = f.req("link", |v, p| list(|v, p| parse_link(v, p, &index))(v, p))?;
    let mut graph = Graph {
        nodes: nodes.clone(),
        links,
        routes: Vec::new(),
    };
    check_links(&graph, &links_path)?;
    if let Some(v) = f.get("route") {
        let path = f.key_path("route");
        let routes = list(|v, p| parse_route(v, p, &index, &graph))(v, &path)?;
        graph.routes = routes;
        let mut seen = BTreeMap::new();
        for (i, r) in graph.routes.iter().enumerate() {
            for (j, d) in r.to.iter().enumerate() {
                if let Some(k) = seen.insert((r.at.as_str(), d.as_str()), i) {
                    return Err(ScenarioError::new(
                        format!("{path}[{i}].to[{j}]"),
                        format!("a second route at \"{}\" to \"{d}\" (route[{k}])", r.at),
                    ));
                }
            }
        }
    }
    Ok(graph)
}

/// Two links between the same two nodes, two link directions of one name, a reserved name, a
/// node without a link: refused, naming the key.
fn check_links(g: &Graph, path: &str) -> Result<()> {
    let mut pairs = BTreeMap::new();
    let mut names: BTreeMap<&str, String> = BTreeMap::new();
    for (i, l) in g.links.iter().enumerate() {
        let pair = if l.from < l.to {
            (l.from.as_str(), l.to.as_str())
        } else {
            (l.to.as_str(), l.from.as_str())
        };
        if let Some(j) = pairs.insert(pair, i) {
            return Err(ScenarioError::new(
                format!("{path}[{i}].to"),
                format!(
                    "a second link between \"{}\" and \"{}\" (link[{j}]): one link joins two nodes",
                    pair.0, pair.1
                ),
            ));
        }
        for (key, n) in [("name", &l.name), ("reverse_name", &l.reverse_name)] {
            let here = format!("{path}[{i}].{key}");
            if RESERVED_NAMES.contains(&n.as_str()) {
                return Err(ScenarioError::new(
                    here,
                    format!(
                        "\"{n}\" is a section of the summary (reserved: {})",
                        RESERVED_NAMES.join(", ")
                    ),
                ));
            }
            if let Some(other) = names.insert(n, here.clone()) {
                return Err(ScenarioError::new(
                    here,
                    format!("\"{n}\" names another link direction already ({other})"),
                ));
            }
        }
    }
    let linked: std::collections::BTreeSet<&str> = g
        .links
        .iter()
        .flat_map(|l| [l.from.as_str(), l.to.as_str()])
        .collect();
    if let Some(i) = g
        .nodes
        .iter()
        .position(|n| !linked.contains(n.name.as_str()))
    {
        return Err(ScenarioError::new(
            format!("node[{i}]"),
            format!("\"{}\" has no [[link]]", g.nodes[i].name),
        ));
    }
    Ok(())
}

impl Graph {
    /// Node ids: the hosts in the order given, then the routers (name → id).
    fn ids(&self) -> BTreeMap<&str, u32> {
        let hosts = self.nodes.iter().filter(|n| n.kind == NodeKind::Host);
        let routers = self.nodes.iter().filter(|n| n.kind == NodeKind::Router);
        hosts
            .chain(routers)
            .enumerate()
            .map(|(i, n)| (n.name.as_str(), i as u32))
            .collect()
    }

    /// The network to simulate: node ids (hosts first), link `i` as the one-way links `2i`
    /// (from → to) and `2i + 1`, shortest-path tables with the explicit routes in them. Errors
    /// name the node or route at fault: a host that cannot reach another, a route that loops or
    /// leads nowhere, a network too large to route.
    pub fn net(&self) -> Result<Net> {
        let ids = self.ids();
        let hosts = self
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Host)
            .count() as u32;
        let mut nodes = vec![String::new(); self.nodes.len()];
        for (name, &id) in &ids {
            nodes[id as usize] = name.to_string();
        }
        let mut links = Vec::with_capacity(2 * self.links.len());
        for l in &self.links {
            let (a, b) = (ids[l.from.as_str()], ids[l.to.as_str()]);
            let way = |name: &String, from, to, rate, delay, queue: &Queue| NetLink {
                name: name.clone(),
                from,
                to,
                rate,
                delay,
                framing: l.framing,
                queue: queue.spec.clone(),
                monitored: l.measure,
            };
            links.push(way(&l.name, a, b, l.rate, l.delay, &l.queue));
            links.push(way(
                &l.reverse_name,
                b,
                a,
                l.reverse_rate,
                l.reverse_delay,
                &l.reverse_queue,
            ));
        }
        let arcs: Vec<Arc> = links
            .iter()
            .map(|l| Arc {
                from: l.from,
                to: l.to,
                delay: l.delay,
            })
            .collect();
        let g = routing::Graph {
            nodes: nodes.len() as u32,
            hosts,
            arcs: &arcs,
        };
        if g.work() > routing::MAX_WORK {
            return Err(ScenarioError::new(
                "link",
                format!(
                    "routing this network would take about {} link visits, more than the {} \
                     allowed (each router with hosts and each host linked to more than one \
                     router costs a pass over every link)",
                    g.work(),
                    routing::MAX_WORK
                ),
            ));
        }
        let mut routes = Routes::compute(&g).map_err(|e| match e {
            RouteError::Unreachable { from, to } => {
                let (from, to) = (&nodes[from as usize], &nodes[to as usize]);
                let i = self.position(from);
                ScenarioError::new(
                    format!("node[{i}]"),
                    format!(
                        "host \"{from}\" cannot reach host \"{to}\": the network is not \
                         connected (hosts forward nothing)"
                    ),
                )
            }
            RouteError::TooLarge { entries } => ScenarioError::new(
                "link",
                format!(
                    "the forwarding tables would hold {entries} entries (routers with more than \
                     one link × hosts), more than the {} allowed",
                    routing::MAX_TABLE_ENTRIES
                ),
            ),
        })?;
        for r in &self.routes {
            let (at, via) = (ids[r.at.as_str()], ids[r.via.as_str()]);
            let link = links
                .iter()
                .position(|l| l.from == at && l.to == via)
                .expect("validated: `via` is linked to `at`") as u32;
            for d in &r.to {
                routes.set(at, ids[d.as_str()], link);
            }
        }
        for (i, r) in self.routes.iter().enumerate() {
            for d in &r.to {
                let dst = ids[d.as_str()];
                if let Err(stop) = routes.path(ids[r.at.as_str()], dst) {
                    let mut way = vec![r.at.clone()];
                    way.extend(
                        stop.iter()
                            .map(|&l| nodes[links[l as usize].to as usize].clone()),
                    );
                    let last = way.last().expect("the route's node").clone();
                    let why = if way[..way.len() - 1].contains(&last) {
                        format!("packets for \"{d}\" go round a loop: {}", way.join(" → "))
                    } else {
                        format!(
                            "packets for \"{d}\" stop at \"{last}\", which has no way on: {}",
                            way.join(" → ")
                        )
                    };
                    return Err(ScenarioError::new(format!("route[{i}]"), why));
                }
            }
        }
        Ok(Net {
            nodes,
            hosts,
            links,
            routes,
            servers: Vec::new(),
            clients: Vec::new(),
            dumbbell: None,
        })
    }

    /// The position of the node named `name` among the `[[node]]`s.
    fn position(&self, name: &str) -> usize {
        self.nodes
            .iter()
            .position(|n| n.name == name)
            .expect("a node of the graph")
    }
}
