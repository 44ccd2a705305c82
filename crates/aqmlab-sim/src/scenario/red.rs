//! `kind = "red"` queues: a RED profile (`ns2-2000`, `ns2-2003`, `ns2-2.35`, `altq`, `linux`;
//! docs/ns2-referee.md, docs/models/ns2.md §2, docs/models/freebsd-2.2.md §4, docs/models/linux.md
//! §1) with any field overridden, or a Linux `tc` command line. Automatic parameters are computed
//! here, from the bottleneck's rate and delay, so the resolved scenario records the numbers used.

use super::queue_size::SizeBasis;
use super::reader::{
    boolean, choice, join, number_above, positive_duration, probability, queue_limit, size, string,
    Fields, Result, ScenarioError,
};
use super::tc::{tc_rate, tc_size, TcWords};
use crate::network::Topology;
use crate::queue::red::{AdaptTiming, Adaptive, CountRule, IdleRule, RedConfig, Victim};
use crate::units::{QueueLimit, Rate, Size, Time};
use serde_json::Value;

/// The names of the RED profiles.
pub const RED_PROFILES: [&str; 5] = ["ns2-2000", "ns2-2003", "ns2-2.35", "altq", "linux"];

/// A threshold before resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Threshold {
    Packets(f64),
    /// ns-2 `thresh_ 0`: max(5, target_delay·ptc/2); `maxthresh_ 0`: 3·min_th.
    Auto,
}

/// The EWMA weight before resolution.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Weight {
    Fixed(f64),
    /// ns-2 `q_weight_ −1`: 1 − exp(−1/(10·RTT·ptc)), RTT = max(0.1 s, 3·(delay + 1/ptc)).
    Ns2Auto,
    /// Adaptive RED (ns-2 `q_weight_ 0`): 1 − exp(−1/ptc).
    Ared,
    /// Linux tc: the largest power-of-two weight that lets `burst` packets arrive at an empty queue
    /// before the average reaches min_th; without a burst, iproute2's default (2·min + max) /
    /// (3·avpkt) in whole packets.
    TcBurst(Option<u64>),
}

/// Profile defaults, before automatic values are resolved.
struct Draft {
    spec: RedConfig,
    min_th: Threshold,
    max_th: Threshold,
    w_q: Weight,
    /// The key an error about the weight names: `w_q`; `min_th` for the linux profile, whose
    /// weight follows from the thresholds; `tc` for a tc command line.
    w_q_key: &'static str,
}

fn profile(name: &'static str, link: Rate) -> Draft {
    let base = RedConfig::ns2_base(name, link);
    let p = Threshold::Packets;
    match name {
        // Year-2000 ns-2 (docs/models/ns2.md §2.1): thresh_ 5, maxthresh_ 15, q_weight_ 0.002,
        // gentle_ false, wait_ true, packet mode, mean_pktsize_ 500, queue limit 50. Its RED of
        // 2000–2003 marks an ECN-capable packet only while the average is below max_th (red.cc of
        // 2001, `drop_early`: `edv_.v_ave < edp_.th_max`); with gentle_ it drops it above.
        "ns2-2000" => Draft {
            spec: RedConfig {
                mark_above_max_th: false,
                ..base
            },
            min_th: p(5.0),
            max_th: p(15.0),
            w_q: Weight::Fixed(0.002),
            w_q_key: "w_q",
        },
        // ns-2.26 era (docs/models/ns2.md §2.1): automatic thresholds and weight, gentle_ true; ECN
        // marks only below max_th, as in ns2-2000.
        "ns2-2003" => Draft {
            spec: RedConfig {
                gentle: true,
                mark_above_max_th: false,
                ..base
            },
            min_th: Threshold::Auto,
            max_th: Threshold::Auto,
            w_q: Weight::Ns2Auto,
            w_q_key: "w_q",
        },
        // ns-2.35 as Debian's ns2 package runs it (tcl/lib/ns-default.tcl; docs/ns2-referee.md):
        // as ns-2.26, but bytes_ and queue_in_bytes_ true (byte mode) and use_mark_p_ true with
        // mark_p_ 0.1 (an ECN-capable packet is marked only while p_b is at most 0.1).
        "ns2-2.35" => Draft {
            spec: RedConfig {
                gentle: true,
                queue_in_bytes: true,
                prob_in_bytes: true,
                mark_below_p: 0.1,
                ..base
            },
            min_th: Threshold::Auto,
            max_th: Threshold::Auto,
            w_q: Weight::Ns2Auto,
            w_q_key: "w_q",
        },
        // ALTQ RED on the FreeBSD routers (docs/models/freebsd-2.2.md §4): 5/15, w_q 1/512,
        // max_p 0.1, limit 60, the p_b/(2 − count·p_b) rule, pkttime 800 µs (1000-byte packets at
        // 10 Mb/s), ECN marks only on early decisions, no gentle mode.
        "altq" => Draft {
            spec: RedConfig {
                limit: QueueLimit::Packets(60),
                count: CountRule::Altq,
                mean_pkt_size: Size(1000),
                idle: IdleRule::Altq,
                gentle_initial_max_p: false,
                ..base
            },
            min_th: p(5.0),
            max_th: p(15.0),
            w_q: Weight::Fixed(1.0 / 512.0),
            w_q_key: "w_q",
        },
        // Linux sch_red (docs/models/linux.md §1): queue in bytes, one probability per packet,
        // marks with gaps uniform on [1, 1/p_b] (the Floyd–Jacobson rule), no gentle mode, no
        // `qlen > 1` guard, ECN marks above max_th too unless `harddrop`, tc's default probability 0.02,
        // Adaptive RED on a 500 ms timer.
        "linux" => Draft {
            spec: RedConfig {
                limit: QueueLimit::Bytes(200_000),
                max_p: 0.02,
                gentle_initial_max_p: false,
                count: CountRule::FloydJacobson,
                queue_in_bytes: true,
                mean_pkt_size: Size(1000),
                min_backlog: 0.0,
                idle: IdleRule::Exact,
                mark_forced: true,
                ..base
            },
            min_th: p(5.0),
            max_th: p(15.0),
            w_q: Weight::TcBurst(None),
            w_q_key: "min_th",
        },
        _ => unreachable!("choice() admits only the names in RED_PROFILES"),
    }
}

/// Default Adaptive RED settings (docs/models/ns2.md §2.4): every 0.5 s, α = min(0.01, max_p/4),
/// β = 0.9, target band [min_th + 0.4Δ, min_th + 0.6Δ], max_p within [0.01, 0.5].
fn default_adaptive(timing: AdaptTiming) -> Adaptive {
    Adaptive {
        interval: Time::from_millis(500),
        timing,
        top: 0.5,
        bottom: 0.01,
        alpha_max: 0.01,
        beta: 0.9,
        band: (0.4, 0.6),
    }
}

fn threshold(v: &Value, path: &str) -> Result<Threshold> {
    match v {
        Value::String(s) if s == "auto" => Ok(Threshold::Auto),
        Value::Number(_) => Ok(Threshold::Packets(number_above(0.0)(v, path)?)),
        Value::String(_) => match queue_limit(v, path) {
            Ok(QueueLimit::Packets(n)) => Ok(Threshold::Packets(n as f64)),
            // Bytes are converted once the mean packet size is known: encode as negative.
            Ok(QueueLimit::Bytes(b)) => Ok(Threshold::Packets(-(b as f64))),
            Err(_) => Err(ScenarioError::new(
                path,
                "expected packets (30 or \"30p\"), bytes (\"15KB\") or \"auto\"",
            )),
        },
        _ => Err(ScenarioError::new(
            path,
            "expected packets (30 or \"30p\"), bytes (\"15KB\") or \"auto\"",
        )),
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

/// Read a `kind = "red"` table (its `kind` already read) over the topology's bottleneck.
pub fn parse_red(f: &mut Fields, topo: &Topology, sizes: &SizeBasis) -> Result<RedConfig> {
    let link = topo.bottleneck.rate;
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
        (None, name) => profile(name.unwrap_or("ns2-2003"), link),
    };
    let s = &mut d.spec;
    s.limit = f.or("limit", s.limit, queue_limit)?;
    d.min_th = f.or("min_th", d.min_th, threshold)?;
    d.max_th = f.or("max_th", d.max_th, threshold)?;
    s.max_p = f.or("max_p", s.max_p, |v, p| match v.as_f64() {
        Some(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(ScenarioError::new(
            p,
            format!("expected 0 < max_p ≤ 1, got {v}"),
        )),
    })?;
    if let Some(w) = f.opt("w_q", weight)? {
        d.w_q = w;
        d.w_q_key = "w_q";
    }
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
    let timing = if d.spec.profile == "linux" {
        AdaptTiming::Timer
    } else {
        AdaptTiming::OnArrival
    };
    let adaptive_path = f.key_path("adaptive");
    if let Some(v) = f.get("adaptive") {
        d.spec.adaptive = adaptive(
            v,
            &adaptive_path,
            d.spec.adaptive.unwrap_or(default_adaptive(timing)),
        )?;
    }
    resolve(d, f, topo)
}

/// Compute automatic values and check the result.
fn resolve(d: Draft, f: &Fields, topo: &Topology) -> Result<RedConfig> {
    let mut s = d.spec;
    let mps = s.mean_pkt_size.bytes() as f64;
    let ptc = s.bandwidth.bps() as f64 / (8.0 * mps);
    let packets = |t: f64| if t < 0.0 { -t / mps } else { t };
    s.min_th = match d.min_th {
        Threshold::Packets(t) => packets(t),
        Threshold::Auto => (s.target_delay.as_secs_f64() * ptc / 2.0).max(5.0),
    };
    s.max_th = match d.max_th {
        Threshold::Packets(t) => packets(t),
        Threshold::Auto => 3.0 * s.min_th,
    };
    s.w_q = match d.w_q {
        Weight::Fixed(w) => w,
        Weight::Ared => 1.0 - (-1.0 / ptc).exp(),
        Weight::Ns2Auto => {
            let rtt = (3.0 * (topo.bottleneck.delay.as_secs_f64() + 1.0 / ptc)).max(0.1);
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
    let mut d = profile("linux", link);
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
                d.spec.max_p = tc
                    .value(word)?
                    .parse::<f64>()
                    .ok()
                    .filter(|p| *p > 0.0 && *p <= 1.0)
                    .ok_or_else(|| ScenarioError::new(path, "tc: probability must be in (0, 1]"))?
            }
            "bandwidth" => d.spec.bandwidth = tc_rate(tc.value(word)?, path)?,
            "ecn" => d.spec.ecn = true,
            "harddrop" => d.spec.mark_forced = false,
            "adaptive" => d.spec.adaptive = Some(default_adaptive(AdaptTiming::Timer)),
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
    d.spec.limit = QueueLimit::Bytes(limit);
    d.spec.mean_pkt_size = Size(avpkt);
    let (min_p, max_p) = (min as f64 / avpkt as f64, max as f64 / avpkt as f64);
    d.min_th = Threshold::Packets(min_p);
    d.max_th = Threshold::Packets(max_p);
    d.w_q = match ewma {
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
