r"""Write every trial of a finished tune as one CSV row, with summary metrics beside its objectives.

    python docs/tuning/trials_table.py runs/tune98 --out docs/tuning/trials.csv \
        --metric forward.utilization --metric forward.drop_rate

A tune judges its trials on its objectives only; this table adds other summary columns (as
``aqmlab collect --table summary`` names them), each the mean over the trial's seeds with its 95%
Student-t interval, read from the tune's store (``DIR/store``), so that a setting can be compared
on measures it was not chosen for (the paper's Table 4 names settings for utilisation and drop
rate). Columns: ``trial``, ``baseline``, ``on_front``, ``recommended``, each parameter, then for
each objective and metric ``M_mean``, ``M_lo``, ``M_hi`` and ``M_n``, and ``M_vs_rec_mean``,
``M_vs_rec_lo``, ``M_vs_rec_hi``: the trial minus the recommended trial, paired seed by seed.

The paired difference is the sharper comparison: a seed gives every trial the same users, pages
and think times (each component draws from its own random stream), so much of the spread between
seeds is common to the trials and cancels in the difference. The tune's report uses each
trial's own interval (conservative); this table adds the paired one for the reader.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd
from aqmlab.reading import collect
from aqmlab.stats import mean_ci
from aqmlab.tune import SWEEP_NAME, Objective


def trials_table(tune_dir: Path, metrics: list[str]) -> pd.DataFrame:
    """Return one row per complete trial of the tune in ``tune_dir`` (see the module)."""
    data = json.loads((tune_dir / "tune.json").read_text(encoding="utf-8"))
    objectives = [Objective.parse(o).metric for o in data["job"]["objectives"]]
    measures = list(dict.fromkeys([*objectives, *metrics]))
    runs = collect(tune_dir / "store", sweep=SWEEP_NAME).set_index("run")
    recommended = next(t for t in data["trials"] if t["number"] == data["recommendation"]["trial"])
    reference = runs.loc[recommended["runs"], measures].astype(float).reset_index(drop=True)
    rows = []
    for trial in data["trials"]:
        if trial["state"] != "complete":
            continue
        of_trial = runs.loc[trial["runs"], measures].astype(float)
        stats = mean_ci(of_trial, measures).iloc[0]
        row = {"trial": trial["number"], "baseline": trial["baseline"],
               "on_front": trial["number"] in data["front"],
               "recommended": trial["number"] == data["recommendation"]["trial"],
               **trial["params"]}  # fmt: skip
        for m in measures:
            row.update({f"{m}_{k}": stats[f"{m}_{k}"] for k in ("mean", "lo", "hi", "n")})
        paired = mean_ci(of_trial.reset_index(drop=True) - reference, measures).iloc[0]
        for m in measures:
            row.update({f"{m}_vs_rec_{k}": paired[f"{m}_{k}"] for k in ("mean", "lo", "hi")})
        rows.append(row)
    return pd.DataFrame(rows)


def main() -> None:
    """Read the tune, write the CSV."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tune_dir", type=Path, help="a tune's --out directory")
    parser.add_argument("--metric", action="append", default=[], help="a summary column to add")
    parser.add_argument("--out", type=Path, required=True, help="the CSV to write")
    options = parser.parse_args()
    if not (options.tune_dir / "tune.json").is_file():
        parser.error(f"{options.tune_dir}: no tune.json (expected a finished tune's --out)")
    table = trials_table(options.tune_dir, options.metric)
    table.to_csv(options.out, index=False, float_format="%.8g")
    print(f"{options.out}: {len(table)} trials")


if __name__ == "__main__":
    main()
