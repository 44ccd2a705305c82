//! Link framing (`topology.bottleneck.framing`, `topology.access.framing`): a saturated link
//! carries `rate · size / wire bytes` of IP bits, with arithmetic you can check by hand, and no
//! framing changes nothing.
//!
//! Ethernet (IEEE 802.3) adds 7 B preamble + 1 B SFD + 14 B MAC header + 4 B FCS + 12 B
//! inter-frame gap = 38 B to every frame and pads its payload to 46 B.

mod common;

use common::{floats, run};
use serde_json::{json, Value};

/// One CBR flow of `size`-byte packets at 15 Mbit/s (150% of the 10 Mbit/s bottleneck) for 22 s,
/// measured over the last 20 s.
fn overload(size: u32, framing: Value) -> Value {
    json!({
        "duration": "22s", "warmup": "2s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "1ms", "framing": framing}},
        "queue": {"kind": "droptail", "limit": "50p"},
        "traffic": [{"kind": "cbr", "rate": "15Mbps", "size": format!("{size}B")}]
    })
}

/// Within `tol` (relative).
fn close(got: f64, want: f64, tol: f64) -> bool {
    (got / want - 1.0).abs() < tol
}

/// Saturate the bottleneck with `size`-byte packets under Ethernet framing; check the delivered IP
/// throughput against `want_bps` (and at the sink), a busy transmitter, and queues in IP bytes.
fn check_saturated(size: u32, want_bps: f64) {
    let r = run(&overload(size, json!("ethernet")), Some(1));
    let b = &r.summary.links["forward"];
    assert!(b.drops_pkts > 0, "the link must be saturated");
    assert!(
        close(b.throughput_bps, want_bps, 1e-3),
        "{size} B: {} bit/s at the bottleneck, want {want_bps}",
        b.throughput_bps
    );
    let sink = floats(&r, "flows", "throughput_bps");
    assert!(
        close(sink[0], want_bps, 1e-3),
        "{size} B: {} bit/s at the sink, want {want_bps}",
        sink[0]
    );
    // IP throughput over the rate saturates below 1; the transmitter itself is always busy.
    assert!(close(b.utilization, want_bps / 10e6, 1e-3));
    assert!(
        close(b.wire_utilization, 1.0, 1e-3),
        "{}",
        b.wire_utilization
    );
    // The queue holds IP packets: its bytes are IP bytes, `size` per packet, not wire bytes.
    assert!(b.mean_queue_pkts > 40.0, "{}", b.mean_queue_pkts);
    assert!(close(
        b.mean_queue_bytes,
        f64::from(size) * b.mean_queue_pkts,
        1e-9
    ));
}

#[test]
fn ethernet_1000_byte_packets() {
    // A 1000 B packet is 1000 + 38 = 1038 B on the wire: one every 1038·8 / 10e6 = 830.4 µs, so
    // 10e6 · 1000/1038 = 9,633,911 bit/s of IP.
    check_saturated(1000, 10e6 * 1000.0 / 1038.0);
}

#[test]
fn ethernet_1500_byte_packets() {
    // 1500 + 38 = 1538 B: 10e6 · 1500/1538 = 9,752,926 bit/s (97.5% of the rate).
    check_saturated(1500, 10e6 * 1500.0 / 1538.0);
}

#[test]
fn ethernet_pads_40_byte_packets() {
    // A 40 B packet (a bare TCP ACK) is padded to the 46 B minimum payload: 46 + 38 = 84 B, one
    // every 67.2 µs, so 10e6 · 40/84 = 4,761,905 bit/s of IP.
    check_saturated(40, 10e6 * 40.0 / 84.0);
}

#[test]
fn an_explicit_table_is_ethernet_by_numbers() {
    // { overhead = 38B, min_payload = 46B } is Ethernet; { overhead = 100B } with no minimum: a
    // 1000 B packet takes 1100 B, 10e6 · 1000/1100 = 9,090,909 bit/s.
    let by_name = run(&overload(1000, json!("ethernet")), Some(1));
    let by_numbers = run(
        &overload(1000, json!({"overhead": "38B", "min_payload": "46B"})),
        Some(1),
    );
    assert_eq!(
        serde_json::to_string(&by_name.summary.links["forward"]).unwrap(),
        serde_json::to_string(&by_numbers.summary.links["forward"]).unwrap()
    );
    let r = run(&overload(1000, json!({"overhead": "100B"})), Some(1));
    let want = 10e6 * 1000.0 / 1100.0;
    assert!(close(r.summary.links["forward"].throughput_bps, want, 1e-3));
}

#[test]
fn access_framing_limits_a_saturated_access_link() {
    // The server's 10 Mbit/s Ethernet uplink is the bottleneck here (the R1 → R2 link runs at
    // 100 Mbit/s without framing): 10e6 · 1000/1038 = 9,633,911 bit/s cross R1 → R2.
    let v = json!({
        "duration": "22s", "warmup": "2s",
        "topology": {"bottleneck": {"rate": "100Mbps"},
                     "access": {"rate": "10Mbps", "framing": "ethernet"}},
        "traffic": [{"kind": "cbr", "rate": "15Mbps", "size": "1000B"}]
    });
    let r = run(&v, Some(1));
    let b = &r.summary.links["forward"];
    assert_eq!(b.drops_pkts, 0);
    assert!(close(b.throughput_bps, 10e6 * 1000.0 / 1038.0, 1e-3));
    // Without framing on the 100 Mbit/s link, its wire and IP utilizations are the same number.
    assert_eq!(b.wire_utilization, b.utilization);
}

/// The summary as JSON with the wall-clock time blanked, and the tables.
fn fingerprint(r: &aqmlab_sim::Report) -> (String, String) {
    let mut s = r.summary.clone();
    s.meta.wall_s = 0.0;
    s.meta.scenario = Value::Null;
    (
        serde_json::to_string(&s).unwrap(),
        format!("{:?}", r.tables),
    )
}

#[test]
fn no_framing_is_the_default_and_changes_nothing() {
    // Without framing a 1000 B packet takes 800 µs: exactly 10 Mbit/s of IP at saturation.
    let absent = {
        let mut v = overload(1000, json!("none"));
        v["topology"]["bottleneck"]
            .as_object_mut()
            .unwrap()
            .remove("framing");
        v
    };
    let r = run(&absent, Some(1));
    let b = &r.summary.links["forward"];
    assert!(close(b.throughput_bps, 10e6, 1e-3), "{}", b.throughput_bps);
    assert_eq!(b.wire_utilization, b.utilization);
    assert_eq!(
        r.summary.meta.scenario["topology"]["bottleneck"]["framing"],
        json!("none")
    );
    // "none", a zero table and no key at all are the same run, to the bit, for TCP and web too.
    let web = |framing: Option<Value>| {
        let mut v = json!({
            "duration": "60s", "warmup": "10s",
            "topology": {"servers": 2, "clients": 2, "bottleneck": {"rate": "10Mbps"},
                         "pair_delay": {"dist": "uniform", "min": "1ms", "max": "40ms"}},
            "queue": {"kind": "red", "profile": "altq"},
            "tcp": {"profile": "freebsd-2.2"},
            "traffic": [{"kind": "web-mah", "name": "web", "users": 2500},
                        {"kind": "ftp", "flows": 2}]
        });
        if let Some(f) = framing {
            v["topology"]["bottleneck"]["framing"] = f.clone();
            v["topology"]["access"] = json!({"framing": f});
        }
        fingerprint(&run(&v, Some(9)))
    };
    let base = web(None);
    assert_eq!(base, web(Some(json!("none"))));
    assert_eq!(
        base,
        web(Some(json!({"overhead": "0B", "min_payload": "0B"})))
    );
    assert_ne!(base, web(Some(json!("ethernet"))));
}
