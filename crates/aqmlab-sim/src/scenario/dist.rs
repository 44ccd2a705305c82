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
use crate::units::{Size, Time};
use serde_json::Value;
use std::sync::Arc;

/// The most rows `limits.max_cdf_rows` may allow: ns-2's tables have tens to thousands.
pub const MAX_ROWS: usize = 1_000_000;

/// Refuse an empirical table (under `traffic`, at `path`) of more than `max_rows` rows, before
/// it is read: a table of a million rows took 42 s, 658 MB and an 81 MB `summary.json`, which
/// embeds it. A CDF file's text counts its lines that are not blank or comments.
pub fn check_table_rows(traffic: &Value, path: &str, max_rows: u64) -> Result<()> {
    let mut stack = vec![(traffic, path.to_string(), 0)];
    while let Some((v, at, depth)) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.get("dist").and_then(Value::as_str) == Some("empirical") {
                    let rows = match map.get("table") {
                        Some(Value::Array(rows)) => rows.len(),
                        Some(Value::String(text)) => text
                            .lines()
                            .filter(|l| !l.trim().is_empty() && !l.trim().starts_with('#'))
                            .count(),
                        _ => 0,
                    };
                    if rows as u64 > max_rows {
                        return Err(ScenarioError::new(
                            format!("{at}.table"),
                            format!("has {rows} rows, more than limits.max_cdf_rows ({max_rows}); thin the table, or raise limits.max_cdf_rows (at most {MAX_ROWS})"),
                        ));
                    }
                } else if depth < 8 {
                    stack.extend(map.iter().map(|(k, x)| (x, format!("{at}.{k}"), depth + 1)));
                }
            }
            Value::Array(items) if depth < 8 => {
                stack.extend(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, x)| (x, format!("{at}[{i}]"), depth + 1)),
                );
            }
            _ => {}
        }
    }
    Ok(())
}

/// A quantity of `unit`, in base units, as the scenario language writes it: "1500B", "10ms", "3".
fn shown(x: u64, unit: Unit) -> String {
    match unit {
        Unit::Size => Size(x).to_string(),
        Unit::Time => Time(x).to_string(),
        Unit::Count => x.to_string(),
    }
}

/// The values a field's draws may take, in base units (bytes, ns, things), both ends included:
/// a size at least 1 byte (0 where an empty reply means something) and within what the field can
/// carry, a time at least 0, a count at least 1. A distribution whose values fall outside (a
/// constant, a uniform's bounds, a row of an empirical table, a mean or a scale) is refused,
/// naming its key, rather than drawn and then clamped, which would leave the rate a group
/// offers (computed from the mean) wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Support {
    pub min: u64,
    pub max: u64,
}

impl Support {
    /// Sizes of at least `min` bytes and at most `max`.
    pub const fn bytes(min: u64, max: u64) -> Support {
        Support { min, max }
    }

    /// Any time from 0.
    pub const TIMES: Support = Support {
        min: 0,
        max: u64::MAX,
    };

    /// Counts of at least one.
    pub const COUNTS: Support = Support {
        min: 1,
        max: u32::MAX as u64,
    };

    /// Whether `x` base units lie within.
    fn holds(self, x: f64) -> bool {
        x >= self.min as f64 && x <= self.max as f64
    }

    /// What the error says is expected: "sizes from 1B to 65535B", "times from 0s".
    fn describe(self, unit: Unit) -> String {
        let show = |x| shown(x, unit);
        let what = match unit {
            Unit::Size => "sizes",
            Unit::Time => "times",
            Unit::Count => "counts",
        };
        if self.max == u64::MAX {
            let base = if unit == Unit::Time { "ns" } else { "B" };
            format!(
                "{what} of at least {} (and below 2^64 {base})",
                show(self.min)
            )
        } else {
            format!("{what} from {} to {}", show(self.min), show(self.max))
        }
    }

    /// Check a distribution's values (`law`, of `unit`) against the support; `at` gives the
    /// path of a key of the distribution's table (or of the bare value itself).
    fn check(self, law: &Law, unit: Unit, at: &dyn Fn(&str) -> String) -> Result<()> {
        let out = |key: String, got: String| {
            Err(ScenarioError::new(
                key,
                format!("expected {}, got {got}", self.describe(unit)),
            ))
        };
        let shown = |x| shown(x, unit);
        match law {
            Law::Constant(v) if !self.holds(*v as f64) => out(at("value"), shown(*v)),
            Law::Uniform { min, .. } if !self.holds(*min as f64) => out(at("min"), shown(*min)),
            Law::Uniform { max, .. } if !self.holds(*max as f64) => out(at("max"), shown(*max)),
            Law::Exponential { mean } | Law::Lognormal { mean, .. } if *mean > self.max => {
                out(at("mean"), shown(*mean))
            }
            Law::Pareto {
                by: ParetoBy::Mean(m),
                ..
            } if *m > self.max => out(at("mean"), shown(*m)),
            Law::Pareto {
                by: ParetoBy::Scale(s),
                ..
            }
            | Law::Weibull { scale: s, .. }
                if *s > self.max =>
            {
                out(at("scale"), shown(*s))
            }
            Law::Empirical { table, .. } => {
                let scale = unit.table_scale();
                match table
                    .rows()
                    .enumerate()
                    .find(|(_, (v, _))| !self.holds(v * scale))
                {
                    Some((i, (v, _))) => out(
                        format!("{}[{i}]", at("table")),
                        format!(
                            "{} (a value of the table, in {})",
                            table_value(v),
                            unit.table_unit()
                        ),
                    ),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }
}

/// A table's value as an error shows it: `-100`, `0.5`, `1e300`.
fn table_value(v: f64) -> String {
    if v.abs() < 1e15 {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}

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
pub fn parse_dist(v: &Value, path: &str, unit: Unit, bare: Bare, support: Support) -> Result<Dist> {
    let dist = |law| Dist { law, unit, bare };
    if !v.is_object() {
        let x = match bare {
            Bare::Constant => quantity(unit)(v, path),
            Bare::ExponentialMean | Bare::ParetoMean(_) => positive(unit)(v, path),
        };
        let d = x.map(|x| Dist::bare(x, unit, bare)).map_err(|e| {
            let what = match unit {
                Unit::Size => "sizes like \"1500B\"",
                Unit::Time => "durations like \"10ms\"",
                Unit::Count => "whole numbers like 3",
            };
            ScenarioError::new(
                e.path,
                format!("{} (or a table {{ dist = \"…\", … }} of {what})", e.message),
            )
        })?;
        support.check(&d.law, unit, &|_| path.to_string())?;
        return Ok(d);
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
    support.check(&law, unit, &|key| f.key_path(key))?;
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
