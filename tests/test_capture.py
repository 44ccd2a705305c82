"""Packet traces (``[capture]``, ``--capture``): read back with dpkt and checked against the run.

Every frame must parse as Ethernet / IPv4 / TCP or UDP with valid checksums (computed here,
independently of the engine); a link's trace must hold exactly the packets and bytes the run
counted departing on it, its CE marks exactly the run's marks; timestamps never go back; records
are cut at the snap length with the original length kept. A capture must change no result.
"""

from __future__ import annotations

import copy
import json
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import aqmlab
import pytest
from conftest import ROOT, cli, records

dpkt = pytest.importorskip("dpkt")

SCENARIO: dict[str, Any] = {
    "name": "capture",
    "seed": 5,
    "duration": "12s",
    "topology": {"servers": 2, "clients": 2, "bottleneck": {"rate": "2Mbps", "delay": "10ms"}},
    "queue": {"kind": "red", "profile": "ns2-2000", "min_th": 3, "max_th": 9, "max_p": 0.1,
              "w_q": 0.02, "limit": "20p", "ecn": True},  # fmt: skip
    "tcp": {"profile": "rfc", "ecn": True, "variant": "sack"},
    "traffic": [
        {"kind": "ftp", "name": "bulk", "flows": 3, "size": "300KB"},
        {"kind": "ftp", "name": "plain", "flows": 1, "size": "100KB", "tcp": {"ecn": False}},
        {"kind": "cbr", "name": "voice", "rate": "300kbps", "stop": "3s", "from": "clients"},
    ],
    "capture": {"links": ["forward", "reverse", "s0.up"], "snaplen": 80},
}


def checksum(data: bytes) -> int:
    """The internet checksum (RFC 1071) of ``data``: 0 when ``data`` holds a valid checksum."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def check_frame(frame: bytes, length: int) -> dict[str, Any]:
    """Parse one frame with dpkt and verify its headers; return what the checks below need."""
    eth = dpkt.ethernet.Ethernet(frame)
    assert eth.type == dpkt.ethernet.ETH_TYPE_IP
    assert eth.src[0] == eth.dst[0] == 0x02  # locally administered
    raw_ip = frame[14:]
    ip = dpkt.ip.IP(raw_ip) if len(raw_ip) >= 20 else None
    assert ip is not None and ip.v == 4 and ip.hl == 5
    assert ip.len == length - 14
    assert checksum(raw_ip[:20]) == 0, "IP header checksum"
    segment_len = ip.len - 20
    pseudo = ip.src + ip.dst + struct.pack("!BBH", 0, ip.p, segment_len)
    header = raw_ip[20:]
    options = 0
    if ip.p == dpkt.ip.IP_PROTO_TCP:
        offset = (header[12] >> 4) * 4
        header = header[:offset]
        assert len(header) == offset, "snaplen keeps the whole TCP header"
        options = offset - 20
        tcp = dpkt.tcp.TCP(raw_ip[20 : 20 + offset])
        for kind, body in dpkt.tcp.parse_opts(tcp.opts):
            assert kind in (dpkt.tcp.TCP_OPT_NOP, dpkt.tcp.TCP_OPT_SACK)
            if kind == dpkt.tcp.TCP_OPT_SACK:
                assert len(body) % 8 == 0 and 1 <= len(body) // 8 <= 3
    else:
        assert ip.p == dpkt.ip.IP_PROTO_UDP
        header = header[:8]
        assert struct.unpack("!H", header[4:6])[0] == segment_len
    # The payload is zeros, so the checksum over pseudo-header and header covers the segment.
    assert checksum(pseudo + header) == 0, "transport checksum"
    return {"ecn": ip.tos & 3, "bytes": ip.len - options, "proto": ip.p, "ttl": ip.ttl}


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[aqmlab.Result, Path]:
    result = aqmlab.run(SCENARIO)
    return result, result.save(tmp_path_factory.mktemp("capture") / "run")


def test_run_directory_holds_one_trace_per_captured_link(
    captured: tuple[aqmlab.Result, Path],
) -> None:
    result, run_dir = captured
    assert sorted(result.captures) == ["forward", "reverse", "s0.up"]
    manifest = json.loads((run_dir / "manifest.json").read_text())
    names = {entry["name"] for entry in manifest["files"]}
    assert {"forward.pcap", "reverse.pcap", "s0.up.pcap"} <= names
    again = aqmlab.load(run_dir)
    assert sorted(again.captures) == sorted(result.captures)
    assert again.captures["forward"].read_bytes() == result.captures["forward"].read_bytes()


@pytest.mark.parametrize("link", ["forward", "reverse"])
def test_trace_matches_the_run_counters(captured: tuple[aqmlab.Result, Path], link: str) -> None:
    result, run_dir = captured
    summary = result.summary[link]
    assert result.summary["checks"]["counter_identities"]
    assert summary["backlog_end_pkts"] == 0, "the traffic ends before the run: nothing in flight"
    rows = records(run_dir / f"{link}.pcap")
    times = [t for t, *_ in rows]
    assert times == sorted(times) and times[0] >= 0
    frames = [check_frame(frame, length) for _, _, length, frame in rows]
    assert len(frames) == summary["departures_pkts"] > 100
    sent = round(summary["throughput_bps"] * 12 / 8)
    assert sum(f["bytes"] for f in frames) == sent
    marked = sum(f["ecn"] == 3 for f in frames)
    assert marked == summary["marks_pkts"]
    assert all(f["ttl"] == 63 for f in frames)
    if link == "forward":
        assert marked > 0, "the scenario is meant to mark"
        assert {f["ecn"] for f in frames} == {0, 2, 3}  # not-ECT (plain), ECT(0), CE
        assert any(caplen < length for _, caplen, length, _ in rows), "cut at snaplen"
    else:
        assert {f["proto"] for f in frames} == {6, 17}  # ACKs and the reverse CBR flow


def test_tcp_fields_follow_the_connections(captured: tuple[aqmlab.Result, Path]) -> None:
    _, run_dir = captured
    syns, fins, sacks, ece = 0, 0, 0, 0
    streams: dict[tuple[int, int], list[int]] = {}
    for _, _, _, frame in records(run_dir / "reverse.pcap"):
        ip = dpkt.ethernet.Ethernet(frame).data
        if ip.p != dpkt.ip.IP_PROTO_TCP:
            continue
        offset = (frame[14 + 20 + 12] >> 4) * 4
        tcp = dpkt.tcp.TCP(frame[34 : 34 + offset])
        syns += bool(tcp.flags & dpkt.tcp.TH_SYN)
        fins += bool(tcp.flags & dpkt.tcp.TH_FIN)
        ece += bool(tcp.flags & dpkt.tcp.TH_ECE)
        sacks += any(k == dpkt.tcp.TCP_OPT_SACK for k, _ in dpkt.tcp.parse_opts(tcp.opts))
        assert tcp.dport == 20 and tcp.sport >= 49152  # client (opener) to ftp-data
        assert tcp.win == 65535  # the rfc profile's rwnd, capped at 16 bits
        acks = streams.setdefault((tcp.sport, tcp.dport), [])
        if tcp.flags & dpkt.tcp.TH_ACK:
            acks.append(tcp.ack)
        else:  # the SYN: no acknowledgment number
            assert tcp.ack == 0 and tcp.flags & dpkt.tcp.TH_SYN
    # Reverse carries the clients' SYNs (ECN-setup: ECE and CWR with SYN), their ACKs of the
    # servers' data (with ECE echoes and SACK blocks) and their FINs.
    assert len(streams) == 4 and syns >= 4 and fins >= 4 and ece > syns
    assert sacks > 0, "losses make the receivers send SACK blocks"
    for acks in streams.values():  # cumulative ACKs only move forward (mod 2^32)
        assert all((b - a) % 2**32 < 2**31 for a, b in zip(acks, acks[1:], strict=False))


def test_sequence_numbers_agree_across_directions(captured: tuple[aqmlab.Result, Path]) -> None:
    """A server's SYN-ACK (forward) and its client's last ACK (reverse) are its ISN and
    ISN + 1 + bytes + 1 (SYN and FIN each take one sequence number)."""
    result, run_dir = captured
    isn: dict[int, int] = {}
    last_ack: dict[int, int] = {}
    for link in ("forward", "reverse"):
        for _, _, _, frame in records(run_dir / f"{link}.pcap"):
            ip = dpkt.ethernet.Ethernet(frame).data
            if ip.p != dpkt.ip.IP_PROTO_TCP:
                continue
            tcp = dpkt.tcp.TCP(frame[34 : 34 + (frame[46] >> 4) * 4])
            if link == "forward" and tcp.flags & dpkt.tcp.TH_SYN:
                isn[tcp.dport] = tcp.seq
            if link == "reverse" and tcp.flags & dpkt.tcp.TH_ACK:
                last_ack[tcp.sport] = tcp.ack
    conns = result.connections
    assert (conns["outcome"] == "completed").all()
    expected = sorted(int(b) + 2 for b in conns["bytes"])
    assert sorted((last_ack[p] - isn[p]) % 2**32 for p in isn) == expected
    assert len(set(isn.values())) == len(isn) == len(conns)


def test_access_uplink_trace(captured: tuple[aqmlab.Result, Path]) -> None:
    _, run_dir = captured
    rows = records(run_dir / "s0.up.pcap")
    frames = [check_frame(frame, length) for _, _, length, frame in rows]
    assert frames and all(f["ttl"] == 64 for f in frames)
    for _, _, _, frame in rows:
        assert dpkt.ethernet.Ethernet(frame).data.src == bytes([10, 1, 0, 1])  # server 0


def test_capture_changes_no_result(captured: tuple[aqmlab.Result, Path]) -> None:
    result, _ = captured
    plain = copy.deepcopy(SCENARIO)
    del plain["capture"]
    without = aqmlab.run(plain)
    assert without.captures == {}
    strip = lambda r: {k: v for k, v in r.summary.items() if k != "meta"}  # noqa: E731
    assert strip(without) == strip(result)
    for name in result.table_names:
        assert without.table(name).equals(result.table(name)), name


def test_golden_run_is_unchanged_with_capture_on() -> None:
    from test_golden import GOLDEN, fingerprint

    scenario = aqmlab.scenario.read_toml(GOLDEN / "udp-overload.toml")
    scenario["capture"] = {"links": ["forward", "reverse"]}
    actual = fingerprint(aqmlab.run(scenario))
    expected = json.loads((GOLDEN / "udp-overload.json").read_text())
    assert actual["tables"] == expected["tables"]
    for key in ("meta",):
        actual["summary"].pop(key), expected["summary"].pop(key)
    assert actual["summary"] == expected["summary"]


def test_capture_option_of_aqmlab_run(tmp_path: Path) -> None:
    scenario = tmp_path / "s.json"
    plain = copy.deepcopy(SCENARIO)
    del plain["capture"]
    plain["duration"] = "2s"
    scenario.write_text(json.dumps(plain))
    proc = cli("run", scenario, "--capture", "reverse", "--capture", "c1.down",
               "--out", tmp_path / "run", cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "run").glob("*.pcap")) == [
        "c1.down.pcap",
        "reverse.pcap",
    ]
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["meta"]["scenario"]["capture"]["links"] == ["reverse", "c1.down"]
    proc = cli("run", scenario, "--capture", "c9.down", "--out", tmp_path / "bad", cwd=tmp_path)
    assert proc.returncode == 2
    assert "capture.links[0]" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.skipif(shutil.which("tshark") is None,
                    reason="tshark is not installed (as root: apt-get install tshark; ./dev test "
                           "does it when it runs as root)")
def test_tshark_reads_the_trace(captured: tuple[aqmlab.Result, Path]) -> None:
    _, run_dir = captured

    def frames(shown: str) -> int:
        proc = subprocess.run(
            ["tshark", "-r", str(run_dir / "forward.pcap"), "-o", "tcp.check_checksum:TRUE",
             "-o", "ip.check_checksum:TRUE", "-Y", shown],
            capture_output=True, text=True, timeout=60, cwd=ROOT, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        return len(proc.stdout.splitlines())

    # Wireshark's checksum status: 0 bad, 1 good, 2 unverified. Every IP header checks; a TCP
    # checksum checks where the whole segment was captured (ACKs), and a data segment cut at the
    # snap length cannot be checked, but nothing is bad.
    every = frames("ip")
    assert every > 100 and frames("ip.checksum.status == 1") == every
    assert frames("ip.checksum.status == 0 || tcp.checksum.status == 0") == 0
    assert frames("tcp.checksum.status == 1") > 0
