//! The bottleneck queue's drops and marks counted in bytes (Eddy & Allman's "bytes marked",
//! Tables 8–10): the summary's `drops_bytes` / `marks_bytes` and their reasons, the `queue`
//! table's per-interval `drops_bytes` / `marks_bytes`, and what a drop-front victim counts.

mod common;

use common::{forward_sum, ints, run};
use serde_json::{json, Value};

/// Two CBR groups of 300 B and 1500 B packets at 150% of the bottleneck into `queue`, no warm-up,
/// so every drop (all at the bottleneck) is in the measured period.
fn mixed_overload(queue: Value) -> aqmlab_sim::Report {
    let v = json!({
        "duration": "20s", "warmup": "0s",
        "topology": {"bottleneck": {"rate": "2Mbps", "delay": "10ms"}},
        "queue": queue,
        "traffic": [
            {"kind": "cbr", "name": "small", "rate": "1.5Mbps", "size": "300B", "jitter": true},
            {"kind": "cbr", "name": "large", "rate": "1.5Mbps", "size": "1500B", "jitter": true}
        ]
    });
    run(&v, Some(3))
}

/// The bytes the flows lost: Σ size × dropped packets, from the `flows` table.
fn flow_dropped_bytes(r: &aqmlab_sim::Report) -> u64 {
    let dropped = ints(r, "flows", "dropped_pkts");
    assert_eq!(dropped.len(), 2);
    300 * dropped[0] as u64 + 1500 * dropped[1] as u64
}

#[test]
fn dropped_bytes_are_the_dropped_packets_sizes_and_the_intervals_add_up() {
    let r = mixed_overload(json!({"kind": "droptail", "limit": "20p"}));
    let b = &r.summary.links["forward"];
    assert!(
        b.drops_pkts > 100,
        "the queue must overflow: {}",
        b.drops_pkts
    );
    assert_eq!(b.drops_bytes, flow_dropped_bytes(&r));
    assert_eq!(b.drops_bytes_by_reason["overflow"], b.drops_bytes);
    assert_eq!(b.drops_bytes_by_reason.values().sum::<u64>(), b.drops_bytes);
    assert_eq!((b.marks_pkts, b.marks_bytes), (0, 0));
    assert_eq!(forward_sum(&r, "drops_pkts"), b.drops_pkts);
    assert_eq!(forward_sum(&r, "drops_bytes"), b.drops_bytes);
    assert_eq!(forward_sum(&r, "marks_bytes"), 0);
    assert_eq!(r.summary.links["reverse"].drops_bytes, 0);
}

#[test]
fn a_drop_front_victim_counts_its_own_size() {
    // RED in byte mode with drop-front: forced and overflow drops take the packet at the head of
    // the queue, whose size generally differs from the arrival's. The flows' lost bytes match
    // only if each drop counts the victim's size.
    let r = mixed_overload(json!({
        "kind": "red", "mode": "bq_bm", "limit": "30p", "min_th": 5, "max_th": 15,
        "mean_pkt_size": "500B", "victim": "front"
    }));
    let b = &r.summary.links["forward"];
    assert!(b.drops_pkts_by_reason["forced"] + b.drops_pkts_by_reason["overflow"] > 0);
    assert_eq!(b.drops_bytes, flow_dropped_bytes(&r));
    assert_eq!(b.drops_bytes_by_reason.values().sum::<u64>(), b.drops_bytes);
    assert_eq!(forward_sum(&r, "drops_bytes"), b.drops_bytes);
}

#[test]
fn marked_bytes_count_the_marked_packets() {
    // 1000 B segments (1040 B IP packets), every arrival chosen with probability 2% and marked.
    let v = json!({
        "duration": "20s", "warmup": "5s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "queue": {"kind": "bernoulli", "p": 0.02, "ecn": true, "limit": "500p"},
        "tcp": {"profile": "ns2-2003", "variant": "newreno", "mss": "1000B", "ecn": true},
        "traffic": [{"kind": "ftp", "flows": 5}]
    });
    let r = run(&v, Some(2));
    let b = &r.summary.links["forward"];
    assert!(b.marks_pkts > 100, "{}", b.marks_pkts);
    assert_eq!(b.drops_pkts, 0);
    // Only data segments are ECN-capable, and a bulk sender's are all full.
    assert_eq!(b.marks_bytes, 1040 * b.marks_pkts);
    assert_eq!(b.marks_bytes_by_reason["random"], b.marks_bytes);
    assert_eq!(forward_sum(&r, "marks_pkts"), b.marks_pkts);
    assert_eq!(forward_sum(&r, "marks_bytes"), b.marks_bytes);
}
