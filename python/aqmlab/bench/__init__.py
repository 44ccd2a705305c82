"""Reference benchmarks: the engine's speed on scenarios shipped with the package.

Each ``*.toml`` file in this package directory is a reference scenario, named by its file stem;
adding a reference is a matter of dropping a file in. A reference named ``<base>-red`` is ``<base>``
with a RED bottleneck queue; when both run, :func:`ratios` compares their wall times.

>>> {"tcp-100-newreno", "tcp-100-newreno-red", "udp-poisson-95"} <= set(references())
True
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from aqmlab.errors import ScenarioError
from aqmlab.result import Result
from aqmlab.runner import ProgressCallback, run
from aqmlab.scenario import Scenario, ScenarioLike


def references() -> dict[str, Traversable]:
    """Return the reference scenario files by name, sorted by name."""
    files = (f for f in resources.files(__name__).iterdir() if f.name.endswith(".toml"))
    return {f.name.removesuffix(".toml"): f for f in sorted(files, key=lambda f: f.name)}


def select(only: list[str] | None = None) -> dict[str, Traversable]:
    """Return the references to run: all of them, or those named in ``only``.

    >>> select(["nope"])
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: --only: no reference scenario named "nope" (have: ...)
    """
    available = references()
    if not only:
        return available
    for name in only:
        if name not in available:
            raise ScenarioError(
                "--only",
                f'no reference scenario named "{name}" (have: {", ".join(available)})',
            )
    return {name: available[name] for name in only}


def load_reference(file: Traversable) -> Scenario:
    """Read a reference scenario shipped in the package.

    >>> load_reference(references()["udp-poisson-95"])["duration"]
    '1h'
    """
    return tomllib.loads(file.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class BenchRow:
    """Speed of one reference run.

    >>> row = BenchRow("x", simulated_s=60.0, events=1_000_000, wall_s=0.5)
    >>> row.events_per_s, row.speedup
    (2000000.0, 120.0)
    """

    name: str
    simulated_s: float
    events: int
    wall_s: float

    @property
    def events_per_s(self) -> float:
        """Events processed per second of engine wall time."""
        return self.events / self.wall_s if self.wall_s > 0 else float("inf")

    @property
    def speedup(self) -> float:
        """Simulated seconds per second of engine wall time."""
        return self.simulated_s / self.wall_s if self.wall_s > 0 else float("inf")

    @classmethod
    def from_result(cls, name: str, result: Result) -> BenchRow:
        """Read the speed figures from a run's ``meta``."""
        meta: dict[str, Any] = result.meta
        return cls(
            name=name,
            simulated_s=float(meta["duration_s"]),
            events=int(meta["events"]),
            wall_s=float(meta["wall_s"]),
        )


def bench_one(
    name: str, scenario: ScenarioLike, *, progress: bool | ProgressCallback = False
) -> BenchRow:
    """Run one scenario and measure it (engine time only: ``meta.wall_s``).

    >>> row = bench_one("tiny", {"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}}})
    >>> row.simulated_s
    1.0
    """
    return BenchRow.from_result(name, run(scenario, progress=progress))


VARIANT_SUFFIXES = ("-red",)
"""Name suffixes of references that are another reference with one thing changed."""


def ratios(rows: Iterable[BenchRow]) -> list[tuple[str, str, float]]:
    """Pair each variant reference (``<base>-red``) with its base, if both ran.

    Returns ``(variant, base, wall-time ratio variant / base)`` in the order of ``rows``. Wall
    seconds, not events per second, are compared: the variant may process a different number
    of events for the same simulated time, and what it costs is the time it takes.

    >>> rows = [BenchRow("a", 10.0, 100, 2.0), BenchRow("a-red", 10.0, 90, 3.0)]
    >>> ratios(rows + [BenchRow("b-red", 1.0, 1, 1.0)])
    [('a-red', 'a', 1.5)]
    """
    rows = list(rows)
    by_name = {row.name: row for row in rows}
    found = []
    for row in rows:
        for suffix in VARIANT_SUFFIXES:
            base = by_name.get(row.name.removesuffix(suffix)) if row.name.endswith(suffix) else None
            if base is not None and base.wall_s > 0:
                found.append((row.name, base.name, row.wall_s / base.wall_s))
    return found
