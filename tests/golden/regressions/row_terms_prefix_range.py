#!/usr/bin/env python3
"""Writes row_terms_prefix_range.ein: a row sum over a prefix of the row written as a range
(`sum[j in 0..i + 1](exp(..))`, a causal softmax without a `where`) keeps its terms in the output
row like a whole-row sum (engine/codegen/gen_rowbuf.cpp `below_end`; `%ir kernel`: one exp, the
store `if (j < end) b0[..] = ..`), when the consumer reads them back only under a branch that
keeps j below the range's end (`if j <= i`, `if j < i + 3`). Cases: causal f32 on odd extents, a
range ending past the consumer's row (`0..i + 3` over wider scores), a branch that does not imply
the end (`if j <= i + 1` over `0..i + 1`: not kept, still right), f64 in a function with
run-time extents, NaN and -inf scores. Tensors printed as sum(A * weights) in f64 and at points.
Expected values: NumPy (f64 reference), never from ein.
Usage: PYENV_VERSION=system python3 row_terms_prefix_range.py > row_terms_prefix_range.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_np import f32, f64, nan_scores, print_cases, pts, scores, tot  # noqa: E402

cases = []


def prefix_softmax(S, ends, width, read):
    """Row i: softmax over S[i, :ends[i]]; the output row has `width` entries, set where read(i, j)."""
    n = S.shape[0]
    out = np.zeros((n, width), f64)
    for i in range(n):
        row = S[i, :ends[i]].astype(f64)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            mx = row.max()
            e = np.exp(row - mx)
            z = e.sum()
            for j in range(width):
                if read(i, j):
                    out[i, j] = np.exp(f64(S[i, j]) - mx) / z
    return out


n = 37
S = scores(n, n, f32)
A = prefix_softmax(S, [i + 1 for i in range(n)], n, lambda i, j: j <= i)
cases.append(f"let S[i in 0..{n}, j in 0..{n}] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;")
cases.append(("let m[i] = max[j in 0..i + 1](S[i, j]);\n"
              "let z[i] = sum[j in 0..i + 1](std::math::exp(S[i, j] - m[i]));\n"
              "let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };\n"
              "print(tot2(A), A[0, 0], A[1, 0], A[36, 17], A[36, 36], A[5, 9]);",
              f"{tot(A)!r} {pts(A, [(0, 0), (1, 0), (36, 17), (36, 36), (5, 9)])}"))
# The range ends past the consumer's row: scores 37 x 39, output rows of 37, sum over 0..i + 3.
W = scores(n, n + 2, f32, 5, 2)
A2 = prefix_softmax(W, [i + 3 for i in range(n)], n, lambda i, j: j < i + 3)
cases.append(f"let W[i in 0..{n}, j in 0..{n + 2}] = ((i * 5 + j * 2) % 23) as f32 * 0.1 - 1.0;")
cases.append(("let m2[i] = max[j in 0..i + 3](W[i, j]);\n"
              "let z2[i] = sum[j in 0..i + 3](std::math::exp(W[i, j] - m2[i]));\n"
              f"let A2[i in 0..{n}, j in 0..{n}] = if j < i + 3 {{ std::math::exp(W[i, j] - m2[i]) / z2[i] }} else {{ 0.0 }};\n"
              "print(tot2(A2), A2[0, 2], A2[34, 36], A2[36, 36], A2[3, 5]);",
              f"{tot(A2)!r} {pts(A2, [(0, 2), (34, 36), (36, 36), (3, 5)])}"))
# A branch that does not keep j below the range's end: not kept (each exp twice), still right.
A3 = prefix_softmax(S, [i + 1 for i in range(n)], n, lambda i, j: j <= i + 1)
cases.append(("let z3[i] = sum[j in 0..i + 1](std::math::exp(S[i, j] - m[i]));\n"
              "let A3[i, j] = if j <= i + 1 { std::math::exp(S[i, j] - m[i]) / z3[i] } else { 0.0 };\n"
              "print(tot2(A3), A3[0, 1], A3[35, 36], A3[36, 36]);",
              f"{tot(A3)!r} {pts(A3, [(0, 1), (35, 36), (36, 36)])}"))
# f64 in a function (run-time extents).
F = scores(29, 29, f64, 2, 9)
AF = prefix_softmax(F, [i + 1 for i in range(29)], 29, lambda i, j: j <= i)
cases.append(("let F[i in 0..29, j in 0..29] = ((i * 2 + j * 9) % 23) as f64 * 0.1 - 1.0;\n"
              "let AF = causal(F);\n"
              "print(tot2(AF), AF[0, 0], AF[28, 28], AF[28, 0], AF[10, 4]);",
              f"{tot(AF)!r} {pts(AF, [(0, 0), (28, 28), (28, 0), (10, 4)])}"))
# NaN and -inf scores.
N = nan_scores()
AN = prefix_softmax(N, [i + 1 for i in range(9)], 9, lambda i, j: j <= i)
cases.append(("let N0[i in 0..9, j in 0..9] = ((i * 5 + j * 11) % 23) as f64 * 0.1 - 1.0;\n"
              "let N[i in 0..9, j in 0..9] = if i == 4 && j == 2 { 0.0 / 0.0 } else if (i == 6 && j == 0) || i == 7 "
              "{ -1.0 / 0.0 } else { N0[i, j] };\n"
              "let AN = causal(N);\n"
              "print(AN[4, 0], AN[4, 8], AN[6, 0], AN[6, 1], AN[7, 0], AN[8, 8], AN[3, 3]);",
              pts(AN, [(4, 0), (4, 8), (6, 0), (6, 1), (7, 0), (8, 8), (3, 3)])))

print("// A row sum over a prefix of the row written as a range (`sum[j in 0..i + 1](exp(..))`) keeps")
print("// its terms in the output row (engine/codegen/gen_rowbuf.cpp below_end; `%ir kernel`: one exp,")
print("// stores `if (j < end)`) when the consumer reads them back only under a branch that keeps j")
print("// below the range's end. Causal f32, a range ending past the row, a branch that does not")
print("// imply the end (not kept), f64 in a function, NaN/-inf scores. Tensors printed as")
print("// sum(A * weights) in f64 and at points.")
print("// Expected values: NumPy (row_terms_prefix_range.py writes this file).")
print("//$ EIN_JIT=never|auto|always")
print("fn wt(i) { ((i % 5) + 1) as f64 }")
print("fn tot2(A) { sum[i, j](A[i, j] as f64 * wt(i) * wt(j)) }")
print("fn causal(S) {")
print("  let m[i] = max[j in 0..i + 1](S[i, j]);")
print("  let z[i] = sum[j in 0..i + 1](std::math::exp(S[i, j] - m[i]));")
print("  let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };")
print("  A")
print("}")
print_cases(cases)
