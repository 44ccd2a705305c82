"""A study's findings judged again on a referee's runs, and each verdict's class.

``aqmlab reproduce PAPER --referee ns2`` runs every experiment's sweep a second time through ns-2
(:class:`aqmlab.referee.ns2.Ns2Executor`: the same scenarios and seeds, a run store of its own,
run directories in aqmlab's layout) and judges every finding with the same judge on those runs.
A sweep ns-2 cannot express (web traffic, CoDel, …) is refused run by run, naming the key; the
findings that need it are "not run" on the ns-2 side, with that reason.

Each finding then gets a class (:func:`verdict_class`):

- **holds** — aqmlab's verdict holds (and ns-2's does, or ns-2 was not run);
- **holds, but not on ns-2's runs** — a claim aqmlab confirms and the paper's own simulator does
  not: as much a gap to explain as the next-but-one;
- **does not hold, and ns-2 agrees** — ns-2's runs do not support the claim either: the paper's
  claim is not reproduced by its own simulator;
- **does not hold, and aqmlab differs from ns-2** — on ns-2's runs the claim holds: a gap in
  aqmlab's model (or in the mapping) that the report lists as work to do;
- **does not hold, ns-2 not run** — no ns-2 verdict (the setting has no ns-2 mapping yet, or
  ns-2 is not installed);
- **not run**.

>>> from aqmlab.study.model import Verdict
>>> verdict_class(Verdict("does not hold", "x"), Verdict("holds", "y"))
'does not hold, and aqmlab differs from ns-2'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from aqmlab.executor import BatchProgress
from aqmlab.study.model import DOES_NOT_HOLD, HOLDS, NOT_RUN, Data, Scale, Study, Verdict
from aqmlab.sweeps import Sweep, run_sweeps

REFEREES = ("ns2",)
"""The referees ``--referee`` takes."""

HOLDS_CLASS = "holds"
HOLDS_NOT_NS2 = "holds, but not on ns-2's runs"
NS2_AGREES = "does not hold, and ns-2 agrees"
AQMLAB_DIFFERS = "does not hold, and aqmlab differs from ns-2"
NS2_NOT_RUN = "does not hold, ns-2 not run"


def verdict_class(ours: Verdict, referee: Verdict | None) -> str:
    """Return a finding's class from aqmlab's verdict and the referee's (``None``: not asked)."""
    if ours.status == HOLDS:
        refuted = referee is not None and referee.status == DOES_NOT_HOLD
        return HOLDS_NOT_NS2 if refuted else HOLDS_CLASS
    if ours.status == NOT_RUN:
        return NOT_RUN
    if referee is None or referee.status == NOT_RUN:
        return NS2_NOT_RUN
    return NS2_AGREES if referee.status == DOES_NOT_HOLD else AQMLAB_DIFFERS


def judge_on_referee(
    study: Study,
    sweeps: Sequence[Sweep],
    out: Path,
    scale: Scale,
    seeds: Sequence[int],
    *,
    selected: Sequence[str] | None,
    jobs: int = 1,
    progress: bool = True,
) -> tuple[dict[str, Verdict], list[str]]:
    """Run ``sweeps`` in ns-2 into ``out`` and judge every finding on those runs.

    Returns the verdicts, and, for a study whose testbed ns-2 only approximates
    (``Study.referee_approximates``), every change the approximation made.
    """
    from aqmlab.referee import ns2

    if not ns2.available():
        reason = "ns-2 is not installed (as root: apt-get install ns2)"
        return {f.id: Verdict(NOT_RUN, reason) for f in study.findings}, []
    store = out / f"store-ns2-{ns2.writer_digest()[:8]}"
    executor = ns2.Ns2Executor(jobs, approximate=study.referee_approximates)
    with BatchProgress(f"{study.name} {scale.name} on ns-2", enabled=progress) as bar:
        results = run_sweeps(list(sweeps), store, executor=executor, bar=bar, label="ns-2")
    ran = [r.name for r in results if not r.failures]
    refused = {r.name: r.failures[0].error or "failed" for r in results if r.failures}
    from aqmlab.referee.ns2_measure import UNMEASURED

    data = Data(store, ran, scale, seeds, unmeasured=UNMEASURED)
    verdicts = {}
    for finding in study.findings:
        missing = [name for name in finding.needs if name not in ran]
        if selected is not None and finding.id not in selected:
            verdicts[finding.id] = Verdict(NOT_RUN, "not selected (--only)")
        elif missing:
            why = refused.get(missing[0], "its experiment did not run")
            verdicts[finding.id] = Verdict(NOT_RUN, f"ns-2 did not run {missing[0]}: {why}")
        else:
            try:
                verdicts[finding.id] = finding.verdict(data)
            except (KeyError, ValueError, TypeError, ZeroDivisionError) as err:
                # A judge that needs what ns-2 does not measure (ns2_measure.UNMEASURED).
                verdicts[finding.id] = Verdict(NOT_RUN, f"the judge cannot read ns-2's runs: "
                                                        f"{type(err).__name__}: {err}")
    return verdicts, sorted(executor.approximations)


def todo_table(study: Study, ours: Mapping[str, Verdict],
               referee: Mapping[str, Verdict] | None) -> list[list[str]]:
    """Return the report's to-do rows: each finding aqmlab and ns-2 judge oppositely.

    Each row: the ID, aqmlab's verdict and evidence, ns-2's, and the mechanism suspected
    (:attr:`Study.model_gaps`, or "not identified yet").
    """
    rows = []
    for finding in study.findings:
        theirs = referee.get(finding.id) if referee is not None else None
        if verdict_class(ours[finding.id], theirs) not in (AQMLAB_DIFFERS, HOLDS_NOT_NS2):
            continue
        assert theirs is not None
        mine = ours[finding.id]
        rows.append([finding.id, f"{mine.status}: {mine.evidence}",
                     f"{theirs.status}: {theirs.evidence}",
                     study.model_gaps.get(finding.id, "not identified yet")])  # fmt: skip
    return rows


def class_table(study: Study, ours: Mapping[str, Verdict],
                referee: Mapping[str, Verdict] | None) -> list[list[str]]:
    """Return the report's rows of every finding that does not hold.

    Each row: the ID, the class, ns-2's verdict and its evidence.
    """
    rows = []
    for finding in study.findings:
        verdict = ours[finding.id]
        if verdict.status != DOES_NOT_HOLD:
            continue
        theirs = referee.get(finding.id) if referee is not None else None
        rows.append([finding.id, verdict_class(verdict, theirs),
                     theirs.status if theirs is not None else "not asked",
                     theirs.evidence if theirs is not None else ""])  # fmt: skip
    return rows
