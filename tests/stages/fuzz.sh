#!/bin/bash
# Stage: the seeded mutation fuzzer (tests/fuzz/mutate.py) — mutated programs from tests/ and
# ../shared/conformance, each run by `ein` under a memory and time limit in both tiers
# (EIN_JIT=never and always). A crash, a hang (no answer to SIGINT), or an exit without a coded
# diagnostic fails the stage; the inputs are kept in build/fuzz-findings.
# It stops after EIN_FUZZ_COUNT inputs (2000; 300 under --quick) or EIN_FUZZ_MINUTES (2) of
# wall-clock time, whichever comes first, so that the whole suite stays within its budget on a
# loaded machine; the summary line says how many inputs ran. EIN_FUZZ_SEED (1), EIN_FUZZ_JOBS (2).
# Longer runs: tests/fuzz/mutate.py --minutes 60 --seed N (see tests/fuzz/README.md).
# Its first runs found one hang, fixed: a 2^24-element vectorised clause in EIN_JIT=never did
# not answer SIGINT for half a minute (the interpreter now polls between chunks of a clause;
# tests/unit/robustness/sigint_test.cpp, tests/fuzz/regressions/).
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EIN=${EIN_BUILD:-$ROOT/build}/ein
[ -x "$EIN" ] || { echo "fuzz stage: $EIN is not built" >&2; exit 1; }
command -v prlimit >/dev/null || { echo "fuzz stage: prlimit (util-linux) is missing" >&2; exit 77; }
count=${EIN_FUZZ_COUNT:-2000}
[ "${EIN_QUICK:-0}" = 1 ] && count=${EIN_FUZZ_COUNT:-300}
exec python3 "$ROOT/tests/fuzz/mutate.py" --ein "$EIN" --count "$count" --minutes "${EIN_FUZZ_MINUTES:-2}" \
  --seed "${EIN_FUZZ_SEED:-1}" \
  --jobs "${EIN_FUZZ_JOBS:-2}" --out "${EIN_BUILD:-$ROOT/build}/fuzz-findings"
