"""Call forms outside programs use, against NumPy: positional arguments only, 1-D and 3-D
inputs, negative axes, ONNX's default attribute values written out (empty strides, zero pads),
f32 and f64, and integer inputs where NumPy keeps integers. Files under cases/forms/."""
import numpy as np

from common import TestFile, decimals
from gen_ml import conv_ref, conv_transpose_ref, f64, log_softmax, quarters, softmax
from gen_ml_nn import pool_ref
from gen_ml_onnx import slice_ref, topk_ref


def ints(seed, shape, lo=-5, hi=6):
    return np.random.default_rng(seed).integers(lo, hi, size=shape)


def integers_file():
    """NumPy keeps these integral; so must the library."""
    t = TestFile("forms/integers.ein", "std functions on integer arrays (1-D, 2-D, 3-D), "
                 "where NumPy keeps integers", uses=["std::ml::*"])
    for i, shape in enumerate([(5,), (2, 3), (2, 3, 4)]):
        x = t.let(f"x{i}", ints(3000 + i, shape), "i32")
        y = t.let(f"y{i}", ints(3010 + i, shape), "i32")
        X = f"x{i}"
        t.check(f"relu({X})", np.maximum(x, 0), "i32")
        t.check(f"abs({X})", np.abs(x), "i32")
        t.check(f"sign({X})", np.sign(x), "i32")
        t.check(f"square({X})", x * x, "i32")
        t.check(f"neg({X})", -x, "i32")
        t.check(f"min({X}, y{i})", np.minimum(x, y), "i32")
        t.check(f"max({X}, y{i})", np.maximum(x, y), "i32")
        t.check(f"clip({X}, -2, 3)", np.clip(x, -2, 3), "i32")
        t.check(f"add({X}, y{i})", x + y, "i32")
        t.check(f"multiply({X}, y{i})", x * y, "i32")
        t.check(f"reduce_sum({X})", x.sum(keepdims=True), "i32")
        t.check(f"reduce_max({X})", x.max(keepdims=True), "i32")
        t.check(f"reduce_min({X})", x.min(keepdims=True), "i32")
        t.check(f"reduce_l1({X})", np.abs(x).sum(keepdims=True), "i32")
        t.check(f"cumsum({X})", np.cumsum(x, -1), "i32")
        t.check(f"flip({X})", np.flip(x), "i32")
        t.check(f"transpose({X})", x.T, "i32")
        t.check(f"std::array::flatten({X})", x.ravel(), "i32")
        t.check(f"std::array::sum({X})", x.sum(), "i32")
        t.check(f"std::array::argmax({X})", np.argmax(x, -1), "i32")
        t.check(f"std::array::sort({X})", np.sort(x, -1), "i32")
        t.check(f"concat({X}, y{i})", np.concatenate([x, y]), "i32")
        t.check(f"topk({X}, 2, -1)", topk_ref(x, 2, -1), ("i32", "i32"))
        t.check(f"gather({X}, [1, 0], -1)", np.take(x, [1, 0], -1), "i32")
        t.check(f"where(greater({X}, y{i}), {X}, y{i})", np.where(x > y, x, y), "i32")
        t.check(f"pad({X}, {[1] * len(shape) + [0] * len(shape)}, 7)",
                np.pad(x, [(1, 0)] * len(shape), constant_values=7), "i32")
        t.check(f"tile({X}, {[2] + [1] * (len(shape) - 1)})", np.tile(x, [2] + [1] * (len(shape) - 1)), "i32")
        t.check(f"slice({X}, [-1], [-100], [-1], [-2])", slice_ref(x, [-1], [-100], [-1], [-2]), "i32")
        t.check(f"equal({X}, y{i})", x == y, "bool")
    A = t.let("IA", ints(3020, (2, 3)), "i32")
    B = t.let("IB", ints(3021, (3, 2)), "i32")
    t.check("matmul(IA, IB)", A @ B, "i32")
    t.check("outer(IA[0], IB[0])", np.outer(A[0], B[0]), "i32")
    t.check("kron(IA, IB)", np.kron(A, B), "i32")
    t.check("tril(matmul(IA, IB), 0)", np.tril(A @ B), "i32")
    t.check("trace(matmul(IA, IB))", np.trace(A @ B), "i32")
    t.check("std::math::gcd(12, -18)", 6, "i32")
    t.check("std::math::mod(-7, 3)", -7 % 3, "i32")
    t.check("std::math::fmod(-7, 3)", int(np.fmod(-7, 3)), "i32")
    X = t.let("IX", ints(3022, (1, 2, 5)), "i32")
    t.check("max_pool(IX, [2], [1], [0, 0])", pool_ref(X, [2], [1], [0, 0], "max").astype(np.int32), "i32")
    t.check("global_max_pool(IX)", X.max(-1, keepdims=True), "i32")
    t.write()


def axes_file():
    t = TestFile("forms/axes.ein", "std functions with negative axes and on 1-D / 3-D inputs, "
                 "f32 and f64", uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((5,), "f32"), ((2, 3, 4), "f64"), ((2, 3, 4), "f32")]):
        x = t.let(f"a{i}", decimals(3100 + i, shape), kind)
        X, r, dt = f"a{i}", len(shape), x.dtype
        t.check(f"softmax({X})", softmax(f64(x)).astype(dt), kind)
        t.check(f"log_softmax({X})", log_softmax(f64(x)).astype(dt), kind)
        t.check(f"std::ml::softmax_axis({X}, -1)", softmax(f64(x)).astype(dt), kind)
        for ax in range(-r, 0):
            t.check(f"gather({X}, [1, 0, 1], {ax})", np.take(x, [1, 0, 1], ax), kind)
            t.check(f"topk({X}, 2, {ax})", topk_ref(x, 2, ax), (kind, "i32"))
            t.check(f"std::array::sum_axis({X}, {ax})", f64(x).sum(ax).astype(dt), kind)
            t.check(f"std::array::max_axis({X}, {ax})", x.max(ax), kind)
            t.check(f"std::array::argmin_axis({X}, {ax})", np.argmin(x, ax), "i32")
            t.check(f"std::array::concatenate_axis({X}, {X}, {ax})", np.concatenate([x, x], ax), kind)
            t.check(f"lp_normalization({X}, {ax}, 2)",
                    (f64(x) / np.sqrt((f64(x) ** 2).sum(ax, keepdims=True))).astype(dt), kind)
            t.check(f"unsqueeze({X}, [{ax}])", np.expand_dims(x, ax), kind)
            t.check(f"std::ml::softmax_axis({X}, {ax})",
                    (np.exp(f64(x)) / np.exp(f64(x)).sum(ax, keepdims=True)).astype(dt), kind)
            mu = f64(x).mean(tuple(range(ax % r, r)), keepdims=True)
            var = f64(x).var(tuple(range(ax % r, r)), keepdims=True)
            sc = np.ones(shape[ax % r:])
            t.raw(f"let sc{i}_{-ax}: {type_ann_of(sc, kind)} = {lit_of(sc, kind)};")
            t.check(f"layer_normalization({X}, sc{i}_{-ax}, sc{i}_{-ax}, 1e-05, {ax})",
                    ((f64(x) - mu) / np.sqrt(var + 1e-5) + 1).astype(dt), kind)
        t.check(f"split({X}, [1, {shape[-1] - 1}], -1)",
                tuple(np.split(x, [1], -1)), (kind, kind))
        t.check(f"squeeze(unsqueeze({X}, [0]), [-{r + 1}])", x, kind)
        t.check(f"l2_normalize({X}, 1e-12)", (f64(x) / np.linalg.norm(f64(x), axis=-1, keepdims=True)).astype(dt), kind)
        t.check(f"reduce_mean({X})", f64(x).mean(keepdims=True).astype(dt), kind)
        t.check(f"reduce_log_sum_exp({X})", np.log(np.exp(f64(x)).sum(keepdims=True)).astype(dt), kind)
        t.check(f"std::array::mean({X})", f64(x).mean().astype(dt), kind)
        t.check(f"flatten({X})", x.reshape(shape[0], -1), kind)
        ix = t.let(f"gx{i}", ints(3110 + i, shape[:-1] + (2,), 0, shape[-1]), "i32")
        t.check(f"gather_elements({X}, gx{i}, -1)", np.take_along_axis(x, ix, -1), kind)
    x3 = t.let("mv", decimals(3120, (2, 3, 4)), "f64")
    for axes in ([0, 2], [-1], [1, -1]):
        ax = tuple(a % 3 for a in axes)
        t.check(f"mean_variance_normalization(mv, {axes})",
                (x3 - x3.mean(ax, keepdims=True)) / np.sqrt(x3.var(ax, keepdims=True) + 1e-9), "f64")
    t.write()


def type_ann_of(x, kind):
    from common import type_ann
    return type_ann(x, kind)


def lit_of(x, kind):
    from common import lit
    return lit(x, kind)


def nd_layers_file():
    t = TestFile("forms/nd_layers.ein", "conv, conv_transpose, pooling and normalisation on 1-D "
                 "signals and 3-D volumes with ONNX's defaults written out", uses=["std::ml::*"])
    for i, (xs, ws, kind) in enumerate([((2, 3, 9), (4, 3, 3), "f32"), ((1, 2, 4, 3, 5), (2, 2, 2, 1, 3), "f64")]):
        nd = len(xs) - 2
        X = t.let(f"X{i}", quarters(3200 + i, xs), kind)
        W = t.let(f"W{i}", quarters(3210 + i, ws), kind)
        B = t.let(f"B{i}", quarters(3220 + i, (ws[0],)), kind)
        dt = X.dtype
        one, zero = [1] * nd, [0] * (2 * nd)
        t.check(f"conv(X{i}, W{i}, B{i}, {one}, {zero}, {one}, 1)",
                conv_ref(f64(X), f64(W), f64(B), one, zero, one, 1).astype(dt), kind)
        t.check(f"conv(X{i}, W{i}, B{i}, [], [], [], 1)",
                conv_ref(f64(X), f64(W), f64(B), one, zero, one, 1).astype(dt), kind)
        t.check(f"conv(X{i}, W{i}, [], {[2] * nd}, {[1] * nd}, {one}, 1)",
                conv_ref(f64(X), f64(W), np.zeros(ws[0]), [2] * nd, [1] * (2 * nd), one, 1).astype(dt), kind)
        TW = t.let(f"TW{i}", quarters(3230 + i, (xs[1], 2) + ws[2:]), kind)
        t.check(f"conv_transpose(X{i}, TW{i}, [], {[2] * nd}, {zero}, {[0] * nd})",
                conv_transpose_ref(f64(X), f64(TW), np.zeros(2), [2] * nd, zero, [0] * nd).astype(dt), kind)
        k = [2] * nd
        t.check(f"max_pool(X{i}, {k}, {k}, {zero})", pool_ref(f64(X), k, k, zero, "max").astype(dt), kind)
        t.check(f"average_pool(X{i}, {k}, {one}, {[1] * nd})",
                pool_ref(f64(X), k, one, [1] * (2 * nd), "avg").astype(dt), kind)
        t.check(f"average_pool(X{i}, {k}, [], [])", pool_ref(f64(X), k, one, zero, "avg").astype(dt), kind)
        t.check(f"lp_pool(X{i}, {k}, {k}, 2)", pool_ref(f64(X), k, k, zero, "lp").astype(dt), kind)
        t.check(f"global_average_pool(X{i})", f64(X).mean(tuple(range(2, 2 + nd)), keepdims=True).astype(dt), kind)
        t.check(f"global_max_pool(X{i})", X.max(tuple(range(2, 2 + nd)), keepdims=True), kind)
        C = xs[1]
        t.raw(f"let s{i}: [{kind}; {C}] = {lit_of(np.full(C, 2.0), kind)};",
              f"let z{i}: [{kind}; {C}] = {lit_of(np.full(C, 0.5), kind)};")
        ax = tuple(range(2, 2 + nd))
        shp = (1, C) + (1,) * nd
        mu, var = f64(X).mean(ax, keepdims=True), f64(X).var(ax, keepdims=True)
        t.check(f"instance_normalization(X{i}, s{i}, z{i}, 1e-05)",
                ((f64(X) - mu) / np.sqrt(var + 1e-5) * 2.0 + 0.5).astype(dt), kind)
        t.check(f"batch_normalization(X{i}, s{i}, z{i}, z{i}, s{i}, 1e-05)",
                ((f64(X) - 0.5) / np.sqrt(2.0 + 1e-5) * 2.0 + 0.5).astype(dt), kind)
        del shp
    t.write()


def generate():
    integers_file()
    axes_file()
    nd_layers_file()
