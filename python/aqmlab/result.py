"""The outcome of one run, :class:`Result`, and the run directory it writes.

A run directory holds ``summary.json`` and one Parquet file per table (``queue.parquet``,
``link.parquet``, ``flows.parquet``, ...). Each Parquet file's schema metadata repeats
``aqmlab.scenario_hash``, ``aqmlab.seed`` and ``aqmlab.version``. Writing is deterministic: the
same scenario and seed give byte-identical Parquet files, and ``summary.json`` files that differ
only in ``meta.wall_s``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

Columns = dict[str, list[Any]]
"""A table as the engine returns it: column name → values."""


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
        """Per-flow counters: packets and bytes sent, received, lost; throughput."""
        return self.table("flows")

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
        table = pa.table({column: pa.array(values) for column, values in columns.items()})
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
