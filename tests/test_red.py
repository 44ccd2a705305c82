"""RED queues through the Python front: resolution, the RED columns, drops and marks."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import aqmlab
import pandas as pd
import pytest
from conftest import ROOT, base, cli

RED_AUTO = {"kind": "red", "profile": "ns2-2003", "limit": "100p"}


def tcp_red(queue: dict[str, Any], *, ecn: bool = False) -> dict[str, Any]:
    """Eight ns-2-style bulk flows for 3 s through a 10 Mbps / 5 ms RED bottleneck."""
    scenario = base()
    scenario["warmup"] = "0s"
    scenario["queue"] = queue
    scenario["tcp"] = {"profile": "ns2-2003", "rwnd": "100KB", "ecn": ecn}
    scenario["traffic"] = [
        {
            "name": "bulk",
            "kind": "ftp",
            "flows": 8,
            "start": {"dist": "uniform", "min": "0s", "max": "100ms"},
        }
    ]
    return scenario


@pytest.fixture(scope="module")
def red_run() -> aqmlab.Result:
    return aqmlab.run(tcp_red(RED_AUTO))


def test_automatic_parameters_are_recorded_as_numbers(red_run: aqmlab.Result) -> None:
    queue = red_run.meta["scenario"]["queue"]
    given = {**RED_AUTO, "min_th": "auto", "max_th": "auto", "w_q": "auto"}
    assert aqmlab.resolve(tcp_red(given))["queue"] == queue
    # docs/models/ns2.md §2.2 at 10 Mbps with 500-byte mean packets: ptc = 2500/s, thresholds
    # 6.25 / 18.75, q_w = 1 − exp(−1/(10 · RTT · ptc)) with RTT = max(0.1 s, 3 · (5 ms + 1/ptc))
    # = 0.1 s.
    assert (queue["min_th"], queue["max_th"]) == pytest.approx((6.25, 18.75))
    assert queue["w_q"] == pytest.approx(1 - math.exp(-1 / (10 * 0.1 * 2500)))
    assert queue["adaptive"] is False and queue["gentle"] is True
    # the resolved queue is itself a scenario's queue, and resolves to itself
    again = aqmlab.resolve({**tcp_red(queue)})
    assert again["queue"] == queue


@pytest.mark.parametrize(
    "queue",
    [
        {"kind": "red", "profile": "altq", "min_th": "10KB", "w_q": "1/512", "adaptive": True},
        {"kind": "red", "tc": "limit 400000 min 30000 max 90000 avpkt 1000 ecn adaptive"},
        {"kind": "red", "profile": "ns2-2000", "mode": "bq_bm", "w_q": "ared"},
    ],
    ids=["altq", "tc", "mode"],
)
def test_every_form_resolves_to_numbers_that_resolve_to_themselves(queue: dict[str, Any]) -> None:
    resolved = aqmlab.resolve(tcp_red(queue))["queue"]
    for key in ("min_th", "max_th", "w_q", "max_p"):
        assert isinstance(resolved[key], float), key
    assert "mode" not in resolved and "tc" not in resolved
    assert aqmlab.resolve(tcp_red(resolved))["queue"] == resolved


def test_tc_line_and_forms_convert_as_documented() -> None:
    tc = aqmlab.resolve(tcp_red({"kind": "red", "tc": "limit 400000 min 30000 max 90000 ecn"}))
    queue = tc["queue"]
    assert queue["profile"] == "linux" and queue["ecn"] is True and queue["queue_in_bytes"] is True
    assert (queue["min_th"], queue["max_th"], queue["mean_pkt_size"]) == (30.0, 90.0, "1000B")
    # burst (2·30 + 90)/3 = 50: the largest 2^−n with 50 + 1 − 30 ≤ (1 − (1 − W)^50) / W
    w = queue["w_q"]
    assert math.log2(w) == round(math.log2(w))
    assert 21 <= (1 - (1 - w) ** 50) / w and 21 > (1 - (1 - 2 * w) ** 50) / (2 * w)
    altq = aqmlab.resolve(
        tcp_red({"kind": "red", "profile": "altq", "min_th": "15KB", "max_th": "30p"})
    )
    assert (altq["queue"]["min_th"], altq["queue"]["max_th"]) == (15.0, 30.0)  # 1000-byte MPS


def test_red_columns_and_early_drops(red_run: aqmlab.Result) -> None:
    queue = red_run.queue
    forward = queue[queue["direction"] == "forward"]
    reverse = queue[queue["direction"] == "reverse"]
    assert len(forward) > 0 and forward["red_avg"].notna().all()
    assert (forward["red_avg"] >= 0).all() and forward["red_avg"].max() > 6.25
    assert (forward["red_max_p"] == 0.1).all(), "max_p moves only under Adaptive RED"
    assert reverse["red_avg"].isna().all() and reverse["red_max_p"].isna().all()  # drop-tail
    bottleneck = red_run.summary["forward"]
    assert bottleneck["drops_pkts_by_reason"]["early"] > 0
    assert set(bottleneck["drops_pkts_by_reason"]) == {
        "overflow",
        "random",
        "scripted",
        "early",
        "forced",
        "codel",
        "pie",
    }
    assert bottleneck["marks_pkts"] == 0
    assert bottleneck["marks_pkts_by_reason"] == {
        "early": 0,
        "forced": 0,
        "scripted": 0,
        "random": 0,
        "codel": 0,
        "pie": 0,
    }
    assert bottleneck["drops_pkts"] == sum(bottleneck["drops_pkts_by_reason"].values())
    assert red_run.summary["checks"]["counter_identities"] is True


def test_forced_drops_are_the_ones_red_did_not_choose() -> None:
    # thresholds far below what eight flows keep queued, and a small limit: RED's average sits
    # in the forced region and the queue fills, so all three reasons occur
    result = aqmlab.run(tcp_red({"kind": "red", "profile": "ns2-2003", "limit": "30p",
                                 "min_th": 2, "max_th": 6, "w_q": 0.02}))  # fmt: skip
    by_reason = result.summary["forward"]["drops_pkts_by_reason"]
    assert by_reason["early"] > 0 and by_reason["forced"] > 0
    forward = result.queue[result.queue["direction"] == "forward"]
    assert forward["forced_drops_pkts"].sum() == by_reason["forced"] + by_reason["overflow"]
    assert (forward["forced_drops_pkts"] <= forward["drops_pkts"]).all()
    assert result.summary["checks"]["counter_identities"] is True


def test_with_ecn_red_marks_instead_of_dropping_early() -> None:
    result = aqmlab.run(tcp_red({**RED_AUTO, "ecn": True}, ecn=True))
    bottleneck = result.summary["forward"]
    # only retransmissions and the SYNs are not ECN-capable (RFC 3168 §6.1.5), so few early drops
    assert bottleneck["marks_pkts_by_reason"]["early"] > 5 * max(
        1, bottleneck["drops_pkts_by_reason"]["early"]
    )
    assert bottleneck["marks_pkts"] == sum(bottleneck["marks_pkts_by_reason"].values())
    assert result.connections["ecn_reductions"].sum() > 0


def test_byte_queue_average_is_in_bytes() -> None:
    packets = aqmlab.run(tcp_red({**RED_AUTO, "mode": "pq_pm"})).queue
    byte = aqmlab.run(tcp_red({**RED_AUTO, "mode": "bq_pm"})).queue
    pkt_avg = packets[packets["direction"] == "forward"]["red_avg"].max()
    byte_avg = byte[byte["direction"] == "forward"]["red_avg"].max()
    assert byte_avg > 100 * pkt_avg  # bytes of 1040-byte packets, not packets


def test_the_average_decays_over_an_idle_period() -> None:
    scenario = base()
    scenario.update(duration="6s", warmup="0s", measure={"queue_interval": "500ms"})
    scenario["queue"] = {
        "kind": "red",
        "profile": "ns2-2000",
        "limit": "200p",
        "min_th": 50,
        "max_th": 150,
    }
    scenario["traffic"] = [
        {"name": "burst", "kind": "cbr", "rate": "20Mbps", "size": "500B", "stop": "1s"},
        {"name": "trickle", "kind": "cbr", "rate": "40kbps", "size": "500B", "start": "4s"},
    ]
    queue = aqmlab.run(scenario).queue
    forward = queue[queue["direction"] == "forward"].set_index("t_s")["red_avg"]
    assert forward[0.5] > 100
    # 3 s idle at 2500 mean-size packets/s: avg · 0.998^7500 ≈ 0; the trickle keeps it near 0
    assert forward[5.5] < 1


@pytest.mark.parametrize("profile", ["ns2-2000", "ns2-2003"])
def test_unlimited_transfers_without_fins_stay_open(profile: str) -> None:
    scenario = base()
    scenario["traffic"] = [
        {"name": "bulk", "kind": "ftp", "start": "500ms", "tcp": {"profile": profile}}
    ]
    (row,) = aqmlab.run(scenario).connections.itertuples()
    assert row.bytes > 0
    assert row.outcome == "open" and math.isnan(row.end_s)
    assert row.established_s >= 0.5


def test_byte_modes_example_pins_groups_to_hosts() -> None:
    scenario = aqmlab.load_scenario(ROOT / "scenarios" / "red-byte-modes.toml")
    scenario.update(duration="2s", warmup="0s")
    conns = aqmlab.run(scenario).connections
    for row in conns.itertuples():
        index = [296, 576, 1500, 4352, 16000].index(int(re.sub(r"\D", "", row.group)))
        assert (row.server, row.client) == (f"s{index}", f"c{index}"), row.group


def test_bench_prints_the_red_to_droptail_ratio(tmp_path: Path) -> None:
    proc = cli("bench", "--smoke", "--no-ceiling", "--no-ns3", "--no-startup", "--no-sweep",
               "--only", "tcp-100-newreno", "--only", "tcp-100-newreno-red",
               cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert re.search(
        r"tcp-100-newreno-red / tcp-100-newreno: \d+\.\d\dx the wall time", proc.stdout
    )


def test_red_benchmark_differs_from_droptail_only_in_its_queue() -> None:
    from aqmlab.bench import load_reference, references

    droptail = aqmlab.resolve(load_reference(references()["tcp-100-newreno"]))
    red = aqmlab.resolve(load_reference(references()["tcp-100-newreno-red"]))
    assert red["queue"]["kind"] == "red" and red["queue"]["limit"] == "100p"
    assert pd.Series(red["queue"]).loc[["min_th", "max_th"]].tolist() == [6.25, 18.75]
    for key in set(droptail) | set(red):
        if key not in ("name", "queue"):
            assert red[key] == droptail[key], key
