"""Scenario fuzzing: every scenario file is either refused in one line or runs with sound counters.

Three sources of scenarios, each through ``aqmlab validate`` and, when cheap enough, ``aqmlab run``
(in this process, through the command line's entry point):

- the shipped scenarios and the examples of ``docs/scenario.md``, mutated as values: values of
  other types, out of range, huge, deeply nested, with control characters; keys deleted or added;
- the same files mutated as text: spans deleted, duplicated or replaced with brackets, quotes and
  control characters;
- small valid scenarios built at random.

The oracle: exit status 2 with one line ``error: ...`` (no traceback, no control character, not
huge), or exit 0 and, for a run, the engine's counter identities hold and the run re-runs from
its own run directory to the same summary and the same table bytes. The seeds reach every key
and kind docs/scenario.md documents (a test checks it; ``fuzz_seeds/`` holds the seeds written
for that). Failures found are kept
in ``tests/fuzz_corpus/`` and replayed first.

The suite runs a few hundred scenarios; ``./dev fuzz`` runs 10,000 (``AQMLAB_FUZZ_SCENARIOS``).
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from aqmlab.errors import MAX_MESSAGE
from conftest import BASE, ROOT, cli, invoke
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

CORPUS = Path(__file__).parent / "fuzz_corpus"
TOTAL = int(os.environ.get("AQMLAB_FUZZ_SCENARIOS", "240"))
"""Scenarios generated over the three targets (half mutated values, 3/10 text, 1/5 valid)."""


def _fuzz_settings(share: float) -> settings:
    return settings(
        max_examples=max(1, round(TOTAL * share)),
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _doc_examples() -> list[dict[str, Any]]:
    """The ``toml`` and ``toml fragment`` blocks of docs/scenario.md over the base scenario."""
    text = (ROOT / "docs" / "scenario.md").read_text()
    examples = []
    for block in re.findall(r"```toml(?: fragment)?\n(.*?)```", text, re.S):
        try:
            fragment = tomllib.loads(block)
        except tomllib.TOMLDecodeError:
            continue
        examples.append({**copy.deepcopy(BASE), **fragment})
    return examples


SEED_FILES = sorted((ROOT / "scenarios").glob("*.toml")) + sorted(
    (Path(__file__).parent / "fuzz_seeds").glob("*.toml")
)
"""The shipped scenarios and the seeds written to reach every documented key (``fuzz_seeds/``)."""
SEED_TEXTS = [p.read_text() for p in SEED_FILES]
SEEDS = [tomllib.loads(t) for t in SEED_TEXTS] + _doc_examples()

NOT_KEYS = ("`tc` command lines", "The profiles", "The RED profiles")
"""Sections of docs/scenario.md whose tables list ``tc`` words or profiles' values, not keys."""
VALUED = ("kind", "dist", "profile", "congestion_control", "handshake", "rto", "count", "timing",
          "connections", "users_on", "peer", "halve", "interpolation")  # fmt: skip
"""Keys whose every documented value (the quoted strings of their row) a seed must use."""


def documented_keys() -> tuple[set[str], set[str]]:
    """The keys of docs/scenario.md's input tables (dotted as written) and the values of VALUED.

    >>> keys, values = documented_keys()
    >>> {"min_th", "bottleneck.framing", "max_cdf_rows"} <= keys, '"fq_codel"' in values
    (True, True)
    """
    text = (ROOT / "docs" / "scenario.md").read_text().split("\n## Outputs")[0]
    keys: set[str] = set()
    values: set[str] = set()
    section = ""
    for line in text.splitlines():
        if line.startswith("#"):
            section = line.strip("# ")
        row = re.match(r"\| ((?:`[A-Za-z_][A-Za-z0-9_.]*`(?:, )?)+) \|([^|]*)\|", line)
        if row is None or section.startswith(NOT_KEYS):
            continue
        names = re.findall(r"`([A-Za-z_][A-Za-z0-9_.]*)`", row.group(1))
        keys.update(names)
        if len(names) == 1 and names[0] in VALUED:
            values.update(f"{names[0]}={v}" for v in re.findall(r'`("[^"`]+")`', row.group(2)))
    return keys, {v.split("=", 1)[1] for v in values}


def seen_in_seeds() -> tuple[set[str], set[str]]:
    """Every key path suffix (``framing``, ``bottleneck.framing``) and string value in a seed."""
    paths: set[str] = set()
    values: set[str] = set()
    stack: list[tuple[Any, tuple[str, ...]]] = [(seed, ()) for seed in SEEDS]
    while stack:
        node, at = stack.pop()
        if isinstance(node, dict):
            for key, child in node.items():
                here = (*at, key)
                paths.update(".".join(here[i:]) for i in range(len(here)))
                stack.append((child, here))
        elif isinstance(node, list):
            stack.extend((child, at) for child in node)
        elif isinstance(node, str):
            values.add(f'"{node}"')
    return paths, values


def test_the_seeds_reach_every_documented_key_and_kind() -> None:
    """A key or kind no seed uses is one the fuzzer never mutates (FQ-CoDel's resolved quantum
    did not read back, and no fuzzed scenario had FQ-CoDel to find it)."""
    keys, kinds = documented_keys()
    paths, values = seen_in_seeds()
    assert not sorted(keys - paths), "documented keys in no seed (add them to tests/fuzz_seeds/)"
    assert not sorted(kinds - values), "documented kinds in no seed (add them to tests/fuzz_seeds/)"


# --- writing TOML -------------------------------------------------------------------------------
def _toml_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


class Raw(str):
    """TOML text written as it is (an integer too long for Python's ``str``)."""


def toml_value(value: Any) -> str:
    """Write a value as TOML (tables inline)."""
    if isinstance(value, Raw):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    items = ", ".join(f"{_toml_string(k)} = {toml_value(v)}" for k, v in value.items())
    return "{" + items + "}"


def to_toml(scenario: dict[str, Any]) -> str:
    """Write a scenario as TOML: one line per top-level key."""
    return "".join(f"{_toml_string(k)} = {toml_value(v)}\n" for k, v in scenario.items())


# --- strategies ---------------------------------------------------------------------------------
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)
UNITS = ["", "s", "ms", "us", "min", "h", "bps", "kbps", "Mbps", "Gbps", "B", "KB", "MB", "p"]
SCALARS = st.one_of(
    st.integers(-(2**66), 2**66),
    st.sampled_from([0, -1, 1, 2**63, 2**64, 10**40]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    TEXT,
    st.builds(lambda n, u: f"{n}{u}", st.integers(-5, 10**12) | st.floats(-1, 1e9),
              st.sampled_from(UNITS)),  # fmt: skip
    st.sampled_from(["red", "droptail", "codel", "pie", "fq_codel", "poisson", "cbr", "ftp",
                     "web-mah", "\x1b[2J", "é" * 300]),  # fmt: skip
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=5,
)


def _slots(node: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in a scenario, to pick a place to mutate."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in list(items):
        out.append((node, key))
        if isinstance(value, dict | list):
            _slots(value, out)
    return out


@st.composite
def mutated_values(draw: st.DrawFn) -> str:
    scenario = copy.deepcopy(draw(st.sampled_from(SEEDS)))
    scenario.update(duration="2s", warmup="500ms")  # short enough to run, unless mutated
    for _ in range(draw(st.integers(1, 3))):
        container, key = draw(st.sampled_from(_slots(scenario, [])))
        op = draw(st.sampled_from(["replace", "replace", "delete", "add", "nest", "huge"]))
        if op == "replace":
            container[key] = draw(VALUES)
        elif op == "delete":
            del container[key]
        elif op == "add" and isinstance(container, dict):
            container[draw(TEXT)] = draw(VALUES)
        elif op == "nest":
            value = container[key]
            for _ in range(draw(st.integers(1, 60))):
                value = [value] if draw(st.booleans()) else {"x": value}
            container[key] = value
        elif op == "huge":
            container[key] = draw(st.sampled_from(["x" * 100_000, Raw("7" * 5000), [0] * 10_000]))
    return to_toml(scenario)


NOISE = st.sampled_from(["[", "]", "{", "}", "=", ".", ",", '"', "'", '"""', "\n", "#", "\x1b",
                         "\x00", "[[", "a.b.c", "1e999", "9" * 50, "\\u001b", "é"])  # fmt: skip


SHORT = [re.sub(r"^warmup *=.*$", 'warmup = "500ms"',
                re.sub(r"^duration *=.*$", 'duration = "2s"', t, flags=re.M), flags=re.M)
         for t in SEED_TEXTS]  # fmt: skip
"""The shipped scenarios shortened to two seconds, short enough to run unless mutated."""


@st.composite
def mutated_text(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(SHORT))
    for _ in range(draw(st.integers(1, 4))):
        start = draw(st.integers(0, len(text)))
        end = min(len(text), start + draw(st.integers(0, 40)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "truncate"]))
        if op == "delete":
            text = text[:start] + text[end:]
        elif op == "insert":
            text = text[:start] + "".join(draw(st.lists(NOISE | TEXT, max_size=5))) + text[start:]
        elif op == "duplicate":
            text = text[:end] + text[start:end] * draw(st.integers(1, 50)) + text[end:]
        else:
            text = text[:start]
    return text


GROUPS = st.one_of(
    st.fixed_dictionaries({"kind": st.just("poisson"), "flows": st.integers(1, 5),
                           "rate": st.integers(10, 4000).map(lambda k: f"{k}kbps")}),
    st.fixed_dictionaries({"kind": st.just("cbr"),
                           "rate": st.integers(10, 4000).map(lambda k: f"{k}kbps")}),
    st.fixed_dictionaries({"kind": st.just("ftp"), "flows": st.integers(1, 4),
                           "size": st.integers(1, 200).map(lambda k: f"{k}KB")}),
)  # fmt: skip
QUEUES = st.one_of(
    st.fixed_dictionaries({"kind": st.just("droptail"),
                           "limit": st.sampled_from(["1p", "5p", "50p", "3000B", "64KB"])}),
    st.fixed_dictionaries({"kind": st.just("red"),
                           "limit": st.sampled_from(["20p", "100p", "64KB"])}),
    st.fixed_dictionaries({"kind": st.just("codel"),
                           "limit": st.sampled_from(["1p", "5p", "1000p"]),
                           "target": st.sampled_from(["1ms", "5ms"]), "ecn": st.booleans()}),
    st.fixed_dictionaries({"kind": st.just("pie"),
                           "limit": st.sampled_from(["1p", "5p", "1000p"]),
                           "tupdate": st.sampled_from(["1ms", "15ms"]), "ecn": st.booleans()}),
    st.fixed_dictionaries({"kind": st.just("fq_codel"),
                           "limit": st.sampled_from(["1p", "5p", "10240p"]),
                           "flows": st.sampled_from([1, 2, 1024]),
                           "quantum": st.sampled_from(["256B", "1514B"]), "ecn": st.booleans()}),
)  # fmt: skip


@st.composite
def valid_small(draw: st.DrawFn) -> str:
    scenario = {
        "seed": draw(st.integers(0, 2**64 - 1)),
        "duration": f"{draw(st.integers(1, 3))}s",
        "topology": {
            "servers": draw(st.integers(1, 3)),
            "clients": draw(st.integers(1, 3)),
            "bottleneck": {
                "rate": f"{draw(st.sampled_from([1, 2, 10]))}Mbps",
                "delay": f"{draw(st.integers(0, 50))}ms",
            },
        },
        "queue": draw(QUEUES),
        "traffic": draw(st.lists(GROUPS, max_size=3)),
    }
    return to_toml(scenario)


# --- the oracle ---------------------------------------------------------------------------------
_RATE = re.compile(r"([0-9.]+)(bps|kbps|Mbps|Gbps)")
_SCALE = {"bps": 1, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}


def cheap(resolved: dict[str, Any]) -> bool:
    """Tell whether a resolved scenario runs in well under a second (short, slow, few hosts)."""
    numbers: list[float] = []
    rates: list[float] = []
    stack: list[Any] = [{k: v for k, v in resolved.items() if k != "seed"}]
    while stack:
        node = stack.pop()
        if isinstance(node, dict | list):
            stack.extend(node.values() if isinstance(node, dict) else node)
        elif isinstance(node, int | float) and not isinstance(node, bool):
            numbers.append(node)
        elif isinstance(node, str) and (match := _RATE.fullmatch(node)):
            rates.append(float(match.group(1)) * _SCALE[match.group(2)])
    duration = str(resolved["duration"])
    short = duration.endswith("ms") or (duration.endswith("s") and float(duration[:-1]) <= 3)
    return short and max(numbers, default=0) <= 2000 and max(rates, default=0) <= 1e8


def check_one_line(status: int, err: str) -> None:
    """Exit 0, or exit 2 with one printable line ``error: ...`` of bounded length."""
    assert status in (0, 2), f"exit {status}: {err[-2000:]}"
    if status == 2:
        assert err.startswith("error: ") and err.endswith("\n"), err[:2000]
        assert err.count("\n") == 1, err[:2000]
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", err), repr(err[:2000])
        assert len(err) < MAX_MESSAGE + 100, err[:300]


def check_scenario(workdir: Path, text: str) -> str:
    """Validate ``text``; run it too when it is valid and cheap; apply the oracle to both.

    Returns what happened, for Hypothesis' statistics: refused, valid (not run), or ran.
    """
    (workdir / "s.toml").write_text(text, encoding="utf-8")
    status, out, err = invoke(workdir, "validate", "s.toml")
    check_one_line(status, err)
    if status != 0:
        return "refused"
    if not cheap(json.loads(out.split("\n", 1)[1])):
        return "valid, too costly to run"
    status, out, err = invoke(workdir, "run", "s.toml", "--out", "run", "--force")
    check_one_line(status, err)
    if status != 0:
        return "valid, refused by run"
    checks = json.loads((workdir / "run" / "summary.json").read_text())["checks"]
    assert checks["counter_identities"] is True and not checks["violations"], checks
    check_rerun(workdir)
    return "ran, counter identities hold, re-ran from its run directory bit for bit"


def _outcome(summary_file: Path) -> dict[str, Any]:
    """A summary without what depends on the run's host and moment (wall time, command line)."""
    summary: dict[str, Any] = json.loads(summary_file.read_text())
    for key in ("wall_s", "provenance"):
        summary["meta"].pop(key, None)
    return summary


def check_rerun(workdir: Path) -> None:
    """Run ``workdir/run`` again from its own directory (its resolved scenario, written and read
    back): the same summary and the same table bytes."""
    status, _, err = invoke(workdir, "run", "run", "--out", "rerun", "--force")
    assert status == 0, f"the run directory did not re-run: {err[:2000]}"
    first, again = workdir / "run", workdir / "rerun"
    assert _outcome(again / "summary.json") == _outcome(first / "summary.json")
    for table in sorted(first.glob("*.parquet")):
        assert (again / table.name).read_bytes() == table.read_bytes(), table.name


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*.toml")), ids=lambda p: p.name)
def test_corpus(workdir: Path, path: Path) -> None:
    """Every failure the fuzzer found, kept."""
    check_scenario(workdir, path.read_text(encoding="utf-8"))


@_fuzz_settings(0.5)
@given(text=mutated_values())
def test_mutated_values(workdir: Path, text: str) -> None:
    event(check_scenario(workdir, text))


@_fuzz_settings(0.3)
@given(text=mutated_text())
def test_mutated_text(workdir: Path, text: str) -> None:
    event(check_scenario(workdir, text))


@_fuzz_settings(0.2)
@given(text=valid_small())
def test_valid_small_scenarios(workdir: Path, text: str) -> None:
    event(check_scenario(workdir, text))


REAL = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*.toml"))[:3]] + [
    SEED_TEXTS[0][: len(SEED_TEXTS[0]) // 2],
    SEED_TEXTS[1].replace("= ", "= " + "[" * 500, 1),
    SEED_TEXTS[2].replace('"', '"\x1b[2J', 2),
]


@pytest.mark.parametrize("text", REAL, ids=range(len(REAL)))
def test_in_a_real_process(tmp_path: Path, text: str) -> None:
    """A few corpus files and mutations through a real ``python -m aqmlab``, as users run it."""
    (tmp_path / "s.toml").write_text(text, encoding="utf-8")
    done = cli("validate", "s.toml", cwd=tmp_path)
    check_one_line(done.returncode, done.stderr)
