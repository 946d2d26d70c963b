"""The fourth outside-programs hunt (session 20, issue 13 item 3), on ground no hunt reached:
library calls inside recurrences whose step reads the previous row (softmax(H[t - 1]),
layer_normalization(H[t - 1], ..)), inside user functions called per element, results indexed
at points (topk(..).0[i], split(..).1[j]), N-D conv and pooling with dilations and asymmetric
pads, quantize / dequantize round trips, gather / scatter with negative indices, reductions on
size-1 axes, empty extents, integer sums in recurrences (session 20's exact sums) and mixed
kinds in products, and derivative requests through these against central differences.
Expected values: NumPy written from the ONNX / NumPy definitions (hunt2_refs.py), central
differences. Files under cases/outside/hunt5_*.ein, run with EIN_JIT=never and always.
"""
import numpy as np

import hunt2_refs as R
from gen_hunt2 import F, rnd
from gen_select import modes_file


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt5_{name}.ein", purpose, uses=list(uses))


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis, keepdims=True))
    return e / e.sum(axis, keepdims=True)


def layer_norm(z, g, b, eps=1e-5):
    m = z.mean(-1, keepdims=True)
    v = ((z - m) ** 2).mean(-1, keepdims=True)
    return (z - m) / np.sqrt(v + eps) * g + b


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def rec_softmax_prev():
    t = prog("rec_softmax_prev", "a recurrence whose step is softmax of the previous row plus an input "
             "(attention-like smoothing), read at points and summed")
    X = t.let("X", rnd(501, (6, 4), -2, 2), F)
    t.raw("let H[0, j in 0..4] = X[0, j];",
          "let H[t in 1..6, j in 0..4] = softmax(H[t - 1])[j] * 2.0 + X[t, j];",
          "let s = sum[t, j](H[t, j] * H[t, j]);")
    H = [X[0]]
    for s in range(1, 6):
        H.append(softmax(H[-1]) * 2 + X[s])
    H = np.array(H)
    t.check("H", H, F)
    t.check("s", (H * H).sum(), F)
    t.write()


def rec_layernorm_prev():
    t = prog("rec_layernorm_prev", "a residual recurrence h[t] = layer_norm(h[t - 1]) * g + x[t] over the "
             "last axis, and log_softmax of the previous row in a second recurrence")
    X = t.let("X", rnd(511, (5, 4), -1, 1), F)
    g = t.let("g", rnd(512, (4,), 0.5, 1.5), F)
    b = t.let("b", rnd(513, (4,), -0.2, 0.2), F)
    t.raw("let H[0, j in 0..4] = X[0, j];",
          "let H[t in 1..5, j in 0..4] = layer_normalization(H[t - 1], g, b, 1e-5, -1)[j] + X[t, j];",
          "let L[0, j in 0..4] = X[0, j];",
          "let L[t in 1..5, j in 0..4] = log_softmax(L[t - 1])[j] * 0.5 + X[t, j];")
    H, L = [X[0]], [X[0]]
    for s in range(1, 5):
        H.append(layer_norm(H[-1], g, b) + X[s])
        z = L[-1]
        L.append((z - z.max() - np.log(np.exp(z - z.max()).sum())) * 0.5 + X[s])
    t.check("H", np.array(H), F)
    t.check("L", np.array(L), F)
    t.write()


def fn_per_element():
    t = prog("fn_per_element", "user functions calling the library, called once per element and once per "
             "row of a declaration (gates from sigmoid / relu / clip, a normalised row from log_softmax and "
             "l2_normalize)")
    X = t.let("X", rnd(521, (3, 5), -2, 2), F)
    t.raw("fn gate(v) { sigmoid(v) * relu(v - 0.5) + clip(v, -1.0, 1.0) }",
          "fn row(r) { l2_normalize(log_softmax(r), 1e-12) }",
          "let G[i in 0..3, j in 0..5] = gate(X[i, j]);",
          "let Y[i in 0..3, j in 0..5] = row(X[i])[j] + G[i, j];")
    G = sigmoid(X) * np.maximum(X - 0.5, 0) + np.clip(X, -1, 1)
    ls = X - X.max(-1, keepdims=True) - np.log(np.exp(X - X.max(-1, keepdims=True)).sum(-1, keepdims=True))
    Yr = ls / np.sqrt(np.maximum((ls * ls).sum(-1, keepdims=True), 1e-12)) + G
    t.check("G", G, F)
    t.check("Y", Yr, F)
    t.write()


def topk_points():
    t = prog("topk_points", "top-k results indexed at points inside declarations: values and indices of "
             "topk(x, 3, -1) read as .0[i] / .1[i], per row of a matrix, and used to gather")
    x = t.let("x", np.array([0.3, -1.2, 2.5, 0.9, 2.5, -0.1, 1.7]), F)
    M = t.let("M", rnd(531, (3, 6), -3, 3), F)
    t.raw("let v[i in 0..3] = topk(x, 3, -1).0[i];",
          "let ix[i in 0..3] = topk(x, 3, -1).1[i];",
          "let R[r in 0..3, i in 0..2] = topk(M, 2, -1).0[r, i] - M[r, topk(M, 2, -1).1[r, i]];",
          "let w[i in 0..3] = x[ix[i]] * 2.0;")
    order = np.argsort(-x, kind="stable")[:3]
    t.check("v", x[order], F)
    t.check("ix", order.astype(np.int32), "i32")
    t.check("R", np.zeros((3, 2)), F)
    t.check("w", x[order] * 2, F)
    t.write()


def split_points():
    t = prog("split_points", "parts of split read at points inside declarations (split(..).1[j], a matrix "
             "split along axis 1 read at [i, j]) and the parts recombined")
    v = t.let("v", rnd(541, (7,), -1, 1), F)
    M = t.let("M", rnd(542, (2, 6), -1, 1), F)
    t.raw("let a[j in 0..4] = split(v, [3, 4], 0).1[j];",
          "let B[i in 0..2, j in 0..2] = split(M, [4, 2], 1).1[i, j] * split(M, [4, 2], 1).0[i, j];",
          "let (p, q, r) = split(M, 3, 1);",
          "let S[i in 0..2, j in 0..2] = p[i, j] + q[i, j] - r[i, j];")
    t.check("a", v[3:], F)
    t.check("B", M[:, 4:] * M[:, :2], F)
    t.check("S", M[:, 0:2] + M[:, 2:4] - M[:, 4:6], F)
    t.write()


def conv_dilated():
    t = prog("conv_dilated", "1-D, 2-D and 3-D conv with dilations, strides and asymmetric pads (ONNX Conv, "
             "reference by slices), groups in 2-D, and the 1-D form's bias")
    X1 = t.let("X1", rnd(551, (2, 2, 11), -1, 1), F)
    W1 = t.let("W1", rnd(552, (3, 2, 3), -1, 1), F)
    B1 = t.let("B1", rnd(553, (3,), -0.5, 0.5), F)
    t.check("conv(X1, W1, B1, [2], [1, 3], [2], 1)", R.conv(X1, W1, B1, [2], [1, 3], [2]), F)
    t.check("conv(X1, W1, B1, [1], [0, 2], [3], 1)", R.conv(X1, W1, B1, [1], [0, 2], [3]), F)
    X2 = t.let("X2", rnd(554, (1, 4, 7, 6), -1, 1), F)
    W2 = t.let("W2", rnd(555, (4, 2, 2, 3), -1, 1), F)
    t.check("conv(X2, W2, [], [1, 2], [0, 1, 2, 0], [2, 1], 2)", R.conv(X2, W2, None, [1, 2], [0, 1, 2, 0], [2, 1], 2), F)
    X3 = t.let("X3", rnd(556, (1, 2, 4, 5, 4), -1, 1), F)
    W3 = t.let("W3", rnd(557, (2, 2, 2, 2, 2), -1, 1), F)
    t.check("conv(X3, W3, [], [1, 1, 2], [1, 0, 0, 0, 2, 1], [1, 2, 1], 1)",
            R.conv(X3, W3, None, [1, 1, 2], [1, 0, 0, 0, 2, 1], [1, 2, 1]), F)
    t.write()


def pool_asymmetric():
    t = prog("pool_asymmetric", "max and average pooling in 1-D, 2-D and 3-D with strides and asymmetric pads "
             "(average excludes the pads, ONNX count_include_pad 0)")
    X1 = t.let("X1", rnd(561, (1, 2, 9), -2, 2), F)
    X2 = t.let("X2", rnd(562, (1, 1, 5, 6), -2, 2), F)
    X3 = t.let("X3", rnd(563, (1, 1, 3, 4, 5), -2, 2), F)
    for kind, fn in (("max", "max_pool"), ("avg", "average_pool")):
        t.check(f"{fn}(X1, [3], [2], [0, 2])", R.pool(X1, [3], [2], [0, 2], kind), F)
        t.check(f"{fn}(X2, [2, 3], [2, 1], [1, 0, 0, 2])", R.pool(X2, [2, 3], [2, 1], [1, 0, 0, 2], kind), F)
        t.check(f"{fn}(X3, [2, 2, 3], [1, 2, 2], [0, 1, 1, 1, 0, 2])", R.pool(X3, [2, 2, 3], [1, 2, 2], [0, 1, 1, 1, 0, 2], kind), F)
    t.write()


def quant_roundtrip():
    t = prog("quant_roundtrip", "quantize_linear / dequantize_linear round trips: uint8 with a zero point, "
             "per-axis scales along axis 1, saturation at both ends, and the round-trip error bound")
    x = t.let("x", np.array([[-7.3, -0.26, 0.0, 0.25, 0.75, 1.25, 6.4, 12.9]]), F)
    q = np.clip(np.rint(x / 0.05) + 128, 0, 255)
    t.check("quantize_linear(x, 0.05, 128)", q.astype(np.int32), "i32")
    t.check("dequantize_linear(quantize_linear(x, 0.05, 128), 0.05, 128)", (q - 128) * 0.05, F)
    M = t.let("M", rnd(571, (2, 3), -4, 4), F)
    s = np.array([0.1, 0.02, 0.5])
    t.raw("let s: [f64; 3] = [0.1, 0.02, 0.5];")
    qm = np.clip(np.rint(M / s[None, :]) + 0, 0, 255)
    t.check("quantize_linear(M, s, 0)", qm.astype(np.int32), "i32")
    t.check("dequantize_linear(quantize_linear(M, s, 0), s, 0)", qm * s[None, :], F)
    t.raw("let err = max[i, j](abs(dequantize_linear(quantize_linear(M, s, [10, 100, 4]), s, [10, 100, 4])[i, j] - M[i, j]));")
    zp = np.array([10, 100, 4])
    qz = np.clip(np.rint(M / s) + zp, 0, 255)
    t.check("err", np.abs((qz - zp) * s - M).max(), F)
    t.write()


def negative_indices():
    t = prog("negative_indices", "gather, gather_elements, scatter_elements, gather_nd and scatter_nd with "
             "negative indices (ONNX counts them from the end of the axis)")
    D = t.let("D", rnd(581, (3, 4), -1, 1), F)
    t.raw("let ix = [-1, 0, -3];", "let ie = [[-1, 0, 1, -3], [2, -2, 0, -1]];")
    t.check("gather(D, ix, 0)", D[[-1, 0, -3]], F)
    t.check("gather(D, ix, 1)", D[:, [-1, 0, -3]], F)
    t.check("gather(D, ix, -1)", D[:, [-1, 0, -3]], F)
    ie = np.array([[-1, 0, 1, -3], [2, -2, 0, -1]])
    t.check("gather_elements(D, ie, 0)", np.take_along_axis(D, ie % 3, 0), F)
    U = t.let("U", rnd(582, (2, 4), 5, 6), F)
    S = D.copy()
    for i in range(2):
        for j in range(4):
            S[ie[i, j] % 3, j] = U[i, j]
    t.check("scatter_elements(D, ie, U, 0)", S, F)
    t.raw("let nd = [[-1, -1], [0, -4]];")
    t.check("gather_nd(D, nd)", np.array([D[-1, -1], D[0, -4]]), F)
    S2 = D.copy()
    S2[-1, -1] = 9.0
    S2[0, -4] = -9.0
    t.check("scatter_nd(D, nd, [9.0, -9.0])", S2, F)
    t.write()


def size_one_axes():
    t = prog("size_one_axes", "reductions and normalisations over size-1 axes: ONNX keepdims forms, NumPy "
             "axis reductions, softmax over an axis of one element, argmax / topk of one element")
    X = t.let("X", rnd(591, (1, 3, 1), -2, 2), F)
    t.check("reduce_sum(X)", X.sum(keepdims=True), F)
    t.check("reduce_mean(X)", X.mean(keepdims=True), F)
    t.check("reduce_max(X)", X.max(keepdims=True), F)
    t.check("std::array::sum_axis(X, 0)", X.sum(0), F)
    t.check("std::array::sum_axis(X, -1)", X.sum(-1), F)
    t.check("std::array::mean_axis(X, 2)", X.mean(2), F)
    t.check("softmax_axis(X, -1)", np.ones_like(X), F)
    t.check("softmax_axis(X, 1)", softmax(X, 1), F)
    t.check("std::array::argmax_axis(X, 0)", np.zeros((3, 1), dtype=np.int32), "i32")
    t.check("topk(X, 1, 0).0", X, F)
    t.check("layer_normalization(X, [1.0], [0.5], 1e-5, -1)", np.full_like(X, 0.5), F)
    t.check("X - reduce_mean(X)[0, 0, 0]", X - X.mean(), F)
    t.write()


def empty_extents():
    t = prog("empty_extents", "empty extents through library calls: an empty batch through linear, softmax "
             "and matmul, a product over an empty inner axis (zeros), concat with an empty part, cumsum "
             "and reductions of an empty axis")
    t.raw("let E[i in 0..0, j in 0..3] = 1.0;",
          "let W: [f64; 2, 3] = [[1.0, 2.0, 3.0], [0.5, -1.0, 0.0]];",
          "let K[i in 0..2, j in 0..0] = 1.0;",
          "let L[i in 0..0, j in 0..4] = 1.0;",
          "let A: [f64; 2, 4] = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]];")
    t.check("linear(E, W, [0.0, 1.0])", np.zeros((0, 2)), F)
    t.check("softmax(E)", np.zeros((0, 3)), F)
    t.check("matmul(K, L)", np.zeros((2, 4)), F)
    t.check("concat(L, A)", np.array([[1.0, 2, 3, 4], [5, 6, 7, 8]]), F)
    t.check("cumsum(K)", np.zeros((2, 0)), F)
    t.check("std::array::sum_axis(K, 1)", np.zeros(2), F)
    t.check("reduce_sum(K)", np.zeros((1, 1)), F)
    t.check("std::array::sum_axis(E, 0)", np.zeros(3), F)
    t.write()


def int_sums_recurrence():
    t = prog("int_sums_recurrence", "exact integer library sums inside a recurrence and a user function "
             "(running totals of counts, cumsum of a matrix row, trace), values that fit i32")
    C = t.let("C", np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]]), "i32")
    t.raw("fn total(r) { std::sum(r) + reduce_sum(r)[0] }",
          "let T[0] = 0;",
          "let T[t in 1..4] = T[t - 1] + total(C[t - 1]);",
          "let Q[i in 0..3, j in 0..4] = cumsum(C[i])[j] * 2;")
    tot = [0]
    for r in C:
        tot.append(tot[-1] + 2 * int(r.sum()))
    t.check("T", np.array(tot, dtype=np.int32), "i32")
    t.check("Q", (np.cumsum(C, 1) * 2).astype(np.int32), "i32")
    t.check("trace(matmul(C, transpose(C)))", np.int32(np.trace(C @ C.T)), "i32")
    t.check("dot(C[0], C[2])", np.int32(C[0] @ C[2]), "i32")
    t.write()


def mixed_training():
    t = prog("mixed_products", "integer one-hot labels and integer features beside float weights in "
             "matmul / linear / gemm / outer (NumPy promotes to float64), and a gradient through them")
    Xi = t.let("Xi", np.array([[1, 0, 2], [0, 3, 1]]), "i32")
    W = t.let("W", rnd(601, (3, 2), -1, 1), F)
    b = t.let("b", rnd(602, (2,), -0.3, 0.3), F)
    t.check("matmul(Xi, W)", Xi @ W, F)
    t.check("linear(Xi, transpose(W), b)", Xi @ W + b, F)
    t.check("gemm(Xi, W, b, 0.5, 2.0, 0, 0)", 0.5 * (Xi @ W) + 2.0 * b, F)
    t.check("outer(Xi[0], b)", np.outer(Xi[0], b), F)
    t.raw("let L = sum[i, k](matmul(Xi, W)[i, k] * matmul(Xi, W)[i, k]);")
    t.check("@L / @W", R.fd(lambda w: ((Xi @ w) ** 2).sum(), W), F)
    t.write()


def conv_pool_gradients():
    t = prog("conv_pool_grads", "derivatives through a dilated, strided conv with asymmetric pads, then max "
             "and average pooling with asymmetric pads (1-D and 2-D), against central differences")
    X1 = t.let("X1", rnd(611, (1, 2, 10), -1, 1), F)
    W1 = t.let("W1", rnd(612, (2, 2, 3), -1, 1), F)
    t.raw("let Y1 = conv(X1, W1, [], [2], [1, 2], [2], 1);",
          "let P1 = average_pool(Y1, [2], [1], [0, 1]);",
          "let L1 = sum[n, c, l](P1[n, c, l] * P1[n, c, l]);")
    f1 = lambda w: (R.pool(R.conv(X1, w, None, [2], [1, 2], [2]), [2], [1], [0, 1], "avg") ** 2).sum()
    t.check("@L1 / @W1", R.fd(f1, W1), F)
    X2 = t.let("X2", rnd(613, (1, 1, 5, 5), -1, 1), F)
    W2 = t.let("W2", rnd(614, (2, 1, 2, 2), -1, 1), F)
    t.raw("let Y2 = conv(X2, W2, [], [1, 1], [0, 1, 1, 0], [2, 1], 1);",
          "let P2 = max_pool(Y2, [2, 2], [2, 1], [1, 0, 0, 1]);",
          "let L2 = sum[n, c, h, w](P2[n, c, h, w] * 0.5 + P2[n, c, h, w] * P2[n, c, h, w]);")
    f2 = lambda w: (lambda p: (p * 0.5 + p * p).sum())(
        R.pool(R.conv(X2, w, None, [1, 1], [0, 1, 1, 0], [2, 1]), [2, 2], [2, 1], [1, 0, 0, 1], "max"))
    t.check("@L2 / @W2", R.fd(f2, W2), F)
    t.check("@L2 / @X2", R.fd(lambda x: (lambda p: (p * 0.5 + p * p).sum())(
        R.pool(R.conv(x, W2, None, [1, 1], [0, 1, 1, 0], [2, 1]), [2, 2], [2, 1], [1, 0, 0, 1], "max")), X2), F)
    t.write()


def selection_gradients():
    t = prog("selection_grads", "derivatives through values picked at points: the sum of topk(x, 3).0 read "
             "at [i], a split part read at [j], gather with negative indices, against central differences")
    x = t.let("x", np.array([0.3, -1.2, 2.5, 0.9, 2.2, -0.1, 1.7]), F)
    t.raw("let L = sum[i in 0..3](topk(x, 3, -1).0[i] * topk(x, 3, -1).0[i]);")
    t.check("@L / @x", R.fd(lambda v: (np.sort(v)[::-1][:3] ** 2).sum(), x), F)
    t.raw("let (p, q) = split(x, [3, 4], 0);",
          "let M = sum[j in 0..4](q[j] * q[j] * 0.5) + sum[i in 0..3](p[i]);")
    t.check("@M / @x", R.fd(lambda v: (v[3:] ** 2 * 0.5).sum() + v[:3].sum(), x), F)
    t.raw("let G = sum[i in 0..3](gather(x, [-1, 0, -3], 0)[i] * gather(x, [-1, 0, -3], 0)[i]);")
    t.check("@G / @x", R.fd(lambda v: (v[[-1, 0, -3]] ** 2).sum(), x), F)
    t.write()


def norm_gradients():
    t = prog("norm_grads", "a user function calling layer_normalization and softmax, called once per row "
             "and on the whole matrix: values, and derivatives of both forms against central differences")
    X = t.let("X", rnd(621, (3, 4), -1, 1), F)
    g = t.let("g", rnd(622, (4,), 0.5, 1.5), F)
    t.raw("fn block(r, gg) { softmax(layer_normalization(r, gg, [0.0, 0.0, 0.0, 0.0], 1e-5, -1)) }",
          "let Y[i in 0..3, j in 0..4] = block(X[i], g)[j];",
          "let Z = block(X, g);",
          "let L = sum[i, j](Z[i, j] * Z[i, j] * ((j + 1) as f64));")
    wts = np.arange(1, 5)
    t.check("Y", softmax(layer_norm(X, g, 0.0)), F)
    t.check("@L / @g", R.fd(lambda gv: (softmax(layer_norm(X, gv, 0.0)) ** 2 * wts).sum(), g), F)
    t.check("@L / @X", R.fd(lambda xv: (softmax(layer_norm(xv, g, 0.0)) ** 2 * wts).sum(), X), F)
    # per row (E013 until the coordinator's 54e769f: a call on a moving row)
    t.raw("let K = sum[i, j](Y[i, j] * Y[i, j] * ((j + 1) as f64));")
    t.check("@K / @g", R.fd(lambda gv: (softmax(layer_norm(X, gv, 0.0)) ** 2 * wts).sum(), g), F)
    t.write()


def generate():
    for f in (rec_softmax_prev, rec_layernorm_prev, fn_per_element, topk_points, split_points, conv_dilated,
              pool_asymmetric, quant_roundtrip, negative_indices, size_one_axes, empty_extents,
              int_sums_recurrence, mixed_training, conv_pool_gradients, selection_gradients,
              norm_gradients):
        f()
