"""The integer-accumulation survey's table (session 20): every library function that sums,
multiplies or contracts integers, given inputs whose exact result fits the input's integer type
and inputs whose result does not. NumPy widens np.sum / np.prod / np.cumsum / np.trace of int32
to int64 and computes the exact value; the library keeps the input's integer type and computes
the exact value too (accumulated in i64), raising E006 when it does not fit
(docs/stdlib-notes.md). So a case is (expr, value, type) with NumPy's exact value where it fits
the input's type, or (expr, None, "E006") where it does not (NumPy's int64 value there, or its
wrapped value for int64 inputs and int32 products, is what ein must never print).
Shared by tests/stdlib/survey_intacc.py and gen_intacc.py.
"""
import math

import numpy as np

I32 = np.iinfo(np.int32)
I64 = np.iinfo(np.int64)

# Inputs (Einlang lets; NumPy values).
A = np.array([[1, -4, 9], [0, 2, 3]], dtype=np.int32)             # small: everything fits
G = np.array([[1500000000, 700000000, -3], [1200000000, 5, 1000000000]], dtype=np.int32)  # sums past i32
N = np.array([[-1500000000, 700000000, 5], [-1200000000, 1500000000, -1000000000]], dtype=np.int32)  # partial sums past i32, totals inside
P = np.array([[70000, 3, 2], [50000, 1, 2]], dtype=np.int32)       # products past i32
W = np.array([5000000000000000000, 5000000000000000000, 3], dtype=np.int64)   # i64 sum past i64
H = np.array([3000000000, -5, 7], dtype=np.int64)                  # i64 values beyond i32, sums fit
S = np.array([[46341, 2], [3, 46341]], dtype=np.int32)             # squares / products of 2 past i32
T = np.array([[2000000000, 7], [-9, 2000000000]], dtype=np.int32)  # a trace past i32
E = np.array([100, 50, -3], dtype=np.int8)                         # i8: a sum past i8 (NumPy widens)
F = np.array([10, 20, -3], dtype=np.int8)                          # i8: sums inside i8
PRELUDE = [
    "let a: [i32; 2, 3] = [[1, -4, 9], [0, 2, 3]];",
    "let g: [i32; 2, 3] = [[1500000000, 700000000, -3], [1200000000, 5, 1000000000]];",
    "let n: [i32; 2, 3] = [[-1500000000, 700000000, 5], [-1200000000, 1500000000, -1000000000]];",
    "let p: [i32; 2, 3] = [[70000, 3, 2], [50000, 1, 2]];",
    "let w: [i64; 3] = [5000000000000000000, 5000000000000000000, 3];",
    "let h: [i64; 3] = [3000000000, -5, 7];",
    "let s: [i32; 2, 2] = [[46341, 2], [3, 46341]];",
    "let t: [i32; 2, 2] = [[2000000000, 7], [-9, 2000000000]];",
    "let e: [i8; 3] = [100, 50, -3];",
    "let f: [i8; 3] = [10, 20, -3];",
]
INPUTS = {"a": A, "g": G, "n": N, "p": P, "w": W, "h": H, "s": S, "t": T, "e": E, "f": F}


def fits(v, dtype):
    info = np.iinfo(dtype)
    a = np.asarray(v, dtype=object)
    return all(info.min <= int(e) <= info.max for e in a.ravel())


def exact(f, x):
    """f over Python integers (arbitrary precision): the exact result."""
    return f(np.asarray(x, dtype=object))


def ty(value, el):
    a = np.asarray(value)
    return el if a.ndim == 0 else "[" + el + "; " + ", ".join(str(k) for k in a.shape) + "]"


def keep(v, x):
    """ONNX keepdims over every axis."""
    return np.asarray(v, dtype=object).reshape((1,) * np.asarray(x).ndim)


def cumprod_obj(x):
    out = np.empty(x.shape, dtype=object)
    for idx in np.ndindex(x.shape[:-1]):
        acc = 1
        for j in range(x.shape[-1]):
            acc *= int(x[idx + (j,)])
            out[idx + (j,)] = acc
    return out


def cumsum_obj(x):
    out = np.empty(x.shape, dtype=object)
    for idx in np.ndindex(x.shape[:-1]):
        acc = 0
        for j in range(x.shape[-1]):
            acc += int(x[idx + (j,)])
            out[idx + (j,)] = acc
    return out


def dot_obj(a, b):
    return np.dot(np.asarray(a, dtype=object), np.asarray(b, dtype=object))


# name -> (function over object arrays, arguments it takes from INPUTS)
UNARY = {
    "std::math::sum": lambda x: x.sum(),
    "std::array::sum": lambda x: x.sum(),
    "std::sum": lambda x: x.sum(),
    "std::ml::reduce_sum": lambda x: keep(x.sum(), x),
    "std::ml::reduce_l1": lambda x: keep(np.abs(x).sum(), x),
    "std::ml::reduce_sum_square": lambda x: keep((x * x).sum(), x),
    "std::ml::reduce_prod": lambda x: keep(np.prod(x), x),
    "std::ml::cumsum": cumsum_obj,
    "std::ml::cumprod": cumprod_obj,
}
MATRIX_ONLY = {
    "std::ml::trace": lambda x: np.trace(x),
    "std::array::sum_axis(_, -1)": lambda x: x.sum(axis=-1),
    "std::array::sum_axis(_, 0)": lambda x: x.sum(axis=0),
}


def el(x):
    return {"int8": "i8", "int32": "i32", "int64": "i64"}[str(np.asarray(x).dtype)]


def conv_ref(X, W, B=None, pad=0):
    """ONNX Conv (group 1, strides and dilations 1, symmetric zero pads) over Python integers."""
    X = np.asarray(X, dtype=object)
    W = np.asarray(W, dtype=object)
    nsp = X.ndim - 2
    if pad:
        X = np.pad(X, [(0, 0), (0, 0)] + [(pad, pad)] * nsp, constant_values=0)
    osz = tuple(X.shape[2 + k] - W.shape[2 + k] + 1 for k in range(nsp))
    Y = np.empty((X.shape[0], W.shape[0]) + osz, dtype=object)
    for n in range(X.shape[0]):
        for m in range(W.shape[0]):
            for o in np.ndindex(osz):
                win = X[(n, slice(None)) + tuple(slice(o[k], o[k] + W.shape[2 + k]) for k in range(nsp))]
                Y[(n, m) + o] = int((win * W[m]).sum()) + (int(B[m]) if B is not None else 0)
    return Y


def conv_transpose_ref(X, W):
    """ONNX ConvTranspose (group 1, strides 1, no pads) over Python integers: W [C, M, ..k]."""
    X = np.asarray(X, dtype=object)
    W = np.asarray(W, dtype=object)
    nsp = X.ndim - 2
    osz = tuple(X.shape[2 + k] + W.shape[2 + k] - 1 for k in range(nsp))
    Y = np.zeros((X.shape[0], W.shape[1]) + osz, dtype=object)
    for n in range(X.shape[0]):
        for c in range(X.shape[1]):
            for i in np.ndindex(X.shape[2:]):
                sl = (n, slice(None)) + tuple(slice(i[k], i[k] + W.shape[2 + k]) for k in range(nsp))
                Y[sl] = Y[sl] + X[(n, c) + i] * W[c]
    return Y


def returns_ref(r, gamma):
    out = np.empty(len(r), dtype=object)
    acc = 0
    for t in range(len(r) - 1, -1, -1):
        acc = int(r[t]) + gamma * acc
        out[t] = acc
    return out


def cases():
    out = []

    def add(expr, value, dtype):
        if fits(value, dtype):
            v = np.asarray(value, dtype=object).astype(dtype)
            out.append((expr, v, ty(v, el(np.zeros(1, dtype)))))
        else:
            out.append((expr, None, "E006"))

    for name, f in UNARY.items():
        for arg in ("a", "g", "n", "p", "w", "h"):
            x = INPUTS[arg]
            add(f"{name}({arg})", exact(f, x), x.dtype)
    for name, f in MATRIX_ONLY.items():
        for arg in ("a", "g", "n", "s", "t"):
            x = INPUTS[arg]
            add(name.replace("(_", "(" + arg, 1) if "(_" in name else f"{name}({arg})", exact(f, x), x.dtype)
    # contractions: int32 np.dot / np.matmul keep int32 and wrap; here the exact value or E006
    contractions = [
        ("std::ml::dot(s[0], s[1])", dot_obj(S[0], S[1]), np.int32),
        ("std::ml::dot(a[0], a[1])", dot_obj(A[0], A[1]), np.int32),
        ("std::ml::dot(h, h)", dot_obj(H, H), np.int64),
        ("std::ml::dot(w, [1 as i64, 1 as i64, 1 as i64])", dot_obj(W, [1, 1, 1]), np.int64),
        ("std::ml::matmul(s, s)", dot_obj(S, S), np.int32),
        ("std::ml::matmul(a, std::array::transpose(a))", dot_obj(A, A.T), np.int32),
        ("std::ml::matmul(g, [1, 1, 1])", dot_obj(G, [1, 1, 1]), np.int32),
        ("std::ml::matmul(n, [1, 1, 1])", dot_obj(N, [1, 1, 1]), np.int32),
        ("std::ml::matmul([1, 1], g)", dot_obj([1, 1], G), np.int32),
        ("std::ml::matmul(a[0], a[1])", dot_obj(A[0], A[1]), np.int32),
        ("std::ml::batch_matmul(s, s)", dot_obj(S, S), np.int32),
        ("std::ml::batch_matmul([s, s], [s, s])", np.stack([dot_obj(S, S)] * 2), np.int32),
        ("std::ml::batch_matmul([a], [std::array::transpose(a)])", dot_obj(A, A.T)[None], np.int32),
        ("std::ml::einsum(\"ij,jk->ik\", [s, s])", dot_obj(S, S), np.int32),
        ("std::ml::einsum(\"ij,kj->ik\", [a, a])", dot_obj(A, A.T), np.int32),
        ("std::ml::einsum(\"ij->\", [g])", exact(lambda x: x.sum(), G), np.int32),
        ("std::ml::einsum(\"ii->\", [s])", exact(np.trace, S), np.int32),
    ]
    for expr, v, dt in contractions:
        add(expr, v, dt)
    # i8 sums (session 21): NumPy widens to int64; the library keeps i8 and is exact or E006
    for arg in ("e", "f"):
        x = INPUTS[arg]
        add(f"std::sum({arg})", exact(lambda y: y.sum(), x), x.dtype)
        add(f"std::ml::reduce_sum({arg})", exact(lambda y: keep(y.sum(), y), x), x.dtype)
        add(f"std::ml::cumsum({arg})", exact(cumsum_obj, x), x.dtype)
        add(f"std::ml::dot({arg}, {arg})", dot_obj(x, x), x.dtype)
    # layers, convolutions, outer products, returns (session 21): exact in the input's type or
    # E006 (np.matmul / np.outer / np.kron of int32 wrap)
    O = lambda x: np.asarray(x, dtype=object)
    I2 = np.array([[1, 0], [1, 1]])
    ones31 = O([[1], [1], [1]])
    layers = [
        ("std::ml::gemm(a, a, [1, 2], 2, 3, 0, 1)", 2 * dot_obj(A, A.T) + 3 * O([1, 2]), np.int32),
        ("std::ml::gemm(a, a, [[1], [2]], 1, -1, 0, 1)", dot_obj(A, A.T) - O([[1], [2]]), np.int32),
        ("std::ml::gemm(s, s, [0, 0], 1, 1, 0, 0)", dot_obj(S, S), np.int32),
        ("std::ml::gemm(s, [[1, 0], [1, 1]], [0, 0], 1, 1, 1, 0)", dot_obj(S.T, I2), np.int32),
        ("std::ml::gemm(g, [[1], [1], [1]], [0], 1, 1, 0, 0)", dot_obj(G, ones31), np.int32),
        ("std::ml::gemm(n, [[1], [1], [1]], [0], 1, 1, 0, 0)", dot_obj(N, ones31), np.int32),
        ("std::ml::gemm(t, [[1, 0], [0, 1]], t, 1, 1, 0, 0)", 2 * O(T), np.int32),
        ("std::ml::gemm(t, [[1, 0], [0, 1]], t, 1, -1, 0, 0)", 0 * O(T), np.int32),
        ("std::ml::gemm([h], [[1 as i64], [1 as i64], [1 as i64]], [0 as i64], 1, 1, 0, 0)", dot_obj(H[None], ones31), np.int64),
        ("std::ml::gemm([w], [[1 as i64], [1 as i64], [1 as i64]], [0 as i64], 1, 1, 0, 0)", dot_obj(W[None], ones31), np.int64),
        ("std::ml::linear(a, a, [1, 2])", dot_obj(A, A.T) + O([1, 2]), np.int32),
        ("std::ml::linear(a[0], a, [1, 2])", dot_obj(A[0], A.T) + O([1, 2]), np.int32),
        ("std::ml::linear(g, [[1, 1, 1]], [0])", dot_obj(G, O([[1, 1, 1]]).T), np.int32),
        ("std::ml::linear(n, [[1, 1, 1]], [0])", dot_obj(N, O([[1, 1, 1]]).T), np.int32),
        ("std::ml::linear(s, [[1, 0], [0, 1]], [2000000000, 0])", O(S) + O([2000000000, 0]), np.int32),
        ("std::ml::linear(h, [[1 as i64, 1 as i64, 1 as i64]], [0 as i64])", O([int(H.sum())]), np.int64),
        ("std::ml::linear(w, [[1 as i64, 1 as i64, 1 as i64]], [0 as i64])", O([int(O(W).sum())]), np.int64),
        ("std::ml::outer(a[0], a[1])", np.outer(O(A[0]), O(A[1])), np.int32),
        ("std::ml::outer(g[0], g[1])", np.outer(O(G[0]), O(G[1])), np.int32),
        ("std::ml::outer(h, h)", np.outer(O(H), O(H)), np.int64),
        ("std::ml::outer(w, h)", np.outer(O(W), O(H)), np.int64),
        ("std::ml::kron(a, a)", np.kron(O(A), O(A)), np.int32),
        ("std::ml::kron(s, s)", np.kron(O(S), O(S)), np.int32),
        ("std::numerics::returns_to_go(a[0], 2)", returns_ref(A[0], 2), np.int32),
        ("std::numerics::returns_to_go(g[0], 1)", returns_ref(G[0], 1), np.int32),
        ("std::numerics::returns_to_go(h, -1)", returns_ref(H, -1), np.int64),
        ("std::numerics::returns_to_go(w, 1)", returns_ref(W, 1), np.int64),
    ]
    K1 = [[[1, -2], [3, 1]]]          # [M 1, C 2, K 2]
    K2 = [[[[1, -1], [2, 1]]]]        # [M 1, C 1, 2, 2]
    KT = [[[1, 2]], [[-1, 1]]]        # [C 2, M 1, K 2]
    convs = [
        ("std::ml::conv([a], [[[1, -2], [3, 1]]], [], [], [], [], 1)", conv_ref(A[None], K1), np.int32),
        ("std::ml::conv([a], [[[1, -2], [3, 1]]], [7], [], [1], [], 1)", conv_ref(A[None], K1, [7], pad=1), np.int32),
        ("std::ml::conv([[a]], [[[[1, -1], [2, 1]]]], [5], [], [], [], 1)", conv_ref(A[None, None], K2, [5]), np.int32),
        ("std::ml::conv([[g]], [[[[1, 1], [1, 1]]]], [], [], [], [], 1)", conv_ref(G[None, None], O([[[[1, 1], [1, 1]]]])), np.int32),
        ("std::ml::conv([[n]], [[[[1, 1], [1, 1]]]], [], [], [], [], 1)", conv_ref(N[None, None], O([[[[1, 1], [1, 1]]]])), np.int32),
        ("std::ml::conv([g], [[[1, 0], [1, 0]]], [], [], [], [], 1)", conv_ref(G[None], O([[[1, 0], [1, 0]]])), np.int32),
        ("std::ml::conv([[h]], [[[3 as i64, 1 as i64]]], [], [], [], [], 1)", conv_ref(H[None, None], O([[[3, 1]]])), np.int64),
        ("std::ml::conv([[w]], [[[1 as i64, 1 as i64]]], [], [], [], [], 1)", conv_ref(W[None, None], O([[[1, 1]]])), np.int64),
        ("std::ml::conv_transpose([a], [[[1, 2]], [[-1, 1]]], [], [], [], [])", conv_transpose_ref(A[None], KT), np.int32),
        ("std::ml::conv_transpose([g], [[[1, 1]], [[1, 1]]], [], [], [], [])", conv_transpose_ref(G[None], O([[[1, 1]], [[1, 1]]])), np.int32),
        ("std::ml::conv_transpose([[s]], [[[[1, 1], [0, 1]]]], [], [], [], [])", conv_transpose_ref(S[None, None], O([[[[1, 1], [0, 1]]]])), np.int32),
    ]
    # square / gcd / lcm (session 22): exact, or E006 past the type where np.square / np.lcm /
    # np.gcd wrap (Python's arithmetic, which programs transcribe, is exact).
    I32MIN = "(-2147483647 - 1)"
    elementwise = [
        ("std::math::square(a)", O(A) * O(A), np.int32),
        ("std::math::square(s)", O(S) * O(S), np.int32),
        ("std::math::square(h)", O(H) * O(H), np.int64),
        ("std::math::square(h[0] + 37000499)", O((int(H[0]) + 37000499) ** 2), np.int64),
        ("std::math::square(h[0] + 37000500)", O((int(H[0]) + 37000500) ** 2), np.int64),
        ("std::math::square(f)", O(F) * O(F), np.int8),
        ("std::ml::square(p)", O(P) * O(P), np.int32),
        ("std::math::square(a[0, 2])", O(int(A[0, 2]) ** 2), np.int32),
        ("std::math::square(s[0, 0])", O(int(S[0, 0]) ** 2), np.int32),
        ("std::math::gcd(a[0, 1], a[1, 2])", np.asarray(math.gcd(int(A[0, 1]), int(A[1, 2])), dtype=object), np.int32),
        ("std::math::gcd(" + I32MIN + ", 6)", np.asarray(2, dtype=object), np.int32),
        ("std::math::gcd(" + I32MIN + ", 0)", np.asarray(2 ** 31, dtype=object), np.int32),
        ("std::math::lcm(a[0, 1], a[0, 2])", np.asarray(math.lcm(-4, 9), dtype=object), np.int32),
        ("std::math::lcm(65536, 65537)", np.asarray(65536 * 65537, dtype=object), np.int32),
        ("std::math::lcm(h[0], 7 as i64)", np.asarray(math.lcm(3000000000, 7), dtype=object), np.int64),
    ]
    for expr, v, dt in layers + convs + elementwise:
        add(expr, v, dt)
    # window means and norms of integers are f64, as np.mean / np.linalg.norm
    for expr, v in [
        ("std::ml::average_pool([g], [2], [], [])", (G[None, :, :2].astype(np.float64) + G[None, :, 1:].astype(np.float64)) / 2),
        ("std::ml::global_average_pool([g])", G.astype(np.float64).mean(axis=-1)[None, :, None]),
        ("std::ml::lp_pool([g], [3], [], 1)", np.abs(G.astype(np.float64)).sum(axis=-1)[None, :, None]),
        ("std::ml::frobenius_norm(g)", np.linalg.norm(G.astype(np.float64))),
        ("std::ml::vec_norm_2(g)", np.linalg.norm(G.astype(np.float64), axis=-1)),
        ("std::ml::det(s)", np.linalg.det(S.astype(np.float64))),
    ]:
        v = np.asarray(v, dtype=np.float64)
        out.append((expr, v, ty(v, "f64")))
    return out
