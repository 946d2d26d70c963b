"""Kind `generic` (textkinds.py): functions, generics and modules (SPEC §6), with expected
values from NumPy and central differences.

  calls      one generic function called with f32, f64, i32, i64 arguments of several ranks
             and extents in one program, interleaved (each signature its own specialisation;
             a kernel shared between them would print another dtype's or shape's values)
  hoisting   a `const` and a function used above their definitions; const expressions
  builtin    a user function named like a builtin (`len`, `prod`) shadows it (run alone)
  qualified  `std::math::exp`, `sqrt`, `tanh` by their full paths, no `use`
  recursion  recursive and mutually recursive functions; a recursion too deep is E007
  rule       `@fn` rules that are right: `@L / @x` through the function with the rule and
             through a body-only twin, both against central differences
  module     a module file (written to the run's directory) with `pub let` bindings and a
             function reading them, imported with `use` and called by full path
"""

import numpy as np

from gen_cast import wrap
from gen_rowcall import central
from textkinds import Case, Val

NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}
FLOAT = ("f32", "f64")


def lit(v, dt):
    def rec(x):
        if x.ndim == 0:
            return repr(float(x)) if dt in FLOAT else str(int(x))
        return "[" + ", ".join(rec(y) for y in x) + "]"
    return rec(np.asarray(v)) + f" as [{dt}]"


def rand_arr(r, dt, shape, tenths=False):
    """Multiples of 1/8 (exact in f32 and f64), or of 1/10 with `tenths`: then an f64 result
    computed at f32 precision (a kernel of another specialisation) is off by ~1e-8."""
    n = int(np.prod(shape))
    if dt in FLOAT and tenths:
        xs = [r.randint(-30, 30) / 10 for _ in range(n)]
    elif dt in FLOAT:
        xs = [r.randint(-16, 16) / 8 for _ in range(n)]
    else:
        xs = [r.randint(-6, 9) for _ in range(n)]
    return np.array(xs, dtype=NP[dt]).reshape(shape)


def val(v, dt):
    v = np.asarray(v)
    if dt in FLOAT:
        tol = 1e-5 if dt == "f32" else 1e-13
        return Val(v.astype(NP[dt]), "f", rtol=tol, atol=tol)
    return Val(v, "i")


# Generic bodies valid for every numeric dtype and any rank (whole-array arithmetic and the
# builtin reductions), with their NumPy meaning in the argument's own dtype.
ANY_RANK = [
    ("fn $F(x, y) {{ x * y + x }}", 2, lambda x, y: x * y + x),
    ("fn $F(x) {{ sum(x) * max(x) }}", 1, lambda x: x.sum(dtype=x.dtype) * x.max()),
    ("fn $F(x) {{ max(x) - min(x) + prod(x) }}", 1,
     lambda x: x.max() - x.min() + x.prod(dtype=x.dtype)),
    ("fn $F(x, y) {{ sum(x * y) - sum(x) }}", 2,
     lambda x, y: (x * y).sum(dtype=x.dtype) - x.sum(dtype=x.dtype)),
]
# Rank-specific bodies with Einstein declarations and block-local arrays.
RANKED = [
    (1, "fn $F(x) {{ let s[i] = x[i] * x[i]; sum[i](s[i]) - x[0] }}", 1,
     lambda x: (x * x).sum(dtype=x.dtype) - x[0]),
    (2, "fn $F(x) {{ let t[j, i] = x[i, j]; t }}", 1, lambda x: x.T),
    (2, "fn $F(x, y) {{ let p[i, j] = sum[k](x[i, k] * y[j, k]); p }}", 2,
     lambda x, y: np.einsum("ik,jk->ij", x, y).astype(x.dtype)),
    (1, "fn $F(x) {{ let m = max[i](x[i]); let d[i] = m - x[i]; d }}", 1, lambda x: x.max() - x),
]


def g_calls(r):
    """One or two generic functions, each called with several dtypes, ranks and extents."""
    lines, vals = [], []
    for name in r.sample(["f", "g"], r.randint(1, 2)):
        if r.random() < 0.5:
            text, nargs, fn = r.choice(ANY_RANK)
            ranks = [1, 2, 3]
        else:
            rank, text, nargs, fn = r.choice(RANKED)
            ranks = [rank]
        lines.append(text.format().replace("$F", f"${name}"))
        for c in range(r.randint(3, 6)):
            dt = r.choice(list(NP))
            rank = r.choice(ranks)
            shape = tuple(r.randint(1, 4) for _ in range(rank))
            if "y[j, k]" in text:
                shape2 = (r.randint(1, 4), shape[1])
            else:
                shape2 = shape
            args = [rand_arr(r, dt, shape, True)] + ([rand_arr(r, dt, shape2, True)] if nargs == 2 else [])
            names = []
            for k, a in enumerate(args):
                nm = f"${name}a{c}{k}"
                # annotated, so that the literals are of dt (`[0.1] as [f64]` would be an f32
                # literal converted: SPEC §3, `as` gives no context)
                lines.append(f"let {nm}: [{dt}; {', '.join(map(str, a.shape))}] = "
                             f"{lit(a, dt).rsplit(' as ', 1)[0]};")
                names.append(nm)
            with np.errstate(over="ignore"):
                want = np.asarray(fn(*args))
            if dt == "i32":     # wrapping as ein's i32
                want = np.vectorize(lambda v: wrap("i32", int(v)))(want).astype(np.int64) \
                    if want.size else want
            lines.append(f"print(${name}({', '.join(names)}));")
            vals.append(val(want, dt))
            if r.random() < 0.3:
                lines.append(f"print(typeof(${name}({', '.join(names)})));")
                vals.append(Val(0, "s"))
                vals[-1].text = (dt if want.ndim == 0 else
                                 f"[{dt}; {', '.join(map(str, want.shape))}]")
    return Case("generic", "\n".join(lines) + "\n", vals)


def g_hoisting(r):
    """A const and a function used above their definitions; a const expression."""
    dt = r.choice(["i32", "i64"])
    a, b = r.randint(2, 9), r.randint(-5, 5)
    n = r.randint(1, 6)
    xs = rand_arr(r, dt, (n,))
    lines = [f"let $x = {lit(xs, dt)};",
             "print($scale($x));",
             "print($K * $M);",
             "fn $scale(v) { let w[i] = v[i] * $K + $M; w }",
             f"const $K: {dt} = {a} * 2 - 1;",
             f"const $M: {dt} = {b};"]
    K, M = 2 * a - 1, b
    return Case("generic", "\n".join(lines) + "\n",
                [Val(xs.astype(np.int64) * K + M, "i"), Val(K * M, "i")])


def g_builtin(r):
    """User functions named `len` / `prod` shadow the builtins (the program runs alone)."""
    n = r.randint(1, 6)
    xs = rand_arr(r, "i32", (n,))
    k = r.randint(2, 9)
    lines = [f"fn len(v) {{ sum(v) + {k} }}",
             "fn prod(a, b) { a * b - 1 }",
             f"let $x = {lit(xs, 'i32')};",
             "print(len($x));",
             "print(prod(3, 4));",
             "print(shape($x));"]
    c = Case("generic", "\n".join(lines) + "\n",
             [Val(int(xs.sum()) + k, "i"), Val(11, "i"), Val([n], "i")])
    c.alone = True
    return c


def g_qualified(r):
    """std::math functions by their full path, f32 and f64, elementwise in a declaration."""
    dt = r.choice(FLOAT)
    n = r.randint(1, 6)
    xs = np.abs(rand_arr(r, dt, (n,))) + NP[dt](0.125)
    name, fn = r.choice([("exp", np.exp), ("sqrt", np.sqrt), ("tanh", np.tanh), ("log", np.log)])
    lines = [f"let $x = {lit(xs, dt)};",
             f"let $y[i] = std::math::{name}($x[i]) * $x[i];",
             "print($y);",
             f"print(std::math::{name}($x[0]));"]
    with np.errstate(all="ignore"):
        y = (fn(xs.astype(np.float64)) * xs.astype(np.float64))
        y0 = fn(np.float64(xs[0]))
    tol = 2e-6 if dt == "f32" else 1e-14
    return Case("generic", "\n".join(lines) + "\n",
                [Val(y.astype(NP[dt]), "f", rtol=tol, atol=tol),
                 Val(NP[dt](y0), "f", rtol=tol, atol=tol)])


def g_recursion(r):
    """Recursive and mutually recursive functions; too deep is E007 (run alone)."""
    form = r.randrange(3)
    if form == 0:
        n = r.randint(0, 12)
        f = [0, 1]
        for _ in range(n):
            f.append(f[-1] + f[-2])
        lines = ["fn $fib(n) { if n < 2 { n } else { $fib(n - 1) + $fib(n - 2) } }",
                 f"print($fib({n}));"]
        return Case("generic", "\n".join(lines) + "\n", [Val(f[n], "i")])
    if form == 1:
        n = r.randint(0, 40)
        lines = ["fn $even(n) { if n == 0 { true } else { $odd(n - 1) } }",
                 "fn $odd(n) { if n == 0 { false } else { $even(n - 1) } }",
                 f"print($even({n}));", f"print($odd({n}));"]
        return Case("generic", "\n".join(lines) + "\n",
                    [Val(n % 2 == 0, "b"), Val(n % 2 == 1, "b")])
    depth = r.choice([10 ** 5, 10 ** 6, 3 * 10 ** 6])
    lines = ["fn $down(n) { if n == 0 { 0.0 } else { $down(n - 1) + 1.0 } }",
             "print($down(3));",
             f"print($down({depth}));"]
    return Case("generic", "\n".join(lines) + "\n", [Val(3.0, "f")], error="E007")


RULES = [   # (body, rule, numpy f)
    ("x * x * x", "3.0 * x * x * @x", lambda x: x ** 3),
    ("std::math::exp(x) * 2.0", "std::math::exp(x) * 2.0 * @x", lambda x: np.exp(x) * 2),
    ("x * std::math::tanh(x)", "(std::math::tanh(x) + x * (1.0 - std::math::tanh(x) * std::math::tanh(x))) * @x",
     lambda x: x * np.tanh(x)),
    ("1.0 / (1.0 + x * x)", "-2.0 * x / ((1.0 + x * x) * (1.0 + x * x)) * @x", lambda x: 1 / (1 + x * x)),
]


def g_rule(r):
    """`fn F(x) {..} @fn F(x) {..}` with a right rule and a body-only twin G: `@L / @x` through
    each (per element, in a declaration and a reduction) against central differences."""
    body, rule, f = r.choice(RULES)
    n = r.randint(1, 5)
    xs = rand_arr(r, "f64", (n,)) / 2
    ws = rand_arr(r, "f64", (n,))
    lines = [f"fn $F(x) {{ {body} }}", f"@fn $F(x) {{ {rule} }}", f"fn $G(x) {{ {body} }}",
             f"let $x = {lit(xs, 'f64')};", f"let $w = {lit(ws, 'f64')};",
             "let $L1 = sum[i]($F($x[i]) * $w[i]);", "let $L2 = sum[i]($G($x[i]) * $w[i]);",
             "print(@$L1 / @$x);", "print(@$L2 / @$x);"]
    g, err = central(lambda x: float((f(x) * ws).sum()), xs)
    v = Val(g, "f", rtol=1e-7, atol=1e-8 + 10 * err)
    return Case("generic", "\n".join(lines) + "\n", [v, v])


def g_module_cycle(r):
    """Two modules importing each other: E010 (run alone)."""
    files = {"$ma.ein": "use $mb::g;\npub fn f(x) { g(x) + 1 }\n",
             "$mb.ein": "use $ma::f;\npub fn g(x) { x * 2 }\n"}
    c = Case("generic", "use $ma::f;\nprint(f(3));\n", [], error="E010")
    c.files = files
    return c


def g_module_generic(r):
    """A module's generic function called with f32, f64 and i32 rows by its full path."""
    n = r.randint(1, 5)
    lines = []
    vals = []
    for k, dt in enumerate(r.sample(list(NP), 3)):
        a = rand_arr(r, dt, (n,), True)
        lines.append(f"let $a{k}: [{dt}; {n}] = {lit(a, dt).rsplit(' as ', 1)[0]};")
        lines.append(f"print($mg::sq($a{k}));")
        vals.append(val((a * a).sum(dtype=NP[dt]) - a[0], dt))
    c = Case("generic", "\n".join(lines) + "\n", vals)
    c.files = {"$mg.ein": "pub fn sq(x) { let y[i] = x[i] * x[i]; sum[i](y[i]) - x[0] }\n"}
    return c


def g_module(r):
    """A module file with `pub let` bindings (one computed by an Einstein declaration) and a
    public function reading them; `use` and a full path."""
    if r.random() < 0.15:
        return g_module_cycle(r)
    if r.random() < 0.35:
        return g_module_generic(r)
    n = r.randint(1, 5)
    dt = r.choice(["f64", "i64"])
    ws = rand_arr(r, dt, (n,))
    k = r.randint(1, 4)
    mod = "\n".join([f"pub let w = {lit(ws, dt)};",
                     f"pub let w2[i] = w[i] * {k if dt != 'f64' else float(k)!r};",
                     "pub fn dot(x) { sum[i](x[i] * w2[i]) }",
                     "fn hidden(x) { x }"]) + "\n"
    xs = rand_arr(r, dt, (n,))
    lines = ["use $m::{w, w2};", f"let $x = {lit(xs, dt)};",
             "print(w2);", "print($m::dot($x));", "print(sum[i](w[i]));"]
    w2 = ws * NP[dt](k)
    c = Case("generic", "\n".join(lines) + "\n",
             [val(w2, dt), val((xs * w2).sum(dtype=NP[dt]), dt), val(ws.sum(dtype=NP[dt]), dt)])
    c.files = {"$m.ein": mod}
    return c


FORMS = [(g_calls, 5), (g_hoisting, 1), (g_builtin, 1), (g_qualified, 1.5), (g_recursion, 1.5),
         (g_rule, 2), (g_module, 1.5)]


def gen(r):
    fn = r.choices([f for f, _ in FORMS], weights=[w for _, w in FORMS])[0]
    return fn(r)
