//! Packets as small semantic records in a recycling arena: no heap allocation per packet on the hot
//! path (docs/architecture.md, "Engine principles"). Real header bytes exist only where a file is
//! written.

use crate::units::Time;

/// Index of a packet in the [`PacketArena`].
pub type PacketId = u32;

/// Which transport a packet belongs to; `Packet::flow` indexes that transport's table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Proto {
    #[default]
    Udp,
    Tcp,
}

/// The ECN field of the IP header (RFC 3168 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Ecn {
    #[default]
    NotEct,
    Ect,
    Ce,
}

/// TCP header flags (RFC 793, RFC 3168 for ECE and CWR).
pub mod flags {
    pub const SYN: u8 = 1;
    pub const ACK: u8 = 2;
    pub const FIN: u8 = 4;
    pub const ECE: u8 = 8;
    pub const CWR: u8 = 16;
}

/// A SACK block (RFC 2018): the bytes `[start, end)` were received. Aligned to 16 bytes so that a
/// [`Packet`]'s blocks start its second cache line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// The transport fields of a packet. UDP uses only `seq` (a packet count); TCP all of them, with
/// sequence numbers in bytes from an initial sequence number of 0 (the SYN occupies seq 0, data
/// starts at 1, the FIN occupies the seq after the last data byte). Only the first `nsack` SACK
/// blocks mean anything: a packet in the arena keeps no others ([`PacketArena`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Segment {
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    pub flags: u8,
    pub nsack: u8,
    /// RFC 7323 timestamps (TSval, TSecr), in microseconds modulo 2³², when the connection uses
    /// them (`timestamps`; else 0). They fill the padding before `sack`, so cost no space.
    pub ts_val: u32,
    pub ts_ecr: u32,
    pub sack: [SackBlock; 3],
}

impl Segment {
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Sequence space the segment occupies: payload, plus one each for SYN and FIN.
    pub fn seq_len(&self) -> u64 {
        u64::from(self.len) + u64::from(self.has(flags::SYN)) + u64::from(self.has(flags::FIN))
    }

    pub fn sack_blocks(&self) -> &[SackBlock] {
        &self.sack[..self.nsack as usize]
    }
}

/// One packet in flight. Fields are what the models read.
///
/// Laid out by hand (`repr(C)`, 64-byte aligned): everything but the SACK blocks is in the first
/// cache line, which is all that a hop (routing, queueing, transmitting) and the delivery of a
/// segment without SACK blocks read.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub struct Packet {
    /// When its source sent it (for one-way delay).
    pub sent_at: Time,
    /// Index of the flow (UDP) or connection (TCP) in the simulation's tables.
    pub flow: u32,
    /// Size on the wire, in bytes.
    pub size: u32,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    pub proto: Proto,
    /// TCP: sent by the endpoint that opened the connection (the client side of it).
    pub from_opener: bool,
    pub ecn: Ecn,
    pub seg: Segment,
}

/// A pool of packets; freed slots are reused, so the pool grows only to the peak number in flight.
///
/// A packet's SACK blocks (its second cache line) are written and read only when it or the slot's
/// previous packet has some: a slot without SACK blocks keeps its blocks zero, so that packets
/// without SACK cost one cache line each.
///
/// When each packet entered its current queue is kept apart from the packets, in a dense table
/// of its own: a link reads it when the packet leaves the queue, long after the packet was last
/// touched, and 8 bytes a packet stay in cache where a whole packet (over 100 bytes) does not
/// (with 10,000 flows, reading it from the packet was half of the transmitter's time).
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
    enqueued_at: Vec<Time>,
    free: Vec<PacketId>,
}

impl PacketArena {
    #[inline(always)]
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        // The segment from a copy: a reference into `p` would keep `p` whole in memory, 64-byte
        // aligned, and so realign the caller's stack frame ([`Self::alloc_with`]).
        let seg = p.seg;
        self.alloc_with(p, &seg)
    }

    /// [`Self::alloc`] of `p` with segment `seg` in place of `p.seg` (not read): the segment is
    /// copied from where it is, without building a whole packet around it first.
    ///
    /// The packet is written field by field, never built whole: a whole `Packet` (64-byte
    /// aligned) built on the stack makes the caller realign its stack frame, at a cost on every
    /// call. The rare case of SACK blocks to copy or clear is out of line.
    #[inline(always)]
    pub fn alloc_with(&mut self, p: Packet, seg: &Segment) -> PacketId {
        let id = match self.free.pop() {
            Some(id) => id,
            None => self.new_slot(),
        };
        self.fill(id, p, seg);
        id
    }

    /// Put `p` with segment `seg` (as [`Self::alloc_with`]) in the slot of packet `id`, which is
    /// allocated (not freed): a packet that has arrived gives its slot to the next one at once,
    /// as freeing it and allocating would.
    #[inline(always)]
    pub fn fill(&mut self, id: PacketId, p: Packet, seg: &Segment) {
        debug_assert!(!self.free.contains(&id), "packet {id} is free");
        let slot = &mut self.slots[id as usize];
        slot.sent_at = p.sent_at;
        slot.flow = p.flow;
        slot.size = p.size;
        slot.src = p.src;
        slot.dst = p.dst;
        slot.proto = p.proto;
        slot.from_opener = p.from_opener;
        slot.ecn = p.ecn;
        if seg.nsack == 0 && slot.seg.nsack == 0 {
            // The slot's blocks are zero already, as a packet without SACK keeps them.
            let (to, from) = (&mut slot.seg, seg);
            to.seq = from.seq;
            to.ack = from.ack;
            to.len = from.len;
            to.flags = from.flags;
            to.ts_val = from.ts_val;
            to.ts_ecr = from.ts_ecr;
        } else {
            Self::set_seg_with_sack(&mut slot.seg, seg);
        }
    }

    /// A new slot, holding a default packet (no SACK blocks), for [`Self::alloc_with`] to fill.
    /// (Inline: out of line, the simulation's main loop, where UDP sources allocate, keeps fewer
    /// values in registers.)
    #[inline]
    fn new_slot(&mut self) -> PacketId {
        self.slots.push(Packet::default());
        self.enqueued_at.push(Time::ZERO);
        (self.slots.len() - 1) as PacketId
    }

    /// `*to = seg`, keeping only its first `nsack` SACK blocks (the rest zero): for a segment with
    /// SACK blocks, or one that replaces a segment with some.
    #[cold]
    #[inline(never)]
    fn set_seg_with_sack(to: &mut Segment, seg: &Segment) {
        *to = Segment {
            sack: Self::kept_sack(seg),
            ..*seg
        };
    }

    /// Slots in the pool: the peak number of packets in flight so far.
    #[inline]
    pub fn slots(&self) -> usize {
        self.slots.len()
    }

    /// Start loading packet `id`'s first cache line (all but its SACK blocks), which will be read
    /// shortly. A hint only ([`crate::cache`]).
    #[inline]
    pub fn prefetch(&self, id: PacketId) {
        if let Some(p) = self.slots.get(id as usize) {
            crate::cache::prefetch(p);
        }
    }

    /// When packet `id` entered the queue it is in (or last was in).
    #[inline]
    pub fn enqueued_at(&self, id: PacketId) -> Time {
        self.enqueued_at[id as usize]
    }

    #[inline]
    pub fn set_enqueued_at(&mut self, id: PacketId, t: Time) {
        self.enqueued_at[id as usize] = t;
    }

    /// The SACK blocks of `seg` as a slot keeps them: the first `nsack`, the rest zero.
    fn kept_sack(seg: &Segment) -> [SackBlock; 3] {
        let mut sack = [SackBlock::default(); 3];
        let n = usize::from(seg.nsack);
        sack[..n].copy_from_slice(&seg.sack[..n]);
        sack
    }

    /// Packet `id`, freed: it has arrived, or is dropped. Its SACK blocks are read only if it
    /// has some.
    #[inline]
    pub fn take(&mut self, id: PacketId) -> Packet {
        let p = &self.slots[id as usize];
        let taken = if p.seg.nsack == 0 {
            Packet {
                sent_at: p.sent_at,
                flow: p.flow,
                size: p.size,
                src: p.src,
                dst: p.dst,
                proto: p.proto,
                from_opener: p.from_opener,
                ecn: p.ecn,
                seg: Segment {
                    seq: p.seg.seq,
                    ack: p.seg.ack,
                    len: p.seg.len,
                    flags: p.seg.flags,
                    nsack: 0,
                    ts_val: p.seg.ts_val,
                    ts_ecr: p.seg.ts_ecr,
                    sack: [SackBlock::default(); 3],
                },
            }
        } else {
            *p
        };
        self.free(id);
        taken
    }

    pub fn free(&mut self, id: PacketId) {
        debug_assert!(!self.free.contains(&id), "packet {id} freed twice");
        self.free.push(id);
    }

    pub fn get(&self, id: PacketId) -> &Packet {
        &self.slots[id as usize]
    }

    pub fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        &mut self.slots[id as usize]
    }

    /// Packets currently allocated (in flight somewhere in the network).
    pub fn live(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Live packets of each flow of transport `proto`, counted by a scan: an independent check on
    /// the per-flow counters.
    pub fn live_per_flow(&self, proto: Proto, flows: usize) -> Vec<u64> {
        let mut is_free = vec![false; self.slots.len()];
        for &id in &self.free {
            is_free[id as usize] = true;
        }
        let mut counts = vec![0u64; flows];
        for (p, free) in self.slots.iter().zip(is_free) {
            if !free && p.proto == proto {
                counts[p.flow as usize] += 1;
            }
        }
        counts
    }

    /// Slots ever created: the peak number of packets in flight.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_slots_are_reused() {
        let mut a = PacketArena::default();
        let x = a.alloc(Packet {
            flow: 1,
            ..Packet::default()
        });
        let y = a.alloc(Packet {
            flow: 2,
            ..Packet::default()
        });
        a.free(x);
        let z = a.alloc(Packet {
            flow: 3,
            ..Packet::default()
        });
        assert_eq!(z, x);
        assert_eq!(a.capacity(), 2);
        assert_eq!(a.get(z).flow, 3);
        assert_eq!(a.get(y).flow, 2);
        assert_eq!(a.live(), 2);
        a.set_enqueued_at(z, Time(5));
        assert_eq!((a.enqueued_at(z), a.enqueued_at(y)), (Time(5), Time::ZERO));
        assert_eq!(a.live_per_flow(Proto::Udp, 4), vec![0, 0, 1, 1]);
        assert_eq!(a.live_per_flow(Proto::Tcp, 4), vec![0, 0, 0, 0]);
    }

    #[test]
    fn a_packet_without_sack_blocks_is_one_cache_line() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(align_of::<Packet>(), 64);
        assert_eq!(offset_of!(Packet, seg) + offset_of!(Segment, sack), 64);
        assert_eq!(size_of::<Packet>(), 128);
    }

    fn tcp(seq: u64, sack: &[(u64, u64)]) -> Packet {
        let mut seg = Segment {
            seq,
            ack: seq + 7,
            len: 1000,
            flags: flags::ACK,
            nsack: sack.len() as u8,
            ..Segment::default()
        };
        for (b, &(start, end)) in seg.sack.iter_mut().zip(sack) {
            *b = SackBlock { start, end };
        }
        Packet {
            sent_at: Time(seq),
            flow: 3,
            size: 1040,
            src: 1,
            dst: 2,
            proto: Proto::Tcp,
            from_opener: true,
            ecn: Ecn::Ect,
            seg,
        }
    }

    #[test]
    fn alloc_with_takes_the_segment_given_not_the_packets() {
        let mut a = PacketArena::default();
        for (seq, sack) in [(1, &[(5, 9)][..]), (2, &[]), (3, &[(7, 8), (9, 10)])] {
            let given = tcp(seq, sack);
            let id = a.alloc_with(
                Packet {
                    seg: tcp(99, &[(1, 2), (3, 4), (5, 6)]).seg,
                    ..given
                },
                &given.seg,
            );
            assert_eq!(format!("{:?}", a.take(id)), format!("{given:?}"));
        }
        assert_eq!(a.capacity(), 1);
    }

    /// A delivered packet's slot is given to the next packet with `fill` (the simulation's
    /// `tcp_emit_inline`) instead of being freed and allocated again: the two must leave the same
    /// packets in the same slots, and the same slots free in the same order.
    #[test]
    fn filling_a_slot_is_freeing_it_and_allocating() {
        let (mut freed, mut filled) = (PacketArena::default(), PacketArena::default());
        for a in [&mut freed, &mut filled] {
            for seq in 0..4 {
                a.alloc(tcp(seq, &[(1, 2)][..(seq as usize % 2)]));
            }
            a.free(1);
        }
        let next = tcp(9, &[]);
        // Slot 3's packet has a SACK block, which must not outlive it.
        freed.free(3);
        assert_eq!(freed.alloc(next), 3);
        filled.fill(3, next, &next.seg);
        for id in 0..4 {
            assert_eq!(
                format!("{:?}", freed.get(id)),
                format!("{:?}", filled.get(id))
            );
        }
        assert_eq!((freed.live(), filled.live()), (3, 3));
        assert_eq!(freed.free, filled.free);
        assert_eq!(
            (freed.alloc(tcp(10, &[])), filled.alloc(tcp(10, &[]))),
            (1, 1)
        );
    }

    #[test]
    fn a_slot_keeps_sack_blocks_only_while_its_packet_has_some() {
        let mut a = PacketArena::default();
        let with = tcp(1, &[(5, 9), (11, 20)]);
        let id = a.alloc(with);
        assert_eq!(format!("{:?}", a.take(id)), format!("{with:?}"));
        // The slot's next packet has none: the old blocks are gone, not left behind.
        let without = tcp(2, &[]);
        assert_eq!(a.alloc(without), id);
        assert_eq!(a.get(id).seg.sack, [SackBlock::default(); 3]);
        assert_eq!(format!("{:?}", a.take(id)), format!("{without:?}"));
        let one = tcp(3, &[(30, 40)]);
        assert_eq!(a.alloc(one), id);
        assert_eq!(a.get(id).seg, one.seg);
        assert_eq!(a.live(), 1);
        // Blocks past `nsack` are not kept.
        let mut stray = tcp(4, &[]);
        stray.seg.sack[2] = SackBlock { start: 1, end: 2 };
        a.free(id);
        let id = a.alloc(stray);
        assert_eq!(a.take(id).seg, tcp(4, &[]).seg);
    }
}
