"""Statement kinds around calls (session 19): the classes session 18 found broken with no
generator drawing them.

  closure         higher-order user functions (`fn F(f, x) { f(x) }`, `f(f(x))`, `f(g(x))`,
                  `f(x, y)`, `sum[j](f(a[j]))`) called with lambdas that capture scalars, arrays
                  and the declaration's own indices, at top level, per element of a declaration,
                  inside a reduction, or bound first (`let L = |u| ..;`, a later rebinding of a
                  captured name must not change it: capture by value)
  indexed_call    `C[j]`, `C[i, j]` of an array-valued call C (a user function or std::), the
                  index inferred from the call's extent or given; inside a reduction; a call
                  moving with an index (`F(M[i])[j]`, explicit ranges)
  invariant_call  a call that reads nothing bound at the site (`x[i] - std::array::mean(x)`,
                  `x[std::array::argmax(x)]`): once per statement or per point, the same values;
                  in declarations, statement-level reductions and recurrence bodies
  rec_call        recurrences whose step calls a user function: on the previous value, or on
                  the previous row (`R[t, j] = F(R[t - 1])[j]`, an RNN-like step)

The reference semantics of lambdas and of the library functions are in ref.py (Closure) and
refstd.py (NumPy definitions), never from ein's output.
"""
from gen_expr import Ctx, Idx
from ir import (Access, Bin, Block, Call, CallIdx, Clause, Lambda, Lit, Range, Red, Ref, RIdx,
                SDecl, SFn, SInput, SLet, SPrint, SlotIdx, SlotLit, is_float)

FLOATS = ("f32", "f64")
# std functions of one array whose result has the argument's shape (refstd.py, ref.py)
SAME_SHAPE = ["std::ml::softmax", "std::ml::relu", "std::ml::sigmoid", "std::math::tanh",
              "std::math::exp"]


def _arrays(g, dts, ranks, inputs_only=False):
    ins = {s.name for s in g.stmts if isinstance(s, SInput)} if inputs_only else None
    return [(n, d, s) for n, (d, s) in sorted(g.arrays.items())
            if d in dts and len(s) in ranks and all(x > 0 for x in s)
            and (ins is None or n in ins)]


def _mentions(e, name):
    from ir import walk
    return any(isinstance(n, Ref) and n.name == name for n in walk(e))


def _explicit_ctx(g, names, shape):
    """A context whose indices have the ranges of `shape` written out: reads inside lambda
    bodies are not uses (they bound nothing, in ein as in the reference), so every read there
    must stay inside the range the site already has."""
    ctx = g.ctx()
    for n, ext in zip(names, shape):
        ctx.idx[n] = Idx(n, 0, ext, explicit=True)
    return ctx


# --------------------------------------------------------------------------- closures
HOFS = {"apply": 4, "twice": 2, "apply2": 2, "compose": 2, "mapred": 2, "scaled": 1,
        "maker": 2, "via": 1, "inner": 1.5}


def hof(g, form, dt=None):
    """A generic higher-order function: (SFn, [argument kinds], [other SFns it calls]) with
    kinds 'f1' (a lambda of one parameter), 'f2' (two), 'x' (a scalar), 'a' (a 1-D array)."""
    r = g.r
    F = g.fresh("F")
    f, h, x, y = g.fresh("f"), g.fresh("f"), g.fresh("x"), g.fresh("x")
    if form == "via":
        # a closure handed on through a second function
        inner, kinds, _ = hof(g, "apply")
        return SFn(F, [(f, None), (x, None)], None,
                   Bin("+", Call(inner.name, [Ref(f), Ref(x)]), Ref(x))), kinds, [inner]
    if form in ("maker", "inner"):
        # maker: `fn F(c) { |u| .. c .. }` returns a closure over its parameter, called as
        # `{ let L = F(c); L(x) }`; inner: `fn F(x, c) { A(|u| .. c .., x) }` writes the
        # lambda inside the function body, capturing the parameter
        u = g.fresh("u")
        ctx = Ctx(g, {} if g.deriv else dict(g.arrays), {u: dt, y: dt})
        body = g.ex.expr(dt, ctx, 2)
        for p in (u, y):
            if not _mentions(body, p):
                body = Bin(r.choice("+-*"), body, Ref(p))
        g.tag(f"lambda_in_fn_{form}")
        if form == "maker":
            return SFn(F, [(y, None)], None, Lambda([u], body)), ["maker", "x", "x"], []
        inner, _, _ = hof(g, "apply")
        return SFn(F, [(x, None), (y, None)], None,
                   Call(inner.name, [Lambda([u], body), Ref(x)])), ["x", "x"], [inner]
    if form == "apply":
        return SFn(F, [(f, None), (x, None)], None, Call(f, [Ref(x)])), ["f1", "x"], []
    fn, kinds = _hof_plain(g, form, F, f, h, x, y)
    return fn, kinds, []


def _hof_plain(g, form, F, f, h, x, y):
    r = g.r
    if form == "twice":
        return SFn(F, [(f, None), (x, None)], None, Call(f, [Call(f, [Ref(x)])])), ["f1", "x"]
    if form == "apply2":
        return SFn(F, [(f, None), (x, None), (y, None)], None, Call(f, [Ref(x), Ref(y)])), \
            ["f2", "x", "x"]
    if form == "compose":
        return SFn(F, [(f, None), (h, None), (x, None)], None,
                   Call(f, [Call(h, [Ref(x)])])), ["f1", "f1", "x"]
    if form == "mapred":
        j = g.fresh_index()
        op = r.choice(["sum", "sum", "max", "min"])
        return SFn(F, [(f, None), (x, None)], None,
                   Red(op, [RIdx(j)], Call(f, [Access(x, [Ref(j)])]))), ["f1", "a"]
    # scaled: the closure called twice with different arguments
    return SFn(F, [(f, None), (x, None), (y, None)], None,
               Bin("+", Bin("*", Call(f, [Ref(x)]), Ref(y)), Call(f, [Ref(y)]))), \
        ["f1", "x", "x"]


def lam(g, dt, ctx, arity):
    """|u| or |u, v| with a body of type dt reading its parameters and what ctx captures."""
    r = g.r
    ps = [g.fresh("u") for _ in range(arity)]
    c = ctx.child()
    c.self_decl = None
    if c.idx and g.bug_on("lambda_captured_index_range"):
        c.reds = 2                      # no reductions (known_bugs.py)
    for p in ps:
        c.vars[p] = dt
    body = g.ex.expr(dt, c, 2)
    for p in ps:
        if not _mentions(body, p):
            body = Bin(r.choice("+-*"), Ref(p), body)
    g.tag("lambda")
    return Lambda(ps, body)


def closure(g):
    r = g.r
    dt = g.num_type()
    hofs = dict(HOFS)
    if g.deriv and g.bug_on("ad_closure_in_fn_reduction"):
        hofs["mapred"] = 0
    if g.deriv and g.bug_on("ad_lambda_in_fn"):
        hofs["maker"] = 0
    form = g.ex.pick(hofs)
    site = g.ex.pick({"top": 2, "decl": 4, "red": 1.5, "bound": 2, "rec": 1.5})
    if site == "rec" and form not in ("maker", "inner"):
        return closure_rec(g, dt, form)
    if site in ("decl", "red"):
        # the element type of an array the site can run over
        have = _arrays(g, ("f32", "f64", "i32", "i64"), (1, 2) if site == "decl" else (1,))
        if g.deriv:
            have = [a for a in have if a[1] == "f64"] or have
        if have:
            dt = r.choice(have)[1]
    arrs1 = _arrays(g, (dt,), (1,))
    if form == "mapred" and not arrs1:
        form = "apply"
    fn, kinds, helpers = hof(g, form, dt)
    g.tag(f"hof_{form}")
    stmts = helpers + [fn]
    prints = []
    # the site's indices and the context lambdas capture
    if site == "decl":
        arrs = _arrays(g, (dt,), (1, 2))
        if not arrs:
            site = "top"
    if site == "decl":
        an, _, shape = r.choice(arrs)
        names = [g.fresh_index() for _ in shape]
        ctx = _explicit_ctx(g, names, shape)
        elem = Access(an, [Ref(n) for n in names])
    elif site == "red":
        arrs = _arrays(g, (dt,), (1,))
        if not arrs:
            return [], []
        an, _, shape = r.choice(arrs)
        names = [g.fresh_index()]
        ctx = _explicit_ctx(g, names, shape)
        elem = Access(an, [Ref(names[0])])
    else:
        names, ctx, elem = [], g.ctx(), None
    bound = None
    if site == "bound" and kinds[0] == "f1":
        # `let L = |u| ..;` at top level, captured names rebound after it
        bound = g.fresh("L")
        lm = lam(g, dt, g.ctx(), 1)
        sc = [n for n in sorted(g.scalars) if g.scalars[n] == dt]
        if sc and r.random() < 0.6:
            lm.body = Bin(r.choice("+-*"), lm.body, Ref(r.choice(sc)))
        stmts.append(SLet(bound, lm))
        g.tag("lambda_bound")
        caps = [n for n in sorted(g.scalars) if _mentions(lm.body, n) and g.scalars[n] == dt]
        # (not in derivative programs: finite differences perturb a binding by its name, and
        # both bindings of a rebound name would move)
        if caps and r.random() < 0.6 and not g.deriv:
            c = r.choice(caps)
            stmts.append(SLet(c, g.ex.fix(g.ex.lit(dt), dt)))
            g.tag("lambda_capture_rebound")
    args = []
    used_elem = False
    for k in kinds:
        if k == "maker":
            continue
        if k in ("f1", "f2"):
            if bound is not None and k == "f1" and not args:
                args.append(Ref(bound))
            else:
                args.append(lam(g, dt, ctx, 1 if k == "f1" else 2))
        elif k == "a":
            args.append(Ref(r.choice(arrs1)[0]))
        else:
            if elem is not None and not used_elem:
                a = elem if r.random() < 0.6 else Bin(r.choice("+-*"), elem,
                                                      g.ex.expr(dt, ctx, 1))
                used_elem = True
            else:
                a = g.ex.expr(dt, ctx, 1)
            args.append(g.ex.fix(a, dt))
    call = Call(fn.name, args)
    if kinds[0] == "maker":
        # `{ let L = F(c); L(x) }`: the closure F returns, bound, then called
        lb = g.fresh("L")
        call = Block([(lb, Call(fn.name, [args[1]]))], Call(lb, [args[0]]))
    if bound is not None and r.random() < 0.3:
        call = Bin("+", call, Call(bound, [g.ex.fix(g.ex.expr(dt, ctx, 1), dt)]))
        g.tag("lambda_bound_direct_call")
    if site == "decl":
        if not used_elem:
            call = Bin(r.choice("+-*"), call, elem)
        name = g.fresh("t")
        stmts.append(SDecl(name, [Clause([SlotIdx(n) for n in names], call)], dt=dt))
        g.tag("closure_per_element")
        return stmts, [SPrint([Ref(name)])]
    if site == "red":
        if not used_elem:
            call = Bin("*", call, elem)
        op = r.choice(["sum", "sum", "max", "min"]) if dt != "bool" else "any"
        body = Red(op, [RIdx(names[0])], call)
        name = g.fresh("s")
        stmts.append(SLet(name, body))
        g.tag("closure_in_reduction")
        return stmts, [SPrint([Ref(name)])]
    name = g.fresh("s")
    stmts.append(SLet(name, g.ex.fix(call, dt)))
    return stmts, [SPrint([Ref(name)])]


def _step(g, tmax):
    """A recurrence h[t in 1..T] being written: (h, T, t, context with t, the read h[t - 1])."""
    h = g.fresh("h")
    T = g.r.randint(2, tmax)
    t = g.fresh_index()
    c = g.ctx()
    c.idx[t] = Idx(t, 1, T, explicit=True)
    return h, T, t, c, Access(h, [Bin("-", Ref(t), Lit(1, "i32"))])


def closure_rec(g, dt, form):
    """h[t] = F(|u| .. h[t - 1] .., x[t - 1] ..): per step, a lambda capturing the previous
    value (and the step index) is passed to a higher-order function."""
    r = g.r
    if form == "mapred" and not _arrays(g, (dt,), (1,)):
        return [], []
    fn, kinds, helpers = hof(g, form, dt)
    g.tag(f"hof_{form}")
    h, T, t, c, prev = _step(g, 7)
    args = []
    captured = False
    for k in kinds:
        if k in ("f1", "f2"):
            lm = lam(g, dt, c, 1 if k == "f1" else 2)
            if not captured:
                lm.body = Bin(r.choice("+-*"), lm.body, prev)
                captured = True
            args.append(lm)
        elif k == "a":
            args.append(Ref(r.choice(_arrays(g, (dt,), (1,)))[0]))
        else:
            args.append(g.ex.fix(g.ex.expr(dt, c, 1), dt))
    base = g.ex.fix(g.ex.expr(dt, g.ctx(), 1), dt)
    g.tag("closure_in_recurrence")
    return helpers + [fn, SDecl(h, [Clause([SlotLit(0)], base),
                                    Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32")))],
                                           Call(fn.name, args))], dt=dt)], [SPrint([Ref(h)])]


# ------------------------------------------------------------------------ array-valued calls
def array_call(g, dt, arr, shape, extra_ok=True):
    """(stmts, Call) of a call whose result is an array computed from `arr`, with its shape:
    a std function or a user function (generic) returning a local declaration or a whole-array
    expression."""
    r = g.r
    opts = {"std_same": 3, "user_decl": 2, "user_whole": 1}
    if len(shape) == 2:
        opts.update({"max_axis": 1, "argmax": 1, "layer_norm": 1})
    if len(shape) == 1:
        opts["argmax_scalar"] = 0
    no_whole = g.deriv and g.bug_on("ad_indexed_whole_array_call")
    if no_whole:
        opts["user_whole"] = 0
    k = g.ex.pick(opts)
    if not is_float(dt) and k in ("layer_norm",):
        k = "user_decl"
    if k == "std_same" and no_whole and not is_float(dt):
        k = "user_decl"
    if k == "std_same":
        fns = SAME_SHAPE if is_float(dt) else ["std::ml::relu"]
        if no_whole:
            fns = ["std::ml::softmax"]
        f = r.choice(fns)
        g.tag("std_" + f.rsplit("::", 1)[1])
        return [], Call(f, [arr]), shape, dt
    if k == "max_axis":
        ax = r.choice([0, -1])
        g.tag("std_max_axis")
        return [], Call("std::array::max_axis", [arr, Lit(ax, "i32")]), \
            (shape[1] if ax == 0 else shape[0],), dt
    if k == "argmax":
        g.tag("std_argmax")
        return [], Call("std::array::argmax", [arr]), (shape[0],), "i32"
    if k == "layer_norm":
        d = shape[1]
        s = SInput(g.fresh("v"), dt, (d,), [g.value(dt) for _ in range(d)])
        b = SInput(g.fresh("v"), dt, (d,), [g.value(dt) for _ in range(d)])
        g.tag("std_layer_norm")
        return [s, b], Call("std::ml::layer_normalization",
                            [arr, Ref(s.name), Ref(b.name), Lit(r.choice([1e-5, 0.01]), dt),
                             Lit(-1, "i32")]), shape, dt
    F, a, c = g.fresh("F"), g.fresh("a"), g.fresh("a")
    ctx = Ctx(g, {a: (dt, shape)}, {c: dt})
    if k == "user_whole":
        # `a * c + a` on the whole parameter (broadcasting, SPEC §4)
        body = Bin(r.choice("+-*"), Bin(r.choice("+-*"), Ref(a), Ref(c)), Ref(a))
        if r.random() < 0.4 and is_float(dt):
            body = Call(r.choice(SAME_SHAPE), [body])
        g.tag("fn_returns_whole_array")
    else:
        names, first = g.ex.plain_access(ctx, a, shape)
        loc = g.fresh("l")
        val = Bin(r.choice("+-*"), first, g.ex.expr(dt, ctx, 2))
        body = Block([SDecl(loc, [Clause([SlotIdx(n) for n in names], val)], dt=dt)],
                     Ref(loc))
        g.tag("fn_returns_local_decl")
    fn = SFn(F, [(a, None), (c, None)], None, body)
    arg = g.ex.fix(g.ex.leaf(dt, g.ctx()) if g.bug_on("call_extent_reduction_arg") else
                   g.ex.expr(dt, g.ctx(), 1), dt)
    return [fn], Call(F, [arr, arg]), shape, dt


def indexed_call(g):
    r = g.r
    arrs = _arrays(g, ("f32", "f64", "i32", "i64"), (1, 2),
                   inputs_only=g.deriv and g.bug_on("call_extent_local_recurrence"))
    if not arrs:
        return [], []
    an, dt, shape = r.choice(arrs)
    moving = len(shape) == 2 and r.random() < 0.25
    if moving:
        # F(M[i])[j]: the call moves with i; its extent bounds nothing, ranges are written
        pre, call, rshape, rdt = array_call(g, dt, Access(an, [Ref("#i")]), shape[1:])
    else:
        pre, call, rshape, rdt = array_call(g, dt, Ref(an), shape)
    site = g.ex.pick({"decl": 4, "red": 2, "decl_red": 1})
    names = [g.fresh_index() for _ in rshape]
    if moving:
        i = g.fresh_index()
        _rename_hash(call, i)
        g.tag("call_moving_with_index")
    ctx = _explicit_ctx(g, names, rshape)
    el = CallIdx(call, [Ref(n) for n in names])
    g.tag("indexed_call")
    if rdt != dt:
        from ir import Cast
        el = Cast(el, dt)
    if moving:
        ctx.idx[i] = Idx(i, 0, shape[0], explicit=True)
    if site == "decl" or moving:
        body = el if r.random() < 0.4 else Bin(r.choice("+-*"), el, g.ex.expr(dt, ctx, 2))
        slots = [SlotIdx(n) if not moving and r.random() < 0.7 else
                 SlotIdx(n, Range(Lit(0, "i32"), Lit(e, "i32"))) for n, e in zip(names, rshape)]
        if moving:
            slots = [SlotIdx(i, Range(Lit(0, "i32"), Lit(shape[0], "i32")))] + slots
        name = g.fresh("t")
        g.tag("indexed_call_decl")
        return pre + [SDecl(name, [Clause(slots, body)], dt=dt)], [SPrint([Ref(name)])]
    if site == "red" or len(names) == 1:
        body = Bin(r.choice("+-*"), el, g.ex.expr(dt, ctx, 1)) if r.random() < 0.6 else el
        op = r.choice(["sum", "sum", "max", "min"])
        name = g.fresh("s")
        g.tag("indexed_call_in_reduction")
        return pre + [SLet(name, Red(op, [RIdx(n) for n in names], body))], \
            [SPrint([Ref(name)])]
    # decl over the first axis, reduction over the second: `t[i] = sum[j](C[i, j] * ..)`
    body = Red(r.choice(["sum", "max"]), [RIdx(names[1])],
               Bin("*", el, g.ex.expr(dt, ctx, 1)) if r.random() < 0.5 else el)
    name = g.fresh("t")
    g.tag("indexed_call_decl_reduction")
    return pre + [SDecl(name, [Clause([SlotIdx(names[0])], body)], dt=dt)], \
        [SPrint([Ref(name)])]


def _rename_hash(e, i):
    from ir import walk
    for n in walk(e):
        if isinstance(n, Ref) and n.name == "#i":
            n.name = i


# ------------------------------------------------------------------------ invariant calls
def invariant_value(g, dt, arr, shape):
    """A scalar call of dt reading the whole array `arr` (nothing bound at the site)."""
    r = g.r
    opts = ["std::array::sum", "max_axis", "user"]
    if is_float(dt):
        opts += ["std::array::mean", "std::array::mean"]
    k = r.choice(opts)
    if k == "max_axis" and len(shape) == 1:
        g.tag("std_max_axis")
        return [], Call("std::array::max_axis", [Ref(arr), Lit(r.choice([0, -1]), "i32")])
    if k.startswith("std::"):
        g.tag("std_" + k.rsplit("::", 1)[1])
        return [], Call(k, [Ref(arr)])
    F, a = g.fresh("F"), g.fresh("a")
    j = [g.fresh_index() for _ in shape]
    body = Red(r.choice(["sum", "max", "min"]), [RIdx(x) for x in j],
               Bin("*", Access(a, [Ref(x) for x in j]), g.ex.lit(dt)))
    g.tag("fn_invariant_user")
    return [SFn(F, [(a, None)], None, body)], Call(F, [Ref(arr)])


def invariant_call(g):
    r = g.r
    arrs = _arrays(g, ("f32", "f64", "i32", "i64"), (1, 2))
    if not arrs:
        return [], []
    an, dt, shape = r.choice(arrs)
    pre, inv = invariant_value(g, dt, an, shape)
    g.tag("invariant_call")
    site = g.ex.pick({"decl": 3, "red": 2, "rec": 2, "argmax_index": 1})
    names = [g.fresh_index() for _ in shape]
    ctx = _explicit_ctx(g, names, shape)
    el = Access(an, [Ref(n) for n in names])
    if site == "argmax_index" and len(shape) == 1 and dt != "bool":
        # a data-positioned read: x[argmax(x)] is in bounds whatever x holds
        pos = Call("std::array::argmax", [Ref(an)])
        body = Bin(r.choice("+-*"), Access(an, [pos]), el)
        name = g.fresh("t")
        g.tag("invariant_argmax_index")
        return pre + [SDecl(name, [Clause([SlotIdx(names[0])], body)], dt=dt)], \
            [SPrint([Ref(name)])]
    if site == "rec":
        h, T, t, c, prev = _step(g, 7)
        step = Bin("+", Bin("*", prev, g.ex.nonzero_lit(dt) if not is_float(dt) else
                            Lit(r.choice([0.5, -0.5, 0.25]), dt)), inv)
        if r.random() < 0.5:
            step = Bin(r.choice("+-"), step, g.ex.expr(dt, c, 1))
        base = g.ex.fix(g.ex.expr(dt, g.ctx(), 1), dt)
        g.tag("invariant_call_in_recurrence")
        return pre + [SDecl(h, [Clause([SlotLit(0)], base),
                                Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32")))],
                                       step)], dt=dt)], [SPrint([Ref(h)])]
    if site == "red":
        body = Bin(r.choice("+-*"), el, inv)
        name = g.fresh("s")
        g.tag("invariant_call_in_reduction")
        return pre + [SLet(name, Red(r.choice(["sum", "sum", "max"]), [RIdx(n) for n in names],
                                     body))], [SPrint([Ref(name)])]
    op = r.choice("+-*/") if is_float(dt) else r.choice("+-*")
    body = Bin(op, el, inv)
    if op == "/":
        body = Bin("/", el, Bin("+", Call("std::math::abs", [inv]), Lit(1.0, dt)))
    name = g.fresh("t")
    g.tag("invariant_call_decl")
    return pre + [SDecl(name, [Clause([SlotIdx(n) for n in names], body)], dt=dt)], \
        [SPrint([Ref(name)])]


# ------------------------------------------------------------------ calls in recurrences
def rec_call(g):
    r = g.r
    floats = _arrays(g, ("f32", "f64"), (1,))
    if floats and r.random() < 0.6:
        return row_recurrence(g, floats)
    dt = g.num_type()
    F, p, q = g.fresh("F"), g.fresh("a"), g.fresh("a")
    # the step function reads the program's arrays too (a global read in a function body)
    glob = not (g.deriv and g.bug_on("ad_fn_reads_global"))
    ctx = Ctx(g, dict(g.arrays) if glob else {}, {p: dt, q: dt})
    body = g.ex.expr(dt, ctx, 2)
    if not _mentions(body, p):
        body = Bin(r.choice("+*"), Ref(p), body)
    fn = SFn(F, [(p, None), (q, None)], None, g.ex.fix(body, dt))
    h, T, t, c, prev = _step(g, 8)
    step = Call(F, [prev, g.ex.fix(g.ex.expr(dt, c, 1), dt)])
    base = g.ex.fix(g.ex.expr(dt, g.ctx(), 1), dt)
    g.tag("rec_call_scalar")
    return [fn, SDecl(h, [Clause([SlotLit(0)], base),
                          Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32")))], step)],
                      dt=dt)], [SPrint([Ref(h)])]


def row_recurrence(g, floats):
    """R[0, j] = a[j]; R[t, j] = F(R[t - 1], ..)[j]: the step is a call on the previous row."""
    r = g.r
    an, dt, (n,) = r.choice(floats)
    R = g.fresh("R")
    T = r.randint(2, 6)
    t, j, j0 = g.fresh_index(), g.fresh_index(), g.fresh_index()
    prev = Access(R, [Bin("-", Ref(t), Lit(1, "i32"))])
    form = r.choice(["std", "user_decl", "rnn", "indexed_arg"])
    pre = []
    if form == "std":
        f = r.choice(["std::ml::softmax", "std::ml::sigmoid", "std::math::tanh",
                      "std::ml::relu"])
        el = CallIdx(Call(f, [prev]), [Ref(j)])
        g.tag("std_" + f.rsplit("::", 1)[1])
    elif form == "rnn":
        # F(r, W) { let y[q] = tanh(sum[k](W[q, k] * r[k])); y }: a contraction per step
        W = SInput(g.fresh("v"), dt, (n, n), [[round(r.uniform(-1, 1), 2) for _ in range(n)]
                                               for _ in range(n)])
        F, ra, wa, y = g.fresh("F"), g.fresh("a"), g.fresh("a"), g.fresh("l")
        q, k = g.fresh_index(), g.fresh_index()
        val = Call("std::math::tanh", [Red("sum", [RIdx(k)],
                                           Bin("*", Access(wa, [Ref(q), Ref(k)]),
                                               Access(ra, [Ref(k)])))])
        fn = SFn(F, [(ra, None), (wa, None)], None,
                 Block([SDecl(y, [Clause([SlotIdx(q)], val)], dt=dt)], Ref(y)))
        pre = [W, fn]
        el = CallIdx(Call(F, [prev, Ref(W.name)]), [Ref(j)])
        g.tag("rec_call_rnn")
    elif form == "indexed_arg":
        # G(r, j) { r[j] * c + sum[k](r[k]) }: the function indexes the row itself
        F, ra, ja = g.fresh("F"), g.fresh("a"), g.fresh("a")
        k = g.fresh_index()
        fn = SFn(F, [(ra, None), (ja, None)], None,
                 Bin("+", Bin("*", Access(ra, [Ref(ja)]), Lit(r.choice([0.5, -0.25]), dt)),
                     Bin("*", Red(r.choice(["sum", "max"]), [RIdx(k)], Access(ra, [Ref(k)])),
                         Lit(0.125, dt))))
        pre = [fn]
        el = Call(F, [prev, Ref(j)])
        g.tag("rec_call_row_and_index")
    else:
        stmts, call, _, _ = array_call(g, dt, prev, (n,))
        pre = stmts
        el = CallIdx(call, [Ref(j)])
        g.tag("rec_call_user_row")
    c = g.ctx()
    c.idx[t] = Idx(t, 1, T, explicit=True)
    c.idx[j] = Idx(j, 0, n, explicit=True)
    body = el if r.random() < 0.5 else Bin(r.choice("+-"), el, g.ex.expr(dt, c, 1))
    clauses = [Clause([SlotLit(0), SlotIdx(j0)], Access(an, [Ref(j0)])),
               Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32"))),
                       SlotIdx(j, Range(Lit(0, "i32"), Lit(n, "i32")))], body)]
    g.tag("rec_call_row")
    return pre + [SDecl(R, clauses, dt=dt)], [SPrint([Ref(R)])]
