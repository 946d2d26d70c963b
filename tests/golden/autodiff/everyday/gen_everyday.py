#!/usr/bin/env python3
"""Everyday gradient programs (written as an ML or physics user would) and their NumPy checks.

Each case is an Einlang program over deterministic inputs (sin/cos of the indices, mirrored
here) and a NumPy function of the same inputs. Expected gradient entries are NumPy f64 central
differences (h = 1e-6 relative), never ein's output.

  gen_everyday.py --write [SKIP..]   write the goldens beside this script (f64: values printed,
                                     f32: a tolerance check printing true), leaving out SKIP
  gen_everyday.py --probe EIN [-k S] run ein in EIN_JIT=never and always, compare, time
Run with the system python3 (numpy).
"""
import os, subprocess, sys, time
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []


# modes: the golden's EIN_JIT values (the recurrent layers' kernels take ~25 s to compile).
MODES = {}
# The script named in the goldens' first line (gen_everyday2.py reuses write()).
GEN = "gen_everyday.py"


def case(name, doc, dtypes=("f64", "f32"), modes="never|always"):
    def deco(fn):
        CASES.append((name, doc, dtypes, fn))
        MODES[name] = modes
        return fn
    return deco


class Init:
    """A deterministic input: value[idx] = amp * f(sum(c_k idx_k) * scale) (+ add)."""

    def __init__(self, name, shape, f, coeffs, scale, amp, add=0.0):
        self.name, self.shape, self.f, self.coeffs = name, shape, f, coeffs
        self.scale, self.amp, self.add = scale, amp, add

    def ein(self, T):
        idx = "ijklmn"[: len(self.shape)]
        dims = ", ".join(f"{v} in 0..{n}" for v, n in zip(idx, self.shape))
        lin = " + ".join(f"{v} * {c}" if c != 1 else v for v, c in zip(idx, self.coeffs))
        add = f" + {self.add!r}" if self.add else ""
        return f"let {self.name}[{dims}] = {self.f}((({lin}) as {T}) * {self.scale!r}) * {self.amp!r}{add};"

    def value(self):
        g = np.indices(self.shape)
        lin = sum(c * g[k] for k, c in enumerate(self.coeffs))
        return getattr(np, self.f)(lin * self.scale) * self.amp + self.add


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def softmax(x, axis=-1):
    return np.exp(log_softmax(x, axis))


# ---------------------------------------------------------------------------------------------
# Cases: each returns (inits, body, loss(values) -> float, requests [(param, [index tuples])]).
# body uses {T} for the float type; the generator appends the requests and the print.

@case("mlp_layernorm_xent", "two-layer MLP, layer norm written out, tanh, softmax cross-entropy over integer labels")
def mlp_layernorm_xent():
    N, D, H, C = 8, 6, 10, 4
    inits = [Init("X", (N, D), "sin", (13, 7), 0.1, 1.0), Init("W1", (H, D), "cos", (5, 1), 0.11, 0.4),
             Init("b1", (H,), "sin", (3,), 0.2, 0.1), Init("g", (H,), "cos", (1,), 0.05, 1.0),
             Init("be", (H,), "sin", (2,), 0.3, 0.05), Init("W2", (C, H), "sin", (7, 3), 0.07, 0.5)]
    body = """
let y[n in 0..8] = (n * 3) % 4;
let h[n, j] = sum[d](X[n, d] * W1[j, d]) + b1[j];
let mu[n] = sum[j](h[n, j]) / 10.0;
let var[n] = sum[j]((h[n, j] - mu[n]) ** 2) / 10.0;
let hn[n, j] = (h[n, j] - mu[n]) / sqrt(var[n] + 1e-5) * g[j] + be[j];
let a[n, j] = tanh(hn[n, j]);
let z[n, c] = sum[j](a[n, j] * W2[c, j]);
let m[n] = max[c](z[n, c]);
let lse[n] = m[n] + log(sum[c](exp(z[n, c] - m[n])));
let L = sum[n](lse[n] - z[n, y[n]]) / 8.0;
"""

    def loss(v):
        y = (np.arange(N) * 3) % 4
        h = v["X"] @ v["W1"].T + v["b1"]
        mu = h.mean(1, keepdims=True)
        var = ((h - mu) ** 2).mean(1, keepdims=True)
        a = np.tanh((h - mu) / np.sqrt(var + 1e-5) * v["g"] + v["be"])
        z = a @ v["W2"].T
        return float(-log_softmax(z)[np.arange(N), y].mean())
    return inits, "use std::math::{sin, cos, tanh, sqrt, exp, log};" + body, loss, [
        ("W1", [(1, 2), (9, 5)]), ("b1", [(3,)]), ("g", [(0,), (7,)]), ("be", [(4,)]), ("W2", [(2, 6)]), ("X", [(5, 1)])]


@case("mlp_std_layers", "the same kind of MLP through std::ml (linear, layer_normalization, relu, softmax_cross_entropy_loss)")
def mlp_std_layers():
    N, D, H, C = 8, 6, 10, 4
    inits = [Init("X", (N, D), "sin", (13, 7), 0.1, 1.0), Init("W1", (H, D), "cos", (5, 1), 0.11, 0.4),
             Init("b1", (H,), "sin", (3,), 0.2, 0.1), Init("g", (H,), "cos", (1,), 0.05, 1.0),
             Init("be", (H,), "sin", (2,), 0.3, 0.05), Init("W2", (C, H), "sin", (7, 3), 0.07, 0.5),
             Init("b2", (C,), "cos", (1,), 0.5, 0.1)]
    body = """
let y[n in 0..8] = (n * 3) % 4;
let h = linear(X, W1, b1);
let hn = layer_normalization(h, g, be, 1e-5, -1);
let a = relu(hn);
let z = linear(a, W2, b2);
let L = softmax_cross_entropy_loss(z, y);
"""

    def loss(v):
        y = (np.arange(N) * 3) % 4
        h = v["X"] @ v["W1"].T + v["b1"]
        mu = h.mean(1, keepdims=True)
        var = ((h - mu) ** 2).mean(1, keepdims=True)
        a = np.maximum((h - mu) / np.sqrt(var + 1e-5) * v["g"] + v["be"], 0)
        z = a @ v["W2"].T + v["b2"]
        return float(-log_softmax(z)[np.arange(N), y].mean())
    return inits, "use std::math::{sin, cos};\nuse std::ml::{linear, layer_normalization, relu, softmax_cross_entropy_loss};" + body, loss, [
        ("W1", [(1, 2), (9, 5)]), ("b1", [(3,)]), ("g", [(0,), (7,)]), ("be", [(4,)]), ("W2", [(2, 6)]), ("b2", [(1,)])]


def conv_ref(x, k, b, pad):
    N, Cc, Hh, Ww = x.shape
    M, _, KH, KW = k.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    OH, OW = Hh + 2 * pad - KH + 1, Ww + 2 * pad - KW + 1
    y = np.zeros((N, M, OH, OW))
    for kh in range(KH):
        for kw in range(KW):
            y += np.einsum("nchw,mc->nmhw", xp[:, :, kh:kh + OH, kw:kw + OW], k[:, :, kh, kw])
    return y + b[None, :, None, None]


def pool_ref(x, op):
    N, C, Hh, Ww = x.shape
    r = x.reshape(N, C, Hh // 2, 2, Ww // 2, 2)
    return r.max(axis=(3, 5)) if op == "max" else r.mean(axis=(3, 5))


def convnet(pool):
    inits = [Init("x", (2, 2, 8, 8), "sin", (5, 3, 7, 11), 0.05, 1.0),
             Init("K", (3, 2, 3, 3), "cos", (7, 5, 3, 1), 0.1, 0.3),
             Init("b", (3,), "sin", (1,), 0.7, 0.1),
             Init("W", (2, 48), "cos", (3, 1), 0.07, 0.2),
             Init("c", (2,), "sin", (1,), 1.0, 0.1)]
    body = f"""
let y = conv2d(x, K, b, 1, 1, 1, 1, 1, 1);
let r = relu(y);
let p = {pool}_pool(r, [2, 2], [2, 2], []);
let f[n in 0..2, q in 0..48] = p[n, q / 16, (q % 16) / 4, q % 4];
let o = linear(f, W, c);
let L = sum[n, k](o[n, k] * o[n, k]) / 2.0;
"""

    def loss(v):
        y = conv_ref(v["x"], v["K"], v["b"], 1)
        p = pool_ref(np.maximum(y, 0), pool)
        o = p.reshape(2, 48) @ v["W"].T + v["c"]
        return float((o * o).sum() / 2)
    return inits, f"use std::math::{{sin, cos}};\nuse std::ml::{{conv2d, relu, {pool}_pool, linear}};" + body, loss, [
        ("K", [(0, 1, 2, 0), (2, 0, 1, 1)]), ("b", [(1,)]), ("W", [(1, 20)]), ("x", [(1, 1, 3, 4)])]


@case("convnet_max_pool", "conv2d + relu + max_pool + flatten by indexing + linear (std::ml)")
def convnet_max():
    return convnet("max")


@case("convnet_average_pool", "conv2d + relu + average_pool + flatten by indexing + linear (std::ml)")
def convnet_avg():
    return convnet("average")


def attention(mask_kind):
    N, D = 6, 4
    inits = [Init("X", (N, D), "sin", (13, 7), 0.1, 1.0), Init("Wq", (D, D), "cos", (3, 1), 0.05, 0.5),
             Init("Wk", (D, D), "sin", (5, 1), 0.03, 0.5), Init("Wv", (D, D), "cos", (1, 7), 0.02, 0.5)]
    if mask_kind == "inf":
        scores = "let S[n, m] = if m <= n { sum[e](Q[n, e] * K[m, e]) / 2.0 } else { -infinity() };"
        imp = "use std::math::{sin, cos, exp};\nuse std::math::constants::infinity;"
    else:
        scores = "let S[n, m] = sum[e](Q[n, e] * K[m, e]) / 2.0 where m <= n else -1e9;"
        imp = "use std::math::{sin, cos, exp};"
    body = f"""
let Q[n, e] = sum[d](X[n, d] * Wq[d, e]);
let K[n, e] = sum[d](X[n, d] * Wk[d, e]);
let V[n, e] = sum[d](X[n, d] * Wv[d, e]);
{scores}
let mx[n] = max[m](S[n, m]);
let P[n, m] = exp(S[n, m] - mx[n]);
let Z[n] = sum[m](P[n, m]);
let A[n, m] = P[n, m] / Z[n];
let O[n, e] = sum[m](A[n, m] * V[m, e]);
let L = sum[n, e](O[n, e] * O[n, e] * ((n + e) as {{T}})) / 10.0;
"""

    def loss(v):
        X = v["X"]
        Q, K, V = X @ v["Wq"], X @ v["Wk"], X @ v["Wv"]
        S = Q @ K.T / 2.0
        S = np.where(np.tril(np.ones((N, N))) > 0, S, -np.inf)
        O = softmax(S) @ V
        w = np.add.outer(np.arange(N), np.arange(D))
        return float((O * O * w).sum() / 10)
    return inits, imp + body, loss, [("Wq", [(1, 2), (3, 0)]), ("Wk", [(0, 3)]), ("Wv", [(2, 2)]), ("X", [(0, 1), (5, 3)])]


@case("attention_causal_inf", "causal self-attention, future scores -inf through if")
def att_inf():
    return attention("inf")


@case("attention_causal_where", "causal self-attention, future scores masked with where ... else -1e9")
def att_where():
    return attention("where")


@case("spring_damped", "damped spring, symplectic Euler over 200 steps; gradient w.r.t. stiffness, damping, x0")
def spring():
    inits = []
    body = """
let k: {T} = 2.5;
let c: {T} = 0.3;
let x0: {T} = 1.0;
let dt: {T} = 0.05;
let s[0, 0] = x0;
let s[0, 1] = 0.0;
let s[t in 1..200, 1] = s[t - 1, 1] + dt * (-k * s[t - 1, 0] - c * s[t - 1, 1]);
let s[t in 1..200, 0] = s[t - 1, 0] + dt * s[t, 1];
let L = sum[t](s[t, 0] * s[t, 0]) * dt + s[199, 1] * s[199, 1];
"""

    def loss(v):
        k, c, x0, dt = v["k"], v["c"], v["x0"], 0.05
        x, u = x0, 0.0
        acc = x * x
        for _ in range(1, 200):
            u = u + dt * (-k * x - c * u)
            x = x + dt * u
            acc += x * x
        return float(acc * dt + u * u)
    scal = {"k": 2.5, "c": 0.3, "x0": 1.0}
    return inits, body, loss, [("k", [()]), ("c", [()]), ("x0", [()])], scal


@case("heat_diffusivity", "explicit heat equation, 60 steps on 24 points; gradient w.r.t. diffusivity and the initial state")
def heat():
    inits = [Init("u0", (24,), "sin", (1,), 0.13, 1.0, 1.0)]
    body = """
let kappa = 0.21;
let u[0, i in 0..24] = u0[i];
let u[t in 1..60, 0] = 1.0;
let u[t in 1..60, 23] = 0.5;
let u[t in 1..60, i in 1..23] = u[t - 1, i] + kappa * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);
let L = sum[i](u[59, i] * u[59, i] * (i as {T}));
"""

    def loss(v):
        u = v["u0"].copy()
        kap = v["kappa"]
        for _ in range(1, 60):
            nu = u.copy()
            nu[1:23] = u[1:23] + kap * (u[0:22] - 2 * u[1:23] + u[2:24])
            nu[0], nu[23] = 1.0, 0.5
            u = nu
        return float((u * u * np.arange(24)).sum())
    return inits, "use std::math::{sin};" + body, loss, [("kappa", [()]), ("u0", [(0,), (5,), (12,)])], {"kappa": 0.21}


@case("logreg_l2", "logistic regression with L2 penalty (log1p(exp) loss written out, sigmoid from std)")
def logreg():
    N, D = 20, 5
    inits = [Init("X", (N, D), "sin", (7, 3), 0.17, 1.5), Init("w", (D,), "cos", (1,), 0.4, 0.3)]
    body = """
let b = 0.1;
let lam = 0.01;
let y[n in 0..20] = if sin((n as {T}) * 1.3) > 0.0 { 1.0 } else { 0.0 };
let z[n] = sum[d](X[n, d] * w[d]) + b;
let p[n] = sigmoid(z[n]);
let nll = -sum[n](y[n] * log(p[n]) + (1.0 - y[n]) * log(1.0 - p[n])) / 20.0;
let L = nll + lam * sum[d](w[d] * w[d]);
"""

    def loss(v):
        y = (np.sin(np.arange(N) * 1.3) > 0).astype(float)
        p = sigmoid(v["X"] @ v["w"] + v["b"])
        return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean() + 0.01 * (v["w"] ** 2).sum())
    return inits, "use std::math::{sin, cos, log};\nuse std::ml::sigmoid;" + body, loss, [("w", [(0,), (3,)]), ("b", [()])], {"b": 0.1}


def onnx_gru(X, W, R, B, h0):
    H = R.shape[1]
    Wz, Wr, Wh = W[:H], W[H:2 * H], W[2 * H:]
    Rz, Rr, Rh = R[:H], R[H:2 * H], R[2 * H:]
    wb, rb = B[:3 * H], B[3 * H:]
    h = h0
    ys = []
    for t in range(X.shape[0]):
        x = X[t]
        z = sigmoid(x @ Wz.T + h @ Rz.T + wb[:H] + rb[:H])
        r = sigmoid(x @ Wr.T + h @ Rr.T + wb[H:2 * H] + rb[H:2 * H])
        g = np.tanh(x @ Wh.T + (r * h) @ Rh.T + wb[2 * H:] + rb[2 * H:])
        h = (1 - z) * g + z * h
        ys.append(h)
    return np.stack(ys)


def onnx_lstm(X, W, R, B, h0, c0):
    H = R.shape[1]
    b = B[:4 * H] + B[4 * H:]
    h, c = h0, c0
    ys = []
    for t in range(X.shape[0]):
        a = X[t] @ W.T + h @ R.T + b
        i, o, f, g = sigmoid(a[:, :H]), sigmoid(a[:, H:2 * H]), sigmoid(a[:, 2 * H:3 * H]), np.tanh(a[:, 3 * H:])
        c = f * c + i * g
        h = o * np.tanh(c)
        ys.append(h)
    return np.stack(ys)


@case("gru_std", "std::ml::gru over 7 steps, batch 2; loss on every hidden state", modes="never|auto")
def gru():
    T, N, I, H = 7, 2, 3, 4
    inits = [Init("X", (T, N, I), "sin", (7, 3, 5), 0.1, 1.0), Init("W", (3 * H, I), "cos", (5, 1), 0.11, 0.4),
             Init("R", (3 * H, H), "sin", (3, 1), 0.13, 0.3), Init("B", (6 * H,), "cos", (1,), 0.3, 0.1),
             Init("h0", (N, H), "sin", (1, 2), 0.5, 0.2)]
    body = """
let Y = gru(X, W, R, B, h0, 4, "forward", 0);
let L = sum[t, n, j](Y[t, n, j] * Y[t, n, j] * ((j + 1) as {T}));
"""

    def loss(v):
        Y = onnx_gru(v["X"], v["W"], v["R"], v["B"], v["h0"])
        return float((Y * Y * (np.arange(H) + 1)).sum())
    return inits, "use std::math::{sin, cos};\nuse std::ml::gru;" + body, loss, [
        ("W", [(1, 2), (10, 0)]), ("R", [(5, 3), (9, 1)]), ("B", [(2,), (14,)]), ("h0", [(1, 3)])]


@case("lstm_std", "std::ml::lstm over 6 steps, batch 2; loss on the last hidden state", modes="never|auto")
def lstm():
    T, N, I, H = 6, 2, 3, 4
    inits = [Init("X", (T, N, I), "sin", (7, 3, 5), 0.1, 1.0), Init("W", (4 * H, I), "cos", (5, 1), 0.11, 0.4),
             Init("R", (4 * H, H), "sin", (3, 1), 0.13, 0.3), Init("B", (8 * H,), "cos", (1,), 0.3, 0.1),
             Init("h0", (N, H), "sin", (1, 2), 0.5, 0.2), Init("c0", (N, H), "cos", (2, 1), 0.5, 0.2)]
    body = """
let Y = lstm(X, W, R, B, h0, c0, 4, "forward", 0.0);
let L = sum[n, j](Y[5, n, j] * ((j + n + 1) as {T}));
"""

    def loss(v):
        Y = onnx_lstm(v["X"], v["W"], v["R"], v["B"], v["h0"], v["c0"])
        return float((Y[5] * (np.add.outer(np.arange(N), np.arange(H)) + 1)).sum())
    return inits, "use std::math::{sin, cos};\nuse std::ml::lstm;" + body, loss, [
        ("W", [(1, 2), (13, 0)]), ("R", [(5, 3), (14, 1)]), ("B", [(2,), (20,)]), ("c0", [(1, 3)])]


@case("batchnorm_train", "batch norm with batch statistics over N, H, W written out, then a quadratic loss")
def batchnorm():
    inits = [Init("x", (4, 3, 5, 5), "sin", (11, 5, 3, 7), 0.05, 1.0, 0.2), Init("gam", (3,), "cos", (1,), 0.4, 1.0),
             Init("bet", (3,), "sin", (1,), 0.4, 0.1)]
    body = """
let mu[c] = sum[n, h, w](x[n, c, h, w]) / 100.0;
let var[c] = sum[n, h, w]((x[n, c, h, w] - mu[c]) ** 2) / 100.0;
let y[n, c, h, w] = gam[c] * (x[n, c, h, w] - mu[c]) / sqrt(var[c] + 1e-5) + bet[c];
let L = sum[n, c, h, w](y[n, c, h, w] * sin(((n + 2 * c + h * w) as {T}) * 0.3));
"""

    def loss(v):
        x = v["x"]
        mu = x.mean(axis=(0, 2, 3), keepdims=True)
        var = ((x - mu) ** 2).mean(axis=(0, 2, 3), keepdims=True)
        y = v["gam"][None, :, None, None] * (x - mu) / np.sqrt(var + 1e-5) + v["bet"][None, :, None, None]
        g = np.indices(x.shape)
        return float((y * np.sin((g[0] + 2 * g[1] + g[2] * g[3]) * 0.3)).sum())
    return inits, "use std::math::{sin, cos, sqrt};" + body, loss, [("gam", [(0,), (2,)]), ("bet", [(1,)]), ("x", [(0, 1, 2, 3), (3, 2, 4, 0)])]


@case("batchnorm_std_inference", "std::ml::batch_normalization with running statistics, then a weighted sum")
def batchnorm_std():
    inits = [Init("x", (2, 3, 4, 4), "sin", (11, 5, 3, 7), 0.05, 1.0), Init("gam", (3,), "cos", (1,), 0.4, 1.0),
             Init("bet", (3,), "sin", (1,), 0.4, 0.1), Init("rm", (3,), "sin", (2,), 0.3, 0.1),
             Init("rv", (3,), "cos", (1,), 0.2, 0.5, 1.0)]
    body = """
let y = batch_normalization(x, gam, bet, rm, rv, 1e-5);
let L = sum[n, c, h, w](y[n, c, h, w] * y[n, c, h, w]);
"""

    def loss(v):
        s = (lambda a: a[None, :, None, None])
        y = (v["x"] - s(v["rm"])) / np.sqrt(s(v["rv"]) + 1e-5) * s(v["gam"]) + s(v["bet"])
        return float((y * y).sum())
    return inits, "use std::math::{sin, cos};\nuse std::ml::batch_normalization;" + body, loss, [
        ("gam", [(0,), (2,)]), ("bet", [(1,)]), ("rv", [(1,)]), ("rm", [(2,)]), ("x", [(1, 2, 3, 0)])]


@case("embedding_lookup", "embedding lookup by integer tokens (repeated ids), mean-pooled, linear head")
def embedding():
    V, D, S = 7, 4, 10
    inits = [Init("E", (V, D), "sin", (3, 1), 0.3, 0.5), Init("Wo", (2, D), "cos", (1, 2), 0.4, 0.5)]
    body = """
let tok[s in 0..10] = (s * 5 + 1) % 7 % 5;
let e[s, d] = E[tok[s], d];
let pooled[d] = sum[s](e[s, d]) / 10.0;
let o[k] = tanh(sum[d](pooled[d] * Wo[k, d]));
let L = sum[k](o[k] * (k + 1) as {T}) + sum[s, d](e[s, d] * e[s, d]) * 0.1;
"""

    def loss(v):
        tok = (np.arange(S) * 5 + 1) % 7 % 5
        e = v["E"][tok]
        o = np.tanh(v["Wo"] @ e.mean(0))
        return float((o * (np.arange(2) + 1)).sum() + (e * e).sum() * 0.1)
    return inits, "use std::math::{sin, cos, tanh};" + body, loss, [("E", [(1, 2), (3, 0), (6, 1), (0, 3)]), ("Wo", [(1, 3)])]


@case("embedding_gather_std", "embedding lookup via std::ml::gather on axis 0, squared loss")
def embedding_gather():
    V, D = 7, 4
    inits = [Init("E", (V, D), "sin", (3, 1), 0.3, 0.5)]
    body = """
let tok = [1, 4, 4, 0, 2, 4];
let e = gather(E, tok, 0);
let L = sum[s, d](e[s, d] * e[s, d] * ((s + d) as {T}));
"""

    def loss(v):
        tok = np.array([1, 4, 4, 0, 2, 4])
        e = v["E"][tok]
        return float((e * e * np.add.outer(np.arange(6), np.arange(D))).sum())
    return inits, "use std::math::{sin};\nuse std::ml::gather;" + body, loss, [("E", [(4, 2), (1, 0), (3, 1), (0, 3)])]


@case("local_grad_in_function", "a function returning the gradient of its own loss; called on two points, then a loss of the results")
def local_fn():
    inits = [Init("A", (3, 3), "cos", (2, 1), 0.3, 0.5), Init("x", (3,), "sin", (1,), 0.7, 1.0)]
    body = """
fn grad_of(v, M) {
  let loss = sum[i](log(1.0 + exp(sum[j](M[i, j] * v[j])))) + 0.5 * sum[i](v[i] * v[i]);
  @loss / @v
}
let g1 = grad_of(x, A);
let L = sum[i](g1[i] * g1[i]);
"""

    def inner_grad(x, A):
        return A.T @ sigmoid(A @ x) + x

    def loss(v):
        g = inner_grad(v["x"], v["A"])
        return float((g * g).sum())
    return inits, "use std::math::{sin, cos, log, exp};" + body, loss, [("x", [(0,), (2,)]), ("A", [(1, 2), (0, 0)])]


@case("local_grad_descent_loop", "gradient descent as a recurrence with the gradient requested in its body; outer gradient w.r.t. the data")
def local_loop():
    inits = [Init("b", (2,), "cos", (1,), 1.0, 1.0)]
    body = """
let w[0, j in 0..2] = 0.0;
let w[k in 1..6, j in 0..2] = {
  let v[i in 0..2] = w[k - 1, i];
  let loss = sum[i]((v[i] - b[i]) ** 2) + 0.1 * (v[0] * v[1]) ** 2;
  let g = @loss / @v;
  v[j] - 0.1 * g[j]
};
let L = sum[j](w[5, j] * w[5, j] * ((j + 1) as {T}));
"""

    def loss(v):
        b = v["b"]
        w = np.zeros(2)
        for _ in range(5):
            g = 2 * (w - b) + 0.2 * (w[0] * w[1]) * np.array([w[1], w[0]])
            w = w - 0.1 * g
        return float((w * w * np.array([1, 2])).sum())
    return inits, "use std::math::{cos};" + body, loss, [("b", [(0,), (1,)])]


@case("window_block_local", "a sliding window copied into a block-local array per output point (`let v[i] = x[k + i]`), and a recurrence whose step does the same")
def window_local():
    inits = [Init("x", (8,), "sin", (1,), 0.7, 1.0)]
    body = """
let y[k in 0..6] = { let v[i in 0..3] = x[k + i]; sum[i](v[i] * v[i] * ((i + 1) as {T})) };
let s[0] = 0.5;
let s[t in 1..5] = { let u[i in 0..2] = s[t - 1] * x[t + i]; sum[i](u[i] * u[i]) };
let L = sum[k](y[k] * y[k]) + s[4];
"""

    def loss(v):
        x = v["x"]
        y = np.array([sum(x[k + i] ** 2 * (i + 1) for i in range(3)) for k in range(6)])
        s = 0.5
        for t in range(1, 5):
            s = sum((s * x[t + i]) ** 2 for i in range(2))
        return float((y * y).sum() + s)
    return inits, "use std::math::{sin};" + body, loss, [("x", [(0,), (1,), (2,), (5,), (7,)])]


@case("nbody_potential", "pairwise Lennard-Jones-like potential over distinct pairs (i != j via where); gradient is minus the forces")
def nbody():
    inits = [Init("P", (5, 2), "sin", (3, 7), 0.9, 1.5)]
    body = """
let r2[i, j] = sum[d]((P[i, d] - P[j, d]) ** 2);
let r[i, j] = sqrt(r2[i, j]);
let E = sum[i, j](1.0 / r[i, j] ** 6 - 1.0 / r[i, j] ** 3 where i != j) / 2.0;
let L = E;
"""

    def loss(v):
        P = v["P"]
        d = P[:, None, :] - P[None, :, :]
        r = np.sqrt((d ** 2).sum(-1))
        m = ~np.eye(5, dtype=bool)
        return float((1 / r[m] ** 6 - 1 / r[m] ** 3).sum() / 2)
    return inits, "use std::math::{sin, sqrt};" + body, loss, [("P", [(0, 0), (2, 1), (4, 0)])]


@case("pinn_poly_fit", "least squares with a softplus-smoothed L1 penalty and huber_loss from std; several parameters at once")
def huberfit():
    inits = [Init("t", (30,), "sin", (1,), 0.05, 1.0), Init("y", (30,), "cos", (1,), 0.21, 1.0), Init("c", (4,), "cos", (1,), 0.9, 0.3)]
    body = """
let pred[n] = sum[p in 0..4](c[p] * t[n] ** p);
let L = huber_loss(pred, y, 0.5) + 0.01 * sum[p](softplus(c[p]) + softplus(-c[p]));
"""

    def loss(v):
        pred = sum(v["c"][p] * v["t"] ** p for p in range(4))
        r = np.abs(pred - v["y"])
        h = np.where(r <= 0.5, 0.5 * r * r, 0.5 * (r - 0.25))
        sp = lambda z: np.log1p(np.exp(z))
        return float(h.mean() + 0.01 * (sp(v["c"]) + sp(-v["c"])).sum())
    return inits, "use std::math::{sin, cos};\nuse std::ml::{huber_loss, softplus};" + body, loss, [("c", [(0,), (1,), (3,)]), ("t", [(4,)])]


# ---------------------------------------------------------------------------------------------

def build(name, T):
    fn = dict((c[0], c[3]) for c in CASES)[name]
    r = fn()
    inits, body, loss, reqs = r[:4]
    scal = r[4] if len(r) > 4 else {}
    vals = {i.name: i.value() for i in inits}
    vals.update({k: float(v) for k, v in scal.items()})
    lines = body.split("\n")
    use = [l for l in lines if l.startswith("use ")]
    rest = [l for l in lines if not l.startswith("use ")]
    src = "\n".join(use + [i.ein(T) for i in inits] + rest).replace("{T}", T)
    grads, outs = [], ["L"]
    for p, idxs in reqs:
        grads.append(f"let g_{p} = @L / @{p};")
        for ix in idxs:
            outs.append(f"g_{p}[{', '.join(map(str, ix))}]" if ix else f"g_{p}")
    src = src.rstrip() + "\n" + "\n".join(grads) + "\n"
    # Expected: L and central differences.
    want = [loss(vals)]
    for p, idxs in reqs:
        for ix in idxs:
            base = vals[p]
            hh = 1e-6 * max(1.0, abs(float(base[ix] if ix else base)))
            def at(d):
                v2 = dict(vals)
                if ix:
                    a = base.copy(); a[ix] += d; v2[p] = a
                else:
                    v2[p] = base + d
                return loss(v2)
            want.append((at(hh) - at(-hh)) / (2 * hh))
    return src, outs, want


def run_ein(ein, src, mode, timeout=120):
    path = f"/tmp/adcost_everyday_{os.getpid()}.ein"
    open(path, "w").write(src)
    env = dict(os.environ, EIN_JIT=mode)
    t0 = time.time()
    try:
        p = subprocess.run([ein, path], capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", None, time.time() - t0
    dt = time.time() - t0
    if p.returncode != 0:
        import re
        m = re.search(r"error\[(E\d+)\]: ([^\n]*)", p.stderr)
        kind = "refused " + (m.group(1) + " " + m.group(2)[:90] if m else f"rc={p.returncode} " + p.stderr[-200:])
        return kind, None, dt
    try:
        return "ok", [float(x) for x in p.stdout.split()], dt
    except ValueError:
        return "badout " + p.stdout[:100], None, dt


def probe(ein, filt):
    for name, doc, dtypes, _ in CASES:
        if filt and filt not in name:
            continue
        for T in dtypes:
            src, outs, want = build(name, T)
            src += f"print({', '.join(outs)});\n"
            tol = 1e-6 if T == "f64" else 3e-3
            for mode in ("never", "always"):
                kind, got, dt = run_ein(ein, src, mode)
                if kind == "ok":
                    scale = max(abs(w) for w in want) + 1e-3
                    bad = [(o, g, w) for o, g, w in zip(outs, got, want) if abs(g - w) > tol * (abs(w) + 0.1 * scale)]
                    if len(got) != len(want):
                        kind = "badout count"
                    elif bad:
                        kind = "WRONG " + "; ".join(f"{o}={g:.6g} want {w:.6g}" for o, g, w in bad[:3])
                    else:
                        kind = "correct"
                print(f"{name:28s} {T} {mode:6s} {dt*1000:7.0f}ms {kind}", flush=True)


def write(skip):
    for name, doc, dtypes, _ in CASES:
        if name in skip:
            continue
        for T in dtypes:
            src, outs, want = build(name, T)
            head = [f"// Generated by everyday/{GEN}: {doc} ({T}).",
                    "// Expected: NumPy f64 central finite differences of the same program (h = 1e-6).",
                    f"//$ EIN_JIT={MODES[name]}"]
            if T == "f64":
                tail = f"print({', '.join(outs)});\n//> " + " ".join(f"{w:.10g}" for w in want) + "\n"
            else:
                scale = max(abs(w) for w in want) + 1e-3
                checks = [f"abs(({o} as f64) - {w!r}) <= {2e-3 * abs(w) + 2e-4 * scale:.3g}" for o, w in zip(outs, want)]
                tail = "use std::math::abs;\nprint(" + ", ".join(checks) + ");\n//> " + " ".join(["true"] * len(outs)) + "\n"
            open(os.path.join(HERE, f"{name}_{T}.ein"), "w").write("\n".join(head) + "\n" + src + tail)


def cli(gen, doc):
    """The command line of a generator script named `gen` (gen_everyday2.py, 3 reuse it)."""
    global GEN
    GEN = gen
    a = sys.argv[1:]
    if a and a[0] == "--write":
        write(a[1:])  # names to leave out (programs still refused)
    elif a and a[0] == "--probe":
        probe(a[1], a[3] if len(a) > 3 and a[2] == "-k" else None)
    else:
        print(doc)


if __name__ == "__main__":
    cli("gen_everyday.py", __doc__)
