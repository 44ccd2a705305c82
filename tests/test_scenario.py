"""Loading, overriding, resolving and hashing scenarios."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import aqmlab
import pytest
from aqmlab.scenario import parse_override
from conftest import BASE, ROOT, base


def test_load_scenario_returns_the_file_as_written(scenario_file: Path) -> None:
    assert aqmlab.load_scenario(scenario_file) == BASE
    assert aqmlab.load_scenario(str(scenario_file)) == BASE


def test_load_scenario_validates(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('duration = "3s"\n[topology]\nbottleneck = { rate = "fast" }\n')
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.load_scenario(path)
    assert info.value.path == "topology.bottleneck.rate"
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith("topology.bottleneck.rate: ")


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('duration = "3s"\nseed = = 1\n')
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.load_scenario(path)
    assert info.value.path == str(path)
    assert "line 2" in info.value.message


def test_resolve_fills_defaults_and_is_idempotent() -> None:
    resolved = aqmlab.resolve(base())
    assert resolved["topology"]["bottleneck"]["rate"] == "10Mbps"
    assert "measure" in resolved and "reverse_queue" in resolved
    assert aqmlab.resolve(resolved) == resolved


@pytest.mark.parametrize(
    ("text", "path", "value"),
    [
        ("seed=7", ["seed"], 7),
        ("traffic[0].rate=2Mbps", ["traffic", 0, "rate"], "2Mbps"),
        ("traffic[0].shape=1.5", ["traffic", 0, "shape"], 1.5),
        ("traffic[0].jitter=true", ["traffic", 0, "jitter"], True),
        ('name="with spaces"', ["name"], "with spaces"),
        ("name=a b", ["name"], "a b"),
        ("topology.pair_delay=[1, 2]", ["topology", "pair_delay"], [1, 2]),
        ("topology.access={rate = '1Gbps'}", ["topology", "access"], {"rate": "1Gbps"}),
        ("topology.pair_delay[1]=5ms", ["topology", "pair_delay", 1], "5ms"),
        ("duration=2024-01-01", ["duration"], "2024-01-01"),
        ("queue.limit=", ["queue", "limit"], ""),
        ("a.b=x=y", ["a", "b"], "x=y"),
    ],
)
def test_parse_override(text: str, path: list[str | int], value: object) -> None:
    assert parse_override(text) == (path, value)


def test_apply_overrides_sets_values_without_touching_the_input() -> None:
    scenario = base()
    out = aqmlab.apply_overrides(
        scenario, ["traffic[0].rate=3Mbps", "seed=9", "topology.access.rate=1Gbps"]
    )
    assert out["traffic"][0]["rate"] == "3Mbps"
    assert out["seed"] == 9
    assert out["topology"]["access"] == {"rate": "1Gbps"}
    assert scenario == BASE


def test_apply_overrides_in_order_last_wins() -> None:
    out = aqmlab.apply_overrides(base(), ["seed=2", "seed=3"])
    assert out["seed"] == 3


def test_override_of_list_entry() -> None:
    scenario = base()
    scenario["topology"]["pair_delay"] = ["1ms", "2ms", "3ms", "4ms"]
    out = aqmlab.apply_overrides(scenario, ["topology.pair_delay[2]=9ms"])
    assert out["topology"]["pair_delay"] == ["1ms", "2ms", "9ms", "4ms"]


@pytest.mark.parametrize(
    ("override", "path"),
    [
        ("traffic[1].rate=1Mbps", "traffic[1]"),
        ("reverse_traffic[0].rate=1Mbps", "reverse_traffic[0]"),
        ("queue[0]=1", "queue"),
        ("duration.x=1", "duration"),
        ("nonsense", "--set"),
        ("=3", "--set"),
        ("a.[0]=3", "--set"),
    ],
)
def test_bad_overrides_name_the_path(override: str, path: str) -> None:
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.apply_overrides(base(), [override])
    assert info.value.path == path


def test_unknown_override_key_is_named_by_the_engine() -> None:
    scenario = aqmlab.apply_overrides(base(), ["queue.colour=red"])
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.resolve(scenario)
    assert info.value.path == "queue.colour"


def _canonical_hash(resolved: dict) -> str:
    config = {k: v for k, v in resolved.items() if k != "seed"}
    text = json.dumps(config, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def test_hash_ignores_seed_but_not_parameters() -> None:
    one = aqmlab.resolve(base())
    other_seed = aqmlab.resolve(aqmlab.apply_overrides(base(), ["seed=99"]))
    other_rate = aqmlab.resolve(aqmlab.apply_overrides(base(), ["traffic[0].rate=2Mbps"]))
    assert aqmlab.scenario_hash(one) == aqmlab.scenario_hash(other_seed) == _canonical_hash(one)
    assert aqmlab.scenario_hash(one) != aqmlab.scenario_hash(other_rate)


def test_hash_of_defaults_written_out_equals_hash_of_defaults_left_out() -> None:
    explicit = base()
    explicit["queue"] = {"kind": "droptail", "limit": "20p"}
    explicit["topology"]["kind"] = "dumbbell"
    assert aqmlab.scenario_hash(aqmlab.resolve(explicit)) == aqmlab.scenario_hash(
        aqmlab.resolve(base())
    )


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.toml")), ids=lambda p: p.name)
def test_example_scenarios_are_valid(path: Path) -> None:
    scenario = aqmlab.load_scenario(path)
    assert scenario["name"] == path.stem
    assert aqmlab.resolve(scenario)["name"] == path.stem


def test_examples_exist() -> None:
    names = {p.name for p in (ROOT / "scenarios").glob("*.toml")}
    assert {"udp-poisson.toml", "cbr-overload.toml", "pareto-mix.toml"} <= names
