"""A live run beside the same scenario simulated (``aqmlab live --compare``).

One table of the measures both produce, with their differences.

The simulated twin runs the scenario with the ``linux`` TCP profile (:func:`simulated_twin`), the
profile written to model the kernel the live run uses. Both results have the same summary and
``queue`` table (the router is the engine's bottleneck) and a ``connections`` table with the same
columns for what the kernel reports.

>>> live = Result({"meta": {}, "forward": {"drop_rate": 0.011, "drops_pkts": 143, "marks_pkts": 0,
...                            "mean_queue_pkts": 91.6, "mean_queue_delay_s": 0.110,
...                            "utilization": 1.0}},
...               {"connections": {"goodput_bps": [5e6, 5e6], "data_rexmits": [20, 22]}})
>>> rows = compare(live, live)
>>> [(r["measure"], r["difference"]) for r in rows][:2]
[('goodput_bps', 0.0), ('jain', 0.0)]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from aqmlab.result import Result
from aqmlab.stats import jain, ks_distance

Measure = tuple[str, str, Callable[[Result], float]]


def _forward(key: str) -> Callable[[Result], float]:
    return lambda r: float(r.summary["forward"][key])


def _requests(key: str) -> Callable[[Result], float]:
    def read(r: Result) -> float:
        requests = r.summary.get("requests", {})
        value = requests.get(key)
        return math.nan if value is None or not requests.get("count") else float(value)

    return read


def _connections(column: str, reduce: Callable[[Any], float]) -> Callable[[Result], float]:
    def read(r: Result) -> float:
        values = r.table("connections")[column]
        return reduce(values) if len(values) else math.nan

    return read


MEASURES: list[Measure] = [
    ("goodput_bps", "total goodput of the TCP flows (bit/s)",
     _connections("goodput_bps", lambda v: float(v.sum()))),
    ("jain", "Jain's index of their goodputs",
     _connections("goodput_bps", lambda v: jain(list(v)))),
    ("utilization", "forward link utilization", _forward("utilization")),
    ("drops_pkts", "forward drops (packets)", _forward("drops_pkts")),
    ("drop_rate", "forward drop rate", _forward("drop_rate")),
    ("marks_pkts", "forward CE marks (packets)", _forward("marks_pkts")),
    ("mean_queue_pkts", "forward mean queue (packets)", _forward("mean_queue_pkts")),
    ("mean_queue_delay_s", "forward mean sojourn (s)", _forward("mean_queue_delay_s")),
    ("data_rexmits", "retransmitted data segments",
     _connections("data_rexmits", lambda v: float(v.sum()))),
    ("requests_completed", "web responses completed", _requests("completed")),
    ("response_median_s", "median response time (s)", _requests("median_s")),
    ("response_p90_s", "90th percentile response time (s)", _requests("p90_s")),
    ("response_mean_s", "mean response time (s)", _requests("mean_s")),
]  # fmt: skip
"""Each compared measure: its name, what it is, and how to read it from a result."""


def relative(live: float, simulated: float) -> float:
    """Return ``(simulated − live) / live``: how far the simulation is from the kernel.

    >>> relative(100.0, 95.0), relative(0.0, 0.0), relative(0.0, 1.0)
    (-0.05, 0.0, inf)
    """
    if live == simulated:
        return 0.0
    if live == 0:
        return math.inf
    return (simulated - live) / live


def compare(live: Result, simulated: Result) -> list[dict[str, Any]]:
    """Return a row per measure of :data:`MEASURES` the runs have.

    Each row holds the live and simulated values and their difference; a measure neither run
    has (response times without web users, say) is left out.
    """
    rows = []
    for name, meaning, read in MEASURES:
        a, b = read(live), read(simulated)
        if math.isnan(a) and math.isnan(b):
            continue
        rows.append({"measure": name, "meaning": meaning, "live": a, "simulated": b,
                     "difference": relative(a, b)})  # fmt: skip
    return rows


def response_times_ks(live: Result, simulated: Result) -> dict[str, Any] | None:
    """Return the Kolmogorov–Smirnov distance between the runs' response-time distributions.

    Over the completed request/response pairs of the measured period, with the sample sizes;
    ``None`` without web users.
    """
    if "requests" not in live.table_names or "requests" not in simulated.table_names:
        return None
    a = live.table("requests")["response_s"].dropna()
    b = simulated.table("requests")["response_s"].dropna()
    if a.empty or b.empty:
        return None
    return {"ks_distance": ks_distance(a, b), "live_n": len(a), "simulated_n": len(b)}


def simulated_twin(scenario: dict[str, Any]) -> dict[str, Any]:
    """Return ``scenario`` with the ``linux`` TCP profile.

    The profile is set at the top and in every group that names another; every other key stays
    as written.

    >>> simulated_twin({"tcp": {"profile": "freebsd-2.2"},
    ...                 "traffic": [{"kind": "ftp", "tcp": {"profile": "rfc"}}]})
    {'tcp': {'profile': 'linux'}, 'traffic': [{'kind': 'ftp', 'tcp': {'profile': 'linux'}}]}
    """
    twin = dict(scenario)
    twin["tcp"] = {**scenario.get("tcp", {}), "profile": "linux"}
    groups = []
    for g in scenario.get("traffic", []):
        if "profile" in g.get("tcp", {}):
            g = {**g, "tcp": {**g["tcp"], "profile": "linux"}}
        groups.append(g)
    twin["traffic"] = groups
    return twin


def markdown(rows: list[dict[str, Any]]) -> str:
    """Write the comparison as a Markdown table.

    >>> print(markdown([{"measure": "drop_rate", "meaning": "forward drop rate", "live": 0.01,
    ...                  "simulated": 0.012, "difference": 0.2}]))
    | measure | live | simulated | simulated − live |
    |---|---:|---:|---:|
    | forward drop rate | 0.01 | 0.012 | +20.0% |
    """
    lines = ["| measure | live | simulated | simulated − live |", "|---|---:|---:|---:|"]
    for r in rows:
        d = r["difference"]
        shown = "—" if math.isnan(d) else ("∞" if math.isinf(d) else f"{d:+.1%}")
        lines.append(f"| {r['meaning']} | {r['live']:.4g} | {r['simulated']:.4g} | {shown} |")
    return "\n".join(lines)
