"""What the study layer gives every paper: criteria, the listed findings, the testbed's one text."""

from __future__ import annotations

import pandas as pd
import pytest
from aqmlab import papers
from aqmlab.study import Criterion, Revision, Verdict, listed_findings
from aqmlab.study.model import typed_factors
from aqmlab.study.reference import findings as listed
from aqmlab.study.report import render_testbed


def above(data: float, *, low: float) -> Verdict:
    return Verdict.of(data > low, f"{data:g} > {low:g}", {"low": low})


def test_the_test_reads_the_thresholds() -> None:
    strict = Criterion(("bulk",), "x > 2", above, thresholds={"low": 2.0})
    loose = Criterion(("bulk",), "x > 0.5", above, thresholds={"low": 0.5})
    assert strict.finding("T1", "c").verdict(1.0).status == "does not hold"
    assert loose.finding("T1", "c").verdict(1.0).status == "holds"
    assert strict.judge(3.0).numbers == {"low": 2.0}


def test_a_finding_carries_the_criterion() -> None:
    first = Revision("x > 0", "noise", judge=lambda d: Verdict("holds", "x = 1"))
    c = Criterion(("a", "b"), """x above
        two,  on every seed""", lambda d: Verdict("does not hold", "x = 1"), words="x is 2 (§3)",
                  revised_from=first, also=("c",), inconsistent="§2: “x is 3”")  # fmt: skip
    f = c.finding("T2", "x is high")
    assert (f.id, f.claim, f.needs, f.also) == ("T2", "x is high", ("a", "b"), ("c",))
    assert f.criterion == "x above two, on every seed"  # wrapped text, whitespace collapsed
    assert (f.words, f.inconsistent, f.revised_from) == ("x is 2 (§3)", "§2: “x is 3”", first)
    assert f.judge is c.test  # no thresholds: the test itself
    verdict = f.verdict(None)
    assert (verdict.status, verdict.first.status) == ("does not hold", "holds")


def always(data: object) -> Verdict:
    return Verdict("holds", "")


def test_listed_findings_follow_the_list_with_parts_and_extra_claims() -> None:
    claims = listed("christiansen2000")
    ids = [i for i in claims if i != "C4"]
    criteria = {i: Criterion((), i, always) for i in [*ids, "C4a", "C4b", "C21"]}
    parts = {"C4": {"C4a": "part one", "C4b": "part two"}}
    found = listed_findings("christiansen2000", criteria, parts=parts, extra={"C21": "more"})
    assert [f.id for f in found] == [*ids[:3], "C4a", "C4b", *ids[3:], "C21"]
    assert [f.claim for f in found][3:5] == ["part one", "part two"]
    assert found[0].claim == claims["C1"].claim and found[-1].claim == "more"
    assert [f.criterion for f in found] == [f.id for f in found]


def test_listed_findings_refuse_a_claim_without_criterion_and_the_reverse() -> None:
    criteria = {i: Criterion((), i, always) for i in listed("eddy2003")}
    with pytest.raises(ValueError, match="eddy2003: claims without a criterion: E12$"):
        listed_findings("eddy2003", criteria, extra={"E12": "more"})
    with pytest.raises(ValueError, match="eddy2003: criteria without a claim: E99$"):
        listed_findings("eddy2003", {**criteria, "E99": Criterion((), "", always)})


@pytest.mark.parametrize("name", ["christiansen2000", "chung2003", "eddy2003", "zhang2001"])
def test_every_paper_judges_each_finding_by_its_criterion(name: str) -> None:
    module = __import__(papers.PAPERS[name], fromlist=["CRITERIA"])
    study = papers.get(name)
    assert [f.id for f in study.findings] == list(module.CRITERIA)
    for finding in study.findings:
        criterion = module.CRITERIA[finding.id]
        assert finding.criterion == " ".join(criterion.text.split())
        assert finding.needs == criterion.needs and finding.words == criterion.words
        assert finding.revised_from is criterion.revised_from


@pytest.mark.parametrize("name", papers.names())
def test_each_study_documents_the_testbed_its_report_shows(name: str) -> None:
    module = __import__(papers.PAPERS[name], fromlist=["STUDY"])
    items = papers.get(name).testbed
    assert items, name
    shown = "\n".join(["Testbed", "-------", "", *render_testbed(items), ""])
    assert module.__doc__.endswith(shown)
    assert module.__doc__.count("\nTestbed\n-------\n") == 1


def test_factor_columns_come_in_their_real_type() -> None:
    frame = pd.DataFrame({
        "load": ["98", "110"], "ratio": ["1", "1.5"], "red": ["RED (30,90)", "RED (5,15)"],
        "mixed": ["1", "dt"], "sweep": ["s", "s"], "seed": [1, 2], "note": ["7", "8"],
    })  # fmt: skip
    typed = typed_factors(frame)
    assert typed["load"].tolist() == [98, 110] and typed["load"].dtype == "int64"
    assert typed["ratio"].tolist() == [1.0, 1.5] and typed["ratio"].dtype == "float64"
    for text in ("red", "mixed"):  # a factor with any label not a number stays text
        assert typed[text].tolist() == frame[text].tolist()
    table = typed_factors(frame.astype({"red": "category", "load": "category"}))
    assert table["red"].dtype == object and table["red"].tolist() == frame["red"].tolist()
    assert table["load"].tolist() == [98, 110]  # a table's labels, held as categories
    assert typed["note"].tolist() == ["7", "8"]  # after ``sweep``: a table's own column
    assert typed_factors(frame.drop(columns="sweep")).equals(frame.drop(columns="sweep"))
