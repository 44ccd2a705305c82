"""The nearest scenario ns-2 can express, for a setting it cannot run as given.

Christiansen et al. ran FreeBSD 2.2 hosts through an ALTQ router on Ethernet; ns-2 has neither
that TCP, nor that RED, nor link framing. :func:`ns2_approximation` rewrites a resolved
scenario into the nearest one the ns-2 writer (:mod:`aqmlab.referee.ns2`) maps, and returns one
line per change, each saying what was given and what ns-2 runs instead. The rewrite is itself an
aqmlab scenario, so aqmlab can run it too and show what the approximation alone changes.

What is rewritten (each only where the scenario uses it; docs/ns2-referee.md):

- **framing**: every link's rate times the share of a full-size packet's frame that is IP
  (``(mss + header) / (max(mss + header, min_payload) + overhead)``: 1500 / 1538 on Ethernet),
  so a full-size packet takes its time on the wire; smaller packets (ACKs, SYNs, requests) are
  charged less than their frame. RED's ``bandwidth`` follows its link.
- **TCP timers**: a BSD-style retransmit timer (``"bsd"``, ``"freebsd-2.2"``) becomes ns-2's
  tick-based ``"ns2-old"`` with the same tick, minimum, initial and maximum timeout; FreeBSD's
  per-host RTT cache (``route_cache``) is left out.
- **delayed ACKs**: BSD's heartbeat (``"heartbeat"``, ``"window-update"``: an ACK held until the
  next tick of a ``delack_time`` clock, on average half of it) becomes ns-2's one-shot timer of
  ``delack_time / 2``; every second segment is still acknowledged at once.
- **socket details ns-2 has not**: ``buffer_roundup`` (the window rounded up to whole segments,
  kept by rounding ``rwnd``), ``send_chunk``, ``fin_piggyback`` (ns-2's one-way agents send no
  FIN), ``handshake_ack_cwnd`` (the server's window opened by the handshake's last ACK: one more
  segment of ``initial_window``), connection give-up (``connect_timeout``, ``max_retries``:
  ns-2 retries for ever), and ``recovery_exit_deflate_at`` (ns-2 deflates on every exit).
- **RED**: ALTQ's count and idle rules become ns-2's (``floyd-jacobson``, ``ns2``); Adaptive
  RED that marks only below max_th (ns-2 of 2000–2003) marks while p_b is below the initial
  max_p instead (ns-2.35's ``use_mark_p_``).

>>> scenario = {"duration": "10s", "tcp": {"profile": "freebsd-2.2"}, "traffic": [{"kind": "ftp"}],
...             "topology": {"bottleneck": {"rate": "10Mbps", "framing": "ethernet"}}}
>>> near, notes = ns2_approximation(scenario)
>>> near["topology"]["bottleneck"]["rate"], near["tcp"]["rto"], near["tcp"]["delack"]
('9752925bps', 'ns2-old', 'one-shot')
>>> any(n.startswith("framing") for n in notes)
True
"""

from __future__ import annotations

import copy
import math
from typing import Any

from aqmlab.calibrate import parse_rate
from aqmlab.scenario import TCP_KINDS, ScenarioLike, group_tcp, resolve
from aqmlab.sweeps import seconds
from aqmlab.units import size_bytes

BSD_TIMERS = ("bsd", "freebsd-2.2")
"""Retransmit timers ns-2 has no copy of, approximated by its tick-based ``ns2-old``."""

HEARTBEAT_DELACKS = ("heartbeat", "window-update")
"""Delayed ACKs on a fixed clock, approximated by ns-2's one-shot timer of half the period."""


def ns2_approximation(scenario: ScenarioLike) -> tuple[dict[str, Any], list[str]]:
    """Return the nearest scenario ns-2 can express, and one note per change made.

    A scenario ns-2 expresses as given comes back resolved and unchanged, with no notes.
    """
    resolved = resolve(scenario)
    near: dict[str, Any] = copy.deepcopy(resolved)
    notes: list[str] = []
    scale = _framing(near, notes)
    for key in ("queue", "reverse_queue"):
        _red(near[key], key, scale, notes)
    for index, group in enumerate(near["traffic"]):
        if group["kind"] in TCP_KINDS:
            before = group_tcp(resolved, group)
            whole = dict(before)
            _tcp(whole, f"traffic[{index}].tcp", notes)
            if whole != before:
                group["tcp"] = whole
    if "tcp" in near:
        _tcp(near["tcp"], "tcp", [])
    return near, list(dict.fromkeys(notes))


def _framing(near: dict[str, Any], notes: list[str]) -> float:
    """Scale the rates of framed links; return the bottleneck's factor (1 without framing)."""
    topo = near["topology"]
    tcp = near.get("tcp", {})
    packet = size_bytes(tcp.get("mss", "1460B")) + size_bytes(tcp.get("header", "40B"))
    factors = {}
    for side in ("bottleneck", "access"):
        framing = topo[side]["framing"]
        if framing == "none":
            factors[side] = 1.0
            continue
        overhead = size_bytes(framing["overhead"])
        frame = max(packet, size_bytes(framing["min_payload"])) + overhead
        factors[side] = packet / frame
        rate = parse_rate(topo[side]["rate"])
        topo[side]["rate"] = f"{math.floor(rate * factors[side])}bps"
        topo[side]["framing"] = "none"
        notes.append(
            f"framing ({side}): no framing in ns-2; the link's rate × {packet:g}/{frame:g} "
            f"({topo[side]['rate']}), so a full-size packet takes its framed time and a small "
            f"one (ACK, SYN, request) less")
    return factors["bottleneck"]


def _red(queue: dict[str, Any], key: str, scale: float, notes: list[str]) -> None:
    if queue["kind"] != "red":
        return
    if scale != 1.0:
        queue["bandwidth"] = f"{math.floor(parse_rate(queue['bandwidth']) * scale)}bps"
    if queue["count"] == "altq":
        queue["count"] = "floyd-jacobson"
        notes.append(f"{key}: ALTQ's count of packets since the last drop becomes ns-2's "
                     "(the same uniform spacing of drops; ns-2 in floating point)")
    if queue["idle"] == "altq":
        queue["idle"] = "ns2"
        notes.append(f"{key}: ALTQ's idle-time decay of the average becomes ns-2's (both "
                     "count the idle time in mean packet times)")
    if not queue["gentle"]:
        queue["gentle_initial_max_p"] = True  # no effect without gentle; ns-2's only form
    elif queue["ecn"] and not queue["mark_above_max_th"] and queue["adaptive"]:
        queue["mark_above_max_th"] = True
        queue["mark_below_p"] = min(float(queue["mark_below_p"]), float(queue["max_p"]))
        notes.append(f"{key}: ECN marks while p_b is below the initial max_p "
                     f"({float(queue['max_p']):g}), not while the average is below max_th "
                     "(ns-2.35 has only the first rule, and Adaptive RED moves max_p)")


def _tcp(tcp: dict[str, Any], path: str, notes: list[str]) -> None:
    """Rewrite one TCP table in place into what ns-2's agents set."""
    if tcp["rto"] in BSD_TIMERS:
        notes.append(f'{path}.rto: "{tcp["rto"]}" becomes ns-2\'s "ns2-old" (ticks of '
                     f'{tcp["tick"]}, minimum {tcp["min_rto"]}, initial {tcp["initial_rto"]}); '
                     "BSD's rounding of the variance and its backoff table differ")
        tcp["rto"] = "ns2-old"
    if tcp.get("route_cache", False) is not False:
        tcp["route_cache"] = False
        notes.append(f"{path}.route_cache: FreeBSD's per-host RTT cache is left out (ns-2's "
                     "agents start every connection from their initial timeout)")
    if tcp["ecn"] and not tcp.get("ecn_backoff", True):
        tcp["ecn_backoff"] = True
        notes.append(f"{path}.ecn_backoff: a second ECN-Echo at one segment doubles the wait "
                     "(ns-2's agents always do)")
    if tcp["delack"] in HEARTBEAT_DELACKS:
        half = seconds(tcp["delack_time"]) / 2
        notes.append(f'{path}.delack: "{tcp["delack"]}" (an ACK held until the next tick of a '
                     f'{tcp["delack_time"]} clock) becomes a one-shot timer of its mean wait, '
                     f"{half * 1e3:g} ms")
        tcp["delack"] = "one-shot"
        tcp["delack_time"] = f"{round(half * 1e9)}ns"
    if tcp.get("buffer_roundup"):
        mss = size_bytes(tcp["mss"])
        segments = math.ceil(size_bytes(tcp["rwnd"]) / mss)
        tcp["rwnd"] = f"{int(segments * mss)}B"
        tcp["buffer_roundup"] = False
        notes.append(f"{path}.buffer_roundup: the window rounded up to {segments} segments")
    if tcp.get("handshake_ack_cwnd"):
        tcp["initial_window"] = int(tcp["initial_window"]) + 1
        tcp["handshake_ack_cwnd"] = False
        notes.append(f"{path}.handshake_ack_cwnd: the handshake's last ACK opening the window "
                     "becomes one more segment of initial window")
    _drop(tcp, path, notes, "send_chunk", "0B",
          "segments as the socket hands them over become full segments")
    _drop(tcp, path, notes, "fin_piggyback", False, "ns-2's one-way agents send no FIN")
    _drop(tcp, path, notes, "connect_timeout", "never", "ns-2 never gives a connection up")
    _drop(tcp, path, notes, "max_retries", "never", "ns-2 never gives a connection up")
    _drop(tcp, path, notes, "recovery_exit_deflate_at", "always",
          "ns-2 deflates the window on every exit from recovery")


def _drop(tcp: dict[str, Any], path: str, notes: list[str], key: str, ns2: Any,
          why: str) -> None:
    if key in tcp and tcp[key] != ns2:
        notes.append(f"{path}.{key}: {tcp[key]!r} becomes {ns2!r} ({why})")
        tcp[key] = ns2
