"""Scenarios built to break the reader: huge numbers, deep nesting, long keys, terminal escapes.

Each is refused in well under a second with one line naming the key path and the limit, never a
traceback (RecursionError, int-conversion limits) or minutes of quadratic work.
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from aqmlab import resolve
from aqmlab.errors import MAX_MESSAGE, ScenarioError
from conftest import BASE_TOML, base, invoke

RANGE = "expected a number within this key's range, got a "
DEEP = "nested deeper than 32 levels"

# (id, scenario text, the error line's start, text it must contain)
CASES: list[tuple[str, str, str, str]] = [
    ("int-5000-digits", BASE_TOML.replace("seed = 1", "seed = " + "7" * 5000), "seed:", RANGE),
    ("int-negative-huge", BASE_TOML.replace("seed = 1", "seed = -" + "7" * 40), "seed:", RANGE),
    ("int-above-u64", BASE_TOML.replace("seed = 1", "seed = 18446744073709551616"), "seed:", RANGE),
    ("int-in-array", BASE_TOML + "x = [1, [2, " + "9" * 5000 + "]]\n", "traffic[0].x:", RANGE),
    ("int-underscores", BASE_TOML + "x = " + "1_" * 40 + "1\n", "traffic[0].x:", RANGE),
    ("arrays-1000-deep", "x = " + "[" * 1000 + "]" * 1000 + "\n" + BASE_TOML, "x:", DEEP),
    ("inline-tables-1000-deep", "x = " + "{a=" * 1000 + "1" + "}" * 1000, "x.a.a", DEEP),
    ("dotted-key-100000", "a" + ".a" * 100_000 + " = 1\n", "a.a.a", DEEP),
    ("header-100000", "[" + ".a" * 100_000 + "]\n", "a.a.a", DEEP),
    ("array-tables-deep", "[[" + "a." * 40 + "a]]\n", "a.a.a", DEEP),
    ("mixed-nesting", BASE_TOML + "[traffic.x]\ny.z = " + "[{a=" * 20 + "1" + "}]" * 20,
     "traffic[0].x.y.z", DEEP),  # fmt: skip
]


@pytest.mark.parametrize("case_id", [case[0] for case in CASES])
def test_hostile_scenario_is_one_line_error(tmp_path: Path, case_id: str) -> None:
    text, start, needle = next(case[1:] for case in CASES if case[0] == case_id)
    (tmp_path / "s.toml").write_text(text)
    started = time.monotonic()
    status, out, err = invoke(tmp_path, "validate", "s.toml")
    assert time.monotonic() - started < 5
    assert status == 2, err
    assert out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"error: {start}") and needle in err, err
    assert len(err) < MAX_MESSAGE + 100


def test_control_characters_are_escaped_in_messages(tmp_path: Path) -> None:
    """ESC sequences and newlines from the input never reach the terminal as themselves."""
    text = BASE_TOML.replace('"3s"', '"\\u001b[2J\\u001b[31mred\\nline\\u202e"')
    text += '"\\u001b]0;title\\u0007" = 1\n'
    (tmp_path / "s.toml").write_text(text)
    status, _, err = invoke(tmp_path, "validate", "s.toml")
    assert status == 2
    assert len(err.splitlines()) == 1
    assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f\u202e]", err), repr(err)
    assert "\\x1b[2J\\x1b[31mred\\nline\\u202e" in err or "\\x1b]0;title\\x07" in err, err


def test_huge_values_are_cut_in_messages(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(BASE_TOML.replace('"3s"', '"' + "x" * 1_000_000 + '"'))
    status, _, err = invoke(tmp_path, "validate", "s.toml")
    assert status == 2 and err.startswith("error: duration:"), err[:200]
    assert len(err) < MAX_MESSAGE + 100 and "more characters)" in err


def test_oversized_and_endless_files_are_refused(tmp_path: Path) -> None:
    status, _, err = invoke(tmp_path, "validate", "/dev/zero")
    assert status == 2 and err == "error: /dev/zero: larger than 16 MiB, not a scenario\n"


@pytest.mark.parametrize(
    ("option", "expected"),
    [
        ("x=" + "[" * 500 + "]" * 500, "error: --set x: value nested deeper than 32 levels"),
        ("a" + ".a" * 100_000 + "=1", "error: --set: bad key path"),
        ("seed=" + "9" * 5000, "error: --set seed: value " + RANGE),
        ("\x1b[31m=1", "error: --set: bad key path \"\\x1b[31m\""),
    ],
)
def test_hostile_set_option(tmp_path: Path, option: str, expected: str) -> None:
    (tmp_path / "s.toml").write_text(BASE_TOML)
    status, _, err = invoke(tmp_path, "validate", "s.toml", "--set", option)
    assert status == 2 and err.startswith(expected), err[:300]
    assert len(err.splitlines()) == 1 and len(err) < MAX_MESSAGE + 100


def _nested(depth: int) -> dict[str, Any]:
    scenario = base()
    node: dict[str, Any] = scenario
    for _ in range(depth):
        node["x"] = {}
        node = node["x"]
    return scenario


@pytest.mark.parametrize(
    ("scenario", "expected"),
    [
        (_nested(5000), "x.x.x"),
        ({**base(), (1, 2): 3}, "expected text keys, got the key (1, 2) (tuple)"),
        ({**base(), "seed": 2**70}, "seed: " + RANGE),
        ({**base(), "seed": object()}, "seed: expected text, a number"),
        ({**base(), "name": "\ud800"}, "name: expected text, got '\\ud800'"),
        ({**base(), "seed": np.float64("inf")}, "seed: expected a finite number, got inf"),
    ],
)
def test_hostile_scenario_dicts(scenario: dict[str, Any], expected: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        resolve(scenario)
    assert expected in str(caught.value)


def test_a_scenario_holding_itself_is_too_deep() -> None:
    scenario = base()
    scenario["queue"]["self"] = scenario
    with pytest.raises(ScenarioError, match=DEEP):
        resolve(scenario)


def test_numpy_numbers_are_numbers() -> None:
    scenario = base()
    scenario["seed"] = np.int64(7)
    scenario["traffic"][0]["flows"] = np.uint8(2)
    scenario["traffic"] = tuple(scenario["traffic"])
    resolved = resolve(scenario)
    assert resolved["seed"] == 7 and resolved["traffic"][0]["flows"] == 2
