r"""Running many runs into a store: on a local process pool, or on a Dask cluster.

:func:`execute` takes :class:`Job`\ s (a scenario, a seed, its resolved hash), reuses every run the
store already holds whole and built by this engine, and runs the rest:

- **locally** (the default): ``spawn``\ ed worker processes, one per core, each writing its run
  directories and packs into the store itself (atomically:
  :func:`aqmlab.store.write_run_directory`); workers die with the parent, so a killed sweep leaves
  only ``.partial-*`` directories, which the next one removes;
- **on Dask** (``client=`` a ``distributed.Client``): workers only need aqmlab installed; each
  returns its run's or its pack's files (the bytes of the summaries and the Parquet tables) to
  this process, which writes the store, so no shared file system is needed.

Either way (with packs) the runs are handed out in the same chunks (:func:`chunked`) and the
files are made by the same functions (:meth:`aqmlab.Result.files`,
:func:`aqmlab.runner.run_pack`), so a run's files are byte-identical whichever executor ran it.
Which runs share a pack depends on the number of workers and on how long the runs take
(:data:`PACK_WITHIN_S`); what is read back does not. A run that raises is stored as failed, with
its error, and the others go on. One rich progress bar follows the whole batch, weighted by each
job's cost; when stderr is not a terminal, one line per finished run is printed instead.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import multiprocessing
import os
import queue as queue_module
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from aqmlab import args
from aqmlab.args import MAX_JOBS as MAX_JOBS  # also importable from here (docs/performance.md)
from aqmlab.errors import InputError, SelfCheckError, StoreError
from aqmlab.scenario import Scenario, captures
from aqmlab.store import RunState, Store


@dataclass(frozen=True)
class Job:
    """One run to have in the store: ``scenario`` run with ``seed``; ``cost`` weighs it on the bar.

    ``scenario`` is prepared (plain, its CDF files embedded: :func:`aqmlab.scenario.as_scenario`)
    and run as it is; ``scenario_hash`` is the hash of the resolved scenario
    (:func:`aqmlab.scenario_hash`).
    """

    scenario: Scenario = field(compare=False, repr=False)
    seed: int
    scenario_hash: str
    cost: float = 1.0
    label: str = ""


@dataclass(frozen=True)
class Outcome:
    """What became of a job: ``status`` is ``reused``, ``ran`` or ``failed``.

    ``rerun`` says why a stored run was not reused (``damaged: …``, ``other-build``, ``failed``),
    ``None`` when there was nothing stored; :attr:`summary` is the run's ``summary.json`` (``None``
    for a failure, whose ``error`` is set). ``directory`` is the run's directory in the store,
    or for a run stored in a pack the name it is found by (:func:`aqmlab.load` reads either).
    ``summary_given`` is the summary as it was handed over: a dict, or its JSON text as a worker
    wrote it, read only when :attr:`summary` is first asked for (most sweeps never read it).

    >>> job = Job({}, 1, "ab" * 32)
    >>> Outcome(job, "ran", Path("r"), '{"meta": {"seed": 1}}').summary
    {'meta': {'seed': 1}}
    """

    job: Job
    status: str
    directory: Path
    summary_given: dict[str, Any] | str | None = field(default=None, repr=False, compare=False)
    error: str | None = None
    rerun: str | None = None

    @cached_property
    def summary(self) -> dict[str, Any] | None:
        """The run's summary (``summary.json``), ``None`` for a failure."""
        given = self.summary_given
        return json.loads(given) if isinstance(given, str) else given




def default_workers() -> int:
    """Count the worker processes to use by default: one per core available to this process.

    >>> default_workers() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


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
        from rich.console import Console  # here, not at the top: `aqmlab validate` needs no rich
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

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
        """Print a line on stderr: above the bar when it is drawn, else with the time elapsed."""
        if not self.enabled:
            return
        if self.interactive:
            self._bar.console.print(line, highlight=False, soft_wrap=True)
            return
        elapsed = time.monotonic() - self.started
        sys.stderr.write(f"{self.label}: {line} ({elapsed:.0f} s elapsed)\n")
        sys.stderr.flush()


def current_build_id() -> str:
    """Return the build id of the engine in this process (``meta.build.id`` of its runs)."""
    from aqmlab.runner import build_info

    return str(build_info()["id"])


def describe_error(err: BaseException) -> str:
    """One paragraph on a run's failure: the exception and the innermost frames.

    >>> describe_error(ValueError("bad"))
    'ValueError: bad'
    """
    text = f"{type(err).__name__}: {err}"
    frames = traceback.extract_tb(err.__traceback__)[-3:]
    if frames:
        text += " (at " + "; ".join(f"{f.filename}:{f.lineno} {f.name}" for f in frames) + ")"
    return text


def run_files(
    scenario: Scenario, seed: int, progress: Callable[[float], None] | None = None
) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Run a job's scenario and render its run directory's files (the same bytes everywhere).

    The scenario is run as it is: a sweep's points are prepared where they are made
    (:meth:`aqmlab.sweeps.Sweep.points`).
    """
    from aqmlab.runner import run_prepared

    result = run_prepared(scenario, seed, progress or False)
    return result.summary, result.files()


def _is_interrupt(err: BaseException) -> bool:
    return isinstance(err, KeyboardInterrupt | SystemExit)


DoneCallback = Callable[[int, str, dict[str, Any] | str | None, str | None], None]
"""Called as each job ends: its index in the batch, ``ran`` or ``failed``, summary (or its JSON
text), error."""
ProgressCallback = Callable[[dict[int, float]], None]
"""Called now and then with each job's fraction done, by index."""


# --- local process pool ---------------------------------------------------------------------------
_PROGRESS: Any = None  # set in each local worker: where its progress reports go


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this worker when its parent dies (a killed sweep leaves no orphans).

    A parent that died before the request (while this worker was still starting up) is not
    seen by it, so the worker checks that ``parent`` is still its parent afterwards.
    """
    if not sys.platform.startswith("linux"):  # pragma: no cover
        return
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    except OSError:  # pragma: no cover - no libc by that name
        return
    if os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def _sigint_blocked() -> Iterator[None]:
    """Hold SIGINT back from this thread (and the processes it starts) until the block ends."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _init_local_worker(progress_queue: Any, parent: int) -> None:
    global _PROGRESS
    _PROGRESS = progress_queue
    _die_with_parent(parent)
    # Ctrl-C is the parent's to handle: it stops the workers itself. (The worker was started
    # with SIGINT blocked, so one that came while it started up is dropped here, unseen.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _reporter(index: int) -> Callable[[float], None]:
    """Return job ``index``'s progress callback in a worker: its fraction done, to the parent.

    At most every 0.2 s, and when the run ends.
    """
    last = [0.0]

    def report(fraction: float) -> None:
        now = time.monotonic()
        if _PROGRESS is not None and (now - last[0] > 0.2 or fraction >= 1.0):
            last[0] = now
            _PROGRESS.put((index, fraction))

    return report


def _local_worker(
    index: int, scenario: Scenario, seed: int, digest: str, store_root: str, build_id: str
) -> tuple[str, dict[str, Any] | None, str | None]:
    """Worker: run one job and write it (or its failure) into the store."""
    store = Store(Path(store_root))
    report = _reporter(index)
    report(0.0)  # started: if this worker dies, the parent knows which run it was running
    try:
        summary, files = run_files(scenario, seed, report)
    except BaseException as err:
        if _is_interrupt(err):
            raise
        error, kept = _failure(err)
        store.write(digest, seed, kept, build_id=build_id, status="failed", error=error)
        return "failed", None, error
    if summary["meta"]["build"]["id"] != build_id:
        raise other_build("a worker process", summary["meta"]["build"]["id"], build_id)
    store.write(digest, seed, files, build_id=build_id)
    return "ran", summary, None


Ended = tuple[int, str, dict[str, Any] | str | None, str | None]
"""A job's end as a worker reports it: its index, ``ran`` or ``failed``, summary (or its JSON
text: a packed run's, read by the parent), error."""


PACK_WITHIN_S = 1.0
"""A pack is written once its runs have taken this many seconds, so that a worker stopped or
killed loses at most that much work, and holds at most that much in memory. A chunk whose first
run alone takes that long is of long runs: the rest of it is stored a run directory each, with
its progress reported as it goes."""


def _local_chunk(
    jobs: list[tuple[int, Scenario, int, str]], store_root: str, build_id: str, pack: bool
) -> list[Ended]:
    """Worker: run a chunk of jobs (index, scenario, seed, hash) in turn.

    With ``pack``, consecutive jobs of one scenario are stored as packs (:func:`_local_pack`),
    unless it captures packet traces; the others each as a run directory (:func:`_local_worker`).
    """
    ended: list[Ended] = []
    for stretch in same_scenario([digest for _, _, _, digest in jobs]):
        same = jobs[stretch.start:stretch.stop]
        if pack and packable(len(same), same[0][1]):
            ended.extend(_local_pack(same, store_root, build_id))
        else:
            ended.extend((i, *_local_worker(i, scenario, seed, digest, store_root, build_id))
                         for i, scenario, seed, digest in same)  # fmt: skip
    return ended


def store_pack(
    store: Store,
    digest: str,
    seeds: list[int],
    summaries: list[str],
    files: dict[str, bytes],
    failures: list[tuple[int, str, dict[str, bytes]]],
    build_id: str,
    made_by: str,
) -> list[tuple[int, str, str | None, str | None]]:
    """Store what a pack of runs of scenario ``digest`` gave (:func:`aqmlab.runner.run_pack`).

    ``failures`` are each failed run's seed, error and files, stored alone as failed; the runs
    of ``seeds`` are stored as one pack, which replaces an older directory of any of them. Their
    build must be ``build_id`` (``made_by`` names who made them in the error). Returns each
    run's seed, status, summary text and error.
    """
    ended: list[tuple[int, str, str | None, str | None]] = []
    for seed, error, kept in failures:
        store.write(digest, seed, kept, build_id=build_id, status="failed", error=error)
        ended.append((seed, "failed", None, error))
    if seeds:
        theirs = json.loads(summaries[0])["meta"]["build"]["id"]
        if theirs != build_id:
            raise other_build(made_by, theirs, build_id)
        store.write_pack(digest, seeds, files, build_id=build_id)
        for seed, summary in zip(seeds, summaries, strict=True):
            store.discard(digest, seed)
            ended.append((seed, "ran", summary, None))
    return ended


def packable(count: int, scenario: Scenario) -> bool:
    """Whether ``count`` consecutive runs of ``scenario`` in a chunk are made as a pack.

    More than one, and no packet traces (a pack writes none).

    >>> packable(2, {"duration": "1s"}), packable(1, {"duration": "1s"})
    (True, False)
    """
    return count > 1 and not captures(scenario)


def same_scenario(digests: Sequence[str]) -> list[range]:
    """Split a chunk's jobs (their scenario hashes, in order) into stretches of one scenario.

    >>> same_scenario(["a", "a", "b", "a"])
    [range(0, 2), range(2, 3), range(3, 4)]
    """
    stretches = []
    start = 0
    while start < len(digests):
        end = start + 1
        while end < len(digests) and digests[end] == digests[start]:
            end += 1
        stretches.append(range(start, end))
        start = end
    return stretches


def _local_pack(
    jobs: list[tuple[int, Scenario, int, str]], store_root: str, build_id: str
) -> list[Ended]:
    """Worker: run jobs of one scenario, stored as packs (:func:`aqmlab.runner.run_pack`).

    A pack is written every :data:`PACK_WITHIN_S` seconds of runs. A run that fails is stored on
    its own, as failed (with its tables if it failed the engine's self-checks), and the others
    go on. A packed run's older directory (a failure, another build's run) is removed.
    """
    from aqmlab.runner import run_pack

    store = Store(Path(store_root))
    index_of = {seed: i for i, _, seed, _ in jobs}
    ended: list[Ended] = []
    todo = jobs
    while todo:
        _, scenario, _, digest = todo[0]
        seeds = [seed for _, _, seed, _ in todo]
        # Started, all at once: if this worker dies, the parent knows which runs it held; each
        # of them is then run again alone (LocalExecutor), as a single run that was running is.
        if _PROGRESS is not None:
            _PROGRESS.put(([i for i, _, _, _ in todo], 0.0))
        try:
            packed = run_pack(scenario, seeds, digest=digest, within_s=PACK_WITHIN_S,
                              progress=_reporter(todo[0][0]))  # fmt: skip
        except BaseException as err:  # the scenario itself is refused: every run fails alike
            if _is_interrupt(err):
                raise
            error, kept = _failure(err)
            for seed in seeds:
                store.write(digest, seed, kept, build_id=build_id, status="failed", error=error)
                ended.append((index_of[seed], "failed", None, error))
            break
        failures = [(seed, *_failure(refused)) for seed, refused in packed.failures]
        ended += [(index_of[seed], status, summary, error) for seed, status, summary, error in
                  store_pack(store, digest, packed.seeds, packed.summaries, packed.files,
                             failures, build_id, "a worker process")]  # fmt: skip
        left = set(packed.rest)
        ran = len(todo) - len(left)
        todo = [job for job in todo if job[2] in left]
        if todo and ran == 1:  # the first run alone took the time: these runs are long
            ended.extend((i, *_local_worker(i, scenario, seed, digest, store_root, build_id))
                         for i, scenario, seed, digest in todo)  # fmt: skip
            break
    return sorted(ended, key=lambda e: e[0])


CHUNKS_PER_WORKER = 16
"""A batch is handed to the workers in chunks of at most 1/(workers × this) of its cost, so that
the last chunks leave a worker idle for a few percent of the batch at most."""
MAX_CHUNK = 32
"""At most this many runs in one chunk: what a worker that dies takes with it."""


def chunked(costs: Sequence[float], workers: int) -> list[list[int]]:
    """Split a batch (its jobs' costs, in order) into the chunks handed to a worker at once.

    Handing a worker many short runs at once spares a hand-over between processes per run
    (pickling the call and its scenario, waking the parent), which costs more than a short run.
    A chunk takes consecutive jobs while their cost stays within the batch's cost / (workers ×
    :data:`CHUNKS_PER_WORKER`), at most :data:`MAX_CHUNK` of them; a costly job is a chunk alone.

    >>> chunked([1.0] * 10, 2)
    [[0], [1], [2], [3], [4], [5], [6], [7], [8], [9]]
    >>> [len(c) for c in chunked([1.0] * 1000, 2)]  # doctest: +ELLIPSIS
    [31, 31, ..., 8]
    >>> chunked([100.0, 1.0, 1.0, 1.0, 100.0], 1)
    [[0], [1, 2, 3], [4]]
    """
    limit = sum(costs) / (workers * CHUNKS_PER_WORKER)
    chunks: list[list[int]] = []
    weight = 0.0
    for i, cost in enumerate(costs):
        if not chunks or len(chunks[-1]) >= MAX_CHUNK or weight + cost > limit:
            chunks.append([])
            weight = 0.0
        chunks[-1].append(i)
        weight += cost
    return chunks


def other_build(where: str, theirs: str, ours: str) -> InputError:
    """Return the error for a worker that ran another engine build than this process.

    >>> print(other_build("a worker process", "b2", "a1"))
    a worker process: ran aqmlab engine build b2, this process a1 (the engine was rebuilt or \
another aqmlab is installed there): install the same aqmlab everywhere and run again; finished \
runs are kept
    """
    return InputError(where, f"ran aqmlab engine build {theirs}, this process {ours} (the engine "
                      "was rebuilt or another aqmlab is installed there): install the same aqmlab "
                      "everywhere and run again; finished runs are kept")  # fmt: skip


def _error_files(error: str) -> dict[str, bytes]:
    return {"error.json": (json.dumps({"error": error}, indent=2) + "\n").encode("utf-8")}


def _failure(err: BaseException) -> tuple[str, dict[str, bytes]]:
    r"""Return a failed run's error and the files to store for it.

    A run that ended but failed the engine's self-checks keeps its own files (the evidence of
    the bug) beside ``error.json``.

    >>> _failure(ValueError("bad"))[1]
    {'error.json': b'{\n  "error": "ValueError: bad"\n}\n'}
    """
    error = describe_error(err)
    if isinstance(err, SelfCheckError):
        return error, {**err.result.files(), **_error_files(error)}
    return error, _error_files(error)


WORKER_DIED = "its worker process died while running it (killed, or out of memory)"
"""The error of a run whose local worker process died, alone, running it."""


class LocalExecutor:
    """Runs jobs on ``workers`` spawned processes that write the store themselves.

    A worker process that dies (killed, out of memory) takes the pool down with it: the runs it
    held are started again, those that were running one at a time, so that a run which kills
    its worker again, alone, is the one recorded as failed (:data:`WORKER_DIED`) and the others
    are made. On Ctrl-C (or any error) the workers are stopped at once; the runs they had
    finished stay stored.
    """

    def __init__(self, workers: int | None = None, *, pack: bool = True) -> None:
        chosen = args.integer("jobs", workers, low=1, high=MAX_JOBS, optional=True)
        self.workers = chosen or default_workers()
        self.pack = args.boolean("pack", pack)

    def run(
        self,
        todo: Sequence[Job],
        store: Store,
        build_id: str,
        done: DoneCallback,
        progress: ProgressCallback,
    ) -> None:
        """Run ``todo``; call ``done(i, status, summary, error)`` as each ends, ``progress``."""
        context = multiprocessing.get_context("spawn")
        reports = context.Queue()
        fractions = dict.fromkeys(range(len(todo)), 0.0)
        waiting = list(range(len(todo)))
        suspects: list[int] = []
        try:
            while waiting or suspects:
                alone = bool(suspects)
                batch = suspects if alone else waiting
                lost, started = self._pool(
                    batch, 1 if alone else self.workers, alone, context, reports, todo, store,
                    build_id, done, progress, fractions,
                )  # fmt: skip
                if alone:  # one at a time, in order: the first run lost killed its worker
                    if lost:
                        job = todo[lost[0]]
                        files = _error_files(WORKER_DIED)
                        store.write(job.scenario_hash, job.seed, files, build_id=build_id,
                                    status="failed", error=WORKER_DIED)  # fmt: skip
                        fractions[lost[0]] = 1.0
                        done(lost[0], "failed", None, WORKER_DIED)
                    suspects = lost[1:]
                else:  # the runs that were running are suspects; those not started go on
                    suspects = [i for i in lost if i in started] or lost
                    waiting = [i for i in lost if i not in suspects]
        finally:
            reports.close()

    def _pool(
        self,
        batch: list[int],
        workers: int,
        alone: bool,
        context: Any,
        reports: Any,
        todo: Sequence[Job],
        store: Store,
        build_id: str,
        done: DoneCallback,
        progress: ProgressCallback,
        fractions: dict[int, float],
    ) -> tuple[list[int], set[int]]:
        """Run ``batch`` on one pool; return the runs lost if a worker died, and which started.

        The runs go to the workers in chunks (:func:`chunked`), or one at a time when ``alone``.
        """
        pool = ProcessPoolExecutor(max_workers=min(workers, len(batch)), mp_context=context,
                                   initializer=_init_local_worker,
                                   initargs=(reports, os.getpid()))  # fmt: skip
        futures: dict[Future[Any], list[int]] = {}
        started: set[int] = set()
        lost: list[int] = []

        def read_reports() -> None:
            while True:
                try:
                    which, fraction = reports.get_nowait()
                except queue_module.Empty:
                    return
                for i in which if isinstance(which, list) else [which]:  # a pack: its runs
                    started.add(i)
                    fractions[i] = max(fractions[i], fraction)

        try:
            # The workers start with SIGINT blocked (a child inherits the mask), so that Ctrl-C
            # never reaches one half started up; this process sees it once it is unblocked.
            with _sigint_blocked():
                # Alone, one run a chunk: the first run lost is then the one that killed it.
                split = ([[k] for k in range(len(batch))] if alone
                         else chunked([todo[i].cost for i in batch], workers))  # fmt: skip
                for chunk in split:
                    indices = [batch[k] for k in chunk]
                    items = [(i, todo[i].scenario, todo[i].seed, todo[i].scenario_hash)
                             for i in indices]  # fmt: skip
                    future = pool.submit(_local_chunk, items, str(store.root), build_id,
                                         self.pack)  # fmt: skip
                    futures[future] = indices
            pending: set[Future[Any]] = set(futures)
            while pending:
                finished, pending = wait(pending, timeout=0.25, return_when=FIRST_COMPLETED)
                read_reports()
                for future in finished:
                    try:
                        ended = future.result()
                    except BrokenProcessPool:  # a worker died: the chunk's runs not stored are lost
                        store.refresh()
                        ended = []
                        for i in futures[future]:
                            stored = _stored(store, todo[i], build_id)
                            if stored is None:
                                lost.append(i)
                            else:
                                ended.append((i, "ran", stored, None))
                    for i, status, summary, error in ended:
                        fractions[i] = 1.0
                        done(i, status, summary, error)
                progress(fractions)
        except BaseException:
            # Stop the workers now (they ignore Ctrl-C), then remove what they left half written;
            # a second Ctrl-C waits until that is done (a fraction of a second).
            with _sigint_blocked():
                for process in list((getattr(pool, "_processes", None) or {}).values()):
                    process.terminate()
                pool.shutdown(wait=True, cancel_futures=True)  # the pool sees them die and ends
                store.remove_leftovers()
            raise
        pool.shutdown(wait=True)
        read_reports()  # the dead pool's last words, so that the next pool starts clean
        if lost:  # a worker died, maybe halfway through writing its run
            store.remove_leftovers()
        order = {i: position for position, i in enumerate(batch)}
        return sorted(lost, key=order.__getitem__), started


def _stored(store: Store, job: Job, build_id: str) -> dict[str, Any] | None:
    """Return the summary of a job's run if a worker stored it whole before dying, else ``None``.

    The store was written by the workers since it was read: call :meth:`Store.refresh` first.
    """
    state = store.check(job.scenario_hash, job.seed, build_id=build_id)
    if not state.reusable:
        return None
    try:
        return store.summary(job.scenario_hash, job.seed, state)
    except StoreError:
        return None


# --- Dask -----------------------------------------------------------------------------------------
def _dask_worker(scenario: Scenario, seed: int) -> dict[str, Any]:
    """Dask worker: run one job and return its files (or its error) to the client."""
    try:
        summary, files = run_files(scenario, seed)
    except BaseException as err:
        if _is_interrupt(err):
            raise
        error, kept = _failure(err)
        return {"status": "failed", "error": error, "files": kept}
    return {"status": "ran", "summary": summary, "files": files}


def _dask_pack(scenario: Scenario, seeds: list[int], digest: str) -> dict[str, Any]:
    """Dask worker: run seeds of one scenario as a pack for at most :data:`PACK_WITHIN_S`.

    Returns the pack's files and its runs' summaries (JSON texts), each failed run's seed, error
    and files, and the seeds not started (``rest``); or, if the scenario itself is refused, its
    error, which every seed shares.
    """
    from aqmlab.runner import run_pack

    try:
        packed = run_pack(scenario, seeds, digest=digest, within_s=PACK_WITHIN_S)
    except BaseException as err:
        if _is_interrupt(err):
            raise
        error, kept = _failure(err)
        return {"status": "failed", "error": error, "files": kept}
    failures = [(seed, *_failure(refused)) for seed, refused in packed.failures]
    return {"status": "pack", "seeds": packed.seeds, "summaries": packed.summaries,
            "files": packed.files, "failures": failures, "rest": packed.rest}  # fmt: skip


CONNECT_TIMEOUT_S = 6.0
"""How long :func:`connect` tries: Dask's own connect timeout, so that with starting Python,
importing Dask and starting the client (about 1.5 s, more on a busy machine), an address that
does not answer is an error within 10 s."""


def connect(address: str, *, timeout_s: float = CONNECT_TIMEOUT_S) -> Any:
    """Connect to a Dask scheduler; :class:`InputError` naming ``--scheduler`` if it fails.

    >>> connect("not an address")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --scheduler: ...
    """
    try:
        from distributed import Client
    except ImportError:
        raise InputError(
            "--scheduler", "needs Dask: install aqmlab with the dask extra (aqmlab[dask])"
        ) from None
    try:
        return Client(address, timeout=f"{timeout_s}s")
    except (OSError, TimeoutError, ValueError, TypeError) as err:
        raise InputError(
            "--scheduler", f"cannot reach a Dask scheduler at {address!r}: {err}"
        ) from None


class DaskExecutor:
    """Runs jobs on a Dask cluster (``client``); this process writes the store.

    With ``pack``, the runs are handed out in chunks as the local pool hands them
    (:func:`chunked`, for as many workers as the cluster has threads), and a chunk's runs of one
    scenario run as a pack on one worker (:func:`_dask_pack`) and are stored as a pack, as a local
    worker stores them. A pack's task that fails outside aqmlab's own handling (its worker died)
    has its runs started again alone, one after the other, so that no other of them shares the
    worker of a run that kills it again (other tasks on that worker's process may still be lost
    with it, as with any worker's death). The cluster's threads are counted once, as the batch
    starts. Without ``pack``, each run is a task of its own and a run directory.
    """

    def __init__(self, client: Any, *, pack: bool = True) -> None:
        self.client = client
        self.pack = args.boolean("pack", pack)

    def run(
        self,
        todo: Sequence[Job],
        store: Store,
        build_id: str,
        done: DoneCallback,
        progress: ProgressCallback,
    ) -> None:
        """Run ``todo`` on the cluster, writing each run into ``store`` as it comes back."""
        from distributed import as_completed

        held: dict[Any, list[int]] = {}  # each pending future, and the jobs it runs
        after: dict[Any, list[int]] = {}  # a run started alone, and the runs to start after it

        def submit(indices: list[int], packed: bool, *, in_turn: bool = False) -> list[Any]:
            """Submit a pack, or each run alone (``in_turn``: the first now, then one by one)."""
            if packed:
                job = todo[indices[0]]
                seeds = [todo[i].seed for i in indices]
                futures = [self.client.submit(_dask_pack, job.scenario, seeds, job.scenario_hash,
                                              pure=False)]  # fmt: skip
                held[futures[0]] = indices
                return futures
            futures = []
            for i in indices[:1] if in_turn else indices:
                future = self.client.submit(_dask_worker, todo[i].scenario, todo[i].seed,
                                            pure=False)  # fmt: skip
                held[future] = [i]
                futures.append(future)
            if in_turn and indices[1:]:
                after[futures[0]] = indices[1:]
            return futures

        fractions = dict.fromkeys(range(len(todo)), 0.0)
        try:
            first: list[Any] = []
            for indices in self._groups(todo):
                first += submit(indices, len(indices) > 1)
            # loop=: this client's, not the default client's (there may be none, or another).
            pending = as_completed(first, loop=self.client.loop)
            for future in pending:
                indices = held.pop(future)
                if future in after:
                    for again in submit(after.pop(future), False, in_turn=True):
                        pending.add(again)
                try:
                    answer = future.result()
                except Exception as err:
                    if future.status != "error":  # cancelled, or the scheduler is gone
                        raise
                    # The task itself failed outside aqmlab's own handling: its worker died
                    # running it (KilledWorker: out of memory, a crash) or could not load it
                    # (aqmlab missing there). A run alone then fails, and the others go on. A
                    # pack's runs start again alone, one after the other, as the local pool's
                    # do: the one that kills its worker again fails, and no other of them is
                    # on that worker then.
                    if len(indices) > 1:
                        future.release()
                        for again in submit(indices, False, in_turn=True):
                            pending.add(again)
                        continue
                    answer = {"status": "failed", "error": describe_error(err)}
                # Let the cluster forget the result now: a worker holds a run's files until
                # the client releases them, so keeping every future would keep every run.
                future.release()
                rest: list[int] = []
                if answer["status"] == "pack":
                    rest = self._store_pack(answer, indices, todo, store, build_id, done)
                    if rest:  # the pack's time was up: the rest as a pack again, or alone
                        for again in submit(rest, len(indices) - len(rest) > 1):
                            pending.add(again)
                elif answer["status"] == "ran":
                    (i,) = indices
                    job = todo[i]
                    theirs = answer["summary"]["meta"]["build"]["id"]
                    if theirs != build_id:
                        raise other_build("--scheduler", theirs, build_id)
                    store.write(job.scenario_hash, job.seed, answer["files"], build_id=build_id)
                    done(i, "ran", answer["summary"], None)
                else:  # one run failed, or a pack's scenario was refused: each of its runs
                    error = answer["error"]
                    for i in indices:
                        job = todo[i]
                        store.write(job.scenario_hash, job.seed,
                                    answer.get("files") or _error_files(error),
                                    build_id=build_id, status="failed", error=error)  # fmt: skip
                        done(i, "failed", None, error)
                for i in set(indices) - set(rest):
                    fractions[i] = 1.0
                progress(fractions)
        except BaseException:
            self.client.cancel(list(held))
            raise

    def _groups(self, todo: Sequence[Job]) -> list[list[int]]:
        """Split ``todo`` into what each task runs: a pack's jobs, or one job.

        With :attr:`pack`, each chunk (:func:`chunked`) gives a group of each run of consecutive
        jobs of one scenario, unless it captures packet traces (a pack writes none); the other
        jobs are a group each.
        """
        if not self.pack:
            return [[i] for i in range(len(todo))]
        threads = sum(self.client.nthreads().values()) or 1
        groups: list[list[int]] = []
        for chunk in chunked([job.cost for job in todo], threads):
            for stretch in same_scenario([todo[i].scenario_hash for i in chunk]):
                same = chunk[stretch.start:stretch.stop]
                if packable(len(same), todo[same[0]].scenario):
                    groups.append(same)
                else:
                    groups.extend([i] for i in same)
        return groups

    @staticmethod
    def _store_pack(
        answer: dict[str, Any],
        indices: list[int],
        todo: Sequence[Job],
        store: Store,
        build_id: str,
        done: DoneCallback,
    ) -> list[int]:
        """Store a pack's answer (:func:`_dask_pack`) as a local worker stores its pack.

        Returns the jobs it did not start, its time being up.
        """
        index_of = {todo[i].seed: i for i in indices}
        for seed, status, summary, error in store_pack(
            store, todo[indices[0]].scenario_hash, answer["seeds"], answer["summaries"],
            answer["files"], answer["failures"], build_id, "--scheduler",
        ):  # fmt: skip
            done(index_of[seed], status, summary, error)
        return [index_of[seed] for seed in answer["rest"]]


class Executor(Protocol):
    """What runs a batch's jobs.

    :class:`LocalExecutor`, :class:`DaskExecutor`, or one that runs another simulator
    (``aqmlab.referee.ns2.Ns2Executor``, ``aqmlab.live.executor.LiveExecutor``). An executor
    may also have a ``build_id``: the build its runs are reused for, in place of the engine's
    (:func:`execute`).
    """

    def run(
        self,
        todo: Sequence[Job],
        store: Store,
        build_id: str,
        done: DoneCallback,
        progress: ProgressCallback,
    ) -> None:
        """Run ``todo``; call ``done(i, status, summary, error)`` as each ends, ``progress``."""


def execute(
    jobs: Sequence[Job],
    store: Store,
    *,
    executor: Executor | None = None,
    bar: BatchProgress,
    label: str = "runs",
    later_cost: float = 0.0,
) -> list[Outcome]:
    """Have every job's run in ``store``: reuse the stored ones that verify, run the rest.

    Jobs with the same (scenario hash, seed) run once. Returns one :class:`Outcome` per job, in
    order. A failing run is stored as failed and reported in its outcome; the others go on.
    Ctrl-C stops the workers and re-raises ``KeyboardInterrupt``; finished runs stay stored.
    """
    executor = executor or LocalExecutor()
    # A run is reused only if made by the same build: the engine's, or the executor's own when it
    # runs another simulator (a referee's runs depend on its version and script writer instead).
    build_id = getattr(executor, "build_id", None) or current_build_id()
    store.refresh()  # what this store object read of it before may have changed since
    states: dict[tuple[str, int], RunState] = {}
    todo: list[Job] = []
    results: dict[tuple[str, int], Outcome] = {}
    for job in jobs:
        key = (job.scenario_hash, job.seed)
        if key in states:
            continue
        directory = store.run_dir(*key)
        state = store.check(job.scenario_hash, job.seed, build_id=build_id)
        if state.reusable:
            try:
                summary = store.summary(job.scenario_hash, job.seed, state)
                results[key] = Outcome(job, "reused", directory, summary)
            except StoreError as err:
                state = RunState("damaged", err.message)
        states[key] = state
        if not state.reusable:
            todo.append(job)
    for job in todo:
        state = states[(job.scenario_hash, job.seed)]
        if state.status != "missing":
            bar.log(
                f"re-running {store.run_dir(job.scenario_hash, job.seed).name}: "
                f"{_rerun_reason(state)}"
            )
    bar.start_batch(
        label,
        cost=sum(j.cost for j in todo),
        runs=len(todo),
        reused=len(results),
        later_cost=later_cost,
    )
    finished = 0

    def done(i: int, status: str, given: dict[str, Any] | str | None, error: str | None) -> None:
        nonlocal finished
        job = todo[i]
        key = (job.scenario_hash, job.seed)
        state = states[key]
        directory = store.run_dir(*key)
        rerun = None if state.status == "missing" else _rerun_reason(state)
        results[key] = Outcome(job, status, directory, given, error, rerun)
        finished += 1
        which = f"{job.label}, seed {job.seed}" if job.label else directory.name
        bar.log(
            f"{finished}/{len(todo)} {'FAILED' if error else 'done'}: {which}"
            + (f": {error}" if error else "")
        )

    def progress(fractions: dict[int, float]) -> None:
        bar.update(sum(todo[i].cost * f for i, f in fractions.items()), finished=finished)

    if todo:
        executor.run(todo, store, build_id, done, progress)
    bar.end_batch()
    return [dataclasses.replace(results[(job.scenario_hash, job.seed)], job=job) for job in jobs]


def _rerun_reason(state: RunState) -> str:
    if state.status == "damaged":
        return f"damaged ({state.reason})"
    if state.status == "other-build":
        return f"made by another engine build ({state.reason})"
    if state.status == "failed":
        return "failed before"
    return state.status
