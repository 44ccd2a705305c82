r"""The queue law of a scenario, and where RED will operate on it.

After Firoiu & Borden (2000) and Chung & Claypool (2003).

Replace a scenario's bottleneck queue (``[queue]``, R1 → R2) by a uniform random dropper — every
arrival dropped with probability p, the rest queued in an unlimited FIFO — and the TCP traffic
settles at an average queue that depends on p alone: the **queue law** ``avg_queue(p)``. A RED
queue in the same place drops at a rate that depends on its average queue: RED's drop function.
Where the two curves cross is the operating point RED settles at; if they cross only where RED's
function jumps (to 1 above ``max_th``), there is no stable point and RED's average oscillates
around ``max_th`` (Chung & Claypool 2003, §1 and §4, after Firoiu & Borden 2000).

:func:`queue_law` measures the law — a sweep over p on the existing sweep layer, one run per p
and seed — and :func:`predict_red` intersects it with a :class:`RedConfig`::

    law = aqmlab.queue_law("ftp.toml", drop_rates=[0.01, 0.02, 0.05, 0.1], seeds=[1, 2],
                           out="runs/law")
    predict_red(law, RedConfig(min_th=100, max_th=300, max_p=0.1))

On the command line: ``aqmlab queue-law ftp.toml --drop-rates 0.01,0.02,0.05,0.1
--red 100,300,0.1 --out runs/law``.

Any one link direction's queue can take the dropper instead (``link=``, ``--link``): a hop of a
parking lot, say, to measure each bottleneck's own law on a network of several (Chung & Claypool
2003 measure a law per congested router). A named topology other than the dumbbell's ``forward``
and ``reverse`` is first written out as its nodes and links (aqmlab's own expansion,
``resolve(..., expand=True)``), so that one direction's queue can be replaced alone; that
direction is logged, and its summary section is the law's measurement.

The law's x axis is the drop rate each run measured (drops / arrivals at the bottleneck), its y
axis the bottleneck's mean queue in packets over the measured period (after ``warmup``); RED's
side converts its probability ``p_b`` into the long-run drop rate its count rule gives
(:func:`count_rate`), so the two curves are in the same units.

>>> law = QueueLaw(pd.DataFrame({"p": [0.01, 0.02, 0.05, 0.1],
...                              "drop_rate": [0.01, 0.02, 0.05, 0.1],
...                              "avg_queue": [900.0, 600.0, 300.0, 100.0]}))
>>> law.queue_at(0.03)
500.0
>>> p = predict_red(law, RedConfig(100, 300, 0.02, count="uniform"))
>>> p.stable, p.region, p.avg_queue
(False, 'oscillates around max_th', 300.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from aqmlab import args
from aqmlab.errors import InputError
from aqmlab.executor import BatchProgress
from aqmlab.reading import collect
from aqmlab.scenario import (
    Scenario,
    ScenarioLike,
    as_scenario,
    load_scenario,
    parse_key,
    set_path,
)
from aqmlab.sweeps import Axis, Sweep, make_executor, parse_seeds, run_sweep, seconds
from aqmlab.units import size_bytes

UNLIMITED = "10000000p"
"""The dropper's FIFO limit: large enough never to overflow (the law needs an unlimited queue)."""
DEFAULT_DROP_RATES = (0.005, 0.01, 0.02, 0.03, 0.05, 0.07, 0.1)
COUNT_RULES = ("ns2-wait", "floyd-jacobson", "altq", "uniform")


def parse_drop_rates(values: str | Iterable[float], *, what: str = "--drop-rates") -> list[float]:
    """Read drop rates (``"0.01,0.02"`` or numbers), each in (0, 1), no repeats.

    >>> parse_drop_rates("0.01, 0.05")
    [0.01, 0.05]
    >>> parse_drop_rates("0.01,2")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --drop-rates: expected probabilities in (0, 1), got 2.0
    """
    if isinstance(values, str):
        try:
            rates = [float(v) for v in values.split(",") if v.strip()]
        except ValueError:
            raise InputError(
                what, f'expected numbers like "0.01,0.02,0.05", got "{values}"'
            ) from None
    else:
        rates = [args.number(what, v) for v in values]
    if not rates:
        raise InputError(what, "expected at least one drop rate")
    for rate in rates:
        if not 0.0 < rate < 1.0:
            raise InputError(what, f"expected probabilities in (0, 1), got {rate}")
    if len(set(rates)) != len(rates):
        raise InputError(what, "a drop rate is listed twice")
    return rates


@dataclass(frozen=True)
class LawTarget:
    """The queue a law is measured on: the scenario to sweep, its key path, its summary section.

    ``scenario`` is the given one, or its expansion into nodes and links when one direction of a
    named topology is targeted; the target direction is logged (``measure = true``).
    """

    scenario: Scenario
    path: str
    section: str


def _direction_names(entry: Mapping[str, Any]) -> tuple[str, str]:
    """Return a ``[[link]]``'s two direction names, as the engine defaults them."""
    ends = (str(entry.get("from")), str(entry.get("to")))
    return (str(entry.get("name", f"{ends[0]}-{ends[1]}")),
            str(entry.get("reverse_name", f"{ends[1]}-{ends[0]}")))  # fmt: skip


def law_target(scenario: ScenarioLike, link: str | None = None) -> LawTarget:
    """Find the queue of link direction ``link`` (default: the dumbbell's ``forward``).

    On the dumbbell ``forward`` is ``[queue]`` and ``reverse`` is ``[reverse_queue]``; any other
    direction, or any on another named topology, is found in the expanded nodes and links.

    >>> law_target({"duration": "1s"}).path
    'queue'
    >>> t = law_target({"node": [{"name": "a", "kind": "host"}, {"name": "b", "kind": "host"}],
    ...                 "link": [{"from": "a", "to": "b", "rate": "1Mbps"}]}, "b-a")
    >>> t.path, t.section, t.scenario["link"][0]["measure"]
    ('link[0].reverse_queue', 'b-a', True)
    >>> law_target({"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}}}, "r1-r2")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --link: no link direction is named "r1-r2"; known: s0.up, \
s0.down, c0.up, c0.down, forward, reverse
    """
    from aqmlab.scenario import resolve

    out = as_scenario(scenario)
    wanted = "forward" if link is None else link
    if "link" not in out and out.get("topology", {}).get("kind", "dumbbell") == "dumbbell":
        if wanted == "forward":
            return LawTarget(out, "queue", "forward")
        if wanted == "reverse":
            return LawTarget(out, "reverse_queue", "reverse")
    if "link" not in out:
        out = resolve(out, expand=True)
    links = out.get("link")
    if not isinstance(links, list):
        raise InputError("link", "expected an array of link tables")
    for index, entry in enumerate(links):
        names = _direction_names(entry)
        if wanted in names:
            entry["measure"] = True
            key = "queue" if wanted == names[0] else "reverse_queue"
            return LawTarget(out, f"link[{index}].{key}", wanted)
    known = ", ".join(n for entry in links for n in _direction_names(entry))
    if link is None:
        raise InputError("--link", 'this network has no dumbbell bottleneck ("forward"): name '
                                   f"the link direction to measure; known: {known}")  # fmt: skip
    raise InputError("--link", f'no link direction is named "{link}"; known: {known}')


def dropper(p: float, *, limit: str = UNLIMITED, ecn: bool = False) -> dict[str, Any]:
    """Return the uniform dropper's queue table at ``p``.

    ``ecn=True`` makes it the uniform marker: a chosen ECN-capable packet is marked CE instead of
    dropped (the flows must set ``tcp.ecn``); other chosen packets are still dropped.

    >>> dropper(0.02)
    {'kind': 'bernoulli', 'p': 0.02, 'limit': '10000000p'}
    """
    queue: dict[str, Any] = {"kind": "bernoulli", "p": p, "limit": limit}
    if ecn:
        queue["ecn"] = True
    return queue


def with_dropper(
    scenario: ScenarioLike,
    p: float,
    *,
    limit: str = UNLIMITED,
    ecn: bool = False,
    link: str | None = None,
) -> Scenario:
    """Return the scenario with a queue replaced by the uniform dropper at ``p`` (:func:`dropper`).

    The queue is link direction ``link``'s (:func:`law_target`), by default the dumbbell's
    bottleneck ``[queue]``.

    >>> with_dropper({"duration": "1s", "queue": {"kind": "red"}}, 0.02)["queue"]
    {'kind': 'bernoulli', 'p': 0.02, 'limit': '10000000p'}
    >>> with_dropper({"duration": "1s"}, 0.02, ecn=True)["queue"]["ecn"]
    True
    >>> lot = {"duration": "1s", "topology": {"kind": "parking-lot", "hops": 2,
    ...        "bottleneck": {"rate": "10Mbps"}}, "queue": {"kind": "red"}}
    >>> [entry["queue"]["kind"] for entry in with_dropper(lot, 0.02, link="r1-r2")["link"][-2:]]
    ['red', 'bernoulli']
    """
    target = law_target(scenario, link)
    out = target.scenario
    set_path(out, parse_key(target.path), dropper(p, limit=limit, ecn=ecn))
    return out


def traced(scenario: ScenarioLike) -> Scenario:
    """Return the scenario with every ``ftp`` group traced (for the average window).

    >>> traced({"traffic": [{"kind": "ftp"}, {"kind": "cbr", "rate": "1Mbps"}]})["traffic"][0]
    {'kind': 'ftp', 'trace': True}
    """
    out = as_scenario(scenario)
    for group in out.get("traffic", []):
        if group.get("kind") == "ftp":
            group["trace"] = True
    return out


def law_sweep(
    scenario: ScenarioLike,
    drop_rates: Sequence[float],
    *,
    name: str = "queue-law",
    window: bool = False,
    limit: str = UNLIMITED,
    seeds: Sequence[int] = (1,),
    link: str | None = None,
) -> Sweep:
    """Build the sweep that measures a queue law: one point per drop rate, axis ``p``.

    The axis sets the whole queue of link direction ``link`` (:func:`law_target`; by default the
    dumbbell's ``queue``).

    ``window=True`` traces every ``ftp`` group so that :func:`average_window` can be computed.

    >>> s = law_sweep({"duration": "1s"}, [0.01, 0.1])
    >>> [(p.labels, p.scenario["queue"]["p"]) for p in s.points()]
    [({'p': '0.01'}, 0.01), ({'p': '0.1'}, 0.1)]
    """
    rates = parse_drop_rates(drop_rates, what="drop_rates")
    target = law_target(scenario, link)
    base = traced(target.scenario) if window else target.scenario
    queues = tuple(dropper(p, limit=limit) for p in rates)
    axis = Axis(target.path, queues, tuple(repr(p) for p in rates), "p")
    return Sweep(base, (axis,), tuple(seeds), name=name)


def law_runs(summary: pd.DataFrame, section: str = "forward") -> pd.DataFrame:
    """Read a law sweep's collected ``summary`` rows: ``p``, ``seed``, ``drop_rate``, ``avg_queue``.

    The law is read from the summary section ``section`` (the link direction measured). Other
    columns (a study's factors) are kept.

    >>> law_runs(pd.DataFrame({"p": ["0.01"], "seed": [1], "forward.drop_rate": [0.0101],
    ...                        "forward.mean_queue_pkts": [412.0]}))
          p  seed  drop_rate  avg_queue
    0  0.01     1     0.0101      412.0
    """
    out = summary.rename(columns={f"{section}.drop_rate": "drop_rate",
                                  f"{section}.mean_queue_pkts": "avg_queue"})  # fmt: skip
    out = out.assign(p=out["p"].astype(float))
    keep = [c for c in out.columns if "." not in c and c not in ("sweep", "point", "scenario_hash",
                                                                  "run")]  # fmt: skip
    return out[keep].reset_index(drop=True)


def average_window(
    trace: pd.DataFrame,
    *,
    start_s: float,
    end_s: float,
    mss_bytes: float,
    rwnd_bytes: float | None = None,
    by: Sequence[str] = (),
) -> pd.DataFrame:
    """Average the congestion window over all flows, in segments, per group of ``by``.

    Each connection's window is averaged over time (it holds from one ACK to the next) within
    [``start_s``, ``end_s``], capped at ``rwnd_bytes`` when given (a sender uses
    ``min(cwnd, rwnd)``: the effective window, what a cwnd limit makes of cwnd), then averaged
    over connections. Returns ``by`` + ``avg_cwnd``.

    >>> t = pd.DataFrame({"conn": [0, 0, 1], "t_s": [0.0, 1.0, 0.0],
    ...                   "cwnd_bytes": [1000.0, 3000.0, 8000.0]})
    >>> average_window(t, start_s=0, end_s=2, mss_bytes=1000, rwnd_bytes=6000)
       avg_cwnd
    0       4.0
    """
    rows = []
    keys = list(by)
    groups = trace.groupby(keys, observed=True, sort=True) if keys else [((), trace)]
    for key, frame in groups:
        frame = frame.sort_values(["conn", "t_s"], kind="stable")
        conn = frame["conn"].to_numpy()
        t = frame["t_s"].to_numpy(dtype=float)
        w = frame["cwnd_bytes"].to_numpy(dtype=float)
        if rwnd_bytes is not None:
            w = np.minimum(w, rwnd_bytes)
        nxt = np.append(t[1:], end_s)
        last = np.append(conn[1:] != conn[:-1], True)
        nxt[last] = end_s
        lo = np.clip(t, start_s, end_s)
        hi = np.clip(nxt, start_s, end_s)
        span = hi - lo
        per = pd.DataFrame({"conn": conn, "area": w * span, "span": span})
        sums = per.groupby("conn").sum()
        sums = sums[sums["span"] > 0]
        value = float((sums["area"] / sums["span"]).mean() / mss_bytes) if len(sums) else math.nan
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(keys, key, strict=True)), "avg_cwnd": value})
    return pd.DataFrame(rows, columns=[*keys, "avg_cwnd"])


@dataclass(frozen=True)
class QueueLaw:
    """A measured queue law: one row per drop rate.

    Columns: ``p`` (set), ``drop_rate`` (measured), ``avg_queue``.

    ``points`` holds the means over seeds (and ``avg_cwnd`` when measured); ``runs`` one row per
    run. :meth:`queue_at` interpolates the queue linearly between measured drop rates.
    """

    points: pd.DataFrame
    runs: pd.DataFrame | None = None

    def curve(self) -> tuple[np.ndarray, np.ndarray]:
        """Return the law as (drop rates ascending, average queues)."""
        pts = self.points.sort_values("drop_rate")
        return pts["drop_rate"].to_numpy(dtype=float), pts["avg_queue"].to_numpy(dtype=float)

    def queue_at(self, rate: float) -> float:
        """Return the average queue at a drop rate.

        Linear interpolation; NaN outside the measured range.
        """
        x, y = self.curve()
        if not x[0] <= rate <= x[-1]:
            return math.nan
        return float(np.interp(rate, x, y))

    def rate_for(self, queue: float, *, log_rate: bool = False) -> float:
        """Return the drop rate that holds this average queue (NaN if the law never reaches it).

        Linear between the measured points that bracket it (the first pair that does);
        ``log_rate=True`` interpolates the rate's logarithm instead, for points far apart on a
        law that falls like a power of the rate.

        >>> law = QueueLaw(pd.DataFrame({"drop_rate": [0.01, 0.04], "avg_queue": [400.0, 200.0]}))
        >>> law.rate_for(300.0), round(law.rate_for(300.0, log_rate=True), 6)
        (0.025, 0.02)
        """
        x, y = self.curve()
        scale = np.log(x) if log_rate else x
        for i in range(len(x) - 1):
            a, b = y[i], y[i + 1]
            if min(a, b) <= queue <= max(a, b) and a != b:
                at = scale[i] + (queue - a) / (b - a) * (scale[i + 1] - scale[i])
                return float(np.exp(at) if log_rate else at)
        return math.nan


def summarize(runs: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Means over seeds of a law's runs, per ``p`` (and ``by``), sorted by ``p``."""
    values = [c for c in ("drop_rate", "avg_queue", "avg_cwnd") if c in runs.columns]
    out = runs.groupby([*by, "p"], observed=True)[values].mean().reset_index()
    return out.sort_values([*by, "p"]).reset_index(drop=True)


def queue_law(
    scenario: ScenarioLike | str | Path,
    *,
    drop_rates: Sequence[float] | str = DEFAULT_DROP_RATES,
    seeds: str | int | Iterable[int] = (1,),
    out: str | Path,
    jobs: int | None = None,
    window: bool = False,
    name: str = "queue-law",
    progress: bool = False,
    link: str | None = None,
) -> QueueLaw:
    """Measure a scenario's queue law: the bottleneck queue replaced by the uniform dropper.

    One point per drop rate p. ``link`` names the link direction whose queue it replaces and
    measures (:func:`law_target`), by default the dumbbell's bottleneck (``forward``).

    Runs one sweep (``name``) into the store ``out`` (finished runs are reused), ``jobs``
    processes. ``window=True`` also measures the average congestion window of its ``ftp`` flows
    (``avg_cwnd``, segments of ``tcp.mss``; they are traced, which costs memory with thousands of
    flows). Returns the :class:`QueueLaw` (means over seeds, and every run in ``runs``).

    >>> import tempfile
    >>> base = {"duration": "20s", "warmup": "10s",
    ...         "topology": {"bottleneck": {"rate": "5Mbps", "delay": "10ms"}},
    ...         "tcp": {"profile": "ns2-2003", "variant": "newreno", "rwnd": "1MB"},
    ...         "traffic": [{"name": "ftp", "kind": "ftp", "flows": 20}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     law = queue_law(base, drop_rates=[0.01, 0.05], out=tmp, jobs=1)
    >>> q = law.points["avg_queue"].tolist()
    >>> q[0] > q[1] > 0
    True
    """
    if isinstance(scenario, str | Path):
        scenario = load_scenario(scenario)
    out = args.path("out", out)
    rates = parse_drop_rates(drop_rates)
    if link is not None:
        link = args.text("--link", link)
    target = law_target(scenario, link)
    sweep = law_sweep(target.scenario, rates, name=name, window=window, seeds=parse_seeds(seeds),
                      link=target.section)  # fmt: skip
    executor = make_executor(jobs=jobs)
    with BatchProgress(f"queue law {name}", enabled=progress) as bar:
        done = run_sweep(sweep, out, executor=executor, bar=bar)
    if done.failures:
        raise RuntimeError(f"{len(done.failures)} queue-law runs failed: {done.failures[0].error}")
    runs = law_runs(collect(out, sweep=name, labels=True, missing="error"), target.section)
    if window:
        runs = runs.merge(window_runs(out, name, sweep.base), on=["p", "seed"], how="left")
    return QueueLaw(summarize(runs), runs)


def window_runs(store: str | Path, name: str, scenario: Mapping[str, Any]) -> pd.DataFrame:
    """``p``, ``seed``, ``avg_cwnd`` for every run of the law sweep ``name`` (traced ftp groups)."""
    from aqmlab.scenario import group_tcp, resolve

    resolved = resolve(scenario)
    ftp = [g for g in resolved["traffic"] if g["kind"] == "ftp"]
    if not ftp:
        raise InputError("traffic", "the average window needs an ftp group")
    tcp = group_tcp(resolved, ftp[0])
    start = seconds(resolved.get("warmup", "0s"))
    end = seconds(resolved["duration"])
    trace = collect(store, "tcp_trace", sweep=name, labels=True, missing="error",
                    columns=["t_s", "conn", "cwnd_bytes"])  # fmt: skip
    out = average_window(trace, start_s=start, end_s=end, by=["p", "seed"],
                         mss_bytes=size_bytes(tcp["mss"], "tcp.mss"),
                         rwnd_bytes=size_bytes(tcp["rwnd"], "tcp.rwnd"))  # fmt: skip
    return out.assign(p=out["p"].astype(float))


# --- RED's side ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class RedConfig:
    """RED's drop function: thresholds in packets, ``max_p``, gentle or not, and the count rule.

    ``count`` turns RED's probability ``p_b`` into a long-run drop rate (:func:`count_rate`):
    ``"ns2-wait"`` (ns-2's default, aqmlab's ``ns2-2003`` profile), ``"floyd-jacobson"``,
    ``"altq"``, or ``"uniform"`` (the rate is ``p_b``: the paper's idealisation).
    ``limit`` is the physical queue, if any.

    >>> RedConfig.parse("100,300,0.1")
    RedConfig(min_th=100.0, max_th=300.0, max_p=0.1, gentle=False, count='ns2-wait', limit=None)
    """

    min_th: float
    max_th: float
    max_p: float
    gentle: bool = False
    count: str = "ns2-wait"
    limit: float | None = None

    def __post_init__(self) -> None:
        for name in ("min_th", "max_th", "max_p"):
            args.number(f"--red {name}", getattr(self, name))
        if not 0 <= self.min_th < self.max_th:
            raise InputError("--red", f"expected 0 <= min_th < max_th, got {self.min_th}, "
                                      f"{self.max_th}")  # fmt: skip
        if not 0 < self.max_p <= 1:
            raise InputError("--red", f"expected 0 < max_p <= 1, got {self.max_p}")
        if self.count not in COUNT_RULES:
            raise InputError("--red", f"count: expected one of {', '.join(COUNT_RULES)}")

    @classmethod
    def parse(cls, text: str, **options: Any) -> RedConfig:
        """Read ``min_th,max_th,max_p`` (``--red``)."""
        parts = [p.strip() for p in text.split(",")]
        try:
            numbers = [float(p) for p in parts]
        except ValueError:
            numbers = []
        if len(numbers) != 3:
            raise InputError("--red", f'expected min_th,max_th,max_p like "100,300,0.1", got '
                                      f'"{text}"')  # fmt: skip
        return cls(numbers[0], numbers[1], numbers[2], **options)

    @classmethod
    def from_queue(cls, queue: Mapping[str, Any]) -> RedConfig:
        """From a resolved ``[queue]`` of kind ``red`` (thresholds in packets)."""
        return cls(float(queue["min_th"]), float(queue["max_th"]), float(queue["max_p"]),
                   bool(queue["gentle"]), str(queue["count"]),
                   float(str(queue["limit"]).rstrip("p"))
                   if str(queue["limit"]).endswith("p") else None)  # fmt: skip

    def probability(self, avg: float) -> float:
        """RED's ``p_b`` at an average queue (1 in the forced region).

        >>> r = RedConfig(100, 300, 0.1)
        >>> r.probability(50), r.probability(200), r.probability(300)
        (0.0, 0.05, 1.0)
        >>> RedConfig(100, 300, 0.1, gentle=True).probability(450)
        0.55
        """
        if avg < self.min_th:
            return 0.0
        if avg < self.max_th:
            return self.max_p * (avg - self.min_th) / (self.max_th - self.min_th)
        if self.gentle and avg < 2 * self.max_th:
            return self.max_p + (1 - self.max_p) * (avg - self.max_th) / self.max_th
        return 1.0

    def rate(self, avg: float) -> float:
        """Return the long-run drop rate RED applies at a steady average queue."""
        p_b = self.probability(avg)
        return 1.0 if p_b >= 1.0 else count_rate(p_b, self.count)

    @property
    def top(self) -> float:
        """Where the drop function jumps to 1: ``max_th``, or ``2·max_th`` when gentle."""
        return 2 * self.max_th if self.gentle else self.max_th


def count_rate(p_b: float, count: str) -> float:
    """Return the long-run drop rate of a constant ``p_b`` under a count rule.

    See docs/models/validation.md §3.

    The gaps between drops are uniform on [1/p_b, 2/p_b] (``ns2-wait``), [1, 1/p_b]
    (``floyd-jacobson``), [1, 2/p_b] (``altq``): the rate is one over the mean gap.

    >>> round(count_rate(0.1, "ns2-wait"), 4), round(count_rate(0.1, "floyd-jacobson"), 4)
    (0.0667, 0.1818)
    >>> count_rate(0.1, "uniform")
    0.1
    """
    if p_b <= 0:
        return 0.0
    if count == "uniform":
        return p_b
    if count == "ns2-wait":
        return 2 * p_b / 3
    if count == "floyd-jacobson":
        return 2 * p_b / (1 + p_b)
    if count == "altq":
        return 2 * p_b / (2 + p_b)
    raise ValueError(f"unknown count rule {count!r}")


@dataclass(frozen=True)
class Prediction:
    """Where RED operates on a queue law.

    ``stable`` is True when the law meets RED's drop function where the function is continuous;
    ``region`` says where (``below min_th``, ``between thresholds``, ``gentle region``), or why
    there is no stable point (``oscillates around max_th``, ``beyond the physical limit``,
    ``outside the measured law``). ``avg_queue`` and ``drop_rate`` are the operating point (at an
    oscillation: the point it oscillates around).
    """

    stable: bool
    region: str
    avg_queue: float | None
    drop_rate: float | None
    note: str = ""


def predict_red(law: QueueLaw, red: RedConfig) -> Prediction:
    """Intersect the queue law with RED's drop function: the operating point, or why there is none.

    The law's queue falls as the drop rate grows, RED's rate grows with the queue, so
    ``h(r) = rate_RED(queue_law(r)) − r`` falls with ``r`` and has at most one root, found by
    bisection over the measured drop rates.

    >>> law = QueueLaw(pd.DataFrame({"drop_rate": [0.01, 0.02, 0.05, 0.1],
    ...                              "avg_queue": [900.0, 600.0, 300.0, 100.0]}))
    >>> p = predict_red(law, RedConfig(0, 1000, 0.1, count="uniform"))
    >>> p.stable, p.region, round(p.avg_queue, 1), round(p.drop_rate, 4)
    (True, 'between thresholds', 400.0, 0.04)
    >>> predict_red(law, RedConfig(950, 2000, 0.1)).region
    'below min_th'
    >>> predict_red(law, RedConfig(100, 300, 0.02, gentle=True, count="uniform")).region
    'gentle region'
    """
    x, y = law.curve()
    if len(x) < 2:
        raise InputError("law", "a queue law needs at least two drop rates")

    def h(r: float) -> float:
        return red.rate(float(np.interp(r, x, y))) - r

    lo, hi = float(x[0]), float(x[-1])
    if y[0] <= red.min_th:
        return Prediction(True, "below min_th", None, 0.0,
                          f"the law's queue is at most {y[0]:.0f} packets at the lowest measured "
                          f"drop rate {lo:g}, below min_th: RED would not drop")  # fmt: skip
    if h(lo) < 0:
        return Prediction(False, "outside the measured law", None, None,
                          f"RED drops less than {lo:g} at the law's largest queue "
                          f"({y[0]:.0f}): measure lower drop rates")  # fmt: skip
    if h(hi) > 0:
        return Prediction(False, "outside the measured law", None, None,
                          f"RED drops more than {hi:g} at the law's smallest queue "
                          f"({y[-1]:.0f}): measure higher drop rates")  # fmt: skip
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if h(mid) > 0:
            lo = mid
        else:
            hi = mid
    rate = 0.5 * (lo + hi)
    queue = float(np.interp(rate, x, y))
    below = red.rate(red.top * (1 - 1e-9))
    if queue >= red.top * (1 - 1e-6) and below < rate:
        return Prediction(False, "oscillates around max_th" if not red.gentle else
                          "oscillates around 2·max_th", float(red.top), rate,
                          f"at {red.top:g} packets RED drops at {below:.4f} just below and 1 "
                          f"above, and the law needs {rate:.4f}: no stable point")  # fmt: skip
    if red.limit is not None and queue > red.limit:
        return Prediction(False, "beyond the physical limit", queue, rate,
                          f"the operating point's queue {queue:.0f} exceeds the limit "
                          f"{red.limit:g}: the queue overflows like drop-tail")  # fmt: skip
    region = "between thresholds" if queue < red.max_th else "gentle region"
    return Prediction(True, region, queue, rate,
                      f"RED's drop function meets the law at {queue:.1f} packets, drop rate "
                      f"{rate:.4f}")  # fmt: skip
