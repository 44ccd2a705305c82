//! First-in first-out storage shared by the disciplines: entries (a packet id and its size, or
//! more) with a byte count.

use crate::packet::PacketId;
use std::collections::VecDeque;

/// What a [`Fifo`] holds: anything that knows its packet's size in bytes.
pub trait Stored {
    fn size(&self) -> u32;
}

impl Stored for (PacketId, u32) {
    fn size(&self) -> u32 {
        self.1
    }
}

/// A FIFO of packets. Its ring buffer grows to the largest backlog seen and is then reused (no
/// allocation per packet once warm).
#[derive(Debug)]
pub struct Fifo<T = (PacketId, u32)> {
    items: VecDeque<T>,
    bytes: u64,
}

impl<T> Default for Fifo<T> {
    fn default() -> Self {
        Fifo {
            items: VecDeque::new(),
            bytes: 0,
        }
    }
}

impl<T: Stored> Fifo<T> {
    pub fn with_capacity(pkts: usize) -> Fifo<T> {
        Fifo {
            items: VecDeque::with_capacity(pkts),
            bytes: 0,
        }
    }

    pub fn push(&mut self, item: T) {
        self.bytes += u64::from(item.size());
        self.items.push_back(item);
    }

    pub fn pop(&mut self) -> Option<T> {
        let item = self.items.pop_front()?;
        self.bytes -= u64::from(item.size());
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
