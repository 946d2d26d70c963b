"""Classes of calls found by the outside-programs hunts (session 15) that gave wrong values or
refusals, against NumPy / the ONNX reference formulas. Files under cases/outside/, each run with
EIN_JIT=never and always.

- literal float attributes (resize scales, a conv bias, an LSTM clip) in an f64 program are f64
  literals: the library converts them with `__convert`, which now types a literal by the
  argument it converts to instead of letting it default to f32 first;
- integer attributes held in i64 (ONNX's INT64_MAX / INT64_MIN "to the end" in Slice) are
  saturated to i32, not wrapped (INT64_MAX was -1);
- indices of the element-wise indexing operators are checked against their own axis (an index
  past the end of a row read or wrote the next row), and may be i64 (NumPy's default int);
- shapes, counts and axes given as i64 (ONNX's shape tensors and attributes, NumPy's default
  int) in tile, expand, topk, depth_to_space / space_to_depth and every axis parameter (were
  E002: i32 * i64);
- std::math's two-operand functions (min, max, pow, fmod, mod, atan2; ONNX Min, Max, Pow,
  Mod through std::ml) broadcast operands of different ranks (were E004), gradients included;
- losses with i64 class labels: values, and gradients (were E002 from the tape);
- the quantize -> dequantize round trip with an i8 zero point (was E002: i32 - i8), and ONNX's
  per-axis form (a vector scale and zero point along axis 1; was E004).
"""
import numpy as np

from common import TestFile, decimals
from gen_ml import conv_ref, f64
from gen_ml_nn import lstm_ref
from gen_ml_onnx import resize_ref, slice_ref

I64_MAX = 2 ** 63 - 1
I64_MIN = -2 ** 63

MODES = "//$ EIN_JIT=never|always"


def error_file(rel, purpose, lines, code):
    """A file whose last statement must fail with `code`, in both JIT modes."""
    t = TestFile(rel, purpose, uses=["std::ml::*"])
    t.raw(MODES, *lines)
    t.expect_error(code)
    t.write()


def literal_attributes_file():
    t = TestFile("outside/literal_attributes.ein", "literal float attributes of library calls in "
                 "an f64 program are f64 literals (resize extents and weights, conv bias, LSTM clip)",
                 uses=["std::ml::*"])
    t.raw(MODES)
    x = t.let("x", np.arange(10.0).reshape(1, 1, 1, 10), "f64")
    # floor(10 * 0.7) = 7 points; the f32 0.7 widened gives 6.
    t.check('shape(resize(x, [1.0, 1.0, 1.0, 0.7], "nearest"))', [1, 1, 1, 7], "i32")
    t.check('resize(x, [1.0, 1.0, 1.0, 0.7], "linear")', resize_ref(x, [1.0, 1.0, 1.0, 0.7], "linear", False), "f64")
    t.check('upsample(x, [1.0, 1.0, 1.0, 0.7], "linear")', resize_ref(x, [1.0, 1.0, 1.0, 0.7], "linear", True), "f64")
    # The golden runner compares with a relative tolerance of 1e-5: the f32 0.3 shows only when
    # the difference from the f64 result is scaled up.
    s = t.let("s", decimals(5100, (1, 2, 6)), "f64")
    w = t.let("w", decimals(5101, (3, 2, 2)), "f64")
    y = conv_ref(s, w, np.array([0.3, -0.1, 0.7]), [1], [0, 0], [1], 1)
    t.raw("let y = conv(s, w, [0.3, -0.1, 0.7], [], [], [], 1);")
    t.check("y", y, "f64")
    t.raw("let b: [f64; 3] = [0.3, -0.1, 0.7];")
    t.check("multiply(subtract(y, conv(s, w, b, [], [], [], 1)), 1e12)", np.zeros_like(y), "f64")
    T, N, I, H = 3, 1, 2, 2
    X = t.let("X", decimals(5102, (T, N, I)), "f64")
    W = t.let("W", decimals(5103, (4 * H, I), -3, 3), "f64")
    R = t.let("R", decimals(5104, (4 * H, H), -3, 3), "f64")
    B = t.let("B", decimals(5105, (8 * H,)), "f64")
    h0 = np.zeros((N, H))
    t.raw('let Y = lstm(X, W, R, B, [], [], 2, "forward", 0.7);')
    t.check("Y", lstm_ref(X, W, R, B, h0, h0, 0.7), "f64")
    t.raw("let clip: f64 = 0.7;")
    t.check('multiply(subtract(Y, lstm(X, W, R, B, [], [], 2, "forward", clip)), 1e12)',
            np.zeros((T, N, H)), "f64")
    t.write()


def i64_attributes_file():
    t = TestFile("outside/i64_attributes.ein", "integer attributes given as i64, with ONNX's "
                 "INT64_MAX / INT64_MIN sentinels (slice to the end, backwards to the start)",
                 uses=["std::ml::*"])
    t.raw(MODES)
    x = t.let("x", decimals(5200, (2, 3, 4, 6)), "f64")
    t.raw(f"let ends: [i64; 2] = [{I64_MAX}, {I64_MIN}];", "let starts: [i64; 2] = [0, -1];",
          "let axes: [i64; 2] = [3, 2];", "let steps: [i64; 2] = [1, -1];")
    t.check("slice(x, starts, ends, axes, steps)", slice_ref(x, [0, -1], [I64_MAX, I64_MIN], [3, 2], [1, -1]), "f64")
    t.raw(f"let from1: [i64; 1] = [1];", f"let big: [i64; 1] = [{I64_MAX}];", "let ax: [i64; 1] = [-1];")
    t.check("slice(x, from1, big, ax, [])", slice_ref(x, [1], [I64_MAX], [-1], []), "f64")
    t.raw(f"let b: [i64; 4] = [{I64_MAX}, {I64_MIN}, -7, 2147483648];")
    for k, v in enumerate([I64_MAX, I64_MIN, -7, 2 ** 31]):
        t.check(f"std::ml::broadcast::attr_i32(b[{k}])", max(min(v, 2 ** 31 - 1), -2 ** 31), "i32")
    t.write()
    error_file("outside/errors/i64_axis.ein", "an i64 axis of 2^32 is out of range (E004), not "
               "axis 0 after wrapping", ["let m: [f64; 1, 2] = [[1.0, 2.0]];", "let ax: [i64; 1] = [4294967296];",
                                         "print(squeeze(m, ax));"], "E004")


def indexing_file():
    t = TestFile("outside/indices.ein", "gather / scatter with i64 indices (NumPy's default "
                 "int), negative ones included", uses=["std::ml::*"])
    t.raw(MODES)
    d = t.let("d", decimals(5300, (3, 4)), "f64")
    i = t.let("i", [-1, 0, 2], "i64")
    t.check("gather(d, i, 1)", np.take(d, i, axis=1), "f64")
    t.check("gather(d, i, -2)", np.take(d, i, axis=0), "f64")
    t.raw("let s: i64 = -2;")
    t.check("gather(d, s, 1)", d[:, -2], "f64")
    e = t.let("e", [[-4, 3], [1, -1]], "i64")
    t.check("gather_elements(d, e, 1)", np.take_along_axis(d[:2], e % 4, 1), "f64")
    u = t.let("u", decimals(5301, (2, 2)), "f64")
    sc = d.copy()
    for r in range(2):
        for c in range(2):
            sc[r, e[r, c] % 4] = u[r, c]
    t.check("scatter_elements(d, e, u, -1)", sc, "f64")
    nd = t.let("nd", [[-1, -4], [0, 3]], "i64")
    t.check("gather_nd(d, nd)", np.array([d[-1, -4], d[0, 3]]), "f64")
    v = t.let("v", [9.5, -9.5], "f64")
    snd = d.copy()
    snd[-1, -4], snd[0, 3] = v
    t.check("scatter_nd(d, nd, v)", snd, "f64")
    t.raw("let depth: i32 = 4;")
    t.check("onehot(i, depth, [0.0, 1.0])", np.eye(4)[i % 4], "f64")
    t.raw(f"let far: [i64; 2] = [{2 ** 32}, 1];")
    t.check("onehot(far, depth, [0.0, 1.0])", np.array([[0.0] * 4, np.eye(4)[1]]), "f64")
    t.write()
    # An index past its axis used to read or write the next row (a flat position in range).
    for name, call in [("gather_elements", "gather_elements(d, ix, 1)"),
                       ("scatter_elements", "scatter_elements(d, ix, u, 1)"),
                       ("gather_nd", "gather_nd(d, ix)"), ("scatter_nd", "scatter_nd(d, ix, [1.0, 2.0])"),
                       ("gather_i64", "gather(d, big, 0)")]:
        error_file(f"outside/errors/{name}_past_axis.ein", f"std::ml {name.split('_i64')[0]} "
                   "with an index past its axis is E005",
                   ["let d: [f64; 3, 2] = [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]];",
                    "let ix: [i32; 2, 2] = [[0, 2], [1, 0]];",
                    "let u: [f64; 2, 2] = [[7.0, 8.0], [9.0, 10.0]];", f"let big: [i64; 1] = [{2 ** 32}];",
                    f"print({call});"], "E005")


def i64_shapes_file():
    t = TestFile("outside/i64_shapes.ein", "shapes, counts and axes given as i64 scalars and "
                 "arrays", uses=["std::ml::*"])
    t.raw(MODES)
    x = t.let("x", decimals(5400, (2, 6)), "f64")
    t.raw("let ax: i64 = -1;", "let k: i64 = 2;", "let two: i64 = 2;", "let reps: [i64; 2] = [2, 1];",
          "let es: [i64; 3] = [2, 2, 6];", "let sh: [i64; 3] = [3, -1, 2];", "let sz: [i64; 2] = [2, 4];")
    t.check("reshape(x, sh)", x.reshape(3, -1, 2), "f64")
    t.check("tile(x, reps)", np.tile(x, (2, 1)), "f64")
    t.check("tile(x, two)", np.tile(x, (2, 1)), "f64")
    t.check("expand(x, es)", np.broadcast_to(x, (2, 2, 6)), "f64")
    t.check("expand(x, two)", np.broadcast_to(x, (2, 2, 6)), "f64")
    t.check("split(x, sz, 1).1", x[:, 2:], "f64")
    order = np.argsort(-x, axis=-1, kind="stable")[:, :2]
    t.check("topk(x, k, ax)", (np.take_along_axis(x, order, -1), order), ("f64", "i32"))
    e = np.exp(x - x.max(-1, keepdims=True))
    t.check("softmax_axis(x, ax)", e / e.sum(-1, keepdims=True), "f64")
    t.check("log_softmax_axis(x, ax)", np.log(e / e.sum(-1, keepdims=True)), "f64")
    t.check("std::array::sum_axis(x, ax)", x.sum(-1), "f64")
    t.check("std::array::concatenate_axis(x, x, ax)", np.concatenate([x, x], -1), "f64")
    t.check("gather(x, [0, -1], ax)", x[:, [0, -1]], "f64")
    t.check("unsqueeze(x, ax)", x[..., None], "f64")
    t.check("lp_normalization(x, ax, 1)", x / np.abs(x).sum(-1, keepdims=True), "f64")
    m = x.mean(-1, keepdims=True)
    v = x.var(-1, keepdims=True)
    t.check("layer_normalization(x, x[0], x[1], 1e-5, ax)", (x - m) / np.sqrt(v + 1e-5) * x[0] + x[1], "f64")
    y = x.reshape(1, 4, 1, 3)
    t.raw("let y = reshape(x, [1, 4, 1, 3]);")
    d2s = y.reshape(1, 2, 2, 1, 1, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 1, 2, 6)
    t.check("depth_to_space(y, two)", d2s, "f64")
    t.check("space_to_depth(depth_to_space(y, two), two)", y, "f64")
    t.write()


def math_broadcast_file():
    t = TestFile("outside/math_broadcast.ein", "std::math / std::ml two-operand functions with "
                 "operands of different ranks (NumPy broadcasting), values and gradients",
                 uses=["std::ml::*"])
    t.raw(MODES)
    x = t.let("x", decimals(5500, (2, 3, 4), -3, 3), "f64")
    c = t.let("c", decimals(5501, (4,), 0.5, 2), "f64")
    r = t.let("r", decimals(5502, (3, 1), -2, 2), "f64")
    w = t.let("w", decimals(5503, (2, 3, 4)), "f64")
    t.check("min(x, c)", np.minimum(x, c), "f64")
    t.check("max(r, x)", np.maximum(r, x), "f64")
    t.check("std::math::min(c, x)", np.minimum(c, x), "f64")
    t.check("power(c, x)", np.power(c, x), "f64")
    t.check("fmod(x, c)", np.fmod(x, c), "f64")
    t.check("mod(x, r)", np.mod(x, r), "f64")
    t.check("atan2(x, c)", np.arctan2(x, c), "f64")
    t.check("std::math::atan2(r, x)", np.arctan2(r, x), "f64")
    t.raw("let m = min(x, c);", "let L = sum[i, j, k](m[i, j, k] * w[i, j, k]);")
    t.check("@L / @c", (w * (c < x)).sum((0, 1)), "f64")
    t.check("@L / @x", w * (x < c), "f64")
    t.raw("let p = power(c, x);", "let L2 = sum[i, j, k](p[i, j, k] * w[i, j, k]);")
    t.check("@L2 / @c", (w * x * c ** (x - 1)).sum((0, 1)), "f64")
    t.write()


def i64_labels_file():
    t = TestFile("outside/i64_labels.ein", "a training step with i64 class labels: "
                 "cross-entropy losses and their gradients", uses=["std::ml::*"])
    t.raw(MODES)
    z = t.let("z", decimals(5600, (5, 4)), "f64")
    y = t.let("y", [3, 0, 1, 3, 2], "i64")
    W = t.let("W", decimals(5601, (4, 4)), "f64")
    b = t.let("b", decimals(5602, (4,)), "f64")
    lg = z @ W.T + b
    ls = lg - lg.max(1, keepdims=True)
    ls = ls - np.log(np.exp(ls).sum(1, keepdims=True))
    p = np.exp(ls)
    rows = np.arange(5)
    t.raw("let lg = linear(z, W, b);", "let loss = softmax_cross_entropy_loss(lg, y);")
    t.check("loss", -ls[rows, y].mean(), "f64")
    t.check("nll_loss(log_softmax(lg), y)", -ls[rows, y].mean(), "f64")
    t.check("cross_entropy_loss(softmax(lg), y)", -np.log(p[rows, y]).mean(), "f64")
    g = p.copy()
    g[rows, y] -= 1
    g /= 5
    t.check("@loss / @W", g.T @ z, "f64")
    t.check("@loss / @b", g.sum(0), "f64")
    t.raw("let one: i64 = 2;", "let l1 = softmax_cross_entropy_loss(lg[0], one);")
    t.check("l1", -ls[0, 2], "f64")
    g1 = p[0].copy()
    g1[2] -= 1
    t.check("@l1 / @b", g1, "f64")
    t.raw("let l2 = nll_loss(log_softmax(lg), y);")
    t.check("@l2 / @b", g.sum(0), "f64")
    t.write()


def quantize_file():
    t = TestFile("outside/quantize_round_trip.ein", "quantize_linear then dequantize_linear with "
                 "the same i8 or u8-range zero point (ties to even, saturation)", uses=["std::ml::*"])
    t.raw(MODES)
    x = t.let("x", [[0.0, 0.25, 0.75, -0.25, 63.75, 70.0], [-0.75, -1.25, 1.25, 2.5, -40.0, 0.125]], "f32")
    t.raw("let s: f32 = 0.5;", "let zi: i8 = -3;", "let zu: i32 = 128;")
    for z, lo, hi in [("zi", -128, 127), ("zu", 0, 255)]:
        zv = -3 if z == "zi" else 128
        q = np.clip(np.rint(x / np.float32(0.5)) + zv, lo, hi)
        t.check(f"quantize_linear(x, s, {z})", q, "i32")
        t.check(f"dequantize_linear(quantize_linear(x, s, {z}), s, {z})",
                ((q - zv) * np.float32(0.5)).astype(np.float32), "f32")
    # Per-axis: one scale (and zero point) per channel of an NCHW tensor, ONNX's axis 1.
    X = t.let("X", decimals(5700, (2, 3, 2, 2), -4, 4), "f32")
    sc = t.let("sc", [0.5, 0.25, 0.125], "f32")
    zc = t.let("zc", [-3, 0, 5], "i8")
    c = (slice(None), None, None)
    qX = np.clip(np.rint(X / sc[c]) + zc[c].astype(np.int32), -128, 127)
    t.check("quantize_linear(X, sc, zc)", qX, "i32")
    t.check("dequantize_linear(quantize_linear(X, sc, zc), sc, zc)", ((qX - zc[c]) * sc[c]).astype(np.float32), "f32")
    qU = np.clip(np.rint(X / sc[c]) + 128, 0, 255)
    t.check("quantize_linear(X, sc, zu)", qU, "i32")
    t.write()
    error_file("outside/errors/per_axis_length.ein", "a per-axis scale whose length is not the "
               "extent of axis 1 is E004", ["let x: [f32; 2, 3] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];",
                                            "let s: [f32; 2] = [0.5, 0.25];", "let z: i32 = 0;",
                                            "print(quantize_linear(x, s, z));"], "E004")


def generate():
    literal_attributes_file()
    i64_attributes_file()
    indexing_file()
    quantize_file()
    i64_shapes_file()
    math_broadcast_file()
    i64_labels_file()
