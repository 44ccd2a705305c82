//! RACK-TLP loss detection (RFC 8985) as Linux has it: the per-segment record of what was sent
//! and when, RACK's time-based loss marking, and the tail loss probe's timeout.
//!
//! Sources (read, then written anew here):
//! - RFC 8985, "The RACK-TLP Loss Detection Algorithm for TCP" (2021): §6.2 (RACK_update,
//!   RACK_detect_reordering, the reordering window, RACK_detect_loss), §7 (TLP: when a probe is
//!   scheduled, its timeout, what it sends, and what its ACK says);
//! - Linux `net/ipv4/tcp_recovery.c` (`tcp_rack_advance`, `tcp_rack_reo_wnd`,
//!   `tcp_rack_detect_loss`, `tcp_rack_mark_lost`, `tcp_rack_reo_timeout`) and
//!   `net/ipv4/tcp_output.c` (`tcp_schedule_loss_probe`, `tcp_send_loss_probe`), with
//!   `tcp_process_tlp_ack` and `tcp_timeout_mark_lost` in `net/ipv4/tcp_input.c`.
//!
//! The sender (`endpoint.rs`) keeps the records ([`SentSegment`]), tells [`Rack`] what each ACK
//! delivered ([`Rack::deliver`]), and asks it which segments are lost ([`Rack::detect_loss`]).
//! With RACK-TLP its SACK recovery reads the records' marks (Linux's `tcp_packets_in_flight` and
//! retransmission queue) instead of RFC 6675's IsLost and HighRxt, and its one retransmission
//! timer serves the loss probe and the reordering window too ([`Slot`], Linux's `icsk_pending`).

use super::ranges::RangeSet;
use crate::packet::SackBlock;
use crate::units::Time;
use std::collections::VecDeque;

/// Linux's `TCP_TIMEOUT_MIN_US`: what the loss probe's timeout adds to 2·SRTT when more than one
/// segment is in flight, and the reordering timer to the time left.
pub const TIMEOUT_MIN: Time = Time::from_millis(2);

/// A data segment sent and not yet cumulatively acknowledged, in sequence order: for per-ACK RTT
/// samples (HyStart, Linux's CUBIC) and for RACK-TLP. 24 bytes, as many as the RTT samples alone
/// need: its length rather than its start, and one send time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SentSegment {
    /// Seq just past its last byte (its FIN included).
    pub end: u64,
    /// When it was last sent (RACK's `Segment.xmit_ts`): when it was first sent, unless
    /// `resent`.
    pub xmit: Time,
    /// Its length in sequence space.
    len: u32,
    /// It was sent again (Karn: its ACK measures nothing).
    pub resent: bool,
    /// RACK marked it lost (or a timeout did; Linux `TCPCB_LOST`).
    pub lost: bool,
    /// A retransmission of it is in flight (Linux `TCPCB_SACKED_RETRANS`).
    pub rexmit_out: bool,
    /// SACKed or cumulatively acknowledged.
    pub delivered: bool,
}

impl SentSegment {
    /// A segment `[start, end)` first sent at `now`.
    pub fn new(start: u64, end: u64, now: Time) -> SentSegment {
        SentSegment {
            end,
            xmit: now,
            len: (end - start) as u32,
            resent: false,
            lost: false,
            rexmit_out: false,
            delivered: false,
        }
    }

    /// Its first sequence number.
    pub fn start(&self) -> u64 {
        self.end - u64::from(self.len)
    }

    /// Is it in the network as RFC 6675's pipe and Linux's `tcp_packets_in_flight` count it:
    /// not delivered, and not lost or resent since (twice if not lost and resent)?
    fn in_flight(&self) -> u64 {
        if self.delivered {
            0
        } else {
            u64::from(!self.lost) + u64::from(self.rexmit_out)
        }
    }
}

/// Was (`t1`, `seq1`) sent after (`t2`, `seq2`)? The later time, or at the same time the higher
/// sequence (RFC 8985 `RACK_sent_after`; Linux `tcp_skb_sent_after`).
fn sent_after((t1, seq1): (Time, u64), (t2, seq2): (Time, u64)) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// What the sender's one retransmission timer stands for (Linux `icsk_pending`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Slot {
    /// The retransmission timeout.
    #[default]
    Rto,
    /// The tail loss probe's timeout (`ICSK_TIME_LOSS_PROBE`).
    Probe,
    /// The end of RACK's reordering window (`ICSK_TIME_REO_TIMEOUT`).
    Reorder,
}

/// RACK-TLP's state for one sender (RFC 8985 §5.2, §7.1; Linux `tp->rack`, `tlp_high_seq`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered.
    xmit_ts: Time,
    end_seq: u64,
    /// RACK.rtt: the RTT of that segment's delivery.
    rtt: Time,
    /// The least RTT of a segment sent once (Linux's `tcp_min_rtt`, over the connection).
    min_rtt: Option<Time>,
    /// RACK.fack: the highest end delivered.
    fack: u64,
    /// RACK.reordering_seen: a segment sent once was delivered below `fack`.
    reordering_seen: bool,
    /// Segments the last loss detection marked lost.
    pub newly_lost: u64,
    /// `snd_una` and `snd_max` when the event under way (an ACK, a timer, the application's
    /// write) began, to tell what it acknowledged and sent.
    pub before: Option<(u64, u64)>,
    /// When the reordering window that the last ACK's detection waits on ends, if it waits.
    pub reorder_at: Option<Time>,
    /// TLP.end_seq: `snd_nxt` when a probe went out, until its episode ends (Linux
    /// `tlp_high_seq`); and whether the probe was a retransmission (`tlp_retrans`).
    pub tlp_end: Option<u64>,
    pub tlp_retrans: bool,
    /// What the retransmission timer stands for, the deadline this sender last gave it, and the
    /// retransmission timeout's own deadline while the timer stands for another.
    pub slot: Slot,
    pub slot_at: Option<Time>,
    pub rto_at: Option<Time>,
}

impl Rack {
    /// RFC 8985 §6.2 steps 1–3 (Linux `tcp_rack_advance`): the segments an ACK up to `ack`
    /// with SACK blocks `blocks` delivered for the first time (`sacked`: the scoreboard with the
    /// blocks recorded) are marked delivered; a segment sent once delivered below the highest
    /// end delivered before is reordering; the newest segment delivered (sent last, or at the
    /// same time the highest) gives RACK.rtt and, if sent after RACK's, RACK's segment. A
    /// retransmitted segment delivered sooner than the least RTT after its retransmission is
    /// taken for its original's delivery and gives neither (Linux; RFC 8985 also uses the
    /// timestamps). Whether anything was delivered.
    pub fn deliver(
        &mut self,
        segs: &mut VecDeque<SentSegment>,
        ack: u64,
        blocks: &[SackBlock],
        sacked: &RangeSet,
        now: Time,
    ) -> bool {
        let fack = self.fack;
        let mut newest: Option<(Time, u64)> = None;
        let mut any = false;
        let mut take = |s: &mut SentSegment, rack: &mut Rack| {
            s.delivered = true;
            any = true;
            rack.fack = rack.fack.max(s.end);
            rack.reordering_seen |= s.end < fack && !s.resent;
            let rtt = now - s.xmit;
            if !s.resent {
                rack.min_rtt = Some(rack.min_rtt.map_or(rtt, |m| m.min(rtt)));
            } else if rack.min_rtt.is_some_and(|m| rtt < m) {
                return;
            }
            if newest.is_none_or(|n| sent_after((s.xmit, s.end), n)) {
                newest = Some((s.xmit, s.end));
            }
        };
        for s in segs.iter_mut().take_while(|s| s.end <= ack) {
            if !s.delivered {
                take(s, self);
            }
        }
        for b in blocks {
            let first = segs.partition_point(|s| s.end <= b.start);
            for s in segs.range_mut(first..) {
                if s.start() >= b.end {
                    break;
                }
                let covered = sacked.range_of(s.start()).is_some_and(|(_, e)| e >= s.end);
                if !s.delivered && covered {
                    take(s, self);
                }
            }
        }
        if let Some((xmit, end)) = newest {
            self.rtt = now - xmit;
            if sent_after((xmit, end), (self.xmit_ts, self.end_seq)) {
                (self.xmit_ts, self.end_seq) = (xmit, end);
            }
        }
        any
    }

    /// RFC 8985 §6.2, RACK_update_reo_wnd (Linux `tcp_rack_reo_wnd`, without DSACK's widening):
    /// none while in recovery or after a timeout (`recovering`), or with `dupthresh` or more
    /// segments SACKed, unless reordering was seen; else a quarter of the least RTT, at most SRTT.
    pub fn reo_wnd(
        &self,
        recovering: bool,
        sacked_segments: u64,
        dupthresh: u32,
        srtt: Option<Time>,
    ) -> Time {
        if !self.reordering_seen && (recovering || sacked_segments >= u64::from(dupthresh)) {
            return Time::ZERO;
        }
        let quarter = self.min_rtt.map_or(Time::MAX, |m| Time(m.0 / 4));
        quarter.min(srtt.unwrap_or(Time::MAX))
    }

    /// RFC 8985 §6.2, RACK_detect_loss (Linux `tcp_rack_detect_loss`): every segment not delivered,
    /// sent before RACK's segment and neither lost nor lost and not yet resent, is lost once
    /// RACK.rtt and `reo_wnd` have passed since it was (last) sent; its retransmission, if one was
    /// in flight, is then lost too. Returns the segments newly marked and how long until the next
    /// would be, if any waits.
    pub fn detect_loss(
        &mut self,
        segs: &mut VecDeque<SentSegment>,
        reo_wnd: Time,
        now: Time,
    ) -> (u64, Option<Time>) {
        let (mut newly, mut wait) = (0, None::<Time>);
        for s in segs.iter_mut() {
            let waiting_resend = s.lost && !s.rexmit_out;
            if s.delivered
                || waiting_resend
                || !sent_after((self.xmit_ts, self.end_seq), (s.xmit, s.end))
            {
                continue;
            }
            let due = s.xmit + self.rtt + reo_wnd;
            if due <= now {
                s.lost = true;
                s.rexmit_out = false;
                newly += 1;
            } else {
                wait = Some(wait.map_or(due - now, |w| w.max(due - now)));
            }
        }
        self.newly_lost = newly;
        (newly, wait)
    }
}

/// A retransmission timeout (Linux `tcp_timeout_mark_lost`): every segment not delivered is
/// lost, none resent.
pub fn mark_all_lost(segs: &mut VecDeque<SentSegment>) {
    for s in segs.iter_mut().filter(|s| !s.delivered) {
        s.lost = true;
        s.rexmit_out = false;
    }
}

/// Bytes in flight (RFC 6675's pipe with RACK's marks; Linux `tcp_packets_in_flight` in
/// bytes), above `snd_una`.
pub fn pipe(segs: &VecDeque<SentSegment>, snd_una: u64) -> u64 {
    segs.iter()
        .filter(|s| s.end > snd_una)
        .map(|s| (s.end - s.start().max(snd_una)) * s.in_flight())
        .sum()
}

/// Segments SACKed above `snd_una` (Linux `sacked_out`).
pub fn sacked_count(segs: &VecDeque<SentSegment>, snd_una: u64) -> u64 {
    segs.iter()
        .filter(|s| s.delivered && s.end > snd_una)
        .count() as u64
}

/// The first segment marked lost and not resent since (what Linux's retransmission queue sends
/// next), at or above `snd_una`.
pub fn first_lost(segs: &VecDeque<SentSegment>, snd_una: u64) -> Option<u64> {
    segs.iter()
        .find(|s| s.end > snd_una && !s.delivered && s.lost && !s.rexmit_out)
        .map(|s| s.start().max(snd_una))
}

/// The tail loss probe's timeout (RFC 8985 §7.2; Linux `tcp_schedule_loss_probe`): 2·SRTT
/// rounded up to the clock's `tick` (jiffies), plus `min_rto` with one segment in flight (the
/// receiver may delay its ACK: Linux takes `tcp_rto_min` for RFC 8985's WCDelAckT) or
/// [`TIMEOUT_MIN`] with more; `initial_rto` before an RTT sample (`TCP_TIMEOUT_INIT`). `srtt_us8`:
/// SRTT in µs·8 (Linux `srtt_us`).
pub fn probe_timeout(
    srtt_us8: Option<u64>,
    segments_out: usize,
    tick: Time,
    min_rto: Time,
    initial_rto: Time,
) -> Time {
    let Some(srtt_us8) = srtt_us8 else {
        return initial_rto;
    };
    let allowance = if segments_out == 1 {
        min_rto
    } else {
        TIMEOUT_MIN
    };
    round_up(Time::from_micros(srtt_us8 / 4) + allowance, tick)
}

/// `t` rounded up to a whole number of `tick`s (Linux `usecs_to_jiffies`).
pub fn round_up(t: Time, tick: Time) -> Time {
    Time(t.0.div_ceil(tick.0) * tick.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Time {
        Time::from_millis(n)
    }

    /// Five 1000-byte segments from seq 1, sent 1 ms apart from `t0`.
    fn five(t0: Time) -> VecDeque<SentSegment> {
        (0..5)
            .map(|i| SentSegment::new(1 + 1000 * i, 1001 + 1000 * i, t0 + ms(i)))
            .collect()
    }

    fn sack(sacked: &mut RangeSet, start: u64, end: u64) -> [SackBlock; 1] {
        sacked.insert(start, end);
        [SackBlock { start, end }]
    }

    #[test]
    fn a_segment_is_lost_once_a_later_one_is_delivered_and_the_window_has_passed() {
        let mut segs = five(Time::ZERO);
        let (mut rack, mut sacked) = (Rack::default(), RangeSet::default());
        // The first is acknowledged 100 ms after it left: RTT 100 ms.
        assert!(rack.deliver(&mut segs, 1001, &[], &sacked, ms(100)));
        assert_eq!(rack.min_rtt, Some(ms(100)));
        // The fourth is SACKed at 103 ms: the second and third, sent before it, are lost once
        // RACK.rtt (100 ms) and the window have passed since they left.
        let b = sack(&mut sacked, 3001, 4001);
        assert!(rack.deliver(&mut segs, 1001, &b, &sacked, ms(103)));
        assert_eq!((rack.xmit_ts, rack.rtt), (ms(3), ms(100)));
        let reo = rack.reo_wnd(false, 1, 3, Some(ms(100)));
        assert_eq!(reo, ms(25));
        assert_eq!(rack.detect_loss(&mut segs, reo, ms(103)), (0, Some(ms(24))));
        assert_eq!(rack.detect_loss(&mut segs, reo, ms(126)), (1, Some(ms(1))));
        assert!(segs[1].lost && !segs[2].lost && !segs[4].lost);
        assert_eq!(rack.detect_loss(&mut segs, reo, ms(127)), (1, None));
        // Lost and not yet resent: not in flight, and the first to resend.
        assert_eq!(first_lost(&segs, 1001), Some(1001));
        assert_eq!(pipe(&segs, 1001), 1000);
        // Resent: in flight again; and lost again once a later-sent segment is delivered and
        // the window has passed since the resend.
        segs[1].xmit = ms(130);
        (segs[1].resent, segs[1].rexmit_out) = (true, true);
        assert_eq!(first_lost(&segs, 1001), Some(2001));
        assert_eq!(pipe(&segs, 1001), 2000);
        segs[2].xmit = ms(131);
        (segs[2].resent, segs[2].rexmit_out) = (true, true);
        let b = sack(&mut sacked, 2001, 3001);
        assert!(rack.deliver(&mut segs, 1001, &b, &sacked, ms(231)));
        assert_eq!((rack.xmit_ts, rack.rtt), (ms(131), ms(100)));
        // The fifth, sent long before, is lost now too.
        assert_eq!(rack.detect_loss(&mut segs, ms(25), ms(256)), (2, None));
        assert!(segs[1].lost && !segs[1].rexmit_out && segs[4].lost);
        // With three segments SACKed and no reordering seen, no window: at once.
        assert_eq!(rack.reo_wnd(false, 3, 3, Some(ms(100))), Time::ZERO);
        assert_eq!(rack.reo_wnd(true, 0, 3, Some(ms(100))), Time::ZERO);
    }

    #[test]
    fn reordering_widens_the_window_and_an_ambiguous_retransmission_is_not_taken() {
        let mut segs = five(Time::ZERO);
        let (mut rack, mut sacked) = (Rack::default(), RangeSet::default());
        let b = sack(&mut sacked, 2001, 4001);
        rack.deliver(&mut segs, 1, &b, &sacked, ms(100));
        assert!(!rack.reordering_seen);
        // The first arrives after the later ones: reordering, so a window even with three
        // SACKed or in recovery: a quarter of the least RTT (97 ms), at most SRTT.
        rack.deliver(&mut segs, 1001, &[], &sacked, ms(101));
        assert!(rack.reordering_seen);
        let quarter = Time::from_micros(24_250);
        assert_eq!(rack.reo_wnd(true, 3, 3, Some(ms(120))), quarter);
        assert_eq!(rack.reo_wnd(true, 3, 3, Some(ms(20))), ms(20));
        // A resent segment SACKed 10 ms after its resend (under the least RTT, 97 ms): the
        // original's delivery, not the resend's; RACK stays where it was.
        assert_eq!(rack.min_rtt, Some(ms(97)));
        segs[4].xmit = ms(150);
        segs[4].resent = true;
        let before = (rack.xmit_ts, rack.end_seq, rack.rtt);
        let b = sack(&mut sacked, 4001, 5001);
        assert!(rack.deliver(&mut segs, 1001, &b, &sacked, ms(160)));
        assert_eq!((rack.xmit_ts, rack.end_seq, rack.rtt), before);
    }

    #[test]
    fn a_record_is_as_small_as_the_rtt_samples_alone_need() {
        assert_eq!(std::mem::size_of::<SentSegment>(), 24);
        let s = SentSegment::new(1001, 2449, ms(5));
        assert_eq!((s.start(), s.end, s.xmit), (1001, 2449, ms(5)));
    }

    #[test]
    fn the_probe_timeout_is_two_srtt_and_a_delayed_ack_allowance_for_one_segment() {
        // SRTT 50.3005 ms (µs·8: 402 404): 2·SRTT = 100.601 ms, + 2 ms, up to the 1 ms tick.
        let srtt = Some(402_404);
        let (tick, min_rto, init) = (ms(1), ms(200), Time::from_secs(1));
        assert_eq!(probe_timeout(srtt, 5, tick, min_rto, init), ms(103));
        assert_eq!(probe_timeout(srtt, 1, tick, min_rto, init), ms(301));
        assert_eq!(probe_timeout(None, 5, tick, min_rto, init), init);
        assert_eq!(round_up(Time(1), ms(1)), ms(1));
        assert_eq!(round_up(ms(3), ms(1)), ms(3));
    }
}
