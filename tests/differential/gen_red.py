"""Reductions for the generator: sum prod max min all any argmax argmin over one or two new
indices, with inferred, explicit or dependent ranges (`sum[k in 0..i + 1](x[i - k])`),
convolution-like offset uses `s[o + k]`, strided uses `s[o * 2 + k]`, where-derived indices
(`where p = o + k`), guards and local bindings."""
from gen_expr import Idx
from ir import Access, Bin, Cast, Lit, Range, Red, Ref, RIdx, WBind, WGuard, is_float, is_int

# Relative weights; docs/testing.md lists them.
OPS_NUM = {"sum": 5, "prod": 1, "max": 2, "min": 2}
PATTERNS = {"plain": 10, "dependent": 2, "conv": 2, "derived": 2, "strided_conv": 1}


class RedGen:
    def __init__(self, gen):
        self.g = gen
        self.r = gen.r
        self.x = gen.ex

    def reduction(self, dt, ctx, depth):
        r = self.r
        if dt == "bool":
            op = r.choice(["all", "any"])
            body_dt = "bool"
        elif dt == "i32" and r.random() < 0.15:
            op = r.choice(["argmax", "argmin"])
            body_dt = r.choice(["f32", "f64", "i32"])
        else:
            op = self.x.pick(OPS_NUM)
            body_dt = dt
        self.g.tag(f"red_{op}")
        pats = dict(PATTERNS)
        if op in ("argmax", "argmin"):
            pats = {"plain": 1}
        elif not ctx.idx:
            pats = {"plain": 4, "derived": 1 if any(d == "i32" for d in ctx.vars.values()) else 0}
        if self.g.bug_on("strided_index"):
            pats["strided_conv"] = 0
        if self.g.bug_on("dependent_range"):
            pats["dependent"] = 0
        if self.g.deriv and self.g.bug_on("ad_derived_index"):
            pats["derived"] = 0
        pat = self.x.pick(pats)
        c2 = ctx.child()
        c2.reds += 1
        if pat != "plain":
            red = self.template(pat, op, body_dt, c2, depth)
            if red is not None:
                return red
        return self.plain(op, body_dt, c2, depth)

    def new_index(self, ctx, explicit_p=0.15):
        name = self.g.fresh_index()
        r = self.r
        if r.random() < explicit_p:
            hi = r.randint(1, 4)
            lo = r.choice([0, 0, 1]) if hi > 1 else 0
            self.g.tag("range_explicit")
            v = Idx(name, lo, hi, explicit=True)
            return v, RIdx(name, Range(Lit(lo, "i32"), Lit(hi, "i32")))
        return Idx(name), RIdx(name)

    def plain(self, op, body_dt, ctx, depth):
        r = self.r
        n = 1 if r.random() < 0.8 or op in ("argmax", "argmin") else 2
        if self.g.deriv and op in ("max", "min", "prod") and \
                self.g.bug_on("ad_minmax_several_indices"):
            n = 1
        news = []
        for _ in range(n):
            v, ri = self.new_index(ctx)
            ctx.idx[v.name] = v
            news.append((v, ri))
        where = []
        if r.random() < 0.15:
            z = self.g.fresh("z")
            zdt = r.choice([body_dt if body_dt != "bool" else "f32", "i32"])
            where.append(WBind(z, self.binding_value(zdt, ctx, depth)))
            ctx.vars[z] = zdt
            self.g.tag("where_bind")
        body = self.x.expr(body_dt, ctx, max(depth, 1))
        if op in ("argmax", "argmin"):
            body = self.x.fix(body, body_dt)
        if r.random() < 0.25 and not (self.g.deriv and op == "prod" and
                                      self.g.bug_on("ad_prod_guard")):
            where.append(WGuard(self.x.boolean(ctx, 1)))
            self.g.tag("where_guard_red")
        for v, ri in news:
            if not v.det:
                self.determine(v, ri, ctx, where, op)
        return Red(op, [ri for _, ri in news], body, where)

    def binding_value(self, dt, ctx, depth):
        e = self.x.expr(dt, ctx, depth)
        return self.x.fix(e, dt) if self.g.bug_on("literal_binding_by_use") else e

    def determine(self, v, ri, ctx, where, op):
        """Give an index no access has determined a use: a guard that reads an array at it, or an
        explicit range."""
        arrs = [n for n, (d, s) in ctx.arrays.items() if d != "bool" and len(s) >= 1 and s[0] > 0]
        guard_ok = not (self.g.deriv and op == "prod" and self.g.bug_on("ad_prod_guard"))
        if arrs and guard_ok and self.r.random() < 0.5:
            a = self.r.choice(arrs)
            acc = self.x.access(a, ctx, prefer=v.name)
            if v.det:
                dt = ctx.arrays[a][0]
                where.append(WGuard(Bin(self.r.choice(["<", ">", "!="]), acc,
                                        Lit(0.0 if is_float(dt) else 0, dt))))
                self.g.tag("guard_determines")
                return
        hi = self.r.randint(1, 4)
        ri.rng = Range(Lit(0, "i32"), Lit(hi, "i32"))
        v.explicit, v.lo, v.hi, v.det = True, 0, hi, True
        self.g.tag("range_explicit")

    # ------------------------------------------------------------------------------ templates
    def outer(self, ctx):
        # An explicit outer range is never narrowed: the inner index gets a range dependent on
        # it (SPEC §5.2, docs/language.md "Dependent inner ranges").
        cands = [v for v in ctx.idx.values() if not v.explicit]
        if self.g.bug_on("plain_and_inner_offset_use"):
            cands = [v for v in cands if not v.det and not v.reserved]
        cands += [v for v in ctx.idx.values() if v.explicit]
        if not cands:
            return None
        v = self.r.choice(cands)
        if self.g.bug_on("plain_and_inner_offset_use") and not v.explicit:
            v.reserved = True        # no other use of it from now on
        return v

    def axis_arrays(self, ctx, dt, min_n=1):
        return [(n, a) for n, (d, s) in ctx.arrays.items() if d == dt
                for a in range(len(s)) if s[a] >= min_n and all(x > 0 for x in s)]

    def template(self, pat, op, body_dt, ctx, depth):
        r = self.r
        if body_dt == "bool":
            return None
        if pat == "dependent":
            o = self.r.choice(list(ctx.idx.values()))
            xs = self.axis_arrays(ctx, body_dt)
            if not xs:
                return None
            xn, xa = r.choice(xs)
            k = self.g.fresh_index()
            form = r.choice(["tri", "prefix", "suffix"])
            self.g.tag(f"range_dependent_{form}")
            if form == "tri":       # sum[k in 0..o + 1](x[o - k])
                rng = Range(Lit(0, "i32"), Bin("+", Ref(o.name), Lit(1, "i32")))
                ix = Bin("-", Ref(o.name), Ref(k))
                kv = Idx(k, 0, None, explicit=True)
            elif form == "prefix":  # sum[k in 0..o](x[k])
                rng = Range(Lit(0, "i32"), Ref(o.name))
                ix = Ref(k)
                kv = Idx(k, 0, None, explicit=True)
            else:                   # sum[k in o..n](x[k])
                n = ctx.arrays[xn][1][xa]
                rng = Range(Ref(o.name), Lit(n, "i32"))
                ix = Ref(k)
                kv = Idx(k, 0, None, explicit=True)
            acc = self.partial_access(xn, xa, ix, ctx)
            if form == "tri" and not o.explicit:
                o.det = True
            rest = self.x.expr(body_dt, ctx, depth - 1) if r.random() < 0.5 else None
            body = acc if rest is None else Bin(r.choice("+*"), acc, rest)
            return Red(op, [RIdx(k, rng)], body)
        # A loop-invariant integer as the offset (a let, a parameter, a comprehension
        # variable): `sum[k](x[p] * w[k] where p = g + k)` (E004 until session 14).
        ints = [n for n, d in ctx.vars.items() if d == "i32"]
        inv = None
        if pat == "derived" and ints and (not ctx.idx or r.random() < 0.35):
            inv = r.choice(ints)
            o = None
        else:
            o = self.outer(ctx)
            if o is None:
                return None
        xs = self.axis_arrays(ctx, body_dt, 2)
        ws = self.axis_arrays(ctx, body_dt)
        if not xs or not ws:
            return None
        xn, xa = r.choice(xs)
        wn, wa = r.choice(ws)
        k = self.g.fresh_index()
        kv = Idx(k, plain=ctx.arrays[wn][1][wa])
        kv.hi, kv.det = kv.plain, True
        ctx.idx[k] = kv
        where = []
        if pat == "conv":
            ix = Bin("+", Ref(o.name), Ref(k))
            self.g.tag("index_conv")
        elif pat == "strided_conv":
            ix = Bin("+", Bin("*", Ref(o.name), Lit(r.choice([2, 3]), "i32")), Ref(k))
            self.g.tag("index_strided")
        else:
            p = self.g.fresh("p")
            where.append(WBind(p, Bin("+", Ref(inv if o is None else o.name), Ref(k))))
            ix = Ref(p)
            self.g.tag("where_derived_index")
            if o is None:
                self.g.tag("where_derived_invariant_offset")
        if o is not None:
            o.det = True
        xacc = self.partial_access(xn, xa, ix, ctx)
        wacc = self.partial_access(wn, wa, Ref(k), ctx)
        body = Bin("*", xacc, wacc)
        if r.random() < 0.3:
            body = Bin(r.choice("+-"), body, self.x.expr(body_dt, ctx, depth - 1))
        red = Red(op, [RIdx(k)], body, where)
        return red

    def partial_access(self, name, axis, ix, ctx):
        shape = ctx.arrays[name][1]
        idx = [ix if a == axis else self.x.index_for_axis(n, ctx) for a, n in enumerate(shape)]
        return Access(name, idx)
