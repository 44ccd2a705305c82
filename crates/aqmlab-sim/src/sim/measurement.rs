//! What a run measures beyond the links' and connections' own counters: the snapshot of every
//! counter taken when the warm-up ends (reports use differences from it), and the tables that grow
//! with the run (the TCP trace and the web requests), with the check of the run's `[limits]`
//! against what it has used.

use crate::measure::{AtWarmup, ThroughputBins};
use crate::network::Link;
use crate::packet::{PacketArena, Proto};
use crate::scenario::{Scenario, ScenarioError};
use crate::traffic::udp::FlowCounters;
use crate::traffic::{ConnCounts, Connection};
use crate::units::Time;
use std::time::Duration;

/// One row of the optional TCP trace: the data sender's state after an ACK.
#[derive(Clone, Copy, Debug)]
pub struct TraceRow {
    pub t: Time,
    pub conn: u32,
    pub cwnd: f64,
    pub ssthresh: f64,
    pub srtt_s: f64,
    pub rto: Time,
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

/// Tables smaller than this are not checked against the memory available (reading it costs
/// a file read; a run's tables are checked every few thousand events).
const TABLES_CHECKED_AGAINST_MEMORY: u128 = 256 << 20;

/// The memory the machine has available now, bytes (Linux `MemAvailable`), if known.
fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The warm-up snapshot and the growing tables.
#[derive(Debug, Default)]
pub(crate) struct Measurement {
    /// Each UDP flow's and each link's counters as the warm-up ended (all zero until then).
    pub flows_at_warmup: Vec<FlowCounters>,
    pub links_at_warmup: Vec<AtWarmup>,
    /// Each connection's counters as the warm-up ended, and its packets in the network then
    /// (counted by scanning the packet arena), for the measured window's counters and identities.
    pub conns_at_warmup: Vec<ConnCounts>,
    pub conns_in_flight_at_warmup: Vec<u64>,
    /// The `tcp_trace` table's rows.
    pub trace: Vec<TraceRow>,
    /// The `requests` table's rows.
    pub requests: Vec<RequestRow>,
}

impl Measurement {
    /// Room for the snapshot of `flows` UDP flows, `links` links and `conns` connections.
    pub fn new(flows: usize, links: usize, conns: usize) -> Measurement {
        Measurement {
            flows_at_warmup: vec![FlowCounters::default(); flows],
            links_at_warmup: vec![AtWarmup::default(); links],
            conns_at_warmup: vec![ConnCounts::default(); conns],
            conns_in_flight_at_warmup: vec![0; conns],
            trace: Vec::new(),
            requests: Vec::new(),
        }
    }

    /// A connection was added in a new slot (its snapshot is zero until the warm-up ends).
    pub fn add_connection(&mut self) {
        self.conns_at_warmup.push(ConnCounts::default());
        self.conns_in_flight_at_warmup.push(0);
    }

    /// The warm-up ends at `now`: take the snapshot of the links (their transmissions finished
    /// up to `now`), the UDP flows' counters and the connections with their packets in flight.
    pub fn warmup_ends(
        &mut self,
        now: Time,
        links: &mut [Link],
        packets: &PacketArena,
        flows: &[FlowCounters],
        conns: &[Connection],
    ) {
        for (i, link) in links.iter_mut().enumerate() {
            let in_tx_size = link.in_tx.map(|pkt| packets.get(pkt).size);
            self.links_at_warmup[i] = link.at_warmup(now, in_tx_size);
        }
        self.flows_at_warmup.clone_from_slice(flows);
        self.conns_at_warmup = conns.iter().map(|c| c.counts(now)).collect();
        self.conns_in_flight_at_warmup = packets.live_per_flow(Proto::Tcp, conns.len());
    }

    /// `s`'s `[limits]` against what the run has used: `processed` events and `wall` time, up to
    /// `now`, and its tables' size ([`Self::check_tables`]).
    pub(super) fn check_limits(
        &self,
        s: &Scenario,
        processed: u64,
        wall: Duration,
        now: Time,
    ) -> Result<(), ScenarioError> {
        let limits = &s.limits;
        let at = || format!("at {now} of simulated time");
        if let Some(max) = limits.max_events {
            if processed >= max {
                return Err(ScenarioError::new(
                    "limits.max_events",
                    format!(
                        "the run reached its limit of {max} events {}; raise limits.max_events \
                         to let it go on",
                        at()
                    ),
                ));
            }
        }
        if let Some(max) = limits.max_wall {
            if wall.as_nanos() > u128::from(max.0) {
                return Err(ScenarioError::new(
                    "limits.max_wall",
                    format!(
                        "the run took longer than its limit of {max} wall-clock time ({processed} \
                         events, {}); raise limits.max_wall to let it go on",
                        at()
                    ),
                ));
            }
        }
        self.check_tables(s, processed, now)
    }

    /// The output tables' size against `s.limits.max_table_memory` (`processed` events run, up to
    /// `now`), and against the memory the machine has available when they pass
    /// [`TABLES_CHECKED_AGAINST_MEMORY`]. The `queue` and `link` tables have a row per interval of
    /// the measured period and direction, known from the start (so a run that cannot fit them
    /// fails at once); the `tcp_trace` and `requests` tables grow with the run.
    pub(super) fn check_tables(
        &self,
        s: &Scenario,
        processed: u64,
        now: Time,
    ) -> Result<(), ScenarioError> {
        self.check_tables_against(s, processed, now, available_memory)
    }

    /// [`Self::check_tables`] with the machine's available memory read by `available` (called
    /// only for tables past [`TABLES_CHECKED_AGAINST_MEMORY`]).
    fn check_tables_against(
        &self,
        s: &Scenario,
        processed: u64,
        now: Time,
        available: impl FnOnce() -> Option<u64>,
    ) -> Result<(), ScenarioError> {
        use crate::schema::row_bytes;
        let intervals = |every: Time| 2 * ThroughputBins::intervals(every, s.warmup, s.duration);
        let rows = [
            ("queue", intervals(s.measure.queue_interval)),
            ("link", intervals(s.measure.link_interval)),
            ("tcp_trace", self.trace.len() as u64),
            ("requests", self.requests.len() as u64),
        ];
        let bytes: u128 = rows
            .iter()
            .map(|&(t, n)| u128::from(n) * u128::from(row_bytes(t)))
            .sum();
        let max = s.limits.max_table_memory;
        let counts = || -> String {
            let rows: Vec<String> = rows
                .iter()
                .filter(|r| r.1 > 0)
                .map(|(t, n)| format!("{t} {n}"))
                .collect();
            rows.join(", ")
        };
        if bytes <= u128::from(max.bytes()) {
            // A limit raised past the machine would end in an aborted allocation: tables that
            // need more than the memory available stop the run with an error instead.
            if bytes <= TABLES_CHECKED_AGAINST_MEMORY {
                return Ok(());
            }
            return match available() {
                Some(free) if bytes > u128::from(free) => Err(ScenarioError::new(
                    "limits.max_table_memory",
                    format!(
                        "the output tables would take {:.3}GB (rows: {}), more than the \
                         {:.3}GB of memory this machine has available (its limit, {max}, is \
                         higher); log less often (measure.queue_interval, \
                         measure.link_interval) or run it on a larger machine",
                        bytes as f64 / 1e9,
                        counts(),
                        free as f64 / 1e9
                    ),
                )),
                _ => Ok(()),
            };
        }
        Err(ScenarioError::new(
            "limits.max_table_memory",
            format!(
                "the output tables would take {:.3}GB (rows: {}{}), more than the limit of {max}; \
                 log less often (measure.queue_interval, measure.link_interval) or raise \
                 limits.max_table_memory",
                bytes as f64 / 1e9,
                counts(),
                if processed > 0 {
                    format!(", at {} of simulated time", now)
                } else {
                    String::new()
                }
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(duration: &str, extra: &str) -> Scenario {
        Scenario::from_json(&format!(
            r#"{{"duration": "{duration}", "topology": {{"bottleneck": {{"rate": "1Mbps"}}}}{extra}}}"#
        ))
        .unwrap()
    }

    #[test]
    fn small_tables_never_read_the_machines_memory() {
        let s = scenario("10000s", "");
        let m = Measurement::new(0, 2, 0);
        let read = std::cell::Cell::new(0);
        let available = || {
            read.set(read.get() + 1);
            Some(0)
        };
        assert!(m.check_tables_against(&s, 0, Time(0), available).is_ok());
        assert_eq!(
            read.get(),
            0,
            "tables of a few MB were checked against the memory"
        );
    }

    #[test]
    fn tables_past_the_threshold_are_checked_against_the_memory_available() {
        // 2 directions x 10^8 queue intervals of 10 ms: past 256 MiB, under the raised limit.
        let extra = concat!(
            r#", "measure": {"queue_interval": "10ms"}"#,
            r#", "limits": {"max_table_memory": "1000GB"}"#
        );
        let s = scenario("1000000s", extra);
        let m = Measurement::new(0, 2, 0);
        let err = m
            .check_tables_against(&s, 0, Time(0), || Some(1 << 20))
            .unwrap_err();
        assert_eq!(err.path, "limits.max_table_memory");
        assert!(
            err.message.contains("memory this machine has available"),
            "{}",
            err.message
        );
        assert!(m
            .check_tables_against(&s, 0, Time(0), || Some(1 << 50))
            .is_ok());
        assert!(m.check_tables_against(&s, 0, Time(0), || None).is_ok());
    }
}
