"""Calls in the reference evaluator: lambda values (closures capture their scope by value,
SPEC §4), rows of arrays passed to functions (`F(M[i])`, `F(R[t - 1])`), and the extent of a
call's result where it bounds an index (`f(a)[j]`, SPEC §5.2)."""
import math

from ir import Access, Call, Lambda, Ref, SFn
from refnum import RefError


def _T():
    from ref import Tensor
    return Tensor


class Closure:
    """A lambda's value: its parameters, body and the scope it captured (by value, SPEC §4)."""
    __slots__ = ("params", "body", "env")

    def __init__(self, params, body, env):
        self.params, self.body, self.env = params, body, env


def sub_tensor(t, idx):
    """`t[i]`, `t[i, j]` with fewer indices than axes: the row (block) they select."""
    k = len(idx)
    off = 0
    for i, n in zip(idx, t.shape):
        if not 0 <= i < n:
            raise RefError("E005", f"index {idx} out of bounds for shape {t.shape}")
        off = off * n + i
    inner = t.shape[k:]
    m = math.prod(inner)
    return _T()(t.dt, inner, t.vals[off * m:(off + 1) * m], t.errs[off * m:(off + 1) * m])


def call_shape(ev, e, env):
    """The shape of `e.call`'s result when it reads nothing bound at the site (no index
    variable, no where or block local of the site): then it bounds the indices of e."""
    from ir import walk as _walk
    from ref import EXPL, IDX, GenBug, Tensor
    idx = set(env.get(IDX, ())) | set(env.get(EXPL, ()))
    local = {k: v for k, v in env.items() if k not in idx and k not in (IDX, EXPL)}
    names = {n.name for n in _walk(e.call) if isinstance(n, (Ref, Access))} | \
        {n.fn for n in _walk(e.call) if isinstance(n, Call)}
    if any(n in idx for n in names):
        return None
    try:
        v = ev.ev(e.call, local)
    except GenBug:
        return None
    return v.shape if isinstance(v, Tensor) else None


def closure_valued(ev, e, env):
    """The closure `e` gives, when it is a lambda or a call of a user function whose body
    is one (what the generator writes), else None; for typing only."""
    if isinstance(e, Lambda):
        return Closure(e.params, e.body, dict(env))
    f = ev.g.get(e.fn) if isinstance(e, Call) else None
    if isinstance(f, SFn) and isinstance(f.body, Lambda):
        local = dict(ev.g)
        for (pn, _), a in zip(f.params, e.args):
            local[pn] = (ev.sty(a, env), 0, 0.0)
        return Closure(f.body.params, f.body.body, local)
    return None

