"""A run whose engine self-checks fail (its counter identities: an engine bug) is never taken for a
good one: :func:`aqmlab.run` raises :class:`SelfCheckError` holding the result, ``aqmlab run``
writes the run directory marked failed and exits with status 3, a sweep stores the run as
failed with its files, and neither ``aqmlab.load`` nor ``collect`` reads its numbers.

The engine's identities hold in every run it makes (they are asserted by its own tests), so a
failure is made here by altering what the engine hands back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from aqmlab import _native, runner
from aqmlab.errors import SelfCheckError, StoreError
from aqmlab.executor import _failure
from aqmlab.store import read_manifest
from conftest import BASE_TOML, base, invoke

VIOLATION = "forward: utilization 4.9e19 > 1"


@pytest.fixture
def broken_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine, its summary's identities marked failed."""
    real = _native.run

    def run(*args: Any) -> Any:
        summary_json, columns = real(*args)
        summary = json.loads(summary_json)
        summary["checks"] = {"counter_identities": False, "violations": [VIOLATION]}
        return json.dumps(summary), columns

    monkeypatch.setattr(runner._native, "run", run)


def test_a_good_run_passes_its_checks() -> None:
    result = aqmlab.run(base())
    assert result.summary["checks"]["counter_identities"] is True
    assert result.self_check_failure() is None


@pytest.mark.usefixtures("broken_engine")
def test_the_python_api_raises_and_keeps_the_result() -> None:
    with pytest.raises(SelfCheckError, match="utilization 4.9e19") as caught:
        aqmlab.run(base())
    assert caught.value.result.summary["forward"]["arrivals_pkts"] > 0


@pytest.mark.usefixtures("broken_engine")
def test_the_command_line_exits_3_and_marks_the_run_directory_failed(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(BASE_TOML)
    code, out, err = invoke(tmp_path, "run", "s.toml", "--out", "run")
    assert code == 3, err
    assert "engine self-check failed" in err and VIOLATION in err
    assert "run directory: run" in out
    manifest = read_manifest(tmp_path / "run")
    assert manifest["status"] == "failed" and VIOLATION in manifest["error"]
    assert {f["name"] for f in manifest["files"]} >= {"summary.json", "queue.parquet"}
    with pytest.raises(StoreError, match="the run failed"):
        aqmlab.load(tmp_path / "run")


@pytest.mark.usefixtures("broken_engine")
def test_a_sweep_stores_the_failed_run_with_its_files() -> None:
    with pytest.raises(SelfCheckError) as caught:
        aqmlab.run(base())
    error, files = _failure(caught.value)
    assert error.startswith("SelfCheckError: engine self-check failed")
    assert {"summary.json", "queue.parquet", "error.json"} <= set(files)
    assert _failure(ValueError("x")) == ("ValueError: x", {"error.json": b'{\n  "error": '
                                                           b'"ValueError: x"\n}\n'})  # fmt: skip
