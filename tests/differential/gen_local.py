"""Arrays declared inside a body (docs/language.md "Definitions nested in a body"):

    let T[i] = { let v[j] = a[j] * 2.0; v[i] + sum[j2](v[j2]) };
    let s = sum[k]({ let v[j] = a[j] - 1.0; v[k] });
    let T[i, c] = { let v[j in 0..i + 1] = a[j]; sum[j2](v[j2]) * b[i, c] };

The local array is one per point of the enclosing declaration or reduction. Its reads bound the
enclosing index when its extent is the same at every point (its ranges do not read the
enclosing indices), and bound a reduction that runs after it in the block either way. The
reference finds the local's shape with the enclosing indices unknown (refdecl.local_shape)."""
from gen_expr import Idx
from gen_stmt import observe
from ir import (Access, Bin, Block, Cast, Clause, Lit, Range, Red, Ref, RIdx, SDecl, SLet, SlotIdx,
                SPrint)


def _local(g, dt, outer):
    """`let v[j..] = a[j..] op e` over a random array; `outer`: enclosing index names its
    value may mention (never in an index position)."""
    r = g.r
    arrs = [(n, d, s) for n, (d, s) in sorted(g.arrays.items())
            if 1 <= len(s) <= 2 and d == dt and all(x > 0 for x in s)]
    if not arrs:
        return None
    a, _, shape = r.choice(arrs)
    v = g.fresh("v")
    names = [g.fresh_index() for _ in shape]
    ctx = g.ctx()
    for x, n in zip(names, shape):
        ctx.idx[x] = Idx(x, 0, n, plain=n)
        ctx.idx[x].det = True
    body = Bin(r.choice("+-*"), Access(a, [Ref(x) for x in names]), g.ex.expr(dt, ctx, 1))
    if outer and r.random() < 0.5:
        body = Bin(r.choice("+*"), body, Cast(Ref(r.choice(outer)), dt))
        g.tag("local_decl_reads_outer_value")
    slots = [SlotIdx(x) for x in names]
    moving = False
    if outer and len(shape) == 1 and r.random() < 0.25:
        # a range that moves with the enclosing index: bounds nothing outside, per point
        o = r.choice(outer)
        slots = [SlotIdx(names[0], Range(Lit(0, "i32"), Bin("+", Ref(o), Lit(1, "i32"))))]
        moving = True
        g.tag("local_decl_moving_range")
    return SDecl(v, [Clause(slots, body)], dt=dt), v, shape, moving


def _sum_all(g, v, shape):
    ks = [g.fresh_index() for _ in shape]
    return Red(g.r.choice(["sum", "max", "min"]), [RIdx(k) for k in ks],
               Access(v, [Ref(k) for k in ks]))


def body_local(g):
    r = g.r
    dt = g.main if g.deriv else g.num_type()
    if dt not in ("f32", "f64", "i32", "i64"):
        return [], []
    g.cur_dt = dt
    if r.random() < 0.3:
        # a reduction whose body declares the array it reads at its own index
        made = _local(g, dt, [])
        if made is None:
            return [], []
        decl, v, shape, _ = made
        ks = [g.fresh_index() for _ in shape]
        red = Red(r.choice(["sum", "max", "min"]), [RIdx(k) for k in ks],
                  Block([decl], Access(v, [Ref(k) for k in ks])))
        name = g.fresh("s")
        g.tag("local_decl_in_reduction")
        return [SLet(name, g.ex.fix(red, dt))], [SPrint([Ref(name)])]
    i = g.fresh_index()
    made = _local(g, dt, [i])
    if made is None:
        return [], []
    decl, v, shape, moving = made
    ctx = g.ctx()
    ctx.idx[i] = Idx(i)
    parts = []
    if not moving and r.random() < 0.7:
        # v read at the enclosing index: its extent bounds i
        ix = [Ref(i)] + [Lit(r.randrange(n), "i32") for n in shape[1:]]
        parts.append(Access(v, ix))
        ctx.idx[i].plain, ctx.idx[i].hi, ctx.idx[i].det = shape[0], shape[0], True
        g.tag("local_decl_bounds_outer")
    if r.random() < 0.6 or not parts:
        parts.append(_sum_all(g, v, shape))
        g.tag("local_decl_reduced_after")
    tail = parts[0]
    for p in parts[1:]:
        tail = Bin(r.choice("+-*"), tail, p)
    tail = Bin(r.choice("+-*"), tail, g.ex.expr(dt, ctx, 1))
    slots = [SlotIdx(i)] if ctx.idx[i].det else \
        [SlotIdx(i, Range(Lit(0, "i32"), Lit(r.choice(g.extents), "i32")))]
    name = g.fresh("T")
    g.tag("local_decl_in_body")
    return [SDecl(name, [Clause(slots, g.ex.fix(Block([decl], tail), dt))], dt=dt)], \
        observe(g, name)
