"""The attribute survey's table (session 22): std::ml's ONNX operators with the attribute values
programs pass (strides, dilations, group, pads per side and per axis on 1-D, 2-D and 3-D;
pooling windows; resize modes and scales; pad with negative pads; topk and arg-reductions with
ties and NaN; slice with negative steps and clamped ends; split with sizes and counts;
gather / scatter with negative axes and indices; einsum with repeated indices, ellipsis and
implicit outputs) and a dtype pass over the same operators (f64, i32, i64, bool inputs).
Values come from attrs_ref.py's loops (written from the ONNX operator text) or NumPy, never
from ein. A case is (expr, value, type) as in kinds_table.py; a value of None with type "E..."
means ein must refuse with that code.
Shared by tests/stdlib/survey_attrs.py and gen_attrs.py.
"""
import numpy as np

import attrs_ref as R

PRELUDE = ["use std::ml::*;"]
_lets = {}


def _el(a):
    return {"float64": "f64", "float32": "f32", "int32": "i32", "int64": "i64", "bool": "bool"}[str(a.dtype)]


def lit(a):
    a = np.asarray(a)
    if a.ndim == 0:
        v = a.item()
        if a.dtype == np.bool_:
            return "true" if v else "false"
        if a.dtype.kind in "iu":
            return str(int(v))
        if np.isnan(v):
            return "(0.0 / 0.0)"
        s = repr(float(v))
        return s if ("." in s or "e" in s) else s + ".0"
    return "[" + ", ".join(lit(r) for r in a) + "]"


def let(name, a):
    """An input: a typed Einlang let in the prelude; returns the NumPy value."""
    a = np.asarray(a)
    t = _el(a) if a.ndim == 0 else f"[{_el(a)}; " + ", ".join(str(n) for n in a.shape) + "]"
    PRELUDE.append(f"let {name}: {t} = {lit(a)};")
    _lets[name] = a
    return a


def ty(value):
    a = np.asarray(value)
    el = _el(a)
    return el if a.ndim == 0 else "[" + el + "; " + ", ".join(str(n) for n in a.shape) + "]"


def L(xs):
    """An Einlang list literal of integers or floats."""
    return "[" + ", ".join(str(v) for v in xs) + "]"


def r1(seed, shape, dtype=np.float64, lo=-2, hi=3):
    g = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return g.integers(lo, hi, size=shape).astype(dtype)
    return np.round(g.uniform(lo, hi, size=shape), 2).astype(dtype)


# Inputs.
x1 = let("x1", r1(1, (1, 4, 9)))                   # [N, C, L]
w1 = let("w1", r1(2, (4, 4, 3)))
w1g = let("w1g", r1(3, (4, 2, 3)))                 # group 2
w1d = let("w1d", r1(4, (4, 1, 2)))                 # depthwise, group 4
b4 = let("b4", r1(5, (4,)))
x2 = let("x2", r1(6, (2, 2, 6, 7)))
w2 = let("w2", r1(7, (3, 2, 3, 2)))
w2g = let("w2g", r1(8, (4, 1, 2, 3)))             # group 2 on 2 channels, 4 outputs
b3 = let("b3", r1(9, (3,)))
x3 = let("x3", r1(10, (1, 2, 5, 4, 6)))
w3 = let("w3", r1(11, (2, 2, 2, 3, 2)))
b2 = let("b2", r1(12, (2,)))
xi = let("xi", r1(13, (1, 2, 7, 6), np.int32, -9, 10))
wi = let("wi", r1(14, (2, 2, 3, 3), np.int32, -4, 5))
wig = let("wig", r1(18, (2, 1, 3, 3), np.int32, -4, 5))              # group 2
xl = let("xl", r1(15, (1, 3, 10), np.int64, -50, 50))
wl = let("wl", r1(16, (2, 3, 4), np.int64, -5, 5))
pt = let("pt", np.array([[[3.0, 1.0, 3.0, -2.0, 0.5, 3.0, 7.0, -1.0]]]))   # ties inside windows
pb = let("pb", np.array([[[True, False, False, True, False, False, False]]]))
F32 = np.float32
xf = let("xf", r1(17, (1, 2, 5, 6), F32))


def conv_cases():
    out = []

    def add(xn, X, wn, W, bn, B, s, p, d, g):
        e = f"conv({xn}, {wn}, {bn}, {L(s)}, {L(p)}, {L(d)}, {g})"
        v = R.conv(X, W, B if bn != "[]" else [], s, p, d, g)
        out.append((e, v, ty(v)))

    E = np.array([])
    # 1-D: strides x dilations x group x pads per side / per axis / SAME_UPPER / SAME_LOWER.
    for s in ([], [2], [3]):
        for d in ([1], [2]):
            for p in ([], [1], [2, 0], [0, 2], [1, 2]):
                add("x1", x1, "w1", w1, "b4", b4, s, p, d, 1)
    add("x1", x1, "w1g", w1g, "b4", b4, [1], [1, 1], [1], 2)
    add("x1", x1, "w1g", w1g, "[]", E, [2], [0, 1], [2], 2)
    add("x1", x1, "w1d", w1d, "b4", b4, [1], [1, 0], [3], 4)
    # 2-D: SAME_UPPER for K 3x2, stride 1: pads [1, 0, 1, 1]; SAME_LOWER [1, 1, 1, 0].
    for s, p, d in (([1, 1], [1, 0, 1, 1], [1, 1]), ([1, 1], [1, 1, 1, 0], [1, 1]),
                    ([2, 1], [], [1, 1]), ([1, 2], [2, 1], [1, 1]), ([2, 2], [1, 0, 0, 1], [2, 1]),
                    ([1, 1], [], [2, 3]), ([3, 2], [2, 2, 2, 2], [1, 2])):
        add("x2", x2, "w2", w2, "b3", b3, s, p, d, 1)
    add("x2", x2, "w2g", w2g, "[]", E, [1, 1], [0, 1, 1, 0], [1, 1], 2)
    add("x2", x2, "w2g", w2g, "[]", E, [2, 2], [1, 1], [2, 1], 2)
    # 3-D.
    for s, p, d in (([1, 1, 1], [], [1, 1, 1]), ([2, 1, 2], [1, 0, 1, 0, 1, 1], [1, 1, 1]),
                    ([1, 2, 1], [1, 1, 0], [2, 1, 2]), ([], [0, 1, 0, 1, 0, 1], [1, 2, 1])):
        add("x3", x3, "w3", w3, "b2", b2, s, p, d, 1)
    # Integers (exact, keep the type).
    add("xi", xi, "wi", wi, "[]", E, [1, 1], [1, 1], [1, 1], 1)
    add("xi", xi, "wi", wi, "[]", E, [2, 1], [0, 1, 2, 0], [1, 2], 1)
    add("xi", xi, "wig", wig, "[]", E, [1, 1], [], [1, 1], 2)
    add("xl", xl, "wl", wl, "[]", E, [2], [1, 2], [2], 1)
    # f32.
    add("xf", xf, "(w2 as [f32])", w2.astype(F32), "(b3 as [f32])", b3.astype(F32), [1, 2], [1, 0, 0, 1], [1, 1], 1)
    return out


def pool_cases():
    out = []
    for fn, kind in (("max_pool", "max"), ("average_pool", "avg")):
        for xn, X, ks in (("x1", x1, [[3], [2], [4]]), ("x2", x2, [[2, 2], [3, 2]]), ("x3", x3, [[2, 2, 3]])):
            nsp = X.ndim - 2
            for k in ks:
                for s in ([], [2] * nsp, [1] + [3] * (nsp - 1)):
                    for p in ([], [1] * nsp, [1] * nsp + [0] * nsp, [0] * nsp + [1] * nsp):
                        if any(pp >= kk for pp, kk in zip(p, k + k)):
                            continue
                        v = R.pool(X, k, s, p, kind)
                        out.append((f"{fn}({xn}, {L(k)}, {L(s)}, {L(p)})", v, ty(v)))
    # Ties, NaN-free; integers keep their type in max_pool; bools.
    for fn, kind in (("max_pool", "max"), ("average_pool", "avg")):
        for k, s, p in (([2], [2], [1, 0]), ([3], [1], [0, 2]), ([4], [3], [1, 2])):
            v = R.pool(pt, k, s, p, kind)
            out.append((f"{fn}(pt, {L(k)}, {L(s)}, {L(p)})", v, ty(v)))
        v = R.pool(xi, [2, 3], [2, 2], [1, 0, 0, 1], kind)
        out.append((f"{fn}(xi, [2, 3], [2, 2], [1, 0, 0, 1])", v, ty(v)))
        v = R.pool(xl, [3], [2], [1], kind)
        out.append((f"{fn}(xl, [3], [2], [1])", v, ty(v)))
        v = R.pool(xf, [2, 2], [1, 2], [0, 1, 1, 0], kind)
        out.append((f"{fn}(xf, [2, 2], [1, 2], [0, 1, 1, 0])", v.astype(F32), ty(v.astype(F32))))
    # ONNX MaxPool takes numbers only (bool is E002, a type mismatch, at the user's call).
    out.append(("max_pool(pb, [2], [2], [])", None, "E002"))
    for xn, X, k, s, p in (("x1", x1, [3], [2], 2.0), ("x2", x2, [2, 3], [1, 2], 1.0), ("x3", x3, [2, 2, 2], [], 3.0)):
        v = R.pool(X, k, s, [], "lp", p)
        out.append((f"lp_pool({xn}, {L(k)}, {L(s)}, {p})", v, ty(v)))
    return out


def resize_cases():
    out = []
    v1 = let("v1", np.array([1.0, 4.0, -2.0, 3.0, 0.5, 2.0, -1.0]))
    im = let("im", r1(20, (1, 1, 4, 5)))
    for mode in ("nearest", "linear", "cubic"):
        for sc in (2.0, 0.5, 1.5, 0.7, 3.0, 0.25):
            v = R.resize(v1, [sc], mode)
            out.append((f"resize(v1, [{sc}], \"{mode}\")", v, ty(v)))
        for sc in ([2.0, 3.0], [0.5, 0.6], [1.5, 1.0], [1.0, 2.5]):
            v = R.resize(im, sc, mode)
            out.append((f"resize(im, {L(sc)}, \"{mode}\")", v, ty(v)))
        v = R.resize(im, [1.0, 1.0, 2.0, 0.5], mode)
        out.append((f"resize(im, [1.0, 1.0, 2.0, 0.5], \"{mode}\")", v, ty(v)))
    for mode in ("nearest", "linear"):
        for sc in (2.0, 3.0, 1.5):
            v = R.resize(v1, [sc], mode, asym=True)
            out.append((f"upsample(v1, [{sc}], \"{mode}\")", v, ty(v)))
        v = R.resize(im, [2.0, 2.0], mode, asym=True)
        out.append((f"upsample(im, [2.0, 2.0], \"{mode}\")", v, ty(v)))
    out.append(("resize(v1, [2.0], \"area\")", None, "E006"))
    return out


def pad_cases():
    out = []
    m = let("pm", r1(21, (3, 4)))
    c = let("pc", r1(22, (2, 3, 2), np.int64, -5, 5))
    bb = let("pbool", np.array([[True, False], [False, True]]))

    def np_pad(a, pads, value):
        r = a.ndim
        b, e = (pads, pads) if len(pads) == r else (pads[:r], pads[r:])
        crop = tuple(slice(max(-bi, 0), a.shape[i] - max(-ei, 0)) for i, (bi, ei) in enumerate(zip(b, e)))
        a = a[crop]
        return np.pad(a, [(max(bi, 0), max(ei, 0)) for bi, ei in zip(b, e)], constant_values=value)

    for pads, val in (([1, 0, 2, 1], 0.0), ([0, 2], -1.5), ([-1, 1, 0, -2], 9.0), ([2, 2, 0, 0], 0.0)):
        v = np_pad(m, pads, val)
        out.append((f"pad(pm, {L(pads)}, {val})", v, ty(v)))
    for pads in ([1, 0, 1, 0, 2, 1], [0, -1, 1, 1, 1, 0]):
        v = np_pad(c, pads, 7)
        out.append((f"pad(pc, {L(pads)}, 7)", v, ty(v)))
    v = np_pad(bb, [1, 0, 0, 1], True)
    out.append(("pad(pbool, [1, 0, 0, 1], true)", v, ty(v)))
    out.append(("pad(pm, [-2, 0, -2, 0], 0.0)", None, "E004"))
    return out


def select_cases():
    out = []
    t = let("tt", np.array([[3.0, 1.0, 3.0, 2.0], [5.0, 5.0, -1.0, 5.0], [0.0, 2.0, 2.0, 1.0]]))
    ti = let("ti", np.array([[4, 4, 1], [0, 7, 7]], dtype=np.int32))
    tn = let("tn", np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, 5.0]]))

    def topk(a, k, axis):
        idx = np.argsort(-a, axis=axis, kind="stable")
        idx = np.take(idx, range(k), axis=axis)
        return np.take_along_axis(a, idx, axis=axis), idx.astype(np.int32)

    for name, a in (("tt", t), ("ti", ti)):
        for axis in range(-a.ndim, a.ndim):
            for k in (1, 2, a.shape[axis]):
                vals, idx = topk(a, k, axis)
                out.append((f"topk({name}, {k}, {axis}).0", vals, ty(vals)))
                out.append((f"topk({name}, {k}, {axis}).1", idx, ty(idx)))
    out.append(("topk(tt, 5, 1)", None, "E004"))
    # NaN counts as the largest (np.sort puts it last): topk of a row with NaN.
    idx = np.argsort(np.where(np.isnan(tn), np.inf, tn) * -1.0, axis=1, kind="stable")[:, :2]
    # -inf for NaN in the negated key puts NaN first, as argsort of -x with NaN largest.
    vals = np.take_along_axis(tn, idx, axis=1)
    out.append(("topk(tn, 2, 1).1", idx.astype(np.int32), ty(idx.astype(np.int32))))
    out.append(("topk(tn, 2, 1).0", vals, ty(vals)))
    # ONNX ArgMax / ArgMin (axis 0, keepdims 1), first index on ties; NaN wins (np.argmax).
    for name, a in (("tt", t), ("ti", ti), ("tn", tn)):
        for f in ("argmax", "argmin"):
            v = getattr(np, f)(a, axis=0)[None, :].astype(np.int32)
            out.append((f"{f}({name})", v, ty(v)))
            v = getattr(np, f)(a, axis=-1).astype(np.int32)
            out.append((f"std::array::{f}({name})", v, ty(v)))
    bt = let("bt", np.array([[False, True, True], [False, False, True]]))
    v = np.argmax(bt, axis=0)[None, :].astype(np.int32)
    out.append(("argmax(bt)", v, ty(v)))
    v = np.argmin(bt, axis=-1).astype(np.int32)
    out.append(("std::array::argmin(bt)", v, ty(v)))
    return out


def slice_split_cases():
    out = []
    s = let("sd", np.arange(24, dtype=np.float64).reshape(4, 6) * 0.5)
    s3 = let("s3", np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    BIG = 2147483647
    for st, en, ax, sp in (([1], [3], [], []), ([-1], [-BIG], [1], [-1]), ([5], [0], [1], [-2]),
                           ([0, 1], [BIG, -1], [], [2, 2]), ([-3], [BIG], [-1], []),
                           ([10], [0], [1], [-1]), ([-10], [3], [0], [1]), ([2, 4], [-BIG, 0], [0, 1], [-1, -3]),
                           ([0], [0], [0], [1]), ([3], [1], [0], [1])):
        v = R.slice_(s, st, en, ax, sp)
        out.append((f"slice(sd, {L(st)}, {L(en)}, {L(ax)}, {L(sp)})", v, ty(v)))
    for st, en, ax, sp in (([1, -1], [BIG, -BIG], [0, 2], [1, -2]), ([-2], [-1], [1], []), ([0, 3, 1], [2, 0, 4], [], [1, -1, 2])):
        v = R.slice_(s3, st, en, ax, sp)
        out.append((f"slice(s3, {L(st)}, {L(en)}, {L(ax)}, {L(sp)})", v, ty(v)))
    out.append(("slice(sd, [0], [2], [], [0])", None, "E006"))
    # Split: sizes and counts (ONNX 18: ceil(extent / n) each, the rest last); axis negative.
    for sizes, axis in (([1, 3], 0), ([2, 4], 1), ([3, 1, 2], -1)):
        parts = np.split(s, np.cumsum(sizes)[:-1], axis=axis)
        for i, p in enumerate(parts):
            out.append((f"split(sd, {L(sizes)}, {axis}).{i}", p, ty(p)))
    for n, axis, src, name in ((4, 1, s, "sd"), (3, -1, s3, "s3"), (2, 0, s3, "s3")):
        ext = src.shape[axis]
        c = -(-ext // n)
        cuts = [min(c * (i + 1), ext) for i in range(n - 1)]
        parts = np.split(src, cuts, axis=axis)
        for i, p in enumerate(parts):
            out.append((f"split({name}, {n}, {axis}).{i}", p, ty(p)))
    out.append(("split(sd, [2, 3], 1)", None, "E004"))
    return out


def gather_cases():
    out = []
    g = let("gd", r1(30, (3, 4)))
    gi = let("gi", np.array([[0, -1], [2, 1]], dtype=np.int32))
    ge = let("ge", np.array([[1, 0, -1, 2], [2, 2, 0, -3]], dtype=np.int32))
    gb = let("gb", np.array([[True, False, True], [False, True, True]]))
    gu = let("gu", r1(31, (2, 4)))

    def norm(i, n):
        return np.where(i < 0, i + n, i)

    for axis in (0, 1, -1, -2):
        v = np.take(g, norm(gi, g.shape[axis]), axis=axis)
        out.append((f"gather(gd, gi, {axis})", v, ty(v)))
    v = np.take(gb, norm(gi, 3), axis=1)
    out.append(("gather(gb, gi, -1)", v, ty(v)))
    for axis in (0, -2):
        v = np.take_along_axis(g, norm(ge, 3), axis=0)
        out.append((f"gather_elements(gd, ge, {axis})", v, ty(v)))
    ge1 = let("ge1", np.array([[3, -1], [0, -4], [2, 2]], dtype=np.int32))
    for axis in (1, -1):
        v = np.take_along_axis(g, norm(ge1, 4), axis=1)
        out.append((f"gather_elements(gd, ge1, {axis})", v, ty(v)))
    sci = let("sci", np.array([[1, 0, 2, -3], [-1, 1, 0, 2]], dtype=np.int32))   # distinct per column
    for axis in (0, -2):
        v = g.copy()
        ii = norm(sci, 3)
        for a in range(2):
            for b in range(4):
                v[ii[a, b], b] = gu[a, b]
        out.append((f"scatter_elements(gd, sci, gu, {axis})", v, ty(v)))
    sci1 = let("sci1", np.array([[3, -4], [0, 1], [-1, 2]], dtype=np.int32))
    gu1 = let("gu1", r1(32, (3, 2)))
    v = g.copy()
    for a in range(3):
        for b in range(2):
            v[a, norm(sci1, 4)[a, b]] = gu1[a, b]
    out.append(("scatter_elements(gd, sci1, gu1, -1)", v, ty(v)))
    out.append(("scatter(gd, sci1, gu1, 1)", v, ty(v)))
    nd = let("ndi", np.array([[2, 1], [0, 3], [-1, -1]], dtype=np.int32))
    v = np.array([g[2, 1], g[0, 3], g[-1, -1]])
    out.append(("gather_nd(gd, ndi)", v, ty(v)))
    out.append(("gather(gd, gi, 2)", None, "E004"))
    out.append(("gather(gd, [[0, 5]], 1)", None, "E005"))
    return out


def einsum_cases():
    out = []
    a = let("ea", r1(40, (3, 3)))
    b = let("eb", r1(41, (3, 4)))
    c = let("ec", r1(42, (2, 3, 4)))
    d = let("ed", r1(43, (2, 4, 2)))
    u = let("eu", r1(44, (3,)))
    t = let("et", r1(45, (3, 3, 2)))
    ii = let("eii", np.array([[1, 2], [3, 4]], dtype=np.int32))
    # Operands of different shapes go in a tuple: a list literal must be rectangular (SPEC 3).
    for eq, ops, names in (("ii->i", [a], "ea"), ("ii", [a], "ea"), ("ij,jk", [a, b], "ea, eb"),
                           ("ij,jk->", [a, b], "ea, eb"), ("ba", [b], "eb"), ("ij->", [b], "eb"),
                           ("i,i", [u, u], "eu, eu"), ("i,j", [u, u], "eu, eu"), ("ij,ij->ij", [a, a], "ea, ea"),
                           ("bij,bjk->bik", [c, d], "ec, ed"), ("...ij,...jk->...ik", [c, d], "ec, ed"),
                           ("...j->...", [c], "ec"), ("bij->ji", [c], "ec"), ("iij->j", [t], "et"),
                           ("iik->ki", [t], "et"), ("ji,j->i", [a, u], "ea, eu"), ("ij,j", [a, u], "ea, eu"),
                           ("i...->...", [c], "ec"), ("ii->", [ii], "eii"), ("ij,jk->ik", [ii, ii], "eii, eii")):
        v = np.einsum(eq, *ops)
        same = all(o.shape == ops[0].shape for o in ops)
        args = f"[{names}]" if same else f"({names})"
        out.append((f"einsum(\"{eq}\", {args})", v, ty(v)))
    out.append(("einsum(\"ij,jk->ik\", (ea, ec))", None, "E004"))
    out.append(("einsum(\"ij,jk->ik\", [ea, eb])", None, "E004"))
    return out


def cumsum_reduce_cases():
    out = []
    cf = let("cf", r1(50, (2, 5)))
    ci = let("ci", np.array([[1, -2, 3], [4, 0, -7]], dtype=np.int64))
    cb = let("cb", np.array([[True, False, True], [True, True, False]]))
    cf32 = let("cf32", r1(51, (3, 2), F32))
    out.append(("cumsum(cf)", np.cumsum(cf, -1), ty(cf)))
    out.append(("cumsum(ci)", np.cumsum(ci, -1), ty(ci)))
    v = np.cumsum(cb, -1).astype(np.int32)
    out.append(("cumsum(cb)", v, ty(v)))
    out.append(("cumsum(cf32)", np.cumsum(cf32, -1), ty(cf32)))
    for f, npf in (("reduce_sum", np.sum), ("reduce_max", np.max), ("reduce_min", np.min),
                   ("reduce_prod", np.prod), ("reduce_mean", np.mean)):
        for name, a in (("cf", cf), ("ci", ci), ("cf32", cf32)):
            v = npf(a, keepdims=True)
            if f == "reduce_mean" and a.dtype.kind == "i":
                continue
            v = v.astype(a.dtype)
            out.append((f"{f}({name})", v, ty(v)))
    for f, npf in (("reduce_l1", lambda a: np.abs(a).sum(keepdims=True)), ("reduce_l2", lambda a: np.sqrt((a * a).sum(keepdims=True))),
                   ("reduce_sum_square", lambda a: (a * a).sum(keepdims=True)),
                   ("reduce_log_sum_exp", lambda a: np.log(np.exp(a).sum(keepdims=True)))):
        for name, a in (("cf", cf), ("cf32", cf32)):
            v = npf(a).astype(a.dtype)
            out.append((f"{f}({name})", v, ty(v)))
    return out


def cases():
    return (conv_cases() + pool_cases() + resize_cases() + pad_cases() + select_cases() +
            slice_split_cases() + gather_cases() + einsum_cases() + cumsum_reduce_cases())
