//! Validation against theory and exact arithmetic: the engine's queues, links and sources must
//! agree with what queueing theory and the link rates say.

mod common;

use common::{floats, ints, run};
use serde_json::json;

/// M/D/1: Poisson arrivals of fixed 1000-byte packets into a FIFO with an ample buffer. The mean
/// waiting time (excluding service) is W = ρ / (2μ(1 − ρ)) (Pollaczek–Khinchine with deterministic
/// service). The access links run at 10 Gbit/s so they barely reshape the Poisson stream.
#[test]
fn md1_mean_wait_matches_pollaczek_khinchine() {
    let mu = 10e6 / 8000.0; // service rate in packets/s at 10 Mbit/s
    for rho in [0.5, 0.8, 0.9] {
        let rate_bps = (rho * 10e6) as u64;
        let v = json!({
            "duration": "2000s", "warmup": "20s",
            "topology": {"bottleneck": {"rate": "10Mbps"}, "access": {"rate": "10Gbps", "queue": "1000p"}},
            "queue": {"kind": "droptail", "limit": "100000p"},
            "traffic": [{"kind": "poisson", "rate": format!("{rate_bps}bps"), "size": "1000B"}]
        });
        let r = run(&v, Some(1));
        let b = &r.summary.links["forward"];
        let w_theory = rho / (2.0 * mu * (1.0 - rho));
        let err = b.mean_queue_delay_s / w_theory - 1.0;
        assert_eq!(b.drops_pkts, 0);
        assert!(
            err.abs() < 0.03,
            "rho {rho}: W {} s vs theory {w_theory} s ({:+.1}%)",
            b.mean_queue_delay_s,
            err * 100.0
        );
        // Little's law ties the time-average queue to the waiting time: L_q = λ·W_q.
        let lambda = b.departures_pkts as f64 / r.summary.meta.measured_s;
        let little = b.mean_queue_pkts / (lambda * b.mean_queue_delay_s) - 1.0;
        assert!(
            little.abs() < 0.005,
            "rho {rho}: Little's law off by {little}"
        );
        assert!(
            (b.utilization - rho).abs() < 0.01,
            "rho {rho}: utilization {}",
            b.utilization
        );
    }
}

/// CBR at 120% of the bottleneck: the link runs at its rate and drops exactly the excess.
#[test]
fn overload_saturates_the_link_and_drops_the_excess() {
    let v = json!({
        "duration": "100s", "warmup": "5s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
        "traffic": [{"kind": "cbr", "rate": "12Mbps", "size": "1000B"}]
    });
    let r = run(&v, None);
    let b = &r.summary.links["forward"];
    assert!(
        (b.throughput_bps / 10e6 - 1.0).abs() < 0.005,
        "throughput {}",
        b.throughput_bps
    );
    let excess = b.arrivals_pkts as f64 * (1.0 - 10.0 / 12.0);
    assert!(
        (b.drops_pkts as f64 / excess - 1.0).abs() < 0.01,
        "drops {} vs excess {excess}",
        b.drops_pkts
    );
    assert_eq!(b.drops_pkts_by_reason["overflow"], b.drops_pkts);
    // A full 50-packet drop-tail queue stays full: the time-average is just under 50.
    assert!(
        b.mean_queue_pkts > 49.0 && b.mean_queue_pkts <= 50.0,
        "{}",
        b.mean_queue_pkts
    );
    // Every 1 s interval of the link table carries the full rate.
    let util = floats(&r, "link", "utilization");
    let dirs: Vec<i64> = ints(&r, "link", "pkts");
    assert_eq!(util.len(), dirs.len());
    assert!(
        util[..95].iter().all(|u| (u - 1.0).abs() < 0.002),
        "{util:?}"
    );
}

/// One-way delay of an isolated packet is the sum of its serialisations, propagations and the pair's
/// extra delay, to the nanosecond.
#[test]
fn one_way_delay_adds_up_exactly() {
    // 1000 B: 80 µs on 100 Mbit/s access links, 800 µs on the 10 Mbit/s bottleneck. Each flow sends
    // a packet every 100 ms, both at the same instants, so flow 1's packet always waits 800 µs behind
    // flow 0's at the bottleneck. Pairs (client 0, server 0/1) have extra delays 3 and 7 ms.
    let v = json!({
        "duration": "10s",
        "topology": {"servers": 2, "clients": 1, "bottleneck": {"rate": "10Mbps", "delay": "20ms"},
                     "access": {"delay": "1ms"}, "pair_delay": ["3ms", "7ms"]},
        "traffic": [{"kind": "cbr", "rate": "80kbps", "flows": 2}]
    });
    let r = run(&v, None);
    let delays = floats(&r, "flows", "mean_delay_s");
    let base = 80e-6 + 1e-3 + 800e-6 + 20e-3 + 80e-6 + 1e-3;
    assert!((delays[0] - (base + 3e-3)).abs() < 1e-12, "{delays:?}");
    assert!(
        (delays[1] - (base + 7e-3 + 800e-6)).abs() < 1e-12,
        "{delays:?}"
    );
    assert!((r.summary.links["forward"].mean_queue_delay_s - 400e-6).abs() < 1e-12);
}

/// The time-average queue of a deterministic pattern: two packets arriving together every 10 ms at
/// a link that takes 1 ms per packet leave one packet waiting for 1 ms of every 10 ms.
#[test]
fn queue_time_average_of_a_deterministic_pattern() {
    let v = json!({
        "duration": "10s",
        "topology": {"servers": 2, "clients": 1, "bottleneck": {"rate": "8Mbps"}, "access": {"rate": "10Gbps"}},
        "traffic": [{"kind": "cbr", "rate": "800kbps", "flows": 2}]
    });
    let r = run(&v, None);
    let b = &r.summary.links["forward"];
    assert!(
        (b.mean_queue_pkts - 0.1).abs() < 1e-3,
        "{}",
        b.mean_queue_pkts
    );
    // Half the packets wait 1 ms, half none.
    assert!(
        (b.mean_queue_delay_s - 0.5e-3).abs() < 1e-5,
        "{}",
        b.mean_queue_delay_s
    );
}

/// UDP traffic both ways: each direction has its own queue and counters.
#[test]
fn both_directions_are_measured_separately() {
    let v = json!({
        "duration": "20s",
        "topology": {"bottleneck": {"rate": "10Mbps"}},
        "traffic": [{"kind": "cbr", "rate": "3Mbps"}, {"kind": "cbr", "rate": "6Mbps", "from": "clients"}]
    });
    let r = run(&v, None);
    assert!((r.summary.links["forward"].utilization - 0.3).abs() < 0.005);
    assert!((r.summary.links["reverse"].utilization - 0.6).abs() < 0.005);
    assert_eq!(ints(&r, "flows", "lost_pkts"), vec![0, 0]);
}
