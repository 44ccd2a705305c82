"""The papers' reference data ships with the package and matches the project's shared copies."""

from __future__ import annotations

import dataclasses
import re
from importlib.resources import files
from pathlib import Path

import pandas as pd
import pytest
from aqmlab.study.reference import (
    Finding,
    UnknownReference,
    findings,
    paper_info,
    paper_keys,
    paper_table,
    table_names,
)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "reference"
DATA = files("aqmlab.papers") / "data"
PREFIXES = {"C": "christiansen2000", "CC": "chung2003", "Z": "zhang2001", "E": "eddy2003"}

needs_shared = pytest.mark.skipif(
    not (SHARED / "findings.md").is_file(),
    reason="the project's shared reference set is not beside this checkout",
)


def package_csvs() -> dict[str, bytes]:
    return {e.name: e.read_bytes() for e in DATA.iterdir() if e.name.endswith(".csv")}


def test_data_directory_holds_only_the_expected_files() -> None:
    names = {e.name for e in DATA.iterdir()}
    assert names - set(package_csvs()) == {"findings.toml", "README.md"}
    assert len(package_csvs()) >= 11


@needs_shared
def test_every_csv_is_a_byte_for_byte_copy_of_the_shared_one() -> None:
    shared = {p.name: p.read_bytes() for p in SHARED.glob("*.csv")}
    ours = package_csvs()
    assert sorted(ours) == sorted(shared)
    for name, content in shared.items():
        assert ours[name] == content, f"{name} differs from {SHARED / name}"


def parse_findings_md(text: str) -> tuple[dict[str, tuple[str, str | None]], list[Finding]]:
    """Papers (title, setup) and findings, read from findings.md independently of the package."""
    papers: dict[str, tuple[str, str | None]] = {}
    found: list[Finding] = []
    paper = ""
    for line in text.splitlines():
        if m := re.match(r"^## ([A-Z]+) — (.+)$", line):
            paper = PREFIXES[m[1]]
            papers[paper] = (m[2], None)
        elif line.startswith("Setup: "):
            papers[paper] = (papers[paper][0], line.removeprefix("Setup: "))
        elif m := re.match(r"^- ([A-Z]+\d+)\s+(.+)$", line):
            found.append(Finding(m[1], paper, m[2]))
    return papers, found


@needs_shared
def test_findings_toml_has_exactly_the_findings_of_findings_md() -> None:
    papers, expected = parse_findings_md((SHARED / "findings.md").read_text(encoding="utf-8"))
    assert len(expected) == 49
    assert list(findings().values()) == expected
    assert paper_keys() == list(papers)
    for key, (title, setup) in papers.items():
        info = paper_info(key)
        assert (info.title, info.setup) == (title, setup)
        assert all(fid.startswith(info.prefix) for fid in findings(key))
        assert PREFIXES[info.prefix] == key


def test_findings_are_ordered_immutable_and_per_paper() -> None:
    everything = findings()
    assert list(everything)[:3] == ["C1", "C2", "C3"] and list(everything)[-1] == "E11"
    assert [len(findings(key)) for key in paper_keys()] == [14, 9, 15, 11]
    assert all(f.id == fid for fid, f in everything.items())
    with pytest.raises(dataclasses.FrozenInstanceError):
        everything["C1"].claim = "changed"  # type: ignore[misc]
    everything.clear()
    assert len(findings()) == 49
    with pytest.raises(KeyError, match="known: christiansen2000, chung2003"):
        findings("nosuch")
    with pytest.raises(UnknownReference):
        paper_info("nosuch")


@pytest.mark.parametrize("name", table_names())
def test_paper_table_reads_every_table(name: str) -> None:
    table = paper_table(name)
    assert isinstance(table, pd.DataFrame) and len(table) > 0
    lines = (DATA / f"{name}.csv").read_text(encoding="utf-8").splitlines()
    header = next(line for line in lines if not line.startswith("#"))
    assert list(table.columns) == header.split(",")
    assert len(table) == sum(1 for line in lines if line and not line.startswith("#")) - 1


def test_table_names_and_unknown_table() -> None:
    assert "christiansen2000_table1_fifo" in table_names()
    assert table_names() == sorted(name.removesuffix(".csv") for name in package_csvs())
    with pytest.raises(KeyError) as error:
        paper_table("christiansen2000_table9")
    assert "christiansen2000_table1_fifo" in str(error.value)
    assert str(error.value).startswith('no paper table "christiansen2000_table9"')
    with pytest.raises(KeyError):
        paper_table("../findings")


def test_no_module_reads_the_shared_directory() -> None:
    sources = sorted((REPO / "python" / "aqmlab").rglob("*.py"))
    assert sources
    needle = "shared" + "/reference"  # only the data directory's README.md may name it
    offenders = [
        str(path.relative_to(REPO))
        for path in sources
        if needle in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
