"""Shared helpers: a small valid scenario and a way to run the command line."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]

BASE_TOML = """\
name = "tiny"
seed = 1
duration = "3s"
warmup = "500ms"

[topology]
servers = 2
clients = 2
bottleneck = { rate = "10Mbps", delay = "5ms" }

[queue]
kind = "droptail"
limit = "20p"

[[traffic]]
name = "web"
kind = "poisson"
flows = 4
rate = "2.5Mbps"
"""

BASE: dict[str, Any] = {
    "name": "tiny",
    "seed": 1,
    "duration": "3s",
    "warmup": "500ms",
    "topology": {
        "servers": 2,
        "clients": 2,
        "bottleneck": {"rate": "10Mbps", "delay": "5ms"},
    },
    "queue": {"kind": "droptail", "limit": "20p"},
    "traffic": [{"name": "web", "kind": "poisson", "flows": 4, "rate": "2.5Mbps"}],
}


def base() -> dict[str, Any]:
    """A fresh copy of the small valid scenario (same as BASE_TOML)."""
    return copy.deepcopy(BASE)


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m aqmlab ARGS`` in ``cwd`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    """The small valid scenario written as a TOML file."""
    path = tmp_path / "tiny.toml"
    path.write_text(BASE_TOML)
    return path
