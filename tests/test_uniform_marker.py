"""The uniform dropper's ``ecn`` option and the ``queue`` table's per-interval counts."""

from __future__ import annotations

import aqmlab
import pytest


def _run(*, queue_ecn: bool, tcp_ecn: bool) -> aqmlab.Result:
    return aqmlab.run(
        {
            "duration": "20s",
            "warmup": "4s",
            "topology": {"bottleneck": {"rate": "10Mbps", "delay": "20ms"}},
            "queue": {"kind": "bernoulli", "p": 0.02, "ecn": queue_ecn, "limit": "1000p"},
            "tcp": {"profile": "ns2-2003", "variant": "newreno", "ecn": tcp_ecn},
            "traffic": [{"kind": "ftp", "flows": 10}],
        },
        seed=3,
    )


@pytest.mark.parametrize(("queue_ecn", "tcp_ecn"), [(False, True), (True, True), (True, False)])
def test_queue_table_counts_add_up_to_the_summary(queue_ecn: bool, tcp_ecn: bool) -> None:
    result = _run(queue_ecn=queue_ecn, tcp_ecn=tcp_ecn)
    q = result.tables["queue"]
    b = result.summary["forward"]
    fwd = q[q["direction"] == "forward"]
    assert fwd[["arrivals_pkts", "drops_pkts", "marks_pkts"]].sum().tolist() == [
        b["arrivals_pkts"], b["drops_pkts"], b["marks_pkts"]]  # fmt: skip
    # ... and in bytes: the data segments are 1040 B (1000 B MSS + 40 B of headers), the ACKs
    # (40 B) are not ECN-capable, so marks are all full segments
    assert fwd[["drops_bytes", "marks_bytes"]].sum().tolist() == [
        b["drops_bytes"], b["marks_bytes"]]  # fmt: skip
    assert sum(b["drops_bytes_by_reason"].values()) == b["drops_bytes"]
    assert sum(b["marks_bytes_by_reason"].values()) == b["marks_bytes"]
    assert b["marks_bytes"] == 1040 * b["marks_pkts"]
    assert 40 * b["drops_pkts"] <= b["drops_bytes"] <= 1040 * b["drops_pkts"]
    assert q["drops_bytes"].dtype == "int64" and q["marks_bytes"].dtype == "int64"
    assert result.summary["checks"]["counter_identities"] is True
    # every 100 ms interval of the measured 16 s has arrivals
    assert len(fwd) == 160 and (fwd["arrivals_pkts"] > 0).all()
    assert (fwd["drops_pkts"] + fwd["marks_pkts"] <= fwd["arrivals_pkts"]).all()
    marking = queue_ecn and tcp_ecn
    chosen = b["marks_pkts_by_reason"]["random"] if marking else b["drops_pkts_by_reason"]["random"]
    assert chosen / b["arrivals_pkts"] == pytest.approx(0.02, abs=0.004)
    if marking:  # ECN-capable data is marked, never dropped
        assert b["drops_pkts"] == 0 and b["marks_pkts"] > 0
        assert result.connections["ecn_reductions"].sum() > 0
    else:  # without ecn on either side the dropper drops
        assert b["marks_pkts"] == 0 and b["drops_pkts"] > 0
