"""Chung & Claypool 2003: judges on synthetic frames, the paper's settings, a smoke reproduction."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from aqmlab.papers import chung2003 as cc
from conftest import cli, smoke_reproduction


def _law(slope_sign: int, noise: float = 0.0) -> pd.DataFrame:
    rows = []
    for p in (0.01, 0.05):
        for i, n in enumerate((100, 200, 300)):
            q = (10 if p == 0.01 else 2) * n * slope_sign + 5000 + (noise if i == 1 else 0)
            rows.append({"p": p, "n": n, "seed": 1, "avg_queue": q})
    return pd.DataFrame(rows)


def test_linearity_holds_and_fails() -> None:
    assert cc.linearity_check("n", +1)(_law(+1))[0]
    assert not cc.linearity_check("n", +1)(_law(-1))[0]  # wrong sign
    assert not cc.linearity_check("n", +1)(_law(+1, noise=2000.0))[0]  # not a line


def _delay_family(per_ms: float, noise: float = 0.0) -> pd.DataFrame:
    """200 flows at 20 Mbps: q = n·W(p) − slope·R over 40–160 ms, three seeds, ± ``noise``."""
    rows = []
    for p, window in ((0.01, 12.0), (0.05, 5.0)):
        for seed in (1, 2, 3):
            for r in (40.0, 80.0, 120.0, 160.0):
                wobble = noise * ((seed + r / 40) % 3 - 1)
                rows.append({"p": p, "n": 200, "b": 20.0, "r": r, "seed": seed,
                             "avg_queue": 200 * window - per_ms * r + wobble})  # fmt: skip
    return pd.DataFrame(rows)


def test_the_queue_law_slope_is_judged_against_the_laws_own() -> None:
    law = 20e6 / (8 * cc.WIRE_B) / 1e3
    check = cc.law_slope_check("r")
    ok, evidence, numbers = check(_delay_family(law, noise=5.0))
    assert ok and numbers["agree"] == 2, evidence
    # the queue rising with delay (Fig. 6's words) is not the law: the first criterion holds
    rising = _delay_family(-law)
    assert not check(rising)[0] and cc.linearity_check("r", +1)(rising)[0]
    # a slope 30% off the law's, tightly fitted, does not agree
    assert not check(_delay_family(1.3 * law))[0]
    # bandwidth: −R/(8·s) packets per Mbps at 80 ms, 9.6; the wrong sign fails
    b = pd.DataFrame({"p": 0.01, "n": 200, "r": 80.0, "seed": 1, "b": [5.0, 10.0, 15.0, 20.0]})
    per_mbps = cc.law_slope("b", b)
    assert round(per_mbps, 2) == -9.62
    assert cc.law_slope_check("b")(b.assign(avg_queue=2000 + per_mbps * b["b"]))[0]
    assert not cc.law_slope_check("b")(b.assign(avg_queue=2000 - per_mbps * b["b"]))[0]


def test_cc3_is_marked_paper_inconsistent_with_both_sentences() -> None:
    cc3 = cc.STUDY.finding("CC3")
    assert "increases linearly with the round trip link delay" in cc3.inconsistent
    assert "inversely linearly proportional" in cc3.inconsistent
    assert cc3.revised_from is not None and cc3.revised_from.judge is not None


def test_every_finding_quotes_the_paper_with_where() -> None:
    assert [f.id for f in cc.STUDY.findings] == [f"CC{i}" for i in range(1, 15)]
    for finding in cc.STUDY.findings:
        assert re.fullmatch(r"\S.* \([^()]+\)", finding.words, re.S), (finding.id, finding.words)


def test_overlap_holds_and_fails() -> None:
    f = pd.DataFrame({"p": [0.01, 0.01, 0.05, 0.05], "config": ["a", "b", "a", "b"],
                      "avg_cwnd": [12.0, 12.5, 5.0, 5.1], "seed": 1})  # fmt: skip
    assert cc.overlap_check(f)[0]
    assert not cc.overlap_check(f.assign(avg_cwnd=[12.0, 18.0, 5.0, 5.1]))[0]


def test_stability_holds_and_fails() -> None:
    rows = []
    caps = {"red": 150, "gentle": 200, "ared": 300}
    for aqm, cap in caps.items():
        for flows in range(50, 301, 50):
            rows.append({"aqm": aqm, "seed": 1, "flows": flows,
                         "forced_share": 0.01 if flows <= cap else 0.4, "unstable_share": 0.0,
                         "avg_mean": 200.0 if flows <= cap else 305.0})  # fmt: skip
    frame = pd.DataFrame(rows)
    ok, evidence, numbers = cc.stability_check(frame)
    assert ok and numbers["last_stable"] == caps, evidence
    worse = frame.assign(forced_share=frame["forced_share"].where(frame["aqm"] != "ared", 0.4))
    assert not cc.stability_check(worse)[0]
    # the first test (the share of intervals at max_th) sees no instability in these rows
    assert not cc.stability_check(frame, test="unstable_share")[0]


def _limited(six_queue_at_low_p: float = 8000.0, six_cwnd: tuple[float, float] = (5.5, 2.5)
             ) -> pd.DataFrame:  # fmt: skip
    # (limit, avg_cwnd at p = 0.01 and 0.3, avg_queue at p = 0.01 and 0.3)
    laws = {"cwnd12": ((10.0, 2.0), (4000.0, 2000.0)),
            "cwnd6": (six_cwnd, (six_queue_at_low_p, 2000.0)),
            "unlimited": ((20.0, 2.0), (2500.0, 500.0))}  # fmt: skip
    rows = []
    for limit, (cwnd, queue) in laws.items():
        for i, p in enumerate((0.01, 0.3)):
            rows.append({"limit": limit, "p": p, "seed": 1, "drop_rate": p,
                         "avg_cwnd": cwnd[i], "avg_queue": queue[i]})  # fmt: skip
    return pd.DataFrame(rows)


def test_limited_windows_hold_and_fail() -> None:
    # Flatness ratios 5.5/2.5 = 2.2 < 10/2 = 5 < 20/2 = 10; 3000 packets at p = 0.155 (12) and
    # 0.252 (6): 1.62 times.
    ok, _, numbers = cc.limited_check(_limited())
    assert ok and 1.5 < numbers["ratio_6_12"] < 1.7
    assert not cc.limited_check(_limited(six_cwnd=(12.0, 2.0)))[0]  # 6 not flatter than 12
    assert not cc.limited_check(_limited(six_queue_at_low_p=3100.0))[0]  # ratio 6/12 = 0.23


def _notification(mark_cwnd: float = 1.05, mark_slope: float = -0.6) -> pd.DataFrame:
    rows = []
    for n in (100, 200, 300):
        for how, slope, cwnd in (("drop", -1.0, 1.0), ("mark", mark_slope, mark_cwnd)):
            for p in (0.01, 0.02, 0.05, 0.1):
                rows.append({"config": f"n{n}-b20-r80", "how": how, "p": p, "seed": 1,
                             "rate": p, "avg_queue": 10.0 * n * (p / 0.1) ** slope,
                             "avg_cwnd": cwnd * 1.3 / p**0.5})  # fmt: skip
    return pd.DataFrame(rows)


def test_notification_holds_and_fails() -> None:
    ok, _, numbers = cc.notification_check(_notification())
    assert ok and abs(numbers["max_cwnd_dev"] - 0.05) < 1e-9
    assert not cc.notification_check(_notification(mark_cwnd=1.3))[0]  # marks act less
    assert not cc.notification_check(_notification(mark_slope=-1.4))[0]  # marks fall faster


FLOWS = (50, 100, 150, 200, 250, 300)


def _steps(**changes: dict[int, dict[str, float]]) -> pd.DataFrame:
    """One row per (aqm, step): a run where CC8 and CC9 hold; ``changes[aqm][flows]`` overrides."""
    base = {"droptail": {"loss": 0.010, "queue_mean": 450.0, "avg_sd": 20.0},
            "red": {"loss": 0.020, "queue_mean": 250.0, "avg_sd": 10.0},
            "gentle": {"loss": 0.018, "queue_mean": 280.0, "avg_sd": 10.0},
            "ared": {"loss": 0.015, "queue_mean": 200.0, "avg_sd": 8.0},
            "red-ecn": {"loss": 0.0005, "queue_mean": 250.0, "avg_sd": 10.0},
            "gentle-ecn": {"loss": 0.0004, "queue_mean": 280.0, "avg_sd": 10.0},
            "ared-ecn": {"loss": 0.0002, "queue_mean": 150.0, "avg_sd": 5.0}}  # fmt: skip
    rows = []
    for aqm, values in base.items():
        for flows in FLOWS:
            row = {"aqm": aqm, "seed": 1, "flows": flows, "utilization": 0.995,
                   "forced_share": 0.0, "unstable_share": 0.0, **values}  # fmt: skip
            row.update(changes.get(aqm.replace("-", "_"), {}).get(flows, {}))
            row["loss_whole"] = row["loss"]
            rows.append(row)
    return pd.DataFrame(rows)


def test_loss_gaps_are_judged_on_paired_seed_intervals() -> None:
    seeds = [_steps().assign(seed=s) for s in (1, 2, 3)]
    ok, evidence, numbers = cc.loss_gap_check(pd.concat(seeds))
    assert ok and numbers["red"]["mean_gap"] == pytest.approx(0.010), evidence
    # RED below drop-tail at 50 flows on every seed: a step clearly below fails it
    below = [_steps(red={50: {"loss": 0.005}}).assign(seed=s) for s in (1, 2, 3)]
    assert not cc.loss_gap_check(pd.concat(below))[0]
    # ... where one seed of three above, two below is a tie at that step, and holds
    tie = [_steps(red={50: {"loss": loss}}).assign(seed=s)
           for s, loss in ((1, 0.005), (2, 0.009), (3, 0.03))]  # fmt: skip
    ok, evidence, numbers = cc.loss_gap_check(pd.concat(tie))
    assert ok and numbers["red"]["below_at"] == [], evidence
    assert not cc.loss_gap_check(_steps(ared={300: {"utilization": 0.95}}))[0]


def test_utilization_and_loss_hold_and_fail() -> None:
    assert cc.utilization_loss_check(_steps())[0]
    # one step below drop-tail is allowed, two are not
    one = {50: {"loss": 0.005}}
    assert cc.utilization_loss_check(_steps(red=one))[0]
    assert not cc.utilization_loss_check(_steps(red={**one, 100: {"loss": 0.005}}))[0]
    assert not cc.utilization_loss_check(_steps(ared={300: {"utilization": 0.95}}))[0]


def test_ecn_holds_and_fails() -> None:
    # RED-ECN unstable from 200 flows with real loss there: still holds (judged where stable)
    unstable = {f: {"forced_share": 0.5, "loss": 0.01} for f in (200, 250, 300)}
    ok, _, numbers = cc.ecn_check(_steps(red_ecn=unstable))
    assert ok and numbers["red-ecn"]["max_loss_stable"] == 0.0005
    assert not cc.ecn_check(_steps(red_ecn={100: {"loss": 0.005}}))[0]  # loss in a stable step
    assert not cc.ecn_check(_steps(ared_ecn={250: {"loss": 0.002, "forced_share": 0.5}}))[0]
    assert not cc.ecn_check(_steps(ared_ecn={f: {"avg_sd": 9.0} for f in FLOWS}))[0]
    assert not cc.ecn_check(_steps(ared_ecn={f: {"queue_mean": 500.0} for f in FLOWS}))[0]


def test_experiments_have_the_papers_settings() -> None:
    scale = cc.STUDY.scales["quick"]
    inc = cc.build_incremental(scale, None).points()  # type: ignore[arg-type]
    red = next(p for p in inc if p.labels["aqm"] == "red").scenario
    q = red["queue"]
    assert (q["min_th"], q["max_th"], q["max_p"], q["limit"], q["gentle"]) == (
        100.0, 300.0, 0.1, "500p", False)
    assert red["topology"]["bottleneck"]["rate"] == "20Mbps"
    starts = [g["start"]["min"] for g in red["traffic"]]
    assert starts == ["0s", "50s", "100s", "150s", "200s", "250s"]
    assert all(g["flows"] == 50 for g in red["traffic"])
    ared = next(p for p in inc if p.labels["aqm"] == "ared-ecn").scenario
    assert ared["queue"]["adaptive"]["top"] == 0.5 and ared["tcp"]["ecn"] is True
    lim = cc.build_limited(scale, None).points()  # type: ignore[arg-type]
    six = next(p for p in lim if p.labels["limit"] == "cwnd6").scenario
    assert six["tcp"]["rwnd"] == "6000B" and sum(g["flows"] for g in six["traffic"]) == 1300
    assert six["queue"]["kind"] == "bernoulli"
    marks = cc.build_notification(scale, None).points()  # type: ignore[arg-type]
    assert {p.labels["config"] for p in marks} == {"n100-b20-r80", "n200-b20-r80", "n300-b20-r80"}
    for point in marks:
        q, tcp = point.scenario["queue"], point.scenario["tcp"]
        assert (q["kind"], q["ecn"], tcp["ecn"]) == ("bernoulli", True, True)
        assert q["p"] == float(point.labels["p"])
    high = cc.build_law_high(scale, None).points()  # type: ignore[arg-type]
    assert {(p.labels["how"], p.labels["p"]) for p in high} == {
        (how, p) for how in ("drop", "mark") for p in ("0.2", "0.5")}
    for point in high:
        mark = point.labels["how"] == "mark"
        q, tcp = point.scenario["queue"], point.scenario["tcp"]
        assert (q["kind"], q["ecn"], tcp["ecn"], q["p"]) == (
            "bernoulli", mark, mark, float(point.labels["p"]))
    law = cc.build_law(scale, None).points()  # type: ignore[arg-type]
    labels = {p.labels["config"] for p in law}
    assert {"n100-b20-r80", "n200-b5-r80", "n200-b20-r160"} <= labels


def test_smoke_reproduction(tmp_path: Path) -> None:
    out, _ = smoke_reproduction("chung2003", [f"CC{i}" for i in range(1, 15)], tmp_path)
    figures = {p.name for p in (out / "figures").iterdir()}
    assert {"fig13_18_queues.png", "fig4_flows.png", "fig12_prediction.png"} <= figures
    # against an earlier report (here: this one, with CC1 made to fail, CC2's criterion
    # changed and CC14 absent): what changed since, each finding with the reason
    before = json.loads((out / "findings.json").read_text())
    first, second = before["findings"][0], before["findings"][1]
    first["status"] = "does not hold" if first["status"] == "holds" else "holds"
    second["criterion"] = "an older criterion"
    before["findings"] = before["findings"][:-1]
    (tmp_path / "before.json").write_text(json.dumps(before))
    again = cli("reproduce", "chung2003", "--scale", "smoke", "--out", "out", "--jobs", "2",
                "--since", "before.json", cwd=tmp_path)  # fmt: skip
    assert again.returncode == 0, again.stderr
    report = (out / "report.md").read_text()
    assert "### What changed since the last report" in report
    assert f"| CC1 | {first['status']} | **" in report
    assert "| CC2 |" in report and "criterion revised" in report
    assert "| CC14 | — |" in report and "new finding" in report


def test_since_must_be_an_earlier_findings_json(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "odd.json").write_text('{"findings": [{"id": 3}]}')
    for name, words in (("none.json", "no such file"), ("bad.json", "expected JSON"),
                        ("odd.json", 'entries with "id" and "status"')):  # fmt: skip
        done = cli("reproduce", "chung2003", "--scale", "smoke", "--out", "out",
                   "--since", name, cwd=tmp_path)  # fmt: skip
        assert done.returncode == 2 and f"--since {name}: " in done.stderr, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out" / "store").exists(), "refused before anything ran"


def _laws(k: float) -> pd.DataFrame:
    """Drop and mark laws of 100/200/300 flows: q = k·n·W(p) − 192, W falling slower with marks."""
    rows = []
    for how in ("drop", "mark"):
        for n in (100, 200, 300):
            for p in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5):
                window = 1.2 / p**0.5 if how == "drop" else 1.2 / 0.01**0.2 / p**0.3
                rows.append({"kind": "law", "how": how, "n": n, "p": p, "seed": 1, "rate": p,
                             "avg_queue": max(k * n * window - 192, 0.0)})  # fmt: skip
    return pd.DataFrame(rows)


def _stable_to(caps: dict[str, int]) -> pd.DataFrame:
    """Step rows (``kind`` step) of queues stable up to ``caps[aqm]`` flows, forced beyond."""
    return pd.DataFrame([{"kind": "step", "aqm": aqm, "seed": 1, "flows": flows,
                          "forced_share": 0.0 if flows <= cap else 0.5}
                         for aqm, cap in caps.items() for flows in FLOWS])  # fmt: skip


def test_the_law_prediction_holds_and_fails() -> None:
    # k = 0.5: the law predicts RED stable to 200, gentle RED to 300, RED-ECN to 100 (as §4);
    # gentle RED-ECN, dropping above max_th, to 300 on the drop law
    measured = {"red": 150, "gentle": 250, "red-ecn": 100, "gentle-ecn": 300}
    ok, evidence, numbers = cc.law_prediction_check(pd.concat([_laws(0.5), _stable_to(measured)]))
    assert ok, evidence
    assert numbers["predicted"] == {"red": 200, "gentle": 300, "red-ecn": 100, "gentle-ecn": 300}
    # RED measured stable to 100 only: two steps from the law's 200
    early = pd.concat([_laws(0.5), _stable_to({**measured, "red": 100})])
    assert not cc.law_prediction_check(early)[0]
    # laws that predict RED unstable from 100 flows are not "about 200", however well they agree
    busy = {"red": 50, "gentle": 300, "red-ecn": 50, "gentle-ecn": 300}
    ok, evidence, numbers = cc.law_prediction_check(pd.concat([_laws(1.2), _stable_to(busy)]))
    assert not ok and all(numbers["agree"].values()), evidence


def test_ecn_stability_holds_and_fails() -> None:
    unstable = {"forced_share": 0.5}
    red_ecn = {f: unstable for f in (150, 200, 250, 300)}
    ok, evidence, numbers = cc.ecn_stability_check(
        _steps(red_ecn=red_ecn, gentle_ecn={f: unstable for f in (250, 300)}))
    assert ok and numbers["last_stable"] == {"red-ecn": 100, "gentle-ecn": 200}, evidence
    # gentle RED-ECN unstable at 200: no benefit of the gentle behavior there
    assert not cc.ecn_stability_check(
        _steps(red_ecn=red_ecn, gentle_ecn={f: unstable for f in (200, 250, 300)}))[0]
    assert not cc.ecn_stability_check(_steps())[0]  # RED-ECN stable at every load


def _gap_laws(targets: dict[tuple[str, int], float]) -> pd.DataFrame:
    """Laws q = 500·r*/r through 500 packets at each (how, n)'s rate r* (on the grid)."""
    rates = (0.01, 0.02, 0.04, 0.08, 0.12, 0.16, 0.32, 0.64)
    return pd.DataFrame([{"how": how, "n": n, "p": r, "seed": 1, "rate": r,
                          "avg_queue": 500 * target / r}
                         for (how, n), target in targets.items() for r in rates])  # fmt: skip


def test_the_mark_gap_holds_and_fails() -> None:
    drops = {("drop", 100): 0.02, ("drop", 200): 0.04, ("drop", 300): 0.08}
    marks = {("mark", 100): 0.02, ("mark", 200): 0.08, ("mark", 300): 0.32}
    ok, evidence, numbers = cc.mark_gap_check(_gap_laws({**drops, **marks}))
    assert ok, evidence
    assert [round(g, 9) for g in numbers["gap"].values()] == [0.0, 0.04, 0.24]
    # a gap that stops growing (0, 0.04, 0.04) or grows less at the top (0, 0.12, 0.08)
    assert not cc.mark_gap_check(_gap_laws({**drops, **marks, ("mark", 300): 0.12}))[0]
    assert not cc.mark_gap_check(
        _gap_laws({**drops, **marks, ("mark", 200): 0.16, ("mark", 300): 0.16}))[0]
    # a mark law still above 500 packets at the highest rate measured
    ok, evidence, _ = cc.mark_gap_check(_gap_laws({**drops, **marks, ("mark", 300): 1.28}))
    assert not ok and "— /" in evidence, evidence


def test_gentle_loss_holds_and_fails() -> None:
    def seeds(gentle_300: tuple[float, float, float]) -> pd.DataFrame:
        return pd.concat([
            _steps(gentle={250: {"loss": 0.020 - d}, 300: {"loss": 0.020 + g}}).assign(seed=s)
            for s, d, g in zip((1, 2, 3), (0.002, 0.003, 0.0015), gentle_300, strict=True)])

    ok, evidence, numbers = cc.gentle_loss_check(seeds((-0.002, -0.0025, -0.0018)))
    assert ok and numbers["below"] == {250: True, 300: True}, evidence
    # one seed of three above RED at 300 flows: a tie there, not a reduction
    assert not cc.gentle_loss_check(seeds((-0.002, -0.003, 0.004)))[0]
    assert not cc.gentle_loss_check(_steps(gentle={250: {"loss": 0.021}}))[0]  # one seed


def _oscillations(red: dict[int, float], ared: dict[int, float]) -> pd.DataFrame:
    """Step rows of RED and Adaptive RED with these amplitudes (± a little by seed)."""
    return pd.DataFrame([{"aqm": aqm, "seed": s, "flows": f, "osc_amp": amp[f] + 0.3 * s,
                          "osc_period_s": 4.0}
                         for aqm, amp in (("red", red), ("ared", ared))
                         for s in (1, 2, 3) for f in FLOWS])  # fmt: skip


def test_oscillation_holds_and_fails() -> None:
    red = {50: 3.0, 100: 2.5, 150: 4.0, 200: 20.0, 250: 25.0, 300: 30.0}
    steady = dict.fromkeys(FLOWS, 5.0)
    ok, evidence, numbers = cc.oscillation_check(_oscillations(red, steady))
    assert ok and numbers["rise"] == pytest.approx(16.0), evidence
    # Adaptive RED oscillating as much as RED at 300 flows
    assert not cc.oscillation_check(_oscillations(red, {**steady, 300: 30.0}))[0]
    # RED not yet oscillating at 200 flows
    assert not cc.oscillation_check(_oscillations({**red, 200: 3.5}, steady))[0]
