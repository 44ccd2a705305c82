"""``aqmlab run`` itself: read a scenario, run it, write its run directory, print its headline.

One implementation with two ways in. The Typer command (:mod:`aqmlab.cli`) parses the arguments
and calls :func:`run_and_save`; the script (:mod:`aqmlab.__main__`) calls it directly when
:func:`plain_arguments` can read the arguments, without importing Typer or Rich at all: on the
bench's 100-flow RED dumbbell their imports and Typer's reading of the command's signature took
longer than the simulation (about 0.06 s against 0.04 s; docs/performance.md). Anything
:func:`plain_arguments` does not read with certainty — ``--help``, an unknown option, a value of the
wrong type — goes to Typer, which says what is wrong as it does for every command. (One
difference is left: Typer refuses an unreadable scenario or folder before anything runs, naming
the argument; the plain path says "Permission denied" when it opens it. Both exit with status 2.)

Output is plain text (no Rich): the headline table is drawn with box characters by
:func:`headline`, the rest are lines. Bad input prints one line ``error: ...`` on stderr and
gives status 2 (:func:`user_error_status`).

>>> plain_arguments(["run", "s.toml", "--seed", "3", "--set", "queue.limit=50p"])["seed"]
3
>>> plain_arguments(["run", "s.toml", "--help"]) is None
True
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aqmlab.args import MAX_SEED
from aqmlab.errors import InputError, SelfCheckError, StoreError, shown

if TYPE_CHECKING:
    from aqmlab.result import Result
    from aqmlab.scenario import Scenario, ScenarioWarning

EXIT_BAD_INPUT = 2
EXIT_SELF_CHECK = 3
"""A run's engine self-checks failed (an engine bug): its run directory is written marked failed."""
EXIT_INTERRUPTED = 130
EXIT_NOT_WRITTEN = 1
"""The run directory could not be written where asked (the results went elsewhere, or nowhere)."""

HEADLINE_LINKS = 6
"""The most logged link directions ``aqmlab run`` tabulates (the rest are in the summary)."""


def error_line(message: str) -> None:
    """Print ``error: message`` as a single line on stderr.

    >>> import contextlib, io
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     error_line("a.toml: bad" + chr(10) + "  at line 2")
    >>> err.getvalue().splitlines()
    ['error: a.toml: bad; at line 2']
    """
    one_line = "; ".join(line.strip() for line in message.splitlines() if line.strip())
    sys.stderr.write(f"error: {one_line}\n")
    sys.stderr.flush()


def user_error_status(err: BaseException, kept_in: Path | None = None) -> int | None:
    """Print bad input, a failed self-check or Ctrl-C as one line on stderr; return its status.

    ``None`` for any other exception, which is the caller's to raise: an engine bug is a
    traceback, never passed off as bad input. ``kept_in`` is where a command that was interrupted
    keeps its finished runs.

    >>> import contextlib, io
    >>> from aqmlab.errors import ScenarioError
    >>> errors = [ScenarioError("queue.limit", "expected packets"), KeyboardInterrupt(),
    ...           ZeroDivisionError()]
    >>> with contextlib.redirect_stderr(io.StringIO()):
    ...     [user_error_status(err) for err in errors]
    [2, 130, None]
    """
    if isinstance(err, InputError):
        error_line(str(err))
        return EXIT_BAD_INPUT
    if isinstance(err, SelfCheckError):
        error_line(str(err))
        return EXIT_SELF_CHECK
    if isinstance(err, OSError):  # a path the system refuses: /proc, a read-only disk, a full one
        where = shown(err.filename) if err.filename else "aqmlab"
        error_line(f"{where}: {err.strerror or err}")
        return EXIT_BAD_INPUT
    if isinstance(err, KeyboardInterrupt):
        if kept_in is None:
            error_line("interrupted")
        else:
            error_line(f"interrupted; the finished runs are kept in {kept_in}: run the same "
                       "command again to go on")  # fmt: skip
        return EXIT_INTERRUPTED
    return None


def print_warnings(found: Iterable[ScenarioWarning]) -> None:
    """Print a scenario's warnings on stderr, one line each; they never fail the command."""
    for warning in found:
        sys.stderr.write(f"warning: {warning}\n")


def rate(bps: float) -> str:
    """Format a bit rate.

    >>> rate(9_500_000), rate(64_000), rate(12)
    ('9.500 Mbps', '64.000 kbps', '12 bps')
    """
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3f} {unit}"
    return f"{bps:.0f} bps"


def box_table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Draw a table with box characters: the first column left-aligned, the others right-aligned.

    >>> print(box_table("t", ["metric", "a"], [["x", "1"], ["longer", "22"]]))
    t
    ┏━━━━━━━━┳━━━━┓
    ┃ metric ┃  a ┃
    ┡━━━━━━━━╇━━━━┩
    │ x      │  1 │
    │ longer │ 22 │
    └────────┴────┘
    """
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]

    def line(cells: Sequence[str], side: str, inner: str) -> str:
        padded = [cell.ljust(width) if i == 0 else cell.rjust(width)
                  for i, (cell, width) in enumerate(zip(cells, widths, strict=True))]
        return f"{side} " + f" {inner} ".join(padded) + f" {side}"

    def rule(left: str, fill: str, joint: str, right: str) -> str:
        return left + joint.join(fill * (w + 2) for w in widths) + right

    return "\n".join([
        title,
        rule("┏", "━", "┳", "┓"),
        line(header, "┃", "┃"),
        rule("┡", "━", "╇", "┩"),
        *(line(row, "│", "│") for row in rows),
        rule("└", "─", "┴", "┘"),
    ])  # fmt: skip


def headline(result: Result) -> str:
    """Tabulate the headline metrics of the logged links.

    On the dumbbell these are the bottleneck's two directions; on any other network the first
    :data:`HEADLINE_LINKS` logged link directions, by name.

    >>> from aqmlab.result import Result
    >>> d = {"utilization": 0.5, "throughput_bps": 5e6, "drop_rate": 0.01,
    ...      "mean_queue_pkts": 3.25, "mean_queue_delay_s": 0.0026}
    >>> print(headline(Result({"meta": {"scenario": {}}, "r0-r1": d}, {})).splitlines()[4])
    │ utilization      │     50.00% │
    """
    if result.summary["meta"].get("scenario", {}).get("topology", {}).get("kind") == "dumbbell":
        title = "bottleneck"
        directions = [("forward", "servers → clients"), ("reverse", "clients → servers")]
    else:
        title = "links"
        logged = [k for k, v in result.summary.items() if isinstance(v, dict) and "drop_rate" in v]
        directions = [(k, k) for k in logged[:HEADLINE_LINKS]]
    cells: list[tuple[str, Any]] = [
        ("utilization", lambda d: f"{d['utilization']:.2%}"),
        ("throughput", lambda d: rate(d["throughput_bps"])),
        ("drop rate", lambda d: f"{d['drop_rate']:.3%}"),
        ("mean queue", lambda d: f"{d['mean_queue_pkts']:.2f} pkts"),
        ("mean queue delay", lambda d: f"{d['mean_queue_delay_s'] * 1e3:.3f} ms"),
    ]
    rows = [[label, *(cell(result.summary[key]) for key, _ in directions)] for label, cell in cells]
    return box_table(title, ["metric", *(label for _, label in directions)], rows)


def tcp_line(result: Result) -> str | None:
    """Summarise the run's TCP connections in one line, or ``None`` if there are none.

    Goodput is summed over the connections and measured after the warm-up; retransmissions count
    data segments, SYNs (and SYN-ACKs) and FINs sent again; timeouts count retransmission
    timeouts of both ends.

    >>> from aqmlab.result import Result
    >>> tcp_line(Result({"meta": {}}, {"connections": {"outcome": []}})) is None
    True
    >>> conns = {"outcome": ["completed", "failed", "open"], "goodput_bps": [1e6, 0.0, 2.5e6],
    ...          "data_rexmits": [3, 0, 4], "syn_rexmits": [0, 5, 0], "fin_rexmits": [1, 0, 0],
    ...          "timeouts": [1, 6, 0]}
    >>> tcp_line(Result({"meta": {}}, {"connections": conns}))
    'tcp: 3 connections (1 completed, 1 failed, 1 open), goodput 3.500 Mbps, 13 retransmissions, 7 timeouts'
    """  # noqa: E501
    if "connections" not in result.table_names:
        return None
    outcome = result.column("connections", "outcome")
    if not outcome:
        return None
    counts = ", ".join(
        f"{sum(1 for o in outcome if o == name):,} {name}"
        for name in ("completed", "failed", "open")
    )

    def total(column: str) -> float | None:
        # None for a column the table lacks: a live run has no timeout count (TCP_INFO has none).
        try:
            return float(sum(result.column("connections", column)))
        except KeyError:
            return None

    kinds = ("data_rexmits", "syn_rexmits", "fin_rexmits")
    rexmits = int(sum(t for c in kinds if (t := total(c)) is not None))
    timeouts = total("timeouts")
    timeouts_part = "" if timeouts is None else f", {int(timeouts):,} timeouts"
    n = len(outcome)
    return (
        f"tcp: {n:,} connection{'s' if n != 1 else ''} ({counts}), "
        f"goodput {rate(total('goodput_bps') or 0.0)}, "
        f"{rexmits:,} retransmissions{timeouts_part}"
    )


def group_lines(result: Result) -> list[str]:
    """Summarise each TCP group's goodput and fairness, a line each (``summary.json`` → ``groups``).

    Over the measured period and the group's connections open in it; Jain's index is 1 when
    every flow got the same goodput, 1/n when one got everything.

    >>> from aqmlab.result import Result
    >>> group_lines(Result({"groups": {"bulk": {"flows": 20, "goodput_bps": 17.3e6,
    ...     "mean_flow_goodput_bps": 0.865e6, "jain_index": 0.9412}}}, {}))
    ["  bulk: 20 flows, goodput 17.300 Mbps, 865.000 kbps per flow on average, Jain's index 0.941"]
    >>> group_lines(Result({"groups": {"idle": {"flows": 0, "goodput_bps": 0.0,
    ...     "mean_flow_goodput_bps": None, "jain_index": None}}}, {}))
    ["  idle: 0 flows, goodput 0 bps, Jain's index n/a"]
    """  # noqa: E501
    lines = []
    for name, group in (result.summary.get("groups") or {}).items():
        mean = group.get("mean_flow_goodput_bps")
        per_flow = "" if mean is None else f", {rate(mean)} per flow on average"
        jain = group.get("jain_index")
        lines.append(
            f"  {name}: {group['flows']:,} flow{'s' if group['flows'] != 1 else ''}, goodput "
            f"{rate(group['goodput_bps'])}{per_flow}, Jain's index "
            f"{'n/a' if jain is None else f'{jain:.3f}'}"
        )
    return lines


def web_line(result: Result) -> str | None:
    """Summarise the run's web request/response pairs in one line, or ``None`` if there are none.

    Counts cover the pairs started after the warm-up; the response-time quantiles are over the
    completed ones (``summary.json`` → ``requests``).

    >>> from aqmlab.result import Result
    >>> web_line(Result({"requests": {"count": 0}}, {})) is None
    True
    >>> web_line(Result({"requests": {"count": 1000, "completed": 990, "failed": 4,
    ...     "unfinished": 6, "median_s": 0.2434, "p90_s": 0.812, "p99_s": 3.4}}, {}))
    'web: 1,000 requests (990 completed, 4 failed, 6 unfinished), response time median 243 ms, 90th percentile 812 ms, 99th 3400 ms'
    """  # noqa: E501
    requests = result.summary.get("requests") or {}
    if not requests.get("count"):
        return None

    def ms(value: float | None) -> str:
        return "n/a" if value is None else f"{value * 1e3:.0f} ms"

    return (
        f"web: {requests['count']:,} request{'s' if requests['count'] != 1 else ''} "
        f"({requests['completed']:,} completed, {requests['failed']:,} failed, "
        f"{requests['unfinished']:,} unfinished), response time median "
        f"{ms(requests.get('median_s'))}, 90th percentile {ms(requests.get('p90_s'))}, "
        f"99th {ms(requests.get('p99_s'))}"
    )


def speed_line(result: Result) -> str:
    """One line on the engine's speed for a run (``meta.events``, ``meta.wall_s``).

    >>> from aqmlab.result import Result
    >>> speed_line(Result({"meta": {"events": 2_000_000, "wall_s": 0.1, "duration_s": 100}}, {}))
    '2,000,000 events in 0.100 s wall (20.00 M events/s, 100 s simulated, 1,000× real time)'
    """
    meta = result.meta
    events, wall_s, simulated_s = int(meta["events"]), float(meta["wall_s"]), meta["duration_s"]
    per_s = events / wall_s if wall_s > 0 else float("inf")
    speedup = simulated_s / wall_s if wall_s > 0 else float("inf")
    return (
        f"{events:,} events in {wall_s:.3f} s wall ({per_s / 1e6:.2f} M events/s, "
        f"{simulated_s:g} s simulated, {speedup:,.0f}× real time)"
    )


def default_run_dir(result: Result) -> Path:
    """``runs/<name>-<hash[:8]>-seed<seed>``, with the name made safe for a file name.

    >>> from aqmlab.result import Result
    >>> r = Result({"meta": {"seed": 3, "scenario": {"name": "my run/1"},
    ...                      "scenario_hash": "0123456789abcdef"}}, {})
    >>> default_run_dir(r).as_posix()
    'runs/my-run-1-01234567-seed3'
    """
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", str(result.meta["scenario"].get("name", "run")))
    return Path("runs") / f"{name}-{result.scenario_hash[:8]}-seed{result.seed}"


def planned_run_dir(scenario: Scenario, seed: int | None) -> Path:
    """Name the default run directory of a scenario and seed before the run (see above).

    >>> planned_run_dir({"name": "tiny", "duration": "1s",
    ...                  "topology": {"bottleneck": {"rate": "10Mbps"}}}, 4).name[-6:]
    '-seed4'
    """
    from aqmlab.result import Result
    from aqmlab.scenario import resolve, scenario_hash

    resolved = resolve(scenario)
    chosen = seed if seed is not None else resolved.get("seed", 1)
    meta = {"seed": chosen, "scenario": resolved, "scenario_hash": scenario_hash(resolved)}
    return default_run_dir(Result({"meta": meta}, {}))


def save(result: Result, out: Path, *, replace: bool) -> Path | None:
    """Write the run directory; if that fails, write it to a temporary directory instead.

    ``out`` was checked before the run (:func:`aqmlab.store.check_output_dir`); if it has become
    something that may not be replaced since, or cannot be written, the results go to a new
    temporary directory, and failing that the summary goes to stdout. Returns the directory
    written, or ``None`` when none could be.
    """
    try:
        return result.save(out, replace=replace)
    except (OSError, StoreError) as err:
        why = err.strerror or err if isinstance(err, OSError) else err.message
        error_line(f"{out}: cannot write the run directory ({why})")
        import tempfile  # here only: it loads shutil, random and the compressors (start-up)

        try:
            saved = result.save(tempfile.mkdtemp(prefix="aqmlab-run-"))
        except OSError:
            error_line("cannot write a temporary directory either; the summary follows on stdout")
            sys.stdout.write(result.summary_json())
            return None
        error_line(f"{out}: wrote the results to {saved} instead")
        return saved


def run_and_save(
    scenario: Path,
    *,
    out: Path | None = None,
    seed: int | None = None,
    overrides: Sequence[str] = (),
    load: float | None = None,
    calibration: Path | None = None,
    force: bool = False,
    capture: Sequence[str] = (),
    tables: str | None = None,
) -> int:
    r"""Do what ``aqmlab run`` does (its options as :mod:`aqmlab.cli` documents them).

    Returns the exit status: 0, or 1 when the run directory went elsewhere or nowhere
    (:data:`EXIT_NOT_WRITTEN`), 2 for bad input, 3 for a failed engine self-check (the run
    directory is written, marked failed), 130 when interrupted. The run directory is written
    before the headline is printed, so a closed or ASCII-only stdout never costs the results.

    >>> import contextlib, io, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
    ...     _ = (Path(tmp) / "s.toml").write_text('duration = "1s"\n[topology]\n'
    ...                                           'bottleneck = { rate = "1Mbps" }\n')
    ...     status = run_and_save(Path(tmp) / "s.toml", out=Path(tmp) / "run", tables="none")
    >>> status
    0
    """
    from aqmlab.runner import prepare, table_names
    from aqmlab.runner import run as run_scenario
    from aqmlab.scenario import read_scenario
    from aqmlab.store import check_output_dir

    try:
        loaded = prepare(read_scenario(scenario), set=list(overrides), capture=list(capture),
                         load=load, calibration=calibration, option=lambda name: f"--{name}")
        kept = None if tables is None else table_names("--tables", tables)
        check_output_dir(out if out is not None else planned_run_dir(loaded, seed), replace=force)
        try:
            result, failure = run_scenario(loaded, seed=seed, progress=True), None
        except SelfCheckError as err:
            result, failure = err.result, str(err)
        print_warnings(result.warnings)
        lines = [headline(result), tcp_line(result), *group_lines(result), web_line(result)]
        lines.append(speed_line(result))
        if kept is not None:
            result = result.with_tables(kept)
        target = out if out is not None else default_run_dir(result)
        directory = save(result, target, replace=force)  # written before anything is printed
        del result  # and a capture's temporary folder removed with it
        if directory is not None:
            lines.append(f"run directory: {directory}")
        print_text("\n".join(line for line in lines if line is not None))
    except (InputError, OSError, KeyboardInterrupt) as err:
        status = user_error_status(err)
        assert status is not None, "each of these is a user error"
        return status
    if directory is None:
        return EXIT_NOT_WRITTEN
    if failure is not None:
        error_line(f"{directory}: {failure} (the run directory is kept, marked failed)")
        return EXIT_SELF_CHECK
    return 0 if directory == target else EXIT_NOT_WRITTEN


def print_text(text: str) -> None:
    """Print ``text`` on stdout; characters its encoding lacks (box lines on ASCII) become ``?``.

    A reader that has gone away is not an error: stdout then goes to the null device, as the
    Python documentation advises for SIGPIPE, so that the exit flushes nothing into a closed pipe.

    >>> print_text("a │ b")
    a │ b
    """
    encoding = sys.stdout.encoding or "utf-8"
    try:
        print(text.encode(encoding, "replace").decode(encoding), flush=True)
    except BrokenPipeError:  # the reader went away (``| head -1``); the run is saved already
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


PLAIN_VALUES = {"--out": "out", "-o": "out", "--seed": "seed", "--load": "load",
                "--calibration": "calibration", "--tables": "tables"}  # fmt: skip
"""``aqmlab run``'s options of one value that :func:`plain_arguments` reads (each at most once)."""
PLAIN_LISTS = {"--set": "overrides", "--capture": "capture"}
"""Its repeatable options of one value."""


def plain_arguments(argv: Sequence[str]) -> dict[str, Any] | None:
    """Read ``run SCENARIO [options]`` into :func:`run_and_save`'s arguments, or return ``None``.

    ``None`` whenever the reading is not certain, and then Typer reads them (and reports what is
    wrong): another command, ``--help``, an option not of ``aqmlab run``, one of a single value
    given twice, a value
    that starts with ``-``, a ``--seed`` that is not a whole number from 0 to 2**64 - 1, a
    ``--load`` that is not a number, ``--``, ``--opt=value``, no scenario or two.

    >>> plain_arguments(["run", "a.toml", "-o", "out", "--force", "--set", "seed=2",
    ...                  "--set", "duration=5s"]) == {"scenario": Path("a.toml"),
    ...     "out": Path("out"), "force": True, "overrides": ["seed=2", "duration=5s"]}
    True
    >>> [plain_arguments(["run", "a.toml", *more]) for more in
    ...  (["--seed", "-1"], ["--seed", "x"], ["--seed", str(2**64)], ["--seed", "9" * 5000],
    ...   ["--force", "--force"], ["b.toml"], ["--out"])]
    [None, None, None, None, None, None, None]
    """
    if not argv or argv[0] != "run":
        return None
    found: dict[str, Any] = {}
    words = iter(argv[1:])
    for word in words:
        if not word.startswith("-"):
            if "scenario" in found:
                return None
            found["scenario"] = Path(word)
        elif word == "--force" and "force" not in found:
            found["force"] = True
        elif word in PLAIN_VALUES or word in PLAIN_LISTS:
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None
            if word in PLAIN_LISTS:
                found.setdefault(PLAIN_LISTS[word], []).append(value)
                continue
            name = PLAIN_VALUES[word]
            if name in found:
                return None
            found[name] = _plain_value(name, value)
            if found[name] is None:
                return None
        else:
            return None
    return found if "scenario" in found else None


def _plain_value(name: str, text: str) -> Any:
    """One option's value as Typer would read it, or ``None`` where Typer would refuse it."""
    if name in ("out", "calibration"):
        return Path(text)
    if name == "seed":
        whole = text.isascii() and text.isdigit() and len(text) <= len(str(MAX_SEED))
        return int(text) if whole and int(text) <= MAX_SEED else None
    if name == "load":
        try:
            return float(text)
        except ValueError:
            return None
    return text
