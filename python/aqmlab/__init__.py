"""aqmlab: a fast packet-level simulator for router queue management studies.

>>> import aqmlab
>>> result = aqmlab.run({
...     "duration": "1s",
...     "topology": {"bottleneck": {"rate": "10Mbps"}},
...     "traffic": [{"kind": "poisson", "rate": "2Mbps"}],
... })
>>> {"queue", "link", "flows"} <= set(result.tables)
True

The functions :func:`sweep`, :func:`collect` and :func:`queue_law` have the names of their
modules: ``aqmlab.sweep``, ``aqmlab.collect`` and ``aqmlab.queue_law`` are the functions, and the
modules are reached with ``from aqmlab.sweep import ...`` or
``importlib.import_module("aqmlab.sweep")``. The public names are imported on first use, so
``import aqmlab`` is quick (pandas, NumPy and pyarrow load only when a function needs them).

>>> import importlib
>>> callable(aqmlab.sweep), importlib.import_module("aqmlab.sweep").Sweep is aqmlab.Sweep
(True, True)
"""

import importlib
import sys
import types
from typing import Any

from aqmlab._native import __version__
from aqmlab.errors import InputError, ScenarioError, SelfCheckError, StoreError

_LAZY: dict[str, str] = {
    "Axis": "aqmlab.sweep",
    "Result": "aqmlab.result",
    "ScenarioWarning": "aqmlab.scenario",
    "Sweep": "aqmlab.sweep",
    "apply_overrides": "aqmlab.scenario",
    "collect": "aqmlab.collect",
    "load": "aqmlab.collect",
    "load_scenario": "aqmlab.scenario",
    "queue_law": "aqmlab.queue_law",
    "resolve": "aqmlab.scenario",
    "run": "aqmlab.runner",
    "scenario_hash": "aqmlab.scenario",
    "scenario_warnings": "aqmlab.scenario",
    "sweep": "aqmlab.sweep",
}
"""Public names → their modules, imported on first use (pandas, NumPy and pyarrow are slow to
import, and ``aqmlab validate`` needs none of them)."""

_FUNCTIONS_NAMED_LIKE_MODULES = frozenset({"collect", "queue_law", "sweep"})


class _Package(types.ModuleType):
    """The package: a function named like its module stays bound when the module is imported.

    Importing ``aqmlab.sweep`` (the module) makes the import system set the package's ``sweep``
    attribute to the module; that binding is refused here, so ``aqmlab.sweep`` stays the function
    (resolved lazily by :func:`__getattr__`).
    """

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FUNCTIONS_NAMED_LIKE_MODULES and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


sys.modules[__name__].__class__ = _Package

__all__ = [
    "Axis",
    "InputError",
    "Result",
    "ScenarioError",
    "SelfCheckError",
    "StoreError",
    "Sweep",
    "__version__",
    "apply_overrides",
    "collect",
    "load",
    "load_scenario",
    "queue_law",
    "resolve",
    "run",
    "scenario_hash",
    "sweep",
]
