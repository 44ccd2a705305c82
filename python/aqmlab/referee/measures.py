"""What a referee compares: one run's bottleneck, link and flow measures, from any simulator.

:class:`Measures` holds the quantities aqmlab, ns-2 and ns-3 can all report for a dumbbell's
forward bottleneck (servers → clients) over the measured window (after the warm-up): arrivals,
drops split as far as the simulator can split them, marks, the time-averaged queue, RED's mean
average, and each flow's goodput; and, where the simulator reports them, every other logged link
direction's arrivals, drops and mean queue (:class:`LinkMeasure`: the hops of a parking lot, a
dumbbell's reverse direction). :func:`from_result` reads them from an aqmlab
:class:`~aqmlab.result.Result`; the referees' modules read their own simulators' outputs.

>>> m = Measures("x", 10.0, arrivals_pkts=100, drops_pkts=5, marks_pkts=0,
...              mean_queue_pkts=3.0, flows=[FlowMeasure(0, "bulk", "tcp", 1e6),
...                                          FlowMeasure(1, "bulk", "tcp", 3e6)])
>>> m.drop_rate, m.tcp_goodput_bps, round(m.jain or 0, 3)
(0.05, 4000000.0, 0.8)
>>> lot = Measures("x", 10.0, 0, 0, 0, 0.0, bottleneck=False,
...                links={"r0-r1": LinkMeasure(200, 4, 3.5)},
...                flows=[FlowMeasure(0, "long", "tcp", 1e6), FlowMeasure(1, "cross", "tcp", 3e6)])
>>> [(k, v) for k, v in lot.headline().items() if "@" in k]  # doctest: +NORMALIZE_WHITESPACE
[('drops_pkts@r0-r1', 4.0), ('drop_rate@r0-r1', 0.02), ('mean_queue_pkts@r0-r1', 3.5),
 ('tcp_goodput_bps@long', 1000000.0), ('tcp_goodput_bps@cross', 3000000.0)]
>>> lot.headline()["drop_rate"] is None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from aqmlab.stats import jain

if TYPE_CHECKING:
    from aqmlab.result import Result


@dataclass
class FlowMeasure:
    """One flow's goodput over the measured window.

    ``flow`` numbers the flows 0, 1, … over the scenario's groups (TCP and UDP, in group order);
    ``kind`` is ``tcp`` or ``udp``; ``goodput_bps`` counts TCP bytes acknowledged, UDP bytes
    received.
    """

    flow: int
    group: str
    kind: str
    goodput_bps: float


@dataclass
class LinkMeasure:
    """One logged link direction's arrivals, drops and mean queue over the measured window.

    The queue in packets, not counting the packet in transmission.
    """

    arrivals_pkts: int
    drops_pkts: int
    mean_queue_pkts: float

    @property
    def drop_rate(self) -> float:
        """Drops per arrival."""
        return self.drops_pkts / self.arrivals_pkts if self.arrivals_pkts else 0.0


@dataclass
class Measures:
    """One run's forward-bottleneck and flow measures, from one simulator.

    Drops are split as the simulator can: ``early_drops_pkts`` (RED's random, unforced ones),
    ``forced_drops_pkts`` (RED's forced decisions on the average), ``overflow_drops_pkts`` (a
    full queue) and ``other_drops_pkts`` (whatever the simulator cannot split further: ns-2's
    monitors count forced and overflow drops together); ``None`` where a simulator cannot tell.
    ``mean_queue_pkts`` is the time-averaged queue (not counting the packet in transmission);
    ``red_avg`` the mean of RED's average at regular samples (``None`` without RED).
    ``bottleneck`` says whether those counts describe a forward bottleneck (a dumbbell's); a
    network without one (a parking lot) has every logged direction in ``links`` alone, by name.
    ``links`` holds the logged directions besides the forward bottleneck.
    """

    simulator: str
    measured_s: float
    arrivals_pkts: int
    drops_pkts: int
    marks_pkts: int
    mean_queue_pkts: float
    early_drops_pkts: int | None = None
    forced_drops_pkts: int | None = None
    overflow_drops_pkts: int | None = None
    other_drops_pkts: int | None = None
    mean_queue_bytes: float | None = None
    red_avg: float | None = None
    reverse_drops_pkts: int | None = None
    flows: list[FlowMeasure] = field(default_factory=list)
    wall_s: float | None = None
    requests_completed: int | None = None
    """Web request/response pairs completed (started after the warm-up); ``None`` without web
    users (``web-mah``, ``web-pool``)."""
    response_median_s: float | None = None
    response_mean_s: float | None = None
    """The completed pairs' response times."""
    bottleneck: bool = True
    links: dict[str, LinkMeasure] = field(default_factory=dict)

    @property
    def drop_rate(self) -> float:
        """Drops per arrival at the forward bottleneck."""
        return self.drops_pkts / self.arrivals_pkts if self.arrivals_pkts else 0.0

    @property
    def mark_rate(self) -> float:
        """Marks per arrival at the forward bottleneck."""
        return self.marks_pkts / self.arrivals_pkts if self.arrivals_pkts else 0.0

    @property
    def tcp_goodput_bps(self) -> float | None:
        """The TCP flows' goodput added up, or ``None`` without TCP flows."""
        tcp = [f.goodput_bps for f in self.flows if f.kind == "tcp"]
        return sum(tcp) if tcp else None

    @property
    def udp_goodput_bps(self) -> float | None:
        """The UDP flows' received rate added up, or ``None`` without UDP flows."""
        udp = [f.goodput_bps for f in self.flows if f.kind == "udp"]
        return sum(udp) if udp else None

    @property
    def jain(self) -> float | None:
        """Jain's fairness index of the TCP flows' goodputs, or ``None`` without TCP flows."""
        tcp = [f.goodput_bps for f in self.flows if f.kind == "tcp"]
        return jain(tcp) if tcp and any(tcp) else None

    def headline(self) -> dict[str, float | None]:
        """Return the measures compared side by side, by name (the cross-check's rows).

        The forward bottleneck's (``None`` without one), then each link's drops, drop rate and
        mean queue as ``MEASURE@LINK``, then, with flows of two groups or more of a kind, each
        group's goodput as ``tcp_goodput_bps@GROUP`` (or ``udp_``).

        >>> sorted(Measures("x", 1.0, 10, 1, 0, 0.5).headline())[:3]
        ['arrivals_pkts', 'drop_rate', 'drops_early_pkts']
        """
        fields: dict[str, float | None] = {
            "tcp_goodput_bps": self.tcp_goodput_bps,
            "udp_goodput_bps": self.udp_goodput_bps,
            "arrivals_pkts": float(self.arrivals_pkts),
            "drops_pkts": float(self.drops_pkts),
            "drops_early_pkts": _maybe(self.early_drops_pkts),
            "drops_forced_pkts": _maybe(self.forced_drops_pkts),
            "drops_overflow_pkts": _maybe(self.overflow_drops_pkts),
            "drops_forced_or_overflow_pkts": _maybe(self._forced_or_overflow()),
            "marks_pkts": float(self.marks_pkts),
            "drop_rate": self.drop_rate,
            "mean_queue_pkts": self.mean_queue_pkts,
            "red_avg": self.red_avg,
            "jain": self.jain,
            "requests_completed": _maybe(self.requests_completed),
            "response_median_s": self.response_median_s,
            "response_mean_s": self.response_mean_s,
        }
        if not self.bottleneck:
            for key in BOTTLENECK:
                fields[key] = None
        for name, link in self.links.items():
            fields |= {f"drops_pkts@{name}": float(link.drops_pkts),
                       f"drop_rate@{name}": link.drop_rate,
                       f"mean_queue_pkts@{name}": link.mean_queue_pkts}  # fmt: skip
        for kind in ("tcp", "udp"):
            groups = dict.fromkeys(f.group for f in self.flows if f.kind == kind)
            if len(groups) > 1:
                fields |= {f"{kind}_goodput_bps@{group}": sum(
                    f.goodput_bps for f in self.flows if f.kind == kind and f.group == group)
                    for group in groups}  # fmt: skip
        return fields

    def _forced_or_overflow(self) -> int | None:
        if self.other_drops_pkts is not None:
            return self.other_drops_pkts
        if self.forced_drops_pkts is None or self.overflow_drops_pkts is None:
            return None
        return self.forced_drops_pkts + self.overflow_drops_pkts


BOTTLENECK = ("arrivals_pkts", "drops_pkts", "drops_early_pkts", "drops_forced_pkts",
              "drops_overflow_pkts", "drops_forced_or_overflow_pkts", "marks_pkts", "drop_rate",
              "mean_queue_pkts", "red_avg")  # fmt: skip
"""The measures of the forward bottleneck (``None`` in a network without one)."""


def _maybe(value: int | None) -> float | None:
    return None if value is None else float(value)


def from_result(result: Result) -> Measures:
    """Read a run's :class:`Measures` from its summary and tables.

    Flows are numbered as the referees number them: every flow of every TCP (``ftp``,
    ``telnet``, ``web-session``) and UDP group, in group order. Every logged link direction (a
    section of the summary) but the forward bottleneck goes in ``links``; a network without a
    forward bottleneck (one of nodes and links, or a named topology other than the dumbbell) has
    its top-level counts at 0 and ``bottleneck`` false.
    """
    logged = {name: section for name, section in result.summary.items()
              if isinstance(section, dict) and "drop_rate" in section}  # fmt: skip
    bottleneck = "forward" in logged
    fwd = logged.pop("forward") if bottleneck else {}
    links = {name: LinkMeasure(int(link["arrivals_pkts"]), int(link["drops_pkts"]),
                               float(link["mean_queue_pkts"]))
             for name, link in logged.items()}  # fmt: skip
    drops = fwd.get("drops_pkts_by_reason", {})
    queue = result.queue
    red_avg: float | None = None
    if "red_avg" in queue and len(queue) and bottleneck:
        forward = queue[queue["direction"] == "forward"]
        weights = forward["samples"].to_numpy(dtype=float)
        values = forward["red_avg"].to_numpy(dtype=float)
        if weights.sum() > 0 and not np.isnan(values).all():
            red_avg = float((weights * values).sum() / weights.sum())
    flows: list[FlowMeasure] = []
    connections = result.connections
    udp = result.flows
    scenario = result.summary["meta"]["scenario"]
    for group in scenario["traffic"]:
        name = group["name"]
        if group["kind"] in ("ftp", "telnet", "web-session"):
            rows = connections[connections["group"] == name].sort_values("index")
            flows += [FlowMeasure(len(flows), name, "tcp", float(g)) for g in rows["goodput_bps"]]
        elif group["kind"] in ("cbr", "pareto", "poisson"):
            rows = udp[udp["group"] == name].sort_values("index")
            flows += [FlowMeasure(len(flows), name, "udp", float(g))
                      for g in rows["throughput_bps"]]
    web = any(g["kind"] in ("web-mah", "web-pool") for g in scenario["traffic"])
    requests = result.summary["requests"]
    return Measures(
        simulator="aqmlab",
        measured_s=float(result.summary["meta"]["measured_s"]),
        arrivals_pkts=int(fwd.get("arrivals_pkts", 0)),
        drops_pkts=int(fwd.get("drops_pkts", 0)),
        early_drops_pkts=int(drops["early"]) if bottleneck else None,
        forced_drops_pkts=int(drops["forced"]) if bottleneck else None,
        overflow_drops_pkts=int(drops["overflow"]) if bottleneck else None,
        other_drops_pkts=None,
        marks_pkts=int(fwd.get("marks_pkts", 0)),
        mean_queue_pkts=float(fwd.get("mean_queue_pkts", 0.0)),
        mean_queue_bytes=float(fwd["mean_queue_bytes"]) if bottleneck else None,
        red_avg=red_avg,
        reverse_drops_pkts=int(links["reverse"].drops_pkts) if "reverse" in links else None,
        flows=flows,
        wall_s=float(result.summary["meta"]["wall_s"]),
        **(web_measures(requests) if web else {}),
        bottleneck=bottleneck,
        links=links,
    )


def web_measures(requests: dict[str, Any]) -> dict[str, Any]:
    """Return the web fields of :class:`Measures` from a summary's ``requests`` section.

    >>> web_measures({"completed": 3, "median_s": 0.2, "mean_s": 0.25})["response_median_s"]
    0.2
    """
    return {"requests_completed": int(requests["completed"]),
            "response_median_s": requests["median_s"], "response_mean_s": requests["mean_s"]}
