"""Running one simulation: :func:`run`."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from aqmlab import _native, args
from aqmlab.errors import ScenarioError, SelfCheckError, StoreError
from aqmlab.provenance import look_up_source, provenance
from aqmlab.result import Result
from aqmlab.scenario import (
    Scenario,
    ScenarioLike,
    apply_overrides,
    as_scenario,
    captures,
    parse_key,
    scenario_hash,
    set_path,
    with_capture,
)
from aqmlab.store import PACK_SUMMARIES

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from aqmlab.calibrate import Calibration

ProgressCallback = Callable[[float], None]
"""Called now and then with the fraction (0..1) of simulated time done."""

PROGRESS_DELAY_S = 2.0
"""A progress bar appears only once a run has taken this much wall time."""


@contextmanager
def progress_bar(label: str, *, delay_s: float = PROGRESS_DELAY_S) -> Iterator[ProgressCallback]:
    """Yield a progress callback that draws a rich bar on stderr once ``delay_s`` has passed.

    Short runs print nothing, nor does a run whose stderr is not a terminal (a log file, CI);
    the bar is removed when the run ends. Rich is imported only once a run has lasted
    ``delay_s``: a short run does not pay for it.

    >>> with progress_bar("demo") as report:
    ...     report(0.5)
    """
    started = time.monotonic()
    console: Console | None = None
    bar: Progress | None = None
    task = None

    def report(fraction: float) -> None:
        nonlocal console, bar, task
        if bar is None:
            if time.monotonic() - started < delay_s:
                return
            if console is None:
                from rich.console import Console

                console = Console(stderr=True)
            if not (console.is_terminal or console.is_jupyter):
                return
            from rich.progress import (
                BarColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.percentage:>5.1f}%"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
                transient=True,
            )
            bar.start()
            task = bar.add_task(label, total=1.0)
        assert task is not None
        bar.update(task, completed=fraction)

    try:
        yield report
    finally:
        if bar is not None:
            bar.stop()


def build_info() -> dict[str, Any]:
    """Return what the engine was built from: ``meta.build`` of the runs it makes.

    ``id`` identifies the build for the run store (version, engine sources, profile); ``commit``
    and ``dirty`` say where it came from.

    >>> sorted(build_info())
    ['commit', 'dirty', 'id', 'profile', 'rustc', 'source_digest', 'version']
    """
    info: dict[str, Any] = json.loads(_native.build_info())
    return info


def _with_hash(summary: dict[str, Any], digest: str | None = None) -> dict[str, Any]:
    """Insert ``meta.scenario_hash`` right after ``meta.scenario``, and add ``meta.provenance``.

    ``digest`` is the hash when it is known already (a pack's runs share their scenario).
    """
    meta: dict[str, Any] = {}
    digest = digest or scenario_hash(summary["meta"]["scenario"])
    for key, value in summary["meta"].items():
        if key == "scenario_hash":
            continue
        meta[key] = value
        if key == "scenario":
            meta["scenario_hash"] = digest
    meta["provenance"] = provenance()
    return {key: meta if key == "meta" else value for key, value in summary.items()}


def prepare(
    scenario: ScenarioLike,
    *,
    set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 - the --set option
    capture: Iterable[str] = (),
    load: float | None = None,
    calibration: str | Path | Calibration | None = None,
    option: Callable[[str], str] = str,
) -> Scenario:
    """Return the scenario :func:`run` runs: ``scenario`` with ``set``, ``capture`` and ``load``.

    They are ``aqmlab run``'s ``--set``, ``--capture`` and ``--load`` with ``--calibration``, and
    :func:`run` documents them; ``option`` turns a parameter's name into the name errors give it
    (``aqmlab run`` passes ``"--" + name``).

    >>> prepare({"traffic": [{"kind": "cbr"}]}, set=["traffic[0].rate=2Mbps", "seed=3"])
    {'traffic': [{'kind': 'cbr', 'rate': '2Mbps'}], 'seed': 3}
    >>> prepare({}, load=90)
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: load: needs calibration (see aqmlab calibrate)
    """
    plain = as_scenario(scenario)
    if isinstance(set, Mapping):
        for key, value in set.items():
            set_path(plain, parse_key(args.text("set", key), what="set"), copy.deepcopy(value))
    elif set is not None:
        if isinstance(set, str) or not isinstance(set, Iterable):
            raise args.ArgumentError(
                "set", f"expected a dict or a list of KEY.PATH=VALUE strings, got {set!r}"
            )
        plain = apply_overrides(plain, set)
    if isinstance(capture, str) or not isinstance(capture, Iterable):
        raise args.ArgumentError("capture", f"expected a list of link names, got {capture!r}")
    plain = with_capture(plain, [args.text("capture", link) for link in capture])
    if load is not None:
        from aqmlab.calibrate import MAX_LOAD_PERCENT, Calibration, with_load

        percent = args.number(option("load"), load, above=0, high=MAX_LOAD_PERCENT)
        if calibration is None:
            raise ScenarioError(option("load"), f"needs {option('calibration')} (see aqmlab "
                                "calibrate)")  # fmt: skip
        if not isinstance(calibration, Calibration):
            calibration = Calibration.load(args.path(option("calibration"), calibration))
        plain = with_load(plain, percent / 100, calibration)
    elif calibration is not None:
        raise ScenarioError(option("calibration"), f"is used only with {option('load')}")
    return plain


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    set: Mapping[str, Any] | Iterable[str] | None = None,  # noqa: A002 - the command line's --set
    load: float | None = None,
    calibration: str | Path | Calibration | None = None,
    capture: Iterable[str] = (),
    tables: Sequence[str] | None = None,
    out: str | Path | None = None,
    replace: bool = False,
    progress: bool | ProgressCallback = False,
) -> Result:
    """Run one simulation and return its :class:`Result`.

    The keywords are ``aqmlab run``'s options. ``scenario`` is a scenario dict or a path: a TOML
    file, a resolved scenario as JSON or a run directory (:func:`aqmlab.scenario.read_scenario`);
    ``seed`` overrides its ``seed``, and ``set`` any key, as ``--set`` does: a dict whose values
    are taken as they are (``{"queue.limit": "100p", "traffic[web].users": 50}``), or a list of
    ``--set`` texts (``["queue.limit=100p"]``, values read as the command line reads them;
    :func:`aqmlab.scenario.apply_overrides` does that to a scenario without running it).
    ``load`` sets the web users for that offered load, in percent of the calibrated link, from
    ``calibration`` (a :class:`aqmlab.calibrate.Calibration`, or the ``calibration.json``, or its
    directory, that ``aqmlab calibrate`` writes). ``capture`` names links to write a libpcap
    trace of (``"forward"``, ``"s0.up"``; with those of the scenario's ``[capture]`` table),
    kept as long as the result (:attr:`Result.captures`). ``tables`` keeps only these tables
    (``[]``: none, the summary alone). ``out`` writes the run directory there as
    :meth:`Result.save` does (an existing run is replaced only with ``replace=True``, the
    command line's ``--force``; checked before the run).
    ``progress=True`` draws a progress bar on stderr for runs longer than a couple of seconds;
    a callable receives the fraction of simulated time done instead. Ctrl-C stops the run
    (``KeyboardInterrupt``). A bad scenario raises :class:`ScenarioError`; a run whose counter
    identities fail (an engine bug) raises :class:`aqmlab.errors.SelfCheckError`, which holds
    the result (written to ``out`` first, marked failed).

    >>> result = run({
    ...     "duration": "2s",
    ...     "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...     "traffic": [{"kind": "cbr", "rate": "1Mbps"}],
    ... }, seed=5)
    >>> result.seed, round(result.summary["forward"]["utilization"], 2)
    (5, 0.1)
    >>> int(result.flows["sent_pkts"].sum())
    250
    >>> run({"duration": "2s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...      "traffic": [{"kind": "cbr", "rate": "1Mbps"}]},
    ...     set={"traffic[0].rate": "2Mbps"}).summary["forward"]["utilization"] > 0.19
    True
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     done = run({"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...                 "traffic": [{"kind": "cbr", "rate": "1Mbps"}]},
    ...                set=["traffic[0].rate=2Mbps"], capture=["forward"], tables=["flows"],
    ...                out=f"{tmp}/run")
    ...     sorted(p.name for p in Path(tmp, "run").iterdir())
    ['flows.parquet', 'forward.pcap', 'manifest.json', 'summary.json']
    """
    plain = prepare(scenario, set=set, capture=capture, load=load, calibration=calibration)
    kept = None if tables is None else table_names("tables", tables)
    if out is not None:
        from aqmlab.store import check_output_dir

        check_output_dir(Path(args.path("out", out)), replace=args.boolean("replace", replace))
    try:
        result = run_prepared(plain, seed, progress)
    except SelfCheckError as err:
        if out is not None:
            err.result.save(out, replace=replace)
        raise
    if kept is not None:
        result = result.with_tables(kept)
    if out is not None:
        result.save(out, replace=replace)
    return result


def table_names(option: str, names: str | Sequence[str]) -> list[str]:
    """Read the engine's table names: a list, or a comma-separated text, ``none`` for no table.

    >>> table_names("--tables", "queue, link"), table_names("tables", ["flows"])
    (['queue', 'link'], ['flows'])
    >>> table_names("--tables", "none")
    []
    >>> table_names("--tables", "queues")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --tables: no table 'queues'; expected none or a list of queue, \
link, flows, hops, connections, tcp_trace, requests
    """
    from aqmlab.result import schema

    known = list(schema())
    if isinstance(names, str):
        if names.strip() == "none":
            return []
        names = [name.strip() for name in names.split(",")]
    elif not isinstance(names, Sequence):
        raise args.ArgumentError(option, f"expected a list of table names, got {names!r}")
    for name in names:
        if name not in known:
            expected = f"none or a list of {', '.join(known)}"
            raise ScenarioError(option, f"no table {name!r}; expected {expected}")
    return list(names)


def run_prepared(
    plain: Scenario, seed: int | None, progress: bool | ProgressCallback = False
) -> Result:
    """Run a scenario as :func:`prepare` returns it (plain, its CDF files embedded), as it is.

    :func:`run` without the preparation: a sweep prepares each point's scenario once
    (:meth:`aqmlab.sweeps.Sweep.points`) and its workers run every seed of it through here.

    >>> run_prepared({"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...               "traffic": [{"kind": "cbr", "rate": "1Mbps"}]}, 2).seed
    2
    """
    text = json.dumps(plain)
    seed = args.integer("seed", seed, low=0, high=2**64 - 1, optional=True, error=ScenarioError)
    progress = args.progress("progress", progress)
    traces = None
    if captures(plain):
        import tempfile  # here only: it loads shutil and random (start-up of every run)

        traces = tempfile.TemporaryDirectory(prefix="aqmlab-capture-")
    where = traces.name if traces is not None else None
    look_up_source()  # git answers while the engine runs (meta.provenance)
    try:
        if callable(progress):
            summary_json, columns = _native.run(text, seed, progress, where)
        elif progress:
            with progress_bar("simulating") as report:
                summary_json, columns = _native.run(text, seed, report, where)
        else:
            summary_json, columns = _native.run(text, seed, None, where)
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    except OSError as err:
        if where is None:
            raise
        why = err.strerror or str(err)
        raise StoreError(str(where), f"cannot write the packet traces: {why}") from None
    summary = _with_hash(json.loads(summary_json))
    if traces is None:
        result = Result(summary, columns)
    else:
        result = Result(summary, columns, captures=Path(traces.name), keep=traces)
    failure = result.self_check_failure()
    if failure is not None:
        raise SelfCheckError(result, failure)
    return result


class PackRun(NamedTuple):
    """What :func:`run_pack` gives back: the runs it kept stacked, those that failed, the rest.

    ``files`` are the pack's files (``summaries.jsonl`` and one Parquet file per table, each with
    its rows' ``run_index`` first: :mod:`aqmlab.store`), holding the runs of ``seeds`` in that
    order, whose summaries are ``summaries`` (JSON text, a line of ``summaries.jsonl`` each).
    ``failures`` pairs each seed that failed with its error: a
    :class:`aqmlab.errors.ScenarioError` (a limit reached) or a
    :class:`aqmlab.errors.SelfCheckError` carrying the run's own tables. ``rest`` are the seeds
    not run, the time given having been spent.
    """

    seeds: list[int]
    summaries: list[str]
    files: dict[str, bytes]
    failures: list[tuple[int, Exception]]
    rest: list[int]


def run_pack(
    plain: Scenario,
    seeds: Sequence[int],
    *,
    digest: str | None = None,
    within_s: float | None = None,
    progress: ProgressCallback | None = None,
) -> PackRun:
    """Run a prepared scenario once per seed, its tables stacked into one set of files.

    The scenario is read once (:class:`aqmlab._native.Pack`), and the runs' tables are written
    together: for a sweep of short runs this is most of what a run costs besides the simulation
    itself (docs/performance.md, "Packs"). Each run is the run :func:`run_prepared` would make:
    the same summary, and the same rows. A scenario with ``[capture]`` is refused (its traces
    are files of their own: run it with :func:`run_prepared`). ``digest`` is the scenario's hash
    if known (:func:`aqmlab.scenario_hash`). With ``within_s``, no run starts once the runs have
    taken that many seconds (the others are :attr:`PackRun.rest`); ``progress`` follows the
    first run.

    >>> tiny = {"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...         "traffic": [{"kind": "cbr", "rate": "1Mbps"}]}
    >>> pack = run_pack(tiny, [2, 5])
    >>> summaries = [json.loads(text) for text in pack.summaries]
    >>> pack.seeds, [s["meta"]["seed"] for s in summaries], sorted(pack.files)[:2]
    ([2, 5], [2, 5], ['connections.parquet', 'flows.parquet'])
    >>> summaries[1]["forward"] == run_prepared(tiny, 5).summary["forward"]
    True
    >>> run_pack(tiny, [2, 5, 7], within_s=0.0).rest
    [5, 7]
    """
    if captures(plain):
        raise ScenarioError("capture", "a pack of runs writes no packet traces: run each alone")
    checked = [args.integer("seeds", seed, low=0, high=2**64 - 1, error=ScenarioError)
               for seed in seeds]  # fmt: skip
    text = json.dumps(plain)
    look_up_source()
    try:
        digest = digest or scenario_hash(json.loads(_native.resolve(text)))
        pack = _native.Pack(text, digest, json.dumps(provenance()))
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    kept: list[int] = []
    summaries: list[str] = []
    failures: list[tuple[int, Exception]] = []
    started = time.monotonic()
    for position, seed in enumerate(checked):
        if position and within_s is not None and time.monotonic() - started >= within_s:
            rest = checked[position:]
            break
        try:
            summary, checks_hold = pack.run(seed, progress if position == 0 else None)
        except ValueError as err:
            failures.append((seed, ScenarioError.from_native(err)))
            continue
        if not checks_hold:
            result = Result(_with_hash(json.loads(summary), digest), pack.take())
            failures.append((seed, SelfCheckError(result, str(result.self_check_failure()))))
            continue
        pack.keep()
        kept.append(seed)
        summaries.append(summary)
    else:
        rest = []
    files: dict[str, bytes] = {}
    if kept:
        metadata = [("aqmlab.scenario_hash", digest), ("aqmlab.seeds", json.dumps(kept)),
                    ("aqmlab.version", _native.__version__)]  # fmt: skip
        files = {f"{name}.parquet": data for name, data in pack.parquet(metadata).items()}
        files[PACK_SUMMARIES] = ("\n".join(summaries) + "\n").encode("utf-8")
    return PackRun(kept, summaries, files, failures, rest)
