"""Reading runs back: ``aqmlab.load`` (one run) and ``aqmlab.collect`` / ``aqmlab collect``."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import warnings
from pathlib import Path

import aqmlab
import pandas as pd
import pyarrow.dataset as ds
import pytest
from aqmlab.cli import app
from aqmlab.errors import InputError, StoreError
from aqmlab.store import MANIFEST, Store
from conftest import BASE_TOML, base, cli
from typer.testing import CliRunner

TABLES = ("queue", "link", "flows", "connections", "tcp_trace", "requests")
VARY = {"queue.limit": ["10p", "40p"], "traffic[web].flows": [2, 3]}


def _scenario() -> dict[str, object]:
    chosen = base()
    chosen["duration"] = "1s"
    return chosen


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """2 × 2 points × 2 seeds, from Python."""
    out = tmp_path_factory.mktemp("collect") / "store"
    done = aqmlab.sweep(_scenario(), vary=VARY, seeds=[1, 2], out=out, jobs=2, progress=False)
    assert done.counts() == {"runs": 8, "reused": 0, "ran": 8, "rerun": 0, "failed": 0}
    return out


# --- load ----------------------------------------------------------------------------------------
def _same_result(loaded: aqmlab.Result, ran: aqmlab.Result, *, wall: bool) -> None:
    """The same run; ``wall=False``: made at another time, by another command (``aqmlab run``)."""
    a, b = json.loads(json.dumps(loaded.summary)), json.loads(json.dumps(ran.summary))
    if not wall:
        for summary in (a, b):
            del summary["meta"]["wall_s"], summary["meta"]["provenance"]["command"]
    assert a == b
    assert loaded.table_names == ran.table_names
    assert set(TABLES) <= set(ran.table_names)
    for name in ran.table_names:
        pd.testing.assert_frame_equal(loaded.table(name), ran.table(name), obj=name)


def test_load_gives_back_the_result_that_run_gave(tmp_path: Path) -> None:
    ran = aqmlab.run(base(), seed=4)
    loaded = aqmlab.load(ran.save(tmp_path / "run"))
    _same_result(loaded, ran, wall=True)
    assert (loaded.seed, loaded.scenario_hash) == (4, ran.scenario_hash)


def test_load_of_a_stored_run_and_of_aqmlab_run_out(store: Path, tmp_path: Path) -> None:
    scenario = _scenario()
    scenario["queue"]["limit"] = "40p"
    scenario["traffic"][0]["flows"] = 3
    ran = aqmlab.run(scenario, seed=2)
    stored = Store.open(store).run_dir(ran.scenario_hash, 2)
    _same_result(aqmlab.load(stored), ran, wall=False)

    (tmp_path / "tiny.toml").write_text(BASE_TOML)
    proc = cli("run", "tiny.toml", "--seed", "3", "--out", "cli-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    _same_result(aqmlab.load(tmp_path / "cli-run"), aqmlab.run(base(), seed=3), wall=False)


def test_load_refuses_a_damaged_or_failed_run(tmp_path: Path) -> None:
    run = aqmlab.run(base(), seed=1).save(tmp_path / "run")
    with pytest.raises(StoreError, match="no manifest.json"):
        aqmlab.load(tmp_path)
    with pytest.raises(StoreError, match="no manifest.json"):
        aqmlab.load(tmp_path / "missing")
    damaged = shutil.copytree(run, tmp_path / "truncated")
    path = damaged / "flows.parquet"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(StoreError, match=r"truncated: flows.parquet has \d+ bytes, the manifest"):
        aqmlab.load(damaged)
    edited = shutil.copytree(run, tmp_path / "edited")
    (edited / "summary.json").write_text((edited / "summary.json").read_text().replace("1", "2"))
    with pytest.raises(StoreError, match="summary.json"):
        aqmlab.load(edited)
    (run / MANIFEST).unlink()
    with pytest.raises(StoreError, match="not a finished run directory"):
        aqmlab.load(run)
    failed = Store.open(tmp_path / "s", create=True)
    directory = failed.write("ab" * 32, 1, {"error.json": b"{}"}, build_id="b", status="failed",
                             error="RuntimeError: boom")  # fmt: skip
    with pytest.raises(StoreError, match="the run failed: RuntimeError: boom"):
        aqmlab.load(directory)


# --- collect -------------------------------------------------------------------------------------
def test_collect_summary_has_the_axes_and_the_seed(store: Path) -> None:
    frame = aqmlab.collect(store)
    assert len(frame) == 8
    assert list(frame.columns[:7]) == ["queue.limit", "traffic[web].flows", "sweep", "point",
                                       "seed", "scenario_hash", "run"]  # fmt: skip
    assert sorted(set(zip(frame["queue.limit"], frame["traffic[web].flows"], frame["seed"],
                          strict=True))) == sorted(
        (q, f, s) for q in ("10p", "40p") for f in (2, 3) for s in (1, 2)
    )  # fmt: skip
    assert "meta.scenario" not in frame.columns
    assert {"forward.drop_rate", "forward.utilization", "meta.events"} <= set(frame.columns)
    picked = aqmlab.collect(store, columns=["forward.drop_rate"])
    assert list(picked.columns) == [*frame.columns[:7], "forward.drop_rate"]
    with pytest.raises(InputError, match='no column "nope" in the summary table'):
        aqmlab.collect(store, columns=["nope"])


def test_collect_a_table_keeps_its_rows_and_types(store: Path) -> None:
    flows = aqmlab.collect(store, "flows")
    runs = flows.groupby("run", observed=True)
    assert len(runs) == 8
    assert (runs.size() == runs["traffic[web].flows"].first()).all()  # one row per UDP flow
    one = aqmlab.load(Store.open(store).run_dir(flows["scenario_hash"].iloc[0], 1)).flows
    assert flows["recv_pkts"].dtype == one["recv_pkts"].dtype
    filtered = aqmlab.collect(store, "flows", columns=["recv_pkts"],
                              filter=ds.field("recv_pkts") > 0)  # fmt: skip
    assert list(filtered.columns)[-1] == "recv_pkts" and len(filtered) == len(flows)
    with pytest.raises(InputError, match='no column "nope" in the flows table'):
        aqmlab.collect(store, "flows", columns=["nope"])
    with pytest.raises(StoreError, match="no such table"):
        aqmlab.collect(store, "nope")


def test_collect_leaves_out_a_damaged_run_with_a_warning(store: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(store, tmp_path / "store")
    victim = sorted((copy / "runs").iterdir())[0]
    (victim / "link.parquet").write_bytes(b"")
    with pytest.warns(UserWarning, match=rf"1 run\(s\) not collected: {victim.name} \(damaged"):
        assert len(aqmlab.collect(copy)) == 7
    with pytest.raises(StoreError, match="1 run"):
        aqmlab.collect(copy, missing="error")


def test_an_old_summary_column_name_is_read_as_its_new_one(store: Path, tmp_path: Path) -> None:
    """``bottleneck.*`` (the summary's R1 → R2 section until 0.2) is ``forward.*`` until 0.3."""
    new = aqmlab.collect(store, columns=["forward.drop_rate"])
    with pytest.warns(DeprecationWarning, match='"bottleneck.drop_rate" is now "forward.drop'):
        old = aqmlab.collect(store, columns=["bottleneck.drop_rate", "requests.count"])
    pd.testing.assert_frame_equal(old.drop(columns="requests.count"), new)
    with contextlib.chdir(tmp_path):  # in this process: no start-up time
        result = CliRunner().invoke(app, ["collect", str(store), "--columns",
                                          "bottleneck.utilization"])  # fmt: skip
    assert result.exit_code == 0, result.exception
    assert result.stderr.splitlines() == ['warning: summary column "bottleneck.utilization" is now '
                                          '"forward.utilization"; the old name is accepted until '
                                          "aqmlab 0.3"]  # fmt: skip
    assert pd.read_csv(io.StringIO(result.stdout)).columns[-1] == "forward.utilization"


def test_old_column_names_of_any_table_are_read_as_their_new_ones(store: Path,
                                                                  tmp_path: Path) -> None:
    """The queue table's ``drops`` is ``drops_pkts``; a summary key is renamed in its section."""
    new = aqmlab.collect(store, "queue", columns=["drops_pkts", "marks_bytes"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = aqmlab.collect(store, "queue", columns=["drops", "mark_bytes"])
        summary = aqmlab.collect(store, columns=["bottleneck.dropped_bytes", "meta.peak_packets"])
    pd.testing.assert_frame_equal(old, new)
    assert set(summary.columns[-2:]) == {"forward.drops_bytes", "meta.peak_pkts"}
    assert [(w.category, str(w.message).partition(";")[0]) for w in caught] == [
        (DeprecationWarning, 'queue column "drops" is now "drops_pkts"'),
        (DeprecationWarning, 'queue column "mark_bytes" is now "marks_bytes"'),
        (DeprecationWarning, 'summary column "bottleneck.dropped_bytes" is now '
                             '"forward.drops_bytes"'),
        (DeprecationWarning, 'summary column "meta.peak_packets" is now "meta.peak_pkts"'),
    ]  # fmt: skip
    assert {w.filename for w in caught} == {__file__}  # the warning names the caller's line
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(app, ["collect", str(store), "--table", "queue", "--columns",
                                          "arrivals,departures_pkts"])  # fmt: skip
    assert result.exit_code == 0, result.exception
    assert result.stderr.splitlines() == ['warning: queue column "arrivals" is now '
                                          '"arrivals_pkts"; the old name is accepted until '
                                          "aqmlab 0.3"]  # fmt: skip
    assert list(pd.read_csv(io.StringIO(result.stdout)).columns[-2:]) == ["arrivals_pkts",
                                                                          "departures_pkts"]


def test_the_renames_lead_from_names_gone_to_names_the_engine_reports() -> None:
    """Every old name of :data:`aqmlab.reading.RENAMED` is gone and its new one is there."""
    from aqmlab.reading import RENAMED, SUMMARY, flatten
    from aqmlab.result import schema

    result = aqmlab.run(_scenario(), seed=1)
    parts = {p for name in flatten(result.summary) for p in name.split(".")}
    tables = {name: {c["name"] for c in columns} for name, columns in schema().items()}
    for table, renames in RENAMED.items():
        have = parts if table == SUMMARY else tables[table]
        assert not set(renames) & have, table
        assert set(renames.values()) <= have, table


def test_collect_on_the_command_line(store: Path, tmp_path: Path) -> None:
    proc = cli("collect", store, "--table", "flows", "--columns", "recv_pkts,loss_rate",
               "--labels", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    frame = pd.read_csv(io.StringIO(proc.stdout))
    assert list(frame.columns) == ["queue.limit", "traffic[web].flows", "sweep", "point", "seed",
                                   "scenario_hash", "run", "recv_pkts", "loss_rate"]  # fmt: skip
    assert len(frame) == len(aqmlab.collect(store, "flows"))
    proc = cli("collect", store, "--sweep", "sweep", "--out", "out/summary.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    written = pd.read_csv(tmp_path / "out" / "summary.csv")
    assert len(written) == 8 and "forward.utilization" in written.columns
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["summary.csv"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--table", "nope"], 'error: --table: unknown table "nope" (tables: summary, requests, '
                              "flows, hops, queue, link, connections, tcp_trace)"),
        (["--out", "x.xlsx"], 'error: --out: expected a file name ending in .csv or .parquet'),
        (["--sweep", "nope"], 'no sweep "nope" (sweeps: sweep)'),
        (["--table", "flows", "--columns", "nope"], 'error: columns: no column "nope"'),
    ],
    ids=["unknown-table", "unknown-suffix", "unknown-sweep", "unknown-column"],
)  # fmt: skip
def test_collect_rejects_bad_options(
    store: Path, tmp_path: Path, args: list[str], expected: str
) -> None:
    with contextlib.chdir(tmp_path):  # in this process: no start-up time
        result = CliRunner().invoke(app, ["collect", str(store), *args])
    assert result.exit_code == 2, result.exception
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert expected in line
    assert list(tmp_path.iterdir()) == []
