"""Kind `argred` (textkinds.py): arg-reductions and the buffers around them, judged against
NumPy (never against ein's output).

  rows     argmax / argmin over rows short (1-8) and long (16-400), rows and columns, with the
           value beside its index (top1: `max[j]` and `argmax[j]`, or the value read through
           the index `S[i, argmax[j](S[i, j])]`), over expressions (`S[i, j] * w[j] + b[j]`),
           inside sums (accuracy `sum[i](if argmax[j](S[i, j]) == y[i] { 1 } else { 0 })`),
           nearest centres (`argmin[c](sum[d]((P[i, d] - C[c, d]) * (..)))`), backpointers of a
           max-plus recurrence (Viterbi). f32 / f64 / i32 / i64; ties (first index: the inputs
           are drawn from few values, or from a modular formula for long rows), NaN (the first
           NaN, docs/language.md) and -inf.
  chain    one file: large arrays through a function again and again, names rebound with the
           same and another shape, temporaries released at once, every live binding read at
           the end (buffer reuse across kernel calls and released bindings)
  reuse    notebook sessions (`ein --cells`) over large arrays built by formulas: a cell that
           rebinds an array with the same shape, then with another shape, cells typed again
           verbatim, copies and functions that keep the value they saw, arg-reductions and
           checksums of values computed before the rebinding, printed after it. A buffer reused
           for a new binding while an older one still reads it prints another checksum.
Checksums are weighted sums of multiples of 1/8 (exact in f32 and f64 at these sizes).
"""
import numpy as np

from gen_window import lit, x_lines
from textkinds import Case, Val

FLOATS = ("f32", "f64")
NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


class Formula:
    """v[i, j] = ((i * a + j * b + c) % m) * scale - off, in dt; NaN / -inf where
    (i * a2 + j * b2) % m2 == 0 when `special` is set (floats)."""

    def __init__(self, r, dt, special=False, small=False):
        self.a, self.b, self.c = r.randint(1, 37), r.randint(1, 41), r.randint(0, 50)
        self.m = r.choice([3, 5, 7, 11] if small else [3, 5, 7, 11, 31, 97, 1009])
        self.scale = (0.125 if small else r.choice([0.125, 0.25, 0.5])) if dt in FLOATS else 1
        self.off = (r.randint(0, 8 * min(self.m, 16)) / 8) if dt in FLOATS else r.randint(0, min(self.m, 16))
        self.dt = dt
        self.special = special and dt in FLOATS
        if self.special:
            self.a2, self.b2, self.m2 = r.randint(1, 9), r.randint(1, 9), r.choice([13, 101, 503])
            self.sv = r.choice(["$nv", "$ni"])

    def text(self, i="i", j="j"):
        base = f"(({i} * {self.a} + {j} * {self.b} + {self.c}) % {self.m})"
        if self.dt in FLOATS:
            v = f"({base} as {self.dt}) * {self.scale} - {self.off}"
        else:
            v = f"({base} as {self.dt}) - {self.off}" if self.dt == "i64" else f"{base} - {self.off}"
        if self.special:
            v = f"if ({i} * {self.a2} + {j} * {self.b2}) % {self.m2} == 0 {{ {self.sv} }} else {{ {v} }}"
        return v

    def value(self, shape):
        i, j = np.indices(shape)
        base = (i * self.a + j * self.b + self.c) % self.m
        if self.dt in FLOATS:
            v = (base.astype(np.float64) * self.scale - self.off).astype(NP[self.dt])
            if self.special:
                v[(i * self.a2 + j * self.b2) % self.m2 == 0] = np.nan if self.sv == "$nv" else -np.inf
            return v
        return (base - self.off).astype(np.int64)


def specials_decl(dt):
    return [f"let $nv: {dt} = 0.0 / 0.0;", f"let $ni: {dt} = -1.0 / 0.0;"] if dt in FLOATS else []


def rows_input(r, dt, I, J, lines):
    """Binds $S [I, J]: a literal of few values (ties) for small inputs, else a formula."""
    if I * J <= 300 and r.random() < 0.7:
        few = r.choice([3, 5, 33])
        S = np.array([r.randint(-few // 2, few // 2) for _ in range(I * J)], dtype=np.float64).reshape(I, J)
        if dt in FLOATS:
            S = S / 8
        else:
            S = S.astype(np.int64)
        S, ls = x_lines(r, S, dt, "$S")
        lines += ls
        return S
    f = Formula(r, dt, special=r.random() < 0.3)
    lines += specials_decl(dt)
    lines.append(f"let $S[i in 0..{I}, j in 0..{J}] = {f.text()};")
    return f.value((I, J))


def np_arg(v, which):
    """NumPy's argmax / argmin along the last axis (first NaN, else first extremum)."""
    return np.argmax(v, axis=-1) if which == "argmax" else np.argmin(v, axis=-1)


def g_rows(r):
    dt = r.choices(["f32", "f64", "i32", "i64"], weights=[3, 3, 2, 1])[0]
    if r.random() < 0.5:
        I, J = r.randint(1, 12), r.randint(1, 8)
    else:
        I, J = r.randint(1, 300), r.randint(16, 400)
    lines, vals = [], []
    S = rows_input(r, dt, I, J, lines)
    for _ in range(r.randint(1, 3)):
        which = r.choice(["argmax", "argmin"])
        red = "max" if which == "argmax" else "min"
        form = r.choice(["plain", "top1", "through", "expr", "acc", "col", "nested"])
        if form == "plain":
            lines.append(f"let $a[i] = {which}[j]($S[i, j]);")
            lines.append("print($a);")
            vals.append(Val(np_arg(S, which), "i"))
        elif form == "top1":
            lines.append(f"let $v[i] = {red}[j]($S[i, j]);")
            lines.append(f"let $a[i] = {which}[j]($S[i, j]);")
            lines.append("print($v);")
            lines.append("print($a);")
            v = S.max(axis=1) if red == "max" else S.min(axis=1)
            vals += [Val(v.astype(NP[dt]), "f" if dt in FLOATS else "i"), Val(np_arg(S, which), "i")]
        elif form == "through":
            lines.append(f"let $g[i] = $S[i, {which}[j]($S[i, j])];")
            lines.append("print($g);")
            g = S[np.arange(I), np_arg(S, which)]
            vals.append(Val(g.astype(NP[dt]), "f" if dt in FLOATS else "i"))
        elif form == "expr":
            w = np.array([r.choice([-2, -1, 1, 2, 3]) for _ in range(J)], dtype=np.float64)
            b = np.array([r.randint(-4, 4) for _ in range(J)], dtype=np.float64)
            if dt in FLOATS:
                b = b / 8
            lines.append(f"let $w = {lit(w if dt in FLOATS else w.astype(np.int64), dt)};")
            lines.append(f"let $b = {lit(b if dt in FLOATS else b.astype(np.int64), dt)};")
            lines.append(f"let $a[i] = {which}[j]($S[i, j] * $w[j] + $b[j]);")
            lines.append("print($a);")
            e = (S.astype(np.float64) * w + b) if dt in FLOATS else S * w.astype(np.int64) + b.astype(np.int64)
            vals.append(Val(np_arg(e, which), "i"))
        elif form == "acc":
            y = np.array([r.randrange(J) for _ in range(I)], dtype=np.int64)
            hit = np_arg(S, which)
            for n in range(I):          # about half of the labels right
                if r.random() < 0.5:
                    y[n] = hit[n]
            lines.append(f"let $y = {lit(y, 'i32')};")
            lines.append(f"let $acc = sum[i](if {which}[j]($S[i, j]) == $y[i] {{ 1 }} else {{ 0 }});")
            lines.append("print($acc);")
            vals.append(Val(int((hit == y).sum()), "i"))
        elif form == "col":
            lines.append(f"let $c[j] = {which}[i]($S[i, j]);")
            lines.append("print($c);")
            vals.append(Val(np_arg(S.T, which), "i"))
        else:                           # the extremum of row sums of a product
            if dt == "f32" and np.nan_to_num((S.astype(np.float64) ** 2).sum(axis=1), posinf=0).max() * 64 > 2 ** 24:
                continue                # f32 sums not exact: the association order would matter
            lines.append(f"let $n = {which}[i](sum[j]($S[i, j] * $S[i, j]));")
            lines.append("print($n);")
            sq = (S.astype(np.float64) ** 2).sum(axis=1) if dt in FLOATS else (S * S).sum(axis=1)
            if dt == "f32":
                sq = (S * S).astype(np.float32).sum(axis=1, dtype=np.float64)
            vals.append(Val(int(np_arg(sq, which)), "i"))
    return Case("argred", "\n".join(lines) + "\n", vals)


def g_kmeans(r):
    dt = r.choice(["f32", "f64"])
    n, k, d = r.randint(1, 200), r.randint(1, 6), r.randint(1, 4)
    P = np.array([r.randint(-8, 8) / 4 for _ in range(n * d)]).reshape(n, d)
    C = np.array([r.randint(-8, 8) / 4 for _ in range(k * d)]).reshape(k, d)
    D = ((P[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    form = r.choice(["sq", "pow"])
    body = "($P[i, d] - $C[c, d]) * ($P[i, d] - $C[c, d])" if form == "sq" else "($P[i, d] - $C[c, d]) ** 2"
    src = (f"let $P = {lit(P, dt)};\nlet $C = {lit(C, dt)};\n"
           f"let $lab[i] = argmin[c](sum[d]({body}));\nprint($lab);\n"
           f"let $cnt[c in 0..{k}] = sum[i](if $lab[i] == c {{ 1 }} else {{ 0 }});\nprint($cnt);\n")
    lab = D.argmin(axis=1)
    return Case("argred", src, [Val(lab, "i"), Val(np.bincount(lab, minlength=k), "i")])


def g_viterbi(r):
    dt = r.choice(["f32", "f64", "i32"])
    T, S = r.randint(2, 8), r.randint(1, 6)
    sc = 8 if dt in FLOATS else 1
    A = np.array([r.randint(-6, 2) for _ in range(S * S)]).reshape(S, S) / sc
    E = np.array([r.randint(-6, 2) for _ in range(T * S)]).reshape(T, S) / sc
    if dt not in FLOATS:
        A, E = A.astype(np.int64), E.astype(np.int64)
    which = r.choice(["max", "min"])
    arg = "arg" + which
    src = (f"let $A = {lit(A, dt)};\nlet $E = {lit(E, dt)};\n"
           f"let $V[0, s in 0..{S}] = $E[0, s];\n"
           f"let $V[t in 1..{T}, s in 0..{S}] = {which}[p]($V[t - 1, p] + $A[p, s]) + $E[t, s];\n"
           f"let $B[t in 1..{T}, s in 0..{S}] = {arg}[p]($V[t - 1, p] + $A[p, s]);\n"
           f"let $last = {arg}[s]($V[{T - 1}, s]);\n"
           "print($V);\nprint($B);\nprint($last);\n")
    V = np.zeros((T, S), dtype=A.dtype)
    B = np.zeros((T, S), dtype=np.int64)
    V[0] = E[0]
    for t in range(1, T):
        M = V[t - 1][:, None] + A
        V[t] = (M.max(axis=0) if which == "max" else M.min(axis=0)) + E[t]
        B[t] = M.argmax(axis=0) if which == "max" else M.argmin(axis=0)
    last = int(V[T - 1].argmax() if which == "max" else V[T - 1].argmin())
    return Case("argred", src, [Val(V.astype(NP[dt]), "f" if dt in FLOATS else "i"), Val(B, "i"),
                                Val(last, "i")])


# ----------------------------------------------------------------------------- reuse sessions
def checksum_text(name, dt):
    return f"sum[i, j]({name}[i, j] * ((((i * 3 + j) % 5) as {dt})))"


def checksum(v):
    i, j = np.indices(v.shape)
    return (v.astype(np.float64) * ((i * 3 + j) % 5)).sum()


def g_reuse(r):
    from gen_session import Session
    dt = r.choice(["f32", "f64"])
    cells, outs = [], []

    def shape():
        if r.random() < 0.5:
            return (r.randint(100, 300), r.randint(100, 200))
        return (r.randint(1, 40), r.randint(1, 60))

    def val(x):
        return Val(np.asarray(x, dtype=NP[dt]), "f", rtol=1e-5 if dt == "f32" else 1e-12, atol=1e-6)

    def bind(sh):
        f = Formula(r, dt, small=True)
        return f, f.value(sh)
    sh = shape()
    f, X = bind(sh)
    cells.append(f"let $X[i in 0..{sh[0]}, j in 0..{sh[1]}] = {f.text()};\nprint({checksum_text('$X', dt)});")
    outs.append([val(checksum(X))])
    derive = (f"let $Y[i, j] = $X[i, j] * 2.0 + 1.0;\nlet $am[i] = argmax[j]($Y[i, j]);\n"
              f"print({checksum_text('$Y', dt)});\nprint(sum[i]($am[i]));")

    def derived(X):
        Y = (X * 2 + 1).astype(NP[dt])
        return Y, int(Y.argmax(axis=1).sum())
    Y, am = derived(X)
    cells.append(derive)
    outs.append([val(checksum(Y)), Val(am, "i")])
    kept = {"Y": Y, "am": am}
    if r.random() < 0.6:
        cells.append("let $keep = $Y;\nfn $first(i) { $X[i, 0] }")
        outs.append([])
        kept["keep"], kept["first"] = Y, X[:, 0].copy()
    for _ in range(r.randint(2, 4)):
        act = r.choice(["same", "same", "other", "repeat", "read_old", "elementwise"])
        if act in ("same", "other"):
            sh = sh if act == "same" else shape()
            f, X = bind(sh)
            cells.append(f"let $X[i in 0..{sh[0]}, j in 0..{sh[1]}] = {f.text()};\n"
                         f"print({checksum_text('$X', dt)});")
            outs.append([val(checksum(X))])
        elif act == "repeat":           # the derive cell typed again over the current X
            Y, am = derived(X)
            cells.append(derive)
            outs.append([val(checksum(Y)), Val(am, "i")])
            kept["Y"], kept["am"] = Y, am
        elif act == "elementwise":      # a temporary of X's shape, released at once
            c = r.choice([0.5, -1.0, 3.0])
            cells.append(f"let $Z[i, j] = $X[i, j] * {c} - $Y[0, 0];\n"
                         f"print({checksum_text('$Z', dt)});\nlet $Z = 0.0;")
            Z = (X * NP[dt](c) - kept["Y"][0, 0]).astype(NP[dt])
            outs.append([val(checksum(Z))])
        else:                           # values bound before the rebinding, read now
            parts, want = [f"print({checksum_text('$Y', dt)});"], [val(checksum(kept["Y"]))]
            parts.append("print(sum[i]($am[i]));")
            want.append(Val(kept["am"], "i"))
            if "keep" in kept:
                parts.append(f"print({checksum_text('$keep', dt)});")
                want.append(val(checksum(kept["keep"])))
                ii = r.randrange(len(kept["first"]))
                parts.append(f"print($first({ii}));")
                want.append(val(kept["first"][ii]))
            cells.append("\n".join(parts))
            outs.append(want)
    cells.append(f"print({checksum_text('$Y', dt)});\nprint({checksum_text('$X', dt)});")
    outs.append([val(checksum(kept["Y"])), val(checksum(X))])
    s = Session(cells, outs, [None] * len(cells), joinable=False)
    return Case("argred", None, None, session=s)


def g_chain(r):
    """One file: large arrays passed through a function again and again, names rebound
    (shadowed) with the same and another shape, temporaries, and every binding still visible
    read at the end: a buffer handed to a new result while a live binding reads it shows."""
    dt = r.choice(["f32", "f64"])
    N, M = (r.randint(50, 250), r.randint(50, 200)) if r.random() < 0.6 else (r.randint(1, 9), r.randint(1, 9))
    f = Formula(r, dt, small=True)
    lines = ["fn $step(x) { let y[i, j] = x[i, j] * 0.5 + 1.0; y }",
             f"let $X[i in 0..{N}, j in 0..{M}] = {f.text()};"]
    env = {"X": f.value((N, M)).astype(np.float64)}
    live = ["X"]
    n = 0
    for _ in range(r.randint(3, 7)):
        act = r.choice(["step", "step", "shadow", "combine", "transpose", "temp"])
        n += 1
        if act == "step":
            src = r.choice(live)
            nm = f"s{n}"
            lines.append(f"let ${nm} = $step(${src});")
            env[nm] = env[src] * 0.5 + 1.0
        elif act == "shadow":           # rebinding a name: its old value is unreachable now
            src = r.choice(live)
            nm = src
            lines.append(f"let ${nm} = $step(${src});")
            env[nm] = env[src] * 0.5 + 1.0
        elif act == "combine":
            a, b = r.choice(live), r.choice(live)
            if env[a].shape != env[b].shape:
                continue
            nm = f"c{n}"
            lines.append(f"let ${nm}[i, j] = ${a}[i, j] - ${b}[i, j] * 2.0;")
            env[nm] = env[a] - env[b] * 2.0
        elif act == "transpose":
            src = r.choice(live)
            nm = f"t{n}"
            lines.append(f"let ${nm}[j, i] = ${src}[i, j] + 0.25;")
            env[nm] = env[src].T + 0.25
        else:                           # a temporary released at once (rebound to a scalar)
            src = r.choice(live)
            lines.append(f"let $tmp[i, j] = ${src}[i, j] * 3.0;")
            lines.append(f"print({checksum_text('$tmp', dt)});")
            lines.append("let $tmp = 0.0;")
            env.setdefault("_prints", []).append(checksum(env[src] * 3.0))
            continue
        if nm not in live:
            live.append(nm)
    vals = [Val(np.asarray(v, dtype=NP[dt]), "f", rtol=1e-5 if dt == "f32" else 1e-12, atol=1e-6)
            for v in env.get("_prints", [])]
    for nm in live:
        lines.append(f"print({checksum_text('$' + nm, dt)});")
        vals.append(Val(np.asarray(checksum(env[nm]), dtype=NP[dt]), "f",
                        rtol=1e-5 if dt == "f32" else 1e-12, atol=1e-6))
    # prints of temporaries come first in the output only if they precede: keep source order
    order = [ln for ln in lines if ln.startswith("print(")]
    return Case("argred", "\n".join(lines) + "\n", vals) if len(order) == len(vals) else None


def gen(r):
    while True:
        c = r.choices([g_rows, g_kmeans, g_viterbi, g_reuse, g_chain], weights=[5, 1.5, 1.5, 2, 2])[0](r)
        if c is not None:
            return c
