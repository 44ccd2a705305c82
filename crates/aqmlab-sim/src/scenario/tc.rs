//! The words of a Linux `tc qdisc` argument list, shared by the `tc` keys of every queue kind:
//! one walker, and tc's own spellings of counts, times, sizes and rates (iproute2). A queue size
//! may also be a BDP or a time (`limit 2bdp`, `min 5ms`), as in the queue table's keys
//! ([`SizeBasis`]).

use super::queue_size::SizeBasis;
use super::reader::{Result, ScenarioError};
use crate::units::{Rate, Size, Time};

/// A tc argument list, word by word: a parser takes each `word`, and for a word that takes a
/// value, the next one with [`TcWords::value`]; flags (`ecn`) take none.
pub struct TcWords<'a> {
    words: std::str::SplitWhitespace<'a>,
    /// The `tc` key's path, for errors.
    pub path: &'a str,
    /// What queue sizes written as a BDP or a time resolve with.
    sizes: &'a SizeBasis,
}

impl<'a> TcWords<'a> {
    pub fn new(line: &'a str, path: &'a str, sizes: &'a SizeBasis) -> TcWords<'a> {
        TcWords {
            words: line.split_whitespace(),
            path,
            sizes,
        }
    }

    /// The value of `word`, a queue size in packets: a whole number ≥ 1, or a BDP or a time.
    pub fn packets(&mut self, word: &str) -> Result<u64> {
        let v = self.value(word)?;
        match self.sizes.packets(v, self.path, &format!("tc: {word}: "))? {
            Some(n) => Ok(n),
            None => tc_count(v, word, self.path),
        }
    }

    /// The value of `word`, a queue size in bytes: a tc size, or a BDP or a time (the bytes of
    /// its packets).
    pub fn bytes(&mut self, word: &str) -> Result<u64> {
        let v = self.value(word)?;
        match self.sizes.bytes(v, self.path, &format!("tc: {word}: "))? {
            Some(n) => Ok(n),
            None => tc_size(v, self.path),
        }
    }

    /// The next word, if any.
    pub fn word(&mut self) -> Option<&'a str> {
        self.words.next()
    }

    /// The value of `word`: the word after it.
    pub fn value(&mut self, word: &str) -> Result<&'a str> {
        self.words
            .next()
            .ok_or_else(|| ScenarioError::new(self.path, format!("tc: \"{word}\" needs a value")))
    }

    /// The error for a word this kind of queue does not have.
    pub fn unknown(&self, word: &str) -> ScenarioError {
        ScenarioError::new(self.path, format!("tc: unknown word \"{word}\""))
    }
}

/// A tc whole number of at least 1.
pub fn tc_count(word: &str, what: &str, path: &str) -> Result<u64> {
    word.parse::<u64>().ok().filter(|&n| n >= 1).ok_or_else(|| {
        ScenarioError::new(
            path,
            format!("tc: {what} takes a whole number ≥ 1, got \"{word}\""),
        )
    })
}

/// A tc time (iproute2 `get_time`): a number with `s`/`sec`/`secs`, `ms`/`msec`/`msecs`,
/// `us`/`usec`/`usecs`, or none for microseconds; tc keeps whole microseconds.
pub fn tc_time(word: &str, path: &str) -> Result<Time> {
    let split = word
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(word.len());
    let (number, unit) = word.split_at(split);
    let us_per = match unit {
        "s" | "sec" | "secs" => 1e6,
        "ms" | "msec" | "msecs" => 1e3,
        "" | "us" | "usec" | "usecs" => 1.0,
        _ => f64::NAN,
    };
    number
        .parse::<f64>()
        .ok()
        .map(|x| (x * us_per).floor())
        .filter(|us| us.is_finite() && *us >= 1.0 && *us < 1e12)
        .map(|us| Time::from_micros(us as u64))
        .ok_or_else(|| {
            ScenarioError::new(
                path,
                format!("tc: expected a time like \"5ms\", got \"{word}\""),
            )
        })
}

/// A tc size: bytes, tc's k/kb/m/mb (×1024, as tc reads them: "15KB" is 15360 bytes), or one of
/// our other size units ("15KiB", "1500B").
pub fn tc_size(word: &str, path: &str) -> Result<u64> {
    let lower = word.to_ascii_lowercase();
    for (suffix, k) in [
        ("kb", 1024u64),
        ("k", 1024),
        ("mb", 1 << 20),
        ("m", 1 << 20),
    ] {
        if let Some(n) = lower.strip_suffix(suffix) {
            if let Ok(n) = n.parse::<u64>() {
                return Ok(n * k);
            }
        }
    }
    if let Ok(n) = word.parse::<u64>() {
        return Ok(n);
    }
    Size::parse(word)
        .map(|s| s.bytes())
        .map_err(|_| ScenarioError::new(path, format!("expected a tc size, got \"{word}\"")))
}

/// A tc rate in bits: bit, kbit, mbit, gbit (tc's "bps" means bytes per second, so it is refused).
pub fn tc_rate(word: &str, path: &str) -> Result<Rate> {
    let lower = word.to_ascii_lowercase();
    for (suffix, k) in [
        ("gbit", 1_000_000_000u64),
        ("mbit", 1_000_000),
        ("kbit", 1_000),
        ("bit", 1),
    ] {
        if let Some(n) = lower.strip_suffix(suffix) {
            if let Ok(n) = n.parse::<u64>() {
                return Ok(Rate(n * k));
            }
        }
    }
    Err(ScenarioError::new(
        path,
        format!("expected a tc rate in bits like \"10mbit\", got \"{word}\""),
    ))
}
