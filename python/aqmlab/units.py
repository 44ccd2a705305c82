"""Scenario sizes as numbers: ``"1460B"``, ``"30KB"``, ``"64KiB"`` in bytes.

The units are the engine's (``crates/aqmlab-sim/src/units.rs``): B, and KB, MB, GB in thousands,
KiB, MiB, GiB in 1024s. A resolved scenario writes every size this way, so analyses read sizes
back from it (an MSS, a receive window, a transfer size) with :func:`size_bytes`.
"""

from __future__ import annotations

import re
from typing import Any

from aqmlab.errors import InputError, shown

SIZE_UNITS = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3}
"""Bytes per unit of a scenario size."""

_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+)\s*(" + "|".join(SIZE_UNITS) + r")\s*")


def size_bytes(value: Any, name: str = "size") -> float:
    """Return a scenario size in bytes: a string with a unit, or a number of bytes.

    ``name`` is what an error calls the value (a key path or an option).

    >>> size_bytes("30KB"), size_bytes("500B"), size_bytes("64KiB"), size_bytes(1460)
    (30000.0, 500.0, 65536.0, 1460.0)
    >>> size_bytes("1.5 MB")
    1500000.0
    >>> size_bytes("30kb", "web_size")
    Traceback (most recent call last):
    ...
    aqmlab.errors.InputError: web_size: expected a size like "1460B", "30KB" or "64KiB" \
(units: B, KB, MB, GB, KiB, MiB, GiB), got "30kb"
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    match = _SIZE.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        units = ", ".join(SIZE_UNITS)
        expected = f'a size like "1460B", "30KB" or "64KiB" (units: {units})'
        raise InputError(name, f'expected {expected}, got "{shown(value)}"')
    return float(match.group(1)) * SIZE_UNITS[match.group(2)]
