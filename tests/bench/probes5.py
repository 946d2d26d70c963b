#!/usr/bin/env python3
"""Everyday probes, fifth set (issue 14, session 17): classes people write and nobody had tuned
for — a padding-masked attention, a histogram by comparison, an integral image, a red-black SOR
sweep, a logistic-regression step written out, quadratic features, removing a direction, 3×3
rotations of point clouds, a transposed strided copy, integer hashing and i64 dot products, an
outer product under a ReLU reduced by rows, a running max down columns, clipping by the global
norm. Each is written the way a NumPy user writes it and timed beside its idiomatic NumPy form;
values are checked against NumPy in every row. Same driver and table as probes.py:
  PYENV_VERSION=system python3 tests/bench/probes5.py [--ein build/ein] [--reps 5] [-k NAME]
Targets as issue 14: contraction <= 1.1, fusable <= 0.5, recurrence <= 1.0, memory <= 1.1 x
NumPy. Not part of scripts/test.sh (timings are facts about a machine)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import probes3  # noqa: E402  (nd: the inputs built as the ein programs build them)
variants, nd = probes3.variants, probes3.nd
bench, np = variants.bench, variants.np
f32, f64, i64 = np.float32, np.float64, np.int64
P = []
probe = variants.registry(P)


@probe("attn_padding_mask", "contraction", """
let Q[b in 0..8, i in 0..256, d in 0..64] = ((b * 3 + i * 7 + d * 5) % 19) as f32 * 0.05 - 0.45;
let K[b in 0..8, j in 0..256, d in 0..64] = ((b * 5 + j * 3 + d * 7) % 17) as f32 * 0.05 - 0.4;
let len[b in 0..8] = 100 + b * 20;
// bench: begin
let S[b in 0..8, i in 0..256, j in 0..256] = if j < len[b] { sum[d](Q[b, i, d] * K[b, j, d]) * 0.125 } else { -1000000000.0 };
let m[b, i] = max[j](S[b, i, j]);
let z[b, i] = sum[j](std::math::exp(S[b, i, j] - m[b, i]));
let A[b, i, j] = std::math::exp(S[b, i, j] - m[b, i]) / z[b, i];
// bench: end
print(A[0, 3, 5], A[7, 255, 239], A[2, 10, 200]);
""")
def np_attn_mask(reps):
    Q = nd((8, 256, 64), (3, 7, 5), 19, 0.05, 0.45, f32)
    K = nd((8, 256, 64), (5, 3, 7), 17, 0.05, 0.4, f32)
    ln = 100 + np.arange(8) * 20
    mask = np.arange(256)[None, None, :] < ln[:, None, None]
    def f():
        S = np.where(mask, Q @ K.transpose(0, 2, 1) * f32(0.125), f32(-1e9))
        E = np.exp(S - S.max(-1, keepdims=True))
        return E / E.sum(-1, keepdims=True)
    ms, A = bench.best_of(reps, f)
    return ms, (A[0, 3, 5], A[7, 255, 239], A[2, 10, 200])


@probe("histogram_cmp", "fusable", """
let x[i in 0..1000000] = ((i as i64 * 7919) % 100003) as f32 / 100003.0;
let e[k in 0..65] = k as f32 / 64.0;
// bench: begin
let h[k in 0..64] = sum[i](1 where x[i] >= e[k] && x[i] < e[k + 1]);
// bench: end
print(h[0], h[31], h[63]);
""")
def np_hist(reps):
    x = ((np.arange(1000000, dtype=i64) * 7919) % 100003).astype(f32) / f32(100003.0)
    e = np.arange(65).astype(f32) / f32(64.0)
    ms, h = bench.best_of(reps, lambda: np.histogram(x, bins=e)[0])
    return ms, (h[0], h[31], h[63])


@probe("integral_image_f64", "recurrence", """
let I[i in 0..1024, j in 0..1024] = ((i * 7 + j * 3) % 23) as f64 * 0.1 - 1.0;
// bench: begin
let S[i in 0..1024, j in 0..1024] = if i == 0 && j == 0 { I[0, 0] }
    else if i == 0 { S[0, j - 1] + I[0, j] }
    else if j == 0 { S[i - 1, 0] + I[i, 0] }
    else { I[i, j] + S[i - 1, j] + S[i, j - 1] - S[i - 1, j - 1] };
// bench: end
print(S[3, 5], S[1023, 1023], S[500, 0]);
""")
def np_integral(reps):
    I = nd((1024, 1024), (7, 3), 23, 0.1, 1.0, f64)
    ms, S = bench.best_of(reps, lambda: I.cumsum(0).cumsum(1))
    return ms, (S[3, 5], S[1023, 1023], S[500, 0])


@probe("sor_red_black", "fusable", """
let u[i in 0..1026, j in 0..1026] = ((i * 7 + j * 3) % 23) as f64 * 0.1 - 1.0;
let f[i in 0..1026, j in 0..1026] = ((i * 3 + j * 5) % 11) as f64 * 0.01;
// bench: begin
let r[i in 0..1026, j in 0..1026] = if i > 0 && i < 1025 && j > 0 && j < 1025 && (i + j) % 2 == 0 {
    -0.5 * u[i, j] + 1.5 * 0.25 * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - f[i, j]) } else { u[i, j] };
let v[i in 0..1026, j in 0..1026] = if i > 0 && i < 1025 && j > 0 && j < 1025 && (i + j) % 2 == 1 {
    -0.5 * r[i, j] + 1.5 * 0.25 * (r[i - 1, j] + r[i + 1, j] + r[i, j - 1] + r[i, j + 1] - f[i, j]) } else { r[i, j] };
// bench: end
print(v[3, 5], v[1024, 1024], v[0, 7], v[500, 501]);
""")
def np_sor(reps):
    u0 = nd((1026, 1026), (7, 3), 23, 0.1, 1.0, f64)
    fr = nd((1026, 1026), (3, 5), 11, 0.01, 0.0, f64)
    ii, jj = np.indices((1026, 1026))
    inner = (ii > 0) & (ii < 1025) & (jj > 0) & (jj < 1025)
    red, black = inner & ((ii + jj) % 2 == 0), inner & ((ii + jj) % 2 == 1)
    def half(u, m):
        nb = np.zeros_like(u)
        nb[1:-1, 1:-1] = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - fr[1:-1, 1:-1]
        return np.where(m, -0.5 * u + 1.5 * 0.25 * nb, u)
    ms, v = bench.best_of(reps, lambda: half(half(u0, red), black))
    return ms, (v[3, 5], v[1024, 1024], v[0, 7], v[500, 501])


@probe("logreg_step", "contraction", """
let X[n in 0..50000, d in 0..64] = ((n * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;
let y[n in 0..50000] = ((n * 5) % 2) as f32;
let w[d in 0..64] = ((d * 3) % 7) as f32 * 0.01 - 0.03;
// bench: begin
let p[n] = 1.0 / (1.0 + std::math::exp(-sum[d](X[n, d] * w[d])));
let g[d] = sum[n](X[n, d] * (p[n] - y[n])) / 50000.0;
let w2[d] = w[d] - 0.1 * g[d];
// bench: end
print(w2[0], w2[31], w2[63]);
""")
def np_logreg(reps):
    X = nd((50000, 64), (7, 3), 17, 0.1, 0.8, f32)
    y = ((np.arange(50000) * 5) % 2).astype(f32)
    w = ((np.arange(64) * 3) % 7).astype(f32) * f32(0.01) - f32(0.03)
    def f():
        p = f32(1) / (f32(1) + np.exp(-(X @ w)))
        return w - f32(0.1) * (X.T @ (p - y) / f32(50000))
    ms, w2 = bench.best_of(reps, f)
    return ms, (w2[0], w2[31], w2[63])


@probe("quadratic_features", "contraction", """
let x[n in 0..20000, a in 0..32] = ((n * 7 + a * 3) % 17) as f32 * 0.1 - 0.8;
let W[a in 0..32, b in 0..32] = ((a * 5 + b * 3) % 13) as f32 * 0.01 - 0.06;
// bench: begin
let y[n] = sum[a, b](x[n, a] * x[n, b] * W[a, b]);
// bench: end
print(y[3], y[19999], y[777]);
""")
def np_quadfeat(reps):
    x = nd((20000, 32), (7, 3), 17, 0.1, 0.8, f32)
    W = nd((32, 32), (5, 3), 13, 0.01, 0.06, f32)
    ms, y = bench.best_of(reps, lambda: ((x @ W) * x).sum(1))
    return ms, (y[3], y[19999], y[777])


@probe("project_out_direction", "contraction", """
let X[b in 0..20000, i in 0..256] = ((b * 7 + i * 3) % 17) as f32 * 0.1 - 0.8;
let u[i in 0..256] = ((i * 5) % 11) as f32 * 0.02 - 0.1;
// bench: begin
let c[b] = sum[i](X[b, i] * u[i]);
let Y[b, i] = X[b, i] - c[b] * u[i];
// bench: end
print(Y[3, 5], Y[19999, 255], Y[100, 0]);
""")
def np_project(reps):
    X = nd((20000, 256), (7, 3), 17, 0.1, 0.8, f32)
    u = ((np.arange(256) * 5) % 11).astype(f32) * f32(0.02) - f32(0.1)
    ms, Y = bench.best_of(reps, lambda: X - np.outer(X @ u, u))
    return ms, (Y[3, 5], Y[19999, 255], Y[100, 0])


@probe("rotate_points_3x3", "contraction", """
let R[b in 0..4096, i in 0..3, j in 0..3] = ((b * 3 + i * 5 + j * 7) % 11) as f32 * 0.1 - 0.5;
let t[b in 0..4096, i in 0..3] = ((b + i * 3) % 5) as f32 * 0.2;
let Pt[b in 0..4096, n in 0..256, j in 0..3] = ((b * 5 + n * 3 + j * 2) % 13) as f32 * 0.1 - 0.6;
// bench: begin
let Y[b, n, i] = sum[j](R[b, i, j] * Pt[b, n, j]) + t[b, i];
// bench: end
print(Y[3, 5, 1], Y[4095, 255, 2], Y[100, 0, 0]);
""")
def np_rot3(reps):
    R = nd((4096, 3, 3), (3, 5, 7), 11, 0.1, 0.5, f32)
    t = nd((4096, 3), (1, 3), 5, 0.2, 0.0, f32)
    Pt = nd((4096, 256, 3), (5, 3, 2), 13, 0.1, 0.6, f32)
    ms, Y = bench.best_of(reps, lambda: Pt @ R.transpose(0, 2, 1) + t[:, None, :])
    return ms, (Y[3, 5, 1], Y[4095, 255, 2], Y[100, 0, 0])


@probe("transpose_stride2", "memory", """
let X[i in 0..4096, j in 0..4096] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y[j in 0..4096, i in 0..2048] = X[2 * i, j];
// bench: end
print(Y[3, 5], Y[4095, 2047], Y[0, 1000]);
""")
def np_tstride(reps):
    X = nd((4096, 4096), (7, 3), 23, 0.1, 1.0, f32)
    ms, Y = bench.best_of(reps, lambda: np.ascontiguousarray(X[::2].T))
    return ms, (Y[3, 5], Y[4095, 2047], Y[0, 1000])


@probe("hash_dropout_i64", "fusable", """
let X[i in 0..2048, j in 0..2048] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y[i, j] = if ((i as i64 * 2048 + j as i64) * 2654435761) % 4294967296 % 1000 < 900 { X[i, j] / 0.9 } else { 0.0 };
// bench: end
print(Y[3, 5], Y[2047, 2047], Y[1000, 17]);
""")
def np_hashdrop(reps):
    X = nd((2048, 2048), (7, 3), 23, 0.1, 1.0, f32)
    ii, jj = np.indices((2048, 2048), dtype=i64)
    def f():
        keep = ((ii * 2048 + jj) * 2654435761) % 4294967296 % 1000 < 900
        return np.where(keep, X / f32(0.9), f32(0))
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[3, 5], Y[2047, 2047], Y[1000, 17])


@probe("dot_rows_i64", "fusable", """
let A[r in 0..2048, c in 0..1024] = ((r * 7 + c * 3) % 101) as i64 - 50;
let B[r in 0..2048, c in 0..1024] = ((r * 5 + c * 11) % 97) as i64 - 48;
// bench: begin
let s[r] = sum[c](A[r, c] * B[r, c]);
// bench: end
print(s[3], s[2047], s[1000]);
""")
def np_dot_i64(reps):
    A = nd((2048, 1024), (7, 3), 101, 1, 50, i64)
    B = nd((2048, 1024), (5, 11), 97, 1, 48, i64)
    ms, s = bench.best_of(reps, lambda: (A * B).sum(1))
    return ms, (s[3], s[2047], s[1000])


@probe("outer_relu_rowsum", "fusable", """
let u[i in 0..4096] = (i % 17) as f32 * 0.1 - 0.8;
let v[j in 0..4096] = (j % 13) as f32 * 0.2 - 1.0;
// bench: begin
let s[i] = sum[j](std::math::max(u[i] * v[j] - 0.1, 0.0));
// bench: end
print(s[3], s[4095], s[100]);
""")
def np_outer_relu(reps):
    u = (np.arange(4096) % 17).astype(f32) * f32(0.1) - f32(0.8)
    v = (np.arange(4096) % 13).astype(f32) * f32(0.2) - f32(1.0)
    ms, s = bench.best_of(reps, lambda: np.maximum(np.outer(u, v) - f32(0.1), f32(0)).sum(1))
    return ms, (s[3], s[4095], s[100])


@probe("cummax_cols_f32", "recurrence", """
let X[t in 0..4096, i in 0..1024] = ((t * 7 + i * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let M[t, i] = if t == 0 { X[0, i] } else { std::math::max(M[t - 1, i], X[t, i]) };
// bench: end
print(M[3, 5], M[4095, 1023], M[100, 0]);
""")
def np_cummax_cols(reps):
    X = nd((4096, 1024), (7, 3), 23, 0.1, 1.0, f32)
    ms, M = bench.best_of(reps, lambda: np.maximum.accumulate(X, 0))
    return ms, (M[3, 5], M[4095, 1023], M[100, 0])


@probe("clip_global_norm", "fusable", """
let G[i in 0..4096, j in 0..1024] = ((i * 7 + j * 3) % 23) as f32 * 0.01 - 0.1;
// bench: begin
let n = std::math::sqrt(sum[i, j](G[i, j] * G[i, j]));
let Y[i, j] = G[i, j] * std::math::min(1.0, 5.0 / n);
// bench: end
print(Y[3, 5], Y[4095, 1023], n);
""")
def np_clip(reps):
    G = nd((4096, 1024), (7, 3), 23, 0.01, 0.1, f32)
    def f():
        n = np.sqrt((G * G).sum())
        return G * min(f32(1), f32(5) / n), n
    ms, (Y, n) = bench.best_of(reps, f)
    return ms, (Y[3, 5], Y[4095, 1023], n)


if __name__ == "__main__":
    variants.main(P)
