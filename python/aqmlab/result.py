"""The outcome of one run, :class:`Result`, and the run directory it writes.

A run directory holds ``summary.json`` and one Parquet file per table (``queue.parquet``,
``link.parquet``, ``flows.parquet``, ``hops.parquet``, ``connections.parquet``,
``tcp_trace.parquet``, ``requests.parquet``), and a libpcap packet trace ``<link>.pcap`` per link
the scenario's ``[capture]`` names. The engine writes the Parquet files (``crates/aqmlab-parquet``,
zstd pages), so saving a run needs neither pyarrow nor pandas; they are imported only when a table
is read as a DataFrame or Arrow table. Each Parquet file's schema metadata repeats
``aqmlab.scenario_hash``, ``aqmlab.seed`` and ``aqmlab.version``. Writing is deterministic: the same
scenario and seed give byte-identical Parquet files, and ``summary.json`` files that differ only in
``meta.wall_s`` (and ``meta.provenance``, when run by another command or on another machine).

Every table is always written, even when it has no rows (``connections`` in a run without TCP,
``flows`` in a run without UDP), each column with the type the engine's schema declares
(:func:`arrow_types`): strings are categorical (dictionary-encoded), flags are booleans.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aqmlab import _native
from aqmlab.scenario import ScenarioWarning

if TYPE_CHECKING:  # imported when a table is first read as Arrow or pandas, never to save a run
    import pandas as pd
    import pyarrow as pa

CAPTURE_SUFFIX = ".pcap"
"""A packet trace's file name is its link's name and this."""

Columns = Mapping[str, Sequence[Any]]
"""A table as the engine returns it: column name → values (numbers and flags as a typed
``memoryview``, strings as the pair of codes and labels, :data:`aqmlab._native.Column`; other
makers' tables may give any sequence)."""


class Categorical(Sequence[str]):
    """A string column as the engine hands it over: each distinct string once, a code per row.

    ``codes`` is a ``memoryview`` of uint32 (format ``"I"``), ``labels`` the strings. A table
    of a million rows naming a few hosts is then 4 MB of codes, not a million Python strings,
    and the Parquet writer and Arrow take the codes as they are.

    >>> from array import array
    >>> c = Categorical(memoryview(array("I", [1, 0, 1])), ["c0", "c1"])
    >>> len(c), c[0], c[-1], list(c), c[1:]
    (3, 'c1', 'c1', ['c1', 'c0', 'c1'], ['c0', 'c1'])
    >>> c == ["c1", "c0", "c1"], c.count("c1")
    (True, 2)
    """

    __slots__ = ("codes", "labels")

    def __init__(self, codes: memoryview, labels: list[str]) -> None:
        self.codes = codes
        self.labels = labels

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self.labels[code] for code in self.codes[index]]
        return self.labels[self.codes[index]]

    def __iter__(self) -> Iterator[str]:
        labels = self.labels
        return (labels[code] for code in self.codes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # a column, compared by value, is not a key

    def __repr__(self) -> str:
        return f"Categorical({list(self)!r})"


def _from_engine(columns: Columns | pa.Table) -> dict[str, Sequence[Any]] | pa.Table:
    """Return a table's columns, the engine's ``(codes, labels)`` pairs as :class:`Categorical`.

    >>> _from_engine({"x": [1], "y": (memoryview(bytes(4)).cast("I"), ["a"])})["y"]
    Categorical(['a'])
    """
    if not isinstance(columns, Mapping):
        return columns
    return {name: Categorical(*values) if isinstance(values, tuple) else values
            for name, values in columns.items()}  # fmt: skip


def schema() -> dict[str, list[dict[str, str]]]:
    """Return the engine's output schema: table → its columns, in order.

    Each column is a dict of ``name``, ``type`` (``f64``, ``i64``, ``bool`` or ``cat``), ``unit``
    (``""`` for none, ``"1"`` for a fraction) and ``meaning`` (one line of Markdown).

    >>> [c["name"] for c in schema()["link"]][:3]
    ['t_s', 'direction', 'bytes']
    >>> completed = schema()["requests"][11]
    >>> completed["name"], completed["type"], completed["unit"]
    ('completed', 'bool', '')
    >>> completed["meaning"]
    'true if the reply and the FIN arrived'
    """
    return {t["name"]: t["columns"] for t in json.loads(_native.schema())}


@cache
def arrow_types() -> dict[str, dict[str, pa.DataType]]:
    """Return the Arrow type of every table's columns, derived from the engine's schema.

    Numbers are float64 or int64, flags booleans, and strings (``cat``) dictionary-encoded with
    32-bit indices: the types the Parquet files hold (:func:`aqmlab._native.parquet`).

    >>> arrow_types()["link"]["bytes"]
    DataType(int64)
    >>> arrow_types()["link"]["direction"]
    DictionaryType(dictionary<values=string, indices=int32, ordered=0>)
    """
    import pyarrow as pa

    by_name = {
        "f64": pa.float64(),
        "i64": pa.int64(),
        "bool": pa.bool_(),
        "cat": pa.dictionary(pa.int32(), pa.string()),
    }
    return {
        table: {c["name"]: by_name[c["type"]] for c in columns}
        for table, columns in schema().items()
    }


def column_array(table: str, column: str, values: Sequence[Any] | memoryview) -> pa.Array:
    """Build one column as an Arrow array of its declared type (strings dictionary-encoded).

    ``values`` is a sequence or, as the engine hands numbers and flags over, a typed
    ``memoryview``, read through NumPy without a copy.

    A column the schema does not declare is an error: the engine and its schema disagree.

    >>> column_array("connections", "bytes", []).type
    DataType(int64)
    >>> column_array("requests", "client", ["c0", "c1", "c0"]).type
    DictionaryType(dictionary<values=string, indices=int32, ordered=0>)
    >>> column_array("tcp_trace", "srtt_s", [float("nan"), 0.04]).to_pylist()
    [nan, 0.04]
    >>> column_array("connections", "bytes", memoryview(bytes(16)).cast("q")).to_pylist()
    [0, 0]
    >>> column_array("connections", "no_such_column", [])
    Traceback (most recent call last):
    ...
    KeyError: "connections.no_such_column is not in the engine's schema"
    """
    import numpy as np
    import pyarrow as pa

    declared = arrow_types().get(table, {}).get(column)
    if declared is None:
        raise KeyError(f"{table}.{column} is not in the engine's schema")
    if pa.types.is_dictionary(declared) and isinstance(values, Categorical):
        codes = np.asarray(values.codes).astype(np.int32)
        return pa.DictionaryArray.from_arrays(codes, pa.array(values.labels, type=pa.string()))
    if pa.types.is_dictionary(declared):
        return pa.array(values, type=pa.string()).dictionary_encode().cast(declared)
    return pa.array(np.asarray(values) if isinstance(values, memoryview) else values, type=declared)


class Result:
    """One simulation's summary and tables, and its packet traces if it made any.

    ``captures`` is the directory holding the run's ``<link>.pcap`` files (:attr:`captures`);
    ``keep`` is whatever must live as long as the result for them to stay there (the temporary
    directory :func:`aqmlab.run` writes them to).

    >>> result = Result(
    ...     {"meta": {"seed": 1, "scenario_hash": "ab12", "version": "0.1.0"}},
    ...     {"flows": {"flow": [0, 1], "sent_pkts": [10, 12]}},
    ... )
    >>> result.flows["sent_pkts"].sum()
    np.int64(22)
    >>> result.seed, result.scenario_hash
    (1, 'ab12')
    """

    def __init__(
        self,
        summary: dict[str, Any],
        columns: Mapping[str, Columns | pa.Table],
        *,
        captures: Path | None = None,
        keep: object = None,
    ) -> None:
        self.summary = summary
        self._columns = {name: _from_engine(table) for name, table in columns.items()}
        self._frames: dict[str, pd.DataFrame] = {}
        self._captures = (
            {}
            if captures is None
            else {p.name.removesuffix(CAPTURE_SUFFIX): p
                  for p in sorted(captures.glob(f"*{CAPTURE_SUFFIX}"))}  # fmt: skip
        )
        self._keep = keep  # what holds the capture files (a temporary directory), if anything

    def __repr__(self) -> str:
        meta = self.summary.get("meta", {})
        name = meta.get("scenario", {}).get("name", "?")
        return f"<Result {name} hash={str(meta.get('scenario_hash', '?'))[:8]} seed={self.seed}>"

    @property
    def meta(self) -> dict[str, Any]:
        """The summary's ``meta`` section: version, seed, resolved scenario, wall time, events."""
        meta: dict[str, Any] = self.summary["meta"]
        return meta

    @property
    def warnings(self) -> list[ScenarioWarning]:
        """The scenario's warnings (``summary["warnings"]``): quiet misconfigurations.

        >>> Result({"warnings": [{"code": "pin-ignored", "path": "traffic[0].server",
        ...                       "message": "no effect"}]}, {}).warnings[0].code
        'pin-ignored'
        """
        return [ScenarioWarning.from_dict(w) for w in self.summary.get("warnings", [])]

    @property
    def seed(self) -> int:
        """The seed this run used."""
        seed: int = self.meta["seed"]
        return seed

    @property
    def scenario_hash(self) -> str:
        """SHA-256 of the resolved scenario without its seed (see :func:`scenario_hash`)."""
        digest: str = self.meta["scenario_hash"]
        return digest

    @property
    def captures(self) -> dict[str, Path]:
        """The packet traces of this run: link name → its libpcap file (``[capture]``).

        >>> Result({"meta": {}}, {}).captures
        {}
        """
        return dict(self._captures)

    @property
    def table_names(self) -> list[str]:
        """Names of the tables this run produced, in the engine's order."""
        return list(self._columns)

    def table(self, name: str) -> pd.DataFrame:
        """One table as a DataFrame (built on first use).

        >>> Result({"meta": {}}, {"t": {"a": [1]}}).table("u")
        Traceback (most recent call last):
        ...
        KeyError: "no table 'u' (have: t)"
        """
        if name not in self._columns:
            raise KeyError(f"no table {name!r} (have: {', '.join(self._columns)})")
        if name not in self._frames:
            self._frames[name] = self.arrow(name).to_pandas()
        return self._frames[name]

    def with_tables(self, names: Sequence[str]) -> Result:
        """Return this result keeping only the tables ``names`` (what :meth:`save` writes).

        The summary is the whole run's; an unknown name is a ``KeyError``.

        >>> r = Result({"meta": {}}, {"queue": {"t_s": [0.0]}, "link": {"t_s": [0.0]}})
        >>> r.with_tables(["link"]).table_names
        ['link']
        >>> r.with_tables([]).table_names
        []
        """
        unknown = [name for name in names if name not in self._columns]
        if unknown:
            raise KeyError(f"no table {unknown[0]!r} (have: {', '.join(self._columns)})")
        kept = {name: columns for name, columns in self._columns.items() if name in names}
        result = Result(self.summary, kept, keep=self._keep)
        result._captures = dict(self._captures)
        return result

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name, as DataFrames."""
        return {name: self.table(name) for name in self._columns}

    @property
    def queue(self) -> pd.DataFrame:
        """Bottleneck queue statistics per interval and direction."""
        return self.table("queue")

    @property
    def link(self) -> pd.DataFrame:
        """Bottleneck link throughput per interval and direction."""
        return self.table("link")

    @property
    def flows(self) -> pd.DataFrame:
        """Per-UDP-flow counters: packets and bytes sent, received, lost; throughput."""
        return self.table("flows")

    @property
    def hops(self) -> pd.DataFrame:
        """Per UDP flow and TCP connection, the drops at each link of its path.

        Rows per UDP flow (``flow``), then per TCP connection (``conn``) and way (``path``:
        ``data`` from its data sender, ``ack`` back), and link on that path, in path order: the
        drops there in the measured window (the other key is -1).

        >>> import aqmlab
        >>> r = aqmlab.run({"duration": "1s", "topology": {"bottleneck": {"rate": "10Mbps"}},
        ...                 "traffic": [{"kind": "ftp"}]})
        >>> print(r.hops[["conn", "path", "hop", "link", "drops_pkts"]].to_string(index=False))
         conn path  hop    link  drops_pkts
            0 data    0   s0.up           0
            0 data    1 forward           0
            0 data    2 c0.down           0
            0  ack    0   c0.up           0
            0  ack    1 reverse           0
            0  ack    2 s0.down           0
        """
        return self.table("hops")

    @property
    def connections(self) -> pd.DataFrame:
        """One row per TCP connection: outcome, bytes, goodput, retransmissions, timeouts."""
        return self.table("connections")

    @property
    def tcp_trace(self) -> pd.DataFrame:
        """The data sender's cwnd, ssthresh, srtt and RTO after each ACK (groups with ``trace``)."""
        return self.table("tcp_trace")

    @property
    def requests(self) -> pd.DataFrame:
        """One row per web request/response pair started after the warm-up: response time, sizes."""
        return self.table("requests")

    def arrow(self, name: str) -> pa.Table:
        """One table as an Arrow table whose schema metadata identifies the run.

        >>> r = Result({"meta": {"seed": 3, "scenario_hash": "ff", "version": "0.1.0"}},
        ...            {"flows": {"flow": [1, 2]}})
        >>> r.arrow("flows").schema.metadata[b"aqmlab.seed"]
        b'3'
        """
        if name not in self._columns:
            raise KeyError(f"no table {name!r} (have: {', '.join(self._columns)})")
        columns = self._columns[name]
        if not isinstance(columns, dict):  # an Arrow table read back from a run directory
            return columns
        import pyarrow as pa

        table = pa.table(
            {column: column_array(name, column, values) for column, values in columns.items()}
        )
        return table.replace_schema_metadata(self._parquet_metadata())

    def column(self, table: str, name: str) -> Sequence[Any]:
        """One column's values as the run holds them, without pandas or Arrow when it can.

        Numbers and flags of a fresh run are a typed ``memoryview``, strings a list; a table read
        back from a run directory gives a list. This is how the command line sums a run up
        without importing pandas.

        >>> r = Result({"meta": {}}, {"flows": {"sent_pkts": [10, 12]}})
        >>> sum(r.column("flows", "sent_pkts"))
        22
        >>> r.column("flows", "lost_pkts")
        Traceback (most recent call last):
        ...
        KeyError: "no column 'lost_pkts' in table 'flows' (have: sent_pkts)"
        """
        if table not in self._columns:
            raise KeyError(f"no table {table!r} (have: {', '.join(self._columns)})")
        columns = self._columns[table]
        names = list(columns) if isinstance(columns, dict) else columns.column_names
        if name not in names:
            have = ", ".join(names)
            raise KeyError(f"no column {name!r} in table {table!r} (have: {have})")
        if isinstance(columns, dict):
            return columns[name]
        values: list[Any] = columns.column(name).to_pylist()
        return values

    def _parquet_metadata(self) -> dict[str, str]:
        meta = self.meta
        return {
            "aqmlab.scenario_hash": str(meta.get("scenario_hash", "")),
            "aqmlab.seed": str(meta.get("seed", "")),
            "aqmlab.version": str(meta.get("version", "")),
        }

    def summary_json(self) -> str:
        """Render ``summary.json``: indented, keys in order, final newline.

        >>> print(Result({"meta": {"seed": 1}}, {}).summary_json(), end="")
        {
          "meta": {
            "seed": 1
          }
        }
        """
        compact = json.dumps(self.summary, separators=(",", ":"))  # Python's C encoder
        return _native.indent_json(compact) + "\n"  # the bytes of json.dumps(..., indent=2)

    def files(self) -> dict[str, bytes]:
        """Render the run directory's files: ``summary.json`` and one Parquet file per table.

        The bytes depend only on the run (scenario, seed, engine build) and its wall time in
        ``summary.json``: every executor writes the same files.

        >>> r = Result({"meta": {"seed": 1}}, {"flows": {"flow": [0]}})
        >>> sorted(r.files())
        ['flows.parquet', 'summary.json']
        """
        files = {"summary.json": self.summary_json().encode("utf-8")}
        metadata = list(self._parquet_metadata().items())
        for name, columns in self._columns.items():
            if not isinstance(columns, dict):  # read back from a run directory
                columns = {c: columns.column(c).to_pylist() for c in columns.column_names}
            files[f"{name}.parquet"] = _native.parquet(name, columns, metadata)
        for link, path in self._captures.items():
            files[f"{link}{CAPTURE_SUFFIX}"] = path.read_bytes()
        return files

    def save(self, directory: str | Path, *, replace: bool = False) -> Path:
        """Write the run directory atomically, with its manifest, and return its path.

        The files go to a temporary sibling first, ``manifest.json`` (sizes and SHA-256) last,
        and the directory is renamed into place. An existing run directory is replaced only
        with ``replace=True``; a file, or a directory that is not a run directory (and not
        empty), is never replaced (:class:`aqmlab.errors.StoreError`).

        >>> import tempfile
        >>> r = Result({"meta": {"seed": 1, "scenario_hash": "ab"}}, {"flows": {"flow": [0]}})
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     sorted(p.name for p in r.save(Path(tmp) / "run").iterdir())
        ['flows.parquet', 'manifest.json', 'summary.json']
        """
        from aqmlab.store import check_output_dir, write_run_directory

        out = Path(directory)
        replace = check_output_dir(out, replace=replace)
        meta = self.meta
        failure = self.self_check_failure()
        return write_run_directory(
            out,
            self.files(),
            scenario_hash=str(meta.get("scenario_hash", "")),
            seed=int(meta.get("seed", 0)),
            build_id=str(meta.get("build", {}).get("id", "")),
            status="finished" if failure is None else "failed",
            error=failure,
            replace=replace,
        )

    def self_check_failure(self) -> str | None:
        """Say why the engine's self-checks failed, or ``None`` if they held (or were not made).

        A run directory of a run whose counter identities fail is written marked ``failed``
        with this as its error, so that ``collect`` and sweeps refuse its numbers.

        >>> good = {"checks": {"counter_identities": True, "violations": []}}
        >>> Result(good, {}).self_check_failure()
        >>> Result({"checks": {"counter_identities": False, "violations": ["x > 1"]}},
        ...        {}).self_check_failure()
        'engine self-check failed (an engine bug; please report it): x > 1'
        """
        checks = self.summary.get("checks", {})
        if checks.get("counter_identities") is not False:
            return None
        failed = "; ".join(str(v) for v in checks.get("violations", []))
        return "engine self-check failed (an engine bug; please report it): " + (
            failed or "counter identities do not hold"
        )


def jsonable(value: Any) -> Any:
    """Return ``value`` as JSON can hold it: NaN and infinities as null, containers recursively.

    >>> jsonable({"a": float("nan"), "b": [1, 2.5], "c": (3,)})
    {'a': None, 'b': [1, 2.5], 'c': [3]}
    """
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
