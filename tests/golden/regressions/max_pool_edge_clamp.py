#!/usr/bin/env python3
"""Writes max_pool_edge_clamp.ein: std::ml::max_pool in 1-D, 2-D and 3-D, f32, f64 and i32,
through its edge-padded separable body (share/std/ml/pool_ops.ein: clamped reads decided at
kernel entry, engine/codegen/gen_check.cpp). Expected values come from NumPy here (a window
maximum over -inf padding, np.max: NaN propagates), never from ein.
Usage: PYENV_VERSION=system python3 max_pool_edge_clamp.py > max_pool_edge_clamp.ein"""
import itertools
import os
import sys

import numpy as np

f32, f64 = np.float32, np.float64


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt_np as fmt, print_cases  # noqa: E402  (how `print` shows a value)


def max_pool(X, k, s, pads):
    """ONNX MaxPool (ceil_mode 0, no dilation): -inf (or the type's minimum) padding."""
    nsp = X.ndim - 2
    s = s or [1] * nsp
    if len(pads) == nsp:
        pads = list(pads) * 2
    pads = pads or [0] * (2 * nsp)
    low = -np.inf if X.dtype.kind == "f" else np.iinfo(X.dtype).min
    Xp = np.pad(X, [(0, 0), (0, 0)] + [(pads[a], pads[a + nsp]) for a in range(nsp)], constant_values=low)
    out = [(X.shape[2 + a] + pads[a] + pads[a + nsp] - k[a]) // s[a] + 1 for a in range(nsp)]
    Y = np.empty(X.shape[:2] + tuple(out), X.dtype)
    with np.errstate(invalid="ignore"):
        for o in itertools.product(*[range(n) for n in out]):
            win = Xp[(slice(None), slice(None)) + tuple(slice(o[a] * s[a], o[a] * s[a] + k[a]) for a in range(nsp))]
            Y[(slice(None), slice(None)) + o] = win.reshape(X.shape[0], X.shape[1], -1).max(2)
    return Y


def grid(shape, coef, mod, scale, off, dt):
    idx = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    v = sum(c * i for c, i in zip(coef, idx)) % mod
    return (v.astype(dt) * dt(scale) - dt(off)) if dt is not int else (v - off)


def ein_grid(name, shape, coef, mod, scale, off, ty, specials=()):
    names = "nchwvu"[:len(shape)] if len(shape) < 6 else None
    vs = ["n", "c", "z", "h", "w"][:2] + ["z", "h", "w"][3 - (len(shape) - 2):]
    dims = ", ".join(f"{v} in 0..{n}" for v, n in zip(vs, shape))
    expr = " + ".join(f"{v} * {c}" if c != 1 else v for v, c in zip(vs, coef) if c)
    base = f"(({expr}) % {mod}) as {ty} * {scale} - {off}" if ty != "i32" else f"({expr}) % {mod} - {off}"
    for at, val in specials:
        test = " && ".join(f"{v} == {i}" for v, i in zip(vs, at))
        base = f"if {test} {{ {val} as {ty} }} else {{ {base} }}"
    return f"let {name}[{dims}] = {base};"


cases = []
# 2-D f32 with NaN (one on an edge that edge padding repeats), a row of -inf, +inf.
shape = (2, 3, 9, 11)
X = grid(shape, (5, 3, 7, 1), 23, 0.1, 1.0, f32)
spec = [((0, 1, 0, 0), "nan_v"), ((1, 2, 4, 5), "nan_v"), ((0, 0, 8, 10), "inf_v")]
X[0, 1, 0, 0] = np.nan
X[1, 2, 4, 5] = np.nan
X[0, 0, 8, 10] = np.inf
X[1, 0, 3, :] = -np.inf
src = ein_grid("X", shape, (5, 3, 7, 1), 23, 0.1, 1.0, "f32", spec)
src = src.replace("{ ((", "{ if n == 1 && c == 0 && h == 3 { -inf_v as f32 } else { ((", 1)[:-1] + " };"
cases.append(src)
for k, s, p in [([3, 3], [2, 2], [1, 1, 1, 1]), ([3, 2], [1, 2], [2, 0, 1, 1]), ([2, 2], [3, 3], []),
                ([1, 1], [1, 1], [0, 0, 0, 0]), ([3, 4], [2, 3], [1, 2])]:
    cases.append((f"print(max_pool(X, {k}, {s}, {p}));", fmt(max_pool(X, k, s, p))))
# 1-D f64: a pad one short of the window (the first window holds one input), per-axis pads.
shape = (2, 2, 13)
D = grid(shape, (3, 5, 7), 17, 0.25, 2.0, f64)
D[1, 1, 12] = np.nan
cases.append(ein_grid("D", shape, (3, 5, 7), 17, 0.25, 2.0, "f64", [((1, 1, 12), "nan_v")]))
for k, s, p in [([4], [3], [3, 2]), ([3], [1], [1]), ([5], [2], []), ([2], [], [1, 0])]:
    cases.append((f"print(max_pool(D, {k}, {s}, {p}));", fmt(max_pool(D, k, s, p))))
# 3-D f32, strides and uneven pads on every axis.
shape = (1, 2, 5, 6, 7)
V = grid(shape, (0, 3, 5, 7, 1), 19, 0.5, 4.0, f32)
cases.append(ein_grid("V", shape, (0, 3, 5, 7, 1), 19, 0.5, 4.0, "f32"))
for k, s, p in [([3, 2, 3], [2, 1, 2], [1, 0, 2, 2, 1, 1]), ([2, 2, 2], [2, 2, 2], [0, 0, 0, 0, 0, 0]), ([1, 3, 2], [1, 1, 1], [0, 1, 1])]:
    cases.append((f"print(max_pool(V, {k}, {s}, {p}));", fmt(max_pool(V, k, s, p))))
# i32 in 1-D and 2-D: negative values, edge padding with no -inf for integers.
shape = (1, 2, 10)
I1 = grid(shape, (0, 3, 7), 11, 1, 8, int).astype(np.int32)
cases.append(ein_grid("I1", shape, (0, 3, 7), 11, 1, 8, "i32"))
cases.append(("print(max_pool(I1, [3], [2], [2, 1]));", fmt(max_pool(I1, [3], [2], [2, 1]))))
shape = (2, 1, 5, 6)
I2 = grid(shape, (7, 0, 5, 3), 13, 1, 9, int).astype(np.int32)
cases.append(ein_grid("I2", shape, (7, 0, 5, 3), 13, 1, 9, "i32"))
cases.append(("print(max_pool(I2, [2, 3], [2, 2], [1, 2, 0, 1]));", fmt(max_pool(I2, [2, 3], [2, 2], [1, 2, 0, 1]))))
# Output rows that end inside the first, second and third block of 256 lanes (engine/codegen/
# reduce_lanes.cpp), a NaN in the last window.
shape = (1, 2, 3, 600)
L = grid(shape, (0, 5, 3, 1), 29, 0.125, 1.5, f32)
L[0, 1, 2, 599] = np.nan
cases.append(ein_grid("L", shape, (0, 5, 3, 1), 29, 0.125, 1.5, "f32", [((0, 1, 2, 599), "nan_v")]))
YL = max_pool(L, [2, 3], [1, 1], [0, 1, 1, 1])
cols = [0, 1, 254, 255, 256, 257, 510, 511, 512, 513, 598, 599]
cases.append(("let YL = max_pool(L, [2, 3], [1, 1], [0, 1, 1, 1]);\n"
              "print(shape(YL));\nprint([YL[0, 1, 1, o] | o in [" + ", ".join(map(str, cols)) + "]]);",
              fmt(np.array(YL.shape[:])) + "\n//> " + fmt(YL[0, 1, 1, cols])))

print("// std::ml::max_pool through its edge-padded separable body (share/std/ml/pool_ops.ein): a pad")
print("// position reads the nearest input value, the reads are clamped indices checked once at kernel")
print("// entry (engine/codegen/gen_check.cpp) and the window maxima run along the output row in vector")
print("// lanes. 1-D, 2-D, 3-D; f32, f64, i32; NaN (also on an edge that the padding repeats), -inf rows,")
print("// +inf; pads one short of the window, asymmetric and per-axis pads, strides above the window,")
print("// partial windows dropped at the end; rows ending in the first three blocks of 256 lanes.")
print("// Expected values: NumPy (max_pool_edge_clamp.py writes this file).")
print("//$ EIN_JIT=never|always")
print("use std::ml::max_pool;")
print("let nan_v = 0.0 / 0.0;")
print("let inf_v = 1.0 / 0.0;")
print_cases(cases)
