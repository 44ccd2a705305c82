"""What an ns-2 script measures, and its records read back as aqmlab's measures and tables.

The writer (:mod:`aqmlab.referee.ns2`) appends :data:`MEASURE_TCL` to every script: a
``QueueMonitor/ED`` on each bottleneck direction (RED's early drops through an early-drop target,
sojourn times through delay samples), the queue sampled every ``measure.queue_sample`` and summed
up every ``measure.queue_interval`` as aqmlab's ``queue`` table is, the link's departures every
``measure.link_interval``, each TCP sender's counters at the end of the warm-up and of the run,
each UDP sink's, and the congestion window of traced connections. It writes one record a line
(:data:`RESULTS`); :func:`read_records` reads them, :func:`measures` sums them up for the
cross-check, and :func:`run_files` renders them as an aqmlab run directory (summary and tables in
aqmlab's schema), so the studies' judges read ns-2's runs as they read aqmlab's.

What ns-2 does not measure is written as NaN where the column is a float, and listed in
``meta.referee.unmeasured`` where it is a count (written 0).

Sources: ns-2.35 ``tools/queue-monitor.{h,cc}`` (``QueueMonitor``, ``EDQueueMonitor``: ``pdrops_``
counts every drop, ``epdrops_`` RED's early ones; ``pmarks_`` CE-marked departures; delay samples
stamp arrivals), ``tools/integrator.cc`` (``Samples``), ``tcp/tcp.cc`` (``ack_``, ``ndatapack_``,
``nrexmitpack_``, ``nrexmit_``, traced ``cwnd_``), ``tools/loss-monitor.cc``.

A TCP flow's delivered bytes come from its sender's cumulative ACK: with ns-2's one-way SYN,
sequence number 0 is the SYN, so an ``ack_`` going from −1 to 499 is 499 data packets:

>>> flow = FlowInfo(0, "bulk", 0, "tcp", "c0", "s0", "server", mss=1000, syn=True)
>>> _delivered(Records(agents={("c", "w", 0): [-1.0], ("c", "e", 0): [499.0]}), flow)
499000.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aqmlab.calibrate import parse_rate
from aqmlab.errors import StoreError
from aqmlab.referee.measures import FlowMeasure, LinkMeasure, Measures

RESULTS = "ns2-results.txt"
"""The file a script writes its records to, in its own folder."""

MEASURE_TEMPLATE = r"""
# ---- measurement (aqmlab.referee.ns2_measure): records, one a line, in RESULTS
proc monitor {link edrop} {
    global ns
    # A flow monitor is a QueueMonitor/ED that also counts per flow id (a connection's data and
    # ACKs share its fid_).
    set qm [$ns makeflowmon Fid]
    $link attach-monitors [new SnoopQueue/In] [new SnoopQueue/Out] [new SnoopQueue/Drop] $qm
    $qm set-delay-samples [new Samples]
    if {$edrop} {
        set ed [new SnoopQueue/EDrop]
        $ed set-monitor $qm
        [$link queue] early-drop-target $ed
        $ed target [$ns set nullAgent_]
    }
    return $qm
}
@MONITORS@
set out [open RESULTS w]
set counters {parrivals_ pdepartures_ pdrops_ epdrops_ pmarks_ bdrops_ ebdrops_}
lappend counters barrivals_ bdepartures_
# A counter's growth since an earlier reading. ns-2's QueueMonitor counts in C ints, which wrap
# past 2^31 - 1: a 10 Mbps link passes that many bytes in about 29 minutes. Growth is never
# negative, so modulo 2^32 it is the true one while an interval moves less than 4 GiB.
proc grown {now then} {
    set d [expr {$now - $then}]
    if {$d < 0} { set d [expr {$d + 4294967296}] }
    return $d
}
proc snapshot {tag} {
    global qm counters last
    foreach d @DIRECTIONS@ {
        foreach v $counters { set last($tag,$d,$v) [$qm($d) set $v] }
    }
}
proc zero {d} {
    global iv
    foreach k {n sp ssp sb ssb rs rn} { set iv($d,$k) 0 }
    foreach k {minp maxp minb maxb} { set iv($d,$k) -1 }
}
proc sample {k} {
    global ns qm iv red warmup sample_s duration
    foreach d @DIRECTIONS@ {
        set p [$qm($d) set pkts_]
        set b [$qm($d) set size_]
        incr iv($d,n)
        set iv($d,sp) [expr {$iv($d,sp) + $p}]
        set iv($d,ssp) [expr {$iv($d,ssp) + double($p) * $p}]
        set iv($d,sb) [expr {$iv($d,sb) + $b}]
        set iv($d,ssb) [expr {$iv($d,ssb) + double($b) * $b}]
        if {$iv($d,minp) < 0 || $p < $iv($d,minp)} { set iv($d,minp) $p }
        if {$p > $iv($d,maxp)} { set iv($d,maxp) $p }
        if {$iv($d,minb) < 0 || $b < $iv($d,minb)} { set iv($d,minb) $b }
        if {$b > $iv($d,maxb)} { set iv($d,maxb) $b }
        if {$red($d)} {
            set iv($d,rs) [expr {$iv($d,rs) + [[$qm(q,$d) queue] set ave_]}]
            incr iv($d,rn)
        }
    }
    set next [expr {$warmup + ($k + 1) * $sample_s}]
    if {$next < $duration} { $ns at $next "sample [expr {$k + 1}]" }
}
# interval_end k and link_end k close interval k (1, 2, …), which began at warmup + (k - 1) · its
# length: its row carries that start time, as aqmlab's tables do.
proc interval_end {k} {
    global ns qm iv red warmup queue_iv duration out counters last
    set t [expr {$warmup + ($k - 1) * $queue_iv}]
    snapshot now
    foreach d @DIRECTIONS@ {
        set samp [$qm($d) get-delay-samples]
        set sn [$samp cnt]
        set sm nan
        if {$sn > 0} { set sm [$samp mean] }
        $samp reset
        set maxp nan
        if {$red($d)} { set maxp [[$qm(q,$d) queue] set cur_max_p_] }
        set line "q $t $d $iv($d,n) $iv($d,sp) $iv($d,ssp) $iv($d,minp) $iv($d,maxp)"
        append line " $iv($d,sb) $iv($d,ssb) $iv($d,minb) $iv($d,maxb) $iv($d,rs) $iv($d,rn) $maxp"
        foreach v $counters { append line " [grown $last(now,$d,$v) $last(iv,$d,$v)]" }
        puts $out "$line $sn $sm"
        zero $d
    }
    foreach d @DIRECTIONS@ { foreach v $counters { set last(iv,$d,$v) $last(now,$d,$v) } }
    set next [expr {$warmup + ($k + 1) * $queue_iv}]
    if {$next < $duration} { $ns at $next "interval_end [expr {$k + 1}]" }
}
proc link_end {k} {
    global ns qm warmup link_iv duration out lastl
    set t [expr {$warmup + ($k - 1) * $link_iv}]
    foreach d @DIRECTIONS@ {
        set b [$qm($d) set bdepartures_]
        set p [$qm($d) set pdepartures_]
        puts $out "l $t $d [grown $b $lastl($d,b)] [grown $p $lastl($d,p)]"
        set lastl($d,b) $b
        set lastl($d,p) $p
    }
    set next [expr {$warmup + ($k + 1) * $link_iv}]
    if {$next < $duration} { $ns at $next "link_end [expr {$k + 1}]" }
}
# Time a flow's application had data to deliver (xfer: transfers ended, xsince: when the one under
# way began, -1 when none is): an FTP from its start to its `done`, each web-session transfer from
# its `advanceby` to its `done`. Flows without (telnet) record nan.
proc xfer_begin {f} {
    global ns xsince
    set xsince($f) [$ns now]
}
proc xfer_end {f} {
    global ns xfer xsince
    if {$xsince($f) >= 0} { set xfer($f) [expr {$xfer($f) + [$ns now] - $xsince($f)}] }
    set xsince($f) -1
}
proc transferred {f} {
    global ns xfer xsince
    if {![info exists xfer($f)]} { return nan }
    if {$xsince($f) < 0} { return $xfer($f) }
    return [expr {$xfer($f) + [$ns now] - $xsince($f)}]
}
proc agents {tag} {
    global tcps udps tcp lm out
    foreach f $tcps {
        set c [list c $tag $f [$tcp($f) set ack_] [$tcp($f) set ndatapack_]]
        lappend c [$tcp($f) set nrexmitpack_] [$tcp($f) set nrexmit_] [$tcp($f) set cwnd_]
        lappend c [transferred $f]
        puts $out [join $c]
        puts $out "a $f [$tcp($f) set agent_addr_] [$tcp($f) set agent_port_]"
    }
    foreach f $udps {
        puts $out "u $tag $f [$lm($f) set bytes_] [$lm($f) set npkts_] [$lm($f) set nlost_]"
    }
    global qm
    foreach d @DIRECTIONS@ {
        foreach fl [$qm($d) flows] { puts $out "d $tag [$fl set flowid_] [$fl set pdrops_]" }
    }
}
proc start_measuring {} {
    global qm counters last lastl iv
    snapshot iv
    snapshot w
    foreach d @DIRECTIONS@ {
        zero $d
        set lastl($d,b) [$qm($d) set bdepartures_]
        set lastl($d,p) [$qm($d) set pdepartures_]
        [$qm($d) get-delay-samples] reset
    }
    agents w
    sample 0
}
proc finish {} {
    global ns out queue_iv link_iv warmup duration
    # The last, partial intervals end with the run.
    set kq [expr {int(ceil(($duration - $warmup) / $queue_iv - 1e-9))}]
    interval_end $kq
    set kl [expr {int(ceil(($duration - $warmup) / $link_iv - 1e-9))}]
    link_end $kl
    agents e
    puts $out "end [$ns now]"
    close $out
    exit 0
}
@QUEUE_LINKS@
$ns at $warmup start_measuring
if {$warmup + $queue_iv < $duration} { $ns at [expr {$warmup + $queue_iv}] "interval_end 1" }
if {$warmup + $link_iv < $duration} { $ns at [expr {$warmup + $link_iv}] "link_end 1" }
$ns at $duration finish
$ns run
""".replace("RESULTS", RESULTS)
"""The measurement part of every script, for the logged link directions :func:`measure_tcl`
writes in. It expects ``$ns``, the logged links, ``red(D)`` per direction ``D`` (1 for a RED
queue), ``tcps``, ``udps``, ``tcp()``, ``lm()``, and ``warmup``, ``duration``, ``sample_s``,
``queue_iv``, ``link_iv`` (seconds)."""


def measure_tcl(directions: Sequence[tuple[str, str]]) -> str:
    """Return the measurement Tcl for the logged link directions: (name, Tcl link) each.

    The dumbbell's are ``forward`` (``$fwd``) and ``reverse`` (``$rev``), each logged one of a
    network of nodes and links its name (``$link(r0-r1)``): the records' ``q`` and ``l`` lines
    carry that name.

    >>> tcl = measure_tcl([("r0-r1", "$link(r0-r1)")])
    >>> "set qm(r0-r1) [monitor $link(r0-r1) $red(r0-r1)]" in tcl, "foreach d {r0-r1}" in tcl
    (True, True)
    """
    names = [name for name, _ in directions]
    return (MEASURE_TEMPLATE
            .replace("@MONITORS@", "\n".join(f"set qm({d}) [monitor {link} $red({d})]"
                                             for d, link in directions))
            .replace("@QUEUE_LINKS@", "\n".join(f"set qm(q,{d}) {link}" for d, link in directions))
            .replace("@DIRECTIONS@", "{" + " ".join(names) + "}"))  # fmt: skip


MEASURE_TCL = measure_tcl([("forward", "$fwd"), ("reverse", "$rev")])
"""The measurement Tcl of the dumbbell, whose logged directions are its bottleneck's."""


@dataclass
class FlowInfo:
    """What the writer knows of one flow, for the tables.

    Its number, group, index in the group, kind (``tcp`` / ``udp``), hosts, sending side, packet
    size, TCP profile and variant (the UDP kind for UDP flows), start time, whether its window
    is traced, and whether it opens with ns-2's one-way SYN (then sequence number 0 is the SYN).
    """

    flow: int
    group: str
    index: int
    kind: str
    client: str
    server: str
    sender: str
    mss: int = 0
    profile: str = ""
    variant: str = ""
    start_s: float = math.nan
    traced: bool = False
    syn: bool = False


@dataclass
class WebUser:
    """A ``web-pool`` or ``web-mah`` user of the script.

    Its number (across all web groups), group, host, the host it asks (``web-mah``: none, it
    changes), and its request size (``web-mah``: drawn per object, 0 here).
    """

    user: int
    group: str
    host: str
    peer: str
    request_bytes: int


@dataclass
class Records:
    """An ns-2 run's records, as read from :data:`RESULTS`."""

    queue: list[list[str]] = field(default_factory=list)
    link: list[list[str]] = field(default_factory=list)
    agents: dict[tuple[str, str, int], list[float]] = field(default_factory=dict)
    cwnd: list[tuple[float, int, float]] = field(default_factory=list)
    flow_drops: dict[tuple[str, int], float] = field(default_factory=dict)
    web_sent: dict[int, list[float]] = field(default_factory=dict)
    web_replies: dict[int, list[tuple[float, int]]] = field(default_factory=dict)
    objects: dict[tuple[int, int, int], list[float]] = field(default_factory=dict)
    """``web-mah`` objects by (user, page, object): start, request and reply bytes, server, and
    the end time once done."""
    end_s: float = math.nan
    wall_s: float = math.nan


CWND_TRACE = "ns2-cwnd.txt"
"""The file traced connections' ``cwnd_`` changes go to (ns-2's trace lines)."""


def read_records(path: Path) -> Records:
    """Read a script's records, and the traced windows from :data:`CWND_TRACE` beside them."""
    records = Records()
    addresses: dict[tuple[int, int], int] = {}
    for line in path.read_text().splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "q":
            records.queue.append(w[1:])
        elif w[0] == "l":
            records.link.append(w[1:])
        elif w[0] in ("c", "u"):
            records.agents[(w[0], w[1], int(w[2]))] = [float(x) for x in w[3:]]
        elif w[0] == "w":
            records.web_sent.setdefault(int(w[1]), []).append(float(w[2]))
        elif w[0] == "r":
            records.web_replies.setdefault(int(w[1]), []).append((float(w[2]), int(w[3])))
        elif w[0] == "o":
            records.objects[(int(w[1]), int(w[2]), int(w[3]))] = [float(x) for x in w[4:8]]
        elif w[0] == "O":
            records.objects[(int(w[1]), int(w[2]), int(w[3]))].append(float(w[4]))
        elif w[0] == "d":
            key = (w[1], int(w[2]))
            records.flow_drops[key] = records.flow_drops.get(key, 0.0) + float(w[3])
        elif w[0] == "a":
            addresses[(int(w[2]), int(w[3]))] = int(w[1])
        elif w[0] == "end":
            records.end_s = float(w[1])
    if math.isnan(records.end_s):
        raise StoreError(str(path), "ns-2's records end early (no end record): the run stopped")
    cwnd_trace = path.parent / CWND_TRACE
    if cwnd_trace.exists():
        for line in cwnd_trace.read_text().splitlines():
            w = line.split()
            if len(w) == 7 and w[5] == "cwnd_":
                flow = addresses.get((int(w[1]), int(w[2])))
                if flow is not None:
                    records.cwnd.append((float(w[0]), flow, float(w[6])))
    return records


_Q_FIELDS = ("t", "dir", "n", "sp", "ssp", "minp", "maxp", "sb", "ssb", "minb", "maxb", "rs", "rn",
             "max_p", "arrivals", "departures", "drops", "edrops", "marks", "bdrops", "ebdrops",
             "barrivals", "bdepartures", "sn", "sm")


def _queue_rows(records: Records) -> list[dict[str, Any]]:
    rows = []
    for w in records.queue:
        r = dict(zip(_Q_FIELDS, w, strict=True))
        rows.append({k: (v if k == "dir" else float(v)) for k, v in r.items()})
    return rows


def directions(resolved: Mapping[str, Any]) -> dict[str, tuple[Mapping[str, Any], float]]:
    """Return the logged link directions of a resolved scenario: name → (queue, rate in bit/s).

    The dumbbell's are its bottleneck's ``forward`` and ``reverse``; a network of nodes and
    links logs both directions of each link with ``measure = true``, in link order.

    >>> link = {"name": "r0-r1", "reverse_name": "r1-r0", "rate": "10Mbps",
    ...         "reverse_rate": "5Mbps", "queue": {"kind": "red"},
    ...         "reverse_queue": {"kind": "droptail"}, "measure": True}
    >>> {k: (q["kind"], r) for k, (q, r) in directions({"link": [link]}).items()}
    {'r0-r1': ('red', 10000000.0), 'r1-r0': ('droptail', 5000000.0)}
    """
    if "link" not in resolved:
        rate = parse_rate(resolved["topology"]["bottleneck"]["rate"])
        return {"forward": (resolved["queue"], rate), "reverse": (resolved["reverse_queue"], rate)}
    out: dict[str, tuple[Mapping[str, Any], float]] = {}
    for link in resolved["link"]:
        if link["measure"]:
            out[link["name"]] = (link["queue"], parse_rate(link["rate"]))
            out[link["reverse_name"]] = (link["reverse_queue"], parse_rate(link["reverse_rate"]))
    return out


def measures(records: Records, flows: Sequence[FlowInfo], measured_s: float,
             links: Sequence[str] = ()) -> Measures:
    """Sum a run's records up as the cross-check's :class:`Measures`.

    ``links``: a network of nodes and links' logged directions, each measured on its own; it has
    no forward bottleneck (its counts are 0, ``bottleneck`` false). None on the dumbbell.
    """
    rows = _queue_rows(records)
    per_link = {}
    for name in links:
        mine = [r for r in rows if r["dir"] == name]
        n = sum(r["n"] for r in mine)
        per_link[name] = LinkMeasure(int(sum(r["arrivals"] for r in mine)),
                                     int(sum(r["drops"] for r in mine)),
                                     sum(r["sp"] for r in mine) / n if n else 0.0)  # fmt: skip
    fwd = [] if links else [r for r in rows if r["dir"] == "forward"]
    rev = [r for r in rows if r["dir"] == "reverse"]
    total = {k: sum(r[k] for r in fwd) for k in ("arrivals", "drops", "edrops", "marks")}
    samples = sum(r["n"] for r in fwd)
    red_n = sum(r["rn"] for r in fwd)
    return Measures(
        simulator="ns-2",
        measured_s=measured_s,
        arrivals_pkts=int(total["arrivals"]),
        drops_pkts=int(total["drops"]),
        early_drops_pkts=None if links else int(total["edrops"]),
        other_drops_pkts=None if links else int(total["drops"] - total["edrops"]),
        marks_pkts=int(total["marks"]),
        mean_queue_pkts=sum(r["sp"] for r in fwd) / samples if samples else 0.0,
        mean_queue_bytes=None if links else sum(r["sb"] for r in fwd) / samples if samples
        else 0.0,
        red_avg=sum(r["rs"] for r in fwd) / red_n if red_n else None,
        reverse_drops_pkts=None if links else int(sum(r["drops"] for r in rev)),
        flows=[FlowMeasure(f.flow, f.group, f.kind, 8 * _delivered(records, f) / measured_s)
               for f in flows],
        bottleneck=not links,
        links=per_link,
    )


def _delivered(records: Records, flow: FlowInfo) -> float:
    """Return the bytes a flow delivered over the measured window.

    A TCP sender's cumulative ACK growth times its packet size: ``ack_`` is the highest
    sequence number acknowledged, −1 before the first ACK, and with ``syn_`` sequence number 0
    is the SYN. A UDP sink's bytes.
    """
    if flow.kind == "tcp":
        floor = 0.0 if flow.syn else -1.0
        before = records.agents[("c", "w", flow.flow)][0]
        after = records.agents[("c", "e", flow.flow)][0]
        return (max(after, floor) - max(before, floor)) * flow.mss
    return records.agents[("u", "e", flow.flow)][0] - records.agents[("u", "w", flow.flow)][0]


def _nan(x: float) -> float:
    return x if math.isfinite(x) else math.nan


def request_rows(records: Records, users: Sequence[WebUser],
                 warmup_s: float) -> list[dict[str, Any]]:
    """Return the ``requests`` table's rows: each web user's requests sent after the warm-up.

    An ns-2 ``Http`` client has one request outstanding at a time, so its replies answer its
    requests in order. Rows come in the order they finished, those unanswered at the end last.
    What the records do not say (retransmissions per request, timeouts) is 0.

    >>> r = Records(web_sent={0: [1.0, 5.0, 9.0]}, web_replies={0: [(1.5, 900), (5.2, 900)]})
    >>> rows = request_rows(r, [WebUser(0, "www", "c0", "s0", 43)], 2.0)
    >>> [(x["start_s"], x["response_s"], x["completed"]) for x in rows]
    [(5.0, 0.20000000000000018, True), (9.0, nan, False)]

    ``client`` is the host that asked, on either side (``users_on = "servers"``), as in aqmlab:

    >>> left = request_rows(r, [WebUser(0, "w", "s1", "c1", 43)], 2.0)
    >>> [(x["client"], x["server"]) for x in left]
    [('s1', 'c1'), ('s1', 'c1')]
    """
    done: list[dict[str, Any]] = []
    open_: list[dict[str, Any]] = []
    for user in users:
        replies = records.web_replies.get(user.user, [])
        for page, start in enumerate(records.web_sent.get(user.user, []), start=1):
            end, size = replies[page - 1] if page <= len(replies) else (math.nan, 0)
            if start < warmup_s:
                continue
            # As aqmlab's table: `client` the requesting host, `server` the replying one.
            row = {"group": user.group, "user": user.user, "client": user.host,
                   "server": user.peer,
                   "page": page, "object": 0, "start_s": start, "end_s": end,
                   "response_s": end - start, "request_bytes": user.request_bytes,
                   "reply_bytes": size, "completed": not math.isnan(end), "failed": False,
                   "syn_rexmits": 0, "fin_rexmits": 0, "data_rexmits": 0, "timeouts": 0}
            (done if row["completed"] else open_).append(row)
    by_number = {user.user: user for user in users}
    for (number, page, obj), values in records.objects.items():
        start, request, reply, server = values[:4]
        if start < warmup_s:
            continue
        end = values[4] if len(values) > 4 else math.nan
        user = by_number[number]
        row = {"group": user.group, "user": number, "client": user.host,
               "server": f"s{int(server)}", "page": page, "object": obj, "start_s": start,
               "end_s": end, "response_s": end - start, "request_bytes": int(request),
               "reply_bytes": int(reply), "completed": not math.isnan(end), "failed": False,
               "syn_rexmits": 0, "fin_rexmits": 0, "data_rexmits": 0, "timeouts": 0}
        (done if row["completed"] else open_).append(row)
    return sorted(done, key=lambda r: r["end_s"]) + open_


def requests_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Return ``summary.json``'s ``requests`` section of ``rows`` (nearest-rank quantiles).

    >>> requests_summary([{"completed": True, "response_s": x} for x in (1.0, 2.0, 4.0)])["p90_s"]
    4.0
    """
    times = sorted(r["response_s"] for r in rows if r["completed"])
    out: dict[str, Any] = {"count": len(rows), "completed": len(times), "failed": 0,
                           "unfinished": len(rows) - len(times),
                           "mean_s": sum(times) / len(times) if times else None}  # fmt: skip
    for name, q in (("median_s", 0.5), ("p10_s", 0.1), ("p25_s", 0.25), ("p75_s", 0.75),
                    ("p90_s", 0.9), ("p95_s", 0.95), ("p99_s", 0.99)):
        out[name] = times[max(math.ceil(q * len(times)) - 1, 0)] if times else None
    return out


def tables(records: Records, flows: Sequence[FlowInfo], resolved: Mapping[str, Any],
           rates: Mapping[str, float], measured_s: float,
           requests: Sequence[Mapping[str, Any]] = ()) -> dict[str, dict[str, list[Any]]]:
    """Render the records as aqmlab's tables.

    ``queue``, ``link``, ``connections``, ``flows``, ``tcp_trace`` and ``requests``, each column →
    values in the engine's schema's order.
    """
    from aqmlab.result import schema

    cols = {t: [c["name"] for c in cs] for t, cs in schema().items()}
    out: dict[str, dict[str, list[Any]]] = {t: {c: [] for c in names} for t, names in cols.items()}
    # ns-2 tells early drops from the rest; the rest (RED's forced region, the limit) are the
    # forced ones, but a uniform dropper's are its random choices.
    chooses = {d: q["kind"] == "bernoulli" for d, (q, _) in directions(resolved).items()}
    for r in _queue_rows(records):
        n = r["n"]
        mean_p = r["sp"] / n if n else math.nan
        mean_b = r["sb"] / n if n else math.nan
        row = {
            "t_s": r["t"], "direction": r["dir"], "samples": int(n), "mean_pkts": mean_p,
            "var_pkts": max(r["ssp"] / n - mean_p**2, 0.0) if n else math.nan,
            "min_pkts": int(max(r["minp"], 0)), "max_pkts": int(max(r["maxp"], 0)),
            "mean_bytes": mean_b,
            "var_bytes": max(r["ssb"] / n - mean_b**2, 0.0) if n else math.nan,
            "min_bytes": int(max(r["minb"], 0)), "max_bytes": int(max(r["maxb"], 0)),
            "red_avg": r["rs"] / r["rn"] if r["rn"] else math.nan,
            "red_max_p": _nan(r["max_p"]),
            "arrivals_pkts": int(r["arrivals"]), "drops_pkts": int(r["drops"]),
            "forced_drops_pkts": 0 if chooses[r["dir"]] else int(r["drops"] - r["edrops"]),
            "drops_bytes": int(r["bdrops"]), "marks_pkts": int(r["marks"]), "marks_bytes": 0,
            "departures_pkts": int(r["departures"]), "mean_sojourn_s": _nan(r["sm"]),
            "max_sojourn_s": math.nan, "codel_dropping": math.nan, "pie_prob": math.nan,
        }  # fmt: skip
        for c in cols["queue"]:
            out["queue"][c].append(row[c])
    link_iv = _seconds(resolved["measure"]["link_interval"])
    for t, d, b, p in records.link:
        bits = 8 * float(b)
        for c, v in zip(cols["link"], (float(t), d, int(float(b)), int(float(p)), bits / link_iv,
                                       bits / link_iv / rates[d]), strict=True):
            out["link"][c].append(v)
    conn = 0
    for f in flows:
        drops = int(records.flow_drops.get(("e", f.flow), 0.0)
                    - records.flow_drops.get(("w", f.flow), 0.0))
        if f.kind == "tcp":
            after = records.agents[("c", "e", f.flow)]
            # The measured window's counts: ndatapack_, nrexmitpack_, nrexmit_ from warm-up on.
            window = [a - b for a, b in zip(after, records.agents[("c", "w", f.flow)], strict=True)]
            delivered = _delivered(records, f)
            transfer = window[5]
            row = {
                "conn": conn, "group": f.group, "index": f.index, "client": f.client,
                "server": f.server, "sender": f.sender, "profile": f.profile,
                "variant": f.variant, "start_s": f.start_s, "established_s": math.nan,
                "end_s": math.nan, "outcome": "open", "bytes": int(delivered),
                "bytes_whole_run": int((max(after[0], 0.0 if f.syn else -1.0)
                                        + (0 if f.syn else 1)) * f.mss),
                "goodput_bps": 8 * delivered / measured_s, "transfer_s": transfer,
                "transfer_goodput_bps": 8 * delivered / transfer if transfer > 0 else math.nan,
                "data_segs": int(window[1]),
                "data_rexmits": int(window[2]), "syn_rexmits": 0, "fin_rexmits": 0,
                "timeouts": int(window[3]), "fast_rexmits": 0, "ecn_reductions": 0,
                "recoveries": 0, "mean_recovery_s": math.nan, "mean_t0_s": math.nan,
                "sent_pkts": int(window[1]), "dropped_pkts": drops, "srtt_s": math.nan,
                "cwnd_bytes": after[4] * f.mss,
            }  # fmt: skip
            for c in cols["connections"]:
                out["connections"][c].append(row[c])
            conn += 1
        else:
            w, e = records.agents[("u", "w", f.flow)], records.agents[("u", "e", f.flow)]
            recv, pkts, lost = e[0] - w[0], e[1] - w[1], e[2] - w[2]
            src, dst = (f.server, f.client) if f.sender == "server" else (f.client, f.server)
            row = {
                "flow": f.flow, "group": f.group, "index": f.index, "kind": f.variant,
                "src": src, "dst": dst, "sent_pkts": 0, "sent_bytes": 0,
                "recv_pkts": int(pkts), "recv_bytes": int(recv), "lost_pkts": int(lost),
                "dropped_pkts": drops, "loss_rate": lost / (pkts + lost) if pkts + lost else 0.0,
                "mean_delay_s": math.nan, "throughput_bps": 8 * recv / measured_s,
            }  # fmt: skip
            for c in cols["flows"]:
                out["flows"][c].append(row[c])
    for request in requests:
        for c in cols["requests"]:
            out["requests"][c].append(request[c])
    conn_of = {f.flow: i for i, f in enumerate(x for x in flows if x.kind == "tcp")}
    mss_of = {f.flow: f.mss for f in flows}
    for at, flow, cwnd in records.cwnd:
        for c, v in zip(cols["tcp_trace"], (at, conn_of[flow], cwnd * mss_of[flow], math.nan,
                                            math.nan, math.nan), strict=True):
            out["tcp_trace"][c].append(v)
    return out


UNMEASURED = [
    "queue.marks_bytes", "queue.max_sojourn_s", "connections.established_s",
    "connections.syn_rexmits", "connections.fast_rexmits", "connections.ecn_reductions",
    "connections.recoveries", "requests.syn_rexmits", "requests.fin_rexmits",
    "requests.data_rexmits", "requests.timeouts", "flows.sent_pkts", "flows.sent_bytes",
    "flows.mean_delay_s", "tcp_trace.ssthresh_bytes", "tcp_trace.srtt_s", "tcp_trace.rto_s",
    "summary.*.marks_bytes", "summary.*.backlog_*",
]  # fmt: skip
"""What an ns-2 run directory leaves unmeasured (counts written 0, floats NaN)."""


def _seconds(text: Any) -> float:
    from aqmlab.sweeps import seconds

    return seconds(text)


def summary(records: Records, resolved: Mapping[str, Any], seed: int, rates: Mapping[str, float],
            measured_s: float, meta: Mapping[str, Any],
            requests: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """Return the run's ``summary.json`` in aqmlab's layout, from ns-2's records."""
    reasons = ("codel", "early", "forced", "overflow", "pie", "random", "scripted")
    blocks = {}
    rows = _queue_rows(records)
    for d, (queue, _) in directions(resolved).items():
        mine = [r for r in rows if r["dir"] == d]
        tot = {k: sum(r[k] for r in mine) for k in ("arrivals", "departures", "drops", "edrops",
                                                    "marks", "bdrops", "ebdrops", "bdepartures",
                                                    "sn", "n", "sp", "sb")}  # fmt: skip
        kind = queue["kind"]
        other = "random" if kind == "bernoulli" else "forced" if kind == "red" else "overflow"
        drops = dict.fromkeys(reasons, 0)
        drops["early"] = int(tot["edrops"])
        drops[other] += int(tot["drops"] - tot["edrops"])
        drops_b = dict.fromkeys(reasons, 0)
        drops_b["early"] = int(tot["ebdrops"])
        drops_b[other] += int(tot["bdrops"] - tot["ebdrops"])
        marks = dict.fromkeys(reasons, 0)
        marks["early" if kind == "red" else "random"] = int(tot["marks"])
        sojourn = sum(r["sm"] * r["sn"] for r in mine if r["sn"] > 0)
        throughput = 8 * tot["bdepartures"] / measured_s
        blocks[d] = {
            "rate_bps": rates[d], "throughput_bps": throughput,
            "utilization": throughput / rates[d], "wire_utilization": throughput / rates[d],
            "arrivals_pkts": int(tot["arrivals"]), "departures_pkts": int(tot["departures"]),
            "backlog_start_pkts": 0, "backlog_end_pkts": 0,
            "drops_pkts": int(tot["drops"]), "drops_pkts_by_reason": drops,
            "marks_pkts": int(tot["marks"]), "marks_pkts_by_reason": marks,
            "drops_bytes": int(tot["bdrops"]), "drops_bytes_by_reason": drops_b,
            "marks_bytes": 0, "marks_bytes_by_reason": dict.fromkeys(reasons, 0),
            "drop_rate": tot["drops"] / tot["arrivals"] if tot["arrivals"] else 0.0,
            "mean_queue_pkts": tot["sp"] / tot["n"] if tot["n"] else 0.0,
            "mean_queue_bytes": tot["sb"] / tot["n"] if tot["n"] else 0.0,
            "mean_queue_delay_s": sojourn / tot["sn"] if tot["sn"] else 0.0,
        }  # fmt: skip
    return {
        "meta": {**meta, "seed": seed, "scenario": dict(resolved), "duration_s": records.end_s,
                 "measured_s": measured_s,
                 "referee": {"simulator": "ns-2.35", "unmeasured": UNMEASURED}},
        "warnings": [],
        **blocks,
        "requests": requests_summary(requests),
        "checks": {"counter_identities": None, "violations": []},
    }
