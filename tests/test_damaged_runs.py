"""A damaged run store or run directory is a one-line error naming the file, never a traceback.

The manifest catches most damage (sizes and digests); these fixtures are damaged with the
manifest made to agree, or in the files the manifest does not cover (the sweep index, the store's
own directories), which only the readers themselves can catch.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import aqmlab
import pytest
from aqmlab.errors import StoreError
from conftest import base, invoke

VARY = {"queue.limit": ["10p", "20p"]}


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("clean") / "store"
    aqmlab.sweep(base(), vary=VARY, seeds=[1], out=store, jobs=1, progress=False)
    return store


def _agree(run: Path) -> None:
    """Rewrite the run's manifest so that it agrees with the (damaged) files."""
    manifest = json.loads((run / "manifest.json").read_text())
    for entry in manifest["files"]:
        data = (run / entry["name"]).read_bytes()
        entry["size"], entry["sha256"] = len(data), hashlib.sha256(data).hexdigest()
    (run / "manifest.json").write_text(json.dumps(manifest))


def _truncate(path: Path, keep: int = 10) -> None:
    path.write_bytes(path.read_bytes()[:keep])


def _index(store: Path) -> Path:
    return store / "sweeps" / "sweep.json"


Damage = Callable[[Path, Path], object]

# (id, damage(store, first run), the table to collect, the file the error names)
CASES: list[tuple[str, Damage, str, str]] = [
    ("summary-truncated", lambda s, r: (_truncate(r / "summary.json"), _agree(r)), "summary",
     "summary.json: not a valid run summary"),
    ("summary-not-an-object", lambda s, r: ((r / "summary.json").write_text("[]"), _agree(r)),
     "summary", "summary.json: not a valid run summary: expected a JSON object"),
    ("parquet-truncated", lambda s, r: (_truncate(r / "flows.parquet", 100), _agree(r)), "flows",
     "flows.parquet: cannot read the table"),
    ("parquet-garbage", lambda s, r: ((r / "flows.parquet").write_bytes(b"PAR1xxPAR1"), _agree(r)),
     "flows", "flows.parquet: cannot read the table"),
    ("index-truncated", lambda s, r: _truncate(_index(s)), "summary",
     "sweep.json: not a valid sweep index"),
    ("index-a-list", lambda s, r: _index(s).write_text("[]"), "summary",
     "sweep.json: not a valid sweep index: expected a JSON object"),
    ("index-wrong-types", lambda s, r: _index(s).write_text('{"points": [{"a": 1}], "axes": 3}'),
     "summary", "sweep.json: not a valid sweep index"),
    ("index-hash-escapes", lambda s, r: _index(s).write_text(
        _index(s).read_text().replace('"scenario_hash": "', '"scenario_hash": "../../', 1)),
     "summary", "sweep.json: not a valid sweep index"),
    ("runs-is-a-file", lambda s, r: (shutil.rmtree(s / "runs"), (s / "runs").write_text("x")),
     "summary", "runs: is a file, expected a directory"),
]  # fmt: skip


@pytest.mark.parametrize("case_id", [case[0] for case in CASES])
def test_collect_names_the_damaged_file(clean: Path, tmp_path: Path, case_id: str) -> None:
    damage, table, expected = next(case[1:] for case in CASES if case[0] == case_id)
    store = tmp_path / "store"
    shutil.copytree(clean, store)
    first = sorted((store / "runs").iterdir())[0] if (store / "runs").is_dir() else store
    damage(store, first)
    status, out, err = invoke(tmp_path, "collect", "store", "--table", table)
    assert status == 2, err
    assert out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("error: ") and expected in err, err


@pytest.mark.parametrize("case_id", ["summary-truncated", "parquet-truncated", "parquet-garbage"])
def test_load_names_the_damaged_file(clean: Path, tmp_path: Path, case_id: str) -> None:
    damage, _, expected = next(case[1:] for case in CASES if case[0] == case_id)
    store = tmp_path / "store"
    shutil.copytree(clean, store)
    run = sorted((store / "runs").iterdir())[0]
    damage(store, run)
    with pytest.raises(StoreError, match=expected.split(":")[0]) as caught:
        aqmlab.load(run)
    assert expected.split(": ", 1)[1] in str(caught.value)


def test_a_sweep_runs_a_damaged_summary_again(clean: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    shutil.copytree(clean, store)
    run = sorted((store / "runs").iterdir())[0]
    _truncate(run / "summary.json")
    _agree(run)
    done = aqmlab.sweep(base(), vary=VARY, seeds=[1], out=store, jobs=1, progress=False)
    assert done.counts()["reused"] == 1 and done.counts()["ran"] == 1
    assert aqmlab.load(run).summary["meta"]["seed"] == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{", "not a calibration file"),
        ("[]", "not a calibration file"),
        ('{"points": [{"users": "x", "throughput_bps": 1}]}', "users: expected an integer"),
        ('{"points": []}', "no 'link_rate_bps'"),
    ],
)
def test_damaged_calibration_file(tmp_path: Path, content: str, expected: str) -> None:
    (tmp_path / "calibration.json").write_text(content)
    (tmp_path / "s.toml").write_text('duration = "1s"\n[topology.bottleneck]\nrate = "1Mbps"\n')
    status, _, err = invoke(tmp_path, "run", "s.toml", "--load", "90", "--calibration", ".")
    assert status == 2, err
    assert err.startswith("error: calibration.json: not a calibration file"), err
    assert expected in err and len(err.splitlines()) == 1, err
