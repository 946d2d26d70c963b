#!/bin/bash
# Builds the libFuzzer target (tests/fuzz/frontend_fuzzer.cpp: lexer, parser, resolver and the
# analysis passes under ASan + UBSan) with clang into build/fuzz, then fuzzes it for a bounded
# time from a seed corpus of every Einlang program in tests/ and ../shared/conformance.
#
#   tests/fuzz/libfuzzer.sh [SECONDS]     default 60; EIN_FUZZ_JOBS workers (default 1)
# An input still running after EIN_LIBFUZZER_TIMEOUT seconds (60) is a finding: a seed that
# loads std::ml takes ~1 s of CPU under ASan, and 20 s of wall time on a loaded machine
# (a nice-19 run on 2 busy cores) reported it as a timeout.
#
# Findings (crash-*, timeout-*, oom-* inputs) go to build/fuzz/findings; exit 1 if any.
# Reproduce one with: build/fuzz/ein_frontend_fuzzer build/fuzz/findings/crash-...
# The corpus libFuzzer grows is kept in build/fuzz/corpus, so later runs start where this ended.
set -u
ROOT=${EIN_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SECONDS_BUDGET=${1:-60}
OUT=${EIN_FUZZ_BUILD:-$ROOT/build/fuzz}
CXX_CLANG=$(command -v clang++ || true)
[ -n "$CXX_CLANG" ] || { echo "libfuzzer: clang++ is not installed (scripts/bootstrap.sh --tests)" >&2; exit 77; }
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$ROOT/tests/fuzz" -B "$OUT" -DCMAKE_CXX_COMPILER="$CXX_CLANG" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${launcher[@]}" >"$OUT.cmake.log" 2>&1 || { cat "$OUT.cmake.log" >&2; exit 1; }
cmake --build "$OUT" -j "${EIN_FUZZ_BUILD_JOBS:-2}" >"$OUT.build.log" 2>&1 || { tail -40 "$OUT.build.log" >&2; exit 1; }
FUZZER="$OUT/ein_frontend_fuzzer"
mkdir -p "$OUT/corpus" "$OUT/seeds" "$OUT/findings"
find "$ROOT/tests" "$ROOT/../shared/conformance" -name '*.ein' -size -64k 2>/dev/null | while read -r f; do
  cp "$f" "$OUT/seeds/$(echo "$f" | sha1sum | cut -c1-16).ein"
done
before=$(ls "$OUT/findings" | wc -l)
# -rss_limit_mb: ASan's shadow memory plus a 1 GiB thread stack reservation per input.
"$FUZZER" -max_total_time="$SECONDS_BUDGET" -timeout="${EIN_LIBFUZZER_TIMEOUT:-60}" -rss_limit_mb=4096 -max_len=4096 \
  -dict="$ROOT/tests/fuzz/einlang.dict" -artifact_prefix="$OUT/findings/" -print_final_stats=1 \
  -jobs="${EIN_FUZZ_JOBS:-1}" -workers="${EIN_FUZZ_JOBS:-1}" \
  "$OUT/corpus" "$OUT/seeds" 2>"$OUT/fuzz.log"
rc=$?
grep -E "stat::number_of_executed_units|stat::peak_rss_mb|^Done|SUMMARY" "$OUT/fuzz.log" | sed 's/^/libfuzzer: /'
after=$(ls "$OUT/findings" | wc -l)
if [ "$rc" != 0 ] || [ "$after" -gt "$before" ]; then
  echo "libfuzzer: FAILED (exit $rc); new findings in $OUT/findings:" >&2
  ls -t "$OUT/findings" | head -$((after - before + 1)) >&2
  grep -A30 "ERROR: \|==ERROR\|runtime error" "$OUT/fuzz.log" | head -60 >&2
  exit 1
fi
echo "libfuzzer: ok (${SECONDS_BUDGET}s)"
