"""Christiansen, Jeffay, Ott, Smith, "Tuning RED for Web Traffic" (SIGCOMM 2000), reproduced.

The FIFO and RED experiments of §3–6.

``aqmlab reproduce christiansen2000 --scale quick|full`` (or :func:`reproduce`) calibrates load
against users on the unconstrained network, runs FIFO queues of 30, 120 and 240 packets, RED with
the paper's recommended parameters, and the unconstrained network at 80%, 98% and 110% load, then
writes ``report.md`` with the paper's Tables 1 and 3 beside ours, response-time CDFs like Figs. 7, 8
and 15, and verdicts for findings C1, C3, C4, C5, C6 and C12 (``reference/findings.md``).

The testbed and every choice the paper leaves open
--------------------------------------------------
From the paper (§3, ``reference/christiansen2000_setup.csv``):

- **Browser machines: 7** (Fig. 2 caption: "simulated users on 7 machines"). **Server machines: 7**
  — the paper does not say how many server machines there were; we take as many as browsers.
- **Hosts** on 10 Mbps interfaces with 50-packet drop-tail FIFOs (FreeBSD's default, §3.4):
  ``access.rate = "10Mbps"``, ``access.queue = "50p"``, no access delay. (The paper's hosts sit on
  switched 100 Mbps VLANs in front of the routers; the switches are not modelled.)
- **Bottleneck** 10 Mbps each way (100 Mbps for the unconstrained network), delay 0 (the delays are
  the dummynet pipes on the hosts).
- **Round-trip times** 7–137 ms per browser–server machine pair, mean 79 ms. The paper gives only
  the minimum, maximum and mean (the values are in its tech report [4]), so we use an explicit list
  of the 49 pair RTTs ``rtt_i = 7 + 130 · x_i^a`` ms on the even grid ``x_i = i/48`` with the
  exponent ``a`` (≈ 0.80) solved so the mean is 79 ms (:func:`pair_rtts_ms`). Each RTT becomes a
  one-way ``pair_delay`` of rtt/2 in each direction (dummynet delayed in-bound packets on both ends;
  only the sum matters). The sorted RTTs are spread over the 7 × 7 pairs as a Latin square (pair (c,
  s) gets sorted index ``7 · ((c + s) mod 7) + c``), so every browser machine and every server
  machine sees short, middle and long RTTs alike (:func:`pair_delays`).
- **TCP**: FreeBSD 2.2.8 (profile ``freebsd-2.2``: Reno, 16 KB windows, 500 ms ticks, …).
- **Users**: Mah's HTTP/1.0 model (``web-mah``) with at most 4 concurrent connections per user
  (``max_conns = 4``; the paper says the limit was set to mimic browsers but not its value) and
  think times truncated at 30 min (``think_max``; Mah's table has multi-hour gaps, users gone away).
  Each user starts at a random point of a think period (the engine draws the time left from the
  stationary residual of Mah's truncated think times), as in the steady state.
- **Queues**: drop-tail FIFO of 30, 120 and 240 packets, and RED ``{profile "altq", min_th 30,
  max_th 90, limit 480p, w_q 1/512, max_p 0.1}`` (ALTQ 1.2 on the routers; Table 3's recommended
  parameters), on ``[queue]`` (R1 → R2, servers → clients). The reverse direction is a drop-tail
  FIFO of 50 packets. On the unconstrained network (calibration and reference runs) ``[queue]`` is a
  drop-tail FIFO of 50 packets, FreeBSD's default (at 100 Mbps it hardly matters).
- **Loads** 80%, 98% and 110% of 10 Mbps, turned into users by our own calibration (run first, at
  the same scale; :mod:`aqmlab.calibrate`), and the unconstrained network at the same user counts
  for reference (as in Fig. 15). The paper also ran 50, 70 and 90% and queues of 60 and 190; we do
  not.
- **Durations**: the paper ran 90 minutes and discarded the first 20 (§3.4) — ``--scale full``.
  ``--scale quick`` runs 50 minutes and discards the first 30: 20 measured minutes still hold about
  160,000 request/response pairs per run at 80% load, enough for every figure here, and the whole
  reproduction (21 runs) takes under two minutes on two cores. Users start at random points of
  their think periods, so the offered load is near its steady state from the start (at 3,400 users
  on the unconstrained network, 8.3, 8.6, 8.3, 8.0, 7.9, 8.0 Mbit/s in successive 5-minute
  intervals); near or above capacity the queue still needs time to settle, so quick discards 30
  minutes and full keeps the paper's 20.
  One seed (the paper reports single runs).

Verdicts use fixed criteria (the constants below), written down before looking at any result and
never tuned: a finding that does not hold is reported as such, with its numbers.
"""

from __future__ import annotations

import copy
import csv
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import __version__
from aqmlab.calibrate import (
    Calibration,
    Fit,
    calibration_from_records,
    calibration_specs,
    unconstrained,
)
from aqmlab.papers import Reproduction, UnknownScale
from aqmlab.pool import BatchProgress, RunRecord, RunSpec, run_many
from aqmlab.scenario import Scenario

NAME = "christiansen2000"
TITLE = 'Christiansen, Jeffay, Ott, Smith, "Tuning RED for Web Traffic" (SIGCOMM 2000)'

# --- the testbed ---------------------------------------------------------------------------------
CLIENTS = 7
"""Browser machines (Fig. 2 caption)."""
SERVERS = 7
"""Server machines: not given in the paper; as many as browser machines (our choice)."""
HOST_RATE = "10Mbps"
HOST_QUEUE = "50p"
BOTTLENECK_RATE = "10Mbps"
LINK_RATE_BPS = 10e6
RTT_MIN_MS, RTT_MAX_MS, RTT_MEAN_MS = 7.0, 137.0, 79.0
TCP_PROFILE = "freebsd-2.2"
MAX_CONNS = 4
THINK_MAX = "30min"
REVERSE_QUEUE: dict[str, Any] = {"kind": "droptail", "limit": "50p"}
UNCONSTRAINED_QUEUE: dict[str, Any] = {"kind": "droptail", "limit": "50p"}
RED_LIMIT = 480
RED_QUEUE: dict[str, Any] = {
    "kind": "red",
    "profile": "altq",
    "min_th": 30,
    "max_th": 90,
    "limit": f"{RED_LIMIT}p",
    "w_q": "1/512",
    "max_p": 0.1,
}

# --- the experiments -----------------------------------------------------------------------------
LOADS = (0.80, 0.98, 1.10)
"""Offered loads, as fractions of the 10 Mbps link."""
FIFO_QUEUES = (30, 120, 240)
"""FIFO queue lengths, packets (Table 1 also has 60 and 190)."""
REFERENCE_FIFO = 120
"""The FIFO the paper compares RED with (Figs. 8 and 15: about 1.25 bandwidth-delay products)."""
PAPER_USERS = {1.0: 3400, 1.1: 3750}
"""Users the paper needed for 100% and 110% of 10 Mbps (§3.3)."""
PAPER_WITHIN_500MS = 90.0
"""Share of pairs within 500 ms on the unconstrained network, percent (§3.4, Fig. 6)."""

# --- verdict criteria (fixed in advance; never tuned) --------------------------------------------
LINEAR_R2 = 0.99
"""C1: "linear" means a least-squares R² of at least this."""
ABOUT_REL = 0.10
"""C1: "about 3,400 users" means within 10%."""
ABOUT_PTS = 5.0
"""C3: "about 90%" means within 5 percentage points."""
LITTLE_MEDIAN_REL = 0.15
"""C4, C12: "little difference" means medians within 15% of each other ..."""
LITTLE_SHARE_PTS = 5.0
"""... and shares within 1 s within 5 percentage points (the paper's Table 1 at 80%: 11%, 3.7)."""
TAIL_PCT = 30.0
"""C5: at 110%, about 30% or more of responses take over 3 s (mean over the FIFO queue sizes)."""
CROSS_EPS = 0.005
"""C6: two CDFs cross if each is above the other by more than this somewhere."""


@dataclass(frozen=True)
class Scale:
    """How long each run lasts, which user counts calibrate, and the seed."""

    name: str
    duration: str
    warmup: str
    duration_s: float
    calibration_users: tuple[int, ...]
    seed: int = 1
    reproduction: bool = True
    note: str = ""


SCALES: dict[str, Scale] = {
    "quick": Scale(
        "quick",
        "50min",
        "30min",
        3000.0,
        (500, 1200, 1900, 2600, 3300, 4000),
        note="50 simulated minutes per run, the first 30 discarded (the paper: 90 and 20)",
    ),
    "full": Scale(
        "full",
        "90min",
        "20min",
        5400.0,
        (500, 1000, 1500, 2000, 2500, 3000, 3500, 4000),
        note="the paper's 90 simulated minutes per run, the first 20 discarded",
    ),
    "smoke": Scale(
        "smoke",
        "20s",
        "5s",
        20.0,
        (500, 1375, 2250, 3125, 4000),
        reproduction=False,
        note="NOT A REPRODUCTION: 20-second runs that only exercise the pipeline (tests)",
    ),
}
PUBLIC_SCALES = ("quick", "full")


# --- round-trip times ----------------------------------------------------------------------------
def rtt_exponent(
    n: int = SERVERS * CLIENTS,
    low: float = RTT_MIN_MS,
    high: float = RTT_MAX_MS,
    mean: float = RTT_MEAN_MS,
) -> float:
    """Solve for ``a`` such that ``low + (high − low) · (i/(n−1))^a``, i = 0…n−1, has this mean.

    The mean falls as ``a`` grows, so bisection finds it.

    >>> round(rtt_exponent(), 4)
    0.8016
    >>> round(rtt_exponent(mean=72.0), 4)  # the midpoint: a straight line
    1.0
    """
    if not low < mean < high:
        raise ValueError(f"expected low < mean < high, got {low}, {mean}, {high}")
    grid = np.arange(n) / (n - 1)
    lo, hi = 1e-6, 1e3
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if float(np.mean(low + (high - low) * grid**mid)) > mean:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def pair_rtts_ms(
    n: int = SERVERS * CLIENTS,
    low: float = RTT_MIN_MS,
    high: float = RTT_MAX_MS,
    mean: float = RTT_MEAN_MS,
) -> list[float]:
    """List the ``n`` pair RTTs in ms, ascending: ``low + (high − low) · x_i^a``, ``x_i = i/(n−1)``.

    >>> rtts = pair_rtts_ms()
    >>> len(rtts), rtts[0], rtts[-1], round(sum(rtts) / len(rtts), 6)
    (49, 7.0, 137.0, 79.0)
    """
    a = rtt_exponent(n, low, high, mean)
    return [low + (high - low) * (i / (n - 1)) ** a for i in range(n)]


def pair_index(client: int, server: int, machines: int = CLIENTS) -> int:
    """Which sorted RTT pair (client, server) gets: a Latin square over ``machines`` × ``machines``.

    Every client and every server gets one RTT from each seventh of the sorted list.

    >>> sorted(pair_index(c, s) for c in range(7) for s in range(7)) == list(range(49))
    True
    >>> sorted(pair_index(0, s) // 7 for s in range(7))  # client 0: one RTT per band
    [0, 1, 2, 3, 4, 5, 6]
    """
    return machines * ((client + server) % machines) + client


def pair_delays(rtts_ms: Sequence[float] | None = None) -> list[str]:
    """``topology.pair_delay``: entry ``c · servers + s`` is half of pair (c, s)'s RTT, in ns.

    >>> delays = pair_delays()
    >>> len(delays), delays[pair_index(0, 0)], delays[0]
    (49, '3500000ns', '3500000ns')
    >>> ns = [int(d[:-2]) for d in delays]
    >>> min(ns) * 2e-6, max(ns) * 2e-6, round(sum(ns) * 2e-6 / 49, 3)
    (7.0, 137.0, 79.0)
    """
    rtts = list(rtts_ms) if rtts_ms is not None else pair_rtts_ms()
    out = []
    for c in range(CLIENTS):
        for s in range(SERVERS):
            out.append(f"{round(rtts[pair_index(c, s)] * 1e6 / 2)}ns")
    return out


# --- scenarios -----------------------------------------------------------------------------------
def testbed(
    users: int, scale: Scale, *, queue: Mapping[str, Any] | None = None, name: str = NAME
) -> Scenario:
    """The base testbed: 7 × 7 machines, 10 Mbps bottleneck, FreeBSD 2.2 TCP, Mah's users.

    >>> s = testbed(3400, SCALES["quick"])
    >>> s["topology"]["bottleneck"], s["traffic"][0]["users"], s["queue"]["kind"]
    ({'rate': '10Mbps', 'delay': '0ms'}, 3400, 'droptail')
    """
    return {
        "name": name,
        "seed": scale.seed,
        "duration": scale.duration,
        "warmup": scale.warmup,
        "topology": {
            "kind": "dumbbell",
            "servers": SERVERS,
            "clients": CLIENTS,
            "bottleneck": {"rate": BOTTLENECK_RATE, "delay": "0ms"},
            "access": {"rate": HOST_RATE, "delay": "0ms", "queue": HOST_QUEUE},
            "pair_delay": pair_delays(),
        },
        "queue": copy.deepcopy(dict(queue or UNCONSTRAINED_QUEUE)),
        "reverse_queue": copy.deepcopy(REVERSE_QUEUE),
        "tcp": {"profile": TCP_PROFILE},
        "traffic": [
            {
                "name": "browsers",
                "kind": "web-mah",
                "users": int(users),
                "max_conns": MAX_CONNS,
                "think_max": THINK_MAX,
            }
        ],
    }


@dataclass(frozen=True)
class Experiment:
    """One configuration: network (``fifo``, ``red``, ``unconstrained``), queue and load."""

    network: str
    queue: int | None
    load: float

    @property
    def load_pct(self) -> int:
        """The load in percent."""
        return round(self.load * 100)

    @property
    def key(self) -> str:
        """The name of its run directory (and scenario), e.g. ``fifo-q120-load098``.

        >>> Experiment("red", 480, 1.1).key, Experiment("unconstrained", None, 0.8).key
        ('red-q480-load110', 'unconstrained-load080')
        """
        queue = f"-q{self.queue:03d}" if self.queue is not None else ""
        return f"{self.network}{queue}-load{self.load_pct:03d}"

    @property
    def label(self) -> str:
        """How the tables and figures name it.

        >>> Experiment("fifo", 30, 0.8).label, Experiment("red", 480, 0.8).label
        ('FIFO 30', 'RED 480 (30/90)')
        """
        if self.network == "fifo":
            return f"FIFO {self.queue}"
        if self.network == "red":
            return f"RED {self.queue} ({RED_QUEUE['min_th']}/{RED_QUEUE['max_th']})"
        return "unconstrained"


def experiments() -> list[Experiment]:
    """Every experiment of the reproduction, by load: FIFO queues, RED, the unconstrained network.

    >>> [e.key for e in experiments()][:5]
    ['fifo-q030-load080', 'fifo-q120-load080', 'fifo-q240-load080', 'red-q480-load080', \
'unconstrained-load080']
    >>> len(experiments())
    15
    """
    out: list[Experiment] = []
    for load in LOADS:
        out.extend(Experiment("fifo", q, load) for q in FIFO_QUEUES)
        out.append(Experiment("red", RED_LIMIT, load))
        out.append(Experiment("unconstrained", None, load))
    return out


def scenario_for(experiment: Experiment, users: int, scale: Scale) -> Scenario:
    """Build the scenario of one experiment with ``users`` users.

    >>> s = scenario_for(Experiment("red", 480, 0.98), 3300, SCALES["quick"])
    >>> s["name"], s["queue"]["min_th"], s["topology"]["bottleneck"]["rate"]
    ('christiansen2000-red-q480-load098', 30, '10Mbps')
    >>> scenario_for(Experiment("unconstrained", None, 0.98), 3300, SCALES["quick"])[
    ...     "topology"]["bottleneck"]["rate"]
    '100Mbps'
    """
    name = f"{NAME}-{experiment.key}"
    if experiment.network == "fifo":
        queue: dict[str, Any] = {"kind": "droptail", "limit": f"{experiment.queue}p"}
        return testbed(users, scale, queue=queue, name=name)
    if experiment.network == "red":
        return testbed(users, scale, queue=RED_QUEUE, name=name)
    return unconstrained(testbed(users, scale, name=name))


def calibration_base(scale: Scale) -> Scenario:
    """Build the testbed the calibration runs (made unconstrained by :mod:`aqmlab.calibrate`)."""
    return testbed(1, scale, name=f"{NAME}-calibration")


# --- results -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Row:
    """One experiment's numbers in the paper's terms (percentages, ms, KB/s of 1000 bytes)."""

    load_pct: int
    network: str
    queue: int | None
    users: int
    throughput_kBps: float
    drop_pct: float
    mean_queue_pkts: float
    median_ms: float
    pct_le_1s: float
    pct_1_2s: float
    pct_2_3s: float
    pct_gt_3s: float
    within_500ms_pct: float = math.nan
    p25_ms: float = math.nan
    p75_ms: float = math.nan
    requests: int = 0
    completed: int = 0
    measured_s: float = math.nan
    run: str = ""

    @property
    def experiment(self) -> Experiment:
        """The experiment this row measures."""
        return Experiment(self.network, self.queue, self.load_pct / 100)


def _num(value: Any, scale: float = 1.0) -> float:
    """Scale a summary number; NaN for null (no completed pairs)."""
    return math.nan if value is None else float(value) * scale


def row_from_summary(
    experiment: Experiment, users: int, summary: Mapping[str, Any], run: str
) -> Row:
    """Read one run's ``summary.json`` into a :class:`Row`.

    >>> s = {"bottleneck": {"throughput_bps": 9.5e6, "drop_rate": 0.031, "mean_queue_pkts": 84.8},
    ...      "meta": {"measured_s": 1200.0},
    ...      "requests": {"count": 10, "completed": 9, "median_s": 0.421, "share_0_1s": 0.812,
    ...                   "share_1_2s": 0.075, "share_2_3s": 0.052, "share_over_3s": 0.061,
    ...                   "within_500ms": 0.6, "p25_s": 0.2, "p75_s": 0.9}}
    >>> r = row_from_summary(Experiment("fifo", 120, 0.98), 3300, s, "x")
    >>> r.throughput_kBps, r.drop_pct, r.median_ms, r.pct_le_1s, r.pct_gt_3s
    (1187.5, 3.1, 421.0, 81.2, 6.1)
    """
    link = summary["bottleneck"]
    req = summary.get("requests") or {}
    return Row(
        load_pct=experiment.load_pct,
        network=experiment.network,
        queue=experiment.queue,
        users=int(users),
        throughput_kBps=float(link["throughput_bps"]) / 8 / 1000,
        drop_pct=float(link["drop_rate"]) * 100,
        mean_queue_pkts=float(link["mean_queue_pkts"]),
        median_ms=_num(req.get("median_s"), 1e3),
        pct_le_1s=_num(req.get("share_0_1s"), 100),
        pct_1_2s=_num(req.get("share_1_2s"), 100),
        pct_2_3s=_num(req.get("share_2_3s"), 100),
        pct_gt_3s=_num(req.get("share_over_3s"), 100),
        within_500ms_pct=_num(req.get("within_500ms"), 100),
        p25_ms=_num(req.get("p25_s"), 1e3),
        p75_ms=_num(req.get("p75_s"), 1e3),
        requests=int(req.get("count") or 0),
        completed=int(req.get("completed") or 0),
        measured_s=_num(summary.get("meta", {}).get("measured_s")),
        run=run,
    )


CDF_GRID_S = np.linspace(0.0, 10.0, 2001)
"""Response times at which CDFs are evaluated (5 ms steps to 10 s; the figures show 0–2 s)."""


def response_cdf(response_s: np.ndarray, grid: np.ndarray = CDF_GRID_S) -> np.ndarray:
    """Evaluate the empirical CDF of completed response times on ``grid``.

    >>> response_cdf(np.array([0.1, 0.2, 0.2, 3.0]), np.array([0.0, 0.2, 1.0, 5.0])).tolist()
    [0.0, 0.75, 0.75, 1.0]
    """
    times = np.sort(response_s[np.isfinite(response_s)])
    if times.size == 0:
        return np.full(grid.shape, np.nan)
    return np.searchsorted(times, grid, side="right") / times.size


def read_cdf(run_dir: Path) -> np.ndarray:
    """Read the response-time CDF of a run directory (completed pairs of its ``requests``)."""
    table = pd.read_parquet(run_dir / "requests.parquet", columns=["response_s", "completed"])
    done = table.loc[table["completed"] == 1, "response_s"].to_numpy(dtype=float)
    return response_cdf(done)


def retransmissions(run_dir: Path) -> dict[str, float]:
    """Summarise a run's retransmissions per request/response pair (cf. the paper's Table 5).

    Percentages of pairs with any retransmission (SYN, FIN or data), with a SYN retransmission,
    and of the pairs over 3 s, those with a SYN retransmission.
    """
    columns = ["response_s", "syn_rexmits", "fin_rexmits", "data_rexmits"]
    table = pd.read_parquet(run_dir / "requests.parquet", columns=columns)
    if table.empty:
        return {"any_pct": math.nan, "syn_pct": math.nan, "slow_syn_pct": math.nan}
    syn = table["syn_rexmits"] > 0
    anything = (table["syn_rexmits"] + table["fin_rexmits"] + table["data_rexmits"]) > 0
    slow = table["response_s"] > 3.0
    return {
        "any_pct": float(anything.mean() * 100),
        "syn_pct": float(syn.mean() * 100),
        "slow_syn_pct": float(syn[slow].mean() * 100) if slow.any() else math.nan,
    }


def load_swings(run_dir: Path, link_bps: float = LINK_RATE_BPS) -> dict[str, float]:
    """Measure how the offered load of an unconstrained run varies minute by minute.

    Mean and standard deviation of the per-minute throughput servers → clients (Mbit/s), and the
    minutes above ``link_bps`` out of all.
    """
    link = pd.read_parquet(run_dir / "link.parquet")
    forward = link[link["direction"] == "forward"]
    minutes = forward.groupby(forward["t_s"] // 60)["throughput_bps"].mean()
    return {
        "mean_mbps": float(minutes.mean() / 1e6),
        "sd_mbps": float(minutes.std() / 1e6),
        "above": float((minutes > link_bps).sum()),
        "minutes": float(len(minutes)),
    }


# --- the paper's tables --------------------------------------------------------------------------
def reference_dir() -> Path | None:
    """``../shared/reference`` beside the repository (or the working directory), if it exists."""
    repo = Path(__file__).resolve().parents[3]
    candidates = (repo.parent / "shared" / "reference", Path.cwd().parent / "shared" / "reference")
    for candidate in candidates:
        if (candidate / "christiansen2000_table1_fifo.csv").is_file():
            return candidate
    return None


@dataclass(frozen=True)
class PaperRow:
    """A published row of Table 1 (FIFO) or Table 3 (RED)."""

    load_pct: int
    network: str
    queue: int
    throughput_kBps: float
    drop_pct: float
    mean_queue_pkts: float
    median_ms: float
    pct_le_1s: float
    pct_1_2s: float
    pct_2_3s: float
    pct_gt_3s: float


def read_paper_rows(directory: Path | None) -> list[PaperRow] | None:
    """Tables 1 and 3 from ``christiansen2000_table{1_fifo,3_red}.csv``; ``None`` if missing."""
    if directory is None:
        return None
    rows: list[PaperRow] = []
    for network, file in (("fifo", "table1_fifo"), ("red", "table3_red")):
        path = directory / f"christiansen2000_{file}.csv"
        if not path.is_file():
            return None
        table = pd.read_csv(path, comment="#")
        for r in table.itertuples(index=False):
            rows.append(
                PaperRow(
                    int(r.load_pct),
                    network,
                    int(r.queue_len_pkts),
                    float(r.throughput_KBps),
                    float(r.drop_pct),
                    float(r.mean_queue_pkts),
                    float(r.median_response_ms),
                    float(r.pct_le_1s),
                    float(r.pct_1_to_2s),
                    float(r.pct_2_to_3s),
                    float(r.pct_gt_3s),
                )  # fmt: skip
            )
    return rows


def read_paper_requests(directory: Path | None) -> dict[int, int]:
    """Table 2: requests in a 70-minute interval on the unconstrained network, by load (percent)."""
    if directory is None:
        return {}
    path = directory / "christiansen2000_table2_requests.csv"
    if not path.is_file():
        return {}
    table = pd.read_csv(path, comment="#")
    return {int(r.load_pct): int(r.requests) for r in table.itertuples(index=False)}


# --- the table -----------------------------------------------------------------------------------
TABLE_COLUMNS = (
    "Load %", "Queue", "Source", "KB/s", "% drop", "Mean queue (pkts)", "Median resp. (ms)",
    "% ≤ 1 s", "1 < % ≤ 2 s", "2 < % ≤ 3 s", "% > 3 s",
)  # fmt: skip

_NETWORK_ORDER = {"fifo": 0, "red": 1, "unconstrained": 2}


def _fmt(value: float, digits: int) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f}"


def _cells(r: Row | PaperRow) -> list[str]:
    return [
        _fmt(r.throughput_kBps, 0),
        _fmt(r.drop_pct, 1),
        _fmt(r.mean_queue_pkts, 1),
        _fmt(r.median_ms, 0),
        _fmt(r.pct_le_1s, 1),
        _fmt(r.pct_1_2s, 1),
        _fmt(r.pct_2_3s, 1),
        _fmt(r.pct_gt_3s, 1),
    ]


def table_rows(rows: Sequence[Row], paper: Sequence[PaperRow] | None) -> list[list[str]]:
    """Lay out our rows in the paper's format, each with the published row for its load and queue.

    ``paper`` ``None``: ours only.

    >>> ours = [Row(98, "fifo", 120, 3300, 1169.0, 3.14, 84.8, 421.4, 81.2, 7.5, 5.2, 6.1)]
    >>> paper = [PaperRow(98, "fifo", 120, 1169, 3.1, 84.8, 421, 81.2, 7.5, 5.2, 6.1)]
    >>> for line in table_rows(ours, paper): print(line)
    ['98', 'FIFO 120', 'ours', '1169', '3.1', '84.8', '421', '81.2', '7.5', '5.2', '6.1']
    ['98', 'FIFO 120', 'paper', '1169', '3.1', '84.8', '421', '81.2', '7.5', '5.2', '6.1']
    """
    published = {(p.load_pct, p.network, p.queue): p for p in (paper or [])}
    out: list[list[str]] = []
    ordered = sorted(rows, key=lambda r: (r.load_pct, _NETWORK_ORDER[r.network], r.queue or 0))
    for r in ordered:
        head = [str(r.load_pct), r.experiment.label]
        out.append([*head, "ours", *_cells(r)])
        match = published.get((r.load_pct, r.network, r.queue or -1))
        if match is not None:
            out.append([*head, "paper", *_cells(match)])
    return out


def markdown_table(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    """Render a GitHub-flavoured markdown table.

    >>> print(markdown_table(["a", "b"], [["1", "2"]]))
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out.extend("| " + " | ".join(line) + " |" for line in lines)
    return "\n".join(out)


# --- verdicts ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """A finding's verdict (``holds``, ``does not hold``, ``not run``) and the numbers behind it."""

    id: str
    claim: str
    verdict: str
    evidence: str


CLAIMS = {
    "C1": "Offered load on the unconstrained network grows linearly with users; about 3,400 "
    "users offer 10 Mbps.",
    "C2": "The generated traffic is bursty (requests and bytes per 1-s interval vary widely).",
    "C3": "Unconstrained network: about 90% of request/response pairs complete within 500 ms.",
    "C4": "FIFO: at loads of 80% and below, the response-time distribution changes little with "
    "load, and little with queue size 30–240.",
    "C5": "FIFO: response times degrade sharply from 90% to 110% load; at 110%, about 30% or more "
    "of responses take over 3 s.",
    "C6": "FIFO at 98%: a queue of 120 instead of 30 raises the median but shrinks the tail (the "
    "CDFs cross); drops fall as the queue grows.",
    "C7": "FIFO: a queue of 120–190 is a reasonable choice up to capacity; at 110%, queues beyond "
    "120 make things worse.",
    "C8": "RED (30,90): at 50% load drops are at most about 0.01%; response times degrade only "
    "above 70% load.",
    "C9": "RED: (5,15) is clearly worse than (30,90) at 90% and 98%; (30,90) and (60,180) are "
    "best.",
    "C10": "RED: max_p = 0.25 hurts at 90–110%; w_q and max_p mostly move the tail of the CDF.",
    "C11": "RED with recommended parameters: queue limits 120, 160 and 480 give similar results.",
    "C12": "RED vs FIFO: at 90% and below little difference; at 98% a well-tuned RED helps short "
    "responses; at 110% both are bad.",
    "C13": "At 98%, the RED settings with the highest utilization give worse response times than "
    "the best-response settings.",
    "C14": "RED (5,15) makes many more connections retransmit than (60,180).",
}
NOT_RUN = {
    "C2": "not judged: needs a criterion for 'bursty' and per-second request counts (the "
    "requests table has them: `start_s`)",
    "C7": "needs queues of 190 and 90% load",
    "C8": "needs RED at 50% and 70% load",
    "C9": "needs RED (5,15) and (60,180)",
    "C10": "needs RED with other w_q and max_p",
    "C11": "needs RED with limits 120 and 160",
    "C13": "needs Table 4's RED settings",
    "C14": "needs RED (5,15) and (60,180)",
}


def _holds(ok: bool) -> str:
    return "holds" if ok else "does not hold"


def _find(rows: Sequence[Row], network: str, queue: int | None, load_pct: int) -> Row | None:
    for r in rows:
        if (r.network, r.queue, r.load_pct) == (network, queue, load_pct):
            return r
    return None


def little_difference(a: Row, b: Row) -> bool:
    """Tell whether two rows differ little: medians within 15%, shares ≤ 1 s within 5 points.

    >>> a = Row(80, "fifo", 30, 2700, 990, 1.1, 6.5, 246, 92.2, 4.5, 2.1, 1.3)
    >>> b = Row(80, "fifo", 240, 2700, 981, 0.0, 25.8, 265, 95.9, 3.1, 0.5, 0.5)
    >>> little_difference(a, b)
    True
    """
    lo, hi = sorted((a.median_ms, b.median_ms))
    return hi <= lo * (1 + LITTLE_MEDIAN_REL) and abs(a.pct_le_1s - b.pct_le_1s) <= LITTLE_SHARE_PTS


def verdict_c1(fit: Fit, link_rate_bps: float = LINK_RATE_BPS) -> Verdict:
    """Judge C1: R² ≥ 0.99 and the users for 100% within 10% of 3,400.

    >>> verdict_c1(Fit(2900.0, 0.0, 0.998)).verdict
    'holds'
    >>> verdict_c1(Fit(2000.0, 0.0, 0.998)).verdict  # 5,000 users for 10 Mbps
    'does not hold'
    """
    users = fit.users_for(link_rate_bps)
    paper = PAPER_USERS[1.0]
    ok = fit.r2 >= LINEAR_R2 and abs(users - paper) <= ABOUT_REL * paper
    evidence = (
        f"R² = {fit.r2:.4f} (criterion ≥ {LINEAR_R2}); {users:,} users for 10 Mbps vs the "
        f"paper's {paper:,} ({(users - paper) / paper:+.1%}; criterion within ±{ABOUT_REL:.0%}); "
        f"slope {fit.slope:,.0f} bit/s per user, intercept {fit.intercept / 1e3:,.0f} kbit/s"
    )
    return Verdict("C1", CLAIMS["C1"], _holds(ok), evidence)


def verdict_c3(rows: Sequence[Row]) -> Verdict:
    """Judge C3: every unconstrained run has 85–95% of its pairs within 500 ms.

    >>> r = Row(98, "unconstrained", None, 3300, 1200, 0, 0, 243, 98.6, 1.2, 0.1, 0.1, 89.0)
    >>> verdict_c3([r]).verdict, verdict_c3([]).verdict
    ('holds', 'not run')
    """
    runs = sorted((r for r in rows if r.network == "unconstrained"), key=lambda r: r.load_pct)
    if not runs:
        return Verdict("C3", CLAIMS["C3"], "not run", "no unconstrained runs")
    ok = all(abs(r.within_500ms_pct - PAPER_WITHIN_500MS) <= ABOUT_PTS for r in runs)
    shares = ", ".join(f"{r.within_500ms_pct:.1f}% at {r.load_pct}% load" for r in runs)
    evidence = (
        f"within 500 ms: {shares} (paper ~{PAPER_WITHIN_500MS:.0f}%, Fig. 6; criterion "
        f"{PAPER_WITHIN_500MS - ABOUT_PTS:.0f}–{PAPER_WITHIN_500MS + ABOUT_PTS:.0f}%)"
    )
    return Verdict("C3", CLAIMS["C3"], _holds(ok), evidence)


def verdict_c4(rows: Sequence[Row]) -> Verdict:
    """Judge C4 (the queue-size part, at 80%): every pair of FIFO queue sizes differs little.

    >>> mk = lambda q, med, le1: Row(80, "fifo", q, 2700, 990, 0, 0, med, le1, 0, 0, 0)
    >>> verdict_c4([mk(30, 246, 92.2), mk(120, 264, 95.8), mk(240, 265, 95.9)]).verdict
    'holds'
    >>> verdict_c4([mk(30, 246, 92.2), mk(120, 400, 95.8), mk(240, 265, 95.9)]).verdict
    'does not hold'
    """
    runs = [r for q in FIFO_QUEUES if (r := _find(rows, "fifo", q, 80)) is not None]
    if len(runs) < 2:
        return Verdict("C4", CLAIMS["C4"], "not run", "needs FIFO runs at 80%")
    ok = all(little_difference(a, b) for i, a in enumerate(runs) for b in runs[i + 1 :])
    medians = ", ".join(f"{r.queue}: {r.median_ms:.0f} ms" for r in runs)
    shares = ", ".join(f"{r.queue}: {r.pct_le_1s:.1f}%" for r in runs)
    evidence = (
        f"80% load, medians {medians}; ≤ 1 s {shares} (criterion: medians within "
        f"{LITTLE_MEDIAN_REL:.0%}, ≤ 1 s shares within {LITTLE_SHARE_PTS:.0f} points). Only the "
        "queue-size part is judged: loads below 80% were not run"
    )
    return Verdict("C4", CLAIMS["C4"], _holds(ok), evidence)


def verdict_c5(rows: Sequence[Row]) -> Verdict:
    """Judge C5: median and > 3 s share rise 98% → 110% for every FIFO queue; ≥ 30% over 3 s.

    The > 3 s share at 110% is averaged over the queue sizes.

    >>> mk = lambda load, q, med, gt3: Row(load, "fifo", q, 3300, 1160, 0, 0, med, 0, 0, 0, gt3)
    >>> rows = [mk(98, 30, 329, 8.6), mk(110, 30, 1538, 29.8), mk(98, 120, 421, 6.1),
    ...         mk(110, 120, 1600, 30.6), mk(98, 240, 555, 5.0), mk(110, 240, 1917, 35.0)]
    >>> verdict_c5(rows).verdict
    'holds'
    >>> verdict_c5([mk(98, 30, 329, 8.6), mk(110, 30, 700, 12.0)]).verdict
    'does not hold'
    """
    pairs = []
    for q in FIFO_QUEUES:
        a, b = _find(rows, "fifo", q, 98), _find(rows, "fifo", q, 110)
        if a is not None and b is not None:
            pairs.append((q, a, b))
    if not pairs:
        return Verdict("C5", CLAIMS["C5"], "not run", "needs FIFO runs at 98% and 110%")
    rises = all(b.median_ms > a.median_ms and b.pct_gt_3s > a.pct_gt_3s for _, a, b in pairs)
    tail = float(np.mean([b.pct_gt_3s for _, _, b in pairs]))
    ok = rises and tail >= TAIL_PCT
    detail = "; ".join(
        f"FIFO {q}: median {a.median_ms:.0f} → {b.median_ms:.0f} ms, > 3 s "
        f"{a.pct_gt_3s:.1f}% → {b.pct_gt_3s:.1f}%"
        for q, a, b in pairs
    )
    evidence = (
        f"98% → 110%: {detail}; mean > 3 s share at 110%: {tail:.1f}% (criterion: both rise for "
        f"every queue, and ≥ {TAIL_PCT:.0f}%). 90% was not run"
    )
    return Verdict("C5", CLAIMS["C5"], _holds(ok), evidence)


def cdfs_cross(a: np.ndarray, b: np.ndarray, eps: float = CROSS_EPS) -> float | None:
    """Find where CDF ``a`` first goes from above ``b`` to below it by more than ``eps``.

    In seconds on :data:`CDF_GRID_S`; ``None`` if they do not cross that way.

    >>> grid_a = np.where(CDF_GRID_S < 1.0, 0.8, 0.9)
    >>> grid_b = np.where(CDF_GRID_S < 1.0, 0.7, 0.95)
    >>> cdfs_cross(grid_a, grid_b)
    1.0
    >>> cdfs_cross(grid_a, grid_a) is None
    True
    """
    diff = a - b
    above = np.flatnonzero(diff > eps)
    if above.size == 0:
        return None
    below = np.flatnonzero((diff < -eps) & (np.arange(diff.size) > above[0]))
    return float(CDF_GRID_S[below[0]]) if below.size else None


def verdict_c6(rows: Sequence[Row], cdfs: Mapping[str, np.ndarray] | None = None) -> Verdict:
    """Judge C6 at 98%: FIFO 120 vs 30 raises the median, lowers the > 3 s share; drops fall.

    Drops must fall 30 → 120 → 240. Where the CDFs cross is reported when they are given.

    >>> mk = lambda q, drop, med, gt3: Row(98, "fifo", q, 3300, 1160, drop, 0, med, 0, 0, 0, gt3)
    >>> verdict_c6([mk(30, 6.7, 329, 8.6), mk(120, 3.1, 421, 6.1), mk(240, 1.4, 555, 5.0)]).verdict
    'holds'
    >>> verdict_c6([mk(30, 6.7, 329, 8.6), mk(120, 3.1, 300, 6.1), mk(240, 1.4, 555, 5.0)]).verdict
    'does not hold'
    """
    f30, f120, f240 = (_find(rows, "fifo", q, 98) for q in (30, 120, 240))
    if f30 is None or f120 is None:
        return Verdict("C6", CLAIMS["C6"], "not run", "needs FIFO 30 and 120 at 98%")
    median_up = f120.median_ms > f30.median_ms
    tail_down = f120.pct_gt_3s < f30.pct_gt_3s
    drops = [r for r in (f30, f120, f240) if r is not None]
    drops_fall = all(a.drop_pct > b.drop_pct for a, b in zip(drops, drops[1:], strict=False))
    ok = median_up and tail_down and drops_fall
    cross = ""
    if cdfs is not None:
        k30, k120 = f30.experiment.key, f120.experiment.key
        if k30 in cdfs and k120 in cdfs:
            at = cdfs_cross(cdfs[k30], cdfs[k120])
            cross = (
                f"; the CDFs cross at {at:.2f} s" if at is not None else "; the CDFs do not cross"
            )
    evidence = (
        f"98% load: median FIFO 30 {f30.median_ms:.0f} ms vs 120 {f120.median_ms:.0f} ms "
        f"({'up' if median_up else 'not up'}); > 3 s {f30.pct_gt_3s:.1f}% vs "
        f"{f120.pct_gt_3s:.1f}% ({'down' if tail_down else 'not down'}){cross}; drops "
        + " → ".join(f"{r.drop_pct:.2f}% ({r.queue})" for r in drops)
        + f" ({'falling' if drops_fall else 'not falling'})"
    )
    return Verdict("C6", CLAIMS["C6"], _holds(ok), evidence)


def verdict_c12(rows: Sequence[Row]) -> Verdict:
    """Judge C12, RED against FIFO 120, at 80%, 98% and 110%.

    Little difference at 80% (the criterion of C4); at 98% RED's 25th percentile and median below
    FIFO's; at 110% both medians above 1 s.

    >>> mk = lambda net, q, load, p25, med: Row(load, net, q, 3300, 1160, 0, 0, med, 90, 0, 0, 0,
    ...                                          p25_ms=p25)
    >>> rows = [mk("fifo", 120, 80, 120, 264), mk("red", 480, 80, 118, 260),
    ...         mk("fifo", 120, 98, 200, 421), mk("red", 480, 98, 180, 345),
    ...         mk("fifo", 120, 110, 600, 1600), mk("red", 480, 110, 650, 1846)]
    >>> verdict_c12(rows).verdict
    'holds'
    """
    parts: list[tuple[bool, str]] = []
    for load in (80, 98, 110):
        fifo = _find(rows, "fifo", REFERENCE_FIFO, load)
        red = _find(rows, "red", RED_LIMIT, load)
        if fifo is None or red is None:
            return Verdict("C12", CLAIMS["C12"], "not run", f"needs FIFO 120 and RED at {load}%")
        if load == 80:
            ok = little_difference(fifo, red)
            text = (
                f"80%: medians FIFO {fifo.median_ms:.0f} / RED {red.median_ms:.0f} ms, ≤ 1 s "
                f"{fifo.pct_le_1s:.1f} / {red.pct_le_1s:.1f}% ({'little' if ok else 'not little'}"
                " difference)"
            )
        elif load == 98:
            ok = red.p25_ms < fifo.p25_ms and red.median_ms < fifo.median_ms
            text = (
                f"98%: 25th percentile FIFO {fifo.p25_ms:.0f} / RED {red.p25_ms:.0f} ms, median "
                f"{fifo.median_ms:.0f} / {red.median_ms:.0f} ms, 75th {fifo.p75_ms:.0f} / "
                f"{red.p75_ms:.0f} ms (RED {'helps' if ok else 'does not help'} short responses)"
            )
        else:
            ok = fifo.median_ms > 1000 and red.median_ms > 1000
            text = (
                f"110%: medians FIFO {fifo.median_ms:.0f} / RED {red.median_ms:.0f} ms, > 3 s "
                f"{fifo.pct_gt_3s:.1f} / {red.pct_gt_3s:.1f}% ({'both' if ok else 'not both'} bad: "
                "median > 1 s)"
            )
        parts.append((ok, text))
    evidence = "; ".join(t for _, t in parts) + ". 80% stands in for '90% and below'"
    return Verdict("C12", CLAIMS["C12"], _holds(all(ok for ok, _ in parts)), evidence)


def verdicts(
    rows: Sequence[Row], fit: Fit | None, cdfs: Mapping[str, np.ndarray] | None = None
) -> list[Verdict]:
    """Judge every C finding from our data where the experiments decide it, else ``not run``."""
    decided: dict[str, Verdict] = {
        "C3": verdict_c3(rows),
        "C4": verdict_c4(rows),
        "C5": verdict_c5(rows),
        "C6": verdict_c6(rows, cdfs),
        "C12": verdict_c12(rows),
    }
    decided["C1"] = (
        verdict_c1(fit) if fit is not None else Verdict("C1", CLAIMS["C1"], "not run", "")
    )
    out = []
    for cid, claim in CLAIMS.items():
        out.append(decided.get(cid) or Verdict(cid, claim, "not run", NOT_RUN.get(cid, "")))
    return out


# --- figures -------------------------------------------------------------------------------------
def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_calibration(calibration: Calibration, path: Path) -> None:
    """Offered load against users with the fitted line, like the paper's Fig. 2."""
    plt = _pyplot()
    fit = calibration.fit
    users = np.array([p.users for p in calibration.points], dtype=float)
    load = np.array([p.throughput_bps for p in calibration.points]) / 1e6
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(users, load, "o", label="measured (unconstrained, 100 Mbps)")
    xs = np.linspace(0, max(users.max(), 4000) * 1.05, 50)
    ax.plot(xs, (fit.slope * xs + fit.intercept) / 1e6, "-", label=f"fit, R² = {fit.r2:.4f}")
    for load_frac, n in PAPER_USERS.items():
        ax.plot([n], [load_frac * 10], "x", color="black", ms=8)
    ax.plot([], [], "x", color="black", label="paper: 3,400 and 3,750 users")
    ax.axhline(10, color="grey", lw=0.5, ls="--")
    ax.set_xlabel("emulated users")
    ax.set_ylabel("offered load, servers → clients (Mbit/s)")
    ax.set_title("Calibration: offered load vs users")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_cdf_panels(
    panels: Sequence[tuple[str, Sequence[tuple[str, np.ndarray]]]], title: str, path: Path
) -> None:
    """Response-time CDFs on 0–2 s, one panel per entry of ``panels`` (title, [(label, cdf)])."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), sharey=True)
    axes = np.atleast_1d(axes)
    shown = CDF_GRID_S <= 2.0
    for ax, (panel_title, curves) in zip(axes, panels, strict=True):
        for label, cdf in curves:
            ax.plot(CDF_GRID_S[shown] * 1e3, cdf[shown] * 100, label=label)
        ax.set_title(panel_title)
        ax.set_xlabel("response time (ms)")
        ax.set_xlim(0, 2000)
        ax.set_ylim(0, 100)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    axes[0].set_ylabel("cumulative % of request/response pairs")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- the reproduction ----------------------------------------------------------------------------
def get_scale(name: str) -> Scale:
    """Look a scale up by name; :class:`aqmlab.papers.UnknownScale` if there is none."""
    if name not in SCALES:
        raise UnknownScale(
            f'no scale "{name}" for {NAME} (choose one of: {", ".join(PUBLIC_SCALES)})'
        )
    return SCALES[name]


def _cost(users: int, scale: Scale) -> float:
    return float(users) * scale.duration_s


def reproduce(
    scale: str = "quick",
    out: str | Path | None = None,
    *,
    jobs: int | None = None,
    progress: bool = True,
) -> Reproduction:
    """Run the calibration and the experiments (reusing finished runs in ``out``), write the report.

    ``out`` defaults to ``runs/christiansen2000-<scale>``. Returns where the report is and a short
    summary to print.
    """
    chosen = get_scale(scale)
    out = Path(out) if out is not None else Path("runs") / f"{NAME}-{chosen.name}"
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    exps = experiments()
    calib_specs = calibration_specs(
        calibration_base(chosen), chosen.calibration_users, seed=chosen.seed
    )
    # Until the calibration is done, price the experiments with the paper's users for their loads.
    guess = sum(_cost(round(3400 * e.load), chosen) for e in exps)
    with BatchProgress(f"{NAME} {chosen.name}", enabled=progress) as bar:
        calib_records = run_many(
            calib_specs, out / "calibration", jobs=jobs, progress=bar, label="calibration",
            later_cost=guess,
        )  # fmt: skip
        calibration = calibration_from_records(
            calib_records, link_rate_bps=LINK_RATE_BPS, targets=tuple(sorted({1.0, 1.1, *LOADS}))
        )
        calibration.save(out / "calibration")
        users = {e.key: calibration.users_for_load(e.load) for e in exps}
        specs = [
            RunSpec(
                e.key,
                scenario_for(e, users[e.key], chosen),
                seed=chosen.seed,
                cost=_cost(users[e.key], chosen),
            )
            for e in exps
        ]
        records = run_many(specs, out / "runs", jobs=jobs, progress=bar, label="experiments")
    runs_wall = time.monotonic() - started
    report = write_report(out, chosen, calibration, exps, records, calib_records, runs_wall)
    all_records = [*calib_records, *records]
    return Reproduction(
        paper=NAME,
        scale=chosen.name,
        out=out,
        report=report.path,
        summary=report.summary,
        wall_s=time.monotonic() - started,
        runs=sum(not r.reused for r in all_records),
        reused=sum(r.reused for r in all_records),
    )


@dataclass
class _Report:
    path: Path
    summary: list[str] = field(default_factory=list)


def _write_csv(path: Path, header: Sequence[str], lines: Sequence[Sequence[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(lines)


def write_report(
    out: Path,
    scale: Scale,
    calibration: Calibration,
    exps: Sequence[Experiment],
    records: Sequence[RunRecord],
    calib_records: Sequence[RunRecord],
    runs_wall_s: float,
) -> _Report:
    """Analyse the runs and write ``report.md``, CSVs and figures into ``out``."""
    figures = out / "figures"
    figures.mkdir(exist_ok=True)
    by_key = {r.spec.key: r for r in records}
    rows = [
        row_from_summary(
            e,
            by_key[e.key].spec.scenario["traffic"][0]["users"],
            by_key[e.key].summary,
            by_key[e.key].directory.name,
        )
        for e in exps
    ]
    cdfs = {e.key: read_cdf(by_key[e.key].directory) for e in exps}
    fit = calibration.fit
    found = verdicts(rows, fit, cdfs)
    ref = reference_dir()
    paper_rows = read_paper_rows(ref)
    paper_requests = read_paper_requests(ref)

    # CSVs
    row_fields = list(Row.__dataclass_fields__)
    _write_csv(out / "results.csv", row_fields, [[getattr(r, f) for f in row_fields] for r in rows])
    table = table_rows(rows, paper_rows)
    _write_csv(out / "table.csv", TABLE_COLUMNS, table)
    _write_csv(
        out / "calibration.csv",
        ["users", "throughput_bps", "fit_bps", "run"],
        [[p.users, p.throughput_bps, fit.load_bps(p.users), p.run] for p in calibration.points],
    )
    shown = CDF_GRID_S <= 2.0
    _write_csv(
        out / "cdf.csv",
        ["run", "network", "queue", "load_pct", "t_s", "cdf"],
        [
            [e.key, e.network, e.queue if e.queue is not None else "", e.load_pct, f"{t:.3f}", c]
            for e in exps
            for t, c in zip(CDF_GRID_S[shown], cdfs[e.key][shown], strict=True)
        ],
    )
    _write_csv(
        out / "verdicts.csv",
        ["id", "verdict", "claim", "evidence"],
        [[v.id, v.verdict, v.claim, v.evidence] for v in found],
    )

    # Figures
    plot_calibration(calibration, figures / "calibration.png")
    loads = sorted({e.load_pct for e in exps})

    def curve(network: str, queue: int | None, load: int) -> tuple[str, np.ndarray]:
        e = Experiment(network, queue, load / 100)
        return e.label, cdfs[e.key]

    plot_cdf_panels(
        [(f"{load}% load", [curve("fifo", q, load) for q in FIFO_QUEUES]) for load in loads],
        "FIFO queue sizes (cf. the paper's Fig. 7)",
        figures / "fifo_queue_sizes.png",
    )
    plot_cdf_panels(
        [
            (
                f"FIFO {REFERENCE_FIFO}",
                [(f"{load}% load", curve("fifo", REFERENCE_FIFO, load)[1]) for load in loads]
                + [("unconstrained, 98% load", curve("unconstrained", None, 98)[1])],
            ),
        ],  # fmt: skip
        f"FIFO {REFERENCE_FIFO} at different loads (cf. Fig. 8)",
        figures / "fifo120_loads.png",
    )
    plot_cdf_panels(
        [
            (
                f"{load}% load",
                [
                    curve("fifo", REFERENCE_FIFO, load),
                    curve("red", RED_LIMIT, load),
                    curve("unconstrained", None, load),
                ],
            )
            for load in loads
        ],
        "FIFO vs RED vs the unconstrained network (cf. Fig. 15)",
        figures / "fifo_red_unconstrained.png",
    )

    # report.md
    lines: list[str] = []
    add = lines.append
    add(f"# Reproduction: {TITLE}")
    add("")
    if not scale.reproduction:
        add(f"> **{scale.note}.** The numbers below test the plumbing, not the paper.")
        add("")
    runs_done = sum(not r.reused for r in [*calib_records, *records])
    runs_reused = len(calib_records) + len(records) - runs_done
    add(
        f"aqmlab {__version__}, scale `{scale.name}` ({scale.note}); seed {scale.seed}; "
        f"{len(calib_records) + len(records)} runs ({runs_done} run now, {runs_reused} reused "
        f"from earlier), {runs_wall_s:.0f} s wall for the runs. Run directories: "
        "`calibration/` and `runs/` (summary.json + Parquet tables each)."
    )
    add("")
    add("## Testbed")
    add("")
    add("Every choice, and where it comes from (§ = the paper; *ours* = not given by the paper):")
    add("")
    rtts = pair_rtts_ms()
    for item in (
        f"{CLIENTS} browser machines (Fig. 2 caption) and {SERVERS} server machines (*ours*: the "
        "paper does not give the number of server machines).",
        "Hosts on 10 Mbps interfaces with 50-packet drop-tail FIFOs (§3.1, §3.4); the "
        "switched 100 Mbps VLANs are not modelled.",
        "Bottleneck 10 Mbps each way, delay 0 (§3.1); 100 Mbps for the unconstrained "
        "network (§3.3).",
        f"Per-pair RTTs {RTT_MIN_MS:g}–{RTT_MAX_MS:g} ms, mean {RTT_MEAN_MS:g} ms (§3.1). The "
        "paper gives only these three numbers, so (*ours*) the 49 pair RTTs are "
        f"`7 + 130·(i/48)^a` ms, i = 0…48, a = {rtt_exponent():.4f} (solved for the mean): "
        f"{', '.join(f'{r:.1f}' for r in rtts[:4])}, …, {', '.join(f'{r:.1f}' for r in rtts[-3:])}"
        " ms; each is a one-way `pair_delay` of rtt/2 per direction, spread over the 7 × 7 pairs "
        "as a Latin square so every machine sees short and long RTTs.",
        f"TCP: FreeBSD 2.2.8 (`{TCP_PROFILE}`: Reno, 16 KB windows, 500 ms timer ticks) (§3.1).",
        f"Users: Mah's HTTP/1.0 model (§3.2), `max_conns = {MAX_CONNS}` (*ours*: the paper gives "
        f"no value), think times ≤ `{THINK_MAX}` (*ours*); each user starts at a random point of "
        "a think period (the stationary residual), as in the steady state.",
        "FIFO (drop-tail) queues of " + ", ".join(str(q) for q in FIFO_QUEUES) + " packets "
        '(Table 1); RED `{profile = "altq", min_th = 30, max_th = 90, limit = "480p", '
        'w_q = "1/512", max_p = 0.1}` (ALTQ; Table 3) — both on the servers → clients queue. '
        "Reverse queue: drop-tail 50p. Unconstrained network: drop-tail 50p (*ours*).",
        "Loads " + ", ".join(f"{round(x * 100)}%" for x in LOADS) + " of 10 Mbps, set through "
        "our own calibration (below), as the paper did (§3.3–3.4).",
        f"Durations: {scale.duration} per run, the first {scale.warmup} discarded; the paper ran "
        "90 min and discarded 20 (§3.4). Users start at random points of their think periods, "
        "so the offered load is near its steady state from the start; near or above capacity "
        "the queue still needs time to settle, which the warm-up covers.",
        "Metrics: throughput in KB/s of 1000 bytes on the bottleneck (servers → clients), all "
        "bytes on the wire; drop % of packets arriving at the bottleneck queue; mean queue in "
        "packets (time average); response time of each request/response pair from the client's "
        "SYN to when it holds the whole reply and the server's FIN (§3.2), over the pairs started "
        "after the warm-up that completed (shares are of completed pairs).",
    ):
        add(f"- {item}")
    add("")

    # (a) calibration
    add("## (a) Calibration (finding C1)")
    add("")
    add(
        "Offered load = bottleneck throughput servers → clients on the unconstrained network "
        f"(100 Mbps), {scale.duration} runs, first {scale.warmup} discarded."
    )
    add("")
    add(
        markdown_table(
            ["users", "offered load (Mbit/s)", "fit (Mbit/s)"],
            [
                [
                    f"{p.users:,}",
                    f"{p.throughput_bps / 1e6:.3f}",
                    f"{fit.load_bps(p.users) / 1e6:.3f}",
                ]
                for p in calibration.points
            ],
        )
    )
    add("")
    add(
        f"Least-squares line: load = {fit.slope:,.1f} bit/s × users {fit.intercept:+,.0f} bit/s; "
        f"R² = {fit.r2:.5f}."
    )
    add("")
    target_lines = []
    for load in sorted({1.0, 1.1, *LOADS}):
        paper = PAPER_USERS.get(load)
        target_lines.append(
            [
                f"{round(load * 100)}%",
                f"{load * 10:.1f}",
                f"{calibration.users_for_load(load):,}",
                f"{paper:,}" if paper else "—",
            ]
        )
    add(markdown_table(["load", "Mbit/s", "users (ours)", "users (paper)"], target_lines))
    add("")
    add("![calibration](figures/calibration.png)")
    add("")

    # (b) table
    add("## (b) FIFO and RED at 80%, 98% and 110% load (cf. Tables 1 and 3)")
    add("")
    if paper_rows is None:
        add(
            "_The paper's tables (`../shared/reference/christiansen2000_table1_fifo.csv`, "
            "`christiansen2000_table3_red.csv`) were not found: our rows only._"
        )
    else:
        add(
            "Each of our rows is followed by the paper's row for the same load and queue, where "
            "the paper has one (Table 1: FIFO; Table 3: RED (30, 90), which has no 80% row)."
        )
    add("")
    add(markdown_table(TABLE_COLUMNS, table))
    add("")
    add(
        markdown_table(
            ["run", "users", "requests", "completed", "measured s"],
            [
                [
                    r.experiment.key,
                    f"{r.users:,}",
                    f"{r.requests:,}",
                    f"{r.completed:,}",
                    f"{r.measured_s:.0f}",
                ]
                for r in rows
            ],  # fmt: skip
        )
    )
    add("")

    # (c) figures
    add("## (c) Response-time distributions")
    add("")
    add("![FIFO queue sizes](figures/fifo_queue_sizes.png)")
    add("")
    add("![FIFO 120 at different loads](figures/fifo120_loads.png)")
    add("")
    add("![FIFO vs RED vs unconstrained](figures/fifo_red_unconstrained.png)")
    add("")

    # (d) unconstrained
    add("## (d) The unconstrained network (finding C3)")
    add("")
    unc_lines = []
    for r in sorted((r for r in rows if r.network == "unconstrained"), key=lambda r: r.load_pct):
        per_min = r.requests / (r.measured_s / 60) if r.measured_s else math.nan
        per_request = r.throughput_kBps * r.measured_s / r.requests if r.requests else math.nan
        paper_n = paper_requests.get(r.load_pct)
        # the paper's bytes per request: its nominal load over the 70 minutes of Table 2
        paper_kB = r.load_pct / 100 * LINK_RATE_BPS / 8e3 * 70 * 60
        paper_per_request = paper_kB / paper_n if paper_n else None
        unc_lines.append(
            [
                f"{r.load_pct}%",
                f"{r.users:,}",
                f"{r.within_500ms_pct:.1f}%",
                f"~{PAPER_WITHIN_500MS:.0f}% (3,500 users)",
                f"{per_min:,.0f}",
                f"{paper_n / 70:,.0f}" if paper_n else "—",
                f"{per_request:.1f}",
                f"{paper_per_request:.1f}" if paper_per_request else "—",
            ]
        )
    add(
        markdown_table(
            [
                "load",
                "users",
                "within 500 ms",
                "paper (Fig. 6)",
                "requests/min",
                "paper (Table 2)",
                "KB/request",
                "paper",
            ],
            unc_lines,
        )  # fmt: skip
    )
    add("")
    add(
        "KB/request: bytes on the bottleneck (servers → clients, headers included) per "
        "request/response pair; the paper's is its nominal load times 70 minutes over Table 2's "
        "count. Pairs that carry more bytes each take longer, so this bears on every response-time "
        "comparison."
    )
    add("")

    # (f) diagnostics: computed here, written after the verdicts
    diagnostics: list[str] = []
    dadd = diagnostics.append
    dadd("## (f) Diagnostics: load swings and retransmissions")
    dadd("")
    dadd(
        "Offered load minute by minute on the unconstrained network (servers → clients; a load "
        "above 10 Mbit/s would overflow the 10 Mbps link for that minute):"
    )
    dadd("")
    swing_lines = []
    for e in exps:
        if e.network == "unconstrained":
            sw = load_swings(by_key[e.key].directory)
            swing_lines.append(
                [f"{e.load_pct}%", f"{sw['mean_mbps']:.2f}", f"{sw['sd_mbps']:.2f}",
                 f"{sw['above']:.0f} of {sw['minutes']:.0f}"]
            )  # fmt: skip
    swing_header = ["load", "mean Mbit/s", "sd per minute", "minutes > 10 Mbit/s"]
    dadd(markdown_table(swing_header, swing_lines))
    dadd("")
    dadd(
        "Retransmissions per request/response pair (both ends; cf. the paper's Table 5, which "
        "is for other RED settings): a retransmitted SYN costs FreeBSD's 6 s initial timeout."
    )
    dadd("")
    rexmit_lines = []
    for e in exps:
        if e.network != "unconstrained":
            rx = retransmissions(by_key[e.key].directory)
            rexmit_lines.append(
                [f"{e.load_pct}%", e.label, f"{rx['any_pct']:.1f}%", f"{rx['syn_pct']:.1f}%",
                 _fmt(rx["slow_syn_pct"], 0) + "%"]
            )  # fmt: skip
    dadd(
        markdown_table(
            [
                "load",
                "queue",
                "pairs retransmitting",
                "with a SYN retransmitted",
                "of pairs > 3 s: with a SYN retransmitted",
            ],
            rexmit_lines,
        )  # fmt: skip
    )
    dadd("")

    # (e) verdicts
    add("## (e) Verdicts")
    add("")
    add(
        "Computed from the runs above with fixed criteria (module constants of "
        "`aqmlab.papers.christiansen2000`); never tuned."
    )
    add("")
    add(
        markdown_table(
            ["ID", "claim", "verdict", "evidence"],
            [[v.id, v.claim, f"**{v.verdict}**", v.evidence] for v in found],
        )
    )
    add("")
    lines.extend(diagnostics)
    add(
        "Files: `table.csv` (the table above), `results.csv` (every number per run), "
        "`calibration.csv` and `calibration/calibration.json`, `cdf.csv` (CDFs, 0–2 s), "
        "`verdicts.csv`, `figures/*.png`."
    )
    add("")
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")

    summary = []
    if not scale.reproduction:
        summary.append(f"{scale.note}")
    summary.append(
        f"calibration: {fit.slope:,.0f} bit/s per user {fit.intercept / 1e3:+,.0f} kbit/s, "
        f"R² {fit.r2:.4f}; users for 100% {calibration.users_for_load(1.0):,} (paper 3,400), "
        f"110% {calibration.users_for_load(1.1):,} (paper 3,750)"
    )
    for v in found:
        if v.verdict != "not run":
            summary.append(f"{v.id}: {v.verdict}")
    return _Report(path, summary)


__all__: list[str] = [
    "NAME",
    "SCALES",
    "TITLE",
    "Experiment",
    "Row",
    "Verdict",
    "experiments",
    "pair_delays",
    "pair_rtts_ms",
    "reproduce",
    "scenario_for",
    "testbed",
    "verdicts",
]
