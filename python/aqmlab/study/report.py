"""The one report builder: ``report.md``, ``findings.json``, CSVs and figures for any study.

Every study's report has the same parts, in this order: provenance (aqmlab version and build,
the command, scale, seeds, runs and wall time), the testbed and its choices, the experiments, the
verdicts (claim, criterion, verdict and evidence; a revised criterion beside its first one, both
judged, with the reason), the tables (ours beside the paper's), the figures, the study's own
sections, and the list of files. ``findings.json`` holds the verdicts in machine-readable form.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab.plot import draw_panels, figure_title
from aqmlab.result import jsonable
from aqmlab.stats import mean_ci
from aqmlab.study.model import Data, Finding, Revision, Study, TableSpec, Verdict
from aqmlab.study.referee import class_table, todo_table, verdict_class
from aqmlab.study.reference import paper_table


@dataclass(frozen=True)
class RunCounts:
    """How many runs an experiment had: its points, and runs reused, run now, re-run, failed."""

    points: int
    runs: int
    reused: int
    ran: int
    rerun: int
    failed: int


def markdown_table(header: Sequence[str], lines: Sequence[Sequence[str]]) -> str:
    """Render a GitHub-flavoured markdown table.

    >>> print(markdown_table(["a", "b"], [["1", "2"]]))
    | a | b |
    |---|---|
    | 1 | 2 |
    """
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out.extend("| " + " | ".join(str(cell) for cell in line) + " |" for line in lines)
    return "\n".join(out)


def render_testbed(items: Sequence[str]) -> list[str]:
    """Render a study's testbed as its report and its module's docstring show it.

    >>> for line in render_testbed(["10 Mbps (§3)", "7 servers (*ours*)"]):
    ...     print(line)
    Every choice, and where it comes from (§ = the paper; *ours* = not given by it):
    <BLANKLINE>
    - 10 Mbps (§3)
    - 7 servers (*ours*)
    """
    return ["Every choice, and where it comes from (§ = the paper; *ours* = not given by it):", "",
            *(f"- {item}" for item in items)]  # fmt: skip


def with_testbed(doc: str | None, items: Sequence[str]) -> str:
    """Return a paper module's docstring followed by its testbed (:func:`render_testbed`).

    A paper's module ends with ``__doc__ = with_testbed(__doc__, TESTBED)``, so that its
    documentation and its report's Testbed section read the same items.

    >>> print(with_testbed("A paper.", ["10 Mbps (§3)"]))
    A paper.
    <BLANKLINE>
    Testbed
    -------
    <BLANKLINE>
    Every choice, and where it comes from (§ = the paper; *ours* = not given by it):
    <BLANKLINE>
    - 10 Mbps (§3)
    <BLANKLINE>
    """
    text = (doc or "").rstrip()
    return "\n".join([text, "", "Testbed", "-------", "", *render_testbed(items), ""])


def fmt(value: Any, digits: int) -> str:
    """Format a number with ``digits`` decimals; ``—`` for a missing one.

    >>> fmt(3.14159, 1), fmt(float("nan"), 2), fmt(None, 0)
    ('3.1', '—', '—')
    """
    if value is None:
        return "—"
    number = float(value)
    return "—" if not math.isfinite(number) else f"{number:.{digits}f}"


def key_text(value: Any) -> str:
    """Return a table key as text, so ``98``, ``98.0`` and ``"98"`` match.

    >>> key_text(98.0), key_text("98"), key_text(30), key_text("RED")
    ('98', '98', '30', 'RED')
    """
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


FAR_RATIO = 1.5
"""Our value and the paper's are far apart when the larger is at least this many times the
smaller (:func:`far`)."""

FAR_STEPS = 10
"""… and they differ by at least this many steps of the last digit shown: 1 point for a share
shown to 0.1, 10 ms for a median shown in whole ms (a 0.2% against 0.1% drop rate is no news)."""


def far(ours: Any, paper: Any, digits: int) -> bool:
    """Return True if our value is far from the paper's: :data:`FAR_RATIO` and :data:`FAR_STEPS`.

    Missing or non-numeric values are never far.

    >>> far(9.1, 3.1, 1), far(1.2, 1.0, 1), far(0.3, 0.1, 1), far(530, 421, 0), far(None, 1, 0)
    (True, False, False, False, False)
    """
    try:
        a, b = abs(float(ours)), abs(float(paper))
    except (TypeError, ValueError):
        return False
    if not (math.isfinite(a) and math.isfinite(b)):
        return False
    big, small = max(a, b), min(a, b)
    return big - small >= FAR_STEPS * 10.0 ** -digits and big >= FAR_RATIO * small


def discrepancies(spec: TableSpec, frame: pd.DataFrame) -> str:
    """Say, below a table beside the paper's, which of our values are far from the paper's, and why.

    ``frame`` is :func:`build_table`'s tidy frame. Each row with a far cell (:func:`far`) is
    listed under the first of ``spec.reasons`` that covers it, or as not explained. Empty when
    no cell is far.
    """
    if frame.empty or "source" not in frame:
        return ""
    keys = list(spec.keys)
    ours = frame[frame["source"] == "ours"]
    paper = frame[frame["source"] == "paper"]
    published = {tuple(str(r[k]) for k in keys): r for r in paper.to_dict("records")}
    groups: dict[str, list[str]] = {}
    for record in ours.to_dict("records"):
        row = tuple(str(record[k]) for k in keys)
        theirs = published.get(row)
        if theirs is None:
            continue
        cells = [f"{c.title} {fmt(record[f'{c.ours}_mean'], c.digits)} vs "
                 f"{fmt(theirs.get(f'{c.ours}_mean'), c.digits)}" for c in spec.columns
                 if c.paper and far(record[f"{c.ours}_mean"], theirs.get(f"{c.ours}_mean"),
                                    c.digits)]  # fmt: skip
        if not cells:
            continue
        where = dict(zip(keys, row, strict=True))
        reason = next((r.text for r in spec.reasons if r.covers(where)), "")
        named = ", ".join(f"{k} {v}" for k, v in where.items())
        groups.setdefault(reason, []).append(f"{named}: {', '.join(cells)}")
    if not groups:
        return ""
    lines = [f"**Far from the paper's** (bold: ours and the paper's value at least {FAR_RATIO:g}× "
             f"apart and by at least {FAR_STEPS} steps of the last digit shown):", ""]
    for reason, rows in sorted(groups.items(), key=lambda item: item[0] == ""):
        why = f"likely reason: {reason}" if reason else "not explained"
        lines.append(f"- {'; '.join(rows)}. *{why[0].upper()}{why[1:]}*")
    return "\n".join(lines)


def build_table(spec: TableSpec, data: Data) -> tuple[list[str], list[list[str]], pd.DataFrame]:
    """Our rows (mean ± half-width over seeds) each followed by the paper's, if it has one.

    Returns the markdown header, the markdown rows and a tidy CSV frame (one row per source
    and key; ours with ``*_mean``, ``*_lo``, ``*_hi``, ``*_n``). A cell of ours far from the
    paper's (:func:`far`) is bold.
    """
    ours = spec.rows(data)
    values = [c.ours for c in spec.columns]
    stats = mean_ci(ours, values, by=list(spec.keys))
    published: dict[tuple[str, ...], Mapping[str, Any]] = {}
    if spec.paper_table is not None:
        paper = paper_table(spec.paper_table).rename(columns=dict(spec.paper_keys))
        if spec.paper_filter is not None:
            paper = spec.paper_filter(paper)
        for record in paper.to_dict("records"):
            published[tuple(key_text(record[k]) for k in spec.keys)] = record
    header = [*spec.keys, "source", *(c.title for c in spec.columns)]
    lines: list[list[str]] = []
    csv_rows: list[dict[str, Any]] = []
    for record in stats.to_dict("records"):
        keys = [key_text(record[k]) for k in spec.keys]
        match = published.get(tuple(keys))
        cells = []
        csv_row: dict[str, Any] = {**dict(zip(spec.keys, keys, strict=True)), "source": "ours"}
        for column in spec.columns:
            mean = record[f"{column.ours}_mean"]
            half = record[f"{column.ours}_hi"] - mean
            text = fmt(mean, column.digits)
            if record[f"{column.ours}_n"] > 1 and math.isfinite(half):
                text += f" ± {fmt(half, column.digits)}"
            if match is not None and column.paper and far(mean, match.get(column.paper),
                                                          column.digits):  # fmt: skip
                text = f"**{text}**"
            cells.append(text)
            for stat in ("mean", "lo", "hi", "n"):
                csv_row[f"{column.ours}_{stat}"] = record[f"{column.ours}_{stat}"]
        lines.append([*keys, "ours", *cells])
        csv_rows.append(csv_row)
        if match is not None:
            paper_cells = [
                fmt(match.get(c.paper), c.digits) if c.paper else "—" for c in spec.columns
            ]
            lines.append([*keys, "paper", *paper_cells])
            csv_rows.append(
                {
                    **dict(zip(spec.keys, keys, strict=True)),
                    "source": "paper",
                    **{f"{c.ours}_mean": match.get(c.paper) for c in spec.columns if c.paper},
                }
            )
    return header, lines, pd.DataFrame(csv_rows)


def judge(
    finding: Finding, data: Data, *, selected: bool, why: Mapping[str, str] | None = None
) -> Verdict:
    """Judge a finding if its experiments ran; otherwise say why it was not run.

    ``why`` gives the reason an experiment did not run, when it failed (its runs' errors).

    >>> from aqmlab.study.model import Scale
    >>> f = Finding("L1", "claim", ("live",), "x", lambda d: Verdict("holds", "x"))
    >>> data = Data(Path("store"), (), Scale("smoke"), (1,))
    >>> judge(f, data, selected=True, why={"live": "1 of its 1 runs failed: live: needs root"})
    ... # doctest: +NORMALIZE_WHITESPACE
    Verdict(status='not run', evidence='its experiments did not run: live (1 of its 1 runs
    failed: live: needs root)', numbers={}, every_seed=None, first=None)
    """
    missing = [name for name in finding.needs if not data.has(name)]
    if not selected:
        return Verdict("not run", "not selected (--only)")
    if missing:
        named = [f"{name} ({why[name]})" if why and name in why else name for name in missing]
        return Verdict("not run", "its experiments did not run: " + ", ".join(named))
    return finding.verdict(data)


MAX_BEFORE_BYTES = 50_000_000
"""The largest earlier ``findings.json`` a report compares with (``--since``)."""


def read_before(path: Path) -> dict[str, Any]:
    """Read an earlier report's ``findings.json`` to compare with (``--since``), checked.

    Refused with an :class:`~aqmlab.errors.InputError` naming ``--since`` and what is wrong: not
    a file, too big, not JSON, or without a ``findings`` list of entries with ``id`` and
    ``status``.
    """
    from aqmlab.errors import InputError

    where = f"--since {path}"
    if not path.is_file():
        raise InputError(where, "expected an earlier report's findings.json, got no such file")
    if path.stat().st_size > MAX_BEFORE_BYTES:
        raise InputError(where, f"expected a findings.json of at most {MAX_BEFORE_BYTES:,} bytes")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise InputError(where, f"expected JSON ({type(err).__name__})") from None
    findings = document.get("findings") if isinstance(document, dict) else None
    if not isinstance(document, dict) or not isinstance(findings, list) or not all(
        isinstance(f, dict) and isinstance(f.get("id"), str) and isinstance(f.get("status"), str)
        for f in findings
    ):
        raise InputError(where, 'expected a "findings" list of entries with "id" and "status"')
    return document


def _scalars(numbers: Any) -> dict[str, float]:
    """Return the top-level numbers of a verdict that are plain numbers (not flags or tables)."""
    if not isinstance(numbers, Mapping):
        return {}
    return {k: float(v) for k, v in numbers.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)}


def changes_rows(study: Study, verdicts: Mapping[str, Verdict],
                 referee: Mapping[str, Verdict] | None,
                 before: Mapping[str, Any]) -> list[list[str]]:
    """Return the rows of "What changed since the last report": one per finding, now or then.

    Each row: the ID, the verdict before and now (aqmlab, and ns-2's where asked), why it may
    have changed — the finding is new, was dropped, or its criterion was revised; otherwise the
    same criterion met other runs (the model, the code or the scale) — and up to three of its
    numbers that changed by more than 1%.

    >>> from aqmlab.papers import get
    >>> study = get("chung2003")
    >>> now = {f.id: Verdict("holds", "x", {"slope": 2.0}) for f in study.findings}
    >>> before = {"findings": [{"id": "CC1", "status": "does not hold", "criterion":
    ...           study.finding("CC1").criterion, "numbers": {"slope": 1.0}}]}
    >>> changes_rows(study, now, None, before)[0]
    ['CC1', 'does not hold', '**holds**', 'same criterion, other runs', 'slope 1 → 2']
    """
    then = {f["id"]: f for f in before.get("findings", [])}
    rows = []
    for finding in study.findings:
        verdict, old = verdicts[finding.id], then.pop(finding.id, None)
        theirs = (referee or {}).get(finding.id)
        now = verdict.status + (f" / ns-2 {theirs.status}" if theirs is not None else "")
        if old is None:
            rows.append([finding.id, "—", now, "new finding", ""])
            continue
        old_ns2 = old.get("ns2") if isinstance(old.get("ns2"), dict) else None
        was = str(old["status"]) + (f" / ns-2 {old_ns2.get('status')}" if old_ns2 else "")
        why = ("criterion revised" if old.get("criterion") != finding.criterion
               else "same criterion, other runs")  # fmt: skip
        a, b = _scalars(old.get("numbers")), _scalars(verdict.numbers)
        moved = [f"{k} {a[k]:.4g} → {b[k]:.4g}" for k in a.keys() & b.keys()
                 if abs(b[k] - a[k]) > 0.01 * max(abs(a[k]), abs(b[k]), 1e-12)]
        changed = was != now
        rows.append([finding.id, was, f"**{now}**" if changed else now, why,
                     "; ".join(sorted(moved)[:3])])
    rows.extend([fid, str(old["status"]), "—", "finding dropped", ""] for fid, old in then.items())
    return rows


def first_verdict_text(revision: Revision, judged: Verdict | None) -> str:
    """Return a former criterion's verdict in words: judged again now, or as last recorded.

    >>> first_verdict_text(Revision("x > 1", "noise", recorded="holds (full report)"), None)
    'holds (full report)'
    """
    if judged is not None:
        return f"**{judged.status}**: {judged.evidence}"
    if revision.recorded:
        return revision.recorded
    return "not judged again: its judge does not run on these experiments"


def revision_rows(study: Study, verdicts: Mapping[str, Verdict]) -> list[list[str]]:
    """Return the report's rows of revised criteria, each former one, the latest first.

    Each row: the ID, the former criterion, its verdict (judged again on these runs where its
    judge runs), the verdict now and why it changed.
    """
    rows = []
    for finding in study.findings:
        if finding.revised_from is None:
            continue
        verdict = verdicts[finding.id]
        for k, former in enumerate(finding.revised_from.chain()):
            why = former.reason + (f" The paper: “{former.quote}”" if former.quote else "")
            judged = verdict.first if k == 0 else None
            rows.append([finding.id, former.criterion, first_verdict_text(former, judged),
                         f"**{verdict.status}**" if k == 0 else "(replaced again since)", why])
    return rows


def revised_from(finding: Finding, verdict: Verdict) -> dict[str, Any] | None:
    """Return ``findings.json``'s ``revised_from`` of a finding: ``None`` if never revised.

    The criterion it replaced, the reason and the paper's words, its verdict on these runs
    (``status``, ``evidence``, ``numbers``; null when its judge no longer runs) or as
    ``recorded``, and ``earlier``: the criterion that one replaced, in the same form.
    """
    revision = finding.revised_from
    if revision is None:
        return None
    return _revision_json(revision, verdict.first)


def _revision_json(revision: Revision, judged: Verdict | None) -> dict[str, Any]:
    return {
        "criterion": revision.criterion,
        "reason": revision.reason,
        "quote": revision.quote or None,
        "status": None if judged is None else judged.status,
        "evidence": None if judged is None else judged.evidence,
        "numbers": None if judged is None else jsonable(judged.numbers),
        "recorded": revision.recorded or None,
        "earlier": None if revision.earlier is None else _revision_json(revision.earlier, None),
    }


FULL_REPORTS = Path(__file__).resolve().parents[3] / "docs" / "reproductions"
"""Where a checkout keeps each study's committed full-scale report (``<study>/findings.json``)."""


def indicative(study: str, verdicts: Mapping[str, Verdict], full: Path = FULL_REPORTS) -> str:
    """Say that a reduced scale's verdicts are indicative.

    With the committed full-scale report of this checkout at hand, say where they differ from it.

    >>> from aqmlab.study.model import Verdict
    >>> print(indicative("none", {"C1": Verdict("holds", "")}, Path("/no/such")))
    **Reduced scale: these verdicts are indicative.** The full scale (`--scale full`) is the \
reference.
    """
    text = ("**Reduced scale: these verdicts are indicative.** The full scale (`--scale full`) "
            "is the reference.")  # fmt: skip
    path = full / study / "findings.json"
    try:
        committed = json.loads(path.read_text(encoding="utf-8"))
        theirs = {f["id"]: f["status"] for f in committed["findings"]}
    except (OSError, ValueError, KeyError, TypeError):
        return text
    if committed.get("scale") != "full":
        return text
    differ = [f"{i} ({v.status} here, {theirs[i]} there)" for i, v in verdicts.items()
              if i in theirs and theirs[i] != v.status]  # fmt: skip
    where = f"docs/reproductions/{study}/"
    if not differ:
        return f"{text} All {len(verdicts)} agree with the committed full-scale report ({where})."
    return (f"{text} {len(differ)} of {len(verdicts)} differ from the committed full-scale report "
            f"({where}): {', '.join(differ)}.")  # fmt: skip


def write_report(
    study: Study,
    data: Data,
    out: Path,
    *,
    verdicts: Mapping[str, Verdict],
    counts: Mapping[str, RunCounts],
    provenance: Mapping[str, Any],
    referee: Mapping[str, Verdict] | None = None,
    before: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``report.md``, ``findings.json``, the tables' CSVs and the figures into ``out``.

    ``referee``: the findings judged on ns-2's runs of the same sweeps (a column beside
    aqmlab's verdicts, each finding's class, and a table of the ones that do not hold).
    ``before``: an earlier report's ``findings.json`` (:func:`read_before`): a table of what
    changed since.
    """
    figures_dir = out / "figures"
    lines: list[str] = []
    add = lines.append
    add(f"# {study.heading}: {study.title}")
    add("")
    scale = data.scale
    if not scale.reproduction:
        add(f"> **{scale.note}.** The numbers below test the plumbing, not the paper.")
        add("")
    elif scale.name != "full":
        add(f"> {indicative(study.name, verdicts)}")
        add("")
    build = provenance.get("build", {})
    runs = provenance.get("runs", {})
    # The engine records the commit it was compiled at; the study code (criteria, judges) may be
    # newer, as when a report is rendered again from stored runs.
    source = provenance.get("source_commit")
    engine = build.get("commit", "?")
    commit = (f"commit {engine}" if source in (None, engine) else
              f"commit {source}, its engine built at commit {engine}")
    if provenance.get("source_dirty"):
        commit += ", uncommitted changes to the study code"
    add(
        f"aqmlab {build.get('version', '?')} ({commit}"
        f"{', uncommitted engine changes' if build.get('dirty') else ''}, "
        f"{build.get('profile', '?')} build {build.get('id', '?')}); scale `{scale.name}` "
        f"({scale.note}); seeds "
        f"{', '.join(map(str, data.seeds))}; {runs.get('distinct', 0)} distinct runs "
        f"({runs.get('ran', 0)} run now, {runs.get('reused', 0)} reused); "
        f"{provenance.get('wall_s', 0.0):.0f} s wall"
        + (f" ({provenance['referee']['wall_s']:.0f} s of it running the experiments again in "
           f"{provenance['referee']['simulator']}, seeds "
           f"{', '.join(map(str, provenance['referee'].get('seeds', data.seeds)))})"
           if provenance.get("referee") else "")
        + f". Command: `{provenance.get('command', '')}`."
    )
    add("")
    if study.testbed:
        add("## Testbed")
        add("")
        lines.extend(render_testbed(study.testbed))
        add("")
    add("## Experiments")
    add("")
    add(
        markdown_table(
            ["experiment", "what", "points", "runs", "run now", "reused", "re-run", "failed"],
            [
                [
                    e.name,
                    e.title,
                    *(
                        str(getattr(counts[e.name], f))
                        for f in ("points", "runs", "ran", "reused", "rerun", "failed")
                    ),
                ]
                if e.name in counts
                else [e.name, e.title, "not run", "", "", "", "", ""]
                for e in study.experiments
            ],
        )
    )
    add("")
    add("## Verdicts")
    add("")
    add(
        "Each criterion was written down before the results it judges; one changed after first "
        "results is marked *revised*, and its first criterion is judged beside it (under "
        "*Revised criteria*, with the reason). A finding that does not hold is reported with its "
        "numbers, never tuned away."
    )
    add("")
    rows = []
    for finding in study.findings:
        verdict = verdicts[finding.id]
        criterion = finding.criterion
        if finding.revised_from is not None:
            criterion += " *(revised: the first criterion is under Revised criteria)*"
        if finding.inconsistent:
            criterion += " *(paper inconsistent: see Where the paper contradicts itself)*"
        seeds_note = ""
        if verdict.every_seed is not None:
            seeds_note = " (on every seed)" if verdict.every_seed else " (not on every seed)"
        claim = finding.claim + (f" — the paper: “{finding.words}”" if finding.words else "")
        row = [finding.id, claim, criterion, f"**{verdict.status}**{seeds_note}",
               verdict.evidence]  # fmt: skip
        theirs = (referee or {}).get(finding.id)
        row.append(f"{theirs.status}: {theirs.evidence}" if theirs is not None else "not run")
        rows.append(row)
    add(markdown_table(["ID", "claim", "criterion", "verdict", "evidence", "ns-2"], rows))
    add("")
    def titled_table(title: str, intro: str, header: list[str], lines: list[list[str]]) -> None:
        if lines:
            for part in (f"### {title}", "", intro, "", markdown_table(header, lines), ""):
                add(part)

    if before is not None:
        old = (before.get("provenance") or {}) if isinstance(before, Mapping) else {}
        build = old.get("build")
        if not isinstance(build, Mapping):
            build = {}
        commit = old.get("source_commit") or build.get("commit") or "?"
        titled_table(
            "What changed since the last report",
            f"Against the report of commit {str(commit)[:12]} (scale "
            f"{before.get('scale', '?')}, seeds {before.get('seeds', '?')}): each finding's "
            "verdict then and now (bold where it changed), and why it may have: a revised "
            "criterion, or the same criterion on other runs (a model fix, other code, another "
            "scale). The numbers are the verdicts' own; the reasons in words are in the "
            "report's README.",
            ["ID", "before", "now", "why", "numbers that moved"],
            changes_rows(study, verdicts, referee, before))
    titled_table(
        "Revised criteria",
        "A criterion changes only to follow the paper's own words more faithfully (quoted) or "
        "to account for measured noise; the first criterion is judged again on the same runs "
        "where its judge still runs, otherwise its last recorded verdict is given.",
        ["ID", "first criterion", "its verdict", "verdict now", "why it changed"],
        revision_rows(study, verdicts))
    titled_table(
        "Where the paper contradicts itself",
        "The paper states these claims two ways; the criterion judges the reading given in it.",
        ["ID", "the paper's two statements"],
        [[f.id, f.inconsistent] for f in study.findings if f.inconsistent])
    titled_table(
        "What does not hold, by class",
        "The same judge on ns-2.35's runs of the same experiments (`aqmlab reproduce … "
        "--referee ns2`; docs/ns2-referee.md): *ns-2 agrees* means the paper's claim does not "
        "hold in its own simulator either; *aqmlab differs from ns-2* marks a gap in aqmlab's "
        "model (or the mapping) still to explain; *ns-2 not run* means no ns-2 verdict "
        + ("(ns-2 was not asked: run with `--referee ns2`)." if referee is None else
           "(its reason is in the table)."),
        ["ID", "class", "ns-2", "ns-2's evidence"], class_table(study, verdicts, referee))
    approximations = (provenance.get("referee") or {}).get("approximations") or []
    if approximations:
        for part in ("### What ns-2 ran instead of the testbed", "",
                     "ns-2 cannot express this testbed as given, so its column judges the "
                     "nearest scenario it can run (`aqmlab.referee.approximate`; "
                     "docs/ns2-referee.md#approximations): its verdicts are those of an "
                     "approximation, each change listed here.", "",
                     *(f"- {change}" for change in approximations), ""):
            add(part)
    titled_table(
        "To do: where aqmlab differs from ns-2",
        "Each of these claims gets opposite verdicts on aqmlab's runs and on ns-2's: a gap in "
        "aqmlab's model (or in the mapping to ns-2) until the mechanism is found and fixed, or "
        "shown to be a tie at the criterion's edge.",
        ["ID", "aqmlab", "ns-2", "mechanism"], todo_table(study, verdicts, referee))
    files = ["findings.json"]
    for spec in study.tables:
        if not data.has(*spec.needs):
            continue
        header, table_lines, frame = build_table(spec, data)
        frame.to_csv(out / f"{spec.name}.csv", index=False)
        files.append(f"{spec.name}.csv")
        add(f"## {spec.title}")
        add("")
        if spec.note:
            add(spec.note)
            add("")
        add(markdown_table(header, table_lines))
        add("")
        note = discrepancies(spec, frame)
        if note:
            add(note)
            add("")
    shown = [f for f in study.figures if data.has(*f.needs)]
    if shown:
        add("## Figures")
        add("")
        add("Each figure is in `figures/` as PDF and SVG (vector) and PNG (300 dpi); curves "
            "with several seeds are the mean over seeds with a pointwise 95% Student-t band "
            "(shaded, or error bars on points).")
        add("")
        for figure in shown:
            title = figure_title(figure.title, figure.paper_figure, study.citation)
            paths = draw_panels(figure.panels(data), title, figures_dir / figure.name,
                                sharey=figure.sharey)  # fmt: skip
            suffixes = ",".join(path.suffix.lstrip(".") for path in paths)
            files.append(f"figures/{figure.name}.{{{suffixes}}}")
            png = next(path for path in paths if path.suffix == ".png")
            add(f"![{title}](figures/{png.name})")
            add("")
    for section in study.sections:
        if data.has(*section.needs):
            add(f"## {section.title}")
            add("")
            add(section.body(data))
            add("")
    add("## Files")
    add("")
    add(
        "`store/` holds every run (one directory per scenario and seed: `summary.json`, Parquet "
        "tables, `manifest.json`; or, for short runs, a pack of one scenario's seeds) and each "
        "experiment's sweep index (`store/sweeps/`); read them with `aqmlab collect` or "
        "`aqmlab.collect`. Here: "
        + ", ".join(f"`{f}`" for f in files)
        + "."
    )
    add("")
    path = out / "report.md"
    path.write_text("\n".join(lines), encoding="utf-8")
    write_findings_json(study, data, out / "findings.json", verdicts, provenance, referee)
    return path


def write_findings_json(
    study: Study,
    data: Data,
    path: Path,
    verdicts: Mapping[str, Verdict],
    provenance: Mapping[str, Any],
    referee: Mapping[str, Verdict] | None = None,
) -> None:
    """Write the verdicts as ``findings.json``: one entry per finding, machine-readable.

    Each entry has ``ns2`` (the verdict on ns-2's runs, or null when not asked) and ``class``
    (:func:`aqmlab.study.referee.verdict_class`).
    """
    entries = []
    for finding in study.findings:
        verdict = verdicts[finding.id]
        theirs = (referee or {}).get(finding.id)
        entries.append(
            {
                "id": finding.id,
                "claim": finding.claim,
                "criterion": finding.criterion,
                "revised_from": revised_from(finding, verdict),
                "paper_inconsistent": finding.inconsistent or None,
                "paper_words": finding.words or None,
                "status": verdict.status,
                "evidence": verdict.evidence,
                "numbers": jsonable(verdict.numbers),
                "every_seed": verdict.every_seed,
                "experiments": list(finding.needs),
                "seeds": list(data.seeds) if verdict.status != "not run" else [],
                "ns2": None if theirs is None else {
                    "status": theirs.status,
                    "evidence": theirs.evidence,
                    "numbers": jsonable(theirs.numbers),
                    "every_seed": theirs.every_seed,
                },
                "class": verdict_class(verdict, theirs),
            }
        )
    document = {
        "study": study.name,
        "title": study.title,
        "scale": data.scale.name,
        "reproduction": data.scale.reproduction,
        "seeds": list(data.seeds),
        "provenance": jsonable(dict(provenance)),
        "findings": entries,
    }
    path.write_text(json.dumps(document, indent=2, allow_nan=False) + "\n", encoding="utf-8")
