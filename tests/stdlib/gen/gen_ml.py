"""std::ml tests, part 1: activations, layers, convolutions, pooling, normalisation,
attention and recurrent layers, against NumPy re-statements of the ONNX / PyTorch formulas.

f32 cases use multiples of 1/4 wherever a result is a sum of products, so that f32 arithmetic
is exact and the golden tolerance (1e-5 relative) cannot be eaten by cancellation."""
import itertools
import math

import numpy as np

from common import TestFile, decimals

erf = np.vectorize(math.erf, otypes=[np.float64])


def quarters(seed, shape, lo=-2, hi=2):
    return np.round(np.random.default_rng(seed).uniform(lo, hi, size=shape) * 4) / 4


def f64(x):
    return np.asarray(x, dtype=np.float64)


# ---- activations --------------------------------------------------------------------------------

def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def softplus(x):
    return np.logaddexp(0, x)


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def log_softmax(x):
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


SELU_ALPHA, SELU_GAMMA = 1.6732632423543772, 1.0507009873554805

ELEMENTWISE = [
    ("relu", lambda x: np.maximum(x, 0)),
    ("sigmoid", sigmoid),
    ("selu", lambda x: SELU_GAMMA * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    ("gelu", lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2)))),
    ("gelu_tanh", lambda x: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    ("swish", lambda x: x * sigmoid(x)),
    ("silu", lambda x: x * sigmoid(x)),
    ("softplus", softplus),
    ("log_sigmoid", lambda x: -softplus(-x)),
    ("softsign", lambda x: x / (1 + np.abs(x))),
    ("tanhshrink", lambda x: x - np.tanh(x)),
    ("relu6", lambda x: np.clip(x, 0, 6)),
    ("mish", lambda x: x * np.tanh(softplus(x))),
    ("hardsigmoid", lambda x: np.clip(0.2 * x + 0.5, 0, 1)),
    ("hardswish", lambda x: x * np.clip(x / 6 + 0.5, 0, 1)),
]

WITH_PARAM = [
    ("leaky_relu", lambda x, a: np.where(x >= 0, x, a * x), 0.1),
    ("elu", lambda x, a: np.where(x > 0, x, a * np.expm1(x)), 0.5),
    ("celu", lambda x, a: np.maximum(x, 0) + np.minimum(0, a * np.expm1(x / a)), 2.0),
    ("thresholded_relu", lambda x, a: np.where(x > a, x, 0.0), 0.5),
    ("prelu", lambda x, a: np.where(x >= 0, x, a * x), 0.25),
    ("elu_alpha", lambda x, a: np.where(x > 0, x, a * np.expm1(x)), 0.5),
    ("softshrink", lambda x, a: np.where(x > a, x - a, np.where(x < -a, x + a, 0.0)), 0.5),
    ("hardshrink", lambda x, a: np.where((x > a) | (x < -a), x, 0.0), 0.5),
]

WITH_TWO = [
    ("hardtanh", lambda x, a, b: np.clip(x, a, b), -1.0, 1.0),
    ("hardtanh", lambda x, a, b: np.clip(x, a, b), -0.5, 2.0),
    ("threshold", lambda x, a, b: np.where(x > a, x, b), 0.5, -2.0),
]

SHAPES = [((), "f32"), ((5,), "f32"), ((2, 3), "f64"), ((2, 2, 2), "f32"), ((7,), "f64")]


def activations_file():
    t = TestFile("ml/activations.ein", "std::ml activations on scalars and arrays of rank 1-3, "
                 "f32 and f64", uses=["std::ml::*"])
    seed = 100
    for name, ref in ELEMENTWISE:
        t.raw("", f"// {name}")
        for shape, kind in SHAPES:
            seed += 1
            x = decimals(seed, shape, -7 if shape == (7,) else -3, 7 if shape == (7,) else 3)
            v = t.let(f"{name}_{len(shape)}{kind}", x, kind)
            t.check(f"{name}({name}_{len(shape)}{kind})", ref(f64(v)).astype(v.dtype), kind)
    for name, ref, a in WITH_PARAM:
        t.raw("", f"// {name}: a literal parameter with f32 data, a typed one with f64 data")
        for shape, kind in SHAPES:
            seed += 1
            v = t.let(f"{name}_{len(shape)}{kind}", decimals(seed, shape, -3, 3), kind)
            if kind == "f32":
                t.check(f"{name}({name}_{len(shape)}{kind}, {a})",
                        ref(f64(v), float(np.float32(a))).astype(np.float32), kind)
            else:
                t.raw(f"let {name}_p{len(shape)}: f64 = {a};")
                t.check(f"{name}({name}_{len(shape)}{kind}, {name}_p{len(shape)})", ref(v, a), kind)
    for name, ref, a, b in WITH_TWO:
        t.raw("", f"// {name} with ({a}, {b})")
        for shape, kind in SHAPES:
            seed += 1
            v = t.let(f"{name}_{len(shape)}{kind}_{seed}", decimals(seed, shape, -3, 3), kind)
            if kind == "f32":
                t.check(f"{name}({name}_{len(shape)}{kind}_{seed}, {a}, {b})",
                        ref(f64(v), a, b).astype(np.float32), kind)
            else:
                t.raw(f"let {name}_a{seed}: f64 = {a};", f"let {name}_b{seed}: f64 = {b};")
                t.check(f"{name}({name}_{len(shape)}{kind}_{seed}, {name}_a{seed}, {name}_b{seed})",
                        ref(v, a, b), kind)
    v = t.let("pr_x", decimals(7, (2, 3), -3, 3), "f64")
    s = t.let("pr_s", decimals(8, (2, 3), 0, 1), "f64")
    t.check("prelu(pr_x, pr_s)", np.where(v >= 0, v, s * v), "f64")
    # PRelu's slope broadcasts (NumPy rules): one per channel of [N, C, H, W] as [C, 1, 1]
    xb = t.let("pr_b", decimals(9, (2, 3, 2, 2), -3, 3), "f64")
    sb = t.let("pr_c", decimals(10, (3, 1, 1), 0, 1), "f64")
    t.check("prelu(pr_b, pr_c)", np.where(xb >= 0, xb, sb * xb), "f64")
    sr = t.let("pr_r", decimals(11, (2,), 0, 1), "f64")
    t.check("prelu(pr_b, pr_r)", np.where(xb >= 0, xb, sr * xb), "f64")
    t.raw("", "// softmax and log_softmax: the last axis, ranks 1-3")
    for i, (shape, kind) in enumerate([((5,), "f32"), ((2, 3), "f64"), ((2, 2, 3), "f32"),
                                       ((1, 4), "f64")]):
        v = t.let(f"sm{i}", decimals(200 + i, shape, -4, 4), kind)
        t.check(f"softmax(sm{i})", softmax(f64(v)).astype(v.dtype), kind)
        t.check(f"log_softmax(sm{i})", log_softmax(f64(v)).astype(v.dtype), kind)
    for i, (shape, kind) in enumerate([((4,), "f64"), ((2, 3), "f32"), ((2, 3, 2), "f64")]):
        v = t.let(f"sa{i}", decimals(210 + i, shape, -4, 4), kind)
        for ax in range(-len(shape), len(shape)):
            x = f64(v)
            e = np.exp(x - x.max(axis=ax, keepdims=True))
            t.check(f"softmax_axis(sa{i}, {ax})", (e / e.sum(axis=ax, keepdims=True)).astype(v.dtype),
                    kind)
            ls = x - x.max(axis=ax, keepdims=True)
            ls = ls - np.log(np.exp(ls).sum(axis=ax, keepdims=True))
            t.check(f"log_softmax_axis(sa{i}, {ax})", ls.astype(v.dtype), kind)
    t.raw("let big = [1000.0, 1001.0, 999.0];")
    t.check("softmax(big)", softmax(np.array([1000.0, 1001.0, 999.0])).astype(np.float32), "f32")
    t.check("log_softmax(big)", log_softmax(np.array([1000.0, 1001.0, 999.0])).astype(np.float32),
            "f32")
    t.check("softplus(100.0)", 100.0, "f32")
    t.check("sigmoid(-100.0)", sigmoid(-100.0), "f32")
    t.check("relu([1, -2, 3])", np.array([1, 0, 3]), "i32")
    t.write()


# ---- layers and convolutions --------------------------------------------------------------------

def full_pads(pads, nsp):
    """ONNX pads per side from the three accepted forms (per side, per axis, empty)."""
    if len(pads) == 0:
        return [0] * (2 * nsp)
    if len(pads) == nsp:
        return list(pads) * 2
    return list(pads)


def conv_ref(X, W, B, strides, pads, dil, group):
    """ONNX Conv on N-D inputs, as a gather over the zero-padded input."""
    N, C = X.shape[:2]
    sp = X.shape[2:]
    nsp = len(sp)
    M, CG = W.shape[:2]
    ks = W.shape[2:]
    strides = strides or [1] * nsp
    dil = dil or [1] * nsp
    p = full_pads(pads, nsp)
    Xp = np.zeros((N, C) + tuple(sp[a] + p[a] + p[a + nsp] for a in range(nsp)))
    Xp[(slice(None), slice(None)) + tuple(slice(p[a], p[a] + sp[a]) for a in range(nsp))] = X
    out = [(sp[a] + p[a] + p[a + nsp] - dil[a] * (ks[a] - 1) - 1) // strides[a] + 1 for a in range(nsp)]
    Y = np.zeros((N, M) + tuple(out))
    MG = M // group
    for m in range(M):
        g = m // MG
        for o in itertools.product(*(range(n) for n in out)):
            idx = [o[a] * strides[a] + dil[a] * np.arange(ks[a]) for a in range(nsp)]
            patch = Xp[np.ix_(range(N), range(g * CG, (g + 1) * CG), *idx)]
            Y[(slice(None), m) + o] = (patch * W[m]).reshape(N, -1).sum(axis=1) + (B[m] if len(B) else 0)
    return Y


def conv_transpose_ref(X, W, B, strides, pads, out_pad):
    """ONNX ConvTranspose (group 1, dilation 1) on N-D inputs, as a scatter: each input
    position adds a scaled kernel, independent of the library's gather."""
    N, C = X.shape[:2]
    sp = X.shape[2:]
    nsp = len(sp)
    M = W.shape[1]
    ks = W.shape[2:]
    strides = strides or [1] * nsp
    out_pad = out_pad or [0] * nsp
    p = full_pads(pads, nsp)
    full = [strides[a] * (sp[a] - 1) + ks[a] + out_pad[a] for a in range(nsp)]
    Y = np.zeros((N, M) + tuple(full))
    for c in range(C):
        for i in itertools.product(*(range(n) for n in sp)):
            for k in itertools.product(*(range(n) for n in ks)):
                o = tuple(i[a] * strides[a] + k[a] for a in range(nsp))
                Y[(slice(None), slice(None)) + o] += X[(slice(None), c) + i][:, None] * W[(c, slice(None)) + k]
    Y = Y[(slice(None), slice(None)) + tuple(slice(p[a], full[a] - p[a + nsp]) for a in range(nsp))]
    return Y + (B.reshape((1, M) + (1,) * nsp) if len(B) else 0)


def ints_list(v):
    return "[" + ", ".join(str(int(a)) for a in v) + "]"


CONV_CONFIGS = [
    # X shape, W shape, strides, pads, dilations, group, kind
    ((1, 1, 7), (1, 1, 3), [1], [0, 0], [1], 1, "f32"),
    ((2, 2, 9), (3, 2, 2), [2], [1, 2], [2], 1, "f64"),
    ((1, 4, 6), (2, 2, 3), [1], [1], [], 2, "f32"),
    ((1, 1, 4, 4), (1, 1, 3, 3), [1, 1], [0, 0, 0, 0], [1, 1], 1, "f32"),
    ((2, 2, 5, 4), (3, 2, 3, 2), [1, 1], [1, 0, 1, 1], [1, 1], 1, "f64"),
    ((1, 3, 6, 5), (2, 3, 2, 2), [2, 1], [0, 1, 1, 0], [1, 2], 1, "f32"),
    ((1, 4, 4, 4), (2, 2, 3, 3), [1, 2], [1, 1, 1, 1], [1, 1], 2, "f64"),
    ((2, 1, 3, 3), (2, 1, 2, 2), [2, 2], [1, 1], [], 1, "f32"),
    ((1, 1, 4, 4), (1, 1, 2, 2), [], [], [], 1, "f64"),
    ((1, 1, 3, 4, 4), (1, 1, 2, 2, 2), [1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 1, 1], 1, "f32"),
    ((2, 2, 4, 3, 5), (2, 2, 3, 2, 3), [2, 1, 2], [1, 0, 1, 1, 1, 0], [1, 2, 1], 1, "f64"),
    ((1, 4, 3, 3, 3), (4, 1, 2, 2, 2), [1, 1, 1], [1, 1, 1], [], 4, "f32"),
]

CONVT_CONFIGS = [
    # X shape, W shape, strides, pads, output_padding, kind
    ((1, 1, 4), (1, 1, 3), [1], [0, 0], [0], "f32"),
    ((2, 2, 3), (2, 3, 2), [2], [1, 0], [1], "f64"),
    ((1, 1, 3, 3), (1, 1, 2, 2), [1, 1], [0, 0, 0, 0], [0, 0], "f32"),
    ((1, 2, 3, 2), (2, 3, 3, 2), [2, 2], [1, 0, 1, 1], [1, 0], "f64"),
    ((1, 1, 2, 2), (1, 2, 3, 3), [3, 3], [], [], "f64"),
    ((1, 2, 2, 2, 2), (2, 1, 2, 2, 2), [2, 2, 2], [0, 0, 0, 0, 0, 0], [0, 1, 0], "f32"),
    ((1, 1, 2, 3, 2), (1, 2, 3, 2, 2), [1, 2, 1], [1, 1, 0], [], "f64"),
]


def conv_file():
    t = TestFile("ml/conv.ein", "std::ml conv, depthwise_conv, conv_transpose, qconv, conv2d "
                 "(ONNX semantics, 1-D, 2-D and 3-D)", uses=["std::ml::*"])
    for i, (xs, ws, st, pd, dl, g, kind) in enumerate(CONV_CONFIGS):
        X = t.let(f"X{i}", quarters(300 + i, xs), kind)
        W = t.let(f"W{i}", quarters(310 + i, ws), kind)
        B = t.let(f"B{i}", quarters(320 + i, (ws[0],)), kind)
        t.check(f"conv(X{i}, W{i}, B{i}, {st}, {pd}, {dl}, {g})",
                conv_ref(f64(X), f64(W), f64(B), st, pd, dl, g).astype(X.dtype), kind)
    t.raw("let nob: [f32] = [];")
    t.check("conv(X0, W0, nob, [1], [1, 1], [1], 1)",
            conv_ref(f64(quarters(300, (1, 1, 7))), f64(quarters(310, (1, 1, 3))), np.zeros(0),
                     [1], [1, 1], [1], 1).astype(np.float32), "f32")
    # depthwise: group = C, two filters per channel; 1-D and 2-D
    for i, (xs, ws, st, pd, dl) in enumerate([((1, 2, 4, 4), (4, 1, 2, 2), [1, 1], [0, 0, 1, 1], [1, 1]),
                                              ((2, 3, 6), (3, 1, 3), [2], [1, 1], [1])]):
        X = t.let(f"Xd{i}", quarters(330 + i, xs), "f32")
        W = t.let(f"Wd{i}", quarters(333 + i, ws), "f32")
        B = t.let(f"Bd{i}", quarters(336 + i, (ws[0],)), "f32")
        t.check(f"depthwise_conv(Xd{i}, Wd{i}, Bd{i}, {st}, {pd}, {dl})",
                conv_ref(f64(X), f64(W), f64(B), st, pd, dl, xs[1]).astype(np.float32), "f32")
    for i, (xs, ws, st, pd, op, kind) in enumerate(CONVT_CONFIGS):
        X = t.let(f"TX{i}", quarters(340 + i, xs), kind)
        W = t.let(f"TW{i}", quarters(350 + i, ws), kind)
        B = t.let(f"TB{i}", quarters(360 + i, (ws[1],)), kind)
        t.check(f"conv_transpose(TX{i}, TW{i}, TB{i}, {st}, {pd}, {op})",
                conv_transpose_ref(f64(X), f64(W), f64(B), st, pd, op).astype(X.dtype), kind)
    # qconv: integer tensors with scales (zero points 0), the bias in the float domain
    for i, (xs, ws, st, pd, dl, g) in enumerate([((1, 2, 5), (2, 2, 2), [1], [1, 0], [1], 1),
                                                 ((1, 2, 4, 4), (2, 1, 3, 3), [1, 1], [1, 1], [1, 1], 2)]):
        Xq = t.let(f"QX{i}", np.random.default_rng(365 + i).integers(-8, 9, size=xs), "i32")
        Wq = t.let(f"QW{i}", np.random.default_rng(366 + i).integers(-8, 9, size=ws), "i32")
        B = t.let(f"QB{i}", quarters(367 + i, (ws[0],)), "f32")
        t.check(f"qconv(QX{i}, 0.5, QW{i}, 0.25, QB{i}, {st}, {pd}, {dl}, {g})",
                conv_ref(Xq * 0.5, Wq * 0.25, f64(B), st, pd, dl, g).astype(np.float32), "f32")
    X = t.let("CX", quarters(370, (1, 2, 5, 5)), "f64")
    W = t.let("CW", quarters(371, (3, 2, 3, 3)), "f64")
    B = t.let("CB", quarters(372, (3,)), "f64")
    for sh, sw, ph, pw, dh, dw in [(1, 1, 1, 1, 1, 1), (2, 1, 0, 1, 1, 2), (1, 2, 2, 0, 2, 1)]:
        t.check(f"conv2d(CX, CW, CB, {sh}, {sw}, {ph}, {pw}, {dh}, {dw})",
                conv_ref(X, W, B, [sh, sw], [ph, pw, ph, pw], [dh, dw], 1), "f64")
    t.write()


def conv_errors():
    t = TestFile("ml/errors/conv_channels.ein", "std::ml conv whose weights do not match the "
                 "input's channels is E004 at the call", uses=["std::ml::conv"])
    t.raw("let X = [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]];", "let W = [[[1.0, 1.0]]];",
          "print(conv(X, W, [0.0], [1], [0, 0], [1], 1));")
    t.expect_error("E004")
    t.write()
    t = TestFile("ml/errors/conv_pads.ein", "std::ml conv with pads of the wrong length is E004",
                 uses=["std::ml::conv"])
    t.raw("let X = [[[1.0, 2.0, 3.0]]];", "let W = [[[1.0, 1.0]]];",
          "print(conv(X, W, [0.0], [1], [0, 0, 0], [1], 1));")
    t.expect_error("E004")
    t.write()


def layers_file():
    t = TestFile("ml/layers.ein", "std::ml linear and gemm", uses=["std::ml::*"])
    W = t.let("W", decimals(400, (4, 3)), "f64")
    b = t.let("b", decimals(401, (4,)), "f64")
    for i, shape in enumerate([(3,), (2, 3), (2, 2, 3)]):
        x = t.let(f"x{i}", decimals(402 + i, shape), "f64")
        t.check(f"linear(x{i}, W, b)", x @ W.T + b, "f64")
    Wf = t.let("Wf", quarters(410, (2, 3)), "f32")
    bf = t.let("bf", quarters(411, (2,)), "f32")
    xf = t.let("xf", quarters(412, (4, 3)), "f32")
    t.check("linear(xf, Wf, bf)", (f64(xf) @ f64(Wf).T + bf).astype(np.float32), "f32")
    # weights [in, out] (x W + b) when in != out
    Wio = t.let("Wio", quarters(413, (3, 5)), "f32")
    bio = t.let("bio", quarters(414, (5,)), "f32")
    t.check("linear(xf, Wio, bio)", (f64(xf) @ f64(Wio) + bio).astype(np.float32), "f32")
    for ta in (0, 1):
        for tb in (0, 1):
            A = quarters(420 + 2 * ta + tb, (3, 2) if ta else (2, 3))
            Bm = quarters(430 + 2 * ta + tb, (4, 3) if tb else (3, 4))
            t.let(f"A{ta}{tb}", A, "f32")
            t.let(f"B{ta}{tb}", Bm, "f32")
            C = t.let(f"C{ta}{tb}", quarters(440 + 2 * ta + tb, (4,)), "f32")
            ref = 0.5 * ((A.T if ta else A) @ (Bm.T if tb else Bm)) + 2.0 * C
            t.check(f"gemm(A{ta}{tb}, B{ta}{tb}, C{ta}{tb}, 0.5, 2.0, {ta}, {tb})",
                    ref.astype(np.float32), "f32")
    A = t.let("Cs_A", quarters(445, (2, 3)), "f32")
    Bm = t.let("Cs_B", quarters(446, (3, 2)), "f32")
    t.raw("let Cs_s: f32 = 0.5;")
    t.check("gemm(Cs_A, Cs_B, Cs_s, 1.0, 2.0, 0, 0)", (A @ Bm + 1.0).astype(np.float32), "f32")
    C2 = t.let("Cs_M", quarters(447, (2, 2)), "f32")
    t.check("gemm(Cs_A, Cs_B, Cs_M, 1.0, -1.0, 0, 0)", (A @ Bm - C2).astype(np.float32), "f32")
    A = t.let("Ad", decimals(450, (2, 3)), "f64")
    Bm = t.let("Bd", decimals(451, (3, 2)), "f64")
    C = t.let("Cd", decimals(452, (2,)), "f64")
    t.raw("let one: f64 = 1.0;")
    t.check("gemm(Ad, Bd, Cd, one, one, 0, 0)", A @ Bm + C, "f64")
    t.write()


def generate():
    activations_file()
    conv_file()
    conv_errors()
    layers_file()
