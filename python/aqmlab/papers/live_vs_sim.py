"""``live-vs-sim``: aqmlab's TCP models against the kernel's TCP, through the same queues.

``sudo aqmlab reproduce live-vs-sim --scale quick|full`` is a comparison study, **not a
reproduction**: no paper to match. It regenerates docs/live.md's measurements over seeds. Every
experiment runs twice on one network, ``scenarios/live-cubic.toml``'s (10 × 10 hosts, a 10 Mbps
bottleneck, a 40 ms round trip, ``tcp.profile = "linux"``):

- simulated (``bulk_sim``, ``web_sim``): ordinary aqmlab runs;
- live (``bulk_live``, ``web_live``): the same scenarios and seeds on the kernel's TCP in two
  network namespaces, through aqmlab's own bottleneck (live mode, docs/live.md), one run at a
  time on :class:`aqmlab.live.executor.LiveExecutor`. They need root; without it they fail, and
  the findings that need them are "not run", with the reason.

The queue is the same code on both sides, so a disagreement points at a TCP model. The two sides'
scenarios differ only in ``name`` (:data:`SIM_NAME`, :data:`LIVE_NAME`), so that their runs have
run directories of their own in the one store.

The bulk experiments cross three congestion controls (:data:`CCS`) with five queues
(:data:`QUEUES`); the web pair sends 200 ``web-mah`` users through drop-tail and RED. The findings
are questions, each with a criterion fixed before any result, judged per congestion control over
every queue on the means over seeds (and whether each seed alone agrees), as the study layer does.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.live.compare import relative
from aqmlab.live.executor import LiveExecutor
from aqmlab.plot import Curve, Panel, cdf_band_curves, run_cdf
from aqmlab.stats import jain, ks_distance
from aqmlab.study.design import Factor, Level, factorial
from aqmlab.study.model import (
    NOT_RUN,
    Column,
    Criterion,
    Data,
    Experiment,
    FigureSpec,
    Finding,
    Scale,
    Section,
    Study,
    TableSpec,
    Verdict,
    seedwise,
)
from aqmlab.study.report import markdown_table, with_testbed
from aqmlab.sweeps import Sweep

NAME = "live-vs-sim"
TITLE = "Live vs simulated: the kernel's TCP and aqmlab's through the same queues"

SIM_NAME = "live-vs-sim-simulated"
LIVE_NAME = "live-vs-sim-live"
"""The scenarios' ``name`` on each side: the only key in which they differ."""

# --- the testbed ---------------------------------------------------------------------------------
CCS = ("cubic", "reno", "bbr")
"""The congestion controls (``tcp.congestion_control``; the kernel's own on the live side)."""
QUEUES: dict[str, dict[str, Any]] = {
    "droptail": {"kind": "droptail", "limit": "100p"},
    "red": {"kind": "red", "limit": "200p", "min_th": 10, "max_th": 30, "max_p": 0.1},
    "codel": {"kind": "codel", "limit": "1000p"},
    "fq_codel": {"kind": "fq_codel", "limit": "1000p"},
    "pie": {"kind": "pie", "limit": "1000p"},
}
"""The forward bottleneck's queues, as in docs/live.md (``runs/live-agree/run.sh``): drop-tail of
100 packets, RED (10, 30, 0.1) in 200 packets, and CoDel, FQ-CoDel and PIE with their defaults in
1000 packets."""
WEB_QUEUES = ("droptail", "red")
"""The queues the web users go through."""
FLOWS = 10
WEB_USERS = 200


def testbed(duration: str, warmup: str, name: str = SIM_NAME) -> dict[str, Any]:
    """Return ``scenarios/live-cubic.toml``'s network and bulk flows for this long.

    Ten unlimited CUBIC downloads (``tcp.profile = "linux"``) over 10 × 10 hosts, a 10 Mbps
    bottleneck with a 10 ms delay and 1 Gbps access links of 5 ms: 40 ms round trip. Drop-tail
    of 100 packets (the queue factor replaces it).

    >>> testbed("30s", "10s")["topology"]["bottleneck"]
    {'rate': '10Mbps', 'delay': '10ms'}
    """
    return {
        "name": name, "seed": 1, "duration": duration, "warmup": warmup,
        "topology": {"servers": FLOWS, "clients": FLOWS,
                     "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                     "access": {"rate": "1Gbps", "delay": "5ms"}},
        "queue": dict(QUEUES["droptail"]),
        "tcp": {"profile": "linux"},
        "traffic": [{"name": "bulk", "kind": "ftp", "flows": FLOWS, "from": "servers",
                     "size": "unlimited",
                     "start": {"dist": "uniform", "min": "0s", "max": "1s"}}],
    }  # fmt: skip


def web_testbed(duration: str, warmup: str, users: int, name: str = SIM_NAME) -> dict[str, Any]:
    """Return the testbed with ``users`` Mah web users (``web-mah``) instead of the downloads.

    >>> web_testbed("60s", "10s", 200)["traffic"]
    [{'name': 'web', 'kind': 'web-mah', 'users': 200}]
    """
    scenario = testbed(duration, warmup, name)
    scenario["traffic"] = [{"name": "web", "kind": "web-mah", "users": users}]
    return scenario


# --- criteria (fixed before any result; never tuned) ---------------------------------------------
GOODPUT_REL = 0.05
"""Total goodput: simulated within 5% of live."""
DROP_REL = 0.20
"""Forward drop rate: simulated within 20% of live."""
DELAY_REL = 0.20
"""Forward mean queueing delay: simulated within 20% of live."""
RESPONSE_REL = 0.10
"""Web: median and 90th-percentile response time, simulated within 10% of live (aqmlab's own)."""

SCALES = {
    "quick": Scale("quick", 1, "bulk: 40 s runs, 30 s measured after a 10 s warm-up; web: 60 s, "
                   "the first 10 s discarded; 1 seed; live runs take real time, one at a time",
                   settings={
                       "bulk": {"duration": "40s", "warmup": "10s"},
                       "web": {"duration": "60s", "warmup": "10s", "users": WEB_USERS},
                       "ccs": CCS, "queues": tuple(QUEUES)}),
    "full": Scale("full", 5, "bulk: 70 s runs, 60 s measured after a 10 s warm-up; web: 130 s, "
                  "2 minutes measured after 10 s; 5 seeds; live runs take real time, one at a "
                  "time", settings={
                      "bulk": {"duration": "70s", "warmup": "10s"},
                      "web": {"duration": "130s", "warmup": "10s", "users": WEB_USERS},
                      "ccs": CCS, "queues": tuple(QUEUES)}),
    "smoke": Scale("smoke", 1, "NOT A STUDY: seconds-long runs of CUBIC through drop-tail only, "
                   "that exercise the pipeline (tests)", reproduction=False, settings={
                       "bulk": {"duration": "6s", "warmup": "2s"},
                       "web": {"duration": "6s", "warmup": "2s", "users": WEB_USERS},
                       "ccs": ("cubic",), "queues": ("droptail",)}),
}  # fmt: skip


# --- experiments ---------------------------------------------------------------------------------
def _bulk(name: str) -> Callable[[Scale, Data], Sweep]:
    def build(scale: Scale, _: Data) -> Sweep:
        cc = Factor.over("cc", "tcp.congestion_control", scale["ccs"])
        queue = Factor("queue", tuple(Level(q, {"queue": dict(QUEUES[q])})
                                      for q in scale["queues"]))  # fmt: skip
        base = testbed(scale["bulk"]["duration"], scale["bulk"]["warmup"], name)
        return factorial(base, (cc, queue))

    return build


def _web(name: str) -> Callable[[Scale, Data], Sweep]:
    def build(scale: Scale, _: Data) -> Sweep:
        web = scale["web"]
        queue = Factor("queue", tuple(Level(q, {"queue": dict(QUEUES[q])}) for q in WEB_QUEUES))
        return factorial(web_testbed(web["duration"], web["warmup"], web["users"], name),
                         (queue,))  # fmt: skip

    return build


EXPERIMENTS = (
    Experiment("bulk_sim", "10 bulk flows, simulated: congestion controls × 5 queues",
               _bulk(SIM_NAME), referee=False),
    Experiment("bulk_live", "the same on the kernel's TCP (live mode, one run at a time)",
               _bulk(LIVE_NAME), referee=False, executor=LiveExecutor),
    Experiment("web_sim", f"{WEB_USERS} web-mah users, simulated: drop-tail and RED",
               _web(SIM_NAME), referee=False),
    Experiment("web_live", "the same on the kernel's TCP (live mode, one run at a time)",
               _web(LIVE_NAME), referee=False, executor=LiveExecutor),
)  # fmt: skip


# --- collected data as tidy frames ---------------------------------------------------------------
SIDES = ("live", "sim")
BULK_MEASURES = {
    "goodput_mbps": "total goodput (Mb/s)",
    "drop_pct": "forward drop rate (%)",
    "sojourn_ms": "forward mean queueing delay (ms)",
    "jain": "Jain's index",
}
"""The bulk measures per run: the flows' total goodput, the forward bottleneck's drop rate and mean
queueing delay (the summary's ``forward.drop_rate`` and ``forward.mean_queue_delay_s``), and Jain's
index of the flows' goodputs."""


def _bulk_side(data: Data, experiment: str) -> pd.DataFrame:
    """One row per run of a bulk experiment: cc, queue, seed and :data:`BULK_MEASURES`."""
    s = data.runs(experiment)
    rows = pd.DataFrame({"cc": s["cc"], "queue": s["queue"], "seed": s["seed"].astype(int),
                         "run": s["run"].astype(str)})  # fmt: skip
    rows["drop_pct"] = s["forward.drop_rate"].to_numpy(dtype=float) * 100
    rows["sojourn_ms"] = s["forward.mean_queue_delay_s"].to_numpy(dtype=float) * 1e3
    conns = data.table(experiment, "connections", columns=["goodput_bps"])
    conns = conns.assign(run=conns["run"].astype(str))
    by_run = conns.groupby("run")["goodput_bps"]
    per_run = pd.DataFrame({"goodput_mbps": by_run.sum() / 1e6,
                            "jain": by_run.apply(lambda g: jain(g.to_numpy(dtype=float)))})
    return rows.join(per_run, on="run").drop(columns="run")


def _paired(live: pd.DataFrame, sim: pd.DataFrame, keys: Sequence[str],
            measures: Sequence[str]) -> pd.DataFrame:  # fmt: skip
    """Live and simulated runs side by side (``live_m``, ``sim_m``) with ``diff_m_pct``.

    ``diff_m_pct`` is each pair's (simulated − live) / live in percent
    (:func:`aqmlab.live.compare.relative`).

    >>> live = pd.DataFrame({"q": ["a"], "seed": [1], "x": [10.0]})
    >>> _paired(live, live.assign(x=[11.0]), ["q", "seed"], ["x"]).round(6).values.tolist()
    [['a', 1, 10.0, 11.0, 10.0]]
    """
    both = live.merge(sim, on=list(keys), suffixes=("_live", "_sim"))
    out = both[list(keys)].copy()
    for m in measures:
        out[f"live_{m}"] = both[f"{m}_live"]
        out[f"sim_{m}"] = both[f"{m}_sim"]
        out[f"diff_{m}_pct"] = [100 * relative(a, b) for a, b in
                                zip(out[f"live_{m}"], out[f"sim_{m}"], strict=True)]  # fmt: skip
    return out


def bulk_rows(data: Data) -> pd.DataFrame:
    """Return one row per (cc, queue, seed): live and simulated :data:`BULK_MEASURES`, and diffs."""

    def compute() -> pd.DataFrame:
        return _paired(_bulk_side(data, "bulk_live"), _bulk_side(data, "bulk_sim"),
                       ("cc", "queue", "seed"), tuple(BULK_MEASURES))  # fmt: skip

    return data.frame("bulk-rows", compute)


def _responses(data: Data, experiment: str) -> pd.DataFrame:
    """Every completed request/response pair of a web experiment: queue, seed, response_s."""
    rows = data.table(experiment, "requests", columns=["completed", "response_s"], typed=True)
    done = rows[rows["completed"].astype(bool)]
    return pd.DataFrame({"queue": done["queue"], "seed": done["seed"].astype(int),
                         "response_s": done["response_s"].to_numpy(dtype=float)})  # fmt: skip


def responses(data: Data) -> dict[str, pd.DataFrame]:
    """Return the completed pairs' response times of each side (``live``, ``sim``)."""
    return {side: data.frame(f"responses-{side}", partial(_responses, data, f"web_{side}"))
            for side in SIDES}  # fmt: skip


WEB_MEASURES = ("median_ms", "p90_ms", "completed")


def _web_side(data: Data, experiment: str) -> pd.DataFrame:
    s = data.runs(experiment)
    return pd.DataFrame({
        "queue": s["queue"], "seed": s["seed"].astype(int),
        "median_ms": s["requests.median_s"].to_numpy(dtype=float) * 1e3,
        "p90_ms": s["requests.p90_s"].to_numpy(dtype=float) * 1e3,
        "completed": s["requests.completed"].to_numpy(dtype=float),
    })  # fmt: skip


def web_rows(data: Data) -> pd.DataFrame:
    """Return one row per (queue, seed): the live and simulated web measures, and their KS distance.

    The median and 90th-percentile response times (ms) and the completed pairs of each side,
    their differences, and the KS distance of that seed's response times (``ks``).
    """

    def compute() -> pd.DataFrame:
        rows = _paired(_web_side(data, "web_live"), _web_side(data, "web_sim"),
                       ("queue", "seed"), WEB_MEASURES)  # fmt: skip
        times = responses(data)
        ks = []
        for q, seed in zip(rows["queue"], rows["seed"], strict=True):
            a, b = (times[side][(times[side]["queue"] == q) & (times[side]["seed"] == seed)]
                    ["response_s"] for side in SIDES)  # fmt: skip
            ks.append(ks_distance(a, b) if len(a) and len(b) else math.nan)
        rows["ks"] = ks
        return rows

    return data.frame("web-rows", compute)


def pooled_ks(data: Data) -> dict[str, dict[str, float]]:
    """Return per web queue the KS distance of the response-time CDFs pooled over seeds.

    With the number of completed pairs on each side (``live_n``, ``sim_n``).
    """
    times = responses(data)
    out = {}
    for q in WEB_QUEUES:
        a, b = (times[side][times[side]["queue"] == q]["response_s"] for side in SIDES)
        if len(a) and len(b):
            out[q] = {"ks_distance": ks_distance(a, b), "live_n": len(a), "sim_n": len(b)}
    return out


# --- findings ------------------------------------------------------------------------------------
def _queues(frame: pd.DataFrame) -> list[str]:
    present = set(frame["queue"])
    return [q for q in (*QUEUES, *sorted(present - set(QUEUES))) if q in present]


def agreement(measure: str, tolerance: float, what: str, digits: int) -> Callable[
        [pd.DataFrame], tuple[bool, str, dict[str, Any]]]:  # fmt: skip
    """Return a check: under every queue, the simulated mean within ``tolerance`` of the live.

    The means are over the frame's seeds (``live_M``, ``sim_M`` columns); the difference is
    (simulated − live) / live.

    >>> frame = pd.DataFrame({"queue": ["red", "red"], "seed": [1, 2],
    ...                       "live_x": [1.0, 3.0], "sim_x": [2.0, 2.4]})
    >>> ok, text, numbers = agreement("x", 0.2, "x", 1)(frame)
    >>> ok, text, numbers["worst_difference"]
    (True, 'x, live / simulated (simulated − live): red 2.0 / 2.2 (+10.0%)', 0.1)
    >>> agreement("x", 0.2, "x", 1)(frame[frame["seed"] == 1])[0]
    False
    """

    def check(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
        means = frame.groupby("queue")[[f"live_{measure}", f"sim_{measure}"]].mean()
        parts, ok = [], True
        lives: dict[str, float] = {}
        sims: dict[str, float] = {}
        diffs: dict[str, float] = {}
        worst = 0.0
        for q in _queues(frame):
            live, sim = (float(means.loc[q, f"{side}_{measure}"]) for side in SIDES)
            diff = relative(live, sim)
            good = math.isfinite(diff) and abs(diff) <= tolerance
            ok &= good
            worst = max(worst, abs(diff)) if not math.isnan(diff) else math.inf
            shown = f"{diff:+.1%}" if math.isfinite(diff) else "—"
            parts.append(f"{q} {live:.{digits}f} / {sim:.{digits}f} ({shown})")
            lives[q], sims[q], diffs[q] = live, sim, diff
        numbers = {"live": lives, "simulated": sims, "difference": diffs,
                   "worst_difference": round(worst, 12)}  # fmt: skip
        return ok, f"{what}, live / simulated (simulated − live): " + ", ".join(parts), numbers

    return check


def bulk_test(cc: str, measure: str, what: str, digits: int) -> Callable[..., Verdict]:
    """Return the test of one measure's agreement for ``cc`` within ``tolerance`` (seedwise).

    See :func:`agreement`.
    """

    def test(data: Data, *, tolerance: float) -> Verdict:
        frame = bulk_rows(data)
        frame = frame[frame["cc"] == cc]
        if frame.empty:
            return Verdict(NOT_RUN, f"scale {data.scale.name} runs no {cc} "
                                    f"(it runs {', '.join(data.scale['ccs'])})")  # fmt: skip
        return seedwise(agreement(measure, tolerance, what, digits), frame)

    return test


def check_web(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
    """Under both queues, the simulated median and 90th percentile within 10% of live."""
    ok = True
    texts, numbers = [], {}
    for measure, what in (("median_ms", "median"), ("p90_ms", "90th percentile")):
        good, text, nums = agreement(measure, RESPONSE_REL, what + " (ms)", 1)(frame)
        ok &= good
        texts.append(text)
        numbers[measure] = nums
    numbers["worst_difference"] = max(numbers[m]["worst_difference"] for m in ("median_ms",
                                                                             "p90_ms"))
    return ok, "; ".join(texts), numbers


def judge_web(data: Data) -> Verdict:
    """:func:`check_web` on all seeds and each alone; the pooled KS distances reported beside."""
    frame = web_rows(data)
    if frame.empty:
        return Verdict(NOT_RUN, "no rows")
    verdict = seedwise(check_web, frame)
    ks = pooled_ks(data)
    shown = ", ".join(f"{q} {v['ks_distance']:.3f} ({v['live_n']} / {v['sim_n']} pairs)"
                      for q, v in ks.items())  # fmt: skip
    return dataclasses.replace(
        verdict, evidence=f"{verdict.evidence}; KS distance, pooled over seeds: {shown}",
        numbers={**verdict.numbers, "ks": ks})  # fmt: skip


CC_NAMES = {"cubic": "CUBIC", "reno": "Reno", "bbr": "BBR"}
ORDER = ("the live runs' and the simulated runs' means over seeds, compared under each of the "
         "five queues as (simulated − live) / live")


def _bulk_findings() -> tuple[Finding, ...]:
    findings = []
    for k, cc in enumerate(CCS):
        name = CC_NAMES[cc]
        kernel = f"the kernel's {name}"
        for j, (measure, tolerance, claim, what, digits, words) in enumerate((
            ("goodput_mbps", GOODPUT_REL, f"Simulated {name} delivers the goodput {kernel} does",
             "total goodput (Mb/s)", 3,
             f"the total goodput of the {FLOWS} flows (the sum of the connections table's "
             "`goodput_bps`)"),
            ("drop_pct", DROP_REL, f"Simulated {name} loses packets as often as {kernel} does",
             "forward drop rate (%)", 2,
             "the forward bottleneck's drop rate (the summary's `forward.drop_rate`)"),
            ("sojourn_ms", DELAY_REL, f"Simulated {name} builds the queue {kernel} builds",
             "forward mean queueing delay (ms)", 1,
             "the forward bottleneck's mean queueing delay (the summary's "
             "`forward.mean_queue_delay_s`)"),
        )):  # fmt: skip
            criterion = Criterion(
                ("bulk_sim", "bulk_live"),
                f"with `congestion_control = \"{cc}\"`, {words}: {ORDER}; each difference is "
                f"within ±{tolerance:.0%}",
                bulk_test(cc, measure, what, digits),
                thresholds={"tolerance": tolerance},
            )
            findings.append(criterion.finding(f"L{3 * k + j + 1}", claim + ", under every queue?"))
    return tuple(findings)


FINDINGS = (
    *_bulk_findings(),
    Criterion(
        ("web_sim", "web_live"),
        f"{WEB_USERS} `web-mah` users, through drop-tail and through RED: the mean over seeds of "
        "the median and of the 90th-percentile response time of the completed request/response "
        f"pairs, simulated, within ±{RESPONSE_REL:.0%} of live under both queues. The "
        "Kolmogorov–Smirnov distance between the two sides' response-time CDFs (pooled over "
        "seeds) is reported, not judged. This criterion is aqmlab's own, not a paper's",
        judge_web,
    ).finding("L10", "Simulated web users see the response times the kernel's do?"),
)  # fmt: skip


# --- tables, figures, sections -------------------------------------------------------------------
INTERVALS = "Means over seeds ± the half-width of the 95% Student-t interval."
DIFFERENCES = ("The differences are (simulated − live) / live of each seed's pair of runs (the "
               "same scenario and seed on both sides), averaged over seeds; the findings judge "
               "the difference of the two means, which can differ a little from the mean "
               "difference when there are several seeds.")


def _bulk_columns() -> tuple[Column, ...]:
    digits = {"goodput_mbps": 3, "drop_pct": 2, "sojourn_ms": 1, "jain": 3}
    short = {"goodput_mbps": "goodput (Mb/s)", "drop_pct": "drop rate (%)",
             "sojourn_ms": "mean sojourn (ms)", "jain": "Jain"}  # fmt: skip
    columns = []
    for m, title in short.items():
        columns += [Column(f"{title} live", f"live_{m}", digits=digits[m]),
                    Column(f"{title} sim", f"sim_{m}", digits=digits[m]),
                    Column(f"{short[m].split(' (')[0]} diff (%)", f"diff_{m}_pct", digits=1)]
    return tuple(columns)


BULK_TABLE = TableSpec(
    "bulk", "Bulk flows: live beside simulated, per congestion control and queue",
    ("bulk_sim", "bulk_live"), ("cc", "queue"), _bulk_columns(), bulk_rows,
    note=f"{INTERVALS} {DIFFERENCES} Goodput is the total of the {FLOWS} flows; drop rate and "
    "mean sojourn (queueing delay) are the forward bottleneck's; Jain's index is of the flows' "
    "goodputs.")  # fmt: skip
WEB_TABLE = TableSpec(
    "web", "Web users: response times live beside simulated", ("web_sim", "web_live"),
    ("queue",),
    (Column("median live (ms)", "live_median_ms", digits=1),
     Column("median sim (ms)", "sim_median_ms", digits=1),
     Column("median diff (%)", "diff_median_ms_pct", digits=1),
     Column("p90 live (ms)", "live_p90_ms", digits=1),
     Column("p90 sim (ms)", "sim_p90_ms", digits=1),
     Column("p90 diff (%)", "diff_p90_ms_pct", digits=1),
     Column("pairs live", "live_completed", digits=0),
     Column("pairs sim", "sim_completed", digits=0),
     Column("KS distance (per seed)", "ks", digits=3)),
    web_rows, note=f"{INTERVALS} {DIFFERENCES} Response times of the completed request/response "
    "pairs of the measured period. The KS distance here is each seed's, averaged; the one pooled "
    "over seeds is under *Response-time distributions*.")  # fmt: skip

CDF_GRID_S = np.geomspace(0.01, 10.0, 400)
"""Response times at which CDFs are evaluated: 10 ms to 10 s, evenly on a log scale."""


def response_panels(data: Data) -> list[Panel]:
    """One panel per web queue: the response-time CDF live and simulated, with seed bands."""
    reduce = run_cdf("response_s", CDF_GRID_S)
    times = responses(data)
    panels = []
    for q in WEB_QUEUES:
        curves: list[Curve] = []
        for side, label in (("live", "live (kernel TCP)"), ("sim", "simulated")):
            rows = times[side][times[side]["queue"] == q]
            if rows.empty:
                continue
            cdfs = pd.concat([reduce(g).assign(seed=str(s)) for s, g in rows.groupby("seed")])
            (curve,) = cdf_band_curves(cdfs, x_scale=1e3, y_scale=100).values()
            curves.append(dataclasses.replace(curve, label=label))
        panels.append(Panel(q, tuple(curves), "response time (ms)", "cumulative % of pairs",
                            (10, 10_000), (0, 100), xscale="log"))  # fmt: skip
    return panels


FIGURES = (
    FigureSpec("response_cdfs", "Response-time CDFs, live and simulated", "",
               ("web_sim", "web_live"), response_panels),
)  # fmt: skip


def distributions_section(data: Data) -> str:
    """Return the KS distances between the two sides' response-time CDFs, pooled over seeds."""
    rows = [[q, f"{v['ks_distance']:.3f}", f"{v['live_n']:,}", f"{v['sim_n']:,}"]
            for q, v in pooled_ks(data).items()]  # fmt: skip
    return ("The Kolmogorov–Smirnov distance (the largest gap between the two empirical CDFs) of "
            "the completed pairs' response times, every seed's pairs pooled on each side:\n\n"
            + markdown_table(["queue", "KS distance", "pairs live", "pairs simulated"], rows))


def _timing(data: Data, experiment: str) -> list[str]:
    s = data.summary(experiment)
    mean_us = s["live.lateness.mean_s"].to_numpy(dtype=float) * 1e6
    p99_us = s["live.lateness.p99_s"].to_numpy(dtype=float) * 1e6
    max_ms = s["live.lateness.max_s"].to_numpy(dtype=float) * 1e3
    fifo = s["live.sched_fifo"].astype(bool)
    kernels = ", ".join(sorted(set(s["live.kernel"].astype(str))))
    return [experiment, str(len(s)), kernels, f"{np.mean(mean_us):.0f}",
            f"{np.median(p99_us):.0f} / {np.max(p99_us):.0f}", f"{np.max(max_ms):.1f}",
            f"{int(fifo.sum())} of {len(s)}"]  # fmt: skip


def timing_section(data: Data) -> str:
    """Return how late the live router wrote packets against the ideal schedule (docs/live.md)."""
    rows = [_timing(data, e) for e in ("bulk_live", "web_live") if data.has(e)]
    return ("The router's timing error in the live runs: how late it wrote packets to the "
            "receiving device against the ideal schedule (`summary.live.lateness`). docs/live.md "
            "measured 30–46 µs on average and 53–105 µs at the 99th percentile on this kind of "
            "machine; runs much later than that were disturbed (other load on the cores) and "
            "their agreement says less.\n\n"
            + markdown_table(["experiment", "runs", "kernel", "mean (µs)",
                              "p99 (µs): median / worst run", "worst packet (ms)",
                              "under SCHED_FIFO"], rows))  # fmt: skip


SECTIONS = (
    Section("Response-time distributions", ("web_sim", "web_live"), distributions_section),
    Section("Live router timing", ("bulk_live",), timing_section),
)

TESTBED = (
    "**Not a reproduction.** No paper to match: each finding is a question whose criterion was "
    "written before any result. Live runs need root (`sudo aqmlab reproduce live-vs-sim`); "
    "without it the live experiments fail and their findings are \"not run\", with the reason.",
    f"Network: `scenarios/live-cubic.toml`'s: {FLOWS} servers and {FLOWS} clients, a 10 Mbps "
    "bottleneck with 10 ms of delay, 1 Gbps access links of 5 ms (40 ms round trip), reverse "
    "queue drop-tail of 50 packets, `tcp.profile = \"linux\"` (SACK, timestamps, initial window "
    "10, minimum RTO 200 ms, delayed ACKs).",
    f"Bulk: {FLOWS} unlimited downloads from the servers, starting uniformly in the first second; "
    f"`tcp.congestion_control` ∈ {{{', '.join(CCS)}}} (on the live side the kernel's own "
    "module of that name) × the forward queue: drop-tail of 100 packets; RED (min_th 10, max_th "
    "30, max_p 0.1, limit 200 packets, aqmlab's RED defaults otherwise); CoDel, FQ-CoDel and PIE "
    "with their defaults and a limit of 1000 packets (FQ-CoDel marks ECN, but the senders are "
    "not ECN-capable, so it drops).",
    f"Web: {WEB_USERS} `web-mah` users (Mah's model: pages, objects, think times) over the same "
    "network, through drop-tail (100 packets) and RED (as above), CUBIC.",
    "Each scenario and seed runs on both sides: simulated by aqmlab, and live (docs/live.md): "
    "the kernel's TCP in two network namespaces, the flows and web users' scripts the same as "
    "the simulator draws for that seed, through aqmlab's own bottleneck code. Live runs take "
    "real time and run one at a time, after the simulated ones.",
    "A stored live run is reused only on the same kernel release and engine build (its build id "
    "names both).",
    "Differences are (simulated − live) / live; the criteria: goodput within ±5%, drop rate and "
    "mean queueing delay within ±20% (the agreement docs/live.md reported for CUBIC on one "
    "seed), response-time median and 90th percentile within ±10% (aqmlab's own).",
)


def study() -> Study:
    """Return the study."""
    return Study(
        name=NAME,
        title=TITLE,
        scales=SCALES,
        experiments=EXPERIMENTS,
        findings=FINDINGS,
        tables=(BULK_TABLE, WEB_TABLE),
        figures=FIGURES,
        testbed=TESTBED,
        sections=SECTIONS,
        heading="Comparison study (not a reproduction: no paper to match)",
    )


STUDY = study()


def _check_scales(scales: Mapping[str, Scale]) -> None:
    for scale in scales.values():
        unknown = [q for q in scale["queues"] if q not in QUEUES]
        unknown += [cc for cc in scale["ccs"] if cc not in CCS]
        if unknown:
            raise ValueError(f"{NAME}: scale {scale.name} names unknown levels {unknown}")


_check_scales(SCALES)
__doc__ = with_testbed(__doc__, TESTBED)
