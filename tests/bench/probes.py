#!/usr/bin/env python3
"""Probes: everyday programs that neither run.py nor variants.py contains (issue 14, session 11).

Written the way a user writes them (layer norm over a 3-D batch, softmax down the columns, row
cumulative sums, a padded 1-D convolution, outer products, masked means, many small matmuls,
pooling, segment maxima, a cross-entropy gradient, ...), each timed against idiomatic NumPy in
one run with the targets of variants.py (contraction-shaped ≤ 1.1 × NumPy, fusable or
loop-shaped ≤ 0.5 ×, recurrences ≤ 1.0 × NumPy's loop, memory-bound ≤ 1.1 ×).

Usage: PYENV_VERSION=system python3 tests/bench/probes.py [--ein build/ein] [--reps 5] [-k NAME]
Not part of scripts/test.sh: timings are facts about a machine, not pass/fail conditions.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import variants  # noqa: E402  (the driver, vals(), run.py's helpers)

bench, np, vals = variants.bench, variants.np, variants.vals
f32, f64 = np.float32, np.float64
P = []
probe = variants.registry(P)


@probe("softmax_cols_f64", "fusable", """
// Softmax down the columns (axis 0) of a 1000 x 2000 f64 matrix.
let X[i in 0..1000, j in 0..2000] = ((i * 7 + j * 3) % 23) as f64 * 0.1 - 1.0;
// bench: begin
let m[j] = max[i](X[i, j]);
let z[j] = sum[i](std::math::exp(X[i, j] - m[j]));
let Y[i, j] = std::math::exp(X[i, j] - m[j]) / z[j];
// bench: end
print(Y[3, 5], Y[999, 1999]);
""")
def np_softmax_cols(reps):
    X = vals((1000, 2000), 7, 3, 23, 0.1, 1.0, f64)

    def f():
        e = np.exp(X - X.max(0))
        return e / e.sum(0)
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[3, 5], Y[999, 1999])


@probe("layernorm_affine_3d", "fusable", """
// Layer norm over the last axis of a [16, 256, 384] f32 activation, with scale and shift.
let X[b in 0..16, t in 0..256, d in 0..384] = ((b * 5 + t * 7 + d * 3) % 19) as f32 * 0.1 - 0.9;
let g[d in 0..384] = (d % 5) as f32 * 0.1 + 0.5;
let be[d in 0..384] = (d % 3) as f32 * 0.1 - 0.1;
// bench: begin
let mu[b, t] = sum[d](X[b, t, d]) / 384.0;
let var[b, t] = sum[d]((X[b, t, d] - mu[b, t]) * (X[b, t, d] - mu[b, t])) / 384.0;
let Y[b, t, d] = (X[b, t, d] - mu[b, t]) / std::math::sqrt(var[b, t] + 0.00001) * g[d] + be[d];
// bench: end
print(Y[1, 2, 3], Y[15, 255, 383]);
""")
def np_layernorm3(reps):
    b, t, d = np.indices((16, 256, 384))
    X = ((b * 5 + t * 7 + d * 3) % 19).astype(f32) * f32(0.1) - f32(0.9)
    g = (np.arange(384) % 5).astype(f32) * f32(0.1) + f32(0.5)
    be = (np.arange(384) % 3).astype(f32) * f32(0.1) - f32(0.1)

    def f():
        mu = X.mean(-1, keepdims=True)
        var = ((X - mu) ** 2).mean(-1, keepdims=True)
        return (X - mu) / np.sqrt(var + f32(1e-5)) * g + be
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[1, 2, 3], Y[15, 255, 383])


@probe("cumsum_rows_f64", "recurrence", """
// Cumulative sums along the rows of a 2000 x 2000 f64 matrix (np.cumsum(X, 1)).
let X[i in 0..2000, j in 0..2000] = ((i * 3 + j * 5) % 11) as f64 * 0.5 - 2.0;
// bench: begin
let C[i, j] = sum[k in 0..j + 1](X[i, k]);
// bench: end
print(C[3, 5], C[1999, 1999]);
""")
def np_cumsum_rows(reps):
    X = vals((2000, 2000), 3, 5, 11, 0.5, 2.0, f64)
    ms, C = bench.best_of(reps, lambda: np.cumsum(X, 1))
    return ms, (C[3, 5], C[1999, 1999])


@probe("cummax_rec_f32", "recurrence", """
// Running maximum along each row as a recurrence (np.maximum.accumulate(X, 1)), 2000 x 2000 f32.
let X[i in 0..2000, j in 0..2000] = ((i * 3 + j * 7) % 101) as f32 * 0.01;
// bench: begin
let R[i in 0..2000, 0] = X[i, 0];
let R[i in 0..2000, j in 1..2000] = std::math::max(R[i, j - 1], X[i, j]);
// bench: end
print(R[3, 5], R[1999, 1999]);
""")
def np_cummax(reps):
    X = vals((2000, 2000), 3, 7, 101, 0.01, 0.0, f32)
    ms, R = bench.best_of(reps, lambda: np.maximum.accumulate(X, 1))
    return ms, (R[3, 5], R[1999, 1999])


@probe("pairwise_self_f32", "fusable", """
// Euclidean distances between all pairs of 1500 points in 32 dimensions, f32.
let X[i in 0..1500, k in 0..32] = ((i * 7 + k * 3) % 29) as f32 * 0.1 - 1.4;
// bench: begin
let D[i, j] = std::math::sqrt(sum[k]((X[i, k] - X[j, k]) * (X[i, k] - X[j, k])));
// bench: end
print(D[3, 5], D[1499, 1]);
""")
def np_pairwise(reps):
    X = vals((1500, 32), 7, 3, 29, 0.1, 1.4, f32)

    def f():
        sq = (X * X).sum(1)
        return np.sqrt(np.maximum(sq[:, None] + sq[None, :] - 2 * (X @ X.T), 0))
    ms, D = bench.best_of(reps, f)
    return ms, (D[3, 5], D[1499, 1])


@probe("conv1d_same_f32", "fusable", """
// A 7-tap 1-D correlation with zero padding ('same' output), 2^22 f32 samples.
let N = 4194304;
let x[i in 0..N] = ((i * 13) % 31) as f32 * 0.1 - 1.5;
let w[k in 0..7] = (k as f32 - 3.0) * 0.25;
// bench: begin
let y[i in 0..N] = sum[k in 0..7](x[i + k - 3] * w[k] where i + k >= 3, i + k - 3 < N);
// bench: end
print(y[0], y[12345], y[4194303]);
""")
def np_conv1d_same(reps):
    x = ((np.arange(4194304) * 13) % 31).astype(f32) * f32(0.1) - f32(1.5)
    w = (np.arange(7).astype(f32) - f32(3.0)) * f32(0.25)
    ms, y = bench.best_of(reps, lambda: np.correlate(x, w, "same"))
    return ms, (y[0], y[12345], y[4194303])


@probe("outer_f32", "memory", """
// Outer product of two 4096-vectors, f32 (64 MiB written).
let a[i in 0..4096] = (i % 17) as f32 * 0.1;
let b[j in 0..4096] = (j % 13) as f32 * 0.2 - 1.0;
// bench: begin
let O[i, j] = a[i] * b[j];
// bench: end
print(O[3, 5], O[4095, 4095]);
""")
def np_outer(reps):
    a = (np.arange(4096) % 17).astype(f32) * f32(0.1)
    b = (np.arange(4096) % 13).astype(f32) * f32(0.2) - f32(1.0)
    ms, O = bench.best_of(reps, lambda: np.outer(a, b))
    return ms, (O[3, 5], O[4095, 4095])


@probe("masked_mean_rows", "fusable", """
// Mean of each row over the entries a boolean mask keeps, 4096 x 1024 f32.
let X[i in 0..4096, j in 0..1024] = ((i * 7 + j * 3) % 17) as f32 * 0.1 - 0.8;
let M[i in 0..4096, j in 0..1024] = (i * 3 + j * 5) % 7 != 0;
// bench: begin
let mm[i] = sum[j](X[i, j] where M[i, j]) / sum[j](1.0 where M[i, j]);
// bench: end
print(mm[3], mm[4095]);
""")
def np_masked_mean(reps):
    X = vals((4096, 1024), 7, 3, 17, 0.1, 0.8, f32)
    i, j = np.indices((4096, 1024))
    M = (i * 3 + j * 5) % 7 != 0
    ms, mm = bench.best_of(reps, lambda: np.where(M, X, f32(0)).sum(1) / M.sum(1))
    return ms, (mm[3], mm[4095])


@probe("bmm_4x4", "contraction", """
// 100 000 products of 4 x 4 f32 matrices (np.matmul over a batch axis).
let A[b in 0..100000, i in 0..4, k in 0..4] = ((b * 3 + i * 5 + k * 7) % 11) as f32 * 0.1 - 0.5;
let B[b in 0..100000, k in 0..4, j in 0..4] = ((b * 5 + k * 3 + j * 2) % 13) as f32 * 0.1 - 0.6;
// bench: begin
let C[b, i, j] = sum[k](A[b, i, k] * B[b, k, j]);
// bench: end
print(C[3, 1, 2], C[99999, 3, 3]);
""")
def np_bmm4(reps):
    b, i, k = np.indices((100000, 4, 4))
    A = ((b * 3 + i * 5 + k * 7) % 11).astype(f32) * f32(0.1) - f32(0.5)
    B = ((b * 5 + i * 3 + k * 2) % 13).astype(f32) * f32(0.1) - f32(0.6)
    ms, C = bench.best_of(reps, lambda: A @ B)
    return ms, (C[3, 1, 2], C[99999, 3, 3])


@probe("maxpool2x2_f32", "fusable", """
// 2 x 2 max pooling with stride 2 of a 4096 x 4096 f32 image.
let X[i in 0..4096, j in 0..4096] = ((i * 7 + j * 13) % 101) as f32 * 0.01;
// bench: begin
let P[i in 0..2048, j in 0..2048] = max[a in 0..2, c in 0..2](X[2 * i + a, 2 * j + c]);
// bench: end
print(P[3, 5], P[2047, 2047]);
""")
def np_maxpool(reps):
    X = vals((4096, 4096), 7, 13, 101, 0.01, 0.0, f32)
    ms, P = bench.best_of(reps, lambda: X.reshape(2048, 2, 2048, 2).max((1, 3)))
    return ms, (P[3, 5], P[2047, 2047])


@probe("segment_max_f32", "memory", """
// Maximum of each of 1000 segments over 10^6 f32 values (np.maximum.at).
let seg[n in 0..1000000] = (n * 79) % 1000;
let x[n in 0..1000000] = ((n * 13) % 997) as f32 * 0.01 - 5.0;
// bench: begin
let m[s in 0..1000] = max[n](x[n] where seg[n] == s);
// bench: end
print(m[3], m[999]);
""")
def np_segment_max(reps):
    n = np.arange(1000000)
    seg = (n * 79) % 1000
    x = ((n * 13) % 997).astype(f32) * f32(0.01) - f32(5.0)

    def f():
        m = np.full(1000, -np.inf, dtype=f32)
        np.maximum.at(m, seg, x)
        return m
    ms, m = bench.best_of(reps, f)
    return ms, (m[3], m[999])


@probe("xent_grad_f32", "fusable", """
// Gradient of the mean softmax cross-entropy of 20 000 rows of 10 logits, f32.
use std::math::{exp, log};
let X[n in 0..20000, c in 0..10] = ((n * 7 + c * 3) % 23) as f32 * 0.2 - 2.0;
let y[n in 0..20000] = (n * 3) % 10;
// bench: begin
let m[n] = max[c](X[n, c]);
let lse[n] = log(sum[c](exp(X[n, c] - m[n]))) + m[n];
let loss = sum[n](lse[n] - X[n, y[n]]) / 20000.0;
let G = @loss / @X;
// bench: end
print(G[3, 5], G[19999, 9], loss);
""")
def np_xent_grad(reps):
    X = vals((20000, 10), 7, 3, 23, 0.2, 2.0, f32)
    y = (np.arange(20000) * 3) % 10
    rows = np.arange(20000)

    def f():
        e = np.exp(X - X.max(1, keepdims=True))
        s = e.sum(1, keepdims=True)
        loss = (np.log(s[:, 0]) + X.max(1) - X[rows, y]).sum() / f32(20000)
        G = e / s
        G[rows, y] -= 1
        return G / f32(20000), loss
    ms, (G, loss) = bench.best_of(reps, f)
    return ms, (G[3, 5], G[19999, 9], loss)


@probe("moving_avg_f64", "fusable", """
// A 5-point moving average of 2^23 f64 samples ('valid' output).
let x[i in 0..8388608] = ((i * 17) % 101) as f64 * 0.01;
// bench: begin
let a[i] = sum[k in 0..5](x[i + k]) / 5.0;
// bench: end
print(a[3], a[8388603]);
""")
def np_moving_avg(reps):
    x = ((np.arange(8388608) * 17) % 101).astype(f64) * 0.01
    ms, a = bench.best_of(reps, lambda: np.convolve(x, np.full(5, 0.2), "valid"))
    return ms, (a[3], a[8388603])


@probe("standardize_cols_f32", "fusable", """
// Standardise each column (mean 0, variance 1) of a 4096 x 1024 f32 matrix.
let X[i in 0..4096, j in 0..1024] = ((i * 7 + j * 3) % 17) as f32 * 0.1 - 0.8;
// bench: begin
let mu[j] = sum[i](X[i, j]) / 4096.0;
let sd[j] = std::math::sqrt(sum[i]((X[i, j] - mu[j]) * (X[i, j] - mu[j])) / 4096.0);
let Z[i, j] = (X[i, j] - mu[j]) / sd[j];
// bench: end
print(Z[3, 5], Z[4095, 1023]);
""")
def np_standardize(reps):
    X = vals((4096, 1024), 7, 3, 17, 0.1, 0.8, f32)
    ms, Z = bench.best_of(reps, lambda: (X - X.mean(0)) / X.std(0))
    return ms, (Z[3, 5], Z[4095, 1023])


@probe("argmax_accuracy", "fusable", """
// Accuracy of row-argmax predictions against labels, 200 000 x 10 f32 scores.
let S[n in 0..200000, c in 0..10] = ((n * 7 + c * 13) % 29) as f32 * 0.1;
let y[n in 0..200000] = (n * 3) % 10;
// bench: begin
let hits = sum[n](1 where argmax[c](S[n, c]) == y[n]);
// bench: end
print(hits);
""")
def np_argmax_acc(reps):
    S = vals((200000, 10), 7, 13, 29, 0.1, 0.0, f32)
    y = (np.arange(200000) * 3) % 10
    ms, h = bench.best_of(reps, lambda: int((S.argmax(1) == y).sum()))
    return ms, (h,)


@probe("count_above_f32", "memory", """
// How many of 2^24 f32 values exceed a threshold (np.count_nonzero).
let x[i in 0..16777216] = ((i * 31) % 1009) as f32 * 0.001;
// bench: begin
let n = sum[i](1 where x[i] > 0.5);
// bench: end
print(n);
""")
def np_count(reps):
    x = ((np.arange(16777216) * 31) % 1009).astype(f32) * f32(0.001)
    ms, n = bench.best_of(reps, lambda: np.count_nonzero(x > f32(0.5)))
    return ms, (n,)


@probe("upsample2x_f32", "memory", """
// Nearest-neighbour 2x upsampling of a 2048 x 2048 f32 image.
let X[i in 0..2048, j in 0..2048] = ((i * 7 + j * 13) % 101) as f32 * 0.01;
// bench: begin
let U[i in 0..4096, j in 0..4096] = X[i / 2, j / 2];
// bench: end
print(U[3, 5], U[4095, 4095]);
""")
def np_upsample(reps):
    X = vals((2048, 2048), 7, 13, 101, 0.01, 0.0, f32)
    ms, U = bench.best_of(reps, lambda: X.repeat(2, 0).repeat(2, 1))
    return ms, (U[3, 5], U[4095, 4095])


@probe("cumsum_grad_20k", "recurrence", """
// Gradient of sum(cumsum(x)^2) over 20 000 f64 points: a prefix sum and its adjoint (a suffix
// sum), both recurrences below the old 32768-point tiering threshold.
let x[i in 0..20000] = ((i * 7) % 11) as f64 * 0.01 - 0.05;
// bench: begin
let c[i] = sum[k in 0..i + 1](x[k]);
let L = sum[i](c[i] * c[i]);
let g = @L / @x;
// bench: end
print(L, g[0], g[19999]);
""")
def np_cumsum_grad(reps):
    x = ((np.arange(20000) * 7) % 11).astype(f64) * 0.01 - 0.05

    def f():
        c = np.cumsum(x)
        return (c * c).sum(), np.cumsum((2.0 * c)[::-1])[::-1]
    ms, (L, g) = bench.best_of(reps, f)
    return ms, (L, g[0], g[19999])


@probe("running_max_f64", "recurrence", """
// Running maximum written as a reduction over a growing range, 10^6 f64 (np.maximum.accumulate).
let x[i in 0..1000000] = ((i * 7919) % 10007) as f64 * 0.001;
// bench: begin
let m[i] = max[k in 0..i + 1](x[k]);
// bench: end
print(m[3], m[999999]);
""")
def np_running_max(reps):
    x = ((np.arange(1000000) * 7919) % 10007).astype(f64) * 0.001
    ms, m = bench.best_of(reps, lambda: np.maximum.accumulate(x))
    return ms, (m[3], m[999999])


@probe("ar1_filter_5k", "recurrence", """
// A first-order IIR filter over 5000 f64 samples (a short recurrence; NumPy loops in Python).
let x[i in 0..5000] = ((i * 13) % 17) as f64 * 0.1 - 0.8;
// bench: begin
let s[t in 0..5000] = if t == 0 { x[0] } else { 0.9 * s[t - 1] + x[t] };
// bench: end
print(s[3], s[4999]);
""")
def np_ar1(reps):
    x = ((np.arange(5000) * 13) % 17).astype(f64) * 0.1 - 0.8

    def f():
        s = np.empty_like(x)
        s[0] = x[0]
        for t in range(1, len(x)):
            s[t] = 0.9 * s[t - 1] + x[t]
        return s
    ms, s = bench.best_of(reps, f)
    return ms, (s[3], s[4999])


if __name__ == "__main__":
    variants.main(P)
