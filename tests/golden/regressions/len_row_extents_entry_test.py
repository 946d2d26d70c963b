#!/usr/bin/env python3
"""Writes len_row_extents_entry_test.ein: hand-written windows and copies whose loop ranges are
written in place as `c in 0..len(X[0])`, `h in 0..len(X[0, 0])` (engine/codegen/gen_check.cpp
extent_call: such an extent is a number fixed before the kernel's loops, so the reads are
checked once at entry and the window runs in vector lanes). Max and sum windows with clamped
indices (stride 2, pad 1, NaN inside and on an edge), rows of 1 and odd lengths, a copy through
a run-time offset (a read past the end: E005 at its line), a row extent of an empty batch (no
row is read). Expected values: NumPy, never from ein.
Usage: PYENV_VERSION=system python3 len_row_extents_entry_test.py > len_row_extents_entry_test.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt_np as fmt, print_cases  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_np import seq_sum  # noqa: E402

f32, f64 = np.float32, np.float64
cases = []
cases.append("fn cl(v, lo, hi) { if v < lo { lo } else if v > hi { hi } else { v } }")
cases.append("fn mrow(X, s, p, k, OW) {\n  let W1 = len(X[0, 0, 0]) - 1;\n"
             "  let R[n in 0..len(X), c in 0..len(X[0]), h in 0..len(X[0, 0]), ow in 0..OW] = "
             "max[b in 0..k](X[n, c, h, cl(ow * s + b - p, 0, W1)]);\n  R\n}")
cases.append("fn srow(X, s, p, k, OW) {\n  let W1 = len(X[0, 0]) - 1;\n"
             "  let R[c in 0..len(X), h in 0..len(X[0]), ow in 0..OW] = "
             "sum[b in 0..k](X[c, h, cl(ow * s + b - p, 0, W1)]);\n  R\n}")
cases.append("fn shift(X, o) {\n  let Y[c in 0..len(X), w in 0..len(X[0]) - 1] = X[c, w + o];\n  Y\n}")


def clamp_window(X, O, K, s, p, red):
    W = X.shape[-1]
    out = np.empty(X.shape[:-1] + (O,), X.dtype)
    with np.errstate(invalid="ignore"):
        for o in range(O):
            cols = [min(max(o * s + b - p, 0), W - 1) for b in range(K)]
            out[..., o] = red(X[..., cols], axis=-1)
    return out



for (N, C, H, W) in ((1, 3, 4, 37), (2, 2, 3, 1), (1, 2, 2, 300)):
    n, c, h, w = np.indices((N, C, H, W))
    X = ((c * 5 + h * 7 + w * 3 + n) % 23).astype(f32) * f32(0.1) - f32(1.0)
    X[0, 1, 0, 0] = np.nan
    X[0, 0, 1, W // 2] = np.nan
    name = f"X{N}{C}{H}{W}"
    cases.append(f"let {name}[n in 0..{N}, c in 0..{C}, h in 0..{H}, w in 0..{W}] = "
                 f"if n == 0 && c == 1 && h == 0 && w == 0 {{ nan_v as f32 }} else if n == 0 && c == 0 && h == 1 && w == {W // 2} "
                 f"{{ nan_v as f32 }} else {{ ((c * 5 + h * 7 + w * 3 + n) % 23) as f32 * 0.1 - 1.0 }};")
    O = (W + 2 - 3) // 2 + 1
    for (s, OO) in ((2, O), (1, W)):
        Y = clamp_window(X, OO, 3, s, 1, np.max)
        if Y.size <= 400:
            cases.append((f"print(mrow({name}, {s}, 1, 3, {OO}));", fmt(Y)))
        else:  # long rows: the first, block-edge and last outputs of each row
            cols = sorted({0, 1, OO // 2, 255 % OO, 256 % OO, OO - 2, OO - 1})
            cases.append(f"let M{s}{name} = mrow({name}, {s}, 1, 3, {OO});")
            for cc in range(C):
                for hh in range(H):
                    cases.append((f"print([M{s}{name}[0, {cc}, {hh}, o] | o in [" + ", ".join(map(str, cols)) + "]]);",
                                  fmt(Y[0, cc, hh, cols])))

# sums in f64 rows of 1, 17, 300: each window's taps in order
for W in (1, 17, 300):
    c, h, w = np.indices((2, 3, W))
    X = ((c * 3 + h * 5 + w * 7) % 29).astype(f64) * 0.125 - 1.5
    cases.append(f"let S{W}[c in 0..2, h in 0..3, w in 0..{W}] = ((c * 3 + h * 5 + w * 7) % 29) as f64 * 0.125 - 1.5;")
    Y = clamp_window(X, W, 5, 1, 2, seq_sum)
    cols = sorted(x for x in {0, 1, W // 2, W - 2, W - 1} if 0 <= x < W)
    cases.append(f"let Q{W} = srow(S{W}, 1, 2, 5, {W});")
    for cc in range(2):
        cases.append((f"print([Q{W}[{cc}, h, o] | h in 0..3, o in [" + ", ".join(map(str, cols)) + "]]);",
                      fmt(Y[cc][:, cols].reshape(-1))))

# a copy through a run-time offset: in range, then one column past the end (E005 at the read)
cases.append("let T[c in 0..3, w in 0..41] = (c * 40 + w) as f32;")
cases.append(("print(shift(T, 1)[2, 39], shift(T, 1)[0, 0]);", f"{float(2 * 40 + 40)} {float(1)}"))
cases.append("print(shift(T, 2));")
print("// Windows and copies whose loop ranges are written in place as `c in 0..len(X[0])`: such an")
print("// extent is fixed before the kernel's loops (engine/codegen/gen_check.cpp extent_call), so")
print("// the reads are checked once at entry and the windows run in vector lanes. Max and sum")
print("// windows with clamped indices, NaN, rows of 1 and odd lengths, a copy through an offset.")
print("// Expected values: NumPy (len_row_extents_entry_test.py writes this file).")
print("//$ EIN_JIT=never|always")
print("//! E005 @21")
print("let nan_v = 0.0 / 0.0;")
print_cases(cases)
