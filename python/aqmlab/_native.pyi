"""Type stubs for the compiled engine bindings (``crates/aqmlab-py/src/lib.rs``)."""

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, Self, TypeAlias, final

__all__ = [
    "Pack",
    "QueueCeiling",
    "__version__",
    "build_info",
    "expand",
    "indent_json",
    "live_address",
    "live_check",
    "live_plan",
    "live_route",
    "live_udp_scripts",
    "live_web_scripts",
    "mah_tables",
    "next_hops",
    "parquet",
    "quantity",
    "request_summary",
    "resolve",
    "run",
    "schema",
    "warnings",
]

__version__: str

Column: TypeAlias = (
    memoryview[float] | memoryview[int] | memoryview[bool] | tuple[memoryview[int], list[str]]
)
"""An output column as the engine hands it over (``column`` in lib.rs): float64, int64 and flag
columns as a ``memoryview`` cast to ``"d"``, ``"q"`` and ``"?"``; string columns as the pair
(``memoryview`` of uint32 codes, cast to ``"I"``; the distinct strings)."""

Tables: TypeAlias = dict[str, dict[str, Column]]
"""A run's tables: table name → column name → :data:`Column`."""

def resolve(scenario_json: str) -> str: ...
def expand(scenario_json: str) -> str: ...
def warnings(scenario_json: str) -> str: ...
def next_hops(scenario_json: str) -> str: ...
def schema() -> str: ...
def build_info() -> str: ...
def mah_tables() -> dict[str, str]: ...
def run(
    scenario_json: str,
    seed: int | None = None,
    progress: Callable[[float], object] | None = None,
    capture_dir: str | PathLike[str] | None = None,
) -> tuple[str, Tables]: ...
def indent_json(compact: str) -> str: ...
def parquet(
    table: str,
    columns: dict[str, Sequence[Any]],
    metadata: Sequence[tuple[str, str]],
) -> bytes:
    """Write a table as Parquet; each column's values are of the type the schema declares for it.

    A column is a sequence of numbers, flags or strings (a typed ``memoryview`` is read as a
    buffer; an object with ``codes`` and ``labels``, as :class:`aqmlab.result.Categorical`, as
    its codes): which one the column's name decides, at run time, hence ``Any``. Rust reads any
    buffer of the declared type too (a NumPy array), which this stub leaves out.
    """

def live_route(
    scenario_json: str,
    seed: int,
    start_ns: int,
    servers_ns: str | PathLike[str],
    servers_dev: str,
    clients_ns: str | PathLike[str],
    clients_dev: str,
    capture_dir: str | PathLike[str] | None = None,
) -> tuple[str, Tables, str]: ...
def live_address(side: str, index: int) -> str: ...
def live_plan(scenario_json: str, seed: int) -> str: ...
def live_check(scenario_json: str) -> None: ...
def quantity(kind: str, text: str) -> int: ...
def live_web_scripts(scenario_json: str, seed: int) -> str: ...
def live_udp_scripts(scenario_json: str, seed: int) -> str: ...
def request_summary(
    starts_ns: Sequence[int], ends_ns: Sequence[int | None], failed: Sequence[bool]
) -> str: ...
@final
class Pack:
    """Runs of one scenario, read once, whose tables are stacked (``Pack`` in lib.rs)."""

    def __new__(
        cls,
        scenario_json: str,
        scenario_hash: str | None = None,
        provenance_json: str | None = None,
    ) -> Self: ...
    def run(
        self, seed: int, progress: Callable[[float], object] | None = None
    ) -> tuple[str, bool]: ...
    def keep(self) -> None: ...
    def take(self) -> Tables: ...
    def parquet(self, metadata: Sequence[tuple[str, str]]) -> dict[str, bytes]: ...

@final
class QueueCeiling:
    def __new__(
        cls, scenario_json: str, seed: int | None = None, max_events: int = 2_000_000
    ) -> Self: ...
    def replay(self) -> tuple[int, float, float]: ...
