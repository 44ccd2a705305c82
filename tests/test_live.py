"""Live mode: the kernel's TCP through aqmlab's own bottleneck (docs/live.md).

The first tests need nothing special: how a scenario maps onto the kernel, and what is refused.
The others make network namespaces and TUN devices, which needs root (CI runs as root). They are
skipped only where namespaces cannot be made here: not root, no ``ip`` (iproute2), no
``/dev/net/tun`` — the skip names which.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from aqmlab import run
from aqmlab.errors import InputError
from aqmlab.live import live_plan, run_live
from aqmlab.live.kernel import kernel_tcp
from aqmlab.live.lab import ours
from aqmlab.scenario import resolve
from conftest import interruptible, needs_namespaces


def bulk(flows: int = 4, duration: str = "12s", **queue: Any) -> dict[str, Any]:
    """Bulk CUBIC downloads over a 10 Mbps, 40 ms dumbbell (the linux profile)."""
    return {
        "name": "live-test", "seed": 1, "duration": duration, "warmup": "3s",
        "topology": {"servers": flows, "clients": flows,
                     "bottleneck": {"rate": "10Mbps", "delay": "10ms"},
                     "access": {"rate": "1Gbps", "delay": "5ms"}},
        "queue": queue or {"kind": "droptail", "limit": "100p"},
        "tcp": {"profile": "linux"},
        "traffic": [{"name": "bulk", "kind": "ftp", "flows": flows, "from": "servers",
                     "start": {"dist": "uniform", "min": "0s", "max": "1s"}}],
    }  # fmt: skip


# ----- the mapping onto the kernel (no namespaces) -----


def test_the_plan_starts_each_flow_when_and_where_a_simulated_run_does() -> None:
    scenario = bulk(flows=6)
    scenario["topology"].update(servers=2, clients=3)
    plan = live_plan(resolve(scenario), seed=7)
    sim = run(scenario, seed=7).connections.sort_values("conn")
    assert [f["start_s"] for f in plan["flows"]] == pytest.approx(list(sim["start_s"]), abs=1e-9)
    assert [f"s{f['server']}" for f in plan["flows"]] == list(sim["server"])
    assert [f"c{f['client']}" for f in plan["flows"]] == list(sim["client"])
    assert plan["flows"][4]["server_addr"] == "10.1.0.1"
    assert plan["flows"][4]["client_addr"] == "10.2.0.2"


def web(users: int, duration: str = "30s") -> dict[str, Any]:
    """Mah's web users over the same dumbbell, two servers and three clients."""
    scenario = bulk(duration=duration)
    scenario["topology"].update(servers=2, clients=3)
    scenario["traffic"] = [{"name": "web", "kind": "web-mah", "users": users}]
    return scenario


def test_a_web_users_script_is_the_pages_a_simulated_run_fetches() -> None:
    scenario = web(users=40)
    scenario["warmup"] = "0s"
    plan = live_plan(resolve(scenario), seed=3)
    requests = run(scenario, seed=3).table("requests")
    assert len(requests) > 20
    for r in requests.itertuples():
        page = plan["users"][r.user]["pages"][r.page - 1]
        assert page["objects"][r.object] == [r.request_bytes, r.reply_bytes]
        assert f"s{page['server']}" == r.server


@pytest.mark.parametrize("source", [
    {"kind": "cbr", "rate": "1Mbps", "size": "1000B", "jitter": True},
    {"kind": "poisson", "rate": "1Mbps",
     "size": {"dist": "uniform", "min": "100B", "max": "1400B"}},
    {"kind": "pareto", "rate": "2Mbps", "size": "500B", "stop": "15s"},
])  # fmt: skip
def test_a_udp_flows_script_is_what_a_simulated_run_sends(source: dict[str, Any]) -> None:
    scenario = bulk(duration="20s")
    scenario["traffic"] = [{"name": "udp", "flows": 2, **source}]
    scenario["warmup"] = "0s"
    plan = live_plan(resolve(scenario), seed=5)
    sent = run(scenario, seed=5).flows.sort_values("flow")
    for f, (_, row) in zip(plan["flows"], sent.iterrows(), strict=True):
        assert len(f["departures"]) == row["sent_pkts"]
        assert sum(size for _, size in f["departures"]) == row["sent_bytes"]


def test_the_kernel_takes_the_linux_profile_as_the_simulator_reads_it() -> None:
    plan = live_plan(resolve(bulk()), seed=1)
    assert plan["sysctls"] == {"net.ipv4.tcp_sack": 1, "net.ipv4.tcp_ecn": 0,
                               "net.ipv4.tcp_timestamps": 1, "net.ipv4.tcp_recovery": 1,
                               "net.ipv4.tcp_early_retrans": 3}  # fmt: skip
    # 1448 B of data and the 12 B timestamp option: the kernel's advertised MSS is 1460.
    assert plan["route"] == {"initcwnd": 10, "initrwnd": 10, "rto_min": "200ms", "advmss": 1460}
    assert plan["flows"][0]["kernel"]["congestion_control"] == "cubic"


def test_duplicate_ack_loss_detection_turns_the_kernels_rack_tlp_off() -> None:
    scenario = bulk()
    scenario["tcp"]["loss_detection"] = "dupack"
    sysctls = live_plan(resolve(scenario), seed=1)["sysctls"]
    assert (sysctls["net.ipv4.tcp_recovery"], sysctls["net.ipv4.tcp_early_retrans"]) == (0, 0)


@pytest.mark.parametrize(("change", "key"), [
    ({"variant": "reno"}, "traffic[0].tcp.variant"),
    ({"congestion_control": "reno", "mss": "1500B"}, "traffic[0].tcp.mss"),
])  # fmt: skip
def test_a_setting_the_kernel_cannot_take_is_refused_by_key(
    change: dict[str, str], key: str
) -> None:
    scenario = bulk()
    scenario["traffic"][0]["tcp"] = change
    with pytest.raises(InputError) as err:
        live_plan(resolve(scenario), seed=1)
    assert err.value.path == key


def test_a_congestion_control_the_kernel_lacks_is_refused() -> None:
    tcp = {"variant": "sack", "congestion_control": "cubic", "ecn": False, "mss": "1460B",
           "initial_window": 4, "min_rto": "200ms", "rwnd": "1MB"}  # fmt: skip
    with pytest.raises(InputError, match='offers bbr, reno, not "cubic"'):
        kernel_tcp(tcp, "tcp", {"reno", "bbr"})


def test_groups_that_need_different_routes_are_refused() -> None:
    scenario = bulk()
    scenario["traffic"].append({**scenario["traffic"][0], "name": "other",
                                "tcp": {"initial_window": 4}})  # fmt: skip
    with pytest.raises(InputError) as err:
        live_plan(resolve(scenario), seed=1)
    assert err.value.path == "traffic[1].tcp.initial_window"


def test_traffic_live_mode_does_not_run_is_refused_by_key() -> None:
    scenario = bulk()
    scenario["traffic"] = [{"kind": "telnet", "flows": 5}]
    with pytest.raises(InputError) as err:
        live_plan(resolve(scenario), seed=1)
    assert err.value.path == "traffic[0].kind"


def test_without_the_capabilities_live_says_so_in_one_line_and_exits_2(tmp_path: Path) -> None:
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux) to drop the capabilities")
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(bulk()), encoding="utf-8")
    # The same user, without any capability: as an unprivileged user would run it.
    done = subprocess.run(
        ["setpriv", "--bounding-set=-all", "--inh-caps=-all",
         sys.executable, "-m", "aqmlab", "live", str(scenario), "--out", str(tmp_path / "o")],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: live: needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) to make network namespaces"
    ]
    assert not (tmp_path / "o").exists()


# ----- live runs (namespaces) -----


@needs_namespaces
def test_a_live_run_measures_the_bottleneck_as_a_simulated_run_does() -> None:
    live = run_live(bulk(), seed=1)
    forward = live.summary["forward"]
    assert live.summary["checks"] == {"counter_identities": True, "violations": []}
    # Four CUBIC flows overfill a 100-packet drop-tail queue: the link is saturated and drops.
    assert forward["utilization"] > 0.95
    assert forward["drops_pkts"] > 0
    assert forward["drops_pkts_by_reason"]["overflow"] == forward["drops_pkts"]
    conns = live.connections
    assert list(conns["outcome"]) == ["open"] * 4
    assert 0.85e7 < conns["goodput_bps"].sum() <= 1e7
    assert len(live.table("queue")) > 0 and len(live.table("link")) > 0
    assert live.summary["live"]["counts"]["foreign_pkts"] == 0
    # Both saturate the link; what each delivers agrees within a tenth.
    simulated = run(bulk(), seed=1)
    assert conns["goodput_bps"].sum() == pytest.approx(
        simulated.connections["goodput_bps"].sum(), rel=0.1
    )
    assert ours() == []


@needs_namespaces
def test_red_marks_ecn_capable_packets_and_the_kernel_reads_the_marks() -> None:
    scenario = bulk(duration="10s", kind="red", limit="200p", min_th=10, max_th=30,
                    max_p=0.1, ecn=True)  # fmt: skip
    scenario["tcp"]["ecn"] = True
    live = run_live(scenario, seed=1)
    forward = live.summary["forward"]
    assert forward["marks_pkts"] > 0
    # A mark with a broken header checksum would be dropped by the receiver: goodput would fall.
    assert live.connections["goodput_bps"].sum() > 0.85e7
    assert live.summary["live"]["sysctls"]["net.ipv4.tcp_ecn"] == 1


@needs_namespaces
def test_a_live_trace_holds_the_packets_the_link_carried() -> None:
    scenario = bulk(duration="6s")
    scenario["capture"] = {"links": ["forward"], "snaplen": 96}
    live = run_live(scenario, seed=1)
    trace = live.captures["forward"].read_bytes()
    assert int.from_bytes(trace[:4], "little") == 0xA1B23C4D  # nanosecond pcap
    records, at, lengths = 0, 24, []
    while at < len(trace):
        caplen, length = (int.from_bytes(trace[at + o:at + o + 4], "little") for o in (8, 12))
        frame = trace[at + 16:at + 16 + caplen]
        assert frame[12:14] == b"\x08\x00" and frame[14] == 0x45  # Ethernet, then IPv4
        lengths.append(length - 14)
        records, at = records + 1, at + 16 + caplen
    # Every transmission started on the link, the warm-up's included: departures plus the one
    # on the wire at the end, at most.
    counters = live.summary["forward"]
    assert records >= counters["departures_pkts"]
    assert max(lengths) == 1500


def test_a_link_faster_than_the_router_keeps_is_refused_unless_allowed() -> None:
    scenario = bulk()
    scenario["topology"]["bottleneck"]["rate"] = "1Gbps"
    with pytest.raises(InputError) as err:
        run_live(scenario, seed=1)
    assert err.value.path == "topology.bottleneck.rate"
    assert "--max-rate" in err.value.message


def test_live_traces_only_the_bottleneck() -> None:
    scenario = bulk()
    scenario["capture"] = {"links": ["forward", "s0.up"]}
    with pytest.raises(InputError) as err:
        run_live(scenario, seed=1)
    assert err.value.path == "capture.links"


@needs_namespaces
def test_pareto_on_off_sends_its_script() -> None:
    scenario = bulk(duration="8s")
    scenario["traffic"] = [{"name": "onoff", "kind": "pareto", "rate": "4Mbps", "size": "1000B"}]
    live = run_live(scenario, seed=2)
    script = live_plan(resolve(scenario), seed=2)["flows"][0]["departures"]
    sent = int(live.flows["sent_bytes"].iloc[0])
    # Every packet of the script, but those due in the last moment before the run's end, which
    # a sender woken a little late finds past the end (the simulated run sends them all).
    due_by_then = sum(size for t, size in script if t < 8.0 - 0.05)
    assert due_by_then <= sent <= sum(size for _, size in script)


@needs_namespaces
def test_udp_cbr_is_carried_at_its_rate() -> None:
    scenario = bulk(duration="8s")
    scenario["traffic"] = [{"name": "cbr", "kind": "cbr", "rate": "2Mbps", "size": "1000B"}]
    live = run_live(scenario, seed=1)
    flows = live.flows
    assert flows["throughput_bps"].iloc[0] == pytest.approx(2e6, rel=0.05)
    assert live.summary["forward"]["drops_pkts"] == 0


@needs_namespaces
def test_web_users_fetch_their_pages_and_time_the_responses() -> None:
    live = run_live(web(users=300, duration="15s"), seed=1)
    requests = live.table("requests")
    done = requests[requests["completed"]]
    assert len(done) > 20 and not requests["failed"].any()
    assert (requests["start_s"] >= 3.0).all()  # started in the measured period only
    # A response takes at least the 40 ms round trip of its connection's handshake and request.
    assert done["response_s"].min() > 0.04
    assert live.summary["requests"]["completed"] == len(done)
    # The summary's quantiles are the simulator's: the ⌈q·n⌉-th smallest response time.
    times = sorted(done["response_s"])
    assert live.summary["requests"]["median_s"] == pytest.approx(times[(len(times) + 1) // 2 - 1])


@needs_namespaces
def test_ctrl_c_stops_a_live_run_promptly_and_leaves_nothing_behind(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(bulk(duration="60s")), encoding="utf-8")
    p = subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "live", str(scenario), "--out", str(tmp_path / "o")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    prefix = f"aqmlab-{p.pid}-"
    while time.monotonic() < deadline and not any(
        n.startswith(prefix) for n in os.listdir("/run/netns")
    ):
        time.sleep(0.1)
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    asked = time.monotonic()
    _, err = p.communicate(timeout=20)
    assert time.monotonic() - asked < 5
    assert p.returncode == 130, err
    assert err.strip().splitlines()[-1] == "error: interrupted"
    assert not any(n.startswith(prefix) for n in os.listdir("/run/netns"))
    # Its endpoints' plan lives in a folder named after the run's process.
    left = subprocess.run(["pgrep", "-f", f"aqmlab-live-{p.pid}-"], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert left.stdout.strip() == ""
