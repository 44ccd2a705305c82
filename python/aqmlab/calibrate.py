"""Offered load as a function of web users: :func:`calibrate`, and loads turned into user counts.

Christiansen et al. (SIGCOMM 2000, §3.3) set the load of each experiment by the number of emulated
browsing users: they ran the users on an *unconstrained* network (the router-to-router links at
100 Mbps), measured the traffic on the link carrying responses (servers → clients), found it a
linear function of the users, and read off the users needed for a load on a 10 Mbps link (about
3,400 for 100%, 3,750 for 110%).

:func:`calibrate` does the same with a scenario that has one ``web-mah`` group: it sets the
bottleneck to 100 Mbps, runs it for several user counts (a sweep, see :mod:`aqmlab.sweeps`),
takes ``summary.forward.throughput_bps`` (R1 → R2, servers → clients) as the offered load, and
fits a least-squares line. A :class:`Calibration` then turns a load — a fraction of the target
link's rate — into users (:meth:`Calibration.users_for_load`, :func:`with_load`).

>>> fit = fit_line([1000, 2000, 3000], [3.0e6, 6.0e6, 9.0e6])
>>> round(fit.slope), round(fit.intercept), fit.r2
(3000, 0, 1.0)
>>> fit.users_for(10e6)
3333
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import args
from aqmlab.errors import InputError, ScenarioError, shown
from aqmlab.scenario import Scenario, ScenarioLike, as_scenario

UNCONSTRAINED_RATE = "100Mbps"
"""The bottleneck rate of the unconstrained network (§3.3)."""

MAX_LOAD_PERCENT = 10_000.0
"""The largest offered load asked for (``--load``, ``--target``), percent of the link: a
hundred times the link is far past any study, and the users it takes stay a countable number."""
DEFAULT_USERS = (500, 1200, 1900, 2600, 3300, 4000)
"""User counts of a calibration by default: six, evenly spaced over the paper's range."""

DEFAULT_TARGETS = (1.0, 1.1)
"""Loads reported by default, as fractions of the target link's rate (100% and 110%)."""

CALIBRATION_FILE = "calibration.json"

_RATE_UNITS = {"bps": 1.0, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def parse_rate(text: str, *, what: str = "link_rate") -> float:
    """Parse a rate string with a unit, as in scenarios, into bit/s (``what`` names it in errors).

    >>> parse_rate("10Mbps"), parse_rate("1.5 Gbps"), parse_rate("64kbps")
    (10000000.0, 1500000000.0, 64000.0)
    >>> parse_rate("10")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: link_rate: expected a rate > 0 like "10Mbps", got "10"
    >>> parse_rate("0bps", what="--link-rate")
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --link-rate: expected a rate > 0 like "10Mbps", got "0bps"
    """
    number = r"[0-9]{0,30}\.?[0-9]{1,30}"
    match = re.fullmatch(rf"\s*({number})\s*(bps|kbps|Mbps|Gbps)\s*", args.text(what, text))
    rate = float(match.group(1)) * _RATE_UNITS[match.group(2)] if match else 0.0
    if not rate > 0:
        raise ScenarioError(what, f'expected a rate > 0 like "10Mbps", got "{shown(text)}"')
    return rate


@dataclass(frozen=True)
class Fit:
    """A least-squares line ``load_bps = slope · users + intercept`` and its R²."""

    slope: float
    intercept: float
    r2: float

    def load_bps(self, users: float) -> float:
        """Predict the offered load of a number of users.

        >>> Fit(2500.0, 1e5, 1.0).load_bps(4000)
        10100000.0
        """
        return self.slope * users + self.intercept

    def users_for(self, load_bps: float) -> int:
        """Return the (rounded) number of users the line needs for an offered load, at least 1.

        >>> Fit(2500.0, 1e5, 1.0).users_for(10e6)
        3960
        """
        if not self.slope > 0:
            raise InputError(
                "calibration", f"cannot invert a calibration line of slope {self.slope}"
            )
        return max(1, round((load_bps - self.intercept) / self.slope))


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Fit:
    """Fit ``y = slope · x + intercept`` by least squares; R² is 1 − SS_res / SS_tot.

    >>> f = fit_line([1, 2, 3, 4], [2.1, 3.9, 6.2, 7.8])
    >>> round(f.slope, 3), round(f.intercept, 3), round(f.r2, 4)
    (1.94, 0.15, 0.9957)
    >>> fit_line([1, 1], [2, 3])
    Traceback (most recent call last):
    ...
    ValueError: a line needs at least two distinct x values
    """
    if len(xs) != len(ys):
        raise ValueError("xs and ys differ in length")
    n = len(xs)
    if n < 2 or len(set(xs)) < 2:
        raise ValueError("a line needs at least two distinct x values")
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    ss_tot = sum((y - mean_y) ** 2 for y in ys)
    ss_res = sum((y - (slope * x + intercept)) ** 2 for x, y in zip(xs, ys, strict=True))
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return Fit(slope, intercept, r2)


@dataclass(frozen=True)
class CalibrationPoint:
    """One calibration run: users, the offered load measured, and where its run directory is."""

    users: int
    throughput_bps: float
    run: str = ""


@dataclass(frozen=True)
class Calibration:
    """Calibration points, their line, and the target link loads are measured against."""

    points: tuple[CalibrationPoint, ...]
    link_rate_bps: float = 10e6
    targets: tuple[float, ...] = DEFAULT_TARGETS
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def fit(self) -> Fit:
        """The least-squares line through the points."""
        return fit_line([p.users for p in self.points], [p.throughput_bps for p in self.points])

    def users_for_load(self, load: float) -> int:
        """Users for an offered load given as a fraction of the target link (1.0 = 100%).

        >>> cal = Calibration((CalibrationPoint(1000, 3e6), CalibrationPoint(3000, 9e6)))
        >>> cal.users_for_load(1.0), cal.users_for_load(1.1)
        (3333, 3667)
        """
        return self.fit.users_for(args.number("load", load, above=0) * self.link_rate_bps)

    def to_dict(self) -> dict[str, Any]:
        """Return the calibration as JSON-ready data: points, fit, and users for each target load.

        >>> cal = Calibration((CalibrationPoint(1000, 3e6), CalibrationPoint(3000, 9e6)))
        >>> d = cal.to_dict()
        >>> d["fit"]["slope_bps_per_user"], d["targets"][0]
        (3000.0, {'load': 1.0, 'load_bps': 10000000.0, 'users': 3333})
        >>> Calibration.from_dict(d) == cal
        True
        """
        fit = self.fit
        return {
            "points": [asdict(p) for p in self.points],
            "fit": {"slope_bps_per_user": fit.slope, "intercept_bps": fit.intercept, "r2": fit.r2},
            "link_rate_bps": self.link_rate_bps,
            "targets": [
                {
                    "load": load,
                    "load_bps": load * self.link_rate_bps,
                    "users": self.users_for_load(load),
                }
                for load in self.targets
            ],
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Calibration:
        """Read a calibration written by :meth:`to_dict` (the fit is recomputed from the points)."""
        points = tuple(
            CalibrationPoint(
                users=args.integer("users", p["users"], low=1),
                throughput_bps=args.number("throughput_bps", p["throughput_bps"], low=0),
                run=args.text("run", p.get("run", "")),
            )
            for p in data["points"]
        )
        return cls(
            points=points,
            link_rate_bps=args.number("link_rate_bps", data["link_rate_bps"], above=0),
            targets=tuple(args.number("load", t["load"], above=0) for t in data.get("targets", [])),
            meta=dict(data.get("meta", {})),
        )

    def save(self, directory: str | Path) -> Path:
        """Write ``calibration.json`` into ``directory`` and return its path."""
        path = Path(directory) / CALIBRATION_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")
        return path

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        """Read a ``calibration.json`` (or the one in a directory)."""
        path = Path(path)
        if path.is_dir():
            path = path / CALIBRATION_FILE
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise ScenarioError(str(path), "no such file") from None
        except OSError as err:
            raise ScenarioError(str(path), f"cannot read: {err.strerror or err}") from None
        except (ValueError, KeyError, TypeError, AttributeError) as err:
            why = f"no {err}" if isinstance(err, KeyError) else shown(err)
            raise ScenarioError(str(path), f"not a calibration file ({why})") from None


def web_group(scenario: Mapping[str, Any]) -> int:
    """Find the index of the scenario's one ``web-mah`` traffic group.

    >>> web_group({"traffic": [{"kind": "cbr"}, {"kind": "web-mah", "users": 5}]})
    1
    >>> web_group({"traffic": []})
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic: expected exactly one "web-mah" group to calibrate, got 0
    """
    found = [
        index
        for index, group in enumerate(scenario.get("traffic", []))
        if isinstance(group, Mapping) and group.get("kind") == "web-mah"
    ]
    if len(found) != 1:
        raise ScenarioError(
            "traffic", f'expected exactly one "web-mah" group to calibrate, got {len(found)}'
        )
    return found[0]


def with_users(scenario: Mapping[str, Any], users: int) -> Scenario:
    """Copy ``scenario``, giving its ``web-mah`` group ``users`` users.

    >>> with_users({"traffic": [{"kind": "web-mah", "users": 5}]}, 7)["traffic"][0]["users"]
    7
    """
    copied = copy.deepcopy(dict(scenario))
    copied["traffic"][web_group(copied)]["users"] = int(users)
    return copied


def unconstrained(scenario: Mapping[str, Any], rate: str = UNCONSTRAINED_RATE) -> Scenario:
    """Copy ``scenario`` with the bottleneck at ``rate`` (100 Mbps: no bottleneck).

    >>> unconstrained({"topology": {"bottleneck": {"rate": "10Mbps"}}})["topology"]
    {'bottleneck': {'rate': '100Mbps'}}
    """
    copied = copy.deepcopy(dict(scenario))
    copied.setdefault("topology", {}).setdefault("bottleneck", {})["rate"] = rate
    return copied


def with_load(scenario: Mapping[str, Any], load: float, calibration: Calibration) -> Scenario:
    """Copy ``scenario`` with users offering ``load`` (a fraction of the calibration's link).

    >>> cal = Calibration((CalibrationPoint(1000, 3e6), CalibrationPoint(3000, 9e6)))
    >>> with_load({"traffic": [{"kind": "web-mah", "users": 1}]}, 0.98, cal)["traffic"][0]["users"]
    3267
    """
    return with_users(scenario, calibration.users_for_load(load))


def calibrate(
    scenario: ScenarioLike,
    users: Iterable[int] = DEFAULT_USERS,
    *,
    out: str | Path,
    jobs: int | None = None,
    client: Any = None,
    seed: int = 1,
    link_rate: str = "10Mbps",
    targets: Sequence[float] = DEFAULT_TARGETS,
    progress: bool = True,
) -> Calibration:
    """Calibrate offered load against users for a scenario with one ``web-mah`` group.

    Runs the scenario on the unconstrained network (bottleneck 100 Mbps) once per user count —
    a sweep named ``calibration`` into the run store ``out`` (finished runs are reused), in
    parallel on ``jobs`` processes or a Dask ``client`` — and writes ``out/calibration.json``.
    Loads in ``targets`` are fractions of ``link_rate``.
    """
    from aqmlab.args import MAX_SEED
    from aqmlab.executor import BatchProgress
    from aqmlab.sweeps import Axis, Sweep, make_executor, run_sweep

    if isinstance(users, str) or not isinstance(users, Iterable):
        raise args.ArgumentError("users", f"expected a list of user counts, got {users!r}")
    counts = sorted({args.integer("users", u, low=1) for u in users})
    if len(counts) < 2:
        raise ScenarioError("users", f"expected at least two distinct user counts, got {counts}")
    args.integer("seed", seed, low=0, high=MAX_SEED)
    link_rate_bps = parse_rate(link_rate)
    loads = tuple(args.number("targets", t, above=0) for t in targets)
    out = args.directory("out", out)
    args.boolean("progress", progress)
    base = unconstrained(as_scenario(scenario))
    group = web_group(base)
    path = f"traffic[{group}].users"
    sweep = Sweep(base, (Axis(path, tuple(counts), name="users"),), (seed,), name="calibration")
    with BatchProgress("calibration", enabled=progress) as bar:
        done = run_sweep(sweep, out, executor=make_executor(jobs=jobs, client=client), bar=bar)
    if done.failures:
        raise InputError(
            "calibration",
            "runs failed: " + "; ".join(f"{o.directory.name}: {o.error}" for o in done.failures),
        )
    points = tuple(
        CalibrationPoint(
            users=int(o.job.scenario["traffic"][group]["users"]),
            throughput_bps=float(o.summary["forward"]["throughput_bps"]),
            run=o.directory.name,
        )
        for o in done.outcomes
        if o.summary is not None
    )
    first = done.outcomes[0].summary["meta"] if done.outcomes[0].summary else {}
    meta = {
        "duration_s": first.get("duration_s"),
        "measured_s": first.get("measured_s"),
        "seed": seed,
        "bottleneck_rate": UNCONSTRAINED_RATE,
        "measure": "summary.forward.throughput_bps (R1 -> R2, servers -> clients)",
    }
    calibration = Calibration(points, link_rate_bps=link_rate_bps, targets=loads, meta=meta)
    calibration.save(out)
    return calibration
