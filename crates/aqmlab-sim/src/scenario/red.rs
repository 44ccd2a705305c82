//! `kind = "red"` queues: a RED profile (`ns2-2000`, `ns2-2003`, `ns2-2.35`, `altq`, `linux`; their
//! defaults are [`RedProfile`]'s) with any field overridden, or a Linux `tc` command line.
//! Automatic parameters are computed here, from the bottleneck's rate and delay, so the resolved
//! scenario records the numbers used.

use super::queue::QueueSite;
use super::queue_size::SizeBasis;
use super::reader::{
    boolean, choice, join, number_above, positive_duration, probability, queue_limit, size, string,
    Fields, Result, ScenarioError,
};
use super::tc::{tc_rate, tc_size, TcWords};
use crate::queue::red::{
    AdaptTiming, Adaptive, CountRule, IdleRule, RedConfig, RedProfile, Threshold, Victim, Weight,
    RED_PROFILES,
};
use crate::units::{QueueLimit, Rate, Size};
use serde_json::Value;

/// A profile's defaults as the scenario overrides them, before automatic values are resolved.
struct Draft {
    red: RedProfile,
    /// The key an error about the weight names: `w_q`; `min_th` for a tc burst rule, whose weight
    /// follows from the thresholds; `tc` for a tc command line.
    w_q_key: &'static str,
}

impl Draft {
    fn named(name: &str, link: Rate) -> Draft {
        let red = RedProfile::named(name, link).expect("choice() admits only RED_PROFILES");
        let w_q_key = match red.w_q {
            Weight::TcBurst(_) => "min_th",
            _ => "w_q",
        };
        Draft { red, w_q_key }
    }
}

/// A threshold: packets, bytes or `"auto"`; `resolved` is the packets a BDP or a time written in
/// the key came to ([`SizeBasis::resolved`]).
fn threshold(v: &Value, path: &str, resolved: Option<u64>) -> Result<Threshold> {
    let bad = || {
        ScenarioError::new(
            path,
            "expected packets (30 or \"30p\"), bytes (\"15KB\") or \"auto\"",
        )
    };
    match v {
        Value::String(s) if s == "auto" => Ok(Threshold::Auto),
        Value::Number(_) => Ok(Threshold::Packets(number_above(0.0)(v, path)?)),
        Value::String(_) => match resolved {
            Some(n) => Ok(Threshold::Packets(n as f64)),
            None => match queue_limit(v, path).map_err(|_| bad())? {
                QueueLimit::Packets(n) => Ok(Threshold::Packets(n as f64)),
                QueueLimit::Bytes(b) => Ok(Threshold::Bytes(b)),
            },
        },
        _ => Err(bad()),
    }
}

fn weight(v: &Value, path: &str) -> Result<Weight> {
    let bad = || {
        ScenarioError::new(
            path,
            "expected a weight in (0, 1): a number, \"1/512\", \"auto\" or \"ared\"",
        )
    };
    match v {
        Value::String(s) if s == "auto" => Ok(Weight::Ns2Auto),
        Value::String(s) if s == "ared" => Ok(Weight::Ared),
        Value::String(s) => {
            let (n, d) = s.split_once('/').ok_or_else(bad)?;
            let (n, d): (f64, f64) = (
                n.trim().parse().map_err(|_| bad())?,
                d.trim().parse().map_err(|_| bad())?,
            );
            let w = n / d;
            if w > 0.0 && w < 1.0 {
                Ok(Weight::Fixed(w))
            } else {
                Err(bad())
            }
        }
        Value::Number(_) => match v.as_f64() {
            Some(w) if w > 0.0 && w < 1.0 => Ok(Weight::Fixed(w)),
            _ => Err(bad()),
        },
        _ => Err(bad()),
    }
}

fn adaptive(v: &Value, path: &str, default: Adaptive) -> Result<Option<Adaptive>> {
    if let Some(on) = v.as_bool() {
        return Ok(on.then_some(default));
    }
    let mut f = Fields::of(v, path).map_err(|_| {
        ScenarioError::new(
            path,
            "expected true, false or a table of Adaptive RED settings",
        )
    })?;
    let a = Adaptive {
        interval: f.or("interval", default.interval, positive_duration)?,
        timing: f.or("timing", default.timing, |v, p| {
            Ok(match choice(&["on-arrival", "timer"])(v, p)? {
                "timer" => AdaptTiming::Timer,
                _ => AdaptTiming::OnArrival,
            })
        })?,
        top: f.or("top", default.top, probability)?,
        bottom: f.or("bottom", default.bottom, probability)?,
        alpha_max: f.or("alpha_max", default.alpha_max, probability)?,
        beta: f.or("beta", default.beta, probability)?,
        band: f.or("band", default.band, |v, p| {
            match v.as_array().map(|a| a.as_slice()) {
                Some([lo, hi]) => match (lo.as_f64(), hi.as_f64()) {
                    (Some(lo), Some(hi)) if 0.0 <= lo && lo < hi && hi <= 1.0 => Ok((lo, hi)),
                    _ => Err(ScenarioError::new(
                        p,
                        "expected [low, high] with 0 ≤ low < high ≤ 1",
                    )),
                },
                _ => Err(ScenarioError::new(
                    p,
                    "expected [low, high] with 0 ≤ low < high ≤ 1",
                )),
            }
        })?,
    };
    f.finish()?;
    let at = |k: &str| join(path, k);
    if a.bottom >= a.top {
        return Err(ScenarioError::new(
            at("bottom"),
            format!("expected bottom < top ({}), got {}", a.top, a.bottom),
        ));
    }
    if !(a.beta > 0.0 && a.beta < 1.0) {
        return Err(ScenarioError::new(
            at("beta"),
            format!("expected 0 < beta < 1, got {}", a.beta),
        ));
    }
    Ok(Some(a))
}

/// Read a `kind = "red"` table (its `kind` already read) of a queue on `site` (its link: the
/// bottleneck's, or a `[[link]]`'s).
pub fn parse_red(f: &mut Fields, site: &QueueSite, sizes: &SizeBasis) -> Result<RedConfig> {
    let link = site.rate;
    let tc_path = f.key_path("tc");
    let tc = f.opt("tc", string)?;
    let profile_path = f.key_path("profile");
    let named = f.opt("profile", choice(&RED_PROFILES))?;
    let mut d = match (&tc, named) {
        (Some(_), Some(_)) => {
            return Err(ScenarioError::new(
                profile_path,
                "a tc command line implies the linux profile; give one or the other",
            ))
        }
        (Some(line), None) => parse_tc(line, &tc_path, link, sizes)?,
        (None, name) => Draft::named(name.unwrap_or("ns2-2003"), link),
    };
    let r = &mut d.red;
    let s = &mut r.config;
    s.limit = f.or("limit", s.limit, |v, p| sizes.limit(v, p))?;
    r.min_th = f.or("min_th", r.min_th, |v, p| {
        threshold(v, p, sizes.resolved("min_th"))
    })?;
    r.max_th = f.or("max_th", r.max_th, |v, p| {
        threshold(v, p, sizes.resolved("max_th"))
    })?;
    s.max_p = f.or("max_p", s.max_p, |v, p| match v.as_f64() {
        Some(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(ScenarioError::new(
            p,
            format!("expected 0 < max_p ≤ 1, got {v}"),
        )),
    })?;
    if let Some(w) = f.opt("w_q", weight)? {
        r.w_q = w;
        d.w_q_key = "w_q";
    }
    let s = &mut d.red.config;
    s.gentle = f.or("gentle", s.gentle, boolean)?;
    s.gentle_initial_max_p = f.or("gentle_initial_max_p", s.gentle_initial_max_p, boolean)?;
    s.count = f.or("count", s.count, |v, p| {
        Ok(
            match choice(&["floyd-jacobson", "ns2-wait", "altq"])(v, p)? {
                "floyd-jacobson" => CountRule::FloydJacobson,
                "ns2-wait" => CountRule::Ns2Wait,
                _ => CountRule::Altq,
            },
        )
    })?;
    s.queue_in_bytes = f.or("queue_in_bytes", s.queue_in_bytes, boolean)?;
    s.prob_in_bytes = f.or("prob_in_bytes", s.prob_in_bytes, boolean)?;
    if let Some(b) = f.opt("mode", |v, p| {
        let m = choice(&["pq_pm", "pq_bm", "bq_pm", "bq_bm"])(v, p)?;
        Ok((m.starts_with('b'), m.ends_with("bm")))
    })? {
        (s.queue_in_bytes, s.prob_in_bytes) = b;
    }
    s.mean_pkt_size = f.or("mean_pkt_size", s.mean_pkt_size, size)?;
    s.min_backlog = f.or("min_backlog", s.min_backlog, |v, p| match v.as_f64() {
        Some(x) if x >= 0.0 => Ok(x),
        _ => Err(ScenarioError::new(
            p,
            "expected a backlog ≥ 0 in the queue's unit",
        )),
    })?;
    s.idle = f.or("idle", s.idle, |v, p| {
        Ok(match choice(&["ns2", "altq", "exact"])(v, p)? {
            "ns2" => IdleRule::Ns2,
            "altq" => IdleRule::Altq,
            _ => IdleRule::Exact,
        })
    })?;
    s.bandwidth = f.or("bandwidth", s.bandwidth, super::reader::rate)?;
    s.ecn = f.or("ecn", s.ecn, boolean)?;
    s.mark_below_p = f.or("mark_below_p", s.mark_below_p, number_above(0.0))?;
    s.mark_above_max_th = f.or("mark_above_max_th", s.mark_above_max_th, boolean)?;
    s.mark_forced = f.or("mark_forced", s.mark_forced, boolean)?;
    s.victim = f.or("victim", s.victim, |v, p| {
        Ok(if choice(&["arrival", "front"])(v, p)? == "front" {
            Victim::Front
        } else {
            Victim::Arrival
        })
    })?;
    s.target_delay = f.or("target_delay", s.target_delay, positive_duration)?;
    let adaptive_path = f.key_path("adaptive");
    if let Some(v) = f.get("adaptive") {
        let default = s.adaptive.unwrap_or(Adaptive::defaults(d.red.adapt_timing));
        s.adaptive = adaptive(v, &adaptive_path, default)?;
    }
    resolve(d, f, site)
}

/// Compute automatic values and check the result.
fn resolve(d: Draft, f: &Fields, site: &QueueSite) -> Result<RedConfig> {
    let RedProfile {
        config: mut s,
        min_th,
        max_th,
        w_q,
        ..
    } = d.red;
    let mps = s.mean_pkt_size.bytes() as f64;
    let ptc = s.bandwidth.bps() as f64 / (8.0 * mps);
    s.min_th = match min_th {
        Threshold::Packets(t) => t,
        Threshold::Bytes(b) => b as f64 / mps,
        Threshold::Auto => (s.target_delay.as_secs_f64() * ptc / 2.0).max(5.0),
    };
    s.max_th = match max_th {
        Threshold::Packets(t) => t,
        Threshold::Bytes(b) => b as f64 / mps,
        Threshold::Auto => 3.0 * s.min_th,
    };
    s.w_q = match w_q {
        Weight::Fixed(w) => w,
        Weight::Ared => 1.0 - (-1.0 / ptc).exp(),
        Weight::Ns2Auto => {
            let rtt = (3.0 * (site.delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
            1.0 - (-1.0 / (10.0 * rtt * ptc)).exp()
        }
        Weight::TcBurst(burst) => {
            // iproute2 tc/q_red.c: the thresholds in whole bytes, the burst in whole packets.
            let avpkt = s.mean_pkt_size.bytes();
            let (qmin, qmax) = (
                (s.min_th * mps).round() as u64,
                (s.max_th * mps).round() as u64,
            );
            let burst = burst.unwrap_or((2 * qmin + qmax) / (3 * avpkt));
            tc_weight(qmin as f64 / avpkt as f64, burst)
                .map_err(|m| ScenarioError::new(f.key_path(d.w_q_key), m))?
        }
    };
    let limit_pkts = match s.limit {
        QueueLimit::Packets(n) => n as f64,
        QueueLimit::Bytes(b) => b as f64 / mps,
    };
    if s.min_th >= s.max_th {
        return Err(ScenarioError::new(
            f.key_path("min_th"),
            format!("expected min_th < max_th ({}), got {}", s.max_th, s.min_th),
        ));
    }
    if s.max_th >= limit_pkts {
        return Err(ScenarioError::new(
            f.key_path("max_th"),
            format!(
                "expected max_th below the limit ({} packets of {mps} B), got {}",
                limit_pkts, s.max_th
            ),
        ));
    }
    Ok(s)
}

/// iproute2's rule for the weight from `burst` (tc/tc_red.c, `tc_red_eval_ewma`): the smallest
/// Wlog in 1..32 such that burst + 1 − min_th ≤ (1 − (1 − W)^burst) / W, with W = 2^−Wlog;
/// min_th in avpkt-size packets. tc refuses the qdisc when there is none.
fn tc_weight(min_th: f64, burst: u64) -> std::result::Result<f64, String> {
    let a = burst as f64 + 1.0 - min_th;
    if a < 1.0 {
        return Err(format!(
            "Linux tc would refuse this RED: its burst, {burst} packets ((2·min + max) / (3·avpkt) \
             unless given), is below min_th ({min_th} packets), so no EWMA weight fits \
             (tc_red_eval_ewma); raise max_th or the burst, or give w_q"
        ));
    }
    (1..32)
        .map(|wlog| 0.5f64.powi(wlog))
        .find(|w| a <= (1.0 - (1.0 - w).powf(burst as f64)) / w)
        .ok_or_else(|| {
            format!(
                "Linux tc would refuse this RED: no EWMA weight fits a burst of {burst} packets"
            )
        })
}

/// A Linux `tc qdisc … red` argument list, as tc-red(8) documents it.
fn parse_tc(line: &str, path: &str, link: Rate, sizes: &SizeBasis) -> Result<Draft> {
    let mut d = Draft::named("linux", link);
    let timing = d.red.adapt_timing;
    let s = &mut d.red.config;
    let (mut limit, mut min, mut max, mut burst, mut avpkt) = (None, None, None, None, 1000u64);
    let mut ewma = None;
    let mut tc = TcWords::new(line, path, sizes)?;
    while let Some(word) = tc.word() {
        match word {
            "limit" => limit = Some(tc.bytes(word)?),
            "min" => min = Some(tc.bytes(word)?),
            "max" => max = Some(tc.bytes(word)?),
            "avpkt" => avpkt = tc_size(tc.value(word)?, path)?,
            "burst" => {
                // tc reads a whole number; 0 means its default.
                burst = Some(tc.value(word)?.parse::<u64>().map_err(|_| {
                    ScenarioError::new(path, "tc: burst takes a whole number of packets")
                })?)
                .filter(|&b| b > 0)
            }
            "probability" => {
                s.max_p = tc
                    .value(word)?
                    .parse::<f64>()
                    .ok()
                    .filter(|p| *p > 0.0 && *p <= 1.0)
                    .ok_or_else(|| ScenarioError::new(path, "tc: probability must be in (0, 1]"))?
            }
            "bandwidth" => s.bandwidth = tc_rate(tc.value(word)?, path)?,
            "ecn" => s.ecn = true,
            "harddrop" => s.mark_forced = false,
            "adaptive" => s.adaptive = Some(Adaptive::defaults(timing)),
            // `tc -d qdisc show`: the weight as its exponent (w_q = 2^−ewma; the kernel's Wlog,
            // below 32), and the idle-time table's cell, which tc derives from `bandwidth` and
            // `avpkt` and aqmlab computes from the rate itself.
            "ewma" => {
                let value = tc.value(word)?;
                ewma = Some(
                    value
                        .parse::<i32>()
                        .ok()
                        .filter(|w| (0..32).contains(w))
                        .ok_or_else(|| {
                            ScenarioError::new(
                                path,
                                format!("tc: ewma takes 0 to 31, got \"{value}\""),
                            )
                        })?,
                )
            }
            "Scell_log" => {
                tc.value(word)?;
            }
            "Plog" => {
                return Err(tc.unmodelled(
                    word,
                    "older kernels' encoding of the drop probability; give probability",
                ))
            }
            "nodrop" => {
                return Err(tc.unmodelled(word, "keeping packets that cannot be ECN-marked"))
            }
            other => return Err(tc.unknown(other)),
        }
    }
    if tc.shown && ewma.is_none() {
        return Err(ScenarioError::new(
            path,
            "tc: a `tc qdisc show` line of red lacks its weight; paste `tc -d qdisc show`'s, which \
             has \"ewma\"",
        ));
    }
    if ewma.is_some() && burst.is_some() {
        return Err(ScenarioError::new(path, "tc: give burst or ewma, not both"));
    }
    let need = |v: Option<u64>, what: &str| {
        v.ok_or_else(|| ScenarioError::new(path, format!("tc: \"{what}\" is required")))
    };
    let (limit, min, max) = (need(limit, "limit")?, need(min, "min")?, need(max, "max")?);
    if avpkt == 0 {
        return Err(ScenarioError::new(path, "tc: avpkt must be positive"));
    }
    s.limit = QueueLimit::Bytes(limit);
    s.mean_pkt_size = Size(avpkt);
    let (min_p, max_p) = (min as f64 / avpkt as f64, max as f64 / avpkt as f64);
    d.red.min_th = Threshold::Packets(min_p);
    d.red.max_th = Threshold::Packets(max_p);
    d.red.w_q = match ewma {
        Some(wlog) => Weight::Fixed(2f64.powi(-wlog)),
        None => Weight::TcBurst(burst),
    };
    d.w_q_key = "tc";
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;
    use serde_json::json;

    fn red(queue: Value, rate: &str, delay: &str) -> std::result::Result<RedConfig, ScenarioError> {
        let v = json!({"duration": "10s", "topology": {"bottleneck": {"rate": rate, "delay": delay}}, "queue": queue});
        Scenario::from_value(&v).map(|s| match s.queue.spec {
            crate::queue::config::QueueSpec::Red(r) => *r,
            other => panic!("{other:?}"),
        })
    }

    #[test]
    fn the_linux_profile_accepts_what_tc_accepts() {
        let linux = |min: f64, max: f64| {
            red(
                json!({"kind": "red", "profile": "linux", "min_th": min, "max_th": max}),
                "10Mbps",
                "10ms",
            )
        };
        // The defaults, 5 and 15 packets: tc's burst (2·5000 + 15000) / 3000 = 8, Wlog 3.
        assert_eq!(linux(5.0, 15.0).unwrap().w_q, 1.0 / 8.0);
        // Above 25/3 packets, once refused through a burst fixed at the defaults': burst
        // (20000 + 15000) / 3000 = 11, burst + 1 − min = 2 ≤ (1 − (1 − W)^11)/W first at W = 1/4.
        assert_eq!(linux(10.0, 15.0).unwrap().w_q, 0.25);
        // 30/90: burst 50, a = 21: (1 − (31/32)^50)·32 ≈ 25.5 is the first to reach it.
        let r = linux(30.0, 90.0).unwrap();
        assert_eq!(r.w_q, 1.0 / 32.0);
        let tc = json!({"kind": "red", "tc": "limit 400000 min 30000 max 90000 avpkt 1000"});
        assert_eq!(red(tc, "10Mbps", "10ms").unwrap().w_q, r.w_q);
        // What tc refuses: burst ⌊(11800 + 6000) / 3000⌋ = 5 packets, below min 5.9.
        let e = linux(5.9, 6.0).unwrap_err();
        assert_eq!(e.path, "queue.min_th");
        assert!(e.message.contains("tc_red_eval_ewma"), "{e}");
        let tc = json!({"kind": "red", "tc": "limit 400000 min 5900 max 6000 avpkt 1000"});
        assert_eq!(red(tc, "10Mbps", "10ms").unwrap_err().path, "queue.tc");
        // A weight given outright needs no burst.
        let given =
            json!({"kind": "red", "profile": "linux", "min_th": 5.9, "max_th": 6.0, "w_q": 0.01});
        assert_eq!(red(given, "10Mbps", "10ms").unwrap().w_q, 0.01);
    }

    /// tc-red(8)'s example, as typed and as `tc -d qdisc show` prints it (its weight as `ewma`),
    /// is one queue; a show line without `-d` lacks the weight and is refused.
    #[test]
    fn the_man_pages_red_reads_the_same_as_command_and_as_shown() {
        let typed = json!({"tc": "tc qdisc add dev eth0 parent 1:1 handle 10: red \\\n \
            limit 400000 min 30000 max 90000 avpkt 1000 \\\n burst 55 ecn adaptive bandwidth 10Mbit"});
        let typed = red(typed, "10Mbps", "10ms").unwrap();
        // burst 55 over min 30 packets: the largest power-of-two weight that lets 55 packets
        // arrive before the average reaches min_th is 2^−5.
        assert_eq!(typed.w_q, 1.0 / 32.0);
        let shown = json!({"tc": "qdisc red 10: dev eth0 parent 1:1 limit 390625b min 29Kb \
            max 90000b ecn adaptive ewma 5 probability 0.02 Scell_log 20"});
        let shown = red(shown, "10Mbps", "10ms").unwrap();
        assert_eq!(
            (shown.w_q, shown.max_p, shown.ecn, shown.adaptive.is_some()),
            (typed.w_q, typed.max_p, typed.ecn, typed.adaptive.is_some())
        );
        assert_eq!((shown.min_th, shown.max_th), (29.696, 90.0));
        let bare = json!({"tc": "qdisc red 10: dev eth0 root limit 400Kb min 30Kb max 90Kb"});
        let e = red(bare, "10Mbps", "10ms").unwrap_err();
        assert!(e.message.contains("ewma"), "{e}");
        for (line, word) in [
            (
                "red limit 400000 min 30000 max 90000 avpkt 1000 nodrop",
                "nodrop",
            ),
            (
                "qdisc red 1: root limit 400000b min 30000b max 90000b ewma 5 Plog 20",
                "Plog",
            ),
            (
                "red limit 400000 min 30000 max 90000 ewma 5 burst 55",
                "burst or ewma",
            ),
            (
                "red limit 400000 min 30000 max 90000 ewma 32",
                "ewma takes 0 to 31",
            ),
        ] {
            let e = red(json!({"tc": line}), "10Mbps", "10ms").unwrap_err();
            assert!(e.message.contains(word), "{line}: {e}");
        }
    }

    #[test]
    fn ns2_automatic_parameters_match_the_worked_examples() {
        // docs/models/ns2.md §2.2: 10 Mb/s, 10 ms → ptc 2500/s, q_w 0.00040, th 6.25 / 18.75.
        let r = red(
            json!({"kind": "red", "profile": "ns2-2003"}),
            "10Mbps",
            "10ms",
        )
        .unwrap();
        assert!((r.min_th - 6.25).abs() < 1e-9 && (r.max_th - 18.75).abs() < 1e-9);
        assert!((r.w_q - 0.000_40).abs() < 0.000_005, "{}", r.w_q);
        // 1.5 Mb/s: 375/s, q_w 0.00266, 5 / 15.
        let r = red(
            json!({"kind": "red", "profile": "ns2-2003", "limit": "50p"}),
            "1500kbps",
            "10ms",
        )
        .unwrap();
        assert!((r.min_th - 5.0).abs() < 1e-9 && (r.max_th - 15.0).abs() < 1e-9);
        assert!((r.w_q - 0.002_66).abs() < 0.000_005, "{}", r.w_q);
    }

    #[test]
    fn thresholds_and_weights_in_their_forms() {
        let r = red(
            json!({"kind": "red", "profile": "altq", "limit": "480p", "min_th": "15KB", "max_th": 90, "w_q": "1/512"}),
            "10Mbps",
            "0ms",
        )
        .unwrap();
        assert_eq!((r.min_th, r.max_th, r.w_q), (15.0, 90.0, 1.0 / 512.0));
        let c = RedConfig {
            queue_in_bytes: true,
            ..r.clone()
        }
        .scaled();
        assert_eq!(
            (c.min_th, c.max_th, c.limit),
            (15_000.0, 90_000.0, 480_000.0)
        );
    }

    #[test]
    fn tc_command_lines_convert_to_the_typed_configuration() {
        let r = red(
            json!({"kind": "red", "tc": "limit 400000 min 30000 max 90000 avpkt 1000 burst 55 probability 0.02 bandwidth 10mbit ecn adaptive"}),
            "10Mbps",
            "0ms",
        )
        .unwrap();
        assert_eq!(r.profile, "linux");
        assert_eq!(
            (r.min_th, r.max_th, r.limit),
            (30.0, 90.0, QueueLimit::Bytes(400_000))
        );
        assert!(
            r.ecn && r.mark_forced && r.adaptive.is_some_and(|a| a.timing == AdaptTiming::Timer)
        );
        // burst 55, min 30: a = 26; W = 2^−Wlog is the first with (1 − (1 − W)^55)/W ≥ 26.
        let w = r.w_q;
        assert!((w.log2() - w.log2().round()).abs() < 1e-12);
        assert!(26.0 <= (1.0 - (1.0 - w).powf(55.0)) / w);
        assert!(26.0 > (1.0 - (1.0 - 2.0 * w).powf(55.0)) / (2.0 * w));
    }

    #[test]
    fn bad_red_settings_name_their_keys() {
        let err = |q: Value| red(q, "10Mbps", "10ms").unwrap_err().path;
        assert_eq!(
            err(json!({"kind": "red", "min_th": 30, "max_th": 20, "limit": "100p"})),
            "queue.min_th"
        );
        assert_eq!(
            err(json!({"kind": "red", "min_th": 30, "max_th": 90, "limit": "60p"})),
            "queue.max_th"
        );
        assert_eq!(err(json!({"kind": "red", "max_p": 0})), "queue.max_p");
        assert_eq!(err(json!({"kind": "red", "max_p": 1.5})), "queue.max_p");
        assert_eq!(err(json!({"kind": "red", "w_q": 1})), "queue.w_q");
        assert_eq!(err(json!({"kind": "red", "w_q": "1/0"})), "queue.w_q");
        assert_eq!(
            err(json!({"kind": "red", "mean_pkt_size": "0B"})),
            "queue.mean_pkt_size"
        );
        assert_eq!(
            err(json!({"kind": "red", "count": "sometimes"})),
            "queue.count"
        );
        assert_eq!(
            err(json!({"kind": "red", "profile": "cisco"})),
            "queue.profile"
        );
        assert_eq!(
            err(json!({"kind": "red", "tc": "limit 1000 min 100", "profile": "linux"})),
            "queue.profile"
        );
        assert_eq!(
            err(json!({"kind": "red", "tc": "limit 100000 min 3000 max 9000 bandwidth 10Mbps"})),
            "queue.tc"
        );
        assert_eq!(
            err(json!({"kind": "red", "tc": "limit 100000 max 9000"})),
            "queue.tc"
        );
        assert_eq!(
            err(json!({"kind": "red", "adaptive": {"beta": 1.5}})),
            "queue.adaptive.beta"
        );
        assert_eq!(
            err(json!({"kind": "red", "adaptive": {"bottom": 0.6}})),
            "queue.adaptive.bottom"
        );
        assert_eq!(err(json!({"kind": "red", "gentel": true})), "queue.gentel");
    }
}
