"""Checking the arguments of the public functions and the command line's options, one way.

Each checker takes the argument's name as the user wrote it (``"seed"`` from Python, ``"--seed"``
on the command line) and its value, and returns the value as the type the code uses, or raises
an error naming the argument and what was expected: :class:`ArgumentError` (also a
:class:`TypeError`) for a value of the wrong type, :class:`~aqmlab.errors.InputError` for one of
the right type out of range. Booleans are not integers; NumPy integers are; numbers are finite.

>>> integer("seed", 7), integer("jobs", None, low=1, optional=True)
(7, None)
>>> integer("seed", True)
Traceback (most recent call last):
...
aqmlab.args.ArgumentError: seed: expected an integer, got True (bool)
>>> number("--target", float("nan"), above=0)
Traceback (most recent call last):
...
aqmlab.errors.InputError: --target: expected a finite number > 0, got nan
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

from aqmlab.errors import InputError, shown

MAX_SEED = 2**64 - 1
"""The largest seed (the engine's seeds are unsigned 64-bit integers)."""
MAX_SEEDS = 1_000_000
"""The most seeds one range (``--seeds 1-N``) or one reproduction may have."""
MAX_JOBS = 1024
"""The most local worker processes a run may ask for (``jobs``, ``--jobs``)."""


class ArgumentError(InputError, TypeError):
    """An argument of the wrong type: ``path`` names it, ``message`` says what was expected.

    >>> isinstance(ArgumentError("seed", "expected an integer"), TypeError | ValueError)
    True
    """


def _got(value: object) -> str:
    """Describe a value for a message: ``"1" (str)``, ``True (bool)``."""
    return f"{shown(repr(value))} ({type(value).__name__})"


def _num(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def _bounds(low: float | None, high: float | None, above: float | None) -> str:
    """Spell a range for a message: `` ≥ 1``, `` from 0 to 100``, `` > 0``."""
    if above is not None:
        return f" > {_num(above)}" + (f" and ≤ {_num(high)}" if high is not None else "")
    if low is not None and high is not None:
        return f" from {_num(low)} to {_num(high)}"
    if low is not None:
        return f" ≥ {_num(low)}"
    return f" ≤ {_num(high)}" if high is not None else ""


def _in_range(x: float, low: float | None, high: float | None, above: float | None) -> bool:
    return (
        (low is None or x >= low)
        and (high is None or x <= high)
        and (above is None or x > above)
    )


@overload
def integer(
    name: str,
    value: Any,
    *,
    low: int | None = ...,
    high: int | None = ...,
    error: type[InputError] = ...,
) -> int: ...
@overload
def integer(
    name: str,
    value: Any,
    *,
    low: int | None = ...,
    high: int | None = ...,
    optional: bool,
    error: type[InputError] = ...,
) -> int | None: ...
def integer(
    name: str,
    value: Any,
    *,
    low: int | None = None,
    high: int | None = None,
    optional: bool = False,
    error: type[InputError] = InputError,
) -> int | None:
    """Return ``value`` as an ``int`` in ``[low, high]`` (``None`` passes if ``optional``).

    Out of range is an ``error`` (a :class:`~aqmlab.errors.ScenarioError` for a scenario's seed).
    """
    if value is None and optional:
        return None
    what = f"an integer{_bounds(low, high, None)}"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentError(name, f"expected {what}, got {_got(value)}")
    number = int(value)
    if not _in_range(number, low, high, None):
        raise error(name, f"expected {what}, got {number}")
    return number


def number(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    above: float | None = None,
) -> float:
    """Return ``value`` as a finite ``float`` in ``[low, high]``, or ``> above``."""
    what = f"a finite number{_bounds(low, high, above)}"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(name, f"expected {what}, got {_got(value)}")
    x = float(value)
    if not math.isfinite(x) or not _in_range(x, low, high, above):
        raise InputError(name, f"expected {what}, got {x:g}")
    return x


def _numpy_bool(value: Any) -> bool:
    """Whether ``value`` is a NumPy boolean (checked by type name: NumPy is not imported here).

    >>> _numpy_bool(True), _numpy_bool(1)
    (False, False)
    """
    kind = type(value)
    return kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_")


def boolean(name: str, value: Any) -> bool:
    """Return ``value`` if it is ``True`` or ``False`` (NumPy's too)."""
    if not (isinstance(value, bool) or _numpy_bool(value)):
        raise ArgumentError(name, f"expected True or False, got {_got(value)}")
    return bool(value)


def text(name: str, value: Any, *, choices: Sequence[str] | None = None) -> str:
    """Return ``value`` if it is a string (one of ``choices``, if given)."""
    if not isinstance(value, str):
        raise ArgumentError(name, f"expected a string, got {_got(value)}")
    if choices is not None and value not in choices:
        listed = ", ".join(f'"{c}"' for c in choices)
        raise InputError(name, f'expected one of {listed}, got "{shown(value)}"')
    return value


def texts(name: str, value: Any) -> list[str]:
    """Return ``value`` as a list of strings: a list or tuple of them (a lone string is not)."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise ArgumentError(name, f"expected a list of strings, got {_got(value)}")
    return [text(f"{name}[{i}]", item) for i, item in enumerate(value)]


def mapping(name: str, value: Any) -> Mapping[str, Any]:
    """Return ``value`` if it is a mapping (``None``: an empty one).

    >>> mapping("set", None), mapping("set", {"seed": 2})
    ({}, {'seed': 2})
    >>> mapping("set", ["seed=2"])
    Traceback (most recent call last):
    ...
    aqmlab.args.ArgumentError: set: expected a dict, got ['seed=2'] (list)
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ArgumentError(name, f"expected a dict, got {_got(value)}")
    return value


def path(name: str, value: Any) -> Path:
    """Return ``value`` as a :class:`~pathlib.Path`: a string or path-like, not empty."""
    try:
        chosen = Path(value) if isinstance(value, str | os.PathLike) else None
    except TypeError:  # a path-like whose __fspath__ gives no string
        chosen = None
    if chosen is None:
        raise ArgumentError(name, f"expected a path (a string or Path), got {_got(value)}")
    if not str(value):
        raise InputError(name, "expected a path, got an empty string")
    return chosen


def directory(name: str, value: Any) -> Path:
    """Return ``value`` as a path for a directory to write: refused if it is an existing file."""
    chosen = path(name, value)
    if chosen.exists() and not chosen.is_dir():
        raise InputError(name, f"{shown(chosen)} is a file, expected a directory")
    return chosen


def progress(name: str, value: Any) -> bool | Callable[[float], None]:
    """Return ``value`` if it is ``True``, ``False`` or a callable taking the fraction done."""
    if callable(value):
        report: Callable[[float], None] = value  # callable() cannot check what it takes
        return report
    return boolean(name, value)
