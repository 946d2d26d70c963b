"""local_ad.py's kinds that follow a value through steps, rules and second derivatives (the
reference programs are built as local_ad.py describes):

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
  indexed      indexed requests (SPEC §7: one Jacobian entry per point, never the dense
               Jacobian): `J[t, j] = @h[t, j] / @th[j]`, `@h[t, j] / @th[n - 1 - j]`,
               `J[j] = @h[tk, jk] / @th[j]` (a row), `J[t] = @h[t, jk] / @th[kk]` (a column),
               `J[t, j] = @h[t, j] / @th` (a gradient per point), of an elementwise h, an h
               that also reads all of th through a sum, or a recurrence over t per j.
  grad_use     `let g = @l / @w; let w2[j] = w[j] - lr * g[j];` then the loss at w2, or its
               derivative by w (through the gradient: (I - lr H) ∇L2(w2)).
"""
import smooth
from ir import (Access, Bin, Block, Call, Cast, Clause, Diff, DRef, Lit, Program, Range, Ref,
                RIdx, Red, SDecl, SFn, SInput, SLet, SPrint, SRule, SlotIdx, SlotLit, clone)
from ref import Evaluator
from smooth import LocalReq, damped_recurrence, need, subst, value_input


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
    """(statements before, scalar expression) of a loss in w (a scalar, or an array of nw):
    plain, through a declaration over w's points, a generic function, or a recurrence."""
    r = B.r
    form = r.choice(["plain", "plain", "decl", "fn", "rec"] if nw else ["plain", "fn", "rec"])
    if form == "decl":
        q, k = B.fresh("q"), B.fresh("k")
        qe = B.S.using(Access(w, [Ref(k)]), [c], {}, 1,
                       [Access(w, [Ref(k)])] + [Access(x, [Ref(k)]) for x in sorted(arrs)])
        pre = [SDecl(q, [Clause([SlotIdx(k)], qe)], dt="f64")]
        must = B.S.reduction(q, {q: nw, **arrs}, [c])
        return pre, B.S.using(must, [c, s], {w: nw, q: nw, **arrs}, 1)
    if form == "fn":
        F, z = B.fresh("L"), B.fresh("z")
        if nw:
            body = B.S.using(B.S.reduction(z, {z: nw, **arrs}, [c]), [c], {z: nw, **arrs}, 1)
        else:
            body = B.S.using(Ref(z), [z, c], arrs, 2)
        return [SFn(F, [(z, None)], None, body)], \
            B.S.using(Call(F, [Ref(w)]), [c, s], arrs, 1)
    if form == "rec":
        R, t = B.fresh("R"), B.fresh("t")
        T = nw + 1 if nw else 4
        prev = Access(R, [Bin("-", Ref(t), Lit(1, "i32"))])
        pts = [Access(w, [Bin("-", Ref(t), Lit(1, "i32"))])] if nw else [Ref(w)]
        step = Bin("+", Bin("*", Lit(0.5, "f64"), clone(prev)),
                   Call("std::math::tanh", [B.S.using(prev, [c], {}, 1, pts)]))
        start = B.S.reduction(w, {w: nw, **arrs}, [c]) if nw else Ref(w)
        pre = [SDecl(R, [Clause([SlotLit(0)], start),
                         Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32")))], step)],
                     dt="f64")]
        return pre, B.S.using(Access(R, [Lit(T - 1, "i32")]), [c, s], arrs, 1)
    if nw:
        must = B.S.reduction(w, {w: nw, **arrs}, [c])
        return [], B.S.using(must, [c, s], {w: nw, **arrs}, 1)
    return [], B.S.using(Ref(w), [w, c, s], arrs, 2)


def k_second_order(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    nw = r.choice([0, n])
    w = s if not nw else a
    arrs = {b: n}
    l, d1 = B.fresh("l"), B.fresh("d")
    pre, le = loss(B, w, nw, c, s if nw else c, arrs)
    st = list(top) + pre + [SLet(l, le)]
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
    pre, le = loss(B, w, n, c, s, {b: n})
    pre2, l2e = loss(B, w2, n, c, s, {b: n})
    st = list(top) + pre + [SLet(l, le)]
    grad, gerr, _, _ = need(smooth.first(st, w, l))
    wv = smooth.run(top)[a].vals
    w2v = [x - lr * d for x, d in zip(wv, grad)]
    prog = st + [SLet(g, Diff(l, w)),
                 SDecl(w2, [Clause([SlotIdx(j)], Bin("-", Access(w, [Ref(j)]),
                                                     Bin("*", Lit(lr, "f64"),
                                                         Access(g, [Ref(j)]))))], dt="f64"),
                 ] + pre2 + [SLet(l2, l2e)]
    st2 = list(top) + [SInput(w2, "f64", (n,), w2v)] + [clone(x) for x in pre2] + \
        [SLet(l2, clone(l2e))]
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
    decl = SDecl(R, list(damped_recurrence(B, R, t, x0, T, a, b, c, n)), dt="f64")
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


def k_indexed(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    th = a
    T = r.randint(2, 5)
    xs = B.fresh("x")
    top.append(SInput(xs, "f64", (T,), [round(r.uniform(-1.5, 1.5), 2) for _ in range(T)]))
    h, t, j = B.fresh("h"), B.fresh("t"), B.fresh("j")
    rt = lambda: Range(Lit(0, "i32"), Lit(T, "i32"))
    rj = lambda: Range(Lit(0, "i32"), Lit(n, "i32"))
    pts = [Access(th, [Ref(j)]), Access(xs, [Ref(t)]), Access(b, [Ref(j)])]
    form = r.choice(["elementwise", "coupled", "recurrence"])
    if form == "recurrence":
        prev = Access(h, [Bin("-", Ref(t), Lit(1, "i32")), Ref(j)])
        step = Bin("+", Bin("*", Lit(0.5, "f64"), clone(prev)),
                   Call("std::math::tanh", [B.S.using(prev, [c], {}, 2, pts)]))
        decl = SDecl(h, [Clause([SlotLit(0), SlotIdx(j, rj())], Access(th, [Ref(j)])),
                         Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32"))),
                                 SlotIdx(j, rj())], step)], dt="f64")
    else:
        arrs = {th: n} if form == "coupled" else {}
        body = B.S.using(pts[0], [c], arrs, 2, pts)
        decl = SDecl(h, [Clause([SlotIdx(t, rt()), SlotIdx(j, rj())], body)], dt="f64")
    st = list(top) + [decl]
    jac, err, _, _ = need(smooth.first(st, th, h))
    at = lambda tt, jj, kk: (tt * n + jj) * n + kk
    J, u, v = B.fresh("J"), B.fresh("t"), B.fresh("j")
    req = r.choice(["diag", "mirror", "row", "column", "column2", "whole"])
    if req in ("diag", "mirror", "column2", "whole"):
        kk = r.randrange(n)
        xidx = {"diag": [Ref(v)], "mirror": [Bin("-", Lit(n - 1, "i32"), Ref(v))],
                "column2": [Lit(kk, "i32")], "whole": None}[req]
        pick = {"diag": lambda tt, jj: [at(tt, jj, jj)],
                "mirror": lambda tt, jj: [at(tt, jj, n - 1 - jj)],
                "column2": lambda tt, jj: [at(tt, jj, kk)],
                "whole": lambda tt, jj: [at(tt, jj, q) for q in range(n)]}[req]
        body = Diff(h, th, [Ref(u), Ref(v)], xidx)
        ix = [k for tt in range(T) for jj in range(n) for k in pick(tt, jj)]
        shape = (T, n) + ((n,) if req == "whole" else ())
        d = SDecl(J, [Clause([SlotIdx(u, rt()), SlotIdx(v, rj())], body)], dt="f64")
    elif req == "row":
        tk, jk = r.randrange(T), r.randrange(n)
        d = SDecl(J, [Clause([SlotIdx(v, rj())],
                             Diff(h, th, [Lit(tk, "i32"), Lit(jk, "i32")], [Ref(v)]))], dt="f64")
        ix, shape = [at(tk, jk, q) for q in range(n)], (n,)
    else:
        jk, kk = r.randrange(n), r.randrange(n)
        d = SDecl(J, [Clause([SlotIdx(u, rt())],
                             Diff(h, th, [Ref(u), Lit(jk, "i32")], [Lit(kk, "i32")]))], dt="f64")
        ix, shape = [at(tt, jk, kk) for tt in range(T)], (T,)
    prog = st + [d, SPrint([Ref(J)])]
    return prog, LocalReq(f"indexed_{req}_{form}", shape, [jac[k] for k in ix],
                          [err[k] for k in ix])


