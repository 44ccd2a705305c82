//! Today's AQMs at a bottleneck shared by bulk TCP flows: CoDel (RFC 8289) and PIE (RFC 8033) keep
//! the standing queue near their targets where a long FIFO fills, and FQ-CoDel (RFC 8290) keeps a
//! sparse flow out of the bulk flows' queue; dequeue-time drops and marks are counted like any
//! other (the counter identities hold in every run).

mod common;

use common::{floats, forward_sum, ints, run, strings};
use serde_json::{json, Value};

/// 10 Mbit/s, 20 ms one-way bottleneck delay, NewReno over `queue`, 40 s of which 10 s warm-up.
fn scenario(queue: Value, ecn: bool, traffic: Vec<Value>) -> Value {
    json!({
        "duration": "40s",
        "warmup": "10s",
        "topology": {"servers": 4, "clients": 4, "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                     "access": {"rate": "1Gbps", "queue": "5000p"}},
        "queue": queue,
        "reverse_queue": {"kind": "droptail", "limit": "5000p"},
        "tcp": {"variant": "newreno", "mss": "1000B", "rwnd": "10MiB", "ecn": ecn},
        "traffic": traffic
    })
}

/// `flows` bulk TCP flows of 1000-byte segments, starting within the first second.
fn ftp(flows: u32) -> Value {
    json!({"kind": "ftp", "flows": flows, "start": {"dist": "uniform", "min": "0s", "max": "1s"}})
}

fn bulk(queue: Value, flows: u32, ecn: bool) -> aqmlab_sim::Report {
    run(&scenario(queue, ecn, vec![ftp(flows)]), Some(1))
}

#[test]
fn codel_holds_the_queueing_delay_near_its_target_where_a_fifo_fills() {
    let fifo = bulk(json!({"kind": "droptail", "limit": "500p"}), 8, false);
    let codel = bulk(json!({"kind": "codel"}), 8, false);
    let (f, c) = (
        &fifo.summary.links["forward"],
        &codel.summary.links["forward"],
    );
    assert!(f.mean_queue_delay_s > 0.1, "FIFO {}", f.mean_queue_delay_s);
    assert!(
        c.mean_queue_delay_s < 0.02,
        "CoDel {}",
        c.mean_queue_delay_s
    );
    assert!(c.utilization > 0.9, "CoDel utilization {}", c.utilization);
    let codel_drops = c.drops_pkts_by_reason["codel"];
    assert!(codel_drops > 0);
    assert_eq!(
        c.drops_pkts,
        codel_drops + c.drops_pkts_by_reason["overflow"]
    );
    assert_eq!(forward_sum(&codel, "drops_pkts"), c.drops_pkts);
}

#[test]
fn codel_with_ecn_marks_instead_of_dropping() {
    let r = bulk(json!({"kind": "codel", "ecn": true}), 8, true);
    let b = &r.summary.links["forward"];
    assert!(b.marks_pkts_by_reason["codel"] > 0);
    assert_eq!(b.marks_pkts, b.marks_pkts_by_reason["codel"]);
    assert_eq!(b.drops_pkts_by_reason["codel"], 0);
    assert_eq!(forward_sum(&r, "marks_pkts"), b.marks_pkts);
    assert!(b.mean_queue_delay_s < 0.02, "{}", b.mean_queue_delay_s);
}

#[test]
fn pie_holds_the_queueing_delay_near_its_target() {
    let r = bulk(json!({"kind": "pie"}), 8, false);
    let b = &r.summary.links["forward"];
    assert!(b.mean_queue_delay_s < 0.04, "PIE {}", b.mean_queue_delay_s);
    assert!(b.utilization > 0.9, "PIE utilization {}", b.utilization);
    assert!(b.drops_pkts_by_reason["pie"] > 0);
    assert_eq!(
        b.drops_pkts,
        b.drops_pkts_by_reason["pie"] + b.drops_pkts_by_reason["overflow"]
    );
}

/// One CBR flow of 200-byte packets at 1 % of the 10 Mbit/s bottleneck, beside `bulk` TCP flows:
/// its mean one-way delay in seconds.
fn sparse_delay(queue: Value, bulk: u32) -> f64 {
    let mut traffic = vec![json!({"kind": "cbr", "name": "sparse", "rate": "100kbps",
                                  "size": "200B"})];
    if bulk > 0 {
        traffic.push(ftp(bulk));
    }
    let r = run(&scenario(queue, false, traffic), Some(1));
    floats(&r, "flows", "mean_delay_s")[0]
}

#[test]
fn fq_codel_keeps_a_sparse_flow_out_of_the_bulk_flows_queue() {
    let alone = sparse_delay(json!({"kind": "droptail", "limit": "500p"}), 0);
    let fifo = sparse_delay(json!({"kind": "droptail", "limit": "500p"}), 8) - alone;
    let codel = sparse_delay(json!({"kind": "codel"}), 8) - alone;
    let fq = sparse_delay(json!({"kind": "fq_codel"}), 8) - alone;
    eprintln!("sparse flow's queueing delay: FIFO {fifo:.4} s, CoDel {codel:.4} s, FQ-CoDel {fq:.4} s (alone {alone:.4} s)");
    // Under FQ-CoDel it waits at most about one bulk packet's transmission (0.8 ms at 10 Mbit/s)
    // per round, far below CoDel's 5 ms target and a FIFO's standing queue.
    assert!(fq < 0.002, "FQ-CoDel {fq}");
    assert!(codel > 2.0 * fq, "CoDel {codel}, FQ-CoDel {fq}");
    assert!(fifo > 0.1, "FIFO {fifo}");
}

/// The rows of the queue table in `direction`, of a column read as `values`.
fn rows_of<T>(r: &aqmlab_sim::Report, values: Vec<T>, direction: &str) -> Vec<T> {
    values
        .into_iter()
        .zip(strings(r, "queue", "direction"))
        .filter(|(_, d)| d == direction)
        .map(|(x, _)| x)
        .collect()
}

fn forward_floats(r: &aqmlab_sim::Report, col: &str) -> Vec<f64> {
    rows_of(r, floats(r, "queue", col), "forward")
}

/// A CBR flow at twice the bottleneck's rate into CoDel, as a packet trace: 1250 B packets arrive
/// every 0.5 ms and leave every 1 ms (10 Mbit/s), all shifted by the same access-link time `a`
/// (< 1 ms), so the m-th departure (at `a + m` ms) is packet `m + D` of the flow, `D` the CoDel
/// drops so far, and waited `(m − D) / 2` ms. The sojourn time reaches the 5 ms target at m = 10,
/// so CoDel enters its drop state at the first departure strictly more than 100 ms later
/// (m = 111; Linux `codel_time_after`) and, the queue still growing, never
/// leaves it; drop n + 1 is due `interval / sqrt(n)` after drop n, taken at the first departure
/// at or after that. The queue table's 100 ms rows follow this timeline: the drops and the
/// departures of each interval, the mean and the largest sojourn time of those departures, and
/// the fraction of the samples (every 1 ms, each seeing the state just before any event at its
/// instant) taken in the drop state: 0 before, 88 of 100 in [100, 200) ms (112 … 199), then all.
#[test]
fn codel_queue_columns_follow_the_control_law_timeline() {
    let r = run(
        &json!({
            "duration": "1s",
            "topology": {"bottleneck": {"rate": "10Mbps", "delay": "1ms"},
                         "access": {"rate": "1Gbps"}},
            "queue": {"kind": "codel"},
            "traffic": [{"kind": "cbr", "rate": "20Mbps", "size": "1250B"}],
            "measure": {"queue_sample": "1ms", "queue_interval": "100ms"}
        }),
        Some(1),
    );
    const MS: u64 = 1_000_000;
    // The control law's drop instants, in departures (ms after `a`).
    let mut drop_at = Vec::new();
    let (mut due, mut n) = (111 * MS, 0u32);
    while due < 1000 * MS {
        n += 1;
        drop_at.push(due.div_ceil(MS));
        due += (100.0 * MS as f64 / f64::from(n).sqrt()) as u64;
    }
    let (mut drops, mut departures, mut wait_ns, mut max_ns) =
        ([0i64; 10], [0i64; 10], [0u64; 10], [0u64; 10]);
    let mut dropped = 0;
    // The departure at `a + 999` ms is the last before the end.
    for m in 0..1000u64 {
        let row = (m / 100) as usize;
        if drop_at.contains(&m) {
            dropped += 1;
            drops[row] += 1;
        }
        let wait = (m - dropped) * MS / 2;
        departures[row] += 1;
        wait_ns[row] += wait;
        max_ns[row] = max_ns[row].max(wait);
    }
    assert_eq!(
        rows_of(&r, ints(&r, "queue", "drops_pkts"), "forward"),
        drops
    );
    assert_eq!(
        rows_of(&r, ints(&r, "queue", "departures_pkts"), "forward"),
        departures
    );
    let mean = forward_floats(&r, "mean_sojourn_s");
    let max = forward_floats(&r, "max_sojourn_s");
    for row in 0..10 {
        let expected = wait_ns[row] as f64 * 1e-9 / departures[row] as f64;
        assert!((mean[row] - expected).abs() < 1e-12, "row {row}: {mean:?}");
        assert_eq!(max[row], max_ns[row] as f64 * 1e-9, "row {row}");
    }
    let mut dropping = vec![0.0, 0.88];
    dropping.resize(10, 1.0);
    assert_eq!(forward_floats(&r, "codel_dropping"), dropping);
    for col in ["red_avg", "red_max_p", "pie_prob"] {
        assert!(forward_floats(&r, col).iter().all(|x| x.is_nan()), "{col}");
    }
    // The reverse queue, a drop-tail FIFO, carried nothing: no sojourn times, no CoDel state.
    let reverse = rows_of(&r, floats(&r, "queue", "codel_dropping"), "reverse");
    assert!(reverse.len() == 10 && reverse.iter().all(|x| x.is_nan()));
}
