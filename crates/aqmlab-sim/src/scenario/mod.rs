//! The scenario: what to simulate, validated strictly and with every default resolved.
//!
//! The reference for users is `docs/scenario.md`; this module is its implementation. A scenario
//! arrives as a value tree (TOML loaded by the front end, or a Python dict, as JSON) and becomes a
//! [`Scenario`], whose serialisation is the resolved scenario written into every output.

mod aqm;
mod capture;
mod dist;
pub mod graph;
mod queue;
mod queue_size;
mod reader;
pub mod red;
mod tc;
mod tcp;
pub mod topology;
mod traffic;
mod warnings;

pub use capture::Capture;
pub use queue::{Queue, QueueSite};
pub use queue_size::SizeRecord;
pub use reader::{Result, ScenarioError};
pub use topology::{Preset, Topology};

use crate::network::{Net, PairDelay};
use crate::report::Warning;
use crate::tcp::TcpConfig;
use crate::traffic::config::TrafficSpec;
use crate::units::{Size, Time};
use reader::{duration, integer, positive_duration, size, string, Fields};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

/// A validated scenario with all defaults filled in.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    /// The network as given: a named topology (`[topology]`) or `[[node]]`s and `[[link]]`s.
    pub topology: Topology,
    /// The bottleneck's queues of a named topology (`[queue]`, `[reverse_queue]`). With nodes
    /// and links each link has its own, and these are neither read nor written.
    pub queue: Queue,
    pub reverse_queue: Queue,
    /// Defaults for every TCP group (a group's own `tcp` table overrides them).
    pub tcp: TcpConfig,
    pub traffic: Vec<TrafficSpec>,
    pub measure: Measure,
    /// Written only when not all defaults, so that scenarios without `[limits]` resolve (and hash)
    /// as before; limits change whether a run finishes, never what it reports.
    pub limits: Limits,
    /// Links to write packet traces of (`[capture]`); written only when it names a link.
    pub capture: Capture,
    /// Quiet misconfigurations found once the whole scenario is read (`warnings.rs`); not part of
    /// the resolved scenario, recorded in the summary instead.
    pub warnings: Vec<Warning>,
    /// The network a run simulates: the topology expanded into nodes and links, and routed. Not
    /// part of the resolved scenario (it follows from it).
    pub net: Net,
}

/// The resolved scenario: its keys in a fixed order; a named topology as `topology`, `queue` and
/// `reverse_queue`, nodes and links as `node`, `link` and `route`, in the same place.
impl Serialize for Scenario {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("seed", &self.seed)?;
        m.serialize_entry("duration", &self.duration)?;
        m.serialize_entry("warmup", &self.warmup)?;
        match &self.topology {
            Topology::Preset(p) => {
                m.serialize_entry("topology", p)?;
                m.serialize_entry("queue", &self.queue)?;
                m.serialize_entry("reverse_queue", &self.reverse_queue)?;
            }
            Topology::Graph(g) => {
                m.serialize_entry("node", &g.nodes)?;
                m.serialize_entry("link", &g.links)?;
                if !g.routes.is_empty() {
                    m.serialize_entry("route", &g.routes)?;
                }
            }
        }
        m.serialize_entry("tcp", &self.tcp)?;
        m.serialize_entry("traffic", &tcp::groups_written(&self.traffic, &self.tcp))?;
        m.serialize_entry("measure", &self.measure)?;
        if !self.limits.is_default() {
            m.serialize_entry("limits", &self.limits)?;
        }
        if !self.capture.is_off() {
            m.serialize_entry("capture", &self.capture)?;
        }
        m.end()
    }
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Measure {
    pub queue_sample: Time,
    pub queue_interval: Time,
    pub link_interval: Time,
}

/// `[limits]`: what one run may use. A run that reaches a limit stops with an error naming the
/// limit's key ([`ScenarioError`] with path `limits.<key>`), never by aborting.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Limits {
    /// Events processed (none: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
    /// Wall-clock time of the run (none: no limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wall: Option<Time>,
    /// The output tables' size as the engine holds them ([`crate::schema::row_bytes`]).
    pub max_table_memory: Size,
    /// Rows of one empirical distribution's table ([`dist::check_table_rows`]). Written only
    /// when not its default, so that scenarios which set other limits keep their hash.
    #[serde(skip_serializing_if = "Limits::is_default_cdf_rows")]
    pub max_cdf_rows: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_events: None,
            max_wall: None,
            max_table_memory: Size(1_000_000_000),
            max_cdf_rows: 100_000,
        }
    }
}

impl Limits {
    fn is_default(&self) -> bool {
        *self == Limits::default()
    }

    fn is_default_cdf_rows(rows: &u64) -> bool {
        *rows == Limits::default().max_cdf_rows
    }
}

impl Scenario {
    /// Validate a scenario given as JSON text and resolve its defaults.
    pub fn from_json(text: &str) -> Result<Scenario> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| ScenarioError::new("", format!("not a valid scenario document: {e}")))?;
        Scenario::from_value(&value)
    }

    /// Validate a scenario value tree and resolve its defaults.
    pub fn from_value(value: &Value) -> Result<Scenario> {
        if value.as_object().is_some_and(|m| m.is_empty()) {
            return Err(ScenarioError::new(
                "",
                "the scenario is empty (it needs at least duration and topology)",
            ));
        }
        let mut f = Fields::of(value, "")?;
        let name = f.or("name", "scenario".to_string(), string)?;
        let seed = f.or("seed", 1, integer(0, u64::MAX))?;
        let duration = f.req("duration", positive_duration)?;
        let warmup = f.or("warmup", Time::ZERO, duration_fn)?;
        if warmup >= duration {
            return Err(ScenarioError::new(
                "warmup",
                format!("expected a warm-up shorter than duration ({duration}), got \"{warmup}\""),
            ));
        }
        let network = read_network(value, &mut f)?;
        let default_tcp = TcpConfig::profile("rfc").expect("the rfc profile exists");
        let tcp = f.or("tcp", default_tcp.clone(), |v, p| {
            tcp::parse_tcp(v, p, &default_tcp)
        })?;
        let limits = f.or("limits", Limits::default(), parse_limits)?;
        let traffic_path = f.key_path("traffic");
        if let Some(v) = f.get("traffic") {
            dist::check_table_rows(v, &traffic_path, limits.max_cdf_rows)?;
        }
        let traffic = match f.get("traffic") {
            Some(v) => traffic::parse_traffic(v, &traffic_path, duration, &tcp)?,
            None => Vec::new(),
        };
        let mut traffic = traffic;
        traffic::place(&mut traffic, &network.net, &traffic_path)?;
        let net = &network.net;
        traffic::check_web_hosts(&traffic, net)?;
        for (queue, path, on) in &network.queues {
            queue::check_rules(queue, path, on, &traffic, net)?;
        }
        let measure = f.or("measure", Measure::default(), parse_measure)?;
        let capture = f.or("capture", Capture::default(), |v, p| {
            capture::parse_capture(v, p, net)
        })?;
        f.finish()?;
        let mut scenario = Scenario {
            name,
            seed,
            duration,
            warmup,
            topology: network.topology,
            queue: network.queue,
            reverse_queue: network.reverse_queue,
            tcp,
            traffic,
            measure,
            limits,
            capture,
            warnings: Vec::new(),
            net: network.net,
        };
        scenario.warnings = warnings::check(&scenario);
        Ok(scenario)
    }

    /// The resolved scenario as JSON text: valid input that resolves to itself.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a scenario always serialises")
    }

    /// The resolved scenario as a JSON value.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("a scenario always serialises")
    }

    /// The scenario with its named topology written out as the nodes and links it expands to
    /// (`aqmlab validate --expand`): the same network, and every traffic group's hosts named, so
    /// that it runs as this scenario does, table for table. A scenario already of nodes and links
    /// is itself. A dumbbell's pair delays listed or drawn per pair have no form in nodes and
    /// links (a constant one has: it is part of every router → host link's delay): refused.
    pub fn expanded(&self) -> Result<Value> {
        let Topology::Preset(preset) = &self.topology else {
            return Ok(self.to_value());
        };
        if self.net.dumbbell.is_some() {
            return Err(ScenarioError::new(
                "topology.pair_delay",
                "a delay listed or drawn per (client, server) pair has no form in nodes and \
                 links; only a constant one does",
            ));
        }
        let e = preset.expand(&self.queue, &self.reverse_queue);
        let mut s = self.clone();
        s.topology = Topology::Graph(e.graph);
        for t in &mut s.traffic {
            for (list, names, nodes) in [
                (&mut t.servers, &e.servers, &self.net.servers),
                (&mut t.clients, &e.clients, &self.net.clients),
            ] {
                list.get_or_insert_with(|| crate::traffic::config::HostList {
                    names: names.clone(),
                    nodes: nodes.clone(),
                });
            }
        }
        Ok(s.to_value())
    }
}

fn duration_fn(v: &Value, path: &str) -> Result<Time> {
    duration(v, path)
}

impl Default for Measure {
    fn default() -> Measure {
        Measure {
            queue_sample: Time::from_millis(3),
            queue_interval: Time::from_millis(100),
            link_interval: Time::from_secs(1),
        }
    }
}

/// The network of a scenario as read, and the queue tables its traffic is checked against.
struct Network {
    topology: Topology,
    queue: Queue,
    reverse_queue: Queue,
    net: Net,
    /// Each queue table with its path and the one-way links it sits on.
    queues: Vec<(crate::queue::config::QueueSpec, String, Vec<u32>)>,
}

/// `[topology]` with `[queue]` and `[reverse_queue]`, or `[[node]]`s, `[[link]]`s and
/// `[[route]]`s (`value`: the scenario, `f`: its top-level keys); expanded and routed.
fn read_network(value: &Value, f: &mut Fields) -> Result<Network> {
    let graph_keys = ["node", "link", "route"];
    if let Some(key) = graph_keys.iter().find(|k| value.get(**k).is_some()) {
        for other in ["topology", "queue", "reverse_queue"] {
            if value.get(other).is_some() {
                return Err(ScenarioError::new(
                    other,
                    format!(
                        "a network of [[node]]s and [[link]]s (this scenario has `{key}`) takes \
                         no [{other}]: {}",
                        if other == "topology" {
                            "give one or the other"
                        } else {
                            "each link has its own queues (link[i].queue, link[i].reverse_queue)"
                        }
                    ),
                ));
            }
        }
        let graph = graph::parse_graph(f)?;
        let net = graph.net()?;
        let queues = graph
            .links
            .iter()
            .enumerate()
            .flat_map(|(i, l)| {
                let i32 = i as u32;
                [
                    (
                        l.queue.spec.clone(),
                        format!("link[{i}].queue"),
                        vec![2 * i32],
                    ),
                    (
                        l.reverse_queue.spec.clone(),
                        format!("link[{i}].reverse_queue"),
                        vec![2 * i32 + 1],
                    ),
                ]
            })
            .collect();
        return Ok(Network {
            topology: Topology::Graph(graph),
            queue: Queue::default_droptail(),
            reverse_queue: Queue::default_droptail(),
            net,
            queues,
        });
    }
    let preset = f.req("topology", topology::parse_topology)?;
    let site = preset.queue_site();
    let queue = f.or("queue", Queue::default_droptail(), |v, p| {
        queue::parse_queue(v, p, &site)
    })?;
    let reverse_queue = f.or("reverse_queue", Queue::default_droptail(), |v, p| {
        queue::parse_queue(v, p, &site)
    })?;
    let e = preset.expand(&queue, &reverse_queue);
    let mut net = e.graph.net()?;
    let ids = net.ids();
    let nodes = |names: &[String]| names.iter().map(|n| ids[n.as_str()]).collect::<Vec<u32>>();
    let (servers, clients) = (nodes(&e.servers), nodes(&e.clients));
    net.servers = servers;
    net.clients = clients;
    if let Preset::Dumbbell(d) = &preset {
        // A constant pair delay is part of the router → host links already (the expansion).
        if !matches!(d.pair_delay, PairDelay::Constant(_)) {
            net.dumbbell = Some(d.clone());
        }
    }
    let queues = vec![
        (queue.spec.clone(), "queue".to_string(), e.queue_on),
        (
            reverse_queue.spec.clone(),
            "reverse_queue".to_string(),
            e.reverse_queue_on,
        ),
    ];
    Ok(Network {
        topology: Topology::Preset(preset),
        queue,
        reverse_queue,
        net,
        queues,
    })
}

fn parse_measure(v: &Value, path: &str) -> Result<Measure> {
    let d = Measure::default();
    let mut f = Fields::of(v, path)?;
    let m = Measure {
        queue_sample: f.or("queue_sample", d.queue_sample, positive_duration)?,
        queue_interval: f.or("queue_interval", d.queue_interval, positive_duration)?,
        link_interval: f.or("link_interval", d.link_interval, positive_duration)?,
    };
    if m.queue_interval < m.queue_sample {
        return Err(ScenarioError::new(
            f.key_path("queue_interval"),
            format!(
                "expected at least queue_sample (\"{}\"), got \"{}\"",
                m.queue_sample, m.queue_interval
            ),
        ));
    }
    f.finish()?;
    Ok(m)
}

fn parse_limits(v: &Value, path: &str) -> Result<Limits> {
    let d = Limits::default();
    let mut f = Fields::of(v, path)?;
    let limits = Limits {
        max_events: f.opt("max_events", integer(1, u64::MAX))?,
        max_wall: f.opt("max_wall", positive_duration)?,
        max_table_memory: f.or("max_table_memory", d.max_table_memory, size)?,
        max_cdf_rows: f.or(
            "max_cdf_rows",
            d.max_cdf_rows,
            integer(1, dist::MAX_ROWS as u64),
        )?,
    };
    f.finish()?;
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Framing;
    use crate::traffic::config::Side;
    use crate::units::Rate;
    use serde_json::json;

    fn minimal() -> Value {
        json!({"duration": "10s", "topology": {"bottleneck": {"rate": "10Mbps"}}})
    }

    fn err(v: Value) -> ScenarioError {
        Scenario::from_value(&v).unwrap_err()
    }

    #[test]
    fn web_pool_users_on_the_server_hosts_are_checked() {
        let with = |traffic: Value| {
            let mut v = minimal();
            v["topology"]["servers"] = json!(2);
            v["traffic"] = traffic;
            v
        };
        let pool = |name: &str, users_on: &str, server: u32, mss: &str| {
            json!({"kind": "web-pool", "name": name, "users": 1, "users_on": users_on,
                   "server": server, "tcp": {"handshake": "three-way", "mss": mss}})
        };
        // Resolved and written back: `users_on` is the group's `from`.
        let s = Scenario::from_value(&with(json!([pool("r", "servers", 1, "1000B")]))).unwrap();
        assert_eq!(s.traffic[0].from, Side::Servers);
        assert_eq!(s.to_value()["traffic"][0]["users_on"], json!("servers"));
        let s = Scenario::from_value(&with(json!([{"kind": "web-pool", "users": 1,
            "tcp": {"handshake": "three-way"}}])))
        .unwrap();
        assert_eq!(s.traffic[0].from, Side::Clients);
        assert_eq!(s.to_value()["traffic"][0]["users_on"], json!("clients"));
        // Only "clients" or "servers", and only on web-pool.
        let e = err(with(json!([pool("r", "left", 0, "1000B")])));
        assert_eq!(e.path, "traffic[0].users_on");
        let mah = json!([{"kind": "web-mah", "users": 1, "users_on": "servers",
                          "tcp": {"handshake": "three-way"}}]);
        assert_eq!(err(with(mah)).path, "traffic[0].users_on");
        let ftp = json!([{"kind": "ftp", "users_on": "servers"}]);
        assert_eq!(err(with(ftp)).path, "traffic[0].users_on");
        // A host answers with its users' tcp table: two groups on one host must agree.
        let ok = json!([
            pool("a", "servers", 1, "1000B"),
            pool("b", "servers", 1, "1000B"),
            pool("c", "servers", 0, "500B"),
            pool("d", "clients", 0, "500B")
        ]);
        assert!(Scenario::from_value(&with(ok)).is_ok());
        let clash = json!([
            pool("a", "servers", 1, "1000B"),
            pool("b", "servers", 1, "500B")
        ]);
        let e = err(with(clash));
        assert_eq!(e.path, "traffic[1].tcp");
        assert!(e.message.contains("host \"s1\""), "{}", e.message);
    }

    #[test]
    fn minimal_scenario_resolves_all_defaults() {
        let s = Scenario::from_value(&minimal()).unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(
            s.topology.dumbbell().unwrap().access.rate,
            Rate(100_000_000)
        );
        let r = s.to_value();
        assert_eq!(r["queue"], json!({"kind": "droptail", "limit": "50p"}));
        assert_eq!(r["measure"]["queue_sample"], json!("3ms"));
        assert_eq!(r["topology"]["pair_delay"], json!("0s"));
    }

    #[test]
    fn resolving_is_idempotent() {
        let v = json!({
            "duration": "90min", "warmup": "20min",
            "topology": {"servers": 2, "clients": 3, "bottleneck": {"rate": "10Mbps", "delay": "1.5ms"},
                         "pair_delay": {"dist": "uniform", "min": "3ms", "max": "65ms"}},
            "queue": {"kind": "droptail", "limit": "64KB"},
            "traffic": [
                {"kind": "pareto", "rate": "64kbps", "size": "210B", "shape": 1.2, "from": "clients"},
                {"kind": "cbr", "rate": "1Mbps", "jitter": true, "name": "voice", "flows": 3},
            ]
        });
        let once = Scenario::from_value(&v).unwrap().to_value();
        let twice = Scenario::from_value(&once).unwrap().to_value();
        assert_eq!(once, twice);
        assert_eq!(once["traffic"][0]["name"], json!("pareto0"));
        assert_eq!(once["traffic"][0]["kind"], json!("pareto"));
        assert_eq!(once["traffic"][1]["stop"], json!("90min"));
    }

    #[test]
    fn a_groups_tcp_is_written_as_its_difference_from_the_scenarios_and_reads_back() {
        let v = json!({
            "duration": "10s",
            "topology": {"bottleneck": {"rate": "10Mbps"}},
            "tcp": {"profile": "ns2-2.35", "nagle": true},
            "traffic": [
                {"kind": "ftp", "name": "same"},
                {"kind": "ftp", "name": "own", "tcp": {"mss": "536B", "variant": "sack"}},
                {"kind": "ftp", "name": "linux", "tcp": {"profile": "linux"}},
                {"kind": "ftp", "name": "quiet", "tcp": {"nagle": false}},
            ]
        });
        let s = Scenario::from_value(&v).unwrap();
        let once = s.to_value();
        let tcp = |i: usize| once["traffic"][i].get("tcp").cloned();
        assert_eq!(tcp(0), None);
        assert_eq!(tcp(1), Some(json!({"mss": "536B", "variant": "sack"})));
        // Another profile, and an option off only in the group: the whole table.
        assert_eq!(tcp(2).unwrap()["profile"], json!("linux"));
        assert_eq!(tcp(3).unwrap()["profile"], json!("ns2-2.35"));
        assert_eq!(tcp(3).unwrap().get("nagle"), None);
        let again = Scenario::from_value(&once).unwrap();
        for (read, first) in again.traffic.iter().zip(&s.traffic) {
            assert_eq!(read.kind.tcp(), first.kind.tcp(), "group {}", first.name);
        }
        assert_eq!(again.to_value(), once);
        // A key set on the resolved scenario's [tcp] reaches the groups that do not set it.
        let mut changed = once.clone();
        changed["tcp"]["mss"] = json!("1000B");
        let mss = |s: &Scenario, i: usize| s.traffic[i].kind.tcp().unwrap().mss;
        let changed = Scenario::from_value(&changed).unwrap();
        assert_eq!(mss(&changed, 0), Size(1000));
        assert_eq!(mss(&changed, 1), Size(536));
    }

    #[test]
    fn bad_values_name_their_paths() {
        let cases: Vec<(Value, &str)> = vec![
            (json!({}), ""),
            (
                json!({"topology": {"bottleneck": {"rate": "10Mbps"}}}),
                "duration",
            ),
            (json!({"duration": "10s"}), "topology"),
            (
                json!({"duration": "10s", "topology": {}}),
                "topology.bottleneck",
            ),
            (
                json!({"duration": "10s", "topology": {"bottleneck": {}}}),
                "topology.bottleneck.rate",
            ),
            (
                json!({"duration": "10s", "warmup": "10s", "topology": {"bottleneck": {"rate": "1Mbps"}}}),
                "warmup",
            ),
            (
                json!({"duration": "10s", "topology": {"bottleneck": {"rate": "1Mbps", "dealy": "1ms"}}}),
                "topology.bottleneck.dealy",
            ),
            (
                json!({"duration": "10s", "topology": {"bottleneck": {"rate": "1Mbps"}, "servers": 2,
                     "pair_delay": ["1ms"]}}),
                "topology.pair_delay",
            ),
            (
                json!({"duration": "10s", "topology": {"bottleneck": {"rate": "1Mbps"},
                     "pair_delay": {"dist": "uniform", "min": "5ms", "max": "1ms"}}}),
                "topology.pair_delay.min",
            ),
        ];
        for (v, path) in cases {
            assert_eq!(err(v.clone()).path, path, "{v}");
        }
        let mut v = minimal();
        v["traffic"] = json!([{"kind": "poisson", "rate": "1Mbps", "jitter": true}]);
        assert_eq!(err(v.clone()).path, "traffic[0].jitter");
        v["traffic"] = json!([{"kind": "cbr", "rate": "1Mbps"}, {"kind": "cbr", "rate": "1Mbps", "name": "cbr0"}]);
        assert_eq!(err(v.clone()).path, "traffic[1].name");
        v["traffic"] = json!([{"kind": "cbr", "rate": "1Mbps", "start": "5s", "stop": "2s"}]);
        assert_eq!(err(v.clone()).path, "traffic[0].stop");
        v["traffic"] = json!([{"kind": "pareto", "rate": "1Mbps", "shape": 1.0}]);
        assert_eq!(err(v.clone()).path, "traffic[0].shape");
        v["traffic"] = json!({"kind": "cbr"});
        assert_eq!(err(v.clone()).path, "traffic");
    }

    #[test]
    fn framing_resolves_to_its_numbers_and_bad_values_name_their_keys() {
        let s = Scenario::from_value(&minimal()).unwrap();
        assert_eq!(
            s.topology.dumbbell().unwrap().bottleneck.framing,
            Framing::NONE
        );
        let r = s.to_value();
        assert_eq!(r["topology"]["bottleneck"]["framing"], json!("none"));
        assert_eq!(r["topology"]["access"]["framing"], json!("none"));
        let mut v = minimal();
        v["topology"]["bottleneck"]["framing"] = json!("ethernet");
        v["topology"]["access"] = json!({"framing": {"overhead": "8B"}});
        let s = Scenario::from_value(&v).unwrap();
        assert_eq!(
            s.topology.dumbbell().unwrap().bottleneck.framing,
            Framing::ETHERNET
        );
        let r = s.to_value();
        assert_eq!(
            r["topology"]["bottleneck"]["framing"],
            json!({"overhead": "38B", "min_payload": "46B"})
        );
        assert_eq!(
            r["topology"]["access"]["framing"],
            json!({"overhead": "8B", "min_payload": "0B"})
        );
        assert_eq!(Scenario::from_value(&r).unwrap().to_value(), r);
        v["topology"]["access"] = json!({"framing": {"overhead": "0B", "min_payload": "0B"}});
        assert_eq!(
            Scenario::from_value(&v).unwrap().to_value()["topology"]["access"]["framing"],
            json!("none")
        );

        let bad = |link: &str, framing: Value| {
            let mut v = minimal();
            v["topology"]
                .as_object_mut()
                .unwrap()
                .entry(link)
                .or_insert(json!({}))["framing"] = framing;
            err(v)
        };
        let e = bad("bottleneck", json!("ethernet2"));
        assert_eq!(e.path, "topology.bottleneck.framing");
        assert!(e.message.contains("\"ethernet\""), "{e}");
        assert!(e.message.contains("\"ethernet2\" (a string)"), "{e}");
        assert_eq!(bad("access", json!(38)).path, "topology.access.framing");
        assert_eq!(
            bad("access", json!({"min_payload": "46B"})).path,
            "topology.access.framing.overhead"
        );
        assert_eq!(
            bad("bottleneck", json!({"overhead": "38"})).path,
            "topology.bottleneck.framing.overhead"
        );
        let e = bad(
            "bottleneck",
            json!({"overhead": "38B", "min_payload": "70KB"}),
        );
        assert_eq!(e.path, "topology.bottleneck.framing.min_payload");
        assert!(e.message.contains("65535B"), "{e}");
        assert_eq!(
            bad("access", json!({"overhead": "38B", "gap": "12B"})).path,
            "topology.access.framing.gap"
        );
    }

    #[test]
    fn scripted_rules_must_name_packets_that_cross_their_queue() {
        let mut v = minimal();
        v["traffic"] = json!([{"kind": "ftp", "name": "f", "flows": 2}]);
        v["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "what": "syn"}]});
        let e = err(v.clone());
        assert_eq!(e.path, "queue.drops[0].what");
        assert!(
            e.message.contains("it crosses c0.up, reverse, s0.down"),
            "{e}"
        );
        v["queue"] =
            json!({"kind": "scripted", "drops": [{"group": "f", "segment": 3, "flow": 2}]});
        assert_eq!(err(v.clone()).path, "queue.drops[0].flow");
        v["queue"] = json!({"kind": "scripted", "drops": [{"group": "nope", "segment": 3}]});
        assert_eq!(err(v.clone()).path, "queue.drops[0].group");
        v["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "segment": 3}]});
        assert!(Scenario::from_value(&v).is_ok());
        v["reverse_queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "what": "syn"}]});
        assert!(Scenario::from_value(&v).is_ok());
    }

    #[test]
    fn scripted_rules_follow_the_handshake_of_their_group() {
        let mut v = minimal();
        v["traffic"] = json!([{"kind": "ftp", "name": "f", "tcp": {"profile": "ns2-2003"}}]);
        // ns-2's one-way SYN comes from the data sender (here a server): it crosses [queue].
        v["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "what": "syn"}]});
        assert!(Scenario::from_value(&v).is_ok());
        v["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "what": "synack"}]});
        assert_eq!(err(v.clone()).path, "queue.drops[0].what");
        v["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "what": "fin"}]});
        let e = err(v.clone());
        assert_eq!(e.path, "queue.drops[0].what");
        assert!(
            e.message
                .contains("handshake \"ns2-syn\", which sends no fin"),
            "{e}"
        );
    }

    #[test]
    fn resolved_scripted_rules_read_back_as_themselves() {
        let mut v = minimal();
        v["traffic"] = json!([{"kind": "ftp", "name": "f", "flows": 2}]);
        v["queue"] = json!({"kind": "scripted", "drops": [
            {"group": "f", "flow": 1, "segment": 3, "occurrence": 2, "action": "mark"},
            {"group": "f", "what": "synack"},
            {"group": "f", "what": "fin"},
        ]});
        let s = Scenario::from_value(&v).unwrap();
        assert_eq!(
            s.to_value()["queue"]["drops"],
            json!([
                {"group": "f", "flow": 1, "what": "data", "segment": 3, "occurrence": 2, "action": "mark"},
                {"group": "f", "flow": 0, "what": "synack", "occurrence": 1, "action": "drop"},
                {"group": "f", "flow": 0, "what": "fin", "occurrence": 1, "action": "drop"},
            ])
        );
        assert_eq!(
            Scenario::from_json(&s.to_json()).unwrap().to_json(),
            s.to_json()
        );
    }
}
