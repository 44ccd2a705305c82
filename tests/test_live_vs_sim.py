"""The ``live-vs-sim`` study, its live executor, and experiments that name their own executor.

The study runs each scenario simulated and live (docs/live.md). Live runs need network
namespaces: without them the live experiments fail and their findings are "not run", with the
reason, which a test checks by taking live mode's permission away. With namespaces, a smoke run
(one congestion control, one queue, seconds-long runs) goes end to end in about 25 s.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aqmlab
import pandas as pd
import pytest
from aqmlab import papers
from aqmlab.errors import InputError
from aqmlab.executor import Job, LocalExecutor, current_build_id
from aqmlab.live.executor import LiveExecutor, live_build_id
from aqmlab.live.lab import LiveUnavailable, ours
from aqmlab.papers import live_vs_sim as lvs
from aqmlab.scenario import as_scenario, read_toml, resolve, scenario_hash
from aqmlab.store import Store
from aqmlab.study import Data, Experiment, Finding, Scale, Study, Verdict, reproduce
from aqmlab.sweeps import Sweep
from conftest import ROOT, needs_namespaces


def _sweep(name: str, scale: str = "quick") -> Sweep:
    experiment = next(e for e in lvs.EXPERIMENTS if e.name == name)
    return experiment.build(lvs.SCALES[scale], None)  # type: ignore[arg-type]


# --- the declaration -----------------------------------------------------------------------------
def test_the_study_is_registered_with_its_experiments_findings_and_scales() -> None:
    assert papers.get("live-vs-sim") is lvs.STUDY
    assert lvs.STUDY.experiment_names == ("bulk_sim", "bulk_live", "web_sim", "web_live")
    executors = {e.name: e.executor for e in lvs.STUDY.experiments}
    assert executors == {"bulk_sim": None, "bulk_live": LiveExecutor, "web_sim": None,
                         "web_live": LiveExecutor}  # fmt: skip
    assert [f.id for f in lvs.STUDY.findings] == [f"L{k}" for k in range(1, 11)]
    assert all(f.claim.endswith("?") and f.criterion for f in lvs.STUDY.findings)
    assert "aqmlab's own, not a paper's" in lvs.STUDY.finding("L10").criterion
    assert "Not a reproduction" in lvs.STUDY.testbed[0]
    quick, full, smoke = (lvs.SCALES[s] for s in ("quick", "full", "smoke"))
    assert (quick.seeds, quick["bulk"], quick["web"]["duration"]) == (
        1, {"duration": "40s", "warmup": "10s"}, "60s")
    assert (full.seeds, full["bulk"], full["web"]["duration"]) == (
        5, {"duration": "70s", "warmup": "10s"}, "130s")
    assert not smoke.reproduction and lvs.STUDY.public_scales == ("quick", "full")
    assert (smoke["ccs"], smoke["queues"]) == (("cubic",), ("droptail",))


def test_the_testbed_is_the_live_cubic_scenario() -> None:
    ours_ = resolve(lvs.testbed("70s", "10s"))
    theirs = resolve(read_toml(ROOT / "scenarios" / "live-cubic.toml"))
    assert {**ours_, "name": ""} == {**theirs, "name": ""}


def test_the_bulk_sweep_crosses_three_tcps_with_five_queues_on_both_sides() -> None:
    sim, live = _sweep("bulk_sim"), _sweep("bulk_live")
    points = sim.points()
    assert len(points) == 15
    assert {(p.labels["cc"], p.labels["queue"]) for p in points} == {
        (cc, q) for cc in lvs.CCS for q in lvs.QUEUES}
    red = next(p for p in points if p.labels["queue"] == "red").scenario["queue"]
    assert red == {"kind": "red", "limit": "200p", "min_th": 10, "max_th": 30, "max_p": 0.1}
    for p in points:
        r = resolve(p.scenario)
        assert r["tcp"]["congestion_control"] == p.labels["cc"]
        assert r["duration"] == "40s" and r["warmup"] == "10s"
        if p.labels["queue"] in ("codel", "fq_codel", "pie"):
            assert r["queue"]["limit"] == 1000
    # The sides differ only in their name, so that their runs are stored apart.
    for a, b in zip(points, live.points(), strict=True):
        assert {**a.scenario, "name": ""} == {**b.scenario, "name": ""}
        assert scenario_hash(resolve(a.scenario)) != scenario_hash(resolve(b.scenario))


def test_the_web_pair_sends_200_users_through_droptail_and_red() -> None:
    points = _sweep("web_live", "full").points()
    assert [p.labels["queue"] for p in points] == ["droptail", "red"]
    r = resolve(points[0].scenario)
    assert [(g["kind"], g["users"]) for g in r["traffic"]] == [("web-mah", 200)]
    assert (r["duration"], r["warmup"]) == ("130s", "10s")
    assert r["topology"]["bottleneck"]["rate"] == "10Mbps"


# --- the judges ----------------------------------------------------------------------------------
def _bulk(live: list[float], sim: list[float], queues: tuple[str, ...] = ("droptail", "red"),
          seeds: int = 1) -> pd.DataFrame:  # fmt: skip
    rows = [(q, s, a, b) for s in range(1, seeds + 1)
            for q, a, b in zip(queues, live, sim, strict=True)]  # fmt: skip
    return pd.DataFrame(rows, columns=["queue", "seed", "live_x", "sim_x"])


def test_agreement_holds_within_its_tolerance_under_every_queue() -> None:
    check = lvs.agreement("x", 0.05, "x", 2)
    ok, text, numbers = check(_bulk([10.0, 10.0], [10.4, 9.6]))
    assert ok and "droptail 10.00 / 10.40 (+4.0%)" in text
    assert numbers["worst_difference"] == pytest.approx(0.04)
    assert not check(_bulk([10.0, 10.0], [10.0, 10.6]))[0]  # one queue off: does not hold
    assert not check(_bulk([0.0, 10.0], [0.1, 10.0]))[0]  # from zero: an infinite difference
    assert check(_bulk([0.0, 10.0], [0.0, 10.0]))[0]


def test_the_web_check_needs_both_percentiles_within_ten_percent() -> None:
    frame = pd.DataFrame({"queue": ["droptail", "red"], "seed": [1, 1],
                          "live_median_ms": [90.0, 90.0], "sim_median_ms": [88.0, 95.0],
                          "live_p90_ms": [130.0, 130.0], "sim_p90_ms": [125.0, 140.0]})
    ok, text, numbers = lvs.check_web(frame)
    assert ok and "90th percentile" in text
    assert not lvs.check_web(frame.assign(sim_p90_ms=[125.0, 150.0]))[0]


def test_a_finding_for_a_tcp_the_scale_does_not_run_is_not_run() -> None:
    data = Data(Path("unused"), ("bulk_sim", "bulk_live"), lvs.SCALES["smoke"], (1,))
    data._frames["bulk-rows"] = pd.DataFrame({"cc": ["cubic"], "queue": ["droptail"],
                                              "seed": [1], "live_goodput_mbps": [9.6],
                                              "sim_goodput_mbps": [9.7]})  # fmt: skip
    assert lvs.STUDY.finding("L1").verdict(data).status == "holds"
    reno = lvs.STUDY.finding("L4").verdict(data)
    assert (reno.status, reno.evidence) == ("not run", "scale smoke runs no reno (it runs cubic)")


# --- the live executor ---------------------------------------------------------------------------
def test_a_live_run_is_reused_only_on_the_same_kernel_and_engine() -> None:
    build = LiveExecutor().build_id
    assert build == live_build_id() == (
        f"live kernel {platform.release()} engine {current_build_id()}")
    assert live_build_id("other") != build


TINY = {"name": "tiny-live", "duration": "2s", "warmup": "0s",
        "topology": {"servers": 1, "clients": 1, "bottleneck": {"rate": "10Mbps"}},
        "traffic": [{"name": "cbr", "kind": "cbr", "rate": "1Mbps"}]}  # fmt: skip


def _jobs(n: int) -> list[Job]:
    scenario = as_scenario(TINY)
    digest = scenario_hash(resolve(scenario))
    return [Job(scenario, seed, digest) for seed in range(1, n + 1)]


def test_the_executor_runs_jobs_in_turn_stores_failures_and_stops_on_ctrl_c(
    tmp_path: Path,
) -> None:
    calls: list[int] = []

    def run(scenario: Any, *, seed: int) -> Any:
        calls.append(seed)
        if seed == 2:
            raise LiveUnavailable("needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) to make ...")
        if seed == 3:
            raise InputError("traffic[0].kind", 'live mode runs ftp, cbr and web-mah groups')
        if seed == 5:
            raise KeyboardInterrupt
        return aqmlab.run(scenario, seed=seed)  # a stand-in for a live run

    store = Store.open(tmp_path / "store", create=True)
    executor = LiveExecutor(run)
    done: list[tuple[int, str, str | None]] = []
    jobs = _jobs(6)
    with pytest.raises(KeyboardInterrupt):
        executor.run(jobs, store, executor.build_id,
                     lambda i, status, summary, error: done.append((i, status, error)),
                     lambda fractions: None)  # fmt: skip
    assert calls == [1, 2, 3, 4, 5]  # one at a time, in order; nothing after Ctrl-C
    assert done == [
        (0, "ran", None),
        (1, "failed", "live: needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) to make ..."),
        (2, "failed", 'traffic[0].kind: live mode runs ftp, cbr and web-mah groups'),
        (3, "ran", None),
    ]
    states = [store.check(j.scenario_hash, j.seed, build_id=executor.build_id) for j in jobs]
    assert [s.status for s in states] == ["finished", "failed", "failed", "finished", "missing",
                                          "missing"]  # fmt: skip
    assert states[1].reason.startswith("live: needs root")
    summary = json.loads((store.run_dir(jobs[0].scenario_hash, 1) / "summary.json").read_text())
    assert summary["meta"]["build"]["id"] == executor.build_id
    assert summary["meta"]["build"]["engine_id"] == current_build_id()
    # A run made by the simulator's engine build is not taken for a live one.
    assert store.check(jobs[0].scenario_hash, 1, build_id=current_build_id()).status == (
        "other-build")


# --- experiments on their own executors ----------------------------------------------------------
class Counting(LocalExecutor):
    """A local executor that counts the jobs it was given."""

    made: list[Counting] = []

    def __init__(self) -> None:
        super().__init__(1)
        self.jobs = 0
        Counting.made.append(self)

    def run(self, todo: Any, *rest: Any) -> None:
        self.jobs += len(todo)
        super().run(todo, *rest)


def _cbr(name: str, rates: tuple[str, ...]) -> Callable[[Scale, Data], Sweep]:
    return lambda scale, data: Sweep.from_options({**TINY, "name": name},
                                                  {"traffic[cbr].rate": list(rates)})


def _study(other_name: str) -> Study:
    judge = lambda data: Verdict("holds", "ran")  # noqa: E731
    return Study(
        name="executors", title="t", scales={"smoke": Scale("smoke", reproduction=False)},
        experiments=(
            Experiment("a", "a", _cbr("a", ("1Mbps", "2Mbps"))),
            Experiment("b", "b", _cbr(other_name, ("1Mbps",)), executor=Counting),
            Experiment("c", "c", _cbr("c", ("3Mbps",)), executor=Counting),
        ),
        findings=(Finding("X1", "x", ("a", "b", "c"), "x", judge),),
    )  # fmt: skip


def test_an_experiment_runs_on_the_executor_it_names(tmp_path: Path) -> None:
    Counting.made.clear()
    done = reproduce(_study("b"), "smoke", tmp_path / "out", jobs=1, progress=False)
    assert done.verdicts["X1"].status == "holds" and done.ran == 4
    # One executor made for the two experiments that name it, given their runs in one batch.
    assert [c.jobs for c in Counting.made] == [2]


def test_a_run_two_executors_would_share_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="also made on another executor"):
        reproduce(_study("a"), "smoke", tmp_path / "out", jobs=1, progress=False)


# --- smoke runs ----------------------------------------------------------------------------------
NO_ROOT = "needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) to make network namespaces"


def test_without_live_mode_the_simulated_side_runs_and_the_live_findings_are_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_root() -> None:
        raise LiveUnavailable(NO_ROOT)

    # As without root, wherever the test runs (aqmlab.live's name "lab" is the function).
    monkeypatch.setattr(sys.modules["aqmlab.live.lab"], "check_can_run", no_root)
    done = reproduce(lvs.STUDY, "smoke", tmp_path / "out", jobs=1, progress=False)
    assert len(done.failed) == 3 and all(NO_ROOT in line for line in done.failed)
    assert done.ran == 3  # the simulated runs
    findings = json.loads((done.out / "findings.json").read_text())["findings"]
    assert {f["status"] for f in findings} == {"not run"}
    assert findings[0]["evidence"] == (
        f"its experiments did not run: bulk_live (1 of its 1 runs failed: live: {NO_ROOT})")
    assert "web_live (2 of its 2 runs failed" in findings[-1]["evidence"]
    report = done.report.read_text()
    assert "test the plumbing" in report and "| bulk_sim |" in report


@needs_namespaces
def test_a_smoke_run_compares_live_and_simulated_runs(tmp_path: Path) -> None:
    done = reproduce(lvs.STUDY, "smoke", tmp_path / "out", jobs=1, progress=False)
    assert not done.failed and done.runs == 6
    verdicts = {k: v.status for k, v in done.verdicts.items()}
    for judged in ("L1", "L2", "L3", "L10"):
        assert verdicts[judged] in ("holds", "does not hold"), done.verdicts[judged]
    assert {verdicts[f"L{k}"] for k in range(4, 10)} == {"not run"}
    report = done.report.read_text()
    for part in ("## Bulk flows: live beside simulated", "## Web users: response times",
                 "## Response-time distributions", "## Live router timing",
                 "figures/response_cdfs.png"):  # fmt: skip
        assert part in report
    bulk = pd.read_csv(done.out / "bulk.csv")
    assert bulk[["cc", "queue"]].values.tolist() == [["cubic", "droptail"]]
    assert 8 < bulk["live_goodput_mbps_mean"].iloc[0] <= 10
    web = pd.read_csv(done.out / "web.csv")
    assert (web["live_completed_mean"] > 0).all() and web["ks_mean"].between(0, 1).all()
    # The live runs say so, with the kernel they ran on.
    live = aqmlab.collect(done.out / "store", sweep="bulk_live")
    assert (live["live.kernel"] == platform.release()).all()
    # This process's namespaces are gone (another live run on the machine may have its own).
    mine = f"aqmlab-{os.getpid()}-"
    assert ours() == [] and not [n for n in os.listdir("/run/netns") if n.startswith(mine)]
    # Again: every run is reused.
    again = reproduce(lvs.STUDY, "smoke", tmp_path / "out", jobs=1, progress=False)
    assert (again.ran, again.reused) == (0, 6)
