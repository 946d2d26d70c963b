#!/usr/bin/env python3
"""Writes clamp_split_user_windows.ein: window reductions written by hand whose index is a clamp
of `o * c + b + r` along the output row (engine/codegen/clamp_split.cpp splits the row into the
points below, inside and above the bounds; the middle reads unclamped). Clamp forms: an if-chain
in place (either test first, < or <=), a user function, std::math_utils::clamp (__min2 of
__max2); strides from a run-time scalar; bounds other than the array's ends; rows of 1, odd
lengths, rows crossing blocks of 256 lanes; a negative coefficient (not split: still exact); a
NaN inside and on an edge. Expected values: NumPy (np.clip of the index), never from ein.
Usage: PYENV_VERSION=system python3 clamp_split_user_windows.py > clamp_split_user_windows.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt_np as fmt, print_cases  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_np import seq_sum  # noqa: E402

f32, f64 = np.float32, np.float64


def window(X, O, K, idx, lo, hi, red):
    """Y[c, o] = red over b in 0..K of X[c, clip(idx(o, b), lo, hi)]."""
    C = X.shape[0]
    Y = np.empty((C, O), X.dtype)
    with np.errstate(invalid="ignore"):
        for o in range(O):
            cols = [int(np.clip(idx(o, b), lo, hi)) for b in range(K)]
            Y[:, o] = red(X[:, cols], axis=1)
    return Y



cases = []
W = 37
X = ((np.arange(3)[:, None] * 5 + np.arange(W)[None, :] * 7) % 23).astype(f32) * f32(0.1) - f32(1.0)
X[1, 0] = np.nan
X[2, 20] = np.nan
cases.append("let X[c in 0..3, w in 0..37] = if c == 1 && w == 0 { nan_v as f32 } else { if c == 2 && w == 20 "
             "{ nan_v as f32 } else { ((c * 5 + w * 7) % 23) as f32 * 0.1 - 1.0 } };")
cases.append("fn cl(v, lo, hi) { if v < lo { lo } else if v > hi { hi } else { v } }")
cases.append("fn cl2(v, lo, hi) { if v >= hi { hi } else if v <= lo { lo } else { v } }")
# Functions: the window k, stride s, offset p and bounds are run-time scalars in their kernels
# (the vector-lane form the split applies to; a constant window is unrolled per point instead).
cases.append("fn wmax(X, O, k, s, p, lo, hi) { let Y[c in 0..len(X), o in 0..O] = max[b in 0..k](X[c, cl(o * s + b - p, lo, hi)]); Y }")
cases.append("fn wmax2(X, O, k, s, p, lo, hi) { let Y[c in 0..len(X), o in 0..O] = max[b in 0..k](X[c, cl2(s * o + b - p, lo, hi)]); Y }")
cases.append("fn wif(X, O, k, s, p, hi) { let Y[c in 0..len(X), o in 0..O] = max[b in 0..k](X[c, if o * s + b - p < 0 { 0 } "
             "else if o * s + b - p > hi { hi } else { o * s + b - p }]); Y }")
cases.append("fn wsum(X, O, k, p, hi) { let Y[c in 0..len(X), o in 0..O] = sum[b in 0..k](X[c, std::math_utils::clamp(o + b - p, 0, hi)]); Y }")
cases.append("fn wneg(X, O, k, s, p, hi) { let Y[c in 0..len(X), o in 0..O] = min[b in 0..k](X[c, cl(hi - o * s + b - p, 0, hi)]); Y }")
# max pool, stride 2, pad 1: a constant window in place, an if-chain, a user function
Y = window(X, 19, 3, lambda o, b: o * 2 + b - 1, 0, W - 1, np.max)
cases.append(("let A[c in 0..3, o in 0..19] = max[b in 0..3](X[c, if o * 2 + b - 1 < 0 { 0 } else if o * 2 + b - 1 > 36 "
              "{ 36 } else { o * 2 + b - 1 }]);\nprint(A);", fmt(Y)))
cases.append(("print(wif(X, 19, 3, 2, 1, 36));", fmt(Y)))
cases.append(("print(wmax(X, 19, 3, 2, 1, 0, 36));", fmt(Y)))
# the tests the other way round, <= / >=; bounds inside the row
Y = window(X, 12, 4, lambda o, b: 3 * o + b - 2, 5, W - 6, np.max)
cases.append(("print(wmax2(X, 12, 4, 3, 2, 5, 31));", fmt(Y)))
# std::math_utils::clamp (__min2 of __max2), a sum
Y = window(X, 37, 5, lambda o, b: o + b - 2, 0, W - 1, seq_sum)
cases.append(("print(wsum(X, 37, 5, 2, 36));", fmt(Y)))
# a negative coefficient: not split, still exact
Y = window(X, 19, 3, lambda o, b: 36 - 2 * o + b - 1, 0, W - 1, np.min)
cases.append(("print(wneg(X, 19, 3, 2, 1, 36));", fmt(Y)))
# a window wider than the row: every point clamps on both sides; a stride of 0
Y = window(X, 2, 40, lambda o, b: o + b - 2, 0, W - 1, np.max)
cases.append(("print(wmax(X, 2, 40, 1, 2, 0, 36));", fmt(Y)))
Y = window(X, 3, 2, lambda o, b: b + 35, 0, W - 1, np.max)
cases.append(("print(wmax(X, 3, 2, 0, -35, 0, 36));", fmt(Y)))
# a row of one input; bounds crossed (lo > hi: every point clamps)
cases.append("let one[c in 0..2, w in 0..1] = (c as f64) * 0.5 - 0.25;")
one = np.array([[-0.25], [0.25]])
Y = window(one, 3, 3, lambda o, b: o + b - 1, 0, 0, np.max)
cases.append(("print(wmax(one, 3, 3, 1, 1, 0, 0));", fmt(Y)))
# rows crossing the blocks of 256 lanes, f64, stride 1 and 3, NaN in the last window
N = 800
L = ((np.arange(2)[:, None] * 3 + np.arange(N)[None, :] * 5) % 29).astype(f64) * 0.125 - 1.5
L[1, 799] = np.nan
cases.append("let L[c in 0..2, w in 0..800] = if c == 1 && w == 799 { nan_v } else { ((c * 3 + w * 5) % 29) as f64 * 0.125 - 1.5 };")
cols = [0, 1, 2, 254, 255, 256, 257, 510, 511, 512, 513, 797, 798, 799]
Y = window(L, N, 5, lambda o, b: o + b - 2, 0, N - 1, np.max)
cases.append("let H = wmax(L, 800, 5, 1, 2, 0, 799);")
for c in range(2):
    cases.append((f"print([H[{c}, o] | o in [" + ", ".join(map(str, cols)) + "]]);", fmt(Y[c, cols])))
cols3 = [0, 1, 84, 85, 86, 170, 171, 265, 266]
Y = window(L, 267, 4, lambda o, b: 3 * o + b - 1, 0, N - 1, np.max)
cases.append("let I = wmax(L, 267, 4, 3, 1, 0, 799);")
for c in range(2):
    cases.append((f"print([I[{c}, o] | o in [" + ", ".join(map(str, cols3)) + "]]);", fmt(Y[c, cols3])))

print("// Window reductions written by hand whose index is a clamp of `o * c + b + r` along the output")
print("// row: the row is split into the points below, inside and above the bounds, the middle part")
print("// reading unclamped (engine/codegen/clamp_split.cpp). If-chains, user functions,")
print("// std::math_utils::clamp, run-time strides, inner bounds, a negative coefficient, windows wider")
print("// than the row, a stride of 0, rows of one, rows crossing blocks of 256 lanes, NaN. Windows of")
print("// run-time extent inside functions (the vector-lane form the split applies to) and one constant")
print("// window (unrolled per point, not split).")
print("// Expected values: NumPy (clamp_split_user_windows.py writes this file).")
print("//$ EIN_JIT=never|always")
print("let nan_v = 0.0 / 0.0;")
print_cases(cases)
