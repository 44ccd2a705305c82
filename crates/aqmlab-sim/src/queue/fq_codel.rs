//! FQ-CoDel, the FlowQueue-CoDel packet scheduler and AQM (RFC 8290), as Linux implements it
//! (`net/sched/sch_fq_codel.c`).
//!
//! Arrivals are hashed by their flow (the 5-tuple: here the transport, the connection or UDP flow,
//! its direction and the two hosts) into one of `flows` buckets, each a FIFO with its own CoDel
//! state ([`CodelVars`], compared with the whole backlog as Linux does). A deficit round robin with
//! `quantum` bytes serves the buckets: a bucket that becomes active joins the *new* list with a full
//! quantum and is served before the *old* ones; one whose deficit is spent goes to the end of the
//! old list with another quantum; an emptied new bucket passes through the old list once before
//! leaving (no starvation of old flows). When the queue exceeds `limit` packets, the head packet of
//! the bucket with the most bytes is dropped (`overflow`).
//!
//! Differences from Linux, documented: one packet is dropped per overflow where Linux (since 4.7)
//! drops up to half the fat bucket's bytes, at most 64 packets, in one go; the hash has no random
//! perturbation (Linux seeds its flow hash at boot), so it is the same in every run, which keeps runs
//! reproducible; there is no `memory_limit` (packets are counted, not buffers).

use super::codel::{CodelConfig, CodelVars, Entry, TimedFifo, MTU};
use super::{AqmState, Departure, DequeueDrops, DropReason, QueueDisc, Verdict};
use crate::packet::{Packet, PacketId, Proto};
use crate::rng::Rng;
use crate::units::Time;
use serde::Serialize;
use std::collections::VecDeque;

/// FQ-CoDel's configuration (scenario `kind = "fq_codel"`): the per-flow CoDel's, whose `limit`
/// (packets) is the whole queue's, written flat beside `flows` and `quantum`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FqCodelConfig {
    #[serde(flatten)]
    pub codel: CodelConfig,
    pub flows: u32,
    /// Bytes; written as a size (`"1514B"`), as the scenario gives it.
    #[serde(serialize_with = "as_size")]
    pub quantum: u32,
}

/// A byte count written as the scenario language's size, so that a resolved scenario reads back.
fn as_size<S: serde::Serializer>(bytes: &u32, s: S) -> Result<S::Ok, S::Error> {
    crate::units::Size(u64::from(*bytes)).serialize(s)
}

impl Default for FqCodelConfig {
    /// tc-fq_codel(8): limit 10240 packets, 1024 flows, quantum 1514 bytes, target 5 ms,
    /// interval 100 ms, ecn.
    fn default() -> FqCodelConfig {
        FqCodelConfig {
            codel: CodelConfig {
                limit: 10240,
                ecn: true,
                ..CodelConfig::default()
            },
            flows: 1024,
            quantum: MTU,
        }
    }
}

#[derive(Debug, Default)]
struct Bucket {
    queue: TimedFifo,
    vars: CodelVars,
    deficit: i64,
    /// On the new or the old list.
    listed: bool,
}

/// An FQ-CoDel queue.
#[derive(Debug)]
pub struct FqCodel {
    params: FqCodelConfig,
    buckets: Vec<Bucket>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    pkts: u64,
    bytes: u64,
    /// Buckets whose CoDel is in the drop state (kept as they change, for the queue log).
    dropping: u32,
}

/// The SplitMix64 finalizer: a fixed, well-mixing hash of a 64-bit word.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl FqCodel {
    pub fn new(params: FqCodelConfig) -> FqCodel {
        FqCodel {
            params,
            buckets: (0..params.flows).map(|_| Bucket::default()).collect(),
            new_flows: VecDeque::with_capacity(params.flows as usize),
            old_flows: VecDeque::with_capacity(params.flows as usize),
            pkts: 0,
            bytes: 0,
            dropping: 0,
        }
    }

    /// The bucket of a packet's flow: its 5-tuple hashed, scaled to `flows` (Linux
    /// `reciprocal_scale`).
    fn bucket_of(&self, pkt: &Packet) -> u32 {
        let id = (u64::from(pkt.flow) << 2)
            | (u64::from(pkt.proto == Proto::Tcp) << 1)
            | u64::from(pkt.from_opener);
        let hash = mix(mix(id) ^ ((u64::from(pkt.src) << 32) | u64::from(pkt.dst)));
        (((hash >> 32) * u64::from(self.params.flows)) >> 32) as u32
    }

    /// The bucket holding the most bytes (Linux `fq_codel_drop`'s search).
    fn fattest(&self) -> usize {
        let mut best = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            if b.queue.bytes() > self.buckets[best].queue.bytes() {
                best = i;
            }
        }
        best
    }
}

impl QueueDisc for FqCodel {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, _rng: &mut Rng) -> Verdict {
        let idx = self.bucket_of(pkt);
        let quantum = i64::from(self.params.quantum);
        let b = &mut self.buckets[idx as usize];
        b.queue.push(Entry::new(id, pkt, now));
        if !b.listed {
            b.listed = true;
            b.deficit = quantum;
            self.new_flows.push_back(idx);
        }
        self.pkts += 1;
        self.bytes += u64::from(pkt.size);
        if self.pkts <= self.params.codel.limit {
            return Verdict::Enqueued;
        }
        let fat = self.fattest();
        let fat = &mut self.buckets[fat];
        let victim = fat.queue.pop().expect("the fattest bucket holds a packet");
        self.pkts -= 1;
        self.bytes -= u64::from(victim.size);
        if victim.id == id {
            Verdict::Dropped(DropReason::Overflow)
        } else {
            Verdict::DroppedFront {
                victim: victim.id,
                reason: DropReason::Overflow,
            }
        }
    }

    fn dequeue(&mut self, now: Time, dropped: &mut DequeueDrops) -> Option<Departure> {
        loop {
            let (from_new, idx) = match self.new_flows.front() {
                Some(&i) => (true, i),
                None => (false, *self.old_flows.front()?),
            };
            if from_new {
                self.new_flows.pop_front();
            } else {
                self.old_flows.pop_front();
            }
            let b = &mut self.buckets[idx as usize];
            if b.deficit <= 0 {
                b.deficit += i64::from(self.params.quantum);
                self.old_flows.push_back(idx);
                continue;
            }
            let other = self.bytes - b.queue.bytes();
            let before = (b.queue.len(), b.queue.bytes(), b.vars.dropping());
            let next = b
                .vars
                .dequeue(&self.params.codel, &mut b.queue, other, now, dropped);
            self.dropping = self.dropping + u32::from(b.vars.dropping()) - u32::from(before.2);
            self.pkts -= before.0 - b.queue.len();
            self.bytes -= before.1 - b.queue.bytes();
            match next {
                Some(d) => {
                    b.deficit -= i64::from(d.size);
                    // Still at the head of its list.
                    if from_new {
                        self.new_flows.push_front(idx);
                    } else {
                        self.old_flows.push_front(idx);
                    }
                    return Some(d);
                }
                // Emptied: a new bucket passes through the old list once (RFC 8290 §4.2).
                None if from_new && !self.old_flows.is_empty() => self.old_flows.push_back(idx),
                None => b.listed = false,
            }
        }
    }

    fn len_pkts(&self) -> u64 {
        self.pkts
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn aqm_state(&self) -> AqmState {
        AqmState {
            codel_dropping: f64::from(self.dropping),
            ..AqmState::NONE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(limit: u64) -> FqCodelConfig {
        FqCodelConfig {
            codel: CodelConfig {
                limit,
                target: Time::from_millis(5),
                interval: Time::from_millis(100),
                ecn: true,
            },
            flows: 1024,
            quantum: 1514,
        }
    }

    fn of_flow(flow: u32, size: u32) -> Packet {
        Packet {
            flow,
            size,
            proto: Proto::Udp,
            ..Packet::default()
        }
    }

    #[test]
    fn flows_are_served_round_robin_by_quantum_new_flows_first() {
        let mut rng = Rng::stream(1, "t");
        let mut q = FqCodel::new(params(1000));
        assert_ne!(q.bucket_of(&of_flow(1, 0)), q.bucket_of(&of_flow(2, 0)));
        // Flow 1 queues six 1000-byte packets, then flow 2 one 100-byte packet.
        for i in 0..6 {
            q.enqueue(i, &of_flow(1, 1000), Time::ZERO, &mut rng);
        }
        let mut dropped = DequeueDrops::new();
        let mut next = |q: &mut FqCodel| q.dequeue(Time::ZERO, &mut dropped).map(|d| d.id);
        // Flow 1 (new) spends its 1514-byte quantum on two packets and moves to the old list.
        assert_eq!(next(&mut q), Some(0));
        q.enqueue(100, &of_flow(2, 100), Time::ZERO, &mut rng);
        assert_eq!(next(&mut q), Some(1));
        // Flow 2 is new: served before flow 1 gets its next quantum.
        assert_eq!(next(&mut q), Some(100));
        // Flow 2, emptied, passes through the old list; flow 1 takes two packets per round.
        assert_eq!(next(&mut q), Some(2));
        assert_eq!(next(&mut q), Some(3));
        assert_eq!(next(&mut q), Some(4));
        assert_eq!(next(&mut q), Some(5));
        assert_eq!(next(&mut q), None);
        assert_eq!((q.len_pkts(), q.len_bytes()), (0, 0));
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
    }

    /// The count of flow queues in CoDel's drop state kept for the queue log equals a scan of
    /// the buckets, as flows enter and leave it: three flows held 2 to 4 ms apart in sojourn
    /// time, dequeued every ms.
    #[test]
    fn the_dropping_count_follows_the_flow_queues() {
        let mut rng = Rng::stream(1, "t");
        let mut q = FqCodel::new(params(10_000));
        let mut dropped = DequeueDrops::new();
        let (mut id, mut seen) = (0, Vec::new());
        for ms in 0..600u64 {
            let now = Time::from_millis(ms);
            // Flows 1 and 2 send two packets per ms (one more than their share), flow 3 one per
            // 3 ms until 300 ms.
            for flow in [1, 2] {
                for _ in 0..2 {
                    q.enqueue(id, &of_flow(flow, 1000), now, &mut rng);
                    id += 1;
                }
            }
            if ms < 300 && ms % 3 == 0 {
                q.enqueue(id, &of_flow(3, 1000), now, &mut rng);
                id += 1;
            }
            for _ in 0..3 {
                q.dequeue(now, &mut dropped);
            }
            dropped.clear();
            let scan = q.buckets.iter().filter(|b| b.vars.dropping()).count();
            assert_eq!(q.aqm_state().codel_dropping, scan as f64, "at {ms} ms");
            seen.push(scan);
        }
        assert!(seen.contains(&0) && seen.contains(&2), "{seen:?}");
    }

    #[test]
    fn overflow_drops_the_head_of_the_fattest_flow() {
        let mut rng = Rng::stream(1, "t");
        let mut q = FqCodel::new(params(4));
        for i in 0..3 {
            assert_eq!(
                q.enqueue(i, &of_flow(1, 1000), Time::ZERO, &mut rng),
                Verdict::Enqueued
            );
        }
        assert_eq!(
            q.enqueue(3, &of_flow(2, 100), Time::ZERO, &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(4, &of_flow(2, 100), Time::ZERO, &mut rng),
            Verdict::DroppedFront {
                victim: 0,
                reason: DropReason::Overflow
            }
        );
        assert_eq!((q.len_pkts(), q.len_bytes()), (4, 2200));
    }

    #[test]
    fn an_arrival_to_the_fattest_empty_flow_is_the_victim() {
        let mut rng = Rng::stream(1, "t");
        let mut q = FqCodel::new(params(1));
        q.enqueue(0, &of_flow(1, 100), Time::ZERO, &mut rng);
        assert_eq!(
            q.enqueue(1, &of_flow(2, 1000), Time::ZERO, &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        assert_eq!((q.len_pkts(), q.len_bytes()), (1, 100));
    }
}
