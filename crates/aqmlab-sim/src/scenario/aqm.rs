//! `kind = "codel"`, `"pie"`, `"fq_codel"`: their keys with Linux tc's defaults, or a Linux `tc`
//! argument list (tc-codel(8), tc-pie(8), tc-fq_codel(8)), and `tc` lines of drop-tail queues
//! (tc-pfifo(8): `pfifo`, `bfifo`).

use super::queue_size::SizeBasis;
use super::reader::{
    boolean, integer, positive_duration, size, string, Fields, Result, ScenarioError,
};
use super::tc::{tc_count, tc_size, tc_time, TcWords};
use crate::queue::{CodelConfig, FqCodelConfig, PieConfig};
use crate::units::QueueLimit;
use serde_json::Value;

/// The reader of a limit in packets: written like the other kinds' (`"1000p"`, or a BDP or a time
/// the basis resolved, [`SizeBasis::limit`]), or as the resolved scenario writes it, a whole
/// number (`1000`).
fn packet_limit(sizes: &SizeBasis) -> impl Fn(&Value, &str) -> Result<u64> + '_ {
    move |v, path| {
        if v.is_number() {
            return integer(1, u64::MAX)(v, path);
        }
        match sizes.limit(v, path)? {
            QueueLimit::Packets(n) => Ok(n),
            QueueLimit::Bytes(_) => Err(ScenarioError::new(
                path,
                format!(
                    "expected a limit in packets like \"1000p\" (this queue counts packets), got {v}"
                ),
            )),
        }
    }
}

/// Read a `kind = "codel"` table (its `kind` already read): `tc`, then any key over it.
pub fn parse_codel(f: &mut Fields, sizes: &SizeBasis) -> Result<CodelConfig> {
    let tc_path = f.key_path("tc");
    let mut s = CodelConfig::default();
    if let Some(line) = f.opt("tc", string)? {
        let mut tc = TcWords::new(&line, &tc_path, sizes)?;
        while let Some(word) = tc.word() {
            codel_word(&mut s, word, &mut tc)?;
        }
    }
    codel_keys(f, &mut s, sizes)?;
    Ok(s)
}

/// The CoDel keys over `s`.
fn codel_keys(f: &mut Fields, s: &mut CodelConfig, sizes: &SizeBasis) -> Result<()> {
    s.limit = f.or("limit", s.limit, packet_limit(sizes))?;
    s.target = f.or("target", s.target, positive_duration)?;
    s.interval = f.or("interval", s.interval, positive_duration)?;
    s.ecn = f.or("ecn", s.ecn, boolean)?;
    Ok(())
}

/// A word of tc-codel(8) (also of tc-fq_codel(8)).
fn codel_word(s: &mut CodelConfig, word: &str, tc: &mut TcWords) -> Result<()> {
    let path = tc.path;
    match word {
        "limit" => s.limit = tc.packets(word)?,
        "target" => s.target = tc_time(tc.value(word)?, path)?,
        "interval" => s.interval = tc_time(tc.value(word)?, path)?,
        "ecn" => s.ecn = true,
        "noecn" => s.ecn = false,
        "ce_threshold" => {
            return Err(tc.unmodelled(
                word,
                "marking above a sojourn threshold, for DCTCP-like senders",
            ))
        }
        other => return Err(tc.unknown(other)),
    }
    Ok(())
}

/// The largest number of buckets Linux allows (`fq_codel_change`: 65536).
const MAX_FLOWS: u64 = 65536;
/// Linux raises a smaller quantum to 256 bytes; a scenario must say so itself.
const MIN_QUANTUM: u64 = 256;
/// Linux's `memory_limit` and `drop_batch` defaults (sch_fq_codel.c, `fq_codel_init`): a line may
/// carry them, as `tc qdisc show` prints them, but no other value (not modelled: see
/// queue/fq_codel.rs).
const LINUX_MEMORY_LIMIT: u64 = 32 << 20;
const LINUX_DROP_BATCH: u64 = 64;

/// Read a `kind = "fq_codel"` table (its `kind` already read): `tc`, then any key over it.
pub fn parse_fq_codel(f: &mut Fields, sizes: &SizeBasis) -> Result<FqCodelConfig> {
    let tc_path = f.key_path("tc");
    let mut s = FqCodelConfig::default();
    if let Some(line) = f.opt("tc", string)? {
        let path = tc_path.as_str();
        let mut quantum = u64::from(s.quantum);
        let mut tc = TcWords::new(&line, path, sizes)?;
        if tc.shown {
            // `tc qdisc show` prints "ecn" only when it is on (Linux's fq_codel default).
            s.codel.ecn = false;
        }
        while let Some(word) = tc.word() {
            match word {
                "memory_limit" => tc.only_default(
                    word,
                    LINUX_MEMORY_LIMIT,
                    tc_size,
                    "aqmlab counts packets, not the kernel's buffer memory",
                )?,
                "drop_batch" => tc.only_default(
                    word,
                    LINUX_DROP_BATCH,
                    |w, p| tc_count(w, "drop_batch", p),
                    "aqmlab drops one packet per overflow",
                )?,
                "flows" => {
                    s.flows = tc_count(tc.value(word)?, "flows", path)?.min(MAX_FLOWS + 1) as u32
                }
                "quantum" => quantum = tc_count(tc.value(word)?, "quantum", path)?,
                _ => codel_word(&mut s.codel, word, &mut tc)?,
            }
        }
        if u64::from(s.flows) > MAX_FLOWS || !(MIN_QUANTUM..=u64::from(u32::MAX)).contains(&quantum)
        {
            return Err(ScenarioError::new(
                path,
                format!("tc: expected flows 1 to {MAX_FLOWS} and quantum ≥ {MIN_QUANTUM}"),
            ));
        }
        s.quantum = quantum as u32;
    }
    codel_keys(f, &mut s.codel, sizes)?;
    s.flows = f.or("flows", u64::from(s.flows), integer(1, MAX_FLOWS))? as u32;
    s.quantum = f.or("quantum", s.quantum, |v, p| {
        let b = size(v, p)?.bytes();
        if !(MIN_QUANTUM..=u64::from(u32::MAX)).contains(&b) {
            return Err(ScenarioError::new(
                p,
                format!("expected a quantum of at least {MIN_QUANTUM}B, got {v}"),
            ));
        }
        Ok(b as u32)
    })?;
    Ok(s)
}

/// A drop-tail queue's `tc` line: `pfifo [limit PACKETS]` or `bfifo [limit BYTES]` (tc-pfifo(8)).
/// tc's default limit is the device's txqueuelen, which is not modelled, so `limit` is required.
pub fn tc_fifo(line: &str, path: &str, sizes: &SizeBasis) -> Result<QueueLimit> {
    let mut tc = TcWords::new(line, path, sizes)?;
    let Some(qdisc @ ("pfifo" | "bfifo")) = tc.qdisc else {
        return Err(ScenarioError::new(
            path,
            "tc: expected a pfifo or bfifo line, like \"pfifo limit 100\"",
        ));
    };
    let mut limit = None;
    while let Some(word) = tc.word() {
        match word {
            "limit" => {
                limit = Some(if qdisc == "pfifo" {
                    QueueLimit::Packets(tc.packets(word)?)
                } else {
                    QueueLimit::Bytes(tc.bytes(word)?)
                });
            }
            other => return Err(tc.unknown(other)),
        }
    }
    limit.ok_or_else(|| {
        ScenarioError::new(
            path,
            "tc: \"limit\" is required (tc's default, the device's txqueuelen, is not modelled)",
        )
    })
}

/// tc's alpha and beta: whole sixteenths from 0 to 32 (tc-pie(8)).
fn sixteenths(v: &Value, path: &str) -> Result<f64> {
    match v.as_f64() {
        Some(x) if (0.0..=2.0).contains(&x) && (x * 16.0).fract() == 0.0 => Ok(x),
        _ => Err(ScenarioError::new(
            path,
            format!("expected a multiple of 1/16 from 0 to 2 (tc's 0 to 32), got {v}"),
        )),
    }
}

/// Read a `kind = "pie"` table (its `kind` already read): `tc`, then any key over it.
pub fn parse_pie(f: &mut Fields, sizes: &SizeBasis) -> Result<PieConfig> {
    let tc_path = f.key_path("tc");
    let mut s = match f.opt("tc", string)? {
        Some(line) => tc_pie(&line, &tc_path, sizes)?,
        None => PieConfig::default(),
    };
    s.limit = f.or("limit", s.limit, packet_limit(sizes))?;
    s.target = f.or("target", s.target, positive_duration)?;
    s.tupdate = f.or("tupdate", s.tupdate, positive_duration)?;
    s.alpha = f.or("alpha", s.alpha, sixteenths)?;
    s.beta = f.or("beta", s.beta, sixteenths)?;
    s.ecn = f.or("ecn", s.ecn, boolean)?;
    Ok(s)
}

/// A Linux `tc qdisc … pie` argument list, as tc-pie(8) documents it (no `bytemode`, no
/// `dq_rate_estimator`: not modelled).
fn tc_pie(line: &str, path: &str, sizes: &SizeBasis) -> Result<PieConfig> {
    let mut s = PieConfig::default();
    let mut tc = TcWords::new(line, path, sizes)?;
    while let Some(word) = tc.word() {
        match word {
            "limit" => s.limit = tc.packets(word)?,
            "target" => s.target = tc_time(tc.value(word)?, path)?,
            "bytemode" => {
                return Err(tc.unmodelled(word, "PIE's drop probability scaled by packet size"))
            }
            "dq_rate_estimator" => {
                return Err(tc.unmodelled(
                    word,
                    "the dequeue-rate estimate of the queue delay; aqmlab's PIE, like Linux's default, \
                     times each packet's sojourn",
                ))
            }
            "tupdate" => s.tupdate = tc_time(tc.value(word)?, path)?,
            "alpha" | "beta" => {
                let value = tc.value(word)?;
                let n = value
                    .parse::<u8>()
                    .ok()
                    .filter(|&n| n <= 32)
                    .ok_or_else(|| {
                        ScenarioError::new(
                            path,
                            format!("tc: {word} takes 0 to 32, got \"{value}\""),
                        )
                    })?;
                let x = f64::from(n) / 16.0;
                if word == "alpha" {
                    s.alpha = x;
                } else {
                    s.beta = x;
                }
            }
            "ecn" => s.ecn = true,
            "noecn" => s.ecn = false,
            other => return Err(tc.unknown(other)),
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use crate::queue::config::QueueSpec;
    use crate::scenario::{Scenario, ScenarioError};
    use serde_json::{json, Value};

    fn queue(q: Value) -> Result<QueueSpec, ScenarioError> {
        let v = json!({"duration": "10s", "queue": q,
            "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}}});
        Scenario::from_value(&v).map(|s| s.queue.spec)
    }

    fn same(tc: Value, toml: Value) {
        assert_eq!(
            format!("{:?}", queue(tc).unwrap()),
            format!("{:?}", queue(toml).unwrap())
        );
    }

    #[test]
    fn every_aqm_resolves_to_keys_that_read_back_as_themselves() {
        for q in [
            json!({"kind": "codel"}),
            json!({"kind": "pie"}),
            json!({"kind": "fq_codel"}),
            json!({"kind": "fq_codel", "quantum": "300B", "flows": 64}),
        ] {
            let v = json!({"duration": "10s", "queue": q,
                "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}}});
            let resolved = Scenario::from_value(&v).unwrap().to_json();
            let again = Scenario::from_json(&resolved).unwrap_or_else(|e| panic!("{q}: {e}"));
            assert_eq!(again.to_json(), resolved);
        }
    }

    #[test]
    fn a_codel_tc_line_reads_as_the_same_keys() {
        same(
            json!({"kind": "codel", "tc": "limit 300 target 2ms interval 50ms ecn"}),
            json!({"kind": "codel", "limit": "300p", "target": "2ms", "interval": "50ms", "ecn": true}),
        );
        same(
            json!({"kind": "codel", "tc": "target 5000 interval 0.1s noecn"}),
            json!({"kind": "codel"}),
        );
        same(
            json!({"kind": "codel", "tc": "ecn", "target": "1ms"}),
            json!({"kind": "codel", "ecn": true, "target": "1ms"}),
        );
        let QueueSpec::Codel(c) = queue(json!({"kind": "codel"})).unwrap() else {
            panic!()
        };
        assert_eq!(
            (c.limit, c.target.0, c.interval.0, c.ecn),
            (1000, 5_000_000, 100_000_000, false)
        );
    }

    #[test]
    fn codel_refuses_what_it_does_not_know() {
        for (q, path) in [
            (
                json!({"kind": "codel", "tc": "ce_threshold 1ms"}),
                "queue.tc",
            ),
            (json!({"kind": "codel", "tc": "target"}), "queue.tc"),
            (json!({"kind": "codel", "tc": "target 5xs"}), "queue.tc"),
            (json!({"kind": "codel", "tc": "limit 0"}), "queue.tc"),
            (json!({"kind": "codel", "limit": "10KB"}), "queue.limit"),
            (json!({"kind": "codel", "target": "0s"}), "queue.target"),
            (json!({"kind": "codel", "p": 0.1}), "queue.p"),
        ] {
            assert_eq!(queue(q).unwrap_err().path, path);
        }
    }

    #[test]
    fn pfifo_and_bfifo_lines_read_as_droptail_limits() {
        same(
            json!({"kind": "droptail", "tc": "pfifo limit 30"}),
            json!({"kind": "droptail", "limit": "30p"}),
        );
        same(
            json!({"kind": "droptail", "tc": "bfifo limit 64000"}),
            json!({"kind": "droptail", "limit": "64000B"}),
        );
        for q in [
            json!({"kind": "droptail", "tc": "pfifo"}),
            json!({"kind": "droptail", "tc": "limit 3"}),
            json!({"kind": "droptail", "tc": "pfifo limit 3", "limit": "3p"}),
        ] {
            assert_eq!(queue(q).unwrap_err().path, "queue.tc");
        }
        let e = queue(json!({"kind": "droptail", "tc": "red limit 3"})).unwrap_err();
        assert_eq!(e.path, "queue.kind");
    }

    #[test]
    fn pie_and_fq_codel_tc_lines_read_as_the_same_keys() {
        same(
            json!({"kind": "pie", "tc": "limit 500 target 20ms tupdate 30ms alpha 4 beta 32 ecn"}),
            json!({"kind": "pie", "limit": "500p", "target": "20ms", "tupdate": "30ms",
                   "alpha": 0.25, "beta": 2.0, "ecn": true}),
        );
        same(
            json!({"kind": "pie", "tc": "target 15ms tupdate 15ms alpha 2 beta 20 noecn"}),
            json!({"kind": "pie"}),
        );
        same(
            json!({"kind": "fq_codel",
                   "tc": "limit 1000 flows 64 quantum 300 target 2ms interval 50ms noecn"}),
            json!({"kind": "fq_codel", "limit": "1000p", "flows": 64, "quantum": "300B",
                   "target": "2ms", "interval": "50ms", "ecn": false}),
        );
        same(
            json!({"kind": "fq_codel",
                   "tc": "limit 10240 flows 1024 quantum 1514 target 5ms interval 100ms ecn"}),
            json!({"kind": "fq_codel"}),
        );
        for (q, path) in [
            (json!({"kind": "pie", "tc": "alpha 33"}), "queue.tc"),
            (json!({"kind": "pie", "alpha": 0.1}), "queue.alpha"),
            (json!({"kind": "pie", "tc": "bytemode"}), "queue.tc"),
            (json!({"kind": "fq_codel", "tc": "quantum 100"}), "queue.tc"),
            (
                json!({"kind": "fq_codel", "tc": "memory_limit 16Mb"}),
                "queue.tc",
            ),
            (json!({"kind": "fq_codel", "flows": 0}), "queue.flows"),
            (
                json!({"kind": "fq_codel", "quantum": "100B"}),
                "queue.quantum",
            ),
        ] {
            assert_eq!(queue(q).unwrap_err().path, path);
        }
    }

    /// The four ways of writing a line read as the same queue; `kind` may then be left out.
    #[test]
    fn a_whole_command_a_bare_qdisc_and_a_show_line_read_as_the_arguments() {
        let keys = json!({"kind": "fq_codel", "limit": "2000p", "target": "3ms",
                          "interval": "40ms", "ecn": false});
        for tc in [
            "limit 2000 target 3ms interval 40ms noecn",
            "fq_codel limit 2000 target 3ms interval 40ms noecn",
            "tc qdisc add dev eth0 root fq_codel limit 2000 target 3ms interval 40ms noecn",
            "sudo tc qdisc replace dev eth0 root handle 1: fq_codel limit 2000 \\\n target 3ms \
             interval 40ms noecn",
            // tc-fq_codel(8), EXAMPLES: what `tc -s qdisc show` prints after the add above.
            "qdisc fq_codel 8003: dev eth0 root refcnt 2 limit 2000p flows 1024 quantum 1514 \
             target 3.0ms interval 40.0ms",
        ] {
            same(json!({"kind": "fq_codel", "tc": tc}), keys.clone());
            if tc.contains("fq_codel") {
                same(json!({"tc": tc}), keys.clone());
            }
        }
    }

    /// The lines of the tc man pages' EXAMPLES, each with the queue it sets up.
    #[test]
    fn the_man_pages_examples_read_as_their_queues() {
        // tc-codel(8).
        same(
            json!({"tc": "tc qdisc add dev eth0 root codel"}),
            json!({"kind": "codel"}),
        );
        same(
            json!({"tc": "qdisc codel 801b: dev eth0 root refcnt 2 limit 1000p target 5.0ms \
                          interval 100.0ms"}),
            json!({"kind": "codel"}),
        );
        same(
            json!({"tc": "tc qdisc add dev eth0 root codel limit 100 target 4ms interval 30ms ecn"}),
            json!({"kind": "codel", "limit": "100p", "target": "4ms", "interval": "30ms",
                   "ecn": true}),
        );
        same(
            json!({"tc": "qdisc codel 801c: dev eth0 root refcnt 2 limit 100p target 4.0ms \
                          interval 30.0ms ecn"}),
            json!({"kind": "codel", "limit": "100p", "target": "4ms", "interval": "30ms",
                   "ecn": true}),
        );
        // tc-fq_codel(8), and the line of a Linux box of today (memory_limit and drop_batch
        // at their defaults).
        same(
            json!({"tc": "tc qdisc add   dev eth0 root fq_codel"}),
            json!({"kind": "fq_codel"}),
        );
        same(
            json!({"tc": "qdisc fq_codel 0: root refcnt 2 limit 10240p flows 1024 quantum 1514 \
                          target 5ms interval 100ms memory_limit 32Mb ecn drop_batch 64"}),
            json!({"kind": "fq_codel", "ecn": true}),
        );
        // tc-pie(8): the kernel shows tupdate rounded to its jiffies; that is what it runs.
        same(
            json!({"tc": "tc qdisc add dev eth0 root pie"}),
            json!({"kind": "pie"}),
        );
        same(
            json!({"tc": "qdisc pie 8036: dev eth0 root refcnt 2 limit 100p target 20.0ms \
                          tupdate 32.0ms alpha 2 beta 20 ecn"}),
            json!({"kind": "pie", "limit": "100p", "target": "20ms", "tupdate": "32ms",
                   "ecn": true}),
        );
        // tc-pfifo(8).
        same(
            json!({"tc": "tc qdisc add dev eth0 root pfifo limit 30"}),
            json!({"kind": "droptail", "limit": "30p"}),
        );
        same(
            json!({"tc": "qdisc bfifo 1: dev eth0 root refcnt 2 limit 64Kb"}),
            json!({"kind": "droptail", "limit": "65536B"}),
        );
    }

    /// Each refusal names the word that would change what aqmlab does not model.
    #[test]
    fn lines_that_would_change_unmodelled_behaviour_are_refused_by_their_word() {
        for (q, word) in [
            (
                json!({"tc": "tc qdisc add dev eth0 root pie dq_rate_estimator"}),
                "dq_rate_estimator",
            ),
            (
                json!({"tc": "tc qdisc add dev eth0 root pie limit 100 target 50ms tupdate 30ms bytemode"}),
                "bytemode",
            ),
            (json!({"tc": "codel ce_threshold 1ms"}), "ce_threshold"),
            (json!({"tc": "fq_codel memory_limit 4Mb"}), "memory_limit"),
            (json!({"tc": "fq_codel drop_batch 32"}), "drop_batch"),
            (
                json!({"tc": "tc qdisc add dev eth0 stab overhead 24 root codel"}),
                "stab",
            ),
            (
                json!({"tc": "tc qdisc add dev eth0 root cake bandwidth 20Mbit"}),
                "cake",
            ),
            (
                json!({"tc": "qdisc fq 0: root refcnt 2 limit 10000p"}),
                "fq",
            ),
            (json!({"tc": "pfifo_fast"}), "pfifo_fast"),
            (json!({"tc": "tc qdisc del dev eth0 root"}), "del"),
            (
                json!({"tc": "tc qdisc add dev eth0 root"}),
                "names no qdisc",
            ),
            (json!({"tc": "tc qdisc add dev"}), "\"dev\" needs a value"),
            (
                json!({"kind": "codel", "tc": "fq_codel limit 10"}),
                "fq_codel",
            ),
        ] {
            let e = queue(q.clone()).unwrap_err();
            assert!(e.to_string().contains(word), "{q}: {e}");
        }
        let e = queue(json!({"kind": "codel", "tc": "pie"})).unwrap_err();
        assert_eq!(e.path, "queue.kind");
        assert!(queue(json!({"tc": "limit 100"})).unwrap_err().path == "queue.kind");
    }
}
