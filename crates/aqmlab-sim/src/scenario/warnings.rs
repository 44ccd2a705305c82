//! Warnings: quiet misconfigurations of a valid scenario, found once the whole scenario is read.
//! Each has a stable code, the key path it is about and a message (`docs/scenario.md`,
//! "Warnings"); they are recorded in the summary (`summary.warnings`) and printed by the command
//! line, and never fail a run. What would make a result meaningless (a warm-up as long as the run,
//! a RED `max_th` at or above the queue's limit) is an error instead, raised where it is read.

use super::{Scenario, Topology};
use crate::queue::config::QueueSpec;
use crate::queue::Action;
use crate::report::Warning;
use crate::traffic::config::{Peer, Side, Start, TrafficKind, TrafficSpec};
use crate::units::Time;
use std::collections::BTreeSet;

/// Every warning of a resolved scenario, in a fixed order: queues, then traffic groups in order,
/// then `[measure]`.
pub fn check(s: &Scenario) -> Vec<Warning> {
    let mut out = Vec::new();
    match s.topology {
        Topology::Preset(_) => ecn(s, &mut out),
        Topology::Graph(_) => ecn_links(s, &mut out),
    }
    for (i, t) in s.traffic.iter().enumerate() {
        pinning(t, i, &mut out);
        timing(s, t, i, &mut out);
    }
    measure(s, &mut out);
    out
}

fn warn(out: &mut Vec<Warning>, code: &'static str, path: String, message: String) {
    out.push(Warning {
        code,
        path,
        message,
    });
}

fn is_web(kind: &TrafficKind) -> bool {
    matches!(
        kind,
        TrafficKind::WebMah { .. } | TrafficKind::WebPool { .. }
    )
}

/// Which queues a group's data segments cross: `(queue, reverse_queue)`. Servers → clients is
/// `[queue]`; a web group's data flows both ways (requests from its users, replies to them).
fn data_crosses(t: &TrafficSpec) -> (bool, bool) {
    if is_web(&t.kind) {
        (true, true)
    } else {
        (t.from == Side::Servers, t.from == Side::Clients)
    }
}

/// Whether a queue CE-marks ECN-capable packets (a scripted queue: whether a rule marks).
fn marks(q: &QueueSpec) -> bool {
    match q {
        QueueSpec::DropTail { .. } => false,
        QueueSpec::Bernoulli { ecn, .. } => *ecn,
        QueueSpec::Scripted { drops, .. } => drops.iter().any(|r| r.rule.action == Action::Mark),
        QueueSpec::Red(c) => c.ecn,
        QueueSpec::Codel(c) => c.ecn,
        QueueSpec::Pie(c) => c.ecn,
        QueueSpec::FqCodel(c) => c.codel.ecn,
    }
}

/// ECN on one side only: a queue that marks where no ECN-capable sender's data passes (it will
/// drop or mark nothing), a group whose senders are ECN-capable but whose queues never mark, and a
/// scripted `mark` of a group that is not ECN-capable (the queue drops the segment instead).
fn ecn(s: &Scenario, out: &mut Vec<Warning>) {
    let ecn_groups = |forward: bool| {
        s.traffic.iter().filter(move |t| {
            let (fwd, rev) = data_crosses(t);
            t.kind.tcp().is_some_and(|c| c.ecn) && if forward { fwd } else { rev }
        })
    };
    let queues = [
        ("queue", &s.queue.spec, true),
        ("reverse_queue", &s.reverse_queue.spec, false),
    ];
    for (name, q, forward) in queues {
        let scripted = matches!(q, QueueSpec::Scripted { .. });
        if marks(q) && !scripted && ecn_groups(forward).next().is_none() {
            warn(
                out,
                "ecn-one-sided",
                format!("{name}.ecn"),
                format!(
                    "[{name}] marks with ECN, but no ECN-capable TCP sender's data crosses it \
                     (tcp.ecn = false): it drops instead and counts no marks"
                ),
            );
        }
        scripted_marks(s, q, name, "the queue", out);
    }
    for (i, t) in s.traffic.iter().enumerate() {
        if !t.kind.tcp().is_some_and(|c| c.ecn) {
            continue;
        }
        let (fwd, rev) = data_crosses(t);
        if !(fwd && marks(&s.queue) || rev && marks(&s.reverse_queue)) {
            let crossed = match (fwd, rev) {
                (true, true) => "[queue] nor [reverse_queue]",
                (true, false) => "[queue]",
                _ => "[reverse_queue]",
            };
            warn(
                out,
                "ecn-one-sided",
                format!("traffic[{i}].tcp.ecn"),
                format!(
                    "group \"{}\" is ECN-capable, but {crossed}, which its data crosses, does not \
                     mark (ecn = false): its ECN is never used",
                    t.name
                ),
            );
        }
    }
}

/// A scripted `mark` rule, in the queue table at `path` (`whose`: the queue as the message names
/// it), of a group that is not ECN-capable: the queue drops the segment instead.
fn scripted_marks(s: &Scenario, q: &QueueSpec, path: &str, whose: &str, out: &mut Vec<Warning>) {
    let QueueSpec::Scripted { drops, .. } = q else {
        return;
    };
    for (i, rule) in drops.iter().enumerate() {
        let group = s.traffic.iter().find(|t| t.name == rule.group);
        let capable = group.and_then(|t| t.kind.tcp()).is_some_and(|c| c.ecn);
        if rule.rule.action == Action::Mark && !capable {
            warn(
                out,
                "ecn-one-sided",
                format!("{path}.drops[{i}].action"),
                format!(
                    "marks a segment of group \"{}\", whose TCP is not ECN-capable \
                     (tcp.ecn = false): {whose} drops it instead",
                    rule.group
                ),
            );
        }
    }
}

/// The one-way links a group's data may cross on a network of nodes and links (by link id):
/// each flow's path from its sender to its receiver, as routed; a web group's data flows both
/// ways, between any of its server hosts and any of its client hosts (its users pick them).
fn crossed_links(s: &Scenario, t: &TrafficSpec) -> Vec<bool> {
    let net = &s.net;
    let mut pairs = BTreeSet::new();
    if is_web(&t.kind) {
        let (servers, clients) = t.sides((&net.servers, &net.clients));
        for &a in servers {
            for &b in clients {
                pairs.extend([(a, b), (b, a)]);
            }
        }
    } else {
        for k in 0..t.flows {
            let (server, client) = t.flow_hosts(k, (&net.servers, &net.clients));
            pairs.insert(match t.from {
                Side::Servers => (server, client),
                Side::Clients => (client, server),
            });
        }
    }
    let mut crossed = vec![false; net.links.len()];
    for (src, dst) in pairs {
        for l in net.routes.path(src, dst).unwrap_or_default() {
            crossed[l as usize] = true;
        }
    }
    crossed
}

/// ECN on one side only on a network of nodes and links, checked on every link direction's
/// queue (`link[i].queue` is link `2i`, `link[i].reverse_queue` link `2i + 1`): a queue that
/// marks where no ECN-capable sender's data passes, a scripted `mark` of a group that is not
/// ECN-capable, and an ECN-capable group none of whose queues marks.
fn ecn_links(s: &Scenario, out: &mut Vec<Warning>) {
    let links = &s.net.links;
    let capable = |t: &TrafficSpec| t.kind.tcp().is_some_and(|c| c.ecn);
    let crossed: Vec<Vec<bool>> = s.traffic.iter().map(|t| crossed_links(s, t)).collect();
    for (l, link) in links.iter().enumerate() {
        let side = if l % 2 == 0 { "queue" } else { "reverse_queue" };
        let path = format!("link[{}].{side}", l / 2);
        let q = &link.queue;
        let scripted = matches!(q, QueueSpec::Scripted { .. });
        let reached = (s.traffic.iter().zip(&crossed)).any(|(t, on)| capable(t) && on[l]);
        if marks(q) && !scripted && !reached {
            warn(
                out,
                "ecn-one-sided",
                format!("{path}.ecn"),
                format!(
                    "the queue of link \"{}\" marks with ECN, but no ECN-capable TCP sender's \
                     data crosses it (tcp.ecn = false): it drops instead and counts no marks",
                    link.name
                ),
            );
        }
        scripted_marks(
            s,
            q,
            &path,
            &format!("the queue of link \"{}\"", link.name),
            out,
        );
    }
    for (i, (t, on)) in s.traffic.iter().zip(&crossed).enumerate() {
        let used: Vec<&str> = (links.iter().zip(on))
            .filter(|(_, &on)| on)
            .map(|(l, _)| l.name.as_str())
            .collect();
        let marked = (links.iter().zip(on)).any(|(l, &on)| on && marks(&l.queue));
        if capable(t) && !marked {
            warn(
                out,
                "ecn-one-sided",
                format!("traffic[{i}].tcp.ecn"),
                format!(
                    "group \"{}\" is ECN-capable, but no queue its data crosses marks (ecn = \
                     false on links {}): its ECN is never used",
                    t.name,
                    used.join(", ")
                ),
            );
        }
    }
}

/// `server` or `client` pinning a group to hosts its kind does not use: `web-mah` users pick
/// their servers at random, and a `web-pool` user asks a host across the bottleneck chosen for
/// each request (`peer = "any"`) or the one of its own host's index (`"paired"`).
fn pinning(t: &TrafficSpec, i: usize, out: &mut Vec<Warning>) {
    let (key, value, how) = match &t.kind {
        TrafficKind::WebMah { .. } => ("server", t.server, "its users pick server hosts at random"),
        TrafficKind::WebPool { peer, .. } => {
            let how = match peer {
                Peer::Any => "its users ask a host across the bottleneck chosen for each request",
                Peer::Paired => {
                    "its users ask the host across the bottleneck of their own host's index"
                }
            };
            match t.from {
                Side::Clients => ("server", t.server, how),
                Side::Servers => ("client", t.client, how),
            }
        }
        _ => return,
    };
    if value != 0 {
        warn(
            out,
            "pin-ignored",
            format!("traffic[{i}].{key}"),
            format!(
                "{key} = {value} has no effect on a {} group: {how}",
                t.kind.name()
            ),
        );
    }
}

/// When a group's flows may start at the earliest.
fn earliest_start(start: Start) -> Time {
    match start {
        Start::At(t) => t,
        Start::Uniform { min, .. } => min,
        Start::Exponential { .. } => Time::ZERO,
    }
}

/// A group that starts only after the run, or whose UDP sources stop before the warm-up ends:
/// it contributes nothing to the measured window.
fn timing(s: &Scenario, t: &TrafficSpec, i: usize, out: &mut Vec<Warning>) {
    let start = earliest_start(t.start);
    if start >= s.duration {
        warn(
            out,
            "starts-after-run",
            format!("traffic[{i}].start"),
            format!(
                "group \"{}\" starts at {start} or later, but the run lasts {}: it sends nothing",
                t.name, s.duration
            ),
        );
    } else if let Some(udp) = t.kind.udp() {
        if udp.stop <= s.warmup {
            warn(
                out,
                "stops-in-warmup",
                format!("traffic[{i}].stop"),
                format!(
                    "group \"{}\" stops at {}, before the warm-up ends ({}): nothing it sends is \
                     measured",
                    t.name, udp.stop, s.warmup
                ),
            );
        }
    }
}

/// Sampling intervals longer than the measured window: their tables get one partial row.
fn measure(s: &Scenario, out: &mut Vec<Warning>) {
    let window = s.duration - s.warmup;
    for (key, interval) in [
        ("queue_interval", s.measure.queue_interval),
        ("link_interval", s.measure.link_interval),
    ] {
        if interval > window {
            warn(
                out,
                "interval-exceeds-window",
                format!("measure.{key}"),
                format!(
                    "{interval} is longer than the measured window ({window} = duration − \
                     warmup): the table has a single, partial interval"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Scenario;
    use serde_json::{json, Value};

    /// The (code, path) of each warning of a 10 s scenario on a 10 Mbps bottleneck with `extra`.
    fn warnings(extra: Value) -> Vec<(&'static str, String)> {
        let mut v = json!({"duration": "10s", "topology": {"servers": 2, "clients": 2,
                           "bottleneck": {"rate": "10Mbps"}}});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        let s = Scenario::from_value(&v).unwrap();
        s.warnings.into_iter().map(|w| (w.code, w.path)).collect()
    }

    fn red(ecn: bool) -> Value {
        json!({"kind": "red", "profile": "ns2-2003", "ecn": ecn})
    }

    #[test]
    fn a_plain_scenario_has_no_warnings() {
        let ftp = json!([{"kind": "ftp", "tcp": {"ecn": true}}]);
        assert!(warnings(json!({"queue": red(true), "traffic": ftp})).is_empty());
        assert!(warnings(json!({"traffic": [{"kind": "ftp"}]})).is_empty());
    }

    #[test]
    fn ecn_on_one_side_only_is_a_warning() {
        // The queue marks, the senders are not ECN-capable.
        let plain = json!([{"kind": "ftp"}]);
        assert_eq!(
            warnings(json!({"queue": red(true), "traffic": plain})),
            [("ecn-one-sided", "queue.ecn".to_string())]
        );
        // ECN-capable senders, a queue that only drops.
        let ecn = json!([{"kind": "ftp", "tcp": {"ecn": true}}]);
        assert_eq!(
            warnings(json!({"queue": red(false), "traffic": ecn})),
            [("ecn-one-sided", "traffic[0].tcp.ecn".to_string())]
        );
        // Both sides have ECN, but in different directions: the ECN sender's data crosses
        // [reverse_queue], and [queue] marks.
        let reverse = json!([{"kind": "ftp", "from": "clients", "tcp": {"ecn": true}}]);
        assert_eq!(
            warnings(json!({"queue": red(true), "traffic": reverse})),
            [
                ("ecn-one-sided", "queue.ecn".to_string()),
                ("ecn-one-sided", "traffic[0].tcp.ecn".to_string())
            ]
        );
        // A scripted mark of a group without ECN is a drop.
        let rule = json!({"kind": "scripted",
                          "drops": [{"group": "f", "segment": 3, "action": "mark"}]});
        assert_eq!(
            warnings(json!({"queue": rule, "traffic": [{"kind": "ftp", "name": "f"}]})),
            [("ecn-one-sided", "queue.drops[0].action".to_string())]
        );
        // ... and of an ECN-capable group is the ECN the group asked for.
        let ecn_f = json!([{"kind": "ftp", "name": "f", "tcp": {"ecn": true}}]);
        assert!(warnings(json!({"queue": rule, "traffic": ecn_f})).is_empty());
    }

    /// The warnings of a two-hop parking lot of nodes and links (s0 → c0 across both hops, s1 →
    /// c1 across the first only) whose hops have the queues `hops` and whose ftp groups are
    /// `traffic`.
    fn lot_warnings(hops: [Value; 2], traffic: Value) -> Vec<(&'static str, String, String)> {
        let host = |n: &str| json!({"name": n, "kind": "host"});
        let router = |n: &str| json!({"name": n, "kind": "router"});
        let access = |a: &str, b: &str| json!({"from": a, "to": b, "rate": "100Mbps"});
        let v = json!({"duration": "10s",
            "node": [host("s0"), host("s1"), host("c0"), host("c1"),
                     router("r0"), router("r1"), router("r2")],
            "link": [access("s0", "r0"), access("s1", "r0"), access("c0", "r2"),
                     access("c1", "r1"),
                     {"from": "r0", "to": "r1", "rate": "10Mbps", "queue": hops[0]},
                     {"from": "r1", "to": "r2", "rate": "10Mbps", "queue": hops[1]}],
            "traffic": traffic});
        let s = Scenario::from_value(&v).unwrap();
        (s.warnings.into_iter())
            .map(|w| (w.code, w.path, w.message))
            .collect()
    }

    #[test]
    fn ecn_on_one_side_is_checked_on_every_link_direction() {
        let long = |ecn: bool| {
            json!({"kind": "ftp", "name": "long", "servers": ["s0"],
                                      "clients": ["c0"], "tcp": {"ecn": ecn}})
        };
        let cross = |ecn: bool| {
            json!({"kind": "ftp", "name": "cross", "servers": ["s1"],
                                       "clients": ["c1"], "tcp": {"ecn": ecn}})
        };
        // ECN-capable long flows cross both hops, which mark: nothing to warn of.
        assert!(lot_warnings([red(true), red(true)], json!([long(true), cross(false)])).is_empty());
        // With no ECN-capable group, both hops' marking queues are warned of, each by name.
        let w = lot_warnings([red(true), red(true)], json!([long(false), cross(false)]));
        let paths: Vec<&str> = w.iter().map(|(_, p, _)| p.as_str()).collect();
        assert_eq!(paths, ["link[4].queue.ecn", "link[5].queue.ecn"]);
        assert!(w[0]
            .2
            .starts_with("the queue of link \"r0-r1\" marks with ECN"));
        assert!(w[1]
            .2
            .starts_with("the queue of link \"r1-r2\" marks with ECN"));
        // ECN-capable cross flows whose one hop only drops, beside long flows that meet a marking
        // second hop: the cross group is warned of, naming the links its data crosses (in the
        // order of [[link]]s).
        let w = lot_warnings([red(false), red(true)], json!([long(true), cross(true)]));
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].1, "traffic[1].tcp.ecn");
        assert!(
            w[0].2.contains("ecn = false on links s1-r0, r1-c1, r0-r1"),
            "{}",
            w[0].2
        );
        // A reverse direction's queue is checked too: here it marks the ACKs' way, which no data
        // crosses, and the data's way drops.
        let v = json!({"duration": "10s",
            "node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
            "link": [{"from": "a", "to": "b", "rate": "1Mbps", "reverse_queue": red(true)}],
            "traffic": [{"kind": "ftp", "servers": ["a"], "clients": ["b"],
                         "tcp": {"ecn": true}}]});
        let w: Vec<(&str, String, String)> = (Scenario::from_value(&v).unwrap().warnings)
            .into_iter()
            .map(|w| (w.code, w.path, w.message))
            .collect();
        let paths: Vec<&str> = w.iter().map(|(_, p, _)| p.as_str()).collect();
        assert_eq!(paths, ["link[0].reverse_queue.ecn", "traffic[0].tcp.ecn"]);
        assert!(w[0].2.starts_with("the queue of link \"b-a\" marks"));
    }

    #[test]
    fn pinning_a_web_group_where_its_kind_ignores_it_is_a_warning() {
        let tcp = json!({"handshake": "three-way"});
        let mah = json!([{"kind": "web-mah", "users": 2, "server": 1, "client": 1, "tcp": tcp}]);
        assert_eq!(
            warnings(json!({"traffic": mah})),
            [("pin-ignored", "traffic[0].server".to_string())]
        );
        let pool = json!([{"kind": "web-pool", "users": 2, "users_on": "servers", "server": 1,
                           "client": 1, "tcp": tcp}]);
        assert_eq!(
            warnings(json!({"traffic": pool})),
            [("pin-ignored", "traffic[0].client".to_string())]
        );
        // Pinning the side the users sit on, or a bulk group, is honoured.
        let used = json!([{"kind": "web-pool", "users": 2, "client": 1, "tcp": tcp},
                          {"kind": "ftp", "server": 1, "client": 1}]);
        assert!(warnings(json!({"traffic": used})).is_empty());
    }

    #[test]
    fn traffic_outside_the_measured_window_is_a_warning() {
        let late = json!([{"kind": "ftp", "start": "10s"},
                          {"kind": "cbr", "rate": "1Mbps", "start": {"dist": "uniform",
                                                                     "min": "12s", "max": "13s"}}]);
        assert_eq!(
            warnings(json!({"traffic": late})),
            [
                ("starts-after-run", "traffic[0].start".to_string()),
                ("starts-after-run", "traffic[1].start".to_string())
            ]
        );
        let early = json!([{"kind": "cbr", "rate": "1Mbps", "stop": "2s"},
                           {"kind": "cbr", "rate": "1Mbps", "stop": "2.001s"}]);
        assert_eq!(
            warnings(json!({"warmup": "2s", "traffic": early})),
            [("stops-in-warmup", "traffic[0].stop".to_string())]
        );
    }

    #[test]
    fn an_interval_longer_than_the_measured_window_is_a_warning() {
        assert_eq!(
            warnings(json!({"warmup": "9s", "measure": {"link_interval": "1001ms"}})),
            [(
                "interval-exceeds-window",
                "measure.link_interval".to_string()
            )]
        );
        assert!(warnings(json!({"warmup": "9s"})).is_empty());
    }
}
