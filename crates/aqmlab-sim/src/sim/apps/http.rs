//! Driving `web-pool` users under `connections = "ns2-http"` (the model and its sources:
//! `traffic/http.rs`): a user's request goes on its own persistent connection, opened by its first
//! request; the server answers a whole request at once, on its host pair's shared connection,
//! with the current version of its page; the user holds the reply when every byte of it and of
//! the replies before it on that connection has arrived, logs the pair in the `requests` table
//! and asks again after a pause.
//!
//! One difference from ns-2 is kept on purpose: the shared connection is that of the pair's first
//! user to send a request, where ns-2's is that of the first to connect (`Http connect`, before
//! its first request); they differ only when a later user's first request comes before the first
//! user's, which ns-2 answers by opening the first user's agent from the server side.

use super::{Apps, Below};
use crate::event::Event;
use crate::network::Topo;
use crate::rng::Rng;
use crate::sim::measurement::{Measurement, RequestRow};
use crate::traffic::http::{HostPair, HttpUser, ServerPage};
use crate::traffic::web::PageModel;
use crate::traffic::{App, Connection};
use crate::units::Time;
use std::collections::BTreeMap;

/// What the simulation keeps for `ns2-http` users.
#[derive(Debug, Default)]
pub(crate) struct HttpState {
    /// Per web user (all web users, aligned with `Apps::users`; used for `ns2-http` ones).
    pub users: Vec<HttpUser>,
    pub pairs: Vec<HostPair>,
    /// Index of each (user host, server host) pair in `pairs`, while users are added.
    pair_of: BTreeMap<(u32, u32), u32>,
    /// Per node: the page it serves, once asked.
    pages: Vec<Option<ServerPage>>,
    /// Where a segment's own output waits while a reply goes out on another connection.
    aside: Vec<crate::tcp::Out>,
}

impl Apps {
    /// Note user `u` of web group `wg` on node `host` (index `home` on its side) of `topo`, asking
    /// across: under `ns2-http` it joins the pair of its host and its peer.
    pub(super) fn add_http_user(&mut self, wg: u32, host: u32, home: u32, topo: &Topo) {
        let g = &self.web_groups[wg as usize];
        let PageModel::Pool(p) = &g.model else {
            self.http.users.push(HttpUser::default());
            return;
        };
        if p.ns2_http().is_none() {
            self.http.users.push(HttpUser::default());
            return;
        }
        let server = g.peers[(home as usize) % g.peers.len()];
        let next = self.http.pairs.len() as u32;
        let pair = *self.http.pair_of.entry((host, server)).or_insert(next);
        if pair == next {
            self.http.pairs.push(HostPair::new(server));
        }
        if self.http.pages.is_empty() {
            self.http.pages = vec![None; topo.net.hosts as usize];
        }
        let page = &mut self.http.pages[server as usize];
        if page.is_none() {
            let name = topo.host_name(server);
            let rng = Rng::stream(self.seed, &format!("web-pool.page.{name}"));
            *page = Some(ServerPage::unborn(rng));
        }
        self.http.users.push(HttpUser {
            pair,
            ..HttpUser::default()
        });
    }

    /// Is user `u` an `ns2-http` user?
    pub(super) fn is_http_user(&self, u: u32) -> bool {
        let wg = &self.web_groups[self.users[u as usize].group as usize];
        matches!(&wg.model, PageModel::Pool(p) if p.ns2_http().is_some())
    }

    /// User `u` sends a request at `now`: on its connection, which its first request opens.
    pub(super) fn http_request(&mut self, u: u32, now: Time, b: &mut Below) {
        let user = &mut self.users[u as usize];
        let wg = &self.web_groups[user.group as usize];
        let bytes = wg.model.request(&mut user.rng);
        let h = &mut self.http.users[u as usize];
        h.requested += bytes;
        h.pending = Some((now, bytes));
        h.pages += 1;
        let tcp = &mut *b.tcp;
        if let Some(c) = h.conn {
            let conn = &mut tcp.conns.all[c as usize];
            let cfg = &tcp.conns.cfgs[conn.end_cfgs[0] as usize];
            conn.ends[0].write_after_pause(bytes, now, cfg);
            conn.ends[0].kick(now, cfg, &mut conn.rng, &mut tcp.outbox);
            tcp.emit(c, 0, now, b.events, b.network);
            return;
        }
        let pair = &mut self.http.pairs[h.pair as usize];
        let hosts = [user.client, pair.server];
        let phases = hosts.map(|n| b.network.topo.clock_phase[n as usize]);
        let server_cfg = self.web_host_cfg[pair.server as usize].unwrap_or(wg.cfg);
        let mut conn = Connection::http(
            wg.group,
            u,
            (wg.cfg, &tcp.conns.cfgs[wg.cfg as usize]),
            (server_cfg, &tcp.conns.cfgs[server_cfg as usize]),
            hosts,
            phases,
            bytes,
            user.rng.fork(),
        );
        conn.started = Some(now);
        let c = tcp.conns.all.len() as u32;
        tcp.conns.all.push(conn);
        b.measure.add_connection();
        h.conn = Some(c);
        pair.conn.get_or_insert(c);
        let conn = &mut tcp.conns.all[c as usize];
        conn.ends[0].open(now, &tcp.conns.cfgs[wg.cfg as usize], &mut tcp.outbox);
        tcp.emit(c, 0, now, b.events, b.network);
    }

    /// After a segment reached side `side` of `ns2-http` connection `c` at `now`: the server
    /// answers its user's request once it holds it whole; the user host takes the replies it now
    /// holds whole.
    pub(super) fn http_progress(&mut self, c: u32, side: usize, now: Time, b: &mut Below) {
        let App::Http { user } = b.tcp.conns.all[c as usize].app else {
            return;
        };
        let h = &mut self.http.users[user as usize];
        if side == 1 {
            let got = b.tcp.conns.all[c as usize].ends[1].bytes_delivered();
            if h.pending.is_some() && got >= h.requested && h.served < h.requested {
                h.served = h.requested;
                self.http_reply(c, user, now, b);
            }
            return;
        }
        let p = h.pair as usize;
        if self.http.pairs[p].conn != Some(c) {
            return;
        }
        let received = b.tcp.conns.all[c as usize].ends[0].bytes_delivered();
        while let Some(r) = self.http.pairs[p].pop_received(received) {
            self.http_answered(r.user, r.bytes, now, b);
        }
    }

    /// The server of user `user`'s pair answers its request (which arrived on connection `c`)
    /// with its page at `now`, on the pair's shared connection.
    fn http_reply(&mut self, c: u32, user: u32, now: Time, b: &mut Below) {
        let wg = &self.web_groups[self.users[user as usize].group as usize];
        let PageModel::Pool(model) = &wg.model else {
            unreachable!("ns2-http users are web-pool users")
        };
        let p = self.http.users[user as usize].pair as usize;
        let pair = &mut self.http.pairs[p];
        let page = self.http.pages[pair.server as usize]
            .as_mut()
            .expect("a served host has its page");
        let bytes = page.size_at(now, &model.page, model.ns2_http().flatten());
        pair.push_reply(user, bytes);
        let shared = pair
            .conn
            .expect("the pair's first request opened its connection");
        let tcp = &mut *b.tcp;
        // The segment just handled on `c` may have left output, to be sent after this reply.
        if shared != c {
            std::mem::swap(&mut tcp.outbox, &mut self.http.aside);
        }
        let conn = &mut tcp.conns.all[shared as usize];
        let cfg = &tcp.conns.cfgs[conn.end_cfgs[1] as usize];
        conn.ends[1].write_after_pause(bytes, now, cfg);
        conn.ends[1].kick(now, cfg, &mut conn.rng, &mut tcp.outbox);
        if shared != c {
            tcp.emit(shared, 1, now, b.events, b.network);
            std::mem::swap(&mut tcp.outbox, &mut self.http.aside);
        }
    }

    /// User `u` holds its reply of `bytes` bytes at `now`: log the pair, pause, ask again.
    fn http_answered(&mut self, u: u32, bytes: u64, now: Time, b: &mut Below) {
        let h = &mut self.http.users[u as usize];
        let (start, request) = h.pending.take().expect("a reply answers a pending request");
        let row = self.http_row(u, start, request, bytes, Some(now));
        if start >= self.warmup {
            b.measure.requests.push(row);
        }
        let user = &mut self.users[u as usize];
        let think = user.think(&self.web_groups[user.group as usize].model);
        b.events.schedule(now + think, Event::WebUser { user: u });
    }

    /// A `requests` row of user `u`'s current request. The connection's retransmission counters
    /// are those of a connection that lives for the run, so none is given (zero).
    fn http_row(
        &self,
        u: u32,
        start: Time,
        request: u64,
        reply: u64,
        end: Option<Time>,
    ) -> RequestRow {
        let user = &self.users[u as usize];
        let h = &self.http.users[u as usize];
        RequestRow {
            group: self.web_groups[user.group as usize].group,
            user: u,
            client: user.client,
            server: self.http.pairs[h.pair as usize].server,
            page: h.pages,
            object: 0,
            start,
            end,
            failed: false,
            request,
            reply,
            syn_rexmits: 0,
            fin_rexmits: 0,
            data_rexmits: 0,
            timeouts: 0,
        }
    }

    /// Rows for the `ns2-http` requests still unanswered when the run ends (the reply's size if
    /// the server has answered, else 0).
    pub(super) fn log_unanswered_http(&self, measure: &mut Measurement) {
        for u in 0..self.http.users.len() as u32 {
            let h = &self.http.users[u as usize];
            let Some((start, request)) = h.pending else {
                continue;
            };
            if start < self.warmup {
                continue;
            }
            let replies = &self.http.pairs[h.pair as usize].replies;
            let reply = replies.iter().find(|r| r.user == u).map_or(0, |r| r.bytes);
            let row = self.http_row(u, start, request, reply, None);
            measure.requests.push(row);
        }
    }
}
