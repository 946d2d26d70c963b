#!/usr/bin/env python3
"""Writes guard_split_select.ein: a clause whose whole value is `if c { A } else { B }` with
tests that bound its indices (a padded copy, a border mask) is cut at the tests' bounds
(lang/passes/guard_split.cpp): the interior box stores A without the test, the edge boxes keep
it; under EIN_JIT=auto the edge boxes are sized by the whole tensor (engine/interp/
native_tier.cpp). Run-time pads (a function's arguments), pads of zero, edges wider than
the input, a test that is not a bound (kept in every box). Expected values from NumPy, never from ein.
Usage: PYENV_VERSION=system python3 guard_split_select.py > guard_split_select.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_np import fmt, print_cases, tot  # noqa: E402

f32, f64 = np.float32, np.float64
cases = []
N, C, H, W = 1, 3, 40, 300
n, c, h, w = np.meshgrid(np.arange(N), np.arange(C), np.arange(H), np.arange(W), indexing="ij")
X = ((c * 5 + h * 7 + w) % 23).astype(f32) * f32(0.125) - f32(1.0)
cases.append(f"let X[n in 0..{N}, c in 0..{C}, h in 0..{H}, w in 0..{W}] = ((c * 5 + h * 7 + w) % 23) as f32 * 0.125 - 1.0;")


for p0, p1, q0, q1 in [(1, 1, 1, 1), (0, 2, 0, 2), (3, 0, 1, 5), (0, 0, 0, 0), (45, 1, 2, 320)]:
    P = np.pad(X, [(0, 0), (0, 0), (p0, q0), (p1, q1)])
    cases.append((f"let P = padc(X, {p0}, {p1}, {q0}, {q1});\nprint(shape(P), tot4(P), P[0, 2, {p0 + 3}, {p1 + 7}], P[0, 1, 0, 0]);",
                  f"{fmt(np.array(P.shape))} {tot(P)!r} {fmt(P[0, 2, p0 + 3, p1 + 7])} {fmt(P[0, 1, 0, 0])}"))
# A border mask over a matrix (f64) and a test that is not a bound (kept in every box).
i, j = np.meshgrid(np.arange(50), np.arange(700), indexing="ij")
D = ((i * 3 + j * 5) % 17).astype(f64) * 0.25 - 2.0
cases.append("let D[i in 0..50, j in 0..700] = ((i * 3 + j * 5) % 17) as f64 * 0.25 - 2.0;")
M = np.where((i >= 2) & (i < 48) & (j > 0), D * 2.0, -1.0)
cases.append(("let M[i in 0..50, j in 0..700] = if i >= 2 && i < 48 && j > 0 { D[i, j] * 2.0 } else { -1.0 };\nprint(tot2(M));",
              repr(tot(M))))
K = np.where((j >= 1) & (j % 3 != 0), D, 0.5)
cases.append(("let K[i in 0..50, j in 0..700] = if j >= 1 && j % 3 != 0 { D[i, j] } else { 0.5 };\nprint(tot2(K));",
              repr(tot(K))))

print("// A clause whose whole value is `if c { A } else { B }` with tests that bound its indices (a")
print("// padded copy, a border mask) is cut at the tests' bounds (lang/passes/guard_split.cpp): the")
print("// interior box stores A without the test, the edge boxes keep it; under EIN_JIT=auto the edge")
print("// boxes are sized by the whole tensor (engine/interp/native_tier.cpp). Run-time pads, pads of")
print("// zero, pads wider than the input, a test that is not a bound. Each tensor printed as")
print("// sum(A * weights) (multiples of 1/8: exact in f64).")
print("// Expected values: NumPy (guard_split_select.py writes this file).")
print("//$ EIN_JIT=never|auto|always")
print("fn padc(X, p0, p1, q0, q1) {")
print("  let H = len(X[0, 0]);")
print("  let W = len(X[0, 0, 0]);")
print("  let HP = H + p0 + q0;")
print("  let WP = W + p1 + q1;")
print("  let P[n in 0..len(X), c in 0..len(X[0]), h in 0..HP, w in 0..WP] =")
print("      if h >= p0 && h < H + p0 && w >= p1 && w < W + p1 { X[n, c, h - p0, w - p1] } else { 0.0 };")
print("  P")
print("}")
print("fn wt(i) { ((i % 5) + 1) as f64 }")
print("fn tot4(A) { sum[n, c, h, w](A[n, c, h, w] as f64 * wt(n) * wt(c) * wt(h) * wt(w)) }")
print("fn tot2(A) { sum[i, j](A[i, j] as f64 * wt(i) * wt(j)) }")
print_cases(cases)
