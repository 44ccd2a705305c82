"""The run store: run directories that verify, atomic writes, reuse only by the same build.

The first tests exercise :mod:`aqmlab.store` directly (no engine runs); the last ones damage one
run of a store made by ``aqmlab sweep`` (a truncated table, an edited summary, a deleted
manifest) and check that the next sweep re-runs exactly that run, names it and says why, and
reuses the others untouched.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from aqmlab.errors import StoreError
from aqmlab.store import (
    MANIFEST,
    MARKER,
    Store,
    check_output_dir,
    check_run,
    read_manifest,
    write_run_directory,
)
from conftest import BASE_TOML, cli

DIGEST = "0123456789abcdef" * 4
FILES = {"summary.json": b'{"meta": {}}\n', "flows.parquet": b"PAR1 not really PAR1"}


def _store(tmp_path: Path) -> Store:
    return Store.open(tmp_path / "store", create=True)


# --- run directories ------------------------------------------------------------------------------
def test_a_written_run_verifies_and_lists_every_file(tmp_path: Path) -> None:
    directory = write_run_directory(tmp_path / "run", FILES, scenario_hash=DIGEST, seed=3,
                                    build_id="b1")  # fmt: skip
    manifest = read_manifest(directory)
    assert manifest["status"] == "finished"
    assert (manifest["scenario_hash"], manifest["seed"], manifest["build_id"]) == (DIGEST, 3, "b1")
    listed = {e["name"]: (e["size"], e["sha256"]) for e in manifest["files"]}
    assert listed == {n: (len(d), hashlib.sha256(d).hexdigest()) for n, d in FILES.items()}
    assert sorted(p.name for p in directory.iterdir()) == sorted([*FILES, MANIFEST])
    assert check_run(directory, digest=DIGEST, seed=3, build_id="b1").status == "finished"
    # nothing but the run itself is left in the parent
    assert [p.name for p in tmp_path.iterdir()] == ["run"]


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda d: (d / "flows.parquet").write_bytes(b"PAR1"), "flows.parquet has 4 bytes"),
        (lambda d: (d / "flows.parquet").write_bytes(b"PAR1 not really PAR2"),
         "flows.parquet does not match its SHA-256"),  # same size, other bytes
        (lambda d: (d / "summary.json").unlink(), "summary.json is missing"),
        (lambda d: (d / MANIFEST).unlink(), "no manifest.json"),
        (lambda d: (d / MANIFEST).write_text("{"), "unreadable manifest.json"),
        (lambda d: (d / MANIFEST).write_text('{"format": "x"}'), "is not an aqmlab-run/1"),
    ],
    ids=["truncated", "same-size-edit", "file-missing", "no-manifest", "bad-json", "other-format"],
)  # fmt: skip
def test_a_damaged_run_is_never_finished(
    tmp_path: Path, damage: Callable[[Path], object], reason: str
) -> None:
    directory = write_run_directory(tmp_path / "run", FILES, scenario_hash=DIGEST, seed=1,
                                    build_id="b1")  # fmt: skip
    damage(directory)
    state = check_run(directory, digest=DIGEST, seed=1, build_id="b1")
    assert state.status == "damaged" and not state.reusable
    assert reason in state.reason
    with pytest.raises(StoreError, match="run"):
        read_manifest(directory)


def test_build_seed_and_scenario_must_match(tmp_path: Path) -> None:
    directory = write_run_directory(tmp_path / "run", FILES, scenario_hash=DIGEST, seed=1,
                                    build_id="b1")  # fmt: skip
    other_build = check_run(directory, digest=DIGEST, seed=1, build_id="b2")
    assert other_build.status == "other-build" and "b1" in other_build.reason
    assert check_run(directory, digest=DIGEST, seed=2, build_id="b1").status == "damaged"
    assert check_run(directory, digest="f" * 64, seed=1, build_id="b1").status == "damaged"
    assert check_run(tmp_path / "none", digest=DIGEST, seed=1, build_id="b1").status == "missing"


def test_a_stored_failure_is_recorded_and_not_reusable(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.write(DIGEST, 1, {"error.json": b'{"error": "boom"}'}, build_id="b1", status="failed",
                error="RuntimeError: boom")  # fmt: skip
    state = store.check(DIGEST, 1, build_id="b1")
    assert (state.status, state.reason, state.reusable) == ("failed", "RuntimeError: boom", False)


def test_replacing_a_run_is_atomic_and_leaves_nothing_behind(tmp_path: Path) -> None:
    store = _store(tmp_path)
    first = store.write(DIGEST, 1, FILES, build_id="b1")
    second = store.write(DIGEST, 1, {"summary.json": b"{}"}, build_id="b2")
    assert first == second
    assert store.check(DIGEST, 1, build_id="b2").status == "finished"
    assert [p.name for p in store.runs.iterdir()] == [first.name]
    with pytest.raises(StoreError, match="already exists"):
        write_run_directory(first, FILES, scenario_hash=DIGEST, seed=1, build_id="b1")


def test_a_writer_failing_midway_leaves_the_old_run(tmp_path: Path) -> None:
    class Exploding(dict[str, bytes]):
        def items(self):  # type: ignore[no-untyped-def, override]
            yield "summary.json", b"{}"
            raise KeyboardInterrupt

    store = _store(tmp_path)
    old = store.write(DIGEST, 1, FILES, build_id="b1")
    with pytest.raises(KeyboardInterrupt):
        store.write(DIGEST, 1, Exploding(), build_id="b1")
    assert store.check(DIGEST, 1, build_id="b1").status == "finished"
    assert (old / "flows.parquet").read_bytes() == FILES["flows.parquet"]
    assert [p.name for p in store.runs.iterdir()] == [old.name]


def test_leftovers_of_killed_writers_are_removed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    kept = store.write(DIGEST, 1, FILES, build_id="b1")
    for name in (".partial-x-1-ab", ".trash-y-cd"):
        (store.runs / name).mkdir()
        (store.runs / name / "summary.json").write_text("{}")
    assert store.remove_leftovers() == [".partial-x-1-ab", ".trash-y-cd"]
    assert [p.name for p in store.runs.iterdir()] == [kept.name]
    assert store.remove_leftovers() == []


# --- the store ------------------------------------------------------------------------------------
def test_open_refuses_what_is_not_a_store_and_touches_nothing(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="not a run store"):
        Store.open(tmp_path / "missing")
    assert not (tmp_path / "missing").exists()
    a_file = tmp_path / "file"
    a_file.write_text("keep me")
    with pytest.raises(StoreError, match="is a file"):
        Store.open(a_file, create=True)
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(StoreError, match="not a run store .* not empty"):
        Store.open(other, create=True)
    assert a_file.read_text() == "keep me"
    assert [p.name for p in other.iterdir()] == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (Store.open(empty, create=True).root / MARKER).is_file()
    assert Store.open(empty).root == empty


def test_one_sweep_at_a_time(tmp_path: Path) -> None:
    store = _store(tmp_path)
    with store.lock():
        # another open file description, as another process would have
        with pytest.raises(StoreError, match="another sweep is writing"):
            with Store.open(store.root).lock():
                pass
    with Store.open(store.root).lock():  # free again
        pass


def test_sweep_indexes(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_sweep("b", {"name": "b"})
    store.save_sweep("a", {"name": "a"})
    assert store.sweep_names() == ["a", "b"]
    assert store.load_sweep("a") == {"name": "a"}
    with pytest.raises(StoreError, match=r'no sweep "c" \(sweeps: a, b\)'):
        store.load_sweep("c")
    assert not [p for p in store.sweeps.iterdir() if p.suffix != ".json"]


def test_check_output_dir(tmp_path: Path) -> None:
    assert check_output_dir(tmp_path / "new", replace=False) is False
    (tmp_path / "empty").mkdir()
    assert check_output_dir(tmp_path / "empty", replace=False) is True
    run = write_run_directory(tmp_path / "run", FILES, scenario_hash=DIGEST, seed=1,
                              build_id="b1")  # fmt: skip
    with pytest.raises(StoreError, match="--force"):
        check_output_dir(run, replace=False)
    assert check_output_dir(run, replace=True) is True
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="is a file"):
        check_output_dir(tmp_path / "file", replace=True)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "x").write_text("x")
    with pytest.raises(StoreError, match="not a run directory"):
        check_output_dir(tmp_path / "other", replace=True)
    store = _store(tmp_path)
    with pytest.raises(StoreError, match="is a run store"):
        check_output_dir(store.root, replace=True)


# --- a damaged run of a real store is re-run, and only it -----------------------------------------
SWEEP_ARGS = ("--vary", "queue.limit=10p,20p", "--seeds", "1-2", "--set", "duration=1s",
              "--jobs", "2")  # fmt: skip


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of 2 points × 2 seeds made by ``aqmlab sweep`` (copied by each test)."""
    root = tmp_path_factory.mktemp("pristine")
    (root / "tiny.toml").write_text(BASE_TOML)
    proc = cli("sweep", "tiny.toml", *SWEEP_ARGS, "--out", "store", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "4 runs: 0 reused, 4 run now, 0 failed" in proc.stdout
    return root


def _stamps(store: Path) -> dict[str, tuple[int, int]]:
    """Each run's manifest: inode and modification time (a re-written run changes both)."""
    return {p.parent.name: (p.stat().st_ino, p.stat().st_mtime_ns)
            for p in (store / "runs").glob(f"*/{MANIFEST}")}  # fmt: skip


def _truncate_parquet(run: Path) -> None:
    path = run / "queue.parquet"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _edit_summary(run: Path) -> None:
    path = run / "summary.json"
    summary = json.loads(path.read_text())
    summary["forward"]["drop_rate"] = 0.5
    path.write_text(json.dumps(summary, indent=2) + "\n")


def _delete_manifest(run: Path) -> None:
    (run / MANIFEST).unlink()


def _other_build(run: Path) -> None:
    """Make the run look whole but made by another engine build: summary and manifest agree."""
    path = run / "summary.json"
    summary = json.loads(path.read_text())
    summary["meta"]["build"]["id"] = "another-build"
    data = (json.dumps(summary, indent=2) + "\n").encode()
    path.write_bytes(data)
    manifest = json.loads((run / MANIFEST).read_text())
    manifest["build_id"] = "another-build"
    for entry in manifest["files"]:
        if entry["name"] == "summary.json":
            entry.update(size=len(data), sha256=hashlib.sha256(data).hexdigest())
    (run / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_truncate_parquet, "damaged (queue.parquet has "),
        (_edit_summary, "damaged (summary.json "),
        (_delete_manifest, "damaged (no manifest.json"),
        (_other_build, "made by another engine build (made by build another-build)"),
    ],
    ids=["truncated-parquet", "edited-summary", "deleted-manifest", "other-build"],
)
def test_a_damaged_run_is_rerun_and_named(
    pristine: Path, tmp_path: Path, damage: Callable[[Path], None], reason: str
) -> None:
    shutil.copytree(pristine, tmp_path, dirs_exist_ok=True)
    store = tmp_path / "store"
    runs = sorted(p.name for p in (store / "runs").iterdir())
    assert len(runs) == 4
    victim = store / "runs" / runs[1]
    before = json.loads((victim / "summary.json").read_text())
    damage(victim)
    stamps = _stamps(store)
    proc = cli("sweep", "tiny.toml", *SWEEP_ARGS, "--out", "store", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert "sweep: 4 runs: 3 reused, 1 run now, 0 failed" in lines, proc.stdout
    assert "re-run 1 stored run:" in lines
    (named,) = [line for line in lines if line.startswith("  ")]
    assert named.startswith(f"  {Path('store') / 'runs' / victim.name}: {reason}"), named
    # the victim is whole again, with the same numbers; the others were not touched
    after = _stamps(store)
    for name in runs:
        if name != victim.name:
            assert after[name] == stamps[name], name
    assert after[victim.name] != stamps.get(victim.name)
    now = json.loads((victim / "summary.json").read_text())
    manifest = read_manifest(victim)
    assert manifest["build_id"] == now["meta"]["build"]["id"] != "another-build"
    for summary in (before, now):
        del summary["meta"]["wall_s"]
    assert now == before
    assert sorted(p.name for p in (store / "runs").iterdir()) == runs  # no leftovers
    assert not [p for p in store.rglob("*") if p.name.startswith((".partial", ".trash"))]
