"""Build an aqmlab network in ns-3 and run it (the child of :func:`aqmlab.bench.ns3.run_in_child`).

``python -m aqmlab.bench.ns3_run`` reads an :class:`Ns3Network` as JSON on stdin (every value
the builder passes to ns-3, made by :func:`aqmlab.bench.ns3.ns3_network`; a dumbbell's
:class:`Ns3Dumbbell` becomes one with :meth:`Ns3Dumbbell.network`), builds it with ns-3's
Python bindings (the ``ns3`` package on PyPI: cppyy over the ns-3.44 libraries), runs it and
prints what it did as JSON (the fields of :class:`Ns3Row` but ``name`` and ``process_s``). It
imports nothing of aqmlab's but this module and the bench package, so that its whole-process time
is ns-3's: Python, importing ns-3, building, running, reading the counters.

Every node forwards by static routes (``Ipv4StaticRouting``) that follow aqmlab's own forwarding
tables (:attr:`Ns3Network.routes`), not ns-3's global routing: global routing takes fewest hops
(every interface of metric 1) and breaks ties its own way, where aqmlab breaks them by the least
propagation delay, then the link listed first, and honours explicit ``[[route]]``s.

Sources: ns-3.44's sources and attribute documentation (``point-to-point-helper``,
``traffic-control-helper``, ``red-queue-disc.cc``, ``fifo-queue-disc.cc``, ``tcp-socket-base.cc``,
``bulk-send-application.cc``, ``onoff-application.cc``, ``packet-sink.cc``,
``ipv4-static-routing.cc``).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

DEVICE_QUEUE = "1p"
"""The point-to-point device's own transmit queue under the queue disc: one packet, so that the
queue disc (RED or FIFO) holds the queue, as aqmlab's bottleneck queue does."""

PORT = 9
"""The port every client's packet sink listens on (one sink per client accepts all its flows)."""

UDP_PORT = 10
"""The port of every client's UDP sink (the constant-rate flows)."""

UDP_IP_HEADERS = 28
"""IPv4 (20 B) and UDP (8 B) headers: a constant-rate flow's IP packet less its payload."""


@dataclass(frozen=True)
class QueueDisc:
    """An ns-3 queue disc: its type and the attributes set on it, as ns-3 reads them from text.

    >>> QueueDisc("ns3::FifoQueueDisc", {"MaxSize": "50p"}).attributes
    {'MaxSize': '50p'}
    """

    type_id: str
    attributes: dict[str, str]


@dataclass(frozen=True)
class Flow:
    """One bulk transfer: from server ``server`` to client ``client``, opened at ``start_s``.

    In an :class:`Ns3Dumbbell` the hosts are numbers (a server's and a client's position), in an
    :class:`Ns3Network` node names; ``group`` is the traffic group's name.
    """

    server: int | str
    client: int | str
    start_s: float
    group: str = ""


@dataclass(frozen=True)
class Cbr:
    """One constant-rate UDP flow of ``size``-byte IP packets at ``rate_bps`` IP bits per second.

    From server ``server`` to client ``client`` (numbers or node names, as :class:`Flow`'s),
    sending from ``start_s`` to ``stop_s``.
    """

    server: int | str
    client: int | str
    start_s: float
    stop_s: float
    rate_bps: float
    size: int
    group: str = ""


@dataclass(frozen=True)
class Direction:
    """One direction of a link: its name (aqmlab's), rate and queue disc, and whether it is logged.

    A logged direction has its queue sampled and its arrivals and drops counted, as aqmlab logs it.
    """

    name: str
    rate: str
    queue: QueueDisc
    logged: bool


@dataclass(frozen=True)
class Link:
    """A point-to-point link between nodes ``a`` and ``b``.

    One propagation delay (ns-3's channel has one for both ways), a direction each way (``ab``:
    ``a`` → ``b``), and the /24 ``subnet`` its two ends take (``a`` .1, ``b`` .2).
    """

    a: str
    b: str
    delay: str
    ab: Direction
    ba: Direction
    subnet: str


@dataclass(frozen=True)
class Ns3Network:
    """An aqmlab network as the ns-3 builder makes it (every value it passes to ns-3).

    ``nodes`` are created in their order, ``links`` installed in theirs (ns-3 hands out its random
    streams in the order objects are made, so the order is part of the network). ``routes`` are
    aqmlab's forwarding tables: for each node, the neighbour it sends packets for each other host
    to. ``sinks`` are the hosts that get a packet sink (one for TCP, one for UDP with ``cbr``
    flows). ``bottleneck`` names the direction :class:`Ns3Row`'s own counters describe (a
    dumbbell's ``"forward"``; ``None``: every logged direction only in ``Ns3Row.links``). ``run``
    is ns-3's run number (``RngSeedManager::SetRun``: which substreams its random variables, RED's
    among them, draw from). The rest as in :class:`Ns3Dumbbell`.
    """

    name: str
    duration_s: float
    nodes: tuple[str, ...]
    links: tuple[Link, ...]
    routes: dict[str, dict[str, str]]
    sinks: tuple[str, ...]
    defaults: dict[str, str]
    send_size: int
    flows: tuple[Flow, ...]
    queue_sample_s: float
    cbr: tuple[Cbr, ...] = ()
    bottleneck: str | None = None
    run: int = 1

    def to_json(self) -> str:
        """Return the network as JSON (what the child process reads)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Ns3Network:
        """Read a network written by :meth:`to_json`.

        >>> fifo = QueueDisc("ns3::FifoQueueDisc", {"MaxSize": "5p"})
        >>> link = Link("s", "c", "1ms", Direction("s-c", "1Mbps", fifo, True),
        ...             Direction("c-s", "1Mbps", fifo, False), "10.0.0.0")
        >>> n = Ns3Network("x", 1.0, ("s", "c"), (link,), {"s": {"c": "c"}, "c": {"s": "s"}},
        ...                ("c",), {}, 1000, (Flow("s", "c", 0.5, "bulk"),), 0.003)
        >>> Ns3Network.from_json(n.to_json()) == n
        True
        """
        data = json.loads(text)

        def direction(way: dict[str, Any]) -> Direction:
            return Direction(**{**way, "queue": QueueDisc(**way["queue"])})

        links = tuple(Link(**{**link, "ab": direction(link["ab"]), "ba": direction(link["ba"])})
                      for link in data["links"])  # fmt: skip
        return cls(**{**data, "nodes": tuple(data["nodes"]), "links": links,
                      "sinks": tuple(data["sinks"]),
                      "flows": tuple(Flow(**flow) for flow in data["flows"]),
                      "cbr": tuple(Cbr(**flow) for flow in data["cbr"])})  # fmt: skip


@dataclass(frozen=True)
class Ns3Dumbbell:
    """An aqmlab dumbbell as the ns-3 builder makes it (every value it passes to ns-3).

    Rates, delays and sizes are ns-3 attribute text (``"10Mbps"``, ``"20ms"``, ``"100p"``);
    ``defaults`` are ``Config::SetDefault`` paths and values (TCP and its recovery);
    ``queue_sample_s`` the spacing of the bottleneck queue samples (aqmlab's
    ``measure.queue_sample``); ``cbr`` the constant-rate UDP flows, beside the bulk TCP ``flows``.
    """

    name: str
    duration_s: float
    servers: int
    clients: int
    bottleneck_rate: str
    bottleneck_delay: str
    access_rate: str
    access_delay: str
    bottleneck_queue: QueueDisc
    reverse_queue: QueueDisc
    access_queue: QueueDisc
    defaults: dict[str, str]
    send_size: int
    flows: tuple[Flow, ...]
    queue_sample_s: float
    cbr: tuple[Cbr, ...] = ()

    def to_json(self) -> str:
        """Return the dumbbell as JSON."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Ns3Dumbbell:
        """Read a dumbbell written by :meth:`to_json`.

        >>> d = Ns3Dumbbell("x", 1.0, 1, 1, "1Mbps", "1ms", "10Mbps", "0s",
        ...     *[QueueDisc("ns3::FifoQueueDisc", {"MaxSize": "5p"})] * 3, {}, 1000,
        ...     (Flow(0, 0, 0.5),), 0.003)
        >>> Ns3Dumbbell.from_json(d.to_json()) == d
        True
        """
        data = json.loads(text)
        queues = {key: QueueDisc(**data[key])
                  for key in ("bottleneck_queue", "reverse_queue", "access_queue")}  # fmt: skip
        flows = tuple(Flow(**flow) for flow in data["flows"])
        cbr = tuple(Cbr(**flow) for flow in data.get("cbr", ()))
        return cls(**{**data, **queues, "flows": flows, "cbr": cbr})

    def network(self) -> Ns3Network:
        """Return the dumbbell as a network, with aqmlab's expansion's names.

        Nodes: routers ``r1`` and ``r2``, servers ``s0`` … behind ``r1``, clients ``c0`` …
        behind ``r2``, made in that order; links: the bottleneck (``forward`` from ``r1``,
        ``reverse`` back), then each server's and each client's access link (``s0.up`` towards the
        router, ``s0.down`` back), each server on subnet ``10.1.i.0``, each client on
        ``10.2.i.0``, the bottleneck on ``10.0.0.0``. The dumbbell is a tree, so its routes are
        its only paths: every host sends through its router, each router sends to its own hosts
        directly and to the other side's through the other router.

        >>> fifo = QueueDisc("ns3::FifoQueueDisc", {"MaxSize": "5p"})
        >>> d = Ns3Dumbbell("x", 1.0, 1, 2, "1Mbps", "1ms", "10Mbps", "0s", fifo, fifo, fifo, {},
        ...                 1000, (Flow(0, 1, 0.5),), 0.003)
        >>> n = d.network()
        >>> n.nodes, n.flows[0].client, n.routes["r1"]
        (('r1', 'r2', 's0', 'c0', 'c1'), 'c1', {'s0': 's0', 'c0': 'r2', 'c1': 'r2'})
        """
        servers = [f"s{i}" for i in range(self.servers)]
        clients = [f"c{i}" for i in range(self.clients)]
        hosts = servers + clients
        links = [Link("r1", "r2", self.bottleneck_delay,
                      Direction("forward", self.bottleneck_rate, self.bottleneck_queue, True),
                      Direction("reverse", self.bottleneck_rate, self.reverse_queue, True),
                      "10.0.0.0")]  # fmt: skip
        for side, (names, router) in enumerate(((servers, "r1"), (clients, "r2"))):
            links += [Link(host, router, self.access_delay,
                           Direction(f"{host}.up", self.access_rate, self.access_queue, False),
                           Direction(f"{host}.down", self.access_rate, self.access_queue, False),
                           f"10.{side + 1}.{index}.0")
                      for index, host in enumerate(names)]  # fmt: skip
        own = {"r1": servers, "r2": clients}
        routes = {router: {h: h if h in own[router] else other for h in hosts}
                  for router, other in (("r1", "r2"), ("r2", "r1"))}  # fmt: skip
        for names, router in ((servers, "r1"), (clients, "r2")):
            routes |= {host: {h: router for h in hosts if h != host} for host in names}

        def named(flow: Any) -> Any:
            return replace(flow, server=servers[int(flow.server)], client=clients[int(flow.client)])

        return Ns3Network(
            name=self.name, duration_s=self.duration_s, nodes=("r1", "r2", *hosts),
            links=tuple(links), routes=routes, sinks=tuple(clients), defaults=self.defaults,
            send_size=self.send_size, flows=tuple(named(f) for f in self.flows),
            queue_sample_s=self.queue_sample_s, cbr=tuple(named(c) for c in self.cbr),
            bottleneck="forward",
        )  # fmt: skip


@dataclass(frozen=True)
class LinkCount:
    """What one logged direction did in ns-3.

    Its queue disc's (and device queue's) arrivals and drops, and the mean of its queue sampled
    every ``queue_sample_s`` (queue disc plus device queue, not the packet on the wire).
    """

    arrivals_pkts: int
    drops_pkts: int
    mean_queue_pkts: float

    @property
    def drop_rate(self) -> float:
        """Drops per arrival."""
        return self.drops_pkts / self.arrivals_pkts if self.arrivals_pkts else 0.0


@dataclass(frozen=True)
class Ns3Row:
    """What one ns-3 run took and did (its own counters: the bottleneck's, servers → clients).

    ``process_s`` and ``process_cpu_s`` are the child's whole-process wall and CPU (user +
    system) times (Python, importing ns-3, building, running);
    ``run_s`` the time of ``Simulator::Run`` alone; ``goodput_bps`` the bytes the clients' TCP
    sinks received in order, ·8 / duration (None without TCP flows); ``drops_pkts``,
    ``arrivals_pkts`` and ``mean_queue_pkts`` the bottleneck's (:class:`LinkCount`; 0 in a
    network without one). ``links`` has every logged direction's counts by name;
    ``flow_goodput_bps`` each TCP flow's bytes acknowledged (its sender's first unacknowledged
    sequence number, less the SYN's), ·8 / duration, in the network's flow order.
    """

    name: str
    simulated_s: float
    run_s: float
    goodput_bps: float | None
    drops_pkts: int
    arrivals_pkts: int
    mean_queue_pkts: float
    process_s: float | None = None
    process_cpu_s: float | None = None
    links: dict[str, LinkCount] = field(default_factory=dict)
    flow_goodput_bps: list[float] = field(default_factory=list)

    @property
    def drop_rate(self) -> float:
        """Drops per arrival at the bottleneck."""
        return self.drops_pkts / self.arrivals_pkts if self.arrivals_pkts else 0.0


_HELPERS = """
namespace aqmlab_bench {
using namespace ns3;
// Samples a queue disc and the device queue beneath it every `every`, from `every` on.
struct QueueSampler {
    Ptr<QueueDisc> disc;
    Ptr<Queue<Packet>> device;
    Time every;
    double sum = 0;
    uint64_t samples = 0;
    void Sample() {
        sum += disc->GetNPackets() + device->GetNPackets();
        ++samples;
        Simulator::Schedule(every, &QueueSampler::Sample, this);
    }
};
QueueSampler* StartSampler(Ptr<QueueDisc> disc, Ptr<NetDevice> device, double every_s) {
    auto* sampler = new QueueSampler();
    sampler->disc = disc;
    sampler->device = DynamicCast<PointToPointNetDevice>(device)->GetQueue();
    sampler->every = Seconds(every_s);
    Simulator::Schedule(sampler->every, &QueueSampler::Sample, sampler);
    return sampler;
}
uint64_t DeviceDrops(Ptr<NetDevice> device) {
    return DynamicCast<PointToPointNetDevice>(device)->GetQueue()->GetTotalDroppedPackets();
}
uint64_t SinkBytes(Ptr<Application> app) { return DynamicCast<PacketSink>(app)->GetTotalRx(); }
// Bytes a bulk sender's data has had acknowledged: its first unacknowledged sequence number less
// the SYN's (ns-3's initial sequence number is 0); 0 before the connection is set up.
uint64_t AckedBytes(Ptr<Application> app) {
    auto socket = DynamicCast<TcpSocketBase>(DynamicCast<BulkSendApplication>(app)->GetSocket());
    if (!socket) { return 0; }
    uint32_t head = socket->GetTxBuffer()->HeadSequence().GetValue();
    return head > 1 ? head - 1 : 0;
}
}
"""


def run_ns3(network: Ns3Network) -> dict[str, Any]:
    """Build ``network`` in ns-3, run it and return what :class:`Ns3Row` holds (no process_s).

    Each link is a point-to-point link whose ``ab`` queue disc sits on ``a``'s device and ``ba``'s
    on ``b``'s, under a one-packet device queue; its ends are addressed ``subnet`` .1 and .2.
    Every node gets a static route for each host's addresses toward the neighbour
    :attr:`Ns3Network.routes` names (:func:`_route`).
    """
    from ns import ns

    cppyy = ns.cppyy
    cppyy.cppdef(_HELPERS)
    helpers = cppyy.gbl.aqmlab_bench
    ns.RngSeedManager.SetRun(network.run)
    for path, value in network.defaults.items():
        ns.Config.SetDefault(path, ns.StringValue(value))

    nodes = ns.NodeContainer()
    nodes.Create(len(network.nodes))
    node = {name: nodes.Get(index) for index, name in enumerate(network.nodes)}
    ns.InternetStackHelper().Install(nodes)

    def queue_disc(device: Any, disc: QueueDisc) -> Any:
        helper = ns.TrafficControlHelper()
        helper.SetRootQueueDisc(disc.type_id)
        installed = helper.Install(device).Get(0)
        for key, value in disc.attributes.items():
            installed.SetAttribute(key, ns.StringValue(value))
        return installed

    addresses = ns.Ipv4AddressHelper()
    # Per node: its neighbours by name → (its interface, the neighbour's address); its addresses.
    ends: dict[str, dict[str, tuple[int, Any]]] = {name: {} for name in network.nodes}
    owned: dict[str, list[Any]] = {name: [] for name in network.nodes}
    logged: dict[str, tuple[Any, Any]] = {}
    for link in network.links:
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(link.ab.rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(link.delay))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(DEVICE_QUEUE))
        devices = p2p.Install(node[link.a], node[link.b])
        if link.ba.rate != link.ab.rate:
            devices.Get(1).SetAttribute("DataRate", ns.StringValue(link.ba.rate))
        for end, way in enumerate((link.ab, link.ba)):
            disc = queue_disc(devices.Get(end), way.queue)
            if way.logged:
                logged[way.name] = (disc, devices.Get(end))
        addresses.SetBase(ns.Ipv4Address(link.subnet), ns.Ipv4Mask("255.255.255.0"))
        assigned = addresses.Assign(devices)
        for end, (here, there) in enumerate(((link.a, link.b), (link.b, link.a))):
            interface = node[here].GetObject[ns.Ipv4]().GetInterfaceForDevice(devices.Get(end))
            ends[here][there] = (interface, assigned.GetAddress(1 - end))
            owned[here].append(assigned.GetAddress(end))
    static = ns.Ipv4StaticRoutingHelper()
    for name, table in network.routes.items():
        _route(static.GetStaticRouting(node[name].GetObject[ns.Ipv4]()), ends[name], table,
               owned)  # fmt: skip

    stop = ns.Seconds(network.duration_s)
    sink_nodes = ns.NodeContainer()
    for host in network.sinks:
        sink_nodes.Add(node[host])
    first = {host: owned[host][0] for host in network.sinks}
    any_address = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), PORT).ConvertTo()
    sinks = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_address).Install(sink_nodes)
    sinks.Start(ns.Seconds(0))
    senders = []
    for flow in network.flows:
        to = ns.InetSocketAddress(first[str(flow.client)], PORT).ConvertTo()
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", to)
        sender.SetAttribute("SendSize", ns.UintegerValue(network.send_size))
        sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
        app = sender.Install(node[str(flow.server)]).Get(0)
        app.SetStartTime(ns.Seconds(flow.start_s))
        senders.append(app)

    if network.cbr:
        udp_any = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), UDP_PORT).ConvertTo()
        udp_sinks = ns.PacketSinkHelper("ns3::UdpSocketFactory", udp_any).Install(sink_nodes)
        udp_sinks.Start(ns.Seconds(0))
    for cbr in network.cbr:
        # OnOffApplication paces its payload bits: a payload rate of rate · payload / size (to
        # the whole bit/s) sends size-byte IP packets every size · 8 / rate seconds (each gap to
        # the ns), as aqmlab's source does. It sends its first packet one gap after it starts,
        # aqmlab's source at its start: started one gap early (at 0 at the earliest).
        payload = cbr.size - UDP_IP_HEADERS
        gap_s = cbr.size * 8 / cbr.rate_bps
        to = ns.InetSocketAddress(first[str(cbr.client)], UDP_PORT).ConvertTo()
        sender = ns.OnOffHelper("ns3::UdpSocketFactory", to)
        sender.SetAttribute("OnTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=1e9]"))
        sender.SetAttribute("OffTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=0]"))
        sender.SetAttribute("PacketSize", ns.UintegerValue(payload))
        payload_rate = cbr.rate_bps * payload / cbr.size
        sender.SetAttribute("DataRate", ns.StringValue(f"{payload_rate:.0f}bps"))
        app = sender.Install(node[str(cbr.server)])
        app.Start(ns.Seconds(max(0.0, cbr.start_s - gap_s)))
        app.Stop(ns.Seconds(cbr.stop_s))

    samplers = {name: helpers.StartSampler(disc, device, network.queue_sample_s)
                for name, (disc, device) in logged.items()}  # fmt: skip
    ns.Simulator.Stop(stop)
    started = time.perf_counter()
    ns.Simulator.Run()
    run_s = time.perf_counter() - started

    counts = {}
    for name, (disc, device) in logged.items():
        stats, sampler = disc.GetStats(), samplers[name]
        counts[name] = LinkCount(
            arrivals_pkts=int(stats.nTotalReceivedPackets),
            drops_pkts=int(stats.nTotalDroppedPackets) + int(helpers.DeviceDrops(device)),
            mean_queue_pkts=sampler.sum / sampler.samples if sampler.samples else 0.0,
        )
    received = sum(helpers.SinkBytes(sinks.Get(i)) for i in range(sinks.GetN()))
    bottleneck = counts[network.bottleneck] if network.bottleneck else LinkCount(0, 0, 0.0)
    row = {
        "simulated_s": network.duration_s,
        "run_s": run_s,
        "goodput_bps": 8 * received / network.duration_s if network.flows else None,
        "drops_pkts": bottleneck.drops_pkts,
        "arrivals_pkts": bottleneck.arrivals_pkts,
        "mean_queue_pkts": bottleneck.mean_queue_pkts,
        "links": {name: asdict(count) for name, count in counts.items()},
        "flow_goodput_bps": [8 * int(helpers.AckedBytes(app)) / network.duration_s
                             for app in senders],
    }  # fmt: skip
    ns.Simulator.Destroy()
    return row


def _route(routing: Any, ends: dict[str, tuple[int, Any]], table: dict[str, str],
           owned: dict[str, list[Any]]) -> None:
    """Give one node (``routing``: its ``Ipv4StaticRouting``) its routes to every host.

    ``ends`` holds, per neighbour, this node's interface to it and the neighbour's address;
    ``table`` the neighbour aqmlab sends each host's packets to; ``owned`` each node's addresses.
    The neighbour most hosts go through is the default route; each address of another host gets a
    host route (/32), unless it is the neighbour's own end of their link, which the link's
    connected route already sends there. A host route also overrides a connected route that would
    send an address elsewhere than aqmlab does.
    """
    if not table:
        return
    vias = list(table.values())
    default = max(dict.fromkeys(vias), key=vias.count)  # ties: the first host's neighbour
    interface, address = ends[default]
    routing.SetDefaultRoute(address, interface)
    connected = {int(addr.Get()): there for there, (_, addr) in ends.items()}
    subnets = {int(addr.Get()) >> 8 for _, addr in ends.values()}  # the links' /24s
    for host, via in table.items():
        for target in owned[host]:
            value = int(target.Get())
            on_link = value >> 8 in subnets
            if connected.get(value) == via or (via == default and not on_link):
                continue
            interface, address = ends[via]
            routing.AddHostRouteTo(target, address, interface)


def main() -> None:
    """Read an :class:`Ns3Network` as JSON on stdin, run it in ns-3, print the row as JSON."""
    network = Ns3Network.from_json(sys.stdin.read())
    sys.stdout.write(json.dumps(run_ns3(network)) + "\n")


if __name__ == "__main__":
    main()
