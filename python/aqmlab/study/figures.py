"""Curves for figures, computed from collected tables (drawn by :func:`aqmlab.plot.draw_panels`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from aqmlab.stats import cdf_band, mean_ci
from aqmlab.study.model import Curve


def cdf_curves(
    frame: pd.DataFrame,
    value: str,
    *,
    grid: Sequence[float] | np.ndarray,
    by: Sequence[str],
    x_scale: float = 1.0,
    y_scale: float = 1.0,
) -> dict[tuple[str, ...], Curve]:
    """One empirical CDF of ``value`` per group of ``by``: the mean over seeds, with its t band.

    Keyed by the group's values as text; each curve is labelled with them (relabel with
    ``dataclasses.replace``). ``x_scale`` and ``y_scale`` convert units (s → ms, share → %).

    >>> f = pd.DataFrame({"q": ["30"] * 4, "seed": [1, 1, 2, 2], "t": [0.1, 0.3, 0.2, 0.4]})
    >>> curve = cdf_curves(f, "t", grid=[0.25, 0.5], by=["q"], y_scale=100)[("30",)]
    >>> curve.label, curve.y.tolist()
    ('30', [50.0, 100.0])
    """
    band = cdf_band(frame, value, grid=grid, by=list(by))
    curves = {}
    for key, group in band.groupby(list(by), observed=True, sort=True):
        key = tuple(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        curves[key] = Curve(
            ", ".join(key),
            group["t"].to_numpy() * x_scale,
            group["cdf"].to_numpy() * y_scale,
            group["lo"].to_numpy() * y_scale,
            group["hi"].to_numpy() * y_scale,
        )
    return curves


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
