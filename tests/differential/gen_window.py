"""Kind `window` (textkinds.py): window reductions as programs write pooling, convolution and
stencils, judged against NumPy loops written from the definitions (never from ein's output).

  user     `let Y[c, i in 0..OH, j in 0..OW] = max[p in 0..kh, q in 0..kw](X[c, i * s + p * d - pb,
           ..] <edge handling>)` over 1 or 2 spatial axes with strides 1-3, dilations 1-3 and
           pads per side; the edges as programs handle them: `where` filters (inline or through
           derived indices `where ih = ..`), if-chains with a pad value, clamped indices
           (`min(max(e, 0), L - 1)`, a user `clampi`, an if-chain on the index), or no pads with
           the output ranges inferred from strided uses. max / min / sum / sums divided by the
           window size (count_include_pad 1) or by the count of taps inside (written as a
           second guarded sum or as a count declaration). f32 / f64 / i32 / i64; NaN and -inf in
           float inputs (NumPy semantics: a NaN in a window makes its max NaN, docs/language.md);
           rows long enough (16-64) for the kernels' clamp split to have a middle part; f64
           sums with `@L / @X` checked against the gradient of the linear map (per-tap coefficients).
  stencil  offset stencils with inferred ranges (5-point Laplacian, 1-D 3-point), whose points
           below the start stay 0 (SPEC 5.2), and strided / dilated 1-D correlations
           `y[o] = sum[k](x[o * s + k * d] * w[k])` with o and k inferred.
  std      std::ml max_pool / average_pool / conv on 1-, 2-, 3-D inputs with strides, pads (per
           side, per axis, empty), dilations and groups (conv), against ONNX's definitions.

Values are multiples of 1/8, so sums are exact in f32 and the tiers' association orders agree.
"""
import itertools
import warnings

import numpy as np

from textkinds import Case, Val

warnings.filterwarnings("ignore", category=RuntimeWarning)

FLOATS = ("f32", "f64")
NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def lit(a, dt):
    """An array literal in dt (floats: multiples of 1/8; ints: i32 literals cast when i64)."""
    def rec(x):
        if x.ndim == 0:
            return repr(float(x)) if dt in FLOATS else str(int(x))
        return "[" + ", ".join(rec(y) for y in x) + "]"
    if dt == "i32":
        return rec(np.asarray(a))
    return rec(np.asarray(a)) + f" as [{dt}]"


def draw(r, shape, dt, lo=-16, hi=16):
    n = int(np.prod(shape))
    if dt in FLOATS:
        return np.array([r.randint(lo, hi) / 8 for _ in range(n)], dtype=np.float64).reshape(shape)
    return np.array([r.randint(lo, hi) for _ in range(n)], dtype=np.int64).reshape(shape)


def tol(dt):
    return dict(rtol=2e-6, atol=1e-7) if dt == "f32" else dict(rtol=1e-12, atol=1e-13)


def fval(v, dt):
    if dt in FLOATS:
        return Val(np.asarray(v, dtype=NP[dt]), "f", **tol(dt))
    return Val(np.asarray(v, dtype=np.int64), "i")


def x_lines(r, X, dt, name="$X"):
    """The lines binding X (a literal), maybe with NaN / -inf put at a few points (floats) by a
    declaration over the literal. Returns (X as bound, lines)."""
    if dt not in FLOATS or r.random() > 0.25:
        return X, [f"let {name} = {lit(X, dt)};"]
    X = X.copy()
    picks = []
    for _ in range(r.randint(1, 2)):
        pos = tuple(r.randrange(n) for n in X.shape)
        v = r.choice(["nv", "nv", "ni"])
        X[pos] = np.nan if v == "nv" else -np.inf
        picks.append((pos, v))
    idx = ", ".join(f"a{k}" for k in range(X.ndim))
    body = f"{name}0[{idx}]"
    for pos, v in reversed(picks):
        c = " && ".join(f"a{k} == {p}" for k, p in enumerate(pos))
        body = f"if {c} {{ ${v} }} else {{ {body} }}"
    return X, [f"let {name}0 = {lit(np.where(np.isfinite(X), X, 0.0), dt)};",
               f"let $nv: {dt} = 0.0 / 0.0;", f"let $ni: {dt} = -1.0 / 0.0;",
               f"let {name}[{idx}] = {body};"]


# ---------------------------------------------------------------------------------- user windows
def axis_expr(o, t, s, d, pb):
    e = o if s == 1 else f"{o} * {s}"
    e += f" + {t}" if d == 1 else f" + {t} * {d}"
    return e + (f" - {pb}" if pb else "")


def g_user(r):
    dt = r.choices(["f32", "f64", "i32", "i64"], weights=[3, 3, 1, 1])[0]
    reds = ["max", "max", "min", "sum", "avg", "avgc"] if dt in FLOATS else ["max", "min", "sum"]
    red = r.choice(reds)
    mode = r.choice(["guard", "derived", "ifpad", "ifchain", "clamp", "clampfn", "clampif", "valid"])
    nsp = r.choice([1, 2, 2])
    C = r.randint(1, 3)
    ax = []
    long_row = r.random() < 0.3
    for a in range(nsp):
        for _ in range(100):
            k = r.choice([1, 2, 2, 3, 3, 4])
            s = r.choice([1, 1, 2, 2, 3])
            d = 1 if r.random() < 0.7 else r.choice([2, 3])
            span = d * (k - 1) + 1
            if mode == "valid":
                pb = pe = 0
            else:
                pb = 0 if r.random() < 0.3 else r.randint(0, span - 1)
                pe = 0 if r.random() < 0.3 else r.randint(0, span - 1)
            L = r.randint(16, 64) if long_row and a == nsp - 1 else r.choice([1, 2, 3, 4, 5, 6, 7, 9])
            O = (L + pb + pe - span) // s + 1
            if O >= 1:
                break
        else:
            return None
        ax.append((k, s, d, pb, pe, L, O))
    shape = (C,) + tuple(a[5] for a in ax)
    outs = (C,) + tuple(a[6] for a in ax)
    if int(np.prod(outs)) > 900:
        return None
    oi = ["i", "j"][:nsp]
    ti = ["p", "q"][:nsp]
    exprs = [axis_expr(oi[a], ti[a], *ax[a][1:4]) for a in range(nsp)]
    Ls = [a[5] for a in ax]
    # extents as literals, or written in place as programs do (`len(X[0]) - 1`, output ranges
    # `(len(X[0]) + pads - span) / s + 1`), or bound to scalars first
    ext = r.choice(["lit", "lit", "inplace", "bound"])
    LT = [str(L) for L in Ls]
    if ext != "lit":
        LT = ["len($X[0])", "len($X[0, 0])"][:nsp]
    if ext == "bound":
        LT = [f"$L{a}" for a in range(nsp)]
    LM1 = [f"{t} - 1" if ext != "lit" else str(L - 1) for t, L in zip(LT, Ls)]
    OT = [str(a[6]) if ext == "lit" else
          f"({LT[n]} + {a[3] + a[4] - (a[2] * (a[0] - 1) + 1)}) / {a[1]} + 1" for n, a in enumerate(ax)]
    X, lines = x_lines(r, draw(r, shape, dt), dt)
    if ext == "bound":
        lines += [f"let $L{a} = {t};" for a, t in enumerate(["len($X[0])", "len($X[0, 0])"][:nsp])]
    red_idx = ", ".join(f"{ti[a]} in 0..{ax[a][0]}" for a in range(nsp))
    K = int(np.prod([a[0] for a in ax]))
    pv = {"max": -9, "min": 9}.get(red, 0)
    pvt = (f"{pv}.0" if dt in FLOATS else str(pv))
    inside = " && ".join(f"{e} >= 0 && {e} < {L}" for e, L in zip(exprs, LT))
    derived_names = ["ih", "jw"][:nsp]
    if mode == "guard":
        read, guard = f"$X[c, {', '.join(exprs)}]", f" where {inside}"
    elif mode == "derived":
        binds = ", ".join(f"{n} = {e}" for n, e in zip(derived_names, exprs))
        conds = ", ".join(f"{n} >= 0, {n} < {L}" for n, L in zip(derived_names, LT))
        read, guard = f"$X[c, {', '.join(derived_names)}]", f" where {binds}, {conds}"
    elif mode == "ifpad":
        read, guard = f"if {inside} {{ $X[c, {', '.join(exprs)}] }} else {{ {pvt} }}", ""
    elif mode == "ifchain":
        chain = " else ".join(f"if {e} < 0 {{ {pvt} }} else if {e} >= {L} {{ {pvt} }}"
                              for e, L in zip(exprs, LT))
        read, guard = f"{chain} else {{ $X[c, {', '.join(exprs)}] }}", ""
    elif mode == "clamp":
        read, guard = "$X[c, " + ", ".join(f"min(max({e}, 0), {L1})" for e, L1 in zip(exprs, LM1)) + "]", ""
    elif mode == "clampfn":
        lines.insert(0, "fn $clampi(v, lo, hi) { if v < lo { lo } else if v > hi { hi } else { v } }")
        read, guard = "$X[c, " + ", ".join(f"$clampi({e}, 0, {L1})" for e, L1 in zip(exprs, LM1)) + "]", ""
    elif mode == "clampif":
        read, guard = "$X[c, " + ", ".join(f"if {e} < 0 {{ 0 }} else if {e} > {L1} {{ {L1} }} else {{ {e} }}"
                                            for e, L1 in zip(exprs, LM1)) + "]", ""
    else:
        read, guard = f"$X[c, {', '.join(exprs)}]", ""
    # the reference: per output point, the taps' values (None: skipped by a guard)
    filtered = mode in ("guard", "derived")
    Y = np.zeros(outs, dtype=np.float64 if dt in FLOATS else np.int64)
    cnt = np.zeros(outs, dtype=np.int64)
    for pt in np.ndindex(*outs):
        c, o = pt[0], pt[1:]
        vals = []
        for t in itertools.product(*[range(a[0]) for a in ax]):
            idx = [o[a] * ax[a][1] + t[a] * ax[a][2] - ax[a][3] for a in range(nsp)]
            ok = all(0 <= idx[a] < Ls[a] for a in range(nsp))
            if mode in ("clamp", "clampfn", "clampif"):
                idx = [min(max(idx[a], 0), Ls[a] - 1) for a in range(nsp)]
                ok = True
            if ok:
                vals.append(X[(c,) + tuple(idx)])
                cnt[pt] += 1
            elif not filtered:
                vals.append(pv)
        v = np.array(vals, dtype=np.float64 if dt in FLOATS else np.int64)
        if red in ("max", "min"):
            if v.size == 0:
                if dt not in FLOATS:
                    return None         # an integer max over no point: E006, not drawn here
                Y[pt] = -np.inf if red == "max" else np.inf
            else:
                Y[pt] = v.max() if red == "max" else v.min()
        else:
            Y[pt] = v.sum() if v.size else 0
            if red == "avg":
                Y[pt] = (NP[dt](Y[pt]) / NP[dt](K))
            elif red == "avgc":
                if cnt[pt] == 0:
                    return None
                Y[pt] = NP[dt](Y[pt]) / NP[dt](cnt[pt])
    if mode == "valid" and r.random() < 0.6:
        decl = f"let $Y[c, {', '.join(oi)}]"
    else:
        decl = f"let $Y[c, {', '.join(f'{n} in 0..{O}' for n, O in zip(oi, OT))}]"
    rname = {"avg": "sum", "avgc": "sum"}.get(red, red)
    body = f"{rname}[{red_idx}]({read}{guard})"
    if red == "avg":
        body += f" / {K}.0"
    elif red == "avgc":
        one = "1.0" if dt == "f32" else "(1.0 as f64)"
        if mode in ("clamp", "clampfn", "clampif", "valid"):
            cbody = f"sum[{red_idx}]({one})"
        elif mode in ("guard", "derived"):
            cbody = f"sum[{red_idx}]({one}{guard})"
        else:
            cbody = f"sum[{red_idx}]({one} where {inside})"
        if r.random() < 0.5:
            body += f" / {cbody}"
        else:
            lines.append(f"let $cnt[{', '.join(f'{n} in 0..{O}' for n, O in zip(oi, OT))}] = {cbody};")
            body += f" / $cnt[{', '.join(oi)}]"
    lines.append(f"{decl} = {body};")
    lines.append("print($Y);")
    vals = [fval(Y, dt)]
    if (dt == "f64" and red in ("sum", "avg", "avgc") and np.isfinite(X).all() and X.size <= 1000
          and r.random() < 0.4):       # (a gradient above 1000 values prints summarised)
        Wt = draw(r, outs, "f64", -8, 8)
        lines.append(f"let $Wt = {lit(Wt, 'f64')};")
        ix = ", ".join("abc"[:len(outs)])
        lines.append(f"let $L = sum[{ix}]($Y[{ix}] * $Wt[{ix}]);")
        lines.append(f"print(@$L / @$X);")
        # the derivative of a linear map: each tap's coefficient (1, 1/K or 1/count)
        G = np.zeros(shape)
        for pt in np.ndindex(*outs):
            c, o = pt[0], pt[1:]
            coef = {"sum": 1.0, "avg": 1.0 / K, "avgc": 1.0 / max(cnt[pt], 1)}[red]
            for t in itertools.product(*[range(a[0]) for a in ax]):
                idx = [o[a] * ax[a][1] + t[a] * ax[a][2] - ax[a][3] for a in range(nsp)]
                if mode in ("clamp", "clampfn", "clampif"):
                    idx = [min(max(idx[a], 0), Ls[a] - 1) for a in range(nsp)]
                elif not all(0 <= idx[a] < Ls[a] for a in range(nsp)):
                    continue
                G[(c,) + tuple(idx)] += coef * Wt[pt]
        vals.append(Val(G, "f", rtol=1e-10, atol=1e-12))
    return Case("window", "\n".join(lines) + "\n", vals)


# ------------------------------------------------------------------------------------- stencils
def g_stencil(r):
    form = r.choice(["lap2", "lap1", "corr1"])
    dt = r.choice(["f32", "f64", "i32"] if form != "lap2" else ["f32", "f64", "i64"])
    if form == "lap2":
        H, W = r.randint(1, 7), r.randint(1, 40)
        X = draw(r, (H, W), dt)
        c = r.choice([4, 2])
        ct = f"{c}.0" if dt in FLOATS else str(c)
        src = (f"let $X = {lit(X, dt)};\n"
               f"let $L[i, j] = $X[i - 1, j] + $X[i + 1, j] + $X[i, j - 1] + $X[i, j + 1] - {ct} * $X[i, j];\n"
               "print($L);\n")
        # ranges i in 1..H-1, j in 1..W-1; points below the start stay 0; allocation to the end
        Y = np.zeros((max(H - 1, 0), max(W - 1, 0)), dtype=X.dtype)
        if H < 3 or W < 3:
            return None                 # empty ranges: covered by goldens, not here
        for i in range(1, H - 1):
            for j in range(1, W - 1):
                Y[i, j] = X[i - 1, j] + X[i + 1, j] + X[i, j - 1] + X[i, j + 1] - c * X[i, j]
        return Case("window", src, [fval(Y, dt)])
    if form == "lap1":
        n = r.randint(3, 70)
        X = draw(r, (n,), dt)
        a = r.choice([1, 2, 3])
        src = (f"let $x = {lit(X, dt)};\n"
               f"let $y[i] = $x[i - {a}] - $x[i] * 2{'.0' if dt in FLOATS else ''} + $x[i + {a}];\n"
               "print($y);\n")
        if n <= 2 * a:
            return None
        Y = np.zeros(n - a, dtype=X.dtype)
        for i in range(a, n - a):
            Y[i] = X[i - a] - 2 * X[i] + X[i + a]
        return Case("window", src, [fval(Y, dt)])
    k, s, d = r.randint(1, 4), r.randint(1, 3), r.choice([1, 1, 2, 3])
    n = r.randint(d * (k - 1) + 1, 80)
    x, w = draw(r, (n,), dt), draw(r, (k,), dt)
    O = (n - d * (k - 1) - 1) // s + 1
    e = ("o" if s == 1 else f"o * {s}") + (" + k" if d == 1 else f" + k * {d}")
    src = (f"let $x = {lit(x, dt)};\nlet $w = {lit(w, dt)};\n"
           f"let $y[o] = sum[k]($x[{e}] * $w[k]);\nprint($y);\n")
    Y = np.array([sum(x[o * s + t * d] * w[t] for t in range(k)) for o in range(O)], dtype=x.dtype)
    return Case("window", src, [fval(Y, dt)])


# ------------------------------------------------------------------------------ std::ml (ONNX)
def pads_text(r, pb, pe, nsp):
    """The pads argument: per side, per axis (when begins == ends) or empty (all 0)."""
    if all(v == 0 for v in pb + pe) and r.random() < 0.5:
        return "[]"
    if pb == pe and r.random() < 0.5:
        return "[" + ", ".join(map(str, pb)) + "]"
    return "[" + ", ".join(map(str, pb + pe)) + "]"


def onnx_window(Xp_valid, X, o, s, d, k, pb):
    """The in-bounds input positions of window o (ONNX: pads are positions outside X)."""
    taps = []
    for t in itertools.product(*[range(kk) for kk in k]):
        idx = tuple(o[a] * s[a] + t[a] * d[a] - pb[a] for a in range(len(k)))
        taps.append((t, idx, all(0 <= idx[a] < X.shape[2 + a] for a in range(len(k)))))
    return taps


def g_std(r):
    op = r.choice(["max_pool", "max_pool", "average_pool", "conv", "conv"])
    nsp = r.choice([1, 2, 2, 3])
    dt = r.choice(["f32", "f64"] + (["i32", "i64"] if op != "average_pool" else []))
    N, group = r.randint(1, 2), (r.choice([1, 1, 2]) if op == "conv" else 1)
    C = r.randint(1, 2) * group
    k, s, d, pb, pe, L, O = [], [], [], [], [], [], []
    for a in range(nsp):
        for _ in range(100):
            kk = r.randint(1, 3)
            ss = r.choice([1, 1, 2, 3])
            dd = r.choice([1, 1, 2]) if op == "conv" else 1
            span = dd * (kk - 1) + 1
            lim = kk - 1 if op == "max_pool" else 2
            b, e = r.randint(0, lim), r.randint(0, lim)
            if r.random() < 0.3:
                b = e = 0
            LL = r.randint(1, 5 if nsp == 3 else 9)
            if nsp == 1 and r.random() < 0.3:
                LL = r.randint(16, 48)
            OO = (LL + b + e - span) // ss + 1
            if OO >= 1:
                break
        else:
            return None
        k.append(kk); s.append(ss); d.append(dd); pb.append(b); pe.append(e); L.append(LL); O.append(OO)
    X = draw(r, (N, C) + tuple(L), dt)
    if op != "conv":
        X, lines = x_lines(r, X, dt)
    else:
        lines = [f"let $X = {lit(X, dt)};"]
    st = "[]" if all(v == 1 for v in s) and r.random() < 0.4 else "[" + ", ".join(map(str, s)) + "]"
    pt = pads_text(r, pb, pe, nsp)
    M = (r.randint(1, 2) * group) if op == "conv" else C
    Y = np.zeros((N, M) + tuple(O), dtype=np.float64 if dt in FLOATS else np.int64)
    if op == "conv":
        CG = C // group
        Wt = draw(r, (M, CG) + tuple(k), dt, -8, 8)
        bias = r.random() < 0.5
        B = draw(r, (M,), dt, -8, 8) if bias else None
        dtx = "[]" if all(v == 1 for v in d) and r.random() < 0.4 else "[" + ", ".join(map(str, d)) + "]"
        lines.append(f"let $W = {lit(Wt, dt)};")
        lines.append(f"let $B = {lit(B, dt) if bias else '[]'};")
        lines.append(f"let $Y = std::ml::conv($X, $W, $B, {st}, {pt}, {dtx}, {group});")
        MG = M // group
        for pt_ in np.ndindex(*Y.shape):
            n, m, o = pt_[0], pt_[1], pt_[2:]
            g = m // MG
            acc = B[m] if bias else 0
            for cg in range(CG):
                for t, idx, ok in onnx_window(None, X, o, s, d, k, pb):
                    if ok:
                        acc += X[(n, g * CG + cg) + idx] * Wt[(m, cg) + t]
            Y[pt_] = acc
    else:
        args = f"$X, [{', '.join(map(str, k))}], {st}, {pt}"
        lines.append(f"let $Y = std::ml::{op}({args});")
        for pt_ in np.ndindex(*Y.shape):
            n, c, o = pt_[0], pt_[1], pt_[2:]
            v = np.array([X[(n, c) + idx] for _, idx, ok in onnx_window(None, X, o, s, d, k, pb) if ok])
            if op == "max_pool":
                Y[pt_] = v.max()
            else:
                Y[pt_] = NP[dt](v.sum()) / NP[dt](v.size)
    if Y.size > 900:
        return None
    lines.append("print($Y);")
    return Case("window", "\n".join(lines) + "\n", [fval(Y, dt)])


def gen(r):
    for _ in range(50):
        f = r.choices([g_user, g_stencil, g_std], weights=[5, 1.5, 3])[0]
        c = f(r)
        if c is not None:
            return c
    raise RuntimeError("window: no draw in 50 tries")
