//! `aqmlab._native`: the thin binding between the engine and the Python front. It only converts:
//! scenario JSON in; summary JSON and columnar tables out; scenario errors and reached limits as
//! `ValueError(path, message)`. Everything else lives in the engine (Rust) or the front (Python).

mod indent;

use aqmlab_sim::report::Strings;
use aqmlab_sim::schema::ColumnType;
use aqmlab_sim::sim::Stop;
use aqmlab_sim::{Column, Report, Scenario, ScenarioError, Simulation};
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyMemoryView, PyModule, PyString, PyTuple};

/// How many pieces a run with a progress callback is cut into, to report its progress.
const CHUNKS: u64 = 200;

fn scenario_error(e: ScenarioError) -> PyErr {
    PyValueError::new_err((e.path, e.message))
}

/// Validate a scenario (JSON text) and return it resolved, with every default filled in.
#[pyfunction]
fn resolve(scenario_json: &str) -> PyResult<String> {
    Scenario::from_json(scenario_json)
        .map(|s| s.to_json())
        .map_err(scenario_error)
}

/// Validate a scenario (JSON text) and return it resolved with its named topology written out as
/// nodes and links (`Scenario::expanded`).
#[pyfunction]
fn expand(scenario_json: &str) -> PyResult<String> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    let value = scenario.expanded().map_err(scenario_error)?;
    json_text(&value)
}

/// Validate a scenario (JSON text) and return its network's forwarding tables as JSON text:
/// `{node: {host: next node}}`, the neighbour each node sends packets for each other host to
/// (the engine's own routing: shortest paths and explicit routes, `routing.rs`).
#[pyfunction]
fn next_hops(scenario_json: &str) -> PyResult<String> {
    use std::collections::BTreeMap;
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    let net = &scenario.net;
    let mut tables: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for (node, name) in net.nodes.iter().enumerate() {
        let row = tables.entry(name.as_str()).or_default();
        for dst in (0..net.hosts).filter(|&d| d as usize != node) {
            let link = net.routes.next(node as u32, dst);
            if link != aqmlab_sim::routing::NONE {
                let via = net.links[link as usize].to as usize;
                row.insert(net.nodes[dst as usize].as_str(), net.nodes[via].as_str());
            }
        }
    }
    json_text(&tables)
}

/// Validate a scenario (JSON text) and return its warnings (`summary.warnings`) as JSON text: a
/// list of `{code, path, message}`.
#[pyfunction]
fn warnings(scenario_json: &str) -> PyResult<String> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    json_text(&scenario.warnings)
}

/// A column for Python, without NumPy: numbers and flags as a `memoryview` over one bytes buffer
/// (native-endian float64 `"d"` / int64 `"q"`, one byte per bool `"?"`; no per-value Python
/// objects, so a table of a million rows stays small, and `numpy.asarray` or Arrow take the
/// buffer as it is), strings as a pair `(codes, labels)`: the distinct strings once, and a
/// `memoryview` of uint32 `"I"` codes, one per row (`aqmlab.result.Categorical` wraps it). The column is consumed, so the engine's copy is freed as soon
/// as Python has its own. Importing NumPy here would cost every run a tenth of a second, even
/// one that never looks at a table (`aqmlab.bench`'s child).
fn column<'py>(py: Python<'py>, c: Column) -> PyResult<Bound<'py, PyAny>> {
    let view = |bytes: Vec<u8>, format: &str| {
        PyMemoryView::from(PyBytes::new(py, &bytes).as_any())?.call_method1("cast", (format,))
    };
    match c {
        Column::F64(v) => view(v.iter().flat_map(|x| x.to_ne_bytes()).collect(), "d"),
        Column::I64(v) => view(v.iter().flat_map(|x| x.to_ne_bytes()).collect(), "q"),
        Column::Bool(v) => view(v.iter().map(|x| u8::from(*x)).collect(), "?"),
        Column::Str(v) => {
            let codes = view(v.codes.iter().flat_map(|x| x.to_ne_bytes()).collect(), "I")?;
            let labels = PyList::new(py, v.labels.iter().map(|s| PyString::new(py, s)))?;
            Ok(PyTuple::new(py, [codes, labels.into_any()])?.into_any())
        }
    }
}

/// A column from Python, as its declared type wants it: a buffer of that type (the typed
/// `memoryview` [`column`] hands out, a NumPy array) or any sequence of numbers, flags or
/// strings.
fn column_from_python(ty: ColumnType, values: &Bound<'_, PyAny>) -> PyResult<Column> {
    Ok(match ty {
        ColumnType::F64 => match PyBuffer::<f64>::get(values) {
            Ok(buffer) => Column::F64(buffer.to_vec(values.py())?),
            Err(_) => Column::F64(values.extract()?),
        },
        ColumnType::I64 => match PyBuffer::<i64>::get(values) {
            Ok(buffer) => Column::I64(buffer.to_vec(values.py())?),
            Err(_) => Column::I64(values.extract()?),
        },
        // A `?` buffer has no typed reader in PyO3: read as bytes, else row by row.
        ColumnType::Bool => match bool_bytes(values) {
            Some(bytes) => Column::Bool(bytes.into_iter().map(|b| b != 0).collect()),
            None => Column::Bool(values.extract()?),
        },
        // `aqmlab.result.Categorical` (the engine's own codes and labels), else any strings.
        ColumnType::Cat => match (values.getattr("codes"), values.getattr("labels")) {
            (Ok(codes), Ok(labels)) => {
                let codes = PyBuffer::<u32>::get(&codes)?.to_vec(values.py())?;
                let labels: Vec<String> = labels.extract()?;
                if let Some(&bad) = codes.iter().find(|&&c| c as usize >= labels.len()) {
                    return Err(PyValueError::new_err(format!(
                        "category code {bad} where there are {} labels",
                        labels.len()
                    )));
                }
                Column::Str(Strings { labels, codes })
            }
            _ => {
                let rows: Vec<String> = values.extract()?;
                Column::Str(rows.into_iter().collect())
            }
        },
    })
}

/// The bytes of a `memoryview` of flags (format `"?"`), if `values` is one.
fn bool_bytes(values: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    let view = values.cast::<PyMemoryView>().ok()?;
    let format: String = view.getattr("format").ok()?.extract().ok()?;
    if format != "?" {
        return None;
    }
    let bytes = view.call_method1("cast", ("B",)).ok()?;
    PyBuffer::<u8>::get(&bytes).ok()?.to_vec(values.py()).ok()
}

/// `json.dumps(value, indent=2)`'s text from `json.dumps(value, separators=(",", ":"))`'s, the same
/// bytes, laid out in Rust ([`indent::indent_json`]).
#[pyfunction]
fn indent_json(compact: &str) -> String {
    indent::indent_json(compact)
}

/// Write table `table` (`{column: values}`, in the order given; each column as the engine's
/// schema declares it) as a Parquet file with `metadata` as its key/value metadata, and return
/// its bytes (`aqmlab_parquet::write`). A column the schema does not declare, values of another
/// type, or columns of different lengths raise `ValueError`.
#[pyfunction]
fn parquet<'py>(
    py: Python<'py>,
    table: &str,
    columns: &Bound<'py, PyDict>,
    metadata: Vec<(String, String)>,
) -> PyResult<Bound<'py, PyBytes>> {
    let spec = aqmlab_sim::schema::table(table).ok_or_else(|| {
        PyValueError::new_err(format!("no table {table:?} in the engine's schema"))
    })?;
    let mut converted = Vec::with_capacity(columns.len());
    for (name, values) in columns.iter() {
        let name: String = name.extract()?;
        let declared = spec
            .columns
            .iter()
            .find(|c| c.name == name)
            .ok_or_else(|| {
                PyValueError::new_err(format!("{table}.{name} is not in the engine's schema"))
            })?;
        let column = column_from_python(declared.ty, &values)
            .map_err(|e| PyValueError::new_err(format!("{table}.{name}: {}", e.value(py))))?;
        converted.push((declared.name, column));
    }
    let refs: Vec<(&str, &Column)> = converted.iter().map(|(n, c)| (*n, c)).collect();
    let pairs: Vec<(&str, &str)> = metadata
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let bytes = py
        .detach(|| aqmlab_parquet::write(table, &refs, &pairs))
        .map_err(|e| PyValueError::new_err(e.0))?;
    Ok(PyBytes::new(py, &bytes))
}

/// Run `sim` up to `until` without the GIL, taking it back every few thousand events to let
/// Python's signal handlers run: a reached `[limits]` key is a `ValueError`, Ctrl-C a
/// `KeyboardInterrupt`.
fn run_chunk(py: Python<'_>, sim: &mut Simulation, until: aqmlab_sim::units::Time) -> PyResult<()> {
    let mut signal = None;
    let ran = py.detach(|| {
        sim.run_until(until, &mut || {
            signal = Python::attach(|py| py.check_signals()).err();
            signal.is_some()
        })
    });
    match ran {
        Ok(()) => {}
        Err(Stop::Limit(e)) => return Err(scenario_error(e)),
        Err(Stop::Interrupted) => return Err(signal.expect("stopped by a signal")),
    }
    py.check_signals()
}

/// Run a scenario (JSON text). `seed` overrides the scenario's seed; `progress(fraction)` is called
/// between chunks of simulated time. Returns `(summary_json, {table: {column: memoryview or list}})`.
/// A run that reaches one of its `[limits]` raises `ValueError("limits.<key>", message)`; Ctrl-C
/// raises `KeyboardInterrupt` within milliseconds: the engine runs without the GIL and takes it
/// back every few thousand events to let Python's signal handlers run. The packet traces the
/// scenario's `[capture]` asks for are written into `capture_dir` (`<link>.pcap`; `OSError` if
/// they cannot be); without it, none are.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed=None, progress=None, capture_dir=None))]
fn run<'py>(
    py: Python<'py>,
    scenario_json: &str,
    seed: Option<u64>,
    progress: Option<Bound<'py, PyAny>>,
    capture_dir: Option<std::path::PathBuf>,
) -> PyResult<(String, Bound<'py, PyDict>)> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    let report = simulate(
        py,
        &scenario,
        seed,
        progress.as_ref(),
        capture_dir.as_deref(),
    )?;
    report_for_python(py, report)
}

/// Run a parsed scenario to its end, as [`run`] describes, and return its report.
fn simulate(
    py: Python<'_>,
    scenario: &Scenario,
    seed: Option<u64>,
    progress: Option<&Bound<'_, PyAny>>,
    capture_dir: Option<&std::path::Path>,
) -> PyResult<Report> {
    let mut sim = Simulation::new(scenario, seed);
    if let Some(dir) = capture_dir {
        sim.capture_to(dir).map_err(PyErr::from)?;
    }
    // Without a progress callback the run goes to its end in one piece: `run_chunk` still
    // notices Ctrl-C every few thousand events, and a short run does not pay for 200 hand-overs.
    let end = scenario.duration.0;
    let chunks = if progress.is_some() { CHUNKS } else { 1 };
    for i in 1..=chunks {
        let until =
            aqmlab_sim::units::Time((u128::from(end) * u128::from(i) / u128::from(chunks)) as u64);
        run_chunk(py, &mut sim, until)?;
        if let Some(cb) = progress {
            cb.call1((i as f64 / chunks as f64,))?;
        }
    }
    sim.finish_capture().map_err(PyErr::from)?;
    py.detach(|| sim.finish()).map_err(scenario_error)
}

/// Several runs of one scenario (JSON text, read once) whose tables are kept stacked, to be
/// written as one set of Parquet files (a run store's pack: `aqmlab.store`). [`Pack::run`] runs a
/// seed and holds its tables aside; [`Pack::keep`] adds them to the stack, or
/// [`Pack::take`] hands them to Python instead (a run that failed its self-checks is stored on
/// its own, with its tables as evidence); [`Pack::parquet`] writes the stack.
#[pyclass]
struct Pack {
    scenario: Scenario,
    /// Given to each summary's `meta`: the front's scenario hash and provenance.
    scenario_hash: Option<String>,
    provenance: Option<serde_json::Value>,
    stack: aqmlab_sim::report::Stack,
    held: Option<Vec<aqmlab_sim::Table>>,
}

#[pymethods]
impl Pack {
    /// `scenario_hash` and `provenance_json` (a JSON object) become each run's
    /// `meta.scenario_hash` and `meta.provenance`, where the front puts them in a run of its own.
    #[new]
    #[pyo3(signature = (scenario_json, scenario_hash=None, provenance_json=None))]
    fn new(
        scenario_json: &str,
        scenario_hash: Option<String>,
        provenance_json: Option<&str>,
    ) -> PyResult<Pack> {
        let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
        let provenance = match provenance_json {
            None => None,
            Some(text) => Some(
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text)
                    .map_err(|e| PyValueError::new_err(format!("provenance_json: {e}")))?
                    .into(),
            ),
        };
        Ok(Pack {
            scenario,
            scenario_hash,
            provenance,
            stack: aqmlab_sim::report::Stack::default(),
            held: None,
        })
    }

    /// Run the scenario with `seed` and return `(summary_json, checks_hold)`: its summary, and
    /// whether the engine's self-checks held. Its tables are held aside (those of a run held and
    /// not kept are dropped). Errors as [`run`]'s.
    #[pyo3(signature = (seed, progress=None))]
    fn run(
        &mut self,
        py: Python<'_>,
        seed: u64,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<(String, bool)> {
        self.held = None;
        let mut report = simulate(py, &self.scenario, Some(seed), progress.as_ref(), None)?;
        report.summary.meta.scenario_hash = self.scenario_hash.clone();
        report.summary.meta.provenance = self.provenance.clone();
        let summary = json_text(&report.summary)?;
        self.held = Some(report.tables);
        Ok((summary, report.summary.checks.counter_identities))
    }

    /// Add the held run's tables to the stack: it is run `runs - 1` of the pack.
    fn keep(&mut self) -> PyResult<()> {
        let tables = self.held.take().ok_or_else(nothing_held)?;
        self.stack.push(&tables).map_err(PyValueError::new_err)
    }

    /// The held run's tables, as [`run`] hands them over, instead of keeping them.
    fn take<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let tables = self.held.take().ok_or_else(nothing_held)?;
        tables_for_python(py, tables)
    }

    /// Write the stack's tables as Parquet, each with `metadata` and its rows' runs as its first
    /// column (`aqmlab_parquet::write_pack`): `{table: bytes}`, in the report's order.
    fn parquet<'py>(
        &self,
        py: Python<'py>,
        metadata: Vec<(String, String)>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let pairs: Vec<(&str, &str)> = metadata
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let written = py.detach(|| {
            self.stack
                .tables
                .iter()
                .zip(&self.stack.runs)
                .map(|(table, runs)| {
                    let refs: Vec<(&str, &Column)> =
                        table.columns.iter().map(|(n, c)| (*n, c)).collect();
                    let count = self.stack.count as usize;
                    aqmlab_parquet::write_pack(table.name, runs, count, &refs, &pairs)
                        .map(|bytes| (table.name, bytes))
                })
                .collect::<Result<Vec<_>, _>>()
        });
        let files = PyDict::new(py);
        for (name, bytes) in written.map_err(|e| PyValueError::new_err(e.0))? {
            files.set_item(name, PyBytes::new(py, &bytes))?;
        }
        Ok(files)
    }
}

fn nothing_held() -> PyErr {
    PyValueError::new_err("no run is held: call run(seed) first")
}

/// A report as `(summary_json, {table: {column: memoryview or list}})`.
fn report_for_python(py: Python<'_>, report: Report) -> PyResult<(String, Bound<'_, PyDict>)> {
    let summary = json_text(&report.summary)?;
    Ok((summary, tables_for_python(py, report.tables)?))
}

/// Tables as `{table: {column: memoryview or (codes, labels)}}` ([`column`]).
fn tables_for_python(
    py: Python<'_>,
    tables: Vec<aqmlab_sim::Table>,
) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    for t in tables {
        let cols = PyDict::new(py);
        for (name, c) in t.columns {
            cols.set_item(name, column(py, c)?)?;
        }
        out.set_item(t.name, cols)?;
    }
    Ok(out)
}

/// Route a scenario's bottleneck live (`aqmlab_live::router::route`) between the TUN device
/// `servers_dev` of the network namespace file `servers_ns` and `clients_dev` of `clients_ns`,
/// the scenario's time 0 at `start_ns` on the monotonic clock (`time.monotonic_ns()`). Returns
/// `(summary_json, tables, router_json)`: the simulator's summary and its `queue` and `link`
/// tables, and the router's own account (`lateness`, `counts`, `sched_fifo`). The bottleneck
/// directions the scenario's `[capture]` names are traced into `capture_dir`, if given. A scenario live mode cannot run
/// raises `ValueError(key, message)`; a device error `OSError`; Ctrl-C `KeyboardInterrupt` within
/// 20 ms.
#[pyfunction]
#[pyo3(signature = (scenario_json, seed, start_ns, servers_ns, servers_dev, clients_ns, clients_dev, capture_dir=None))]
#[allow(clippy::too_many_arguments)]
fn live_route<'py>(
    py: Python<'py>,
    scenario_json: &str,
    seed: u64,
    start_ns: u64,
    servers_ns: std::path::PathBuf,
    servers_dev: &str,
    clients_ns: std::path::PathBuf,
    clients_dev: &str,
    capture_dir: Option<std::path::PathBuf>,
) -> PyResult<(String, Bound<'py, PyDict>, String)> {
    use aqmlab_live::{router, tun::Tun};
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    if let Some((key, why)) = router::refusal(&scenario) {
        return Err(PyValueError::new_err((key, why)));
    }
    let tuns = [
        Tun::attach(&servers_ns, servers_dev)?,
        Tun::attach(&clients_ns, clients_dev)?,
    ];
    let mut signal = None;
    let routed = py.detach(|| {
        router::route(
            &scenario,
            seed,
            start_ns,
            tuns,
            capture_dir.as_deref(),
            &mut || {
                signal = Python::attach(|py| py.check_signals()).err();
                signal.is_some()
            },
        )
    });
    let routed = match routed {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
            return Err(signal.expect("stopped by a signal"))
        }
        Err(e) => return Err(e.into()),
    };
    let own = json_text(&serde_json::json!({
        "lateness": routed.lateness,
        "counts": routed.counts,
        "sched_fifo": routed.fifo,
    }))?;
    let (summary, tables) = report_for_python(py, routed.report)?;
    Ok((summary, tables, own))
}

/// Raise `ValueError(key, message)` if live mode cannot run the scenario (JSON text) as the
/// router sees it (`aqmlab_live::router::refusal`): a scripted queue, a trace of an access link,
/// more hosts than the address plan names.
#[pyfunction]
fn live_check(scenario_json: &str) -> PyResult<()> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    match aqmlab_live::router::refusal(&scenario) {
        Some((key, why)) => Err(PyValueError::new_err((key, why))),
        None => Ok(()),
    }
}

/// Every flow of a scenario (JSON text) under `seed`, as JSON text: a list of `{group, index,
/// server, client, from_servers, start, bytes}`, with the start times and transfer sizes a
/// simulated run draws (`aqmlab_sim::sim::planned_flows`).
#[pyfunction]
fn live_plan(scenario_json: &str, seed: u64) -> PyResult<String> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    json_text(&aqmlab_sim::sim::planned_flows(&scenario, seed))
}

/// A quantity of the scenario language as an integer: `"time"` in ns, `"size"` in bytes,
/// `"rate"` in bits per second (the engine's own parsers: `aqmlab_sim::units`). A text that is
/// not one raises `ValueError(kind, message)`.
#[pyfunction]
fn quantity(kind: &str, text: &str) -> PyResult<u64> {
    use aqmlab_sim::units::{Rate, Size, Time};
    let parsed = match kind {
        "time" => Time::parse(text).map(|t| t.0),
        "size" => Size::parse(text).map(|s| s.0),
        "rate" => Rate::parse(text).map(|r| r.0),
        _ => Err("time, size or rate".to_string()),
    };
    parsed.map_err(|e| PyValueError::new_err((kind.to_string(), e)))
}

/// Every `web-mah` user's pages under `seed` (JSON text: a list of `{group, user, client,
/// first, pages: [{server, objects: [[request, reply], ...], think}]}`), as a simulated run draws
/// them (`aqmlab_sim::sim::web_scripts`).
#[pyfunction]
fn live_web_scripts(scenario_json: &str, seed: u64) -> PyResult<String> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    json_text(&aqmlab_sim::sim::web_scripts(&scenario, seed))
}

/// Every UDP flow's packets under `seed` (JSON text: a list of `{group, index, departures:
/// [[ns, bytes], ...]}`), as a simulated run sends them (`aqmlab_sim::sim::udp_scripts`).
#[pyfunction]
fn live_udp_scripts(scenario_json: &str, seed: u64) -> PyResult<String> {
    let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
    json_text(&aqmlab_sim::sim::udp_scripts(&scenario, seed))
}

/// The summary's `requests` section (JSON text) for request/response pairs given by their start
/// and end times (ns; an end of `None`: not complete) and whether each failed, as a simulated
/// run computes it (`aqmlab_sim::sim::report::request_summary`).
#[pyfunction]
fn request_summary(
    starts_ns: Vec<u64>,
    ends_ns: Vec<Option<u64>>,
    failed: Vec<bool>,
) -> PyResult<String> {
    use aqmlab_sim::sim::RequestRow;
    use aqmlab_sim::units::Time;
    if starts_ns.len() != ends_ns.len() || starts_ns.len() != failed.len() {
        return Err(PyValueError::new_err((
            "requests",
            "the three lists differ in length",
        )));
    }
    let rows: Vec<RequestRow> = starts_ns
        .iter()
        .zip(&ends_ns)
        .zip(&failed)
        .map(|((&start, &end), &failed)| RequestRow {
            group: 0,
            user: 0,
            client: 0,
            server: 0,
            page: 0,
            object: 0,
            start: Time(start),
            end: end.map(Time),
            failed,
            request: 0,
            reply: 0,
            syn_rexmits: 0,
            fin_rexmits: 0,
            data_rexmits: 0,
            timeouts: 0,
        })
        .collect();
    json_text(&aqmlab_sim::sim::report::request_summary(&rows))
}

/// The address of host `index` of `side` ("servers" or "clients") in the engine's plan
/// (`aqmlab_sim::network::host_address`), as dotted IPv4 text: what live mode gives it.
#[pyfunction]
fn live_address(side: &str, index: u32) -> PyResult<String> {
    use aqmlab_sim::network::{side_address, MAX_HOSTS_A_SIDE};
    let server = match side {
        "servers" => true,
        "clients" => false,
        _ => return Err(PyValueError::new_err(("side", "servers or clients"))),
    };
    if index >= MAX_HOSTS_A_SIDE {
        return Err(PyValueError::new_err((
            "index",
            format!("at most {}", MAX_HOSTS_A_SIDE - 1),
        )));
    }
    let a = side_address(server, index);
    Ok(format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]))
}

/// The bare event-queue ceiling of a scenario: the first `max_events` events its run schedules,
/// recorded once, to push and pop on the event queue alone, as the run did, and on a bare binary
/// heap (the yardstick), as often as [`QueueCeiling::replay`] is called.
#[pyclass(frozen)]
struct QueueCeiling {
    recording: aqmlab_sim::event::Recording,
}

#[pymethods]
impl QueueCeiling {
    #[new]
    #[pyo3(signature = (scenario_json, seed=None, max_events=2_000_000))]
    fn new(
        py: Python<'_>,
        scenario_json: &str,
        seed: Option<u64>,
        max_events: usize,
    ) -> PyResult<QueueCeiling> {
        let scenario = Scenario::from_json(scenario_json).map_err(scenario_error)?;
        let mut sim = Simulation::new(&scenario, seed);
        sim.record_events(max_events);
        // Run in thousandths of the scenario until the recording is full or the run is over.
        let step = (scenario.duration.0 / 1000).max(1);
        let mut until = aqmlab_sim::units::Time::ZERO;
        while !sim.event_recording_full() && until < scenario.duration {
            until = aqmlab_sim::units::Time(until.0.saturating_add(step));
            run_chunk(py, &mut sim, until)?;
        }
        let recording = sim.take_event_recording().expect("recording");
        Ok(QueueCeiling { recording })
    }

    /// Replay the recording on the event queue, then on the binary heap: `(events popped, queue
    /// seconds, binary-heap seconds)`, of the replays only.
    fn replay(&self, py: Python<'_>) -> (u64, f64, f64) {
        py.detach(|| {
            let timed = |replay: &dyn Fn() -> (u64, u64)| {
                let started = std::time::Instant::now();
                let (popped, checksum) = std::hint::black_box(replay());
                std::hint::black_box(checksum);
                (popped, started.elapsed().as_secs_f64())
            };
            let (popped, queue_s) = timed(&|| self.recording.replay());
            let (_, heap_s) = timed(&|| self.recording.replay_binary_heap());
            (popped, queue_s, heap_s)
        })
    }
}

fn json_text<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
}

/// The output tables' columns as JSON, tables and columns in order:
/// `[{"name", "columns": [{"name", "type", "unit", "meaning"}]}]`.
#[pyfunction]
fn schema() -> PyResult<String> {
    json_text(&aqmlab_sim::schema::TABLES)
}

/// Mah's HTTP tables shipped in the engine: file name → text (ns-2's `loadCDF` format).
#[pyfunction]
fn mah_tables() -> std::collections::BTreeMap<&'static str, &'static str> {
    aqmlab_sim::traffic::web::mah_tables().into_iter().collect()
}

/// What the engine was built from, as JSON (`meta.build` of every summary).
#[pyfunction]
fn build_info() -> PyResult<String> {
    json_text(&aqmlab_sim::BUILD)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", aqmlab_sim::VERSION)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    m.add_function(wrap_pyfunction!(mah_tables, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(expand, m)?)?;
    m.add_function(wrap_pyfunction!(live_route, m)?)?;
    m.add_function(wrap_pyfunction!(live_address, m)?)?;
    m.add_function(wrap_pyfunction!(live_plan, m)?)?;
    m.add_function(wrap_pyfunction!(live_check, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(live_web_scripts, m)?)?;
    m.add_function(wrap_pyfunction!(live_udp_scripts, m)?)?;
    m.add_function(wrap_pyfunction!(request_summary, m)?)?;
    m.add_function(wrap_pyfunction!(warnings, m)?)?;
    m.add_function(wrap_pyfunction!(next_hops, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(parquet, m)?)?;
    m.add_function(wrap_pyfunction!(indent_json, m)?)?;
    m.add_class::<QueueCeiling>()?;
    m.add_class::<Pack>()?;
    Ok(())
}
