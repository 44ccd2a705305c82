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


LOT_FLOWS = {"start": {"dist": "uniform", "min": "0s", "max": "1s"}}
LOT = {"duration": "60s", "warmup": "20s",
       "topology": {"kind": "parking-lot", "hops": 2,
                    "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                    "access": {"rate": "100Mbps", "delay": "1ms", "queue": "1000p"}},
       "queue": RED,
       "tcp": {"profile": "ns2-2003", "variant": "newreno", "rwnd": "1MB"},
       "traffic": [{"name": "long", "kind": "ftp", "flows": 10, "servers": ["s0"],
                    "clients": ["c0"], **LOT_FLOWS},
                   {"name": "cross1", "kind": "ftp", "flows": 10, "servers": ["s1"],
                    "clients": ["c1"], **LOT_FLOWS},
                   {"name": "cross2", "kind": "ftp", "flows": 30, "servers": ["s2"],
                    "clients": ["c2"], **LOT_FLOWS}]}  # fmt: skip
"""Two 10 Mbps hops with RED on each: ten long flows cross both, ten cross flows hop 1 alone and
thirty hop 2 alone, so the two hops hold different queues (about 63 and 121 packets)."""
LOT_RATES = [0.01, 0.0125, 0.015, 0.0175, 0.02, 0.03, 0.04, 0.05]


def test_each_hop_of_a_parking_lot_follows_its_own_law(tmp_path: Path) -> None:
    # Each hop's law is measured with the dropper on that hop alone (the other keeps its RED), as
    # Chung & Claypool measure one law per congested router; RED on both hops then settles on
    # each hop where that hop's law meets RED's drop function. First run: hop 1 predicted 64.3
    # pkts, measured 62.8 and 62.6; hop 2 predicted 124.2, measured 120.2 and 121.9.
    red = RedConfig(20, 200, 0.1, limit=1000.0)
    laws = {hop: queue_law(LOT, drop_rates=LOT_RATES, seeds=[1, 2], out=tmp_path / hop, jobs=1,
                           link=hop)
            for hop in ("r0-r1", "r1-r2")}  # fmt: skip
    for law in laws.values():
        # The dropper is on the measured hop: its drop rate is the one set.
        assert law.points["drop_rate"].to_numpy() == pytest.approx(LOT_RATES, rel=0.06)
        assert law.points["avg_queue"].is_monotonic_decreasing
    measured = {hop: 0.0 for hop in laws}
    for seed in (1, 2):
        summary = aqmlab.run(LOT, seed=seed).summary
        for hop in laws:
            measured[hop] += summary[hop]["mean_queue_pkts"] / 2
    predicted = {hop: predict_red(law, red) for hop, law in laws.items()}
    print({hop: (p.avg_queue, measured[hop]) for hop, p in predicted.items()})
    for hop, pred in predicted.items():
        assert pred.stable and pred.avg_queue is not None
        assert abs(pred.avg_queue - measured[hop]) <= TOLERANCE * measured[hop]
        other = predicted["r1-r2" if hop == "r0-r1" else "r0-r1"].avg_queue
        assert other is not None and abs(other - measured[hop]) > TOLERANCE * measured[hop]


def test_a_named_link_takes_the_dropper_alone() -> None:
    from aqmlab.queue_laws import law_target, with_dropper

    out = with_dropper(LOT, 0.02, link="r1-r0")
    queues = {entry["name"]: entry["queue"]["kind"] for entry in out["link"]}
    reverse = {entry["reverse_name"]: entry["reverse_queue"]["kind"] for entry in out["link"]}
    assert reverse["r1-r0"] == "bernoulli"
    assert queues["r0-r1"] == queues["r1-r2"] == "red"
    assert law_target(LOT, "r1-r0").section == "r1-r0"
    with pytest.raises(InputError, match=r'--link: no link direction is named "r9-r1"; known: '
                                         r"s0\.up, s0\.down, .*r0-r1, r1-r0, r1-r2, r2-r1"):
        law_target(LOT, "r9-r1")
    with pytest.raises(InputError, match=r'--link: this network has no dumbbell bottleneck'):
        law_target(LOT)


def test_cli_measures_a_named_link_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    from conftest import cli

    toml = tmp_path / "lot.toml"
    toml.write_text(
        'duration = "10s"\nwarmup = "2s"\n'
        '[topology]\nkind = "parking-lot"\nhops = 2\n'
        'bottleneck = { rate = "10Mbps", delay = "10ms" }\n'
        '[tcp]\nprofile = "ns2-2003"\nvariant = "newreno"\nrwnd = "1MB"\n'
        '[[traffic]]\nname = "ftp"\nkind = "ftp"\nflows = 9\n'
    )
    proc = cli("queue-law", toml, "--drop-rates", "0.01,0.05", "--link", "r1-r2",
               "--out", tmp_path / "law", "--jobs", "1", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "queue law of r1-r2" in proc.stdout and "0.05" in proc.stdout
    proc = cli("queue-law", toml, "--drop-rates", "0.01,0.05", "--link", "bottleneck",
               "--out", tmp_path / "bad", "--jobs", "1", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2
    assert '--link: no link direction is named "bottleneck"' in proc.stderr
    assert "r0-r1, r1-r0, r1-r2, r2-r1" in proc.stderr
