"""Many runs at once: :func:`run_many` runs scenarios on a process pool, saving their directories.

Each run is a :class:`RunSpec`: a key (the start of its directory's name), a scenario and a seed.
Its directory is ``<out>/<key>-<hash8>-seed<seed>`` (the hash of the resolved scenario), written in
the format of :meth:`aqmlab.Result.save`. A directory is written under a temporary name and renamed
when complete, so one that exists is whole; a later call finds it, checks its ``summary.json`` names
the same scenario hash and seed, and reuses it instead of running again. So an interrupted batch
resumes where it stopped, and a changed scenario (say, a new user count from a new calibration) runs
anew.

Runs go to worker processes (``spawn``ed; one per core by default). One rich progress bar on stderr
follows the whole batch, weighted by each run's estimated cost and fed by the workers' progress
callbacks; when stderr is not a terminal, one line per finished run is printed instead.

>>> spec = RunSpec("demo", {"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
...                         "traffic": [{"kind": "cbr", "rate": "1Mbps"}]}, seed=3)
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     (first,) = run_many([spec], tmp, jobs=1, progress=False)
...     (again,) = run_many([spec], tmp, jobs=1, progress=False)
...     first.reused, again.reused, again.directory == first.directory
(False, True, True)
>>> first.summary["meta"]["seed"], first.directory.name.startswith("demo-")
(3, True)
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue as queue_module
import shutil
import sys
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from aqmlab.scenario import Scenario, resolve, scenario_hash


@dataclass(frozen=True)
class RunSpec:
    """One run of a batch: ``key`` names its directory, ``cost`` weighs it on the progress bar."""

    key: str
    scenario: Scenario = field(compare=False)
    seed: int = 1
    cost: float = 1.0


@dataclass(frozen=True)
class RunRecord:
    """A finished run: its spec, directory, ``summary.json`` and whether it was reused."""

    spec: RunSpec
    directory: Path
    summary: dict[str, Any]
    reused: bool


def default_jobs() -> int:
    """Count the worker processes to use by default: one per core available to this process.

    >>> default_jobs() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def run_directory(out: Path, spec: RunSpec) -> tuple[Path, str]:
    """Name the directory a spec's run goes to, and its scenario hash (validating the scenario).

    >>> s = {"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}}}
    >>> d, digest = run_directory(Path("out"), RunSpec("x", s, seed=2))
    >>> d.as_posix() == f"out/x-{digest[:8]}-seed2"
    True
    """
    digest = scenario_hash(resolve(spec.scenario))
    return out / f"{spec.key}-{digest[:8]}-seed{spec.seed}", digest


def load_finished(directory: Path, digest: str, seed: int) -> dict[str, Any] | None:
    """Read the summary of a finished run in ``directory`` for this hash and seed, else ``None``."""
    try:
        summary: dict[str, Any] = json.loads((directory / "summary.json").read_text("utf-8"))
    except (OSError, ValueError):
        return None
    meta = summary.get("meta", {})
    if meta.get("scenario_hash") != digest or meta.get("seed") != seed:
        return None
    return summary


# Set in each worker by _init_worker: where progress reports go.
_PROGRESS: Any = None


def _init_worker(progress_queue: Any) -> None:
    global _PROGRESS
    _PROGRESS = progress_queue


def _run_one(index: int, scenario: Scenario, seed: int, directory: str) -> dict[str, Any]:
    """Worker: run one scenario, save its directory atomically, return its summary."""
    from aqmlab.runner import run  # imported here: a spawned worker starts from scratch

    last = [0.0]

    def report(fraction: float) -> None:
        now = time.monotonic()
        if _PROGRESS is not None and (now - last[0] > 0.2 or fraction >= 1.0):
            last[0] = now
            _PROGRESS.put((index, fraction))

    result = run(scenario, seed=seed, progress=report)
    final = Path(directory)
    partial = final.with_name(f".{final.name}.partial-{os.getpid()}")
    if partial.exists():
        shutil.rmtree(partial)
    result.save(partial)
    if final.exists():
        shutil.rmtree(final)
    partial.rename(final)
    return result.summary


class BatchProgress:
    """One rich progress bar (stderr) over one or more batches of runs, weighted by their cost.

    A batch says what it will cost when it starts (:meth:`start_batch`, with ``later_cost``, an
    estimate of the batches still to come, so the bar does not jump back), reports its progress,
    and adds its cost to the base when it ends. When stderr is not a terminal the bar is not drawn
    and :meth:`log` lines are printed instead.

    >>> with BatchProgress("demo", enabled=False) as bar:
    ...     bar.start_batch("a", cost=10.0, runs=2, reused=0, later_cost=5.0)
    ...     bar.update(5.0, finished=1)
    ...     bar.end_batch()
    ...     bar.completed, bar.total
    (10.0, 15.0)
    """

    def __init__(self, label: str, *, enabled: bool = True) -> None:
        self.label = label
        self.console = Console(stderr=True)
        self.enabled = enabled
        self.interactive = enabled and (self.console.is_terminal or self.console.is_jupyter)
        self.base = 0.0
        self.batch_cost = 0.0
        self.completed = 0.0
        self.total = 0.0
        self.started = time.monotonic()
        self._description = label
        self._bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            disable=not self.interactive,
        )
        self._task = self._bar.add_task(label, total=None)

    def __enter__(self) -> BatchProgress:
        self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.stop()

    def start_batch(
        self, name: str, *, cost: float, runs: int, reused: int, later_cost: float = 0.0
    ) -> None:
        """Start a batch of ``runs`` runs costing ``cost`` (``reused`` more were found done)."""
        self.batch_cost = cost
        self.total = self.base + cost + later_cost
        self._description = f"{self.label} · {name}: {{}}/{runs} run{'s' if runs != 1 else ''}"
        if reused:
            self._description += f" (+{reused} reused)"
        self.update(0.0, finished=0)

    def update(self, batch_completed: float, *, finished: int) -> None:
        """Record the batch's progress: ``batch_completed`` of its cost, ``finished`` runs."""
        self.completed = self.base + batch_completed
        self._bar.update(
            self._task,
            completed=self.completed,
            total=max(self.total, self.completed),
            description=self._description.format(finished),
        )

    def end_batch(self) -> None:
        """End the current batch: its cost joins the base."""
        self.base += self.batch_cost
        self.completed = self.base
        self.batch_cost = 0.0

    def log(self, line: str) -> None:
        """Print a line of progress on stderr when the bar is not drawn."""
        if self.enabled and not self.interactive:
            elapsed = time.monotonic() - self.started
            sys.stderr.write(f"{self.label}: {line} ({elapsed:.0f} s elapsed)\n")
            sys.stderr.flush()


def run_many(
    specs: Sequence[RunSpec],
    out: str | Path,
    *,
    jobs: int | None = None,
    progress: bool | BatchProgress = True,
    label: str = "runs",
    later_cost: float = 0.0,
) -> list[RunRecord]:
    """Run every spec not already finished in ``out``, in parallel; return records in spec order.

    ``jobs`` worker processes (default: one per core). Keys must be unique. ``progress`` is
    ``True`` (a bar of its own), ``False`` (silent) or a :class:`BatchProgress` shared with other
    batches (``later_cost`` estimates what they still cost). A failing run raises its exception
    after the queued runs are cancelled; finished run directories stay.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    keys = [spec.key for spec in specs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"run keys must be unique, got {keys}")
    plan: list[tuple[RunSpec, Path, str]] = [(s, *run_directory(out, s)) for s in specs]
    records: dict[int, RunRecord] = {}
    todo: list[int] = []
    for index, (spec, directory, digest) in enumerate(plan):
        summary = load_finished(directory, digest, spec.seed)
        if summary is not None:
            records[index] = RunRecord(spec, directory, summary, reused=True)
        else:
            todo.append(index)
    if isinstance(progress, BatchProgress):
        bar = progress
        bar.start_batch(
            label,
            cost=sum(plan[i][0].cost for i in todo),
            runs=len(todo),
            reused=len(records),
            later_cost=later_cost,
        )
        _execute(plan, todo, records, jobs or default_jobs(), bar)
        bar.end_batch()
    else:
        with BatchProgress(label, enabled=progress) as bar:
            bar.start_batch(
                "running", cost=sum(plan[i][0].cost for i in todo), runs=len(todo),
                reused=len(records),
            )  # fmt: skip
            _execute(plan, todo, records, jobs or default_jobs(), bar)
            bar.end_batch()
    return [records[index] for index in range(len(plan))]


def _execute(
    plan: list[tuple[RunSpec, Path, str]],
    todo: list[int],
    records: dict[int, RunRecord],
    jobs: int,
    bar: BatchProgress,
) -> None:
    if not todo:
        return
    context = multiprocessing.get_context("spawn")
    reports = context.Queue()
    done_fraction = dict.fromkeys(todo, 0.0)
    finished = 0

    def drain() -> None:
        while True:
            try:
                index, fraction = reports.get_nowait()
            except queue_module.Empty:
                return
            if index in done_fraction:
                done_fraction[index] = max(done_fraction[index], fraction)

    with ProcessPoolExecutor(
        max_workers=min(jobs, len(todo)),
        mp_context=context,
        initializer=_init_worker,
        initargs=(reports,),
    ) as pool:
        futures: dict[Future[dict[str, Any]], int] = {}
        try:
            for index in todo:
                spec, directory, _ = plan[index]
                future = pool.submit(_run_one, index, spec.scenario, spec.seed, str(directory))
                futures[future] = index
            pending: Iterable[Future[dict[str, Any]]] = set(futures)
            while pending:
                done, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                drain()
                for future in done:
                    index = futures[future]
                    spec, directory, _ = plan[index]
                    summary = future.result()
                    records[index] = RunRecord(spec, directory, summary, reused=False)
                    done_fraction[index] = 1.0
                    finished += 1
                    bar.log(f"{finished}/{len(todo)} done: {directory.name}")
                batch_done = sum(plan[i][0].cost * f for i, f in done_fraction.items())
                bar.update(batch_done, finished=finished)
        except BaseException:
            for future in futures:
                future.cancel()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    reports.close()
