"""Index ranges of the reference evaluator (SPEC §5.2), computed by brute force.

An index without an explicit range takes the largest interval of values, starting at 0 or
above, for which every use stays in bounds for every value of the indices nested inside it.
A use is an array access whose index expression is affine in index variables (where-derived
indices `where p = o + k` are substituted; loop-invariant integers are constants) and mentions
the index with a positive coefficient together with indices nested inside it only: in
`sum[k](s[o + k] * w[k])` the access `s[o + k]` is a use of `o` (k is nested in o) but not of
`k` (o is outer), exactly as SPEC's convolution example `o in 0..len(s) - len(w) + 1` reads.
Two plain uses (`X[i]`, `Y[i]`) of different extents are E004, and so is an index no use
determines.

The search simply tries every candidate value 0..LIMIT and enumerates the nested indices; the
programs are small, and no cleverness means no shared blind spot with a compiler's interval
arithmetic.

An interval the uses narrow to nothing ([lo, hi) with hi <= lo) is empty; a declaration still
allocates max(hi, 0) points on that axis (the same "up to its end" rule as for ranges starting
above 0), which is how ein behaves; SPEC does not say (docs/language.md).
"""
from ir import Access, Bin, Block, Call, CallIdx, Cast, Clause, If, Lit, Red, Ref, Rest, RIdx, SlotIdx, \
    SlotLit, Un, WBind, WGuard, Diff
from refnum import RefError, Unspecified

LIMIT = 80


def affine(e, wl, idxs, consts):
    """{name: coef, 1: const} if `e` is affine in the index names `idxs`, else None.
    `wl` maps where-bound names to their affine forms, `consts(name)` gives loop-invariant ints."""
    if isinstance(e, Lit) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return {1: e.value}
    if isinstance(e, Ref):
        if e.name in wl:
            return dict(wl[e.name]) if wl[e.name] is not None else None
        if e.name in idxs:
            return {e.name: 1}
        c = consts(e.name)
        return None if c is None else {1: c}
    if isinstance(e, Un) and e.op == "-":
        a = affine(e.a, wl, idxs, consts)
        return None if a is None else {k: -v for k, v in a.items()}
    if isinstance(e, Bin) and e.op in "+-*":
        a = affine(e.a, wl, idxs, consts)
        b = affine(e.b, wl, idxs, consts)
        if a is None or b is None:
            return None
        if e.op == "*":
            if set(a) == {1}:
                a, b = b, a
            if set(b) != {1}:
                return None
            return {k: v * b[1] for k, v in a.items()}
        s = 1 if e.op == "+" else -1
        out = dict(a)
        for k, v in b.items():
            out[k] = out.get(k, 0) + s * v
        return out
    return None


class Use:
    """`cond`: the access runs only sometimes (an `if` branch, the right side of `&&`/`||`);
    `lit`: its affine form with literal constants only (no loop-invariant names folded in);
    `side`: -1 when its start does not bound the index, +1 when its end does not (mark_guarded)."""
    __slots__ = ("aff", "extent", "chain", "plain", "node", "cond", "lit", "side")

    def __init__(self, aff, extent, chain, plain, node, cond=False, lit=None):
        self.aff, self.extent, self.chain, self.plain, self.node = aff, extent, chain, plain, node
        self.cond, self.lit, self.side = cond, lit, 0


def collect_uses(roots, shape_of, consts, outer, skip_name=None, selfs=None, local_shape=None):
    """Every affine array access below `roots`. `chain` lists the reduction indices (RIdx, with
    their Red) enclosing the access inside the roots, outermost first; `outer` the names bound
    outside. Accesses of `skip_name` (the declaration's own name: self-reads) do not count; they
    are appended to `selfs` when given (one Use per axis, extent None). A declaration local to
    a block (`{ let v[j] = a[j] * 2.0; v[i] }`) has the shape `local_shape(decl)` gives: known when
    its ranges do not depend on the enclosing indices (ein solves it first, docs/language.md
    "Definitions nested in a body"), else None (its reads bound nothing here)."""
    uses = []
    cond = [False]
    opaque = [False]
    locs = {}

    def walk_cond(e, chain, wl):
        was = cond[0]
        cond[0] = True
        walk(e, chain, wl)
        cond[0] = was

    def opaque_parts(rngs, where, chain, inner, wl, wl2):
        """The ranges (read outside) and where items (inside, their bindings plain values,
        never derived indices) of a construct whose own indices are not this site's."""
        for rng in rngs:
            if rng is not None:
                walk(rng.lo, chain, wl)
                walk(rng.hi, chain, wl)
        for w in where:
            if isinstance(w, WBind):
                walk(w.e, inner, wl2)
                wl2[w.name] = None
            else:
                walk(w.c, inner, wl2)

    def local_decl(d, chain, wl):
        adopt = len(d.clauses) == 1 and all(
            isinstance(sl, SlotLit) or (isinstance(sl, SlotIdx) and sl.rng is not None)
            for sl in d.clauses[0].slots)
        was = opaque[0]
        opaque[0] = True
        for c in d.clauses:
            inner = chain + ([(RIdx(sl.name, sl.rng), None) for sl in c.slots
                              if isinstance(sl, SlotIdx)] if adopt else [])
            wl2 = dict(wl)
            opaque_parts([sl.rng for sl in c.slots if isinstance(sl, SlotIdx)], c.where,
                         chain, inner, wl, wl2)
            walk(c.body, inner, wl2)
            walk(c.else_, inner, wl2)
        opaque[0] = was

    def axis_uses(e, shape, chain, wl):
        """A Use per axis of access `e` (of an array or a call's result) with an affine index."""
        names = set(outer) | {r.name for r, _ in chain}
        for axis, ix in enumerate(e.idx):
            walk(ix, chain, wl)
            if shape is None or axis >= len(shape):
                continue
            a = affine(ix, wl, names, consts)
            if a is not None:
                plain = isinstance(ix, Ref) and ix.name not in wl
                lit = affine(ix, wl, names, lambda n: None)
                uses.append(Use(a, shape[axis], list(chain), plain, e, cond[0], lit))

    def walk(e, chain, wl):
        if e is None:
            return
        if isinstance(e, list):
            for x in e:
                walk(x, chain, wl)
            return
        if isinstance(e, Access):
            shape = shape_of(e.name) if e.name != skip_name else None
            if e.name in locs:
                shape = locs[e.name]
            if any(isinstance(ix, Rest) for ix in e.idx):
                raise TypeError("rest patterns must be expanded first")
            axis_uses(e, shape, chain, wl)
            if e.name == skip_name and selfs is not None:
                names = set(outer) | {r.name for r, _ in chain}
                for ix in e.idx:
                    a = affine(ix, wl, names, lambda n: None)
                    if a is not None:
                        selfs.append(Use(a, None, list(chain), False, e, cond[0], a))
            return
        if isinstance(e, CallIdx):
            # `f(a)[j]`: a plain use bounds j by the result's extent when the call reads
            # nothing bound at the site (shape_of evaluates it without the indices, None
            # otherwise); a call moving with an index bounds nothing.
            walk(e.call, chain, wl)
            axis_uses(e, shape_of(e), chain, wl)
            return
        if isinstance(e, Red) and opaque[0]:
            # a reduction inside a local declaration's body is that declaration's own: its
            # indices are unknown names here (ein solves them with the declaration)
            wl2 = dict(wl)
            opaque_parts([r.rng for r in e.idx], e.where, chain, chain, wl, wl2)
            walk(e.body, chain, wl2)
            return
        if isinstance(e, Red):
            wl2 = dict(wl)
            inner = chain + [(r, e) for r in e.idx]
            names = set(outer) | {r.name for r, _ in inner}
            for r in e.idx:
                if r.rng is not None:
                    walk(r.rng.lo, chain, wl)
                    walk(r.rng.hi, chain, wl)
            for w in e.where:
                if isinstance(w, WBind):
                    walk(w.e, inner, wl2)
                    wl2[w.name] = affine(w.e, wl2, names, consts)
                else:
                    walk(w.c, inner, wl2)
            walk(e.body, inner, wl2)
            return
        if isinstance(e, Block):
            wl2 = dict(wl)
            for item in e.lets:
                if not isinstance(item, tuple):
                    # A local declaration: computed whole at every point, so its reads are uses
                    # here too. With one clause whose slots all have explicit ranges its indices
                    # count as nested in this site (ein adopts them: range_site.cpp
                    # adopt_explicit_slots); otherwise they are unknown names (no use).
                    local_decl(item, chain, wl2)
                    locs[item.name] = local_shape(item) if local_shape else None
                    continue
                n, v = item
                walk(v, chain, wl2)
                wl2[n] = None          # block locals are values, not derived indices
            walk(e.result, chain, wl2)
            return
        if isinstance(e, (Bin,)):
            walk(e.a, chain, wl)
            (walk_cond if e.op in ("&&", "||") else walk)(e.b, chain, wl)
        elif isinstance(e, (Un, Cast)):
            walk(e.a, chain, wl)
        elif isinstance(e, Call):
            walk(e.args, chain, wl)
        elif isinstance(e, If):
            walk(e.c, chain, wl)
            walk_cond(e.a, chain, wl)
            walk_cond(e.b, chain, wl)
        elif isinstance(e, WGuard):
            walk(e.c, chain, wl)
        elif isinstance(e, WBind):
            walk(e.e, chain, wl)

    wl0 = {}
    for r in roots:
        if isinstance(r, tuple) and r[0] == "where":   # clause-level where items, in order
            names = set(outer)
            for w in r[1]:
                if isinstance(w, WBind):
                    walk(w.e, [], wl0)
                    wl0[w.name] = affine(w.e, wl0, names, consts)
                else:
                    walk(w.c, [], wl0)
        else:
            walk(r, [], wl0)
    return uses


def single_offset(u):
    """(index, k) when the access is `i + k` with a literal k != 0, else None."""
    a = u.lit
    if a is None:
        return None
    vs = [k for k in a if k != 1 and a[k] != 0]
    if len(vs) != 1 or a[vs[0]] != 1 or a.get(1, 0) == 0:
        return None
    return vs[0], a[1]


def mark_guarded(uses, selfs):
    """A definition with one clause writes its base case as a branch (`if t == 0 { .. } else
    { .. x[t - 1] .. s[t - 1] .. }`). A read of another array under a branch at an offset in
    the direction of a conditional self-read (`x[t - 1]` going forwards, `x[t + 1]` backwards)
    does not give the index its start (end, backwards); it still bounds the other side, and is
    checked when it runs (docs/language.md, session 16)."""
    direction = {}
    for u in selfs:
        so = single_offset(u) if u.cond else None
        if so is not None:
            direction[so[0]] = direction.get(so[0], 0) | (1 if so[1] < 0 else 2)
    for u in uses:
        so = single_offset(u) if u.cond else None
        if so is None or so[0] not in direction:
            continue
        if so[1] < 0 and direction[so[0]] & 1:
            u.side = -1
        elif so[1] > 0 and direction[so[0]] & 2:
            u.side = 1


def infer(v, uses, level, eval_range, inferred_range, what, fixed=None):
    """The range (lo, hi) of index `v`. `level` are the names bound at v's own level (the other
    slots of a declaration, the other indices of one reduction) besides the ones outside.
    `fixed` gives the current values of outer indices with explicit ranges: a use mentioning
    only those (besides v and indices nested in v) bounds v at those values."""
    fixed = fixed or {}
    mine = []
    plain = {}
    for u in uses:
        coef = u.aff.get(v, 0)
        if coef == 0:
            if not through_inner(u, v):
                continue
            # never a plain use of v; the side of the nested range that does not move with v
            # bounds nothing here (range_site.cpp: ranges::solve's `through`)
            lo_moves, hi_moves = inner_sides(u, v)
            u = Use(u.aff, u.extent, u.chain, False, u.node)
            u.side = -1 if not lo_moves else (1 if not hi_moves else 0)
        others = [k for k in u.aff if k != 1 and k != v and u.aff[k] != 0]
        chain_names = {r.name for r, _ in u.chain}
        if any(k in level for k in others):
            raise Unspecified(f"access mixes `{v}` with an index of the same level")
        outer = [k for k in others if k not in chain_names]
        if any(k not in fixed for k in outer):
            continue            # it mentions an inferred outer index: a use of that one
        if outer:
            aff = {k: c for k, c in u.aff.items() if k not in outer}
            aff[1] = aff.get(1, 0) + sum(u.aff[k] * fixed[k] for k in outer)
            u = Use(aff, u.extent, u.chain, False, u.node)
        if coef < 0:
            raise Unspecified(f"negative coefficient of `{v}`")
        if u.plain:
            plain.setdefault(u.extent, u)
        mine.append(u)
    if len(plain) > 1:
        raise RefError("E004", f"index `{v}` has two different extents {sorted(plain)}",
                       compile_time=True)
    if not mine:
        raise RefError("E004", f"cannot infer the range of `{v}` ({what})", compile_time=True)
    lo, hi = 0, None
    # A read whose end is relaxed stays an end when no other use gives one.
    keep_end = all(u.side == 1 for u in mine)
    for u in mine:
        side = 0 if (u.side == 1 and keep_end) else u.side
        # Candidates beyond the access's own extent (large-extent programs: up to 200).
        lim = max(LIMIT, 2 * u.extent + 8) if isinstance(u.extent, int) else LIMIT
        valid = [c for c in range(-lim, lim) if ok(u, v, c, eval_range, inferred_range, side)]
        if not valid:
            ulo, uhi = 0, 0
        else:
            if valid[-1] == lim - 1 and side != 1:
                raise Unspecified(f"range of `{v}` is unbounded")
            if valid != list(range(valid[0], valid[-1] + 1)):
                raise Unspecified(f"valid values of `{v}` are not an interval")
            ulo, uhi = valid[0], valid[-1] + 1
        if side == -1:
            ulo = 0
        lo = max(lo, ulo)
        if side != 1:
            hi = uhi if hi is None else min(hi, uhi)
    # An empty result keeps its end: a declaration allocates up to it (docs/language.md).
    return (lo, hi)


def through_inner(u, v):
    """Does `u` reach v through a nested index whose explicit range is written in v
    (`c[i] = sum[j in 0..i + 1](x[j])`, a prefix sum)? Then x[j] in bounds for every j bounds i
    (docs/language.md, "Ranges through a nested explicit range"; range_site.cpp
    through_inner_range)."""
    from ir import walk as _walk
    for r, _ in u.chain:
        if r.name in u.aff and u.aff[r.name] != 0 and r.rng is not None:
            if any(isinstance(n, Ref) and n.name == v for n in _walk(r.rng.lo)) or \
                    any(isinstance(n, Ref) and n.name == v for n in _walk(r.rng.hi)):
                return True
    return False


def inner_sides(u, v):
    """(does the smallest access move with v, does the largest) for a use reaching v through
    nested explicit ranges: each nested index contributes the end of its range that gives the
    extreme (the lower end for a positive coefficient)."""
    from ir import walk as _walk

    def names_v(e):
        return any(isinstance(n, Ref) and n.name == v for n in _walk(e))
    lo_moves = hi_moves = False
    for r, _ in u.chain:
        a = u.aff.get(r.name, 0)
        if a == 0 or r.rng is None:
            continue
        small, large = (r.rng.lo, r.rng.hi) if a > 0 else (r.rng.hi, r.rng.lo)
        lo_moves = lo_moves or names_v(small)
        hi_moves = hi_moves or names_v(large)
    return lo_moves, hi_moves


def ok(u, v, c, eval_range, inferred_range, side=0):
    """Is access `u` in bounds at v = c for every value of the indices nested inside v?

    A nested range that is empty at this point (`max[j in 0..i](x[i - 1 + j])` at i = 0) still
    bounds v by its end points, as interval arithmetic does: the smallest access takes the
    lower end of a positive coefficient, the largest its upper end (docs/language.md, "Empty
    nested ranges"). On non-empty ranges this is the same as trying every value."""
    chain = u.chain
    vals = {v: c}

    def rec(depth):
        """(smallest, largest) access over the nested indices from `depth` on."""
        if depth == len(chain):
            x = sum(coef * (1 if k == 1 else vals[k]) for k, coef in u.aff.items())
            return x, x
        r, red = chain[depth]
        if r.rng is None:
            lo, hi = inferred_range(r, red)
        else:
            lo, hi = eval_range(r.rng, vals)
        if hi > lo:
            mn = mx = None
            for x in range(lo, hi):
                vals[r.name] = x
                a, b = rec(depth + 1)
                mn = a if mn is None else min(mn, a)
                mx = b if mx is None else max(mx, b)
            vals.pop(r.name, None)
            return mn, mx
        coef = u.aff.get(r.name, 0)
        small, large = (lo, hi - 1) if coef >= 0 else (hi - 1, lo)
        vals[r.name] = small
        mn = rec(depth + 1)[0]
        vals[r.name] = large
        mx = rec(depth + 1)[1]
        vals.pop(r.name, None)
        return mn, mx
    mn, mx = rec(0)
    return (side == -1 or 0 <= mn) and (side == 1 or mx < u.extent)
