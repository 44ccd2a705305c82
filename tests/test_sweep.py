"""``aqmlab sweep``: points × seeds into a store, collected back; resuming after SIGKILL; failures.

Runs are kept short (a few simulated seconds of the small scenario of conftest) except in the
kill test, whose runs last long enough that every kill lands while the sweep is running.
"""

from __future__ import annotations

import io
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aqmlab
import pandas as pd
import pytest
from aqmlab import sweeps
from aqmlab.cli import app
from aqmlab.executor import (
    WORKER_DIED,
    BatchProgress,
    Job,
    LocalExecutor,
    chunked,
    current_build_id,
    execute,
)
from aqmlab.reading import collect
from aqmlab.store import MANIFEST, Store, check_run
from conftest import BASE_TOML, base, cli, interruptible
from typer.testing import CliRunner

try:
    import psutil
except ImportError:  # pragma: no cover - psutil comes with the dask extra
    psutil = None


LIMITS = ("10p", "20p", "40p")
RATES = ("2Mbps", "4Mbps")


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    (tmp_path / "tiny.toml").write_text(BASE_TOML)
    return tmp_path


def test_a_later_axis_does_not_reach_into_an_earlier_axis_value() -> None:
    # the first axis sets whole queue tables; the second sets a key inside whichever it set
    red = {"kind": "red", "min_th": 5, "max_th": 15, "limit": "50p"}
    sweep = aqmlab.Sweep(base(), (aqmlab.Axis("queue", [red], name="queue"),
                                  aqmlab.Axis("queue.limit", ["20p", "40p"], name="limit")))
    limits = [p.scenario["queue"]["limit"] for p in sweep.points()]
    assert limits == ["20p", "40p"]
    assert red["limit"] == "50p", "the axis's own value is not changed"


def test_sweep_of_3_by_2_points_and_3_seeds_collects_18_rows(tiny: Path) -> None:
    args = ("sweep", "tiny.toml", "--vary", "queue.limit=" + ",".join(LIMITS),
            "--vary", "traffic[web].rate=" + ",".join(RATES), "--seeds", "1-3",
            "--set", "duration=2s", "--out", "store", "--jobs", "2")  # fmt: skip
    proc = cli(*args, cwd=tiny)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "sweep: 18 runs: 0 reused, 18 run now, 0 failed"
    assert "store: store" in lines
    assert "collect the results with: aqmlab collect store" in lines
    assert len(list((tiny / "store" / "runs").iterdir())) == 18
    # the progress lines (stderr is not a terminal) name each run's point and seed
    said = [line for line in proc.stderr.splitlines() if " done: " in line]
    assert len(said) == 18
    assert any(f"queue.limit={LIMITS[0]}, traffic[web].rate={RATES[0]}, seed 3 (" in line
               for line in said), said  # fmt: skip

    # collect on the command line: CSV on stdout, one row per run, axis and seed columns
    proc = cli("collect", "store", cwd=tiny)
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_csv(io.StringIO(proc.stdout))
    assert len(frame) == 18
    assert list(frame.columns[:4]) == ["queue.limit", "traffic[web].rate", "sweep", "point"]
    assert "seed" in frame.columns and "forward.drop_rate" in frame.columns
    combos = set(zip(frame["queue.limit"], frame["traffic[web].rate"], frame["seed"],
                     strict=True))  # fmt: skip
    assert combos == {(q, r, s) for q in LIMITS for r in RATES for s in (1, 2, 3)}
    assert (frame["meta.duration_s"] == 2).all()
    # the same from Python, and through a Parquet file
    direct = collect(tiny / "store")
    assert len(direct) == 18
    assert (direct["meta.seed"] == direct["seed"]).all()
    proc = cli("collect", "store", "--out", "all.parquet", cwd=tiny)
    assert proc.returncode == 0, proc.stderr
    pd.testing.assert_frame_equal(pd.read_parquet(tiny / "all.parquet"), direct,
                                  check_dtype=False, check_categorical=False)  # fmt: skip

    # a mean and a 95% interval over the seeds: one row per point
    from aqmlab.stats import mean_ci

    stats = mean_ci(direct, "forward.utilization", by=["queue.limit", "traffic[web].rate"])
    assert len(stats) == 6
    assert (stats["forward.utilization_n"] == 3).all()
    low, mean, high = (stats[f"forward.utilization_{k}"] for k in ("lo", "mean", "hi"))
    assert ((low <= mean) & (mean <= high)).all()

    # again: everything is reused, nothing is written
    stamps = {p: p.stat().st_mtime_ns for p in (tiny / "store" / "runs").glob(f"*/{MANIFEST}")}
    proc = cli(*args, cwd=tiny)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "sweep: 18 runs: 18 reused, 0 run now, 0 failed"
    assert stamps == {p: p.stat().st_mtime_ns for p in stamps}


def test_sweep_file_with_labels_more_axes_and_seeds(tiny: Path) -> None:
    (tiny / "queues.toml").write_text(
        'scenario = "tiny.toml"\nseeds = [4]\n\n'
        '[[axis]]\npath = "queue.limit"\nvalues = ["10p", "40p"]\nlabels = ["short", "long"]\n'
        'name = "queue"\n'
    )  # fmt: skip
    proc = cli("sweep", "queues.toml", "--vary", "traffic[0].flows=2,3", "--seeds", "5",
               "--set", "duration=1s", "--out", "store", cwd=tiny)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("sweep queues: 4 runs: 0 reused, 4 run now, 0 failed\n")
    frame = collect(tiny / "store", labels=True)
    assert sorted(zip(frame["queue"], frame["traffic[0].flows"], strict=True)) == [
        ("long", "2"), ("long", "3"), ("short", "2"), ("short", "3")  # labels are text
    ]  # fmt: skip
    assert sorted(set(collect(tiny / "store")["queue"])) == ["10p", "40p"]
    assert set(frame["seed"]) == {5}
    assert set(frame["meta.duration_s"]) == {1}
    index = json.loads((tiny / "store" / "sweeps" / "queues.json").read_text())
    assert [a["name"] for a in index["axes"]] == ["queue", "traffic[0].flows"]


# --- killed with SIGKILL, restarted: the same result, nothing computed twice --------------------
KILL_ARGS = ("--vary", "queue.limit=10p,20p,40p", "--seeds", "1-6", "--set", "duration=250s",
             "--set", "traffic[web].flows=8", "--jobs", "2")  # fmt: skip
KILL_RUNS = 18


def _status(run: Path) -> str:
    return check_run(run, digest=None, seed=None, build_id=current_build_id()).status


def _finished(store: Path) -> dict[str, tuple[int, int]]:
    """The store's finished runs: the inode and mtime of each one's manifest."""
    found = {}
    for manifest in (store / "runs").glob(f"*/{MANIFEST}"):
        # (not a .partial-* directory about to be renamed into place)
        if not manifest.parent.name.startswith(".") and _status(manifest.parent) == "finished":
            stat = manifest.stat()
            found[manifest.parent.name] = (stat.st_ino, stat.st_mtime_ns)
    return found


def _children(pid: int) -> list[Any]:
    if psutil is None:
        return []
    try:
        return list(psutil.Process(pid).children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def _gone(processes: list[Any], timeout_s: float = 30.0) -> list[Any]:
    """Wait for ``processes`` to end; return those still alive."""
    if psutil is None:
        return []
    _, alive = psutil.wait_procs(processes, timeout=timeout_s)
    still = []
    for process in alive:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                still.append(process)
        except psutil.NoSuchProcess:
            pass
    return still


def test_a_sweep_killed_three_times_ends_as_an_uninterrupted_one(tiny: Path) -> None:
    rng = random.Random(20250609)
    store = tiny / "store"
    kept: dict[str, tuple[int, int]] = {}
    command = [sys.executable, "-m", "aqmlab", "sweep", "tiny.toml", *KILL_ARGS, "--out", "store"]
    for kill in range(3):
        proc = subprocess.Popen(command, cwd=tiny, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)  # fmt: skip
        try:
            # wait until this sweep has finished a run of its own, then a random while more
            deadline = time.monotonic() + 60
            while len(_finished(store)) <= len(kept):
                assert proc.poll() is None, f"kill {kill}: the sweep ended before any run"
                assert time.monotonic() < deadline, f"kill {kill}: no run finished in 60 s"
                time.sleep(0.02)
            time.sleep(rng.uniform(0.0, 0.25))
            assert proc.poll() is None, f"kill {kill}: the sweep ended before the kill"
            workers = _children(proc.pid)
        finally:
            proc.kill()  # SIGKILL, to the sweep's own process only
            proc.wait()
        assert not _gone(workers), "worker processes outlived the killed sweep"
        finished = _finished(store)
        assert len(finished) < KILL_RUNS, f"kill {kill} landed after the sweep's last run"
        for name, stamp in kept.items():
            assert finished[name] == stamp, f"{name} was written again"
        kept = finished

    proc = cli("sweep", "tiny.toml", *KILL_ARGS, "--out", "store", cwd=tiny)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        f"sweep: {KILL_RUNS} runs: {len(kept)} reused, {KILL_RUNS - len(kept)} run now, "
        "0 failed\n"
    ), proc.stdout
    assert "re-run" not in proc.stdout
    final = _finished(store)
    assert len(final) == KILL_RUNS
    for name, stamp in kept.items():
        assert final[name] == stamp, f"{name} was computed again after it had finished"
    assert sorted(p.name for p in (store / "runs").iterdir()) == sorted(final)

    reference = cli("sweep", "tiny.toml", *KILL_ARGS, "--out", "reference", cwd=tiny)
    assert reference.returncode == 0, reference.stderr
    resumed, uninterrupted = collect(store), collect(tiny / "reference")
    assert len(resumed) == KILL_RUNS and not resumed["meta.wall_s"].isna().any()
    pd.testing.assert_frame_equal(resumed.drop(columns="meta.wall_s"),
                                  uninterrupted.drop(columns="meta.wall_s"))  # fmt: skip


def test_ctrl_c_exits_130_and_keeps_finished_runs(tiny: Path) -> None:
    command = [sys.executable, "-m", "aqmlab", "sweep", "tiny.toml", *KILL_ARGS, "--out", "store"]
    proc = subprocess.Popen(command, cwd=tiny, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=interruptible)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not _finished(tiny / "store"):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        # Ctrl-C in a terminal: SIGINT to the foreground process group (the sweep and workers)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.splitlines()[-1].startswith("error: interrupted; the finished runs are kept in")
    finished = _finished(tiny / "store")
    assert 0 < len(finished) < KILL_RUNS
    assert not [p for p in (tiny / "store" / "runs").iterdir() if p.name.startswith(".")]


# --- a run that fails ----------------------------------------------------------------------------
def test_a_failing_run_is_recorded_and_the_sweep_goes_on(
    tiny: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seed 2 of the first point fails in its worker; the other runs are made and kept.

    Every point is validated before a sweep runs, so a scenario cannot fail later by being
    invalid. To have a run fail in the worker, the planned job of (point 0, seed 2) is given an
    invalid duration after validation: the real local pool runs it, the engine rejects it there,
    and the store records the failure.
    """
    real_plan = sweeps.plan

    def plan_with_a_bad_job(sweep: Any) -> Any:
        points, jobs, index = real_plan(sweep)
        bad = jobs[1]
        assert bad.seed == 2
        broken = {**bad.scenario, "duration": "-1s"}
        jobs[1] = Job(broken, bad.seed, bad.scenario_hash, bad.cost, bad.label)
        return points, jobs, index

    monkeypatch.setattr(sweeps, "plan", plan_with_a_bad_job)
    monkeypatch.chdir(tiny)
    args = ["sweep", "tiny.toml", "--vary", "queue.limit=10p,20p", "--seeds", "1-2", "--set",
            "duration=1s", "--out", "store", "--jobs", "2"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "sweep: 4 runs: 0 reused, 3 run now, 1 failed"
    failed_at = lines.index("failed 1 run:")
    store = Store.open(tiny / "store")
    failed_dir = Path("store") / "runs"
    (line,) = lines[failed_at + 1 : failed_at + 2]
    assert line.startswith(f"  {failed_dir}/") and "-seed2: ScenarioError: duration:" in line
    assert result.stderr.splitlines()[-1].startswith("error: 1 run failed (listed above)")
    statuses = sorted(_status(p) for p in store.runs.iterdir())
    assert statuses == ["failed", "finished", "finished", "finished"]
    with pytest.warns(UserWarning, match=r"1 run\(s\) not collected: .*-seed2 \(failed: "):
        assert len(collect(store.root)) == 3

    # The next sweep (the real plan) runs that run again, and only it.
    monkeypatch.setattr(sweeps, "plan", real_plan)
    proc = cli(*args, cwd=tiny)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "sweep: 4 runs: 3 reused, 1 run now, 0 failed"
    assert lines[1] == "re-run 1 stored run:"
    assert lines[2].startswith(f"  {failed_dir}/") and lines[2].endswith("-seed2: failed before")
    assert len(collect(store.root)) == 4


class _KillsItsWorker:
    """A value that ends the process that unpickles it, as the OOM killer would end a worker."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return os._exit, (9,)


def test_a_run_whose_worker_dies_fails_alone_and_the_others_run(tmp_path: Path) -> None:
    """A worker process that dies takes its pool down; only the run that kills it fails."""
    store = Store.open(tmp_path / "store", create=True)
    scenario = {**base(), "duration": "1s"}
    digest = aqmlab.scenario_hash(aqmlab.resolve(scenario))
    killer = {**scenario, "name": _KillsItsWorker()}
    jobs = [Job(scenario, seed, digest) for seed in (1, 2, 3, 4)]
    jobs[1] = Job(killer, 2, digest)
    outcomes = execute(jobs, store, executor=LocalExecutor(2),
                       bar=BatchProgress("test", enabled=False))  # fmt: skip
    assert [o.status for o in outcomes] == ["ran", "failed", "ran", "ran"]
    assert outcomes[1].error == WORKER_DIED
    assert [_status(o.directory) for o in outcomes] == ["finished", "failed", "finished",
                                                        "finished"]  # fmt: skip
    assert not [p for p in store.runs.iterdir() if p.name.startswith(".")]


def test_a_worker_dying_on_a_chunk_fails_only_the_run_that_killed_it(tmp_path: Path) -> None:
    """Short runs go to the workers many at a time (``chunked``): a worker that dies takes its
    chunk and the pool down, and the runs are made again until only the killer is left."""
    store = Store.open(tmp_path / "store", create=True)
    scenario = {**base(), "duration": "0.6s"}
    digest = aqmlab.scenario_hash(aqmlab.resolve(scenario))
    killer = {**scenario, "name": _KillsItsWorker()}
    jobs = [Job(killer if seed == 50 else scenario, seed, digest) for seed in range(1, 101)]
    assert max(len(c) for c in chunked([j.cost for j in jobs], 2)) > 1  # chunks, not single runs
    outcomes = execute(jobs, store, executor=LocalExecutor(2),
                       bar=BatchProgress("test", enabled=False))  # fmt: skip
    assert [o.job.seed for o in outcomes if o.status == "failed"] == [50]
    assert outcomes[49].error == WORKER_DIED
    assert {o.status for o in outcomes if o.job.seed != 50} == {"ran"}
    assert all(o.summary is not None for o in outcomes if o.job.seed != 50)
    assert not [p for p in store.runs.iterdir() if p.name.startswith(".")]


def test_a_worker_on_another_engine_build_is_a_clear_error_and_stores_nothing(
    tmp_path: Path,
) -> None:
    """The engine rebuilt under a running sweep: workers load another build than the parent."""
    store = Store.open(tmp_path / "store", create=True)
    scenario = {**base(), "duration": "1s"}
    digest = aqmlab.scenario_hash(aqmlab.resolve(scenario))
    done: list[Any] = []
    with pytest.raises(aqmlab.InputError) as err:
        LocalExecutor(1).run([Job(scenario, 1, digest)], store, "parent-build",
                             lambda *a: done.append(a), lambda _: None)  # fmt: skip
    assert "a worker process: ran aqmlab engine build " in str(err.value)
    assert "this process parent-build" in str(err.value) and "run again" in str(err.value)
    assert done == [] and not (store.runs.exists() and any(store.runs.iterdir()))
