//! The applications of a run: the UDP sources and sinks, the web users (`web.rs`, and `http.rs`
//! for `ns2-http` connections) and the session applications (`session.rs`, web sessions and
//! telnet). They say what the TCP endpoints write and when; the parts below them are lent to them
//! for each event ([`Below`]).

use super::measurement::Measurement;
use super::network::Network;
use super::plan::{endpoints, flow_start};
use super::tcp::{add_tcp_group, TcpTraffic};
use crate::event::{Event, EventQueue};
use crate::network::Topo;
use crate::packet::{Packet, PacketId, Segment};
use crate::scenario::Scenario;
use crate::traffic::config::{Peer, TrafficKind, Transfer};
use crate::traffic::session::{SessionApp, Tcplib};
use crate::traffic::udp::{UdpSink, UdpSource};
use crate::traffic::web::{Fetch, MahModel, PageModel, PoolModel, WebUser};
use crate::traffic::Connection;
use crate::units::Time;

mod http;
mod session;
mod web;

pub use web::web_scripts;
pub(crate) use web::WebGroup;
pub use web::{PageScript, UserScript};

/// What the outputs say about a UDP flow.
#[derive(Clone, Debug)]
pub struct FlowInfo {
    pub group: String,
    pub index: u32,
    pub kind: &'static str,
    pub src: u32,
    pub dst: u32,
}

/// The parts below the applications, lent to them while they handle an event: the event queue,
/// the connections they open and write to, the network their UDP packets go into, and the tables
/// their requests are logged in.
pub(super) struct Below<'a> {
    pub events: &'a mut EventQueue,
    pub tcp: &'a mut TcpTraffic,
    pub network: &'a mut Network,
    pub measure: &'a mut Measurement,
}

/// A web traffic group waiting for its users ([`Apps::add_web_users`]): its position among the
/// traffic groups, its connections per user, its page model and its TCP configuration.
pub(super) type PendingWebGroup = (usize, u32, PageModel, u32);

/// The applications and what they keep.
pub(crate) struct Apps {
    /// What they read of the scenario: each traffic group's kind, the seed and the warm-up's end.
    kinds: Vec<TrafficKind>,
    seed: u64,
    warmup: Time,
    sources: Vec<UdpSource>,
    sinks: Vec<UdpSink>,
    pub flows: Vec<FlowInfo>,
    // --- web users ---
    pub web_groups: Vec<WebGroup>,
    /// Per node: the TCP configuration a host with `web-pool` users answers requests with.
    web_host_cfg: Vec<Option<u32>>,
    pub users: Vec<WebUser>,
    /// Requests a user wants opened (reused).
    fetches: Vec<Fetch>,
    /// `web-pool` users under `connections = "ns2-http"` (`http.rs`).
    http: http::HttpState,
    /// The tcplib telnet table, loaded if a telnet group needs it.
    tcplib: Option<Tcplib>,
}

impl Apps {
    /// The traffic of `scenario` on `topo`: every group's TCP configuration, connections (their
    /// opening scheduled on `events`) and UDP sources (their first packets scheduled), in the
    /// order of the groups. Web groups get their users later, once the network is built
    /// ([`Apps::add_web_users`]): returned.
    pub fn new(
        scenario: &Scenario,
        topo: &Topo,
        events: &mut EventQueue,
        tcp: &mut TcpTraffic,
    ) -> (Apps, Vec<PendingWebGroup>) {
        let seed = scenario.seed;
        let (mut flows, mut sources) = (Vec::new(), Vec::new());
        let (conns, tcp_cfgs) = (&mut tcp.conns.all, &mut tcp.conns.cfgs);
        let mut web_groups = Vec::new();
        for (g, spec) in scenario.traffic.iter().enumerate() {
            match &spec.kind {
                TrafficKind::WebMah {
                    max_conns,
                    pages,
                    tcp,
                } => {
                    tcp_cfgs.push(tcp.clone());
                    let model = PageModel::Mah(Box::new(MahModel::new(pages)));
                    web_groups.push((g, *max_conns, model, (tcp_cfgs.len() - 1) as u32));
                }
                TrafficKind::WebPool {
                    request,
                    page_mean,
                    think_mean,
                    peer,
                    connections,
                    tcp,
                } => {
                    tcp_cfgs.push(tcp.clone());
                    let model = PageModel::Pool(Box::new(PoolModel {
                        request: request.clone(),
                        page: page_mean.clone(),
                        think: think_mean.clone(),
                        paired: *peer == Peer::Paired,
                        connections: connections.clone(),
                    }));
                    web_groups.push((g, 1, model, (tcp_cfgs.len() - 1) as u32));
                }
                TrafficKind::Ftp { size, trace, tcp } => {
                    tcp_cfgs.push(tcp.clone());
                    let cfg = (tcp_cfgs.len() - 1) as u32;
                    add_tcp_group(
                        topo,
                        spec,
                        seed,
                        conns,
                        events,
                        &|k, hosts, phases, sender, mut rng| {
                            // Each connection's size is drawn once (a constant draws nothing).
                            let bytes = match size {
                                Transfer::Unlimited => None,
                                Transfer::Bytes(b) => Some(b.sample_whole(&mut rng, 0)),
                            };
                            Connection::bulk(
                                g as u32, k, cfg, tcp, hosts, phases, sender, bytes, *trace, rng,
                            )
                        },
                    );
                }
                TrafficKind::WebSession { tcp, .. } | TrafficKind::Telnet { tcp, .. } => {
                    tcp_cfgs.push(tcp.clone());
                    let cfg = (tcp_cfgs.len() - 1) as u32;
                    let app = SessionApp::of(&spec.kind);
                    add_tcp_group(
                        topo,
                        spec,
                        seed,
                        conns,
                        events,
                        &|k, hosts, phases, sender, mut rng| {
                            let first = app.initial_write(&spec.kind, &mut rng);
                            Connection::session(
                                g as u32, k, cfg, tcp, hosts, phases, sender, app, first, rng,
                            )
                        },
                    );
                }
                kind => {
                    for k in 0..spec.flows {
                        let (src, dst) = endpoints(topo, spec, k);
                        let flow = flows.len() as u32;
                        let (rng, start) = flow_start(spec, seed, k);
                        let mut source = UdpSource::new(flow, kind, start, rng);
                        let first = source.first_departure(start);
                        if first < source.stop {
                            events.schedule(
                                first,
                                Event::Source {
                                    source: sources.len() as u32,
                                },
                            );
                        }
                        sources.push(source);
                        flows.push(FlowInfo {
                            group: spec.name.clone(),
                            index: k,
                            kind: kind.name(),
                            src,
                            dst,
                        });
                    }
                }
            }
        }
        let n_flows = flows.len();
        let telnet = scenario
            .traffic
            .iter()
            .any(|t| matches!(t.kind, TrafficKind::Telnet { .. }));
        let apps = Apps {
            kinds: scenario.traffic.iter().map(|t| t.kind.clone()).collect(),
            seed,
            warmup: scenario.warmup,
            sources,
            sinks: vec![UdpSink::default(); n_flows],
            flows,
            web_groups: Vec::new(),
            web_host_cfg: vec![None; topo.net.hosts as usize],
            users: Vec::new(),
            fetches: Vec::with_capacity(16),
            http: http::HttpState::default(),
            tcplib: telnet.then(Tcplib::load),
        };
        (apps, web_groups)
    }

    /// UDP source `s` sends its next packet at `now`, into `network`.
    pub fn source_fires(
        &mut self,
        s: u32,
        now: Time,
        events: &mut EventQueue,
        tcp: &mut TcpTraffic,
        network: &mut Network,
    ) {
        let src = &mut self.sources[s as usize];
        let flow = src.flow;
        let info = &self.flows[flow as usize];
        let (from, to) = (info.src, info.dst);
        let size = src.next_size();
        let pkt = network.packets.alloc(Packet {
            flow,
            size,
            seg: Segment {
                seq: src.take_seq(),
                ..Segment::default()
            },
            src: from,
            dst: to,
            sent_at: now,
            ..Packet::default()
        });
        let c = &mut network.udp[flow as usize];
        c.sent_pkts += 1;
        c.sent_bytes += u64::from(size);
        let next = src.next_departure(now);
        if next < src.stop {
            events.schedule(next, Event::Source { source: s });
        }
        network.send(from, to, pkt, now, events, &mut tcp.conns);
    }

    /// UDP packet `pkt` reaches its sink at `now`: it is counted (in `network`'s counters of its
    /// flow) and freed.
    pub fn udp_arrives(&mut self, pkt: PacketId, now: Time, network: &mut Network) {
        let p = network.packets.take(pkt);
        let c = &mut network.udp[p.flow as usize];
        self.sinks[p.flow as usize].receive(p.seg.seq, p.size, c);
        c.delay_ns += u128::from((now - p.sent_at).0);
    }

    /// After a segment reached side `side` of connection `c` at `now`: its application reacts
    /// (a web pair's server answers, a web session starts thinking, an `ns2-http` server replies).
    pub(super) fn progress(&mut self, c: u32, side: usize, now: Time, b: &mut Below) {
        self.web_progress(c, side, now, b.tcp);
        self.session_progress(c, side, now, b.events, b.tcp);
        self.http_progress(c, side, now, b);
    }

    /// Rows for the requests still in progress or unanswered when the run ends.
    pub fn log_unfinished(&mut self, tcp: &TcpTraffic, measure: &mut Measurement) {
        self.log_unfinished_requests(tcp, measure);
        self.log_unanswered_http(measure);
    }
}
