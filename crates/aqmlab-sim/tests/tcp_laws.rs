//! TCP against theory: the Padhye et al. throughput formula under random loss, and fairness among
//! identical flows (reference `models.md` §6.1).

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
    assert!(r.summary.forward.utilization > 0.99);
    jain(&floats(&r, "connections", "goodput_bps"))
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
