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
- ``web-mah``: each user runs its script (``aqmlab_sim::sim::web_scripts``: the pages, objects,
  request and reply sizes, servers and think times a simulated run draws for it): it requests a
  page's primary object, then its embedded objects over at most ``max_conns`` connections at a
  time, one new connection per request/response pair, then thinks. A request carries its
  fetch's number in its first 4 bytes (a request shorter than that is sent as 4 bytes); the
  server reads the whole request, sends the reply and closes. The response time runs from the
  client's connect() to the end of the reply and the server's FIN, as in simulation.
- ``cbr``, ``poisson``, ``pareto``: the sender sends its script (``aqmlab_sim::sim::udp_scripts``:
  the departure times and sizes a simulated run's source draws), catching up on the real clock (a
  late wake-up sends what was due at once); the receiver counts them.

Protocol with the orchestrator (``aqmlab.live.run``): the process binds its listeners, prints
``ready``, reads the run's time 0 (``time.monotonic_ns()``, shared by every namespace) from stdin,
runs to ``duration`` and prints one JSON line: per flow, what its side measured, and the web
request/response pairs its users made.

>>> tcp_info_fields(bytes(232))
{'retransmits': 0, 'rtt_s': 0.0, 'cwnd_pkts': 0, 'mss': 0}
"""

from __future__ import annotations

import json
import math
import selectors
import socket
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Any

BASE_PORT = 20000
"""Flow ``k`` of the plan uses port ``BASE_PORT + k`` on its server's address."""

UDP_KINDS = ("cbr", "poisson", "pareto")
"""The open-loop UDP sources: each sends its script."""

WEB_PORT = 80
"""Every server answers web requests on this port."""

_ID = struct.Struct("!I")
"""A web request's first bytes: the number of its fetch in the plan."""

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
    next_datagram: int = 0
    """A UDP flow's next packet to send, in its script."""


@dataclass
class Fetch:
    """One request/response pair in progress: a client's, or a server's answer to it."""

    user: int
    page: int
    obj: int
    request: int
    reply: int
    start_s: float = 0.0
    end_s: float | None = None
    failed: bool = False
    to_write: int = 0
    """Bytes still to send: the request (client) or the reply (server)."""
    header: bytes = b""
    """What a server has read of the request's fetch number."""
    to_read: int = 0


@dataclass
class User:
    """A web user's progress through its script."""

    spec: dict[str, Any]
    page: int = -1
    next_obj: int = 0
    active: int = 0
    wake_s: float = math.inf


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
        self.users = [User(u) for u in plan.get("users", [])]
        self.fetch_sizes = [tuple(o) for u in plan.get("users", []) for p in u["pages"]
                            for o in p["objects"]]  # fmt: skip
        self.first_fetch = []
        n = 0
        for u in plan.get("users", []):
            self.first_fetch.append(n)
            n += sum(len(p["objects"]) for p in u["pages"])
        self.fetches: list[Fetch] = []
        """The requests this side made (clients) in the order they were made."""

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
            elif spec["kind"] in UDP_KINDS and not self.is_sender(f):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                s.bind((self._own_addr(spec), BASE_PORT + k))
                s.setblocking(False)
                f.sock = s
                self.sel.register(s, selectors.EVENT_READ, ("recv", k))

    def bind_web(self) -> None:
        """Listen for web requests on every server address (the servers' side)."""
        if self.side != "servers" or not self.users:
            return
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("0.0.0.0", WEB_PORT))
        s.listen(4096)
        s.setblocking(False)
        self.sel.register(s, selectors.EVENT_READ, ("web-accept", None))

    def _fetch_id(self, f: Fetch) -> int:
        pages = self.users[f.user].spec["pages"]
        before = sum(len(p["objects"]) for p in pages[: f.page])
        return self.first_fetch[f.user] + before + f.obj

    def _wake(self, u: int) -> None:
        """User ``u`` starts its next page."""
        user = self.users[u]
        user.page += 1
        user.wake_s = math.inf
        if user.page >= len(user.spec["pages"]):
            return
        user.next_obj = 0
        self._open_fetch(u)

    def _open_fetch(self, u: int) -> None:
        user = self.users[u]
        page = user.spec["pages"][user.page]
        request, reply = page["objects"][user.next_obj]
        f = Fetch(u, user.page, user.next_obj, request, reply, start_s=self.now())
        f.to_write = max(request, _ID.size)
        user.next_obj += 1
        user.active += 1
        self.fetches.append(f)
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._tcp_options(s, user.spec)
        s.bind((user.spec["client_addr"], 0))
        s.setblocking(False)
        s.connect_ex((page["server_addr"], WEB_PORT))
        self.sel.register(s, selectors.EVENT_WRITE, ("web-connect", f))

    def _fetch_done(self, f: Fetch, s: socket.socket) -> None:
        self.sel.unregister(s)
        s.close()
        user = self.users[f.user]
        user.active -= 1
        page = user.spec["pages"][user.page]
        if f.obj == 0 or user.active < user.spec["max_conns"]:
            while (user.next_obj < len(page["objects"])
                   and user.active < user.spec["max_conns"]):  # fmt: skip
                self._open_fetch(f.user)
        if user.active == 0 and user.next_obj == len(page["objects"]):
            user.wake_s = self.now() + page["think_s"]

    def _web_event(self, what: str, f: Fetch | None, s: socket.socket) -> None:
        """Serve one ready socket of a web request/response pair."""
        if what == "web-accept":
            conn, _ = s.accept()
            conn.setblocking(False)
            self.sel.register(conn, selectors.EVENT_READ,
                              ("web-serve", Fetch(0, 0, 0, 0, 0)))  # fmt: skip
            return
        assert f is not None
        if what == "web-connect":
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                f.failed = True
                return self._fetch_done(f, s)
            self.sel.modify(s, selectors.EVENT_WRITE, ("web-request", f))
            what = "web-request"
        if what == "web-request":
            head = _ID.pack(self._fetch_id(f)) if f.to_write == max(f.request, _ID.size) else b""
            chunk = head + bytes(self.payload[: min(_CHUNK, f.to_write) - len(head)])
            try:
                sent = s.send(chunk)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                f.failed = True
                return self._fetch_done(f, s)
            if sent < len(head):  # the 4-byte header goes in one piece on a fresh connection
                f.failed = True
                return self._fetch_done(f, s)
            f.to_write -= sent
            if f.to_write == 0:
                self.sel.modify(s, selectors.EVENT_READ, ("web-reply", f))
        elif what == "web-reply":
            try:
                data = s.recv(_CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                f.failed = True
                return self._fetch_done(f, s)
            if not data:
                f.end_s = self.now()
                self._fetch_done(f, s)
        elif what == "web-serve":
            self._serve(f, s)

    def _serve(self, f: Fetch, s: socket.socket) -> None:
        """Answer a request: read it, then send the reply and close (the server's side)."""
        if f.to_write == 0 and (len(f.header) < _ID.size or f.to_read > 0):
            try:
                data = s.recv(_CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:
                self.sel.unregister(s)
                s.close()
                return
            if len(f.header) < _ID.size:
                need = _ID.size - len(f.header)
                f.header += data[:need]
                data = data[need:]
                if len(f.header) == _ID.size:
                    request, reply = self.fetch_sizes[_ID.unpack(f.header)[0]]
                    f.to_read = max(request, _ID.size) - _ID.size
                    f.reply = reply
            f.to_read -= len(data)
            if len(f.header) < _ID.size or f.to_read > 0:
                return
            f.to_write = f.reply
            self.sel.modify(s, selectors.EVENT_WRITE, ("web-serve", f))
        if f.to_write > 0:
            try:
                f.to_write -= s.send(self.payload[: min(_CHUNK, f.to_write)])
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                f.to_write = 0
        if f.to_write == 0:
            self.sel.unregister(s)
            s.close()

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

    def _event(self, what: str, k: Any, s: socket.socket) -> None:
        if what.startswith("web-"):
            return self._web_event(what, k, s)
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
            if f.spec["kind"] in UDP_KINDS:
                self._count(f, len(data) + _UDP_IP_HEADERS)
                return
            if not data:
                self.sel.unregister(s)
                f.done_s = self.now()
                return
            self._count(f, len(data))

    def _send_datagrams(self, f: Flow, k: int, now: float) -> float:
        """Send what UDP flow ``f`` owes by ``now``; return when its next packet is due.

        Its script (``departures``: times and IP sizes, a simulated run's) is followed on the real
        clock; a late wake-up sends at once what was due (a packet under 28 bytes goes as 28).
        """
        script = f.spec["departures"]
        assert f.sock is not None
        while f.next_datagram < len(script) and script[f.next_datagram][0] <= now:
            size = script[f.next_datagram][1]
            try:
                f.sock.sendto(self.payload[: max(size - _UDP_IP_HEADERS, 0)],
                              (self._peer_addr(f.spec), BASE_PORT + k))  # fmt: skip
                f.sent += max(size, _UDP_IP_HEADERS)
            except (BlockingIOError, InterruptedError):
                pass
            f.next_datagram += 1
        return script[f.next_datagram][0] if f.next_datagram < len(script) else math.inf

    def run(self) -> None:
        """Start the flows on time and serve every socket until the run ends."""
        starts = sorted(
            (float(f.spec["start_s"]), k)
            for k, f in enumerate(self.flows)
            if (f.spec["kind"] == "ftp" and self.side == "clients")
            or (f.spec["kind"] in UDP_KINDS and self.is_sender(f))
        )
        if self.side == "clients":
            for user in self.users:
                user.wake_s = float(user.spec["first_s"])
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
            for u, user in enumerate(self.users):
                if user.wake_s <= now:
                    self._wake(u)
                due = min(due, user.wake_s)
            for k, f in enumerate(self.flows):
                if f.sending and f.spec["kind"] in UDP_KINDS:
                    due = min(due, self._send_datagrams(f, k, now))
            timeout = max(0.0, min(due, self.duration) - self.now())
            for key, _ in self.sel.select(min(timeout, 0.05)):
                what, k = key.data
                sock: socket.socket = key.fileobj  # type: ignore[assignment]  # all are sockets
                self._event(what, k, sock)
        for k, f in enumerate(self.flows):
            if f.spec["kind"] == "ftp" and f.sending and f.sock is not None and not f.info:
                self._finish_sender(k)

    def requests(self) -> list[dict[str, Any]]:
        """Return the request/response pairs this side made (clients), in the order made."""
        return [
            {"user": f.user, "page": f.page + 1, "object": f.obj, "start_s": f.start_s,
             "end_s": f.end_s, "failed": f.failed, "request": f.request, "reply": f.reply}
            for f in self.fetches
        ]  # fmt: skip

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
    host.bind_web()
    print("ready", flush=True)
    host.start_ns = int(sys.stdin.readline())
    host.run()
    print(json.dumps({"flows": host.results(), "requests": host.requests()}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
