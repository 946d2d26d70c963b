"""Gradient checks of the call forms outside programs use (gen_grad tuple form): negative axes,
1-D and 3-D inputs, arrays as the second operand of the std::math functions, and the
differentiable functions the other lists leave out (where, constant_of_shape's value). The
references restate each function in NumPy; files are named forms_<name>.ein."""
import math

import numpy as np

from common import lit
from gen_grad import away, rnd
from gen_ml import log_softmax, softmax
from gen_ml_nn import pool_ref
from gen_ml_onnx import resize_ref


def lnorm(X, sc, B, axis):
    axes = tuple(range(axis % X.ndim, X.ndim))
    mu, var = X.mean(axes, keepdims=True), X.var(axes, keepdims=True)
    return (X - mu) / np.sqrt(var + 1e-5) * sc + B


def inorm(X, s, b):
    axes = tuple(range(2, X.ndim))
    mu, var = X.mean(axes, keepdims=True), X.var(axes, keepdims=True)
    shp = (1, -1) + (1,) * (X.ndim - 2)
    return (X - mu) / np.sqrt(var + 1e-5) * s.reshape(shp) + b.reshape(shp)


def take(x, idx, axis):
    return np.take(x, idx, axis=axis)


def math_forms():
    x3 = rnd(400, (2, 2, 3), 0.2, 1.5)
    y3 = rnd(401, (2, 2, 3), 0.2, 1.5)
    a3 = away(402, (2, 2, 3), [0.0], -1.0, 1.0)
    b3 = away(403, (2, 2, 3), [0.0], -1.0, 1.0)
    b3 = np.where(np.abs(a3 - b3) < 0.05, b3 + 0.1, b3)
    lo = rnd(404, (3,), -0.6, -0.1)
    m = ["std::math::*"]
    return [
        ("forms_pow_arrays", "pow(x, y)", {"x": x3, "y": y3}, ["x", "y"], lambda x, y: x ** y, m),
        ("forms_atan2_arrays", "atan2(x, y)", {"x": x3, "y": -y3}, ["x", "y"], lambda x, y: np.arctan2(x, y), m),
        ("forms_min_arrays", "min(a, b)", {"a": a3, "b": b3}, ["a", "b"], lambda a, b: np.minimum(a, b), m),
        ("forms_max_arrays", "max(a, b)", {"a": a3, "b": b3}, ["a", "b"], lambda a, b: np.maximum(a, b), m),
        ("forms_clamp_array_bound", "clamp(a, lo, 0.5)", {"a": a3[0, 0], "lo": lo}, ["a", "lo"],
         lambda a, lo: np.clip(a, lo, 0.5), m),
        ("forms_fmod_arrays", "fmod(x, y)", {"x": 3.0 * x3, "y": y3}, ["x", "y"], lambda x, y: np.fmod(x, y), m),
        ("forms_log1p_1d", "log1p(x)", {"x": x3[0, 0]}, ["x"], lambda x: np.log1p(x), m),
        ("forms_erf_3d", "erf(a)", {"a": a3}, ["a"], lambda a: np.vectorize(math.erf)(a), m),
        ("forms_sqrt_3d", "sqrt(x)", {"x": x3}, ["x"], lambda x: np.sqrt(x), m),
    ]


def axis_forms():
    x3 = rnd(410, (2, 3, 4))
    x1 = rnd(411, (5,))
    sc, B = rnd(412, (4,), 0.5, 1.5), rnd(413, (4,))
    sc2, B2 = rnd(414, (3, 4), 0.5, 1.5), rnd(415, (3, 4))
    cond = rnd(416, (2, 3, 4)) > 0
    eps = ["let eps: f64 = 1e-05;"]
    return [
        ("forms_where", "where(c, x, y)", {"x": x3, "y": rnd(417, (2, 3, 4))}, ["x", "y"],
         lambda x, y: np.where(cond, x, y), ["std::ml::*"], [f"let c: [bool; 2, 3, 4] = {lit(cond, 'bool')};"]),
        ("forms_where_broadcast", "where(c, x, y)", {"x": x3[0, 0], "y": rnd(418, (3, 1))}, ["x", "y"],
         lambda x, y: np.where(cond[0], x, y), ["std::ml::*"], [f"let c: [bool; 3, 4] = {lit(cond[0], 'bool')};"]),
        ("forms_constant_of_shape", "constant_of_shape([2, 3], v)", {"v": rnd(419, (1,))}, ["v"],
         lambda v: np.full((2, 3), v[0])),
        ("forms_gather_neg_axis", "gather(x, [3, 0, 3], -1)", {"x": x3}, ["x"], lambda x: take(x, [3, 0, 3], -1)),
        ("forms_gather_1d", "gather(x, [[4, 1], [0, 4]], 0)", {"x": x1}, ["x"], lambda x: take(x, [[4, 1], [0, 4]], 0)),
        ("forms_gather_elements_neg", "gather_elements(x, ix, -2)", {"x": x3}, ["x"],
         lambda x: np.take_along_axis(x, np.array([[[2, 0, 1, 1]], [[0, 0, 2, 1]]]), -2), ["std::ml::*"],
         ["let ix: [i32; 2, 1, 4] = [[[2, 0, 1, 1]], [[0, 0, 2, 1]]];"]),
        ("forms_topk_neg_axis", "topk(x, 2, -1).0", {"x": x3}, ["x"], lambda x: -np.sort(-x, -1)[..., :2]),
        ("forms_topk_mid_axis", "topk(x, 2, -2).0", {"x": x3}, ["x"], lambda x: -np.sort(-x, -2)[:, :2]),
        ("forms_softmax_3d", "softmax(x)", {"x": x3}, ["x"], softmax),
        ("forms_log_softmax_1d", "log_softmax(x)", {"x": x1}, ["x"], log_softmax),
        ("forms_layer_norm_neg1", "layer_normalization(x, sc, B, eps, -1)", {"x": x3, "sc": sc, "B": B},
         ["x", "sc", "B"], lambda x, sc, B: lnorm(x, sc, B, -1), ["std::ml::*"], eps),
        ("forms_layer_norm_neg2", "layer_normalization(x, sc, B, eps, -2)", {"x": x3, "sc": sc2, "B": B2},
         ["x", "sc", "B"], lambda x, sc, B: lnorm(x, sc, B, -2), ["std::ml::*"], eps),
        ("forms_lp_norm_neg1", "lp_normalization(x, -1, 2)", {"x": x3}, ["x"],
         lambda x: x / np.sqrt((x * x).sum(-1, keepdims=True))),
        ("forms_lp_norm_axis0_l1", "lp_normalization(x, 0, 1)", {"x": away(420, (3, 4), [0.0], -1, 1)}, ["x"],
         lambda x: x / np.abs(x).sum(0, keepdims=True)),
        ("forms_mvn_axes", "mean_variance_normalization(x, [0, 2])", {"x": x3}, ["x"],
         lambda x: (x - x.mean((0, 2), keepdims=True)) / np.sqrt(x.var((0, 2), keepdims=True) + 1e-9)),
        ("forms_concat_3d", "concat(x, y)", {"x": x3, "y": rnd(421, (1, 3, 4))}, ["x", "y"],
         lambda x, y: np.concatenate([x, y])),
        ("forms_concatenate_axis_neg", "std::array::concatenate_axis(x, y, -1)", {"x": x3, "y": rnd(422, (2, 3, 2))},
         ["x", "y"], lambda x, y: np.concatenate([x, y], -1)),
        ("forms_squeeze_neg", "squeeze(x, [-1])", {"x": rnd(423, (2, 3, 1))}, ["x"], lambda x: x[..., 0]),
        ("forms_unsqueeze_neg", "unsqueeze(x, [-1])", {"x": x1}, ["x"], lambda x: x[:, None]),
        ("forms_slice_neg", "slice(x, [-1, 3], [-4, 0], [-1, 1], [-1, -2])", {"x": x3}, ["x"],
         lambda x: x[:, 3:0:-2, -1:-4:-1]),
        ("forms_pad_1d", "pad(x, [2, 1], 0.5)", {"x": x1}, ["x"], lambda x: np.pad(x, (2, 1), constant_values=0.5)),
        ("forms_pad_3d", "pad(x, [0, 1, 0, 1, 0, 2], 0.0)", {"x": x3}, ["x"],
         lambda x: np.pad(x, ((0, 1), (1, 0), (0, 2)))),
        ("forms_tile_3d", "tile(x, [1, 2, 1])", {"x": x3}, ["x"], lambda x: np.tile(x, (1, 2, 1))),
        ("forms_flip_3d", "flip(x)", {"x": x3}, ["x"], lambda x: np.flip(x)),
        ("forms_matmul_1d_3d", "matmul(v, x)", {"v": rnd(424, (3,)), "x": x3}, ["v", "x"], lambda v, x: np.matmul(v, x)),
        ("forms_cumsum_3d", "cumsum(x)", {"x": x3}, ["x"], lambda x: np.cumsum(x, -1)),
        ("forms_sum_axis_neg", "std::array::sum_axis(x, -2)", {"x": x3}, ["x"], lambda x: x.sum(-2)),
        ("forms_mean_axis_neg", "std::array::mean_axis(x, -1)", {"x": x3}, ["x"], lambda x: x.mean(-1)),
        ("forms_max_axis_neg", "std::array::max_axis(x, -3)", {"x": x3}, ["x"], lambda x: x.max(0)),
        ("forms_reduce_l2_1d", "reduce_l2(x)", {"x": x1}, ["x"], lambda x: np.sqrt((x * x).sum(keepdims=True))),
        ("forms_reduce_max_3d", "reduce_max(x)", {"x": x3}, ["x"], lambda x: x.max(keepdims=True)),
    ]


def layer_forms():
    X1 = rnd(430, (2, 3, 6))
    X3 = rnd(431, (1, 2, 3, 3, 2))
    s, b = rnd(432, (3,), 0.5, 1.5), rnd(433, (3,))
    s2, b2 = rnd(434, (2,), 0.5, 1.5), rnd(435, (2,))
    eps = ["let eps: f64 = 1e-05;"]
    return [
        ("forms_instance_norm_1d", "instance_normalization(X, s, b, eps)", {"X": X1, "s": s, "b": b},
         ["X", "s", "b"], inorm, ["std::ml::*"], eps),
        ("forms_instance_norm_3d", "instance_normalization(X, s, b, eps)", {"X": X3, "s": s2, "b": b2},
         ["X", "s"], inorm, ["std::ml::*"], eps),
        ("forms_batch_norm_1d", "batch_normalization(X, s, b, mu, var, eps)", {"X": X1, "s": s, "b": b},
         ["X", "s", "b"], lambda X, s, b: ((X - np.array([0.1, -0.2, 0.3])[:, None]) /
                                          np.sqrt(np.array([1.0, 0.5, 2.0])[:, None] + 1e-5)) * s[:, None] + b[:, None],
         ["std::ml::*"], eps + ["let mu: [f64; 3] = [0.1, -0.2, 0.3];", "let var: [f64; 3] = [1.0, 0.5, 2.0];"]),
        ("forms_global_avg_1d", "global_average_pool(X)", {"X": X1}, ["X"], lambda X: X.mean(-1, keepdims=True)),
        ("forms_max_pool_1d_pads", "max_pool(X, [3], [2], [1, 1])", {"X": X1}, ["X"],
         lambda X: pool_ref(X, [3], [2], [1, 1], "max")),
        ("forms_avg_pool_3d_axis_pads", "average_pool(X, [2, 2, 2], [1, 1, 1], [1, 0, 1])", {"X": X3}, ["X"],
         lambda X: pool_ref(X, [2, 2, 2], [1, 1, 1], [1, 0, 1], "avg")),
        ("forms_resize_linear_3d", "resize(X, [1.0, 1.0, 2.0, 1.0, 1.5], \"linear\")", {"X": X3}, ["X"],
         lambda X: resize_ref(X, [1.0, 1.0, 2.0, 1.0, 1.5], "linear", False)),
        ("forms_l2_normalize_3d", "l2_normalize(X, 1e-12)", {"X": X3[0]}, ["X"],
         lambda X: X / np.sqrt((X * X).sum(-1, keepdims=True))),
        ("forms_einsum_batched", "einsum(\"bij,bjk->bik\", (P, Q))", {"P": rnd(436, (2, 2, 3)), "Q": rnd(437, (2, 3, 2))},
         ["P", "Q"], lambda P, Q: np.einsum("bij,bjk->bik", P, Q)),
    ]


def ellipsis_forms():
    """einsum with `...`: the operands' extra axes, right-aligned, extent-1 axes broadcast."""
    P3, Q2 = rnd(440, (2, 2, 3)), rnd(441, (3, 2))
    P4, Q3 = rnd(442, (2, 1, 2, 3)), rnd(443, (3, 3, 2))
    V = rnd(444, (2, 3))
    forms = [
        ("implicit", "...ij,jk", (P3, Q2)), ("broadcast", "...ij,...jk->...ik", (P4, Q3)),
        ("dot", "...i,...i->...", (V, V[::-1].copy())), ("leading", "i...->...i", (P3,)),
        ("trailing", "...ij->...ji", (P3,)), ("middle", "i...j,j->i...", (P3, rnd(445, (3,)))),
    ]
    out = []
    for name, eq, ops in forms:
        names = ["P", "Q"][:len(ops)]
        ins = dict(zip(names, ops))
        arg = "(P, Q)" if len(ops) == 2 else "P"
        out.append((f"forms_einsum_ellipsis_{name}", f'einsum("{eq}", {arg})', ins, names,
                    lambda eq=eq, **kw: np.einsum(eq, *kw.values())))
    return out


def cases():
    return math_forms() + axis_forms() + layer_forms() + ellipsis_forms()
