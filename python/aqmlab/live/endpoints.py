"""The endpoints of a live run: the real socket programs on each side of the dumbbell.

One process runs in each host namespace (``python -m aqmlab.live.endpoints PLAN SIDE``) and plays
every host of its side: each host is an IPv4 address of the namespace's TUN device (the address
plan of ``aqmlab_live::ip``). For every flow of the plan (``aqmlab.live.plan``):

- ``ftp``: the server listens on its address, port ``BASE_PORT + flow``; the client connects at
  the flow's start time (clients open connections, whichever way the data goes, as in
  simulation); the data sender writes until the flow's size is sent or the run ends, then closes;
  the receiver counts the bytes it reads in the measured period (``warmup`` to ``duration``).
  The sender reads the kernel's ``TCP_INFO`` as the warm-up ends and at the end: segments
  retransmitted in the measured period (all kinds: the kernel does not count data apart), the
  smoothed RTT and the congestion window at the end.
- ``cbr``: the sender sends datagrams of the group's size at its rate from the start time to its
  ``stop``, catching up on the real clock (a late wake-up sends what was due at once); the
  receiver counts them.

Protocol with the orchestrator (``aqmlab.live.run``): the process binds its listeners, prints
``ready``, reads the run's time 0 (``time.monotonic_ns()``, shared by every namespace) from stdin,
runs to ``duration`` and prints one JSON line: per flow, what its side measured.

>>> tcp_info_fields(bytes(232))
{'retransmits': 0, 'rtt_s': 0.0, 'cwnd_pkts': 0, 'mss': 0}
"""

from __future__ import annotations

import json
import selectors
import socket
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Any

BASE_PORT = 20000
"""Flow ``k`` of the plan uses port ``BASE_PORT + k`` on its server's address."""

_CHUNK = 64 * 1024
_UDP_IP_HEADERS = 28
"""IPv4 (20 B) and UDP (8 B) headers: a CBR packet of ``size`` bytes carries ``size - 28``."""
_TCP_INFO_LEN = 232
"""Enough of ``struct tcp_info`` (linux/tcp.h) for the fields read here."""


def tcp_info_fields(info: bytes) -> dict[str, Any]:
    """Read the fields of ``struct tcp_info`` (linux/tcp.h) a live run reports.

    Offsets: ``tcpi_snd_mss`` 16, ``tcpi_rtt`` 68 (µs), ``tcpi_snd_cwnd`` 80 (segments),
    ``tcpi_total_retrans`` 100.
    """
    mss, rtt_us, cwnd, retrans = (
        struct.unpack_from("I", info, off)[0] for off in (16, 68, 80, 100)
    )
    return {"retransmits": retrans, "rtt_s": rtt_us * 1e-6, "cwnd_pkts": cwnd, "mss": mss}


@dataclass
class Flow:
    """One flow as this side plays it."""

    spec: dict[str, Any]
    sock: socket.socket | None = None
    sending: bool = False
    to_send: int | None = None
    """Bytes left to send (``None``: until the run ends)."""
    sent: int = 0
    received_measured: int = 0
    received: int = 0
    established_s: float | None = None
    done_s: float | None = None
    info: dict[str, Any] = field(default_factory=dict)
    retransmits_at_warmup: int = 0
    next_datagram_s: float = 0.0


class Side:
    """Every host of one side of the dumbbell, and its flows."""

    def __init__(self, plan: dict[str, Any], side: str) -> None:
        self.plan = plan
        self.side = side
        self.duration = float(plan["duration_s"])
        self.warmup = float(plan["warmup_s"])
        self.sel = selectors.DefaultSelector()
        self.flows = [Flow(f) for f in plan["flows"]]
        self.listeners: dict[socket.socket, int] = {}
        self.start_ns = 0
        self.payload = memoryview(b"\0" * _CHUNK)

    def now(self) -> float:
        """Return the run's time, in seconds."""
        return (time.monotonic_ns() - self.start_ns) * 1e-9

    def is_sender(self, f: Flow) -> bool:
        """Whether this side sends flow ``f``'s data."""
        return bool(f.spec["from_servers"]) == (self.side == "servers")

    def bind(self) -> None:
        """Bind the listeners (TCP, on the servers' side) and receivers (UDP, either side)."""
        for k, f in enumerate(self.flows):
            spec = f.spec
            if spec["kind"] == "ftp" and self.side == "servers":
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((spec["server_addr"], BASE_PORT + k))
                s.listen(1)
                s.setblocking(False)
                self.listeners[s] = k
                self.sel.register(s, selectors.EVENT_READ, ("accept", k))
            elif spec["kind"] == "cbr" and not self.is_sender(f):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind((self._own_addr(spec), BASE_PORT + k))
                s.setblocking(False)
                f.sock = s
                self.sel.register(s, selectors.EVENT_READ, ("recv", k))

    def _own_addr(self, spec: dict[str, Any]) -> str:
        return str(spec["server_addr"] if self.side == "servers" else spec["client_addr"])

    def _peer_addr(self, spec: dict[str, Any]) -> str:
        return str(spec["client_addr"] if self.side == "servers" else spec["server_addr"])

    def _tcp_options(self, s: socket.socket, spec: dict[str, Any]) -> None:
        cc = spec["kernel"]["congestion_control"]
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
        clamp = spec["kernel"].get("window_clamp")
        if clamp:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_WINDOW_CLAMP, int(clamp))

    def _start(self, k: int) -> None:
        """Start flow ``k`` from this side (its start time has come)."""
        f = self.flows[k]
        spec = f.spec
        if spec["kind"] == "ftp":
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self._tcp_options(s, spec)
            s.bind((spec["client_addr"], 0))
            s.setblocking(False)
            s.connect_ex((spec["server_addr"], BASE_PORT + k))
            f.sock = s
            self.sel.register(s, selectors.EVENT_WRITE, ("connect", k))
        else:
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((self._own_addr(spec), 0))
            s.setblocking(False)
            f.sock = s
            f.sending = True
            f.next_datagram_s = float(spec["start_s"])

    def _established(self, k: int, s: socket.socket) -> None:
        f = self.flows[k]
        f.sock = s
        f.established_s = self.now()
        if self.is_sender(f):
            f.sending = True
            f.to_send = f.spec.get("bytes")
            self.sel.register(s, selectors.EVENT_WRITE, ("send", k))
        else:
            self.sel.register(s, selectors.EVENT_READ, ("recv", k))

    def _count(self, f: Flow, n: int) -> None:
        f.received += n
        if self.warmup <= self.now() <= self.duration:
            f.received_measured += n

    def _finish_sender(self, k: int) -> None:
        f = self.flows[k]
        assert f.sock is not None
        f.info = tcp_info_fields(
            f.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
        )

    def _at_warmup(self) -> None:
        """Note each sending TCP flow's retransmissions so far: the measured period's start."""
        for f in self.flows:
            if f.spec["kind"] == "ftp" and f.sending and f.sock is not None and not f.info:
                info = f.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
                f.retransmits_at_warmup = tcp_info_fields(info)["retransmits"]

    def _event(self, what: str, k: int, s: socket.socket) -> None:
        f = self.flows[k]
        if what == "accept":
            conn, _ = s.accept()
            conn.setblocking(False)
            self._tcp_options(conn, f.spec)
            self.sel.unregister(s)
            s.close()
            self._established(k, conn)
        elif what == "connect":
            self.sel.unregister(s)
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                self._established(k, s)
            else:
                f.done_s = self.now()
        elif what == "send":
            n = _CHUNK if f.to_send is None else min(_CHUNK, f.to_send)
            try:
                sent = s.send(self.payload[:n])
            except (BlockingIOError, InterruptedError):
                return
            f.sent += sent
            if f.to_send is not None:
                f.to_send -= sent
                if f.to_send == 0:
                    self._finish_sender(k)
                    self.sel.unregister(s)
                    s.shutdown(socket.SHUT_WR)
                    f.done_s = self.now()
        elif what == "recv":
            try:
                data = s.recv(_CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            if f.spec["kind"] == "cbr":
                self._count(f, len(data) + _UDP_IP_HEADERS)
                return
            if not data:
                self.sel.unregister(s)
                f.done_s = self.now()
                return
            self._count(f, len(data))

    def _send_datagrams(self, f: Flow, k: int, now: float) -> float:
        """Send what flow ``f`` (CBR) owes by ``now``; return when its next datagram is due."""
        spec = f.spec
        stop = min(float(spec["stop_s"]), self.duration)
        gap = spec["size"] * 8 / spec["rate_bps"]
        assert f.sock is not None
        while f.next_datagram_s <= now and f.next_datagram_s < stop:
            try:
                f.sock.sendto(self.payload[: spec["size"] - _UDP_IP_HEADERS],
                              (self._peer_addr(spec), BASE_PORT + k))  # fmt: skip
                f.sent += spec["size"]
            except (BlockingIOError, InterruptedError):
                pass
            f.next_datagram_s += gap
        return f.next_datagram_s if f.next_datagram_s < stop else float("inf")

    def run(self) -> None:
        """Start the flows on time and serve every socket until the run ends."""
        starts = sorted(
            (float(f.spec["start_s"]), k)
            for k, f in enumerate(self.flows)
            if (f.spec["kind"] == "ftp" and self.side == "clients")
            or (f.spec["kind"] == "cbr" and self.is_sender(f))
        )
        i = 0
        warmed = False
        while (now := self.now()) < self.duration:
            if not warmed and now >= self.warmup:
                warmed = True
                self._at_warmup()
            while i < len(starts) and starts[i][0] <= now:
                self._start(starts[i][1])
                i += 1
            due = starts[i][0] if i < len(starts) else self.duration
            for k, f in enumerate(self.flows):
                if f.sending and f.spec["kind"] == "cbr":
                    due = min(due, self._send_datagrams(f, k, now))
            timeout = max(0.0, min(due, self.duration) - self.now())
            for key, _ in self.sel.select(min(timeout, 0.05)):
                what, k = key.data
                self._event(what, k, key.fileobj)  # type: ignore[arg-type]
        for k, f in enumerate(self.flows):
            if f.spec["kind"] == "ftp" and f.sending and f.sock is not None and not f.info:
                self._finish_sender(k)

    def results(self) -> list[dict[str, Any]]:
        """Return what this side measured, per flow."""
        return [
            {"sent_bytes": f.sent, "received_bytes": f.received,
             "received_measured_bytes": f.received_measured,
             "established_s": f.established_s, "done_s": f.done_s, **f.info,
             "measured_retransmits": f.info.get("retransmits", 0) - f.retransmits_at_warmup}
            for f in self.flows
        ]  # fmt: skip


def main(argv: list[str]) -> None:
    """``python -m aqmlab.live.endpoints PLAN.json SIDE``: the protocol in the module docs."""
    plan_path, side = argv
    with open(plan_path, encoding="utf-8") as fh:
        plan = json.load(fh)
    host = Side(plan, side)
    host.bind()
    print("ready", flush=True)
    host.start_ns = int(sys.stdin.readline())
    host.run()
    print(json.dumps(host.results()), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
