#!/usr/bin/env bash
# Stage: the NumPy-generated standard-library tests (tests/stdlib/cases) in the other tiers:
# EIN_JIT=never, the vectorised interpreter (EIN_INTERP=vector), and EIN_JIT=always -- the N-D
# convolutions and pools and the whole-program cases always; every case with EIN_STDLIB_FULL=1
# (a few hundred kernels: about 3 minutes with -j 2 on a warm kernel cache, more on a cold one). Stage stdlib.sh runs them in the
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
  run EIN_JIT=always -k programs/
fi
# Gradients through library bodies under EIN_JIT=always: the whole set takes about 6 minutes
# (-j 2, warm cache), so a subset whose adjoints go through fused and BLAS kernels and
# recurrences (gemm, matmul, reshape, lstm, gru: a fusion bug once failed only here) runs by
# default, all of them with EIN_STDLIB_FULL=1.
if command -v "${EIN_CXX:-c++}" >/dev/null 2>&1; then
  probe=$(EIN_JIT=never "$EIN" -c 'let a = 3.0; let b = a * a; print(@b / @a);' 2>/dev/null)
  if [ "$probe" = "6.0" ]; then
    rund() {  # run_golden filter over the derivative files
      EIN_JIT=always python3 tests/golden/run_golden.py --ein "$EIN" --dir tests/stdlib/autodiff \
        --exclude pending/ -j 2 --timeout 600 "$@" >"$log" 2>&1 || { grep -v '^PASS' "$log"; status=1; }
      tail -n 1 "$log" | sed "s/^/derivatives EIN_JIT=always $*: /"
    }
    if [ "${EIN_STDLIB_FULL:-0}" = 1 ]; then
      rund
    else
      for k in gemm matmul reshape lstm gru; do rund -k "$k"; done
    fi
  fi
fi
exit $status
