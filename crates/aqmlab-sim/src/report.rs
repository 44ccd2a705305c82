//! What a run reports: the summary (names kept stable for users' scripts) and columnar tables.

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// A column of a table (its declared type is in [`crate::schema`]; strings are categorical).
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    I64(Vec<i64>),
    Bool(Vec<bool>),
    Str(Strings),
}

impl Column {
    /// Its number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::I64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::Str(v) => v.len(),
        }
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A column of strings as a dictionary: each distinct string once, and per row the index of its
/// string. Tables repeat a few names (groups, hosts, directions) over up to millions of rows, so a
/// row costs 4 bytes instead of a string of its own.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Strings {
    /// The distinct strings, in order of first appearance.
    pub labels: Vec<String>,
    /// Per row, its index in `labels`.
    pub codes: Vec<u32>,
}

impl Strings {
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// The string of row `i`.
    pub fn get(&self, i: usize) -> &str {
        &self.labels[self.codes[i] as usize]
    }

    /// The rows' strings, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.codes.iter().map(|&c| self.labels[c as usize].as_str())
    }

    /// The rows' strings as owned strings.
    pub fn to_vec(&self) -> Vec<String> {
        self.iter().map(str::to_string).collect()
    }

    /// One row per item of `rows`, its string `name(row)`, made only for the first row of each
    /// `key` (a small id: a group's index, a node's id): the column that collecting every row's
    /// name would give, as long as rows of one key share their name, without a string made and
    /// looked up per row (tables of requests and connections have millions).
    pub fn keyed<T>(
        rows: impl IntoIterator<Item = T>,
        key: impl Fn(&T) -> u32,
        name: impl Fn(&T) -> String,
    ) -> Strings {
        // Per key, 1 + its code, or 0 until it appears.
        let mut code_of: Vec<u32> = Vec::new();
        let mut out = Strings::default();
        for row in rows {
            let at = key(&row) as usize;
            if at >= code_of.len() {
                code_of.resize(at + 1, 0);
            }
            if code_of[at] == 0 {
                let label = name(&row);
                let code = match out.labels.iter().position(|l| *l == label) {
                    Some(code) => code,
                    None => {
                        out.labels.push(label);
                        out.labels.len() - 1
                    }
                };
                code_of[at] = code as u32 + 1;
            }
            out.codes.push(code_of[at] - 1);
        }
        out
    }
}

impl Strings {
    /// Append `other`'s rows: its labels join this column's dictionary where they are new (in
    /// their order of first appearance), so the rows read back as the same strings.
    pub fn append(&mut self, other: &Strings) {
        let mut index: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        for (code, label) in self.labels.iter().enumerate() {
            index.entry(label.as_str()).or_insert(code as u32);
        }
        let mut new_labels = Vec::new();
        let codes: Vec<u32> = other
            .labels
            .iter()
            .map(|label| match index.get(label.as_str()) {
                Some(&code) => code,
                None => {
                    new_labels.push(label.clone());
                    (self.labels.len() + new_labels.len() - 1) as u32
                }
            })
            .collect();
        self.labels.extend(new_labels);
        self.codes
            .extend(other.codes.iter().map(|&c| codes[c as usize]));
    }
}

impl<S: AsRef<str> + Into<String>> FromIterator<S> for Strings {
    fn from_iter<I: IntoIterator<Item = S>>(rows: I) -> Strings {
        let mut index: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut out = Strings::default();
        for s in rows {
            let code = match index.get(s.as_ref()) {
                Some(&c) => c,
                None => {
                    let c = out.labels.len() as u32;
                    let s: String = s.into();
                    index.insert(s.clone(), c);
                    out.labels.push(s);
                    c
                }
            };
            out.codes.push(code);
        }
        out
    }
}

/// A named table of equal-length columns.
#[derive(Clone, Debug)]
pub struct Table {
    pub name: &'static str,
    pub columns: Vec<(&'static str, Column)>,
}

impl Column {
    /// Append `other`'s rows, a column of the same type; `false` (and nothing appended) if its
    /// type differs.
    pub fn append(&mut self, other: &Column) -> bool {
        match (self, other) {
            (Column::F64(a), Column::F64(b)) => a.extend_from_slice(b),
            (Column::I64(a), Column::I64(b)) => a.extend_from_slice(b),
            (Column::Bool(a), Column::Bool(b)) => a.extend_from_slice(b),
            (Column::Str(a), Column::Str(b)) => a.append(b),
            _ => return false,
        }
        true
    }
}

/// The tables of several runs of one scenario, stacked: each table's rows of every run, in the
/// order the runs were added, and beside them the run each row came from (its position among the
/// runs added). A run store keeps a sweep's short runs so, one set of files for many runs
/// (`aqmlab.store`, "packs").
#[derive(Clone, Debug, Default)]
pub struct Stack {
    /// The tables, as the first run's report names and orders them.
    pub tables: Vec<Table>,
    /// Per table, the run of each row.
    pub runs: Vec<Vec<i64>>,
    /// How many runs were added.
    pub count: i64,
}

impl Stack {
    /// Add a run's tables (a report of the same scenario as the runs already added). Tables or
    /// columns other than the first run's, or of other types, are an error, and nothing is added.
    pub fn push(&mut self, tables: &[Table]) -> Result<(), String> {
        if self.count == 0 {
            self.tables = tables
                .iter()
                .map(|t| Table {
                    name: t.name,
                    columns: t.columns.iter().map(|(n, c)| (*n, empty_like(c))).collect(),
                })
                .collect();
            self.runs = vec![Vec::new(); tables.len()];
        }
        let same_layout = tables.len() == self.tables.len()
            && tables.iter().zip(&self.tables).all(|(t, mine)| {
                t.name == mine.name
                    && t.columns.len() == mine.columns.len()
                    && t.columns.iter().zip(&mine.columns).all(|(a, b)| {
                        a.0 == b.0 && std::mem::discriminant(&a.1) == std::mem::discriminant(&b.1)
                    })
            });
        if !same_layout {
            return Err("a run's tables differ from the first run's (another scenario?)".into());
        }
        for ((table, mine), runs) in tables.iter().zip(&mut self.tables).zip(&mut self.runs) {
            let rows = table.columns.first().map_or(0, |(_, c)| c.len());
            for ((_, column), (_, stacked)) in table.columns.iter().zip(&mut mine.columns) {
                let appended = stacked.append(column);
                debug_assert!(appended, "types checked above");
            }
            runs.extend(std::iter::repeat_n(self.count, rows));
        }
        self.count += 1;
        Ok(())
    }
}

/// An empty column of `column`'s type.
fn empty_like(column: &Column) -> Column {
    match column {
        Column::F64(_) => Column::F64(Vec::new()),
        Column::I64(_) => Column::I64(Vec::new()),
        Column::Bool(_) => Column::Bool(Vec::new()),
        Column::Str(_) => Column::Str(Strings::default()),
    }
}

/// Run metadata.
#[derive(Clone, Debug, Serialize)]
pub struct Meta {
    pub version: &'static str,
    /// What the engine was built from ([`crate::BUILD`]).
    pub build: crate::Build,
    pub seed: u64,
    /// The resolved scenario.
    pub scenario: Value,
    /// The front's hash of the resolved scenario (`aqmlab.scenario_hash`), when it hands it to
    /// the engine (a pack of runs); otherwise the front adds it here itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario_hash: Option<String>,
    pub wall_s: f64,
    pub events: u64,
    pub duration_s: f64,
    /// Length of the measured period (duration − warm-up).
    pub measured_s: f64,
    /// Peak packets in flight (the packet arena's size).
    pub peak_pkts: u64,
    /// Peak TCP connections open at once (slots; web connections are recycled).
    pub peak_connections: u64,
    /// The front's account of what made the run (`meta.provenance`), when it hands it to the
    /// engine (a pack of runs); otherwise the front adds it here itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Value>,
}

/// One direction of the bottleneck over the measured period.
#[derive(Clone, Debug, Serialize)]
pub struct Direction {
    pub rate_bps: u64,
    /// IP bits sent per second (what queues hold and count): the transmissions completed in the
    /// measured period, less the part of the one under way as the warm-up ended that was sent
    /// before it (pro rata of its transmission time).
    pub throughput_bps: f64,
    /// `throughput_bps / rate_bps`, at most 1: under framing it saturates below 1 (1500/1538 for
    /// 1500 B packets on Ethernet).
    pub utilization: f64,
    /// The share of the measured time the transmitter was busy: wire bytes (IP bytes with the
    /// link's framing) · 8 / (rate · measured time), counted as `throughput_bps` is; equals
    /// `utilization` without framing.
    pub wire_utilization: f64,
    pub arrivals_pkts: u64,
    /// Packets that left the queue for the link.
    pub departures_pkts: u64,
    /// Packets in the queue (not the one in transmission) as the measured period began and as it
    /// ended: arrivals + backlog_start = departures + drops + backlog_end.
    pub backlog_start_pkts: u64,
    pub backlog_end_pkts: u64,
    pub drops_pkts: u64,
    pub drops_pkts_by_reason: BTreeMap<&'static str, u64>,
    pub marks_pkts: u64,
    pub marks_pkts_by_reason: BTreeMap<&'static str, u64>,
    /// The IP bytes of the dropped packets (a drop-front victim's own size), and by reason.
    pub drops_bytes: u64,
    pub drops_bytes_by_reason: BTreeMap<&'static str, u64>,
    /// The IP bytes of the packets marked CE, and by reason.
    pub marks_bytes: u64,
    pub marks_bytes_by_reason: BTreeMap<&'static str, u64>,
    pub drop_rate: f64,
    pub mean_queue_pkts: f64,
    pub mean_queue_bytes: f64,
    /// Mean time the packets that left the queue had waited in it.
    pub mean_queue_delay_s: f64,
}

/// The counter identities (docs/architecture.md, "Engine principles"), checked at the end of
/// every run.
#[derive(Clone, Debug, Serialize)]
pub struct Checks {
    pub counter_identities: bool,
    pub violations: Vec<String>,
}

/// A quiet misconfiguration the scenario reader noticed: valid, but probably not what was meant
/// (`docs/scenario.md`, "Warnings"). Never fails a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// Stable identifier, e.g. `ecn-one-sided`.
    pub code: &'static str,
    /// The key path the warning is about (`queue.ecn`, `traffic[1].server`).
    pub path: String,
    pub message: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub meta: Meta,
    /// The scenario's warnings ([`Warning`]), in the order the reader found them.
    pub warnings: Vec<Warning>,
    /// Each logged link direction, by its name: on the dumbbell `forward` (R1 → R2, servers →
    /// clients, the `[queue]` direction) and `reverse` (R2 → R1, `[reverse_queue]`).
    #[serde(flatten)]
    pub links: BTreeMap<String, Direction>,
    /// Web request/response pairs started in the measured period.
    pub requests: RequestSummary,
    /// Each TCP group with rows in the `connections` table, by name: its goodput and fairness
    /// over the measured period.
    pub groups: BTreeMap<String, GroupGoodput>,
    pub checks: Checks,
}

/// A TCP traffic group's goodput over the measured period, over its connections that were open
/// in it (started before the run ended, not closed before the warm-up ended): the bulk transfers,
/// sessions and `ns2-http` users of the `connections` table. Web groups (`web-mah`, `web-pool`
/// per request) have one short connection per request instead; their measure is `requests`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupGoodput {
    /// Connections open in the measured period.
    pub flows: u64,
    /// 8 · the bytes their receivers' applications got in the period / its length in seconds.
    pub goodput_bps: f64,
    /// `goodput_bps / flows`; NaN with no flows.
    pub mean_flow_goodput_bps: f64,
    /// Jain's fairness index of the flows' goodputs, (Σ x)² / (n · Σ x²) (Jain, Chiu & Hawe,
    /// DEC-TR-301, 1984): 1 when all are equal, 1/n when one flow has everything; NaN when no
    /// flow delivered anything.
    pub jain_index: f64,
}

impl GroupGoodput {
    /// The measures of flows that delivered `bytes` each in a period of `seconds`.
    ///
    /// ```
    /// use aqmlab_sim::report::GroupGoodput;
    /// let g = GroupGoodput::of(&[3_000_000, 1_000_000], 8.0);
    /// assert_eq!((g.flows, g.goodput_bps, g.mean_flow_goodput_bps), (2, 4e6, 2e6));
    /// assert_eq!(g.jain_index, 0.8); // (3 + 1)² / (2 · (9 + 1))
    /// assert!(GroupGoodput::of(&[0, 0], 8.0).jain_index.is_nan());
    /// assert!(GroupGoodput::of(&[], 8.0).mean_flow_goodput_bps.is_nan());
    /// ```
    pub fn of(bytes: &[u64], seconds: f64) -> GroupGoodput {
        let total: u64 = bytes.iter().sum();
        let squares: f64 = bytes.iter().map(|&b| (b as f64) * (b as f64)).sum();
        let n = bytes.len() as f64;
        let goodput_bps = total as f64 * 8.0 / seconds;
        GroupGoodput {
            flows: bytes.len() as u64,
            goodput_bps,
            mean_flow_goodput_bps: if bytes.is_empty() {
                f64::NAN
            } else {
                goodput_bps / n
            },
            jain_index: if total > 0 {
                (total as f64) * (total as f64) / (n * squares)
            } else {
                f64::NAN
            },
        }
    }
}

/// Response times of the web request/response pairs started in the measured period (seconds;
/// quantiles and shares over the completed ones; null when there are none).
#[derive(Clone, Debug, Serialize)]
pub struct RequestSummary {
    pub count: u64,
    pub completed: u64,
    pub failed: u64,
    /// Still in progress when the run ended.
    pub unfinished: u64,
    pub mean_s: f64,
    pub median_s: f64,
    pub p10_s: f64,
    pub p25_s: f64,
    pub p75_s: f64,
    pub p90_s: f64,
    pub p95_s: f64,
    pub p99_s: f64,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct Report {
    pub summary: Summary,
    pub tables: Vec<Table>,
}

impl Report {
    /// A table by name.
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
}

impl Table {
    /// A column by name.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appended_strings_read_back_as_the_same_rows() {
        let mut a: Strings = ["x", "y", "x"].into_iter().collect();
        let b: Strings = ["z", "x", "z", "w"].into_iter().collect();
        a.append(&b);
        assert_eq!(a.to_vec(), ["x", "y", "x", "z", "x", "z", "w"]);
        assert_eq!(a.labels, ["x", "y", "z", "w"]);
    }

    #[test]
    fn a_stack_holds_every_runs_rows_and_the_run_of_each() {
        let run = |t: f64, host: &str, rows: usize| {
            vec![Table {
                name: "link",
                columns: vec![
                    ("t_s", Column::F64(vec![t; rows])),
                    (
                        "host",
                        Column::Str(std::iter::repeat_n(host, rows).collect()),
                    ),
                ],
            }]
        };
        let mut stack = Stack::default();
        stack.push(&run(1.0, "a", 2)).unwrap();
        stack.push(&run(2.0, "b", 0)).unwrap();
        stack.push(&run(3.0, "b", 1)).unwrap();
        assert_eq!(stack.count, 3);
        assert_eq!(stack.runs, [vec![0, 0, 2]]);
        let t = &stack.tables[0];
        assert_eq!(t.column("t_s"), Some(&Column::F64(vec![1.0, 1.0, 3.0])));
        match t.column("host") {
            Some(Column::Str(s)) => assert_eq!(s.to_vec(), ["a", "a", "b"]),
            other => panic!("host is {other:?}"),
        }
        let other = vec![Table {
            name: "queue",
            columns: vec![],
        }];
        assert!(stack.push(&other).is_err());
        let retyped = vec![Table {
            name: "link",
            columns: vec![
                ("t_s", Column::I64(vec![1])),
                ("host", Column::Str(["a"].into_iter().collect())),
            ],
        }];
        assert!(stack.push(&retyped).is_err());
        assert_eq!(stack.count, 3, "a refused run adds nothing");
        assert_eq!(stack.tables[0].column("t_s").map(Column::len), Some(3));
    }

    #[test]
    fn a_column_of_ids_is_the_column_of_their_names() {
        let ids = [7u32, 2, 7, 0, 2, 5];
        // Ids 0 and 5 share a name: one label, as collecting the names gives.
        let name = |id: u32| ["a", "b", "c", "d", "e", "a", "f", "g"][id as usize].to_string();
        let coded = Strings::keyed(ids, |&id| id, |&id| name(id));
        let collected: Strings = ids.iter().map(|&id| name(id)).collect();
        assert_eq!(coded, collected);
        assert_eq!(coded.labels, ["g", "c", "a"]);
        assert_eq!(coded.codes, [0, 1, 0, 2, 1, 2]);
        assert!(Strings::keyed([], |&id: &u32| id, |&id| name(id)).is_empty());
    }

    #[test]
    fn a_string_column_stores_each_distinct_string_once() {
        let c: Strings = ["fwd", "rev", "fwd", "fwd"].into_iter().collect();
        assert_eq!(c.labels, vec!["fwd", "rev"]);
        assert_eq!(c.codes, vec![0, 1, 0, 0]);
        assert_eq!((c.len(), c.get(1)), (4, "rev"));
        assert_eq!(c.to_vec(), vec!["fwd", "rev", "fwd", "fwd"]);
        let empty: Strings = std::iter::empty::<String>().collect();
        assert!(empty.is_empty() && empty.labels.is_empty());
    }
}
