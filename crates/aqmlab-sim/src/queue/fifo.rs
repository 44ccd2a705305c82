//! First-in first-out storage shared by the disciplines: packet ids with their sizes, and a byte count.

use crate::packet::PacketId;
use std::collections::VecDeque;

/// A FIFO of packets. Its ring buffer grows to the largest backlog seen and is then reused.
#[derive(Debug, Default)]
pub struct Fifo {
    items: VecDeque<(PacketId, u32)>,
    bytes: u64,
}

impl Fifo {
    pub fn with_capacity(pkts: usize) -> Fifo {
        Fifo {
            items: VecDeque::with_capacity(pkts),
            bytes: 0,
        }
    }

    pub fn push(&mut self, pkt: PacketId, size: u32) {
        self.items.push_back((pkt, size));
        self.bytes += u64::from(size);
    }

    pub fn pop(&mut self) -> Option<(PacketId, u32)> {
        let item = self.items.pop_front()?;
        self.bytes -= u64::from(item.1);
        Some(item)
    }

    pub fn len(&self) -> u64 {
        self.items.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}
