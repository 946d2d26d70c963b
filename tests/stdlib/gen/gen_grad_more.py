"""Gradient checks of the remaining differentiable surface functions (gen_grad): layers, lu,
max_roi_pool, the shape operators with run-time result types, einsum, the quantized operators
in their scales, dropout, indexing by index tuples, std::array's selections and the
std::numerics helpers. Same tuple form as gen_grad_cases; references restate each function
in NumPy (the value tests' where they exist)."""
import numpy as np

from gen_grad import rnd
from gen_ml import conv_ref
from gen_ml_nn import roi_pool_ref
from gen_ml_tensor import lu_ref
from gen_numerics import euler, midpoint, rk4


def dropout_mask(n, ratio):
    """utility_ops.unit_hash as SPEC's integer arithmetic computes it: i32 products wrap, `/`
    truncates toward zero, `%` has the sign of the dividend."""
    def wrap(v):
        return (v + 2 ** 31) % 2 ** 32 - 2 ** 31

    def tdiv(a, b):
        q = abs(a) // abs(b)
        return q if (a >= 0) == (b > 0) else -q

    def trem(a, b):
        return a - b * tdiv(a, b)
    keep = []
    for e in range(n):
        h1 = wrap(wrap((e + 1) * 1103515245) + 12345)
        h2 = trem(trem(tdiv(h1, 65536), 32768) + 32768, 32768)
        keep.append(h2 / 32768.0 >= ratio)
    return np.array(keep)


def layers_and_linalg():
    x, W, b = rnd(300, (2, 3)), rnd(301, (4, 3)), rnd(302, (4,))
    A, Bm, C = rnd(303, (3, 2)), rnd(304, (2, 4)), rnd(305, (3, 4))
    G = rnd(306, (3, 3), -3, 3)
    X = rnd(307, (1, 2, 5, 6))
    rois = [[0, 0, 0, 3, 4], [0, 1, 1, 5, 3]]
    ab = ["let al: f64 = 0.5;", "let be: f64 = 2.0;"]
    return [
        ("linear", "linear(x, W, b)", {"x": x, "W": W, "b": b}, ["x", "W", "b"], lambda x, W, b: x @ W.T + b),
        ("gemm", "gemm(A, B, C, al, be, 0, 0)", {"A": A, "B": Bm, "C": C}, ["A", "B", "C"],
         lambda A, B, C: 0.5 * A @ B + 2.0 * C, ["std::ml::*"], ab),
        ("gemm_trans", "gemm(A, B, C, al, be, 1, 1)", {"A": A.T.copy(), "B": Bm.T.copy(), "C": C},
         ["A", "B", "C"], lambda A, B, C: 0.5 * A.T @ B.T + 2.0 * C, ["std::ml::*"], ab),
        ("gemm_c_row1", "gemm(A, B, c1, al, be, 0, 0)", {"A": A, "B": Bm, "c1": rnd(308, (1,))}, ["A", "c1"],
         lambda A, B, c1: 0.5 * A @ B + 2.0 * c1, ["std::ml::*"], ab),
        ("gemm_c_column", "gemm(A, B, cm, al, be, 0, 0)", {"A": A, "B": Bm, "cm": rnd(309, (3, 1))}, ["B", "cm"],
         lambda A, B, cm: 0.5 * A @ B + 2.0 * cm, ["std::ml::*"], ab),
        ("matmul_batch_broadcast", "matmul(P3, Q3)", {"P3": rnd(315, (2, 3, 2)), "Q3": rnd(316, (1, 2, 4))},
         ["P3", "Q3"], lambda P3, Q3: np.matmul(P3, Q3)),
        ("matmul_batch_lift", "matmul(P4, Q3)", {"P4": rnd(317, (3, 2, 2, 3)), "Q3": rnd(318, (2, 3, 2))},
         ["P4", "Q3"], lambda P4, Q3: np.matmul(P4, Q3)),
        ("lu_l", "lu(G).1", {"G": G}, ["G"], lambda G: lu_ref(G)[1]),
        ("lu_u", "lu(G).2", {"G": G}, ["G"], lambda G: lu_ref(G)[2]),
        ("max_roi_pool", "max_roi_pool(X, rr, [2, 2], sc)", {"X": X}, ["X"],
         lambda X: roi_pool_ref(X, np.array(rois, dtype=float), (2, 2), 1.0), ["std::ml::*"],
         [f"let rr: [f64; 2, 5] = {[[float(v) for v in r] for r in rois]};", "let sc: f64 = 1.0;"]),
    ]


def shapes_and_indexing():
    x = rnd(310, (2, 4))
    x1 = rnd(311, (1, 2, 3))
    e = rnd(312, (1, 1, 4, 4))
    A, Bm = rnd(313, (2, 3)), rnd(314, (3, 2))
    d = rnd(315, (3, 3))
    nd = [[1, 0], [2, 2], [0, 1]]
    return [
        ("reshape", "reshape(x, [4, 2])", {"x": x}, ["x"], lambda x: x.reshape(4, 2)),
        ("reshape_infer", "reshape(x1, [0, -1])", {"x1": x1}, ["x1"], lambda x1: x1.reshape(1, -1)),
        ("reshape_3d_to_4d", "reshape(x1, [3, 1, 2, 1])", {"x1": x1}, ["x1"], lambda x1: x1.reshape(3, 1, 2, 1)),
        ("reshape_1d_to_3d", "reshape(v8, [2, -1, 2])", {"v8": rnd(319, (8,))}, ["v8"], lambda v8: v8.reshape(2, -1, 2)),
        ("reshape_of_expression", "reshape(x * x + p8, [2, 2, 2])", {"x": x, "p8": rnd(320, (2, 4))}, ["x", "p8"],
         lambda x, p8: (x * x + p8).reshape(2, 2, 2)),
        ("reshape_then_softmax", "std::ml::softmax(reshape(x, [4, 2]))", {"x": x}, ["x"],
         lambda x: np.exp(x.reshape(4, 2)) / np.exp(x.reshape(4, 2)).sum(-1, keepdims=True)),
        ("reshape_twice", "reshape(reshape(x, [8]), [2, 2, 2])", {"x": x}, ["x"], lambda x: x.reshape(2, 2, 2)),
        ("squeeze", "squeeze(x1, 0)", {"x1": x1}, ["x1"], lambda x1: x1[0]),
        ("squeeze_axes", "squeeze(x1, [0])", {"x1": x1}, ["x1"], lambda x1: x1[0]),
        ("unsqueeze", "unsqueeze(x, 1)", {"x": x}, ["x"], lambda x: x[:, None, :]),
        ("expand", "expand(x, 3)", {"x": x}, ["x"], lambda x: np.broadcast_to(x, (3, 2, 4))),
        ("expand_shape", "expand(x1, [2, 1, 3])", {"x1": x1}, ["x1"], lambda x1: np.broadcast_to(x1, (2, 2, 3))),
        ("squeeze_axes_two", "squeeze(e, [0, 1])", {"e": e}, ["e"], lambda e: e[0, 0]),
        ("squeeze_axes_negative", "squeeze(x1, [-3])", {"x1": x1}, ["x1"], lambda x1: x1[0]),
        ("unsqueeze_axes", "unsqueeze(x, [0, 2])", {"x": x}, ["x"], lambda x: x[None, :, None, :]),
        ("expand_shape_grow", "expand(x, [3, 1, 4])", {"x": x}, ["x"], lambda x: np.broadcast_to(x, (3, 2, 4))),
        ("expand_shape_then_tanh", "std::ml::tanh(expand(x1, [2, 1, 1]) * 2.0)", {"x1": x1}, ["x1"],
         lambda x1: np.tanh(np.broadcast_to(x1, (2, 2, 3)) * 2.0)),
        ("split_count", "split(x, 2, 1).1", {"x": x}, ["x"], lambda x: x[:, 2:]),
        ("split", "split(x, [2, 2], 1).1", {"x": x}, ["x"], lambda x: x[:, 2:]),
        ("split_negative_axis", "split(x, [1, 3], -1).1", {"x": x}, ["x"], lambda x: x[:, 1:]),
        ("split_rows", "split(x, [1, 1], 0).0 * 3.0", {"x": x}, ["x"], lambda x: x[:1] * 3.0),
        ("split_destructured", "sa_ * sb_ + sa_", {"x": x}, ["x"], lambda x: x[:, :2] * x[:, 2:] + x[:, :2],
         ["std::ml::*"], ["let (sa_, sb_) = split(x, [2, 2], 1);"]),
    ] + einsums(A, Bm) + [
        ("einsum_ellipsis", 'einsum("...ij,jk->...ik", (A, B))', {"A": A, "B": Bm}, ["A", "B"],
         lambda A, B: np.einsum("...ij,jk->...ik", A, B)),
        ("space_to_depth", "space_to_depth(e, 2)", {"e": e}, ["e"],
         lambda e: e.reshape(1, 1, 2, 2, 2, 2).transpose(0, 3, 5, 1, 2, 4).reshape(1, 4, 2, 2)),
        ("identity", "identity(x)", {"x": x}, ["x"], lambda x: x),
        ("constant", "constant(x)", {"x": x}, ["x"], lambda x: x),
        ("cast", 'cast(x, "float64")', {"x": x}, ["x"], lambda x: x),
        ("cast_chain", 'std::ml::tanh(cast(x * x, "DOUBLE")) * 2.0', {"x": x}, ["x"], lambda x: np.tanh(x * x) * 2.0),
        # an ONNX type number written at the call (11: double) types the result like a name
        ("cast_number", 'std::ml::tanh(cast(x * x, 11)) * 2.0', {"x": x}, ["x"], lambda x: np.tanh(x * x) * 2.0),
        ("split_count_parts", "split(x, 2, 1).0 * split(x, 2, 1).1", {"x": x}, ["x"],
         lambda x: x[:, :2] * x[:, 2:]),
        ("dropout", "dropout(x, 0.5, true)", {"x": x}, ["x"],
         lambda x: np.where(dropout_mask(8, 0.5).reshape(2, 4), x / 0.5, 0.0)),
        ("dropout_eval", "dropout(x, 0.5, false)", {"x": x}, ["x"], lambda x: x),
        ("gather_nd", f"gather_nd(d, {nd})", {"d": d}, ["d"], lambda d: np.array([d[i, j] for i, j in nd])),
        # the result's rank is the index rank - 1 + the data rank - k: k read from an
        # annotation's extents or a bound literal types it (was E013)
        ("gather_nd_rows", "gather_nd(d, ix_)", {"d": d}, ["d"], lambda d: d[[2, 0]] * 1.0,
         ["std::ml::*"], ["let ix_: [i32; 2, 1] = [[2], [0]];"]),
        ("gather_nd_bound", "gather_nd(d, ix_) * 2.0", {"d": d}, ["d"], lambda d: 2.0 * d[[1, 2], [0, 1]],
         ["std::ml::*"], ["let ix_ = [[1, 0], [2, 1]];"]),
        # a reshape to a shape computed when it runs: an array literal of two extents types the
        # result as rank 2, so softmax's rest pattern and the gradient take it (was E013)
        ("reshape_runtime", "softmax(reshape(x, [len(x[0]), len(x)]))", {"x": x}, ["x"],
         lambda x: np.exp(x.reshape(4, 2)) / np.exp(x.reshape(4, 2)).sum(-1, keepdims=True)),
        ("scatter", "scatter(d, [[1, 0, 2]], u, 0)", {"d": d, "u": rnd(316, (1, 3))}, ["d", "u"],
         lambda d, u: np.array([[d[0, 0], u[0, 1], d[0, 2]], [u[0, 0], d[1, 1], d[1, 2]],
                                [d[2, 0], d[2, 1], u[0, 2]]])),
        ("scatter_nd", "scatter_nd(d, [[2], [0]], u)", {"d": d, "u": rnd(317, (2, 3))}, ["d", "u"],
         lambda d, u: np.array([u[1], d[1], u[0]])),
    ]


def einsums(A, B):
    """einsum with a literal equation: each form against np.einsum's finite differences."""
    C, v = rnd(330, (3, 3)), rnd(331, (3,))
    P, Q = rnd(332, (2, 2, 3)), rnd(333, (2, 3, 2))
    K = rnd(334, (2, 4, 3))
    forms = [
        ("einsum", "ij,jk->ik", "(A, B)", {"A": A, "B": B}),
        ("einsum_batched", "bij,bjk->bik", "(P, Q)", {"P": P, "Q": Q}),
        ("einsum_transpose", "ij->ji", "A", {"A": A}),
        ("einsum_diagonal", "ii->i", "C", {"C": C}),
        ("einsum_trace", "ii", "C", {"C": C}),
        ("einsum_outer", "i,j->ij", "(v, v)", {"v": v}),
        ("einsum_full", "ij,ij->", "(A, A)", {"A": A}),
        ("einsum_chain", "ij,jk,kl->il", "(A, C, B)", {"A": A, "C": C, "B": B}),
        ("einsum_implicit", "ij,jk", "(A, B)", {"A": A, "B": B}),
        ("einsum_attention", "bqd,bkd->bqk", "(P, K)", {"P": P, "K": K}),
    ]
    out = []
    for name, eq, ops, inputs in forms:
        names = list(inputs)
        ref = (lambda eq, names: lambda **kw: np.einsum(eq, *[kw[n] for n in
                                                               (names if len(names) > 1 or "," not in eq
                                                                else names * (eq.count(",") + 1))]))(eq, names)
        out.append((name, f'einsum("{eq}", {ops})', inputs, names, ref))
    # Inside an expression: a layer's scores through softmax.
    out.append(("einsum_softmax", 'std::ml::softmax(einsum("bqd,bkd->bqk", (P, K)) * 0.5)', {"P": P, "K": K}, ["P", "K"],
                lambda P, K: (lambda s: np.exp(s - s.max(-1, keepdims=True)) /
                              np.exp(s - s.max(-1, keepdims=True)).sum(-1, keepdims=True))(
                    np.einsum("bqd,bkd->bqk", P, K) * 0.5)))
    return out


def quantized():
    qa = np.array([[3, -2, 5], [1, 0, -4]])
    qb = np.array([[2, 1], [-3, 4], [0, 5]])
    qx = np.array([[1, -2], [3, 0]])
    qw = np.array([[2, -1, 0, 3], [1, 1, -2, 0]]).reshape(2, 1, 2, 2)
    qv = np.array([[2, 1, 0], [-3, 4, 1]])
    ints = [f"let qa: [i32; 2, 3] = {qa.tolist()};", f"let qb: [i32; 3, 2] = {qb.tolist()};",
            f"let qx: [i32; 1, 1, 2, 2] = {qx.reshape(1, 1, 2, 2).tolist()};",
            f"let qw: [i32; 2, 1, 2, 2] = {qw.tolist()};", f"let qv: [i32; 2, 3] = {qv.tolist()};",
            "let qz: i32 = 1;"]
    s = {"sa": np.float64(0.25), "sb": np.float64(0.75)}
    return [
        ("dequantize_linear", "dequantize_linear(qa, sa, qz)", {"sa": s["sa"]}, ["sa"],
         lambda sa: (qa - 1) * sa, ["std::ml::*"], ints),
        ("qmatmul", "qmatmul(qa, sa, qb, sb)", dict(s), ["sa", "sb"],
         lambda sa, sb: (qa * sa) @ (qb * sb), ["std::ml::*"], ints),
        ("qlinear", "qlinear(qa, sa, qv, sb, bi)", {**s, "bi": rnd(318, (2,))}, ["sa", "sb", "bi"],
         lambda sa, sb, bi: (qa * sa) @ (qv * sb).T + bi, ["std::ml::*"], ints),
        ("qconv", "qconv(qx, sa, qw, sb, bc, [1, 1], [0, 0, 0, 0], [1, 1], 1)", {**s, "bc": rnd(319, (2,))},
         ["sa", "sb", "bc"], lambda sa, sb, bc: conv_ref(qx.reshape(1, 1, 2, 2) * sa, qw * sb, bc, [1, 1],
                                                       [0, 0, 0, 0], [1, 1], 1), ["std::ml::*"], ints),
    ]


def arrays_and_numerics():
    v = rnd(320, (6,))
    x = rnd(321, (2, 2))
    A = np.array([[2.5, 0.5], [0.5, 1.5]]) + rnd(322, (2, 2), -0.2, 0.2)
    A = np.round((A + A.T) / 2, 3)
    b, x0 = rnd(323, (2,)), rnd(324, (2,))
    P = np.array([[0.5, 0.2, 0.1], [0.3, 0.7, 0.4], [0.2, 0.1, 0.5]])
    V, r = rnd(325, (3,), 0, 3), rnd(326, (3,))
    px, py = rnd(327, (5,), -3, 3), rnd(328, (5,), -3, 3)
    u0, k = np.float64(1.5), np.float64(0.7)

    def descent(A, b, x, n=4, alpha=0.1):
        path = [x]
        for _ in range(n):
            path.append(path[-1] - alpha * (A @ path[-1] - b))
        return np.array(path)
    ode = "std::numerics::ode::"
    opt = "std::numerics::optim::"
    dp = "std::numerics::dp::"
    Pl = [f"let P: [f64; 3, 3] = {P.tolist()};"]
    return [
        ("topk_1d_helper", "topk_1d_helper(v, 3).0", {"v": v}, ["v"], lambda v: -np.sort(-v)[:3]),
        ("topk_with_indices_extract", "std::array::topk_with_indices_extract(v, ix, 2).0", {"v": v}, ["v"],
         lambda v: -np.sort(-v)[:2], ["std::ml::*"], ["let ix = [5, 4, 3, 2, 1, 0];"]),
        ("partition", "std::array::partition(v, pv).2", {"v": v}, ["v"], lambda v: v[v > 0.1], ["std::ml::*"],
         ["let pv: f64 = 0.1;"]),
        ("partition_2d", "std::array::partition_2d(x, pv, 1).0", {"x": x}, ["x"], lambda x: x[:, x[0] < 0.1],
         ["std::ml::*"], ["let pv: f64 = 0.1;"]),
        ("euler_decay", ode + "euler_decay(u0, k, 0.1, 4)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: euler(u0, k, 0.1, 4), []),
        ("midpoint_decay", ode + "midpoint_decay(u0, k, 0.1, 4)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: midpoint(u0, k, 0.1, 4), []),
        ("euler_decay_step", ode + "euler_decay_step(u0, k, 0.1)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: euler(u0, k, 0.1, 1)[1], []),
        ("midpoint_decay_step", ode + "midpoint_decay_step(u0, k, 0.1)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: midpoint(u0, k, 0.1, 1)[1], []),
        ("rk4_decay_step", ode + "rk4_decay_step(u0, k, 0.1)", {"u0": u0, "k": k}, ["u0", "k"],
         lambda u0, k: rk4(lambda y: -k * y, u0, 0.1, 1)[1], []),
        ("euler_linear_step", ode + "euler_linear_step(b, A, 0.1, 2)", {"b": b, "A": A}, ["b", "A"],
         lambda b, A: b + 0.1 * A @ b, []),
        ("quadratic_gradient_2d", opt + "quadratic_gradient_2d(x0, A, b)", {"x0": x0, "A": A, "b": b},
         ["x0", "A", "b"], lambda x0, A, b: A @ x0 - b, []),
        ("gradient_descent_step_2d", opt + "gradient_descent_step_2d(x0, A, b, 0.1)", {"x0": x0, "A": A, "b": b},
         ["x0", "A", "b"], lambda x0, A, b: x0 - 0.1 * (A @ x0 - b), []),
        ("gradient_descent_2d", opt + "gradient_descent_2d(A, b, 0.1, 4)", {"A": A, "b": b}, ["A", "b"],
         lambda A, b: descent(A, b, np.zeros(2)), []),
        ("gradient_descent_2d_from", opt + "gradient_descent_2d_from(x0, A, b, 0.1, 4)", {"x0": x0, "A": A, "b": b},
         ["x0", "A", "b"], lambda x0, A, b: descent(A, b, x0), []),
        ("quadratic_residual_norm_2d", opt + "quadratic_residual_norm_2d(x0, A, b)", {"x0": x0, "A": A, "b": b},
         ["x0", "A", "b"], lambda x0, A, b: np.linalg.norm(A @ x0 - b), []),
        ("least_squares_slope_intercept", opt + "least_squares_slope_intercept(px, py, 4)", {"px": px, "py": py},
         ["px", "py"], lambda px, py: np.polyfit(px[:4], py[:4], 1), []),
        ("expected_value_at_state", dp + "expected_value_at_state(V, P, 1, 3)", {"V": V}, ["V"],
         lambda V: P[:, 1] @ V, [], Pl),
        ("bellman_step", dp + "bellman_step(V, r, P, 0.9, 3)", {"V": V, "r": r}, ["V", "r"],
         lambda V, r: r + 0.9 * P.T @ V, [], Pl),
        ("bellman_residual", dp + "bellman_residual(V, r, P, 0.9, 3)", {"V": V, "r": r}, ["V", "r"],
         lambda V, r: np.abs(r + 0.9 * P.T @ V - V).max(), [], Pl),
    ]


def cases():
    return layers_and_linalg() + shapes_and_indexing() + quantized() + arrays_and_numerics()


def multi_rank():
    """One function called at several ranks in one program, each call differentiated (the
    specialisations share the body's index names but not their ranges: a derivative took the
    ranges of the other rank's, E004 or a silently wrong gradient). Files ranks_<name>.ein."""
    from gen_grad import fd, rnd as rnd_
    from common import TestFile, lit, type_ann
    from gen_ml import log_softmax, softmax
    import os
    import zlib

    def ce(x, t):
        return -(t * np.log(x)).sum() / (x.shape[0] if x.ndim > 1 else 1)

    def sce(x, t):
        return -(t * log_softmax(x)).sum() / (x.shape[0] if x.ndim > 1 else 1)
    fns = [
        ("softmax", "softmax({})", lambda x: softmax(x), (1, 2, 3), None),
        ("log_softmax", "log_softmax({})", lambda x: log_softmax(x), (1, 2, 3), None),
        ("softmax_cross_entropy_loss", "softmax_cross_entropy_loss({}, t{})", sce, (2, 1), "onehot"),
        ("cross_entropy_loss", "cross_entropy_loss({}, t{})", ce, (1, 2), "onehot"),
        ("mse_loss", "mse_loss({}, t{})", lambda x, t: np.mean((x - t) ** 2), (2, 1, 3), "dense"),
        ("l2_normalize", "l2_normalize({}, tiny)", lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True), (1, 3, 2), None),
        ("cumsum", "cumsum({})", lambda x: np.cumsum(x, -1), (3, 1, 2), None),
        ("flip", "flip({})", lambda x: np.flip(x), (2, 1, 3), None),
        ("reduce_sum", "reduce_sum({})", lambda x: x.sum(keepdims=True), (1, 2, 3), None),
        ("cosine_similarity", "cosine_similarity({}, t{})",
         lambda x, t: (x * t).sum(-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(t, axis=-1)), (2, 1, 3), "dense"),
    ]
    shapes = {1: (3,), 2: (2, 3), 3: (2, 2, 3)}
    for name, call, ref, ranks, second in fns:
        t = TestFile(os.path.join("..", "autodiff", "grad", f"ranks_{name}.ein"),
                     f"{name} called at ranks {ranks} in one program, each call differentiated, "
                     "against central differences of NumPy's", uses=["std::ml::*"])
        t.raw("let tiny: f64 = 1e-12;")
        for r in ranks:
            seed = zlib.crc32(f"{name}{r}".encode()) % 10000
            x = rnd_(seed, shapes[r])
            if name == "cross_entropy_loss":  # probabilities
                x = np.abs(x) + 0.1
            t.raw(f"let x{r}: {type_ann(x, 'f64')} = {lit(x, 'f64')};")
            ins = {"x": x}
            if second == "onehot":
                tt = np.eye(3)[np.arange(int(np.prod(shapes[r][:-1])) if r > 1 else 1) % 3].reshape(shapes[r])
                ins = {"x": x, "t": tt}
            elif second == "dense":
                tt = rnd_(seed + 1, shapes[r])
                ins = {"x": x, "t": tt}
            if second:
                t.raw(f"let t{r}: {type_ann(ins['t'], 'f64')} = {lit(ins['t'], 'f64')};")
            out = np.asarray(ref(**ins))
            w = rnd_(seed + 2, out.shape, 0.5, 1.5) if out.shape else np.float64(1.25)
            t.raw(f"let w{r}: {type_ann(w, 'f64')} = {lit(w, 'f64')};")
            t.raw(f"let o{r} = {call.format(f'x{r}', r)};")
            idx = ", ".join(f"i{k}" for k in range(out.ndim))
            loss = f"sum[{idx}](o{r}[{idx}] * w{r}[{idx}])" if out.ndim else f"o{r} * w{r}"
            t.raw(f"let l{r} = {loss};")
            t.check(f"@l{r} / @x{r}", fd(ref, ins, "x", w), "f64")
        t.write()


def in_function():
    """Gradients requested inside a generic function, where the input's extents are known only
    when it runs (a user's training step `fn step(x, ..) { let y = layer_normalization(x * 2.0,
    ..); .. @loss / @x }`): the library body must differentiate without compile-time extents
    (comprehensions over rows could not; grouped conv's branch on the group could not).
    Files in_fn_<name>.ein, each call's input computed from the parameter first."""
    from gen_grad import fd, rnd as rnd_
    from common import TestFile, lit, type_ann
    from gen_ml import conv_ref, conv_transpose_ref
    from gen_ml_nn import pool_ref
    import os
    import zlib

    def lay(X, sc, B):
        H = 2.0 * X
        axes = tuple(range(H.ndim - sc.ndim, H.ndim))
        mu, var = H.mean(axes, keepdims=True), H.var(axes, keepdims=True)
        return (H - mu) / np.sqrt(var + 1e-5) * sc + B
    X3 = rnd_(200, (2, 3, 4))
    X4 = rnd_(201, (1, 4, 4, 3))
    fns = [
        ("layer_normalization", "layer_normalization(X * 2.0, sc, B, eps, -1)",
         {"X": X3, "sc": rnd_(202, (4,), 0.5, 1.5), "B": rnd_(203, (4,))}, lay),
        ("layer_normalization_2axes", "layer_normalization(X * 2.0, sc, B, eps, 1)",
         {"X": X3, "sc": rnd_(204, (3, 4), 0.5, 1.5), "B": rnd_(205, (3, 4))}, lay),
        ("transpose", "transpose(X * 2.0)", {"X": X3}, lambda X: np.transpose(2.0 * X)),
        ("array_transpose", "std::array::transpose(X * 2.0)", {"X": rnd_(206, (2, 3))},
         lambda X: np.transpose(2.0 * X)),
        ("conv_group2", "conv(X * 2.0, W, B, [1, 2], [1, 0, 0, 1], [2, 1], 2)",
         {"X": X4, "W": rnd_(207, (2, 2, 2, 2)), "B": rnd_(208, (2,))},
         lambda X, W, B: conv_ref(2.0 * X, W, B, [1, 2], [1, 0, 0, 1], [2, 1], 2)),
        ("conv_transpose", "conv_transpose(X * 2.0, W, B, [2, 2], [1, 0, 0, 1], [1, 0])",
         {"X": X4, "W": rnd_(209, (4, 2, 3, 2)), "B": rnd_(210, (2,))},
         lambda X, W, B: conv_transpose_ref(2.0 * X, W, B, [2, 2], [1, 0, 0, 1], [1, 0])),
        ("average_pool", "average_pool(X * 2.0, [2, 2], [1, 2], [1, 1, 0, 1])", {"X": X4},
         lambda X: pool_ref(2.0 * X, [2, 2], [1, 2], [1, 1, 0, 1], "avg")),
        ("max_pool", "max_pool(X * 2.0, [2, 2], [2, 1], [0, 1, 1, 0])", {"X": X4},
         lambda X: pool_ref(2.0 * X, [2, 2], [2, 1], [0, 1, 1, 0], "max")),
    ]
    fns += axis_helpers_in_function(X3)
    for name, call, ins, ref in fns:
        t = TestFile(os.path.join("..", "autodiff", "grad", f"in_fn_{name}.ein"),
                     f"gradient of {call} requested inside a generic function (extents known only "
                     "at run time), against central differences of NumPy's", uses=["std::ml::*"])
        t.raw("let eps: f64 = 1e-05;")
        for k, v in ins.items():
            t.raw(f"let {k}: {type_ann(v, 'f64')} = {lit(v, 'f64')};")
        out = np.asarray(ref(**ins))
        w = rnd_(zlib.crc32(name.encode()) % 10000, out.shape, 0.5, 1.5)
        t.raw(f"let w_: {type_ann(w, 'f64')} = {lit(w, 'f64')};")
        params = ", ".join(ins)
        idx = ", ".join(f"i{k}" for k in range(out.ndim))
        for x in ins:
            t.raw(f"fn grad_{x}({params}, w_) {{ let out_ = {call}; "
                  f"let loss_ = sum[{idx}](out_[{idx}] * w_[{idx}]); @loss_ / @{x} }}")
        for x in ins:
            t.check(f"grad_{x}({params}, w_)", fd(ref, ins, x, w), "f64")
        t.write()


def axis_helpers_in_function(X3):
    """The operations along one axis (reductions, softmax, norms, gather, topk, pad, resize,
    squeeze/unsqueeze, concatenation, flip) inside a generic function: they recursed over rows,
    which reverse mode cannot follow there (E013); now each works on a [before, n, after]
    reshape of its input."""
    from gen_grad import rnd as rnd_
    from gen_ml_onnx import resize_ref

    def sm(x, ax):
        e = np.exp(x - x.max(ax, keepdims=True))
        return e / e.sum(ax, keepdims=True)
    Y = rnd_(211, (2, 3, 2))
    return [
        ("sum_axis", "std::array::sum_axis(X * 2.0, 1)", {"X": X3}, lambda X: (2.0 * X).sum(1)),
        ("mean_axis", "std::array::mean_axis(X * 2.0, -1)", {"X": X3}, lambda X: (2.0 * X).mean(-1)),
        ("max_axis", "std::array::max_axis(X * 2.0, 0)", {"X": X3}, lambda X: (2.0 * X).max(0)),
        ("min_axis", "std::array::min_axis(X * 2.0, 1)", {"X": X3}, lambda X: (2.0 * X).min(1)),
        ("softmax_axis", "softmax_axis(X * 2.0, 1)", {"X": X3}, lambda X: sm(2.0 * X, 1)),
        ("log_softmax_axis", "log_softmax_axis(X * 2.0, 0)", {"X": X3}, lambda X: np.log(sm(2.0 * X, 0))),
        ("lp_normalization", "lp_normalization(X * 2.0, 1, 2)", {"X": X3},
         lambda X: 2.0 * X / np.sqrt(((2.0 * X) ** 2).sum(1, keepdims=True))),
        ("mean_variance_normalization", "mean_variance_normalization(X * 2.0, [0, 2])", {"X": X3},
         lambda X: (2.0 * X - (2.0 * X).mean((0, 2), keepdims=True)) / (np.sqrt((2.0 * X).var((0, 2), keepdims=True)) + 1e-9)),
        ("gather", "gather(X * 2.0, [[2, 0], [1, 1]], 1)", {"X": X3}, lambda X: np.take(2.0 * X, [[2, 0], [1, 1]], 1)),
        ("gather_scalar", "gather(X * 2.0, 3, -1)", {"X": X3}, lambda X: np.take(2.0 * X, 3, -1)),
        ("topk", "topk(X * 2.0, 2, 1).0", {"X": X3}, lambda X: -np.sort(-2.0 * X, 1)[:, :2]),
        ("pad", "pad(X * 2.0, [0, 1, 0, 0, 0, 2], 0.5)", {"X": X3},
         lambda X: np.pad(2.0 * X, ((0, 0), (1, 0), (0, 2)), constant_values=0.5)),
        ("resize", "resize(X * 2.0, [1.0, 2.0, 1.0], \"linear\")", {"X": X3},
         lambda X: resize_ref(2.0 * X, [1.0, 2.0, 1.0], "linear", False)),
        ("unsqueeze_squeeze", "squeeze(unsqueeze(X * 2.0, 1), 2)", {"X": rnd_(212, (2, 1, 3))},
         lambda X: 2.0 * X),
        ("unsqueeze", "unsqueeze(X * 2.0, -1)", {"X": X3}, lambda X: (2.0 * X)[..., None]),
        ("concatenate_axis", "std::array::concatenate_axis(X * 2.0, Y, 2)", {"X": X3[:, :, :2], "Y": Y},
         lambda X, Y: np.concatenate([2.0 * X, Y], 2)),
        ("flip", "flip(X * 2.0)", {"X": X3}, lambda X: np.flip(2.0 * X)),
        # a split into n equal parts: part k starts at k * extent / n, computed when it runs
        ("split_count", "split(X * 2.0, 2, 2).1", {"X": X3}, lambda X: (2.0 * X)[:, :, 2:]),
        ("gather_nd", "gather_nd(X * 2.0, [[1, 0], [0, 2]])", {"X": X3}, lambda X: (2.0 * X)[[1, 0], [0, 2]]),
        # a value made inside the body whose rank is the length of a computed shape
        ("reshape_runtime", "softmax(reshape(X * 2.0, [len(X), -1]))", {"X": X3},
         lambda X: sm((2.0 * X).reshape(2, 12), -1)),
    ]
