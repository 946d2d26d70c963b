"""Program -> Einlang source text.

Parentheses follow SPEC §4's precedence table (loosest first: || && == != < > <= >= .. + - * / %
** as unary postfix), so the renderer also exercises the parser's precedence rules: it writes
only the parentheses the table requires. Top-level names can be given a prefix so that several
programs share one file (a batch) without clashing.
"""
import math

from ir import (Access, Bin, Block, Call, CallIdx, CGen, Lambda, CMember, Comp, Cast, Clause, Diff, Expr, If,
                Lit, Range, Red, Ref,
                Rest, RIdx, SDecl, SFn, SInput, SLet, SPrint, SRule, SlotIdx, SlotLit, Un, WBind,
                WGuard, DRef, SCell)

PREC = {"||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, ">": 4, "<=": 4, ">=": 4,
        "+": 6, "-": 6, "*": 7, "/": 7, "%": 7, "**": 8}
P_AS, P_UNARY, P_ATOM = 9, 10, 11
NONASSOC = {"==", "!=", "<", ">", "<=", ">="}


def fmt_float(v):
    if math.isnan(v) or math.isinf(v):
        raise ValueError("non-finite literal")
    s = repr(float(v))
    if "e" in s:
        mant, exp = s.split("e")
        if "." not in mant:
            mant += ".0"
        s = mant + "e" + exp.lstrip("+")
    return s


def fmt_scalar(v, dt):
    if dt == "bool":
        return "true" if v else "false"
    if dt in ("f32", "f64"):
        return fmt_float(v)
    return str(int(v))


class Renderer:
    def __init__(self, top_names=(), prefix=""):
        self.top = set(top_names)
        self.prefix = prefix

    def name(self, n):
        return self.prefix + n if n in self.top else n

    # ---------------------------------------------------------------------------- expressions
    def prec(self, e):
        if isinstance(e, Bin):
            return PREC[e.op]
        if isinstance(e, Cast):
            return P_AS
        if isinstance(e, Un):
            return P_UNARY
        if isinstance(e, Lit) and not isinstance(e.value, bool) and e.value < 0:
            return P_UNARY
        if isinstance(e, Lit) and isinstance(e.value, float) and math.copysign(1, e.value) < 0:
            return P_UNARY
        if isinstance(e, (If, Block, Lambda)):
            return 0   # always parenthesised inside an operator
        if isinstance(e, Diff):
            return PREC["/"]   # `@y / @x` is a quotient of two unary `@`: `a * (@y / @x)`
        return P_ATOM

    def sub(self, e, need):
        s = self.expr(e)
        return f"({s})" if self.prec(e) < need else s

    def expr(self, e):
        if isinstance(e, Lit):
            if e.dt == "bool":
                return "true" if e.value else "false"
            if e.dt in ("f32", "f64"):
                return fmt_float(e.value)
            return str(int(e.value))
        if isinstance(e, Ref):
            return self.name(e.name)
        if isinstance(e, Access):
            return f"{self.name(e.name)}[{', '.join(self.index(i) for i in e.idx)}]"
        if isinstance(e, Bin):
            p = PREC[e.op]
            if e.op == "**":      # right-associative
                return f"{self.sub(e.a, p + 1)} ** {self.sub(e.b, p)}"
            if e.op in NONASSOC:
                return f"{self.sub(e.a, p + 1)} {e.op} {self.sub(e.b, p + 1)}"
            return f"{self.sub(e.a, p)} {e.op} {self.sub(e.b, p + 1)}"
        if isinstance(e, Un):
            inner = self.sub(e.a, P_UNARY)
            if e.op == "-" and inner.startswith("-"):
                inner = f"({inner})"
            return f"{e.op}{inner}"
        if isinstance(e, Cast):
            t = f"[{e.dt}]" if e.whole else e.dt
            return f"{self.sub(e.a, P_AS)} as {t}"
        if isinstance(e, Call):
            fn = e.fn if e.fn.startswith("std::") else self.name(e.fn)
            return f"{fn}({', '.join(self.expr(a) for a in e.args)})"
        if isinstance(e, Lambda):
            return f"|{', '.join(self.name(p) for p in e.params)}| {self.expr(e.body)}"
        if isinstance(e, CallIdx):
            return f"{self.sub(e.call, P_ATOM)}[{', '.join(self.expr(i) for i in e.idx)}]"
        if isinstance(e, If):
            return f"if {self.expr(e.c)} {{ {self.expr(e.a)} }} else {{ {self.expr(e.b)} }}"
        if isinstance(e, Block):
            return "{ " + " ".join(self.lets(e.lets) + [self.expr(e.result)]) + " }"
        if isinstance(e, Red):
            idx = ", ".join(self.ridx(i) for i in e.idx)
            if e.where and not e.outside:
                return f"{e.op}[{idx}]({self.expr(e.body)} {self.where(e.where)})"
            s = f"{e.op}[{idx}]({self.expr(e.body)})"
            if e.where:   # `red[..](body) where ...`: only as the whole value of a statement
                s += " " + self.where(e.where)
            return s
        if isinstance(e, Comp):
            parts = []
            for it in e.items:
                if isinstance(it, CGen):
                    over = self.rng(it.over) if isinstance(it.over, Range) else self.name(it.over)
                    parts.append(f"{it.name} in {over}")
                elif isinstance(it, CMember):
                    parts.append(f"{it.name} in {self.rng(it.rng)}")
                elif isinstance(it, WBind):
                    parts.append(f"{it.name} = {self.expr(it.e)}")
                else:
                    parts.append(self.expr(it.c))
            return f"[{self.expr(e.body)} | {', '.join(parts)}]"
        if isinstance(e, Diff):
            y = self.name(e.y)
            if e.yidx:
                y += f"[{', '.join(self.expr(i) for i in e.yidx)}]"
            x = self.name(e.x)
            if e.xidx:
                x += f"[{', '.join(self.expr(i) for i in e.xidx)}]"
            return f"@{y} / @{x}"
        if isinstance(e, DRef):
            return f"@{self.name(e.name)}"
        raise TypeError(f"cannot render {e!r}")

    def index(self, i):
        if isinstance(i, Rest):
            return f"..{i.name}"
        return self.expr(i)

    def rng(self, r):
        op = "..=" if r.inclusive else ".."
        return f"{self.sub(r.lo, 6)}{op}{self.sub(r.hi, 6)}"

    def ridx(self, i):
        if isinstance(i, Rest):
            return f"..{i.name}"
        return i.name if i.rng is None else f"{i.name} in {self.rng(i.rng)}"

    def where(self, items):
        parts = []
        for w in items:
            if isinstance(w, WBind):
                parts.append(f"{w.name} = {self.expr(w.e)}")
            else:
                parts.append(self.expr(w.c))
        return "where " + ", ".join(parts)

    # ----------------------------------------------------------------------------- statements
    def slot(self, s):
        if isinstance(s, SlotLit):
            return str(s.value)
        if isinstance(s, Rest):
            return f"..{s.name}"
        return s.name if s.rng is None else f"{s.name} in {self.rng(s.rng)}"

    def clause(self, name, c):
        s = f"let {self.name(name)}[{', '.join(self.slot(x) for x in c.slots)}] = {self.expr(c.body)}"
        if c.where:
            s += " " + self.where(c.where)
        if c.else_ is not None:
            s += f" else {self.expr(c.else_)}"
        return s + ";"

    def stmt(self, s):
        if isinstance(s, SInput):
            if s.shape == ():
                lit = fmt_scalar(s.data, s.dt)
                return f"let {self.name(s.name)}: {s.dt} = {lit};" if s.annotate else \
                    f"let {self.name(s.name)} = {lit};"
            body = self.array_lit(s.data, s.dt)
            if not s.annotate:
                return f"let {self.name(s.name)} = {body};"
            dims = ", ".join(str(d) for d in s.shape)
            return f"let {self.name(s.name)}: [{s.dt}; {dims}] = {body};"
        if isinstance(s, SLet):
            ann = f": {s.annot}" if s.annot else ""
            return f"let {self.name(s.name)}{ann} = {self.expr(s.e)};"
        if isinstance(s, SDecl):
            return "\n".join(self.clause(s.name, c) for c in s.clauses)
        if isinstance(s, SFn):
            # A parameter or block local may reuse a top-level name (shadowing): it gets the
            # batch prefix too, so that every reference to it still names it.
            ps = ", ".join(self.name(n) if t is None else f"{self.name(n)}: {t}"
                           for n, t in s.params)
            ret = f" -> {s.ret}" if s.ret else ""
            body = s.body
            if isinstance(body, Block):
                inner = " ".join(self.lets(body.lets) + [self.expr(body.result)])
            else:
                inner = self.expr(body)
            return f"fn {self.name(s.name)}({ps}){ret} {{ {inner} }}"
        if isinstance(s, SCell):
            return "// %%"
        if isinstance(s, SRule):
            return (f"@fn {self.name(s.name)}({', '.join(self.name(p) for p in s.params)}) "
                    f"{{ {self.expr(s.body)} }}")
        if isinstance(s, SPrint):
            return f"print({', '.join(self.expr(a) for a in s.args)});"
        raise TypeError(f"cannot render statement {s!r}")

    def lets(self, items):
        return [" ".join(self.clause(x.name, c) for c in x.clauses) if isinstance(x, SDecl)
                else f"let {self.name(x[0])} = {self.expr(x[1])};" for x in items]

    def array_lit(self, data, dt):
        if isinstance(data, list):
            return "[" + ", ".join(self.array_lit(x, dt) for x in data) + "]"
        return fmt_scalar(data, dt)


def top_names(prog):
    out = []
    for s in prog.stmts:
        if isinstance(s, (SInput, SLet, SDecl, SFn)):
            out.append(s.name)
    return out


def render(prog, prefix=""):
    r = Renderer(top_names(prog), prefix)
    return "\n".join(r.stmt(s) for s in prog.stmts) + "\n"
