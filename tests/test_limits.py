"""Limits, engine side: a limit stops a run with one clear error, Ctrl-C stops it at once, and
floats pass between the front and the engine bit for bit."""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import aqmlab
import pytest
from aqmlab.errors import ScenarioError
from conftest import BASE, cli, interruptible


def test_a_reached_limit_is_a_scenario_error_naming_its_key() -> None:
    scenario = copy.deepcopy(BASE) | {"limits": {"max_events": 500}}
    with pytest.raises(ScenarioError) as err:
        aqmlab.run(scenario)
    assert err.value.path == "limits.max_events"
    assert "raise limits.max_events" in err.value.message


def test_the_command_line_reports_a_reached_limit_in_one_line(scenario_file: Path) -> None:
    # 1 ns link rows over 2.5 measured seconds: 5·10^9 rows. This aborted the process.
    out = scenario_file.parent / "out"
    proc = cli("run", scenario_file, "--set", 'measure.link_interval="1ns"', "--out", out,
               cwd=scenario_file.parent)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "limits.max_table_memory" in lines[0] and "measure.link_interval" in lines[0]
    assert "Traceback" not in proc.stderr


LONG_RUN = textwrap.dedent("""
    import sys, aqmlab
    scenario = {
        "duration": "100000h",
        "topology": {"bottleneck": {"rate": "100Mbps"}},
        "traffic": [{"kind": "cbr", "rate": "90Mbps"}],
        "measure": {"queue_sample": "1s", "queue_interval": "1000h", "link_interval": "1000h"},
    }
    print("running", flush=True)
    try:
        aqmlab.run(scenario)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
""")


def test_ctrl_c_stops_a_long_run_within_a_second() -> None:
    # One chunk of this run (a 200th of it) takes minutes: the run must notice Ctrl-C inside it.
    proc = subprocess.Popen([sys.executable, "-c", LONG_RUN], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=interruptible)  # fmt: skip
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "running\n"
        time.sleep(1.0)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        stopped = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert out == "interrupted\n"
    assert "panic" not in err
    assert stopped < 1.0


def test_scenario_floats_reach_the_engine_exactly() -> None:
    # A double that serde_json's default (fast, not always correctly rounded) reader gets one unit
    # in the last place wrong.
    p = 0.047733761598857956
    scenario = copy.deepcopy(BASE) | {"queue": {"kind": "bernoulli", "p": p}}
    resolved = aqmlab.resolve(scenario)
    assert resolved["queue"]["p"].hex() == p.hex()
    summary = aqmlab.run(scenario).summary
    assert json.loads(json.dumps(summary)) == summary
    assert summary["meta"]["scenario"]["queue"]["p"].hex() == p.hex()
