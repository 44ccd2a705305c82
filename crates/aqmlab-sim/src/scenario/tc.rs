//! The words of a Linux `tc qdisc` line, shared by the `tc` keys of every queue kind: one walker,
//! and tc's own spellings of counts, times, sizes and rates (iproute2 `tc/tc_util.c`, `lib/utils.c`).
//! A queue size may also be a BDP or a time (`limit 2bdp`, `min 5ms`), as in the queue table's keys
//! ([`SizeBasis`]).
//!
//! A line may be written four ways, each read as the qdisc's argument list ([`TcWords::new`]):
//! - the arguments alone: `limit 1000 target 5ms` (the qdisc is the table's `kind`);
//! - the qdisc and its arguments: `fq_codel limit 1000`;
//! - the whole command as an operator types it: `tc qdisc add dev eth0 root fq_codel limit 1000`
//!   (`add`, `replace` or `change`; a leading `sudo` and shell line continuations are read past);
//! - a line as `tc qdisc show` prints it: `qdisc fq_codel 0: root refcnt 2 limit 10240p …`, with
//!   tc's printed units (`10240p`, `32Mb`, `5.0ms`).
//!
//! `dev`, `root`, `handle`, `refcnt` and `estimator` say where the qdisc sits or what tc counts, not
//! what it does, and are read past. `parent` is too: the scenario's bottleneck rate stands for
//! whatever feeds the qdisc (an HTB or TBF class above it, as in tc-red(8)'s example). `stab` (a
//! size table, which changes how packets are counted) is refused, as is a qdisc aqmlab does not
//! model, each by name.

use super::queue_size::SizeBasis;
use super::reader::{Result, ScenarioError};
use crate::units::{Rate, Size, Time};

/// The qdiscs a `tc` line may name, with the scenario `kind` each is read as (tc-pfifo(8),
/// tc-red(8), tc-codel(8), tc-pie(8), tc-fq_codel(8)).
pub const TC_QDISCS: [(&str, &str); 6] = [
    ("pfifo", "droptail"),
    ("bfifo", "droptail"),
    ("red", "red"),
    ("codel", "codel"),
    ("pie", "pie"),
    ("fq_codel", "fq_codel"),
];

/// Linux qdiscs aqmlab does not model (tc(8)): a line naming one is refused by name.
const UNMODELLED_QDISCS: [&str; 29] = [
    "pfifo_fast",
    "pfifo_head_drop",
    "fq",
    "fq_pie",
    "cake",
    "sfq",
    "tbf",
    "htb",
    "hfsc",
    "cbq",
    "prio",
    "ets",
    "drr",
    "qfq",
    "mq",
    "mqprio",
    "multiq",
    "netem",
    "choke",
    "sfb",
    "gred",
    "hhf",
    "taprio",
    "etf",
    "cbs",
    "skbprio",
    "dualpi2",
    "ingress",
    "clsact",
];

/// The scenario `kind` a tc qdisc name is read as, if aqmlab models it.
pub fn tc_kind(qdisc: &str) -> Option<&'static str> {
    TC_QDISCS
        .iter()
        .find(|(name, _)| *name == qdisc)
        .map(|(_, kind)| *kind)
}

/// A `tc` line taken apart: the qdisc it names (if any), its argument list, and whether it is
/// `tc qdisc show` output.
struct TcLine<'a> {
    qdisc: Option<&'a str>,
    args: Vec<&'a str>,
    shown: bool,
}

impl<'a> TcLine<'a> {
    fn of(line: &'a str, path: &str) -> Result<TcLine<'a>> {
        let mut words: Vec<&str> = line.split_whitespace().filter(|w| *w != "\\").collect();
        if words.first() == Some(&"sudo") {
            words.remove(0);
        }
        match words.as_slice() {
            ["tc", rest @ ..] => TcLine::command(rest, path),
            ["qdisc", _, handle, ..] if handle.ends_with(':') => TcLine::shown(&words, path),
            ["qdisc", ..] => TcLine::command(&words, path),
            [first, ..] if tc_kind(first).is_some() || UNMODELLED_QDISCS.contains(first) => {
                Ok(TcLine {
                    qdisc: Some(modelled(first, path)?),
                    args: words[1..].to_vec(),
                    shown: false,
                })
            }
            _ => Ok(TcLine {
                qdisc: None,
                args: words,
                shown: false,
            }),
        }
    }

    /// `qdisc add|replace|change [dev D] [root | parent P] [handle H] [estimator I T] QDISC ARGS`
    /// (tc/tc_qdisc.c), the words after `tc`.
    fn command(words: &[&'a str], path: &str) -> Result<TcLine<'a>> {
        let err = |msg: String| ScenarioError::new(path, format!("tc: {msg}"));
        if words.first() != Some(&"qdisc") {
            return Err(err(format!(
                "expected \"qdisc\" after \"tc\", got {}",
                quoted(words.first())
            )));
        }
        if !matches!(words.get(1), Some(&("add" | "replace" | "change"))) {
            return Err(err(format!(
                "expected add, replace or change after \"qdisc\", got {}",
                quoted(words.get(1))
            )));
        }
        let mut i = 2;
        loop {
            let takes = match words.get(i) {
                Some(&"root") => 0,
                Some(&("dev" | "parent" | "handle")) => 1,
                Some(&"estimator") => 2,
                Some(&"stab") => {
                    return Err(err(
                        "\"stab\" (a size table for tc's packet accounting) is not modelled"
                            .to_string(),
                    ))
                }
                Some(&word) if tc_kind(word).is_some() || UNMODELLED_QDISCS.contains(&word) => {
                    return Ok(TcLine {
                        qdisc: Some(modelled(word, path)?),
                        args: words[i + 1..].to_vec(),
                        shown: false,
                    })
                }
                Some(&word) => {
                    return Err(err(format!(
                        "unknown word \"{word}\" before the qdisc's name"
                    )))
                }
                None => return Err(err("the command names no qdisc".to_string())),
            };
            if words.len() <= i + takes {
                return Err(err(format!("\"{}\" needs a value", words[i])));
            }
            i += 1 + takes;
        }
    }

    /// `qdisc QDISC HANDLE: [dev D] (root | parent P) [refcnt N] ARGS`, as tc prints a qdisc
    /// (tc/tc_qdisc.c, `print_qdisc`).
    fn shown(words: &[&'a str], path: &str) -> Result<TcLine<'a>> {
        let qdisc = modelled(words[1], path)?;
        let mut i = 3;
        loop {
            match words.get(i) {
                Some(&("dev" | "parent" | "refcnt")) => i += 2,
                Some(&"root") => i += 1,
                _ => break,
            }
        }
        Ok(TcLine {
            qdisc: Some(qdisc),
            args: words.get(i..).unwrap_or_default().to_vec(),
            shown: true,
        })
    }
}

/// `word` in quotes, or "nothing".
fn quoted(word: Option<&&str>) -> String {
    word.map_or("nothing".to_string(), |w| format!("\"{w}\""))
}

/// `qdisc`, if aqmlab models it; otherwise the error that says so.
fn modelled<'a>(qdisc: &'a str, path: &str) -> Result<&'a str> {
    if tc_kind(qdisc).is_some() {
        return Ok(qdisc);
    }
    let what = if UNMODELLED_QDISCS.contains(&qdisc) {
        "is not modelled"
    } else {
        "is not a qdisc aqmlab knows"
    };
    Err(ScenarioError::new(
        path,
        format!(
            "tc: \"{qdisc}\" {what} (aqmlab has {})",
            TC_QDISCS.map(|(name, _)| name).join(", ")
        ),
    ))
}

/// The qdisc a `tc` line names, if it names one: `fq_codel` of `tc qdisc add dev eth0 root
/// fq_codel limit 100`, of `qdisc fq_codel 0: root refcnt 2 …` and of `fq_codel limit 100`.
pub fn tc_qdisc<'a>(line: &'a str, path: &str) -> Result<Option<&'a str>> {
    Ok(TcLine::of(line, path)?.qdisc)
}

/// A tc argument list, word by word: a parser takes each `word`, and for a word that takes a
/// value, the next one with [`TcWords::value`]; flags (`ecn`) take none.
pub struct TcWords<'a> {
    words: std::vec::IntoIter<&'a str>,
    /// The `tc` key's path, for errors.
    pub path: &'a str,
    /// What queue sizes written as a BDP or a time resolve with.
    sizes: &'a SizeBasis,
    /// The qdisc the line names (`pfifo`), if it names one.
    pub qdisc: Option<&'a str>,
    /// The line is `tc qdisc show` output, which prints only some of a qdisc's parameters.
    pub shown: bool,
}

impl<'a> TcWords<'a> {
    /// The argument list of `line`, written in any of the module's four ways.
    pub fn new(line: &'a str, path: &'a str, sizes: &'a SizeBasis) -> Result<TcWords<'a>> {
        let line = TcLine::of(line, path)?;
        Ok(TcWords {
            words: line.args.into_iter(),
            path,
            sizes,
            qdisc: line.qdisc,
            shown: line.shown,
        })
    }

    /// The value of `word`, a queue size in packets: a whole number ≥ 1 (`1000`, or `1000p` as
    /// `tc qdisc show` prints it), or a BDP or a time.
    pub fn packets(&mut self, word: &str) -> Result<u64> {
        let v = self.value(word)?;
        let v = v
            .strip_suffix('p')
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .unwrap_or(v);
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

    /// The error for a word Linux has and aqmlab does not model: `why` says what it would change.
    pub fn unmodelled(&self, word: &str, why: &str) -> ScenarioError {
        ScenarioError::new(self.path, format!("tc: \"{word}\" is not modelled ({why})"))
    }

    /// Read the value of `word` and accept it only at Linux's default `default` (a parameter aqmlab
    /// does not model, which a line may still carry at its default, as `tc qdisc show` prints it):
    /// `why` says what aqmlab does instead.
    pub fn only_default(
        &mut self,
        word: &str,
        default: u64,
        read: fn(&str, &str) -> Result<u64>,
        why: &str,
    ) -> Result<()> {
        let value = self.value(word)?;
        if read(value, self.path)? == default {
            Ok(())
        } else {
            Err(self.unmodelled(word, &format!("{why}; only Linux's default is accepted")))
        }
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

/// A tc size (iproute2 `get_size`): a number of bytes with no unit or `b`, or with tc's k/kb, m/mb,
/// g/gb (×1024: "15KB" is 15360 bytes; `tc qdisc show` prints "32Mb" and "30000b"), or one of
/// aqmlab's size units ("15KiB", "1500B").
pub fn tc_size(word: &str, path: &str) -> Result<u64> {
    let lower = word.to_ascii_lowercase();
    let split = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (number, unit) = lower.split_at(split);
    let scale = match unit {
        "" | "b" => Some(1u64),
        "k" | "kb" => Some(1 << 10),
        "m" | "mb" => Some(1 << 20),
        "g" | "gb" => Some(1 << 30),
        _ => None,
    };
    if let (Some(scale), Ok(n)) = (scale, number.parse::<f64>()) {
        let bytes = (n * scale as f64).floor();
        if bytes.is_finite() && bytes < 2f64.powi(63) {
            return Ok(bytes as u64);
        }
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
