"""Statistics over runs: means with Student-t intervals over seeds, fairness indices, ECDFs.

The frames are what :func:`aqmlab.collect` returns: one row per run (a seed of a configuration),
the axis values as columns, a ``seed`` column and the metrics. Intervals are Student-t intervals
over the runs of a group, so they say how far the mean over *these seeds* may be from the mean over
all seeds; with one run there is no spread to go by and the interval is NaN, never zero width.

Nothing here guesses the groups: ``by`` names the columns that make a configuration, and without
it every row is one group.

>>> import pandas as pd
>>> runs = pd.DataFrame({"queue": ["30p"] * 3, "seed": [1, 2, 3], "delay": [1.0, 2.0, 3.0]})
>>> row = mean_ci(runs, "delay", by=["queue"]).iloc[0]
>>> row["queue"], float(row["delay_mean"]), round(float(row["delay_hi"]), 4), int(row["delay_n"])
('30p', 2.0, 4.4841, 3)

(4.4841 = 2 + t₀.₉₇₅,₂ · 1/√3 = 2 + 4.3027/1.7321.)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "Estimate",
    "ecdf",
    "first_crossing",
    "incomplete_beta",
    "ks_distance",
    "jain",
    "line_slope",
    "mean_ci",
    "normalized_fairness_ratio",
    "paired_difference",
    "t_cdf",
    "t_quantile",
]

MEAN_CI_SUFFIXES = ("mean", "lo", "hi", "n", "sd")
"""The columns :func:`mean_ci` gives each value ``v``: ``v_mean``, ``v_lo``, ``v_hi``, ...."""


# --- Student's t ---------------------------------------------------------------------------------


def _stirling_tail(z: float) -> float:
    """Return log Γ(z) − [(z − ½)·log z − z + ½·log 2π] by Stirling's series (z ≥ 10)."""
    inv, inv2 = 1.0 / z, 1.0 / (z * z)
    return inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)))


def _log_beta(a: float, b: float) -> float:
    """Return log B(a, b) = log Γ(a) + log Γ(b) − log Γ(a + b), without cancellation for large a.

    For a large argument the three log-gammas are each ~a·log a, so their difference would lose
    most of its digits (at a = 5e8, ~1e-6 absolutely); Stirling's series gives the ratio
    Γ(big + small)/Γ(big) directly instead.

    >>> round(math.exp(_log_beta(2.0, 3.0)), 12)  # 1!·2!/4! = 1/12
    0.083333333333
    >>> abs(_log_beta(5e8, 0.5) - (math.lgamma(0.5) - 0.5 * math.log(5e8))) < 1e-9
    True
    """
    small, big = min(a, b), max(a, b)
    if big < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    # log Γ(big + small) − log Γ(big), from Stirling's formula for both, with the large terms
    # cancelled analytically: small·log big + (big + small − ½)·log1p(small/big) − small + tails.
    ratio = (
        small * math.log(big)
        + (big + small - 0.5) * math.log1p(small / big)
        - small
        + _stirling_tail(big + small)
        - _stirling_tail(big)
    )
    return math.lgamma(small) - ratio


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Return the continued fraction of I_x(a, b), evaluated by the modified Lentz method.

    Converges quickly for x < (a + 1)/(a + b + 2); :func:`incomplete_beta` uses the symmetry
    I_x(a, b) = 1 − I_{1−x}(b, a) to stay there.
    """
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),  # even step d_2m
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),  # odd step d_2m+1
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < eps:
            return h
    raise ArithmeticError(f"incomplete beta: no convergence for a={a}, b={b}, x={x}")


def _incomplete_beta(a: float, b: float, x: float, y: float, *, mirror: bool = False) -> float:
    """Return I_x(a, b) given x and y = 1 − x, each computed without rounding by the caller.

    The continued fraction is evaluated at x if x < (a + 1)/(a + b + 2), else (mirrored) at y;
    ``mirror`` forces the latter, for when x is too close to 1 for the fraction's terms.
    """
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    # log x from y when x is near 1 (and the other way round), where it keeps its digits.
    log_x = math.log1p(-y) if x > 0.5 else math.log(x)
    log_y = math.log1p(-x) if y > 0.5 else math.log(y)
    front = math.exp(a * log_x + b * log_y - _log_beta(a, b))
    if x < (a + 1.0) / (a + b + 2.0) and not mirror:
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, y) / b


def incomplete_beta(a: float, b: float, x: float) -> float:
    """Return the regularized incomplete beta function I_x(a, b) (a, b > 0, 0 ≤ x ≤ 1).

    I_x(2, 3) is the chance of at least 2 successes in 4 trials of probability x:
    6x²(1−x)² + 4x³(1−x) + x⁴, which at x = 0.4 is 0.3456 + 0.1536 + 0.0256 = 0.5248.

    >>> round(incomplete_beta(2.0, 3.0, 0.4), 12)
    0.5248
    >>> round(incomplete_beta(1.0, 1.0, 0.3), 12)  # the uniform distribution function
    0.3
    """
    if not (a > 0.0 and b > 0.0):
        raise ValueError(f"incomplete_beta: expected a, b > 0, got a={a}, b={b}")
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"incomplete_beta: expected 0 ≤ x ≤ 1, got {x}")
    return _incomplete_beta(a, b, x, 1.0 - x)


def t_cdf(t: float, df: float) -> float:
    """Return Student's t distribution function at ``t`` with ``df`` degrees of freedom.

    P(T ≤ t) = 1 − ½·I_x(df/2, ½) for t ≥ 0, with x = df/(df + t²). With one degree of freedom
    T is Cauchy: P(T ≤ 1) = ½ + atan(1)/π = 0.75.

    >>> t_cdf(0.0, 3), round(t_cdf(1.0, 1), 12), round(t_cdf(12.7062, 1), 4)
    (0.5, 0.75, 0.975)
    """
    if not df > 0:
        raise ValueError(f"t_cdf: expected df > 0, got {df}")
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    square = t * t
    if df >= 1e8:
        # Next to normal: the normal tail plus the first term of its expansion in 1/df; the
        # next, ~t⁸/(32 df²) of the tail, is below 1e-7 of it for |t| < 20.
        a = abs(t)
        density = math.exp(-0.5 * square) / math.sqrt(2.0 * math.pi)
        tail = 0.5 * math.erfc(a / math.sqrt(2.0)) + density * (a * square + a) / (4.0 * df)
        return 1.0 - tail if t >= 0 else tail
    x, y = df / (df + square), square / (df + square)  # each from its own formula: x may be ~1
    # For large df, x is within a few 1/df of 1 and the fraction at x loses digits (at df = 1e9,
    # the eighth); for |t| < 3 the fraction at y keeps them (checked against 40-digit arithmetic),
    # beyond that it fails and the one at x is good again to ~1e-9 of the (small) tail.
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, x, y, mirror=square < 9.0 and y < 0.5)
    return 1.0 - tail if t >= 0 else tail


@functools.lru_cache(maxsize=4096)
def t_quantile(p: float, df: int) -> float:
    """Return the ``p`` quantile of Student's t with ``df`` degrees of freedom.

    Bisection on :func:`t_cdf` to 1e-12 relative, so good to ~11 significant digits. With one
    degree of freedom the quantile is tan(π(p − ½)): tan(0.475π) = 12.7062...; with two it is
    (2p − 1)·√(2/(1 − (2p − 1)²)): 0.95·√(2/0.0975) = 4.3027...; as df grows it tends to the
    normal quantile 1.95996....

    >>> round(t_quantile(0.975, 1), 4), round(t_quantile(0.975, 2), 4), t_quantile(0.5, 7)
    (12.7062, 4.3027, 0.0)
    >>> round(t_quantile(0.975, 10**9), 5), round(t_quantile(0.025, 4), 4)
    (1.95996, -2.7764)
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile: expected 0 < p < 1, got {p}")
    if df < 1:
        raise ValueError(f"t_quantile: expected df ≥ 1, got {df}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    while hi - lo > 1e-12 * hi:
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return 0.5 * (lo + hi)


def _half_width(level: float, n: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """Return t_{(1+level)/2, n−1}·sd/√n elementwise; NaN where n < 2."""
    n = np.asarray(n, dtype=float)
    quantile = np.full(n.shape, np.nan)
    for count in np.unique(n[n >= 2]):
        quantile[n == count] = t_quantile((1.0 + level) / 2.0, int(count) - 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        half: np.ndarray = quantile * np.asarray(sd, dtype=float) / np.sqrt(n)
    return half


def _check_level(level: float) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level: expected 0 < level < 1, got {level}")


def _columns(frame: pd.DataFrame, names: Iterable[str], what: str) -> None:
    missing = [name for name in names if name not in frame.columns]
    if missing:
        raise KeyError(
            f"{what}: no column {', '.join(map(repr, missing))} "
            f"(columns: {', '.join(map(str, frame.columns))})"
        )


def _keys(by: str | Sequence[str] | None) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


# --- Means over seeds ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """An estimate (a mean paired difference, a slope) from ``n`` samples, with its interval.

    The interval is Student-t's, NaN when the samples leave no spread to go by.

    >>> d = Estimate(2.0, 0.5, 3.5, 3)
    >>> d.above(0.0), d.below(3.0), d.covers(3.0), str(d)
    (True, False, True, '+2 [+0.5, +3.5] (3 seeds)')
    >>> Estimate(2.0, math.nan, math.nan, 1).above(0.0)  # one pair: its sign, no interval
    True
    """

    mean: float
    lo: float
    hi: float
    n: int
    of: str = "seeds"
    """What ``n`` counts, as printed: seeds (a paired difference) or points (a slope)."""

    def above(self, x: float) -> bool:
        """Whether the whole interval lies above ``x`` (no interval: the estimate itself)."""
        return bool(self.mean > x if math.isnan(self.lo) else self.lo > x)

    def below(self, x: float) -> bool:
        """Whether the whole interval lies below ``x`` (no interval: the estimate itself)."""
        return bool(self.mean < x if math.isnan(self.hi) else self.hi < x)

    def sign(self, tie: float = 0.0) -> int:
        """Return +1 above 0, −1 below, 0 for a tie: by the interval, or without one by ``tie``.

        >>> Estimate(0.5, -0.1, 1.1, 3).sign(), Estimate(0.5, math.nan, math.nan, 1).sign(1.0)
        (0, 0)
        """
        if math.isnan(self.lo):
            return 1 if self.mean > tie else -1 if self.mean < -tie else 0
        return 1 if self.lo > 0 else -1 if self.hi < 0 else 0

    def covers(self, x: float) -> bool:
        """Whether ``x`` lies in the interval (``False`` without an interval)."""
        return bool(self.lo <= x <= self.hi)

    def __str__(self) -> str:
        seeds = f"{self.n} {self.of if self.n != 1 else self.of.removesuffix('s')}"
        if math.isnan(self.lo):
            return f"{self.mean:+.3g} ({seeds}, no interval)"
        return f"{self.mean:+.3g} [{self.lo:+.3g}, {self.hi:+.3g}] ({seeds})"


def paired_difference(
    a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, level: float = 0.95
) -> Estimate:
    """Return the mean of ``a − b`` over paired runs (same seed), with its ``level`` interval.

    Pairing by seed removes what the two settings share (the same users, the same draws), so
    the interval is that of the difference itself, narrower than two separate intervals.

    >>> d = paired_difference([3.0, 4.0, 5.5], [1.0, 2.5, 3.0])
    >>> round(d.mean, 3), round(d.lo, 3), round(d.hi, 3), d.n
    (2.0, 0.758, 3.242, 3)
    """
    _check_level(level)
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if diff.ndim != 1 or diff.size == 0:
        raise ValueError(f"paired_difference: expected two equal, non-empty 1-d samples, got "
                         f"{np.shape(a)} and {np.shape(b)}")
    n = int(diff.size)
    mean = float(diff.mean())
    sd = float(diff.std(ddof=1)) if n > 1 else math.nan
    half = float(_half_width(level, np.array([n]), np.array([sd]))[0])
    return Estimate(mean, mean - half, mean + half, n)


def line_slope(
    xs: Sequence[float] | np.ndarray, ys: Sequence[float] | np.ndarray, level: float = 0.95
) -> Estimate:
    """Return the least-squares slope of ``ys`` on ``xs`` with its ``level`` Student-t interval.

    The interval is the usual one of a regression slope (n − 2 degrees of freedom); ``n`` in
    the result counts the points. NaN with two points (no residual to go by).

    >>> e = line_slope([1, 2, 3, 4], [2.1, 3.9, 6.2, 7.8])
    >>> round(e.mean, 3), round(e.lo, 3), round(e.hi, 3), e.n
    (1.94, 1.55, 2.33, 4)

    (SS_res = 0.082, se = √(0.082 / 2 / 5) = 0.0906, t₀.₉₇₅,₂ = 4.3027.)
    """
    _check_level(level)
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    n = int(x.size)
    if n != y.size or n < 2 or np.unique(x).size < 2:
        raise ValueError("line_slope: expected as many xs as ys, with two distinct xs at least")
    dx = x - x.mean()
    sxx = float((dx * dx).sum())
    slope = float((dx * (y - y.mean())).sum() / sxx)
    residual = y - y.mean() - slope * dx
    if n < 3:
        return Estimate(slope, math.nan, math.nan, n, "points")
    se = math.sqrt(float((residual * residual).sum()) / (n - 2) / sxx)
    half = t_quantile((1.0 + level) / 2.0, n - 2) * se
    return Estimate(slope, slope - half, slope + half, n, "points")


def _no_run_twice(frame: pd.DataFrame) -> None:
    """Refuse a frame of runs (``aqmlab.collect``'s) that holds one run under two sweeps.

    It would count the run's seeds twice: a store's sweeps may share runs, and collecting all of
    them lists each once per sweep (a table's many rows per run within one sweep are fine).

    >>> _no_run_twice(pd.DataFrame({"scenario_hash": ["a", "a"], "seed": [1, 1],
    ...                             "sweep": ["x", "y"]}))
    Traceback (most recent call last):
    ...
    ValueError: mean_ci: run a… seed 1 is in the frame under sweeps x, y: collect one sweep \
(sweep=NAME, --sweep NAME) or drop the duplicates first
    """
    if not {"scenario_hash", "seed", "sweep"} <= set(frame.columns):
        return
    sweeps = frame.groupby(["scenario_hash", "seed"], observed=True)["sweep"].unique()
    shared = sweeps[sweeps.map(len) > 1]
    if shared.empty:
        return
    (digest, seed), names = next(iter(shared.items()))
    raise ValueError(
        f"mean_ci: run {str(digest)[:8]}… seed {seed} is in the frame under sweeps "
        f"{', '.join(sorted(map(str, names)))}: collect one sweep (sweep=NAME, --sweep NAME) or "
        "drop the duplicates first"
    )


def mean_ci(
    frame: pd.DataFrame,
    value: str | Sequence[str],
    *,
    by: str | Sequence[str] | None = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Mean and Student-t confidence interval over the rows (seeds) of each group of ``by``.

    One row per group (every row is one group when ``by`` is None), in sorted order of ``by``
    (categorical columns in their categories' order; only categories present; a missing key, NaN,
    is a group of its own, last). Columns: the ``by`` columns, then for each value ``v`` in turn:

    - ``v_mean``: the mean of the group's values, NaN dropped;
    - ``v_lo``, ``v_hi``: mean ∓ t·sd/√n, t the (1 + level)/2 quantile of Student's t with n − 1
      degrees of freedom; NaN when n < 2 (one seed says nothing of the spread);
    - ``v_n``: how many of the group's values are not NaN (int);
    - ``v_sd``: their standard deviation (ddof = 1; NaN when n < 2).

    Values must be numeric (booleans count as 0/1, so the mean is a share).

    >>> runs = pd.DataFrame({"q": [30, 30, 60], "seed": [1, 2, 1], "x": [1.0, 3.0, 5.0]})
    >>> out = mean_ci(runs, "x", by=["q"])
    >>> list(out.columns)
    ['q', 'x_mean', 'x_lo', 'x_hi', 'x_n', 'x_sd']
    >>> out[["q", "x_mean", "x_n"]].values.tolist()
    [[30.0, 2.0, 2.0], [60.0, 5.0, 1.0]]
    >>> round(float(out["x_hi"][0]), 3), bool(out["x_lo"].isna()[1])  # 2 + 12.706·√2/√2
    (14.706, True)
    """
    values = list(dict.fromkeys([value] if isinstance(value, str) else value))
    keys = _keys(by)
    _check_level(level)
    if not values:
        raise ValueError("mean_ci: expected at least one value column")
    _columns(frame, [*keys, *values], "mean_ci")
    for name in values:
        dtype = frame[name].dtype
        if not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)):
            raise TypeError(f"mean_ci: column {name!r} is not numeric ({dtype})")
    _no_run_twice(frame)
    numbers = frame[values].astype(float)
    if keys:
        numbers = pd.concat([frame[keys], numbers], axis=1).reset_index(drop=True)
        grouped = numbers.groupby(keys, observed=True, sort=True, dropna=False)[values]
        mean, sd, n = grouped.mean(), grouped.std(ddof=1), grouped.count()
        index = mean.index
    else:
        mean = numbers.mean().to_frame().T
        sd, n = numbers.std(ddof=1).to_frame().T, numbers.count().to_frame().T
        index = None
    columns: dict[str, object] = {}
    for name in values:
        m, s, k = mean[name].to_numpy(), sd[name].to_numpy(), n[name].to_numpy(dtype=np.int64)
        s = np.where(k >= 2, s, np.nan)
        half = _half_width(level, k, s)
        columns.update(
            {
                f"{name}_mean": m,
                f"{name}_lo": m - half,
                f"{name}_hi": m + half,
                f"{name}_n": k,
                f"{name}_sd": s,
            }
        )
    out = pd.DataFrame(columns, index=index)
    return out.reset_index() if keys else out.reset_index(drop=True)


# --- Fairness ------------------------------------------------------------------------------------


def jain(x: Sequence[float] | np.ndarray) -> float:
    """Return Jain's fairness index (Σx)² / (n·Σx²) of the shares ``x``.

    It is 1 when all are equal, 1/n when one gets everything; in between, the fraction of the n
    users treated fairly.

    Empty input, negative, NaN or infinite values raise ValueError. All zeros give NaN: the index
    is 0/0 there, and rightly so, since it measures how a total is *shared* and there is no total;
    calling it 1 ("fair") or 0 would make up an answer (and NaN stays out of means, see
    :func:`mean_ci`).

    >>> jain([1, 1, 1, 1]), jain([4, 0, 0, 0]), round(jain([1, 2, 3]), 4)  # 36/(3·14) = 0.8571
    (1.0, 0.25, 0.8571)
    """
    values = np.asarray(x, dtype=float).ravel()
    if values.size == 0:
        raise ValueError("jain: expected at least one value")
    if not np.isfinite(values).all() or (values < 0).any():
        raise ValueError("jain: expected finite values ≥ 0")
    largest = float(values.max())
    if largest == 0.0:
        return math.nan
    # Scaled by the largest share, so that huge or tiny shares neither overflow nor underflow.
    scaled = values / largest
    return float(scaled.sum() ** 2 / (values.size * np.dot(scaled, scaled)))


def normalized_fairness_ratio(
    goodput: Sequence[float] | np.ndarray, rtt: Sequence[float] | np.ndarray
) -> float:
    """Zhang & Qiu's normalized fairness ratio f = (Σ gᵢ·RTTᵢ)² / (n·Σ (gᵢ·RTTᵢ)²).

    That is :func:`jain` of goodput × RTT: TCP's throughput falls as 1/RTT, so flows that share
    fairly *for their RTT* score 1 however different their RTTs. Same errors and all-zero NaN as
    :func:`jain`; goodput and rtt must have the same length.

    >>> normalized_fairness_ratio([2.0, 1.0], [0.05, 0.1])  # both 0.1: fair for their RTTs
    1.0
    >>> round(normalized_fairness_ratio([1, 1], [0.05, 0.15]), 12)  # 0.2²/(2·(0.05² + 0.15²))
    0.8
    """
    g, r = np.asarray(goodput, dtype=float).ravel(), np.asarray(rtt, dtype=float).ravel()
    if g.shape != r.shape:
        raise ValueError(
            f"normalized_fairness_ratio: {g.size} goodputs but {r.size} round-trip times"
        )
    return jain(g * r)


# --- Distributions -------------------------------------------------------------------------------


def ecdf(values: Sequence[float] | np.ndarray, grid: Sequence[float] | np.ndarray) -> np.ndarray:
    """Return the empirical CDF (share of values ≤ t) of the finite values at each t of ``grid``.

    NaN and ±inf are left out (a request that never completed has no response time). With no
    finite value the CDF is unknown: NaN at every point.

    >>> ecdf([0.1, 0.2, 0.2, 3.0, float("nan")], [0.0, 0.2, 1.0, 5.0]).tolist()
    [0.0, 0.75, 0.75, 1.0]
    >>> ecdf([], [1.0]).tolist()
    [nan]
    """
    x = np.asarray(values, dtype=float).ravel()
    x = np.sort(x[np.isfinite(x)])
    points = np.asarray(grid, dtype=float)
    if x.size == 0:
        return np.full(points.shape, np.nan)
    return np.searchsorted(x, points, side="right") / x.size


def ks_distance(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> float:
    """Return the Kolmogorov–Smirnov distance between two samples' empirical CDFs.

    The largest vertical gap ``sup_t |F_a(t) − F_b(t)|``, over the finite values (as
    :func:`ecdf`); NaN if either sample has none.

    >>> ks_distance([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    0.0
    >>> ks_distance([1.0, 2.0], [3.0, 4.0])
    1.0
    >>> ks_distance([1.0, 2.0, 3.0, 4.0], [2.5, 3.5, float("nan")])  # at t = 2: 0.5 − 0
    0.5
    """
    x = np.asarray(a, dtype=float).ravel()
    y = np.asarray(b, dtype=float).ravel()
    points = np.concatenate([x[np.isfinite(x)], y[np.isfinite(y)]])
    gaps = np.abs(ecdf(x, points) - ecdf(y, points))
    return float(np.max(gaps)) if points.size and not np.isnan(gaps).any() else math.nan


def first_crossing(
    a: np.ndarray, b: np.ndarray, grid: Sequence[float] | np.ndarray, eps: float = 0.005
) -> float | None:
    """Return where curve ``a`` first goes from above ``b`` to below it, by more than ``eps``.

    ``None`` if it never does. Used to tell where two CDFs cross (one is better for short
    responses, the other for long ones).

    >>> g = np.array([0.0, 1.0, 2.0])
    >>> first_crossing(np.array([0.8, 0.8, 0.9]), np.array([0.7, 0.95, 0.95]), g)
    1.0
    >>> first_crossing(g, g, g) is None
    True
    """
    diff = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    above = np.flatnonzero(diff > eps)
    if above.size == 0:
        return None
    below = np.flatnonzero((diff < -eps) & (np.arange(diff.size) > above[0]))
    return float(np.asarray(grid, dtype=float)[below[0]]) if below.size else None
