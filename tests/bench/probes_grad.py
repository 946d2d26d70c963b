#!/usr/bin/env python3
"""Gradient probes (issue 14, session 15): the gradients of everyday losses, each timed against
the textbook NumPy gradient written by hand (forward pass, then the backward pass a careful
person writes: shared terms computed once, no autodiff library). The ein region is the forward
statements and the `@loss / @param` requests; the NumPy function computes the loss and the same
gradients. Same driver, table and targets as probes.py (contraction-shaped ≤ 1.1 × NumPy).

Usage: PYENV_VERSION=system python3 tests/bench/probes_grad.py [--ein build/ein] [--reps 5] [-k NAME]
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


@probe("mse_linear_grad", "contraction", """
// Mean squared error of a linear layer (20000 x 64 -> 16, f32): gradients of the weights and bias.
let X[n in 0..20000, d in 0..64] = ((n * 7 + d * 3) % 23) as f32 * 0.1 - 1.0;
let Y[n in 0..20000, o in 0..16] = ((n * 5 + o * 11) % 17) as f32 * 0.1 - 0.8;
let W[d in 0..64, o in 0..16] = ((d * 3 + o * 7) % 13) as f32 * 0.01 - 0.06;
let b[o in 0..16] = (o % 5) as f32 * 0.1 - 0.2;
// bench: begin
let R[n, o] = sum[d](X[n, d] * W[d, o]) + b[o] - Y[n, o];
let loss = sum[n, o](R[n, o] * R[n, o]) / 20000.0;
let gW = @loss / @W;
let gb = @loss / @b;
// bench: end
print(loss, gW[3, 5], gW[63, 15], gb[7]);
""")
def np_mse_linear(reps):
    X = vals((20000, 64), 7, 3, 23, 0.1, 1.0, f32)
    Y = vals((20000, 16), 5, 11, 17, 0.1, 0.8, f32)
    W = vals((64, 16), 3, 7, 13, 0.01, 0.06, f32)
    b = (np.arange(16) % 5).astype(f32) * f32(0.1) - f32(0.2)

    def f():
        R = X @ W + b - Y
        loss = (R * R).sum() / f32(20000)
        G = R * f32(2.0 / 20000)
        return loss, X.T @ G, G.sum(0)
    ms, (loss, gW, gb) = bench.best_of(reps, f)
    return ms, (loss, gW[3, 5], gW[63, 15], gb[7])


@probe("logreg_grad", "contraction", """
// Logistic regression, mean binary cross-entropy of 50000 samples x 32 features, f32: the
// gradient of the weights and the bias.
use std::math::{exp, log};
let X[n in 0..50000, d in 0..32] = ((n * 7 + d * 3) % 23) as f32 * 0.1 - 1.0;
let y[n in 0..50000] = ((n * 13) % 7 < 3) as f32;
let w[d in 0..32] = ((d * 5) % 11) as f32 * 0.02 - 0.1;
let b = 0.1;
// bench: begin
let z[n] = sum[d](X[n, d] * w[d]) + b;
let p[n] = 1.0 / (1.0 + exp(-z[n]));
let loss = -sum[n](y[n] * log(p[n]) + (1.0 - y[n]) * log(1.0 - p[n])) / 50000.0;
let gw = @loss / @w;
// bench: end
print(loss, gw[0], gw[31]);
""")
def np_logreg(reps):
    X = vals((50000, 32), 7, 3, 23, 0.1, 1.0, f32)
    y = ((np.arange(50000) * 13) % 7 < 3).astype(f32)
    w = ((np.arange(32) * 5) % 11).astype(f32) * f32(0.02) - f32(0.1)

    def f():
        p = f32(1.0) / (f32(1.0) + np.exp(-(X @ w + f32(0.1))))
        loss = -(y * np.log(p) + (f32(1.0) - y) * np.log(f32(1.0) - p)).sum() / f32(50000)
        return loss, X.T @ ((p - y) / f32(50000))
    ms, (loss, gw) = bench.best_of(reps, f)
    return ms, (loss, gw[0], gw[31])


@probe("softmax_reg_l2_grad", "contraction", """
// Softmax regression with an L2 penalty: 20000 samples x 64 features -> 10 classes, f32; the
// gradient of the weights.
use std::math::{exp, log};
let X[n in 0..20000, d in 0..64] = ((n * 7 + d * 3) % 23) as f32 * 0.1 - 1.0;
let y[n in 0..20000] = (n * 3) % 10;
let W[d in 0..64, c in 0..10] = ((d * 3 + c * 7) % 13) as f32 * 0.01 - 0.06;
// bench: begin
let Z[n, c] = sum[d](X[n, d] * W[d, c]);
let m[n] = max[c](Z[n, c]);
let lse[n] = log(sum[c](exp(Z[n, c] - m[n]))) + m[n];
let loss = sum[n](lse[n] - Z[n, y[n]]) / 20000.0 + 0.001 * sum[d, c](W[d, c] * W[d, c]);
let gW = @loss / @W;
// bench: end
print(loss, gW[3, 5], gW[63, 9]);
""")
def np_softmax_reg(reps):
    X = vals((20000, 64), 7, 3, 23, 0.1, 1.0, f32)
    y = (np.arange(20000) * 3) % 10
    W = vals((64, 10), 3, 7, 13, 0.01, 0.06, f32)
    rows = np.arange(20000)

    def f():
        Z = X @ W
        m = Z.max(1, keepdims=True)
        e = np.exp(Z - m)
        s = e.sum(1, keepdims=True)
        loss = (np.log(s[:, 0]) + m[:, 0] - Z[rows, y]).sum() / f32(20000) + f32(0.001) * (W * W).sum()
        G = e / s
        G[rows, y] -= f32(1.0)
        return loss, X.T @ (G / f32(20000)) + f32(0.002) * W
    ms, (loss, gW) = bench.best_of(reps, f)
    return ms, (loss, gW[3, 5], gW[63, 9])


@probe("mlp_tanh_grad", "contraction", """
// A two-layer MLP with tanh, 4096 x 64 -> 128 -> 10, mean squared error, f32: gradients of
// both weight matrices.
use std::math::tanh;
let X[n in 0..4096, d in 0..64] = ((n * 7 + d * 3) % 23) as f32 * 0.1 - 1.0;
let Y[n in 0..4096, o in 0..10] = ((n * 5 + o * 11) % 17) as f32 * 0.1 - 0.8;
let W1[d in 0..64, h in 0..128] = ((d * 3 + h * 7) % 13) as f32 * 0.01 - 0.06;
let W2[h in 0..128, o in 0..10] = ((h * 5 + o * 3) % 11) as f32 * 0.02 - 0.1;
// bench: begin
let H[n, h] = tanh(sum[d](X[n, d] * W1[d, h]));
let R[n, o] = sum[h](H[n, h] * W2[h, o]) - Y[n, o];
let loss = sum[n, o](R[n, o] * R[n, o]) / 4096.0;
let g1 = @loss / @W1;
let g2 = @loss / @W2;
// bench: end
print(loss, g1[3, 5], g1[63, 127], g2[7, 9]);
""")
def np_mlp_tanh(reps):
    X = vals((4096, 64), 7, 3, 23, 0.1, 1.0, f32)
    Y = vals((4096, 10), 5, 11, 17, 0.1, 0.8, f32)
    W1 = vals((64, 128), 3, 7, 13, 0.01, 0.06, f32)
    W2 = vals((128, 10), 5, 3, 11, 0.02, 0.1, f32)

    def f():
        H = np.tanh(X @ W1)
        R = H @ W2 - Y
        loss = (R * R).sum() / f32(4096)
        dR = R * f32(2.0 / 4096)
        dH = (dR @ W2.T) * (f32(1.0) - H * H)
        return loss, X.T @ dH, H.T @ dR
    ms, (loss, g1, g2) = bench.best_of(reps, f)
    return ms, (loss, g1[3, 5], g1[63, 127], g2[7, 9])


if __name__ == "__main__":
    variants.main(P)
