"""Functions for the generator: scalar functions with annotated or generic parameters (called
from Einstein bodies and top-level expressions) and functions over array parameters whose
bodies reduce or index them (a generic function specialised per call, SPEC §6)."""
from gen_expr import Ctx
from ir import Access, Block, Call, Red, Ref, RIdx, SFn


class FnInfo:
    def __init__(self, name, params, ret, annotated):
        self.name, self.params, self.ret = name, params, ret   # params: [(name, dt, shape|None)]
        self.annotated = annotated


class FnGen:
    def __init__(self, gen):
        self.g = gen
        self.r = gen.r
        self.x = gen.ex

    def define(self, dt):
        """An SFn whose result has type dt (scalar), plus its FnInfo."""
        r = self.r
        g = self.g
        name = g.fresh("f")
        arrays = {}
        params = []
        array_ok = not (g.deriv and g.bug_on("ad_always_array_call"))
        if r.random() < 0.35 and g.arrays and array_ok:
            an, (adt, shape) = r.choice(sorted(g.arrays.items()))
            if all(s > 0 for s in shape) and adt != "bool":
                pn = g.fresh("a")
                params.append((pn, adt, shape))
                arrays[pn] = (adt, shape)
                g.tag("fn_array_param")
        for _ in range(r.randint(1, 2) if params else r.randint(1, 3)):
            pdt = dt if r.random() < 0.7 else self.x.other_numeric(dt)
            params.append((g.fresh("a"), pdt, None))
        ctx = Ctx(g, arrays, {p: d for p, d, s in params if s is None})
        lets = []
        if r.random() < 0.5:
            b = g.fresh("b")
            bdt = r.choice([dt, dt, self.x.other_numeric(dt)])
            val = self.x.expr(bdt, ctx, 2)
            if g.bug_on("literal_binding_by_use"):
                val = self.x.fix(val, bdt)
            lets.append((b, val))
            ctx.vars[b] = bdt
        res = self.x.expr(dt, ctx, 3)
        annotate = r.random() < 0.6
        if not annotate:
            # Judged with the locals in scope: `let b = <literals>; b` is as unanchored as the
            # literals themselves.
            res = self.x.fix(res, dt, lets)
        g.tag("fn_annotated" if annotate else "fn_generic")
        sparams = [(p, None if (s is not None or not annotate) else d) for p, d, s in params]
        fn = SFn(name, sparams, dt if annotate else None, Block(lets, res) if lets else res)
        return fn, FnInfo(name, params, dt, annotate)

    def call(self, dt, ctx, depth):
        fns = self.g.callable_fns(dt)
        info = self.r.choice(fns)
        args = []
        for p, pdt, shape in info.params:
            if shape is not None:
                same = [n for n, (d, s) in ctx.arrays.items() if d == pdt and s == shape]
                if not same:
                    return self.x.leaf(dt, ctx)
                args.append(Ref(self.r.choice(same)))
            else:
                a = self.x.expr(pdt, ctx, depth - 1)
                args.append(a if info.annotated else self.x.generic_arg(a, pdt))
        self.g.tag("call")
        return Call(info.name, args)
