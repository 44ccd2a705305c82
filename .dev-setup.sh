#!/usr/bin/env bash
# Developer entry point. Needs only Python >= 3.11 (python3, or $PYTHON) and Rust (cargo).
#
#   ./dev demo    set up, then reproduce Christiansen et al. 2000 at quick scale (a few minutes on
#                 every core; extra arguments go to aqmlab reproduce) and print where the report is
#   ./dev test    set up, then cargo fmt/clippy/test, ruff, pytest (what .ci/run runs)
#   ./dev bench   set up, then run the reference benchmarks (aqmlab bench [--only NAME])
#   ./dev fuzz    set up, then fuzz the scenario reader and the engine with 10,000 generated
#                 scenarios (./dev fuzz N for N; tests/test_fuzz.py; ./dev test runs a few hundred)
#
# Set up = create .venv if missing and `pip install -e '.[test,dask]'`, which compiles the Rust
# engine (release profile, via maturin). The install is redone whenever the Rust sources,
# Cargo files or pyproject.toml change; Python sources are live (editable install).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"
ROOT=$PWD
VENV="$ROOT/.venv"
STAMP="$VENV/.aqmlab-build-inputs"

say() { printf 'dev: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# A digest of everything the compiled extension and the installed metadata depend on.
build_inputs_digest() {
    {
        "$VENV/bin/python" -VV
        cargo --version
        rustc --version
        find crates -path '*/target' -prune -o -type f -print
        ls Cargo.toml Cargo.lock pyproject.toml 2>/dev/null
    } | {
        local line
        while IFS= read -r line; do
            if [[ -f $line ]]; then sha256sum "$line"; else printf '%s\n' "$line"; fi
        done
    } | LC_ALL=C sort | sha256sum | cut -d' ' -f1
}

setup() {
    command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs)"
    if [[ ! -x $VENV/bin/python ]]; then
        local python=${PYTHON:-python3}
        command -v "$python" >/dev/null || die "$python not found: install Python >= 3.11"
        "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
            die "$python is $("$python" -V 2>&1); aqmlab needs Python >= 3.11"
        say "creating $VENV"
        "$python" -m venv "$VENV"
    fi
    export VIRTUAL_ENV=$VENV PATH="$VENV/bin:$PATH" PYO3_PYTHON="$VENV/bin/python"
    unset PYTHONHOME

    local want
    want=$(build_inputs_digest)
    if [[ -f $STAMP && $(<"$STAMP") == "$want" ]] &&
        python -c 'import aqmlab._native' 2>/dev/null; then
        return
    fi
    say "installing aqmlab into .venv (compiles the Rust engine in release mode; may take minutes)"
    local log
    log=$(mktemp)
    if ! python -m pip install --disable-pip-version-check -q -e '.[test,dask]' >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        die "install failed (output above)"
    fi
    rm -f "$log"
    printf '%s\n' "$want" >"$STAMP"
}

step() {
    say "== $*"
    "$@"
}

cmd_demo() {
    setup
    local started=$SECONDS
    step aqmlab reproduce christiansen2000 --scale quick "$@"
    say "demo took $((SECONDS - started)) s; open the report printed above (report.md, figures/)"
}

cmd_test() {
    setup
    if cargo fmt --version >/dev/null 2>&1; then
        step cargo fmt --all -- --check
    else
        say "note: rustfmt is not installed; skipping cargo fmt (rustup component add rustfmt)"
    fi
    if cargo clippy --version >/dev/null 2>&1; then
        step cargo clippy --workspace --all-targets -- -D warnings
    else
        say "note: clippy is not installed; skipping cargo clippy (rustup component add clippy)"
    fi
    step cargo test --workspace
    step ruff check .
    step pytest -q "$@"
}

cmd_bench() {
    setup
    step aqmlab bench "$@"
}

cmd_fuzz() {
    setup
    local count=${1:-10000}
    [[ $count =~ ^[0-9]+$ && $count -gt 0 ]] || die "fuzz: expected a number of scenarios, got '$count'"
    local started=$SECONDS
    AQMLAB_FUZZ_SCENARIOS=$count step pytest -q tests/test_fuzz.py \
        --hypothesis-show-statistics "${@:2}"
    say "fuzzing $count scenarios took $((SECONDS - started)) s"
}

usage() {
    sed -n '2,13s/^# \{0,1\}//p' "$0"
}

