//! The scenario: what to simulate, validated strictly and with every default resolved.
//!
//! The reference for users is `docs/scenario.md`; this module is its implementation. A scenario
//! arrives as a value tree (TOML loaded by the front end, or a Python dict, as JSON) and becomes a
//! [`Scenario`], whose serialisation is the resolved scenario written into every output.

mod aqm;
mod capture;
mod dist;
mod queue;
mod queue_size;
mod reader;
pub mod red;
mod tc;
mod tcp;
mod traffic;
mod warnings;

pub use capture::Capture;
pub use queue::Queue;
pub use queue_size::SizeRecord;
pub use reader::{Result, ScenarioError};

use crate::network::{AccessSpec, Framing, LinkSpec, PairDelay, Topology};
use crate::report::Warning;
use crate::tcp::TcpConfig;
use crate::traffic::config::TrafficSpec;
use crate::units::{QueueLimit, Rate, Size, Time};
use reader::{
    choice, duration, expected, integer, join, list, positive_duration, queue_limit, rate, size,
    size_or_zero, string, Fields,
};
use serde::Serialize;
use serde_json::Value;

/// A validated scenario with all defaults filled in.
#[derive(Clone, Debug, Serialize)]
pub struct Scenario {
    pub name: String,
    pub seed: u64,
    pub duration: Time,
    pub warmup: Time,
    pub topology: Topology,
    pub queue: Queue,
    pub reverse_queue: Queue,
    /// Defaults for every TCP group (a group's own `tcp` table overrides them).
    pub tcp: TcpConfig,
    pub traffic: Vec<TrafficSpec>,
    pub measure: Measure,
    /// Written only when not all defaults, so that scenarios without `[limits]` resolve (and hash)
    /// as before; limits change whether a run finishes, never what it reports.
    #[serde(skip_serializing_if = "Limits::is_default")]
    pub limits: Limits,
    /// Links to write packet traces of (`[capture]`); written only when it names a link.
    #[serde(skip_serializing_if = "Capture::is_off")]
    pub capture: Capture,
    /// Quiet misconfigurations found once the whole scenario is read (`warnings.rs`); not part of
    /// the resolved scenario, recorded in the summary instead.
    #[serde(skip)]
    pub warnings: Vec<Warning>,
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
        let topology = f.req("topology", parse_topology)?;
        let queue = f.or("queue", Queue::default_droptail(), |v, p| {
            queue::parse_queue(v, p, &topology)
        })?;
        let reverse_queue = f.or("reverse_queue", Queue::default_droptail(), |v, p| {
            queue::parse_queue(v, p, &topology)
        })?;
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
        for (i, t) in traffic.iter().enumerate() {
            for (key, value, n) in [
                ("server", t.server, topology.servers),
                ("client", t.client, topology.clients),
            ] {
                if value >= n {
                    return Err(ScenarioError::new(
                        format!("traffic[{i}].{key}"),
                        format!("expected a host index below topology.{key}s ({n}), got {value}"),
                    ));
                }
            }
        }
        traffic::check_web_hosts(&traffic, &topology)?;
        queue::check_rules(&queue, "queue", &traffic)?;
        queue::check_rules(&reverse_queue, "reverse_queue", &traffic)?;
        let measure = f.or("measure", Measure::default(), parse_measure)?;
        let capture = f.or("capture", Capture::default(), |v, p| {
            capture::parse_capture(v, p, &topology)
        })?;
        f.finish()?;
        let mut scenario = Scenario {
            name,
            seed,
            duration,
            warmup,
            topology,
            queue,
            reverse_queue,
            tcp,
            traffic,
            measure,
            limits,
            capture,
            warnings: Vec::new(),
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

fn parse_topology(v: &Value, path: &str) -> Result<Topology> {
    let mut f = Fields::of(v, path)?;
    let kind = f.or("kind", "dumbbell", choice(&["dumbbell"]))?;
    let servers = f.or("servers", 1, integer(1, 65_535))? as u32;
    let clients = f.or("clients", 1, integer(1, 65_535))? as u32;
    let bottleneck = f.req("bottleneck", |v, p| {
        let mut b = Fields::of(v, p)?;
        let spec = LinkSpec {
            rate: b.req("rate", rate)?,
            delay: b.or("delay", Time::ZERO, duration)?,
            framing: b.or("framing", Framing::NONE, parse_framing)?,
        };
        b.finish()?;
        Ok(spec)
    })?;
    let default_access = AccessSpec {
        rate: Rate(100_000_000),
        delay: Time::ZERO,
        queue: QueueLimit::Packets(50),
        framing: Framing::NONE,
    };
    let access = f.or("access", default_access, |v, p| {
        let mut a = Fields::of(v, p)?;
        let spec = AccessSpec {
            rate: a.or("rate", default_access.rate, rate)?,
            delay: a.or("delay", default_access.delay, duration)?,
            queue: a.or("queue", default_access.queue, queue_limit)?,
            framing: a.or("framing", default_access.framing, parse_framing)?,
        };
        a.finish()?;
        Ok(spec)
    })?;
    let pairs = servers as usize * clients as usize;
    let pair_delay = f.or("pair_delay", PairDelay::Constant(Time::ZERO), |v, p| {
        parse_pair_delay(v, p, pairs)
    })?;
    f.finish()?;
    Ok(Topology {
        kind,
        servers,
        clients,
        bottleneck,
        access,
        pair_delay,
    })
}

/// The largest framing overhead or minimum payload a scenario may name.
const MAX_FRAMING_BYTES: u64 = 65_535;

/// `"none"`, `"ethernet"` or `{ overhead = "38B", min_payload = "46B" }` (min_payload defaults to
/// 0B).
fn parse_framing(v: &Value, path: &str) -> Result<Framing> {
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
    use crate::traffic::config::Side;
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
        assert!(e.message.contains("server host 1"), "{}", e.message);
    }

    #[test]
    fn minimal_scenario_resolves_all_defaults() {
        let s = Scenario::from_value(&minimal()).unwrap();
        assert_eq!(s.seed, 1);
        assert_eq!(s.topology.access.rate, Rate(100_000_000));
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
        assert_eq!(s.topology.bottleneck.framing, Framing::NONE);
        let r = s.to_value();
        assert_eq!(r["topology"]["bottleneck"]["framing"], json!("none"));
        assert_eq!(r["topology"]["access"]["framing"], json!("none"));
        let mut v = minimal();
        v["topology"]["bottleneck"]["framing"] = json!("ethernet");
        v["topology"]["access"] = json!({"framing": {"overhead": "8B"}});
        let s = Scenario::from_value(&v).unwrap();
        assert_eq!(s.topology.bottleneck.framing, Framing::ETHERNET);
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
        assert!(e.message.contains("reverse_queue"), "{e}");
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
