"""Einstein declarations in the reference evaluator (SPEC §5.1-5.5): clause ranges, the
allocation shape, and on-demand evaluation of points (which is what makes recurrences, several
clauses per step and reverse-running recurrences work without any schedule)."""
import refranges
from ir import SlotIdx, SlotLit
from refnum import RefError, Unspecified, zero
import refnum
from refrest import expand_clause


def slot_ranges(ev, name, c, env, single=False):
    slots = [s.name for s in c.slots if isinstance(s, SlotIdx)]
    out = []
    uses = None
    for s in c.slots:
        if isinstance(s, SlotLit):
            out.append((s.value, s.value + 1))
        elif s.rng is not None:
            try:
                out.append(ev.explicit(s.rng, env))
            except Exception as exc:   # a range that reads another slot
                from ref import GenBug
                if not isinstance(exc, GenBug):
                    raise
                out.append(dependent_range(ev, s, c, out, env))
        else:
            if uses is None:
                selfs = []
                uses = refranges.collect_uses([("where", c.where), c.body, c.else_],
                                              ev.shape_fn(env), ev.const_fn(env), set(slots),
                                              skip_name=name, selfs=selfs,
                                              local_shape=lambda d: local_shape(ev, d, env))
                if single:
                    refranges.mark_guarded(uses, selfs)
            level = set(slots) - {s.name}
            out.append(refranges.infer(s.name, uses, level, ev.range_eval(env),
                                       lambda rr, rd: ev.inferred_red(rr, rd, env),
                                       f"declaration `{name}`"))
    return out


class Dependent(tuple):
    """A slot range naming earlier slots of its clause (`j in 0..i + 1`, SPEC §5.2): the tuple
    is the bounding box (the allocation takes the largest end over the earlier slots' values,
    §5.4); `holds(idx)` says whether a point's value of the slot is in its own range there."""


def dependent_range(ev, s, c, out, env):
    import itertools
    from ref import GenBug, IDX, INDEX
    earlier = [(k, x) for k, x in enumerate(c.slots[:len(out)]) if isinstance(x, SlotIdx)]

    def bind(idx):
        local = dict(env)
        for k, x in earlier:
            local[x.name] = (INDEX, idx[k], 0.0)
        local[IDX] = frozenset(x.name for _, x in earlier)
        return local

    def bounds(idx):
        try:
            return ev.explicit(s.rng, bind(idx))
        except GenBug:
            raise Unspecified(f"range of `{s.name}` depends on a later slot")

    los, his = [], []
    for combo in itertools.product(*[range(lo, hi) for lo, hi in out]):
        if all(not isinstance(r, Dependent) or r.holds(combo) for r in out):
            lo, hi = bounds(combo)
            los.append(lo)
            his.append(hi)
    if not his:
        raise Unspecified(f"range of `{s.name}` over an empty domain")
    r = Dependent((min(los), max(his)))
    pos = len(out)
    r.holds = lambda idx: (lambda b: b[0] <= idx[pos] < b[1])(bounds(idx))
    return r


def local_shape(ev, d, env):
    """The allocation shape of a declaration local to a block, when its ranges can be found
    without the enclosing indices' values (else None: ein's nested definitions rule)."""
    from ref import IDX
    idx = env.get(IDX, ())
    env = {k: v for k, v in env.items() if k not in idx}     # no enclosing index values
    try:
        shape = None
        for c in d.clauses:
            c = expand_clause(c, ev.shape_fn(env))
            rs = slot_ranges(ev, d.name, c, env, single=len(d.clauses) == 1)
            shape = shape or [0] * len(rs)
            if len(rs) != len(shape):
                return None
            for a, (lo, hi) in enumerate(rs):
                shape[a] = max(shape[a], hi, 0)
        return tuple(shape) if shape is not None else None
    except Exception:       # its ranges read an enclosing index: per point
        return None


def clause_type(ev, c, env, name, hint, shape=()):
    """The static type of a clause's value (body, and the `else` fallback must agree)."""
    from ref import IDX, INDEX, Tensor
    local = dict(env)
    # self-reads have the definition's type (and its shape: a row read passed to a function)
    local[name] = Tensor(hint, shape)
    names = [x.name for x in c.slots if isinstance(x, SlotIdx)]
    for n in names:
        local[n] = (INDEX, 0, 0.0)
    local[IDX] = frozenset(names)
    for w in c.where:
        if hasattr(w, "name"):
            local[w.name] = (ev.sty(w.e, local), 0, 0.0)
    t = ev.sty(c.body, local)
    if c.else_ is not None and ev.sty(c.else_, local) != t:
        raise RefError("E002", "the `else` value has another type", compile_time=True)
    return t


def eval_decl(ev, s, env=None):
    from ref import Decl, Tensor
    env = ev.g if env is None else env
    clauses = []
    rank = None
    for c in s.clauses:
        c = expand_clause(c, ev.shape_fn(env))
        if rank is None:
            rank = len(c.slots)
        elif rank != len(c.slots):
            raise RefError("E004", "clauses of different rank", compile_time=True)
        clauses.append((c, slot_ranges(ev, s.name, c, env, single=len(s.clauses) == 1)))
    shape = [0] * rank
    for _, rs in clauses:
        for a, (lo, hi) in enumerate(rs):
            shape[a] = max(shape[a], hi, 0)
    types = {clause_type(ev, c, env, s.name, s.dt, tuple(shape)) for c, _ in clauses}
    if len(types) > 1:
        raise RefError("E002", f"clauses of {s.name} have types {sorted(types)}",
                       compile_time=True)
    d = Decl(s.name, getattr(s, "dt", None), shape, clauses)
    d.env = env
    d.t.vals = [None] * len(d.t.vals)
    ev.decls[s.name] = d
    try:
        for p in d.t.points():
            point(ev, d, list(p), fill=True)
    finally:
        del ev.decls[s.name]
    dt = d.dt or d.hint
    if dt is None:
        raise Unspecified("element type of an empty declaration")
    d.t.dt = dt
    d.t.vals = [zero(dt) if v is None else v for v in d.t.vals]
    return d.t


def point(ev, d, idx, fill=False):
    t = d.t
    ev.charge()
    if len(idx) != len(t.shape):
        raise RefError("E004", "wrong number of indices", compile_time=True)
    if any(not 0 <= i < n for i, n in zip(idx, t.shape)):
        if not fill:
            raise Unspecified(f"self-read {idx} outside the allocation {t.shape}")
    k = t.offset(idx)
    st = d.state.get(k)
    if st == "uncovered" and not fill:
        raise RefError("E012", f"{d.name}{idx} is read but no clause covers it",
                       compile_time=True)
    if st == "done":
        return (d.dt, t.vals[k], t.errs[k])
    if st == "busy":
        raise RefError("E012", f"{d.name}{idx} depends on itself", compile_time=True)
    cover = [(c, rs) for c, rs in d.clauses
             if all(lo <= i < hi for i, (lo, hi) in zip(idx, rs)) and
             all(not isinstance(r, Dependent) or r.holds(idx) for r in rs)]
    if len(cover) > 1:
        raise Unspecified(f"clauses overlap at {d.name}{idx}")
    if not cover:
        if not fill:
            raise RefError("E012", f"{d.name}{idx} is read but no clause covers it",
                           compile_time=True)
        d.state[k] = "uncovered"
        return None
    c, _ = cover[0]
    d.state[k] = "busy"
    from ref import EXPL, IDX, INDEX
    local = dict(d.env)
    names = []
    for s, i in zip(c.slots, idx):
        if isinstance(s, SlotIdx):
            local[s.name] = (INDEX, i, 0.0)
            names.append(s.name)
    local[IDX] = frozenset(names)
    local[EXPL] = frozenset(s.name for s in c.slots if isinstance(s, SlotIdx) and s.rng is not None)
    val = None
    for w in c.where:
        if hasattr(w, "name"):
            local[w.name] = ev.ev(w.e, local)
        else:
            g = ev.ev(w.c, local)
            refnum.trace(g[1])
            if not g[1]:
                val = ev.ev(c.else_, local) if c.else_ is not None else "zero"
                break
    if val is None:
        val = ev.ev(c.body, local)
    if val == "zero":
        val = None
    else:
        from ref import Tensor
        if isinstance(val, Tensor):
            raise Unspecified("array-valued Einstein body")
        if d.dt is None:
            d.dt = val[0]
        elif d.dt != val[0]:
            from ref import GenBug
            raise GenBug(f"clauses of {d.name} disagree on the type: {d.dt} vs {val[0]}")
        t.vals[k], t.errs[k] = val[1], val[2]
    d.state[k] = "done"
    return (d.dt or d.hint, t.vals[k] if t.vals[k] is not None else zero(d.dt or d.hint),
            t.errs[k])
