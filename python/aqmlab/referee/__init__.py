"""Referees: the same scenario run in another simulator and set beside aqmlab's run.

``aqmlab crosscheck SCENARIO --against ns2`` (or :func:`crosscheck`) runs a scenario in aqmlab
and in ns-2.35 (:mod:`aqmlab.referee.ns2`; ``ns3`` reuses the bench's ns-3 builder,
:mod:`aqmlab.bench.ns3`, on any network it maps) for each seed, and compares what both report
for the forward bottleneck, every other logged link both report, and the flows
(:class:`~aqmlab.referee.measures.Measures`): goodput (and each group's, with two groups or
more), drops by kind, marks, drop rate, time-averaged queue, RED's average, Jain's index. The
means over the seeds are judged against tolerances (:data:`TOLERANCES`, overridable): a referee
that disagrees beyond them says that one of the two models is off, and docs/ns2-referee.md says
how to find which. A link's drop rate and mean queue (``drop_rate@LINK``,
``mean_queue_pkts@LINK``) are judged against the same tolerances as the bottleneck's where
either simulator dropped packets on it; elsewhere (an ACK path whose queue holds a hundredth of a
packet) they are shown, not judged: the relative difference of two near-empty queues says
nothing.

>>> sorted(TOLERANCES)
['drop_rate', 'mean_queue_pkts', 'tcp_goodput_bps', 'udp_goodput_bps']
>>> relative_difference(10.0, 11.0), relative_difference(0.0, 0.0)
(0.1, 0.0)
>>> label("drop_rate@r0-r1"), label("tcp_goodput_bps@long"), label("jain")
('drop rate, r0-r1', 'TCP goodput (bit/s), long', "Jain's index (TCP goodput)")
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from aqmlab.errors import ScenarioError, StoreError
from aqmlab.referee.measures import FlowMeasure, LinkMeasure, Measures, from_result
from aqmlab.scenario import Scenario, ScenarioLike, apply_overrides, as_scenario, resolve

REFEREES = {"ns2": "ns-2.35", "ns3": "ns-3"}
"""The simulators ``--against`` takes, and what tables call them."""

TOLERANCES: dict[str, float] = {
    "tcp_goodput_bps": 0.05,
    "udp_goodput_bps": 0.05,
    "drop_rate": 0.15,
    "mean_queue_pkts": 0.15,
}
"""Default largest relative difference of the seed means, per judged measure: 5% on goodput,
15% on the drop rate and the mean queue (the agreement asked of aqmlab's bulk-TCP dumbbells
against ns-2.35). Other measures are shown, not judged."""

LABELS = {
    "tcp_goodput_bps": "TCP goodput (bit/s)",
    "udp_goodput_bps": "UDP goodput (bit/s)",
    "arrivals_pkts": "arrivals (pkts)",
    "drops_pkts": "drops (pkts)",
    "drops_early_pkts": "  early (RED random)",
    "drops_forced_pkts": "  forced (RED average)",
    "drops_overflow_pkts": "  overflow (full queue)",
    "drops_forced_or_overflow_pkts": "  forced + overflow",
    "marks_pkts": "marks (pkts)",
    "drop_rate": "drop rate",
    "mean_queue_pkts": "mean queue (pkts)",
    "red_avg": "RED average (queue unit)",
    "jain": "Jain's index (TCP goodput)",
    "requests_completed": "web requests completed",
    "response_median_s": "web response time, median (s)",
    "response_mean_s": "web response time, mean (s)",
}
"""Row labels of the side-by-side table, in its order; a link's or a group's rows follow them
(:func:`label`)."""


def label(measure: str) -> str:
    """Return a row's label: ``MEASURE@WHERE`` (a link, a group) is the measure's, then where."""
    base, _, where = measure.partition("@")
    return f"{LABELS[base].strip()}, {where}" if where else LABELS[base]


def relative_difference(ours: float, theirs: float) -> float:
    """``(theirs − ours) / ours``: 0 when both are 0, infinite when only ``ours`` is."""
    if ours == 0:
        return 0.0 if theirs == 0 else math.inf
    return (theirs - ours) / ours


@dataclass
class Row:
    """One measure of the side-by-side table.

    The seed means, their relative difference, and the tolerance it is judged against
    (``None``: shown, not judged).
    """

    measure: str
    aqmlab: float | None
    referee: float | None
    difference: float | None
    tolerance: float | None
    noise: float | None = None
    """The standard error of the difference of the two seed means, relative to aqmlab's mean
    (``None`` with fewer than two seeds): how much of ``difference`` the seeds alone explain."""

    def within_noise(self, k: float = 3.0) -> bool | None:
        """Say whether the difference is within the tolerance or within ``k`` times the noise.

        For checks at a smaller scale than the judged one (fewer seeds, shorter runs), where the
        seeds' spread alone can exceed the tolerance.
        """
        if self.tolerance is None or self.difference is None:
            return None
        return abs(self.difference) <= max(self.tolerance, k * (self.noise or 0.0))

    @property
    def within(self) -> bool | None:
        """Say whether the difference is within the tolerance (``None`` if not judged)."""
        if self.tolerance is None or self.difference is None:
            return None
        return abs(self.difference) <= self.tolerance


@dataclass
class CrossCheck:
    """A scenario run in aqmlab and a referee for each seed, and the comparison of the means."""

    scenario: str
    against: str
    seeds: list[int]
    aqmlab: list[Measures]
    referee: list[Measures]
    tolerances: dict[str, float]
    notes: list[str] = field(default_factory=list)

    def rows(self) -> list[Row]:
        """Return the side-by-side table, means over the seeds.

        :data:`LABELS` in order, then the links' and groups' rows every run of both simulators
        has (in aqmlab's order).
        """
        ours_all = [m.headline() for m in self.aqmlab]
        theirs_all = [m.headline() for m in self.referee]
        extra = [key for key in ours_all[0] if "@" in key
                 and all(key in h for h in [*ours_all, *theirs_all])] if ours_all else []
        means: dict[str, tuple[float | None, float | None]] = {}
        rows = []
        for measure in [*LABELS, *extra]:
            a = [h[measure] for h in ours_all]
            b = [h[measure] for h in theirs_all]
            ours, theirs = _mean(a), _mean(b)
            means[measure] = (ours, theirs)
            judged = ours is not None and theirs is not None
            base, _, where = measure.partition("@")
            if where and base in ("drop_rate", "mean_queue_pkts"):
                judged = judged and any(means.get(f"drops_pkts@{where}", (0.0, 0.0)))
            diff = relative_difference(ours, theirs) if ours is not None and theirs is not None \
                else None
            rows.append(Row(measure, ours, theirs, diff,
                            self.tolerances.get(base) if judged else None,
                            _noise(a, b, ours) if judged else None))
        return rows

    @property
    def agrees(self) -> bool:
        """Say whether every judged measure is within its tolerance."""
        return all(row.within is not False for row in self.rows())

    def to_json(self) -> dict[str, Any]:
        """Return everything as plain data (``crosscheck.json``)."""
        return {
            "scenario": self.scenario,
            "against": self.against,
            "seeds": self.seeds,
            "tolerances": self.tolerances,
            "agrees": self.agrees,
            "rows": [{**asdict(r), "within": r.within} for r in self.rows()],
            "runs": [{"seed": s, "aqmlab": asdict(a), "referee": asdict(b)}
                     for s, a, b in zip(self.seeds, self.aqmlab, self.referee, strict=True)],
            "notes": self.notes,
        }

    def markdown(self) -> str:
        """Return the comparison as a Markdown table with a one-line verdict."""
        name = REFEREES[self.against]
        lines = [f"# {self.scenario}: aqmlab beside {name}", "",
                 f"Seeds {', '.join(map(str, self.seeds))}; means over the seeds. "
                 f"Verdict: **{'agree' if self.agrees else 'disagree'}** within the tolerances. "
                 "difference: (referee − aqmlab) / aqmlab; noise: the standard error of that "
                 "difference from the seeds' spread.",
                 "",
                 f"| measure | aqmlab | {name} | difference | noise (SE) | tolerance | within |",
                 "|---|---:|---:|---:|---:|---:|---|"]
        for r in self.rows():
            if r.aqmlab is None and r.referee is None:
                continue
            within = {True: "yes", False: "**no**", None: ""}[r.within]
            tol = "" if r.tolerance is None else f"±{r.tolerance:.0%}"
            noise = "" if r.noise is None else f"±{r.noise:.1%}"
            lines.append(f"| {label(r.measure).strip()} | {number(r.aqmlab)} | "
                         f"{number(r.referee)} | {_pct(r.difference)} | {noise} | {tol} | "
                         f"{within} |")
        if self.notes:
            lines += ["", "Notes:", *(f"- {n}" for n in self.notes)]
        return "\n".join(lines) + "\n"


def _mean(values: Iterable[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.fmean(present) if present else None


def _noise(a: list[float | None], b: list[float | None], ours: float | None) -> float | None:
    xs = [v for v in a if v is not None]
    ys = [v for v in b if v is not None]
    if len(xs) < 2 or len(ys) < 2 or not ours:
        return None
    se = math.sqrt(statistics.variance(xs) / len(xs) + statistics.variance(ys) / len(ys))
    return se / abs(ours)


def number(value: float | None) -> str:
    """Return a measure as the side-by-side tables print it.

    >>> number(9536080.0), number(0.12634), number(None)
    ('9,536,080', '0.1263', '—')
    """
    if value is None:
        return "—"
    if abs(value) >= 1e5:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def _pct(value: float | None) -> str:
    if value is None:
        return ""
    return "∞" if math.isinf(value) else f"{value:+.1%}"


def _ns2_side(scenario: Scenario, seed: int, folder: Path) -> tuple[Scenario, Measures, list[str]]:
    from aqmlab.referee.ns2 import ns2_script, run_ns2

    script = ns2_script(scenario, seed=seed)
    ours = dict(scenario)
    if script.pair_delays_s and len(set(script.pair_delays_s)) > 1:
        # Both sides take the pair delays the script drew, as an explicit list.
        ours["topology"] = {**scenario.get("topology", {}),
                            "pair_delay": [f"{d * 1e9:.0f}ns" for d in script.pair_delays_s]}
    return ours, run_ns2(script, folder), script.notes


def _ns3_side(scenario: Scenario, seed: int, folder: Path) -> tuple[Scenario, Measures, list[str]]:
    from aqmlab.bench import ns3

    if not ns3.available():
        raise StoreError("ns3", "ns-3 is not installed (pip install 'aqmlab[ns3]')")
    network = replace(ns3.ns3_network({**scenario, "seed": seed}, start_seed=seed), run=seed)
    row = ns3.run_in_child(network)
    links = {name: LinkMeasure(count.arrivals_pkts, count.drops_pkts, count.mean_queue_pkts)
             for name, count in row.links.items() if name != network.bottleneck}  # fmt: skip
    measures = Measures("ns-3", row.simulated_s, row.arrivals_pkts, row.drops_pkts, 0,
                        row.mean_queue_pkts, wall_s=row.process_s,
                        bottleneck=network.bottleneck is not None, links=links)
    measures.flows = [FlowMeasure(index, flow.group, "tcp", goodput) for index, (flow, goodput)
                      in enumerate(zip(network.flows, row.flow_goodput_bps, strict=True))]
    notes = ["ns-3 reports each TCP flow's goodput as the bytes its sender had acknowledged, no "
             "UDP goodput, drops without reasons, and measures the whole run (no warm-up); its "
             "random streams are run number SEED (RngSeedManager::SetRun), its flows' start "
             "times drawn in Python from SEED (not aqmlab's draws)"]
    return scenario, measures, notes


SIDES: dict[str, Callable[[Scenario, int, Path], tuple[Scenario, Measures, list[str]]]] = {
    "ns2": _ns2_side,
    "ns3": _ns3_side,
}


def crosscheck(
    scenario: ScenarioLike,
    *,
    against: str = "ns2",
    seeds: Iterable[int] = (1,),
    out: str | Path,
    tolerances: Mapping[str, float] | None = None,
    jobs: int = 1,
    aqmlab_only: Iterable[str] = (),
    approximate: bool = False,
) -> CrossCheck:
    """Run ``scenario`` in aqmlab and in ``against`` for each seed; write and return the comparison.

    ``out`` gets one folder per seed (``seed-N/``: the referee's script, its log and results) and
    ``crosscheck.json`` and ``crosscheck.md``. The referee's runs go ``jobs`` at a time.
    ``aqmlab_only`` are ``--set`` overrides applied to aqmlab's side alone, after the referee's
    script is written: to measure what one mechanism contributes to the agreement (turn it off
    in aqmlab while the referee keeps it). ``approximate`` (ns-2 only): both simulators run the
    nearest scenario ns-2 can express (:func:`aqmlab.referee.approximate.ns2_approximation`),
    each change listed in the notes.
    A scenario the referee cannot express raises :class:`ScenarioError` naming the key, before
    anything runs.
    """
    from aqmlab.runner import run

    if against not in SIDES:
        raise ScenarioError("--against", f'expected one of {", ".join(REFEREES)}, got "{against}"')
    plain = as_scenario(scenario)
    changes: list[str] = []
    if approximate:
        if against != "ns2":
            raise ScenarioError("--approximate", f'only with --against ns2, not "{against}"')
        from aqmlab.referee.approximate import ns2_approximation

        near, changes = ns2_approximation(plain)
        plain = as_scenario(near)
    seed_list = list(seeds)
    tol = {**TOLERANCES, **(tolerances or {})}
    unknown = sorted(set(tol) - set(LABELS))
    if unknown:
        raise ScenarioError("--tolerance", f"unknown measure {unknown[0]!r} (one of "
                                           f"{', '.join(LABELS)})")
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)  # the ns-3 side writes no folder of its own
    side = SIDES[against]
    if against == "ns2":  # refuse what ns-2 cannot express before running anything
        from aqmlab.referee.ns2 import ns2_script
        ns2_script(plain, seed=seed_list[0])
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = [pool.submit(side, plain, seed, folder / f"seed-{seed}") for seed in seed_list]
        sides = [f.result() for f in futures]
    only = list(aqmlab_only)
    ours = [from_result(run(apply_overrides(mapped, only), seed=seed))
            for (mapped, _, _), seed in zip(sides, seed_list, strict=True)]
    notes = sorted({note for _, _, ns in sides for note in ns})
    notes += [f"approximated: {change}" for change in changes]
    if only:
        notes.append(f"aqmlab's side alone with {', '.join(only)}")
    check = CrossCheck(str(resolve(plain)["name"]), against, seed_list, ours,
                       [m for _, m, _ in sides], tol, notes)
    (folder / "crosscheck.json").write_text(json.dumps(check.to_json(), indent=2) + "\n")
    (folder / "crosscheck.md").write_text(check.markdown())
    return check
