"""Kind `cast` (textkinds.py): array casts and integer semantics (SPEC §3-§4, docs/language.md
Types): `a as [f32]` / `[i8]` / `[i64]` on every rank, `a as [f64; n, m]` (E004 on another
shape), float->int truncation toward zero saturating like Rust, int->int casts wrapping, integer
`/` truncating and `%` with the dividend's sign in i8/i32/i64, E007 for a zero divisor at run
time, wrapping `+ - *` near the limits, per-unit literal inference (`let k = 0.1;` typed f64 by a
later `k * x_f64`, f32 when nothing constrains it), `**` with int and float exponents. A
program is two to four such statements; one that must fail comes last (its code ends the run,
after the values printed before it).
"""
import math

import numpy as np

from textkinds import Case, Val

LIM = {"i8": (-128, 127), "i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1)}


def wrap(t, x):
    lo, hi = LIM[t]
    n = hi - lo + 1
    return (x - lo) % n + lo


def tdiv(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def trem(a, b):
    return a - b * tdiv(a, b)


def sat(t, x):
    if math.isnan(x):
        return 0
    lo, hi = LIM[t]
    if math.isinf(x):
        return hi if x > 0 else lo
    return min(max(math.trunc(x), lo), hi)


def ints(r, t, n, edge=False):
    lo, hi = LIM[t]
    out = []
    for _ in range(n):
        if edge and r.random() < 0.4:
            out.append(r.choice([lo, hi, lo + 1, hi - 1, hi // 2 + 1, lo // 2 - 1]))
        else:
            out.append(r.randint(-20, 20))
    return out


def decl(name, t, xs):
    """An annotated literal: the annotation types the literals (SPEC §3)."""
    shape = ", ".join(map(str, np.shape(xs)))
    return f"let {name}: [{t}; {shape}] = {lst(xs)};"


def lst(xs):
    if isinstance(xs, list):
        return "[" + ", ".join(lst(x) for x in xs) + "]"
    return repr(float(xs)) if isinstance(xs, float) else str(xs)


def s_divrem(r, k, st):
    t = r.choice(["i8", "i32", "i64"])
    n = r.randint(1, 6)
    a, b = ints(r, t, n, edge=True), ints(r, t, n)
    b = [x if x != 0 else r.choice([3, -2]) for x in b]
    zero = r.random() < 0.12
    if zero:
        b[r.randrange(n)] = 0
    op = r.choice(["/", "%"])
    A, B, Q = f"$a{k}", f"$b{k}", f"$q{k}"
    st.lines += [decl(A, t, a), decl(B, t, b), f"let {Q}[i] = {A}[i] {op} {B}[i];", f"print({Q});"]
    if zero:
        return "E007"
    f = tdiv if op == "/" else trem
    st.vals.append(Val([wrap(t, f(x, y)) for x, y in zip(a, b)], "i"))   # MIN / -1 wraps
    return None


def s_wrap(r, k, st):
    t = r.choice(["i8", "i32", "i64"])
    n = r.randint(1, 5)
    a, b = ints(r, t, n, edge=True), ints(r, t, n, edge=True)
    A, B, W = f"$a{k}", f"$b{k}", f"$w{k}"
    form = r.randrange(3)
    expr, fn = [(f"{A}[i] * {B}[i] + {A}[i]", lambda x, y: x * y + x),
                (f"{A}[i] - {B}[i] * 3 as {t}", lambda x, y: x - y * 3),
                (f"-{A}[i] + {B}[i]", lambda x, y: -x + y)][form]
    st.lines += [decl(A, t, a), decl(B, t, b), f"let {W}[i] = {expr};", f"print({W});"]
    st.vals.append(Val([wrap(t, fn(x, y)) for x, y in zip(a, b)], "i"))


def s_f2i(r, k, st):
    src = r.choice(["f32", "f64"])
    dst = r.choice(["i8", "i32", "i64"])
    shape = r.choice([(r.randint(1, 5),), (r.randint(1, 3), r.randint(1, 3))])
    pool = [-2.75, -0.5, 0.5, 2.5, 3.999, -7.25, 127.5, 128.5, -129.0, 300.0, 1e10, -1e10,
            2147483647.0, -2147483904.0, 5e18, -1e19]
    xs = np.array([r.choice(pool) if r.random() < 0.5 else r.randint(-64, 64) / 8
                   for _ in range(int(np.prod(shape)))]).reshape(shape)
    if src == "f32":
        xs = xs.astype(np.float32).astype(np.float64)
    F, T = f"$f{k}", f"$t{k}"
    st.lines += [decl(F, src, xs.tolist()), f"let {T} = {F} as [{dst}];", f"print({T});"]
    st.vals.append(Val(np.vectorize(lambda x: sat(dst, x), otypes=[object])(xs).tolist(), "i"))


def s_i2i(r, k, st):
    src, dst = r.sample(["i8", "i32", "i64"], 2)
    shape = r.choice([(r.randint(1, 5),), (r.randint(1, 3), r.randint(1, 3))])
    xs = np.array(ints(r, src, int(np.prod(shape)), edge=True), dtype=object).reshape(shape)
    A, T = f"$a{k}", f"$t{k}"
    tofl = r.random() < 0.3
    if tofl:        # to a float type: exact below 2^24 / 2^53, so small values only
        dst = r.choice(["f32", "f64"])
        lo, hi = max(LIM[src][0], -1000), min(LIM[src][1], 1000)
        xs = np.array([r.randint(lo, hi) for _ in range(xs.size)], dtype=object).reshape(shape)
    st.lines += [decl(A, src, xs.tolist()), f"let {T} = {A} as [{dst}];", f"print({T});"]
    if tofl:
        st.vals.append(Val(np.array(xs.tolist(), dtype=np.float64), "f"))
    else:
        st.vals.append(Val(np.vectorize(lambda x: wrap(dst, x), otypes=[object])(xs).tolist(), "i"))


def s_shape(r, k, st):
    n, m = r.randint(1, 3), r.randint(1, 4)
    xs = [[r.randint(-9, 9) for _ in range(m)] for _ in range(n)]
    A, T = f"$a{k}", f"$t{k}"
    bad = r.random() < 0.2
    nn, mm = (n, m) if not bad else r.choice([(m, n) if m != n else (n + 1, m), (n, m + 1)])
    st.lines += [decl(A, "i32", xs), f"let {T} = {A} as [f64; {nn}, {mm}];", f"print({T});"]
    if bad:
        return "E004"
    st.vals.append(Val(np.array(xs, dtype=np.float64), "f"))
    return None


def s_infer(r, k, st):
    c = r.choice([0.1, 0.3, 0.7, 1.1, 2.2, 0.2])
    xs = [r.randint(-40, 40) / 7 for _ in range(r.randint(1, 4))]
    K, X, Y = f"$k{k}", f"$x{k}", f"$y{k}"
    if r.random() < 0.6:            # constrained by a later f64 use: k is an f64
        chain = r.random() < 0.5
        st.lines += [f"let {K} = {c};"]
        kk = K
        if chain:
            st.lines.append(f"let {K}u = {K} * 3.0;")
            kk = f"{K}u"
        st.lines += [decl(X, "f64", xs), f"let {Y}[i] = {kk} * {X}[i];", f"print({Y});"]
        kv = c * 3.0 if chain else c
        st.vals.append(Val([kv * x for x in xs], "f"))
    else:                           # unconstrained: f32 arithmetic
        st.lines += [f"let {K} = {c};", f"print([{K} * 3.0, {K} / 7.0]);"]
        f = np.float32
        st.vals.append(Val(np.array([f(c) * f(3.0), f(c) / f(7.0)], dtype=np.float32), "f"))


def s_pow(r, k, st):
    form = r.randrange(3)
    n = r.randint(1, 5)
    A, P = f"$a{k}", f"$p{k}"
    if form == 0:                   # i ** i, wrapping
        t = r.choice(["i32", "i64"])
        a = [r.randint(-12, 12) for _ in range(n)]
        e = r.randint(0, 12)
        st.lines += [decl(A, t, a), f"let {P}[i] = {A}[i] ** {e};", f"print({P});"]
        st.vals.append(Val([wrap(t, x ** e) for x in a], "i"))
    elif form == 1:                 # f ** i (powi)
        t = r.choice(["f32", "f64"])
        a = [r.randint(-20, 20) / 8 for _ in range(n)]
        E = [r.randint(-3, 6) for _ in range(n)]
        a = [x if x != 0 or e >= 0 else 0.5 for x, e in zip(a, E)]
        st.lines += [decl(A, t, a), decl(f"$e{k}", "i32", E),
                     f"let {P}[i] = {A}[i] ** $e{k}[i];", f"print({P});"]
        st.vals.append(Val([x ** e for x, e in zip(a, E)], "f", rtol=1e-6 if t == "f32" else 1e-14))
    else:                           # f ** f (powf) on non-negative bases
        t = r.choice(["f32", "f64"])
        a = [r.randint(0, 40) / 8 for _ in range(n)]
        e = r.choice([0.5, 1.5, 2.0, -0.5, 0.25, 3.0])
        a = [x if x > 0 or e > 0 else 1.0 for x in a]
        st.lines += [decl(A, t, a), f"let {P}[i] = {A}[i] ** {e};", f"print({P});"]
        st.vals.append(Val([x ** e for x in a], "f", rtol=1e-6 if t == "f32" else 1e-14))


def s_whole(r, k, st):
    """Whole-array and scalar integer arithmetic (broadcasting, SPEC §4), E007 on a zero."""
    t = r.choice(["i8", "i32", "i64"])
    n = r.randint(1, 5)
    a, b = ints(r, t, n, edge=True), [r.choice([x for x in range(-7, 8) if x]) for _ in range(n)]
    A, B, Q = f"$a{k}", f"$b{k}", f"$q{k}"
    op = r.choice(["/", "%", "*", "-"])
    f = {"/": tdiv, "%": trem, "*": lambda x, y: x * y, "-": lambda x, y: x - y}[op]
    st.lines += [decl(A, t, a), decl(B, t, b)]
    form = r.randrange(3)
    if form == 0:
        st.lines += [f"let {Q} = {A} {op} {B};", f"print({Q});"]
        st.vals.append(Val([wrap(t, f(x, y)) for x, y in zip(a, b)], "i"))
    elif form == 1:                 # an array and a scalar binding
        c = b[0]
        st.lines += [f"let {Q} = {A} {op} {B}[0];", f"print({Q});"]
        st.vals.append(Val([wrap(t, f(x, c)) for x in a], "i"))
    else:                           # scalars; a zero divisor read from data
        z = op in "/%" and r.random() < 0.3
        st.lines += [f"let {Q}z = {B}[0] - {B}[0];" if z else f"let {Q}z = {B}[0];",
                     f"print({A}[{n - 1}] {op} {Q}z);"]
        if z:
            return "E007"
        st.vals.append(Val(wrap(t, f(a[n - 1], b[0])), "i"))
    return None


class St:
    def __init__(self):
        self.lines, self.vals = [], []


STMTS = [s_divrem, s_divrem, s_whole, s_whole, s_wrap, s_f2i, s_f2i, s_i2i, s_shape, s_infer, s_pow, s_pow]


def gen(r):
    st = St()
    err = None
    for k in range(r.randint(2, 4)):
        err = r.choice(STMTS)(r, k, st)
        if err:
            break
    return Case("cast", "\n".join(st.lines) + "\n", st.vals, error=err)
