//! Queue tables: `[queue]` and `[reverse_queue]`, the bottleneck's queue disciplines, and every
//! `[[link]]`'s `queue` and `reverse_queue`.

use super::aqm::{parse_codel, parse_fq_codel, parse_pie, tc_fifo};
use super::queue_size::{SizeBasis, SizeRecord};
use super::reader::{
    boolean, choice, integer, join, positive_duration, probability, size, string, Fields, Result,
    ScenarioError,
};
use super::red::parse_red;
use super::tc::{tc_kind, tc_qdisc};
use crate::network::Net;
use crate::queue::config::{FlowRule, QueueSpec};
use crate::queue::{Action, ScriptedRule, SegmentKind};
use crate::tcp::config::Handshake;
use crate::traffic::config::{Side, TrafficKind, TrafficSpec};
use crate::units::{QueueLimit, Rate, Time};
use serde::Serialize;
use serde_json::Value;

/// The keys of a queue table that hold a queue size and may be written as a BDP or a time.
const SIZE_KEYS: [&str; 3] = ["limit", "min_th", "max_th"];

/// The link a queue sits on, as its table is read: the rate its sizes written as a time or a
/// BDP count at, and RED's automatic parameters; its one-way delay (RED's automatic weight);
/// the RTT of a `"bdp"` unless the table gives `rtt` (zero: none is known, and a `"bdp"` needs
/// the table's `rtt`).
#[derive(Clone, Copy, Debug)]
pub struct QueueSite {
    pub rate: Rate,
    pub delay: Time,
    pub mean_rtt: Time,
}

/// A queue as resolved: its discipline, and what its sizes written as a BDP or a time
/// were resolved with (written beside the discipline's keys as `rtt` and `packet`).
#[derive(Clone, Debug, Serialize)]
pub struct Queue {
    #[serde(flatten)]
    pub spec: QueueSpec,
    #[serde(flatten)]
    pub sizes: Option<SizeRecord>,
}

impl Queue {
    /// The default of both directions: a drop-tail queue of 50 packets.
    pub fn default_droptail() -> Queue {
        Queue {
            spec: QueueSpec::DropTail {
                limit: QueueLimit::Packets(50),
            },
            sizes: None,
        }
    }
}

impl std::ops::Deref for Queue {
    type Target = QueueSpec;
    fn deref(&self) -> &QueueSpec {
        &self.spec
    }
}

/// Read the queue table's `rtt` and `packet` (removing them), and resolve its sizes written as
/// `"2bdp"` or `"50ms"` as packets kept in the basis ([`SizeBasis::resolve_key`]), where the
/// disciplines' readers take them ([`SizeBasis::limit`], [`SizeBasis::resolved`]). The RTT is
/// `rtt`, or the site's mean base RTT ([`QueueSite`]); `packet` defaults to 1500 B. The basis
/// also resolves the sizes of the queue's `tc` line.
fn resolve_bdp_and_time(v: &Value, path: &str, site: &QueueSite) -> Result<(Value, SizeBasis)> {
    let mut map = v.as_object().cloned().unwrap_or_default();
    let rtt = match map.remove("rtt") {
        Some(r) => Some(positive_duration(&r, &join(path, "rtt"))?),
        None => None,
    };
    let packet = match map.remove("packet") {
        Some(p) => Some(size(&p, &join(path, "packet"))?),
        None => None,
    };
    let mut basis = SizeBasis::new(site.rate, rtt, packet, site.mean_rtt);
    for key in SIZE_KEYS {
        let Some(Value::String(text)) = map.get(key) else {
            continue;
        };
        basis.resolve_key(key, text, &join(path, key))?;
    }
    let resolved = if v.is_object() {
        Value::Object(map)
    } else {
        v.clone()
    };
    Ok((resolved, basis))
}

/// A queue table at `path`, of a queue on `site`.
pub fn parse_queue(v: &Value, path: &str, site: &QueueSite) -> Result<Queue> {
    let (resolved, sizes) = resolve_bdp_and_time(v, path, site)?;
    let spec = parse_discipline(&resolved, path, site, &sizes)?;
    Ok(Queue {
        spec,
        sizes: sizes.record(),
    })
}

fn parse_discipline(
    v: &Value,
    path: &str,
    site: &QueueSite,
    sizes: &SizeBasis,
) -> Result<QueueSpec> {
    let mut f = Fields::of(v, path)?;
    let kind = queue_kind(&mut f)?;
    let aqm = match kind {
        "red" => Some(QueueSpec::Red(Box::new(parse_red(&mut f, site, sizes)?))),
        "codel" => Some(QueueSpec::Codel(parse_codel(&mut f, sizes)?)),
        "pie" => Some(QueueSpec::Pie(parse_pie(&mut f, sizes)?)),
        "fq_codel" => Some(QueueSpec::FqCodel(parse_fq_codel(&mut f, sizes)?)),
        _ => None,
    };
    if let Some(spec) = aqm {
        f.finish()?;
        return Ok(spec);
    }
    let tc = if kind == "droptail" {
        let path = f.key_path("tc");
        match f.opt("tc", string)? {
            Some(_) if f.get("limit").is_some() => {
                return Err(ScenarioError::new(path, "give limit or tc, not both"))
            }
            Some(line) => Some(tc_fifo(&line, &path, sizes)?),
            None => None,
        }
    } else {
        None
    };
    let limit = match tc {
        Some(limit) => limit,
        None => f.or("limit", QueueLimit::Packets(50), |v, p| sizes.limit(v, p))?,
    };
    let spec = match kind {
        "droptail" => QueueSpec::DropTail { limit },
        "bernoulli" => QueueSpec::Bernoulli {
            p: f.req("p", probability)?,
            ecn: f.or("ecn", false, boolean)?,
            limit,
        },
        "scripted" => QueueSpec::Scripted {
            limit,
            drops: f.req("drops", parse_rules)?,
        },
        _ => unreachable!("choice() admits only the kinds matched here"),
    };
    f.finish()?;
    Ok(spec)
}

/// The queue's `kind`: the table's, or the one its `tc` line names (`tc = "fq_codel limit 100"`
/// needs no `kind`); both given, they must agree.
fn queue_kind(f: &mut Fields) -> Result<&'static str> {
    const KINDS: [&str; 7] = [
        "droptail",
        "bernoulli",
        "scripted",
        "red",
        "codel",
        "pie",
        "fq_codel",
    ];
    let tc_path = f.key_path("tc");
    let named = match f.get("tc").and_then(Value::as_str) {
        Some(line) => tc_qdisc(line, &tc_path)?.map(|q| (q, tc_kind(q).unwrap_or_default())),
        None => None,
    };
    let Some((qdisc, implied)) = named else {
        return f.req("kind", choice(&KINDS));
    };
    let kind_path = f.key_path("kind");
    match f.opt("kind", choice(&KINDS))? {
        Some(kind) if kind != implied => Err(ScenarioError::new(
            kind_path,
            format!("\"{kind}\", but the tc line is a {qdisc} qdisc (kind \"{implied}\")"),
        )),
        _ => Ok(implied),
    }
}

fn parse_rules(v: &Value, path: &str) -> Result<Vec<FlowRule>> {
    let items = v
        .as_array()
        .ok_or_else(|| ScenarioError::new(path, "expected a list of tables"))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let p = format!("{path}[{i}]");
            let mut f = Fields::of(item, &p)?;
            let group = f.req("group", string)?;
            let flow = f.or("flow", 0, integer(0, u64::from(u32::MAX)))? as u32;
            let segment = match f.or("what", "data", choice(&["syn", "synack", "data", "fin"]))? {
                "syn" => SegmentKind::Syn,
                "synack" => SegmentKind::SynAck,
                "fin" => SegmentKind::Fin,
                _ => SegmentKind::Data {
                    segment: f.req("segment", integer(1, u64::MAX / 2))?,
                },
            };
            let occurrence = f.or("occurrence", 1, integer(1, 1000))? as u32;
            let action = match f.or("action", "drop", choice(&["drop", "mark"]))? {
                "mark" => Action::Mark,
                _ => Action::Drop,
            };
            f.finish()?;
            let rule = ScriptedRule {
                segment,
                occurrence,
                action,
            };
            Ok(FlowRule { group, flow, rule })
        })
        .collect()
}

/// Does segment `kind` of a group sending `from` go from the server to the client (the way of
/// the dumbbell's forward queue, R1 → R2)?
/// Clients open connections: SYNs go client → server, SYN-ACKs server → client; data and the data
/// sender's FIN go the way the data goes.
/// With ns-2's one-way `syn_` handshake the data sender sends the SYN.
fn server_to_client(kind: SegmentKind, from: Side, handshake: Handshake) -> bool {
    match kind {
        SegmentKind::Syn if handshake == Handshake::Ns2Syn => from == Side::Servers,
        SegmentKind::Syn => false,
        SegmentKind::SynAck => true,
        SegmentKind::Data { .. } | SegmentKind::Fin => from == Side::Servers,
    }
}

/// Does a connection with this handshake send segment `kind` at all?
fn exists(kind: SegmentKind, handshake: Handshake) -> bool {
    match kind {
        SegmentKind::Syn => handshake != Handshake::None,
        SegmentKind::SynAck | SegmentKind::Fin => handshake == Handshake::ThreeWay,
        SegmentKind::Data { .. } => true,
    }
}

/// Scripted rules must name existing TCP groups and flows, and packets that cross this queue: the
/// queue table at `path`, on the one-way links `on` of `net` (every hop of a named topology's
/// bottleneck for `[queue]`); a rule's packets cross it if their path crosses one of them.
pub fn check_rules(
    queue: &QueueSpec,
    path: &str,
    on: &[u32],
    traffic: &[TrafficSpec],
    net: &Net,
) -> Result<()> {
    let QueueSpec::Scripted { drops, .. } = queue else {
        return Ok(());
    };
    for (i, FlowRule { group, flow, rule }) in drops.iter().enumerate() {
        let p = format!("{}[{i}]", join(path, "drops"));
        let found = traffic.iter().find(|t| &t.name == group);
        let Some(
            g @ TrafficSpec {
                kind: TrafficKind::Ftp { tcp, .. },
                ..
            },
        ) = found
        else {
            let tcp: Vec<&str> = traffic
                .iter()
                .filter(|t| matches!(t.kind, TrafficKind::Ftp { .. }))
                .map(|t| t.name.as_str())
                .collect();
            return Err(ScenarioError::new(
                join(&p, "group"),
                format!(
                    "expected the name of a TCP traffic group ({}), got \"{group}\"",
                    tcp.join(", "),
                ),
            ));
        };
        let what = rule.segment.name();
        if !exists(rule.segment, tcp.handshake) {
            let handshake = serde_json::to_value(tcp.handshake).expect("a name");
            return Err(ScenarioError::new(
                join(&p, "what"),
                format!("group \"{group}\" uses handshake {handshake}, which sends no {what}"),
            ));
        }
        if *flow >= g.flows {
            return Err(ScenarioError::new(
                join(&p, "flow"),
                format!(
                    "expected a flow of group \"{group}\" (0 to {}), got {flow}",
                    g.flows - 1
                ),
            ));
        }
        let (server, client) = g.flow_hosts(*flow, (&net.servers, &net.clients));
        let (src, dst) = if server_to_client(rule.segment, g.from, tcp.handshake) {
            (server, client)
        } else {
            (client, server)
        };
        let way = net.routes.path(src, dst).unwrap_or_default();
        if !way.iter().any(|l| on.contains(l)) {
            let here = if path.contains('.') {
                path.to_string()
            } else {
                format!("[{path}]")
            };
            let names: Vec<&str> = way
                .iter()
                .map(|&l| net.links[l as usize].name.as_str())
                .collect();
            return Err(ScenarioError::new(
                join(&p, "what"),
                format!(
                    "expected a packet that crosses {here}, but {what} of group \"{group}\" \
                     does not: it crosses {}",
                    names.join(", ")
                ),
            ));
        }
    }
    Ok(())
}
