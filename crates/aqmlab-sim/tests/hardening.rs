//! Hardening, engine side: valid scenarios neither abort nor report impossible numbers, and a run
//! stops on its `[limits]` with an error naming the limit.

mod common;

use aqmlab_sim::{Scenario, Simulation};
use common::{floats, run};
use serde_json::{json, Value};

fn scenario(extra: Value) -> Value {
    let mut v = json!({
        "duration": "10s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "5ms"}},
        "traffic": [{"kind": "cbr", "rate": "5Mbps"}]
    });
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

/// The error a run stops with.
fn stops(v: &Value) -> aqmlab_sim::ScenarioError {
    let s = Scenario::from_value(v).expect("a valid scenario");
    Simulation::new(&s, None)
        .run()
        .expect_err("the run should reach a limit")
}

#[test]
fn a_table_too_large_for_the_limit_stops_the_run_at_once() {
    // 1 ns logging intervals: 2·10^10 rows. These aborted on allocation.
    for measure in [
        json!({"queue_sample": "1ns", "queue_interval": "1ns"}),
        json!({"link_interval": "1ns"}),
    ] {
        let e = stops(&scenario(json!({"measure": measure})));
        assert_eq!(e.path, "limits.max_table_memory");
        assert!(e.message.contains("1000MB"), "{e}");
        assert!(e.message.contains("measure.queue_interval"), "{e}");
    }
    // 1,000 hours with the default 100 ms queue rows: 72 million rows, about 12 GB.
    let long = json!({"duration": "1000h", "traffic": [{"kind": "ftp", "size": "10KB"}]});
    assert_eq!(stops(&scenario(long)).path, "limits.max_table_memory");
}

#[test]
fn a_long_quiet_run_within_the_limit_is_cheap() {
    // 1,000 hours, one small transfer, samples every 1 ms (3.6·10^9 of them per direction), rows
    // every hour: the sampler works per interval, not per sample, so this takes milliseconds.
    let v = scenario(json!({
        "duration": "1000h",
        "traffic": [{"kind": "ftp", "size": "10KB"}],
        "measure": {"queue_sample": "1ms", "queue_interval": "1h", "link_interval": "1h"}
    }));
    let started = std::time::Instant::now();
    let r = run(&v, None);
    assert!(started.elapsed().as_secs() < 5, "{:?}", started.elapsed());
    assert_eq!(floats(&r, "queue", "t_s").len(), 2000);
    let samples = common::ints(&r, "queue", "samples");
    assert!(samples.iter().all(|&n| n == 3_600_000), "{samples:?}");
    assert_eq!(floats(&r, "link", "t_s").len(), 2000);
}

#[test]
fn limits_on_events_and_wall_time_name_their_keys() {
    let e = stops(&scenario(json!({"limits": {"max_events": 1000}})));
    assert_eq!(e.path, "limits.max_events");
    assert!(e.message.contains("1000 events"), "{e}");
    let e = stops(&scenario(json!({"limits": {"max_wall": "1ns"}})));
    assert_eq!(e.path, "limits.max_wall");
    assert!(e.message.contains("raise limits.max_wall"), "{e}");
    // Raised, the same runs finish; limits resolve back only when given.
    let r = run(
        &scenario(json!({"limits": {"max_events": 1_000_000_000}})),
        None,
    );
    assert_eq!(
        r.summary.meta.scenario["limits"],
        json!({"max_events": 1_000_000_000, "max_table_memory": "1000MB"})
    );
    assert!(run(&scenario(json!({})), None)
        .summary
        .meta
        .scenario
        .get("limits")
        .is_none());
    let bad = Scenario::from_value(&scenario(json!({"limits": {"max_evnts": 5}}))).unwrap_err();
    assert_eq!(bad.path, "limits.max_evnts");
}

#[test]
fn a_run_stops_when_its_caller_asks() {
    // 20 s of 5 Mbps: about 50,000 events, more than three stretches between polls.
    let s = Scenario::from_value(&scenario(json!({"duration": "20s"}))).unwrap();
    let mut sim = Simulation::new(&s, None);
    let mut polls = 0;
    let stopped = sim.run_until(s.duration, &mut || {
        polls += 1;
        polls == 3
    });
    assert!(matches!(stopped, Err(aqmlab_sim::sim::Stop::Interrupted)));
    // Polled every 16384 events: stopped after two full stretches.
    assert_eq!(sim.events_processed(), 2 << 14);
}

/// A saturated link whose warm-up ends in the middle of a packet (1500 B take 1.2 ms at 10 Mbps),
/// logged in intervals that are no multiple of the packet time.
fn saturated() -> Value {
    scenario(json!({
        "duration": "1.1s", "warmup": "1.0006s",
        "traffic": [{"kind": "cbr", "rate": "20Mbps", "size": "1500B"}],
        "measure": {"link_interval": "10ms"}
    }))
}

#[test]
fn utilization_never_exceeds_one() {
    let r = run(&saturated(), None);
    let b = &r.summary.links["forward"];
    // Whole packets counted where they completed gave 1.006 here (one packet in 99.4 ms); the one
    // in transmission at the end is not counted.
    assert!(
        b.utilization <= 1.0 && b.utilization > 0.98,
        "{}",
        b.utilization
    );
    assert!(b.wire_utilization <= 1.0, "{}", b.wire_utilization);
    let util = floats(&r, "link", "utilization");
    // Per interval they gave 0.96 and 1.08 in turn; spread over transmission time, each full
    // interval of a busy link is 1 less a partial byte.
    assert!(util.iter().all(|&u| u <= 1.0), "{util:?}");
    assert!(util[..9].iter().all(|&u| u > 0.9999), "{util:?}");
}

#[test]
fn a_packet_sent_across_the_whole_measured_period_is_in_no_count() {
    // At 1 bps a 1,000-byte packet takes 8,000 s: the one in transmission as the warm-up ends
    // is still being sent when the run ends. Taking its part sent before the warm-up off what the
    // measured period completed (nothing) would wrap below zero and report about 4.9e19 bps;
    // `run` asserts the identities.
    for (warmup, size) in [("1s", "1000B"), ("3.999s", "1B"), ("0s", "1000B")] {
        let v = scenario(json!({
            "duration": "4s", "warmup": warmup,
            "topology": {"bottleneck": {"rate": "1bps"}},
            "traffic": [{"kind": "pareto", "rate": "1Mbps", "size": size}]
        }));
        let b = run(&v, None).summary.links["forward"].clone();
        assert_eq!(
            (b.throughput_bps, b.utilization, b.wire_utilization),
            (0.0, 0.0, 0.0)
        );
    }
}

#[test]
fn packets_are_conserved_across_the_warm_up() {
    let r = run(&saturated(), None);
    let b = &r.summary.links["forward"];
    // The queue was full (50 packets) as the warm-up ended: they left in the measured period.
    assert_eq!(b.backlog_start_pkts, 50);
    assert_eq!(
        b.arrivals_pkts + b.backlog_start_pkts,
        b.departures_pkts + b.drops_pkts + b.backlog_end_pkts
    );
}

/// Every float of `a` and `b` (the same shape) has the same bits.
fn same_floats(a: &Value, b: &Value, path: &str) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                same_floats(v, &y[k], &format!("{path}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, v) in x.iter().enumerate() {
                same_floats(v, &y[i], &format!("{path}[{i}]"));
            }
        }
        (Value::Number(x), Value::Number(y)) if x.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert_eq!(x.to_bits(), y.to_bits(), "{path}: {x:e} became {y:e}");
        }
        _ => assert_eq!(a, b, "{path}"),
    }
}

#[test]
fn summary_floats_survive_json_exactly() {
    let v = scenario(json!({
        "warmup": "1.3s",
        "traffic": [{"kind": "poisson", "rate": "3.3Mbps", "flows": 3},
                    {"kind": "ftp", "flows": 2}]
    }));
    let summary = run(&v, Some(7)).summary;
    let exact = serde_json::to_value(&summary).unwrap();
    let text = serde_json::to_string(&summary).unwrap();
    same_floats(&exact, &serde_json::from_str(&text).unwrap(), "summary");
    // Floats in scenarios too: the engine must read what the front wrote. A sweep of doubles
    // whose shortest text serde_json's fast path reads back one unit in the last place off.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..100_000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let f = f64::from_bits(x >> 2); // positive, finite
        let back: f64 = serde_json::from_str(&serde_json::to_string(&f).unwrap()).unwrap();
        assert_eq!(f.to_bits(), back.to_bits(), "{f:e}");
    }
}

#[test]
fn a_limit_raised_past_the_machine_is_an_error_not_an_abort() {
    // 100,000 hours logged every 100 ms: about 110 TB of tables. With the limit raised to
    // 1 PB the allocation aborted the process (SIGABRT); the memory available is checked too.
    let v = scenario(json!({
        "duration": "100000h",
        "traffic": [{"kind": "ftp", "size": "10KB"}],
        "limits": {"max_table_memory": "1000000GB"}
    }));
    let e = stops(&v);
    assert_eq!(e.path, "limits.max_table_memory");
    assert!(
        e.message.contains("memory this machine has available"),
        "{e}"
    );
}

#[test]
fn an_empirical_table_is_capped_in_rows_and_the_cap_can_be_raised() {
    let rows: Vec<Value> = (1..=100_001)
        .map(|i| json!([i, f64::from(i) / 100_001.0]))
        .collect();
    let mut v = scenario(json!({"traffic": [{
        "kind": "ftp", "size": {"dist": "empirical", "table": rows}
    }]}));
    let e = Scenario::from_value(&v).expect_err("over the default cap");
    assert_eq!(e.path, "traffic[0].size.table");
    assert!(e
        .message
        .starts_with("has 100001 rows, more than limits.max_cdf_rows (100000)"));
    v["limits"] = json!({"max_cdf_rows": 200_000});
    v["traffic"][0]["size"]["table"] = json!(rows);
    assert!(Scenario::from_value(&v).is_ok());
}
