//! Drop-tail FIFO: accept while there is room, drop the arrival when full.

use super::{Departure, DequeueDrops, DropReason, Fifo, QueueDisc, Verdict};
use crate::packet::{Packet, PacketId};
use crate::rng::Rng;
use crate::units::{QueueLimit, Time};

/// A FIFO with a limit in packets or bytes. The packet being transmitted is not in the queue
/// (as in ns-2, where the queue hands a packet to the link at once), so a `"50p"` queue holds up to
/// 50 waiting packets besides the one on the wire.
#[derive(Debug)]
pub struct DropTail {
    limit: QueueLimit,
    fifo: Fifo,
}

impl DropTail {
    pub fn new(limit: QueueLimit) -> DropTail {
        let reserve = match limit {
            QueueLimit::Packets(n) => n.min(1 << 16) as usize,
            QueueLimit::Bytes(b) => (b / 500).min(1 << 16) as usize,
        };
        DropTail {
            limit,
            fifo: Fifo::with_capacity(reserve),
        }
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, _now: Time, _rng: &mut Rng) -> Verdict {
        let (len, bytes) = (self.fifo.len(), self.fifo.bytes());
        if self.limit.would_overflow(len, bytes, u64::from(pkt.size)) {
            return Verdict::Dropped(DropReason::Overflow);
        }
        self.fifo.push((id, pkt.size));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, _now: Time, _dropped: &mut DequeueDrops) -> Option<Departure> {
        self.fifo.pop().map(Departure::plain)
    }

    fn passes_idle(&self, pkt: &Packet) -> bool {
        self.fifo.is_empty() && !self.limit.would_overflow(0, 0, u64::from(pkt.size))
    }

    fn idles_empty(&self) -> bool {
        self.fifo.is_empty()
    }

    fn len_pkts(&self) -> u64 {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sized(size: u32) -> Packet {
        Packet {
            size,
            ..Packet::default()
        }
    }

    #[test]
    fn packet_limit_drops_the_arrival_that_would_exceed_it() {
        let mut rng = Rng::stream(1, "t");
        let mut q = DropTail::new(QueueLimit::Packets(2));
        assert_eq!(
            q.enqueue(0, &sized(100), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(1, &sized(100), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(2, &sized(100), Time(0), &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        let mut dropped = DequeueDrops::new();
        let mut next = |q: &mut DropTail| q.dequeue(Time(3), &mut dropped).map(|d| (d.id, d.size));
        assert_eq!(next(&mut q), Some((0, 100)));
        assert_eq!(
            q.enqueue(3, &sized(100), Time(2), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!((q.len_pkts(), q.len_bytes()), (2, 200));
        assert_eq!(next(&mut q), Some((1, 100)));
        assert_eq!(next(&mut q), Some((3, 100)));
        assert_eq!(next(&mut q), None);
        assert!(dropped.is_empty());
    }

    #[test]
    fn only_an_empty_queue_with_room_passes_a_packet_through() {
        let mut rng = Rng::stream(1, "t");
        let mut q = DropTail::new(QueueLimit::Bytes(1500));
        assert!(q.passes_idle(&sized(1500)));
        assert!(
            !q.passes_idle(&sized(1501)),
            "a packet larger than the limit is dropped"
        );
        q.enqueue(0, &sized(100), Time(0), &mut rng);
        assert!(!q.passes_idle(&sized(100)), "one waits already");
        q.dequeue(Time(1), &mut DequeueDrops::new());
        assert!(q.passes_idle(&sized(100)));
    }

    #[test]
    fn the_transmitter_goes_idle_without_asking_only_an_empty_queue() {
        let mut rng = Rng::stream(1, "t");
        let mut q = DropTail::new(QueueLimit::Packets(5));
        assert!(q.idles_empty());
        q.enqueue(0, &sized(100), Time(0), &mut rng);
        assert!(!q.idles_empty(), "a packet waits to be sent");
        assert!(q.dequeue(Time(1), &mut DequeueDrops::new()).is_some());
        assert!(q.idles_empty());
    }

    #[test]
    fn byte_limit_counts_bytes() {
        let mut rng = Rng::stream(1, "t");
        let mut q = DropTail::new(QueueLimit::Bytes(1500));
        assert_eq!(
            q.enqueue(0, &sized(1000), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(1, &sized(600), Time(0), &mut rng),
            Verdict::Dropped(DropReason::Overflow)
        );
        assert_eq!(
            q.enqueue(2, &sized(500), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(q.len_bytes(), 1500);
    }
}
