"""``web-pool`` with ``connections = "ns2-http"``: ns-2's Http agents as they behave, read off
packet traces (``[capture]``) and the ``requests`` table, one behaviour per test.

The network: a 1.5 Mbps bottleneck with 70 ms one way, ns-2 FullTcp's delayed ACKs
(``delack = "ns2-fulltcp"``, 100 ms ticks) and Nagle rule; users on the client hosts ask the
server host of their own index, so requests cross ``reverse`` and replies ``forward``.
"""

from __future__ import annotations

import copy
import struct
from pathlib import Path
from typing import Any, NamedTuple

import aqmlab
import pytest
from conftest import records

SYN, ACK, FIN = 0x02, 0x10, 0x01
MSS = 1000
TICK_NS = 100_000_000

SCENARIO: dict[str, Any] = {
    "name": "ns2-http",
    "seed": 4,
    "duration": "20s",
    "topology": {"servers": 1, "clients": 1,
                 "bottleneck": {"rate": "1500kbps", "delay": "70ms"}},
    "tcp": {"profile": "ns2-2000", "variant": "sack", "handshake": "three-way",
            "delack": "ns2-fulltcp", "nagle": True, "mss": f"{MSS}B", "header": "40B"},
    "traffic": [{"name": "users", "kind": "web-pool", "users": 2, "peer": "paired",
                 "connections": "ns2-http", "think_mean": "300ms",
                 "start": {"dist": "uniform", "min": "0s", "max": "1s"}}],
    "capture": {"links": ["forward", "reverse", "c0.up"]},
}  # fmt: skip


class Segment(NamedTuple):
    """A TCP segment as a trace shows it."""

    t_ns: int
    sport: int
    dport: int
    seq: int
    ack: int
    flags: int
    length: int


def segments(path: Path) -> list[Segment]:
    """The TCP segments of a trace (Ethernet, IPv4 without options, TCP)."""
    out = []
    for t, _, _, frame in records(path):
        ip = frame[14:]
        total = struct.unpack("!H", ip[2:4])[0]
        tcp = ip[20:]
        sport, dport, seq, ack, offset, flags = struct.unpack("!HHIIBB", tcp[:14])
        out.append(Segment(t, sport, dport, seq, ack, flags, total - 20 - 4 * (offset >> 4)))
    return out


def run(**changes: Any) -> aqmlab.Result:
    """The scenario with these keys of its web-pool group changed."""
    s = copy.deepcopy(SCENARIO)
    s["traffic"][0].update(changes)
    return aqmlab.run(s)


@pytest.fixture(scope="module")
def two_users() -> aqmlab.Result:
    return aqmlab.run(SCENARIO)


def test_each_user_sends_one_syn_in_its_whole_life_and_no_fin(two_users: aqmlab.Result) -> None:
    up = segments(two_users.captures["reverse"])
    syns = [s for s in up if s.flags & SYN]
    assert len(syns) == 2 and len({s.sport for s in syns}) == 2
    assert not [s for s in up + segments(two_users.captures["forward"]) if s.flags & FIN]
    done = two_users.requests[two_users.requests["completed"]]
    assert done.groupby("user").size().min() > 20, "many requests, one connection each"


def test_a_user_has_one_request_outstanding_and_requests_are_43_bytes(
        two_users: aqmlab.Result) -> None:  # fmt: skip
    up = segments(two_users.captures["reverse"])
    sizes = {s.length for s in up if s.length > 0}
    assert sizes == {43}
    for _, rows in two_users.requests.groupby("user"):
        rows = rows.sort_values("start_s")
        assert (rows["start_s"].to_numpy()[1:] >= rows["end_s"].to_numpy()[:-1]).all()


def test_two_users_on_one_host_share_the_first_ones_connection_in_request_order(
        two_users: aqmlab.Result) -> None:  # fmt: skip
    up = segments(two_users.captures["reverse"])
    down = segments(two_users.captures["forward"])
    requesters = {s.sport for s in up if s.length > 0}
    first = min((s for s in up if s.flags & SYN), key=lambda s: s.t_ns).sport
    replied_to = {s.dport for s in down if s.length > 0}
    assert len(requesters) == 2 and replied_to == {first}
    # Replies come back in the order the requests went out, whoever asked.
    done = two_users.requests[two_users.requests["completed"]].sort_values("start_s")
    assert done["end_s"].is_monotonic_increasing
    assert done["user"].nunique() == 2


def test_a_page_keeps_its_size_for_a_version_and_is_redrawn_when_modified() -> None:
    never = run(page_age="never").requests
    assert never["reply_bytes"].nunique() == 1
    aged = run(page_age={"dist": "constant", "value": "2s"}).requests
    aged = aged[aged["completed"]].sort_values("start_s")
    runs = (aged["reply_bytes"] != aged["reply_bytes"].shift()).cumsum()
    spans = aged.groupby(runs)["start_s"].agg(lambda s: s.max() - s.min())
    assert runs.max() >= 8, "a new size about every 2 s over 20 s"
    assert spans.max() < 2.0, "one size lasts no longer than a version"


def test_constant_pages_are_all_the_same_size() -> None:
    r = run(page_mean={"dist": "constant", "value": "1500B"}).requests
    assert set(r["reply_bytes"]) == {1500}


def test_a_partial_segment_is_acked_at_the_next_tick_a_full_one_at_once() -> None:
    # Pages of 1.5 segments, one user asking rarely: its host's ACKs are its own, none rides on
    # a request. The tail of each page is acknowledged on the 100 ms grid, the full segment
    # as soon as it arrives.
    result = run(users=1, think_mean="1s", page_mean={"dist": "constant", "value": "1500B"})
    down = [s for s in segments(result.captures["forward"]) if s.length > 0]
    isn = min(s.seq for s in down) - 1
    ends = {(s.seq + s.length - isn): s.length for s in down}
    client = segments(result.captures["c0.up"])
    pure = [s for s in client if s.length == 0 and s.flags == ACK]
    partial = [s for s in pure if ends.get(s.ack - isn) == 500]
    full = [s for s in pure if ends.get(s.ack - isn) == MSS]
    assert len(partial) > 5 and len(full) > 5
    assert all(s.t_ns % TICK_NS == 0 for s in partial)
    assert not any(s.t_ns % TICK_NS == 0 for s in full)
