"""The gradient checks of gen_grad: (name, call, inputs, differentiated inputs, NumPy reference
[, uses [, extra lines]]). The references are those of the value tests."""
import math
import zlib

import numpy as np

from gen_grad import away, rnd
from gen_ml import conv_ref, conv_transpose_ref, log_softmax, sigmoid, softmax
from gen_ml_nn import attend, directions, gru_ref, heads_ref, lrn_ref, lstm_ref, pool_ref, rnn_ref
from gen_ml_onnx import resize_ref

erf = np.vectorize(math.erf, otypes=[np.float64])
SELU_A, SELU_G = 1.6732632423543772, 1.0507009873554805

# name -> why its gradient cannot be taken yet (see /work/wt/FINDINGS.md, [autodiff])
PENDING = {}


def ew(name, call, ref, kinks=(), lo=-2.0, hi=2.0, consts=()):
    x = away(zlib.crc32(name.encode()) % 10000, (2, 3), kinks, lo, hi)
    return (name, call, {"x": x}, ["x"], lambda x: ref(x), ["std::ml::*"], consts)


def activations():
    sp = lambda x: np.logaddexp(0, x)  # noqa: E731
    A = ["let a: f64 = 0.5;", "let b: f64 = -1.5;", "let c: f64 = 1.25;"]
    return [
        ew("relu", "relu(x)", lambda x: np.maximum(x, 0), [0]),
        ew("sigmoid", "sigmoid(x)", sigmoid),
        ew("softmax", "softmax(x)", softmax),
        ew("log_softmax", "log_softmax(x)", log_softmax),
        ew("leaky_relu", "leaky_relu(x, a)", lambda x: np.where(x >= 0, x, 0.5 * x), [0], consts=A),
        ew("elu", "elu(x, a)", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), [0], consts=A),
        ew("elu_alpha", "elu_alpha(x, a)", lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)), [0], consts=A),
        ew("celu", "celu(x, c)", lambda x: np.maximum(x, 0) + np.minimum(0, 1.25 * np.expm1(x / 1.25)), [0], consts=A),
        ew("gelu", "gelu(x)", lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
        ew("gelu_tanh", "gelu_tanh(x)", lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
        ew("swish", "swish(x)", lambda x: x * sigmoid(x)),
        ew("selu", "selu(x)", lambda x: SELU_G * np.where(x > 0, x, SELU_A * np.expm1(x)), [0]),
        ew("softplus", "softplus(x)", sp),
        ew("hardtanh", "hardtanh(x, b, c)", lambda x: np.clip(x, -1.5, 1.25), [-1.5, 1.25], consts=A),
        ew("relu6", "relu6(x)", lambda x: np.clip(x, 0, 6), [0, 6], -3, 8),
        ew("prelu", "prelu(x, a)", lambda x: np.where(x >= 0, x, 0.5 * x), [0], consts=A),
        ew("softsign", "softsign(x)", lambda x: x / (1 + np.abs(x)), [0]),
        ew("tanhshrink", "tanhshrink(x)", lambda x: x - np.tanh(x)),
        ew("softshrink", "softshrink(x, a)", lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0)), [-0.5, 0.5], consts=A),
        ew("hardshrink", "hardshrink(x, a)", lambda x: np.where(np.abs(x) > 0.5, x, 0), [-0.5, 0.5], consts=A),
        ew("threshold", "threshold(x, a, b)", lambda x: np.where(x > 0.5, x, -1.5), [0.5], consts=A),
        ew("hardswish", "hardswish(x)", lambda x: x * np.clip(x / 6 + 0.5, 0, 1), [-3, 3], -4, 4),
        ew("thresholded_relu", "thresholded_relu(x, a)", lambda x: np.where(x > 0.5, x, 0), [0.5], consts=A),
        ew("hardsigmoid", "hardsigmoid(x)", lambda x: np.clip(0.2 * x + 0.5, 0, 1), [-2.5, 2.5], -3, 3),
        ew("mish", "mish(x)", lambda x: x * np.tanh(sp(x))),
    ]


def convolutions():
    out = []
    for nd, xs, ws, st, pd, dl in [(1, (1, 2, 5), (2, 2, 3), [2], [1, 0], [1]),
                                   (2, (1, 2, 4, 3), (2, 1, 2, 2), [1, 1], [1, 0, 0, 1], [1, 1]),
                                   (3, (1, 1, 3, 3, 2), (1, 1, 2, 2, 2), [1, 1, 1], [0, 1, 0], [1, 1, 1])]:
        g = 2 if nd == 2 else 1
        ins = {"X": rnd(10 + nd, xs), "W": rnd(20 + nd, ws), "B": rnd(30 + nd, (ws[0],))}
        out.append((f"conv{nd}d", f"conv(X, W, B, {st}, {pd}, {dl}, {g})", ins, ["X", "W", "B"],
                    lambda X, W, B, st=st, pd=pd, dl=dl, g=g: conv_ref(X, W, B, st, pd, dl, g)))
        tws = (xs[1], 2) + ws[2:]
        tins = {"X": rnd(40 + nd, xs), "W": rnd(50 + nd, tws), "B": rnd(60 + nd, (2,))}
        op = [1] + [0] * (nd - 1)
        out.append((f"conv_transpose{nd}d", f"conv_transpose(X, W, B, {st}, {pd}, {op})", tins, ["X", "W", "B"],
                    lambda X, W, B, st=st, pd=pd, op=op: conv_transpose_ref(X, W, B, st, pd, op)))
    ins = {"X": rnd(70, (1, 2, 4)), "W": rnd(71, (2, 1, 2)), "B": rnd(72, (2,))}
    out.append(("depthwise_conv", "depthwise_conv(X, W, B, [1], [1, 1], [1])", ins, ["X", "W"],
                lambda X, W, B: conv_ref(X, W, B, [1], [1, 1], [1], 2)))
    ins = {"X": rnd(73, (1, 1, 4, 4)), "W": rnd(74, (2, 1, 2, 2)), "B": rnd(75, (2,))}
    out.append(("layers_conv2d", "conv2d(X, W, B, 2, 1, 1, 0, 1, 2)", ins, ["X", "W"],
                lambda X, W, B: conv_ref(X, W, B, [2, 1], [1, 0, 1, 0], [1, 2], 1)))
    return out


def pooling():
    out = []
    for nd, xs, k, s, p in [(1, (1, 2, 6), [3], [2], [1, 0]), (2, (1, 1, 4, 5), [2, 2], [2, 1], [0, 1, 1, 0]),
                            (3, (1, 1, 3, 4, 2), [2, 2, 2], [1, 2, 1], [0, 0, 0])]:
        X = rnd(80 + nd, xs)
        for how, fn in (("max", "max_pool"), ("avg", "average_pool")):
            out.append((f"{fn}{nd}d", f"{fn}(X, {k}, {s}, {p})", {"X": X}, ["X"],
                        lambda X, k=k, s=s, p=p, how=how: pool_ref(X, k, s, p, how)))
        Xp = away(85 + nd, xs, [0], 0.2, 2.0)
        out.append((f"lp_pool{nd}d", f"lp_pool(X, {k}, {s}, 2)", {"X": Xp}, ["X"],
                    lambda X, k=k, s=s: pool_ref(X, k, s, [], "lp", 2)))
        sp = tuple(range(2, len(xs)))
        out.append((f"global_average_pool{nd}d", "global_average_pool(X)", {"X": X}, ["X"],
                    lambda X, sp=sp: X.mean(axis=sp, keepdims=True)))
        out.append((f"global_max_pool{nd}d", "global_max_pool(X)", {"X": X}, ["X"],
                    lambda X, sp=sp: X.max(axis=sp, keepdims=True)))
    return out


def normalisation():
    X = rnd(90, (2, 3, 2, 2), -2, 2)
    sc, B, mu, var = rnd(91, (3,), 0.5, 1.5), rnd(92, (3,)), rnd(93, (3,)), rnd(94, (3,), 0.5, 1.5)
    eps = ["let eps: f64 = 1e-05;"]
    shp = (1, 3, 1, 1)
    inst = lambda X, sc, B: (X - X.mean(axis=(2, 3), keepdims=True)) / np.sqrt(X.var(axis=(2, 3), keepdims=True) + 1e-5) * sc.reshape(shp) + B.reshape(shp)  # noqa: E731,E501
    lay = lambda X, sc, B: (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + 1e-5) * sc + B  # noqa: E731
    ls, lb = rnd(95, (2,), 0.5, 1.5), rnd(96, (2,))
    mvn = lambda X: (X - X.mean(axis=(0, 2, 3), keepdims=True)) / (np.sqrt(((X - X.mean(axis=(0, 2, 3), keepdims=True)) ** 2).mean(axis=(0, 2, 3), keepdims=True)) + 1e-9)  # noqa: E731,E501
    return [
        ("batch_normalization", "batch_normalization(X, sc, B, mu, var, eps)",
         {"X": X, "sc": sc, "B": B, "mu": mu, "var": var}, ["X", "sc", "B", "mu", "var"],
         lambda X, sc, B, mu, var: (X - mu.reshape(shp)) / np.sqrt(var.reshape(shp) + 1e-5) * sc.reshape(shp) + B.reshape(shp),
         ["std::ml::*"], eps),
        ("instance_normalization", "instance_normalization(X, sc, B, eps)", {"X": X, "sc": sc, "B": B},
         ["X", "sc", "B"], inst, ["std::ml::*"], eps),
        ("layer_normalization", "layer_normalization(X, sc, B, eps, -1)", {"X": X, "sc": ls, "B": lb},
         ["X", "sc", "B"], lay, ["std::ml::*"], eps),
        ("lrn", "lrn(X, 3, al, be, bi)", {"X": X}, ["X"], lambda X: lrn_ref(X, 3, 0.5, 0.75, 1.0),
         ["std::ml::*"], ["let al: f64 = 0.5;", "let be: f64 = 0.75;", "let bi: f64 = 1.0;"]),
        ("lp_normalization", "lp_normalization(X, 1, 2)", {"X": X}, ["X"],
         lambda X: X / np.linalg.norm(X, axis=1, keepdims=True)),
        ("mean_variance_normalization", "mean_variance_normalization(X, [0, 2, 3])", {"X": X}, ["X"], mvn),
        # other axis lists (negative ones count from the end)
        ("mean_variance_normalization_last", "mean_variance_normalization(X, [-2, -1])", {"X": X}, ["X"],
         lambda X: (X - X.mean(axis=(2, 3), keepdims=True)) / (X.std(axis=(2, 3), keepdims=True) + 1e-9)),
        ("mean_variance_normalization_1", "mean_variance_normalization(X, [1])", {"X": X}, ["X"],
         lambda X: (X - X.mean(axis=1, keepdims=True)) / (X.std(axis=1, keepdims=True) + 1e-9)),
    ]


def attention():
    q, k, v = rnd(100, (3, 4)), rnd(101, (2, 4)), rnd(102, (2, 4))
    fm = rnd(103, (3, 2))
    c = ["let s: f64 = 0.5;"]
    return [
        ("attention_dummy", "attention_dummy(q, k, v, s)", {"q": q, "k": k, "v": v}, ["q", "k", "v"],
         lambda q, k, v: attend(q, k, v, 0.5), ["std::ml::*"], c),
        ("multi_head_attention_simple", "multi_head_attention_simple(q, k, v, 2, s)", {"q": q, "k": k, "v": v},
         ["q", "k", "v"], lambda q, k, v: heads_ref(q, k, v, 2, 0.5), ["std::ml::*"], c),
        ("multi_head_attention", "multi_head_attention(q, k, v, 2, s, m)", {"q": q, "k": k, "v": v, "m": fm},
         ["q", "k", "v"], lambda q, k, v, m: heads_ref(q, k, v, 2, 0.5, m), ["std::ml::*"], c),
    ]


def recurrent_ref(ref, direction, extra):
    """The ONNX layer in W's layout: [D, G H, I] (result [T, D, N, H]) or [G H, I] (result
    [T, N, H], states [N, H]), through the value tests' per-direction loop."""
    def f(X, W, R, B, h, c=None):
        states = [h] if c is None else [h, c]
        if W.ndim == 2:
            return directions(ref, X, W[None], R[None], B[None], [s[None] for s in states],
                              direction, extra)[:, 0]
        return directions(ref, X, W, R, B, states, direction, extra)
    return f


def recurrent():
    """Each layer in both layouts and every direction, and each mode (activation, clip,
    linear_before_reset); the gradient in every input, initial states included."""
    T, N, I, H = 3, 2, 2, 2
    out = []
    # (suffix, direction, D or None for the layout without the direction axis, mode)
    forms = {
        "rnn": [("", "forward", None, "Tanh"), ("_reverse_relu", "reverse", 1, "Relu"),
                ("_bidirectional_sigmoid", "bidirectional", 2, "Sigmoid")],
        "lstm": [("", "forward", None, 0.0), ("_reverse", "reverse", 1, 0.0),
                 ("_bidirectional", "bidirectional", 2, 0.0), ("_clip", "forward", None, 0.5)],
        "gru": [("", "forward", None, 0), ("_reverse_lbr", "reverse", 1, 1),
                ("_bidirectional", "bidirectional", 2, 0), ("_lbr", "forward", None, 1)],
    }
    refs = {"rnn": rnn_ref, "lstm": lstm_ref, "gru": gru_ref}
    for name, G in (("rnn", 1), ("lstm", 4), ("gru", 3)):
        for k, (suffix, direction, D, mode) in enumerate(forms[name]):
            lead = () if D is None else (D,)
            seed = 110 + 40 * G + 7 * k
            X = rnd(seed, (T, N, I))
            ins = {"X": X, "W": rnd(seed + 1, lead + (G * H, I)), "R": rnd(seed + 2, lead + (G * H, H)),
                   "B": rnd(seed + 3, lead + (2 * G * H,), -0.5, 0.5), "h": rnd(seed + 4, lead + (N, H), -0.5, 0.5)}
            if name == "lstm":
                ins["c"] = rnd(seed + 5, lead + (N, H), -0.5, 0.5)
            m = f'"{mode}"' if name == "rnn" else mode
            states = "h, c" if name == "lstm" else "h"
            call = f'{name}(X, W, R, B, {states}, {H}, "{direction}", {m})'
            out.append((name + suffix, call, ins, list(ins), recurrent_ref(refs[name], direction, [mode])))
    return out


def linalg():
    A, B = rnd(150, (2, 3)), rnd(151, (3, 2))
    M = rnd(152, (3, 3))
    S = M @ M.T + 3 * np.eye(3)
    S = np.round(S, 3)
    b = rnd(153, (3,))
    Bt = rnd(154, (2, 2, 3)), rnd(155, (2, 3, 2))
    L = np.round(np.tril(S), 3)
    return [
        ("matmul", "matmul(A, B)", {"A": A, "B": B}, ["A", "B"], lambda A, B: A @ B),
        ("batch_matmul", "batch_matmul(A, B)", {"A": Bt[0], "B": Bt[1]}, ["A", "B"], lambda A, B: A @ B),
        ("vec_norm_2", "vec_norm_2(A)", {"A": A}, ["A"], lambda A: np.linalg.norm(A, axis=-1)),
        ("matrix_norm_frobenius", "matrix_norm_frobenius(A)", {"A": A}, ["A"], lambda A: np.linalg.norm(A)),
        ("cholesky", "cholesky(S)", {"S": S}, ["S"], lambda S: np.linalg.cholesky(np.tril(S) + np.tril(S, -1).T)),
        ("solve_triangular_lower", "solve_triangular_lower(L, b)", {"L": L, "b": b}, ["L", "b"],
         lambda L, b: np.linalg.solve(np.tril(L), b)),
        ("solve_triangular_lower_unit", "solve_triangular_lower_unit(L, b)", {"L": L, "b": b}, ["L", "b"],
         lambda L, b: np.linalg.solve(np.tril(L, -1) + np.eye(3), b)),
        ("solve_triangular_upper", "solve_triangular_upper(U, b)", {"U": L.T.copy(), "b": b}, ["U", "b"],
         lambda U, b: np.linalg.solve(np.triu(U), b)),
        ("solve_cholesky", "solve_cholesky(S, b)", {"S": S, "b": b}, ["b"], lambda S, b: np.linalg.solve(S, b)),
        ("solve", "solve(M, b)", {"M": M + 2 * np.eye(3), "b": b}, ["M", "b"], lambda M, b: np.linalg.solve(M, b)),
        ("det", "det(M)", {"M": M + 2 * np.eye(3)}, ["M"], lambda M: np.linalg.det(M)),
        ("inv", "inv(M)", {"M": M + 2 * np.eye(3)}, ["M"], lambda M: np.linalg.inv(M)),
        ("inv_4x4", "inv(M4)", {"M4": rnd(157, (4, 4)) + 2 * np.eye(4)}, ["M4"], lambda M4: np.linalg.inv(M4)),
        ("dot", "dot(b, b2)", {"b": b, "b2": rnd(156, (3,))}, ["b", "b2"], lambda b, b2: b @ b2),
    ]


def tensors():
    x = rnd(160, (2, 3))
    m = rnd(161, (3, 3))
    p = rnd(162, (2, 3), 0.05, 0.95)
    t = np.round(np.random.default_rng(163).uniform(0, 1, size=(2, 3)), 3)
    oh = np.eye(3)[[1, 2]]
    lg = rnd(164, (2, 3), -2, 2)
    d = rnd(165, (1, 4, 2, 2))
    cond = np.array([[True, False, True], [False, False, True]])
    return [
        ("image_scaler", "image_scaler(d, f1, fb)", {"d": d}, ["d"],
         lambda d: 1.5 * d + np.array([0.5, 1.0, -1.0, 0.0]).reshape(1, 4, 1, 1), ["std::ml::*"], ["let f1: f64 = 1.5;", "let f2: f64 = 0.5;", "let tiny: f64 = 1e-12;", "let fb: [f64; 4] = [0.5, 1.0, -1.0, 0.0];"]),
        ("diag_extract", "diag_extract(m)", {"m": m}, ["m"], lambda m: np.diag(m)),
        ("diag_construct", "diag_construct(v)", {"v": x[0]}, ["v"], lambda v: np.diag(v)),
        ("trace", "trace(m)", {"m": m}, ["m"], lambda m: np.trace(m)),
        ("frobenius_norm", "frobenius_norm(x)", {"x": x}, ["x"], lambda x: np.linalg.norm(x)),
        ("outer", "outer(a, b)", {"a": x[0], "b": x[1]}, ["a", "b"], lambda a, b: np.outer(a, b)),
        ("kron", "kron(m, x)", {"m": m, "x": x}, ["m", "x"], lambda m, x: np.kron(m, x)),
        ("tril", "tril(m, 0)", {"m": m}, ["m"], lambda m: np.tril(m)),
        ("triu", "triu(m, 1)", {"m": m}, ["m"], lambda m: np.triu(m, 1)),
        ("roll", "roll(x, 2)", {"x": x}, ["x"], lambda x: np.roll(x, 2)),
        ("repeat_interleave", "repeat_interleave(x, 2)", {"x": x}, ["x"], lambda x: np.repeat(x, 2)),
        ("flip", "flip(x)", {"x": x}, ["x"], lambda x: np.flip(x)),
        ("mse_loss", "mse_loss(x, m2)", {"x": x, "m2": p}, ["x", "m2"], lambda x, m2: np.mean((x - m2) ** 2)),
        ("mae_loss", "mae_loss(x, m2)", {"x": x, "m2": p}, ["x"], lambda x, m2: np.mean(np.abs(x - m2))),
        ("huber_loss", "huber_loss(x, m2, f2)", {"x": x, "m2": p}, ["x"],
         lambda x, m2: np.mean(np.where(np.abs(x - m2) <= 0.5, 0.5 * (x - m2) ** 2, 0.5 * (np.abs(x - m2) - 0.25))), ["std::ml::*"], ["let f1: f64 = 1.5;", "let f2: f64 = 0.5;", "let tiny: f64 = 1e-12;", "let fb: [f64; 4] = [0.5, 1.0, -1.0, 0.0];"]),
        ("binary_cross_entropy", "binary_cross_entropy(p, t)", {"p": p, "t": t}, ["p"],
         lambda p, t: -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p))),
        ("cross_entropy_loss", "cross_entropy_loss(p, t)", {"p": p, "t": oh}, ["p"],
         lambda p, t: -(t * np.log(p)).sum() / 2),
        ("softmax_cross_entropy_loss", "softmax_cross_entropy_loss(lg, t)", {"lg": lg, "t": oh}, ["lg"],
         lambda lg, t: -(t * log_softmax(lg)).sum() / 2),
        ("cosine_similarity", "cosine_similarity(a, b)", {"a": x, "b": lg}, ["a", "b"],
         lambda a, b: (a * b).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1))),
        # rows against one vector broadcast (PyTorch)
        ("cosine_similarity_broadcast", "cosine_similarity(a, v)", {"a": x, "v": lg[0]}, ["a", "v"],
         lambda a, v: (a * v).sum(-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(v))),
        ("add_broadcast", "add(x, v)", {"x": x, "v": m[0]}, ["x", "v"], lambda x, v: x + v),
        ("subtract_broadcast", "subtract(x, v)", {"x": x, "v": m[:, :1][:2]}, ["x", "v"], lambda x, v: x - v),
        ("multiply_broadcast", "multiply(x, v)", {"x": x, "v": m[0]}, ["x", "v"], lambda x, v: x * v),
        ("divide_broadcast", "divide(x, v)", {"x": x, "v": p[0]}, ["x", "v"], lambda x, v: x / v),
        # the broadcasting class: operands of other ranks and extent-1 axes on both sides
        ("add_broadcast_3d", "add(a3, v2)", {"a3": rnd(167, (2, 1, 3)), "v2": rnd(168, (4, 1))}, ["a3", "v2"],
         lambda a3, v2: a3 + v2),
        ("multiply_broadcast_both", "multiply(c1, r1)", {"c1": rnd(169, (3, 1)), "r1": rnd(170, (1, 4))},
         ["c1", "r1"], lambda c1, r1: c1 * r1),
        ("divide_broadcast_rank", "divide(v3, x)", {"v3": rnd(171, (3,)), "x": p}, ["v3", "x"], lambda v3, x: v3 / x),
        ("cross_entropy_loss_labels", "cross_entropy_loss(p, lab)", {"p": p}, ["p"],
         lambda p: -np.log(p[[0, 1], [1, 2]]).mean(), ["std::ml::*"], ["let lab: [i32; 2] = [1, 2];"]),
        ("softmax_cross_entropy_loss_labels", "softmax_cross_entropy_loss(lg, lab)", {"lg": lg}, ["lg"],
         lambda lg: -log_softmax(lg)[[0, 1], [1, 2]].mean(), ["std::ml::*"], ["let lab: [i32; 2] = [1, 2];"]),
        ("flip_1d", "flip(v3)", {"v3": rnd(171, (3,))}, ["v3"], lambda v3: np.flip(v3)),
        ("flip_3d", "flip(d)", {"d": d}, ["d"], lambda d: np.flip(d)),
        ("where", "std::ml::utility_ops::select(c, x, p)", {"x": x, "p": p}, ["x", "p"],
         lambda x, p: np.where(cond, x, p), ["std::ml::*"], ["let c = " + str(cond.tolist()).replace("True", "true").replace("False", "false") + ";"]),
        ("l2_normalize", "l2_normalize(x, tiny)", {"x": x}, ["x"], lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True), ["std::ml::*"], ["let f1: f64 = 1.5;", "let f2: f64 = 0.5;", "let tiny: f64 = 1e-12;", "let fb: [f64; 4] = [0.5, 1.0, -1.0, 0.0];"]),
        ("cumsum", "cumsum(x)", {"x": x}, ["x"], lambda x: np.cumsum(x, -1)),
        ("slice", "slice(x, [1, 0], [2, 3], [0, 1], [1, 2])", {"x": x}, ["x"], lambda x: x[1:2, 0:3:2]),
        ("pad", "pad(x, [1, 0, 0, 2], f2)", {"x": x}, ["x"], lambda x: np.pad(x, [(1, 0), (0, 2)], constant_values=0.5), ["std::ml::*"], ["let f1: f64 = 1.5;", "let f2: f64 = 0.5;", "let tiny: f64 = 1e-12;", "let fb: [f64; 4] = [0.5, 1.0, -1.0, 0.0];"]),
        ("depth_to_space", "depth_to_space(d, 2)", {"d": d}, ["d"],
         lambda d: d.reshape(1, 2, 2, 1, 2, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 1, 4, 4)),
        ("tile", "tile(x, [2, 1])", {"x": x}, ["x"], lambda x: np.tile(x, [2, 1])),
        ("transpose", "transpose(x)", {"x": x}, ["x"], lambda x: x.T),
        ("flatten", "flatten(d)", {"d": d}, ["d"], lambda d: d.reshape(1, -1)),
        ("concat", "concat(x, p)", {"x": x, "p": p}, ["x", "p"], lambda x, p: np.concatenate([x, p])),
        ("gather", "gather(x, [1, 0, 1], 1)", {"x": x}, ["x"], lambda x: x[:, [1, 0, 1]]),
        ("gather_elements", "gather_elements(x, [[2, 0], [1, 1]], 1)", {"x": x}, ["x"],
         lambda x: np.array([[x[0, 2], x[0, 0]], [x[1, 1], x[1, 1]]])),
        ("scatter_elements", "scatter_elements(x, [[1, 0]], u, 0)", {"x": x, "u": rnd(166, (1, 2))}, ["x", "u"],
         # ONNX: out[indices[i, j], j] = updates[i, j] (the value test's reference)
         lambda x, u: np.array([[x[0, 0], u[0, 1], x[0, 2]], [u[0, 0], x[1, 1], x[1, 2]]])),
        ("topk", "topk(x, 2, 1).0", {"x": x}, ["x"], lambda x: -np.sort(-x, axis=1)[:, :2]),
        ("topk_axis0", "topk(x, 1, 0).0", {"x": x}, ["x"], lambda x: -np.sort(-x, axis=0)[:1, :]),
        ("topk_3d_last", "topk(d, 2, -1).0", {"d": d}, ["d"], lambda d: -np.sort(-d, axis=-1)[..., :2]),
        ("topk_3d_mid", "topk(d, 3, 1).0", {"d": d}, ["d"], lambda d: -np.sort(-d, axis=1)[:, :3]),
    ]


def reductions():
    x = rnd(170, (2, 3), 0.2, 1.5)
    return [(f"reduce_{n}", f"reduce_{n}(x)", {"x": x}, ["x"], f) for n, f in [
        ("mean", lambda x: x.mean(keepdims=True)), ("sum", lambda x: x.sum(keepdims=True)),
        ("max", lambda x: x.max(keepdims=True)), ("min", lambda x: x.min(keepdims=True)),
        ("prod", lambda x: x.prod(keepdims=True)), ("l1", lambda x: np.abs(x).sum(keepdims=True)),
        ("l2", lambda x: np.sqrt((x ** 2).sum(keepdims=True))),
        ("sum_square", lambda x: (x ** 2).sum(keepdims=True)),
        ("log_sum", lambda x: np.log(x.sum(keepdims=True))),
        ("log_sum_exp", lambda x: np.log(np.exp(x).sum(keepdims=True)))]]


def resizing():
    x = rnd(180, (1, 1, 3, 3))
    return [(f"resize_{m}", f'resize(x, [1.0, 1.0, 2.0, 1.5], "{m}")', {"x": x}, ["x"],
             lambda x, m=m: resize_ref(x, [1, 1, 2, 1.5], m, False)) for m in ("linear", "cubic", "nearest")] + \
        [("upsample_linear", 'upsample(x, [1.0, 1.0, 2.0, 2.0], "linear")', {"x": x}, ["x"],
          lambda x: resize_ref(x, [1, 1, 2, 2], "linear", True)),
         # the class: other ranks, scales per spatial axis only, downscaling, nearest upsampling
         ("resize_linear_1d", 'resize(v5, [1.6], "linear")', {"v5": rnd(181, (5,))}, ["v5"],
          lambda v5: resize_ref(v5, [1.6], "linear", False)),
         ("resize_cubic_spatial", 'resize(x, [1.5, 0.75], "cubic")', {"x": x}, ["x"],
          lambda x: resize_ref(x, [1, 1, 1.5, 0.75], "cubic", False)),
         ("upsample_nearest", 'upsample(x, [1.0, 1.0, 2.0, 1.0], "nearest")', {"x": x}, ["x"],
          lambda x: resize_ref(x, [1, 1, 2, 1], "nearest", True))]


def numerics_and_arrays():
    def traj(k, u0=1.0, dt=0.1, n=5):
        u = [u0]
        for _ in range(n):
            x = u[-1]
            k1 = -k * x
            k2 = -k * (x + 0.5 * dt * k1)
            k3 = -k * (x + 0.5 * dt * k2)
            k4 = -k * (x + dt * k3)
            u.append(x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4))
        return np.array(u)
    A = rnd(190, (2, 2))
    u0 = rnd(191, (2,))
    x = rnd(192, (3, 4))
    P = np.array([[0.5, 0.2], [0.5, 0.8]])

    def lin(A, u0):
        u = [u0]
        for _ in range(3):
            u.append(u[-1] + 0.1 * A @ u[-1])
        return np.array(u)

    def vi(r):
        V = [np.zeros(2)]
        for _ in range(4):
            V.append(r + 0.9 * P.T @ V[-1])
        return np.array(V)
    return [
        ("rk4_decay", "std::numerics::ode::rk4_decay(u0, k, 0.1, 5)", {"k": np.float64(0.7), "u0": np.float64(1.5)},
         ["k", "u0"], lambda k, u0: traj(k, u0), []),
        ("euler_linear", "std::numerics::ode::euler_linear(u0, A, 0.1, 3, 2)", {"A": A, "u0": u0}, ["A", "u0"], lin, []),
        ("value_iteration", "std::numerics::dp::value_iteration(r, P, 0.9, 2, 4)", {"r": rnd(193, (2,))}, ["r"], vi, [],
         ["let P: [f64; 2, 2] = [[0.5, 0.2], [0.5, 0.8]];"]),
        ("discounted_return", "std::numerics::dp::discounted_return(r, 0.8, 3)", {"r": rnd(194, (4,))}, ["r"],
         lambda r: sum(r[t] * 0.8 ** t for t in range(3)), []),
        ("quadratic_value_2d", "std::numerics::optim::quadratic_value_2d(v, A, b)",
         {"v": u0, "A": A + A.T + 3 * np.eye(2), "b": rnd(195, (2,))}, ["v", "A", "b"],
         lambda v, A, b: 0.5 * v @ A @ v - b @ v, []),
        ("array_sum", "std::array::sum(x)", {"x": x}, ["x"], lambda x: np.sum(x), []),
        ("array_mean", "std::array::mean(x)", {"x": x}, ["x"], lambda x: np.mean(x), []),
        ("array_flatten", "std::array::flatten(x)", {"x": x}, ["x"], lambda x: np.ravel(x), []),
        ("array_transpose", "std::array::transpose(x)", {"x": x}, ["x"], lambda x: np.transpose(x), []),
        ("array_concatenate", "std::array::concatenate(x, x2)", {"x": x, "x2": rnd(196, (1, 4))}, ["x", "x2"],
         lambda x, x2: np.concatenate([x, x2]), []),
        ("array_sort", "std::array::sort(x)", {"x": x}, ["x"], lambda x: np.sort(x, -1), []),
        ("array_topk_extract", "std::array::topk_extract(x, 2)", {"x": x}, ["x"], lambda x: -np.sort(-x, -1)[:, :2], []),
    ]


def cases():
    return (activations() + convolutions() + pooling() + normalisation() + attention() + recurrent()
            + linalg() + tensors() + reductions() + resizing() + numerics_and_arrays())
