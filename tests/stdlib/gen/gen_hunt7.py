"""The sixth outside-programs hunt (session 22, issue 13 item 2), on ground no hunt reached:
classical ML trained with `@loss / @w` inside a step function called per step of a recurrence
(logistic, softmax and polynomial regression, a linear SVM's hinge loss), Gaussian naive Bayes,
ridge regression through std::ml's linalg, k-nearest neighbours; image processing (Sobel,
Gaussian blur, morphology with max pooling, histogram equalisation); graph algorithms in
min-plus and power-iteration form (Bellman-Ford, Floyd-Warshall, PageRank, BFS levels, a
Markov chain's stationary distribution); statistics (quantiles and median via sort, z-scores,
covariance and correlation, moving statistics); signal processing (FIR and IIR filters as
recurrences, autocorrelation, a DFT); std::io writing a CSV-like text and reading it back.
Expected values: NumPy written from the algorithms' textbook definitions, central differences.
Files under cases/outside/hunt7_*.ein, run with EIN_JIT=never and always (the I/O program once).
"""
import numpy as np

import attrs_ref as A
import hunt2_refs as R
from common import TestFile
from gen_hunt2 import F, rnd
from gen_select import modes_file


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt7_{name}.ein", purpose, uses=list(uses))


def sig(z):
    return 1 / (1 + np.exp(-z))


def log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


# ---- classical ML ------------------------------------------------------------------------------

def logreg_train():
    t = prog("logreg_train", "logistic regression: 12 gradient steps, each a function whose body takes "
             "@L / @w of binary_cross_entropy(sigmoid(matmul(X, w)), y), called per step of a recurrence")
    g = np.random.default_rng(901)
    X = t.let("X", np.round(np.c_[g.normal(0, 1, (14, 3)), np.ones(14)], 2), F)
    y = t.let("y", (X[:, :3] @ np.array([1.0, -1.5, 0.5]) + 0.3 * g.normal(size=14) > 0).astype(float), F)
    t.raw("fn step(w, X, y) {",
          "  let L = binary_cross_entropy(sigmoid(matmul(X, w)), y);",
          "  let g = @L / @w;",
          "  let w1[d] = w[d] - 0.7 * g[d];",
          "  w1",
          "}",
          "let W[0, d in 0..4] = 0.0;",
          "let W[k in 1..13, d in 0..4] = step(W[k - 1], X, y)[d];",
          "let p = sigmoid(matmul(X, W[12]));",
          "let acc = sum[i](if (p[i] > 0.5) == (y[i] > 0.5) { 1.0 } else { 0.0 }) / 14.0;")
    w = np.zeros(4)
    for _ in range(12):
        w = w - 0.7 * X.T @ (sig(X @ w) - y) / 14
    p = sig(X @ w)
    t.check("W[12]", w, F)
    t.check("acc", np.mean((p > 0.5) == (y > 0.5)), F)
    t.write()


def softmax_reg_train():
    t = prog("softmax_reg_train", "softmax regression on 3 classes: 8 steps of W - lr * @L / @W with L = "
             "softmax_cross_entropy_loss(matmul(X, W), labels) inside a step function, then predictions by "
             "std::array::argmax_axis")
    g = np.random.default_rng(911)
    X = t.let("X", np.round(g.normal(0, 1, (12, 3)), 2), F)
    lab = (X @ np.array([[1.0, -1.0, 0.0], [0.5, 1.0, -1.0], [0.0, 0.2, 1.0]])).argmax(1)
    t.raw("let lab = " + str(list(int(v) for v in lab)) + ";",
          "fn step(W, X, lab) {",
          "  let L = softmax_cross_entropy_loss(matmul(X, W), lab);",
          "  let G = @L / @W;",
          "  let W1[d, k] = W[d, k] - 0.8 * G[d, k];",
          "  W1",
          "}",
          "let T[0, d in 0..3, k in 0..3] = 0.0;",
          "let T[s in 1..9, d in 0..3, k in 0..3] = step(T[s - 1], X, lab)[d, k];",
          "let pred = std::array::argmax_axis(matmul(X, T[8]), 1);")
    W = np.zeros((3, 3))
    oh = np.eye(3)[lab]
    for _ in range(8):
        P = np.exp(log_softmax(X @ W))
        W = W - 0.8 * X.T @ (P - oh) / 12
    t.check("T[8]", W, F)
    t.check("pred", (X @ W).argmax(1).astype(np.int32), "i32")
    t.check("softmax_cross_entropy_loss(matmul(X, T[8]), lab)", -log_softmax(X @ W)[np.arange(12), lab].mean(), F)
    t.write()


def poly_regression():
    t = prog("poly_regression", "a cubic fitted by 20 gradient steps on mse_loss of a Vandermonde product "
             "(power of x to the column index), @L / @c inside an Einstein step body")
    x = t.let("x", np.round(np.linspace(-1, 1, 9), 3), F)
    y = t.let("y", np.round(0.5 - x + 2 * x ** 3 + 0.05 * np.sin(7 * x), 3), F)
    t.raw("let V[i in 0..9, p in 0..4] = x[i] ** (p as f64);",
          "let C[0, p in 0..4] = 0.0;",
          "let C[s in 1..21, p in 0..4] = {",
          "  let c[q in 0..4] = C[s - 1, q];",
          "  let L = mse_loss(matmul(V, c), y);",
          "  c[p] - 0.3 * (@L / @c)[p]",
          "};")
    V = x[:, None] ** np.arange(4)
    c = np.zeros(4)
    for _ in range(20):
        c = c - 0.3 * 2 * V.T @ (V @ c - y) / 9
    t.check("C[20]", c, F)
    t.check("mse_loss(matmul(V, C[20]), y)", np.mean((V @ c - y) ** 2), F)
    t.write()


def linear_svm():
    t = prog("linear_svm", "a linear SVM: 10 subgradient steps on the mean hinge loss relu(1 - y (X w)) plus "
             "an L2 penalty, @L / @w inside a step function; margins stay away from the kink")
    g = np.random.default_rng(921)
    X = t.let("X", np.round(np.c_[g.normal(0, 1, (10, 2)), np.ones(10)], 2), F)
    y = t.let("y", np.where(X[:, 0] - X[:, 1] > 0.1, 1.0, -1.0), F)
    t.raw("fn step(w, X, y) {",
          "  let m[i] = 1.0 - y[i] * sum[d](X[i, d] * w[d]);",
          "  let L = sum[i](relu(m)[i]) / (len(y) as f64) + 0.05 * sum[d](w[d] * w[d]);",
          "  let g = @L / @w;",
          "  let w1[d] = w[d] - 0.25 * g[d];",
          "  w1",
          "}",
          "let W[0, d in 0..3] = 0.1;",
          "let W[k in 1..11, d in 0..3] = step(W[k - 1], X, y)[d];",
          "let margin[i in 0..10] = y[i] * sum[d](X[i, d] * W[10, d]);")
    w = np.full(3, 0.1)
    for _ in range(10):
        m = 1 - y * (X @ w)
        assert np.min(np.abs(m)) > 1e-6
        w = w - 0.25 * ((-(m > 0).astype(float) * y) @ X / 10 + 0.1 * w)
    t.check("W[10]", w, F)
    t.check("margin", y * (X @ w), F)
    t.write()


def naive_bayes():
    t = prog("naive_bayes", "Gaussian naive Bayes: class counts, means and variances by masked sums over "
             "integer labels, the log-likelihood table, predictions by argmax and posteriors by softmax")
    g = np.random.default_rng(931)
    lab = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
    X = t.let("X", np.round(g.normal(0, 1, (12, 2)) + np.array([[0, 0], [2, 1], [-1, 2]])[lab], 2), F)
    t.raw("let lab = " + str(list(int(v) for v in lab)) + ";",
          "use std::math::{log, pi};",
          "let cnt[c in 0..3] = sum[i](if lab[i] == c { 1.0 } else { 0.0 });",
          "let mu[c in 0..3, d in 0..2] = sum[i](if lab[i] == c { X[i, d] } else { 0.0 }) / cnt[c];",
          "let va[c in 0..3, d in 0..2] = sum[i](if lab[i] == c { (X[i, d] - mu[c, d]) ** 2.0 } else { 0.0 }) / cnt[c] + 0.001;",
          "let ll[i in 0..12, c in 0..3] = log(cnt[c] / 12.0) - 0.5 * sum[d](log(2.0 * pi() * va[c, d]) + (X[i, d] - mu[c, d]) ** 2.0 / va[c, d]);",
          "let pred = std::array::argmax_axis(ll, 1);",
          "let post = softmax(ll);")
    cnt = np.bincount(lab, minlength=3).astype(float)
    mu = np.array([X[lab == c].mean(0) for c in range(3)])
    va = np.array([((X[lab == c] - mu[c]) ** 2).mean(0) for c in range(3)]) + 0.001
    ll = np.log(cnt / 12) - 0.5 * (np.log(2 * np.pi * va)[None] + (X[:, None, :] - mu[None]) ** 2 / va[None]).sum(-1)
    t.check("mu", mu, F)
    t.check("va", va, F)
    t.check("pred", ll.argmax(1).astype(np.int32), "i32")
    t.check("post", np.exp(log_softmax(ll)), F)
    t.write()


def ridge_linalg():
    t = prog("ridge_linalg", "ridge regression through std::ml's linalg: (XᵀX + λI) w = Xᵀy by solve, by "
             "cholesky / solve_cholesky and by inv, the fitted values and R²")
    g = np.random.default_rng(941)
    X = t.let("X", np.round(g.normal(0, 1, (10, 3)), 2), F)
    y = t.let("y", np.round(X @ np.array([1.0, -2.0, 0.5]) + 0.1 * g.normal(size=10), 2), F)
    t.raw("let A[i in 0..3, j in 0..3] = sum[n](X[n, i] * X[n, j]) + (if i == j { 0.5 } else { 0.0 });",
          "let b[i in 0..3] = sum[n](X[n, i] * y[n]);",
          "let w1 = solve(A, b);",
          "let w2 = solve_cholesky(A, b);",
          "let w3 = matmul(inv(A), b);",
          "let yh = matmul(X, w1);",
          "let ybar = sum[n](y[n]) / 10.0;",
          "let r2 = 1.0 - sum[n]((y[n] - yh[n]) ** 2.0) / sum[n]((y[n] - ybar) ** 2.0);")
    Am = X.T @ X + 0.5 * np.eye(3)
    w = np.linalg.solve(Am, X.T @ y)
    t.check("w1", w, F)
    t.check("w2", w, F)
    t.check("w3", w, F)
    t.check("cholesky(A)", np.linalg.cholesky(Am), F)
    t.check("r2", 1 - ((y - X @ w) ** 2).sum() / ((y - y.mean()) ** 2).sum(), F)
    t.write()


def knn():
    t = prog("knn", "k-nearest neighbours: squared distances test x train, topk of the negated distances "
             "along axis 1, the neighbours' labels gathered, votes by onehot sums, predictions by argmax")
    g = np.random.default_rng(951)
    Xtr = t.let("Xtr", np.round(g.normal(0, 1, (10, 2)), 2), F)
    Xte = t.let("Xte", np.round(g.normal(0, 1, (4, 2)), 2), F)
    ytr = (Xtr[:, 0] > 0).astype(int) + (Xtr[:, 1] > 0.5).astype(int)
    t.raw("let ytr = " + str(list(int(v) for v in ytr)) + ";",
          "let D[i in 0..4, j in 0..10] = sum[d]((Xte[i, d] - Xtr[j, d]) ** 2.0);",
          "let (negd, nb) = topk(-D, 3, 1);",
          "let nl = gather(ytr, nb, 0);",
          "let votes[i in 0..4, c in 0..3] = sum[k](onehot(nl, 3, [0.0, 1.0])[i, k, c]);",
          "let pred = std::array::argmax_axis(votes, 1);")
    D = ((Xte[:, None, :] - Xtr[None]) ** 2).sum(-1)
    nb = np.argsort(D, axis=1, kind="stable")[:, :3]
    votes = np.eye(3)[ytr[nb]].sum(1)
    t.check("nb", nb.astype(np.int32), "i32")
    t.check("-negd", np.take_along_axis(D, nb, 1), F)
    t.check("votes", votes, F)
    t.check("pred", votes.argmax(1).astype(np.int32), "i32")
    t.write()


# ---- image processing --------------------------------------------------------------------------

def sobel():
    t = prog("sobel", "Sobel edges: conv with the two 3x3 Sobel kernels stacked as 2 output channels (pads "
             "1), gradient magnitude, an edge mask by threshold and its count")
    img = t.let("img", np.round(np.add.outer(np.arange(7), np.zeros(8)) * 0.1 + (np.arange(8) > 3) * 1.0, 2)[None, None], F)
    t.raw("let K: [f64; 2, 1, 3, 3] = [[[[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]], "
          "[[[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]]]];",
          "let G = conv(img, K, [], [1, 1], [1, 1, 1, 1], [1, 1], 1);",
          "let mag[i in 0..7, j in 0..8] = sqrt(G[0, 0, i, j] ** 2.0 + G[0, 1, i, j] ** 2.0);",
          "let edges = sum[i, j](if mag[i, j] > 2.0 { 1 } else { 0 });")
    K = np.array([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]], dtype=float)
    G = A.conv(img, K, [], [1, 1], [1, 1, 1, 1], [1, 1], 1)
    mag = np.sqrt(G[0, 0] ** 2 + G[0, 1] ** 2)
    t.check("G", G, F)
    t.check("mag", mag, F)
    t.check("edges", np.int32((mag > 2.0).sum()), "i32")
    t.write()


def gaussian_blur():
    t = prog("gaussian_blur", "Gaussian blur of a 3-channel image: a 5x5 kernel from the outer product of a "
             "1-D Gaussian, depthwise conv (group 3, pads 2), and the same as two separable 1-D passes")
    g = np.random.default_rng(961)
    img = t.let("img", np.round(g.uniform(0, 1, (1, 3, 6, 7)), 2), F)
    t.raw("use std::math::exp;",
          "let g1[k in 0..5] = exp(-(((k - 2) * (k - 2)) as f64) / 2.0);",
          "let gn[k in 0..5] = g1[k] / sum[q](g1[q]);",
          "let K2[c in 0..3, 0, a in 0..5, b in 0..5] = gn[a] * gn[b];",
          "let Kv[c in 0..3, 0, a in 0..5, 0] = gn[a];",
          "let Kh[c in 0..3, 0, 0, b in 0..5] = gn[b];",
          "let B1 = conv(img, K2, [], [1, 1], [2, 2, 2, 2], [1, 1], 3);",
          "let B2 = conv(conv(img, Kv, [], [1, 1], [2, 0, 2, 0], [1, 1], 3), Kh, [], [1, 1], [0, 2, 0, 2], [1, 1], 3);")
    g1 = np.exp(-(np.arange(5) - 2) ** 2 / 2.0)
    gn = g1 / g1.sum()
    K2 = np.broadcast_to(np.outer(gn, gn), (3, 1, 5, 5))
    B = A.conv(img, K2, [], [1, 1], [2, 2, 2, 2], [1, 1], 3)
    t.check("B1", B, F)
    t.check("B2", B, F)
    t.write()


def morphology():
    t = prog("morphology", "binary morphology with pooling: dilation = max_pool 3x3 (stride 1, pads 1), "
             "erosion = -max_pool(-x), opening, closing and the morphological gradient")
    img = np.zeros((7, 8))
    img[1:5, 2:6] = 1
    img[5, 6] = 1
    img[3, 3] = 0
    x = t.let("x", img[None, None], F)
    t.raw("fn dil(a) { max_pool(a, [3, 3], [1, 1], [1, 1, 1, 1]) }",
          "fn ero(a) { -max_pool(-a, [3, 3], [1, 1], [1, 1, 1, 1]) }",
          "let opened = dil(ero(x));",
          "let closed = ero(dil(x));",
          "let grad = dil(x) - ero(x);")
    dil = lambda a: A.pool(a, [3, 3], [1, 1], [1, 1, 1, 1], "max")
    ero = lambda a: -A.pool(-a, [3, 3], [1, 1], [1, 1, 1, 1], "max")
    t.check("dil(x)", dil(x), F)
    t.check("ero(x)", ero(x), F)
    t.check("opened", dil(ero(x)), F)
    t.check("closed", ero(dil(x)), F)
    t.check("grad", dil(x) - ero(x), F)
    t.write()


def hist_equalize():
    t = prog("hist_equalize", "histogram equalisation of an 8-level integer image: histogram by counting, "
             "cumsum of it, the lookup table round((cdf - cdf_min) / (N - cdf_min) * 7) and the mapped image")
    g = np.random.default_rng(971)
    img = t.let("img", np.clip(np.round(g.normal(2.5, 1.0, (6, 6))), 0, 7).astype(np.int32), "i32")
    t.raw("use std::math::round;",
          "let hist[v in 0..8] = sum[i, j](if img[i, j] == v { 1 } else { 0 });",
          "let cdf = cumsum(hist);",
          "let cmin = min[v](if hist[v] > 0 { cdf[v] } else { 36 });",
          "let lut[v in 0..8] = round(((cdf[v] - cmin) as f64) / ((36 - cmin) as f64) * 7.0) as i32;",
          "let out[i in 0..6, j in 0..6] = lut[img[i, j]];")
    hist = np.bincount(img.ravel(), minlength=8).astype(np.int32)
    cdf = np.cumsum(hist).astype(np.int32)
    cmin = cdf[hist > 0].min()
    lut = np.round((cdf - cmin) / (36 - cmin) * 7).astype(np.int32)
    t.check("hist", hist, "i32")
    t.check("cdf", cdf, "i32")
    t.check("lut", lut, "i32")
    t.check("out", lut[img], "i32")
    t.write()


# ---- graphs ------------------------------------------------------------------------------------

GRAPH = np.array([[0, 4, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0], [0, 2, 0, 5, 0, 0],
                  [0, 0, 0, 0, 3, 0], [0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0]], dtype=float)


def min_plus_ref(W):
    n = len(W)
    D = np.where(W > 0, W, np.inf)
    np.fill_diagonal(D, 0)
    for k in range(n):
        D = np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :])
    return D


def bellman_ford():
    t = prog("bellman_ford", "Bellman-Ford in min-plus form: n - 1 relaxation steps as a recurrence with "
             "inf for missing edges, one unreachable node, and the no-improvement check")
    Wg = t.let("A", GRAPH, F)
    t.raw("let inf = 1.0 / 0.0;",
          "let W[u in 0..6, v in 0..6] = if A[u, v] > 0.0 { A[u, v] } else { inf };",
          "let d[0, v in 0..6] = if v == 0 { 0.0 } else { inf };",
          "let d[t in 1..6, v in 0..6] = min(d[t - 1, v], min[u](d[t - 1, u] + W[u, v]));",
          "let better = any[v](min[u](d[5, u] + W[u, v]) < d[5, v]);",
          "let A2[u in 0..6, v in 0..6] = if u == 5 || v == 5 { 0.0 } else { A[u, v] };",
          "let W2[u in 0..6, v in 0..6] = if A2[u, v] > 0.0 { A2[u, v] } else { inf };",
          "let e[0, v in 0..6] = if v == 0 { 0.0 } else { inf };",
          "let e[t in 1..6, v in 0..6] = min(e[t - 1, v], min[u](e[t - 1, u] + W2[u, v]));")
    t.check("d[5]", min_plus_ref(Wg)[0], F)
    t.check_text("better", "false")
    A2 = Wg.copy()
    A2[5, :] = 0
    A2[:, 5] = 0
    t.check("e[5]", min_plus_ref(A2)[0], F)
    t.write()


def floyd_warshall():
    t = prog("floyd_warshall", "Floyd-Warshall as a recurrence over the intermediate vertex k, with inf for "
             "missing edges and 0 on the diagonal; path counts by hops from boolean reachability powers")
    Wg = t.let("A", GRAPH, F)
    t.raw("let inf = 1.0 / 0.0;",
          "let D[0, i in 0..6, j in 0..6] = if i == j { 0.0 } else if A[i, j] > 0.0 { A[i, j] } else { inf };",
          "let D[k in 1..7, i in 0..6, j in 0..6] = min(D[k - 1, i, j], D[k - 1, i, k - 1] + D[k - 1, k - 1, j]);",
          "let R[0, i in 0..6, j in 0..6] = i == j || A[i, j] > 0.0;",
          "let R[k in 1..7, i in 0..6, j in 0..6] = R[k - 1, i, j] || (R[k - 1, i, k - 1] && R[k - 1, k - 1, j]);")
    D = min_plus_ref(Wg)
    t.check("D[6]", D, F)
    t.check("R[6]", np.isfinite(D), "bool")
    t.write()


def pagerank():
    t = prog("pagerank", "PageRank by power iteration: a column-stochastic matrix from an adjacency with a "
             "dangling node (spread uniformly), 40 steps of the damped update, the ranking by topk")
    adj = np.array([[0, 1, 1, 0, 0], [0, 0, 1, 0, 0], [1, 0, 0, 1, 0], [0, 0, 1, 0, 1], [0, 0, 0, 0, 0]], dtype=float)
    t.let("adj", adj, F)
    t.raw("let outd[j in 0..5] = sum[i](adj[j, i]);",
          "let M[i in 0..5, j in 0..5] = if outd[j] > 0.0 { adj[j, i] / outd[j] } else { 0.2 };",
          "let r[0, i in 0..5] = 0.2;",
          "let r[t in 1..41, i in 0..5] = 0.15 / 5.0 + 0.85 * sum[j](M[i, j] * r[t - 1, j]);",
          "let (top, order) = topk(r[40], 5, 0);")
    outd = adj.sum(1)
    M = np.where(outd[None, :] > 0, adj.T / np.where(outd > 0, outd, 1)[None, :], 0.2)
    r = np.full(5, 0.2)
    for _ in range(40):
        r = 0.15 / 5 + 0.85 * M @ r
    t.check("r[40]", r, F)
    t.check("sum[i](r[40, i])", r.sum(), F)
    t.check("order", np.argsort(-r, kind="stable").astype(np.int32), "i32")
    t.write()


def bfs_levels():
    t = prog("bfs_levels", "BFS levels on an integer adjacency matrix as a recurrence (a node gets level t "
             "when a node of level t - 1 points at it; -1 if never), for two sources")
    adj = (GRAPH > 0).astype(np.int32)
    adj[5, 0] = 0
    t.let("adj", adj, "i32")
    t.raw("fn levels(adj, src) {",
          "  let n = len(adj);",
          "  let L[0, v in 0..n] = if v == src { 0 } else { -1 };",
          "  let L[t in 1..n, v in 0..n] = if L[t - 1, v] >= 0 { L[t - 1, v] }",
          "      else if any[u in 0..n](L[t - 1, u] == t - 1 && adj[u, v] == 1) { t } else { -1 };",
          "  L[n - 1]",
          "}")

    def lev(src):
        L = np.full(6, -1)
        L[src] = 0
        for t_ in range(1, 6):
            prev = L.copy()
            for v in range(6):
                if prev[v] < 0 and any(prev[u] == t_ - 1 and adj[u, v] for u in range(6)):
                    L[v] = t_
        return L.astype(np.int32)
    t.check("levels(adj, 0)", lev(0), "i32")
    t.check("levels(adj, 2)", lev(2), "i32")
    t.write()


def markov_stationary():
    t = prog("markov_stationary", "a Markov chain's stationary distribution: 60 steps of pi P as a recurrence, "
             "against the eigenvector of Pᵀ for eigenvalue 1, and the expected hitting cost by value iteration")
    P = np.array([[0.5, 0.3, 0.2], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    t.let("P", P, F)
    t.raw("let pi[0, j in 0..3] = if j == 0 { 1.0 } else { 0.0 };",
          "let pi[t in 1..61, j in 0..3] = sum[i](pi[t - 1, i] * P[i, j]);",
          "let c: [f64; 3] = [1.0, 2.0, 0.5];",
          "let V[0, i in 0..3] = 0.0;",
          "let V[t in 1..31, i in 0..3] = c[i] + 0.9 * sum[j](P[i, j] * V[t - 1, j]);")
    w, v = np.linalg.eig(P.T)
    s = np.real(v[:, np.argmin(np.abs(w - 1))])
    t.check("pi[60]", s / s.sum(), F)
    V = np.zeros(3)
    for _ in range(30):
        V = np.array([1.0, 2.0, 0.5]) + 0.9 * P @ V
    t.check("V[30]", V, F)
    t.write()


# ---- statistics --------------------------------------------------------------------------------

def quantiles():
    t = prog("quantiles", "quantiles by sorting (np.quantile's linear rule), the median of odd and even "
             "lengths, the IQR and the count of outliers past 1.5 IQR", uses=("std::array::sort", "std::math::floor"))
    g = np.random.default_rng(981)
    x = t.let("x", np.round(np.r_[g.normal(0, 1, 10), 4.5], 2), F)
    xe = t.let("xe", x[:10], F)
    t.raw("fn quantile(v, q) {",
          "  let s = sort(v);",
          "  let pos = q * ((len(v) - 1) as f64);",
          "  let lo = floor(pos) as i32;",
          "  let hi = if lo + 1 < len(v) { lo + 1 } else { lo };",
          "  s[lo] + (pos - (lo as f64)) * (s[hi] - s[lo])",
          "}",
          "let qs: [f64; 6] = [0.1, 0.25, 0.5, 0.75, 0.9, 1.0];",
          "let Q[k in 0..6] = quantile(x, qs[k]);",
          "let iqr = quantile(x, 0.75) - quantile(x, 0.25);",
          "let outl = sum[i](if x[i] > quantile(x, 0.75) + 1.5 * iqr || x[i] < quantile(x, 0.25) - 1.5 * iqr { 1 } else { 0 });")
    qs = [0.1, 0.25, 0.5, 0.75, 0.9, 1.0]
    t.check("Q", np.quantile(x, qs), F)
    t.check("quantile(x, 0.5)", np.median(x), F)
    t.check("quantile(xe, 0.5)", np.median(xe), F)
    q1, q3 = np.quantile(x, [0.25, 0.75])
    t.check("outl", np.int32(((x > q3 + 1.5 * (q3 - q1)) | (x < q1 - 1.5 * (q3 - q1))).sum()), "i32")
    t.write()


def zscores():
    t = prog("zscores", "z-scores of each column (ddof 0) with std::array::mean_axis, clipped at +-1.5 with "
             "clip")
    g = np.random.default_rng(991)
    X = t.let("X", np.round(g.normal(3, 2, (8, 3)), 2), F)
    t.raw("use std::math::sqrt;",
          "let mu = std::array::mean_axis(X, 0);",
          "let sd[j in 0..3] = sqrt(sum[i]((X[i, j] - mu[j]) ** 2.0) / 8.0);",
          "let Z[i in 0..8, j in 0..3] = (X[i, j] - mu[j]) / sd[j];",
          "let Zc = clip(Z, -1.5, 1.5);")
    mu = X.mean(0)
    Z = (X - mu) / X.std(0)
    t.check("mu", mu, F)
    t.check("Z", Z, F)
    t.check("Zc", np.clip(Z, -1.5, 1.5), F)
    t.write()


def cov_corr():
    t = prog("cov_corr", "covariance (ddof 1) and correlation matrices of 4 variables by matmul of the "
             "centred data, against np.cov and np.corrcoef")
    g = np.random.default_rng(1001)
    X = t.let("X", np.round(g.normal(0, 1, (9, 4)) @ np.array([[1, 0.5, 0, 0], [0, 1, 0.3, 0], [0, 0, 1, 0], [0, 0, 0, 2.0]]), 2), F)
    t.raw("use std::math::sqrt;",
          "let mu[j in 0..4] = sum[i](X[i, j]) / 9.0;",
          "let Xc[i in 0..9, j in 0..4] = X[i, j] - mu[j];",
          "let C[a in 0..4, b in 0..4] = matmul(transpose(Xc), Xc)[a, b] / 8.0;",
          "let R[a in 0..4, b in 0..4] = C[a, b] / sqrt(C[a, a] * C[b, b]);")
    t.check("C", np.cov(X.T), F)
    t.check("R", np.corrcoef(X.T), F)
    t.write()


def moving_stats():
    t = prog("moving_stats", "moving average (window 4) by conv 1-D with a ones kernel and by a windowed sum, "
             "moving standard deviation, cumsum differences, and an exponential moving average recurrence")
    g = np.random.default_rng(1011)
    x = t.let("x", np.round(np.cumsum(g.normal(0, 1, 12)), 2), F)
    t.raw("use std::math::sqrt;",
          "let x3[0, 0, i in 0..12] = x[i];",
          "let ones: [f64; 1, 1, 4] = [[[0.25, 0.25, 0.25, 0.25]]];",
          "let ma1 = conv(x3, ones, [], [1], [], [1], 1);",
          "let ma2[i in 0..9] = sum[k in 0..4](x[i + k]) / 4.0;",
          "let msd[i in 0..9] = sqrt(sum[k in 0..4]((x[i + k] - ma2[i]) ** 2.0) / 4.0);",
          "let cs = cumsum(x);",
          "let ma3[i in 0..9] = (cs[i + 3] - (if i == 0 { 0.0 } else { cs[i - 1] })) / 4.0;",
          "let ema[0] = x[0];",
          "let ema[t in 1..12] = 0.3 * x[t] + 0.7 * ema[t - 1];")
    ma = np.convolve(x, np.ones(4) / 4, mode="valid")
    t.check("ma1", ma[None, None], F)
    t.check("ma2", ma, F)
    t.check("ma3", ma, F)
    t.check("msd", np.array([x[i:i + 4].std() for i in range(9)]), F)
    e = np.zeros(12)
    e[0] = x[0]
    for i in range(1, 12):
        e[i] = 0.3 * x[i] + 0.7 * e[i - 1]
    t.check("ema", e, F)
    t.write()


# ---- signal processing -------------------------------------------------------------------------

def fir_filter():
    t = prog("fir_filter", "a causal FIR filter y[n] = sum_k b[k] x[n - k] (zero before the start) three ways: "
             "guarded sum, and conv with the flipped taps and left padding (np.convolve's first n samples)")
    g = np.random.default_rng(1021)
    x = t.let("x", np.round(g.normal(0, 1, 10), 2), F)
    b = t.let("b", np.array([0.5, 0.3, -0.2, 0.1]), F)
    t.raw("let y1[n in 0..10] = sum[k in 0..4](if n >= k { b[k] * x[n - k] } else { 0.0 });",
          "let x3[0, 0, i in 0..10] = x[i];",
          "let bf[0, 0, k in 0..4] = b[3 - k];",
          "let y2 = conv(x3, bf, [], [1], [3, 0], [1], 1);")
    y = np.convolve(x, b)[:10]
    t.check("y1", y, F)
    t.check("y2", y[None, None], F)
    t.check("flip(b)", b[::-1], F)
    t.write()


def iir_filter():
    t = prog("iir_filter", "a second-order IIR filter (lfilter's difference equation) as a piecewise "
             "recurrence, its impulse response, and the derivative of the output energy in the feedback "
             "coefficients against central differences")
    g = np.random.default_rng(1031)
    x = t.let("x", np.round(g.normal(0, 1, 12), 2), F)
    a = t.let("a", np.array([-0.6, 0.2]), F)
    t.raw("let bb: [f64; 3] = [0.4, 0.3, 0.1];",
          "fn lfilter(x, a, bb) {",
          "  let y[0] = bb[0] * x[0];",
          "  let y[1] = bb[0] * x[1] + bb[1] * x[0] - a[0] * y[0];",
          "  let y[t in 2..len(x)] = bb[0] * x[t] + bb[1] * x[t - 1] + bb[2] * x[t - 2] - a[0] * y[t - 1] - a[1] * y[t - 2];",
          "  y",
          "}",
          "let y = lfilter(x, a, bb);",
          "let imp[i in 0..12] = if i == 0 { 1.0 } else { 0.0 };",
          "let h = lfilter(imp, a, bb);",
          "let E = sum[t](y[t] * y[t]);")
    bb = np.array([0.4, 0.3, 0.1])

    def lf(x_, a_):
        y = np.zeros(len(x_))
        for n in range(len(x_)):
            acc = sum(bb[k] * x_[n - k] for k in range(3) if n - k >= 0)
            acc -= sum(a_[k - 1] * y[n - k] for k in (1, 2) if n - k >= 0)
            y[n] = acc
        return y
    t.check("y", lf(x, a), F)
    t.check("h", lf(np.eye(12)[0], a), F)
    t.check("@E / @a", R.fd(lambda a_: (lf(x, a_) ** 2).sum(), a), F)
    t.write()


def autocorr():
    t = prog("autocorr", "the autocorrelation of a centred signal at lags 0..5 with a lag-dependent sum "
             "range, normalised by lag 0, against np.correlate; and its cross-correlation form by einsum")
    g = np.random.default_rng(1041)
    x = t.let("x", np.round(np.sin(np.arange(14) * 0.9) + 0.3 * g.normal(size=14), 2), F)
    t.raw("let m = sum[i](x[i]) / 14.0;",
          "let xc[i in 0..14] = x[i] - m;",
          "let r[k in 0..6] = sum[t in 0..14 - k](xc[t] * xc[t + k]);",
          "let rho[k in 0..6] = r[k] / r[0];",
          "let e0 = einsum(\"i,i->\", [xc, xc]);")
    xc = x - x.mean()
    r = np.correlate(xc, xc, mode="full")[13:19]
    t.check("r", r, F)
    t.check("rho", r / r[0], F)
    t.check("e0", np.float64(xc @ xc), F)
    t.write()


def dft():
    t = prog("dft", "a DFT of a real signal by cos / sin sums, its magnitudes against np.fft.fft, Parseval's "
             "identity, and the dominant frequency by argmax over the first half")
    x = t.let("x", np.round(np.cos(2 * np.pi * 3 * np.arange(16) / 16) + 0.5 * np.sin(2 * np.pi * 5 * np.arange(16) / 16) + 0.1 * np.arange(16) % 3, 3), F)
    t.raw("use std::math::{cos, sin, sqrt, pi};",
          "let re[k in 0..16] = sum[n in 0..16](x[n] * cos(2.0 * pi() * ((k * n) as f64) / 16.0));",
          "let im[k in 0..16] = -sum[n in 0..16](x[n] * sin(2.0 * pi() * ((k * n) as f64) / 16.0));",
          "let mag[k in 0..16] = sqrt(re[k] * re[k] + im[k] * im[k]);",
          "let lhs = sum[n](x[n] * x[n]);",
          "let rhs = sum[k](mag[k] * mag[k]) / 16.0;",
          "let half[k in 0..7] = mag[k + 1];",
          "let peak = std::array::argmax(half) + 1;")
    Xf = np.fft.fft(x)
    t.check("re", Xf.real, F)
    t.check("im", Xf.imag, F)
    t.check("mag", np.abs(Xf), F)
    t.check("lhs - rhs < 1e-9 && rhs - lhs < 1e-9", np.bool_(True), "bool")
    t.check("peak", np.int32(np.argmax(np.abs(Xf)[1:8]) + 1), "i32")
    t.write()


# ---- std::io -----------------------------------------------------------------------------------

def csv_io():
    # (A recurrence over strings, `let row[i] = row[i - 1] + ...`, is E002 in the language:
    # tests/golden/pending/string_einstein_declaration.ein; the rows are a comprehension here.)
    t = TestFile("outside/hunt7_csv_io.ein", "std::io with a CSV-like text: rows built by a string "
                 "comprehension with interpolation and joined by a recursive function, written, appended "
                 "to, read back and compared, its size, then removed (one mode: both would share the file)",
                 uses=["std::io::*"])
    xs = [0.5, -1.25, 3.0]
    t.raw("let xs = [0.5, -1.25, 3.0];",
          "let ids = [7, 8, 9];",
          "let rows = [\"{ids[i]},{xs[i]},{xs[i] * xs[i]}\\n\" | i in 0..3];",
          "fn join(r, k) { if k == 0 { \"id,x,x2\\n\" } else { join(r, k - 1) + r[k - 1] } }",
          "let d = \"/tmp/ein_hunt7_csv\";",
          "create_dir(d);",
          "let f = join_path([d, \"data.csv\"]);",
          "write_file(f, join(rows, 3));",
          "append_file(f, \"10,0.0,0.0\\n\");")
    text = "id,x,x2\n" + "".join(f"{7 + i},{v},{v * v}\n" for i, v in enumerate(xs)) + "10,0.0,0.0\n"
    t.check_text("read_file(f) == " + '"' + text.replace("\n", "\\n") + '"', "true")
    t.check_text("file_size(f)", str(len(text)))
    t.check_text("len(read_file(f))", str(len(text)))
    t.raw("delete_file(f);", "remove_dir(d);")
    t.check_text("file_exists(f)", "false")
    t.write()


def sobel_energy_grad():
    t = prog("sobel_energy_grad", "the derivative of the Sobel edge energy sum(Gx² + Gy²) of an image "
             "(conv with pads 1) in the image, and of a blurred-image MSE in the blur kernel, against central "
             "differences")
    g = np.random.default_rng(1051)
    img = t.let("img", np.round(g.uniform(0, 1, (1, 1, 5, 5)), 2), F)
    kb = t.let("kb", np.round(g.uniform(0, 0.3, (1, 1, 3, 3)), 2), F)
    tgt = t.let("tgt", np.round(g.uniform(0, 1, (1, 1, 5, 5)), 2), F)
    t.raw("let K: [f64; 2, 1, 3, 3] = [[[[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]], "
          "[[[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]]]];",
          "let G = conv(img, K, [], [1, 1], [1, 1], [1, 1], 1);",
          "let E = sum[c, i, j](G[0, c, i, j] * G[0, c, i, j]);",
          "let Lb = mse_loss(conv(img, kb, [], [1, 1], [1, 1], [1, 1], 1), tgt);")
    K = np.array([[[[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], [[[-1, -2, -1], [0, 0, 0], [1, 2, 1]]]], dtype=float)
    t.check("@E / @img", R.fd(lambda im: (A.conv(im, K, [], [1, 1], [1, 1], [1, 1], 1) ** 2).sum(), img), F)
    t.check("@Lb / @kb", R.fd(lambda k: ((A.conv(img, k, [], [1, 1], [1, 1], [1, 1], 1) - tgt) ** 2).mean(), kb), F)
    t.write()


def perceptron():
    t = prog("perceptron", "the perceptron rule over 3 epochs as a recurrence visiting sample t % n, an "
             "update only on a mistake (integer labels +-1 as f64), and the final training errors")
    g = np.random.default_rng(1061)
    X = t.let("X", np.round(np.c_[g.normal(0, 1, (8, 2)), np.ones(8)], 2), F)
    y = t.let("y", np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0), F)
    t.raw("let w[0, d in 0..3] = 0.0;",
          "let w[t in 1..25, d in 0..3] = {",
          "  let i = (t - 1) % 8;",
          "  let s = y[i] * sum[e](X[i, e] * w[t - 1, e]);",
          "  if s <= 0.0 { w[t - 1, d] + y[i] * X[i, d] } else { w[t - 1, d] }",
          "};",
          "let errs = sum[i in 0..8](if y[i] * sum[e](X[i, e] * w[24, e]) <= 0.0 { 1 } else { 0 });")
    w = np.zeros(3)
    for s in range(24):
        i = s % 8
        if y[i] * (X[i] @ w) <= 0:
            w = w + y[i] * X[i]
    t.check("w[24]", w, F)
    t.check("errs", np.int32((y * (X @ w) <= 0).sum()), "i32")
    t.write()


def generate():
    for f in (logreg_train, softmax_reg_train, poly_regression, linear_svm, naive_bayes, ridge_linalg, knn,
              sobel, gaussian_blur, morphology, hist_equalize, bellman_ford, floyd_warshall, pagerank,
              bfs_levels, markov_stationary, quantiles, zscores, cov_corr, moving_stats, fir_filter,
              iir_filter, autocorr, dft, csv_io, sobel_energy_grad, perceptron):
        f()
    generate_batch2()


# ---- second batch: f32 data as written without annotations, more library combinations --------

F32 = "f32"


def lit32(name, x):
    """An unannotated literal (Einlang reads it as f32): the way programs write data."""
    from common import lit
    return f"let {name} = {lit(x, 'f64')};"


def logreg_f32():
    t = prog("logreg_f32", "logistic regression on unannotated (f32) literals: 10 steps of w - lr * @L / @w "
             "with L = mean of log(1 + exp(z)) - y z written out, via gemm with a bias column; the NumPy "
             "reference runs in float32")
    g = np.random.default_rng(1101)
    X = np.round(g.normal(0, 1, (8, 2)), 2)
    y = (X[:, 0] - X[:, 1] > 0).astype(float)
    t.raw(lit32("X", X), lit32("y", y),
          "use std::math::{log, exp};",
          "fn step(w, b, X, y) {",
          "  let z = gemm(X, w, [b], 1.0, 1.0, 0, 0);",
          "  let L = sum[i](log(1.0 + exp(z[i, 0])) - y[i] * z[i, 0]) / 8.0;",
          "  let g = @L / @w;",
          "  let w1[d, 0] = w[d, 0] - 0.5 * g[d, 0];",
          "  w1",
          "}",
          "let W[0, d in 0..2, 0] = 0.0;",
          "let W[k in 1..11, d in 0..2, 0] = step(W[k - 1], 0.1, X, y)[d, 0];")
    X32, y32 = X.astype(np.float32), y.astype(np.float32)
    w = np.zeros((2, 1), dtype=np.float32)
    for _ in range(10):
        z = X32 @ w + np.float32(0.1)
        gr = X32.T @ ((sig(z[:, 0]) - y32) / 8).astype(np.float32)
        w = (w - np.float32(0.5) * gr[:, None]).astype(np.float32)
    t.check("W[10]", w, F32)
    t.check_text("typeof(W)", "[f32; 11, 2, 1]")
    t.write()


def spearman():
    t = prog("spearman", "Spearman's rank correlation: ranks by argsort of argsort (no ties), the Pearson "
             "correlation of the ranks, against the closed form 1 - 6 sum d^2 / (n (n^2 - 1)); Kendall's tau "
             "by sign sums", uses=("std::array::argsort", "std::math::{sign, sqrt}"))
    g = np.random.default_rng(1111)
    a = t.let("a", np.round(g.normal(0, 1, 9), 3), F)
    b = t.let("b", np.round(a + g.normal(0, 0.8, 9), 3), F)
    t.raw("let ra = argsort(argsort(a));",
          "let rb = argsort(argsort(b));",
          "let d2 = sum[i](((ra[i] - rb[i]) * (ra[i] - rb[i])) as f64);",
          "let rho = 1.0 - 6.0 * d2 / (9.0 * 80.0);",
          "let fa[i in 0..9] = ra[i] as f64 - 4.0;",
          "let fb[i in 0..9] = rb[i] as f64 - 4.0;",
          "let pr = sum[i](fa[i] * fb[i]) / sqrt(sum[i](fa[i] * fa[i]) * sum[i](fb[i] * fb[i]));",
          "let tau = sum[i in 0..9, j in 0..9](if i < j { sign(a[i] - a[j]) * sign(b[i] - b[j]) } else { 0.0 }) / 36.0;")
    ra = np.argsort(np.argsort(a))
    rb = np.argsort(np.argsort(b))
    rho = 1 - 6 * ((ra - rb) ** 2).sum() / (9 * 80)
    t.check("ra", ra.astype(np.int32), "i32")
    t.check("rho", rho, F)
    t.check("pr", np.corrcoef(ra, rb)[0, 1], F)
    t.check("tau", sum(np.sign(a[i] - a[j]) * np.sign(b[i] - b[j]) for i in range(9) for j in range(i + 1, 9)) / 36, F)
    t.write()


def unpool_pipeline():
    t = prog("unpool_pipeline", "an encoder / decoder on an image: conv stride 2 (pads 1), max_pool 2x2, "
             "upsample nearest x2, resize linear x2, and a skip connection by concat along channels")
    g = np.random.default_rng(1121)
    X = t.let("X", np.round(g.uniform(-1, 1, (1, 2, 8, 8)), 2), F)
    Wd = t.let("Wd", np.round(g.uniform(-0.5, 0.5, (3, 2, 3, 3)), 2), F)
    t.raw("let D = relu(conv(X, Wd, [], [2, 2], [1, 1, 1, 1], [1, 1], 1));",
          "let P = max_pool(D, [2, 2], [2, 2], []);",
          "let U1 = upsample(P, [1.0, 1.0, 2.0, 2.0], \"nearest\");",
          "let U2 = resize(U1, [2.0, 2.0], \"linear\");",
          "let S = concat(U1, D);")
    D = np.maximum(A.conv(X, Wd, [], [2, 2], [1, 1, 1, 1], [1, 1], 1), 0)
    P = A.pool(D, [2, 2], [2, 2], [], "max")
    U1 = A.resize(P, [1.0, 1.0, 2.0, 2.0], "nearest", asym=True)
    t.check("D", D, F)
    t.check("P", P, F)
    t.check("U1", U1, F)
    t.check("U2", A.resize(U1, [2.0, 2.0], "linear"), F)
    t.check("S", np.concatenate([U1, D], axis=0), F)
    t.write()


def graph_int():
    t = prog("graph_int", "graph statistics on an integer adjacency: degrees, triangles = trace(A^3) / 6 by "
             "integer matmul, two-hop path counts, connected components by min-label propagation as a "
             "recurrence")
    n = 7
    Adj = np.zeros((n, n), dtype=np.int32)
    for u, v in [(0, 1), (1, 2), (0, 2), (2, 3), (4, 5), (5, 6), (4, 6), (3, 0)]:
        Adj[u, v] = Adj[v, u] = 1
    t.let("Adj", Adj, "i32")
    t.raw("let deg[i in 0..7] = sum[j](Adj[i, j]);",
          "let A2 = matmul(Adj, Adj);",
          "let A3 = matmul(A2, Adj);",
          "let tri = trace(A3) / 6;",
          "let lab[0, i in 0..7] = i;",
          "let lab[t in 1..7, i in 0..7] = min(lab[t - 1, i], min[j](if Adj[i, j] == 1 { lab[t - 1, j] } else { 7 }));",
          "let ncomp = sum[i](if lab[6, i] == i { 1 } else { 0 });")
    lab = np.arange(n)
    for _ in range(6):
        lab = np.minimum(lab, np.array([min([lab[j] for j in range(n) if Adj[i, j]] + [n]) for i in range(n)]))
    A2 = Adj @ Adj
    t.check("deg", Adj.sum(1).astype(np.int32), "i32")
    t.check("A2", A2.astype(np.int32), "i32")
    t.check("tri", np.int32(np.trace(A2 @ Adj) // 6), "i32")
    t.check("lab[6]", lab.astype(np.int32), "i32")
    t.check("ncomp", np.int32((lab == np.arange(n)).sum()), "i32")
    t.write()


def signal_windows():
    t = prog("signal_windows", "a Hann window applied before a DFT magnitude, a dilated (a trous) conv 1-D, "
             "downsampling by slice with step 2, trapezoid integration by cumsum, and a cross-correlation by "
             "einsum over shifted copies", uses=("std::ml::*", "std::math::{cos, sin, sqrt, pi}"))
    g = np.random.default_rng(1131)
    x = t.let("x", np.round(np.sin(np.arange(12) * 0.7) + 0.2 * g.normal(size=12), 3), F)
    t.raw("let w[n in 0..12] = 0.5 - 0.5 * cos(2.0 * pi() * (n as f64) / 11.0);",
          "let xw[n in 0..12] = x[n] * w[n];",
          "let re[k in 0..12] = sum[n](xw[n] * cos(2.0 * pi() * ((k * n) as f64) / 12.0));",
          "let im[k in 0..12] = sum[n](xw[n] * sin(2.0 * pi() * ((k * n) as f64) / 12.0));",
          "let mag[k in 0..12] = sqrt(re[k] * re[k] + im[k] * im[k]);",
          "let x3[0, 0, i in 0..12] = x[i];",
          "let k3: [f64; 1, 1, 3] = [[[0.25, 0.5, 0.25]]];",
          "let at = conv(x3, k3, [], [1], [2, 2], [2], 1);",
          "let ds = slice(x, [0], [12], [0], [2]);",
          "let rev = slice(x, [-1], [-13], [0], [-3]);",
          "let cs = cumsum(x);",
          "let trap[i in 0..11] = (cs[i + 1] + cs[i] - x[0] - x[0]) * 0.0 + sum[k in 0..i + 1]((x[k] + x[k + 1]) * 0.5);",
          "let sh[s in 0..3, n in 0..10] = x[n + s];",
          "let xc = einsum(\"sn,n->s\", (sh, sh[0]));")
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(12) / 11)
    t.check("mag", np.abs(np.fft.fft(x * w)), F)
    t.check("at", A.conv(x[None, None], np.array([[[0.25, 0.5, 0.25]]]), [], [1], [2, 2], [2], 1), F)
    t.check("ds", x[::2], F)
    t.check("rev", x[::-3], F)
    t.check("trap", np.array([np.trapz(x[:i + 2]) for i in range(11)]) if hasattr(np, "trapz") else
            np.array([np.trapezoid(x[:i + 2]) for i in range(11)]), F)
    sh = np.stack([x[s:s + 10] for s in range(3)])
    t.check("xc", sh @ sh[0], F)
    t.write()


def save_load_weights():
    t = TestFile("outside/hunt7_save_load_weights.ein", "a model's weights trained for 5 steps, saved with "
                 "save_npy, loaded back and annotated, then used for a prediction; also an f32 array round "
                 "trip and a text log appended per run (one mode: both would share the files)",
                 uses=["std::ml::*", "std::io::*"])
    g = np.random.default_rng(1141)
    X = t.let("X", np.round(g.normal(0, 1, (6, 3)), 2), F)
    y = t.let("y", np.round(X @ np.array([0.5, -1.0, 2.0]), 2), F)
    t.raw("fn step(w, X, y) {",
          "  let L = mse_loss(matmul(X, w), y);",
          "  let w1[d] = w[d] - 0.1 * (@L / @w)[d];",
          "  w1",
          "}",
          "let W[0, d in 0..3] = 0.0;",
          "let W[k in 1..6, d in 0..3] = step(W[k - 1], X, y)[d];",
          "let d = \"/tmp/ein_hunt7_weights\";",
          "create_dir(d);",
          "save_npy(join_path([d, \"w.npy\"]), W[5]);",
          "let w: [f64; 3] = load_npy(join_path([d, \"w.npy\"]));",
          "let h = [1.5, -0.25, 3.0];",
          "save_npy(join_path([d, \"h.npy\"]), h);",
          "let h2 = load_npy(join_path([d, \"h.npy\"]));",
          "write_file(join_path([d, \"log.txt\"]), \"step,loss\\n\");",
          "append_file(join_path([d, \"log.txt\"]), \"5,{mse_loss(matmul(X, w), y)}\\n\");")
    w = np.zeros(3)
    for _ in range(5):
        w = w - 0.1 * 2 * X.T @ (X @ w - y) / 6
    t.check("w", w, F)
    t.check("matmul(X, w)", X @ w, F)
    t.check_text("h2", "[1.5, -0.25, 3.0]")
    t.check_text("typeof(h2)", "[f32; 3]")
    from common import fmt
    t.check_text("read_file(join_path([d, \"log.txt\"]))", "step,loss")
    t.lines.append("//> 5," + fmt(np.mean((X @ w - y) ** 2), F))
    t.lines.append("//>")
    t.raw("delete_file(join_path([d, \"w.npy\"]));", "delete_file(join_path([d, \"h.npy\"]));",
          "delete_file(join_path([d, \"log.txt\"]));", "remove_dir(d);")
    t.check_text("is_dir(d)", "false")
    t.write()


def weighted_stats():
    t = prog("weighted_stats", "weighted mean and variance, a weighted histogram by onehot of bin indices "
             "(floor of scaled values, clipped), the mode by argmax and the entropy of the normalised histogram",
             uses=("std::ml::*", "std::math::{floor, log}"))
    g = np.random.default_rng(1151)
    v = t.let("v", np.round(g.uniform(0, 1, 15), 3), F)
    wt = t.let("wt", np.round(g.uniform(0.5, 2, 15), 2), F)
    t.raw("let W = sum[i](wt[i]);",
          "let m = sum[i](wt[i] * v[i]) / W;",
          "let var = sum[i](wt[i] * (v[i] - m) ** 2.0) / W;",
          "let bin[i in 0..15] = clip(floor(v[i] * 4.0) as i32, 0, 3);",
          "let H[b in 0..4] = sum[i](onehot(bin, 4, [0.0, 1.0])[i, b] * wt[i]);",
          "let mode = std::array::argmax(H);",
          "let p[b in 0..4] = H[b] / W;",
          "let ent = -sum[b](if p[b] > 0.0 { p[b] * log(p[b]) } else { 0.0 });")
    m = (wt * v).sum() / wt.sum()
    bins = np.clip(np.floor(v * 4).astype(int), 0, 3)
    H = np.bincount(bins, weights=wt, minlength=4)
    p = H / wt.sum()
    t.check("m", m, F)
    t.check("var", (wt * (v - m) ** 2).sum() / wt.sum(), F)
    t.check("bin", bins.astype(np.int32), "i32")
    t.check("H", H, F)
    t.check("mode", np.int32(H.argmax()), "i32")
    t.check("ent", -(p[p > 0] * np.log(p[p > 0])).sum(), F)
    t.write()


def median_filter():
    t = prog("median_filter", "a median filter of width 3 (sort of each window, middle element), the median "
             "of an even-length vector by the two middle sorted elements, and a running max by max_pool",
             uses=("std::ml::*", "std::array::sort"))
    g = np.random.default_rng(1161)
    x = t.let("x", np.round(g.normal(0, 1, 10), 2), F)
    t.raw("let win[i in 0..8, k in 0..3] = x[i + k];",
          "let med[i in 0..8] = sort(win)[i, 1];",
          "let s = sort(x);",
          "let median = (s[4] + s[5]) / 2.0;",
          "let x3[0, 0, i in 0..10] = x[i];",
          "let rmax = max_pool(x3, [3], [1], [2, 0]);")
    t.check("med", np.array([np.median(x[i:i + 3]) for i in range(8)]), F)
    t.check("median", np.median(x), F)
    t.check("rmax", np.array([x[max(0, i - 2):i + 1].max() for i in range(10)])[None, None], F)
    t.write()


def generate_batch2():
    for f in (logreg_f32, spearman, unpool_pipeline, graph_int, signal_windows, save_load_weights, weighted_stats,
              median_filter):
        f()
