"""Recurrences whose range nobody writes (SPEC §5.2, §5.5): one clause, the base case a branch on
the index, the range inferred from the other arrays the step reads.

    let h[t] = if t == 0 { x[0] } else { 0.5 * h[t - 1] + d[t - 1] };   // t in 0..len(d) + 1

This is how a Python loop becomes Einlang (exclusive prefix sums, DP tables, sweeps that read a
second array one step behind). The read of `d` one step behind sits under the same branch as the
self-read: it bounds only the end (the start, running backwards), is checked when it runs, and
the reference evaluator applies the same rule (refranges.mark_guarded). The branch's literal is
taken from the reference's own range, which the condition does not influence, so ein and the
reference can still disagree on the range and the run shows it."""
import refdecl
from gen_expr import Idx
from gen_stmt import _walk, self_reader, val, window
from refnum import RefError, Unspecified
from ir import Access, Bin, Cast, Clause, If, Lit, Ref, SDecl, SlotIdx


def _vector_reads(g, dt):
    """1-D arrays a step may read, with their element types."""
    return [(n, d) for n, (d, s) in g.arrays.items() if len(s) == 1 and s[0] > 0 and d != "bool"]


def _read(name, adt, dt, idx):
    e = Access(name, [idx])
    return e if adt == dt else Cast(e, dt)


def rec1_inferred(g):
    r = g.r
    dt = g.num_type()
    vecs = _vector_reads(g, dt)
    if not vecs:
        return [], []
    g.cur_dt = dt
    name = g.fresh("h")
    t = g.fresh_index()
    reverse = r.random() < 0.3 and not (g.deriv and g.bug_on("ad_reverse_recurrence"))
    m = r.choice([1, 1, 1, 2])              # points the branch supplies
    sign = "+" if reverse else "-"

    def make():
        return Access(name, [Bin(sign, Ref(t), Lit(r.randint(1, m), "i32"))])
    ctx = g.ctx(self_reader(g, name, make))
    ctx.idx[t] = Idx(t)
    body = val(g, dt, ctx, 3)
    if not any(isinstance(x, Access) and x.name == name for x in _walk(body)):
        body = Bin(r.choice("+*"), make(), body)
    if r.random() < 0.85:
        # the other array one or two steps behind (ahead, backwards), as the loop reads it
        a, adt = r.choice(vecs)
        off = Bin(sign, Ref(t), Lit(r.choice([1, 1, m]), "i32"))
        body = Bin(r.choice("+-*"), body, _read(a, adt, dt, off))
        g.tag("rec_inferred_guarded_read")
    if r.random() < 0.4:
        a, adt = r.choice(vecs)
        body = Bin(r.choice("+-"), body, _read(a, adt, dt, Ref(t)))
        g.tag("rec_inferred_plain_read")
    base = val(g, dt, g.ctx(), 2)
    if r.random() < 0.3:
        a, adt = r.choice(vecs)
        base = Bin("+", base, _read(a, adt, dt, Ref(t)))
    # The range the reference infers; the condition's literal does not take part in it.
    probe = Clause([SlotIdx(t)], If(Bin("==", Ref(t), Lit(0, "i32")), base, body))
    try:
        (lo, hi), = refdecl.slot_ranges(g.ev, name, probe, g.ev.g, single=True)
    except (RefError, Unspecified):
        return [], []           # two plain extents, nothing determines t: drawn again
    if hi - lo < 1:
        return [], []
    if reverse:
        cond = Bin("==", Ref(t), Lit(hi - 1, "i32")) if m == 1 and r.random() < 0.7 else \
            Bin(">=", Ref(t), Lit(hi - m, "i32"))
    else:
        cond = Bin("==", Ref(t), Lit(lo, "i32")) if m == 1 and r.random() < 0.7 else \
            Bin("<", Ref(t), Lit(lo + m, "i32"))
    g.tag("rec1_inferred_reverse" if reverse else "rec1_inferred")
    decl = SDecl(name, [Clause([SlotIdx(t)], If(cond, base, body))], dt=dt)
    return [decl], window(g, name, [lo if reverse else hi - 1])
