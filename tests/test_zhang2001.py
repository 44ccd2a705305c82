"""The Zhang & Qiu 2001 study: testbed, judges on synthetic frames, the smoke reproduction."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aqmlab
import numpy as np
import pandas as pd
import pytest
from aqmlab import papers
from aqmlab.papers import zhang2001 as z
from aqmlab.scenario import TCP_KINDS, group_tcp
from aqmlab.study.design import Factor, Level, factorial
from conftest import smoke_reproduction

SCHEMES = z.SCHEMES
RED = z.RED


# --- the testbed ---------------------------------------------------------------------------------
def test_buffer_is_two_bandwidth_delay() -> None:
    assert z.BUFFER_PKTS == pytest.approx(2 * 1.544e6 * 0.050 / 8 / 500)  # 38.6 packets
    assert z.queue("dt")["limit"] == "39p"
    assert z.min_th("r1") == pytest.approx(38.6 / 6) and z.min_th("r2") == pytest.approx(38.6 / 9)
    assert z.SERVICE_NS == round(500 * 8 / 1.544e6 * 1e9)


def test_experiments_resolve_with_the_papers_settings() -> None:
    scale = z.STUDY.scales["quick"]
    data = aqmlab.study.Data(Path("unused"), (), scale, (1,))
    seen: set[str] = set()
    networks = {z.network_label(d, k): (d, k) for d, k in scale["choices"].networks}
    for experiment in z.STUDY.experiments:
        for point in experiment.build(scale, data).points():
            r = aqmlab.resolve(point.scenario)
            top = r["topology"]
            delay, factor = networks.get(point.labels.get("network", ""), (50.0, 1.0))
            buffer = z.network_buffer(delay, factor)
            assert top["bottleneck"] == {"rate": "1544kbps", "delay": f"{delay:g}ms",
                                         "framing": "none"}  # fmt: skip
            assert (top["access"]["rate"], top["access"]["delay"]) == ("10Mbps", "1ms")
            assert (r["duration"], r["warmup"]) == ("200s", "50s")
            tcps = [r["tcp"], *(group_tcp(r, g) for g in r["traffic"] if g["kind"] in TCP_KINDS)]
            delack = "one-shot" if experiment.name == "mix_delack" else "off"
            for t in tcps:
                assert t["profile"] == "ns2-2000" and t["delack"] == delack
                assert (t["mss"], t["header"], t["tick"]) == ("500B", "0B", "100ms")
                assert t["rwnd"] == "100KB" and t["overhead"] == "2590674ns"
                assert t["variant"] in ("reno", "sack")
            for q in (r["queue"], r["reverse_queue"]):
                if experiment.name == "buffers" and q is r["queue"]:
                    assert q["kind"] == "droptail"
                    continue
                assert q["limit"] == f"{round(buffer)}p"
                if q["kind"] == "red":
                    assert q["gentle"] and q["max_p"] == 0.1 and q["w_q"] == 0.002
                    assert q["max_th"] == pytest.approx(3 * q["min_th"], abs=1e-3)
                    assert q["min_th"] == pytest.approx(z.min_th(point.labels["scheme"], buffer),
                                                        abs=1e-3)  # fmt: skip
                    ecn_flows = [t["ecn"] for t in tcps[1:]] or [r["tcp"]["ecn"]]
                    if experiment.name.startswith("ecn_"):
                        assert q["ecn"] and sorted(ecn_flows) == [False, True]
                    else:
                        assert all(e == q["ecn"] for e in ecn_flows)
                else:
                    assert q["kind"] == "droptail"
            seen.add(aqmlab.scenario_hash(r))
    # mix 84, buffers 7, udp 42, ecn 33 + 24, rtt2 32 + 56, rtt8 35, two-way 42 + 49 + 49;
    # variants: delayed ACKs 21, networks 42, SACK ECN 21; web both ways 35 + 35
    assert len(seen) == 84 + 7 + 42 + 33 + 24 + 32 + 35 + 56 + 42 + 49 + 49 + 21 + 42 + 21 + 70


def test_variants_change_only_their_setting() -> None:
    scale = z.STUDY.scales["quick"]
    data = aqmlab.study.Data(Path("unused"), (), scale, (1,))
    points = {e.name: e.build(scale, data).points() for e in z.STUDY.experiments}

    def base(experiment: str, *keys: str) -> dict[tuple[str, ...], Any]:
        return {tuple(p.labels[k] for k in keys): p.scenario for p in points[experiment]
                if p.labels.get("variant", "reno") == "reno"}  # fmt: skip

    mix, ecn = base("mix", "scheme", "web"), base("ecn_ftp", "scheme", "n")
    for p in points["mix_delack"]:
        expected = copy.deepcopy(mix[p.labels["scheme"], p.labels["web"]])
        expected["tcp"]["delack"] = "one-shot"
        assert p.scenario == expected
    for p in points["ecn_ftp_sack"]:
        expected = copy.deepcopy(ecn[p.labels["scheme"], p.labels["n"]])
        expected["tcp"]["variant"] = "sack"
        assert p.scenario == expected
    for p in points["mix_networks"]:
        d, k = {"d25-b1": (25.0, 1.0), "d100-b1": (100.0, 1.0)}[p.labels["network"]]
        expected = copy.deepcopy(mix[p.labels["scheme"], p.labels["web"]])
        expected["topology"]["bottleneck"]["delay"] = f"{d:g}ms"
        for key in ("queue", "reverse_queue"):
            expected[key] = z.queue(p.labels["scheme"], z.network_buffer(d, k))
        assert p.scenario == expected
    assert len(points["mix_networks"]) == 2 * 7 * 3


def test_rtt_groups_and_draws() -> None:
    assert z.rtt2_delays(2.5, 6, z.BASE_RTT_MS) == ["78000000ns"] * 3 + ["0ns"] * 3
    pds = z.rtt8_pds_ms(3)
    assert pds[0] == z.BASE_RTT_MS and all(z.BASE_RTT_MS <= p <= 300 for p in pds)
    assert pds == z.rtt8_pds_ms(3) != z.rtt8_pds_ms(4)
    with pytest.raises(ValueError):
        z.half_delay(50.0)


def test_factorial_sets_every_path_of_a_level() -> None:
    f = Factor("s", (Level("a", {"queue.kind": "droptail", "tcp.ecn": False}),
                     Level("b", {"queue.kind": "red", "tcp.ecn": True})))  # fmt: skip
    sweep = factorial({"duration": "1s"}, (f, Factor.over("d", "duration", ["1s", "2s"])))
    got = [(p.labels["s"], p.scenario["queue"]["kind"], p.scenario["tcp"]["ecn"],
            p.scenario["duration"]) for p in sweep.points()]  # fmt: skip
    assert got == [("a", "droptail", False, "1s"), ("a", "droptail", False, "2s"),
                   ("b", "red", True, "1s"), ("b", "red", True, "2s")]  # fmt: skip


def test_study_choices_are_overridable() -> None:
    s = z.study(pd2_ms=120.0, mix_ftp=3)
    scale = s.scales["quick"]
    data = aqmlab.study.Data(Path("unused"), (), scale, (1,))
    mix = s.experiments[0].build(scale, data).points()[0].scenario
    assert [g["flows"] for g in mix["traffic"] if g["name"] == "ftp"] == [3]
    assert any("PD2 = 120 ms" in item for item in s.testbed)


# --- judges on synthetic frames: each can hold and fail ------------------------------------------
def groups(rows: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame(rows)


def mix(web_gain: float, ftp_change: float, sack_dt: float, sack_red: float) -> pd.DataFrame:
    rows = []
    for seed in (1, 2):
        for scheme in SCHEMES:
            for variant in ("reno", "sack"):
                for n in (2, 10, 40):
                    w = 60.0 / (1 + n / 20) * (1 + web_gain * (scheme != "dt"))
                    w *= 1 + (sack_dt if scheme == "dt" else sack_red) * (variant == "sack")
                    f = 200.0 * (1 + ftp_change * (scheme != "dt"))
                    for group, value in (("web", w), ("ftp", f), ("telnet", 5.0)):
                        rows.append({"experiment": "mix", "scheme": scheme, "variant": variant,
                                     "web": n, "seed": seed, "group": group,
                                     "goodput_kbps": value * (1 + 0.001 * seed)})  # fmt: skip
    return groups(rows)


def z2(web_loss: float) -> pd.DataFrame:
    rows = [{"scheme": s, "group": g, "seed": 1, "dropped_pkts": round(1000 * loss),
             "data_segs": 1000} for s in ("dt", "r1") for g, loss in
            (("web", web_loss), ("ftp", 0.02), ("web", web_loss), ("ftp", 0.02))]  # fmt: skip
    return groups(rows)


def buffers(gain: float) -> pd.DataFrame:
    return groups([{"br": br, "seed": 1, "group": "web",
                    "goodput_kbps": 50.0 * (1 + gain * (1.4 - br) / 1.2)}
                   for br in (0.2, 0.6, 1.0, 1.4)])  # fmt: skip


def udp(loss: Callable[[str, str, str], float], flows: int = 20) -> pd.DataFrame:
    rows = []
    for src in z.UDP_SOURCES:
        for variant in ("reno", "sack"):
            for scheme in SCHEMES:
                for k in range(flows):
                    rate = loss(src, variant, scheme)
                    tail = src == "cbr" and scheme == "dt" and variant == "reno" and k < 4
                    rate = 0.2 if tail else rate
                    rows.append({"udp": src, "variant": variant, "scheme": scheme, "seed": 1,
                                 "lost_pkts": round(1000 * rate),
                                 "recv_pkts": 1000 - round(1000 * rate), "loss_rate": rate})
    return groups(rows)


def paper_udp(src: str, variant: str, scheme: str) -> float:
    base = 0.03
    if src == "pareto":
        return base + 0.02 * (variant == "sack") - 0.01 * (scheme in z.PLAIN_RED) + 0.02 * (
            scheme in z.ECN_RED)
    return base + 0.02 * (variant == "sack") + 0.005 * (scheme != "dt") + 0.01 * (
        scheme in z.ECN_RED)


def ecn(ftp_peak: float, web_peak: float) -> pd.DataFrame:
    rows = []
    for experiment, peak in (("ecn_ftp", ftp_peak), ("ecn_web", web_peak)):
        for scheme in z.ECN_RED:
            for n in (1, 4, 8, 12, 20):
                share = 1544.0 / (2 * n)
                gain = 0.02 + (peak - 0.02) * (n == 8)
                for group, g in (("ecn", share * (1 + gain)), ("plain_ecn", share)):
                    rows.append({"experiment": experiment, "scheme": scheme, "n": n,
                                 "seed": 1, "group": group, "goodput_kbps": g, "q_s": 0.05})
    return groups(rows)


def rtt2(power: float, schemes: tuple[str, ...], q: float = 0.02) -> pd.DataFrame:
    rows = []
    for scheme in schemes:
        for ratio in (1.0, 2.0, 3.0, 4.0):
            x = (ratio * 0.104 + q) / (0.104 + q)
            for group, g in (("g1", 100.0), ("g2", 100.0 * x**power)):
                rows.append({"scheme": scheme, "ratio": ratio, "seed": 1, "group": group,
                             "goodput_kbps": g, "q_s": q})  # fmt: skip
    return groups(rows)


def nfr(dt: float) -> pd.DataFrame:
    return groups([{"scheme": s, "draw": 0, "seed": 1, "nfr": dt if s == "dt" else 0.9}
                   for s in SCHEMES])  # fmt: skip


def twoway(few_gain: float, many_dev: float) -> pd.DataFrame:
    return groups([{"scheme": s, "n": n, "seed": 1, "group": "fwd",
                    "goodput_kbps": 1544 / n * (1 + (few_gain if s == "dt" and n <= 2 else 0))
                    * (1 + (many_dev if s != "dt" and n == 25 else 0))}
                   for s in SCHEMES for n in (1, 2, 8, 25)])  # fmt: skip


def reverse(red_falls: bool, web_dev: float = 0.0) -> pd.DataFrame:
    rows = []
    for s in SCHEMES:
        for n in (1, 5, 10, 20, 25):
            dt_rev = 150.0 / (1 + n / 5)
            red_rev = 150.0 / (1 + n / 5) if red_falls else 150.0 / (1 + min(n, 10) / 5) + 5
            rows.append({"scheme": s, "n": n, "seed": 1, "group": "rev",
                         "goodput_kbps": dt_rev if s == "dt" else red_rev})
            rows.append({"scheme": s, "n": n, "seed": 1, "group": "fwd",
                         "goodput_kbps": 50.0 * (1 + (web_dev if s != "dt" else 0))})
    return groups(rows)


def drops(red_web: float) -> pd.DataFrame:
    """Fig. 4's flows: web and FTP loss 2% under dt; under RED the FTP 3%, the web ``red_web``."""
    return groups([{"scheme": s, "group": g, "seed": 1, "data_segs": 1000,
                    "dropped_pkts": round(1000 * (0.02 if s == "dt" else loss))}
                   for s in SCHEMES for g, loss in (("web", red_web), ("ftp", 0.03))
                   for _ in range(3)])  # fmt: skip


def networks(d100_gain: float) -> pd.DataFrame:
    """Z1's mix in two networks: web +20% with RED at D 25 ms, ``d100_gain`` at D 100 ms."""
    return pd.concat([mix(0.2, -0.05, -0.1, 0.0).assign(network="d25-b1"),
                      mix(d100_gain, -0.05, -0.1, 0.0).assign(network="d100-b1")])  # fmt: skip


def sack_ecn(peak: float, base: float = 0.02) -> pd.DataFrame:
    """The FTP half of :func:`ecn` as ``ecn_ftp_sack``: gain ``base``, ``peak`` at n = 8."""
    rows = ecn(0.2, 0.04)
    rows = rows[rows["experiment"] == "ecn_ftp"].assign(experiment="ecn_ftp_sack")
    gain = np.where(rows["n"] == 8, peak, base)
    share = 1544.0 / (2 * rows["n"])
    return rows.assign(goodput_kbps=np.where(rows["group"] == "ecn", share * (1 + gain), share))


def fig18(dt_many: float, plain: float = 105.0) -> pd.DataFrame:
    """Forward FTP per flow at 4 and 16 each way: at 4 dt 110, plain RED ``plain``, ECN RED 100;
    at 16 RED 100 and dt 100 + ``dt_many``; three seeds, noise ±0.5 on dt."""
    rows = []
    for seed in (1, 2, 3):
        for s in SCHEMES:
            few = 110.0 if s == "dt" else plain if s in z.PLAIN_RED else 100.0
            many = 100.0 + (dt_many if s == "dt" else 0.0)
            for n, g in ((4, few), (16, many)):
                rows.append({"scheme": s, "n": n, "seed": seed, "group": "fwd",
                             "goodput_kbps": g + 0.5 * (seed - 2) * (s == "dt")})
    return groups(rows)


CASES: dict[str, tuple[Callable[[pd.DataFrame], tuple[bool, str, Any]], pd.DataFrame,
                       pd.DataFrame]] = {
    "Z1": (z.check_z1, mix(0.2, -0.05, -0.1, 0.0), mix(0.02, -0.05, -0.1, 0.0)),
    "Z1-ftp": (z.check_z1, mix(0.2, -0.05, -0.1, 0.0), mix(0.2, 0.03, -0.1, 0.0)),
    "Z2": (z.check_z2, z2(0.025), z2(0.06)),
    "Z3": (z.check_z3, buffers(0.2), buffers(0.01)),
    "Z4": (z.check_z4, mix(0.2, -0.05, -0.1, 0.0), mix(0.2, -0.05, -0.1, 0.1)),
    "Z5": (z.check_z5, udp(paper_udp), udp(lambda s, v, q: 0.03)),
    "Z6": (z.check_z6, udp(paper_udp), udp(paper_udp).assign(
        loss_rate=lambda f: np.where(f["scheme"] == "r2", 0.5, f["loss_rate"]))),
    "Z7": (z.check_z7, udp(paper_udp), udp(lambda s, v, q: 0.03 + 0.01 * (q != "dt"))),
    "Z8": (z.check_z8, ecn(0.2, 0.04), ecn(0.2, 0.15)),
    "Z8-peak": (z.check_z8, ecn(0.2, 0.04), ecn(0.8, 0.04)),
    "Z9": (lambda f: z.check_z9(f, 104.0), rtt2(1.8, ("dt",)), rtt2(1.0, ("dt",))),
    "Z10": (lambda f: z.check_z10(f, 104.0), rtt2(1.0, z.PLAIN_RED), rtt2(2.0, z.PLAIN_RED)),
    "Z11": (z.check_z11, nfr(0.8), nfr(0.95)),
    "Z12": (lambda f: z.check_z12(f, 104.0), rtt2(1.05, SCHEMES), rtt2(1.6, SCHEMES)),
    "Z13": (z.check_z13, twoway(0.1, 0.02), twoway(-0.05, 0.02)),
    "Z13-many": (z.check_z13, twoway(0.1, 0.02), twoway(0.1, -0.3)),
    "Z14": (z.check_z14, reverse(False), reverse(True)),
    "Z15": (z.check_z15, reverse(False), reverse(False, web_dev=0.3)),
    "Z16": (z.check_z16, drops(0.03), drops(0.06)),
    "Z17": (z.check_z17, mix(0.2, -0.05, -0.1, 0.0), mix(0.02, -0.05, -0.1, 0.0)),
    "Z18": (z.check_z18, networks(0.2), networks(0.5)),
    "Z19": (z.check_z19, sack_ecn(0.2), sack_ecn(0.8)),
    "Z19-ahead": (z.check_z19, sack_ecn(0.2), sack_ecn(0.2, base=-0.02)),
    "Z20": (z.check_z20, fig18(-5.0), fig18(5.0)),
    "Z20-few": (z.check_z20, fig18(-5.0), fig18(-5.0, plain=90.0)),
    "Z21": (z.check_z21, reverse(False), reverse(False, web_dev=0.3)),
    "Z22": (z.check_z22, reverse(False), reverse(False, web_dev=-0.2)),
    "Z23": (z.check_z23, reverse(False), reverse(True)),
    "Z23-web": (z.check_z23, reverse(False), reverse(False, web_dev=0.3)),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_judge_can_hold_and_fail(case: str) -> None:
    check, holds, fails = CASES[case]
    ok, text, numbers = check(holds)
    assert ok is True, text
    assert isinstance(text, str) and numbers
    ok, text, _ = check(fails)
    assert ok is False, text


def test_seedwise_verdict_says_whether_every_seed_holds() -> None:
    frame = pd.concat([nfr(0.8).assign(seed=1), nfr(0.8).assign(seed=2),
                       nfr(0.95).assign(seed=3)])  # fmt: skip
    verdict = aqmlab.study.seedwise(z.check_z11, frame)
    assert verdict.status == "holds" and verdict.every_seed is False


def test_every_finding_has_a_judge_and_a_criterion() -> None:
    assert [f.id for f in z.STUDY.findings] == [f"Z{i}" for i in range(1, 24)]
    for finding in z.STUDY.findings:
        assert finding.criterion and finding.needs
    # Revised: the findings on web-session goodput, now counted while transferring.
    revised = {f.id: f.revised_from for f in z.STUDY.findings if f.revised_from}
    assert set(revised) == {"Z1", "Z2", "Z3", "Z4", "Z8", "Z11", "Z12", "Z14", "Z15"}
    for fid in z.WINDOW_VERDICTS:
        # web goodput first measured over the whole window: the oldest revision, with the
        # verdict last recorded (its judge measured what the runs no longer hold)
        oldest = revised[fid].chain()[-1]
        assert oldest.reason == z.TRANSFERRING and oldest.judge is None
        assert oldest.recorded.startswith(z.WINDOW_VERDICTS[fid] + " (full report of commit")
    for fid in ("Z1", "Z2", "Z11", "Z14", "Z15"):  # re-read: the criterion before runs again
        assert revised[fid].judge is not None and revised[fid].quote, fid
    assert "zhang2001" in papers.names()


def test_every_finding_quotes_the_paper() -> None:
    # The paper's own words (each criterion's), ending with where they are, e.g. "… (§V-A, Fig. 3)".
    assert set(z.CRITERIA) == {f.id for f in z.STUDY.findings}
    for finding in z.STUDY.findings:
        assert finding.words.strip() and finding.words == z.CRITERIA[finding.id].words, finding.id
        assert re.search(r"\S \(§(?:[^()]|\([^()]*\))+\)$", finding.words), finding.id


def _reverse(dt_falls: float, red_falls: float, seeds: int = 3) -> pd.DataFrame:
    """Reverse FTP goodput over forward loads 1–8: each scheme's per-load fall, seed noise ±1."""
    return pd.DataFrame([{"scheme": s, "n": n, "seed": seed, "group": "rev",
                          "goodput_kbps": 100 - (dt_falls if s == "dt" else red_falls) * n
                          + (seed - 2) * 1.0}
                         for s in z.SCHEMES for n in (1, 2, 4, 6, 8)
                         for seed in range(1, seeds + 1)])  # fmt: skip


def test_z14_judges_the_shape_with_intervals() -> None:
    ok, evidence, numbers = z.check_z14_shape(_reverse(dt_falls=5.0, red_falls=0.0))
    assert ok and numbers["dt_slope"] == pytest.approx(-5.0), evidence
    # RED falling as drop-tail does: not levelling off
    assert not z.check_z14_shape(_reverse(dt_falls=5.0, red_falls=5.0))[0]
    # drop-tail flat: not "keeps falling"
    assert not z.check_z14_shape(_reverse(dt_falls=0.0, red_falls=0.0))[0]


def test_z11_asks_the_seeds_to_agree() -> None:
    rows = [{"scheme": s, "seed": seed, "nfr": 0.8 + (0.1 if s != "dt" else 0.0) + 0.01 * seed}
            for s in z.SCHEMES for seed in (1, 2, 3)]  # fmt: skip
    assert z.check_z11_paired(pd.DataFrame(rows))[0]
    # one seed where drop-tail is fairest: the mean is still above, the interval is not
    rows = [{**r, "nfr": 0.99} if r["scheme"] == "dt" and r["seed"] == 3 else r for r in rows]
    assert z.check_z11(pd.DataFrame(rows))[0] and not z.check_z11_paired(pd.DataFrame(rows))[0]


# --- the smoke reproduction through the command line ---------------------------------------------
def test_reproduce_smoke(tmp_path: Path) -> None:
    out, report = smoke_reproduction("zhang2001", [f"Z{i}" for i in range(1, 24)], tmp_path)
    assert "B = 2·BW·D = 38.6 packets" in report
    figures = {p.name for p in (out / "figures").glob("*.png")}
    assert {f"{spec.name}.png" for spec in z.FIGURES} == figures
    for spec in z.TABLES:
        assert (out / f"{spec.name}.csv").stat().st_size > 0
