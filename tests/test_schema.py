"""One column schema: the engine declares it; Python types and the output docs follow it."""

from __future__ import annotations

import re

import aqmlab
import pandas as pd
import pyarrow as pa
from aqmlab.result import arrow_types, schema
from conftest import ROOT

DOC_TYPES = {"f64", "i64", "bool", "cat"}


def documented_tables() -> dict[str, list[dict[str, str]]]:
    """The column tables of docs/scenario.md's Outputs section: table → its rows, in order."""
    text = (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8")
    outputs = text[text.index("## Outputs") :]
    tables: dict[str, list[dict[str, str]]] = {}
    for section in re.split(r"^### ", outputs, flags=re.M)[1:]:
        name = re.match(r"`(\w+)`", section)
        assert name is not None, section[:40]
        lines = [line for line in section.splitlines() if line.startswith("|")]
        assert lines[0] == "| column | type | unit | meaning |", (name.group(1), lines[0])
        columns = []
        for line in lines[2:]:
            column, kind, unit, meaning = (cell.strip() for cell in line.strip("|").split("|"))
            columns.append(
                {"name": column.strip("`"), "type": kind, "unit": unit, "meaning": meaning}
            )
        tables[name.group(1)] = columns
    return tables


def test_docs_list_exactly_the_schemas_columns() -> None:
    """Names, order, types, units and meanings: the docs' tables are the schema."""
    assert documented_tables() == schema()


def test_every_type_and_unit_is_known() -> None:
    for table, columns in schema().items():
        for column in columns:
            assert column["type"] in DOC_TYPES, (table, column)
            assert isinstance(column["unit"], str)
        assert list(arrow_types()[table]) == [c["name"] for c in columns]


def test_a_runs_tables_have_the_declared_types() -> None:
    result = aqmlab.run(
        {
            "duration": "4s",
            "warmup": "1s",
            "topology": {"bottleneck": {"rate": "10Mbps", "delay": "10ms"}},
            "traffic": [
                {"kind": "web-mah", "users": 40},
                {"kind": "ftp", "flows": 2, "trace": True},
                {"kind": "poisson", "flows": 2, "rate": "1Mbps"},
            ],
        },
        seed=3,
    )
    for table, columns in schema().items():
        arrow = result.arrow(table)
        assert arrow.num_rows > 0, table
        assert arrow.schema.names == [c["name"] for c in columns]
        frame = result.table(table)
        for column in columns:
            dtype = frame[column["name"]].dtype
            kind = column["type"]
            if kind == "cat":
                assert isinstance(dtype, pd.CategoricalDtype), (table, column)
                assert pa.types.is_dictionary(arrow.schema.field(column["name"]).type)
            elif kind == "bool":
                assert pd.api.types.is_bool_dtype(dtype), (table, column)
            else:
                assert dtype == {"f64": "float64", "i64": "int64"}[kind], (table, column)
    empty = aqmlab.run({"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}}})
    assert empty.arrow("requests").schema.field("completed").type == pa.bool_()
    assert isinstance(empty.requests["client"].dtype, pd.CategoricalDtype)
