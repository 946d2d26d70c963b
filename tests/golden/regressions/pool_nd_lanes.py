#!/usr/bin/env python3
"""Writes pool_nd_lanes.ein: std::ml average_pool and lp_pool on 1-D signals and 3-D volumes
whose window sums run in vector lanes (share/std/ml/pool_ops.ein: extents and window bound to
scalars, lp_pool without guards since it has no pads). Rows longer than one block of 256
lanes, strides, pads one short of the window, NaN and inf inside windows, f32 and f64.
Values are multiples of 1/8 (window sums exact); expected values from NumPy, never from ein.
Usage: PYENV_VERSION=system python3 pool_nd_lanes.py > pool_nd_lanes.ein"""
import itertools
import os
import sys

import numpy as np

f32, f64 = np.float32, np.float64


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt_np as fmt, print_cases  # noqa: E402  (how `print` shows a value)


def windows(X, k, s, pads):
    """(window values with NaN-free zero padding mask, count inside) per output position."""
    nsp = X.ndim - 2
    out = [(X.shape[2 + a] + pads[a] + pads[a + nsp] - k[a]) // s[a] + 1 for a in range(nsp)]
    for o in itertools.product(*[range(n) for n in out]):
        idx = [range(o[a] * s[a] - pads[a], o[a] * s[a] - pads[a] + k[a]) for a in range(nsp)]
        inside = [[i for i in r if 0 <= i < X.shape[2 + a]] for a, r in enumerate(idx)]
        yield o, out, inside


def average_pool(X, k, s, pads):
    nsp = X.ndim - 2
    Y = None
    for o, out, inside in windows(X, k, s, pads):
        if Y is None:
            Y = np.zeros(X.shape[:2] + tuple(out), X.dtype)
        win = X[np.ix_(range(X.shape[0]), range(X.shape[1]), *inside)].astype(f64)
        cnt = np.prod([len(i) for i in inside])
        Y[(slice(None), slice(None)) + o] = (win.reshape(X.shape[0], X.shape[1], -1).sum(2).astype(X.dtype) / X.dtype.type(cnt))
    return Y


def lp_pool(X, k, s, p):
    nsp = X.ndim - 2
    Y = None
    with np.errstate(invalid="ignore"):
        for o, out, inside in windows(X, k, s, [0] * (2 * nsp)):
            if Y is None:
                Y = np.zeros(X.shape[:2] + tuple(out), X.dtype)
            win = np.abs(X[np.ix_(range(X.shape[0]), range(X.shape[1]), *inside)]).astype(f64) ** p
            t = win.reshape(X.shape[0], X.shape[1], -1).sum(2).astype(X.dtype)
            Y[(slice(None), slice(None)) + o] = np.power(t, X.dtype.type(1.0 / p))
    return Y


def grid(shape, coef, mod, dt):
    idx = np.meshgrid(*[np.arange(n) for n in shape], indexing="ij")
    return ((sum(c * i for c, i in zip(coef, idx)) % mod).astype(dt) * dt(0.125) - dt(1.0))


def ein_grid(name, shape, coef, mod, ty, specials=()):
    vs = ["n", "c", "t"] if len(shape) == 3 else ["n", "c", "z", "h", "w"]
    dims = ", ".join(f"{v} in 0..{n}" for v, n in zip(vs, shape))
    expr = " + ".join(f"{v} * {c}" for v, c in zip(vs, coef) if c)
    base = f"(({expr}) % {mod}) as {ty} * 0.125 - 1.0"
    for at, val in specials:
        test = " && ".join(f"{v} == {i}" for v, i in zip(vs, at))
        base = f"if {test} {{ {val} as {ty} }} else {{ {base} }}"
    return f"let {name}[{dims}] = {base};"


lines = []
# 1-D f32: 2 x 3 x 700 (outputs past 256 and 512 lanes), a NaN and an inf.
S = grid((2, 3, 700), (3, 5, 7), 19, f32)
S[1, 2, 600] = np.nan
S[0, 1, 5] = np.inf
lines.append(ein_grid("S", (2, 3, 700), (3, 5, 7), 19, "f32", [((1, 2, 600), "nan_v"), ((0, 1, 5), "inf_v")]))
cols = [0, 1, 2, 3, 255, 256, 257, 300, 347, 348, 349]
for k, s, p in [([5], [2], [4, 2]), ([3], [1], [1, 1]), ([4], [3], [])]:
    Y = average_pool(S, k, s, (p * 2 if len(p) == 1 else p) or [0, 0])
    n = Y.shape[2]
    cs = [c for c in cols if c < n] + [n - 1]
    lines.append((f"let A = average_pool(S, {k}, {s}, {p});\nprint(shape(A), [A[0, 1, o] | o in {cs}], [A[1, 2, o] | o in {cs}]);",
                  f"{list(Y.shape)} {fmt(Y[0, 1, cs])} {fmt(Y[1, 2, cs])}".replace("[2, 3,", "[2, 3,")))
for k, s, p in [([4], [2], 2.0), ([3], [1], 3.0)]:
    Y = lp_pool(S, k, s, p)
    n = Y.shape[2]
    cs = [c for c in cols if c < n] + [n - 1]
    lines.append((f"let L = lp_pool(S, {k}, {s}, {p});\nprint(shape(L), [L[0, 1, o] | o in {cs}], [L[1, 2, o] | o in {cs}]);",
                  f"{list(Y.shape)} {fmt(Y[0, 1, cs])} {fmt(Y[1, 2, cs])}"))
# 3-D f64.
V = grid((1, 2, 4, 5, 6), (0, 3, 5, 7, 1), 17, f64)
V[0, 1, 3, 4, 5] = np.nan
lines.append(ein_grid("V", (1, 2, 4, 5, 6), (0, 3, 5, 7, 1), 17, "f64", [((0, 1, 3, 4, 5), "nan_v")]))
Y = lp_pool(V, [2, 3, 2], [1, 2, 2], 2.0)
lines.append(("print(lp_pool(V, [2, 3, 2], [1, 2, 2], 2.0));", fmt(Y)))
Y = average_pool(V, [3, 2, 3], [2, 1, 2], [2, 1, 1, 1, 0, 2])
lines.append(("print(average_pool(V, [3, 2, 3], [2, 1, 2], [2, 1, 1, 1, 0, 2]));", fmt(Y)))

print("// std::ml average_pool and lp_pool on 1-D signals and 3-D volumes, their window sums in vector")
print("// lanes (share/std/ml/pool_ops.ein: extents and windows bound to scalars; lp_pool, which has no")
print("// pads, without guards): rows past one and two blocks of 256 lanes, strides, pads one short of")
print("// the window, NaN and inf inside windows, f32 and f64. Values are multiples of 1/8 (window sums")
print("// exact). Expected values: NumPy (pool_nd_lanes.py writes this file).")
print("//$ EIN_JIT=never|always")
print("use std::ml::{average_pool, lp_pool};")
print("let nan_v = 0.0 / 0.0;")
print("let inf_v = 1.0 / 0.0;")
print_cases(lines)
