//! Driving Mah's browsing users: their pages become connections, a connection's server answers
//! when the request is in, and every request/response pair is logged with its response time —
//! from the client's connect() to the moment it holds the whole reply and the server's FIN
//! (Christiansen et al. §3.2). Finished connections are recycled once none of their packets remain
//! in the network, so a long run keeps only as many as are open at once.

use super::{Apps, Below, PendingWebGroup};
use crate::event::{Event, EventQueue};
use crate::network::Topo;
use crate::scenario::Scenario;
use crate::sim::measurement::{Measurement, RequestRow};
use crate::sim::plan::{draw_start, flow_start};
use crate::sim::tcp::TcpTraffic;
use crate::traffic::config::{Side, TrafficKind};
use crate::traffic::web::{Fetch, MahModel, PageModel, WebUser};
use crate::traffic::{App, Connection, Outcome, WebPair};
use crate::units::Time;

/// What the simulation keeps for each web traffic group.
#[derive(Clone, Debug)]
pub struct WebGroup {
    pub group: u32,
    pub model: PageModel,
    pub max_conns: u32,
    /// Index of the group's TCP configuration.
    pub cfg: u32,
    /// The hosts the users request from (node ids): the group's servers, or its clients when the
    /// users sit on the server hosts (`web-pool`'s `users_on = "servers"`).
    pub peers: Vec<u32>,
}

/// A `web-mah` user's pages as a simulated run draws them: what live mode's clients fetch.
#[derive(Clone, Debug, serde::Serialize)]
pub struct UserScript {
    /// Its group's position in `traffic`; the user's number across the web groups, as in the
    /// `requests` table; the client host it sits on (index among the clients).
    pub group: u32,
    pub user: u32,
    pub client: u32,
    /// When it requests its first page (its start, plus what is left of a think time).
    pub first: Time,
    pub pages: Vec<PageScript>,
}

/// One page of a [`UserScript`].
#[derive(Clone, Debug, serde::Serialize)]
pub struct PageScript {
    /// The server machine it is fetched from (index among the servers).
    pub server: u32,
    /// Its objects, the primary one first: (request bytes, reply bytes).
    pub objects: Vec<(u64, u64)>,
    /// The think time after it, before the next page.
    pub think: Time,
}

/// The pages every `web-mah` user of `scenario` fetches under `seed`, as a simulated run draws
/// them: a user's draws come from its own stream in an order the network does not change (a
/// page's server and run length, its object count, each object's request and reply in object
/// order in batches of at most `max_conns`, a fork of the stream for each connection opened,
/// then the think time), so the script is the simulated user's. Pages are listed until
/// their think times alone pass the scenario's end. (`web-pool` users are not scripted.)
pub fn web_scripts(scenario: &Scenario, seed: u64) -> Vec<UserScript> {
    let net = &scenario.net;
    let mut scripts = Vec::new();
    for (g, spec) in scenario.traffic.iter().enumerate() {
        let TrafficKind::WebMah {
            pages, max_conns, ..
        } = &spec.kind
        else {
            continue;
        };
        let model = PageModel::Mah(Box::new(MahModel::new(pages)));
        let (servers, clients) = spec.sides((&net.servers, &net.clients));
        let n_servers = servers.len() as u32;
        for k in 0..spec.flows {
            let (_, home) = spec.user_host(k, n_servers, clients.len() as u32);
            let (rng, start) = flow_start(spec, seed, k);
            let index = scripts.len() as u32;
            let mut user = WebUser::new(index, 0, home, home, rng);
            let first = start + user.first_think(&model);
            let (mut at, mut script) = (first, Vec::new());
            let mut fetches = Vec::new();
            // Each connection opened forks the user's stream (`open_web`): a draw between the
            // batches of requests, which `max_conns` sizes, as in simulation.
            let open = |user: &mut WebUser, fetches: &[Fetch], before: usize| {
                for _ in before..fetches.len() {
                    user.rng.fork();
                }
            };
            while at <= scenario.duration {
                user.start_page(&model, n_servers, &mut fetches);
                open(&mut user, &fetches, 0);
                let think = loop {
                    let before = fetches.len();
                    let done = user.object_done(&model, *max_conns, &mut fetches);
                    open(&mut user, &fetches, before);
                    if let Some(think) = done {
                        break think;
                    }
                };
                script.push(PageScript {
                    // The dumbbell's servers are nodes 0..S: a node id is an index there.
                    server: servers[fetches[0].server as usize],
                    objects: fetches.drain(..).map(|f| (f.request, f.reply)).collect(),
                    think,
                });
                at = at + think;
            }
            scripts.push(UserScript {
                group: g as u32,
                user: index,
                client: clients[home as usize] - net.servers.len() as u32,
                first,
                pages: script,
            });
        }
    }
    scripts
}

impl Apps {
    /// The users of web group `g` (its position among the traffic groups, `spec` in `scenario`),
    /// on `topo`: each starts thinking at its start time and requests its first page after a think
    /// time (scheduled on `events`).
    pub(in crate::sim) fn add_web_users(
        &mut self,
        (g, max_conns, model, cfg): PendingWebGroup,
        scenario: &Scenario,
        topo: &Topo,
        events: &mut EventQueue,
    ) {
        let spec = &scenario.traffic[g];
        let wg = self.web_groups.len() as u32;
        let pool = matches!(spec.kind, TrafficKind::WebPool { .. });
        let (servers, clients) = spec.sides((&topo.net.servers, &topo.net.clients));
        for k in 0..spec.flows {
            let (side, home) = spec.user_host(k, servers.len() as u32, clients.len() as u32);
            let host = match side {
                Side::Servers => servers[home as usize],
                Side::Clients => clients[home as usize],
            };
            if pool {
                // The host answers requests with its users' TCP settings (all equal: the scenario
                // checks it).
                self.web_host_cfg[host as usize].get_or_insert(cfg);
            }
            let mut rng =
                crate::rng::Rng::stream(self.seed, &format!("traffic.{}[{k}]", spec.name));
            let start = draw_start(spec.start, &mut rng);
            let mut user = WebUser::new(self.users.len() as u32, wg, host, home, rng);
            let first = start + user.first_think(&model);
            events.schedule(first, Event::WebUser { user: user.index });
            self.users.push(user);
        }
        self.web_groups.push(WebGroup {
            group: g as u32,
            model,
            max_conns,
            cfg,
            peers: match spec.from {
                Side::Servers => clients.to_vec(),
                Side::Clients => servers.to_vec(),
            },
        });
        let first = self.users.len() as u32 - spec.flows;
        for u in first..self.users.len() as u32 {
            let user = &self.users[u as usize];
            let (client, home) = (user.client, user.home());
            self.add_http_user(wg, client, home, topo);
        }
    }

    /// User `u`'s think time is over, at `now`: it requests a page.
    pub(in crate::sim) fn web_user_wakes(&mut self, u: u32, now: Time, b: &mut Below) {
        if self.is_http_user(u) {
            self.http_request(u, now, b);
            return;
        }
        let user = &mut self.users[u as usize];
        let wg = &self.web_groups[user.group as usize];
        let mut fetches = std::mem::take(&mut self.fetches);
        user.start_page(&wg.model, wg.peers.len() as u32, &mut fetches);
        self.open_fetches(&mut fetches, now, b);
        self.fetches = fetches;
    }

    fn open_fetches(&mut self, fetches: &mut Vec<Fetch>, now: Time, b: &mut Below) {
        for f in fetches.drain(..) {
            self.open_web(f, now, b);
        }
    }

    /// Open the connection of one request/response pair.
    fn open_web(&mut self, f: Fetch, now: Time, b: &mut Below) {
        let user = &mut self.users[f.user as usize];
        let wg = &self.web_groups[user.group as usize];
        let topo = &b.network.topo;
        let server = wg.peers[f.server as usize];
        let hosts = [user.client, server];
        let phases = [
            topo.clock_phase[hosts[0] as usize],
            topo.clock_phase[hosts[1] as usize],
        ];
        let pair = WebPair {
            user: f.user,
            page: f.page,
            object: f.object,
            request: f.request,
            reply: f.reply,
            replying: false,
            answered: None,
            logged: false,
        };
        // web-pool: each end sends with its own host's settings: the request with the user's
        // group's, the reply with those of the server host's own web-pool users if it has any
        // (Eddy & Allman give each host its packet size), else the user's group's. web-mah: the
        // group's at both ends.
        let server_cfg = match wg.model {
            PageModel::Pool(_) => self.web_host_cfg[server as usize].unwrap_or(wg.cfg),
            PageModel::Mah(_) => wg.cfg,
        };
        let tcp = &mut *b.tcp;
        let (cfg, scfg) = (
            &tcp.conns.cfgs[wg.cfg as usize],
            &tcp.conns.cfgs[server_cfg as usize],
        );
        let mut conn = Connection::web(
            wg.group,
            wg.cfg,
            cfg,
            (server_cfg, scfg),
            hosts,
            phases,
            pair,
            user.rng.fork(),
        );
        conn.started = Some(now);
        let (c, new) = tcp.add(conn);
        if new {
            b.measure.add_connection();
        }
        let conn = &mut tcp.conns.all[c as usize];
        conn.ends[0].open(now, &tcp.conns.cfgs[wg.cfg as usize], &mut tcp.outbox);
        tcp.emit(c, 0, now, b.events, b.network);
    }

    /// After a segment reached side `side` of web connection `c` at `now`: the server answers a
    /// complete request; the client notes a complete response.
    pub(super) fn web_progress(&mut self, c: u32, side: usize, now: Time, tcp: &mut TcpTraffic) {
        let conn = &mut tcp.conns.all[c as usize];
        let App::Web(mut pair) = conn.app else { return };
        if side == 1 && !pair.replying && conn.ends[1].bytes_delivered() >= pair.request {
            // The server's service time is zero (Christiansen et al. §3.2): it writes the reply,
            // which goes as far as the window lets it, and then closes (BSD `sosend` calls
            // `tcp_output` before `close` does): the FIN rides on data still unsent then
            // (`fin_piggyback`), or goes alone after a reply that has all left.
            pair.replying = true;
            let cfg = &tcp.conns.cfgs[conn.end_cfgs[1] as usize];
            conn.ends[1].write(pair.reply);
            conn.ends[1].kick(now, cfg, &mut conn.rng, &mut tcp.outbox);
            conn.ends[1].close_after_data();
            conn.ends[1].kick(now, cfg, &mut conn.rng, &mut tcp.outbox);
        }
        if side == 0 && pair.answered.is_none() && conn.ends[0].fin_received() {
            pair.answered = Some(now);
        }
        conn.app = App::Web(pair);
    }

    /// Log a web pair once it is answered or has failed, tell its user, and recycle the connection
    /// when nothing of it is left in the network.
    #[inline]
    pub(in crate::sim) fn web_settle(&mut self, c: u32, now: Time, b: &mut Below) {
        if matches!(b.tcp.conns.all[c as usize].app, App::Web(_)) {
            self.web_settle_pair(c, now, b);
        }
    }

    /// [`Self::web_settle`] for a connection that carries a web request.
    #[inline(never)]
    fn web_settle_pair(&mut self, c: u32, now: Time, b: &mut Below) {
        let conn = &mut b.tcp.conns.all[c as usize];
        let App::Web(mut pair) = conn.app else { return };
        if !pair.logged && (pair.answered.is_some() || conn.outcome == Outcome::Failed) {
            pair.logged = true;
            conn.app = App::Web(pair);
            let row = request_row(conn, &pair, &self.users[pair.user as usize]);
            if row.start >= self.warmup {
                b.measure.requests.push(row);
            }
            let user = &mut self.users[pair.user as usize];
            let wg = &self.web_groups[user.group as usize];
            let mut fetches = std::mem::take(&mut self.fetches);
            if let Some(think) = user.object_done(&wg.model, wg.max_conns, &mut fetches) {
                b.events
                    .schedule(now + think, Event::WebUser { user: pair.user });
            }
            self.open_fetches(&mut fetches, now, b);
            self.fetches = fetches;
        }
        b.tcp.conns.recycle_if_done(c);
    }

    /// Rows for the pairs still in progress when the run ends.
    pub(super) fn log_unfinished_requests(&self, tcp: &TcpTraffic, measure: &mut Measurement) {
        for conn in &tcp.conns.all {
            if let App::Web(pair) = conn.app {
                if !pair.logged && conn.started.is_some_and(|s| s >= self.warmup) {
                    measure.requests.push(request_row(
                        conn,
                        &pair,
                        &self.users[pair.user as usize],
                    ));
                }
            }
        }
    }
}

fn request_row(conn: &Connection, pair: &WebPair, user: &WebUser) -> RequestRow {
    let both =
        |f: fn(&crate::tcp::endpoint::Counters) -> u64| f(&conn.ends[0].c) + f(&conn.ends[1].c);
    RequestRow {
        group: conn.group,
        user: pair.user,
        client: user.client,
        server: conn.hosts[1],
        page: pair.page,
        object: pair.object,
        start: conn.started.expect("a logged connection has started"),
        end: pair.answered,
        failed: pair.answered.is_none() && conn.outcome == Outcome::Failed,
        request: pair.request,
        reply: pair.reply,
        syn_rexmits: both(|k| k.syn_rexmits),
        fin_rexmits: both(|k| k.fin_rexmits),
        data_rexmits: both(|k| k.data_rexmits),
        timeouts: both(|k| k.timeouts),
    }
}

#[cfg(test)]
mod tests {
    use crate::packet::Proto;
    use crate::{Scenario, Simulation};
    use serde_json::json;
    use std::collections::BTreeMap;

    /// The largest TCP data packet (IP bytes) each host sent, seen by scanning the packet arena
    /// every 0.2 ms (a freed slot keeps its last packet until reused, so little is missed).
    fn largest_data_packets(v: &serde_json::Value) -> BTreeMap<u32, u32> {
        let scenario = Scenario::from_value(v).expect("valid scenario");
        let mut sim = Simulation::new(&scenario, Some(1));
        let mut largest = BTreeMap::new();
        let mut t = crate::units::Time::ZERO;
        while t < scenario.duration {
            t = t + crate::units::Time::from_micros(200);
            sim.run_until(t, &mut || false).expect("no limits");
            for id in 0..sim.network.packets.capacity() {
                let p = sim.network.packets.get(id as u32);
                if p.proto == Proto::Tcp && p.seg.len > 0 {
                    let m = largest.entry(p.src).or_insert(0);
                    *m = (*m).max(p.size);
                }
            }
        }
        largest
    }

    /// Every web request's connection arms a 75 s connect timer (FreeBSD 2.2), cleared as soon as
    /// it opens, so within a 30 s run none fires: each leaves a dead event. They leave the queue
    /// once they are half of it, and the simulation's count of them is exact.
    #[test]
    fn dead_connect_timers_leave_the_queue() {
        use crate::event::Event;
        use crate::tcp::Timer;
        let v = json!({
            "duration": "30s",
            "topology": {"servers": 2, "clients": 2,
                         "bottleneck": {"rate": "100Mbps", "delay": "1ms"}},
            "traffic": [{"kind": "web-mah", "users": 1000, "think_max": "2s",
                         "tcp": {"profile": "freebsd-2.2"}}]
        });
        let scenario = Scenario::from_value(&v).expect("valid scenario");
        let mut sim = Simulation::new(&scenario, Some(1));
        let (mut t, mut most) = (crate::units::Time::ZERO, 0);
        while t < scenario.duration {
            t = t + crate::units::Time::from_secs(1);
            sim.run_until(t, &mut || false).expect("no limits");
            let conns = &sim.tcp.conns.all;
            let mut dead = 0;
            sim.events.retain(|time, e| {
                if let Event::TcpTimer { conn, which } = *e {
                    let (side, timer) = ((which / 4) as usize, Timer::ALL[(which % 4) as usize]);
                    let armed = conns[conn as usize].ends[side].timers.armed(timer);
                    dead += u64::from(timer.set_once() && armed != Some(time));
                }
                true
            });
            assert_eq!(dead, sim.tcp.dead_timers, "at {t}");
            most = most.max(dead);
        }
        let opened = sim.measure.requests.len() as u64;
        // Kept, every established connection's event would still be pending at the end.
        assert!(
            opened > 4 * crate::sim::tcp::DEAD_TIMERS_MIN,
            "{opened} requests"
        );
        assert!(
            most < opened / 2,
            "{most} dead events pending, {opened} requests"
        );
    }

    fn tcp(mss: &str) -> serde_json::Value {
        json!({"profile": "ns2-2003", "handshake": "three-way", "mss": mss, "rwnd": "64KiB"})
    }

    #[test]
    fn web_pool_replies_take_the_serving_hosts_packet_size() {
        // Client host 0 (node 2): users with 536 B segments, 3000 B requests. Server host 0
        // (node 0) has its own web-pool users (`users_on = "servers"`) with 1460 B segments, so it
        // answers with 1460 B segments; server host 1 (node 1) has no users and answers with the
        // requester's. Client host 0 answers server 0's users with its own 536 B. The right users'
        // requests (43 B) fit in one small segment, so server 0's full segments are replies.
        let v = json!({
            "duration": "3s",
            "topology": {"servers": 2, "clients": 1,
                         "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "traffic": [
                {"kind": "web-pool", "name": "left", "users": 4, "request": "3000B",
                 "page_mean": "20KB", "tcp": tcp("536B")},
                {"kind": "web-pool", "name": "right", "users": 1, "users_on": "servers",
                 "server": 0, "page_mean": "20KB", "tcp": tcp("1460B")}
            ]
        });
        let largest = largest_data_packets(&v);
        assert_eq!(largest.get(&0), Some(&1500), "{largest:?}");
        assert_eq!(largest.get(&1), Some(&576), "{largest:?}");
        assert_eq!(largest.get(&2), Some(&576), "{largest:?}");
    }

    #[test]
    fn without_users_on_the_server_host_replies_keep_the_requesters_settings() {
        let v = json!({
            "duration": "2s",
            "topology": {"servers": 1, "clients": 1,
                         "bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "traffic": [{"kind": "web-pool", "users": 2, "page_mean": "20KB", "tcp": tcp("1000B")}]
        });
        let largest = largest_data_packets(&v);
        assert_eq!(largest.get(&0), Some(&1040), "{largest:?}");
    }
}
