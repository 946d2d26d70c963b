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
PRELUDE = [
    "let a: [i32; 2, 3] = [[1, -4, 9], [0, 2, 3]];",
    "let g: [i32; 2, 3] = [[1500000000, 700000000, -3], [1200000000, 5, 1000000000]];",
    "let n: [i32; 2, 3] = [[-1500000000, 700000000, 5], [-1200000000, 1500000000, -1000000000]];",
    "let p: [i32; 2, 3] = [[70000, 3, 2], [50000, 1, 2]];",
    "let w: [i64; 3] = [5000000000000000000, 5000000000000000000, 3];",
    "let h: [i64; 3] = [3000000000, -5, 7];",
    "let s: [i32; 2, 2] = [[46341, 2], [3, 46341]];",
    "let t: [i32; 2, 2] = [[2000000000, 7], [-9, 2000000000]];",
]
INPUTS = {"a": A, "g": G, "n": N, "p": P, "w": W, "h": H, "s": S, "t": T}


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
    return {"int32": "i32", "int64": "i64"}[str(np.asarray(x).dtype)]


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
    return out
