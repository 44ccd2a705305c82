"""The outcome of one run, :class:`Result`, and the run directory it writes.

A run directory holds ``summary.json`` and one Parquet file per table (``queue.parquet``,
``link.parquet``, ``flows.parquet``, ``connections.parquet``, ``tcp_trace.parquet``,
``requests.parquet``). Each Parquet
file's schema metadata repeats ``aqmlab.scenario_hash``, ``aqmlab.seed`` and ``aqmlab.version``.
Writing is deterministic: the same scenario and seed give byte-identical Parquet files, and
``summary.json`` files that differ only in ``meta.wall_s``.

Every table is always written, even when it has no rows (``connections`` in a run without TCP,
``flows`` in a run without UDP). The engine hands over plain lists, from which an empty column's
type cannot be inferred, so :data:`COLUMN_TYPES` gives the types of the documented columns; an
empty column it does not know becomes Arrow's ``null`` type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

Columns = dict[str, Sequence[Any]]
"""A table as the engine returns it: column name → values."""

_F64, _I64, _STR = pa.float64(), pa.int64(), pa.string()

COLUMN_TYPES: dict[str, dict[str, pa.DataType]] = {
    "queue": {
        "t_s": _F64,
        "direction": _STR,
        "samples": _I64,
        "mean_pkts": _F64,
        "var_pkts": _F64,
        "min_pkts": _I64,
        "max_pkts": _I64,
        "mean_bytes": _F64,
        "var_bytes": _F64,
        "min_bytes": _I64,
        "max_bytes": _I64,
        "red_avg": _F64,
        "red_max_p": _F64,
    },
    "link": {
        "t_s": _F64,
        "direction": _STR,
        "bytes": _I64,
        "pkts": _I64,
        "throughput_bps": _F64,
        "utilization": _F64,
    },
    "flows": {
        "flow": _I64,
        "group": _STR,
        "index": _I64,
        "kind": _STR,
        "src": _STR,
        "dst": _STR,
        "sent_pkts": _I64,
        "sent_bytes": _I64,
        "recv_pkts": _I64,
        "recv_bytes": _I64,
        "lost_pkts": _I64,
        "dropped_pkts": _I64,
        "loss_rate": _F64,
        "mean_delay_s": _F64,
        "throughput_bps": _F64,
    },
    "connections": {
        "conn": _I64,
        "group": _STR,
        "index": _I64,
        "client": _STR,
        "server": _STR,
        "sender": _STR,
        "profile": _STR,
        "variant": _STR,
        "start_s": _F64,
        "established_s": _F64,
        "end_s": _F64,
        "outcome": _STR,
        "bytes": _I64,
        "goodput_bps": _F64,
        "data_segs": _I64,
        "data_rexmits": _I64,
        "syn_rexmits": _I64,
        "fin_rexmits": _I64,
        "timeouts": _I64,
        "fast_rexmits": _I64,
        "ecn_reductions": _I64,
        "recoveries": _I64,
        "mean_recovery_s": _F64,
        "mean_t0_s": _F64,
        "pkts_sent": _I64,
        "pkts_dropped": _I64,
        "srtt_s": _F64,
        "cwnd_bytes": _F64,
    },
    "tcp_trace": {
        "t_s": _F64,
        "conn": _I64,
        "cwnd_bytes": _F64,
        "ssthresh_bytes": _F64,
        "srtt_s": _F64,
        "rto_s": _F64,
    },
    "requests": {
        "group": _STR,
        "user": _I64,
        "client": _STR,
        "server": _STR,
        "page": _I64,
        "object": _I64,
        "start_s": _F64,
        "end_s": _F64,
        "response_s": _F64,
        "request_bytes": _I64,
        "reply_bytes": _I64,
        "completed": _I64,
        "failed": _I64,
        "syn_rexmits": _I64,
        "fin_rexmits": _I64,
        "data_rexmits": _I64,
        "timeouts": _I64,
    },
}
"""Arrow types of the engine's documented table columns (``docs/scenario.md``, "Outputs").

Used only for empty columns; a column with values keeps the type Arrow infers from them (the
engine's ``F64`` → ``double``, ``I64`` → ``int64``, ``Str`` → ``string``).
"""


def column_array(table: str, column: str, values: Sequence[Any]) -> pa.Array:
    """Build one column as an Arrow array, typed from :data:`COLUMN_TYPES` when it is empty.

    >>> column_array("connections", "bytes", []).type
    DataType(int64)
    >>> column_array("connections", "no_such_column", []).type
    DataType(null)
    >>> column_array("tcp_trace", "srtt_s", [float("nan"), 0.04]).to_pylist()
    [nan, 0.04]
    """
    if len(values):
        return pa.array(values)
    return pa.array([], type=COLUMN_TYPES.get(table, {}).get(column, pa.null()))


class Result:
    """One simulation's summary and tables.

    >>> result = Result(
    ...     {"meta": {"seed": 1, "scenario_hash": "ab12", "version": "0.1.0"}},
    ...     {"flows": {"flow": [0, 1], "sent_pkts": [10, 12]}},
    ... )
    >>> result.flows["sent_pkts"].sum()
    np.int64(22)
    >>> result.seed, result.scenario_hash
    (1, 'ab12')
    """

    def __init__(self, summary: dict[str, Any], columns: Mapping[str, Columns]) -> None:
        self.summary = summary
        self._columns = dict(columns)
        self._frames: dict[str, pd.DataFrame] = {}

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
        ...            {"t": {"a": [1, 2]}})
        >>> r.arrow("t").schema.metadata[b"aqmlab.seed"]
        b'3'
        """
        if name not in self._columns:
            raise KeyError(f"no table {name!r} (have: {', '.join(self._columns)})")
        columns = self._columns[name]
        table = pa.table(
            {column: column_array(name, column, values) for column, values in columns.items()}
        )
        return table.replace_schema_metadata(self._parquet_metadata())

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
        return json.dumps(self.summary, indent=2) + "\n"

    def save(self, directory: str | Path) -> Path:
        """Write the run directory (created if needed) and return its path.

        >>> import tempfile
        >>> r = Result({"meta": {"seed": 1}}, {"flows": {"flow": [0]}})
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     sorted(p.name for p in r.save(Path(tmp) / "run").iterdir())
        ['flows.parquet', 'summary.json']
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(self.summary_json(), encoding="utf-8")
        for name in self._columns:
            pq.write_table(self.arrow(name), out / f"{name}.parquet", compression="zstd")
        return out
