"""Kind `scratch` (textkinds.py): statements whose body is a block with local arrays, the rows a
kernel may keep in a per-row (or per-step) scratch buffer, judged against NumPy.

A block is a pipeline of 1-3 row recipes over a source row (softmax, log-softmax, layer norm
with scale and shift, centering, L2 scaling, min-max scaling, tanh with a weight row), each
declaring its own locals (scalars from reductions over the row, arrays over k used both in
reductions and elementwise), ending in `a[j]`, maybe combined with a plain read or a weight:
  decl     `let A[i, j] = { let m = max[k](S[i, k]); let e[k] = exp(S[i, k] - m); e[j] / sum[k](e[k]) };`
           (j written `j in 0..J` or inferred from the local's use)
  reduce   `let B[i] = sum[j]({ .. } * w[j]);` (the block inside a reduction's body)
  fn       the same statements as a user function's body returning the row, called per row
           `F(S[i])[j]`
  rec      a recurrence step whose block reads the earlier row (`R[t - 1, k]`), two earlier
           rows, or a contraction of it (`z[k] = sum[l](W[k, l] * R[t - 1, l])`), inline or
           through a user function called on `R[t - 1]` (or on `R[t - 1], R[t - 2]`)
f32 / f64, rows of length 1 and rows of 16-128; f64 smooth programs also ask `@L / @S` (or
`@L / @X`), checked against central differences of the same NumPy model.
"""
import numpy as np

from gen_rowcall import ask_gradient
from textkinds import Case, Val


def lit(a, dt):
    def rec(x):
        if x.ndim == 0:
            return repr(float(x))
        return "[" + ", ".join(rec(y) for y in x) + "]"
    return rec(np.asarray(a)) + f" as [{dt}]"


def q(r, shape, lo=-16, hi=16):
    return np.array([r.randint(lo, hi) / 8 for _ in range(int(np.prod(shape)))]).reshape(shape)


class Pipe:
    """Statements (text over a source row `{src}` read at k) and the NumPy function of a row."""

    def __init__(self):
        self.stmts, self.fns, self.smooth, self.n = [], [], True, 0
        self.globals = []       # (name, array) rows the recipes read (`$g1[k]`)

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"


def recipe(r, P, src, J, dt):
    """Append one recipe reading the row `src` (a format with {k}); returns the name of its
    result array (read as name[k])."""
    kind = r.choice(["softmax", "logsoftmax", "layernorm", "center", "l2", "minmax", "tanhw"])
    one = "1.0"
    a = P.fresh("a")
    x = src.format(k="k")
    if kind == "softmax":
        m, e, s = P.fresh("m"), P.fresh("e"), P.fresh("s")
        P.stmts += [f"let {m} = max[k]({x});", f"let {e}[k] = std::math::exp({x} - {m});",
                    f"let {s} = sum[k]({e}[k]);", f"let {a}[k] = {e}[k] / {s};"]
        P.fns.append(lambda v: np.exp(v - v.max()) / np.exp(v - v.max()).sum())
    elif kind == "logsoftmax":
        m, s = P.fresh("m"), P.fresh("s")
        P.stmts += [f"let {m} = max[k]({x});",
                    f"let {s} = std::math::log(sum[k](std::math::exp({x} - {m})));",
                    f"let {a}[k] = {x} - {m} - {s};"]
        P.fns.append(lambda v: v - v.max() - np.log(np.exp(v - v.max()).sum()))
    elif kind == "layernorm":
        mu, d, var, g, b = P.fresh("mu"), P.fresh("d"), P.fresh("v"), P.fresh("$g"), P.fresh("$b")
        G, B = q(r, (J,), 1, 16), q(r, (J,), -8, 8)
        P.globals += [(g, G), (b, B)]
        P.stmts += [f"let {mu} = sum[k]({x}) / {J}.0;", f"let {d}[k] = {x} - {mu};",
                    f"let {var} = sum[k]({d}[k] * {d}[k]) / {J}.0;",
                    f"let {a}[k] = {d}[k] / std::math::sqrt({var} + 0.01) * {g}[k] + {b}[k];"]
        P.fns.append(lambda v, G=G, B=B: (v - v.mean()) / np.sqrt(((v - v.mean()) ** 2).mean() + 0.01) * G + B)
    elif kind == "center":
        mu = P.fresh("mu")
        P.stmts += [f"let {mu} = sum[k]({x}) / {J}.0;", f"let {a}[k] = {x} - {mu};"]
        P.fns.append(lambda v: v - v.mean())
    elif kind == "l2":
        s = P.fresh("s")
        P.stmts += [f"let {s} = sum[k]({x} * {x});",
                    f"let {a}[k] = {x} / std::math::sqrt({s} + {one});"]
        P.fns.append(lambda v: v / np.sqrt((v * v).sum() + 1.0))
    elif kind == "minmax":
        lo, hi = P.fresh("lo"), P.fresh("hi")
        P.stmts += [f"let {lo} = min[k]({x});", f"let {hi} = max[k]({x});",
                    f"let {a}[k] = ({x} - {lo}) / ({hi} - {lo} + {one});"]
        P.fns.append(lambda v: (v - v.min()) / (v.max() - v.min() + 1.0))
        P.smooth = False
    else:
        w = P.fresh("$w")
        W = q(r, (J,), -8, 8)
        P.globals.append((w, W))
        t = P.fresh("t")
        P.stmts += [f"let {t}[k] = std::math::tanh({x});", f"let {a}[k] = {t}[k] * {w}[k] + {t}[k] * {t}[k];"]
        P.fns.append(lambda v, W=W: np.tanh(v) * W + np.tanh(v) ** 2)
    return a


def pipeline(r, src, J, dt):
    P = Pipe()
    cur = src
    for _ in range(r.choice([1, 1, 2, 2, 3])):
        a = recipe(r, P, cur, J, dt)
        cur = a + "[{k}]"
    P.last = a

    def f(v):
        for fn in P.fns:
            v = fn(v)
        return v
    P.f = f
    return P


def tolerances(dt, T=1):
    return (dict(rtol=3e-5 * T, atol=3e-6 * T) if dt == "f32" else dict(rtol=1e-11 * T, atol=1e-12 * T))


def gen(r):
    dt = "f64" if r.random() < 0.6 else "f32"
    ctx = r.choice(["decl", "decl", "reduce", "fn", "rec", "rec", "rec2", "recmv", "recfn", "recfn2"])
    I, J = r.randint(1, 4), r.choice([1, 2, 3, 4, 5, 6])
    if r.random() < 0.2:
        J = r.choice([16, 33, 64, 128])
        I = r.randint(1, max(1, 900 // J))
    lines, vals = [], []
    tol = tolerances(dt)
    if ctx in ("decl", "reduce", "fn"):
        S = q(r, (I, J))
        P = pipeline(r, "$S[i, {k}]" if ctx != "fn" else "x[{k}]", J, dt)
        tail = r.choice(["", " * $S[i, j]", " + $S[i, j] * 0.5", " - 1.0"]) if ctx != "reduce" else ""
        lines += [f"let {g} = {lit(G, dt)};" for g, G in P.globals]
        lines.append(f"let $S = {lit(S, dt)};")
        if ctx == "fn":
            lines.append("fn $F(x) { " + " ".join(P.stmts) + f" {P.last} }}")
            jr = r.choice(["j", f"j in 0..{J}"])
            lines.append(f"let $A[i, {jr}] = $F($S[i])[j]{tail};")
        elif ctx == "decl":
            jr = r.choice(["j", f"j in 0..{J}"])
            lines.append(f"let $A[i, {jr}] = {{ " + " ".join(P.stmts) + f" {P.last}[j] }}{tail};")
        else:
            w = q(r, (J,), -8, 8)
            lines.append(f"let $wr = {lit(w, dt)};")
            red = r.choice(["sum", "sum", "max"])
            lines.append(f"let $A[i] = {red}[j]({{ " + " ".join(P.stmts) + f" {P.last}[j] }} * $wr[j]);")
            if red == "max":
                P.smooth = False

        def ref(S_):
            out = np.stack([P.f(S_[i]) for i in range(I)])
            if ctx == "reduce":
                return (out * w).sum(axis=1) if red == "sum" else (out * w).max(axis=1)
            return {"": out, " * $S[i, j]": out * S_, " + $S[i, j] * 0.5": out + S_ * 0.5,
                    " - 1.0": out - 1.0}[tail]
        x0, wrt, target = S, "$S", "$A"
    else:
        T = r.randint(2, 6)
        X = q(r, (T, J))
        c = r.choice([0.5, 0.25, 1.0])
        lines.append(f"let $X = {lit(X, dt)};")
        jr = r.choice(["j", f"j in 0..{J}"])
        if ctx == "rec2":
            src = "($R[t - 1, {k}] + $R[t - 2, {k}] * 0.5)"
        elif ctx == "recfn2":
            src = "(h[{k}] + g[{k}] * 0.5)"
        elif ctx == "recmv":
            src = "z0[{k}]"
        else:
            src = "$R[t - 1, {k}]" if ctx == "rec" else "h[{k}]"
        P = pipeline(r, src, J, dt)
        lines[:0] = [f"let {g} = {lit(G, dt)};" for g, G in P.globals]
        Wm = q(r, (J, J), -4, 4) if ctx == "recmv" else None
        stmts = list(P.stmts)
        if ctx == "recmv":
            lines.append(f"let $W = {lit(Wm, dt)};")
            stmts.insert(0, "let z0[k] = sum[l]($W[k, l] * $R[t - 1, l]);")
        lines.append(f"let $R[0, {jr}] = $X[0, j];")
        first = 1
        if ctx in ("rec2", "recfn2"):
            lines.append(f"let $R[1, {jr}] = $X[1, j];")
            first = 2
        if ctx == "recfn":
            lines.append("fn $F(h) { " + " ".join(stmts) + f" {P.last} }}")
            step = "$F($R[t - 1])[j]"
        elif ctx == "recfn2":           # a function of the two earlier rows
            lines.append("fn $F(h, g) { " + " ".join(stmts) + f" {P.last} }}")
            step = "$F($R[t - 1], $R[t - 2])[j]"
        else:
            step = "{ " + " ".join(stmts) + f" {P.last}[j] }}"
        lines.append(f"let $R[t in {first}..{T}, {jr}] = {step} * {c} + $X[t, j];")

        def ref(X_):
            R = np.zeros((T, J))
            R[:first] = X_[:first]
            for t in range(first, T):
                if ctx in ("rec2", "recfn2"):
                    v = R[t - 1] + R[t - 2] * 0.5
                elif ctx == "recmv":
                    v = Wm @ R[t - 1]
                else:
                    v = R[t - 1]
                R[t] = P.f(v) * c + X_[t]
            return R
        tol = tolerances(dt, 4 * T)
        x0, wrt, target = X, "$X", "$R"
    want = ref(x0)
    if want.size > 1000:
        return gen(r)
    lines.append(f"print({target});")
    vals.append(Val(want, "f", **tol))
    # (a derivative through a recurrence of 128-long rows with a contraction in its step block
    # took 450 s on main 0507606: asked on rows up to 33 only)
    if dt == "f64" and P.smooth and r.random() < 0.5 and (ctx in ("decl", "reduce", "fn") or J <= 33):
        vals.append(ask_gradient(lines, target, wrt, ref, x0, q(r, want.shape, -8, 8), dt))
    return Case("scratch", "\n".join(lines) + "\n", vals)
