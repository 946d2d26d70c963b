#!/usr/bin/env python3
"""Writes argmax_vector_blocks.ein: argmax/argmin along rows whose blocks the kernel compares in
two 64-byte vectors (engine/codegen/gen_reduce.cpp arg_reduce_simd: 32 lanes of f32/i32, 16 of
f64/i64), the values read and taken with their index (`v[i] = X[i, a[i]]`). Row lengths around
the block width (1, 15, 16, 17, 31, 32, 33, 48, 64, 65, 96, 100; rows up to 32 take
the short-row form), NaN in a block (the row falls back to
the one-pass loop), NaN only in the tail, NaN first, +inf, rows of -inf (no lane is ever
replaced: the first index), -0.0 tied with 0.0 (the first index, its own sign), integer rows of
the type's minimum, a computed body, argmin, a function with run-time extents. Expected values:
NumPy (np.argmax / np.argmin: first index on ties, the first NaN), never from ein.
Usage: PYENV_VERSION=system python3 argmax_vector_blocks.py > argmax_vector_blocks.ein"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib", "gen"))
from common import fmt, fmt_np, print_cases  # noqa: E402

f32, f64 = np.float32, np.float64
cases = []


def float_rows(T, L):
    """Six rows: plain (ties), NaN in the first block, NaN in the last position, +inf, all -inf,
    -0.0 before 0.0 ties above negative values. The Einlang declaration and the NumPy array."""
    t = "f32" if T == f32 else "f64"
    i, j = np.indices((7, L))
    X = ((i * 7 + j * 13) % 11).astype(T) * T(0.5) - T(2.0)
    X[1, min(5, L - 1)] = np.nan
    X[2, L - 1] = np.nan
    X[3, min(7, L - 1)] = np.inf
    X[4, :] = -np.inf
    X[5, :] = T(0.0)
    X[5, 0] = T(-1.0)
    if L > 1:
        X[5, 1] = T(-0.0)
    X[6, 0] = np.nan
    name = f"X{t}_{L}"
    decl = (f"let {name}[i in 0..7, j in 0..{L}] = if i == 1 && j == {min(5, L - 1)} {{ nan_v as {t} }} "
            f"else if i == 2 && j == {L - 1} {{ nan_v as {t} }} else if i == 3 && j == {min(7, L - 1)} {{ inf_v as {t} }} "
            f"else if i == 4 {{ -inf_v as {t} }} else if i == 5 {{ if j == 0 {{ -1.0 as {t} }} else if j == 1 {{ -0.0 as {t} }} "
            f"else {{ 0.0 as {t} }} }} else if i == 6 && j == 0 {{ nan_v as {t} }} "
            f"else {{ ((i * 7 + j * 13) % 11) as {t} * 0.5 - 2.0 }};")
    return name, decl, X


for T, lengths in ((f32, (1, 17, 31, 32, 33, 64, 65, 96, 100)), (f64, (1, 15, 16, 17, 33, 48, 100))):
    for L in lengths:
        name, decl, X = float_rows(T, L)
        cases.append(decl)
        a = np.argmax(X, 1)
        cases.append((f"let {name}a[i] = argmax[j]({name}[i, j]);\nlet {name}v[i] = {name}[i, {name}a[i]];\n"
                      f"print({name}a, {name}v);", fmt(a.astype(np.int32), "i32") + " " + fmt_np(X[np.arange(7), a])))
        cases.append((f"let {name}n[i] = argmin[j]({name}[i, j]);\nprint({name}n);", fmt(np.argmin(X, 1).astype(np.int32), "i32")))

# a computed body (the value of each point computed in the lanes loop): f32 arithmetic
name, decl, X = float_rows(f32, 65)
with np.errstate(invalid="ignore"):
    Y = X * f32(-2.0) + f32(1.0)
cases.append(("let Cb[i] = argmax[j](Xf32_65[i, j] * -2.0 + 1.0);\nprint(Cb);", fmt(np.argmax(Y, 1).astype(np.int32), "i32")))

# integers: ties, a row of the type's minimum (the lanes' start value: the first index)
for t, big in (("i32", False), ("i64", True)):
    for L in (17, 33, 100):
        i, j = np.indices((3, L))
        X = (((i * 7 + j * 13) % 11) - 5).astype(np.int64)
        if big:
            X = X * 3000000000
        X[2, :] = np.iinfo(np.int32 if t == "i32" else np.int64).min
        mn = "-2147483647 - 1" if t == "i32" else "(-9223372036854775807 as i64) - 1"
        body = "(((i * 7 + j * 13) % 11) - 5)" + (" as i64 * 3000000000" if big else "")
        cases.append(f"let Z{t}_{L}[i in 0..3, j in 0..{L}] = if i == 2 {{ {mn} }} else {{ {body} }};")
        cases.append((f"let Z{t}_{L}a[i] = argmax[j](Z{t}_{L}[i, j]);\nlet Z{t}_{L}n[i] = argmin[j](Z{t}_{L}[i, j]);\n"
                      f"print(Z{t}_{L}a, Z{t}_{L}n);",
                      fmt(np.argmax(X, 1).astype(np.int32), "i32") + " " + fmt(np.argmin(X, 1).astype(np.int32), "i32")))

# a function: extents known at run time only
cases.append("fn top1(X) { let a[i] = argmax[j](X[i, j]); let v[i] = X[i, a[i]]; (a, v) }")
name, decl, X = float_rows(f32, 100)
a = np.argmax(X, 1)
cases.append(("let (fa, fv) = top1(Xf32_100);\nprint(fa, fv);", fmt(a.astype(np.int32), "i32") + " " + fmt_np(X[np.arange(7), a])))

print("// argmax/argmin along rows in two 64-byte vectors per block (gen_reduce.cpp arg_reduce_simd),")
print("// the value taken with its index. Row lengths around the block width, NaN in a block (the")
print("// one-pass loop), NaN in the tail or first, +inf, -inf rows, -0.0 tied with 0.0, integer rows of")
print("// the type's minimum, a computed body, argmin, a function.")
print("// Expected values: NumPy (argmax_vector_blocks.py writes this file).")
print("//$ EIN_JIT=never|always")
print("let nan_v = 0.0 / 0.0;")
print("let inf_v = 1.0 / 0.0;")
print_cases(cases)
