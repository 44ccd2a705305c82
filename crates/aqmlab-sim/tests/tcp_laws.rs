//! TCP against theory: the Padhye et al. throughput formula under random loss, and fairness among
//! identical flows (docs/models/validation.md §1).

mod common;

use common::{floats, jain, run};
use serde_json::json;

/// Padhye, Firoiu, Towsley & Kurose (SIGCOMM '98), the approximate full model as in ns-2's
/// `tcp/formula.h`: packets per second at loss rate `p`, round-trip time `rtt`, first timeout `t0`,
/// `b` packets acknowledged per ACK.
fn padhye(p: f64, rtt: f64, t0: f64, b: f64) -> f64 {
    1.0 / (rtt * (2.0 * b * p / 3.0).sqrt()
        + t0 * (3.0 * (3.0 * b * p / 8.0).sqrt()).min(1.0) * p * (1.0 + 32.0 * p * p))
}

/// One long Reno flow, RTT 100 ms, no delayed ACKs, an ample window, 1000-byte segments, and a
/// Bernoulli dropper that loses each data packet with probability p. Reno is the sender the model
/// describes; T0 is the measured mean of the un-backed-off timeouts, RTT the smoothed RTT.
#[test]
fn reno_goodput_follows_the_padhye_formula() {
    for p in [0.001, 0.005, 0.01, 0.02] {
        let v = json!({
            "duration": "1000s", "warmup": "20s",
            "topology": {"bottleneck": {"rate": "100Mbps", "delay": "50ms"}, "access": {"rate": "1Gbps"}},
            "queue": {"kind": "bernoulli", "p": p, "limit": "10000p"},
            "tcp": {"profile": "rfc", "variant": "reno", "delack": "off", "rwnd": "10MiB", "mss": "1000B"},
            "traffic": [{"kind": "ftp", "name": "bulk"}]
        });
        let r = run(&v, Some(1));
        let (rtt, t0) = (
            floats(&r, "connections", "srtt_s")[0],
            floats(&r, "connections", "mean_t0_s")[0],
        );
        assert!((0.099..0.102).contains(&rtt), "p {p}: srtt {rtt}");
        let measured = floats(&r, "connections", "goodput_bps")[0] / 8000.0;
        let predicted = padhye(p, rtt, t0, 1.0);
        let ratio = measured / predicted;
        assert!(
            (0.8..1.2).contains(&ratio),
            "p {p}: {measured:.1} pkt/s vs Padhye {predicted:.1} (×{ratio:.3})"
        );
    }
}

fn ten_flows(profile: &str, variant: &str, overhead: &str) -> f64 {
    let v = json!({
        "duration": "220s", "warmup": "20s",
        "topology": {"servers": 10, "clients": 10, "bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "queue": {"kind": "droptail", "limit": "50p"},
        "tcp": {"profile": profile, "variant": variant, "overhead": overhead},
        "traffic": [{"kind": "ftp", "name": "bulk", "flows": 10, "start": {"dist": "uniform", "min": "0s", "max": "1s"}}]
    });
    let r = run(&v, Some(1));
    assert!(r.summary.links["forward"].utilization > 0.99);
    let goodputs = floats(&r, "connections", "goodput_bps");
    // The summary's group measures agree with the table they sum up.
    let group = &r.summary.groups["bulk"];
    let total: f64 = goodputs.iter().sum();
    assert_eq!(group.flows, 10);
    assert!(
        (group.goodput_bps - total).abs() < 1e-6 * total,
        "{group:?} vs {total}"
    );
    assert!((group.mean_flow_goodput_bps - total / 10.0).abs() < 1e-6 * total);
    assert!(
        (group.jain_index - jain(&goodputs)).abs() < 1e-12,
        "{group:?}"
    );
    jain(&goodputs)
}

#[test]
fn ten_identical_flows_share_a_droptail_bottleneck_fairly() {
    for variant in ["reno", "newreno", "sack"] {
        let j = ten_flows("rfc", variant, "0s");
        assert!(j > 0.95, "{variant}: Jain's index {j:.3} over 200 s");
    }
}

#[test]
fn ns2_overhead_breaks_droptail_phase_effects() {
    // Identical ns-2 agents without delayed ACKs lock into drop-tail phase effects (Floyd &
    // Jacobson 1992); ns-2's remedy is a random sender processing time (`overhead_`).
    let j = ten_flows("ns2-2003", "reno", "1ms");
    assert!(j > 0.95, "Jain's index {j:.3}");
}

/// The summary's `groups` count only connections open in the measured window: a transfer that
/// ended during the warm-up is not a flow of its group, one that starts within the window is, and
/// the groups' goodputs add up to what the link carried, less the headers.
#[test]
fn group_measures_count_the_flows_open_in_the_measured_window() {
    let v = json!({
        "duration": "60s", "warmup": "10s",
        "topology": {"servers": 2, "clients": 2, "bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "queue": {"kind": "droptail", "limit": "50p"},
        "traffic": [
            {"kind": "ftp", "name": "early", "size": "100KB"},
            {"kind": "ftp", "name": "long", "flows": 2, "start": "0s"},
            {"kind": "ftp", "name": "late", "start": "40s"}
        ]
    });
    let r = run(&v, Some(1));
    let groups = &r.summary.groups;
    assert_eq!(groups["early"].flows, 0);
    assert!(groups["early"].jain_index.is_nan() && groups["early"].goodput_bps == 0.0);
    assert_eq!((groups["long"].flows, groups["late"].flows), (2, 1));
    let both = groups["long"].goodput_bps + groups["late"].goodput_bps;
    assert!(
        (both - r.summary.links["forward"].throughput_bps).abs() < 0.1 * both,
        "{groups:?}"
    );
    assert_eq!(groups["late"].jain_index, 1.0);
    assert!(groups["long"].jain_index > 0.5 && groups["long"].jain_index <= 1.0);
}
