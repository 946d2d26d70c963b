#!/bin/bash
# Stage: the libFuzzer target over the front end and analysis passes (tests/fuzz/libfuzzer.sh),
# built with clang (ASan + UBSan) into build/fuzz and run for EIN_LIBFUZZER_SECONDS.
# Opt-in: building lang/ a second time with sanitizers costs minutes of the suite's 25-minute
# budget on 2 cores, so by default this stage is skipped (77) unless EIN_LIBFUZZER_SECONDS is
# set (e.g. 60 in a nightly run). Also skipped when clang or its libFuzzer runtime
# (libclang-rt-14-dev, installed by scripts/bootstrap.sh --tests) is missing.
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
if [ -z "${EIN_LIBFUZZER_SECONDS:-}" ]; then
  echo "libfuzzer stage: skipped (opt-in: set EIN_LIBFUZZER_SECONDS, e.g. 60)" >&2
  exit 77
fi
exec "$ROOT/tests/fuzz/libfuzzer.sh" "$EIN_LIBFUZZER_SECONDS"
