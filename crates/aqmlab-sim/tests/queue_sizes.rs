//! Queue sizes written as a multiple of the bandwidth-delay product (`"2bdp"`) or as a time at the
//! bottleneck's rate (`"50ms"`), resolved into packets by hand-computed examples
//! (docs/scenario.md, "Queue sizes as a BDP or a time").

use aqmlab_sim::Scenario;
use serde_json::{json, Value};

/// The resolved `[queue]` of a 10 Mb/s dumbbell with 20 ms bottleneck and 5 ms access delays.
fn resolved_queue(queue: Value) -> Result<Value, String> {
    let v = json!({
        "duration": "1s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                     "access": {"delay": "5ms"}},
        "queue": queue,
    });
    let s = Scenario::from_json(&v.to_string()).map_err(|e| e.to_string())?;
    let out: Value = serde_json::from_str(&s.to_json()).unwrap();
    Ok(out["queue"].clone())
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
    assert_eq!(q, json!({"kind": "droptail", "limit": "125p"}));
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
}
