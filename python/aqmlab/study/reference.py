"""The papers' published tables and findings, shipped with the package.

The files are package data under ``aqmlab/papers/data/`` (copies of the project's shared reference
files; see the ``README.md`` there), read with :mod:`importlib.resources`, so they are found from an
installed wheel as from the repository. They are read as files of the ``aqmlab`` package: the
study layer imports nothing from :mod:`aqmlab.papers` (``tests/test_layering.py``).

>>> table_names()[:3]
['christiansen2000_setup', 'christiansen2000_table1_fifo', 'christiansen2000_table2_requests']
>>> paper_table("christiansen2000_table2_requests").set_index("load_pct")["requests"][98]
np.int64(461837)
>>> findings("christiansen2000")["C6"].claim[:37]
'FIFO at 98%: a queue of 120 instead o'
>>> paper_info("eddy2003").prefix
'E'
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable

import pandas as pd

__all__ = [
    "Finding",
    "PaperInfo",
    "UnknownReference",
    "findings",
    "paper_info",
    "paper_keys",
    "paper_table",
    "table_names",
]


class UnknownReference(KeyError):
    """A table or paper that is not in the package data; the message names the known ones.

    >>> str(UnknownReference('no table "x"'))
    'no table "x"'
    """

    def __str__(self) -> str:
        """Show the message itself (a :class:`KeyError` would show its ``repr``)."""
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class Finding:
    """One claim of one paper, to be judged by a reproduction.

    >>> f = findings()["CC2"]
    >>> (f.id, f.paper, f.claim)
    ('CC2', 'chung2003', '... and falls linearly as link bandwidth grows.')
    """

    id: str
    """Its ID: ``C1``…, ``CC1``…, ``Z1``…, ``E1``…."""
    paper: str
    """The paper's key, e.g. ``christiansen2000``."""
    claim: str
    """The claim, as written in the project's findings list."""


@dataclass(frozen=True)
class PaperInfo:
    """A paper whose findings are listed: its key, ID prefix, title and stated setup.

    >>> info = paper_info("zhang2001")
    >>> info.title[:11], info.setup[:30]
    ('Zhang & Qiu', 'T1 (1.544 Mbps) bottleneck, 50')
    >>> paper_info("chung2003").setup is None
    True
    """

    key: str
    """The paper's key, e.g. ``zhang2001``."""
    prefix: str
    """The prefix of its findings' IDs, e.g. ``Z``."""
    title: str
    """Authors and title (and venue), as in the findings list's heading."""
    setup: str | None
    """The findings list's "Setup:" line for the paper, or ``None`` if it has none."""


def _data() -> Traversable:
    return files("aqmlab") / "papers" / "data"


def table_names() -> list[str]:
    """List the papers' tables in the package by name (the CSV file's name without ``.csv``).

    >>> [name for name in table_names() if name.startswith("zhang")]
    ['zhang2001_schemes']
    """
    return sorted(
        entry.name.removesuffix(".csv")
        for entry in _data().iterdir()
        if entry.name.endswith(".csv") and entry.is_file()
    )


def paper_table(name: str) -> pd.DataFrame:
    """Read one of the papers' tables, as published (``#`` lines in the file are comments).

    :class:`UnknownReference` (a :class:`KeyError`) naming the known tables if there is none.

    >>> fifo = paper_table("christiansen2000_table1_fifo")
    >>> fifo.set_index(["load_pct", "queue_len_pkts"]).loc[(98, 120), "median_response_ms"]
    np.int64(421)
    >>> paper_table("zhang2001_schemes")["min_th"].tolist()
    [nan, 'B/6', 'B/9', '5', 'B/6', 'B/9', '5']
    >>> paper_table("nosuch")
    Traceback (most recent call last):
    ...
    aqmlab.study.reference.UnknownReference: no paper table "nosuch" (known: christiansen2000_...)
    """
    known = table_names()
    if name not in known:
        raise UnknownReference(f'no paper table "{name}" (known: {", ".join(known)})')
    with (_data() / f"{name}.csv").open("rb") as handle:
        return pd.read_csv(handle, comment="#")


@functools.cache
def _findings_toml() -> tuple[dict[str, PaperInfo], dict[str, Finding]]:
    data = tomllib.loads((_data() / "findings.toml").read_text(encoding="utf-8"))
    papers = {
        key: PaperInfo(key, p["prefix"], p["title"], p.get("setup"))
        for key, p in data["paper"].items()
    }
    found = {f["id"]: Finding(f["id"], f["paper"], f["claim"]) for f in data["finding"]}
    return papers, found


def paper_keys() -> list[str]:
    """List the papers with findings, in the findings list's order.

    >>> paper_keys()
    ['christiansen2000', 'chung2003', 'zhang2001', 'eddy2003']
    """
    return list(_findings_toml()[0])


def _check_paper(paper: str) -> None:
    if paper not in _findings_toml()[0]:
        known = ", ".join(paper_keys())
        raise UnknownReference(f'no paper "{paper}" in the findings (known: {known})')


def paper_info(paper: str) -> PaperInfo:
    """Give a paper's key, ID prefix, title and setup line; :class:`UnknownReference` if unknown.

    >>> paper_info("christiansen2000").title
    'Christiansen, Jeffay, Ott, Smith, "Tuning RED for Web Traffic" (SIGCOMM 2000)'
    >>> paper_info("floyd1993")
    Traceback (most recent call last):
    ...
    aqmlab.study.reference.UnknownReference: no paper "floyd1993" in the findings (known: ...)
    """
    _check_paper(paper)
    return _findings_toml()[0][paper]


def findings(paper: str | None = None) -> dict[str, Finding]:
    """Give the findings of one paper (or of all, if ``None``) by ID, in the list's order.

    A new dictionary each call (of immutable :class:`Finding` records); :class:`UnknownReference`
    naming the known papers for an unknown one.

    >>> list(findings("christiansen2000"))[:4]
    ['C1', 'C2', 'C3', 'C4']
    >>> len(findings()), len(findings("eddy2003"))
    (49, 11)
    >>> findings("eddy2003")["E11"].claim
    "Rating R' = U^a F^(1-a) with a = 1/2: bq_bm ranks first in most scenarios (Table 11)."
    """
    everything = _findings_toml()[1]
    if paper is None:
        return dict(everything)
    _check_paper(paper)
    return {fid: f for fid, f in everything.items() if f.paper == paper}
