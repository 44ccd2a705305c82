"""Ctrl-C stops a sweep of parallel runs promptly and keeps the runs that had finished.

The sweep runs in its own session, and SIGINT goes to the whole process group, as a terminal's
Ctrl-C does. The bound is generous (a loaded 2-core CI machine); the time is printed with ``-s``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import interruptible

# Each run takes about a second of wall time: a 1 Gbps bottleneck carrying 900 Mbps.
SLOW_TOML = """\
duration = "6s"

[topology]
bottleneck = { rate = "1Gbps", delay = "1ms" }

[[traffic]]
kind = "poisson"
rate = "900Mbps"
"""

STOP_WITHIN_S = 10.0


def _finished(store: Path) -> set[str]:
    runs = store / "runs"
    if not runs.is_dir():
        return set()
    return {p.name for p in runs.iterdir() if not p.name.startswith(".")}


def _start(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "aqmlab", *args], cwd=tmp_path, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=interruptible,
    )  # fmt: skip


def _sweep(tmp_path: Path) -> subprocess.Popen[str]:
    return _start(tmp_path, "sweep", "slow.toml", "--seeds", "1-8", "--jobs", "2", "--out", "store")


def _interrupt(proc: subprocess.Popen[str], store: Path, shown: str) -> set[str]:
    """Send Ctrl-C once two runs are in ``store`` (``shown`` so); check the exit; return them."""
    deadline = time.monotonic() + 120
    while len(_finished(store)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the command ended before it could be interrupted"
    kept = _finished(store)
    os.killpg(proc.pid, signal.SIGINT)
    sent = time.monotonic()
    _, err = proc.communicate(timeout=60)
    took = time.monotonic() - sent
    print(f"\nSIGINT to exit: {took:.2f} s ({len(kept)} runs finished before it)")
    assert proc.returncode == 130, err
    assert took <= STOP_WITHIN_S, f"took {took:.1f} s to stop"
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"error: interrupted; the finished runs are kept in {shown}"), err
    assert "run the same command again" in lines[-1] and "Traceback" not in err
    assert kept <= _finished(store)
    leftovers = [p.name for p in (store / "runs").iterdir() if p.name.startswith(".")]
    assert not leftovers, leftovers
    return kept


def test_ctrl_c_stops_a_reproduction(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = _start(tmp_path, "reproduce", "christiansen2000", "--only", "C1", "--jobs", "2",
                  "--out", str(out))  # fmt: skip
    _interrupt(proc, out / "store", str(out / "store"))


def test_ctrl_c_stops_a_sweep_and_keeps_finished_runs(tmp_path: Path) -> None:
    (tmp_path / "slow.toml").write_text(SLOW_TOML)
    kept = _interrupt(_sweep(tmp_path), tmp_path / "store", "store")
    again = _sweep(tmp_path)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    reused = int(out.split(" reused")[0].rsplit(" ", 1)[-1])
    assert reused >= len(kept), out
