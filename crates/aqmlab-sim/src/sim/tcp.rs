//! The TCP traffic of a run: the connections with their two endpoints, the endpoints' TCP
//! configurations and the hosts' route cache. It hands a segment to its endpoint, turns what an
//! endpoint produced into packets offered to the [`Network`] below it, and keeps one event per
//! armed timer; the applications above it (web users, sessions) say what the endpoints write.

use super::measurement::TraceRow;
use super::network::{Connections, Network};
use super::plan::{flow_start, hosts_of};
use crate::event::{Event, EventQueue};
use crate::network::Topo;
use crate::packet::{flags, Ecn, Packet, PacketId, Proto};
use crate::rng::Rng;
use crate::tcp::config::Handshake;
use crate::tcp::route_cache::RouteCache;
use crate::tcp::{Out, State, TcpConfig, Timer};
use crate::traffic::config::{Side, TrafficSpec};
use crate::traffic::{App, Connection, Outcome};
use crate::units::Time;

/// Dead TCP timer events are dropped from the queue once there are more than this many and they
/// are half of it: a pass over the queue then costs at most two pending events' worth per dead one.
pub(super) const DEAD_TIMERS_MIN: u64 = 1 << 12;

/// The connections and what their endpoints need.
#[derive(Default)]
pub(crate) struct TcpTraffic {
    /// The connections, their slots and the TCP configurations they name.
    pub conns: Connections,
    /// Segments an endpoint produced, waiting to become packets, and those packets but the first
    /// waiting to be queued (both reused, not reallocated).
    pub outbox: Vec<Out>,
    pending: Vec<PacketId>,
    /// FreeBSD 2.2's per-host RTT cache, if a TCP configuration keeps one (`route_cache`).
    route_cache: Option<RouteCache>,
    /// Pending TCP timer events that can no longer run (their timer is set once and was cleared,
    /// e.g. the connect timer of an open connection): dropped from the queue when they are half
    /// of it ([`TcpTraffic::drop_dead_timers`]).
    pub dead_timers: u64,
}

/// Add the connections of TCP group `spec` on the network `topo` and schedule their starts on
/// `events`; `make` builds flow k's connection from its hosts `[client, server]`, their clock
/// phases, the data sender's side and its random stream (of `seed`).
pub(super) fn add_tcp_group(
    topo: &Topo,
    spec: &TrafficSpec,
    seed: u64,
    conns: &mut Vec<Connection>,
    events: &mut EventQueue,
    make: &dyn Fn(u32, [u32; 2], [Time; 2], usize, Rng) -> Connection,
) {
    // At once: a vector of connections (1,792 bytes each) grown by doubling copies all of them at
    // each step, 18 MB twice over at 10,000 flows.
    conns.reserve(spec.flows as usize);
    for k in 0..spec.flows {
        // Clients open connections to servers whichever way the data goes.
        let (server, client) = hosts_of(topo, spec, k);
        let data_sender = match spec.from {
            Side::Clients => 0,
            Side::Servers => 1,
        };
        let (rng, start) = flow_start(spec, seed, k);
        let phases = [
            topo.clock_phase[client as usize],
            topo.clock_phase[server as usize],
        ];
        events.schedule(
            start,
            Event::TcpOpen {
                conn: conns.len() as u32,
            },
        );
        conns.push(make(k, [client, server], phases, data_sender, rng));
    }
}

/// Both ends of connection `conn`, which just completed or failed, close (`tcp_close`): each
/// leaves its estimate in its host's route to the peer (route_cache.rs). A completed
/// connection's end that closed first (it sent its FIN without waiting for the peer's) does so
/// after TIME_WAIT.
fn close_routes(cache: &mut RouteCache, conn: &Connection, cfgs: &[TcpConfig], now: Time) {
    for side in 0..2 {
        let cfg = &cfgs[conn.end_cfgs[side] as usize];
        let (Some(time_wait), Some(estimate)) = (cfg.route_cache, conn.ends[side].route_sample())
        else {
            continue;
        };
        let first = conn.outcome == Outcome::Completed && !conn.ends[side].waits_for_peer_fin();
        let at = if first { now + time_wait } else { now };
        let (host, peer) = (conn.hosts[side], conn.hosts[1 - side]);
        cache.close(now, at, host, peer, estimate, cfg.tick);
    }
}

impl TcpTraffic {
    /// Keep a route cache if a TCP configuration asks for one; call once every configuration is
    /// in.
    pub fn start_route_cache(&mut self) {
        if self.conns.cfgs.iter().any(|c| c.route_cache.is_some()) {
            self.route_cache = Some(RouteCache::default());
        }
    }

    /// Put connection `conn` in a free slot, or a new one (`true` if new): its index.
    pub fn add(&mut self, conn: Connection) -> (u32, bool) {
        let conns = &mut self.conns;
        match conns.free.pop() {
            Some(c) => {
                conns.all[c as usize] = conn;
                (c, false)
            }
            None => {
                conns.all.push(conn);
                ((conns.all.len() - 1) as u32, true)
            }
        }
    }

    /// Connection `c` opens at `now`: its data sender starts at once without a handshake, else its
    /// opener sends its SYN.
    pub fn open(&mut self, c: u32, now: Time, events: &mut EventQueue, network: &mut Network) {
        let conn = &mut self.conns.all[c as usize];
        let cfgs = conn.end_cfgs.map(|i| &self.conns.cfgs[i as usize]);
        conn.started = Some(now);
        if self.conns.cfgs[conn.end_cfgs[0] as usize].handshake == Handshake::None {
            for (e, cfg) in conn.ends.iter_mut().zip(cfgs) {
                e.start_established(cfg, now);
            }
            let s = conn.data_sender;
            conn.ends[s].kick(now, cfgs[s], &mut conn.rng, &mut self.outbox);
            self.emit(c, s, now, events, network);
        } else {
            let s = conn.syn_sender;
            conn.ends[s].open(now, cfgs[s], &mut self.outbox);
            self.emit(c, s, now, events, network);
        }
    }

    /// Packet `pkt` (in `network`) reaches its TCP endpoint at `now`: the segment is read where it
    /// is and handled (the data sender's state after an ACK traced into `trace` if the connection
    /// is traced). Returns the connection, the side it reached and whether its application reacts
    /// to segments (a bulk transfer's has nothing to do after one, and a bulk connection stays
    /// one). The caller gives up the packet's slot: [`Self::emit_inline`].
    #[inline(always)]
    pub fn receive(
        &mut self,
        pkt: PacketId,
        now: Time,
        network: &Network,
        trace: &mut Vec<TraceRow>,
    ) -> (u32, usize, bool) {
        let p = network.packets.get(pkt);
        let c = p.flow;
        let side = usize::from(p.from_opener);
        let conn = &mut self.conns.all[c as usize];
        conn.pkts_delivered += 1;
        let app_reacts = !matches!(conn.app, App::Bulk);
        let cfg = &self.conns.cfgs[conn.end_cfgs[side] as usize];
        if let (Some(cache), true) = (&mut self.route_cache, p.seg.has(flags::SYN)) {
            if cfg.route_cache.is_some() {
                // tcp_dooptions → tcp_mss: a SYN or SYN-ACK arrives (route_cache.rs).
                let (host, peer) = (conn.hosts[side], conn.hosts[1 - side]);
                if let Some((srtt, rttvar)) = cache.lookup(now, host, peer, cfg.tick) {
                    conn.ends[side].start_from_route(srtt, rttvar);
                }
            }
        }
        conn.ends[side].on_segment(
            &p.seg,
            p.ecn == Ecn::Ce,
            now,
            cfg,
            &mut conn.rng,
            &mut self.outbox,
        );
        let is_ack = p.seg.len == 0 && !p.seg.has(flags::SYN);
        if conn.trace
            && side == conn.data_sender
            && is_ack
            && conn.ends[side].state == State::Established
        {
            let e = &conn.ends[side];
            trace.push(TraceRow {
                t: now,
                conn: c,
                cwnd: e.cwnd(),
                ssthresh: e.ssthresh(),
                srtt_s: e.srtt_s().unwrap_or(f64::NAN),
                rto: e.rto(),
            });
        }
        (c, side, app_reacts)
    }

    /// Timer event `which` (side · 4 + timer) of connection `c` at `now`: the timer fires if it
    /// still expires then. Whether the event was live (not superseded by an earlier one for the
    /// same timer, nor cleared for good): only then can the connection have changed.
    pub fn timer(
        &mut self,
        c: u32,
        which: u32,
        now: Time,
        events: &mut EventQueue,
        network: &mut Network,
    ) -> bool {
        let (side, timer) = ((which / 4) as usize, Timer::ALL[(which % 4) as usize]);
        let conn = &mut self.conns.all[c as usize];
        let e = &mut conn.ends[side];
        if e.timers.armed(timer) != Some(now) {
            if timer.set_once() {
                self.dead_timers = self.dead_timers.saturating_sub(1);
            }
            return false; // superseded by an earlier event for the same timer, or cleared for good
        }
        e.timers.set_armed(timer, None);
        if e.timers.deadline(timer).is_some_and(|d| d <= now) {
            let cfg = &self.conns.cfgs[conn.end_cfgs[side] as usize];
            e.on_timer(timer, now, cfg, &mut self.outbox);
        }
        self.emit(c, side, now, events, network);
        true
    }

    /// Drop the dead TCP timer events from the queue: those of a timer set once that no longer
    /// expects them. An event for such a timer is live only at the time it is armed for; a
    /// connection sets it once, and a later connection in the same slot sets it later, so a dead
    /// one never comes back to life. Dropping them changes nothing but the event count.
    fn drop_dead_timers(&mut self, events: &mut EventQueue) {
        let conns = &self.conns.all;
        events.retain(|t, e| match *e {
            Event::TcpTimer { conn, which } => {
                let (side, timer) = ((which / 4) as usize, Timer::ALL[(which % 4) as usize]);
                !timer.set_once() || conns[conn as usize].ends[side].timers.armed(timer) == Some(t)
            }
            _ => true,
        });
        self.dead_timers = 0;
    }

    /// Turn what endpoint `side` of connection `c` produced into packets offered to `network`,
    /// schedule its timers, and note what changed about the connection.
    ///
    /// Each call leaves both ends' timers [settled](crate::tcp::endpoint::Timers::settled), and
    /// between two calls for a connection only the end that handles a segment or a timer (`side`)
    /// changes: so the other end's timers are gone through only if `update` just stopped them (a
    /// failure).
    #[inline(never)]
    pub fn emit(
        &mut self,
        c: u32,
        side: usize,
        now: Time,
        events: &mut EventQueue,
        network: &mut Network,
    ) {
        self.emit_inline(c, side, None, now, events, network);
    }

    /// [`Self::emit`], inline where a segment is delivered (almost every call). `spare`: the
    /// slot of the packet just delivered, not yet freed: the first packet made takes it, which is
    /// what freeing it and allocating would do (the arena reuses the slot freed last first),
    /// without the two steps; with no packet to make, it is freed.
    #[inline(always)]
    pub fn emit_inline(
        &mut self,
        c: u32,
        side: usize,
        mut spare: Option<PacketId>,
        now: Time,
        events: &mut EventQueue,
        network: &mut Network,
    ) {
        let conn = &mut self.conns.all[c as usize];
        debug_assert!(
            conn.ends[1 - side].timers.settled(),
            "connection {c}: the end not emitting changed its timers"
        );
        let cfg = &self.conns.cfgs[conn.end_cfgs[side] as usize];
        let (src, dst) = (conn.hosts[side], conn.hosts[1 - side]);
        // Every packet is allocated before any is queued (a drop frees a slot, which the next
        // allocation would take). The first, usually the only one, is kept apart from `pending`.
        let packets = &mut network.packets;
        let mut first = None;
        for o in &self.outbox {
            conn.pkts_sent += 1;
            let head = Packet {
                flow: c,
                proto: Proto::Tcp,
                from_opener: side == 0,
                ecn: if o.ect { Ecn::Ect } else { Ecn::NotEct },
                size: cfg.wire_size(o.seg.len),
                src,
                dst,
                sent_at: now,
                ..Packet::default()
            };
            let pkt = match spare.take() {
                Some(id) => {
                    packets.fill(id, head, &o.seg);
                    id
                }
                None => packets.alloc_with(head, &o.seg),
            };
            if first.is_none() {
                first = Some(pkt);
            } else {
                self.pending.push(pkt);
            }
        }
        if let Some(id) = spare {
            packets.free(id);
        }
        self.outbox.clear();
        let was_open = conn.outcome == Outcome::Open;
        conn.update(now, &self.conns.cfgs[conn.end_cfgs[0] as usize]);
        if let (Some(cache), true) = (&mut self.route_cache, was_open) {
            if conn.outcome != Outcome::Open {
                close_routes(cache, conn, &self.conns.cfgs, now);
            }
        }
        let ends = if conn.outcome == Outcome::Failed {
            0..2
        } else {
            side..side + 1
        };
        for e in ends {
            let end = &mut conn.ends[e];
            if end.timers.settled() {
                continue; // nothing below would match
            }
            for k in 0..Timer::ALL.len() {
                let timer = Timer::ALL[k];
                let armed = end.timers.armed(timer);
                match end.timers.deadline(timer) {
                    Some(d) if armed.is_none_or(|a| a > d) => {
                        end.timers.set_armed(timer, Some(d));
                        events.schedule(
                            d,
                            Event::TcpTimer {
                                conn: c,
                                which: (4 * e + k) as u32,
                            },
                        );
                    }
                    // Cleared for good: its event would find nothing to do.
                    None if timer.set_once() && armed.is_some() => {
                        end.timers.set_armed(timer, None);
                        self.dead_timers += 1;
                    }
                    _ => {}
                }
            }
        }
        if self.dead_timers > DEAD_TIMERS_MIN && 2 * self.dead_timers > events.len() as u64 {
            self.drop_dead_timers(events);
        }
        if let Some(pkt) = first {
            network.send(src, dst, pkt, now, events, &mut self.conns);
            for &pkt in &self.pending {
                network.send(src, dst, pkt, now, events, &mut self.conns);
            }
            self.pending.clear();
        }
    }
}
