"""Web outputs in the front, and load calibration."""

from __future__ import annotations

import json
from pathlib import Path

import aqmlab
import numpy as np
import pytest
from aqmlab.calibrate import Calibration, CalibrationPoint, Fit, fit_line, with_load
from aqmlab.result import arrow_types
from aqmlab.run_command import web_line
from conftest import cli

WEB_TOML = """\
name = "web"
duration = "30s"
warmup = "5s"

[topology]
servers = 2
clients = 2
bottleneck = { rate = "10Mbps" }

[tcp]
profile = "freebsd-2.2"

[[traffic]]
kind = "web-mah"
users = 300
"""


@pytest.fixture
def web_file(tmp_path: Path) -> Path:
    path = tmp_path / "web.toml"
    path.write_text(WEB_TOML)
    return path


# --- the front: requests -------------------------------------------------------------------------
def test_requests_table_and_summary(web_file: Path) -> None:
    result = aqmlab.run(web_file)
    requests = result.requests
    assert len(requests) == result.summary["requests"]["count"] > 0
    schema = result.arrow("requests").schema
    assert dict(zip(schema.names, schema.types, strict=True)) == arrow_types()["requests"]
    assert requests["completed"].dtype == bool and requests["client"].dtype == "category"
    done = requests[requests["completed"]]
    assert (done["response_s"] > 0).all() and (requests["start_s"] >= 5.0).all()
    assert np.allclose(done["response_s"], done["end_s"] - done["start_s"])
    assert requests.loc[~requests["completed"], "response_s"].isna().all()
    assert result.summary["requests"]["completed"] == len(done)
    line = web_line(result)
    assert line is not None and line.startswith(f"web: {len(requests):,} requests")


def test_run_prints_a_web_line_only_with_web_users(web_file: Path, tmp_path: Path) -> None:
    proc = cli("run", web_file, "--out", tmp_path / "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("web:")]
    for word in ("requests", "completed", "median", "90th percentile"):
        assert word in line
    assert (tmp_path / "run" / "requests.parquet").is_file()
    no_web = aqmlab.run({"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}}})
    assert no_web.summary["requests"]["count"] == 0 and no_web.requests.empty
    assert web_line(no_web) is None


# --- calibration ---------------------------------------------------------------------------------
def test_fit_line_and_r2() -> None:
    exact = fit_line([500, 1000, 2000, 4000], [1.5e6 + 100, 3e6 + 100, 6e6 + 100, 12e6 + 100])
    assert exact.slope == pytest.approx(3000) and exact.intercept == pytest.approx(100)
    assert exact.r2 == pytest.approx(1.0)
    rng = np.random.default_rng(1)
    xs = np.arange(500, 4001, 500, dtype=float)
    ys = 2900 * xs + 2e5 + rng.normal(0, 3e5, xs.size)
    fit = fit_line(list(xs), list(ys))
    slope, intercept = np.polyfit(xs, ys, 1)
    assert fit.slope == pytest.approx(slope) and fit.intercept == pytest.approx(intercept)
    assert fit.r2 == pytest.approx(np.corrcoef(xs, ys)[0, 1] ** 2)
    with pytest.raises(ValueError):
        fit_line([1000], [3e6])


def test_load_to_users() -> None:
    # the paper's two points: 3,400 users for 10 Mbps and 3,750 for 11 Mbps
    cal = Calibration((CalibrationPoint(3400, 10e6), CalibrationPoint(3750, 11e6)))
    assert cal.users_for_load(1.0) == 3400 and cal.users_for_load(1.1) == 3750
    assert cal.users_for_load(0.98) == 3400 - 70  # 0.2 Mbit/s less, at 350 users per Mbit/s
    assert Fit(2500.0, 0.0, 1.0).users_for(1.0) == 1  # at least one user
    with pytest.raises(ValueError):
        cal.users_for_load(0.0)
    scenario = {"traffic": [{"kind": "ftp"}, {"kind": "web-mah", "users": 1}]}
    assert with_load(scenario, 1.1, cal)["traffic"][1]["users"] == 3750
    assert scenario["traffic"][1]["users"] == 1, "with_load copies"
    again = Calibration.from_dict(json.loads(json.dumps(cal.to_dict())))
    assert again == cal and again.fit == cal.fit


def test_calibrate_command_and_run_with_a_load(web_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "calib"
    args = ("calibrate", web_file, "--users", "100,200", "--users", "300", "--out", out)
    proc = cli(*args, "--jobs", "2", "--duration", "20s", "--target", "50", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((out / "calibration.json").read_text())
    assert [p["users"] for p in data["points"]] == [100, 200, 300]
    assert len(list((out / "runs").iterdir())) == 3
    assert len(aqmlab.collect(out)) == 3, "the calibration is a sweep in a run store"
    for run in (out / "runs").iterdir():
        scenario = json.loads((run / "summary.json").read_text())["meta"]["scenario"]
        assert scenario["topology"]["bottleneck"]["rate"] == "100Mbps", "unconstrained"
    assert "R² =" in proc.stdout and "50% of 10Mbps" in proc.stdout
    users = Calibration.load(out).users_for_load(0.5)
    assert data["targets"] == [{"load": 0.5, "load_bps": 5e6, "users": users}]

    run = ("run", web_file, "--load", "50", "--calibration", out, "--out", tmp_path / "r")
    proc = cli(*run, "--set", "duration=6s", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["meta"]["scenario"]["traffic"][0]["users"] == users

    proc = cli("run", web_file, "--load", "50", cwd=tmp_path)
    assert proc.returncode == 2 and "needs --calibration" in proc.stderr
    proc = cli("calibrate", web_file, "--users", "100", cwd=tmp_path)
    assert proc.returncode == 2 and "at least two" in proc.stderr
