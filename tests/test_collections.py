"""Collections that cannot mislead: a sweep that replaces another of the same name in a store says
so, from the command line and from Python."""

from __future__ import annotations

from pathlib import Path

import aqmlab
import pytest
from conftest import BASE_TOML, base, invoke


def test_replacing_a_sweep_of_the_same_name_is_said(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(BASE_TOML.replace('duration = "3s"', 'duration = "1s"'))
    sweep = ["sweep", "s.toml", "--vary", "queue.limit=10p,20p", "-j", "1", "--out", "st"]
    code, _, err = invoke(tmp_path, *sweep, "--seeds", "1-2")
    assert code == 0 and "replaced" not in err, err
    code, _, err = invoke(tmp_path, *sweep, "--seeds", "1-2")  # the same sweep again: no news
    assert code == 0 and "replaced" not in err, err
    code, _, err = invoke(tmp_path, *sweep, "--seeds", "3")
    assert code == 0, err
    assert 'warning: the store\'s sweep "sweep" held other points or seeds and is replaced' in err


def test_python_callers_are_warned_too(tmp_path: Path) -> None:
    scenario = {**base(), "duration": "1s"}
    aqmlab.sweep(scenario, seeds=[1], out=tmp_path / "st", jobs=1, progress=False)
    with pytest.warns(UserWarning, match="is replaced by this one"):
        aqmlab.sweep(scenario, seeds=[2], out=tmp_path / "st", jobs=1, progress=False)


def test_mean_ci_refuses_a_run_listed_under_two_sweeps(tmp_path: Path) -> None:
    from aqmlab.stats import mean_ci

    scenario = {**base(), "duration": "1s"}
    for name in ("a", "b"):  # two sweeps sharing their runs
        aqmlab.sweep(scenario, vary={"queue.limit": ["10p"]}, seeds=[1, 2], out=tmp_path / "st",
                     name=name, jobs=1, progress=False)  # fmt: skip
    both = aqmlab.collect(tmp_path / "st")
    assert len(both) == 4
    with pytest.raises(ValueError, match="under sweeps a, b: collect one sweep"):
        mean_ci(both, "forward.drop_rate", by=["queue.limit"])
    one = aqmlab.collect(tmp_path / "st", sweep="a")
    assert int(mean_ci(one, "forward.drop_rate", by=["queue.limit"])["forward.drop_rate_n"][0]) == 2
    queue = aqmlab.collect(tmp_path / "st", table="queue", sweep="a")  # many rows a run: fine
    assert len(mean_ci(queue, "mean_pkts", by=["queue.limit"])) == 1


def test_run_takes_the_command_lines_set_by_name() -> None:
    scenario = {**base(), "duration": "1s"}
    changes = {"topology.bottleneck.rate": "1Mbps", "traffic[web].flows": 2}
    slower = aqmlab.run(scenario, set=changes)
    assert slower.summary["forward"]["rate_bps"] == 1_000_000
    assert slower.summary["meta"]["scenario"]["traffic"][0]["flows"] == 2
    with pytest.raises(aqmlab.ScenarioError, match="set"):
        aqmlab.run(scenario, set={"no.such[": 1})
