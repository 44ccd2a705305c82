"""The command line: run, validate, --version, bench."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import aqmlab
import pyarrow.parquet as pq
from aqmlab.bench import BenchRow, bench_one, load_reference, references
from conftest import BASE, ROOT, cli, invoke


def test_version(tmp_path: Path) -> None:
    proc = cli("--version", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"aqmlab {aqmlab.__version__}"


def test_validate_prints_ok_and_the_resolved_scenario(scenario_file: Path) -> None:
    proc = cli("validate", scenario_file, cwd=scenario_file.parent)
    assert proc.returncode == 0, proc.stderr
    first, _, rest = proc.stdout.partition("\n")
    assert first == "ok"
    assert json.loads(rest) == aqmlab.resolve(BASE)


def test_validate_applies_overrides(scenario_file: Path) -> None:
    proc = cli("validate", scenario_file, "--set", "queue.limit=7p", cwd=scenario_file.parent)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.partition("\n")[2])["queue"]["limit"] == "7p"


def test_run_writes_the_default_directory(scenario_file: Path) -> None:
    cwd = scenario_file.parent
    proc = cli("run", scenario_file, "--seed", "4", "--set", "traffic[0].flows=2", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    runs = list((cwd / "runs").iterdir())
    assert len(runs) == 1
    run_dir = runs[0]
    summary = json.loads((run_dir / "summary.json").read_text())
    meta = summary["meta"]
    assert run_dir.name == f"tiny-{meta['scenario_hash'][:8]}-seed4"
    assert meta["seed"] == 4
    assert meta["scenario"]["traffic"][0]["flows"] == 2
    assert len(pq.read_table(run_dir / "flows.parquet")) == 2
    for word in ("utilization", "throughput", "drop rate", "mean queue", "events"):
        assert word in proc.stdout
    assert f"{summary['forward']['utilization']:.2%}" in proc.stdout
    assert str(Path("runs") / run_dir.name) in proc.stdout


def test_run_output_matches_python_api(scenario_file: Path, tmp_path: Path) -> None:
    proc = cli("run", scenario_file, "--out", tmp_path / "cli", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    api = aqmlab.run(scenario_file).save(tmp_path / "api")
    for name in ("queue", "link", "flows"):
        assert (tmp_path / "cli" / f"{name}.parquet").read_bytes() == (
            api / f"{name}.parquet"
        ).read_bytes()


def test_a_plain_run_and_typers_run_are_one_command(scenario_file: Path, tmp_path: Path) -> None:
    """``python -m aqmlab run`` with plain arguments skips Typer (:mod:`aqmlab.__main__`); Typer
    calls the same function: the same lines printed, the same tables written, the same status."""
    plain = cli("run", scenario_file, "--out", tmp_path / "plain", "--seed", "3", cwd=tmp_path)
    code, out, err = invoke(tmp_path, "run", str(scenario_file), "--out", str(tmp_path / "typer"),
                            "--seed=3")  # fmt: skip
    assert plain.returncode == code == 0, (plain.stderr, err)

    def lines(text: str) -> list[str]:  # the engine's speed and the folder differ
        skipped = (" events in ", "run directory: ")
        return [line for line in text.splitlines() if not any(s in line for s in skipped)]

    assert lines(plain.stdout) == lines(out) and len(lines(out)) >= 8
    assert f"run directory: {tmp_path / 'plain'}" in plain.stdout
    for name in ("queue", "link", "flows"):
        assert (tmp_path / "plain" / f"{name}.parquet").read_bytes() == (
            tmp_path / "typer" / f"{name}.parquet").read_bytes()  # fmt: skip
    again = cli("run", scenario_file, "--out", tmp_path / "plain", cwd=tmp_path)
    assert again.returncode == 2 and again.stderr.startswith("error: ") and not again.stdout


def test_the_plain_path_reads_exactly_the_options_of_typers_run() -> None:
    """:func:`aqmlab.run_command.plain_arguments` knows each option of the Typer ``run`` command,
    by every name Typer gives it, and no other: a new option goes to Typer until it is taught."""
    import typer.main
    from aqmlab.cli import app
    from aqmlab.run_command import PLAIN_LISTS, PLAIN_VALUES

    run = typer.main.get_command(app).commands["run"]  # type: ignore[attr-defined]
    typer_names = {name for p in run.params for name in p.opts if name.startswith("-")}
    assert typer_names == {*PLAIN_VALUES, *PLAIN_LISTS, "--force"}
    repeatable = {name for p in run.params if p.multiple for name in p.opts}
    assert repeatable == set(PLAIN_LISTS)


def test_a_plain_run_survives_a_closed_pipe_and_an_ascii_terminal(
    scenario_file: Path, tmp_path: Path
) -> None:
    """The run directory is written before the headline is printed; a reader that goes away
    (``| head -1``) is no error, and box lines an ASCII stdout lacks are printed as ``?``."""
    command = [sys.executable, "-m", "aqmlab", "run", str(scenario_file)]
    with subprocess.Popen([*command, "--out", str(tmp_path / "piped")], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, cwd=tmp_path) as proc:  # fmt: skip
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()  # the reader is gone before the first line
        err = proc.stderr.read().decode()
    assert proc.returncode == 0 and not err, err
    assert (tmp_path / "piped" / "manifest.json").is_file()
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    ascii_run = subprocess.run([*command, "--out", str(tmp_path / "ascii")], capture_output=True,
                               text=True, env=env, cwd=tmp_path, check=False)  # fmt: skip
    assert ascii_run.returncode == 0, ascii_run.stderr
    assert "? utilization" in ascii_run.stdout and (tmp_path / "ascii" / "summary.json").is_file()


def test_a_plain_run_removes_its_capture_folder(scenario_file: Path, tmp_path: Path) -> None:
    """The script ends with ``os._exit``: the packet traces' temporary folder must be gone by
    then (it is removed when the run's result is)."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "TMPDIR": str(scratch)}
    done = subprocess.run([sys.executable, "-m", "aqmlab", "run", str(scenario_file), "--capture",
                           "forward", "--out", str(tmp_path / "run")], capture_output=True,
                          text=True, env=env, cwd=tmp_path, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "run" / "forward.pcap").is_file()
    assert list(scratch.iterdir()) == []


def test_run_writes_only_the_tables_asked_for(scenario_file: Path, tmp_path: Path) -> None:
    only = cli("run", scenario_file, "--out", tmp_path / "two", "--tables", "queue,link",
               cwd=tmp_path)  # fmt: skip
    assert only.returncode == 0, only.stderr
    written = {p.name for p in (tmp_path / "two").iterdir()}
    assert written == {"summary.json", "manifest.json", "queue.parquet", "link.parquet"}
    assert "utilization" in only.stdout
    none = cli("run", scenario_file, "--out", tmp_path / "none", "--tables", "none", cwd=tmp_path)
    assert {p.name for p in (tmp_path / "none").iterdir()} == {"summary.json", "manifest.json"}
    assert none.returncode == 0, none.stderr
    assert aqmlab.load(tmp_path / "none").table_names == []
    bad = cli("run", scenario_file, "--out", tmp_path / "bad", "--tables", "queues", cwd=tmp_path)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "--tables: no table 'queues'" in bad.stderr
    assert not (tmp_path / "bad").exists()


def test_unwritable_output_falls_back_to_a_temporary_directory(
    scenario_file: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    proc = cli("run", scenario_file, "--out", blocker / "run", cwd=tmp_path)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert "cannot write the run directory" in proc.stderr
    fallback = Path(proc.stderr.split("wrote the results to ")[1].split(" instead")[0])
    try:
        assert (fallback / "summary.json").is_file()
        assert (fallback / "flows.parquet").is_file()
        assert "utilization" in proc.stdout
    finally:
        for file in fallback.iterdir():
            file.unlink()
        fallback.rmdir()


def test_bench_references_are_valid_and_named_by_file() -> None:
    found = references()
    assert "udp-poisson-95" in found
    for name, file in found.items():
        scenario = load_reference(file)
        assert scenario["name"] == name
        aqmlab.resolve(scenario)


def test_udp_poisson_95_offers_95_percent() -> None:
    resolved = aqmlab.resolve(load_reference(references()["udp-poisson-95"]))
    (group,) = resolved["traffic"]
    assert group["kind"] == "poisson" and group["flows"] == 20 and group["size"] == "1000B"
    assert resolved["duration"] in ("1h", "60min", "3600s")
    assert group["rate"] == "475kbps" and resolved["topology"]["bottleneck"]["rate"] == "10Mbps"


def test_bench_row_from_a_short_run() -> None:
    scenario = load_reference(references()["udp-poisson-95"])
    scenario["duration"] = "2s"
    row = bench_one("short", scenario)
    assert isinstance(row, BenchRow)
    assert row.simulated_s == 2.0
    assert row.events > 2 * 1187  # at least one event per packet sent
    assert row.events_per_s == row.events / row.wall_s
    assert row.speedup == 2.0 / row.wall_s


def test_example_runs_from_the_command_line(tmp_path: Path) -> None:
    proc = cli(
        "run",
        ROOT / "scenarios" / "pareto-mix.toml",
        "--set",
        "duration=3s",
        "--set",
        "warmup=1s",
        "--out",
        tmp_path / "run",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["reverse"]["arrivals_pkts"] > 0


def test_run_out_replaces_a_run_only_with_force(scenario_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = cli("run", scenario_file, "--seed", "1", "--out", out, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    manifest = out / "manifest.json"
    stamp = manifest.stat().st_ino, manifest.stat().st_mtime_ns
    assert aqmlab.load(out).seed == 1

    proc = cli("run", scenario_file, "--seed", "2", "--out", out, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr == f"error: {out}: holds a run already (use --force to replace it)\n"
    assert proc.stdout == "", "refused before the run"
    assert (manifest.stat().st_ino, manifest.stat().st_mtime_ns) == stamp
    assert aqmlab.load(out).seed == 1

    proc = cli("run", scenario_file, "--seed", "2", "--out", out, "--force", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert aqmlab.load(out).seed == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "tiny.toml"]  # nothing left


def test_run_into_the_default_directory_twice_needs_force(scenario_file: Path) -> None:
    cwd = scenario_file.parent
    assert cli("run", scenario_file, cwd=cwd).returncode == 0
    (run_dir,) = (cwd / "runs").iterdir()
    proc = cli("run", scenario_file, cwd=cwd)
    assert proc.returncode == 2
    assert proc.stderr == (
        f"error: {Path('runs') / run_dir.name}: holds a run already (use --force to replace it)\n"
    )
    assert proc.stdout == ""
    assert cli("run", scenario_file, "--force", cwd=cwd).returncode == 0
    assert [p.name for p in (cwd / "runs").iterdir()] == [run_dir.name]
    assert aqmlab.load(run_dir).seed == 1


def test_bench_json_and_compare_smoke(tmp_path: Path) -> None:
    proc = cli("bench", "--smoke", "--json", "--only", "udp-overload-120", "--no-ns3", "--runs",
               "2", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (row,) = data["rows"]
    assert row["name"] == "udp-overload-120" and row["simulated_s"] == 0.2 and row["runs"] == 2
    assert row["packets"] > 0 and row["peak_rss_bytes"] > 0 and row["ceiling_events_per_s"] > 0
    assert row["heap_over_engine"] == row["heap_events_per_s"] / row["events_per_s"]
    assert len(row["run_wall_s"]) == len(row["heap_over_engine_runs"]) == 2
    assert sorted(row["run_wall_s"])[0] <= row["wall_s"] <= sorted(row["run_wall_s"])[1]
    assert row["goodput_bps"] is None and 0 <= row["drops_pkts"] <= row["arrivals_pkts"] > 0
    assert data["ns3"] == []
    commands = [start["command"] for start in data["startup"]]
    assert commands == ["aqmlab --version", "aqmlab validate tcp-100-newreno-red.toml",
                        "aqmlab run tcp-100-newreno-red.toml --set duration=1s"]  # fmt: skip
    assert all(start["runs"] == 1 and start["wall_s"] > 0 for start in data["startup"])
    swept = data["sweep"]
    assert swept["runs"] == 6 and swept["command"].endswith(f"--seeds 1-6 -j {swept['workers']}")
    assert 0 < swept["simulation_s"] < swept["engine_s"] < swept["cpu_s"]
    assert swept["outside_cpu"] == 1 - swept["engine_s"] / swept["cpu_s"]
    baseline = tmp_path / "base.json"
    baseline.write_text(proc.stdout)
    proc = cli("bench", "--smoke", "--no-ceiling", "--only", "udp-overload-120", "--no-ns3",
               "--no-startup", "--no-sweep", "--compare", baseline, cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"udp-overload-120\s+│\s+3 / 2\s+│\s+\d+\.\d\dx", proc.stdout), proc.stdout


def test_help_wraps_each_paragraph_to_the_terminal_not_to_the_source(tmp_path: Path) -> None:
    """A command's help reflows its docstring: no sentence breaks where the source wraps it."""
    import os
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "aqmlab", "run", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "300"})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    # In the docstring "SHA-256 of the" ends a line and "files)" begins the next.
    assert "(sizes and SHA-256 of the files) in the run directory" in proc.stdout
