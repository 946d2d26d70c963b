#!/bin/bash
# Stage: the seeded mutation fuzzer (tests/fuzz/mutate.py) — mutated programs from tests/ and
# ../shared/conformance, each run by `ein` under a memory and time limit in both tiers
# (EIN_JIT=never and always). A crash, a hang (no answer to SIGINT), or an exit without a coded
# diagnostic fails the stage; the inputs are kept in build/fuzz-findings.
# It stops after EIN_FUZZ_COUNT inputs (2000; 300 under --quick) or EIN_FUZZ_MINUTES (2) of
# wall-clock time, whichever comes first, so that the whole suite stays within its budget on a
# loaded machine; the summary line says how many inputs ran. EIN_FUZZ_SEED (1), EIN_FUZZ_JOBS (2).
# Longer runs: tests/fuzz/mutate.py --minutes 60 --seed N (see tests/fuzz/README.md).
# Opt-in for now (EIN_FUZZ=1): its first runs found a hang still open (a 2^24-element
# elementwise statement in EIN_JIT=never does not answer SIGINT within 5 s on a loaded machine:
# tests/fuzz/pending/hang_never_large_elementwise.ein); make it default once that is fixed.
set -u
if [ "${EIN_FUZZ:-0}" != 1 ]; then
  echo "fuzz stage: skipped (opt-in until the pending hang is fixed: EIN_FUZZ=1)" >&2
  exit 77
fi
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EIN=${EIN_BUILD:-$ROOT/build}/ein
[ -x "$EIN" ] || { echo "fuzz stage: $EIN is not built" >&2; exit 1; }
command -v prlimit >/dev/null || { echo "fuzz stage: prlimit (util-linux) is missing" >&2; exit 77; }
count=${EIN_FUZZ_COUNT:-2000}
[ "${EIN_QUICK:-0}" = 1 ] && count=${EIN_FUZZ_COUNT:-300}
exec python3 "$ROOT/tests/fuzz/mutate.py" --ein "$EIN" --count "$count" --minutes "${EIN_FUZZ_MINUTES:-2}" \
  --seed "${EIN_FUZZ_SEED:-1}" \
  --jobs "${EIN_FUZZ_JOBS:-2}" --out "${EIN_BUILD:-$ROOT/build}/fuzz-findings"
