//! CoDel, Controlled Delay (RFC 8289; Nichols & Jacobson, "Controlling Queue Delay", ACM Queue
//! 2012), as Linux implements it (`include/net/codel.h`, `include/net/codel_impl.h`,
//! `net/sched/sch_codel.c`).
//!
//! Each packet is stamped with its enqueue time; at dequeue its sojourn time is compared with
//! `target`. Once the sojourn time has stayed at or above `target` for more than `interval` (and
//! more than an MTU is queued), CoDel enters its drop state: it drops (or with `ecn` marks an ECN-capable
//! packet) at the head and schedules the next drop by the control law
//! `drop_next = t + interval / sqrt(count)`; it leaves the state at the first packet whose sojourn
//! time is below `target`. On re-entry soon after leaving (`now − drop_next < 16·interval`) it
//! carries over the drops of the last cycle, `count = count − lastcount` if that exceeds 1
//! (`codel_impl.h`). Linux's Newton iteration of 1/sqrt(count) is replaced by the exact square
//! root (the RFC's pseudo-code), so drop times are `floor(interval / sqrt(count))` ns apart.
//!
//! The state ([`CodelVars`]) and its dequeue are separate from the storage ([`TimedFifo`]) so that
//! FQ-CoDel runs one per flow.

use super::{
    AqmState, Departure, DequeueDrops, DropReason, Fifo, MarkReason, QueueDisc, Stored, Verdict,
};
use crate::packet::{Ecn, Packet, PacketId};
use crate::rng::Rng;
use crate::units::Time;
use serde::Serialize;

/// The MTU CoDel compares the backlog with, and FQ-CoDel's default quantum: Linux's
/// `psched_mtu()` of an Ethernet device (1500 + 14 bytes of header).
pub const MTU: u32 = 1514;

/// CoDel's configuration (scenario `kind = "codel"`; also FQ-CoDel's per-flow CoDel, whose
/// `limit` is the whole queue's).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct CodelConfig {
    /// Packets.
    pub limit: u64,
    pub target: Time,
    pub interval: Time,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
}

impl Default for CodelConfig {
    /// tc-codel(8): limit 1000 packets, target 5 ms, interval 100 ms, noecn.
    fn default() -> CodelConfig {
        CodelConfig {
            limit: 1000,
            target: Time::from_millis(5),
            interval: Time::from_millis(100),
            ecn: false,
        }
    }
}

/// A waiting packet with what CoDel needs at dequeue: its enqueue time and ECN capability.
#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub id: PacketId,
    pub size: u32,
    pub at: Time,
    pub ect: bool,
}

impl Entry {
    pub fn new(id: PacketId, pkt: &Packet, now: Time) -> Entry {
        Entry {
            id,
            size: pkt.size,
            at: now,
            ect: pkt.ecn != Ecn::NotEct,
        }
    }
}

impl Stored for Entry {
    fn size(&self) -> u32 {
        self.size
    }
}

/// A FIFO of time-stamped packets.
pub type TimedFifo = Fifo<Entry>;

/// CoDel's per-queue state (Linux `struct codel_vars`).
#[derive(Clone, Copy, Debug, Default)]
pub struct CodelVars {
    /// Drops (or marks) since entering the drop state, and its value when last entered.
    count: u32,
    lastcount: u32,
    dropping: bool,
    /// When the sojourn time will have been above target for an interval (`None`: it is not).
    first_above_time: Option<Time>,
    drop_next: Time,
}

impl CodelVars {
    /// In the drop state (for the queue log).
    pub fn dropping(&self) -> bool {
        self.dropping
    }

    /// `t + interval / sqrt(count)`.
    fn control_law(&self, t: Time, p: &CodelConfig) -> Time {
        t + Time((p.interval.0 as f64 / f64::from(self.count).sqrt()) as u64)
    }

    /// Linux `codel_should_drop`: has the sojourn time been at or above target for more than an
    /// interval? `backlog` is the bytes still queued after `e` left. "More than": a dequeue at
    /// exactly `first_above_time` does not drop yet (`codel_time_after(now, first_above_time)`,
    /// strictly after).
    fn should_drop(&mut self, e: Option<&Entry>, backlog: u64, now: Time, p: &CodelConfig) -> bool {
        let Some(e) = e else {
            self.first_above_time = None;
            return false;
        };
        if now - e.at < p.target || backlog <= u64::from(MTU) {
            self.first_above_time = None;
            return false;
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + p.interval);
                false
            }
            Some(t) => now > t,
        }
    }

    /// Linux `codel_dequeue`: the next packet of `q` to send, dropping (into `dropped`) or marking
    /// on the way. `other_bytes` is what the discipline holds outside `q` (FQ-CoDel compares the
    /// whole backlog with the MTU).
    pub fn dequeue(
        &mut self,
        p: &CodelConfig,
        q: &mut TimedFifo,
        other_bytes: u64,
        now: Time,
        dropped: &mut DequeueDrops,
    ) -> Option<Departure> {
        let mut head = q.pop();
        if head.is_none() {
            self.dropping = false;
            return None;
        }
        let mut mark = None;
        let drop = self.should_drop(head.as_ref(), q.bytes() + other_bytes, now, p);
        if self.dropping {
            if !drop {
                self.dropping = false;
            } else {
                while self.dropping && now >= self.drop_next {
                    let e = head.expect("the drop state holds a packet");
                    self.count += 1;
                    if p.ecn && e.ect {
                        mark = Some(MarkReason::Codel);
                        self.drop_next = self.control_law(self.drop_next, p);
                        break;
                    }
                    dropped.push((e.id, DropReason::Codel));
                    head = q.pop();
                    if self.should_drop(head.as_ref(), q.bytes() + other_bytes, now, p) {
                        self.drop_next = self.control_law(self.drop_next, p);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if drop {
            let e = head.expect("should_drop holds a packet");
            if p.ecn && e.ect {
                mark = Some(MarkReason::Codel);
            } else {
                dropped.push((e.id, DropReason::Codel));
                head = q.pop();
                self.should_drop(head.as_ref(), q.bytes() + other_bytes, now, p);
            }
            self.dropping = true;
            let delta = self.count.wrapping_sub(self.lastcount);
            let since = now.0 as i128 - self.drop_next.0 as i128;
            self.count = if delta > 1 && since < 16 * i128::from(p.interval.0) {
                delta
            } else {
                1
            };
            self.lastcount = self.count;
            self.drop_next = self.control_law(now, p);
        }
        head.map(|e| Departure {
            id: e.id,
            size: e.size,
            mark,
        })
    }
}

/// CoDel with a tail-drop limit in packets (Linux `sch_codel.c`, default 1000).
#[derive(Debug)]
pub struct Codel {
    params: CodelConfig,
    queue: TimedFifo,
    vars: CodelVars,
}

impl Codel {
    pub fn new(params: CodelConfig) -> Codel {
        Codel {
            params,
            queue: TimedFifo::default(),
            vars: CodelVars::default(),
        }
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        if self.queue.len() >= self.params.limit {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.queue.push(Entry::new(id, pkt, now));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, now: Time, dropped: &mut DequeueDrops) -> Option<Departure> {
        self.vars
            .dequeue(&self.params, &mut self.queue, 0, now, dropped)
    }

    fn len_pkts(&self) -> u64 {
        self.queue.len()
    }

    fn len_bytes(&self) -> u64 {
        self.queue.bytes()
    }

    fn aqm_state(&self) -> AqmState {
        AqmState {
            codel_dropping: f64::from(u8::from(self.vars.dropping)),
            ..AqmState::NONE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn params(ecn: bool) -> CodelConfig {
        CodelConfig {
            limit: 1000,
            target: Time::from_millis(5),
            interval: Time::from_millis(100),
            ecn,
        }
    }

    fn pkt(ecn: Ecn) -> Packet {
        Packet {
            size: 1000,
            ecn,
            ..Packet::default()
        }
    }

    /// A queue kept at `backlog` packets that all arrived at time 0 (so the sojourn time is `now`)
    /// and refilled after every dequeue; dequeues every ms from `from` to `to`. Returns the times
    /// of drops (or marks) and the count at each.
    fn standing(q: &mut Codel, from: u64, to: u64, ecn: Ecn) -> Vec<(u64, u32)> {
        let mut rng = Rng::stream(1, "t");
        let mut next_id = 0;
        let mut fill = |q: &mut Codel| {
            while q.len_pkts() < 10 {
                q.enqueue(next_id, &pkt(ecn), Time::ZERO, &mut rng);
                next_id += 1;
            }
        };
        let mut events = Vec::new();
        let mut dropped = DequeueDrops::new();
        for t in from..=to {
            fill(q);
            let d = q
                .dequeue(Time(t * MS), &mut dropped)
                .expect("a standing queue");
            for _ in dropped.drain(..) {
                events.push((t * MS, q.vars.count));
            }
            if d.mark.is_some() {
                events.push((t * MS, q.vars.count));
            }
        }
        events
    }

    /// The drop times and counts the control law gives from a first drop at `first`: drop k comes
    /// interval/√(k − 1) after drop k − 1 (each step floored to the ns).
    fn law(first: u64, n: u32) -> Vec<(u64, u32)> {
        let mut t = first;
        let mut out = vec![(t, 1)];
        for k in 2..=n {
            t += (100.0 * MS as f64 / f64::from(k - 1).sqrt()) as u64;
            out.push((t, k));
        }
        out
    }

    #[test]
    fn a_standing_queue_is_dropped_at_interval_then_interval_over_sqrt_count() {
        let mut q = Codel::new(params(false));
        // Sojourn time = now: above target from 5 ms, so dropping is allowed strictly after
        // 5 + 100 = 105 ms: the dequeue at 105 ms sends, the one at 106 ms drops.
        let events = standing(&mut q, 0, 400, Ecn::NotEct);
        let expected: Vec<_> = law(106 * MS, 10)
            .into_iter()
            .filter(|&(t, _)| t <= 400 * MS)
            .map(|(t, k)| (t.div_ceil(MS) * MS, k))
            .collect();
        assert_eq!(events, expected);
        assert!(expected.len() >= 4);
    }

    #[test]
    fn ecn_marks_capable_packets_on_the_same_schedule() {
        let mut q = Codel::new(params(true));
        let marks = standing(&mut q, 0, 400, Ecn::Ect);
        let mut plain = Codel::new(params(false));
        assert_eq!(marks, standing(&mut plain, 0, 400, Ecn::NotEct));
    }

    #[test]
    fn below_target_leaves_the_drop_state_and_reentry_carries_the_count() {
        let mut q = Codel::new(params(false));
        let first = standing(&mut q, 0, 400, Ecn::NotEct);
        let (last_drop, count) = *first.last().unwrap();
        assert!(q.vars.dropping);
        // Drain and refill with fresh packets: sojourn 0 < target leaves the drop state.
        let mut dropped = DequeueDrops::new();
        let mut rng = Rng::stream(1, "t");
        while q.dequeue(Time(401 * MS), &mut dropped).is_some() {}
        dropped.clear();
        for i in 0..3 {
            q.enqueue(1000 + i, &pkt(Ecn::NotEct), Time(402 * MS), &mut rng);
        }
        q.dequeue(Time(402 * MS), &mut dropped);
        assert!(!q.vars.dropping);
        // A standing queue again soon after (drop_next within 16 intervals): the first drop of the
        // new cycle starts from count − lastcount = count − 1, not from 1; above target from
        // 505 ms, so strictly after 605 ms: at 606 ms.
        while q.dequeue(Time(403 * MS), &mut dropped).is_some() {}
        dropped.clear();
        let second = standing_from(&mut q, 500, 800);
        assert_eq!(second[0], (606 * MS, count - 1));
        assert!(second[0].0 - last_drop < 16 * 100 * MS);
        // The schedule continues from the carried count.
        let t2 = 606 * MS + (100.0 * MS as f64 / f64::from(count - 1).sqrt()) as u64;
        assert_eq!(second[1], (t2.div_ceil(MS) * MS, count));
    }

    #[test]
    fn reentry_long_after_starts_from_one() {
        let mut q = Codel::new(params(false));
        standing(&mut q, 0, 400, Ecn::NotEct);
        let mut dropped = DequeueDrops::new();
        while q.dequeue(Time(401 * MS), &mut dropped).is_some() {}
        let late = 401 + 16 * 100 + 10;
        let events = standing_from(&mut q, late, late + 200);
        assert_eq!(events[0], ((late + 106) * MS, 1));
    }

    /// `standing` with packets stamped at `from` (sojourn = now − from).
    fn standing_from(q: &mut Codel, from: u64, to: u64) -> Vec<(u64, u32)> {
        let mut rng = Rng::stream(1, "t");
        let mut next_id = 10_000;
        let mut events = Vec::new();
        let mut dropped = DequeueDrops::new();
        for t in from..=to {
            while q.len_pkts() < 10 {
                q.enqueue(next_id, &pkt(Ecn::NotEct), Time(from * MS), &mut rng);
                next_id += 1;
            }
            q.dequeue(Time(t * MS), &mut dropped);
            for _ in dropped.drain(..) {
                events.push((t * MS, q.vars.count));
            }
        }
        events
    }

    #[test]
    fn the_limit_drops_arrivals() {
        let mut rng = Rng::stream(1, "t");
        let mut q = Codel::new(CodelConfig {
            limit: 2,
            ..params(false)
        });
        let p = pkt(Ecn::NotEct);
        assert_eq!(q.enqueue(0, &p, Time::ZERO, &mut rng), Verdict::Enqueued);
        assert_eq!(q.enqueue(1, &p, Time::ZERO, &mut rng), Verdict::Enqueued);
        assert_eq!(
            q.enqueue(2, &p, Time::ZERO, &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
    }
}
