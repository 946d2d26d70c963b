"""std::ml tests, part 3: linear algebra, shape operations, indexing, losses and utilities."""
import numpy as np

from common import TestFile, decimals
from gen_ml import f64, log_softmax, quarters


def ints(seed, shape, lo=-5, hi=6):
    return np.random.default_rng(seed).integers(lo, hi, size=shape)


def spd(seed, n):
    a = decimals(seed, (n, n), -1, 1)
    return np.round(a @ a.T + n * np.eye(n), 2)


def lu_ref(A):
    """Partial pivoting as LAPACK's getrf (first largest |pivot|), in scipy's A = P L U form."""
    n = len(A)
    M = A.astype(np.float64).copy()
    perm = np.arange(n)
    for t in range(n):
        p = t + int(np.argmax(np.abs(M[t:, t])))
        M[[t, p]] = M[[p, t]]
        perm[[t, p]] = perm[[p, t]]
        if M[t, t] != 0:
            M[t + 1:, t] /= M[t, t]
            M[t + 1:, t + 1:] -= np.outer(M[t + 1:, t], M[t, t + 1:])
    L = np.tril(M, -1) + np.eye(n)
    U = np.triu(M)
    P = np.zeros((n, n))
    P[perm, np.arange(n)] = 1
    assert np.allclose(P @ L @ U, A)
    return P, L, U


def linalg_file():
    t = TestFile("ml/linalg.ein", "std::ml linear algebra: products, factorisations, solves, "
                 "norms", uses=["std::ml::*"])
    for i, (sa, sb, kind) in enumerate([((2, 3), (3, 4), "f64"), ((2, 2, 3), (3, 2), "f32"),
                                        ((1, 2, 2, 2), (2, 3), "f64"), ((3, 3), (3, 1), "i32")]):
        gen = (lambda s, sh: ints(s, sh)) if kind == "i32" else quarters
        A = t.let(f"A{i}", gen(900 + i, sa), kind)
        B = t.let(f"B{i}", gen(910 + i, sb), kind)
        t.check(f"matmul(A{i}, B{i})", np.matmul(A, B), kind)
    for i, (sa, sb, kind) in enumerate([((3,), (3,), "f64"), ((3,), (3, 2), "f32"),
                                        ((2, 3), (3,), "f64"), ((2, 2, 3), (3,), "f32"),
                                        ((3,), (2, 3, 2), "f64"), ((2, 3), (2, 3, 2), "f32")]):
        A = t.let(f"VA{i}", quarters(925 + i, sa), kind)
        B = t.let(f"VB{i}", quarters(935 + i, sb), kind)
        t.check(f"matmul(VA{i}, VB{i})", np.matmul(A, B), kind)
    for i, (sa, sb, kind) in enumerate([((2, 2, 3), (2, 3, 2), "f32"), ((2, 1, 2, 2), (2, 1, 2, 3), "f64")]):
        A = t.let(f"BA{i}", quarters(920 + i, sa), kind)
        B = t.let(f"BB{i}", quarters(930 + i, sb), kind)
        t.check(f"batch_matmul(BA{i}, BB{i})", np.matmul(A, B), kind)
        t.check(f"matmul(BA{i}, BB{i})", np.matmul(A, B), kind)
    for i, (n, kind) in enumerate([(1, "f64"), (3, "f64"), (4, "f32"), (5, "f64")]):
        S = t.let(f"S{i}", spd(940 + i, n), kind)
        b = t.let(f"b{i}", decimals(950 + i, (n,)), kind)
        Sd = f64(S)
        t.check(f"cholesky(S{i})", np.linalg.cholesky(Sd).astype(S.dtype), kind)
        t.check(f"solve(S{i}, b{i})", np.linalg.solve(Sd, f64(b)).astype(S.dtype), kind)
        L = np.tril(Sd)
        U = np.triu(Sd)
        t.check(f"solve_triangular_lower(S{i}, b{i})", np.linalg.solve(L, f64(b)).astype(S.dtype), kind)
        t.check(f"solve_triangular_upper(S{i}, b{i})", np.linalg.solve(U, f64(b)).astype(S.dtype), kind)
        t.check(f"det(S{i})", np.linalg.det(Sd), kind)
        t.check(f"inv(S{i})", np.linalg.inv(Sd).astype(S.dtype), kind)
    # batches of matrices for cholesky and the triangular solves
    for i, (lead, n, kind) in enumerate([((2,), 3, "f64"), ((2, 2), 2, "f32")]):
        S = np.stack([spd(945 + 10 * i + j, n) for j in range(int(np.prod(lead)))]).reshape(lead + (n, n))
        S = t.let(f"BS{i}", S, kind)
        b = t.let(f"Bb{i}", decimals(955 + i, lead + (n,)), kind)
        t.check(f"cholesky(BS{i})", np.linalg.cholesky(f64(S)).astype(S.dtype), kind)
        L = np.tril(f64(S))
        U = np.triu(f64(S))
        t.check(f"solve_triangular_lower(BS{i}, Bb{i})",
                np.linalg.solve(L, f64(b)[..., None])[..., 0].astype(S.dtype), kind)
        t.check(f"solve_triangular_upper(BS{i}, Bb{i})",
                np.linalg.solve(U, f64(b)[..., None])[..., 0].astype(S.dtype), kind)
    # general (non-symmetric) matrices, where pivoting matters
    for i, n in enumerate([2, 3, 4]):
        A = t.let(f"G{i}", decimals(960 + i, (n, n), -3, 3), "f64")
        b = t.let(f"g{i}", decimals(970 + i, (n,)), "f64")
        t.check(f"solve(G{i}, g{i})", np.linalg.solve(A, b), "f64")
        P, L, U = lu_ref(A)
        t.raw(f"let (P{i}, L{i}, U{i}) = lu(G{i});")
        t.check(f"P{i}", P, "f64")
        t.check(f"L{i}", L, "f64")
        t.check(f"U{i}", U, "f64")
        t.check(f"det(G{i})", np.linalg.det(A), "f64")
        t.check(f"inv(G{i})", np.linalg.inv(A), "f64")
    t.raw("let needs_pivot = [[0.0, 1.0], [1.0, 0.0]];")
    t.check("solve(needs_pivot, [2.0, 3.0])", np.array([3.0, 2.0]), "f32")
    t.check("det(needs_pivot)", -1.0, "f32")
    for i, (shape, kind) in enumerate([((4,), "f64"), ((2, 3), "f32"), ((2, 2, 2), "f64")]):
        x = t.let(f"v{i}", decimals(980 + i, shape), kind)
        t.check(f"vec_norm_2(v{i})", np.linalg.norm(f64(x), axis=-1).astype(x.dtype), kind)
        t.check(f"matrix_norm_frobenius(v{i})", np.sqrt((f64(x) ** 2).sum()), kind)
    a = t.let("da", decimals(990, (5,)), "f64")
    b = t.let("db", decimals(991, (5,)), "f64")
    t.check("dot(da, db)", np.dot(a, b), "f64")
    t.write()


def singular_error():
    t = TestFile("ml/errors/solve_singular.ein", "std::ml solve of a singular matrix is E007",
                 uses=["std::ml::solve"])
    t.raw("let A = [[1.0, 2.0], [2.0, 4.0]];", "print(solve(A, [1.0, 1.0]));")
    t.expect_error("E007")
    t.write()
    t = TestFile("ml/errors/matmul_shapes.ein", "std::ml matmul with mismatched inner extents "
                 "is E004", uses=["std::ml::matmul"])
    t.raw("print(matmul([[1.0, 2.0]], [[1.0, 2.0]]));")
    t.expect_error("E004", line_of_last_statement=False)
    t.write()
    t = TestFile("ml/errors/reshape_count.ein", "std::ml reshape to a shape with another element "
                 "count is E007", uses=["std::ml::reshape"])
    t.raw("print(reshape([1, 2, 3, 4, 5, 6], [4, 2]));")
    t.expect_error("E007")
    t.write()


def shape_ops_file():
    t = TestFile("ml/shape_ops.ein", "std::ml reshape, flatten, squeeze, unsqueeze, expand, "
                 "split, concat, tile, transpose, swap_last_axes, pad", uses=["std::ml::*"])
    x = t.let("r", np.arange(12) - 3, "i32")
    for shp in ([3, 4], [-1, 6], [12, 1], [2, -1]):
        t.check(f"reshape(r, {shp})", x.reshape(shp), "i32")
    y = t.let("rf", decimals(1000, (2, 3, 1)), "f64")
    t.check("reshape(rf, [3, 2])", y.reshape(3, 2), "f64")
    for i, shape in enumerate([(5,), (2, 3), (2, 3, 2, 2), (2, 1, 2)]):
        v = t.let(f"fl{i}", decimals(1001 + i, shape), "f32")
        t.check(f"flatten(fl{i})", v.reshape(shape[0], -1), "f32")
    for i, (shape, kind) in enumerate([((3,), "f32"), ((2, 3), "i64"), ((2, 2, 2), "f64"),
                                       ((4, 1), "bool")]):
        v = (ints(1010 + i, shape) > 0) if kind == "bool" else \
            (ints(1010 + i, shape) if kind[0] == "i" else decimals(1010 + i, shape))
        v = t.let(f"s{i}", v, kind)
        for ax in range(-len(shape) - 1, len(shape) + 1):
            t.check(f"unsqueeze(s{i}, {ax})", np.expand_dims(v, ax), kind)
        for ax in range(len(shape) + 1):
            t.check(f"squeeze(unsqueeze(s{i}, {ax}), {ax})", v, kind)
        t.check(f"expand(s{i}, 3)", np.broadcast_to(v, (3,) + v.shape), kind)
        for k in (0, 1, shape[0]):
            t.raw(f"let (h{i}_{k}, t{i}_{k}) = split(s{i}, {k});")
            if k > 0:
                t.check(f"h{i}_{k}", v[:k], kind)
            if k < shape[0]:
                t.check(f"t{i}_{k}", v[k:], kind)
            t.check(f"len(h{i}_{k}) + len(t{i}_{k})", shape[0], "i32")
        t.check(f"concat(s{i}, s{i})", np.concatenate([v, v]), kind)
        t.check(f"tile(s{i}, 2)", np.concatenate([v, v]), kind)
        t.check(f"tile(s{i}, 1)", v, kind)
        t.check(f"transpose(s{i})", v.T, kind)
        if len(shape) >= 2:
            t.check(f"swap_last_axes(s{i})", np.swapaxes(v, -1, -2), kind)
    t.raw("let row: [i32; 1, 3] = [[1, 2, 3]];")
    t.check("squeeze(row, 0)", np.array([1, 2, 3]), "i32")
    t.check("squeeze(unsqueeze(row, -1), -1)", np.array([[1, 2, 3]]), "i32")
    for i, (shape, kind) in enumerate([((3,), "i32"), ((2, 3), "f32"), ((2, 1, 2), "f64")]):
        P = t.let(f"P{i}", ints(1020 + i, shape) if kind[0] == "i" else decimals(1020 + i, shape),
                  kind)
        t.raw(f"let pv{i}: {kind} = {'-1' if kind[0] == 'i' else '-1.5'};")
        for pads in ([1] * len(shape) + [0] * len(shape),
                     [(a * 2 + i) % 3 for a in range(2 * len(shape))]):
            widths = [(pads[a], pads[a + len(shape)]) for a in range(len(shape))]
            ref = np.pad(P, widths, constant_values=-1 if kind[0] == "i" else -1.5)
            t.check(f"pad(P{i}, {pads}, pv{i})", ref, kind)
    t.write()


def indexing_file():
    t = TestFile("ml/indexing.ein", "std::ml gather, scatter, onehot (axis 0, negative indices "
                 "from the end)", uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((5,), "f64"), ((4, 3), "i32"), ((3, 2, 2), "f32")]):
        d = t.let(f"d{i}", ints(1100 + i, shape) if kind[0] == "i" else decimals(1100 + i, shape),
                  kind)
        n = shape[0]
        idx = np.array([n - 1, 0, -1, 1, -n])
        t.let(f"ix{i}", idx, "i32")
        t.check(f"gather(d{i}, ix{i})", np.take(d, idx, axis=0), kind)
        idx2 = np.array([[0, -1], [1, 1], [n - 1, 0]])
        t.let(f"ix2_{i}", idx2, "i32")
        t.check(f"gather(d{i}, ix2_{i})", np.take(d, idx2 % n, axis=0), kind)
        t.raw(f"let one{i}: i32 = -2;")
        t.check(f"gather(d{i}, one{i})", d[-2], kind)
        upd_idx = np.array([1, -1, 1])
        t.let(f"ui{i}", upd_idx, "i32")
        u = t.let(f"u{i}", ints(1110 + i, (3,) + shape[1:]) if kind[0] == "i" else
                  decimals(1110 + i, (3,) + shape[1:]), kind)
        ref = d.copy()
        for k, j in enumerate(upd_idx):
            ref[j] = u[k]  # the last update of a repeated index wins
        t.check(f"scatter(d{i}, ui{i}, u{i})", ref, kind)
    for i, shape in enumerate([(4,), (2, 3)]):
        idx = t.let(f"oh{i}", ints(1120 + i, shape, 0, 4), "i32")
        t.check(f"onehot(oh{i}, 4)", np.eye(4, dtype=np.float32)[idx], "f32")
    t.check("onehot([0, 5, -1], 3)", np.array([[1, 0, 0], [0, 0, 0], [0, 0, 0]], dtype=np.float32),
            "f32")
    t.write()


def losses_file():
    t = TestFile("ml/losses.ein", "std::ml losses, mean reduction (PyTorch semantics)",
                 uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((5,), "f64"), ((2, 3), "f32"), ((2, 2, 2), "f64")]):
        p = t.let(f"p{i}", decimals(1200 + i, shape), kind)
        y = t.let(f"y{i}", decimals(1210 + i, shape), kind)
        d = f64(p) - f64(y)
        t.check(f"mse_loss(p{i}, y{i})", (d ** 2).mean(), kind)
        t.check(f"l1_loss(p{i}, y{i})", np.abs(d).mean(), kind)
        delta = 0.75
        a = np.abs(d)
        huber = np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)).mean()
        if kind == "f32":
            t.check(f"huber_loss(p{i}, y{i}, {delta})", huber, kind)
        else:
            t.raw(f"let delta{i}: f64 = {delta};")
            t.check(f"huber_loss(p{i}, y{i}, delta{i})", huber, kind)
        s = t.let(f"sc{i}", decimals(1220 + i, shape, -2, 2), kind)
        lab = t.let(f"lab{i}", np.where(ints(1230 + i, shape) > 0, 1.0, -1.0), kind)
        t.check(f"hinge_loss(sc{i}, lab{i})", np.maximum(0, 1 - f64(lab) * f64(s)).mean(), kind)
        pr = t.let(f"pr{i}", decimals(1240 + i, shape, 0.05, 0.95), kind)
        yy = t.let(f"yy{i}", (ints(1250 + i, shape) > 0).astype(float), kind)
        pr64, yy64 = f64(pr), f64(yy)
        t.check(f"binary_cross_entropy(pr{i}, yy{i})",
                -(yy64 * np.log(pr64) + (1 - yy64) * np.log(1 - pr64)).mean(), kind)
        z = t.let(f"z{i}", decimals(1260 + i, shape, -4, 4), kind)
        z64 = f64(z)
        t.check(f"binary_cross_entropy_with_logits(z{i}, yy{i})",
                (np.maximum(z64, 0) - z64 * yy64 + np.log1p(np.exp(-np.abs(z64)))).mean(), kind)
    t.check("binary_cross_entropy([1.0, 0.0], [0.0, 1.0])", 100.0, "f32")
    for i, (N, C, kind) in enumerate([(3, 4, "f64"), (2, 5, "f32"), (1, 2, "f64")]):
        lg = t.let(f"lg{i}", decimals(1270 + i, (N, C), -3, 3), kind)
        tg = t.let(f"tg{i}", ints(1280 + i, (N,), 0, C), "i32")
        ls = log_softmax(f64(lg))
        t.check(f"cross_entropy_loss(lg{i}, tg{i})", -ls[np.arange(N), tg].mean(), kind)
        lp = t.let(f"lp{i}", np.round(ls, 2), kind)
        t.check(f"nll_loss(lp{i}, tg{i})", -f64(lp)[np.arange(N), tg].mean(), kind)
    t.write()


def utils_file():
    t = TestFile("ml/utils.ein", "std::ml eye, trace, outer, kron, tril, triu, flip, flipud, "
                 "where, select, cumsum, cumprod", uses=["std::ml::*"])
    for n in (1, 3):
        t.check(f"eye({n})", np.eye(n, dtype=np.float32), "f32")
    t.check("typeof(eye(2))", "[f32; 2, 2]", "str")
    for i, (shape, kind) in enumerate([((3, 3), "f64"), ((2, 4), "i32"), ((4, 2), "f32")]):
        x = t.let(f"m{i}", ints(1300 + i, shape) if kind[0] == "i" else decimals(1300 + i, shape),
                  kind)
        t.check(f"trace(m{i})", np.trace(x), kind)
        for k in (-1, 0, 2):
            t.check(f"tril(m{i}, {k})", np.tril(x, k), kind)
            t.check(f"triu(m{i}, {k})", np.triu(x, k), kind)
        t.check(f"flip(m{i})", np.flip(x), kind)
        t.check(f"flipud(m{i})", np.flip(x, 0), kind)
        t.check(f"cumsum(m{i})", np.cumsum(x, axis=-1), kind)
    x3 = t.let("t3", decimals(1310, (2, 3, 3)), "f64")
    t.check("trace(t3)", np.trace(x3), "f64")
    t.check("tril(t3, 0)", np.tril(x3), "f64")
    t.check("triu(t3, 1)", np.triu(x3, 1), "f64")
    t.check("flip(t3)", np.flip(x3), "f64")
    t.check("flipud(t3)", np.flip(x3, 0), "f64")
    t.check("cumsum(t3)", np.cumsum(x3, axis=-1), "f64")
    v = t.let("fv", ints(1312, (5,)), "i64")
    t.check("flip(fv)", np.flip(v), "i64")
    t.check("flipud(fv)", np.flip(v), "i64")
    c = t.let("cp", decimals(1311, (2, 4), 0.5, 1.5), "f64")
    t.check("cumprod(cp)", np.cumprod(c, axis=-1), "f64")
    t.check("cumsum([1, 2, 3, 4])", np.cumsum([1, 2, 3, 4]), "i32")
    a = t.let("oa", decimals(1320, (3,)), "f64")
    b = t.let("ob", decimals(1321, (4,)), "f64")
    t.check("outer(oa, ob)", np.outer(a, b), "f64")
    a2 = t.let("oa2", decimals(1322, (2, 2)), "f64")
    t.check("outer(oa2, ob)", np.outer(a2, b), "f64")
    A = t.let("KA", ints(1330, (2, 3)), "i32")
    B = t.let("KB", ints(1331, (2, 2)), "i32")
    t.check("kron(KA, KB)", np.kron(A, B), "i32")
    Af = t.let("KAf", decimals(1332, (1, 2)), "f64")
    Bf = t.let("KBf", decimals(1333, (3, 1)), "f64")
    t.check("kron(KAf, KBf)", np.kron(Af, Bf), "f64")
    va = t.let("Kva", ints(1334, (3,)), "i32")
    vb = t.let("Kvb", ints(1335, (2,)), "i32")
    t.check("kron(Kva, Kvb)", np.kron(va, vb), "i32")
    t.check("kron(Kva, KB)", np.kron(va, B), "i32")
    t.check("kron(KB, Kvb)", np.kron(B, vb), "i32")
    for i, (shape, kind) in enumerate([((4,), "f32"), ((2, 3), "i64"), ((2, 2, 2), "f64")]):
        cnd = t.let(f"c{i}", ints(1340 + i, shape) > 0, "bool")
        x = t.let(f"x{i}", ints(1350 + i, shape) if kind[0] == "i" else decimals(1350 + i, shape),
                  kind)
        y = t.let(f"y{i}", ints(1360 + i, shape) if kind[0] == "i" else decimals(1360 + i, shape),
                  kind)
        t.check(f"where(c{i}, x{i}, y{i})", np.where(cnd, x, y), kind)
        t.check(f"select(c{i}, x{i}, y{i})", np.where(cnd, x, y), kind)
    t.raw("let sc: bool = false;", "let s1: f64 = 1.5;", "let s2: f64 = -2.0;")
    t.check("where(sc, s1, s2)", -2.0, "f64")
    t.check("where(true, 1, 2)", 1, "i32")
    t.write()


def generate():
    linalg_file()
    singular_error()
    shape_ops_file()
    indexing_file()
    losses_file()
    utils_file()
