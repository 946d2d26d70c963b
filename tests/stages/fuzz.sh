#!/bin/bash
# Stage: the seeded mutation fuzzer (tests/fuzz/mutate.py) — mutated programs from tests/ and
# ../shared/conformance, each run by `ein` under a memory and time limit in both tiers
# (EIN_JIT=never and always). A crash, a hang (no answer to SIGINT), or an exit without a coded
# diagnostic fails the stage; the inputs are kept in build/fuzz-findings.
# It stops after EIN_FUZZ_COUNT inputs (2000; 300 under --quick) or EIN_FUZZ_MINUTES (3) of
# wall-clock time, whichever comes first, so that the whole suite stays within its budget on a
# loaded machine; the summary line says how many inputs ran. EIN_FUZZ_SEED (1), EIN_FUZZ_JOBS (2).
# Then the kernel part (tests/fuzz/kernel_fuzz.py, issue 20): EIN_FUZZ_KERNEL_COUNT (300) of the
# same inputs sent to one xein kernel as execute, complete, inspect and is_complete requests
# or EIN_FUZZ_KERNEL_SECONDS (60) (skipped, with a note, when xein or jupyter_client is missing).
# Both bounds keep the stage inside the suite's 300-second stage limit on a loaded machine.
# Longer runs: tests/fuzz/mutate.py --minutes 60 --seed N (see tests/fuzz/README.md).
# Its first runs found one hang, fixed: a 2^24-element vectorised clause in EIN_JIT=never did
# not answer SIGINT for half a minute (the interpreter now polls between chunks of a clause;
# tests/unit/robustness/sigint_test.cpp, tests/fuzz/regressions/).
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${EIN_BUILD:-$ROOT/build}
EIN=$BUILD/ein
[ -x "$EIN" ] || { echo "fuzz stage: $EIN is not built" >&2; exit 1; }
command -v prlimit >/dev/null || { echo "fuzz stage: prlimit (util-linux) is missing" >&2; exit 77; }
count=${EIN_FUZZ_COUNT:-2000}
kcount=${EIN_FUZZ_KERNEL_COUNT:-300}
if [ "${EIN_QUICK:-0}" = 1 ]; then count=${EIN_FUZZ_COUNT:-300}; kcount=${EIN_FUZZ_KERNEL_COUNT:-60}; fi
status=0
python3 "$ROOT/tests/fuzz/mutate.py" --ein "$EIN" --count "$count" --minutes "${EIN_FUZZ_MINUTES:-3}" \
  --seed "${EIN_FUZZ_SEED:-1}" --jobs "${EIN_FUZZ_JOBS:-2}" --out "$BUILD/fuzz-findings" || status=1

PY="env PYENV_VERSION=system python3"
if [ ! -x "$BUILD/xein" ] || ! "$BUILD/xein" --version | grep -q xeus; then
  echo "fuzz stage: kernel part skipped (xein without xeus)" >&2
elif ! $PY -c 'import jupyter_client' 2>/dev/null; then
  echo "fuzz stage: kernel part skipped (python3-jupyter-client missing)" >&2
else
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  "$BUILD/xein" install --prefix "$WORK/prefix" >/dev/null || exit 1
  JUPYTER_PATH="$WORK/prefix/share/jupyter" JUPYTER_RUNTIME_DIR="$WORK/runtime" JUPYTER_DATA_DIR="$WORK/data" \
    JUPYTER_CONFIG_DIR="$WORK/config" EIN_CACHE_DIR="$WORK/kernel-cache" HOME="$WORK" \
    $PY "$ROOT/tests/fuzz/kernel_fuzz.py" --count "$kcount" --seconds "${EIN_FUZZ_KERNEL_SECONDS:-60}" --seed "${EIN_FUZZ_SEED:-1}" \
    --out "$BUILD/fuzz-findings" || status=1
fi
exit $status
