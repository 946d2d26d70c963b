"""Kind `rowcall` (textkinds.py): per-row calls whose index range comes from the callee's result
(SPEC §5.2: a plain use on any array expression bounds the index), `A[h, i, j] = F(S[h, i])[j]`
with no range on j. F is a user function (locals, reductions, rest patterns, a local
recurrence, a result shorter than its argument) or a library one (std::ml softmax,
log_softmax, layer_normalization, relu, sigmoid; std::math tanh, exp), alone or composed; the
call stands in a declaration, inside a reduction, beside other reads of j, in a recurrence's step
(`R[t, j] = F(R[t - 1])[j] * c + X[t, j]`), and a derivative `@L / @S` (or `@L / @X`) is asked
through it. Expected values: the same functions in NumPy (float64), and central differences of
them for the derivatives.
"""
import math

import numpy as np

import known_bugs
from textkinds import Case, Val


def lit(a, dt):
    """An array literal of multiples of 1/8 (exact in f32 and f64)."""
    def rec(x):
        if x.ndim == 1:
            return "[" + ", ".join(repr(float(v)) for v in x) + "]"
        return "[" + ", ".join(rec(y) for y in x) + "]"
    return rec(a) + f" as [{dt}]"


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _layer_norm(x, sc, b, eps):
    m = x.mean()
    v = ((x - m) ** 2).mean()
    return (x - m) / np.sqrt(v + eps) * sc + b


# name: (definition with T for the element type (None: a library call), python f, length n -> m,
#        smooth everywhere)
USER = {
    "usoftmax": ("fn $F(x) { let m = max[k](x[k]); let e[k] = std::math::exp(x[k] - m); "
                 "let s = sum[k](e[k]); let r[k] = e[k] / s; r }", _softmax, lambda n: n, True),
    "diff": ("fn $F(x) { let d[k] = x[k + 1] - x[k]; d }",
             lambda x: x[1:] - x[:-1], lambda n: n - 1, True),
    "center": ("fn $F(x) { let y[..b, n] = x[..b, n] - sum[m](x[..b, m]) / (len(x) as T); y }",
               lambda x: x - x.sum() / len(x), lambda n: n, True),
    "norm": ("fn $F(x) { let s = sum[k](x[k] * x[k]); let y[k] = x[k] / std::math::sqrt(s + 1.0); y }",
             lambda x: x / np.sqrt((x * x).sum() + 1.0), lambda n: n, True),
    "shift": ("fn $F(x) { let y[k] = x[k] * 2.0 + x[0]; y }", lambda x: x * 2 + x[0],
              lambda n: n, True),
    "window": ("fn $F(x) { let y[k] = x[k] + x[k + 1] + x[k + 2]; y }",
               lambda x: x[:-2] + x[1:-1] + x[2:], lambda n: n - 2, True),
    "mdiff": ("fn $F(x) { let y[k] = match k { 0 => x[0], n => x[k] - x[n - 1] * 0.5 }; y }",
              lambda x: np.concatenate([x[:1], x[1:] - x[:-1] * 0.5]), lambda n: n, True),
    "mclip": ("fn $F(x) { let y[k] = match x[k] { v where v > 1.0 => 1.0 + (v - 1.0) * 0.25, "
              "v => v }; y }", lambda x: np.where(x > 1, 1 + (x - 1) * 0.25, x), lambda n: n, False),
    # results declared with an explicit range from the argument's length: switched off while
    # the callee's extent is not inferred for them (known_bugs rowcall_explicit_range_result)
    "prefix": ("fn $F(x) { let c[0] = x[0]; let c[k in 1..len(x)] = c[k - 1] + x[k]; c }",
               np.cumsum, lambda n: n, True),
    "twice": ("fn $F(x) { let c[k in 0..len(x)] = x[k] * 2.0 - 1.0; c }",
              lambda x: x * 2 - 1, lambda n: n, True),
}
LIB = {
    "softmax": ("std::ml::softmax({})", _softmax, True),
    "log_softmax": ("std::ml::log_softmax({})", lambda x: x - x.max() - np.log(np.exp(x - x.max()).sum()), True),
    "layer_norm": ("std::ml::layer_normalization({}, $sc, $bb, 0.001, -1)", None, True),
    # elementwise library functions: switched off while their result's extent is not inferred
    # (known_bugs rowcall_elementwise_lib)
    "tanh": ("std::math::tanh({})", np.tanh, True),
    "exp": ("std::math::exp({})", np.exp, True),
    "sigmoid": ("std::ml::sigmoid({})", lambda x: 1 / (1 + np.exp(-x)), True),
    "relu": ("std::ml::relu({})", lambda x: np.maximum(x, 0), False),
}


def pick_fn(r, bugs, need_same, J=0):
    """(call text with {} for the argument, definitions, python f, length map, smooth)."""
    if J and r.random() < 0.15:     # a second argument: a global row, and a sum over it
        V = np.array([r.randint(-8, 8) / 8 for _ in range(J)])
        d = "fn $F(x, v) { let t = sum[m](v[m]); let y[k] = x[k] * v[k] + t; y }"
        return ("$F({}, $V)", [d, f"let $V = {lit(V, 'T')};"], lambda x, V=V: x * V + V.sum(),
                lambda n: n, True, "two_arg")
    user = [k for k in USER if not (need_same and USER[k][2](7) != 7)]
    if "rowcall_explicit_range_result" in bugs:
        user = [k for k in user if k not in ("prefix", "twice")]
    lib = list(LIB)
    if "rowcall_elementwise_lib" in bugs:
        lib = [k for k in lib if k not in ("tanh", "exp", "sigmoid", "relu")]
    if r.random() < 0.55:
        k = r.choice(user)
        d, f, m, sm = USER[k]
        if k == "mdiff" and "ad_match_bound_index" in bugs:
            sm = False
        return "$F({})", [d], f, m, sm, k
    k = r.choice(lib)
    txt, f, sm = LIB[k]
    return txt, [], f, (lambda n: n), sm, k


def gen(r):
    bugs = known_bugs.active()
    dt = "f64" if r.random() < 0.75 else "f32"
    H, I, J = r.randint(1, 3), r.randint(1, 3), r.randint(3, 6)
    if r.random() < 0.15:           # rows past the tiers' thresholds (under 1000 printed values)
        H, I, J = r.randint(1, 3), r.randint(2, 6), r.randint(12, 48)
    S = np.array([r.randint(-16, 16) / 8 for _ in range(H * I * J)]).reshape(H, I, J)
    ctx = r.choice(["decl", "decl", "mixed", "reduce", "reduce", "rec", "rec", "two", "matrix",
                    "offset", "blockrow", "prevrow"])
    if ctx == "matrix":
        return matrix(r, dt, H, I, J)
    call, defs, f, mlen, smooth, fname = pick_fn(r, bugs, need_same=ctx in ("rec", "mixed", "prevrow"),
                                                 J=J)
    sc = np.array([r.randint(1, 16) / 8 for _ in range(J)])
    bb = np.array([r.randint(-8, 8) / 8 for _ in range(J)])
    if fname == "layer_norm":
        f = lambda x: _layer_norm(x, sc, bb, 0.001)
    compose = ctx != "rec" and "rowcall_nested_call" not in bugs and r.random() < 0.3
    g, gname = None, None
    if compose:         # F(G(row)) or G(F(row)): G a length-preserving library call
        gname = r.choice(["softmax", "log_softmax"])
        gtxt, g, _ = LIB[gname]
        if r.random() < 0.5:
            call = call.format(gtxt)
            f0 = f
            f = lambda x, f0=f0, g=g: f0(g(x))
        else:
            call = gtxt.format(call)
            f0 = f
            f = lambda x, f0=f0, g=g: g(f0(x))
    if fname in ("prefix", "twice") and "ad_rowcall_explicit_range" in bugs:
        smooth = False
    M = mlen(J)
    if ctx == "offset" and M < 2 or ctx == "prevrow" and I < 2:
        ctx = "decl"
    lines = [d.replace("T", dt) for d in defs]
    lines.append(f"let $S = {lit(S, dt)};")
    if "$sc" in call:
        lines.append(f"let $sc = {lit(sc, dt)};")
        lines.append(f"let $bb = {lit(bb, dt)};")
    vals = []
    tol = dict(rtol=3e-5, atol=3e-6) if dt == "f32" else dict(rtol=1e-11, atol=1e-12)
    w = np.array([r.randint(-8, 8) / 8 for _ in range(M)])
    if ctx in ("decl", "mixed", "two", "offset", "blockrow", "prevrow"):
        body = call.format("$S[h, i]") + "[j]"
        k2 = r.choice([0.5, 2.0, -1.0])

        def ref(S_):
            if ctx == "prevrow":    # the row before: i from 1 (point 0 of every h stays 0)
                a = np.zeros((H, I, M))
                for h in range(H):
                    for i in range(1, I):
                        a[h, i] = f(S_[h, i - 1]) + S_[h, i, :M]
                return a
            a = np.stack([np.stack([f(S_[h, i] * (k2 if ctx == "blockrow" else 1.0))
                                    for i in range(I)]) for h in range(H)])
            if ctx == "mixed":
                return a * S_ + w
            if ctx == "offset":     # j + 1 read on the result: j runs to M - 1
                return a[:, :, 1:] - a[:, :, :-1]
            return a - a[:, :, :1] if ctx == "two" else a
        if ctx == "offset":
            body = f"{call.format('$S[h, i]')}[j + 1] - {call.format('$S[h, i]')}[j]"
        if ctx == "blockrow":       # the argument a row declared in the clause body
            body = f"{{ let r[k] = $S[h, i, k] * {k2}; {call.format('r')}[j] }}"
        if ctx == "prevrow":        # the call on the row before, beside a plain read
            body = f"{call.format('$S[h, i - 1]')}[j] + $S[h, i, j]"
        if ctx == "mixed":          # j also read plainly: the extents agree
            body = f"{body} * $S[h, i, j] + $w[j]"
            lines.append(f"let $w = {lit(w, dt)};")
        if ctx == "two":            # two calls on one row, one read at a literal point
            body = f"{call.format('$S[h, i]')}[j] - {call.format('$S[h, i]')}[0]"
        jr = f"j in 0..{M}" if ctx == "blockrow" and "rowcall_block_local_arg" in bugs else "j"
        lines.append(f"let $A[h, i, {jr}] = {body};")
        lines.append("print($A);")
        vals.append(Val(ref(S), "f", **tol))
        target, wrt = "$A", "$S"
    elif ctx == "reduce":
        red = r.choice(["sum", "sum", "max", "min"])
        lines.append(f"let $w = {lit(w, dt)};")
        lines.append(f"let $B[h, i] = {red}[j]({call.format('$S[h, i]')}[j] * $w[j]);")
        lines.append("print($B);")
        op = {"sum": np.sum, "max": np.max, "min": np.min}[red]
        ref = lambda S_: np.array([[op(f(S_[h, i]) * w) for i in range(I)] for h in range(H)])
        vals.append(Val(ref(S), "f", **tol))
        smooth = smooth and red == "sum"
        target, wrt = "$B", "$S"
    else:                           # recurrence: R[t, j] = F(R[t - 1])[j] * c + X[t, j]
        T = r.randint(2, 5)
        X = np.array([r.randint(-8, 8) / 8 for _ in range(T * J)]).reshape(T, J)
        c = r.choice([0.5, 0.25, 1.0])
        explicit = "rowcall_rec_inferred_j" in bugs or r.random() < 0.3
        jr = f"j in 0..{J}" if explicit else "j"
        lines.append(f"let $X = {lit(X, dt)};")
        lines.append(f"let $R[0, {jr}] = $X[0, j];")
        lines.append(f"let $R[t in 1..{T}, {jr}] = {call.format('$R[t - 1]')}[j] * {c} + $X[t, j];")
        lines.append("print($R);")

        def ref(X_):
            R = np.zeros((T, J))
            R[0] = X_[0]
            for t in range(1, T):
                R[t] = f(R[t - 1]) * c + X_[t]
            return R
        want = ref(X)
        vals.append(Val(want, "f", rtol=tol["rtol"] * 4 * T, atol=tol["atol"] * 4 * T))
        target, wrt, S = "$R", "$X", X
    if dt == "f64" and smooth and r.random() < 0.5:
        Wt = np.array([r.randint(-8, 8) / 8 for _ in range(ref(S).size)]).reshape(ref(S).shape)
        vals.append(ask_gradient(lines, target, wrt, ref, S, Wt, dt))
    return Case("rowcall", "\n".join(lines) + "\n", vals)


MATRIX = {   # a callee on a 2-D slice, read at two indices: F(S[h])[i, j]
    "softmax2": ("std::ml::softmax({})", None, lambda m: np.stack([_softmax(x) for x in m])),
    "rowmax": ("$F({})", "fn $F(m) { let y[a, b] = m[a, b] - max[c](m[a, c]); y }",
               lambda m: m - m.max(axis=1, keepdims=True)),
    "colsum": ("$F({})", "fn $F(m) { let y[a, b] = m[a, b] * 2.0 - sum[c](m[c, b]); y }",
               lambda m: m * 2 - m.sum(axis=0, keepdims=True)),
    "transpose": ("$F({})", "fn $F(m) { let y[a, b] = m[b, a]; y }", lambda m: m.T),
}


def matrix(r, dt, H, I, J):
    k = r.choice(list(MATRIX))
    call, d, f = MATRIX[k]
    S = np.array([r.randint(-16, 16) / 8 for _ in range(H * I * J)]).reshape(H, I, J)
    lines = ([d] if d else []) + [f"let $S = {lit(S, dt)};"]
    lines.append(f"let $A[h, i, j] = {call.format('$S[h]')}[i, j];")
    lines.append("print($A);")
    ref = lambda S_: np.stack([f(m) for m in S_])
    tol = dict(rtol=3e-5, atol=3e-6) if dt == "f32" else dict(rtol=1e-11, atol=1e-12)
    vals = [Val(ref(S), "f", **tol)]
    if dt == "f64" and k != "rowmax" and r.random() < 0.5:
        Wt = np.array([r.randint(-8, 8) / 8 for _ in range(ref(S).size)]).reshape(ref(S).shape)
        vals.append(ask_gradient(lines, "$A", "$S", ref, S, Wt, dt))
    return Case("rowcall", "\n".join(lines) + "\n", vals)


def ask_gradient(lines, target, wrt, ref, x0, Wt, dt):
    """Appends `L = sum(target * Wt)` and `print(@L / @wrt)` to lines; returns the expected
    line: central differences of `sum(ref(x) * Wt)` at x0 (ref: the NumPy model of target)."""
    idx = ", ".join("abcd"[:Wt.ndim])
    lines.append(f"let $Wt = {lit(Wt, dt)};")
    lines.append(f"let $L = sum[{idx}]({target}[{idx}] * $Wt[{idx}]);")
    lines.append(f"print(@$L / @{wrt});")
    grad, err = central(lambda x: float((ref(x) * Wt).sum()), x0)
    return Val(grad, "f", rtol=1e-5, atol=1e-6 + 10 * err)


def central(fn, x):
    """Gradient of a scalar function by central differences (two steps, Richardson)."""
    g = np.zeros_like(x)
    err = 0.0
    for k in np.ndindex(x.shape):
        est = []
        for h in (1e-4, 2.5e-5):
            xp, xm = x.copy(), x.copy()
            xp[k] += h
            xm[k] -= h
            est.append((fn(xp) - fn(xm)) / (2 * h))
        g[k] = (16 * est[1] - est[0]) / 15
        err = max(err, abs(est[1] - est[0]))
    return g, err if math.isfinite(err) else 1.0
