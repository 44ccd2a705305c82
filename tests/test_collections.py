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
