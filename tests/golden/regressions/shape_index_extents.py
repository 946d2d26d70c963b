#!/usr/bin/env python3
"""Writes shape_index_extents.ein: `shape(X)[k]` (k a literal) in a clause's ranges and values,
which a kernel reads as X's extent k (engine/codegen/gen_kernel.cpp load; the entry test,
gen_check.cpp extent_call, fixes it at entry). Before, such a clause ran in the interpreter
("indexing a computed value"). A max window with a clamped index (NaN, stride 2), a mean over
the last axis dividing by `shape(X)[2]`, rows of 1 and 300, a k past the rank (E005, as the
interpreter says). Expected values: NumPy, never from ein.
Usage: PYENV_VERSION=system python3 shape_index_extents.py > shape_index_extents.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt_np as fmt, print_cases  # noqa: E402

f32 = np.float32
cases = []
cases.append("fn cl(v, lo, hi) { if v < lo { lo } else if v > hi { hi } else { v } }")
cases.append("fn mw(X, s, k, OW) {\n  let W1 = shape(X)[2] - 1;\n"
             "  let R[c in 0..shape(X)[0], h in 0..shape(X)[1], o in 0..OW] = max[b in 0..k](X[c, h, cl(o * s + b - 1, 0, W1)]);\n"
             "  R\n}")
cases.append("fn mean_last(X) {\n  let M[c in 0..shape(X)[0], h in 0..shape(X)[1]] = "
             "sum[w in 0..shape(X)[2]](X[c, h, w]) / (shape(X)[2] as f32);\n  M\n}")
cases.append("fn past(X) {\n  let P[c in 0..shape(X)[3]] = X[c, 0, 0];\n  P\n}")
for (C, H, W) in ((2, 3, 1), (2, 2, 37), (1, 2, 300)):
    c, h, w = np.indices((C, H, W))
    X = ((c * 5 + h * 7 + w * 3) % 23).astype(f32) * f32(0.1) - f32(1.0)
    X[0, 1, W // 2] = np.nan
    name = f"X{C}{H}{W}"
    cases.append(f"let {name}[c in 0..{C}, h in 0..{H}, w in 0..{W}] = if c == 0 && h == 1 && w == {W // 2} {{ nan_v as f32 }} "
                 f"else {{ ((c * 5 + h * 7 + w * 3) % 23) as f32 * 0.1 - 1.0 }};")
    O = (W + 2 - 3) // 2 + 1
    Y = np.empty((C, H, O), f32)
    with np.errstate(invalid="ignore"):
        for o in range(O):
            cols = [min(max(o * 2 + b - 1, 0), W - 1) for b in range(3)]
            Y[:, :, o] = X[:, :, cols].max(axis=2)
    if Y.size <= 300:
        cases.append((f"print(mw({name}, 2, 3, {O}));", fmt(Y)))
    else:
        cols = [0, 1, O // 2, O - 2, O - 1]
        cases.append(f"let Mw{name} = mw({name}, 2, 3, {O});")
        cases.append((f"print([Mw{name}[c, h, o] | c in 0..{C}, h in 0..{H}, o in [" + ", ".join(map(str, cols)) + "]]);",
                      fmt(Y[:, :, cols].reshape(-1))))
    # the mean: a sum in order (f32 terms summed in f64, as ein's sums of f32), then the division in f32
    S = X.astype(np.float64).sum(axis=2).astype(f32)
    with np.errstate(invalid="ignore"):
        Mn = S / f32(W)
    cases.append((f"print(mean_last({name}));", fmt(Mn)))
cases.append("print(past(X2237));")
print("// `shape(X)[k]` in a clause's ranges and values: a kernel reads X's extent k, fixed at entry")
print("// (was: the clause interpreted). Max windows with a clamped index, a mean dividing by")
print("// `shape(X)[2]`, rows of 1, 37 and 300, NaN; a k past the rank is E005 as in the interpreter.")
print("// Expected values: NumPy (shape_index_extents.py writes this file).")
print("//$ EIN_JIT=never|always")
print("//! E005 @19")
print("let nan_v = 0.0 / 0.0;")
print_cases(cases)
