//! Where packets were dropped along their paths, for the `hops` table: each UDP flow's and each
//! TCP connection's drops at each link it crosses, in the measured window. A path is fixed before
//! the run by the routing tables ([`crate::routing`]), so every packet from one host to another
//! crosses the same links; only a drop is counted here, never a packet that passes.
//!
//! A UDP flow's path is stored with a counter per hop (the flows are known before the run and
//! few). A TCP connection has two paths, its data sender's to the receiver and back, and runs may
//! hold many connections: a drop is counted under (connection, way, link), only the pairs that saw
//! a drop take room, and the paths are read from the routing tables when the table is built.

use crate::network::Topo;
use crate::rng::KeyMap;

/// The links each UDP flow's packets cross, in order, and how many of its packets each dropped in
/// the measured window: flow `f`'s are at `offsets[f]..offsets[f + 1]`.
#[derive(Default)]
pub(crate) struct FlowPaths {
    offsets: Vec<u32>,
    pub links: Vec<u32>,
    pub drops: Vec<u64>,
}

impl FlowPaths {
    /// The paths of flows `(source, destination)` on `topo`.
    pub fn new(ends: impl Iterator<Item = (u32, u32)>, topo: &Topo) -> FlowPaths {
        let mut paths = FlowPaths {
            offsets: vec![0],
            ..FlowPaths::default()
        };
        for (src, dst) in ends {
            paths.links.extend(path(topo, src, dst));
            paths.offsets.push(paths.links.len() as u32);
        }
        paths.drops = vec![0; paths.links.len()];
        paths
    }

    /// Flow `f`'s hops: positions in `links` and `drops`.
    pub fn of(&self, f: usize) -> std::ops::Range<usize> {
        self.offsets[f] as usize..self.offsets[f + 1] as usize
    }

    /// A packet of flow `f` was dropped at link `l`: a scan of its few hops.
    pub fn count(&mut self, f: u32, l: u32) {
        let hops = self.of(f as usize);
        if let Some(i) = self.links[hops.clone()].iter().position(|&x| x == l) {
            self.drops[hops.start + i] += 1;
        }
    }
}

/// The links a packet from host `src` to host `dst` crosses on `topo`, in order.
pub(crate) fn path(topo: &Topo, src: u32, dst: u32) -> Vec<u32> {
    topo.net
        .routes
        .path(src, dst)
        .expect("validated: hosts reach hosts")
}

/// Which of a TCP connection's two paths a packet takes: from its data sender to the receiver
/// (the data segments, and the sender's handshake segments and FIN), or back (the receiver's
/// ACKs, its handshake segments and FIN, and what it writes itself on a connection that carries
/// data both ways).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Way {
    Data,
    Ack,
}

impl Way {
    /// Both, in the table's order.
    pub const BOTH: [Way; 2] = [Way::Data, Way::Ack];

    /// Its name in the `path` column.
    pub fn name(self) -> &'static str {
        match self {
            Way::Data => "data",
            Way::Ack => "ack",
        }
    }
}

/// The TCP connections' drops in the measured window: by (connection, way, link) for the
/// connections the `connections` table lists, by link alone for web pairs (whose slots the next
/// pairs reuse, so that a slot's number names no one connection).
#[derive(Default)]
pub(crate) struct ConnDrops {
    listed: KeyMap<u64>,
    /// By link id.
    pub web: Vec<u64>,
}

impl ConnDrops {
    /// No drops yet, on a network of `links` links.
    pub fn new(links: usize) -> ConnDrops {
        ConnDrops {
            listed: KeyMap::default(),
            web: vec![0; links],
        }
    }

    /// (connection, way, link) as one integer: the connection in the high half, the way and the
    /// link (a link id is far below 2³¹) in the low half.
    fn key(conn: u32, way: Way, l: u32) -> u64 {
        debug_assert!(l < 1 << 31);
        u64::from(conn) << 32 | u64::from(way == Way::Ack) << 31 | u64::from(l)
    }

    /// A packet of listed connection `conn` going `way` was dropped at link `l`.
    pub fn count(&mut self, conn: u32, way: Way, l: u32) {
        *self.listed.entry(Self::key(conn, way, l)).or_default() += 1;
    }

    /// Listed connection `conn`'s packets going `way` dropped at link `l`.
    pub fn at(&self, conn: u32, way: Way, l: u32) -> u64 {
        self.listed
            .get(&Self::key(conn, way, l))
            .copied()
            .unwrap_or(0)
    }
}
