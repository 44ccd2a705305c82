"""Sweeps: a base scenario, axes of values at key paths, and seeds — run into a store.

A sweep's points are the Cartesian product of its axes (or, with ``zip``, the axes taken side by
side); each point runs once per seed. From Python::

    aqmlab.sweep("web.toml", vary={"queue.limit": ["30p", "60p"], "traffic[web].users": [2000]},
                 seeds=range(1, 6), out="runs/queues")

on the command line, ``aqmlab sweep web.toml --vary queue.limit=30p,60p --seeds 1-5 --out DIR``;
or as a TOML file, as reviewable as a scenario::

    name = "queues"
    scenario = "web.toml"          # a path relative to this file, or an inline [scenario] table
    seeds = "1-5"                  # or [1, 2, 3]
    zip = false                    # true or false (not a string)
    max_runs = 100000              # optional: the most runs (points × seeds), 100,000 by default

    [[axis]]
    path = "queue.limit"
    values = ["30p", "60p", "120p"]
    labels = ["30", "60", "120"]   # optional: how tables name the values
    name = "queue"                 # optional: the axis' column name (default: its path)

Every key is checked for its type as the command line's options are, and a sweep of more runs
than ``max_runs`` (``--max-runs``) is refused before its points are made. Every point's scenario
is validated before anything runs. The runs go into a
:class:`aqmlab.store.Store` (one directory per resolved scenario and seed, reused when whole and
made by the same engine build), and the sweep's index goes to ``sweeps/<name>.json`` so that
:func:`aqmlab.collect` can give each run its axis values.

>>> s = Sweep.from_options({"duration": "1s"}, ["queue.limit=10p,20p", "duration=2s,3s"],
...                        seeds="1-2", zip=True)
>>> [p.values for p in s.points()]
[{'queue.limit': '10p', 'duration': '2s'}, {'queue.limit': '20p', 'duration': '3s'}]
>>> s.seeds
(1, 2)
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import numbers
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import args
from aqmlab.args import MAX_SEED as MAX_SEED  # also importable from here (docs/performance.md)
from aqmlab.args import MAX_SEEDS as MAX_SEEDS
from aqmlab.errors import InputError, ScenarioError, shown
from aqmlab.executor import BatchProgress, DaskExecutor, Executor, Job, LocalExecutor, Outcome
from aqmlab.executor import connect as connect_scheduler
from aqmlab.scenario import (
    Scenario,
    ScenarioLike,
    as_scenario,
    format_path,
    parse_key,
    parse_value,
    read_toml,
    resolve,
    scenario_hash,
    set_path,
)
from aqmlab.store import Store, sweep_name

MAX_RUNS = 100_000
"""The most runs (points × seeds) a sweep may have unless it raises the limit: each point is
materialised as a scenario before anything runs."""


def sweep_label(name: str) -> str:
    """How progress lines and reports name a sweep: ``sweep NAME``, or ``sweep`` for the default.

    >>> sweep_label("queues"), sweep_label("sweep")
    ('sweep queues', 'sweep')
    """
    return "sweep" if name == "sweep" else f"sweep {name}"


def parse_seeds(text: str | int | Iterable[int], *, what: str = "--seeds") -> tuple[int, ...]:
    """Read seeds: ``"1-5"`` (a range, both ends included), ``"1,3,7"``, ``"4"``, or integers.

    >>> parse_seeds("1-3"), parse_seeds("1,3,7"), parse_seeds("4"), parse_seeds([2, 5])
    ((1, 2, 3), (1, 3, 7), (4,), (2, 5))
    >>> parse_seeds("5-1")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --seeds: expected a range from low to high like "1-5", got "5-1"
    >>> parse_seeds("x")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --seeds: expected seeds like "1-5" or "1,3,7", got "x"
    """
    if isinstance(text, numbers.Integral):
        text = [args.integer(what, text)]
    if not isinstance(text, str):
        if not isinstance(text, Iterable):
            raise args.ArgumentError(
                what, f'expected seeds like "1-5", an integer or a list of integers, got {text!r}'
            )
        seeds = [args.integer(what, s) for s in text]
        if not seeds:
            raise InputError(what, "expected at least one seed, got none")
    else:
        seeds = []
        for part in text.split(","):
            match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if match is None:
                raise InputError(
                    what, f'expected seeds like "1-5" or "1,3,7", got "{shown(text)}"'
                )
            low = int(match.group(1))
            high = int(match.group(2)) if match.group(2) is not None else low
            if high < low:
                raise InputError(
                    what, f'expected a range from low to high like "1-5", got "{part}"'
                )
            if high - low >= MAX_SEEDS:
                raise InputError(what, f"at most {MAX_SEEDS:,} seeds in a range, got {part}")
            seeds.extend(range(low, high + 1))
    for seed in seeds:
        if not 0 <= seed <= MAX_SEED:
            raise InputError(what, f"expected seeds from 0 to 2^64 - 1, got {seed}")
    if len(set(seeds)) != len(seeds):
        raise InputError(what, f"a seed is listed twice in {text!r}")
    return tuple(seeds)


def split_values(text: str) -> list[str]:
    """Split ``a,b,c`` at the commas outside brackets, braces and quotes.

    >>> split_values('30p,60p'), split_values('[1, 2],[3]'), split_values('"a,b",c')
    (['30p', '60p'], ['[1, 2]', '[3]'], ['"a,b"', 'c'])
    """
    parts, depth, quote, start = [], 0, "", 0
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def value_label(value: Any) -> str:
    """How a value is named when no label is given: strings as they are, others as JSON.

    >>> value_label("30p"), value_label(3000), value_label({"kind": "red"})
    ('30p', '3000', '{"kind": "red"}')
    """
    return value if isinstance(value, str) else json.dumps(value)


@dataclass(frozen=True)
class Axis:
    """Values for one key path; ``name`` is its column in collected tables (default: the path).

    >>> Axis.parse("traffic[web].users=2000,3000").values
    (2000, 3000)
    >>> Axis.parse("queue.limit=")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --vary: queue.limit: expected at least one value
    """

    path: str
    values: tuple[Any, ...]
    labels: tuple[str, ...] = ()
    name: str = ""

    def __post_init__(self) -> None:
        parse_key(self.path, what="--vary")
        if not self.values:
            raise InputError("--vary", f"{self.path}: expected at least one value")
        if self.labels and len(self.labels) != len(self.values):
            raise InputError(
                "--vary",
                f"{self.path}: {len(self.labels)} labels for {len(self.values)} values",
            )
        if not self.name:
            object.__setattr__(self, "name", self.path)
        if not self.labels:
            object.__setattr__(self, "labels", tuple(value_label(v) for v in self.values))

    @classmethod
    def parse(cls, text: str) -> Axis:
        """Read ``--vary KEY.PATH=V1,V2,…`` (each value read as in ``--set``)."""
        key, sep, raw = text.partition("=")
        if not sep or not key.strip():
            raise InputError("--vary", f'expected KEY.PATH=V1,V2,..., got "{text}"')
        values = tuple(parse_value(v) for v in split_values(raw) if v != "") if raw.strip() else ()
        return cls(format_path(parse_key(key, what="--vary")), values)


@dataclass(frozen=True)
class Point:
    """One point of a sweep: its index, the value (and label) of each axis, and its scenario."""

    index: int
    values: dict[str, Any]
    labels: dict[str, str]
    scenario: Scenario = field(repr=False)


@dataclass(frozen=True)
class Sweep:
    """A base scenario, axes, seeds; points are the axes' product (or, with ``zip``, pairs)."""

    base: Scenario = field(repr=False)
    axes: tuple[Axis, ...] = ()
    seeds: tuple[int, ...] = (1,)
    zip: bool = False
    name: str = "sweep"
    max_runs: int = field(default=MAX_RUNS, compare=False)

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for axis in self.axes:
            if axis.path in seen or axis.name in seen:
                raise InputError("--vary", f"{axis.path}: the same axis is given twice")
            seen.update((axis.path, axis.name))
        if self.zip and len({len(a.values) for a in self.axes}) > 1:
            lengths = ", ".join(f"{a.path} has {len(a.values)}" for a in self.axes)
            raise InputError("--zip", f"expected axes of the same length, but {lengths}")
        sweep_name(self.name)
        if not self.seeds:
            raise InputError("--seeds", "expected at least one seed")
        points = len(self.axes[0].values) if self.zip and self.axes else math.prod(
            len(a.values) for a in self.axes
        )
        if points * len(self.seeds) > self.max_runs:
            raise InputError(
                "--max-runs",
                f"the sweep has {points * len(self.seeds):,} runs ({points:,} points × "
                f"{len(self.seeds):,} seeds), more than {self.max_runs:,}; split it, or raise "
                "the limit (--max-runs, or max_runs in a sweep file)",
            )

    @classmethod
    def from_options(
        cls,
        base: ScenarioLike,
        vary: Sequence[str] | Mapping[str, Sequence[Any]] = (),
        *,
        seeds: str | int | Iterable[int] = (1,),
        zip: bool = False,
        name: str = "sweep",
    ) -> Sweep:
        """Build a sweep from ``--vary`` texts or a ``{path: values}`` mapping."""
        if isinstance(vary, Mapping):
            axes = tuple(
                Axis(format_path(parse_key(k, what="--vary")), tuple(v)) for k, v in vary.items()
            )
        else:
            axes = tuple(Axis.parse(text) for text in vary)
        return cls(as_scenario(base), axes, parse_seeds(seeds), zip, name)

    @classmethod
    def from_file(cls, path: str | Path) -> Sweep:
        """Read a sweep TOML file (see the module's docstring)."""
        data = read_toml(path)
        return cls.from_dict(data, relative_to=Path(path).parent, source=str(path))

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        *,
        relative_to: Path = Path("."),
        source: str = "sweep",
        max_runs: int | None = None,
    ) -> Sweep:
        """Build a sweep from the structure of a sweep file (``max_runs`` over the file's own).

        >>> Sweep.from_dict({"scenario": {"duration": "1s"}, "axis": [{"path": "seed"}]})
        Traceback (most recent call last):
        ...
        aqmlab.errors.InputError: axis[0].values: required key is missing
        """
        known = {"name", "scenario", "seeds", "zip", "axis", "max_runs"}
        for key in data:
            if key not in known:
                raise InputError(key, f"unknown key in a sweep file (expected: {sorted(known)})")
        if "scenario" not in data:
            raise InputError("scenario", "required key is missing (a path or a table)")
        base = data["scenario"]
        if isinstance(base, str):
            base = read_toml(relative_to / base)
        elif not isinstance(base, Mapping):
            raise InputError("scenario", "expected a path to a scenario file or a table")
        axes = []
        raw_axes = data.get("axis", [])
        if not isinstance(raw_axes, list):
            raise InputError("axis", "expected an array of tables ([[axis]])")
        for i, entry in enumerate(raw_axes):
            where = f"axis[{i}]"
            if not isinstance(entry, Mapping):
                raise InputError(where, "expected a table")
            for key in entry:
                if key not in {"path", "values", "labels", "name"}:
                    raise InputError(
                        f"{where}.{key}", "unknown key (expected path, values, labels, name)"
                    )
            for key in ("path", "values"):
                if key not in entry:
                    raise InputError(f"{where}.{key}", "required key is missing")
            if not isinstance(entry["values"], list):
                raise InputError(f"{where}.values", "expected an array of values")
            try:
                axes.append(
                    Axis(
                        args.text(f"{where}.path", entry["path"]),
                        tuple(entry["values"]),
                        tuple(args.texts(f"{where}.labels", entry.get("labels", []))),
                        args.text(f"{where}.name", entry.get("name", "")),
                    )
                )
            except InputError as err:  # named after the file's axis, not --vary
                raise InputError(where, err.message) from None
        seeds = data.get("seeds", [1])
        default_name = Path(source).stem if source != "sweep" else "sweep"
        return cls(
            as_scenario(base),
            tuple(axes),
            parse_seeds(seeds, what="seeds"),
            args.boolean("zip", data.get("zip", False)),
            args.text("name", data.get("name", default_name)),
            max_runs or args.integer("max_runs", data.get("max_runs", MAX_RUNS), low=1),
        )

    def points(self) -> list[Point]:
        """Every point with its scenario: the base with the axis values set, prepared once.

        A point's scenario is plain and its CDF files are embedded
        (:func:`aqmlab.scenario.as_scenario`), so that every run of it, on any executor, runs
        it as it is (:func:`aqmlab.runner.run_prepared`).
        """
        if not self.axes:
            return [Point(0, {}, {}, as_scenario(self.base))]
        choices = [range(len(a.values)) for a in self.axes]
        combos = zip(*choices, strict=True) if self.zip else itertools.product(*choices)
        points = []
        for index, combo in enumerate(combos):
            scenario = as_scenario(self.base)
            values, labels = {}, {}
            for axis, k in zip(self.axes, combo, strict=True):
                # A copy: a later axis's dotted path must not reach into the axis's own value
                # (a table shared by every point that takes it).
                set_path(scenario, parse_key(axis.path, what="--vary"),
                         copy.deepcopy(axis.values[k]))  # fmt: skip
                values[axis.name] = axis.values[k]
                labels[axis.name] = axis.labels[k]
            points.append(Point(index, values, labels, as_scenario(scenario)))
        return points


@dataclass(frozen=True)
class SweepResult:
    """A finished sweep: where its store is, and what became of each run."""

    store: Path
    name: str
    outcomes: list[Outcome]

    @property
    def failures(self) -> list[Outcome]:
        """The runs that failed."""
        return [o for o in self.outcomes if o.status == "failed"]

    def counts(self) -> dict[str, int]:
        """How many runs were reused, run, re-run (damaged, another build, failed) and failed."""
        counts = {"runs": len(self.outcomes), "reused": 0, "ran": 0, "rerun": 0, "failed": 0}
        for outcome in self.outcomes:
            counts[outcome.status] += 1
            counts["rerun"] += outcome.rerun is not None
        return counts


def plan(sweep: Sweep) -> tuple[list[Point], list[Job], dict[str, Any]]:
    """Validate every point, and list the jobs and the sweep's index for the store.

    A point whose scenario is invalid raises :class:`ScenarioError` naming the key path, with the
    axis values that led to it.
    """
    points = sweep.points()
    jobs: list[Job] = []
    entries = []
    for point in points:
        try:
            resolved = resolve(point.scenario)
        except ScenarioError as err:
            where = ", ".join(f"{k}={point.labels[k]}" for k in point.values)
            raise ScenarioError(
                err.path, f"{err.message}" + (f" (at {where})" if where else "")
            ) from None
        digest = scenario_hash(resolved)
        cost = _cost(resolved)
        label = ", ".join(f"{k}={point.labels[k]}" for k in point.values) or sweep.name
        jobs.extend(Job(point.scenario, seed, digest, cost, label) for seed in sweep.seeds)
        entries.append(
            {
                "index": point.index,
                "values": point.values,
                "labels": point.labels,
                "scenario_hash": digest,
            }
        )
    index = {
        "format": "aqmlab-sweep/1",
        "name": sweep.name,
        "base": sweep.base,
        "axes": [
            {"path": a.path, "name": a.name, "values": list(a.values), "labels": list(a.labels)}
            for a in sweep.axes
        ],
        "zip": sweep.zip,
        "seeds": list(sweep.seeds),
        "points": entries,
    }
    return points, jobs, index


_TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}


def seconds(text: Any) -> float:
    """Return a scenario duration (``"50min"``, ``"1.5s"``) in seconds; 1 for anything else.

    >>> seconds("50min"), seconds("250ms"), seconds(None)
    (3000.0, 0.25, 1.0)
    """
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s|min|h)\s*", str(text))
    return float(match.group(1)) * _TIME_UNITS[match.group(2)] if match else 1.0


def _cost(resolved: Mapping[str, Any]) -> float:
    """Return a run's rough weight on the progress bar: simulated seconds × (1 + sources).

    >>> _cost({"duration": "10s", "traffic": [{"users": 100}, {"flows": 4}]})
    1050.0
    """
    sources = 0
    for group in resolved.get("traffic", []):
        for key in ("users", "flows", "sessions"):
            if isinstance(group.get(key), int):
                sources += group[key]
    return seconds(resolved.get("duration")) * (1 + sources)


def run_sweep(
    sweep: Sweep,
    out: str | Path,
    *,
    executor: Executor | None = None,
    bar: BatchProgress | None = None,
    label: str | None = None,
    later_cost: float = 0.0,
) -> SweepResult:
    """Run a sweep into the store at ``out`` (created if new); see :func:`sweep`."""
    (result,) = run_sweeps(
        [sweep], out, executor=executor, bar=bar, label=label or sweep.name, later_cost=later_cost
    )
    return result


def run_sweeps(
    sweeps: Sequence[Sweep],
    out: str | Path,
    *,
    executor: Executor | None = None,
    bar: BatchProgress | None = None,
    label: str = "runs",
    later_cost: float = 0.0,
) -> list[SweepResult]:
    """Run several sweeps into one store as one batch: every worker stays busy to the end.

    A run that two sweeps share runs once. Returns one :class:`SweepResult` per sweep, in order.
    """
    planned = [plan(sweep)[1:] for sweep in sweeps]
    jobs = [job for sweep_jobs, _ in planned for job in sweep_jobs]
    store = Store.open(out, create=True)
    with store.lock():
        removed = store.remove_leftovers()
        replaced = []
        for sweep, (_, index) in zip(sweeps, planned, strict=True):
            if sweep.name in store.sweep_names() and store.load_sweep(sweep.name) != index:
                replaced.append(sweep.name)
            store.save_sweep(sweep.name, index)
        own_bar = bar is None
        bar = bar or BatchProgress(sweep_label(label), enabled=False)
        for name in replaced:
            said = (f'the store\'s sweep "{name}" held other points or seeds and is replaced by '
                    "this one (its runs stay stored; collect reads the new index); give --name "
                    "(name= in Python) to keep both")  # fmt: skip
            if bar.enabled:
                bar.log(f"warning: {said}")
            else:
                warnings.warn(said, stacklevel=3)
        if removed:
            bar.log(
                f"removed {len(removed)} partial run director"
                f"{'y' if len(removed) == 1 else 'ies'} left by an interrupted sweep"
            )
        if own_bar:
            with bar:
                outcomes = _execute(jobs, store, executor, bar, label, later_cost)
        else:
            outcomes = _execute(jobs, store, executor, bar, label, later_cost)
    results, start = [], 0
    for sweep, (sweep_jobs, _) in zip(sweeps, planned, strict=True):
        end = start + len(sweep_jobs)
        results.append(SweepResult(store.root, sweep.name, outcomes[start:end]))
        start = end
    return results


def _execute(
    jobs: list[Job],
    store: Store,
    executor: Executor | None,
    bar: BatchProgress,
    label: str,
    later_cost: float,
) -> list[Outcome]:
    from aqmlab.executor import execute

    return execute(jobs, store, executor=executor, bar=bar, label=label, later_cost=later_cost)


def make_executor(
    *, jobs: int | None = None, client: Any = None, scheduler: str | None = None, pack: bool = True
) -> Executor:
    """Return the executor for these options: Dask with ``client`` or ``scheduler``, else local.

    ``pack`` lets the workers, local or Dask's, store short runs of one scenario together
    (:mod:`aqmlab.store`, packs).
    """
    if client is not None and scheduler is not None:
        raise InputError("--scheduler", "give either a client or a scheduler address, not both")
    if scheduler is not None:
        client = connect_scheduler(scheduler)
    if client is not None:
        return DaskExecutor(client, pack=pack)
    return LocalExecutor(jobs, pack=pack)


def sweep(
    scenario: ScenarioLike,
    *,
    vary: Sequence[str] | Mapping[str, Sequence[Any]] = (),
    seeds: str | int | Iterable[int] = (1,),
    out: str | Path,
    jobs: int | None = None,
    client: Any = None,
    zip: bool = False,
    name: str = "sweep",
    progress: bool = True,
    pack: bool = True,
) -> SweepResult:
    """Run ``scenario`` at every point of the axes in ``vary``, once per seed, into a store.

    ``vary`` maps key paths (``"queue.limit"``, ``"traffic[web].users"``) to values, or is a
    list of ``--vary`` texts. Runs go to a local process pool of ``jobs`` workers (default: every
    core), or to a Dask cluster when ``client`` (a ``distributed.Client``) is given. Finished runs
    in ``out`` are reused; a failing run is recorded and the others go on (see
    :attr:`SweepResult.failures`). Short runs of one point are stored together, as packs, unless
    ``pack`` is false (:mod:`aqmlab.store`). Read the results with
    :func:`aqmlab.collect`.

    >>> import tempfile
    >>> base = {"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...         "traffic": [{"name": "cbr", "kind": "cbr", "rate": "1Mbps"}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     done = sweep(base, vary={"traffic[cbr].rate": ["1Mbps", "2Mbps"]}, seeds=[1, 2],
    ...                  out=tmp + "/store", jobs=1, progress=False)
    ...     done.counts()
    {'runs': 4, 'reused': 0, 'ran': 4, 'rerun': 0, 'failed': 0}
    """
    chosen = Sweep.from_options(
        scenario, vary, seeds=seeds, zip=args.boolean("zip", zip), name=args.text("name", name)
    )
    out = args.directory("out", out)
    args.boolean("progress", progress)
    executor = make_executor(jobs=jobs, client=client, pack=pack)
    bar = BatchProgress(sweep_label(name), enabled=progress)
    with bar:
        return run_sweep(chosen, out, executor=executor, bar=bar)
