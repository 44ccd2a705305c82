"""Running: the Result object, run directories, determinism."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aqmlab
import pandas as pd
import pyarrow.parquet as pq
import pytest
from aqmlab.scenario import to_toml
from conftest import base

TABLES = ("queue", "link", "flows")
DIRECTION_KEYS = {
    "rate_bps",
    "throughput_bps",
    "utilization",
    "wire_utilization",
    "arrivals_pkts",
    "departures_pkts",
    "drops_pkts",
    "drops_pkts_by_reason",
    "marks_pkts",
    "marks_pkts_by_reason",
    "drop_rate",
    "mean_queue_pkts",
    "mean_queue_bytes",
    "mean_queue_delay_s",
}


@pytest.fixture(scope="module")
def result() -> aqmlab.Result:
    return aqmlab.run(base())


def test_summary_has_the_documented_keys(result: aqmlab.Result) -> None:
    meta = result.summary["meta"]
    for key in ("version", "seed", "scenario", "scenario_hash", "wall_s", "events"):
        assert key in meta
    assert list(meta).index("scenario_hash") == list(meta).index("scenario") + 1
    assert meta["version"] == aqmlab.__version__
    assert meta["events"] > 0 and meta["wall_s"] > 0
    assert DIRECTION_KEYS <= set(result.summary["forward"])
    assert DIRECTION_KEYS <= set(result.summary["reverse"])
    assert result.summary["checks"]["counter_identities"] is True


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_out_of_range_seed_is_a_scenario_error(seed: int) -> None:
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(base(), seed=seed)
    assert info.value.path == "seed"


def test_summary_carries_the_resolved_scenario_and_its_hash(result: aqmlab.Result) -> None:
    resolved = aqmlab.resolve(base())
    assert result.meta["scenario"] == resolved
    assert result.scenario_hash == aqmlab.scenario_hash(resolved)


def test_tables_are_dataframes(result: aqmlab.Result) -> None:
    assert set(TABLES) <= set(result.tables)
    for name in TABLES:
        frame = getattr(result, name)
        assert isinstance(frame, pd.DataFrame)
        assert frame is result.tables[name]
        assert len(frame) > 0
    assert {"flow", "group", "index", "sent_pkts", "sent_bytes"} <= set(result.flows.columns)
    assert {"t_s", "direction", "mean_pkts"} <= set(result.queue.columns)
    assert {"t_s", "direction", "throughput_bps"} <= set(result.link.columns)
    with pytest.raises(KeyError, match="no table 'nope'"):
        result.table("nope")


def test_flow_counts_add_up(result: aqmlab.Result) -> None:
    flows = result.flows
    assert len(flows) == 4
    assert (flows["sent_bytes"] == flows["sent_pkts"] * 1000).all()
    assert (flows["recv_pkts"] <= flows["sent_pkts"]).all()
    # 4 Poisson flows of 2.5 Mbps, 1000 B packets, measured over 2.5 s: ~3125 packets in all
    assert 2700 < flows["sent_pkts"].sum() < 3550


def test_hops_give_each_flows_and_connections_drops_along_its_path(tmp_path: Path) -> None:
    """The ``hops`` table as a user reads it, straight from a run and from its run directory:
    a scripted drop of the connection's 5th data segment at the bottleneck shows on the
    ``forward`` row of its data path, and every flow's and connection's rows add up to its
    ``dropped_pkts``."""
    scenario = {
        "duration": "2s",
        "warmup": "0s",
        "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
        "queue": {"kind": "scripted", "limit": "15p", "drops": [{"group": "f", "segment": 5}]},
        "traffic": [
            {"kind": "ftp", "name": "f"},
            {"kind": "poisson", "name": "u", "rate": "6Mbps", "size": "1000B"},
        ],
    }
    result = aqmlab.run(scenario, seed=2)
    for hops in (result.hops, aqmlab.load(result.save(tmp_path / "run")).hops):
        tcp, udp = hops[hops["conn"] >= 0], hops[hops["flow"] >= 0]
        assert len(tcp) + len(udp) == len(hops)
        assert (tcp["flow"] == -1).all() and (udp["conn"] == -1).all()
        assert (udp["path"] == "data").all()
        data = tcp[tcp["path"] == "data"]
        assert list(data["link"]) == ["s0.up", "forward", "c0.down"]
        assert list(tcp[tcp["path"] == "ack"]["link"]) == ["c0.up", "reverse", "s0.down"]
        by_conn = tcp.groupby("conn")["drops_pkts"].sum()
        dropped = result.connections.set_index("conn")["dropped_pkts"]
        assert by_conn.to_dict() == dropped.to_dict()
        by_flow = udp.groupby("flow")["drops_pkts"].sum()
        assert by_flow.to_dict() == result.flows.set_index("flow")["dropped_pkts"].to_dict()
        # The overloaded bottleneck drops UDP too, on top of the scripted drop.
        forward = hops[hops["link"] == "forward"]["drops_pkts"].sum()
        assert forward == result.summary["forward"]["drops_pkts"]
        assert data.set_index("link")["drops_pkts"]["forward"] >= 1
        assert by_flow.sum() > 0


def test_cbr_rate_is_exact() -> None:
    scenario = base()
    scenario["traffic"] = [{"name": "c", "kind": "cbr", "rate": "1Mbps", "flows": 2}]
    flows = aqmlab.run(scenario).flows
    # 1 Mbps of 1000 B packets: one every 8 ms, 2.5 s measured
    assert flows["sent_pkts"].tolist() == pytest.approx([312.5, 312.5], abs=1)
    assert flows["loss_rate"].tolist() == [0.0, 0.0]


def test_seed_argument_overrides_scenario_seed() -> None:
    run = aqmlab.run(base(), seed=42)
    assert run.seed == 42
    assert run.summary["meta"]["seed"] == 42


def test_progress_callback_gets_fractions() -> None:
    seen: list[float] = []
    aqmlab.run(base(), progress=seen.append)
    assert seen, "the engine should report progress at least once"
    assert all(0.0 <= f <= 1.0 for f in seen)
    assert seen == sorted(seen)


def test_run_accepts_a_path(scenario_file: Path) -> None:
    from_file = aqmlab.run(scenario_file)
    from_dict = aqmlab.run(base())
    assert from_file.flows.equals(from_dict.flows)


def test_run_rejects_a_bad_scenario() -> None:
    scenario = base()
    scenario["traffic"][0]["rate"] = "lots"
    with pytest.raises(aqmlab.ScenarioError) as info:
        aqmlab.run(scenario)
    assert info.value.path == "traffic[0].rate"


def _summary_without_wall(path: Path) -> dict[str, Any]:
    summary = json.loads((path / "summary.json").read_text())
    del summary["meta"]["wall_s"]
    return summary


def test_run_directory_contents(tmp_path: Path, result: aqmlab.Result) -> None:
    out = result.save(tmp_path / "run")
    text = (out / "summary.json").read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "meta": {')
    assert json.loads(text) == result.summary
    for name in TABLES:
        table = pq.read_table(out / f"{name}.parquet")
        metadata = table.schema.metadata
        assert metadata[b"aqmlab.scenario_hash"].decode() == result.scenario_hash
        assert metadata[b"aqmlab.seed"].decode() == str(result.seed)
        assert metadata[b"aqmlab.version"].decode() == aqmlab.__version__
        pd.testing.assert_frame_equal(table.to_pandas(), getattr(result, name))


def test_same_seed_gives_identical_files(tmp_path: Path) -> None:
    first = aqmlab.run(base(), seed=3).save(tmp_path / "a")
    second = aqmlab.run(base(), seed=3).save(tmp_path / "b")
    assert _summary_without_wall(first) == _summary_without_wall(second)
    summary_a = (first / "summary.json").read_text().splitlines()
    summary_b = (second / "summary.json").read_text().splitlines()
    differing = [a for a, b in zip(summary_a, summary_b, strict=True) if a != b]
    assert all('"wall_s"' in line for line in differing)
    for name in TABLES:
        assert (first / f"{name}.parquet").read_bytes() == (second / f"{name}.parquet").read_bytes()


def test_a_run_read_back_and_saved_again_gives_the_same_files(tmp_path: Path) -> None:
    """The engine writes the Parquet files both from its own columns and from Arrow tables read
    back from a run directory: one writer, the same bytes."""
    first = aqmlab.run(base(), seed=3).save(tmp_path / "a")
    again = aqmlab.load(first).save(tmp_path / "b")
    for name in TABLES:
        assert (first / f"{name}.parquet").read_bytes() == (again / f"{name}.parquet").read_bytes()


def test_another_seed_gives_other_results() -> None:
    one = aqmlab.run(base(), seed=1)
    two = aqmlab.run(base(), seed=2)
    assert one.scenario_hash == two.scenario_hash
    assert not one.flows["sent_pkts"].equals(two.flows["sent_pkts"])
    assert one.summary["forward"] != two.summary["forward"]


def test_adding_a_group_leaves_other_flows_draws_alone() -> None:
    alone = aqmlab.run(base()).flows
    scenario = base()
    scenario["traffic"].insert(
        0, {"name": "extra", "kind": "poisson", "flows": 3, "rate": "500kbps", "from": "clients"}
    )
    scenario["traffic"].append({"name": "more", "kind": "pareto", "flows": 2, "rate": "1Mbps"})
    together = aqmlab.run(scenario).flows
    web = together[together["group"] == "web"].reset_index(drop=True)
    columns = ["index", "sent_pkts", "sent_bytes"]
    assert len(web) == len(alone)
    pd.testing.assert_frame_equal(web[columns], alone[columns], check_dtype=False)
    # the extra groups really do send (otherwise the test proves nothing)
    assert together[together["group"] == "extra"]["sent_pkts"].min() > 0


# ----- aqmlab run's options as keywords of aqmlab.run -----


def test_set_takes_the_command_lines_texts_as_well_as_a_dict() -> None:
    texts = aqmlab.run(base(), set=["traffic[web].rate=1Mbps", "queue.limit=5p"])
    values = aqmlab.run(base(), set={"traffic[web].rate": "1Mbps", "queue.limit": "5p"})
    assert texts.summary["meta"]["scenario"] == values.summary["meta"]["scenario"]
    assert texts.summary["meta"]["scenario"]["queue"]["limit"] == "5p"
    assert texts.flows.equals(values.flows)


def test_out_writes_the_run_directory_the_command_writes(tmp_path: Path) -> None:
    from conftest import cli

    (tmp_path / "s.toml").write_text(to_toml(base()), encoding="utf-8")
    proc = cli("run", "s.toml", "--seed", "4", "--set", "queue.limit=8p", "--tables", "flows",
               "--capture", "forward", "--out", "cli", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    result = aqmlab.run(tmp_path / "s.toml", seed=4, set=["queue.limit=8p"], tables=["flows"],
                        capture=["forward"], out=tmp_path / "py")  # fmt: skip
    assert result.table_names == ["flows"] and set(result.captures) == {"forward"}
    files = sorted(p.name for p in (tmp_path / "cli").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "py").iterdir())
    for name in ("flows.parquet", "forward.pcap"):
        assert (tmp_path / "cli" / name).read_bytes() == (tmp_path / "py" / name).read_bytes()


def test_out_is_checked_before_the_run_and_replaced_only_when_asked(tmp_path: Path) -> None:
    aqmlab.run(base(), out=tmp_path / "r")
    seen: list[float] = []
    with pytest.raises(aqmlab.StoreError, match="--force|replace"):
        aqmlab.run(base(), seed=2, out=tmp_path / "r", progress=seen.append)
    assert not seen, "refused before running"
    aqmlab.run(base(), seed=2, out=tmp_path / "r", replace=True)
    assert aqmlab.load(tmp_path / "r").seed == 2


def test_load_sets_the_web_users_from_a_calibration(tmp_path: Path) -> None:
    from aqmlab.calibrate import Calibration, CalibrationPoint

    cal = Calibration((CalibrationPoint(100, 1e6), CalibrationPoint(300, 3e6)))
    web = base()
    web["traffic"] = [{"name": "web", "kind": "web-mah", "users": 1}]
    web["duration"] = "1s"
    result = aqmlab.run(web, load=50, calibration=cal)
    assert result.summary["meta"]["scenario"]["traffic"][0]["users"] == 500
    (tmp_path / "calibration.json").write_text(json.dumps(cal.to_dict()), encoding="utf-8")
    again = aqmlab.run(web, load=50, calibration=tmp_path)
    assert again.summary["meta"]["scenario"] == result.summary["meta"]["scenario"]


@pytest.mark.parametrize(("kw", "expected"), [
    ({"load": 50}, "load: needs calibration"),
    ({"calibration": "."}, "calibration: is used only with load"),
    ({"load": 0, "calibration": "."}, "load: expected a finite number > 0"),
    ({"tables": ["queues"]}, "tables: no table 'queues'"),
    ({"set": "queue.limit=5p"}, "set: expected a dict or a list"),
    ({"capture": "forward"}, "capture: expected a list of link names"),
])  # fmt: skip
def test_bad_run_options_name_the_keyword(kw: dict[str, Any], expected: str) -> None:
    with pytest.raises(aqmlab.InputError, match=expected):
        aqmlab.run(base(), **kw)
