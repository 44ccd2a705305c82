"""A live run beside the same scenario simulated (``aqmlab live --compare``).

One table of the measures both produce, with their differences.

The simulated twin runs the scenario with the ``linux`` TCP profile (:func:`simulated_twin`), the
profile written to model the kernel the live run uses. Both results have the same summary and
``queue`` table (the router is the engine's bottleneck) and a ``connections`` table with the same
columns for what the kernel reports.

>>> live = Result({"forward": {"drop_rate": 0.011, "drops_pkts": 143, "marks_pkts": 0,
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
from aqmlab.stats import jain

Measure = tuple[str, str, Callable[[Result], float]]


def _forward(key: str) -> Callable[[Result], float]:
    return lambda r: float(r.summary["forward"][key])


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
    """One row per measure of :data:`MEASURES`: its live and simulated values and difference."""
    rows = []
    for name, meaning, read in MEASURES:
        a, b = read(live), read(simulated)
        rows.append({"measure": name, "meaning": meaning, "live": a, "simulated": b,
                     "difference": relative(a, b)})  # fmt: skip
    return rows


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
