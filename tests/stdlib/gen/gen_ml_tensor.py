"""std::ml tests, part 3: linear algebra, shape operations and indexing."""
import itertools

import numpy as np

from common import TestFile, decimals
from gen_ml import f64, quarters


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
        Lu = np.tril(Sd, -1) + np.eye(n)
        t.check(f"solve_triangular_lower_unit(S{i}, b{i})", np.linalg.solve(Lu, f64(b)).astype(S.dtype), kind)
        t.check(f"solve_cholesky(S{i}, b{i})", np.linalg.solve(Sd, f64(b)).astype(S.dtype), kind)
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
                 "count is E004", uses=["std::ml::reshape"])
    t.raw("print(reshape([1, 2, 3, 4, 5, 6], [4, 2]));")
    t.expect_error("E004")
    t.write()


def shape_ops_file():
    t = TestFile("ml/shape_ops.ein", "std::ml reshape, shape, squeeze, unsqueeze, expand, split "
                 "(ONNX forms and the single-integer ones)", uses=["std::ml::*"])
    x = t.let("r", np.arange(12) - 3, "i32")
    for shp in ([3, 4], [-1, 6], [12, 1], [2, -1], [2, 3, 2], [1, -1, 2, 3], [12]):
        t.check(f"reshape(r, {shp})", x.reshape(shp), "i32")
    y = t.let("rf", decimals(1000, (2, 3, 1)), "f64")
    t.check("reshape(rf, [3, 2])", y.reshape(3, 2), "f64")
    t.check("reshape(rf, [0, -1])", y.reshape(2, -1), "f64")
    t.check("typeof(reshape(rf, [3, 2]))", "[f64; 3, 2]", "str")
    t.raw("let annotated: [f64; 6] = reshape(rf, [6]);")
    t.check("std::ml::relu(annotated)", np.maximum(y.reshape(6), 0), "f64")
    for i, shape in enumerate([(5,), (2, 3), (2, 1, 2)]):
        v = t.let(f"sh{i}", decimals(1005 + i, shape), "f32")
        t.check(f"shape(sh{i})", np.array(shape), "i32")
    for i, (shape, kind) in enumerate([((3,), "f32"), ((2, 3), "i64"), ((2, 2, 2), "f64"),
                                       ((4, 1), "bool")]):
        v = (ints(1010 + i, shape) > 0) if kind == "bool" else \
            (ints(1010 + i, shape) if kind[0] == "i" else decimals(1010 + i, shape))
        v = t.let(f"s{i}", v, kind)
        for ax in range(-len(shape) - 1, len(shape) + 1):
            t.check(f"unsqueeze(s{i}, {ax})", np.expand_dims(v, ax), kind)
        for ax in range(len(shape) + 1):
            t.check(f"squeeze(unsqueeze(s{i}, {ax}), {ax})", v, kind)
        for axes in ([0], [0, len(shape) + 1], [-1, 1]):
            t.check(f"unsqueeze(s{i}, {axes})", np.expand_dims(v, tuple(axes)), kind)
        t.check(f"squeeze(unsqueeze(s{i}, [0, -1]), [0, -1])", v, kind)
        t.check(f"expand(s{i}, 3)", np.broadcast_to(v, (3,) + v.shape), kind)
        for target in ([2] + [1] * len(shape), [3] + list(shape), list(shape[1:]) or [1]):
            ref = v * np.ones(target, dtype=v.dtype) if kind != "bool" else np.broadcast_to(v, np.broadcast_shapes(v.shape, tuple(target)))
            t.check(f"expand(s{i}, {target})", ref, kind)
        for sizes in ([1, shape[0] - 1], [shape[0]]):
            if min(sizes) < 0:
                continue
            names = ", ".join(f"p{i}_{k}" for k in range(len(sizes)))
            parts = np.split(v, np.cumsum(sizes)[:-1], axis=0)
            if len(sizes) == 1:
                t.check(f"split(s{i}, {sizes}, 0).0", parts[0], kind)
                continue
            t.raw(f"let ({names}) = split(s{i}, {sizes}, 0);")
            for k, part in enumerate(parts):
                if part.size:
                    t.check(f"p{i}_{k}", part, kind)
        if len(shape) >= 2:
            t.raw(f"let (q{i}_0, q{i}_1) = split(s{i}, 2, -1);" if shape[-1] % 2 == 0 else
                  f"let (q{i}_0, q{i}_1) = split(s{i}, [1, {shape[-1] - 1}], -1);")
            parts = np.split(v, 2, axis=-1) if shape[-1] % 2 == 0 else np.split(v, [1], axis=-1)
            t.check(f"q{i}_0", parts[0], kind)
            t.check(f"q{i}_1", parts[1], kind)
    t.raw("let row: [i32; 1, 3] = [[1, 2, 3]];")
    t.check("squeeze(row, 0)", np.array([1, 2, 3]), "i32")
    t.check("squeeze(row, [])", np.array([1, 2, 3]), "i32")
    t.check("squeeze(unsqueeze(row, -1), -1)", np.array([[1, 2, 3]]), "i32")
    t.write()
    for name, code in [("squeeze_extent", "print(squeeze([[1, 2]], 1));"),
                       ("expand_shapes", "print(expand([1, 2, 3], [2, 2]));"),
                       ("split_sizes", "let (a, b) = split([1, 2, 3], [1, 1], 0);")]:
        t = TestFile(f"ml/errors/{name}.ein", f"std::ml {name.split('_')[0]} with shapes that do not fit is E004",
                     uses=["std::ml::*"])
        t.raw(code)
        t.expect_error("E004")
        t.write()


def indexing_file():
    t = TestFile("ml/indexing.ein", "std::ml gather, gather_elements, gather_nd, scatter, "
                 "scatter_elements, scatter_nd, onehot (ONNX; negative indices from the end)",
                 uses=["std::ml::*"])
    for i, (shape, kind) in enumerate([((5,), "f64"), ((4, 3), "i32"), ((3, 2, 4), "f32")]):
        d = t.let(f"d{i}", ints(1100 + i, shape) if kind[0] == "i" else decimals(1100 + i, shape),
                  kind)
        for axis in range(-len(shape), len(shape)):
            n = shape[axis]
            lab = f"{i}_{axis + len(shape)}"
            idx = np.array([n - 1, 0, -1, 1, -n])
            t.let(f"ix{lab}", idx, "i32")
            t.check(f"gather(d{i}, ix{lab}, {axis})", np.take(d, idx, axis=axis), kind)
            idx2 = np.array([[0, -1], [1, 1], [n - 1, 0]])
            t.let(f"iy{lab}", idx2, "i32")
            t.check(f"gather(d{i}, iy{lab}, {axis})", np.take(d, idx2 % n, axis=axis), kind)
            t.check(f"gather(d{i}, -1, {axis})", np.take(d, -1, axis=axis), kind)
            # gather_elements / scatter_elements along this axis, indices smaller than data
            ishape = tuple(max(1, e - 1) for e in shape)
            ie = np.random.default_rng(1140 + 10 * i + axis).integers(-n, n, size=ishape)
            t.let(f"ie{lab}", ie, "i32")
            ax = axis % len(shape)
            ge = np.zeros(ishape, dtype=d.dtype)
            for pos in itertools.product(*(range(e) for e in ishape)):
                src = list(pos)
                src[ax] = ie[pos] % n
                ge[pos] = d[tuple(src)]
            t.check(f"gather_elements(d{i}, ie{lab}, {axis})", ge, kind)
            u = t.let(f"ue{lab}", ints(1150 + 10 * i + axis, ishape) if kind[0] == "i" else
                      decimals(1150 + 10 * i + axis, ishape), kind)
            ref = d.copy()
            for pos in itertools.product(*(range(e) for e in ishape)):
                tgt = list(pos)
                tgt[ax] = ie[pos] % n
                ref[tuple(tgt)] = u[pos]  # in order: the last update of a position wins
            t.check(f"scatter_elements(d{i}, ie{lab}, ue{lab}, {axis})", ref, kind)
            t.check(f"scatter(d{i}, ie{lab}, ue{lab}, {axis})", ref, kind)
        # gather_nd / scatter_nd with index tuples of every length
        for k in range(1, len(shape) + 1):
            ind = np.stack([np.random.default_rng(1170 + 10 * i + k + a).integers(-shape[a], shape[a], size=(2, 2))
                            for a in range(k)], axis=-1)
            t.let(f"nd{i}_{k}", ind, "i32")
            ref = np.array([[d[tuple(ind[p, q] % np.array(shape[:k]))] for q in range(2)] for p in range(2)])
            t.check(f"gather_nd(d{i}, nd{i}_{k})", ref, kind)
            upd_shape = (2, 2) + shape[k:]
            up = t.let(f"un{i}_{k}", ints(1180 + 10 * i + k, upd_shape) if kind[0] == "i" else
                       decimals(1180 + 10 * i + k, upd_shape), kind)
            ref = d.copy()
            for p in range(2):
                for q in range(2):
                    ref[tuple(ind[p, q] % np.array(shape[:k]))] = up[p, q]
            t.check(f"scatter_nd(d{i}, nd{i}_{k}, un{i}_{k})", ref, kind)
    for i, shape in enumerate([(4,), (2, 3)]):
        idx = t.let(f"oh{i}", ints(1120 + i, shape, -4, 4), "i32")
        t.check(f"onehot(oh{i}, 4, [0.0, 1.0])", np.eye(4, dtype=np.float32)[idx % 4], "f32")
        t.check(f"onehot(oh{i}, 4, [-1, 3])", np.where(np.eye(4)[idx % 4] > 0, 3, -1), "i32")
    t.check("onehot([0, 5], 3, [0.0, 1.0])", np.array([[1, 0, 0], [0, 0, 0]], dtype=np.float32), "f32")
    t.write()
    t = TestFile("ml/errors/gather_index.ein", "std::ml gather with an index out of range is E005",
                 uses=["std::ml::gather"])
    t.raw("let i: [i32; 1] = [7];", "print(gather([1, 2, 3], i, 0));")
    t.expect_error("E005")
    t.write()
    t = TestFile("ml/errors/scatter_index.ein", "std::ml scatter_nd with an index out of range is "
                 "E005", uses=["std::ml::scatter_nd"])
    t.raw("print(scatter_nd([1, 2, 3], [[5]], [9]));")
    t.expect_error("E005")
    t.write()


def generate():
    linalg_file()
    singular_error()
    shape_ops_file()
    indexing_file()
