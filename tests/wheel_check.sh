#!/usr/bin/env bash
# Does an installed wheel work without the repository? (Not collected by pytest; run by hand.)
#
#   tests/wheel_check.sh [SOURCE_DIR]
#
# Builds the wheel of SOURCE_DIR (default: this repository) with pip (maturin, release profile),
# installs it with its dependencies from the package index into a fresh virtual environment in a
# temporary directory, then, from an empty directory outside the repository, loads the papers'
# reference data (package data) and runs `aqmlab reproduce --help`. Prints the time of each step.
#
# PYTHON picks the interpreter (>= 3.11; default python3). The Rust build goes to
# $CARGO_TARGET_DIR if set, else target/wheel-check/ of this repository (kept between runs, apart
# from the target/ that `./dev` uses, so the two never wait for each other's lock).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source_dir="$(cd "${1:-$here}" && pwd)"
python="${PYTHON:-python3}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target/wheel-check}"

tmp="$(mktemp -d -t aqmlab-wheel-check.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

clock() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(clock)" 'BEGIN { printf "%.1f s", b - a }'; }
start="$(clock)"

step="$(clock)"
"$python" -m pip wheel --no-deps --disable-pip-version-check -q -w "$tmp/wheel" "$source_dir"
wheel="$(ls "$tmp"/wheel/aqmlab-*.whl)"
echo "built $(basename "$wheel") in $(since "$step")"

step="$(clock)"
"$python" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --disable-pip-version-check -q "$wheel"
echo "installed it and its dependencies in a fresh venv in $(since "$step")"

mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
step="$(clock)"
# -I: ignore PYTHONPATH and the user's site-packages, so only the installed wheel is seen.
"$tmp/venv/bin/python" -I -c '
import sys
from pathlib import Path

import aqmlab.study.reference as ref

where = Path(ref.__file__).resolve()
assert where.is_relative_to(Path(sys.prefix).resolve()), f"not the installed copy: {where}"
table = ref.paper_table("christiansen2000_table1_fifo")
assert len(table) == 20 and "median_response_ms" in table.columns, table
assert len(ref.findings()) == 49 and ref.paper_info("christiansen2000").setup
assert all(len(ref.paper_table(name)) for name in ref.table_names())
data = where.parent / "data"
print(f"reference data found in {data}: {len(ref.table_names())} tables,",
      f"{len(ref.findings())} findings")
'
"$tmp/venv/bin/aqmlab" reproduce --help >"$tmp/help.txt"
grep -q "reproduce" "$tmp/help.txt"
echo "ran the checks from $PWD in $(since "$step")"
echo "wheel check passed in $(since "$start")"
