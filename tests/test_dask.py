"""The Dask executor: a 2-worker LocalCluster gives the same store as the local process pool.

Needs the ``dask`` extra (``distributed``); skipped without it. One cluster serves the module
(its start-up is most of the time); the last test closes it and checks that nothing is left.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from aqmlab.errors import InputError
from aqmlab.executor import PACK_WITHIN_S, connect
from aqmlab.reading import collect
from aqmlab.store import Store
from aqmlab.sweeps import sweep
from conftest import base

try:
    import distributed
    import psutil  # a dependency of distributed
except ImportError:  # pragma: no cover - the dask extra is not installed
    pytest.skip(
        "needs the dask extra (distributed is not importable): pip install -e '.[dask]'",
        allow_module_level=True,
    )

VARY = {"queue.limit": ["10p", "40p"]}
SEEDS = [1, 2]
TABLES = ("requests", "flows", "queue")


def scenario() -> dict[str, Any]:
    """The small scenario of conftest, with a few web users so that ``requests`` has rows."""
    chosen = base()
    chosen["traffic"].append({"name": "pages", "kind": "web-mah", "users": 20, "think_max": "2s"})
    return chosen


class Cluster:
    """A LocalCluster of two single-threaded worker processes on loopback, and its client."""

    def __init__(self) -> None:
        self.children_before = {p.pid for p in psutil.Process().children(recursive=True)}
        threads_before = set(threading.enumerate())
        self.cluster = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs={
                # No dashboard; the scheduler's small HTTP server (health checks) on a free
                # loopback port rather than 8787, which another cluster may hold.
                "dashboard": False,
                "dashboard_address": "127.0.0.1:0",
                # A task whose worker dies fails at once (KilledWorker), not after 3 retries.
                "allowed_failures": 0,
            },
        )
        self.client = distributed.Client(self.cluster, set_as_default=False)
        self.client.wait_for_workers(2, timeout=60)
        self.worker_pids = set(self.client.run(os.getpid).values())
        self.loop_threads = {t for t in set(threading.enumerate()) - threads_before
                             if t.name == "IO loop"}  # fmt: skip

    def close(self) -> None:
        """Close the client, then the cluster (both may be closed already)."""
        self.client.close()
        self.cluster.close()


@pytest.fixture(scope="module")
def dask_cluster() -> Iterator[Cluster]:
    cluster = Cluster()
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def two_stores(tmp_path_factory: pytest.TempPathFactory, dask_cluster: Cluster) -> \
        tuple[Path, Path]:  # fmt: skip
    """The same sweep run once on the local pool and once on the cluster."""
    root = tmp_path_factory.mktemp("dask")
    local, dask = root / "local", root / "dask"
    done_local = sweep(scenario(), vary=VARY, seeds=SEEDS, out=local, jobs=2, progress=False)
    done_dask = sweep(scenario(), vary=VARY, seeds=SEEDS, out=dask, client=dask_cluster.client,
                      progress=False)  # fmt: skip
    for done in (done_local, done_dask):
        assert done.counts() == {"runs": 4, "reused": 0, "ran": 4, "rerun": 0, "failed": 0}
    return local, dask


def test_dask_and_local_collect_the_same(two_stores: tuple[Path, Path]) -> None:
    local, dask = two_stores
    frames = [collect(store) for store in (local, dask)]
    assert len(frames[0]) == 4
    assert set(frames[0]["queue.limit"]) == {"10p", "40p"}
    # Wall time is the only thing that may differ.
    assert not frames[0]["meta.wall_s"].isna().any()
    pd.testing.assert_frame_equal(*(f.drop(columns="meta.wall_s") for f in frames))
    for table in TABLES:
        a, b = (collect(store, table) for store in (local, dask))
        assert len(a) > 0 and set(a["seed"]) == set(SEEDS), table
        pd.testing.assert_frame_equal(a, b, obj=table)


def test_dask_and_local_write_the_same_files(two_stores: tuple[Path, Path]) -> None:
    local, dask = two_stores
    runs = sorted(p.name for p in (local / "runs").iterdir())
    assert len(runs) == 4
    assert runs == sorted(p.name for p in (dask / "runs").iterdir())
    for run in runs:
        a, b = local / "runs" / run, dask / "runs" / run
        names = sorted(p.name for p in a.iterdir())
        assert names == sorted(p.name for p in b.iterdir())
        parquet = [n for n in names if n.endswith(".parquet")]
        assert set(TABLES) <= {n.removesuffix(".parquet") for n in parquet}
        for name in parquet:
            assert (a / name).read_bytes() == (b / name).read_bytes(), f"{run}/{name}"
        summaries = [json.loads((d / "summary.json").read_text()) for d in (a, b)]
        for summary in summaries:
            del summary["meta"]["wall_s"]
        assert summaries[0] == summaries[1]


def _fail_seed(seed: int) -> Callable[[], None]:
    """A function that makes a worker's run (``aqmlab.runner.run_prepared``) raise for ``seed``.

    Nested, so that cloudpickle sends it to the workers by value: they need not import tests.
    """

    def patch() -> None:
        import aqmlab.runner as runner

        real = getattr(runner, "_real_run", runner.run_prepared)

        def run(plain: Any, run_seed: int | None, *args: Any) -> Any:
            if run_seed == seed:
                raise RuntimeError(f"injected failure for seed {seed}")
            return real(plain, run_seed, *args)

        runner._real_run = real  # type: ignore[attr-defined]
        runner.run_prepared = run

    return patch


def _exit_on_seed(seed: int) -> Callable[[], None]:
    """Like :func:`_fail_seed`, but the worker process dies (as if killed) running ``seed``."""

    def patch() -> None:
        import os

        import aqmlab.runner as runner

        real = getattr(runner, "_real_run", runner.run_prepared)

        def run(plain: Any, run_seed: int | None, *args: Any) -> Any:
            if run_seed == seed:
                os._exit(17)
            return real(plain, run_seed, *args)

        runner._real_run = real  # type: ignore[attr-defined]
        runner.run_prepared = run

    return patch


def _exit_in_pack(seed: int) -> Callable[[], None]:
    """Like :func:`_exit_on_seed`, for a pack holding ``seed`` too (``run_pack``)."""

    def patch() -> None:
        import os

        import aqmlab.runner as runner

        real = getattr(runner, "_real_pack", runner.run_pack)

        def run_pack(plain: Any, seeds: Any, **kwargs: Any) -> Any:
            if seed in seeds:
                os._exit(17)
            return real(plain, seeds, **kwargs)

        runner._real_pack = real  # type: ignore[attr-defined]
        runner.run_pack = run_pack

    return patch


def _restore() -> None:
    import aqmlab.runner as runner

    if hasattr(runner, "_real_run"):
        runner.run_prepared = runner._real_run
        del runner._real_run
    if hasattr(runner, "_real_pack"):
        runner.run_pack = runner._real_pack
        del runner._real_pack


def test_a_run_failing_on_a_worker_is_recorded(tmp_path: Path, dask_cluster: Cluster) -> None:
    client = dask_cluster.client
    out = tmp_path / "store"
    client.run(_fail_seed(2))
    try:
        done = sweep(base(), seeds=[1, 2], out=out, client=client, progress=False)
    finally:
        client.run(_restore)
    assert done.counts() == {"runs": 2, "reused": 0, "ran": 1, "rerun": 0, "failed": 1}
    (failure,) = done.failures
    assert failure.job.seed == 2
    assert failure.error is not None
    assert "RuntimeError: injected failure for seed 2" in failure.error
    store = Store.open(out)
    state = store.check(failure.job.scenario_hash, 2, build_id=_build_id(done.outcomes[0]))
    assert state.status == "failed" and "injected failure" in state.reason
    # The next sweep re-runs the failed run only, and now it succeeds.
    again = sweep(base(), seeds=[1, 2], out=out, client=client, progress=False)
    assert again.counts() == {"runs": 2, "reused": 1, "ran": 1, "rerun": 1, "failed": 0}
    assert len(collect(out)) == 2


def test_a_worker_dying_fails_its_run_only(tmp_path: Path, dask_cluster: Cluster) -> None:
    client = dask_cluster.client
    client.run(_exit_on_seed(2))
    try:
        done = sweep(base(), seeds=[1, 2], out=tmp_path / "store", client=client, progress=False)
    finally:
        client.wait_for_workers(2, timeout=60)  # the nanny starts a new worker process
        client.run(_restore)
        dask_cluster.worker_pids |= set(client.run(os.getpid).values())
    assert done.counts() == {"runs": 2, "reused": 0, "ran": 1, "rerun": 0, "failed": 1}
    (failure,) = done.failures
    assert failure.job.seed == 2
    assert failure.error is not None and failure.error.startswith("KilledWorker: ")
    with pytest.warns(UserWarning, match=r"1 run\(s\) not collected: .*seed2 \(failed: Killed"):
        assert len(collect(tmp_path / "store")) == 1


SHORT_SEEDS = range(1, 97)
"""Enough runs for chunks of 3 on two workers (:func:`aqmlab.executor.chunked`): packs."""


def short() -> dict[str, Any]:
    """The small scenario of conftest cut to a fraction of a second."""
    return {**base(), "duration": "0.2s", "warmup": "0s"}


def sweep_short(out: Path, client: Any, **options: Any) -> Any:
    """Sweep :func:`short` over :data:`SHORT_SEEDS` into ``out`` on ``client`` (or locally)."""
    return sweep(short(), seeds=SHORT_SEEDS, out=out, client=client, progress=False, **options)


def test_dask_packs_as_the_local_pool_does(tmp_path: Path, dask_cluster: Cluster) -> None:
    local, dask = tmp_path / "local", tmp_path / "dask"
    sweep_short(local, None, jobs=2)
    done = sweep_short(dask, dask_cluster.client)
    assert done.counts() == {"runs": 96, "reused": 0, "ran": 96, "rerun": 0, "failed": 0}
    names = sorted(p.name for p in (local / "runs").iterdir())
    assert names == sorted(p.name for p in (dask / "runs").iterdir())
    packs = [n for n in names if "-seeds" in n]
    assert len(packs) == 32, names  # 96 runs, 3 a pack
    for pack in packs:
        a, b = local / "runs" / pack, dask / "runs" / pack
        for name in sorted(p.name for p in a.iterdir() if p.suffix == ".parquet"):
            assert (a / name).read_bytes() == (b / name).read_bytes(), f"{pack}/{name}"
        summaries = [[json.loads(line) for line in (d / "summaries.jsonl").read_text().splitlines()]
                     for d in (a, b)]  # fmt: skip
        for run in summaries[0] + summaries[1]:
            del run["meta"]["wall_s"]
        assert summaries[0] == summaries[1]
    frames = [collect(store).drop(columns="meta.wall_s") for store in (local, dask)]
    pd.testing.assert_frame_equal(*frames)
    assert done.outcomes[5].summary is not None
    assert done.outcomes[5].summary["meta"]["seed"] == 6
    again = sweep_short(dask, dask_cluster.client)
    assert again.counts()["reused"] == 96


def test_a_pack_whose_worker_dies_is_made_again_run_by_run(
    tmp_path: Path, dask_cluster: Cluster
) -> None:
    """The worker running the pack that holds seed 40 dies; each of its runs is then made alone.

    (A run alone that kills its worker fails, as :func:`test_a_worker_dying_fails_its_run_only`
    shows. Here only the pack dies, so every run must be made: a worker's death also fails the
    other tasks it held, and those are packs too, made again alike.)
    """
    client = dask_cluster.client
    client.run(_exit_in_pack(40))
    try:
        done = sweep_short(tmp_path / "store", client)
    finally:
        client.wait_for_workers(2, timeout=60)  # the nanny starts a new worker process
        client.run(_restore)
        dask_cluster.worker_pids |= set(client.run(os.getpid).values())
    assert done.counts() == {"runs": 96, "reused": 0, "ran": 96, "rerun": 0, "failed": 0}
    forty = done.outcomes[39]
    assert forty.job.seed == 40 and (forty.directory / "summary.json").is_file()
    assert sorted(collect(tmp_path / "store")["seed"]) == list(SHORT_SEEDS)


def _pack_within(seconds: float) -> Callable[[], None]:
    """A function that sets the workers' :data:`aqmlab.executor.PACK_WITHIN_S`."""

    def patch() -> None:
        import aqmlab.executor as executor

        executor.PACK_WITHIN_S = seconds

    return patch


def test_packs_whose_time_is_up_leave_the_rest_to_runs_alone(
    tmp_path: Path, dask_cluster: Cluster
) -> None:
    """With no time for a second run, each pack holds its first run; the others run alone."""
    client = dask_cluster.client
    client.run(_pack_within(0.0))
    try:
        done = sweep_short(tmp_path / "store", client)
    finally:
        client.run(_pack_within(PACK_WITHIN_S))
    assert done.counts() == {"runs": 96, "reused": 0, "ran": 96, "rerun": 0, "failed": 0}
    names = [p.name for p in (tmp_path / "store" / "runs").iterdir()]
    assert len([n for n in names if "-seeds" in n]) == 32
    assert len([n for n in names if "-seeds" not in n]) == 64
    assert sorted(collect(tmp_path / "store")["seed"]) == list(SHORT_SEEDS)


def test_no_packs_when_asked(tmp_path: Path, dask_cluster: Cluster) -> None:
    done = sweep_short(tmp_path / "store", dask_cluster.client, pack=False)
    assert done.counts()["ran"] == 96
    names = [p.name for p in (tmp_path / "store" / "runs").iterdir()]
    assert len(names) == 96 and not [n for n in names if "-seeds" in n]


def _build_id(outcome: Any) -> str:
    return str(outcome.summary["meta"]["build"]["id"])


def test_unreachable_scheduler_is_an_input_error_within_10_s() -> None:
    started = time.monotonic()
    with pytest.raises(InputError, match=r"^--scheduler: cannot reach a Dask scheduler") as err:
        connect("tcp://127.0.0.1:9")  # the discard port: nothing listens there
    elapsed = time.monotonic() - started
    assert err.value.path == "--scheduler"
    assert "tcp://127.0.0.1:9" in str(err.value)
    assert elapsed < 15, f"took {elapsed:.1f} s"


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.NoSuchProcess:
        return "resource_tracker (gone)"


def test_cluster_closes_without_leftovers(dask_cluster: Cluster) -> None:
    """Last: close the client and the cluster; no worker process or client thread is left."""
    dask_cluster.close()
    assert dask_cluster.client.status == "closed"
    assert dask_cluster.cluster.status.name == "closed"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(map(_alive, dask_cluster.worker_pids)):
        time.sleep(0.1)
    assert not [p for p in dask_cluster.worker_pids if _alive(p)]
    # Children started since the cluster: only multiprocessing's resource tracker may remain.
    new = [p for p in psutil.Process().children(recursive=True)
           if p.pid not in dask_cluster.children_before and _alive(p.pid)]  # fmt: skip
    assert not [p for p in new if "resource_tracker" not in _cmdline(p)], new
    assert dask_cluster.loop_threads
    for thread in dask_cluster.loop_threads:
        thread.join(timeout=5)
        assert not thread.is_alive(), thread
