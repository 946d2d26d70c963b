#!/usr/bin/env python3
"""Gradient programs of session 16 (helper grad): requests where an ML user writes them.

Integer labels read inside functions (`lp[n, t[n]]`, gather, one-hot), gradients requested inside
`fn` bodies and per step of recurrences, functions calling functions, gradients with respect to
a slice or a scalar, kinks away from the kink. Same conventions as gen_everyday.py
(deterministic inputs mirrored here, expected values NumPy f64 central differences or a NumPy
loop with hand-derived gradients, never ein's output); unlike it, each case writes its own
requests (often inside functions), so a case returns (source, printed expressions, expected).

  gen_everyday3.py --write [SKIP..]   write these cases' goldens beside this script
  gen_everyday3.py --probe EIN [-k S] run ein in EIN_JIT=never and always, compare, time
Run with the system python3 (numpy).
"""
import sys
import numpy as np

import gen_everyday as ge
from gen_everyday import Init, sigmoid, log_softmax, softmax

CASES3 = []


def case(name, doc, dtypes=("f64",), modes="never|always"):
    def deco(fn):
        CASES3.append((name, doc, dtypes, fn))
        ge.MODES[name] = modes
        return fn
    return deco


def fd(loss, vals, p, ix):
    """Central difference of loss(vals) by vals[p][ix] (ix = () for a scalar)."""
    base = vals[p]
    cur = float(base[ix] if ix else base)
    h = 1e-6 * max(1.0, abs(cur))

    def at(d):
        v2 = dict(vals)
        if ix:
            a = np.array(base, dtype=float).copy()
            a[ix] += d
            v2[p] = a
        else:
            v2[p] = cur + d
        return loss(v2)
    return (at(h) - at(-h)) / (2 * h)


def checks(loss, vals, reqs, with_loss=True):
    """Printed expressions g_p[ix] and their expected values (loss first when with_loss)."""
    outs, want = (["L"], [loss(vals)]) if with_loss else ([], [])
    for p, idxs in reqs:
        for ix in idxs:
            outs.append(f"g_{p}[{', '.join(map(str, ix))}]" if ix else f"g_{p}")
            want.append(fd(loss, vals, p, ix))
    return outs, want


def head(inits, T, uses):
    return "\n".join(uses + [i.ein(T) for i in inits]) + "\n"


def values(inits):
    return {i.name: i.value() for i in inits}


# ---------------------------------------------------------------------------------------------

XENT_INITS = [Init("X", (8, 5), "sin", (13, 7), 0.1, 1.0), Init("W", (4, 5), "cos", (5, 1), 0.11, 0.6)]
LABELS = "let t[n in 0..8] = ((n * 3 + 1) % 4) as i64;\n"
LABELS_NP = (np.arange(8) * 3 + 1) % 4


def xent_loss(v):
    return float(-log_softmax(v["X"] @ v["W"].T)[np.arange(8), LABELS_NP].mean())


def xent(T, loss_src, uses=()):
    src = head(XENT_INITS, T, ["use std::math::{sin, cos, exp, log};"] + list(uses)) + LABELS + """
let z[n, c] = sum[d](X[n, d] * W[c, d]);
let m[n] = max[c](z[n, c]);
let lp[n, c] = z[n, c] - m[n] - log(sum[k](exp(z[n, k] - m[n])));
""" + loss_src + "let g_W = @L / @W;\nlet g_X = @L / @X;\n"
    outs, want = checks(xent_loss, values(XENT_INITS), [("W", [(0, 0), (1, 3), (3, 4)]), ("X", [(2, 1), (7, 4)])])
    return src, outs, want


@case("xent_labels_fn", "softmax cross-entropy, the negative log-likelihood of integer labels read in a function `lp[n, t[n]]`", dtypes=("f64", "f32"))
def xent_labels_fn(T):
    return xent(T, "fn nll(lp, t) { let l[n] = -lp[n, t[n]]; sum[n](l[n]) / (len(t) as {T}) }\nlet L = nll(lp, t);\n")


@case("xent_labels_fn_inline_sum", "the same negative log-likelihood in a function, the label read inside the sum")
def xent_labels_fn_inline_sum(T):
    return xent(T, "fn nll(lp, t) { -sum[n](lp[n, t[n]]) / (len(t) as {T}) }\nlet L = nll(lp, t);\n")


@case("xent_labels_top", "the negative log-likelihood of integer labels at top level through a block-local array")
def xent_labels_top(T):
    return xent(T, "let L = { let l[n] = -lp[n, t[n]]; sum[n](l[n]) / 8.0 };\n")


@case("xent_gather_elements", "the negative log-likelihood through std::ml::gather_elements of [N, 1] labels")
def xent_gather_elements(T):
    return xent(T, "let t2[n in 0..8, k in 0..1] = t[n];\nlet s = gather_elements(lp, t2, 1);\nlet L = -sum[n](s[n, 0]) / 8.0;\n",
                ["use std::ml::gather_elements;"])


@case("xent_onehot", "the negative log-likelihood through std::ml::onehot of the labels")
def xent_onehot(T):
    return xent(T, "let oh = onehot(t, 4, [0.0, 1.0]);\nlet L = -sum[n, c](oh[n, c] * lp[n, c]) / 8.0;\n",
                ["use std::ml::onehot;"])


@case("xent_labels_fn_gather", "the negative log-likelihood in a function through std::ml::gather_elements")
def xent_labels_fn_gather(T):
    return xent(T, "fn nll(lp, t) {\n  let t2[n, k in 0..1] = t[n];\n  let s = gather_elements(lp, t2, 1);\n  -sum[n](s[n, 0]) / (len(t) as {T})\n}\nlet L = nll(lp, t);\n",
                ["use std::ml::gather_elements;"])


MLP_INITS = [Init("X", (6, 5), "sin", (13, 7), 0.1, 1.0), Init("W1", (7, 5), "cos", (5, 1), 0.11, 0.5),
             Init("b1", (7,), "sin", (3,), 0.2, 0.1), Init("W2", (3, 7), "sin", (7, 3), 0.07, 0.6)]


def mlp_loss(v, N=6):
    y = (np.arange(N) * 2 + 1) % 3
    h = np.tanh(v["X"][:N] @ v["W1"].T + v["b1"])
    return float(-log_softmax(h @ v["W2"].T)[np.arange(N), y].mean())


MLP_FN = """
fn loss(X, W1, b1, W2, t) {
  let h[n, j] = tanh(sum[d](X[n, d] * W1[j, d]) + b1[j]);
  let z[n, c] = sum[j](h[n, j] * W2[c, j]);
  let m[n] = max[c](z[n, c]);
  let lse[n] = m[n] + log(sum[c](exp(z[n, c] - m[n])));
  sum[n](lse[n] - z[n, t[n]]) / (len(t) as {T})
}
"""


@case("mlp_grad_in_fn", "a two-layer tanh MLP with softmax cross-entropy over integer labels; the training step's gradients requested inside a function", dtypes=("f64", "f32"))
def mlp_grad_in_fn(T):
    src = head(MLP_INITS, T, ["use std::math::{sin, cos, exp, log, tanh};"]) + MLP_FN + """
fn grads(X, W1, b1, W2, t) {
  let L = loss(X, W1, b1, W2, t);
  (L, @L / @W1, @L / @b1, @L / @W2)
}
let t[n in 0..6] = ((n * 2 + 1) % 3) as i64;
let (L, g_W1, g_b1, g_W2) = grads(X, W1, b1, W2, t);
"""
    outs, want = checks(mlp_loss, values(MLP_INITS), [("W1", [(0, 0), (6, 4), (3, 2)]), ("b1", [(2,)]), ("W2", [(1, 5), (2, 0)])])
    return src, outs, want


@case("mlp_grad_in_fn_two_batches", "the training step's gradient function called on two batch sizes (extents known only per call)")
def mlp_grad_in_fn_two_batches(T):
    src = head(MLP_INITS, T, ["use std::math::{sin, cos, exp, log, tanh};"]) + MLP_FN + """
fn grad_W1(X, W1, b1, W2, t) { let L = loss(X, W1, b1, W2, t); @L / @W1 }
let t[n in 0..6] = ((n * 2 + 1) % 3) as i64;
let X4[n in 0..4, d in 0..5] = X[n, d];
let t4[n in 0..4] = t[n];
let g_a = grad_W1(X, W1, b1, W2, t);
let g_b = grad_W1(X4, W1, b1, W2, t4);
"""
    v = values(MLP_INITS)
    outs = ["g_a[1, 2]", "g_a[5, 0]", "g_b[1, 2]", "g_b[5, 0]"]
    want = [fd(mlp_loss, v, "W1", (1, 2)), fd(mlp_loss, v, "W1", (5, 0)),
            fd(lambda vv: mlp_loss(vv, 4), v, "W1", (1, 2)), fd(lambda vv: mlp_loss(vv, 4), v, "W1", (5, 0))]
    return src, outs, want


LR_INITS = [Init("X", (12, 3), "sin", (7, 3), 0.17, 1.5), Init("w0", (3,), "cos", (1,), 0.4, 0.3)]


@case("logreg_sgd_fn_steps", "logistic regression trained by 15 gradient steps, each step a function whose body requests @loss/@w, called per step of a recurrence")
def logreg_sgd(T):
    src = head(LR_INITS, T, ["use std::math::{sin, cos, log, exp};"]) + """
let y[n in 0..12] = if sin((n as {T}) * 1.3) > 0.0 { 1.0 } else { 0.0 };
fn step(w, X, y, lr) {
  let z[n] = sum[d](X[n, d] * w[d]);
  let L = sum[n](log(1.0 + exp(z[n])) - y[n] * z[n]) / (len(y) as {T}) + 0.05 * sum[d](w[d] * w[d]);
  let g = @L / @w;
  let w1[d] = w[d] - lr * g[d];
  w1
}
let w[0, d in 0..3] = w0[d];
let w[k in 1..16, d in 0..3] = step(w[k - 1], X, y, 0.5)[d];
"""
    v = values(LR_INITS)
    y = (np.sin(np.arange(12) * 1.3) > 0).astype(float)
    w = v["w0"].copy()
    for _ in range(15):  # the gradient by hand: X^T (sigmoid(Xw) - y) / N + 0.1 w
        w = w - 0.5 * (v["X"].T @ (sigmoid(v["X"] @ w) - y) / 12 + 0.1 * w)
    return src, ["w[15, 0]", "w[15, 1]", "w[15, 2]"], list(w)


RNN_INITS = [Init("x", (9, 3), "sin", (5, 3), 0.21, 1.0), Init("W", (4, 4), "cos", (3, 2), 0.31, 0.4),
             Init("U", (4, 3), "sin", (2, 1), 0.37, 0.5), Init("b", (4,), "cos", (1,), 0.9, 0.1),
             Init("v", (4,), "sin", (1,), 0.8, 1.0)]


def rnn_loss(p):
    h = np.zeros(4)
    acc = 0.0
    for t in range(9):
        h = np.tanh(p["W"] @ h + p["U"] @ p["x"][t] + p["b"])
        acc += (h @ p["v"] - 0.3) ** 2
    return float(acc / 9)


@case("rnn_tanh_bptt", "an Elman RNN unrolled as a recurrence from zero, squared error of a readout at every step; backpropagation through time")
def rnn_bptt(T):
    src = head(RNN_INITS, T, ["use std::math::{sin, cos, tanh};"]) + """
let h[0, j in 0..4] = tanh(sum[d](U[j, d] * x[0, d]) + b[j]);
let h[t in 1..9, j in 0..4] = tanh(sum[k](W[j, k] * h[t - 1, k]) + sum[d](U[j, d] * x[t, d]) + b[j]);
let L = sum[t]((sum[j](h[t, j] * v[j]) - 0.3) ** 2) / 9.0;
let g_W = @L / @W;
let g_U = @L / @U;
let g_b = @L / @b;
let g_x = @L / @x;
"""
    outs, want = checks(rnn_loss, values(RNN_INITS), [("W", [(0, 1), (3, 3)]), ("U", [(2, 0)]), ("b", [(1,)]), ("x", [(0, 2), (8, 1)])])
    return src, outs, want


GRU_INITS = [Init("x", (6, 3), "sin", (5, 3), 0.21, 1.0), Init("Wz", (3, 3), "cos", (3, 2), 0.31, 0.5),
             Init("Wh", (3, 3), "sin", (2, 1), 0.37, 0.6), Init("y", (6, 3), "cos", (1, 4), 0.3, 0.5)]


# The step's gates as block-local arrays of the previous state (both GRU cases).
GRU_STEP = """
fn sig(a) { 1.0 / (1.0 + exp(-a)) }
let h[0, j in 0..3] = 0.1;
let h[t in 1..6, j in 0..3] = {
  let hp[k in 0..3] = h[t - 1, k];
  let z[i in 0..3] = sig(sum[k](Wz[i, k] * hp[k]) + x[t, i]);
  let c[i in 0..3] = tanh(sum[k](Wh[i, k] * hp[k]) + x[t, i]);
"""
GRU_CELL = GRU_STEP + """  (1.0 - z[j]) * hp[j] + z[j] * c[j]
};
"""


def gru_states(v, h0=0.1):
    hs = [np.full(3, h0)]
    for t in range(1, 6):
        hp = hs[-1]
        z = sigmoid(v["Wz"] @ hp + v["x"][t])
        c = np.tanh(v["Wh"] @ hp + v["x"][t])
        hs.append((1 - z) * hp + z * c)
    return hs


def gru_loss(v):
    hs = gru_states(v)
    return float(sum(((h - v["y"][t]) ** 2).sum() for t, h in enumerate(hs)))


@case("gru_cell_block_locals_bptt", "a GRU-style cell written as a recurrence whose step declares its gates as block-local arrays from the previous state; backpropagation through time", dtypes=("f64", "f32"))
def gru_bptt(T):
    src = head(GRU_INITS, T, ["use std::math::{sin, cos, tanh, exp};"]) + GRU_CELL + """
let L = sum[t, j]((h[t, j] - y[t, j]) ** 2);
let g_Wz = @L / @Wz;
let g_Wh = @L / @Wh;
let g_x = @L / @x;
"""
    outs, want = checks(gru_loss, values(GRU_INITS), [("Wz", [(0, 0), (1, 2), (2, 1)]), ("Wh", [(2, 0), (0, 2)]), ("x", [(1, 0), (5, 2)])])
    return src, outs, want


@case("gru_cell_local_grad", "the GRU-style step requests the gradient of its own one-step loss w.r.t. the previous state (held constant per step) and takes a correction step along it")
def gru_local(T):
    src = head(GRU_INITS, T, ["use std::math::{sin, cos, tanh, exp};"]) + GRU_STEP + """  let hn[i in 0..3] = (1.0 - z[i]) * hp[i] + z[i] * c[i];
  let l = sum[i]((hn[i] - y[t, i]) ** 2);
  let g = @l / @hp;
  hn[j] - 0.1 * g[j]
};
"""
    v = values(GRU_INITS)
    h = np.full(3, 0.1)
    for t in range(1, 6):
        def step(hp, t=t):
            z = sigmoid(v["Wz"] @ hp + v["x"][t])
            c = np.tanh(v["Wh"] @ hp + v["x"][t])
            return (1 - z) * hp + z * c
        g = np.array([fd(lambda vv, t=t: float(((step(vv["hp"]) - v["y"][t]) ** 2).sum()), {"hp": h}, "hp", (k,)) for k in range(3)])
        h = step(h) - 0.1 * g
    return src, ["h[5, 0]", "h[5, 1]", "h[5, 2]"], list(h)


LSTM_INITS = [Init("x", (5, 3), "sin", (5, 3), 0.21, 1.0), Init("Wf", (3, 3), "cos", (3, 2), 0.31, 0.5),
              Init("Wg", (3, 3), "sin", (2, 1), 0.37, 0.6)]


def lstm_loss(v):
    h, c = np.full(3, 0.1), np.full(3, 0.1)
    acc = (h * h).sum()
    for t in range(1, 5):
        f = sigmoid(v["Wf"] @ h + v["x"][t])
        g = np.tanh(v["Wg"] @ h + v["x"][t])
        c = f * c + (1 - f) * g
        h = np.tanh(c)
        acc += (h * h).sum()
    return float(acc)


@case("lstm_packed_state_block_locals", "an LSTM-style cell whose cell and hidden states share one recurrence S[t, s, j] (s = 0: c, 1: h), gates and the new cell state as block-local arrays of the step")
def lstm_packed(T):
    src = head(LSTM_INITS, T, ["use std::math::{sin, cos, tanh, exp};"]) + """
fn sig(a) { 1.0 / (1.0 + exp(-a)) }
let S[0, s in 0..2, j in 0..3] = 0.1;
let S[t in 1..5, s in 0..2, j in 0..3] = {
  let hp[k in 0..3] = S[t - 1, 1, k];
  let cp[k in 0..3] = S[t - 1, 0, k];
  let f[i in 0..3] = sig(sum[k](Wf[i, k] * hp[k]) + x[t, i]);
  let g[i in 0..3] = tanh(sum[k](Wg[i, k] * hp[k]) + x[t, i]);
  let c[i in 0..3] = f[i] * cp[i] + (1.0 - f[i]) * g[i];
  if s == 0 { c[j] } else { tanh(c[j]) }
};
let L = sum[t, j](S[t, 1, j] * S[t, 1, j]);
let g_Wf = @L / @Wf;
let g_Wg = @L / @Wg;
let g_x = @L / @x;
"""
    outs, want = checks(lstm_loss, values(LSTM_INITS), [("Wf", [(0, 0), (2, 1)]), ("Wg", [(1, 2)]), ("x", [(1, 1), (4, 0)])])
    return src, outs, want


SX_INITS = [Init("X", (5, 4), "sin", (3, 1), 0.7, 1.0), Init("W", (3, 4), "cos", (2, 1), 0.3, 0.5),
            Init("b", (3,), "sin", (1,), 0.4, 0.1)]


def sx_loss(v):
    y = np.array([0, 2, 1, 1, 0])
    z = v["X"] @ v["W"].T + v["b"]
    return float(-log_softmax(z)[np.arange(5), y].mean())


@case("std_xent_i64_labels_fn", "std::ml::softmax_cross_entropy_loss of linear over i64 labels, gradients requested in a function, accuracy from argmax beside them")
def std_xent(T):
    src = head(SX_INITS, T, ["use std::math::{sin, cos};", "use std::ml::{softmax_cross_entropy_loss, linear, log_softmax};"]) + """
let y = [0, 2, 1, 1, 0] as [i64];
fn grads(X, W, b, y) {
  let L = softmax_cross_entropy_loss(linear(X, W, b), y);
  let lp = log_softmax(linear(X, W, b));
  let pred[n] = argmax[c](lp[n, c]);
  let acc = sum[n](if (pred[n] as i64) == y[n] { 1.0 } else { 0.0 });
  (L, acc, @L / @W, @L / @b)
}
let (L, acc, g_W, g_b) = grads(X, W, b, y);
"""
    v = values(SX_INITS)
    outs, want = checks(sx_loss, v, [("W", [(1, 2), (0, 3)]), ("b", [(2,)])])
    z = v["X"] @ v["W"].T + v["b"]
    return src, outs + ["acc"], want + [float((z.argmax(1) == np.array([0, 2, 1, 1, 0])).sum())]


ATT_INITS = [Init("X", (5, 4), "sin", (13, 7), 0.1, 1.0), Init("Wq", (4, 3), "cos", (3, 1), 0.05, 0.5),
             Init("Wk", (4, 3), "sin", (5, 1), 0.03, 0.5), Init("Wv", (4, 3), "cos", (1, 7), 0.02, 0.5)]


def att_loss(v):
    Q, K, V = v["X"] @ v["Wq"], v["X"] @ v["Wk"], v["X"] @ v["Wv"]
    O = softmax(Q @ K.T / np.sqrt(3.0)) @ V
    return float((O * O).sum() + O[:, 0].sum())


@case("attention_fn_std_softmax", "single-head attention in a function through std::ml::softmax, gradients requested inside the function")
def attention_fn(T):
    src = head(ATT_INITS, T, ["use std::math::{sin, cos, sqrt};", "use std::ml::softmax;"]) + """
fn head(X, Wq, Wk, Wv) {
  let Q[n, e] = sum[d](X[n, d] * Wq[d, e]);
  let K[n, e] = sum[d](X[n, d] * Wk[d, e]);
  let V[n, e] = sum[d](X[n, d] * Wv[d, e]);
  let S[n, m] = sum[e](Q[n, e] * K[m, e]) / sqrt(len(Wq[0]) as {T});
  let A = softmax(S);
  let O[n, e] = sum[m](A[n, m] * V[m, e]);
  O
}
fn grads(X, Wq, Wk, Wv) {
  let O = head(X, Wq, Wk, Wv);
  let L = sum[n, e](O[n, e] * O[n, e]) + sum[n](O[n, 0]);
  (L, @L / @Wq, @L / @Wk, @L / @Wv)
}
let (L, g_Wq, g_Wk, g_Wv) = grads(X, Wq, Wk, Wv);
"""
    outs, want = checks(att_loss, values(ATT_INITS), [("Wq", [(1, 2), (3, 0)]), ("Wk", [(0, 1)]), ("Wv", [(2, 2)])])
    return src, outs, want


LN_INITS = [Init("X", (4, 6), "sin", (13, 7), 0.1, 1.0), Init("W", (6, 6), "cos", (5, 1), 0.11, 0.4),
            Init("g", (6,), "cos", (1,), 0.05, 1.0), Init("be", (6,), "sin", (2,), 0.3, 0.05),
            Init("r", (4, 6), "cos", (3, 2), 0.2, 1.0)]


def ln_loss(v):
    h = v["X"] @ v["W"].T
    mu = h.mean(1, keepdims=True)
    var = ((h - mu) ** 2).mean(1, keepdims=True)
    y = (h - mu) / np.sqrt(var + 1e-5) * v["g"] + v["be"]
    return float((y * v["r"]).sum() + 0.1 * (y ** 2).sum())


@case("layernorm_fn_calls_fn", "layer norm written as a function called by a block function called by the loss (functions calling functions)")
def layernorm_fn(T):
    src = head(LN_INITS, T, ["use std::math::{sin, cos, sqrt};"]) + """
fn mean_last(x) { let m[n] = sum[j](x[n, j]) / (len(x[0]) as {T}); m }
fn layer_norm(x, g, be) {
  let mu = mean_last(x);
  let c[n, j] = x[n, j] - mu[n];
  let var = mean_last([[c[n, j] * c[n, j] | j in 0..len(x[0])] | n in 0..len(x)]);
  let y[n, j] = c[n, j] / sqrt(var[n] + 1e-5) * g[j] + be[j];
  y
}
fn block(X, W, g, be) { let h[n, j] = sum[d](X[n, d] * W[j, d]); layer_norm(h, g, be) }
let y = block(X, W, g, be);
let L = sum[n, j](y[n, j] * r[n, j]) + 0.1 * sum[n, j](y[n, j] ** 2);
let g_W = @L / @W;
let g_g = @L / @g;
let g_be = @L / @be;
let g_X = @L / @X;
"""
    outs, want = checks(ln_loss, values(LN_INITS), [("W", [(0, 1), (5, 3)]), ("g", [(2,)]), ("be", [(4,)]), ("X", [(1, 1)])])
    return src, outs, want


CV_INITS = [Init("x", (2, 2, 12), "sin", (5, 3, 1), 0.3, 1.0), Init("w", (3, 2, 3), "cos", (7, 5, 3), 0.1, 0.4),
            Init("b", (3,), "sin", (1,), 0.7, 0.1), Init("tg", (2, 3, 12), "cos", (3, 1, 2), 0.2, 0.3)]


def cv_loss(v):
    x = np.pad(v["x"], ((0, 0), (0, 0), (1, 1)))
    y = np.zeros((2, 3, 12))
    for k in range(3):
        y += np.einsum("nct,oc->not", x[:, :, k:k + 12], v["w"][:, :, k])
    y += v["b"][None, :, None]
    r = np.maximum(y, 0.0)
    return float(((r - v["tg"]) ** 2).mean())


@case("conv1d_same_relu", "conv1d with zero padding written with where, relu as max(y, 0), mean squared error")
def conv1d(T):
    src = head(CV_INITS, T, ["use std::math::{sin, cos, max};"]) + """
let y[n, o, t in 0..12] = sum[c, k](x[n, c, t + k - 1] * w[o, c, k] where t + k >= 1 && t + k - 1 < 12) + b[o];
let r[n, o, t] = max(y[n, o, t], 0.0);
let L = sum[n, o, t]((r[n, o, t] - tg[n, o, t]) ** 2) / 72.0;
let g_w = @L / @w;
let g_b = @L / @b;
let g_x = @L / @x;
"""
    outs, want = checks(cv_loss, values(CV_INITS), [("w", [(0, 0, 0), (2, 1, 2), (1, 0, 1)]), ("b", [(0,), (2,)]), ("x", [(0, 0, 0), (1, 1, 11)])])
    return src, outs, want


HB_INITS = [Init("X", (10, 3), "sin", (7, 3), 0.29, 1.5), Init("w", (3,), "cos", (1,), 0.4, 0.8),
            Init("y", (10,), "sin", (1,), 1.1, 1.3)]


def hb_loss(v):
    r = v["X"] @ v["w"] + v["c0"] - v["y"]
    l = np.where(np.abs(r) < 0.5, 0.5 * r * r, 0.5 * (np.abs(r) - 0.25))
    keep = np.arange(10) % 3 != 1
    return float(l[keep].sum() / keep.sum())


@case("huber_if_where_mask", "Huber loss written with if on |r| in a function, samples masked with where on the index, bias a scalar")
def huber(T):
    src = head(HB_INITS, T, ["use std::math::{sin, cos, abs};"]) + """
let c0: {T} = 0.2;
fn huber(r, d) { if abs(r) < d { 0.5 * r * r } else { d * (abs(r) - 0.5 * d) } }
let r[n] = sum[k](X[n, k] * w[k]) + c0 - y[n];
let L = sum[n](huber(r[n], 0.5) where n % 3 != 1) / 7.0;
let g_w = @L / @w;
let g_c0 = @L / @c0;
let g_y = @L / @y;
"""
    v = values(HB_INITS)
    v["c0"] = 0.2
    r = v["X"] @ v["w"] + 0.2 - v["y"]
    assert np.abs(np.abs(r) - 0.5).min() > 1e-3  # away from the kink
    outs, want = checks(hb_loss, v, [("w", [(0,), (2,)]), ("c0", [()]), ("y", [(0,), (1,), (4,)])])
    return src, outs, want


NET_INITS = [Init("x", (5,), "sin", (3,), 0.7, 1.0), Init("W1", (4, 5), "cos", (5, 1), 0.31, 0.7),
             Init("W2", (3, 4), "sin", (7, 3), 0.17, 0.8), Init("tg", (3,), "cos", (2,), 0.5, 0.4)]


def net_loss(v):
    def act(a):
        return np.maximum(a, 0) + 0.1 * np.minimum(a, 0)
    o = act(v["W2"] @ act(v["W1"] @ v["x"]))
    return float(np.abs(o - v["tg"]).sum())


@case("kinks_nested_fns", "leaky activation from max/min, a layer function called twice by a net function, L1 loss with abs (all away from their kinks)")
def kinks(T):
    src = head(NET_INITS, T, ["use std::math::{sin, cos, abs, max, min};"]) + """
fn act(a) { max(a, 0.0) + 0.1 * min(a, 0.0) }
fn layer(W, x) { let y[i] = act(sum[j](W[i, j] * x[j])); y }
fn net(W1, W2, x) { layer(W2, layer(W1, x)) }
let o = net(W1, W2, x);
let L = sum[i](abs(o[i] - tg[i]));
let g_W1 = @L / @W1;
let g_W2 = @L / @W2;
let g_x = @L / @x;
"""
    v = values(NET_INITS)
    a1 = v["W1"] @ v["x"]
    o = np.maximum(v["W2"] @ np.maximum(a1, 0.1 * a1), 0)
    assert min(np.abs(a1).min(), np.abs(v["W2"] @ (np.maximum(a1, 0) + 0.1 * np.minimum(a1, 0))).min()) > 1e-3
    outs, want = checks(net_loss, v, [("W1", [(0, 1), (3, 4), (2, 1)]), ("W2", [(0, 1), (2, 3)]), ("x", [(1,), (4,)])])
    return src, outs, want


SL_INITS = [Init("W", (3, 4), "cos", (5, 1), 0.31, 0.7), Init("X", (6, 4), "sin", (3, 7), 0.13, 1.0)]


def sl_loss(v):
    W = v["W"].copy()
    W[1] = v["w1"]
    z = v["X"] @ W.T / v["temp"]
    return float(-log_softmax(z)[np.arange(6), np.arange(6) % 3].mean())


@case("slice_and_scalar_params", "gradients with respect to a row taken from a matrix (a slice binding) and a scalar temperature")
def slices(T):
    src = head(SL_INITS, T, ["use std::math::{sin, cos, exp, log};"]) + """
let temp: {T} = 1.7;
let w1 = W[1];
let Wm[c in 0..3, d in 0..4] = if c == 1 { w1[d] } else { W[c, d] };
let z[n in 0..6, c in 0..3] = sum[d](X[n, d] * Wm[c, d]) / temp;
let lse[n] = log(sum[c](exp(z[n, c])));
let L = sum[n](lse[n] - z[n, n % 3]) / 6.0;
let g_w1 = @L / @w1;
let g_temp = @L / @temp;
let g_W = @L / @W;
"""
    v = values(SL_INITS)
    v["temp"] = 1.7
    v["w1"] = v["W"][1].copy()
    outs, want = checks(sl_loss, v, [("w1", [(0,), (3,)]), ("temp", [()])])
    # By W, w1 is W's row 1 (the derivative follows w1 = W[1]): the loss of W alone.
    def by_W(vv):
        return sl_loss(dict(vv, w1=vv["W"][1]))
    outs += ["g_W[1, 2]", "g_W[0, 2]"]
    want += [fd(by_W, v, "W", (1, 2)), fd(by_W, v, "W", (0, 2))]
    return src, outs, want


EMB_INITS = [Init("E", (6, 3), "sin", (5, 3), 0.23, 0.8), Init("Wo", (6, 3), "cos", (3, 2), 0.19, 0.7)]
TOK = np.array([1, 4, 4, 0, 2, 5, 1])


def emb_loss(v):
    e = v["E"][TOK[:-1]]
    z = e @ v["Wo"].T
    return float(-log_softmax(z)[np.arange(6), TOK[1:]].mean())


@case("embedding_next_token_fn", "next-token prediction: an embedding read at integer tokens and the label read at the next token, both inside a function that requests the gradients")
def embedding(T):
    src = head(EMB_INITS, T, ["use std::math::{sin, cos, exp, log};"]) + """
fn grads(E, Wo, tok) {
  let n = len(tok) - 1;
  let z[p in 0..n, c] = sum[d](E[tok[p], d] * Wo[c, d]);
  let lse[p] = log(sum[c](exp(z[p, c])));
  let L = sum[p](lse[p] - z[p, tok[p + 1]]) / (n as {T});
  (L, @L / @E, @L / @Wo)
}
let tok = [1, 4, 4, 0, 2, 5, 1];
let (L, g_E, g_Wo) = grads(E, Wo, tok);
"""
    outs, want = checks(emb_loss, values(EMB_INITS), [("E", [(4, 0), (1, 2), (3, 1)]), ("Wo", [(5, 1), (0, 0)])])
    return src, outs, want


LSQ_INITS = [Init("A", (7, 3), "sin", (7, 3), 0.23, 1.0), Init("bb", (7,), "cos", (1,), 0.5, 1.0)]


@case("lsq_gd_fn_loop_scalar_lr", "least squares by gradient descent: a function returns w - lr * @L/@w, iterated by a recurrence whose step reads the previous iterate whole")
def lsq(T):
    src = head(LSQ_INITS, T, ["use std::math::{sin, cos};"]) + """
fn step(w, A, bb, lr) {
  let r[i] = sum[j](A[i, j] * w[j]) - bb[i];
  let L = sum[i](r[i] * r[i]) / (len(bb) as {T});
  let g = @L / @w;
  [w[j] - lr * g[j] | j in 0..len(w)]
}
let w[0, j in 0..3] = 0.0;
let w[k in 1..25, j in 0..3] = step(w[k - 1], A, bb, 0.3)[j];
let gl = {
  let wf[j in 0..3] = w[24, j];
  let L = sum[i]((sum[j](A[i, j] * wf[j]) - bb[i]) ** 2);
  @L / @wf
};
"""
    v = values(LSQ_INITS)
    A, b = v["A"], v["bb"]
    w = np.zeros(3)
    for _ in range(24):  # by hand: dL/dw = 2 A^T (A w - b) / N
        w = w - 0.3 * 2 * A.T @ (A @ w - b) / 7
    g = 2 * A.T @ (A @ w - b)
    return src, ["w[24, 0]", "w[24, 2]", "gl[0]", "gl[1]"], [w[0], w[2], g[0], g[1]]


# ---------------------------------------------------------------------------------------------

def build3(name, T):
    fn = dict((c[0], c[3]) for c in CASES3)[name]
    src, outs, want = fn(T)
    return src.replace("{T}", T), outs, want


if __name__ == "__main__":
    ge.CASES[:] = [(n, d, t, None) for n, d, t, _ in CASES3]
    ge.build = build3
    ge.cli("gen_everyday3.py", __doc__)
