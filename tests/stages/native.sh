#!/bin/bash
# Native contraction kernels (BLAS calls, register-tiled loops, recurrences whose step is a
# contraction) and gathers against NumPy in every JIT mode: tests/native/contractions.py and
# gathers.py generate the programs and compute the expected values with NumPy.
# EIN_NATIVE_CASES raises the contraction case count.
set -u
EIN="${EIN_BUILD:-build}/ein"
[ -x "$EIN" ] || { echo "no $EIN" >&2; exit 77; }
command -v "${EIN_CXX:-c++}" >/dev/null || { echo "no C++ compiler: native kernels are not testable" >&2; exit 77; }
PYENV_VERSION=system python3 -c 'import numpy' 2>/dev/null || { echo "no numpy for the system python" >&2; exit 77; }
# 60 cases: seed 1 at 60 cases aborted at exit (scratch pool freed into a destroyed big-block
# cache) while 40 passed.
cases=${EIN_NATIVE_CASES:-60}
[ "${EIN_QUICK:-0}" = 1 ] && cases=12
PYENV_VERSION=system python3 "$(dirname "$0")/../native/contractions.py" --ein "$EIN" --cases "$cases" --seed 1 || exit 1
# Gathers (`T[I[n], d]`, pooling, label picks): the entry scan of the index tensor against NumPy,
# and E005 at the right line when an index leaves its axis.
gcases=40
[ "${EIN_QUICK:-0}" = 1 ] && gcases=12
PYENV_VERSION=system python3 "$(dirname "$0")/../native/gathers.py" --ein "$EIN" --cases "$gcases" --seed 1 || exit 1
# Heap errors that do not abort (a write past a buffer, a free into a dead object at exit) are
# visible only to memcheck: run the scratch-pool regression under it when valgrind exists.
# Kernels are built for the baseline ISA (valgrind does not decode every -march=native
# instruction) in a private cache.
if command -v valgrind >/dev/null; then
  vcache=$(mktemp -d)
  trap 'rm -rf "$vcache"' EXIT
  prog="$(cd "$(dirname "$0")/../golden/regressions" && pwd)/jit_scratch_pool_exit.ein"
  if ! EIN_JIT=always EIN_CACHE_DIR="$vcache" EIN_CXXFLAGS="-O1 -fopenmp" OMP_NUM_THREADS=1 \
      valgrind --tool=memcheck --error-exitcode=99 -q "$EIN" "$prog" >"$vcache/out" 2>"$vcache/err"; then
    echo "FAIL memcheck on $prog"; cat "$vcache/err"; exit 1
  fi
  echo "memcheck clean: jit_scratch_pool_exit.ein"
fi
