"""Type stubs for the compiled engine bindings (``crates/aqmlab-py``)."""

from collections.abc import Callable

import numpy as np

__version__: str

def resolve(scenario_json: str) -> str: ...
def warnings(scenario_json: str) -> str: ...
def schema() -> str: ...
def build_info() -> str: ...
def run(
    scenario_json: str,
    seed: int | None = None,
    progress: Callable[[float], None] | None = None,
    capture_dir: str | None = None,
) -> tuple[str, dict[str, dict[str, np.ndarray | list[str]]]]: ...
def queue_ceiling(
    scenario_json: str, seed: int | None = None, max_events: int = 2_000_000
) -> tuple[int, float, float]: ...
