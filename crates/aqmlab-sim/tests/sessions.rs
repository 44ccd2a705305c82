//! The other studies' traffic through the whole engine: Zhang & Qiu's web sessions, ns-2 telnet,
//! and Eddy & Allman's ns-2 HTTP page pool.

mod common;

use common::{floats, run};
use serde_json::{json, Value};

fn scenario(traffic: Value, rate: &str) -> Value {
    json!({
        "duration": "500s", "warmup": "50s",
        "topology": {"servers": 10, "clients": 10, "bottleneck": {"rate": rate, "delay": "50ms"}},
        "queue": {"kind": "droptail", "limit": "50p"},
        "tcp": {"profile": "ns2-2000", "mss": "500B"},
        "traffic": traffic
    })
}

#[test]
fn telnet_writes_at_the_rate_of_its_inter_arrival_law() {
    // 20 sources writing one 500-byte segment per event (ns-2's Telnet) on an idle 10 Mbit/s
    // link: exponential gaps of 0.1 s give 40 kbit/s each; the tcplib table's mean gap of
    // 1.092 s (docs/models/web.md §4) gives 3.66 kbit/s.
    for (interval, expected) in [(json!("100ms"), 40e3), (json!("tcplib"), 4000.0 / 1.092)] {
        let t = json!([{"kind": "telnet", "name": "t", "flows": 20, "interval": interval}]);
        let r = run(&scenario(t, "10Mbps"), Some(2));
        let g = floats(&r, "connections", "goodput_bps");
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        let tol = if expected > 1e4 { 0.03 } else { 0.15 };
        assert!(
            (mean / expected - 1.0).abs() < tol,
            "{interval}: {mean:.0} bit/s vs {expected:.0}"
        );
    }
}

#[test]
fn web_sessions_alternate_transfers_and_think_times() {
    // Alone on a fast link a 30 KB transfer takes a few RTTs; with 1–3 s of thinking each session
    // moves at most 30 KB per 1 s and about 30 KB per (2 s + transfer) on average.
    let t = json!([{"kind": "web-session", "name": "w", "flows": 10}]);
    let r = run(&scenario(t, "10Mbps"), Some(3));
    let g = floats(&r, "connections", "goodput_bps");
    let mean = g.iter().sum::<f64>() / g.len() as f64;
    assert!(mean < 240e3 && mean > 80e3, "{mean:.0} bit/s");
    // Every transfer after the first restarts slow start: no drops on an idle 10 Mbit/s link.
    assert_eq!(r.summary.links["forward"].drops_pkts, 0);
}

#[test]
fn goodput_while_transferring_leaves_a_web_sessions_think_times_out() {
    // One session alone, thinking exactly 2 s after each 30 KB transfer: the measured window
    // (450 s) is its transfers plus its think times, so 450 s − transfer_s is 2 s per transfer
    // give or take the cycle cut at each end of the window.
    let t = json!([
        {"kind": "web-session", "name": "w", "flows": 1, "think": "2s"},
        {"kind": "ftp", "name": "late", "flows": 1, "start": "100s"},
        {"kind": "telnet", "name": "t", "flows": 1}
    ]);
    let r = run(&scenario(t, "10Mbps"), Some(1));
    let transfer = floats(&r, "connections", "transfer_s");
    let bytes = common::ints(&r, "connections", "bytes");
    let goodput = floats(&r, "connections", "transfer_goodput_bps");
    let transfers = bytes[0] as f64 / 30_000.0;
    let per_transfer = transfer[0] / transfers;
    assert!(
        per_transfer > 0.2 && per_transfer < 1.0,
        "{per_transfer} s per 30 KB"
    );
    let thinking = 450.0 - transfer[0];
    assert!(
        (thinking - 2.0 * transfers).abs() < 2.0 + per_transfer,
        "{thinking} s thinking for {transfers} transfers"
    );
    assert_eq!(goodput[0], 8.0 * bytes[0] as f64 / transfer[0]);
    // A bulk transfer that starts at 100 s transfers for the 400 s after; telnet has no transfers.
    assert!((transfer[1] - 400.0).abs() < 1e-9, "{}", transfer[1]);
    assert!(transfer[2].is_nan() && goodput[2].is_nan());
}

#[test]
fn the_zhang_qiu_mix_runs_with_all_three_kinds() {
    let t = json!([
        {"kind": "web-session", "name": "web", "flows": 10, "start": {"dist": "uniform", "min": "0s", "max": "2s"}},
        {"kind": "ftp", "name": "ftp", "flows": 5, "start": {"dist": "uniform", "min": "0s", "max": "2s"}},
        {"kind": "telnet", "name": "telnet", "flows": 6, "start": {"dist": "uniform", "min": "0s", "max": "2s"}}
    ]);
    let r = run(&scenario(t, "1544kbps"), Some(1));
    assert!(r.summary.links["forward"].utilization > 0.95);
    let g = floats(&r, "connections", "goodput_bps");
    assert_eq!(g.len(), 21);
    assert!(g.iter().all(|x| *x > 0.0));
    // Long-lived connections stay open, even a telnet source that has not typed yet.
    match r.table("connections").and_then(|t| t.column("outcome")) {
        Some(aqmlab_sim::Column::Str(o)) => assert!(o.iter().all(|x| x == "open"), "{o:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn page_pool_clients_fetch_one_object_per_request() {
    let t = json!([{"kind": "web-pool", "name": "http", "users": 20, "tcp": {"profile": "ns2-2003", "handshake": "three-way"}}]);
    let r = run(&scenario(t, "1500kbps"), Some(1));
    let q = &r.summary.requests;
    assert!(q.completed > 1000, "{q:?}");
    let objects = common::ints(&r, "requests", "object");
    assert!(objects.iter().all(|o| *o == 0));
    // Mean reply ≈ 1024 B (exponential).
    let replies = common::ints(&r, "requests", "reply_bytes");
    let mean = replies.iter().sum::<i64>() as f64 / replies.len() as f64;
    assert!((mean / 1024.0 - 1.0).abs() < 0.1, "{mean}");
}

/// The `requests` table's column `col` of strings.
fn request_hosts(r: &aqmlab_sim::Report, col: &str) -> Vec<String> {
    match r.table("requests").and_then(|t| t.column(col)) {
        Some(aqmlab_sim::Column::Str(v)) => v.to_vec(),
        other => panic!("requests.{col}: {other:?}"),
    }
}

#[test]
fn page_pool_users_on_the_server_hosts_fetch_across_the_reverse_queue() {
    // Eddy & Allman run HTTP clients and servers on every host: the same users, once on the
    // clients (replies cross [queue], R1 → R2) and once on the servers (`users_on = "servers"`:
    // replies cross [reverse_queue], R2 → R1); user u sits on server host (3 + u) mod 10.
    let tcp = json!({"profile": "ns2-2003", "handshake": "three-way"});
    let users = |users_on: &str| {
        json!([{"kind": "web-pool", "name": "http", "users": 20, "users_on": users_on,
                "server": 3, "tcp": tcp}])
    };
    let fwd = run(&scenario(users("clients"), "1500kbps"), Some(1));
    let rev = run(&scenario(users("servers"), "1500kbps"), Some(1));
    let (f, r) = (&fwd.summary, &rev.summary);
    assert!(r.requests.completed > 1000, "{:?}", r.requests);
    // Replies dominate the bytes: they cross the forward link in one run, the reverse in the other.
    let (fb, fr) = (
        f.links["forward"].throughput_bps,
        f.links["reverse"].throughput_bps,
    );
    let (rb, rr) = (
        r.links["forward"].throughput_bps,
        r.links["reverse"].throughput_bps,
    );
    assert!(fb > 1.5 * fr, "{fb} vs {fr}");
    assert!(rr > 1.5 * rb, "{rr} vs {rb}");
    let ratio = r.links["reverse"].throughput_bps / f.links["forward"].throughput_bps;
    assert!(
        (ratio - 1.0).abs() < 0.15,
        "mirror images carry alike: {ratio}"
    );
    // The requesting hosts are the users' server hosts; they ask the client hosts, uniformly.
    let clients = request_hosts(&rev, "client");
    assert!(
        clients.iter().all(|h| h.starts_with('s')),
        "{:?}",
        &clients[..5]
    );
    let servers = request_hosts(&rev, "server");
    for c in 0..10 {
        let n = servers.iter().filter(|h| **h == format!("c{c}")).count();
        assert!(n as f64 > 0.07 * servers.len() as f64, "c{c}: {n}");
    }
}

/// The (requesting host, serving host) pairs of the `requests` table.
fn request_pairs(r: &aqmlab_sim::Report) -> std::collections::BTreeSet<(String, String)> {
    let col = |name: &str| match r.table("requests").and_then(|t| t.column(name)) {
        Some(aqmlab_sim::Column::Str(v)) => v.to_vec(),
        other => panic!("requests.{name}: {other:?}"),
    };
    col("client").into_iter().zip(col("server")).collect()
}

#[test]
fn paired_page_pool_users_always_ask_the_host_of_their_own_index_across() {
    // Three hosts a side, users on every host of both sides: with `peer = "paired"` user host
    // c1 asks s1 only and s2 asks c2 only; with the default (`"any"`) every host asks several.
    let tcp = json!({"profile": "ns2-2003", "handshake": "three-way"});
    let groups = |peer: &str| {
        json!([
            {"kind": "web-pool", "name": "right", "users": 3, "peer": peer, "tcp": tcp},
            {"kind": "web-pool", "name": "left", "users": 3, "users_on": "servers", "peer": peer,
             "tcp": tcp}
        ])
    };
    let topo = |t: Value| {
        let mut s = scenario(t, "10Mbps");
        s["topology"]["servers"] = json!(3);
        s["topology"]["clients"] = json!(3);
        s["duration"] = json!("30s");
        s["warmup"] = json!("0s");
        s
    };
    let paired = request_pairs(&run(&topo(groups("paired")), Some(1)));
    let expected = (0..3)
        .flat_map(|i| {
            [
                (format!("c{i}"), format!("s{i}")),
                (format!("s{i}"), format!("c{i}")),
            ]
        })
        .collect();
    assert_eq!(paired, expected);
    let any = request_pairs(&run(&topo(groups("any")), Some(1)));
    assert_eq!(any.len(), 18, "{any:?}");
}
