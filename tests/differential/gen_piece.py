"""Kind `piecewise` (textkinds.py): definitions made of several clauses of one name (SPEC §5.4,
§5.5): literal slots and explicit ranges, the allocation the per-axis maximum and uncovered
points 0; recurrences across clauses (a 2-D table reading H[i - 1, j], H[i, j - 1],
H[i - 1, j - 1] with edge clauses; a 1-D one with several base cases); a missing base case is
E012; `where cond else e` fallbacks with bindings; comprehensions with guards, local bindings and
membership clauses (`[x | x in 1..6, x in 2..4]`, `x in arr`). The reference fills the tables
in Python from the clauses.
"""
import known_bugs
from gen_cast import wrap
from textkinds import Case, Val


def ilit(xs):
    return "[" + ", ".join(map(str, xs)) + "]"


def g_table(r):
    """H[0, j] = top[j]; H[i, 0] = left[i]; H[i, j] = f(H[i-1, j], H[i, j-1], H[i-1, j-1], c[i, j])."""
    big = r.random() < 0.15         # sizes past the tiers' thresholds; sums then wrap (i32)
    M, N = (r.randint(8, 28), r.randint(8, 30)) if big else (r.randint(2, 6), r.randint(2, 6))
    top = [r.randint(-5, 9) for _ in range(N)]
    left = [top[0]] + [r.randint(-5, 9) for _ in range(M - 1)]
    c = [[r.randint(0, 4) for _ in range(N)] for _ in range(M)]
    forms = [
        ("$H[i - 1, j] + $H[i, j - 1]", lambda u, l, d, cc: u + l, "ul"),
        ("if $H[i - 1, j] < $H[i, j - 1] { $H[i - 1, j] + $c[i, j] } else { $H[i, j - 1] + $c[i, j] }",
         lambda u, l, d, cc: (u if u < l else l) + cc, "ul"),
        ("$H[i - 1, j - 1] * 2 - $H[i - 1, j] + $c[i, j]", lambda u, l, d, cc: d * 2 - u + cc, "ud"),
        ("$H[i - 1, j] + $c[i, j] * j", None, "u"),
    ]
    body, fn, reads = r.choice(forms)
    if fn is None:
        fn = lambda u, l, d, cc, j=None: u + cc * j
    missing = r.random() < 0.15 and ("l" in reads or M >= 3)
    # the interior may stop short of the last column (those points stay 0 unless read)
    jn = N if "l" in reads or N < 3 or r.random() < 0.6 else N - 1   # never an empty interior
    lines = [f"let $top = {ilit(top)};", f"let $left = {ilit(left)};",
             f"let $c = [{', '.join(ilit(x) for x in c)}];",
             f"let $H[0, j in 0..{N}] = $top[j];"]
    needs_left = "l" in reads or "d" in reads
    if not (missing and needs_left):
        lines.append(f"let $H[i in 1..{M}, 0] = $left[i];")
    elif missing:
        lines.append(f"let $H[i in 1..{M}, j in 1..{jn}] = {body};")
        lines.append("print($H);")
        return Case("piecewise", "\n".join(lines) + "\n", [], error="E012")
    j0 = 1 if needs_left or "l" in reads else r.choice([0, 1])
    if j0 == 0:     # the interior covers column 0 too: the edge clause would overlap
        lines.pop()
    lines.append(f"let $H[i in 1..{M}, j in {j0}..{jn}] = {body};")
    lines.append("print($H);")
    H = [[0] * N for _ in range(M)]
    H[0] = list(top)
    for i in range(1, M):
        if j0 == 1:
            H[i][0] = left[i]
        for j in range(j0, jn):
            u, l, d = H[i - 1][j], H[i][j - 1] if j else 0, H[i - 1][j - 1] if j else 0
            H[i][j] = wrap("i32", fn(u, l, d, c[i][j], j=j) if body.endswith("* j")
                           else fn(u, l, d, c[i][j]))
    return Case("piecewise", "\n".join(lines) + "\n", [Val(H, "i")])


def g_slots(r):
    """Row clauses with literal slots and ranges; uncovered points are 0."""
    rows = r.sample(range(0, 5), r.randint(1, 3))
    lines, cl = [], []
    for row in rows:
        a = r.randint(0, 3)
        b = a + r.randint(1, 3)
        k = r.randint(-3, 5)
        cl.append((row, a, b, k))
        lines.append(f"let $P[{row}, j in {a}..{b}] = j * {k} + {row};")
    R = max(row for row, _, _, _ in cl) + 1
    C = max(b for _, _, b, _ in cl)
    P = [[0] * C for _ in range(R)]
    for row, a, b, k in cl:
        for j in range(a, b):
            P[row][j] = j * k + row
    lines.append("print($P);")
    vals = [Val(P, "i")]
    if r.random() < 0.5:            # read back through a later declaration over the whole shape
        lines.append("let $Q[i, j] = $P[i, j] * 2 + i;")
        lines.append("print($Q);")
        vals.append(Val([[P[i][j] * 2 + i for j in range(C)] for i in range(R)], "i"))
    return Case("piecewise", "\n".join(lines) + "\n", vals)


def g_rec1(r):
    """x[0] = a; x[1] = b; x[t in 2..N] = x[t - 1] * p + x[t - 2] * q + d[t]; E012 without x[1]."""
    N = r.randint(3, 12) if r.random() < 0.8 else r.randint(30, 200)
    a, b, p, q = r.randint(-4, 4), r.randint(-4, 4), r.randint(-2, 2), r.randint(-2, 2)
    d = [r.randint(-3, 3) for _ in range(N)]
    missing = r.random() < 0.15
    lines = [f"let $d = {ilit(d)};", f"let $x[0] = {a};"]
    if not missing:
        lines.append(f"let $x[1] = {b};")
    lines += [f"let $x[t in 2..{N}] = $x[t - 1] * {p} + $x[t - 2] * {q} + $d[t];", "print($x);"]
    if missing:
        return Case("piecewise", "\n".join(lines) + "\n", [], error="E012")
    x = [a, b]
    for t in range(2, N):
        x.append(wrap("i32", x[t - 1] * p + x[t - 2] * q + d[t]))
    return Case("piecewise", "\n".join(lines) + "\n", [Val(x, "i")])


def g_else(r):
    """`where cond else e` in a declaration, with bindings before the guard."""
    a = [r.randint(-6, 9) for _ in range(r.randint(1, 7))]
    t = r.randint(-2, 5)
    k = r.randint(-3, 3)
    lines = [f"let $a = {ilit(a)};"]
    form = r.randrange(3)
    if form == 0:
        lines.append(f"let $G[i] = $a[i] * 2 where $a[i] > {t} else {k} - $a[i];")
        want = [x * 2 if x > t else k - x for x in a]
    elif form == 1:
        lines.append(f"let $G[i] = z * 3 where z = $a[i] + i, z <= {t} else z + {k};")
        want = [(x + i) * 3 if x + i <= t else x + i + k for i, x in enumerate(a)]
    else:                           # a guard reading the index, fallback from a neighbour
        lines.append(f"let $G[i in 0..{len(a)}] = $a[i] where i % 2 == 0 else $a[i - 1] * {k};")
        want = [x if i % 2 == 0 else a[i - 1] * k for i, x in enumerate(a)]
    lines.append("print($G);")
    return Case("piecewise", "\n".join(lines) + "\n", [Val(want, "i")])


def g_comp(r):
    """Comprehensions: generators, guards, bindings, membership in a range or an array."""
    a = [r.randint(-3, 9) for _ in range(r.randint(1, 6))]
    n = r.randint(1, 8)
    lo, hi = r.randint(0, 3), r.randint(3, 8)
    m = r.randint(2, 3)
    forms = [
        (f"[x * 2 | x in 0..{n}, x % {m} != 0]", [x * 2 for x in range(n) if x % m != 0]),
        (f"[x | x in 0..{n}, x in {lo}..{hi}]", [x for x in range(n) if lo <= x < hi]),
        (f"[x | x in 0..{n}, x in $a]", [x for x in range(n) if x in a]),
        (f"[x + y | x in $a, y in 0..{m}, s = x * y, s > {lo}]",
         [x + y for x in a for y in range(m) if x * y > lo]),
        (f"[s | x in $a, s = x * x - {lo}, s % 2 == 0]",
         [x * x - lo for x in a if (x * x - lo) % 2 == 0]),
        (f"[x | x in $a, x in 0..={hi}]", [x for x in a if 0 <= x <= hi]),
    ]
    k = r.randrange(len(forms))
    txt, want = forms[k]
    lines = [f"let $a = {ilit(a)};", f"let $v = {txt};", "print(len($v));"]
    vals = [Val(len(want), "i")]
    if want:                        # an empty result prints `[]` (type-free): length only
        lines.append("print($v);")
        vals.append(Val(want, "i"))
    return Case("piecewise", "\n".join(lines) + "\n", vals)


def g_table_grad(r):
    """An f64 table with edge clauses, printed, and `@L / @X` through it (X the top edge, the
    left edge or the cost table), against central differences of the same table in Python."""
    from gen_rowcall import central, lit
    import numpy as np
    M, N = r.randint(2, 5), r.randint(2, 5)
    q = lambda n: np.array([r.randint(-8, 8) / 8 for _ in range(n)])
    top, left, c = q(N), q(M), q(M * N).reshape(M, N)
    a, b = r.choice([0.5, 0.75, -0.5]), r.choice([0.25, 0.5, 1.0])
    forms = [(f"$H[i - 1, j] * {a} + $H[i, j - 1] * {b} + $c[i, j]",
              lambda u, l, d, cc: u * a + l * b + cc),
             ("$H[i - 1, j] * $H[i, j - 1] * 0.25 + $c[i, j]", lambda u, l, d, cc: u * l * 0.25 + cc),
             (f"std::math::tanh($H[i - 1, j - 1]) + $H[i, j - 1] * {b} * $c[i, j]",
              lambda u, l, d, cc: np.tanh(d) + l * b * cc)]
    body, fn = r.choice(forms)

    def table(top_, left_, c_):
        H = np.zeros((M, N))
        H[0] = top_
        H[1:, 0] = left_[1:]
        for i in range(1, M):
            for j in range(1, N):
                H[i, j] = fn(H[i - 1, j], H[i, j - 1], H[i - 1, j - 1], c_[i, j])
        return H
    Wt = q(M * N).reshape(M, N)
    lines = [f"let $top = {lit(top, 'f64')};", f"let $left = {lit(left, 'f64')};",
             f"let $c = {lit(c, 'f64')};", f"let $Wt = {lit(Wt, 'f64')};",
             f"let $H[0, j in 0..{N}] = $top[j];", f"let $H[i in 1..{M}, 0] = $left[i];",
             f"let $H[i in 1..{M}, j in 1..{N}] = {body};", "print($H);",
             "let $L = sum[i, j]($H[i, j] * $Wt[i, j]);"]
    H = table(top, left, c)
    wrt = r.choice(["top", "left", "c"])
    if wrt == "top" and min(M, N) >= 4 and "ad_table_wrt_top" in known_bugs.active():
        wrt = r.choice(["left", "c"])
    args = {"top": top, "left": left, "c": c}

    def loss(x):
        d = dict(args)
        d[wrt] = x
        return float((table(d["top"], d["left"], d["c"]) * Wt).sum())
    grad, err = central(loss, args[wrt])
    lines.append(f"print(@$L / @${wrt});")
    return Case("piecewise", "\n".join(lines) + "\n",
                [Val(H, "f", rtol=1e-13, atol=1e-14),
                 Val(grad, "f", rtol=1e-5, atol=1e-6 + 10 * err)])


def gen(r):
    return r.choice([g_table, g_table, g_slots, g_rec1, g_else, g_comp, g_comp, g_table_grad,
                     g_table_grad])(r)
