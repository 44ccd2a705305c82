//! One syntax for every drawn size or time of a traffic group (`docs/scenario.md`,
//! "Distributions"), read into [`crate::traffic::dist::Dist`]: a bare value (its meaning is the
//! field's: a constant, or an exponential's mean) or a table
//! `{ dist = "constant" | "uniform" | "exponential" | "pareto" | "lognormal" | "weibull" |
//! "empirical", … }`.

use super::reader::{
    choice, duration, expected, integer, number_above, size, string, Fields, Result,
};
use super::ScenarioError;
use crate::traffic::dist::{Bare, Dist, Law, ParetoBy, Unit};
use crate::traffic::empirical::{Empirical, Interpolation};
use serde_json::Value;
use std::sync::Arc;

/// The largest empirical table read (rows): ns-2's tables have tens to thousands.
const MAX_ROWS: usize = 1_000_000;

/// A quantity of the field's unit, in base units (bytes, ns, things).
fn quantity(unit: Unit) -> impl Fn(&Value, &str) -> Result<u64> {
    move |v, p| match unit {
        Unit::Size => size(v, p).map(|s| s.bytes()),
        Unit::Time => duration(v, p).map(|t| t.0),
        Unit::Count => integer(0, u64::from(u32::MAX))(v, p),
    }
}

/// A quantity above zero (a mean or a scale).
fn positive(unit: Unit) -> impl Fn(&Value, &str) -> Result<u64> {
    move |v, p| match quantity(unit)(v, p)? {
        0 => Err(ScenarioError::new(p, "expected a value above zero")),
        x => Ok(x),
    }
}

/// Read a field's distribution: a bare size/duration means what `bare` says; a table names its
/// law and parameters. What a field does with its draws (rounding, a minimum) is the field's.
pub fn parse_dist(v: &Value, path: &str, unit: Unit, bare: Bare) -> Result<Dist> {
    let dist = |law| Dist { law, unit, bare };
    if !v.is_object() {
        let x = match bare {
            Bare::Constant => quantity(unit)(v, path),
            Bare::ExponentialMean | Bare::ParetoMean(_) => positive(unit)(v, path),
        };
        return x.map(|x| Dist::bare(x, unit, bare)).map_err(|e| {
            let what = match unit {
                Unit::Size => "sizes like \"1500B\"",
                Unit::Time => "durations like \"10ms\"",
                Unit::Count => "whole numbers like 3",
            };
            ScenarioError::new(
                e.path,
                format!("{} (or a table {{ dist = \"…\", … }} of {what})", e.message),
            )
        });
    }
    let mut f = Fields::of(v, path)?;
    let name = f.req(
        "dist",
        choice(&[
            "constant",
            "uniform",
            "exponential",
            "pareto",
            "lognormal",
            "weibull",
            "empirical",
        ]),
    )?;
    let law = match name {
        "constant" => Law::Constant(f.req("value", quantity(unit))?),
        "uniform" => {
            let (min, max) = (f.req("min", quantity(unit))?, f.req("max", quantity(unit))?);
            if min > max {
                return Err(ScenarioError::new(f.key_path("min"), "expected min ≤ max"));
            }
            Law::Uniform { min, max }
        }
        "exponential" => Law::Exponential {
            mean: f.req("mean", positive(unit))?,
        },
        "pareto" => {
            let shape = f.req("shape", number_above(0.0))?;
            let mean = f.opt("mean", positive(unit))?;
            let scale = f.opt("scale", positive(unit))?;
            let by = match (mean, scale) {
                (Some(m), None) => {
                    if shape <= 1.0 {
                        return Err(ScenarioError::new(
                            f.key_path("shape"),
                            format!("expected shape > 1 with a mean (a Pareto with shape ≤ 1 has no finite mean; give `scale` instead), got {shape}"),
                        ));
                    }
                    ParetoBy::Mean(m)
                }
                (None, Some(s)) => ParetoBy::Scale(s),
                _ => {
                    return Err(ScenarioError::new(
                        path,
                        "expected exactly one of `mean` and `scale`",
                    ))
                }
            };
            Law::Pareto { shape, by }
        }
        "lognormal" => Law::Lognormal {
            mean: f.req("mean", positive(unit))?,
            sigma: f.req("sigma", number_above(0.0))?,
        },
        "weibull" => Law::Weibull {
            shape: f.req("shape", number_above(0.0))?,
            scale: f.req("scale", positive(unit))?,
        },
        _ => {
            let interpolation = match f.or("interpolation", "step", choice(&["step", "linear"]))? {
                "linear" => Interpolation::Linear,
                _ => Interpolation::Step,
            };
            let file = f.or("file", String::new(), string)?;
            let table_path = f.key_path("table");
            let table = match f.get("table") {
                Some(t) => parse_table(t, &table_path)?,
                None if file.is_empty() => {
                    return Err(ScenarioError::new(
                        table_path,
                        "required key is missing (give `file`, a CDF file beside the scenario, or `table`)",
                    ))
                }
                None => {
                    return Err(ScenarioError::new(
                        f.key_path("file"),
                        format!("the file \"{file}\" was not read: empirical files are read by the front end (aqmlab.scenario) into `table`"),
                    ))
                }
            };
            Law::Empirical {
                file,
                table: Arc::new(table.with_interpolation(interpolation)),
            }
        }
    };
    f.finish()?;
    Ok(dist(law))
}

/// An empirical table: the text of a CDF file, or a list of `[value, cdf]` rows.
fn parse_table(v: &Value, path: &str) -> Result<Empirical> {
    let bad = |m: String| ScenarioError::new(path, m);
    match v {
        Value::String(text) => Empirical::parse(text).map_err(bad),
        Value::Array(rows) if rows.len() <= MAX_ROWS => {
            let rows = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    match r.as_array().map(|r| r.as_slice()) {
                        Some([v, p]) => v.as_f64().zip(p.as_f64()).ok_or(()),
                        _ => Err(()),
                    }
                    .map_err(|_| expected(&format!("{path}[{i}]"), "a row [value, cdf]", r))
                })
                .collect::<Result<Vec<_>>>()?;
            Empirical::from_rows(&rows, Interpolation::Step).map_err(bad)
        }
        other => Err(expected(
            path,
            &format!("a CDF file's text or a list of at most {MAX_ROWS} [value, cdf] rows"),
            other,
        )),
    }
}
