"""Where literal typing is settled by SPEC §3 and where it is not, for the generator and the
shrinker.

Literals take the type of the expression they are unified with (`x_f64 * (1.5 + 2.0)` is all
f64; `sum[k](0.1)` in an f64 context is an f64 sum). An expression made only of literals in a
position that nothing unifies with (a statement's value, an `as` operand, ...) takes its
default type, f32 / i32. The generator keeps such expressions at their default type or gives
them an anchor `+ (0 as T)`; the shrinker refuses candidates that break this, so a shrunk
program does not slide into a different question of literal typing than the one it shows.
"""
from ir import (FLOAT_TYPES, INT_TYPES, Access, Bin, Block, Call, CallIdx, Cast, Lambda, Clause, Comp, If, Lit, Red,
                Ref, SFn, SLet, Un,
                WBind, walk)

DEFAULT_TYPES = ("f32", "i32", "bool")
CMP = ("<", "<=", ">", ">=", "==", "!=", "&&", "||")


def anchored(e, annotated, env=None):
    """Does `e` have its type without help from its context? `annotated(fn)` tells whether a
    user function's result type is written. `env`: block and where locals in scope, name ->
    value: a local bound to literals only takes its type from its uses (SPEC §3, inference per
    unit), so reading it anchors nothing (`{ let b = tanh(-0.5); b + b }` is f32)."""
    env = env or {}
    rec = lambda x: anchored(x, annotated, env)
    if isinstance(e, Lit):
        return e.dt == "bool"
    if isinstance(e, Ref):
        return e.name not in env or env[e.name] is None or rec(env[e.name])
    if isinstance(e, (Access, Cast)):
        return True
    if isinstance(e, Block):
        inner = dict(env)
        for x in e.lets:
            if isinstance(x, tuple):
                inner[x[0]] = x[1] if not anchored(x[1], annotated, inner) else None
        return anchored(e.result, annotated, inner)
    if isinstance(e, Red) and e.op in ("all", "any", "argmax", "argmin"):
        return True
    if isinstance(e, (Red, Comp)):
        inner = dict(env)
        for w in (e.where if isinstance(e, Red) else e.items):
            if isinstance(w, WBind):
                inner[w.name] = w.e if not anchored(w.e, annotated, inner) else None
        return anchored(e.body, annotated, inner)
    if isinstance(e, Bin):
        if e.op in CMP:
            return True
        if e.op == "**":
            return rec(e.a)
        return rec(e.a) or rec(e.b)
    if hasattr(e, "op") and hasattr(e, "a") and not hasattr(e, "b"):     # Un
        return e.op == "!" or rec(e.a)
    if isinstance(e, If):
        return rec(e.a) or rec(e.b)
    if isinstance(e, CallIdx):
        return rec(e.call)
    if isinstance(e, Lambda):
        return rec(e.body)
    if isinstance(e, Call):
        if e.fn in ("sum", "max", "min", "prod"):
            return True
        if not e.fn.startswith("std::"):
            # A user function's parameters are separately generic unless its body ties them:
            # `f(t_f32, 1.0)` with body `sin(b)` leaves the result's type to the call's uses.
            return annotated(e.fn) or all(rec(a) for a in e.args)
        return any(rec(a) for a in e.args)
    return True


def constant(e):
    """Made of literals and operators only (so a compiler may fold it)."""
    return not any(isinstance(n, (Ref, Access, Call, Red)) for n in walk(e))


def literal_type(e):
    for n in walk(e):
        if isinstance(n, Lit):
            return n.dt
    return None


def ok_default(e, annotated):
    return anchored(e, annotated) or literal_type(e) in DEFAULT_TYPES + (None,)


def check(prog, bugs):
    """False if some literals-only expression sits where nothing types it, with a type other
    than its default (the generator never writes that; see the module comment)."""
    fns = {s.name: s.ret is not None for s in prog.stmts if isinstance(s, SFn)}
    annotated = lambda n: fns.get(n, False)
    gray = []
    for s in prog.stmts:
        if isinstance(s, SLet) and s.annot is None:
            gray.append(s.e)
        if isinstance(s, SFn) and s.ret is None:
            gray.append(s.body.result if isinstance(s.body, Block) else s.body)
    for n in walk(prog.stmts):
        if isinstance(n, Clause):
            gray.append(Block([(w.name, w.e) for w in n.where if isinstance(w, WBind)], n.body))
            if n.else_ is not None:
                gray.append(n.else_)
        elif isinstance(n, Cast):
            gray.append(n.a)
        elif isinstance(n, WBind) and "literal_binding_by_use" in bugs:
            gray.append(n.e)
        elif isinstance(n, Block) and "literal_binding_by_use" in bugs:
            gray.extend(x[1] for x in n.lets if isinstance(x, tuple))
        elif isinstance(n, Bin) and n.op in CMP[:6]:
            if not anchored(n.a, annotated) and not anchored(n.b, annotated):
                gray.append(n.a)
        elif isinstance(n, Call) and n.fn not in ("sum", "max", "min", "prod") and \
                "generic_literal_args" in bugs and not annotated(n.fn):
            gray.extend(n.args)
        elif isinstance(n, If) and "const_if_typing" in bugs:
            gray.extend([n.a, n.b])
        elif isinstance(n, Red) and n.op in ("argmax", "argmin"):
            gray.append(n.body)
    return all(ok_default(e, annotated) for e in gray)


def cast_operand(e):
    """The operand of `e` (a Cast) as ein types it (docs/language.md, session 22): a widening
    cast types an operand made only of number literals and operators, so `0.1 as f64` is the f64
    0.1 (a float literal cast to an integer type is read as f64 too) and `5000000000 as i64` an
    i64 literal. Narrowing casts and operands reading anything else keep the literals' types."""
    if not all(isinstance(n, (Lit, Bin, Un)) for n in walk(e.a)) or \
            any(isinstance(n, Bin) and n.op in CMP for n in walk(e.a)):
        return e.a
    first = literal_type(e.a)
    if first in FLOAT_TYPES and (e.dt == "f64" or e.dt in INT_TYPES):
        src, dst = FLOAT_TYPES, "f64"
    elif first in INT_TYPES and e.dt == "i64":
        src, dst = INT_TYPES, "i64"
    else:
        return e.a

    def retyped(x):
        if isinstance(x, Lit):
            return Lit(x.value, dst) if x.dt in src else x
        if isinstance(x, Bin):
            return Bin(x.op, retyped(x.a), retyped(x.b))
        return Un(x.op, retyped(x.a))
    return retyped(e.a)

