"""std::ml tests, part 4: the ONNX operator modules -- comparison, logical, math (broadcasting),
special, reduction, selection, transform, utility and resize ops -- against NumPy and
re-statements of ONNX's reference formulas."""
import itertools

import numpy as np

from common import TestFile, decimals
from gen_ml import f64, quarters


def ints(seed, shape, lo=-5, hi=6):
    return np.random.default_rng(seed).integers(lo, hi, size=shape)


# shapes that broadcast (NumPy rules), both directions
BCAST = [((2, 3), (3,)), ((2, 1), (1, 3)), ((3,), (2, 2, 3)), ((2, 1, 4), (3, 1)), ((4,), ()),
         ((), (2, 2)), ((2, 3), (2, 3))]


def arr(seed, shape, kind):
    if kind == "bool":
        return ints(seed, shape) > 0
    if kind[0] == "i":
        return ints(seed, shape, -3, 4)
    return np.round(ints(seed, shape, -6, 7) / 2, 1)


def elementwise_file():
    t = TestFile("ml/elementwise.ein", "std::ml add, subtract, multiply, divide, comparisons and "
                 "logic with NumPy broadcasting; not; is_nan, is_inf; the re-exported math",
                 uses=["std::ml::*"])
    seed = 2000
    for sa, sb in BCAST:
        for kind in ("f32", "i32", "f64"):
            seed += 2
            a = t.let(f"a{seed}", arr(seed, sa, kind), kind)
            b = t.let(f"b{seed}", arr(seed + 1, sb, kind), kind)
            A, B = f"a{seed}", f"b{seed}"
            t.check(f"add({A}, {B})", np.add(a, b), kind)
            t.check(f"subtract({A}, {B})", np.subtract(a, b), kind)
            t.check(f"multiply({A}, {B})", np.multiply(a, b), kind)
            if kind[0] == "f":
                t.check(f"divide({A}, {B})", np.divide(a, b), kind)
            else:
                nz = np.where(np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape)) == 0, 1, b)
                if b.shape == nz.shape:
                    t.let(f"n{seed}", nz, kind)
                    t.check(f"divide({A}, n{seed})", np.trunc(a / nz).astype(np.int32), kind)
            for name, op in (("equal", np.equal), ("not_equal", np.not_equal), ("greater", np.greater),
                             ("greater_or_equal", np.greater_equal), ("less", np.less),
                             ("less_or_equal", np.less_equal)):
                t.check(f"{name}({A}, {B})", op(a, b), "bool")
    for sa, sb in BCAST:
        seed += 2
        a = t.let(f"l{seed}", arr(seed, sa, "bool"), "bool")
        b = t.let(f"m{seed}", arr(seed + 1, sb, "bool"), "bool")
        for name, op in (("logical_and", np.logical_and), ("logical_or", np.logical_or),
                         ("logical_xor", np.logical_xor)):
            t.check(f"{name}(l{seed}, m{seed})", op(a, b), "bool")
        t.check(f"logical_not(l{seed})", np.logical_not(a), "bool")
        t.check(f"not(m{seed})", np.logical_not(b), "bool")
    x = t.let("sp", np.array([[1.5, -2.0], [0.0, 3.0]]), "f64")
    t.raw("let inf_nan = [1.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -2.5];")
    special = np.array([1.0, np.inf, -np.inf, np.nan, -2.5])
    t.check("is_nan(inf_nan)", np.isnan(special), "bool")
    t.check("is_inf(inf_nan)", np.isinf(special), "bool")
    t.check("is_nan(sp)", np.isnan(x), "bool")
    t.check("is_inf(2.0)", False, "bool")
    # the std::math functions std::ml re-exports under ONNX names
    v = t.let("pw", np.array([[0.5, 1.5], [2.0, 4.0]]), "f64")
    t.check("power(pw, pw)", v ** v, "f64")
    t.check("rsqrt(pw)", 1 / np.sqrt(v), "f64")
    t.check("clip(pw, 1.0, 2.0)", np.clip(v, 1.0, 2.0), "f64")
    t.check("std::ml::math_ops::exp(pw)", np.exp(v), "f64")
    t.check("std::ml::math_ops::log(pw)", np.log(v), "f64")
    t.check("std::ml::trig_ops::atan2(pw, pw)", np.arctan2(v, v), "f64")
    t.check("std::ml::special_ops::erf(0.5)", np.float32(0.5204998778130465), "f32")
    t.check("std::ml::asinh(pw)", np.arcsinh(v), "f64")
    t.write()


def reduction_file():
    t = TestFile("ml/reductions.ein", "std::ml reduce_* over all axes with ONNX's keepdims=1",
                 uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((5,), "f32"), ((2, 3), "f64"), ((2, 2, 3), "f32"),
                                       ((1, 2, 1, 2), "f64"), ((3, 2), "i32")]):
        x = t.let(f"x{i}", ints(2100 + i, shape, -4, 5) if kind[0] == "i" else
                  decimals(2100 + i, shape, 0.1, 2.0), kind)
        X = f64(x)
        keep = dict(axis=None, keepdims=True)
        refs = [("reduce_sum", X.sum(**keep)), ("reduce_max", X.max(**keep)),
                ("reduce_min", X.min(**keep)), ("reduce_prod", X.prod(**keep)),
                ("reduce_l1", np.abs(X).sum(**keep)), ("reduce_sum_square", (X ** 2).sum(**keep))]
        if kind[0] == "f":
            refs += [("reduce_mean", X.mean(**keep)), ("reduce_l2", np.sqrt((X ** 2).sum(**keep))),
                     ("reduce_log_sum", np.log(X.sum(**keep))),
                     ("reduce_log_sum_exp", np.log(np.exp(X).sum(**keep)))]
        for name, ref in refs:
            t.check(f"{name}(x{i})", ref.astype(x.dtype), kind)
    t.raw("let big = [1000.0, 1001.0, 999.5];")
    t.check("reduce_log_sum_exp(big)", np.array([1001.0 + np.log(np.exp(-1) + 1 + np.exp(-1.5))],
                                               dtype=np.float32), "f32")
    t.raw("let with_nan = [1.0, 0.0 / 0.0, 3.0];")
    t.check("reduce_max(with_nan)", np.array([np.nan]), "f32")
    t.check("reduce_min(with_nan)", np.array([np.nan]), "f32")
    t.check("shape(reduce_sum(x3))", np.array([1, 1, 1, 1]), "i32")
    t.write()


def topk_ref(x, k, axis):
    order = np.argsort(-x.astype(np.float64), axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis=axis), order


def selection_file():
    t = TestFile("ml/selection.ein", "std::ml topk, topk_1d_helper, nonzero, argmax, argmin "
                 "(ONNX: argmax over axis 0 with keepdims)", uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((7,), "f32"), ((3, 5), "f64"), ((2, 3, 4), "i32")]):
        x = t.let(f"s{i}", ints(2200 + i, shape, -4, 5) if kind[0] == "i" else
                  decimals(2200 + i, shape, -3, 3, 1), kind)
        for axis in range(-len(shape), len(shape)):
            for k in (1, shape[axis]):
                v, ix = topk_ref(x, k, axis)
                t.check(f"topk(s{i}, {k}, {axis})", (v, ix), (kind, "i32"))
        t.check(f"argmax(s{i})", np.argmax(x, axis=0)[None], "i32")
        t.check(f"argmin(s{i})", np.argmin(x, axis=0)[None], "i32")
        z = np.where(np.abs(x) < 2, 0, x)
        t.let(f"z{i}", z, kind)
        t.check(f"nonzero(z{i})", np.array(np.nonzero(z)), "i32")
    for i, (n, k) in enumerate([(6, 3), (4, 9), (5, 0)]):
        x = t.let(f"h{i}", decimals(2210 + i, (n,), -3, 3, 1), "f64")
        v, ix = topk_ref(x, min(k, n), 0)
        t.raw(f"let (hv{i}, hi{i}) = topk_1d_helper(h{i}, {k});")
        t.check(f"len(hv{i})", min(k, n), "i32")
        if min(k, n):
            t.check(f"hv{i}", v, "f64")
            t.check(f"hi{i}", ix, "i32")
    t.check("nonzero([true, false, true])", np.array([[0, 2]]), "i32")
    t.check("topk([5, 7, 7, 1], 3, 0)", (np.array([7, 7, 5]), np.array([1, 2, 0])), ("i32", "i32"))
    t.write()
    t = TestFile("ml/errors/topk_k.ein", "std::ml topk with k above the axis is E004",
                 uses=["std::ml::topk"])
    t.raw("print(topk([1.0, 2.0], 3, 0));")
    t.expect_error("E004")
    t.write()


def transform_file():
    t = TestFile("ml/transform.ein", "std::ml pad, depth_to_space, space_to_depth, range, "
                 "constant_of_shape, concat, tile, transpose, flatten (ONNX)", uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((3,), "i32"), ((2, 3), "f32"), ((2, 1, 2), "f64")]):
        P = t.let(f"P{i}", ints(1020 + i, shape) if kind[0] == "i" else decimals(1020 + i, shape),
                  kind)
        t.raw(f"let pv{i}: {kind} = {'-1' if kind[0] == 'i' else '-1.5'};")
        cv = -1 if kind[0] == "i" else -1.5
        for pads in ([1] * len(shape) + [0] * len(shape),
                     [(a * 2 + i) % 3 for a in range(2 * len(shape))], [2] * len(shape)):
            p = pads if len(pads) == 2 * len(shape) else pads * 2
            widths = [(p[a], p[a + len(shape)]) for a in range(len(shape))]
            t.check(f"pad(P{i}, {pads}, pv{i})", np.pad(P, widths, constant_values=cv), kind)
    for i, (N, C, H, W, b, kind) in enumerate([(1, 4, 2, 3, 2, "f32"), (2, 8, 1, 2, 2, "f64"),
                                               (1, 9, 2, 2, 3, "i32")]):
        x = t.let(f"d{i}", ints(2300 + i, (N, C, H, W)) if kind[0] == "i" else
                  decimals(2300 + i, (N, C, H, W)), kind)
        # ONNX DepthToSpace, mode DCR, and SpaceToDepth, as reshapes and transposes
        y = x.reshape(N, b, b, C // (b * b), H, W).transpose(0, 3, 4, 1, 5, 2).reshape(N, C // (b * b), H * b, W * b)
        t.check(f"depth_to_space(d{i}, {b})", y, kind)
        t.let(f"e{i}", y, kind)
        z = y.reshape(N, C // (b * b), H, b, W, b).transpose(0, 3, 5, 1, 2, 4).reshape(N, C, H, W)
        t.check(f"space_to_depth(e{i}, {b})", z, kind)
    for args, kind in [((0, 5, 2), "i32"), ((5, 0, -2), "i32"), ((1.0, 2.0, 0.25), "f32"),
                       ((0, 3, 5), "i32"), ((2, 2, 1), "i32"), ((-1.5, 1.0, 0.5), "f64")]:
        lits = ", ".join(repr(a) for a in args)
        if kind == "f64":
            t.raw(f"let rg: (f64, f64, f64) = ({lits});")
            call = "range(rg.0, rg.1, rg.2)"
        else:
            call = f"range({lits})"
        t.check(call, np.arange(*args).astype(np.float64 if kind == "f64" else np.float32 if kind == "f32" else np.int32), kind)
    for shp, val, kind in [([2, 3], "7.5", "f32"), ([4], "-2", "i32"), ([1, 2, 2], "[1.25]", "f32")]:
        v = float(val.strip("[]"))
        t.check(f"constant_of_shape({shp}, {val})", np.full(shp, v).astype(np.int32 if kind == "i32" else np.float32), kind)
    for i, (shape, kind) in enumerate([((3,), "f32"), ((2, 3), "i64"), ((2, 2, 2), "f64")]):
        v = t.let(f"s{i}", ints(2310 + i, shape) if kind[0] == "i" else decimals(2310 + i, shape), kind)
        t.check(f"concat(s{i}, s{i})", np.concatenate([v, v]), kind)
        t.check(f"tile(s{i}, 2)", np.concatenate([v, v]), kind)
        for reps in ([2] * len(shape), [1] * (len(shape) - 1) + [3], [3] + [1] * (len(shape) - 1)):
            t.check(f"tile(s{i}, {reps})", np.tile(v, reps), kind)
        t.check(f"transpose(s{i})", v.T, kind)
        t.check(f"flatten(s{i})", v.reshape(shape[0], -1), kind)
    t.write()


def slice_ref(x, starts, ends, axes, steps):
    sl = [slice(None)] * x.ndim
    axes = axes or list(range(len(starts)))
    steps = steps or [1] * len(starts)
    for s, e, a, st in zip(starts, ends, axes, steps):
        sl[a] = slice(s, e, st)
    return x[tuple(sl)]


def utility_file():
    t = TestFile("ml/utility.ein", "std::ml where (broadcasting), identity, constant, dropout, "
                 "l2_normalize, numel, size, cast, slice, quantize_linear, dequantize_linear, "
                 "qmatmul, qlinear, cumsum, einsum", uses=["std::ml::*"])
    seed = 2400
    for sc, sx, sy in [((4,), (4,), (4,)), ((2, 1), (3,), (2, 3)), ((), (2, 2), ()), ((2, 2, 2),) * 3]:
        seed += 3
        c = t.let(f"c{seed}", arr(seed, sc, "bool"), "bool")
        x = t.let(f"x{seed}", arr(seed + 1, sx, "f64"), "f64")
        y = t.let(f"y{seed}", arr(seed + 2, sy, "f64"), "f64")
        t.check(f"where(c{seed}, x{seed}, y{seed})", np.where(c, x, y), "f64")
    x = t.let("u", decimals(2450, (2, 3)), "f32")
    t.check("identity(u)", x, "f32")
    t.check("constant(u)", x, "f32")
    t.check("dropout(u, 0.5, false)", x, "f32")
    t.check("dropout(u, 0.0, true)", x, "f32")
    t.raw("let dr = dropout(u, 0.5, true);")
    # kept elements are scaled by 1 / (1 - ratio), the others are 0
    t.check("all[i, j](dr[i, j] == 0.0 || dr[i, j] == 2.0 * u[i, j])", True, "bool")
    t.check("dropout(u, 0.25, 0)", x, "f32")
    t.check("l2_normalize(u, 1e-12)", (f64(x) / np.sqrt(np.maximum((f64(x) ** 2).sum(-1, keepdims=True), 1e-12))).astype(np.float32), "f32")
    t.check("l2_normalize([0.0, 0.0], 1e-12)", np.zeros(2), "f32")
    t.check("numel(u)", 6.0, "f32")
    t.check("size(u)", 6, "i32")
    t.check("size([[[1], [2]]])", 2, "i32")
    t.check('cast(u, "int32")', np.trunc(x).astype(np.int32), "i32")
    t.check('typeof(cast(u, "float64"))', "[f64; 2, 3]", "str")
    t.check("typeof(cast(u, 11))", "[f64; 2, 3]", "str")
    t.check('cast([0, 2, -1], "bool")', np.array([False, True, True]), "bool")
    t.check("cast([true, false], 1)", np.array([1.0, 0.0], dtype=np.float32), "f32")
    t.check('cast(2.75, "int64")', 2, "i64")
    for i, (shape, kind) in enumerate([((6,), "i32"), ((3, 4), "f64"), ((2, 3, 4), "f32")]):
        v = t.let(f"sl{i}", ints(2460 + i, shape) if kind[0] == "i" else decimals(2460 + i, shape), kind)
        r = len(shape)
        cases = [([1], [4], [0], [1]), ([-2], [100], [r - 1], []), ([-1], [-100], [0], [-1]),
                 ([0, 1], [2, -1], [], [1, 2] if r >= 2 else []), ([5], [0], [r - 1], [-2])]
        for starts, ends, axes, steps in cases:
            if len(starts) > r or (steps and len(steps) != len(starts)):
                continue
            ref = slice_ref(v, starts, ends, axes, steps)
            fmt = lambda l: "[" + ", ".join(map(str, l)) + "]"  # noqa: E731
            t.check(f"slice(sl{i}, {fmt(starts)}, {fmt(ends)}, {fmt(axes)}, {fmt(steps)})", ref, kind)
    q = t.let("qx", np.array([-3.0, 0.0, 0.49, 0.5, 1.5, 2.5, 254.6, 400.0, -1.25]), "f32")
    t.check("quantize_linear(qx, 1.0, 0)", np.clip(np.round(q), 0, 255).astype(np.int32), "i32")
    t.raw("let zp8: i8 = 3;")
    t.check("quantize_linear(qx, 0.5, zp8)", np.clip(np.round(q / 0.5) + 3, -128, 127).astype(np.int32), "i32")
    t.check("quantize_linear(qx, 2.0, 128)", np.clip(np.round(q / 2.0) + 128, 0, 255).astype(np.int32), "i32")
    qi = t.let("qi", np.array([0, 3, 128, 255]), "i32")
    t.check("dequantize_linear(qi, 0.5, 128)", ((qi - 128) * 0.5).astype(np.float32), "f32")
    A = t.let("QA", ints(2470, (2, 3), -8, 9), "i32")
    B = t.let("QB", ints(2471, (3, 2), -8, 9), "i32")
    t.check("qmatmul(QA, 0.5, QB, 0.25)", ((A * 0.5) @ (B * 0.25)).astype(np.float32), "f32")
    W = t.let("QW", ints(2472, (4, 3), -8, 9), "i32")
    bias = t.let("Qb", quarters(2473, (4,)), "f32")
    t.check("qlinear(QA, 0.5, QW, 0.25, Qb)", ((A * 0.5) @ (W * 0.25).T + bias).astype(np.float32), "f32")
    for i, (shape, kind) in enumerate([((5,), "f32"), ((2, 3), "f64"), ((2, 2, 3), "i32")]):
        v = t.let(f"cs{i}", ints(2480 + i, shape) if kind[0] == "i" else decimals(2480 + i, shape), kind)
        t.check(f"cumsum(cs{i})", np.cumsum(v, axis=-1), kind)
    # einsum with a run-time equation
    A = t.let("EA", decimals(2490, (2, 3)), "f64")
    B = t.let("EB", decimals(2491, (3, 4)), "f64")
    C = t.let("EC", decimals(2492, (3, 3)), "f64")
    D = t.let("ED", decimals(2493, (2, 2, 3)), "f64")
    for eq, ops, names in [("ij,jk->ik", (A, B), "(EA, EB)"), ("ij,jk", (A, B), "(EA, EB)"),
                           ("ii->i", (C,), "EC"), ("ii", (C,), "EC"), ("ij->ji", (A,), "EA"),
                           ("bij,jk->bik", (D, C), "(ED, EC)"), ("...j,jk->...k", (D, C), "(ED, EC)"),
                           ("ij,ij->", (A, A), "[EA, EA]"), ("i,j->ij", (A[0], B[0]), "(EA[0], EB[0])"),
                           ("ijk->kji", (D,), "ED")]:
        t.check(f'einsum("{eq}", {names})', np.einsum(eq, *ops), "f64")
    t.check('einsum("ij,jk->ik", ([[1, 2]], [[3], [4]]))', np.array([[11]]), "i32")
    t.write()
    t = TestFile("ml/errors/einsum_extent.ein", "std::ml einsum with operands whose extents "
                 "disagree is E004", uses=["std::ml::einsum"])
    t.raw('print(einsum("ij,jk->ik", ([[1.0, 2.0]], [[1.0, 2.0]])));')
    t.expect_error("E004")
    t.write()
    t = TestFile("ml/errors/cast_type.ein", "std::ml cast to an unknown type name is E006",
                 uses=["std::ml::cast"])
    t.raw('print(cast([1.0], "complex128"));')
    t.expect_error("E006")
    t.write()


# ---- resize (ONNX reference: taps are the n positions nearest the source coordinate) -----------

def interp_1d(data, scale, out_n, mode, asym):
    n = len(data)
    taps = {"nearest": 2, "linear": 2, "cubic": 4}[mode]
    pad = int(np.ceil(taps / 2))
    padded = np.pad(data, [(pad, pad)] + [(0, 0)] * (data.ndim - 1), mode="edge")
    out = []
    for i in range(out_n):
        x = i / scale if asym else (i + 0.5) / scale - 0.5
        fl = np.floor(x)
        ratio = 1.0 if x == fl else x - fl
        if mode == "nearest":
            if asym:
                out.append(data[int(min(max(fl, 0), n - 1))])
                continue
            coeffs = [0.0, 1.0] if x == fl else ([1.0, 0.0] if ratio <= 0.5 else [0.0, 1.0])
        elif mode == "linear":
            coeffs = [1 - ratio, ratio]
        else:
            A = -0.75
            r = ratio
            coeffs = [((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A,
                      ((A + 2) * r - (A + 3)) * r * r + 1,
                      ((A + 2) * (1 - r) - (A + 3)) * (1 - r) * (1 - r) + 1,
                      ((A * ((1 - r) + 1) - 5 * A) * ((1 - r) + 1) + 8 * A) * ((1 - r) + 1) - 4 * A]
        xp = x + pad
        idx = sorted(sorted(range(len(padded)), key=lambda j: (abs(xp - j), j))[:taps])
        out.append(sum(c * padded[j] for c, j in zip(coeffs, idx)))
    return np.array(out)


def resize_ref(X, scales, mode, asym):
    Y = X
    for a, s in enumerate(scales):
        if s == 1:
            continue
        out_n = int(np.floor(Y.shape[a] * s))
        Y = np.moveaxis(interp_1d(np.moveaxis(Y, a, 0), s, out_n, mode, asym), 0, a)
    return Y


def resize_file():
    t = TestFile("ml/resize.ein", "std::ml resize (half_pixel; nearest, linear, cubic) and "
                 "upsample (asymmetric) of 1-D to 4-D arrays", uses=["std::ml::*"])
    for i, (shape, scales, kind) in enumerate([((4,), [2.0], "f64"), ((1, 1, 2, 3), [1.0, 1.0, 2.0, 2.0], "f32"),
                                               ((1, 2, 3, 4), [2.0, 1.5], "f64"), ((5, 4), [0.6, 1.75], "f64"),
                                               ((2, 3, 2), [1.0, 3.0, 0.5], "f32")]):
        x = t.let(f"x{i}", decimals(2500 + i, shape), kind)
        full = scales if len(scales) == len(shape) else [1.0, 1.0] + scales
        for mode in ("nearest", "linear", "cubic"):
            t.check(f'resize(x{i}, {scales}, "{mode}")', resize_ref(f64(x), full, mode, False).astype(x.dtype), kind)
        for mode in ("nearest", "linear"):
            t.check(f'upsample(x{i}, {scales}, "{mode}")', resize_ref(f64(x), full, mode, True).astype(x.dtype), kind)
    t.check('upsample([[1, 2]], [2.0, 3.0], "nearest")', np.repeat(np.repeat([[1, 2]], 2, 0), 3, 1), "i32")
    t.write()
    t = TestFile("ml/errors/resize_mode.ein", "std::ml resize with an unknown mode is E006",
                 uses=["std::ml::resize"])
    t.raw('print(resize([1.0, 2.0], [2.0], "area"));')
    t.expect_error("E006")
    t.write()


def helpers_file():
    t = TestFile("ml/broadcast.ein", "std::ml::broadcast, the helpers of the operators: "
                 "broadcasting, flat views, axis and pads arguments", uses=["std::ml::broadcast::*"])
    for i, (sa, sb) in enumerate(BCAST):
        a = t.let(f"a{i}", arr(2600 + i, sa, "f32"), "f32")
        b = t.let(f"b{i}", arr(2610 + i, sb, "f32"), "f32")
        A, B = np.broadcast_arrays(a, b)
        t.check(f"broadcast_pair(a{i}, b{i})", (A, B), ("f32", "f32"))
        if np.broadcast_shapes(a.shape, b.shape) == b.shape:
            t.check(f"broadcast_like(a{i}, b{i})", A, "f32")
    t.check("lift([1, 2])", np.array([[1, 2]]), "i32")
    t.check("lift(3)", np.array([3]), "i32")
    t.check("common_shape([2, 1, 3], [1, 4, 3])", np.array([2, 4, 3]), "i32")
    t.check("stretch([[1], [2]], [2, 3])", np.array([[1, 1, 1], [2, 2, 2]]), "i32")
    t.check("shape_of([[1.0, 2.0]])", np.array([1, 2]), "i32")
    t.check("strides_of([2, 3, 4])", np.array([12, 4, 1]), "i32")
    t.check("strides_of([5])", np.array([1]), "i32")
    f = np.arange(24)
    t.raw("let f24 = [" + ", ".join(map(str, f)) + "];")
    t.raw("let like: [i32; 2, 3, 4] = [[[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]], [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]];")
    t.check("unflatten_like(f24, like)", f.reshape(2, 3, 4), "i32")
    t.check("unflatten(f24, [4, 3, 2], like)", f.reshape(4, 3, 2), "i32")
    t.check("rows_of(f24, 5, 3)", f[5:8], "i32")
    t.check("take_strided(like, [1, 2, 3], [-1, -1, -2], [2, 2, 2])",
            np.zeros((2, 2, 2), dtype=int), "i32")
    m = np.arange(12).reshape(3, 4)
    t.raw("let m12 = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]];")
    t.check("take_strided(m12, [2, 0], [-1, 2], [3, 2])", m[2::-1, 0::2], "i32")
    for a in range(3):
        v = f.reshape(2, 3, 4).reshape(int(np.prod((2, 3, 4)[:a])), (2, 3, 4)[a], -1)
        t.check(f"around_axis(unflatten_like(f24, like), {a})", v, "i32")
        t.raw(f"let v{a} = around_axis(unflatten_like(f24, like), {a});")
        t.check(f"from_axis_view(v{a}, like, {a})", f.reshape(2, 3, 4), "i32")
        t.raw(f"let w{a}[o, i] = v{a}[o, 0, i];")
        t.check(f"without_axis(w{a}, like, {a})", np.take(f.reshape(2, 3, 4), 0, a), "i32")
    t.check("lift_to([1, 2], like)", np.array([[[1, 2]]]), "i32")
    t.check("norm_axis(-1, 3)", 2, "i32")
    t.check("norm_axis(1, 3)", 1, "i32")
    t.check("side_pads([1, 2], 2)", np.array([1, 2, 1, 2]), "i32")
    t.check("side_pads([1, 2, 3, 4], 2)", np.array([1, 2, 3, 4]), "i32")
    t.check("side_pads([], 3)", np.zeros(6, dtype=int), "i32")
    t.check("per_axis([], 2)", np.array([1, 1]), "i32")
    t.check("per_axis([2, 3], 2)", np.array([2, 3]), "i32")
    c = t.let("sel_c", np.array([True, False, True]), "bool")
    t.check("std::ml::select(sel_c, [1, 2, 3], [4, 5, 6])", np.array([1, 5, 3]), "i32")
    cp = t.let("cp", decimals(2620, (2, 4), 0.5, 1.5), "f64")
    t.check("std::ml::cumprod(cp)", np.cumprod(cp, axis=-1), "f64")
    t.write()
    t = TestFile("ml/errors/broadcast_shapes.ein", "std::ml add of shapes that do not broadcast "
                 "is E004 at the call", uses=["std::ml::add"])
    t.raw("print(add([[1.0, 2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]));")
    t.expect_error("E004")
    t.write()


def generate():
    helpers_file()
    elementwise_file()
    reduction_file()
    selection_file()
    transform_file()
    utility_file()
    resize_file()
