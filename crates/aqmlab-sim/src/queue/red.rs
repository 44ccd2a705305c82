//! Random Early Detection (Floyd & Jacobson 1993) and its family: gentle RED, Adaptive RED (Floyd,
//! Gummadi & Shenker 2001), ECN marking (RFC 3168), byte and packet modes (Eddy & Allman 2003), and
//! the implementation differences of ns-2, ALTQ and Linux (docs/models/ns2.md §2,
//! docs/models/freebsd-2.2.md §4, docs/models/linux.md §1).
//!
//! The pipeline on each arrival, as in Linux's `red.h` and ns-2's `REDQueue::enque`:
//! idle correction → EWMA of the queue → (Adaptive RED on arrival) → drop probability p_b from the
//! average → count uniformization p_a → early / forced / no decision → mark or drop. The queue and
//! the thresholds are counted in one unit, packets or bytes (`queue_in_bytes`); thresholds, limit
//! and the idle rate are expressed in packets of the mean size `mean_pkt` where ns-2 needs it.

use super::{AqmState, Departure, DequeueDrops, DropReason, Fifo, MarkReason, QueueDisc, Verdict};
use crate::packet::{Ecn, Packet, PacketId};
use crate::rng::Rng;
use crate::units::{QueueLimit, Rate, Size, Time};
use serde::Serialize;

/// How the count of packets since the last drop turns p_b into p_a (docs/models/validation.md §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CountRule {
    /// p_a = p_b / (1 − count·p_b): inter-drop gaps uniform on [1, 1/p_b], ≈ 2·p_b (Floyd &
    /// Jacobson 1993; ns-2 `wait_ false`; Linux).
    FloydJacobson,
    /// ns-2 `wait_ true`: no drop while count·p_b < 1, then p_b/(2 − count·p_b): gaps uniform on
    /// [1/p_b, 2/p_b], ≈ 0.67·p_b.
    Ns2Wait,
    /// ALTQ: p_b/(2 − count·p_b): gaps uniform on [1, 2/p_b], ≈ 1·p_b.
    Altq,
}

/// How an idle period decays the average: as if `m` packets of the mean size had arrived to an
/// empty queue, `avg ← avg·(1 − w)^m`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IdleRule {
    /// ns-2: m = int(ptc · idle).
    Ns2,
    /// ALTQ: m = idle / pkttime − 1 (integer division), avg zeroed after 60 s.
    Altq,
    /// m = ptc · idle, not rounded (the exponent Linux's table approximates).
    Exact,
}

/// Which packet a forced decision drops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Victim {
    Arrival,
    /// The packet at the head of the queue (the oldest waiting), as drop-front.
    Front,
}

/// When Adaptive RED adapts max_p.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdaptTiming {
    /// ns-2: on an arrival, once `interval` has passed since max_p last changed.
    OnArrival,
    /// Linux: a timer every `interval`, idle or not.
    Timer,
}

/// Adaptive RED (Floyd, Gummadi & Shenker 2001; docs/models/ns2.md §2.4, docs/models/linux.md
/// §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Adaptive {
    pub interval: Time,
    pub timing: AdaptTiming,
    /// max_p is raised only while at most `top`, lowered only while at least `bottom`.
    pub top: f64,
    pub bottom: f64,
    /// Increase step: min(alpha_max, max_p/4).
    pub alpha_max: f64,
    /// Decrease factor.
    pub beta: f64,
    /// The target band as fractions of (max_th − min_th) above min_th.
    pub band: (f64, f64),
}

impl Adaptive {
    /// Adaptive RED as Floyd, Gummadi & Shenker recommend it (docs/models/ns2.md §2.4): every
    /// 0.5 s, α = min(0.01, max_p/4), β = 0.9, target band [min_th + 0.4Δ, min_th + 0.6Δ], max_p
    /// within [0.01, 0.5]; adapting as `timing` says.
    pub fn defaults(timing: AdaptTiming) -> Adaptive {
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
}

/// A RED queue's configuration, as the scenario resolves it (a [`RedProfile`]'s defaults, any of
/// them overridden, the automatic values worked out by `scenario/red.rs`) and records it.
/// Thresholds are in packets of the mean size (ns-2's convention: in byte mode they become
/// `th · mean_pkt_size` bytes); [`Red`] works with the sizes in the queue's unit
/// ([`RedConfig::scaled`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RedConfig {
    pub profile: &'static str,
    pub limit: QueueLimit,
    pub min_th: f64,
    pub max_th: f64,
    pub max_p: f64,
    pub w_q: f64,
    pub gentle: bool,
    /// ns-2 computes the gentle slope once, from the initial max_p (docs/models/ns2.md §2.2).
    pub gentle_initial_max_p: bool,
    pub count: CountRule,
    pub queue_in_bytes: bool,
    pub prob_in_bytes: bool,
    /// Mean packet size (ns-2 `mean_pktsize_`, Linux `avpkt`).
    pub mean_pkt_size: Size,
    /// Early decisions need at least this backlog, in the queue's unit (ns-2, ALTQ: `qlen > 1`, so
    /// 2; Linux: no such guard, 0).
    pub min_backlog: f64,
    pub idle: IdleRule,
    /// The rate the idle correction counts mean-size packets at (the link's, or tc's `bandwidth`).
    pub bandwidth: Rate,
    pub ecn: bool,
    /// ECT packets are marked on early decisions only while p_b is below this (ns-2.35 `mark_p_`
    /// with `use_mark_p_`); 1 or more: always.
    pub mark_below_p: f64,
    /// ECT packets are marked on the early decisions of gentle mode's region too (the average
    /// at or above max_th); false: dropped there, as ns-2's RED of 2000–2003 did (red.cc of 2001,
    /// `drop_early`: marks only while `v_ave < th_max`).
    pub mark_above_max_th: bool,
    /// ECT packets are marked rather than dropped on forced decisions (Linux without `harddrop`).
    pub mark_forced: bool,
    pub victim: Victim,
    pub target_delay: Time,
    #[serde(serialize_with = "adaptive_or_false")]
    pub adaptive: Option<Adaptive>,
}

fn adaptive_or_false<S: serde::Serializer>(
    a: &Option<Adaptive>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match a {
        Some(a) => a.serialize(s),
        None => s.serialize_bool(false),
    }
}

/// The names of the RED profiles ([`RedProfile::named`]).
pub const RED_PROFILES: [&str; 5] = ["ns2-2000", "ns2-2003", "ns2-2.35", "altq", "linux"];

/// A threshold as a profile or a scenario gives it, before the link and the mean packet size it
/// is worked out from are final (`scenario/red.rs` resolves it into [`RedConfig`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Threshold {
    /// Packets of the mean size.
    Packets(f64),
    /// Bytes: `b / mean_pkt_size` packets.
    Bytes(u64),
    /// ns-2 `thresh_ 0`: max(5, target_delay·ptc/2); `maxthresh_ 0`: 3·min_th.
    Auto,
}

/// The EWMA weight as a profile or a scenario gives it, before the link and the thresholds it is
/// worked out from are final.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weight {
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

/// A RED profile's defaults (docs/ns2-referee.md, docs/models/ns2.md §2,
/// docs/models/freebsd-2.2.md §4, docs/models/linux.md §1): the configuration, whose
/// thresholds and weight are those of `min_th`, `max_th` and `w_q` once resolved, and the timing
/// Adaptive RED takes when a scenario turns it on.
#[derive(Clone, Debug, PartialEq)]
pub struct RedProfile {
    pub config: RedConfig,
    pub min_th: Threshold,
    pub max_th: Threshold,
    pub w_q: Weight,
    pub adapt_timing: AdaptTiming,
}

impl RedProfile {
    /// The profile `name` (one of [`RED_PROFILES`]) on a link of `bandwidth`, or `None` if there is
    /// no such name.
    pub fn named(name: &str, bandwidth: Rate) -> Option<RedProfile> {
        let p = Threshold::Packets;
        let ns2 = |config: RedConfig, min_th, max_th, w_q| RedProfile {
            config,
            min_th,
            max_th,
            w_q,
            adapt_timing: AdaptTiming::OnArrival,
        };
        Some(match name {
            // Year-2000 ns-2 (docs/models/ns2.md §2.1): thresh_ 5, maxthresh_ 15, q_weight_
            // 0.002, gentle_ false, wait_ true, packet mode, mean_pktsize_ 500, queue limit 50. Its
            // RED of 2000–2003 marks an ECN-capable packet only while the average is below
            // max_th (red.cc of 2001, `drop_early`: `edv_.v_ave < edp_.th_max`); with gentle_ it
            // drops it above.
            "ns2-2000" => ns2(
                RedConfig {
                    mark_above_max_th: false,
                    ..ns2_base("ns2-2000", bandwidth)
                },
                p(5.0),
                p(15.0),
                Weight::Fixed(0.002),
            ),
            // ns-2.26 era (docs/models/ns2.md §2.1): automatic thresholds and weight, gentle_
            // true; ECN marks only below max_th, as in ns2-2000.
            "ns2-2003" => ns2(
                RedConfig {
                    gentle: true,
                    mark_above_max_th: false,
                    ..ns2_base("ns2-2003", bandwidth)
                },
                Threshold::Auto,
                Threshold::Auto,
                Weight::Ns2Auto,
            ),
            // ns-2.35 as Debian's ns2 package runs it (tcl/lib/ns-default.tcl;
            // docs/ns2-referee.md): as ns-2.26, but bytes_ and queue_in_bytes_ true (byte mode)
            // and use_mark_p_ true with mark_p_ 0.1 (an ECN-capable packet is marked only while
            // p_b is at most 0.1).
            "ns2-2.35" => ns2(
                RedConfig {
                    gentle: true,
                    queue_in_bytes: true,
                    prob_in_bytes: true,
                    mark_below_p: 0.1,
                    ..ns2_base("ns2-2.35", bandwidth)
                },
                Threshold::Auto,
                Threshold::Auto,
                Weight::Ns2Auto,
            ),
            // ALTQ RED on the FreeBSD routers (docs/models/freebsd-2.2.md §4): 5/15, w_q 1/512,
            // max_p 0.1, limit 60, the p_b/(2 − count·p_b) rule, pkttime 800 µs (1000-byte packets
            // at 10 Mb/s), ECN marks only on early decisions, no gentle mode.
            "altq" => ns2(
                RedConfig {
                    limit: QueueLimit::Packets(60),
                    count: CountRule::Altq,
                    mean_pkt_size: Size(1000),
                    idle: IdleRule::Altq,
                    gentle_initial_max_p: false,
                    ..ns2_base("altq", bandwidth)
                },
                p(5.0),
                p(15.0),
                Weight::Fixed(1.0 / 512.0),
            ),
            // Linux sch_red (docs/models/linux.md §1): queue in bytes, one probability per
            // packet, marks with gaps uniform on [1, 1/p_b] (the Floyd–Jacobson rule), no gentle
            // mode, no `qlen > 1` guard, ECN marks above max_th too unless `harddrop`, tc's default
            // probability 0.02, Adaptive RED on a 500 ms timer.
            "linux" => RedProfile {
                config: RedConfig {
                    limit: QueueLimit::Bytes(200_000),
                    max_p: 0.02,
                    gentle_initial_max_p: false,
                    count: CountRule::FloydJacobson,
                    queue_in_bytes: true,
                    mean_pkt_size: Size(1000),
                    min_backlog: 0.0,
                    idle: IdleRule::Exact,
                    mark_forced: true,
                    ..ns2_base("linux", bandwidth)
                },
                min_th: p(5.0),
                max_th: p(15.0),
                w_q: Weight::TcBurst(None),
                adapt_timing: AdaptTiming::Timer,
            },
            _ => return None,
        })
    }
}

/// What every profile starts from: ns-2's RED in packet mode on a link of `bandwidth`, its
/// thresholds and weight 0 until the profile's [`Threshold`]s and [`Weight`] are resolved.
fn ns2_base(profile: &'static str, bandwidth: Rate) -> RedConfig {
    RedConfig {
        profile,
        limit: QueueLimit::Packets(50),
        min_th: 0.0,
        max_th: 0.0,
        max_p: 0.1,
        w_q: 0.0,
        gentle: false,
        gentle_initial_max_p: true,
        count: CountRule::Ns2Wait,
        queue_in_bytes: false,
        prob_in_bytes: false,
        mean_pkt_size: Size(500),
        // ns-2 and ALTQ decide early only when `qlen > 1`.
        min_backlog: 2.0,
        idle: IdleRule::Ns2,
        bandwidth,
        ecn: false,
        mark_below_p: 1.0,
        mark_above_max_th: true,
        mark_forced: false,
        victim: Victim::Arrival,
        target_delay: Time::from_millis(5),
        adaptive: None,
    }
}

impl RedConfig {
    /// The thresholds and the limit in the queue's unit, and the idle correction's rate.
    pub fn scaled(&self) -> Scaled {
        let mps = self.mean_pkt_size.bytes() as f64;
        let unit = if self.queue_in_bytes { mps } else { 1.0 };
        let limit = match self.limit {
            QueueLimit::Packets(n) => n as f64 * unit,
            QueueLimit::Bytes(b) if self.queue_in_bytes => b as f64,
            QueueLimit::Bytes(b) => (b as f64 / mps).floor(),
        };
        Scaled {
            min_th: self.min_th * unit,
            max_th: self.max_th * unit,
            limit,
            mean_pkt: mps,
            ptc: self.bandwidth.bps() as f64 / (8.0 * mps),
        }
    }
}

/// What [`Red`] works with in place of [`RedConfig`]'s sizes and rate, worked out once: the
/// thresholds and the limit in the queue's unit (packets or bytes), the mean packet in bytes, the
/// link in mean-size packets per second. Everything else [`Red`] reads from its [`RedConfig`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaled {
    pub min_th: f64,
    pub max_th: f64,
    /// Physical limit.
    pub limit: f64,
    /// Mean packet size in bytes.
    pub mean_pkt: f64,
    /// Packets of the mean size the link sends per second (ns-2 `ptc`).
    pub ptc: f64,
}

/// RED's state (Linux `red_vars`).
#[derive(Clone)]
struct RedState {
    avg: f64,
    count: u64,
    count_bytes: u64,
    /// The average has been above min_th since the last arrival below it (ns-2 `old_`).
    old: bool,
    idle_since: Option<Time>,
    max_p: f64,
    last_adapt: Time,
}

/// A RED queue: configuration, state and the FIFO.
#[derive(Debug)]
pub struct Red {
    cfg: RedConfig,
    scaled: Scaled,
    st: RedState,
    fifo: Fifo,
}

/// The decision on one arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Decision {
    Accept,
    Early,
    Forced,
    Limit,
}

impl std::fmt::Debug for RedState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "avg {:.3} count {} max_p {:.4}",
            self.avg, self.count, self.max_p
        )
    }
}

impl Red {
    pub fn new(config: &RedConfig) -> Red {
        let scaled = config.scaled();
        let reserve = if config.queue_in_bytes {
            scaled.limit / scaled.mean_pkt
        } else {
            scaled.limit
        };
        let st = RedState {
            avg: 0.0,
            count: 0,
            count_bytes: 0,
            old: false,
            // An empty link is idle from the start.
            idle_since: Some(Time::ZERO),
            max_p: config.max_p,
            last_adapt: Time::ZERO,
        };
        Red {
            fifo: Fifo::with_capacity((reserve as usize).min(1 << 16)),
            cfg: config.clone(),
            scaled,
            st,
        }
    }

    /// The current average queue, in the queue's unit.
    pub fn avg(&self) -> f64 {
        self.st.avg
    }

    pub fn max_p(&self) -> f64 {
        self.st.max_p
    }

    /// The queue in its unit.
    fn qlen(&self) -> f64 {
        if self.cfg.queue_in_bytes {
            self.fifo.bytes() as f64
        } else {
            self.fifo.len() as f64
        }
    }

    /// Decay the average over an idle period ending at `now` (docs/models/ns2.md §2.3,
    /// docs/models/freebsd-2.2.md §4).
    fn idle_decay(&mut self, now: Time) {
        let Some(since) = self.st.idle_since.take() else {
            return;
        };
        let idle_s = (now - since).as_secs_f64();
        let m = match self.cfg.idle {
            IdleRule::Ns2 => (self.scaled.ptc * idle_s).floor(),
            IdleRule::Altq => {
                if idle_s > 60.0 {
                    self.st.avg = 0.0;
                    return;
                }
                ((idle_s * self.scaled.ptc).floor() - 1.0).max(0.0)
            }
            IdleRule::Exact => self.scaled.ptc * idle_s,
        };
        self.st.avg *= (1.0 - self.cfg.w_q).powf(m);
    }

    /// The drop probability before uniformization (ns-2 `calculate_p_new`).
    fn p_b(&self) -> f64 {
        let (c, s) = (&self.cfg, &self.scaled);
        let avg = self.st.avg;
        if avg < s.max_th {
            self.st.max_p * (avg - s.min_th) / (s.max_th - s.min_th)
        } else if c.gentle {
            let max_p = if c.gentle_initial_max_p {
                c.max_p
            } else {
                self.st.max_p
            };
            (max_p + (1.0 - max_p) * (avg - s.max_th) / s.max_th).min(1.0)
        } else {
            1.0
        }
    }

    /// p_a from p_b by the count rule, then byte-mode scaling (ns-2 `modify_p`).
    fn p_a(&self, p_b: f64, size: u32) -> f64 {
        let (c, mean_pkt) = (&self.cfg, self.scaled.mean_pkt);
        let count = if c.prob_in_bytes {
            (self.st.count_bytes as f64 / mean_pkt).floor()
        } else {
            self.st.count as f64
        };
        let cp = count * p_b;
        let mut p = match c.count {
            CountRule::Ns2Wait if cp < 1.0 => 0.0,
            CountRule::Ns2Wait | CountRule::Altq if cp < 2.0 => p_b / (2.0 - cp),
            CountRule::FloydJacobson if cp < 1.0 => p_b / (1.0 - cp),
            _ => 1.0,
        };
        if c.prob_in_bytes && p < 1.0 {
            p = (p * f64::from(size) / mean_pkt).min(1.0);
        }
        p
    }

    /// Adaptive RED's step (docs/models/ns2.md §2.4): bounds are checked before the step.
    fn adapt(&mut self, now: Time) {
        let Some(a) = self.cfg.adaptive else { return };
        let (min_th, max_th) = (self.scaled.min_th, self.scaled.max_th);
        let span = max_th - min_th;
        let (lo, hi) = (min_th + a.band.0 * span, min_th + a.band.1 * span);
        let avg = self.st.avg;
        let old = self.st.max_p;
        if avg > hi && self.st.max_p <= a.top {
            self.st.max_p += a.alpha_max.min(self.st.max_p / 4.0);
        } else if avg < lo && self.st.max_p >= a.bottom {
            self.st.max_p *= a.beta;
        }
        // ns-2 moves `lastset` only when max_p changed; the timer variant runs on its own clock.
        if a.timing == AdaptTiming::Timer || self.st.max_p != old {
            self.st.last_adapt = now;
        }
    }

    /// Decide on an arrival of `size` bytes at `now` (updates the average and the count).
    fn decide(&mut self, size: u32, now: Time, rng: &mut Rng) -> (Decision, f64) {
        self.idle_decay(now);
        let q = self.qlen();
        let w = self.cfg.w_q;
        self.st.avg = (1.0 - w) * self.st.avg + w * q;
        if let Some(a) = self.cfg.adaptive {
            if a.timing == AdaptTiming::OnArrival && now > self.st.last_adapt + a.interval {
                self.adapt(now);
            }
        }
        self.st.count += 1;
        self.st.count_bytes += u64::from(size);
        let (c, s) = (&self.cfg, &self.scaled);
        let mut decision = Decision::Accept;
        let mut p_b = 0.0;
        if self.st.avg >= s.min_th && q >= c.min_backlog {
            let forced_level = if c.gentle { 2.0 * s.max_th } else { s.max_th };
            if self.st.avg >= forced_level {
                decision = Decision::Forced;
                p_b = 1.0;
            } else if !self.st.old {
                // The average just crossed min_th: start counting (ns-2, ALTQ).
                self.st.count = 1;
                self.st.count_bytes = u64::from(size);
                self.st.old = true;
            } else {
                p_b = self.p_b();
                if rng.uniform() < self.p_a(p_b, size) {
                    decision = Decision::Early;
                }
            }
        } else {
            self.st.old = false;
        }
        // ns-2 compares the backlog before the arrival with the limit, in the queue's unit, so a
        // byte-mode queue may pass its limit by one packet.
        if q >= s.limit {
            decision = Decision::Limit;
        }
        if decision != Decision::Accept {
            self.st.count = 0;
            self.st.count_bytes = 0;
        }
        (decision, p_b)
    }
}

impl QueueDisc for Red {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let (decision, p_b) = self.decide(pkt.size, now, rng);
        let ect = pkt.ecn != Ecn::NotEct;
        let c = &self.cfg;
        let (reason, mark) = match decision {
            Decision::Accept => {
                self.fifo.push((id, pkt.size));
                return Verdict::Enqueued;
            }
            Decision::Early => {
                let gentle_region = self.st.avg >= self.scaled.max_th;
                let markable = p_b < c.mark_below_p && (c.mark_above_max_th || !gentle_region);
                (DropReason::Early, c.ecn && ect && markable)
            }
            Decision::Forced => (DropReason::Forced, c.ecn && ect && c.mark_forced),
            Decision::Limit => (DropReason::Overflow, false),
        };
        if mark {
            self.fifo.push((id, pkt.size));
            let why = if decision == Decision::Early {
                MarkReason::Early
            } else {
                MarkReason::Forced
            };
            return Verdict::Marked(why);
        }
        if c.victim == Victim::Front && decision != Decision::Early {
            if let Some((victim, _)) = self.fifo.pop() {
                self.fifo.push((id, pkt.size));
                return Verdict::DroppedFront { victim, reason };
            }
        }
        Verdict::Dropped(reason)
    }

    fn dequeue(&mut self, _now: Time, _dropped: &mut DequeueDrops) -> Option<Departure> {
        self.fifo.pop().map(Departure::plain)
    }

    fn len_pkts(&self) -> u64 {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }

    fn link_idle(&mut self, now: Time) {
        if self.fifo.is_empty() && self.st.idle_since.is_none() {
            self.st.idle_since = Some(now);
        }
    }

    fn aqm_state(&self) -> AqmState {
        AqmState {
            red_avg: self.st.avg,
            red_max_p: self.st.max_p,
            ..AqmState::NONE
        }
    }

    fn next_timer(&self) -> Option<Time> {
        match self.cfg.adaptive {
            Some(a) if a.timing == AdaptTiming::Timer => Some(self.st.last_adapt + a.interval),
            _ => None,
        }
    }

    fn on_timer(&mut self, now: Time) {
        // Linux adapts with the average decayed for any idle time so far.
        if let Some(since) = self.st.idle_since {
            self.idle_decay(now);
            self.st.idle_since = Some(now.max(since));
        }
        self.adapt(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ns-2-like RED 5/15/0.1 in packets, w_q 0.002, on a 10 Mbit/s link with 500-byte mean packets.
    fn cfg() -> RedConfig {
        RedConfig {
            min_th: 5.0,
            max_th: 15.0,
            w_q: 0.002,
            ..ns2_base("test", Rate(10_000_000))
        }
    }

    fn red_at(cfg: RedConfig, avg: f64) -> Red {
        let mut r = Red::new(&cfg);
        r.st.avg = avg;
        r.st.idle_since = None;
        r
    }

    #[test]
    fn every_profile_is_named_and_starts_from_ns2s_red() {
        let link = Rate(10_000_000);
        for name in RED_PROFILES {
            let p = RedProfile::named(name, link).unwrap();
            assert_eq!((p.config.profile, p.config.bandwidth), (name, link));
        }
        assert!(RedProfile::named("cisco", link).is_none());
        // Only Linux adapts on a timer, and only it leaves the weight to tc's burst rule.
        let linux = RedProfile::named("linux", link).unwrap();
        assert_eq!(
            (linux.adapt_timing, linux.w_q),
            (AdaptTiming::Timer, Weight::TcBurst(None))
        );
        let ns2 = RedProfile::named("ns2-2003", link).unwrap();
        assert_eq!((ns2.min_th, ns2.w_q), (Threshold::Auto, Weight::Ns2Auto));
        assert_eq!(ns2.adapt_timing, AdaptTiming::OnArrival);
    }

    #[test]
    fn classic_and_gentle_drop_functions() {
        let r = red_at(cfg(), 10.0);
        assert!((r.p_b() - 0.05).abs() < 1e-12);
        assert_eq!(red_at(cfg(), 15.0).p_b(), 1.0);
        let gentle = RedConfig {
            gentle: true,
            ..cfg()
        };
        // Linear from max_p at max_th to 1 at 2·max_th: 0.1 + 0.9·(22.5 − 15)/15 = 0.55.
        assert!((red_at(gentle.clone(), 22.5).p_b() - 0.55).abs() < 1e-12);
        assert!((red_at(gentle.clone(), 15.0).p_b() - 0.1).abs() < 1e-12);
        assert_eq!(red_at(gentle, 30.0).p_b(), 1.0);
    }

    #[test]
    fn average_after_arrivals_and_an_idle_period_worked_by_hand() {
        let mut rng = Rng::stream(1, "red");
        let mut r = Red::new(&RedConfig { w_q: 0.5, ..cfg() });
        let pkt = Packet {
            size: 500,
            ..Packet::default()
        };
        // Arrivals at t = 0 to a queue of 0, 1, 2 packets (nothing leaves): avg 0, 0.5, 1.25.
        r.enqueue(0, &pkt, Time::ZERO, &mut rng);
        r.enqueue(1, &pkt, Time::ZERO, &mut rng);
        r.enqueue(2, &pkt, Time::ZERO, &mut rng);
        assert!((r.avg() - 1.25).abs() < 1e-12);
        for _ in 0..3 {
            r.dequeue(Time::ZERO, &mut DequeueDrops::new());
        }
        r.link_idle(Time::ZERO);
        // Idle for 1.25 ms = 3.125 mean-size packet times at 2500 pkt/s: ns-2 takes m = 3, so
        // avg = 1.25·0.5³ = 0.15625, then the arrival to the empty queue halves it again.
        r.enqueue(3, &pkt, Time::from_micros(1250), &mut rng);
        assert!((r.avg() - 0.078125).abs() < 1e-12, "{}", r.avg());
        // ALTQ counts one fewer packet time: m = 2.
        let mut a = red_at(
            RedConfig {
                w_q: 0.5,
                idle: IdleRule::Altq,
                ..cfg()
            },
            1.25,
        );
        a.link_idle(Time::ZERO);
        a.enqueue(0, &pkt, Time::from_micros(1250), &mut rng);
        assert!((a.avg() - 1.25 * 0.25 * 0.5).abs() < 1e-12, "{}", a.avg());
    }

    /// Arrivals at a fixed average with p_b = 0.02: the long-run early-drop rate under each rule.
    fn early_rate(rule: CountRule) -> f64 {
        let mut rng = Rng::stream(7, "red");
        // avg fixed at 6 → p_b = 0.1·(6 − 5)/10 = 0.01; use max_p 0.2 for p_b = 0.02.
        let mut r = red_at(
            RedConfig {
                count: rule,
                max_p: 0.2,
                w_q: 1e-12,
                limit: QueueLimit::Packets(1_000_000_000),
                ..cfg()
            },
            6.0,
        );
        let pkt = Packet {
            size: 500,
            ..Packet::default()
        };
        for i in 0..3 {
            r.fifo.push((i, 500));
        }
        let n = 2_000_000;
        let mut drops = 0;
        for i in 0..n {
            r.st.avg = 6.0;
            if let Verdict::Dropped(DropReason::Early) = r.enqueue(i, &pkt, Time::ZERO, &mut rng) {
                drops += 1;
            } else {
                r.fifo.pop();
            }
        }
        f64::from(drops) / f64::from(n) / 0.02
    }

    #[test]
    fn count_rules_give_their_long_run_drop_rates() {
        // docs/models/validation.md §3: ≈ 2·p_b (Floyd–Jacobson), ≈ 0.67·p_b (ns-2 wait), ≈ p_b
        // (ALTQ).
        let fj = early_rate(CountRule::FloydJacobson);
        let wait = early_rate(CountRule::Ns2Wait);
        let altq = early_rate(CountRule::Altq);
        assert!((fj - 2.0).abs() < 0.05, "Floyd–Jacobson {fj}");
        assert!((wait - 0.67).abs() < 0.03, "ns-2 wait {wait}");
        assert!((altq - 1.0).abs() < 0.03, "ALTQ {altq}");
    }

    #[test]
    fn byte_mode_scales_probability_by_size() {
        let r = red_at(
            RedConfig {
                prob_in_bytes: true,
                count: CountRule::FloydJacobson,
                ..cfg()
            },
            10.0,
        );
        // p_b 0.05, count 0: p_a = 0.05 for a mean-size packet, ×3 for 1500 B, ×0.592 for 296 B.
        assert!((r.p_a(0.05, 500) - 0.05).abs() < 1e-12);
        assert!((r.p_a(0.05, 1500) - 0.15).abs() < 1e-12);
        assert!((r.p_a(0.05, 296) - 0.05 * 296.0 / 500.0).abs() < 1e-12);
        assert_eq!(r.p_a(0.5, 16_000), 1.0);
    }

    #[test]
    fn forced_decisions_and_the_physical_limit() {
        let mut rng = Rng::stream(1, "red");
        let pkt = Packet {
            size: 500,
            ..Packet::default()
        };
        let mut r = red_at(cfg(), 20.0);
        for i in 0..3 {
            r.fifo.push((i, 500));
        }
        assert_eq!(
            r.enqueue(9, &pkt, Time::ZERO, &mut rng),
            Verdict::Dropped(DropReason::Forced)
        );
        // ECT packets are marked only where the profile says so.
        let ect = Packet {
            ecn: Ecn::Ect,
            ..pkt
        };
        let mut r = red_at(RedConfig { ecn: true, ..cfg() }, 20.0);
        r.fifo.push((0, 500));
        r.fifo.push((1, 500));
        assert_eq!(
            r.enqueue(9, &ect, Time::ZERO, &mut rng),
            Verdict::Dropped(DropReason::Forced)
        );
        let mut r = red_at(
            RedConfig {
                ecn: true,
                mark_forced: true,
                ..cfg()
            },
            20.0,
        );
        r.fifo.push((0, 500));
        r.fifo.push((1, 500));
        assert_eq!(
            r.enqueue(9, &ect, Time::ZERO, &mut rng),
            Verdict::Marked(MarkReason::Forced)
        );
        // A full queue drops whatever the average, and drop-front picks the oldest packet.
        let mut r = red_at(
            RedConfig {
                limit: QueueLimit::Packets(3),
                victim: Victim::Front,
                ..cfg()
            },
            0.0,
        );
        for i in 0..3 {
            r.fifo.push((i, 500));
        }
        assert_eq!(
            r.enqueue(9, &pkt, Time::ZERO, &mut rng),
            Verdict::DroppedFront {
                victim: 0,
                reason: DropReason::Overflow
            }
        );
        assert_eq!(r.len_pkts(), 3);
    }

    #[test]
    fn ns2_of_2000_to_2003_drops_ect_packets_in_the_gentle_region() {
        // An early decision that is certain (count · p_b ≥ 2) on an ECT packet, with the average
        // below max_th (p_b 0.05) and in gentle mode's region (25: p_b 0.1 + 0.9 · 10/15 = 0.7).
        let decide = |avg: f64, mark_above_max_th: bool| {
            let gentle_ecn = RedConfig {
                gentle: true,
                ecn: true,
                mark_above_max_th,
                ..cfg()
            };
            let mut r = red_at(gentle_ecn, avg);
            r.st.old = true;
            r.st.count = 100;
            for i in 0..3 {
                r.fifo.push((i, 500));
            }
            let ect = Packet {
                size: 500,
                ecn: Ecn::Ect,
                ..Packet::default()
            };
            r.enqueue(9, &ect, Time::ZERO, &mut Rng::stream(1, "red"))
        };
        let marked = Verdict::Marked(MarkReason::Early);
        assert_eq!(decide(10.0, true), marked);
        assert_eq!(decide(10.0, false), marked);
        assert_eq!(decide(25.0, true), marked);
        assert_eq!(decide(25.0, false), Verdict::Dropped(DropReason::Early));
    }

    #[test]
    fn adaptive_red_moves_max_p_toward_the_target_band() {
        let a = Adaptive::defaults(AdaptTiming::OnArrival);
        // Band [9, 11]. Above: +min(0.01, max_p/4); below: ×0.9; inside: unchanged.
        let mut r = red_at(
            RedConfig {
                adaptive: Some(a),
                ..cfg()
            },
            12.0,
        );
        r.adapt(Time::ZERO);
        assert!((r.max_p() - 0.11).abs() < 1e-12);
        r.st.avg = 10.0;
        r.adapt(Time::ZERO);
        assert!((r.max_p() - 0.11).abs() < 1e-12);
        r.st.avg = 8.0;
        r.adapt(Time::ZERO);
        assert!((r.max_p() - 0.099).abs() < 1e-12);
        // Small max_p grows by a quarter of itself.
        r.st.max_p = 0.02;
        r.st.avg = 12.0;
        r.adapt(Time::ZERO);
        assert!((r.max_p() - 0.025).abs() < 1e-12);
    }

    #[test]
    fn linux_adapts_on_its_own_timer_with_the_idle_decayed_average() {
        let a = Adaptive::defaults(AdaptTiming::Timer);
        let mut r = red_at(
            RedConfig {
                adaptive: Some(a),
                idle: IdleRule::Exact,
                ..cfg()
            },
            12.0,
        );
        assert_eq!(r.next_timer(), Some(Time::from_millis(500)));
        r.on_timer(Time::from_millis(500));
        assert!((r.max_p() - 0.11).abs() < 1e-12);
        assert_eq!(r.next_timer(), Some(Time::from_secs(1)));
        // Idle since 1 s: by 1.5 s the average has decayed by (1 − w)^(ptc·0.5 s) = 0.998^1250,
        // to 12·0.0817 ≈ 0.98, below the band: max_p falls.
        r.link_idle(Time::from_secs(1));
        r.on_timer(Time::from_millis(1500));
        assert!(
            (r.avg() - 12.0 * 0.998f64.powf(1250.0)).abs() < 1e-9,
            "{}",
            r.avg()
        );
        assert!((r.max_p() - 0.099).abs() < 1e-12);
    }
}
