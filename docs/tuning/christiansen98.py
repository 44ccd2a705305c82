r"""Write the tune file of docs/tuning.md: RED on the Christiansen et al. testbed at 98% load.

    python docs/tuning/christiansen98.py --scale full --seeds 1-3 --trials 32 \
        --calibration runs/calibration-90min --out runs/christiansen98.toml
    aqmlab tune runs/christiansen98.toml --out runs/tune98

``--scale`` takes the run length, warm-up and calibration points of the christiansen2000
study's scale (``quick``: 35 minutes, 15 discarded; ``full``: the paper's 90 and 20);
``--duration`` and ``--warmup`` override them. The users for 98% come from a calibration of the
testbed at the same duration (``aqmlab calibrate``'s, run here into ``--calibration`` if it is
not there yet: the scale's runs on the unconstrained network, reused when run again). The
testbed, the parameter ranges, the objectives and the paper's settings (baselines) are
:func:`aqmlab.papers.christiansen2000.tuning_job`'s.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from aqmlab.calibrate import CALIBRATION_FILE, Calibration, calibrate
from aqmlab.papers import christiansen2000 as paper
from aqmlab.scenario import to_toml


def main() -> None:
    """Calibrate if needed, then write the tune file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scale",
        choices=("quick", "full"),
        default="quick",
        help="the christiansen2000 study's scale (duration, warm-up, calibration)",
    )
    parser.add_argument("--duration", help="simulated time per run (default: the scale's)")
    parser.add_argument("--warmup", help="discarded at the start of a run (default: the scale's)")
    parser.add_argument("--seeds", default="1-3", help='seeds of every trial, e.g. "1-3"')
    parser.add_argument("--trials", type=int, default=40, help="trials, baselines included")
    parser.add_argument("--calibration", type=Path, required=True, help="calibration directory")
    parser.add_argument("--out", type=Path, required=True, help="the tune file to write")
    options = parser.parse_args()
    study = paper.SCALES[options.scale]
    duration = options.duration or study["duration"]
    warmup = options.warmup or study["warmup"]
    scale = dataclasses.replace(
        study, name="tune", settings={**study.settings, "duration": duration, "warmup": warmup}
    )
    if (options.calibration / CALIBRATION_FILE).is_file():
        calibration = Calibration.load(options.calibration)
    else:
        calibration = calibrate(paper.testbed(scale), scale["calibration_users"],
                                out=options.calibration)  # fmt: skip
    users = calibration.users_for_load(paper.TUNE_LOAD / 100)
    job = paper.tuning_job(scale, users, seeds=options.seeds, trials=options.trials)
    header = (f"# RED on the Christiansen et al. testbed at {paper.TUNE_LOAD}% load ({users:,} "
              f"users from {options.calibration / CALIBRATION_FILE}),\n# {duration} "
              f"runs, {warmup} discarded; written by "
              "docs/tuning/christiansen98.py\n")  # fmt: skip
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(header + to_toml(job), encoding="utf-8")
    print(f"{options.out}: {users:,} users for {paper.TUNE_LOAD}% load; run: aqmlab tune "
          f"{options.out} --out DIR")  # fmt: skip


if __name__ == "__main__":
    main()
