"""Random typed expressions for the generator (gen.py).

An expression is drawn for a requested scalar type inside a context (Ctx) that knows the
arrays, scalars, locals and index variables in scope. Array accesses are built axis by axis
from the index variables so that ranges stay inferable: an index used plainly on an axis takes
that axis' extent (two plain uses of one index always agree, SPEC §5.2's E004 rule), other axes
get constant offsets (`i + 1`, `i - 2`) that narrow it, or literals. Every construct is chosen
with a weight from W (documented in docs/testing.md).
"""
from ir import (Access, Bin, Block, Call, Cast, If, Lit, Range, Red, Ref, RIdx, Un, WBind, WGuard,
                is_float, is_int)

FLOATS = ("f32", "f64")
INTS = ("i32", "i64")
MATH = ["exp", "tanh", "sin", "cos", "sqrt", "ln", "atan", "abs", "floor"]

# Relative weights of expression forms (numeric types); see docs/testing.md.
W = {
    "access": 6, "scalar": 1, "literal": 2, "index": 1,
    "arith": 6, "div": 1, "neg": 1, "math": 2, "minmax": 1, "pow": 1,
    "if": 1, "cast": 1, "red": 2, "block": 1, "call": 1,
}


from literals import DEFAULT_TYPES
import literals


class Idx:
    """An index variable in scope. lo/hi: the interval the generator believes it will have;
    plain: the extent of its plain uses; det: some access determines it; explicit: a range was
    written (never narrowed, SPEC §5.2)."""

    def __init__(self, name, lo=0, hi=None, explicit=False, plain=None):
        self.name, self.lo, self.hi = name, lo, hi
        self.explicit, self.plain = explicit, plain
        self.det = explicit
        self.reserved = False     # known bug plain_and_inner_offset_use (known_bugs.py)


class Ctx:
    def __init__(self, gen, arrays, scalars, self_decl=None):
        self.gen = gen
        self.arrays = dict(arrays)      # name -> (dt, shape)
        self.vars = dict(scalars)       # name -> dt (scalars, locals, parameters)
        self.idx = {}                   # name -> Idx
        self.self_decl = self_decl      # recurrence: callable(dt) -> self-read Expr or None
        self.reds = 0                   # reduction nesting

    def child(self):
        c = Ctx.__new__(Ctx)
        c.gen, c.arrays, c.vars = self.gen, dict(self.arrays), dict(self.vars)
        c.idx, c.self_decl, c.reds = dict(self.idx), self.self_decl, self.reds
        return c


class ExprGen:
    def __init__(self, gen):
        self.g = gen
        self.r = gen.r

    def pick(self, weights):
        keys = [k for k, w in weights.items() if w > 0]
        return self.r.choices(keys, [weights[k] for k in keys])[0]

    # ------------------------------------------------------------------------------- leaves
    def lit(self, dt, ctx_typed=True):
        r = self.r
        if dt == "bool":
            return Lit(r.random() < 0.5, "bool")
        if is_int(dt):
            v = r.choice([0, 1, 2, 3, 5, 7, -1, -3, 10, 100]) if r.random() < 0.9 else \
                r.randint(-1000, 1000)
            return Lit(v, dt)
        if ctx_typed and r.random() < 0.3:
            v = r.choice([0.1, 0.3, 0.7, 1e-3, 2.2, -0.1, 1.1])   # not representable exactly
        else:
            v = r.choice([0.0, 0.5, 1.0, 1.5, 2.0, 0.25, -1.0, -0.5, 3.0, 0.125, 4.0])
        g = self.g
        g.tag("literal_inexact" if v not in (0.0, 0.5, 1.0, 1.5, 2.0, 0.25, -1.0, -0.5, 3.0,
                                             0.125, 4.0) else "literal")
        return Lit(v, dt)

    def index_for_axis(self, n, ctx, prefer=None):
        """An index expression for an axis of extent n."""
        r = self.r
        cands = []
        for v in ctx.idx.values():
            if v.reserved:
                continue
            w_boost = 4 if not v.det else 1
            if prefer is not None and v.name == prefer:
                w_boost = 50
            if v.explicit:
                if v.lo >= 0 and v.hi is not None and v.hi <= n:
                    cands.append((3 * w_boost, v, 0))
                for c in (-2, -1, 1, 2):
                    if v.lo + c >= 0 and v.hi is not None and v.hi - 1 + c <= n - 1:
                        cands.append((w_boost, v, c))
                continue
            if v.plain in (None, n):
                cands.append((3 * w_boost, v, 0))
            for c in (-2, -1, 1, 2):
                lo = max(v.lo, -c, 0)
                hi = n - c if v.hi is None else min(v.hi, n - c)
                if hi - lo >= 1 and (v.plain is None or v.plain != n or c != 0):
                    cands.append((w_boost * (2 if v.plain not in (None, n) else 0.5), v, c))
        if not cands or r.random() < 0.08:
            self.g.tag("index_literal")
            return Lit(r.randrange(n), "i32")
        w, v, c = r.choices(cands, [x[0] for x in cands])[0]
        if not v.explicit:
            if c == 0:
                v.plain = n
                v.hi = n if v.hi is None else min(v.hi, n)
            else:
                v.lo = max(v.lo, -c, 0)
                v.hi = n - c if v.hi is None else min(v.hi, n - c)
                self.g.tag("index_offset")
            v.det = True
        if c == 0:
            return Ref(v.name)
        return Bin("+" if c > 0 else "-", Ref(v.name), Lit(abs(c), "i32"))

    def plain_access(self, ctx, name, shape):
        """Fresh indices for every axis of `name` (shape), each used plainly: `name[i, j]`,
        their extents fixed. Returns (index names, the access)."""
        names = [self.g.fresh_index() for _ in shape]
        for x, ext in zip(names, shape):
            ctx.idx[x] = Idx(x, 0, ext, plain=ext)
            ctx.idx[x].det = True
        return names, Access(name, [Ref(x) for x in names])

    def access(self, name, ctx, prefer=None):
        dt, shape = ctx.arrays[name]
        return Access(name, [self.index_for_axis(n, ctx, prefer) for n in shape])

    def arrays_of(self, ctx, dt, min_rank=1):
        return [n for n, (d, s) in ctx.arrays.items() if d == dt and len(s) >= min_rank
                and all(x > 0 for x in s)]

    def leaf(self, dt, ctx):
        r = self.r
        opts = {}
        arrs = self.arrays_of(ctx, dt)
        if arrs:
            opts["access"] = W["access"]
        other = [n for n, (d, s) in ctx.arrays.items() if d != dt and d != "bool" and dt != "bool"
                 and all(x > 0 for x in s)]
        if other:
            opts["cast_access"] = 1
        vs = [n for n, d in ctx.vars.items() if d == dt]
        if vs:
            opts["scalar"] = W["scalar"] * 2
        opts["literal"] = W["literal"]
        if ctx.idx and dt != "bool":
            opts["index"] = W["index"]
        if ctx.self_decl is not None:
            opts["self"] = 6
        k = self.pick(opts)
        if k == "access":
            return self.access(r.choice(arrs), ctx)
        if k == "cast_access":
            self.g.tag("cast")
            return Cast(self.access(r.choice(other), ctx), dt)
        if k == "scalar":
            return Ref(r.choice(vs))
        if k == "index":
            v = r.choice(list(ctx.idx))
            self.g.tag("index_value")
            return Ref(v) if dt == "i32" else Cast(Ref(v), dt)
        if k == "self":
            e = ctx.self_decl(dt)
            if e is not None:
                return e
        return self.lit(dt)

    # --------------------------------------------------------------------- literal typing
    def anchored(self, e):
        return literals.anchored(e, self.annotated)

    def annotated(self, fn):
        info = self.g.fn_info(fn)
        return info is not None and info.annotated

    def fix(self, e, dt, lets=()):
        """`e` in a position where nothing outside types it (a statement's value, a cast's
        operand, a local binding): literals-only expressions of a non-default type get an
        anchor `+ (0 as T)` so that the program means what the generator intends. `lets`: the
        block locals or where-bindings (WBind) `e` may read."""
        lets = [(w.name, w.e) if isinstance(w, WBind) else w for w in lets
                if isinstance(w, (WBind, tuple))]
        if dt in DEFAULT_TYPES or self.anchored(Block(lets, e) if lets else e):
            return e
        self.g.tag("literal_anchor")
        return Bin("+", e, Cast(Lit(0, "i32"), dt))

    # ---------------------------------------------------------------------------- expressions
    def expr(self, dt, ctx, depth):
        if dt == "bool":
            return self.boolean(ctx, depth)
        if depth <= 0 or self.r.random() < 0.25:
            return self.leaf(dt, ctx)
        w = dict(W)
        if not is_float(dt):
            w["math"] = 0
            w["pow"] = 0
        if ctx.reds >= 2:
            w["red"] = 0
        if not self.g.callable_fns(dt):
            w["call"] = 0
        k = self.pick(w)
        r = self.r
        d = depth - 1
        if k in ("access", "scalar", "literal", "index"):
            return self.leaf(dt, ctx)
        if k == "arith":
            return Bin(r.choice("+-*"), self.expr(dt, ctx, d), self.expr(dt, ctx, d))
        if k == "div":
            self.g.tag("int_divrem" if is_int(dt) else "float_div")
            op = r.choice("/%") if is_int(dt) else "/"
            den = self.expr(dt, ctx, d) if r.random() < 0.5 else self.nonzero_lit(dt)
            return Bin(op, self.expr(dt, ctx, d), den)
        if k == "neg":
            return Un("-", self.expr(dt, ctx, d))
        if k == "math":
            return self.math(dt, ctx, d)
        if k == "minmax":
            self.g.tag("minmax2")
            return Call(f"std::math::{r.choice(['min', 'max'])}",
                        [self.generic_arg(self.expr(dt, ctx, d), dt),
                         self.generic_arg(self.expr(dt, ctx, d), dt)])
        if k == "pow":
            self.g.tag("pow")
            if r.random() < 0.6:
                exps = [2, 3, 0, 1]
                if self.g.deriv and self.g.bug_on("ad_pow_zero"):
                    exps = [2, 3, 1]
                return Bin("**", self.expr(dt, ctx, d), Lit(r.choice(exps), "i32"))
            base = Bin("+", Call("std::math::abs", [self.generic_arg(self.expr(dt, ctx, d), dt)]),
                       Lit(0.5, dt))
            return Bin("**", base, Lit(r.choice([0.5, 1.5, -0.5, 2.0]), dt))
        if k == "if":
            self.g.tag("if")
            a, b = self.expr(dt, ctx, d), self.expr(dt, ctx, d)
            if self.g.bug_on("const_if_typing"):
                a, b = self.fix(a, dt), self.fix(b, dt)
            return If(self.condition(ctx, d), a, b)
        if k == "cast":
            return self.cast_from(dt, ctx, d)
        if k == "red":
            return self.g.reds.reduction(dt, ctx, d)
        if k == "block":
            self.g.tag("block")
            name = self.g.fresh("b")
            v = self.r.choice([dt, dt, self.other_numeric(dt)])
            val = self.expr(v, ctx, d)
            if self.g.bug_on("literal_binding_by_use"):
                val = self.fix(val, v)
            c2 = ctx.child()
            c2.vars[name] = v
            return Block([(name, val)], self.expr(dt, c2, d))
        if k == "call":
            return self.g.fns_gen.call(dt, ctx, d)
        return self.leaf(dt, ctx)

    def generic_arg(self, e, dt):
        """An argument of a generic function: SPEC §3 types its literals from the call's other
        arguments and its uses (`ln(2.0) / k_f64` is f64)."""
        return self.fix(e, dt) if self.g.bug_on("generic_literal_args") else e

    def nonzero_lit(self, dt):
        v = self.r.choice([2, 3, -2, 7, -5]) if is_int(dt) else self.r.choice([2.0, -4.0, 0.5, 3.0])
        return Lit(v, dt)

    def other_numeric(self, dt):
        return self.r.choice([t for t in ("f32", "f64", "i32", "i64") if t != dt])

    def cast_from(self, dt, ctx, d):
        self.g.tag("cast")
        src = self.other_numeric(dt)
        if self.r.random() < 0.1:
            src = "bool"
            if not is_int(dt):
                src = self.other_numeric(dt)
        return Cast(self.fix(self.expr(src, ctx, d), src), dt)

    def math(self, dt, ctx, d):
        f = self.r.choice(MATH)
        self.g.tag(f"math_{f}")
        x = self.generic_arg(self.expr(dt, ctx, d), dt)
        if f in ("sqrt", "ln"):
            x = Call("std::math::abs", [x])
            if f == "ln":
                x = Bin("+", x, Lit(1.0, dt))
        if f == "exp":
            x = Call("std::math::tanh", [x]) if self.r.random() < 0.5 else x
        return Call(f"std::math::{f}", [x])

    def condition(self, ctx, depth):
        c = self.boolean(ctx, depth)
        if self.g.bug_on("const_condition_ranges"):
            for _ in range(5):
                if not literals.constant(c):
                    break
                c = self.boolean(ctx, depth)
            else:
                v = self.variable_int(ctx)
                if v is not None:
                    return Bin(self.r.choice(["<", ">="]), Lit(self.r.randint(-2, 2), "i32"), v)
        return c

    def variable_int(self, ctx):
        if ctx.idx:
            return Ref(self.r.choice(list(ctx.idx)))
        arrs = [n for n, (d, s) in ctx.arrays.items() if d in ("i32", "f32", "f64", "i64")
                and all(x > 0 for x in s)]
        if not arrs:
            return None
        a = self.r.choice(arrs)
        acc = self.access(a, ctx)
        return acc if ctx.arrays[a][0] == "i32" else Cast(acc, "i32")

    def boolean(self, ctx, depth):
        r = self.r
        opts = {"cmp": 6, "logic": 1 if depth > 0 else 0, "not": 1 if depth > 0 else 0,
                "lit": 0.3}
        arrs = self.arrays_of(ctx, "bool")
        if arrs:
            opts["access"] = 2
        if depth > 0 and ctx.reds < 2:
            opts["red"] = 1
        k = self.pick(opts)
        d = depth - 1
        if k == "cmp":
            t = r.choice(["f32", "f64", "i32", "i64"])
            t = self.g.prefer_type(t, ctx)
            a, b = self.expr(t, ctx, max(d, 0)), self.expr(t, ctx, max(d, 0))
            if not self.anchored(b):
                a = self.fix(a, t)
            return Bin(r.choice(["<", "<=", ">", ">=", "==", "!="]), a, b)
        if k == "logic":
            self.g.tag("logic")
            return Bin(r.choice(["&&", "||"]), self.boolean(ctx, d), self.boolean(ctx, d))
        if k == "not":
            return Un("!", self.boolean(ctx, d))
        if k == "access":
            return self.access(r.choice(arrs), ctx)
        if k == "red":
            return self.g.reds.reduction("bool", ctx, d)
        return self.lit("bool")
