"""Link framing from Python: resolved to numbers, bad values named, wire utilization reported."""

from __future__ import annotations

import aqmlab
import pytest
from conftest import base


def test_ethernet_resolves_to_its_numbers_and_none_is_the_default() -> None:
    scenario = base()
    scenario["topology"]["bottleneck"]["framing"] = "ethernet"
    topology = aqmlab.resolve(scenario)["topology"]
    assert topology["bottleneck"]["framing"] == {"overhead": "38B", "min_payload": "46B"}
    assert topology["access"]["framing"] == "none"


@pytest.mark.parametrize(
    ("link", "framing", "path"),
    [
        ("bottleneck", "token-ring", "topology.bottleneck.framing"),
        ("access", {"overhead": "38"}, "topology.access.framing.overhead"),
        ("access", {"overhead": "38B", "padding": "46B"}, "topology.access.framing.padding"),
    ],
)
def test_a_bad_framing_names_its_key(link: str, framing: object, path: str) -> None:
    scenario = base()
    scenario["topology"].setdefault(link, {})["framing"] = framing
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.resolve(scenario)
    assert info.value.path == path


def test_framing_lowers_ip_utilization_not_the_wire_one() -> None:
    # 15 Mbit/s of 1000 B packets into 10 Mbit/s Ethernet: 10e6 · 1000/1038 bit/s of IP.
    scenario = base()
    scenario["duration"], scenario["warmup"] = "6s", "1s"
    scenario["topology"]["bottleneck"]["framing"] = "ethernet"
    scenario["traffic"] = [{"kind": "cbr", "rate": "15Mbps", "size": "1000B"}]
    bottleneck = aqmlab.run(scenario).summary["forward"]
    assert bottleneck["utilization"] == pytest.approx(1000 / 1038, rel=1e-3)
    assert bottleneck["wire_utilization"] == pytest.approx(1.0, rel=1e-3)
