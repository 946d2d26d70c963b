#!/usr/bin/env python3
"""Variants: programs of issue 14's everyday classes that the code generator was NOT tuned on.

tests/bench/run.py measures one program per class; a rule that only fits that program would
look fine there. Here each class appears again with other names, sizes, dtypes, layouts
(transposed operands, batch axes), surroundings (activations, functions, std library calls)
and neighbours, written the way a user would write them. Each row is timed against the same
computation in idiomatic NumPy, in one run, with the targets of issue 14:
contraction-shaped ≤ 1.1 × NumPy, fusable or loop-shaped ≤ 0.5 × NumPy; recurrences are
compared with NumPy's Python loop (no C++ here) and must simply not lose to it (≤ 1.0 ×).

Usage: PYENV_VERSION=system python3 tests/bench/variants.py [--ein build/ein] [--reps 5] [-k NAME]
Not part of scripts/test.sh: timings are facts about a machine, not pass/fail conditions.
The results of a run also compare checksums with NumPy (a mismatch is printed and flagged).
"""
import argparse
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run as bench  # noqa: E402  (best_of, with_warmup, run_ein, numbers, close)

np = bench.np
f32, f64 = np.float32, np.float64


def grid(*shape):
    return np.indices(shape)


def vals(shape, a, b, m, scale, off, dt):
    """((a*i + b*j) % m) * scale - off, the inputs every variant builds the same way in ein."""
    i, j = grid(*shape)
    return ((i * a + j * b) % m).astype(dt) * dt(scale) - dt(off)


V = []  # (name, class, ein source, numpy(reps) -> (ms, checks))


def registry(out):
    """A decorator `@reg(name, klass, src)` that appends (name, klass, src, numpy_fn) to `out`
    (variants here, probes.py and probes2.py each keep their own list)."""
    def reg(name, klass, src):
        def deco(fn):
            out.append((name, klass, src, fn))
            return fn
        return deco
    return reg


variant = registry(V)


@variant("linear_relu_f64_wt", "contraction", """
// Dense layer with a transposed weight (W[k, d], as stored by most frameworks), bias and ReLU, f64.
let X[s in 0..768, d in 0..384] = ((s * 7 + d * 3) % 17) as f64 * 0.1 - 0.8;
let W[k in 0..1024, d in 0..384] = ((k * 5 + d * 11) % 13) as f64 * 0.01 - 0.06;
let b[k in 0..1024] = (k % 7) as f64 * 0.1 - 0.3;
// bench: begin
let y[s, k] = std::math::max(sum[d](X[s, d] * W[k, d]) + b[k], 0.0);
// bench: end
print(y[3, 5], y[700, 1000]);
""")
def np_linear_relu(reps):
    X = vals((768, 384), 7, 3, 17, 0.1, 0.8, f64)
    W = vals((1024, 384), 5, 11, 13, 0.01, 0.06, f64)
    b = (np.arange(1024) % 7).astype(f64) * 0.1 - 0.3
    ms, y = bench.best_of(reps, lambda: np.maximum(X @ W.T + b, 0.0))
    return ms, (y[3, 5], y[700, 1000])


@variant("mlp_fn", "contraction", """
// Two dense layers through a user function, tanh between them, f32.
fn dense(x, w, b) { let y[n, o] = sum[i](x[n, i] * w[i, o]) + b[o]; y }
let X[n in 0..512, i in 0..256] = ((n * 7 + i * 3) % 17) as f32 * 0.1 - 0.8;
let W1[i in 0..256, o in 0..512] = ((i * 5 + o * 11) % 13) as f32 * 0.01 - 0.06;
let b1[o in 0..512] = (o % 7) as f32 * 0.1 - 0.3;
let W2[i in 0..512, o in 0..128] = ((i * 3 + o * 7) % 11) as f32 * 0.01 - 0.05;
let b2[o in 0..128] = (o % 5) as f32 * 0.1 - 0.2;
// bench: begin
let h1 = dense(X, W1, b1);
let a1[n, o] = std::math::tanh(h1[n, o]);
let out = dense(a1, W2, b2);
// bench: end
print(out[3, 5], out[500, 100]);
""")
def np_mlp(reps):
    X = vals((512, 256), 7, 3, 17, 0.1, 0.8, f32)
    W1 = vals((256, 512), 5, 11, 13, 0.01, 0.06, f32)
    b1 = (np.arange(512) % 7).astype(f32) * f32(0.1) - f32(0.3)
    W2 = vals((512, 128), 3, 7, 11, 0.01, 0.05, f32)
    b2 = (np.arange(128) % 5).astype(f32) * f32(0.1) - f32(0.2)
    ms, y = bench.best_of(reps, lambda: np.tanh(X @ W1 + b1) @ W2 + b2)
    return ms, (y[3, 5], y[500, 100])


@variant("bmm_bt_scaled", "contraction", """
// Batched product with the second operand transposed and a scale (attention scores), f32.
let Q[b in 0..64, n in 0..128, d in 0..64] = ((b * 3 + n * 7 + d * 5) % 17) as f32 * 0.1 - 0.8;
let K[b in 0..64, m in 0..128, d in 0..64] = ((b * 5 + m * 3 + d * 11) % 13) as f32 * 0.1 - 0.6;
// bench: begin
let S[b, n, m] = 0.125 * sum[d](Q[b, n, d] * K[b, m, d]);
// bench: end
print(S[3, 5, 7], S[63, 120, 100]);
""")
def np_bmm_bt(reps):
    b, n, d = grid(64, 128, 64)
    Q = ((b * 3 + n * 7 + d * 5) % 17).astype(f32) * f32(0.1) - f32(0.8)
    K = ((b * 5 + n * 3 + d * 11) % 13).astype(f32) * f32(0.1) - f32(0.6)
    ms, S = bench.best_of(reps, lambda: f32(0.125) * (Q @ K.transpose(0, 2, 1)))
    return ms, (S[3, 5, 7], S[63, 120, 100])


@variant("gemv_tanh", "contraction", """
// Matrix-vector product inside an activation, f32.
let A[i in 0..4096, j in 0..2048] = ((i * 7 + j * 3) % 17) as f32 * 0.1 - 0.8;
let x[j in 0..2048] = ((j * 5) % 11) as f32 * 0.1 - 0.5;
// bench: begin
let y[i] = std::math::tanh(0.01 * sum[j](A[i, j] * x[j]));
// bench: end
print(y[3], y[4000]);
""")
def np_gemv(reps):
    A = vals((4096, 2048), 7, 3, 17, 0.1, 0.8, f32)
    x = (np.arange(2048) * 5 % 11).astype(f32) * f32(0.1) - f32(0.5)
    ms, y = bench.best_of(reps, lambda: np.tanh(f32(0.01) * (A @ x)))
    return ms, (y[3], y[4000])


@variant("chain_bt", "contraction", """
// A three-factor chain whose middle factor is stored transposed, f32.
let A[i in 0..400, k in 0..300] = ((i * 7 + k * 3) % 17) as f32 * 0.01 - 0.08;
let B[l in 0..350, k in 0..300] = ((l * 5 + k * 11) % 13) as f32 * 0.01 - 0.06;
let C[l in 0..350, j in 0..500] = ((l * 3 + j * 13) % 11) as f32 * 0.01 - 0.05;
// bench: begin
let D[i, j] = sum[k, l](A[i, k] * B[l, k] * C[l, j]);
// bench: end
print(D[3, 5], D[399, 499]);
""")
def np_chain_bt(reps):
    A = vals((400, 300), 7, 3, 17, 0.01, 0.08, f32)
    B = vals((350, 300), 5, 11, 13, 0.01, 0.06, f32)
    C = vals((350, 500), 3, 13, 11, 0.01, 0.05, f32)
    ms, D = bench.best_of(reps, lambda: A @ B.T @ C)
    return ms, (D[3, 5], D[399, 499])


@variant("dist_f64_sqrt", "fusable", """
// Euclidean distances (not squared) in 16 dimensions, f64, written as a product of differences.
let P[a in 0..1500, c in 0..16] = ((a * 7 + c * 3) % 17) as f64 * 0.1 - 0.8;
let R[b in 0..1200, c in 0..16] = ((b * 5 + c * 11) % 13) as f64 * 0.1 - 0.6;
// bench: begin
let d[a, b] = std::math::sqrt(sum[c]((P[a, c] - R[b, c]) * (P[a, c] - R[b, c])));
// bench: end
print(d[3, 5], d[1400, 1100]);
""")
def np_dist(reps):
    P = vals((1500, 16), 7, 3, 17, 0.1, 0.8, f64)
    R = vals((1200, 16), 5, 11, 13, 0.1, 0.6, f64)
    ms, D = bench.best_of(reps, lambda: np.sqrt(np.maximum(
        (P * P).sum(1)[:, None] + (R * R).sum(1)[None, :] - 2.0 * (P @ R.T), 0.0)))
    return ms, (D[3, 5], D[1400, 1100])


@variant("transpose_f64_mix", "fusable", """
// Antisymmetric part with a scale, f64, 3000^2.
let A[i in 0..3000, j in 0..3000] = ((i * 7 + j * 3) % 17) as f64 * 0.1 - 0.8;
// bench: begin
let S[i, j] = 0.5 * (A[i, j] - A[j, i]);
// bench: end
print(S[3, 5], S[2900, 17]);
""")
def np_transpose(reps):
    A = vals((3000, 3000), 7, 3, 17, 0.1, 0.8, f64)
    ms, S = bench.best_of(reps, lambda: 0.5 * (A - A.T))
    return ms, (S[3, 5], S[2900, 17])


@variant("stencil9_f64", "fusable", """
// 9-point box blur on a 1500^2 f64 image (boundary stays 0).
let u[i in 0..1500, j in 0..1500] = ((i * 7 + j * 3) % 17) as f64 * 0.1 - 0.8;
// bench: begin
let B[i, j] = (u[i - 1, j - 1] + u[i - 1, j] + u[i - 1, j + 1] + u[i, j - 1] + u[i, j] + u[i, j + 1] + u[i + 1, j - 1] + u[i + 1, j] + u[i + 1, j + 1]) / 9.0;
// bench: end
print(B[3, 5], B[1400, 17]);
""")
def np_stencil9(reps):
    u = vals((1500, 1500), 7, 3, 17, 0.1, 0.8, f64)

    def blur():
        B = np.zeros_like(u)
        acc = np.zeros((1498, 1498))
        for di in (0, 1, 2):
            for dj in (0, 1, 2):
                acc += u[di:di + 1498, dj:dj + 1498]
        B[1:-1, 1:-1] = acc / 9.0
        return B
    ms, B = bench.best_of(reps, blur)
    return ms, (B[3, 5], B[1400, 17])


@variant("layernorm_rows", "fusable", """
// Row-wise layer normalisation of a 2048 x 1024 f32 matrix.
let X[r in 0..2048, c in 0..1024] = ((r * 7 + c * 3) % 17) as f32 * 0.1 - 0.8;
// bench: begin
let mu[r] = sum[c](X[r, c]) / 1024.0;
let var[r] = sum[c]((X[r, c] - mu[r]) * (X[r, c] - mu[r])) / 1024.0;
let Y[r, c] = (X[r, c] - mu[r]) / std::math::sqrt(var[r] + 0.00001);
// bench: end
print(Y[3, 5], Y[2000, 1000]);
""")
def np_layernorm(reps):
    X = vals((2048, 1024), 7, 3, 17, 0.1, 0.8, f32)

    def ln():
        mu = X.mean(1, keepdims=True)
        var = ((X - mu) ** 2).mean(1, keepdims=True)
        return (X - mu) / np.sqrt(var + f32(1e-5))
    ms, Y = bench.best_of(reps, ln)
    return ms, (Y[3, 5], Y[2000, 1000])


@variant("poly_f64", "fusable", """
// A cubic in Horner form with an intermediate, 2^23 f64.
let x[i in 0..8388608] = (i % 1000) as f64 * 0.001;
// bench: begin
let q[i] = (x[i] * 0.3 + 0.2) * x[i];
let p[i] = (q[i] - 1.5) * x[i] + 2.0;
// bench: end
print(p[12345], p[8388607]);
""")
def np_poly(reps):
    x = (np.arange(8388608) % 1000).astype(f64) * 0.001
    ms, p = bench.best_of(reps, lambda: ((x * 0.3 + 0.2) * x - 1.5) * x + 2.0)
    return ms, (p[12345], p[8388607])


@variant("lstm_like", "recurrence", """
// A recurrence with two contractions per step (state and input), bias, f32, H = 128, T = 800.
let W[j in 0..128, k in 0..128] = ((j * 7 + k * 3) % 17) as f32 * 0.004 - 0.03;
let U[j in 0..128, k in 0..64] = ((j * 5 + k * 11) % 13) as f32 * 0.01 - 0.06;
let x[t in 0..800, k in 0..64] = ((t * 3 + k * 7) % 11) as f32 * 0.05 - 0.25;
let b[j in 0..128] = (j % 7) as f32 * 0.01;
// bench: begin
let h[0, j in 0..128] = 0.0;
let h[t in 1..800, j in 0..128] = std::math::tanh(sum[k](W[j, k] * h[t - 1, k]) + sum[m](U[j, m] * x[t, m]) + b[j]);
// bench: end
print(h[799, 3], h[799, 100]);
""")
def np_lstm_like(reps):
    W = vals((128, 128), 7, 3, 17, 0.004, 0.03, f32)
    U = vals((128, 64), 5, 11, 13, 0.01, 0.06, f32)
    x = vals((800, 64), 3, 7, 11, 0.05, 0.25, f32)
    b = (np.arange(128) % 7).astype(f32) * f32(0.01)

    def run():
        h = np.zeros(128, f32)
        for t in range(1, 800):
            h = np.tanh(W @ h + U @ x[t] + b)
        return h
    ms, h = bench.best_of(reps, run)
    return ms, (h[3], h[100])


@variant("minplus_f64", "recurrence", """
// Min-plus relaxation (shortest paths with at most t edges), 300 nodes, 300 steps, f64.
let A[p in 0..300, s in 0..300] = ((p * 7 + s * 3) % 17) as f64 * 0.1 + 0.1;
// bench: begin
let D[0, s in 0..300] = ((s * 5) % 13) as f64;
let D[t in 1..300, s in 0..300] = min[p](D[t - 1, p] + A[p, s]);
// bench: end
print(D[299, 3], D[299, 250]);
""")
def np_minplus(reps):
    A = vals((300, 300), 7, 3, 17, 0.1, -0.1, f64)
    d0 = (np.arange(300) * 5 % 13).astype(f64)

    def run():
        D = d0.copy()
        for _ in range(1, 300):
            D = (D[:, None] + A).min(axis=0)
        return D
    ms, D = bench.best_of(reps, run)
    return ms, (D[3], D[250])


# ---- session 8: more everyday programs, written before looking at what the generator does ----

@variant("chain_scaled_bias", "contraction", """
// A matrix chain inside a larger expression: scaled, plus a bias row, f32.
let A[i in 0..400, k in 0..300] = ((i * 7 + k * 3) % 17) as f32 * 0.01 - 0.08;
let B[k in 0..300, l in 0..350] = ((k * 5 + l * 11) % 13) as f32 * 0.01 - 0.06;
let C[l in 0..350, j in 0..500] = ((l * 3 + j * 13) % 11) as f32 * 0.01 - 0.05;
let e[j in 0..500] = (j % 5) as f32 * 0.1;
// bench: begin
let D[i, j] = 0.5 * sum[k, l](A[i, k] * B[k, l] * C[l, j]) + e[j];
// bench: end
print(D[3, 5], D[399, 499]);
""")
def np_chain_scaled_bias(reps):
    A = vals((400, 300), 7, 3, 17, 0.01, 0.08, f32)
    B = vals((300, 350), 5, 11, 13, 0.01, 0.06, f32)
    C = vals((350, 500), 3, 13, 11, 0.01, 0.05, f32)
    e = (np.arange(500) % 5).astype(f32) * f32(0.1)
    ms, D = bench.best_of(reps, lambda: f32(0.5) * (A @ B @ C) + e)
    return ms, (D[3, 5], D[399, 499])


@variant("sandwich_f64", "contraction", """
// A basis change Gᵀ T G (a 2-D rotation), f64, 600^2.
let G[a in 0..600, i in 0..600] = ((a * 7 + i * 3) % 17) as f64 * 0.01 - 0.08;
let T[a in 0..600, b in 0..600] = ((a * 5 + b * 11) % 13) as f64 * 0.01 - 0.06;
// bench: begin
let R[i, j] = sum[a, b](G[a, i] * T[a, b] * G[b, j]);
// bench: end
print(R[3, 5], R[599, 17]);
""")
def np_sandwich(reps):
    G = vals((600, 600), 7, 3, 17, 0.01, 0.08, f64)
    T = vals((600, 600), 5, 11, 13, 0.01, 0.06, f64)
    ms, R = bench.best_of(reps, lambda: G.T @ T @ G)
    return ms, (R[3, 5], R[599, 17])


@variant("chain_to_vector", "contraction", """
// A matrix-matrix-vector chain: the order (B x) first makes it two GEMVs, f32.
let A[i in 0..2000, j in 0..1500] = ((i * 7 + j * 3) % 17) as f32 * 0.01 - 0.08;
let B[j in 0..1500, k in 0..1800] = ((j * 5 + k * 11) % 13) as f32 * 0.01 - 0.06;
let x[k in 0..1800] = (k % 7) as f32 * 0.1 - 0.3;
// bench: begin
let y[i] = sum[j, k](A[i, j] * B[j, k] * x[k]);
// bench: end
print(y[3], y[1999]);
""")
def np_chain_vec(reps):
    A = vals((2000, 1500), 7, 3, 17, 0.01, 0.08, f32)
    B = vals((1500, 1800), 5, 11, 13, 0.01, 0.06, f32)
    x = (np.arange(1800) % 7).astype(f32) * f32(0.1) - f32(0.3)
    ms, y = bench.best_of(reps, lambda: A @ (B @ x))
    return ms, (y[3], y[1999])


@variant("gram_f32", "contraction", """
// A Gram matrix Xᵀ X (the same tensor on both sides, transposed), f32.
let X[s in 0..2000, f in 0..512] = ((s * 7 + f * 3) % 17) as f32 * 0.01 - 0.08;
// bench: begin
let G[f, g] = sum[s](X[s, f] * X[s, g]) / 2000.0;
// bench: end
print(G[3, 5], G[511, 17]);
""")
def np_gram(reps):
    X = vals((2000, 512), 7, 3, 17, 0.01, 0.08, f32)
    ms, G = bench.best_of(reps, lambda: (X.T @ X) / f32(2000.0))
    return ms, (G[3, 5], G[511, 17])


@variant("bmm_mid_batch_gelu", "contraction", """
// Heads in the middle axis of the input (X[t, h, e]), per-head weights, a tanh-GELU epilogue, f32.
let X[t in 0..512, h in 0..8, e in 0..64] = ((t * 3 + h * 7 + e * 5) % 17) as f32 * 0.1 - 0.8;
let W[h in 0..8, e in 0..64, o in 0..128] = ((h * 5 + e * 3 + o * 11) % 13) as f32 * 0.01 - 0.06;
// bench: begin
let Y[h, t, o] = {
  let z = sum[e](X[t, h, e] * W[h, e, o]);
  0.5 * z * (1.0 + std::math::tanh(0.7978846 * (z + 0.044715 * z * z * z)))
};
// bench: end
print(Y[3, 5, 7], Y[7, 500, 100]);
""")
def np_bmm_mid(reps):
    t, h, e = grid(512, 8, 64)
    X = ((t * 3 + h * 7 + e * 5) % 17).astype(f32) * f32(0.1) - f32(0.8)
    h, e, o = grid(8, 64, 128)
    W = ((h * 5 + e * 3 + o * 11) % 13).astype(f32) * f32(0.01) - f32(0.06)

    def run():
        z = X.transpose(1, 0, 2) @ W
        return f32(0.5) * z * (f32(1.0) + np.tanh(f32(0.7978846) * (z + f32(0.044715) * z * z * z)))
    ms, Y = bench.best_of(reps, run)
    return ms, (Y[3, 5, 7], Y[7, 500, 100])


@variant("rbf_f64", "fusable", """
// A Gaussian (RBF) kernel matrix: exp of scaled squared distances, 32 features, f64.
let X[i in 0..1500, c in 0..32] = ((i * 7 + c * 3) % 17) as f64 * 0.1 - 0.8;
let Y[j in 0..1000, c in 0..32] = ((j * 5 + c * 11) % 13) as f64 * 0.1 - 0.6;
// bench: begin
let K[i, j] = std::math::exp(-0.5 * sum[c]((X[i, c] - Y[j, c]) ** 2));
// bench: end
print(K[3, 5], K[1400, 900]);
""")
def np_rbf(reps):
    X = vals((1500, 32), 7, 3, 17, 0.1, 0.8, f64)
    Y = vals((1000, 32), 5, 11, 13, 0.1, 0.6, f64)
    ms, K = bench.best_of(reps, lambda: np.exp(-0.5 * np.maximum(
        (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2.0 * (X @ Y.T), 0.0)))
    return ms, (K[3, 5], K[1400, 900])


@variant("rnn_f64_wt_fn", "recurrence", """
// An RNN in f64 whose weights are stored [in, out] and whose cell is a user function, H = 384.
fn cell(z) { std::math::tanh(z) }
let W[k in 0..384, j in 0..384] = ((k * 7 + j * 3) % 17) as f64 * 0.002 - 0.016;
let x[t in 0..600, j in 0..384] = ((t * 3 + j * 7) % 11) as f64 * 0.05 - 0.25;
// bench: begin
let h[0, j in 0..384] = 0.0;
let h[t in 1..600, j in 0..384] = cell(sum[k](h[t - 1, k] * W[k, j]) + x[t, j]);
// bench: end
print(h[599, 3], h[599, 300]);
""")
def np_rnn_wt(reps):
    W = vals((384, 384), 7, 3, 17, 0.002, 0.016, f64)
    x = vals((600, 384), 3, 7, 11, 0.05, 0.25, f64)

    def run():
        h = np.zeros(384)
        for t in range(1, 600):
            h = np.tanh(h @ W + x[t])
        return h
    ms, h = bench.best_of(reps, run)
    return ms, (h[3], h[300])


@variant("laplace3d_f32", "fusable", """
// 7-point Laplacian on a 192^3 f32 grid.
let u[i in 0..192, j in 0..192, k in 0..192] = ((i * 7 + j * 3 + k * 5) % 17) as f32 * 0.1 - 0.8;
// bench: begin
let L[i, j, k] = u[i - 1, j, k] + u[i + 1, j, k] + u[i, j - 1, k] + u[i, j + 1, k] + u[i, j, k - 1] + u[i, j, k + 1] - 6.0 * u[i, j, k];
// bench: end
print(L[3, 5, 7], L[190, 17, 100]);
""")
def np_laplace3d(reps):
    i, j, k = grid(192, 192, 192)
    u = ((i * 7 + j * 3 + k * 5) % 17).astype(f32) * f32(0.1) - f32(0.8)

    def run():
        L = np.zeros_like(u)
        c = u[1:-1, 1:-1, 1:-1]
        L[1:-1, 1:-1, 1:-1] = (u[:-2, 1:-1, 1:-1] + u[2:, 1:-1, 1:-1] + u[1:-1, :-2, 1:-1] + u[1:-1, 2:, 1:-1]
                               + u[1:-1, 1:-1, :-2] + u[1:-1, 1:-1, 2:] - f32(6.0) * c)
        return L
    ms, L = bench.best_of(reps, run)
    return ms, (L[3, 5, 7], L[190, 17, 100])


@variant("transpose_add_f32", "fusable", """
// Symmetrising with a weight, f32 4000^2: C = A + 0.5 Aᵀ.
let A[i in 0..4000, j in 0..4000] = ((i * 7 + j * 3) % 17) as f32 * 0.1 - 0.8;
// bench: begin
let C[i, j] = A[i, j] + 0.5 * A[j, i];
// bench: end
print(C[3, 5], C[3900, 17]);
""")
def np_transpose_add(reps):
    A = vals((4000, 4000), 7, 3, 17, 0.1, 0.8, f32)
    ms, C = bench.best_of(reps, lambda: A + f32(0.5) * A.T)
    return ms, (C[3, 5], C[3900, 17])


# ---- session 9: more everyday programs of the classes, not in the benchmark ----

@variant("cosine_sim", "contraction", """
// Cosine similarity of 1500 queries against 2000 keys in 96 dimensions, f32: a GEMM whose
// epilogue divides by two norm vectors computed in the same program.
let A[i in 0..1500, k in 0..96] = ((i * 7 + k * 3) % 17) as f32 * 0.1 - 0.8;
let B[j in 0..2000, k in 0..96] = ((j * 5 + k * 11) % 13) as f32 * 0.1 - 0.6;
// bench: begin
let na[i] = std::math::sqrt(sum[k](A[i, k] * A[i, k]));
let nb[j] = std::math::sqrt(sum[k](B[j, k] * B[j, k]));
let C[i, j] = sum[k](A[i, k] * B[j, k]) / (na[i] * nb[j] + 0.000001);
// bench: end
print(C[3, 5], C[1400, 1900]);
""")
def np_cosine(reps):
    A = vals((1500, 96), 7, 3, 17, 0.1, 0.8, f32)
    B = vals((2000, 96), 5, 11, 13, 0.1, 0.6, f32)

    def run():
        na = np.sqrt((A * A).sum(1))
        nb = np.sqrt((B * B).sum(1))
        return (A @ B.T) / (na[:, None] * nb[None, :] + f32(1e-6))
    ms, C = bench.best_of(reps, run)
    return ms, (C[3, 5], C[1400, 1900])


@variant("bilinear_batch", "contraction", """
// A bilinear form per sample, x_b^T A y_b, for 4000 samples of width 256, f64 (three factors
// with a batch axis: A y first is one GEMM, then a row-wise dot product).
let X[b in 0..4000, i in 0..256] = ((b * 7 + i * 3) % 17) as f64 * 0.1 - 0.8;
let Y[b in 0..4000, j in 0..256] = ((b * 5 + j * 11) % 13) as f64 * 0.1 - 0.6;
let A[i in 0..256, j in 0..256] = ((i * 3 + j * 13) % 11) as f64 * 0.01 - 0.05;
// bench: begin
let s[b] = sum[i, j](X[b, i] * A[i, j] * Y[b, j]);
// bench: end
print(s[3], s[3999]);
""")
def np_bilinear(reps):
    X = vals((4000, 256), 7, 3, 17, 0.1, 0.8, f64)
    Y = vals((4000, 256), 5, 11, 13, 0.1, 0.6, f64)
    A = vals((256, 256), 3, 13, 11, 0.01, 0.05, f64)
    ms, s = bench.best_of(reps, lambda: ((X @ A) * Y).sum(1))
    return ms, (s[3], s[3999])


@variant("conv1d_channels", "contraction", """
// A 1-D convolution with 64 input and 128 output channels, width 7, over 4096 steps, bias and
// ReLU, f32 (what a speech front end does; NumPy: im2col + one GEMM).
let x[c in 0..64, t in 0..4102] = ((c * 7 + t * 3) % 17) as f32 * 0.1 - 0.8;
let W[o in 0..128, c in 0..64, k in 0..7] = ((o * 5 + c * 3 + k * 11) % 13) as f32 * 0.01 - 0.06;
let bias[o in 0..128] = (o % 7) as f32 * 0.1 - 0.3;
// bench: begin
let y[o, t in 0..4096] = std::math::max(sum[c, k](W[o, c, k] * x[c, t + k]) + bias[o], 0.0);
// bench: end
print(y[3, 5], y[127, 4000]);
""")
def np_conv1d(reps):
    x = vals((64, 4102), 7, 3, 17, 0.1, 0.8, f32)
    o, c, k = grid(128, 64, 7)
    W = ((o * 5 + c * 3 + k * 11) % 13).astype(f32) * f32(0.01) - f32(0.06)
    b = (np.arange(128) % 7).astype(f32) * f32(0.1) - f32(0.3)

    def run():
        cols = np.lib.stride_tricks.sliding_window_view(x, 7, axis=1)[:, :4096]  # [c, t, k]
        cols = cols.transpose(0, 2, 1).reshape(64 * 7, 4096)
        return np.maximum(W.reshape(128, 64 * 7) @ cols + b[:, None], f32(0.0))
    ms, y = bench.best_of(reps, run)
    return ms, (y[3, 5], y[127, 4000])


@variant("logsumexp_rows", "fusable", """
// Numerically stable log-sum-exp of each row (a cross-entropy denominator), 4096 x 1000 f32.
let Z[r in 0..4096, c in 0..1000] = ((r * 7 + c * 3) % 17) as f32 * 0.3 - 2.4;
// bench: begin
let mx[r] = max[c](Z[r, c]);
let lse[r] = mx[r] + std::math::log(sum[c](std::math::exp(Z[r, c] - mx[r])));
// bench: end
print(lse[3], lse[4000]);
""")
def np_logsumexp(reps):
    Z = vals((4096, 1000), 7, 3, 17, 0.3, 2.4, f32)

    def run():
        mx = Z.max(1)
        return mx + np.log(np.exp(Z - mx[:, None]).sum(1))
    ms, l = bench.best_of(reps, run)
    return ms, (l[3], l[4000])


@variant("manhattan_f32", "fusable", """
// L1 (Manhattan) distances between 1024 and 1536 points in 48 dimensions, f32.
let P[i in 0..1024, k in 0..48] = ((i * 7 + k * 3) % 17) as f32 * 0.1 - 0.8;
let Q[j in 0..1536, k in 0..48] = ((j * 5 + k * 11) % 13) as f32 * 0.1 - 0.6;
// bench: begin
let D[i, j] = sum[k](std::math::abs(P[i, k] - Q[j, k]));
// bench: end
print(D[3, 5], D[1000, 1500]);
""")
def np_manhattan(reps):
    P = vals((1024, 48), 7, 3, 17, 0.1, 0.8, f32)
    Q = vals((1536, 48), 5, 11, 13, 0.1, 0.6, f32)

    def run():  # in row blocks, as one would to keep the [i, j, k] temporary small
        D = np.empty((1024, 1536), f32)
        for s in range(0, 1024, 64):
            D[s:s + 64] = np.abs(P[s:s + 64, None, :] - Q[None, :, :]).sum(2)
        return D
    ms, D = bench.best_of(reps, run)
    return ms, (D[3, 5], D[1000, 1500])


@variant("correlation_31tap", "fusable", """
// A 31-tap FIR filter (correlation) over 10^6 samples, f32.
let x[t in 0..1000030] = ((t * 7) % 17) as f32 * 0.1 - 0.8;
let w[k in 0..31] = ((k * 5) % 13) as f32 * 0.01 - 0.06;
// bench: begin
let y[i] = sum[k](w[k] * x[i + k]);
// bench: end
print(y[3], y[999999]);
""")
def np_correlation(reps):
    x = ((np.arange(1000030) * 7) % 17).astype(f32) * f32(0.1) - f32(0.8)
    w = ((np.arange(31) * 5) % 13).astype(f32) * f32(0.01) - f32(0.06)
    ms, y = bench.best_of(reps, lambda: np.correlate(x, w, mode="valid"))
    return ms, (y[3], y[999999])


@variant("embedding_rows", "memory", """
// An embedding lookup: 20000 rows of 256 picked from a 50000-row table by an index vector, f32.
let T[v in 0..50000, d in 0..256] = ((v * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;
let idx[n in 0..20000] = (n * 7919) % 50000;
let nidx = sum[n](idx[n]);
// bench: begin
let y[n, d] = T[idx[n], d];
// bench: end
print(y[3, 5], y[19999, 17], nidx);
""")
def np_embedding(reps):
    T = vals((50000, 256), 7, 3, 17, 0.1, 0.8, f32)
    idx = (np.arange(20000) * 7919) % 50000
    ms, y = bench.best_of(reps, lambda: T[idx])
    return ms, (y[3, 5], y[19999, 17], idx.sum())


@variant("batch_sum_narrow", "memory", """
// A sum over the leading (batch) axis of 2000 x 64 x 64 f32: one pass over 32 MiB in NumPy too.
let x[b in 0..2000, i in 0..64, j in 0..64] = ((b * 7 + i * 3 + j) % 17) as f32 * 0.1 - 0.8;
// bench: begin
let s[i, j] = sum[b](x[b, i, j]);
// bench: end
print(s[3, 5], s[50, 17]);
""")
def np_batch_sum(reps):
    b, i, j = np.indices((2000, 64, 64))
    x = ((b * 7 + i * 3 + j) % 17).astype(f32) * f32(0.1) - f32(0.8)
    ms, s = bench.best_of(reps, lambda: x.sum(0))
    return ms, (s[3, 5], s[50, 17])


@variant("xent_label_pick", "fusable", """
// Softmax cross-entropy per sample with the target logit picked by label, 8192 x 512 f32.
let Z[n in 0..8192, c in 0..512] = ((n * 7 + c * 3) % 17) as f32 * 0.3 - 2.4;
let label[n in 0..8192] = (n * 13) % 512;
let nl = sum[n](label[n]);
// bench: begin
let mx[n] = max[c](Z[n, c]);
let loss[n] = mx[n] + std::math::log(sum[c](std::math::exp(Z[n, c] - mx[n]))) - Z[n, label[n]];
// bench: end
print(loss[3], loss[8000], nl);
""")
def np_xent(reps):
    Z = vals((8192, 512), 7, 3, 17, 0.3, 2.4, f32)
    label = (np.arange(8192) * 13) % 512

    def run():
        mx = Z.max(1)
        return mx + np.log(np.exp(Z - mx[:, None]).sum(1)) - Z[np.arange(8192), label]
    ms, l = bench.best_of(reps, run)
    return ms, (l[3], l[8000], label.sum())


@variant("sum_squares_all", "memory", """
// The sum of squares of a whole 4096 x 4096 f32 array (a Frobenius norm squared).
let X[i in 0..4096, j in 0..4096] = ((i * 7 + j * 3) % 17) as f32 * 0.1 - 0.8;
// bench: begin
let s = sum[i, j](X[i, j] * X[i, j]);
// bench: end
print(s);
""")
def np_sum_squares(reps):
    X = vals((4096, 4096), 7, 3, 17, 0.1, 0.8, f32)
    ms, s = bench.best_of(reps, lambda: np.vdot(X, X))
    return ms, (s,)


@variant("histogram_weighted", "memory", """
// A weighted 512-bin histogram of 10^6 samples, f32 weights (NumPy: bincount).
let label[n in 0..1000000] = (n * 7919 + 13) % 512;
let w[n in 0..1000000] = ((n * 7) % 13) as f32 * 0.1;
let nl = sum[n](label[n]);
// bench: begin
let h[c in 0..512] = sum[n](w[n] where label[n] == c else 0.0);
// bench: end
print(h[3], h[511], nl);
""")
def np_histogram(reps):
    n = np.arange(1000000, dtype=np.int64)
    label = np.fmod((n * 7919 + 13).astype(np.int32), 512)  # ein's i32 arithmetic wraps
    w = ((n * 7) % 13).astype(f32) * f32(0.1)
    ok = label >= 0  # negative labels match no bin in ein; dropped outside the timed region
    lab, wt = label[ok], w[ok]
    ms, h = bench.best_of(reps, lambda: np.bincount(lab, weights=wt, minlength=512))
    return ms, (h[3], h[511], label.sum())


# memory: one pass over memory in NumPy as in ein (a gather, a reduction of a whole axis), so
# parity is the bound.
TARGET = {"contraction": 1.1, "fusable": 0.5, "recurrence": 1.0, "memory": 1.1}


def main(programs=None):
    """Times `programs` (default: the variants above); probes.py passes its own list."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(bench.ROOT, "build", "ein"))
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("-k", default="")
    ap.add_argument("--numpy-blas-as-installed", action="store_true", help="as in run.py")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ein-variants-")
    env = dict(os.environ, EIN_CACHE_DIR=os.path.join(tmp, "cache"), EIN_JIT="auto")
    rows = []
    for name, klass, src, np_fn in (V if programs is None else programs):
        if args.k not in name:
            continue
        path = os.path.join(tmp, name + ".ein")
        with open(path, "w") as f:
            f.write(src.lstrip("\n"))
        prog, first, measured = bench.with_warmup(path, tmp)
        try:
            bench.run_ein(args.ein, prog, [first, measured], env)  # cold: compiles
            runs = [bench.run_ein(args.ein, prog, [first, measured], env) for _ in range(args.reps)]
        except RuntimeError as e:
            print(f"{name:20s} ein FAILED: {str(e).splitlines()[-1]}", flush=True)
            rows.append((name, klass, float("nan"), float("nan"), "failed"))
            continue
        ein_ms = min(r[0][1] for r in runs)
        np_ms, np_check = np_fn(args.reps)
        ok = bench.close(tuple(bench.numbers(runs[0][2])), tuple(float(v) for v in np_check))
        ratio = ein_ms / np_ms
        met = "yes" if ratio <= TARGET[klass] else "**no**"
        if not ok:
            met += " (CHECKSUM MISMATCH)"
        rows.append((name, klass, ein_ms, np_ms, met))
        print(f"{name:20s} {klass:12s} ein {bench.fmt(ein_ms):>8} ms  numpy {bench.fmt(np_ms):>8} ms  "
              f"ein/numpy {ratio:.2f}  target ≤ {TARGET[klass]}  {met}", flush=True)
    print("\n| variant | class | ein ms | NumPy ms | ein/NumPy | target | met |\n|---|---|---:|---:|---:|---|---|")
    for name, klass, e, n, met in rows:
        print(f"| {name} | {klass} | {bench.fmt(e)} | {bench.fmt(n)} | {e / n:.2f} | ≤ {TARGET[klass]} × NumPy | {met} |")
    print(f"\nOpenBLAS kernels: {bench.blas_cores()}.")
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
