"""ns-2.35 as a referee: an aqmlab scenario written as an ns-2 Tcl script, run, and read back.

:func:`ns2_script` maps a resolved aqmlab scenario to an :class:`Ns2Script`: the Tcl text (kept
in the cross-check's output folder, readable, with a header that says what was mapped, how, and
what is a known difference) and the per-pair delays it drew. :func:`run_ns2` runs ``ns`` on it
and returns :class:`~aqmlab.referee.measures.Measures`, the same quantities aqmlab reports for
the bottleneck; :func:`run_files` renders a run as an aqmlab run directory, and
:class:`Ns2Executor` runs a sweep's jobs that way. A scenario using something ns-2 cannot
express is refused with a :class:`~aqmlab.errors.ScenarioError` naming the key.

What maps (docs/ns2-referee.md has the full table and the known differences, with sources):

- the dumbbell: one ns-2 node per host and router; the bottleneck as two simplex links (each
  direction its own queue), access links as duplex drop-tail links; per-pair delays on the hosts'
  own access links when they add up (a server's share plus a client's), else as a leaf node per
  (client, server) pair behind R2 (ns-2 routes by node, so a pair's extra delay needs a link of
  its own);
- any other network, written from aqmlab's expansion into nodes and links: a node each, each
  direction of a link a simplex link with its own queue, each node routed by aqmlab's own
  forwarding table (ns-2's ``Manual`` routing), each logged direction measured;
- queues: ``droptail`` (``Queue/DropTail``, packets or bytes), ``red`` (``Queue/RED``: classic,
  gentle, adaptive, packet and byte modes, ECN with ``setbit_`` and ``use_mark_p_``),
  ``bernoulli`` (an ``ErrorModel`` at the head of the link, drops to the link's drop target);
- TCP: one-way agents ``Agent/TCP/Reno``, ``Agent/TCP/Newreno``, ``Agent/TCP/Sack1`` with
  ``Agent/TCPSink`` (``/DelAck``, ``/Sack1``), every ``[tcp]`` key set on the agent;
- traffic: ``ftp`` (``Application/FTP``), ``cbr`` (``Application/Traffic/CBR`` over
  ``Agent/UDP``), ``pareto`` (``Application/Traffic/Pareto``), ``telnet`` (``Application/Telnet``),
  ``web-session`` (an agent advanced by a transfer's packets, the next transfer scheduled from
  its ``done`` after a think time), ``web-pool`` (ns-2's ``Http`` clients and servers on
  ``FullTcp`` with a ``PagePool/Math``), ``web-mah`` (Mah's browsers on pooled one-way agent
  pairs, as ns-2's ``tcl/http/http.tcl`` builds them, with Mah's tables in ns-2's
  ``RandomVariable/Empirical``).

A setting ns-2 can only approximate (link framing, FreeBSD's TCP, ALTQ's RED) is refused here;
:func:`~aqmlab.referee.approximate.ns2_approximation` rewrites it into the nearest one first.

Sources: ns-2.35's ``tcl/lib/ns-default.tcl``, ``ns-lib.tcl``, ``ns-link.tcl`` and
``ns-queue.tcl``; ``queue/red.cc`` (``REDQueue::enque``: a drop when the queue *before* the
arrival is at ``limit_``), ``queue/drop-tail.cc`` (a drop when the queue *with* the arrival
would reach ``limit_``), ``tools/queue-monitor.{h,cc}`` (``QueueMonitor/ED``: ``pdrops_``
counts every drop, ``epdrops_`` the RED early ones; ``pmarks_`` the CE-marked departures),
``tools/integrator.cc``.

>>> script = ns2_script({"duration": "10s", "topology": {"bottleneck": {"rate": "10Mbps"}},
...                      "tcp": {"profile": "ns2-2.35"},
...                      "traffic": [{"kind": "ftp", "flows": 2}]}, seed=3)
>>> "Agent/TCP/Reno" in script.tcl, len(script.flows)
(True, 2)
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab import __version__
from aqmlab.calibrate import parse_rate
from aqmlab.errors import InputError, ScenarioError, StoreError, shown
from aqmlab.referee.approximate import ns2_approximation
from aqmlab.referee.measures import Measures, web_measures
from aqmlab.referee.ns2_measure import (
    CWND_TRACE,
    MEASURE_TCL,
    RESULTS,
    FlowInfo,
    Records,
    WebUser,
    directions,
    measure_tcl,
    measures,
    read_records,
    request_rows,
    requests_summary,
    summary,
    tables,
)
from aqmlab.scenario import ScenarioLike, group_tcp, next_hops, resolve
from aqmlab.sweeps import seconds
from aqmlab.units import size_bytes

WEB_SESSION_TCL = r"""
# ---- web sessions: a transfer, then think (aqmlab.referee.ns2, web_session)
# The retransmit timeout as ns-2's rtt_update and rtt_timeout compute it (tcp.cc): srtt_ and
# rttvar_ are in ticks, scaled by 8 and 4; backed off, clamped to minrto_ and maxrto_.
proc rto {t} {
    set srtt [$t set srtt_]
    set tick [$t set tcpTick_]
    set cur [$t set rtxcur_init_]
    if {$srtt != 0} {
        set cur [expr {((([$t set rttvar_] << ([$t set rttvar_exp_] + 1)) + $srtt) >> 3) * $tick}]
    }
    set b [$t set backoff_]
    set lo [$t set minrto_]
    if {[$t set rfc2988_]} {
        set r [expr {$cur < $lo ? $lo * $b : $cur * $b}]
    } else {
        set r [expr {max($cur * $b, $lo)}]
    }
    return [expr {max(min($r, [$t set maxrto_]), 2 * $tick)}]
}
proc web_transfer {f} {
    global ns tcp wpk wrestart wended
    if {$wrestart($f) && [info exists wended($f)]} {
        # idle_restart: after a pause of a retransmit timeout or more, the initial window.
        set t $tcp($f)
        if {[$ns now] - $wended($f) >= [rto $t]} { $t set cwnd_ [$t set windowInit_] }
    }
    xfer_begin $f
    $tcp($f) advanceby $wpk($f)
}
proc web_done {f} {
    global ns think wended
    xfer_end $f
    set wended($f) [$ns now]
    $ns after [$think($f) value] "web_transfer $f"
}
"""
"""Tcl procedures of web sessions (``web_session``)."""

HTTP_TCL = r"""
# An Http/Client that records each request it sends ("w user t") and each reply it receives
# ("r user t bytes") in the results. Its request and reply handling is Http/Client's
# (tcl/webcache/http-agent.tcl: one request per page outstanding) without the statistics,
# stale-hit checks and nam marks. Http/Client's timer ticks at exponential intervals and a tick
# while the request is unanswered sends nothing; the ticks being a Poisson process, the first
# one after the reply comes an exponential time after it, so that is when the next request is
# scheduled (the same law, without the ticks that do nothing: at a 10 ms mean they were 98% of
# ns-2's events).
Class Http/Client/Aqmlab -superclass Http/Client
Http/Client/Aqmlab instproc next-request {server pageid} {
    global out
    $self instvar ns_ pending_ user_
    if {![$self cmd is-connected $server] || [info exists pending_($pageid)]} { return }
    set pending_($pageid) [$ns_ now]
    set size [$self get-reqsize]
    $self send $server $size "$server get-request $self GET $pageid size $size"
    puts $out "w $user_ [$ns_ now]"
}
Http/Client/Aqmlab instproc get-response-GET {server pageid args} {
    global out
    $self instvar ns_ pending_ user_ rvInterPage_
    array set data $args
    puts $out "r $user_ [$ns_ now] $data(size)"
    unset pending_($pageid)
    $ns_ at [expr {[$ns_ now] + [$rvInterPage_ value]}] "$self next-request $server $pageid"
}
# Connect user u to server srv (Http connect: one FullTcp connection), give each end its own
# host's settings (the server's host: those of the users there, if any), start requesting.
proc web_user {u srv} {
    global httpc tcpset serverhost
    set cl $httpc($u)
    $cl connect $srv
    set ca [[$cl get-cnc $srv] agent]
    set sa [[$srv get-cnc $cl] agent]
    foreach {k v} $tcpset(c,$u) { $ca set $k $v }
    set theirs $tcpset(c,$u)
    if {[info exists tcpset(h,$serverhost($srv))]} { set theirs $tcpset(h,$serverhost($srv)) }
    foreach {k v} $theirs { $sa set $k $v }
    $cl start-session $srv $srv
}
"""
"""Tcl of ``web-pool`` users (``web_pool_group``)."""

MAH_TCL = r"""
# ---- web-mah users: Mah's HTTP/1.0 browsers on one-way agents (aqmlab.referee.ns2, web_mah_group)
# An object is fetched over a connection slot: a request agent on the client host with its sink
# on the server host, and a reply agent on the server host with its sink on the client. Slots
# are pooled per group and (client, server) pair, and made when a pair has none free (making an
# ns-2 agent costs about a millisecond). Each object is a new connection: the four agents
# are reset, the request agent sends its SYN (syn_), then the request; when the server's sink
# holds all of it (Application/MahRx counts the bytes the sink delivers in order) the reply
# starts at once; when the client's sink holds all of the reply, the object is done. "o" records
# its start, "O" its end. The reply's agent and sink know no SYN: its sequence number 0 is data,
# acknowledged as any other and opening the window (SYN_immediate_ack_, delay_growth_ false).
# Packets of a slot's earlier connection are older than its reset and are discarded by the
# agents (lastreset_).
Class Application/MahRx -superclass Application
Application/MahRx instproc recv {n} {
    $self instvar got want cb
    incr got $n
    if {$want > 0 && $got >= $want} { set want 0; eval $cb }
}
Application/MahRx instproc expect {bytes callback} {
    $self instvar got want cb
    set got 0
    set want $bytes
    set cb $callback
}
proc mah_agent {g cls} {
    global mah
    set a [new $cls]
    foreach {k v} $mah(tcpset,$g) { $a set $k $v }
    $a set fid_ $mah(fid)
    return $a
}
proc mah_sink {g syn} {
    global mah
    set k [new $mah(sink,$g)]
    if {$mah(delack,$g) > 0} { $k set interval_ $mah(delack,$g) }
    $k set SYN_immediate_ack_ $syn
    set rx [new Application/MahRx]
    $rx attach-agent $k
    $rx start
    return [list $k $rx]
}
# A free slot of group g between client host c and server host srv, reset for a new connection.
proc mah_slot {g c srv} {
    global ns mah client server
    set free mah(free,$g,$c,$srv)
    if {[info exists $free] && [llength [set $free]] > 0} {
        set i [lindex [set $free] end]
        set $free [lrange [set $free] 0 end-1]
    } else {
        set i [incr mah(slots)]
        set mah(rq,$i) [mah_agent $g $mah(agent,$g)]
        $mah(rq,$i) set syn_ $mah(syn,$g)
        $mah(rq,$i) set delay_growth_ $mah(syn,$g)
        set mah(rp,$i) [mah_agent $g $mah(agent,$g)]
        lassign [mah_sink $g $mah(syn,$g)] mah(rqk,$i) mah(rqx,$i)
        lassign [mah_sink $g false] mah(rpk,$i) mah(rpx,$i)
        $ns attach-agent $client($c,$srv) $mah(rq,$i)
        $ns attach-agent $client($c,$srv) $mah(rpk,$i)
        $ns attach-agent $server($srv) $mah(rqk,$i)
        $ns attach-agent $server($srv) $mah(rp,$i)
        $ns connect $mah(rq,$i) $mah(rqk,$i)
        $ns connect $mah(rp,$i) $mah(rpk,$i)
    }
    foreach a {rq rqk rp rpk} { $mah($a,$i) reset }
    return $i
}
# A transfer of b bytes: its packets, each of an equal share of b (one-way agents send whole
# packets of packetSize_), and the bytes its sink delivers: each packet with its headers, the
# SYN's 40 bytes, or, without a SYN, sequence number 0 without headers (tcp.cc output adds them
# to every other packet).
proc mah_send {a rx b syn callback} {
    global mah
    set n [expr {max(1, int(ceil(double(max($b, 1)) / $mah(mss))))}]
    set size [expr {int(ceil(double(max($b, 1)) / $n))}]
    $a set packetSize_ $size
    $rx expect [expr {$n * ($size + $mah(hdr)) + ($syn ? 40 : -$mah(hdr))}] $callback
    $a advanceby $n
}
# A draw of `what` for group g. A reply with a Pareto tail ("quantile start shape top" in
# mah(tail,g)): one uniform on [0, top] chooses the table (its variable's maxCDF_ is the
# quantile) or the tail, inverted from that uniform.
proc mah_draw {g what} {
    global mah mahrng
    if {$what eq "reply" && [info exists mah(tail,$g)]} {
        lassign $mah(tail,$g) q start shape top
        set u [$mahrng uniform 0 $top]
        if {$u > $q} {
            return [expr {int(round($start * pow((1 - $q) / (1 - $u), 1.0 / $shape)))}]
        }
    }
    return [expr {max($mah(min,$what), int(round([$mah(rv,$g,$what) value])))}]
}
# A page: a new server after a run of pages on one, the page's objects drawn, the primary first.
proc mah_page {u} {
    global mah mahrng
    set g $mah(group,$u)
    if {$mah(stay,$u) == 0} {
        # Uniform on 0 … servers − 1 (a RandomVariable/Uniform on [0, servers) can return its
        # upper end: once in 2 million draws, measured).
        set mah(server,$u) [$mahrng integer $mah(servers)]
        set mah(stay,$u) [mah_draw $g stay]
    }
    incr mah(stay,$u) -1
    incr mah(page,$u)
    set mah(obj,$u) 0
    set mah(queued,$u) [expr {[mah_draw $g objects] - 1}]
    mah_fetch $u
}
proc mah_fetch {u} {
    global ns mah out
    set g $mah(group,$u)
    set srv $mah(server,$u)
    set i [mah_slot $g $mah(client,$u) $srv]
    incr mah(active,$u)
    set req [mah_draw $g request]
    set rep [mah_draw $g reply]
    set key "$u $mah(page,$u) $mah(obj,$u)"
    incr mah(obj,$u)
    puts $out "o $key [$ns now] $req $rep $srv"
    mah_send $mah(rq,$i) $mah(rqx,$i) $req $mah(syn,$g) \
        [list mah_send $mah(rp,$i) $mah(rpx,$i) $rep 0 [list mah_done $u $i $key]]
}
proc mah_done {u i key} {
    global ns mah out
    puts $out "O $key [$ns now]"
    set g $mah(group,$u)
    lappend mah(free,$g,$mah(client,$u),$mah(server,$u)) $i
    incr mah(active,$u) -1
    while {$mah(queued,$u) > 0 && $mah(active,$u) < $mah(maxconn,$g)} {
        incr mah(queued,$u) -1
        mah_fetch $u
    }
    if {$mah(active,$u) == 0} { $ns after [$mah(rv,$g,think) value] "mah_page $u" }
}
# User u of group g on client host c, first page at time t.
proc mah_user {u g c t} {
    global ns mah
    foreach {k v} {server 0 stay 0 page 0 obj 0 queued 0 active 0} { set mah($k,$u) $v }
    set mah(group,$u) $g
    set mah(client,$u) $c
    $ns at $t "mah_page $u"
}
"""
"""Tcl of ``web-mah`` users (``web_mah_group``)."""

NS = "ns"
"""The ns-2 program (Debian package ``ns2``), looked up on ``PATH``."""

TIMEOUT_S = 3600.0
"""The longest one ns-2 run may take before it is stopped (a setting of :func:`run_ns2`)."""

SAMPLE_MIN_S = 0.01
"""The queue and RED's average are sampled from Tcl every ``measure.queue_sample``, but never more
often than this: each sample is a Tcl callback, and at Zhang & Qiu's 3 ms they took four fifths
of ns-2's time (1.5 s of a 200 s run; 0.67 s at 10 ms). The means stay unbiased; only their
sampling noise grows, and over a 10 s interval 1000 samples remain."""


def available() -> bool:
    """Say whether ``ns`` (ns-2) is on ``PATH``.

    >>> isinstance(available(), bool)
    True
    """
    return shutil.which(NS) is not None


@functools.cache
def ns2_version() -> str:
    """Return the version ns-2 reports (its Tcl ``ns-version``), or ``"not installed"``."""
    if not available():
        return "not installed"
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2-") as tmp:
        script = Path(tmp) / "version.tcl"
        script.write_text("puts [ns-version]\nexit 0\n")
        done = subprocess.run([NS, str(script)], capture_output=True, text=True, timeout=60)
    lines = done.stdout.strip().splitlines()
    return lines[-1] if done.returncode == 0 and lines else "unknown"


def _refuse(path: str, what: str) -> ScenarioError:
    return ScenarioError(path, f"{what}: ns-2 has no counterpart that aqmlab maps "
                               "(docs/ns2-referee.md lists what maps)")


@dataclass
class Ns2Script:
    """An ns-2 Tcl script made from a scenario, and what it measures.

    ``tcl`` is the script; ``flows`` what it knows of each flow (TCP and UDP, in group order);
    ``pair_delays_s`` the extra one-way delay of each (client, server) pair, entry
    ``c · servers + s`` (the same list the aqmlab side is given); ``notes`` the header's lines
    of mapping choices and known differences; ``resolved`` the scenario it was written from.
    """

    tcl: str
    flows: list[FlowInfo]
    pair_delays_s: list[float]
    resolved: dict[str, Any]
    seed: int
    notes: list[str] = field(default_factory=list)
    users: list[WebUser] = field(default_factory=list)


class _Writer:
    """Builds the Tcl text of one scenario (one method per part of the network)."""

    def __init__(self, resolved: Mapping[str, Any], seed: int) -> None:
        self.s = resolved
        self.seed = seed
        self.lines: list[str] = []
        self.notes: list[str] = []
        self.flows: list[FlowInfo] = []
        self.traced = False
        self.web_sessions = False
        self.users: list[WebUser] = []
        self.http_servers: set[str] = set()
        self.http_setup: tuple[str, str] | None = None
        self.http_settings: dict[str, list[tuple[str, str]]] = {}
        self.mah_header: tuple[int, int] | None = None
        """The MSS and header of the web-mah groups, once the first has written MAH_TCL."""
        self.mah_files: set[str] = set()
        self.graph = "link" in resolved
        """A network of nodes and links (any named topology but the dumbbell, expanded)."""
        self.logged: list[tuple[str, str]] = []
        """A network's logged link directions: (name, Tcl link), in link order."""
        self.servers = self.clients = 0
        if not self.graph:
            topo = resolved.get("topology", {})
            if topo.get("kind") != "dumbbell":
                raise _refuse("topology", "a network other than the dumbbell")
            for t, group in enumerate(resolved.get("traffic", [])):
                for key in ("servers", "clients"):
                    if key in group:
                        raise _refuse(f"traffic[{t}].{key}", "a group's own list of hosts")
            self.servers = int(topo["servers"])
            self.clients = int(topo["clients"])
        self.duration = seconds(resolved["duration"])
        self.warmup = seconds(resolved["warmup"])
        self.draw = random.Random(seed)

    def emit(self, *lines: str) -> None:
        self.lines.extend(lines)

    # ----- topology -------------------------------------------------------------------------

    def topology(self) -> list[float]:
        topo = self.s["topology"]
        for side in ("bottleneck", "access"):
            if topo[side]["framing"] != "none":
                raise _refuse(f"topology.{side}.framing", f"{shown(topo[side]['framing'])}")
        bottleneck = topo["bottleneck"]
        rate = parse_rate(bottleneck["rate"], what="topology.bottleneck.rate")
        delay = seconds(bottleneck["delay"])
        access = topo["access"]
        a_rate = parse_rate(access["rate"], what="topology.access.rate")
        a_delay = seconds(access["delay"])
        a_limit = self.droptail_limit(access["queue"], "topology.access.queue")
        pairs = self.pair_delays(topo["pair_delay"])
        self.emit("# ---- topology: servers - R1 == bottleneck == R2 - clients",
                  "set r1 [$ns node]", "set r2 [$ns node]",
                  f"$ns simplex-link $r1 $r2 {rate:.0f} {delay!r} {self.queue_class('queue')}",
                  f"$ns simplex-link $r2 $r1 {rate:.0f} {delay!r} "
                  f"{self.queue_class('reverse_queue')}",
                  "set fwd [$ns link $r1 $r2]", "set rev [$ns link $r2 $r1]")
        split = self.split_pair_delays(pairs)
        if split is None:
            self.notes.append(
                "per-pair delays: each (client, server) pair has a leaf node of its own behind "
                "R2, its access link delayed by the pair's delay; the pairs of one client do not "
                "share an access-link queue as aqmlab's client host does")
        server_extra, client_extra = split or ([0.0] * self.servers, [0.0] * self.clients)

        def access_link(node: str, router: str, extra: float) -> list[str]:
            return [f"$ns duplex-link {node} {router} {a_rate:.0f} {a_delay + extra!r} DropTail",
                    f"[[$ns link {node} {router}] queue] set limit_ {a_limit}",
                    f"[[$ns link {router} {node}] queue] set limit_ {a_limit}"]

        for s_ in range(self.servers):
            self.emit(f"set server({s_}) [$ns node]",
                      *access_link(f"$server({s_})", "$r1", server_extra[s_]))
        for c in range(self.clients):
            if split is not None:
                self.emit("set node [$ns node]", *access_link("$node", "$r2", client_extra[c]),
                          f"for {{set i 0}} {{$i < {self.servers}}} {{incr i}} "
                          f"{{ set client({c},$i) $node }}")
                continue
            for s_ in range(self.servers):
                self.emit(f"set client({c},{s_}) [$ns node]",
                          *access_link(f"$client({c},{s_})", "$r2", pairs[c * self.servers + s_]))
        return pairs

    def split_pair_delays(self, pairs: list[float]) -> tuple[list[float], list[float]] | None:
        """Return per-server and per-client extra delays that add up to every pair's, if any.

        ns-2 routes by node, so a delay of the pair alone needs a node per pair: a topology of
        servers · clients leaves that ns-2's all-pairs route computation makes very slow at a
        thousand flows. When every pair's delay is a server's share plus a client's (always so
        with one server or one client), the shares go on the hosts' own access links instead.
        """
        servers, clients = self.servers, self.clients
        server = [pairs[s] - min(pairs[:servers]) for s in range(servers)]
        client = [pairs[c * servers] - server[0] for c in range(clients)]
        fits = all(abs(pairs[c * servers + s] - client[c] - server[s]) < 1e-12
                   for c in range(clients) for s in range(servers))  # fmt: skip
        return (server, client) if fits and min(client) >= 0 else None

    def pair_delays(self, spec: Any) -> list[float]:
        n = self.servers * self.clients
        if isinstance(spec, str):
            return [seconds(spec)] * n
        if isinstance(spec, list):
            return [seconds(v) for v in spec]
        if isinstance(spec, Mapping) and spec.get("dist") == "uniform":
            low, high = seconds(spec["min"]), seconds(spec["max"])
            self.notes.append(
                "pair delays drawn here, uniform on [min, max], and given to both simulators "
                "as an explicit list")
            return [round(self.draw.uniform(low, high), 9) for _ in range(n)]
        raise _refuse("topology.pair_delay", f"{shown(spec)}")

    def network(self) -> None:
        """Write a network of nodes and links, routed as aqmlab routes it.

        A node each, each direction of a link a simplex link with its own queue, and aqmlab's
        forwarding tables as ns-2's manual routes. ns-2's static routing takes fewest hops too,
        but breaks ties by node order, where aqmlab takes the least delay, then the link listed
        first (``routing.rs``), and knows no ``[[route]]``; so every node gets aqmlab's table
        (the engine's, :func:`aqmlab.scenario.next_hops`) through ns-2's ``Manual`` routing module
        (``tcl/rtglib/route-proto.tcl``, ``tcl/lib/ns-rtmodule.tcl``: a hash classifier by
        destination node): its most used next hop as the default route, an entry per
        destination host for the others.
        """
        self.emit("# ---- network: nodes and links, routed as aqmlab routes", "$ns rtproto Manual",
                  *(f"set n({node['name']}) [$ns node]" for node in self.s["node"]))
        for i, link in enumerate(self.s["link"]):
            if link["framing"] != "none":
                raise _refuse(f"link[{i}].framing", f"{shown(link['framing'])}")
            ends = (link["from"], link["to"])
            for key, name, (a, b), rate_key, delay_key in (
                    ("queue", link["name"], ends, "rate", "delay"),
                    ("reverse_queue", link["reverse_name"], ends[::-1], "reverse_rate",
                     "reverse_delay")):
                path = f"link[{i}].{key}"
                q = link[key]
                rate = parse_rate(link[rate_key], what=f"link[{i}].{rate_key}")
                delay = seconds(link[delay_key])
                self.emit(f"$ns simplex-link $n({a}) $n({b}) {rate:.0f} {delay!r} "
                          f"{self.queue_class(path, q)}",
                          f"set link({name}) [$ns link $n({a}) $n({b})]")
                self.queue(path, f"link({name})", q, rate)
                if link["measure"]:
                    self.logged.append((name, f"$link({name})"))
        self.emit("# ---- routes (aqmlab's forwarding tables)")
        tables = next_hops(self.s)
        for node, row in tables.items():
            if not row:
                continue
            hops = [row[d] for d in sorted(row)]
            default = max(dict.fromkeys(hops), key=hops.count)
            self.emit(f"set m [$n({node}) get-module Manual]",
                      f"$m add-route-to-adj-node -default $n({default})")
            for dst in sorted(row):
                if row[dst] != default:
                    self.emit(f"$m add-route [$n({dst}) node-addr] "
                              f"[[$ns link $n({node}) $n({row[dst]})] head]")

    # ----- queues ---------------------------------------------------------------------------

    def queue_class(self, key: str, q: Mapping[str, Any] | None = None) -> str:
        """Return the ns-2 queue class of ``[queue]``, ``[reverse_queue]``, or ``q`` at ``key``."""
        kind = (self.s[key] if q is None else q)["kind"]
        classes = {"droptail": "DropTail", "bernoulli": "DropTail", "red": "RED"}
        if kind not in classes:
            raise _refuse(f"{key}.kind", f'"{kind}"')
        return classes[kind]

    def droptail_limit(self, limit: Any, path: str) -> str:
        """Return ns-2's ``limit_`` for an aqmlab drop-tail limit of waiting packets.

        ns-2's DropTail drops when the queue with the arrival would reach ``limit_``, so it holds
        ``limit_ − 1`` waiting packets; aqmlab's limit counts waiting packets.
        """
        text = str(limit)
        if text.endswith("p"):
            return str(int(text[:-1]) + 1)
        raise _refuse(path, f'"{shown(text)}" (access queues in bytes are not mapped)')

    def queue(self, key: str, link: str, q: Mapping[str, Any] | None = None,
              rate: float | None = None) -> None:
        """Write the queue at ``key`` on the Tcl link ``$link``.

        ``q`` is the queue, of a link of ``rate``; by default the dumbbell's ``[queue]`` or
        ``[reverse_queue]`` on its bottleneck.
        """
        q = self.s[key] if q is None else q
        kind = q["kind"]
        self.emit(f"# ---- {key} ({kind})", f"set q [${link} queue]")
        if kind in ("droptail", "bernoulli"):
            limit = str(q["limit"])
            if limit.endswith("p"):
                self.emit(f"$q set limit_ {int(limit[:-1]) + 1}")
            else:
                # Bytes: a drop when bytes queued + the arrival >= limit_ · mean_pktsize_.
                self.emit("$q set queue_in_bytes_ true", "$q set mean_pktsize_ 1",
                          f"$q set limit_ {int(size_bytes(limit, f'{key}.limit')) + 1}")
            if kind == "bernoulli":
                self.bernoulli(q, key, link)
            return
        if rate is None:
            rate = parse_rate(self.s["topology"]["bottleneck"]["rate"])
        self.red(q, key, rate)

    def bernoulli(self, q: Mapping[str, Any], key: str, link: str) -> None:
        self.emit("set em [new ErrorModel]", "$em unit pkt", f"$em set rate_ {float(q['p'])!r}",
                  "set emrng [new RNG]", f"$emrng seed {self.seed_for(key)}",
                  "set emvar [new RandomVariable/Uniform]", "$emvar use-rng $emrng",
                  "$em ranvar $emvar",
                  f"$em set markecn_ {'true' if q.get('ecn') else 'false'}",
                  f"${link} errormodule $em")

    def seed_for(self, what: str) -> int:
        return 1 + (self.seed * 7919 + sum(map(ord, what))) % 2_000_000_000

    def red(self, q: Mapping[str, Any], key: str, rate: float) -> None:
        for k, allowed in (("idle", ("ns2",)), ("gentle_initial_max_p", (True,)),
                           ("mark_forced", (False,)), ("count", ("ns2-wait", "floyd-jacobson")),
                           ("min_backlog", (2, 2.0))):  # fmt: skip
            if q[k] not in allowed:
                raise _refuse(f"{key}.{k}", f"{shown(q[k])} (ns-2 has only "
                                            f"{' or '.join(map(repr, allowed))})")
        if parse_rate(q["bandwidth"], what=f"{key}.bandwidth") != rate:
            raise _refuse(f"{key}.bandwidth", f"{shown(q['bandwidth'])} (ns-2's RED counts at "
                                              "its link's rate)")
        mean = size_bytes(q["mean_pkt_size"], f"{key}.mean_pkt_size")
        in_bytes = bool(q["queue_in_bytes"])
        limit = str(q["limit"])
        if limit.endswith("p"):
            limit_pkts = float(limit[:-1])
        else:
            limit_pkts = size_bytes(limit, f"{key}.limit") / mean
            if not in_bytes:
                limit_pkts = math.floor(limit_pkts)
        if limit_pkts != int(limit_pkts):
            raise _refuse(f"{key}.limit", f'"{shown(limit)}" (ns-2 counts limit_ in whole packets '
                                          "of mean_pktsize_)")
        mark_p = float(q["mark_below_p"])
        if q["ecn"] and q["gentle"] and not q["mark_above_max_th"]:
            # ns-2.35 has no "below max_th" rule, only use_mark_p_ (marks while p_b ≤ mark_p_):
            # with mark_p_ = max_p that is below max_th, for a max_p that does not move.
            if isinstance(q["adaptive"], Mapping):
                raise _refuse(f"{key}.mark_above_max_th", "false with Adaptive RED (ns-2.35 marks "
                                                          "while p_b ≤ a fixed mark_p_, and "
                                                          "Adaptive RED moves max_p)")
            mark_p = min(mark_p, float(q["max_p"]))
            self.notes.append(
                f"{key}: marks only below max_th as ns-2 of 2000-2003 did, through ns-2.35's "
                "use_mark_p_ with mark_p_ = max_p; beyond 2·max_th ns-2.35 then decides by "
                "probability instead of forcing a drop")
        self.emit(f"$q set limit_ {int(limit_pkts)}",
                  f"$q set thresh_ {float(q['min_th'])!r}",
                  f"$q set maxthresh_ {float(q['max_th'])!r}",
                  f"$q set linterm_ {1.0 / float(q['max_p'])!r}",
                  f"$q set q_weight_ {float(q['w_q'])!r}",
                  f"$q set gentle_ {'true' if q['gentle'] else 'false'}",
                  f"$q set wait_ {'true' if q['count'] == 'ns2-wait' else 'false'}",
                  f"$q set queue_in_bytes_ {'true' if in_bytes else 'false'}",
                  f"$q set bytes_ {'true' if q['prob_in_bytes'] else 'false'}",
                  f"$q set mean_pktsize_ {int(mean)}",
                  f"$q set setbit_ {'true' if q['ecn'] else 'false'}",
                  # use_mark_p_ true turns off ns-2's forced decisions (red.cc) and judges every
                  # average-based one as early: set only where aqmlab's mark_below_p asks for it.
                  f"$q set use_mark_p_ {'true' if q['ecn'] and mark_p < 1 else 'false'}",
                  f"$q set mark_p_ {min(mark_p, 1.0)!r}",
                  f"$q set drop_tail_ {'true' if q['victim'] == 'arrival' else 'false'}",
                  f"$q set drop_front_ {'true' if q['victim'] == 'front' else 'false'}",
                  "$q set summarystats_ false")
        adaptive = q["adaptive"]
        if isinstance(adaptive, Mapping):
            if adaptive.get("timing", "on-arrival") != "on-arrival":
                raise _refuse(f"{key}.adaptive.timing", f"{shown(adaptive['timing'])}")
            if [float(b) for b in adaptive.get("band", [0.4, 0.6])] != [0.4, 0.6]:
                raise _refuse(f"{key}.adaptive.band", f"{shown(adaptive['band'])} (ns-2's band "
                                                      "is fixed at [0.4, 0.6])")
            self.emit("$q set adaptive_ 1",
                      f"$q set interval_ {seconds(adaptive['interval'])!r}",
                      f"$q set top_ {float(adaptive['top'])!r}",
                      f"$q set bottom_ {float(adaptive['bottom'])!r}",
                      f"$q set alpha_ {float(adaptive['alpha_max'])!r}",
                      f"$q set beta_ {float(adaptive['beta'])!r}")
        else:
            self.emit("$q set adaptive_ 0")

    # ----- traffic --------------------------------------------------------------------------

    def starts(self, start: Any, flows: int, path: str) -> list[float]:
        if isinstance(start, str):
            return [seconds(start)] * flows
        if isinstance(start, Mapping) and start.get("dist") == "uniform":
            low, high = seconds(start["min"]), seconds(start["max"])
            return [self.draw.uniform(low, high) for _ in range(flows)]
        if isinstance(start, Mapping) and start.get("dist") == "exponential":
            mean = seconds(start["mean"])
            return [self.draw.expovariate(1 / mean) for _ in range(flows)]
        raise _refuse(f"{path}.start", f"{shown(start)}")

    def endpoints(self, group: Mapping[str, Any], k: int) -> tuple[str, str, FlowInfo]:
        """Return the flow's sending and receiving nodes, and what the tables say of it."""
        sender = "server" if group.get("from", "servers") == "servers" else "client"
        if self.graph:
            servers, clients = group["servers"], group["clients"]
            host_s = servers[(int(group.get("server", 0)) + k) % len(servers)]
            host_c = clients[(int(group.get("client", 0)) + k) % len(clients)]
            info = FlowInfo(len(self.flows), group["name"], k, "", host_c, host_s, sender)
            self.flows.append(info)
            ends = (f"$n({host_s})", f"$n({host_c})")
            return (*(ends if sender == "server" else ends[::-1]), info)
        s_ = (int(group.get("server", 0)) + k) % self.servers
        c = (int(group.get("client", 0)) + k) % self.clients
        server, client = f"$server({s_})", f"$client({c},{s_})"
        info = FlowInfo(len(self.flows), group["name"], k, "", f"c{c}", f"s{s_}", sender)
        self.flows.append(info)
        return (server, client, info) if sender == "server" else (client, server, info)

    def traffic(self) -> None:
        self.traffic_groups()
        for host, settings in self.http_settings.items():
            self.emit(f"set tcpset(h,{host}) {{{_tcl_pairs(settings)}}}")

    def traffic_groups(self) -> None:
        for index, group in enumerate(self.s["traffic"]):
            path = f"traffic[{index}]"
            kind = group["kind"]
            if kind in ("ftp", "telnet", "web-session"):
                self.tcp_group(group, path)
            elif kind in ("cbr", "pareto"):
                self.udp_group(group, path)
            elif kind in ("web-pool", "web-mah") and self.graph:
                raise _refuse(f"{path}.kind", f'"{kind}" on a network of nodes and links (its '
                                              "users are mapped on the dumbbell only)")
            elif kind == "web-pool":
                self.web_pool_group(group, path)
            elif kind == "web-mah":
                self.web_mah_group(group, path)
            else:
                raise _refuse(f"{path}.kind", f'"{kind}" (Poisson traffic is not mapped)')

    def tcp_group(self, group: Mapping[str, Any], path: str) -> None:
        tcp = group_tcp(self.s, group)
        agent, sink = _tcp_classes(tcp, f"{path}.tcp")
        settings = _tcp_settings(tcp, f"{path}.tcp", self.notes)
        mss = int(size_bytes(tcp["mss"]))
        flows = int(group["flows"])
        starts = self.starts(group["start"], flows, path)
        size = group.get("size", "unlimited")
        self.emit(f"# ---- {path}: {flows} x {group['kind']} ({agent}, {sink})")
        for k in range(flows):
            src, dst, info = self.endpoints(group, k)
            fid = info.flow
            info.kind, info.mss, info.start_s = "tcp", mss, starts[k]
            info.profile, info.variant = str(tcp["profile"]), str(tcp["variant"])
            info.traced = bool(group.get("trace", False))
            info.syn = tcp["handshake"] == "ns2-syn"
            self.emit(f"set tcp({fid}) [new {agent}]", f"set sink({fid}) [new {sink}]")
            self.emit(*(f"$tcp({fid}) set {name} {value}" for name, value in settings))
            if tcp["delack"] == "one-shot":
                # Sequence number 0 is acknowledged at once only when it is the SYN.
                self.emit(f"$sink({fid}) set interval_ {seconds(tcp['delack_time'])!r}",
                          f"$sink({fid}) set SYN_immediate_ack_ {str(info.syn).lower()}")
            self.emit(f"$tcp({fid}) set fid_ {fid}", f"$ns attach-agent {src} $tcp({fid})",
                      f"$ns attach-agent {dst} $sink({fid})",
                      f"$ns connect $tcp({fid}) $sink({fid})",
                      f"set group({fid}) {group['name']}", f"set mss({fid}) {mss}")
            if group["kind"] in ("ftp", "web-session"):
                self.emit(f"set xfer({fid}) 0", f"set xsince({fid}) -1")
            if group["kind"] == "ftp":
                self.emit(f"set app({fid}) [new Application/FTP]",
                          f"$app({fid}) attach-agent $tcp({fid})",
                          f"$ns at {starts[k]!r} \"xfer_begin {fid}\"")
                if size == "unlimited":
                    self.emit(f"$ns at {starts[k]!r} \"$app({fid}) start\"")
                else:
                    packets = math.ceil(size_bytes(size, f"{path}.size") / mss)
                    self.emit(f"$ns at {starts[k]!r} \"$app({fid}) produce {packets}\"",
                              f"$tcp({fid}) proc done {{}} {{ xfer_end {fid} }}")
            elif group["kind"] == "web-session":
                self.web_session(group, path, fid, mss, starts[k], bool(tcp["idle_restart"]))
            else:
                interval = group["interval"]
                if not isinstance(size, str) or size_bytes(size) != mss:
                    raise _refuse(f"{path}.size", f"{shown(size)} (ns-2's Telnet writes one "
                                                  f"segment, {mss} B, per event)")
                self.emit(f"set app({fid}) [new Application/Telnet]",
                          f"$app({fid}) attach-agent $tcp({fid})",
                          f"$app({fid}) set interval_ "
                          f"{0.0 if interval == 'tcplib' else seconds(interval)!r}",
                          f"$ns at {starts[k]!r} \"$app({fid}) start\"")
            self.emit(f"lappend tcps {fid}")
            if info.traced:
                if not self.traced:
                    self.emit(f"set cwnd_trace [open {CWND_TRACE} w]")
                    self.traced = True
                self.emit(f"$tcp({fid}) attach $cwnd_trace", f"$tcp({fid}) trace cwnd_")

    def web_session(self, group: Mapping[str, Any], path: str, fid: int, mss: int, start: float,
                    idle_restart: bool) -> None:
        """Write a web session (Zhang & Qiu §IV-C) on the agent ``tcp(fid)``.

        A transfer is ``advanceby`` its packets; when the agent calls ``done`` (everything
        acknowledged, ``tcp.cc`` ``recv_newack_helper``) it thinks, then advances again.

        ns-2's one-way agents never restart from the initial window after a pause
        (``slow_start_restart_`` acts only in a timeout with nothing outstanding, and
        ``QOption_`` is RFC 2861's decay), so ``idle_restart`` is done here: a transfer that
        starts a retransmit timeout or more after the last one ended starts from ``windowInit_``.
        """
        size = group["size"]
        if not isinstance(size, str):
            raise _refuse(f"{path}.size", f"{shown(size)} (the ns-2 script sends one size)")
        packets = math.ceil(size_bytes(size, f"{path}.size") / mss)
        if not self.web_sessions:
            self.emit("set webrng [new RNG]", f"$webrng seed {self.seed_for('web-session')}",
                      *WEB_SESSION_TCL.strip().splitlines())
            self.web_sessions = True
        think = self.think_variable(group, path)
        self.emit(f"set think({fid}) [new {think[0]}]", f"$think({fid}) use-rng $webrng",
                  *(f"$think({fid}) set {name} {value!r}" for name, value in think[1]),
                  f"set wpk({fid}) {packets}", f"set wrestart({fid}) {int(idle_restart)}",
                  f"$tcp({fid}) proc done {{}} {{ web_done {fid} }}",
                  f"$ns at {start!r} \"web_transfer {fid}\"")

    @staticmethod
    def think_variable(group: Mapping[str, Any], path: str) -> tuple[str, list[tuple[str, float]]]:
        """ns-2's ``RandomVariable`` class and settings for a web session's think time."""
        think = group.get("think")
        if think is None:
            return "RandomVariable/Uniform", [("min_", seconds(group["think_min"])),
                                              ("max_", seconds(group["think_max"]))]
        if isinstance(think, str):
            return "RandomVariable/Constant", [("val_", seconds(think))]
        if isinstance(think, Mapping) and think.get("dist") == "constant":
            return "RandomVariable/Constant", [("val_", seconds(think["value"]))]
        if isinstance(think, Mapping) and think.get("dist") == "uniform":
            return "RandomVariable/Uniform", [("min_", seconds(think["min"])),
                                              ("max_", seconds(think["max"]))]
        if isinstance(think, Mapping) and think.get("dist") == "exponential":
            return "RandomVariable/Exponential", [("avg_", seconds(think["mean"]))]
        raise _refuse(f"{path}.think", f"{shown(think)} (the ns-2 script draws constant, uniform "
                                       "or exponential think times)")

    def web_pool_group(self, group: Mapping[str, Any], path: str) -> None:
        """Write a ``web-pool`` group as ns-2's own page-pool web model (``tcl/webcache``).

        Each user is an ``Http/Client`` on its host, connected (``Http connect``: one persistent
        FullTcp connection) to the ``Http/Server`` of the host of its own index across
        (``peer = "paired"``), and started with ``start-session``: a request (``REQSize_``
        bytes) at every tick of an exponential timer of mean ``think_mean``, skipped while the
        previous one is unanswered. A server answers all the clients of one host over the first
        one's connection (``HttpApp::add_cnc`` keys by node). Each server has one page
        (``PagePool/Math``): under ``connections = "ns2-http"`` its size is ``page_mean`` (a
        bare size the mean of an exponential, or a constant) drawn anew at each modification,
        ages drawn from ``page_age``; that is the mode's model. ``"per-request"`` has no ns-2
        counterpart: it is approximated by the same agents, the page's size exponential of mean
        ``page_mean``, drawn once and never modified (a note says so). Both ends of a connection
        get the settings of their own host (FullTcp: ``segsize_`` is the MSS, its delayed ACKs
        and Nagle rule are its own).
        """
        tcp = group_tcp(self.s, group)
        if group.get("peer", "any") != "paired":
            raise _refuse(f"{path}.peer", f"{shown(group.get('peer', 'any'))} (an ns-2 Http client "
                                          'asks the one server it connected to: "paired")')
        request = group["request"]
        page, think = group["page_mean"], group["think_mean"]
        for key, value in (("request", request), ("think_mean", think)):
            if not isinstance(value, str):
                raise _refuse(f"{path}.{key}", f"{shown(value)} (ns-2's Http takes a constant "
                                               "request and exponential pauses)")
        if group.get("connections", "per-request") == "ns2-http":
            size = _page_variable(page, f"{path}.page_mean", size_bytes)
            age = (("RandomVariable/Constant", [("val_", NEVER_S)]) if group["page_age"] == "never"
                   else _page_variable(group["page_age"], f"{path}.page_age", seconds))
        else:
            if not isinstance(page, str):
                raise _refuse(f"{path}.page_mean", f"{shown(page)} (per-request pages are "
                                                   "approximated by an exponential page: a mean)")
            size = ("RandomVariable/Exponential", [("avg_", size_bytes(page))])
            # A page older than the run is never modified (no events to schedule).
            age = ("RandomVariable/Constant", [("val_", NEVER_S)])
            note = ("web-pool connections = \"per-request\": approximated by ns-2's Http, which "
                    "keeps one persistent connection per user (no handshake per page), answers "
                    "a host's clients over the first one's connection, and draws each server's "
                    "page once (here never modified)")
            if note not in self.notes:
                self.notes.append(note)
        agent = _full_tcp_class(tcp, f"{path}.tcp")
        request_b = int(size_bytes(request, f"{path}.request"))
        if self.http_setup is None:
            self.http_setup = (agent, str(request_b))
            self.emit("# ---- web-pool users: ns-2's Http agents on FullTcp (tcl/webcache)",
                      f"Http set TRANSPORT_ {agent.removeprefix('Agent/TCP/')}",
                      f"Http set REQSize_ {request_b}", "set httprng [new RNG]",
                      f"$httprng seed {self.seed_for('web-pool')}", "set pagerng [new RNG]",
                      f"$pagerng seed {self.seed_for('web-pool pages')}",
                      *HTTP_TCL.strip().splitlines())
        elif self.http_setup != (agent, str(request_b)):
            raise _refuse(f"{path}.tcp.variant", "a second TCP variant or request size among "
                                                 "web-pool groups (ns-2's Http sets both for all)")
        settings = _full_tcp_settings(tcp, f"{path}.tcp", self.notes)
        on_clients = group.get("users_on", "clients") == "clients"
        users = int(group["users"])
        starts = self.starts(group["start"], users, path)
        self.emit(f"# ---- {path}: {users} x web-pool ({agent}, Http)")
        for u in range(users):
            if on_clients:
                c = (int(group.get("client", 0)) + u) % self.clients
                s_ = c % self.servers
                user_node, peer_node = f"$client({c},{s_})", f"$server({s_})"
                user_host, peer_host = f"c{c}", f"s{s_}"
            else:
                s_ = (int(group.get("server", 0)) + u) % self.servers
                c = s_ % self.clients
                user_node, peer_node = f"$server({s_})", f"$client({c},{s_})"
                user_host, peer_host = f"s{s_}", f"c{c}"
            user = WebUser(len(self.users), group["name"], user_host, peer_host, request_b)
            self.users.append(user)
            server = self.http_server(peer_host, peer_node, (size, age))
            self.emit(f"set httpc({user.user}) [new Http/Client/Aqmlab $ns {user_node}]",
                      f"$httpc({user.user}) set user_ {user.user}",
                      "set tmp [new RandomVariable/Exponential]", "$tmp use-rng $httprng",
                      f"$tmp set avg_ {seconds(think)!r}",
                      f"$httpc({user.user}) set-interval-generator $tmp",
                      f"$httpc({user.user}) set-page-generator $pool({peer_host})",
                      f"set tcpset(c,{user.user}) {{{_tcl_pairs(settings)}}}",
                      f"$ns at {starts[u]!r} \"web_user {user.user} {server}\"")
            self.http_settings[user_host] = settings

    def web_mah_group(self, group: Mapping[str, Any], path: str) -> None:
        """Write a ``web-mah`` group as Mah's browsers on one-way agents (:data:`MAH_TCL`).

        The structure of ns-2's own Mah model (``tcl/http/http.tcl``: ``maxConn_`` connections,
        agents reset for each HTTP/1.0 transfer), with aqmlab's page logic: a primary object,
        then the embedded ones, a run of pages per server, think times between pages. Mah's
        tables are the engine's own copies, loaded into ns-2's ``RandomVariable/Empirical``
        (sampled as a step function, as aqmlab samples them); the think time is conditioned on
        ``think_max`` through the variable's ``maxCDF_``. Each user's first page comes after
        the residual of a think time (drawn here, as aqmlab draws it: length-biased, then a
        uniform share of it).

        Known differences (in the header): a connection's handshake is ns-2's one-way SYN and a
        plain ACK (no SYN-ACK), there are no FINs, and a reply's packets share its bytes
        equally (ns-2's agents send whole packets of ``packetSize_``).
        """
        tcp = group_tcp(self.s, group)
        agent, sink = _tcp_classes({**tcp, "handshake": "none"}, f"{path}.tcp")
        settings = _tcp_settings({**tcp, "handshake": "none"}, f"{path}.tcp", self.notes)
        g = path.removeprefix("traffic[").removesuffix("]")
        header = (int(size_bytes(tcp["mss"])), 40 if size_bytes(tcp["header"]) == 40 else 0)
        if self.mah_header is None:
            self.mah_header = header
            self.emit("# ---- web-mah users", "set mahrng [new RNG]",
                      f"$mahrng seed {self.seed_for('web-mah')}", "set mah(slots) 0",
                      f"set mah(mss) {header[0]}", f"set mah(hdr) {header[1]}",
                      f"set mah(fid) {WEB_FID}", f"set mah(servers) {self.servers}",
                      *(f"set mah(min,{key}) {low}" for key, low in MAH_FLOORS.items()),
                      *MAH_TCL.strip().splitlines())
            self.notes.append(
                "web-mah: Mah's browsers on ns-2's one-way agents, reset for each object; the "
                "handshake is a one-way SYN and a plain ACK, no FINs; a reply's packets share "
                "its bytes equally")
        elif self.mah_header != header:
            raise _refuse(f"{path}.tcp.mss", "a second MSS or header among web-mah groups")
        self.emit(f"# ---- {path}: {int(group['users'])} x web-mah ({agent}, {sink})",
                  f"set mah(agent,{g}) {agent}",
                  f"set mah(sink,{g}) {sink}", f"set mah(maxconn,{g}) {int(group['max_conns'])}",
                  f"set mah(syn,{g}) {int(tcp['handshake'] == 'three-way')}",
                  f"set mah(delack,{g}) "
                  f"{seconds(tcp['delack_time']) if tcp['delack'] == 'one-shot' else 0!r}",
                  f"set mah(tcpset,{g}) {{{_tcl_pairs(settings)}}}")
        for key in MAH_FLOORS:
            self.emit(*self.mah_variable(group, key, path, f"mah(rv,{g},{key})"))
        users = int(group["users"])
        starts = self.mah_starts(group, users, path)
        for u in range(users):
            c = (int(group.get("client", 0)) + u) % self.clients
            user = WebUser(len(self.users), group["name"], f"c{c}", "", 0)
            self.users.append(user)
            self.emit(f"mah_user {user.user} {g} {c} {starts[u]!r}")

    def mah_variable(self, group: Mapping[str, Any], key: str, path: str,
                     var: str) -> list[str]:
        """Tcl making ``var``, the group's draw of ``key``: Mah's table or a constant."""
        value = group.get(key)
        if value is None:
            file = f"mah-{key}.cdf"
            lines = [f"set {var} [new RandomVariable/Empirical]", f"${var} use-rng $mahrng"]
            if file not in self.mah_files:
                self.mah_files.add(file)
                lines += [f"set f [open {file} w]", f"puts -nonewline $f {{{mah_table(key)}}}",
                          "close $f"]
            lines.append(f"${var} loadCDF {file}")
            if key == "think":
                lines.append(f"${var} set maxCDF_ {_think_cdf_max(group, path)!r}")
            if key == "reply" and group.get("reply_tail") is not None:
                q, start, shape, top = _reply_tail(group["reply_tail"], f"{path}.reply_tail")
                g = path.removeprefix("traffic[").removesuffix("]")
                lines += [f"${var} set maxCDF_ {q!r}",
                          f"set mah(tail,{g}) {{{q!r} {start!r} {shape!r} {top!r}}}"]
            return lines
        constant = value.get("value") if isinstance(value, Mapping) and \
            value.get("dist") == "constant" else value
        if isinstance(constant, str | int | float):
            number = seconds(constant) if key == "think" else float(
                size_bytes(constant, f"{path}.{key}") if key in ("request", "reply")
                else constant)
            return [f"set {var} [new RandomVariable/Constant]", f"${var} set val_ {number!r}"]
        raise _refuse(f"{path}.{key}", f"{shown(value)} (the ns-2 script draws Mah's table or a "
                                       "constant)")

    def mah_starts(self, group: Mapping[str, Any], users: int, path: str) -> list[float]:
        """Each user's first page: ``start`` plus the residual of a think time.

        The residual of a renewal period seen at a random instant: the period drawn length-biased
        (value x with weight x · p(x)), the instant uniform within it.
        """
        start = seconds(group["start"]) if isinstance(group["start"], str) else None
        if start is None:
            raise _refuse(f"{path}.start", f"{shown(group['start'])} (web-mah: a duration)")
        think = group.get("think")
        if think is None:
            cap = _think_cdf_max(group, path)
            values, weights = [], []
            previous = 0.0
            for value, cdf in _cdf_rows(mah_table("think")):
                if cdf > cap + 1e-15:
                    break
                values.append(value)
                weights.append(value * (cdf - previous))
                previous = cdf
            return [start + self.draw.choices(values, weights)[0] * self.draw.random()
                    for _ in range(users)]
        period = seconds(think.get("value") if isinstance(think, Mapping) else think)
        return [start + period * self.draw.random() for _ in range(users)]

    def http_server(self, host: str, node: str, page: tuple[Ranvar, Ranvar]) -> str:
        """Write the ``Http/Server`` of ``host`` and its page pool once; return its variable.

        ``page``: the ``RandomVariable`` classes and settings of the page's size and age.
        """
        if host not in self.http_servers:
            self.http_servers.add(host)
            self.emit(f"set https({host}) [new Http/Server $ns {node}]",
                      f"set pool({host}) [new PagePool/Math]")
            for (kind, settings), command in zip(page, ("ranvar-size", "ranvar-age"), strict=True):
                self.emit(f"set tmp [new {kind}]", "$tmp use-rng $pagerng",
                          *(f"$tmp set {k} {v!r}" for k, v in settings),
                          f"$pool({host}) {command} $tmp")
            self.emit(f"$https({host}) set-page-generator $pool({host})",
                      f"set serverhost($https({host})) {host}")
        return f"$https({host})"

    def udp_group(self, group: Mapping[str, Any], path: str) -> None:
        size = group["size"]
        if not isinstance(size, str):
            raise _refuse(f"{path}.size", f"{shown(size)} (ns-2's sources send one size)")
        size_b = int(size_bytes(size, f"{path}.size"))
        rate = parse_rate(group["rate"], what=f"{path}.rate")
        flows = int(group["flows"])
        starts = self.starts(group["start"], flows, path)
        stop = seconds(group.get("stop", self.s["duration"]))
        self.emit(f"# ---- {path}: {flows} x {group['kind']}")
        for k in range(flows):
            src, dst, info = self.endpoints(group, k)
            fid = info.flow
            info.kind, info.variant, info.start_s = "udp", str(group["kind"]), starts[k]
            self.emit(f"set udp({fid}) [new Agent/UDP]", f"$udp({fid}) set packetSize_ {size_b}",
                      f"$udp({fid}) set fid_ {fid}", f"set lm({fid}) [new Agent/LossMonitor]",
                      f"$ns attach-agent {src} $udp({fid})", f"$ns attach-agent {dst} $lm({fid})",
                      f"$ns connect $udp({fid}) $lm({fid})", f"set group({fid}) {group['name']}")
            if group["kind"] == "cbr":
                self.emit(f"set app({fid}) [new Application/Traffic/CBR]",
                          f"$app({fid}) set random_ {1 if group.get('jitter') else 0}")
            else:
                for key in ("burst", "idle"):
                    if not isinstance(group[key], str):
                        raise _refuse(f"{path}.{key}", f"{shown(group[key])} (ns-2's Pareto "
                                                       "source takes a mean)")
                self.emit(f"set app({fid}) [new Application/Traffic/Pareto]",
                          f"$app({fid}) set burst_time_ {seconds(group['burst'])!r}",
                          f"$app({fid}) set idle_time_ {seconds(group['idle'])!r}",
                          f"$app({fid}) set shape_ {float(group['shape'])!r}")
            self.emit(f"$app({fid}) set packetSize_ {size_b}", f"$app({fid}) set rate_ {rate:.0f}",
                      f"$app({fid}) attach-agent $udp({fid})",
                      f"$ns at {starts[k]!r} \"$app({fid}) start\"",
                      f"$ns at {stop!r} \"$app({fid}) stop\"", f"lappend udps {fid}")

    # ----- measurement --------------------------------------------------------------------

    def measurement(self) -> None:
        measure = self.s["measure"]
        self.emit(
            f"set warmup {self.warmup!r}", f"set duration {self.duration!r}",
            f"set sample_s {max(seconds(measure['queue_sample']), SAMPLE_MIN_S)!r}",
            f"set queue_iv {seconds(measure['queue_interval'])!r}",
            f"set link_iv {seconds(measure['link_interval'])!r}",
        )
        if not self.graph:
            self.emit(f"set red(forward) {int(self.s['queue']['kind'] == 'red')}",
                      f"set red(reverse) {int(self.s['reverse_queue']['kind'] == 'red')}",
                      *MEASURE_TCL.strip().splitlines())
            return
        if not self.logged:
            raise _refuse("link", "a network with no logged link (measure = true): nothing to "
                                  "compare")
        queues = directions(self.s)
        self.emit(*(f"set red({name}) {int(queues[name][0]['kind'] == 'red')}"
                    for name, _ in self.logged),
                  *measure_tcl(self.logged).strip().splitlines())


WEB_FID = 1_000_000
"""The ns-2 flow id of every ``web-mah`` agent (the flow monitor's per-flow counts of the bulk and
UDP flows, numbered from 0, stay their own)."""

MAH_FLOORS = {"request": 1, "reply": 0, "objects": 1, "stay": 1, "think": 0}
"""Each ``web-mah`` draw's smallest value (a whole number of bytes, objects or pages)."""

MAH_FILES = {"request": "HttpRequestLength.cdf", "reply": "HttpReplyLength.cdf",
             "objects": "HttpConnections.cdf", "think": "HttpThinkTime.cdf",
             "stay": "HttpServerStay.cdf"}  # fmt: skip
"""The ``web-mah`` keys whose default is one of Mah's tables, and the table's file."""


def mah_table(key: str) -> str:
    """Return the text of Mah's table for a ``web-mah`` key, as the engine ships it.

    >>> mah_table("objects").splitlines()[0]
    '1 739 0.511772853186'
    """
    from aqmlab import _native

    return _native.mah_tables()[MAH_FILES[key]]


def _cdf_rows(text: str) -> list[tuple[float, float]]:
    """Return (value, cumulative probability) of each line of an ns-2 CDF table."""
    rows = [line.split() for line in text.splitlines() if line.strip()]
    return [(float(r[0]), float(r[-1])) for r in rows]


def _reply_tail(tail: Mapping[str, Any], path: str) -> tuple[float, float, float, float]:
    """Return a reply tail's quantile, start (Mah's reply at it), index and top of its uniform.

    The engine's :meth:`Empirical::with_pareto_tail`: the tail starts at the smallest table value
    whose cumulative probability reaches the quantile; a bound ``max`` keeps draws at most it,
    the uniform's top being the tail's cumulative probability there.

    >>> _reply_tail({"quantile": 0.9, "shape": 1.2}, "t")
    (0.9, 12581.0, 1.2, 1.0)
    >>> round(_reply_tail({"quantile": 0.9, "shape": 1.2, "max": "1MB"}, "t")[3], 6)
    0.999476
    """
    q, shape = float(tail["quantile"]), float(tail["shape"])
    start = next(v for v, cdf in _cdf_rows(mah_table("reply")) if cdf >= q)
    top = 1.0
    if tail.get("max") is not None:
        cap = size_bytes(tail["max"], f"{path}.max")
        if cap <= start:
            raise _refuse(f"{path}.max", f"{shown(tail['max'])} (at or below the tail's start, "
                                         f"{start:.0f} B)")
        top = 1 - (1 - q) * (start / cap) ** shape
    return q, start, shape, top


def _think_cdf_max(group: Mapping[str, Any], path: str) -> float:
    """Return the think table's cumulative probability at ``think_max`` (``maxCDF_``)."""
    cap = seconds(group.get("think_max", "30min"))
    below = [cdf for value, cdf in _cdf_rows(mah_table("think")) if value <= cap]
    if not below:
        raise _refuse(f"{path}.think_max", f"{shown(group.get('think_max'))} (below the table)")
    return below[-1]


def _tcp_classes(tcp: Mapping[str, Any], path: str) -> tuple[str, str]:
    """ns-2's sender and sink classes for an aqmlab TCP configuration."""
    if tcp.get("congestion_control", "reno") != "reno":
        raise _refuse(f"{path}.congestion_control", f'"{shown(tcp["congestion_control"])}"')
    if tcp.get("hystart", False):
        raise _refuse(f"{path}.hystart", "true")
    if tcp["handshake"] == "three-way":
        raise _refuse(f"{path}.handshake", '"three-way" (FullTcp is not mapped yet; ns-2\'s '
                                           'one-way agents take "ns2-syn" or "none")')
    agent = {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno",
             "sack": "Agent/TCP/Sack1"}[tcp["variant"]]
    sink = "Agent/TCPSink/Sack1" if tcp["variant"] == "sack" else "Agent/TCPSink"
    delack = tcp["delack"]
    if delack == "one-shot":
        sink += "/DelAck"
    elif delack != "off":
        raise _refuse(f"{path}.delack", f'"{delack}" (ns-2\'s sinks ACK every segment or every '
                                        'second one: "off" or "one-shot")')
    return agent, sink


def _full_tcp_class(tcp: Mapping[str, Any], path: str) -> str:
    """ns-2's FullTcp class for an aqmlab TCP configuration (three-way handshake, FINs)."""
    if tcp.get("congestion_control", "reno") != "reno":
        raise _refuse(f"{path}.congestion_control", f'"{shown(tcp["congestion_control"])}"')
    if tcp["handshake"] != "three-way":
        raise _refuse(f"{path}.handshake", f'"{shown(tcp["handshake"])}" (web-pool needs '
                                           '"three-way")')
    return {"reno": "Agent/TCP/FullTcp", "newreno": "Agent/TCP/FullTcp/Newreno",
            "sack": "Agent/TCP/FullTcp/Sack"}[tcp["variant"]]


FULL_TCP_SKIPS = {"useHeaders_", "syn_", "delay_growth_", "singledup_", "bugFix_",
                  "newreno_changes1_", "partial_window_deflation_", "precisionReduce_",
                  "exitFastRetrans_"}
"""Variables of the one-way agents FullTcp does not have (it always sends 40 B of headers)."""


def _full_tcp_settings(tcp: Mapping[str, Any], path: str,
                       notes: list[str]) -> list[tuple[str, str]]:
    """Every FullTcp variable the aqmlab TCP configuration decides, as (name, value).

    The one-way agents' settings, with ``segsize_`` for ``packetSize_``, ``tcprexmtthresh_``
    for ``numdupacks_``, the delayed-ACK rule (``segsperack_``, ``interval_``) and the Nagle
    rule (``nodelay_``, off unless ``nagle``).
    """
    if size_bytes(tcp["header"], f"{path}.header") != 40:
        raise _refuse(f"{path}.header", f'"{shown(tcp["header"])}" (FullTcp adds 40 B)')
    renamed = {"packetSize_": "segsize_", "numdupacks_": "tcprexmtthresh_"}
    settings = [(renamed.get(name, name), value)
                for name, value in _tcp_settings({**tcp, "handshake": "none"}, path, [])
                if name not in FULL_TCP_SKIPS]  # fmt: skip
    # FullTcp holds the ACK of less than a segment (a request) for its timer: never "off".
    # "ns2-fulltcp" is its own rule (segsperack_ 1); "one-shot", ACKing every second segment,
    # is nearest to segsperack_ 2, though FullTcp's timer ticks on a grid.
    segs = {"ns2-fulltcp": "1", "one-shot": "2"}.get(tcp["delack"])
    if segs is None:
        raise _refuse(f"{path}.delack", f'"{shown(tcp["delack"])}" (FullTcp ACKs at one or two '
                                        'segments or on its timer: "ns2-fulltcp" or "one-shot")')
    settings += [("segsperack_", segs), ("interval_", f"{seconds(tcp['delack_time'])!r}"),
                 ("nodelay_", "false" if tcp.get("nagle", False) else "true")]
    if tcp["delack"] == "one-shot":
        note = ("web-pool: delack = \"one-shot\" as FullTcp's segsperack_ 2, whose delayed-ACK "
                "timer ticks on a grid of interval_ rather than running from the first segment")
        if note not in notes:
            notes.append(note)
    return settings


Ranvar = tuple[str, list[tuple[str, float]]]
"""An ns-2 ``RandomVariable`` class and its settings."""

NEVER_S = 1e9
"""A page age longer than any run: the page is never modified."""


def _page_variable(value: Any, path: str, unit: Any) -> Ranvar:
    """Return the ``RandomVariable`` of a page size or age: a bare value is an exponential's mean.

    >>> _page_variable("1024B", "p", size_bytes)
    ('RandomVariable/Exponential', [('avg_', 1024.0)])
    >>> _page_variable({"dist": "constant", "value": "2s"}, "p", seconds)
    ('RandomVariable/Constant', [('val_', 2.0)])
    """
    if isinstance(value, str):
        return "RandomVariable/Exponential", [("avg_", unit(value))]
    if isinstance(value, Mapping) and value.get("dist") == "constant":
        return "RandomVariable/Constant", [("val_", unit(value["value"]))]
    if isinstance(value, Mapping) and value.get("dist") == "exponential":
        return "RandomVariable/Exponential", [("avg_", unit(value["mean"]))]
    raise _refuse(path, f"{shown(value)} (ns-2's PagePool/Math is given constant or exponential "
                        "draws here)")


def _tcl_pairs(settings: Sequence[tuple[str, str]]) -> str:
    return " ".join(f"{name} {value}" for name, value in settings)


def _tcp_settings(tcp: Mapping[str, Any], path: str, notes: list[str]) -> list[tuple[str, str]]:
    """Every ns-2 agent variable the aqmlab TCP configuration decides, as (name, value).

    A mapping that is not exact adds a line to ``notes``.
    """
    mss = size_bytes(tcp["mss"], f"{path}.mss")
    header = size_bytes(tcp["header"], f"{path}.header")
    if header not in (0, 40):
        raise _refuse(f"{path}.header", f'"{shown(tcp["header"])}" (ns-2 adds 40 B or nothing)')
    rwnd = size_bytes(tcp["rwnd"], f"{path}.rwnd")
    rto = tcp["rto"]
    if rto not in ("ns2-old", "ns2-rfc2988"):
        raise _refuse(f"{path}.rto", f'"{rto}" (ns-2\'s timers are "ns2-old" or "ns2-rfc2988")')
    for key, allowed in (("halve", "window"), ("send_chunk", "0B"), ("fin_piggyback", False),
                         ("buffer_roundup", False), ("handshake_ack_cwnd", False),
                         ("syn_loss_restart", False), ("connect_timeout", "never"),
                         ("max_retries", "never"), ("recovery_exit_deflate_at", "always")):
        if tcp[key] != allowed:
            raise _refuse(f"{path}.{key}", f"{shown(tcp[key])} (ns-2's agents: {allowed!r})")
    if tcp["ecn"] and not tcp.get("ecn_backoff", True):
        raise _refuse(f"{path}.ecn_backoff", "false (ns-2's agents always back off, tcp.cc `ecn`)")
    if "route_cache" in tcp:
        raise _refuse(f"{path}.route_cache", f"{shown(tcp['route_cache'])} (ns-2's agents keep no "
                                             "per-host RTT cache)")
    if tcp.get("recovery_cwnd", "standard") != "standard":
        raise _refuse(f"{path}.recovery_cwnd", f"{shown(tcp['recovery_cwnd'])} (ns-2's agents "
                                               "have no proportional rate reduction)")
    if tcp.get("pacing", "off") != "off":
        raise _refuse(f"{path}.pacing", f"{shown(tcp['pacing'])} (ns-2's agents do not pace)")
    if tcp.get("loss_detection", "dupack") != "dupack":
        raise _refuse(f"{path}.loss_detection",
                      f"{shown(tcp['loss_detection'])} (ns-2's agents count duplicate ACKs)")
    if tcp.get("sack_after_rto", "discard") != "discard" or tcp.get("timestamps", False):
        raise _refuse(f"{path}.sack_after_rto", "the timeout path of the linux profile")
    flag = {True: "true", False: "false"}
    if tcp.get("recovery_window", "rfc") == "rfc" and tcp["variant"] != "sack":
        notes.append('recovery_window "rfc": ns-2 with exitFastRetrans_ false inflates by '
                     "numdupacks_ as RFC 5681 does, but its ending ACK also opens the window")
    if tcp["variant"] == "sack" and tcp.get("sack_recovery", "rfc6675") == "rfc6675":
        notes.append('sack_recovery "rfc6675": ns-2\'s Sack1 counts its own pipe_ and starts '
                     "recovery at numdupacks_ duplicates only (aqmlab's \"ns2\" form)")
    if tcp["limited_transmit"] is True:
        notes.append("limited transmit: RFC 3042 in aqmlab, ns-2's singledup_ (which also "
                     'resends after a timeout; aqmlab\'s "ns2" form) in ns-2')
    return [
        ("packetSize_", f"{int(mss)}"),
        ("useHeaders_", flag[header == 40]),
        ("window_", f"{rwnd / mss!r}"),
        ("windowInit_", f"{int(tcp['initial_window'])}"),
        ("syn_", flag[tcp["handshake"] == "ns2-syn"]),
        # Without a SYN, the ACK of sequence number 0 acknowledges data and opens the window
        # (with delay_growth_ ns-2 treats it as the SYN's and resets cwnd_ to windowInit_).
        ("delay_growth_", flag[tcp["handshake"] == "ns2-syn"]),
        ("rfc2988_", flag[rto == "ns2-rfc2988"]),
        ("tcpTick_", f"{seconds(tcp['tick'])!r}"),
        ("rtxcur_init_", f"{seconds(tcp['initial_rto'])!r}"),
        ("minrto_", f"{seconds(tcp['min_rto'])!r}"),
        ("maxrto_", f"{seconds(tcp['max_rto'])!r}"),
        ("numdupacks_", f"{int(tcp['dupthresh'])}"),
        ("singledup_", f"{int(tcp['limited_transmit'] is not False)}"),
        ("bugFix_", flag[bool(tcp["recover_guard"])]),
        ("newreno_changes1_", f"{int(tcp['partial_ack_timer'] == 'first')}"),
        ("partial_window_deflation_", f"{int(bool(tcp['partial_window_deflation']))}"),
        ("slow_start_restart_", flag[bool(tcp["idle_restart"])]),
        ("ecn_", f"{int(bool(tcp['ecn']))}"),
        ("overhead_", f"{seconds(tcp['overhead'])!r}"),
        ("precisionReduce_", flag[bool(tcp.get("precise_reduce", False))]),
        ("exitFastRetrans_", flag[tcp.get("recovery_window", "rfc") == "ns2"]),
        ("maxburst_", "0"),
    ]


def ns2_script(scenario: ScenarioLike, *, seed: int | None = None,
               approximations: Sequence[str] = ()) -> Ns2Script:
    """Write ``scenario`` (resolved here) as an ns-2 Tcl script for ``seed``.

    A named topology other than the dumbbell is written from its expansion into nodes and links
    (aqmlab's own, :func:`~aqmlab.scenario.resolve` with ``expand``), which ``resolved`` then is.

    ``approximations``: the changes that made ``scenario`` from the one asked for
    (:func:`~aqmlab.referee.approximate.ns2_approximation`), listed in the header.

    ns-2's own random numbers (RED's draws, the uniform dropper's) come from its default
    generator seeded with the run's seed; start times and per-pair delays are drawn here from
    the scenario's distributions with the same seed (aqmlab draws its own from its engine's
    streams: not the same numbers, the same laws).
    """
    resolved = resolve(scenario)
    if resolved.get("topology", {}).get("kind", "dumbbell") != "dumbbell":
        resolved = resolve(resolved, expand=True)
    run_seed = int(resolved["seed"] if seed is None else seed)
    writer = _Writer(resolved, run_seed)
    writer.emit("set ns [new Simulator]", "global defaultRNG",
                f"$defaultRNG seed {writer.seed_for('default')}", "set tcps {}", "set udps {}")
    if writer.graph:
        pairs: list[float] = []
        writer.network()
    else:
        pairs = writer.topology()
        writer.queue("queue", "fwd")
        writer.queue("reverse_queue", "rev")
    writer.traffic()
    writer.measurement()
    header = [
        f"# ns-2 script written by aqmlab from scenario {resolved['name']!r}, seed {run_seed}.",
        "# Run with: ns THIS_FILE (writes " + RESULTS + " in the current folder).",
        "# Mapping: docs/ns2-referee.md. Known differences in this script:",
        "# - start times are drawn by aqmlab's Python side, not by ns-2 or the engine",
        "# - DropTail limit_ is aqmlab's limit + 1 (ns-2 counts the arriving packet)",
        "# - goodput is a TCP sender's cumulative ACK (ack_) times its packet size",
        *(f"# - {note}" for note in writer.notes),
        *(["# Approximated (the scenario asked for is not what ns-2 can run):"]
          + [f"# - {change}" for change in approximations] if approximations else []),
    ]
    return Ns2Script("\n".join([*header, *writer.lines, ""]), writer.flows, pairs, resolved,
                     run_seed, writer.notes, writer.users)


def run_script(script: Ns2Script, folder: Path, *, timeout_s: float = TIMEOUT_S) -> Records:
    """Run ``ns`` on ``script`` in ``folder`` (written as ``ns2.tcl``) and read its records.

    Raises :class:`~aqmlab.errors.StoreError` (naming the script) if ns-2 is missing, fails or
    runs past ``timeout_s``; its last lines of output are in the message. ``Records.wall_s``
    is the whole ``ns`` process's wall time.
    """
    if not available():
        raise StoreError(NS, "ns-2 is not installed (Debian package ns2: apt-get install ns2)")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "ns2.tcl"
    path.write_text(script.tcl)
    results = folder / RESULTS
    results.unlink(missing_ok=True)
    started = time.perf_counter()
    try:
        done = subprocess.run([NS, path.name], cwd=folder, capture_output=True, text=True,
                              timeout=timeout_s, env={**os.environ, "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        raise StoreError(str(path), f"ns-2 ran longer than {timeout_s:g} s and was stopped") \
            from None
    wall = time.perf_counter() - started
    (folder / "ns2.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0 or not results.exists():
        tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
        raise StoreError(str(path), f"ns-2 failed (exit {done.returncode}): {shown(tail, 400)}")
    records = read_records(results)
    records.wall_s = wall
    return records


def run_ns2(script: Ns2Script, folder: Path, *, timeout_s: float = TIMEOUT_S) -> Measures:
    """Run ``script`` in ``folder`` and sum its records up as the cross-check's measures."""
    records = run_script(script, folder, timeout_s=timeout_s)
    measured = seconds(script.resolved["duration"]) - seconds(script.resolved["warmup"])
    logged = list(directions(script.resolved)) if "link" in script.resolved else []
    found = measures(records, script.flows, measured, logged)
    found.wall_s = records.wall_s
    if script.users:
        rows = request_rows(records, script.users, seconds(script.resolved["warmup"]))
        for name, value in web_measures(requests_summary(rows)).items():
            setattr(found, name, value)
    return found


def _source_digest() -> str:
    here = Path(__file__).resolve().parent
    text = b"".join((here / name).read_bytes()
                    for name in ("ns2.py", "ns2_measure.py", "approximate.py"))
    return hashlib.sha256(text).hexdigest()[:16]


_WRITER_DIGEST = _source_digest()


def writer_digest() -> str:
    """Return a digest of the writer's and the reader's source, as this process loaded them.

    What an ns-2 run depends on besides the scenario, the seed and ns-2 itself: its run store is
    kept per digest. It is taken when the module is imported, so that a process whose source
    files change on disk while it runs still names the code it runs.
    """
    return _WRITER_DIGEST


def run_files(scenario: Mapping[str, Any], seed: int, *,
              approximate: bool = False) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Run ``scenario`` with ``seed`` in ns-2 and render an aqmlab run directory's files.

    ``approximate``: run the nearest scenario ns-2 can express
    (:func:`~aqmlab.referee.approximate.ns2_approximation`); each change it made is listed in
    ``meta.build.approximations`` and in the script's header.

    The summary and tables have aqmlab's layout and schema (:mod:`aqmlab.referee.ns2_measure`
    says what is unmeasured), so a study's judges and tables read the run as they read aqmlab's.
    The script, its log and its records are kept in the run directory too (``ns2.tcl``,
    ``ns2.log``, ``ns2-results.txt``).
    """
    from aqmlab.result import Result, jsonable
    from aqmlab.runner import build_info
    from aqmlab.scenario import scenario_hash

    near, changes = ns2_approximation(scenario) if approximate else (scenario, [])
    script = ns2_script(near, seed=seed, approximations=changes)
    with tempfile.TemporaryDirectory(prefix="aqmlab-ns2-") as tmp:
        folder = Path(tmp)
        records = run_script(script, folder)
        kept = {name: (folder / name).read_bytes()
                for name in ("ns2.tcl", "ns2.log", RESULTS) if (folder / name).exists()}
    resolved = script.resolved
    rates = {name: rate for name, (_, rate) in directions(resolved).items()}
    measured = seconds(resolved["duration"]) - seconds(resolved["warmup"])
    meta = {"version": __version__, "build": {**build_info(), "referee": f"ns-2 {ns2_version()}",
                                              "writer": writer_digest(),
                                              "approximations": changes},
            "scenario_hash": scenario_hash(resolve(scenario)),
            "wall_s": records.wall_s,
            "events": None, "peak_pkts": None, "peak_connections": None}
    requests = request_rows(records, script.users, seconds(resolved["warmup"]))
    document = jsonable(summary(records, resolved, seed, rates, measured, meta, requests))
    result = Result(document, tables(records, script.flows, resolved, rates, measured, requests))
    return document, {**result.files(), **kept}


class Ns2Executor:
    """Runs a sweep's jobs in ns-2 instead of aqmlab, into a store of its own.

    ``workers`` at a time (threads: each job is an ``ns`` process); the sweep and store machinery
    is aqmlab's. A scenario ns-2 cannot express is stored as a failed run whose error names the
    key.
    """

    def __init__(self, workers: int = 1, *, approximate: bool = False) -> None:
        self.workers = max(1, workers)
        self.approximate = approximate
        self.build_id = (f"ns-2 {ns2_version()} writer {writer_digest()}"
                         + (" approximate" if approximate else ""))
        """What a stored ns-2 run is reused for: ns-2's version and this writer's digest, not
        aqmlab's engine build (``meta.build.id`` of its runs)."""
        self.approximations: set[str] = set()
        """With ``approximate``: every change :func:`ns2_approximation` made to a job run here."""

    def run(self, todo: Sequence[Any], store: Any, build_id: str, done: Any,
            progress: Any) -> None:
        """Run ``todo``; call ``done(i, status, summary, error)`` as each ends."""
        from concurrent.futures import ThreadPoolExecutor

        def one(i: int) -> tuple[int, str, dict[str, Any] | None, str | None]:
            job = todo[i]
            try:
                document, files = run_files(job.scenario, job.seed,
                                            approximate=self.approximate)
            except InputError as err:
                error = str(err)
                store.write(job.scenario_hash, job.seed, {"error.txt": error.encode()},
                            build_id=build_id, status="failed", error=error)
                return i, "failed", None, error
            document["meta"]["build"]["id"] = build_id
            self.approximations.update(document["meta"]["build"].get("approximations", []))
            files["summary.json"] = (json.dumps(document, indent=2) + "\n").encode()
            store.write(job.scenario_hash, job.seed, files, build_id=build_id)
            return i, "ran", document, None

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            for i, status, document, error in pool.map(one, range(len(todo))):
                done(i, status, document, error)
                progress({i: 1.0})
