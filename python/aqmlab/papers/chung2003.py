"""Chung & Claypool, "Analysis of RED-Family AQM over a Wide Range of TCP Loads" (2003), reproduced.

``aqmlab reproduce chung2003 --scale quick|full`` runs every experiment behind findings CC1–CC14 on
the paper's network (its Fig. 3): bulk FTP over TCP NewReno (ns-2 of 2003, ``ns2-2003``: 1000 B
segments + 40 B headers, no delayed ACKs, 10 ms ticks), sources behind router R1, one bottleneck
R1 → R2, sinks behind R2.

The experiments (each a sweep; the queue-law ones through :mod:`aqmlab.queue_laws`):

- ``law`` (CC1–CC4; Figs. 4–7): the bottleneck replaced by the uniform dropper of
  :mod:`aqmlab.queue_laws` (unlimited queue), p on a grid, for 100/200/300 flows (20 Mbps, 80 ms),
  5/10/15/20 Mbps (200 flows, 80 ms) and round-trip link delays 40/80/120/160 ms (200 flows,
  20 Mbps); average queue and average congestion window per run.
- ``limited`` (CC5; Figs. 8–9): windows limited to 12 packets (700 flows) and 6 packets (1300
  flows), 20 Mbps, 80 ms (§2: "the same as … 300 TCP connections"), beside 300 unlimited flows.
- ``notification`` (CC6; Figs. 10–11): ECN marks instead of drops, as the paper does it: the
  uniform *marker* (the uniform dropper with ``ecn = true``: a chosen ECN-capable packet is marked
  CE instead of dropped) with ECN-capable flows, 100/200/300 flows, at the law's drop rates. The
  drop law beside it is the ``law`` experiment's runs of the same configurations.
- ``law_high`` (CC10, CC12; Figs. 11–12): the drop and the mark law of 100/200/300 flows at
  rates above the ``law`` grid (scale setting ``high_rates``), where the laws of many flows come
  down to RED's thresholds and to §3's example target of 500 packets.
- ``incremental`` (CC7–CC11, CC13–CC14; Figs. 13–20): 20 Mbps, 80 ms, 1 KB packets, physical
  queue 500, RED 100/300/0.1; 50 flows, 50 more every 50 s up to 300; drop-tail, RED, gentle
  RED, Adaptive RED (max_p in [0.001, 0.5], §4), each with and without ECN. Loss and mark rate
  per step are the step's sums of the ``queue`` table's per-interval ``drops_pkts``,
  ``marks_pkts`` and ``arrivals_pkts``.

Findings CC1–CC9 are the project's list (``findings.toml``); CC10–CC14 (:data:`EXTRA_CLAIMS`) judge
what the paper says of the experiments beyond it: the queue law's prediction of each RED
configuration's stable range (Fig. 12), RED-ECN's and gentle RED-ECN's stability (Figs. 16–17),
the gap between the mark and the drop rate that hold one queue (§3), gentle RED's loss when
highly overloaded (Fig. 20), and the oscillation of RED's average measured (period, amplitude)
against Adaptive RED's (Figs. 13, 15).

Method changes that are not criterion changes: a first version, written before the engine had a
uniform marker or per-interval drop counts, traced CC6's two laws by the operating points of a
fixed-slope RED (dropping or marking) and measured CC8/CC9's loss per step by re-running every
incremental run cut at each step's end and differencing cumulative counts. Both were stand-ins
for the paper's method; the experiments now use the paper's method (uniform dropper against
uniform marker; the loss counted in each step), and CC6, CC8 and CC9 judge the same quantities
with the same thresholds.

The testbed and every choice the paper leaves open (``*ours*``: fields of :class:`Choices`,
overridable with :func:`study`, ``chung2003.study(rtt_spread=0.0)``) are :func:`testbed_items`,
listed at the end of this text as the report lists them. The queue-law runs are long because a
queue of thousands of packets takes some 75 s to settle at p = 0.01.

Criteria are the constants and texts below, fixed before the results they judge; a criterion
changed after first results keeps the first one beside it
(``revised_from``, judged again where its judge still runs) and says why.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.calibrate import fit_line
from aqmlab.plot import Curve, Panel, mean_curves
from aqmlab.queue_laws import (
    Prediction,
    QueueLaw,
    RedConfig,
    average_window,
    law_runs,
    predict_red,
    traced,
    with_dropper,
)
from aqmlab.scenario import Scenario
from aqmlab.stats import Estimate, line_slope, mean_ci, paired_difference
from aqmlab.study.design import Factor, Level, factorial
from aqmlab.study.model import (
    Check,
    Column,
    Criterion,
    Data,
    Experiment,
    FigureSpec,
    Revision,
    Scale,
    Section,
    Study,
    TableSpec,
    listed_findings,
    seedwise_judge,
)
from aqmlab.study.report import fmt, markdown_table, with_testbed
from aqmlab.sweeps import Sweep, seconds

NAME = "chung2003"
TITLE = (
    'Chung & Claypool, "Analysis of RED-Family AQM over a Wide Range of TCP Loads" (2003)'
)
MSS_B = 1000
"""1 KB packets (§4), ns-2's ``packetSize_`` 1000 with 40 B headers (``ns2-2003``)."""
WIRE_B = MSS_B + 40
"""A data packet on the bottleneck: the queue law's C in packets per second is rate / (8·1040)."""


@dataclasses.dataclass(frozen=True)
class Choices:
    """Everything the paper sets or leaves open, with the value we use (see the docstring)."""

    rate_mbps: float = 20.0
    """§3, §4: the congested link."""
    rtld_ms: float = 80.0
    """§3, §4: the round-trip link delay."""
    flows: tuple[int, ...] = (100, 200, 300)
    """Fig. 4."""
    rates_mbps: tuple[float, ...] = (5.0, 10.0, 15.0, 20.0)
    """Fig. 5."""
    rtlds_ms: tuple[float, ...] = (40.0, 80.0, 120.0, 160.0)
    """Fig. 6."""
    family_flows: int = 200
    """*ours*: flows of the bandwidth and delay families."""
    limited: tuple[tuple[int, int], ...] = ((12, 700), (6, 1300))
    """§2: (window limit in packets, flows)."""
    limited_reference_flows: int = 300
    """§2: the unlimited run the limited ones match."""
    rtt_spread: float = 0.5
    """*ours*: per-flow round-trip link delays uniform on [(1 − s)·R, (1 + s)·R]."""
    start_within: str = "1s"
    """*ours*: flows start uniformly within this time of their step."""
    traced_flows: int = 30
    """*ours*: connections whose window is traced (the rest are identical, untraced)."""
    access_rate: str = "1Gbps"
    physical_queue: int = 500
    """§4: the physical queue of the incremental runs."""
    red: tuple[float, float, float] = (100.0, 300.0, 0.1)
    """§4: min_th, max_th, max_p."""
    ared_top: float = 0.5
    """§1, §4: Adaptive RED's upper limit of max_p (the default)."""
    ared_bottom: float = 0.001
    """§1: Adaptive RED's lower limit of max_p ("0.001 by default")."""
    step_flows: int = 50
    """§4: 50 flows to start, 50 more every step."""
    steps: int = 6
    """*ours*: up to 300 flows (the paper's figures speak of 250+ flows)."""


# --- criteria, fixed before any result ------------------------------------------------------------
R2_MIN = 0.95
"""CC1–CC3: a least-squares line through the family's averages at one p explains ≥ 95%."""
QUEUE_FLOOR = 1.0
"""CC1–CC3: the paper fits only where every average of the family is above 0 (here ≥ 1 packet)."""
LINEAR_SHARE = 1.0
"""CC1–CC3: the line must fit at every such drop rate."""
SLOPE_TOL = 0.15
"""CC2, CC3: a fitted slope agrees with the queue law's when its 95% interval holds the law's, or
it is within 15% of it (the ns-2 cross-check's tolerance on a mean queue, docs/ns2-referee.md)."""
CV_MAX = 0.10
"""CC4: at each p, the avg_cwnd of all configurations has sd / mean ≤ 0.10."""
FLATTER_RATIO = 1.0
"""CC5: window ratio avg_cwnd(p_lo)/avg_cwnd(p_hi) strictly ordered: 6 < 12 < unlimited."""
TWICE = (1.5, 3.0)
"""CC5: the 6-packet law needs 1.5–3 × the 12-packet law's drop rate to hold 3000 packets."""
TARGET_QUEUE = 3000.0
"""CC5: §2's example queue."""
CWND_SAME = 0.15
"""CC6: mark points' avg_cwnd within 15% of the drop law's at the same notification rate."""
STEADY_SKIP_S = 10.0
"""CC7–CC9: the first 10 s of each step (after its flows start) are not judged."""
UNSTABLE_SHARE = 0.05
"""CC7 as first judged: a step is unstable if > 5% of its 100 ms intervals have the average in
the forced region (≥ max_th; ≥ 2·max_th when gentle) or the instantaneous queue at the physical
limit."""
FORCED_SHARE = 0.05
"""CC7: a step is unstable if more than 5% of its steady part's drops were forced — RED's
average in its forced region, or the queue at its physical limit: drops RED did not choose
(the engine's ``forced_drops_pkts``)."""
UNSTABLE = {"forced_share": FORCED_SHARE, "unstable_share": UNSTABLE_SHARE}
"""The two tests of a step's instability: the column of :func:`step_rows` and its limit."""
AROUND = (0.8, 1.2)
"""CC7: 'oscillates around max_th': the step's mean average queue within 0.8–1.2·max_th."""
FULL_UTIL = 0.98
"""CC8: link utilization ≥ 98% in every step."""
NEAR_ZERO = 0.001
"""CC9: loss ≤ 0.1% counts as near zero."""
ABOUT_200 = (150, 250)
"""CC10: §4's "up to about 200 flows": RED's predicted last stable load within a step of 200."""
PREDICT_TOL = 50
"""CC10: a predicted last stable load agrees with the measured one within one step (50 flows):
the paper's own agreement, the law's "about 200" against RED measured stable to 150, is a step."""
RED_ECN_STABLE = (50, 150)
"""CC11: RED-ECN "becomes unstable at a load of 150 flows": its last stable load 100, within a
step either way as CC7 allows RED's."""
GENTLE_ECN_STABLE = 200
"""CC11: gentle RED-ECN "gets the benefit of the gentle behavior for 200 flows": its last stable
load is at least 200."""
MARK_TARGET = 500.0
"""CC12: §3's example target, the average queue both rates hold (packets, Fig. 11)."""
OVERLOADED = (250, 300)
"""CC13: §4's "highly overloaded (250+ flows)": the steps where gentle RED must lose less."""
PERIODIC_ACF = 0.3
"""A measure, not a criterion (*ours*): the autocorrelation a step's average must reach at a lag
for it to count as the period of an oscillation (:func:`oscillation`). White noise of 400 points
reaches 0.19 at most by chance, smooth noise (AR(1), φ = 0.95, detrended) 0.32 in 5% of series."""
OSC_FROM = 200
"""CC14: RED "at 200 flows ... hit the maximum threshold and becomes increasingly unstable" (§4):
its oscillation and Adaptive RED's steadiness are judged at the steps from this load."""


def make_scales() -> dict[str, Scale]:
    """Quick (minutes), full (the paper's durations), smoke (tests)."""
    quick = dict(law_duration="150s", law_warmup="75s", step="50s",
                 drop_rates=(0.01, 0.02, 0.05, 0.1), high_rates=(0.2, 0.5),
                 limited_rates=(0.01, 0.03, 0.07, 0.15, 0.3))  # fmt: skip
    full = dict(law_duration="400s", law_warmup="200s", step="50s",
                drop_rates=(0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1),
                high_rates=(0.15, 0.2, 0.3, 0.5),
                limited_rates=(0.005, 0.01, 0.02, 0.04, 0.07, 0.1, 0.15, 0.2, 0.3))  # fmt: skip
    smoke = dict(law_duration="4s", law_warmup="2s", step="2s", drop_rates=(0.02, 0.1),
                 high_rates=(0.3,), limited_rates=(0.05, 0.2))  # fmt: skip
    return {
        "quick": Scale("quick", seeds=2, note="150 s queue-law runs, 50 s steps, 2 seeds",
                       settings=quick),  # fmt: skip
        "full": Scale("full", seeds=3, note="400 s queue-law runs, 50 s steps, 3 seeds "
                      "(the paper shows one run per curve)", settings=full),  # fmt: skip
        "smoke": Scale("smoke", seeds=1, note="smoke test: a few simulated seconds",
                       reproduction=False, settings=smoke),  # fmt: skip
    }


# --- the testbed ---------------------------------------------------------------------------------
def testbed(
    flows: int,
    rate_mbps: float,
    rtld_ms: float,
    *,
    duration: str,
    warmup: str = "0s",
    window: int | None = None,
    ecn: bool = False,
    choices: Choices = Choices(),
) -> Scenario:
    """Fig. 3: ``flows`` FTP/NewReno sources, one bottleneck; per-flow round-trip link delays.

    >>> s = testbed(100, 20, 80, duration="10s")
    >>> s["topology"]["bottleneck"], s["topology"]["pair_delay"]
    ({'rate': '20Mbps', 'delay': '20000us'}, {'dist': 'uniform', 'min': '0us', 'max': '40000us'})
    >>> [(g["name"], g["flows"]) for g in s["traffic"]]
    [('traced', 30), ('ftp', 70)]
    """
    c = choices
    spread = c.rtt_spread
    one_way_us = round((1 - spread) * rtld_ms * 1e3 / 2)
    pair_us = round(spread * rtld_ms * 1e3)
    traced_n = min(c.traced_flows, flows)
    tcp: dict[str, Any] = {"profile": "ns2-2003", "variant": "newreno",
                           "rwnd": f"{window * MSS_B}B" if window else "1000MB"}  # fmt: skip
    if ecn:
        tcp["ecn"] = True
    start = {"dist": "uniform", "min": "0s", "max": c.start_within}
    groups: list[dict[str, Any]] = [
        {"name": "traced", "kind": "ftp", "flows": traced_n, "start": start, "trace": True}
    ]
    if flows > traced_n:
        groups.append({"name": "ftp", "kind": "ftp", "flows": flows - traced_n,
                       "server": traced_n, "start": start})  # fmt: skip
    return {
        "name": f"chung2003-n{flows}-b{rate_mbps:g}-r{rtld_ms:g}",
        "duration": duration,
        "warmup": warmup,
        "topology": {
            "servers": flows,
            "clients": 1,
            "bottleneck": {"rate": f"{rate_mbps:g}Mbps", "delay": f"{one_way_us}us"},
            "access": {"rate": c.access_rate, "queue": "10000000p"},
            "pair_delay": {"dist": "uniform", "min": "0us", "max": f"{pair_us}us"},
        },
        "queue": {"kind": "droptail", "limit": "10000000p"},
        "reverse_queue": {"kind": "droptail", "limit": "10000000p"},
        "tcp": tcp,
        "traffic": groups,
        "measure": {"queue_interval": "1s", "link_interval": "1s"},
    }


def _choices(scale: Scale) -> Choices:
    chosen: Choices = scale.settings.get("choices", Choices())
    return chosen


def config_label(flows: int, rate: float, rtld: float) -> str:
    """Return a configuration's label: ``n200-b20-r80``."""
    return f"n{flows}-b{rate:g}-r{rtld:g}"


def parse_config(label: str) -> tuple[int, float, float]:
    """Read ``n200-b20-r80`` back.

    >>> parse_config("n200-b20-r80")
    (200, 20.0, 80.0)
    """
    n, b, r = label.split("-")
    return int(n[1:]), float(b[1:]), float(r[1:])


def law_configs(c: Choices) -> list[tuple[int, float, float]]:
    """Return the distinct (flows, Mbps, rtld) of Figs. 4–6, in order."""
    out: list[tuple[int, float, float]] = []
    for cfg in ([(n, c.rate_mbps, c.rtld_ms) for n in c.flows]
                + [(c.family_flows, b, c.rtld_ms) for b in c.rates_mbps]
                + [(c.family_flows, c.rate_mbps, r) for r in c.rtlds_ms]):  # fmt: skip
        if cfg not in out:
            out.append(cfg)
    return out


def families(c: Choices) -> dict[str, tuple[str, list[tuple[int, float, float]]]]:
    """Return family name → (the varied quantity, its configurations)."""
    return {
        "flows": ("n", [(n, c.rate_mbps, c.rtld_ms) for n in c.flows]),
        "bandwidth": ("b", [(c.family_flows, b, c.rtld_ms) for b in c.rates_mbps]),
        "delay": ("r", [(c.family_flows, c.rate_mbps, r) for r in c.rtlds_ms]),
    }


def _config_factor(configs: Sequence[tuple[int, float, float]], scale: Scale,
                   window: Callable[[int], int | None] = lambda n: None,
                   ecn: bool = False, keys: Sequence[str] = ("topology", "tcp", "traffic"),
                   ) -> Factor:  # fmt: skip
    """Set each configuration's ``keys`` (without ``tcp``: the base's, a later factor's fields)."""
    c = _choices(scale)
    levels = []
    for n, b, r in configs:
        s = testbed(n, b, r, duration=scale["law_duration"], warmup=scale["law_warmup"],
                    window=window(n), ecn=ecn, choices=c)  # fmt: skip
        levels.append(Level(config_label(n, b, r), {key: s[key] for key in keys}))
    return Factor("config", tuple(levels))


def _dropper_factor(rates: Sequence[float], ecn: bool = False) -> Factor:
    """Set the uniform dropper of :mod:`aqmlab.queue_laws` at each p (an unlimited queue).

    ``ecn=True``: the uniform marker (chosen ECN-capable packets are marked, not dropped).
    """
    return Factor("p", tuple(Level(repr(p), {"queue": with_dropper({}, p, ecn=ecn)["queue"]})
                             for p in rates))  # fmt: skip


def _law_base(scale: Scale) -> Scenario:
    c = _choices(scale)
    return traced(testbed(c.family_flows, c.rate_mbps, c.rtld_ms,
                          duration=scale["law_duration"], warmup=scale["law_warmup"],
                          choices=c))  # fmt: skip


def build_law(scale: Scale, data: Data) -> Sweep:
    """CC1–CC4: every configuration of Figs. 4–6 × the drop rates."""
    c = _choices(scale)
    return factorial(_law_base(scale), (_config_factor(law_configs(c), scale),
                                         _dropper_factor(scale["drop_rates"])), name="law")


def limited_configs(c: Choices) -> list[tuple[str, int, int | None]]:
    """Return (label, flows, window limit) of Figs. 8–9."""
    out: list[tuple[str, int, int | None]] = [
        (f"cwnd{w}", n, w) for w, n in c.limited
    ]
    out.append(("unlimited", c.limited_reference_flows, None))
    return out


def build_limited(scale: Scale, data: Data) -> Sweep:
    """CC5: window limits 12 (700 flows) and 6 (1300 flows), and 300 unlimited flows."""
    c = _choices(scale)
    levels = []
    for label, n, w in limited_configs(c):
        s = testbed(n, c.rate_mbps, c.rtld_ms, duration=scale["law_duration"],
                    warmup=scale["law_warmup"], window=w, choices=c)  # fmt: skip
        levels.append(Level(label, {"topology": s["topology"], "tcp": s["tcp"],
                                    "traffic": s["traffic"]}))  # fmt: skip
    return factorial(_law_base(scale), (Factor("limit", tuple(levels)),
                                         _dropper_factor(scale["limited_rates"])),
                     name="limited")  # fmt: skip


def build_notification(scale: Scale, data: Data) -> Sweep:
    """CC6: the uniform marker with ECN-capable flows, 100/200/300 flows, at the law's rates.

    The drop law it is compared with is the ``law`` experiment's runs of the same configurations.
    """
    c = _choices(scale)
    configs = [(n, c.rate_mbps, c.rtld_ms) for n in c.flows]
    base = _law_base(scale)
    base["tcp"]["ecn"] = True
    return factorial(base, (_config_factor(configs, scale, ecn=True),
                            _dropper_factor(scale["drop_rates"], ecn=True)),
                     name="notification")  # fmt: skip


def build_law_high(scale: Scale, data: Data) -> Sweep:
    """CC10, CC12: the drop and the mark law of 100/200/300 flows at the high rates.

    The rates above the ``law`` grid (``high_rates``), where the laws of many flows come down to
    RED's thresholds and to §3's target; ``how`` is ``drop`` (the uniform dropper) or ``mark``
    (the uniform marker, every flow ECN-capable).
    """
    c = _choices(scale)
    configs = [(n, c.rate_mbps, c.rtld_ms) for n in c.flows]
    rates = scale["high_rates"]
    base = with_dropper(_law_base(scale), rates[0])
    # Fields only, no whole tables: a sweep sets a level's table itself, not a copy of it.
    p = Factor.over("p", "queue.p", rates, labels=[repr(r) for r in rates])
    how = Factor("how", tuple(Level(label, {"queue.ecn": ecn, "tcp.ecn": ecn})
                              for label, ecn in (("drop", False), ("mark", True))))  # fmt: skip
    return factorial(base, (_config_factor(configs, scale, keys=("topology", "traffic")), p,
                            how), name="law_high")  # fmt: skip


AQMS = ("droptail", "red", "gentle", "ared", "red-ecn", "gentle-ecn", "ared-ecn")
"""§4: drop-tail and RED, gentle RED, Adaptive RED, each without and with ECN."""
TITLES = {"droptail": "Drop-tail", "red": "RED (Fig. 13)", "gentle": "Gentle RED (Fig. 14)",
          "ared": "Adaptive RED (Fig. 15)", "red-ecn": "RED-ECN (Fig. 16)",
          "gentle-ecn": "Gentle RED-ECN (Fig. 17)", "ared-ecn": "Adaptive RED-ECN (Fig. 18)"}


def aqm_queue(aqm: str, c: Choices) -> dict[str, Any]:
    """Return the bottleneck queue of one AQM of §4.

    >>> aqm_queue("ared-ecn", Choices())["adaptive"]
    {'top': 0.5, 'bottom': 0.001}
    """
    if aqm == "droptail":
        return {"kind": "droptail", "limit": f"{c.physical_queue}p"}
    lo, hi, max_p = c.red
    base = aqm.removesuffix("-ecn")
    queue: dict[str, Any] = {"kind": "red", "profile": "ns2-2003",
                             "limit": f"{c.physical_queue}p", "min_th": lo, "max_th": hi,
                             "max_p": max_p, "mean_pkt_size": f"{MSS_B}B",
                             "gentle": base != "red", "ecn": aqm.endswith("-ecn")}  # fmt: skip
    if base == "ared":
        queue["adaptive"] = {"top": c.ared_top, "bottom": c.ared_bottom}
    return queue


def incremental_base(scale: Scale) -> Scenario:
    """§4: 50 flows, 50 more every step; 20 Mbps, 80 ms; 1 KB packets."""
    c = _choices(scale)
    step = seconds(scale["step"])
    total = c.step_flows * c.steps
    s = testbed(total, c.rate_mbps, c.rtld_ms, duration=f"{step * c.steps:g}s", choices=c)
    groups = []
    for k in range(c.steps):
        groups.append({"name": f"step{k}", "kind": "ftp", "flows": c.step_flows,
                       "server": k * c.step_flows,
                       "start": {"dist": "uniform", "min": f"{k * step:g}s",
                                 "max": f"{k * step + seconds(c.start_within):g}s"}})  # fmt: skip
    s["traffic"] = groups
    s["measure"] = {"queue_interval": "100ms", "link_interval": "1s"}
    return s


def _aqm_factor(c: Choices) -> Factor:
    return Factor("aqm", tuple(Level(a, {"queue": aqm_queue(a, c), "tcp.ecn": a.endswith("-ecn")})
                               for a in AQMS))  # fmt: skip


def build_incremental(scale: Scale, data: Data) -> Sweep:
    """CC7–CC9: the seven queues under incremental load."""
    return factorial(incremental_base(scale), (_aqm_factor(_choices(scale)),), name="incremental")


EXPERIMENTS = (
    Experiment("law", "Queue law: flows, bandwidth, delay × uniform drop rate (Figs. 4–7)",
               build_law),
    Experiment("limited", "Window limits 12 and 6 (Figs. 8–9)", build_limited),
    Experiment("notification", "ECN marks instead of drops: the uniform marker (Figs. 10–11)",
               build_notification),
    Experiment("law_high", "Drop and mark laws at high rates (Figs. 11–12)", build_law_high),
    Experiment("incremental", "RED family under incremental load (Figs. 13–20)",
               build_incremental),
)  # fmt: skip


# --- what the judges read ----------------------------------------------------------------------
def law_frame(data: Data, experiment: str, factor: str) -> pd.DataFrame:
    """Return one row per run of a law experiment.

    Columns: the factor, p, seed, drop_rate, avg_queue, avg_cwnd. Computed once per reproduction
    (the window trace is the study's biggest table).
    """

    def compute() -> pd.DataFrame:
        runs = law_runs(data.summary(experiment))
        runs = runs[[factor, "p", "seed", "drop_rate", "avg_queue"]]
        return runs.merge(window_frame(data, experiment, factor), on=[factor, "p", "seed"],
                          how="left")  # fmt: skip

    return data.frame(f"law_frame:{experiment}:{factor}", compute)


def window_frame(data: Data, experiment: str, factor: str) -> pd.DataFrame:
    """Return the average effective window per run (factor, p, seed → avg_cwnd)."""
    trace = data.table(experiment, "tcp_trace", ["t_s", "conn", "cwnd_bytes"], cache=False)
    scale = data.scale
    start, end = seconds(scale["law_warmup"]), seconds(scale["law_duration"])
    out = []
    by = [factor, "p", "seed"]
    for label, frame in trace.groupby(factor, observed=True):
        limit = _window_of(str(label), _choices(scale))
        out.append(average_window(frame, start_s=start, end_s=end, mss_bytes=MSS_B,
                                  rwnd_bytes=limit * MSS_B if limit else None, by=by))  # fmt: skip
    frame = pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=[*by, "avg_cwnd"])
    return frame.assign(p=frame["p"].astype(float), **{factor: frame[factor].astype(str)})


def _window_of(label: str, c: Choices) -> int | None:
    for w, _ in c.limited:
        if label == f"cwnd{w}":
            return w
    return None


def law_rows(data: Data) -> pd.DataFrame:
    """Return the ``law`` runs with the configuration split into n, b (Mbps), r (ms)."""
    f = law_frame(data, "law", "config")
    parts = f["config"].map(parse_config)
    return f.assign(n=[x[0] for x in parts], b=[x[1] for x in parts], r=[x[2] for x in parts])


# --- judges --------------------------------------------------------------------------------------


def linearity_check(varied: str, sign: int) -> Check:
    """Return CC1–CC3's check: the family's average queue is a line in ``varied`` at each p.

    At each p where every average of the family is ≥ QUEUE_FLOOR, a line of the average queue
    against ``varied`` has the expected sign and R² ≥ R2_MIN.
    """

    def check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
        means = frame.groupby(["p", varied])["avg_queue"].mean().reset_index()
        fits, judged, good = {}, 0, 0
        for p, g in means.groupby("p"):
            if len(g) < 2 or g["avg_queue"].min() < QUEUE_FLOOR:
                continue
            fit = fit_line(g[varied].tolist(), g["avg_queue"].tolist())
            ok = fit.slope * sign > 0 and fit.r2 >= R2_MIN
            judged += 1
            good += ok
            fits[f"{p:g}"] = {"slope": fit.slope, "r2": fit.r2}
        holds = judged > 0 and good >= LINEAR_SHARE * judged
        text = "; ".join(f"p={p}: slope {v['slope']:.3g}, R² {v['r2']:.3f}"
                         for p, v in fits.items())  # fmt: skip
        return holds, f"{good}/{judged} drop rates linear — {text or 'no drop rate judged'}", {
            "fits": fits, "judged": judged, "linear": good}

    return check


def law_slope(varied: str, frame: pd.DataFrame) -> float:
    """Return the queue law's slope of the average queue against bandwidth or delay.

    With a window that depends on p alone (CC4), a saturated link holds n·W(p) packets in
    flight and in the queue, C·R of them on the wire: q = n·W(p) − C·R (Eq. 1; C in packets per
    second). So ∂q/∂B = −R / (8·s) per Mbps and ∂q/∂R = −C per ms, s a packet on the wire; the
    other factor is the family's fixed one (``r`` in ms, ``b`` in Mbps).

    >>> f = pd.DataFrame({"b": [20.0, 20.0], "r": [40.0, 80.0]})
    >>> round(law_slope("r", f), 3)  # 20 Mbps of 1040-B packets: 2.404 packets per ms
    -2.404
    """
    if varied == "b":
        return -float(frame["r"].iloc[0]) / 1e3 * 1e6 / (8 * WIRE_B)
    if varied == "r":
        return -float(frame["b"].iloc[0]) * 1e6 / (8 * WIRE_B) / 1e3
    raise ValueError(f"law_slope: the law's slope is derived for b or r, not {varied!r}")


def law_slope_check(varied: str) -> Check:
    """Return CC2's and CC3's check: the queue's slope against ``varied`` is the law's.

    At each p where every average of the family is ≥ QUEUE_FLOOR, a line of the average queue
    (every run, seeds pooled) against ``varied`` has a slope whose 95% interval holds
    :func:`law_slope`'s, or which is within SLOPE_TOL of it; at LINEAR_SHARE of those p.
    """

    def check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
        fits, judged, good = {}, 0, 0
        for p, g in frame.groupby("p"):
            means = g.groupby(varied)["avg_queue"].mean()
            if len(means) < 2 or means.min() < QUEUE_FLOOR:
                continue
            slope, law = line_slope(g[varied], g["avg_queue"]), law_slope(varied, g)
            ok = slope.covers(law) or abs(slope.mean - law) <= SLOPE_TOL * abs(law)
            judged += 1
            good += ok
            fits[f"{p:g}"] = {"slope": slope.mean, "lo": slope.lo, "hi": slope.hi, "law": law,
                              "agrees": ok}  # fmt: skip
        holds = judged > 0 and good >= LINEAR_SHARE * judged
        text = "; ".join(f"p={p}: slope {v['slope']:.3g} [{v['lo']:.3g}, {v['hi']:.3g}] vs the "
                         f"law's {v['law']:.3g}" for p, v in fits.items())  # fmt: skip
        return holds, (f"{good}/{judged} drop rates agree with the queue law — "
                       f"{text or 'no drop rate judged'}"), {"fits": fits, "judged": judged,
                                                              "agree": good}  # fmt: skip

    return check


def family_rows(family: str) -> Callable[[Data], pd.DataFrame]:
    """Return a reader of the ``law`` runs of one family of configurations (Figs. 4–6)."""

    def rows(data: Data) -> pd.DataFrame:
        f = law_rows(data)
        wanted = {config_label(*cfg) for cfg in families(_choices(data.scale))[family][1]}
        return f[f["config"].isin(wanted)]

    return rows


def overlap_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC4: the configurations' avg_cwnd overlap and fall with p.

    At every p, the configurations' mean avg_cwnd have sd/mean ≤ CV_MAX; and each falls as p
    grows.
    """
    means = frame.groupby(["p", "config"])["avg_cwnd"].mean().reset_index()
    cvs = {}
    for p, g in means.groupby("p"):
        cvs[f"{p:g}"] = float(g["avg_cwnd"].std(ddof=0) / g["avg_cwnd"].mean())
    falls = all(bool(np.all(np.diff(g.sort_values("p")["avg_cwnd"].to_numpy()) < 0))
                for _, g in means.groupby("config"))  # fmt: skip
    worst = max(cvs.values()) if cvs else math.nan
    ok = bool(cvs) and worst <= CV_MAX and falls
    text = ", ".join(f"p={p}: {v:.3f}" for p, v in cvs.items())
    return ok, (f"sd/mean of avg_cwnd across {means['config'].nunique()} configurations: {text}; "
                f"largest {worst:.3f} (≤ {CV_MAX}); falls with p in every configuration: "
                f"{falls}"), {"cv": cvs, "max_cv": worst, "falls": falls}  # fmt: skip


def limited_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC5: flatter avg_cwnd(p) with smaller window limits.

    The ratio avg_cwnd(lowest p)/avg_cwnd(highest p) is ordered 6 < 12 < unlimited, and the
    6-packet law needs TWICE × the 12-packet law's drop rate to hold TARGET_QUEUE.
    """
    means = frame.groupby(["limit", "p"])[["avg_cwnd", "avg_queue", "drop_rate"]].mean()
    means = means.reset_index()
    ratio, rate = {}, {}
    for label, g in means.groupby("limit"):
        g = g.sort_values("p")
        ratio[label] = float(g["avg_cwnd"].iloc[0] / g["avg_cwnd"].iloc[-1])
        law = QueueLaw(g[["p", "drop_rate", "avg_queue"]])
        rate[label] = law.rate_for(TARGET_QUEUE)
    flat = ratio.get("cwnd6", math.nan) < ratio.get("cwnd12", math.nan) < ratio.get(
        "unlimited", math.nan)
    twice = rate.get("cwnd6", math.nan) / rate.get("cwnd12", math.nan)
    ok = bool(flat) and TWICE[0] <= twice <= TWICE[1]
    text = (", ".join(f"{k}: {v:.2f}" for k, v in ratio.items())
            + f"; drop rate for {TARGET_QUEUE:.0f} packets: "
            + ", ".join(f"{k}: {fmt(v, 4)}" for k, v in rate.items())
            + f"; ratio 6/12 = {fmt(twice, 2)} (want {TWICE[0]}–{TWICE[1]})")  # fmt: skip
    return ok, "avg_cwnd(p_min)/avg_cwnd(p_max) " + text, {
        "flatness": ratio, "rate_for_target": rate, "ratio_6_12": twice}


def notification_rows(data: Data) -> pd.DataFrame:
    """Return one row per run of the drop and the mark law of 100/200/300 flows.

    Columns: config, how (``drop``: the ``law`` runs; ``mark``: the ``notification`` runs), p,
    seed, rate ((drops + marks) / arrivals at the bottleneck), avg_queue, avg_cwnd.
    """
    c = _choices(data.scale)
    keys = ["config", "p", "seed"]
    wanted = {config_label(n, c.rate_mbps, c.rtld_ms) for n in c.flows}
    drops = law_frame(data, "law", "config")
    drops = drops.assign(config=drops["config"].astype(str))
    drops = drops[drops["config"].isin(wanted)].assign(how="drop", rate=drops["drop_rate"])
    rate = _law_summary(data, "notification")[[*keys, "rate"]]
    marks = law_frame(data, "notification", "config")
    marks = marks.assign(config=marks["config"].astype(str)).merge(rate, on=keys, how="left")
    cols = ["config", "how", "p", "seed", "rate", "avg_queue", "avg_cwnd"]
    return pd.concat([drops[cols], marks.assign(how="mark")[cols]], ignore_index=True)


def _law_summary(data: Data, experiment: str) -> pd.DataFrame:
    """Return config, p, seed, rate ((drops + marks) / arrivals), avg_queue of a law's runs."""
    s = data.runs(experiment)
    arrivals = s["forward.arrivals_pkts"].clip(lower=1)
    return pd.DataFrame({"config": s["config"], "p": s["p"],
                         "seed": s["seed"],
                         "rate": (s["forward.drops_pkts"] + s["forward.marks_pkts"]) / arrivals,
                         "avg_queue": s["forward.mean_queue_pkts"],
                         "how": s["how"] if "how" in s else None})  # fmt: skip


def law_points(data: Data) -> pd.DataFrame:
    """Return one row per run of the drop and the mark law of 100/200/300 flows (Figs. 11–12).

    Columns: n (flows), how (``drop``: the ``law`` runs; ``mark``: the ``notification`` runs;
    either from ``law_high``), p, seed, rate ((drops + marks) / arrivals), avg_queue; from the
    runs' summaries, of the experiments that ran.
    """
    c = _choices(data.scale)
    wanted = {config_label(n, c.rate_mbps, c.rtld_ms) for n in c.flows}
    parts = [_law_summary(data, name).assign(how=how) for name, how in
             (("law", "drop"), ("notification", "mark")) if data.has(name)]  # fmt: skip
    if data.has("law_high"):
        parts.append(_law_summary(data, "law_high"))
    f = pd.concat(parts, ignore_index=True)
    f = f[f["config"].isin(wanted)]
    return f.assign(n=[parse_config(x)[0] for x in f["config"]]).drop(columns="config")


def law_means(frame: pd.DataFrame) -> pd.DataFrame:
    """Return the means over seeds of :func:`law_points`' rows: one per (how, n, p)."""
    return frame.groupby(["how", "n", "p"])[["rate", "avg_queue"]].mean().reset_index()


def notification_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC6: marks act on the window as drops do, and the mark law falls more slowly.

    (a) The mark points' avg_cwnd are within CWND_SAME of the drop points' curve at the same rate
    (log-log interpolation, within the drop points' range); (b) for each flow count, the log-log
    slope of the average queue against the rate is shallower for marks than for drops. The
    evidence names the windows (packets) where the gap is largest, and the range of windows
    compared.
    """
    means = frame.groupby(["config", "how", "p"])[["rate", "avg_queue", "avg_cwnd"]].mean()
    means = means.reset_index()
    drops = means[means["how"] == "drop"].sort_values("rate")
    marks = means[means["how"] == "mark"]
    devs, where = [], []
    for _, m in marks.iterrows():
        x = np.log(drops["rate"].to_numpy())
        if len(x) and x.min() <= math.log(m["rate"]) <= x.max():
            ref = math.exp(float(np.interp(math.log(m["rate"]), x,
                                           np.log(drops["avg_cwnd"].to_numpy()))))
            devs.append(abs(m["avg_cwnd"] / ref - 1))
            where.append((float(m["rate"]), float(m["avg_cwnd"]), ref))
    same = bool(devs) and max(devs) <= CWND_SAME
    slower, slopes = True, {}
    for config, g in means.groupby("config"):
        d = g[(g["how"] == "drop") & (g["avg_queue"] > QUEUE_FLOOR)].sort_values("rate")
        k = g[(g["how"] == "mark") & (g["avg_queue"] > QUEUE_FLOOR)].sort_values("rate")
        if len(d) < 2 or len(k) < 2:
            slower = False
            continue
        sd = fit_line(np.log(d["rate"]).tolist(), np.log(d["avg_queue"]).tolist()).slope
        sk = fit_line(np.log(k["rate"]).tolist(), np.log(k["avg_queue"]).tolist()).slope
        slopes[str(config)] = {"drop": sd, "mark": sk}
        slower &= sk > sd
    ok = same and slower
    text = ", ".join(f"{c}: drop {v['drop']:.2f}, mark {v['mark']:.2f}" for c, v in slopes.items())
    worst = max(devs) if devs else math.nan
    at = ""
    if devs:
        rate, mark_w, drop_w = where[int(np.argmax(devs))]
        windows = [w for _, w, _ in where]
        at = (f" (at rate {rate:g}: marks {mark_w:.1f} packets vs drops {drop_w:.1f}; windows "
              f"compared {min(windows):.1f}–{max(windows):.1f} packets)")
    return ok, (f"avg_cwnd of marks vs drops at equal rate: largest deviation "
                f"{fmt(worst * 100, 1)}%{at} over {len(devs)} points (≤ "
                f"{CWND_SAME * 100:.0f}%); log-log slope of queue vs rate — {text}"), {
                    "max_cwnd_dev": worst, "slopes": slopes}  # fmt: skip


def step_rows(data: Data) -> pd.DataFrame:
    """Return one row per (aqm, seed, step) of the incremental runs.

    Columns: flows, mean and sd of RED's average, mean queue, the share of its drops that were
    forced (``forced_share``: 0 without drops), the share of unstable intervals (the first test),
    utilization, loss and mark rate, the average's oscillation (``osc_period_s``, ``osc_amp``:
    :func:`oscillation`) — these over the step's steady part, after its first STEADY_SKIP_S;
    ``loss_transient`` over that start-up, ``loss_whole`` over the whole step (as first judged).
    Loss is drops over arrivals, from the ``queue`` table's per-interval counts. Drop-tail's
    "average" is its queue.
    """
    return data.frame("step_rows", lambda: _step_rows(data))


def _step_rows(data: Data) -> pd.DataFrame:
    c = _choices(data.scale)
    step = seconds(data.scale["step"])
    q = data.table("incremental", "queue", ["t_s", "direction", "red_avg", "mean_pkts",
                                            "max_pkts", "arrivals_pkts", "drops_pkts",
                                            "forced_drops_pkts", "marks_pkts"])  # fmt: skip
    q = q[q["direction"] == "forward"]
    link = data.table("incremental", "link", ["t_s", "direction", "utilization"])
    link = link[link["direction"] == "forward"]
    lo, hi, _ = c.red
    rows = []
    for (aqm, seed), g in q.groupby(["aqm", "seed"], observed=True):
        aqm = str(aqm)
        g = g.sort_values("t_s")
        gentle = aqm.removesuffix("-ecn") != "red"
        forced = 2 * hi if gentle else hi
        lk = link[(link["aqm"] == aqm) & (link["seed"] == seed)]
        for k in range(c.steps):
            t0, t1 = k * step + min(STEADY_SKIP_S, step / 5), (k + 1) * step
            w = g[(g["t_s"] >= t0) & (g["t_s"] < t1)]
            avg = w["red_avg"] if aqm != "droptail" else w["mean_pkts"]
            bad = (w["max_pkts"] >= c.physical_queue - 1)
            if aqm != "droptail":
                bad = bad | (w["red_avg"] >= forced)
            u = lk[(lk["t_s"] >= t0) & (lk["t_s"] < t1)]["utilization"]
            start = g[(g["t_s"] >= k * step) & (g["t_s"] < t0)]
            drops = float(w["drops_pkts"].sum())
            times = w["t_s"].to_numpy(dtype=float)
            period, amp = oscillation(avg.to_numpy(dtype=float),
                                      float(np.median(np.diff(times))) if len(times) > 1 else 0.0)
            rows.append({"aqm": aqm, "seed": seed, "flows": (k + 1) * c.step_flows,
                         "avg_mean": float(avg.mean()), "avg_sd": float(avg.std(ddof=0)),
                         "queue_mean": float(w["mean_pkts"].mean()),
                         "forced_share": float(w["forced_drops_pkts"].sum()) / drops if drops
                         else 0.0,
                         "unstable_share": float(bad.mean()) if len(w) else math.nan,
                         "utilization": float(u.mean()) if len(u) else math.nan,
                         "loss": _rate(w, "drops_pkts"), "mark_rate": _rate(w, "marks_pkts"),
                         "osc_period_s": period, "osc_amp": amp,
                         "loss_transient": _rate(start, "drops_pkts"),
                         "loss_whole": _rate(pd.concat([start, w]), "drops_pkts")})  # fmt: skip
    return pd.DataFrame(rows)


def oscillation(values: np.ndarray, dt: float) -> tuple[float, float]:
    """Return the dominant period (s) and the amplitude of a series sampled every ``dt`` s.

    The series (NaN left out) is detrended first — its least-squares line removed, as a step's
    average drifts while its load settles — and the amplitude is the sd of what is left (a sine
    of amplitude A has sd A/√2). The period is the lag of the autocorrelation's highest point
    after it first falls below 0, up to half the series; NaN where it never falls below 0 or
    that point is below PERIODIC_ACF (no clear oscillation within the series), and both NaN with
    fewer than 3 values.

    >>> t = np.arange(0, 40, 0.1)
    >>> period, amp = oscillation(5 + 0.5 * t + 10 * np.sin(2 * np.pi * t / 4), 0.1)
    >>> round(period, 1), round(amp * math.sqrt(2), 1)
    (4.0, 10.0)
    >>> oscillation(np.full(30, 7.0), 0.1)
    (nan, 0.0)
    >>> math.isnan(oscillation(np.random.default_rng(1).normal(size=400), 0.1)[0])
    True
    """
    y = np.asarray(values, dtype=float)
    y = y[np.isfinite(y)]
    if y.size < 3:
        return math.nan, math.nan
    k = np.arange(y.size)
    y = y - np.polyval(np.polyfit(k, y, 1), k)
    amp = float(y.std())
    if amp <= 1e-12 * (1.0 + float(np.abs(y).max())):
        return math.nan, 0.0
    acf = np.correlate(y, y, "full")[y.size - 1: y.size + y.size // 2] / float(y @ y)
    negative = np.flatnonzero(acf < 0)
    if not negative.size:
        return math.nan, amp
    lag = int(negative[0] + np.argmax(acf[negative[0]:]))
    return (lag * dt if acf[lag] >= PERIODIC_ACF else math.nan), amp


def _rate(rows: pd.DataFrame, column: str) -> float:
    """Return ``column``'s packets over the arrivals of some queue-table rows (NaN if none)."""
    arrivals = float(rows["arrivals_pkts"].sum())
    return float(rows[column].sum()) / arrivals if arrivals else math.nan


def last_stable(frame: pd.DataFrame, aqm: str, test: str = "forced_share") -> int:
    """Return the largest load up to which every step of ``aqm`` is stable (0 if none is).

    ``test`` names the instability test (:data:`UNSTABLE`), a column of :func:`step_rows`.
    """
    g = frame[frame["aqm"] == aqm].groupby("flows")[test].mean().sort_index()
    cap = 0
    for flows, share in g.items():
        if share > UNSTABLE[test]:
            break
        cap = int(flows)
    return cap


def stability_check(
    frame: pd.DataFrame, *, test: str = "forced_share"
) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC7: RED, gentle RED and Adaptive RED stable as far as the paper says.

    RED stable to 100–200 flows (about 150) and, above, its average around max_th; gentle RED
    stable at least as far and to ≥ 200; Adaptive RED stable at every step. ``test``: the
    instability test (:data:`UNSTABLE`).
    """
    hi = Choices().red[1]
    caps = {a: last_stable(frame, a, test) for a in ("red", "gentle", "ared")}
    top = int(frame["flows"].max())
    red = frame[frame["aqm"] == "red"].groupby("flows")["avg_mean"].mean()
    above = red[red.index > caps["red"]]
    around = bool(len(above)) and bool(((above >= AROUND[0] * hi)
                                        & (above <= AROUND[1] * hi)).all())  # fmt: skip
    ok = (100 <= caps["red"] <= 200 and around and caps["gentle"] >= max(caps["red"], 200)
          and caps["ared"] == top)  # fmt: skip
    text = (f"last stable load: RED {caps['red']}, gentle {caps['gentle']}, Adaptive "
            f"{caps['ared']} (of {top}); RED's mean average by flows: "
            + ", ".join(f"{int(k)}: {v:.0f}" for k, v in red.items())
            + "; " + _shares(frame, ("red", "gentle", "ared"), test))  # fmt: skip
    return ok, text, {"last_stable": caps, "red_avg_above": {int(k): v for k, v in above.items()}}


def _shares(frame: pd.DataFrame, aqms: Sequence[str], test: str = "forced_share") -> str:
    """Return the instability test's share at each step of each queue, for the evidence."""
    forced = frame.groupby(["aqm", "flows"])[test].mean()
    what = "forced drops, share of drops" if test == "forced_share" else "unstable share"
    return f"{what} by flows: " + "; ".join(
        f"{a} " + ", ".join(f"{forced[a, f]:.0%}" for f in sorted(frame["flows"].unique()))
        for a in aqms)


def loss_gap_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC8: full utilization everywhere, and the dropping RED variants lose more.

    Utilization ≥ FULL_UTIL at every step for every queue. Each dropping RED variant's loss
    minus drop-tail's, paired by seed (steady parts): its mean over the steps has a 95% interval
    above 0, and at no step is the interval below 0 (a step whose interval spans 0 is a tie).
    One seed: the differences' signs.
    """
    util = float(frame["utilization"].min())
    numbers: dict[str, Any] = {"min_utilization": util}
    ok, parts = util >= FULL_UTIL, []
    for aqm in ("red", "gentle", "ared"):
        overall, steps = step_differences(frame, "loss", aqm, "droptail")
        below = [f for f, d in steps.items() if d.below(0)]
        ok &= overall.above(0) and not below
        numbers[aqm] = {"mean_gap": overall.mean, "lo": overall.lo, "below_at": below}
        parts.append(f"{aqm} − drop-tail {overall.mean * 100:+.3f} points [{overall.lo * 100:+.3f},"
                     f" {overall.hi * 100:+.3f}]" + (f", below at {below} flows" if below else ""))
    text = (f"lowest step utilization {util:.4f}; loss over the steps' steady parts, mean over "
            f"steps, paired by seed ({frame['seed'].nunique()} seeds): " + "; ".join(parts))
    return ok, text, numbers


def step_differences(
    frame: pd.DataFrame, value: str, a: str, b: str
) -> tuple[Estimate, dict[int, Estimate]]:
    """Return ``a`` − ``b`` in ``value`` (queues of :func:`step_rows`), paired by seed.

    First the mean over the steps (each seed's mean difference), then the difference at each
    step (flows → its :class:`~aqmlab.stats.Estimate`).

    >>> f = pd.DataFrame({"aqm": ["x", "y"] * 4, "seed": [1, 1, 1, 1, 2, 2, 2, 2],
    ...                   "flows": [50, 50, 100, 100] * 2, "v": [3.0, 1, 5, 2, 4, 1, 7, 3]})
    >>> overall, steps = step_differences(f, "v", "x", "y")
    >>> overall.mean, steps[100].mean, steps[100].n
    (3.0, 3.5, 2)
    """
    wide = frame.pivot_table(index=["seed", "flows"], columns="aqm", values=value)
    gap = (wide[a] - wide[b]).unstack("flows")  # seeds × steps
    zero = np.zeros(len(gap))
    overall = paired_difference(gap.mean(axis=1).to_numpy(), zero)
    return overall, {int(f): paired_difference(gap[f].to_numpy(), zero) for f in gap.columns}


def utilization_loss_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC8 as first judged: full utilization, the dropping RED variants lose more.

    Utilization ≥ FULL_UTIL at every step for every queue; each dropping RED variant loses more
    than drop-tail (mean over seeds, each whole step) in at least all but one step, and over all
    steps.
    """
    util = float(frame["utilization"].min())
    per = frame.groupby(["aqm", "flows"])["loss_whole"].mean().unstack("flows")
    dt = per.loc["droptail"]
    more, overall = {}, {}
    for aqm in ("red", "gentle", "ared"):
        more[aqm] = int((per.loc[aqm] > dt).sum())
        overall[aqm] = bool(per.loc[aqm].mean() > dt.mean())
    steps = per.shape[1]
    ok = util >= FULL_UTIL and all(more[a] >= steps - 1 and overall[a] for a in more)
    text = (f"lowest step utilization {util:.4f}; loss per step — "
            + "; ".join(f"{a}: " + ", ".join(f"{v * 100:.2f}%" for v in per.loc[a])
                        for a in ("droptail", "red", "gentle", "ared"))
            + "; steps above drop-tail: " + ", ".join(f"{a} {n}/{steps}" for a, n in more.items()))
    return ok, text, {"min_utilization": util, "steps_above_droptail": more}


def ecn_check(
    frame: pd.DataFrame, *, test: str = "forced_share", loss: str = "loss"
) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC9: the ECN variants lose (almost) nothing.

    Every ECN variant's loss ≤ NEAR_ZERO in each of its stable steps and below its dropping twin's
    overall; Adaptive RED-ECN ≤ NEAR_ZERO at every step, with a lower mean queue than drop-tail and
    a steadier average (mean sd over steps ≤ Adaptive RED's). ``test``: the instability test
    (:data:`UNSTABLE`); ``loss``: over each step's steady part, or (as first judged) the whole.
    """
    per = frame.groupby(["aqm", "flows"])[[loss, test, "avg_sd", "queue_mean"]]
    per = per.mean().reset_index().rename(columns={loss: "loss", test: "unstable"})
    numbers: dict[str, Any] = {}
    ok = True
    for aqm in ("red-ecn", "gentle-ecn", "ared-ecn"):
        g = per[per["aqm"] == aqm]
        stable = g[g["unstable"] <= UNSTABLE[test]]
        twin = per[per["aqm"] == aqm.removesuffix("-ecn")]["loss"].mean()
        near = bool((stable["loss"] <= NEAR_ZERO).all())
        below = bool(g["loss"].mean() < twin)
        numbers[aqm] = {"max_loss_stable": float(stable["loss"].max()) if len(stable) else None,
                        "mean_loss": float(g["loss"].mean()), "twin_mean_loss": float(twin)}
        ok &= near and below
    a = per[per["aqm"] == "ared-ecn"]
    b = per[per["aqm"] == "ared"]
    dt = per[per["aqm"] == "droptail"]
    whole = bool((a["loss"] <= NEAR_ZERO).all())
    lower = bool(a["queue_mean"].mean() < dt["queue_mean"].mean())
    steadier = bool(a["avg_sd"].mean() <= b["avg_sd"].mean())
    ok &= whole and lower and steadier
    text = ("; ".join(f"{k}: stable-step max loss "
                      f"{fmt((v['max_loss_stable'] or math.nan) * 100, 3)}%, mean "
                      f"{v['mean_loss'] * 100:.3f}% vs {v['twin_mean_loss'] * 100:.3f}% "
                      "without ECN" for k, v in numbers.items())
            + f"; Adaptive RED-ECN loss ≤ {NEAR_ZERO * 100:.1f}% at every step: {whole}; mean queue"
            f" {a['queue_mean'].mean():.0f} vs drop-tail {dt['queue_mean'].mean():.0f}; sd of the"
            f" average {a['avg_sd'].mean():.1f} vs Adaptive RED {b['avg_sd'].mean():.1f}")
    numbers.update({"ared_ecn_near_zero": whole, "lower_than_droptail": lower,
                    "steadier_than_ared": steadier})  # fmt: skip
    return ok, text, numbers


# --- findings beyond the project's list (CC10–CC14) ---------------------------------------------
PREDICTED = {"red": ("drop", False), "gentle": ("drop", True), "red-ecn": ("mark", False),
             "gentle-ecn": ("mark", True)}  # fmt: skip
"""Fig. 12: §4's queues with a fixed drop function, the law each meets (drops or ECN marks) and
whether it is gentle (Adaptive RED moves its function, so no law predicts it). With ECN, RED
marks only while its average is below max_th (``ns2-2003``, as ns-2's RED of 2003): above it
gentle RED-ECN drops, and meets the drop law there (:func:`predict_steps`)."""


def red_config(c: Choices, gentle: bool) -> RedConfig:
    """Return §4's RED as the queue law meets it: thresholds, max_p, physical queue.

    ns-2's count rule (:class:`~aqmlab.queue_laws.RedConfig`'s default), as the ``ns2-2003``
    profile's RED.

    >>> red_config(Choices(), gentle=True).top
    600.0
    """
    lo, hi, max_p = c.red
    return RedConfig(lo, hi, max_p, gentle=gentle, limit=float(c.physical_queue))


def step_loads(c: Choices) -> list[int]:
    """Return the incremental experiment's loads.

    >>> step_loads(Choices())
    [50, 100, 150, 200, 250, 300]
    """
    return [(k + 1) * c.step_flows for k in range(c.steps)]


def law_at(means: pd.DataFrame, flows: int) -> QueueLaw:
    """Return the queue law of ``flows`` flows from the laws measured at other numbers of flows.

    ``means``: one law's points (:func:`law_means`: n, p, rate, avg_queue). At each p the rate
    and the queue are taken linearly in the number of flows (CC1's law, Eq. 1) between the two
    measured laws around ``flows``, or beyond the nearest two, the queue clipped at 0; a measured
    number of flows is its own law.

    >>> m = pd.DataFrame({"n": [100, 200] * 2, "p": [0.01, 0.01, 0.1, 0.1],
    ...                   "rate": [0.01, 0.01, 0.1, 0.1], "avg_queue": [900.0, 2000, 50, 300]})
    >>> law_at(m, 150).points["avg_queue"].tolist(), law_at(m, 50).points["avg_queue"].tolist()
    ([1450.0, 175.0], [350.0, 0.0])
    """
    rows = []
    for p, g in means.groupby("p"):
        g = g.sort_values("n")
        ns = g["n"].to_numpy(dtype=float)
        values = g[["rate", "avg_queue"]].to_numpy(dtype=float)
        if flows in ns:
            rate, queue = values[int(np.flatnonzero(ns == flows)[0])]
        elif len(ns) >= 2:
            i = int(np.clip(np.searchsorted(ns, flows) - 1, 0, len(ns) - 2))
            rate, queue = values[i] + (flows - ns[i]) / (ns[i + 1] - ns[i]) * (
                values[i + 1] - values[i])
        else:
            continue
        rows.append({"p": float(p), "drop_rate": float(rate), "avg_queue": max(float(queue), 0.0)})
    return QueueLaw(pd.DataFrame(rows, columns=["p", "drop_rate", "avg_queue"]))


def law_source(flows: int, measured: Sequence[int] | pd.Series) -> str:
    """Say how :func:`law_at` has the law of ``flows`` flows from the ``measured`` ones.

    >>> [law_source(n, [100, 200, 300]) for n in (50, 150, 200)]
    ['extrapolated', 'interpolated', 'measured']
    """
    ns = sorted(set(measured))
    if flows in ns:
        return "measured"
    return "interpolated" if ns and ns[0] < flows < ns[-1] else "extrapolated"


def predict_step(law: QueueLaw, red: RedConfig) -> Prediction:
    """Return where RED operates on ``law`` (:func:`~aqmlab.queue_laws.predict_red`).

    One case more: where RED drops less at the law's largest queue (between its thresholds)
    than the law's lowest measured rate, the point lies at a lower rate and a larger queue, and
    there RED's function is continuous up to max_th, where it drops more than that rate: the
    point is between the thresholds, stable. A law of fewer than two points predicts nothing.

    >>> law = QueueLaw(pd.DataFrame({"drop_rate": [0.01, 0.1], "avg_queue": [120.0, 20.0]}))
    >>> predict_step(law, RedConfig(100, 300, 0.1)).region
    'between thresholds'
    """
    x, y = law.curve()
    if len(x) < 2:
        return Prediction(False, "no law", None, None)
    if red.min_th < y[0] < red.max_th and red.rate(y[0]) < x[0] < red.rate(
            red.max_th * (1 - 1e-9)):  # fmt: skip
        return Prediction(True, "between thresholds", None, None,
                          f"below the law's lowest measured rate {x[0]:g}")  # fmt: skip
    return predict_red(law, red)


def predict_steps(
    means: pd.DataFrame, loads: Sequence[int], c: Choices
) -> dict[str, dict[int, Prediction]]:
    """Return Fig. 12's prediction: each queue of PREDICTED → load → its operating point.

    ``means``: the laws (:func:`law_means`); a queue whose law was not measured is left out.
    With ECN, RED's marks meet the mark law below max_th; where they cannot hold the queue
    there, gentle RED-ECN's average rises into the gentle region, where it drops: its point is
    the drop law's with the gentle function — at max_th itself (marks below, drops above, none
    forced: stable) where the drop law meets RED's function between the thresholds.
    """
    out: dict[str, dict[int, Prediction]] = {}
    drops = means[means["how"] == "drop"]
    for aqm, (how, gentle) in PREDICTED.items():
        g = means[means["how"] == how]
        if not len(g):
            continue
        red = red_config(c, gentle)
        out[aqm] = {}
        for n in loads:
            pred = predict_step(law_at(g, n), dataclasses.replace(red, gentle=gentle and how ==
                                                                  "drop"))  # fmt: skip
            if how == "mark" and gentle and not pred.stable and len(drops):
                pred = predict_step(law_at(drops, n), red)
                if pred.region == "between thresholds":
                    pred = Prediction(True, "at max_th: marks below, drops above", red.max_th,
                                      None)  # fmt: skip
            out[aqm][n] = pred
    return out


def last_predicted(predictions: Mapping[int, Prediction]) -> int:
    """Return the largest load up to which every load is predicted stable (0 if none is)."""
    loads = sorted(predictions)
    unstable = [n for n in loads if not predictions[n].stable]
    return max((n for n in loads if not unstable or n < unstable[0]), default=0)


def _point(p: Prediction) -> str:
    """Return an operating point as the evidence says it."""
    if p.avg_queue is None or p.drop_rate is None:
        return p.region
    return f"{p.region} ({p.avg_queue:.0f} packets, rate {p.drop_rate:.3f})"


def prediction_rows(data: Data) -> pd.DataFrame:
    """Return CC10's frame: the laws' runs and the incremental steps, one frame.

    Rows of ``kind`` law are :func:`law_points`; of ``kind`` step, :func:`step_rows`' aqm, seed,
    flows and forced_share.
    """
    steps = step_rows(data)[["aqm", "seed", "flows", "forced_share"]]
    return pd.concat([law_points(data).assign(kind="law"), steps.assign(kind="step")],
                     ignore_index=True)  # fmt: skip


def law_prediction_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC10: the queue law predicts each RED configuration's stable range (Fig. 12).

    ``frame``: :func:`prediction_rows`. On the laws' means over seeds, extended to every step's
    load (:func:`law_at`), RED's predicted last stable load (:func:`last_predicted`) is within
    ABOUT_200; and each queue of PREDICTED has its predicted last stable load within
    PREDICT_TOL of the measured one (:func:`last_stable`, CC7's test).
    """
    steps = frame[frame["kind"] == "step"]
    loads = sorted(int(f) for f in steps["flows"].unique())
    preds = predict_steps(law_means(frame[frame["kind"] == "law"]), loads, Choices())
    predicted = {a: last_predicted(p) for a, p in preds.items()}
    measured = {a: last_stable(steps, a) for a in PREDICTED}
    agree = {a: a in predicted and abs(predicted[a] - measured[a]) <= PREDICT_TOL
             for a in PREDICTED}  # fmt: skip
    ok = ABOUT_200[0] <= predicted.get("red", 0) <= ABOUT_200[1] and all(agree.values())
    text = ("last stable load, predicted by the law vs measured: "
            + ", ".join(f"{a} {predicted.get(a, 'no law')} vs {measured[a]}" for a in PREDICTED)
            + "; operating points by flows — " + "; ".join(
                f"{a}: " + ", ".join(f"{n}: {_point(p)}" for n, p in preds[a].items())
                for a in ("red", "red-ecn") if a in preds))  # fmt: skip
    return ok, text, {"predicted": predicted, "measured": measured, "agree": agree}


def ecn_stability_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC11: RED-ECN becomes unstable at 150 flows, gentle RED-ECN manages 200.

    CC7's test (:func:`last_stable`): RED-ECN's last stable load within RED_ECN_STABLE, gentle
    RED-ECN's at least GENTLE_ECN_STABLE.
    """
    caps = {a: last_stable(frame, a) for a in ("red-ecn", "gentle-ecn")}
    ok = (RED_ECN_STABLE[0] <= caps["red-ecn"] <= RED_ECN_STABLE[1]
          and caps["gentle-ecn"] >= GENTLE_ECN_STABLE)  # fmt: skip
    text = (f"last stable load: RED-ECN {caps['red-ecn']}, gentle RED-ECN {caps['gentle-ecn']} "
            f"(of {int(frame['flows'].max())}); " + _shares(frame, ("red-ecn", "gentle-ecn")))
    return ok, text, {"last_stable": caps}


def mark_gap_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC12: the mark rate's excess over the drop rate holding a queue grows with the load.

    ``frame``: :func:`law_points`. On each law (means over seeds), the rate that holds
    MARK_TARGET packets, its logarithm interpolated between the measured points around it
    (:meth:`~aqmlab.queue_laws.QueueLaw.rate_for`); the gap is the mark rate minus the drop rate
    at each number of flows. It holds when every law reaches the target within its measured
    rates, the gap rises from each load to the next, by more per flow each time (faster than
    linearly), and is above 0 at the most flows.
    """
    means = law_means(frame)
    rate: dict[tuple[str, int], float] = {}
    for (how, n), g in means.groupby(["how", "n"]):
        law = QueueLaw(g.rename(columns={"rate": "drop_rate"}))
        rate[str(how), int(n)] = law.rate_for(MARK_TARGET, log_rate=True)
    loads = sorted({n for _, n in rate})
    gap = np.array([rate.get(("mark", n), math.nan) - rate.get(("drop", n), math.nan)
                    for n in loads])  # fmt: skip
    rise = np.diff(gap) / np.diff(loads) if len(loads) > 1 else np.array([])
    ok = bool(len(loads) >= 3 and np.isfinite(gap).all() and (rise > 0).all()
              and (np.diff(rise) > 0).all() and gap[-1] > 0)  # fmt: skip
    text = (f"rate holding {MARK_TARGET:.0f} packets, drop / mark / gap (— where a law does not "
            "reach it within its measured rates): " + "; ".join(
                f"{n} flows {fmt(rate.get(('drop', n)), 4)} / {fmt(rate.get(('mark', n)), 4)} / "
                f"{fmt(g, 4)}" for n, g in zip(loads, gap, strict=True))
            + "; the gap's rise per 100 flows: " + ", ".join(fmt(v * 100, 4) for v in rise)
            + "; mark / drop: " + ", ".join(
                fmt(rate.get(("mark", n), math.nan) / rate.get(("drop", n), math.nan), 2)
                for n in loads))  # fmt: skip
    return ok, text, {"rates": {f"{h} {n}": v for (h, n), v in rate.items()},
                      "gap": dict(zip(loads, gap.tolist(), strict=True))}  # fmt: skip


def _steps_text(steps: Mapping[int, Estimate], scale: float = 1.0) -> str:
    """Return per-step paired differences for the evidence (``scale``: to percentage points)."""
    return ", ".join(f"{f}: {Estimate(d.mean * scale, d.lo * scale, d.hi * scale, d.n)}"
                     for f, d in steps.items())  # fmt: skip


def gentle_loss_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC13: gentle RED loses less than RED when highly overloaded (Fig. 20).

    Gentle RED's loss minus RED's over each step's steady part, paired by seed: at each step of
    OVERLOADED the 95% interval lies below 0 (one seed: the difference is below 0).
    """
    _, steps = step_differences(frame, "loss", "gentle", "red")
    judged = {f: steps[f] for f in OVERLOADED if f in steps}
    ok = len(judged) == len(OVERLOADED) and all(d.sign() < 0 for d in judged.values())
    text = (f"gentle RED − RED loss (points, steady parts, paired by seed) at "
            f"{', '.join(map(str, OVERLOADED))} flows: {_steps_text(judged, 100)}; at fewer "
            "flows: " + _steps_text({f: d for f, d in steps.items() if f not in judged}, 100))
    return ok, text, {"gap": {f: d.mean for f, d in steps.items()},
                      "below": {f: d.sign() < 0 for f, d in judged.items()}}  # fmt: skip


def oscillation_check(frame: pd.DataFrame) -> tuple[bool, str, Mapping[str, Any]]:
    """Check CC14: RED's average oscillates from 200 flows, Adaptive RED's stays steady.

    ``osc_amp`` of :func:`step_rows` (the sd of the detrended average, :func:`oscillation`):
    RED's smallest amplitude at the steps from OSC_FROM minus its largest at the steps before,
    per seed, has a 95% interval above 0 (one seed: above 0); and at every step from OSC_FROM,
    Adaptive RED's amplitude minus RED's, paired by seed, has its interval below 0 (one seed:
    below 0).
    """
    amp = frame[frame["aqm"] == "red"].pivot_table(index="seed", columns="flows",
                                                    values="osc_amp")  # fmt: skip
    late = [f for f in amp.columns if f >= OSC_FROM]
    early = [f for f in amp.columns if f < OSC_FROM]
    rise = (paired_difference(amp[late].min(axis=1).to_numpy(), amp[early].max(axis=1).to_numpy())
            if late and early else None)  # fmt: skip
    _, steps = step_differences(frame, "osc_amp", "ared", "red")
    steadier = {int(f): steps[int(f)] for f in late if int(f) in steps}
    ok = (rise is not None and rise.sign() > 0 and len(steadier) == len(late)
          and all(d.sign() < 0 for d in steadier.values()))  # fmt: skip
    per = frame.groupby(["aqm", "flows"])[["osc_amp", "osc_period_s"]].mean()
    text = ("amplitude of the average (sd detrended, packets) and period (s) by flows — "
            + "; ".join(f"{a}: " + ", ".join(
                f"{int(f)}: {per.loc[(a, f), 'osc_amp']:.1f}, "
                f"{fmt(per.loc[(a, f), 'osc_period_s'], 1)} s"
                for f in sorted(frame["flows"].unique()) if (a, f) in per.index)
                for a in ("red", "ared"))
            + f"; RED's least from {OSC_FROM} flows − its most below: {rise or '—'}; Adaptive − "
            f"RED from {OSC_FROM} flows: {_steps_text(steadier)}")  # fmt: skip
    return ok, text, {"rise": rise.mean if rise else None,
                      "ared_minus_red": {f: d.mean for f, d in steadier.items()}}


EXTRA_CLAIMS = {
    "CC10": "The queue law predicts how far each RED configuration of §4 stays stable under "
            "incremental load: RED up to about 200 flows (Fig. 12).",
    "CC11": "With ECN, RED's average becomes unstable at 150 flows and gentle RED-ECN manages "
            "200 flows, as gentle RED does (Figs. 16–17).",
    "CC12": "The mark rate ECN needs above the drop rate to hold the same average queue grows "
            "exponentially as the load grows linearly (§3, Fig. 11).",
    "CC13": "When highly overloaded (250+ flows), gentle RED loses fewer packets than RED "
            "(Fig. 20).",
    "CC14": "RED's average queue oscillates from 200 flows while Adaptive RED's stays steady at "
            "the same loads (Figs. 13, 15).",
}
"""Findings beyond the project's list (``findings.toml``), after its CC1–CC9: the claim in our
words; its criterion, with the paper's words, is in :data:`CRITERIA`."""


EQ1_WORDS = ("Equation 1 implies that TCP traffic load is linearly proportional to the number of "
             "connections (or flows), and inversely linearly proportional to the link bandwidth "
             "and average round trip link delay")
STEADY_REASON = ("and loss is counted over each step's steady part (after its first "
                 f"{STEADY_SKIP_S:g} s), the start-up transient of the 50 new flows reported apart "
                 "(``loss_transient``)")
CRITERIA: dict[str, Criterion] = {
    "CC1": Criterion(
        ("law",),
        f"""At every drop rate where all three averages are ≥ {QUEUE_FLOOR:g} packet,
        a least-squares line of the average queue against the number of flows (100, 200, 300;
        20 Mbps, 80 ms) has a positive slope and R² ≥ {R2_MIN}.""",
        seedwise_judge(family_rows("flows"), linearity_check("n", +1)),
        words="the queue law of the congested router for simulations that differ only by the "
              "number of TCP connections: 100, 200 or 300. At a given drop rate where all of the "
              "queue averages are greater than 0, the average queue size increases linearly with "
              "the number of flows (§2, Fig. 4)",
    ),
    "CC2": Criterion(
        ("law",),
        f"""Bandwidth (5–20 Mbps; 200 flows, 80 ms): at every drop rate where all
        averages are ≥ {QUEUE_FLOOR:g}, the slope of the average queue against bandwidth (every
        run) agrees with the queue law's −R/(8·{WIRE_B} B) packets per Mbps: its 95% interval
        holds it, or it is within {SLOPE_TOL:.0%}.""",
        seedwise_judge(family_rows("bandwidth"), law_slope_check("b")),
        revised_from=Revision(
            f"The same for bandwidth (5–20 Mbps; 200 flows, 80 ms): negative slope, R² ≥ {R2_MIN} "
            f"at every drop rate where all averages are ≥ {QUEUE_FLOOR:g}",
            "noise: at the lowest drop rates the effect of bandwidth is a few percent of the "
            "queue, so R² there measures the seeds' noise, not the law; the slope the law "
            "predicts (−R) is judged instead, with its interval",
            quote=EQ1_WORDS,
            judge=seedwise_judge(family_rows("bandwidth"), linearity_check("b", -1)),
        ),
        words="At a given drop rate where all of the queue averages are greater than 0, the "
              "average queue size decreases linearly with the link bandwidth. … Equation 1 "
              "implies that TCP traffic load is … inversely linearly proportional to the link "
              "bandwidth (§2, Fig. 5, Eq. 1)",
    ),
    "CC3": Criterion(
        ("law",),
        f"""Round-trip link delay (40–160 ms; 200 flows, 20 Mbps): at every drop
        rate where all averages are ≥ {QUEUE_FLOOR:g}, the slope of the average queue against
        delay agrees with the queue law's −C (packets per ms: the queue falls as delay grows, as
        Eq. 1 says): its 95% interval holds it, or it is within {SLOPE_TOL:.0%}.""",
        seedwise_judge(family_rows("delay"), law_slope_check("r")),
        revised_from=Revision(
            f"The same for round-trip link delay (40–160 ms; 200 flows, 20 Mbps): positive slope, "
            f"R² ≥ {R2_MIN} at every drop rate where all averages are ≥ {QUEUE_FLOOR:g}",
            "the paper contradicts itself (see its inconsistency note): Fig. 6's text says the "
            "queue rises with delay, Eq. 1's sentence and the law it states say it falls (slope "
            "−C); the law is what can be judged",
            quote=EQ1_WORDS,
            judge=seedwise_judge(family_rows("delay"), linearity_check("r", +1)),
        ),
        inconsistent="Fig. 6's text: “At a given drop rate where all of the queue averages are "
                     "greater than 0, the average queue size increases linearly with the round "
                     "trip link delay.” §2 on Eq. 1: “" + EQ1_WORDS + ".” With a window that "
                     "depends on p alone (CC4), a saturated link gives q = n·W(p) − C·R: the "
                     "queue falls with delay.",
        words="At a given drop rate where all of the queue averages are greater than 0, the "
              "average queue size increases linearly with the round trip link delay. … Equation 1 "
              "implies that TCP traffic load is … inversely linearly proportional to the link "
              "bandwidth and average round trip link delay (§2, Fig. 6, Eq. 1)",
    ),
    "CC4": Criterion(
        ("law",),
        f"""Overlap: at every drop rate, the avg_cwnd (time-averaged effective
        window of traced flows) of all nine configurations has sd/mean ≤ {CV_MAX}, and in each
        configuration it falls as p grows.""",
        seedwise_judge(law_rows, overlap_check),
        words="The avg_cwnd curves from various simulation configurations directly overlap one "
              "another, indicating that avg_cwnd is the function of the random packet drop rate "
              "only (§2, Fig. 7)",
    ),
    "CC5": Criterion(
        ("limited",),
        f"""Flattening: avg_cwnd(lowest p)/avg_cwnd(highest p) is smaller with
        the 6-packet limit than with 12, and smaller with 12 than unlimited; and the drop rate
        that holds an average queue of {TARGET_QUEUE:.0f} packets (interpolated on each law) is
        {TWICE[0]}–{TWICE[1]} times higher with the 6-packet limit (1300 flows) than with 12
        (700 flows).""",
        seedwise_judge(lambda d: law_frame(d, "limited", "limit"), limited_check),
        words="as the congestion window limit decreases, the average congestion window curve "
              "flattens. … the simulation with smaller $cwnds$ (6 packet limit) has to apply "
              "about twice as high a drop rate as the simulation with the larger $cwnds$ (12 "
              "packet limit) to maintain an average queue length of 3000 packets (§2, Figs. 8–9)",
    ),
    "CC6": Criterion(
        ("law", "notification"),
        f"""Drop law from the uniform dropper, mark law from the
        uniform marker (chosen ECN-capable packets marked instead of dropped; every flow
        ECN-capable): at the same notification rate the marked flows' avg_cwnd is within
        {CWND_SAME * 100:.0f}% of the dropped flows' (log-log interpolation), and for each of
        100/200/300 flows the log-log slope of the average queue against the rate is
        shallower (falls more slowly) with marks than with drops.""",
        seedwise_judge(notification_rows, notification_check),
        words="The TCP congestion window behavior is the same whether packet drops or ECN packet "
              "marks are used as the notification method. … in increasing the drop/mark rate, the "
              "average queue length of the queue with TCP with ECN decreases noticeably slower "
              "and steadier than the average queue length with TCP with ECN (§3, Figs. 10–11)",
    ),
    "CC7": Criterion(
        ("incremental",),
        f"""A step is unstable if more than {FORCED_SHARE:.0%} of the drops
        of its steady part (after its first {STEADY_SKIP_S:g} s) were forced: RED's average in
        its forced region (≥ max_th; gentle ≥ 2·max_th) or the queue at its physical limit. RED's
        last stable load (all steps up to it stable) is 100–200 flows and at every later step its
        mean average is within {AROUND[0]}–{AROUND[1]}·max_th; gentle RED's last stable load is
        ≥ max(RED's, 200); Adaptive RED is stable at every step.""",
        seedwise_judge(step_rows, stability_check),
        revised_from=Revision(
            f"A step (after its first {STEADY_SKIP_S:g} s) is unstable if more than "
            f"{UNSTABLE_SHARE:.0%} of its 100 ms intervals have RED's average in the forced region "
            "(≥ max_th; gentle ≥ 2·max_th) or the queue at the physical limit; the rest as now",
            "the paper's instability is RED dropping everything above max_th, in bursts; the "
            "engine records each drop's reason, so the drops RED did not choose (forced, "
            "overflow) measure it directly, where the share of intervals with the average at "
            "max_th counted time, not loss of control",
            quote="once the average queue is above max_{th} RED drops all incoming packets until "
                  "the average queue length goes down below the max_{th} . This … periodic "
                  "behavior of the average queue length growth and drop rate of 1 creates queue "
                  "oscillations around max_{th} resulting in bursts of packet drops",
            judge=seedwise_judge(
            step_rows,
            functools.partial(
            stability_check,
            test="unstable_share",
        ),
        ),
        ),
        words="RED's average queue was stable up to a traffic load of 150 flows, but at 200 flows "
              "it hit the maximum threshold and becomes increasingly unstable. Gentle-RED, shown "
              "in Figure 14, was able to manage load up to 200 flows … Adaptive RED can stably "
              "handle a very wide range of TCP traffic (§4, Figs. 13–15)",
    ),
    "CC8": Criterion(
        ("incremental",),
        f"""Bottleneck utilization ≥ {FULL_UTIL} in every step (after its
        first {STEADY_SKIP_S:g} s) for every queue; RED, gentle RED and Adaptive RED (drops) each
        lose more than drop-tail over the steps' steady parts: the mean over steps of the paired
        seed difference has a 95% interval above 0, and at no step is that step's interval below
        0 (one seed: the signs).""",
        seedwise_judge(step_rows, loss_gap_check),
        revised_from=Revision(
            f"Bottleneck utilization ≥ {FULL_UTIL} in every step (after its first "
            f"{STEADY_SKIP_S:g} s) for every queue; RED, gentle RED and Adaptive RED (drops) each "
            "lose a larger share of arrivals than drop-tail (whole steps, means over seeds) in all "
            "steps but at most one, and on average over the steps",
            "noise: a difference of a few hundredths of a point at one step decided it; paired "
            "seed intervals tell a tie from a difference, " + STEADY_REASON,
            quote="all the RED family queue mechanisms that use drops for congestion notification "
                  "have consistently higher packet loss rate than does drop-tail queue management",
            judge=seedwise_judge(step_rows, utilization_loss_check),
        ),
        words="Figure 19 shows that the bottleneck link was fully utilized for all TCP traffic "
              "loads … all the RED family queue mechanisms that use drops for congestion "
              "notification have consistently higher packet loss rate than does drop-tail queue "
              "management (§4, Figs. 19–20)",
    ),
    "CC9": Criterion(
        ("incremental",),
        f"""Each ECN variant loses ≤ {NEAR_ZERO * 100:.1f}% of arrivals
        (each step's steady part) in every step where it is stable (CC7's test) and less than its
        dropping twin on average; Adaptive RED-ECN loses ≤ {NEAR_ZERO * 100:.1f}% in every step,
        its mean queue is below drop-tail's and the sd of its average (mean over steps) is at most
        Adaptive RED's.""",
        seedwise_judge(step_rows, ecn_check),
        revised_from=Revision(
            "as now, with CC7's first instability test (the share of 100 ms intervals) and loss "
            "over whole steps",
            "it follows CC7's test of instability, " + STEADY_REASON,
            judge=seedwise_judge(
            step_rows,
            functools.partial(
            ecn_check,
            test="unstable_share",
            loss="loss_whole",
        ),
        ),
        ),
        words="ECN enabled RED and its variants in a “well-configured” state can bring down the "
              "packet loss rate to zero. … Adaptive RED-ECN is able to achieve a packet loss rate "
              "very close to zero for the entire range of traffic loads. … the average queue "
              "oscillation of the ECN enabled one remains more stable (§4, Figs. 15, 18, 20)",
    ),
    "CC10": Criterion(
        ("law", "notification", "law_high", "incremental"),
        f"""Fig. 12: the drop laws
        (uniform dropper; ``law`` and ``law_high``) and mark laws (uniform marker;
        ``notification`` and ``law_high``) of 100/200/300 flows, means over seeds, extended to
        every step's load (50–300) linearly in the number of flows at each p (CC1's law; 50 from
        100 and 200, queues clipped at 0), meet RED's drop function
        ({"/".join(f"{v:g}" for v in Choices().red)}, ns-2's count rule, physical queue
        {Choices().physical_queue}): a load is predicted stable where they meet where the
        function is continuous, below the physical queue. RED's predicted last stable load (all
        loads up to it predicted stable) is {ABOUT_200[0]}–{ABOUT_200[1]} flows ("about 200");
        and for RED, gentle RED (drop law), RED-ECN and gentle RED-ECN (mark law below max_th;
        above it the ECN variants drop, as ns-2's RED of 2003: gentle RED-ECN's gentle region
        meets the drop law) each, the predicted last stable load is within {PREDICT_TOL} flows
        (one step) of the measured one (CC7's test: forced drops ≤ {FORCED_SHARE:.0%} of a step's
        drops) — the paper's own agreement, "about 200" against RED stable to 150, is one
        step.""",
        seedwise_judge(prediction_rows, law_prediction_check),
        words="In general, comparing the queue behavior of each RED family AQM with the queue law "
              "shown in Figure 12, demonstrates that the queue law indeed works very well "
              "predicting RED behavior. For RED, the queue law indicates that RED will be stably "
              "manage TCP traffic up to about 200 flows. … For RED-ECN, shown in Figure 16, the "
              "average queue becomes unstable at a load of 150 flows, as the queue law indicated "
              "(§4, Fig. 12)",
    ),
    "CC11": Criterion(
        ("incremental",),
        f"""CC7's test of a step's stability (more than
        {FORCED_SHARE:.0%} of its steady part's drops forced) on the ECN variants: RED-ECN's
        last stable load is {RED_ECN_STABLE[0]}–{RED_ECN_STABLE[1]} flows (unstable at 150: last
        stable 100, within one step as CC7 allows RED's), and gentle RED-ECN's is at least
        {GENTLE_ECN_STABLE} flows.""",
        seedwise_judge(step_rows, ecn_stability_check),
        words="For RED-ECN, shown in Figure 16, the average queue becomes unstable at a load of "
              "150 flows, as the queue law indicated. And as is the case of gentle-RED, "
              "gentle-RED-ECN, shown in Figure 17, also gets the benefit of the gentle behavior "
              "for 200 flows (§4, Figs. 16–17)",
    ),
    "CC12": Criterion(
        ("law", "notification", "law_high"),
        f"""On the drop and the mark law of 100, 200
        and 300 flows (means over seeds, the high rates included), the rate that holds an
        average queue of {MARK_TARGET:.0f} packets (§3's example), its logarithm interpolated
        between the measured points around it; the gap (mark rate − drop rate) rises from 100 to
        200 to 300 flows and rises more from 200 to 300 than from 100 to 200 (faster than
        linearly, which an exponential does: three loads cannot tell an exponential from other
        convex growth), and is above 0 at 300 flows. A law that does not reach
        {MARK_TARGET:.0f} packets within its measured rates fails it.""",
        seedwise_judge(law_points, mark_gap_check),
        words="Second, for a reasonable average queue length target (for example, 500 packets in "
              "Figure 11), as traffic load increases linearly, the difference between the stable "
              "state mark rate and the stable state drop rate to maintain the queue length at the "
              "same level increases exponentially, which indicates that ECN should increase its "
              "mark rate exponentially above any drop rate (§3, Fig. 11)",
    ),
    "CC13": Criterion(
        ("incremental",),
        f"""Gentle RED's loss minus RED's over each step's steady part
        (after its first {STEADY_SKIP_S:g} s), paired by seed: at {OVERLOADED[0]} and at
        {OVERLOADED[1]} flows its 95% interval lies below 0 (one seed: the difference is below
        0); an interval that spans 0 is a tie, not a reduction.""",
        seedwise_judge(step_rows, gentle_loss_check),
        words="However, the benefit of the gentle setting is not as clear in terms of queue "
              "oscillations when a RED router is highly overloaded (250+ flows, in our "
              "simulations), although the gentle behavior does reduce the packet loss rate "
              "somewhat, as shown in Figure 20 (§4, Fig. 20)",
    ),
    "CC14": Criterion(
        ("incremental",),
        f"""The oscillation of a queue's average in each step's steady
        part (100 ms samples, detrended; amplitude: their sd; period: the lag of the
        autocorrelation's highest point after it first falls below 0, reported): RED's smallest
        amplitude at the steps from {OSC_FROM} flows minus its largest at the steps before, per
        seed, has a 95% interval above 0 (one seed: above 0) — RED oscillates from
        {OSC_FROM} flows; and at every step from {OSC_FROM} flows, Adaptive RED's amplitude minus
        RED's, paired by seed, has its interval below 0 (one seed: below 0).""",
        seedwise_judge(step_rows, oscillation_check),
        words="In Figure 13, RED's average queue was stable up to a traffic load of 150 flows, "
              "but at 200 flows it hit the maximum threshold and becomes increasingly unstable. … "
              "Comparing the queue behavior of Adaptive RED, shown in Figure 15, and "
              "Adaptive-RED-ECN, shown in Figure 18, with non-adaptive versions of RED clearly "
              "shows the benefits of adjusting max_p . That is, by finding the proper "
              "drop/marking slope for changing traffic load conditions, Adaptive RED can stably "
              "handle a very wide range of TCP traffic (§4, Figs. 13, 15)",
    ),
}  # fmt: skip
"""Each finding's criterion: the experiments it needs, the test in words and its judge, the
criterion it replaced (``revised_from``) and the paper's own words it reads."""


# --- tables, figures, sections -----------------------------------------------------------------
def _table_rows(data: Data) -> pd.DataFrame:
    f = step_rows(data)
    return f.assign(loss_pct=f["loss"] * 100, mark_pct=f["mark_rate"] * 100,
                    util_pct=f["utilization"] * 100)  # fmt: skip


TABLES = (
    TableSpec("incremental_steps", "Incremental load: each 50-flow step (Figs. 13–20)",
              ("incremental",), ("aqm", "flows"),
              (Column("mean avg queue", "avg_mean", digits=0),
               Column("sd of avg", "avg_sd", digits=1),
               Column("amplitude of avg", "osc_amp", digits=1),
               Column("period of avg s", "osc_period_s", digits=1),
               Column("unstable share", "unstable_share", digits=2),
               Column("utilization %", "util_pct", digits=2),
               Column("loss %", "loss_pct", digits=3),
               Column("mark %", "mark_pct", digits=3)),
              _table_rows,
              note="The paper gives no table; its text: RED stable to about 150 flows and "
                   "unstable from 200; gentle RED manages 200; RED-ECN unstable at 150; "
                   "Adaptive RED (and -ECN) stable over the whole range; utilization full at "
                   "all loads; dropping RED variants lose more than drop-tail; Adaptive RED-ECN "
                   "loss very close to zero. The average's amplitude is the sd of its detrended "
                   "100 ms series in the step's steady part, its period the lag of the series' "
                   "highest autocorrelation after the first negative one (— where none reaches "
                   f"{PERIODIC_ACF}): `oscillation`."),
)  # fmt: skip


def _law_panel(data: Data, family: str, title: str, y: str = "avg_queue") -> Panel:
    rows = family_rows(family)(data) if family else law_rows(data)
    curves = mean_curves(rows, "p", y, by=["config"])
    return Panel(title, tuple(curves.values()), "uniform drop rate p",
                 "average queue (packets)" if y == "avg_queue" else "average cwnd (packets)")


def _fig_family(family: str, title: str) -> Callable[[Data], list[Panel]]:
    return lambda data: [_law_panel(data, family, title)]


def _limited_panels(data: Data) -> list[Panel]:
    f = law_frame(data, "limited", "limit")
    cwnd = mean_curves(f, "p", "avg_cwnd", by=["limit"])
    queue = mean_curves(f, "p", "avg_queue", by=["limit"])
    return [Panel("Fig. 8: average window", tuple(cwnd.values()), "uniform drop rate p",
                  "average cwnd (packets)"),
            Panel("Fig. 9: queue law", tuple(queue.values()), "uniform drop rate p",
                  "average queue (packets)")]  # fmt: skip


def _notification_panels(data: Data) -> list[Panel]:
    f = notification_rows(data).assign(series=lambda x: x["config"] + " " + x["how"])
    m = mean_ci(f, ["rate", "avg_queue", "avg_cwnd"], by=["series", "p"])
    panels = []
    for y, title, ylabel in (
            ("avg_cwnd", "Fig. 10: window, drop vs mark", "average cwnd (packets)"),
            ("avg_queue", "Fig. 11: queue law, drop vs mark", "average queue (packets)"),
    ):  # fmt: skip
        curves = []
        for series, g in m.groupby("series"):  # at each p: mean rate, mean y with its t interval
            g = g.sort_values("rate_mean")
            curves.append(Curve(str(series), g["rate_mean"].to_numpy(), g[f"{y}_mean"].to_numpy(),
                                g[f"{y}_lo"].to_numpy(), g[f"{y}_hi"].to_numpy(), kind="points"))
        panels.append(Panel(title, tuple(curves), "measured drop / mark rate", ylabel))
    return panels


def _queue_time_panels(data: Data) -> list[Panel]:
    """Draw Figs. 13–18 and drop-tail: one panel per queue, one seed's queue and average.

    One seed, not a mean over seeds: the figures show how the queue oscillates, which a mean over
    seeds would smooth away.
    """
    q = data.table("incremental", "queue", ["t_s", "direction", "red_avg", "mean_pkts"])
    seed = min(data.seeds)
    q = q[(q["direction"] == "forward") & (q["seed"] == seed)]
    c = _choices(data.scale)
    step = seconds(data.scale["step"])
    panels = []
    for aqm in AQMS:
        g = q[q["aqm"] == aqm].sort_values("t_s")
        t = g["t_s"].to_numpy()
        curves = [Curve("queue", t, g["mean_pkts"].to_numpy())]
        if aqm != "droptail":
            curves.append(Curve("average", t, g["red_avg"].to_numpy()))
        panels.append(Panel(f"{TITLES[aqm]}, seed {seed}", tuple(curves),
                            f"time (s); +{c.step_flows} flows every {step:g} s",
                            "queue (packets)",
                            ylim=(0, c.physical_queue * 1.05)))  # fmt: skip
    return panels


def _red_curve(red: RedConfig, label: str, lowest: float) -> Curve:
    """Return RED's drop function as a curve of the queue law's axes (rate → average queue).

    From the average where it drops at ``lowest`` to its top, and the jump to 1 there.
    """
    avg = np.linspace(red.min_th, red.top, 401)[1:-1]
    rate = np.array([red.rate(a) for a in avg])
    keep = rate >= lowest
    return Curve(label, np.append(rate[keep], 1.0), np.append(avg[keep], red.top),
                 reference=True)  # fmt: skip


def _fig12_panels(data: Data) -> list[Panel]:
    """Draw Fig. 12: the laws at each step's load against the RED configurations of §4."""
    c = _choices(data.scale)
    means = law_means(law_points(data))
    lowest = float(means["rate"].min()) / 2
    panels = []
    for how, title, aqms in (("drop", "drop law: RED, gentle RED", ("RED", "gentle RED")),
                             ("mark", "mark law: RED-ECN, gentle RED-ECN",
                              ("RED-ECN", "gentle RED-ECN"))):  # fmt: skip
        g = means[means["how"] == how]
        if g.empty:
            continue
        curves = []
        for n in step_loads(c):
            source = law_source(n, g["n"])
            x, y = law_at(g, n).curve()
            curves.append(Curve(f"{n} flows" + ("" if source == "measured" else f" ({source})"),
                                x, y, kind="points" if source == "measured" else "line"))
        curves += [_red_curve(red_config(c, gentle), aqm, lowest)
                   for aqm, gentle in zip(aqms, (False, True), strict=True)]  # fmt: skip
        panels.append(Panel(title, tuple(curves), f"uniform {how} rate",
                            "average queue (packets)", xlim=(lowest, 1.0),
                            ylim=(0, 2.5 * c.red[1]), xscale="log"))  # fmt: skip
    return panels


def _step_panels(value: str, title: str, ylabel: str) -> Callable[[Data], list[Panel]]:
    def panels(data: Data) -> list[Panel]:
        f = _table_rows(data)
        return [Panel(title, tuple(mean_curves(f, "flows", value, by=["aqm"]).values()),
                      "TCP flows", ylabel)]

    return panels


FIGURES = (
    FigureSpec("fig4_flows", "Queue law: number of flows", "Fig. 4", ("law",),
               _fig_family("flows", "20 Mbps, rtld 80 ms")),
    FigureSpec("fig5_bandwidth", "Queue law: bandwidth", "Fig. 5", ("law",),
               _fig_family("bandwidth", "200 flows, rtld 80 ms")),
    FigureSpec("fig6_delay", "Queue law: round-trip link delay", "Fig. 6", ("law",),
               _fig_family("delay", "200 flows, 20 Mbps")),
    FigureSpec("fig7_cwnd", "Average congestion window, all configurations", "Fig. 7", ("law",),
               lambda d: [_law_panel(d, "", "all configurations", "avg_cwnd")]),
    FigureSpec("fig8_9_limited", "Limited congestion windows", "Figs. 8–9", ("limited",),
               _limited_panels, sharey=False),
    FigureSpec("fig10_11_ecn", "Drop vs mark (uniform dropper and uniform marker)",
               "Figs. 10–11", ("law", "notification"), _notification_panels, sharey=False),
    FigureSpec("fig12_prediction", "Queue laws at each step's load against RED's drop function",
               "Fig. 12", ("law",), _fig12_panels),
    FigureSpec("fig13_18_queues", "Instantaneous and average queue under incremental load",
               "Figs. 13–18", ("incremental",), _queue_time_panels),
    FigureSpec("fig19_utilization", "Link utilization", "Fig. 19", ("incremental",),
               _step_panels("util_pct", "utilization", "link utilization (%)")),
    FigureSpec("fig20_loss", "Packet loss rate", "Fig. 20", ("incremental",),
               _step_panels("loss_pct", "loss", "packets lost (% of arrivals)")),
)  # fmt: skip


def prediction_section(data: Data) -> str:
    """Write the queue law's prediction for §4's RED configurations at each step (Fig. 12).

    The laws that ran (drop: ``law``; mark: ``notification``; both: ``law_high``), extended to
    each step's load (:func:`law_at`), and the measured last stable load where ``incremental``
    ran.
    """
    c = _choices(data.scale)
    means = law_means(law_points(data))
    preds = predict_steps(means, step_loads(c), c)
    steps = step_rows(data) if data.has("incremental") else None
    lines = []
    for aqm, by_load in preds.items():
        measured = means[means["how"] == PREDICTED[aqm][0]]["n"]
        for n, pred in by_load.items():
            lines.append([TITLES[aqm].split(" (")[0], str(n), law_source(n, measured),
                          pred.region, "yes" if pred.stable else "no", fmt(pred.avg_queue, 0),
                          fmt(pred.drop_rate, 4)])  # fmt: skip
    last = "; ".join(
        f"{TITLES[a].split(' (')[0]} {last_predicted(p)}"
        + (f" (measured {last_stable(steps, a)})" if steps is not None else "")
        for a, p in preds.items())  # fmt: skip
    return ("The paper's method (Fig. 12): the measured queue law of each flow count (drops, and "
            "ECN marks for the ECN variants) meets RED's drop function (ns-2's count rule); "
            "laws at loads not measured are taken linearly in the flows at each p (CC1). The "
            "paper: the queue law predicted RED stable up to about 200 flows, RED-ECN unstable "
            f"at 150 (§4). Last load predicted stable: {last}.\n\n"
            + markdown_table(["queue", "flows", "law", "operating point", "stable", "avg queue",
                              "rate"], lines))  # fmt: skip


def testbed_items(choices: Choices = Choices()) -> tuple[str, ...]:
    """The testbed and every choice, one markdown item each (the report's Testbed section)."""
    c = choices
    lo, hi, max_p = c.red
    return (
        "Fig. 3: bulk FTP sources behind R1, one bottleneck R1 → R2, sinks behind R2; TCP "
        "NewReno of ns-2 c. 2003 (`ns2-2003`: 1000 B segments + 40 B headers, no delayed ACKs, "
        "10 ms ticks, ns-2's SYN); unlimited window (§2: cwnd_limit infinite) unless limited.",
        f"Round-trip link delays per flow uniform on [{1 - c.rtt_spread:g}·R, "
        f"{1 + c.rtt_spread:g}·R] around the configuration's R (*ours*; the paper: 'average round"
        " trip link delay of each source'); half the smallest on the bottleneck, the rest per "
        f"host pair; access links {c.access_rate} with unlimited queues (*ours*).",
        f"Queue law (§2, after Firoiu & Borden): the bottleneck is `aqmlab.queue_law`'s uniform "
        f"dropper with an unlimited queue; flows {list(c.flows)} at {c.rate_mbps:g} Mbps / "
        f"{c.rtld_ms:g} ms; {list(c.rates_mbps)} Mbps and {list(c.rtlds_ms)} ms with "
        f"{c.family_flows} flows (*ours*: the paper does not say).",
        f"avg_cwnd: time average of each traced connection's min(cwnd, window limit), mean over "
        f"{c.traced_flows} traced connections per run (*ours*: the rest identical, untraced).",
        "Limited windows (§2): " + ", ".join(f"{w} packets with {n} flows" for w, n in c.limited)
        + f", beside {c.limited_reference_flows} unlimited flows; 20 Mbps, 80 ms.",
        f"Drop vs mark (§3): the drop law is the queue law's runs of {list(c.flows)} flows; the "
        "mark law the same configurations with the uniform marker (the uniform dropper with "
        "`ecn = true`: a chosen ECN-capable packet is marked CE instead of dropped) and every "
        "flow ECN-capable, at the same p; the x axis is the measured (drops + marks) / arrivals.",
        "High rates (`law_high`, *ours*): the drop and the mark law of the same configurations "
        "at rates above the queue law's grid (scale setting `high_rates`), where the laws of "
        "many flows reach RED's thresholds and §3's 500 packets. Fig. 12's laws at loads not "
        "measured (50, 150, 250 flows) are taken linearly in the flows at each p between the "
        "measured ones (CC1's law; 50 beyond 100 and 200, queues clipped at 0: *ours*).",
        f"Incremental load (§4): {c.rate_mbps:g} Mbps, {c.rtld_ms:g} ms, 1 KB packets, physical "
        f"queue {c.physical_queue}; {c.step_flows} flows, {c.step_flows} more every step, "
        f"{c.steps} steps (up to {c.step_flows * c.steps} flows: *ours*), flows start within "
        f"{c.start_within} of their step (*ours*).",
        f"RED {lo:g}/{hi:g}/{max_p:g} (§4) on ns-2's RED of 2003 (`ns2-2003`: automatic w_q, the "
        "`wait` count rule, 1000 B mean packet); RED without gentle, gentle RED, Adaptive RED "
        f"(gentle, max_p within [{c.ared_bottom:g}, {c.ared_top:g}], §1 and §4; other Adaptive "
        "RED settings ns-2's: 0.5 s interval, band 0.4–0.6); ECN: every flow ECN-capable, early "
        "decisions mark, forced ones drop.",
        "Loss and mark rate per step: the step's drops and marks over its arrivals at the "
        "bottleneck, summed from the `queue` table's per-interval counts (the whole 50 s step).",
        "Oscillation of a step's average (*ours*): its 100 ms series over the step's steady part,"
        " least-squares line removed; amplitude the sd of the rest, period the lag of the highest"
        f" autocorrelation after the first negative one (none below {PERIODIC_ACF}).",
        "Seeds: the paper shows one run per curve; quick 2, full 3 (*ours*) so verdicts can say "
        "whether they hold on every seed. Durations: queue-law runs are not given in the paper "
        "(*ours*, scale settings); steps of 50 s (§4).",
        "Overridable: every field of `chung2003.Choices` via `chung2003.study(**choices)`; grids "
        "and durations are scale settings.",
    )


def study(**choices: Any) -> Study:
    """Return the study with some of :class:`Choices` overridden (``study(rtt_spread=0.0)``).

    >>> study(rtt_spread=0.0).scales["quick"]["choices"].rtt_spread
    0.0
    >>> [f.id for f in study().findings]  # doctest: +NORMALIZE_WHITESPACE
    ['CC1', 'CC2', 'CC3', 'CC4', 'CC5', 'CC6', 'CC7', 'CC8', 'CC9', 'CC10', 'CC11', 'CC12',
     'CC13', 'CC14']
    """
    chosen = Choices(**choices)
    scales = {k: dataclasses.replace(s, settings={**s.settings, "choices": chosen})
              for k, s in make_scales().items()}  # fmt: skip
    return Study(
        name=NAME,
        title=TITLE,
        citation="Chung & Claypool 2003",
        scales=scales,
        experiments=EXPERIMENTS,
        findings=listed_findings(NAME, CRITERIA, extra=EXTRA_CLAIMS),
        tables=TABLES,
        figures=FIGURES,
        testbed=testbed_items(chosen),
        sections=(Section("The queue law's prediction for RED (Fig. 12)", ("law",),
                          prediction_section),),  # fmt: skip
        # Adaptive RED with ECN marking only below max_th (ns2-2003) has no exact ns-2.35 form.
        referee_approximates=True,
        model_gaps=MODEL_GAPS,
    )


MODEL_GAPS = {
    "CC6": "not identified: neither ns-2's RED marking rule (CC6's runs use the uniform "
           "marker) nor its ECN backoff at one segment (modelled in ns2-2003; the largest "
           "deviation moved from 22.4% to 22.3% against ns-2's 7.7%) explains it",
    "CC13": "a tie at the criterion's edge on 3 seeds: gentle RED's loss is below RED's at 300 "
            "flows on every seed in both simulators, but aqmlab's interval [-1.30, +0.006] "
            "points just includes 0 where ns-2's [-1.93, -0.39] does not",
}
"""Why aqmlab's verdict may differ from ns-2's (the report's to-do list; docs/ns2-referee.md)."""


STUDY = study()
__doc__ = with_testbed(__doc__, testbed_items())
