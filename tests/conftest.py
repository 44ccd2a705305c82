"""Shared helpers: a small valid scenario and a way to run the command line."""

from __future__ import annotations

import contextlib
import copy
import functools
import json
import os
import signal
import struct
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


def interruptible() -> None:
    """Give a child process the default Ctrl-C action (``Popen(preexec_fn=interruptible)``).

    A test suite started in the background (``nohup ./dev test &``) inherits SIGINT ignored, and
    Python then never raises KeyboardInterrupt: the Ctrl-C tests would test nothing but that.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -m aqmlab ARGS`` in ``cwd`` and capture its output."""
    return subprocess.run(
        [sys.executable, "-m", "aqmlab", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def invoke(cwd: Path, *args: str) -> tuple[int, str, str]:
    """Run the command line in this process (fast: no start-up), in ``cwd``.

    Returns the exit status, stdout and stderr; an exception that escapes the command (which
    would be a traceback) fails the test.
    """
    from aqmlab.cli import app
    from typer.testing import CliRunner

    with contextlib.chdir(cwd):
        result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def smoke_reproduction(paper: str, ids: list[str], tmp_path: Path) -> tuple[Path, str]:
    """Reproduce ``paper`` at smoke scale through the CLI and return its folder and report.

    Checks that every finding of ``ids`` is judged, in order (none "not run"), and that a
    revised criterion's first form is in ``findings.json`` (judged again when its judge runs)
    and in the report, as is a claim the paper states two ways.
    """
    from aqmlab import papers

    done = cli("reproduce", paper, "--scale", "smoke", "--out", "out", "--jobs", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = tmp_path / "out"
    report = (out / "report.md").read_text()
    assert "test the plumbing, not the paper" in report and "## Verdicts" in report
    findings = json.loads((out / "findings.json").read_text())["findings"]
    assert [f["id"] for f in findings] == ids
    assert all(f["status"] in ("holds", "does not hold") for f in findings), findings
    study = papers.get(paper)
    for entry in findings:
        finding = study.finding(entry["id"])
        first = finding.revised_from
        assert (entry["revised_from"] is None) == (first is None), entry["id"]
        if first is not None:
            judged = entry["revised_from"]["status"] in ("holds", "does not hold")
            assert judged == (first.judge is not None), entry["id"]
            assert f"| {entry['id']} | {first.criterion}" in report
        assert entry["paper_inconsistent"] == (finding.inconsistent or None)
    return out, report


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    """The small valid scenario written as a TOML file."""
    path = tmp_path / "tiny.toml"
    path.write_text(BASE_TOML)
    return path


def records(path: Path) -> list[tuple[int, int, int, bytes]]:
    """Read a nanosecond pcap file by hand: (time ns, caplen, len, frame bytes) per record."""
    data = path.read_bytes()
    magic, major, minor, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 1)
    out, at = [], 24
    while at < len(data):
        sec, nsec, caplen, length = struct.unpack("<IIII", data[at : at + 16])
        assert nsec < 10**9 and caplen == min(length, snaplen)
        out.append((sec * 10**9 + nsec, caplen, length, data[at + 16 : at + 16 + caplen]))
        at += 16 + caplen
    assert at == len(data)
    return out


@functools.cache
def why_no_namespaces() -> str | None:
    """Say why live mode cannot make network namespaces here (``None`` when it can).

    Not root, no ``ip`` (iproute2), no ``/dev/net/tun``, or ``ip netns add`` refused: asked once.
    """
    from aqmlab.live.lab import LiveUnavailable, check_can_run

    try:
        check_can_run()
    except LiveUnavailable as err:
        return err.message
    probe = subprocess.run(["ip", "netns", "add", f"aqmlab-probe-{os.getpid()}"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if probe.returncode != 0:
        return f"cannot make a network namespace here: {probe.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", f"aqmlab-probe-{os.getpid()}"], check=False)
    return None


def needs_namespaces(test: Any) -> Any:
    """Mark a test that makes network namespaces (live mode): skipped, saying why, where it
    cannot."""
    why = why_no_namespaces()
    return pytest.mark.skipif(
        why is not None, reason=f"live mode needs network namespaces: {why}"
    )(test)
