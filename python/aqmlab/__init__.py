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
``importlib.import_module("aqmlab.sweep")``.

>>> import importlib
>>> callable(aqmlab.sweep), importlib.import_module("aqmlab.sweep").Sweep is aqmlab.Sweep
(True, True)
"""

# Importing a submodule binds its name here only when it is first loaded, which for
# aqmlab.collect and aqmlab.sweep is in the lines below; each then rebinds the name to the
# function, and later imports of the modules find them loaded and leave the names alone.
from aqmlab._native import __version__
from aqmlab.collect import collect, load
from aqmlab.errors import InputError, ScenarioError, StoreError
from aqmlab.queue_law import queue_law
from aqmlab.result import Result
from aqmlab.runner import run
from aqmlab.scenario import apply_overrides, load_scenario, resolve, scenario_hash
from aqmlab.sweep import Axis, Sweep, sweep

__all__ = [
    "Axis",
    "InputError",
    "Result",
    "ScenarioError",
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
