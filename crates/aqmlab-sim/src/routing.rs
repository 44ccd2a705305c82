//! Static routing: the forwarding tables of a network, computed once before the run.
//!
//! Every node forwards by destination, as an IP router does (RFC 1812 §5.2.4, "Next Hop Address":
//! the next hop is chosen by the packet's destination alone): a node with one link sends every
//! packet on it, and a node with several has a row of next links, one per destination host. A
//! packet carries its destination host's number, which indexes that row: forwarding a packet
//! reads two numbers, with no lookup by key and no allocation.
//!
//! The tables hold shortest paths: fewest hops, then the least total propagation delay, then, at
//! each node, the link declared first (the lowest link number). They are computed by Dijkstra's
//! algorithm (E. W. Dijkstra, "A note on two problems in connexion with graphs", Numerische
//! Mathematik 1, 1959, pp. 269–271) on the cost `(hops, delay)`, compared lexicographically (a
//! total order, and adding a link's `(1, delay)` keeps it monotone, so the algorithm's argument
//! holds), once per destination over the links reversed. Hosts forward nothing: a path enters a
//! host only at its end. ns-2's static routing (`RouteLogic`, every link of cost 1) also takes
//! fewest hops; its ties go to node order, which this rule replaces with delay, then link order.
//!
//! A host with one link, to a router (a stub: every host of the dumbbell), is reached through that
//! router, so it shares the router's paths: the algorithm runs once per router with stub hosts
//! and once per other host, not once per host, and the dumbbell's thousands of hosts cost two
//! runs. Explicit routes replace table entries afterwards ([`Routes::set`]).

use crate::units::Time;

/// No link: the node is the destination itself, or has no route to it.
pub const NONE: u32 = u32::MAX;

/// Marks a node's entry as the start of its row in the table (else the entry is its one link).
const ROW: u32 = 1 << 31;

/// One one-way link as routing sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arc {
    pub from: u32,
    pub to: u32,
    pub delay: Time,
}

/// A network to route: `nodes` nodes, the first `hosts` of them hosts (the rest routers), and its
/// one-way links, numbered by their position.
#[derive(Clone, Copy, Debug)]
pub struct Graph<'a> {
    pub nodes: u32,
    pub hosts: u32,
    pub arcs: &'a [Arc],
}

/// Why a network cannot be routed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RouteError {
    /// Host `from` has no path to host `to`.
    Unreachable { from: u32, to: u32 },
    /// The tables would hold `entries` entries, more than [`MAX_TABLE_ENTRIES`].
    TooLarge { entries: u64 },
}

/// The most table entries (4 bytes each: 256 MiB) a network's forwarding may hold.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 26;

/// The most link visits computing the tables may take ([`Graph::work`]): a few seconds.
pub const MAX_WORK: u64 = 400_000_000;

/// The forwarding tables of a network.
#[derive(Clone, Debug, Default)]
pub struct Routes {
    /// Per node: its one link, or `ROW | r · hosts` for row `r` of `table` (where the row
    /// starts), or [`NONE`] (no link).
    entry: Vec<u32>,
    /// Row `r`, destination host `d`: the next link, at `r · hosts + d`.
    table: Vec<u32>,
    /// Per link: the node at its far end (to follow a path).
    to: Vec<u32>,
    /// Per host: the router every packet for it comes from (a stub's router), else [`NONE`].
    gateway: Vec<u32>,
}

impl Graph<'_> {
    /// Per node, its links in link order (the order ties go by).
    fn out_links(&self) -> Vec<Vec<u32>> {
        let mut out = vec![Vec::new(); self.nodes as usize];
        for (l, a) in self.arcs.iter().enumerate() {
            out[a.from as usize].push(l as u32);
        }
        out
    }

    /// Per host, the node whose paths it shares: its router if it is a stub (one link, to a
    /// router), else itself.
    fn keys(&self, out: &[Vec<u32>]) -> Vec<u32> {
        (0..self.hosts)
            .map(|h| match out[h as usize][..] {
                [l] if self.arcs[l as usize].to >= self.hosts => self.arcs[l as usize].to,
                _ => h,
            })
            .collect()
    }

    /// The distinct keys, in order of first appearance.
    fn distinct(keys: &[u32]) -> Vec<u32> {
        let mut seen = std::collections::BTreeSet::new();
        keys.iter().copied().filter(|k| seen.insert(*k)).collect()
    }

    /// What computing the tables costs, in link visits: one pass of Dijkstra's algorithm (each
    /// link visited about twice) per router with stub hosts and per other host.
    pub fn work(&self) -> u64 {
        let out = self.out_links();
        let keys = Graph::distinct(&self.keys(&out));
        keys.len() as u64 * 2 * (self.arcs.len() as u64 + u64::from(self.nodes))
    }

    /// The cost `(hops, delay)` of every node's shortest path to `key` (`None`: no path), over
    /// links whose far end is `key` or a router.
    fn distances(&self, key: u32, into: &[Vec<u32>]) -> Vec<Option<(u32, u64)>> {
        use std::cmp::Reverse;
        let mut dist: Vec<Option<(u32, u64)>> = vec![None; self.nodes as usize];
        let mut heap = std::collections::BinaryHeap::new();
        dist[key as usize] = Some((0, 0));
        heap.push(Reverse((0u32, 0u64, key)));
        while let Some(Reverse((hops, delay, u))) = heap.pop() {
            if dist[u as usize] != Some((hops, delay)) || (u != key && u < self.hosts) {
                continue; // a stale entry, or a host (which forwards nothing)
            }
            for &l in &into[u as usize] {
                let a = self.arcs[l as usize];
                let cost = (hops + 1, delay.saturating_add(a.delay.0));
                if dist[a.from as usize].is_none_or(|d| cost < d) {
                    dist[a.from as usize] = Some(cost);
                    heap.push(Reverse((cost.0, cost.1, a.from)));
                }
            }
        }
        dist
    }

    /// The link a node with links `out` sends on toward `key`, given every node's cost to `key`:
    /// the one of least `(hops, delay)` through a router or `key` itself, the first in link order
    /// among equals.
    fn next_toward(&self, key: u32, out: &[u32], dist: &[Option<(u32, u64)>]) -> u32 {
        let mut best = (NONE, (u32::MAX, u64::MAX));
        for &l in out {
            let a = self.arcs[l as usize];
            if a.to != key && a.to < self.hosts {
                continue;
            }
            if let Some((hops, delay)) = dist[a.to as usize] {
                let cost = (hops + 1, delay.saturating_add(a.delay.0));
                if cost < best.1 {
                    best = (l, cost);
                }
            }
        }
        best.0
    }
}

impl Routes {
    /// The shortest-path tables of `g` (module docs); an error if a host cannot reach another or
    /// the tables would be too large.
    pub fn compute(g: &Graph) -> Result<Routes, RouteError> {
        let out = g.out_links();
        let mut into = vec![Vec::new(); g.nodes as usize];
        for (l, a) in g.arcs.iter().enumerate() {
            into[a.to as usize].push(l as u32);
        }
        let rows: Vec<u32> = (0..g.nodes)
            .filter(|&v| out[v as usize].len() > 1)
            .collect();
        let entries = rows.len() as u64 * u64::from(g.hosts);
        if entries > MAX_TABLE_ENTRIES {
            return Err(RouteError::TooLarge { entries });
        }
        let mut entry: Vec<u32> = out
            .iter()
            .map(|links| links.first().copied().unwrap_or(NONE))
            .collect();
        for (r, &v) in rows.iter().enumerate() {
            entry[v as usize] = ROW | (r as u32 * g.hosts);
        }
        let keys = g.keys(&out);
        let hosts = g.hosts as usize;
        let mut table = vec![NONE; rows.len() * hosts];
        for key in Graph::distinct(&keys) {
            let dist = g.distances(key, &into);
            let served: Vec<u32> = (0..g.hosts).filter(|&h| keys[h as usize] == key).collect();
            // Every host reaches the hosts this key serves, unless it is the only one.
            if let Some(from) = (0..g.hosts)
                .find(|&s| dist[s as usize].is_none() && served.iter().any(|&d| d != s) && s != key)
            {
                let to = *served.iter().find(|&&d| d != from).expect("tested");
                return Err(RouteError::Unreachable { from, to });
            }
            for (r, &v) in rows.iter().enumerate() {
                let toward = if v == key {
                    NONE
                } else {
                    g.next_toward(key, &out[v as usize], &dist)
                };
                for &d in &served {
                    table[r * hosts + d as usize] = if v == d {
                        NONE
                    } else if v == key {
                        // The stub's router: the link to the stub itself.
                        *out[v as usize]
                            .iter()
                            .find(|&&l| g.arcs[l as usize].to == d)
                            .expect("a stub's router links to it")
                    } else {
                        toward
                    };
                }
            }
        }
        Ok(Routes {
            entry,
            table,
            to: g.arcs.iter().map(|a| a.to).collect(),
            gateway: (0..g.hosts as usize)
                .map(|h| if keys[h] == h as u32 { NONE } else { keys[h] })
                .collect(),
        })
    }

    /// The link `node` sends a packet for host `dst` on ([`NONE`] if none); `node` has a link
    /// (every node a packet reaches has).
    #[inline(always)]
    pub fn next(&self, node: u32, dst: u32) -> u32 {
        let e = self.entry[node as usize];
        debug_assert_ne!(e, NONE, "node {node} has no link");
        if e & ROW == 0 {
            e
        } else {
            self.table[(e & !ROW) as usize + dst as usize]
        }
    }

    /// The router every packet for host `dst` reaches it from, if there is one (a host with one
    /// link, to a router): a packet at that router is one link from its destination.
    #[inline(always)]
    pub fn gateway(&self, dst: u32) -> u32 {
        self.gateway[dst as usize]
    }

    /// Make `node` send packets for host `dst` on `link` (an explicit route). A node with one
    /// link has no choice: it keeps it.
    pub fn set(&mut self, node: u32, dst: u32, link: u32) {
        let e = self.entry[node as usize];
        if e & ROW != 0 && e != NONE {
            self.table[(e & !ROW) as usize + dst as usize] = link;
        }
    }

    /// How many links a packet from `src` to host `dst` crosses before `link`, if it crosses it
    /// (without allocating: a packet trace asks it for every packet it records).
    pub fn hops_before(&self, src: u32, dst: u32, link: u32) -> Option<u32> {
        let mut node = src;
        for hops in 0..self.entry.len() as u32 {
            if node == dst || self.entry[node as usize] == NONE {
                return None;
            }
            let l = self.next(node, dst);
            if l == link {
                return Some(hops);
            }
            if l == NONE {
                return None;
            }
            node = self.to[l as usize];
        }
        None
    }

    /// The links a packet from `src` to host `dst` crosses, in order; `Err` with the links up to
    /// where it stops (a node without a route to `dst`) or the first link it would cross twice
    /// (a loop).
    pub fn path(&self, src: u32, dst: u32) -> Result<Vec<u32>, Vec<u32>> {
        let mut path = Vec::new();
        let mut node = src;
        while node != dst {
            let l = match self.entry[node as usize] {
                NONE => NONE,
                _ => self.next(node, dst),
            };
            if l == NONE || path.contains(&l) {
                if l != NONE {
                    path.push(l);
                }
                return Err(path);
            }
            path.push(l);
            node = self.to[l as usize];
        }
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Full-duplex links `(a, b, delay ms)`, each as the links `2i` (a → b) and `2i + 1`.
    fn arcs(links: &[(u32, u32, u64)]) -> Vec<Arc> {
        links
            .iter()
            .flat_map(|&(a, b, ms)| {
                let delay = Time::from_millis(ms);
                [
                    Arc {
                        from: a,
                        to: b,
                        delay,
                    },
                    Arc {
                        from: b,
                        to: a,
                        delay,
                    },
                ]
            })
            .collect()
    }

    fn routes(nodes: u32, hosts: u32, links: &[(u32, u32, u64)]) -> Result<Routes, RouteError> {
        let arcs = arcs(links);
        Routes::compute(&Graph {
            nodes,
            hosts,
            arcs: &arcs,
        })
    }

    /// The dumbbell, numbered as `network.rs` numbers it: S servers and C clients (hosts 0..H),
    /// R1 = H, R2 = H + 1; host h's uplink 2h, downlink 2h + 1; the bottleneck 2H (R1 → R2) and
    /// 2H + 1. Its tables are the dumbbell's routing.
    #[test]
    fn the_dumbbell_routes_as_its_numbering_says() {
        let (servers, clients) = (3u32, 4u32);
        let hosts = servers + clients;
        let (r1, r2) = (hosts, hosts + 1);
        let mut links: Vec<(u32, u32, u64)> = (0..hosts)
            .map(|h| (h, if h < servers { r1 } else { r2 }, 0))
            .collect();
        links.push((r1, r2, 10));
        let r = routes(hosts + 2, hosts, &links).unwrap();
        for dst in 0..hosts {
            let server = dst < servers;
            for h in (0..hosts).filter(|&h| h != dst) {
                assert_eq!(r.next(h, dst), 2 * h, "uplink");
            }
            let (here, there) = if server { (r1, r2) } else { (r2, r1) };
            assert_eq!(r.next(here, dst), 2 * dst + 1, "downlink at its own router");
            let across = if server { 2 * hosts + 1 } else { 2 * hosts };
            assert_eq!(r.next(there, dst), across, "the bottleneck's direction");
        }
        assert_eq!(r.path(0, servers).unwrap(), [0, 2 * hosts, 2 * servers + 1]);
        assert_eq!((r.gateway(0), r.gateway(servers)), (r1, r2));
        // Two routers with rows, one column per host: 2 · 7 entries.
        assert_eq!(r.table.len(), 2 * hosts as usize);
    }

    /// Fewest hops first, then the least delay, then the first link: a square of routers 2-3-4-5
    /// with host 0 at 2 and host 1 at 4, two equal two-hop ways round.
    #[test]
    fn ties_go_to_hops_then_delay_then_link_order() {
        // Links: 0 h0-r2, 1 r2-r3, 2 r3-r4, 3 r4-h1, 4 r2-r5, 5 r5-r4.
        let square = |d3: u64, d5: u64| {
            routes(
                6,
                2,
                &[
                    (0, 2, 0),
                    (2, 3, d3),
                    (3, 4, d3),
                    (4, 1, 0),
                    (2, 5, d5),
                    (5, 4, d5),
                ],
            )
            .unwrap()
        };
        let via3 = [0, 2, 4, 6];
        let via5 = [0, 8, 10, 6];
        assert_eq!(
            square(1, 1).path(0, 1).unwrap(),
            via3,
            "equal: the first link"
        );
        assert_eq!(square(2, 1).path(0, 1).unwrap(), via5, "less delay");
        assert_eq!(square(1, 2).path(0, 1).unwrap(), via3);
        // A direct r2-r4 link of much more delay still wins: one hop less.
        let direct = routes(
            6,
            2,
            &[(0, 2, 0), (2, 3, 1), (3, 4, 1), (4, 1, 0), (2, 4, 100)],
        )
        .unwrap();
        assert_eq!(direct.path(0, 1).unwrap(), [0, 8, 6]);
        assert_eq!(direct.path(1, 0).unwrap(), [7, 9, 1]);
    }

    /// A host forwards nothing: two routers joined only through a host are not joined.
    #[test]
    fn paths_do_not_cross_hosts() {
        // h0 - r3 - h1 - r4 - h2: h1 is linked to both routers, but h0 cannot reach h2.
        let e = routes(5, 3, &[(0, 3, 0), (3, 1, 0), (1, 4, 0), (4, 2, 0)]).unwrap_err();
        assert_eq!(e, RouteError::Unreachable { from: 2, to: 0 });
        // Join the routers: every host reaches every other, h1 over one link or the other.
        let r = routes(
            5,
            3,
            &[(0, 3, 0), (3, 1, 0), (1, 4, 0), (4, 2, 0), (3, 4, 5)],
        )
        .unwrap();
        assert_eq!(r.path(0, 2).unwrap(), [0, 8, 6]);
        assert_eq!(r.path(1, 0).unwrap(), [3, 1]);
        assert_eq!(r.path(1, 2).unwrap(), [4, 6]);
        // Two hosts on one wire route to each other.
        let wire = routes(2, 2, &[(0, 1, 3)]).unwrap();
        assert_eq!(
            (wire.path(0, 1).unwrap(), wire.path(1, 0).unwrap()),
            (vec![0], vec![1])
        );
        // A host with no link reaches nothing.
        assert_eq!(
            routes(3, 2, &[(0, 2, 0)]).unwrap_err(),
            RouteError::Unreachable { from: 1, to: 0 }
        );
    }

    /// A parking lot of three routers in a row: each flow crosses the hops between its ends.
    #[test]
    fn a_parking_lot_routes_along_the_line() {
        // Hosts 0 (at r4), 1 (at r6), 2 (at r4), 3 (at r5); routers 4 - 5 - 6.
        let r = routes(
            7,
            4,
            &[
                (0, 4, 0),
                (1, 6, 0),
                (2, 4, 0),
                (3, 5, 0),
                (4, 5, 2),
                (5, 6, 2),
            ],
        )
        .unwrap();
        assert_eq!(r.path(0, 1).unwrap(), [0, 8, 10, 3]);
        assert_eq!(r.path(2, 3).unwrap(), [4, 8, 7]);
        assert_eq!(r.path(3, 1).unwrap(), [6, 10, 3]);
        assert_eq!(r.path(1, 2).unwrap(), [2, 11, 9, 5]);
    }

    /// An explicit route replaces an entry; a loop or a dead end shows in the path.
    #[test]
    fn explicit_routes_replace_entries_and_paths_find_loops() {
        // The square of the tie test: send r2's packets for h1 by r5 instead of r3.
        let mut r = routes(
            6,
            2,
            &[
                (0, 2, 0),
                (2, 3, 1),
                (3, 4, 1),
                (4, 1, 0),
                (2, 5, 1),
                (5, 4, 1),
            ],
        )
        .unwrap();
        r.set(2, 1, 8);
        assert_eq!(r.path(0, 1).unwrap(), [0, 8, 10, 6]);
        // r5 back to r2 for h1: a loop r2 → r5 → r2.
        r.set(5, 1, 9);
        assert_eq!(r.path(0, 1).unwrap_err(), [0, 8, 9, 8]);
        // The host's one link cannot be replaced.
        r.set(0, 1, 5);
        assert_eq!(r.next(0, 1), 0);
    }

    #[test]
    fn oversized_tables_are_refused() {
        // 2^14 hosts on a ring of 2^13 routers, each router with a row: 2^27 entries.
        let (hosts, routers) = (1u32 << 14, 1u32 << 13);
        let mut links: Vec<(u32, u32, u64)> =
            (0..hosts).map(|h| (h, hosts + h % routers, 0)).collect();
        links.extend((0..routers).map(|r| (hosts + r, hosts + (r + 1) % routers, 1)));
        let arcs = arcs(&links);
        let g = Graph {
            nodes: hosts + routers,
            hosts,
            arcs: &arcs,
        };
        assert_eq!(
            Routes::compute(&g).unwrap_err(),
            RouteError::TooLarge { entries: 1 << 27 }
        );
        assert_eq!(g.work(), u64::from(routers) * 2 * (2 * 24_576 + 24_576));
    }
}
