"""Flexible workloads end to end: distributions of sizes and times, empirical CDF files."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from conftest import BASE_TOML, base, invoke

SCENARIO = """\
duration = "4s"
warmup = "0s"
[topology]
servers = 2
clients = 2
bottleneck = { rate = "100Mbps", delay = "5ms" }
[queue]
kind = "droptail"
limit = "1000p"
[[traffic]]
name = "udp"
kind = "poisson"
flows = 2
rate = "4Mbps"
size = { dist = "exponential", mean = "500B" }
[[traffic]]
name = "web"
kind = "web-pool"
users = 2
page_mean = { dist = "empirical", file = "pages.cdf", interpolation = "linear" }
think_mean = { dist = "lognormal", mean = "20ms", sigma = 0.5 }
"""

# Pages of 1000 to 3000 bytes, uniformly (linear interpolation between the two rows).
PAGES = "# bytes cdf\n1000 0\n3000 1\n"


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    here = tmp_path_factory.mktemp("workloads")
    (here / "pages.cdf").write_text(PAGES)
    path = here / "scenario.toml"
    path.write_text(SCENARIO)
    return path


@pytest.fixture(scope="module")
def result(scenario_file: Path) -> aqmlab.Result:
    return aqmlab.run(scenario_file)


def test_drawn_packet_sizes_have_the_configured_mean(result: aqmlab.Result) -> None:
    flows = result.tables["flows"]
    pkts, sent = int(flows["sent_pkts"].sum()), int(flows["sent_bytes"].sum())
    # Exponential sizes, mean 500 B, rounded to whole bytes (at least 1): the mean of the rounded
    # draw is within a fraction of a byte; tolerance 5 standard errors (σ = mean).
    assert abs(sent / pkts - 500) < 5 * 500 / math.sqrt(pkts) + 0.5, (sent, pkts)
    # The rate is a mean: 2 flows × 4 Mb/s for 4 s, within 5 standard errors of the packet count.
    expected = 2 * 4e6 * 4 / (8 * 500)
    assert abs(pkts - expected) < 5 * math.sqrt(expected)


def test_empirical_file_is_read_and_embedded(result: aqmlab.Result, scenario_file: Path) -> None:
    replies = result.tables["requests"]["reply_bytes"]
    assert len(replies) > 100
    assert replies.between(1000, 3000).all()
    assert abs(replies.mean() - 2000) < 5 * (2000 / math.sqrt(12)) / math.sqrt(len(replies))
    page = result.meta["scenario"]["traffic"][1]["page_mean"]
    assert page == {
        "dist": "empirical",
        "file": "pages.cdf",
        "interpolation": "linear",
        "table": [[1000.0, 0.0], [3000.0, 1.0]],
    }
    # The resolved scenario re-runs without the file: same results.
    again = aqmlab.run(result.meta["scenario"])
    assert again.tables["requests"]["reply_bytes"].tolist() == replies.tolist()


def test_bare_values_resolve_as_before() -> None:
    resolved = aqmlab.resolve(base())
    assert resolved["traffic"][0]["size"] == "1000B"


def scenario_with(group: dict[str, Any]) -> dict[str, Any]:
    s = base()
    s["traffic"] = [group]
    return s


@pytest.mark.parametrize(
    ("field", "value", "path", "message"),
    [
        ("size", {"dist": "pareto", "shape": 0, "mean": "1KB"}, "size.shape", "> 0"),
        ("size", {"dist": "pareto", "shape": 0.9, "mean": "1KB"}, "size.shape", "shape > 1"),
        ("size", {"dist": "pareto", "shape": 0.9, "scale": "1KB"}, "size", "finite mean"),
        ("size", {"dist": "lognormal", "mean": "1KB"}, "size.sigma", "missing"),
        ("size", {"dist": "uniform", "min": "2KB", "max": "1KB"}, "size.min", "min ≤ max"),
        ("size", {"dist": "normal"}, "size.dist", "expected one of"),
        ("size", {"dist": "empirical", "table": "1 0.5\n2 0.4\n"}, "size.table", "row 2"),
        ("size", {"dist": "empirical", "table": [[1, 0.5]]}, "size.table", "probability 1"),
        ("size", {"dist": "empirical", "file": "no-such.cdf"}, "size.file", "no such file"),
        ("size", {"dist": "weibull", "shape": 2, "scale": "0B"}, "size.scale", ""),
    ],
)
def test_bad_distributions_name_the_field(field: str, value: Any, path: str, message: str) -> None:
    group = {"name": "u", "kind": "poisson", "rate": "1Mbps", field: value}
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.resolve(scenario_with(group))
    assert info.value.path == f"traffic[0].{path}", info.value
    assert message in str(info.value)


def test_session_think_times_and_telnet_gaps_take_distributions() -> None:
    default = aqmlab.resolve(scenario_with({"name": "w", "kind": "web-session"}))
    assert (default["traffic"][0]["think_min"], default["traffic"][0]["think_max"]) == ("1s", "3s")
    think = {"dist": "weibull", "shape": 1.5, "scale": "2s"}
    telnet_gap = {"dist": "lognormal", "mean": "1s", "sigma": 1.0}
    s = base()
    s["traffic"] = [
        {
            "name": "w",
            "kind": "web-session",
            "think": think,
            "size": {"dist": "exponential", "mean": "30KB"},
        },
        {"name": "t", "kind": "telnet", "interval": telnet_gap},
    ]
    resolved = aqmlab.resolve(s)
    assert resolved["traffic"][0]["think"] == think
    assert "think_min" not in resolved["traffic"][0]
    assert resolved["traffic"][1]["interval"] == telnet_gap
    result = aqmlab.run(s)
    assert (result.tables["connections"]["goodput_bps"] > 0).all()
    s["traffic"][0]["think_min"] = "1s"
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.resolve(s)
    assert info.value.path == "traffic[0].think"


MAH_AND_PARETO = """\
duration = "6s"
warmup = "0s"
[topology]
servers = 2
clients = 2
bottleneck = { rate = "10Mbps", delay = "10ms" }
[tcp]
handshake = "three-way"
[queue]
kind = "red"
tc = "limit 2bdp min 5ms max 15ms avpkt 1000 burst 10"
[[traffic]]
name = "browsers"
kind = "web-mah"
users = 6
objects = 1
stay = { dist = "uniform", min = 1, max = 3 }
request = "300B"
reply = { dist = "uniform", min = "1000B", max = "3000B" }
think = { dist = "exponential", mean = "200ms" }
[[traffic]]
name = "onoff"
kind = "pareto"
rate = "2Mbps"
size = "500B"
burst = { dist = "constant", value = "20ms" }
idle = { dist = "lognormal", mean = "100ms", sigma = 0.5 }
"""


def test_mah_tables_and_pareto_times_take_distributions(tmp_path: Path) -> None:
    web_mah = {"name": "w", "kind": "web-mah", "users": 1, "tcp": {"handshake": "three-way"}}
    default = aqmlab.resolve(scenario_with(web_mah))["traffic"][0]
    # Mah's tables are the defaults and are not written back; think_max conditions his table.
    assert default["think_max"] == "30min"
    assert not {"request", "reply", "objects", "think", "stay"} & default.keys()
    path = tmp_path / "s.toml"
    path.write_text(MAH_AND_PARETO)
    result = aqmlab.run(path)
    scenario = result.meta["scenario"]
    web, onoff = scenario["traffic"]
    assert "think_max" not in web  # an exponential think time is not truncated
    assert web["objects"] == 1 and web["request"] == "300B"
    assert onoff["burst"] == {"dist": "constant", "value": "20ms"} and onoff["shape"] == 1.5
    # The queue records the RTT its BDP meant: 2 × 10 ms; 2 BDP = 50 000 B = 34 packets of 1500 B.
    assert (scenario["queue"]["rtt"], scenario["queue"]["packet"]) == ("20ms", "1500B")
    assert scenario["queue"]["limit"] == "51KB"
    requests = result.tables["requests"]
    assert len(requests) > 20
    assert (requests["object"] == 0).all(), "one object per page"
    assert (requests["request_bytes"] == 300).all()
    assert requests["reply_bytes"].between(1000, 3000).all()
    # The resolved scenario runs again, from a file, bit for bit, and resolves to itself.
    assert aqmlab.resolve(scenario) == scenario
    resolved = tmp_path / "resolved.json"
    resolved.write_text(json.dumps(scenario))
    code, _, err = invoke(tmp_path, "run", str(resolved), "--out", "again")
    assert code == 0, err
    first = result.save(tmp_path / "first")
    for table in ("requests.parquet", "flows.parquet", "queue.parquet"):
        assert (first / table).read_bytes() == (tmp_path / "again" / table).read_bytes(), table


@pytest.mark.parametrize(
    ("group", "path", "message"),
    [
        ({"kind": "web-mah", "objects": -1}, "objects", "whole number"),
        ({"kind": "web-mah", "request": "-5B"}, "request", ""),
        ({"kind": "web-mah", "think": "10s", "think_max": "1min"}, "think_max", "empirical"),
        ({"kind": "web-mah", "think_max": "1s"}, "think_max", "smallest value, 1.005s"),
        ({"kind": "web-mah", "stay": {"dist": "weibull", "shape": 0}}, "stay.shape", "> 0"),
        ({"kind": "pareto", "burst": {"dist": "pareto", "shape": 0.5, "mean": "1s"}},
         "burst.shape", "shape > 1"),
        ({"kind": "pareto", "idle": "0s"}, "idle", "above zero"),
    ],
)  # fmt: skip
def test_bad_page_and_on_off_distributions_name_the_field(
    group: dict[str, Any], path: str, message: str
) -> None:
    extra = {"rate": "1Mbps"} if group["kind"] == "pareto" else {"users": 1}
    s = base()
    s["tcp"] = {"handshake": "three-way"}
    s["traffic"] = [{"name": "g", **extra, **group}]
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.resolve(s)
    assert info.value.path == f"traffic[0].{path}", info.value
    assert message in str(info.value)


def test_a_bdp_without_a_known_rtt_is_refused_with_exit_status_2(tmp_path: Path) -> None:
    text = BASE_TOML.replace(', delay = "5ms" }', " }").replace('limit = "20p"', 'limit = "2bdp"')
    (tmp_path / "s.toml").write_text(text)
    code, _, err = invoke(tmp_path, "validate", "s.toml")
    assert code == 2
    assert err.startswith('error: queue.limit: "2bdp" needs a round-trip time'), err
