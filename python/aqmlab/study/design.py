"""Factorial designs: sweeps whose factors each set one or more key paths together.

A :class:`~aqmlab.sweeps.Sweep` varies one key path per axis. A study's factor often moves several
at once — a queue scheme sets ``queue``, ``reverse_queue`` and ``tcp.ecn``; "n ECN-capable and n
plain flows" sets two groups' ``flows``. :func:`factorial` takes such factors, builds every
combination of their levels, and returns a zipped sweep: one axis per key path, the first path
of each factor named after the factor (so collected tables have a ``scheme`` column with the
level's label), the others ``factor:path``.

>>> scheme = Factor("scheme", (Level("dt", {"queue.kind": "droptail", "tcp.ecn": False}),
...                            Level("red-ecn", {"queue.kind": "red", "tcp.ecn": True})))
>>> n = Factor.over("n", "traffic[ftp].flows", [1, 4])
>>> base = {"duration": "1s", "traffic": [{"name": "ftp", "kind": "ftp"}]}
>>> sweep = factorial(base, (scheme, n), name="demo")
>>> [p.labels for p in sweep.points()]  # doctest: +NORMALIZE_WHITESPACE
[{'scheme': 'dt', 'scheme:tcp.ecn': 'dt', 'n': '1'},
 {'scheme': 'dt', 'scheme:tcp.ecn': 'dt', 'n': '4'},
 {'scheme': 'red-ecn', 'scheme:tcp.ecn': 'red-ecn', 'n': '1'},
 {'scheme': 'red-ecn', 'scheme:tcp.ecn': 'red-ecn', 'n': '4'}]
>>> sweep.points()[3].scenario["tcp"]
{'ecn': True}
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aqmlab.scenario import ScenarioLike, as_scenario
from aqmlab.sweeps import Axis, Sweep, value_label


@dataclass(frozen=True)
class Level:
    """One level of a factor: its label and the value it gives each key path."""

    label: str
    sets: Mapping[str, Any]


@dataclass(frozen=True)
class Factor:
    """A named factor: levels that each set the same key paths.

    >>> Factor.over("web", "traffic[web].flows", [2, 10]).labels
    ('2', '10')
    >>> Factor("x", (Level("a", {"p": 1}), Level("b", {"q": 2})))
    Traceback (most recent call last):
    ...
    ValueError: factor x: level b sets ['q'], expected ['p']
    """

    name: str
    levels: tuple[Level, ...]

    def __post_init__(self) -> None:
        if not self.levels:
            raise ValueError(f"factor {self.name}: expected at least one level")
        paths = list(self.levels[0].sets)
        if not paths:
            raise ValueError(f"factor {self.name}: a level sets no key path")
        for level in self.levels:
            if list(level.sets) != paths:
                raise ValueError(
                    f"factor {self.name}: level {level.label} sets {list(level.sets)}, "
                    f"expected {paths}"
                )

    @classmethod
    def over(
        cls, name: str, path: str, values: Iterable[Any], labels: Sequence[str] | None = None
    ) -> Factor:
        """Return a factor over one key path; labels default to the values as text."""
        values = list(values)
        names = list(labels) if labels is not None else [value_label(v) for v in values]
        if len(names) != len(values):
            raise ValueError(f"factor {name}: {len(names)} labels for {len(values)} values")
        return cls(name, tuple(Level(k, {path: v}) for k, v in zip(names, values, strict=True)))

    @property
    def paths(self) -> tuple[str, ...]:
        """The key paths the factor sets."""
        return tuple(self.levels[0].sets)

    @property
    def labels(self) -> tuple[str, ...]:
        """The levels' labels."""
        return tuple(level.label for level in self.levels)


def factorial(base: ScenarioLike, factors: Sequence[Factor], *, name: str = "sweep") -> Sweep:
    """Every combination of the factors' levels, as a zipped sweep over ``base``.

    Points come in the order of :func:`itertools.product` over the factors as given. Factor
    names and key paths must not repeat across factors.
    """
    if not factors:
        return Sweep(as_scenario(base), (), name=name)
    combos = list(itertools.product(*(f.levels for f in factors)))
    axes: list[Axis] = []
    for position, factor in enumerate(factors):
        for k, path in enumerate(factor.paths):
            axes.append(
                Axis(
                    path,
                    tuple(combo[position].sets[path] for combo in combos),
                    tuple(combo[position].label for combo in combos),
                    factor.name if k == 0 else f"{factor.name}:{path}",
                )
            )
    return Sweep(as_scenario(base), tuple(axes), zip=True, name=name)
