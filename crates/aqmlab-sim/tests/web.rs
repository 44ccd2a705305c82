//! Mah's browsing users through the whole engine: every request/response pair is logged with a
//! response time no shorter than the path allows, and connections are recycled.

mod common;

use common::{floats, ints, run};
use serde_json::json;

fn web(users: u32, bottleneck: &str, duration: &str, warmup: &str) -> aqmlab_sim::Report {
    let v = json!({
        "duration": duration, "warmup": warmup,
        "topology": {"servers": 3, "clients": 3, "bottleneck": {"rate": bottleneck},
                     "access": {"rate": "10Mbps"}, "pair_delay": "20ms"},
        "queue": {"kind": "droptail", "limit": "120p"},
        "tcp": {"profile": "freebsd-2.2"},
        "traffic": [{"kind": "web-mah", "name": "web", "users": users}]
    });
    run(&v, Some(4))
}

#[test]
fn response_times_respect_the_path_and_requests_are_logged_once() {
    let r = web(300, "100Mbps", "300s", "60s");
    let q = &r.summary.requests;
    assert!(q.completed > 500, "{q:?}");
    assert_eq!(q.count, q.completed + q.failed + q.unfinished);
    // Base RTT 40 ms of pair delay plus serialisation: SYN, SYN-ACK; then request and reply with
    // the server's FIN: at least two round trips.
    let resp = floats(&r, "requests", "response_s");
    let done: Vec<f64> = resp.iter().cloned().filter(|t| !t.is_nan()).collect();
    assert!(
        done.iter().all(|t| *t >= 0.080),
        "min {:?}",
        done.iter().cloned().fold(f64::MAX, f64::min)
    );
    let starts = floats(&r, "requests", "start_s");
    assert!(starts.iter().all(|s| *s >= 60.0));
    // Embedded objects never outnumber the primary ones by more than the page sizes allow.
    let objects = ints(&r, "requests", "object");
    assert!(objects.iter().filter(|o| **o == 0).count() > 100);
    // An unconstrained network drops nothing.
    assert_eq!(r.summary.links["forward"].drops_pkts, 0);
}

#[test]
fn connections_are_recycled_and_counters_still_add_up() {
    let r = web(300, "500kbps", "300s", "0s");
    let q = &r.summary.requests;
    // `run` checks the identities, including per slot after recycling; the table of bulk
    // connections is empty for a web-only scenario.
    assert!(ints(&r, "connections", "conn").is_empty());
    assert!(q.completed > 500);
    assert!(
        r.summary.meta.peak_connections * 5 < q.completed,
        "{} slots for {} pairs",
        r.summary.meta.peak_connections,
        q.completed
    );
    assert!(
        r.summary.links["forward"].drops_pkts > 0,
        "300 users offer about 0.7 Mbit/s: a 500 kbit/s link is congested"
    );
    let retransmitted: i64 = ints(&r, "requests", "data_rexmits").iter().sum();
    assert!(retransmitted > 0);
}

#[test]
fn a_reply_that_has_all_left_is_followed_by_a_fin_of_its_own() {
    // One browser on an idle path, one-object pages: the 1000-byte reply leaves at once, before
    // the server closes, so the FIN is a segment of its own (FreeBSD: `sosend`'s `tcp_output`
    // runs before `close`'s). The server then sends per pair: SYN-ACK, the reply, the FIN and the
    // ACK of the client's FIN. A reply larger than the first window is still unsent at the
    // close: its last segment carries the FIN.
    let pairs = |reply: &str| {
        let v = json!({
            "duration": "120s", "warmup": "0s",
            "topology": {"servers": 1, "clients": 1, "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "tcp": {"profile": "freebsd-2.2"},
            "traffic": [{"kind": "web-mah", "name": "web", "users": 1, "objects": 1,
                         "request": "300B", "reply": reply, "think": "5s", "stay": 1}]
        });
        let r = run(&v, Some(1));
        let done = r.summary.requests.completed as f64;
        r.summary.links["forward"].departures_pkts as f64 / done
    };
    assert_eq!(pairs("1000B"), 4.0);
    // Ten segments: as many packets as when every FIN rode on the last data segment (13), none
    // more.
    assert_eq!(pairs("14600B"), 13.0);
}
