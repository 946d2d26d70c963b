#!/usr/bin/env python3
"""Writes jit_row_carry.ein: recurrences along the last axis of 2-D and 3-D tensors, the other
subscripts fixed by enclosing loops, whose previous step kernels keep in a register (lang/passes/
loop_plan.cpp `carry`, one row at a time). Expected values: NumPy loops here, never ein.
Usage: PYENV_VERSION=system python3 jit_row_carry.py > jit_row_carry.ein"""
import numpy as np

R, C = 6, 2000
i, j = np.indices((R, C))
X = 1.0 + ((i * 7 + j * 3) % 23) * 0.0001
Y = ((i * 5 + j * 11) % 19) * 0.25 - 2.0
P = np.cumprod(X, 1)                              # forward, base case inline
S = np.cumsum(Y[:, ::-1], 1)[:, ::-1]             # reversed (a suffix sum)
Q = np.empty_like(Y)                              # a fixed step: halves until it underflows
Q[:, 0] = Y[:, 0] + 3.0
for c in range(1, C):
    Q[:, c] = Q[:, c - 1] * 0.5
b, r, c = np.indices((3, 4, 50))
Z = ((b * 3 + r * 5 + c * 7) % 11) * 0.1 - 0.5
T = np.empty_like(Z)                              # 3-D, first step from another tensor
T[:, :, 0] = Z[:, :, 0]
for k in range(1, 50):
    T[:, :, k] = 0.9 * T[:, :, k - 1] + Z[:, :, k]
M = np.empty((R, C), dtype=np.float32)            # f32 running max with a NaN in row 2
Yf = Y.astype(np.float32)
Yf[2, 100] = np.nan
M[:, 0] = Yf[:, 0]
for k in range(1, C):
    prev, cur = M[:, k - 1], Yf[:, k]
    M[:, k] = np.where(np.isnan(prev) | np.isnan(cur), np.nan, np.maximum(prev, cur))


def row(v):
    return " ".join(repr(float(x)) if not np.isnan(x) else "nan" for x in v)


print("// Recurrences along the last axis of 2-D and 3-D tensors (a row at a time, the other")
print("// subscripts fixed by enclosing loops): kernels carry the previous step in a register")
print("// (lang/passes/loop_plan.cpp `carry`). Forward with the base case inline, reversed, a fixed")
print("// step that underflows to 0 (the fill), 3-D, f32 with a NaN. Expected: NumPy (jit_row_carry.py).")
print("//$ EIN_JIT=never|always")
print(f"let X[i in 0..{R}, j in 0..{C}] = 1.0 + ((i * 7 + j * 3) % 23) as f64 * 0.0001;")
print(f"let Y[i in 0..{R}, j in 0..{C}] = ((i * 5 + j * 11) % 19) as f64 * 0.25 - 2.0;")
print("let P[i, j] = if j == 0 { X[i, 0] } else { P[i, j - 1] * X[i, j] };")
print(f"print(P[0, 5], P[3, 1000], P[5, {C - 1}]);")
print(f"//> {row([P[0, 5], P[3, 1000], P[5, C - 1]])}")
print(f"let S[i, j in 0..{C}] = if j == {C - 1} {{ Y[i, j] }} else {{ S[i, j + 1] + Y[i, j] }};")
print(f"print(S[0, 0], S[2, 17], S[5, {C - 2}], S[4, {C - 1}]);")
print(f"//> {row([S[0, 0], S[2, 17], S[5, C - 2], S[4, C - 1]])}")
print(f"let Q[i, j in 0..{C}] = if j == 0 {{ Y[i, 0] + 3.0 }} else {{ Q[i, j - 1] * 0.5 }};")
print(f"print(Q[1, 3], Q[4, 60], Q[2, 1080], Q[0, {C - 1}]);")
print(f"//> {row([Q[1, 3], Q[4, 60], Q[2, 1080], Q[0, C - 1]])}")
print("let Z[b in 0..3, r in 0..4, c in 0..50] = ((b * 3 + r * 5 + c * 7) % 11) as f64 * 0.1 - 0.5;")
print("let T[b, r, c] = if c == 0 { Z[b, r, 0] } else { 0.9 * T[b, r, c - 1] + Z[b, r, c] };")
print("print(T[0, 0, 49], T[2, 3, 17], T[1, 2, 0]);")
print(f"//> {row([T[0, 0, 49], T[2, 3, 17], T[1, 2, 0]])}")
print(f"let Yf[i, j] = if i == 2 && j == 100 {{ (0.0 / 0.0) as f32 }} else {{ Y[i, j] as f32 }};")
print("let M[i, j] = if j == 0 { Yf[i, 0] } else { std::math::max(M[i, j - 1], Yf[i, j]) };")
print(f"print(M[0, {C - 1}], M[2, 99], M[2, 100], M[2, {C - 1}], M[5, 3]);")
print(f"//> {row([M[0, C - 1], M[2, 99], M[2, 100], M[2, C - 1], M[5, 3]])}")
