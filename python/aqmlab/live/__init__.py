"""Live mode: a scenario on real Linux TCP/IP stacks, through aqmlab's own bottleneck.

:func:`run_live` builds the dumbbell as two network namespaces (``aqmlab.live.lab``), starts the
scenario's flows as real socket programs in them (``aqmlab.live.endpoints``), with the kernel's
TCP configured from the scenario (``aqmlab.live.kernel``), and routes between them for the
scenario's duration with the engine's queue disciplines and links (the Rust router,
``crates/aqmlab-live``). The result is a :class:`aqmlab.result.Result` like a simulated run's:
the router's summary and ``queue`` and ``link`` tables (the simulator's own measurement), a
``connections`` table of what the endpoints measured (a subset of the simulated table's columns,
same names and meanings), and ``summary["live"]``: the router's timing error, its counts and the
kernel. The bottleneck directions ``[capture]`` names are traced with the packets' real bytes
(:attr:`Result.captures`). :func:`aqmlab.live.compare.compare` puts it beside a simulated run.

Live mode runs ``ftp`` (bulk TCP), ``web-mah`` and the UDP sources (``cbr``, ``poisson``,
``pareto``); other kinds are refused, naming the key (docs/live.md).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aqmlab import _native
from aqmlab.errors import InputError, ScenarioError
from aqmlab.live.kernel import KernelTcp, agreed, available_congestion_control, kernel_tcp
from aqmlab.live.lab import LiveUnavailable, lab
from aqmlab.result import Result
from aqmlab.runner import _with_hash
from aqmlab.scenario import ScenarioLike, as_scenario, group_tcp

__all__ = ["LiveUnavailable", "live_plan", "run_live"]

KINDS = ("ftp", "web-mah", "cbr", "poisson", "pareto")
"""Traffic kinds live mode runs."""

LEAD_S = 0.5
"""How long after the endpoints are ready the run's time 0 falls (they wait for it)."""

GRACE_S = 5.0
"""How long after the run's end the endpoints have to report before they are killed."""

MAX_RATE_BPS = 300_000_000
"""The highest bottleneck rate live mode takes unless told otherwise: the router kept 300 Mbit/s
(p99 lateness 91 µs, the link saturated) and not 1 Gbit/s (p99 5.5 ms, the link 76% used) on a
2-core machine with both cores busy (docs/live.md). ``max_rate_bps`` raises it."""

LATE_P99_S = 0.001
"""A run whose router wrote packets later than this at the 99th percentile gets a warning: its
delays are not the scenario's."""


def _seconds(text: str) -> float:
    return _native.quantity("time", text) * 1e-9


def live_plan(resolved: dict[str, Any], seed: int) -> dict[str, Any]:
    """Plan what the endpoints run.

    Every flow with its hosts' addresses, start time, size and the kernel's settings, and the
    settings the namespaces and routes share.

    ``resolved`` is a resolved scenario (:func:`aqmlab.scenario.resolve`). A group or setting
    live mode cannot run raises :class:`InputError` naming its key.

    >>> from aqmlab.scenario import resolve
    >>> plan = live_plan(resolve({
    ...     "duration": "20s", "tcp": {"profile": "linux"},
    ...     "topology": {"servers": 2, "clients": 2, "bottleneck": {"rate": "10Mbps"}},
    ...     "traffic": [{"kind": "ftp", "flows": 2}]}), seed=1)
    >>> plan["route"]["initcwnd"], [f["server_addr"] for f in plan["flows"]]
    (10, ['10.1.0.1', '10.1.0.2'])
    """
    try:
        _native.live_check(json.dumps(resolved))
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    available = available_congestion_control()
    groups: list[tuple[str, KernelTcp]] = []
    per_group: dict[int, dict[str, Any]] = {}
    for g, spec in enumerate(resolved["traffic"]):
        kind = spec["kind"]
        where = f"traffic[{g}]"
        if kind not in KINDS:
            kinds = " and ".join(KINDS)
            raise InputError(f"{where}.kind", f'live mode runs {kinds} groups, not "{kind}"')
        if kind in ("ftp", "web-mah"):
            tcp = group_tcp(resolved, spec)
            k = kernel_tcp(tcp, f"{where}.tcp", available)
            groups.append((f"{where}.tcp", k))
            per_group[g] = {"kernel": k.per_socket, "variant": tcp["variant"]}
            if kind == "web-mah":
                per_group[g]["max_conns"] = spec["max_conns"]
        else:
            per_group[g] = {}
    route, sysctls = agreed(groups)
    text = json.dumps(resolved)
    users = []
    for u in json.loads(_native.live_web_scripts(text, seed)):
        g = u["group"]
        users.append({
            "group": g, "group_name": resolved["traffic"][g]["name"], "user": u["user"],
            "client": u["client"], "client_addr": _native.live_address("clients", u["client"]),
            "first_s": _seconds(u["first"]), **per_group[g],
            "pages": [{"server": p["server"],
                       "server_addr": _native.live_address("servers", p["server"]),
                       "objects": p["objects"], "think_s": _seconds(p["think"])}
                      for p in u["pages"]],
        })  # fmt: skip
    departures = {(u["group"], u["index"]): [[t * 1e-9, size] for t, size in u["departures"]]
                  for u in json.loads(_native.live_udp_scripts(text, seed))}  # fmt: skip
    flows = []
    for f in json.loads(_native.live_plan(text, seed)):
        g = f["group"]
        if resolved["traffic"][g]["kind"] == "web-mah":
            continue
        flows.append({
            "kind": resolved["traffic"][g]["kind"], "group": g, "index": f["index"],
            "group_name": resolved["traffic"][g]["name"],
            "server": f["server"], "client": f["client"],
            "server_addr": _native.live_address("servers", f["server"]),
            "client_addr": _native.live_address("clients", f["client"]),
            "from_servers": f["from_servers"], "start_s": _seconds(f["start"]),
            "bytes": f["bytes"], **per_group[g],
            **({"departures": departures[(g, f["index"])]}
               if (g, f["index"]) in departures else {}),
        })  # fmt: skip
    topo = resolved["topology"]
    return {
        "duration_s": _seconds(resolved["duration"]),
        "warmup_s": _seconds(resolved["warmup"]),
        "hosts": {"servers": topo["servers"], "clients": topo["clients"]},
        "route": route,
        "sysctls": sysctls,
        "flows": flows,
        "users": users,
    }


def _or_nan(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _requests(
    made: list[dict[str, Any]], plan: dict[str, Any]
) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Build the ``requests`` table's columns and the summary's ``requests``.

    They count the pairs the clients made that started in the measured period, as in simulation.
    """
    rows = [r for r in made if r["start_s"] >= plan["warmup_s"]]
    nan = float("nan")
    cols: dict[str, list[Any]] = {name: [] for name in (
        "group", "user", "client", "server", "page", "object", "start_s", "end_s", "response_s",
        "request_bytes", "reply_bytes", "completed", "failed")}  # fmt: skip
    for r in rows:
        user = plan["users"][r["user"]]
        end = nan if r["end_s"] is None else r["end_s"]
        for name, value in (
            ("group", user["group_name"]), ("user", user["user"]),
            ("client", f"c{user['client']}"),
            ("server", f"s{user['pages'][r['page'] - 1]['server']}"),
            ("page", r["page"]), ("object", r["object"]), ("start_s", r["start_s"]),
            ("end_s", end), ("response_s", end - r["start_s"]),
            ("request_bytes", r["request"]), ("reply_bytes", r["reply"]),
            ("completed", r["end_s"] is not None), ("failed", r["failed"]),
        ):  # fmt: skip
            cols[name].append(value)
    summary = json.loads(_native.request_summary(
        [round(r["start_s"] * 1e9) for r in rows],
        [None if r["end_s"] is None else round(r["end_s"] * 1e9) for r in rows],
        [bool(r["failed"]) for r in rows],
    ))  # fmt: skip
    return cols, summary


def _udp_flows(sides: dict[str, Any], plan: dict[str, Any]) -> dict[str, list[Any]]:
    """Build the ``flows`` table's columns (UDP flows) from what both sides printed."""
    measured_s = plan["duration_s"] - plan["warmup_s"]
    cols: dict[str, list[Any]] = {name: [] for name in (
        "flow", "group", "index", "kind", "src", "dst", "sent_bytes", "recv_bytes",
        "throughput_bps")}  # fmt: skip
    for k, f in enumerate(p for p in plan["flows"] if p["kind"] != "ftp"):
        at = plan["flows"].index(f)
        sender, receiver = ("servers", "clients") if f["from_servers"] else ("clients", "servers")
        hosts = {"servers": f"s{f['server']}", "clients": f"c{f['client']}"}
        received = sides[receiver][at]["received_measured_bytes"]
        for name, value in (
            ("flow", k), ("group", f["group_name"]), ("index", f["index"]), ("kind", f["kind"]),
            ("src", hosts[sender]), ("dst", hosts[receiver]),
            ("sent_bytes", sides[sender][at]["sent_bytes"]),
            ("recv_bytes", received),
            ("throughput_bps", received * 8 / measured_s),
        ):  # fmt: skip
            cols[name].append(value)
    return cols


def _connections(sides: dict[str, Any], plan: dict[str, Any]) -> dict[str, list[Any]]:
    """Build the ``connections`` table's columns (TCP) from what both sides printed."""
    measured_s = plan["duration_s"] - plan["warmup_s"]
    cols: dict[str, list[Any]] = {name: [] for name in (
        "conn", "group", "index", "client", "server", "sender", "variant", "start_s",
        "established_s", "end_s", "outcome", "bytes", "bytes_whole_run", "goodput_bps",
        "data_rexmits", "srtt_s", "cwnd_bytes")}  # fmt: skip
    for k, f in enumerate(plan["flows"]):
        if f["kind"] != "ftp":
            continue
        sender, receiver = ("servers", "clients") if f["from_servers"] else ("clients", "servers")
        tx, rx = sides[sender][k], sides[receiver][k]
        nan = float("nan")
        established = sides["clients"][k]["established_s"] is not None
        ended = established and rx["done_s"] is not None and f["bytes"] == rx["received_bytes"]
        outcome = "completed" if ended else ("open" if established else "failed")
        for name, value in (
            ("conn", k), ("group", f["group_name"]), ("index", f["index"]),
            ("client", f"c{f['client']}"), ("server", f"s{f['server']}"),
            ("sender", "server" if f["from_servers"] else "client"),
            ("variant", f["variant"]), ("start_s", f["start_s"]),
            ("established_s", _or_nan(sides["clients"][k]["established_s"])),
            ("end_s", _or_nan(rx["done_s"] if ended else None)), ("outcome", outcome),
            ("bytes", rx["received_measured_bytes"]),
            ("bytes_whole_run", rx["received_bytes"]),
            ("goodput_bps", rx["received_measured_bytes"] * 8 / measured_s),
            ("data_rexmits", tx["measured_retransmits"]), ("srtt_s", tx.get("rtt_s", nan)),
            ("cwnd_bytes", float(tx.get("cwnd_pkts", 0) * (tx.get("mss") or 0))),
        ):  # fmt: skip
            cols[name].append(value)
    return cols


def run_live(
    scenario: ScenarioLike, *, seed: int | None = None, max_rate_bps: int = MAX_RATE_BPS
) -> Result:
    """Run ``scenario`` live (module docs) and return its :class:`Result`.

    Needs root; without it, or without ``ip`` and ``/dev/net/tun``, raises
    :class:`LiveUnavailable`. A bottleneck faster than ``max_rate_bps`` is refused
    (:data:`MAX_RATE_BPS`); a run whose router fell behind (:data:`LATE_P99_S`) carries a warning
    in ``summary["warnings"]``. Ctrl-C stops it within 20 ms (``KeyboardInterrupt``) and leaves
    no namespace, device or process behind.
    """
    plain = as_scenario(scenario)
    try:
        resolved = json.loads(_native.resolve(json.dumps(plain)))
    except ValueError as err:
        raise ScenarioError.from_native(err) from None
    seed = int(resolved["seed"] if seed is None else seed)
    rate = _native.quantity("rate", resolved["topology"]["bottleneck"]["rate"])
    if rate > max_rate_bps:
        raise InputError("topology.bottleneck.rate",
                         f"live mode keeps up to {max_rate_bps / 1e6:g} Mbit/s here (measured: "
                         "docs/live.md); a faster link needs --max-rate")  # fmt: skip
    plan = live_plan(resolved, seed)
    traces = (tempfile.TemporaryDirectory(prefix="aqmlab-capture-")
              if resolved.get("capture", {}).get("links") else None)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix=f"aqmlab-live-{os.getpid()}-") as tmp:
        plan_file = Path(tmp) / "plan.json"
        plan_file.write_text(json.dumps(plan), encoding="utf-8")
        with lab(plan["hosts"], plan["route"], plan["sysctls"]) as net:
            procs = {side: net.spawn(side, [sys.executable, "-m", "aqmlab.live.endpoints",
                                            str(plan_file), side])  # fmt: skip
                     for side in ("servers", "clients")}  # fmt: skip
            for side, p in procs.items():
                assert p.stdout is not None
                if p.stdout.readline().strip() != "ready":
                    assert p.stderr is not None
                    raise LiveUnavailable(f"the {side}' endpoints did not start: "
                                          f"{p.stderr.read().strip()[-300:]}")  # fmt: skip
            start_ns = time.monotonic_ns() + int(LEAD_S * 1e9)
            for p in procs.values():
                assert p.stdin is not None
                p.stdin.write(f"{start_ns}\n")
                p.stdin.flush()
            try:
                summary_json, tables, own_json = _native.live_route(
                    json.dumps(resolved), seed, start_ns,
                    str(net.path("servers")), "aqs", str(net.path("clients")), "aqc",
                    traces.name if traces is not None else None,
                )  # fmt: skip
            except ValueError as err:
                raise ScenarioError.from_native(err) from None
            lines = {}
            for side, p in procs.items():
                try:
                    out, errors = p.communicate(timeout=GRACE_S)
                except subprocess.TimeoutExpired:
                    raise LiveUnavailable(f"the {side}' endpoints did not finish") from None
                if p.returncode != 0 or not out.strip():
                    raise LiveUnavailable(f"the {side}' endpoints failed: {errors.strip()[-300:]}")
                lines[side] = out.strip().splitlines()[-1]
    summary = _with_hash(json.loads(summary_json))
    summary["meta"]["seed"] = seed
    summary["live"] = {
        **json.loads(own_json),
        "kernel": platform.release(),
        "route": plan["route"],
        "sysctls": plan["sysctls"],
    }
    late = summary["live"]["lateness"]
    if late["p99_s"] > LATE_P99_S:
        summary["warnings"].append({
            "code": "live-router-late", "path": "topology.bottleneck.rate",
            "message": f"the router wrote 1% of packets more than {late['p99_s'] * 1e3:.1f} ms "
                       "late: at this rate on this machine its delays are not the scenario's"})
    columns: dict[str, Mapping[str, Sequence[Any]]] = dict(tables)
    printed = {side: json.loads(line) for side, line in lines.items()}
    sides = {side: p["flows"] for side, p in printed.items()}
    columns["connections"] = _connections(sides, plan)
    columns["flows"] = _udp_flows(sides, plan)
    columns["requests"], summary["requests"] = _requests(printed["clients"]["requests"], plan)
    if traces is None:
        return Result(summary, columns)
    return Result(summary, columns, captures=Path(traces.name), keep=traces)
