"""Whole programs written the way analysts and model authors write them, with every printed
value recomputed by NumPy (np.linalg.solve, np.convolve, np.einsum, finite differences of the
NumPy forward pass): a regression with preprocessing and residual statistics, and an attention
layer whose fused q/k/v projection is split and contracted with einsum, differentiated."""
from math import erf

import numpy as np

from common import TestFile

X = [[1.0, 2.0, 0.5], [2.0, 0.0, 1.5], [3.0, 1.0, -0.5], [4.0, 3.0, 2.0], [5.0, -1.0, 0.0], [6.0, 2.5, 1.0]]
Y = [1.5, 2.0, 2.7, 5.1, 4.2, 6.3]


def regression():
    t = TestFile("programs/ridge_regression.ein", "preprocessing and ridge regression: column means and "
                 "deviations, a correlation matrix, solve, residuals sorted / ranked / accumulated, topk, "
                 "a smoothing conv with edge pads, pad, flip, axis reductions",
                 uses=["std::ml::*", "std::math::sqrt", "std::array::{sort, argsort, mean_axis, sum_axis, max_axis}"])
    x = t.let("X", np.array(X), "f64")
    y = t.let("y", np.array(Y), "f64")
    t.raw("let mu = mean_axis(X, 0);",
          "let sd[j] = sqrt(sum[i]((X[i, j] - mu[j]) * (X[i, j] - mu[j])) / 6.0);",
          "let Z[i, j] = (X[i, j] - mu[j]) / sd[j];")
    z = (x - x.mean(0)) / x.std(0)
    t.check("Z", z, "f64")
    t.raw("let C = matmul(transpose(Z), Z);")
    t.check("C", z.T @ z, "f64")
    t.raw("let A[i, j] = C[i, j] + (if i == j { 0.1 } else { 0.0 });", "let b = matmul(transpose(Z), y);",
          "let w = solve(A, b);")
    w = np.linalg.solve(z.T @ z + 0.1 * np.eye(3), z.T @ y)
    t.check("w", w, "f64")
    r = y - z @ w
    t.raw("let res[i] = y[i] - matmul(Z, w)[i];")
    t.check("sort(res)", np.sort(r), "f64")
    t.check("argsort(res)", np.argsort(r, kind="stable"), "i32")
    t.check("cumsum(res)", np.cumsum(r), "f64")
    top = np.argsort(-r, kind="stable")[:2]
    t.raw("let (tv, ti) = topk(res, 2, 0);")
    t.check("tv", r[top], "f64")
    t.check("ti", top, "i32")
    t.raw("let k3: [f64; 1, 1, 3] = [[[0.25, 0.5, 0.25]]];",
          "let smooth = conv(reshape(y, [1, 1, 6]), k3, [0.0], [1], [1, 1], [1], 1);")
    t.check("smooth", np.convolve(np.pad(y, 1), [0.25, 0.5, 0.25], "valid").reshape(1, 1, 6), "f64")
    t.check("pad(y, [2, 1], 0.0)", np.pad(y, (2, 1)), "f64")
    t.check("flip(y)", y[::-1], "f64")
    t.check("max_axis(X, 1)", x.max(1), "f64")
    t.check("sum_axis(X, 0)", x.sum(0), "f64")
    t.write()


XA = [[0.1, -0.2, 0.3, 0.5, -0.1, 0.2], [0.4, 0.1, -0.3, 0.2, 0.0, -0.5], [-0.2, 0.3, 0.1, -0.4, 0.6, 0.1],
      [0.3, 0.3, -0.1, 0.1, -0.2, 0.4]]
WA = [[0.2, -0.1, 0.05, 0.3, -0.2, 0.1], [0.1, 0.2, -0.3, 0.0, 0.1, -0.1], [-0.2, 0.1, 0.2, 0.1, 0.0, 0.3],
      [0.05, -0.05, 0.1, -0.2, 0.3, 0.2], [0.3, 0.0, -0.1, 0.1, 0.2, -0.3], [-0.1, 0.2, 0.1, 0.05, -0.1, 0.0]]


def attention_forward(x, W):
    qkv = x @ W
    q, k, v = qkv[:, :2], qkv[:, 2:4], qkv[:, 4:]
    s = q @ k.T * 0.7071067811865476
    a = np.exp(s - s.max(1, keepdims=True))
    a /= a.sum(1, keepdims=True)
    ctx = a @ v
    h = 0.5 * ctx * (1 + np.vectorize(erf)(ctx / np.sqrt(2)))
    logits = h @ W.T[:2, :3]
    return ctx, logits, (logits ** 2).sum() + a[:, 0].sum()


def attention():
    t = TestFile("programs/attention_split_einsum.ein", "an attention layer: a fused q/k/v projection split "
                 "with literal sizes, einsum scores and context, softmax, layer_normalization, gelu, "
                 "an axis-list squeeze/unsqueeze, and the gradient of a loss in the projection",
                 uses=["std::ml::*"])
    x = t.let("x", np.array(XA), "f64")
    W = t.let("Wqkv", np.array(WA), "f64")
    t.raw("let (q, k, v) = split(matmul(x, Wqkv), [2, 2, 2], 1);",
          'let att = softmax(einsum("id,jd->ij", (q, k)) * 0.7071067811865476);',
          'let ctx = einsum("ij,jd->id", (att, v));')
    ctx, logits, loss = attention_forward(x, W)
    m = ctx.mean(1, keepdims=True)
    var = ((ctx - m) ** 2).mean(1, keepdims=True)
    t.check("layer_normalization(ctx, [1.0, 1.0], [0.0, 0.0], 1e-5, -1)", (ctx - m) / np.sqrt(var + 1e-5), "f64")
    t.raw("let h = gelu(ctx);", "let Wt = squeeze(unsqueeze(transpose(Wqkv), [0]), [0]);",
          "let Wo[a in 0..2, c in 0..3] = Wt[a, c];", "let logits = matmul(h, Wo);")
    t.check("logits", logits, "f64")
    t.raw("let loss = sum[i, j](logits[i, j] * logits[i, j]) + sum[i](att[i, 0]);")
    t.check("loss", loss, "f64")
    g = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        e = np.zeros_like(W)
        e[idx] = 1e-6
        g[idx] = (attention_forward(x, W + e)[2] - attention_forward(x, W - e)[2]) / 2e-6
    t.check("@loss / @Wqkv", g, "f64")
    t.write()


def generate():
    regression()
    attention()
