//! Today's AQMs at a bottleneck shared by bulk TCP flows: CoDel (RFC 8289) keeps the standing queue
//! near its target where a long FIFO fills; its dequeue-time drops and marks are counted like any
//! other (the counter identities hold in every run).

mod common;

use common::{forward_sum, run};
use serde_json::{json, Value};

/// 10 Mbit/s, 20 ms one-way bottleneck delay, `flows` NewReno bulk flows of 1000-byte segments.
fn bulk(queue: Value, flows: u32, ecn: bool) -> aqmlab_sim::Report {
    let v = json!({
        "duration": "40s",
        "warmup": "10s",
        "topology": {"servers": 4, "clients": 4, "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                     "access": {"rate": "1Gbps", "queue": "5000p"}},
        "queue": queue,
        "reverse_queue": {"kind": "droptail", "limit": "5000p"},
        "tcp": {"variant": "newreno", "mss": "1000B", "rwnd": "10MiB", "ecn": ecn},
        "traffic": [{"kind": "ftp", "flows": flows,
                     "start": {"dist": "uniform", "min": "0s", "max": "1s"}}]
    });
    run(&v, Some(1))
}

#[test]
fn codel_holds_the_queueing_delay_near_its_target_where_a_fifo_fills() {
    let fifo = bulk(json!({"kind": "droptail", "limit": "500p"}), 8, false);
    let codel = bulk(json!({"kind": "codel"}), 8, false);
    let (f, c) = (&fifo.summary.bottleneck, &codel.summary.bottleneck);
    assert!(f.mean_queue_delay_s > 0.1, "FIFO {}", f.mean_queue_delay_s);
    assert!(
        c.mean_queue_delay_s < 0.02,
        "CoDel {}",
        c.mean_queue_delay_s
    );
    assert!(c.utilization > 0.9, "CoDel utilization {}", c.utilization);
    let codel_drops = c.drops_by_reason["codel"];
    assert!(codel_drops > 0);
    assert_eq!(c.drops_pkts, codel_drops + c.drops_by_reason["overflow"]);
    assert_eq!(forward_sum(&codel, "drops"), c.drops_pkts);
}

#[test]
fn codel_with_ecn_marks_instead_of_dropping() {
    let r = bulk(json!({"kind": "codel", "ecn": true}), 8, true);
    let b = &r.summary.bottleneck;
    assert!(b.marks_by_reason["codel"] > 0);
    assert_eq!(b.marks_pkts, b.marks_by_reason["codel"]);
    assert_eq!(b.drops_by_reason["codel"], 0);
    assert_eq!(forward_sum(&r, "marks"), b.marks_pkts);
    assert!(b.mean_queue_delay_s < 0.02, "{}", b.mean_queue_delay_s);
}
