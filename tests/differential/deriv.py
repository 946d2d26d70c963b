"""Oracle 3: derivatives against central finite differences of the same program in f64.

For a program generated in f64 (gen.py, deriv=True), a float binding is picked as the
parameter x and a later one as the target y, and `@y / @x` is requested at a random scope:

  top     `print(@y / @x);` after the program
  block   `let g = { <the statements from x to y, renamed>; @y' / @x }; print(g);`
  fn      `fn d(x) { <the same statements>; @y' / @x } print(d(x));`
  einstein `let G[i in 0..m] = { <statements>; @z / @x } where z = y' * (i + 1) as f64`
          (scalar y only; one request per point, SPEC §7)
  recurrence `let R[0] = 0.0; let R[t in 1..m] = R[t - 1] + { <statements>; @z / @x }` with
          z = y' * t (scalar x and y; a request per step of a recurrence, SPEC §7 / thesis §2.3:
          R[t] = J t (t + 1) / 2)

The expected value is the Jacobian shape(y) ++ shape(x) by central differences of the
reference evaluator, with x's binding replaced by x ± h (statements that do not depend on x
keep their values, so a derived x means the partial derivative along the data flow). Two step
sizes, h and h/4, give an error estimate; a point where any branch, comparison, cast, max or
abs decision differs between x - h and x + h is not differentiable there and is skipped
(counted). Tolerance: 1e-6 + 1e-4·|fd| + 10 × the two estimates' difference.
"""
import math
import random

import refnum
from compare import Num, parse_line
from gen import Gen, Stats
from ir import (Access, Bin, Block, Call, Cast, Clause, Diff, Lit, Program, Range, Ref, SDecl, SFn,
                SInput, SLet, SPrint, SlotIdx, SlotLit, WBind, clone, walk)
from ref import Evaluator, GenBug, Tensor
from refnum import IllConditioned, RefError, Unspecified
from render import render
from runner import Expect, MODES, run_batch

SCOPES = {"top": 5, "block": 2, "fn": 2, "einstein": 1, "recurrence": 1}
SCOPE_BUGS = {"block": "ad_scope_block", "fn": "ad_scope_fn", "einstein": "ad_scope_einstein"}
MAX_X, MAX_Y = 6, 8
MODES_DERIV = ("never", "always")


def size(v):
    return math.prod(v.shape) if isinstance(v, Tensor) else 1


def names_used(stmt):
    out = set()
    for n in walk(stmt):
        if isinstance(n, (Ref, Access)):
            out.add(n.name)
        elif hasattr(n, "fn") and isinstance(getattr(n, "fn"), str):
            out.add(n.fn)
    return out


def defined(s):
    return s.name if isinstance(s, (SInput, SLet, SDecl)) else None


class Request:
    """What was asked: `@y / @x` at `scope`; `sel` reads part of the Jacobian at top level:
    ("point", idx) for `@y[idx] / @x`, ("row", k) for `let J = @y / @x; print(J[k]);`."""

    def __init__(self, prog, x, y, scope, yshape, xshape, cut, sel=None):
        self.prog, self.x, self.y, self.scope = prog, x, y, scope
        self.yshape, self.xshape, self.sel = tuple(yshape), tuple(xshape), sel
        self.cut = cut                                   # statements up to y (for FD)
        self.rec_elem = 0        # recurrence scope: the flat element of @y/@x each step reads

    @property
    def shape(self):
        """The shape ein prints."""
        if self.sel is None:
            s = self.yshape + self.xshape
        elif self.sel[0] == "point":
            s = self.xshape
        else:
            s = self.yshape[1:] + self.xshape
        if self.scope == "recurrence":
            return (REC_POINTS,)
        return ((EIN_POINTS,) + s) if self.scope == "einstein" else s

    def printed(self, jac, err):
        """The printed values (row-major) and their finite-difference error estimates."""
        nx = math.prod(self.xshape)
        if self.sel is None:
            lo, hi = 0, len(jac)
        elif self.sel[0] == "point":
            off = 0
            for i, n in zip(self.sel[1], self.yshape):
                off = off * n + i
            lo, hi = off * nx, (off + 1) * nx
        else:
            ry = math.prod(self.yshape[1:]) * nx
            lo, hi = self.sel[1] * ry, (self.sel[1] + 1) * ry
        vals, errs = jac[lo:hi], err[lo:hi]
        if self.scope == "recurrence":
            k = self.rec_elem
            tri = [t * (t + 1) // 2 for t in range(REC_POINTS)]
            return [vals[k] * c for c in tri], [errs[k] * c for c in tri]
        if self.scope != "einstein":
            return vals, errs
        return ([v * (p + 1) for p in range(EIN_POINTS) for v in vals],
                [e * (p + 1) for p in range(EIN_POINTS) for e in errs])


def derivative_program(seed, bugs, stats=None):
    """(program with the request, Request) or None if this seed has no f64 pair."""
    g = Gen(seed * 7919 + 17, deriv=True, bugs=bugs, stats=stats or Stats())
    base = g.program()
    r = random.Random(seed)
    stmts = [s for s in base.stmts if not isinstance(s, SPrint)]
    ev = Evaluator(Program(stmts))
    try:
        ev.run()
    except (RefError, IllConditioned, Unspecified, GenBug):
        return None
    binds = [(k, s) for k, s in enumerate(stmts) if defined(s) is not None]
    f64 = [(k, s) for k, s in binds
           if isinstance(ev.g.get(s.name), (Tensor, tuple)) and
           (ev.g[s.name].dt if isinstance(ev.g[s.name], Tensor) else ev.g[s.name][0]) == "f64"]
    xs = [(k, s) for k, s in f64 if size(ev.g[s.name]) <= MAX_X]
    r.shuffle(xs)
    for kx, sx in xs:
        ys = [(k, s) for k, s in f64 if k > kx and size(ev.g[s.name]) <= MAX_Y]
        deps = [(k, s) for k, s in ys if depends(stmts, kx, k)]
        pool = deps if deps and r.random() < 0.9 else ys
        if not pool:
            continue
        ky, sy = r.choice(pool)
        scope = pick_scope(r, bugs, ev.g[sy.name], ev.g[sx.name], stmts[kx + 1:ky + 1])
        xv0, elem = ev.g[sx.name], ()
        if scope == "recurrence" and isinstance(xv0, Tensor):
            if 0 in xv0.shape:
                continue
            elem = tuple(r.randrange(n) for n in xv0.shape)
        prog = build(stmts, kx, ky, scope, r, elem)
        if prog is None:
            continue
        yv, xv = ev.g[sy.name], ev.g[sx.name]
        yshape = yv.shape if isinstance(yv, Tensor) else ()
        xshape = xv.shape if isinstance(xv, Tensor) else ()
        sel = None
        if scope == "top" and yshape and all(yshape) and r.random() < 0.4:
            if r.random() < 0.5:
                sel = ("point", tuple(r.randrange(n) for n in yshape))
                prog.stmts[-1] = SPrint([Diff(sy.name, sx.name,
                                              [Lit(i, "i32") for i in sel[1]])])
            elif not (bugs and "ad_independent_row" in bugs and not depends(stmts, kx, ky)):
                sel = ("row", r.randrange(yshape[0]))
                J = "J_" + sy.name
                prog.stmts[-1:] = [SLet(J, Diff(sy.name, sx.name)),
                                   SPrint([Access(J, [Lit(sel[1], "i32")])])]
        if sel is not None:
            scope_tag = f"ad_top_{sel[0]}"
        else:
            scope_tag = f"ad_scope_{scope}"
        prog.seed, prog.kind = seed, "deriv"
        prog.tags = set(base.tags) | {scope_tag}
        req = Request(prog, sx.name, sy.name, scope, yshape, xshape, stmts[:ky + 1], sel)
        for i, n in zip(elem, xshape):
            req.rec_elem = req.rec_elem * n + i
        return prog, req
    return None


def depends(stmts, kx, ky):
    need = {stmts[kx].name}
    for s in stmts[kx + 1:ky + 1]:
        if names_used(s) & need:
            need.add(s.name if defined(s) else "")
    return stmts[ky].name in need


def two_index_access(stmts):
    """Known bug ad_local_scope_two_index_access: an access index (or a where-binding) that
    mentions two or more names."""
    def names(e):
        return {n.name for n in walk(e) if isinstance(n, Ref)}
    for n in walk(stmts):
        if isinstance(n, Access) and any(len(names(i)) >= 2 for i in n.idx):
            return True
        if isinstance(n, WBind) and len(names(n.e)) >= 2:
            return True
    return False


def pick_scope(r, bugs, yval, xval, between=()):
    w = {k: v for k, v in SCOPES.items() if SCOPE_BUGS.get(k) not in bugs}
    if bugs and "ad_local_scope_two_index_access" in bugs and two_index_access(list(between)):
        w = {"top": w["top"]}
    if isinstance(yval, Tensor):
        w.pop("einstein", None)
    if isinstance(yval, Tensor):
        w.pop("recurrence", None)      # a recurrence's elements are scalars (E011 otherwise)
    keys = sorted(w)
    return r.choices(keys, [w[k] for k in keys])[0]


EIN_POINTS = 2
REC_POINTS = 3


def build(stmts, kx, ky, scope, r, elem=()):
    x, y = stmts[kx].name, stmts[ky].name
    if scope == "top":
        return Program(list(stmts[:ky + 1]) + [SPrint([Diff(y, x)])])
    # The statements after x that y needs, renamed, become locals of a block / function body.
    slice_ = [s for s in stmts[kx + 1:ky + 1] if defined(s) and needed(stmts, s, ky)]
    if any(isinstance(s, SInput) for s in slice_):
        return None
    ren = {s.name: s.name + "_l" for s in slice_}
    lets = []
    for s in slice_:
        s2 = rename(clone(s), ren)
        lets.append(s2 if isinstance(s2, SDecl) else (s2.name, s2.e))
    yl = ren.get(y, y)
    if scope == "block":
        g = "g_" + y
        return Program(list(stmts) + [SLet(g, Block(lets, Diff(yl, x))), SPrint([Ref(g)])])
    if scope == "fn":
        f = "d_" + y
        return Program(list(stmts) + [SFn(f, [(x, None)], None, Block(lets, Diff(yl, x))),
                                      SPrint([Call_(f, [Ref(x)])])])
    if scope == "recurrence":
        t, z, R = "t_d", "z_d", "R_" + y
        step = Block(lets + [(z, Bin("*", Ref(yl), Cast(Ref(t), "f64")))], Diff(z, x))
        if elem:       # a tensor x: each step reads one element of the gradient
            gname = "g_d"
            step = Block(step.lets + [(gname, step.result)],
                         Access(gname, [Lit(i, "i32") for i in elem]))
        body = Bin("+", Access(R, [Bin("-", Ref(t), Lit(1, "i32"))]), step)
        decl = SDecl(R, [Clause([SlotLit(0)], Lit(0.0, "f64")),
                         Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(REC_POINTS, "i32")))], body)],
                     dt="f64")
        return Program(list(stmts) + [decl, SPrint([Ref(R)])])
    # einstein: one request per point, scaled by the point's index
    i = "i_d"
    z = "z_d"
    body = Block(lets + [(z, Bin("*", Ref(yl), Cast(Bin("+", Ref(i), Lit(1, "i32")), "f64")))],
                 Diff(z, x))
    G = "G_" + y
    decl = SDecl(G, [Clause([SlotIdx(i, Range(Lit(0, "i32"), Lit(EIN_POINTS, "i32")))], body)],
                 dt="f64")
    return Program(list(stmts) + [decl, SPrint([Ref(G)])])


def request_from(prog):
    """The Request of a top-scope derivative program (the shrinker edits such programs)."""
    last = prog.stmts[-1] if prog.stmts else None
    if not (isinstance(last, SPrint) and len(last.args) == 1):
        return None
    sel = None
    cut = prog.stmts[:-1]
    d = last.args[0]
    if isinstance(d, Access) and len(prog.stmts) >= 2 and isinstance(prog.stmts[-2], SLet) \
            and prog.stmts[-2].name == d.name and isinstance(prog.stmts[-2].e, Diff) \
            and len(d.idx) == 1 and isinstance(d.idx[0], Lit):
        sel = ("row", d.idx[0].value)
        d, cut = prog.stmts[-2].e, prog.stmts[:-2]
    if not isinstance(d, Diff):
        return None
    if d.yidx:
        if not all(isinstance(i, Lit) for i in d.yidx):
            return None
        sel = ("point", tuple(i.value for i in d.yidx))
    if not any(defined(s) == d.y for s in cut) or not any(defined(s) == d.x for s in cut):
        return None
    try:
        ev = Evaluator(Program(cut))
        ev.run()
    except Exception:
        return None
    yv, xv = ev.g.get(d.y), ev.g.get(d.x)
    if not all(isinstance(v, Tensor) and v.dt == "f64" or isinstance(v, tuple) and v[0] == "f64"
               for v in (yv, xv)):
        return None
    yshape = yv.shape if isinstance(yv, Tensor) else ()
    xshape = xv.shape if isinstance(xv, Tensor) else ()
    if sel is not None:
        if sel[0] == "point" and (len(sel[1]) != len(yshape) or
                                  any(not 0 <= i < n for i, n in zip(sel[1], yshape))):
            return None
        if sel[0] == "row" and not (yshape and 0 <= sel[1] < yshape[0]):
            return None
    return Request(prog, d.x, d.y, "top", yshape, xshape, cut, sel)


def Call_(f, args):
    from ir import Call
    return Call(f, args)


def needed(stmts, s, ky):
    """Is binding s (transitively) read by stmts[ky]?"""
    need = {stmts[ky].name}
    for t in reversed(stmts[:ky + 1]):
        if defined(t) in need:
            need |= names_used(t)
    return s.name in need


def rename(s, ren):
    if isinstance(s, (SLet, SDecl)) and s.name in ren:
        s.name = ren[s.name]
    for n in walk(s):
        if isinstance(n, (Ref, Access)) and n.name in ren:
            n.name = ren[n.name]
        elif isinstance(n, Call) and n.fn in ren:    # a lambda bound by a recomputed `let`
            n.fn = ren[n.fn]
    return s


# ------------------------------------------------------------------------ finite differences
def evaluate_cut(cut, name, overrides, ev_cls=Evaluator):
    refnum.TRACE = []
    try:
        ev = ev_cls(Program(cut), overrides)
        ev.run()
        return ev.g[name], tuple(refnum.TRACE)
    finally:
        refnum.TRACE = None


def perturbed(k, d):
    def f(val):
        if isinstance(val, Tensor):
            t = Tensor(val.dt, val.shape, list(val.vals), list(val.errs))
            t.vals[k] = t.vals[k] + d
            return t
        return (val[0], val[1] + d, val[2])
    return f


def flat(v):
    return list(v.vals) if isinstance(v, Tensor) else [v[1]]


def flat_err(v):
    """The reference's error bound of each element plus its f64 rounding: a difference
    quotient cannot resolve a change below these (a term of 1e-5 in a sum of 2e9)."""
    vals, errs = (v.vals, v.errs) if isinstance(v, Tensor) else ([v[1]], [v[2]])
    return [abs(e) + 2.3e-16 * abs(x) for x, e in zip(vals, errs)]


def expected(req, bugs=None, ev_cls=Evaluator):
    """(Jacobian as a flat list in row-major order of shape(y) ++ shape(x), error estimates) or
    None when the program is not differentiable at this point. `ev_cls` evaluates the cut (a
    subclass replaces calls that have a custom derivative rule, local_ad.py)."""
    base, trace0 = evaluate_cut(req.cut, req.y, {}, ev_cls)
    xv = ev_cls(Program(req.cut))
    xv.run()
    xval = xv.g[req.x]
    # A value rounded to f32 on the way to y makes the difference quotient noisy at the f32
    # ulp / h level, which neither h/4 nor Richardson removes: widen the error estimate.
    f32_noise = 2e-3 if "f32" in render(Program(req.cut)) else 0.0
    nx = size(xval)
    ny = size(base)
    cols, errs = [], []
    for k in range(nx):
        x0 = flat(xval)[k]
        h = 1e-4 * max(1.0, abs(x0))
        ests = []
        for step in (h, h / 4):
            yp, tp = evaluate_cut(req.cut, req.y, {req.x: perturbed(k, step)}, ev_cls)
            ym, tm = evaluate_cut(req.cut, req.y, {req.x: perturbed(k, -step)}, ev_cls)
            if tp != trace0 or tm != trace0:
                return None
            ests.append([(a - b) / (2 * step) for a, b in zip(flat(yp), flat(ym))])
            noise = [(a + b) / (2 * step) for a, b in zip(flat_err(yp), flat_err(ym))]
        d1, d2 = ests
        if not all(math.isfinite(v) for v in d1 + d2):
            return None             # infinities in y: finite differences cannot judge
        if any(abs(a - b) > 0.01 * max(abs(a), abs(b)) + 1e-7 for a, b in zip(d1, d2)):
            return None             # h and h/4 disagree: too curved here to difference
        cols.append([(16 * b - a) / 15 for a, b in zip(d1, d2)])
        errs.append([abs(a - b) + f32_noise * abs(b) + n for a, b, n in zip(d1, d2, noise)])
    jac = [cols[k][j] for j in range(ny) for k in range(nx)]
    # An adjoint is computed at its value's precision (PyTorch and JAX do the same): through an
    # f32 value, a derivative beyond f32's range is inf in ein and finite here (seed 21000175).
    if f32_noise and any(abs(v) > 3.4e38 for v in jac):
        return None
    err = [errs[k][j] for j in range(ny) for k in range(nx)]
    return jac, err


def check_output(lines, req, jac, err):
    if len(lines) != 1:
        return f"expected one printed line, got {len(lines)}"
    try:
        vals = parse_line(lines[0])
    except Exception as e:
        return f"cannot read {lines[0][:80]!r}: {e}"
    if len(vals) != 1:
        return f"expected one value, got {len(vals)}"
    got = []
    def rec(v, depth):
        if depth == len(req.shape):
            if not isinstance(v, Num):
                raise ValueError(f"expected a float, got {v!r}")
            got.append(float(v))
            return
        if not isinstance(v, list) or len(v) != req.shape[depth]:
            raise ValueError(f"expected shape {req.shape}")
        for w in v:
            rec(w, depth + 1)
    try:
        if len(req.shape) and req.shape[0] == 0:
            if vals[0] != []:
                raise ValueError(f"expected shape {req.shape}")
        else:
            rec(vals[0], 0)
    except ValueError as e:
        return f"{e}, got {lines[0][:120]}"
    want, errs = req.printed(jac, err)
    for k, (a, w, e) in enumerate(zip(got, want, errs)):
        tol = 1e-6 + 1e-4 * abs(w) + 10 * e
        if not abs(a - w) <= tol:
            return f"element {k}: expected {w!r} (finite differences, +- {tol:.2g}), got {a!r}"
    return None


class DerivExpect(Expect):
    """Judged by check_output instead of the primal comparison; `lines` is the expected
    Jacobian for a pending file."""

    def __init__(self, req, jac, err):
        vals, _ = req.printed(jac, err)
        val = Tensor("f64", req.shape, vals) if req.shape else ("f64", vals[0], 0.0)
        super().__init__([[val]])
        self.req, self.jac, self.err = req, jac, err


def check_batch(args, seeds, bugs, stats, wd, mismatches):
    """Derivative programs for a batch's seeds: (checked, skipped as non-smooth)."""
    from run import Mismatch
    import local_ad                 # imports this module
    items = []
    skipped = 0
    for s in seeds:
        try:
            local = local_share(args) > random.Random(s ^ 0x10CA1).random()
            made = local_ad.make(s, bugs) if local else derivative_program(s, bugs, stats)
            if made is None:
                if local:
                    skipped += 1
                continue
            prog, req = made
            if local:
                for t in prog.tags:
                    stats.tags[t] = stats.tags.get(t, 0) + 1
            fd = ([], []) if local else expected(req, bugs)
        except (RefError, IllConditioned, Unspecified, GenBug, ZeroDivisionError,
                OverflowError):
            skipped += 1
            continue
        if fd is None:
            skipped += 1
            continue
        items.append((s, prog, req, fd))
    if not items:
        return (0, skipped)
    progs = [p for _, p, _, _ in items]
    exps = [DerivExpect(req, *fd) for _, _, req, fd in items]
    # Sessions (cell boundaries) run alone: `ein --cells` applies to the whole file.
    cells = [k for k, p in enumerate(progs) if any(type(s).__name__ == "SCell" for s in p.stmts)]
    plain = [k for k in range(len(progs)) if k not in cells]
    for mode in [m for m in MODES_DERIV if m in args.modes] or args.modes[:1]:
        verdict = {}
        for group in [plain] + [[k] for k in cells]:
            if group:
                got = run_batch(args.ein, [progs[k] for k in group], [exps[k] for k in group],
                                mode, wd, judge=judge_deriv)
                verdict.update({group[k]: v for k, v in got.items()})
        for k, v in verdict.items():
            if v is not None:
                s, p, req, _ = items[k]
                if v[0].startswith("ad-rejected-E002") and "ad_mixed_float_e002" in bugs:
                    # A coded rejection, not a wrong value: reported, not failed (known bug).
                    print(f"differential: known bug ad_mixed_float_e002: seed {s} {mode}: "
                          f"{v[1][:100]}", flush=True)
                    continue
                mismatches.append(Mismatch(s, mode, v[0], v[1], p, exps[k], kind="deriv"))
    return (len(items), skipped)


def local_share(args):
    """The fraction of seeds whose derivative program is a local_ad.py kind instead."""
    return getattr(args, "local_share", LOCAL_SHARE)


LOCAL_SHARE = 0.35


def judge_deriv(run, exp):
    from runner import DIAG, abnormal
    bad = abnormal(run)
    if bad:
        return bad
    if run.rc != 0:
        code = DIAG.findall(run.err)[0]
        first = run.err.strip().splitlines()[0]
        return (f"ad-rejected-{code}-{exp.req.scope}", first[:200])
    msg = check_output(run.out.splitlines(), exp.req, exp.jac, exp.err)
    return None if msg is None else (f"ad-value-{exp.req.scope}", msg)
