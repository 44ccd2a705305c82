"""Provenance in ``meta`` and re-running a resolved scenario (a run directory or its JSON)."""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

import aqmlab
from aqmlab.provenance import provenance, source_commit
from conftest import ROOT, base, cli, invoke


def _without_meta(path: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((path / "summary.json").read_text())
    del summary["meta"]
    return summary


def test_meta_records_where_the_run_came_from() -> None:
    meta = aqmlab.run(base()).meta
    prov = meta["provenance"]
    assert prov["python"] == platform.python_version()
    assert prov["platform"] == platform.platform()  # on Linux with glibc, as here
    assert prov["packages"] == {"aqmlab": aqmlab.__version__}
    assert isinstance(prov["command"], str) and prov["command"]
    assert meta["build"]["rustc"].startswith("rustc ")
    # The tests run from a git checkout (an editable install): its commit is recorded.
    if (ROOT / ".git").exists():
        assert prov["source_commit"] is not None and len(prov["source_commit"]) == 40
    # The run store's reuse key is unchanged by provenance.
    assert set(meta["build"]) >= {"id", "source_digest", "version", "profile"}


def test_source_commit_is_null_outside_a_checkout(monkeypatch: Any) -> None:
    from aqmlab import provenance as module

    module.source_commit.cache_clear()
    module._look_up_source_in.cache_clear()
    monkeypatch.setattr(module, "_start_git", lambda *_: None)  # git missing
    try:
        assert source_commit() is None
        assert provenance()["source_commit"] is None
    finally:
        module.source_commit.cache_clear()
        module._look_up_source_in.cache_clear()


def test_an_installed_copy_in_no_checkout_never_asks_git(monkeypatch: Any, tmp_path: Path) -> None:
    from aqmlab import provenance as module

    def no_git(*_: Any) -> None:
        raise AssertionError("git was asked outside any checkout")

    installed = tmp_path / "site-packages" / "aqmlab"
    installed.mkdir(parents=True)
    module._look_up_source_in.cache_clear()
    monkeypatch.setattr(module, "__file__", str(installed / "provenance.py"))
    monkeypatch.setattr(module, "_start_git", no_git)
    try:
        assert module.look_up_source() is None
    finally:
        module._look_up_source_in.cache_clear()


def test_command_line_is_recorded(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(base()))
    proc = cli("run", scenario, "--seed", "3", "--out", tmp_path / "run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((tmp_path / "run" / "summary.json").read_text())["meta"]
    assert meta["provenance"]["command"].endswith(f"run {scenario} --seed 3 --out {tmp_path}/run")


def test_rerun_from_the_run_directory_is_bit_identical(tmp_path: Path) -> None:
    first = aqmlab.run(base(), seed=9).save(tmp_path / "first")
    code, out, err = invoke(tmp_path, "run", str(first), "--out", str(tmp_path / "again"))
    assert code == 0, err
    again = tmp_path / "again"
    assert _without_meta(first) == _without_meta(again)
    metas = [json.loads((d / "summary.json").read_text())["meta"] for d in (first, again)]
    assert metas[0]["seed"] == metas[1]["seed"] == 9
    assert metas[0]["scenario_hash"] == metas[1]["scenario_hash"]
    parquet = sorted(p.name for p in first.glob("*.parquet"))
    assert parquet and parquet == sorted(p.name for p in again.glob("*.parquet"))
    for name in parquet:
        assert (first / name).read_bytes() == (again / name).read_bytes(), name
    # The summary.json alone, and the resolved scenario alone, do the same.
    code, _, err = invoke(tmp_path, "run", str(first / "summary.json"), "--out", "from-summary")
    assert code == 0, err
    (tmp_path / "resolved.json").write_text(json.dumps(metas[0]["scenario"]))
    code, _, err = invoke(tmp_path, "run", "resolved.json", "--out", "from-scenario")
    assert code == 0, err
    for name in ("from-summary", "from-scenario"):
        assert _without_meta(tmp_path / name) == _without_meta(first)
        assert (tmp_path / name / "queue.parquet").read_bytes() == (
            first / "queue.parquet"
        ).read_bytes()


def test_rerun_bad_inputs_are_clear_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "bad.json").write_text('{"meta": {"scenario": ')
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "summary-less.json").write_text('{"meta": {"seed": 1}}')
    cases = {
        "empty": "without summary.json",
        "bad.json": "malformed JSON",
        "list.json": "expected a scenario or a run summary",
        "summary-less.json": "without meta.scenario",
        "missing.json": "no such file",
    }
    for name, words in cases.items():
        code, out, err = invoke(tmp_path, "run", name, "--out", "x")
        assert code == 2, (name, out, err)
        assert words in err and name in err, (name, err)
        assert "Traceback" not in err
    # A resolved scenario is validated like any other: a bad key names its path.
    (tmp_path / "badkey.json").write_text(json.dumps({**base(), "duraton": "1s"}))
    code, _, err = invoke(tmp_path, "run", "badkey.json", "--out", "x")
    assert code == 2 and "duraton" in err
