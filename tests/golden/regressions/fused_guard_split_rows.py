#!/usr/bin/env python3
"""Writes fused_guard_split_rows.ein: a row reduction that guard_split cut into boxes (a causal
row sum `sum[j](.. where j <= i)` is cut at the row from which the guard holds for every j) is
fused into the statement that reads it per row, as a one-clause row reduction is
(lang/passes/fusion_plan.cpp `guard_split_boxes`; `%ir kernel`: "fused (not stored): z"), so a
causal softmax computes each exp once and keeps it in the output row. Cases: causal softmax f32
on odd extents (the rows before, at and after the cut), a strict mask `j < i` (row 0 has no
term: z = 0, never read), a band (two guards: the middle box is empty), a wide rectangle
`j <= 8 * i`, a log-softmax (a fused ln(sum)), a read under another condition (fused, terms not
kept), NaN and -inf in the scores, a function (run-time extents), and an elementwise producer cut
by its own `if` (a padded copy read at the point). Each tensor is printed as sum(A * weights)
in f64 and at the points around the cuts. Expected values: NumPy (f64 reference; the golden
tolerance covers f32 rounding), never from ein.
Usage: PYENV_VERSION=system python3 fused_guard_split_rows.py > fused_guard_split_rows.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_np import f32, f64, nan_scores, print_cases, pts, scores, tot  # noqa: E402

cases = []


def masked_softmax(S, mask):
    Sm = np.where(mask, S.astype(f64), -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = Sm.max(1, keepdims=True)
        e = np.where(mask, np.exp(Sm - mx), 0.0)
        return np.where(mask, e / e.sum(1, keepdims=True), 0.0)


# Causal softmax, f32, 37 x 37: cut at i = 36.
n = 37
S = scores(n, n, f32)
i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
A = masked_softmax(S, j <= i)
cases.append(f"let S[i in 0..{n}, j in 0..{n}] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;")
cases.append(("let m[i] = max[j](S[i, j] where j <= i);\n"
              "let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);\n"
              "let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };\n"
              "print(tot2(A), A[0, 0], A[1, 0], A[35, 17], A[36, 0], A[36, 36], A[5, 9]);",
              f"{tot(A)!r} {pts(A, [(0, 0), (1, 0), (35, 17), (36, 0), (36, 36), (5, 9)])}"))
# Strict mask: row 0 has no term (its max is -inf and its sum 0, read by no point).
A2 = masked_softmax(S, j < i)
cases.append(("let m2[i] = max[j](S[i, j] where j < i);\n"
              "let z2[i] = sum[j](std::math::exp(S[i, j] - m2[i]) where j < i);\n"
              "let A2[i, j] = if j < i { std::math::exp(S[i, j] - m2[i]) / z2[i] } else { 0.0 };\n"
              "print(tot2(A2), A2[0, 0], A2[1, 0], A2[36, 35], A2[36, 36]);",
              f"{tot(A2)!r} {pts(A2, [(0, 0), (1, 0), (36, 35), (36, 36)])}"))
# A band of width 4 (two guards; no row holds both for every j: the middle box is empty), f64.
S64 = scores(n, n, f64, 5, 11)
band = (j <= i) & (j + 4 > i)
A3 = masked_softmax(S64, band)
cases.append(f"let S64[i in 0..{n}, j in 0..{n}] = ((i * 5 + j * 11) % 23) as f64 * 0.1 - 1.0;")
cases.append(("let m3[i] = max[j](S64[i, j] where j <= i && j + 4 > i);\n"
              "let z3[i] = sum[j](std::math::exp(S64[i, j] - m3[i]) where j <= i && j + 4 > i);\n"
              "let A3[i, j] = if j <= i && j + 4 > i { std::math::exp(S64[i, j] - m3[i]) / z3[i] } else { 0.0 };\n"
              "print(tot2(A3), A3[0, 0], A3[3, 0], A3[4, 0], A3[36, 33], A3[36, 36]);",
              f"{tot(A3)!r} {pts(A3, [(0, 0), (3, 0), (4, 0), (36, 33), (36, 36)])}"))
# A wide rectangle: 9 rows of 70, `j <= 8 * i` holds for every j from row 9 on (never here: cut
# point past the end) and row 0 keeps one term.
R = scores(9, 70, f32, 3, 7)
ri, rj = np.meshgrid(np.arange(9), np.arange(70), indexing="ij")
A4 = masked_softmax(R, rj <= 8 * ri)
cases.append("let R[i in 0..9, j in 0..70] = ((i * 3 + j * 7) % 23) as f32 * 0.1 - 1.0;")
cases.append(("let m4[i] = max[j](R[i, j] where j <= 8 * i);\n"
              "let z4[i] = sum[j](std::math::exp(R[i, j] - m4[i]) where j <= 8 * i);\n"
              "let A4[i, j] = if j <= 8 * i { std::math::exp(R[i, j] - m4[i]) / z4[i] } else { 0.0 };\n"
              "print(tot2(A4), A4[0, 0], A4[1, 8], A4[8, 64], A4[8, 69]);",
              f"{tot(A4)!r} {pts(A4, [(0, 0), (1, 8), (8, 64), (8, 69)])}"))
# Causal log-softmax, f64: ln of the fused sum, nothing kept.
with np.errstate(invalid="ignore", divide="ignore"):
    Sm = np.where(j <= i, S64, -np.inf)
    mx = Sm.max(1, keepdims=True)
    L = np.where(j <= i, (S64 - mx) - np.log(np.exp(Sm - mx).sum(1, keepdims=True)), 0.0)
cases.append(("let m5[i] = max[j](S64[i, j] where j <= i);\n"
              "let l5[i] = std::math::ln(sum[j](std::math::exp(S64[i, j] - m5[i]) where j <= i));\n"
              "let L5[i, j] = if j <= i { (S64[i, j] - m5[i]) - l5[i] } else { 0.0 };\n"
              "print(tot2(L5), L5[0, 0], L5[36, 0], L5[36, 36], L5[20, 7]);",
              f"{tot(L)!r} {pts(L, [(0, 0), (36, 0), (36, 36), (20, 7)])}"))
# The fused sum read under no condition (fused; its terms are not kept).
e = np.where(j <= i, np.exp(S64 - mx), 0.0)
Q = S64 / e.sum(1, keepdims=True)
cases.append(("let z6[i] = sum[j](std::math::exp(S64[i, j] - m5[i]) where j <= i);\n"
              "let Q6[i, j] = S64[i, j] / z6[i];\n"
              "print(tot2(Q6), Q6[0, 0], Q6[36, 36], Q6[3, 30]);",
              f"{tot(Q)!r} {pts(Q, [(0, 0), (36, 36), (3, 30)])}"))
# NaN and -inf scores (f64): a NaN row is NaN where its mask holds; -inf entries give 0.
N = nan_scores()
ni, nj = np.meshgrid(np.arange(9), np.arange(9), indexing="ij")
with np.errstate(invalid="ignore", divide="ignore"):
    Nm = np.where(nj <= ni, N, -np.inf)
    mN = Nm.max(1, keepdims=True)
    mN[4] = np.nan
    eN = np.where(nj <= ni, np.exp(N - mN), 0.0)
    AN = np.where(nj <= ni, eN / eN.sum(1, keepdims=True), 0.0)
cases.append(("let N[i in 0..9, j in 0..9] = if i == 4 && j == 2 { 0.0 / 0.0 } else if (i == 6 && j == 0) || i == 7 "
              "{ -1.0 / 0.0 } else { S64[i, j] };\n"
              "let mN[i] = max[j](N[i, j] where j <= i);\n"
              "let zN[i] = sum[j](std::math::exp(N[i, j] - mN[i]) where j <= i);\n"
              "let AN[i, j] = if j <= i { std::math::exp(N[i, j] - mN[i]) / zN[i] } else { 0.0 };\n"
              "print(AN[4, 0], AN[4, 8], AN[6, 0], AN[6, 1], AN[7, 0], AN[8, 8], AN[3, 3]);",
              pts(AN, [(4, 0), (4, 8), (6, 0), (6, 1), (7, 0), (8, 8), (3, 3)])))
# In a function: extents known at run time.
F = scores(23, 23, f32, 2, 9)
fi, fj = np.meshgrid(np.arange(23), np.arange(23), indexing="ij")
AF = masked_softmax(F, fj <= fi)
cases.append(("let F[i in 0..23, j in 0..23] = ((i * 2 + j * 9) % 23) as f32 * 0.1 - 1.0;\n"
              "let AF = causal(F);\n"
              "print(tot2(AF), AF[0, 0], AF[22, 22], AF[22, 0], AF[10, 4]);",
              f"{tot(AF)!r} {pts(AF, [(0, 0), (22, 22), (22, 0), (10, 4)])}"))
# An elementwise producer cut by its own `if` (a padded copy), read at the point.
X = scores(6, 11, f32, 5, 1)
P = np.pad(X, [(0, 0), (2, 3)])
Y = P * f32(2.0) + f32(1.0)
cases.append(("let X[i in 0..6, j in 0..11] = ((i * 5 + j) % 23) as f32 * 0.1 - 1.0;\n"
              "let P[i in 0..6, j in 0..16] = if j >= 2 && j < 13 { X[i, j - 2] } else { 0.0 };\n"
              "let Y[i, j] = P[i, j] * 2.0 + 1.0;\n"
              "print(tot2(Y), Y[0, 0], Y[0, 2], Y[5, 12], Y[5, 13], Y[5, 15]);",
              f"{tot(Y)!r} {pts(Y, [(0, 0), (0, 2), (5, 12), (5, 13), (5, 15)])}"))

print("// A row reduction that guard_split cut into boxes (a causal row sum `sum[j](.. where j <= i)`")
print("// is cut at the row from which the guard holds for every j) is fused into the statement that")
print("// reads it per row (lang/passes/fusion_plan.cpp guard_split_boxes; `%ir kernel`: \"fused (not")
print("// stored): z\"): a causal softmax computes each exp once. Causal, strict, band, wide and")
print("// log-softmax forms, a read under no condition, NaN/-inf scores, a function (run-time")
print("// extents), a padded copy cut by its `if` and read at the point. Tensors printed as")
print("// sum(A * weights) in f64 and at the points around the cuts.")
print("// Expected values: NumPy (fused_guard_split_rows.py writes this file).")
print("//$ EIN_JIT=never|auto|always")
print("fn wt(i) { ((i % 5) + 1) as f64 }")
print("fn tot2(A) { sum[i, j](A[i, j] as f64 * wt(i) * wt(j)) }")
print("fn causal(S) {")
print("  let m[i] = max[j](S[i, j] where j <= i);")
print("  let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);")
print("  let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };")
print("  A")
print("}")
print_cases(cases)
