"""The model of a notebook session for gen_session.py: values with their dtypes, the
environment (names -> values, names -> functions with what they saw), and the statements
a cell is made of, each with its Einlang text and how it runs in the model
(`run(env, out)`: binds, appends expected Vals, raises Fail(code) at run time).
"""
import numpy as np

from textkinds import Val


NP = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}
FLOAT = ("f32", "f64")
ARRAYS = ["a", "b", "c", "d", "e"]
DERIVED = ["y", "z", "u", "v"]
FNS = ["f", "g", "h"]


class Fail(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Arr:
    def __init__(self, v, dt):
        self.v, self.dt = np.asarray(v, dtype=NP[dt]), dt


def const(dt, x):
    """A literal of class `dt` in Einlang text (typed by context, SPEC §3)."""
    return repr(float(x)) if dt in FLOAT else str(int(x))


def lit(v, dt):
    def rec(x):
        if x.ndim == 0:
            return const(dt, x)
        return "[" + ", ".join(rec(y) for y in x) + "]"
    if v.ndim == 0:
        return f"let NAME: {dt} = {rec(v)};"
    # annotated: the literals are of dt (`[0.1] as [f64]` is an f32 literal converted, SPEC §3)
    return f"let NAME: [{dt}; {', '.join(map(str, v.shape))}] = {rec(v)};"


def val(a):
    """The expected printed line of a value."""
    if a.dt in FLOAT:
        return Val(a.v, "f", rtol=1e-5 if a.dt == "f32" else 1e-13, atol=1e-5 if a.dt == "f32" else 1e-13)
    return Val(a.v, "i")


class St:
    """One statement: its text (names as `$n`), what it reads, and how it runs in the model
    (`run(env, out)` binds into env, appends expected Vals to out, raises Fail(code) at run time).
    `cerr` is the code of a compile-time error the statement carries, else None."""

    def __init__(self, text, reads, run, cerr=None, echo=False, kind="stmt"):
        self.text, self.reads, self.run, self.cerr = text, reads, run, cerr
        self.echo, self.kind = echo, kind


class Env:
    def __init__(self):
        self.vals, self.fns, self.prev_indexed = {}, {}, set()

    def copy(self):
        e = Env()
        e.vals, e.fns, e.prev_indexed = dict(self.vals), dict(self.fns), set(self.prev_indexed)
        return e


def rand_vals(r, dt, shape, nonzero=False):
    n = int(np.prod(shape)) if shape else 1
    if dt in FLOAT:     # tenths: an f64 value computed at f32 precision (a stale kernel) shows
        xs = [r.randint(-20, 20) / 10 for _ in range(n)]
    else:
        xs = [r.choice([x for x in range(-5, 10) if x or not nonzero]) for _ in range(n)]
    return np.array(xs, dtype=NP[dt]).reshape(shape)


def s_bind(r, name, dt, shape, nonzero=False):
    v = rand_vals(r, dt, shape, nonzero)
    text = lit(v, dt).replace("NAME", f"${name}")

    def run(env, out):
        env.vals[name] = Arr(v, dt)
    return St(text, [], run, kind="bind")


def s_print(name):
    def run(env, out):
        out.append(val(env.vals[name]))
    return St(f"print(${name});", [name], run, kind="print")


def arrays(env, rank=None, dts=None):
    return sorted(n for n, a in env.vals.items() if a.v.ndim > 0 and (rank is None or a.v.ndim == rank)
                  and (dts is None or a.dt in dts))


def s_decl(r, env, target, force=None):
    """An Einstein declaration over existing arrays; None when nothing fits."""
    # a declaration reading its own name is a recurrence (SPEC §5.5), not a read of the old
    # binding: the target is never among the operands
    env = env.copy()
    env.vals.pop(target, None)
    cands = arrays(env)
    if not cands:
        return None
    x = r.choice(cands)
    X = env.vals[x]
    dt, rank = X.dt, X.v.ndim
    idx = "i" if rank == 1 else "i, j"
    same = [n for n in arrays(env, rank, [dt]) if n != x and env.vals[n].v.shape == X.v.shape]
    # (n, a range bound, stays i32 when a repeat switches the other inputs to i64)
    scal = [n for n, a in env.vals.items() if a.v.ndim == 0 and a.dt == dt and n != "n"]
    c1 = r.randint(-3, 3) / (2 if dt in FLOAT else 1) or 1
    c2 = r.randint(-4, 4) / (4 if dt in FLOAT else 1)
    forms = ["affine"]
    if same:
        forms.append("add")
    if scal:
        forms.append("scale")
    cls = "p" if dt in FLOAT else "r"      # the elementwise function of this dtype class
    if cls in env.fns:
        forms += ["call"] * 3
    if "n" in env.vals and r.random() < 0.3:
        forms = ["iota"]
    if rank == 2:
        forms += ["sum", "max", "transpose"]
        mm = [n for n in arrays(env, 2, [dt]) if env.vals[n].v.shape[0] == X.v.shape[1]]
        if mm:
            forms.append("matmul")
    f = force if force in forms else r.choice(forms)
    # constants are cast at run time to the dtype the inputs have then (a repeated cell may
    # run over rebound inputs of another dtype)
    if f == "affine":
        text = f"let ${target}[{idx}] = ${x}[{idx}] * {const(dt, c1)} + {const(dt, c2)};"
        reads = [x]
        fn = lambda e, K: e.vals[x].v * K(c1) + K(c2)
    elif f == "add":
        z = r.choice(same)
        text = f"let ${target}[{idx}] = ${x}[{idx}] + ${z}[{idx}] * {const(dt, c1)};"
        reads = [x, z]
        fn = lambda e, K: e.vals[x].v + e.vals[z].v * K(c1)
    elif f == "scale":
        s = r.choice(scal)
        text = f"let ${target}[{idx}] = ${x}[{idx}] * ${s} - {const(dt, c2)};"
        reads = [x, s]
        fn = lambda e, K: e.vals[x].v * e.vals[s].v - K(c2)
    elif f in ("sum", "max"):
        text = f"let ${target}[i] = {f}[j](${x}[i, j] * {const(dt, c1)});"
        reads = [x]
        fn = (lambda e, K: (e.vals[x].v * K(c1)).sum(axis=1, dtype=K)) if f == "sum" else \
            (lambda e, K: (e.vals[x].v * K(c1)).max(axis=1))
    elif f == "call":   # the function in force when the cell runs (a later cell may redefine it)
        text = f"let ${target}[{idx}] = ${cls}(${x}[{idx}]) - {const(dt, c2)};"
        reads = [x, cls]
        fn = lambda e, K: e.fns[cls][2](e.vals[x].v, K) - K(c2)
    elif f == "iota":   # a range bounded by a scalar binding (rebound by later cells)
        text = f"let ${target}[i in 0..$n] = i * {int(c1 * 2) or 1} + {int(c2)};"
        reads = ["n"]
        fn = lambda e, K: np.arange(int(e.vals["n"].v), dtype=np.int32) * np.int32(int(c1 * 2) or 1) + np.int32(int(c2))
    elif f == "transpose":
        text = f"let ${target}[j, i] = ${x}[i, j] + {const(dt, c2)};"
        reads = [x]
        fn = lambda e, K: (e.vals[x].v + K(c2)).T
    else:
        z = r.choice(mm)
        text = f"let ${target}[i, j] = sum[k](${x}[i, k] * ${z}[k, j]);"
        reads = [x, z]
        fn = lambda e, K: np.einsum("ik,kj->ij", e.vals[x].v, e.vals[z].v).astype(K)

    def run(env, out):
        a = env.vals[reads[0]]
        dt_ = "i32" if f == "iota" else a.dt
        env.vals[target] = Arr(fn(env, NP[dt_]), dt_)
    return St(text, reads, run, kind="decl")


def pick_array(r, env):
    """(name, value, its index list `i, j`) of a random array of env, or None."""
    cands = arrays(env)
    if not cands:
        return None
    x = r.choice(cands)
    return x, env.vals[x], ", ".join("ijk"[:env.vals[x].v.ndim])


def s_echo(r, env):
    """A trailing expression (no `;`): its value is echoed `Out[n]: v`."""
    got = pick_array(r, env)
    if not got:
        return None
    x, X, idx = got
    form = r.randrange(3)
    if form == 0:
        text, fn = f"${x}", lambda e: e.vals[x]
    elif form == 1:
        text = f"sum[{idx}](${x}[{idx}])"
        fn = lambda e: Arr(e.vals[x].v.sum(dtype=NP[e.vals[x].dt]), e.vals[x].dt)
    else:
        text = f"max[{idx}](${x}[{idx}])"
        fn = lambda e: Arr(e.vals[x].v.max(), e.vals[x].dt)

    def run(env, out):
        out.append(val(fn(env)))
        out[-1].echo = True
    return St(text, [x], run, echo=True, kind="echo")


def s_fn_global(r, env, name):
    """`fn f(x) { sum[i](x[i] * G[i]) + c }` reading a rank-1 global G: f keeps the G it saw."""
    cands = [n for n in arrays(env, 1) if n != "arg"]
    if not cands:
        return None
    g = r.choice(cands)
    G = env.vals[g]
    c = r.randint(-3, 3)
    text = f"fn ${name}(x) {{ sum[i](x[i] * ${g}[i]) + {const(G.dt, c)} }}"

    def run(env, out):
        seen = env.vals[g]
        env.fns[name] = ("dot", seen, lambda v: (v * seen.v).sum(dtype=NP[seen.dt]) + NP[seen.dt](c))
    return St(text, [g], run, kind="fn")


def s_fn_elem(r):
    """`fn p(v) { v * c + d }` (float class) or `fn r(v) { v * c - d }` (int class): called per
    point by declarations; a later cell may redefine it (cells typed again then use the new
    one, functions and cells that ran keep what they saw)."""
    cls = r.choice(["p", "r"])
    c, d = r.randint(-3, 3) or 2, r.randint(-4, 4)
    if cls == "p":
        text = f"fn $p(v) {{ v * {c / 2!r} + {d / 4!r} }}"
        g = lambda v, K: v * K(c / 2) + K(d / 4)
    else:
        text = f"fn $r(v) {{ v * {c} - {d} }}"
        g = lambda v, K: v * K(c) - K(d)

    def run(env, out):
        env.fns[cls] = ("elem", None, g)
    return St(text, [], run, kind="fn")


def s_fn_caller(r, env, name, callee):
    """`fn h(x) { f(x) * 2 }`: h keeps the f it saw, even when f is redefined later."""
    text = f"fn ${name}(x) {{ ${callee}(x) * 2 }}"

    def run(env, out):
        kind, seen, f = env.fns[callee]
        env.fns[name] = (kind, seen, lambda v: f(v) * NP[seen.dt](2))
    return St(text.replace("* 2", "* 2.0") if env.fns[callee][1].dt in FLOAT else text,
              [callee], run, kind="fn")


def s_call(r, env, fname):
    """print(f(X)) with an X that fits the global the function saw (bound in the same cell)."""
    kind, seen, f = env.fns[fname]
    v = rand_vals(r, seen.dt, seen.v.shape)
    arg = lit(v, seen.dt).replace("NAME", "$arg")

    def run(env_, out):
        out.append(val(Arr(f(v), seen.dt)))
    return [St(arg, [], lambda e, o: e.vals.__setitem__("arg", Arr(v, seen.dt)), kind="bind"),
            St(f"print(${fname}($arg));", [fname], run, kind="call")]
