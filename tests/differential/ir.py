"""The program representation shared by the generator, the renderer, the reference evaluator
and the shrinker. It is a small tree of Einlang constructs (one class per construct), not ein's
IR: nothing here comes from the compiler. Everything is a plain dataclass so that the shrinker
can copy a program and replace any child generically (`children`, `replace_child`).
"""
import copy
import dataclasses
from dataclasses import dataclass, field
from typing import Any, Optional

INT_TYPES = ("i8", "i32", "i64")
FLOAT_TYPES = ("f32", "f64")


def is_float(dt):
    return dt in FLOAT_TYPES


def is_int(dt):
    return dt in INT_TYPES


# ---------------------------------------------------------------------------------- expressions
class Expr:
    pass


@dataclass
class Lit(Expr):
    value: Any          # Python int, float or bool
    dt: str             # the type the context gives the literal (rendered without a suffix)


@dataclass
class Ref(Expr):
    name: str           # scalar binding, where/block local, parameter or index variable


@dataclass
class Rest:
    name: str           # `..name` inside an access or a reduction's index list


@dataclass
class Access(Expr):
    name: str           # the array (binding or parameter)
    idx: list           # Expr (integer valued) or Rest


@dataclass
class Bin(Expr):
    op: str             # + - * / % ** < <= > >= == != && ||
    a: Expr
    b: Expr


@dataclass
class Un(Expr):
    op: str             # - !
    a: Expr


@dataclass
class Cast(Expr):
    a: Expr
    dt: str             # scalar target type; `shape` set means `a as [dt]` on a whole array
    whole: bool = False


@dataclass
class Call(Expr):
    fn: str             # user function name or "std::math::NAME"
    args: list


@dataclass
class Lambda(Expr):
    """`|u, v| body` (SPEC §4): captures the names it reads by value where it is written."""
    params: list        # parameter names
    body: Expr


@dataclass
class CallIdx(Expr):
    """`f(a)[j, k]` / `std::ml::softmax(x)[i]`: an element (or row) of a call's array result."""
    call: Expr          # a Call
    idx: list           # Expr (integer valued)


@dataclass
class If(Expr):
    c: Expr
    a: Expr
    b: Expr


@dataclass
class Range:
    lo: Expr
    hi: Expr
    inclusive: bool = False


@dataclass
class WBind:
    name: str
    e: Expr


@dataclass
class WGuard:
    c: Expr


@dataclass
class RIdx:
    name: str
    rng: Optional[Range] = None   # None: inferred from the uses


@dataclass
class Red(Expr):
    op: str             # sum prod max min all any argmax argmin
    idx: list           # RIdx or Rest
    body: Expr
    where: list = field(default_factory=list)   # WBind / WGuard, applying per reduction point
    outside: bool = False   # render the where clauses after the parentheses (SPEC syntax variant)


@dataclass
class Block(Expr):
    lets: list          # [(name, Expr)] or SDecl (an Einstein declaration local to the block)
    result: Expr


@dataclass
class CGen:
    name: str
    over: Any           # Range, or the name of a 1-D array (its elements)


@dataclass
class CMember:
    name: str           # `x in lo..hi` where x is already bound: a guard (SPEC §4)
    rng: Range


@dataclass
class Comp(Expr):
    """`[body | x in 0..n, y in arr, x != y, z = x * y]` (SPEC §4)."""
    body: Expr
    items: list         # CGen, CMember, WGuard, WBind — left to right


@dataclass
class Diff(Expr):
    y: str              # @y / @x
    x: str
    yidx: Optional[list] = None   # @y[i, j] / @x (indexed target)
    xidx: Optional[list] = None   # @y / @x[j] (indexed parameter, SPEC §7)


# --------------------------------------------------------------------------------- declarations
@dataclass
class SlotIdx:
    name: str
    rng: Optional[Range] = None


@dataclass
class SlotLit:
    value: int


@dataclass
class Clause:
    slots: list          # SlotIdx, SlotLit or Rest
    body: Expr
    where: list = field(default_factory=list)
    else_: Optional[Expr] = None


# ----------------------------------------------------------------------------------- statements
@dataclass
class SInput:
    name: str
    dt: str
    shape: tuple
    data: Any            # nested lists (or a scalar)
    annotate: bool = True


@dataclass
class SLet:
    name: str
    e: Expr
    annot: Optional[str] = None   # scalar type annotation


@dataclass
class SDecl:
    name: str
    clauses: list
    dt: Optional[str] = None      # element type (the generator's intent; checked, used when empty)


@dataclass
class SFn:
    name: str
    params: list          # [(name, dt or None)]
    ret: Optional[str]
    body: Expr            # usually a Block


@dataclass
class SRule:
    """`@fn name(params) { body }` (SPEC §7): the tangent of `name`'s result, where `@p` (DRef)
    is the incoming tangent of parameter p."""
    name: str
    params: list          # parameter names
    body: Expr


@dataclass
class DRef(Expr):
    name: str           # `@p` inside a rule body


@dataclass
class SCell:
    """A cell boundary (`// %%`, SPEC §11): a program holding one runs as `ein --cells`."""


@dataclass
class SPrint:
    args: list


@dataclass
class Program:
    stmts: list
    seed: int = 0
    kind: str = "primal"   # "primal" or "deriv"
    tags: set = field(default_factory=set)   # constructs used (coverage statistics)
    note: str = ""


def clone(p):
    return copy.deepcopy(p)


# --------------------------------------------------------------- generic traversal for shrinking
def child_slots(node):
    """(getter, setter) pairs for every Expr-valued child of `node` (lists included)."""
    out = []
    if not dataclasses.is_dataclass(node):
        return out
    for f in dataclasses.fields(node):
        v = getattr(node, f.name)
        if isinstance(v, Expr):
            out.append((node, f.name, None))
        elif isinstance(v, list):
            for i, item in enumerate(v):
                if isinstance(item, Expr):
                    out.append((node, f.name, i))
                elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Expr):
                    out.append((node, f.name, (i, 1)))
    return out


def get_slot(slot):
    node, name, i = slot
    v = getattr(node, name)
    if i is None:
        return v
    if isinstance(i, tuple):
        return v[i[0]][i[1]]
    return v[i]


def set_slot(slot, new):
    node, name, i = slot
    if i is None:
        setattr(node, name, new)
    elif isinstance(i, tuple):
        lst = getattr(node, name)
        t = list(lst[i[0]])
        t[i[1]] = new
        lst[i[0]] = tuple(t)
    else:
        getattr(node, name)[i] = new


def walk(node):
    """Every dataclass node below `node` (pre-order), statements, clauses and where items too."""
    yield node
    if isinstance(node, list):
        for x in node:
            yield from walk(x)
        return
    if isinstance(node, tuple):
        for x in node:
            yield from walk(x)
        return
    if not dataclasses.is_dataclass(node):
        return
    for f in dataclasses.fields(node):
        if f.name == "data":
            continue
        v = getattr(node, f.name)
        if isinstance(v, (list, tuple)) or dataclasses.is_dataclass(v):
            yield from walk(v)
