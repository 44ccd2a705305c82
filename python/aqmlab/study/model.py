r"""What a study is made of: scales, experiments, findings, verdicts, tables and figures.

A paper's reproduction is a :class:`Study` declared as data plus a few judges:

- a **testbed** lives in the paper's module (a function from a few parameters to a scenario);
- :class:`Experiment`\\ s are named sweeps over it, built for a :class:`Scale` (and from the
  results of the experiments they come ``after``, e.g. a load calibration);
- :class:`Finding`\\ s carry the paper's claim and its :class:`Criterion`: the experiments it
  needs, the test in words, written before the results, the paper's words it reads, and a judge
  from the collected data (:class:`Data`) to a :class:`Verdict` with its numbers;
- :class:`TableSpec`\\ s put our numbers (with confidence intervals over seeds) beside the
  paper's published table on declared keys; :class:`FigureSpec`\\ s redraw the paper's figures.

One report builder (:mod:`aqmlab.study.report`) writes every study's ``report.md``,
``findings.json``, CSVs and figures.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pandas as pd

from aqmlab.plot import Panel
from aqmlab.reading import collect
from aqmlab.study.reference import findings as listed
from aqmlab.sweeps import Sweep

HOLDS = "holds"
DOES_NOT_HOLD = "does not hold"
NOT_RUN = "not run"
STATUSES = (HOLDS, DOES_NOT_HOLD, NOT_RUN)


@dataclass(frozen=True)
class Scale:
    """How big the runs are: a name, seeds per experiment, and the study's own settings.

    ``reproduction=False`` marks a scale that only exercises the pipeline (tests): its report
    says so on top.

    >>> Scale("quick", seeds=1, settings={"duration": "50min"})["duration"]
    '50min'
    """

    name: str
    seeds: int = 1
    note: str = ""
    reproduction: bool = True
    settings: Mapping[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        """Return a study setting of this scale."""
        return self.settings[key]


@dataclass(frozen=True)
class Verdict:
    """A finding's verdict: ``status`` (holds / does not hold / not run), words and numbers.

    ``every_seed`` tells, with several seeds, whether the finding holds on each seed alone
    (``None`` when the judge does not say or there is one seed).

    >>> Verdict(HOLDS, "median 421 ms < 500 ms", {"median_ms": 421.0}).status
    'holds'
    """

    status: str
    evidence: str
    numbers: Mapping[str, Any] = field(default_factory=dict)
    every_seed: bool | None = None
    first: Verdict | None = None
    """The verdict of the finding's first criterion on the same runs, when the criterion was
    revised and its first judge still runs (:class:`Revision`)."""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"verdict status: expected one of {STATUSES}, got {self.status!r}")

    @classmethod
    def of(
        cls,
        ok: bool,
        evidence: str,
        numbers: Mapping[str, Any] | None = None,
        every_seed: bool | None = None,
    ) -> Verdict:
        """Return ``holds`` if ``ok`` else ``does not hold``.

        >>> Verdict.of(False, "x").status
        'does not hold'
        """
        return cls(HOLDS if ok else DOES_NOT_HOLD, evidence, dict(numbers or {}), every_seed)


def seedwise(
    check: Callable[[pd.DataFrame], tuple[bool, str, Mapping[str, Any]]],
    runs: pd.DataFrame,
    *,
    seed: str = "seed",
) -> Verdict:
    """Judge with ``check`` on all runs (means over seeds) and on each seed's runs alone.

    ``check(frame)`` returns (ok, evidence, numbers) for a frame of runs; it averages over seeds
    itself where a frame has several. The verdict is the check on all runs; ``every_seed`` says
    whether it also holds on every seed by itself (``None`` with one seed).

    >>> runs = pd.DataFrame({"seed": [1, 2], "x": [1.0, 3.0]})
    >>> check = lambda f: (f["x"].mean() > 1.5, f"mean x {f['x'].mean():.1f}", {})
    >>> v = seedwise(check, runs)
    >>> v.status, v.every_seed
    ('holds', False)
    """
    ok, evidence, numbers = check(runs)
    seeds = sorted(runs[seed].unique())
    every = None
    if len(seeds) > 1:
        every = all(check(runs[runs[seed] == s])[0] for s in seeds)
    return Verdict.of(bool(ok), evidence, numbers, every)


Check = Callable[[pd.DataFrame], tuple[bool, str, Mapping[str, Any]]]
"""A check of a tidy frame: whether the criterion holds, the evidence, its numbers."""


def seedwise_judge(rows: Callable[[Data], pd.DataFrame], check: Check) -> Callable[[Data], Verdict]:
    """Return a judge: ``check`` on the frame ``rows(data)``, on all seeds and each alone.

    The usual shape of a :class:`Finding`'s judge: a function from the collected data to a tidy
    frame (one row per run, or per flow, with a ``seed`` column) and a check on such frames,
    which tests can call on synthetic frames. See :func:`seedwise`. A frame without rows is
    "not run".

    >>> judge = seedwise_judge(lambda data: pd.DataFrame({"seed": [1, 2], "x": [2.0, 3.0]}),
    ...                        lambda f: (f["x"].min() > 1, "x above 1", {}))
    >>> judge(None).status, judge(None).every_seed  # a judge ignores data its rows do not read
    ('holds', True)
    """

    def judge(data: Data) -> Verdict:
        frame = rows(data)
        if frame.empty:
            return Verdict("not run", "no rows")
        return seedwise(check, frame)

    return judge


def typed_factors(frame: pd.DataFrame) -> pd.DataFrame:
    """Return a collected frame with its factor columns in their real type.

    The factor columns are the axes' labels, the columns before ``sweep``
    (:func:`aqmlab.collect`); one whose every label is a whole number becomes integers, one
    whose every label is a number becomes floats, any other is text: plain strings, also where
    a table's rows hold its labels as categories (:func:`aqmlab.collect`), so that they sort
    and compare as text whichever table they come from.

    >>> f = typed_factors(pd.DataFrame({"load": ["98", "110"], "ratio": ["1", "1.5"],
    ...                                 "red": pd.Categorical(["RED (5,15)", "RED (30,90)"]),
    ...                                 "sweep": ["x", "x"]}))
    >>> f["load"].tolist(), f["ratio"].tolist(), f["red"].tolist(), f["red"].dtype
    ([98, 110], [1.0, 1.5], ['RED (5,15)', 'RED (30,90)'], dtype('O'))
    """
    if "sweep" not in frame.columns:
        return frame
    factors = list(frame.columns[: list(frame.columns).index("sweep")])
    typed = {}
    for column in factors:
        labels = frame[column].astype(str)
        numbers = pd.to_numeric(labels, errors="coerce")
        if len(labels) == 0 or numbers.isna().any():
            if isinstance(frame[column].dtype, pd.CategoricalDtype):
                typed[column] = frame[column].astype(object)
            continue
        whole = labels.str.fullmatch(r"[+-]?\d+").all()
        typed[column] = numbers.astype("int64" if whole else "float64")
    return frame.assign(**typed) if typed else frame


class Data:
    """The collected results of a reproduction's experiments, read from its store on demand.

    Judges, tables and figures read through it: :meth:`runs` (one row per run, the factors as
    columns in their real type), :meth:`summary` (the same with the factors as their labels'
    text), :meth:`table` (a table's rows with the run columns), and :meth:`has` to tell whether
    an experiment ran. Frames are cached.
    """

    def __init__(
        self, store: Path, experiments: Sequence[str], scale: Scale, seeds: Sequence[int],
        *, unmeasured: Iterable[str] = (),
    ) -> None:
        self.store = store
        self.experiments = tuple(experiments)
        self.scale = scale
        self.seeds = tuple(seeds)
        self.unmeasured = frozenset(unmeasured)
        """``table.column`` names the runs hold as placeholders (a referee's runs: counts it does
        not measure are written 0); asking :meth:`table` for one raises :class:`KeyError`."""
        self._cache: dict[tuple[Any, ...], pd.DataFrame] = {}
        self._frames: dict[str, pd.DataFrame] = {}
        self.derived: dict[str, Any] = {}
        """Values computed once from earlier experiments (e.g. a calibration) for later ones."""

    def has(self, *experiments: str) -> bool:
        """Return True if every named experiment was run in this reproduction."""
        return all(name in self.experiments for name in experiments)

    def summary(self, experiment: str) -> pd.DataFrame:
        """One row per run of ``experiment``: axis labels, seed, and summary numbers."""
        return self.table(experiment, "summary")

    def runs(self, experiment: str) -> pd.DataFrame:
        """One row per run of ``experiment``: factors in their real type, seed, summary numbers.

        As :meth:`summary`, with numeric factors (loads, queue lengths, numbers of flows) as
        numbers (:func:`typed_factors`).
        """
        return self.table(experiment, "summary", typed=True)

    def frame(self, key: str, compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
        """Return ``compute()``, computed once per ``key`` (a copy: callers may change it).

        For frames that several judges, tables and figures derive from the same runs.
        """
        if key not in self._frames:
            self._frames[key] = compute()
        return self._frames[key].copy()

    def table(
        self,
        experiment: str,
        table: str,
        columns: Sequence[str] | None = None,
        *,
        cache: bool = True,
        reduce: Callable[[pd.DataFrame], pd.DataFrame] | None = None,
        typed: bool = False,
    ) -> pd.DataFrame:
        """Return the rows of ``table`` in every run of ``experiment`` (``columns``: only those).

        ``cache=False`` reads it afresh and keeps no copy (for big tables read once). ``reduce``
        turns each run's rows into a small frame as it is read (one run in memory at a time; see
        :func:`aqmlab.collect`); frames reduced alike are cached alike. ``typed`` gives the
        factor columns in their real type (:func:`typed_factors`), else their labels' text.
        """
        if experiment not in self.experiments:
            raise LookupError(f"experiment {experiment!r} was not run")
        for column in columns or ():
            if f"{table}.{column}" in self.unmeasured:
                raise KeyError(f"{table}.{column} is not measured in these runs")
        key: tuple[Any, ...] = (experiment, table, tuple(columns) if columns is not None else None,
                                reduce)  # fmt: skip
        if typed:
            key = (*key, "typed")
        if key in self._cache:
            return self._cache[key]
        if typed:
            frame = typed_factors(self.table(experiment, table, columns, cache=cache,
                                             reduce=reduce))  # fmt: skip
        else:
            frame = collect(self.store, table, sweep=experiment, columns=columns, labels=True,
                            missing="error", reduce=reduce)  # fmt: skip
        if cache:
            self._cache[key] = frame
        return frame


@dataclass(frozen=True)
class Experiment:
    """A named sweep over the testbed: ``build(scale, data)`` returns it for a scale.

    ``after`` names experiments whose results ``build`` reads through ``data`` (they run
    first). The sweep's name is the experiment's; its seeds are the reproduction's. It runs on
    the reproduction's executor unless it names its own (``executor``).
    """

    name: str
    title: str
    build: Callable[[Scale, Data], Sweep]
    after: tuple[str, ...] = ()
    referee: bool = True
    """Whether a referee reruns it: ``False`` for aqmlab's own analyses beside the paper's (a
    sensitivity, a workload variant, the model as it once was), which findings read only as
    ``also``."""
    executor: Callable[[], Any] | None = None
    """Makes the executor this experiment's sweep runs on instead of the reproduction's (e.g.
    :class:`aqmlab.live.executor.LiveExecutor`: the same scenarios on the kernel's TCP). Called
    once per reproduction; the experiments of a wave that share it run as one batch on it. Its
    runs go to the same store, so its scenarios must differ from every other experiment's
    (:func:`aqmlab.study.run.reproduce` refuses a run two executors would share)."""


@dataclass(frozen=True)
class Revision:
    """A finding's criterion as first written, kept beside the one that replaced it.

    A criterion changes only to follow the paper's own words more faithfully (``quote`` gives
    them) or to account for measured noise (seed-to-seed intervals, paired differences), never
    toward a wanted verdict; ``reason`` says which and why. ``judge`` is the first criterion's
    judge, run beside the new one on the same runs so that both verdicts show; ``None`` when it
    cannot run on today's experiments, and then ``recorded`` says what it last gave and where.
    A criterion revised more than once keeps the one before that in ``earlier``, and so on.

    >>> Revision("x > 1", "the paper says 'x above 2'", quote="x above 2").judge is None
    True
    """

    criterion: str
    reason: str
    quote: str = ""
    judge: Callable[[Data], Verdict] | None = None
    recorded: str = ""
    earlier: Revision | None = None

    def chain(self) -> tuple[Revision, ...]:
        """Return this revision and every earlier one, the latest first.

        >>> first = Revision("x > 0", "a")
        >>> [r.criterion for r in Revision("x > 1", "b", earlier=first).chain()]
        ['x > 1', 'x > 0']
        """
        return (self, *(self.earlier.chain() if self.earlier else ()))


@dataclass(frozen=True)
class Finding:
    """A claim of the paper and how it is judged.

    ``criterion`` is the test in words, fixed before any result was seen; ``revised_from`` (if
    set) keeps the criterion it replaced after first results, with the reason — the report shows
    both, and both verdicts (:meth:`verdict`). ``judge(data)`` returns the :class:`Verdict`; it
    runs only if every experiment in ``needs`` ran (else the verdict is ``not run``). ``also``
    are experiments the judge reads when they ran — a sensitivity or a variant it reports beside
    the verdict — run with the finding but not required by it.
    """

    id: str
    claim: str
    needs: tuple[str, ...]
    criterion: str
    judge: Callable[[Data], Verdict]
    revised_from: Revision | None = None
    also: tuple[str, ...] = ()
    inconsistent: str = ""
    """Where the paper states this claim two ways: both sentences, quoted (the report marks the
    finding "paper inconsistent" and says which reading the criterion judges)."""
    words: str = ""
    """The paper's own words that the claim and its criterion read, quoted (with the section,
    figure or table), so that a reader can check the criterion against the paper."""

    def verdict(self, data: Data) -> Verdict:
        """Judge the criterion, with the first criterion's verdict beside it when revised.

        >>> first = Revision("x > 0", "noise", judge=lambda d: Verdict(HOLDS, "x = 1"))
        >>> f = Finding("F", "claim", (), "x > 2", lambda d: Verdict(DOES_NOT_HOLD, "x = 1"),
        ...             first)
        >>> v = f.verdict(None)
        >>> v.status, v.first.status
        ('does not hold', 'holds')
        """
        verdict = self.judge(data)
        if self.revised_from is None or self.revised_from.judge is None:
            return verdict
        return replace(verdict, first=self.revised_from.judge(data))


@dataclass(frozen=True)
class Criterion:
    """How a paper's finding is judged, as the paper's module declares it.

    ``text`` is the test in words, written before any result (whitespace is collapsed, so it may
    be wrapped freely); ``test(data, **thresholds)`` judges it on the collected data, once every
    experiment in ``needs`` ran; ``thresholds`` are the numbers the test compares against, by
    name (empty when the test reads the module's constants itself). ``words`` quotes the paper's
    own sentences the criterion reads, with where they are; ``revised_from`` keeps the criterion
    it replaced after first results, with the reason (:class:`Revision`; docs/verdicts.md).
    ``also`` and ``inconsistent`` are the finding's (:class:`Finding`).

    >>> c = Criterion(("bulk",), "the  mean   queue > 1",
    ...               lambda d, low: Verdict.of(d > low, f"{d} > {low}"), thresholds={"low": 1})
    >>> f = c.finding("T1", "RED keeps a queue")
    >>> f.criterion, f.judge(3).evidence
    ('the mean queue > 1', '3 > 1')
    """

    needs: tuple[str, ...]
    text: str
    test: Callable[..., Verdict]
    words: str = ""
    thresholds: Mapping[str, Any] = field(default_factory=dict)
    revised_from: Revision | None = None
    also: tuple[str, ...] = ()
    inconsistent: str = ""

    def judge(self, data: Data) -> Verdict:
        """Judge the criterion on ``data`` with its thresholds."""
        return self.test(data, **self.thresholds)

    def finding(self, finding_id: str, claim: str) -> Finding:
        """Return the finding ``claim`` judged by this criterion."""
        judge = self.judge if self.thresholds else self.test
        return Finding(finding_id, claim, self.needs, " ".join(self.text.split()), judge,
                       self.revised_from, self.also, self.inconsistent, self.words)  # fmt: skip


def listed_findings(
    paper: str,
    criteria: Mapping[str, Criterion],
    *,
    parts: Mapping[str, Mapping[str, str]] | None = None,
    extra: Mapping[str, str] | None = None,
) -> tuple[Finding, ...]:
    """Return a paper's findings, each judged by its criterion, in the findings list's order.

    The claims are the list's (:func:`aqmlab.study.reference.findings`); a listed finding that
    bundles several claims is replaced by its ``parts`` (ID → claim, judged each alone); the
    claims the list leaves out (``extra``) follow. Every claim needs a criterion and every
    criterion a claim (:class:`ValueError` naming them otherwise).

    >>> always = Criterion((), "-", lambda d: Verdict("holds", ""))
    >>> ids = [f"E{i}" for i in range(1, 12)]
    >>> [f.id for f in listed_findings("eddy2003", dict.fromkeys([*ids, "E12"], always),
    ...                                extra={"E12": "more"})][-2:]
    ['E11', 'E12']
    >>> listed_findings("eddy2003", {"E1": always})
    Traceback (most recent call last):
    ...
    ValueError: eddy2003: claims without a criterion: E2, E3, E4, E5, E6, E7, E8, E9, E10, E11
    """
    claims: dict[str, str] = {}
    for finding_id, finding in listed(paper).items():
        claims.update((parts or {}).get(finding_id, {finding_id: finding.claim}))
    claims.update(extra or {})
    for what, ids in (("claims without a criterion", [i for i in claims if i not in criteria]),
                      ("criteria without a claim", [i for i in criteria if i not in claims])):
        if ids:
            raise ValueError(f"{paper}: {what}: {', '.join(ids)}")
    return tuple(criteria[finding_id].finding(finding_id, claim)
                 for finding_id, claim in claims.items())  # fmt: skip


@dataclass(frozen=True)
class Column:
    """A column of a comparison table: ``ours`` in our rows, ``paper`` in the paper's CSV.

    ``digits`` is how many decimals to print.
    """

    title: str
    ours: str
    paper: str | None = None
    digits: int = 1


@dataclass(frozen=True)
class Reason:
    """A documented likely reason why our values in some rows are far from the paper's.

    ``where`` maps key columns to the values (as text) of the rows it covers (every row if
    empty); ``text`` says the reason and where it is documented. The report gives it beside the
    cells it covers that are far from the paper's (:func:`aqmlab.study.report.far`); cells no
    reason covers are "not explained".
    """

    text: str
    where: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def covers(self, keys: Mapping[str, str]) -> bool:
        """Return True if the row with these key values is one the reason covers.

        >>> Reason("r", {"load": ("98",)}).covers({"load": "98", "limit": "30"})
        True
        """
        return all(keys.get(k) in values for k, values in self.where.items())


@dataclass(frozen=True)
class TableSpec:
    """Our numbers beside a published table.

    ``rows(data)`` gives one row per run with the ``keys`` columns (plus ``seed``) and every
    column's ``ours``; the builder averages over seeds (Student-t intervals when there is more
    than one) and, for each of our rows, adds the paper's row with the same keys from the CSV
    ``paper_table`` (package data), whose key columns are renamed by ``paper_keys``.
    ``reasons`` explain, where the project knows why, our values far from the paper's.
    """

    name: str
    title: str
    needs: tuple[str, ...]
    keys: tuple[str, ...]
    columns: tuple[Column, ...]
    rows: Callable[[Data], pd.DataFrame]
    paper_table: str | None = None
    paper_keys: Mapping[str, str] = field(default_factory=dict)
    paper_filter: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    note: str = ""
    reasons: tuple[Reason, ...] = ()


@dataclass(frozen=True)
class FigureSpec:
    """A figure of the paper redrawn from our data: ``panels(data)`` gives its panels.

    ``paper_figure`` names the paper's figure ("Fig. 7", "Figs. 3–4"): the drawn figure's title
    starts with it and the study's citation (:func:`aqmlab.plot.figure_title`). ``sharey=False``
    gives each panel its own y axis (panels of different quantities). Drawn by
    :func:`aqmlab.plot.draw_panels`.
    """

    name: str
    title: str
    paper_figure: str
    needs: tuple[str, ...]
    panels: Callable[[Data], Sequence[Panel]]
    sharey: bool = True


@dataclass(frozen=True)
class Section:
    """Extra text of a report (testbed choices, diagnostics) as markdown, from ``body(data)``."""

    title: str
    needs: tuple[str, ...]
    body: Callable[[Data], str]


@dataclass(frozen=True)
class Study:
    """A paper's reproduction: what it runs, what it judges, what it shows."""

    name: str
    title: str
    scales: Mapping[str, Scale]
    experiments: tuple[Experiment, ...]
    findings: tuple[Finding, ...]
    tables: tuple[TableSpec, ...] = ()
    figures: tuple[FigureSpec, ...] = ()
    testbed: tuple[str, ...] = ()
    """The testbed and every choice the paper leaves open, one markdown item each."""
    sections: tuple[Section, ...] = ()
    citation: str = ""
    """The paper in short, as figure titles cite it: "Christiansen et al. 2000"."""
    public_scales: tuple[str, ...] = ("quick", "full")
    referee_approximates: bool = False
    """ns-2 cannot express this study's testbed as given (a lab's TCP, router or link framing):
    the referee runs the nearest scenario it can (:mod:`aqmlab.referee.approximate`), and the
    report says so and lists each change."""
    model_gaps: Mapping[str, str] = field(default_factory=dict)
    """What is known of why aqmlab's verdict on a finding differs from ns-2's: finding ID → the
    mechanism suspected, with its evidence and where the work is taken up (the report's to-do
    list; a finding without an entry reads "not identified yet")."""
    heading: str = "Reproduction"
    """What the report calls the study in its title: a paper's reproduction, or (a study with no
    paper to match) a comparison."""

    def __post_init__(self) -> None:
        names = [e.name for e in self.experiments]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: experiment names repeat: {names}")
        ids = [f.id for f in self.findings]
        if len(set(ids)) != len(ids):
            raise ValueError(f"{self.name}: finding ids repeat: {ids}")
        things: tuple[Finding | TableSpec | FigureSpec | Section, ...] = (
            *self.findings, *self.tables, *self.figures, *self.sections
        )
        for thing in things:
            for need in (*thing.needs, *getattr(thing, "also", ())):
                if need not in names:
                    raise ValueError(f"{self.name}: {thing} needs unknown experiment {need!r}")
        for experiment in self.experiments:
            for need in experiment.after:
                if need not in names[: names.index(experiment.name)]:
                    raise ValueError(
                        f"{self.name}: {experiment.name} comes after {need!r}, "
                        "which must be declared before it"
                    )

    @functools.cached_property
    def experiment_names(self) -> tuple[str, ...]:
        """The experiments in the order they run."""
        return tuple(e.name for e in self.experiments)

    def finding(self, finding_id: str) -> Finding:
        """Return the finding with this id."""
        for finding in self.findings:
            if finding.id == finding_id:
                return finding
        raise KeyError(finding_id)

    def needed(self, finding_ids: Sequence[str] | None) -> tuple[str, ...]:
        """Return the experiments these findings need, and those they come after, in run order."""
        if finding_ids is None:
            return self.experiment_names
        wanted: set[str] = set()
        for finding_id in finding_ids:
            finding = self.finding(finding_id)
            wanted.update((*finding.needs, *finding.also))
        changed = True
        while changed:
            changed = False
            for experiment in self.experiments:
                if experiment.name in wanted and not set(experiment.after) <= wanted:
                    wanted.update(experiment.after)
                    changed = True
        return tuple(name for name in self.experiment_names if name in wanted)
