//! Packets as small semantic records in a recycling arena: no heap allocation per packet on the hot
//! path (DESIGN.md). Real header bytes exist only where a file is written.

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

/// A SACK block (RFC 2018): the bytes `[start, end)` were received.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// The transport fields of a packet. UDP uses only `seq` (a packet count); TCP all of them, with
/// sequence numbers in bytes from an initial sequence number of 0 (the SYN occupies seq 0, data
/// starts at 1, the FIN occupies the seq after the last data byte).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    pub flags: u8,
    pub nsack: u8,
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
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Index of the flow (UDP) or connection (TCP) in the simulation's tables.
    pub flow: u32,
    pub proto: Proto,
    /// TCP: sent by the endpoint that opened the connection (the client side of it).
    pub from_opener: bool,
    pub ecn: Ecn,
    /// Size on the wire, in bytes.
    pub size: u32,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    /// When its source sent it (for one-way delay).
    pub sent_at: Time,
    pub seg: Segment,
}

/// A pool of packets; freed slots are reused, so the pool grows only to the peak number in flight.
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
    pub fn alloc(&mut self, p: Packet) -> PacketId {
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = p;
                id
            }
            None => {
                self.slots.push(p);
                self.enqueued_at.push(Time::ZERO);
                (self.slots.len() - 1) as PacketId
            }
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
}
