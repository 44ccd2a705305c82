//! Packets as small semantic records in a recycling arena: no heap allocation per packet on the hot
//! path (DESIGN.md). Real header bytes exist only where a file is written.

use crate::units::Time;

/// Index of a packet in the [`PacketArena`].
pub type PacketId = u32;

/// One packet in flight. Fields are what the models read; transport fields grow with the models.
#[derive(Clone, Copy, Debug, Default)]
pub struct Packet {
    /// Index of the flow in the simulation's flow table.
    pub flow: u32,
    /// Size on the wire, in bytes.
    pub size: u32,
    /// Per-flow sequence number (UDP: packet count; lets the sink count gaps).
    pub seq: u64,
    /// Source and destination host indices.
    pub src: u32,
    pub dst: u32,
    /// When its source sent it (for one-way delay).
    pub sent_at: Time,
    /// When it entered its current queue (for the waiting time of departed packets).
    pub enqueued_at: Time,
}

/// A pool of packets; freed slots are reused, so the pool grows only to the peak number in flight.
#[derive(Debug, Default)]
pub struct PacketArena {
    slots: Vec<Packet>,
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
                (self.slots.len() - 1) as PacketId
            }
        }
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

    /// Live packets of each flow, counted by a scan: an independent check on per-flow counters.
    pub fn live_per_flow(&self, flows: usize) -> Vec<u64> {
        let mut is_free = vec![false; self.slots.len()];
        for &id in &self.free {
            is_free[id as usize] = true;
        }
        let mut counts = vec![0u64; flows];
        for (p, free) in self.slots.iter().zip(is_free) {
            if !free {
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
        assert_eq!(a.live_per_flow(4), vec![0, 0, 1, 1]);
    }
}
