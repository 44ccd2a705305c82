r"""Write the tune file of docs/tuning.md: RED on the Christiansen et al. testbed at 98% load.

    python docs/tuning/christiansen98.py --duration 35min --warmup 15min --seeds 1-3 \
        --trials 40 --calibration runs/calibration-35min --out runs/christiansen98.toml
    aqmlab tune runs/christiansen98.toml --out runs/tune98

The users for 98% come from a calibration of the testbed at the same duration (``aqmlab
calibrate``'s, run here into ``--calibration`` if it is not there yet: six runs on the
unconstrained network, reused when run again). The testbed, the parameter ranges, the objectives
and the paper's settings (baselines) are :func:`aqmlab.papers.christiansen2000.tuning_job`'s.
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
    parser.add_argument("--duration", default="35min", help="simulated time per run")
    parser.add_argument("--warmup", default="15min", help="discarded at the start of each run")
    parser.add_argument("--seeds", default="1-3", help='seeds of every trial, e.g. "1-3"')
    parser.add_argument("--trials", type=int, default=40, help="trials, baselines included")
    parser.add_argument("--calibration", type=Path, required=True, help="calibration directory")
    parser.add_argument("--out", type=Path, required=True, help="the tune file to write")
    options = parser.parse_args()
    quick = paper.SCALES["quick"]
    scale = dataclasses.replace(
        quick,
        name="tune",
        settings={**quick.settings, "duration": options.duration, "warmup": options.warmup},
    )
    if (options.calibration / CALIBRATION_FILE).is_file():
        calibration = Calibration.load(options.calibration)
    else:
        calibration = calibrate(paper.testbed(scale), scale["calibration_users"],
                                out=options.calibration)  # fmt: skip
    users = calibration.users_for_load(paper.TUNE_LOAD / 100)
    job = paper.tuning_job(scale, users, seeds=options.seeds, trials=options.trials)
    header = (f"# RED on the Christiansen et al. testbed at {paper.TUNE_LOAD}% load ({users:,} "
              f"users from {options.calibration / CALIBRATION_FILE}),\n# {options.duration} "
              f"runs, {options.warmup} discarded; written by "
              "docs/tuning/christiansen98.py\n")  # fmt: skip
    options.out.parent.mkdir(parents=True, exist_ok=True)
    options.out.write_text(header + to_toml(job), encoding="utf-8")
    print(f"{options.out}: {users:,} users for {paper.TUNE_LOAD}% load; run: aqmlab tune "
          f"{options.out} --out DIR")  # fmt: skip


if __name__ == "__main__":
    main()
