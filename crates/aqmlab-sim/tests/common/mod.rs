//! Helpers shared by the engine's integration tests.
#![allow(dead_code)] // each test binary uses its own subset of these helpers

use aqmlab_sim::{Column, Report, Scenario, Simulation};
use serde_json::Value;

/// Run a scenario given as a JSON value and assert the counter identities held.
pub fn run(v: &Value, seed: Option<u64>) -> Report {
    let scenario = Scenario::from_value(v).unwrap_or_else(|e| panic!("bad test scenario: {e}"));
    let report = Simulation::new(&scenario, seed)
        .run()
        .unwrap_or_else(|e| panic!("the run stopped: {e}"));
    assert!(
        report.summary.checks.counter_identities,
        "{:?}",
        report.summary.checks.violations
    );
    report
}

/// A table's column of integers.
pub fn ints(r: &Report, table: &str, col: &str) -> Vec<i64> {
    match r.table(table).and_then(|t| t.column(col)) {
        Some(Column::I64(v)) => v.clone(),
        other => panic!("{table}.{col} is not an integer column: {other:?}"),
    }
}

/// The forward direction's rows of an integer column of the `queue` table, summed.
pub fn forward_sum(r: &Report, col: &str) -> u64 {
    let dirs = strings(r, "queue", "direction");
    ints(r, "queue", col)
        .iter()
        .zip(&dirs)
        .filter(|(_, d)| *d == "forward")
        .map(|(&x, _)| x as u64)
        .sum()
}

/// A table's column of floats.
pub fn floats(r: &Report, table: &str, col: &str) -> Vec<f64> {
    match r.table(table).and_then(|t| t.column(col)) {
        Some(Column::F64(v)) => v.clone(),
        other => panic!("{table}.{col} is not a float column: {other:?}"),
    }
}

/// A table's column of strings.
pub fn strings(r: &Report, table: &str, col: &str) -> Vec<String> {
    match r.table(table).and_then(|t| t.column(col)) {
        Some(Column::Str(v)) => v.to_vec(),
        other => panic!("{table}.{col} is not a string column: {other:?}"),
    }
}

/// Jain's fairness index of `x`: (Σx)² / (n·Σx²), 1 when all are equal, 1/n when one takes all.
pub fn jain(x: &[f64]) -> f64 {
    let (s, s2): (f64, f64) = (x.iter().sum(), x.iter().map(|v| v * v).sum());
    s * s / (x.len() as f64 * s2)
}
