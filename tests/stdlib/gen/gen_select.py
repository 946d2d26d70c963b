"""Ordering edge cases against NumPy (session 16, when sort/argsort/topk moved onto the
`__argsort` intrinsic): ties, NaN, -0.0, infinities, empty rows, 3-D inputs along every axis,
i64 values above 2^53, and rows long enough (>= 256) for the intrinsic's radix path. Also the
sign of zero through relu / leaky_relu / prelu / max / min (np.maximum gives its second operand
on ties) and cosine_similarity with same-rank extent-1 axes (PyTorch broadcasting).

Expected orders: ascending is np.argsort(kind="stable") (NaN last, -0.0 equal to 0.0);
descending (topk) puts NaN first (NaN is the largest value), then the largest, ties by index.
"""
import numpy as np

from common import TestFile

MODES = "//$ EIN_JIT=never|always"
NAN, INF, NINF = 99.0, 98.0, 97.0  # placeholders in the literals, replaced in Einlang


def modes_file(rel, purpose, uses):
    """A test file run with EIN_JIT=never and always."""
    t = TestFile(rel, purpose, uses=uses)
    t.raw(MODES)
    return t


def desc_order(x, axis=-1):
    """The stable descending order with NaN first, along axis."""
    x = np.moveaxis(np.asarray(x, dtype=np.float64), axis, -1)
    isn = np.isnan(x)
    idx = np.broadcast_to(np.arange(x.shape[-1]), x.shape)
    o = np.lexsort((idx, np.where(isn, 0.0, -np.where(isn, 0.0, x)), ~isn), axis=-1)
    return np.moveaxis(o, -1, axis)


def with_specials(raw):
    x = raw.astype(np.float64).copy()
    x[raw == NAN] = np.nan
    x[raw == INF] = np.inf
    x[raw == NINF] = -np.inf
    return x


def special_let(t, name, raw, kind):
    """Binds name to raw with NaN / inf / -inf at the placeholders (built in Einlang: a literal
    has no NaN); returns the NumPy array Einlang holds."""
    rank = raw.ndim
    ix = ", ".join(f"i{k}" for k in range(rank))
    t.let(f"{name}_raw", raw, kind)
    t.raw(f"let {name}[{ix}] = if {name}_raw[{ix}] == {NAN} {{ 0.0 / 0.0 }} else if {name}_raw[{ix}] == {INF} "
          f"{{ 1.0 / 0.0 }} else if {name}_raw[{ix}] == {NINF} {{ -1.0 / 0.0 }} else {{ {name}_raw[{ix}] }};")
    return with_specials(raw).astype(np.float32 if kind == "f32" else np.float64)


def take(x, o, axis=-1):
    return np.take_along_axis(x, o, axis=axis)


def specials_file():
    t = modes_file("array/select_specials.ein", "sort, argsort, topk_extract, topk_indices and std::ml::topk "
                 "with ties, NaN, -0.0 and infinities, short rows and rows of 256 or more", uses=["std::array::*"])
    rng = np.random.default_rng(4100)
    for i, (shape, kind) in enumerate([((3, 12), "f64"), ((2, 300), "f32"), ((4, 2, 9), "f64")]):
        raw = rng.integers(-6, 7, size=shape).astype(np.float64) / 2
        r = rng.random(shape)
        raw[r < 0.08] = NAN
        raw[(r >= 0.08) & (r < 0.12)] = INF
        raw[(r >= 0.12) & (r < 0.16)] = NINF
        raw[(r >= 0.16) & (r < 0.3)] = -0.0
        x = special_let(t, f"x{i}", raw, kind)
        asc = np.argsort(x, axis=-1, kind="stable")
        t.check(f"argsort(x{i})", asc, "i32")
        t.check(f"sort(x{i})", np.sort(x, axis=-1, kind="stable"), kind)
        # The sign of each zero survives the sort (the values are gathered, not summed).
        with np.errstate(divide="ignore"):
            t.check(f"1.0 / sort(x{i})", 1.0 / np.sort(x, axis=-1, kind="stable"), kind)
        d = desc_order(x)
        for k in (1, 5):
            t.check(f"topk_indices(x{i}, {k})", d[..., :k], "i32")
            t.check(f"topk_extract(x{i}, {k})", take(x, d[..., :k]), kind)
        for axis in range(x.ndim):
            dk = np.take(desc_order(x, axis), np.arange(2), axis=axis)
            t.check(f"std::ml::topk(x{i}, 2, {axis})", (take(x, dk, axis), dk), (kind, "i32"))
    t.write()


def ints_file():
    t = modes_file("array/select_ints.ein", "sort, argsort and topk of integers: i64 above 2^53 (compared "
                 "as integers), i32 rows with many ties, long rows, 3-D along every axis", uses=["std::array::*"])
    rng = np.random.default_rng(4200)
    big = rng.integers(-3, 4, size=(2, 3, 5)) * (2 ** 55) + rng.integers(0, 3, size=(2, 3, 5))
    v = t.let("b", big, "i64")
    t.check("argsort(b)", np.argsort(v, -1, kind="stable"), "i32")
    t.check("sort(b)", np.sort(v, -1), "i64")
    for axis in (0, 1, 2):
        o = np.take(np.argsort(-v, axis=axis, kind="stable"), np.arange(2), axis=axis)
        t.check(f"std::ml::topk(b, 2, {axis})", (take(v, o, axis), o), ("i64", "i32"))
    w = t.let("w", rng.integers(-3, 4, size=(2, 300)), "i32")
    t.check("argsort(w)", np.argsort(w, -1, kind="stable"), "i32")
    t.check("topk_indices(w, 9)", np.argsort(-w, -1, kind="stable")[:, :9], "i32")
    t.check("sort(w)", np.sort(w, -1), "i32")
    t.write()


def empty_file():
    t = modes_file("array/select_empty.ein", "ordering empty rows and k = 0", uses=["std::array::*"])
    t.raw("let e: [f32; 3, 0] = [[], [], []];")
    t.check("shape(sort(e))", np.array([3, 0]), "i32")
    t.check("shape(argsort(e))", np.array([3, 0]), "i32")
    t.check("shape(topk_extract(e, 2))", np.array([3, 0]), "i32")
    t.check("shape(std::ml::topk(e, 0, 1).0)", np.array([3, 0]), "i32")
    t.check("shape(std::ml::topk(e, 2, 0).1)", np.array([2, 0]), "i32")
    t.raw("let v: [f64; 4] = [3.0, 1.0, 2.0, 1.0];")
    t.check("len(topk_extract(v, 0))", 0, "i32")
    t.check("shape(topk_indices(v, 0))", np.array([0]), "i32")
    # The axis operations view an array around its axis with a computed reshape, whose 0 extents
    # are empty axes (ONNX Reshape's "0 copies" applies only to std::ml::reshape).
    t.raw("let e3[i in 0..2, j in 0..0, k in 0..3] = 1.0;")
    t.check("shape(std::ml::topk(e3, 1, 2).0)", np.array([2, 0, 1]), "i32")
    t.check("shape(std::ml::constant_of_shape([2, 0], 1.5))", np.array([2, 0]), "i32")
    t.check("shape(std::ml::lp_normalization(e, 0, 2))", np.array([3, 0]), "i32")
    t.check("shape(std::ml::gather(e, [0, 2], 0))", np.array([2, 0]), "i32")
    t.check("shape(std::ml::mean_variance_normalization(e, [0]))", np.array([3, 0]), "i32")
    t.check("shape(std::ml::reshape(e, [0, 0]))", np.array([3, 0]), "i32")
    t.write()


def signed_zero_file():
    t = modes_file("outside/signed_zero.ein", "the sign of zero: relu, max and min give np.maximum's / "
                 "np.minimum's (the second operand on ties), leaky_relu and prelu keep -0.0 (x * alpha), "
                 "elu, celu and selu give ONNX's 0.0",
                 uses=["std::ml::*"])
    z = t.let("z", np.array([[-0.0, 0.0, -2.0], [1.5, -0.0, 0.0]]), "f64")
    with np.errstate(divide="ignore"):
        inv = lambda y: 1.0 / y  # noqa: E731
        t.check("1.0 / relu(z)", inv(np.maximum(z, 0.0)), "f64")
        t.check("1.0 / std::math::max(z, 0.0)", inv(np.maximum(z, 0.0)), "f64")
        t.check("1.0 / std::math::min(z, 0.0)", inv(np.minimum(z, 0.0)), "f64")
        t.check("1.0 / std::math::max(0.0, z)", inv(np.maximum(0.0, z)), "f64")
        t.check("1.0 / clip(z, 0.0, 6.0)", inv(np.clip(z, 0.0, 6.0)), "f64")
        t.check("1.0 / leaky_relu(z, 0.1)", inv(np.where(z > 0, z, z * 0.1)), "f64")
        t.check("1.0 / prelu(z, 0.25)", inv(np.where(z < 0, z * 0.25, z)), "f64")
        t.check("1.0 / relu(-0.0)", np.inf, "f64")
        t.check("1.0 / leaky_relu(-0.0, 0.1)", -np.inf, "f64")
        # ONNX's Elu/Celu/Selu references: max(0, x) + min(0, alpha * (exp(x / a) - 1)) after
        # clipping x, which gives 0.0 at -0.0 (torch's x > 0 ? x : alpha * expm1(x) gives -0.0).
        def onnx_elu(x, alpha, scale=1.0):
            return scale * (np.clip(x, 0, np.inf) + (np.exp(np.clip(x, -np.inf, 0)) - 1) * alpha)
        t.check("1.0 / elu(z, 1.0)", inv(onnx_elu(z, 1.0)), "f64")
        t.check("1.0 / celu(z, 2.0)", inv(np.maximum(0, z) + np.minimum(0, 2.0 * (np.exp(z / 2.0) - 1)) + 0.0), "f64")
        t.check("1.0 / selu(z)", inv(onnx_elu(z, 1.6732632423543772, 1.0507009873554805)), "f64")
    zf = t.let("zf", np.array([-0.0, 2.0, -0.0, -1.0]), "f32")
    with np.errstate(divide="ignore"):
        t.check("1.0 / relu(zf)", (1.0 / np.maximum(zf, np.float32(0))).astype(np.float32), "f32")
        t.check("1.0 / leaky_relu(zf, 0.5)", (1.0 / np.where(zf > 0, zf, zf * np.float32(0.5))).astype(np.float32), "f32")
    t.write()


def cosine_file():
    t = modes_file("outside/cosine_broadcast.ein", "cosine_similarity of same-rank operands with extent-1 "
                 "axes broadcasts as in PyTorch (was E004)", uses=["std::ml::*"])
    rng = np.random.default_rng(4300)

    def cos(a, b):
        a, b = np.broadcast_arrays(a, b)
        return (a * b).sum(-1) / np.maximum(np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1), 1e-8)
    for i, (sa, sb, kind) in enumerate([((4, 3), (1, 3), "f32"), ((1, 5), (3, 5), "f64"), ((4, 3), (4, 1), "f64"),
                                         ((2, 3, 4), (2, 1, 4), "f64"), ((2, 1, 4), (1, 3, 4), "f32")]):
        a = t.let(f"a{i}", np.round(rng.uniform(-2, 2, sa), 2), kind)
        b = t.let(f"b{i}", np.round(rng.uniform(-2, 2, sb), 2), kind)
        t.check(f"cosine_similarity(a{i}, b{i})", cos(a.astype(np.float64), b.astype(np.float64)), kind)
    t.write()


def forms_file():
    t = modes_file("outside/select_forms.ein", "orderings the way NumPy users call them: bool and i8 "
                 "arrays, k given as i64 (NumPy's default int), one-element rows, and the gradient "
                 "of a sorted value inside a generic function", uses=["std::array::*"])
    b = np.array([True, False, True, False])
    t.let("b", b, "bool")
    t.check("sort(b)", np.sort(b), "bool")
    t.check("argsort(b)", np.argsort(b, kind="stable"), "i32")
    h = t.let("h", np.array([3, -1, 2, -1, 0]), "i8")
    t.check("sort(h)", np.sort(h), "i8")
    t.check("argsort(h)", np.argsort(h, kind="stable"), "i32")
    t.raw("let k: i64 = 2;")
    x = t.let("x", np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 5.0]]), "f64")
    o = np.argsort(-x, -1, kind="stable")[:, :2]
    t.check("topk_extract(x, k)", take(x, o), "f64")
    t.check("topk_indices(x, k)", o, "i32")
    t.check("std::ml::topk(x, k, -1)", (take(x, o), o), ("f64", "i32"))
    hv, hi = x[1][np.argsort(-x[1], kind="stable")[:2]], np.argsort(-x[1], kind="stable")[:2]
    t.check("std::ml::topk_1d_helper(x[1], k)", (hv, hi), ("f64", "i32"))
    t.raw("let ix: [i32; 3] = [10, 20, 30];")
    t.check("topk_with_indices_extract(x[0], ix, k)", (np.array([3.0, 2.0]), np.array([10, 30])), ("f64", "i32"))
    t.raw("let one: [f32; 1, 1] = [[2.5]];")
    t.check("sort(one)", np.array([[2.5]]), "f32")
    t.check("std::ml::topk(one, 1, 0)", (np.array([[2.5]]), np.array([[0]])), ("f32", "i32"))
    # d/dv of sum_i i * sort(v)[i]: each value gets the position it sorts to.
    v = np.array([3.0, 1.0, 2.0, -4.0, 2.0])
    t.let("v", v, "f64")
    t.raw("fn sorted_weights(v) { let s = sort(v); let l = sum[i](s[i] * (i as f64)); @l / @v }")
    t.check("sorted_weights(v)", np.argsort(np.argsort(v, kind="stable"), kind="stable").astype(np.float64), "f64")
    t.write()


def solve_file():
    t = modes_file("outside/solve_matrix_rhs.ein", "std::ml::solve with a matrix of right-hand sides "
                 "(np.linalg.solve(A, B) with B [n, k]; was E002)", uses=["std::ml::*"])
    rng = np.random.default_rng(4400)
    for i, (n, k, kind) in enumerate([(4, 2, "f64"), (3, 5, "f64"), (5, 1, "f32")]):
        a = np.round(rng.uniform(-2, 2, (n, n)), 2) + 4 * np.eye(n)
        A = t.let(f"A{i}", a, kind)
        Bm = t.let(f"B{i}", np.round(rng.uniform(-2, 2, (n, k)), 2), kind)
        t.check(f"solve(A{i}, B{i})", np.linalg.solve(A.astype(np.float64), Bm.astype(np.float64)), kind)
    # Gradients of sum(W * X), X = A^-1 B: dB = A^-T W, dA = -A^-T W X^T (hand derivation).
    a = np.round(rng.uniform(-2, 2, (3, 3)), 2) + 4 * np.eye(3)
    A = t.let("Ag", a, "f64")
    Bm = t.let("Bg", np.round(rng.uniform(-2, 2, (3, 2)), 2), "f64")
    W = t.let("Wg", np.round(rng.uniform(-1, 1, (3, 2)), 2), "f64")
    t.raw("let Xg = solve(Ag, Bg);", "let lg = sum[i, j](Xg[i, j] * Wg[i, j]);")
    G = np.linalg.solve(A.T, W)
    t.check("@lg / @Bg", G, "f64")
    t.check("@lg / @Ag", -G @ np.linalg.solve(A, Bm).T, "f64")
    # (Inside a generic function the recursive elimination is E013, for a vector b as well.)
    t.write()


def generate():
    forms_file()
    solve_file()
    specials_file()
    ints_file()
    empty_file()
    signed_zero_file()
    cosine_file()
