"""Options and arguments out of range or of the wrong type: one line naming them, before any run.

On the command line: exit status 2 and ``error: <option>: <what was expected>`` (usage errors
too, without typer's box). From Python: :class:`aqmlab.InputError`, a :class:`TypeError` as well
when the type is wrong, naming the argument. Booleans are not integers; NumPy integers are.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import aqmlab
import numpy as np
import pytest
from aqmlab.errors import InputError
from aqmlab.papers import get
from aqmlab.study import reproduce
from conftest import BASE_TOML, base, invoke

LOAD = "a finite number > 0 and ≤ 10000"
"""What --target and --load take: a load in percent of the link, up to 100 times it."""
# (command line, the error line's start)
OPTIONS: list[tuple[list[str], str]] = [
    (["calibrate", "--target", "-5"], f"error: --target: expected {LOAD}, got -5"),
    (["calibrate", "--target", "nan"], f"error: --target: expected {LOAD}, got nan"),
    (["calibrate", "--link-rate", "0bps"], 'error: --link-rate: expected a rate > 0 like "10Mbps"'),
    (["calibrate", "--users", "0,5"], "error: --users: expected an integer ≥ 1, got 0"),
    (["calibrate", "--out", "file"], "error: --out: file is a file, expected a directory"),
    (["reproduce", "christiansen2000", "--out", "file"], "error: --out: file is a file"),
    (["run", "s.toml", "--load", "0", "--calibration", "."], "error: --load: expected a finite"),
    (["run", "s.toml", "--load", "inf", "--calibration", "."], "error: --load: expected a finite"),
    (["run", "s.toml", "--out", "file"], "error: file: is a file, expected a run directory"),
    (["queue-law", "s.toml", "--drop-rates", "0.1", "--red", "1,9,0.1", "--out", "q"],
     "error: --drop-rates: --red needs at least two drop rates"),
    (["queue-law", "s.toml", "--drop-rates", "0.1,0.2", "--red", "1,inf,0.1", "--out", "q"],
     "error: --red max_th: expected a finite number, got inf"),
    (["sweep", "s.toml", "--out", "file"], "error: file: is a file"),
]  # fmt: skip


@pytest.mark.parametrize(("argv", "expected"), OPTIONS, ids=[" ".join(a) for a, _ in OPTIONS])
def test_bad_option_is_one_line(tmp_path: Path, argv: list[str], expected: str) -> None:
    (tmp_path / "s.toml").write_text(BASE_TOML)
    (tmp_path / "file").write_text("x")
    status, out, err = invoke(tmp_path, *argv)
    assert status == 2, err
    assert len(err.splitlines()) == 1 and err.startswith(expected), err
    assert not (tmp_path / "q").exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["sweep", "s.toml", "--out", "o", "--jobs", "0"], "error: Invalid value for '--jobs'"),
        (["run", "s.toml", "--seed", "abc"], "error: Invalid value for '--seed'"),
        (["run", "s.toml", "--seed", str(2**64)], "error: Invalid value for '--seed'"),
        (["reproduce", "zhang2001", "--seeds", str(10**9)], "error: Invalid value for '--seeds'"),
        (["run"], "error: Missing argument"),
        (["collect", "x", "--table"], "error: Option '--table' requires an argument"),
        (["frobnicate"], "error: No such command 'frobnicate'"),
    ],
)
def test_usage_errors_are_one_line(tmp_path: Path, argv: list[str], expected: str) -> None:
    """Typer's own checks (types, bounds, missing values) print one line too, not a box."""
    (tmp_path / "s.toml").write_text(BASE_TOML)
    status, _, err = invoke(tmp_path, *argv)
    assert status == 2
    assert len(err.splitlines()) == 1 and err.startswith(expected), err


def test_usage_error_in_a_real_process(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "aqmlab", "sweep", "s.toml", "--out", "o", "--jobs", "-1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("error: Invalid value for '--jobs'"), done.stderr
    assert len(done.stderr.splitlines()) == 1


# (function, keyword arguments, error type, text the message must contain)
def _run(**kw: Any) -> Any:
    return aqmlab.run(base(), **kw)


def _sweep(tmp: Path, **kw: Any) -> Any:
    return aqmlab.sweep(base(), **{"out": tmp / "o", "jobs": 1, "progress": False, **kw})


API: list[tuple[str, Any, type[Exception], str]] = [
    ("run seed str", lambda t: _run(seed="1"), TypeError, "seed: expected an integer from 0"),
    ("run seed bool", lambda t: _run(seed=True), TypeError, "seed: expected an integer"),
    ("run seed float", lambda t: _run(seed=1.5), TypeError, "got 1.5 (float)"),
    ("run seed negative", lambda t: _run(seed=-1), InputError, "seed: expected an integer from 0"),
    ("run progress", lambda t: _run(progress="yes"), TypeError, "progress: expected True or False"),
    ("run scenario", lambda t: aqmlab.run(3), InputError, "scenario: expected a table"),
    ("sweep seeds bool", lambda t: _sweep(t, seeds=[True]), TypeError, "expected an integer"),
    ("sweep seeds float", lambda t: _sweep(t, seeds=1.5), TypeError, "seeds: expected seeds"),
    ("sweep jobs str", lambda t: _sweep(t, jobs="2"), TypeError, "jobs: expected an integer"),
    ("sweep jobs 0", lambda t: _sweep(t, jobs=0), InputError, "jobs: expected an integer from 1"),
    ("sweep zip", lambda t: _sweep(t, zip="yes"), TypeError, "zip: expected True or False"),
    ("sweep out", lambda t: _sweep(t, out=3), TypeError, "out: expected a path"),
    ("collect store", lambda t: aqmlab.collect(3), TypeError, "store: expected a path"),
    ("collect table", lambda t: aqmlab.collect(t, table=3), TypeError, "table: expected a string"),
    ("collect columns", lambda t: aqmlab.collect(t, columns="ab"), TypeError, "columns: expected"),
    ("collect labels", lambda t: aqmlab.collect(t, labels=1), TypeError, "labels: expected True"),
    ("collect missing", lambda t: aqmlab.collect(t, missing="x"), InputError, "missing: expected"),
    ("load", lambda t: aqmlab.load(None), TypeError, "run_dir: expected a path"),
    ("reproduce seeds", lambda t: reproduce(get("zhang2001"), seeds=True), TypeError, "seeds:"),
    ("reproduce scale", lambda t: reproduce(get("zhang2001"), scale=1), TypeError, "scale:"),
    ("reproduce study", lambda t: reproduce("zhang2001"), TypeError, "study: expected a Study"),
    ("papers get", lambda t: get("nope"), InputError, 'no study "nope"'),
    ("overrides str", lambda t: aqmlab.apply_overrides(base(), "seed=1"), TypeError, "overrides:"),
    ("overrides int", lambda t: aqmlab.apply_overrides(base(), [1]), TypeError, "overrides:"),
    ("load_scenario", lambda t: aqmlab.load_scenario(3), TypeError, "scenario: expected a path"),
    ("queue_law rates", lambda t: aqmlab.queue_law(base(), drop_rates=[True], out=t / "o"),
     TypeError, "--drop-rates: expected a finite number"),
    ("queue_law out", lambda t: aqmlab.queue_law(base(), out=None), TypeError, "out: expected"),
]


@pytest.mark.parametrize(("fn", "error", "expected"), [a[1:] for a in API], ids=[a[0] for a in API])
def test_api_arguments_are_checked(tmp_path: Path, fn: Any, error: Any, expected: str) -> None:
    with pytest.raises(error) as caught:
        fn(tmp_path)
    assert isinstance(caught.value, InputError)
    assert expected in str(caught.value), str(caught.value)
    assert not (tmp_path / "o").exists()


def test_numpy_integers_are_integers(tmp_path: Path) -> None:
    assert aqmlab.run(base(), seed=np.uint32(3)).seed == 3
    done = _sweep(tmp_path, seeds=[np.int64(1)], jobs=np.int8(1))
    assert done.counts()["ran"] == 1
