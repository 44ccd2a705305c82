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
    assert fwd[["arrivals", "drops", "marks"]].sum().tolist() == [
        b["arrivals_pkts"], b["drops_pkts"], b["marks_pkts"]]  # fmt: skip
    # ... and in bytes: the data segments are 1040 B (1000 B MSS + 40 B of headers), the ACKs
    # (40 B) are not ECN-capable, so marks are all full segments
    assert fwd[["drop_bytes", "mark_bytes"]].sum().tolist() == [
        b["dropped_bytes"], b["marked_bytes"]]  # fmt: skip
    assert sum(b["dropped_bytes_by_reason"].values()) == b["dropped_bytes"]
    assert sum(b["marked_bytes_by_reason"].values()) == b["marked_bytes"]
    assert b["marked_bytes"] == 1040 * b["marks_pkts"]
    assert 40 * b["drops_pkts"] <= b["dropped_bytes"] <= 1040 * b["drops_pkts"]
    assert q["drop_bytes"].dtype == "int64" and q["mark_bytes"].dtype == "int64"
    assert result.summary["checks"]["counter_identities"] is True
    # every 100 ms interval of the measured 16 s has arrivals
    assert len(fwd) == 160 and (fwd["arrivals"] > 0).all()
    assert (fwd["drops"] + fwd["marks"] <= fwd["arrivals"]).all()
    marking = queue_ecn and tcp_ecn
    chosen = b["marks_by_reason"]["random"] if marking else b["drops_by_reason"]["random"]
    assert chosen / b["arrivals_pkts"] == pytest.approx(0.02, abs=0.004)
    if marking:  # ECN-capable data is marked, never dropped
        assert b["drops_pkts"] == 0 and b["marks_pkts"] > 0
        assert result.connections["ecn_reductions"].sum() > 0
    else:  # without ecn on either side the dropper drops
        assert b["marks_pkts"] == 0 and b["drops_pkts"] > 0
