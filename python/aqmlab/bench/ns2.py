"""The bench references run again in ns-2.35: aqmlab timed beside the simulator the papers used.

:func:`measure_ns2` writes a reference as ns-2 Tcl with the referee's own writer
(:func:`aqmlab.referee.ns2.ns2_script`: the same mapping ``aqmlab crosscheck --against ns2``
uses, docs/ns2-referee.md), runs ``ns ns2.tcl`` as a whole process timed from outside, and reads
what the run did from its records (goodput, bottleneck drops and arrivals, mean queue), to set
beside aqmlab's with :func:`aqmlab.bench.ns3.side_by_side`. The ``ns`` process is the command an
ns-2 user types, Tcl interpretation and the script's measurement included: its wall time is
both the whole-process and the run time of the row. ns-2 comes from Debian's ``ns2`` package;
:func:`available` (the referee's) says whether ``ns`` is on the path.

>>> sorted(REFERENCES)
['tcp-10-newreno', 'tcp-100-newreno', 'tcp-100-newreno-red']
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from aqmlab.bench import load_reference, references, run_timed, shortened
from aqmlab.bench.ns3_run import Ns3Row
from aqmlab.referee.ns2 import NS, available, ns2_script
from aqmlab.referee.ns2_measure import RESULTS, measures, read_records
from aqmlab.sweeps import seconds

__all__ = ["REFERENCES", "Ns2Row", "available", "measure_ns2"]

REFERENCES = ("tcp-10-newreno", "tcp-100-newreno", "tcp-100-newreno-red")
"""The references ``aqmlab bench`` also runs in ns-2 when ``ns`` is installed and they are
selected: the bulk-TCP dumbbells, which the referee's writer maps without approximation."""


@dataclass(frozen=True)
class Ns2Row(Ns3Row):
    """What one ns-2 run took and did, in the fields of :class:`Ns3Row` (forward bottleneck).

    ``run_s`` and ``process_s`` are both the ``ns`` process's wall time (ns-2 has no bindings
    to import before its run); ``goodput_bps`` sums the TCP senders' acknowledged bytes ·8 over
    the measured time; drops, arrivals and the time-averaged queue are the bottleneck queue
    monitor's (docs/ns2-referee.md).
    """


def measure_ns2(name: str, *, smoke: bool = False) -> Ns2Row:
    """Write reference ``name`` as ns-2 Tcl, run ``ns`` on it timed from outside, and read it.

    ``smoke`` cuts the run to the bench's smoke duration (the figures then mean nothing). A
    failing ``ns`` raises ``RuntimeError`` with the end of its output.
    """
    scenario = shortened(load_reference(references()[name]), smoke)
    script = ns2_script(scenario)
    resolved = script.resolved
    measured = seconds(resolved["duration"]) - seconds(resolved["warmup"])
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-ns2-") as tmp:
        (Path(tmp) / "ns2.tcl").write_text(script.tcl)
        _, wall, cpu = run_timed([NS, "ns2.tcl"], cwd=tmp)
        records = read_records(Path(tmp) / RESULTS)
    found = measures(records, script.flows, measured)
    tcp = [flow.goodput_bps for flow in found.flows if flow.kind == "tcp"]
    return Ns2Row(name=name, simulated_s=seconds(resolved["duration"]), run_s=wall,
                  goodput_bps=sum(tcp) if tcp else None, drops_pkts=found.drops_pkts,
                  arrivals_pkts=found.arrivals_pkts, mean_queue_pkts=found.mean_queue_pkts,
                  process_s=wall, process_cpu_s=cpu)  # fmt: skip
