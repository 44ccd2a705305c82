"""Golden runs: whole runs whose outputs are checked in and compared exactly.

Each ``tests/golden/NAME.toml`` is run at its own seed; its ``summary.json`` (less what changes
from build to build: the build, the version, the wall time) and a SHA-256 digest of every table
must equal ``tests/golden/NAME.json`` bit for bit. Any change of behaviour therefore shows in
review as a changed golden file, to be explained in the commit that makes it.

Regenerate after an intended change (and say why in the commit)::

    AQMLAB_UPDATE_GOLDEN=1 pytest tests/test_golden.py
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import aqmlab
import pytest

GOLDEN = Path(__file__).parent / "golden"
SCENARIOS = sorted(GOLDEN.glob("*.toml"))
VOLATILE_META = ("build", "version", "wall_s", "provenance")
"""``meta`` keys that differ between builds, machines or commands, not with behaviour."""


def fingerprint(result: aqmlab.Result) -> dict[str, Any]:
    """The summary less its volatile ``meta`` keys, and each table's rows and digest.

    A table's digest is the SHA-256 of its CSV text (floats written with ``repr``, so exact).
    """
    summary = json.loads(json.dumps(result.summary))
    for key in VOLATILE_META:
        summary["meta"].pop(key, None)
    tables = {}
    for name, frame in result.tables.items():
        text = frame.to_csv(index=False, lineterminator="\n")
        tables[name] = {"rows": len(frame), "sha256": hashlib.sha256(text.encode()).hexdigest()}
    return {"summary": summary, "tables": tables}


def differences(expected: Any, actual: Any, path: str = "") -> list[str]:
    """The paths where two JSON values differ, with both values (for a readable failure).

    >>> differences({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3], "c": 0})
    ['b[1]: 2 → 3', 'c: (missing) → 0']
    """
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in sorted(set(expected) | set(actual), key=str):
            sub = f"{path}.{key}" if path else str(key)
            if key not in expected:
                out.append(f"{sub}: (missing) → {actual[key]!r}")
            elif key not in actual:
                out.append(f"{sub}: {expected[key]!r} → (missing)")
            else:
                out += differences(expected[key], actual[key], sub)
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [d for i, (e, a) in enumerate(zip(expected, actual, strict=True))
                for d in differences(e, a, f"{path}[{i}]")]  # fmt: skip
    return [] if expected == actual else [f"{path}: {expected!r} → {actual!r}"]


def test_there_are_golden_runs() -> None:
    assert len(SCENARIOS) >= 5, SCENARIOS


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_golden_run_is_unchanged(scenario: Path) -> None:
    actual = fingerprint(aqmlab.run(scenario))
    assert actual["summary"]["checks"]["counter_identities"], actual["summary"]["checks"]
    expected_path = scenario.with_suffix(".json")
    if os.environ.get("AQMLAB_UPDATE_GOLDEN") == "1":
        expected_path.write_text(json.dumps(actual, indent=1, sort_keys=True) + "\n")
    assert expected_path.exists(), f"no golden file: run AQMLAB_UPDATE_GOLDEN=1 pytest {__file__}"
    expected = json.loads(expected_path.read_text())
    diff = differences(expected, actual)
    assert not diff, f"{scenario.name} changed ({len(diff)} values):\n" + "\n".join(diff[:40])
