"""Packs: a sweep's short runs stored together, read back as the runs they are.

A pack holds several runs of one scenario in one set of files (``aqmlab.store``). Nothing a user
reads may tell a packed run from a run directory: :func:`aqmlab.collect` gives the same frames,
:func:`aqmlab.load` the same run, and a damaged pack or one made by another build is run again as
a run directory would be.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aqmlab
import pandas as pd
import pytest
from aqmlab import executor, sweeps
from aqmlab.errors import ScenarioError, StoreError
from aqmlab.executor import LocalExecutor
from aqmlab.reading import collect, load
from aqmlab.runner import run_pack, run_prepared
from aqmlab.scenario import as_scenario, resolve, scenario_hash
from aqmlab.store import MANIFEST, PACK_FORMAT, RUN_INDEX, Store
from conftest import base, cli

SEEDS = list(range(1, 41))
"""Enough runs that one worker is handed them in chunks of two or more: packs form."""
TABLES = ("queue", "link", "flows", "hops", "connections", "tcp_trace", "requests")
MOVING = ("meta.wall_s", "meta.provenance")
"""What differs between two runs of the same scenario and seed: the wall time, the command."""


def scenario() -> dict[str, Any]:
    """The small scenario, one second long: a run takes about a millisecond."""
    return {**base(), "duration": "1s", "warmup": "0s"}


def sweep_into(out: Path, *, pack: bool, seeds: list[int] = SEEDS) -> sweeps.SweepResult:
    chosen = aqmlab.Sweep.from_options(scenario(), {"queue.limit": ["10p", "30p"]}, seeds=seeds)
    bar = executor.BatchProgress("test", enabled=False)
    with bar:
        return sweeps.run_sweep(chosen, out, executor=LocalExecutor(1, pack=pack), bar=bar)


def steady(frame: pd.DataFrame) -> pd.DataFrame:
    """A collected frame without the columns that differ between two makings of a run."""
    return frame.drop(columns=[c for c in frame.columns if c.startswith(MOVING)])


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("packs")
    sweep_into(root / "packed", pack=True)
    sweep_into(root / "alone", pack=False)
    return root / "packed", root / "alone"


def test_a_sweep_of_short_runs_writes_packs(stores: tuple[Path, Path]) -> None:
    packed, alone = stores
    names = sorted(p.name for p in (packed / "runs").iterdir())
    assert names and all("-seeds" in name for name in names), names
    manifest = json.loads((packed / "runs" / names[0] / MANIFEST).read_text())
    assert manifest["format"] == PACK_FORMAT and len(manifest["seeds"]) >= 2
    assert len(list((alone / "runs").iterdir())) == 2 * len(SEEDS)


def test_collect_reads_packed_runs_as_run_directories(stores: tuple[Path, Path]) -> None:
    packed, alone = stores
    pd.testing.assert_frame_equal(steady(collect(packed)), steady(collect(alone)))
    for table in TABLES:
        pd.testing.assert_frame_equal(collect(packed, table), collect(alone, table), obj=table)


def test_collect_pushes_columns_and_filters_down_to_a_pack(stores: tuple[Path, Path]) -> None:
    import pyarrow.dataset as ds

    packed, alone = stores
    asked = {"columns": ["t_s", "drops_pkts"], "filter": ds.field("drops_pkts") > 0}
    got = collect(packed, "queue", **asked)
    assert RUN_INDEX not in got.columns and len(got) > 0
    pd.testing.assert_frame_equal(got, collect(alone, "queue", **asked))
    with pytest.raises(aqmlab.errors.InputError, match='no column "run_index"'):
        collect(packed, "queue", columns=[RUN_INDEX])


def test_load_finds_a_packed_run_by_its_run_directorys_name(stores: tuple[Path, Path]) -> None:
    packed, alone = stores
    name = next(p.name for p in (alone / "runs").iterdir())
    assert not (packed / "runs" / name).exists()
    one, other = load(packed / "runs" / name), load(alone / "runs" / name)
    assert one.summary["forward"] == other.summary["forward"]
    assert one.seed == other.seed
    for table in TABLES:
        pd.testing.assert_frame_equal(getattr(one, table), getattr(other, table), obj=table)


def test_a_pack_is_not_loaded_as_one_run(stores: tuple[Path, Path]) -> None:
    packed, _ = stores
    pack = next((packed / "runs").iterdir())
    with pytest.raises(StoreError, match=r"is a pack of \d+ runs, not a run directory: load one"):
        load(pack)
    missing = pack.parent / f"{pack.name.split('-seeds')[0]}-seed999"
    with pytest.raises(StoreError, match="no such run in the store"):
        load(missing)


def test_a_packed_run_is_the_run_made_alone() -> None:
    plain = as_scenario(scenario())
    made = run_pack(plain, [3, 7])
    assert made.seeds == [3, 7] and made.failures == []
    alone = run_prepared(plain, 7)
    packed = json.loads(made.summaries[1])
    moving = ("wall_s", "provenance")
    assert {k: v for k, v in packed["meta"].items() if k not in moving} == {
        k: v for k, v in alone.summary["meta"].items() if k not in moving
    }
    assert {k: v for k, v in packed.items() if k != "meta"} == {
        k: v for k, v in alone.summary.items() if k != "meta"
    }
    assert list(packed["meta"]) == list(alone.summary["meta"])
    lines = made.files["summaries.jsonl"].decode().splitlines()
    assert lines == made.summaries
    assert [json.loads(line)["meta"]["seed"] for line in lines] == [3, 7]


def test_a_second_sweep_reuses_every_packed_run(tmp_path: Path) -> None:
    sweep_into(tmp_path, pack=True)
    again = sweep_into(tmp_path, pack=True)
    assert again.counts()["reused"] == 2 * len(SEEDS)


def test_a_damaged_pack_is_run_again(tmp_path: Path) -> None:
    sweep_into(tmp_path, pack=True)
    pack = sorted((tmp_path / "runs").iterdir())[0]
    seeds = json.loads((pack / MANIFEST).read_text())["seeds"]
    table = pack / "queue.parquet"
    table.write_bytes(table.read_bytes()[:-8] + b"damaged!")
    again = sweep_into(tmp_path, pack=True)
    reruns = [o for o in again.outcomes if o.rerun is not None]
    assert sorted(o.job.seed for o in reruns) == sorted(seeds)
    assert all(o.rerun.startswith("damaged (queue.parquet does not match") for o in reruns)
    assert sweep_into(tmp_path, pack=True).counts()["reused"] == 2 * len(SEEDS)


def test_a_pack_of_another_build_is_run_again(tmp_path: Path) -> None:
    sweep_into(tmp_path, pack=True)
    for pack in (tmp_path / "runs").iterdir():
        manifest = json.loads((pack / MANIFEST).read_text())
        (pack / MANIFEST).write_text(json.dumps({**manifest, "build_id": "0" * 16}))
    again = sweep_into(tmp_path, pack=True)
    assert again.counts()["rerun"] == 2 * len(SEEDS)
    assert {o.rerun.split(" (")[0] for o in again.outcomes} == {"made by another engine build"}
    # The new packs are the ones that count now (the old ones were replaced, name for name).
    assert sweep_into(tmp_path, pack=True).counts()["reused"] == 2 * len(SEEDS)


def test_the_best_copy_of_a_run_counts(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s", create=True)
    digest = "ab" * 32
    store.write(digest, 2, {"summary.json": b"{}"}, build_id="old")
    assert store.check(digest, 2, build_id="new").status == "other-build"
    store.write_pack(digest, [1, 2], {"summaries.jsonl": b"{}\n{}\n"}, build_id="new")
    store.refresh()
    state = store.check(digest, 2, build_id="new")
    where = store.pack_dir(digest, [1, 2])
    assert (state.status, state.pack, state.position) == ("finished", where, 1)
    assert store.check(digest, 3, build_id="new").status == "missing"


def test_a_pack_summary_must_be_its_runs(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "s", create=True)
    digest = "ab" * 32
    store.write_pack(digest, [4, 5], {"summaries.jsonl": b'{"meta":{"seed":5}}\n'}, build_id="b")
    state = store.check(digest, 4, build_id="b")
    with pytest.raises(StoreError, match="line 1: not the summary of the run of seed 4"):
        store.summary(digest, 4, state)
    with pytest.raises(StoreError, match="line 2: not a valid run summary"):
        store.summary(digest, 5, store.check(digest, 5, build_id="b"))


def test_a_pack_that_cannot_run_stores_each_run_as_failed(tmp_path: Path) -> None:
    limited = {**scenario(), "limits": {"max_events": 10}}
    plain = as_scenario(limited)
    digest = scenario_hash(resolve(plain))
    made = run_pack(plain, [1, 2, 3])
    assert made.seeds == [] and made.files == {}
    assert [(seed, type(err)) for seed, err in made.failures] == [
        (seed, ScenarioError) for seed in (1, 2, 3)
    ]
    store = Store.open(tmp_path / "s", create=True)
    jobs = [(i, plain, seed, digest) for i, seed in enumerate([1, 2, 3])]
    ended = executor._local_chunk(jobs, str(store.root), executor.current_build_id(), True)
    assert [status for _, status, _, _ in ended] == ["failed"] * 3
    assert "limits.max_events" in str(ended[0][3])
    assert store.check(digest, 2, build_id=executor.current_build_id()).status == "failed"


def test_a_capturing_scenario_is_never_packed() -> None:
    with pytest.raises(ScenarioError, match="a pack of runs writes no packet traces"):
        run_pack(as_scenario({**scenario(), "capture": {"links": ["forward"]}}), [1, 2])


def test_a_packed_run_is_plotted_by_its_run_directorys_name(
    stores: tuple[Path, Path], tmp_path: Path
) -> None:
    from aqmlab.plot import plot_runs

    packed, alone = stores
    name = next(p.name for p in (alone / "runs").iterdir())
    drawn = plot_runs(packed / "runs" / name, "queue", tmp_path / "q", formats="svg")
    assert [p.name for p in drawn] == ["q.svg"]


def test_no_pack_gives_every_run_a_directory(tmp_path: Path) -> None:
    scenario_file = tmp_path / "tiny.json"
    scenario_file.write_text(json.dumps(scenario()))
    for option, packs in (("--pack", True), ("--no-pack", False)):
        out = tmp_path / option
        proc = cli("sweep", scenario_file, "--seeds", "1-40", "-j", "1", option, "--out", out,
                   cwd=tmp_path)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        names = [p.name for p in (out / "runs").iterdir()]
        assert any("-seeds" in n for n in names) is packs
        assert len(collect(out)) == 40


def test_a_run_made_again_into_a_pack_leaves_no_older_directory(tmp_path: Path) -> None:
    sweep_into(tmp_path, pack=False)
    for run in (tmp_path / "runs").iterdir():
        manifest = json.loads((run / MANIFEST).read_text())
        (run / MANIFEST).write_text(json.dumps({**manifest, "build_id": "0" * 16}))
    assert sweep_into(tmp_path, pack=True).counts()["rerun"] == 2 * len(SEEDS)
    assert all("-seeds" in p.name for p in (tmp_path / "runs").iterdir())
    frame = collect(tmp_path)
    assert len(frame) == 2 * len(SEEDS)
    assert set(frame["meta.build.id"]) == {executor.current_build_id()}


def test_readers_prefer_the_copy_this_build_made(tmp_path: Path) -> None:
    sweep_into(tmp_path, pack=True)
    for pack in (tmp_path / "runs").iterdir():
        manifest = json.loads((pack / MANIFEST).read_text())
        (pack / MANIFEST).write_text(json.dumps({**manifest, "build_id": "0" * 16}))
    assert len(collect(tmp_path)) == 2 * len(SEEDS)  # another build's runs are read
    sweep_into(tmp_path, pack=False)  # this build's, a directory each, beside the old packs
    store = Store.open(tmp_path)
    point = json.loads((tmp_path / "sweeps" / "sweep.json").read_text())["points"][0]
    state = store.check(point["scenario_hash"], SEEDS[0], build_id=executor.current_build_id())
    assert (state.status, state.pack) == ("finished", None)
    name = store.run_dir(point["scenario_hash"], SEEDS[0]).name
    assert load(tmp_path / "runs" / name).summary["meta"]["seed"] == SEEDS[0]


def test_a_chunk_of_long_runs_is_stored_a_directory_each(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk whose first run alone takes the pack's time is of long runs (here: any run)."""
    monkeypatch.setattr(executor, "PACK_WITHIN_S", 0.0)
    plain = as_scenario(scenario())
    digest = scenario_hash(resolve(plain))
    store = Store.open(tmp_path / "s", create=True)
    jobs = [(i, plain, seed, digest) for i, seed in enumerate([1, 2, 3])]
    ended = executor._local_chunk(jobs, str(store.root), executor.current_build_id(), True)
    assert [(i, status) for i, status, _, _ in ended] == [(0, "ran"), (1, "ran"), (2, "ran")]
    names = sorted(p.name for p in store.runs.iterdir())
    assert names == sorted([store.pack_dir(digest, [1]).name,
                            store.run_dir(digest, 2).name, store.run_dir(digest, 3).name])


def test_a_pack_is_never_replaced_as_a_run_directory(stores: tuple[Path, Path]) -> None:
    from aqmlab.store import check_output_dir

    packed, _ = stores
    pack = next((packed / "runs").iterdir())
    with pytest.raises(StoreError, match="is a directory that is not a run directory"):
        check_output_dir(pack, replace=True)


def test_a_packed_run_is_found_from_inside_the_runs_folder(
    stores: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    packed, alone = stores
    name = next(p.name for p in (alone / "runs").iterdir())
    monkeypatch.chdir(packed / "runs")
    assert load(name).summary["meta"]["seed"] == int(name.rsplit("seed", 1)[1])
    with pytest.raises(StoreError, match="no manifest.json"):
        load(name.replace("seed", "seed0"))  # not a run's name: seeds are written without zeros


def test_a_pack_whose_table_holds_other_seeds_is_refused(stores: tuple[Path, Path]) -> None:
    from aqmlab.reading import _pack_rows

    packed, _ = stores
    pack = next((packed / "runs").iterdir())
    manifest = json.loads((pack / MANIFEST).read_text())
    state = Store.open(packed).check(manifest["scenario_hash"], manifest["seeds"][0],
                                     build_id=None)  # fmt: skip
    assert len(_pack_rows(state, pack / "link.parquet")) > 0
    other = state._replace(manifest={**manifest, "seeds": manifest["seeds"][::-1]})
    with pytest.raises(StoreError, match="does not hold the seeds its pack's manifest lists"):
        _pack_rows(other, pack / "link.parquet")


def test_a_packed_run_is_run_again_from_its_name(stores: tuple[Path, Path], tmp_path: Path) -> None:
    packed, alone = stores
    name = next(p.name for p in (alone / "runs").iterdir())
    proc = cli("run", packed / "runs" / name, "--out", tmp_path / "again", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    again, before = load(tmp_path / "again"), load(alone / "runs" / name)
    assert again.summary["forward"] == before.summary["forward"]
    missing = packed / "runs" / f"{name.split('-seed')[0]}-seed999"
    proc = cli("run", missing, "--out", tmp_path / "none", cwd=tmp_path)
    assert proc.returncode == 2 and "no such run in the store" in proc.stderr
