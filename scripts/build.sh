#!/usr/bin/env bash
# Builds `ein` (REPL and file runner), `xein` (Jupyter kernel) and the unit tests into build/.
#
#   scripts/build.sh            install missing Debian packages, configure, build
#   EIN_JOBS=4 scripts/build.sh more parallel compile jobs (default 2)
#
# Safe to re-run: bootstrap installs only what is missing and CMake rebuilds incrementally.
# Release mode because the same binaries are the ones the tests and benchmarks measure.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

scripts/bootstrap.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"${EIN_JOBS:-2}"
