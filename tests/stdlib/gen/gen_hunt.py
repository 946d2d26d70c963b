"""Programs of the session-17 outside-programs hunt (docs/stdlib-notes.md), kept as tests: axis
= -1 forms on a 3-D f32 tensor, library calls inside user functions and recurrences with their
gradients, and everyday numerics assembled from library calls (a k-means step, power
iteration, a histogram of integer labels, a polynomial fit through solve, a running mean).
Every expected value is NumPy's (loops, np.linalg, central differences). Files under
cases/outside/hunt_*.ein, each run with EIN_JIT=never and always.
"""
import math

import numpy as np

from gen_grad import fd
from gen_select import modes_file


def grad(f, a):
    """Central differences of the scalar f at a (gen_grad.fd with a unit weight)."""
    return fd(lambda a: f(a), {"a": a}, "a", 1.0)


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def axis_forms_file():
    t = modes_file("outside/hunt_axis_forms.ein", "axis = -1 / -2 forms of std::ml and std::array on "
                 "a 3-D f32 tensor", uses=["std::ml::*"])
    x = t.let("x", np.array([[[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [-2.0, 1.0, 0.75, -0.25]],
                             [[1.0, 1.0, -1.0, 0.5], [0.0, 2.5, -3.0, 1.25], [0.5, -0.5, 1.5, 2.0]]],
                            dtype=np.float32), "f32")
    t.check("softmax_axis(x, -1)", softmax(x), "f32")
    t.check("log_softmax_axis(x, -1)", np.log(softmax(x.astype(np.float64))).astype(np.float32), "f32")
    t.check("std::array::mean_axis(x, -1)", x.mean(-1), "f32")
    t.check("std::array::argmax_axis(x, -1)", x.argmax(-1).astype(np.int32), "i32")
    t.check("std::array::max_axis(x, -2)", x.max(-2), "f32")
    t.check("lp_normalization(x, -1, 2)", x / np.sqrt((x * x).sum(-1, keepdims=True)), "f32")
    t.check("lp_normalization(x, -2, 1)", x / np.abs(x).sum(-2, keepdims=True), "f32")
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :2]
    t.check("topk(x, 2, -1).0", np.take_along_axis(x, idx, -1), "f32")
    t.check("topk(x, 2, -1).1", idx.astype(np.int32), "i32")
    t.check("gather(x, [2, 0], -1)", np.take(x, [2, 0], axis=-1), "f32")
    t.check("cumsum(x)", np.cumsum(x, -1), "f32")
    t.check("std::array::concatenate_axis(x, x, -1)[1, 2]", np.concatenate([x, x], -1)[1, 2], "f32")
    m = x.mean(-1, keepdims=True)
    t.check("mean_variance_normalization(x, [-1])", (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-9),
            "f32")
    t.write()


def functions_file():
    t = modes_file("outside/hunt_user_functions.ein", "library calls inside user functions, a scalar "
                 "recurrence and a row recurrence, and gradients through them (f64)", uses=["std::ml::*"])
    X = t.let("X", np.array([[0.5, -1.0, 0.25], [1.5, 0.5, -0.5], [-0.75, 0.25, 1.0], [0.1, 0.2, 0.3]]), "f64")
    Y = t.let("Y", np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]), "f64")
    W = t.let("W", np.array([[0.2, -0.3], [0.1, 0.4], [-0.5, 0.25]]), "f64")
    b = t.let("b", np.array([0.05, -0.1]), "f64")
    t.raw("fn forward(X, W, b) { softmax_axis(add(matmul(X, W), b), -1) }",
          "fn loss(X, W, b, Y) { cross_entropy_loss(forward(X, W, b), Y) }",
          "let L = loss(X, W, b, Y);")

    def loss(W, b):
        return -(Y * np.log(np.maximum(softmax(X @ W + b), 1e-12))).sum() / X.shape[0]
    t.check("L", loss(W, b), "f64")
    t.check("@L / @W", grad(lambda w: loss(w, b), W), "f64")
    t.check("@L / @b", grad(lambda v: loss(W, v), b), "f64")
    t.raw("let s[t in 0..6] = if t == 0 { 0.3 } else { std::math::tanh(2.0 * s[t - 1]) + sigmoid(s[t - 1]) * 0.1 };")
    s = [0.3]
    for _ in range(5):
        s.append(np.tanh(2 * s[-1]) + 0.1 / (1 + np.exp(-s[-1])))
    t.check("s", np.array(s), "f64")
    t.raw("let h[t in 0..4, j in 0..2] = if t == 0 { b[j] } else { relu(sum[k](X[t, k] * W[k, j]) + h[t - 1, j] * 0.5) };",
          "let G = sum[t, j](h[t, j] * h[t, j]);")

    def H(W):
        h = np.zeros((4, 2))
        h[0] = b
        for k in range(1, 4):
            h[k] = np.maximum(X[k] @ W + h[k - 1] * 0.5, 0)
        return h
    t.check("h", H(W), "f64")
    t.check("@G / @W", grad(lambda w: (H(w) ** 2).sum(), W), "f64")
    t.write()


def numerics_file():
    t = modes_file("outside/hunt_numerics.ein", "everyday numerics from library calls: a k-means step, "
                 "power iteration, a histogram of integer labels, a polynomial fit, a running mean",
                 uses=["std::ml::*"])
    t.raw("use std::array::{argmin_axis, sum_axis};")
    P = t.let("P", np.array([[0.0, 0.1], [0.2, -0.1], [5.0, 5.2], [4.8, 5.1], [0.1, 0.0], [5.1, 4.9]]), "f64")
    C = t.let("C", np.array([[0.0, 0.0], [1.0, 1.0]]), "f64")
    t.raw("let d[i, c] = sum[k]((P[i, k] - C[c, k]) ** 2.0);", "let a = argmin_axis(d, -1);",
          "let oh = onehot(a, 2, [0.0, 1.0]);", "let cnt = sum_axis(oh, 0);")
    a = ((P[:, None] - C[None]) ** 2).sum(-1).argmin(-1)
    oh = np.eye(2)[a]
    t.check("a", a.astype(np.int32), "i32")
    t.check("divide(matmul(transpose(oh), P), unsqueeze(cnt, 1))", oh.T @ P / oh.sum(0)[:, None], "f64")
    A = t.let("A", np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]), "f64")
    t.raw("let v[t in 0..30, i in 0..3] = if t == 0 { 1.0 } else { sum[j](A[i, j] * v[t - 1, j]) / "
          "std::math::sqrt(sum[j]((sum[k](A[j, k] * v[t - 1, k])) ** 2.0)) };")
    v = np.ones(3)
    for _ in range(29):
        v = A @ v / np.linalg.norm(A @ v)
    t.check("sum[i, j](v[29, i] * A[i, j] * v[29, j])", v @ A @ v, "f64")
    lab = [2, 0, 1, 2, 2, 1]
    t.raw(f"let labels = {lab};")
    t.check("sum_axis(onehot(labels, 3, [0, 1]), 0)", np.eye(3, dtype=np.int32)[lab].sum(0), "i32")
    x = t.let("xs", np.arange(5.0), "f64")
    y = t.let("ys", np.array([1.0, 2.1, 4.9, 10.2, 16.8]), "f64")
    t.raw("let V[i, p in 0..3] = xs[i] ** (p as f64);")
    V = np.vander(x, 3, increasing=True)
    t.check("solve(matmul(transpose(V), V), matmul(transpose(V), ys))", np.linalg.solve(V.T @ V, V.T @ y), "f64")
    t.raw("let c = cumsum(ys);")
    t.check("[c[i] / ((i + 1) as f64) | i in 0..5]", np.cumsum(y) / np.arange(1, 6), "f64")
    assert math.isclose(v @ A @ v, max(np.linalg.eigvalsh(A)), rel_tol=1e-6)
    t.write()


def generate():
    axis_forms_file()
    functions_file()
    numerics_file()
