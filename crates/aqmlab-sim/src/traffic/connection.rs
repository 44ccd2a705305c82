//! A TCP connection: its two endpoints (the opener on a client host, the listener on a server
//! host), what its application does, and what happened to it.

use super::session::SessionApp;
use crate::cache::{prefetch_bytes, LINE};
use crate::rng::Rng;
use crate::tcp::config::Handshake;
use crate::tcp::endpoint::{Counters, Endpoint, State};
use crate::tcp::TcpConfig;
use crate::units::Time;

/// How a connection ended, or that it has not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Open,
    /// Both FINs sent and acknowledged.
    Completed,
    /// It could not open in time, or gave up after too many retransmissions.
    Failed,
}

impl Outcome {
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Open => "open",
            Outcome::Completed => "completed",
            Outcome::Failed => "failed",
        }
    }
}

/// What the application on a connection does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum App {
    /// A bulk transfer (FTP).
    Bulk,
    /// One HTTP/1.0 request/response pair of a web user: the client sends `request` bytes, the
    /// server answers with `reply` bytes once it has read them, then closes.
    Web(WebPair),
    /// A recycled slot waiting for the next web pair.
    Free,
    /// A long-lived connection whose application writes now and then (web sessions, telnet).
    Session(SessionApp),
    /// An `ns2-http` user's persistent connection (`traffic/http.rs`): its requests one way, and
    /// the replies to its host the other way if it is its host pair's first.
    Http { user: u32 },
}

impl App {
    /// A web user's request/response pair, or the slot one left: the next pair reuses the slot,
    /// so its number names no one connection (the `connections` table lists the others).
    pub fn is_web(&self) -> bool {
        matches!(self, App::Web(_) | App::Free)
    }
}

/// The request/response pair a web connection carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WebPair {
    pub user: u32,
    pub page: u32,
    pub object: u32,
    pub request: u64,
    pub reply: u64,
    /// The server has read the request and written the reply.
    pub replying: bool,
    /// When the client had the whole reply and the server's FIN (the response time's end).
    pub answered: Option<Time>,
    /// The pair has been logged and its user told.
    pub logged: bool,
}

/// One connection between a client host and a server host.
///
/// Laid out by hand like [`Endpoint`]: what every segment touches first, then the two ends, then
/// the rest.
#[derive(Clone, Debug)]
#[repr(C, align(64))]
pub struct Connection {
    // --- Touched whenever either end handles a segment: the first cache line, then the second.
    /// Packets put on the wire, delivered to an endpoint, dropped in the network.
    pub pkts_sent: u64,
    pub pkts_delivered: u64,
    pub pkts_dropped: u64,
    /// The configuration (index in the simulation's table) each end sends and times with
    /// (`end_cfgs[side]`): the group's at both ends, except a web reply's server end, which uses
    /// its host's (`Connection::web`). The group's, `end_cfgs[0]`, decides what concerns the
    /// connection as a whole (handshake, completion, the `connections` table).
    pub end_cfgs: [u32; 2],
    pub hosts: [u32; 2],
    pub established: Option<Time>,
    pub outcome: Outcome,
    /// Record cwnd and RTT on every ACK the data sender processes.
    pub trace: bool,
    /// Which end sends the bulk data, and which sends the SYN (the client, except for ns-2's
    /// one-way agents, where the data sender does).
    pub data_sender: usize,
    pub syn_sender: usize,
    pub app: App,
    /// `ends[0]` is on the client host, `ends[1]` on the server host.
    pub ends: [Endpoint; 2],
    // --- Set once or rarely read. ---
    pub started: Option<Time>,
    pub ended: Option<Time>,
    pub rng: Rng,
    /// Index of its traffic group and its flow within the group.
    pub group: u32,
    pub index: u32,
}

impl Connection {
    /// A connection with nothing written yet; `data_sender` (0 the client, 1 the server) is the
    /// end whose data the `connections` table reports.
    #[allow(clippy::too_many_arguments)]
    fn idle(
        group: u32,
        index: u32,
        cfgs: [(u32, &TcpConfig); 2],
        hosts: [u32; 2],
        phases: [Time; 2],
        data_sender: usize,
        app: App,
        rng: Rng,
    ) -> Connection {
        let syn_sender = if cfgs[0].1.handshake == Handshake::Ns2Syn {
            data_sender
        } else {
            0
        };
        Connection {
            group,
            index,
            end_cfgs: cfgs.map(|(i, _)| i),
            ends: [
                Endpoint::new(cfgs[0].1, syn_sender == 0, phases[0]),
                Endpoint::new(cfgs[1].1, syn_sender == 1, phases[1]),
            ],
            hosts,
            data_sender,
            syn_sender,
            trace: false,
            app,
            rng,
            started: None,
            established: None,
            ended: None,
            outcome: Outcome::Open,
            pkts_sent: 0,
            pkts_delivered: 0,
            pkts_dropped: 0,
        }
    }

    /// A connection whose data sender (`data_sender`: 0 the client, 1 the server) has `bytes` to
    /// send (`None`: unlimited) and closes when done; the other end closes after it.
    #[allow(clippy::too_many_arguments)]
    pub fn bulk(
        group: u32,
        index: u32,
        cfg_index: u32,
        cfg: &TcpConfig,
        hosts: [u32; 2],
        phases: [Time; 2],
        data_sender: usize,
        bytes: Option<u64>,
        trace: bool,
        rng: Rng,
    ) -> Connection {
        let mut c = Connection::idle(
            group,
            index,
            [(cfg_index, cfg); 2],
            hosts,
            phases,
            data_sender,
            App::Bulk,
            rng,
        );
        c.trace = trace;
        match bytes {
            Some(n) => {
                c.ends[data_sender].write(n);
                c.ends[data_sender].close_after_data();
                c.ends[1 - data_sender].close_on_peer_fin();
            }
            // Unlimited: more than any run can send.
            None => c.ends[data_sender].write(u64::MAX / 4),
        }
        c
    }

    /// A web request/response pair from client host `hosts[0]` to server host `hosts[1]`: the client
    /// opens, writes the request and closes after the server's FIN (HTTP/1.0 clients wait for the
    /// server to close); the server writes the reply and closes when the request is in (see the
    /// simulation's `web_progress`). The client end uses the group's configuration (`cfg`); the
    /// server end uses `server_cfg` (its host's: its own MSS and timers for the reply), which must
    /// agree with `cfg` on the handshake.
    #[allow(clippy::too_many_arguments)]
    pub fn web(
        group: u32,
        cfg_index: u32,
        cfg: &TcpConfig,
        (server_cfg_index, server_cfg): (u32, &TcpConfig),
        hosts: [u32; 2],
        phases: [Time; 2],
        pair: WebPair,
        rng: Rng,
    ) -> Connection {
        debug_assert_eq!(cfg.handshake, server_cfg.handshake);
        let mut c = Connection::idle(
            group,
            pair.user,
            [(cfg_index, cfg), (server_cfg_index, server_cfg)],
            hosts,
            phases,
            1,
            App::Web(pair),
            rng,
        );
        c.ends[0].write(pair.request);
        c.ends[0].close_on_peer_fin();
        c
    }

    /// A long-lived connection whose data sender (`data_sender`) writes as `app` says; neither end
    /// closes.
    #[allow(clippy::too_many_arguments)]
    pub fn session(
        group: u32,
        index: u32,
        cfg_index: u32,
        cfg: &TcpConfig,
        hosts: [u32; 2],
        phases: [Time; 2],
        data_sender: usize,
        app: SessionApp,
        first_write: u64,
        rng: Rng,
    ) -> Connection {
        let mut c = Connection::idle(
            group,
            index,
            [(cfg_index, cfg); 2],
            hosts,
            phases,
            data_sender,
            App::Session(app),
            rng,
        );
        c.ends[data_sender].write(first_write);
        c
    }

    /// The persistent connection of `ns2-http` user `user` from client host `hosts[0]` to server
    /// host `hosts[1]`, its first request of `request` bytes written: the client end sends with
    /// the group's configuration (`cfg`), the server end with `server_cfg` (its host's, as for
    /// [`Connection::web`]). Neither end closes.
    #[allow(clippy::too_many_arguments)]
    pub fn http(
        group: u32,
        user: u32,
        (cfg_index, cfg): (u32, &TcpConfig),
        (server_cfg_index, server_cfg): (u32, &TcpConfig),
        hosts: [u32; 2],
        phases: [Time; 2],
        request: u64,
        rng: Rng,
    ) -> Connection {
        debug_assert_eq!(cfg.handshake, server_cfg.handshake);
        let mut c = Connection::idle(
            group,
            user,
            [(cfg_index, cfg), (server_cfg_index, server_cfg)],
            hosts,
            phases,
            1,
            App::Http { user },
            rng,
        );
        c.ends[0].write(request);
        c
    }

    /// The bytes of a connection every segment reads: its first two cache lines.
    pub const PER_SEGMENT_BYTES: usize = std::mem::offset_of!(Connection, ends);

    /// Start loading what the delivery of a segment to end `side` will read: the connection's
    /// first lines, that end's per-segment part and the other end's timers and state (the
    /// simulation's bookkeeping after every segment). A hint only ([`crate::cache`]).
    #[inline]
    pub fn prefetch_for_segment(&self, side: usize) {
        prefetch_bytes(self, Self::PER_SEGMENT_BYTES);
        prefetch_bytes(&self.ends[side], Endpoint::PER_SEGMENT_BYTES);
        prefetch_bytes(&self.ends[1 - side], 2 * LINE);
    }

    /// Packets of this connection still in the network.
    pub fn in_flight(&self) -> u64 {
        self.pkts_sent - self.pkts_delivered - self.pkts_dropped
    }

    /// Note what changed at `now`: opened, completed, failed. Inline: the simulation calls it
    /// after every segment, and it is a few tests when nothing changed.
    #[inline(always)]
    pub fn update(&mut self, now: Time, cfg: &TcpConfig) {
        if self.outcome != Outcome::Open {
            return;
        }
        if self.established.is_none() && self.ends[self.syn_sender].state == State::Established {
            self.established = Some(now);
        }
        if self.ends.iter().any(|e| e.state == State::Failed) {
            self.outcome = Outcome::Failed;
            self.ended = Some(now);
            for e in &mut self.ends {
                e.state = State::Failed;
                e.timers.stop_all();
            }
        } else if !matches!(self.app, App::Session(_) | App::Http { .. })
            && self.ends.iter().all(|e| e.finished(cfg))
        {
            // Sessions (web sessions, telnet, ns2-http) never end; the others end when both ends
            // are done.
            self.outcome = Outcome::Completed;
            self.ended = Some(now);
        }
    }

    /// Data bytes the receiving end has got in order.
    pub fn goodput_bytes(&self) -> u64 {
        self.ends[1 - self.data_sender].bytes_delivered()
    }

    /// The time, up to `now`, its application had data to deliver: a bulk transfer from its
    /// start to its completion, a web session's transfers ([`SessionApp::transferring`]); `None`
    /// for telnet and web connections.
    pub fn transferring(&self, now: Time) -> Option<Time> {
        match self.app {
            App::Bulk => {
                let until = self.ended.map_or(now, |end| end.min(now));
                Some(
                    self.started
                        .map_or(Time(0), |s| Time(until.0.saturating_sub(s.0))),
                )
            }
            App::Session(app) => app.transferring(now, self.started),
            App::Web(_) | App::Free | App::Http { .. } => None,
        }
    }

    /// Its counters at `now` (zero before it starts); the report subtracts those at the warm-up's
    /// end.
    pub fn counts(&self, now: Time) -> ConnCounts {
        ConnCounts {
            transfer_ns: self.transferring(now).map(|t| t.0),
            goodput_bytes: self.goodput_bytes(),
            pkts_sent: self.pkts_sent,
            pkts_delivered: self.pkts_delivered,
            pkts_dropped: self.pkts_dropped,
            ends: [self.ends[0].c, self.ends[1].c],
        }
    }
}

/// A connection's cumulative counters at one instant ([`Connection::counts`]); the difference of
/// two ([`ConnCounts::since`]) counts what happened between them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConnCounts {
    /// Time spent transferring, ns ([`Connection::transferring`]).
    pub transfer_ns: Option<u64>,
    pub goodput_bytes: u64,
    pub pkts_sent: u64,
    pub pkts_delivered: u64,
    pub pkts_dropped: u64,
    /// Each end's own counters (`ends[0]` the client's).
    pub ends: [Counters; 2],
}

impl ConnCounts {
    /// What was counted after `earlier` (counts of the same connection, taken before).
    pub fn since(&self, earlier: &ConnCounts) -> ConnCounts {
        let end = |a: &Counters, b: &Counters| Counters {
            segs_sent: a.segs_sent - b.segs_sent,
            data_segs_sent: a.data_segs_sent - b.data_segs_sent,
            data_rexmits: a.data_rexmits - b.data_rexmits,
            syn_rexmits: a.syn_rexmits - b.syn_rexmits,
            fin_rexmits: a.fin_rexmits - b.fin_rexmits,
            timeouts: a.timeouts - b.timeouts,
            fast_rexmits: a.fast_rexmits - b.fast_rexmits,
            ecn_reductions: a.ecn_reductions - b.ecn_reductions,
            recoveries: a.recoveries - b.recoveries,
            recovery_ns: a.recovery_ns - b.recovery_ns,
            first_timeouts: a.first_timeouts - b.first_timeouts,
            first_timeout_ns: a.first_timeout_ns - b.first_timeout_ns,
        };
        ConnCounts {
            transfer_ns: (self.transfer_ns).map(|a| a - earlier.transfer_ns.unwrap_or(0)),
            goodput_bytes: self.goodput_bytes - earlier.goodput_bytes,
            pkts_sent: self.pkts_sent - earlier.pkts_sent,
            pkts_delivered: self.pkts_delivered - earlier.pkts_delivered,
            pkts_dropped: self.pkts_dropped - earlier.pkts_dropped,
            ends: [
                end(&self.ends[0], &earlier.ends[0]),
                end(&self.ends[1], &earlier.ends[1]),
            ],
        }
    }

    /// A counter of both ends added up.
    pub fn both(&self, counter: fn(&Counters) -> u64) -> u64 {
        counter(&self.ends[0]) + counter(&self.ends[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn what_every_segment_touches_is_in_the_first_two_cache_lines() {
        assert!(offset_of!(Connection, trace) < 64);
        assert!(offset_of!(Connection, established) + 16 <= 64);
        assert!(offset_of!(Connection, app) + std::mem::size_of::<App>() <= 128);
        assert_eq!(offset_of!(Connection, ends), 128);
        assert_eq!(Connection::PER_SEGMENT_BYTES, 128);
        assert_eq!(std::mem::size_of::<Endpoint>() % 64, 0);
    }
}
