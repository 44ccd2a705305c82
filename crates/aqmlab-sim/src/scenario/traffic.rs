//! `[[traffic]]`: groups of identical flows — UDP sources and TCP bulk transfers — read into
//! [`crate::traffic::config`].

use super::dist::{parse_dist, Support};
use super::reader::{
    boolean, choice, duration, expected, integer, join, list, number_above, positive_duration,
    rate, size, string, Fields, Result, ScenarioError,
};
use super::tcp::parse_tcp;
use crate::network::Net;
use crate::tcp::config::Handshake;
use crate::tcp::TcpConfig;
use crate::traffic::config::{
    HostList, Peer, PoolConnections, SessionThink, Side, Start, TelnetInterval, TrafficKind,
    TrafficSpec, Transfer,
};
use crate::traffic::dist::{Bare, Dist, Law, Unit};
use crate::traffic::web::{MahSpec, ReplyTail};
use crate::units::Time;
use serde_json::Value;

pub fn parse_traffic(
    v: &Value,
    path: &str,
    run: Time,
    tcp: &TcpConfig,
) -> Result<Vec<TrafficSpec>> {
    let items = match v {
        Value::Array(items) => items,
        _ => {
            return Err(ScenarioError::new(
                path,
                "expected a list of tables ([[traffic]])",
            ))
        }
    };
    let mut specs: Vec<TrafficSpec> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = format!("{path}[{i}]");
        let spec = parse_group(item, &item_path, i, run, tcp)?;
        if specs.iter().any(|s| s.name == spec.name) {
            return Err(ScenarioError::new(
                join(&item_path, "name"),
                format!(
                    "expected a unique name, but \"{}\" is already used",
                    spec.name
                ),
            ));
        }
        specs.push(spec);
    }
    Ok(specs)
}

fn parse_start(v: &Value, path: &str) -> Result<Start> {
    if v.is_string() {
        return Ok(Start::At(duration(v, path)?));
    }
    let mut f = Fields::of(v, path).map_err(|_| {
        ScenarioError::new(
            path,
            "expected a duration or a table { dist = \"uniform\" | \"exponential\", … }",
        )
    })?;
    let start = match f.req("dist", choice(&["uniform", "exponential"]))? {
        "uniform" => {
            let (min, max) = (f.req("min", duration)?, f.req("max", duration)?);
            if min > max {
                return Err(ScenarioError::new(
                    join(path, "min"),
                    format!("expected min ≤ max, got min \"{min}\" > max \"{max}\""),
                ));
            }
            Start::Uniform { min, max }
        }
        _ => Start::Exponential {
            mean: f.req("mean", positive_duration)?,
        },
    };
    f.finish()?;
    Ok(start)
}

fn parse_group(
    v: &Value,
    path: &str,
    index: usize,
    run: Time,
    tcp: &TcpConfig,
) -> Result<TrafficSpec> {
    let mut f = Fields::of(v, path)?;
    let kind_name = f.req(
        "kind",
        choice(&[
            "cbr",
            "poisson",
            "pareto",
            "ftp",
            "web-mah",
            "web-pool",
            "web-session",
            "telnet",
        ]),
    )?;
    let name = f.or("name", format!("{kind_name}{index}"), string)?;
    if name.is_empty() || name.contains(['[', ']', '.']) {
        return Err(ScenarioError::new(
            f.key_path("name"),
            format!("expected a non-empty name without '.', '[' or ']', got \"{name}\""),
        ));
    }
    // A web group's `from` is the side its users sit on (they request; the other side replies):
    // the clients, unless a web-pool group says otherwise (`users_on`).
    let (flows, from) = if kind_name == "web-mah" || kind_name == "web-pool" {
        (
            f.req("users", integer(1, 10_000_000))? as u32,
            Side::Clients,
        )
    } else {
        let flows = f.or("flows", 1, integer(1, 1_000_000))? as u32;
        let from = match f.or("from", "servers", choice(&["servers", "clients"]))? {
            "servers" => Side::Servers,
            _ => Side::Clients,
        };
        (flows, from)
    };
    let hosts = |v: &Value, p: &str| -> Result<HostList> {
        let names = list(string)(v, p)?;
        if names.is_empty() {
            return Err(ScenarioError::new(p, "expected at least one host's name"));
        }
        Ok(HostList {
            names,
            nodes: Vec::new(),
        })
    };
    let servers = f.opt("servers", hosts)?;
    let clients = f.opt("clients", hosts)?;
    let server = f.or("server", 0, integer(0, 65_534))? as u32;
    let client = f.or("client", 0, integer(0, 65_534))? as u32;
    let start = f.or("start", Start::At(Time::ZERO), parse_start)?;
    let (kind, from) = match kind_name {
        "web-mah" => (parse_web_mah(&mut f, tcp)?, from),
        "web-pool" => parse_web_pool(&mut f, tcp)?,
        "web-session" => (parse_web_session(&mut f, tcp)?, from),
        "telnet" => (parse_telnet(&mut f, tcp)?, from),
        "ftp" => (parse_ftp(&mut f, tcp)?, from),
        _ => (parse_udp(&mut f, kind_name, run, start)?, from),
    };
    f.finish()?;
    Ok(TrafficSpec {
        name,
        kind,
        flows,
        from,
        servers,
        clients,
        server,
        client,
        start,
    })
}

/// A group's `tcp` table, over the scenario's `[tcp]`.
fn group_tcp(f: &mut Fields, tcp: &TcpConfig) -> Result<TcpConfig> {
    let tcp_path = f.key_path("tcp");
    match f.get("tcp") {
        Some(t) => parse_tcp(t, &tcp_path, tcp),
        None => Ok(tcp.clone()),
    }
}

/// A `web-mah` group: Mah's browsers ([`parse_mah`]).
fn parse_web_mah(f: &mut Fields, tcp: &TcpConfig) -> Result<TrafficKind> {
    // Browsers of the time opened 4–6 connections at once; ns-2's Http uses 4
    // (docs/models/web.md §3.1).
    let max_conns = f.or("max_conns", 4, integer(1, 1000))? as u32;
    let pages = parse_mah(f)?;
    let tcp = group_tcp(f, tcp)?;
    if tcp.handshake != Handshake::ThreeWay {
        return Err(ScenarioError::new(
            f.key_path("tcp"),
            "expected handshake \"three-way\": HTTP/1.0 request/response pairs open and close their connections",
        ));
    }
    Ok(TrafficKind::WebMah {
        max_conns,
        pages,
        tcp,
    })
}

/// A `web-pool` group: ns-2's page-pool users, and the side they sit on (`users_on`).
fn parse_web_pool(f: &mut Fields, tcp: &TcpConfig) -> Result<(TrafficKind, Side)> {
    // ns-2's page-pool Http agents (tcl/webcache/http-agent.tcl): 43-byte requests
    // (`Http set REQSize_ 43`); Eddy & Allman §5: mean page 1024 B, requests every 0.01 s on
    // average.
    let request = f.or(
        "request",
        Dist::bare(43, Unit::Size, Bare::Constant),
        sizes(1),
    )?;
    let page_mean = f.or(
        "page_mean",
        Dist::bare(1024, Unit::Size, Bare::ExponentialMean),
        |v, p| parse_dist(v, p, Unit::Size, Bare::ExponentialMean, ANY_SIZE),
    )?;
    let think_mean = f.or("think_mean", exp_time(Time::from_millis(10)), time_dist)?;
    let tcp = group_tcp(f, tcp)?;
    if tcp.handshake != Handshake::ThreeWay {
        return Err(ScenarioError::new(
            f.key_path("tcp"),
            "expected handshake \"three-way\": each request opens and closes a connection (ns-2 FullTcp)",
        ));
    }
    // Eddy & Allman run HTTP clients and servers on every host: `users_on = "servers"` puts
    // the users on the server hosts, requesting from the client hosts.
    let users_on = match f.or("users_on", "clients", choice(&["clients", "servers"]))? {
        "servers" => Side::Servers,
        _ => Side::Clients,
    };
    let peer_path = f.key_path("peer");
    let peer = match f.or("peer", "any", choice(&["any", "paired"]))? {
        "paired" => Peer::Paired,
        _ => Peer::Any,
    };
    let connections = match f.or(
        "connections",
        "per-request",
        choice(&["per-request", "ns2-http"]),
    )? {
        "ns2-http" => {
            if peer != Peer::Paired {
                return Err(ScenarioError::new(
                    peer_path,
                    "expected \"paired\" with connections = \"ns2-http\": an ns-2 Http client keeps its one connection to the server it started on",
                ));
            }
            // ns-2's own page-pool example (tcl/ex/simple-webcache.tcl, doc/webcache.tex):
            // page ages exponential with mean 5 s.
            let page_age = f.or("page_age", Some(exp_time(Time::from_secs(5))), |v, p| {
                match v.as_str() {
                    Some("never") => Ok(None),
                    _ => time_dist(v, p).map(Some).map_err(|e| {
                        ScenarioError::new(
                            e.path,
                            format!("expected \"never\", a mean duration like \"5s\" or a distribution: {}", e.message),
                        )
                    }),
                }
            })?;
            PoolConnections::Ns2Http { page_age }
        }
        _ => {
            if f.get("page_age").is_some() {
                return Err(ScenarioError::new(
                    f.key_path("page_age"),
                    "page_age is the life of a page version under connections = \"ns2-http\"; give that too, or leave page_age out (per-request pages are drawn per request)",
                ));
            }
            PoolConnections::PerRequest
        }
    };
    let kind = TrafficKind::WebPool {
        request,
        page_mean,
        think_mean,
        peer,
        connections,
        tcp,
    };
    Ok((kind, users_on))
}

/// A `web-session` group: Zhang & Qiu's sessions of transfers and think times.
fn parse_web_session(f: &mut Fields, tcp: &TcpConfig) -> Result<TrafficKind> {
    // Zhang & Qiu §IV-C: 30 KB, the average web transfer; think times U(1 s, 3 s).
    let size = f.or("size", const_size(30_000), sizes(1))?;
    let think_path = f.key_path("think");
    let think = match f.opt("think", const_times)? {
        Some(_) if f.get("think_min").is_some() || f.get("think_max").is_some() => {
            return Err(ScenarioError::new(
                think_path,
                "give think, or think_min and think_max, not both",
            ))
        }
        Some(d) => d,
        None => {
            let think_min = f.or("think_min", Time::from_secs(1), duration)?;
            let think_max = f.or("think_max", Time::from_secs(3), duration)?;
            if think_max < think_min {
                return Err(ScenarioError::new(
                    f.key_path("think_min"),
                    format!(
                        "expected think_min ≤ think_max (\"{think_max}\"), got \"{think_min}\""
                    ),
                ));
            }
            Dist {
                law: Law::Uniform {
                    min: think_min.0,
                    max: think_max.0,
                },
                unit: Unit::Time,
                bare: Bare::Constant,
            }
        }
    };
    Ok(TrafficKind::WebSession {
        size,
        think: SessionThink(think),
        tcp: group_tcp(f, tcp)?,
    })
}

/// A `telnet` group: ns-2's Telnet source.
fn parse_telnet(f: &mut Fields, tcp: &TcpConfig) -> Result<TrafficKind> {
    // ns-2's Telnet writes one packet per event: `sendmsg(agent_->size())`, the agent's
    // packetSize_ (apps/telnet.cc), which is the segment size.
    let tcp = group_tcp(f, tcp)?;
    let size = f.or("size", const_size(tcp.mss.0), sizes(1))?;
    let interval = f.or("interval", TelnetInterval::Tcplib, |v, p| {
        match v.as_str() {
            Some("tcplib") => Ok(TelnetInterval::Tcplib),
            _ => time_dist(v, p).map(TelnetInterval::Drawn).map_err(|e| {
                ScenarioError::new(
                    e.path,
                    format!(
                        "expected \"tcplib\", a mean duration like \"1s\" or a distribution: {}",
                        e.message
                    ),
                )
            }),
        }
    })?;
    Ok(TrafficKind::Telnet {
        size,
        interval,
        tcp,
    })
}

/// An `ftp` group: bulk transfers.
fn parse_ftp(f: &mut Fields, tcp: &TcpConfig) -> Result<TrafficKind> {
    let size = f.or("size", Transfer::Unlimited, |v, p| match v.as_str() {
        Some("unlimited") => Ok(Transfer::Unlimited),
        _ => sizes(1)(v, p).map(Transfer::Bytes),
    })?;
    let trace = f.or("trace", false, boolean)?;
    Ok(TrafficKind::Ftp {
        size,
        trace,
        tcp: group_tcp(f, tcp)?,
    })
}

/// A UDP group (`cbr`, `poisson`, `pareto`) sending from `start` until `stop` (the run's end
/// unless given).
fn parse_udp(f: &mut Fields, kind_name: &str, run: Time, start: Start) -> Result<TrafficKind> {
    let size = f.or("size", const_size(1000), packet_sizes)?;
    // Within 1 B to 65,535 B (`packet_sizes`): only a Pareto given by a scale with a shape
    // ≤ 1 has no finite mean.
    if size.mean().is_none() {
        return Err(ScenarioError::new(
            f.key_path("size"),
            "expected packet sizes with a finite mean (the sending rate is rate / mean size)",
        ));
    }
    let rate = f.req("rate", rate)?;
    let stop = f.or("stop", run, duration)?;
    if let Start::At(at) = start {
        if stop <= at {
            return Err(ScenarioError::new(
                f.key_path("stop"),
                format!("expected stop after start (\"{at}\"), got \"{stop}\""),
            ));
        }
    }
    Ok(match kind_name {
        "cbr" => TrafficKind::Cbr {
            size,
            rate,
            stop,
            jitter: f.or("jitter", false, boolean)?,
        },
        "poisson" => TrafficKind::Poisson { size, rate, stop },
        "pareto" => {
            // ns-2's POO_Traffic defaults (docs/models/ns2.md §4): a bare ON or OFF time is the
            // mean of a Pareto of the group's `shape`.
            let shape = f.or("shape", 1.5, number_above(1.0))?;
            let bare = Bare::ParetoMean(shape);
            let on_off = |v: &Value, p: &str| parse_dist(v, p, Unit::Time, bare, Support::TIMES);
            let half_second = Dist::bare(Time::from_millis(500).0, Unit::Time, bare);
            TrafficKind::Pareto {
                size,
                rate,
                stop,
                burst: f.or("burst", half_second.clone(), on_off)?,
                idle: f.or("idle", half_second, on_off)?,
                shape,
            }
        }
        _ => unreachable!("choice() admits only the kinds matched here"),
    })
}

/// A `web-mah` group's page distributions: each of Mah's tables unless given (a bare value is a
/// constant), and `think_max`, which conditions an empirical think time only.
fn parse_mah(f: &mut Fields) -> Result<MahSpec> {
    let count_dist =
        |v: &Value, p: &str| parse_dist(v, p, Unit::Count, Bare::Constant, Support::COUNTS);
    let request = f.opt("request", sizes(1))?;
    let reply = f.opt("reply", sizes(0))?;
    let objects = f.opt("objects", count_dist)?;
    let stay = f.opt("stay", count_dist)?;
    let think = f.opt("think", const_times)?;
    let think_table = match &think {
        None => Some(MahSpec::mah_think()),
        Some(d) => matches!(d.law, Law::Empirical { .. }).then(|| d.clone()),
    };
    let think_max_path = f.key_path("think_max");
    let think_max = match (f.opt("think_max", positive_duration)?, &think_table) {
        (Some(_), None) => {
            return Err(ScenarioError::new(
                think_max_path,
                "think_max conditions an empirical think time (Mah's table by default); give it with `think = { dist = \"empirical\", … }` or not at all",
            ))
        }
        // A 30-minute gap ends a browsing session in the usual web-analytics convention; longer
        // "think times" in Mah's data are users gone away (docs/models/web.md §2.1).
        (None, Some(_)) if think.is_none() => Some(Time::from_secs(1800)),
        (given, _) => given,
    };
    if let (
        Some(max),
        Some(Dist {
            law: Law::Empirical { table, .. },
            ..
        }),
    ) = (think_max, &think_table)
    {
        let least = table.rows().next().map_or(0.0, |(v, _)| v);
        if max.as_secs_f64() < least {
            return Err(ScenarioError::new(
                think_max_path,
                format!(
                    "expected at least the think table's smallest value, {least}s, got \"{max}\""
                ),
            ));
        }
    }
    let reply_tail_path = f.key_path("reply_tail");
    let reply_tail = f.opt("reply_tail", parse_reply_tail)?;
    if reply_tail.is_some()
        && !reply
            .as_ref()
            .is_none_or(|d| matches!(d.law, Law::Empirical { .. }))
    {
        return Err(ScenarioError::new(
            reply_tail_path,
            "reply_tail extends an empirical reply table (Mah's by default); give it with `reply = { dist = \"empirical\", … }` or not at all",
        ));
    }
    Ok(MahSpec {
        think_max,
        request,
        reply,
        objects,
        think,
        stay,
        reply_tail,
    })
}

/// `reply_tail = { quantile = 0.9, shape = 1.2, max = "100MB" }`: a Pareto tail above the reply
/// table's quantile (in (0, 1)), of index `shape` (above 1, a finite mean), optionally bounded.
fn parse_reply_tail(v: &Value, path: &str) -> Result<ReplyTail> {
    let mut f = Fields::of(v, path)?;
    let quantile = f.req("quantile", |v, p| match v.as_f64() {
        Some(x) if x > 0.0 && x < 1.0 => Ok(x),
        _ => Err(expected(
            p,
            "a cumulative probability strictly between 0 and 1",
            v,
        )),
    })?;
    let shape = f.req("shape", |v, p| match v.as_f64() {
        Some(x) if x.is_finite() && x > 1.0 => Ok(x),
        _ => Err(expected(p, "a tail index above 1 (a finite mean)", v)),
    })?;
    let max = f.opt("max", size)?;
    f.finish()?;
    Ok(ReplyTail {
        quantile,
        shape,
        max,
    })
}

/// A bare size is a constant.
fn const_size(bytes: u64) -> Dist {
    Dist::bare(bytes, Unit::Size, Bare::Constant)
}

/// Any size a transfer or a message may have (a bare size is a constant; [`Support`]).
const ANY_SIZE: Support = Support::bytes(1, u64::MAX);

/// Sizes of at least `min` bytes (a bare size is a constant): 1 for a transfer or a request, 0
/// for a reply (an empty reply is possible).
fn sizes(min: u64) -> impl Fn(&Value, &str) -> Result<Dist> {
    move |v, path| {
        parse_dist(
            v,
            path,
            Unit::Size,
            Bare::Constant,
            Support::bytes(min, u64::MAX),
        )
    }
}

/// A UDP group's packet sizes: IP packets of 1 to 65,535 bytes.
fn packet_sizes(v: &Value, path: &str) -> Result<Dist> {
    let packets = Support::bytes(1, crate::traffic::udp::MAX_PACKET);
    parse_dist(v, path, Unit::Size, Bare::Constant, packets)
}

/// Times from 0 (a bare duration is a constant).
fn const_times(v: &Value, path: &str) -> Result<Dist> {
    parse_dist(v, path, Unit::Time, Bare::Constant, Support::TIMES)
}

/// A bare duration is an exponential's mean.
fn exp_time(mean: Time) -> Dist {
    Dist::bare(mean.0, Unit::Time, Bare::ExponentialMean)
}

fn time_dist(v: &Value, path: &str) -> Result<Dist> {
    parse_dist(v, path, Unit::Time, Bare::ExponentialMean, Support::TIMES)
}

/// Place the groups on `net`: each group's own `servers` and `clients` are hosts of it (of the
/// topology's servers and clients, on a named topology), and resolved to node ids; a group that
/// names none takes the topology's (required on nodes and links, which have none); `server` and
/// `client` index those lists; no flow runs between a host and itself. Errors at `path[i]…`.
pub fn place(traffic: &mut [TrafficSpec], net: &Net, path: &str) -> Result<()> {
    let ids = net.ids();
    let named = !net.servers.is_empty();
    for (i, t) in traffic.iter_mut().enumerate() {
        let at = format!("{path}[{i}]");
        for (key, list, side) in [
            ("servers", &mut t.servers, &net.servers),
            ("clients", &mut t.clients, &net.clients),
        ] {
            let Some(list) = list else {
                if !named {
                    return Err(ScenarioError::new(
                        join(&at, key),
                        format!(
                            "required: a network of [[node]]s and [[link]]s has no default \
                             {key}; name the group's hosts ({key} = [\"h1\"])"
                        ),
                    ));
                }
                continue;
            };
            list.nodes = Vec::with_capacity(list.names.len());
            for (j, n) in list.names.iter().enumerate() {
                let here = format!("{at}.{key}[{j}]");
                let id = match ids.get(n.as_str()) {
                    Some(&id) if id < net.hosts => id,
                    Some(_) => {
                        return Err(ScenarioError::new(
                            here,
                            format!("\"{n}\" is a router: flows run between hosts"),
                        ))
                    }
                    None => {
                        return Err(ScenarioError::new(
                            here,
                            format!("unknown host \"{}\"", n.escape_debug()),
                        ))
                    }
                };
                if named && !side.contains(&id) {
                    return Err(ScenarioError::new(
                        here,
                        format!(
                            "\"{n}\" is not one of the topology's {key} (on a named topology a \
                             group's {key} are among its {key}; `from` says which side sends)"
                        ),
                    ));
                }
                list.nodes.push(id);
            }
        }
        let (servers, clients) = t.sides((&net.servers, &net.clients));
        for (key, value, n, list) in [
            ("server", t.server, servers.len(), &t.servers),
            ("client", t.client, clients.len(), &t.clients),
        ] {
            if value as usize >= n {
                let of = if list.is_some() {
                    format!("the group's {key}s")
                } else {
                    format!("topology.{key}s")
                };
                return Err(ScenarioError::new(
                    join(&at, key),
                    format!("expected a host index below {of} ({n}), got {value}"),
                ));
            }
        }
        if named {
            continue; // a named topology's servers and clients are different hosts
        }
        // Flow k pairs the hosts at k; the pairs repeat after lcm(servers, clients) flows.
        let (ns, nc) = (servers.len() as u64, clients.len() as u64);
        let period = ns / gcd(ns, nc) * nc;
        for k in 0..u64::from(t.flows).min(period) as u32 {
            let (s, c) = t.flow_hosts(k, (&net.servers, &net.clients));
            if s == c {
                let name = &net.nodes[s as usize];
                return Err(ScenarioError::new(
                    join(&at, "clients"),
                    format!(
                        "flow {k} would run between host \"{name}\" and itself (it is among the \
                         group's servers and its clients)"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// A host with `web-pool` users answers requests with those users' `tcp` table (its MSS and the
/// rest; see the simulation's `open_web`), so all `web-pool` users on one host must share one;
/// and under `connections = "ns2-http"` a host serves one page, so all the groups whose users ask
/// it must draw its versions alike (`page_mean`, `page_age`).
pub fn check_web_hosts(traffic: &[TrafficSpec], net: &Net) -> Result<()> {
    // Host → the first group with users there, and the first ns2-http group whose users ask it.
    let mut seen: std::collections::BTreeMap<u32, usize> = Default::default();
    let mut served: std::collections::BTreeMap<u32, usize> = Default::default();
    let pool = |j: usize| match &traffic[j].kind {
        TrafficKind::WebPool {
            tcp,
            page_mean,
            connections,
            ..
        } => (tcp, page_mean, connections),
        _ => unreachable!("only web-pool groups are recorded"),
    };
    for (i, t) in traffic.iter().enumerate() {
        if !matches!(t.kind, TrafficKind::WebPool { .. }) {
            continue;
        }
        let (tcp, page_mean, connections) = pool(i);
        let (servers, clients) = t.sides((&net.servers, &net.clients));
        let (own, across) = match t.from {
            Side::Servers => (servers, clients),
            Side::Clients => (clients, servers),
        };
        for k in 0..t.flows.min(own.len() as u32) {
            let (s, c) = t.hosts_of(k, servers.len() as u32, clients.len() as u32);
            let home = if t.from == Side::Servers { s } else { c };
            let h = own[home as usize];
            let j = *seen.entry(h).or_insert(i);
            if pool(j).0 != tcp {
                return Err(ScenarioError::new(
                    format!("traffic[{i}].tcp"),
                    format!(
                        "expected the tcp table of group \"{}\", which also has web-pool users on host \"{}\": a host answers requests with its users' tcp table, so they must agree",
                        traffic[j].name,
                        net.nodes[h as usize]
                    ),
                ));
            }
            if !matches!(connections, PoolConnections::Ns2Http { .. }) {
                continue;
            }
            let peer = across[home as usize % across.len()];
            let j = *served.entry(peer).or_insert(i);
            if (pool(j).1, pool(j).2) != (page_mean, connections) {
                return Err(ScenarioError::new(
                    format!("traffic[{i}].page_mean"),
                    format!(
                        "expected the page_mean and page_age of group \"{}\", whose users also ask host \"{}\": under connections = \"ns2-http\" a host serves one page, whose versions are drawn by one law",
                        traffic[j].name,
                        net.nodes[peer as usize]
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use serde_json::{json, Value};

    /// The resolved traffic group of a scenario with this one group, or the error.
    fn group(g: Value) -> Result<Value, String> {
        let v = json!({"duration": "10s", "tcp": {"handshake": "three-way"},
                       "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
                       "traffic": [g]});
        Scenario::from_value(&v)
            .map(|s| s.to_value()["traffic"][0].clone())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn mahs_tables_are_the_defaults_and_any_distribution_replaces_one() {
        let g = group(json!({"kind": "web-mah", "users": 2})).unwrap();
        assert_eq!(g["think_max"], "30min");
        for key in ["request", "reply", "objects", "think", "stay"] {
            assert!(g.get(key).is_none(), "{key} is Mah's table, not written");
        }
        let exp = json!({"dist": "exponential", "mean": "5s"});
        let g = group(json!({"kind": "web-mah", "users": 2, "objects": 2,
                             "reply": "10KB", "think": exp}))
        .unwrap();
        assert_eq!(
            (&g["objects"], &g["reply"], &g["think"]),
            (&json!(2), &json!("10KB"), &exp)
        );
        assert!(
            g.get("think_max").is_none(),
            "only an empirical think time is truncated"
        );
        // An empirical think table: truncated only when think_max is given.
        let table = json!({"dist": "empirical", "table": [[1.0, 0.5], [100.0, 1.0]]});
        let g = group(json!({"kind": "web-mah", "users": 2, "think": table})).unwrap();
        assert!(g.get("think_max").is_none());
        let g = group(json!({"kind": "web-mah", "users": 2, "think": table, "think_max": "1min"}))
            .unwrap();
        assert_eq!(g["think_max"], "1min");
        // A tail on Mah's reply table, written back as given.
        let tail = json!({"quantile": 0.9, "shape": 1.2, "max": "100MB"});
        let g = group(json!({"kind": "web-mah", "users": 2, "reply_tail": tail})).unwrap();
        assert_eq!(g["reply_tail"], tail);
        assert!(g.get("reply").is_none());
    }

    #[test]
    fn every_distribution_stays_within_what_its_key_means() {
        let table = |rows: Value| json!({"dist": "empirical", "table": rows});
        let refused = [
            // A negative packet size doubled a 1 Mbps flow's rate (the mean taken over -100
            // and 200, the draws clamped to 1 B); sizes past the largest packet sent nothing.
            (json!({"kind": "cbr", "rate": "1Mbps", "size": table(json!([[-100, 0.5], [200, 1.0]]))}),
             "traffic[0].size.table[0]: expected sizes from 1B to 65535B, got -100"),
            (json!({"kind": "poisson", "rate": "1Mbps", "size": table(json!([[100, 0.5], [1e15, 1.0]]))}),
             "traffic[0].size.table[1]: expected sizes from 1B to 65535B, got 1e15"),
            (json!({"kind": "cbr", "rate": "1Mbps", "size": "100000B"}),
             "traffic[0].size: expected sizes from 1B to 65535B, got 100KB"),
            (json!({"kind": "cbr", "rate": "1Mbps", "size": {"dist": "uniform", "min": "1KB", "max": "100KB"}}),
             "traffic[0].size.max: expected sizes from 1B to 65535B, got 100KB"),
            (json!({"kind": "cbr", "rate": "1Mbps", "size": {"dist": "exponential", "mean": "1MB"}}),
             "traffic[0].size.mean: expected sizes from 1B to 65535B, got 1MB"),
            (json!({"kind": "ftp", "size": table(json!([[1e300, 1.0]]))}),
             "traffic[0].size.table[0]: expected sizes of at least 1B (and below 2^64 B), got 1e300"),
            (json!({"kind": "web-mah", "users": 1, "request": table(json!([[0, 0.5], [10, 1.0]]))}),
             "traffic[0].request.table[0]: expected sizes of at least 1B (and below 2^64 B), got 0"),
            (json!({"kind": "web-mah", "users": 1, "think": table(json!([[-1, 0.5], [10, 1.0]]))}),
             "traffic[0].think.table[0]: expected times of at least 0s (and below 2^64 ns), got -1 (a value of the table, in seconds)"),
            (json!({"kind": "web-mah", "users": 1, "objects": table(json!([[0, 0.5], [3, 1.0]]))}),
             "traffic[0].objects.table[0]: expected counts from 1 to 4294967295, got 0"),
            (json!({"kind": "pareto", "rate": "1Mbps", "idle": table(json!([[-0.5, 1.0]]))}),
             "traffic[0].idle.table[0]: expected times of at least 0s (and below 2^64 ns), got -0.5"),
        ];
        for (g, message) in refused {
            let e = group(g.clone()).unwrap_err();
            assert!(e.starts_with(message), "{g}: {e}");
        }
        // What each key allows: an empty reply, a zero think time, a 65,535-byte datagram.
        for g in [
            json!({"kind": "web-mah", "users": 1, "reply": table(json!([[0, 0.5], [10, 1.0]]))}),
            json!({"kind": "web-mah", "users": 1, "think": table(json!([[0, 0.5], [10, 1.0]]))}),
            json!({"kind": "cbr", "rate": "1Mbps", "size": "65535B"}),
        ] {
            assert!(group(g.clone()).is_ok(), "{g}");
        }
    }

    #[test]
    fn a_bad_reply_tail_names_its_field() {
        let bad = |tail: Value, reply: Option<Value>| {
            let mut g = json!({"kind": "web-mah", "users": 2, "reply_tail": tail});
            if let Some(r) = reply {
                g["reply"] = r;
            }
            group(g).unwrap_err()
        };
        let cases = [
            (json!({"quantile": 1.0, "shape": 1.2}), None, "traffic[0].reply_tail.quantile: expected a cumulative probability strictly between 0 and 1"),
            (json!({"quantile": 0.9, "shape": 1.0}), None, "traffic[0].reply_tail.shape: expected a tail index above 1"),
            (json!({"quantile": 0.9}), None, "traffic[0].reply_tail.shape: required key is missing"),
            (json!({"quantile": 0.9, "shape": 1.2, "alpha": 1}), None, "traffic[0].reply_tail.alpha: unknown key (this table takes: max, quantile, shape)"),
            (json!({"quantile": 0.9, "shape": 1.2, "max": "big"}), None, "traffic[0].reply_tail.max:"),
            (json!(1.2), None, "traffic[0].reply_tail: expected a table"),
            (json!({"quantile": 0.9, "shape": 1.2}), Some(json!("10KB")), "traffic[0].reply_tail: reply_tail extends an empirical reply table"),
        ];
        for (tail, reply, want) in cases {
            let e = bad(tail, reply);
            assert!(e.starts_with(want), "{e}");
        }
    }

    #[test]
    fn bad_mah_fields_name_the_field() {
        let e = group(json!({"kind": "web-mah", "users": 2, "think": "3s", "think_max": "1min"}))
            .unwrap_err();
        assert!(
            e.starts_with("traffic[0].think_max: think_max conditions an empirical"),
            "{e}"
        );
        let e = group(json!({"kind": "web-mah", "users": 2, "think_max": "1s"})).unwrap_err();
        assert!(
            e.starts_with("traffic[0].think_max: expected at least"),
            "{e}"
        );
        let e = group(json!({"kind": "web-mah", "users": 2, "objects": "3p"})).unwrap_err();
        assert!(
            e.starts_with("traffic[0].objects: expected a whole number"),
            "{e}"
        );
        let e = group(json!({"kind": "web-mah", "users": 2,
                             "stay": {"dist": "uniform", "min": 3, "max": 1}}))
        .unwrap_err();
        assert!(
            e.starts_with("traffic[0].stay.min: expected min ≤ max"),
            "{e}"
        );
    }

    #[test]
    fn ns2_http_pages_age_as_ns2s_example_by_default_and_bad_fields_name_the_field() {
        let g = group(json!({"kind": "web-pool", "users": 2})).unwrap();
        assert!(g.get("connections").is_none(), "the default is not written");
        assert!(g.get("page_age").is_none());
        let http = json!({"kind": "web-pool", "users": 2, "peer": "paired",
                          "connections": "ns2-http"});
        let g = group(http.clone()).unwrap();
        assert_eq!(
            (&g["connections"], &g["page_age"]),
            (&json!("ns2-http"), &json!("5s"))
        );
        let mut never = http.clone();
        never["page_age"] = json!("never");
        assert_eq!(group(never).unwrap()["page_age"], "never");
        let err = |changes: Value| {
            let mut g = http.clone();
            for (k, v) in changes.as_object().unwrap() {
                g[k] = v.clone();
            }
            group(g).unwrap_err()
        };
        let e = err(json!({"peer": "any"}));
        assert!(e.starts_with("traffic[0].peer: expected \"paired\""), "{e}");
        let e = err(json!({"connections": "persistent"}));
        assert!(
            e.starts_with("traffic[0].connections: expected one of"),
            "{e}"
        );
        let e = err(json!({"page_age": "sometimes"}));
        assert!(
            e.starts_with("traffic[0].page_age: expected \"never\""),
            "{e}"
        );
        let e = err(json!({"connections": "per-request", "page_age": "1s"}));
        assert!(
            e.starts_with("traffic[0].page_age: page_age is the life"),
            "{e}"
        );
    }

    #[test]
    fn ns2_http_groups_asking_one_host_agree_on_its_page() {
        let user = |name: &str, page: &str| {
            json!({"kind": "web-pool", "name": name, "users": 1, "peer": "paired",
                   "connections": "ns2-http", "page_mean": page})
        };
        let v = |a: Value, b: Value| {
            json!({"duration": "10s", "tcp": {"handshake": "three-way"},
                   "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
                   "traffic": [a, b]})
        };
        assert!(Scenario::from_value(&v(user("a", "1KB"), user("b", "1KB"))).is_ok());
        let e = Scenario::from_value(&v(user("a", "1KB"), user("b", "2KB")))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with(
                "traffic[1].page_mean: expected the page_mean and page_age of group \"a\""
            ),
            "{e}"
        );
    }

    #[test]
    fn pareto_on_and_off_times_are_bare_pareto_means_or_any_distribution() {
        let g = group(json!({"kind": "pareto", "rate": "1Mbps"})).unwrap();
        assert_eq!(
            (&g["burst"], &g["idle"], &g["shape"]),
            (&json!("500ms"), &json!("500ms"), &json!(1.5))
        );
        let on = json!({"dist": "weibull", "shape": 0.8, "scale": "40ms"});
        let g = group(
            json!({"kind": "pareto", "rate": "1Mbps", "burst": on, "idle": "2s",
                             "shape": 1.2}),
        )
        .unwrap();
        assert_eq!(
            (&g["burst"], &g["idle"], &g["shape"]),
            (&on, &json!("2s"), &json!(1.2))
        );
        let e = group(json!({"kind": "pareto", "rate": "1Mbps", "idle": {"dist": "normal"}}))
            .unwrap_err();
        assert!(
            e.starts_with("traffic[0].idle.dist: expected one of"),
            "{e}"
        );
    }
}
