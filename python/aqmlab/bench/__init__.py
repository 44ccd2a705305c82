"""Reference benchmarks: the engine's speed on scenarios shipped with the package.

Each ``*.toml`` file in this package directory is a reference scenario, named by its file stem;
adding a reference is a matter of dropping a file in. A reference named ``<base>-red`` is ``<base>``
with a RED bottleneck queue; when both run, :func:`ratios` compares their wall times.

:func:`measure` runs a reference in a child process of its own (``python -m aqmlab.bench NAME``),
so that its whole-process time and peak memory (the child's own ``VmHWM``) are its alone, and then
replays the first events the run schedules on the event queue alone and on a bare binary heap
(:func:`ceiling`): the engine's ceiling on the same mix of events, measured in the same run.

>>> {"tcp-100-newreno", "tcp-100-newreno-red", "udp-poisson-95"} <= set(references())
True
"""

from __future__ import annotations

import json
import math
import sys
import time
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aqmlab import _native, args
from aqmlab.errors import ScenarioError
from aqmlab.scenario import Scenario, ScenarioLike, to_json

if TYPE_CHECKING:  # pandas and pyarrow: the bench's child processes need neither
    from aqmlab.result import Result

SMOKE_DURATION = "200ms"
"""How long each reference runs under ``--smoke``: the bench code runs, its figures mean nothing."""

CEILING_EVENTS = 2_000_000
"""How many of a run's first scheduled events the bare-queue ceiling replays (32 B each)."""


def references() -> dict[str, Path]:
    """Return the reference scenario files by name, sorted by name.

    They are files beside this module (not looked up through :mod:`importlib.resources`, whose
    import costs the bench's child process 0.01-0.02 s of the start-up it times).
    """
    files = Path(__file__).parent.glob("*.toml")
    return {f.name.removesuffix(".toml"): f for f in sorted(files, key=lambda f: f.name)}


def select(only: list[str] | None = None) -> dict[str, Path]:
    """Return the references to run: all of them, or those named in ``only``.

    >>> select(["nope"])
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --only: no reference scenario named "nope" (have: ...)
    """
    available = references()
    if not only:
        return available
    for name in only:
        if name not in available:
            raise ScenarioError(
                "--only",
                f'no reference scenario named "{name}" (have: {", ".join(available)})',
            )
    return {name: available[name] for name in only}


def load_reference(file: Path) -> Scenario:
    """Read a reference scenario shipped in the package.

    >>> load_reference(references()["udp-poisson-95"])["duration"]
    '1h'
    """
    return tomllib.loads(file.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class BenchRow:
    """Speed of one reference run.

    ``wall_s`` is the engine's own time (``meta.wall_s``); ``packets`` the packets that left the
    bottleneck, both directions (whole run: the references have no warm-up). The rest is known when
    :func:`measure` ran it: ``process_s`` (wall), ``process_cpu_s`` (user + system) and
    ``peak_rss_bytes`` (``VmHWM``) of the child process (start-up, scenario reading and Python
    included), ``command_s``: the wall time of the command a user types, ``aqmlab run REFERENCE
    --out DIR`` as a whole process, every table written (median of the runs), and the event-queue
    ceiling: events per second when the run's first events are pushed and popped on the queue alone
    (``ceiling_events_per_s``) and on a bare binary heap (``heap_events_per_s``); each the median of
    ``runs`` runs. What the run did, to set beside ns-3's (:mod:`aqmlab.bench.ns3`): ``goodput_bps``
    summed over its TCP connections (None without TCP), and the forward bottleneck's ``drops_pkts``,
    ``arrivals_pkts`` and ``mean_queue_pkts`` (sampled, not counting the packet on the wire). The
    ``run_*`` fields keep each run's figures (engine time, the typed command's time, and the
    replays after it), whose medians the others are.

    >>> row = BenchRow("x", simulated_s=60.0, events=1_000_000, wall_s=0.5, packets=100_000)
    >>> row.events_per_s, row.speedup, row.packets_per_s, row.ns_per_packet
    (2000000.0, 120.0, 200000.0, 5000.0)
    >>> replace(row, ceiling_events_per_s=8e6, heap_events_per_s=3e6).heap_over_engine
    1.5
    """

    name: str
    simulated_s: float
    events: int
    wall_s: float
    packets: int = 0
    process_s: float | None = None
    peak_rss_bytes: int | None = None
    ceiling_events_per_s: float | None = None
    heap_events_per_s: float | None = None
    goodput_bps: float | None = None
    drops_pkts: int | None = None
    arrivals_pkts: int | None = None
    mean_queue_pkts: float | None = None
    process_cpu_s: float | None = None
    command_s: float | None = None
    runs: int = 1
    run_wall_s: tuple[float, ...] = ()
    run_command_s: tuple[float, ...] = ()
    run_ceiling_events_per_s: tuple[float, ...] = ()
    run_heap_events_per_s: tuple[float, ...] = ()

    def did(self) -> tuple[Any, ...]:
        """Return what the run did, not how fast: the same in every run of a reference."""
        return (self.events, self.packets, self.goodput_bps, self.drops_pkts,
                self.arrivals_pkts, self.mean_queue_pkts)  # fmt: skip

    @property
    def events_per_s(self) -> float:
        """Events processed per second of engine wall time."""
        return self.events / self.wall_s if self.wall_s > 0 else float("inf")

    @property
    def speedup(self) -> float:
        """Simulated seconds per second of engine wall time."""
        return self.simulated_s / self.wall_s if self.wall_s > 0 else float("inf")

    @property
    def packets_per_s(self) -> float:
        """Bottleneck packets per second of engine wall time."""
        return self.packets / self.wall_s if self.wall_s > 0 else float("inf")

    @property
    def ns_per_packet(self) -> float:
        """Engine nanoseconds per bottleneck packet (NaN if none left it)."""
        return self.wall_s * 1e9 / self.packets if self.packets else float("nan")

    @property
    def ceiling_over_engine(self) -> float | None:
        """The queue alone's events per second over the engine's (None without a ceiling)."""
        return self.ceiling_events_per_s / self.events_per_s if self.ceiling_events_per_s else None

    @property
    def heap_over_engine(self) -> float | None:
        """A bare binary heap's events per second over the engine's (None without a ceiling)."""
        return self.heap_events_per_s / self.events_per_s if self.heap_events_per_s else None

    @property
    def heap_over_engine_runs(self) -> list[float]:
        """:attr:`heap_over_engine` of each run, with the replay that followed it.

        >>> BenchRow("x", 1.0, 10, 1.0, run_wall_s=(1.0, 2.0),
        ...          run_heap_events_per_s=(30.0, 40.0)).heap_over_engine_runs
        [3.0, 8.0]
        """
        pairs = zip(self.run_wall_s, self.run_heap_events_per_s, strict=False)
        return [heap * wall / self.events for wall, heap in pairs]

    def to_json(self) -> dict[str, Any]:
        """Return the row's fields and derived figures, for ``aqmlab bench --json``.

        >>> BenchRow("x", 1.0, 10, 0.5, 5).to_json()["ns_per_packet"]
        100000000.0
        """
        derived = ("events_per_s", "speedup", "packets_per_s", "ns_per_packet",
                   "ceiling_over_engine", "heap_over_engine", "heap_over_engine_runs")  # fmt: skip
        return asdict(self) | {key: getattr(self, key) for key in derived}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BenchRow:
        """Read a row written by :meth:`to_json` (derived figures are recomputed).

        >>> row = BenchRow("x", 1.0, 10, 0.5, 5, process_s=0.9)
        >>> BenchRow.from_json(row.to_json()) == row
        True
        """
        names = cls.__dataclass_fields__
        fields: dict[str, Any] = {key: tuple(value) if isinstance(value, list) else value
                                  for key, value in data.items() if key in names}  # fmt: skip
        return cls(**fields)

    @classmethod
    def from_summary(
        cls, name: str, summary: dict[str, Any], goodput_bps: float | None
    ) -> BenchRow:
        """Read the speed figures from a run's summary (``meta`` and the logged links' counts).

        ``packets`` counts every packet's crossing of a logged link (the dumbbell's bottleneck, a
        parking lot's hops), so that ns per packet is per packet and hop; the drops, arrivals and
        mean queue are the dumbbell's forward direction's, elsewhere summed over the logged
        directions.

        >>> d = {"departures_pkts": 5, "drops_pkts": 1, "arrivals_pkts": 6, "mean_queue_pkts": 2}
        >>> meta = {"duration_s": 1, "events": 9, "wall_s": 0.1}
        >>> row = BenchRow.from_summary("x", {"meta": meta, "r0-r1": d, "r1-r2": d}, None)
        >>> row.packets, row.drops_pkts, row.mean_queue_pkts
        (10, 2, 4.0)
        """
        meta: dict[str, Any] = summary["meta"]
        logged = [v for v in summary.values() if isinstance(v, dict) and "departures_pkts" in v]
        queues = [summary["forward"]] if "forward" in summary else logged
        return cls(
            name=name,
            simulated_s=float(meta["duration_s"]),
            events=int(meta["events"]),
            wall_s=float(meta["wall_s"]),
            packets=sum(int(d["departures_pkts"]) for d in logged),
            goodput_bps=goodput_bps,
            drops_pkts=sum(int(d["drops_pkts"]) for d in queues),
            arrivals_pkts=sum(int(d["arrivals_pkts"]) for d in queues),
            mean_queue_pkts=math.fsum(float(d["mean_queue_pkts"]) for d in queues),
        )

    @classmethod
    def from_result(cls, name: str, result: Result) -> BenchRow:
        """Read the speed figures from a run's :class:`~aqmlab.result.Result`."""
        goodput = result.column("connections", "goodput_bps")
        return cls.from_summary(name, result.summary, math.fsum(goodput) if goodput else None)


def bench_one(name: str, scenario: ScenarioLike) -> BenchRow:
    """Run one scenario and measure it (engine time only: ``meta.wall_s``).

    It calls the engine directly, not :func:`aqmlab.run`: the bench child process then builds no
    :class:`~aqmlab.result.Result` and imports neither pyarrow, pandas nor NumPy, which its
    whole-process time would include without using them; the engine and its summary are the
    same. The goodput is summed from the ``connections`` table's column as the engine hands it
    over (a ``memoryview``), with :func:`math.fsum` (correctly rounded).

    >>> row = bench_one("tiny", {"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}}})
    >>> row.simulated_s, row.goodput_bps
    (1.0, None)
    """
    try:
        summary_json, columns = _native.run(to_json(scenario), None)
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    goodput = columns["connections"]["goodput_bps"]
    assert isinstance(goodput, memoryview), "connections.goodput_bps is an f64 column"
    return BenchRow.from_summary(name, json.loads(summary_json),
                                 math.fsum(goodput) if len(goodput) else None)  # fmt: skip


def cache_bytecode() -> bool:
    """Compile aqmlab's Python modules to bytecode once, as installing a package does.

    The bench's child processes then time what a user's process does: load cached bytecode,
    not compile every module from source (an editable install where ``PYTHONDONTWRITEBYTECODE``
    is set, as in some CI and sandboxes, never caches it: +0.03 to 0.05 s of CPU on every
    process). Honours ``PYTHONPYCACHEPREFIX``; returns False if a file could not be compiled or
    written (a read-only install, which pip compiled already).

    >>> cache_bytecode()
    True
    """
    import compileall  # the parent's tools are imported where used: the child times its imports

    package = Path(__file__).resolve().parent.parent
    return bool(compileall.compile_dir(package, quiet=2))


def shortened(scenario: Scenario, smoke: bool) -> Scenario:
    """Return the scenario as benchmarked: as is, or cut to :data:`SMOKE_DURATION` (smoke run)."""
    return {**scenario, "duration": SMOKE_DURATION} if smoke else scenario


def measure(
    name: str,
    *,
    smoke: bool = False,
    with_ceiling: bool = True,
    runs: int = 1,
    between: Callable[[], None] | None = None,
) -> BenchRow:
    """Run reference ``name`` in a child process ``runs`` times and measure it, and its ceiling.

    ``between`` is called after each run: another simulator's run of the same reference made
    there alternates with aqmlab's, so that each pair meets the machine in the same state.

    The ceiling's events are recorded once, first (:func:`ceiling`); after each run they are
    replayed once on the queue and once on the binary heap, so that each run and its replays
    meet the machine in the same state. Each figure is the median of the runs (peak memory: the
    largest). The runs must agree on what they did (events, packets, goodput, drops, mean
    queue): a run is a pure function of its scenario and seed, and a RuntimeError says so if
    not. ``smoke`` cuts every run to :data:`SMOKE_DURATION` (for tests: the figures mean
    nothing).

    >>> row = measure("udp-poisson-95", smoke=True, runs=2)
    >>> row.simulated_s, row.runs, row.process_s > row.wall_s, row.peak_rss_bytes > 0
    (0.2, 2, True, True)
    >>> row.ceiling_events_per_s > 0 and row.heap_events_per_s > 0
    True
    """
    import statistics
    import tempfile

    command = [sys.executable, "-m", "aqmlab.bench", name] + (["--smoke"] if smoke else [])
    recorded = ceiling(name, smoke=smoke) if with_ceiling else None
    timed, replays, typed = [], [], []
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as tmp:
        user_command = [sys.executable, "-m", "aqmlab", "run", str(references()[name]),
                        "--out", str(Path(tmp) / "run"), "--force"]  # fmt: skip
        if smoke:
            user_command += ["--set", f"duration={SMOKE_DURATION}"]
        for _ in range(runs):
            timed.append(run_timed(command))
            if recorded is not None:
                replays.append(recorded.replay())
            typed.append(run_timed(user_command)[1])
            if between is not None:
                between()
    rows = [BenchRow.from_json(json.loads(output)) for output, _, _ in timed]
    differ = [row.did() for row in rows if row.did() != rows[0].did()]
    if differ:
        raise RuntimeError(f"bench: {name}: runs of the same scenario differ: "
                           f"{rows[0].did()} and {differ[0]}")  # fmt: skip
    peaks = [row.peak_rss_bytes for row in rows if row.peak_rss_bytes is not None]
    median = statistics.median
    queue = median(n / s for n, s, _ in replays) if replays else None
    heap = median(n / s for n, _, s in replays) if replays else None
    return replace(rows[0], runs=runs, wall_s=median(row.wall_s for row in rows),
                   process_s=median(wall for _, wall, _ in timed),
                   process_cpu_s=median(cpu for _, _, cpu in timed), command_s=median(typed),
                   peak_rss_bytes=max(peaks) if peaks else None, ceiling_events_per_s=queue,
                   heap_events_per_s=heap, run_wall_s=tuple(row.wall_s for row in rows),
                   run_command_s=tuple(typed),
                   run_ceiling_events_per_s=tuple(n / s for n, s, _ in replays),
                   run_heap_events_per_s=tuple(n / s for n, _, s in replays))  # fmt: skip


def run_timed(
    argv: list[str], stdin: str | None = None, cwd: str | Path | None = None
) -> tuple[str, float, float]:
    r"""Run a child process and return its standard output, wall seconds and CPU seconds.

    ``cwd`` is the child's working directory. CPU seconds are the child's user + system time
    (``RUSAGE_CHILDREN`` before and after its exit: steadier than wall time on a shared machine). A
    child that fails raises ``RuntimeError`` with the end of its standard error.


    >>> out, wall, cpu = run_timed([sys.executable, "-c", "print(2)"])
    >>> out, wall > 0, cpu >= 0
    ('2\n', True, True)
    """
    import resource
    import subprocess

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    child = subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False,
                           cwd=cwd)  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if child.returncode != 0:
        raise RuntimeError(f"bench: {' '.join(argv)} exited with status {child.returncode}: "
                           f"{child.stderr.strip()[-2000:]}")  # fmt: skip
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return child.stdout, wall, cpu


def ceiling(name: str, *, smoke: bool = False) -> _native.QueueCeiling:
    """Return the event-queue ceiling of reference ``name``, recorded, ready to replay.

    Its run's first :data:`CEILING_EVENTS` events; each ``replay()`` pushes and pops them as the
    run did, on the event queue alone and on a bare binary heap, and returns ``(events popped,
    queue seconds, binary-heap seconds)``.

    >>> popped, queue_s, heap_s = ceiling("udp-poisson-95", smoke=True).replay()
    >>> popped > 0 and queue_s > 0 and heap_s > 0
    True
    """
    scenario = shortened(load_reference(references()[name]), smoke)
    return _native.QueueCeiling(to_json(scenario), None, 10_000 if smoke else CEILING_EVENTS)


def compare(rows: Iterable[BenchRow], baseline: Iterable[BenchRow]) -> list[dict[str, Any]]:
    """Return the ratios this / baseline for the references in both rows.

    Engine time, ns per packet, process time and peak memory (below 1 is faster or smaller), and
    events per second (above 1 is faster); ``runs``: each side's number of runs, (this,
    baseline) (medians of several against one run are as noisy as the one run).

    >>> new, old = BenchRow("a", 1.0, 10, 0.5, 5, 1.0, 100), BenchRow("a", 1.0, 10, 1.0, 5, 2.0, 50)
    >>> compare([replace(new, runs=3)], [old])
    [{'scenario': 'a', 'runs': (3, 1), 'wall_s': 0.5, 'ns_per_packet': 0.5, 'events_per_s': 2.0, \
'process_s': 0.5, 'peak_rss_bytes': 2.0}]
    """
    old = {row.name: row for row in baseline}
    out = []
    for row in rows:
        base = old.get(row.name)
        if base is None:
            continue
        ratios: dict[str, Any] = {"scenario": row.name, "runs": (row.runs, base.runs)}
        for key in ("wall_s", "ns_per_packet", "events_per_s", "process_s", "peak_rss_bytes"):
            a, b = getattr(row, key), getattr(base, key)
            ratios[key] = a / b if a is not None and b else None
        out.append(ratios)
    return out


VARIANT_SUFFIXES = ("-red",)
"""Name suffixes of references that are another reference with one thing changed."""


def ratios(rows: Iterable[BenchRow]) -> list[tuple[str, str, float]]:
    """Pair each variant reference (``<base>-red``) with its base, if both ran.

    Returns ``(variant, base, wall-time ratio variant / base)`` in the order of ``rows``. Wall
    seconds, not events per second, are compared: the variant may process a different number
    of events for the same simulated time, and what it costs is the time it takes.

    >>> rows = [BenchRow("a", 10.0, 100, 2.0), BenchRow("a-red", 10.0, 90, 3.0)]
    >>> ratios(rows + [BenchRow("b-red", 1.0, 1, 1.0)])
    [('a-red', 'a', 1.5)]
    """
    rows = list(rows)
    by_name = {row.name: row for row in rows}
    found = []
    for row in rows:
        for suffix in VARIANT_SUFFIXES:
            base = by_name.get(row.name.removesuffix(suffix)) if row.name.endswith(suffix) else None
            if base is not None and base.wall_s > 0:
                found.append((row.name, base.name, row.wall_s / base.wall_s))
    return found


STARTUP_REFERENCE = "tcp-100-newreno-red"
"""The reference the start-up figures validate, and run for :data:`STARTUP_RUN_DURATION`."""

STARTUP_RUN_DURATION = "1s"
STARTUP_RUNS = 5
"""How often each start-up command runs (after one run not counted); the median is quoted."""


@dataclass(frozen=True)
class StartupRow:
    """Whole-process time of one command line, over ``runs`` runs after a warm-up run.

    ``wall_s`` is the median wall time, ``wall_min_s`` and ``wall_max_s`` its range, ``cpu_s`` the
    median user + system time of the process (steadier than wall time on a shared machine).

    >>> StartupRow("aqmlab --version", 5, 0.2, 0.19, 0.3, 0.18).to_json()["command"]
    'aqmlab --version'
    """

    command: str
    runs: int
    wall_s: float
    wall_min_s: float
    wall_max_s: float
    cpu_s: float

    def to_json(self) -> dict[str, Any]:
        """Return the row's fields, for ``aqmlab bench --json``."""
        return asdict(self)


def startup(*, runs: int = STARTUP_RUNS) -> list[StartupRow]:
    """Time the command line's start-up as whole processes: ``--version``, ``validate``, a run.

    ``validate`` checks :data:`STARTUP_REFERENCE`; the run is the same reference cut to
    :data:`STARTUP_RUN_DURATION` of simulated time, written to a temporary run directory.

    >>> [row.command for row in startup(runs=1)]
    ['aqmlab --version', 'aqmlab validate tcp-100-newreno-red.toml', \
'aqmlab run tcp-100-newreno-red.toml --set duration=1s']
    """
    import statistics
    import tempfile

    aqmlab = [sys.executable, "-m", "aqmlab"]
    name = STARTUP_REFERENCE
    scenario = references()[name]
    with tempfile.TemporaryDirectory() as tmp:
        commands = {
            "--version": ["--version"],
            f"validate {name}.toml": ["validate", str(scenario)],
            f"run {name}.toml --set duration={STARTUP_RUN_DURATION}": [
                "run", str(scenario), "--set", f"duration={STARTUP_RUN_DURATION}",
                "--out", f"{tmp}/run", "--force"],
        }  # fmt: skip
        rows = []
        for label, argv in commands.items():
            timed = [run_timed(aqmlab + argv)[1:] for _ in range(runs + 1)][1:]  # one warm-up
            walls, cpus = [wall for wall, _ in timed], [cpu for _, cpu in timed]
            rows.append(StartupRow(f"aqmlab {label}", runs, statistics.median(walls), min(walls),
                                   max(walls), statistics.median(cpus)))  # fmt: skip
    return rows


SWEEP_RUNS = 1000
"""How many runs the short-sweep figure sweeps: seeds 1 to this, of :data:`STARTUP_REFERENCE` cut
to :data:`STARTUP_RUN_DURATION`."""
SWEEP_START_RUNS = 2
"""The runs of the sweep that measures what any sweep costs: start-up, workers, store."""


@dataclass(frozen=True)
class SweepRow:
    """A sweep of short runs, the command a user types, and how much of it is the engine.

    ``wall_s`` and ``cpu_s`` are the whole command's (CPU: its processes' user + system time, the
    workers included); ``start_wall_s`` and ``start_cpu_s`` the same sweep of
    :data:`SWEEP_START_RUNS` runs (start-up, workers, store: what any sweep costs).
    ``simulation_s`` is the sum of the runs' own simulation time (``meta.wall_s``); ``engine_s``
    the same runs through the engine alone, in one process, in the packs a sweep makes
    (:class:`aqmlab._native.Pack`: the simulation, its tables and their Parquet files). Every
    other second is outside the engine: Python, the store, manifests, hashing, processes.

    >>> row = SweepRow("aqmlab sweep", 1000, 2, 1.0, 1.5, 0.4, 0.5, 0.5, 0.9)
    >>> round(row.outside_cpu, 3), round(row.outside_wall, 3), round(row.outside_per_run, 3)
    (0.4, 0.55, 0.102)
    """

    command: str
    runs: int
    workers: int
    wall_s: float
    cpu_s: float
    start_wall_s: float
    start_cpu_s: float
    simulation_s: float
    engine_s: float

    @property
    def outside_cpu(self) -> float:
        """The share of the command's CPU time outside the engine."""
        return 1.0 - self.engine_s / self.cpu_s

    @property
    def outside_wall(self) -> float:
        """The share of the workers' wall time (``workers`` × ``wall_s``) outside the engine."""
        return 1.0 - self.engine_s / (self.workers * self.wall_s)

    @property
    def outside_per_run(self) -> float:
        """The share outside the engine of what each run adds to the command's CPU time."""
        added = (self.cpu_s - self.start_cpu_s) / (self.runs - SWEEP_START_RUNS)
        return 1.0 - self.engine_s / self.runs / added

    def to_json(self) -> dict[str, Any]:
        """Return the row's fields and shares, for ``aqmlab bench --json``."""
        shares = {"outside_cpu": self.outside_cpu, "outside_wall": self.outside_wall,
                  "outside_per_run": self.outside_per_run}  # fmt: skip
        return asdict(self) | shares


def short_sweep(*, runs: int = SWEEP_RUNS, workers: int | None = None) -> SweepRow:
    """Time ``aqmlab sweep`` of ``runs`` 1-second runs as a whole process, beside the engine.

    The sweep goes to a fresh store. The engine's time is measured after it on the same seeds, in
    the chunks the sweep hands its workers (:func:`aqmlab.executor.chunked`), dealt in turn to
    ``workers`` processes running at once (:func:`pack_seconds`), so that the engine shares the
    cores as it did in the sweep; the sum of their times is ``engine_s``.

    >>> row = short_sweep(runs=6, workers=1)
    >>> row.runs, row.workers, 0 < row.simulation_s < row.engine_s < row.cpu_s
    (6, 1, True)
    """
    import subprocess
    import tempfile

    from aqmlab.executor import chunked, default_workers
    from aqmlab.reading import collect
    from aqmlab.runner import prepare

    runs = args.integer("runs", runs, low=SWEEP_START_RUNS + 1)
    workers = workers or default_workers()
    reference = references()[STARTUP_REFERENCE]
    setting = f"duration={STARTUP_RUN_DURATION}"
    timed: dict[int, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-sweep-") as tmp:
        for count in (SWEEP_START_RUNS, runs):
            argv = [sys.executable, "-m", "aqmlab", "sweep", str(reference), "--set", setting,
                    "--seeds", f"1-{count}", "-j", str(workers), "--out", f"{tmp}/{count}"]
            timed[count] = run_timed(argv)[1:]
        walls = collect(f"{tmp}/{runs}", columns=["meta.wall_s"])["meta.wall_s"]
        simulation_s = float(walls.sum())
        scenario = Path(tmp) / "scenario.json"
        scenario.write_text(json.dumps(prepare(load_reference(reference), set=[setting])))
        packs = [[seed + 1 for seed in chunk] for chunk in chunked([1.0] * runs, workers)]
        code = ("import json, sys; from aqmlab.bench import pack_seconds; "
                "print(pack_seconds(sys.argv[1], json.loads(sys.argv[2])))")  # fmt: skip
        children = [subprocess.Popen([sys.executable, "-c", code, str(scenario),
                                      json.dumps(packs[k::workers])],
                                     stdout=subprocess.PIPE, text=True)
                    for k in range(workers)]  # fmt: skip
        engine_s = 0.0
        for child in children:
            out, _ = child.communicate()
            if child.returncode != 0:
                raise RuntimeError(f"bench: the engine's time on the sweep's packs: a child "
                                   f"exited with status {child.returncode}")  # fmt: skip
            engine_s += float(out)
    command = f"aqmlab sweep {reference.stem}.toml --set {setting} --seeds 1-{runs} -j {workers}"
    return SweepRow(command, runs, workers, *timed[runs], *timed[SWEEP_START_RUNS], simulation_s,
                    engine_s)  # fmt: skip


def pack_seconds(scenario_file: str, packs: list[list[int]]) -> float:
    """Return the seconds the engine alone takes on each pack of seeds of a scenario (JSON file).

    Per pack: the scenario read once, each seed run and its tables kept, and the pack's Parquet
    files written (:class:`aqmlab._native.Pack`), as a sweep's worker has the engine do.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
    ...     _ = f.write('{"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}}}')
    ...     f.flush()
    ...     pack_seconds(f.name, [[1, 2], [3]]) > 0
    True
    """
    text = Path(scenario_file).read_text(encoding="utf-8")
    started = time.perf_counter()
    for seeds in packs:
        pack = _native.Pack(text)
        for seed in seeds:
            pack.run(seed)
            pack.keep()
        pack.parquet([])
    return time.perf_counter() - started


PAPERS = ("christiansen2000", "zhang2001", "chung2003", "eddy2003")
"""The four papers ``aqmlab bench --studies`` reproduces, in this order."""


@dataclass(frozen=True)
class StudyRow:
    """How long one paper's reproduction took, its report included.

    ``runs`` distinct runs (``ran`` of them made now), ``wall_s`` in all, of which ``report_s``
    writing the report (tables, figures, findings).

    >>> StudyRow("zhang2001", "full", 6070, 6070, 600.0, 12.0).runs_s
    588.0
    """

    study: str
    scale: str
    runs: int
    ran: int
    wall_s: float
    report_s: float

    @property
    def runs_s(self) -> float:
        """The time spent running and judging (everything but the report)."""
        return self.wall_s - self.report_s

    def to_json(self) -> dict[str, Any]:
        """Return the row's fields and its ``runs_s``, for ``aqmlab bench --json``."""
        return asdict(self) | {"runs_s": self.runs_s}


def studies(out: Path, *, scale: str = "full", jobs: int | None = None,
            papers: Iterable[str] = PAPERS) -> list[StudyRow]:  # fmt: skip
    """Reproduce each paper at ``scale`` into ``out/<paper>`` and time it, report included.

    Runs found in ``out`` are reused (and counted as not made now): time a fresh folder.
    ``jobs`` is the number of worker processes (default: one per core).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (row,) = studies(Path(tmp), scale="smoke", papers=["chung2003"], jobs=1)
    >>> row.study, row.scale, row.runs == row.ran > 0, 0 < row.report_s < row.wall_s
    ('chung2003', 'smoke', True, True)
    """
    from aqmlab import papers as studies_by_name
    from aqmlab.study import reproduce

    rows = []
    for paper in papers:
        done = reproduce(studies_by_name.get(paper), scale, out / paper, jobs=jobs, progress=False)
        if done.failed:
            raise RuntimeError(f"bench: {paper} at {scale} scale: {len(done.failed)} runs failed, "
                               f"the first: {done.failed[0]}")  # fmt: skip
        rows.append(StudyRow(paper, scale, done.runs, done.ran, done.wall_s, done.report_wall_s))
    return rows
