"""aqmlab scenarios built again in ns-3: the bench's references timed beside it, networks checked.

:func:`ns3_dumbbell` maps a resolved aqmlab scenario (a dumbbell of bulk TCP and constant-rate
UDP flows over a drop-tail, RED, CoDel, FQ-CoDel or PIE bottleneck) to an
:class:`Ns3Dumbbell`, and :func:`ns3_network` any topology (a dumbbell through
:func:`ns3_dumbbell`; a parking lot or a network of nodes and links from aqmlab's expansion) to
an :class:`Ns3Network`: plain data, the ns-3 attribute values and routes the builder passes,
checked by tests without ns-3. :func:`run_in_child` runs the builder in a child process of its
own (``python -m aqmlab.bench.ns3_run``, the network as JSON on stdin), timed from outside like
aqmlab's own child, and returns an :class:`Ns3Row`: the whole-process time, the time of
``Simulator::Run`` alone, and what the run did (goodput, each logged link's drops and mean queue,
each flow's goodput) to set beside aqmlab's (:func:`measure_ns3` for a reference). ns-3
comes from the ``ns3`` package on PyPI (its cppyy bindings; ``pip install 'aqmlab[ns3]'``);
:func:`available` says whether it is installed, without importing it (the import takes ten
seconds or more).

How each setting maps, and what differs between the two models, is in ``docs/performance.md``
("aqmlab beside ns-3"). Sources: ns-3.44 attribute documentation and sources
(``src/traffic-control/model/red-queue-disc.cc``, ``src/internet/model/tcp-socket-base.cc``,
``tcp-socket.cc``, ``tcp-l4-protocol.cc``, ``src/applications/model/bulk-send-application.cc``).

>>> dumbbell = ns3_dumbbell(load_reference(references()["tcp-100-newreno-red"]))
>>> dumbbell.bottleneck_queue.type_id, dumbbell.bottleneck_queue.attributes["LInterm"]
('ns3::RedQueueDisc', '10')
>>> len(dumbbell.flows), dumbbell.defaults["ns3::TcpSocket::SegmentSize"]
(100, '1000')
"""

from __future__ import annotations

import importlib.util
import json
import random
import statistics
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from aqmlab.bench import BenchRow, load_reference, references, run_timed, shortened
from aqmlab.bench.ns3_run import (
    UDP_IP_HEADERS,
    Cbr,
    Direction,
    Flow,
    Link,
    LinkCount,
    Ns3Dumbbell,
    Ns3Network,
    Ns3Row,
    QueueDisc,
)
from aqmlab.calibrate import parse_rate
from aqmlab.errors import ScenarioError
from aqmlab.scenario import ScenarioLike, group_tcp, next_hops, resolve
from aqmlab.sweeps import seconds
from aqmlab.units import size_bytes

REFERENCES = ("tcp-10-newreno", "tcp-100-newreno", "tcp-100-newreno-red")
"""The references ``aqmlab bench`` also runs in ns-3 when it is installed and they are selected
(tcp-1000-newreno and tcp-10000-newreno map as well, but would take ns-3 many minutes)."""

PPP_FRAMING = {"overhead": "2B", "min_payload": "0B"}
"""ns-3's point-to-point links put a 2-byte PPP header on every packet: the one framing besides
``"none"`` the twin takes, with which both wires carry the same bytes (``"none"`` leaves the
2 bytes a known difference)."""

START_SEED = 1
"""Seed of the ns-3 flows' start times in the bench (drawn here, in Python, from the scenario's
distribution: aqmlab's own draws come from its engine's streams and are not the same numbers);
the cross-check draws them from each seed instead (``start_seed``)."""


def _unsupported(path: str, what: str) -> ScenarioError:
    why = ("the ns-3 twin builds only networks of point-to-point links carrying bulk TCP and "
           "constant-rate UDP (cbr) flows through drop-tail, RED, CoDel, FQ-CoDel or PIE queues")
    return ScenarioError(path, f"{what}: {why}")


def _expect(table: Mapping[str, Any], path: str, allowed: tuple[Any, ...], at: str = "") -> Any:
    """Return the value at dotted ``path`` of ``table`` (itself at ``at``), if ns-3 can build it."""
    value: Any = table
    for key in path.split("."):
        value = value[key]
    if value not in allowed:
        where = f"{at}.{path}" if at else path
        raise _unsupported(where, f"{value!r} has no ns-3 counterpart here")
    return value


def _packets(limit: Any, path: str) -> str:
    """Return a queue limit in packets as ns-3 text (``"100p"``).

    >>> _packets("100p", "queue.limit")
    '100p'
    """
    if isinstance(limit, int):  # CoDel's, PIE's and FQ-CoDel's limits, as resolved: packets
        return f"{limit}p"
    if not str(limit).endswith("p"):
        raise _unsupported(path, f'"{limit}" (limits in bytes are not mapped)')
    return f"{int(limit[:-1])}p"


MTU_BYTES = 1514
"""aqmlab's CoDel, PIE and FQ-CoDel MTU (Linux ``psched_mtu()``: 1500 + 14 B of Ethernet header),
given to ns-3 where it has a counterpart (CoDel's ``MinBytes``, PIE's ``MeanPktSize``)."""


def _queue_disc(queue: Mapping[str, Any], path: str) -> QueueDisc:
    """Map a resolved aqmlab queue to ns-3's queue disc with the same parameters.

    RED (without Adaptive RED or ECN): ns-3's ``RedQueueDisc`` with the same thresholds, weight,
    ``max_p`` (as ``LInterm`` = 1 / max_p), gentle mode, mean packet size and link bandwidth for
    the idle-time estimate, ns-2's "wait" count rule, and drops (no ECN) above ``max_th``
    (``UseHardDrop``). CoDel, PIE and FQ-CoDel (aqmlab follows Linux): ns-3's ``CoDelQueueDisc``,
    ``PieQueueDisc`` and ``FqCoDelQueueDisc`` with the same limit, target, interval or update
    period and gains, and ECN; where ns-3's default differs from Linux's, the attribute is set to
    Linux's (PIE's de-randomization, the MTU of the "at most one MTU queued" rules). What cannot be
    set is listed in docs/aqm-validation.md ("Against ns-3").

    >>> codel = {"kind": "codel", "limit": 1000, "target": "5ms", "interval": "100ms", "ecn": False}
    >>> _queue_disc(codel, "queue").attributes["MinBytes"]
    '1514'
    """
    kind = queue["kind"]
    if kind not in ("droptail", "red", "codel", "pie", "fq_codel"):
        raise _unsupported(f"{path}.kind", f'"{kind}"')
    limit = _packets(queue["limit"], f"{path}.limit")
    if kind == "droptail":
        return QueueDisc("ns3::FifoQueueDisc", {"MaxSize": limit})
    if kind in ("codel", "fq_codel", "pie"):
        return _modern_queue_disc(queue, limit, path)
    for key, allowed in (("adaptive", (False,)), ("ecn", (False,)), ("queue_in_bytes", (False,)),
                         ("prob_in_bytes", (False,)), ("count", ("ns2-wait", "ns2-nowait")),
                         ("idle", ("ns2",)), ("victim", ("arrival",))):  # fmt: skip
        _expect(queue, key, allowed, path)
    return QueueDisc("ns3::RedQueueDisc", {
        "MaxSize": limit,
        "MinTh": repr(float(queue["min_th"])),
        "MaxTh": repr(float(queue["max_th"])),
        "QW": repr(float(queue["w_q"])),
        "LInterm": f"{1 / float(queue['max_p']):g}",
        "Gentle": str(bool(queue["gentle"])).lower(),
        "Wait": str(queue["count"] == "ns2-wait").lower(),
        "MeanPktSize": str(int(size_bytes(queue["mean_pkt_size"]))),
        "LinkBandwidth": queue["bandwidth"],
        "UseEcn": "false",
        "UseHardDrop": "true",
    })  # fmt: skip


def _modern_queue_disc(queue: Mapping[str, Any], limit: str, path: str) -> QueueDisc:
    """Map a resolved CoDel, FQ-CoDel or PIE queue (see :func:`_queue_disc`)."""
    ecn = str(bool(queue["ecn"])).lower()
    if queue["kind"] == "codel":
        return QueueDisc("ns3::CoDelQueueDisc", {
            "MaxSize": limit, "Target": queue["target"], "Interval": queue["interval"],
            "UseEcn": ecn, "MinBytes": str(MTU_BYTES),
        })  # fmt: skip
    if queue["kind"] == "fq_codel":
        # ns-3.44 takes the DRR quantum from the device's MTU (1500 B), not an attribute.
        return QueueDisc("ns3::FqCoDelQueueDisc", {
            "MaxSize": limit, "Target": queue["target"], "Interval": queue["interval"],
            "UseEcn": ecn, "Flows": str(int(queue["flows"])),
        })  # fmt: skip
    return QueueDisc("ns3::PieQueueDisc", {
        "MaxSize": limit, "QueueDelayReference": queue["target"], "Tupdate": queue["tupdate"],
        "A": repr(float(queue["alpha"])), "B": repr(float(queue["beta"])), "UseEcn": ecn,
        # Linux: the sojourn time from timestamps (ns-3's default too), accu_prob's
        # de-randomization, no early drop with less than two MTUs queued.
        "UseDequeueRateEstimator": "false", "UseDerandomization": "true",
        "MeanPktSize": str(MTU_BYTES),
    })  # fmt: skip


def _tcp_defaults(tcp: Mapping[str, Any], path: str) -> dict[str, str]:
    """Map a resolved aqmlab TCP configuration to ns-3's ``Config::SetDefault`` values.

    ns-3's ``TcpNewReno`` congestion control with classic (RFC 6582) recovery, or its PRR
    (``TcpPrrRecovery``, RFC 6937) for ``recovery_cwnd = "prr"``; SACK only for ``variant =
    "sack"``; no timestamps or window scaling, so that a data segment's headers are 40 B like
    aqmlab's; the advertised window is the receive buffer. ``pacing = "linux"`` is ns-3's pacing
    (``TcpSocketState::EnablePacing``), which follows Linux's ratios but from the last RTT
    sample rather than the smoothed RTT, and leaves the initial window unpaced. RACK-TLP has no
    counterpart.
    """
    variant = _expect(tcp, "variant", ("newreno", "sack"), path)
    prr = tcp.get("recovery_cwnd", "standard") == "prr"  # left out when "standard"
    paced = tcp.get("pacing", "off") == "linux"  # left out when "off"
    if tcp.get("loss_detection", "dupack") != "dupack":  # left out when "dupack"
        raise _unsupported(f"{path}.loss_detection",
                           f"{tcp['loss_detection']!r} has no ns-3 counterpart here")
    _expect(tcp, "ecn", (False,), path)
    _expect(tcp, "header", ("40B",), path)
    delack = _expect(tcp, "delack", ("off", "one-shot"), path)
    never = str(2**32 - 1)
    retries = tcp["max_retries"]
    pacing = {
        "ns3::TcpSocketState::EnablePacing": "true",
        "ns3::TcpSocketState::PacingSsRatio": str(int(tcp["pacing_ss_ratio"])),
        "ns3::TcpSocketState::PacingCaRatio": str(int(tcp["pacing_ca_ratio"])),
        "ns3::TcpSocketState::PaceInitialWindow": "false",
    } if paced else {}
    return pacing | {
        "ns3::TcpL4Protocol::SocketType": "ns3::TcpNewReno",
        "ns3::TcpL4Protocol::RecoveryType": "ns3::TcpPrrRecovery" if prr
        else "ns3::TcpClassicRecovery",
        "ns3::TcpSocket::SegmentSize": str(int(size_bytes(tcp["mss"]))),
        "ns3::TcpSocket::InitialCwnd": str(int(tcp["initial_window"])),
        "ns3::TcpSocket::RcvBufSize": str(int(size_bytes(tcp["rwnd"]))),
        "ns3::TcpSocket::DelAckCount": "1" if delack == "off" else "2",
        "ns3::TcpSocket::DelAckTimeout": tcp["delack_time"],
        "ns3::TcpSocket::ConnTimeout": tcp["initial_rto"],
        "ns3::TcpSocket::ConnCount": never,
        "ns3::TcpSocket::DataRetries": never if retries == "never" else str(int(retries)),
        "ns3::TcpSocketBase::MinRto": tcp["min_rto"],
        "ns3::TcpSocketBase::ClockGranularity": tcp["tick"],
        "ns3::TcpSocketBase::ReTxThreshold": str(int(tcp["dupthresh"])),
        "ns3::TcpSocketBase::LimitedTransmit": str(bool(tcp["limited_transmit"])).lower(),
        "ns3::TcpSocketBase::Sack": str(variant == "sack").lower(),
        "ns3::TcpSocketBase::Timestamp": "false",
        "ns3::TcpSocketBase::WindowScaling": "false",
    }


def _starts(start: Any, flows: int, path: str, seed: int = START_SEED) -> list[float]:
    """Return each flow's start time in seconds: the fixed time, or uniform draws.

    >>> uniform = {"dist": "uniform", "min": "0s", "max": "1s"}
    >>> _starts("2s", 2, "start"), len(_starts(uniform, 3, "start"))
    ([2.0, 2.0], 3)
    """
    if isinstance(start, str):
        return [seconds(start)] * flows
    if start.get("dist") != "uniform":
        raise _unsupported(path, f'start distribution "{start.get("dist")}"')
    draw = random.Random(seed)
    low, high = seconds(start["min"]), seconds(start["max"])
    return [draw.uniform(low, high) for _ in range(flows)]


def ns3_dumbbell(scenario: ScenarioLike, *, start_seed: int = START_SEED) -> Ns3Dumbbell:
    """Map an aqmlab scenario to the ns-3 dumbbell the bench builds (see the module's doc).

    Flow ``k`` of a group goes from server ``(server + k) mod servers`` to client ``(client + k)
    mod clients``, as in aqmlab. Every group must be bulk TCP (``ftp``, ``size = "unlimited"``,
    from the servers, all with the same TCP configuration) or constant-rate UDP (``cbr`` of one
    packet size, without jitter, from the servers: ns-3's OnOffApplication); anything else raises
    :class:`ScenarioError` naming the key. ``start_seed`` seeds the draws of the flows' start
    times (:data:`START_SEED` in the bench).

    >>> d = ns3_dumbbell(load_reference(references()["tcp-10-newreno"]))
    >>> d.bottleneck_rate, d.bottleneck_queue, d.flows[3].server, d.flows[3].client
    ('1000000bps', QueueDisc(type_id='ns3::FifoQueueDisc', attributes={'MaxSize': '10p'}), 3, 3)
    >>> ns3_dumbbell({"duration": "1s", "topology": {"bottleneck": {"rate": "1Mbps"}},
    ...               "traffic": [{"kind": "poisson", "rate": "1Mbps"}]})
    Traceback (most recent call last):
    ...
    aqmlab.errors.ScenarioError: traffic[0].kind: 'poisson' has no ns-3 counterpart here: ...
    """
    resolved = resolve(scenario)
    topology = resolved["topology"]
    _expect(resolved, "topology.kind", ("dumbbell",))
    _expect(resolved, "warmup", ("0s",))
    _expect(resolved, "topology.pair_delay", ("0s",))
    for link in ("bottleneck", "access"):
        _expect(resolved, f"topology.{link}.framing", ("none", PPP_FRAMING))
    servers, clients = int(topology["servers"]), int(topology["clients"])
    flows, cbr, tcp = _traffic(resolved, lambda group, k: (
        (int(group["server"]) + k) % servers, (int(group["client"]) + k) % clients), start_seed)
    return Ns3Dumbbell(
        name=str(resolved.get("name", "scenario")),
        duration_s=seconds(resolved["duration"]),
        servers=servers,
        clients=clients,
        bottleneck_rate=_rate(topology["bottleneck"]["rate"]),
        bottleneck_delay=topology["bottleneck"]["delay"],
        access_rate=_rate(topology["access"]["rate"]),
        access_delay=topology["access"]["delay"],
        bottleneck_queue=_queue_disc(resolved["queue"], "queue"),
        reverse_queue=_queue_disc(resolved["reverse_queue"], "reverse_queue"),
        access_queue=QueueDisc("ns3::FifoQueueDisc",
                               {"MaxSize": _packets(topology["access"]["queue"],
                                                    "topology.access.queue")}),  # fmt: skip
        defaults={} if tcp is None else _tcp_defaults(tcp, "traffic[0].tcp"),
        send_size=0 if tcp is None else int(size_bytes(tcp["mss"])),
        flows=tuple(flows),
        queue_sample_s=seconds(resolved["measure"]["queue_sample"]),
        cbr=tuple(cbr),
    )


def ns3_network(scenario: ScenarioLike, *, start_seed: int = START_SEED) -> Ns3Network:
    """Map an aqmlab scenario, of any topology, to the ns-3 network the twin builds.

    A dumbbell is :func:`ns3_dumbbell`'s, as a network (:meth:`Ns3Dumbbell.network`): the network
    the bench has always built. Any other topology is read from aqmlab's own expansion
    (``aqmlab validate --expand``): its nodes in order, each link a point-to-point link (one
    delay for both ways, the rate and queue of each way; link ``i`` on subnet ``10.hi.lo.0``,
    ``hi.lo`` being ``i``), aqmlab's forwarding tables as routes, and the traffic as
    :func:`ns3_dumbbell` maps it, on the hosts each group names. ``start_seed`` seeds the draws
    of the flows' start times. Refusals name the key; where the scenario is a named topology, the
    key of its expansion.

    >>> from aqmlab.scenario import load_scenario
    >>> lot = ns3_network({**load_scenario("scenarios/parking-lot.toml"), "warmup": "0s"})
    >>> [(link.ab.name, link.ab.queue.type_id) for link in lot.links if link.ab.logged]
    [('r0-r1', 'ns3::RedQueueDisc'), ('r1-r2', 'ns3::RedQueueDisc')]
    >>> lot.routes["r1"]["c0"], lot.routes["r1"]["s0"], lot.flows[0].client, lot.sinks
    ('r2', 'r0', 'c0', ('c0', 'c1', 'c2'))
    """
    resolved = resolve(scenario)
    kind = resolved.get("topology", {}).get("kind")
    if kind == "dumbbell":
        return ns3_dumbbell(resolved, start_seed=start_seed).network()
    _expect(resolved, "warmup", ("0s",))
    network = resolve(resolved, expand=True)
    expanded = f" (in the {kind} topology's nodes and links: aqmlab validate --expand)" \
        if kind else ""
    links = []
    for index, link in enumerate(network["link"]):
        path = f"link[{index}]"
        try:
            _expect(link, "framing", ("none", PPP_FRAMING), path)
            if link["reverse_delay"] != link["delay"]:
                raise _unsupported(f"{path}.reverse_delay", f"{link['reverse_delay']!r} against "
                                   f"delay {link['delay']!r} (an ns-3 channel has one delay)")
            ways = [Direction(str(link[name]), _rate(link[rate]),
                              _queue_disc(link[queue], f"{path}.{queue}"), bool(link["measure"]))
                    for name, rate, queue in (("name", "rate", "queue"),
                                              ("reverse_name", "reverse_rate", "reverse_queue"))]
        except ScenarioError as refused:
            raise ScenarioError(refused.path, f"{refused.message}{expanded}") from None
        links.append(Link(str(link["from"]), str(link["to"]), str(link["delay"]), ways[0],
                          ways[1], f"10.{index // 256}.{index % 256}.0"))
    flows, cbr, tcp = _traffic(network, lambda group, k: (
        group["servers"][(int(group["server"]) + k) % len(group["servers"])],
        group["clients"][(int(group["client"]) + k) % len(group["clients"])]), start_seed)
    receivers = {str(flow.client) for flow in flows} | {str(flow.client) for flow in cbr}
    nodes = tuple(str(node["name"]) for node in network["node"])
    return Ns3Network(
        name=str(resolved.get("name", "scenario")),
        duration_s=seconds(resolved["duration"]),
        nodes=nodes,
        links=tuple(links),
        routes=next_hops(network),
        sinks=tuple(node for node in nodes if node in receivers),
        defaults={} if tcp is None else _tcp_defaults(tcp, "traffic[0].tcp"),
        send_size=0 if tcp is None else int(size_bytes(tcp["mss"])),
        flows=tuple(flows),
        queue_sample_s=seconds(resolved["measure"]["queue_sample"]),
        cbr=tuple(cbr),
    )


Hosts = Callable[[Mapping[str, Any], int], tuple[Any, Any]]
"""Where flow ``k`` of a group runs: its (server, client)."""


def _traffic(resolved: Mapping[str, Any], hosts_of: Hosts,
             start_seed: int) -> tuple[list[Flow], list[Cbr], Mapping[str, Any] | None]:
    """Map a resolved scenario's traffic groups to flows (see :func:`ns3_dumbbell`).

    Drawn start times come from ``random.Random(start_seed)``, afresh for each group.

    Returns the bulk TCP flows, the constant-rate UDP flows and the TCP configuration they share
    (``None`` without TCP).
    """
    groups = resolved.get("traffic", [])
    if not groups:
        raise _unsupported("traffic", "no traffic")
    flows: list[Flow] = []
    cbr: list[Cbr] = []
    tcp: Mapping[str, Any] | None = None
    for index, group in enumerate(groups):
        path = f"traffic[{index}]"
        kind = _expect(group, "kind", ("ftp", "cbr"), path)
        _expect(group, "from", ("servers",), path)
        starts = _starts(group["start"], int(group["flows"]), f"{path}.start", start_seed)
        hosts = [hosts_of(group, k) for k in range(len(starts))]
        name = str(group["name"])
        if kind == "cbr":
            _expect(group, "jitter", (False,), path)
            size = int(size_bytes(group["size"])) if isinstance(group["size"], str) else 0
            if size <= UDP_IP_HEADERS:
                raise _unsupported(f"{path}.size", f"{group['size']!r} (one size above 28 B)")
            stop, rate = seconds(group["stop"]), parse_rate(group["rate"], what="rate")
            # A flow drawn to start at or after its stop sends nothing in aqmlab: none in ns-3.
            sent = [(hs, start) for hs, start in zip(hosts, starts, strict=True) if start < stop]
            cbr += [Cbr(s, c, start, stop, rate, size, name) for (s, c), start in sent]
            continue
        _expect(group, "size", ("unlimited",), path)
        own = group_tcp(resolved, group)
        if tcp is not None and own != tcp:
            raise _unsupported(f"{path}.tcp", "groups with different TCP settings")
        tcp = own
        flows += [Flow(s, c, start, name) for (s, c), start in zip(hosts, starts, strict=True)]
    return flows, cbr, tcp


def _rate(text: str) -> str:
    """Return a rate as ns-3 text, in bit/s (``"10Mbps"`` → ``"10000000bps"``)."""
    return f"{parse_rate(text, what='rate'):.0f}bps"


def available() -> bool:
    """Whether ns-3's Python bindings (the ``ns3`` package) are installed (not imported here)."""
    return importlib.util.find_spec("ns3") is not None


def measure_ns3(name: str, *, smoke: bool = False) -> Ns3Row:
    """Build reference ``name`` in ns-3 and run it in a child process timed from outside.

    ``smoke`` cuts the run to the bench's smoke duration (the figures then mean nothing).
    """
    return run_in_child(ns3_dumbbell(shortened(load_reference(references()[name]), smoke)))


def run_in_child(twin: Ns3Dumbbell | Ns3Network) -> Ns3Row:
    """Run ``twin`` in ns-3 in a child process (``python -m aqmlab.bench.ns3_run``).

    ``process_s`` and ``process_cpu_s`` are the child's whole-process wall and CPU times,
    measured from here; a child that fails raises ``RuntimeError``.
    """
    network = twin.network() if isinstance(twin, Ns3Dumbbell) else twin
    command = [sys.executable, "-m", "aqmlab.bench.ns3_run"]
    output, process_s, cpu_s = run_timed(command, stdin=network.to_json())
    row = json.loads(output.strip().splitlines()[-1])
    links = {name: LinkCount(**count) for name, count in row.pop("links").items()}
    return Ns3Row(**{**row, "name": network.name, "process_s": process_s, "process_cpu_s": cpu_s,
                     "links": links})


AGREEMENT = ("goodput_bps", "drops_pkts", "drop_rate", "mean_queue_pkts")
"""What the two runs did, compared: aggregate goodput, bottleneck drops (count and rate), mean
queue (packets)."""


def relative(ours: float | None, theirs: float | None) -> float | None:
    """Return ``(theirs - ours) / ours``: the other simulator's difference, relative to aqmlab.

    >>> relative(10.0, 11.0), relative(0.0, 1.0), relative(None, 1.0)
    (0.1, None, None)
    """
    if ours is None or theirs is None or ours == 0:
        return None
    return (theirs - ours) / ours


def _ratio(theirs: float | None, ours: float | None) -> float | None:
    return theirs / ours if theirs is not None and ours else None


def _median(values: Iterable[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def paired(theirs: Sequence[float | None], ours: Sequence[float | None]) -> float | None:
    """Return the median of the pair-by-pair ratios ``theirs[k] / ours[k]`` (runs made in turn).

    A ratio of runs made side by side is not moved by the machine's speed drifting between
    pairs, which the ratio of the two medians is.

    >>> paired([10.0, 30.0, 12.0], [1.0, 2.0, 1.0])
    12.0
    >>> paired([10.0], [None]) is None
    True
    """
    return _median(_ratio(t, o) for t, o in zip(theirs, ours, strict=True))


def side_by_side(
    row: BenchRow, twins: Sequence[Ns3Row], simulator: str = "ns3"
) -> dict[str, Any]:
    """Set an aqmlab bench row beside another simulator's runs of the same reference.

    ``twins`` are the other simulator's runs, the ``k``-th made just after aqmlab's ``k``-th
    (:func:`aqmlab.bench.measure`'s ``between``). ``simulator`` prefixes the other side's keys
    (``ns3``, or ``ns2`` for :mod:`aqmlab.bench.ns2`). ``speed_ratio`` is the median over the
    pairs of its whole-process wall time over aqmlab's command as a user types it (``aqmlab run
    REFERENCE --out DIR``, every table written; :attr:`BenchRow.run_command_s`), or over the
    bench child's process where that was not measured (above 1: aqmlab is faster);
    ``engine_ratio`` the same with the other side's run alone (:attr:`Ns3Row.run_s`) over
    aqmlab's engine time; ``cpu_ratio`` the ratio of the medians of the CPU times. The times
    given are medians. What the runs did is their first run's: a run is a pure function of its
    scenario and seed in each simulator. Each figure of :data:`AGREEMENT` comes as
    ``aqmlab_X``, ``<simulator>_X`` and ``X_diff`` (relative).

    >>> ours = BenchRow("r", 10.0, 1, 0.1, 1, process_s=0.5, goodput_bps=9e6, drops_pkts=100,
    ...                 arrivals_pkts=1000, mean_queue_pkts=20.0, command_s=0.4)
    >>> theirs = Ns3Row("r", 10.0, 4.0, 9.9e6, 80, 1000, 25.0, process_s=20.0)
    >>> pair = side_by_side(ours, [theirs])
    >>> pair["speed_ratio"], pair["engine_ratio"], round(pair["goodput_bps_diff"], 3)
    (50.0, 40.0, 0.1)
    >>> side_by_side(ours, [theirs], "ns2")["ns2_process_s"]
    20.0
    """
    if not twins:
        raise ValueError("side_by_side: no run of the other simulator")
    twin = twins[0]
    count = len(twins)
    typed = row.command_s if row.command_s is not None else row.process_s
    commands = row.run_command_s if len(row.run_command_s) == count else (typed,) * count
    engines = row.run_wall_s if len(row.run_wall_s) == count else (row.wall_s,) * count
    ours = {"goodput_bps": row.goodput_bps, "drops_pkts": row.drops_pkts,
            "drop_rate": (row.drops_pkts / row.arrivals_pkts
                          if row.drops_pkts is not None and row.arrivals_pkts else None),
            "mean_queue_pkts": row.mean_queue_pkts}  # fmt: skip
    pair: dict[str, Any] = {
        "scenario": row.name,
        "simulated_s": row.simulated_s,
        "aqmlab_runs": row.runs,
        f"{simulator}_runs": count,
        "aqmlab_command_s": row.command_s,
        "aqmlab_process_s": row.process_s,
        "aqmlab_engine_s": row.wall_s,
        f"{simulator}_process_s": _median(t.process_s for t in twins),
        f"{simulator}_run_s": _median(t.run_s for t in twins),
        "aqmlab_process_cpu_s": row.process_cpu_s,
        f"{simulator}_process_cpu_s": _median(t.process_cpu_s for t in twins),
        "speed_ratio": paired([t.process_s for t in twins], commands),
        "cpu_ratio": _ratio(_median(t.process_cpu_s for t in twins), row.process_cpu_s),
        "engine_ratio": paired([t.run_s for t in twins], engines),
    }
    for key in AGREEMENT:
        theirs = getattr(twin, key)
        pair |= {f"aqmlab_{key}": ours[key], f"{simulator}_{key}": theirs,
                 f"{key}_diff": relative(ours[key], theirs)}  # fmt: skip
    return pair
