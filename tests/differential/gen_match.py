"""Kind `match` (textkinds.py): match expressions (SPEC §4) with literal, or-, range (`..`,
`..=`), binding (`n`, `n @ 1..=9`), wildcard, tuple and array patterns (`[a, b]`,
`[first, ..rest]`, `[.., last]`, `[x, .., y]`, `[1, ..]`, length-only `[_, _]`) and guards
(`n where n > 3`), first matching arm wins; used in a function body called with several values,
in an Einstein clause body per point (on an element, on `(element, index)`, on a matrix row), in
a recurrence step on the previous point; non-exhaustive matches (no catch-all) must be E002.
The reference is a pattern matcher over Python ints written from SPEC §4 (truncating `/`,
`%` with the dividend's sign).
"""
import known_bugs
from gen_cast import tdiv, trem
from textkinds import Case, Val


class Pat:
    """text, and match(value, env) -> bool (binding names into env)."""

    def __init__(self, text, fn, binds=(), total=False):
        self.text, self.fn, self.binds, self.total = text, fn, tuple(binds), total


def int_pat(r, names, allow_bind=True):
    k = r.randrange(6 if allow_bind else 4)
    if k == 0:
        c = r.randint(-3, 9)
        return Pat(str(c), lambda v, e: v == c)
    if k == 1:
        cs = sorted(set(r.randint(0, 9) for _ in range(r.randint(2, 3))))
        return Pat(" | ".join(map(str, cs)), lambda v, e: v in cs)
    if k in (2, 3):
        lo = r.randint(-4, 6)
        hi = lo + r.randint(1, 5)
        inc = r.random() < 0.5
        txt = f"{lo}..={hi}" if inc else f"{lo}..{hi}"
        ok = (lambda v, e: lo <= v <= hi) if inc else (lambda v, e: lo <= v < hi)
        if k == 3 and allow_bind:    # binding over a range: n @ lo..=hi
            n = names.pop()
            return Pat(f"{n} @ {txt}", lambda v, e: ok(v, e) and e.__setitem__(n, v) is None, [n])
        return Pat(txt, ok)
    if k == 4:
        return Pat("_", lambda v, e: True, total=True)
    n = names.pop()
    return Pat(n, lambda v, e: e.__setitem__(n, v) is None, [n], total=True)


def int_expr(r, ints):
    """(text, fn(env)) of a small integer expression over the names in `ints`."""
    c = r.randint(-5, 9)
    if not ints or r.random() < 0.2:
        return str(c), lambda e: c
    x = r.choice(ints)
    k = r.randrange(5)
    if k == 0:
        return f"{x} * {abs(c) + 1}", lambda e: e[x] * (abs(c) + 1)
    if k == 1:
        return f"{x} + {abs(c)}", lambda e: e[x] + abs(c)
    if k == 2:
        d = r.randint(2, 4)
        return f"{x} / {d}", lambda e: tdiv(e[x], d)
    if k == 3:
        d = r.randint(2, 4)
        return f"{x} % {d} - {abs(c)}", lambda e: trem(e[x], d) - abs(c)
    y = r.choice(ints)
    return f"{x} - {y}", lambda e: e[x] - e[y]


def guard(r, n):
    c = r.randint(-2, 6)
    k = r.randrange(3)
    if k == 0:
        return f"{n} > {c}", lambda e: e[n] > c
    if k == 1:
        return f"{n} % 2 == 0", lambda e: trem(e[n], 2) == 0
    return f"{n} <= {c}", lambda e: e[n] <= c


def arms_int(r, outer, exhaustive=True):
    """Arms over an int scrutinee: [(pattern, guard, body)], the last a catch-all."""
    arms = []
    for a in range(r.randint(1, 4)):
        names = [f"n{a}", f"m{a}"]
        p = int_pat(r, names)
        g = None
        if p.binds and r.random() < 0.5:
            g = guard(r, p.binds[0])
        arms.append((p, g, int_expr(r, list(outer) + list(p.binds))))
        if p.total and g is None:   # later arms would be unreachable
            return arms
    if exhaustive:
        n = "z"
        last = r.choice([Pat("_", lambda v, e: True, total=True),
                         Pat(n, lambda v, e: e.__setitem__(n, v) is None, [n], total=True)])
        arms.append((last, None, int_expr(r, list(outer) + list(last.binds))))
    return arms


def arr_pat(r, a):
    """An array pattern over a 1-D int array."""
    k = r.randrange(7)
    x, y, rest = f"x{a}", f"y{a}", f"rest{a}"
    if k == 0:
        L = r.randint(1, 3)
        ns = [f"e{a}_{q}" for q in range(L)]
        def m(v, e, ns=ns):
            if len(v) != len(ns):
                return False
            e.update(zip(ns, v))
            return True
        return Pat("[" + ", ".join(ns) + "]", m, ns)
    if k == 1:
        def m(v, e):
            if len(v) < 1:
                return False
            e[x] = v[0]
            e[rest] = list(v[1:])
            return True
        return Pat(f"[{x}, ..{rest}]", m, [x, rest])
    if k == 2:
        return Pat(f"[.., {y}]", lambda v, e: len(v) >= 1 and e.__setitem__(y, v[-1]) is None, [y])
    if k == 3:
        def m(v, e):
            if len(v) < 2:
                return False
            e[x], e[y] = v[0], v[-1]
            return True
        return Pat(f"[{x}, .., {y}]", m, [x, y])
    if k == 4:
        c = r.randint(0, 4)
        return Pat(f"[{c}, ..]", lambda v, e: len(v) >= 1 and v[0] == c)
    if k == 5:
        L = r.randint(1, 4)
        return Pat("[" + ", ".join(["_"] * L) + "]", lambda v, e: len(v) == L)
    c = r.randint(0, 4)
    def m(v, e):
        if len(v) != 2 or v[1] != c:
            return False
        e[x] = v[0]
        return True
    return Pat(f"[{x}, {c}]", m, [x])


def arr_expr(r, binds):
    ints = [b for b in binds if not b.startswith("rest")]
    rests = [b for b in binds if b.startswith("rest")]
    if rests and r.random() < 0.6:
        rs = rests[0]
        if r.random() < 0.5:
            return f"sum({rs})", lambda e: sum(e[rs])
        return f"len({rs}) * 10", lambda e: len(e[rs]) * 10
    return int_expr(r, ints)


def array_arms(r, most):
    """One to `most` array-pattern arms and a catch-all."""
    arms = []
    for a in range(r.randint(1, most)):
        p = arr_pat(r, a)
        arms.append((p, None, arr_expr(r, p.binds)))
    return arms + [(Pat("_", lambda v, e: True, total=True), None, ("-1", lambda e: -1))]


def run_match(arms, v, env0):
    for p, g, (_, body) in arms:
        e = dict(env0)
        if p.fn(v, e) and (g is None or g[1](e)):
            return body(e)
    raise AssertionError("no arm matched")


def text(scrut, arms):
    parts = []
    for p, g, (bt, _) in arms:
        parts.append(p.text + (f" where {g[0]}" if g else "") + f" => {bt}")
    return f"match {scrut} {{ " + ", ".join(parts) + " }"


def ilit(xs):
    return "[" + ", ".join(map(str, xs)) + "]"


def gen(r):
    ctx = r.choice(["fn", "fn_arr", "elem", "pair", "row", "rec", "rec", "nonexh", "index",
                    "reduce", "grad", "grad"])
    lines, vals = [], []
    if ctx in ("fn", "nonexh"):
        arms = arms_int(r, ["v"], exhaustive=ctx == "fn")
        if ctx == "nonexh":
            if any(p.total and g is None for p, g, _ in arms):
                arms = [a for a in arms if not (a[0].total and a[1] is None)]
            if not arms:
                arms = [(Pat("0", None), None, ("1", None))]
            lines.append(f"fn $G(v) {{ {text('v', arms)} }}")
            lines.append(f"print($G({r.randint(-3, 9)}));")
            return Case("match", "\n".join(lines) + "\n", [], error="E002")
        lines.append(f"fn $G(v) {{ {text('v', arms)} }}")
        xs = [r.randint(-6, 12) for _ in range(r.randint(2, 6))]
        lines.append("print(" + ", ".join(f"$G({x})" for x in xs) + ");")
        vals.append(Val([run_match(arms, x, {"v": x}) for x in xs], "i"))
        lines[-1] = f"let $gs = {ilit(xs)};\nlet $H[i] = $G($gs[i]);\nprint($H);"
    elif ctx == "fn_arr":
        arms = array_arms(r, 4)
        lines.append(f"fn $G(v) {{ {text('v', arms)} }}")
        xs = [[r.randint(0, 4) for _ in range(r.randint(1, 5))] for _ in range(r.randint(2, 4))]
        lines.append("print(" + ", ".join(f"$G({ilit(x)})" for x in xs) + ");")
        vals += [Val(run_match(arms, x, {}), "i") for x in xs]
        lines[-1] = "\n".join(f"print($G({ilit(x)}));" for x in xs)
    elif ctx in ("elem", "pair"):
        a = [r.randint(-5, 10) for _ in range(r.randint(1, 7))]
        lines.append(f"let $a = {ilit(a)};")
        if ctx == "elem":
            arms = arms_int(r, ["$a[i]", "i"][:r.randint(0, 2)])
            lines.append(f"let $M[i] = {text('$a[i]', arms)};")
            want = [run_match(arms, x, {"$a[i]": x, "i": i}) for i, x in enumerate(a)]
        else:                       # a tuple of the element and the index
            c = r.randint(0, 5)
            arms = [(Pat(f"({c}, _)", lambda v, e: v[0] == c), None, ("100", lambda e: 100)),
                    (Pat("(x, j)", lambda v, e: e.update(x=v[0], j=v[1]) is None, ["x", "j"]),
                     ("x > j", lambda e: e["x"] > e["j"]), int_expr(r, ["x", "j"])),
                    (Pat("(x, 1..=3)", lambda v, e: 1 <= v[1] <= 3 and e.update(x=v[0]) is None,
                         ["x"]), None, int_expr(r, ["x"])),
                    (Pat("_", lambda v, e: True, total=True), None, ("-7", lambda e: -7))]
            head = arms[:3]
            r.shuffle(head)
            arms = head + arms[3:]
            lines.append(f"let $M[i] = {text('($a[i], i)', arms)};")
            want = [run_match(arms, (x, i), {}) for i, x in enumerate(a)]
        lines.append("print($M);")
        vals.append(Val(want, "i"))
    elif ctx == "index":            # on the index itself, the range explicit; a float result
        n = r.randint(1, 8)
        f = [r.randint(-8, 8) / 4 for _ in range(n)]
        arms = arms_int(r, ["i"])
        lines.append(f"let $f = [{', '.join(repr(x) for x in f)}] as [f64];")
        lines.append(f"let $M[i in 0..{n}] = $f[i] * ({text('i', arms)}) as f64;")
        lines.append("print($M);")
        vals.append(Val([f[i] * float(run_match(arms, i, {"i": i})) for i in range(n)], "f"))
    elif ctx == "reduce":           # per term of a reduction, guarded
        a = [r.randint(-5, 10) for _ in range(r.randint(1, 7))]
        arms = arms_int(r, ["$a[k]", "k"][:r.randint(0, 2)])
        red = r.choice(["sum", "max", "min"])
        lines.append(f"let $a = {ilit(a)};")
        lines.append(f"let $s = {red}[k]({text('$a[k]', arms)});")
        lines.append("print($s);")
        terms = [run_match(arms, x, {"$a[k]": x, "k": k}) for k, x in enumerate(a)]
        vals.append(Val({"sum": sum, "max": max, "min": min}[red](terms), "i"))
    elif ctx == "grad":             # f64 arms per point, the derivative through the taken arm
        import numpy as np
        from gen_rowcall import central, lit
        n = r.randint(1, 6)
        k = [r.randint(0, 6) for _ in range(n)]
        x = np.array([r.randint(-12, 12) / 8 + 1 / 16 for _ in range(n)])
        w = np.array([r.randint(-8, 8) / 8 for _ in range(n)])
        arms = [("0", lambda v, kk: v * v, "$x[i] * $x[i]"),
                ("1 | 2", lambda v, kk: np.sin(v) * 2.0, "std::math::sin($x[i]) * 2.0"),
                ("m where m > 4", lambda v, kk: v * kk, "$x[i] * (m as f64)"),
                ("3", lambda v, kk: v ** 3, "$x[i] ** 3")]
        r.shuffle(arms)
        arms.append(("_", lambda v, kk: -v * 0.5, "-$x[i] * 0.5"))

        def pick(kk):
            for p, f, _ in arms:
                if p == "_" or (p.startswith("m") and kk > 4) or \
                        (p[0].isdigit() and kk in [int(t) for t in p.split(" | ")]):
                    return f
        if "ad_match_binding" not in known_bugs.active() and r.random() < 0.5:
            # on the float itself: a guard on its sign
            arms = [("v where v > 0.0", None, "v * v"), ("v", None, "-v * 0.5")]
            pick = lambda kk: None
            y = lambda xs: np.array([v * v if v > 0 else -v * 0.5 for v in xs])
            scrut = "$x[i]"
        else:
            y = lambda xs: np.array([pick(kk)(v, kk) for v, kk in zip(xs, k)])
            scrut = "$k[i]"
        body = "match " + scrut + " { " + ", ".join(f"{p} => {t}" for p, _, t in arms) + " }"
        lines += [f"let $k = {ilit(k)};", f"let $x = {lit(x, 'f64')};", f"let $w = {lit(w, 'f64')};",
                  f"let $y[i] = {body};", "print($y);", "let $L = sum[i]($y[i] * $w[i]);",
                  "print(@$L / @$x);"]
        grad, err = central(lambda xs: float((y(xs) * w).sum()), x)
        vals += [Val(y(x), "f", rtol=1e-15, atol=1e-15),
                 Val(grad, "f", rtol=1e-5, atol=1e-6 + 10 * err)]
    elif ctx == "row":
        L = r.randint(1, 4)
        A = [[r.randint(0, 4) for _ in range(L)] for _ in range(r.randint(1, 4))]
        arms = array_arms(r, 3)
        lines.append(f"let $A = [{', '.join(ilit(x) for x in A)}];")
        lines.append(f"let $M[i] = {text('$A[i]', arms)};")
        lines.append("print($M);")
        vals.append(Val([run_match(arms, x, {}) for x in A], "i"))
    else:                           # a recurrence stepping through a match on the last point
        T = r.randint(2, 9)
        s0 = r.randint(-5, 30)
        arms = arms_int(r, [])
        # keep the values bounded: each body is applied to the previous value
        lines.append(f"let $R[0] = {s0};")
        lines.append(f"let $R[t in 1..{T}] = {text('$R[t - 1]', arms)};")
        lines.append("print($R);")
        R = [s0]
        for _ in range(1, T):
            R.append(run_match(arms, R[-1], {}))
        if max(abs(x) for x in R) > 2 ** 30:
            return gen(r)
        vals.append(Val(R, "i"))
    return Case("match", "\n".join(lines) + "\n", vals)
