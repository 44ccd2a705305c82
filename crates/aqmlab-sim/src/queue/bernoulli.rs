//! A dropper that drops every arriving packet with a fixed probability, in front of a drop-tail
//! FIFO: the controlled losses of the queue-law experiments (Chung & Claypool; Firoiu & Borden,
//! models.md §6.2) and of the throughput-law validation (Padhye et al., models.md §6.1).

use super::{delegate_storage, DropReason, DropTail, QueueDisc, Verdict};
use crate::packet::{Packet, PacketId};
use crate::rng::Rng;
use crate::units::{QueueLimit, Time};

#[derive(Debug)]
pub struct Bernoulli {
    p: f64,
    queue: DropTail,
}

impl Bernoulli {
    /// Drop each arrival with probability `p`; keep the rest in a FIFO of `limit`.
    pub fn new(p: f64, limit: QueueLimit) -> Bernoulli {
        Bernoulli {
            p,
            queue: DropTail::new(limit),
        }
    }
}

impl QueueDisc for Bernoulli {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        if rng.uniform() < self.p {
            return Verdict::Dropped(DropReason::Random);
        }
        self.queue.enqueue(id, pkt, now, rng)
    }
    delegate_storage!(queue);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_the_given_share_of_arrivals() {
        let mut rng = Rng::stream(9, "bernoulli");
        let mut q = Bernoulli::new(0.02, QueueLimit::Packets(10));
        let pkt = Packet {
            size: 100,
            ..Packet::default()
        };
        let n = 200_000;
        let mut dropped = 0;
        for i in 0..n {
            match q.enqueue(i, &pkt, Time(0), &mut rng) {
                Verdict::Dropped(DropReason::Random) => dropped += 1,
                Verdict::Enqueued => {
                    q.dequeue(Time(0));
                }
                other => panic!("unexpected {other:?}"),
            }
        }
        let rate = f64::from(dropped) / f64::from(n);
        assert!((rate - 0.02).abs() < 0.0015, "{rate}");
    }
}
