"""The Python front's modules form layers (docs/architecture.md, "Python layers").

This test reads the imports of every module under ``python/aqmlab`` with :mod:`ast` (a name in a
docstring or a doctest is no import) and holds them to the layer order and to three rules:

- a module imports at module level only modules of lower layers (a sub-package counts as its
  top-level name, so ``aqmlab.study.report`` is ``study``; imports inside a sub-package do not
  count). An import inside a function, deferred to keep start-up light, is held to the rules
  below but not to the order;
- nothing in ``aqmlab.study`` imports ``aqmlab.papers``, at any depth: the study layer is the
  machinery the papers use, and knows none of them;
- only ``aqmlab.__main__`` imports ``aqmlab.cli``;
- ``aqmlab._native`` (the engine binding) is imported only by the modules in :data:`NATIVE`.

Like the engine's ``crates/aqmlab-sim/tests/layering.rs``: change :data:`LAYERS` and the diagram
in docs/architecture.md together.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "aqmlab"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("_native",),
    ("errors",),
    ("args", "tomlscan"),
    ("scenario", "store", "stats", "units"),
    ("executor", "result", "provenance", "calibrate"),
    ("sweeps", "reading", "runner"),
    ("referee", "live", "queue_laws", "plot", "run_command"),
    ("bench", "tune"),
    ("study",),
    ("papers",),
    ("cli",),
    ("__main__",),
)
"""Lowest first; the same diagram as docs/architecture.md. The package's ``__init__`` (the public
API) is no layer: the modules import from it only ``__version__`` (:func:`root_breaches`)."""

NATIVE = frozenset({
    "aqmlab", "aqmlab.scenario", "aqmlab.result", "aqmlab.runner", "aqmlab.cli", "aqmlab.plot",
    "aqmlab.bench", "aqmlab.referee.ns2", "aqmlab.live", "aqmlab.live.lab", "aqmlab.live.kernel",
})  # fmt: skip
"""The modules that may import the engine binding, as docs/architecture.md lists them."""


def module_name(path: Path) -> str:
    """Return the dotted name of a module file under :data:`PACKAGE`.

    >>> module_name(PACKAGE / "study" / "__init__.py"), module_name(PACKAGE / "cli.py")
    ('aqmlab.study', 'aqmlab.cli')
    """
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(source: str, module: str) -> Iterator[tuple[str, bool]]:
    """Yield each ``aqmlab`` module that ``source`` imports, and whether at module level.

    ``from aqmlab import papers`` imports ``aqmlab.papers``; a relative import is resolved
    against ``module``.

    >>> text = "from aqmlab import cli\\ndef f():\\n    import aqmlab.study.model\\n"
    >>> list(imports(text, "aqmlab.x"))
    [('aqmlab.cli', True), ('aqmlab.study.model', False)]
    >>> list(imports("from .model import Data", "aqmlab.study.report"))
    [('aqmlab.study.model', True)]
    """

    def walk(node: ast.AST, top: bool) -> Iterator[tuple[ast.AST, bool]]:
        for child in ast.iter_child_nodes(node):
            yield child, top
            deferred = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(child, top and not deferred)

    for node, top in walk(ast.parse(source), True):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "aqmlab":
                    yield alias.name, top
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".")[: -node.level]
                base = ".".join([*package, *([base] if base else [])])
            if base == "aqmlab":
                for alias in node.names:
                    yield f"aqmlab.{alias.name}", top
            elif base.split(".")[0] == "aqmlab":
                yield base, top


def layer_name(module: str) -> str:
    """Return the top-level name a module belongs to: ``aqmlab.study.model`` → ``study``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def graph() -> dict[str, list[tuple[str, bool]]]:
    """Every module of the package → the ``aqmlab`` modules it imports."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        found[module] = list(imports(path.read_text(encoding="utf-8"), module))
    return found


def layer_of(name: str) -> int | None:
    """Return a top-level name's layer, lowest 0; ``None`` for one no layer names."""
    return next((i for i, layer in enumerate(LAYERS) if name in layer), None)


Graph = dict[str, list[tuple[str, bool]]]


def order_breaches(found: Graph) -> list[str]:
    """Module-level imports of a module of the same or a higher layer, or of no layer."""
    wrong = []
    for module, imported in found.items():
        mine = layer_of(layer_name(module))
        for target, top in imported:
            if not top or mine is None or layer_name(target) in ("", layer_name(module)):
                continue
            if target == "aqmlab.__version__":  # the package root's: root_breaches
                continue
            theirs = layer_of(layer_name(target))
            if theirs is None or theirs >= mine:
                wrong.append(f"{module} imports {target}")
    return wrong


def study_breaches(found: Graph) -> list[str]:
    """Imports of ``aqmlab.papers`` by the study layer, deferred ones included."""
    return [f"{module} imports {target}" for module, imported in found.items()
            if layer_name(module) == "study" for target, _ in imported
            if layer_name(target) == "papers"]  # fmt: skip


def cli_breaches(found: Graph) -> list[str]:
    """Imports of ``aqmlab.cli`` by anything but ``aqmlab.__main__``."""
    return [f"{module} imports {target}" for module, imported in found.items()
            if module != "aqmlab.__main__" for target, _ in imported
            if layer_name(target) == "cli"]  # fmt: skip


def native_breaches(found: Graph) -> list[str]:
    """Imports of the engine binding by a module not in :data:`NATIVE`."""
    return [f"{module} imports {target}" for module, imported in found.items()
            if module not in NATIVE for target, _ in imported
            if target == "aqmlab._native"]  # fmt: skip


def root_breaches(found: Graph) -> list[str]:
    """Imports of the package's ``__init__`` for anything but ``__version__``."""
    return [f"{module} imports {target}" for module, imported in found.items()
            for target, _ in imported
            if target == "aqmlab" or (layer_of(layer_name(target)) is None
                                      and target != "aqmlab.__version__")]  # fmt: skip


RULES = (order_breaches, study_breaches, cli_breaches, native_breaches, root_breaches)


def test_every_top_level_module_is_in_a_layer() -> None:
    names = {layer_name(module) for module in graph()} - {""}
    assert sorted(n for n in names if layer_of(n) is None) == []
    listed = [name for layer in LAYERS for name in layer]
    assert len(listed) == len(set(listed)), "a name in two layers"
    assert sorted(set(listed) - names - {"_native"}) == [], "a layer names a module that is gone"


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.__name__)
def test_the_package_keeps_the_rule(rule: Callable[[Graph], list[str]]) -> None:
    assert rule(graph()) == []


@pytest.mark.parametrize(
    ("rule", "module", "source"),
    [
        (order_breaches, "aqmlab.sweeps", "from aqmlab.cli import app"),
        (order_breaches, "aqmlab.plot", "from aqmlab.study import Data"),
        (study_breaches, "aqmlab.study.run", "from aqmlab.papers import get"),
        (study_breaches, "aqmlab.study.run", "def f():\n    from aqmlab import papers"),
        (cli_breaches, "aqmlab.papers.zhang2001", "def f():\n    import aqmlab.cli"),
        (native_breaches, "aqmlab.study.model", "from aqmlab import _native"),
        (root_breaches, "aqmlab.study.model", "import aqmlab"),
    ],
)
def test_each_rule_catches_a_breach(
    rule: Callable[[Graph], list[str]], module: str, source: str
) -> None:
    # One made-up import each, so that no rule passes for want of anything to catch.
    found = {module: list(imports(source, module))}
    assert rule(found) == [f"{module} imports {found[module][0][0]}"]
