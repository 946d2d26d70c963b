"""Kind `localreq` (textkinds.py): local derivative requests (SPEC §7) that local_ad*.py do not
draw, judged against central differences.

  rowgrad    a function returning a gradient `@l / @r` of its parameter, called per row
             `G[i, j] = F(M[i])[j]` (the column range written out or inferred), scaled, summed
             per row, or called in
             a recurrence step (gradient descent `W[t, j] = W[t - 1, j] - lr * F(W[t - 1])[j]`)
  dbind      differential bindings `let df = @y; let dx = @x; print(df / dx);` (scalar or
             array x, y through a block and a declaration); `df * 2.0` is E013
  symbolic   `print(@y)` of scalar expressions: the printed form is evaluated in Python with
             the inputs' values and random tangents (`@x` -> dx; the differentials of
             intermediate bindings take their own directional derivatives) and must equal the
             directional derivative of y by central differences. A form elided with `(…)` is
             only checked to start with `@y = `.
"""
import math
import re

import numpy as np

from gen_rowcall import central
from textkinds import Case, Val

LOSSES = [  # (Einlang body over r and k, NumPy loss of a row)
    ("sum[k](r[k] * r[k] * r[k])", lambda r: (r ** 3).sum()),
    ("sum[k](std::math::tanh(r[k]) * r[k])", lambda r: (np.tanh(r) * r).sum()),
    ("std::math::log(sum[k](std::math::exp(r[k])))", lambda r: np.log(np.exp(r).sum())),
    ("sum[k](r[k] * w[k]) * sum[k](r[k])", None),
]


def lit(v):
    v = np.asarray(v)
    if v.ndim == 0:
        return repr(float(v))
    return "[" + ", ".join(lit(x) for x in v) + "]"


def q(r, shape):
    return np.array([r.randint(-12, 12) / 8 for _ in range(int(np.prod(shape)))]).reshape(shape)


def g_rowgrad(r):
    m, n = r.randint(1, 4), r.randint(1, 4)
    M, w = q(r, (m, n)), q(r, (n,))
    body, fl = r.choice(LOSSES)
    if fl is None:
        fl = lambda row: (row * w).sum() * row.sum()
    inferred = r.random() < 0.5
    rng = "j" if inferred else f"j in 0..{n}"
    lines = [f"let $w = {lit(w)} as [f64];",
             f"fn $F(r) {{ let l = {body.replace('w[k]', '$w[k]')}; @l / @r }}",
             f"let $M = {lit(M)} as [f64];"]
    G = np.array([central(fl, M[i].copy())[0] for i in range(m)])
    form = r.randrange(4)
    if form == 3:                   # gradient descent: the function called in a recurrence step
        T, lr = r.randint(2, 6), r.choice([0.05, 0.1])
        lines += [f"let $W[0, j in 0..{n}] = $M[0, j];",
                  f"let $W[t in 1..{T}, j in 0..{n}] = $W[t - 1, j] - {lr!r} * $F($W[t - 1])[j];",
                  "print($W);"]
        Wr = [M[0].copy()]
        err = 0.0
        for t in range(1, T):
            g, e = central(fl, Wr[-1].copy())
            err = max(err, e)
            Wr.append(Wr[-1] - lr * g)
        return Case("localreq", "\n".join(lines) + "\n",
                    [Val(np.array(Wr), "f", rtol=1e-6, atol=1e-7 + 10 * err)])
    if form == 0:
        lines += [f"let $G[i, {rng}] = $F($M[i])[j];", "print($G);"]
        want = G
    elif form == 1:
        lines += [f"let $G[i, {rng}] = $F($M[i])[j] * $M[i, j] - 1.0;", "print($G);"]
        want = G * M - 1
    else:
        lines += ["let $g[i] = sum($F($M[i]));", "print($g);"]
        want = G.sum(axis=1)
    return Case("localreq", "\n".join(lines) + "\n", [Val(want, "f", rtol=1e-6, atol=1e-7)])


def g_dbind(r):
    n = r.randint(1, 4)
    x = q(r, (n,))
    c = r.choice([0.5, -1.5, 2.0])
    scalar_wrt = r.random() < 0.4
    s = r.randint(-8, 8) / 8
    lines = [f"let $x = {lit(x)} as [f64];", f"let $s = {lit(s)} as f64;",
             f"let $h[i] = std::math::tanh($x[i] * $s) + $x[i] * {c!r};",
             "let $y = { let a = sum[i]($h[i] * $h[i]); a * $s };",
             "let $df = @$y;"]

    def y_of(xv, sv):
        h = np.tanh(xv * sv) + xv * c
        return (h * h).sum() * sv
    if scalar_wrt:
        lines += ["let $ds = @$s;", "print($df / $ds);"]
        g, err = central(lambda v: y_of(x, float(v[0])), np.array([s]))
        want = Val(g[0], "f", rtol=1e-7, atol=1e-8 + 10 * err)
    else:
        lines += ["let $dx = @$x;", "print($df / $dx);"]
        g, err = central(lambda v: y_of(v, s), x.copy())
        want = Val(g, "f", rtol=1e-7, atol=1e-8 + 10 * err)
    if r.random() < 0.15:           # any other arithmetic on a differential is E013
        lines.append("print($df * 2.0);")
        return Case("localreq", "\n".join(lines) + "\n", [want], error="E013")
    return Case("localreq", "\n".join(lines) + "\n", [want])


# scalar expression pieces over x, u (and t, an intermediate binding)
ATOMS = ["x", "u", "x * u", "x * x", "u + 1.5"]
FUNS = [("std::math::exp", np.exp), ("std::math::sin", np.sin), ("std::math::cos", np.cos),
        ("std::math::tanh", np.tanh)]


def rand_expr(r, names, depth):
    if depth == 0 or r.random() < 0.3:
        a = r.choice(names + ATOMS)
        return a
    k = r.randrange(5)
    a, b = rand_expr(r, names, depth - 1), rand_expr(r, names, depth - 1)
    if k == 0:
        return f"{a} * {b}"
    if k == 1:
        return f"{a} + {b} * {r.choice([0.5, 2.0, -3.0])!r}"
    if k == 2:
        return f"{a} - {b}"
    if k == 3:
        f = r.choice(FUNS)[0]
        return f"{f}({a})"
    return f"({a}) ** 2"


PY_FUNS = {"exp": np.exp, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "log": np.log,
           "sqrt": np.sqrt}


def to_python(src):
    """Einlang expression text -> Python text (differentials `@n` -> `d_n`, `if c { a } else
    { b }` -> `(a if c else b)`); None when it holds anything else (an elision)."""
    if "…" in src or "sum[" in src or "[" in src:
        return None
    s = src.replace("std::math::", "")
    s = re.sub(r"@(\w+)", r"d_\1", s)
    out, i = [], 0
    while i < len(s):
        if s.startswith("if ", i) and (i == 0 or not s[i - 1].isalnum()):
            j = s.index("{", i)
            cond = s[i + 3:j].strip()
            a, k = block(s, j)
            rest = s[k:].lstrip()
            if not rest.startswith("else"):
                return None
            rest_at = s.index("else", k) + 4
            while s[rest_at] == " ":
                rest_at += 1
            if s.startswith("if ", rest_at):
                return None
            b, k2 = block(s, rest_at)
            ca, cb, cc = to_python(a), to_python(b), to_python(cond)
            if None in (ca, cb, cc):
                return None
            out.append(f"(({ca}) if ({cc}) else ({cb}))")
            i = k2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def block(s, j):
    """(text inside the braces opening at s[j], index after the closing brace)."""
    depth = 0
    for k in range(j, len(s)):
        if s[k] == "{":
            depth += 1
        elif s[k] == "}":
            depth -= 1
            if depth == 0:
                return s[j + 1:k], k + 1
    raise ValueError("unbalanced")


def g_symbolic(r):
    x, u = r.randint(-12, 12) / 8 or 0.625, r.randint(-12, 12) / 8 or -0.375
    t_src = rand_expr(r, [], 2)
    y_src = rand_expr(r, ["t"], 2)
    if "t" not in re.findall(r"\b\w+\b", y_src):
        y_src = f"t * {y_src}"
    lines = [f"let $x = {x!r} as f64;", f"let $u = {u!r} as f64;",
             f"let $t = {pref(t_src)};", f"let $y = {pref(y_src)};", "print(@$y);"]
    c = Case("localreq", "\n".join(lines) + "\n", [Val(0, "s")])
    c.vals[0].text = None
    c.vals[0].check = lambda line, prefix: check_symbolic(line, prefix, x, u, t_src, y_src)
    return c


def pref(src):
    return re.sub(r"\b([xut])\b", r"$\1", src)


def ev(src, env):
    py = src.replace("std::math::", "")
    return eval(py, {"__builtins__": {}}, dict(PY_FUNS, **env))


def check_symbolic(line, prefix, x, u, t_src, y_src):
    """None when the printed `@y = ..` evaluates to y's directional derivative."""
    head = f"@{prefix}y = "
    if not line.startswith(head):
        return f"expected a line starting {head!r}, got {line[:200]!r}"
    py = to_python(line[len(head):])
    if py is None:
        return None             # elided or holding a construct this check does not read
    dx, du = 0.75, -1.25
    eps = 1e-5

    def at(e):
        xe, ue = x + e * dx, u + e * du
        t = ev(t_src, {"x": xe, "u": ue})
        return t, ev(y_src, {"x": xe, "u": ue, "t": t})
    (tp, yp), (tm, ym) = at(eps), at(-eps)
    t0, y0 = at(0.0)
    dt, dy = (tp - tm) / (2 * eps), (yp - ym) / (2 * eps)
    env = {f"{prefix}x": x, f"{prefix}u": u, f"{prefix}t": t0, f"{prefix}y": y0,
           f"d_{prefix}x": dx, f"d_{prefix}u": du, f"d_{prefix}t": dt}
    try:
        with np.errstate(all="ignore"):
            got = float(eval(py, {"__builtins__": {}}, dict(PY_FUNS, **env)))
    except Exception as e:      # a form this check cannot read: say so
        return f"cannot evaluate {py[:200]!r}: {type(e).__name__}: {e}"
    if not math.isfinite(dy) or abs(dy) > 1e8:
        return None
    if abs(got - dy) > 1e-6 * (1 + abs(dy)):
        return f"the printed form evaluates to {got!r}, the directional derivative is {dy!r}: {line[:300]}"
    return None


FORMS = [(g_rowgrad, 2), (g_dbind, 2), (g_symbolic, 2)]


def gen(r):
    fn = r.choices([f for f, _ in FORMS], weights=[w for _, w in FORMS])[0]
    return fn(r)
