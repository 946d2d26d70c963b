"""std::array tests against NumPy: reshaping, reductions, ordering, over ranks and dtypes."""
import numpy as np

from common import TestFile, decimals


def ints(seed, shape, lo=-9, hi=10):
    return np.random.default_rng(seed).integers(lo, hi, size=shape)


def shape_file():
    t = TestFile("array/shape.ein", "std::array flatten, transpose, concatenate, concatenate_axis",
                 uses=["std::array::*"])
    for i, (shape, kind) in enumerate([((2, 3), "f32"), ((3, 1), "f64"), ((1, 4), "i32"),
                                       ((4, 2), "i64")]):
        x = ints(10 + i, shape) if kind.startswith("i") else decimals(10 + i, shape)
        v = t.let(f"m{i}", x, kind)
        t.check(f"flatten(m{i})", v.flatten(), kind)
        t.check(f"transpose(m{i})", v.T, kind)
        t.check(f"typeof(transpose(m{i}))", f"[{kind}; {shape[1]}, {shape[0]}]", "str")
    for i, (shape, kind) in enumerate([((4,), "f32"), ((2, 3, 2), "i32"), ((2, 1, 3, 2), "f64")]):
        x = ints(15 + i, shape) if kind.startswith("i") else decimals(15 + i, shape)
        v = t.let(f"n{i}", x, kind)
        t.check(f"flatten(n{i})", v.flatten(), kind)
        t.check(f"transpose(n{i})", v.T, kind)
    t.check("flatten(5)", np.array([5]), "i32")
    t.check("transpose([[1, 2]])", np.array([[1], [2]]), "i32")
    t.raw("let sc: f64 = 2.5;")
    t.check("flatten(sc)", np.array([2.5]), "f64")
    t.check("transpose(sc)", 2.5, "f64")
    b = t.let("bm", np.array([[True, False, True]]), "bool")
    t.check("flatten(bm)", b.flatten(), "bool")
    t.check("transpose(bm)", b.T, "bool")
    # concatenate along the first axis, ranks 1-3
    for i, (sa, sb, kind) in enumerate([((2,), (3,), "i32"), ((1, 3), (2, 3), "f64"),
                                        ((2, 2, 2), (1, 2, 2), "f32")]):
        a = t.let(f"ca{i}", decimals(20 + i, sa) if kind[0] == "f" else ints(20 + i, sa), kind)
        c = t.let(f"cb{i}", decimals(30 + i, sb) if kind[0] == "f" else ints(30 + i, sb), kind)
        t.check(f"concatenate(ca{i}, cb{i})", np.concatenate([a, c]), kind)
        if i == 1:
            cb1 = c
    t.raw("let none = [v | v in cb1[0], v > 100.0];")
    t.check("concatenate(none, cb1[1])", cb1[1], "f64")
    for i, (sa, ax, kind) in enumerate([((2, 3), 1, "f64"), ((2, 2, 3), -1, "i32"),
                                        ((2, 1, 2), 1, "f32"), ((3,), 0, "f64")]):
        sb = list(sa)
        sb[ax] = 2
        a = t.let(f"xa{i}", decimals(25 + i, sa) if kind[0] == "f" else ints(25 + i, sa), kind)
        b = t.let(f"xb{i}", decimals(35 + i, tuple(sb)) if kind[0] == "f" else ints(35 + i, tuple(sb)),
                  kind)
        t.check(f"concatenate_axis(xa{i}, xb{i}, {ax})", np.concatenate([a, b], axis=ax), kind)
    t.check("concatenate([1, 2], [3, 4, 5])", np.array([1, 2, 3, 4, 5]), "i32")
    t.check("concatenate([true], [false])", np.array([True, False]), "bool")
    t.write()


def reduce_file():
    t = TestFile("array/reduce.ein", "std::array sum, mean, argmax, argmin, argmax_all, "
                 "argmin_all and the *_axis reductions", uses=["std::array::*"])
    for i, (shape, kind) in enumerate([((6,), "f32"), ((2, 3), "f64"), ((2, 2, 3), "f32"),
                                       ((3, 4), "i32"), ((5,), "i64")]):
        x = ints(40 + i, shape) if kind[0] == "i" else decimals(40 + i, shape)
        v = t.let(f"x{i}", x, kind)
        t.check(f"sum(x{i})", v.astype(np.float64).sum(), kind)
        if kind[0] == "f":
            t.check(f"mean(x{i})", v.astype(np.float64).mean(), kind)
        t.check(f"argmax(x{i})", np.argmax(v, axis=-1), "i32")
        t.check(f"argmin(x{i})", np.argmin(v, axis=-1), "i32")
        t.check(f"argmax_all(x{i})", np.flatnonzero(v == v.max()), "i32")
        t.check(f"argmin_all(x{i})", np.flatnonzero(v == v.min()), "i32")
    # one axis, any of them
    for i, (shape, kind) in enumerate([((5,), "f64"), ((2, 3), "f32"), ((2, 3, 4), "f64"),
                                       ((3, 2, 2), "i32")]):
        x = ints(50 + i, shape) if kind[0] == "i" else decimals(50 + i, shape)
        v = t.let(f"a{i}", x, kind)
        for ax in range(-len(shape), len(shape)):
            t.check(f"sum_axis(a{i}, {ax})", v.astype(np.float64).sum(axis=ax), kind)
            if kind[0] == "f":
                t.check(f"mean_axis(a{i}, {ax})", v.astype(np.float64).mean(axis=ax), kind)
            t.check(f"max_axis(a{i}, {ax})", v.max(axis=ax), kind)
            t.check(f"min_axis(a{i}, {ax})", v.min(axis=ax), kind)
            t.check(f"argmax_axis(a{i}, {ax})", v.argmax(axis=ax), "i32")
            t.check(f"argmin_axis(a{i}, {ax})", v.argmin(axis=ax), "i32")
    # ties: the first index wins, like NumPy
    v = t.let("ties", np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]]), "f64")
    t.check("argmax(ties)", np.argmax(v, axis=-1), "i32")
    t.check("argmin(ties)", np.argmin(v, axis=-1), "i32")
    t.check("argmax_all(ties)", np.flatnonzero(v == v.max()), "i32")
    t.check("argmin_all(ties)", np.flatnonzero(v == v.min()), "i32")
    t.check("argmax_all([2, 7, 7, 1, 7])", np.array([1, 2, 4]), "i32")
    t.check("argmin_all([[1.5, 1.5], [2.0, 1.5]])", np.array([0, 1, 3]), "i32")
    t.check("argmax([3, 1, 4, 1, 5, 9, 2, 6])", 5, "i32")
    t.write()


def select_file():
    t = TestFile("array/select.ein", "std::array sort, argsort, topk_extract, topk_indices "
                 "along the last axis; partition, partition_2d, topk_with_indices_extract", uses=["std::array::*"])
    for i, (shape, kind) in enumerate([((7,), "f32"), ((3, 5), "f64"), ((2, 2, 4), "i32"),
                                       ((6,), "i64")]):
        x = ints(60 + i, shape, -4, 5) if kind[0] == "i" else decimals(60 + i, shape, -3, 3, 1)
        v = t.let(f"s{i}", x, kind)
        t.check(f"sort(s{i})", np.sort(v, axis=-1), kind)
        t.check(f"argsort(s{i})", np.argsort(v, axis=-1, kind="stable"), "i32")
        n = shape[-1]
        for k in (1, 3):
            order = np.argsort(-v.astype(np.float64), axis=-1, kind="stable")[..., :k]
            t.check(f"topk_extract(s{i}, {k})", np.take_along_axis(v, order, axis=-1), kind)
            t.check(f"topk_indices(s{i}, {k})", order, "i32")
        # k above the extent: every element, largest first
        order = np.argsort(-v.astype(np.float64), axis=-1, kind="stable")
        t.check(f"topk_extract(s{i}, {n + 2})", np.take_along_axis(v, order, axis=-1), kind)
    # NaN sorts last; ties keep their order
    t.raw("let nan_row = [2.0, 0.0 / 0.0, -1.0, 2.0];")
    t.check("sort(nan_row)", np.array([-1.0, 2.0, 2.0, np.nan]), "f32")
    t.check("argsort(nan_row)", np.array([2, 0, 3, 1]), "i32")
    t.check("topk_indices([5, 7, 7, 1], 3)", np.array([1, 2, 0]), "i32")
    # partition (the notes of stdlib_surface.md): (< pivot, == pivot, > pivot), original order
    for i, (n, kind) in enumerate([(9, "i32"), (7, "f64"), (6, "f32")]):
        x = ints(70 + i, (n,), -3, 4) if kind[0] == "i" else np.round(ints(70 + i, (n,), -6, 7) / 2, 1)
        v = t.let(f"pt{i}", x, kind)
        for j, pivot in enumerate((v[0], v[n // 2] + (0 if kind[0] == "i" else 0.25), 100)):
            pv = t.let(f"pv{i}_{j}", np.asarray(pivot).astype(v.dtype), kind)
            t.check(f"partition(pt{i}, pv{i}_{j})", (v[v < pv], v[v == pv], v[v > pv]), (kind, kind, kind))
    # partition_2d: rows (axis 0) or columns (axis 1) compared by their first element
    for i, (shape, kind) in enumerate([((5, 3), "i32"), ((4, 2), "f64")]):
        x = ints(80 + i, shape, -3, 4)
        v = t.let(f"pm{i}", x, kind)
        for axis in (0, 1):
            m = v if axis == 0 else v.T
            for pivot in (int(m[0, 0]), int(m[-1, 0]) + 1):
                parts = []
                for sel in (m[:, 0] < pivot, m[:, 0] == pivot, m[:, 0] > pivot):
                    part = m[sel]
                    parts.append(part if axis == 0 else part.T)
                lit = str(pivot) if kind[0] == "i" else f"{float(pivot)}"
                t.raw(f"let (lo{i}{axis}, eq{i}{axis}, hi{i}{axis}) = partition_2d(pm{i}, {lit}, {axis});")
                for nm, part in zip(("lo", "eq", "hi"), parts):
                    t.check(f"shape({nm}{i}{axis})", np.array(part.shape), "i32")
                    if part.size:
                        t.check(f"{nm}{i}{axis}", part, kind)
    # topk_with_indices_extract: the values' k largest, the given indices carried along
    for i, (n, k, kind) in enumerate([(6, 3, "f32"), (5, 7, "i32"), (4, 0, "f64")]):
        x = ints(90 + i, (n,), -4, 5) if kind[0] == "i" else decimals(90 + i, (n,), -3, 3, 1)
        v = t.let(f"tv{i}", x, kind)
        ix = t.let(f"ti{i}", ints(95 + i, (n,), 0, 100), "i32")
        order = np.argsort(-v.astype(np.float64), kind="stable")[:k]
        t.raw(f"let (tkv{i}, tki{i}) = topk_with_indices_extract(tv{i}, ti{i}, {k});")
        t.check(f"len(tkv{i})", min(k, n), "i32")
        if k:
            t.check(f"tkv{i}", v[order], kind)
            t.check(f"tki{i}", ix[order], "i32")
    t.write()


def generate():
    shape_file()
    reduce_file()
    select_file()
