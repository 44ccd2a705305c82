"""Build an aqmlab dumbbell in ns-3 and run it (the child of :func:`aqmlab.bench.ns3.measure_ns3`).

``python -m aqmlab.bench.ns3_run`` reads an :class:`Ns3Dumbbell` as JSON on stdin (every value
the builder passes to ns-3, made by :func:`aqmlab.bench.ns3.ns3_dumbbell`), builds it with ns-3's
Python bindings (the ``ns3`` package on PyPI: cppyy over the ns-3.44 libraries), runs it and
prints what it did as JSON (the fields of :class:`Ns3Row` but ``name`` and ``process_s``). It
imports nothing of aqmlab's but this module and the bench package, so that its whole-process time
is ns-3's: Python, importing ns-3, building, running, reading the counters.

Sources: ns-3.44's sources and attribute documentation (``point-to-point-helper``,
``traffic-control-helper``, ``red-queue-disc.cc``, ``fifo-queue-disc.cc``, ``tcp-socket-base.cc``,
``bulk-send-application.cc``, ``onoff-application.cc``, ``packet-sink.cc``).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
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
    """One bulk transfer: from server ``server`` to client ``client``, opened at ``start_s``."""

    server: int
    client: int
    start_s: float


@dataclass(frozen=True)
class Cbr:
    """One constant-rate UDP flow of ``size``-byte IP packets at ``rate_bps`` IP bits per second.

    From server ``server`` to client ``client``, sending from ``start_s`` to ``stop_s``.
    """

    server: int
    client: int
    start_s: float
    stop_s: float
    rate_bps: float
    size: int


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
        """Return the dumbbell as JSON (what the child process reads)."""
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


@dataclass(frozen=True)
class Ns3Row:
    """What one ns-3 run took and did (the forward bottleneck: servers → clients).

    ``process_s`` and ``process_cpu_s`` are the child's whole-process wall and CPU (user +
    system) times (Python, importing ns-3, building, running);
    ``run_s`` the time of ``Simulator::Run`` alone; ``goodput_bps`` the bytes the clients' TCP
    sinks received in order, ·8 / duration (None without TCP flows); ``drops_pkts`` and
    ``arrivals_pkts`` the bottleneck queue disc's (and its device queue's) drops and arrivals;
    ``mean_queue_pkts`` the mean of the queue sampled every ``queue_sample_s`` (queue disc plus
    device queue, not the packet on the wire).
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
}
"""


def run_ns3(dumbbell: Ns3Dumbbell) -> dict[str, Any]:
    """Build ``dumbbell`` in ns-3, run it and return what :class:`Ns3Row` holds (no process_s).

    Nodes: two routers joined by the bottleneck (the queue disc of router 0's device is the
    bottleneck queue, router 1's the reverse queue), each server on its own access link to
    router 0 and each client to router 1, access queue discs at both ends of every access link.
    """
    from ns import ns

    cppyy = ns.cppyy
    cppyy.cppdef(_HELPERS)
    helpers = cppyy.gbl.aqmlab_bench
    for path, value in dumbbell.defaults.items():
        ns.Config.SetDefault(path, ns.StringValue(value))

    routers, servers, clients = ns.NodeContainer(), ns.NodeContainer(), ns.NodeContainer()
    routers.Create(2)
    servers.Create(dumbbell.servers)
    clients.Create(dumbbell.clients)
    stack = ns.InternetStackHelper()
    for nodes in (routers, servers, clients):
        stack.Install(nodes)

    def link(a: Any, b: Any, rate: str, delay: str) -> Any:
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(DEVICE_QUEUE))
        return p2p.Install(a, b)

    def queue_disc(device: Any, disc: QueueDisc) -> Any:
        helper = ns.TrafficControlHelper()
        helper.SetRootQueueDisc(disc.type_id)
        installed = helper.Install(device).Get(0)
        for key, value in disc.attributes.items():
            installed.SetAttribute(key, ns.StringValue(value))
        return installed

    addresses = ns.Ipv4AddressHelper()
    bottleneck = link(routers.Get(0), routers.Get(1), dumbbell.bottleneck_rate,
                      dumbbell.bottleneck_delay)  # fmt: skip
    forward = queue_disc(bottleneck.Get(0), dumbbell.bottleneck_queue)
    queue_disc(bottleneck.Get(1), dumbbell.reverse_queue)
    addresses.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addresses.Assign(bottleneck)
    client_addresses = []
    for side, (hosts, router) in enumerate(((servers, routers.Get(0)), (clients, routers.Get(1)))):
        for index in range(hosts.GetN()):
            devices = link(hosts.Get(index), router, dumbbell.access_rate, dumbbell.access_delay)
            for end in (0, 1):
                queue_disc(devices.Get(end), dumbbell.access_queue)
            subnet = f"10.{side + 1}.{index}.0"
            addresses.SetBase(ns.Ipv4Address(subnet), ns.Ipv4Mask("255.255.255.0"))
            assigned = addresses.Assign(devices)
            if side == 1:
                client_addresses.append(assigned.GetAddress(0))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    stop = ns.Seconds(dumbbell.duration_s)
    any_address = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), PORT).ConvertTo()
    sinks = ns.PacketSinkHelper("ns3::TcpSocketFactory", any_address).Install(clients)
    sinks.Start(ns.Seconds(0))
    for flow in dumbbell.flows:
        to = ns.InetSocketAddress(client_addresses[flow.client], PORT).ConvertTo()
        sender = ns.BulkSendHelper("ns3::TcpSocketFactory", to)
        sender.SetAttribute("SendSize", ns.UintegerValue(dumbbell.send_size))
        sender.SetAttribute("MaxBytes", ns.UintegerValue(0))
        app = sender.Install(servers.Get(flow.server))
        app.Start(ns.Seconds(flow.start_s))

    if dumbbell.cbr:
        udp_any = ns.InetSocketAddress(ns.Ipv4Address.GetAny(), UDP_PORT).ConvertTo()
        ns.PacketSinkHelper("ns3::UdpSocketFactory", udp_any).Install(clients).Start(ns.Seconds(0))
    for cbr in dumbbell.cbr:
        # OnOffApplication paces its payload bits: a payload rate of rate · payload / size (to
        # the whole bit/s) sends size-byte IP packets every size · 8 / rate seconds (each gap to
        # the ns), as aqmlab's source does. It sends its first packet one gap after it starts,
        # aqmlab's source at its start: started one gap early (at 0 at the earliest).
        payload = cbr.size - UDP_IP_HEADERS
        gap_s = cbr.size * 8 / cbr.rate_bps
        to = ns.InetSocketAddress(client_addresses[cbr.client], UDP_PORT).ConvertTo()
        sender = ns.OnOffHelper("ns3::UdpSocketFactory", to)
        sender.SetAttribute("OnTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=1e9]"))
        sender.SetAttribute("OffTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=0]"))
        sender.SetAttribute("PacketSize", ns.UintegerValue(payload))
        payload_rate = cbr.rate_bps * payload / cbr.size
        sender.SetAttribute("DataRate", ns.StringValue(f"{payload_rate:.0f}bps"))
        app = sender.Install(servers.Get(cbr.server))
        app.Start(ns.Seconds(max(0.0, cbr.start_s - gap_s)))
        app.Stop(ns.Seconds(cbr.stop_s))

    sampler = helpers.StartSampler(forward, bottleneck.Get(0), dumbbell.queue_sample_s)
    ns.Simulator.Stop(stop)
    started = time.perf_counter()
    ns.Simulator.Run()
    run_s = time.perf_counter() - started

    stats = forward.GetStats()
    received = sum(helpers.SinkBytes(sinks.Get(i)) for i in range(sinks.GetN()))
    row = {
        "simulated_s": dumbbell.duration_s,
        "run_s": run_s,
        "goodput_bps": 8 * received / dumbbell.duration_s if dumbbell.flows else None,
        "drops_pkts": int(stats.nTotalDroppedPackets) + int(helpers.DeviceDrops(bottleneck.Get(0))),
        "arrivals_pkts": int(stats.nTotalReceivedPackets),
        "mean_queue_pkts": sampler.sum / sampler.samples if sampler.samples else 0.0,
    }
    ns.Simulator.Destroy()
    return row


def main() -> None:
    """Read an :class:`Ns3Dumbbell` as JSON on stdin, run it in ns-3, print the row as JSON."""
    dumbbell = Ns3Dumbbell.from_json(sys.stdin.read())
    sys.stdout.write(json.dumps(run_ns3(dumbbell)) + "\n")


if __name__ == "__main__":
    main()
