"""The ``modern-aqm`` comparison study: its declaration, its judges, a tiny run; and the queue
table's sojourn and AQM-state columns it reads."""

from __future__ import annotations

import json
import math
from pathlib import Path

import aqmlab
import numpy as np
import pandas as pd
import pytest
from aqmlab import papers
from aqmlab.papers import christiansen2000 as web_paper
from aqmlab.papers import modern_aqm as m
from aqmlab.study import Data, reproduce


def test_the_study_is_registered_and_declares_its_experiments_and_findings() -> None:
    assert papers.get("modern-aqm") is m.STUDY
    assert m.STUDY.experiment_names == ("web_calibration", "web", "mix")
    assert [f.id for f in m.STUDY.findings] == ["M1", "M2", "M3", "M4", "M5", "M6"]
    assert all(f.criterion and f.claim for f in m.STUDY.findings)
    assert set(m.STUDY.public_scales) <= set(m.STUDY.scales)
    assert "Not a reproduction" in m.STUDY.testbed[0]
    assert m.AQMS == ("fifo", "red", "codel", "fq_codel", "pie")


def test_the_arms_are_linux_reno_and_cubic() -> None:
    assert m.TCP_ARMS == {
        "reno": {"profile": "linux", "congestion_control": "reno"},
        "cubic": {"profile": "linux"},
    }


def test_the_mix_crosses_five_disciplines_on_both_directions_with_the_arms() -> None:
    scale = m.STUDY.scales["quick"]
    sweep = dict((e.name, e) for e in m.STUDY.experiments)["mix"].build(scale, None)  # type: ignore[arg-type]
    points = sweep.points()
    assert len(points) == len(m.AQMS) * len(m.TCP_ARMS)
    for point in points:
        r = aqmlab.resolve(point.scenario)
        assert r["topology"]["bottleneck"]["rate"] == "1544kbps"
        assert r["queue"]["kind"] == r["reverse_queue"]["kind"]
        assert r["tcp"]["mss"] == "500B" and r["tcp"]["rwnd"] == "100KB"
        assert [g["flows"] for g in r["traffic"]] == [m.MIX_WEB, m.MIX_FTP]
    kinds = {p.labels["aqm"]: p.scenario["queue"]["kind"] for p in points}
    assert kinds == {"fifo": "droptail", "red": "red", "codel": "codel",
                     "fq_codel": "fq_codel", "pie": "pie"}  # fmt: skip
    fifo = next(p for p in points if p.labels["aqm"] == "fifo")
    assert fifo.scenario["queue"]["limit"] == "39p"


def test_the_web_testbed_is_christiansens_at_the_calibrated_loads() -> None:
    scale = m.STUDY.scales["quick"]
    calibration = m.EXPERIMENTS[0].build(scale, None)  # type: ignore[arg-type]
    base = calibration.points()[0].scenario
    assert base["tcp"] == m.TCP_ARMS[m.CALIBRATION_ARM]
    assert base["traffic"][0]["kind"] == "web-mah"
    # The loads come from the calibration's line, as Christiansen's own experiments do.
    data = Data(Path("unused"), ("web_calibration",), scale, (1,))
    data.derived["fit-web_calibration"] = aqmlab.calibrate.fit_line([1000, 3000], [3e6, 9e6])
    web = m.EXPERIMENTS[1].build(scale, data)
    points = web.points()
    assert len(points) == len(m.AQMS) * len(m.TCP_ARMS) * len(m.LOADS)
    users = {p.labels["load"]: p.scenario["traffic"][0]["users"] for p in points}
    assert users == {"90": 3000, "98": 3267}
    fifo = next(p for p in points if p.labels["aqm"] == "fifo").scenario
    assert fifo["queue"] == {"kind": "droptail", "limit": "120p"}
    red = next(p for p in points if p.labels["aqm"] == "red").scenario
    assert red["queue"] == web_paper.RECOMMENDED.queue


def _frame(rows: list[tuple[str, str, int, float]], value: str) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["aqm", "tcp", "seed", value])


def test_judges_can_hold_and_fail() -> None:
    web = _frame([("fq_codel", "reno", 1, 300.0), ("fifo", "reno", 1, 400.0)], "median_ms")
    web["load"] = 98
    assert m.check_m1(web)[0]
    web.loc[web["aqm"] == "fq_codel", "median_ms"] = 500.0
    assert not m.check_m1(web)[0]
    delay = _frame([(q, "reno", 1, d) for q, d in
                    [("fifo", 40.0), ("codel", 6.0), ("fq_codel", 3.0), ("pie", 16.0)]],
                   "queue_delay_ms").assign(testbed="mix")  # fmt: skip
    assert m.check_m6(delay)[0]
    assert m._delay_check("codel", 0.0, 10.0)(delay)[0]
    assert m._delay_check("pie", 7.5, 22.5)(delay)[0]
    delay.loc[delay["aqm"] == "pie", "queue_delay_ms"] = 45.0
    assert not m.check_m6(delay)[0] and not m._delay_check("pie", 7.5, 22.5)(delay)[0]
    mix = _frame([("fifo", "reno", 1, 0.8), ("fq_codel", "reno", 1, 0.99)], "ftp_jain")
    assert m.check_m4(mix)[0]
    assert not m.check_m4(mix.assign(ftp_jain=[0.99, 0.8]))[0]
    total = _frame([("fifo", "reno", 1, 1400.0), ("pie", "reno", 1, 1350.0)], "total_kbps")
    assert m.check_m5(total)[0]
    assert not m.check_m5(total.assign(total_kbps=[1400.0, 1300.0]))[0]


def test_a_tiny_run_of_the_mix_builds_a_report(tmp_path: Path) -> None:
    done = reproduce(m.STUDY, "smoke", tmp_path / "out", only=["M4", "M5"], seeds=2, jobs=2,
                     progress=False)  # fmt: skip
    assert not done.failed
    assert done.runs == 2 * len(m.AQMS) * len(m.TCP_ARMS)
    report = done.report.read_text()
    assert report.startswith("# Comparison study (not a reproduction: no paper to match): ")
    assert "The numbers below test the plumbing" in report
    assert "Zhang & Qiu's mix: goodput, fairness" in report and "± " in report
    document = json.loads((done.out / "findings.json").read_text())
    findings = {f["id"]: f for f in document["findings"]}
    assert findings["M4"]["status"] in ("holds", "does not hold")
    assert findings["M5"]["status"] in ("holds", "does not hold")
    assert findings["M1"]["status"] == "not run"
    rows = pd.read_csv(done.out / "mix.csv")
    assert sorted(rows["aqm"]) == sorted(m.AQMS * len(m.TCP_ARMS))
    assert (rows["queue_delay_ms_mean"] > 0).all() and (rows["ftp_jain_mean"] <= 1).all()


# --- the queue table's sojourn and AQM-state columns ---------------------------------------------
def _bulk(queue: dict[str, object]) -> aqmlab.Result:
    return aqmlab.run({
        "duration": "6s", "warmup": "1s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
        "queue": queue,
        "traffic": [{"kind": "ftp", "flows": 4}],
        "measure": {"queue_interval": "500ms"},
    })  # fmt: skip


@pytest.mark.parametrize("kind", ["droptail", "red", "codel", "fq_codel", "pie"])
def test_sojourn_columns_add_up_to_the_summary_and_aqm_columns_are_nan_elsewhere(kind: str) -> None:
    result = _bulk({"kind": kind})
    q = result.tables["queue"]
    fwd = q[q["direction"] == "forward"]
    b = result.summary["forward"]
    assert int(fwd["departures_pkts"].sum()) == b["departures_pkts"]
    weighted = float((fwd["mean_sojourn_s"] * fwd["departures_pkts"]).sum()) / b["departures_pkts"]
    assert weighted == pytest.approx(b["mean_queue_delay_s"], rel=1e-9)
    # An interval in which nothing left (every flow waiting on a timeout) has no sojourn time.
    assert (fwd["mean_sojourn_s"].isna() == (fwd["departures_pkts"] == 0)).all()
    sent = fwd[fwd["departures_pkts"] > 0]
    assert (sent["max_sojourn_s"] >= sent["mean_sojourn_s"]).all()
    own = {"red": "red_avg", "codel": "codel_dropping", "fq_codel": "codel_dropping",
           "pie": "pie_prob"}.get(kind)  # fmt: skip
    for column in ("red_avg", "red_max_p", "codel_dropping", "pie_prob"):
        applies = column == own or (kind == "red" and column == "red_max_p")
        assert fwd[column].notna().all() if applies else fwd[column].isna().all(), column
    if kind == "codel":
        assert fwd["codel_dropping"].between(0, 1).all() and fwd["codel_dropping"].max() > 0
    if kind == "pie":
        assert fwd["pie_prob"].between(0, 1).all()
    # The reverse queue (a drop-tail FIFO of ACKs) has no AQM state, but its sojourn times.
    rev = q[q["direction"] == "reverse"]
    assert rev["codel_dropping"].isna().all() and rev["pie_prob"].isna().all()
    assert np.isfinite(rev["mean_sojourn_s"]).any()
    assert not math.isnan(b["mean_queue_delay_s"])
