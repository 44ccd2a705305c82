"""``python/aqmlab/_native.pyi`` names what the compiled module has, with its parameters.

mypy's stubtest compares the stub with the module as built (PyO3 gives every function its text
signature): a function, class or parameter missing on either side, or a default that differs,
is an error. Return types are not compared; the stub's docstrings say where they come from.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mypy.stubtest", reason="mypy is in the test extra")

STUB_ONLY = ("aqmlab._native.Column", "aqmlab._native.Tables")
"""Type aliases the stub declares for its callers; the module has no such names."""


def test_the_stub_matches_the_compiled_module(tmp_path: Path) -> None:
    allowlist = tmp_path / "allowlist"
    allowlist.write_text("".join(f"{name}\n" for name in STUB_ONLY), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "aqmlab._native", "--allowlist", str(allowlist)],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-1000:]
