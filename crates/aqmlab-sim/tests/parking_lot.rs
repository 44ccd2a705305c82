//! The parking lot against theory (docs/models/validation.md §1, §2 and §4): a long TCP flow
//! across N bottlenecks in a row against one cross flow per hop (S. Floyd, "Connections with
//! multiple congested gateways in packet-switched networks, part 1: one-way traffic", ACM CCR
//! 21(5), 1991), and each hop's queue on its own queue law.
//!
//! The law tested. A Reno flow's throughput is `(MSS / RTT) · C / √p` at loss rate `p` (the
//! square-root law: Mathis et al. 1997; Floyd 1991's heuristic analysis of this network rests on
//! the same relation). If every hop drops each packet with the same probability `p`, whatever its
//! flow (Floyd's random-drop gateways), the long flow loses `1 − (1 − p)^N ≈ N·p` and a cross
//! flow `p`, so with equal round-trip times the long flow gets `√(p / (1 − (1 − p)^N)) ≈ 1/√N` of
//! a cross flow's throughput. Assumptions: losses independent of the flow; equal RTTs (the cross
//! hosts' links here make up the hops the cross flows do not cross); congestion avoidance, not
//! timeouts (which cost the long flow more: Padhye et al. 1998); `C` the same for every flow.

mod common;

use aqmlab_sim::Report;
use common::{floats, ints, run, strings};
use serde_json::{json, Value};

/// One hop's propagation delay (ms) and the long flow's hosts' access delay (ms).
const HOP_MS: u64 = 10;
const LONG_ACCESS_MS: u64 = 1;

/// A parking lot of `n` hops `r(i−1) → ri` of `rate`, each queued by `queue`: `long` flows from
/// `s0` at `r0` to `c0` at `rn`, `cross` flows per hop from `si` at `r(i−1)` to `ci` at `ri`.
/// Every pair has the same base RTT, `2 · (n · HOP_MS + 2 · LONG_ACCESS_MS)`: a cross host's
/// access link makes up for the hops its flow does not cross. Reno without delayed ACKs and an
/// ample window: the sender of the throughput laws (tcp_laws.rs).
fn lot(n: u64, queue: &Value, rate: &str, (long, cross): (u64, u64), duration: &str) -> Value {
    let cross_access_us = ((n - 1) * HOP_MS + 2 * LONG_ACCESS_MS) * 1000 / 2;
    let host = |name: String| json!({"name": name, "kind": "host"});
    let mut nodes = vec![host("s0".into()), host("c0".into())];
    nodes.extend((1..=n).flat_map(|i| [host(format!("s{i}")), host(format!("c{i}"))]));
    nodes.extend((0..=n).map(|i| json!({"name": format!("r{i}"), "kind": "router"})));
    let fifo = json!({"kind": "droptail", "limit": "10000p"});
    let access = |h: String, r: String, delay: String| {
        json!({"from": h, "to": r, "rate": "1Gbps", "delay": delay,
               "queue": fifo, "reverse_queue": fifo})
    };
    let mut links: Vec<Value> = (1..=n)
        .map(|i| {
            json!({"from": format!("r{}", i - 1), "to": format!("r{i}"), "rate": rate,
                   "delay": format!("{HOP_MS}ms"), "queue": queue})
        })
        .collect();
    let long_ms = format!("{LONG_ACCESS_MS}ms");
    links.push(access("s0".into(), "r0".into(), long_ms.clone()));
    links.push(access("c0".into(), format!("r{n}"), long_ms));
    for i in 1..=n {
        let d = format!("{cross_access_us}us");
        links.push(access(format!("s{i}"), format!("r{}", i - 1), d.clone()));
        links.push(access(format!("c{i}"), format!("r{i}"), d));
    }
    let tcp = json!({"profile": "rfc", "variant": "reno", "delack": "off", "mss": "1000B",
                     "rwnd": "10MiB"});
    let starts = json!({"dist": "uniform", "min": "0s", "max": "1s"});
    let hosts = |p: &str| (1..=n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    json!({
        "duration": duration, "warmup": "20s", "node": nodes, "link": links,
        "traffic": [
            {"kind": "ftp", "name": "long", "flows": long, "servers": ["s0"], "clients": ["c0"],
             "tcp": tcp, "start": starts},
            {"kind": "ftp", "name": "cross", "flows": n * cross, "servers": hosts("s"),
             "clients": hosts("c"), "tcp": tcp, "start": starts}
        ]
    })
}

/// Per group (`long`, `cross`): the mean goodput (bit/s) and the loss rate (drops per data
/// segment) of its connections.
fn by_group(r: &Report, group: &str) -> (f64, f64) {
    let groups = strings(r, "connections", "group");
    let goodput = floats(r, "connections", "goodput_bps");
    let (dropped, segs) = (
        ints(r, "connections", "dropped_pkts"),
        ints(r, "connections", "data_segs"),
    );
    let mine: Vec<usize> = (0..groups.len()).filter(|&k| groups[k] == group).collect();
    let mean = mine.iter().map(|&k| goodput[k]).sum::<f64>() / mine.len() as f64;
    let lost = mine.iter().map(|&k| dropped[k]).sum::<i64>() as f64;
    let sent = mine.iter().map(|&k| segs[k]).sum::<i64>() as f64;
    (mean, lost / sent)
}

/// Padhye, Firoiu, Towsley & Kurose (SIGCOMM '98) as in tcp_laws.rs: packets per second at loss
/// rate `p`, round-trip time `rtt`, first timeout `t0`, an ACK per packet.
fn padhye(p: f64, rtt: f64, t0: f64) -> f64 {
    1.0 / (rtt * (2.0 * p / 3.0).sqrt()
        + t0 * (3.0 * (3.0 * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p))
}

/// Equal drop rates by construction: every hop an uncongested 1 Gbit/s link whose queue drops
/// each arrival with probability 0.001 (a Bernoulli dropper). The long flow loses at
/// `1 − (1 − p)^N` (the hops' drops compose), every flow's throughput follows Padhye's model at
/// its own loss rate, RTT and first timeout (±20%, the single-flow test's band), and the long
/// flow's share of a cross flow's follows the square-root law, `√(p / (1 − (1 − p)^N))`, within
/// 15%: the law leaves out timeouts, which cost the long flow a few percent more (Padhye's
/// model puts it at 5–8% here), and ~1,000 loss events a flow leave a few percent of noise.
#[test]
fn with_equal_drop_rates_the_long_flow_gets_one_over_root_n() {
    let p: f64 = 0.001;
    let dropper = json!({"kind": "bernoulli", "p": p, "limit": "10000p"});
    for n in [2u64, 4] {
        let r = run(&lot(n, &dropper, "1Gbps", (1, 1), "600s"), Some(1));
        let ((long, p_long), (cross, p_cross)) = (by_group(&r, "long"), by_group(&r, "cross"));
        let composed = 1.0 - (1.0 - p).powi(n as i32);
        assert!(
            (p_long / composed - 1.0).abs() < 0.1,
            "N {n}: long loses {p_long}, not {composed}"
        );
        assert!(
            (p_cross / p - 1.0).abs() < 0.1,
            "N {n}: cross loses {p_cross}"
        );
        let (srtt, t0, goodput) = (
            floats(&r, "connections", "srtt_s"),
            floats(&r, "connections", "mean_t0_s"),
            floats(&r, "connections", "goodput_bps"),
        );
        let (dropped, segs) = (
            ints(&r, "connections", "dropped_pkts"),
            ints(&r, "connections", "data_segs"),
        );
        for k in 0..goodput.len() {
            let loss = dropped[k] as f64 / segs[k] as f64;
            let model = padhye(loss, srtt[k], t0[k]);
            let ratio = goodput[k] / 8000.0 / model;
            assert!(
                (0.8..1.2).contains(&ratio),
                "N {n}, flow {k}: ×{ratio:.3} of Padhye"
            );
        }
        let share = long / cross;
        let law = (p / composed).sqrt();
        assert!(
            (share / law - 1.0).abs() < 0.15,
            "N {n}: the long flow gets {share:.3} of a cross flow, the law {law:.3} (1/√N {:.3})",
            1.0 / (n as f64).sqrt()
        );
    }
}

/// Congested hops with RED (ns-2's 2003 defaults: automatic thresholds, gentle), one long flow
/// against one cross flow per hop, two seeds: RED drops each arrival with the hop's probability
/// whatever its flow, Floyd's random-drop gateway, and the long flow's share follows 1/√N within
/// 25%. Wider than with a dropper: the equal-drop-rate assumption holds only roughly at
/// congested hops (the long flow's RTT holds N queues, each hop's drop rate is set by its own
/// mix of flows), and one flow a side leaves more noise.
#[test]
fn through_red_hops_the_long_flow_gets_about_one_over_root_n() {
    let red = json!({"kind": "red", "profile": "ns2-2003", "limit": "200p",
                     "mean_pkt_size": "1040B"});
    for n in [2u64, 3] {
        let shares: Vec<f64> = [1, 2]
            .iter()
            .map(|&seed| {
                let r = run(&lot(n, &red, "10Mbps", (1, 1), "1000s"), Some(seed));
                by_group(&r, "long").0 / by_group(&r, "cross").0
            })
            .collect();
        let share = shares.iter().sum::<f64>() / 2.0;
        let law = 1.0 / (n as f64).sqrt();
        assert!(
            (share / law - 1.0).abs() < 0.25,
            "N {n}: the long flow gets {shares:?} of a cross flow, 1/√N = {law:.3}"
        );
    }
}

/// The same network with drop-tail queues: Floyd 1991 found drop-tail gateways biased against
/// the connection with several congested gateways beyond what random drop gives it (bursty
/// traffic and phase effects), to "unacceptably low throughput". Here its share stays below
/// three quarters of 1/√N on average over two seeds (its value varies from seed to seed: the
/// phase effects).
#[test]
fn through_droptail_hops_the_long_flow_gets_less_than_random_drop_gives() {
    let fifo = json!({"kind": "droptail", "limit": "100p"});
    for n in [2u64, 3] {
        let shares: Vec<f64> = [1, 2]
            .iter()
            .map(|&seed| {
                let r = run(&lot(n, &fifo, "10Mbps", (1, 1), "1000s"), Some(seed));
                by_group(&r, "long").0 / by_group(&r, "cross").0
            })
            .collect();
        let share = shares.iter().sum::<f64>() / 2.0;
        let law = 1.0 / (n as f64).sqrt();
        assert!(
            share < 0.75 * law,
            "N {n}: the long flow gets {shares:?} of a cross flow, 1/√N = {law:.3}"
        );
    }
}

/// Each hop's queue follows its own queue law (Firoiu & Borden 2000; Chung & Claypool 2003):
/// RED's operating point on a hop, its drop rate and mean queue, lies on the law of that hop,
/// measured as the law is (docs/models/validation.md §2) by a dropper in RED's place at RED's
/// drop rate, the other hop unchanged. Two hops, two long flows and four cross flows a hop, two
/// seeds; within 10%, the single-bottleneck prediction's tolerance (tests/test_queue_law.py: RED's
/// drops are spaced by its count rule, not independent, and each side is a few seeds' average).
#[test]
fn each_hop_of_a_parking_lot_sits_on_its_own_queue_law() {
    let red = json!({"kind": "red", "profile": "ns2-2003", "limit": "300p",
                     "mean_pkt_size": "1040B", "min_th": 20, "max_th": 60});
    let hops = ["r0-r1", "r1-r2"];
    let (mut red_queue, mut law_queue) = ([0.0; 2], [0.0; 2]);
    for seed in [1, 2] {
        let v = lot(2, &red, "10Mbps", (2, 4), "400s");
        let r = run(&v, Some(seed));
        for (h, hop) in hops.iter().enumerate() {
            let at = &r.summary.links[*hop];
            assert!(at.utilization > 0.95, "{hop} is a bottleneck");
            red_queue[h] += at.mean_queue_pkts / 2.0;
            let mut law = v.clone();
            law["link"][h]["queue"] =
                json!({"kind": "bernoulli", "p": at.drop_rate, "limit": "100000p"});
            let l = run(&law, Some(seed));
            law_queue[h] += l.summary.links[*hop].mean_queue_pkts / 2.0;
        }
    }
    for h in 0..2 {
        let (red, law) = (red_queue[h], law_queue[h]);
        assert!(
            (red / law - 1.0).abs() < 0.1,
            "{}: RED's mean queue {red:.1} pkts, the law's at its drop rate {law:.1}",
            hops[h]
        );
    }
}
