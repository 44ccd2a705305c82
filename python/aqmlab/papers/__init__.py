"""The studies ``aqmlab reproduce PAPER`` runs, each a :class:`aqmlab.study.Study`.

They are the papers aqmlab reproduces, and two comparison studies (not reproductions: their
findings are questions): ``modern-aqm``, today's AQMs on two of the papers' testbeds
(:mod:`~.modern_aqm`), and ``live-vs-sim``, aqmlab's TCP models against the kernel's through the
same queues (:mod:`~.live_vs_sim`).

A paper's module holds only what is that paper's own — its testbed, experiments, judges, table
keys and figure specs — and exposes it as ``STUDY``; everything else is the study layer
(:mod:`aqmlab.study`). The papers' published tables and claims ship as package data
(:mod:`aqmlab.study.reference`).

>>> names()
['christiansen2000', 'chung2003', 'eddy2003', 'live-vs-sim', 'modern-aqm', 'zhang2001']
>>> get("christiansen2000").name
'christiansen2000'
>>> get("nosuchpaper")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
aqmlab.errors.InputError: PAPER: no study "nosuchpaper" (known: christiansen2000, chung2003, ...)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from aqmlab.errors import InputError

if TYPE_CHECKING:  # the study layer imports pandas: only when a study is loaded
    from aqmlab.study.model import Study

PAPERS: dict[str, str] = {
    "christiansen2000": "aqmlab.papers.christiansen2000",
    "chung2003": "aqmlab.papers.chung2003",
    "eddy2003": "aqmlab.papers.eddy2003",
    "live-vs-sim": "aqmlab.papers.live_vs_sim",
    "modern-aqm": "aqmlab.papers.modern_aqm",
    "zhang2001": "aqmlab.papers.zhang2001",
}
"""Study name → the module that declares it."""


def names() -> list[str]:
    """List the studies that can be reproduced."""
    return sorted(PAPERS)


def get(name: str) -> Study:
    """Return the study by that name; :class:`InputError` naming the known ones if there is none."""
    if name not in PAPERS:
        raise InputError("PAPER", f'no study "{name}" (known: {", ".join(names())})')
    study: Study = importlib.import_module(PAPERS[name]).STUDY
    return study
