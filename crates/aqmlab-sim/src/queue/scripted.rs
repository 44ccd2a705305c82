//! A dropper that drops (or CE-marks) chosen segments of chosen TCP connections, in front of a
//! drop-tail FIFO: the scripted losses of the scenario tests ("drop data segments 5, 7 and 9 of
//! flow 0 on their first transmission").

use super::{
    delegate_storage, Departure, DequeueDrops, DropReason, DropTail, MarkReason, QueueDisc, Verdict,
};
use crate::packet::{flags, Ecn, Packet, PacketId, Proto};
use crate::rng::Rng;
use crate::units::{QueueLimit, Time};

/// Which segment of a connection a rule picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// The opener's SYN.
    Syn,
    /// The SYN-ACK.
    SynAck,
    /// The data segment starting at this sequence number, from the data sender.
    Data { seq: u64 },
    /// The data sender's FIN.
    Fin,
}

/// What to do with a picked segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Drop,
    /// Set CE if the packet is ECN-capable (RFC 3168); otherwise drop it, as a router would.
    Mark,
}

/// One scripted decision: the `occurrence`-th arrival (1 = first transmission) of `segment` of
/// connection `conn`, whose data sender is the opener when `sender_is_opener`.
#[derive(Clone, Copy, Debug)]
pub struct ScriptedRule {
    pub conn: u32,
    pub sender_is_opener: bool,
    pub segment: SegmentKind,
    pub occurrence: u32,
    pub action: Action,
    seen: u32,
}

impl ScriptedRule {
    pub fn new(
        conn: u32,
        sender_is_opener: bool,
        segment: SegmentKind,
        occurrence: u32,
        action: Action,
    ) -> Self {
        ScriptedRule {
            conn,
            sender_is_opener,
            segment,
            occurrence,
            action,
            seen: 0,
        }
    }

    fn matches(&self, p: &Packet) -> bool {
        if p.proto != Proto::Tcp || p.flow != self.conn {
            return false;
        }
        let s = &p.seg;
        let from_sender = p.from_opener == self.sender_is_opener;
        match self.segment {
            SegmentKind::Syn => s.has(flags::SYN) && !s.has(flags::ACK),
            SegmentKind::SynAck => s.has(flags::SYN) && s.has(flags::ACK),
            SegmentKind::Data { seq } => from_sender && s.len > 0 && s.seq == seq,
            SegmentKind::Fin => from_sender && s.has(flags::FIN),
        }
    }
}

#[derive(Debug)]
pub struct Scripted {
    rules: Vec<ScriptedRule>,
    queue: DropTail,
}

impl Scripted {
    pub fn new(rules: Vec<ScriptedRule>, limit: QueueLimit) -> Scripted {
        Scripted {
            rules,
            queue: DropTail::new(limit),
        }
    }
}

impl QueueDisc for Scripted {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let mut action = None;
        for rule in self.rules.iter_mut().filter(|r| r.matches(pkt)) {
            rule.seen += 1;
            if rule.seen == rule.occurrence {
                action = Some(rule.action);
            }
        }
        match action {
            Some(Action::Drop) => Verdict::Dropped(DropReason::Scripted),
            Some(Action::Mark) if pkt.ecn == Ecn::NotEct => Verdict::Dropped(DropReason::Scripted),
            Some(Action::Mark) => match self.queue.enqueue(id, pkt, now, rng) {
                Verdict::Enqueued => Verdict::Marked(MarkReason::Scripted),
                other => other,
            },
            None => self.queue.enqueue(id, pkt, now, rng),
        }
    }
    delegate_storage!(queue);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Segment;

    fn data(conn: u32, seq: u64, ecn: Ecn) -> Packet {
        Packet {
            flow: conn,
            proto: Proto::Tcp,
            from_opener: false,
            ecn,
            size: 1040,
            seg: Segment {
                seq,
                len: 1000,
                flags: flags::ACK,
                ..Segment::default()
            },
            ..Packet::default()
        }
    }

    #[test]
    fn drops_only_the_chosen_occurrence_of_the_chosen_segment() {
        let mut rng = Rng::stream(1, "s");
        let rule = ScriptedRule::new(3, false, SegmentKind::Data { seq: 1001 }, 2, Action::Drop);
        let mut q = Scripted::new(vec![rule], QueueLimit::Packets(100));
        assert_eq!(
            q.enqueue(0, &data(3, 1001, Ecn::NotEct), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(1, &data(2, 1001, Ecn::NotEct), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(2, &data(3, 1, Ecn::NotEct), Time(0), &mut rng),
            Verdict::Enqueued
        );
        assert_eq!(
            q.enqueue(3, &data(3, 1001, Ecn::NotEct), Time(0), &mut rng),
            Verdict::Dropped(DropReason::Scripted)
        );
        assert_eq!(
            q.enqueue(4, &data(3, 1001, Ecn::NotEct), Time(0), &mut rng),
            Verdict::Enqueued
        );
    }

    #[test]
    fn marks_ect_packets_and_drops_the_others() {
        let mut rng = Rng::stream(1, "s");
        let rules = vec![
            ScriptedRule::new(0, false, SegmentKind::Data { seq: 1 }, 1, Action::Mark),
            ScriptedRule::new(1, false, SegmentKind::Data { seq: 1 }, 1, Action::Mark),
        ];
        let mut q = Scripted::new(rules, QueueLimit::Packets(100));
        assert_eq!(
            q.enqueue(0, &data(0, 1, Ecn::Ect), Time(0), &mut rng),
            Verdict::Marked(MarkReason::Scripted)
        );
        assert_eq!(
            q.enqueue(1, &data(1, 1, Ecn::NotEct), Time(0), &mut rng),
            Verdict::Dropped(DropReason::Scripted)
        );
    }
}
