"""Scenario warnings: recorded in the summary, printed by run, validate and sweep, never fatal.

Each warning's own cases are tested beside the reader (``scenario/warnings.rs``); here, that they
reach the user.
"""

from __future__ import annotations

from pathlib import Path

import aqmlab
from conftest import ROOT, base, cli

MARKING_QUEUE = {"kind": "bernoulli", "p": 0.01, "ecn": True, "limit": "20p"}
"""Marks ECN-capable packets, but the base scenario's traffic is UDP: ``ecn-one-sided``."""

ONE_SIDED = "warning: queue.ecn: [queue] marks with ECN, but no ECN-capable TCP sender's data"


def test_a_run_records_its_warnings_and_still_runs() -> None:
    scenario = {**base(), "queue": MARKING_QUEUE}
    result = aqmlab.run(scenario)
    assert [(w.code, w.path) for w in result.warnings] == [("ecn-one-sided", "queue.ecn")]
    assert result.summary["warnings"][0]["code"] == "ecn-one-sided"
    assert result.summary["forward"]["marks_pkts"] == 0
    assert aqmlab.scenario_warnings(scenario) == result.warnings
    assert aqmlab.run(base()).warnings == []


def test_run_and_validate_print_warnings(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('name = "w"\nduration = "2s"\n[topology]\nbottleneck = { rate = "10Mbps" }\n'
                    '[queue]\nkind = "bernoulli"\np = 0.01\necn = true\n')  # fmt: skip
    proc = cli("validate", path, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok\n")
    assert ONE_SIDED in proc.stderr
    assert proc.stderr.rstrip().endswith("[ecn-one-sided]")
    proc = cli("run", path, "--out", tmp_path / "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(ONE_SIDED) == 1


def test_a_sweep_prints_each_distinct_warning_once(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('name = "w"\nduration = "1s"\n[topology]\nbottleneck = { rate = "10Mbps" }\n'
                    '[queue]\nkind = "bernoulli"\np = 0.01\necn = true\n')  # fmt: skip
    proc = cli("sweep", path, "--vary", "queue.p=0.01,0.02", "--seeds", "1-2",
               "--out", tmp_path / "out", "--jobs", "1", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count(ONE_SIDED) == 1


def test_an_empty_measured_window_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('duration = "2s"\nwarmup = "2s"\n[topology]\nbottleneck = { rate = "1Mbps" }\n')
    proc = cli("run", path, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        'warmup: expected a warm-up shorter than duration (2s), got "2s"'
    ), proc.stderr


def test_a_named_topology_and_its_expansion_warn_of_the_same_queues() -> None:
    # The parking lot's [queue] marks on both hops for flows that are not ECN-capable: the preset
    # warns of [queue], its nodes and links of each hop's queue by name; ECN-capable flows
    # silence both.
    lot = aqmlab.load_scenario(ROOT / "scenarios" / "parking-lot.toml")
    lot["queue"]["ecn"] = True
    expanded = aqmlab.scenario.resolve(lot, expand=True)
    assert [w.path for w in aqmlab.scenario_warnings(lot)] == ["queue.ecn"]
    warned = aqmlab.scenario_warnings(expanded)
    assert [w.path for w in warned] == ["link[6].queue.ecn", "link[7].queue.ecn"]
    assert [w.message.split(" marks")[0] for w in warned] == [
        'the queue of link "r0-r1"', 'the queue of link "r1-r2"']
    lot["tcp"] = {"ecn": True}
    assert aqmlab.scenario_warnings(lot) == []
    assert aqmlab.scenario_warnings(aqmlab.scenario.resolve(lot, expand=True)) == []
