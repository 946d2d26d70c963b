"""The third outside-programs hunt (session 19, issue 13 item 3): functions no earlier hunt called
(the surface minus gen_hunt2/3), library calls inside user functions called from recurrences,
arguments that are slices, transposes or results of other calls, keepdims / negative axes /
empty and size-1 extents, element-kind chains (int -> float -> bool, mixed kinds), and
derivative requests through library calls against central differences. Expected values: NumPy
written from the ONNX / NumPy definitions (hunt2_refs.py), central differences. Files under
cases/outside/hunt4_*.ein, run with EIN_JIT=never and always.
"""
import numpy as np

import hunt2_refs as R
from gen_hunt2 import F, rnd
from gen_ml_nn import roi_pool_ref
from gen_select import modes_file


def prog(name, purpose, uses=("std::ml::*",)):
    return modes_file(f"outside/hunt4_{name}.ein", purpose, uses=list(uses))


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def softplus(z):
    return np.log1p(np.exp(z))


def log_softmax(z, axis=-1):
    m = z.max(axis, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(axis, keepdims=True))


ACTS = {  # expression on x -> NumPy formula (ONNX / PyTorch definitions)
    "celu(x, 0.7)": lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * np.expm1(x / 0.7)),
    "elu_alpha(x, 0.3)": lambda x: np.where(x > 0, x, 0.3 * np.expm1(x)),
    "selu(x)": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "softplus(x)": softplus,
    "softsign(x)": lambda x: x / (1 + np.abs(x)),
    "mish(x)": lambda x: x * np.tanh(softplus(x)),
    "hardswish(x)": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "hardsigmoid(x)": lambda x: np.clip(0.2 * x + 0.5, 0, 1),
    "hardtanh(x, -0.5, 0.75)": lambda x: np.clip(x, -0.5, 0.75),
    "threshold(x, 0.25, -9.0)": lambda x: np.where(x > 0.25, x, -9.0),
    "softshrink(x, 0.5)": lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0)),
    "hardshrink(x, 0.5)": lambda x: np.where(np.abs(x) > 0.5, x, 0.0),
    "relu6(x * 4.0)": lambda x: np.clip(x * 4, 0, 6),
    "gelu_tanh(x)": lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
    "tanhshrink(x)": lambda x: x - np.tanh(x),
    "thresholded_relu(x, 0.1)": lambda x: np.where(x > 0.1, x, 0.0),
    "log_softmax(x)": log_softmax,
}


def activations_on_views():
    t = prog("activations_views", "the activations no hunt called, applied to a transpose, a row slice and "
             "the result of another call (NumPy formulas of the ONNX / PyTorch definitions)")
    X = t.let("X", rnd(401, (3, 4), -3, 3), F)
    t.raw("let T = transpose(X);", "let r = X[1];")
    for e, f in ACTS.items():
        t.check(e.replace("(x", "(T"), f(X.T), F)
        t.check(e.replace("(x", "(r"), f(X[1]), F)
    t.check("softsign(mish(T))", ACTS["softsign(x)"](ACTS["mish(x)"](X.T)), F)
    t.check("log_softmax(celu(X, 0.7))", log_softmax(ACTS["celu(x, 0.7)"](X)), F)
    t.write()


def activation_gradients():
    t = prog("activation_grads", "a dense layer through the less common activations into a loss: @L/@W "
             "against central differences (linear -> celu -> mish -> hardswish -> log_softmax -> nll)")
    X = t.let("X", rnd(411, (4, 3), -2, 2), F)
    W = t.let("W", rnd(412, (5, 3), -1, 1), F)
    b = t.let("b", rnd(413, (5,), -0.2, 0.2), F)
    y = [1, 4, 0, 2]
    t.raw(f"let y = {y};")

    def loss(W):
        h = X @ W.T + b
        h = ACTS["celu(x, 0.7)"](h)
        h = ACTS["mish(x)"](h)
        h = ACTS["hardswish(x)"](h)
        return -log_softmax(h)[np.arange(4), y].mean()
    t.raw("let H = hardswish(mish(celu(linear(X, W, b), 0.7)));", "let L = nll_loss(log_softmax(H), y);")
    t.check("L", loss(W), F)
    t.check("@L / @W", R.fd(loss, W), F)
    t.write()


def reductions_views():
    t = prog("reductions_views", "ONNX reductions (all axes, keepdims 1) and NumPy axis reductions with negative "
             "axes, on transposes, slices and size-1 axes; argmax_all / argmin_all with ties; a large-valued "
             "reduce_log_sum_exp")
    X = t.let("X", rnd(421, (2, 3, 4), -2, 2), F)
    t.raw("let T = transpose(X[0]);")
    for name, f in [("reduce_sum", np.sum), ("reduce_mean", np.mean), ("reduce_max", np.max),
                    ("reduce_min", np.min), ("reduce_prod", np.prod),
                    ("reduce_l1", lambda z, **k: np.abs(z).sum(**k)),
                    ("reduce_l2", lambda z, **k: np.sqrt((z * z).sum(**k))),
                    ("reduce_sum_square", lambda z, **k: (z * z).sum(**k)),
                    ("reduce_log_sum_exp", lambda z, **k: np.log(np.exp(z).sum(**k)))]:
        t.check(f"{name}(T)", f(X[0].T, keepdims=True), F)
        t.check(f"{name}(X[1, 2])", f(X[1, 2], keepdims=True), F)
    t.check("reduce_log_sum(X * X + 1.0)", np.log((X * X + 1).sum(keepdims=True)), F)
    for ax in (-1, -2, -3, 0):
        t.check(f"std::array::sum_axis(X, {ax})", X.sum(ax), F)
        t.check(f"std::array::mean_axis(X, {ax})", X.mean(ax), F)
        t.check(f"std::array::max_axis(X, {ax})", X.max(ax), F)
        t.check(f"std::array::argmin_axis(X, {ax})", X.argmin(ax).astype(np.int32), "i32")
    O = t.let("O", rnd(422, (1, 4, 1)), F)
    t.check("std::array::sum_axis(O, -1)", O.sum(-1), F)
    t.check("std::array::max_axis(O, 0)", O.max(0), F)
    t.check("reduce_mean(O)", O.mean(keepdims=True), F)
    ties = t.let("ties", np.array([[3.0, 1.0, 3.0], [0.0, 3.0, 1.0]]), F)
    t.check("std::array::argmax_all(ties)", np.flatnonzero(ties.ravel() == ties.max()).astype(np.int32), "i32")
    t.check("std::array::argmin_all(ties)", np.flatnonzero(ties.ravel() == ties.min()).astype(np.int32), "i32")
    big = t.let("big", np.array([1000.0, 999.0, -5.0]), F)
    t.check("reduce_log_sum_exp(big)", np.array([1000 + np.log(1 + np.exp(-1) + np.exp(-1005))]), F)
    t.write()


def recurrence_cells():
    t = prog("recurrence_cells", "a user cell function calling std::ml (linear, softsign, hardtanh, "
             "l2_normalize) run as a recurrence over time steps, and a scalar ODE step (rk4_decay_step) "
             "driven by a recurrence")
    Xs = t.let("Xs", rnd(431, (5, 3)), F)
    W = t.let("W", rnd(432, (3, 3), -0.8, 0.8), F)
    U = t.let("U", rnd(433, (3, 3), -0.8, 0.8), F)
    t.raw("fn cell(h, x) {",
          "  let z = add(linear(h, W, [0.0, 0.0, 0.0]), linear(x, U, [0.1, 0.0, -0.1]));",
          "  hardtanh(softsign(z) * 2.0, -0.9, 0.9)",
          "}",
          "let H[0, j in 0..3] = 0.0;",
          "let H[t in 1..6, j in 0..3] = cell(H[t - 1], Xs[t - 1])[j];",
          "let N[t in 0..6, j in 0..3] = l2_normalize(H[t], 1e-12)[j];")
    h = np.zeros(3)
    hs = [h]
    for s in range(5):
        z = h @ W.T + Xs[s] @ U.T + np.array([0.1, 0.0, -0.1])
        h = np.clip(2 * z / (1 + np.abs(z)), -0.9, 0.9)
        hs.append(h)
    Hr = np.array(hs)
    t.check("H", Hr, F)
    t.check("N", Hr / np.sqrt(np.maximum((Hr * Hr).sum(-1, keepdims=True), 1e-12)), F)

    def rk4(u, k, dt):
        f = lambda v: -k * v
        k1 = f(u)
        k2 = f(u + dt / 2 * k1)
        k3 = f(u + dt / 2 * k2)
        k4 = f(u + dt * k3)
        return u + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    t.raw("let u[0] = 1.0;", "let u[n in 1..6] = std::numerics::ode::rk4_decay_step(u[n - 1], 0.8, 0.25);")
    us = [1.0]
    for _ in range(5):
        us.append(rk4(us[-1], 0.8, 0.25))
    t.check("u", np.array(us), F)
    t.write()


def linalg_views():
    t = prog("linalg_views", "triangular solves on a Cholesky factor and its transpose, norms, kron, "
             "diagonals and bands of results of other calls")
    A = rnd(441, (4, 4))
    A = np.round(A @ A.T + 4 * np.eye(4), 3)
    t.let("A", A, F)
    bv = t.let("bv", rnd(442, (4,)), F)
    L = np.linalg.cholesky(A)
    t.raw("let L = cholesky(A);")
    y = np.linalg.solve(L, bv)
    t.check("solve_triangular_lower(L, bv)", y, F)
    t.check("solve_triangular_upper(transpose(L), solve_triangular_lower(L, bv))", np.linalg.solve(A, bv), F)
    t.check("vec_norm_2(bv)", np.linalg.norm(bv), F)
    t.check("matrix_norm_frobenius(L)", np.linalg.norm(L), F)
    t.check("frobenius_norm(transpose(A))", np.linalg.norm(A), F)
    S = t.let("S", np.array([[1.0, 2.0], [3.0, 4.0]]), F)
    K = np.kron(S, np.array([[0.0, 1.0], [1.0, 0.5]]))
    t.check("kron(S, [[0.0, 1.0], [1.0, 0.5]])", K, F)
    t.check("diag_extract(kron(S, [[0.0, 1.0], [1.0, 0.5]]))", np.diag(K), F)
    t.check("diag_construct(diag_extract(A))", np.diag(np.diag(A)), F)
    t.check("triu(A, -1)", np.triu(A, -1), F)
    t.check("triu(A, 2)", np.triu(A, 2), F)
    t.check("tril(transpose(A), 1)", np.tril(A.T, 1), F)
    t.check("trace(kron(S, S))", np.trace(np.kron(S, S)), F)
    t.write()


def shapes_edges():
    t = prog("shapes_edges", "concat, split, flip, roll, repeat_interleave, tile and pad with empty and size-1 "
             "extents, negative shifts, zero repeats")
    v = t.let("v", np.array([1.0, 2.0, 3.0, 4.0, 5.0]), F)
    M = t.let("M", rnd(451, (2, 3)), F)
    t.raw("let e[i in 0..0] = v[i];")
    t.check("concat(e, v)", v, F)
    t.check("concat(v, e)", v, F)
    t.check("roll(v, -2)", np.roll(v, -2), F)
    t.check("roll(v, 7)", np.roll(v, 7), F)
    t.check("roll(M, 1)", np.roll(M, 1), F)
    t.check("flip(M)", np.flip(M), F)
    t.check("flip(transpose(M))", np.flip(M.T), F)
    t.check("repeat_interleave(v, [0, 2, 0, 1, 3])", np.repeat(v, [0, 2, 0, 1, 3]), F)
    t.check("repeat_interleave(M, 2)", np.repeat(M, 2), F)
    t.check("len(repeat_interleave(v, [0, 0, 0, 0, 0]))", np.int32(0), "i32")
    t.check("split(v, [2, 0, 3], 0).2", v[2:], F)
    t.check("len(split(v, [2, 0, 3], 0).1)", np.int32(0), "i32")
    t.check("roll(e, 3)", np.zeros(0), F)
    t.check("flip(e)", np.zeros(0), F)
    t.write()


def dtype_chain():
    t = prog("dtype_chain", "element kinds in a chain: int labels cast to float, compared into bools, "
             "combined with logical ops, counted, and mixed with floats in library calls (NumPy's promotion)",
             uses=["std::ml::*"])
    t.raw("let labels: [i32; 6] = [2, 0, 1, 2, 2, 0];", "let scores: [f32; 6] = [0.5, -1.0, 2.5, 0.25, 3.0, 1.0];")
    lab = np.array([2, 0, 1, 2, 2, 0], np.int32)
    sc = np.array([0.5, -1.0, 2.5, 0.25, 3.0, 1.0], np.float32)
    t.check("cast(labels, \"float32\")", lab.astype(np.float32), "f32")
    is2 = lab == 2
    pos = sc > 0
    t.check("logical_xor(equal(labels, 2), greater(scores, 0))", is2 ^ pos, "bool")
    t.check("logical_and(not(equal(labels, 0)), less_or_equal(scores, 1))", (lab != 0) & (sc <= 1), "bool")
    t.check("reduce_sum(cast(equal(labels, 2), \"int32\"))", np.array([3], np.int32), "i32")
    t.check("where(equal(labels, 2), scores, 0)", np.where(is2, sc, np.float32(0)), "f32")
    t.check("where(equal(labels, 2), labels, 0.5)", np.where(is2, lab, 0.5), F)
    t.check("multiply(labels, scores)", lab * sc, F)
    t.check("max(labels, scores)", np.maximum(lab, sc), F)
    t.check("clip(labels, 0.5, 1.5)", np.clip(lab, 0.5, 1.5), F)
    t.check("greater_or_equal(labels, 1.5)", lab >= 1.5, "bool")
    t.check("not_equal(scores, labels)", sc != lab, "bool")
    t.check("std::array::sum(cast(greater(scores, 0.4), \"int32\"))", np.int32((sc > 0.4).sum()), "i32")
    t.check("is_inf(divide(scores, cast(labels, \"float32\")))", np.isinf(sc / lab.astype(np.float32)), "bool")
    t.check("numel(scores)", np.int32(6), "i32")
    t.write()


def loss_gradients():
    t = prog("loss_grads", "losses no hunt differentiated: binary_cross_entropy of a sigmoid, mae_loss, "
             "cosine_similarity and l2_normalize, each @L/@W against central differences")
    X = t.let("X", rnd(461, (4, 3), -1, 1), F)
    W = t.let("W", rnd(462, (2, 3), -1, 1), F)
    Y = t.let("Y", np.array([[1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [0.0, 1.0]]), F)
    T2 = t.let("T2", rnd(463, (4, 2)), F)

    def bce(W):
        p = np.clip(sigmoid(X @ W.T), 1e-7, 1 - 1e-7)
        return -(Y * np.log(p) + (1 - Y) * np.log(1 - p)).mean()
    t.raw("let P = sigmoid(matmul(X, transpose(W)));", "let L1 = binary_cross_entropy(P, Y);")
    t.check("L1", bce(W), F)
    t.check("@L1 / @W", R.fd(bce, W), F)

    def mae(W):
        return np.abs(np.tanh(X @ W.T) - T2).mean()
    t.raw("let L2 = mae_loss(tanh(matmul(X, transpose(W))), T2);")
    t.check("L2", mae(W), F)
    t.check("@L2 / @W", R.fd(mae, W), F)

    def cos(W):
        a = X @ W.T
        return ((a * T2).sum(-1) / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(T2, axis=-1), 1e-8)).sum()
    t.raw("let C = cosine_similarity(matmul(X, transpose(W)), T2);", "let L3 = sum[i](C[i]);")
    t.check("C", (lambda a: (a * T2).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(T2, axis=-1)))(X @ W.T), F)
    t.check("@L3 / @W", R.fd(cos, W), F)

    def l2n(W):
        a = X @ W.T
        n = a / np.sqrt(np.maximum((a * a).sum(-1, keepdims=True), 1e-12))
        return (n * T2).sum()
    t.raw("let Nn = l2_normalize(matmul(X, transpose(W)), 1e-12);", "let L4 = sum[i, j](Nn[i, j] * T2[i, j]);")
    t.check("@L4 / @W", R.fd(l2n, W), F)
    t.write()


def numerics_dp():
    t = prog("numerics_dp", "std::numerics dp and ode steps driven by recurrences: value iteration by "
             "bellman_step, expected_value_at_state, discounted_return of a slice, euler / midpoint / "
             "euler_linear steps", uses=["std::numerics::dp::*", "std::numerics::ode::*"])
    P = np.array([[0.5, 0.2, 0.1], [0.3, 0.6, 0.2], [0.2, 0.2, 0.7]])  # columns sum to 1: P[s2, s]
    t.let("P", P, F)
    r = t.let("r", np.array([1.0, -0.5, 2.0]), F)
    t.raw("let V[0, s in 0..3] = 0.0;", "let V[k in 1..8, s in 0..3] = bellman_step(V[k - 1], r, P, 0.9, 3)[s];")
    V = [np.zeros(3)]
    for _ in range(7):
        V.append(r + 0.9 * P.T @ V[-1])
    V = np.array(V)
    t.check("V", V, F)
    t.check("expected_value_at_state(V[7], P, 2, 3)", (P[:, 2] * V[7]).sum(), F)
    rw = t.let("rw", np.array([1.0, 0.0, 2.0, -1.0, 3.0, 0.5]), F)
    t.check("discounted_return(rw, 0.8, 4)", sum(rw[k] * 0.8 ** k for k in range(4)), F)
    t.raw("let u[0] = 2.0;", "let u[n in 1..5] = midpoint_decay_step(euler_decay_step(u[n - 1], 0.5, 0.1), 0.5, 0.1);")
    u = [2.0]
    for _ in range(4):
        e = u[-1] - 0.1 * 0.5 * u[-1]
        u.append(e - 0.1 * 0.5 * (e - 0.5 * 0.1 * 0.5 * e))
    t.check("u", np.array(u), F)
    A = t.let("A", np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.5, 0.5, -1.0]]), F)
    t.raw("let Z[0, i in 0..3] = [1.0, 0.0, 2.0][i];",
          "let Z[k in 1..4, i in 0..3] = euler_linear_step(Z[k - 1], A, 0.1, 3)[i];")
    Z = [np.array([1.0, 0.0, 2.0])]
    for _ in range(3):
        Z.append(Z[-1] + 0.1 * A @ Z[-1])
    t.check("Z", np.array(Z), F)
    t.check("euler_linear_step([1.0, 0.0, 2.0], A, 0.1, 2)", np.array([1.0, 0.0]) + 0.1 * A[:2, :2] @ np.array([1.0, 0.0]), F)
    t.write()


def attention_heads():
    t = prog("attention_heads", "attention_dummy on a transposed key, multi_head_attention_simple with 2 heads "
             "on batched inputs, and its gradient in the query")
    q = t.let("q", rnd(471, (2, 3, 4)), F)
    k = t.let("k", rnd(472, (2, 5, 4)), F)
    v = t.let("v", rnd(473, (2, 5, 2)), F)
    kt = t.let("kt", np.swapaxes(rnd(472, (2, 5, 4)), 1, 2).copy(), F)

    def att(q, k, v, s):
        z = q @ np.swapaxes(k, -1, -2) * s
        z = np.exp(z - z.max(-1, keepdims=True))
        return (z / z.sum(-1, keepdims=True)) @ v
    t.check("attention_dummy(q[0], transpose(kt[0]), v[0], 0.5)", att(q[0], k[0], v[0], 0.5), F)

    def mha(q, k, v, h, s):
        d, dv = q.shape[-1] // h, v.shape[-1] // h
        return np.concatenate([att(q[..., i * d:(i + 1) * d], k[..., i * d:(i + 1) * d],
                                   v[..., i * dv:(i + 1) * dv], s) for i in range(h)], -1)
    t.check("multi_head_attention_simple(q, k, v, 2, 0.7071067811865476)", mha(q, k, v, 2, 0.7071067811865476), F)
    t.raw("let O = multi_head_attention_simple(q, k, v, 2, 0.7071067811865476);",
          "let L = sum[b, i, j](O[b, i, j] * O[b, i, j]);")
    t.check("@L / @q", R.fd(lambda q: (mha(q, k, v, 2, 0.7071067811865476) ** 2).sum(), q), F)
    t.write()


def selection_family():
    t = prog("selection_family", "partition, partition_2d along both axes, topk_extract on rows of a "
             "transpose, topk_with_indices_extract carrying labels, topk_1d_helper with k past the extent",
             uses=["std::array::*", "std::ml::topk_1d_helper"])
    a = t.let("a", np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]), F)
    t.check("partition(a, 4.0).0", a[a < 4], F)
    t.check("partition(a, 4.0).1", a[a == 4], F)
    t.check("partition(a, 4.0).2", a[a > 4], F)
    M = t.let("M", np.array([[2.0, 5.0, 1.0], [0.0, 3.0, 7.0], [2.0, 1.0, 1.0], [4.0, 0.0, 2.0]]), F)
    t.check("partition_2d(M, 2.0, 0).0", M[M[:, 0] < 2], F)
    t.check("partition_2d(M, 2.0, 0).1", M[M[:, 0] == 2], F)
    t.check("partition_2d(M, 2.0, 0).2", M[M[:, 0] > 2], F)
    t.check("partition_2d(M, 1.0, 1).2", M[:, M[0] > 1], F)
    order = np.argsort(-M.T, axis=-1, kind="stable")[:, :2]
    t.check("topk_extract(transpose(M), 2)", np.take_along_axis(M.T, order, -1), F)
    lab = np.array([10, 11, 12, 13, 14, 15, 16, 17], np.int32)
    t.raw(f"let lab: [i32; 8] = {lab.tolist()};")
    o = np.argsort(-a, kind="stable")[:3]
    t.check("topk_with_indices_extract(a, lab, 3).0", a[o], F)
    t.check("topk_with_indices_extract(a, lab, 3).1", lab[o], "i32")
    o = np.argsort(-a, kind="stable")
    t.check("topk_1d_helper(a, 20).0", a[o], F)
    t.check("topk_1d_helper(a, 20).1", o.astype(np.int32), "i32")
    t.write()


def scatter_roi():
    t = prog("scatter_roi", "scatter (ScatterElements) along a negative axis with repeated rows, and "
             "max_roi_pool with a spatial scale")
    d = t.let("d", np.zeros((3, 4)), F)
    u = t.let("u", np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), F)
    idx = np.array([[3, 0], [1, 2], [0, 3]])
    ref = np.zeros((3, 4))
    for i in range(3):
        for j in range(2):
            ref[i, idx[i, j]] = u[i, j]
    t.check(f"scatter(d, {idx.tolist()}, u, -1)", ref, F)
    X = t.let("X", rnd(481, (1, 2, 6, 6)), F)
    rois = np.array([[0, 0.0, 0.0, 5.0, 5.0], [0, 2.0, 1.0, 9.0, 7.0]])
    t.let("rois", rois, F)

    t.check("max_roi_pool(X, rois, [2, 3], 0.5)", roi_pool_ref(X, rois, (2, 3), 0.5), F)
    t.write()


def math_chain():
    t = prog("math_chain", "std::math functions no hunt called, on slices and transposes: atan2 of two rows, "
             "inverse hyperbolics, log10 / log2 / expm1 / log1p, deg_to_rad, rsqrt, trunc, sign, square, neg, "
             "reciprocal, fmod / mod of negatives, factorial, gcd, lcm", uses=["std::math::*"])
    X = t.let("X", rnd(491, (2, 4), -0.9, 0.9), F)
    t.raw("let T = std::ml::transpose(X);")
    t.check("atan2(X[0], X[1])", np.arctan2(X[0], X[1]), F)
    t.check("asinh(T)", np.arcsinh(X.T), F)
    t.check("atanh(X[1])", np.arctanh(X[1]), F)
    t.check("acosh(square(T) + 1.0)", np.arccosh(X.T ** 2 + 1), F)
    t.check("log10(abs(T) + 0.5)", np.log10(np.abs(X.T) + 0.5), F)
    t.check("log2(abs(X) + 1.0)", np.log2(np.abs(X) + 1), F)
    t.check("expm1(T)", np.expm1(X.T), F)
    t.check("log1p(X[0])", np.log1p(X[0]), F)
    t.check("deg_to_rad(X * 180.0)", np.deg2rad(X * 180), F)
    t.check("rsqrt(abs(T) + 0.1)", 1 / np.sqrt(np.abs(X.T) + 0.1), F)
    t.check("trunc(X * 3.0)", np.trunc(X * 3), F)
    t.check("sign(T)", np.sign(X.T), F)
    t.check("neg(reciprocal(X[1]))", -1 / X[1], F)
    t.check("fmod(X * 5.0, 0.75)", np.fmod(X * 5, 0.75), F)
    t.check("mod(X * 5.0, -0.75)", np.mod(X * 5, -0.75), F)
    t.check("factorial(6)", np.int32(720), "i32")
    t.check("gcd(84, -36)", np.int32(12), "i32")
    t.check("lcm(4, 6)", np.int32(12), "i32")
    t.write()


def layers_edges():
    t = prog("layers_edges", "conv2d with the surface's scalar strides / pads / dilations, image_scaler, "
             "dropout in inference, identity and constant_of_shape, a 1x1 convolution and a [1, n] x [n, 1] "
             "product (size-1 axes), an empty batch through linear and softmax")
    X = t.let("X", rnd(501, (1, 2, 5, 5)), F)
    W = t.let("W", rnd(502, (3, 2, 3, 3), -0.5, 0.5), F)
    B = t.let("B", np.array([0.1, 0.0, -0.1]), F)
    t.check("conv2d(X, W, B, 2, 1, 1, 0, 1, 2)", R.conv(X, W, B, [2, 1], [1, 0, 1, 0], [1, 2]), F)
    t.check("image_scaler(X, 2.0, [0.5, -0.5])", 2 * X + np.array([0.5, -0.5])[None, :, None, None], F)
    t.check("dropout(X[0, 0], 0.5, false)", X[0, 0], F)
    t.check("identity(transpose(X[0, 1]))", X[0, 1].T, F)
    t.check("constant_of_shape([2, 3], 1.5)", np.full((2, 3), 1.5), F)
    W1 = t.let("W1", rnd(503, (4, 2, 1, 1)), F)
    t.check("conv(X, W1, [], [], [], [], 1)", np.einsum("nchw,mc->nmhw", X, W1[:, :, 0, 0]), F)
    r = t.let("r", rnd(504, (1, 3)), F)
    c = t.let("c", rnd(505, (3, 1)), F)
    t.check("matmul(r, c)", r @ c, F)
    t.check("matmul(c, r)", c @ r, F)
    t.check("softmax(matmul(r, c))", np.ones((1, 1)), F)
    t.raw("let E[i in 0..0, j in 0..3] = r[0, j];")
    Wl = t.let("Wl", rnd(506, (2, 3)), F)
    t.check("shape(linear(E, Wl, [0.0, 0.0]))", np.array([0, 2], np.int32), "i32")
    t.check("shape(softmax(E))", np.array([0, 3], np.int32), "i32")
    t.write()


def keepdims_broadcast():
    t = prog("keepdims_broadcast", "ONNX reductions' keepdims results feeding broadcasting: a layer norm by "
             "hand with reduce_mean / reduce_sum_square and subtract / divide, its gradient, and a "
             "standardisation along axis -2 with std::array's axis forms")
    X = t.let("X", rnd(511, (3, 4), -2, 2), F)

    def ln(X):
        m = X.mean(keepdims=True)
        v = ((X - m) ** 2).mean(keepdims=True)
        return (X - m) / np.sqrt(v + 1e-5)
    t.raw("let m = reduce_mean(X);", "let d = subtract(X, m);",
          "let v = divide(reduce_sum_square(d), 12.0);", "let Y = divide(d, sqrt(add(v, 1e-5)));")
    t.check("Y", ln(X), F)
    t.raw("let L = sum[i, j](Y[i, j] * X[i, j]);")
    t.check("@L / @X", R.fd(lambda X: (ln(X) * X).sum(), X), F)
    t.raw("let mu = std::array::mean_axis(X, -2);", "let Z[i, j] = X[i, j] - mu[j];")
    t.check("Z", X - X.mean(-2), F)
    t.check("std::array::argmax_axis(Z, -1)", (X - X.mean(-2)).argmax(-1).astype(np.int32), "i32")
    t.write()


def mixed_training():
    t = prog("mixed_training", "a classifier step as NumPy users write it: integer labels, a one-hot built by "
             "equal against a range, mixed int / float library calls, and the gradient of the loss in W",
             uses=["std::ml::*"])
    X = t.let("X", rnd(521, (5, 3)), F)
    W = t.let("W", rnd(522, (3, 4), -0.5, 0.5), F)
    y = np.array([0, 3, 1, 1, 2], np.int32)
    t.raw(f"let y: [i32; 5] = {y.tolist()};", "let cls: [i32; 4] = [0, 1, 2, 3];",
          "let Y1 = equal(unsqueeze(y, 1), unsqueeze(cls, 0));",
          "let Yf = where(Y1, 1.0, 0.0);",
          "let P = softmax(matmul(X, W));",
          "let L = reduce_mean(neg(reduce_sum(multiply(Yf, log(P)))));")
    oh = (y[:, None] == np.arange(4)[None]).astype(float)

    def loss(W):
        z = X @ W
        p = np.exp(z - z.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return -(oh * np.log(p)).sum()
    t.check("Yf", oh, F)
    t.check("L", np.array([[loss(W)]]), F)
    # @L/@W here is E013 (reverse mode through broadcast_pair's tuple when Yf's shape is only
    # known at run time): tests/golden/pending/std_multiply_computed_mask_grad.ein
    t.check("add(y, 0.5)", y + 0.5, F)
    t.check("less(y, 1.5)", y < 1.5, "bool")
    t.check("clip(y, 0.5, 2)", np.clip(y, 0.5, 2), F)
    t.write()


def lstm_forward():
    t = prog("lstm_forward", "ONNX LSTM (gates i, o, f, c) with initial states and a clip threshold, forward "
             "direction without the direction axis, and the loss gradient in W against central differences")
    T_, N, I, H = 3, 2, 2, 3
    X = t.let("X", rnd(531, (T_, N, I)), F)
    W = t.let("W", rnd(532, (4 * H, I), -0.6, 0.6), F)
    Rr = t.let("Rr", rnd(533, (4 * H, H), -0.6, 0.6), F)
    B = t.let("B", rnd(534, (8 * H,), -0.2, 0.2), F)
    h0 = t.let("h0", rnd(535, (N, H), -0.5, 0.5), F)
    c0 = t.let("c0", rnd(536, (N, H), -0.5, 0.5), F)

    def lstm(X, W, clip):
        h, c, out = h0, c0, []
        for x in X:
            z = x @ W.T + h @ Rr.T + B[:4 * H] + B[4 * H:]
            if clip > 0:
                z = np.clip(z, -clip, clip)
            i, o, f, g = sigmoid(z[:, :H]), sigmoid(z[:, H:2 * H]), sigmoid(z[:, 2 * H:3 * H]), np.tanh(z[:, 3 * H:])
            c = f * c + i * g
            h = o * np.tanh(c)
            out.append(h)
        return np.array(out)
    t.check("lstm(X, W, Rr, B, h0, c0, 3, \"forward\", 0.0)", lstm(X, W, 0), F)
    t.check("lstm(X, W, Rr, B, h0, c0, 3, \"forward\", 0.5)", lstm(X, W, 0.5), F)
    t.raw('let Y = lstm(X, W, Rr, B, h0, c0, 3, "forward", 0.0);', "let L = sum[t, n, j](Y[t, n, j] * Y[t, n, j]);")
    t.check("@L / @W", R.fd(lambda W: (lstm(X, W, 0) ** 2).sum(), W), F)
    t.write()


def quantized_layers():
    t = prog("quantized_layers", "qlinear (PyTorch Linear on dequantized operands) and qconv (ONNX QLinearConv "
             "without zero points, float bias) against NumPy on the dequantized values")
    xq = np.array([[12, -3, 7], [0, 5, -8]], np.int32)
    Wq = np.array([[2, -1, 4], [-6, 3, 1]], np.int32)
    t.raw(f"let xq: [i32; 2, 3] = {xq.tolist()};", f"let Wq: [i32; 2, 3] = {Wq.tolist()};")
    t.check("qlinear(xq, 0.05, Wq, 0.1, [0.25, -0.5])", (xq * 0.05) @ (Wq * 0.1).T + np.array([0.25, -0.5]), "f32")
    Xq = np.arange(1 * 2 * 4 * 4).reshape(1, 2, 4, 4) % 7 - 3
    Kq = (np.arange(2 * 2 * 2 * 2).reshape(2, 2, 2, 2) % 5 - 2)
    t.raw(f"let Xq: [i32; 1, 2, 4, 4] = {Xq.tolist()};", f"let Kq: [i32; 2, 2, 2, 2] = {Kq.tolist()};")
    ref = R.conv(Xq * 0.5, Kq * 0.25, np.array([0.1, -0.1]), [2, 2], [0, 0, 0, 0], [1, 1])
    t.check("qconv(Xq, 0.5, Kq, 0.25, [0.1, -0.1], [2, 2], [], [], 1)", ref, "f32")
    t.write()


def math_gradients():
    t = prog("math_grads", "gradients through std::math functions of transposes and slices (atan2, asinh, "
             "log10, expm1, hypot-like sqrt of squares, fmod) against central differences", uses=["std::math::*"])
    X = t.let("X", rnd(541, (2, 3), 0.2, 0.9), F)
    Y = t.let("Y", rnd(542, (3, 2), -0.9, -0.2), F)

    def f(X, Y):
        return (np.arctan2(X, Y.T) * np.arcsinh(X) + np.log10(X + 1) * np.expm1(Y.T)
                + np.sqrt(X ** 2 + Y.T ** 2) + np.fmod(X * 3, 0.7)).sum()
    t.raw("let YT = std::ml::transpose(Y);",
          "let Z = atan2(X, YT) * asinh(X) + log10(X + 1.0) * expm1(YT) + sqrt(square(X) + square(YT)) + fmod(X * 3.0, 0.7);",
          "let L = sum[i, j](Z[i, j]);")
    t.check("L", f(X, Y), F)
    t.check("@L / @X", R.fd(lambda X: f(X, Y), X), F)
    t.check("@L / @Y", R.fd(lambda Y: f(X, Y), Y), F)
    t.write()


def reduction_gradients():
    t = prog("reduction_grads", "gradients through the ONNX reductions of a transpose and a slice "
             "(reduce_log_sum_exp, reduce_l2, reduce_prod, reduce_mean, reduce_max)")
    X = t.let("X", rnd(551, (3, 4), 0.3, 1.5), F)

    def f(X):
        T = X.T
        return (np.log(np.exp(T).sum()) + np.sqrt((X[1] ** 2).sum()) + np.prod(X[:, 2]) + T.mean() * 2
                + X[0].max())
    t.raw("let T = transpose(X);",
          "let L0 = reduce_log_sum_exp(T)[0, 0] + reduce_l2(X[1])[0] + reduce_prod(T[2])[0] + "
          "reduce_mean(T)[0, 0] * 2.0 + reduce_max(X[0])[0];")
    t.check("L0", f(X), F)
    t.check("@L0 / @X", R.fd(f, X), F)
    t.write()


def linalg_gradients():
    t = prog("linalg_grads", "gradients through solve_triangular_lower (in L and b), frobenius_norm and kron "
             "against central differences")
    Lm = np.tril(rnd(561, (3, 3), 0.2, 1.0)) + 2 * np.eye(3)
    t.let("Lm", Lm, F)
    bv = t.let("bv", rnd(562, (3,)), F)
    S = t.let("S", rnd(563, (2, 2)), F)
    t.raw("let x = solve_triangular_lower(Lm, bv);", "let L1 = sum[i](x[i] * x[i]);",
          "let K = kron(S, [[1.0, -1.0], [0.5, 2.0]]);", "let L2 = frobenius_norm(K) + sum[i, j](K[i, j] * K[i, j]);")
    sol = lambda L, b: np.linalg.solve(np.tril(L), b)
    t.check("@L1 / @bv", R.fd(lambda b: (sol(Lm, b) ** 2).sum(), bv), F)
    t.check("@L1 / @Lm", np.tril(R.fd(lambda L: (sol(L, bv) ** 2).sum(), Lm)), F)
    Kb = np.array([[1.0, -1.0], [0.5, 2.0]])
    t.check("@L2 / @S", R.fd(lambda S: np.linalg.norm(np.kron(S, Kb)) + (np.kron(S, Kb) ** 2).sum(), S), F)
    t.write()


def shape_gradients():
    t = prog("shape_grads", "gradients through split parts recombined by concat, roll, flip and "
             "repeat_interleave, against central differences")
    v = t.let("v", rnd(571, (6,)), F)
    wv = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 2.0])

    def f(v):
        a, b = v[:2], v[2:]
        z = np.concatenate([np.flip(b), np.roll(a, 1)])
        r = np.repeat(z[:4], [1, 2, 0, 1])
        return (z * wv).sum() + (r ** 2).sum()
    # (`let parts = split(..); parts.1` is E013 under a derivative: pending/std_split_tuple_binding_grad)
    t.raw("let (p0, p1) = split(v, [2, 4], 0);", "let z = concat(flip(p1), roll(p0, 1));",
          "let z4[i in 0..4] = z[i];", "let r = repeat_interleave(z4, [1, 2, 0, 1]);",
          f"let wv: [f64; 6] = {wv.tolist()};",
          "let L = sum[i](z[i] * wv[i]) + sum[i](r[i] * r[i]);")
    t.check("L", f(v), F)
    t.check("@L / @v", R.fd(f, v), F)
    t.write()


def cast_chain():
    t = prog("cast_chain", "ONNX Cast by name and by TensorProto number through a chain float -> int "
             "(truncation toward zero) -> bool -> float, and a float64 -> float32 round")
    x = t.let("x", np.array([-2.7, -0.5, 0.0, 0.4, 1.9, 3.5]), F)
    xi = np.trunc(x).astype(np.int32)
    t.check("cast(x, 6)", xi, "i32")
    t.check("cast(cast(x, \"int32\"), 9)", xi != 0, "bool")
    t.check("cast(cast(cast(x, 7), \"bool\"), 11)", (xi != 0).astype(np.float64), F)
    t.check("cast(x, 1)", x.astype(np.float32), "f32")
    t.check("std::array::sum(cast(greater(x, 0.0), 6))", np.int32((x > 0).sum()), "i32")
    t.write()


def cells_session():
    t = prog("cells_session", "a notebook session: a helper calling std::ml defined in one cell, called in "
             "later cells, redefined, and called from a recurrence over time steps; mixed kinds in a later cell")
    t.raw("//# cells")
    X = t.let("X", rnd(581, (4, 3), -1, 1), F)
    t.raw("fn feat(x) { l2_normalize(relu(x), 1e-12) }", "// %%")

    def feat1(x):
        r = np.maximum(x, 0)
        return r / np.sqrt(np.maximum((r * r).sum(-1, keepdims=True), 1e-12))
    t.check("feat(X)", feat1(X), F)
    t.raw("// %%", "fn feat(x) { softmax(x) }", "// %%")
    t.check("feat(X)", R.softmax(X), F)
    t.raw("// %%", "let H[0, j in 0..3] = X[0, j];", "let H[t in 1..4, j in 0..3] = feat(add(H[t - 1], X[t]))[j];")
    H = [X[0]]
    for k in range(1, 4):
        H.append(R.softmax(H[-1] + X[k]))
    t.check("H", np.array(H), F)
    t.raw("// %%")
    t.check("where(greater(feat(X), 0.3), feat(X), 0)", np.where(R.softmax(X) > 0.3, R.softmax(X), 0.0), F)
    t.write()


def error_file(name, purpose, lines, code, at):
    """A program that must fail with `code` at line `at` of `lines` (1-based, the user's call)."""
    t = modes_file(f"outside/errors/hunt4_{name}.ein", purpose, uses=["std::ml::*"])
    first = len(t.lines) + 1
    t.raw(*lines)
    t.lines.append(f"//! {code} @{first + at - 1}")
    t.write()


def errors():
    """Shape and kind errors inside library calls made by user functions: the diagnostic points at
    the user's call (issue 13)."""
    error_file("broadcast_in_recurrence", "a bias that does not broadcast, added inside a cell function "
               "called from a recurrence: E004 at the user's add",
               ["let X: [f64; 4, 3] = [[0.5, -1.0, 2.0], [1.0, 0.25, -0.5], [0.0, 1.0, 1.0], [2.0, 0.5, -1.0]];",
                "let bias: [f64; 2] = [0.1, 0.2];",
                "fn step(h, x) {",
                "  tanh(add(add(h, x), bias))",
                "}",
                "let H[0, j in 0..3] = 0.0;",
                "let H[t in 1..4, j in 0..3] = step(H[t - 1], X[t])[j];",
                "print(H);"], "E004", 4)
    error_file("matmul_transposes", "matmul of two transposes whose inner extents differ, inside a user "
               "function: E004 at the user's matmul",
               ["let A: [f64; 2, 3] = [[0.5, -1.0, 2.0], [1.0, 0.25, -0.5]];",
                "let B: [f64; 2, 4] = [[1.0, 0.0, 1.0, 2.0], [0.5, 0.5, 0.5, 0.5]];",
                "fn score(a, b) { softmax(matmul(a, b)) }",
                "print(score(transpose(A), transpose(B)));"], "E004", 3)
    error_file("conv_channels", "a 1-D conv whose weights have fewer input channels than the signal, "
               "inside a user layer: E004 at the user's conv",
               ["let X: [f32; 1, 3, 5] = [[[1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 1.0, 0.0, 1.0, 0.0], "
                "[2.0, 2.0, 2.0, 2.0, 2.0]]];",
                "let W: [f32; 2, 2, 3] = [[[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]], [[0.0, 1.0, 0.0], [1.0, 1.0, 1.0]]];",
                "fn layer(x) { relu(conv(x, W, [], [1], [1, 1], [1], 1)) }",
                "let Y = layer(X);",
                "print(Y);"], "E004", 3)
    error_file("float_widths", "max of an f32 and an f64 array (floats of two widths stay E002 in the "
               "library), inside a user function: E002 at the user's max",
               ["let x: [f32; 3] = [0.5, -1.0, 2.0];",
                "let y: [f64; 3] = [1.0, 0.25, -0.5];",
                "fn maximum_of(a, b) { max(a, b) }",
                "print(maximum_of(x, y));"], "E002", 3)


def library_in_clauses():
    t = prog("library_in_clauses", "library functions called per element inside the user's Einstein "
             "clauses with literal operands (where, power, atan2, max, greater, mod, min of an index), "
             "as NumPy's elementwise calls are transcribed")
    t.raw("let n = 200;", "let x[i in 0..n] = (i % 50) as f64 * 0.04 - 1.0;", "let m[i in 0..n] = i % 3 == 0;",
          "let y[i] = where(m[i], x[i], 0) + power(x[i], 2) + std::math::atan2(x[i], 1) + max(x[i], 0.5);",
          "let c[i] = if greater(x[i], 0) { 1 } else { 0 };",
          "let d[i] = if less_or_equal(x[i], -0.5) || equal(x[i], 0) { 1.0 } else { 0.0 };",
          "let z[i in 0..n] = std::math::mod(i, 7) + std::math::min(i, 3);")
    i = np.arange(200)
    x = (i % 50) * 0.04 - 1.0
    m = i % 3 == 0
    t.check("sum[i](y[i])", (np.where(m, x, 0) + x ** 2 + np.arctan2(x, 1) + np.maximum(x, 0.5)).sum(), F)
    t.check("sum[i](c[i])", np.int32((x > 0).sum()), "i32")
    t.check("sum[i](d[i])", ((x <= -0.5) | (x == 0)).sum().astype(float), F)
    t.check("sum[i](z[i])", np.int32((i % 7 + np.minimum(i, 3)).sum()), "i32")
    t.write()


VIEW_GRADS = {  # library call on X (and Wt) -> NumPy
    "softmax(transpose(X))": lambda X, Wt: R.softmax(X.T),
    "std::array::sort(transpose(X))": lambda X, Wt: np.sort(X.T, -1),
    "std::array::topk_extract(X, 2)": lambda X, Wt: -np.sort(-X, -1)[:, :2],
    "cumsum(transpose(X))": lambda X, Wt: np.cumsum(X.T, -1),
    "log_softmax_axis(X, -2)": lambda X, Wt: np.log(R.softmax(X, -2)),
    "layer_normalization(X, [1.0, 2.0, 0.5, 1.0], [0.0, 0.1, 0.0, 0.0], 1e-5, -1)":
        lambda X, Wt: R.layer_norm(X, np.array([1.0, 2.0, 0.5, 1.0]), np.array([0.0, 0.1, 0.0, 0.0]), 1e-5),
    "pad(X, [1, 0, 0, 2], 0.0)": lambda X, Wt: np.pad(X, ((1, 0), (0, 2))),
    "tile(transpose(X), [1, 2])": lambda X, Wt: np.tile(X.T, (1, 2)),
    "gather(X, [2, 0], -1)": lambda X, Wt: np.take(X, [2, 0], -1),
    "flip(X)": lambda X, Wt: np.flip(X),
    "roll(X, -5)": lambda X, Wt: np.roll(X, -5),
    "slice(X, [2, 3], [0, 0], [0, 1], [-1, -2])": lambda X, Wt: X[2:0:-1, 3:0:-2],
    "expand(X[1], [3, 4])": lambda X, Wt: np.broadcast_to(X[1], (3, 4)),
    "squeeze(unsqueeze(X, [0]), [0])": lambda X, Wt: X,
    "max(X, transpose(Wt))": lambda X, Wt: np.maximum(X, Wt.T),
}


def view_gradients():
    t = prog("view_grads", "@L/@X through library calls whose argument is a transpose, a row or the result of "
             "another call, with negative axes and steps (softmax, sort, top-k, cumsum, log_softmax on axis -2, "
             "layer_normalization, pad, tile, gather, flip, roll, slice, expand, squeeze, max), each against "
             "central differences of NumPy's weighted sum")
    X = t.let("X", rnd(591, (3, 4), -2, 2), F)
    Wt = t.let("Wt", rnd(592, (4, 3)), F)
    for n, (e, f) in enumerate(VIEW_GRADS.items()):
        y = f(X, Wt)
        w = t.let(f"w{n}", rnd(600 + n, y.shape, 0.5, 1.5), F)
        idx = ", ".join(f"i{k}" for k in range(y.ndim))
        t.raw(f"let Y{n} = {e};", f"let L{n} = sum[{idx}](Y{n}[{idx}] * w{n}[{idx}]);")
        t.check(f"@L{n} / @X", R.fd(lambda X: (f(X, Wt) * w).sum(), X), F)
    t.write()


def generate():
    activations_on_views()
    activation_gradients()
    reductions_views()
    recurrence_cells()
    linalg_views()
    shapes_edges()
    dtype_chain()
    loss_gradients()
    numerics_dp()
    attention_heads()
    selection_family()
    scatter_roi()
    math_chain()
    layers_edges()
    keepdims_broadcast()
    mixed_training()
    lstm_forward()
    quantized_layers()
    math_gradients()
    reduction_gradients()
    linalg_gradients()
    shape_gradients()
    cast_chain()
    cells_session()
    library_in_clauses()
    view_gradients()
    errors()


if __name__ == "__main__":
    generate()
