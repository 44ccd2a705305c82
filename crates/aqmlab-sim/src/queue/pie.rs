//! PIE, Proportional Integral controller Enhanced (RFC 8033), as Linux implements it
//! (`net/sched/sch_pie.c`, `net/sched/pie.c`, `include/net/pie.h`).
//!
//! Every `tupdate` a timer moves the drop probability p by
//! `alpha·(qdelay − target) + beta·(qdelay − qdelay_old)` (delays in seconds), the step scaled down
//! while p is small (RFC 8033 §4.2: /2 below 10 %, /8 below 1 %, … /2048 below 0.0001 %), capped
//! at +2 % once p ≥ 10 %, plus 2 % while qdelay exceeds 250 ms, and decayed by 1/64 (Linux; the
//! RFC's 2 %) after two updates with no delay. Arrivals are dropped with probability p, except
//! within the burst allowance (150 ms from start, consumed by the time between dequeues), while
//! qdelay < target/2 and p < 20 %, or with less than two MTUs queued; Linux's de-randomization
//! (`accu_prob`: no drop while the accumulated p is below 0.85, a drop once it reaches 8.5) is
//! kept. With `ecn`, an ECN-capable packet is marked instead while p ≤ 10 %.
//!
//! The queueing delay is Linux's default since 5.1 (`dq_rate_estimator` off): the sojourn time of
//! the last packet dequeued, from its enqueue timestamp, 0 when it left the queue empty; not
//! RFC 8033 §5.2's departure-rate estimate. p is an `f64` in [0, 1] (Linux: a 56-bit fixed point).
//! The first update is `tupdate` after the start (Linux arms its timer at 500 ms).

use super::codel::{Entry, TimedFifo, MTU};
use super::{AqmState, Departure, DequeueDrops, DropReason, MarkReason, QueueDisc, Verdict};
use crate::packet::{Packet, PacketId};
use crate::rng::Rng;
use crate::units::Time;
use serde::Serialize;

/// The burst allowance (RFC 8033 §4.4, Linux `pie_vars_init`).
const BURST_ALLOWANCE: Time = Time::from_millis(150);

/// PIE's configuration (scenario `kind = "pie"`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PieConfig {
    /// Packets.
    pub limit: u64,
    pub target: Time,
    pub tupdate: Time,
    pub alpha: f64,
    pub beta: f64,
    pub ecn: bool,
}

impl Default for PieConfig {
    /// tc-pie(8): limit 1000 packets, target 15 ms, tupdate 15 ms, alpha 2 and beta 20 (in 1/16:
    /// 0.125 and 1.25), noecn.
    fn default() -> PieConfig {
        PieConfig {
            limit: 1000,
            target: Time::from_millis(15),
            tupdate: Time::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            ecn: false,
        }
    }
}

/// A PIE queue.
#[derive(Debug)]
pub struct Pie {
    params: PieConfig,
    queue: TimedFifo,
    prob: f64,
    accu_prob: f64,
    burst_time: Time,
    qdelay: Time,
    qdelay_old: Time,
    /// When the last packet left (`None`: none since the measurement cycle restarted).
    dq_tstamp: Option<Time>,
    next_update: Time,
}

impl Pie {
    pub fn new(params: PieConfig) -> Pie {
        Pie {
            params,
            queue: TimedFifo::default(),
            prob: 0.0,
            accu_prob: 0.0,
            burst_time: BURST_ALLOWANCE,
            qdelay: Time::ZERO,
            qdelay_old: Time::ZERO,
            dq_tstamp: None,
            next_update: params.tupdate,
        }
    }

    /// Linux `pie_drop_early`.
    fn drop_early(&mut self, rng: &mut Rng) -> bool {
        let p = &self.params;
        if self.burst_time > Time::ZERO
            || (self.qdelay.0 < p.target.0 / 2 && self.prob < 0.2)
            || self.queue.bytes() < 2 * u64::from(MTU)
        {
            return false;
        }
        if self.prob == 0.0 {
            self.accu_prob = 0.0;
        } else {
            self.accu_prob += self.prob;
        }
        if self.accu_prob < 0.85 {
            return false;
        }
        if self.accu_prob >= 8.5 {
            return true;
        }
        if rng.uniform() < self.prob {
            self.accu_prob = 0.0;
            return true;
        }
        false
    }

    /// Linux `pie_calculate_probability`, on the timer.
    fn update_probability(&mut self) {
        let p = self.params;
        let backlog = self.queue.bytes();
        let (qdelay, qdelay_old) = (self.qdelay, self.qdelay_old);
        let mut decay = !(qdelay == Time::ZERO && backlog != 0);
        let secs = |t: Time| t.as_secs_f64();
        let mut delta =
            p.alpha * (secs(qdelay) - secs(p.target)) + p.beta * (secs(qdelay) - secs(qdelay_old));
        delta /= step_scale(self.prob);
        if delta > 0.02 && self.prob >= 0.1 {
            delta = 0.02;
        }
        if qdelay > Time::from_millis(250) {
            delta += 0.02;
        }
        self.prob += delta;
        if self.prob > 1.0 {
            self.prob = 1.0;
            decay = false;
        } else if self.prob < 0.0 {
            self.prob = 0.0;
        }
        if qdelay == Time::ZERO && qdelay_old == Time::ZERO && decay {
            self.prob -= self.prob / 64.0;
        }
        let half = Time(p.target.0 / 2);
        if qdelay < half && qdelay_old < half && self.prob == 0.0 {
            // Restart the measurement cycle (Linux `pie_vars_init`).
            self.burst_time = BURST_ALLOWANCE;
            self.dq_tstamp = None;
            self.accu_prob = 0.0;
        }
        self.qdelay_old = qdelay;
    }
}

/// What RFC 8033 §4.2 divides the probability step by while p is small (Linux: alpha and beta
/// halved below 10 %, then quartered per decade down to 0.0001 %).
fn step_scale(prob: f64) -> f64 {
    if prob >= 0.1 {
        return 1.0;
    }
    let (mut scale, mut power) = (2.0, 100.0);
    while prob < 1.0 / power && power <= 1e6 {
        scale *= 4.0;
        power *= 10.0;
    }
    scale
}

impl QueueDisc for Pie {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let entry = Entry::new(id, pkt, now);
        let verdict = if self.queue.len() >= self.params.limit {
            Verdict::Dropped(DropReason::Overflow)
        } else if !self.drop_early(rng) {
            Verdict::Enqueued
        } else if self.params.ecn && self.prob <= 0.1 && entry.ect {
            Verdict::Marked(MarkReason::Pie)
        } else {
            Verdict::Dropped(DropReason::Pie)
        };
        match verdict {
            Verdict::Dropped(_) => self.accu_prob = 0.0,
            _ => self.queue.push(entry),
        }
        verdict
    }

    /// Linux `pie_process_dequeue` without the rate estimator.
    fn dequeue(&mut self, now: Time, _dropped: &mut DequeueDrops) -> Option<Departure> {
        let e = self.queue.pop()?;
        self.qdelay = if self.queue.bytes() == 0 {
            Time::ZERO
        } else {
            now - e.at
        };
        let dtime = self.dq_tstamp.map_or(Time::ZERO, |t| now - t);
        self.dq_tstamp = Some(now);
        self.burst_time = Time(self.burst_time.0.saturating_sub(dtime.0));
        Some(Departure {
            id: e.id,
            size: e.size,
            mark: None,
        })
    }

    fn len_pkts(&self) -> u64 {
        self.queue.len()
    }

    fn len_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    fn aqm_state(&self) -> AqmState {
        AqmState {
            pie_prob: self.prob,
            ..AqmState::NONE
        }
    }

    fn next_timer(&self) -> Option<Time> {
        Some(self.next_update)
    }

    fn on_timer(&mut self, now: Time) {
        self.update_probability();
        self.next_update = now + self.params.tupdate;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    fn params() -> PieConfig {
        PieConfig {
            target: Time::from_millis(15),
            tupdate: Time::from_millis(15),
            alpha: 0.125,
            beta: 1.25,
            ecn: false,
            limit: 1000,
        }
    }

    /// PIE at probability `p` that last measured `qdelay`, `qdelay_old` before that, with a
    /// backlog, after one update.
    fn updated(p: f64, qdelay_ms: u64, old_ms: u64) -> f64 {
        let mut q = Pie::new(params());
        let mut rng = Rng::stream(1, "t");
        q.enqueue(0, &Packet::default(), Time::ZERO, &mut rng);
        q.prob = p;
        q.qdelay = Time::from_millis(qdelay_ms);
        q.qdelay_old = Time::from_millis(old_ms);
        q.on_timer(Time::from_millis(15));
        q.prob
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }

    #[test]
    fn the_controller_moves_p_by_alpha_and_beta_scaled_by_p() {
        let step = 0.125 * (0.030 - 0.015) + 1.25 * (0.030 - 0.020);
        close(updated(0.2, 30, 20), 0.2 + step);
        close(updated(0.05, 30, 20), 0.05 + step / 2.0);
        close(updated(0.005, 30, 20), 0.005 + step / 8.0);
        close(updated(0.0005, 30, 20), 0.0005 + step / 32.0);
        close(updated(0.00005, 30, 20), 0.00005 + step / 128.0);
        close(updated(0.000005, 30, 20), 0.000005 + step / 512.0);
        close(updated(0.0, 30, 20), step / 2048.0);
        // Below target, with a falling delay: p falls.
        let down = 0.125 * (0.010 - 0.015) + 1.25 * (0.010 - 0.012);
        close(updated(0.3, 10, 12), 0.3 + down);
    }

    #[test]
    fn large_steps_are_capped_and_a_long_delay_adds_two_percent() {
        // Above 10 %, an increase is at most 2 %.
        close(updated(0.2, 100, 20), 0.22);
        // Below 10 % the cap does not apply.
        let step = 0.125 * (0.100 - 0.015) + 1.25 * (0.100 - 0.020);
        close(updated(0.05, 100, 20), 0.05 + step / 2.0);
        // qdelay > 250 ms: the capped 2 % plus 2 %.
        close(updated(0.5, 300, 300), 0.54);
        close(updated(0.99, 300, 300), 1.0);
    }

    #[test]
    fn two_updates_without_delay_decay_p_by_a_64th() {
        // An empty queue: qdelay = qdelay_old = 0.
        let mut q = Pie::new(params());
        q.prob = 0.2;
        q.on_timer(Time::from_millis(15));
        let after_step = 0.2 + 0.125 * (0.0 - 0.015);
        close(q.prob, after_step - after_step / 64.0);
    }

    #[test]
    fn no_early_drops_during_the_burst_allowance_or_at_low_delay() {
        let mut rng = Rng::stream(1, "t");
        let mut q = Pie::new(params());
        let pkt = Packet {
            size: 1500,
            ..Packet::default()
        };
        q.prob = 1.0;
        q.qdelay = Time::from_millis(100);
        for i in 0..10 {
            assert_eq!(q.enqueue(i, &pkt, Time::ZERO, &mut rng), Verdict::Enqueued);
        }
        // Dequeues 1 ms apart consume the allowance; then the drops start.
        let mut dropped = DequeueDrops::new();
        q.dequeue(Time::ZERO, &mut dropped);
        q.dequeue(Time::from_millis(149), &mut dropped);
        assert_eq!(q.burst_time, Time::from_millis(1));
        q.dequeue(Time::from_millis(150), &mut dropped);
        assert_eq!(q.burst_time, Time::ZERO);
        q.qdelay = Time::from_millis(100);
        assert_eq!(
            q.enqueue(20, &pkt, Time::ZERO, &mut rng),
            Verdict::Dropped(DropReason::Pie)
        );
        // qdelay < target/2 and p < 20 %: no drop.
        q.prob = 0.19;
        q.qdelay = Time::from_millis(7);
        for i in 21..40 {
            assert_eq!(q.enqueue(i, &pkt, Time::ZERO, &mut rng), Verdict::Enqueued);
        }
    }

    #[test]
    fn ecn_marks_only_while_p_is_at_most_ten_percent() {
        let mut rng = Rng::stream(1, "t");
        let mut q = Pie::new(PieConfig {
            ecn: true,
            ..params()
        });
        let pkt = Packet {
            size: 1500,
            ecn: Ecn::Ect,
            ..Packet::default()
        };
        for i in 0..3 {
            q.enqueue(i, &pkt, Time::ZERO, &mut rng);
        }
        q.burst_time = Time::ZERO;
        q.qdelay = Time::from_millis(100);
        // accu_prob ≥ 8.5 forces the decision: p = 0.1 marks, p = 0.11 drops.
        q.prob = 0.1;
        q.accu_prob = 8.5;
        assert_eq!(
            q.enqueue(3, &pkt, Time::ZERO, &mut rng),
            Verdict::Marked(MarkReason::Pie)
        );
        q.prob = 0.11;
        q.accu_prob = 8.5;
        assert_eq!(
            q.enqueue(4, &pkt, Time::ZERO, &mut rng),
            Verdict::Dropped(DropReason::Pie)
        );
        assert_eq!(q.accu_prob, 0.0);
    }
}
