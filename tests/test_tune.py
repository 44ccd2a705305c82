"""aqmlab tune: reading the job, errors, a small tune's front and constraints, reuse, weights."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from aqmlab.errors import InputError
from aqmlab.scenario import to_toml
from aqmlab.tune import (
    Constraint,
    Objective,
    Param,
    Trial,
    TuneJob,
    build_job,
    dominates,
    pareto_front,
    recommend,
    tune,
)
from conftest import cli, invoke
from hypothesis import given
from hypothesis import strategies as st

# Poisson traffic at 95% of a 2 Mbps link: a short queue drops (over 5% at 2 packets), a long one
# delays; the limit is the trade-off.
POISSON = {
    "name": "poisson",
    "duration": "2s",
    "warmup": "500ms",
    "topology": {"bottleneck": {"rate": "2Mbps", "delay": "5ms"}},
    "queue": {"kind": "droptail", "limit": "20p"},
    "traffic": [{"kind": "poisson", "rate": "1.9Mbps"}],
}
DELAY, UTILIZATION = "forward.mean_queue_delay_s", "forward.utilization"
OBJECTIVES = [f"{DELAY}:min", f"{UTILIZATION}:max"]


def job(*params: str, **options: object) -> TuneJob:
    return TuneJob.from_options(POISSON, params or ["queue.limit=2..40p:int"],
                                options.pop("objectives", OBJECTIVES), **options)  # type: ignore[arg-type]  # fmt: skip


# --- reading parameters, objectives, constraints --------------------------------------------------
def test_a_range_takes_a_unit_a_log_scale_and_integers() -> None:
    p = Param.parse("queue.limit=5..60p:log:int")
    assert (p.low, p.high, p.unit, p.log, p.integer) == (5.0, 60.0, "p", True, True)
    assert p.setting(17) == "17p"
    assert Param.parse("queue.max_p=0.01..0.5").setting(0.25) == 0.25
    assert Param.parse("queue.w_q=1/512,1/256,0.01").choices == ("1/512", "1/256", 0.01)


def test_a_relative_bound_keeps_max_th_above_min_th() -> None:
    low = Param.parse("queue.min_th=5..60")
    high = Param.parse("queue.max_th=min_th*2..min_th*6", [low])
    assert high.relative and high.refs == ("queue.min_th",)
    assert high.range_at({"queue.min_th": 10.0}) == (20.0, 60.0)
    assert high.envelope([low]) == (10.0, 360.0)
    plus = Param.parse("queue.max_th=queue.min_th+10..200", [low])
    assert plus.range_at({"queue.min_th": 30.0}) == (40.0, 200.0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("queue.limit", "expected PATH=LOW..HIGH"),
        ("queue.limit=9..3", "expected LOW < HIGH"),
        ("queue.limit=0..3:log", "a :log range needs low > 0"),
        ("queue.limit=1.5..3:int", "an :int range needs integer bounds"),
        ("queue.limit=1p..3KB", "different units"),
        ("queue.limit=a,b,a", "listed twice"),
        ("queue.limit=1,2:log", ":log applies to a range"),
        ("queue.max_th=min_th*2..90", '"min_th" is not a parameter declared before it'),
        ("queue.limit=3..5..7", "expected a bound"),
        ("queue.limit=x..7", "\"x\" is not a parameter declared before it"),
        ("queue..limit=1..2", "bad key path"),
    ],
)
def test_a_bad_parameter_is_an_error_naming_the_option(text: str, message: str) -> None:
    with pytest.raises(InputError, match="--param") as err:
        Param.parse(text)
    assert message in str(err.value)


def test_a_relative_range_that_can_be_empty_is_refused() -> None:
    low = Param.parse("queue.min_th=5..60")
    with pytest.raises(InputError, match="queue.max_th: expected LOW < HIGH, but the range can be"):
        Param.parse("queue.max_th=min_th*2..100", [low])  # empty once min_th > 50


def test_an_old_metric_name_is_read_as_its_new_one() -> None:
    """``bottleneck.*`` is ``forward.*`` and ``marked_bytes`` is ``marks_bytes`` until 0.3."""
    with pytest.warns(DeprecationWarning, match='"bottleneck.utilization" is now "forward'):
        assert Objective.parse("bottleneck.utilization:max") == Objective(UTILIZATION, "max")
    with pytest.warns(DeprecationWarning, match='"bottleneck.mean_queue_delay_s" is now "forward'):
        assert Constraint.parse("bottleneck.mean_queue_delay_s<=0.01").metric == DELAY
    with pytest.warns(DeprecationWarning, match='"reverse.marked_bytes" is now "reverse.marks_b'):
        assert Constraint.parse("reverse.marked_bytes<=9").metric == "reverse.marks_bytes"


@pytest.mark.parametrize(
    ("options", "where", "message"),
    [
        ({"objectives": ["requests.median:min"]}, "--objective",
         'no summary metric "requests.median" (did you mean requests.median_s'),
        ({"objectives": ["requests.median_s"]}, "--objective", "expected METRIC:min or METRIC:max"),
        ({"constraints": ["forward.drops<=1"]}, "--constraint", "no summary metric"),
        ({"constraints": ["forward.drop_rate<0.1"]}, "--constraint", "expected METRIC<=VALUE"),
        ({"weights": "1"}, "--weights", "one weight per objective (2), got 1"),
        ({"weights": "1,-1"}, "--weights", "expected positive numbers"),
        ({"trials": 0}, "--trials", "expected an integer from 1"),
        ({"sampler": "grid"}, "--sampler", 'expected one of "tpe", "nsga2", "random"'),
        ({"seeds": "3-1"}, "--seeds", "expected a range from low to high"),
        ({"objectives": []}, "--objective", "expected at least one objective"),
    ],
)  # fmt: skip
def test_a_bad_job_is_an_error_naming_the_option(
    options: dict[str, object], where: str, message: str
) -> None:
    with pytest.raises(InputError) as err:
        job(**options)
    assert err.value.path == where
    assert message in err.value.message


def test_a_parameter_the_engine_refuses_is_found_before_anything_runs() -> None:
    with pytest.raises(InputError, match="--param: the engine refuses the scenario") as err:
        job("queue.limit=2..40p")  # packets are whole numbers: needs :int
    assert "needs :int" in str(err.value)
    with pytest.raises(InputError, match="--param: the engine refuses"):
        job("queue.no_such_key=1..2")


def test_a_tune_file_is_read_and_the_options_add_to_it(tmp_path: Path) -> None:
    (tmp_path / "p.toml").write_text(to_toml(POISSON))
    path = tmp_path / "t.toml"
    path.write_text('scenario = "p.toml"\nseeds = "1-2"\ntrials = 3\n'
                    'params = ["queue.limit=2..40p:int"]\n'
                    f'objectives = ["{DELAY}:min"]\n'
                    '[[baseline]]\n"queue.limit" = 20\n')  # fmt: skip
    read = build_job(path, objectives=[f"{UTILIZATION}:max"], seed=5, overrides=["duration=2s"])
    assert read.name == "t" and read.seeds == (1, 2) and read.trials == 3 and read.seed == 5
    assert [o.metric for o in read.objectives] == [DELAY, UTILIZATION]
    assert read.base["duration"] == "2s" and read.baselines == ({"queue.limit": 20},)
    path.write_text('scenario = "p.toml"\nparams = ["queue.limit=2..40p:int"]\n'
                    'objectives = ["x:min"]\n')  # fmt: skip
    with pytest.raises(InputError, match=r"t.toml: objectives|--objective"):
        build_job(path)


GOOD = ["p.toml", "--param", "queue.limit=2..40p:int", "--objective", f"{DELAY}:min",
        "--out", "o"]  # fmt: skip
CLI_ERRORS: list[tuple[list[str], str]] = [
    (["--objective", "forward.nothing:min"], "error: --objective: no summary metric"),
    (["--param", "queue.min_th=9..3"], "error: --param: queue.min_th: expected LOW < HIGH"),
    (["--param", "queue.x=1..5p"], "error: --param: the engine refuses the scenario"),
    (["--constraint", "forward.drop_rate=0.1"], "error: --constraint: expected METRIC<=VALUE"),
    (["--weights", "1,2"], "error: --weights: expected one weight per objective (1), got 2"),
    (["--trials", "0"], "error: --trials: expected an integer from 1"),
    (["--sampler", "cmaes"], 'error: --sampler: expected one of "tpe"'),
    (["--seeds", "x"], "error: --seeds: expected seeds like"),
    (["--out", "file"], "error: --out: file is a file, expected a directory"),
    (["--set", "queue.kind=nonsense"], "error: --param: the engine refuses the scenario"),
]  # fmt: skip


@pytest.mark.parametrize(("extra", "expected"), CLI_ERRORS, ids=[a[0] for a, _ in CLI_ERRORS])
def test_the_command_line_refuses_bad_input_with_one_line_and_status_2(
    tmp_path: Path, extra: list[str], expected: str
) -> None:
    (tmp_path / "p.toml").write_text(to_toml(POISSON))
    (tmp_path / "file").write_text("x")
    status, _, err = invoke(tmp_path, "tune", *GOOD, *extra)
    assert status == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith(expected), err
    assert not (tmp_path / "o").exists()


# --- a small tune -----------------------------------------------------------------------------
def test_a_small_tune_finds_a_non_dominated_feasible_front_and_reuses_its_runs(
    tmp_path: Path,
) -> None:
    chosen = job(constraints=["forward.drop_rate<=0.05"], seeds="1-2", trials=5, batch=5,
                 baselines=[{"queue.limit": 2}])  # fmt: skip
    first = tune(chosen, out=tmp_path, jobs=1, progress=False)
    trials = first.trials
    assert [t.number for t in trials] == list(range(5))
    assert trials[0].baseline and trials[0].params == {"queue.limit": "2p"}
    settings = len({json.dumps(t.params) for t in trials})
    assert first.counts["ran"] == first.counts["runs"] == settings * 2
    for trial in trials:
        assert trial.state == "complete", trial.error
        drop = trial.constraints[0]
        assert drop["mean"] == pytest.approx(sum(drop["seeds"]) / 2)
        assert trial.feasible == (drop["mean"] <= 0.05)
        delay = trial.objectives[DELAY]
        assert delay["n"] == 2 and delay["lo"] <= delay["mean"] <= delay["hi"]
    # The 2-packet baseline drops more than 5%: infeasible, so neither on the front nor chosen.
    assert not trials[0].feasible
    feasible = [t for t in trials if t.feasible]
    assert feasible and set(first.front) <= {t.number for t in feasible}
    oriented = {t.number: (t.mean(DELAY), -t.mean(UTILIZATION)) for t in feasible}
    for number in first.front:  # nothing feasible dominates a front trial
        assert not any(dominates(oriented[o], oriented[number]) for o in oriented)
    for number in set(oriented) - set(first.front):  # and the front covers every other one
        assert any(dominates(oriented[f], oriented[number]) or oriented[f] == oriented[number]
                   for f in first.front)  # fmt: skip
    assert first.recommendation["trial"] in first.front
    written = json.loads((tmp_path / "tune.json").read_text())
    assert written["front"] == first.front and len(written["trials"]) == 5
    assert written["trials"][0]["feasible"] is False
    report = (tmp_path / "report.md").read_text()
    assert "## Pareto front" in report and "## Recommendation" in report
    assert (tmp_path / "pareto.png").stat().st_size > 0

    # The same job again, as a tune file on the command line: every run reused, the same trials.
    (tmp_path / "job.toml").write_text(to_toml(chosen.to_dict()))
    (tmp_path / "tune.json").unlink()
    status, out, err = invoke(tmp_path, "tune", "job.toml", "--out", ".", "--jobs", "1")
    assert status == 0, err
    runs = settings * 2
    assert f"5 trials, {runs} runs: {runs} reused, 0 run now, 0 failed" in out
    assert f"recommended: trial {first.recommendation['trial']}:" in out
    assert (tmp_path / "tune.json").read_text() == json.dumps(written, indent=2) + "\n"
    proc = cli("collect", tmp_path / "store", "--out", tmp_path / "runs.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    header = (tmp_path / "runs.csv").read_text().splitlines()[0].split(",")
    assert header[0] == "queue.limit"


# --- the front and the recommendation, on made-up trials -----------------------------------------
def made_up(number: int, a: float, b: float, *, ci: float = 0.0, ok: bool = True) -> Trial:
    def row(mean: float) -> dict[str, object]:
        return {"mean": mean, "lo": mean - ci, "hi": mean + ci, "n": 3, "sd": ci, "seeds": []}

    constraint = {"constraint": "forward.drop_rate<=0.05", "satisfied": ok}
    return Trial(number, {"queue.limit": number}, {}, objectives={DELAY: row(a), UTILIZATION:
                 row(b)}, constraints=[constraint])  # fmt: skip


LIMIT = Param("queue.limit", 2.0, 40.0, unit="p", integer=True)


def two_objectives(weights: tuple[float, float]) -> TuneJob:
    return TuneJob(POISSON, (LIMIT,), (Objective(DELAY, "min"), Objective(UTILIZATION, "max")),
                   weights=weights)  # fmt: skip


TWO = two_objectives((1, 1))


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans()), max_size=12))
def test_the_front_is_exactly_the_non_dominated_feasible_trials(
    points: list[tuple[int, int, bool]],
) -> None:
    trials = [made_up(i, a, b, ok=ok) for i, (a, b, ok) in enumerate(points)]
    front = pareto_front(TWO, trials)
    oriented = {t.number: (t.mean(DELAY), -t.mean(UTILIZATION)) for t in trials if t.feasible}
    expected = [n for n, mine in oriented.items()
                if not any(dominates(other, mine) for other in oriented.values())]  # fmt: skip
    firsts = {}
    for n in expected:  # the same means twice: the earlier trial stands for both
        firsts.setdefault(oriented[n], n)
    assert front == sorted(firsts.values())


def test_the_recommendation_follows_the_weights() -> None:
    # delay (min) and utilization (max): trial 0 is fastest, 2 fullest, 1 between; 3 dominated
    trials = [made_up(0, 0.01, 0.80), made_up(1, 0.02, 0.90), made_up(2, 0.05, 0.97),
              made_up(3, 0.06, 0.70), made_up(4, 0.001, 0.99, ok=False)]  # fmt: skip
    for weights, chosen in (((1, 0.01), 0), ((0.01, 1), 2), ((1, 1), 1)):
        tuned = two_objectives(weights)
        front = pareto_front(tuned, trials)
        assert front == [0, 1, 2]
        assert recommend(tuned, trials, front)["trial"] == chosen, weights
    # scores: normalised over the front, weights divided by their sum
    tuned = two_objectives((1, 3))
    rec = recommend(tuned, trials, [0, 1, 2])
    assert rec["scores"] == pytest.approx({"0": 0.75, "1": 0.25 * 0.25 + 0.75 * (7 / 17),
                                           "2": 0.25})  # fmt: skip


def test_overlapping_intervals_are_reported_as_not_significantly_better() -> None:
    tuned = two_objectives((1, 1))
    apart = [made_up(0, 0.01, 0.80), made_up(1, 0.02, 0.90), made_up(2, 0.05, 0.97)]
    assert recommend(tuned, apart, [0, 1, 2])["indistinguishable"] == []
    wide = [made_up(0, 0.01, 0.80, ci=0.2), made_up(1, 0.02, 0.90, ci=0.2),
            made_up(2, 0.05, 0.97, ci=0.01)]  # fmt: skip
    assert recommend(tuned, wide, [0, 1, 2])["indistinguishable"] == [0, 2]


def test_one_objective_recommends_the_best_feasible_mean() -> None:
    tuned = TuneJob(POISSON, (LIMIT,), (Objective(DELAY, "min"),))
    trials = [made_up(0, 0.03, 0), made_up(1, 0.01, 0, ok=False), made_up(2, 0.02, 0)]
    assert recommend(tuned, trials, pareto_front(tuned, trials))["trial"] == 2


def test_the_figure_marks_each_trial_once_so_the_front_is_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import aqmlab.plot
    from aqmlab.tune import TuneResult, draw_front

    drawn = []
    monkeypatch.setattr(aqmlab.plot, "draw_panels", lambda panels, *a, **k: drawn.extend(panels))
    # 0 and 2 on the front, 1 dominated by 0, 3 infeasible; 0 is a baseline and recommended
    trials = [made_up(0, 0.01, 0.95), made_up(1, 0.02, 0.90), made_up(2, 0.05, 0.97),
              made_up(3, 0.001, 0.99, ok=False)]  # fmt: skip
    trials[0].baseline = True
    front = pareto_front(TWO, trials)
    assert front == [0, 2]
    result = TuneResult(TWO, trials, front, recommend(TWO, trials, front), tmp_path, {})
    draw_front(result, tmp_path / "pareto.png")
    (panel,) = drawn
    xs = {c.label: sorted(c.x.tolist()) for c in panel.curves}
    # the front's own markers are not covered by the trials' plain markers
    assert xs == {"Pareto front": [0.01, 0.05], "other feasible": [0.02], "infeasible": [0.001],
                  "baseline": [0.01], "recommended (trial 0)": [0.01]}  # fmt: skip


def test_dominance_is_a_strict_partial_order() -> None:
    vectors = list(itertools.product(range(3), repeat=2))
    for a, b in itertools.product(vectors, repeat=2):
        assert not (dominates(a, b) and dominates(b, a))
    assert not any(dominates(a, a) for a in vectors)


# --- the worked example -----------------------------------------------------------------------
def test_the_christiansen_example_is_a_tune_job_that_reads_back_from_toml(tmp_path: Path) -> None:
    import tomllib

    from aqmlab.papers import christiansen2000 as paper

    data = paper.tuning_job(paper.SCALES["smoke"], 3300, seeds="1-2", trials=10)
    assert tomllib.loads(to_toml(data)) == data
    path = tmp_path / "c.toml"
    path.write_text(to_toml(data))
    read = build_job(path)
    assert [p.spec() for p in read.params][1] == "queue.max_th=queue.min_th+10..360:int"
    sampled = [read.sampled_baseline(b) for b in read.baselines]
    assert sampled[0]["queue.min_th"] == 5 and 0 <= sampled[0]["queue.max_th@position"] <= 1
    docs = Path(__file__).resolve().parents[1] / "docs/tuning"
    for committed in ("christiansen98-full.toml", "reduced/christiansen98-reduced.toml"):
        assert build_job(docs / committed).params == read.params, committed


def test_each_sampler_is_seeded_from_the_job() -> None:
    import optuna
    from aqmlab.tune import make_sampler

    kinds = {"tpe": optuna.samplers.TPESampler, "nsga2": optuna.samplers.NSGAIISampler,
             "random": optuna.samplers.RandomSampler}  # fmt: skip
    for name, kind in kinds.items():
        asked = []
        for _ in range(2):
            study = optuna.create_study(sampler=make_sampler(job(sampler=name, seed=7)))
            asked.append([study.ask().suggest_float("x", 0, 1) for _ in range(3)])
        assert isinstance(make_sampler(job(sampler=name)), kind)
        assert asked[0] == asked[1], name
