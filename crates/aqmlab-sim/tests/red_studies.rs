//! RED in the setups of the studies: Chung & Claypool's incremental TCP load and Eddy & Allman's
//! extreme packet-size mix (the papers: docs/models/README.md, "The studies"). Each test checks one
//! behaviour the mechanism must show; the reproductions themselves (with the papers' tables beside
//! ours) live in the paper modules.

mod common;

use common::{floats, forward_sum, run};
use serde_json::{json, Value};

/// Chung & Claypool §4: 20 Mbit/s, 80 ms round-trip link delay, 1 KB packets, a 500-packet queue,
/// NewReno bulk flows with unlimited windows, ns-2 of 2002–03 (`ns2-2003`). RED 100/300/0.1 "based
/// on recommendations [7]" (Floyd's RED parameter notes, whose weight is 0.002). `groups` groups
/// of `per_group` flows start 50 s apart. The queue is logged every 0.5 s.
fn chung_claypool(
    queue: Value,
    groups: usize,
    per_group: u32,
    ecn: bool,
    duration: &str,
) -> aqmlab_sim::Report {
    let traffic: Vec<Value> = (0..groups)
        .map(|g| {
            let t0 = 50 * g;
            json!({"kind": "ftp", "name": format!("g{g}"), "flows": per_group,
                   "start": {"dist": "uniform", "min": format!("{t0}s"), "max": format!("{}s", t0 + 1)}})
        })
        .collect();
    let v = json!({
        "duration": duration,
        "topology": {"servers": 10, "clients": 10, "bottleneck": {"rate": "20Mbps", "delay": "40ms"},
                     "access": {"rate": "1Gbps", "queue": "5000p"}},
        "queue": queue,
        "reverse_queue": {"kind": "droptail", "limit": "5000p"},
        "tcp": {"profile": "ns2-2003", "variant": "newreno", "mss": "1000B", "rwnd": "10MiB", "ecn": ecn},
        "measure": {"queue_interval": "500ms"},
        "traffic": traffic
    });
    run(&v, Some(1))
}

fn red(gentle: bool, ecn: bool, adaptive: bool) -> Value {
    json!({"kind": "red", "profile": "ns2-2003", "limit": "500p", "min_th": 100, "max_th": 300,
           "max_p": 0.1, "w_q": 0.002, "gentle": gentle, "ecn": ecn, "adaptive": adaptive})
}

/// The forward queue's RED average per 0.5 s interval.
fn averages(r: &aqmlab_sim::Report) -> Vec<f64> {
    let avg = floats(r, "queue", "red_avg");
    avg[..avg.len() / 2].to_vec()
}

#[test]
fn red_holds_100_flows_between_its_thresholds() {
    let r = chung_claypool(red(false, false, false), 1, 100, false, "100s");
    let avg = averages(&r);
    let steady = &avg[40..];
    let mean = steady.iter().sum::<f64>() / steady.len() as f64;
    assert!((100.0..300.0).contains(&mean), "mean RED average {mean:.1}");
    assert!(r.summary.links["forward"].utilization > 0.99);
    assert!(r.summary.links["forward"].drops_pkts_by_reason["early"] > 0);
}

#[test]
fn with_ecn_marks_take_the_place_of_drops() {
    let drops = &chung_claypool(red(false, false, false), 1, 100, false, "100s")
        .summary
        .links["forward"]
        .clone();
    let ecn = &chung_claypool(red(false, true, false), 1, 100, true, "100s")
        .summary
        .links["forward"]
        .clone();
    assert!(
        ecn.drops_pkts * 10 < drops.drops_pkts,
        "{} drops with ECN vs {} without",
        ecn.drops_pkts,
        drops.drops_pkts
    );
    assert!(
        ecn.marks_pkts > 10 * ecn.drops_pkts,
        "{} marks, {} drops",
        ecn.marks_pkts,
        ecn.drops_pkts
    );
    assert!(ecn.drop_rate < 0.01, "loss rate {}", ecn.drop_rate);
    assert_eq!(drops.marks_pkts, 0);
}

#[test]
fn under_growing_load_red_reaches_max_th_and_adaptive_red_holds_its_band() {
    // 50 flows, then 50 more every 50 s, up to 300.
    let classic = averages(&chung_claypool(
        red(false, false, false),
        6,
        50,
        false,
        "300s",
    ));
    let top = classic.iter().cloned().fold(0.0, f64::max);
    assert!(
        top >= 0.97 * 300.0,
        "classic RED's average peaks at {top:.1}"
    );
    let late = &classic[400..];
    let near_max = late.iter().filter(|a| **a >= 0.95 * 300.0).count() as f64 / late.len() as f64;
    assert!(
        near_max > 0.3,
        "classic RED near max_th in {near_max:.2} of the intervals with 200+ flows"
    );

    let ared = chung_claypool(red(true, false, true), 6, 50, false, "300s");
    let avg = averages(&ared);
    // Target band [min_th + 0.4Δ, min_th + 0.6Δ] = [180, 220].
    let in_band =
        avg.iter().filter(|a| (180.0..=220.0).contains(*a)).count() as f64 / avg.len() as f64;
    assert!(
        in_band > 0.5,
        "Adaptive RED in its band for {in_band:.2} of the 0.5 s intervals"
    );
    let max_p = floats(&ared, "queue", "red_max_p");
    assert!(max_p[max_p.len() / 2 - 1] > 0.1, "max_p adapted upward");
}

/// Eddy & Allman §4.1: one bulk flow each way per packet size (296, 576, 1500, 4352, 16000 B),
/// 1.5 Mbit/s, 70 ms one way, 5 hosts a side, SACK with delayed ACKs, ns-2 2.1b8 (`ns2-2000`:
/// packet sizes on the wire, windows of 20 packets), RED 5/15/0.002/0.1 gentle, 70 packets (70·MPS
/// bytes in byte mode), MPS 500 B, both directions.
fn eddy_allman(mode: &str, seed: u64) -> f64 {
    let mut traffic = Vec::new();
    for (i, size) in [296, 576, 1500, 4352, 16000].iter().enumerate() {
        for from in ["servers", "clients"] {
            traffic.push(json!({"kind": "ftp", "name": format!("{from}{size}"), "from": from, "server": i, "client": i,
                "start": {"dist": "uniform", "min": "0s", "max": "1s"},
                "tcp": {"mss": format!("{size}B"), "rwnd": format!("{}B", 20 * size)}}));
        }
    }
    let limit = if mode.starts_with("bq") {
        "35000B"
    } else {
        "70p"
    };
    let q = json!({"kind": "red", "profile": "ns2-2000", "mode": mode, "min_th": 5, "max_th": 15, "w_q": 0.002,
                   "max_p": 0.1, "gentle": true, "limit": limit, "mean_pkt_size": "500B"});
    let v = json!({
        "duration": "200s", "warmup": "20s",
        "topology": {"servers": 5, "clients": 5, "bottleneck": {"rate": "1500kbps", "delay": "70ms"},
                     "access": {"rate": "100Mbps", "queue": "1000p"}},
        "queue": q.clone(), "reverse_queue": q,
        "tcp": {"profile": "ns2-2000", "variant": "sack", "delack": "one-shot"},
        "traffic": traffic
    });
    let r = run(&v, Some(seed));
    // Jain's index over the five flows that cross the forward queue.
    let g: Vec<f64> = floats(&r, "connections", "goodput_bps")
        .into_iter()
        .step_by(2)
        .collect();
    let (s, s2): (f64, f64) = (g.iter().sum(), g.iter().map(|x| x * x).sum());
    s * s / (g.len() as f64 * s2)
}

#[test]
fn byte_modes_are_fairer_than_packet_modes_with_mixed_packet_sizes() {
    for seed in [1, 2] {
        let (pq_pm, bq_bm) = (eddy_allman("pq_pm", seed), eddy_allman("bq_bm", seed));
        assert!(
            bq_bm > pq_pm + 0.2,
            "seed {seed}: Jain bq_bm {bq_bm:.3} vs pq_pm {pq_pm:.3}"
        );
    }
}

/// Chung & Claypool's queue-law setup with the uniform dropper: 20 bulk flows over 10 Mbit/s,
/// every arrival at the forward queue chosen with probability 2%.
fn uniform(ecn_queue: bool, ecn_tcp: bool) -> aqmlab_sim::Report {
    let v = json!({
        "duration": "30s", "warmup": "5s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "queue": {"kind": "bernoulli", "p": 0.02, "ecn": ecn_queue, "limit": "500p"},
        "tcp": {"profile": "ns2-2003", "variant": "newreno", "mss": "1000B", "ecn": ecn_tcp},
        "traffic": [{"kind": "ftp", "flows": 20}]
    });
    run(&v, Some(2))
}

#[test]
fn the_uniform_marker_marks_ecn_capable_traffic_and_the_queue_table_counts_it() {
    let dropper = uniform(false, true);
    let marker = uniform(true, true);
    for r in [&dropper, &marker] {
        let b = &r.summary.links["forward"];
        // The per-interval counts add up to the summary's totals over the measured period.
        assert_eq!(forward_sum(r, "arrivals_pkts"), b.arrivals_pkts);
        assert_eq!(forward_sum(r, "drops_pkts"), b.drops_pkts);
        assert_eq!(forward_sum(r, "marks_pkts"), b.marks_pkts);
    }
    // Without `ecn` the queue drops even ECN-capable flows' packets; with it, it marks them
    // instead, at the same rate, and drops nothing (the data segments are all ECT).
    let (d, m) = (
        &dropper.summary.links["forward"],
        &marker.summary.links["forward"],
    );
    assert_eq!(d.marks_pkts, 0);
    assert!(
        (d.drop_rate - 0.02).abs() < 0.003,
        "drop rate {}",
        d.drop_rate
    );
    assert_eq!(m.drops_pkts_by_reason["random"], 0);
    assert_eq!(m.drops_pkts, 0);
    let mark_rate = m.marks_pkts_by_reason["random"] as f64 / m.arrivals_pkts as f64;
    assert!((mark_rate - 0.02).abs() < 0.003, "mark rate {mark_rate}");
    // Marks cut the windows as drops do, without retransmissions: a similar throughput.
    assert!(m.utilization > 0.5 * d.utilization);
}
