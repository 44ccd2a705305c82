//! Driving Mah's browsing users: their pages become connections, a connection's server answers
//! when the request is in, and every request/response pair is logged with its response time —
//! from the client's connect() to the moment it holds the whole reply and the server's FIN
//! (Christiansen et al. §3.2). Finished connections are recycled once none of their packets remain
//! in the network, so a long run keeps only as many as are open at once.

use super::Simulation;
use crate::event::Event;
use crate::scenario::TrafficSpec;
use crate::tcp::{App, Connection, Outcome, WebPair};
use crate::traffic::web::{Fetch, PageModel, WebUser};
use crate::units::Time;

/// What the simulation keeps for each web traffic group.
#[derive(Clone, Debug)]
pub struct WebGroup {
    pub group: u32,
    pub model: PageModel,
    pub max_conns: u32,
    /// Index of the group's TCP configuration.
    pub cfg: u32,
}

/// One request/response pair, as the `requests` table reports it.
#[derive(Clone, Copy, Debug)]
pub struct RequestRow {
    pub group: u32,
    pub user: u32,
    pub client: u32,
    pub server: u32,
    pub page: u32,
    pub object: u32,
    pub start: Time,
    /// When the response was complete; `None` if it failed or the run ended first.
    pub end: Option<Time>,
    pub failed: bool,
    pub request: u64,
    pub reply: u64,
    pub syn_rexmits: u64,
    pub fin_rexmits: u64,
    pub data_rexmits: u64,
    pub timeouts: u64,
}

impl Simulation {
    /// The users of web group `spec` (index `g` among traffic groups): each starts thinking at its
    /// start time and requests its first page after a think time.
    pub(super) fn add_web_users(
        &mut self,
        g: u32,
        spec: &TrafficSpec,
        model: PageModel,
        max_conns: u32,
        cfg: u32,
    ) {
        let wg = self.web_groups.len() as u32;
        for k in 0..spec.flows {
            let (_, c) = spec.hosts_of(k, self.topo.servers, self.topo.clients);
            let mut rng =
                crate::rng::Rng::stream(self.scenario.seed, &format!("traffic.{}[{k}]", spec.name));
            let start = super::draw_start(spec.start, &mut rng);
            let mut user = WebUser::new(self.users.len() as u32, wg, self.topo.client(c), rng);
            let first = start + user.first_think(&model);
            self.events
                .schedule(first, Event::WebUser { user: user.index });
            self.users.push(user);
        }
        self.web_groups.push(WebGroup {
            group: g,
            model,
            max_conns,
            cfg,
        });
    }

    /// User `u`'s think time is over: it requests a page.
    pub(super) fn web_user_wakes(&mut self, u: u32) {
        let user = &mut self.users[u as usize];
        let wg = &self.web_groups[user.group as usize];
        let mut fetches = std::mem::take(&mut self.fetches);
        user.start_page(&wg.model, self.topo.servers, &mut fetches);
        self.open_fetches(&mut fetches);
        self.fetches = fetches;
    }

    fn open_fetches(&mut self, fetches: &mut Vec<Fetch>) {
        for f in fetches.drain(..) {
            self.open_web(f);
        }
    }

    /// Open the connection of one request/response pair.
    fn open_web(&mut self, f: Fetch) {
        let now = self.now;
        let user = &mut self.users[f.user as usize];
        let wg = &self.web_groups[user.group as usize];
        let server = self.topo.server(f.server);
        let hosts = [user.client, server];
        let phases = [
            self.topo.clock_phase[hosts[0] as usize],
            self.topo.clock_phase[hosts[1] as usize],
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
        let cfg = &self.tcp_cfgs[wg.cfg as usize];
        let mut conn = Connection::web(wg.group, wg.cfg, cfg, hosts, phases, pair, user.rng.fork());
        conn.started = Some(now);
        let c = match self.free_conns.pop() {
            Some(c) => {
                self.conns[c as usize] = conn;
                c
            }
            None => {
                self.conns.push(conn);
                self.goodput_at_warmup.push(0);
                (self.conns.len() - 1) as u32
            }
        };
        let conn = &mut self.conns[c as usize];
        conn.ends[0].open(now, cfg, &mut self.outbox);
        self.tcp_emit(c, 0);
    }

    /// After a segment reached side `side` of web connection `c`: the server answers a complete
    /// request; the client notes a complete response.
    pub(super) fn web_progress(&mut self, c: u32, side: usize) {
        let now = self.now;
        let conn = &mut self.conns[c as usize];
        let App::Web(mut pair) = conn.app else { return };
        if side == 1 && !pair.replying && conn.ends[1].bytes_delivered() >= pair.request {
            // The server's service time is zero (Christiansen et al. §3.2): it writes the reply and
            // closes at once.
            pair.replying = true;
            let cfg = &self.tcp_cfgs[conn.cfg as usize];
            conn.ends[1].write(pair.reply);
            conn.ends[1].close_after_data();
            conn.ends[1].kick(now, cfg, &mut conn.rng, &mut self.outbox);
        }
        if side == 0 && pair.answered.is_none() && conn.ends[0].fin_received() {
            pair.answered = Some(now);
        }
        conn.app = App::Web(pair);
    }

    /// Log a web pair once it is answered or has failed, tell its user, and recycle the connection
    /// when nothing of it is left in the network.
    pub(super) fn web_settle(&mut self, c: u32) {
        let conn = &mut self.conns[c as usize];
        let App::Web(mut pair) = conn.app else { return };
        if !pair.logged && (pair.answered.is_some() || conn.outcome == Outcome::Failed) {
            pair.logged = true;
            conn.app = App::Web(pair);
            let row = request_row(conn, &pair, &self.users[pair.user as usize]);
            if row.start >= self.scenario.warmup {
                self.requests.push(row);
            }
            let user = &mut self.users[pair.user as usize];
            let wg = &self.web_groups[user.group as usize];
            let mut fetches = std::mem::take(&mut self.fetches);
            if let Some(think) = user.object_done(&wg.model, wg.max_conns, &mut fetches) {
                self.events
                    .schedule(self.now + think, Event::WebUser { user: pair.user });
            }
            self.open_fetches(&mut fetches);
            self.fetches = fetches;
        }
        self.recycle_if_done(c);
    }

    /// A logged, finished web connection with no packets left in flight gives up its slot.
    pub(super) fn recycle_if_done(&mut self, c: u32) {
        let conn = &mut self.conns[c as usize];
        if let App::Web(pair) = conn.app {
            if pair.logged && conn.outcome != Outcome::Open && conn.in_flight() == 0 {
                conn.app = App::Free;
                self.free_conns.push(c);
            }
        }
    }

    /// Rows for the pairs still in progress when the run ends.
    pub(super) fn log_unfinished_requests(&mut self) {
        for conn in &self.conns {
            if let App::Web(pair) = conn.app {
                if !pair.logged && conn.started.is_some_and(|s| s >= self.scenario.warmup) {
                    self.requests
                        .push(request_row(conn, &pair, &self.users[pair.user as usize]));
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
