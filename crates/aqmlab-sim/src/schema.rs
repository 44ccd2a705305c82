//! The output tables' columns, declared once: name, type, unit and meaning of every column of every
//! table a run reports. The report builds its tables in this order (checked by a test below); the
//! Python front derives its Arrow types from it (`_native.schema()`), and a Python test checks that
//! the output documentation (`docs/scenario.md`, "Outputs") lists exactly these columns, types,
//! units and meanings.

use serde::Serialize;

/// A column's type: 64-bit float or integer, boolean flag, or categorical string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColumnType {
    F64,
    I64,
    Bool,
    Cat,
}

/// One column: its name, type, unit ("" for none; "1" for a fraction) and a one-line meaning
/// (Markdown, as the documentation shows it).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ColumnSpec {
    pub name: &'static str,
    #[serde(rename = "type")]
    pub ty: ColumnType,
    pub unit: &'static str,
    pub meaning: &'static str,
}

/// One table and its columns, in order.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TableSpec {
    pub name: &'static str,
    pub columns: &'static [ColumnSpec],
}

use ColumnType::{Bool, Cat, F64, I64};

const fn c(
    name: &'static str,
    ty: ColumnType,
    unit: &'static str,
    meaning: &'static str,
) -> ColumnSpec {
    ColumnSpec {
        name,
        ty,
        unit,
        meaning,
    }
}

/// Every table a run reports, in the report's order.
pub const TABLES: &[TableSpec] = &[
    TableSpec {
        name: "queue",
        columns: &[
            c("t_s", F64, "s", "start of the interval"),
            c(
                "direction",
                Cat,
                "",
                "the logged link direction's name: on the dumbbell `forward` (`[queue]`, R1 → R2) or `reverse` (`[reverse_queue]`, R2 → R1)",
            ),
            c("samples", I64, "", "samples in the interval"),
            c(
                "mean_pkts",
                F64,
                "pkt",
                "mean of the sampled queue length (not counting the packet in transmission)",
            ),
            c("var_pkts", F64, "pkt²", "variance of the samples"),
            c("min_pkts", I64, "pkt", "smallest sample"),
            c("max_pkts", I64, "pkt", "largest sample"),
            c(
                "mean_bytes",
                F64,
                "B",
                "mean of the sampled queue length in bytes",
            ),
            c("var_bytes", F64, "B²", "variance of the samples in bytes"),
            c("min_bytes", I64, "B", "smallest sample in bytes"),
            c("max_bytes", I64, "B", "largest sample in bytes"),
            c(
                "red_avg",
                F64,
                "pkt or B",
                "`red` queues: the mean over the interval's samples of RED's average queue `avg`, \
                 in the queue's unit (packets, or bytes with `queue_in_bytes`); `NaN` for other \
                 queues",
            ),
            c(
                "red_max_p",
                F64,
                "1",
                "`red` queues: max_p at the interval's last sample (it moves only under Adaptive \
                 RED); `NaN` for other queues",
            ),
            c(
                "arrivals_pkts",
                I64,
                "pkt",
                "packets that arrived at the queue in the interval (accepted, marked or dropped)",
            ),
            c(
                "drops_pkts",
                I64,
                "pkt",
                "packets the queue dropped in the interval, every reason (`drops_pkts_by_reason`)",
            ),
            c(
                "forced_drops_pkts",
                I64,
                "pkt",
                "of `drops_pkts`, those no AQM chose: RED's average in its forced region or the \
                 queue at its physical limit (reasons `forced` and `overflow`)",
            ),
            c(
                "drops_bytes",
                I64,
                "B",
                "IP bytes of the packets counted in `drops_pkts` (a drop-front victim's own size)",
            ),
            c(
                "marks_pkts",
                I64,
                "pkt",
                "packets the queue let through marked CE (ECN) in the interval",
            ),
            c(
                "marks_bytes",
                I64,
                "B",
                "IP bytes of the packets counted in `marks_pkts`",
            ),
            c(
                "departures_pkts",
                I64,
                "pkt",
                "packets that left the queue for the link in the interval (not the ones an AQM \
                 dropped at dequeue)",
            ),
            c(
                "mean_sojourn_s",
                F64,
                "s",
                "mean sojourn time of the packets counted in `departures_pkts`, from entering the queue \
                 to leaving it (every discipline); `NaN` if none left",
            ),
            c(
                "max_sojourn_s",
                F64,
                "s",
                "largest sojourn time of those packets; `NaN` if none left",
            ),
            c(
                "codel_dropping",
                F64,
                "",
                "`codel`: the fraction of the interval's samples taken in CoDel's dropping state; \
                 `fq_codel`: the mean over the samples of the number of flow queues in it; `NaN` \
                 for other queues",
            ),
            c(
                "pie_prob",
                F64,
                "1",
                "`pie` queues: the mean over the interval's samples of PIE's drop probability; \
                 `NaN` for other queues",
            ),
        ],
    },
    TableSpec {
        name: "link",
        columns: &[
            c("t_s", F64, "s", "start of the interval"),
            c(
                "direction",
                Cat,
                "",
                "the logged link direction's name: `forward` or `reverse` on the dumbbell",
            ),
            c(
                "bytes",
                I64,
                "B",
                "bytes that finished transmission on the link in the interval",
            ),
            c("pkts", I64, "pkt", "packets that finished transmission"),
            c(
                "throughput_bps",
                F64,
                "bit/s",
                "IP bits sent in the interval per second, each packet's bits spread evenly over its transmission time",
            ),
            c("utilization", F64, "1", "`throughput_bps / rate` (at most 1)"),
        ],
    },
    TableSpec {
        name: "flows",
        columns: &[
            c(
                "flow",
                I64,
                "",
                "number of the UDP flow, 0, 1, … in group order",
            ),
            c("group", Cat, "", "its traffic group's `name`"),
            c("index", I64, "", "its number `k` within the group"),
            c("kind", Cat, "", "`cbr`, `poisson` or `pareto`"),
            c(
                "src",
                Cat,
                "",
                "sending host: `s0`, `s1`, … (servers) or `c0`, `c1`, … (clients)",
            ),
            c("dst", Cat, "", "receiving host"),
            c("sent_pkts", I64, "pkt", "packets sent"),
            c("sent_bytes", I64, "B", "bytes sent"),
            c("recv_pkts", I64, "pkt", "packets received by the sink"),
            c("recv_bytes", I64, "B", "bytes received"),
            c(
                "lost_pkts",
                I64,
                "pkt",
                "gaps in the sequence numbers the sink saw (loss as a receiver measures it)",
            ),
            c(
                "dropped_pkts",
                I64,
                "pkt",
                "packets dropped in the network (any queue)",
            ),
            c(
                "loss_rate",
                F64,
                "1",
                "`lost_pkts / (recv_pkts + lost_pkts)`, 0 if both are 0",
            ),
            c(
                "mean_delay_s",
                F64,
                "s",
                "mean one-way delay of the packets received, 0 if none",
            ),
            c(
                "throughput_bps",
                F64,
                "bit/s",
                "`8 · recv_bytes / measured time`",
            ),
        ],
    },
    TableSpec {
        name: "hops",
        columns: &[
            c(
                "flow",
                I64,
                "",
                "the UDP flow (`flow` in `flows`); −1 on a TCP connection's rows",
            ),
            c(
                "conn",
                I64,
                "",
                "the TCP connection (`conn` in `connections`); −1 on a UDP flow's rows",
            ),
            c("group", Cat, "", "its traffic group's `name`"),
            c("index", I64, "", "its number `k` within the group"),
            c(
                "path",
                Cat,
                "",
                "`data`: the path from the data sender (`sender` in `connections`) to the \
                 receiver, which its data segments, handshake segments and FIN take; `ack`: the \
                 way back, which the receiver's ACKs (and anything else it sends) take; a UDP \
                 flow's rows are `data`",
            ),
            c(
                "hop",
                I64,
                "",
                "the link's place on the path: 0 leaves the sending host",
            ),
            c(
                "link",
                Cat,
                "",
                "the link direction's name (`s0.up`, `forward`, `c0.down` on the dumbbell)",
            ),
            c(
                "drops_pkts",
                I64,
                "pkt",
                "the packets of the flow (of the connection, going this way) this link's queue \
                 dropped",
            ),
        ],
    },
    TableSpec {
        name: "connections",
        columns: &[
            c(
                "conn",
                I64,
                "",
                "number of the connection, 0, 1, … in group order",
            ),
            c("group", Cat, "", "its traffic group's `name`"),
            c("index", I64, "", "its number `k` within the group"),
            c(
                "client",
                Cat,
                "",
                "the client host (`c0`, …), which opens the connection with a three-way handshake",
            ),
            c("server", Cat, "", "the server host (`s0`, …)"),
            c(
                "sender",
                Cat,
                "",
                "which end sends the data: `server` (`from = \"servers\"`) or `client`",
            ),
            c(
                "profile",
                Cat,
                "",
                "the TCP profile its settings started from",
            ),
            c("variant", Cat, "", "`reno`, `newreno` or `sack`"),
            c(
                "start_s",
                F64,
                "s",
                "when the client opened it; `NaN` if its start lies beyond the run",
            ),
            c(
                "established_s",
                F64,
                "s",
                "when the end that sent the SYN (the client; with `ns2-syn` the data sender) \
                 reached ESTABLISHED (with `handshake = \"none\"`: `start_s`); `NaN` if never",
            ),
            c(
                "end_s",
                F64,
                "s",
                "when it completed or failed; `NaN` while `open`",
            ),
            c(
                "outcome",
                Cat,
                "",
                "`completed` (both FINs sent and acknowledged; without FINs — `ns2-syn`, `none` — \
                 all data acknowledged), `failed` (not established within `connect_timeout`, or \
                 gave up after `max_retries`), or `open` (still running at the end of the run, or \
                 never started)",
            ),
            c(
                "bytes",
                I64,
                "B",
                "data bytes delivered in order to the receiving application in the measured \
                 window",
            ),
            c(
                "bytes_whole_run",
                I64,
                "B",
                "the same over the whole run, warm-up included; equals the transfer `size` when \
                 `completed`",
            ),
            c(
                "goodput_bps",
                F64,
                "bit/s",
                "`8 · bytes / measured time` (the whole measured window, not the connection's \
                 lifetime)",
            ),
            c(
                "transfer_s",
                F64,
                "s",
                "time in the measured window the application had data to deliver: a bulk \
                 transfer from its start to its completion; a web session's transfers, each from \
                 its write (the first from the connection's start, handshake included) to the ACK \
                 of its last byte, think times left out; NaN for telnet",
            ),
            c(
                "transfer_goodput_bps",
                F64,
                "bit/s",
                "goodput while transferring: `8 · bytes / transfer_s` (Zhang & Qiu tie a web \
                 session's goodput to its completion time); NaN when `transfer_s` is 0 or NaN",
            ),
            c(
                "data_segs",
                I64,
                "segment",
                "data segments the sender transmitted, retransmissions included",
            ),
            c(
                "data_rexmits",
                I64,
                "segment",
                "data segments transmitted again",
            ),
            c(
                "syn_rexmits",
                I64,
                "segment",
                "SYNs and SYN-ACKs transmitted again",
            ),
            c(
                "fin_rexmits",
                I64,
                "segment",
                "FIN segments without data transmitted again (a retransmitted data segment that \
                 carries the FIN counts in `data_rexmits`)",
            ),
            c("timeouts", I64, "", "retransmission timer expiries"),
            c(
                "fast_rexmits",
                I64,
                "",
                "fast retransmits (entries into fast recovery)",
            ),
            c(
                "ecn_reductions",
                I64,
                "",
                "window reductions in response to ECN-Echo",
            ),
            c(
                "recoveries",
                I64,
                "",
                "fast recoveries that ended with an ACK (not a timeout)",
            ),
            c(
                "mean_recovery_s",
                F64,
                "s",
                "mean time those took, from the fast retransmit to the ACK that ended recovery; \
                 NaN if none",
            ),
            c(
                "mean_t0_s",
                F64,
                "s",
                "mean length of the timeouts that expired before any backoff (the T0 of Padhye et \
                 al.'s throughput formula, docs/models/validation.md §1.2); NaN if none",
            ),
            c(
                "sent_pkts",
                I64,
                "pkt",
                "packets of the connection put on the wire, both directions (data, ACKs, SYNs, \
                 FINs)",
            ),
            c(
                "dropped_pkts",
                I64,
                "pkt",
                "of those, packets dropped in the network (any queue)",
            ),
            c(
                "srtt_s",
                F64,
                "s",
                "the data sender's smoothed RTT at the end of the run; `NaN` without a sample. \
                 With a tick-based `rto` style it has the tick's resolution",
            ),
            c(
                "cwnd_bytes",
                F64,
                "B",
                "the data sender's congestion window at the end of the run (it may exceed `rwnd`; \
                 the sender uses `min(cwnd, rwnd)`)",
            ),
        ],
    },
    TableSpec {
        name: "tcp_trace",
        columns: &[
            c("t_s", F64, "s", "when the segment arrived"),
            c("conn", I64, "", "the connection (`conn` in `connections`)"),
            c(
                "cwnd_bytes",
                F64,
                "B",
                "congestion window after processing it",
            ),
            c(
                "ssthresh_bytes",
                F64,
                "B",
                "slow-start threshold; `inf` before the first reduction (RFC 5681: \"arbitrarily \
                 high\")",
            ),
            c(
                "srtt_s",
                F64,
                "s",
                "smoothed RTT; `NaN` before the first sample",
            ),
            c(
                "rto_s",
                F64,
                "s",
                "the retransmission timeout now in force, backoff included",
            ),
        ],
    },
    TableSpec {
        name: "requests",
        columns: &[
            c("group", Cat, "", "its traffic group's `name`"),
            c(
                "user",
                I64,
                "",
                "the user, numbered across all web groups from 0",
            ),
            c("client", Cat, "", "the client host (`c0`, …)"),
            c("server", Cat, "", "the server host (`s0`, …)"),
            c("page", I64, "", "the user's page number, from 1"),
            c(
                "object",
                I64,
                "",
                "the object within the page: 0 is the primary object, then the embedded ones",
            ),
            c(
                "start_s",
                F64,
                "s",
                "when the client opened the connection (its `connect()`: the first SYN)",
            ),
            c(
                "end_s",
                F64,
                "s",
                "when the client held the whole reply and the server's FIN; `NaN` if not \
                 completed",
            ),
            c(
                "response_s",
                F64,
                "s",
                "`end_s − start_s`, the response time of Christiansen et al. §3.2; `NaN` if not \
                 completed",
            ),
            c("request_bytes", I64, "B", "request size"),
            c("reply_bytes", I64, "B", "reply size"),
            c(
                "completed",
                Bool,
                "",
                "true if the reply and the FIN arrived",
            ),
            c(
                "failed",
                Bool,
                "",
                "true if the connection failed first (not established within `connect_timeout`, \
                 or gave up after `max_retries`); a pair neither completed nor failed was still \
                 in progress at the end",
            ),
            c(
                "syn_rexmits",
                I64,
                "segment",
                "SYNs and SYN-ACKs transmitted again",
            ),
            c(
                "fin_rexmits",
                I64,
                "segment",
                "FIN segments without data transmitted again (a retransmitted data segment that \
                 carries the FIN counts in `data_rexmits`)",
            ),
            c(
                "data_rexmits",
                I64,
                "segment",
                "data segments transmitted again (request and reply)",
            ),
            c(
                "timeouts",
                I64,
                "",
                "retransmission timer expiries, both ends",
            ),
        ],
    },
];

/// The declared table of that name.
pub fn table(name: &str) -> Option<&'static TableSpec> {
    TABLES.iter().find(|t| t.name == name)
}

/// Bytes one row of table `name` takes as the engine reports it: 8 per number, 1 per flag and 32
/// per category (a string's header and a short text). What `limits.max_table_memory` counts.
pub fn row_bytes(name: &str) -> u64 {
    let table = table(name).expect("a table of the schema");
    table
        .columns
        .iter()
        .map(|c| match c.ty {
            F64 | I64 => 8,
            Bool => 1,
            Cat => 32,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn names_are_unique_and_every_column_has_a_one_line_meaning() {
        for t in TABLES {
            let mut names: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), t.columns.len(), "{}", t.name);
            for c in t.columns {
                assert!(
                    !c.meaning.is_empty() && !c.meaning.contains(['\n', '|']),
                    "{}.{}: one line, no table bars",
                    t.name,
                    c.name
                );
            }
        }
    }
}
