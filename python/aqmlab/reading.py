"""Reading a run store back: :func:`load` (one run) and :func:`collect` (one tidy DataFrame).

``collect(store, table="summary")`` gives one row per run: the sweep's axis values, the seed, and
every number of ``summary.json`` flattened to a column (``forward.drop_rate``,
``requests.median_s``, ``meta.events``, …; the resolved scenario and the provenance are left
out — they are in each run's ``summary.json``). Any other table (``requests``, ``flows``,
``queue``, ``link``, ``connections``, ``tcp_trace``) gives its rows, each with the axis values
and the seed of its run.
Tables are read through pyarrow datasets, one run at a time, with the ``columns`` and ``filter``
you give pushed down to the Parquet reader, so a large table from a big store is never loaded
whole to be cut down afterwards.

Every run is checked against its manifest before it is read; a run that is missing, failed or
damaged is left out with a warning (``missing="warn"``), or raises (``missing="error"``).
"""

from __future__ import annotations

import json
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.dataset as ds

from aqmlab import args
from aqmlab.errors import InputError, StoreError, shown
from aqmlab.executor import current_build_id
from aqmlab.result import CAPTURE_SUFFIX, Result
from aqmlab.store import (
    MARKER,
    PACK_FORMAT,
    READABLE,
    RUN_INDEX,
    RunState,
    Store,
    names_a_packed_run,
    packed_run,
    read_json,
    read_manifest,
    sweep_name,
)

SUMMARY = "summary"
RENAMED: dict[str, dict[str, str]] = {
    SUMMARY: {
        "bottleneck": "forward",
        "dropped_bytes": "drops_bytes",
        "dropped_bytes_by_reason": "drops_bytes_by_reason",
        "marked_bytes": "marks_bytes",
        "marked_bytes_by_reason": "marks_bytes_by_reason",
        "drops_by_reason": "drops_pkts_by_reason",
        "marks_by_reason": "marks_pkts_by_reason",
        "peak_packets": "peak_pkts",
    },
    "queue": {
        "arrivals": "arrivals_pkts",
        "drops": "drops_pkts",
        "drop_bytes": "drops_bytes",
        "marks": "marks_pkts",
        "mark_bytes": "marks_bytes",
        "departures": "departures_pkts",
    },
    "connections": {"pkts_sent": "sent_pkts", "pkts_dropped": "dropped_pkts"},
}
"""Names changed (old → new) per table, the one list of renames (``docs/scenario.md``, "Names").

An old name is read as its new one until aqmlab 0.3 (:func:`current_name`). A summary column is
looked up part by part: a section (``bottleneck``), a key (``dropped_bytes``) or both.
"""
RUN_COLUMNS = ("sweep", "point", "seed", "scenario_hash", "run")
"""Columns every collected table starts with after the axis columns."""


def load(run_dir: str | Path) -> Result:
    """Read a finished run directory into the :class:`aqmlab.Result` that :func:`aqmlab.run` gave.

    The manifest must verify (:class:`aqmlab.errors.StoreError` otherwise: a damaged or partial
    directory is never read).

    >>> import tempfile, aqmlab
    >>> res = aqmlab.run({"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...                   "traffic": [{"kind": "cbr", "rate": "1Mbps"}]}, seed=2)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     again = load(res.save(Path(tmp) / "run"))
    >>> again.summary == res.summary, again.flows.equals(res.flows)
    (True, True)
    """
    directory = args.path("run_dir", run_dir)
    if names_a_packed_run(directory):
        return _load_packed(directory)
    manifest = read_manifest(directory)
    if manifest.get("format") == PACK_FORMAT:
        one = directory.parent / f"{directory.name.split('-seeds')[0]}-seed<seed>"
        runs = len(manifest["seeds"])
        raise StoreError(str(directory), f"is a pack of {runs} runs, not a run directory: load "
                         f"one run of it as {one}")  # fmt: skip
    if manifest.get("status") != "finished":
        raise StoreError(str(directory), f"the run failed: {manifest.get('error', '')}")
    summary = read_json(directory / "summary.json", "run summary")
    tables = {
        entry["name"][: -len(".parquet")]: _read_table(directory / entry["name"])
        for entry in manifest["files"]
        if entry["name"].endswith(".parquet")
    }
    has_captures = any(entry["name"].endswith(CAPTURE_SUFFIX) for entry in manifest["files"])
    return Result(summary, tables, captures=directory if has_captures else None)


def _load_packed(directory: Path) -> Result:
    """Read a run of a store that is not a directory of its own but in a pack."""
    store, state, summary = packed_run(directory, build_id=current_build_id())
    assert state.pack is not None  # packed_run says so
    tables = {
        entry["name"][: -len(".parquet")]: _pack_rows(state, state.pack / entry["name"])
        for entry in (state.manifest or {}).get("files", [])
        if entry["name"].endswith(".parquet")
    }
    return Result(summary, tables)


def _pack_rows(state: RunState, path: Path, table: pa.Table | None = None) -> pa.Table:
    """Return one packed run's rows of a pack's table (read from ``path`` unless given).

    The table must hold the pack's seeds (its ``aqmlab.seeds`` metadata): a pack replaced
    while it is read is an error, never another run's rows.
    """
    data = _read_table(path) if table is None else table
    written = (data.schema.metadata or {}).get(b"aqmlab.seeds", b"")
    if json.loads(written or b"null") != (state.manifest or {}).get("seeds"):
        raise StoreError(str(path), "does not hold the seeds its pack's manifest lists (the pack "
                         "was replaced while it was read?)")  # fmt: skip
    return _run_rows(data, state.position)


def _run_rows(table: pa.Table, position: int) -> pa.Table:
    """Return the rows of one run of a pack's table, as the run's own table would hold them.

    The ``run_index`` column is left out, and each string column's dictionary is the run's
    own: its strings in the order they first appear (the pack's holds every run's).

    >>> t = pa.table({"run_index": [0, 1, 1], "x": [5, 6, 7],
    ...               "who": pa.array(["a", "c", "b"]).dictionary_encode()})
    >>> rows = _run_rows(t, 1)
    >>> rows["x"].to_pylist(), rows["who"].combine_chunks().dictionary.to_pylist()
    ([6, 7], ['c', 'b'])
    """
    import pyarrow.compute as pc

    rows = table.filter(pc.equal(table[RUN_INDEX], position)).drop_columns([RUN_INDEX])
    for i, field in enumerate(rows.schema):
        if pa.types.is_dictionary(field.type):
            own = pc.dictionary_encode(rows.column(i).cast(field.type.value_type))
            rows = rows.set_column(i, field.with_type(own.type), own)
    return rows


def _read_table(
    path: Path, columns: Sequence[str] | None = None, filter: ds.Expression | None = None
) -> pa.Table:
    """Read a run's Parquet table; :class:`StoreError` naming the file if it cannot be read.

    Arrow's message says why: a damaged file, or a ``filter`` naming a column it does not have.
    A pack's table is read with its ``run_index`` column, whatever ``columns`` asks for.
    """
    try:
        dataset = ds.dataset(path)
        names = dataset.schema.names
        packed = bool(names) and names[0] == RUN_INDEX
        _check_columns(columns, names[1:] if packed else names, path.stem)
        wanted = [RUN_INDEX, *columns] if columns and packed else columns
        return dataset.to_table(columns=list(wanted) if wanted else None, filter=filter)
    except (pa.ArrowException, OSError) as err:
        raise StoreError(str(path), f"cannot read the table ({shown(err)})") from None


def flatten(summary: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Flatten a summary's nested sections to ``section.key`` columns; lists become JSON text.

    >>> flatten({"meta": {"seed": 1, "scenario": {"x": 1}, "provenance": {"command": "aqmlab"}},
    ...          "checks": {"violations": []},
    ...          "forward": {"drops_pkts_by_reason": {"early": 2}}})
    {'meta.seed': 1, 'checks.violations': '[]', 'forward.drops_pkts_by_reason.early': 2}
    """
    out: dict[str, Any] = {}
    for key, value in summary.items():
        name = f"{prefix}{key}"
        if name in ("meta.scenario", "meta.provenance"):
            continue
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, list):
            out[name] = json.dumps(value)
        else:
            out[name] = value
    return out


def current_name(column: str, table: str = SUMMARY) -> str:
    """Return a column's current name: an old one (:data:`RENAMED`) becomes its new one, warned.

    An old name is accepted until aqmlab 0.3 and raises a :class:`DeprecationWarning` naming the
    new one. In the summary each dotted part is renamed on its own (``bottleneck.dropped_bytes``
    is ``forward.drops_bytes``).

    >>> current_name("requests.p90_s"), current_name("drops_pkts", "queue")
    ('requests.p90_s', 'drops_pkts')
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     current_name("bottleneck.drop_rate"), str(caught[0].message)
    ('forward.drop_rate', 'summary column "bottleneck.drop_rate" is now "forward.drop_rate"; the \
old name is accepted until aqmlab 0.3')
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     current_name("drops", "queue"), current_name("forward.drops_by_reason.early")
    ('drops_pkts', 'forward.drops_pkts_by_reason.early')
    """
    renames = RENAMED.get(table, {})
    parts = column.split(".") if table == SUMMARY else [column]
    renamed = ".".join(renames.get(part, part) for part in parts)
    if renamed != column:
        warnings.warn(f'{table} column "{column}" is now "{renamed}"; the old name is accepted '
                      "until aqmlab 0.3", DeprecationWarning, stacklevel=3)  # fmt: skip
    return renamed


def _is_sweep_index(index: Mapping[str, Any]) -> bool:
    """Tell whether a sweep index has the shape collecting reads (points, seeds, axes)."""
    points, seeds, axes = index.get("points"), index.get("seeds"), index.get("axes")
    return (
        isinstance(points, list)
        and all(
            isinstance(p, dict)
            and isinstance(p.get("index"), int)
            and isinstance(p.get("values"), dict)
            and isinstance(p.get("labels"), dict)
            and isinstance(p.get("scenario_hash"), str)
            and re.fullmatch("[0-9a-f]{64}", p["scenario_hash"]) is not None
            for p in points
        )
        and isinstance(seeds, list)
        and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in seeds)
        and isinstance(axes, list)
        and all(isinstance(a, dict) and isinstance(a.get("name"), str) for a in axes)
    )


def _runs(store: Store, sweep: str | None) -> list[dict[str, Any]]:
    """Every run of the chosen sweeps: its axis values, seed, hash, directory."""
    names = [sweep_name(sweep, "--sweep")] if sweep is not None else store.sweep_names()
    runs = []
    for name in names:
        index = store.load_sweep(name)
        if not _is_sweep_index(index):
            raise StoreError(str(store.sweep_index(name)), "not a valid sweep index: its "
                             "points, seeds or axes are missing or of the wrong type")  # fmt: skip
        for point in index["points"]:
            for seed in index["seeds"]:
                runs.append(
                    {
                        "sweep": name,
                        "point": point["index"],
                        "values": point["values"],
                        "labels": point["labels"],
                        "axes": [a["name"] for a in index["axes"]],
                        "seed": seed,
                        "scenario_hash": point["scenario_hash"],
                        "directory": store.run_dir(point["scenario_hash"], seed),
                    }
                )
    return runs


def _axis_value(value: Any) -> Any:
    """Return an axis value as a cell: numbers and strings as they are, the rest as JSON."""
    return value if isinstance(value, str | int | float | bool) else json.dumps(value)


def collect(
    store: str | Path,
    table: str = SUMMARY,
    *,
    sweep: str | None = None,
    columns: Sequence[str] | None = None,
    filter: ds.Expression | None = None,
    missing: str = "warn",
    labels: bool = False,
    reduce: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Collect one table of every run in a store into one tidy DataFrame.

    Columns: the axes (their values, or their labels with ``labels=True``), then ``sweep``,
    ``point``, ``seed``, ``scenario_hash``, ``run`` (the run directory's name), then the table's
    own columns (``columns`` picks some; ``filter`` is a ``pyarrow.dataset`` expression on them,
    e.g. ``pyarrow.dataset.field("completed")``). ``sweep`` limits it to one sweep of the store.
    A column's old name (``bottleneck.drop_rate``, now ``forward.drop_rate``; the queue table's
    ``drops``, now ``drops_pkts``) is read as its new one with a :class:`DeprecationWarning`
    until aqmlab 0.3 (:func:`current_name`); the frame carries the new name.
    ``reduce`` turns each run's rows into a smaller frame before they are gathered (a share, an
    ECDF on a grid), so that a table of billions of rows over all runs needs one run's in memory.

    >>> import tempfile, aqmlab
    >>> base = {"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
    ...         "traffic": [{"name": "cbr", "kind": "cbr", "rate": "1Mbps"}]}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     _ = aqmlab.sweep(base, vary={"traffic[cbr].rate": ["1Mbps", "3Mbps"]}, seeds=[1, 2],
    ...                      out=tmp, jobs=1, progress=False)
    ...     frame = collect(tmp)
    ...     flows = collect(tmp, "flows", columns=["recv_pkts"])
    >>> frame[["traffic[cbr].rate", "seed", "forward.utilization"]].round(2)
      traffic[cbr].rate  seed  forward.utilization
    0             1Mbps     1                  0.1
    1             1Mbps     2                  0.1
    2             3Mbps     1                  0.3
    3             3Mbps     2                  0.3
    >>> list(flows.columns), len(flows)
    (['traffic[cbr].rate', 'sweep', 'point', 'seed', 'scenario_hash', 'run', 'recv_pkts'], 4)
    """
    args.text("missing", missing, choices=("warn", "error", "ignore"))
    args.text("table", table)
    if sweep is not None:
        args.text("sweep", sweep)
    if columns is not None:
        named, columns = args.texts("columns", columns), []
        for column in named:  # not a comprehension: an old name's warning points at the caller
            columns.append(current_name(column, table))
    labels = args.boolean("labels", labels)
    if reduce is not None and not callable(reduce):
        raise args.ArgumentError("reduce", f"expected a function, got {type(reduce).__name__}")
    if filter is not None and not isinstance(filter, ds.Expression):
        raise args.ArgumentError(
            "filter", f"expected a pyarrow.dataset expression, got {type(filter).__name__}"
        )
    opened = Store.open(args.path("store", store))
    runs = _runs(opened, sweep)
    if not runs:
        raise StoreError(str(store), "holds no sweep to collect")
    axes: list[str] = []
    for run in runs:
        axes.extend(a for a in run["axes"] if a not in axes)
    skipped: list[str] = []
    pieces: list[pa.Table] = []
    rows: list[dict[str, Any]] = []
    packs: dict[Path, pa.Table] = {}  # the pack being read, its table read once
    build_id = current_build_id()
    for run in runs:
        state = opened.check(run["scenario_hash"], run["seed"], build_id=build_id)
        if state.status not in READABLE:
            skipped.append(
                f"{run['directory'].name} ({state.status}"
                + (f": {state.reason}" if state.reason else "")
                + ")"
            )
            continue
        source = run["labels"] if labels else run["values"]
        head = {axis: _axis_value(source[axis]) if axis in source else None for axis in axes}
        head.update(
            {
                "sweep": run["sweep"],
                "point": run["point"],
                "seed": run["seed"],
                "scenario_hash": run["scenario_hash"],
                "run": run["directory"].name,
            }
        )
        if table == SUMMARY:
            summary = opened.summary(run["scenario_hash"], run["seed"], state)
            row = {**head, **flatten(summary)}
            rows.append(
                {k: v for k, v in row.items() if columns is None or k in head or k in columns}
            )
            continue
        data = _stored_table(run["directory"], state, table, columns, filter, packs)
        if reduce is not None:
            data = pa.Table.from_pandas(reduce(data.to_pandas()), preserve_index=False)
        for position, (key, value) in enumerate(head.items()):
            data = data.add_column(position, key, _constant(value, data.num_rows))
        pieces.append(data)
    _report_skipped(skipped, missing)
    if table == SUMMARY:
        frame = pd.DataFrame(rows)
        if rows:
            _check_columns(columns, list(frame.columns), table)
        return frame
    if not pieces:
        return pd.DataFrame(columns=[*axes, *RUN_COLUMNS])
    return _concat(pieces)


def _check_columns(columns: Sequence[str] | None, names: Sequence[str], table: str) -> None:
    """Refuse a column the table does not have (:class:`InputError` listing the ones it has).

    >>> _check_columns(["a", "c"], ["a", "b"], "flows")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: columns: no column "c" in the flows table (columns: a, b)
    """
    unknown = [c for c in columns or () if c not in names]
    if unknown:
        listed = ", ".join(f'"{c}"' for c in unknown)
        raise InputError(
            "columns", f"no column {listed} in the {table} table (columns: {', '.join(names)})"
        )


def _stored_table(
    directory: Path,
    state: RunState,
    table: str,
    columns: Sequence[str] | None,
    filter: ds.Expression | None,
    packs: dict[Path, pa.Table],
) -> pa.Table:
    """Read one run's rows of ``table``: from its directory, or from its pack.

    A pack's table is read once for its runs (``packs`` holds the one being read: a pack's
    runs come one after another), with the columns asked for; with a ``filter``, whole, and
    each run's rows filtered as its own table would be, its string dictionaries its own.
    """
    where = state.pack or directory
    path = where / f"{table}.parquet"
    if state.pack is None or state.pack not in packs:
        if not path.is_file():
            known = sorted(p.stem for p in where.glob("*.parquet"))
            raise StoreError(table, f"no such table (tables: {', '.join([SUMMARY, *known])})")
        if state.pack is None:
            return _read_table(path, columns, filter)
        packs.clear()
        packs[state.pack] = _read_table(path, columns if filter is None else None)
        if filter is not None:
            _check_columns(columns, packs[state.pack].column_names[1:], table)
    rows = _pack_rows(state, path, packs[state.pack])
    if filter is None:
        return rows
    try:
        rows = rows.filter(filter)
    except (pa.ArrowException, TypeError) as err:
        raise StoreError(str(path), f"cannot read the table ({shown(err)})") from None
    return rows.select(list(columns)) if columns else rows


def _constant(value: Any, rows: int) -> pa.Array:
    """Return a column holding ``value`` ``rows`` times (strings dictionary-encoded).

    >>> _constant("30p", 3).type, _constant(7, 2).to_pylist()
    (DictionaryType(dictionary<values=string, indices=int32, ordered=0>), [7, 7])
    """
    if isinstance(value, str) or value is None:
        indices = pa.array(np.zeros(rows, dtype=np.int32))
        return pa.DictionaryArray.from_arrays(indices, pa.array([value], type=pa.string()))
    return pa.array(np.full(rows, value))


def _concat(pieces: list[pa.Table]) -> pd.DataFrame:
    """Concatenate per-run tables in Arrow (dictionaries unified) and convert once to pandas."""
    table = pa.concat_tables(pieces, promote_options="permissive")
    return table.unify_dictionaries().to_pandas()


def _report_skipped(skipped: list[str], missing: str) -> None:
    if not skipped or missing == "ignore":
        return
    text = f"{len(skipped)} run(s) not collected: " + "; ".join(skipped[:10])
    if len(skipped) > 10:
        text += f"; and {len(skipped) - 10} more"
    if missing == "error":
        raise StoreError("collect", text)
    warnings.warn(text, stacklevel=3)


def is_store(directory: str | Path) -> bool:
    """Return True if ``directory`` is a run store.

    >>> is_store("no/such/dir")
    False
    """
    return (Path(directory) / MARKER).is_file()


__all__ = ["collect", "flatten", "is_store", "load"]
