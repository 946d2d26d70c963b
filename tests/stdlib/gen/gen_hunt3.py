"""More programs of the session-18 hunt (gen_hunt2.py has the first 14): conv_transpose in 1-D,
lp and global pools, scatter_nd with repeated indices, onehot with negative indices, masked
softmax rows, NaN in argmax, batch_matmul broadcasting, gemm's transposes with a column C,
cubic resize, layer_normalization over two axes, SAME padding computed at run time, and a
gradient-descent recurrence through mse_loss. Expected values: NumPy loops written from the ONNX
definitions, central differences. Files under cases/outside/hunt3_*.ein, both tiers.
"""
import numpy as np

import hunt2_refs as R
from gen_hunt2 import F, rnd
from gen_select import modes_file


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt3_{name}.ein", purpose, uses=list(uses))


def conv_transpose_1d():
    t = prog("conv_transpose_1d", "ONNX ConvTranspose in 1-D with stride 3, pads and output_padding, and "
             "2-D with stride 2; gradient in W")
    X = t.let("X", rnd(81, (2, 2, 4)), F)
    W = t.let("W", rnd(82, (2, 3, 4)), F)
    B = t.let("B", np.array([0.1, -0.2, 0.3]), F)

    def ct(X, W, B, s, pads, op):
        N, C, L = X.shape
        M, K = W.shape[1], W.shape[2]
        full = (L - 1) * s + K + op
        Y = np.zeros((N, M, full))
        for i in range(L):
            for k in range(K):
                Y[:, :, i * s + k] += np.einsum("nc,cm->nm", X[:, :, i], W[:, :, k])
        Y = Y[:, :, pads[0]:full - pads[1]]
        return Y + B[None, :, None]
    t.check("conv_transpose(X, W, B, [3], [1, 2], [1])", ct(X, W, B, 3, [1, 2], 1), F)
    t.raw("let Y = conv_transpose(X, W, B, [3], [1, 2], [1]);", "let L = sum[n, m, o](Y[n, m, o] * Y[n, m, o]);")
    t.check("@L / @W", R.fd(lambda w: (ct(X, w, B, 3, [1, 2], 1) ** 2).sum(), W), F)
    t.write()


def pools_more():
    t = prog("pools_more", "lp_pool 1-D with p = 3 and 2-D with p = 2, global pools of a 3-D volume")
    X = t.let("X", rnd(91, (1, 2, 7)), F)

    def lp(X, K, s, p):
        out = (X.shape[-1] - K) // s + 1
        return np.stack([(np.abs(X[..., o * s:o * s + K]) ** p).sum(-1) ** (1 / p) for o in range(out)], -1)
    t.check("lp_pool(X, [3], [2], 3)", lp(X, 3, 2, 3), F)
    X2 = t.let("X2", rnd(92, (1, 1, 4, 5)), F)
    ref = np.zeros((1, 1, 3, 4))
    for i in range(3):
        for j in range(4):
            ref[0, 0, i, j] = np.sqrt((X2[0, 0, i:i + 2, j:j + 2] ** 2).sum())
    t.check("lp_pool(X2, [2, 2], [1, 1], 2)", ref, F)
    V = t.let("V", rnd(93, (2, 3, 2, 3, 4)), F)
    t.check("global_average_pool(V)", V.mean((2, 3, 4), keepdims=True), F)
    t.check("global_max_pool(V)", V.max((2, 3, 4), keepdims=True), F)
    t.write()


def indexing_more():
    t = prog("indexing_more", "scatter_nd with whole-row updates, onehot with negative indices (ONNX: from "
             "the end), softmax of a row masked to -inf everywhere (NaN, as NumPy), argmax with NaN")
    d = t.let("d", np.zeros((4, 3)), F)
    u = t.let("u", np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), F)
    ref = np.zeros((4, 3))
    ref[3] = [1.0, 2.0, 3.0]
    ref[1] = [4.0, 5.0, 6.0]
    t.check("scatter_nd(d, [[3], [1]], u)", ref, F)
    t.check("onehot([0, -1, 2, -3], 4, [0.0, 1.0])", np.eye(4)[[0, 3, 2, 1]], F)
    t.raw("let inf = 1.0 / 0.0;",
          "let z[i in 0..2, j in 0..3] = if i == 0 { (j as f64) * 0.5 } else { -inf };",
          "let sz = softmax(z);")
    t.check("sz[0]", R.softmax(np.array([0.0, 0.5, 1.0])), F)
    t.check("std::ml::is_nan(sz[1])", np.array([True, True, True]), "bool")
    t.raw("let w[j in 0..4] = if j == 2 { 0.0 / 0.0 } else { j as f64 };")
    t.check("std::array::argmax(w)", np.int32(2), "i32")
    t.write()


def products_more():
    t = prog("products_more", "batch_matmul broadcasting [2, 1, 3, 4] x [5, 4, 2], gemm with transA, transB, "
             "alpha, beta and a column C")
    a = t.let("a", rnd(101, (2, 1, 3, 4)), F)
    b = t.let("b", rnd(102, (5, 4, 2)), F)
    t.check("batch_matmul(a, b)", np.matmul(a, b), F)
    A = t.let("A", rnd(103, (4, 3)), F)
    Bm = t.let("Bm", rnd(104, (2, 4)), F)
    C = t.let("C", rnd(105, (3, 1)), F)
    t.check("gemm(A, Bm, C, 0.5, -2.0, 1, 1)", 0.5 * A.T @ Bm.T - 2.0 * C, F)
    t.write()


def cubic_resize():
    t = prog("cubic_resize", "resize cubic (a = -0.75, half_pixel, edge clamped) of a 1-D signal by 1.5 and of "
             "an image by (2, 0.5)")

    def cubic_1d(x, scale, axis):
        x = np.moveaxis(x, axis, -1)
        L = x.shape[-1]
        n = int(np.floor(L * scale))
        a = -0.75

        def w(s):
            s = abs(s)
            if s <= 1:
                return (a + 2) * s ** 3 - (a + 3) * s ** 2 + 1
            if s < 2:
                return a * s ** 3 - 5 * a * s ** 2 + 8 * a * s - 4 * a
            return 0.0
        out = np.zeros(x.shape[:-1] + (n,))
        for o in range(n):
            src = (o + 0.5) / scale - 0.5
            i0 = int(np.floor(src))
            f = src - i0
            for k in range(-1, 3):
                out[..., o] += w(k - f) * x[..., min(max(i0 + k, 0), L - 1)]
        return np.moveaxis(out, -1, axis)
    v = t.let("v", rnd(111, (1, 1, 6)), F)
    t.check('resize(v, [1.0, 1.0, 1.5], "cubic")', cubic_1d(v, 1.5, 2), F)
    X = t.let("X", rnd(112, (1, 1, 3, 4)), F)
    t.check('resize(X, [1.0, 1.0, 2.0, 0.5], "cubic")', cubic_1d(cubic_1d(X, 2.0, 2), 0.5, 3), F)
    t.write()


def norms_more():
    t = prog("norms_more", "layer_normalization over the last two axes (axis -2) and its gradient in X, "
             "SAME padding computed when the program runs (i64 pads) for a strided conv")
    X = t.let("X", rnd(121, (2, 3, 4)), F)
    g = t.let("g", rnd(122, (3, 4), 0.5, 1.5), F)
    b = t.let("b", rnd(123, (3, 4)), F)

    def ln2(X):
        m = X.mean((-2, -1), keepdims=True)
        v = X.var((-2, -1), keepdims=True)
        return (X - m) / np.sqrt(v + 1e-5) * g + b
    t.check("layer_normalization(X, g, b, 1e-5, -2)", ln2(X), F)
    t.raw("let Y = layer_normalization(X, g, b, 1e-5, -2);", "let L = sum[i, j, k](Y[i, j, k] * Y[i, j, k] * Y[i, j, k]);")
    t.check("@L / @X", R.fd(lambda x: (ln2(x) ** 3).sum(), X), F)
    Xi = t.let("Xi", rnd(124, (1, 1, 7, 7)), F)
    Wk = t.let("Wk", rnd(125, (1, 1, 3, 3)), F)
    # SAME_UPPER for stride 2: out = ceil(7 / 2) = 4, total pad = (4 - 1) * 2 + 3 - 7 = 2
    t.raw("let n: i64 = 7;", "let s: i64 = 2;", "let k: i64 = 3;",
          "let o = (n + s - 1) / s;", "let tot = (o - 1) * s + k - n;",
          "let pb = tot / 2;", "let pe = tot - pb;",
          "let Yc = conv(Xi, Wk, [], [s, s], [pb, pb, pe, pe], [1, 1], 1);")
    t.check("Yc", R.conv(Xi, Wk, None, [2, 2], [1, 1, 1, 1], [1, 1]), F)
    t.write()


def training_recurrence():
    t = prog("training_recurrence", "gradient descent as a recurrence over the weights through mse_loss and "
             "matmul (a NumPy training loop), 30 steps")
    X = t.let("X", rnd(131, (6, 2)), F)
    y = t.let("y", X @ np.array([1.5, -0.5]) + 0.25, F)
    t.raw("let W[t in 0..31, d in 0..2] = if t == 0 { 0.0 } else { "
          "{ let wp[e] = W[t - 1, e]; let L = mse_loss(matmul(X, wp), y); let gr = @L / @wp; wp[d] - 0.3 * gr[d] } };")
    w = np.zeros(2)
    for _ in range(30):
        gr = 2 * X.T @ (X @ w - y) / 6
        w = w - 0.3 * gr
    t.check("W[30]", w, F)
    t.write()


def recurrent_grads():
    t = prog("recurrent_grads", "gradients of a loss through ONNX GRU (forward) and RNN (reverse, tanh) in "
             "W, R and the initial state, against central differences")
    T, N, I, H = 4, 2, 3, 2
    X = t.let("X", rnd(141, (T, N, I)), F)
    W = t.let("W", rnd(142, (1, 3 * H, I)), F)
    Rr = t.let("Rr", rnd(143, (1, 3 * H, H)), F)
    B = t.let("B", rnd(144, (1, 6 * H)), F)
    h0 = t.let("h0", rnd(145, (1, N, H)), F)
    def gru(W, Rr, h0):
        return R.gru(X, W, Rr, B, h0)[:, None]
    wt = rnd(146, (T, 1, N, H))
    t.let("wt", wt, F)
    t.raw('let Y = gru(X, W, Rr, B, h0, 2, "forward", 0);', "let L = sum[s, d, n, j](Y[s, d, n, j] * wt[s, d, n, j]);")
    loss = lambda W, Rr, h0: (gru(W, Rr, h0) * wt).sum()
    t.check("L", loss(W, Rr, h0), F)
    t.check("@L / @W", R.fd(lambda v: loss(v, Rr, h0), W), F)
    t.check("@L / @Rr", R.fd(lambda v: loss(W, v, h0), Rr), F)
    t.check("@L / @h0", R.fd(lambda v: loss(W, Rr, v), h0), F)
    W1 = t.let("W1", rnd(147, (1, H, I)), F)
    R1 = t.let("R1", rnd(148, (1, H, H)), F)

    def rnn_rev(W1):
        h = np.zeros((N, H))
        res = {}
        for s in range(T - 1, -1, -1):
            h = np.tanh(X[s] @ W1[0].T + h @ R1[0].T)
            res[s] = h
        return np.stack([res[s] for s in range(T)])[:, None]
    t.raw('let Q = rnn(X, W1, R1, [], [], 2, "reverse", "Tanh");', "let G = sum[s, d, n, j](Q[s, d, n, j] * wt[s, d, n, j]);")
    t.check("Q", rnn_rev(W1), F)
    t.check("@G / @W1", R.fd(lambda v: (rnn_rev(v) * wt).sum(), W1), F)
    t.write()


def generate():
    for f in (conv_transpose_1d, pools_more, indexing_more, products_more, cubic_resize, norms_more,
              training_recurrence, recurrent_grads):
        f()
