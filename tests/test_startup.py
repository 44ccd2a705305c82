"""Start-up: the command line loads only what a command uses (issue 15: pandas, NumPy, pyarrow
and matplotlib are slow to import, and ``aqmlab validate`` or ``--version`` needs none of them).

Measured by what is imported, not by time (speed is measured by ``aqmlab bench``).
"""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ("pandas", "numpy", "pyarrow", "matplotlib", "optuna")


def _imported_after(code: str) -> dict[str, bool]:
    report = f"print(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    probe = f"{code}\nimport json, sys\n{report}"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    imported: dict[str, bool] = json.loads(out.stdout.strip().splitlines()[-1])
    return imported


def test_the_command_line_and_the_package_import_no_heavy_library() -> None:
    assert not any(_imported_after("import aqmlab.cli").values())
    assert not any(_imported_after("import aqmlab").values())
    assert not any(_imported_after("import aqmlab.tune").values())  # Optuna: when a tune runs


def test_validate_and_version_import_no_heavy_library(tmp_path) -> None:  # type: ignore[no-untyped-def]
    scenario = tmp_path / "s.toml"
    scenario.write_text('duration = "1s"\n[topology]\nbottleneck = { rate = "1Mbps" }\n')
    for argv in (["--version"], ["validate", str(scenario)]):
        code = ("from aqmlab.cli import app\n"
                f"try:\n    app({argv!r}, standalone_mode=False)\n"
                "except SystemExit:\n    pass")  # fmt: skip
        assert not any(_imported_after(code).values()), argv


def test_a_function_named_like_its_module_stays_the_function() -> None:
    code = ("import importlib\nimport aqmlab.sweep, aqmlab.collect, aqmlab.queue_law\n"
            "from aqmlab.sweep import Sweep\n"
            "assert callable(aqmlab.sweep) and callable(aqmlab.collect)\n"
            "assert callable(aqmlab.queue_law) and aqmlab.Sweep is Sweep\n"
            "assert importlib.import_module('aqmlab.sweep').Sweep is Sweep")  # fmt: skip
    _imported_after(code)  # raises CalledProcessError if an assertion fails
