//! A dropper that drops every arriving packet with a fixed probability, in front of a drop-tail
//! FIFO: the controlled losses of the queue-law experiments (Chung & Claypool; Firoiu & Borden,
//! docs/models/validation.md §2) and of the throughput-law validation (Padhye et al.,
//! docs/models/validation.md §1.2).
//!
//! With `ecn` it is a marker (RFC 3168 §5): a chosen packet that is ECN-capable (ECT, or already
//! CE) is marked CE and queued instead of dropped, as RED's ECN does; a chosen non-ECT packet is
//! dropped. The random draw is the same either way, so `ecn` changes only what happens to a chosen
//! packet (Chung & Claypool's "ECN marks instead of drops", their Figs. 10–11).

use super::{
    delegate_storage, Departure, DequeueDrops, DropReason, DropTail, MarkReason, QueueDisc, Verdict,
};
use crate::packet::{Ecn, Packet, PacketId};
use crate::rng::Rng;
use crate::units::{QueueLimit, Time};

#[derive(Debug)]
pub struct Bernoulli {
    p: f64,
    ecn: bool,
    queue: DropTail,
}

impl Bernoulli {
    /// Drop (or, with `ecn`, mark ECN-capable packets) each arrival with probability `p`; keep the
    /// rest in a FIFO of `limit`.
    pub fn new(p: f64, ecn: bool, limit: QueueLimit) -> Bernoulli {
        Bernoulli {
            p,
            ecn,
            queue: DropTail::new(limit),
        }
    }
}

impl QueueDisc for Bernoulli {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        if rng.uniform() < self.p {
            if !(self.ecn && pkt.ecn != Ecn::NotEct) {
                return Verdict::Dropped(DropReason::Random);
            }
            // Marked, if the FIFO has room for it (a full FIFO drops it as an overflow).
            return match self.queue.enqueue(id, pkt, now, rng) {
                Verdict::Enqueued => Verdict::Marked(MarkReason::Random),
                other => other,
            };
        }
        self.queue.enqueue(id, pkt, now, rng)
    }
    delegate_storage!(queue);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offer `n` packets with ECN field `ecn` to `q`, dequeuing every accepted one at once;
    /// (enqueued unmarked, marked, dropped at random).
    fn offer(q: &mut Bernoulli, ecn: Ecn, n: u32) -> (u32, u32, u32) {
        let mut rng = Rng::stream(9, "bernoulli");
        let pkt = Packet {
            size: 100,
            ecn,
            ..Packet::default()
        };
        let (mut plain, mut marked, mut dropped) = (0, 0, 0);
        for i in 0..n {
            match q.enqueue(i, &pkt, Time(0), &mut rng) {
                Verdict::Dropped(DropReason::Random) => dropped += 1,
                v @ (Verdict::Enqueued | Verdict::Marked(MarkReason::Random)) => {
                    if v == Verdict::Enqueued {
                        plain += 1;
                    } else {
                        marked += 1;
                    }
                    q.dequeue(Time(0), &mut DequeueDrops::new());
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        (plain, marked, dropped)
    }

    #[test]
    fn drops_the_given_share_of_arrivals() {
        let n = 200_000;
        let (_, marked, dropped) = offer(
            &mut Bernoulli::new(0.02, false, QueueLimit::Packets(10)),
            Ecn::NotEct,
            n,
        );
        assert_eq!(marked, 0);
        let rate = f64::from(dropped) / f64::from(n);
        assert!((rate - 0.02).abs() < 0.0015, "{rate}");
    }

    #[test]
    fn without_ecn_it_drops_ect_packets_too() {
        let n = 200_000;
        let (_, marked, dropped) = offer(
            &mut Bernoulli::new(0.02, false, QueueLimit::Packets(10)),
            Ecn::Ect,
            n,
        );
        assert_eq!(marked, 0);
        let rate = f64::from(dropped) / f64::from(n);
        assert!((rate - 0.02).abs() < 0.0015, "{rate}");
    }

    #[test]
    fn with_ecn_it_marks_ect_packets_and_drops_none() {
        let n = 200_000;
        let (_, marked, dropped) = offer(
            &mut Bernoulli::new(0.02, true, QueueLimit::Packets(10)),
            Ecn::Ect,
            n,
        );
        assert_eq!(dropped, 0);
        let rate = f64::from(marked) / f64::from(n);
        assert!((rate - 0.02).abs() < 0.0015, "{rate}");
        // The same draws choose the same packets: the marks are exactly the drops without ecn.
        let (_, _, would_drop) = offer(
            &mut Bernoulli::new(0.02, false, QueueLimit::Packets(10)),
            Ecn::Ect,
            n,
        );
        assert_eq!(marked, would_drop);
    }

    #[test]
    fn with_ecn_it_still_drops_packets_that_are_not_ecn_capable() {
        let (_, marked, dropped) = offer(
            &mut Bernoulli::new(0.5, true, QueueLimit::Packets(10)),
            Ecn::NotEct,
            10_000,
        );
        assert_eq!(marked, 0);
        assert!(dropped > 4_000, "{dropped}");
    }

    #[test]
    fn a_marked_packet_that_finds_the_fifo_full_overflows() {
        let mut rng = Rng::stream(1, "t");
        let mut q = Bernoulli::new(1.0, true, QueueLimit::Packets(1));
        let pkt = Packet {
            size: 100,
            ecn: Ecn::Ect,
            ..Packet::default()
        };
        assert_eq!(
            q.enqueue(0, &pkt, Time(0), &mut rng),
            Verdict::Marked(MarkReason::Random)
        );
        assert_eq!(
            q.enqueue(1, &pkt, Time(0), &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        assert_eq!(q.len_pkts(), 1);
    }
}
