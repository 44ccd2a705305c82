"""The ``aqmlab`` command line.

Its commands: run, validate, sweep, collect, plot, calibrate, reproduce, tune, queue-law,
crosscheck and bench.

Bad input of any kind (missing file, TOML syntax, an invalid scenario, a bad ``--set`` or
``--vary``, an option out of range or of the wrong type, an ``--out`` that is not what the command
writes, a damaged run store) prints one line ``error: <path>: <message>`` on stderr and exits
with status 2. Ctrl-C stops the workers at once and exits with status 130, saying where the
finished runs are kept: the same command run again reuses them.

>>> from typer.testing import CliRunner
>>> CliRunner().invoke(app, ["--version"]).output.startswith("aqmlab ")
True
"""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer.core import TyperGroup

from aqmlab import __version__, args, papers
from aqmlab._native import build_info
from aqmlab.args import MAX_JOBS, MAX_SEED, MAX_SEEDS
from aqmlab.calibrate import (
    DEFAULT_USERS,
    MAX_LOAD_PERCENT,
    calibrate,
    parse_rate,
)
from aqmlab.errors import InputError, ScenarioError, SelfCheckError
from aqmlab.run_command import (
    EXIT_BAD_INPUT,
    EXIT_NOT_WRITTEN,
    error_line,
    headline,
    print_warnings,
    rate,
    run_and_save,
    save,
    tcp_line,
    user_error_status,
)
from aqmlab.scenario import (
    Scenario,
    ScenarioWarning,
    apply_overrides,
    read_scenario,
    resolve,
    scenario_warnings,
)

if TYPE_CHECKING:  # imported by the commands that use them (pandas, pyarrow, rich are slow;
    # the executor, store and sweep load multiprocessing, concurrent.futures, ctypes, secrets)
    from rich.console import Console

    from aqmlab.bench import BenchRow
    from aqmlab.executor import Outcome
    from aqmlab.sweeps import Sweep, SweepResult

BENCH_RUNS = 3
"""How often `aqmlab bench` runs each reference (and replays its ceiling) by default: single
runs of a tenth of a second are as noisy as a shared machine is; the median of three is not."""


class _OneLineErrors(TyperGroup):
    """The command group: a usage error is one line ``error: ...``, not a box.

    Usage errors are an unknown option, a value of the wrong type for its option, a missing
    argument; they exit with status 2 like every other bad input.
    """

    def main(  # noqa: D102 - see the class
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, windows_expand_args, **extra)
        except NoArgsIsHelpError as err:
            typer.echo(err.ctx.get_help() if err.ctx is not None else err.format_message())
            sys.exit(err.exit_code)
        except UsageError as err:
            command = err.ctx.command_path if err.ctx is not None else "aqmlab"
            error_line(f"{err.format_message()} (see {command} --help)")
            sys.exit(EXIT_BAD_INPUT)
        sys.exit(code or 0)


app = typer.Typer(
    name="aqmlab",
    help="A fast packet-level simulator for router queue management studies.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    cls=_OneLineErrors,
)

SetOption = Annotated[
    list[str] | None,
    typer.Option(
        "--set",
        metavar="KEY=VALUE",
        help="Override a scenario value, e.g. --set traffic[0].rate=2Mbps (repeatable).",
    ),
]


JobsOption = Annotated[
    int | None,
    typer.Option("--jobs", "-j", min=1, max=MAX_JOBS, help="Worker processes (default: cores)."),
]
SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Run on a Dask cluster, e.g. tcp://host:8786 (needs aqmlab[dask]).",
    ),
]


@contextmanager
def _user_errors(kept_in: Path | None = None) -> Iterator[None]:
    """Turn bad input, a failed engine self-check and Ctrl-C into one line on stderr.

    Each exits with its status (2, 3, 130; :func:`aqmlab.run_command.user_error_status`), never a
    traceback. ``kept_in`` is where a command that was interrupted keeps its finished runs.
    """
    try:
        yield
    except (InputError, SelfCheckError, OSError, KeyboardInterrupt) as err:
        status = user_error_status(err, kept_in)
        assert status is not None, "each of these is a user error"
        raise typer.Exit(status) from None


def _load(path: Path, overrides: list[str] | None) -> Scenario:
    """Read a scenario file (TOML, resolved JSON, run directory) and apply ``--set`` overrides."""
    return apply_overrides(read_scenario(path), overrides or [])


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
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 100)
    return console


def _distinct(found: Iterable[ScenarioWarning]) -> list[ScenarioWarning]:
    """Return the distinct warnings in order of first appearance (a sweep prints each once).

    >>> w = ScenarioWarning("pin-ignored", "traffic[0].server", "no effect")
    >>> _distinct([w, w]) == [w]
    True
    """
    return list(dict.fromkeys(found))


ScenarioArgument = Annotated[
    Path,
    typer.Argument(
        help="Scenario: a TOML file, a resolved scenario (JSON: a run's summary.json or the "
        "scenario itself) or a run directory (reproduced bit for bit, with its seed).",
        show_default=False,
    ),
]


@app.command("run")
def run_command(
    scenario: ScenarioArgument,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Run directory (default: runs/<name>-<hash8>-seed<seed>)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, max=MAX_SEED, help="Override the scenario's seed."),
    ] = None,
    overrides: SetOption = None,
    load: Annotated[
        float | None,
        typer.Option(
            "--load",
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
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace the run directory at --out if it holds a run."),
    ] = False,
    capture: Annotated[
        list[str] | None,
        typer.Option(
            "--capture",
            metavar="LINK",
            help="Write a libpcap trace of LINK (forward, reverse, s0.up, c1.down, ...) into the "
            "run directory, as the scenario's capture.links does (repeatable).",
        ),
    ] = None,
    tables: Annotated[
        str | None,
        typer.Option(
            "--tables",
            metavar="NAMES",
            help="Write only these tables (comma-separated: queue, link, flows, hops, "
            "connections, tcp_trace, requests), or none: summary.json alone (default: every "
            "table).",
        ),
    ] = None,
) -> None:
    """Run a scenario, write its run directory and print headline metrics.

    The results go to summary.json, Parquet tables and manifest.json (sizes and SHA-256 of the
    files) in the run directory, written under a temporary name and renamed into place when
    whole. An existing run directory is replaced only with --force; --out naming a file, or a
    directory that holds something else, is an error (checked before the run). When the scenario
    has TCP traffic, one line sums up its connections; when it has web users, one line sums up
    their request/response pairs.
    """
    status = run_and_save(scenario, out=out, seed=seed, overrides=overrides or [], load=load,
                          calibration=calibration, force=force, capture=capture or [],
                          tables=tables)  # fmt: skip
    if status:
        raise typer.Exit(status)


@app.command("live")
def live_command(
    scenario: ScenarioArgument,
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="Folder for the results: OUT/live (a run directory) "
                     "and, with --compare, OUT/simulated, OUT/compare.md and OUT/compare.json."),
    ],
    seed: Annotated[
        int | None,
        typer.Option("--seed", min=0, max=MAX_SEED, help="Override the scenario's seed."),
    ] = None,
    overrides: SetOption = None,
    compare_with_sim: Annotated[
        bool,
        typer.Option("--compare", help="Also simulate it (linux TCP profile) and write both "
                     "side by side."),
    ] = False,
    force: Annotated[
        bool,
        typer.Option("--force", help="Replace the run directories in OUT if they hold runs."),
    ] = False,
    max_rate: Annotated[
        str | None,
        typer.Option("--max-rate", metavar="RATE", help="Take a bottleneck up to RATE (e.g. "
                     "1Gbps; default 300Mbps, what the router was measured to keep)."),
    ] = None,
) -> None:
    """Run a scenario live: real Linux TCP in network namespaces, through aqmlab's own queues.

    The dumbbell's two sides become network namespaces whose hosts are the kernel's TCP/IP
    stacks, running the scenario's ftp and cbr groups as real sockets; a router applies the
    scenario's bottleneck (the engine's queue disciplines, rates and delays) on the real clock,
    and records the same summary, queue and link tables as a simulated run, plus its own timing
    error. Needs root; everything it makes is removed when it ends, also on Ctrl-C. See
    docs/live.md.
    """
    from aqmlab.live import MAX_RATE_BPS, run_live
    from aqmlab.live.compare import compare, markdown, response_times_ks, simulated_twin
    from aqmlab.result import jsonable
    from aqmlab.runner import run as aqmlab_run
    from aqmlab.store import check_output_dir

    with _user_errors():
        loaded = _load(scenario, overrides)
        for name in ("live", "simulated") if compare_with_sim else ("live",):
            check_output_dir(out / name, replace=force)
        limit = MAX_RATE_BPS if max_rate is None else parse_rate(max_rate, what="--max-rate")
        result = run_live(loaded, seed=seed, max_rate_bps=int(limit))
        simulated = (
            aqmlab_run(simulated_twin(loaded), seed=result.seed, progress=True)
            if compare_with_sim else None
        )  # fmt: skip
    directory = save(result, out / "live", replace=force)
    if directory is None:
        raise typer.Exit(EXIT_NOT_WRITTEN)
    as_asked = directory == out / "live"
    console = _console()
    console.print(headline(result), highlight=False, soft_wrap=True)
    line = tcp_line(result)
    if line is not None:
        console.print(line, highlight=False, soft_wrap=True)
    late = result.summary["live"]["lateness"]
    console.print(
        f"router: {late['packets']} packets, late by {late['mean_s'] * 1e6:.0f} µs on average, "
        f"{late['p99_s'] * 1e6:.0f} µs at the 99th percentile, {late['max_s'] * 1e3:.2f} ms at "
        "most", highlight=False, soft_wrap=True,
    )  # fmt: skip
    console.print(f"run directory: {directory}", highlight=False, soft_wrap=True)
    if simulated is not None:
        twin = save(simulated, out / "simulated", replace=force)
        if twin is None:
            raise typer.Exit(EXIT_NOT_WRITTEN)
        as_asked = as_asked and twin == out / "simulated"
        rows, ks = compare(result, simulated), response_times_ks(result, simulated)
        table = markdown(rows)
        if ks is not None:
            table += (f"\n\nResponse-time CDFs: Kolmogorov–Smirnov distance "
                      f"{ks['ks_distance']:.3f} ({ks['live_n']:,} live, "
                      f"{ks['simulated_n']:,} simulated responses).")  # fmt: skip
        (out / "compare.md").write_text(table + "\n", encoding="utf-8")
        (out / "compare.json").write_text(
            json.dumps(jsonable({"measures": rows, "response_times": ks}), indent=1) + "\n",
            encoding="utf-8",
        )
        console.print(table, highlight=False, soft_wrap=True)
    if not as_asked:
        raise typer.Exit(EXIT_NOT_WRITTEN)


@app.command("validate")
def validate_command(
    scenario: ScenarioArgument,
    overrides: SetOption = None,
    expand: Annotated[
        bool, typer.Option("--expand", help="Print a named topology as its nodes and links.")
    ] = False,
) -> None:
    """Check a scenario; print "ok" and the scenario with every default resolved (JSON)."""
    with _user_errors():
        loaded = _load(scenario, overrides)
        resolved = resolve(loaded, expand=expand)
        print_warnings(scenario_warnings(loaded))
    typer.echo("ok")
    typer.echo(json.dumps(resolved, indent=2))


SWEEP_FILE_KEYS = ("scenario", "axis")
"""Top-level keys that make a TOML file a sweep file rather than a scenario (which has neither)."""


def build_sweep(
    source: Path,
    *,
    vary: list[str] | None = None,
    seeds: str | None = None,
    zip_axes: bool = False,
    name: str | None = None,
    overrides: list[str] | None = None,
    max_runs: int | None = None,
) -> Sweep:
    r"""Build the sweep that ``aqmlab sweep SOURCE ...`` asks for.

    ``SOURCE`` is a scenario (a TOML or JSON file, or a run directory, as ``aqmlab run`` reads
    it), varied by ``--vary`` (seeds: ``--seeds``, else the scenario's
    own ``seed``), or a sweep file (it has ``scenario`` or ``[[axis]]``: see
    :mod:`aqmlab.sweeps`), to which ``--vary`` adds axes and whose seeds ``--seeds`` replaces.
    ``--set`` overrides apply to the base scenario either way.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = Path(tmp) / "q.toml"
    ...     _ = path.write_text('scenario = { duration = "1s" }\nseeds = "1-2"\n'
    ...                         '[[axis]]\npath = "queue.limit"\nvalues = ["10p", "20p"]\n')
    ...     swept = build_sweep(path, vary=["duration=2s,3s"], overrides=["seed=9"])
    >>> swept.name, swept.seeds, [a.path for a in swept.axes], swept.base["seed"]
    ('q', (1, 2), ['queue.limit', 'duration'], 9)
    """
    from aqmlab.sweeps import MAX_RUNS, Axis, Sweep, parse_seeds

    data = read_scenario(source)  # a sweep file is TOML; a scenario may also be JSON or a run
    extra = tuple(Axis.parse(text) for text in vary or [])
    if any(key in data for key in SWEEP_FILE_KEYS):
        try:
            from_file = Sweep.from_dict(data, relative_to=source.parent, source=str(source),
                                        max_runs=max_runs)  # fmt: skip
        except InputError as err:
            raise type(err)(f"{source}: {err.path}" if err.path else str(source),
                            err.message) from None  # fmt: skip
        return dataclasses.replace(
            from_file,
            base=apply_overrides(from_file.base, overrides or []),
            axes=from_file.axes + extra,
            seeds=parse_seeds(seeds) if seeds is not None else from_file.seeds,
            zip=from_file.zip or zip_axes,
            name=from_file.name if name is None else name,
        )  # the cap checked again with the extra axes
    base = apply_overrides(data, overrides or [])
    own = base.get("seed", 1)
    default = (own,) if isinstance(own, int) and not isinstance(own, bool) and own >= 0 else (1,)
    return Sweep(
        base,
        extra,
        parse_seeds(seeds) if seeds is not None else default,
        zip_axes,
        "sweep" if name is None else name,
        MAX_RUNS if max_runs is None else max_runs,
    )


def _check_store_out(out: Path) -> None:
    """Refuse an ``--out`` that cannot become a run store, before anything runs or connects."""
    from aqmlab.store import MARKER, Store

    if (out / MARKER).is_file():
        return
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        Store.open(out, create=True)  # raises the StoreError that says why; touches nothing


def sweep_report(done: SweepResult) -> list[str]:
    r"""List the lines ``aqmlab sweep`` ends with: counts, runs re-run and why, failures.

    >>> from aqmlab.executor import Job, Outcome
    >>> from aqmlab.sweeps import SweepResult
    >>> job = Job({}, 2, "ab" * 32)
    >>> done = SweepResult(Path("s"), "q", [
    ...     Outcome(job, "ran", Path("s/runs/abab-seed2"), {}, rerun="failed before"),
    ...     Outcome(Job({}, 3, "ab" * 32), "failed", Path("s/runs/abab-seed3"),
    ...             error="RuntimeError: boom")])
    >>> print("\n".join(sweep_report(done)))
    sweep q: 2 runs: 0 reused, 1 run now, 1 failed
    re-run 1 stored run:
      s/runs/abab-seed2: failed before
    failed 1 run:
      s/runs/abab-seed3: RuntimeError: boom
    """
    from aqmlab.sweeps import sweep_label

    counts = done.counts()
    runs = f"{counts['runs']} run{'s' if counts['runs'] != 1 else ''}"
    lines = [
        f"{sweep_label(done.name)}: {runs}: {counts['reused']} reused, {counts['ran']} run now, "
        f"{counts['failed']} failed"
    ]
    reruns = _unique(o for o in done.outcomes if o.rerun is not None)
    failures = _unique(done.failures)
    if reruns:
        lines.append(f"re-run {len(reruns)} stored run{'s' if len(reruns) != 1 else ''}:")
        lines.extend(f"  {o.directory}: {_one_line(str(o.rerun))}" for o in reruns)
    if failures:
        lines.append(f"failed {len(failures)} run{'s' if len(failures) != 1 else ''}:")
        lines.extend(f"  {o.directory}: {_one_line(str(o.error))}" for o in failures)
    return lines


def _unique(outcomes: Iterable[Outcome]) -> list[Outcome]:
    """One outcome per run directory (two points may resolve to the same run)."""
    seen: dict[Path, Outcome] = {}
    for outcome in outcomes:
        seen.setdefault(outcome.directory, outcome)
    return list(seen.values())


@contextmanager
def _warnings_on_stderr() -> Iterator[None]:
    """Print every warning raised inside (deprecations too) on stderr, one line each."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            # A failure inside still shows what was warned before it.
            for warning in caught:
                sys.stderr.write(f"warning: {_one_line(str(warning.message))}\n")


def _one_line(text: str) -> str:
    return "; ".join(line.strip() for line in text.splitlines() if line.strip())


@app.command("sweep")
def sweep_command(
    scenario: Annotated[
        Path,
        typer.Argument(help="Scenario (TOML, JSON or a run directory), or a sweep TOML "
                       "(scenario, seeds, \\[\\[axis]]).",
                       show_default=False),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The run store (created if new).")],
    vary: Annotated[
        list[str] | None,
        typer.Option("--vary", metavar="KEY=V1,V2,...",
                     help="An axis: a key path and its values, e.g. --vary queue.limit=30p,60p or "
                          "--vary traffic\\[web].users=2000,3000 (repeatable)."),
    ] = None,
    seeds: Annotated[
        str | None,
        typer.Option("--seeds", metavar="SEEDS",
                     help='Seeds of every point: "1-5", "1,3,7" (default: the scenario\'s seed, '
                          "or the sweep file's seeds)."),
    ] = None,
    jobs: JobsOption = None,
    scheduler: SchedulerOption = None,
    zip_axes: Annotated[
        bool,
        typer.Option("--zip", help="Pair the axes' values side by side instead of their product."),
    ] = False,
    name: Annotated[
        str | None,
        typer.Option("--name", help='The sweep\'s name in the store (default: the sweep file\'s '
                                    'name, or "sweep"); a sweep of the same name is replaced.'),
    ] = None,
    overrides: SetOption = None,
    max_runs: Annotated[
        int | None,
        typer.Option("--max-runs", min=1, help="The most runs (points × seeds) the sweep may "
                     "have (default 100,000, or the sweep file's max_runs)."),
    ] = None,
    pack: Annotated[
        bool,
        typer.Option("--pack/--no-pack", help="Store short runs that a worker (local or "
                     "Dask's) makes in a row together, as packs (read back as any run); --no-pack "
                     "gives every run a directory of its own."),
    ] = True,
) -> None:
    """Run a scenario at every point of its axes, once per seed, into a run store.

    The points are the product of the --vary axes (--zip pairs them); every point is checked
    before anything runs. Each run is a directory of the store (OUT/runs/), or for short runs
    part of a pack of one scenario's seeds (OUT/runs/<hash16>-seeds<lo>-<hi>-<digest>/),
    reused when its manifest verifies and the same engine build made it; a damaged run, one
    made by another build, or one that failed before is run again. A killed sweep resumes
    where it stopped. A run that fails is recorded and the others go on; the failures are
    listed at the end and the exit status is 1. Read the results with aqmlab collect OUT.
    """
    from aqmlab.executor import BatchProgress, DaskExecutor
    from aqmlab.sweeps import make_executor, plan, run_sweep, sweep_label

    with _user_errors(kept_in=out):
        chosen = build_sweep(scenario, vary=vary, seeds=seeds, zip_axes=zip_axes, name=name,
                             overrides=overrides, max_runs=max_runs)  # fmt: skip
        points, _, _ = plan(chosen)  # every point valid before connecting or writing anything
        print_warnings(_distinct(w for p in points for w in scenario_warnings(p.scenario)))
        _check_store_out(out)
        executor = make_executor(jobs=jobs, scheduler=scheduler, pack=pack)
        try:
            with BatchProgress(sweep_label(chosen.name)) as bar:
                done = run_sweep(chosen, out, executor=executor, bar=bar)
        finally:
            if isinstance(executor, DaskExecutor):
                executor.client.close()
    console = _console()
    for line in sweep_report(done):
        console.print(line, highlight=False, soft_wrap=True, markup=False)
    console.print(f"store: {done.store}", highlight=False, soft_wrap=True, markup=False)
    console.print(f"collect the results with: aqmlab collect {_quote(done.store)}",
                  highlight=False, soft_wrap=True, markup=False)  # fmt: skip
    if done.failures:
        count = len(_unique(done.failures))
        error_line(f"{count} run{'s' if count != 1 else ''} failed (listed above); they are "
               "recorded in the store and run again by the next sweep")  # fmt: skip
        raise typer.Exit(1)


def _quote(path: Path) -> str:
    """Quote a path as a shell word.

    >>> _quote(Path("runs/q")), _quote(Path("my runs"))
    ('runs/q', "'my runs'")
    """
    import shlex

    return shlex.quote(str(path))


COLLECT_TABLES = (
    "summary", "requests", "flows", "hops", "queue", "link", "connections", "tcp_trace",
)
"""The tables ``aqmlab collect --table`` reads: the summary, or a run directory's Parquet table."""
COLLECT_FORMATS = (".csv", ".parquet")


def _write_frame(frame: Any, out: Path | None) -> None:
    """Write a collected table: CSV on stdout, or a CSV or Parquet file (replaced atomically)."""
    if out is None:
        try:
            frame.to_csv(sys.stdout, index=False)
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. | head: the reader has what it wanted
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - no flush error at exit
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    temporary = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if out.suffix.lower() == ".parquet":
            _parquet_safe(frame).to_parquet(temporary, index=False)
        else:
            frame.to_csv(temporary, index=False)
        temporary.replace(out)
    finally:
        temporary.unlink(missing_ok=True)


def _parquet_safe(frame: Any) -> Any:
    """Turn object columns mixing value types (an axis of ``20p`` and ``50``) into text.

    >>> import pandas as pd
    >>> _parquet_safe(pd.DataFrame({"a": ["20p", 50], "b": [1, 2]}))["a"].tolist()
    ['20p', '50']
    """
    fixed = frame.copy()
    for column in fixed.columns:
        values = fixed[column]
        if values.dtype == object and len({type(v) for v in values.dropna()}) > 1:
            fixed[column] = values.map(lambda v: v if v is None else str(v))
    return fixed


@app.command("collect")
def collect_command(
    store: Annotated[Path, typer.Argument(help="A run store (aqmlab sweep --out).",
                                          show_default=False)],  # fmt: skip
    table: Annotated[
        str,
        typer.Option("--table", "-t", help="The table: " + ", ".join(COLLECT_TABLES) + "."),
    ] = "summary",
    sweep: Annotated[
        str | None, typer.Option("--sweep", help="Only this sweep of the store (default: all).")
    ] = None,
    columns: Annotated[
        str | None,
        typer.Option("--columns", metavar="A,B,...",
                     help="Only these columns of the table (the axes and run columns stay)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out", "-o", help="Write FILE.csv or FILE.parquet (default: CSV on stdout)."
        ),
    ] = None,
    labels: Annotated[
        bool, typer.Option("--labels", help="Name the axis values by their labels.")
    ] = False,
) -> None:
    """Collect one table of every run in a store: the axis values and the seed, then its columns.

    For summary, one row per run with every headline number as a column (forward.drop_rate,
    requests.median_s, ...); for the other tables, their rows. A run that is damaged or failed
    is left out with a warning.
    """
    from aqmlab.reading import collect as collect_table
    from aqmlab.store import Store

    with _user_errors():
        if table not in COLLECT_TABLES:
            raise InputError("--table", f'unknown table "{table}" (tables: '
                                        f"{', '.join(COLLECT_TABLES)})")  # fmt: skip
        if out is not None and out.suffix.lower() not in COLLECT_FORMATS:
            raise InputError(
                "--out", f'expected a file name ending in .csv or .parquet, got "{out}"'
            )
        if out is not None and out.is_dir():
            raise InputError("--out", f"{out} is a directory, expected a .csv or .parquet file")
        picked = None
        if columns is not None:
            picked = [c.strip() for c in columns.split(",") if c.strip()]
            if not picked:
                raise InputError("--columns", "expected column names like a,b")
        Store.open(store)
        with _warnings_on_stderr():
            frame = collect_table(store, table, sweep=sweep, columns=picked, labels=labels)
        try:
            _write_frame(frame, out)
        except OSError as err:
            raise InputError("--out", f"cannot write {out}: {err.strerror or err}") from None
    if out is not None:
        sys.stderr.write(f"{len(frame):,} rows → {out}\n")


PLOT_KINDS_HELP = "cdf, queue, throughput, loss, delay, cwnd"
"""The kinds of ``aqmlab plot`` (aqmlab.plot.PLOT_KINDS; a test keeps the two alike)."""


@app.command("plot")
def plot_command(
    directory: Annotated[Path, typer.Argument(help="A run directory (aqmlab run --out) or a run "
                                              "store (aqmlab sweep --out).",
                                              show_default=False)],  # fmt: skip
    kind: Annotated[
        str,
        typer.Option("--kind", "-k", help=f"The figure: {PLOT_KINDS_HELP}.", show_default=False),
    ],
    by: Annotated[
        str | None,
        typer.Option("--by", metavar="AXIS[,AXIS]",
                     help="One curve per value of these sweep axes (default: every axis that "
                          "varies)."),
    ] = None,
    formats: Annotated[
        str | None,
        typer.Option("--format", "-f", metavar="pdf,svg,png",
                     help="Formats to write (default: the --out suffix, else pdf,svg,png)."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="The figure's file (default: DIR-KIND in the current "
                                         "directory); each format gets its suffix."),
    ] = None,
    title: Annotated[str | None, typer.Option("--title", help="The figure's title.")] = None,
    sweep: Annotated[
        str | None, typer.Option("--sweep", help="Only this sweep of the store (default: all).")
    ] = None,
    bin_: Annotated[
        str | None,
        typer.Option("--bin", metavar="DURATION",
                     help="Average each run's time series into bins this wide (1s, 100ms; at "
                          "least the table's interval) before the mean over seeds: queue, "
                          "throughput and cwnd the mean over the bin, loss the bin's drops over "
                          "its arrivals, delay the mean sojourn of the packets that left in "
                          "it."),
    ] = None,
) -> None:
    """Draw a figure of a run or a run store: the mean over seeds with a 95% t band.

    Kinds: cdf (response times of completed web requests, from requests), queue (forward queue
    length over time, from queue), throughput (forward link throughput over time, from link),
    loss (share of arrivals dropped per interval, from queue), delay (forward queueing delay
    over time in ms: the mean sojourn of the packets that left the queue in each interval, from
    queue), cwnd (congestion window of traced TCP senders, from tcp_trace). With two sweep axes
    or more, curves are labelled by their values and the legend, right of the axes, names the
    axes. Writes vector PDF and SVG and PNG at 300 dpi.
    """
    from aqmlab.plot import plot_runs

    with _user_errors():
        axes = None if by is None else [a.strip() for a in by.split(",") if a.strip()]
        if axes is not None and not axes:
            raise InputError("--by", "expected axis names like queue.limit")
        target = out if out is not None else Path(f"{directory.resolve().name}-{kind}")
        suffix = target.suffix.lower().lstrip(".") if out is not None else ""
        if suffix and suffix not in ("pdf", "svg", "png"):
            raise InputError("--out", f'expected a name ending in .pdf, .svg, .png or none, got '
                                      f'"{out}"')  # fmt: skip
        chosen = formats if formats is not None else suffix or "pdf,svg,png"
        with _warnings_on_stderr():
            try:
                written = plot_runs(directory, kind, target, by=axes, formats=chosen,
                                    title=title, sweep=sweep, bin=bin_)  # fmt: skip
            except OSError as err:
                raise InputError("--out", f"cannot write {target}: {err.strerror or err}") from None
    for path in written:
        typer.echo(str(path))


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
                count = int(part)
            except ValueError:
                raise ScenarioError("--users", f'expected whole numbers, got "{part}"') from None
            counts.append(args.integer("--users", count, low=1))
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
    jobs: JobsOption = None,
    seed: Annotated[
        int, typer.Option("--seed", min=0, max=MAX_SEED, help="Seed of every run.")
    ] = 1,
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

    with _user_errors(kept_in=out):
        loads = [args.number("--target", t, above=0, high=MAX_LOAD_PERCENT) / 100
                 for t in targets or [100.0, 110.0]]  # fmt: skip
        parse_rate(link_rate, what="--link-rate")
        args.directory("--out", out)
        counts = _users_option(users)
        if scenario is None:
            base = christiansen2000.testbed(christiansen2000.SCALES["quick"])
            base = apply_overrides(base, overrides or [])
        else:
            base = _load(scenario, overrides)
        if duration is not None:
            base["duration"] = duration
        if warmup is not None:
            base["warmup"] = warmup
        result = calibrate(
            base,
            counts,
            out=out,
            jobs=jobs,
            seed=seed,
            link_rate=link_rate,
            targets=loads,
        )
    console = _console()
    from rich.table import Table

    table = Table(title="calibration (unconstrained network)", title_justify="left")
    for column in ("users", "offered load", "fit"):
        table.add_column(column, justify="right")
    fit = result.fit
    for point in result.points:
        table.add_row(
            f"{point.users:,}", rate(point.throughput_bps), rate(fit.load_bps(point.users))
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
        str | None,
        typer.Argument(help="The study: " + ", ".join(papers.names()) + ".", show_default=False),
    ] = None,
    scale: Annotated[
        str,
        typer.Option("--scale", help="quick (minutes) or full (the paper's durations)."),
    ] = "quick",
    out: Annotated[
        Path | None,
        typer.Option("--out", "-o", help="Output directory (default: runs/<paper>-<scale>)."),
    ] = None,
    only: Annotated[
        str | None,
        typer.Option("--only", metavar="ID[,ID...]",
                     help="Run only the experiments these findings need, e.g. C6,C9."),
    ] = None,
    seeds: Annotated[
        int | None,
        typer.Option(
            "--seeds", min=1, max=MAX_SEEDS,
            help="Seeds per experiment, 1..N (default: the scale's).",
        ),  # fmt: skip
    ] = None,
    referee: Annotated[
        str | None,
        typer.Option("--referee", metavar="SIM",
                     help="Also run every experiment in ns-2.35 (ns2) and judge each finding on "
                     "its runs: an ns-2 column and each verdict's class (docs/ns2-referee.md)."),
    ] = None,
    referee_seeds: Annotated[
        int | None,
        typer.Option("--referee-seeds", metavar="N", min=1, max=MAX_SEEDS,
                     help="Seeds 1..N for the referee's runs (default: the same as aqmlab's; "
                     "fewer keeps a full-scale referee run short)."),
    ] = None,
    since: Annotated[
        Path | None,
        typer.Option("--since", metavar="FINDINGS_JSON",
                     help="An earlier report's findings.json: the report adds what changed since "
                     "(verdicts, why, the numbers that moved)."),
    ] = None,
    jobs: JobsOption = None,
    scheduler: SchedulerOption = None,
    list_studies: Annotated[
        bool, typer.Option("--list", help="List the studies and their findings, then exit.")
    ] = False,
) -> None:
    """Reproduce a paper: run its experiments in parallel, judge its findings, write its report.

    Every run goes to OUT/store and is reused when whole and made by the same engine build, so
    a re-run after an interruption picks up where it stopped. The report (report.md,
    findings.json, CSVs, figures) puts our numbers beside the paper's and gives a verdict for
    each finding.
    """
    from aqmlab.study.run import default_out, reproduce

    if list_studies:
        _list_studies()
        return
    with _user_errors(kept_in=(out or default_out(str(paper), scale)) / "store"):
        if paper is None:
            raise InputError("PAPER", "missing: name a study (see aqmlab reproduce --list)")
        if out is not None:
            args.directory("--out", out)
        done = reproduce(papers.get(paper), scale, out, only=only, seeds=seeds, jobs=jobs,
                         referee=referee, referee_seeds=referee_seeds, since=since,
                         scheduler=scheduler)  # fmt: skip
    console = _console()
    for line in done.summary_lines():
        console.print(line, highlight=False, soft_wrap=True)
    console.print(
        f"{done.runs} runs: {done.ran} run now, {done.reused} reused; {done.wall_s:.0f} s wall",
        highlight=False,
        soft_wrap=True,
    )
    console.print(f"report: {done.report}", highlight=False, soft_wrap=True)
    if done.failed:
        for line in done.failed:
            error_line(f"run failed: {line}")
        raise typer.Exit(1)


def _list_studies() -> None:
    """Print every study with its scales and findings."""
    console = _console()
    for name in papers.names():
        study = papers.get(name)
        console.print(f"[bold]{name}[/bold]: {study.title}", soft_wrap=True)
        console.print(f"  scales: {', '.join(study.public_scales)}", highlight=False)
        for finding in study.findings:
            console.print(f"  {finding.id:<4} {finding.claim}", highlight=False, soft_wrap=True)


@app.command("tune")
def tune_command(
    source: Annotated[
        Path,
        typer.Argument(help="Scenario TOML, or a tune TOML (scenario, params, objectives, ...).",
                       show_default=False),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Output directory (store, report).")],
    params: Annotated[
        list[str] | None,
        typer.Option("--param", metavar="KEY=LOW..HIGH[UNIT][:log][:int]|KEY=V1,V2,...",
                     help="A parameter to tune, e.g. queue.min_th=5..60p:int, "
                          "queue.w_q=0.001..0.01:log, queue.max_th=min_th*2..min_th*6 "
                          "(repeatable)."),
    ] = None,
    objectives: Annotated[
        list[str] | None,
        typer.Option("--objective", metavar="METRIC:min|max",
                     help="A summary column to minimise or maximise (mean over seeds), e.g. "
                          "requests.median_s:min (repeatable)."),
    ] = None,
    constraints: Annotated[
        list[str] | None,
        typer.Option("--constraint", metavar="METRIC<=V|METRIC>=V",
                     help="A bound on a summary column's mean, e.g. forward.drop_rate<=0.05 "
                          "(repeatable)."),
    ] = None,
    weights: Annotated[
        str | None,
        typer.Option("--weights", metavar="W1,W2,...",
                     help="Objective weights for the recommendation (default: equal)."),
    ] = None,
    seeds: Annotated[
        str | None, typer.Option("--seeds", metavar="SEEDS", help='Seeds of every trial: "1-3".')
    ] = None,
    trials: Annotated[
        int | None, typer.Option("--trials", help="Trials to run (default 20).")
    ] = None,
    batch: Annotated[
        int | None,
        typer.Option("--batch", help="Trials asked and run at a time (default 4; not --jobs, so "
                                     "that a tune gives the same trials on every machine)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="The sampler's seed (default 1).")
    ] = None,
    sampler: Annotated[
        str | None, typer.Option("--sampler", help="tpe (default), nsga2 or random.")
    ] = None,
    jobs: JobsOption = None,
    scheduler: SchedulerOption = None,
    overrides: SetOption = None,
) -> None:
    r"""Search a scenario's parameters for the best objectives with Optuna (aqmlab\[tune]).

    Each trial runs one setting at every seed into OUT/store (runs are reused, so a re-run of
    the same job gives the same trials at once); objectives and constraints use the mean over
    seeds. Writes OUT/tune.json (every trial), OUT/report.md (the Pareto front, the recommended
    setting and how it was chosen) and OUT/pareto.png. See docs/tuning.md.
    """
    from aqmlab.executor import BatchProgress, DaskExecutor
    from aqmlab.sweeps import make_executor
    from aqmlab.tune import build_job, tune_job

    with _user_errors(kept_in=out / "store"):
        with _warnings_on_stderr():
            job = build_job(source, params=params or [], objectives=objectives or [],
                            constraints=constraints or [], overrides=overrides or [],
                            weights=weights, seeds=seeds, trials=trials, batch=batch, seed=seed,
                            sampler=sampler)  # fmt: skip
        args.directory("--out", out)
        _check_store_out(out / "store")
        executor = make_executor(jobs=jobs, scheduler=scheduler)
        try:
            with BatchProgress(f"tune {job.name}") as bar:
                done = tune_job(job, out, executor=executor, bar=bar)
        finally:
            if isinstance(executor, DaskExecutor):
                executor.client.close()
    console = _console()
    counts = done.counts
    console.print(f"tune {job.name}: {len(done.trials)} trials, {counts['runs']} runs: "
                  f"{counts['reused']} reused, {counts['ran']} run now, {counts['failed']} failed",
                  highlight=False, soft_wrap=True, markup=False)  # fmt: skip
    chosen = done.recommendation["trial"]
    if chosen is None:
        console.print("no feasible trial: nothing to recommend", highlight=False, markup=False)
    else:
        settings = ", ".join(f"{k}={v}" for k, v in done.recommendation["params"].items())
        console.print(f"recommended: trial {chosen}: {settings}", highlight=False,
                      soft_wrap=True, markup=False)  # fmt: skip
    console.print(f"report: {out / 'report.md'}", highlight=False, soft_wrap=True, markup=False)


@app.command("queue-law")
def queue_law_command(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML.", show_default=False)],
    drop_rates: Annotated[
        str,
        typer.Option("--drop-rates", metavar="P1,P2,...",
                     help="Uniform drop rates to measure, e.g. 0.01,0.02,0.05,0.1."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="The run store (created if new).")],
    red: Annotated[
        str | None,
        typer.Option("--red", metavar="MIN_TH,MAX_TH,MAX_P",
                     help="Predict RED's operating point on the law, e.g. 100,300,0.1."),
    ] = None,
    gentle: Annotated[bool, typer.Option("--gentle", help="RED in gentle mode.")] = False,
    link: Annotated[
        str | None,
        typer.Option("--link", metavar="NAME",
                     help="The link direction whose queue takes the dropper and is measured, "
                     "e.g. r1-r2 on a parking lot (default: the dumbbell's forward)."),
    ] = None,
    seeds: Annotated[
        str, typer.Option("--seeds", metavar="SEEDS", help='Seeds: "1-3", "1,3,7".')
    ] = "1",
    jobs: JobsOption = None,
    overrides: SetOption = None,
) -> None:
    """Measure a scenario's queue law: its bottleneck queue replaced by a uniform dropper.

    Prints the average queue at each drop rate; with --red, where RED's drop function meets
    the law (Chung & Claypool 2003), or that it has no stable point. --link measures another
    link direction's queue (a named topology is then written out as its nodes and links).
    """
    from aqmlab.queue_laws import RedConfig, parse_drop_rates, predict_red, queue_law
    from aqmlab.sweeps import parse_seeds

    with _user_errors(kept_in=out):
        rates = parse_drop_rates(drop_rates)
        config = RedConfig.parse(red, gentle=gentle) if red is not None else None
        if config is not None and len(rates) < 2:
            raise InputError("--drop-rates", "--red needs at least two drop rates")
        base = _load(scenario, overrides)
        law = queue_law(base, drop_rates=rates, seeds=parse_seeds(seeds), out=out, jobs=jobs,
                        progress=True, link=link)  # fmt: skip
    console = _console()
    from rich.table import Table

    title = "queue law" if link is None else f"queue law of {link}"
    table = Table(title=title, title_justify="left")
    for column in ("p", "drop rate", "avg queue (pkts)"):
        table.add_column(column, justify="right")
    for row in law.points.itertuples():
        table.add_row(f"{row.p:g}", f"{row.drop_rate:.4f}", f"{row.avg_queue:.1f}")
    console.print(table)
    if config is not None:
        pred = predict_red(law, config)
        console.print(f"RED {red}{' gentle' if gentle else ''}: {pred.region}; "
                      f"{'stable' if pred.stable else 'no stable point'}: {pred.note}",
                      highlight=False, soft_wrap=True, markup=False)  # fmt: skip


@app.command("crosscheck")
def crosscheck_command(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the scripts and results.")],
    scenario: Annotated[
        Path | None,
        typer.Argument(help="Scenario: a TOML file, a resolved scenario (JSON) or a run "
                       "directory; not with --suite.", show_default=False),
    ] = None,
    suite: Annotated[
        bool,
        typer.Option("--suite", help="Cross-check every case of the bulk-TCP dumbbell suite "
                     "(docs/ns2-referee.md) instead of one scenario."),
    ] = False,
    quick: Annotated[
        bool, typer.Option("--quick", help="With --suite: NewReno cases only.")
    ] = False,
    against: Annotated[
        str, typer.Option("--against", metavar="SIM", help="The referee: ns2 (ns-2.35) or ns3.")
    ] = "ns2",
    seeds: Annotated[
        str, typer.Option("--seeds", metavar="SEEDS", help='Seeds: "1-5", "1,3,7".')
    ] = "1",
    tolerance: Annotated[
        list[str] | None,
        typer.Option("--tolerance", metavar="MEASURE=FRACTION",
                     help="Judge a measure at this relative difference, e.g. drop_rate=0.2 "
                     "(repeatable)."),
    ] = None,
    strict: Annotated[
        bool, typer.Option("--strict", help="Exit 1 when a judged measure is out of tolerance.")
    ] = False,
    jobs: JobsOption = None,
    overrides: SetOption = None,
    aqmlab_only: Annotated[
        list[str] | None,
        typer.Option("--set-aqmlab", metavar="KEY=VALUE",
                     help="Override a value on aqmlab's side only, after the referee's script is "
                     "written (what one mechanism contributes; repeatable)."),
    ] = None,
    approximate: Annotated[
        bool,
        typer.Option("--approximate", help="ns-2 only: run both simulators on the nearest "
                     "scenario ns-2 can express (framing, BSD timers, ALTQ's RED rewritten; "
                     "each change listed) instead of refusing it."),
    ] = False,
) -> None:
    """Run a scenario in aqmlab and in ns-2.35 (or ns-3) and print both side by side.

    For each seed the scenario is written as the referee's script (kept in OUT/seed-N/, with a
    header saying what was mapped and what differs), run, and read back; the means over the
    seeds of goodput, drops (early / forced / overflow), marks, drop rate, mean queue, RED's
    average and Jain's index are printed beside aqmlab's, with their relative differences, and
    written to OUT/crosscheck.md and OUT/crosscheck.json; so are, where both simulators report
    them, every other logged link's drops, drop rate and mean queue (both referees build any
    network of nodes and links: a parking lot's hops) and, with two groups or more, each group's
    goodput. A scenario the referee cannot express is refused, naming the key. Mapping and known
    differences: docs/ns2-referee.md.
    """
    from aqmlab.referee import REFEREES, crosscheck, label, number
    from aqmlab.sweeps import parse_seeds

    with _user_errors():
        tolerances = {}
        for item in tolerance or []:
            name, sep, value = item.partition("=")
            if not sep:
                raise InputError("--tolerance", f'expected MEASURE=FRACTION, got "{item}"')
            try:
                fraction = float(value)
            except ValueError:
                raise InputError("--tolerance", f'expected a fraction like 0.15, got "{value}"') \
                    from None
            tolerances[name.strip()] = args.number("--tolerance", fraction, above=0)
        if suite:
            if scenario is not None:
                raise InputError("SCENARIO", "give a scenario or --suite, not both")
            from aqmlab.referee.suite import cases, run_suite

            checks = run_suite(out, against=against, seeds=parse_seeds(seeds),
                               chosen=cases(quick=quick), extra=overrides or [],
                               aqmlab_only=aqmlab_only or [], jobs=jobs or 1,
                               progress=lambda line: sys.stderr.write(line + "\n"))
            agreeing = sum(c.agrees for c in checks)
            _console().print(f"{agreeing} of {len(checks)} cases agree within the tolerances; "
                             f"table in {out / 'suite.md'}", highlight=False, soft_wrap=True)
            if strict and agreeing < len(checks):
                raise typer.Exit(1)
            return
        if scenario is None:
            raise InputError("SCENARIO", "missing: give a scenario file, or --suite")
        check = crosscheck(_load(scenario, overrides), against=against, seeds=parse_seeds(seeds),
                           out=out, tolerances=tolerances, jobs=jobs or 1,
                           aqmlab_only=aqmlab_only or [], approximate=approximate)
    from rich.table import Table

    referee = REFEREES[against]
    table = Table(title=f"{check.scenario}: aqmlab beside {referee}, seeds {seeds}",
                  title_justify="left")
    for column in ("measure", "aqmlab", referee, "difference", "tolerance", "within"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for row in check.rows():
        if row.aqmlab is None and row.referee is None:
            continue
        within = {True: "yes", False: "NO", None: ""}[row.within]
        tol = "" if row.tolerance is None else f"±{row.tolerance:.0%}"
        diff = "" if row.difference is None else f"{row.difference:+.1%}"
        table.add_row(label(row.measure), number(row.aqmlab), number(row.referee), diff, tol,
                      within)
    console = _console()
    console.print(table)
    console.print(f"verdict: {'agree' if check.agrees else 'disagree'} within the tolerances; "
                  f"details in {out / 'crosscheck.md'}", highlight=False, soft_wrap=True)
    if strict and not check.agrees:
        raise typer.Exit(1)


@app.command("bench")
def bench_command(
    only: Annotated[
        list[str] | None,
        typer.Option("--only", metavar="NAME", help="Run only this reference (repeatable)."),
    ] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the rows as JSON instead of a table.")
    ] = False,
    baseline: Annotated[
        Path | None,
        typer.Option("--compare", metavar="BASELINE.json",
                     help="Print ratios to the rows of an earlier `aqmlab bench --json`."),
    ] = None,
    with_ceiling: Annotated[
        bool, typer.Option("--ceiling/--no-ceiling", help="Measure the event-queue ceiling.")
    ] = True,
    smoke: Annotated[
        bool, typer.Option("--smoke", help="Cut every run to a fraction of a second (tests "
                           "only: the figures mean nothing).")
    ] = False,
    ns3: Annotated[
        bool | None,
        typer.Option("--ns3/--no-ns3", help="Also run the TCP references in ns-3 and set them "
                     "side by side (default: when ns-3 is installed, pip install 'aqmlab\\[ns3]').",
                     show_default=False),
    ] = None,
    ns2: Annotated[
        bool | None,
        typer.Option("--ns2/--no-ns2", help="Also run the TCP references in ns-2.35 and set them "
                     "side by side (default: when ns is installed, Debian package ns2).",
                     show_default=False),
    ] = None,
    with_startup: Annotated[
        bool, typer.Option("--startup/--no-startup", help="Time the command line's start-up: "
                           "--version, validate, a 1-second run.")
    ] = True,
    with_sweep: Annotated[
        bool, typer.Option("--sweep/--no-sweep", help="Time a sweep of 1,000 1-second runs as "
                           "a whole process, and the share of it outside the engine.")
    ] = True,
    with_studies: Annotated[
        bool, typer.Option("--studies", help="Instead of the references, reproduce the four "
                           "papers (--studies-scale, full by default) and time each, report "
                           "included: about half an hour or more on 2 cores.")
    ] = False,
    studies_scale: Annotated[
        str, typer.Option("--studies-scale", metavar="SCALE", help="The scale --studies runs.")
    ] = "full",
    studies_out: Annotated[
        Path | None,
        typer.Option("--studies-out", help="Keep --studies' runs and reports here (default: a "
                     "temporary folder, deleted); runs already there are reused, not timed."),
    ] = None,
    jobs: Annotated[
        int | None, typer.Option("--jobs", "-j", min=1, max=MAX_JOBS,
                                 help="Worker processes for --studies (default: one per core).")
    ] = None,
    runs: Annotated[
        int, typer.Option("--runs", min=1, metavar="N", help="Run each reference, and replay "
                          "its ceiling, N times, each run followed by ns-3's and ns-2's of it "
                          "when they run too; print the medians.")
    ] = BENCH_RUNS,
) -> None:
    """Measure the engine's speed on the reference scenarios shipped with aqmlab.

    Each reference runs in a child process of its own, --runs times (medians are printed):
    events and bottleneck packets per second and ns per packet of engine time, the child's
    whole-process time and peak memory, and the ceiling: the run's first events pushed and
    popped on the event queue alone, and on a bare binary heap, in events per second, and each
    over the engine's, and the command a user types (aqmlab run REFERENCE --out DIR, every
    table written) as a whole process. With ns-2 or ns-3 installed, the TCP references also run
    there, as whole processes too, each of their --runs runs just after one of aqmlab's: the
    speed ratios against the typed command and engine against engine (each the median of the
    pair-by-pair ratios), and goodput, drops and mean queue side by side.
    Then the start-up of aqmlab --version, validate and a 1-second run, as whole processes, and
    a sweep of 1,000 1-second runs: its time, and the share of it outside the engine (the same
    runs through the engine alone, in one process).
    With --studies, it reproduces the four papers instead and times each, report included.
    """  # fmt: skip
    if with_studies:
        _bench_studies(studies_scale, studies_out, jobs, as_json)
        return
    from aqmlab.bench import (
        STARTUP_RUNS,
        SWEEP_RUNS,
        SWEEP_START_RUNS,
        BenchRow,
        cache_bytecode,
        compare,
        measure,
        ratios,
        select,
        short_sweep,
        startup,
    )
    from aqmlab.bench import ns2 as ns2_twin
    from aqmlab.bench import ns3 as twin

    rows: list[BenchRow] = []
    pairs: list[dict[str, Any]] = []
    ns2_pairs: list[dict[str, Any]] = []
    with _user_errors():
        chosen = select(only)
        if ns3 and not twin.available():
            raise InputError("--ns3", "ns-3 is not installed (pip install 'aqmlab[ns3]')")
        if ns2 and not ns2_twin.available():
            raise InputError("--ns2", "ns-2 is not installed (Debian package ns2)")
        use_ns3 = twin.available() if ns3 is None else ns3
        use_ns2 = ns2_twin.available() if ns2 is None else ns2
        old = None
        if baseline is not None:
            try:
                old = [BenchRow.from_json(r) for r in json.loads(baseline.read_text())["rows"]]
            except (OSError, ValueError, KeyError, TypeError) as err:
                message = f"not an `aqmlab bench --json` file: {err}"
                raise InputError(str(baseline), message) from None
        cache_bytecode()
        for number, name in enumerate(chosen, start=1):
            sys.stderr.write(f"bench: {name} ({number}/{len(chosen)})\n")
            ns3_runs: list[Any] = []
            ns2_runs: list[Any] = []

            def others(name: str = name, ns3_runs: list[Any] = ns3_runs,
                       ns2_runs: list[Any] = ns2_runs) -> None:  # fmt: skip
                """Run ``name`` in the other simulators, just after one of aqmlab's runs."""
                if use_ns3 and name in twin.REFERENCES:
                    sys.stderr.write(f"bench: {name} in ns-3\n")
                    ns3_runs.append(twin.measure_ns3(name, smoke=smoke))
                if use_ns2 and name in ns2_twin.REFERENCES:
                    sys.stderr.write(f"bench: {name} in ns-2\n")
                    ns2_runs.append(ns2_twin.measure_ns2(name, smoke=smoke))

            rows.append(measure(name, smoke=smoke, with_ceiling=with_ceiling, runs=runs,
                                between=others))  # fmt: skip
            if ns3_runs:
                pairs.append(twin.side_by_side(rows[-1], ns3_runs))
            if ns2_runs:
                ns2_pairs.append(twin.side_by_side(rows[-1], ns2_runs, "ns2"))
        if with_startup:
            sys.stderr.write("bench: start-up\n")
        starts = startup(runs=1 if smoke else STARTUP_RUNS) if with_startup else []
        swept = None
        if with_sweep:
            sys.stderr.write("bench: a sweep of short runs\n")
            swept = short_sweep(runs=SWEEP_START_RUNS + 4 if smoke else SWEEP_RUNS)
    if as_json:
        data = {"version": __version__, "build": json.loads(build_info()),
                "rows": [row.to_json() for row in rows], "ns3": pairs, "ns2": ns2_pairs,
                "startup": [row.to_json() for row in starts],
                "sweep": swept.to_json() if swept else None}  # fmt: skip
        typer.echo(json.dumps(data, indent=1))
        return
    _print_bench(rows)
    for variant, base, ratio in ratios(rows):
        typer.echo(f"{variant} / {base}: {ratio:.2f}x the wall time")
    for simulator, found in (("ns2", ns2_pairs), ("ns3", pairs)):
        if found:
            _print_twin(found, simulator)
    if starts:
        _print_startup(starts)
    if swept is not None:
        _print_sweep(swept)
    if old is not None:
        _print_comparison(compare(rows, old), baseline)


def _bench_studies(scale: str, out: Path | None, jobs: int | None, as_json: bool) -> None:
    """Reproduce the four papers at ``scale`` and print how long each took."""
    import tempfile

    from rich.table import Table

    from aqmlab.bench import studies

    with _user_errors(), tempfile.TemporaryDirectory(prefix="aqmlab-bench-studies-") as tmp:
        rows = studies(out if out is not None else Path(tmp), scale=scale, jobs=jobs)
    if as_json:
        typer.echo(json.dumps({"version": __version__, "build": json.loads(build_info()),
                               "studies": [row.to_json() for row in rows]}, indent=1))
        return
    table = Table(title=f"the four papers at {scale} scale (jobs: {jobs or 'one per core'})",
                  title_justify="left")  # fmt: skip
    for column in ("study", "runs", "made now", "runs s", "report s", "wall s"):
        table.add_column(column, justify="left" if column == "study" else "right")
    for row in rows:
        table.add_row(row.study, f"{row.runs:,}", f"{row.ran:,}", f"{row.runs_s:,.0f}",
                      f"{row.report_s:,.0f}", f"{row.wall_s:,.0f}")  # fmt: skip
    total = sum(row.wall_s for row in rows)
    table.add_row("all four", f"{sum(r.runs for r in rows):,}", f"{sum(r.ran for r in rows):,}",
                  f"{sum(r.runs_s for r in rows):,.0f}", f"{sum(r.report_s for r in rows):,.0f}",
                  f"{total:,.0f}")  # fmt: skip
    _console().print(table)


def _print_twin(pairs: list[dict[str, Any]], simulator: str) -> None:
    """Print aqmlab beside ns-2 or ns-3 (``simulator``): speeds, then what the runs did."""
    from rich.table import Table

    def cell(value: float | None, form: str, scale: float = 1.0) -> str:
        return "-" if value is None else format(value / scale, form)

    label = {"ns2": "ns-2.35", "ns3": "ns-3"}[simulator]
    runs = pairs[0][f"{simulator}_runs"] if pairs else 1
    speed = Table(title=f"aqmlab beside {label} (whole processes, the two run in turn {runs} "
                  "times: medians, each ratio the median of the pair-by-pair ratios)",
                  title_justify="left")  # fmt: skip
    for column in ("scenario", "sim s", "aqmlab run --out s", f"{label} s", "ratio",
                   "aqmlab engine s", f"{label} run s", "engine ratio"):  # fmt: skip
        speed.add_column(column, justify="left" if column == "scenario" else "right")
    for pair in pairs:
        speed.add_row(pair["scenario"], f"{pair['simulated_s']:g}",
                      cell(pair["aqmlab_command_s"], ".2f"),
                      cell(pair[f"{simulator}_process_s"], ".2f"),
                      cell(pair["speed_ratio"], ".1f") + "x", cell(pair["aqmlab_engine_s"], ".3f"),
                      cell(pair[f"{simulator}_run_s"], ".2f"),
                      cell(pair["engine_ratio"], ".1f") + "x")  # fmt: skip
    agree = Table(title=f"aqmlab beside {label}: what the runs did", title_justify="left")
    for column in ("scenario", "figure", "aqmlab", label, f"{label} vs aqmlab"):
        agree.add_column(column, justify="left" if column in ("scenario", "figure") else "right")
    figures = (("goodput (Mb/s)", "goodput_bps", ".3f", 1e6), ("drops", "drops_pkts", ",.0f", 1.0),
               ("drop rate", "drop_rate", ".4f", 1.0),
               ("mean queue (pkts)", "mean_queue_pkts", ".2f", 1.0))  # fmt: skip
    for pair in pairs:
        for name, key, form, scale in figures:
            diff = pair[f"{key}_diff"]
            agree.add_row(pair["scenario"], name, cell(pair[f"aqmlab_{key}"], form, scale),
                          cell(pair[f"{simulator}_{key}"], form, scale),
                          "-" if diff is None else f"{diff:+.1%}")  # fmt: skip
    console = _console()
    if not console.is_terminal:
        console.width = max(console.width, 160)
    console.print(speed)
    console.print(agree)


def _print_startup(rows: list[Any]) -> None:
    """Print the start-up times of the command line."""
    from rich.table import Table

    table = Table(title="start-up (whole processes)", title_justify="left")
    for column in ("command", "runs", "wall s (median)", "min", "max", "cpu s (median)"):
        table.add_column(column, justify="left" if column == "command" else "right", no_wrap=True)
    for row in rows:
        table.add_row(row.command, str(row.runs), f"{row.wall_s:.3f}", f"{row.wall_min_s:.3f}",
                      f"{row.wall_max_s:.3f}", f"{row.cpu_s:.3f}")  # fmt: skip
    _console().print(table)


def _print_sweep(row: Any) -> None:
    """Print the short sweep's time and its share outside the engine."""
    from aqmlab.bench import SWEEP_START_RUNS

    typer.echo(f"{row.command} (whole process): {row.wall_s:.2f} s wall, {row.cpu_s:.2f} s CPU; "
               f"a sweep of {SWEEP_START_RUNS} runs {row.start_wall_s:.2f} s wall, "
               f"{row.start_cpu_s:.2f} s CPU")  # fmt: skip
    typer.echo(f"  the engine alone on the same runs: {row.engine_s:.2f} s (simulation "
               f"{row.simulation_s:.2f} s, tables and Parquet the rest)")  # fmt: skip
    typer.echo(f"  outside the engine: {row.outside_cpu:.0%} of the CPU time, "
               f"{row.outside_wall:.0%} of the workers' wall time, {row.outside_per_run:.0%} "
               "of what each run adds")  # fmt: skip


def _spread(values: list[float]) -> str:
    """Return the range of several runs' figures, to print beside their median ("" for one run).

    >>> _spread([1.52, 1.41, 1.6]), _spread([1.5])
    (' (1.41-1.60)', '')
    """
    return f" ({min(values):.2f}-{max(values):.2f})" if len(values) > 1 else ""


def _print_bench(rows: list[BenchRow]) -> None:
    """Print the bench table."""
    from rich.table import Table

    table = Table(title=f"aqmlab {__version__} bench", title_justify="left")
    columns = ("scenario", "sim s", "events", "packets", "engine s", "Mevents/s", "kpkts/s",
               "ns/pkt", "process s", "run --out s", "peak MiB", "ceiling Mev/s", "heap Mev/s",
               "ceiling/engine", "heap/engine (range)")  # fmt: skip
    for column in columns:
        table.add_column(column, justify="left" if column == "scenario" else "right", no_wrap=True)

    def maybe(value: float | None, form: str, scale: float = 1.0) -> str:
        return "-" if value is None else format(value / scale, form)

    for row in rows:
        table.add_row(
            row.name,
            f"{row.simulated_s:g}",
            f"{row.events:,}",
            f"{row.packets:,}",
            f"{row.wall_s:.3f}",
            f"{row.events_per_s / 1e6:.2f}",
            f"{row.packets_per_s / 1e3:,.0f}",
            f"{row.ns_per_packet:,.0f}",
            maybe(row.process_s, ".3f"),
            maybe(row.command_s, ".3f"),
            maybe(row.peak_rss_bytes, ",.1f", 2**20),
            maybe(row.ceiling_events_per_s, ".1f", 1e6),
            maybe(row.heap_events_per_s, ".1f", 1e6),
            maybe(row.ceiling_over_engine, ".2f"),
            maybe(row.heap_over_engine, ".2f") + _spread(row.heap_over_engine_runs),
        )
    console = _console()
    if not console.is_terminal:
        console.width = max(console.width, 190)
    console.print(table)


def _print_comparison(found: list[dict[str, Any]], baseline: Path | None) -> None:
    """Print the ratios this run / the baseline's rows."""
    from rich.table import Table

    table = Table(title=f"this run / {baseline}", title_justify="left")
    for column in ("scenario", "runs", "engine s", "ns/packet", "events/s", "process s",
                   "peak memory"):  # fmt: skip
        table.add_column(column, justify="left" if column == "scenario" else "right", no_wrap=True)
    for r in found:
        cells = [r[k] for k in ("wall_s", "ns_per_packet", "events_per_s", "process_s",
                                "peak_rss_bytes")]  # fmt: skip
        table.add_row(r["scenario"], "{} / {}".format(*r["runs"]),
                      *("-" if c is None else f"{c:.2f}x" for c in cells))  # fmt: skip
    _console().print(table)


def reflowed(doc: str) -> str:
    r"""Return a docstring as a command's help: dedented, each paragraph on one line.

    Typer (0.28) keeps a docstring's line breaks inside a paragraph, so help broke sentences
    where the source wraps them; the terminal's width is Rich's to fill.

    >>> reflowed("Run it.\n\n    Two\n    lines.\n")
    'Run it.\n\nTwo lines.'
    """
    import inspect

    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


for _command in app.registered_commands:
    if _command.help is None and _command.callback is not None and _command.callback.__doc__:
        _command.help = reflowed(_command.callback.__doc__)


def main() -> None:
    """Entry point of the ``aqmlab`` script.

    When the first word names a command, only that command is handed to Typer: building the
    group reads every command's signature and annotations, about 25 ms that a single
    ``aqmlab run`` need not pay. Anything else (``--help``, ``--version``, a misspelt command)
    sees the whole group.
    """
    words = sys.argv[1:2]
    asked = [c for c in app.registered_commands if words and c.name == words[0]]
    chosen = app
    if asked:
        chosen = copy.copy(app)  # the same app, holding one command; `app` keeps them all
        chosen.registered_commands = asked
    chosen(prog_name="aqmlab")
