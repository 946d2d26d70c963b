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
  session      cells (SPEC §11, run as `ein --cells`, alone): a recurrence typed clause by
               clause in two cells, a later cell rebinding an input it read, then a request
               through it (by the start, or by the rebound name: 0, the recurrence read the old
               binding); or a function with a request defined in one cell, a global it reads
               rebound in the next, called in the last (it keeps the binding it saw).
  hoisted      a request reading nothing of the declaration around it (computed once, SPEC
               §7 / docs): `G[i] = (@l / @s) * a[i] + b[i]`, the same as a where-binding, and
               a gradient read at the point: `G[i] = { let gv = @l / @a; gv[i] * b[i] }`.

The kinds that follow values through steps, rules and second derivatives (rec_step,
custom_rule, second_order, grad_use, rec_through, indexed) are in local_ad_flow.py.
"""
import math

import local_ad_flow
import smooth
from deriv import DerivExpect
from ir import (Access, Bin, Block, Call, Cast, CGen, Clause, Comp, Diff, Lambda, Lit, Program,
                Range, Ref, SCell, SDecl, SFn, SInput, SLet, SPrint, SlotIdx, WBind, clone)
from smooth import Builder, LocalReq, Skip, damped_recurrence, fd_stmts, need, subst, value_input

KINDS = {"fn_param": 3, "shadow": 2, "loop_local": 2, "rec_step": 2, "custom_rule": 2,
         "second_order": 1.5, "grad_use": 1.5, "rec_through": 2, "indexed": 2.5, "session": 1,
         "hoisted": 1}


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
    local = r.random() < 0.35
    if local:   # a block-local array made from w, read whole (reductions) or at the point
        v, kv = B.fresh("v"), B.fresh("k")
        ve = B.S.using(Ref(w), [w, s], {}, 1, [Access(a, [Ref(kv)]), Access(b, [Ref(kv)])])
        lets.append(SDecl(v, [Clause([SlotIdx(kv, Range(Lit(0, "i32"), Lit(n, "i32")))], ve)],
                          dt="f64"))
        arrs = {a: n, b: n, v: n}
        pts = pts + [Access(v, [Ref(i)])]
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
        for item in lets:
            if isinstance(item, SDecl):
                d2 = subst(clone(item), names)
                d2.name = f"{item.name}_{len(ren)}"
                ren.append(d2)
                names[item.name] = Ref(d2.name)
                continue
            nm, e = item
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
                          ("_rebound" if rebind else "") + ("_array" if local else ""),
                          shape, vals, errs)


def k_session(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    g = smooth.run(top)
    if r.random() < 0.5:     # a function defined in an earlier cell than a rebinding it must not see
        gl, F, p, y = B.fresh("gl"), B.fresh("F"), B.fresh("p"), B.fresh("y")
        gle = B.S.using(Ref(s), [s, c], {}, 1)
        lets = B.chain(Ref(p), [p, gl, c], {b: n}, r.randint(1, 2))
        fn = SFn(F, [(p, None)], None, Block(lets, Diff(lets[-1][0], p)))
        prog = list(top) + [SLet(gl, gle), fn, SCell(), SLet(gl, Lit(2.5, "f64")),
                            SLet(c, Bin("*", Ref(c), Lit(3.0, "f64"))), SCell(),
                            SPrint([Call(F, [Ref(s)])])]
        st = list(top) + [SLet(gl, clone(gle)), value_input(p, g[s])]
        jac, err, _, xs = need(smooth.first(fd_stmts(st, lets), p, lets[-1][0]))
        return prog, LocalReq("session_fn", xs, jac, err)
    x0, R, t = B.fresh("x"), B.fresh("R"), B.fresh("t")
    T = n + 1
    base, rec = damped_recurrence(B, R, t, x0, T, a, b, c, n)
    x0e = B.S.using(Ref(s), [s, c], {b: n}, 1)
    yk = r.choice([T - 1, r.randrange(T)])
    X = r.choice([x0, x0, c, a])
    y = B.fresh("y")
    st = list(top) + [SLet(x0, x0e), SDecl(R, [clone(base), clone(rec)], dt="f64"),
                      SLet(y, Access(R, [Lit(yk, "i32")]))]
    rebind = r.choice([c, a]) if X != x0 else r.choice([c, a, None])
    after = []
    if rebind == c:
        after = [SLet(c, Bin("+", Ref(c), Lit(1.0, "f64")))]
    elif rebind == a:
        after = [SInput(a, "f64", (n,), [0.25] * n)]
    if rebind == X:          # the request names the new binding, which R does not read
        c2 = X + "_new"
        st += [SInput(c2, "f64", (n,), [0.25] * n) if X == a else SLet(c2, Bin("+", Ref(c), Lit(1.0, "f64")))]
        X = c2
    jac, err, _, xs = need(smooth.first(st, X, y))
    name = X if not X.endswith("_new") else X[:-4]
    prog = list(top) + [SLet(x0, x0e), SCell(), SDecl(R, [base], dt="f64"), SCell(),
                        SDecl(R, [rec], dt="f64"), SCell()] + after + \
        [SPrint([Diff(R, name, [Lit(yk, "i32")])])]
    return prog, LocalReq("session_rec" + ("_rebound" if X.endswith("_new") else ""), xs,
                          jac, err)


def k_hoisted(B):
    r = B.r
    top, n, a, b, s, c = B.inputs()
    l, G, i, gg = B.fresh("l"), B.fresh("G"), B.fresh("i"), B.fresh("g")
    must = B.S.reduction(a, {a: n, b: n}, [s]) if r.random() < 0.7 else Ref(s)
    st = list(top) + [SLet(l, B.S.using(must, [s, c], {a: n, b: n}, 2))]
    gv = smooth.run(top)
    form = r.choice(["product", "where", "gradient"])
    rng = Range(Lit(0, "i32"), Lit(n, "i32"))
    if form == "gradient":
        jac, err, _, _ = need(smooth.first(st, a, l))
        body = Block([(gg, Diff(l, a))], Bin("*", Access(gg, [Ref(i)]), Access(b, [Ref(i)])))
        cl = Clause([SlotIdx(i, rng)], body)
        vals = [jac[k] * gv[b].vals[k] for k in range(n)]
        errs = [err[k] * abs(gv[b].vals[k]) for k in range(n)]
    else:
        jac, err, _, _ = need(smooth.first(st, s, l))
        if form == "product":
            cl = Clause([SlotIdx(i, rng)], Bin("+", Bin("*", Diff(l, s), Access(a, [Ref(i)])),
                                               Access(b, [Ref(i)])))
        else:
            cl = Clause([SlotIdx(i, rng)], Bin("+", Bin("*", Ref(gg), Access(a, [Ref(i)])),
                                               Access(b, [Ref(i)])), [WBind(gg, Diff(l, s))])
        vals = [jac[0] * gv[a].vals[k] + gv[b].vals[k] for k in range(n)]
        errs = [err[0] * abs(gv[a].vals[k]) for k in range(n)]
    return st + [SDecl(G, [cl], dt="f64"), SPrint([Ref(G)])], \
        LocalReq("hoisted_" + form, (n,), vals, errs)


def make(seed, bugs, kind=None):
    """(Program, LocalReq) for this seed, or None when the reference cannot judge the draw."""
    B = Builder(seed * 104729 + 7, bugs)
    keys = sorted(KINDS)
    kind = kind or B.r.choices(keys, [KINDS[k] for k in keys])[0]
    try:
        fn = globals().get("k_" + kind) or getattr(local_ad_flow, "k_" + kind)
        stmts, req = fn(B)
    except Skip:
        return None
    if any(not math.isfinite(v) for v in req.vals):
        return None
    prog = Program(stmts, seed=seed, kind="deriv", tags={"local_" + req.scope})
    prog.note = kind
    return prog, req


def expect(req):
    return DerivExpect(req, [], [])
