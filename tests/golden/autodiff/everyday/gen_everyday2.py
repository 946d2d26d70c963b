#!/usr/bin/env python3
"""More everyday gradient programs (session 14): the kinds gen_everyday.py does not have.

Same machinery as gen_everyday.py (deterministic inputs, NumPy f64 central differences of the
same program, never ein's output); this file only adds cases and writes/probes those.

  gen_everyday2.py --write [SKIP..]   write these cases' goldens beside this script
  gen_everyday2.py --probe EIN [-k S] run ein in EIN_JIT=never and always, compare, time
Run with the system python3 (numpy).
"""
import sys
import numpy as np

import gen_everyday as ge
from gen_everyday import Init, case, sigmoid, log_softmax

FIRST = len(ge.CASES)


def softplus(z):
    return np.log1p(np.exp(z))


@case("vae_loss", "variational autoencoder: linear encoder to mean and log-variance, reparameterised sample with fixed noise, tanh decoder, reconstruction + KL")
def vae():
    N, D, Z = 6, 5, 2
    inits = [Init("X", (N, D), "sin", (5, 3), 0.2, 1.0), Init("Wm", (Z, D), "cos", (3, 1), 0.3, 0.5),
             Init("Wv", (Z, D), "sin", (1, 2), 0.4, 0.3), Init("Wd", (D, Z), "cos", (2, 5), 0.25, 0.6),
             Init("eps", (N, Z), "sin", (7, 11), 0.9, 1.0)]
    body = """
let mu[n, z] = sum[d](X[n, d] * Wm[z, d]);
let lv[n, z] = sum[d](X[n, d] * Wv[z, d]);
let zz[n, z] = mu[n, z] + exp(0.5 * lv[n, z]) * eps[n, z];
let xr[n, d] = tanh(sum[z](zz[n, z] * Wd[d, z]));
let rec = sum[n, d]((xr[n, d] - X[n, d]) ** 2) / 6.0;
let kl = -0.5 * sum[n, z](1.0 + lv[n, z] - mu[n, z] ** 2 - exp(lv[n, z])) / 6.0;
let L = rec + kl;
"""

    def loss(v):
        X = v["X"]
        mu, lv = X @ v["Wm"].T, X @ v["Wv"].T
        z = mu + np.exp(0.5 * lv) * v["eps"]
        xr = np.tanh(z @ v["Wd"].T)
        return float(((xr - X) ** 2).sum() / 6 - 0.5 * (1 + lv - mu ** 2 - np.exp(lv)).sum() / 6)
    return inits, "use std::math::{sin, cos, exp, tanh};" + body, loss, [
        ("Wm", [(0, 0), (1, 3)]), ("Wv", [(0, 2), (1, 4)]), ("Wd", [(3, 1)])]


@case("gauss_nll_learned_var", "Gaussian negative log-likelihood with a per-sample learned log standard deviation and a learned global offset")
def gauss_nll():
    N, D = 10, 3
    inits = [Init("X", (N, D), "sin", (3, 5), 0.3, 1.0), Init("wm", (D,), "cos", (1,), 0.5, 0.7),
             Init("ws", (D,), "sin", (2,), 0.4, 0.3), Init("y", (N,), "cos", (1,), 0.45, 1.2)]
    body = """
let s0: {T} = -0.2;
let m[n] = sum[d](X[n, d] * wm[d]);
let ls[n] = sum[d](X[n, d] * ws[d]) + s0;
let L = sum[n](ls[n] + 0.5 * ((y[n] - m[n]) / exp(ls[n])) ** 2) / 10.0 + 0.9189385332046727;
"""

    def loss(v):
        m = v["X"] @ v["wm"]
        ls = v["X"] @ v["ws"] + v["s0"]
        return float((ls + 0.5 * ((v["y"] - m) / np.exp(ls)) ** 2).mean() + 0.9189385332046727)
    return inits, "use std::math::{sin, cos, exp};" + body, loss, [
        ("wm", [(0,), (2,)]), ("ws", [(1,)]), ("s0", [()]), ("y", [(4,)])], {"s0": -0.2}


@case("rk4_ode_param", "classic RK4 on a nonlinear scalar ODE with a rate parameter; four stages through a function in a block per step")
def rk4():
    body = """
let k: {T} = 0.8;
let y0: {T} = 1.2;
let h: {T} = 0.1;
fn f(y, t, k) { -k * y + 0.5 * sin(y + t) }
let y[0] = y0;
let y[n in 1..40] = {
  let t = ((n - 1) as {T}) * h;
  let k1 = f(y[n - 1], t, k);
  let k2 = f(y[n - 1] + 0.5 * h * k1, t + 0.5 * h, k);
  let k3 = f(y[n - 1] + 0.5 * h * k2, t + 0.5 * h, k);
  let k4 = f(y[n - 1] + h * k3, t + h, k);
  y[n - 1] + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
};
let L = sum[n](y[n] * y[n]) * h + y[39];
"""

    def loss(v):
        k, y, h = v["k"], v["y0"], 0.1
        f = lambda y, t: -k * y + 0.5 * np.sin(y + t)
        acc = y * y
        for n in range(1, 40):
            t = (n - 1) * h
            k1 = f(y, t); k2 = f(y + 0.5 * h * k1, t + 0.5 * h)
            k3 = f(y + 0.5 * h * k2, t + 0.5 * h); k4 = f(y + h * k3, t + h)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            acc += y * y
        return float(acc * h + y)
    return [], "use std::math::{sin};" + body, loss, [("k", [()]), ("y0", [()])], {"k": 0.8, "y0": 1.2}


@case("newton_unrolled", "Newton's method for x^3 + a x = b, eight iterations as a recurrence, differentiated through w.r.t. a and b")
def newton():
    inits = [Init("a", (5,), "cos", (1,), 0.5, 0.5, 1.5), Init("b", (5,), "sin", (1,), 0.8, 0.5, 1.0)]
    body = """
let x[0, i in 0..5] = 1.0;
let x[k in 1..8, i in 0..5] = x[k - 1, i] - (x[k - 1, i] ** 3 + a[i] * x[k - 1, i] - b[i]) / (3.0 * x[k - 1, i] ** 2 + a[i]);
let L = sum[i](x[7, i] * x[7, i] * ((i + 1) as {T}));
"""

    def loss(v):
        a, b = v["a"], v["b"]
        x = np.ones(5)
        for _ in range(7):
            x = x - (x ** 3 + a * x - b) / (3 * x ** 2 + a)
        return float((x * x * np.arange(1, 6)).sum())
    return inits, "use std::math::{sin, cos};" + body, loss, [("a", [(0,), (3,)]), ("b", [(1,), (4,)])]


@case("newton_autodiff_step", "Newton's method whose step divides by a derivative taken with @ inside the recurrence body; outer gradient w.r.t. a and b")
def newton_ad():
    inits = [Init("a", (5,), "cos", (1,), 0.5, 0.5, 1.5), Init("b", (5,), "sin", (1,), 0.8, 0.5, 1.0)]
    body = """
let x[0, i in 0..5] = 1.0;
let x[k in 1..8, i in 0..5] = {
  let xv = x[k - 1, i];
  let r = xv ** 3 + a[i] * xv - b[i];
  let dr = @r / @xv;
  xv - r / dr
};
let L = sum[i](x[7, i] * x[7, i] * ((i + 1) as {T}));
"""
    return inits, "use std::math::{sin, cos};" + body, newton()[2], [("a", [(0,), (3,)]), ("b", [(1,), (4,)])]


@case("masked_mean_losses", "masked mean squared error (float mask divided by its count) plus a mean over a boolean mask with where")
def masked():
    N, D = 12, 3
    inits = [Init("X", (N, D), "sin", (3, 7), 0.3, 1.0), Init("w", (D,), "cos", (1,), 0.6, 0.8),
             Init("y", (N,), "sin", (1,), 0.37, 1.0)]
    body = """
let m[n in 0..12] = if (n * 7) % 5 < 3 { 1.0 } else { 0.0 };
let ok[n in 0..12] = n % 4 != 1;
let pred[n] = sum[d](X[n, d] * w[d]);
let mse = sum[n](m[n] * (pred[n] - y[n]) ** 2) / sum[n](m[n]);
let cnt = sum[n](if ok[n] { 1.0 } else { 0.0 });
let mae = sum[n](abs(pred[n] - y[n]) where ok[n]) / cnt;
let L = mse + mae;
"""

    def loss(v):
        n = np.arange(N)
        m = ((n * 7) % 5 < 3).astype(float)
        ok = n % 4 != 1
        r = v["X"] @ v["w"] - v["y"]
        return float((m * r * r).sum() / m.sum() + np.abs(r[ok]).sum() / ok.sum())
    return inits, "use std::math::{sin, cos, abs};" + body, loss, [("w", [(0,), (1,), (2,)]), ("y", [(0,), (1,), (5,)])]


@case("contrastive_pairs", "contrastive loss over all pairs of embeddings: squared distance for same labels, squared hinge on the margin for different ones")
def contrastive():
    N, D, K = 6, 4, 3
    inits = [Init("X", (N, D), "sin", (5, 3), 0.4, 1.0), Init("W", (K, D), "cos", (2, 3), 0.35, 0.6)]
    body = """
let E[n, k] = sum[d](X[n, d] * W[k, d]);
let lab[n in 0..6] = n % 3;
let dist[i, j] = sqrt(sum[k]((E[i, k] - E[j, k]) ** 2) + 1e-6);
let L = sum[i, j](if lab[i] == lab[j] { dist[i, j] ** 2 } else { max(0.0, 1.5 - dist[i, j]) ** 2 } where i != j) / 30.0;
"""

    def loss(v):
        E = v["X"] @ v["W"].T
        lab = np.arange(N) % 3
        d = np.sqrt(((E[:, None] - E[None]) ** 2).sum(-1) + 1e-6)
        same = lab[:, None] == lab[None]
        off = ~np.eye(N, dtype=bool)
        t = np.where(same, d ** 2, np.maximum(0, 1.5 - d) ** 2)
        return float(t[off].sum() / 30)
    return inits, "use std::math::{sin, cos, sqrt, max};" + body, loss, [("W", [(0, 0), (1, 2), (2, 3)]), ("X", [(2, 1)])]


@case("softmax_temperature", "softmax cross-entropy of logits divided by a learned temperature (max-shifted, written out) plus a distillation KL with std log_softmax")
def temperature():
    N, C = 5, 4
    inits = [Init("Z", (N, C), "sin", (3, 5), 0.5, 2.0), Init("Q", (N, C), "cos", (2, 1), 0.7, 1.0)]
    body = """
let tau: {T} = 1.7;
let y[n in 0..5] = (n * 3 + 1) % 4;
let s[n, c] = Z[n, c] / tau;
let mx[n] = max[c](s[n, c]);
let lse[n] = mx[n] + log(sum[c](exp(s[n, c] - mx[n])));
let xent = -sum[n](s[n, y[n]] - lse[n]) / 5.0;
let lq = log_softmax(Q);
let ls = log_softmax(s);
let kl = sum[n, c](exp(lq[n, c]) * (lq[n, c] - ls[n, c])) / 5.0;
let L = xent + kl;
"""

    def loss(v):
        s = v["Z"] / v["tau"]
        y = (np.arange(N) * 3 + 1) % 4
        ls = log_softmax(s)
        lq = log_softmax(v["Q"])
        return float(-ls[np.arange(N), y].mean() + (np.exp(lq) * (lq - ls)).sum() / 5)
    return inits, "use std::math::{sin, cos, exp, log};\nuse std::ml::log_softmax;" + body, loss, [
        ("tau", [()]), ("Z", [(0, 1), (3, 2), (4, 0)])], {"tau": 1.7}


@case("kinks_abs_max_min_where", "abs, two-argument max/min, clip, where-select and max/min reductions, all evaluated away from ties")
def kinks():
    n = 10
    inits = [Init("x", (n,), "sin", (1,), 0.9, 1.0), Init("c", (n,), "cos", (1,), 0.6, 0.7)]
    body = """
let a[i] = abs(x[i] - c[i]);
let b[i] = max(x[i], 0.3 * c[i]);
let d[i] = min(x[i] * 2.0, c[i]);
let e[i] = if x[i] > 0.1 { x[i] * x[i] } else { -x[i] };
let f[i] = clip(x[i] + c[i], -0.5, 0.8);
let L = sum[i](a[i] * ((i + 1) as {T}) + b[i] * b[i] + d[i] + e[i] + f[i] * f[i]) + max[i](x[i] * c[i]) + min[i](x[i] - c[i]);
"""

    def loss(v):
        x, c = v["x"], v["c"]
        e = np.where(x > 0.1, x * x, -x)
        f = np.clip(x + c, -0.5, 0.8)
        b = np.maximum(x, 0.3 * c)
        return float((np.abs(x - c) * np.arange(1, n + 1) + b * b + np.minimum(2 * x, c) + e + f * f).sum()
                     + (x * c).max() + (x - c).min())
    return inits, "use std::math::{sin, cos, abs, max, min, clip};" + body, loss, [
        ("x", [(i,) for i in range(n)]), ("c", [(0,), (4,), (7,)])]


@case("index_arithmetic", "integer index arithmetic in reads: even/odd strides, reversal, upsampling by integer division, rotation by modulo, a dilated convolution")
def index_arith():
    inits = [Init("x", (12,), "sin", (1,), 0.8, 1.0), Init("w", (3,), "cos", (1,), 0.9, 0.5)]
    body = """
let ev[i in 0..6] = x[2 * i];
let od[i in 0..6] = x[2 * i + 1];
let rev[i in 0..12] = x[11 - i];
let up[i in 0..12] = x[i / 2];
let rot[i in 0..12] = x[(i + 5) % 12];
let dil[o in 0..8] = sum[k](x[o + 2 * k] * w[k]);
let L = sum[i](ev[i] * od[i]) + sum[i](rev[i] * x[i] * (i as {T})) + sum[i](up[i] * up[i] * rot[i]) + sum[o](dil[o] ** 2);
"""

    def loss(v):
        x, w = v["x"], v["w"]
        i = np.arange(12)
        dil = np.array([sum(x[o + 2 * k] * w[k] for k in range(3)) for o in range(8)])
        return float((x[0::2] * x[1::2]).sum() + (x[::-1] * x * i).sum() + (x[i // 2] ** 2 * x[(i + 5) % 12]).sum()
                     + (dil ** 2).sum())
    return inits, "use std::math::{sin, cos};" + body, loss, [("x", [(0,), (3,), (6,), (11,)]), ("w", [(1,)])]


@case("meta_step_twice", "a training-step function (local gradient inside) called twice on different data; outer gradient of the final loss w.r.t. the initial weights and the learning rate")
def meta():
    N, D = 8, 3
    inits = [Init("X1", (N, D), "sin", (3, 1), 0.4, 1.0), Init("X2", (N, D), "cos", (2, 5), 0.3, 1.0),
             Init("y1", (N,), "cos", (1,), 0.5, 1.0), Init("y2", (N,), "sin", (1,), 0.6, 1.0),
             Init("w0", (D,), "sin", (1,), 1.1, 0.5)]
    body = """
let lr: {T} = 0.05;
fn step(w, X, y, lr) {
  let loss = sum[n]((sum[d](X[n, d] * w[d]) - y[n]) ** 2) / 8.0 + 0.1 * sum[d](w[d] ** 4);
  let g = @loss / @w;
  let w2[d] = w[d] - lr * g[d];
  w2
}
let w1 = step(w0, X1, y1, lr);
let w2 = step(w1, X2, y2, lr);
let L = sum[n]((sum[d](X1[n, d] * w2[d]) - y1[n]) ** 2);
"""

    def loss(v):
        lr = v["lr"]

        def step(w, X, y):
            return w - lr * (2 * X.T @ (X @ w - y) / 8 + 0.4 * w ** 3)
        w = step(step(v["w0"], v["X1"], v["y1"]), v["X2"], v["y2"])
        return float(((v["X1"] @ w - v["y1"]) ** 2).sum())
    return inits, "use std::math::{sin, cos};" + body, loss, [("w0", [(0,), (2,)]), ("lr", [()])], {"lr": 0.05}


@case("interp_floor_index", "piecewise-linear table interpolation: the cell index is floor(q) as an integer computed from the data, the fraction carries the gradient")
def interp():
    inits = [Init("tab", (8,), "sin", (1,), 0.9, 1.0), Init("q", (10,), "sin", (1,), 0.55, 3.2, 3.45)]
    body = """
let fi[n] = floor(q[n]) as i32;
let fr[n] = q[n] - (fi[n] as {T});
let v[n] = tab[fi[n]] * (1.0 - fr[n]) + tab[fi[n] + 1] * fr[n];
let L = sum[n](v[n] * v[n] * ((n + 1) as {T}));
"""

    def loss(v):
        q, tab = v["q"], v["tab"]
        fi = np.floor(q).astype(int)
        fr = q - fi
        val = tab[fi] * (1 - fr) + tab[fi + 1] * fr
        return float((val * val * np.arange(1, 11)).sum())
    return inits, "use std::math::{sin, floor};" + body, loss, [("q", [(0,), (3,), (9,)]), ("tab", [(2,), (5,)])]


@case("discounted_returns_pg", "policy gradient: discounted returns as a backward recurrence G[t] = r[t] + gamma G[t+1], log-softmax policy, loss -sum log pi(a_t) G_t")
def pg():
    T_, D, A = 10, 3, 3
    inits = [Init("S", (T_, D), "sin", (3, 2), 0.4, 1.0), Init("W", (A, D), "cos", (1, 3), 0.5, 0.7),
             Init("r", (T_,), "cos", (1,), 0.8, 1.0)]
    body = """
let gamma: {T} = 0.9;
let G[9] = r[9];
let G[t in 0..9] = r[t] + gamma * G[t + 1];
let act[t in 0..10] = (t * 2 + 1) % 3;
let lg[t, a] = sum[d](S[t, d] * W[a, d]);
let lp = log_softmax(lg);
let L = -sum[t](lp[t, act[t]] * G[t]) / 10.0;
"""

    def loss(v):
        r, g = v["r"], v["gamma"]
        G = np.zeros(T_)
        G[9] = r[9]
        for t in range(8, -1, -1):
            G[t] = r[t] + g * G[t + 1]
        act = (np.arange(T_) * 2 + 1) % 3
        lp = log_softmax(v["S"] @ v["W"].T)
        return float(-(lp[np.arange(T_), act] * G).sum() / 10)
    return inits, "use std::math::{sin, cos};\nuse std::ml::log_softmax;" + body, loss, [
        ("W", [(0, 0), (2, 1)]), ("gamma", [()]), ("r", [(0,), (9,)])], {"gamma": 0.9}


@case("focal_clipped_bce", "binary focal loss on clipped probabilities (clip away from its bounds) with std sigmoid and a learned bias")
def focal():
    N, D = 12, 4
    inits = [Init("X", (N, D), "sin", (5, 2), 0.3, 1.2), Init("w", (D,), "cos", (1,), 0.7, 0.6)]
    body = """
let b: {T} = -0.1;
let y[n in 0..12] = if cos((n as {T}) * 1.1) > 0.0 { 1.0 } else { 0.0 };
let p[n] = clip(sigmoid(sum[d](X[n, d] * w[d]) + b), 0.001, 0.999);
let pt[n] = y[n] * p[n] + (1.0 - y[n]) * (1.0 - p[n]);
let L = -sum[n]((1.0 - pt[n]) ** 2 * log(pt[n])) / 12.0;
"""

    def loss(v):
        y = (np.cos(np.arange(N) * 1.1) > 0).astype(float)
        p = np.clip(sigmoid(v["X"] @ v["w"] + v["b"]), 0.001, 0.999)
        pt = y * p + (1 - y) * (1 - p)
        return float(-((1 - pt) ** 2 * np.log(pt)).mean())
    return inits, "use std::math::{sin, cos, log, clip};\nuse std::ml::sigmoid;" + body, loss, [
        ("w", [(0,), (3,)]), ("b", [()])], {"b": -0.1}


@case("window_local_stats", "rolling variance and max-shifted log-sum-exp over a window copied into a block-local array whose later reductions take their range from it")
def window_stats():
    inits = [Init("x", (14,), "sin", (1,), 0.7, 1.0)]
    body = """
let y[k in 0..10] = {
  let v[i in 0..5] = x[k + i];
  let m = sum[i](v[i]) / 5.0;
  let mx = max[i](v[i]);
  sum[i]((v[i] - m) ** 2) / 5.0 + mx + log(sum[i](exp(v[i] - mx)))
};
let L = sum[k](y[k] * ((k + 1) as {T}));
"""

    def loss(v):
        x = v["x"]
        tot = 0.0
        for k in range(10):
            w = x[k:k + 5]
            tot += (((w - w.mean()) ** 2).mean() + w.max() + np.log(np.exp(w - w.max()).sum())) * (k + 1)
        return float(tot)
    return inits, "use std::math::{sin, exp, log};" + body, loss, [("x", [(0,), (3,), (7,), (13,)])]


@case("hessian_vector_product", "Hessian-vector product at top level: the gradient of (gradient . v) w.r.t. the weights")
def hvp():
    N, D = 7, 4
    inits = [Init("X", (N, D), "sin", (3, 1), 0.45, 1.0), Init("w", (D,), "cos", (1,), 0.8, 0.5),
             Init("v", (D,), "sin", (2,), 0.6, 1.0)]
    body = """
let f = sum[n](log(1.0 + exp(sum[d](X[n, d] * w[d])))) + 0.1 * sum[d](w[d] ** 4);
let g = @f / @w;
let L = sum[d](g[d] * v[d]);
"""

    def loss(vv):
        X, w = vv["X"], vv["w"]
        g = X.T @ sigmoid(X @ w) + 0.4 * w ** 3
        return float(g @ vv["v"])
    return inits, "use std::math::{sin, cos, log, exp};" + body, loss, [("w", [(0,), (1,), (3,)]), ("X", [(2, 1)])]


@case("gradient_penalty", "WGAN-style gradient penalty: the norm of a critic's input gradient per sample, (|g| - 1)^2, differentiated w.r.t. the critic's weights")
def gp():
    N, D, K = 4, 3, 5
    inits = [Init("x", (N, D), "sin", (3, 1), 0.5, 1.0), Init("W", (K, D), "cos", (2, 1), 0.4, 0.9),
             Init("u", (K,), "sin", (1,), 0.7, 1.0)]
    body = """
let crit = sum[n, k](u[k] * tanh(sum[d](W[k, d] * x[n, d])));
let g = @crit / @x;
let gn[n] = sqrt(sum[d](g[n, d] ** 2));
let L = sum[n]((gn[n] - 1.0) ** 2) / 4.0;
"""

    def loss(v):
        x, W, u = v["x"], v["W"], v["u"]
        t = np.tanh(x @ W.T)
        g = (u * (1 - t * t)) @ W
        gn = np.sqrt((g * g).sum(1))
        return float(((gn - 1) ** 2).mean())
    return inits, "use std::math::{sin, cos, tanh, sqrt};" + body, loss, [("W", [(0, 0), (3, 2)]), ("u", [(1,), (4,)])]


if __name__ == "__main__":
    ge.CASES[:] = ge.CASES[FIRST:]
    ge.cli("gen_everyday2.py", __doc__)
