"""The bench's ns-2 side: a reference written by the referee's Tcl writer, run by ``ns``, read.

Skipped only where ns-2 is not installed: it is a Debian package (``ns2``), which ``./dev``
installs when it runs as root (as CI does); elsewhere ``./dev test`` lists the skip.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from aqmlab.bench import bench_one, load_reference, references
from aqmlab.bench.ns2 import REFERENCES, Ns2Row, available, measure_ns2
from aqmlab.bench.ns3 import side_by_side

needs_ns2 = pytest.mark.skipif(not available(),
                               reason="ns-2 is not installed (apt-get install ns2)")


def test_every_ns2_reference_is_a_bench_reference() -> None:
    assert set(REFERENCES) <= set(references())


@needs_ns2
def test_a_short_reference_runs_in_ns2_and_sits_beside_aqmlab() -> None:
    row = measure_ns2("tcp-10-newreno", smoke=True)
    assert isinstance(row, Ns2Row) and row.simulated_s == 0.2
    assert row.process_s == row.run_s and row.process_s is not None and row.process_s > 0
    # Ten NewReno flows through 10 Mb/s for 0.2 s: slow start, so some goodput and no more than
    # the link's rate; arrivals counted at the bottleneck.
    assert row.goodput_bps is not None and 0 < row.goodput_bps < 10e6
    assert row.arrivals_pkts > 0 and 0 <= row.drops_pkts <= row.arrivals_pkts
    ours = bench_one("tcp-10-newreno", {**load_reference(references()["tcp-10-newreno"]),
                                        "duration": "200ms"})  # fmt: skip
    pair = side_by_side(replace(ours, command_s=0.1), [row], "ns2")
    assert pair["ns2_process_s"] == row.process_s
    assert pair["speed_ratio"] == pytest.approx(row.process_s / 0.1)
    assert pair["engine_ratio"] == pytest.approx(row.run_s / ours.wall_s)
