"""Start-up: the command line loads only what a command uses (pandas, NumPy, pyarrow
and matplotlib are slow to import, and ``aqmlab validate``, ``--version`` or ``run`` needs none of
them; nor rich, which only draws tables and progress bars, nor pydantic, which typer 0.29 and
later import to check every option, hence ``typer<0.29``). A plain ``aqmlab run`` does not even
import Typer (:mod:`aqmlab.__main__`).

Measured by what is imported, not by time (speed is measured by ``aqmlab bench``, start-up
included).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "optuna")
DRAWING = ("rich",)
"""Tables and progress bars: imported by the commands that draw them."""
NOT_USED = ("pydantic", "dask", "distributed", "scipy")
"""Imported by no command that validates or runs one scenario."""
BATCHES = ("aqmlab.executor", "aqmlab.store", "aqmlab.sweeps", "multiprocessing",
           "concurrent.futures", "ctypes")  # fmt: skip
"""Worker pools and run stores: imported by the commands that run batches or write a store."""


def _imported_after(code: str, modules: tuple[str, ...] = HEAVY) -> dict[str, bool]:
    report = f"print(json.dumps({{m: m in sys.modules for m in {modules!r}}}))"
    probe = f"{code}\nimport json, sys\n{report}"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    imported: dict[str, bool] = json.loads(out.stdout.strip().splitlines()[-1])
    return imported


def test_the_command_line_and_the_package_import_no_heavy_library() -> None:
    assert not any(_imported_after("import aqmlab.cli").values())
    assert not any(_imported_after("import aqmlab").values())
    assert not any(_imported_after("import aqmlab.tune").values())  # Optuna: when a tune runs


def _command(argv: list[str]) -> str:
    return ("from aqmlab.cli import app\n"
            f"try:\n    app({argv!r}, standalone_mode=False)\n"
            "except SystemExit:\n    pass")  # fmt: skip


def test_validate_and_version_import_no_heavy_library(tmp_path) -> None:  # type: ignore[no-untyped-def]
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[topology]\nbottleneck = { rate = "1Mbps" }\n')
    for argv in (["--version"], ["validate", str(scenario)]):
        imported = _imported_after(_command(argv), HEAVY + DRAWING + NOT_USED + BATCHES)
        assert not any(imported.values()), (argv, imported)


def test_run_imports_what_it_uses_only(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``aqmlab run`` writes its Parquet tables through the engine and sums its TCP connections
    from the engine's columns: no table library, even with TCP traffic and every table written;
    and it draws its headline table itself (no Rich)."""
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[topology]\nbottleneck = { rate = "1Mbps" }\n'
                        '[[traffic]]\nkind = "ftp"\nflows = 2\n')  # fmt: skip
    argv = ["run", str(scenario), "--out", str(tmp_path / "run")]
    imported = _imported_after(_command(argv), HEAVY + DRAWING + NOT_USED)
    assert imported == {"pandas": False, "numpy": False, "pyarrow": False, "matplotlib": False,
                        "optuna": False, "rich": False, "pydantic": False, "dask": False,
                        "distributed": False, "scipy": False}  # fmt: skip
    assert {p.name for p in (tmp_path / "run").iterdir()} >= {"summary.json", "queue.parquet",
                                                               "connections.parquet"}


def _script(argv: list[str]) -> str:
    # The script ends a plain run with os._exit; here it raises SystemExit instead, so that the
    # probe can report what was imported.
    return ("import os, sys\nos._exit = sys.exit\nfrom aqmlab.__main__ import main\n"
            f"sys.argv = ['aqmlab', *{argv!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass")  # fmt: skip


def test_the_script_runs_a_plain_run_without_typer(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The script hands ``run SCENARIO --out DIR`` straight to the run: no Typer, no Rich, and
    the run directory is written; ``run --help`` goes to Typer, which prints the usage."""
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[topology]\nbottleneck = { rate = "1Mbps" }\n')
    argv = ["run", str(scenario), "--out", str(tmp_path / "run"), "--seed", "2"]
    imported = _imported_after(_script(argv), ("typer", "rich", *HEAVY))
    assert not any(imported.values()), imported
    assert (tmp_path / "run" / "manifest.json").is_file()
    assert _imported_after(_script(["run", "--help"]), ("typer",)) == {"typer": True}


def test_a_short_run_from_python_imports_no_drawing_library() -> None:
    """The progress bar imports rich only once a run has lasted long enough to draw it."""
    code = ("import aqmlab\naqmlab.run({'duration': '1s', 'topology': {'bottleneck': "
            "{'rate': '1Mbps'}}, 'traffic': [{'kind': 'ftp', 'flows': 1}]}, progress=True)")
    assert _imported_after(code, DRAWING) == {"rich": False}


def test_the_script_hands_typer_the_command_asked_for_alone(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``main()`` builds a group of the one command named (reading every command's signature
    is most of Typer's start-up), leaves ``app`` whole, and shows the whole group otherwise."""
    code = ("import sys, typer.main\nfrom aqmlab import cli\nbuilt = []\n"
            "real = typer.main.get_group\n"
            "typer.main.get_group = lambda a: built.append(len(a.registered_commands)) or real(a)\n"
            "for argv in (['run', '--help'], ['--help'], ['runn']):\n"
            "    sys.argv = ['aqmlab', *argv]\n"
            "    try:\n        cli.main()\n    except SystemExit:\n        pass\n"
            "print(built, len(cli.app.registered_commands))")  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    last = out.stdout.strip().splitlines()[-1]
    whole = len(__import__("aqmlab.cli").cli.app.registered_commands)
    assert last == f"[1, {whole}, {whole}] {whole}", out.stdout
    assert "Usage: aqmlab run" in out.stdout
    assert "No such command 'runn'. Did you mean 'run'?" in out.stderr


def test_the_bench_child_imports_no_table_library() -> None:
    """``python -m aqmlab.bench NAME``: the engine hands its tables over without NumPy."""
    code = ("import contextlib, io\nfrom aqmlab.bench.__main__ import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['tcp-100-newreno-red', '--smoke'])")  # fmt: skip
    imported = _imported_after(code, HEAVY + DRAWING + ("typer",) + BATCHES)
    assert not any(imported.values()), imported


def test_the_ns3_child_imports_nothing_heavy_of_aqmlab() -> None:
    """``python -m aqmlab.bench.ns3_run``: its whole-process time is to be ns-3's own."""
    imported = _imported_after("import aqmlab.bench.ns3_run", HEAVY + DRAWING + ("typer",))
    assert not any(imported.values()), imported


def test_no_public_name_is_rebound_by_importing_a_module() -> None:
    """``aqmlab.sweep``, ``aqmlab.collect``, ``aqmlab.queue_law`` stay the functions.

    Importing a submodule binds its name on the package, so a module named like a public name
    would replace it; this imports every module of the package after the public names are
    resolved, in a fresh interpreter, and checks that each name is still what it was.
    """
    code = (
        "import importlib, inspect, pkgutil, types\n"
        "import aqmlab\n"
        "before = {name: getattr(aqmlab, name) for name in aqmlab.__all__}\n"
        "modules = [m.name for m in pkgutil.walk_packages(aqmlab.__path__, 'aqmlab.')\n"
        "           if not m.name.endswith('.__main__')]\n"
        "for name in modules:\n"
        "    importlib.import_module(name)\n"
        "assert 'aqmlab.sweeps' in modules, modules\n"
        "after = {name: getattr(aqmlab, name) for name in aqmlab.__all__}\n"
        "changed = [n for n in before if after[n] is not before[n]]\n"
        "assert not changed, changed\n"
        "modules_now = [n for n, v in after.items() if isinstance(v, types.ModuleType)]\n"
        "assert not modules_now, modules_now\n"
        "for name in ('sweep', 'collect', 'queue_law'):\n"
        "    assert inspect.isfunction(getattr(aqmlab, name)), name\n"
        "import aqmlab.sweeps\n"
        "assert aqmlab.sweep is aqmlab.sweeps.sweep and aqmlab.Sweep is aqmlab.sweeps.Sweep\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
