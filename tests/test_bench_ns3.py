"""aqmlab beside ns-3 in the bench: the scenario → ns-3 mapping as data (always), and a
tiny dumbbell run in ns-3 (only where the ``ns3`` package is installed: ``aqmlab[ns3]``)."""

from __future__ import annotations

import pytest
from aqmlab.bench import BenchRow, bench_one, load_reference, measure, references
from aqmlab.bench.ns3 import (
    REFERENCES,
    Ns3Dumbbell,
    Ns3Row,
    available,
    ns3_dumbbell,
    run_in_child,
    side_by_side,
)
from aqmlab.errors import ScenarioError


def _reference(name: str, **changes: object) -> dict:
    scenario = load_reference(references()[name])
    scenario.update(changes)
    return scenario


def test_red_reference_maps_to_ns3_red_with_the_same_parameters() -> None:
    dumbbell = ns3_dumbbell(_reference("tcp-100-newreno-red"))
    red = dumbbell.bottleneck_queue
    assert red.type_id == "ns3::RedQueueDisc"
    assert red.attributes == {
        "MaxSize": "100p",
        "MinTh": "6.25",  # max(5, 5 ms · 2500/s / 2): the auto rule, resolved by aqmlab
        "MaxTh": "18.75",
        "QW": repr(1 - 2.718281828459045 ** (-1 / (10 * 0.1 * 2500))),
        "LInterm": "10",  # 1 / max_p
        "Gentle": "true",
        "Wait": "true",  # count = "ns2-wait"
        "MeanPktSize": "500",
        "LinkBandwidth": "10Mbps",
        "UseEcn": "false",
        "UseHardDrop": "true",
    }
    assert float(red.attributes["QW"]) == pytest.approx(0.00039992, rel=1e-4)
    fifo_50 = {"type_id": "ns3::FifoQueueDisc", "attributes": {"MaxSize": "50p"}}
    assert vars(dumbbell.reverse_queue) == fifo_50 and vars(dumbbell.access_queue) == fifo_50


def test_tcp_settings_map_to_ns3_defaults() -> None:
    dumbbell = ns3_dumbbell(_reference("tcp-100-newreno-red"))
    assert dumbbell.defaults == {
        "ns3::TcpL4Protocol::SocketType": "ns3::TcpNewReno",
        "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpClassicRecovery",
        "ns3::TcpSocket::SegmentSize": "1000",
        "ns3::TcpSocket::InitialCwnd": "2",
        "ns3::TcpSocket::RcvBufSize": "20000",  # rwnd = 20KB, the advertised window
        "ns3::TcpSocket::DelAckCount": "1",  # delack = "off": an ACK for every segment
        "ns3::TcpSocket::DelAckTimeout": "100ms",
        "ns3::TcpSocket::ConnTimeout": "6s",
        "ns3::TcpSocket::ConnCount": str(2**32 - 1),
        "ns3::TcpSocket::DataRetries": str(2**32 - 1),  # max_retries = "never"
        "ns3::TcpSocketBase::MinRto": "1s",
        "ns3::TcpSocketBase::ClockGranularity": "10ms",
        "ns3::TcpSocketBase::ReTxThreshold": "3",
        "ns3::TcpSocketBase::LimitedTransmit": "true",
        "ns3::TcpSocketBase::Sack": "false",
        "ns3::TcpSocketBase::Timestamp": "false",
        "ns3::TcpSocketBase::WindowScaling": "false",
    }
    assert dumbbell.send_size == 1000


def test_topology_and_flows_map_one_to_one() -> None:
    dumbbell = ns3_dumbbell(_reference("tcp-100-newreno-red"))
    assert (dumbbell.servers, dumbbell.clients) == (10, 10)
    assert (dumbbell.bottleneck_rate, dumbbell.bottleneck_delay) == ("10000000bps", "20ms")
    assert (dumbbell.access_rate, dumbbell.access_delay) == ("100000000bps", "0s")
    assert dumbbell.duration_s == 100.0 and dumbbell.queue_sample_s == 0.003
    assert len(dumbbell.flows) == 100
    assert [(f.server, f.client) for f in dumbbell.flows[:12]] == [
        (k % 10, k % 10) for k in range(12)
    ]
    starts = [f.start_s for f in dumbbell.flows]
    assert all(0 <= t <= 1 for t in starts) and len(set(starts)) == 100


def test_droptail_reference_maps_to_a_fifo() -> None:
    dumbbell = ns3_dumbbell(_reference("tcp-10-newreno"))
    assert vars(dumbbell.bottleneck_queue) == {
        "type_id": "ns3::FifoQueueDisc",
        "attributes": {"MaxSize": "10p"},
    }
    assert dumbbell.bottleneck_rate == "1000000bps" and dumbbell.duration_s == 10000.0
    assert set(REFERENCES) <= set(references())
    for name in REFERENCES:
        ns3_dumbbell(_reference(name))


def test_overrides_change_the_mapped_values() -> None:
    from aqmlab.scenario import apply_overrides

    scenario = apply_overrides(
        _reference("tcp-100-newreno-red"),
        ["tcp.variant=sack", "tcp.delack=one-shot", "queue.gentle=false", "queue.max_p=0.02",
         "queue.min_th=10", "queue.max_th=30", "tcp.initial_window=4"],
    )  # fmt: skip
    dumbbell = ns3_dumbbell(scenario)
    attributes = dumbbell.bottleneck_queue.attributes
    assert (attributes["Gentle"], attributes["LInterm"]) == ("false", "50")
    assert (attributes["MinTh"], attributes["MaxTh"]) == ("10.0", "30.0")
    assert dumbbell.defaults["ns3::TcpSocketBase::Sack"] == "true"
    assert dumbbell.defaults["ns3::TcpSocket::DelAckCount"] == "2"
    assert dumbbell.defaults["ns3::TcpSocket::InitialCwnd"] == "4"
    assert dumbbell.defaults["ns3::TcpL4Protocol::RecoveryType"] == "ns3::TcpClassicRecovery"
    prr = ns3_dumbbell(apply_overrides(_reference("tcp-100-newreno"), ["tcp.recovery_cwnd=prr"]))
    assert prr.defaults["ns3::TcpL4Protocol::RecoveryType"] == "ns3::TcpPrrRecovery"
    assert "ns3::TcpSocketState::EnablePacing" not in prr.defaults
    paced = ns3_dumbbell(apply_overrides(_reference("tcp-100-newreno"),
                                         ["tcp.pacing=linux", "tcp.pacing_ca_ratio=110"]))
    assert paced.defaults["ns3::TcpSocketState::EnablePacing"] == "true"
    assert paced.defaults["ns3::TcpSocketState::PacingSsRatio"] == "200"
    assert paced.defaults["ns3::TcpSocketState::PacingCaRatio"] == "110"
    rack = apply_overrides(_reference("tcp-100-newreno"),
                           ["tcp.variant=sack", "tcp.sack_after_rto=keep",
                            "tcp.loss_detection=rack-tlp"])  # fmt: skip
    with pytest.raises(ScenarioError, match="loss_detection"):
        ns3_dumbbell(rack)


def test_codel_pie_and_fq_codel_map_to_ns3_with_linux_settings() -> None:
    def mapped(queue: dict) -> dict:
        return vars(ns3_dumbbell(_reference("tcp-100-newreno", queue=queue)).bottleneck_queue)

    assert mapped({"kind": "codel", "target": "4ms", "interval": "80ms"}) == {
        "type_id": "ns3::CoDelQueueDisc",
        "attributes": {"MaxSize": "1000p", "Target": "4ms", "Interval": "80ms", "UseEcn": "false",
                       "MinBytes": "1514"},  # Linux's MTU rule: no drop with one MTU queued
    }  # fmt: skip
    assert mapped({"kind": "fq_codel", "flows": 64, "limit": "500p"}) == {
        "type_id": "ns3::FqCoDelQueueDisc",
        "attributes": {"MaxSize": "500p", "Target": "5ms", "Interval": "100ms", "UseEcn": "true",
                       "Flows": "64"},  # fq_codel's ECN default is on (tc-fq_codel(8))
    }  # fmt: skip
    assert mapped({"kind": "pie", "alpha": 0.25, "tupdate": "30ms"}) == {
        "type_id": "ns3::PieQueueDisc",
        "attributes": {"MaxSize": "1000p", "QueueDelayReference": "15ms", "Tupdate": "30ms",
                       "A": "0.25", "B": "1.25", "UseEcn": "false",
                       "UseDequeueRateEstimator": "false", "UseDerandomization": "true",
                       "MeanPktSize": "1514"},
    }  # fmt: skip


def test_a_flat_start_time_is_kept() -> None:
    scenario = _reference("tcp-10-newreno")
    scenario["traffic"][0]["start"] = "2s"
    assert {f.start_s for f in ns3_dumbbell(scenario).flows} == {2.0}


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"queue": {"kind": "bernoulli", "p": 0.01}}, "queue.kind"),
        ({"queue": {"kind": "droptail", "limit": "50KB"}}, "queue.limit"),
        ({"queue": {"kind": "red", "ecn": True}}, "queue.ecn"),
        ({"tcp": {"variant": "reno"}}, "traffic[0].tcp.variant"),
        ({"traffic": [{"kind": "poisson", "rate": "1Mbps"}]}, "traffic[0].kind"),
        ({"traffic": [{"kind": "ftp", "flows": 2, "size": "1MB"}]}, "traffic[0].size"),
    ],
)
def test_what_ns3_cannot_build_is_a_clear_error(change: dict, path: str) -> None:
    scenario = _reference("tcp-10-newreno")
    scenario.update(change)
    with pytest.raises(ScenarioError) as caught:
        ns3_dumbbell(scenario)
    assert caught.value.path == path
    assert "ns-3 twin" in str(caught.value)


def test_the_dumbbell_survives_json() -> None:
    dumbbell = ns3_dumbbell(_reference("tcp-100-newreno-red"))
    assert Ns3Dumbbell.from_json(dumbbell.to_json()) == dumbbell


def test_side_by_side_ratios_are_medians_of_the_pairs_made_in_turn() -> None:
    # aqmlab's typed command took 0.1, 0.2, 0.1 s; the other simulator's runs made just after
    # each took 1, 2, 3 s: pair by pair 10, 10, 30 (median 10), where the ratio of the medians
    # would say 20.
    ours = BenchRow("r", 10.0, 1, 0.05, 1, process_s=0.3, command_s=0.1, runs=3,
                    run_wall_s=(0.05, 0.1, 0.05), run_command_s=(0.1, 0.2, 0.1))
    theirs = [Ns3Row("r", 10.0, run_s, 0.0, 0, 1, 1.0, process_s=process_s)
              for run_s, process_s in ((0.5, 1.0), (1.0, 2.0), (2.5, 3.0))]  # fmt: skip
    pair = side_by_side(ours, theirs)
    assert pair["speed_ratio"] == pytest.approx(10.0)
    assert pair["engine_ratio"] == pytest.approx(10.0)  # 10, 10, 50
    assert (pair["ns3_runs"], pair["ns3_process_s"], pair["ns3_run_s"]) == (3, 2.0, 1.0)
    with pytest.raises(ValueError, match="no run of the other simulator"):
        side_by_side(ours, [])


def test_the_bench_calls_between_after_each_of_its_runs() -> None:
    calls: list[int] = []
    row = measure("udp-poisson-95", smoke=True, with_ceiling=False, runs=2,
                  between=lambda: calls.append(len(calls)))  # fmt: skip
    assert calls == [0, 1]
    assert len(row.run_command_s) == 2
    assert row.command_s == pytest.approx(sum(row.run_command_s) / 2)  # the median of two


def test_side_by_side_relative_differences() -> None:
    ours = BenchRow("r", 10.0, 1, 0.1, 1, process_s=0.25, goodput_bps=8e6, drops_pkts=200,
                    arrivals_pkts=2000, mean_queue_pkts=10.0)  # fmt: skip
    theirs = Ns3Row("r", 10.0, 3.0, 7.6e6, 300, 2500, 12.5, process_s=25.0)
    pair = side_by_side(ours, [theirs])
    assert pair["speed_ratio"] == pytest.approx(100.0)
    assert pair["goodput_bps_diff"] == pytest.approx(-0.05)
    assert pair["drops_pkts_diff"] == pytest.approx(0.5)
    assert (pair["aqmlab_drop_rate"], pair["ns3_drop_rate"]) == (0.1, 0.12)
    assert pair["drop_rate_diff"] == pytest.approx(0.2)
    assert pair["mean_queue_pkts_diff"] == pytest.approx(0.25)


TINY = {
    "name": "tiny-red",
    "duration": "2s",
    "topology": {"servers": 2, "clients": 2, "bottleneck": {"rate": "1Mbps", "delay": "10ms"},
                 "access": {"rate": "10Mbps"}},
    "queue": {"kind": "red", "profile": "ns2-2003", "limit": "20p"},
    "tcp": {"profile": "ns2-2003", "variant": "newreno", "mss": "1000B"},
    "traffic": [{"kind": "ftp", "flows": 2, "from": "servers", "size": "unlimited"}],
}  # fmt: skip


@pytest.mark.skipif(not available(), reason="ns-3 is not installed (pip install 'aqmlab[ns3]')")
def test_a_tiny_dumbbell_runs_in_ns3() -> None:
    dumbbell = ns3_dumbbell(TINY)
    row = run_in_child(dumbbell)
    assert row.name == "tiny-red" and row.simulated_s == 2.0
    assert row.process_s is not None and row.process_s > row.run_s > 0
    # Two bulk flows saturate 1 Mb/s after slow start: goodput is below the link's payload rate
    # (1000 of every 1042 bytes on the wire) and well above half of it.
    assert 0.5e6 < row.goodput_bps < 1e6 * 1000 / 1042
    assert 0 <= row.drops_pkts <= row.arrivals_pkts
    assert row.arrivals_pkts * 1042 * 8 > row.goodput_bps * 2.0  # the data went through the queue
    assert 0 < row.mean_queue_pkts <= 20 + 1  # the queue disc and the device's one-packet queue


PPP = {"overhead": "2B", "min_payload": "0B"}


def _udp(queue: dict, duration: str = "10s", **cbr: object) -> dict:
    """One constant-rate UDP flow at 120% of a 10 Mb/s bottleneck; PPP framing as ns-3's wires."""
    return {"name": f"udp-{queue['kind']}", "duration": duration,
            "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms", "framing": PPP},
                         "access": {"rate": "100Mbps", "framing": PPP}},
            "queue": queue,
            "traffic": [{"kind": "cbr", "rate": "12Mbps", "size": "1000B", **cbr}]}  # fmt: skip


def test_a_constant_rate_udp_flow_maps_to_an_onoff_source() -> None:
    scenario = _udp({"kind": "codel"}, start="1s", stop="8s", flows=3)
    scenario["topology"] |= {"servers": 2, "clients": 3}
    scenario["traffic"][0] |= {"server": 1}
    dumbbell = ns3_dumbbell(scenario)
    assert dumbbell.flows == () and dumbbell.defaults == {} and len(dumbbell.cbr) == 3
    # Flow k from server (1 + k) mod 2 to client k mod 3, as aqmlab pins them.
    assert [(c.server, c.client) for c in dumbbell.cbr] == [(1, 0), (0, 1), (1, 2)]
    assert {(c.start_s, c.stop_s, c.rate_bps, c.size) for c in dumbbell.cbr} == {
        (1.0, 8.0, 12e6, 1000)
    }
    assert Ns3Dumbbell.from_json(dumbbell.to_json()) == dumbbell


def test_a_udp_flow_that_starts_after_its_stop_is_left_out() -> None:
    # Drawn starts in [2 s, 3 s] against a stop at 2.5 s: aqmlab's late flows send nothing.
    start = {"dist": "uniform", "min": "2s", "max": "3s"}
    dumbbell = ns3_dumbbell(_udp({"kind": "codel"}, start=start, stop="2.5s", flows=20))
    assert 0 < len(dumbbell.cbr) < 20
    assert all(c.start_s < c.stop_s == 2.5 for c in dumbbell.cbr)


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"jitter": True}, "traffic[0].jitter"),
        ({"size": {"dist": "uniform", "min": "100B", "max": "1000B"}}, "traffic[0].size"),
        ({"size": "28B"}, "traffic[0].size"),
    ],
)
def test_what_the_onoff_source_cannot_send_is_a_clear_error(change: dict, path: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        ns3_dumbbell(_udp({"kind": "codel"}, **change))
    assert caught.value.path == path


def test_only_ppp_framing_maps() -> None:
    scenario = _udp({"kind": "codel"})
    scenario["topology"]["bottleneck"]["framing"] = "ethernet"
    with pytest.raises(ScenarioError) as caught:
        ns3_dumbbell(scenario)
    assert caught.value.path == "topology.bottleneck.framing"


@pytest.mark.skipif(not available(), reason="ns-3 is not installed (pip install 'aqmlab[ns3]')")
@pytest.mark.parametrize("kind", ["codel", "fq_codel", "pie"])
def test_the_modern_aqms_agree_with_ns3_on_the_same_udp_overload(kind: str) -> None:
    """The queue alone, without the two TCP models: one constant-rate flow at 120% of the link.

    Measured on 2026-11-26 (docs/aqm-validation.md): drops within 0.3% and mean queues within
    5.4% over 20 and 100 s (ns-3's mean counts the device's one-packet queue as well). The bounds
    leave room for the 10-s run; an AQM whose control law or drop rule moved would leave them.
    """
    scenario = _udp({"kind": kind})
    pair = side_by_side(bench_one(scenario["name"], scenario),
                        [run_in_child(ns3_dumbbell(scenario))])
    assert pair["aqmlab_goodput_bps"] is None and pair["ns3_goodput_bps"] is None  # no TCP
    assert abs(pair["drops_pkts_diff"]) < 0.02, pair
    assert abs(pair["mean_queue_pkts_diff"]) < 0.10, pair
