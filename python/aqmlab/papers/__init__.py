"""Paper reproductions: a registry of study modules (``aqmlab reproduce PAPER``).

Each study is a module here that declares its experiments as scenarios built from one base
testbed, runs them (in parallel, reusing finished runs), analyses the results and writes a report
— the paper's tables beside ours, its figures redrawn from our data, and a verdict with numbers for
each finding of ``reference/findings.md`` the experiments can decide (``../shared/DESIGN.md``,
"Papers"). A module provides:

- ``NAME`` and ``TITLE``;
- ``SCALES``: scale name → its settings; ``PUBLIC_SCALES``: the ones offered on the command line
  (others, such as a test-only ``smoke``, are accepted but not advertised);
- ``reproduce(scale, out, *, jobs=None, progress=True) -> Reproduction``.

>>> names()
['christiansen2000']
>>> get("christiansen2000").NAME
'christiansen2000'
>>> get("nosuchpaper")
Traceback (most recent call last):
...
aqmlab.papers.UnknownPaper: no paper "nosuchpaper" (known: christiansen2000)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

PAPERS: dict[str, str] = {
    "christiansen2000": "aqmlab.papers.christiansen2000",
}
"""Paper name → module."""


class UnknownPaper(LookupError):
    """No reproduction by that name."""

    def __str__(self) -> str:
        return str(self.args[0])


class UnknownScale(LookupError):
    """A paper has no scale by that name."""

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True)
class Reproduction:
    """What a reproduction produced: its report, the lines to print, and how long it took."""

    paper: str
    scale: str
    out: Path
    report: Path
    summary: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    runs: int = 0
    reused: int = 0


def names() -> list[str]:
    """List the papers that can be reproduced."""
    return sorted(PAPERS)


def get(name: str) -> ModuleType:
    """Import the module of a paper; :class:`UnknownPaper` if there is none."""
    if name not in PAPERS:
        raise UnknownPaper(f'no paper "{name}" (known: {", ".join(names())})')
    return importlib.import_module(PAPERS[name])
