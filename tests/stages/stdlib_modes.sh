#!/usr/bin/env bash
# Stage: the NumPy-generated standard-library tests (tests/stdlib/cases) in the other tiers:
# EIN_JIT=never, the vectorised interpreter (EIN_INTERP=vector), and EIN_JIT=always -- the N-D
# convolutions and pools always; every case with EIN_STDLIB_FULL=1 (a few hundred kernels: many
# minutes on a cold kernel cache, seconds on a warm one). Stage stdlib.sh runs them in the
# default tier and checks that the library's clauses are planned as kernels.
# Contract (docs/testing.md): exit 0 pass, 77 skip, anything else fail.
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EIN=${EIN_BUILD:-$ROOT/build}/ein
cd "$ROOT" || exit 1
command -v python3 >/dev/null 2>&1 || { echo "stdlib_modes stage: python3 is not installed" >&2; exit 77; }
[ -x "$EIN" ] || { echo "stdlib_modes stage: $EIN is not built" >&2; exit 1; }
status=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
run() {  # MODE [run_golden filters...]
  local mode=$1
  shift
  env "$mode" python3 tests/golden/run_golden.py --ein "$EIN" --dir tests/stdlib/cases -j 2 \
    --timeout 600 "$@" >"$log" 2>&1 || { grep -v '^PASS' "$log"; status=1; }
  tail -n 1 "$log" | sed "s/^/$mode: /"
}
run EIN_JIT=never
run EIN_INTERP=vector
if [ "${EIN_STDLIB_FULL:-0}" = 1 ]; then
  run EIN_JIT=always
elif command -v "${EIN_CXX:-c++}" >/dev/null 2>&1; then
  run EIN_JIT=always -k ml/conv
  run EIN_JIT=always -k ml/pooling
fi
exit $status
