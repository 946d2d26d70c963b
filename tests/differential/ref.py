"""The reference evaluator: runs a generated Program (ir.py) the way SPEC describes, one scalar
at a time, and returns what `print` must show. It shares no code with ein.

Einstein declarations are evaluated on demand: a point is computed when it is first read, by the
one clause whose ranges cover it (points no clause covers are 0), so recurrences need no
schedule at all, a cycle is found as a point that is read while it is being computed (E012) and
a self-read of a point no clause covers is E012 (SPEC §5.5). Scalars carry an error bound
(refnum.py).
"""
import itertools
import math

import refcall
from refcall import Closure, sub_tensor
import refranges
from ir import (Access, Bin, Block, Call, CallIdx, CGen, Lambda, CMember, Comp, Cast, Clause, Diff, FLOAT_TYPES,
                If, Lit, Range, Red,
                Ref, Rest, RIdx, SDecl, SFn, SInput, SLet, SPrint, SlotIdx, SlotLit, Un, WBind,
                WGuard, clone)
from refnum import (IllConditioned, RefError, Unspecified, arith, argreduce, cast, compare,
                    mathfn, minmax2, neg, reduce, rnd, wrap, zero)
import literals
import refnum

INDEX = "i32"
# Work (reduction terms and declaration points evaluated) one Evaluator may do: the reference
# is scalar Python, so a statement of a large-extent program (gen.py LARGE_SHARE) that would
# take longer is drawn again, deterministically (counted, never timed).
WORK_LIMIT = 60_000
IDX = "#idx"          # env key: the index variables in scope (their names)
EXPL = "#expl"        # env key: those of them with an explicit range
MATH1 = {"exp", "ln", "sqrt", "tanh", "atan", "sin", "cos", "abs", "floor", "ceil"}


class Tensor:
    __slots__ = ("dt", "shape", "vals", "errs")

    def __init__(self, dt, shape, vals=None, errs=None):
        self.dt, self.shape = dt, tuple(shape)
        n = math.prod(self.shape)
        self.vals = vals if vals is not None else [zero(dt)] * n
        self.errs = errs if errs is not None else [0.0] * n

    def offset(self, idx):
        if len(idx) != len(self.shape):
            raise RefError("E004", "wrong number of indices", compile_time=True)
        off = 0
        for i, n in zip(idx, self.shape):
            if not 0 <= i < n:
                raise RefError("E005", f"index {idx} out of bounds for shape {self.shape}")
            off = off * n + i
        return off

    def points(self):
        return itertools.product(*[range(n) for n in self.shape])

    def nested(self, errs=False):
        src = self.errs if errs else self.vals
        def build(d, off):
            if d == len(self.shape):
                return src[off]
            stride = math.prod(self.shape[d + 1:])
            return [build(d + 1, off + i * stride) for i in range(self.shape[d])]
        return build(0, 0)


def from_nested(dt, shape, data):
    flat = []
    def rec(x, d):
        if d == len(shape):
            flat.append(x)
        else:
            for y in x:
                rec(y, d + 1)
    rec(data, 0)
    vals = [rnd(dt, v) if dt in FLOAT_TYPES else (bool(v) if dt == "bool" else wrap(dt, v))
            for v in flat]
    return Tensor(dt, shape, vals)


class Decl:
    """A declaration being evaluated on demand."""

    def __init__(self, name, hint, shape, clauses):
        self.name, self.dt, self.hint = name, None, hint
        self.t = Tensor(hint, shape)
        self.clauses = clauses          # [(Clause, [(lo, hi)] per axis, env)]
        self.state = {}                 # offset -> "busy" | "done"


class Evaluator:
    def __init__(self, prog, overrides=None):
        self.prog = prog
        self.overrides = overrides or {}
        self.g = {}                     # global bindings
        self.out = []                   # printed lines: [value]
        self.decls = {}                 # name -> Decl under evaluation
        self.range_cache = {}
        self.work = 0

    def charge(self):
        self.work += 1
        if self.work > WORK_LIMIT:
            raise Unspecified("too much work for the reference")

    # ------------------------------------------------------------------------------ programs
    def run(self):
        for s in self.prog.stmts:
            self.stmt(s)
        return self.out

    def stmt(self, s):
        self.precheck(s)
        self.const_bounds(s)
        if isinstance(s, SInput):
            if s.shape == ():
                v = rnd(s.dt, s.data) if s.dt in FLOAT_TYPES else \
                    (bool(s.data) if s.dt == "bool" else wrap(s.dt, s.data))
                val = (s.dt, v, 0.0)
            else:
                val = from_nested(s.dt, s.shape, s.data)
            self.bind(s.name, val)
        elif isinstance(s, SLet):
            val = self.ev(s.e, self.g)
            if s.annot and not isinstance(val, Tensor) and val[0] != s.annot:
                raise GenBug(f"annotation {s.annot} on a {val[0]} value")
            self.bind(s.name, val)
        elif isinstance(s, SDecl):
            self.bind(s.name, self.decl(s))
        elif isinstance(s, SFn):
            self.g[s.name] = s
        elif isinstance(s, SPrint):
            self.out.append([self.ev(a, self.g) for a in s.args])
        elif type(s).__name__ == "SCell":
            pass                    # a cell boundary: one session, the same bindings
        else:
            raise TypeError(s)

    def precheck(self, s):
        """Compile-time checks of every reduction's index ranges (E004), also of reductions
        that the evaluation will never reach (an untaken branch, a guard that is never true).
        Function bodies are checked when they are called, per call (SPEC §6)."""
        if isinstance(s, SLet):
            self.check_reds(s.e, set())
        elif isinstance(s, SPrint):
            for a in s.args:
                self.check_reds(a, set())
        elif isinstance(s, SDecl):
            from refrest import expand_clause
            for c in s.clauses:
                shape_of = self.shape_fn(self.g)
                try:
                    c = expand_clause(c, shape_of)
                except RefError:
                    continue          # reported when the declaration is evaluated
                names = {x.name for x in c.slots if isinstance(x, SlotIdx)}
                expl = frozenset(x.name for x in c.slots if isinstance(x, SlotIdx) and
                                 x.rng is not None)
                for w in c.where:
                    self.check_reds(w.e if isinstance(w, WBind) else w.c, names, expl)
                self.check_reds(c.body, names, expl)
                self.check_reds(c.else_, names, expl)

    def const_bounds(self, s):
        """An access whose indices are all literals and out of bounds is E005 at compile time,
        whether or not it is ever executed (SPEC §4: "or compile time when provable")."""
        from ir import walk as _walk
        if isinstance(s, SFn):
            return
        for node in _walk(s):
            if isinstance(node, Access) and all(isinstance(i, Lit) for i in node.idx):
                arr = self.g.get(node.name)
                if isinstance(arr, Tensor) and len(arr.shape) == len(node.idx):
                    if any(not 0 <= i.value < n for i, n in zip(node.idx, arr.shape)):
                        raise RefError("E005", f"constant index out of bounds in {node.name}",
                                       compile_time=True)

    def check_reds(self, e, names, expl=frozenset()):
        from ir import walk as _walk
        if e is None:
            return
        # locs: arrays declared in enclosing blocks -> (dt, shape), shape None when it moves
        # with an enclosing index (then only the evaluation knows it)
        stack = [(e, frozenset(names), frozenset(expl), {})]

        def static_env(scope, ex, locs):
            env = dict(self.g)
            for n in scope:
                env[n] = (INDEX, 0, 0.0)
            env[IDX] = scope
            env[EXPL] = ex
            for n, (dt, sh) in locs.items():
                env[n] = Tensor(dt or "f32", sh)
            return env
        while stack:
            node, scope, ex, locs = stack.pop()
            if isinstance(node, Red):
                known = {n: v for n, v in locs.items() if v[1] is not None}
                env = static_env(scope, ex, known)
                red = self.expanded_red(node, env)
                if len(known) == len(locs):
                    for r in red.idx:
                        if r.rng is None:
                            self.inferred_red(r, red, env)
                inner = scope | {r.name for r in red.idx}
                ex2 = ex | {r.name for r in red.idx if r.rng is not None}
                for w in red.where:
                    stack.append((w.e if isinstance(w, WBind) else w.c, inner, ex2, locs))
                stack.append((red.body, inner, ex2, locs))
                continue
            if isinstance(node, Block):
                from refdecl import local_shape
                inner_locs = dict(locs)
                for item in node.lets:
                    if isinstance(item, SDecl):
                        for c in item.clauses:
                            own = {x.name for x in c.slots if isinstance(x, SlotIdx)}
                            own_ex = {x.name for x in c.slots
                                      if isinstance(x, SlotIdx) and x.rng is not None}
                            stack.append((c.body, scope | own, ex | own_ex, dict(inner_locs)))
                        known = {n: v for n, v in inner_locs.items() if v[1] is not None}
                        sh = local_shape(self, item, static_env(scope, ex, known))
                        inner_locs[item.name] = (item.dt, sh)
                    else:
                        stack.append((item[1], scope, ex, dict(inner_locs)))
                stack.append((node.result, scope, ex, inner_locs))
                continue
            for child in _children(node):
                stack.append((child, scope, ex, locs))

    def bind(self, name, val):
        if name in self.overrides:
            val = self.overrides[name](val)
        self.g[name] = val

    # --------------------------------------------------------------------------- expressions
    def ev(self, e, env):
        t = type(e)
        if t is Lit:
            if e.dt in FLOAT_TYPES:
                return (e.dt, rnd(e.dt, e.value), 0.0)
            if e.dt == "bool":
                return ("bool", bool(e.value), 0.0)
            lo, hi = refnum.int_limits(e.dt)
            if not lo <= e.value <= hi:
                raise RefError("E002", "literal does not fit", compile_time=True)
            return (e.dt, e.value, 0.0)
        if t is Ref:
            try:
                return env[e.name]
            except KeyError:
                raise GenBug(f"unbound name {e.name}")
        if t is Access:
            return self.access(e, env)
        if t is Bin:
            return self.binary(e, env)
        if t is Un:
            a = self.ev(e.a, env)
            if isinstance(a, Tensor):
                return self.map1(a, lambda s: self.unary(e.op, s))
            return self.unary(e.op, a)
        if t is Cast:
            a = self.ev(literals.cast_operand(e), env)
            if isinstance(a, Tensor):
                if not e.whole:
                    raise GenBug("scalar cast of an array")
                return self.map1(a, lambda s: (e.dt,) + cast(s[0], e.dt, s[1:]))
            return (e.dt,) + cast(a[0], e.dt, a[1:])
        if t is If:
            c = self.ev(e.c, env)
            refnum.trace(c[1])
            return self.ev(e.a if c[1] else e.b, env)
        if t is Block:
            env = dict(env)
            for item in e.lets:
                if isinstance(item, SDecl):
                    from refdecl import eval_decl
                    env[item.name] = eval_decl(self, item, env)
                else:
                    env[item[0]] = self.ev(item[1], env)
            return self.ev(e.result, env)
        if t is Call:
            return self.call(e, env)
        if t is Lambda:
            return Closure(e.params, e.body, dict(env))
        if t is CallIdx:
            v = self.ev(e.call, env)
            if not isinstance(v, Tensor):
                raise GenBug("indexing a scalar call result")
            idx = [self.ev(i, env)[1] for i in e.idx]
            if len(idx) > len(v.shape):
                raise RefError("E004", "too many indices", compile_time=True)
            if len(idx) < len(v.shape):
                return sub_tensor(v, idx)
            k = v.offset(idx)
            return (v.dt, v.vals[k], v.errs[k])
        if t is Red:
            return self.red(e, env)
        if t is Comp:
            return self.comp(e, env)
        raise GenBug(f"cannot evaluate {e!r}")

    def comp(self, e, env):
        """A comprehension: generators nest left to right, guards filter, bindings bind."""
        out = []
        local = dict(env)

        def rec(k):
            if k == len(e.items):
                out.append(self.ev(e.body, local))
                return
            it = e.items[k]
            if isinstance(it, CGen):
                if isinstance(it.over, Range):
                    lo, hi = self.explicit(it.over, local)
                    vals = [(INDEX, x, 0.0) for x in range(lo, hi)]
                    # A generator over a range is an outer index with an explicit range for
                    # the reductions inside: an access `v[c + k]` bounds k at c's current
                    # value (SPEC 5.2's dependent ranges), as in a declaration's body.
                    local[IDX] = local.get(IDX, frozenset()) | {it.name}
                    local[EXPL] = local.get(EXPL, frozenset()) | {it.name}
                else:
                    arr = local[it.over]
                    vals = [(arr.dt, v, er) for v, er in zip(arr.vals, arr.errs)]
                for v in vals:
                    local[it.name] = v
                    rec(k + 1)
            elif isinstance(it, CMember):
                lo, hi = self.explicit(it.rng, local)
                x = local[it.name][1]
                refnum.trace(lo <= x < hi)
                if lo <= x < hi:
                    rec(k + 1)
            elif isinstance(it, WBind):
                local[it.name] = self.ev(it.e, local)
                rec(k + 1)
            else:
                c = self.ev(it.c, local)
                refnum.trace(c[1])
                if c[1]:
                    rec(k + 1)
        rec(0)
        dt = out[0][0] if out else self.comp_dt(e, env)
        return Tensor(dt, (len(out),), [v[1] for v in out], [v[2] for v in out])

    def comp_dt(self, e, env):
        local = dict(env)
        for it in e.items:
            if isinstance(it, CGen):
                local[it.name] = (INDEX, 0, 0.0) if isinstance(it.over, Range) else \
                    (local[it.over].dt, 0, 0.0)
            elif isinstance(it, WBind):
                local[it.name] = (self.sty(it.e, local), 0, 0.0)
        return self.sty(e.body, local)

    def unary(self, op, a):
        dt = a[0]
        if op == "-":
            return (dt,) + neg(dt, a[1:])
        if op == "!":
            return ("bool", not a[1], 0.0)
        raise GenBug(op)

    def map1(self, a, f):
        out = Tensor(a.dt, a.shape)
        for k in range(len(a.vals)):
            r = f((a.dt, a.vals[k], a.errs[k]))
            out.dt = r[0]
            out.vals[k], out.errs[k] = r[1], r[2]
        return out

    def binary(self, e, env):
        op = e.op
        if op in ("&&", "||"):
            a = self.ev(e.a, env)
            if (op == "&&") != bool(a[1]):
                return ("bool", a[1], 0.0)
            return ("bool", self.ev(e.b, env)[1], 0.0)
        a = self.ev(e.a, env)
        b = self.ev(e.b, env)
        if isinstance(a, Tensor) or isinstance(b, Tensor):
            return self.broadcast(op, a, b)
        return self.scalar_bin(op, a, b)

    def scalar_bin(self, op, a, b):
        if op in ("<", "<=", ">", ">=", "==", "!="):
            if a[0] != b[0]:
                raise GenBug(f"comparison of {a[0]} and {b[0]}")
            return ("bool",) + compare(op, a[1:], b[1:])
        if op == "**" and a[0] in FLOAT_TYPES and b[0] not in FLOAT_TYPES:
            return (a[0],) + refnum.fpow(a[0], a[1], a[2], b[1], 0.0, int_exp=True)
        if a[0] != b[0]:
            raise GenBug(f"{a[0]} {op} {b[0]}")
        return (a[0],) + arith(a[0], op, a[1:], b[1:])

    def broadcast(self, op, a, b):
        ta = a if isinstance(a, Tensor) else None
        tb = b if isinstance(b, Tensor) else None
        if ta and tb and ta.shape != tb.shape:
            raise RefError("E004", "elementwise shapes differ", compile_time=True)
        shape = (ta or tb).shape
        out = None
        n = math.prod(shape)
        for k in range(n):
            x = (ta.dt, ta.vals[k], ta.errs[k]) if ta else a
            y = (tb.dt, tb.vals[k], tb.errs[k]) if tb else b
            r = self.scalar_bin(op, x, y)
            if out is None:
                out = Tensor(r[0], shape)
            out.vals[k], out.errs[k] = r[1], r[2]
        return out if out is not None else Tensor((ta or tb).dt, shape)

    def access(self, e, env):
        if e.name in self.decls and e.name not in env:
            d = self.decls[e.name]
            idx = [self.ev(i, env)[1] for i in e.idx]
            shape = d.t.shape
            if len(idx) < len(shape):         # a row of a declaration: every point of it
                rows = list(itertools.product(*[range(n) for n in shape[len(idx):]]))
                if any(not 0 <= i < n for i, n in zip(idx, shape)):
                    raise RefError("E005", f"row {idx} out of bounds for shape {shape}")
                pts = [self.point(d, idx + list(rw)) for rw in rows]
                dt = pts[0][0] if pts else (d.dt or d.hint)
                return Tensor(dt, shape[len(idx):], [p[1] for p in pts], [p[2] for p in pts])
            return self.point(d, idx)
        arr = env.get(e.name)
        if not isinstance(arr, Tensor):
            raise GenBug(f"{e.name} is not an array")
        idx = [self.ev(i, env)[1] for i in e.idx]
        if len(idx) < len(arr.shape):
            return sub_tensor(arr, idx)
        k = arr.offset(idx)
        return (arr.dt, arr.vals[k], arr.errs[k])

    def call(self, e, env):
        name = e.fn
        args = [self.ev(a, env) for a in e.args]
        if name.startswith("std::math::"):
            fn = name.rsplit("::", 1)[1]
            if fn in ("min", "max"):
                return (args[0][0],) + minmax2(args[0][0], fn, args[0][1:], args[1][1:])
            if isinstance(args[0], Tensor):
                return self.map1(args[0], lambda s: (s[0],) + mathfn(s[0], fn, s[1:]))
            return (args[0][0],) + mathfn(args[0][0], fn, args[0][1:])
        if name in ("sum", "prod", "max", "min") and name not in env:
            a = args[0]
            items = list(zip(a.vals, a.errs))
            return (a.dt,) + reduce(a.dt, name, items)
        if name.startswith("std::"):
            import refstd
            return refstd.call(name, args)
        f = env.get(name) or self.g.get(name)
        if isinstance(f, Closure):
            if len(args) != len(f.params):
                raise GenBug("lambda arity")
            local = dict(f.env)
            for pn, v in zip(f.params, args):
                local[pn] = v
            return self.ev(f.body, local)
        if not isinstance(f, SFn):
            raise GenBug(f"{name} is not a function")
        if len(args) != len(f.params):
            raise GenBug("arity")
        local = dict(self.g)
        for (pn, pt), v in zip(f.params, args):
            if pt is not None and (isinstance(v, Tensor) or v[0] != pt):
                raise GenBug(f"argument type of {pn}")
            local[pn] = v
        r = self.ev(f.body, local)
        if f.ret and (isinstance(r, Tensor) or r[0] != f.ret):
            raise GenBug("return type")
        return r

    # ---------------------------------------------------------------------------- reductions
    def red(self, e, env):
        e = self.expanded_red(e, env)
        ranges = self.red_ranges(e, env)
        items = []
        local = dict(env)
        local[IDX] = env.get(IDX, frozenset()) | {r.name for r in e.idx}
        local[EXPL] = env.get(EXPL, frozenset()) | {r.name for r in e.idx if r.rng is not None}

        def rec(d, coords):
            if d == len(e.idx):
                self.charge()
                for w in e.where:
                    if isinstance(w, WBind):
                        local[w.name] = self.ev(w.e, local)
                    else:
                        c = self.ev(w.c, local)
                        refnum.trace(c[1])
                        if not c[1]:
                            return
                v = self.ev(e.body, local)
                items.append((tuple(coords), v))
                return
            r = e.idx[d]
            lo, hi = ranges[d] if ranges[d] is not None else self.explicit(r.rng, local)
            for x in range(lo, hi):
                local[r.name] = (INDEX, x, 0.0)
                rec(d + 1, coords + [x])
        rec(0, [])
        if e.op in ("argmax", "argmin"):
            if len(e.idx) != 1:
                raise Unspecified("argmax over several indices")
            return (INDEX,) + argreduce(e.op, [(c[0], v[1:]) for c, v in items])
        if e.op in ("all", "any"):
            return ("bool",) + reduce("bool", e.op, [v[1:] for _, v in items])
        dt = items[0][1][0] if items else self.static_dt(e.body, env, e)
        return (dt,) + reduce(dt, e.op, [v[1:] for _, v in items])

    def static_dt(self, body, env, red):
        """Type of a reduction body that is never evaluated (empty domain)."""
        local = dict(env)
        for r in red.idx:
            local[r.name] = (INDEX, 0, 0.0)
        for w in red.where:
            if isinstance(w, WBind):
                local[w.name] = (self.sty(w.e, local), 0, 0.0)
        return self.sty(body, local)

    def sty(self, e, env):
        """The static type of a scalar expression (SPEC §3), without evaluating it."""
        t = type(e)
        if t is Lit:
            return e.dt
        if t is Ref:
            v = env.get(e.name)
            if isinstance(v, tuple):
                return v[0]
            raise GenBug(f"type of {e.name}")
        if t is Access:
            if e.name in self.decls and e.name not in env:
                return self.decls[e.name].dt or self.decls[e.name].hint
            v = env.get(e.name)
            if isinstance(v, Tensor):
                return v.dt
            raise GenBug(f"type of {e.name}[..]")
        if t is Bin:
            if e.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return "bool"
            return self.sty(e.a, env)
        if t is Un:
            return "bool" if e.op == "!" else self.sty(e.a, env)
        if t is Cast:
            return e.dt
        if t is If:
            return self.sty(e.a, env)
        if t is Block:
            env = dict(env)
            for item in e.lets:
                if isinstance(item, SDecl):
                    env[item.name] = Tensor(item.dt, ())
                elif isinstance(item[1], (Lambda, Call)) and self.closure_valued(item[1], env):
                    # `let L = |u| ..;` or `let L = make(c);`: a closure, typed when called
                    env[item[0]] = self.closure_valued(item[1], env)
                else:
                    env[item[0]] = (self.sty(item[1], env), 0, 0.0)
            return self.sty(e.result, env)
        if t is Red:
            if e.op in ("all", "any"):
                return "bool"
            if e.op in ("argmax", "argmin"):
                return INDEX
            return self.static_dt(e.body, env, e)
        if t is CallIdx:
            try:
                return self.ev(e.call, env).dt
            except (RefError, Unspecified, IllConditioned, GenBug, ArithmeticError):
                # typing only (placeholder values): the element type of the array argument,
                # which every array-valued call the generator writes keeps (argmax: i32)
                if e.call.fn == "std::array::argmax":
                    return INDEX
                return self.sty(Access(e.call.args[0].name, []), env) \
                    if isinstance(e.call.args[0], (Ref, Access)) else self.sty(e.call.args[0], env)
        if t is Call:
            if e.fn.startswith("std::array::argmax"):
                return INDEX
            if e.fn.startswith("std::"):
                a = e.args[0]          # typing only: never evaluate (placeholder indices)
                if isinstance(a, Ref) and isinstance(env.get(a.name), Tensor):
                    return env[a.name].dt
                return self.sty(a, env)
            f0 = env.get(e.fn) or self.g.get(e.fn)
            if isinstance(f0, Closure):
                local = dict(f0.env)
                for pn, a in zip(f0.params, e.args):
                    local[pn] = (self.sty(a, env), 0, 0.0)
                return self.sty(f0.body, local)
            if e.fn in ("sum", "prod", "max", "min") and e.fn not in env:
                return self.ev(e.args[0], env).dt
            f = env.get(e.fn) or self.g.get(e.fn)
            if f.ret:
                return f.ret
            local = dict(self.g)
            for (pn, pt), a in zip(f.params, e.args):
                v = None
                if pt is None and isinstance(a, Lambda):
                    v = Closure(a.params, a.body, dict(env))
                elif pt is None and isinstance(a, (Ref, Access)):
                    arr = env.get(a.name)
                    if isinstance(arr, (Tensor, Closure)) and isinstance(a, Ref):
                        v = arr
                    elif isinstance(a, Access):
                        if a.name in self.decls and a.name not in env:
                            arr = self.decls[a.name].t
                        if isinstance(arr, Tensor) and len(a.idx) < len(arr.shape):
                            # a row, typed without reading it (placeholder values)
                            v = Tensor(arr.dt, arr.shape[len(a.idx):])
                elif pt is None and isinstance(a, CallIdx):
                    try:
                        v = self.ev(a, env)
                    except (RefError, Unspecified, IllConditioned, GenBug, ArithmeticError):
                        v = None
                    if not isinstance(v, (Tensor, Closure)):
                        v = None
                local[pn] = v if v is not None else (pt or self.sty(a, env), 0, 0.0)
            return self.sty(f.body, local)
        raise GenBug(f"type of {e!r}")

    def explicit(self, rng, env):
        lo = self.ev(rng.lo, env)[1]
        hi = self.ev(rng.hi, env)[1]
        return (lo, hi + 1 if rng.inclusive else hi)

    def red_ranges(self, e, env):
        """Inferred ranges of the reduction's indices (None where the range is explicit)."""
        out = []
        for r in e.idx:
            out.append(None if r.rng is not None else self.inferred_red(r, e, env))
        return out

    def inferred_red(self, r, red, env):
        # Outer indices with explicit ranges are known before this one: a use mentioning them
        # bounds it at their current values (a dependent range, SPEC §5.2).
        fixed = {n: env[n][1] for n in sorted(env.get(EXPL, ())) if n in env}
        key = (id(red), r.name, self.shape_key(env), tuple(sorted(fixed.items())))
        if key not in self.range_cache:
            outer = set(self.index_names(env)) | {x.name for x in red.idx}
            level = {x.name for x in red.idx if x.name != r.name}
            # ("where", ...): its bindings are derived indices of the body's accesses
            # (`y[q, p] where p = n + q` bounds q), not only expressions to search.
            from refdecl import local_shape
            uses = refranges.collect_uses([("where", red.where), red.body], self.shape_fn(env),
                                          self.const_fn(env), outer,
                                          local_shape=lambda d: local_shape(self, d, env))
            self.range_cache[key] = refranges.infer(
                r.name, uses, level, self.range_eval(env),
                lambda rr, rd: self.inferred_red(rr, rd, env), f"reduction `{red.op}`", fixed)
        return self.range_cache[key]

    def shape_key(self, env):
        """What an inferred range may depend on: the extents of arrays and loop-invariant
        integers in scope (a function body is evaluated with other arguments per call)."""
        idx = env.get(IDX, ())
        return tuple(sorted((n, v.shape if isinstance(v, Tensor) else v[1])
                            for n, v in env.items()
                            if isinstance(v, Tensor) or (isinstance(v, tuple) and
                                                         v[0] in refnum.BITS and n not in idx)))

    def index_names(self, env):
        return env.get(IDX, frozenset())

    def call_shape(self, e, env):
        return refcall.call_shape(self, e, env)

    def closure_valued(self, e, env):
        return refcall.closure_valued(self, e, env)

    def shape_fn(self, env):
        def shape_of(name):
            if isinstance(name, CallIdx):
                return self.call_shape(name, env)
            v = env.get(name)
            if isinstance(v, Tensor):
                return v.shape
            if name in self.decls:
                return self.decls[name].t.shape
            return None
        return shape_of

    def const_fn(self, env):
        def const(name):
            # Loop-invariant integers: global bindings (locals are not used as strides).
            v = self.g.get(name)
            if isinstance(v, tuple) and v[0] in refnum.BITS and name not in env.get(IDX, ()):
                return v[1]
            return None
        return const

    def range_eval(self, env):
        def ev_range(rng, vals):
            idx = env.get(IDX, frozenset())
            local = {k: v for k, v in env.items() if k not in idx}
            local[IDX] = frozenset(vals)
            for k in env.get(EXPL, ()):     # outer indices with explicit ranges have values
                if k in env:
                    local[k] = env[k]
            for k, x in vals.items():
                local[k] = (INDEX, x, 0.0)
            try:
                return self.explicit(rng, local)
            except GenBug:
                raise Unspecified("a nested range depends on an index outside the one inferred")
        return ev_range

    # ------------------------------------------------------------------------------- rest
    def expanded_red(self, e, env):
        if not any(isinstance(i, Rest) for i in e.idx):
            return e
        key = ("rest", id(e), self.shape_key(env))
        if key not in self.range_cache:
            from refrest import expand_red
            self.range_cache[key] = expand_red(e, self.shape_fn(env))
        return self.range_cache[key]

    # ------------------------------------------------------------------------ declarations
    def decl(self, s):
        from refdecl import eval_decl
        return eval_decl(self, s)

    def point(self, d, idx):
        from refdecl import point
        return point(self, d, idx)


def _children(node):
    import dataclasses
    if isinstance(node, list):
        return [x for x in node if x is not None]
    if isinstance(node, tuple):
        return [x for x in node if dataclasses.is_dataclass(x)]
    if not dataclasses.is_dataclass(node):
        return []
    out = []
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if dataclasses.is_dataclass(v) or isinstance(v, (list, tuple)):
            out.append(v)
    return out


class GenBug(Exception):
    """The generator produced something outside its own contract (a bug in this test tool)."""


def evaluate(prog, overrides=None):
    return Evaluator(prog, overrides).run()
