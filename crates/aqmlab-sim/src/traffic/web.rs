//! Browsing users after Mah's empirical HTTP/1.0 model (INFOCOM '97; docs/models/web.md) as
//! Christiansen et al. (SIGCOMM 2000, §3.2) ran it: each user thinks, then fetches a page — a
//! primary object, then its embedded objects over at most `max_conns` connections at a time — one
//! new TCP connection per request/response pair; after a run of consecutive pages to one server
//! machine it picks another uniformly. The CDF tables are ns-2's copies of Mah's data, shipped
//! inside the engine; each is a [`Dist`] a scenario may replace with any other.

use super::config::PoolConnections;
use super::dist::{Bare, Dist, Law, Unit};
use super::empirical::Empirical;
use crate::rng::Rng;
use crate::units::Time;
use serde::Serialize;
use std::sync::Arc;

/// One of Mah's tables as ns-2 ships it (`tcl/http/data/`): its file, text, and what it counts.
struct MahTable {
    file: &'static str,
    text: &'static str,
    unit: Unit,
}

macro_rules! mah_table {
    ($file:literal, $unit:expr) => {
        MahTable {
            file: $file,
            text: include_str!(concat!("../../data/mah-http-cdf/", $file)),
            unit: $unit,
        }
    };
}

const REQUEST: MahTable = mah_table!("HttpRequestLength.cdf", Unit::Size);
const REPLY: MahTable = mah_table!("HttpReplyLength.cdf", Unit::Size);
const OBJECTS: MahTable = mah_table!("HttpConnections.cdf", Unit::Count);
const THINK: MahTable = mah_table!("HttpThinkTime.cdf", Unit::Time);
const STAY: MahTable = mah_table!("HttpServerStay.cdf", Unit::Count);

/// Mah's tables as ns-2 ships them, (file name, text): what the ns-2 referee loads into ns-2's
/// own `RandomVariable/Empirical`, so that both simulators draw from the same data.
pub fn mah_tables() -> [(&'static str, &'static str); 5] {
    [REQUEST, REPLY, OBJECTS, THINK, STAY].map(|t| (t.file, t.text))
}

impl MahTable {
    /// The table as a distribution, sampled as ns-2 samples it (a step function).
    fn dist(&self) -> Dist {
        let table = Empirical::parse(self.text).expect("the shipped Mah tables are well-formed");
        Dist {
            law: Law::Empirical {
                file: format!("mah/{}", self.file),
                table: Arc::new(table),
            },
            unit: self.unit,
            bare: Bare::Constant,
        }
    }
}

/// A `web-mah` group's page distributions as the scenario gives them: `None` is Mah's table (and
/// is not written back, so scenarios that keep the tables resolve as before).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MahSpec {
    /// The think time is drawn conditioned on being at most this; only for an empirical think
    /// time (Mah's by default, with 30 minutes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think_max: Option<Time>,
    /// Request sizes, bytes (at least 1: the server answers once it has read the request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<Dist>,
    /// Reply sizes, bytes (0 is a reply of nothing, then the FIN).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<Dist>,
    /// Objects per page, the primary one included (at least 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objects: Option<Dist>,
    /// Think times, ns.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub think: Option<Dist>,
    /// Consecutive pages fetched from one server machine (at least 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stay: Option<Dist>,
    /// A Pareto tail on an empirical reply table (none: the table as it is).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply_tail: Option<ReplyTail>,
}

/// A Pareto tail on the reply table above one of its quantiles (see
/// [`Empirical::with_pareto_tail`]): Mah's 4,100 replies stop at their largest, 1.6 MB, while
/// the tail they measure carries on (docs/models/web.md §2.1; docs/scenario.md).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ReplyTail {
    /// Where the tail takes over, a cumulative probability of the table.
    pub quantile: f64,
    /// The tail index α (above 1).
    pub shape: f64,
    /// No reply is larger than this, bytes (none: unbounded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<crate::units::Size>,
}

impl MahSpec {
    /// Mah's think-time table (for the scenario's check of `think_max`).
    pub fn mah_think() -> Dist {
        THINK.dist()
    }
}

/// Mah's five distributions, or what the scenario put in their place.
#[derive(Clone, Debug)]
pub struct MahModel {
    pub request: Dist,
    pub reply: Dist,
    /// Objects per page, the primary one included ("connections per document").
    pub objects: Dist,
    /// Think time, ns; an empirical table truncated at `think_max`.
    pub think: Dist,
    /// Consecutive pages fetched from one server machine.
    pub stay: Dist,
}

impl MahModel {
    /// The model of `spec`: each distribution given or Mah's table, an empirical think time
    /// truncated at `think_max` (drawn from the distribution of think times ≤ `think_max`).
    pub fn new(spec: &MahSpec) -> MahModel {
        let or_table =
            |d: &Option<Dist>, table: MahTable| d.clone().unwrap_or_else(|| table.dist());
        let mut think = or_table(&spec.think, THINK);
        if let (Some(max), Law::Empirical { table, .. }) = (spec.think_max, &mut think.law) {
            *table = Arc::new((**table).clone().truncated_at(max.as_secs_f64()));
        }
        let mut reply = or_table(&spec.reply, REPLY);
        if let (Some(tail), Law::Empirical { table, .. }) = (spec.reply_tail, &mut reply.law) {
            let tailed = (**table)
                .clone()
                .with_pareto_tail(tail.quantile, tail.shape);
            *table = Arc::new(match tail.max {
                Some(max) => tailed.truncated_at(max.bytes() as f64),
                None => tailed,
            });
        }
        MahModel {
            request: or_table(&spec.request, REQUEST),
            reply,
            objects: or_table(&spec.objects, OBJECTS),
            think,
            stay: or_table(&spec.stay, STAY),
        }
    }
}

/// An ns-2-style HTTP page pool (`PagePool` with `Http` clients, Eddy & Allman §5): requests,
/// one object per page, pauses between a response and the next request, a server chosen uniformly
/// for each request. By default requests are fixed-size, pages and pauses exponential; each may be
/// any [`Dist`].
#[derive(Clone, Debug, PartialEq)]
pub struct PoolModel {
    /// Request sizes, bytes (at least 1: the server answers once it has read the request).
    pub request: Dist,
    /// Page (reply) sizes, bytes.
    pub page: Dist,
    /// Pauses, ns; drawn in seconds as ns-2 does (see [`Dist::sample_scaled`]).
    pub think: Dist,
    /// Each user always asks the host of its own index across (`peer = "paired"`).
    pub paired: bool,
    /// How requests and replies travel ([`PoolConnections`]).
    pub connections: PoolConnections,
}

impl PoolModel {
    /// The page-version lifetimes under `ns2-http`, `None` otherwise (or for ever).
    pub fn ns2_http(&self) -> Option<Option<&Dist>> {
        match &self.connections {
            PoolConnections::Ns2Http { page_age } => Some(page_age.as_ref()),
            PoolConnections::PerRequest => None,
        }
    }
}

/// What a web user's pages look like.
#[derive(Clone, Debug)]
pub enum PageModel {
    Mah(Box<MahModel>),
    Pool(Box<PoolModel>),
}

impl PageModel {
    /// A request's size, bytes: at least one, as the server answers once it has read the request.
    /// (Mah's tables hold whole numbers, so rounding their draws changes none.)
    pub(crate) fn request(&self, rng: &mut Rng) -> u64 {
        match self {
            PageModel::Mah(m) => m.request.sample_whole(rng, 1),
            PageModel::Pool(p) => p.request.sample_whole(rng, 1),
        }
    }
    fn reply(&self, rng: &mut Rng) -> u64 {
        match self {
            PageModel::Mah(m) => m.reply.sample_whole(rng, 0),
            PageModel::Pool(p) => p.page.sample_whole(rng, 0),
        }
    }
    /// Objects on a page, the primary one included.
    fn objects(&self, rng: &mut Rng) -> u32 {
        match self {
            PageModel::Mah(m) => whole_u32(m.objects.sample_whole(rng, 1)),
            PageModel::Pool(_) => 1,
        }
    }
    /// Consecutive pages from one server.
    fn stay(&self, rng: &mut Rng) -> u32 {
        match self {
            PageModel::Mah(m) => whole_u32(m.stay.sample_whole(rng, 1)),
            PageModel::Pool(_) => 1,
        }
    }
    /// What is left of a think time at a random instant (the user's state when the run starts), ns.
    fn think_residual_ns(&self, rng: &mut Rng) -> f64 {
        match self {
            PageModel::Mah(m) => m.think.sample_residual_scaled(rng, 1.0),
            PageModel::Pool(p) => p.think.sample_residual_scaled(rng, 1e-9) * 1e9,
        }
    }

    /// A think time, ns: a `web-pool` pause is drawn in seconds, as ns-2 draws it.
    fn think_ns(&self, rng: &mut Rng) -> f64 {
        match self {
            PageModel::Mah(m) => m.think.sample(rng),
            PageModel::Pool(p) => p.think.sample_scaled(rng, 1e-9) * 1e9,
        }
    }
}

/// A drawn count as a `u32` (a page's objects, a run of pages), saturating.
fn whole_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A request/response pair a user wants fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetch {
    pub user: u32,
    /// Server machine index (0-based among servers).
    pub server: u32,
    pub request: u64,
    pub reply: u64,
    /// The user's page number, and the object within it (0: the primary object).
    pub page: u32,
    pub object: u32,
}

/// One emulated user.
#[derive(Clone, Debug)]
pub struct WebUser {
    pub index: u32,
    /// Its traffic group (index among the simulation's web groups).
    pub group: u32,
    /// The node the user sits on.
    pub client: u32,
    /// Its host's index on its side of the bottleneck.
    home: u32,
    server: u32,
    stay_left: u32,
    page: u32,
    /// Embedded objects of the current page not yet requested, and requests in progress.
    queued: u32,
    active: u32,
    next_object: u32,
    primary_done: bool,
    pub rng: Rng,
}

impl WebUser {
    pub fn new(index: u32, group: u32, client: u32, home: u32, rng: Rng) -> WebUser {
        WebUser {
            index,
            group,
            client,
            home,
            server: 0,
            stay_left: 0,
            page: 0,
            queued: 0,
            active: 0,
            next_object: 0,
            primary_done: false,
            rng,
        }
    }

    /// Its host's index on its side of the bottleneck.
    pub fn home(&self) -> u32 {
        self.home
    }

    /// The rest of the think time a user is in when the run starts: each user starts at a random
    /// point of a think period, as in the steady state (most users think most of the time), rather
    /// than all at the start of one, which would bunch the first pages together.
    pub fn first_think(&mut self, m: &PageModel) -> Time {
        Time(m.think_residual_ns(&mut self.rng).round() as u64)
    }

    /// A think time, in whole nanoseconds.
    pub fn think(&mut self, m: &PageModel) -> Time {
        Time(m.think_ns(&mut self.rng).round() as u64)
    }

    fn fetch(&mut self, m: &PageModel) -> Fetch {
        let request = m.request(&mut self.rng);
        let reply = m.reply(&mut self.rng);
        let f = Fetch {
            user: self.index,
            server: self.server,
            request,
            reply,
            page: self.page,
            object: self.next_object,
        };
        self.next_object += 1;
        self.active += 1;
        f
    }

    /// Start a page: pick a server if the run on the last one is over, draw the page's objects and
    /// request the primary one.
    pub fn start_page(&mut self, m: &PageModel, servers: u32, out: &mut Vec<Fetch>) {
        if self.stay_left == 0 {
            self.server = match m {
                PageModel::Pool(p) if p.paired => self.home % servers,
                _ => self.rng.uniform_u64(0, u64::from(servers) - 1) as u32,
            };
            self.stay_left = m.stay(&mut self.rng);
        }
        self.stay_left -= 1;
        self.page += 1;
        self.next_object = 0;
        self.primary_done = false;
        // HttpConnections counts the primary object (docs/models/web.md §2.1), so the page embeds
        // one fewer.
        self.queued = m.objects(&mut self.rng) - 1;
        out.push(self.fetch(m));
    }

    /// A request/response pair ended (completed or failed). Returns the think time before the
    /// next page once the whole page is done; otherwise pushes the next requests.
    pub fn object_done(
        &mut self,
        m: &PageModel,
        max_conns: u32,
        out: &mut Vec<Fetch>,
    ) -> Option<Time> {
        self.active -= 1;
        self.primary_done = true;
        while self.queued > 0 && self.active < max_conns {
            self.queued -= 1;
            out.push(self.fetch(m));
        }
        (self.active == 0 && self.queued == 0).then(|| self.think(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Mah's model with think times at most `think_max`.
    fn mah(think_max: Time) -> MahModel {
        MahModel::new(&MahSpec {
            think_max: Some(think_max),
            ..MahSpec::default()
        })
    }

    #[test]
    fn the_shipped_tables_reproduce_the_published_statistics() {
        // docs/models/web.md §2.1: means 337 B, 7231 B, 2.84 objects, 4.01 pages per server.
        let m = mah(Time::from_secs(100_000));
        let mean = |d: &Dist| d.mean().expect("a table has a mean");
        assert!(
            (mean(&m.request) - 337.0).abs() < 1.0,
            "{}",
            mean(&m.request)
        );
        assert!((mean(&m.reply) - 7231.0).abs() < 5.0, "{}", mean(&m.reply));
        assert!((mean(&m.objects) - 2.84).abs() < 0.01);
        assert!((mean(&m.stay) - 4.01).abs() < 0.01);
        // Think times: 1804 s untruncated; 72.4 s given ≤ 30 min.
        let think_s = |m: &MahModel| mean(&m.think) / 1e9;
        assert!((think_s(&m) - 1804.0).abs() < 2.0, "{}", think_s(&m));
        let t = mah(Time::from_secs(1800));
        assert!((think_s(&t) - 72.4).abs() < 0.1, "{}", think_s(&t));
    }

    #[test]
    fn a_reply_tail_carries_mahs_replies_past_their_largest_sample() {
        // docs/models/web.md §2.1: P90 = 12,581 B; a tail of index 1.21 above it (the Hill estimate
        // over the top 10%) gives 0.9 of the table's body plus 0.1·1.21/0.21·12,581 B: 9,553 B in
        // all (computed from the table apart from this code); bounded at Mah's largest reply,
        // 1,636,039 B, it is 6,947 B, below the table's 7,231 B.
        let tailed = |max: Option<u64>| {
            MahModel::new(&MahSpec {
                reply_tail: Some(ReplyTail {
                    quantile: 0.9,
                    shape: 1.21,
                    max: max.map(crate::units::Size),
                }),
                ..MahSpec::default()
            })
            .reply
            .mean()
            .unwrap()
        };
        assert!((tailed(None) - 9553.2).abs() < 1.0, "{}", tailed(None));
        assert!((tailed(Some(1_636_039)) - 6947.0).abs() < 1.0);
    }

    #[test]
    fn the_tables_draw_as_ns2_samples_them_and_any_distribution_replaces_one() {
        // Default draws are the table's step draws (whole numbers), one uniform each.
        let m = mah(Time::from_secs(1800));
        let table = Empirical::parse(REQUEST.text).unwrap();
        let (mut a, mut b) = (Rng::stream(9, "u"), Rng::stream(9, "u"));
        let model = PageModel::Mah(Box::new(m));
        for _ in 0..1000 {
            assert_eq!(model.request(&mut a), (table.sample(&mut b) as u64).max(1));
        }
        // A constant page of 3 objects from a server stay of 2 pages, think times of 5 s.
        let constant = |v, unit| Some(Dist::bare(v, unit, Bare::Constant));
        let spec = MahSpec {
            objects: constant(3, Unit::Count),
            stay: constant(2, Unit::Count),
            think: constant(5_000_000_000, Unit::Time),
            ..MahSpec::default()
        };
        let model = PageModel::Mah(Box::new(MahModel::new(&spec)));
        let mut rng = Rng::stream(1, "u");
        assert_eq!(model.objects(&mut rng), 3);
        assert_eq!(model.stay(&mut rng), 2);
        assert_eq!(model.think_ns(&mut rng), 5e9);
    }

    #[test]
    fn a_page_is_a_primary_then_embedded_objects_at_most_max_conns_at_a_time() {
        let m = PageModel::Mah(Box::new(mah(Time::from_secs(1800))));
        let mut u = WebUser::new(0, 0, 0, 0, Rng::stream(3, "user"));
        let mut out = Vec::new();
        // Find a page with several embedded objects, completing the pages before it.
        loop {
            out.clear();
            u.start_page(&m, 5, &mut out);
            if u.queued >= 5 {
                break;
            }
            let mut outstanding = out.len();
            while outstanding > 0 {
                outstanding -= 1;
                let mut more = Vec::new();
                if u.object_done(&m, 4, &mut more).is_some() {
                    break;
                }
                outstanding += more.len();
            }
        }
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].object, 0);
        let embedded = u.queued;
        out.clear();
        assert!(u.object_done(&m, 4, &mut out).is_none());
        assert_eq!(out.len(), 4, "four embedded requests start together");
        let mut started = 4;
        let mut think = None;
        for _ in 0..embedded {
            out.clear();
            think = u.object_done(&m, 4, &mut out);
            started += out.len() as u32;
        }
        assert_eq!(started, embedded);
        assert!(
            think.is_some_and(|t| t >= Time::from_secs(1)),
            "Mah's think times start at 1 s"
        );
    }
}
