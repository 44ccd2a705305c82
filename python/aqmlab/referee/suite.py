"""The cross-check suite: the bulk-TCP dumbbells aqmlab is held to against a referee.

Each case is ``ns2-dumbbell.toml`` (beside this module) with a few keys changed: 10 or 50 flows;
Reno, NewReno or SACK; and the bottleneck queue — drop-tail, RED classic (packet mode, not gentle),
gentle RED, Adaptive RED, RED in byte mode (ns-2.35's default), gentle RED with ECN, or a uniform
dropper at p = 0.01, 0.03 or 0.1. :func:`run_suite` cross-checks every case
(:func:`~aqmlab.referee.crosscheck`) and writes one table of them all (``suite.md``,
``suite.json``). ``aqmlab crosscheck --suite`` runs it; docs/ns2-referee.md has the last results.

>>> [c.name for c in cases()][:3]
['10-reno-droptail', '10-reno-red', '10-reno-gentle']
>>> len(cases()), len(cases(quick=True))
(54, 18)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aqmlab.referee import CrossCheck, crosscheck
from aqmlab.scenario import Scenario, apply_overrides, read_scenario

BASE = Path(__file__).with_name("ns2-dumbbell.toml")
"""The suite's scenario, shipped with the package."""

QUEUES: dict[str, list[str]] = {
    "droptail": ["queue={kind='droptail', limit='100p'}"],
    "red": ["queue.gentle=false", "queue.mode=pq_pm"],
    "gentle": ["queue.mode=pq_pm"],
    "adaptive": ["queue.mode=pq_pm", "queue.adaptive=true"],
    "byte": [],
    "ecn": ["queue.mode=pq_pm", "queue.ecn=true", "tcp.ecn=true"],
    "uniform-0.01": ["queue={kind='bernoulli', p=0.01, limit='100p'}"],
    "uniform-0.03": ["queue={kind='bernoulli', p=0.03, limit='100p'}"],
    "uniform-0.1": ["queue={kind='bernoulli', p=0.1, limit='100p'}"],
}
"""The bottleneck queues of the suite, as ``--set`` overrides of the base scenario."""

FLOWS = (10, 50)
VARIANTS = ("reno", "newreno", "sack")


@dataclass(frozen=True)
class Case:
    """One scenario of the suite: its name and its overrides of the base scenario."""

    name: str
    overrides: tuple[str, ...]

    def scenario(self, base: Path = BASE) -> Scenario:
        """Return the case's scenario (the base with the overrides applied)."""
        return apply_overrides(read_scenario(base), [f"name={self.name}", *self.overrides])


def cases(*, quick: bool = False) -> list[Case]:
    """Return the suite's cases; ``quick``: NewReno only (one of each flow count and queue)."""
    found = []
    for flows in FLOWS:
        for variant in VARIANTS:
            if quick and variant != "newreno":
                continue
            for queue, sets in QUEUES.items():
                found.append(Case(f"{flows}-{variant}-{queue}",
                                  (f"traffic[0].flows={flows}", f"tcp.variant={variant}",
                                   *sets)))  # fmt: skip
    return found


def run_suite(
    out: str | Path,
    *,
    against: str = "ns2",
    seeds: Iterable[int] = (1, 2, 3, 4, 5),
    chosen: Iterable[Case] | None = None,
    extra: Iterable[str] = (),
    aqmlab_only: Iterable[str] = (),
    jobs: int = 1,
    progress: Callable[[str], object] | None = None,
) -> list[CrossCheck]:
    """Cross-check every case (or ``chosen``) and write one table of them all.

    Each case goes to ``out/<case>/``, the table to ``out/suite.md`` and ``out/suite.json``.
    ``extra`` are overrides applied to every case (e.g. ``duration=20s``), ``aqmlab_only`` to
    aqmlab's side of every case alone (:func:`~aqmlab.referee.crosscheck`).
    """
    folder = Path(out)
    checks = []
    seed_list = list(seeds)
    for case in chosen if chosen is not None else cases():
        scenario = apply_overrides(case.scenario(), list(extra))
        checks.append(crosscheck(scenario, against=against, seeds=seed_list,
                                 out=folder / case.name, jobs=jobs,
                                 aqmlab_only=aqmlab_only))  # fmt: skip
        if progress is not None:
            progress(f"{case.name}: {'agree' if checks[-1].agrees else 'disagree'}")
    (folder / "suite.json").write_text(json.dumps([_summary(c) for c in checks], indent=2) + "\n")
    (folder / "suite.md").write_text(
        suite_table(checks, seed_list, [*extra, *(f"aqmlab only: {o}" for o in aqmlab_only)]))
    return checks


def _summary(check: CrossCheck) -> dict[str, Any]:
    rows = {r.measure: r for r in check.rows()}
    return {
        "case": check.scenario,
        "agrees": check.agrees,
        **{f"{name}_{side}": getattr(rows[name], side)
           for name in ("tcp_goodput_bps", "drop_rate", "mean_queue_pkts")
           for side in ("aqmlab", "referee", "difference")},  # fmt: skip
    }


def suite_table(checks: list[CrossCheck], seeds: list[int], extra: list[str]) -> str:
    """Return the suite's results as one Markdown table (a row per case)."""
    agree = sum(c.agrees for c in checks)
    lines = [
        "# Cross-check suite", "",
        f"Seeds {', '.join(map(str, seeds))}"
        + (f"; every case with {', '.join(extra)}" if extra else "")
        + f". {agree} of {len(checks)} cases agree within the tolerances (goodput ±5%, drop "
        "rate and mean queue ±15%, on the seed means).", "",
        "| case | goodput aqmlab (Mb/s) | diff | drop rate aqmlab | diff | mean queue aqmlab "
        "(pkts) | diff | agree |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for check in checks:
        r = {row.measure: row for row in check.rows()}
        g, d, q = r["tcp_goodput_bps"], r["drop_rate"], r["mean_queue_pkts"]
        lines.append(
            f"| {check.scenario} | {(g.aqmlab or 0) / 1e6:.3f} | {_pct(g.difference)} | "
            f"{d.aqmlab or 0:.4f} | {_pct(d.difference)} | {q.aqmlab or 0:.2f} | "
            f"{_pct(q.difference)} | {'yes' if check.agrees else '**no**'} |")
    lines += ["", "diff: (referee − aqmlab) / aqmlab of the seed means."]
    return "\n".join(lines) + "\n"


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:+.1%}"
