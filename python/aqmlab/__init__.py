"""aqmlab: a fast packet-level simulator for router queue management studies.

>>> import aqmlab
>>> result = aqmlab.run({
...     "duration": "1s",
...     "topology": {"bottleneck": {"rate": "10Mbps"}},
...     "traffic": [{"kind": "poisson", "rate": "2Mbps"}],
... })
>>> {"queue", "link", "flows"} <= set(result.tables)
True
"""

from aqmlab._native import __version__
from aqmlab.errors import ScenarioError
from aqmlab.result import Result
from aqmlab.runner import run
from aqmlab.scenario import apply_overrides, load_scenario, resolve, scenario_hash

__all__ = [
    "Result",
    "ScenarioError",
    "__version__",
    "apply_overrides",
    "load_scenario",
    "resolve",
    "run",
    "scenario_hash",
]
