"""The queue law (aqmlab.queue_laws): the intersection arithmetic, a prediction against a run."""

from __future__ import annotations

from pathlib import Path

import aqmlab
import pandas as pd
import pytest
from aqmlab.errors import InputError
from aqmlab.queue_laws import QueueLaw, RedConfig, count_rate, predict_red, queue_law

LAW = QueueLaw(pd.DataFrame({"drop_rate": [0.01, 0.02, 0.05, 0.1],
                             "avg_queue": [900.0, 600.0, 300.0, 100.0]}))  # fmt: skip


def test_intersection_between_thresholds() -> None:
    # RED 0/1000/0.1 with a uniform count: rate = Q/10000; the law between 0.02 and 0.05 is
    # Q = 600 - 10000 (r - 0.02); Q/10000 = r gives r = 0.04, Q = 400.
    p = predict_red(LAW, RedConfig(0, 1000, 0.1, count="uniform"))
    assert p.stable and p.region == "between thresholds"
    assert p.avg_queue == pytest.approx(400.0, abs=1e-6)
    assert p.drop_rate == pytest.approx(0.04, abs=1e-9)


def test_count_rule_moves_the_point() -> None:
    # ns-2's wait rule drops at 2/3 p_b: rate = Q/15000, so r = 0.08 - r·1.5... Q = 480.
    p = predict_red(LAW, RedConfig(0, 1000, 0.1))
    assert p.avg_queue == pytest.approx(480.0, abs=1e-6)
    assert count_rate(0.3, "altq") == pytest.approx(0.6 / 2.3)


def test_no_stable_point_and_gentle() -> None:
    red = RedConfig(100, 300, 0.02, count="uniform")
    p = predict_red(LAW, red)
    assert not p.stable and p.region == "oscillates around max_th" and p.avg_queue == 300.0
    g = predict_red(LAW, RedConfig(100, 300, 0.02, gentle=True, count="uniform"))
    assert g.stable and g.region == "gentle region" and 300 < (g.avg_queue or 0) < 600
    assert predict_red(LAW, RedConfig(950, 2000, 0.1)).region == "below min_th"
    assert predict_red(LAW, RedConfig(0, 1000, 0.1, limit=200.0)).region == (
        "beyond the physical limit")
    assert predict_red(LAW, RedConfig(0, 5000, 0.001)).region == "outside the measured law"


def test_bad_red_text() -> None:
    with pytest.raises(InputError, match="--red"):
        RedConfig.parse("100,300")
    with pytest.raises(InputError, match="--red"):
        RedConfig.parse("300,100,0.1")


BASE = {"duration": "60s", "warmup": "20s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
        "tcp": {"profile": "ns2-2003", "variant": "newreno", "rwnd": "1MB"},
        "traffic": [{"name": "ftp", "kind": "ftp", "flows": 40,
                     "start": {"dist": "uniform", "min": "0s", "max": "1s"}}]}  # fmt: skip
RED = {"kind": "red", "profile": "ns2-2003", "limit": "1000p", "min_th": 20, "max_th": 200,
       "max_p": 0.1, "gentle": False, "mean_pkt_size": "1000B"}  # fmt: skip
TOLERANCE = 0.10
"""Relative tolerance of predicted vs measured average queue. The law is a mean of 2 seeds over
40 s each (its seed-to-seed spread here is a few %), interpolated linearly between drop rates
0.01 apart where it is convex (a few % high between points); RED's drops are spaced by ns-2's
count rule rather than independent (TCP's window at equal rate differs by a few %, Mathis vs
random loss), and RED's own run is one 40 s average. Together ±10% (first run: predicted 126.3,
measured 121.5 and 122.1); a prediction that ignored the count rule (rate = p_b instead of
2/3·p_b) gives 103.7, ~15% off, and fails it (asserted below)."""


def test_predicted_queue_matches_a_red_run(tmp_path: Path) -> None:
    law = queue_law(BASE, drop_rates=[0.02, 0.03, 0.04, 0.05, 0.07], seeds=[1, 2],
                    out=tmp_path / "law", jobs=1)  # fmt: skip
    red = RedConfig(20, 200, 0.1, limit=1000.0)
    pred = predict_red(law, red)
    assert pred.stable and pred.region == "between thresholds" and pred.avg_queue is not None
    measured = []
    for seed in (1, 2):
        result = aqmlab.run({**BASE, "queue": RED}, seed=seed)
        measured.append(result.summary["forward"]["mean_queue_pkts"])
    mean = sum(measured) / len(measured)
    print(f"predicted {pred.avg_queue:.1f} pkts at {pred.drop_rate:.4f}; measured {measured}")
    assert abs(pred.avg_queue - mean) <= TOLERANCE * mean
    naive = predict_red(law, RedConfig(20, 200, 0.1, count="uniform"))
    assert naive.avg_queue is not None and abs(naive.avg_queue - mean) > TOLERANCE * mean


def test_cli_prints_the_law_and_the_prediction(tmp_path: Path) -> None:
    from conftest import cli

    toml = tmp_path / "bulk.toml"
    toml.write_text(
        'duration = "20s"\nwarmup = "5s"\n'
        '[topology]\nbottleneck = { rate = "10Mbps", delay = "20ms" }\n'
        '[tcp]\nprofile = "ns2-2003"\nvariant = "newreno"\nrwnd = "1MB"\n'
        '[[traffic]]\nname = "ftp"\nkind = "ftp"\nflows = 20\n'
    )
    proc = cli("queue-law", toml, "--drop-rates", "0.01,0.05", "--red", "5,100,0.1",
               "--out", tmp_path / "law", "--jobs", "1", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "queue law" in proc.stdout and "0.05" in proc.stdout
    assert "RED 5,100,0.1:" in proc.stdout
