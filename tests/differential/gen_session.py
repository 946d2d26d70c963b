"""Kind `session` (textkinds.py): notebook sessions (SPEC §11) run as `ein --cells`, judged
against a Python model of the session (never against ein's output).

A session is a list of cells. The model keeps the environment (name -> value with its dtype,
name -> function with the bindings it saw) and runs each cell as SPEC §11 says: a cell with a
compile-time error prints nothing and changes nothing; a cell that fails at run time keeps the
top-level statements completed before the failure; a trailing expression is echoed `Out[n]`.

What the cells draw (each statement re-evaluated from the environment of the moment it runs):
  - arrays rebound under the same name with another shape or dtype (f32/f64, i32/i64), then an
    earlier cell typed again verbatim: the same kernel text over other shapes, dtypes and
    values (a kernel cache keyed on the text alone would print stale values with exit 0);
  - declarations (elementwise, reductions, matmul, transposes, scalar bindings), prints,
    echoed expressions;
  - functions reading globals, later rebound (the function keeps the value it saw), and
    functions redefined after a caller captured them (the caller keeps the old callee);
  - failing cells: E003 / E002 / E004 at compile time (the cell's prints never run), E007
    (assert, integer division by zero) and E005 (an index out of range) at run time;
  - recurrences typed clause by clause in adjacent cells, and E012 when a cell is in between;
  - per-unit literal inference: `let k = 0.5;` alone in a cell is f32 from then on (E002 when a
    later cell multiplies it with an f64 array);
  - derivative requests reaching bindings of earlier cells.
Sessions without errors, clause-by-clause recurrences, redefined functions or literal scalars
are also run as one file (no `// %%`, echoes become statements) with the same prints.
"""
import numpy as np

from gen_cast import tdiv
from session_model import (ARRAYS, DERIVED, FLOAT, FNS, NP, Arr, Env, Fail, St, arrays, const, lit,
                           pick_array, rand_vals, s_bind, s_call, s_decl, s_echo, s_fn_caller,
                           s_fn_elem, s_fn_global, s_print, val)
from textkinds import Val


def s_runtime_fail(r, env):
    """A statement that fails at run time (or, drawn so, passes): assert, integer division by a
    zero element, an index computed from data out of range. Its inputs are bound in an earlier
    cell, so that nothing is known to be zero or out of range when the cell is compiled."""
    form = r.randrange(3)
    ints = [n for n in arrays(env, 1, ["i32", "i64"]) if n != "q"]   # `q[i] = c / q[i]` recurs
    if form == 0 or not ints:
        got = pick_array(r, env)
        if not got:
            return None
        x, X, idx = got
        total = X.v.sum(dtype=np.float64)
        thr = total + r.choice([-1, 1]) * (1 if X.dt not in FLOAT else 0.5)
        text = f'assert(sum[{idx}](${x}[{idx}]) > {const(X.dt, thr)}, "session check");'

        def run(env_, out):
            if not env_.vals[x].v.sum(dtype=NP[X.dt]) > thr:
                raise Fail("E007")
        return St(text, [x], run, kind="fail")
    d = r.choice(ints)
    D = env.vals[d]
    n = len(D.v)
    if form == 1:
        c = r.randint(-9, 9)
        text = f"let $q[i] = {c} / ${d}[i];"

        def run(env_, out):
            dv = env_.vals[d].v
            if (dv == 0).any():
                raise Fail("E007")
            env_.vals["q"] = Arr([tdiv(c, int(w)) for w in dv], env_.vals[d].dt)
        return St(text, [d], run, kind="fail")
    off = r.choice([0, n, n + 3, -20])
    sign = f"+ {off}" if off >= 0 else f"- {-off}"
    text = f"let $m = ${d}[0] {sign};\nprint(${d}[$m]);"

    def run(env_, out):
        dv = env_.vals[d].v
        m = int(dv[0]) + off
        env_.vals["m"] = Arr(m, env_.vals[d].dt)
        if not 0 <= m < len(dv):
            raise Fail("E005")
        out.append(Val(int(dv[m]), "i"))
    return St(text, [d], run, kind="fail")


def s_compile_fail(r, env):
    """A statement rejected at compile time: the whole cell never runs."""
    f32 = arrays(env, None, ["f32"])
    f64 = arrays(env, None, ["f64"])
    form = r.randrange(3)
    if form == 1 and f32 and f64:
        a, b = r.choice(f32), r.choice(f64)
        A, B = env.vals[a], env.vals[b]
        ia = ", ".join("ijk"[:A.v.ndim])
        ib = ", ".join("ijk"[:B.v.ndim])
        return St(f"let $w = sum[{ia}](${a}[{ia}]) + sum[{ib}](${b}[{ib}]);", [a, b], None, cerr="E002")
    if form == 2:
        one = [n for n in arrays(env, 1) if len(env.vals[n].v) > 1]
        for a in one:
            for b in one:
                A, B = env.vals[a], env.vals[b]
                if A.dt == B.dt and len(A.v) != len(B.v):
                    return St(f"let $w[i] = ${a}[i] + ${b}[i];", [a, b], None, cerr="E004")
    return St("let $w = $nowhere_defined + 1;", [], None, cerr="E003")


def recurrence_cells(r, env, adjacent):
    """x[0] (and x[1]) in one cell, the step in the next (joined) or one cell later (E012)."""
    dt = r.choice(["i32", "f32"])
    N = r.randint(3, 9)
    base = [r.randint(-3, 4) for _ in range(r.choice([1, 2]))]
    p = r.randint(-2, 2) / (2 if dt == "f32" else 1)
    a0 = [f"let $x[{t}] = {const(dt, b)};" for t, b in enumerate(base)]
    lo = len(base)
    if len(base) == 2:
        step = f"$x[t - 1] * {const(dt, p)} + $x[t - 2]"
    else:
        step = f"$x[t - 1] * {const(dt, p)} + {const(dt, 1)}"
    # the step also reads t itself, cast to the recurrence's type
    step += f" + (t as {dt})" if r.random() < 0.5 else ""
    cell_b = [f"let $x[t in {lo}..{N}] = {step};", "print($x);"]

    def series():
        xs = [NP[dt](b) for b in base]
        for t in range(lo, N):
            v = xs[t - 1] * NP[dt](p) + (xs[t - 2] if len(base) == 2 else NP[dt](1))
            if "(t as" in step:
                v = v + NP[dt](t)
            xs.append(NP[dt](v))
        return np.array(xs, dtype=NP[dt])

    def run_a(env_, out):
        env_.vals["x"] = Arr(np.array(base, dtype=NP[dt]), dt)
    sa = St("\n".join(a0), [], run_a, kind="rec_base")
    sa.indexed = "x"

    def run_b(env_, out):
        env_.vals["x"] = Arr(series(), dt)
        out.append(val(env_.vals["x"]))
    sb = St("\n".join(cell_b), ["x"], run_b, kind="rec_step")
    sb.joins = "x"
    sb.indexed = "x"        # the joined definition: a next cell may extend it again
    N2 = N + r.randint(1, 3)
    q = r.randint(-2, 3)

    def run_c(env_, out):
        xs = list(env_.vals["x"].v)
        for t in range(len(xs), N2):
            xs.append(NP[dt](xs[t - 1] + NP[dt](q)))
        env_.vals["x"] = Arr(np.array(xs, dtype=NP[dt]), dt)
        out.append(val(env_.vals["x"]))
    sc = St(f"let $x[t in {N}..{N2}] = $x[t - 1] + {const(dt, q)};\nprint($x);", ["x"], run_c,
            kind="rec_step")
    sc.joins = "x"
    return sa, sb, sc


def inference_cells(r, env):
    """`let k = 0.5;` alone in a cell: f32 from then on (SPEC §3, per compilation unit)."""
    f64 = [n for n in arrays(env, 1, ["f64"]) if n != "w"]    # `let w[i] = w[i]..` is a recurrence
    k = r.randint(1, 7) / 4
    sa = St(f"let $k = {k!r};", [], lambda e, o: e.vals.__setitem__("k", Arr(k, "f32")), kind="lit_scalar")
    if f64 and r.random() < 0.5:
        x = r.choice(f64)
        return sa, St(f"let $w[i] = ${x}[i] * $k;", [x, "k"], None, cerr="E002")
    f32 = [n for n in arrays(env, 1, ["f32"]) if n != "w"]
    if f32:
        x = r.choice(f32)

        def run(env_, out):
            X = env_.vals[x]        # f32 here; a repeat may run it over f64 x and k
            env_.vals["w"] = Arr(X.v * env_.vals["k"].v.astype(NP[X.dt]), X.dt)
            out.append(val(env_.vals["w"]))
        return sa, St(f"let $w[i] = ${x}[i] * $k;\nprint($w);", [x, "k"], run, kind="decl")
    return sa, St("print($k * 2.0);", ["k"], lambda e, o: o.append(val(Arr(NP["f32"](k) * 2, "f32"))),
                  kind="print")


def deriv_cells(r, env):
    """w, v bound in one cell, y in the next, `@y / @w` in a later one (f64)."""
    n = r.randint(1, 5)
    w, v = rand_vals(r, "f64", (n,)), rand_vals(r, "f64", (n,))
    c = r.choice([0.5, 1.5, -2.0])
    c0 = [s_bind(r, "a", "f64", (n,)), s_bind(r, "b", "f64", (n,))]
    c0[0].run = lambda e, o: e.vals.__setitem__("a", Arr(w, "f64"))
    c0[0].text = lit(w, "f64").replace("NAME", "$a")
    c0[1].run = lambda e, o: e.vals.__setitem__("b", Arr(v, "f64"))
    c0[1].text = lit(v, "f64").replace("NAME", "$b")
    # y is re-evaluated from the environment (a later cell may type it again over rebound a, b)
    y = St(f"let $y = sum[i]($a[i] * $a[i] * {c!r} + $a[i] * $b[i]);", ["a", "b"],
           lambda e, o: e.vals.__setitem__("y", Arr((e.vals["a"].v * e.vals["a"].v * NP[e.vals["a"].dt](c)
                                                     + e.vals["a"].v * e.vals["b"].v).sum(),
                                                    e.vals["a"].dt)), kind="decl")
    g = St("print(@$y / @$a);", ["y", "a"],
           lambda e, o: o.append(Val(2 * c * w + v, "f", rtol=1e-12, atol=1e-12)), kind="grad")
    # a is rebound afterwards: y read the old binding, so @y / @a is zeros of the new a's shape
    m = r.randint(1, 5)
    a2 = rand_vals(r, "f64", (m,))
    rb = St(lit(a2, "f64").replace("NAME", "$a") + "\nprint(@$y / @$a);", ["y"],
            lambda e, o: (e.vals.__setitem__("a", Arr(a2, "f64")), o.append(Val(np.zeros(m), "f"))),
            kind="grad")
    return c0, y, g, rb


class Session:
    """The cells' texts (names `$n`), per cell the expected Vals (echoes flagged) and error code,
    and whether the cells may also run joined as one file."""

    def __init__(self, cells, outs, errs, joinable):
        self.cells, self.outs, self.errs, self.joinable = cells, outs, errs, joinable


def run_cell(env, cell):
    """SPEC §11 on the model: (expected Vals, error code or None, environment after)."""
    for st in cell:
        if st.cerr:
            return [], st.cerr, env
        if getattr(st, "joins", None) and st.joins not in env.prev_indexed:
            return [], "E012", env
    new = env.copy()
    out = []
    err = None
    for st in cell:
        try:
            st.run(new, out)
        except Fail as f:
            err = f.code
            break
    new.prev_indexed = set() if err else {st.indexed for st in cell if getattr(st, "indexed", None)}
    return out, err, new


def inputs(cell):
    """Names a cell reads before binding them itself."""
    bound, res = set(), []
    for st in cell:
        for n in st.reads:
            if n not in bound and n not in res:
                res.append(n)
        if st.kind == "decl":
            bound.add(st.text.split("[")[0].split()[-1].lstrip("$"))
    return res


def rebind_for(r, seen):
    """A cell rebinding the inputs `seen` (name -> the value a cell first ran over) with the
    same ranks, another dtype of the same class (all or none switched) and extents mapped value
    by value (equal extents stay equal): the cell typed again is then valid."""
    flip = r.random() < 0.5
    other = {"f32": "f64", "f64": "f32", "i32": "i64", "i64": "i32"}
    ext = {}
    big = r.random() < 0.2
    cell = []
    for n, a in seen.items():
        if n == "n":        # a range bound: i32, 1..6
            v = r.randint(1, 6)
            cell.append(St(f"let $n: i32 = {v};", [], lambda e, o, v=v: e.vals.__setitem__("n", Arr(v, "i32")),
                           kind="bind"))
            continue
        shape = tuple(ext.setdefault(e, r.randint(12, 30) if big else r.randint(1, 6)) for e in a.v.shape)
        cell.append(s_bind(r, n, other[a.dt] if flip else a.dt, shape))
    return cell


LAST = [None]       # the target of the last generated statement when it is a declaration


def plain_cell(r, env):
    """1–3 statements among bindings, declarations, prints, function items and calls; an echo
    at the end sometimes."""
    scratch = env.copy()
    cell = []
    fn_cell = r.random() < 0.25
    if fn_cell:
        dots = sorted(n for n, f in scratch.fns.items() if f[0] == "dot")
        if r.random() < 0.5:
            st = s_fn_elem(r)
        elif dots and r.random() < 0.5:
            callee = r.choice(dots)
            name = r.choice([f for f in FNS if f != callee])
            st = s_fn_caller(r, scratch, name, callee)
        else:
            st = s_fn_global(r, scratch, r.choice(FNS))
        if st:
            cell.append(st)
            st.run(scratch, [])
    last_decl = LAST[0]
    for _ in range(r.randint(1, 3)):
        if cell:
            last_decl = cell[-1].text.split("[")[0].split()[-1].lstrip("$") \
                if cell[-1].kind == "decl" else None
        roll = r.random()
        if roll < 0.05 and "n" in scratch.vals:
            v = r.randint(1, 6)
            st = St(f"let $n: i32 = {v};", [], lambda e, o, v=v: e.vals.__setitem__("n", Arr(v, "i32")),
                    kind="bind")
        elif roll < 0.3 and not fn_cell:
            names = arrays(scratch)
            if names and r.random() < 0.6:
                n = r.choice(names)
                a = scratch.vals[n]
                dt = r.choice(list(NP)) if r.random() < 0.5 else a.dt
                shape = tuple(r.randint(1, 5) for _ in a.v.shape) if r.random() < 0.7 else a.v.shape
                st = s_bind(r, n, dt, shape)
            else:
                st = s_bind(r, r.choice(ARRAYS), r.choice(list(NP)),
                            tuple(r.randint(1, 5) for _ in range(r.randint(0, 2))))
        elif roll < 0.65 and not fn_cell:
            # consecutive indexed lets of one name are one definition (SPEC §5.4), in a cell
            # and in the joined file: never the target of the statement just before
            st = s_decl(r, scratch, r.choice([n for n in DERIVED if n != last_decl]))
        elif roll < 0.8 and any(f[0] == "dot" for f in scratch.fns.values()):
            sts = s_call(r, scratch, r.choice(sorted(n for n, f in scratch.fns.items() if f[0] == "dot")))
            for s in sts[:-1]:
                cell.append(s)
                s.run(scratch, [])
            st = sts[-1]
        else:
            names = [n for n in scratch.vals if n not in ("m",)]
            st = s_print(r.choice(sorted(names))) if names else None
        if st:
            cell.append(st)
            st.run(scratch, [])
    if r.random() < 0.3:
        st = s_echo(r, scratch)
        if st:
            cell.append(st)
    return cell


def gen(r):
    from textkinds import Case
    env = Env()
    LAST[0] = None
    cells, outs, errs = [], [], []
    joinable = True

    snap = {}       # id(cell) -> the inputs it ran over first (what a repeat rebinds from)

    def add(cell):
        nonlocal env, joinable
        before = env
        out, err, env = run_cell(env, cell)
        if not err and id(cell) not in snap:
            snap[id(cell)] = {n: before.vals[n] for n in inputs(cell) if n in before.vals}
        cells.append(cell)
        LAST[0] = (cell[-1].text.split("[")[0].split()[-1].lstrip("$")
                   if cell and cell[-1].kind == "decl" else None)
        outs.append(out)
        errs.append(err)
        if err or any(st.kind in ("fn", "call", "rec_base", "rec_step", "lit_scalar", "fail")
                      for st in cell):
            joinable = False

    first = []
    for n in r.sample(ARRAYS, r.randint(2, 3)):
        first.append(s_bind(r, n, r.choice(list(NP)), tuple(r.randint(1, 5) for _ in range(r.randint(1, 2)))))
    if r.random() < 0.4:
        first.append(s_bind(r, "s", r.choice(list(NP)), ()))
    if r.random() < 0.4:
        v = r.randint(1, 6)
        first.append(St(f"let $n: i32 = {v};", [], lambda e, o, v=v: e.vals.__setitem__("n", Arr(v, "i32")),
                        kind="bind"))
    add(first)
    for _ in range(r.randint(2, 6)):
        act = r.choices(["plain", "repeat", "fail_rt", "fail_ct", "rec", "infer", "deriv", "redef"],
                        weights=[5, 4, 1.5, 1.5, 1, 0.7, 0.7, 1.2])[0]
        if act == "plain":
            add(plain_cell(r, env))
        elif act == "repeat":
            olds = [c for c, e in zip(cells, errs) if c and not e and id(c) in snap
                    and all(st.kind in ("decl", "print", "echo") for st in c)
                    and any(st.kind != "print" for st in c)
                    and all(n in snap[id(c)] or n in ("p", "r") for n in inputs(c))]
            if not olds:
                add(plain_cell(r, env))
                continue
            old = r.choice(olds)
            if inputs(old):
                add(rebind_for(r, snap[id(old)]))
            add(old)
        elif act == "redef":
            # p / r defined, called per point by a declaration, redefined, the declaration's
            # cell typed again: it must call the new body (a kernel keyed on the cell's text
            # alone would keep the old one)
            fdef = s_fn_elem(r)
            add([fdef])
            cls = "p" if "fn $p" in fdef.text else "r"
            xs = arrays(env, None, FLOAT if cls == "p" else ("i32", "i64"))
            pre = []
            if not xs:
                pre = [s_bind(r, r.choice(ARRAYS), "f64" if cls == "p" else "i32", (r.randint(1, 5),))]
            scratch = env.copy()
            for st in pre:
                st.run(scratch, [])
            xs = arrays(scratch, None, FLOAT if cls == "p" else ("i32", "i64"))
            keep = {n: scratch.vals[n] for n in xs}
            scratch.vals = keep             # only arrays of the function's class
            target = r.choice(DERIVED)
            d = s_decl(r, scratch, target, force="call")
            if d is None:
                continue
            use = pre + [d, s_print(target)]
            add(use)
            while True:                     # the same class, another body
                f2 = s_fn_elem(r)
                if ("fn $p" in f2.text) == (cls == "p"):
                    break
            add([f2])
            add(use)
        elif act == "fail_rt":
            pre = [c for c in plain_cell(r, env) if not c.echo][:1]
            scratch = env.copy()
            for st in pre:
                st.run(scratch, [])
            # its inputs come from earlier cells (nothing known to be zero at compile time)
            for n in list(scratch.vals):
                if scratch.vals[n] is not env.vals.get(n):
                    del scratch.vals[n]
            st = s_runtime_fail(r, scratch)
            if st is None:
                continue
            post = [s_print(r.choice(sorted(scratch.vals)))]
            add(pre + [st] + post)
        elif act == "fail_ct":
            cell = [c for c in plain_cell(r, env) if not c.echo]
            pos = r.randint(0, len(cell))
            scratch = env.copy()
            for st in cell[:pos]:          # what the failing statement may read
                st.run(scratch, [])
            cell.insert(pos, s_compile_fail(r, scratch))
            add(cell)
        elif act == "rec":
            sa, sb, sc = recurrence_cells(r, env, True)
            add([sa])
            between = r.random()
            if between < 0.2:               # a cell between: E012
                names = sorted(env.vals)
                add([s_print(r.choice(names))])
            elif between < 0.3:             # a cell that failed to compile changed nothing,
                add([s_print("x"), s_compile_fail(r, env)])     # the clauses still join
            elif between < 0.4:             # one that failed at run time is a cell: E012
                st = s_runtime_fail(r, env)
                if st is not None:
                    add([st])
            add([sb])
            if r.random() < 0.3:            # extended once more (joined again when adjacent)
                if r.random() < 0.25:
                    add([s_print(r.choice(sorted(env.vals)))])
                add([sc])
        elif act == "infer":
            sa, sb = inference_cells(r, env)
            add([sa])
            add([sb])
        else:
            c0, y, g, rb = deriv_cells(r, env)
            add(c0)
            add([y])
            add([g])
            if r.random() < 0.35:
                add([rb])
    return Case("session", None, None, session=Session(
        ["\n".join(st.text for st in c) for c in cells], outs, errs, joinable))
