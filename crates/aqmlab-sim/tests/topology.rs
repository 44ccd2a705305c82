//! Topologies as data: `[[node]]`s, `[[link]]`s and `[[route]]`s, the named topologies that
//! expand into them, and their errors (docs/scenario.md, "Nodes, links and routes").

mod common;

use aqmlab_sim::{Report, Scenario};
use common::{ints, run, strings};
use serde_json::{json, Value};

/// A report's tables and logged link directions, to compare two runs of one network.
fn outputs(r: &Report) -> (String, String) {
    (
        format!("{:?}", r.tables),
        serde_json::to_string(&r.summary.links).unwrap(),
    )
}

/// The dumbbell written out as nodes and links runs as the dumbbell: every table and every
/// logged direction the same, for a mix of every kind of traffic (web users on either side, UDP,
/// bulk TCP), RED, a constant pair delay and Ethernet framing.
#[test]
fn the_dumbbell_expanded_into_nodes_and_links_runs_as_the_dumbbell() {
    let dumbbell = json!({
        "duration": "6s", "warmup": "1s",
        "topology": {"servers": 2, "clients": 3, "pair_delay": "4ms",
                     "bottleneck": {"rate": "10Mbps", "delay": "10ms", "framing": "ethernet"},
                     "access": {"delay": "1ms", "queue": "20p"}},
        "queue": {"kind": "red", "limit": "2bdp"},
        "reverse_queue": {"kind": "codel"},
        "tcp": {"handshake": "three-way"},
        "traffic": [
            {"kind": "web-mah", "users": 30},
            {"kind": "web-pool", "users": 4, "users_on": "servers"},
            {"kind": "ftp", "flows": 3, "client": 1, "trace": true},
            {"kind": "poisson", "flows": 2, "rate": "1Mbps", "from": "clients"}
        ]
    });
    let s = Scenario::from_value(&dumbbell).unwrap();
    let expanded = s.expanded().unwrap();
    assert!(expanded.get("topology").is_none() && expanded.get("queue").is_none());
    assert_eq!(expanded["node"].as_array().unwrap().len(), 2 + 3 + 2);
    assert_eq!(expanded["link"].as_array().unwrap().len(), 5 + 1);
    let bottleneck = &expanded["link"][5];
    assert_eq!(
        (&bottleneck["name"], &bottleneck["reverse_name"]),
        (&json!("forward"), &json!("reverse"))
    );
    // The pair delay is part of each router → host direction.
    let c0 = &expanded["link"][2];
    assert_eq!(
        (&c0["from"], &c0["delay"], &c0["reverse_delay"]),
        (&json!("c0"), &json!("1ms"), &json!("5ms"))
    );
    assert_eq!(expanded["traffic"][2]["servers"], json!(["s0", "s1"]));
    // Resolving the expansion again changes nothing; it runs to the same tables.
    let again = Scenario::from_value(&expanded).unwrap();
    assert_eq!(again.to_value(), expanded);
    assert_eq!(again.expanded().unwrap(), expanded);
    let (a, b) = (run(&dumbbell, Some(3)), run(&expanded, Some(3)));
    assert_eq!(outputs(&a), outputs(&b));
    assert!(
        a.summary.links["forward"].drops_pkts > 0,
        "the bottleneck is busy"
    );
}

#[test]
fn pair_delays_drawn_per_pair_have_no_expansion() {
    let s = Scenario::from_value(&json!({
        "duration": "1s",
        "topology": {"servers": 2, "bottleneck": {"rate": "1Mbps"},
                     "pair_delay": {"dist": "uniform", "min": "1ms", "max": "9ms"}}
    }))
    .unwrap();
    assert_eq!(s.expanded().unwrap_err().path, "topology.pair_delay");
}

/// Three routers in a row and a CBR flow per host pair: each hop carries the flows whose path
/// crosses it, and is logged under its name.
#[test]
fn a_parking_lot_carries_each_flow_over_its_own_hops() {
    let v = json!({
        "duration": "4s",
        "topology": {"kind": "parking-lot", "hops": 3,
                     "bottleneck": {"rate": "10Mbps", "delay": "2ms"}},
        "queue": {"kind": "droptail", "limit": "100p"},
        "traffic": [
            {"kind": "cbr", "name": "long", "rate": "2Mbps", "size": "1000B",
             "servers": ["s0"], "clients": ["c0"]},
            {"kind": "cbr", "name": "cross", "rate": "1Mbps", "size": "1000B", "flows": 3,
             "server": 1, "client": 1}
        ]
    });
    let r = run(&v, None);
    let hops = ["r0-r1", "r1-r2", "r2-r3"];
    let logged: Vec<&str> = r.summary.links.keys().map(String::as_str).collect();
    assert_eq!(
        logged,
        ["r0-r1", "r1-r0", "r1-r2", "r2-r1", "r2-r3", "r3-r2"]
    );
    // 2 + 1 Mbps of 1000 B packets for 4 s on every hop: 1500 packets.
    for hop in hops {
        let d = &r.summary.links[hop];
        assert!(
            d.arrivals_pkts.abs_diff(1500) <= 4,
            "{hop}: {}",
            d.arrivals_pkts
        );
        assert!(
            (d.utilization - 0.3).abs() < 0.01,
            "{hop}: {}",
            d.utilization
        );
        assert_eq!(r.summary.links[&rev(hop)].arrivals_pkts, 0);
    }
    let queue_rows = strings(&r, "queue", "direction");
    for hop in hops {
        assert!(queue_rows.iter().any(|d| d == hop), "{hop} logged");
    }
    assert_eq!(
        (strings(&r, "flows", "src"), strings(&r, "flows", "dst")),
        (
            vec!["s0".into(), "s1".into(), "s2".into(), "s3".into()],
            vec!["c0".into(), "c1".into(), "c2".into(), "c3".into()]
        )
    );
}

/// The reverse direction of a link named `a-b`.
fn rev(name: &str) -> String {
    let (a, b) = name.split_once('-').unwrap();
    format!("{b}-{a}")
}

/// Two ways from r1 to r2, through ra (less delay) and rb: shortest paths take ra; a route at r1
/// sends one destination's packets through rb.
fn diamond(routes: Value) -> Value {
    let host = |n: &str| json!({"name": n, "kind": "host"});
    let router = |n: &str| json!({"name": n, "kind": "router"});
    let link = |a: &str, b: &str, delay: &str| json!({"from": a, "to": b, "rate": "10Mbps", "delay": delay});
    json!({
        "duration": "2s",
        "node": [host("s1"), host("c1"), host("c2"), router("r1"), router("ra"),
                 router("rb"), router("r2")],
        "link": [link("s1", "r1", "0s"), link("r1", "ra", "1ms"), link("r1", "rb", "2ms"),
                 link("ra", "r2", "1ms"), link("rb", "r2", "2ms"), link("r2", "c1", "0s"),
                 link("r2", "c2", "0s")],
        "route": routes,
        "traffic": [{"kind": "cbr", "rate": "1Mbps", "servers": ["s1"], "clients": ["c1", "c2"],
                     "flows": 2}]
    })
}

#[test]
fn shortest_paths_take_the_least_delay_and_routes_override_them() {
    let r = run(&diamond(json!([])), None);
    let pkts = |r: &Report, l: &str| r.summary.links[l].arrivals_pkts;
    assert!(pkts(&r, "r1-ra") > 400 && pkts(&r, "r1-rb") == 0);
    let r = run(
        &diamond(json!([{"at": "r1", "to": ["c2"], "via": "rb"}])),
        None,
    );
    assert_eq!(pkts(&r, "r1-ra"), pkts(&r, "r1-rb"));
    assert_eq!(pkts(&r, "rb-r2"), pkts(&r, "r1-rb"));
    // The route is written back as given.
    let s = Scenario::from_value(&diamond(json!([{"at": "r1", "to": "c2", "via": "rb"}]))).unwrap();
    assert_eq!(
        s.to_value()["route"],
        json!([{"at": "r1", "to": ["c2"], "via": "rb"}])
    );
}

#[test]
fn access_core_puts_the_queue_on_the_access_link() {
    let v = json!({
        "duration": "3s",
        "topology": {"kind": "access-core", "servers": 2, "clients": 2,
                     "core": {"rate": "1Gbps", "delay": "10ms"},
                     "bottleneck": {"rate": "5Mbps", "delay": "2ms"}},
        "queue": {"kind": "droptail", "limit": "10p"},
        "traffic": [{"kind": "cbr", "rate": "8Mbps", "size": "1000B"}]
    });
    let r = run(&v, None);
    let (core, access) = (&r.summary.links["r1-r2"], &r.summary.links["r2-r3"]);
    assert_eq!(core.drops_pkts, 0);
    assert!(access.drops_pkts > 0 && access.utilization > 0.99);
    // All cross both, but for those still on the 10 ms core link at the end (8 Mbps × 10 ms:
    // 10 packets of 1000 B).
    assert!((0..=10).contains(&(core.arrivals_pkts - access.arrivals_pkts)));
}

/// Bad networks are refused with the key at fault named.
#[test]
fn bad_networks_name_the_key_at_fault() {
    let host = |n: &str| json!({"name": n, "kind": "host"});
    let router = |n: &str| json!({"name": n, "kind": "router"});
    let link = |a: &str, b: &str| json!({"from": a, "to": b, "rate": "10Mbps"});
    let net = |nodes: Value, links: Value, traffic: Value| json!({"duration": "1s", "node": nodes, "link": links, "traffic": traffic});
    let two = json!([host("h1"), host("h2"), router("r1")]);
    let star = json!([link("h1", "r1"), link("h2", "r1")]);
    let flow = json!([{"kind": "cbr", "rate": "1Mbps", "servers": ["h1"], "clients": ["h2"]}]);
    let cases: Vec<(Value, &str, &str)> = vec![
        (
            net(
                two.clone(),
                json!([link("h1", "r1"), link("h2", "r9")]),
                flow.clone(),
            ),
            "link[1].to",
            "unknown node \"r9\"",
        ),
        (
            net(
                two.clone(),
                json!([link("h1", "r1"), link("r1", "r1")]),
                flow.clone(),
            ),
            "link[1].to",
            "to itself",
        ),
        (
            net(
                json!([host("h1"), host("h1"), router("r1")]),
                star.clone(),
                flow.clone(),
            ),
            "node[1].name",
            "node[0] already",
        ),
        (
            net(
                two.clone(),
                json!([link("h1", "r1"), link("r1", "h1"), link("h2", "r1")]),
                flow.clone(),
            ),
            "link[1].to",
            "a second link between",
        ),
        (
            net(
                json!([host("h1"), host("h2"), router("r1"), router("r2")]),
                json!([link("h1", "r1"), link("h2", "r2")]),
                flow.clone(),
            ),
            "node[1]",
            "not connected",
        ),
        (
            net(
                json!([host("h1"), host("h2"), router("r1"), router("lonely")]),
                star.clone(),
                flow.clone(),
            ),
            "node[3]",
            "has no [[link]]",
        ),
        (
            net(
                two.clone(),
                star.clone(),
                json!([{"kind": "cbr", "rate": "1Mbps"}]),
            ),
            "traffic[0].servers",
            "required",
        ),
        (
            net(
                two.clone(),
                star.clone(),
                json!([{"kind": "cbr", "rate": "1Mbps",
                "servers": ["h1"], "clients": ["h3"]}]),
            ),
            "traffic[0].clients[0]",
            "unknown host \"h3\"",
        ),
        (
            net(
                two.clone(),
                star.clone(),
                json!([{"kind": "cbr", "rate": "1Mbps",
                "servers": ["r1"], "clients": ["h2"]}]),
            ),
            "traffic[0].servers[0]",
            "is a router",
        ),
        (
            net(
                two.clone(),
                star.clone(),
                json!([{"kind": "cbr", "rate": "1Mbps",
                "servers": ["h1", "h2"], "clients": ["h2"], "flows": 2}]),
            ),
            "traffic[0].clients",
            "flow 1 would run between host \"h2\" and itself",
        ),
        (
            net(
                two.clone(),
                json!([link("h1", "r1"), {"from": "h2", "to": "r1", "rate": "1Mbps",
                "name": "h1-r1"}]),
                flow.clone(),
            ),
            "link[1].name",
            "names another link direction already (link[0].name)",
        ),
        (
            net(
                two.clone(),
                json!([link("h1", "r1"), {"from": "h2", "to": "r1", "rate": "1Mbps",
                "reverse_name": "checks"}]),
                flow.clone(),
            ),
            "link[1].reverse_name",
            "a section of the summary",
        ),
        (
            net(
                two.clone(),
                json!([link("h1", "r1"), {"from": "h2", "to": "r1", "rate": "1Mbps",
                "queue": {"kind": "red", "limit": "2bdp"}}]),
                flow.clone(),
            ),
            "link[1].queue.limit",
            "give the queue's `rtt`",
        ),
        (
            net(
                json!([host("h-1"), host("h2"), router("r1")]),
                star.clone(),
                flow.clone(),
            ),
            "node[0].name",
            "expected a name",
        ),
    ];
    for (v, path, message) in cases {
        let e = Scenario::from_value(&v).unwrap_err();
        assert_eq!(e.path, path, "{e}");
        assert!(e.message.contains(message), "{e}");
    }
    // Nodes and links are not given beside [topology] or a queue of the bottleneck.
    let mut v = net(two.clone(), star.clone(), flow.clone());
    v["topology"] = json!({"bottleneck": {"rate": "1Mbps"}});
    assert_eq!(Scenario::from_value(&v).unwrap_err().path, "topology");
    let mut v = net(two, star, flow);
    v["reverse_queue"] = json!({"kind": "droptail"});
    assert_eq!(Scenario::from_value(&v).unwrap_err().path, "reverse_queue");
}

/// Explicit routes that loop or lead nowhere, or name what is not there, are refused.
#[test]
fn bad_routes_name_the_route() {
    let err = |routes: Value| Scenario::from_value(&diamond(routes)).unwrap_err();
    let e = err(json!([{"at": "r1", "to": ["c1"], "via": "rb"},
                       {"at": "rb", "to": ["c1"], "via": "r1"}]));
    assert_eq!(e.path, "route[0]");
    assert!(e.message.contains("loop: r1 → rb → r1"), "{e}");
    assert_eq!(
        err(json!([{"at": "r1", "to": ["c1"], "via": "r2"}])).path,
        "route[0].via"
    );
    assert_eq!(
        err(json!([{"at": "r1", "to": ["r2"], "via": "ra"}])).path,
        "route[0].to[0]"
    );
    assert_eq!(
        err(json!([{"at": "r9", "to": ["c1"], "via": "ra"}])).path,
        "route[0].at"
    );
    assert_eq!(
        err(json!([{"at": "r1", "to": ["c1"], "via": "ra"}, {"at": "r1", "to": ["c1"], "via": "rb"}])).path,
        "route[1].to[0]"
    );
    assert_eq!(
        err(json!([{"at": "r1", "to": ["c1"], "via": "s1"}])).path,
        "route[0].via"
    );
}

/// A scripted queue on a link must name packets whose path crosses that link.
#[test]
fn scripted_rules_on_a_link_name_packets_that_cross_it() {
    let mut v = diamond(json!([]));
    v["traffic"] = json!([{"kind": "ftp", "name": "f", "servers": ["s1"], "clients": ["c1"]}]);
    v["link"][2]["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "segment": 3}]});
    let e = Scenario::from_value(&v).unwrap_err();
    assert_eq!(e.path, "link[2].queue.drops[0].what");
    assert!(
        e.message.contains("it crosses s1-r1, r1-ra, ra-r2, r2-c1"),
        "{e}"
    );
    v["link"][2].as_object_mut().unwrap().remove("queue");
    v["link"][1]["queue"] = json!({"kind": "scripted", "drops": [{"group": "f", "segment": 3}]});
    let r = run(&v, None);
    assert_eq!(r.summary.links["r1-ra"].drops_pkts, 1);
}

/// The `hops` table: each UDP flow's path, and where its packets were dropped. Hop 2 of a parking
/// lot is overloaded (6 + 6 Mbps on 10 Mbps), hop 1 is not (6 + 2); Poisson sources, so that no
/// phase locks one flow out of the drops.
#[test]
fn the_hops_table_gives_each_flows_path_and_where_it_lost() {
    let v = json!({
        "duration": "5s", "warmup": "1s",
        "topology": {"kind": "parking-lot", "hops": 2, "bottleneck": {"rate": "10Mbps"}},
        "queue": {"kind": "droptail", "limit": "20p"},
        "traffic": [
            {"kind": "poisson", "name": "long", "rate": "6Mbps", "servers": ["s0"], "clients": ["c0"]},
            {"kind": "poisson", "name": "one", "rate": "2Mbps", "servers": ["s1"], "clients": ["c1"]},
            {"kind": "poisson", "name": "two", "rate": "6Mbps", "servers": ["s2"], "clients": ["c2"]}
        ]
    });
    let r = run(&v, None);
    let (flow, link, drops) = (
        ints(&r, "hops", "flow"),
        strings(&r, "hops", "link"),
        ints(&r, "hops", "drops_pkts"),
    );
    let of = |f: i64| -> Vec<(String, i64)> {
        (0..flow.len())
            .filter(|&k| flow[k] == f)
            .map(|k| (link[k].clone(), drops[k]))
            .collect()
    };
    let names = |f: i64| of(f).into_iter().map(|(l, _)| l).collect::<Vec<_>>();
    assert_eq!(names(0), ["s0.up", "r0-r1", "r1-r2", "c0.down"]);
    assert_eq!(names(1), ["s1.up", "r0-r1", "c1.down"]);
    assert_eq!(names(2), ["s2.up", "r1-r2", "c2.down"]);
    let lost = |f: i64, l: &str| of(f).into_iter().find(|(x, _)| x == l).unwrap().1;
    assert!(lost(0, "r1-r2") > 100 && lost(2, "r1-r2") > 100);
    assert!(10 * (lost(0, "r0-r1") + lost(1, "r0-r1")) < lost(0, "r1-r2"));
    // A flow's hops add up to its drops in the flows table (also a checked identity).
    let dropped = ints(&r, "flows", "dropped_pkts");
    for f in 0..3 {
        assert_eq!(
            of(f).iter().map(|(_, d)| d).sum::<i64>(),
            dropped[f as usize]
        );
    }
}

/// One run's `hops` rows of TCP connection `conn` going `path`: (link, hop, drops), in hop order.
fn conn_hops(r: &Report, conn: i64, path: &str) -> Vec<(String, i64, i64)> {
    let (conns, paths, links, hops, drops) = (
        ints(r, "hops", "conn"),
        strings(r, "hops", "path"),
        strings(r, "hops", "link"),
        ints(r, "hops", "hop"),
        ints(r, "hops", "drops_pkts"),
    );
    (0..conns.len())
        .filter(|&i| conns[i] == conn && paths[i] == path)
        .map(|i| (links[i].clone(), hops[i], drops[i]))
        .collect()
}

/// A parking lot of three hops, a long connection from `s0` to `c0` and a cross connection on
/// each hop, as nodes and links (so that one link can have a queue of its own), with queues that
/// do not overflow in `duration`.
fn tcp_parking_lot(duration: &str, warmup: &str) -> Value {
    let v = json!({
        "duration": duration, "warmup": warmup,
        "topology": {"kind": "parking-lot", "hops": 3,
                     "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
                     "access": {"queue": "1000p"}},
        "queue": {"kind": "droptail", "limit": "1000p"},
        "reverse_queue": {"kind": "droptail", "limit": "1000p"},
        "tcp": {"handshake": "three-way"},
        "traffic": [
            {"kind": "ftp", "name": "long", "servers": ["s0"], "clients": ["c0"]},
            {"kind": "ftp", "name": "cross", "flows": 3, "server": 1, "client": 1}
        ]
    });
    Scenario::from_value(&v).unwrap().expanded().unwrap()
}

/// The index in `v["link"]` of the link whose `from` → `to` direction is named `name`.
fn link_named(v: &Value, name: &str) -> usize {
    let links = v["link"].as_array().unwrap();
    links.iter().position(|l| l["name"] == name).unwrap()
}

/// The `hops` table's TCP rows: each connection's data path (from its data sender, the server)
/// and its ACK path back, with the drops of its packets at each link. A scripted drop of the long
/// connection's 5th data segment at `r1-r2` counts 1 there, hop 2 of its data path, and its SYN
/// (the client's: it opens, and the server sends the data) dropped at `r3-r2` counts 1 at hop 1
/// of its ACK path; every other hop of every connection counts 0.
#[test]
fn the_hops_table_gives_each_connections_paths_and_where_it_lost() {
    let mut v = tcp_parking_lot("2s", "0s");
    let scripted = |rule: Value| json!({"kind": "scripted", "limit": "1000p", "drops": [rule]});
    let (hop2, hop3) = (link_named(&v, "r1-r2"), link_named(&v, "r2-r3"));
    v["link"][hop2]["queue"] = scripted(json!({"group": "long", "segment": 5}));
    v["link"][hop3]["reverse_queue"] = scripted(json!({"group": "long", "what": "syn"}));
    let r = run(&v, None);
    assert_eq!(ints(&r, "connections", "conn"), [0, 1, 2, 3]);
    assert_eq!(ints(&r, "connections", "dropped_pkts"), [2, 0, 0, 0]);
    let row = |link: &str, hop: i64, drops: i64| (link.to_string(), hop, drops);
    assert_eq!(
        conn_hops(&r, 0, "data"),
        [
            row("s0.up", 0, 0),
            row("r0-r1", 1, 0),
            row("r1-r2", 2, 1),
            row("r2-r3", 3, 0),
            row("c0.down", 4, 0)
        ]
    );
    assert_eq!(
        conn_hops(&r, 0, "ack"),
        [
            row("c0.up", 0, 0),
            row("r3-r2", 1, 1),
            row("r2-r1", 2, 0),
            row("r1-r0", 3, 0),
            row("s0.down", 4, 0)
        ]
    );
    // Cross connection i (conn i) crosses hop i alone, each way.
    for (conn, (up, down)) in [(1, ("r0-r1", "r1-r0")), (2, ("r1-r2", "r2-r1"))] {
        let (s, c) = (format!("s{conn}"), format!("c{conn}"));
        assert_eq!(
            conn_hops(&r, conn, "data"),
            [
                row(&format!("{s}.up"), 0, 0),
                row(up, 1, 0),
                row(&format!("{c}.down"), 2, 0)
            ]
        );
        assert_eq!(
            conn_hops(&r, conn, "ack"),
            [
                row(&format!("{c}.up"), 0, 0),
                row(down, 1, 0),
                row(&format!("{s}.down"), 2, 0)
            ]
        );
    }
    // TCP rows name no UDP flow, and their group and index are the connection's.
    let (flow, group, index) = (
        ints(&r, "hops", "flow"),
        strings(&r, "hops", "group"),
        ints(&r, "hops", "index"),
    );
    assert!(flow.iter().all(|&f| f == -1));
    assert_eq!((group[0].as_str(), index[0]), ("long", 0));
    assert_eq!(
        (group.last().unwrap().as_str(), *index.last().unwrap()),
        ("cross", 2)
    );
    assert_eq!(flow.len(), 2 * 5 + 3 * 2 * 3);
}

/// [`tcp_parking_lot`] whose hops drop 2% of the packets going back to the servers at random (a
/// Bernoulli queue on each hop's reverse direction): ACKs, and the clients' SYNs and FINs.
fn lossy_acks(duration: &str, warmup: &str) -> Value {
    let mut v = tcp_parking_lot(duration, warmup);
    for l in v["link"].as_array_mut().unwrap() {
        if l["from"].as_str().unwrap().starts_with('r')
            && l["to"].as_str().unwrap().starts_with('r')
        {
            l["reverse_queue"] = json!({"kind": "bernoulli", "p": 0.02, "limit": "1000p"});
        }
    }
    v
}

/// ACKs dropped on the hops' way back count on the ACK paths, and only those dropped after the
/// warm-up: each link's rows add up to its drops in the measured window as the summary gives
/// them, each connection's to its `dropped_pkts`, and the rows of a run with a warm-up of 1 s and
/// those of its first second add up to the whole run's, row by row.
#[test]
fn ack_drops_count_on_the_way_back_and_only_after_the_warmup() {
    let r = run(&lossy_acks("3s", "1s"), Some(1));
    let (links, paths, drops) = (
        strings(&r, "hops", "link"),
        strings(&r, "hops", "path"),
        ints(&r, "hops", "drops_pkts"),
    );
    for back in ["r1-r0", "r2-r1", "r3-r2"] {
        let rows: Vec<usize> = (0..links.len()).filter(|&i| links[i] == back).collect();
        assert!(rows.iter().all(|&i| paths[i] == "ack"), "{back}");
        let counted: i64 = rows.iter().map(|&i| drops[i]).sum();
        assert_eq!(counted as u64, r.summary.links[back].drops_pkts, "{back}");
        assert!(counted > 0, "{back}: ACKs dropped");
    }
    for fwd in ["r0-r1", "r1-r2", "r2-r3"] {
        assert_eq!(r.summary.links[fwd].drops_pkts, 0, "{fwd}");
    }
    let dropped = ints(&r, "connections", "dropped_pkts");
    for (conn, d) in dropped.iter().enumerate() {
        let sum = |path| -> i64 { conn_hops(&r, conn as i64, path).iter().map(|h| h.2).sum() };
        assert_eq!((sum("ack"), sum("data")), (*d, 0), "connection {conn}");
    }
    let first = run(&lossy_acks("1s", "0s"), Some(1));
    let whole = run(&lossy_acks("3s", "0s"), Some(1));
    let (before, all) = (
        ints(&first, "hops", "drops_pkts"),
        ints(&whole, "hops", "drops_pkts"),
    );
    assert!(before.iter().sum::<i64>() > 0, "drops in the warm-up");
    let added: Vec<i64> = drops.iter().zip(&before).map(|(a, b)| a + b).collect();
    assert_eq!(added, all);
}

/// A packet trace of any link: a parking lot's second hop records every packet it sends, each
/// frame from r1's Ethernet address to r2's, and each packet's TTL less one per router it passed:
/// 62 for the end-to-end flow (r0, r1), 63 for hop 2's own (r1).
#[test]
fn any_link_can_be_traced() {
    let v = json!({
        "duration": "2s",
        "topology": {"kind": "parking-lot", "hops": 2, "bottleneck": {"rate": "10Mbps"}},
        "traffic": [
            {"kind": "poisson", "name": "long", "rate": "1Mbps", "servers": ["s0"], "clients": ["c0"]},
            {"kind": "poisson", "name": "two", "rate": "1Mbps", "servers": ["s2"], "clients": ["c2"]}
        ],
        "capture": {"links": ["r1-r2"]}
    });
    let dir = std::env::temp_dir().join(format!("aqmlab-trace-hop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = Scenario::from_value(&v).unwrap();
    let mut sim = aqmlab_sim::Simulation::new(&scenario, Some(1));
    sim.capture_to(&dir).unwrap();
    sim.run_until(scenario.duration, &mut || false).unwrap();
    sim.finish_capture().unwrap();
    let report = sim.finish().unwrap();
    let bytes = std::fs::read(dir.join("r1-r2.pcap")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    let (mut at, mut ttls) = (24, std::collections::BTreeMap::new());
    while at + 16 <= bytes.len() {
        let len = u32_at(at + 8) as usize;
        let frame = &bytes[at + 16..at + 16 + len];
        // Routers r0, r1, r2 are routers 0, 1, 2 after the hosts: 02:00:00:00:00:02 → …:03.
        assert_eq!(
            (&frame[..6], &frame[6..12]),
            (&[2, 0, 0, 0, 0, 3][..], &[2, 0, 0, 0, 0, 2][..])
        );
        let (src, ttl) = (frame[14 + 12..14 + 16].to_vec(), frame[14 + 8]);
        *ttls.entry((src, ttl)).or_insert(0u64) += 1;
        at += 16 + len;
    }
    // s0 is server 0 (10.1.0.1), s2 server 2 (10.1.0.3).
    let keys: Vec<(Vec<u8>, u8)> = ttls.keys().cloned().collect();
    assert_eq!(keys, [(vec![10, 1, 0, 1], 62), (vec![10, 1, 0, 3], 63)]);
    let recorded: u64 = ttls.values().sum();
    assert_eq!(recorded, report.summary.links["r1-r2"].departures_pkts);
}
