"""Reproducing a study: run its experiments into one store, judge its findings, write the report.

:func:`reproduce` is what ``aqmlab reproduce PAPER`` runs. ``only`` (``--only C6,C9``) runs just the
experiments those findings need (and the ones they come after); the other findings are reported
``not run``. Every experiment is a sweep into ``OUT/store``, so an interrupted reproduction
resumes where it stopped, and runs shared by experiments are made once.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import args
from aqmlab.args import MAX_SEEDS
from aqmlab.errors import InputError
from aqmlab.executor import BatchProgress, default_workers
from aqmlab.provenance import source_commit, source_dirty
from aqmlab.runner import build_info
from aqmlab.study.model import Data, Experiment, Scale, Study, Verdict
from aqmlab.study.referee import REFEREES, judge_on_referee
from aqmlab.study.report import RunCounts, judge, read_before, write_report
from aqmlab.sweeps import Sweep, SweepResult, make_executor, plan, run_sweeps


@dataclass(frozen=True)
class Reproduction:
    """What a reproduction produced: its report, verdicts, run counts and wall time."""

    study: str
    scale: str
    out: Path
    report: Path
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    runs: int = 0
    ran: int = 0
    reused: int = 0
    failed: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    report_wall_s: float = 0.0
    """Of ``wall_s``, the time spent writing the report (tables, figures, findings)."""

    def summary_lines(self) -> list[str]:
        """One line per judged finding, for the command line."""
        return [f"{fid}: {v.status}" for fid, v in self.verdicts.items() if v.status != "not run"]


def choose_scale(study: Study, name: str) -> Scale:
    """Return the study's scale by name; :class:`InputError` naming ``--scale`` if it has none.

    >>> from aqmlab.papers import get
    >>> choose_scale(get("christiansen2000"), "huge")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --scale: no scale "huge" for christiansen2000 (choose: quick, full)
    """
    if name not in study.scales:
        raise InputError(
            "--scale",
            f'no scale "{name}" for {study.name} (choose: {", ".join(study.public_scales)})',
        )
    return study.scales[name]


def parse_only(study: Study, only: str | Sequence[str] | None) -> list[str] | None:
    """Read ``--only C6,C9`` into finding ids; :class:`InputError` for an unknown one.

    >>> from aqmlab.papers import get
    >>> parse_only(get("christiansen2000"), "C6, C1")
    ['C6', 'C1']
    >>> parse_only(get("christiansen2000"), "C99")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --only: unknown finding "C99" for christiansen2000 (known: C1, ...)
    """
    if only is None:
        return None
    parts = only.split(",") if isinstance(only, str) else list(only)
    ids = [p.strip() for p in parts if p.strip()]
    if not ids:
        raise InputError("--only", "expected finding ids like C6,C9")
    known = [f.id for f in study.findings]
    for finding_id in ids:
        if finding_id not in known:
            raise InputError(
                "--only",
                f'unknown finding "{finding_id}" for {study.name} (known: {", ".join(known)})',
            )
    return ids


def default_out(study: str, scale: str) -> Path:
    """Return where a reproduction goes by default: ``runs/<study>-<scale>``.

    >>> default_out("zhang2001", "quick").as_posix()
    'runs/zhang2001-quick'
    """
    return Path("runs") / f"{study}-{scale}"


def reproduce(
    study: Study,
    scale: str = "quick",
    out: str | Path | None = None,
    *,
    only: str | Sequence[str] | None = None,
    seeds: int | None = None,
    jobs: int | None = None,
    client: Any = None,
    scheduler: str | None = None,
    progress: bool = True,
    referee: str | None = None,
    referee_seeds: int | None = None,
    since: str | Path | None = None,
) -> Reproduction:
    """Run a study's experiments (reusing finished runs in ``out``), judge, write the report.

    ``study`` is a :class:`Study` (:func:`aqmlab.papers.get` gives one by name: the study layer
    lies below the papers and does not know them). ``seeds`` overrides the
    scale's number of seeds (seeds 1…N). ``out`` defaults to
    ``runs/<study>-<scale>``. Runs go to a local pool of ``jobs`` processes, or to Dask
    (``client`` or ``scheduler``). ``referee="ns2"`` runs the same sweeps in ns-2 too and judges
    every finding on them as well (:mod:`aqmlab.study.referee`), on seeds 1…``referee_seeds``
    (default: the same seeds as aqmlab's). ``since``: an earlier report's ``findings.json``;
    the report then says what changed since (checked before anything runs).
    """
    if not isinstance(study, Study):
        raise args.ArgumentError(
            "study", f"expected a Study (aqmlab.papers.get(name) gives one by name), got {study!r}",
        )
    chosen = choose_scale(study, args.text("scale", scale))
    ids = parse_only(study, only)
    count = args.integer("seeds", seeds, low=1, high=MAX_SEEDS, optional=True) or chosen.seeds
    seed_list = tuple(range(1, count + 1))
    out = args.directory("out", out if out is not None else default_out(study.name, chosen.name))
    args.boolean("progress", progress)
    if referee is not None and referee not in REFEREES:
        raise InputError("--referee", f'expected one of {", ".join(REFEREES)}, got "{referee}"')
    referee_count = args.integer("referee_seeds", referee_seeds, low=1, high=MAX_SEEDS,
                                 optional=True) or count  # fmt: skip
    referee_seed_list = tuple(range(1, referee_count + 1))
    before = read_before(args.path("since", since)) if since is not None else None
    out.mkdir(parents=True, exist_ok=True)
    store = out / "store"
    executor = make_executor(jobs=jobs, client=client, scheduler=scheduler)
    started = time.monotonic()
    data = Data(store, (), chosen, seed_list)
    results: dict[str, SweepResult] = {}
    built: list[Sweep] = []
    own_executors: dict[Callable[[], Any], Any] = {}
    owners: dict[tuple[str, int], Any] = {}
    why: dict[str, str] = {}
    with BatchProgress(f"{study.name} {chosen.name}", enabled=progress) as bar:
        # Waves: every experiment whose prerequisites are done runs in one batch with the others
        # ready at the same time, so that no worker idles at the end of each experiment.
        waiting = [e for e in study.experiments if e.name in study.needed(ids)]
        while waiting:
            ready = [e for e in waiting if not set(e.after) & {w.name for w in waiting}]
            if not ready:
                raise ValueError(f"{study.name}: experiments wait on each other: {waiting}")
            waiting = [e for e in waiting if e not in ready]
            ready = [e for e in ready if data.has(*e.after)]  # not if an experiment it needs failed
            if not ready:
                continue
            # The wave's experiments run as one batch per executor: the reproduction's, or the
            # one an experiment names (live runs, say), one batch after the other.
            batches = []
            for maker, group in _by_executor(ready):
                sweeps = [dataclasses.replace(e.build(chosen, data), name=e.name,
                                              seeds=seed_list) for e in group]  # fmt: skip
                if maker is None:
                    runner = executor
                else:
                    if maker not in own_executors:
                        own_executors[maker] = maker()
                    runner = own_executors[maker]
                if any(e.executor is not None for e in study.experiments):
                    _claim_runs(sweeps, runner, owners)
                batches.append((group, sweeps, runner))
            costs = [_cost(sweeps) if len(batches) > 1 else 0.0 for _, sweeps, _ in batches]
            for k, (group, sweeps, runner) in enumerate(batches):
                label = group[0].name if len(group) == 1 else f"{len(group)} experiments"
                built += sweeps
                wave = run_sweeps(sweeps, store, executor=runner, bar=bar, label=label,
                                  later_cost=sum(costs[k + 1:]))  # fmt: skip
                for result in wave:
                    results[result.name] = result
                    if not result.failures:
                        data = Data(store, (*data.experiments, result.name), chosen, seed_list)
                    else:
                        why[result.name] = _failure_reason(result)
    verdicts = {f.id: judge(f, data, selected=ids is None or f.id in ids, why=why)
                for f in study.findings}  # fmt: skip
    referee_verdicts = None
    approximations: list[str] = []
    aqmlab_wall_s = time.monotonic() - started
    if referee is not None:
        rerun = {e.name for e in study.experiments if e.referee}
        referee_sweeps = [dataclasses.replace(s, seeds=referee_seed_list) for s in built
                          if s.name in rerun]
        referee_verdicts, approximations = judge_on_referee(
            study, referee_sweeps, out, chosen, referee_seed_list, selected=ids,
            jobs=jobs or default_workers(), progress=progress)
    wall_s = time.monotonic() - started
    counts = {
        name: RunCounts(
            points=len({o.job.scenario_hash for o in r.outcomes}),
            **{k: v for k, v in r.counts().items()},
        )
        for name, r in results.items()
    }
    unique: dict[tuple[str, int], str] = {}
    for result in results.values():
        for outcome in result.outcomes:
            key = (outcome.job.scenario_hash, outcome.job.seed)
            if outcome.status != "reused" or key not in unique:
                unique[key] = outcome.status
    totals = {s: sum(v == s for v in unique.values()) for s in ("ran", "reused", "failed")}
    provenance = {
        "build": build_info(),
        "source_commit": source_commit(),
        "source_dirty": source_dirty(),
        "runs": {"distinct": len(unique), **totals},
        "command": shlex.join(["aqmlab", *sys.argv[1:]])
        if _is_cli()
        else f"aqmlab.study.reproduce({study.name!r}, {chosen.name!r})",
        "wall_s": wall_s,
        "experiments": list(results),
        "referee": None if referee is None else {
            "simulator": referee,
            "seeds": list(referee_seed_list),
            "wall_s": wall_s - aqmlab_wall_s,
            "approximations": approximations,
        },
    }
    writing = time.monotonic()
    report = write_report(study, data, out, verdicts=verdicts, counts=counts, provenance=provenance,
                          referee=referee_verdicts, before=before)
    report_wall_s = time.monotonic() - writing
    failed = [f"{o.directory.name}: {o.error}" for r in results.values() for o in r.failures]
    return Reproduction(
        study=study.name,
        scale=chosen.name,
        out=out,
        report=report,
        verdicts=verdicts,
        runs=len(unique),
        ran=totals["ran"],
        reused=totals["reused"],
        failed=failed,
        wall_s=time.monotonic() - started,
        report_wall_s=report_wall_s,
    )


def _by_executor(
    experiments: Sequence[Experiment],
) -> list[tuple[Callable[[], Any] | None, list[Experiment]]]:
    """Group experiments by the executor they name (``None``: the reproduction's), in order.

    >>> a, b = Experiment("a", "", None), Experiment("b", "", None, executor=list)
    >>> [(maker, [e.name for e in group]) for maker, group in _by_executor([a, b, a])]
    [(None, ['a', 'a']), (<class 'list'>, ['b'])]
    """
    groups: dict[Callable[[], Any] | None, list[Experiment]] = {}
    for experiment in experiments:
        groups.setdefault(experiment.executor, []).append(experiment)
    return list(groups.items())


def _claim_runs(sweeps: Sequence[Sweep], runner: Any, owners: dict[tuple[str, int], Any]) -> None:
    """Record which executor makes each run of ``sweeps``; refuse a run another one makes.

    Two executors writing the same run directory would replace each other's runs on every
    reproduction (their build ids differ): a study whose experiments run on their own executors
    gives their scenarios something of their own (a ``name``, say).
    """
    for sweep in sweeps:
        for job in plan(sweep)[1]:
            key = (job.scenario_hash, job.seed)
            if owners.setdefault(key, runner) is not runner:
                raise ValueError(
                    f"{sweep.name}: run {job.label or sweep.name} (seed {job.seed}) is also made "
                    "on another executor: give the experiments' scenarios different names"
                )


def _cost(sweeps: Sequence[Sweep]) -> float:
    """Return what the sweeps' runs weigh on the progress bar, reused ones included."""
    return sum(job.cost for sweep in sweeps for job in plan(sweep)[1])


def _failure_reason(result: SweepResult) -> str:
    """Say why an experiment did not run: how many of its runs failed, and the first error.

    >>> from aqmlab.executor import Job, Outcome
    >>> job = Job({}, 1, "ab")
    >>> bad = Outcome(job, "failed", Path("x"), error="live: needs root")
    >>> _failure_reason(SweepResult(Path("s"), "e", [bad, Outcome(job, "ran", Path("y"))]))
    '1 of its 2 runs failed: live: needs root'
    """
    failures = result.failures
    first = (failures[0].error or "failed").strip().splitlines()[0]
    return f"{len(failures)} of its {len(result.outcomes)} runs failed: {first}"


def _is_cli() -> bool:
    return Path(sys.argv[0]).name in ("aqmlab", "__main__.py")
