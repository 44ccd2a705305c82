"""Running one simulation: :func:`run`."""

from __future__ import annotations

import copy
import json
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aqmlab import _native, args
from aqmlab.errors import ScenarioError, SelfCheckError, StoreError
from aqmlab.provenance import provenance
from aqmlab.result import Result
from aqmlab.scenario import ScenarioLike, as_scenario, parse_key, scenario_hash, set_path

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

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


def _with_hash(summary: dict[str, Any]) -> dict[str, Any]:
    """Insert ``meta.scenario_hash`` right after ``meta.scenario``, and add ``meta.provenance``."""
    meta: dict[str, Any] = {}
    digest = scenario_hash(summary["meta"]["scenario"])
    for key, value in summary["meta"].items():
        if key == "scenario_hash":
            continue
        meta[key] = value
        if key == "scenario":
            meta["scenario_hash"] = digest
    meta["provenance"] = provenance()
    return {key: meta if key == "meta" else value for key, value in summary.items()}


def run(
    scenario: ScenarioLike,
    *,
    seed: int | None = None,
    set: Mapping[str, Any] | None = None,  # noqa: A002 - the command line's --set, by name
    progress: bool | ProgressCallback = False,
) -> Result:
    """Run one simulation and return its :class:`Result`.

    ``scenario`` is a scenario dict or a path: a TOML file, a resolved scenario as JSON or a run
    directory (:func:`aqmlab.scenario.read_scenario`); ``seed`` overrides its ``seed``, and
    ``set`` any key, as ``--set`` does (``{"queue.limit": "100p", "traffic[web].users": 50}``;
    the values are taken as they are, not parsed from text).
    ``progress=True`` draws a progress bar on stderr for runs longer than a couple of seconds;
    a callable receives the fraction of simulated time done instead. Ctrl-C stops the run
    (``KeyboardInterrupt``). A bad scenario raises :class:`ScenarioError`; a run whose counter
    identities fail (an engine bug) raises :class:`aqmlab.errors.SelfCheckError`, which holds
    the result. The packet traces its
    ``[capture]`` table asks for are written to a temporary directory, kept as long as the result
    (:attr:`Result.captures`), and into the run directory by :meth:`Result.save`.

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
    """
    plain = as_scenario(scenario)
    for key, value in args.mapping("set", set).items():
        set_path(plain, parse_key(args.text("set", key), what="set"), copy.deepcopy(value))
    text = json.dumps(plain)
    seed = args.integer("seed", seed, low=0, high=2**64 - 1, optional=True, error=ScenarioError)
    progress = args.progress("progress", progress)
    capture = plain.get("capture")
    traces = (
        tempfile.TemporaryDirectory(prefix="aqmlab-capture-")
        if isinstance(capture, dict) and capture.get("links")
        else None
    )
    where = traces.name if traces is not None else None
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
