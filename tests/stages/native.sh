#!/bin/bash
# Native contraction kernels (BLAS calls, register-tiled loops, recurrences whose step is a
# contraction) against NumPy in every JIT mode: tests/native/contractions.py generates the
# programs and computes the expected values with NumPy. EIN_NATIVE_CASES raises the case count.
set -u
EIN="${EIN_BUILD:-build}/ein"
[ -x "$EIN" ] || { echo "no $EIN" >&2; exit 77; }
command -v "${EIN_CXX:-c++}" >/dev/null || { echo "no C++ compiler: native kernels are not testable" >&2; exit 77; }
PYENV_VERSION=system python3 -c 'import numpy' 2>/dev/null || { echo "no numpy for the system python" >&2; exit 77; }
cases=${EIN_NATIVE_CASES:-40}
[ "${EIN_QUICK:-0}" = 1 ] && cases=12
PYENV_VERSION=system python3 "$(dirname "$0")/../native/contractions.py" --ein "$EIN" --cases "$cases" --seed 1
