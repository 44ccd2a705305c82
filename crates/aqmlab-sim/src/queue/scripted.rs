//! A dropper that drops (or CE-marks) chosen segments of chosen TCP connections, in front of a
//! drop-tail FIFO: the scripted losses of the scenario tests ("drop data segments 5, 7 and 9 of
//! flow 0 on their first transmission").

use super::{
    delegate_storage, Departure, DequeueDrops, DropReason, DropTail, MarkReason, QueueDisc, Verdict,
};
use crate::packet::{flags, Ecn, Packet, PacketId, Proto};
use crate::rng::Rng;
use crate::units::{QueueLimit, Time};
use serde::Serialize;

/// Which segment of a TCP connection a rule picks (the scenario's `what`, and `segment` for data).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "what", rename_all = "lowercase")]
pub enum SegmentKind {
    /// The opener's SYN.
    Syn,
    /// The SYN-ACK.
    SynAck,
    /// The `segment`-th full-sized data segment (from 1) of the data sender.
    Data { segment: u64 },
    /// The data sender's FIN.
    Fin,
}

impl SegmentKind {
    /// The name a scenario gives it (`what`).
    pub fn name(self) -> &'static str {
        match self {
            SegmentKind::Syn => "syn",
            SegmentKind::SynAck => "synack",
            SegmentKind::Data { .. } => "data",
            SegmentKind::Fin => "fin",
        }
    }
}

/// What to do with a picked segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Drop,
    /// Set CE if the packet is ECN-capable (RFC 3168); otherwise drop it, as a router would.
    Mark,
}

/// One scripted decision about a connection: the `occurrence`-th arrival (1 = first
/// transmission) of `segment`, and what to do with it. The scenario names the connection by
/// traffic group and flow (`queue::config::FlowRule`); the engine by its [`Target`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ScriptedRule {
    #[serde(flatten)]
    pub segment: SegmentKind,
    pub occurrence: u32,
    pub action: Action,
}

/// The connection a rule is about, as the engine numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub conn: u32,
    /// The data sender is the end that opened the connection.
    pub sender_is_opener: bool,
    /// The connection's MSS: data segment n starts at sequence number 1 + (n − 1)·mss.
    pub mss: u64,
}

impl Target {
    /// Is `p` the segment `kind` of this connection?
    fn carries(&self, kind: SegmentKind, p: &Packet) -> bool {
        if p.proto != Proto::Tcp || p.flow != self.conn {
            return false;
        }
        let s = &p.seg;
        let from_sender = p.from_opener == self.sender_is_opener;
        match kind {
            SegmentKind::Syn => s.has(flags::SYN) && !s.has(flags::ACK),
            SegmentKind::SynAck => s.has(flags::SYN) && s.has(flags::ACK),
            SegmentKind::Data { segment } => {
                from_sender
                    && s.len > 0
                    && s.seq == (segment - 1).saturating_mul(self.mss).saturating_add(1)
            }
            SegmentKind::Fin => from_sender && s.has(flags::FIN),
        }
    }
}

/// A rule in force: its connection and how often its segment has arrived.
#[derive(Debug)]
struct Armed {
    target: Target,
    rule: ScriptedRule,
    seen: u32,
}

#[derive(Debug)]
pub struct Scripted {
    rules: Vec<Armed>,
    queue: DropTail,
}

impl Scripted {
    pub fn new(
        rules: impl IntoIterator<Item = (Target, ScriptedRule)>,
        limit: QueueLimit,
    ) -> Scripted {
        Scripted {
            rules: rules
                .into_iter()
                .map(|(target, rule)| Armed {
                    target,
                    rule,
                    seen: 0,
                })
                .collect(),
            queue: DropTail::new(limit),
        }
    }
}

impl QueueDisc for Scripted {
    fn enqueue(&mut self, id: PacketId, pkt: &Packet, now: Time, rng: &mut Rng) -> Verdict {
        let mut action = None;
        for armed in self.rules.iter_mut() {
            if armed.target.carries(armed.rule.segment, pkt) {
                armed.seen += 1;
                if armed.seen == armed.rule.occurrence {
                    action = Some(armed.rule.action);
                }
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

    /// Data segment `segment` of connection `conn`, 1000-byte segments, sent by the accepting end.
    fn rule(conn: u32, segment: u64, occurrence: u32, action: Action) -> (Target, ScriptedRule) {
        let target = Target {
            conn,
            sender_is_opener: false,
            mss: 1000,
        };
        let segment = SegmentKind::Data { segment };
        let rule = ScriptedRule {
            segment,
            occurrence,
            action,
        };
        (target, rule)
    }

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
        let mut q = Scripted::new([rule(3, 2, 2, Action::Drop)], QueueLimit::Packets(100));
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
        let rules = [rule(0, 1, 1, Action::Mark), rule(1, 1, 1, Action::Mark)];
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
