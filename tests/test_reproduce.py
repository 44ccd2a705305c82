"""Web outputs in the front, load calibration, and the Christiansen et al. 2000 reproduction."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import aqmlab
import numpy as np
import pytest
from aqmlab import papers
from aqmlab.calibrate import (
    Calibration,
    CalibrationPoint,
    Fit,
    calibration_specs,
    fit_line,
    with_load,
)
from aqmlab.cli import web_line
from aqmlab.papers import christiansen2000 as c2000
from aqmlab.papers.christiansen2000 import Experiment, PaperRow, Row
from aqmlab.result import COLUMN_TYPES
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
    assert dict(zip(schema.names, schema.types, strict=True)) == COLUMN_TYPES["requests"]
    done = requests[requests["completed"] == 1]
    assert (done["response_s"] > 0).all() and (requests["start_s"] >= 5.0).all()
    assert np.allclose(done["response_s"], done["end_s"] - done["start_s"])
    assert requests.loc[requests["completed"] == 0, "response_s"].isna().all()
    assert result.summary["requests"]["completed"] == len(done)
    line = web_line(result)
    assert line is not None and line.startswith(f"web: {len(requests):,} requests")


def test_run_prints_a_web_line_only_with_web_users(web_file: Path, tmp_path: Path) -> None:
    proc = cli("run", web_file, "--out", tmp_path / "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if x.startswith("web:")]
    for word in ("requests", "completed", "median", "within 500 ms", "over 3 s"):
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


def test_calibration_runs_are_unconstrained() -> None:
    specs = calibration_specs(c2000.calibration_base(c2000.SCALES["quick"]), [500, 4000])
    for spec in specs:
        assert spec.scenario["topology"]["bottleneck"]["rate"] == "100Mbps"
    assert [s.scenario["traffic"][0]["users"] for s in specs] == [500, 4000]


def test_calibrate_command_and_run_with_a_load(web_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "calib"
    args = ("calibrate", web_file, "--users", "100,200", "--users", "300", "--out", out)
    proc = cli(*args, "--jobs", "2", "--duration", "20s", "--target", "50", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads((out / "calibration.json").read_text())
    assert [p["users"] for p in data["points"]] == [100, 200, 300]
    assert len(list((out / "calibration").iterdir())) == 3
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


# --- the testbed ---------------------------------------------------------------------------------
def test_pair_rtts() -> None:
    rtts = c2000.pair_rtts_ms()
    assert len(rtts) == 49
    assert min(rtts) == pytest.approx(7.0) and max(rtts) == pytest.approx(137.0)
    assert sum(rtts) / len(rtts) == pytest.approx(79.0, abs=1e-9)
    assert rtts == sorted(rtts)
    steps = np.diff(rtts)
    assert (steps > 0).all() and (np.diff(steps) < 0).all(), "concave: a < 1 for a mean above 72"
    delays_ns = [int(d.removesuffix("ns")) for d in c2000.pair_delays()]
    round_trips_ms = [2 * d / 1e6 for d in delays_ns]
    assert min(round_trips_ms) == pytest.approx(7.0) and max(round_trips_ms) == pytest.approx(137.0)
    assert np.mean(round_trips_ms) == pytest.approx(79.0, abs=1e-5)
    # every client machine (a row of 7 entries) and every server machine (a column) gets one RTT
    # from each seventh of the sorted list
    band = {rtt: rank // 7 for rank, rtt in enumerate(sorted(round_trips_ms))}
    for k in range(7):
        for machine in (round_trips_ms[k * 7 : k * 7 + 7], round_trips_ms[k::7]):
            assert sorted(band[rtt] for rtt in machine) == list(range(7))


def test_testbed_resolves() -> None:
    scale = c2000.SCALES["quick"]
    for exp in c2000.experiments():
        resolved = aqmlab.resolve(c2000.scenario_for(exp, 3000, scale))
        assert resolved["tcp"]["profile"] == "freebsd-2.2"
        assert resolved["topology"]["clients"] == resolved["topology"]["servers"] == 7
        assert resolved["reverse_queue"] == {"kind": "droptail", "limit": "50p"}
        rate = resolved["topology"]["bottleneck"]["rate"]
        assert rate == ("100Mbps" if exp.network == "unconstrained" else "10Mbps")
        if exp.network == "red":
            q = resolved["queue"]
            assert (q["min_th"], q["max_th"], q["limit"], q["max_p"]) == (30, 90, "480p", 0.1)
            assert q["w_q"] == pytest.approx(1 / 512) and q["count"] == "altq"


# --- table and verdicts on synthetic rows --------------------------------------------------------
def row(load: int, network: str, queue: int | None, **values: float) -> Row:
    base: dict[str, Any] = dict(
        users=3000, throughput_kBps=1100.0, drop_pct=1.0, mean_queue_pkts=20.0, median_ms=300.0,
        pct_le_1s=90.0, pct_1_2s=5.0, pct_2_3s=3.0, pct_gt_3s=2.0, within_500ms_pct=88.0,
        p25_ms=150.0, p75_ms=500.0,
    )  # fmt: skip
    base.update(values)
    return Row(load, network, queue, **base)


def paper_like_rows() -> list[Row]:
    """Our rows set to the paper's numbers (Tables 1 and 3), which satisfy its findings."""
    rows = [
        row(80, "fifo", 30, median_ms=246, pct_le_1s=92.2, pct_gt_3s=1.3, drop_pct=1.1),
        row(80, "fifo", 120, median_ms=264, pct_le_1s=95.8, pct_gt_3s=0.6, drop_pct=0.1),
        row(80, "fifo", 240, median_ms=265, pct_le_1s=95.9, pct_gt_3s=0.5, drop_pct=0.0),
        row(80, "red", 480, median_ms=258, pct_le_1s=95.0),
        row(98, "fifo", 30, median_ms=329, pct_gt_3s=8.6, drop_pct=6.7),
        row(98, "fifo", 120, median_ms=421, pct_gt_3s=6.1, drop_pct=3.1, p25_ms=200),
        row(98, "fifo", 240, median_ms=555, pct_gt_3s=5.0, drop_pct=1.4),
        row(98, "red", 480, median_ms=345, pct_gt_3s=6.3, p25_ms=180),
        row(110, "fifo", 30, median_ms=1538, pct_gt_3s=29.8),
        row(110, "fifo", 120, median_ms=1600, pct_gt_3s=30.6),
        row(110, "fifo", 240, median_ms=1917, pct_gt_3s=35.0),
        row(110, "red", 480, median_ms=1846, pct_gt_3s=35.5),
    ]
    rows += [row(load, "unconstrained", None, within_500ms_pct=90.5) for load in (80, 98, 110)]
    return rows


def test_table_rows_put_the_paper_beside_ours() -> None:
    ours = [row(98, "red", 480, throughput_kBps=1164.4, drop_pct=4.06), row(80, "red", 480)]
    paper = [PaperRow(98, "red", 480, 1164, 4.1, 39.4, 345, 79.2, 8.2, 6.3, 6.3)]
    lines = c2000.table_rows(ours, paper)
    assert [line[:3] for line in lines] == [
        ["80", "RED 480 (30/90)", "ours"],
        ["98", "RED 480 (30/90)", "ours"],
        ["98", "RED 480 (30/90)", "paper"],
    ]
    assert lines[1][3:5] == ["1164", "4.1"] and lines[2][3:] == [
        "1164", "4.1", "39.4", "345", "79.2", "8.2", "6.3", "6.3",
    ]  # fmt: skip
    assert len(lines[0]) == len(c2000.TABLE_COLUMNS)
    assert [line[2] for line in c2000.table_rows(ours, None)] == ["ours", "ours"]
    nan = c2000.table_rows([row(80, "fifo", 30, median_ms=math.nan)], None)[0]
    assert nan[6] == "—"


def test_paper_tables_are_read_when_present() -> None:
    ref = c2000.reference_dir()
    if ref is None:
        pytest.skip("../shared/reference is not here")
    rows = c2000.read_paper_rows(ref)
    assert rows is not None
    fifo = {(r.load_pct, r.queue): r for r in rows if r.network == "fifo"}
    assert fifo[(98, 120)].median_ms == 421 and fifo[(110, 240)].pct_gt_3s == 35.0
    assert c2000.read_paper_rows(ref / "nowhere") is None
    assert c2000.read_paper_requests(ref)[98] == 461837


def test_verdicts_hold_on_the_papers_own_numbers() -> None:
    rows = paper_like_rows()
    grid = c2000.CDF_GRID_S
    cdfs = {
        Experiment("fifo", 30, 0.98).key: np.clip(grid / 0.6, 0, 0.90),
        Experiment("fifo", 120, 0.98).key: np.clip(grid / 0.8, 0, 0.95),
    }
    found = {v.id: v for v in c2000.verdicts(rows, Fit(2860.0, 2.8e5, 0.998), cdfs)}
    assert set(found) == {f"C{i}" for i in range(1, 15)}
    for cid in ("C1", "C3", "C4", "C5", "C6", "C12"):
        assert found[cid].verdict == "holds", (cid, found[cid].evidence)
    assert "cross at" in found["C6"].evidence
    assert found["C2"].verdict == found["C14"].verdict == "not run"


@pytest.mark.parametrize(
    ("cid", "change"),
    [
        ("C3", lambda rows: [r if r.network != "unconstrained" else row(r.load_pct, r.network,
                             None, within_500ms_pct=80.0) for r in rows]),
        ("C4", lambda rows: [r if (r.load_pct, r.queue) != (80, 240) else row(80, "fifo", 240,
                             median_ms=350) for r in rows]),
        ("C5", lambda rows: [r if r.load_pct != 110 or r.network != "fifo" else row(110, "fifo",
                             r.queue, median_ms=2000, pct_gt_3s=12.0) for r in rows]),
        ("C6", lambda rows: [r if (r.load_pct, r.queue) != (98, 240) else row(98, "fifo", 240,
                             median_ms=555, pct_gt_3s=5.0, drop_pct=3.5) for r in rows]),
        ("C12", lambda rows: [r if (r.load_pct, r.network) != (98, "red") else row(98, "red", 480,
                              median_ms=450, p25_ms=180) for r in rows]),
    ],
)  # fmt: skip
def test_each_verdict_can_fail(cid: str, change: Any) -> None:
    found = {v.id: v for v in c2000.verdicts(change(paper_like_rows()), None)}
    assert found[cid].verdict == "does not hold", found[cid].evidence
    assert found["C1"].verdict == "not run"


def test_c1_needs_linearity_and_about_3400_users() -> None:
    assert c2000.verdict_c1(Fit(2860.0, 2.8e5, 0.998)).verdict == "holds"
    assert c2000.verdict_c1(Fit(2860.0, 2.8e5, 0.95)).verdict == "does not hold"
    assert c2000.verdict_c1(Fit(2300.0, 0.0, 0.999)).verdict == "does not hold"  # 4,348 users


# --- the reproduction end to end -----------------------------------------------------------------
def test_reproduce_smoke_writes_the_report_and_reuses_runs(tmp_path: Path) -> None:
    out = tmp_path / "smoke"
    args = ("reproduce", "christiansen2000", "--scale", "smoke", "--out", out, "--jobs", "2")
    proc = cli(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "NOT A REPRODUCTION" in proc.stdout
    assert f"report: {out / 'report.md'}" in proc.stdout
    for name in ("report.md", "table.csv", "results.csv", "calibration.csv", "cdf.csv",
                 "verdicts.csv", "calibration/calibration.json"):  # fmt: skip
        assert (out / name).is_file(), name
    for figure in ("calibration", "fifo_queue_sizes", "fifo120_loads", "fifo_red_unconstrained"):
        assert (out / "figures" / f"{figure}.png").stat().st_size > 1000, figure
    runs = sorted(p.name for p in (out / "runs").iterdir())
    assert len(runs) == 15 and all((out / "runs" / r / "requests.parquet").is_file() for r in runs)
    report = (out / "report.md").read_text()
    assert "NOT A REPRODUCTION" in report
    for section in ("(a) Calibration", "(b) FIFO and RED", "(c) Response-time", "(d) The uncon",
                    "(e) Verdicts", "| C6 |", "| C12 |"):  # fmt: skip
        assert section in report, section
    verdicts = (out / "verdicts.csv").read_text()
    assert "C1," in verdicts and "not run" in verdicts
    # a second run finds every run directory finished and reuses it
    again = cli(*args, cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert "0 runs, 20 reused" in again.stdout


def test_reproduce_unknown_paper_or_scale_exits_2(tmp_path: Path) -> None:
    proc = cli("reproduce", "nosuchpaper", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        'error: reproduce: no paper "nosuchpaper" (known: christiansen2000)'
    )
    proc = cli("reproduce", "christiansen2000", "--scale", "huge", cwd=tmp_path)
    assert proc.returncode == 2 and 'no scale "huge"' in proc.stderr
    assert "quick, full" in proc.stderr and "smoke" not in proc.stderr
    assert not (tmp_path / "runs").exists()


def test_registry() -> None:
    assert papers.names() == ["christiansen2000"]
    module = papers.get("christiansen2000")
    assert set(module.PUBLIC_SCALES) == {"quick", "full"} and "smoke" in module.SCALES
    assert not module.SCALES["smoke"].reproduction
    full = module.SCALES["full"]
    assert (full.duration, full.warmup) == ("90min", "20min")
    assert len(full.calibration_users) >= 5 and len(module.SCALES["quick"].calibration_users) >= 5
    for scale in module.SCALES.values():
        if scale.reproduction:
            assert 500 <= min(scale.calibration_users) and max(scale.calibration_users) <= 4000
