"""The ``aqmlab`` command line: ``run``, ``validate``, ``bench``.

Bad input of any kind (missing file, TOML syntax, an invalid scenario, a bad ``--set``) prints one
line ``error: <path>: <message>`` on stderr and exits with status 2.

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["--version"]).output.startswith("aqmlab ")
True
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from aqmlab import __version__
from aqmlab.bench import BenchRow, bench_one, load_reference, ratios, select
from aqmlab.errors import ScenarioError
from aqmlab.result import Result
from aqmlab.runner import run
from aqmlab.scenario import Scenario, apply_overrides, read_toml, resolve

app = typer.Typer(
    name="aqmlab",
    help="A fast packet-level simulator for router queue management studies.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Override a scenario value, e.g. --set traffic[0].rate=2Mbps (repeatable).",
    ),
]


def _error(message: str) -> None:
    """Print ``error: message`` as a single line on stderr."""
    one_line = "; ".join(line.strip() for line in message.splitlines() if line.strip())
    sys.stderr.write(f"error: {one_line}\n")
    sys.stderr.flush()


@contextmanager
def _user_errors() -> Iterator[None]:
    """Turn bad input and Ctrl-C into one line on stderr and an exit status, never a traceback."""
    try:
        yield
    except ScenarioError as err:
        _error(str(err))
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except KeyboardInterrupt:
        _error("interrupted")
        raise typer.Exit(EXIT_INTERRUPTED) from None


def _load(path: Path, overrides: list[str] | None) -> Scenario:
    """Read a scenario file and apply ``--set`` overrides."""
    return apply_overrides(read_toml(path), overrides or [])


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"aqmlab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Run, validate and benchmark aqmlab scenarios."""


def _console() -> Console:
    """Return a stdout console, at least 100 columns wide when writing to a file or pipe."""
    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 100)
    return console


def _rate(bps: float) -> str:
    """Format a bit rate.

    >>> _rate(9_500_000), _rate(64_000), _rate(12)
    ('9.500 Mbps', '64.000 kbps', '12 bps')
    """
    for unit, scale in (("Gbps", 1e9), ("Mbps", 1e6), ("kbps", 1e3)):
        if bps >= scale:
            return f"{bps / scale:.3f} {unit}"
    return f"{bps:.0f} bps"


def _headline(result: Result) -> Table:
    """Tabulate the headline metrics of both bottleneck directions as a small table."""
    table = Table(title="bottleneck", title_justify="left")
    table.add_column("metric")
    directions = [("bottleneck", "servers → clients"), ("reverse", "clients → servers")]
    for _, label in directions:
        table.add_column(label, justify="right")
    rows: list[tuple[str, Any]] = [
        ("utilization", lambda d: f"{d['utilization']:.2%}"),
        ("throughput", lambda d: _rate(d["throughput_bps"])),
        ("drop rate", lambda d: f"{d['drop_rate']:.3%}"),
        ("mean queue", lambda d: f"{d['mean_queue_pkts']:.2f} pkts"),
        ("mean queue delay", lambda d: f"{d['mean_queue_delay_s'] * 1e3:.3f} ms"),
    ]
    for label, cell in rows:
        table.add_row(label, *(cell(result.summary[key]) for key, _ in directions))
    return table


def tcp_line(result: Result) -> str | None:
    """Summarise the run's TCP connections in one line, or ``None`` if there are none.

    Goodput is summed over the connections and measured after the warm-up; retransmissions count
    data segments, SYNs (and SYN-ACKs) and FINs sent again; timeouts count retransmission
    timeouts of both ends.

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
    conns = result.connections
    if conns.empty:
        return None
    outcomes = conns["outcome"].value_counts()
    counts = ", ".join(
        f"{int(outcomes.get(name, 0)):,} {name}" for name in ("completed", "failed", "open")
    )
    rexmits = int(conns[["data_rexmits", "syn_rexmits", "fin_rexmits"]].to_numpy().sum())
    return (
        f"tcp: {len(conns):,} connection{'s' if len(conns) != 1 else ''} ({counts}), "
        f"goodput {_rate(float(conns['goodput_bps'].sum()))}, "
        f"{rexmits:,} retransmissions, {int(conns['timeouts'].sum()):,} timeouts"
    )


def _speed_line(result: Result) -> str:
    """One line on the engine's speed for a run."""
    row = BenchRow.from_result("", result)
    return (
        f"{row.events:,} events in {row.wall_s:.3f} s wall "
        f"({row.events_per_s / 1e6:.2f} M events/s, {row.simulated_s:g} s simulated, "
        f"{row.speedup:,.0f}× real time)"
    )


def self_check_warnings(result: Result) -> list[str]:
    """List the engine's failed self-checks (counter identities), if any.

    >>> self_check_warnings(Result({"checks": {"counter_identities": True, "violations": []}}, {}))
    []
    >>> bad = {"checks": {"counter_identities": False, "violations": ["arrivals != enqueued"]}}
    >>> self_check_warnings(Result(bad, {}))
    ['engine self-check failed: arrivals != enqueued']
    """
    checks = result.summary.get("checks", {})
    failed = [f"engine self-check failed: {v}" for v in checks.get("violations", [])]
    if not failed and checks.get("counter_identities") is False:
        failed.append("engine self-check failed: counter identities do not hold")
    return failed


def default_run_dir(result: Result) -> Path:
    """``runs/<name>-<hash[:8]>-seed<seed>``, with the name made safe for a file name.

    >>> r = Result({"meta": {"seed": 3, "scenario": {"name": "my run/1"},
    ...                      "scenario_hash": "0123456789abcdef"}}, {})
    >>> default_run_dir(r).as_posix()
    'runs/my-run-1-01234567-seed3'
    """
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", str(result.meta["scenario"].get("name", "run")))
    return Path("runs") / f"{name}-{result.scenario_hash[:8]}-seed{result.seed}"


def _save(result: Result, out: Path) -> tuple[Path, bool]:
    """Write the run directory; if that fails, write it to a temporary directory instead.

    Returns the directory written and whether it is the one asked for.
    """
    try:
        return result.save(out), True
    except OSError as err:
        _error(f"{out}: cannot write the run directory ({err.strerror or err})")
        try:
            saved = result.save(tempfile.mkdtemp(prefix="aqmlab-run-"))
        except OSError:
            _error("cannot write a temporary directory either; the summary follows on stdout")
            sys.stdout.write(result.summary_json())
            raise typer.Exit(1) from None
        _error(f"{out}: wrote the results to {saved} instead")
        return saved, False


@app.command("run")
def run_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", show_default=False)],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Run directory (default: runs/<name>-<hash8>-seed<seed>)."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, help="Override the scenario's seed.")
    ] = None,
    overrides: SetOption = None,
) -> None:
    """Run a scenario, write its run directory and print headline metrics.

    The results go to summary.json and Parquet tables in the run directory. When the scenario
    has TCP traffic, one line sums up its connections.
    """
    with _user_errors():
        result = run(_load(scenario, overrides), seed=seed, progress=True)
    for warning in self_check_warnings(result):
        sys.stderr.write(f"warning: {warning}\n")
    console = _console()
    console.print(_headline(result))
    tcp = tcp_line(result)
    if tcp is not None:
        console.print(tcp, highlight=False, soft_wrap=True)
    console.print(_speed_line(result), highlight=False, soft_wrap=True)
    directory, as_asked = _save(result, out if out is not None else default_run_dir(result))
    console.print(f"run directory: {directory}", highlight=False, soft_wrap=True)
    if not as_asked:
        raise typer.Exit(1)


@app.command("validate")
def validate_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.", show_default=False)],
    overrides: SetOption = None,
) -> None:
    """Check a scenario; print "ok" and the scenario with every default resolved (JSON)."""
    with _user_errors():
        resolved = resolve(_load(scenario, overrides))
    typer.echo("ok")
    typer.echo(json.dumps(resolved, indent=2))


@app.command("bench")
def bench_command(
    only: Annotated[
        list[str] | None,
        typer.Option("--only", metavar="NAME", help="Run only this reference (repeatable)."),
    ] = None,
) -> None:
    """Measure the engine's speed on the reference scenarios shipped with aqmlab."""
    rows: list[BenchRow] = []
    with _user_errors():
        chosen = select(only)
        for number, (name, file) in enumerate(chosen.items(), start=1):
            sys.stderr.write(f"bench: {name} ({number}/{len(chosen)})\n")
            rows.append(bench_one(name, load_reference(file), progress=True))
    table = Table(title=f"aqmlab {__version__} bench", title_justify="left")
    for column in ("scenario", "simulated s", "events", "wall s", "events/s", "sim s/wall s"):
        table.add_column(column, justify="left" if column == "scenario" else "right", no_wrap=True)
    for row in rows:
        table.add_row(
            row.name,
            f"{row.simulated_s:g}",
            f"{row.events:,}",
            f"{row.wall_s:.3f}",
            f"{row.events_per_s:,.0f}",
            f"{row.speedup:,.1f}",
        )
    _console().print(table)
    for variant, base, ratio in ratios(rows):
        typer.echo(f"{variant} / {base}: {ratio:.2f}x the wall time")


def main() -> None:
    """Entry point of the ``aqmlab`` script."""
    app(prog_name="aqmlab")
