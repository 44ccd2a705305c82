"""Curves for figures, computed from collected tables (drawn by :func:`aqmlab.plot.draw_panels`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from aqmlab.stats import ecdf, mean_ci
from aqmlab.study.model import Curve


def run_cdf(
    value: str, grid: Sequence[float] | np.ndarray
) -> Callable[[pd.DataFrame], pd.DataFrame]:
    """Return a reducer of one run's (or seed's) rows to its ECDF of ``value`` on ``grid``.

    For :meth:`Data.table`'s ``reduce`` (one run in memory at a time) and :func:`cdf_curves`.

    >>> run_cdf("t", [0.25, 0.5])(pd.DataFrame({"t": [0.1, 0.3]})).values.tolist()
    [[0.25, 0.5], [0.5, 1.0]]
    """
    points = np.asarray(grid, dtype=float)
    return lambda rows: pd.DataFrame({"t": points, "cdf": ecdf(rows[value].to_numpy(
        dtype=float, na_value=np.nan), points)})  # fmt: skip


def band_curves(
    cdfs: pd.DataFrame, *, by: Sequence[str], x_scale: float = 1.0, y_scale: float = 1.0
) -> dict[tuple[str, ...], Curve]:
    """One curve per group of ``by`` from per-seed ECDFs (rows ``by…, t, cdf``, one set a seed).

    The curve is the mean over seeds at each ``t``, its band the Student-t interval
    (:func:`aqmlab.stats.mean_ci`) clipped to [0, 1]; a seed whose ECDF is NaN (no finite value)
    is left out. Keyed by the group's values as text and labelled with them (relabel with
    ``dataclasses.replace``). ``x_scale`` and ``y_scale`` convert units (s → ms, share → %).
    """
    stats = mean_ci(cdfs, "cdf", by=[*by, "t"])
    curves = {}
    for key, group in stats.groupby(list(by), observed=True, sort=True):
        key = tuple(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        group = group.sort_values("t")
        curves[key] = Curve(
            ", ".join(key),
            group["t"].to_numpy(dtype=float) * x_scale,
            group["cdf_mean"].to_numpy(dtype=float) * y_scale,
            group["cdf_lo"].clip(0, 1).to_numpy(dtype=float) * y_scale,
            group["cdf_hi"].clip(0, 1).to_numpy(dtype=float) * y_scale,
        )
    return curves


def cdf_curves(
    frame: pd.DataFrame,
    value: str,
    *,
    grid: Sequence[float] | np.ndarray,
    by: Sequence[str],
    seed: str = "seed",
    x_scale: float = 1.0,
    y_scale: float = 1.0,
) -> dict[tuple[str, ...], Curve]:
    """One empirical CDF of ``value`` per group of ``by``: the mean over seeds, with its t band.

    Each seed's ECDF (:func:`run_cdf`), then :func:`band_curves`.

    >>> f = pd.DataFrame({"q": ["30"] * 4, "seed": [1, 1, 2, 2], "t": [0.1, 0.3, 0.2, 0.4]})
    >>> curve = cdf_curves(f, "t", grid=[0.25, 0.5], by=["q"], y_scale=100)[("30",)]
    >>> curve.label, curve.y.tolist()
    ('30', [50.0, 100.0])
    """
    reduce = run_cdf(value, grid)
    keys = [*by, seed]
    cdfs = pd.concat(
        [reduce(rows).assign(**dict(zip(keys, key if isinstance(key, tuple) else (key,),
                                        strict=True)))
         for key, rows in frame.groupby(keys, observed=True, sort=True)],
        ignore_index=True,
    )  # fmt: skip
    return band_curves(cdfs, by=by, x_scale=x_scale, y_scale=y_scale)


def mean_curves(
    frame: pd.DataFrame,
    x: str,
    y: str,
    *,
    by: Sequence[str] = (),
    y_scale: float = 1.0,
    style: str = "-o",
) -> dict[tuple[str, ...], Curve]:
    """One curve of ``y`` against ``x`` per group of ``by``: the mean over seeds, with its t band.

    ``frame`` has one row per run (a seed at a point); ``x`` must be numeric (a label column is
    converted with ``float``). Keyed and labelled like :func:`cdf_curves`; points sorted by x.

    >>> f = pd.DataFrame({"s": ["dt"] * 4, "n": ["1", "1", "2", "2"], "g": [1.0, 3.0, 4.0, 4.0]})
    >>> curve = mean_curves(f, "n", "g", by=["s"])[("dt",)]
    >>> curve.label, curve.x.tolist(), curve.y.tolist()
    ('dt', [1.0, 2.0], [2.0, 4.0])
    """
    numbers = frame.assign(**{x: frame[x].astype(float)})
    stats = mean_ci(numbers, y, by=[*by, x])
    curves = {}
    groups = stats.groupby(list(by), observed=True, sort=True) if by else [((), stats)]
    for key, group in groups:
        key = tuple(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        group = group.sort_values(x)
        curves[key] = Curve(
            ", ".join(key),
            group[x].to_numpy(dtype=float),
            group[f"{y}_mean"].to_numpy(dtype=float) * y_scale,
            group[f"{y}_lo"].to_numpy(dtype=float) * y_scale,
            group[f"{y}_hi"].to_numpy(dtype=float) * y_scale,
            style,
        )
    return curves
