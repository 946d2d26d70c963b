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
from ir import Access, Bin, Block, Call, Cast, Clause, If, Lit, Red, Ref, Rest, RIdx, Un, WBind, \
    WGuard, Diff
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
    __slots__ = ("aff", "extent", "chain", "plain", "node")

    def __init__(self, aff, extent, chain, plain, node):
        self.aff, self.extent, self.chain, self.plain, self.node = aff, extent, chain, plain, node


def collect_uses(roots, shape_of, consts, outer, skip_name=None):
    """Every affine array access below `roots`. `chain` lists the reduction indices (RIdx, with
    their Red) enclosing the access inside the roots, outermost first; `outer` the names bound
    outside. Accesses of `skip_name` (the declaration's own name: self-reads) do not count."""
    uses = []

    def walk(e, chain, wl):
        if e is None:
            return
        if isinstance(e, list):
            for x in e:
                walk(x, chain, wl)
            return
        if isinstance(e, Access):
            shape = shape_of(e.name) if e.name != skip_name else None
            names = set(outer) | {r.name for r, _ in chain}
            for axis, ix in enumerate(e.idx):
                if isinstance(ix, Rest):
                    raise TypeError("rest patterns must be expanded first")
                walk(ix, chain, wl)
                if shape is None or axis >= len(shape):
                    continue
                a = affine(ix, wl, names, consts)
                if a is not None:
                    plain = isinstance(ix, Ref) and ix.name not in wl
                    uses.append(Use(a, shape[axis], list(chain), plain, e))
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
                    continue           # a local declaration: its own indices, its own uses
                n, v = item
                walk(v, chain, wl2)
                wl2[n] = None          # block locals are values, not derived indices
            walk(e.result, chain, wl2)
            return
        if isinstance(e, (Bin,)):
            walk(e.a, chain, wl)
            walk(e.b, chain, wl)
        elif isinstance(e, (Un, Cast)):
            walk(e.a, chain, wl)
        elif isinstance(e, Call):
            walk(e.args, chain, wl)
        elif isinstance(e, If):
            walk(e.c, chain, wl)
            walk(e.a, chain, wl)
            walk(e.b, chain, wl)
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
            continue
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
    for u in mine:
        valid = [c for c in range(-LIMIT, LIMIT) if ok(u, v, c, eval_range, inferred_range)]
        if not valid:
            ulo, uhi = 0, 0
        else:
            if valid[-1] == LIMIT - 1:
                raise Unspecified(f"range of `{v}` is unbounded")
            if valid != list(range(valid[0], valid[-1] + 1)):
                raise Unspecified(f"valid values of `{v}` are not an interval")
            ulo, uhi = valid[0], valid[-1] + 1
        lo = max(lo, ulo)
        hi = uhi if hi is None else min(hi, uhi)
    # An empty result keeps its end: a declaration allocates up to it (docs/language.md).
    return (lo, hi)


def ok(u, v, c, eval_range, inferred_range):
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
    return 0 <= mn and mx < u.extent
