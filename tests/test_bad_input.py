"""Every kind of bad input ends in one line on stderr naming the key path, and exit status 2."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from aqmlab.errors import InputError
from conftest import BASE_TOML, cli, invoke

# BASE_TOML plus a TCP group: traffic[0] is the UDP group "web", traffic[1] the ftp group "bulk".
TCP_TOML = BASE_TOML + '\n[[traffic]]\nname = "bulk"\nkind = "ftp"\nflows = 2\nsize = "20KB"\n'
DROPTAIL = '[queue]\nkind = "droptail"\nlimit = "20p"\n'

# BASE_TOML with a RED bottleneck queue (10 Mbps: automatic thresholds 6.25 / 18.75 packets).
RED_TOML = BASE_TOML.replace(DROPTAIL, '[queue]\nkind = "red"\nlimit = "100p"\n')


def _red(*lines: str) -> str:
    """RED_TOML with extra keys in its [queue] table."""
    return RED_TOML.replace(
        'limit = "100p"\n', 'limit = "100p"\n' + "".join(f"{x}\n" for x in lines)
    )


def _tc(line: str, *lines: str) -> str:
    """BASE_TOML with a RED queue given as a tc command line (and extra keys)."""
    keys = "".join(f"{x}\n" for x in lines)
    return BASE_TOML.replace(DROPTAIL, f'[queue]\nkind = "red"\ntc = "{line}"\n{keys}')


TC_OK = "limit 100000 min 3000 max 9000"


def _scripted(rule: str) -> str:
    """TCP_TOML with a scripted bottleneck queue holding one drop rule."""
    return TCP_TOML.replace(DROPTAIL, f'[queue]\nkind = "scripted"\ndrops = [{{ {rule} }}]\n')


# (id, scenario text or None for "no file", extra CLI args, text the error line must start with)
CASES: list[tuple[str, str | None, list[str], str]] = [
    ("unknown-top-key", 'colour = "red"\n' + BASE_TOML, [], "error: colour:"),
    (
        "unknown-nested-key",
        BASE_TOML.replace('delay = "5ms" }', 'delay = "5ms", colour = "red" }'),
        [],
        "error: topology.bottleneck.colour:",
    ),
    ("wrong-type", BASE_TOML.replace('duration = "3s"', "duration = 3"), [], "error: duration:"),
    (
        "negative-rate",
        BASE_TOML.replace('rate = "2.5Mbps"', 'rate = "-2Mbps"'),
        [],
        "error: traffic[0].rate:",
    ),
    ("bad-unit", BASE_TOML.replace('limit = "20p"', 'limit = "fifty"'), [], "error: queue.limit:"),
    (
        "unknown-unit",
        BASE_TOML.replace('rate = "10Mbps"', 'rate = "10Mbit"'),
        [],
        "error: topology.bottleneck.rate:",
    ),
    ("warmup-equals-duration", BASE_TOML.replace('"500ms"', '"3s"'), [], "error: warmup:"),
    ("warmup-after-duration", BASE_TOML.replace('"500ms"', '"1min"'), [], "error: warmup:"),
    (
        "pair-delay-min-above-max",
        BASE_TOML.replace(
            "[queue]", 'pair_delay = { dist = "uniform", min = "50ms", max = "5ms" }\n\n[queue]'
        ),
        [],
        "error: topology.pair_delay",
    ),
    (
        "pair-delay-list-length",
        BASE_TOML.replace("[queue]", 'pair_delay = ["1ms", "2ms", "3ms"]\n\n[queue]'),
        [],
        "error: topology.pair_delay",
    ),
    ("missing-duration", BASE_TOML.replace('duration = "3s"\n', ""), [], "error: duration:"),
    (
        "missing-bottleneck-rate",
        BASE_TOML.replace('rate = "10Mbps", ', ""),
        [],
        "error: topology.bottleneck.rate:",
    ),
    (
        "missing-traffic-kind",
        BASE_TOML.replace('kind = "poisson"\n', ""),
        [],
        "error: traffic[0].kind:",
    ),
    (
        "unknown-traffic-kind",
        BASE_TOML.replace('kind = "poisson"', 'kind = "telepathy"'),
        [],
        "error: traffic[0].kind:",
    ),
    (
        "jitter-on-poisson",
        BASE_TOML + "jitter = true\n",
        [],
        "error: traffic[0].jitter:",
    ),
    (
        "duplicate-traffic-name",
        BASE_TOML + '\n[[traffic]]\nname = "web"\nkind = "cbr"\nrate = "1Mbps"\n',
        [],
        "error: traffic[1].name:",
    ),
    (
        "stop-before-start",
        BASE_TOML + 'start = "2s"\nstop = "1s"\n',
        [],
        "error: traffic[0].stop:",
    ),
    ("zero-flows", BASE_TOML.replace("flows = 4", "flows = 0"), [], "error: traffic[0].flows:"),
    ("zero-size", BASE_TOML + 'size = "0B"\n', [], "error: traffic[0].size:"),
    ("infinite-shape", BASE_TOML + "shape = inf\n", [], "error: traffic[0].shape:"),
    (
        "toml-date",
        BASE_TOML.replace('duration = "3s"', "duration = 2024-01-01"),
        [],
        "error: duration:",
    ),
    (
        "traffic-not-array",
        BASE_TOML.split("[[traffic]]")[0].replace('name = "tiny"', 'traffic = "lots"'),
        [],
        "error: traffic:",
    ),
    (
        "queue-interval-below-sample",
        BASE_TOML.replace(
            "[queue]", '[measure]\nqueue_sample = "10ms"\nqueue_interval = "5ms"\n\n[queue]'
        ),
        [],
        "error: measure.queue_interval:",
    ),
    ("empty-file", "", [], "error: the scenario is empty"),
    ("not-toml", "this is not [TOML\n", [], "error: {file}: invalid TOML"),
    ("file-not-found", None, [], "error: {file}: no such file"),
    ("bad-set-syntax", BASE_TOML, ["--set", "seed"], "error: --set:"),
    ("bad-set-key", BASE_TOML, ["--set", "queue..limit=1p"], "error: --set:"),
    ("set-index-out-of-range", BASE_TOML, ["--set", "traffic[3].rate=1Mbps"], "error: traffic[3]:"),
    ("set-unknown-key", BASE_TOML, ["--set", "queue.colour=red"], "error: queue.colour:"),
    ("set-into-scalar", BASE_TOML, ["--set", "duration.unit=s"], "error: duration:"),
    ("set-bad-value", BASE_TOML, ["--set", "topology.servers=-3"], "error: topology.servers:"),
    # --- TCP ---
    ("tcp-unknown-key", TCP_TOML + "\n[tcp]\ncwnd = 3\n", [], "error: tcp.cwnd:"),
    ("tcp-bad-profile", TCP_TOML + '\n[tcp]\nprofile = "win95"\n', [], "error: tcp.profile:"),
    ("set-bad-profile", TCP_TOML, ["--set", "tcp.profile=win95"], "error: tcp.profile:"),
    (
        "tcp-bad-variant",
        TCP_TOML + 'tcp = { variant = "vegas" }\n',
        [],
        "error: traffic[1].tcp.variant:",
    ),
    ("tcp-rwnd-below-mss", TCP_TOML + '\n[tcp]\nrwnd = "1000B"\n', [], "error: tcp.rwnd:"),
    (
        "tcp-group-rwnd-below-mss",
        TCP_TOML + 'tcp = { mss = "1000B", rwnd = "999B" }\n',
        [],
        "error: traffic[1].tcp.rwnd:",
    ),
    (
        "scripted-unknown-group",
        _scripted('group = "nobody", segment = 3'),
        [],
        "error: queue.drops[0].group:",
    ),
    (
        "scripted-udp-group",
        _scripted('group = "web", segment = 3'),
        [],
        "error: queue.drops[0].group:",
    ),
    (
        "scripted-flow-out-of-range",
        _scripted('group = "bulk", flow = 2, segment = 3'),
        [],
        "error: queue.drops[0].flow:",
    ),
    (
        "scripted-data-without-segment",
        _scripted('group = "bulk", what = "data"'),
        [],
        "error: queue.drops[0].segment:",
    ),
    (
        "bernoulli-p-above-1",
        TCP_TOML.replace(DROPTAIL, '[queue]\nkind = "bernoulli"\np = 1.5\n'),
        [],
        "error: queue.p:",
    ),
    (
        "start-min-above-max",
        TCP_TOML + 'start = { dist = "uniform", min = "2s", max = "1s" }\n',
        [],
        "error: traffic[1].start.min:",
    ),
    (
        "start-unknown-dist",
        BASE_TOML + 'start = { dist = "gaussian", mean = "1s" }\n',
        [],
        "error: traffic[0].start.dist:",
    ),
    ("ftp-size-lots", TCP_TOML.replace('"20KB"', '"lots"'), [], "error: traffic[1].size:"),
    ("ftp-with-rate", TCP_TOML + 'rate = "1Mbps"\n', [], "error: traffic[1].rate:"),
    # --- RED ---
    ("red-min-th-above-max-th", _red("min_th = 30", "max_th = 20"), [], "error: queue.min_th:"),
    ("red-min-th-equals-max-th", _red("min_th = 30", "max_th = 30"), [], "error: queue.min_th:"),
    ("red-max-th-at-limit", _red("min_th = 30", "max_th = 100"), [], "error: queue.max_th:"),
    ("red-max-p-zero", _red("max_p = 0"), [], "error: queue.max_p:"),
    ("red-max-p-above-1", _red("max_p = 1.5"), [], "error: queue.max_p:"),
    ("red-w-q-one", _red("w_q = 1"), [], "error: queue.w_q:"),
    ("red-w-q-divide-by-zero", _red('w_q = "1/0"'), [], "error: queue.w_q:"),
    ("red-unknown-count-rule", _red('count = "sometimes"'), [], "error: queue.count:"),
    ("red-unknown-key", _red("gentel = true"), [], "error: queue.gentel:"),
    ("red-unknown-profile", _red('profile = "cisco"'), [], "error: queue.profile:"),
    ("red-unknown-mode", _red('mode = "pq_xx"'), [], "error: queue.mode:"),
    ("red-tc-unknown-word", _tc(TC_OK + " flux 3"), [], "error: queue.tc:"),
    ("red-tc-mbps-rate", _tc(TC_OK + " bandwidth 10Mbps"), [], "error: queue.tc:"),
    ("red-tc-without-max", _tc("limit 100000 min 3000"), [], "error: queue.tc:"),
    ("red-tc-and-profile", _tc(TC_OK, 'profile = "linux"'), [], "error: queue.profile:"),
    ("red-adaptive-beta", _red("adaptive = { beta = 1.5 }"), [], "error: queue.adaptive.beta:"),
    (
        "red-adaptive-band",
        _red("adaptive = { band = [0.6, 0.4] }"),
        [],
        "error: queue.adaptive.band:",
    ),
    (
        "red-set-max-p",
        RED_TOML,
        ["--set", "queue.max_p=0"],
        "error: queue.max_p:",
    ),
    ("server-index-out-of-range", BASE_TOML + "server = 2\n", [], "error: traffic[0].server:"),
    ("client-index-out-of-range", BASE_TOML + "client = 5\n", [], "error: traffic[0].client:"),
    (
        "tcp-bad-handshake",
        TCP_TOML + "tcp = { handshake = true }\n",
        [],
        "error: traffic[1].tcp.handshake:",
    ),
    (
        "tcp-bad-congestion-control",
        TCP_TOML + '\n[tcp]\ncongestion_control = "vegas"\n',
        [],
        "error: tcp.congestion_control:",
    ),
    ("tcp-bad-cubic-beta", TCP_TOML + "\n[tcp]\ncubic_beta = 1.5\n", [], "error: tcp.cubic_beta:"),
    (
        "tcp-bad-cubic-c",
        TCP_TOML + "tcp = { cubic_c = -1 }\n",
        [],
        "error: traffic[1].tcp.cubic_c:",
    ),
    ("tcp-bad-hystart", TCP_TOML + '\n[tcp]\nhystart = "on"\n', [], "error: tcp.hystart:"),
    (
        "tcp-bad-cubic-arithmetic",
        TCP_TOML + '\n[tcp]\ncubic_arithmetic = "bsd"\n',
        [],
        "error: tcp.cubic_arithmetic:",
    ),
    (
        "tcp-linux-cubic-c-too-small",
        TCP_TOML + '\n[tcp]\nprofile = "linux"\ncubic_c = 0.001\n',
        [],
        "error: tcp.cubic_c:",
    ),
    (
        "udp-with-tcp-table",
        BASE_TOML + 'tcp = { variant = "reno" }\n',
        [],
        "error: traffic[0].tcp:",
    ),
]


def _check_one_line_error(stderr: str, expected_start: str) -> None:
    lines = stderr.splitlines()
    assert "Traceback" not in stderr
    assert len(lines) == 1, f"expected one line on stderr, got:\n{stderr}"
    assert lines[0].startswith(expected_start), lines[0]
    assert re.fullmatch(r"error: (\S+: )?\S.{8,}", lines[0]), "the message must say what is wrong"


def test_tcp_base_is_valid(tmp_path: Path) -> None:
    """The TCP and RED cases above fail because of their one change, not because the base is bad."""
    path = tmp_path / "scenario.toml"
    for text in (
        TCP_TOML,
        _scripted('group = "bulk", flow = 1, segment = 3'),
        RED_TOML,
        _red("min_th = 30", "max_th = 90", "adaptive = { beta = 0.5, band = [0.3, 0.7] }"),
        _tc(TC_OK + " bandwidth 10mbit ecn", "w_q = 0.002"),
        BASE_TOML + "server = 1\nclient = 1\n",
    ):
        path.write_text(text)
        proc = cli("validate", path, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr


def _run_case(tmp_path: Path, command: str, case_id: str) -> None:
    text, args, expected = next(case[1:] for case in CASES if case[0] == case_id)
    path = tmp_path / "scenario.toml"
    if text is not None:
        path.write_text(text)
    extra = ["--out", str(tmp_path / "out")] if command == "run" else []
    proc = cli(command, path, *args, *extra, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    _check_one_line_error(proc.stderr, expected.format(file=path))
    assert proc.stdout == ""
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("case_id", [case[0] for case in CASES])
def test_run_rejects_bad_input(tmp_path: Path, case_id: str) -> None:
    _run_case(tmp_path, "run", case_id)


@pytest.mark.parametrize(
    "case_id",
    [
        "unknown-nested-key",
        "bad-unit",
        "not-toml",
        "file-not-found",
        "set-index-out-of-range",
        "tcp-bad-profile",
        "scripted-udp-group",
        "red-max-th-at-limit",
        "red-tc-mbps-rate",
    ],
)
def test_validate_rejects_bad_input(tmp_path: Path, case_id: str) -> None:
    _run_case(tmp_path, "validate", case_id)


def test_binary_file_is_not_toml(tmp_path: Path) -> None:
    path = tmp_path / "scenario.toml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    proc = cli("validate", path, cwd=tmp_path)
    assert proc.returncode == 2
    _check_one_line_error(proc.stderr, f"error: {path}: not a TOML file")


def test_directory_is_not_a_scenario(tmp_path: Path) -> None:
    proc = cli("run", tmp_path, cwd=tmp_path)
    assert proc.returncode == 2
    _check_one_line_error(proc.stderr, f"error: {tmp_path}: is a directory")


def test_unknown_bench_reference(tmp_path: Path) -> None:
    proc = cli("bench", "--only", "no-such-reference", cwd=tmp_path)
    assert proc.returncode == 2
    _check_one_line_error(proc.stderr, "error: --only: no reference scenario")


def test_bench_runs_at_least_once(tmp_path: Path) -> None:
    proc = cli("bench", "--runs", "0", "--only", "tcp-100-newreno", cwd=tmp_path)
    assert proc.returncode == 2
    _check_one_line_error(proc.stderr, "error: Invalid value for '--runs': 0 is not in the range")


# --- sweep, collect and run --out: exit 2, one line, nothing stored is lost -----------------------
@pytest.fixture
def stored(tmp_path: Path) -> Path:
    """A directory with the small scenario and a run store holding one run and a sweep index.

    Made through the store's own API (no engine run), so that a bad command's effect on what is
    already stored can be checked file by file.
    """
    from aqmlab.store import Store

    (tmp_path / "scenario.toml").write_text(BASE_TOML)
    store = Store.open(tmp_path / "store", create=True)
    store.write("ab" * 32, 1, {"summary.json": b'{"meta": {}}\n'}, build_id="b1")
    store.save_sweep("sweep", {"format": "aqmlab-sweep/1", "name": "sweep", "axes": [],
                               "seeds": [1], "points": []})  # fmt: skip
    (tmp_path / "a-file").write_text("not a store\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("not a store either\n")
    return tmp_path


def _snapshot(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Every file and directory under ``root``: its bytes, inode and modification time."""
    return {
        str(p.relative_to(root)): (
            p.read_bytes() if p.is_file() else b"",
            p.stat().st_ino,
            p.stat().st_mtime_ns,
        )
        for p in sorted(root.rglob("*"))
    }


# (id, arguments after the command, text the error line must start with)
SWEEP_CASES: list[tuple[str, list[str], str]] = [
    ("vary-unknown-key", ["--vary", "queue.bogus=1,2"], "error: queue.bogus:"),
    ("vary-unknown-group", ["--vary", "traffic[nope].rate=1Mbps"],
     'error: traffic[nope]: no entry of traffic is named "nope" (names: "web")'),
    ("vary-index-out-of-range", ["--vary", "traffic[3].rate=1Mbps"], "error: traffic[3]:"),
    ("vary-empty", ["--vary", "queue.limit="],
     "error: --vary: queue.limit: expected at least one value"),
    ("vary-no-values", ["--vary", "queue.limit"], "error: --vary: expected KEY.PATH=V1,V2"),
    ("vary-bad-path", ["--vary", "queue..limit=1p"], 'error: --vary: bad key path "queue..limit"'),
    ("vary-bad-value", ["--vary", "queue.limit=10p,fifty"], "error: queue.limit:"),
    ("vary-same-axis-twice", ["--vary", "queue.limit=10p", "--vary", "queue.limit=20p"],
     "error: --vary: queue.limit: the same axis is given twice"),
    ("zip-different-lengths",
     ["--vary", "queue.limit=10p,20p", "--vary", "duration=1s,2s,3s", "--zip"],
     "error: --zip: expected axes of the same length, but queue.limit has 2, duration has 3"),
    ("seeds-backwards", ["--seeds", "5-1"], "error: --seeds: expected a range from low to high"),
    ("seeds-not-a-number", ["--seeds", "x"], 'error: --seeds: expected seeds like "1-5"'),
    ("seeds-empty", ["--seeds", ""], "error: --seeds:"),
    ("set-unknown-key", ["--set", "queue.colour=red"], "error: queue.colour:"),
    ("bad-name", ["--name", "../up"], "error: name:"),
    ("out-is-a-file", ["--out", "a-file"], "error: a-file: is a file"),
    ("out-is-another-directory", ["--out", "other"],
     "error: other: is a directory that is not a run store"),
]  # fmt: skip


@pytest.mark.parametrize("case_id", [case[0] for case in SWEEP_CASES])
def test_sweep_rejects_bad_input(stored: Path, case_id: str) -> None:
    args, expected = next(case[1:] for case in SWEEP_CASES if case[0] == case_id)
    if "--out" not in args:
        args = [*args, "--out", "store"]
    if "--vary" not in args:
        args = ["--vary", "queue.limit=10p,20p", *args]
    before = _snapshot(stored)
    status, out, err = invoke(stored, "sweep", "scenario.toml", *args)
    assert status == 2, err
    _check_one_line_error(err, expected)
    assert out == ""
    assert _snapshot(stored) == before


SWEEP_FILE_CASES: list[tuple[str, str, str]] = [
    ("unknown-key", 'scenario = "scenario.toml"\ncolour = "red"\n', "error: sweep.toml: colour:"),
    ("axis-without-values", 'scenario = "scenario.toml"\n[[axis]]\npath = "queue.limit"\n',
     "error: sweep.toml: axis[0].values: required key is missing"),
    ("missing-scenario-file", 'scenario = "nope.toml"\n', "error: sweep.toml: nope.toml: no such"),
    ("axis-without-scenario", '[[axis]]\npath = "queue.limit"\nvalues = ["1p"]\n',
     "error: sweep.toml: scenario: required key is missing"),
    ("labels-miscounted",
     'scenario = "scenario.toml"\n[[axis]]\npath = "queue.limit"\nvalues = ["1p"]\n'
     'labels = ["a", "b"]\n', "error: sweep.toml: axis[0]: queue.limit: 2 labels for 1 values"),
]  # fmt: skip


@pytest.mark.parametrize("case_id", [case[0] for case in SWEEP_FILE_CASES])
def test_sweep_file_rejects_bad_input(stored: Path, case_id: str) -> None:
    text, expected = next(case[1:] for case in SWEEP_FILE_CASES if case[0] == case_id)
    (stored / "sweep.toml").write_text(text)
    before = _snapshot(stored)
    status, _, err = invoke(stored, "sweep", "sweep.toml", "--out", "store")
    assert status == 2, err
    _check_one_line_error(err, expected)
    assert _snapshot(stored) == before


def test_unreachable_scheduler_is_an_error(stored: Path) -> None:
    pytest.importorskip("distributed", reason="needs the dask extra")
    before = _snapshot(stored)
    # the discard port on loopback: nothing listens there
    proc = cli("sweep", "scenario.toml", "--scheduler", "tcp://127.0.0.1:9", "--out", "store",
               cwd=stored)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    _check_one_line_error(
        proc.stderr, "error: --scheduler: cannot reach a Dask scheduler at 'tcp://127.0.0.1:9'"
    )
    assert _snapshot(stored) == before


def test_unreachable_scheduler_gives_up_after_the_connect_timeout() -> None:
    # Timed in this process (Dask already imported), so a busy machine's start-up time does not
    # count: the client gives up after CONNECT_TIMEOUT_S, not Dask's default 30 s.
    pytest.importorskip("distributed", reason="needs the dask extra")
    from aqmlab.executor import CONNECT_TIMEOUT_S, connect

    started = time.monotonic()
    with pytest.raises(InputError, match="cannot reach a Dask scheduler"):
        connect("tcp://127.0.0.1:9", timeout_s=1.0)
    assert time.monotonic() - started < 1.0 + 5.0
    assert CONNECT_TIMEOUT_S < 10


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("other", "error: other: not a run store (no aqmlab-store.json)"),
        ("a-file", "error: a-file: is a file, expected a run store directory"),
        ("missing", "error: missing: not a run store (no such directory)"),
    ],
)
def test_collect_rejects_what_is_not_a_store(stored: Path, target: str, expected: str) -> None:
    before = _snapshot(stored)
    status, out, err = invoke(stored, "collect", target)
    assert status == 2, err
    _check_one_line_error(err, expected)
    assert out == ""
    assert _snapshot(stored) == before


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("a-file", "error: a-file: is a file, expected a run directory"),
        ("other", "error: other: is a directory that is not a run directory"),
        ("store", "error: store: is a run store, not a run directory"),
        ("store/runs", "error: store/runs: is a directory that is not a run directory"),
    ],
)
def test_run_out_must_be_a_run_directory(stored: Path, target: str, expected: str) -> None:
    before = _snapshot(stored)
    status, out, err = invoke(stored, "run", "scenario.toml", "--out", target, "--force")
    assert status == 2, err
    _check_one_line_error(err, expected)
    assert out == "", "checked before the run"
    assert _snapshot(stored) == before


def test_a_scenario_behind_a_folder_it_may_not_search_is_one_line_and_exit_2(
    tmp_path: Path,
) -> None:
    """EACCES on the way to the file (Python 3.11's ``Path.is_dir`` raises it) is bad input."""
    if shutil.which("setpriv") is None or os.geteuid() != 0:
        # As root, the folder is made another user's and the command loses the capabilities that
        # read through permissions; as any other user, a folder of root's would do.
        pytest.skip("needs root and setpriv (util-linux) to make a folder the command cannot read")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    (closed / "s.json").write_text("{}", encoding="utf-8")
    os.chown(closed, 65534, 65534)
    done = subprocess.run(
        ["setpriv", "--bounding-set=-all", "--inh-caps=-all",
         sys.executable, "-m", "aqmlab", "run", str(closed / "s.json")],
        capture_output=True, text=True, check=False, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == f"error: {closed / 's.json'}: cannot read: Permission denied"
