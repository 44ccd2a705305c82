"""Inputs that passed silently or ended in a traceback, each refused now with one line naming
where: a sweep file's options read through the same typed checks as the command line, a cap
on a sweep's runs, empirical files kept to the scenario's directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import BASE_TOML, invoke

SCENARIO = BASE_TOML.replace('duration = "3s"', 'duration = "1s"')


def _sweep_file(tmp_path: Path, extra: str) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO)
    (tmp_path / "w.toml").write_text(
        f'scenario = "s.toml"\n{extra}\n[[axis]]\npath = "queue.limit"\nvalues = ["10p", "20p"]\n'
    )


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ('zip = "false"', "error: w.toml: zip: expected True or False, got"),
        ('zip = "yes"', "error: w.toml: zip: expected True or False, got"),
        ("name = 3", "error: w.toml: name: expected a string, got"),
        ('name = "../x"', "error: w.toml: name: expected a sweep name"),
        ("max_runs = 0", "error: w.toml: max_runs:"),
    ],
)
def test_a_sweep_files_options_are_typed(tmp_path: Path, extra: str, expected: str) -> None:
    _sweep_file(tmp_path, extra)
    code, _, err = invoke(tmp_path, "sweep", "w.toml", "--out", "st")
    assert code == 2 and err.startswith(expected), err
    assert not (tmp_path / "st").exists()


def test_a_sweep_of_too_many_runs_is_refused_before_its_points_are_made(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO)
    values = ",".join(f"{n}p" for n in range(1, 1001))
    vary = [f"queue.limit={values}", f"reverse_queue.limit={values}"]
    code, _, err = invoke(tmp_path, "sweep", "s.toml", *[a for v in vary for a in ("--vary", v)],
                          "--out", "st")  # fmt: skip
    assert code == 2, err
    assert err.startswith("error: --max-runs: the sweep has 1,000,000 runs"), err
    _sweep_file(tmp_path, "max_runs = 1")
    code, _, err = invoke(tmp_path, "sweep", "w.toml", "--out", "st")
    assert code == 2 and "2 runs (2 points × 1 seeds), more than 1;" in err, err
    code, _, err = invoke(tmp_path, "sweep", "w.toml", "--max-runs", "2", "-j", "1", "--out", "st")
    assert code == 0, err


def test_an_empirical_file_outside_the_scenarios_directory_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    here = tmp_path / "study"
    here.mkdir()
    (here / "cdf").mkdir()
    (here / "cdf" / "sizes.cdf").write_text("100 0.5\n1000 1.0\n")
    scenario = SCENARIO.replace('rate = "2.5Mbps"', 'rate = "2.5Mbps"\nsize = { dist = '
                                '"empirical", file = "FILE" }')  # fmt: skip
    for file in ("../secret.txt", str(outside), "cdf/../../secret.txt"):
        (here / "s.toml").write_text(scenario.replace("FILE", file))
        code, _, err = invoke(here, "validate", "s.toml")
        assert code == 2, err
        assert "traffic[0].size.file: expected a CDF file in the scenario's directory" in err
        assert "root:x" not in err
    (here / "s.toml").write_text(scenario.replace("FILE", "cdf/sizes.cdf"))
    assert invoke(here, "validate", "s.toml")[0] == 0
    (here / "s.toml").write_text(scenario.replace("FILE", "../secret.txt"))
    monkeypatch.setenv("AQMLAB_CDF_ANYWHERE", "1")
    code, _, err = invoke(here, "validate", "s.toml")
    assert code == 2 and err.rstrip().endswith("got 1 fields"), err
    assert "/bin/bash" not in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["reproduce", "chung2003", "--scale", "smoke", "--out", "/proc/x"],
         "error: /proc/x: "),
        (["calibrate", "s.toml", "--target", "1e308", "--out", "cal"],
         "error: --target: expected a finite number > 0 and ≤ 10000, got 1e+308"),
        (["run", "s.toml", "--load", "1e308", "--calibration", "cal"],
         "error: --load: expected a finite number > 0 and ≤ 10000, got 1e+308"),
    ],
)
def test_options_past_what_the_system_or_the_model_holds(
    tmp_path: Path, argv: list[str], expected: str
) -> None:
    (tmp_path / "s.toml").write_text(SCENARIO)
    code, _, err = invoke(tmp_path, *argv)
    assert code == 2 and err.startswith(expected) and len(err.splitlines()) == 1, err


def test_scenario_hash_of_what_is_not_a_scenario() -> None:
    from aqmlab import scenario_hash
    from aqmlab.errors import ScenarioError

    for bad in (None, [], {"x": object()}, {"x": float("nan")}):
        with pytest.raises(ScenarioError, match="expected a resolved scenario"):
            scenario_hash(bad)  # type: ignore[arg-type]
