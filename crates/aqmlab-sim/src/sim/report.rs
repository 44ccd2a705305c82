//! Building a run's [`Report`] from the finished [`Simulation`]: the summary, the counter
//! identities and the tables the schema declares ([`crate::schema`]).

use super::hops::{path, Way};
use super::{RequestRow, Simulation};
use crate::measure::{AtWarmup, IntervalCounts};
use crate::network::Link;
use crate::packet::Proto;
use crate::queue::{DropReason, MarkReason, QueueDisc};
use crate::report::{
    Checks, Column, Direction, GroupGoodput, Meta, Report, RequestSummary, Strings, Summary, Table,
};
use crate::tcp::Endpoint;
use crate::traffic::udp::FlowCounters;
use crate::traffic::{ConnCounts, Connection, Outcome};
use crate::units::{Rate, Time};
use std::collections::BTreeMap;

/// Nearest-rank quantile q of sorted values (NaN for none).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

/// The summary's `requests`: the response times of `rows`.
pub fn request_summary(rows: &[RequestRow]) -> RequestSummary {
    let mut times: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.end.map(|e| (e - r.start).as_secs_f64()))
        .collect();
    times.sort_by(f64::total_cmp);
    let n = times.len() as f64;
    let failed = rows.iter().filter(|r| r.failed).count() as u64;
    RequestSummary {
        count: rows.len() as u64,
        completed: times.len() as u64,
        failed,
        unfinished: rows.len() as u64 - times.len() as u64 - failed,
        mean_s: if times.is_empty() {
            f64::NAN
        } else {
            times.iter().sum::<f64>() / n
        },
        median_s: quantile(&times, 0.5),
        p10_s: quantile(&times, 0.1),
        p25_s: quantile(&times, 0.25),
        p75_s: quantile(&times, 0.75),
        p90_s: quantile(&times, 0.9),
        p95_s: quantile(&times, 0.95),
        p99_s: quantile(&times, 0.99),
    }
}

/// A column of traffic group names, from the rows' group indices.
fn group_names(sim: &Simulation, groups: impl Iterator<Item = u32>) -> Strings {
    Strings::keyed(
        groups,
        |&g| g,
        |&g| sim.scenario.traffic[g as usize].name.clone(),
    )
}

fn request_table(sim: &Simulation) -> Table {
    let r = &sim.measure.requests;
    let f = |g: &dyn Fn(&RequestRow) -> f64| Column::F64(r.iter().map(g).collect());
    let i = |g: &dyn Fn(&RequestRow) -> u64| Column::I64(r.iter().map(|x| g(x) as i64).collect());
    let b = |g: &dyn Fn(&RequestRow) -> bool| Column::Bool(r.iter().map(g).collect());
    let host = |g: &dyn Fn(&RequestRow) -> u32| {
        Column::Str(Strings::keyed(
            r.iter(),
            |x| g(x),
            |x| sim.network.topo.host_name(g(x)),
        ))
    };
    let end = |x: &RequestRow| x.end.map_or(f64::NAN, Time::as_secs_f64);
    Table {
        name: "requests",
        columns: vec![
            (
                "group",
                Column::Str(group_names(sim, r.iter().map(|x| x.group))),
            ),
            ("user", i(&|x| u64::from(x.user))),
            ("client", host(&|x| x.client)),
            ("server", host(&|x| x.server)),
            ("page", i(&|x| u64::from(x.page))),
            ("object", i(&|x| u64::from(x.object))),
            ("start_s", f(&|x| x.start.as_secs_f64())),
            ("end_s", f(&|x| end(x))),
            ("response_s", f(&|x| end(x) - x.start.as_secs_f64())),
            ("request_bytes", i(&|x| x.request)),
            ("reply_bytes", i(&|x| x.reply)),
            ("completed", b(&|x| x.end.is_some())),
            ("failed", b(&|x| x.failed)),
            ("syn_rexmits", i(&|x| x.syn_rexmits)),
            ("fin_rexmits", i(&|x| x.fin_rexmits)),
            ("data_rexmits", i(&|x| x.data_rexmits)),
            ("timeouts", i(&|x| x.timeouts)),
        ],
    }
}

/// A mean over `n` events: NaN when there were none (there is no value to report).
fn mean_or_nan(sum: f64, n: f64) -> f64 {
    if n == 0.0 {
        f64::NAN
    } else {
        sum / n
    }
}

/// 0/0 is reported as 0 (e.g. no arrivals, no drops).
fn ratio(num: f64, den: f64) -> f64 {
    if den == 0.0 {
        0.0
    } else {
        num / den
    }
}

/// `8 · bytes / (rate · over)`, with one rounding: at most 1 whenever the bytes fit in the time at
/// that rate (a ratio of exact integers, each rounded to the nearest float, cannot pass 1).
fn utilization(bytes: u64, rate: Rate, over: Time) -> f64 {
    let bits_ns = u128::from(bytes) * 8 * 1_000_000_000;
    bits_ns as f64 / (u128::from(rate.bps()) * u128::from(over.0)) as f64
}

/// One logged link direction (the dumbbell's bottleneck, each way) over the `measured` period, from its link and the
/// link as the warm-up ended (also the live router's: `aqmlab-live`).
pub fn direction(link: &Link, at_warmup: &AtWarmup, measured: Time) -> Direction {
    let (c, w) = (&link.counters, &at_warmup.counters);
    let measured_s = measured.as_secs_f64();
    let measured_ns = measured_s * 1e9;
    let arrivals = c.arrivals - w.arrivals;
    let departures = c.departures - w.departures;
    let drops_pkts = c.drops_total() - w.drops_total();
    let (before_bytes, before_wire) = at_warmup.sent_before(link.sending_since());
    let sent_bytes = c.sent_bytes - w.sent_bytes - before_bytes;
    let wire_bytes = c.sent_wire_bytes - w.sent_wire_bytes - before_wire;
    let throughput_bps = sent_bytes as f64 * 8.0 / measured_s;
    Direction {
        rate_bps: link.tx.rate().bps(),
        throughput_bps,
        utilization: utilization(sent_bytes, link.tx.rate(), measured),
        wire_utilization: utilization(wire_bytes, link.tx.rate(), measured),
        arrivals_pkts: arrivals,
        departures_pkts: departures,
        backlog_start_pkts: at_warmup.queued_pkts,
        backlog_end_pkts: link.qdisc.len_pkts(),
        drops_pkts,
        drops_pkts_by_reason: DropReason::ALL
            .iter()
            .map(|r| (r.name(), c.drops[r.index()] - w.drops[r.index()]))
            .collect(),
        marks_pkts: c.marks_total() - w.marks_total(),
        marks_pkts_by_reason: MarkReason::ALL
            .iter()
            .map(|r| (r.name(), c.marks[r.index()] - w.marks[r.index()]))
            .collect(),
        drops_bytes: c.drop_bytes_total() - w.drop_bytes_total(),
        drops_bytes_by_reason: DropReason::ALL
            .iter()
            .map(|r| (r.name(), c.drop_bytes[r.index()] - w.drop_bytes[r.index()]))
            .collect(),
        marks_bytes: c.mark_bytes_total() - w.mark_bytes_total(),
        marks_bytes_by_reason: MarkReason::ALL
            .iter()
            .map(|r| (r.name(), c.mark_bytes[r.index()] - w.mark_bytes[r.index()]))
            .collect(),
        drop_rate: ratio(drops_pkts as f64, arrivals as f64),
        mean_queue_pkts: (c.area_pkts - w.area_pkts) as f64 / measured_ns,
        mean_queue_bytes: (c.area_bytes - w.area_bytes) as f64 / measured_ns,
        mean_queue_delay_s: ratio((c.wait_ns - w.wait_ns) as f64 * 1e-9, departures as f64),
    }
}

impl Report {
    pub(crate) fn new(sim: Simulation) -> Report {
        let scenario = &sim.scenario;
        let measured = scenario.duration - scenario.warmup;
        let measured_s = measured.as_secs_f64();
        // The logged link directions (the dumbbell's forward and reverse), in link order.
        let monitored: Vec<usize> = (sim.network.links.iter().enumerate())
            .filter(|(_, l)| l.monitor.is_some())
            .map(|(l, _)| l)
            .collect();
        let directions: Vec<(usize, Direction)> = monitored
            .iter()
            .map(|&l| {
                let w = &sim.measure.links_at_warmup[l];
                (l, direction(&sim.network.links[l], w, measured))
            })
            .collect();
        let hops = hop_rows(&sim);
        let summary = Summary {
            meta: Meta {
                version: crate::VERSION,
                build: crate::BUILD,
                seed: scenario.seed,
                scenario: scenario.to_value(),
                scenario_hash: None,
                wall_s: sim.wall.as_secs_f64(),
                events: sim.processed,
                duration_s: scenario.duration.as_secs_f64(),
                measured_s,
                peak_pkts: sim.network.packets.capacity() as u64,
                peak_connections: sim.tcp.conns.all.len() as u64,
                provenance: None,
            },
            warnings: scenario.warnings.clone(),
            checks: check_identities(&sim, &directions, &hops),
            links: directions
                .iter()
                .map(|(l, d)| (sim.network.links[*l].name.clone(), d.clone()))
                .collect(),
            requests: request_summary(&sim.measure.requests),
            groups: group_goodputs(&sim, measured_s),
        };
        let logged: Vec<(&Link, &str)> = monitored
            .iter()
            .map(|&l| (&sim.network.links[l], sim.network.links[l].name.as_str()))
            .collect();
        let tables = vec![
            queue_table(&logged),
            link_table(&logged, scenario.duration),
            flow_table(&sim, measured_s),
            hop_table(&sim, &hops),
            connection_table(&sim, measured_s),
            trace_table(&sim),
            request_table(&sim),
        ];
        Report { summary, tables }
    }
}

/// sent = delivered + dropped + in flight for each flow, with "in flight" counted independently by
/// scanning the packet arena (`live`).
fn flow_identity(
    violations: &mut Vec<String>,
    what: &str,
    counts: impl Iterator<Item = (u64, u64, u64)>,
    live: Vec<u64>,
) {
    for (i, ((sent, delivered, dropped), in_flight)) in counts.zip(live).enumerate() {
        if sent != delivered + dropped + in_flight {
            violations.push(format!(
                "{what} {i}: sent {sent} != delivered {delivered} + dropped {dropped} + in flight {in_flight}"
            ));
        }
    }
}

/// The measured period's identities of a monitored direction: packets are conserved across the
/// queue (arrivals + backlog at the start = departures + drops + backlog at the end); the summary's
/// and every `link` row's utilization is at most 1; the rows' completed bytes add up to the
/// counters' and their carried bytes to no more than the summary's.
pub fn direction_identities(
    violations: &mut Vec<String>,
    link: &Link,
    w: &AtWarmup,
    d: &Direction,
    end: Time,
) {
    let name = &link.name;
    let (came, went) = (
        d.arrivals_pkts + d.backlog_start_pkts,
        d.departures_pkts + d.drops_pkts + d.backlog_end_pkts,
    );
    if came != went {
        violations.push(format!(
            "{name}: arrivals {} + backlog at the start {} != departures {} + drops {} + backlog \
             at the end {}",
            d.arrivals_pkts,
            d.backlog_start_pkts,
            d.departures_pkts,
            d.drops_pkts,
            d.backlog_end_pkts
        ));
    }
    for (what, u) in [
        ("utilization", d.utilization),
        ("wire_utilization", d.wire_utilization),
    ] {
        if u > 1.0 {
            violations.push(format!("{name}: {what} {u} > 1"));
        }
    }
    let Some(m) = link.monitor.as_deref() else {
        return;
    };
    let rows = m.throughput.rows(end);
    if let Some(r) = rows
        .iter()
        .find(|r| utilization(r.carried, link.tx.rate(), r.len) > 1.0)
    {
        violations.push(format!(
            "{name}: the link table's interval at {} carried {} B, more than its rate allows",
            r.start, r.carried
        ));
    }
    let completed: u64 = rows.iter().map(|r| r.bytes).sum();
    let carried: u64 = rows.iter().map(|r| r.carried).sum();
    let sent = link.counters.sent_bytes - w.counters.sent_bytes;
    let (before, _) = w.sent_before(link.sending_since());
    if completed != sent || carried + before > sent {
        violations.push(format!(
            "{name}: the link table's intervals completed {completed} B and carried {carried} B, \
             the counters {sent} B ({before} B of them before the warm-up)"
        ));
    }
}

/// A link's counters agree with its queue and transmitter (arrivals, enqueued, departures, drops,
/// transmissions: [`crate::measure::QueueCounters::check`]) and, on a monitored link, the `queue`
/// table's per-interval arrivals, drops and marks (packets and bytes) add up to the counters'
/// totals over the measured period.
pub fn link_identities(violations: &mut Vec<String>, link: &Link, at_warmup: &AtWarmup) {
    if let Err(e) = link
        .counters
        .check(link.qdisc.len_pkts(), link.in_tx.is_some(), &link.name)
    {
        violations.push(e);
    }
    let Some(m) = link.monitor.as_deref() else {
        return;
    };
    if m.sampler.rows.is_empty() {
        return;
    }
    let (rows, total) = (
        m.sampler.counted(),
        IntervalCounts::between(&link.counters, &at_warmup.counters),
    );
    if rows.sums() != total {
        violations.push(format!(
            "{}: the queue table's intervals count {rows:?}, the counters {total:?}",
            link.name
        ));
    }
}

fn check_identities(sim: &Simulation, directions: &[(usize, Direction)], hops: &[Hop]) -> Checks {
    let mut violations = Vec::new();
    for (link, at_warmup) in sim.network.links.iter().zip(&sim.measure.links_at_warmup) {
        link_identities(&mut violations, link, at_warmup);
    }
    for (l, d) in directions {
        let (link, w) = (&sim.network.links[*l], &sim.measure.links_at_warmup[*l]);
        direction_identities(&mut violations, link, w, d, sim.scenario.duration);
    }
    // sent = delivered + dropped + in flight, with "in flight" counted independently by scanning
    // the packet arena.
    let tcp = sim
        .tcp
        .conns
        .all
        .iter()
        .map(|c| (c.pkts_sent, c.pkts_delivered, c.pkts_dropped));
    flow_identity(
        &mut violations,
        "connection",
        tcp,
        sim.network
            .packets
            .live_per_flow(Proto::Tcp, sim.tcp.conns.all.len()),
    );
    // The same over the measured window, for the `connections` table's counters: sent =
    // delivered + dropped + (in flight at the end − in flight as the warm-up ended).
    let live = sim
        .network
        .packets
        .live_per_flow(Proto::Tcp, sim.tcp.conns.all.len());
    for k in table_conns(sim) {
        let w = measured(sim, k);
        let (now, then) = (live[k], sim.measure.conns_in_flight_at_warmup[k]);
        if w.pkts_sent + then != w.pkts_delivered + w.pkts_dropped + now {
            violations.push(format!(
                "connection {k} in the measured window: sent {} != delivered {} + dropped {} + in \
                 flight at the end {now} − in flight as the warm-up ended {then}",
                w.pkts_sent, w.pkts_delivered, w.pkts_dropped
            ));
        }
    }
    // Liveness: an open connection with data to deliver has a packet in flight or a timer
    // running at one end; otherwise nothing will ever move it again.
    for (k, c) in sim.tcp.conns.all.iter().enumerate() {
        let open = c.outcome == Outcome::Open && live[k] == 0;
        if let Some(stuck) = (0..2)
            .find(|&e| open && c.ends[e].waits_on_peer_alone() && c.ends[1 - e].no_timer_running())
        {
            violations.push(format!(
                "connection {k}: its {} end has data not acknowledged, nothing in flight and no \
                 timer running at either end: it can never send again",
                ["client", "server"][stuck]
            ));
        }
    }
    hop_identities(&mut violations, sim, hops);
    let udp = sim
        .network
        .udp
        .iter()
        .map(|c| (c.sent_pkts, c.recv_pkts, c.dropped_pkts));
    flow_identity(
        &mut violations,
        "flow",
        udp,
        sim.network
            .packets
            .live_per_flow(Proto::Udp, sim.apps.flows.len()),
    );
    Checks {
        counter_identities: violations.is_empty(),
        violations,
    }
}

/// The measured window's drops, as the `hops` table gives them: each UDP flow's and each listed
/// connection's are its hops' drops, and each link's are the drops of the hops on it plus those of
/// web pairs' packets there (which the table has no rows for).
fn hop_identities(violations: &mut Vec<String>, sim: &Simulation, hops: &[Hop]) {
    let network = &sim.network;
    let mut flows = vec![0; network.udp.len()];
    let mut conns = vec![0; sim.tcp.conns.all.len()];
    let mut links = network.tcp_drops.web.clone();
    for h in hops {
        match h.of {
            PathOf::Udp(f) => flows[f] += h.drops,
            PathOf::Tcp(k, _) => conns[k] += h.drops,
        }
        links[h.link as usize] += h.drops;
    }
    for (f, (c, w)) in network
        .udp
        .iter()
        .zip(&sim.measure.flows_at_warmup)
        .enumerate()
    {
        let dropped = c.minus(w).dropped_pkts;
        if dropped != flows[f] {
            violations.push(format!(
                "flow {f}: dropped {dropped} in the measured window, its hops {}",
                flows[f]
            ));
        }
    }
    for k in table_conns(sim) {
        let dropped = measured(sim, k).pkts_dropped;
        if dropped != conns[k] {
            violations.push(format!(
                "connection {k}: dropped {dropped} in the measured window, its hops {}",
                conns[k]
            ));
        }
    }
    for (l, (link, w)) in network
        .links
        .iter()
        .zip(&sim.measure.links_at_warmup)
        .enumerate()
    {
        let dropped = link.counters.drops_total() - w.counters.drops_total();
        if dropped != links[l] {
            violations.push(format!(
                "{}: dropped {dropped} in the measured window, the hops on it and web pairs {}",
                link.name, links[l]
            ));
        }
    }
}

/// The `queue` table of the logged links, each under its name (the `direction` column).
pub fn queue_table(links: &[(&Link, &str)]) -> Table {
    let mut t_s = Vec::new();
    let mut dir = Vec::new();
    let (mut n, mut mp, mut vp, mut lp, mut hp) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut mb, mut vb, mut lb, mut hb) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut aqm_avg, mut aqm_max_p) = (Vec::new(), Vec::new());
    let (mut departures, mut sojourn_mean, mut sojourn_max) = (Vec::new(), Vec::new(), Vec::new());
    let (mut codel_dropping, mut pie_prob) = (Vec::new(), Vec::new());
    let (mut arrivals, mut drops, mut marks) = (Vec::new(), Vec::new(), Vec::new());
    let mut forced_drops = Vec::new();
    let (mut drop_bytes, mut mark_bytes) = (Vec::new(), Vec::new());
    for &(link, name) in links {
        let monitor = link
            .monitor
            .as_deref()
            .expect("bottleneck links are monitored");
        for r in &monitor.sampler.rows {
            t_s.push(r.start.as_secs_f64());
            dir.push(name);
            n.push(r.samples as i64);
            mp.push(r.mean_pkts);
            vp.push(r.var_pkts);
            lp.push(r.min_pkts as i64);
            hp.push(r.max_pkts as i64);
            mb.push(r.mean_bytes);
            vb.push(r.var_bytes);
            lb.push(r.min_bytes as i64);
            hb.push(r.max_bytes as i64);
            aqm_avg.push(r.aqm.red_avg);
            aqm_max_p.push(r.aqm.red_max_p);
            codel_dropping.push(r.aqm.codel_dropping);
            pie_prob.push(r.aqm.pie_prob);
            arrivals.push(r.counts.arrivals as i64);
            drops.push(r.counts.drops as i64);
            forced_drops.push(r.counts.forced_drops as i64);
            marks.push(r.counts.marks as i64);
            drop_bytes.push(r.counts.drop_bytes as i64);
            mark_bytes.push(r.counts.mark_bytes as i64);
            departures.push(r.counts.departures as i64);
            let (mean, max) = r.counts.sojourn_s();
            sojourn_mean.push(mean);
            sojourn_max.push(max);
        }
    }
    Table {
        name: "queue",
        columns: vec![
            ("t_s", Column::F64(t_s)),
            ("direction", Column::Str(dir.into_iter().collect())),
            ("samples", Column::I64(n)),
            ("mean_pkts", Column::F64(mp)),
            ("var_pkts", Column::F64(vp)),
            ("min_pkts", Column::I64(lp)),
            ("max_pkts", Column::I64(hp)),
            ("mean_bytes", Column::F64(mb)),
            ("var_bytes", Column::F64(vb)),
            ("min_bytes", Column::I64(lb)),
            ("max_bytes", Column::I64(hb)),
            ("red_avg", Column::F64(aqm_avg)),
            ("red_max_p", Column::F64(aqm_max_p)),
            ("arrivals_pkts", Column::I64(arrivals)),
            ("drops_pkts", Column::I64(drops)),
            ("forced_drops_pkts", Column::I64(forced_drops)),
            ("drops_bytes", Column::I64(drop_bytes)),
            ("marks_pkts", Column::I64(marks)),
            ("marks_bytes", Column::I64(mark_bytes)),
            ("departures_pkts", Column::I64(departures)),
            ("mean_sojourn_s", Column::F64(sojourn_mean)),
            ("max_sojourn_s", Column::F64(sojourn_max)),
            ("codel_dropping", Column::F64(codel_dropping)),
            ("pie_prob", Column::F64(pie_prob)),
        ],
    }
}

/// The `link` table of the logged links to `end`, each under its name (the `direction` column).
pub fn link_table(links: &[(&Link, &str)], end: Time) -> Table {
    let (mut t_s, mut dir, mut bytes, mut pkts, mut tput, mut util) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for &(link, name) in links {
        let monitor = link
            .monitor
            .as_deref()
            .expect("bottleneck links are monitored");
        for r in monitor.throughput.rows(end) {
            t_s.push(r.start.as_secs_f64());
            dir.push(name);
            bytes.push(r.bytes as i64);
            pkts.push(r.pkts as i64);
            tput.push(r.carried as f64 * 8.0 / r.len.as_secs_f64());
            util.push(utilization(r.carried, link.tx.rate(), r.len));
        }
    }
    Table {
        name: "link",
        columns: vec![
            ("t_s", Column::F64(t_s)),
            ("direction", Column::Str(dir.into_iter().collect())),
            ("bytes", Column::I64(bytes)),
            ("pkts", Column::I64(pkts)),
            ("throughput_bps", Column::F64(tput)),
            ("utilization", Column::F64(util)),
        ],
    }
}

fn flow_table(sim: &Simulation, measured_s: f64) -> Table {
    let n = sim.apps.flows.len();
    let mut cols: Vec<(&'static str, Column)> = Vec::new();
    let m: Vec<FlowCounters> = sim
        .network
        .udp
        .iter()
        .zip(&sim.measure.flows_at_warmup)
        .map(|(c, w)| c.minus(w))
        .collect();
    let ints = |f: fn(&FlowCounters) -> u64| Column::I64(m.iter().map(|c| f(c) as i64).collect());
    cols.push(("flow", Column::I64((0..n as i64).collect())));
    cols.push((
        "group",
        Column::Str(sim.apps.flows.iter().map(|f| f.group.clone()).collect()),
    ));
    cols.push((
        "index",
        Column::I64(sim.apps.flows.iter().map(|f| i64::from(f.index)).collect()),
    ));
    cols.push((
        "kind",
        Column::Str(sim.apps.flows.iter().map(|f| f.kind.to_string()).collect()),
    ));
    cols.push((
        "src",
        Column::Str(
            sim.apps
                .flows
                .iter()
                .map(|f| sim.network.topo.host_name(f.src))
                .collect(),
        ),
    ));
    cols.push((
        "dst",
        Column::Str(
            sim.apps
                .flows
                .iter()
                .map(|f| sim.network.topo.host_name(f.dst))
                .collect(),
        ),
    ));
    cols.push(("sent_pkts", ints(|c| c.sent_pkts)));
    cols.push(("sent_bytes", ints(|c| c.sent_bytes)));
    cols.push(("recv_pkts", ints(|c| c.recv_pkts)));
    cols.push(("recv_bytes", ints(|c| c.recv_bytes)));
    cols.push(("lost_pkts", ints(|c| c.lost_pkts)));
    cols.push(("dropped_pkts", ints(|c| c.dropped_pkts)));
    cols.push((
        "loss_rate",
        Column::F64(
            m.iter()
                .map(|c| ratio(c.lost_pkts as f64, (c.recv_pkts + c.lost_pkts) as f64))
                .collect(),
        ),
    ));
    cols.push((
        "mean_delay_s",
        Column::F64(
            m.iter()
                .map(|c| ratio(c.delay_ns as f64 * 1e-9, c.recv_pkts as f64))
                .collect(),
        ),
    ));
    cols.push((
        "throughput_bps",
        Column::F64(
            m.iter()
                .map(|c| c.recv_bytes as f64 * 8.0 / measured_s)
                .collect(),
        ),
    ));
    Table {
        name: "flows",
        columns: cols,
    }
}

/// Whose path a `hops` row is on: a UDP flow's, or one way of a connection the `connections`
/// table lists.
#[derive(Clone, Copy)]
enum PathOf {
    Udp(usize),
    Tcp(usize, Way),
}

/// One row of the `hops` table: link `link` is the `hop`-th on the path, and dropped `drops` of
/// its packets in the measured window.
struct Hop {
    of: PathOf,
    hop: usize,
    link: u32,
    drops: u64,
}

/// The `hops` table's rows: each UDP flow's path, then each listed connection's data path and its
/// ACK path, each in the order its packets cross the links. A connection's paths are read from the
/// routing tables here, and its drops found under (connection, way, link).
fn hop_rows(sim: &Simulation) -> Vec<Hop> {
    let (paths, topo) = (&sim.network.udp_paths, &sim.network.topo);
    let mut rows = Vec::new();
    for f in 0..sim.apps.flows.len() {
        rows.extend(paths.of(f).enumerate().map(|(hop, i)| Hop {
            of: PathOf::Udp(f),
            hop,
            link: paths.links[i],
            drops: paths.drops[i],
        }));
    }
    let drops = &sim.network.tcp_drops;
    for k in table_conns(sim) {
        let c = &sim.tcp.conns.all[k];
        let (sender, receiver) = (c.hosts[c.data_sender], c.hosts[1 - c.data_sender]);
        for way in Way::BOTH {
            let (src, dst) = match way {
                Way::Data => (sender, receiver),
                Way::Ack => (receiver, sender),
            };
            rows.extend(
                path(topo, src, dst)
                    .into_iter()
                    .enumerate()
                    .map(|(hop, link)| Hop {
                        of: PathOf::Tcp(k, way),
                        hop,
                        link,
                        drops: drops.at(k as u32, way, link),
                    }),
            );
        }
    }
    rows
}

/// One row per UDP flow and link on its path, then per listed connection, way and link on that
/// way's path ([`hop_rows`]).
fn hop_table(sim: &Simulation, hops: &[Hop]) -> Table {
    let conns = &sim.tcp.conns.all;
    let i = |g: &dyn Fn(&Hop) -> i64| Column::I64(hops.iter().map(g).collect());
    let group = hops.iter().map(|h| match h.of {
        PathOf::Udp(f) => sim.apps.flows[f].group.as_str(),
        PathOf::Tcp(k, _) => sim.scenario.traffic[conns[k].group as usize].name.as_str(),
    });
    let path = hops.iter().map(|h| match h.of {
        PathOf::Udp(_) => Way::Data.name(),
        PathOf::Tcp(_, way) => way.name(),
    });
    let link = hops
        .iter()
        .map(|h| sim.network.links[h.link as usize].name.as_str());
    Table {
        name: "hops",
        columns: vec![
            (
                "flow",
                i(&|h| match h.of {
                    PathOf::Udp(f) => f as i64,
                    PathOf::Tcp(..) => -1,
                }),
            ),
            (
                "conn",
                i(&|h| match h.of {
                    PathOf::Udp(_) => -1,
                    PathOf::Tcp(k, _) => k as i64,
                }),
            ),
            ("group", Column::Str(group.collect())),
            (
                "index",
                i(&|h| match h.of {
                    PathOf::Udp(f) => i64::from(sim.apps.flows[f].index),
                    PathOf::Tcp(k, _) => i64::from(conns[k].index),
                }),
            ),
            ("path", Column::Str(path.collect())),
            ("hop", i(&|h| h.hop as i64)),
            ("link", Column::Str(link.collect())),
            ("drops_pkts", i(&|h| h.drops as i64)),
        ],
    }
}

fn opt_s(t: Option<Time>) -> f64 {
    t.map_or(f64::NAN, Time::as_secs_f64)
}

/// What bulk connection `k` counted in the measured window (after the warm-up).
fn measured(sim: &Simulation, k: usize) -> ConnCounts {
    sim.tcp.conns.all[k]
        .counts(sim.now)
        .since(&sim.measure.conns_at_warmup[k])
}

/// The `groups` of the summary: each TCP group's connections of the `connections` table that were
/// open in the measured period ([`GroupGoodput`]).
fn group_goodputs(sim: &Simulation, measured_s: f64) -> BTreeMap<String, GroupGoodput> {
    let warmup = sim.scenario.warmup;
    let mut bytes: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for k in table_conns(sim) {
        let c = &sim.tcp.conns.all[k];
        let group = bytes
            .entry(sim.scenario.traffic[c.group as usize].name.as_str())
            .or_default();
        if c.started.is_some_and(|t| t < sim.now) && c.ended.is_none_or(|t| t > warmup) {
            group.push(measured(sim, k).goodput_bytes);
        }
    }
    bytes
        .into_iter()
        .map(|(name, b)| (name.to_string(), GroupGoodput::of(&b, measured_s)))
        .collect()
}

/// The connections the `connections` table has a row for: bulk transfers, sessions and
/// `ns2-http` users' persistent connections (web pairs are in the `requests` table, and their
/// slots are recycled).
fn table_conns(sim: &Simulation) -> Vec<usize> {
    (0..sim.tcp.conns.all.len())
        .filter(|k| !sim.tcp.conns.all[*k].app.is_web())
        .collect()
}

/// One row per bulk (FTP) connection; web pairs are in the `requests` table. Counters cover the
/// measured window; `bytes_whole_run` the whole run.
fn connection_table(sim: &Simulation, measured_s: f64) -> Table {
    let all = &sim.tcp.conns.all;
    let bulk = table_conns(sim);
    let window: Vec<ConnCounts> = bulk.iter().map(|k| measured(sim, *k)).collect();
    let conns: Vec<&Connection> = bulk.iter().map(|k| &all[*k]).collect();
    let f = |g: &dyn Fn(&Connection) -> f64| Column::F64(conns.iter().map(|c| g(c)).collect());
    let i =
        |g: &dyn Fn(&Connection) -> u64| Column::I64(conns.iter().map(|c| g(c) as i64).collect());
    let s = |key: &dyn Fn(&Connection) -> u32, name: &dyn Fn(&Connection) -> String| {
        Column::Str(Strings::keyed(conns.iter(), |c| key(c), |c| name(c)))
    };
    let host = |g: &dyn Fn(&Connection) -> u32| s(g, &|c| sim.network.topo.host_name(g(c)));
    let wi =
        |g: &dyn Fn(&ConnCounts) -> u64| Column::I64(window.iter().map(|w| g(w) as i64).collect());
    let wf = |g: &dyn Fn(&ConnCounts) -> f64| Column::F64(window.iter().map(g).collect());
    fn sender(c: &Connection) -> &Endpoint {
        &c.ends[c.data_sender]
    }
    let cfg = |c: &Connection| &sim.tcp.conns.cfgs[c.end_cfgs[0] as usize];
    Table {
        name: "connections",
        columns: vec![
            (
                "conn",
                Column::I64(bulk.iter().map(|k| *k as i64).collect()),
            ),
            (
                "group",
                Column::Str(group_names(sim, conns.iter().map(|c| c.group))),
            ),
            ("index", i(&|c| u64::from(c.index))),
            ("client", host(&|c| c.hosts[0])),
            ("server", host(&|c| c.hosts[1])),
            (
                "sender",
                s(&|c| c.data_sender as u32, &|c| {
                    if c.data_sender == 0 {
                        "client".into()
                    } else {
                        "server".into()
                    }
                }),
            ),
            (
                "profile",
                s(&|c| c.end_cfgs[0], &|c| cfg(c).profile.to_string()),
            ),
            (
                "variant",
                s(&|c| c.end_cfgs[0], &|c| {
                    format!("{:?}", cfg(c).variant).to_lowercase()
                }),
            ),
            ("start_s", f(&|c| opt_s(c.started))),
            ("established_s", f(&|c| opt_s(c.established))),
            ("end_s", f(&|c| opt_s(c.ended))),
            (
                "outcome",
                s(&|c| c.outcome as u32, &|c| c.outcome.name().to_string()),
            ),
            ("bytes", wi(&|w| w.goodput_bytes)),
            ("bytes_whole_run", i(&|c| c.goodput_bytes())),
            (
                "goodput_bps",
                wf(&|w| w.goodput_bytes as f64 * 8.0 / measured_s),
            ),
            (
                "transfer_s",
                wf(&|w| w.transfer_ns.map_or(f64::NAN, |t| t as f64 * 1e-9)),
            ),
            (
                "transfer_goodput_bps",
                wf(&|w| match w.transfer_ns {
                    Some(t) if t > 0 => w.goodput_bytes as f64 * 8.0 / (t as f64 * 1e-9),
                    _ => f64::NAN,
                }),
            ),
            (
                "data_segs",
                Column::I64(
                    (conns.iter().zip(&window))
                        .map(|(c, w)| w.ends[c.data_sender].data_segs_sent as i64)
                        .collect(),
                ),
            ),
            ("data_rexmits", wi(&|w| w.both(|k| k.data_rexmits))),
            ("syn_rexmits", wi(&|w| w.both(|k| k.syn_rexmits))),
            ("fin_rexmits", wi(&|w| w.both(|k| k.fin_rexmits))),
            ("timeouts", wi(&|w| w.both(|k| k.timeouts))),
            ("fast_rexmits", wi(&|w| w.both(|k| k.fast_rexmits))),
            ("ecn_reductions", wi(&|w| w.both(|k| k.ecn_reductions))),
            ("recoveries", wi(&|w| w.both(|k| k.recoveries))),
            (
                "mean_recovery_s",
                wf(&|w| {
                    mean_or_nan(
                        w.both(|k| k.recovery_ns) as f64 * 1e-9,
                        w.both(|k| k.recoveries) as f64,
                    )
                }),
            ),
            (
                "mean_t0_s",
                wf(&|w| {
                    mean_or_nan(
                        w.both(|k| k.first_timeout_ns) as f64 * 1e-9,
                        w.both(|k| k.first_timeouts) as f64,
                    )
                }),
            ),
            ("sent_pkts", wi(&|w| w.pkts_sent)),
            ("dropped_pkts", wi(&|w| w.pkts_dropped)),
            ("srtt_s", f(&|c| sender(c).srtt_s().unwrap_or(f64::NAN))),
            ("cwnd_bytes", f(&|c| sender(c).cwnd())),
        ],
    }
}

fn trace_table(sim: &Simulation) -> Table {
    let t = &sim.measure.trace;
    Table {
        name: "tcp_trace",
        columns: vec![
            (
                "t_s",
                Column::F64(t.iter().map(|r| r.t.as_secs_f64()).collect()),
            ),
            (
                "conn",
                Column::I64(t.iter().map(|r| i64::from(r.conn)).collect()),
            ),
            (
                "cwnd_bytes",
                Column::F64(t.iter().map(|r| r.cwnd).collect()),
            ),
            (
                "ssthresh_bytes",
                Column::F64(t.iter().map(|r| r.ssthresh.min(1e18)).collect()),
            ),
            ("srtt_s", Column::F64(t.iter().map(|r| r.srtt_s).collect())),
            (
                "rto_s",
                Column::F64(t.iter().map(|r| r.rto.as_secs_f64()).collect()),
            ),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{table, ColumnType, TABLES};
    use crate::Scenario;
    use ColumnType::{Bool, Cat, F64, I64};

    /// A run with every kind of table filled: web pairs, traced FTP, UDP.
    fn busy_report() -> Report {
        let scenario = Scenario::from_json(
            r#"{"duration": "4s", "warmup": "1s",
                "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
                "traffic": [
                    {"kind": "web-mah", "users": 40},
                    {"kind": "ftp", "flows": 2, "trace": true},
                    {"kind": "poisson", "flows": 2, "rate": "1Mbps"}
                ]}"#,
        )
        .expect("valid scenario");
        Simulation::new(&scenario, Some(3))
            .run()
            .expect("within its limits")
    }

    fn type_of(column: &Column) -> ColumnType {
        match column {
            Column::F64(_) => F64,
            Column::I64(_) => I64,
            Column::Bool(_) => Bool,
            Column::Str(_) => Cat,
        }
    }

    #[test]
    fn every_reported_table_follows_the_schema() {
        let report = busy_report();
        let names: Vec<&str> = report.tables.iter().map(|t| t.name).collect();
        let declared: Vec<&str> = TABLES.iter().map(|t| t.name).collect();
        assert_eq!(names, declared, "tables and their order");
        for t in &report.tables {
            let spec = table(t.name).expect("declared");
            let got: Vec<(&str, ColumnType)> =
                t.columns.iter().map(|(n, c)| (*n, type_of(c))).collect();
            let want: Vec<(&str, ColumnType)> =
                spec.columns.iter().map(|c| (c.name, c.ty)).collect();
            assert_eq!(got, want, "columns of {}", t.name);
            let rows = t.columns[0].1.len();
            assert!(rows > 0, "{} has rows in the busy run", t.name);
            assert!(
                t.columns.iter().all(|(_, c)| c.len() == rows),
                "{}: equal lengths",
                t.name
            );
        }
    }

    /// One FTP flow whose 5th and 2000th data segments are dropped at the bottleneck: the first in
    /// the warm-up (about 4 ms in), the second after it (about 1.6 s in, at 1250 segments a
    /// second).
    fn scripted_ftp(duration: &str, warmup: &str) -> Report {
        let scenario = Scenario::from_json(&format!(
            r#"{{"duration": "{duration}", "warmup": "{warmup}",
                "topology": {{"bottleneck": {{"rate": "10Mbps", "delay": "10ms"}}}},
                "queue": {{"kind": "scripted", "limit": "1000p",
                          "drops": [{{"group": "f", "segment": 5}}, {{"group": "f", "segment": 2000}}]}},
                "traffic": [{{"kind": "ftp", "name": "f"}}]}}"#
        ))
        .expect("valid scenario");
        Simulation::new(&scenario, None)
            .run()
            .expect("within its limits")
    }

    fn ints(report: &Report, column: &str) -> Vec<i64> {
        match report.table("connections").unwrap().column(column) {
            Some(Column::I64(v)) => v.clone(),
            other => panic!("{column}: {other:?}"),
        }
    }

    #[test]
    fn connection_counters_cover_the_measured_window_only() {
        let warm = scripted_ftp("3s", "1s");
        let whole = scripted_ftp("3s", "0s");
        let first_second = scripted_ftp("1s", "0s");
        assert!(
            warm.summary.checks.counter_identities,
            "{:?}",
            warm.summary.checks
        );
        // One drop, one retransmission in each period: the warm-up's are not counted.
        for (report, drops) in [(&warm, 1), (&first_second, 1), (&whole, 2)] {
            assert_eq!(ints(report, "dropped_pkts"), [drops]);
            assert_eq!(ints(report, "data_rexmits"), [drops]);
        }
        // Exactly: the window's counters are the whole run's less the first second's.
        let counters = [
            "bytes",
            "data_segs",
            "data_rexmits",
            "syn_rexmits",
            "fin_rexmits",
            "timeouts",
            "fast_rexmits",
            "ecn_reductions",
            "recoveries",
            "sent_pkts",
            "dropped_pkts",
        ];
        for column in counters {
            assert_eq!(
                ints(&warm, column)[0] + ints(&first_second, column)[0],
                ints(&whole, column)[0],
                "{column}"
            );
        }
        assert_eq!(ints(&warm, "bytes_whole_run"), ints(&whole, "bytes"));
        assert!(ints(&warm, "bytes")[0] < ints(&warm, "bytes_whole_run")[0]);
    }
}

#[cfg(test)]
mod pie_samples {
    use crate::queue::QueueDisc;
    use crate::report::Column;
    use crate::units::Time;

    /// PIE's `pie_prob` column at one sample per row is the controller's probability at the
    /// sample's instant (before any event then): read from the queue itself by running the
    /// simulation up to each sample time.
    #[test]
    fn pie_prob_is_the_controllers_state_at_the_samples() {
        let scenario = crate::Scenario::from_json(
            r#"{"duration": "3s", "warmup": "500ms",
                "topology": {"bottleneck": {"rate": "10Mbps", "delay": "5ms"}},
                "queue": {"kind": "pie"},
                "traffic": [{"kind": "poisson", "flows": 3, "rate": "4Mbps", "size": "1000B"}],
                "measure": {"queue_sample": "5ms", "queue_interval": "5ms"}}"#,
        )
        .expect("valid scenario");
        let mut sim = crate::Simulation::new(&scenario, Some(7));
        let fwd = sim
            .network
            .topo
            .net
            .links
            .iter()
            .position(|l| l.name == "forward")
            .unwrap();
        let mut at_samples = Vec::new();
        for k in 100..600 {
            sim.run_until(Time::from_millis(5 * k), &mut || false)
                .expect("within its limits");
            at_samples.push(sim.network.links[fwd].qdisc.aqm_state().pie_prob);
        }
        let report = sim.finish().expect("within its limits");
        let queue = report.table("queue").expect("a queue table");
        let (Some(Column::F64(prob)), Some(Column::Str(dir))) =
            (queue.column("pie_prob"), queue.column("direction"))
        else {
            panic!("queue.pie_prob and direction");
        };
        let forward: Vec<f64> = prob
            .iter()
            .zip(dir.iter())
            .filter(|(_, d)| *d == "forward")
            .map(|(p, _)| *p)
            .collect();
        assert_eq!(forward, at_samples);
        assert!(forward.iter().any(|&p| p > 0.01), "PIE drops: {forward:?}");
    }
}
