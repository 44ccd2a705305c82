r"""Every example in README.md and the guides under docs/ runs as written.

Each document's fenced code blocks are taken in order, in a scratch directory of their own that
looks like the repository's root (``python/``, ``docs/`` and the rest linked, ``scenarios/``
copied), so that a command may use what an earlier one wrote. What a block's fence says decides
what happens to it:

- ``sh`` (or ``console``, whose commands are the lines after ``$``): every command runs and must
  exit 0. ``\`` continues a line and ``#`` starts a comment; ``aqmlab`` is this Python's
  ``python -m aqmlab``, ``python`` this Python, and ``sudo`` is dropped when the test runs as
  root. A command or script that needs what this machine lacks (network namespaces for live
  mode, ns-2, ns-3: :func:`_missing`) is not run, and the test is skipped naming each such block
  and the reason, after every other block has run and passed.
- ``toml``: a whole scenario, sweep file or tune file, told apart by its keys, is read and
  validated as ``aqmlab validate``, ``aqmlab sweep`` and ``aqmlab tune`` would;
  ``toml fragment`` is a part of a scenario, validated in the small scenario of
  ``conftest.BASE`` (each of its top-level keys replacing the base's).
- ``python``: runs as a script (``python example.py``), so that a sweep without the
  ``if __name__ == "__main__":`` guard fails.
- ``text``: not run: output, diagrams, listings of files, synopses.

Any other fence, or a fence with no language, fails the test: every block says what it is.
Documents under ``docs/reproductions/`` and ``docs/tuning/`` are reports made by a run and the
record of how it was made (:data:`NOT_GUIDES`), not examples; ``docs/cli.md`` is generated from
the commands' help (``tests/test_cli_reference.py``) and holds only ``text`` blocks.

Where an example would take minutes, it runs at a short scale through :data:`SUBSTITUTIONS`: an
explicit list of texts replaced in one document's blocks (or in a scenario file of the scratch
copy), each with its reason. A substitution that no longer matches fails the test, so the list
cannot go stale. docs/guide.md ("Examples in the documentation") describes these conventions
for writers.
"""

from __future__ import annotations

import copy
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import BASE, ROOT, why_no_namespaces

TIMEOUT_S = 600
"""The most one command or script may take before the test gives up on it."""

NOT_GUIDES = ("docs/reproductions/", "docs/tuning/")
"""Folders of reports made by runs (report.md, and a README.md recording the command that made
it at full scale): records, not examples for a reader to run."""

FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.S | re.M)  # fmt: skip
"""A fenced code block, at any indentation (inside a list item too)."""

RUN = ("sh", "console")
"""Fence languages whose commands run."""


@dataclass(frozen=True)
class Block:
    """A fenced code block of a markdown document."""

    document: str
    line: int
    language: str
    attributes: tuple[str, ...]
    text: str

    @property
    def where(self) -> str:
        """Where the block starts, as ``document:line``."""
        return f"{self.document}:{self.line}"


def blocks(document: str) -> list[Block]:
    """Return the fenced code blocks of ``document`` (a path relative to the repository)."""
    text = (ROOT / document).read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        info = match["info"].split()
        indent = len(match["indent"])
        body = "".join(line[indent:] + "\n" for line in match["body"].splitlines())
        found.append(Block(document, text.count("\n", 0, match.start()) + 1,
                           info[0] if info else "", tuple(info[1:]), body))  # fmt: skip
    return found


def commands(block: Block) -> list[str]:
    """Return the commands of a ``sh`` or ``console`` block, continued lines joined."""
    lines = block.text.splitlines()
    if block.language == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    return [c.strip() for c in re.sub(r"\\\n", " ", "\n".join(lines)).split("\n") if c.strip()]


def documents() -> list[str]:
    """Return README.md and every guide under docs/, as paths relative to the repository."""
    guides = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))
    return ["README.md", *(g for g in guides if not g.startswith(NOT_GUIDES))]


@dataclass(frozen=True)
class Substitution:
    """A text replaced in one document's blocks, or in a scenario file of the scratch copy."""

    where: str
    old: str
    new: str
    why: str


SUBSTITUTIONS = (
    Substitution("scenarios/web-mah.toml", 'duration = "50min"\nwarmup = "30min"',
                 'duration = "90s"\nwarmup = "30s"',
                 "the README and the guide sweep Mah's 3,400 users over 50 minutes, seconds a "
                 "run: 90 s give every table and column the examples read"),
    Substitution("scenarios/live-cubic.toml", 'duration = "70s"\nwarmup = "10s"',
                 'duration = "5s"\nwarmup = "1s"',
                 "live runs take real time: 5 s go through the whole of live mode"),
    Substitution("README.md", "./dev demo",
                 "aqmlab reproduce christiansen2000 --scale smoke --only C1",
                 "./dev demo sets up the environment this test runs in, then runs aqmlab "
                 "reproduce christiansen2000 --scale quick (205 runs of 35 minutes); the smoke "
                 "scale (20-second runs) of one finding goes through the same pipeline"),
    Substitution("README.md", "./dev test", "bash -n dev",
                 "./dev test runs this test: here the script is only parsed"),
    Substitution("docs/guide.md", "duration=6min", "duration=90s",
                 "the figure's sweep of web users over 6 minutes takes half a minute; 90 s draw "
                 "the same figure from fewer requests"),
    Substitution("docs/guide.md", "warmup=3min", "warmup=30s", "as for duration=6min"),
    *(Substitution(doc, "--scale full --seeds 1-3 --trials 32",
                   "--scale quick --duration 20s --warmup 5s --seeds 1 --trials 5",
                   "the worked example calibrates and tunes on 90-minute runs (50 minutes of "
                   "wall time): 20-second runs, one seed and the four baselines plus one "
                   "searched trial go through the same steps")
      for doc in ("docs/guide.md", "docs/tuning.md")),
    Substitution("docs/tuning.md", "pip install 'aqmlab[tune]'", 'python -c "import optuna"',
                 "the test does not change its environment: it checks that the extra's package "
                 "is there"),
    Substitution("docs/tuning.md", "--seeds 1-3 --trials 40", "--seeds 1 --trials 2",
                 "40 trials of 3 seeds are 120 runs: two trials of one seed show the tune "
                 "works"),
    Substitution("docs/ns2-referee.md", "--suite --seeds 1-5",
                 "--suite --quick --seeds 1 --set duration=5s --set warmup=1s",
                 "the suite is 54 cases of 100-second runs in both simulators, 5 seeds each: "
                 "its 18 NewReno cases for 5 s, one seed, take seconds"),
    Substitution("docs/live.md", "--scale quick", "--scale smoke",
                 "a quick live-vs-sim reproduction is an hour of real time; the smoke scale "
                 "(6-second runs of CUBIC through drop-tail) goes through the same pipeline"),
    Substitution("docs/live.md", "--scale full", "--scale smoke", "as for --scale quick"),
    Substitution("docs/aqm-validation.md", '"duration": "100s"', '"duration": "10s"',
                 "100 s of CBR in ns-3 take a minute; 10 s exercise the same comparison"),
)  # fmt: skip
"""Texts the test replaces so that an example runs in seconds, each with its reason."""


def _scratch(where: Path) -> Path:
    """Make a directory that looks like the repository's root, with its own ``scenarios/``."""
    for entry in ROOT.iterdir():
        if entry.name.startswith(".") or entry.name in ("scenarios", "runs", "target"):
            continue
        (where / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "scenarios", where / "scenarios")
    for sub in SUBSTITUTIONS:
        if sub.where.startswith("scenarios/"):
            path = where / sub.where
            text = path.read_text(encoding="utf-8")
            assert sub.old in text, f"{sub.where}: substitution no longer matches: {sub.old!r}"
            path.write_text(text.replace(sub.old, sub.new), encoding="utf-8")
    return where


def _validate_toml(block: Block, scratch: Path) -> None:
    """Validate a ``toml`` block as a scenario, sweep file or tune file (see the docstring)."""
    import aqmlab
    from aqmlab.scenario import to_toml
    from aqmlab.sweeps import Sweep
    from aqmlab.tune import TUNE_FILE_KEYS, build_job

    path = scratch / f"block-{block.line}.toml"
    data = tomllib.loads(block.text)
    if "fragment" in block.attributes:
        path.write_text(to_toml({**copy.deepcopy(BASE), **data}), encoding="utf-8")
        aqmlab.load_scenario(path)
        return
    path.write_text(block.text, encoding="utf-8")
    if any(key in data for key in TUNE_FILE_KEYS):
        build_job(path)
    elif "axis" in data:
        Sweep.from_file(path)
    else:
        aqmlab.load_scenario(path)


def _argv(command: str) -> list[str]:
    """Turn a documented command into the argv this test runs."""
    words = shlex.split(command, comments=True)
    if words[0] == "sudo" and os.geteuid() == 0:
        words = words[1:]
    if words[0] == "aqmlab":
        return [sys.executable, "-m", "aqmlab", *words[1:]]
    if words[0] == "python":
        return [sys.executable, *words[1:]]
    return words


def _missing(text: str) -> str | None:
    """Say what this machine lacks that ``text`` (a command or a script) needs, or ``None``."""
    if re.search(r"^sudo |\baqmlab live\b|\blive-vs-sim\b", text, re.M):
        why = why_no_namespaces()
        if why is not None:
            return f"live mode needs network namespaces: {why}"
    if re.search(r"\baqmlab crosscheck\b|--referee ns2", text) and "--against ns3" not in text:
        if shutil.which("ns") is None:
            return "ns-2.35 is not installed (Debian package ns2)"
    if "aqmlab.bench.ns3" in text or "--against ns3" in text:
        from aqmlab.bench.ns3 import available

        if not available():
            return "ns-3 is not installed (pip install 'aqmlab[ns3]')"
    return None


def _run(argv: list[str], scratch: Path) -> str | None:
    """Run ``argv`` in ``scratch``; return what went wrong, or ``None``."""
    done = subprocess.run(argv, cwd=scratch, capture_output=True, text=True, timeout=TIMEOUT_S,
                          check=False)  # fmt: skip
    if done.returncode == 0:
        return None
    return f"{shlex.join(argv)} exited {done.returncode}:\n{done.stderr[-2000:]}"


@pytest.mark.parametrize("document", documents())
def test_the_examples_run_as_written(document: str, tmp_path: Path) -> None:
    scratch = _scratch(tmp_path)
    mine = [s for s in SUBSTITUTIONS if s.where == document]
    used: set[Substitution] = set()

    def substituted(text: str) -> str:
        for sub in mine:
            if sub.old in text:
                used.add(sub)
                text = text.replace(sub.old, sub.new)
        return text

    skipped, failed = [], []
    for block in blocks(document):
        if block.language == "text":
            continue
        if block.language in RUN:
            for command in map(substituted, commands(block)):
                why = _missing(command)
                if why is not None:
                    skipped.append(f"{block.where}: {command}: {why}")
                    continue
                failed.append((block.where, _run(_argv(command), scratch)))
        elif block.language == "toml":
            try:
                _validate_toml(block, scratch)
            except Exception as err:  # noqa: BLE001 - reported with the block's place
                failed.append((block.where, f"{type(err).__name__}: {err}"))
        elif block.language == "python":
            code = substituted(block.text)
            why = _missing(code)
            if why is not None:
                skipped.append(f"{block.where}: {why}")
                continue
            script = scratch / "example.py"
            script.write_text(code, encoding="utf-8")
            failed.append((block.where, _run([sys.executable, script.name], scratch)))
        else:
            failed.append((block.where, f"a block of {block.language or 'no language'}: give it "
                           "sh, console, toml, python, or text if it is not meant to run"))
    problems = [f"{where}: {what}" for where, what in failed if what is not None]
    assert not problems, "\n\n".join(problems)
    unused = [s.old for s in mine if s not in used]
    assert not unused, f"{document}: substitutions that no longer match: {unused}"
    if skipped:
        pytest.skip("not run here: " + "; ".join(skipped))
