"""aqmlab.stats against table values, closed forms, hand computations and coverage checks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from aqmlab.stats import (
    ecdf,
    incomplete_beta,
    jain,
    mean_ci,
    normalized_fairness_ratio,
    t_cdf,
    t_quantile,
)

# --- Student's t ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "df", "table"),
    [
        # (p, df, the table's value as printed: good to half a unit of its last digit)
        (0.975, 1, "12.7062"),
        (0.975, 2, "4.3027"),
        (0.975, 3, "3.1824"),
        (0.975, 4, "2.7764"),
        (0.975, 9, "2.2622"),
        (0.975, 29, "2.0452"),
        (0.95, 5, "2.0150"),
        (0.995, 30, "2.7500"),
        (0.9, 3, "1.6377"),
        (0.999, 10, "4.1437"),
        (0.975, 120, "1.9799"),
        (0.975, 10**7, "1.95996"),
        (0.975, 10**9, "1.95996"),
    ],
)
def test_t_quantile_matches_tables(p: float, df: int, table: str) -> None:
    digits = len(table.split(".")[1])
    assert t_quantile(p, df) == pytest.approx(float(table), abs=0.5 * 10**-digits)
    assert t_quantile(1 - p, df) == pytest.approx(-float(table), abs=0.5 * 10**-digits)


@pytest.mark.parametrize("p", [0.55, 0.75, 0.9, 0.975, 0.995, 0.9999])
def test_t_quantile_closed_forms(p: float) -> None:
    # One degree of freedom is Cauchy; two has a closed-form quantile.
    assert t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-10)
    a = 2 * p - 1
    assert t_quantile(p, 2) == pytest.approx(a * math.sqrt(2 / (1 - a * a)), rel=1e-10)


@pytest.mark.parametrize("df", [10**3, 10**4, 10**6, 10**9, 10**12])
def test_t_quantile_for_many_degrees_of_freedom(df: int) -> None:
    # Fisher's expansion about the normal quantile z (Abramowitz & Stegun 26.7.5), to O(df^-4):
    # what a mean over a million requests needs.
    z = 1.959963984540054
    expansion = (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    )
    assert t_quantile(0.975, df) == pytest.approx(expansion, rel=1e-11)


@pytest.mark.parametrize("df", [10**4, 10**6, 10**7, 10**9])
def test_t_cdf_far_tail_for_many_degrees_of_freedom(df: int) -> None:
    # The tail next to normal: Φ̄(t) + φ(t)(t³ + t)/(4 df), good to ~t⁸/(32 df²) of itself.
    for t in (1.0, 2.5, 3.0, 3.5, 5.0, 8.0):
        normal = 0.5 * math.erfc(t / math.sqrt(2))
        near = normal + math.exp(-t * t / 2) / math.sqrt(2 * math.pi) * (t**3 + t) / (4 * df)
        assert t_cdf(-t, df) == pytest.approx(near, rel=max(1e-9, t**8 / df**2))
    steps = np.linspace(2.9, 3.1, 201)  # across the switch between the two fractions
    assert np.all(np.diff([t_cdf(t, df) for t in steps]) > 0)


def test_t_quantile_inverts_the_cdf() -> None:
    for df in (1, 3, 17, 400):
        for p in (0.01, 0.3, 0.5, 0.8, 0.999):
            assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=1e-12)
    assert t_cdf(0.0, 5) == 0.5
    assert t_cdf(1.0, 1) == pytest.approx(0.75, abs=1e-14)
    assert t_cdf(-2.0, 6) == pytest.approx(1 - t_cdf(2.0, 6), abs=1e-14)
    assert t_cdf(math.inf, 3) == 1.0 and t_cdf(-math.inf, 3) == 0.0
    for bad in ((0.0, 3), (1.0, 3), (0.5, 0)):
        with pytest.raises(ValueError):
            t_quantile(*bad)


def test_incomplete_beta_is_a_binomial_tail() -> None:
    # For integers, I_x(a, b) = P(at least a successes in a + b - 1 trials of probability x).
    for a, b in ((1, 1), (2, 3), (5, 2), (7, 9), (30, 40)):
        trials = a + b - 1
        for x in (0.01, 0.2, 0.5, 0.77, 0.999):
            tail = sum(
                math.comb(trials, j) * x**j * (1 - x) ** (trials - j) for j in range(a, trials + 1)
            )
            assert incomplete_beta(a, b, x) == pytest.approx(tail, rel=1e-10, abs=1e-15)
    assert incomplete_beta(2, 3, 0.0) == 0.0 and incomplete_beta(2, 3, 1.0) == 1.0


# --- mean_ci -------------------------------------------------------------------------------------


def test_mean_ci_by_hand() -> None:
    frame = pd.DataFrame(
        {
            "q": ["a"] * 3 + ["b"],
            "seed": [1, 2, 3, 1],
            "x": [1.0, 2.0, 3.0, 7.0],
            "y": [1.0, np.nan, 5.0, 2.0],
        }
    )
    out = mean_ci(frame, ["x", "y"], by=["q"])
    assert list(out.columns) == [
        "q",
        *("x_mean", "x_lo", "x_hi", "x_n", "x_sd"),
        *("y_mean", "y_lo", "y_hi", "y_n", "y_sd"),
    ]
    a, b = out.iloc[0], out.iloc[1]
    half = 4.302653 / math.sqrt(3)  # 1, 2, 3: mean 2, sd 1
    assert a["q"] == "a" and a["x_mean"] == 2.0 and a["x_sd"] == pytest.approx(1.0)
    assert (a["x_lo"], a["x_hi"]) == pytest.approx((2 - half, 2 + half), abs=1e-5)
    # y in group a is 1, NaN, 5: the NaN is dropped, not counted; mean 3, sd √8, t on 1 df.
    assert a["y_n"] == 2 and a["y_mean"] == 3.0 and a["y_sd"] == pytest.approx(math.sqrt(8))
    assert a["y_hi"] == pytest.approx(3 + 12.7062 * math.sqrt(8) / math.sqrt(2), rel=1e-5)
    assert b["x_n"] == 1 and b["x_mean"] == 7.0
    assert math.isnan(b["x_lo"]) and math.isnan(b["x_hi"]) and math.isnan(b["x_sd"]), (
        "one seed: no interval, not a zero-width one"
    )
    assert out["x_n"].dtype == np.int64
    whole = mean_ci(frame, "x")
    assert len(whole) == 1 and whole["x_n"].iloc[0] == 4 and whole["x_mean"].iloc[0] == 3.25
    assert list(whole.columns) == ["x_mean", "x_lo", "x_hi", "x_n", "x_sd"]


def test_mean_ci_groups_and_inputs() -> None:
    frame = pd.DataFrame(
        {
            "load": pd.Categorical(
                ["110", "80", "110", "98", "80"], categories=["80", "98", "110"]
            ),
            "queue": [60, 30, 30, 30, 30],
            "x": [1.0, 2.0, 3.0, 4.0, 6.0],
            "ok": [True, False, True, True, True],
        }
    )
    out = mean_ci(frame, ["x", "ok"], by=["load", "queue"])
    assert out[["load", "queue"]].values.tolist() == [
        ["80", 30],
        ["98", 30],
        ["110", 30],
        ["110", 60],
    ]
    assert isinstance(out["load"].dtype, pd.CategoricalDtype), "categorical keys stay categorical"
    assert out["x_mean"].tolist() == [4.0, 4.0, 3.0, 1.0]
    assert out["ok_mean"].tolist() == [0.5, 1.0, 1.0, 1.0], "booleans are shares"
    assert mean_ci(frame, "x", by="queue")["queue"].tolist() == [30, 60], "one key as a string"
    empty = mean_ci(frame.iloc[:0], "x", by=["queue"])
    assert empty.empty and list(empty.columns) == ["queue", "x_mean", "x_lo", "x_hi", "x_n", "x_sd"]
    with pytest.raises(KeyError, match="nope"):
        mean_ci(frame, "nope", by=["queue"])
    with pytest.raises(TypeError, match="not numeric"):
        mean_ci(frame, "load")
    with pytest.raises(ValueError):
        mean_ci(frame, "x", level=95)


def test_interval_covers_the_mean_at_its_level() -> None:
    # A real check of the t quantiles: Student intervals from normal samples cover the true mean
    # in the stated share of repetitions (a normal quantile would give ~0.88 for n = 5, ~0.7 for 2).
    rng = np.random.default_rng(7)
    for size, repeats in ((5, 2000), (2, 4000)):
        samples = rng.normal(10.0, 3.0, size=(repeats, size))
        frame = pd.DataFrame({"rep": np.repeat(np.arange(repeats), size), "x": samples.ravel()})
        out = mean_ci(frame, "x", by=["rep"])
        covered = ((out["x_lo"] <= 10.0) & (10.0 <= out["x_hi"])).mean()
        assert 0.93 <= covered <= 0.97, (size, covered)
        narrow = mean_ci(frame, "x", by=["rep"], level=0.5)
        covered = ((narrow["x_lo"] <= 10.0) & (10.0 <= narrow["x_hi"])).mean()
        assert 0.46 <= covered <= 0.54, (size, covered)


# --- Fairness ------------------------------------------------------------------------------------


def test_jain() -> None:
    assert jain([3.0, 3.0, 3.0]) == pytest.approx(1.0)
    for n in (1, 2, 5, 100):
        assert jain([7.0] + [0.0] * (n - 1)) == pytest.approx(1 / n), "one user gets everything"
    assert jain([1, 2, 3]) == pytest.approx(36 / 42)
    assert jain(np.array([1e200, 2e200, 3e200])) == pytest.approx(36 / 42), "no overflow"
    assert jain([1e-200, 3e-200]) == pytest.approx(16 / 20), "no underflow"
    assert math.isnan(jain([0.0, 0.0])), "nothing to share: 0/0"
    for bad in ([], [1.0, -1.0], [1.0, math.nan], [math.inf, 1.0]):
        with pytest.raises(ValueError):
            jain(bad)


def test_normalized_fairness_ratio() -> None:
    goodput, rtt = np.array([4.0, 1.0, 2.0]), np.array([0.02, 0.08, 0.05])
    assert normalized_fairness_ratio(goodput, rtt) == pytest.approx(jain(goodput * rtt))
    assert normalized_fairness_ratio([1.0, 0.5], [0.1, 0.2]) == pytest.approx(1.0)
    # (0.1 + 0.3)² / (2 (0.01 + 0.09)) = 0.8: equal goodputs are unfair to the long-RTT flow.
    assert normalized_fairness_ratio([1.0, 1.0], [0.1, 0.3]) == pytest.approx(0.8)
    with pytest.raises(ValueError):
        normalized_fairness_ratio([1.0, 2.0], [0.1])


# --- Distributions -------------------------------------------------------------------------------


def test_ecdf() -> None:
    assert ecdf([3.0, 1.0, 2.0, 2.0], [0.5, 1.0, 1.5, 2.0, 3.0]).tolist() == [
        0.0,
        0.25,
        0.25,
        0.75,
        1.0,
    ]
    assert ecdf([1.0, math.nan, math.inf, 3.0], [2.0]).tolist() == [0.5], "only finite values"
    assert np.isnan(ecdf([], [0.0, 1.0])).all(), "no values: no CDF"
    assert np.isnan(ecdf([math.nan], [0.0])).all()
