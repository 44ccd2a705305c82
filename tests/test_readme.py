"""The README's examples work as written: each command of its shell block after the set-up, its
scenario (validated) and its Python example (run as a script, so that a missing
``if __name__ == "__main__":`` guard would fail). They run in a scratch directory that sees the
repository's ``scenarios/``, with ``aqmlab`` the command this Python provides."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", README, re.S)


def _commands() -> list[list[str]]:
    """The ``aqmlab ...`` lines of the README's shell blocks, comments cut."""
    lines = [line.split("  #", 1)[0].strip()
             for block in _blocks("sh") for line in block.splitlines()]  # fmt: skip
    return [shlex.split(line) for line in lines if line.startswith("aqmlab ")]


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    (tmp_path / "scenarios").symlink_to(ROOT / "scenarios")
    return tmp_path


def test_the_readme_commands_run_in_order(scratch: Path) -> None:
    commands = _commands()
    assert len(commands) >= 5, commands
    for argv in commands:
        done = subprocess.run([sys.executable, "-m", "aqmlab", *argv[1:]], cwd=scratch,
                              capture_output=True, text=True, timeout=600, check=False)  # fmt: skip
        assert done.returncode == 0, (argv, done.stderr[-2000:])


def test_the_readme_scenario_is_valid(scratch: Path) -> None:
    (toml,) = _blocks("toml")
    (scratch / "s.toml").write_text(toml, encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "aqmlab", "validate", "s.toml"], cwd=scratch,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_the_readme_python_example_runs_as_a_script(scratch: Path) -> None:
    (python,) = _blocks("python")
    (scratch / "example.py").write_text(python, encoding="utf-8")
    done = subprocess.run([sys.executable, "example.py"], cwd=scratch, capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "requests.median_s" in done.stdout
