"""Statement kinds of the generator. Each function takes the Gen and returns (statements,
prints); gen.py checks them with the reference evaluator before keeping them."""
from gen_expr import Ctx, Idx
from ir import (Access, Bin, Call, Cast, Clause, If, Lit, Range, Red, Ref, Rest, RIdx, SDecl, SFn,
                SInput, SLet, SPrint, SlotIdx, SlotLit, Un, WBind, WGuard, is_float, is_int)


def mentions(e, names):
    from ir import walk
    return any(isinstance(n, Ref) and n.name in names for n in walk(e))


def val(g, dt, ctx, depth, where=()):
    """A statement-level value: nothing outside types its literals (nor the where-bindings
    `where` it may read, which take their type from it)."""
    return g.ex.fix(g.ex.expr(dt, ctx, depth), dt, where)


def observe(g, name, whole_p=0.8):
    return [SPrint([Ref(name)])] if g.r.random() < whole_p else []


def decl_dt(g):
    return g.num_type() if g.r.random() < 0.9 or g.deriv else "bool"


def finish_slots(g, ctx, names):
    """Slots for index names; an index no access determined gets an explicit range."""
    slots = []
    for n in names:
        v = ctx.idx[n]
        if v.explicit:
            slots.append(SlotIdx(n, Range(Lit(v.lo, "i32"), Lit(v.hi, "i32"))))
        elif not v.det:
            hi = g.r.choice(g.extents)
            g.tag("range_explicit")
            slots.append(SlotIdx(n, Range(Lit(0, "i32"), Lit(hi, "i32"))))
        elif g.r.random() < 0.08 and v.hi is not None and v.hi > v.lo:
            g.tag("range_explicit_equal")      # the range inference would find
            slots.append(SlotIdx(n, Range(Lit(v.lo, "i32"), Lit(v.hi, "i32"))))
        else:
            slots.append(SlotIdx(n))
    if len(slots) >= 2 and g.r.random() < 0.12:
        # a triangle or band: a later slot's range names an earlier slot (SPEC §5.2)
        a = g.r.randrange(1, len(slots))
        p = g.r.randrange(0, a)
        n, q = slots[a].name, slots[p].name
        hi = ctx.idx[n].hi if ctx.idx[n].hi is not None else g.r.choice(g.extents)
        rng = g.r.choice([
            Range(Lit(0, "i32"), Bin("+", Ref(q), Lit(g.r.randint(0, 2), "i32"))),
            Range(Ref(q), Lit(hi, "i32")),
            Range(Lit(0, "i32"), Bin("-", Lit(hi, "i32"), Ref(q)))])
        slots[a] = SlotIdx(n, rng)
        g.tag("range_dependent_slot")
    return slots


# ----------------------------------------------------------------------------- Einstein
def einstein(g):
    r = g.r
    rank = r.choices([1, 2, 3], [5, 4, 1])[0]
    names = [g.fresh_index() for _ in range(rank)]
    ctx = g.ctx()
    for n in names:
        ctx.idx[n] = Idx(n)
    dt = decl_dt(g)
    where, else_ = [], None
    if r.random() < 0.2:
        z = g.fresh("z")
        zdt = r.choice([dt if dt != "bool" else "f32", g.main, "i32"])
        where.append(WBind(z, g.reds.binding_value(zdt, ctx, 2)))
        ctx.vars[z] = zdt
        g.tag("where_bind")
    body = val(g, dt, ctx, 3, where)
    if r.random() < 0.25:
        where.append(WGuard(g.ex.boolean(ctx, 1)))
        g.tag("where_guard_decl")
        if r.random() < 0.5 and not (g.deriv and g.bug_on("ad_guard_else_mixed_float")):
            else_ = val(g, dt, ctx, 1)
            g.tag("where_else")
    if isinstance(body, Red) and body.where and not where and r.random() < 0.5 and \
            all(mentions(w.e if isinstance(w, WBind) else w.c, {i.name for i in body.idx})
                for w in body.where):
        body.outside = True
        g.tag("where_after_reduction")
    name = g.fresh("t")
    slots = finish_slots(g, ctx, names)
    g.tag(f"einstein_rank{rank}")
    return [SDecl(name, [Clause(slots, body, where, else_)], dt=dt)], observe(g, name)


def scalar_red(g):
    ctx = g.ctx()
    dt = decl_dt(g)
    red = g.reds.reduction(dt, ctx, 3)
    if not isinstance(red, Red):
        return [], []
    if red.op in ("sum", "prod", "max", "min"):
        red.body = g.ex.fix(red.body, dt, red.where)   # the statement's value: nothing else types it
    if red.where and g.r.random() < 0.5 and \
            all(mentions(w.e if isinstance(w, WBind) else w.c, {i.name for i in red.idx})
                for w in red.where):
        red.outside = True
        g.tag("where_after_reduction")
    name = g.fresh("s")
    g.tag("scalar_reduction")
    return [SLet(name, red)], [SPrint([Ref(name)])]


def scalar(g):
    ctx = g.ctx()
    dt = g.num_type()
    name = g.fresh("s")
    annot = dt if g.r.random() < 0.3 else None
    e = g.ex.expr(dt, ctx, 3) if annot else val(g, dt, ctx, 3)
    g.tag("scalar_let")
    return [SLet(name, e, annot)], [SPrint([Ref(name)])]


# ---------------------------------------------------------------------------- piecewise
def piecewise(g):
    r = g.r
    dt = g.num_type()
    name = g.fresh("w")
    clauses = []
    if r.random() < 0.6:
        n = r.randint(2, 7)
        cuts = sorted(r.sample(range(1, n), min(n - 1, r.randint(1, 3))))
        segs = list(zip([0] + cuts, cuts + [n]))
        for lo, hi in segs:
            if r.random() < 0.2 and len(clauses) > 0:
                g.tag("piecewise_gap")
                continue
            ctx = g.ctx()
            if hi - lo == 1 and r.random() < 0.6:
                clauses.append(Clause([SlotLit(lo)], val(g, dt, ctx, 2)))
            else:
                i = g.fresh_index()
                ctx.idx[i] = Idx(i, lo, hi, explicit=True)
                clauses.append(Clause([SlotIdx(i, Range(Lit(lo, "i32"), Lit(hi, "i32")))],
                                      val(g, dt, ctx, 2)))
        r.shuffle(clauses) if r.random() < 0.2 else None
        g.tag("piecewise_1d")
    else:
        n, m = r.randint(2, 5), r.randint(2, 5)
        def body(idx):
            ctx = g.ctx()
            for nm, lo, hi in idx:
                ctx.idx[nm] = Idx(nm, lo, hi, explicit=True)
            return val(g, dt, ctx, 2)
        j = g.fresh_index()
        clauses.append(Clause([SlotLit(0), SlotIdx(j, Range(Lit(0, "i32"), Lit(m, "i32")))],
                              body([(j, 0, m)])))
        i = g.fresh_index()
        clauses.append(Clause([SlotIdx(i, Range(Lit(1, "i32"), Lit(n, "i32"))), SlotLit(0)],
                              body([(i, 1, n)])))
        i2, j2 = g.fresh_index(), g.fresh_index()
        if r.random() < 0.8:
            clauses.append(Clause([SlotIdx(i2, Range(Lit(1, "i32"), Lit(n, "i32"))),
                                   SlotIdx(j2, Range(Lit(1, "i32"), Lit(m, "i32")))],
                                  body([(i2, 1, n), (j2, 1, m)])))
        g.tag("piecewise_2d")
    if not clauses:
        return [], []
    return [SDecl(name, clauses, dt=dt)], observe(g, name)


# --------------------------------------------------------------------------- recurrences
def self_reader(g, name, make):
    """A callback for the expression generator: a read of the recurrence's own earlier point."""
    def read(dt):
        if dt != g.cur_dt:
            return None
        g.tag("rec_self_read")
        return make()
    return read


def rec1(g):
    r = g.r
    dt = g.num_type()
    g.cur_dt = dt
    name = g.fresh("h")
    T = r.randint(2, 9)
    K = r.choice([1, 1, 2])
    reverse = r.random() < 0.15 and not (g.deriv and g.bug_on("ad_reverse_recurrence"))
    # One clause whose first point (the last, running backwards) is a branch on the index, as
    # a Python loop writes it: `if t == 0 { x0 } else { .. h[t - 1] .. }` (SPEC 5.5).
    inline = K == 1 and r.random() < 0.3
    clauses = []
    base = None
    for b in range(K):
        pt = T - 1 - b if reverse else b
        base = val(g, dt, g.ctx(), 2)
        if not inline:
            clauses.append(Clause([SlotLit(pt)], base))
    t = g.fresh_index()
    lo, hi = (0, T - K) if reverse else (K, T)
    if inline:
        lo, hi = 0, T
    def make():
        d = r.randint(1, K)
        return Access(name, [Bin("+" if reverse else "-", Ref(t), Lit(d, "i32"))])
    ctx = g.ctx(self_reader(g, name, make))
    ctx.idx[t] = Idx(t, lo, hi, explicit=True)
    body = val(g, dt, ctx, 3)
    if not any(isinstance(x, Access) and x.name == name for x in _walk(body)):
        body = Bin(r.choice("+*"), make(), body)
    if inline:
        body = If(Bin("==", Ref(t), Lit(T - 1 if reverse else 0, "i32")), base, body)
        g.tag("rec1_inline_base")
    clauses.append(Clause([SlotIdx(t, Range(Lit(lo, "i32"), Lit(hi, "i32")))], body))
    # A point past the loop's end, given by its own clause: scheduled before the loop, it must
    # survive a storage window (ein's window once let the loop overwrite it).
    extra = not reverse and not inline and r.random() < 0.15
    if extra:
        clauses.insert(r.randrange(len(clauses) + 1), Clause([SlotLit(T)], val(g, dt, g.ctx(), 2)))
        g.tag("rec_point_after_loop")
    if r.random() < 0.2 and not (g.bug_on("generic_call_on_later_typed_self_read")
                                 and generic_call(body)):
        clauses.reverse()
        g.tag("rec_clauses_reordered")
    g.tag("rec1_reverse" if reverse else "rec1")
    last = 0 if reverse else T - 1
    if extra:
        return [SDecl(name, clauses, dt=dt)], [SPrint([Access(name, [Lit(T, "i32")]),
                                                       Access(name, [Lit(T - 1, "i32")])])]
    return [SDecl(name, clauses, dt=dt)], window(g, name, [last])


def window(g, name, last):
    x = g.r.random()
    if x < 0.45:
        return [SPrint([Ref(name)])]
    if x < 0.9:
        g.tag("rec_window")
        return [SPrint([Access(name, [Lit(v, "i32") for v in last])])]
    return []


def generic_call(e):
    """A call or a block: where ein loses a self-read's type (known bug)."""
    from ir import Block
    return any(isinstance(n, (Call, Block)) for n in _walk(e))


def _walk(e):
    from ir import walk
    return walk(e)


def rec2(g):
    """A grid recurrence (edit-distance shape): first row, first column, interior."""
    r = g.r
    dt = g.num_type()
    g.cur_dt = dt
    name = g.fresh("D")
    N, M = r.randint(2, 6), r.randint(2, 6)
    j, i = g.fresh_index(), g.fresh_index()
    c1 = g.ctx()
    c1.idx[j] = Idx(j, 0, M, explicit=True)
    c2 = g.ctx()
    c2.idx[i] = Idx(i, 1, N, explicit=True)
    i3, j3 = g.fresh_index(), g.fresh_index()
    reads = [(1, 0), (0, 1), (1, 1)]
    def make():
        di, dj = r.choice(reads)
        return Access(name, [Bin("-", Ref(i3), Lit(di, "i32")) if di else Ref(i3),
                             Bin("-", Ref(j3), Lit(dj, "i32")) if dj else Ref(j3)])
    c3 = g.ctx(self_reader(g, name, make))
    c3.idx[i3] = Idx(i3, 1, N, explicit=True)
    c3.idx[j3] = Idx(j3, 1, M, explicit=True)
    body = val(g, dt, c3, 3)
    if not any(isinstance(x, Access) and x.name == name for x in _walk(body)):
        body = Bin(r.choice("+*"), make(), body)
    clauses = [
        Clause([SlotLit(0), SlotIdx(j, Range(Lit(0, "i32"), Lit(M, "i32")))], val(g, dt, c1, 2)),
        Clause([SlotIdx(i, Range(Lit(1, "i32"), Lit(N, "i32"))), SlotLit(0)], val(g, dt, c2, 2)),
        Clause([SlotIdx(i3, Range(Lit(1, "i32"), Lit(N, "i32"))),
                SlotIdx(j3, Range(Lit(1, "i32"), Lit(M, "i32")))], body),
    ]
    g.tag("rec2_grid")
    return [SDecl(name, clauses, dt=dt)], window(g, name, [N - 1, M - 1])


def stencil(g):
    """Time stepping on a line with fixed boundary values: u[t, x] from u[t - 1, x - 1..x + 1]."""
    r = g.r
    dt = g.main if not g.deriv else "f64"
    g.cur_dt = dt
    name = g.fresh("u")
    T, X = r.randint(2, 7), r.randint(3, 7)
    x0 = g.fresh_index()
    c0 = g.ctx()
    c0.idx[x0] = Idx(x0, 0, X, explicit=True)
    clauses = [Clause([SlotLit(0), SlotIdx(x0, Range(Lit(0, "i32"), Lit(X, "i32")))],
                      val(g, dt, c0, 2))]
    for edge in (0, X - 1):
        t = g.fresh_index()
        cb = g.ctx()
        cb.idx[t] = Idx(t, 1, T, explicit=True)
        clauses.append(Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32"))), SlotLit(edge)],
                              val(g, dt, cb, 1)))
    t, x = g.fresh_index(), g.fresh_index()
    def make():
        dx = r.choice([-1, 0, 1])
        xi = Ref(x) if dx == 0 else Bin("+" if dx > 0 else "-", Ref(x), Lit(1, "i32"))
        return Access(name, [Bin("-", Ref(t), Lit(1, "i32")), xi])
    ci = g.ctx(self_reader(g, name, make))
    ci.idx[t] = Idx(t, 1, T, explicit=True)
    ci.idx[x] = Idx(x, 1, X - 1, explicit=True)
    body = val(g, dt, ci, 3)
    if not any(isinstance(e, Access) and e.name == name for e in _walk(body)):
        body = Bin("+", make(), Bin("*", Lit(0.25, dt), Bin("-", make(), make())))
    clauses.append(Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32"))),
                           SlotIdx(x, Range(Lit(1, "i32"), Lit(X - 1, "i32")))], body))
    g.tag("rec2_stencil")
    x = r.random()
    if x < 0.5:
        g.tag("rec_window")
        return [SDecl(name, clauses, dt=dt)], [SPrint([Access(name, [Lit(T - 1, "i32"),
                                                                     Lit(k, "i32")])
                                                       for k in range(X)])]
    return [SDecl(name, clauses, dt=dt)], [SPrint([Ref(name)])]


def state(g):
    """Several fields per time step; the second reads the first at the same step."""
    r = g.r
    dt = g.num_type()
    g.cur_dt = dt
    name = g.fresh("s")
    T = r.randint(2, 7)
    clauses = [Clause([SlotLit(0), SlotLit(0)], val(g, dt, g.ctx(), 1)),
               Clause([SlotLit(0), SlotLit(1)], val(g, dt, g.ctx(), 1))]
    steps = []
    for f in (0, 1):
        t = g.fresh_index()
        def make(t=t, f=f):
            if f == 1 and r.random() < 0.5:
                return Access(name, [Ref(t), Lit(0, "i32")])
            return Access(name, [Bin("-", Ref(t), Lit(1, "i32")), Lit(r.choice([0, 1]), "i32")])
        c = g.ctx(self_reader(g, name, make))
        c.idx[t] = Idx(t, 1, T, explicit=True)
        body = val(g, dt, c, 2)
        body = Bin(r.choice("+*"), make(), body)
        steps.append(Clause([SlotIdx(t, Range(Lit(1, "i32"), Lit(T, "i32"))), SlotLit(f)], body))
    if r.random() < 0.3 and not (g.bug_on("generic_call_on_later_typed_self_read")
                                 and any(generic_call(c.body) for c in steps)):
        steps.reverse()
        g.tag("state_clauses_reordered")
    g.tag("rec_state")
    return [SDecl(name, clauses + steps, dt=dt)], window(g, name, [T - 1, 1])


# ---------------------------------------------------------------------------------- rest
def rest(g):
    r = g.r
    arrs = [(n, d, s) for n, (d, s) in sorted(g.arrays.items())
            if len(s) >= 1 and d != "bool" and all(x > 0 for x in s)]
    if not arrs:
        return [], []
    n, dt, shape = r.choice(arrs)
    rn = g.fresh("r")
    form = r.choice(["map", "map", "contract", "sum"])
    if form == "sum":
        g.tag("rest_reduce")
        name = g.fresh("s")
        op = r.choice(["sum", "max", "min"])
        if g.deriv and len(shape) > 1 and g.bug_on("ad_minmax_several_indices"):
            op = "sum"
        return [SLet(name, Red(op, [Rest(rn)],
                               Access(n, [Rest(rn)])))], [SPrint([Ref(name)])]

    if form == "contract" and len(shape) >= 2:
        k = g.fresh_index()
        c = g.fresh_index()
        wshape = (shape[-1], r.choice(g.extents))
        wname = g.fresh("v")
        data = [[g.value(dt) for _ in range(wshape[1])] for _ in range(wshape[0])]
        w = SInput(wname, dt, wshape, data)
        body = Red("sum", [RIdx(k)], Bin("*", Access(n, [Rest(rn), Ref(k)]),
                                         Access(wname, [Ref(k), Ref(c)])))
        name = g.fresh("y")
        g.tag("rest_contract")
        return [w, SDecl(name, [Clause([Rest(rn), SlotIdx(c)], body)], dt=dt)], observe(g, name)
    ctx = g.ctx()
    other = [m for m, (d, s) in g.arrays.items() if d == dt and s == shape and m != n]
    rhs = Access(other[0], [Rest(rn)]) if other and r.random() < 0.5 else val(g, dt, ctx, 1)
    body = Bin(r.choice("+-*"), Access(n, [Rest(rn)]), rhs)
    name = g.fresh("y")
    g.tag("rest_map")
    return [SDecl(name, [Clause([Rest(rn)], body)], dt=dt)], observe(g, name)


# ----------------------------------------------------------------------------- functions
def fn(g):
    dt = g.num_type()
    f, info = g.fns_gen.define(dt)
    g.fns.append(info)
    call = g.ex.fix(g.fns_gen.call(dt, g.ctx(), 2), dt)   # a statement's value (see val)
    name = g.fresh("s")
    return [f, SLet(name, call)], [SPrint([Ref(name)])]


# ----------------------------------------------------------------------------- whole arrays
def whole(g):
    r = g.r
    arrs = [(n, d, s) for n, (d, s) in sorted(g.arrays.items())
            if len(s) >= 1 and d in ("f32", "f64", "i32", "i64")]
    if not arrs:
        return [], []
    n, dt, shape = r.choice(arrs)
    name = g.fresh("y")
    form = r.choice(["binop", "scalar", "math", "builtin", "neg", "cast"])
    if form == "cast" and g.bug_on("cast_whole_array"):
        form = "binop"
    if form == "builtin" and g.deriv and g.bug_on("ad_builtin_reduction"):
        form = "binop"
    if form == "binop":
        same = [m for m, (d, s) in g.arrays.items() if d == dt and s == shape]
        e = Bin(r.choice("+-*"), Ref(n), Ref(r.choice(same)))
    elif form == "scalar":
        sc = [m for m, d in g.scalars.items() if d == dt]
        other = Ref(r.choice(sc)) if sc and r.random() < 0.5 else g.ex.lit(dt)
        e = Bin(r.choice("+-*"), Ref(n), other) if r.random() < 0.5 else \
            Bin(r.choice("+-*"), other, Ref(n))
    elif form == "math" and is_float(dt):
        e = Call(f"std::math::{r.choice(['tanh', 'sin', 'abs', 'exp'])}", [Ref(n)])
    elif form == "builtin":
        e = Call(r.choice(["sum", "max", "min", "prod"]), [Ref(n)])
        g.tag("builtin_reduction")
    elif form == "cast":
        e = Cast(Ref(n), r.choice([t for t in ("f32", "f64", "i32", "i64") if t != dt]),
                 whole=True)
        g.tag("cast_whole_array")
    else:
        e = Un("-", Ref(n))
    g.tag("whole_array")
    return [SLet(name, e)], [SPrint([Ref(name)])]


# ----------------------------------------------------------------------------- errors
def error(g):
    """A statement the SPEC says must fail: ein must report the same code (and print what
    the reference prints before it). Brings its own 1-D input when it needs one."""
    r = g.r
    forms = ["div0", "range", "empty_max", "no_base", "extents", "cycle"]
    if g.bug_on("point_cycle"):
        forms.remove("cycle")
    if g.bug_on("missing_base"):
        forms.remove("no_base")
    form = r.choice(forms)
    g.tag(f"error_{form}")
    name = g.fresh("e")
    i = g.fresh_index()
    fdt = g.main
    idt = r.choice(["i32", "i64"])
    def array(dt, n):
        a = SInput(g.fresh("v"), dt, (n,), [g.value(dt) for _ in range(n)])
        return a, a.name
    pre = []
    if form == "no_base":
        body = Bin("*", Access(name, [Bin("-", Ref(i), Lit(1, "i32"))]), Lit(2.0, fdt))
        st = SDecl(name, [Clause([SlotIdx(i, Range(Lit(1, "i32"), Lit(5, "i32")))], body)],
                   dt=fdt)
    elif form == "cycle":      # two points reading each other (SPEC §5.5: E012)
        st = SDecl(name, [Clause([SlotLit(0)], Bin("+", Access(name, [Lit(1, "i32")]),
                                                   Lit(1.0, fdt))),
                          Clause([SlotLit(1)], Bin("*", Access(name, [Lit(0, "i32")]),
                                                   Lit(2.0, fdt)))], dt=fdt)
    elif form == "div0":
        a, n = array(idt, r.randint(1, 5))
        pre.append(a)
        den = Bin("-", Access(n, [Ref(i)]), Access(n, [Ref(i)]))
        st = SDecl(name, [Clause([SlotIdx(i)], Bin(r.choice("/%"), Access(n, [Ref(i)]), den))],
                   dt=idt)
    elif form == "range":
        k = r.randint(1, 5)
        a, n = array(r.choice([fdt, idt]), k)
        pre.append(a)
        st = SDecl(name, [Clause([SlotIdx(i, Range(Lit(0, "i32"), Lit(k + r.randint(1, 2), "i32")))],
                                 Access(n, [Ref(i)]))], dt=a.dt)
    elif form == "empty_max":
        a, n = array(idt, r.randint(1, 5))
        pre.append(a)
        st = SLet(name, Red(r.choice(["max", "min"]), [RIdx(i)], Access(n, [Ref(i)]),
                            [WGuard(Bin(">", Access(n, [Ref(i)]), Lit(1000000, idt)))]))
    else:   # two plain uses of one index with different extents
        k = r.randint(1, 4)
        a, n = array(fdt, k)
        b, m = array(fdt, k + r.randint(1, 2))
        pre += [a, b]
        st = SDecl(name, [Clause([SlotIdx(i)], Bin("+", Access(n, [Ref(i)]),
                                                   Access(m, [Ref(i)])))], dt=fdt)
    return pre + [st], [SPrint([Ref(name)])]


# ------------------------------------------------------------------------- comprehensions
def comprehension(g):
    """`let c = [body | i in 0..n, x in arr, guard, z = .., i in 2..4];` (SPEC §4): generators
    nest left to right; `i in lo..hi` of a bound `i` is a membership guard."""
    from ir import CGen, CMember, Comp
    r = g.r
    ctx = g.ctx()
    items = []
    ranges = []
    for _ in range(r.randint(1, 2)):
        name = g.fresh("c")
        arrs = [n for n, (d, s) in sorted(g.arrays.items())
                if len(s) == 1 and d in ("f32", "f64", "i32", "i64")]
        if arrs and r.random() < 0.35:
            a = r.choice(arrs)
            items.append(CGen(name, a))
            ctx.vars[name] = g.arrays[a][0]
            g.tag("comp_over_array")
        else:
            hi = r.choice(g.extents + [r.randint(0, 7)])
            lo = r.choice([0, 0, 1]) if hi > 1 else 0
            items.append(CGen(name, Range(Lit(lo, "i32"), Lit(hi, "i32"))))
            ctx.idx[name] = Idx(name, lo, hi, explicit=True)
            ranges.append((name, lo, hi))
        if r.random() < 0.35:
            items.append(WGuard(g.ex.condition(ctx, 1)))
            g.tag("comp_guard")
        if ranges and r.random() < 0.15 and not g.bug_on("comp_membership"):
            v, lo, hi = r.choice(ranges)
            a = r.randint(lo, max(lo, hi - 1))
            items.append(CMember(v, Range(Lit(a, "i32"), Lit(a + r.randint(1, 3), "i32"))))
            g.tag("comp_membership")
        if r.random() < 0.2:
            z = g.fresh("z")
            zdt = r.choice([g.main, "i32"])
            items.append(WBind(z, g.reds.binding_value(zdt, ctx, 1)))
            ctx.vars[z] = zdt
            g.tag("comp_bind")
    dt = g.num_type()
    name = g.fresh("c")
    g.tag("comprehension")
    return [SLet(name, Comp(val(g, dt, ctx, 2, items), items))], [SPrint([Ref(name)])]


# ------------------------------------------------------------ functions with local tensors
def fn_local_decl(g):
    """A generic function that declares a tensor from its array parameter and reduces it,
    called with a matching array (specialised per call, SPEC §6)."""
    r = g.r
    arrs = [(n, d, s) for n, (d, s) in sorted(g.arrays.items())
            if 1 <= len(s) <= 2 and d in ("f32", "f64", "i32", "i64") and all(x > 0 for x in s)]
    if not arrs:
        return [], []
    n, dt, shape = r.choice(arrs)
    f, a, k = g.fresh("f"), g.fresh("a"), g.fresh("a")
    loc = g.fresh("l")
    ctx = Ctx(g, {a: (dt, shape)}, {k: dt})
    names, first = g.ex.plain_access(ctx, a, shape)
    body = Bin(r.choice("+-*"), first, g.ex.expr(dt, ctx, 2))
    decl = SDecl(loc, [Clause([SlotIdx(x) for x in names], body)], dt=dt)
    ops = ["sum", "max", "min"]
    if g.deriv and g.bug_on("ad_fn_local_minmax"):
        ops = ["sum"]
    red = Red(r.choice(ops), [RIdx(x) for x in names],
              Access(loc, [Ref(x) for x in names]))
    from ir import Block, Call
    fn = SFn(f, [(a, None), (k, None)], None, Block([decl], red))
    name = g.fresh("s")
    g.tag("fn_local_decl")
    arg = g.ex.generic_arg(g.ex.expr(dt, g.ctx(), 1), dt)
    return [fn, SLet(name, g.ex.fix(Call(f, [Ref(n), arg]), dt))], [SPrint([Ref(name)])]


from gen_rec import rec1_inferred  # noqa: E402,F401  (statement kinds, reached by name)
from gen_local import body_local  # noqa: E402,F401
from gen_call import closure, indexed_call, invariant_call, rec_call  # noqa: E402,F401
