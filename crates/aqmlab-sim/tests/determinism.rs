//! A run is a pure function of (scenario, seed): the same inputs give the same outputs to the bit,
//! however the run is cut into pieces, and each component's draws depend only on its own name.

mod common;

use aqmlab_sim::{Report, Scenario, Simulation};
use common::{floats, ints, run};
use serde_json::{json, Value};

fn scenario() -> Value {
    json!({
        "duration": "30s", "warmup": "2s",
        "topology": {"servers": 3, "clients": 2, "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
                     "pair_delay": {"dist": "uniform", "min": "1ms", "max": "40ms"}},
        "queue": {"kind": "droptail", "limit": "30p"},
        "traffic": [
            {"kind": "poisson", "name": "p", "rate": "2Mbps", "flows": 4},
            {"kind": "pareto", "name": "onoff", "rate": "4Mbps", "flows": 3, "size": "500B"},
            {"kind": "cbr", "name": "back", "rate": "1Mbps", "jitter": true, "from": "clients"}
        ]
    })
}

/// The summary as JSON with the wall-clock time blanked, and the tables.
fn fingerprint(r: &Report) -> (String, String) {
    let mut s = r.summary.clone();
    s.meta.wall_s = 0.0;
    (
        serde_json::to_string(&s).unwrap(),
        format!("{:?}", r.tables),
    )
}

#[test]
fn same_seed_same_results_different_seed_different_results() {
    let a = fingerprint(&run(&scenario(), Some(11)));
    let b = fingerprint(&run(&scenario(), Some(11)));
    let c = fingerprint(&run(&scenario(), Some(12)));
    assert_eq!(a, b);
    assert_ne!(a.0, c.0);
    assert_ne!(a.1, c.1);
}

#[test]
fn running_in_chunks_changes_nothing() {
    let s = Scenario::from_value(&scenario()).unwrap();
    let whole = Simulation::new(&s, Some(3)).run().unwrap();
    let mut sim = Simulation::new(&s, Some(3));
    for ms in (0..=30_000).step_by(777) {
        sim.run_until(aqmlab_sim::units::Time::from_millis(ms), &mut || false)
            .unwrap();
    }
    let chunked = sim.run().unwrap();
    assert_eq!(fingerprint(&whole), fingerprint(&chunked));
}

#[test]
fn adding_a_flow_leaves_other_components_draws_alone() {
    let base = run(&scenario(), Some(5));
    let mut more = scenario();
    more["traffic"].as_array_mut().unwrap().insert(
        0,
        json!({"kind": "poisson", "name": "extra", "rate": "1Mbps", "flows": 2}),
    );
    let with_extra = run(&more, Some(5));
    // The extra group's flows come first, so the others' rows are shifted by two; what each other flow
    // sent depends only on its own draws and must not change. (What it got through may: the extra
    // traffic shares the bottleneck.)
    let sent = ints(&base, "flows", "sent_pkts");
    let sent_with_extra = ints(&with_extra, "flows", "sent_pkts");
    assert_eq!(sent, sent_with_extra[2..].to_vec());
}

/// A pair delay every pair shares is folded into the router → host links' delay at build time
/// (`Dumbbell::same_pair_delay`); a list whose pairs differ is looked up packet by packet. Two
/// bulk flows (server k → client k) cross the same delays either way: 15 ms on their own pairs,
/// and in the second run 7 ms on the two pairs no flow uses. The runs must agree to the bit in
/// every table and in both directions' counters.
#[test]
fn a_shared_pair_delay_folded_into_the_link_gives_the_run_of_one_looked_up_per_packet() {
    let two_flows = |pair_delay: Value| {
        let v = json!({
            "duration": "20s", "warmup": "2s",
            "topology": {"servers": 2, "clients": 2, "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
                         "pair_delay": pair_delay},
            "queue": {"kind": "droptail", "limit": "20p"},
            "traffic": [{"kind": "ftp", "name": "bulk", "flows": 2}]
        });
        run(&v, Some(3))
    };
    let folded = two_flows(json!("15ms"));
    let per_packet = two_flows(json!(["15ms", "7ms", "7ms", "15ms"]));
    assert!(
        ints(&folded, "connections", "dropped_pkts")
            .iter()
            .sum::<i64>()
            > 0,
        "the queue drops, so timing differences would show"
    );
    let direction = |r: &Report| {
        serde_json::to_string(&(&r.summary.links["forward"], &r.summary.links["reverse"]))
    };
    assert_eq!(direction(&folded).unwrap(), direction(&per_packet).unwrap());
    assert_eq!(
        format!("{:?}", folded.tables),
        format!("{:?}", per_packet.tables)
    );
    // The delay is really there: 2 × (5 + 15) ms of propagation in every round trip.
    let srtt = floats(&folded, "connections", "srtt_s");
    assert!(srtt.iter().all(|&s| s > 0.040), "{srtt:?}");
}
