"""The ``aqmlab`` command line: ``run``, ``validate``, ``calibrate``, ``reproduce``, ``bench``.

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

from aqmlab import __version__, papers
from aqmlab.bench import BenchRow, bench_one, load_reference, ratios, select
from aqmlab.calibrate import DEFAULT_USERS, Calibration, calibrate, with_load
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


def web_line(result: Result) -> str | None:
    """Summarise the run's web request/response pairs in one line, or ``None`` if there are none.

    Counts cover the pairs started after the warm-up; the median and the shares are over the
    completed ones (``summary.json`` → ``requests``).

    >>> web_line(Result({"requests": {"count": 0}}, {})) is None
    True
    >>> web_line(Result({"requests": {"count": 1000, "completed": 990, "failed": 4,
    ...     "unfinished": 6, "median_s": 0.2434, "within_500ms": 0.8515,
    ...     "share_over_3s": 0.0011}}, {}))
    'web: 1,000 requests (990 completed, 4 failed, 6 unfinished), median 243 ms, 85.2% within 500 ms, 0.1% over 3 s'
    """  # noqa: E501
    requests = result.summary.get("requests") or {}
    if not requests.get("count"):
        return None

    def ms(value: float | None) -> str:
        return "n/a" if value is None else f"{value * 1e3:.0f} ms"

    def pct(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.1%}"

    return (
        f"web: {requests['count']:,} request{'s' if requests['count'] != 1 else ''} "
        f"({requests['completed']:,} completed, {requests['failed']:,} failed, "
        f"{requests['unfinished']:,} unfinished), median {ms(requests.get('median_s'))}, "
        f"{pct(requests.get('within_500ms'))} within 500 ms, "
        f"{pct(requests.get('share_over_3s'))} over 3 s"
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
    load: Annotated[
        float | None,
        typer.Option(
            "--load",
            min=0.0,
            metavar="PERCENT",
            help="Set the web users for this offered load (percent of the calibrated link), "
            "through --calibration.",
        ),
    ] = None,
    calibration: Annotated[
        Path | None,
        typer.Option(
            "--calibration",
            help="calibration.json (or its directory) written by aqmlab calibrate; for --load.",
        ),
    ] = None,
) -> None:
    """Run a scenario, write its run directory and print headline metrics.

    The results go to summary.json and Parquet tables in the run directory. When the scenario
    has TCP traffic, one line sums up its connections; when it has web users, one line sums up
    their request/response pairs.
    """
    with _user_errors():
        loaded = _load(scenario, overrides)
        if load is not None:
            if calibration is None:
                raise ScenarioError("--load", "needs --calibration (see aqmlab calibrate)")
            loaded = with_load(loaded, load / 100, Calibration.load(calibration))
        elif calibration is not None:
            raise ScenarioError("--calibration", "is used only with --load")
        result = run(loaded, seed=seed, progress=True)
    for warning in self_check_warnings(result):
        sys.stderr.write(f"warning: {warning}\n")
    console = _console()
    console.print(_headline(result))
    for line in (tcp_line(result), web_line(result)):
        if line is not None:
            console.print(line, highlight=False, soft_wrap=True)
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


def _users_option(values: list[str] | None) -> list[int]:
    """Read ``--users 500,1200 --users 1900`` into user counts.

    >>> _users_option(["500,1200", "1900"]), _users_option(None) == list(DEFAULT_USERS)
    ([500, 1200, 1900], True)
    """
    if not values:
        return list(DEFAULT_USERS)
    counts = []
    for value in values:
        for part in value.split(","):
            try:
                counts.append(int(part))
            except ValueError:
                raise ScenarioError("--users", f'expected whole numbers, got "{part}"') from None
    return counts


@app.command("calibrate")
def calibrate_command(
    scenario: Annotated[
        Path | None,
        typer.Argument(
            help="Scenario TOML with one web-mah group (default: the Christiansen et al. testbed).",
            show_default=False,
        ),
    ] = None,
    users: Annotated[
        list[str] | None,
        typer.Option(
            "--users",
            metavar="N[,N...]",
            help="User counts to run (repeatable or comma-separated; default "
            + ",".join(map(str, DEFAULT_USERS))
            + ").",
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", "-o", help="Output directory (run directories + JSON).")
    ] = Path("runs/calibration"),
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: cores).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of every run.")] = 1,
    targets: Annotated[
        list[float] | None,
        typer.Option(
            "--target",
            metavar="PERCENT",
            help="Loads to report users for, percent of --link-rate (default 100 and 110).",
        ),
    ] = None,
    link_rate: Annotated[
        str, typer.Option("--link-rate", help="The link the loads are fractions of.")
    ] = "10Mbps",
    duration: Annotated[
        str | None, typer.Option("--duration", help="Override the scenario's duration.")
    ] = None,
    warmup: Annotated[
        str | None, typer.Option("--warmup", help="Override the scenario's warm-up.")
    ] = None,
    overrides: SetOption = None,
) -> None:
    """Fit offered load against web users on the unconstrained (100 Mbps) network.

    Runs the scenario once per user count with the bottleneck at 100 Mbps, in parallel, measures
    the offered load as the bottleneck throughput servers → clients, fits a least-squares line and
    prints the users needed for each target load. Writes OUT/calibration.json and one run
    directory per point under OUT/calibration/ (reused when run again). Without a scenario, the
    built-in testbed of Christiansen et al. (2000) runs for 50 minutes, the first 30 discarded.
    """
    from aqmlab.papers import christiansen2000

    with _user_errors():
        if scenario is None:
            base = christiansen2000.calibration_base(christiansen2000.SCALES["quick"])
            base = apply_overrides(base, overrides or [])
        else:
            base = _load(scenario, overrides)
        if duration is not None:
            base["duration"] = duration
        if warmup is not None:
            base["warmup"] = warmup
        loads = [t / 100 for t in (targets or [100.0, 110.0])]
        result = calibrate(
            base,
            _users_option(users),
            out=out,
            jobs=jobs,
            seed=seed,
            link_rate=link_rate,
            targets=loads,
        )
    console = _console()
    table = Table(title="calibration (unconstrained network)", title_justify="left")
    for column in ("users", "offered load", "fit"):
        table.add_column(column, justify="right")
    fit = result.fit
    for point in result.points:
        table.add_row(
            f"{point.users:,}", _rate(point.throughput_bps), _rate(fit.load_bps(point.users))
        )
    console.print(table)
    console.print(
        f"fit: load = {fit.slope:,.1f} bit/s × users {fit.intercept:+,.0f} bit/s, "
        f"R² = {fit.r2:.5f}",
        highlight=False,
        soft_wrap=True,
    )
    for load in result.targets:
        console.print(
            f"{load:.0%} of {link_rate}: {result.users_for_load(load):,} users",
            highlight=False,
            soft_wrap=True,
        )
    console.print(f"calibration: {out / 'calibration.json'}", highlight=False, soft_wrap=True)


@app.command("reproduce")
def reproduce_command(
    paper: Annotated[
        str,
        typer.Argument(help="The study: " + ", ".join(papers.names()) + ".", show_default=False),
    ],
    scale: Annotated[
        str,
        typer.Option("--scale", help="quick (minutes) or full (the paper's durations)."),
    ] = "quick",
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output directory (default: runs/<paper>-<scale>)."),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: cores).")
    ] = None,
) -> None:
    """Reproduce a paper: run its calibration and experiments in parallel, write its report.

    Finished runs in the output directory are reused (same scenario hash and seed), so a
    re-run after an interruption picks up where it stopped. The report (report.md with CSVs and
    figures) compares our numbers with the paper's and gives a verdict for each finding.
    """
    try:
        module = papers.get(paper)
        module.get_scale(scale)
    except (papers.UnknownPaper, papers.UnknownScale) as err:
        _error(f"reproduce: {err}")
        raise typer.Exit(EXIT_BAD_INPUT) from None
    with _user_errors():
        done = module.reproduce(scale, out, jobs=jobs)
    console = _console()
    for line in done.summary:
        console.print(line, highlight=False, soft_wrap=True)
    console.print(
        f"{done.runs} runs, {done.reused} reused, {done.wall_s:.0f} s wall",
        highlight=False,
        soft_wrap=True,
    )
    console.print(f"report: {done.report}", highlight=False, soft_wrap=True)


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
