//! The traffic groups' configuration: a group of identical flows ([`TrafficSpec`]) and each
//! kind's own parameters ([`TrafficKind`]), as the scenario resolves them (`docs/scenario.md`,
//! `[[traffic]]`; read by `scenario/traffic.rs`).

use super::dist::{Dist, Law};
use super::web::MahSpec;
use crate::tcp::TcpConfig;
use crate::units::{Rate, Time};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// Which side of the dumbbell sends the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Servers,
    Clients,
}

/// When each flow of a group starts: one time for all, or drawn per flow from its own stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Start {
    At(Time),
    Uniform { min: Time, max: Time },
    Exponential { mean: Time },
}

impl Serialize for Start {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Start::At(t) => t.serialize(s),
            Start::Uniform { min, max } => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("dist", "uniform")?;
                m.serialize_entry("min", min)?;
                m.serialize_entry("max", max)?;
                m.end()
            }
            Start::Exponential { mean } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("dist", "exponential")?;
                m.serialize_entry("mean", mean)?;
                m.end()
            }
        }
    }
}

/// How much a bulk sender sends: forever, or a size drawn once per connection.
#[derive(Clone, Debug, PartialEq)]
pub enum Transfer {
    Unlimited,
    Bytes(Dist),
}

impl Serialize for Transfer {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Transfer::Unlimited => s.serialize_str("unlimited"),
            Transfer::Bytes(b) => b.serialize(s),
        }
    }
}

/// When a telnet source types next.
#[derive(Clone, Debug, PartialEq)]
pub enum TelnetInterval {
    /// The tcplib table (ns-2 `interval_ 0`).
    Tcplib,
    /// Drawn from this distribution; a bare duration is an exponential's mean (ns-2's
    /// `interval_ 1.0`).
    Drawn(Dist),
}

impl Serialize for TelnetInterval {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            TelnetInterval::Tcplib => s.serialize_str("tcplib"),
            TelnetInterval::Drawn(d) => d.serialize(s),
        }
    }
}

/// A web session's think time: written `think_min`, `think_max` when uniform (Zhang & Qiu's
/// form), otherwise `think`, a distribution.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionThink(pub Dist);

impl Serialize for SessionThink {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self.0.law {
            Law::Uniform { min, max } => {
                m.serialize_entry("think_min", &Time(min))?;
                m.serialize_entry("think_max", &Time(max))?;
            }
            _ => m.serialize_entry("think", &self.0)?,
        }
        m.end()
    }
}

/// Hosts a group names (`servers = ["s1", "s2"]`): their names, and their node ids once the
/// scenario has placed them on its network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostList {
    pub names: Vec<String>,
    pub nodes: Vec<u32>,
}

impl Serialize for HostList {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.names.serialize(s)
    }
}

/// A group of identical flows (for web traffic: of users, `flows` being the number of users).
#[derive(Clone, Debug)]
pub struct TrafficSpec {
    pub name: String,
    pub kind: TrafficKind,
    pub flows: u32,
    /// The sending side; for web groups, the side the users sit on (they request).
    pub from: Side,
    /// The group's server and client hosts, if it names them (`None`: the topology's).
    pub servers: Option<HostList>,
    pub clients: Option<HostList>,
    /// Flow k runs between server `(server + k) mod servers` and client `(client + k) mod clients`
    /// (indices into the group's, or the topology's, lists of servers and clients).
    pub server: u32,
    pub client: u32,
    pub start: Start,
}

impl Serialize for TrafficSpec {
    /// Flat, as written: `name`, the kind's own keys, then the group's; a web group's users are its
    /// `users` (no `flows`), and it has no `from`: its `from` is the side its users sit on, the
    /// clients (`web-mah`) or `users_on` (`web-pool`).
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let kind = serde_json::to_value(&self.kind).map_err(serde::ser::Error::custom)?;
        let web = matches!(
            self.kind,
            TrafficKind::WebMah { .. } | TrafficKind::WebPool { .. }
        );
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        for (k, v) in kind.as_object().into_iter().flatten() {
            m.serialize_entry(k, v)?;
            if web && k == "kind" {
                m.serialize_entry("users", &self.flows)?;
            }
        }
        if !web {
            m.serialize_entry("flows", &self.flows)?;
            m.serialize_entry("from", &self.from)?;
        }
        if matches!(self.kind, TrafficKind::WebPool { .. }) {
            m.serialize_entry("users_on", &self.from)?;
        }
        if let Some(servers) = &self.servers {
            m.serialize_entry("servers", servers)?;
        }
        if let Some(clients) = &self.clients {
            m.serialize_entry("clients", clients)?;
        }
        m.serialize_entry("server", &self.server)?;
        m.serialize_entry("client", &self.client)?;
        m.serialize_entry("start", &self.start)?;
        m.end()
    }
}

impl TrafficSpec {
    /// The host user `k` of a web group sits on: (side, index on that side).
    pub fn user_host(&self, k: u32, servers: u32, clients: u32) -> (Side, u32) {
        let (s, c) = self.hosts_of(k, servers, clients);
        match self.from {
            Side::Servers => (Side::Servers, s),
            Side::Clients => (Side::Clients, c),
        }
    }

    /// The (server, client) host indices of flow `k` among `servers` and `clients` hosts.
    pub fn hosts_of(&self, k: u32, servers: u32, clients: u32) -> (u32, u32) {
        ((self.server + k) % servers, (self.client + k) % clients)
    }

    /// The group's (servers, clients) as node ids: its own, or `default`, the topology's.
    pub fn sides<'a>(&'a self, default: (&'a [u32], &'a [u32])) -> (&'a [u32], &'a [u32]) {
        (
            self.servers.as_ref().map_or(default.0, |h| &h.nodes),
            self.clients.as_ref().map_or(default.1, |h| &h.nodes),
        )
    }

    /// The (server, client) node ids of flow `k` ([`Self::sides`] with `default`).
    pub fn flow_hosts(&self, k: u32, default: (&[u32], &[u32])) -> (u32, u32) {
        let (servers, clients) = self.sides(default);
        let (s, c) = self.hosts_of(k, servers.len() as u32, clients.len() as u32);
        (servers[s as usize], clients[c as usize])
    }
}

/// The kinds of traffic and their own parameters.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum TrafficKind {
    /// Constant bit rate; `jitter` is ns-2's `random_` (each gap × U(0.5, 1.5)).
    Cbr {
        size: Dist,
        rate: Rate,
        stop: Time,
        jitter: bool,
    },
    /// Exponential gaps.
    Poisson { size: Dist, rate: Rate, stop: Time },
    /// ns-2 `Application/Traffic/Pareto` ON/OFF (docs/models/ns2.md §4): ON times drawn from
    /// `burst`, OFF times from `idle`; a bare duration is the mean of a Pareto of the group's
    /// `shape`.
    Pareto {
        size: Dist,
        rate: Rate,
        stop: Time,
        burst: Dist,
        idle: Dist,
        shape: f64,
    },
    /// TCP bulk transfer (FTP): open, send `size` bytes (or forever), close.
    Ftp {
        size: Transfer,
        trace: bool,
        tcp: TcpConfig,
    },
    /// Zhang & Qiu's web sessions: `size` bytes, then a think time (by default uniform on
    /// [think_min, think_max]) once they are acknowledged, over one long-lived connection.
    #[serde(rename = "web-session")]
    WebSession {
        size: Dist,
        #[serde(flatten)]
        think: SessionThink,
        tcp: TcpConfig,
    },
    /// Telnet over TCP: `size` bytes per event, events `interval` apart.
    Telnet {
        size: Dist,
        interval: TelnetInterval,
        tcp: TcpConfig,
    },
    /// ns-2-style HTTP clients on a page pool (Eddy & Allman §5): `request`-byte requests, one
    /// object per page of exponential size with mean `page_mean`, exponential pauses with mean
    /// `think_mean` between a response and the next request; `peer` chooses whom a user asks,
    /// `connections` how requests and replies travel.
    #[serde(rename = "web-pool")]
    WebPool {
        request: Dist,
        page_mean: Dist,
        think_mean: Dist,
        peer: Peer,
        #[serde(flatten)]
        connections: PoolConnections,
        tcp: TcpConfig,
    },
    /// Mah's HTTP/1.0 browsing users (`traffic/web.rs`): user u browses from client machine
    /// `(client + u) mod clients`.
    #[serde(rename = "web-mah")]
    WebMah {
        max_conns: u32,
        #[serde(flatten)]
        pages: MahSpec,
        tcp: TcpConfig,
    },
}

/// Which host across the bottleneck a `web-pool` user requests from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Peer {
    /// A host chosen uniformly for each request.
    Any,
    /// Always the host of the same index across (`i mod n`): ns-2 `Http` clients are each
    /// started on one server, and Eddy & Allman's §6.3 counts "client/server pairs".
    Paired,
}

/// How a `web-pool` group's requests and replies travel.
#[derive(Clone, Debug, PartialEq)]
pub enum PoolConnections {
    /// A connection per request/response pair: three-way handshake, request, reply, FINs.
    PerRequest,
    /// ns-2's `Http/Client` and `Http/Server` on FullTcp as they behave (`sim/apps/http.rs`): one
    /// persistent connection per user, replies on the first connection between the two hosts,
    /// each server's page size drawn once per page version; a version lasts a time drawn from
    /// `page_age` (`None`: for ever).
    Ns2Http { page_age: Option<Dist> },
}

impl Serialize for PoolConnections {
    /// Nothing for the default, `"per-request"` (so scenarios from before the key resolve, and
    /// hash, as they did); `connections = "ns2-http"` with its `page_age` (`"never"` or a
    /// distribution).
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            PoolConnections::PerRequest => {}
            PoolConnections::Ns2Http { page_age } => {
                m.serialize_entry("connections", "ns2-http")?;
                match page_age {
                    Some(d) => m.serialize_entry("page_age", d)?,
                    None => m.serialize_entry("page_age", "never")?,
                }
            }
        }
        m.end()
    }
}

/// What a UDP source needs from its group.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UdpParams<'a> {
    /// Packet sizes (bytes); the rate is a mean over their mean.
    pub size: &'a Dist,
    pub rate: Rate,
    pub stop: Time,
}

impl TrafficKind {
    pub fn name(&self) -> &'static str {
        match self {
            TrafficKind::Cbr { .. } => "cbr",
            TrafficKind::Poisson { .. } => "poisson",
            TrafficKind::Pareto { .. } => "pareto",
            TrafficKind::Ftp { .. } => "ftp",
            TrafficKind::WebMah { .. } => "web-mah",
            TrafficKind::WebPool { .. } => "web-pool",
            TrafficKind::WebSession { .. } => "web-session",
            TrafficKind::Telnet { .. } => "telnet",
        }
    }

    /// The `tcp` table of a TCP kind; `None` for UDP kinds.
    pub fn tcp(&self) -> Option<&TcpConfig> {
        match self {
            TrafficKind::Ftp { tcp, .. }
            | TrafficKind::WebMah { tcp, .. }
            | TrafficKind::WebPool { tcp, .. }
            | TrafficKind::WebSession { tcp, .. }
            | TrafficKind::Telnet { tcp, .. } => Some(tcp),
            TrafficKind::Cbr { .. } | TrafficKind::Poisson { .. } | TrafficKind::Pareto { .. } => {
                None
            }
        }
    }

    /// Packet size, rate and stop time of a UDP kind; `None` for TCP kinds.
    pub fn udp(&self) -> Option<UdpParams<'_>> {
        match self {
            TrafficKind::Cbr {
                size, rate, stop, ..
            }
            | TrafficKind::Poisson { size, rate, stop }
            | TrafficKind::Pareto {
                size, rate, stop, ..
            } => Some(UdpParams {
                size,
                rate: *rate,
                stop: *stop,
            }),
            TrafficKind::Ftp { .. }
            | TrafficKind::WebMah { .. }
            | TrafficKind::WebPool { .. }
            | TrafficKind::WebSession { .. }
            | TrafficKind::Telnet { .. } => None,
        }
    }
}
