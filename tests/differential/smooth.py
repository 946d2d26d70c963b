"""Pieces for local_ad.py: a small generator of smooth f64 expressions, and finite differences
of reference programs (first derivatives through deriv.expected, second derivatives by central
second differences).

The expressions are smooth almost everywhere (`if` on a value and nothing else that branches),
bounded where it matters (`exp` only of a `tanh`, quotients by 1 + e²), so that finite
differences of the reference evaluator give the derivative to ~1e-9 and the check is about the
*meaning* of a request (which binding, which scope), not about conditioning.
"""
import dataclasses
import math
import random

from deriv import Request, expected, flat, size
from ir import (Access, Bin, Call, Cast, Clause, If, Lit, Program, Range, Red, Ref, RIdx, SDecl,
                SInput, SLet, SlotIdx, SlotLit, WBind, WGuard, clone)
from ref import Evaluator, Tensor

MATH = ("sin", "cos", "tanh", "atan")


def lit(r):
    v = round(r.uniform(-2, 2), 2)
    return Lit(v if v else 0.5, "f64")


class Smooth:
    """Scalar f64 expressions over `scal` (names of f64 scalars) and `arrs` ({name: length} of
    1-D f64 arrays, read whole by `sum[k](A[k] * ..)` or at `pts` (index expressions))."""

    def __init__(self, r, fresh):
        self.r, self.fresh = r, fresh

    def atom(self, scal, arrs, pts):
        r = self.r
        k = r.random()
        if arrs and k < 0.3:
            a = r.choice(sorted(arrs))
            if pts and r.random() < 0.5:
                return Access(a, [clone(r.choice(pts))])
            return self.reduction(a, arrs, scal)
        if scal and k < 0.9:
            return Ref(r.choice(scal))
        return lit(r)

    def reduction(self, a, arrs, scal):
        """`sum[k](a[k] * e)` where e may read other arrays of a's length at k."""
        r = self.r
        k = self.fresh("k")
        same = [b for b in sorted(arrs) if arrs[b] == arrs[a]]
        extra = [Access(b, [Ref(k)]) for b in same]
        where = []
        if r.random() < 0.2:       # a where-binding read by the body
            z = self.fresh("z")
            where.append(WBind(z, self.expr(scal, {}, 1, extra)))
            extra.append(Ref(z))
        inner = self.expr(scal, {}, 1, extra)
        body = Bin("*", Access(a, [Ref(k)]), inner)
        if r.random() < 0.25:      # a guard on data: the reference traces it (FD skips a flip)
            where.append(WGuard(Bin(">", Access(r.choice(same), [Ref(k)]), lit(r))))
        op = r.choices(["sum", "prod", "max", "min"], [6, 1 if arrs[a] <= 4 else 0, 1, 1])[0]
        if op in ("max", "min") and any(isinstance(w, WGuard) for w in where):
            op = "sum"             # an empty guarded max is -inf: not differentiable
        return Red(op, [RIdx(k)], body, where)

    def expr(self, scal, arrs, depth, extra=()):
        """`extra`: more atoms (expressions cloned at each use), e.g. `b[k]` inside a sum."""
        r = self.r
        if depth <= 0 or r.random() < 0.2:
            if extra and r.random() < 0.6:
                return clone(r.choice(list(extra)))
            return self.atom(scal, arrs, [])
        k = r.random()
        sub = lambda: self.expr(scal, arrs, depth - 1, extra)
        if k < 0.45:
            return Bin(r.choice("+-*"), sub(), sub())
        if k < 0.65:
            return Call("std::math::" + r.choice(MATH), [sub()])
        if k < 0.72:
            return Call("std::math::exp", [Call("std::math::tanh", [sub()])])
        if k < 0.80:
            e = sub()
            return Call("std::math::sqrt", [Bin("+", Bin("*", e, clone(e)), Lit(1.0, "f64"))])
        if k < 0.88:
            return If(Bin(">", sub(), lit(r)), sub(), sub())
        e = sub()
        return Bin("/", sub(), Bin("+", Lit(1.0, "f64"), Bin("*", e, clone(e))))

    def using(self, must, scal, arrs, depth, extra=()):
        """An expression that reads `must` (an Expr) outside any `if`: (must op e1) op e2."""
        r = self.r
        m = clone(must)
        if r.random() < 0.5:
            m = Call("std::math::" + r.choice(MATH + ("exp",)), [m]) if r.random() < 0.5 else \
                Bin("*", m, clone(must))
        e = Bin(r.choice("+*"), m, self.expr(scal, arrs, depth, extra))
        if r.random() < 0.6:
            e = Bin(r.choice("+-"), e, self.expr(scal, arrs, depth, extra))
        return e


def subst(node, names):
    """Replace every Ref to a key of `names` by a copy of its Expr (in place; returns node)."""
    def one(v):
        if isinstance(v, Ref) and v.name in names:
            return clone(names[v.name])
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str):
            return (v[0], one(v[1]))
        if dataclasses.is_dataclass(v):
            subst(v, names)
        return v
    if isinstance(node, Ref) and node.name in names:
        return clone(names[node.name])
    if isinstance(node, Access) and isinstance(names.get(node.name), Ref):
        node.name = names[node.name].name          # a renamed array
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, list):
            setattr(node, f.name, [one(x) for x in v])
        elif dataclasses.is_dataclass(v):
            setattr(node, f.name, one(v))
    return node


def value_input(name, v):
    """A reference value as an input statement (exact: floats round-trip through repr)."""
    if isinstance(v, Tensor):
        return SInput(name, v.dt, v.shape, v.nested())
    return SInput(name, v[0], (), v[1])


def run(stmts, ev_cls=Evaluator):
    ev = ev_cls(Program(list(stmts)))
    ev.run()
    return ev.g


def first(stmts, x, y, ev_cls=Evaluator):
    """(jacobian, errors, yshape, xshape) of y by x over `stmts` (top level), or None when a
    decision flips or the differences disagree (deriv.expected)."""
    g = run(stmts, ev_cls)
    yv, xv = g[y], g[x]
    req = Request(None, x, y, "top", yv.shape if isinstance(yv, Tensor) else (),
                  xv.shape if isinstance(xv, Tensor) else (), list(stmts))
    fd = expected(req, None, ev_cls)
    if fd is None:
        return None
    return fd[0], fd[1], req.yshape, req.xshape


def _shifted(val, steps):
    if isinstance(val, Tensor):
        t = Tensor(val.dt, val.shape, list(val.vals), list(val.errs))
        for k, d in steps:
            t.vals[k] += d
        return t
    return (val[0], val[1] + sum(d for _, d in steps), val[2])


def second(stmts, x, y):
    """(hessian row-major over x's elements, errors) of the scalar y, by central second
    differences at h and h/2 (Richardson), or None where a decision flips."""
    from deriv import evaluate_cut
    g = run(stmts)
    xv = g[x]
    n = size(xv)
    x0 = flat(xv)
    _, trace0 = evaluate_cut(stmts, y, {})
    def f(steps):
        v, tr = evaluate_cut(stmts, y, {x: lambda val: _shifted(val, steps)})
        if tr != trace0:
            raise _Flip()
        return v[1]
    out, errs = [], []
    try:
        for i in range(n):
            for j in range(n):
                ests = []
                for h in (2e-3, 1e-3):
                    hi = h * max(1.0, abs(x0[i]))
                    hj = h * max(1.0, abs(x0[j]))
                    if i == j:
                        est = (f([(i, hi)]) - 2 * f([]) + f([(i, -hi)])) / (hi * hi)
                    else:
                        est = (f([(i, hi), (j, hj)]) - f([(i, hi), (j, -hj)])
                               - f([(i, -hi), (j, hj)]) + f([(i, -hi), (j, -hj)])) / (4 * hi * hj)
                    ests.append(est)
                a, b = ests
                if not all(math.isfinite(v) for v in ests):
                    return None
                if abs(a - b) > 0.02 * max(abs(a), abs(b)) + 1e-5:
                    return None
                out.append((4 * b - a) / 3)
                scale = abs(f([])) + 1.0
                errs.append(abs(a - b) + 1e-9 * scale / (1e-6))
    except _Flip:
        return None
    return out, errs


class _Flip(Exception):
    pass


# -------------------------------------------------------- shared by local_ad*.py
class LocalReq:
    """What deriv.check_output needs: the printed shape, values and error estimates."""

    def __init__(self, scope, shape, vals, errs):
        self.scope, self.shape, self.vals, self.errs = scope, tuple(shape), vals, errs
        self.fd = ([], [])

    def printed(self, jac, err):
        return self.vals, self.errs


class Skip(Exception):
    """The reference cannot judge this draw (a decision flips under the perturbation)."""


def need(x):
    if x is None:
        raise Skip()
    return x


class Builder:
    def __init__(self, seed, bugs):
        self.bugs = bugs
        self.r = random.Random(seed)
        self.n = 0
        self.S = Smooth(self.r, self.fresh)

    def fresh(self, p):
        self.n += 1
        return f"{p}{self.n}"

    def inputs(self):
        r = self.r
        n = r.randint(2, 5)
        vec = lambda: [round(r.uniform(-1.5, 1.5), 2) for _ in range(n)]
        a, b, s, c = self.fresh("a"), self.fresh("b"), self.fresh("s"), self.fresh("c")
        st = [SInput(a, "f64", (n,), vec()), SInput(b, "f64", (n,), vec()),
              SInput(s, "f64", (), round(r.uniform(-1.5, 1.5), 2)),
              SInput(c, "f64", (), round(r.uniform(0.2, 1.5), 2))]
        return st, n, a, b, s, c

    def chain(self, first_must, scal, arrs, k, extra=()):
        """k lets, the first reading `first_must`, each next one reading the previous."""
        lets, must = [], first_must
        for _ in range(k):
            nm = self.fresh("l")
            lets.append((nm, self.S.using(must, scal, arrs, 2, extra)))
            scal = scal + [nm]
            must = Ref(nm)
        return lets


def fd_stmts(top, lets):
    return list(top) + [clone(x) if isinstance(x, SDecl) else SLet(x[0], clone(x[1]))
                        for x in lets]


# ------------------------------------------------------------------------------------ kinds


def damped_recurrence(B, R, t, x0, T, a, b, c, n):
    """The clauses `R[0] = x0;` and `R[t in 1..T] = 0.5 * R[t - 1] + tanh(..R[t - 1]..)`, the
    step reading a[t - 1], t, b and c: bounded whatever the draw, so T steps stay smooth."""
    prev = Access(R, [Bin("-", Ref(t), Lit(1, "i32"))])
    pts = [Access(a, [Bin("-", Ref(t), Lit(1, "i32"))]), Cast(Ref(t), "f64")]
    step = Bin("+", Bin("*", Lit(0.5, "f64"), clone(prev)),
               Call("std::math::tanh", [B.S.using(prev, [c], {b: n}, 2, pts)]))
    return (Clause([SlotLit(0)], Ref(x0)),
            Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32")))], step))
