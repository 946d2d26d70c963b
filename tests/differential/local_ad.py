"""Oracle 3b: derivative requests whose meaning depends on where they stand (SPEC §7,
docs/language.md "Autodiff"). deriv.py asks `@y / @x` of bindings of a generated program, with x
perturbed everywhere; these kinds build programs around the request instead, and the expected
value is computed for *that* scope: every kind writes, per request evaluation, a top-level
reference program in which the request's binding is its own statement (locals renamed apart,
index variables replaced by their values, parameters and the declaration's own earlier points
given as input literals, so they are held constant as the SPEC says) and differences it
(smooth.first / smooth.second). Nothing comes from ein's output.

  fn_param     `fn F(p, q) { let l1 = ..p..gl..; let l2 = ..l1..; @l2 / @X }`, X the parameter
               (scalar or array), the local l1 or the global gl; the body reads gl, which is
               computed from the argument's own binding s at top level (a parameter is a new
               binding: its definition is not followed). Called at top level or per point.
  shadow       `{ let u = ..x..; let u = ..u..; let z = ..u..; @z / @u }` (the second u), the
               same wrt x, top-level rebinding `let x = ..; let x = ..x..; @z / @x`, and a block
               shadowing a top-level name.
  loop_local   `let G[i in 0..n] = { let w = ..a[i]..; [let w = ..w..;] let l = ..; @l / @X }`,
               X the per-point w, a global scalar or a global array (a gradient per point).
  rec_step     a gradient step per step of a recurrence: `R[t] = { let p = R[t - 1]; let l =
               ..p..a[t - 1]..; p - lr * @l / @p }` (or by a global c, with R[t - 1] held), and
               the vector form `W[t, j] = { let p[k] = W[t - 1, k]; ..; p[j] - lr * g[j] }`.
  custom_rule  `fn F(u, v) {..} @fn F(u, v) { cu * @u + cv * @v }` with a rule that is *not*
               F's derivative; the reference linearises F at each call's arguments by the rule.
  second_order `let d1 = @l / @w; print(@d1 / @w)` (Hessian), a gradient-norm penalty
               `@(l + ½|d1|²) / @w`, a Hessian-vector product.
  rec_through  a recurrence `R[0] = x0; R[t] = 0.5 * R[t - 1] + tanh(..R[t - 1]..a[t - 1]..)`
               and a request through its steps: `@R[T - 1] / @x0` (the start's own binding),
               `@R[k] / @x0` (an early row), `@R / @a` (an input of every step, whole
               Jacobian), `@R[T - 1] / @c`; at top level or in a function that declares the
               recurrence from its parameter.
  grad_use     `let g = @l / @w; let w2[j] = w[j] - lr * g[j];` then the loss at w2, or its
               derivative by w (through the gradient: (I - lr H) ∇L2(w2)).
"""
import math
import random

import smooth
from deriv import DerivExpect
from ir import (Access, Bin, Block, Call, Cast, CGen, Clause, Comp, Diff, DRef, Lambda, Lit,
                Program, Range, Ref,
                RIdx, Red, SDecl, SFn, SInput, SLet, SPrint, SRule, SlotIdx, SlotLit, clone)
from ref import Evaluator, Tensor
from smooth import Smooth, subst, value_input

KINDS = {"fn_param": 3, "shadow": 2, "loop_local": 2, "rec_step": 2, "custom_rule": 2,
         "second_order": 1.5, "grad_use": 1.5, "rec_through": 2}


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
    return list(top) + [SLet(n, clone(e)) for n, e in lets]


# ------------------------------------------------------------------------------------ kinds
def k_fn_param(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    gl = B.fresh("gl")
    top.append(SLet(gl, B.S.using(Ref(s), [s, c], {a: n, b: n}, 2)))
    F, p, q = B.fresh("F"), B.fresh("p"), B.fresh("q")
    parr = r.random() < 0.3
    X = r.choice([p, p, "local", gl])
    scal = [q, gl, s] + ([] if parr else [p])
    arrs = {a: n, b: n, **({p: n} if parr else {})}
    if X == gl and "ad_fn_global_wrt_reads_globals" in B.bugs:
        scal = [q, gl] + ([] if parr else [p])
        arrs = {p: n} if parr else {}
    must = B.S.reduction(p, arrs, [q]) if parr else Ref(p)
    lets = B.chain(must, scal, arrs, r.randint(1, 3))
    y = lets[-1][0]
    if X == "local":
        X = lets[0][0]
    if not parr and r.random() < 0.25:    # a closure bound by a let: requests in lambdas
        prog = list(top) + [SLet(F, Lambda([p, q], Block(lets, Diff(y, X))))]
    else:
        prog = list(top) + [SFn(F, [(p, None), (q, None)], None, Block(lets, Diff(y, X)))]
    g = smooth.run(top)
    def call(pv, qv):
        st = list(top) + [value_input(p, pv), value_input(q, qv)]
        return need(smooth.first(fd_stmts(st, lets), X, y))
    qarg = r.choice([Ref(c), Lit(0.5, "f64")])
    qv = g[c] if isinstance(qarg, Ref) else ("f64", 0.5, 0.0)
    if parr or X != p and r.random() < 0.5 or r.random() < 0.5:
        parg = a if parr else s
        jac, err, _, xs = call(g[parg], qv)
        prog.append(SPrint([Call(F, [Ref(parg), qarg])]))
        return prog, LocalReq("fn_param", xs, jac, err)
    # per point: G[i] = F(a[i], q)
    i, G = B.fresh("i"), B.fresh("G")
    vals, errs = [], []
    for k in range(n):
        jac, err, _, _ = call(("f64", g[a].vals[k], 0.0), qv)
        vals += jac
        errs += err
    prog += [SDecl(G, [Clause([SlotIdx(i, Range(Lit(0, "i32"), Lit(n, "i32")))],
                              Call(F, [Access(a, [Ref(i)]), qarg]))], dt="f64"),
             SPrint([Ref(G)])]
    return prog, LocalReq("fn_param_point", (n,), vals, errs)


def k_shadow(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    x0 = B.fresh("x")
    top.append(SLet(x0, B.S.using(Ref(s), [s, c], {a: n, b: n}, 1)))
    arrs = {a: n, b: n}
    v = r.random()
    if v < 0.5:         # inside a block: `let u = ..; let u = ..u..; let z = ..; @z / @u`
        u = B.fresh("u")
        e1 = B.S.using(Ref(x0), [x0, s], arrs, 2)
        e2 = B.S.using(Ref(u), [u, x0, c], arrs, 2)
        e3 = B.S.using(Ref(u), [u, x0, s], arrs, 2)
        z = B.fresh("z")
        wrt = r.choice([u, u, x0])
        res = B.fresh("R")
        prog = list(top) + [SLet(res, Block([(u, e1), (u, e2), (z, e3)], Diff(z, wrt))),
                            SPrint([Ref(res)])]
        u1, u2 = u + "_a", u + "_b"
        fd = list(top) + [SLet(u1, clone(e1)), SLet(u2, subst(clone(e2), {u: Ref(u1)})),
                          SLet(z, subst(clone(e3), {u: Ref(u2)}))]
        jac, err, _, xs = need(smooth.first(fd, u2 if wrt == u else x0, z))
        return prog, LocalReq("shadow_block", xs, jac, err)
    if v < 0.75:        # at top level: `let x = ..; let x = ..x..; let z = ..x..; @z / @x`
        e2 = B.S.using(Ref(x0), [x0, s], arrs, 2)
        z = B.fresh("z")
        e3 = B.S.using(Ref(x0), [x0, c], arrs, 2)
        prog = list(top) + [SLet(x0, e2), SLet(z, e3), SPrint([Diff(z, x0)])]
        xb = x0 + "_b"
        fd = list(top) + [SLet(xb, clone(e2)), SLet(z, subst(clone(e3), {x0: Ref(xb)}))]
        jac, err, _, xs = need(smooth.first(fd, xb, z))
        return prog, LocalReq("shadow_top", xs, jac, err)
    # a block rebinding a top-level name: the request means the block's binding
    e2 = B.S.using(Ref(x0), [x0, s], arrs, 2)
    z = B.fresh("z")
    e3 = B.S.using(Ref(x0), [x0, c, s], arrs, 2)
    res = B.fresh("R")
    prog = list(top) + [SLet(res, Block([(x0, e2), (z, e3)], Diff(z, x0))), SPrint([Ref(res)])]
    xb = x0 + "_b"
    fd = list(top) + [SLet(xb, clone(e2)), SLet(z, subst(clone(e3), {x0: Ref(xb)}))]
    jac, err, _, xs = need(smooth.first(fd, xb, z))
    return prog, LocalReq("shadow_outer", xs, jac, err)


def k_loop_local(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    i, w, G = B.fresh("i"), B.fresh("w"), B.fresh("G")
    pts = [Access(a, [Ref(i)]), Access(b, [Ref(i)]), Cast(Ref(i), "f64")]
    arrs = {a: n, b: n}
    lets = [(w, B.S.using(pts[0], [s], arrs, 1, pts))]
    rebind = r.random() < 0.5
    if rebind:
        lets.append((w, B.S.using(Ref(w), [w, c], arrs, 1, pts)))
    l = B.fresh("l")
    lets.append((l, B.S.using(Ref(w), [w, s, c], arrs, 2, pts)))
    X = r.choice([w, w, s, a])
    comp = X != a and r.random() < 0.3
    if comp:    # a comprehension over the index values: `[{ ..; @l / @X } | i in 0..n]`
        prog = list(top) + [SLet(G, Comp(Block(lets, Diff(l, X)),
                                         [CGen(i, Range(Lit(0, "i32"), Lit(n, "i32")))])),
                            SPrint([Ref(G)])]
    else:
        prog = list(top) + [
            SDecl(G, [Clause([SlotIdx(i, Range(Lit(0, "i32"), Lit(n, "i32")))],
                             Block(lets, Diff(l, X)))], dt="f64"),
            SPrint([Ref(G)])]
    vals, errs, shape = [], [], (n,)
    for k in range(n):
        ren = []
        names = {i: Lit(k, "i32")}
        for nm, e in lets:
            e2 = subst(clone(e), names)
            new = f"{nm}_{len(ren)}"
            ren.append((new, e2))
            names[nm] = Ref(new)
        xname = names[X].name if X == w else X
        jac, err, _, xs = need(smooth.first(fd_stmts(top, ren), xname, ren[-1][0]))
        vals += jac
        errs += err
        shape = (n,) + tuple(xs)
    return prog, LocalReq(("comp_local" if comp else "loop_local") +
                          ("_rebound" if rebind else ""), shape, vals, errs)


def k_rec_step(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    g = smooth.run(top)
    t, R, p, l = B.fresh("t"), B.fresh("R"), B.fresh("p"), B.fresh("l")
    T = n + 1
    lr = r.choice([0.1, 0.25, 0.05])
    prev = Access(R, [Bin("-", Ref(t), Lit(1, "i32"))])
    pts = [Access(a, [Bin("-", Ref(t), Lit(1, "i32"))]), Cast(Ref(t), "f64")]
    rng = Range(Lit(1, "i32"), Lit(T, "i32"))
    if r.random() < 0.6:        # scalar state
        e = B.S.using(Ref(p), [p, c, s], {b: n}, 2, pts)
        X = r.choice([p, p, c])
        body = Block([(p, prev), (l, e)],
                     Bin("-", Ref(p), Bin("*", Lit(lr, "f64"), Diff(l, X))))
        prog = list(top) + [SDecl(R, [Clause([SlotLit(0)], Ref(s)),
                                      Clause([SlotIdx(t, rng)], body)], dt="f64"),
                            SPrint([Ref(R)])]
        vals, errs = [g[s][1]], [0.0]
        for k in range(1, T):
            st = list(top) + [SInput(p, "f64", (), vals[-1]),
                              SLet(l, subst(clone(e), {t: Lit(k, "i32")}))]
            jac, err, _, _ = need(smooth.first(st, X, l))
            vals.append(vals[-1] - lr * jac[0])
            errs.append(2 * errs[-1] + lr * err[0] + 1e-12 * abs(vals[-1]))
        return prog, LocalReq("rec_step_" + ("param" if X == p else "global"), (T,), vals, errs)
    # vector state: one gradient step per row
    j, kk = B.fresh("j"), B.fresh("k")
    must = B.S.reduction(p, {p: n, a: n}, [c])
    e = B.S.using(must, [c, s], {p: n, b: n}, 1, pts[1:])
    gname = B.fresh("gr")
    body = Block([SDecl(p, [Clause([SlotIdx(kk, Range(Lit(0, "i32"), Lit(n, "i32")))],
                                   Access(R, [Bin("-", Ref(t), Lit(1, "i32")), Ref(kk)]))],
                        dt="f64"),
                  (l, e), (gname, Diff(l, p))],
                 Bin("-", Access(p, [Ref(j)]), Bin("*", Lit(lr, "f64"), Access(gname, [Ref(j)]))))
    jr = Range(Lit(0, "i32"), Lit(n, "i32"))
    prog = list(top) + [SDecl(R, [Clause([SlotLit(0), SlotIdx(j, clone(jr))],
                                         Access(a, [Ref(j)])),
                                  Clause([SlotIdx(t, rng), SlotIdx(j, jr)], body)], dt="f64"),
                        SPrint([Ref(R)])]
    rows, errs = [list(g[a].vals)], [[0.0] * n]
    for k in range(1, T):
        st = list(top) + [SInput(p, "f64", (n,), list(rows[-1])),
                          SLet(l, subst(clone(e), {t: Lit(k, "i32")}))]
        jac, err, _, _ = need(smooth.first(st, p, l))
        rows.append([v - lr * d for v, d in zip(rows[-1], jac)])
        grow = 2 * max(errs[-1])
        errs.append([grow + lr * e_ + 1e-12 * abs(v) for e_, v in zip(err, rows[-1])])
    return prog, LocalReq("rec_step_vector", (T, n), sum(rows, []), sum(errs, []))


def rule_evaluator(rules):
    """An Evaluator in which a call of a function with a rule is F(u0) + sum_j c_j(u0)(u_j -
    u0_j), u0 the arguments of the same call in the first (unperturbed) run: the derivative by
    the rule, the value F's own."""
    class RuleEv(Evaluator):
        store = None

        def __init__(self, prog, overrides=None):
            super().__init__(prog, overrides)
            self.replay = RuleEv.store is not None
            self.rec, self.k = [], 0

        def run(self):
            out = super().run()
            if not self.replay:
                RuleEv.store = self.rec
            return out

        def call(self, e, env):
            if e.fn not in rules:
                return super().call(e, env)
            args = [self.ev(x, env) for x in e.args]
            if self.replay:
                base = RuleEv.store[self.k]
                self.k += 1
            else:
                base = args
                self.rec.append(args)
            fn, coefs = rules[e.fn]
            local = dict(self.g)
            for (pn, _), v in zip(fn.params, base):
                local[pn] = v
            f0 = self.ev(fn.body, local)
            v = f0[1]
            for (pn, _), a0, a1 in zip(fn.params, base, args):
                if pn in coefs and a1[1] != a0[1]:
                    v += self.ev(coefs[pn], local)[1] * (a1[1] - a0[1])
            return ("f64", v, f0[2])
    return RuleEv


def k_custom_rule(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    F, u, v = B.fresh("F"), B.fresh("u"), B.fresh("v")
    fbody = B.S.using(Ref(u), [u, v], {}, 2)
    coefs = {u: B.S.expr([u, v], {}, 1), v: B.S.expr([u, v], {}, 1)}
    # A rule without a term for `@v` is E013 where v's argument moves (ein's decision: no
    # silent zero); it is written only where the argument is the constant c.
    vconst = r.random() < 0.4
    if vconst and r.random() < 0.5:
        del coefs[v]
    rule = None
    for pn, ce in coefs.items():
        term = Bin("*", clone(ce), DRef(pn))
        rule = term if rule is None else Bin("+", rule, term)
    fn = SFn(F, [(u, None), (v, None)], None, fbody)
    top = list(top) + [fn]
    prog_head = list(top) + [SRule(F, [u, v], rule)]
    ev_cls = rule_evaluator({F: (fn, coefs)})
    arrs = {a: n, b: n}
    where = r.random()
    if where < 0.5:         # top level: y = ..F(e(s), c or s)..
        arg = B.S.using(Ref(s), [s, c], arrs, 1)
        call = Call(F, [arg, Ref(c) if vconst else r.choice([Ref(s), Lit(0.75, "f64")])])
        y = B.fresh("y")
        ye = B.S.using(call, [s, c], arrs, 1)
        st = [SLet(y, ye)]
        jac, err, _, xs = need(smooth.first(list(top) + st, s, y, ev_cls))
        return prog_head + st + [SPrint([Diff(y, s)])], LocalReq("rule_top", xs, jac, err)
    if where < 0.8:         # per point, then reduced: y = sum[i](G[i] * b[i])
        i, k, G, y = B.fresh("i"), B.fresh("k"), B.fresh("G"), B.fresh("y")
        call = Call(F, [Bin("*", Access(a, [Ref(i)]), Ref(s)), Ref(c) if vconst else Ref(s)])
        st = [SDecl(G, [Clause([SlotIdx(i)], Bin("+", call, Access(b, [Ref(i)])))], dt="f64"),
              SLet(y, Red("sum", [RIdx(k)], Bin("*", Access(G, [Ref(k)]),
                                                 Access(b, [Ref(k)]))))]
        X = r.choice([s, a])
        jac, err, _, xs = need(smooth.first(list(top) + st, X, y, ev_cls))
        return prog_head + st + [SPrint([Diff(y, X)])], LocalReq("rule_point", xs, jac, err)
    # inside a function body: H(z) = { let m = F(z * 2.0, c) * z; @m / @z }
    H, z, m = B.fresh("H"), B.fresh("z"), B.fresh("m")
    me = Bin("*", Call(F, [Bin("*", Ref(z), Lit(2.0, "f64")), Ref(c)]), Ref(z))
    prog = prog_head + [SFn(H, [(z, None)], None, Block([(m, me)], Diff(m, z))),
                        SPrint([Call(H, [Ref(s)])])]
    g = smooth.run(top)
    st = list(top) + [value_input(z, g[s]), SLet(m, clone(me))]
    jac, err, _, xs = need(smooth.first(st, z, m, ev_cls))
    return prog, LocalReq("rule_in_fn", xs, jac, err)


def loss(B, w, nw, c, s, arrs):
    if nw:
        must = B.S.reduction(w, {w: nw, **arrs}, [c])
        return B.S.using(must, [c, s], {w: nw, **arrs}, 1)
    return B.S.using(Ref(w), [w, c, s], arrs, 2)


def k_second_order(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    nw = r.choice([0, n])
    w = s if not nw else a
    arrs = {b: n}
    l, d1 = B.fresh("l"), B.fresh("d")
    le = loss(B, w, nw, c, s if nw else c, arrs)
    st = list(top) + [SLet(l, le)]
    grad = need(smooth.first(st, w, l))
    H = need(smooth.second(st, w, l))
    head = st + [SLet(d1, Diff(l, w))]
    m = max(nw, 1)
    v = r.random()
    if v < 0.4:
        return head + [SPrint([Diff(d1, w)])], LocalReq("hessian", (nw, nw) if nw else (),
                                                         H[0], H[1])
    jac, gerr = grad[0], grad[1]
    if v < 0.7:             # pen = l + 0.5 |d1|^2: gradient g + H g
        pen = B.fresh("pen")
        k = B.fresh("k")
        sq = Red("sum", [RIdx(k)], Bin("*", Access(d1, [Ref(k)]), Access(d1, [Ref(k)]))) \
            if nw else Bin("*", Ref(d1), Ref(d1))
        vals = [jac[i] + sum(H[0][i * m + j] * jac[j] for j in range(m)) for i in range(m)]
        errs = [gerr[i] + sum(H[1][i * m + j] * abs(jac[j]) + abs(H[0][i * m + j]) * gerr[j]
                              for j in range(m)) for i in range(m)]
        prog = head + [SLet(pen, Bin("+", Ref(l), Bin("*", Lit(0.5, "f64"), sq))),
                       SPrint([Diff(pen, w)])]
        return prog, LocalReq("grad_norm_penalty", (nw,) if nw else (), vals, errs)
    # Hessian-vector product with a fixed vector b (or c for a scalar w)
    hv = B.fresh("hv")
    k = B.fresh("k")
    vec = [bv for bv in smooth.run(top)[b].vals] if nw else [smooth.run(top)[c][1]]
    e = Red("sum", [RIdx(k)], Bin("*", Access(d1, [Ref(k)]), Access(b, [Ref(k)]))) if nw \
        else Bin("*", Ref(d1), Ref(c))
    vals = [sum(H[0][i * m + j] * vec[j] for j in range(m)) for i in range(m)]
    errs = [sum(H[1][i * m + j] * abs(vec[j]) for j in range(m)) for i in range(m)]
    return head + [SLet(hv, e), SPrint([Diff(hv, w)])], \
        LocalReq("hvp", (nw,) if nw else (), vals, errs)


def k_grad_use(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    w = a
    lr = r.choice([0.1, 0.05, 0.2])
    l, g, w2, l2, j = B.fresh("l"), B.fresh("g"), B.fresh("w"), B.fresh("l"), B.fresh("j")
    le = loss(B, w, n, c, s, {b: n})
    l2e = subst(loss(B, w2, n, c, s, {b: n}), {})
    st = list(top) + [SLet(l, le)]
    grad, gerr, _, _ = need(smooth.first(st, w, l))
    wv = smooth.run(top)[a].vals
    w2v = [x - lr * d for x, d in zip(wv, grad)]
    prog = st + [SLet(g, Diff(l, w)),
                 SDecl(w2, [Clause([SlotIdx(j)], Bin("-", Access(w, [Ref(j)]),
                                                     Bin("*", Lit(lr, "f64"),
                                                         Access(g, [Ref(j)]))))], dt="f64"),
                 SLet(l2, l2e)]
    st2 = list(top) + [SInput(w2, "f64", (n,), w2v), SLet(l2, clone(l2e))]
    g2, g2err, _, _ = need(smooth.first(st2, w2, l2))
    if r.random() < 0.4:    # the loss after the step, a value
        ev = Evaluator(Program(st2))
        ev.run()
        val = ev.g[l2][1]
        err = sum(abs(d) * lr * e for d, e in zip(g2, gerr)) + 1e-12 * abs(val)
        return prog + [SPrint([Ref(l2)])], LocalReq("grad_step_value", (), [val], [err])
    H, Herr = need(smooth.second(st, w, l))
    vals = [g2[i] - lr * sum(H[i * n + k] * g2[k] for k in range(n)) for i in range(n)]
    errs = [g2err[i] + lr * sum(Herr[i * n + k] * abs(g2[k]) + abs(H[i * n + k]) * g2err[k]
                                for k in range(n)) for i in range(n)]
    return prog + [SPrint([Diff(l2, w)])], LocalReq("grad_step_deriv", (n,), vals, errs)


def k_rec_through(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    x0, R, t = B.fresh("x"), B.fresh("R"), B.fresh("t")
    T = n + 1
    prev = Access(R, [Bin("-", Ref(t), Lit(1, "i32"))])
    pts = [Access(a, [Bin("-", Ref(t), Lit(1, "i32"))]), Cast(Ref(t), "f64")]
    step = Bin("+", Bin("*", Lit(0.5, "f64"), clone(prev)),
               Call("std::math::tanh", [B.S.using(prev, [c], {b: n}, 2, pts)]))
    decl = SDecl(R, [Clause([SlotLit(0)], Ref(x0)),
                     Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32")))], step)], dt="f64")
    x0e = B.S.using(Ref(s), [s, c], {b: n}, 1)
    yk = r.choice([T - 1, T - 1, r.randrange(T)])
    y = B.fresh("y")
    if r.random() < 0.3:      # inside a function declaring the recurrence from its parameter
        F = B.fresh("F")
        body = Block([decl, (y, Access(R, [Lit(yk, "i32")]))], Diff(y, x0))
        prog = list(top) + [SFn(F, [(x0, None)], None, body), SPrint([Call(F, [Ref(s)])])]
        st = list(top) + [value_input(x0, smooth.run(top)[s]), clone(decl),
                          SLet(y, Access(R, [Lit(yk, "i32")]))]
        jac, err, _, xs = need(smooth.first(st, x0, y))
        return prog, LocalReq("rec_through_fn", xs, jac, err)
    st = list(top) + [SLet(x0, x0e), decl]
    X = r.choice([x0, x0, a, c])
    if X == a and r.random() < 0.5:       # the whole Jacobian of the recurrence
        jac, err, ys, xs = need(smooth.first(st, a, R))
        return st + [SPrint([Diff(R, a)])], LocalReq("rec_through_jacobian", ys + xs, jac, err)
    st2 = st + [SLet(y, Access(R, [Lit(yk, "i32")]))]
    jac, err, _, xs = need(smooth.first(st2, X, y))
    return st + [SPrint([Diff(R, X, [Lit(yk, "i32")])])], LocalReq("rec_through", xs, jac, err)


def make(seed, bugs, kind=None):
    """(Program, LocalReq) for this seed, or None when the reference cannot judge the draw."""
    B = Builder(seed * 104729 + 7, bugs)
    keys = sorted(KINDS)
    kind = kind or B.r.choices(keys, [KINDS[k] for k in keys])[0]
    try:
        stmts, req = globals()["k_" + kind](B)
    except Skip:
        return None
    if any(not math.isfinite(v) for v in req.vals):
        return None
    prog = Program(stmts, seed=seed, kind="deriv", tags={"local_" + req.scope})
    prog.note = kind
    return prog, req


def expect(req):
    return DerivExpect(req, [], [])
