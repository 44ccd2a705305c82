"""aqmlab: a fast packet-level simulator for router queue management studies.

>>> import aqmlab
>>> result = aqmlab.run({
...     "duration": "1s",
...     "topology": {"bottleneck": {"rate": "10Mbps"}},
...     "traffic": [{"kind": "poisson", "rate": "2Mbps"}],
... })
>>> {"queue", "link", "flows"} <= set(result.tables)
True

The functions :func:`sweep`, :func:`collect` and :func:`queue_law` live in the modules
``aqmlab.sweeps``, ``aqmlab.reading`` and ``aqmlab.queue_laws``: no module is named like a public
function, so importing a module never rebinds a function's name. The public names are imported on
first use, so ``import aqmlab`` is quick (pandas, NumPy and pyarrow load only when a function needs
them).

>>> import aqmlab.sweeps
>>> callable(aqmlab.sweep), aqmlab.sweeps.Sweep is aqmlab.Sweep
(True, True)
"""

import importlib
from typing import TYPE_CHECKING, Any

from aqmlab._native import __version__
from aqmlab.errors import InputError, ScenarioError, SelfCheckError, StoreError

if TYPE_CHECKING:  # the lazy names, as a type checker sees them (imported on first use below)
    from aqmlab.queue_laws import queue_law
    from aqmlab.reading import collect, load
    from aqmlab.result import Result
    from aqmlab.runner import run
    from aqmlab.scenario import ScenarioWarning as ScenarioWarning
    from aqmlab.scenario import apply_overrides, group_tcp, load_scenario, resolve, scenario_hash
    from aqmlab.scenario import scenario_warnings as scenario_warnings
    from aqmlab.sweeps import Axis, Sweep, sweep

_LAZY: dict[str, str] = {
    "Axis": "aqmlab.sweeps",
    "Result": "aqmlab.result",
    "ScenarioWarning": "aqmlab.scenario",
    "Sweep": "aqmlab.sweeps",
    "apply_overrides": "aqmlab.scenario",
    "collect": "aqmlab.reading",
    "group_tcp": "aqmlab.scenario",
    "load": "aqmlab.reading",
    "load_scenario": "aqmlab.scenario",
    "queue_law": "aqmlab.queue_laws",
    "resolve": "aqmlab.scenario",
    "run": "aqmlab.runner",
    "scenario_hash": "aqmlab.scenario",
    "scenario_warnings": "aqmlab.scenario",
    "sweep": "aqmlab.sweeps",
}
"""Public names → their modules, imported on first use (pandas, NumPy and pyarrow are slow to
import, and ``aqmlab validate`` needs none of them)."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
    "group_tcp",
    "load",
    "load_scenario",
    "queue_law",
    "resolve",
    "run",
    "scenario_hash",
    "sweep",
]
