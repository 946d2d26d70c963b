#!/usr/bin/env bash
# THE test command (.ci/run calls it): installs dependencies, builds, runs every test stage and
# prints a summary table. A failing stage does not stop the later ones; the exit status is 1 if
# any stage failed (130 if interrupted).
#
#   scripts/test.sh                  everything
#   scripts/test.sh --quick          conformance only under EIN_JIT=auto (not never/always)
#   scripts/test.sh --only golden    bootstrap + build, then only stages whose name contains
#                                    "golden" (stage names are listed in the summary)
#
# Stages after bootstrap (`scripts/bootstrap.sh --tests`) and build (`scripts/build.sh`):
#   unit                 ctest over build/: the GoogleTest binary built from tests/unit/**
#   conformance EIN_JIT=never|auto|always
#                        ../shared/conformance/run.py, once per JIT mode (until the JIT exists
#                        the three runs are equivalent; they stay so that it is tested from the
#                        day it lands). Skipped with a notice when ../shared is not checked out.
#   golden               tests/golden/run_golden.py: tests/golden/**/*.ein with inline
#                        expectations (format in tests/golden/README.md); again with
#                        EIN_JIT=never EIN_INTERP=vector and with EIN_JIT=always
#   stage NAME.sh        every executable tests/stages/*.sh, in C-locale order. This is the
#                        extension point for REPL pty tests, Jupyter kernel tests, notebook tests.
#
# Contract for tests/stages/*.sh: cwd is the repo root, stdin is /dev/null, and these are
# exported: EIN_ROOT (repo root), EIN_BUILD (build dir; binaries are $EIN_BUILD/ein and
# $EIN_BUILD/xein), EIN_QUICK (1 under --quick, else 0). Exit 0 = pass, 77 = skipped (say why on
# stderr, e.g. a missing tool), anything else = fail. Jupyter tooling (jupyter_client, nbclient,
# jupyter_kernel_test, nbconvert) comes from Debian packages, so it exists only for Debian's
# Python, not for a pyenv interpreter that may come first on PATH: stage scripts run it as
# `PYENV_VERSION=system python3 ...` (the pyenv shim then resolves to /usr/bin/python3).
#
# Every stage runs under a wall-clock limit so that a hang fails one stage instead of the CI
# job. Normal runs stay well under 20 minutes on 2 cores; the limits (seconds) are only a
# safety net and can be raised: EIN_BUILD_TIMEOUT (1200), EIN_TEST_TIMEOUT (300, per test stage).
set -uo pipefail  # no -e: every stage runs even when an earlier one failed

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
ROOT=$(pwd)
BUILD="$ROOT/build"
CONFORMANCE="$ROOT/../shared/conformance"
BUILD_LIMIT=${EIN_BUILD_TIMEOUT:-1200}
TEST_LIMIT=${EIN_TEST_TIMEOUT:-300}

usage() { sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; }

QUICK=0
ONLY=""
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ;;
    --only) ONLY=${2:-}; [ -n "$ONLY" ] || { echo "test.sh: --only needs a stage name" >&2; exit 2; }; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done
export EIN_ROOT="$ROOT" EIN_BUILD="$BUILD" EIN_QUICK="$QUICK"

# A parent started through pyenv (say, a Python CI driver) has its interpreter's bin/ first on
# PATH; `python3` would then bypass the pyenv shim and ignore PYENV_VERSION=system. Drop such
# entries so that the stage contract above holds however this script was started.
clean_path=""
IFS=: read -ra path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
  case $d in
    */.pyenv/versions/* | "${PYENV_ROOT:-/nonexistent}"/versions/*) ;;
    *) clean_path+="${clean_path:+:}$d" ;;
  esac
done
export PATH="$clean_path"

NAMES=() RESULTS=() TIMES=() NOTES=()
record() { NAMES+=("$1"); RESULTS+=("$2"); TIMES+=("$3"); NOTES+=("$4"); }

selected() { [ -z "$ONLY" ] || [[ $1 == bootstrap || $1 == build || $1 == *"$ONLY"* ]]; }

# Stages run in the background under `timeout` (which gives the stage its own process group, so
# a timeout kills everything the stage started). That also keeps Ctrl-C responsive: `wait`
# returns as soon as the trap fires, and the trap stops the stage's whole group via timeout.
INTERRUPTED=0
CHILD=""
on_interrupt() {
  INTERRUPTED=1
  if [ -n "$CHILD" ]; then kill -TERM "$CHILD" 2>/dev/null; fi
}
trap on_interrupt INT TERM

# run_stage NAME LIMIT NEEDS CMD...  — NEEDS is a file the stage cannot run without, or "-".
run_stage() {
  local name=$1 limit=$2 needs=$3
  shift 3
  selected "$name" || return 0
  [ "$INTERRUPTED" = 0 ] || return 0
  printf '\n=== %s: %s\n' "$name" "$*"
  if [ "$needs" != - ] && [ ! -e "$needs" ]; then
    echo "test.sh: ${needs#"$ROOT"/} does not exist; did the build fail?" >&2
    record "$name" FAIL 0 "${needs#"$ROOT"/} missing"
    return 0
  fi
  local start=$SECONDS rc
  timeout -k 10 "$limit" "$@" </dev/null &
  CHILD=$!
  wait "$CHILD"
  rc=$?
  if [ "$INTERRUPTED" = 1 ]; then
    wait "$CHILD" 2>/dev/null
    rc=130
  fi
  CHILD=""
  local took=$((SECONDS - start))
  case $rc in
    0) record "$name" PASS "$took" "" ;;
    77) record "$name" SKIP "$took" "skipped by the stage" ;;
    124 | 137) record "$name" FAIL "$took" "timed out after ${limit}s" ;;
    126 | 127) record "$name" FAIL "$took" "could not run $1 (exit $rc)" ;;
    130) record "$name" FAIL "$took" "interrupted" ;;
    *) record "$name" FAIL "$took" "exit status $rc" ;;
  esac
}

skip_stage() {
  selected "$1" || return 0
  [ "$INTERRUPTED" = 0 ] || return 0
  printf '\n=== %s: skipped (%s)\n' "$1" "$2"
  record "$1" SKIP 0 "$2"
}

run_stage bootstrap 900 - scripts/bootstrap.sh --tests
run_stage build "$BUILD_LIMIT" - scripts/build.sh
if [ "${RESULTS[-1]:-}" = FAIL ] && [ "$INTERRUPTED" = 0 ]; then
  echo "test.sh: the build failed; the stages below use whatever is left in build/" >&2
fi

run_stage unit "$TEST_LIMIT" "$BUILD/CTestTestfile.cmake" \
  ctest --test-dir build --output-on-failure -j2 --no-tests=error --timeout 120

for mode in never auto always; do
  name="conformance EIN_JIT=$mode"
  if [ ! -f "$CONFORMANCE/run.py" ]; then
    skip_stage "$name" "no ../shared/conformance beside the repo"
  elif [ "$QUICK" = 1 ] && [ "$mode" != auto ]; then
    skip_stage "$name" "--quick"
  else
    run_stage "$name" "$TEST_LIMIT" "$BUILD/ein" \
      env EIN_JIT="$mode" python3 "$CONFORMANCE/run.py" --ein build/ein --timeout 60
  fi
done

# Golden programs; tests/golden/pending/ holds reproducers of known open bugs (reported, not run).
run_stage golden "$TEST_LIMIT" "$BUILD/ein" python3 tests/golden/run_golden.py --ein build/ein \
  --exclude pending/
# The interpreter's two strategies (scalar loops, whole-array evaluation) must agree.
if [ "$QUICK" = 1 ]; then
  skip_stage "golden EIN_INTERP=vector" "--quick"
else
  run_stage "golden EIN_INTERP=vector" "$TEST_LIMIT" "$BUILD/ein" env EIN_JIT=never EIN_INTERP=vector \
    python3 tests/golden/run_golden.py --ein build/ein --exclude pending/
fi
# ... and every clause run as a native kernel (files with their own `//$ EIN_JIT=` keep theirs).
# About 110 s with -j 2 on a warm kernel cache (session 8; the whole suite was about 15 minutes).
if [ "$QUICK" = 1 ]; then
  skip_stage "golden EIN_JIT=always" "--quick"
else
  run_stage "golden EIN_JIT=always" "$TEST_LIMIT" "$BUILD/ein" env EIN_JIT=always \
    python3 tests/golden/run_golden.py --ein build/ein --exclude pending/ -j 2
fi

if [ -d tests/stages ]; then
  mapfile -t stage_files < <(find tests/stages -maxdepth 1 -name '*.sh' | LC_ALL=C sort)
  for f in "${stage_files[@]}"; do
    name="stage ${f#tests/stages/}"
    if [ -x "$f" ]; then
      run_stage "$name" "$TEST_LIMIT" - "$f"
    else
      skip_stage "$name" "not executable (chmod +x to enable)"
    fi
  done
fi

# Summary. Colour only on a terminal, and never when NO_COLOR is set.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  declare -A PAINT=([PASS]=$'\e[32m' [FAIL]=$'\e[1;31m' [SKIP]=$'\e[33m')
  RESET=$'\e[0m'
else
  declare -A PAINT=([PASS]="" [FAIL]="" [SKIP]="")
  RESET=""
fi
passed=0 failed=0 skipped=0
printf '\n=== summary\n'
for i in "${!NAMES[@]}"; do
  r=${RESULTS[$i]}
  case $r in PASS) ((passed++)) ;; FAIL) ((failed++)) ;; SKIP) ((skipped++)) ;; esac
  row=$(printf '  %s%-4s%s  %-28s %5ss  %s' "${PAINT[$r]}" "$r" "$RESET" "${NAMES[$i]}" \
    "${TIMES[$i]}" "${NOTES[$i]}")
  echo "${row%"${row##*[! ]}"}"
done
printf '  %d passed, %d failed, %d skipped in %ds\n' "$passed" "$failed" "$skipped" "$SECONDS"
if [ "$INTERRUPTED" = 1 ]; then
  echo "  interrupted: later stages did not run"
  exit 130
fi
[ "$failed" = 0 ]
