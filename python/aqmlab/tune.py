r"""Tuning a queue: which settings suit this traffic? A search over parameters with Optuna.

Christiansen et al. (SIGCOMM 2000) found good RED settings for web traffic only by trial and
error (their Table 4). :func:`tune` searches instead: it asks Optuna for settings, runs each one
(a *trial*) at every seed into a run store — the same store, executors and reuse as
:mod:`aqmlab.sweeps` — and tells Optuna the result, in batches so that every worker is busy::

    aqmlab tune red.toml --param queue.min_th=5..60p:int \
        --param queue.max_th=min_th*2..min_th*6p:int \
        --param queue.w_q=0.001..0.01:log --param queue.max_p=0.01..0.5:log \
        --objective requests.median_s:min --objective requests.p90_s:min \
        --constraint forward.drop_rate<=0.05 --seeds 1-3 --trials 40 --out runs/tune

**Parameters** (``--param PATH=SPEC``; ``PATH`` a key path as in ``--set``):

- ``LOW..HIGH`` — a number between the bounds (both included); ``:log`` samples it on a log
  scale, ``:int`` as an integer (``:int:log`` both). A unit after a bound (``5..60p``,
  ``1ms..50ms``) is written after the value, so the scenario gets ``"24p"`` as ``--set``
  would; with no unit it gets the bare number. Packets (``"30p"``) are whole numbers to the
  engine, so a range in packets needs ``:int`` (RED's thresholds also take bare numbers, which
  are packets and may be fractions). Sampled numbers are rounded to 8 significant digits.
  Before anything runs, the scenario with every parameter in the middle of its range (a
  fraction unless ``:int``) must be one the engine accepts, so that such a mistake is an
  error naming ``--param`` rather than a tune of invalid trials.
- ``V1,V2,...`` — one of these values (read as in ``--set``: ``1/512,1/256`` or ``30p,60p``).
- A bound may be another (earlier) parameter times or plus a number: ``min_th*2``,
  ``min_th+10`` (the parameter by its path or its last key). Then Optuna samples the position
  in the range (0 to 1, ``PATH@position``) and the value follows the other parameter's: the
  simple way to keep RED's ``max_th > min_th`` without wasting trials on settings the engine
  refuses. The range must be non-empty for every value of the other parameter (checked when
  the job is read).

A trial whose scenario the engine refuses (say ``max_th`` above the queue's ``limit``) is
recorded as *invalid*, with the engine's message, and not run.

**Objectives** (``--objective METRIC:min|max``) and **constraints** (``--constraint
METRIC<=V``, ``>=``) name columns of ``aqmlab collect --table summary`` (``requests.median_s``,
``forward.drop_rate``, …; :func:`summary_metrics` lists them). Each is the **mean over the
seeds** of the trial; its 95% Student-t interval is recorded beside it. A trial is *feasible*
when every constraint holds for its mean; only feasible trials can be on the Pareto front or
recommended. A trial some of whose runs failed, or whose metric is null (no completed web
request), is recorded as *failed* and Optuna is told so.

**Sampler**: Optuna's TPE (``tpe``, the default: multivariate, with the constant liar for
parallel batches, 10 random start-up trials) handles one or several objectives and the
constraints; NSGA-II (``nsga2``, population = the batch size) and random search (``random``)
are there for comparison. The sampler's seed (``--seed``, default 1) and the batch size
(``--batch``, default 4: not the number of cores, so that the same job asks the same trials on
every machine) make a tune reproducible: the same job and the same store (and Optuna version,
recorded in ``tune.json``) give the same trials and the same results, and a re-run reuses every
stored run.

**Recommendation**: with one objective, the feasible trial with the best mean. With several,
the Pareto front of the feasible trials (on the means), and on it the trial with the lowest
weighted sum of its objectives, each normalised over the front to 0 (the front's best) … 1 (the
front's worst), the weights (``--weights``, default equal) divided by their sum; ties go to the
earlier trial. Where the recommended trial's interval overlaps another front trial's on every
objective, the report says so: the data do not show the recommendation to be better.

**Output** in ``OUT``: the run store (``OUT/store``, whose sweep ``tune`` lists every trial's
runs for ``aqmlab collect``), ``tune.json`` (the job and every trial: parameters, each
objective's mean and interval, constraint values, feasibility; the front and the
recommendation), ``report.md`` and ``pareto.png``.

A job can also be a TOML file, as reviewable as a sweep file::

    name = "red-98"
    scenario = "web.toml"            # a path relative to this file, or an inline [scenario] table
    seeds = "1-3"
    trials = 40
    batch = 4                        # optional: trials asked and run at a time (default 4)
    seed = 1                         # optional: the sampler's seed (default 1)
    sampler = "tpe"                  # optional: "tpe", "nsga2" or "random"
    params = ["queue.min_th=5..60p:int", "queue.max_th=min_th*2..min_th*6p:int"]
    objectives = ["requests.median_s:min", "requests.p90_s:min"]
    constraints = ["forward.drop_rate<=0.05"]
    weights = [1, 1]                 # optional: one per objective

    [[baseline]]                     # optional: settings tried first, as trials like the others
    "queue.min_th" = 30
    "queue.max_th" = 90

>>> p = Param.parse("queue.min_th=5..60p:int")
>>> p.low, p.high, p.unit, p.integer, p.setting(23)
(5.0, 60.0, 'p', True, '23p')
>>> Param.parse("queue.w_q=1/512,1/256").choices
('1/512', '1/256')
>>> Objective.parse("requests.p90_s:min"), Constraint.parse("forward.drop_rate<=0.05").bound
(Objective(metric='requests.p90_s', direction='min'), 0.05)
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import math
import re
import time
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import args
from aqmlab.errors import InputError, ScenarioError, shown
from aqmlab.executor import BatchProgress, Executor, Outcome
from aqmlab.scenario import (
    Scenario,
    ScenarioLike,
    as_scenario,
    format_path,
    parse_key,
    parse_value,
    read_toml,
    resolve,
    set_path,
)
from aqmlab.sweeps import Axis, Sweep, make_executor, parse_seeds, plan, run_sweep, split_values

FORMAT = "aqmlab-tune/1"
SWEEP_NAME = "tune"
"""The store's sweep that lists every trial's runs (``aqmlab collect OUT/store``)."""
SAMPLERS = ("tpe", "nsga2", "random")
DEFAULT_BATCH = 4
DEFAULT_TRIALS = 20
MAX_TRIALS = 100_000
LEVEL = 0.95
"""The confidence level of the intervals over seeds."""
DIGITS = 8
"""Significant digits a sampled number is rounded to (what runs, and what reports show)."""
POSITION = "@position"
"""Suffix of the name Optuna samples for a parameter with a relative bound (0 … 1 in its range)."""

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_BOUND = re.compile(
    rf"\s*(?:(?P<ref>[A-Za-z_][A-Za-z0-9_\[\].-]*?)\s*(?:(?P<op>[*+])\s*(?P<k>{_NUMBER}))?"
    rf"|(?P<num>{_NUMBER}))\s*(?P<unit>[A-Za-z%]*)\s*"
)


@dataclass(frozen=True)
class Bound:
    """One end of a range: ``k``, or another parameter ``ref`` times (``*``) or plus ``k``.

    >>> Bound(60.0).at({}), Bound(2.0, "queue.min_th", "*").at({"queue.min_th": 30.0})
    (60.0, 60.0)
    """

    k: float
    ref: str = ""
    op: str = ""

    def at(self, values: Mapping[str, float]) -> float:
        """Return the bound's value, given the values of the parameters sampled before."""
        if not self.ref:
            return self.k
        base = values[self.ref]
        return base * self.k if self.op == "*" else base + self.k

    def text(self) -> str:
        """Return the bound as written (with the reference's full path)."""
        if not self.ref:
            return f"{self.k:g}"
        return self.ref if self.op == "" else f"{self.ref}{self.op}{self.k:g}"


@dataclass(frozen=True)
class Param:
    """A parameter to tune: a key path and a range (numbers) or choices (any values)."""

    path: str
    low: float | Bound = 0.0
    high: float | Bound = 0.0
    choices: tuple[Any, ...] = ()
    unit: str = ""
    log: bool = False
    integer: bool = False

    @property
    def relative(self) -> bool:
        """Whether a bound depends on another parameter."""
        return isinstance(self.low, Bound) or isinstance(self.high, Bound)

    @property
    def refs(self) -> tuple[str, ...]:
        """The parameters its bounds depend on."""
        bounds = (self.low, self.high)
        return tuple(dict.fromkeys(b.ref for b in bounds if isinstance(b, Bound) and b.ref))

    @property
    def sampled_name(self) -> str:
        """The name Optuna samples: the path, or ``PATH@position`` for a relative range."""
        return self.path + POSITION if self.relative else self.path

    def spec(self) -> str:
        """Return the parameter as ``--param`` text.

        >>> low = Param.parse("queue.min_th=5..60p")
        >>> Param.parse("queue.max_th=min_th*2..min_th*6p", [low]).spec()
        'queue.max_th=queue.min_th*2..queue.min_th*6p'
        """
        if self.choices:
            return f"{self.path}=" + ",".join(_value_text(c) for c in self.choices)
        low, high = (_bound(b).text() for b in (self.low, self.high))
        flags = (":log" if self.log else "") + (":int" if self.integer else "")
        return f"{self.path}={low}..{high}{self.unit}{flags}"

    def range_at(self, values: Mapping[str, float]) -> tuple[float, float]:
        """Low and high, given the values of the parameters sampled before."""
        return _bound(self.low).at(values), _bound(self.high).at(values)

    def setting(self, number: Any) -> Any:
        """Return the scenario value for a sampled number or choice: with the unit, as ``--set``."""
        if self.choices:
            return number
        if self.integer:
            number = int(number)
        text = _number_text(number)
        return f"{text}{self.unit}" if self.unit else number

    @classmethod
    def parse(cls, text: str, known: Sequence[Param] = (), *, what: str = "--param") -> Param:
        """Read ``PATH=LOW..HIGH[UNIT][:log][:int]`` or ``PATH=V1,V2,...`` (see the module).

        ``known`` are the parameters declared before (for relative bounds).

        >>> Param.parse("queue.max_p=0..1:log")
        Traceback (most recent call last):
        ...
        aqmlab.errors.InputError: --param: queue.max_p: a :log range needs low > 0, got 0
        >>> Param.parse("queue.max_th=min_th*2..90")
        Traceback (most recent call last):
        ...
        aqmlab.errors.InputError: --param: queue.max_th: "min_th" is not a parameter declared \
before it (declared: none)
        """
        key, sep, spec = args.text(what, text).partition("=")
        if not sep or not key.strip() or not spec.strip():
            raise InputError(
                what, f'expected PATH=LOW..HIGH or PATH=V1,V2,..., got "{shown(text)}"'
            )
        path = format_path(parse_key(key, what=what))
        flags: list[str] = []
        while True:
            match = re.fullmatch(r"(.*):\s*(log|int)\s*", spec, flags=re.S)
            if match is None:
                break
            spec, flags = match.group(1), [match.group(2), *flags]
        where = f"{path}"
        if ".." not in spec:
            if flags:
                raise InputError(what, f"{where}: :{flags[0]} applies to a range LOW..HIGH only")
            values = tuple(parse_value(v, what=f"{what} {path}") for v in split_values(spec))
            if any(v == "" for v in values) or not values:
                raise InputError(
                    what, f'{where}: expected values like "1,2,3", got "{shown(spec)}"'
                )
            if len(set(map(_value_text, values))) != len(values):
                raise InputError(what, f"{where}: a value is listed twice")
            return cls(path, choices=values)
        low_text, high_text = spec.split("..", 1)
        low, low_unit = _parse_bound(low_text, known, what, where)
        high, high_unit = _parse_bound(high_text, known, what, where)
        if low_unit and high_unit and low_unit != high_unit:
            raise InputError(what, f'{where}: the bounds have different units, "{low_unit}" and '
                                   f'"{high_unit}"')  # fmt: skip
        param = cls(path, low, high, (), high_unit or low_unit, "log" in flags, "int" in flags)
        param._check(known, what)
        return param

    def envelope(self, known: Sequence[Param]) -> tuple[float, float]:
        """Return the lowest and highest value it can take (over its references' ranges)."""
        if not isinstance(self.low, Bound) and not isinstance(self.high, Bound):  # not relative
            return float(self.low), float(self.high)
        by_path = {p.path: p for p in known}
        lows: dict[str, float] = {}
        highs: dict[str, float] = {}
        for ref in self.refs:
            lows[ref], highs[ref] = by_path[ref].envelope(known)
        return self.range_at(lows)[0], self.range_at(highs)[1]

    def _check(self, known: Sequence[Param], what: str) -> None:
        where = self.path
        by_path = {p.path: p for p in known}
        for ref in self.refs:
            if by_path[ref].choices:
                raise InputError(what, f"{where}: a bound can refer only to a numeric range, "
                                       f"and {ref} is a list of values")  # fmt: skip
        for bound in (self.low, self.high):
            if isinstance(bound, Bound) and bound.op == "*" and bound.k <= 0:
                raise InputError(what, f"{where}: a factor must be > 0, got {bound.text()}")
        if self.relative:
            lows: dict[str, float] = {}
            highs: dict[str, float] = {}
            for ref in self.refs:
                lows[ref], highs[ref] = by_path[ref].envelope(known)
            ranges: tuple[tuple[float, float], ...] = (self.range_at(lows), self.range_at(highs))
        else:
            ranges = (self.range_at({}),)
        for low, high in ranges:
            if not (math.isfinite(low) and math.isfinite(high)) or low >= high:
                shown_range = f"{_number_text(low)}..{_number_text(high)}"
                raise InputError(what, f"{where}: expected LOW < HIGH, but the range can be "
                                       f"{shown_range}")  # fmt: skip
            if self.log and low <= 0:
                raise InputError(what, f"{where}: a :log range needs low > 0, got "
                                       f"{_number_text(low)}")  # fmt: skip
        if self.integer and not self.relative:
            low, high = ranges[0]
            if low != int(low) or high != int(high):
                raise InputError(what, f"{where}: an :int range needs integer bounds, got "
                                       f"{_number_text(low)}..{_number_text(high)}")  # fmt: skip

    def suggest(self, trial: Any, values: dict[str, float]) -> Any:
        """Ask an Optuna trial for this parameter's number (or choice); record numbers in values."""
        if self.choices:
            index = trial.suggest_categorical(self.path, list(range(len(self.choices))))
            return self.choices[index]
        if not self.relative:
            low, high = self.range_at({})
            if self.integer:
                number: float = trial.suggest_int(self.path, int(low), int(high), log=self.log)
            else:
                number = trial.suggest_float(self.path, low, high, log=self.log)
        else:
            low, high = self.range_at(values)
            position = trial.suggest_float(self.sampled_name, 0.0, 1.0)
            number = low * (high / low) ** position if self.log else low + position * (high - low)
            number = min(max(number, low), high)
            if self.integer:
                number = min(max(round(number), math.ceil(low)), math.floor(high))
        if not self.integer:
            number = float(f"{number:.{DIGITS}g}")
        values[self.path] = number
        return number

    def middle(self, values: dict[str, float]) -> Any:
        """Return the value in the middle of the range (a fraction unless the range is ``:int``).

        >>> Param.parse("queue.min_th=2..20p").middle({}), Param.parse("x=1..100:log").middle({})
        (11.018, 10.099)
        """
        if self.choices:
            return self.choices[0]
        low, high = self.range_at(values)
        number = math.sqrt(low * high) if self.log else (low + high) / 2
        if self.integer:
            number = round(number)
        elif float(number).is_integer():  # a fraction: the engine may take only whole numbers
            number += (high - low) / 1000
        values[self.path] = number
        return number

    def sampled(self, number: Any, values: Mapping[str, float]) -> Any:
        """Return what Optuna samples for this number (:meth:`suggest` inverted), for baselines."""
        if self.choices:
            texts = [_value_text(c) for c in self.choices]
            if _value_text(number) not in texts:
                raise InputError(f"baseline.{self.path}", f"expected one of {', '.join(texts)}, "
                                                          f"got {_value_text(number)}")  # fmt: skip
            return texts.index(_value_text(number))
        low, high = self.range_at(values)
        if not low <= number <= high:
            raise InputError(f"baseline.{self.path}", f"expected a number from "
                             f"{_number_text(low)} to {_number_text(high)}, "
                             f"got {number}")  # fmt: skip
        if not self.relative:
            return int(number) if self.integer else float(number)
        if self.log:
            return math.log(number / low) / math.log(high / low)
        return (number - low) / (high - low)


def _bound(value: float | Bound) -> Bound:
    return value if isinstance(value, Bound) else Bound(float(value))


def _number_text(number: float) -> str:
    """Write a number as a scenario value's text: integers without a point, others in full.

    >>> _number_text(30), _number_text(30.0), _number_text(0.1 + 0.2)
    ('30', '30', '0.30000000000000004')
    """
    if float(number).is_integer():
        return str(int(number))
    return repr(float(number))


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _parse_bound(
    text: str, known: Sequence[Param], what: str, where: str
) -> tuple[float | Bound, str]:
    match = _BOUND.fullmatch(text)
    if match is None or not text.strip():
        raise InputError(what, f'{where}: expected a bound like "5", "5p" or "min_th*2", got '
                               f'"{shown(text.strip())}"')  # fmt: skip
    unit = match.group("unit")
    if match.group("num") is not None:
        return float(match.group("num")), unit
    name = match.group("ref")
    found = [p for p in known if p.path == name or p.path.rsplit(".", 1)[-1] == name]
    if len(found) != 1:
        declared = ", ".join(p.path for p in known) or "none"
        why = "is ambiguous" if found else "is not a parameter declared before it"
        raise InputError(what, f'{where}: "{shown(name)}" {why} (declared: {declared})')
    op = match.group("op") or "*"
    k = float(match.group("k")) if match.group("k") is not None else (1.0 if op == "*" else 0.0)
    return Bound(k, found[0].path, op), unit


@dataclass(frozen=True)
class Objective:
    """A summary metric to minimise or maximise (its mean over seeds)."""

    metric: str
    direction: str

    @classmethod
    def parse(cls, text: str) -> Objective:
        """Read ``METRIC:min`` or ``METRIC:max`` (an old metric name as its new one)."""
        from aqmlab.reading import current_name

        metric, sep, direction = args.text("--objective", text).rpartition(":")
        if not sep or direction.strip() not in ("min", "max") or not metric.strip():
            raise InputError("--objective", f'expected METRIC:min or METRIC:max, got '
                                            f'"{shown(text)}"')  # fmt: skip
        return cls(current_name(metric.strip()), direction.strip())

    def spec(self) -> str:
        """Return the objective as ``--objective`` text."""
        return f"{self.metric}:{self.direction}"


@dataclass(frozen=True)
class Constraint:
    """A bound on a summary metric's mean over seeds: ``metric <= bound`` or ``>=``."""

    metric: str
    op: str
    bound: float

    @classmethod
    def parse(cls, text: str) -> Constraint:
        """Read ``METRIC<=V`` or ``METRIC>=V`` (an old metric name as its new one)."""
        from aqmlab.reading import current_name

        match = re.fullmatch(rf"\s*([^<>=\s]+)\s*(<=|>=)\s*({_NUMBER})\s*",
                             args.text("--constraint", text))  # fmt: skip
        if match is None:
            raise InputError("--constraint", f'expected METRIC<=VALUE or METRIC>=VALUE, got '
                                             f'"{shown(text)}"')  # fmt: skip
        return cls(current_name(match.group(1)), match.group(2), float(match.group(3)))

    def spec(self) -> str:
        """Return the constraint as ``--constraint`` text."""
        return f"{self.metric}{self.op}{self.bound:g}"

    def violation(self, value: float) -> float:
        """How far ``value`` is past the bound (≤ 0: satisfied), as Optuna's constraints take it."""
        return value - self.bound if self.op == "<=" else self.bound - value


@functools.cache
def summary_metrics() -> tuple[str, ...]:
    """List the numeric columns of ``aqmlab collect --table summary``: what objectives may name.

    The run summary has the same sections and keys in every run (``drops_pkts_by_reason`` lists
    every reason), so they are read from a 1-millisecond run; ``meta.*`` (wall time, event counts,
    the seed) describes the run, not the network, and is left out.

    >>> {"requests.median_s", "forward.drop_rate"} <= set(summary_metrics())
    True
    """
    from aqmlab.reading import flatten
    from aqmlab.runner import run

    probe = {"duration": "1ms", "topology": {"bottleneck": {"rate": "10Mbps"}},
             "traffic": [{"kind": "cbr", "rate": "1Mbps"},
                         {"kind": "web-mah", "users": 1}]}  # fmt: skip
    columns = flatten(run(probe, seed=1, progress=False).summary)
    return tuple(
        sorted(
            name
            for name, value in columns.items()
            if not name.startswith("meta.") and not isinstance(value, bool | str)
        )
    )


def check_metric(metric: str, what: str) -> None:
    """Refuse a metric that is not a numeric summary column, suggesting the nearest ones."""
    known = summary_metrics()
    if metric in known:
        return
    near = difflib.get_close_matches(metric, known, n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(near)}?)" if near else ""
    raise InputError(what, f'no summary metric "{shown(metric)}"{hint}; the metrics are the '
                           "numeric columns of aqmlab collect --table summary, e.g. "
                           "requests.median_s, forward.drop_rate")  # fmt: skip


@dataclass(frozen=True)
class TuneJob:
    """What to tune: a base scenario, parameters, objectives, constraints, seeds, budget."""

    base: Scenario = field(repr=False)
    params: tuple[Param, ...]
    objectives: tuple[Objective, ...]
    constraints: tuple[Constraint, ...] = ()
    weights: tuple[float, ...] = ()
    seeds: tuple[int, ...] = (1,)
    trials: int = DEFAULT_TRIALS
    batch: int = DEFAULT_BATCH
    seed: int = 1
    sampler: str = "tpe"
    name: str = "tune"
    baselines: tuple[dict[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if not self.params:
            raise InputError("--param", "expected at least one parameter to tune")
        if not self.objectives:
            raise InputError("--objective", "expected at least one objective")
        paths = [p.path for p in self.params]
        if len(set(paths)) != len(paths):
            raise InputError("--param", "a parameter is given twice")
        metrics = [o.metric for o in self.objectives]
        if len(set(metrics)) != len(metrics):
            raise InputError("--objective", "an objective is given twice")
        for objective in self.objectives:
            check_metric(objective.metric, "--objective")
        for constraint in self.constraints:
            check_metric(constraint.metric, "--constraint")
        if self.weights:
            if len(self.weights) != len(self.objectives):
                raise InputError("--weights", f"expected one weight per objective "
                                 f"({len(self.objectives)}), got {len(self.weights)}")  # fmt: skip
            for w in self.weights:
                args.number("--weights", w, above=0)
        else:
            object.__setattr__(self, "weights", (1.0,) * len(self.objectives))
        args.integer("--trials", self.trials, low=1, high=MAX_TRIALS)
        args.integer("--batch", self.batch, low=1, high=MAX_TRIALS)
        args.integer("--seed", self.seed, low=0, high=2**32 - 1)
        args.text("--sampler", self.sampler, choices=SAMPLERS)
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", self.name):
            raise InputError("name", f'expected letters, digits, "._-", got "{shown(self.name)}"')
        if len(self.baselines) > self.trials:
            raise InputError("baseline", f"{len(self.baselines)} baselines but only "
                                         f"{self.trials} trials")  # fmt: skip
        for baseline in self.baselines:
            self.sampled_baseline(baseline)
        self._check_middle()

    def _check_middle(self) -> None:
        """Refuse a job whose scenario the engine refuses in the middle of every range."""
        values: dict[str, float] = {}
        settings = {p.path: p.setting(p.middle(values)) for p in self.params}
        try:
            resolve(self.scenario(settings))
        except ScenarioError as err:
            at = ", ".join(f"{k}={_value_text(v)}" for k, v in settings.items())
            hint = ""
            if any(p.unit and not p.integer and not p.choices for p in self.params):
                hint = (" (a unit the engine takes only with whole numbers, such as packets "
                        '"30p", needs :int)')  # fmt: skip
            raise InputError("--param", f"the engine refuses the scenario in the middle of the "
                             f"ranges ({at}): {err}{hint}") from None  # fmt: skip

    def scenario(self, settings: Mapping[str, Any]) -> Scenario:
        """Return the base scenario with these parameter settings (``{path: value}``)."""
        scenario = as_scenario(self.base)
        for path, value in settings.items():
            set_path(scenario, parse_key(path, what="--param"), value)
        return scenario

    @property
    def normalised_weights(self) -> tuple[float, ...]:
        """The weights divided by their sum."""
        total = sum(self.weights)
        return tuple(w / total for w in self.weights)

    def sampled_baseline(self, baseline: Mapping[str, Any]) -> dict[str, Any]:
        """Optuna's parameters for a baseline (``{path: value}`` of every parameter)."""
        missing = [p.path for p in self.params if p.path not in baseline]
        extra = [k for k in baseline if k not in {p.path for p in self.params}]
        if missing or extra:
            raise InputError("baseline", f"expected a value for each parameter and no other "
                             f"(missing: {', '.join(missing) or 'none'}; unknown: "
                             f"{', '.join(extra) or 'none'})")  # fmt: skip
        values: dict[str, float] = {}
        sampled = {}
        for param in self.params:
            value = baseline[param.path]
            if not param.choices:
                value = args.number(f"baseline.{param.path}", value)
                values[param.path] = value
            sampled[param.sampled_name] = param.sampled(value, values)
        return sampled

    def to_dict(self) -> dict[str, Any]:
        """Return the job as the structure of a tune file (with the scenario inline)."""
        return {
            "name": self.name,
            "seeds": list(self.seeds),
            "trials": self.trials,
            "batch": self.batch,
            "seed": self.seed,
            "sampler": self.sampler,
            "params": [p.spec() for p in self.params],
            "objectives": [o.spec() for o in self.objectives],
            "constraints": [c.spec() for c in self.constraints],
            "weights": list(self.weights),
            "baseline": [dict(b) for b in self.baselines],
            "scenario": self.base,
        }

    @classmethod
    def from_options(
        cls,
        base: ScenarioLike,
        params: Sequence[str],
        objectives: Sequence[str],
        *,
        constraints: Sequence[str] = (),
        weights: Sequence[float] | str = (),
        seeds: str | int | Iterable[int] = (1,),
        trials: int = DEFAULT_TRIALS,
        batch: int = DEFAULT_BATCH,
        seed: int = 1,
        sampler: str = "tpe",
        name: str = "tune",
        baselines: Sequence[Mapping[str, Any]] = (),
    ) -> TuneJob:
        """Build a job from ``--param``, ``--objective``, ``--constraint`` texts."""
        parsed: list[Param] = []
        for text in args.texts("params", list(params)):
            parsed.append(Param.parse(text, parsed))
        return cls(
            as_scenario(base),
            tuple(parsed),
            tuple(Objective.parse(t) for t in args.texts("objectives", list(objectives))),
            tuple(Constraint.parse(t) for t in args.texts("constraints", list(constraints))),
            parse_weights(weights),
            parse_seeds(seeds),
            trials,
            batch,
            seed,
            sampler,
            name,
            tuple(dict(b) for b in baselines),
        )

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, relative_to: Path = Path("."), source: str = "tune"
    ) -> TuneJob:
        """Build a job from the structure of a tune file."""
        known = {"name", "scenario", "seeds", "trials", "batch", "seed", "sampler", "params",
                 "objectives", "constraints", "weights", "baseline"}  # fmt: skip
        for key in data:
            if key not in known:
                raise InputError(key, f"unknown key in a tune file (expected: {sorted(known)})")
        for key in ("scenario", "params", "objectives"):
            if key not in data:
                raise InputError(key, "required key is missing")
        base = data["scenario"]
        if isinstance(base, str):
            base = read_toml(relative_to / base)
        elif not isinstance(base, Mapping):
            raise InputError("scenario", "expected a path to a scenario file or a table")
        baselines = data.get("baseline", [])
        if not isinstance(baselines, list) or not all(isinstance(b, Mapping) for b in baselines):
            raise InputError("baseline", "expected an array of tables ([[baseline]])")
        stem = Path(source).stem if source != "tune" else "tune"
        return cls.from_options(
            base,
            _texts(data, "params"),
            _texts(data, "objectives"),
            constraints=_texts(data, "constraints"),
            weights=data.get("weights", ()),
            seeds=data.get("seeds", [1]),
            trials=data.get("trials", DEFAULT_TRIALS),
            batch=data.get("batch", DEFAULT_BATCH),
            seed=data.get("seed", 1),
            sampler=data.get("sampler", "tpe"),
            name=str(data.get("name", stem)),
            baselines=baselines,
        )


TUNE_FILE_KEYS = ("params", "objectives")
"""Top-level keys that make a TOML file a tune file rather than a scenario (which has neither)."""


def build_job(
    source: Path,
    *,
    params: Sequence[str] = (),
    objectives: Sequence[str] = (),
    constraints: Sequence[str] = (),
    overrides: Sequence[str] = (),
    **options: Any,
) -> TuneJob:
    r"""Build the job that ``aqmlab tune SOURCE ...`` asks for.

    ``SOURCE`` is a scenario file, tuned by the options, or a tune file (it has ``params`` or
    ``objectives``), to whose lists ``--param``, ``--objective`` and ``--constraint`` add and
    whose other keys the options given (``options``, not ``None``) replace. ``--set`` overrides
    apply to the base scenario either way.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "t.toml"
    ...     _ = path.write_text('seeds = "1-2"\nparams = ["queue.limit=5..50p:int"]\n'
    ...                         'objectives = ["requests.median_s:min"]\n'
    ...                         '[scenario]\nduration = "1s"\nqueue = { kind = "droptail" }\n'
    ...                         'topology = { bottleneck = { rate = "1Mbps" } }\n')
    ...     job = build_job(path, objectives=["requests.p90_s:min"], trials=8,
    ...                     overrides=["seed=9"])
    >>> job.name, job.seeds, job.trials, [o.metric for o in job.objectives], job.base["seed"]
    ('t', (1, 2), 8, ['requests.median_s', 'requests.p90_s'], 9)
    """
    from aqmlab.scenario import apply_overrides

    data = read_toml(source)
    chosen = {k: v for k, v in options.items() if v is not None}
    if any(key in data for key in TUNE_FILE_KEYS):
        merged = dict(data)
        for key, extra in (("params", params), ("objectives", objectives),
                           ("constraints", constraints)):  # fmt: skip
            merged[key] = [*_texts(data, key), *extra] if extra else data.get(key, [])
        merged.update(chosen)
        try:
            job = TuneJob.from_dict(merged, relative_to=source.parent, source=str(source))
        except InputError as err:
            if err.path.startswith("--"):
                raise
            raise type(err)(f"{source}: {err.path}" if err.path else str(source),
                            err.message) from None  # fmt: skip
        return dataclasses.replace(job, base=apply_overrides(job.base, overrides))
    return TuneJob.from_options(apply_overrides(data, overrides), params, objectives,
                                constraints=constraints, **chosen)  # fmt: skip


def _texts(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(key, "expected an array of strings")
    return value


def parse_weights(weights: Sequence[float] | str) -> tuple[float, ...]:
    """Read ``--weights 2,1`` (or a list of numbers): positive, one per objective.

    >>> parse_weights("2,1"), parse_weights([1, 3])
    ((2.0, 1.0), (1.0, 3.0))
    >>> parse_weights("2,x")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: --weights: expected positive numbers like "2,1", got "2,x"
    """
    if isinstance(weights, str):
        try:
            numbers = [float(w) for w in weights.split(",")]
        except ValueError:
            raise InputError("--weights", f'expected positive numbers like "2,1", got '
                                          f'"{shown(weights)}"') from None  # fmt: skip
    else:
        numbers = [args.number("--weights", w) for w in weights]
    for w in numbers:
        if not (math.isfinite(w) and w > 0):
            raise InputError("--weights", f"expected positive numbers, got {w:g}")
    return tuple(numbers)


# --- running --------------------------------------------------------------------------------------
@dataclass
class Trial:
    """One trial: its settings, its runs' metrics, and what became of it.

    ``state`` is ``complete`` (every run finished with every metric), ``failed`` (a run failed
    or a metric was null) or ``invalid`` (the engine refused the scenario: not run).
    """

    number: int
    params: dict[str, Any]
    sampled: dict[str, Any]
    baseline: bool = False
    state: str = "complete"
    error: str = ""
    objectives: dict[str, dict[str, Any]] = field(default_factory=dict)
    constraints: list[dict[str, Any]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)

    @property
    def feasible(self) -> bool:
        """Complete, and every constraint holds for its mean."""
        return self.state == "complete" and all(c["satisfied"] for c in self.constraints)

    def mean(self, metric: str) -> float:
        """Return the mean over seeds of an objective."""
        return float(self.objectives[metric]["mean"])

    def to_dict(self) -> dict[str, Any]:
        """Return the trial as ``tune.json`` lists it."""
        return {**dataclasses.asdict(self), "feasible": self.feasible}


def interval(values: Sequence[float], level: float = LEVEL) -> dict[str, Any]:
    """Mean over seeds and its Student-t interval (``lo``/``hi`` null with one seed).

    >>> row = interval([1.0, 3.0])
    >>> row["mean"], row["n"], round(row["hi"], 3)
    (2.0, 2, 14.706)
    """
    import pandas as pd

    from aqmlab.stats import mean_ci

    row = mean_ci(pd.DataFrame({"v": list(values)}), "v", level=level).iloc[0]

    def number(x: Any) -> float | None:
        return None if math.isnan(float(x)) else float(x)

    return {
        "mean": float(row["v_mean"]),
        "lo": number(row["v_lo"]),
        "hi": number(row["v_hi"]),
        "sd": number(row["v_sd"]),
        "n": int(row["v_n"]),
        "seeds": [float(v) for v in values],
    }


def _optuna() -> Any:
    try:
        import optuna
    except ImportError:
        raise InputError("tune", "needs Optuna: install aqmlab with the tune extra "
                                 "(aqmlab[tune])") from None  # fmt: skip
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna


def make_sampler(job: TuneJob) -> Any:
    """Make the Optuna sampler the job names, seeded (constraints: set on each trial)."""
    optuna = _optuna()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        if job.sampler == "nsga2":
            return optuna.samplers.NSGAIISampler(population_size=max(2, job.batch), seed=job.seed)
        if job.sampler == "random":
            return optuna.samplers.RandomSampler(seed=job.seed)
        return optuna.samplers.TPESampler(seed=job.seed, multivariate=True, constant_liar=True)


@dataclass(frozen=True)
class TuneResult:
    """A finished tune: its job, trials, front, recommendation and where things are."""

    job: TuneJob
    trials: list[Trial]
    front: list[int]
    recommendation: dict[str, Any]
    out: Path
    counts: dict[str, int]
    """Distinct runs: how many, and how many were reused, run now, failed."""

    @property
    def store(self) -> Path:
        """The run store."""
        return self.out / "store"


def _point(job: TuneJob, optuna_trial: Any) -> tuple[dict[str, Any], Scenario]:
    values: dict[str, float] = {}
    settings = {p.path: p.setting(p.suggest(optuna_trial, values)) for p in job.params}
    return settings, job.scenario(settings)


def _evaluate(job: TuneJob, trial: Trial, outcomes: Sequence[Outcome]) -> None:
    """Fill a trial's objectives and constraints from its runs' summaries (one per seed)."""
    from aqmlab.reading import flatten

    trial.runs = [o.directory.name for o in outcomes]
    failed = [o for o in outcomes if o.summary is None]
    if failed:
        trial.state, trial.error = (
            "failed",
            f"run {failed[0].directory.name} failed: {failed[0].error}",
        )
        return
    columns = [flatten(o.summary) for o in outcomes if o.summary is not None]
    metrics = [o.metric for o in job.objectives] + [c.metric for c in job.constraints]
    for metric in dict.fromkeys(metrics):
        values = [c.get(metric) for c in columns]
        if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
            trial.state = "failed"
            trial.error = f"{metric} is null in a run (nothing to measure: no completed request?)"
            return
    for objective in job.objectives:
        trial.objectives[objective.metric] = interval([float(c[objective.metric]) for c in columns])
    for constraint in job.constraints:
        row = interval([float(c[constraint.metric]) for c in columns])
        trial.constraints.append({"constraint": constraint.spec(), **row,
                                  "violation": constraint.violation(row["mean"]),
                                  "satisfied": constraint.violation(row["mean"]) <= 0})  # fmt: skip


def tune_job(
    job: TuneJob,
    out: str | Path,
    *,
    executor: Executor | None = None,
    bar: BatchProgress | None = None,
) -> TuneResult:
    """Run a tune into ``out`` (the store in ``out/store``) and write its outputs there."""
    optuna = _optuna()
    out = args.directory("out", out)
    store = out / "store"
    study = optuna.create_study(
        directions=["minimize" if o.direction == "min" else "maximize" for o in job.objectives],
        sampler=make_sampler(job),
    )
    for baseline in job.baselines:
        study.enqueue_trial(job.sampled_baseline(baseline))
    trials: list[Trial] = []
    counts = {"runs": 0, "reused": 0, "ran": 0, "failed": 0}
    counted: set[Path] = set()
    bar = bar or BatchProgress(f"tune {job.name}", enabled=False)
    points: list[tuple[Trial, Scenario]] = []
    while len(trials) < job.trials:
        asked = [study.ask() for _ in range(min(job.batch, job.trials - len(trials)))]
        batch: list[tuple[Any, Trial, Scenario | None]] = []
        for optuna_trial in asked:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
                settings, scenario = _point(job, optuna_trial)
            trial = Trial(optuna_trial.number, settings, dict(optuna_trial.params),
                          baseline=optuna_trial.number < len(job.baselines))  # fmt: skip
            try:
                resolve(scenario)
            except ScenarioError as err:
                trial.state, trial.error = "invalid", f"the engine refused it: {err}"
                batch.append((optuna_trial, trial, None))
                continue
            batch.append((optuna_trial, trial, scenario))
        runnable = [(t, s) for _, t, s in batch if s is not None]
        if runnable:
            sweep = _sweep(job, runnable)
            done = run_sweep(sweep, store, executor=executor, bar=bar,
                             label=f"trials {len(trials) + 1}-"
                                   f"{len(trials) + len(batch)}")  # fmt: skip
            per_trial = len(job.seeds)
            for position, (trial, _) in enumerate(runnable):
                outcomes = done.outcomes[position * per_trial : (position + 1) * per_trial]
                _evaluate(job, trial, outcomes)
            for outcome in done.outcomes:  # each run once (two trials may share a setting)
                if outcome.directory not in counted:
                    counted.add(outcome.directory)
                    counts["runs"] += 1
                    counts[outcome.status] += 1
            points.extend(runnable)
        for optuna_trial, trial, _ in batch:
            if trial.state == "complete":
                for constraint in trial.constraints:  # Optuna: feasible when all are <= 0
                    optuna_trial.set_constraint(constraint["constraint"], constraint["violation"])
                study.tell(optuna_trial, [trial.mean(o.metric) for o in job.objectives])
            else:
                study.tell(optuna_trial, state=optuna.trial.TrialState.FAIL)
            trials.append(trial)
            bar.log(f"trial {trial.number}: {_trial_line(job, trial)}")
    if points:  # one index of every trial's runs, for aqmlab collect
        from aqmlab.store import Store

        index = plan(_sweep(job, points))[2]
        opened = Store.open(store, create=True)
        with opened.lock():
            opened.save_sweep(SWEEP_NAME, index)
    front = pareto_front(job, trials)
    result = TuneResult(job, trials, front, recommend(job, trials, front), out, counts)
    write_outputs(result)
    return result


def _sweep(job: TuneJob, points: Sequence[tuple[Trial, Scenario]]) -> Sweep:
    """Make the trials a sweep: one zipped axis per parameter (values as the scenario gets them)."""
    axes = tuple(
        Axis(
            p.path,
            tuple(t.params[p.path] for t, _ in points),
            tuple(_value_text(t.params[p.path]) for t, _ in points),
        )  # fmt: skip
        for p in job.params
    )
    return Sweep(job.base, axes, job.seeds, zip=True, name=SWEEP_NAME)


def _trial_line(job: TuneJob, trial: Trial) -> str:
    settings = ", ".join(f"{k}={_value_text(v)}" for k, v in trial.params.items())
    if trial.state != "complete":
        return f"{settings}: {trial.state.upper()} ({trial.error})"
    means = ", ".join(f"{o.metric}={trial.mean(o.metric):.4g}" for o in job.objectives)
    return f"{settings}: {means}" + ("" if trial.feasible else " (infeasible)")


# --- front and recommendation ---------------------------------------------------------------------
def _oriented(job: TuneJob, trial: Trial) -> list[float]:
    """Return the trial's objective means, each turned so that lower is better."""
    return [trial.mean(o.metric) * (1 if o.direction == "min" else -1) for o in job.objectives]


def dominates(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether ``a`` is at least as good as ``b`` everywhere and better somewhere (lower is better).

    >>> dominates([1, 2], [1, 3]), dominates([1, 2], [1, 2]), dominates([0, 3], [1, 2])
    (True, False, False)
    """
    return all(x <= y for x, y in zip(a, b, strict=True)) and any(
        x < y for x, y in zip(a, b, strict=True)
    )


def pareto_front(job: TuneJob, trials: Sequence[Trial]) -> list[int]:
    """List the feasible trials no other feasible trial dominates (on the means), by trial number.

    Trials with the same means as an earlier front trial are left out (the same setting twice).
    """
    feasible = [t for t in trials if t.feasible]
    front: list[int] = []
    seen: set[tuple[float, ...]] = set()
    for trial in feasible:
        mine = _oriented(job, trial)
        if any(dominates(_oriented(job, other), mine) for other in feasible):
            continue
        if tuple(mine) in seen:
            continue
        seen.add(tuple(mine))
        front.append(trial.number)
    return front


def scores(job: TuneJob, front: Sequence[Trial]) -> dict[int, float]:
    """Weighted sum of normalised objectives (0 = the front's best, 1 = its worst) per trial.

    >>> base = {"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}},
    ...         "queue": {"kind": "droptail"}}
    >>> job = TuneJob(base, (Param("queue.limit", 2.0, 40.0, unit="p", integer=True),),
    ...               (Objective("requests.median_s", "min"), Objective("requests.p90_s", "min")),
    ...               weights=(3, 1))
    >>> a = Trial(0, {}, {}, objectives={"requests.median_s": {"mean": 1.0},
    ...                                  "requests.p90_s": {"mean": 4.0}})
    >>> b = Trial(1, {}, {}, objectives={"requests.median_s": {"mean": 2.0},
    ...                                  "requests.p90_s": {"mean": 3.0}})
    >>> scores(job, [a, b])
    {0: 0.25, 1: 0.75}
    """
    oriented = {t.number: _oriented(job, t) for t in front}
    result = dict.fromkeys(oriented, 0.0)
    for i, weight in enumerate(job.normalised_weights):
        column = [v[i] for v in oriented.values()]
        best, worst = min(column), max(column)
        for number, values in oriented.items():
            share = (values[i] - best) / (worst - best) if worst > best else 0.0
            result[number] += weight * share
    return result


def _overlaps(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two intervals overlap (no interval, one seed: counted as overlapping)."""
    if a["lo"] is None or b["lo"] is None:
        return True
    return bool(a["lo"] <= b["hi"] and b["lo"] <= a["hi"])


def recommend(job: TuneJob, trials: Sequence[Trial], front: Sequence[int]) -> dict[str, Any]:
    """Pick the recommended trial (see the module) and list those it is not shown better than."""
    by_number = {t.number: t for t in trials}
    if not front:
        return {"trial": None, "how": "no feasible trial", "indistinguishable": []}
    if len(job.objectives) == 1:
        metric = job.objectives[0].metric
        feasible = [t for t in trials if t.feasible]
        sign = 1 if job.objectives[0].direction == "min" else -1
        best = min(feasible, key=lambda t: (sign * t.mean(metric), t.number))
        how = f"the feasible trial with the best mean {metric}"
        rivals = [t for t in feasible if t.number != best.number]
        score: dict[int, float] = {}
    else:
        score = scores(job, [by_number[n] for n in front])
        chosen = min(front, key=lambda n: (score[n], n))
        best = by_number[chosen]
        weights = ", ".join(f"{o.metric} {w:.3g}" for o, w in
                            zip(job.objectives, job.normalised_weights, strict=True))  # fmt: skip
        how = ("the Pareto-front trial with the lowest weighted sum of its objectives, each "
               "normalised over the front to 0 (best) … 1 (worst); weights (normalised): "
               f"{weights}")  # fmt: skip
        rivals = [by_number[n] for n in front if n != chosen]
    close = [
        t.number
        for t in rivals
        if all(_overlaps(best.objectives[o.metric], t.objectives[o.metric]) for o in job.objectives)
    ]
    return {
        "trial": best.number,
        "params": best.params,
        "objectives": {o.metric: best.objectives[o.metric] for o in job.objectives},
        "how": how,
        "scores": {str(k): v for k, v in score.items()},
        "indistinguishable": close,
    }


# --- outputs --------------------------------------------------------------------------------------
def write_outputs(result: TuneResult) -> None:
    """Write ``tune.json``, ``report.md`` and ``pareto.png`` into the tune's directory."""
    result.out.mkdir(parents=True, exist_ok=True)
    data = {
        "format": FORMAT,
        "optuna": _optuna().__version__,  # the trials asked are reproducible with this version
        "job": result.job.to_dict(),
        "trials": [t.to_dict() for t in result.trials],
        "front": result.front,
        "recommendation": result.recommendation,
    }
    (result.out / "tune.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    figure = draw_front(result, result.out / "pareto.png")
    (result.out / "report.md").write_text(report(result, figure), encoding="utf-8")


def _ci_text(row: Mapping[str, Any]) -> str:
    if row["lo"] is None:
        return f"{row['mean']:.4g}"
    return f"{row['mean']:.4g} [{row['lo']:.4g}, {row['hi']:.4g}]"


def _table(job: TuneJob, trials: Sequence[Trial]) -> list[str]:
    head = ["trial", *(p.path for p in job.params), *(o.spec() for o in job.objectives),
            *(c.spec() for c in job.constraints)]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for t in trials:
        cells = [f"{t.number}" + (" (baseline)" if t.baseline else "")]
        cells += [_value_text(t.params[p.path]) if not isinstance(t.params[p.path], float)
                  else f"{t.params[p.path]:.4g}" for p in job.params]  # fmt: skip
        if t.state != "complete":
            cells += [t.state] * (len(job.objectives) + len(job.constraints))
        else:
            cells += [_ci_text(t.objectives[o.metric]) for o in job.objectives]
            cells += [_ci_text(c) + ("" if c["satisfied"] else " ✗") for c in t.constraints]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def report(result: TuneResult, figure: Path | None) -> str:
    """Write the tune's report (Markdown): the job, the front, the recommendation, every trial."""
    job, trials = result.job, result.trials
    by_number = {t.number: t for t in trials}
    rec = result.recommendation
    feasible = sum(t.feasible for t in trials)
    states = {s: sum(t.state == s for t in trials) for s in ("complete", "failed", "invalid")}
    lines = [
        f"# Tune {job.name}",
        "",
        f"- parameters: {'; '.join(f'`{p.spec()}`' for p in job.params)}",
        f"- objectives (mean over seeds): {', '.join(f'`{o.spec()}`' for o in job.objectives)}",
        f"- constraints: {', '.join(f'`{c.spec()}`' for c in job.constraints) or 'none'}",
        f"- seeds: {', '.join(map(str, job.seeds))}; trials: {job.trials} in batches of "
        f"{job.batch}; sampler: {job.sampler}, seed {job.seed}",
        f"- scenario: `{job.base.get('name', '(unnamed)')}`, duration {job.base.get('duration')}"
        f", warm-up {job.base.get('warmup', '0s')}",
        f"- trials: {states['complete']} complete ({feasible} feasible), {states['failed']} "
        f"failed, {states['invalid']} invalid",
        "",
        f"Intervals are {LEVEL:.0%} Student-t intervals of the mean over the {len(job.seeds)} "
        "seeds" + (" (one seed: none)." if len(job.seeds) < 2 else "."),
        "",
        "## Recommendation",
        "",
    ]
    if rec["trial"] is None:
        lines.append("No feasible trial: none to recommend (loosen the constraints or widen the "
                     "ranges).")  # fmt: skip
    else:
        best = by_number[rec["trial"]]
        settings = ", ".join(f"`{k} = {_value_text(v)}`" for k, v in best.params.items())
        lines += [f"Trial {best.number}: {settings}.", ""]
        lines += [f"- {o.metric}: {_ci_text(best.objectives[o.metric])}" for o in job.objectives]
        lines += ["", f"Chosen as {rec['how']}.", ""]
        close = rec["indistinguishable"]
        rivals = "front trials" if len(job.objectives) > 1 else "feasible trials"
        if len(job.seeds) < 2:
            lines.append("With one seed there are no intervals: the data cannot show that the "
                         "recommendation is better than any other trial.")  # fmt: skip
        elif len(job.objectives) > 1 and len(result.front) == 1:
            lines.append("It is the only trial on the front.")
        elif close:
            lines.append(f"Not significantly better than {len(close)} other {rivals} "
                         f"({', '.join(map(str, close))}): their intervals overlap its interval "
                         "on every objective.")  # fmt: skip
        else:
            lines.append(f"Its interval is apart from every other {rivals[:-1]}'s on at least "
                         "one objective.")  # fmt: skip
    lines += ["", "## Pareto front" if len(job.objectives) > 1 else "## Best trials", ""]
    if len(job.objectives) > 1:
        shown_trials = [by_number[n] for n in result.front]
        lines.append("The feasible trials no other feasible trial beats on every objective "
                     "(on the means):")  # fmt: skip
    else:
        metric, sign = job.objectives[0].metric, 1 if job.objectives[0].direction == "min" else -1
        shown_trials = sorted((t for t in trials if t.feasible),
                              key=lambda t: (sign * t.mean(metric), t.number))[:10]  # fmt: skip
        lines.append("The ten feasible trials with the best mean:")
    lines += ["", *_table(job, shown_trials), ""]
    if figure is not None:
        lines += [f"![Pareto front]({figure.name})", ""]
    lines += ["## Every trial", "", *_table(job, trials), ""]
    problems = [t for t in trials if t.state != "complete"]
    if problems:
        lines += ["Failed or invalid trials:", ""]
        lines += [f"- trial {t.number}: {t.state}: {t.error}" for t in problems]
        lines.append("")
    return "\n".join(lines)


def draw_front(result: TuneResult, path: Path) -> Path | None:
    """Draw the trials on the first two objectives (one: by trial), the front joined (PNG).

    Drawn with :mod:`aqmlab.plot` (also as PDF and SVG beside the PNG); the front's points carry
    the second objective's 95% interval as error bars (both intervals are in the report's table).
    """
    import numpy as np

    from aqmlab.plot import Curve, Panel, draw_panels

    job = result.job
    done = [t for t in result.trials if t.state == "complete"]
    if not done:
        return None
    two = len(job.objectives) > 1
    first = job.objectives[0].metric
    y_metric = job.objectives[1].metric if two else first

    def curve(label: str, trials: Sequence[Trial], kind: str = "markers") -> Curve:
        xs = [t.mean(first) if two else float(t.number) for t in trials]
        ys = [t.mean(y_metric) for t in trials]
        rows = [t.objectives[y_metric] for t in trials]
        lo = [np.nan if r["lo"] is None else r["lo"] for r in rows]
        hi = [np.nan if r["hi"] is None else r["hi"] for r in rows]
        band = kind == "points"  # intervals on the front only: a scatter of bars would not read
        return Curve(label, np.array(xs, dtype=float), np.array(ys, dtype=float),
                     np.array(lo, dtype=float) if band else None,
                     np.array(hi, dtype=float) if band else None, kind=kind)  # fmt: skip

    front = sorted((t for t in done if t.number in result.front),
                   key=lambda t: t.mean(first) if two else t.number)  # fmt: skip
    curves = [curve("Pareto front" if two else "best", front, "points")] if front else []
    on_front = {t.number for t in front}  # drawn once: a second marker would hide the front's
    others = [t for t in done if t.feasible and t.number not in on_front]
    if others:
        curves.append(curve("other feasible", others))
    infeasible = [t for t in done if not t.feasible]
    if infeasible:
        curves.append(curve("infeasible", infeasible))
    baselines = [t for t in done if t.baseline]
    if baselines:
        curves.append(curve("baseline", baselines))
    chosen = result.recommendation["trial"]
    if chosen is not None:
        curves.append(curve(f"recommended (trial {chosen})",
                            [t for t in done if t.number == chosen]))  # fmt: skip
    panel = Panel("", tuple(curves), job.objectives[0].spec() if two else "trial",
                  job.objectives[1].spec() if two else job.objectives[0].spec())  # fmt: skip
    draw_panels([panel], f"tune {job.name}: {len(done)} trials", path)
    return path


def tune(
    source: ScenarioLike | TuneJob,
    *,
    out: str | Path,
    params: Sequence[str] = (),
    objectives: Sequence[str] = (),
    jobs: int | None = None,
    client: Any = None,
    progress: bool = True,
    **options: Any,
) -> TuneResult:
    """Tune a scenario's parameters for the objectives (see the module); from Python.

    ``source`` is a scenario (dict or TOML path) tuned by ``params``, ``objectives`` and the
    ``options`` of :meth:`TuneJob.from_options` (``constraints``, ``weights``, ``seeds``,
    ``trials``, ``batch``, ``seed``, ``sampler``, ``name``, ``baselines``), or a :class:`TuneJob`.
    Runs go to ``jobs`` local processes (default: every core) or a Dask ``client``.

    >>> import tempfile
    >>> base = {"duration": "2s", "topology": {"bottleneck": {"rate": "2Mbps", "delay": "5ms"}},
    ...         "queue": {"kind": "droptail", "limit": "20p"},
    ...         "traffic": [{"name": "ftp", "kind": "ftp", "flows": 2}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     done = tune(base, params=["queue.limit=2..40p:int"],
    ...                 objectives=["forward.mean_queue_delay_s:min"],
    ...                 constraints=["forward.utilization>=0.9"], trials=4, out=tmp, jobs=1,
    ...                 progress=False)
    >>> len(done.trials), done.recommendation["trial"] in done.front
    (4, True)
    """
    if isinstance(source, TuneJob):
        job = source
    else:
        job = TuneJob.from_options(source, params, objectives, **options)
    executor = make_executor(jobs=jobs, client=client)
    started = time.monotonic()
    with BatchProgress(f"tune {job.name}", enabled=args.boolean("progress", progress)) as bar:
        result = tune_job(job, out, executor=executor, bar=bar)
    bar.log(f"tune {job.name}: {time.monotonic() - started:.0f} s")
    return result
