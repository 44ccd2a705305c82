//! A strict reader over a scenario's value tree: every lookup knows its key path, every error names
//! it, and a table with a key nobody asked for is an error listing the keys that were expected.

use crate::units::{QueueLimit, Rate, Size, Time};
use serde_json::{Map, Value};
use std::fmt;

/// A bad scenario: the key path (`queue.limit`, `traffic[2].rate`; empty for the whole file) and what
/// was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub path: String,
    pub message: String,
}

impl ScenarioError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

pub type Result<T> = std::result::Result<T, ScenarioError>;

/// `parent.key`, or `key` at the top.
pub fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// How a value reads in an error message: `"fifty" (a string)`, `-3 (a number)`, `a table`.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "nothing".into(),
        Value::Bool(b) => format!("{b} (a boolean)"),
        Value::Number(n) => format!("{n} (a number)"),
        Value::String(s) => format!("\"{s}\" (a string)"),
        Value::Array(_) => "a list".into(),
        Value::Object(_) => "a table".into(),
    }
}

pub fn expected(path: &str, what: &str, got: &Value) -> ScenarioError {
    ScenarioError::new(path, format!("expected {what}, got {}", describe(got)))
}

/// The keys of one table, read one by one; `finish` refuses any key that was never asked for.
pub struct Fields<'a> {
    path: String,
    map: &'a Map<String, Value>,
    known: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    /// Start reading `value` as a table at `path`.
    pub fn of(value: &'a Value, path: &str) -> Result<Fields<'a>> {
        match value {
            Value::Object(map) => Ok(Fields {
                path: path.to_string(),
                map,
                known: Vec::new(),
            }),
            other => Err(expected(path, "a table", other)),
        }
    }

    /// The path of `key` in this table.
    pub fn key_path(&self, key: &str) -> String {
        join(&self.path, key)
    }

    /// Look `key` up, recording it as a key this table may have.
    pub fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.known.push(key);
        self.map.get(key)
    }

    /// A required key, read with `parse`.
    pub fn req<T>(
        &mut self,
        key: &'static str,
        parse: impl Fn(&Value, &str) -> Result<T>,
    ) -> Result<T> {
        let path = self.key_path(key);
        match self.get(key) {
            Some(v) => parse(v, &path),
            None => Err(ScenarioError::new(path, "required key is missing")),
        }
    }

    /// An optional key, read with `parse` when present.
    pub fn opt<T>(
        &mut self,
        key: &'static str,
        parse: impl Fn(&Value, &str) -> Result<T>,
    ) -> Result<Option<T>> {
        let path = self.key_path(key);
        self.get(key).map(|v| parse(v, &path)).transpose()
    }

    /// An optional key with a default.
    pub fn or<T>(
        &mut self,
        key: &'static str,
        default: T,
        parse: impl Fn(&Value, &str) -> Result<T>,
    ) -> Result<T> {
        Ok(self.opt(key, parse)?.unwrap_or(default))
    }

    /// Refuse any key that was not asked for, naming it and the keys this table takes.
    pub fn finish(self) -> Result<()> {
        let mut unknown: Vec<&String> = self
            .map
            .keys()
            .filter(|k| !self.known.contains(&k.as_str()))
            .collect();
        unknown.sort();
        match unknown.first() {
            None => Ok(()),
            Some(key) => {
                let mut known = self.known.clone();
                known.sort_unstable();
                known.dedup();
                Err(ScenarioError::new(
                    join(&self.path, key),
                    format!("unknown key (this table takes: {})", known.join(", ")),
                ))
            }
        }
    }
}

/// A string.
pub fn string(v: &Value, path: &str) -> Result<String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        other => Err(expected(path, "a string", other)),
    }
}

/// One of a fixed set of strings.
pub fn choice(options: &'static [&'static str]) -> impl Fn(&Value, &str) -> Result<&'static str> {
    move |v, path| {
        let list = options
            .iter()
            .map(|o| format!("\"{o}\""))
            .collect::<Vec<_>>()
            .join(", ");
        match v {
            Value::String(s) => options
                .iter()
                .find(|o| **o == s.as_str())
                .copied()
                .ok_or_else(|| expected(path, &format!("one of {list}"), v)),
            other => Err(expected(path, &format!("one of {list}"), other)),
        }
    }
}

pub fn boolean(v: &Value, path: &str) -> Result<bool> {
    v.as_bool()
        .ok_or_else(|| expected(path, "true or false", v))
}

/// A whole number in `[min, max]`.
pub fn integer(min: u64, max: u64) -> impl Fn(&Value, &str) -> Result<u64> {
    move |v, path| {
        let what = if max == u64::MAX {
            format!("a whole number ≥ {min}")
        } else {
            format!("a whole number from {min} to {max}")
        };
        match v.as_u64() {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(expected(path, &what, v)),
        }
    }
}

/// A probability: a number in [0, 1].
pub fn probability(v: &Value, path: &str) -> Result<f64> {
    match v.as_f64() {
        Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(expected(path, "a probability from 0 to 1", v)),
    }
}

/// A number (integer or float) strictly greater than `min`.
pub fn number_above(min: f64) -> impl Fn(&Value, &str) -> Result<f64> {
    move |v, path| match v.as_f64() {
        Some(x) if x.is_finite() && x > min => Ok(x),
        _ => Err(expected(path, &format!("a number > {min}"), v)),
    }
}

fn unit_string<T>(
    v: &Value,
    path: &str,
    what: &str,
    parse: fn(&str) -> std::result::Result<T, String>,
) -> Result<T> {
    match v {
        Value::String(s) => parse(s).map_err(|m| ScenarioError::new(path, m)),
        other => Err(expected(path, what, other)),
    }
}

/// The longest duration a scenario may name: 100 000 h leaves ample headroom below `u64::MAX` ns
/// for sums of times, so the clock can never overflow.
const MAX_DURATION: Time = Time(100_000 * 3_600_000_000_000);

pub fn duration(v: &Value, path: &str) -> Result<Time> {
    let t = unit_string(v, path, "a duration string like \"79ms\"", Time::parse)?;
    if t > MAX_DURATION {
        return Err(ScenarioError::new(
            path,
            format!("expected a duration up to {MAX_DURATION}, got \"{t}\""),
        ));
    }
    Ok(t)
}

/// A duration strictly greater than zero.
pub fn positive_duration(v: &Value, path: &str) -> Result<Time> {
    let t = duration(v, path)?;
    if t == Time::ZERO {
        return Err(ScenarioError::new(
            path,
            "expected a duration > 0, got \"0s\"",
        ));
    }
    Ok(t)
}

/// A rate strictly greater than zero.
pub fn rate(v: &Value, path: &str) -> Result<Rate> {
    let r = unit_string(v, path, "a rate string like \"10Mbps\"", Rate::parse)?;
    if r.bps() == 0 {
        return Err(ScenarioError::new(path, "expected a rate > 0"));
    }
    Ok(r)
}

/// A size, zero allowed.
pub fn size_or_zero(v: &Value, path: &str) -> Result<Size> {
    unit_string(v, path, "a size string like \"1000B\"", Size::parse)
}

/// A size of at least one byte.
pub fn size(v: &Value, path: &str) -> Result<Size> {
    let s = size_or_zero(v, path)?;
    if s.bytes() == 0 {
        return Err(ScenarioError::new(path, "expected a size ≥ 1B"));
    }
    Ok(s)
}

/// A queue limit of at least one packet or one byte.
pub fn queue_limit(v: &Value, path: &str) -> Result<QueueLimit> {
    let l = unit_string(
        v,
        path,
        "a queue limit string like \"50p\" or \"64KB\"",
        QueueLimit::parse,
    )?;
    if matches!(l, QueueLimit::Packets(0) | QueueLimit::Bytes(0)) {
        return Err(ScenarioError::new(
            path,
            "expected a queue limit ≥ 1p or ≥ 1B",
        ));
    }
    Ok(l)
}

/// A list, each element read with `parse` at `path[i]`.
pub fn list<T>(
    parse: impl Fn(&Value, &str) -> Result<T>,
) -> impl Fn(&Value, &str) -> Result<Vec<T>> {
    move |v, path| match v {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| parse(item, &format!("{path}[{i}]")))
            .collect(),
        other => Err(expected(path, "a list", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_name_the_key_path() {
        let v = json!({"limit": "fifty", "extra": 1});
        let mut f = Fields::of(&v, "queue").unwrap();
        let e = f.req("limit", queue_limit).unwrap_err();
        assert_eq!(e.path, "queue.limit");
        assert!(e.message.contains("50p"), "{e}");
        let e = f.req("kind", string).unwrap_err();
        assert_eq!(e.to_string(), "queue.kind: required key is missing");
        let e = f.finish().unwrap_err();
        assert_eq!(e.path, "queue.extra");
        assert!(e.message.contains("kind, limit"), "{e}");
    }

    #[test]
    fn values_are_typed() {
        assert!(integer(1, 10)(&json!(0), "n").is_err());
        assert!(integer(1, 10)(&json!(1.5), "n").is_err());
        assert!(integer(1, 10)(&json!(-3), "n").is_err());
        assert_eq!(integer(1, 10)(&json!(10), "n"), Ok(10));
        assert!(number_above(1.0)(&json!(1), "s").is_err());
        assert_eq!(number_above(1.0)(&json!(1.5), "s"), Ok(1.5));
        assert!(duration(&json!(10), "d")
            .unwrap_err()
            .message
            .contains("10 (a number)"));
        assert!(rate(&json!("0Mbps"), "r").is_err());
        assert!(duration(&json!("100001h"), "d")
            .unwrap_err()
            .message
            .contains("100000h"));
        assert!(rate(&json!("-1Mbps"), "r").is_err());
        assert_eq!(choice(&["a", "b"])(&json!("b"), "c"), Ok("b"));
        assert!(choice(&["a", "b"])(&json!("z"), "c")
            .unwrap_err()
            .message
            .contains("\"a\", \"b\""));
        let e = list(duration)(&json!(["1ms", "x"]), "pd").unwrap_err();
        assert_eq!(e.path, "pd[1]");
    }
}
