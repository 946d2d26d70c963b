#!/usr/bin/env python3
"""Writes row_terms_decl_guard.ein: a softmax whose output is written with a declaration guard
(`let A[i, j] = exp(..) / z[i] where j <= i;`, the points where the guard fails hold 0) keeps the
fused row sum's terms in its rows like the `if .. else 0.0` form (engine/codegen/gen_rowbuf.cpp
filled_row_clause: the row loop stores 0 where the guard fails; `%ir kernel`: one exp). Cases:
causal f32 on odd extents, a mask array (`where K[i, j] > 0` in the sum and the declaration), a
declaration guard other than the sum's (`j < i` over a `j <= i` sum: not kept, still right), f64
in a function (run-time extents), NaN and -inf scores. Tensors printed as sum(A * weights) in
f64 and at points (the zeros where the guard fails included).
Expected values: NumPy (f64 reference), never from ein.
Usage: PYENV_VERSION=system python3 row_terms_decl_guard.py > row_terms_decl_guard.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_np import f32, f64, nan_scores, print_cases, pts, scores, tot  # noqa: E402

cases = []


def guarded_softmax(S, mask, out_mask):
    """Row softmax over the points of `mask`, written where `out_mask` holds (0 elsewhere)."""
    Sm = np.where(mask, S.astype(f64), -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = Sm.max(1, keepdims=True)
        z = np.where(mask, np.exp(S.astype(f64) - mx), 0.0).sum(1, keepdims=True)
        return np.where(out_mask, np.exp(S.astype(f64) - mx) / z, 0.0)


n = 37
S = scores(n, n, f32)
i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
A = guarded_softmax(S, j <= i, j <= i)
cases.append(f"let S[i in 0..{n}, j in 0..{n}] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;")
cases.append(("let m[i] = max[j](S[i, j] where j <= i);\n"
              "let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);\n"
              "let A[i, j] = std::math::exp(S[i, j] - m[i]) / z[i] where j <= i;\n"
              "print(tot2(A), A[0, 0], A[0, 1], A[1, 0], A[36, 17], A[36, 36], A[5, 9]);",
              f"{tot(A)!r} {pts(A, [(0, 0), (0, 1), (1, 0), (36, 17), (36, 36), (5, 9)])}"))
# A mask array: the same test in the sum and the declaration.
K = ((i * 5 + j * 3) % 4 != 0).astype(np.int32)
K[:, 0] = 1
AK = guarded_softmax(S, K > 0, K > 0)
cases.append(f"let K[i in 0..{n}, j in 0..{n}] = if j == 0 {{ 1 }} else if (i * 5 + j * 3) % 4 != 0 {{ 1 }} else {{ 0 }};")
cases.append(("let mk[i] = max[j](S[i, j] where K[i, j] > 0);\n"
              "let zk[i] = sum[j](std::math::exp(S[i, j] - mk[i]) where K[i, j] > 0);\n"
              "let AK[i, j] = std::math::exp(S[i, j] - mk[i]) / zk[i] where K[i, j] > 0;\n"
              "print(tot2(AK), AK[0, 0], AK[0, 4], AK[36, 36], AK[12, 4]);",
              f"{tot(AK)!r} {pts(AK, [(0, 0), (0, 4), (36, 36), (12, 4)])}"))
# A declaration guard other than the sum's: not kept, still right.
A3 = guarded_softmax(S, j <= i, j < i)
cases.append(("let m3[i] = max[j](S[i, j] where j <= i);\n"
              "let z3[i] = sum[j](std::math::exp(S[i, j] - m3[i]) where j <= i);\n"
              "let A3[i, j] = std::math::exp(S[i, j] - m3[i]) / z3[i] where j < i;\n"
              "print(tot2(A3), A3[0, 0], A3[1, 0], A3[1, 1], A3[36, 35], A3[36, 36]);",
              f"{tot(A3)!r} {pts(A3, [(0, 0), (1, 0), (1, 1), (36, 35), (36, 36)])}"))
# f64 in a function.
F = scores(29, 29, f64, 2, 9)
fi, fj = np.meshgrid(np.arange(29), np.arange(29), indexing="ij")
AF = guarded_softmax(F, fj <= fi, fj <= fi)
cases.append(("let F[i in 0..29, j in 0..29] = ((i * 2 + j * 9) % 23) as f64 * 0.1 - 1.0;\n"
              "let AF = causal(F);\n"
              "print(tot2(AF), AF[0, 0], AF[0, 28], AF[28, 28], AF[28, 0], AF[10, 4]);",
              f"{tot(AF)!r} {pts(AF, [(0, 0), (0, 28), (28, 28), (28, 0), (10, 4)])}"))
# NaN and -inf scores.
N = nan_scores()
ni, nj = np.meshgrid(np.arange(9), np.arange(9), indexing="ij")
with np.errstate(invalid="ignore"):
    AN = guarded_softmax(N, nj <= ni, nj <= ni)
    AN[4, :5] = np.nan  # max over a row holding NaN is NaN (ein and np.max agree)
cases.append(("let N0[i in 0..9, j in 0..9] = ((i * 5 + j * 11) % 23) as f64 * 0.1 - 1.0;\n"
              "let N[i in 0..9, j in 0..9] = if i == 4 && j == 2 { 0.0 / 0.0 } else if (i == 6 && j == 0) || i == 7 "
              "{ -1.0 / 0.0 } else { N0[i, j] };\n"
              "let AN = causal(N);\n"
              "print(AN[4, 0], AN[4, 8], AN[6, 0], AN[6, 1], AN[7, 0], AN[7, 8], AN[8, 8], AN[3, 3]);",
              pts(AN, [(4, 0), (4, 8), (6, 0), (6, 1), (7, 0), (7, 8), (8, 8), (3, 3)])))

print("// A softmax whose output is written with a declaration guard (`.. where j <= i;`, 0 where the")
print("// guard fails) keeps the fused row sum's terms like the `if .. else 0.0` form")
print("// (engine/codegen/gen_rowbuf.cpp filled_row_clause; `%ir kernel`: one exp). Causal f32, a mask")
print("// array, a guard other than the sum's (not kept), f64 in a function, NaN/-inf scores.")
print("// Expected values: NumPy (row_terms_decl_guard.py writes this file).")
print("//$ EIN_JIT=never|auto|always")
print("fn wt(i) { ((i % 5) + 1) as f64 }")
print("fn tot2(A) { sum[i, j](A[i, j] as f64 * wt(i) * wt(j)) }")
print("fn causal(S) {")
print("  let m[i] = max[j](S[i, j] where j <= i);")
print("  let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);")
print("  let A[i, j] = std::math::exp(S[i, j] - m[i]) / z[i] where j <= i;")
print("  A")
print("}")
print_cases(cases)
