"""``modern-aqm``: CoDel, FQ-CoDel and PIE beside FIFO and RED on two RED papers' testbeds.

``aqmlab reproduce modern-aqm --scale quick|full`` is a comparison study, **not a reproduction**:
no paper ran these disciplines on these testbeds, so there is nothing to match. Its findings are
questions, each with a criterion written down before any result, judged over seeds like the
papers' findings (means over seeds, whether each seed alone agrees, 95% Student-t intervals in the
tables).

Two testbeds, built by the papers' modules (never copied): ``web``, Christiansen et al.'s
(:mod:`aqmlab.papers.christiansen2000`; users per load from this study's own calibration, the
paper's method, :func:`christiansen2000.load_axis`), and ``mix``, Zhang & Qiu's
(:mod:`aqmlab.papers.zhang2001`); :data:`TESTBED` details both (listed at the end of this text,
as in the report).

Each under five disciplines (:data:`AQMS`) and two TCPs (:data:`TCP_ARMS`). The TCP is not the
papers' (FreeBSD 2.2, ns-2 of 2000): the question is how today's AQMs treat today's senders, so
both arms are Linux-like (``tcp.profile = "linux"``: initial window 10, SACK, RTO min 200 ms),
differing only in the congestion control — Reno or CUBIC — a controlled comparison.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from aqmlab.calibrate import unconstrained
from aqmlab.papers import christiansen2000 as web_paper
from aqmlab.papers import zhang2001 as mix_paper
from aqmlab.plot import Panel, cdf_band_curves, run_cdf
from aqmlab.stats import jain, mean_ci
from aqmlab.study.design import Factor, Level, factorial
from aqmlab.study.model import (
    Column,
    Criterion,
    Data,
    Experiment,
    FigureSpec,
    Scale,
    Study,
    TableSpec,
    Verdict,
    seedwise_judge,
)
from aqmlab.study.report import with_testbed
from aqmlab.sweeps import Axis, Sweep

NAME = "modern-aqm"
TITLE = (
    "Modern AQM (CoDel, FQ-CoDel, PIE) vs FIFO and RED on Christiansen's and Zhang & Qiu's "
    "testbeds"
)

# --- the arms ------------------------------------------------------------------------------------
TCP_ARMS: dict[str, dict[str, Any]] = {
    "reno": {"profile": "linux", "congestion_control": "reno"},
    "cubic": {"profile": "linux"},
}
"""The TCP arms, name → the ``[tcp]`` keys they set: the ``linux`` profile (IW 10, SACK, RTO min
200 ms, …) with Reno or with its own CUBIC (RFC 9438, HyStart), so the arms differ only in
congestion control."""
CODEL = {"kind": "codel", "target": "5ms", "interval": "100ms"}
PIE = {"kind": "pie", "target": "15ms"}
FQ_CODEL = {"kind": "fq_codel"}
CODEL_TARGET_MS, PIE_TARGET_MS = 5.0, 15.0


def aqms(fifo: Mapping[str, Any], red: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the five disciplines of a testbed: its paper's FIFO and RED, then the modern three.

    >>> list(aqms({"kind": "droptail"}, {"kind": "red"}))
    ['fifo', 'red', 'codel', 'fq_codel', 'pie']
    """
    return {"fifo": dict(fifo), "red": dict(red), "codel": dict(CODEL),
            "fq_codel": dict(FQ_CODEL), "pie": dict(PIE)}  # fmt: skip


WEB_AQMS = aqms({"kind": "droptail", "limit": f"{web_paper.REFERENCE_FIFO}p"},
                web_paper.RECOMMENDED.queue)
"""Christiansen's FIFO of 120 packets (the one the paper compares RED with) and its recommended
RED (ALTQ, min_th 30, max_th 90, w_q 1/512, max_p 0.1, limit 480)."""
MIX_RED = "r1"
MIX_AQMS = aqms(mix_paper.queue("dt"), mix_paper.queue(MIX_RED))
"""Zhang & Qiu's drop-tail buffer of 2·BW·D (39 packets) and their RED ``r1`` (gentle, min_th B/6,
max_th 3·min_th, max_p 0.1, w_q 0.002, no ECN): the paper recommends no setting; ``r1`` is the
first of Table I (ours)."""
AQMS = tuple(WEB_AQMS)
LOADS = (90, 98)
MIX_WEB, MIX_FTP = 10, 5
"""Zhang & Qiu's Fig. 4 mix: 10 web sessions and 5 FTP flows (their 6 telnet sessions left out)."""
MIX_TCP_KEYS = ("mss", "rwnd", "overhead")
"""What the mix keeps of Zhang & Qiu's TCP: the network's 500-byte packets, the 100 KB window and
the sender's random processing time (the testbed's, not the TCP's)."""

# --- criteria (fixed before any result; never tuned) ---------------------------------------------
CODEL_FACTOR = 2.0
"""M2: CoDel's mean queueing delay at most this times its 5 ms target."""
PIE_BAND = (0.5, 1.5)
"""M3: "near" PIE's 15 ms target = within [0.5, 1.5] × 15 ms."""
GOODPUT_REL = 0.05
"""M5: an AQM's total goodput in the mix within 5% of FIFO's."""
CDF_GRID_S = np.linspace(0.0, 3.0, 601)
"""Response times at which CDFs are evaluated (5 ms steps to 3 s)."""

SCALES = {
    "quick": Scale("quick", 2, "web: 12 simulated minutes per run, the first 4 discarded; mix: "
                   "100 s, the first 25 discarded; 2 seeds", settings={
                       "web": {"duration": "12min", "warmup": "4min",
                               "calibration_users": (800, 1800, 2800, 3800)},
                       "mix": dataclasses.replace(mix_paper.Choices(), duration="100s",
                                                  warmup="25s")}),
    "full": Scale("full", 5, "web: Christiansen's 90 simulated minutes, the first 20 discarded; "
                  "mix: Zhang & Qiu's 200 s, the last 150 s measured; 5 seeds", settings={
                      "web": {"duration": "90min", "warmup": "20min",
                              "calibration_users": (500, 1200, 1900, 2600, 3300, 4000)},
                      "mix": mix_paper.Choices()}),
    "smoke": Scale("smoke", 1, "NOT A STUDY: seconds-long runs that only exercise the pipeline "
                   "(tests)", reproduction=False, settings={
                       "web": {"duration": "20s", "warmup": "5s",
                               "calibration_users": (500, 2000, 4000)},
                       "mix": dataclasses.replace(mix_paper.Choices(), duration="8s",
                                                  warmup="2s")}),
}  # fmt: skip


# --- experiments ---------------------------------------------------------------------------------
def web_scale(scale: Scale) -> Scale:
    """Return the scale as Christiansen's testbed reads it (``duration``, ``warmup``)."""
    return Scale(scale.name, scale.seeds, scale.note, scale.reproduction, scale["web"])


def mix_scale(scale: Scale) -> Scale:
    """Return the scale as Zhang & Qiu's testbed reads it (``choices``)."""
    return Scale(scale.name, scale.seeds, scale.note, scale.reproduction,
                 {"choices": scale["mix"]})  # fmt: skip


def factor(name: str, path: str | Sequence[str], levels: Mapping[str, Any]) -> Factor:
    """Return a factor whose levels each set the same value at every path in ``path``.

    >>> factor("aqm", ("queue", "reverse_queue"), {"pie": PIE}).levels[0].sets["reverse_queue"]
    {'kind': 'pie', 'target': '15ms'}
    """
    paths = (path,) if isinstance(path, str) else tuple(path)
    return Factor(name, tuple(Level(label, {p: value for p in paths})
                              for label, value in levels.items()))  # fmt: skip


def _web_tcp(arm: str) -> dict[str, Any]:
    return dict(TCP_ARMS[arm])


def _mix_tcp(arm: str) -> dict[str, Any]:
    paper = mix_paper.tcp()
    return {**{k: paper[k] for k in MIX_TCP_KEYS}, **TCP_ARMS[arm]}


CALIBRATION_ARM = "reno"
"""The arm the web calibration runs with (offered load on an unconstrained network hardly
depends on the congestion control)."""


def _calibration(scale: Scale, _: Data) -> Sweep:
    base = unconstrained({**web_paper.testbed(web_scale(scale)), "tcp": _web_tcp(CALIBRATION_ARM)})
    return Sweep(base, (Axis(web_paper.USERS, scale["web"]["calibration_users"], name="users"),))


def _web(scale: Scale, data: Data) -> Sweep:
    loads = web_paper.load_axis(data, LOADS, calibrated_by="web_calibration")
    load = Factor("load", tuple(Level(label, {web_paper.USERS: users})
                                for label, users in zip(loads.labels, loads.values, strict=True)))
    tcp = factor("tcp", "tcp", {arm: _web_tcp(arm) for arm in TCP_ARMS})
    return factorial(web_paper.testbed(web_scale(scale)),
                     (factor("aqm", "queue", WEB_AQMS), tcp, load))  # fmt: skip


def _mix(scale: Scale, _: Data) -> Sweep:
    c = scale["mix"]
    traffic = [mix_paper.web(c, "web", MIX_WEB), mix_paper.ftp(c, "ftp", MIX_FTP, server=MIX_WEB)]
    base = mix_paper.testbed(mix_scale(scale), traffic, servers=MIX_WEB + MIX_FTP)
    tcp = factor("tcp", "tcp", {arm: _mix_tcp(arm) for arm in TCP_ARMS})
    return factorial(base, (factor("aqm", ("queue", "reverse_queue"), MIX_AQMS), tcp))


EXPERIMENTS = (
    Experiment("web_calibration", "offered load vs users, Christiansen's testbed unconstrained",
               _calibration),
    Experiment("web", "Christiansen's web users at 90% and 98% load × 5 disciplines × TCPs",
               _web, after=("web_calibration",)),
    Experiment("mix", "Zhang & Qiu's 10 web sessions + 5 FTP × 5 disciplines × TCPs", _mix),
)  # fmt: skip


# --- collected data as tidy frames ---------------------------------------------------------------
def forward_sojourn(rows: pd.DataFrame) -> pd.DataFrame:
    """One run's mean queueing delay (ms) at the forward bottleneck, from the ``queue`` table.

    The mean of ``mean_sojourn_s`` weighted by ``departures_pkts`` (a reducer for
    :meth:`Data.table`).

    >>> q = pd.DataFrame({"direction": ["forward", "forward", "reverse"],
    ...                   "departures_pkts": [1, 3, 5], "mean_sojourn_s": [0.004, 0.008, 1.0]})
    >>> forward_sojourn(q)["queue_delay_ms"].round(6).tolist()
    [7.0]
    """
    fwd = rows[rows["direction"].astype(str) == "forward"]
    n = fwd["departures_pkts"].astype(float)
    total = float((fwd["mean_sojourn_s"].fillna(0.0) * n).sum())
    mean = 1e3 * total / n.sum() if n.sum() > 0 else float("nan")
    return pd.DataFrame({"queue_delay_ms": [mean]})


def _runs(data: Data, experiment: str) -> pd.DataFrame:
    """One row per run: aqm, tcp, (load, a number), seed, run, loss and queueing delay."""
    s = data.runs(experiment)
    keys = [k for k in ("aqm", "tcp", "load") if k in s]
    rows = s[keys].assign(seed=s["seed"], run=s["run"].astype(str))
    rows["loss_pct"] = s["forward.drop_rate"].astype(float) * 100
    delay = data.table(experiment, "queue",
                       columns=["direction", "departures_pkts", "mean_sojourn_s"],
                       reduce=forward_sojourn)  # fmt: skip
    delay = delay.assign(run=delay["run"].astype(str)).set_index("run")["queue_delay_ms"]
    return rows.join(delay, on="run")


def web_rows(data: Data) -> pd.DataFrame:
    """Return one row per run of ``web``: keys and measures.

    The median and 90th-percentile response time (ms), goodput (the bottleneck's throughput,
    Mb/s), loss (%) and queueing delay (ms).
    """

    def compute() -> pd.DataFrame:
        s = data.summary("web")
        rows = _runs(data, "web")
        rows["median_ms"] = s["requests.median_s"].to_numpy(dtype=float) * 1e3
        rows["p90_ms"] = s["requests.p90_s"].to_numpy(dtype=float) * 1e3
        rows["goodput_mbps"] = s["forward.throughput_bps"].to_numpy(dtype=float) / 1e6
        return rows

    return data.frame("web-rows", compute)


def mix_rows(data: Data) -> pd.DataFrame:
    """Return one row per run of ``mix``: keys and measures.

    Web and FTP goodput (kbit/s, summed over the group's flows), Jain's index of the FTP flows'
    goodputs, loss (%) and queueing delay (ms).
    """

    def compute() -> pd.DataFrame:
        conns = data.table("mix", "connections", columns=["group", "goodput_bps"])
        conns = conns.assign(run=conns["run"].astype(str), group=conns["group"].astype(str))
        by_run = conns.groupby("run")
        ftp = conns[conns["group"] == "ftp"].groupby("run")["goodput_bps"]
        web = conns[conns["group"] == "web"].groupby("run")["goodput_bps"]
        per_run = pd.DataFrame({"web_kbps": web.sum() / 1e3, "ftp_kbps": ftp.sum() / 1e3,
                                "total_kbps": by_run["goodput_bps"].sum() / 1e3,
                                "ftp_jain": ftp.apply(lambda g: jain(g.to_numpy(dtype=float)))})
        return _runs(data, "mix").join(per_run, on="run")

    return data.frame("mix-rows", compute)


# --- findings ------------------------------------------------------------------------------------
def _means(frame: pd.DataFrame, keys: Sequence[str], value: str) -> dict[tuple[str, ...], float]:
    """Mean over seeds of ``value`` per group of ``keys``, keyed by the groups' labels."""
    stats = mean_ci(frame, value, by=list(keys))
    return {tuple(str(r[k]) for k in keys): float(r[f"{value}_mean"])
            for r in stats.to_dict("records")}  # fmt: skip


def _arms(frame: pd.DataFrame) -> list[str]:
    return sorted(frame["tcp"].unique())


def check_m1(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
    """At 98% load, FQ-CoDel's median response time below FIFO's, under every TCP arm."""
    m = _means(frame[frame["load"] == 98], ("aqm", "tcp"), "median_ms")
    parts, ok = [], True
    for arm in _arms(frame):
        fq, fifo = m[("fq_codel", arm)], m[("fifo", arm)]
        ok &= fq < fifo
        parts.append(f"{arm}: FQ-CoDel {fq:.0f} ms vs FIFO {fifo:.0f} ms")
    return ok, "median response time at 98%: " + "; ".join(parts), {"median_ms": m}


def _delay_check(aqm: str, low_ms: float, high_ms: float) -> Callable[[pd.DataFrame], Any]:
    def check(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
        keys = [k for k in ("testbed", "tcp", "load") if k in frame]
        m = _means(frame[frame["aqm"] == aqm], keys, "queue_delay_ms")
        ok = all(low_ms <= v <= high_ms for v in m.values())
        text = ", ".join(f"{'/'.join(k)} {v:.1f} ms" for k, v in m.items())
        return ok, f"{aqm} mean queueing delay (want {low_ms:g}–{high_ms:g} ms): {text}", {
            "queue_delay_ms": {"/".join(k): v for k, v in m.items()}}

    return check


def delay_test(aqm: str) -> Callable[..., Verdict]:
    """Return the test of M2 and M3: ``aqm``'s mean queueing delay in [``low_ms``, ``high_ms``]."""

    def test(data: Data, *, low_ms: float, high_ms: float) -> Verdict:
        return seedwise_judge(both, _delay_check(aqm, low_ms, high_ms))(data)

    return test


def both(data: Data) -> pd.DataFrame:
    """Return the runs the delay findings judge: ``web`` at 98% load, and ``mix``."""
    web = web_rows(data)
    web = web[web["load"] == 98].assign(testbed="web")
    return pd.concat([web, mix_rows(data).assign(testbed="mix", load="-")], ignore_index=True)


def check_m4(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
    """In the mix, the FTP flows' Jain index under FQ-CoDel above FIFO's, every TCP arm."""
    m = _means(frame, ("aqm", "tcp"), "ftp_jain")
    ok = all(m[("fq_codel", a)] > m[("fifo", a)] for a in _arms(frame))
    text = "; ".join(f"{a}: FQ-CoDel {m[('fq_codel', a)]:.3f} vs FIFO {m[('fifo', a)]:.3f}"
                     for a in _arms(frame))  # fmt: skip
    return ok, "FTP Jain index: " + text, {"ftp_jain": m}


def check_m5(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
    """In the mix, every AQM's total goodput within 5% of FIFO's, every TCP arm."""
    m = _means(frame, ("aqm", "tcp"), "total_kbps")
    ratios = {(q, a): m[(q, a)] / m[("fifo", a)] for (q, a) in m if q != "fifo"}
    ok = all(abs(r - 1) <= GOODPUT_REL for r in ratios.values())
    text = ", ".join(f"{q}/{a} {r:.3f}" for (q, a), r in ratios.items())
    return ok, "total goodput / FIFO's: " + text, {"ratio": ratios}


def check_m6(frame: pd.DataFrame) -> tuple[bool, str, dict[str, Any]]:
    """CoDel, FQ-CoDel and PIE each below FIFO's mean queueing delay, every testbed and arm."""
    m = _means(frame, ("testbed", "tcp", "aqm"), "queue_delay_ms")
    worse = [f"{t}/{a}/{q} {m[(t, a, q)]:.1f} ≥ FIFO {m[(t, a, 'fifo')]:.1f} ms"
             for (t, a, q) in m if q in ("codel", "fq_codel", "pie")
             and m[(t, a, q)] >= m[(t, a, "fifo")]]  # fmt: skip
    fifo = ", ".join(f"{t}/{a} {v:.1f} ms" for (t, a, q), v in m.items() if q == "fifo")
    text = f"FIFO {fifo}; " + ("; ".join(worse) if worse else "every modern AQM below it")
    return not worse, text, {"queue_delay_ms": {"/".join(k): v for k, v in m.items()}}


CLAIMS = {
    "M1": "FQ-CoDel gives a lower median web response time than FIFO at 98% load",
    "M2": "CoDel's mean queueing delay is within 2× of its 5 ms target",
    "M3": "PIE's mean queueing delay is near its 15 ms target",
    "M4": "FQ-CoDel shares the link more fairly among long-lived flows than FIFO",
    "M5": "No AQM costs goodput",
    "M6": "CoDel, FQ-CoDel and PIE each cut the standing queue below FIFO's",
}
"""The study's questions (no paper's claims: the findings list has none of this study's)."""
CRITERIA: dict[str, Criterion] = {
    "M1": Criterion(
        ("web",),
        "on Christiansen's testbed at 98% load, the mean over seeds of the median response time "
        "of completed request/response pairs is lower under FQ-CoDel than under the FIFO of 120 "
        "packets, for every TCP arm",
        seedwise_judge(web_rows, check_m1),
    ),
    "M2": Criterion(
        ("web", "mix"),
        "the forward bottleneck's mean sojourn time (the queue table's `mean_sojourn_s` weighted "
        f"by `departures_pkts`) is at most {CODEL_FACTOR:g} × 5 ms under CoDel, on Christiansen's "
        "testbed at 98% and in Zhang & Qiu's mix, for every TCP arm",
        delay_test("codel"),
        thresholds={"low_ms": 0.0, "high_ms": CODEL_FACTOR * CODEL_TARGET_MS},
    ),
    "M3": Criterion(
        ("web", "mix"),
        f"the mean sojourn time under PIE is within [{PIE_BAND[0]:g}, {PIE_BAND[1]:g}] × 15 ms, "
        "on Christiansen's testbed at 98% and in the mix, for every TCP arm",
        delay_test("pie"),
        thresholds={"low_ms": PIE_BAND[0] * PIE_TARGET_MS, "high_ms": PIE_BAND[1] * PIE_TARGET_MS},
    ),
    "M4": Criterion(
        ("mix",),
        "in the mix, Jain's index of the 5 FTP flows' goodputs is higher under FQ-CoDel than "
        "under drop-tail, for every TCP arm",
        seedwise_judge(mix_rows, check_m4),
    ),
    "M5": Criterion(
        ("mix",),
        "in the mix, the total goodput of all connections under each of RED, CoDel, FQ-CoDel "
        f"and PIE is within {GOODPUT_REL:.0%} of drop-tail's, for every TCP arm",
        seedwise_judge(mix_rows, check_m5),
    ),
    "M6": Criterion(
        ("web", "mix"),
        "each of the three has a lower mean sojourn time than the testbed's FIFO, on "
        "Christiansen's testbed at 98% and in the mix, for every TCP arm",
        seedwise_judge(both, check_m6),
    ),
}
"""Each question's criterion, written before any result."""
FINDINGS = tuple(CRITERIA[fid].finding(fid, claim) for fid, claim in CLAIMS.items())


# --- tables and figures --------------------------------------------------------------------------
INTERVALS = "Means over seeds ± the half-width of the 95% Student-t interval."
WEB_TABLE = TableSpec(
    "web", "Christiansen's testbed: response times, goodput, loss and queueing delay", ("web",),
    ("load", "tcp", "aqm"),
    (Column("median (ms)", "median_ms", digits=0), Column("90th pct (ms)", "p90_ms", digits=0),
     Column("goodput (Mb/s)", "goodput_mbps", digits=2), Column("loss (%)", "loss_pct", digits=2),
     Column("queueing delay (ms)", "queue_delay_ms", digits=1)),
    web_rows, note=f"{INTERVALS} Response times are of completed pairs; goodput is the forward "
    "bottleneck's throughput; loss is the share of packets arriving at it that it dropped; "
    "queueing delay is the mean sojourn time of the packets it sent.")  # fmt: skip
MIX_TABLE = TableSpec(
    "mix", "Zhang & Qiu's mix: goodput, fairness, loss and queueing delay", ("mix",),
    ("tcp", "aqm"),
    (Column("web (kbit/s)", "web_kbps", digits=0), Column("FTP (kbit/s)", "ftp_kbps", digits=0),
     Column("total (kbit/s)", "total_kbps", digits=0),
     Column("FTP Jain index", "ftp_jain", digits=3), Column("loss (%)", "loss_pct", digits=2),
     Column("queueing delay (ms)", "queue_delay_ms", digits=1)),
    mix_rows, note=f"{INTERVALS} Goodput summed over each group's connections; Jain's index "
    "over the 5 FTP flows; loss and queueing delay at the forward bottleneck. The web sessions' "
    "transfer times are not recorded by the engine (web-session groups), so this testbed has no "
    "response-time CDF.")  # fmt: skip


def response_panels(data: Data) -> list[Panel]:
    """One panel per (load, TCP arm): a response-time CDF per discipline, with its seed band."""
    completed = run_cdf("response_s", CDF_GRID_S)
    cdfs = data.table("web", "requests", columns=["completed", "response_s"], cache=False,
                      reduce=lambda rows: completed(rows[rows["completed"]]), typed=True)
    curves = cdf_band_curves(cdfs, by=["load", "tcp", "aqm"], x_scale=1e3, y_scale=100)
    panels = []
    for load in LOADS:
        for arm in TCP_ARMS:
            shown = tuple(dataclasses.replace(curves[(str(load), arm, q)], label=q)
                          for q in AQMS if (str(load), arm, q) in curves)  # fmt: skip
            panels.append(Panel(f"{load}% load, {arm}", shown, "response time (ms)",
                                "cumulative % of pairs", (0, 3000), (0, 100)))  # fmt: skip
    return panels


FIGURES = (
    FigureSpec("response_cdfs", "Response-time CDFs on Christiansen's testbed",
               "Christiansen et al. Figs. 8, 13: FIFO and RED only",
               ("web",), response_panels),
)

TESTBED = (
    "**Not a reproduction.** No paper ran CoDel, FQ-CoDel or PIE on these testbeds; the findings "
    "are questions whose criteria were written before any result.",
    "`web`: Christiansen et al.'s testbed as `christiansen2000` builds it (7 × 7 hosts, 10 Mbps "
    "Ethernet, RTTs 7–137 ms, Mah's web users, `max_conns` 4); loads 90% and 98% of the link, "
    "users from this study's calibration (`web_calibration`, the unconstrained network, the "
    f"`{CALIBRATION_ARM}` arm); reverse queue FreeBSD's 50-packet FIFO.",
    f"`mix`: Zhang & Qiu's network as `zhang2001` builds it (T1, 50 ms, 500-byte packets), "
    f"{MIX_WEB} web sessions + {MIX_FTP} FTP flows (their Fig. 4 mix without the telnet sessions, "
    "*ours*); the discipline on both directions, as the paper applies its schemes.",
    "FIFO: each paper's buffer (120 packets; 39 = 2·BW·D). RED: Christiansen's recommendation "
    f"(ALTQ (30, 90), limit 480); Zhang & Qiu recommend none, so `{MIX_RED}` (the first of their "
    "Table I, *ours*). CoDel: target 5 ms, interval 100 ms, limit 1000. FQ-CoDel: Linux's defaults "
    "(1024 flows, quantum 1514 B, 5 ms / 100 ms, ECN on, but the senders are not ECN-capable, so "
    "it drops). PIE: target 15 ms and Linux's other defaults.",
    "TCP: not the papers' (FreeBSD 2.2; ns-2 of 2000), which no deployed AQM meets today. Two "
    "Linux-like arms differing only in congestion control: `reno` = `profile = \"linux\"` with "
    "`congestion_control = \"reno\"`, `cubic` = `profile = \"linux\"` (CUBIC). The mix keeps the "
    "testbed's 500-byte segments, 100 KB window and sender processing jitter.",
    "Queueing delay is the forward bottleneck's mean sojourn time, from the queue table's "
    "`mean_sojourn_s` weighted by `departures_pkts`.",
)


def study() -> Study:
    """Return the study."""
    return Study(
        name=NAME,
        title=TITLE,
        scales=SCALES,
        experiments=EXPERIMENTS,
        findings=FINDINGS,
        tables=(WEB_TABLE, MIX_TABLE),
        figures=FIGURES,
        testbed=TESTBED,
        heading="Comparison study (not a reproduction: no paper to match)",
    )


STUDY = study()
__doc__ = with_testbed(__doc__, TESTBED)
