//! Queue sizes written as a multiple of the bandwidth-delay product (`"2bdp"`) or as a time at the
//! bottleneck's rate (`"50ms"`), resolved into packets by hand-computed examples
//! (docs/scenario.md, "Queue sizes as a BDP or a time").

use aqmlab_sim::Scenario;
use serde_json::{json, Value};

/// A 10 Mb/s dumbbell with 20 ms bottleneck and 5 ms access delays, and this `[queue]`.
fn scenario(queue: Value) -> Value {
    json!({
        "duration": "1s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                     "access": {"delay": "5ms"}},
        "queue": queue,
    })
}

/// The resolved scenario, as JSON.
fn resolved(v: &Value) -> Result<Value, String> {
    let s = Scenario::from_json(&v.to_string()).map_err(|e| e.to_string())?;
    Ok(serde_json::from_str(&s.to_json()).unwrap())
}

/// The resolved `[queue]` of [`scenario`].
fn resolved_queue(queue: Value) -> Result<Value, String> {
    Ok(resolved(&scenario(queue))?["queue"].clone())
}

#[test]
fn a_bdp_is_the_rate_times_the_mean_base_rtt_in_mtu_packets() {
    // RTT = 2 × (20 + 2·5) ms = 60 ms; BDP = 10 Mb/s × 60 ms = 75 000 B = 50 packets of 1500 B.
    let q = resolved_queue(json!({"kind": "droptail", "limit": "2bdp"})).unwrap();
    assert_eq!(q["limit"], "100p");
    let q = resolved_queue(json!({"kind": "droptail", "limit": "0.5bdp"})).unwrap();
    assert_eq!(q["limit"], "25p");
    // An explicit RTT and packet: 10 Mb/s × 100 ms = 125 000 B / 1000 B = 125 packets.
    let q = resolved_queue(
        json!({"kind": "droptail", "limit": "1bdp", "rtt": "100ms", "packet": "1000B"}),
    )
    .unwrap();
    assert_eq!(
        q,
        json!({"kind": "droptail", "limit": "125p", "rtt": "100ms", "packet": "1000B"})
    );
}

#[test]
fn the_resolved_queue_records_the_rtt_and_packet_and_resolves_to_itself() {
    let q = resolved_queue(json!({"kind": "droptail", "limit": "2bdp"})).unwrap();
    assert_eq!(
        q,
        json!({"kind": "droptail", "limit": "100p", "rtt": "60ms", "packet": "1500B"})
    );
    // Sizes in packets or bytes record nothing: such scenarios resolve as before.
    let q = resolved_queue(json!({"kind": "droptail", "limit": "64KB"})).unwrap();
    assert_eq!(q, json!({"kind": "droptail", "limit": "64KB"}));
    // The resolved scenario, read again, resolves to itself.
    for queue in [
        json!({"kind": "red", "profile": "ns2-2000", "limit": "1bdp", "min_th": "5ms", "max_th": "15ms"}),
        json!({"kind": "red", "tc": "limit 2bdp min 5ms max 15ms avpkt 1000"}),
        json!({"kind": "codel", "tc": "limit 1bdp target 5ms interval 100ms", "rtt": "80ms"}),
    ] {
        let once = resolved(&scenario(queue.clone())).unwrap();
        assert_eq!(resolved(&once).unwrap(), once, "{queue}");
    }
}

#[test]
fn tc_lines_take_bdps_and_times_with_the_meaning_of_the_keys() {
    // A packet-counting limit: the same packets as the key.
    for (kind, tc) in [
        ("droptail", "pfifo limit 2bdp"),
        ("codel", "limit 2bdp"),
        ("pie", "limit 2bdp"),
        ("fq_codel", "limit 2bdp"),
    ] {
        let by_tc = resolved_queue(json!({"kind": kind, "tc": tc})).unwrap();
        let by_key = resolved_queue(json!({"kind": kind, "limit": "2bdp"})).unwrap();
        assert_eq!(by_tc["limit"], by_key["limit"], "{kind}");
        assert_eq!(by_tc["rtt"], "60ms", "{kind}");
    }
    // A byte-counting one: the bytes of those packets, 100 × 1500 B.
    let q = resolved_queue(json!({"kind": "droptail", "tc": "bfifo limit 2bdp"})).unwrap();
    assert_eq!(q["limit"], "150KB");
    // tc red: limit, min and max in bytes; min 5 ms → 5 packets = 7500 B = 7.5 avpkt.
    let q = resolved_queue(
        json!({"kind": "red", "tc": "limit 2bdp min 5ms max 15ms avpkt 1000 burst 10"}),
    )
    .unwrap();
    assert_eq!(
        (&q["limit"], &q["min_th"], &q["max_th"]),
        (&json!("150KB"), &json!(7.5), &json!(19.5))
    );
}

#[test]
fn a_time_is_the_bytes_sent_at_the_bottleneck_rate_rounded_up() {
    // 50 ms at 10 Mb/s = 62 500 B = 41.67 → 42 packets of 1500 B.
    let q = resolved_queue(json!({"kind": "droptail", "limit": "50ms"})).unwrap();
    assert_eq!(q["limit"], "42p");
    // RED thresholds too: 5 ms → 6250 B → 5 packets; 15 ms → 12.5 → 13 packets.
    let q = resolved_queue(
        json!({"kind": "red", "profile": "ns2-2000", "limit": "1bdp",
                                  "min_th": "5ms", "max_th": "15ms"}),
    )
    .unwrap();
    assert_eq!(
        (&q["limit"], &q["min_th"], &q["max_th"]),
        (&json!("50p"), &json!(5.0), &json!(13.0))
    );
}

#[test]
fn bad_bdp_sizes_name_the_key() {
    let e = resolved_queue(json!({"kind": "droptail", "limit": "-1bdp"})).unwrap_err();
    assert!(
        e.starts_with("queue.limit: expected a positive multiple"),
        "{e}"
    );
    let e = resolved_queue(json!({"kind": "droptail", "limit": "1bdp", "rtt": "0s"})).unwrap_err();
    assert!(e.starts_with("queue.rtt:"), "{e}");
    // No delay anywhere: no RTT is known, so a BDP needs the queue's `rtt`; a time does not.
    let flat = |queue: Value| {
        let v = json!({"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
                       "queue": queue});
        resolved(&v).map(|r| r["queue"].clone())
    };
    let e = flat(json!({"kind": "droptail", "limit": "2bdp"})).unwrap_err();
    assert!(
        e.starts_with("queue.limit: \"2bdp\" needs a round-trip time"),
        "{e}"
    );
    let e = flat(json!({"kind": "codel", "tc": "limit 2bdp"})).unwrap_err();
    assert!(e.starts_with("queue.tc: tc: limit: \"2bdp\" needs"), "{e}");
    assert_eq!(
        flat(json!({"kind": "droptail", "limit": "2bdp", "rtt": "60ms"})).unwrap()["limit"],
        "100p"
    );
    assert_eq!(
        flat(json!({"kind": "droptail", "limit": "8ms"})).unwrap()["limit"],
        "7p"
    );
    let e =
        resolved_queue(json!({"kind": "red", "tc": "limit xbdp min 5ms max 15ms"})).unwrap_err();
    assert!(
        e.starts_with("queue.tc: tc: limit: expected a positive multiple"),
        "{e}"
    );
}
