#!/usr/bin/env bash
# Stage: differential testing (tests/differential/, docs/testing.md). Generates programs from a
# fixed seed, runs each under EIN_JIT=never, auto, always and EIN_INTERP=vector, and compares
# every printed value with an independent reference evaluator (Python over NumPy); float
# programs also get derivative requests checked against finite differences. Prints
# `differential: N programs, M mismatches` and fails on any mismatch; shrunk reproducers of
# mismatches are written to tests/golden/pending/.
#   DIFFTEST_COUNT (default 500; 150 under --quick), DIFFTEST_SEED (default 1),
#   DIFFTEST_BUDGET (seconds after which no new batch starts, default 180; the run says how many
#   programs it left out), DIFFTEST_ARGS (extra run.py options). Longer runs: tests/differential/run.py --help.
# Contract (docs/testing.md): exit 0 pass, 77 skip, anything else fail.
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
EIN=${EIN_BUILD:-$ROOT/build}/ein
cd "$ROOT" || exit 1
# NumPy comes from Debian's python3-numpy (scripts/bootstrap.sh --tests), so it is importable
# by the system interpreter, not necessarily by a pyenv one.
PY=(env PYENV_VERSION=system python3)
if ! "${PY[@]}" -c 'import numpy' 2>/dev/null; then
  echo "differential stage: NumPy is not importable by the system python3 (python3-numpy)" >&2
  exit 77
fi
if [ ! -x "$EIN" ]; then
  echo "differential stage: $EIN is not built" >&2
  exit 1
fi
count=${DIFFTEST_COUNT:-500}
if [ "${EIN_QUICK:-0}" = 1 ]; then count=${DIFFTEST_COUNT:-150}; fi
# shellcheck disable=SC2086
# Recurrences whose self-reads data positions (dynamic_reads.py): values or E012, never a zero
# read from a point not computed yet.
"${PY[@]}" tests/differential/dynamic_reads.py --ein "$EIN" --count 40 --seed "${DIFFTEST_SEED:-1}" || exit 1
# Reduction bodies ending in `where .. else ..` (reduce_else.py): failing points add the fallback.
"${PY[@]}" tests/differential/reduce_else.py --ein "$EIN" --count 30 --seed "${DIFFTEST_SEED:-1}" || exit 1
# Sums keyed by a declaration index (keyed_sums.py): one pass (scatter_plan), NumPy's values.
"${PY[@]}" tests/differential/keyed_sums.py --ein "$EIN" --count 30 --seed "${DIFFTEST_SEED:-1}" || exit 1
# Template kinds the tree generator does not draw (textkinds.py): per-row calls with ranges from
# the callee, match, casts and integer semantics, piecewise definitions, notebook sessions
# (`ein --cells` against a model of the session), generics and modules; NumPy's values.
"${PY[@]}" tests/differential/textkinds.py --ein "$EIN" --count 40 --jobs 2 --seed "${DIFFTEST_SEED:-1}" || exit 1
exec "${PY[@]}" tests/differential/run.py --ein "$EIN" --count "$count" \
  --seed "${DIFFTEST_SEED:-1}" --jobs 2 --shrink 30 --budget "${DIFFTEST_BUDGET:-180}" ${DIFFTEST_ARGS:-}
