"""The element-kind survey's table (session 18): std::math and std::ml elementwise functions
given integers and bools, reducers given integers, bools and empty extents, axis = -1 and the
ONNX keepdims forms, each with NumPy's answer. Shared by tests/stdlib/survey_kinds.py (one
program per case, so that every refusal shows) and gen_kinds.py (the cases that pass, as
generated goldens).

A case is (expr, value, type): value is NumPy's result and type the text `typeof` must show
(NumPy's dtype in Einlang's names: float64 -> f64; integer results keep the input's integer
type, as np.sum of an int32 array keeps int32 here; counts are i32). value None means NumPy
refuses the call too (the survey only reports what ein says).
"""
import numpy as np

# The inputs every case may read (Einlang lets; NumPy values).
A = np.array([[1, -4, 9], [0, 2, 3]], dtype=np.int32)
V = np.array([0, 1, -2, 3], dtype=np.int64)
B = np.array([[True, False, True], [False, False, True]])
X = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], dtype=np.float32)
E = np.zeros((2, 0), dtype=np.float32)  # an empty last axis
Q = np.array([[[1, 5, 2, 3], [0, -2, 4, 4]]], dtype=np.int32)  # [N, C, L] integers
PRELUDE = [
    "let a: [i32; 2, 3] = [[1, -4, 9], [0, 2, 3]];",
    "let v: [i64; 4] = [0, 1, -2, 3];",
    "let b: [bool; 2, 3] = [[true, false, true], [false, false, true]];",
    "let x: [f32; 2, 3] = [[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]];",
    "let e[i in 0..2, j in 0..0] = x[i, 0];",
    "let q: [i32; 1, 2, 4] = [[[1, 5, 2, 3], [0, -2, 4, 4]]];",
    "let y: [f64; 2, 3] = [[-2.0, 0.75, 9.0], [0.5, -3.0, 1.5]];",
]
Y = np.array([[-2.0, 0.75, 9.0], [0.5, -3.0, 1.5]])

F = np.float64


def ty(value, el=None):
    """typeof's text for value (el overrides the element type)."""
    a = np.asarray(value)
    el = el or {"float64": "f64", "float32": "f32", "int32": "i32", "int64": "i64", "bool": "bool"}[str(a.dtype)]
    return el if a.ndim == 0 else "[" + el + "; " + ", ".join(str(n) for n in a.shape) + "]"


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def erf(z):
    import math
    return np.vectorize(math.erf)(z)


# Float formulas: integer and bool arguments are converted to float64 first (NumPy's result of
# the same formula written over an integer array).
FLOAT_UNARY = {
    "std::ml::sigmoid": sigmoid,
    "std::ml::softmax": softmax,
    "std::ml::log_softmax": lambda z: np.log(softmax(z)),
    "std::ml::gelu": lambda z: 0.5 * z * (1 + erf(z / np.sqrt(2))),
    "std::ml::gelu_tanh": lambda z: 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3))),
    "std::ml::swish": lambda z: z * sigmoid(z),
    "std::ml::silu": lambda z: z * sigmoid(z),
    "std::ml::selu": lambda z: 1.0507009873554805 * np.where(z > 0, z, 1.6732632423543772 * np.expm1(z)),
    "std::ml::softplus": lambda z: np.log1p(np.exp(z)),
    "std::ml::log_sigmoid": lambda z: np.log(sigmoid(z)),
    "std::ml::softsign": lambda z: z / (1 + np.abs(z)),
    "std::ml::mish": lambda z: z * np.tanh(np.log1p(np.exp(z))),
    "std::ml::hardsigmoid": lambda z: np.clip(0.2 * z + 0.5, 0, 1),
    "std::ml::hardswish": lambda z: z * np.clip(z / 6 + 0.5, 0, 1),
    "std::ml::tanhshrink": lambda z: z - np.tanh(z),
    "std::ml::rsqrt": lambda z: 1 / np.sqrt(z),
    "std::math::rsqrt": lambda z: 1 / np.sqrt(z),
    "std::ml::erf": erf,
    "std::math::erfc": lambda z: 1 - erf(z),
    "std::math::deg_to_rad": np.deg2rad,
    "std::math::rad_to_deg": np.rad2deg,
    "std::math::saturate": lambda z: np.clip(z, 0.0, 1.0),
    "std::math::asin": np.arcsin, "std::math::acos": np.arccos, "std::math::tan": np.tan,
    "std::math::sinh": np.sinh, "std::math::asinh": np.arcsinh, "std::math::acosh": np.arccosh,
    "std::math::atanh": np.arctanh, "std::math::ln": np.log,
    "std::ml::sin": np.sin, "std::ml::exp": np.exp, "std::ml::log1p": np.log1p, "std::ml::sqrt": np.sqrt,
    "std::ml::floor": np.floor, "std::ml::ceil": np.ceil,
    "std::ml::l2_normalize": None,  # two arguments: below
}

# Functions that only select or compare: NumPy keeps the integer type.
INT_KEEP = {
    "std::math::round": np.round, "std::ml::round": np.round,
    "std::math::abs": np.abs, "std::math::sign": np.sign, "std::math::square": np.square,
    "std::math::neg": np.negative, "std::ml::relu": lambda z: np.maximum(z, 0),
    "std::ml::relu6": lambda z: np.clip(z, 0, 6), "std::ml::identity": lambda z: z,
}


def cases():
    out = []
    add = lambda e, v, t=None: out.append((e, v, t if t is not None or v is None else ty(v)))
    with np.errstate(all="ignore"):
        for name, f in FLOAT_UNARY.items():
            if f is None:
                continue
            for arg, val in (("a", A), ("v", V), ("b", B)):
                add(f"{name}({arg})", f(val.astype(F)))
            add(f"{name}(x)", f(X.astype(F)).astype(np.float32))
        for name, f in INT_KEEP.items():
            for arg, val in (("a", A), ("v", V)):
                add(f"{name}({arg})", f(val))
        add("std::math::round(b)", np.round(B.astype(F)))
        add("std::math::round(x)", np.round(X))
        # two-argument activations with integer x and float parameters: float64
        for e, v in [("std::ml::leaky_relu(a, 0.1)", np.where(A > 0, A, 0.1 * A.astype(F))),
                     ("std::ml::elu(a, 1.0)", np.where(A > 0, A, np.expm1(A.astype(F)))),
                     ("std::ml::celu(a, 2.0)", np.maximum(A, 0) + np.minimum(0, 2.0 * np.expm1(A / 2.0))),
                     ("std::ml::softshrink(a, 1.5)", np.where(A > 1.5, A - 1.5, np.where(A < -1.5, A + 1.5, 0.0))),
                     ("std::ml::l2_normalize(a, 1e-12)", A / np.sqrt(np.maximum((A.astype(F) ** 2).sum(-1, keepdims=True), 1e-12))),
                     ("std::ml::softmax_axis(a, 0)", softmax(A.astype(F), 0)),
                     ("std::ml::log_softmax_axis(a, -1)", np.log(softmax(A.astype(F), -1))),
                     ("std::math::atan2(a, a + 1)", np.arctan2(A, A + 1)),
                     ("std::math::pow(a, 2)", np.power(A, 2)),
                     ("std::math::clamp(a, 0, 5)", np.clip(A, 0, 5)),
                     ("std::math::clamp(a, -0.5, 2.5)", np.clip(A, -0.5, 2.5)),
                     ("std::ml::hardtanh(a, -1, 1)", np.clip(A, -1, 1)),
                     ("std::ml::threshold(a, 1, 0)", np.where(A > 1, A, 0)),
                     ("std::ml::thresholded_relu(a, 1)", np.where(A > 1, A, 0).astype(F)),
                     ("std::ml::hardshrink(a, 1)", np.where(np.abs(A) > 1, A, 0)),
                     ("std::ml::prelu(a, 0.25)", np.where(A > 0, A, 0.25 * A.astype(F))),
                     ("std::ml::is_nan(a)", np.isnan(A)), ("std::ml::is_inf(v)", np.isinf(V)),
                     # ONNX Div of integers truncates (its reference casts np.divide back)
                     ("std::ml::divide(a, 2)", np.trunc(A / 2).astype(np.int32)),
                     ("std::ml::equal(a, 2)", A == 2),
                     ("std::ml::logical_and(b, std::ml::greater(a, 0))", B & (A > 0)),
                     ("std::ml::where(b, a, 0)", np.where(B, A, 0)),
                     ("std::ml::where(b, 1, x)", np.where(B, np.float32(1), X)),
                     ("std::ml::cumsum(a)", np.cumsum(A, -1).astype(np.int32)),
                     ("std::ml::cumsum(v)", np.cumsum(V)),
                     ("std::ml::clip(a, 0, 5)", np.clip(A, 0, 5))]:
            add(e, v)
        out += mixed_cases()
        # float-only layers and losses of integers: f64 (a NumPy formula over the ints)
        Qf, Af = Q.astype(F), A.astype(F)
        m2, v2 = Qf.mean(2, keepdims=True), Qf.var(2, keepdims=True)
        for e, v in [("std::ml::average_pool(q, [2], [2], [])", Qf.reshape(1, 2, 2, 2).mean(-1)),
                     ("std::ml::global_average_pool(q)", Qf.mean(2, keepdims=True)),
                     ("std::ml::layer_normalization(a, [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], 1e-5, -1)",
                      (Af - Af.mean(-1, keepdims=True)) / np.sqrt(Af.var(-1, keepdims=True) + 1e-5)),
                     ("std::ml::instance_normalization(q, [1.0, 2.0], [0.0, 0.5], 1e-5)",
                      (Qf - m2) / np.sqrt(v2 + 1e-5) * np.array([1.0, 2.0])[None, :, None] + np.array([0.0, 0.5])[None, :, None]),
                     ("std::ml::batch_normalization(q, [1.0, 2.0], [0.0, 0.5], [1.0, 0.0], [4.0, 1.0], 0.0)",
                      (Qf - np.array([1.0, 0.0])[None, :, None]) / np.sqrt(np.array([4.0, 1.0]))[None, :, None]
                      * np.array([1.0, 2.0])[None, :, None] + np.array([0.0, 0.5])[None, :, None]),
                     ("std::ml::lp_normalization(a, 1, 1)", Af / np.abs(Af).sum(1, keepdims=True)),
                     ("std::ml::mse_loss(a, a + 1)", np.float64(1.0)),
                     ("std::ml::mse_loss(x, a)", np.mean((X.astype(np.float32) - A.astype(np.float32)) ** 2, dtype=np.float32)),
                     ("std::ml::mae_loss(a, a * 0)", np.abs(Af).mean()),
                     ("std::ml::huber_loss(a, a * 0, 2.0)", np.where(np.abs(Af) <= 2, 0.5 * Af ** 2, 2 * (np.abs(Af) - 1)).mean()),
                     ("std::ml::cosine_similarity(a, a * 2)", np.ones(2)),
                     ("std::ml::image_scaler(q, 0.5, [1.0, -1.0])", 0.5 * Qf + np.array([1.0, -1.0])[None, :, None])]:
            add(e, v)
        # reducers
        for name, f in [("reduce_sum", np.sum), ("reduce_max", np.max), ("reduce_min", np.min),
                        ("reduce_prod", np.prod), ("reduce_l1", lambda z, **k: np.sum(np.abs(z), **k)),
                        ("reduce_sum_square", lambda z, **k: np.sum(z * z, **k))]:
            add(f"std::ml::{name}(a)", f(A, keepdims=True).astype(np.int32))
            add(f"std::ml::{name}(v)", f(V, keepdims=True))
        for name, f in [("reduce_l2", lambda z, **k: np.sqrt(np.sum(z * z, **k))),
                        ("reduce_log_sum", lambda z, **k: np.log(np.sum(z, **k))),
                        ("reduce_log_sum_exp", lambda z, **k: np.log(np.sum(np.exp(z), **k))),
                        ("reduce_mean", np.mean)]:
            add(f"std::ml::{name}(a)", f(A.astype(F), keepdims=True))
            add(f"std::ml::{name}(b)", f(B.astype(F), keepdims=True))
        add("std::ml::reduce_max(b)", np.max(B, keepdims=True))
        add("std::ml::reduce_min(b)", np.min(B, keepdims=True))
        add("std::ml::reduce_prod(b)", np.prod(B, keepdims=True).astype(np.int32))
        add("std::ml::reduce_l1(b)", np.sum(B, keepdims=True).astype(np.int32))
        add("std::ml::reduce_sum_square(b)", np.sum(B, keepdims=True).astype(np.int32))
        for name, f in [("max_axis", np.max), ("min_axis", np.min), ("argmax_axis", np.argmax),
                        ("argmin_axis", np.argmin), ("sum_axis", np.sum), ("mean_axis", np.mean)]:
            for ax in (-1, 0, -2):
                r = f(A, axis=ax)
                add(f"std::array::{name}(a, {ax})",
                    r.astype(np.int32) if r.dtype.kind == "i" else r)
            r = f(B, axis=-1)
            add(f"std::array::{name}(b, -1)", r.astype(np.int32) if r.dtype.kind == "i" else r)
        add("std::array::argmax(b)", np.argmax(B, -1).astype(np.int32))
        add("std::array::argmin(b)", np.argmin(B, -1).astype(np.int32))
        add("std::ml::argmax(b)", np.argmax(B, 0)[None, :].astype(np.int32))
        add("std::array::argmax_all(b)", np.flatnonzero(B.ravel() == B.max()).astype(np.int32))
        add("std::array::sum(v)", np.sum(V))
        add("std::array::mean(v)", np.mean(V))
        add("std::ml::topk(a, 2, -1).0", -np.sort(-A, -1)[:, :2])
        add("std::ml::topk(a, 2, -1).1", np.argsort(-A, -1, kind="stable")[:, :2].astype(np.int32))
        # left as they are: NumPy's integer reciprocal (0 for |x| > 1, which NumPy's docs warn
        # against) is E002 here; `>` of bools is E002; a max over an empty axis is -inf for
        # floats (SPEC 5.3), where NumPy raises
        add("std::math::reciprocal(a)", None)
        add("std::ml::greater(b, false)", None)
        # empty extents: sums 0, products 1, means NaN, max/min the identities of ONNX 18
        add("std::ml::reduce_sum(e)", np.zeros((1, 1), np.float32))
        add("std::ml::reduce_prod(e)", np.ones((1, 1), np.float32))
        add("std::ml::reduce_mean(e)", np.full((1, 1), np.nan, np.float32))
        add("std::ml::reduce_l2(e)", np.zeros((1, 1), np.float32))
        add("std::ml::reduce_log_sum_exp(e)", np.full((1, 1), -np.inf, np.float32))
        add("std::array::sum_axis(e, -1)", np.zeros(2, np.float32))
        add("std::array::mean_axis(e, -1)", np.full(2, np.nan, np.float32))
        add("std::array::sum_axis(e, 0)", np.zeros(0, np.float32))
        add("std::array::max_axis(e, 0)", np.zeros(0, np.float32))
        add("std::ml::softmax(e)", E)
        add("std::ml::relu(e)", E)
        add("std::math::round(e)", E)
        add("std::ml::cumsum(e)", E)
        add("std::array::max_axis(e, -1)", None)   # NumPy: zero-size reduction without identity
        add("std::array::argmax(e)", None)
        add("std::ml::layer_normalization(e, [1.0], [0.0], 1e-5, -1)", None)
    return out


# Two-operand library functions given operands of different kinds (session 19; E002 before):
# NumPy's promotion (broadcast::promote_with). The operands as NumPy sees them: a Python float
# 0.5, a Python int 0 or 2, int32 a, bool b, float32 x, float64 y.
LIT = "[[1, -4, 9], [0, 2, 3]]"  # an array literal of integers: literal-typed until its uses decide
MIXED_PAIRS = [("a", "0.5"), ("0.5", "a"), ("a", "x"), ("x", "a"), ("a", "y"), ("y", "a"), ("b", "0.5"),
               ("b", "x"), ("x", "b"), ("a", "b"), ("b", "a"), ("x", "0"), ("2", "x"), ("b", "2"),
               (LIT, "0.5"), (LIT, "x"), ("x", LIT)]
NP_OPERAND = {LIT: A.astype(np.int64), "a": A, "b": B, "x": X, "y": Y, "0.5": 0.5, "1.5": 1.5, "2.5": 2.5, "0": 0, "2": 2, "5": 5}
MIXED_BINARY = {
    "std::math::min": np.minimum, "std::math::max": np.maximum, "std::math::fmod": np.fmod,
    "std::math::mod": np.mod, "std::math::modulo": np.mod, "std::math::pow": np.power,
    "std::math::atan2": np.arctan2, "std::math::clamp_min": np.maximum, "std::math::clamp_max": np.minimum,
    "std::ml::add": np.add, "std::ml::subtract": np.subtract, "std::ml::multiply": np.multiply,
    "std::ml::divide": np.divide, "std::ml::power": np.power, "std::ml::min": np.minimum,
    "std::ml::max": np.maximum, "std::ml::mod": np.mod, "std::ml::fmod": np.fmod,
    "std::ml::equal": np.equal, "std::ml::not_equal": np.not_equal, "std::ml::greater": np.greater,
    "std::ml::greater_or_equal": np.greater_equal, "std::ml::less": np.less,
    "std::ml::less_or_equal": np.less_equal,
    "std::ml::prelu": lambda p, s: np.where(np.asarray(p) >= 0, p, np.multiply(s, p)),
}
# Integer divisors with zeros (a, b): NumPy warns and gives 0, Einlang's integer division is E007.
INT_DIVISOR = {"std::math::fmod", "std::math::mod", "std::math::modulo", "std::ml::divide",
               "std::ml::mod", "std::ml::fmod"}


def mixed_type(expr, v):
    """typeof's text for a mixed-kind result: NumPy's dtype, except that an integer literal beside
    bools is i32 here (SPEC 3: unconstrained integer literals are i32; NumPy's Python int is int64)."""
    a = np.asarray(v)
    if a.dtype == np.int64:
        return ty(v, "i32")
    return ty(v)


def mixed_cases():
    out = []
    with np.errstate(all="ignore"):
        for name, f in MIXED_BINARY.items():
            for p, q in MIXED_PAIRS:
                if name in INT_DIVISOR and q in ("a", "b", LIT):
                    continue
                if name.endswith("pow") or name.endswith("power"):
                    if p == "b" and q in ("a", LIT):
                        continue  # integers to negative integer powers: NumPy raises, E006 here
                if name.endswith("prelu") and (p in ("0.5", "2") or (p, q) in (("a", "b"), ("b", "a"), ("b", "2"))):
                    continue  # x is the data, never a scalar literal; integer x and slope: below
                v = f(NP_OPERAND[p], NP_OPERAND[q])
                if name == "std::ml::divide" and p in ("a", "b") and q in ("2", "0"):
                    v = np.trunc(v).astype(np.int32)  # ONNX Div of integers truncates
                e = f"{name}({p}, {q})"
                out.append((e, v, mixed_type(e, v)))
        for p, q in [("a", "0.5"), ("a", "x"), ("x", "a"), ("a", "y"), ("x", "0"), ("2", "x"), ("b", "a"),
                     ("b", "0.5"), ("b", "x"),
                     (LIT, "0.5"), ("x", LIT)]:
            v = np.where(B, NP_OPERAND[p], NP_OPERAND[q])
            e = f"std::ml::where(b, {p}, {q})"
            out.append((e, v, mixed_type(e, v)))
        for x, lo, hi in [("a", "0", "2.5"), ("a", "x", "5"), ("x", "a", "y"), ("b", "0", "0.5"), ("x", "0", "2"),
                          (LIT, "0", "1.5")]:
            for name in ("std::math::clamp", "std::ml::clip"):
                v = np.clip(NP_OPERAND[x], NP_OPERAND[lo], NP_OPERAND[hi])
                e = f"{name}({x}, {lo}, {hi})"
                out.append((e, v, mixed_type(e, v)))
        # the helper itself: a in the common type of (a, b)
        pw = "std::ml::broadcast::promote_with"
        for e, v in [(f"{pw}(a, 0.5)", A.astype(F)), (f"{pw}(x, a)", X.astype(F)), (f"{pw}(x, 0)", X),
                     (f"{pw}(2, x)", np.float32(2)), (f"{pw}(b, a)", B.astype(np.int32)),
                     (f"{pw}(b, 0.5)", B.astype(F)), (f"{pw}(b, x)", B.astype(np.float32)),
                     (f"{pw}(a, b)", A), (f"{pw}(0.5, a)", np.float64(0.5))]:
            out.append((e, v, ty(v)))
        # left as they are (E002): floats of two widths, integers of two widths (no intrinsic
        # tells f32 from f64 or i32 from i64 in library code)
        out.append(("std::math::min(x, y)", None, None))
        out.append(("std::ml::add(a, v[0])", None, None))
        # products and joins of operands of different kinds (session 20; E002 before): NumPy's
        # promotion, as the two-operand functions (an integer array beside floats is f64)
        out += product_cases()
        out.append(("std::ml::logical_and(b, a)", None, None))
        # ONNX PRelu of integers is integral; prelu takes integer x as f64 (session 18), and an
        # integer slope beside it is E002
        out.append(("std::ml::prelu(a, b)", None, None))
    return out


PRODUCT_PAIRS = [("a", "x"), ("x", "a"), ("a", "y"), ("y", "a"), ("b", "x"), ("x", "b"), ("a", "b"), (LIT, "x"),
                 ("x", LIT)]


def product_cases():
    """matmul, batch_matmul, dot, gemm, linear, outer, kron, concat, concatenate(_axis) and
    cosine_similarity given operands of different kinds (session 20): NumPy's values and types."""
    out = []
    T = "std::ml::transpose"
    for p, q in PRODUCT_PAIRS:
        P, Q = NP_OPERAND[p], NP_OPERAND[q]
        pq = [(f"std::ml::matmul({p}, {T}({q}))", np.matmul(P, Q.T)),
              (f"std::ml::batch_matmul({p}, {T}({q}))", np.matmul(P, Q.T)),
              (f"std::ml::dot({p}[0], {q}[1])", np.dot(P[0], Q[1])),
              (f"std::ml::outer({p}[0], {q}[1])", np.outer(P[0], Q[1])),
              (f"std::ml::kron({p}, {q})", np.kron(P, Q)),
              (f"std::ml::concat({p}, {q})", np.concatenate([P, Q])),
              (f"std::array::concatenate_axis({p}, {q}, 1)", np.concatenate([P, Q], 1)),
              (f"std::ml::gemm({p}, {T}({q}), 0.5, 1.0, 1.0, 0, 0)", np.matmul(P, Q.T) + 0.5),
              (f"std::ml::linear({p}, {q}, [{q}[0, 0], {q}[0, 1]])", np.matmul(P, Q.T) + Q[0, 0:2])]
        if "b" not in (p, q):
            ps, qs = P.astype(F), Q.astype(F)
            cos = (ps * qs).sum(-1) / np.maximum(np.sqrt((ps * ps).sum(-1)) * np.sqrt((qs * qs).sum(-1)), 1e-8)
            pq.append((f"std::ml::cosine_similarity({p}, {q})", cos))
        for e, v in pq:
            out.append((e, v, mixed_type(e, v)))
    # an integer or bool C beside a float product: f64 (np: float32 + int32 array is float64)
    for c, C in [("[a[0, 0], a[0, 1]]", A[0, 0:2]), ("[1, 2]", np.array([1, 2], dtype=np.int64))]:
        v = np.matmul(X, X.T) + C
        e = f"std::ml::gemm(x, {T}(x), {c}, 1.0, 1.0, 0, 0)"
        out.append((e, v, mixed_type(e, v)))
        v = np.matmul(X, X.T) + C
        e = f"std::ml::linear(x, x, {c})"
        out.append((e, v, mixed_type(e, v)))
    return out


MIXED = None


def is_mixed(expr):
    """Whether expr is one of mixed_cases() (gen_kinds.py writes them to a file of their own)."""
    global MIXED
    if MIXED is None:
        MIXED = {e for e, _, _ in mixed_cases()}
    return expr in MIXED
