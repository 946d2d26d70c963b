#!/bin/bash
# Native kernels end to end: a program compiles its kernels on a cold cache (misses, .so files in
# the cache directory), the second run compiles nothing (`0 misses`), both print the same as the
# interpreter, and a missing compiler falls back to the interpreter with one warning.
set -u
EIN="${EIN_BUILD:-build}/ein"
[ -x "$EIN" ] || { echo "no $EIN" >&2; exit 77; }
command -v "${EIN_CXX:-c++}" >/dev/null || { echo "no C++ compiler: native kernels are not testable" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/prog.ein" <<'PROG'
let x[i in 0..50000] = (i % 97) as f32 * 0.01;
let y[i] = x[i] * x[i] + 1.0;
let s = sum[i](y[i]);
let A[i in 0..64, k in 0..64] = ((i * 7 + k) % 13) as f64;
let C[i, j] = sum[k](A[i, k] * A[k, j]);
print(y[123], s, C[5, 7]);
PROG
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1" >&2; fail=1; fi; }
export EIN_CACHE_DIR="$tmp/cache"
want=$(EIN_JIT=never "$EIN" "$tmp/prog.ein")
cold=$(EIN_JIT=always "$EIN" --timings "$tmp/prog.ein" 2>"$tmp/cold.err")
warm=$(EIN_JIT=always "$EIN" --timings "$tmp/prog.ein" 2>"$tmp/warm.err")
auto=$(EIN_JIT=auto "$EIN" "$tmp/prog.ein")
check "cold run output" '[ "$cold" = "$want" ]'
check "warm run output" '[ "$warm" = "$want" ]'
check "auto output" '[ "$auto" = "$want" ]'
check "cold run compiles" 'grep -Eq "kernels: [0-9]+ hits, [1-9][0-9]* misses" "$tmp/cold.err"'
check "warm run compiles nothing" 'grep -q " 0 misses" "$tmp/warm.err"'
check "cache holds kernels" 'ls "$EIN_CACHE_DIR"/*.so >/dev/null 2>&1'
nowarn=$(EIN_JIT=always EIN_CXX="$tmp/no-such-c++" EIN_CACHE_DIR="$tmp/cache2" "$EIN" "$tmp/prog.ein" 2>"$tmp/nocxx.err")
check "no compiler: same output" '[ "$nowarn" = "$want" ]'
check "no compiler: one warning" '[ "$(grep -c "warning: native kernels" "$tmp/nocxx.err")" = 1 ]'
[ $fail = 0 ] && echo "jit stage: ok"
exit $fail
