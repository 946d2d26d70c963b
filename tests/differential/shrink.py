"""Shrinking a failing program to a small one that fails the same way.

Greedy: try removing statements, clauses, where items and prints, replacing expressions by
their operands or by literals, dropping array rows and simplifying input values; keep a change
when the reference still gives one expected output (same error, if any) and ein, in the same
mode, still fails in the same category. Stops when nothing helps or the time budget is spent.
"""
import os
import re
import time

from compare import fmt_lines
import known_bugs
import literals
from ir import (Access, Bin, Block, Call, Cast, Clause, If, Lit, Red, SDecl, SInput, SLet,
                SPrint, Un, child_slots, clone, get_slot, set_slot, walk)
from ref import Evaluator, GenBug
from refnum import IllConditioned, RefError, Unspecified
from render import render
from runner import Expect, judge, run_ein

LIT_TYPES = ("f32", "f64", "i32", "i64", "bool")


def expect_or_none(prog, bugs=()):
    if not literals.check(prog, bugs):
        return None
    ev = Evaluator(prog)
    try:
        return Expect(ev.run())
    except RefError as e:
        return Expect(ev.out, e.code, e.compile_time)
    except (IllConditioned, Unspecified, GenBug, RecursionError, ZeroDivisionError,
            TypeError, KeyError, IndexError, AttributeError, ValueError):
        return None


def base_category(c):
    return c.replace(" (also)", "")


def candidates(prog):
    n = len(prog.stmts)
    for k in range(n - 1, -1, -1):                       # whole statements
        p = clone(prog)
        del p.stmts[k]
        yield p
    for k, s in enumerate(prog.stmts):                   # clauses, print arguments
        if isinstance(s, SDecl) and len(s.clauses) > 1:
            for c in range(len(s.clauses)):
                p = clone(prog)
                del p.stmts[k].clauses[c]
                yield p
        if isinstance(s, SPrint) and len(s.args) > 1:
            for a in range(len(s.args)):
                p = clone(prog)
                del p.stmts[k].args[a]
                yield p
    # where items, else branches, block lets
    for path in range(len(list(_with_where(prog)))):
        yield from _drop_where(prog, path)
    # expressions: by one of their operands, then by literals
    for idx in range(len(_slots(prog))):
        for how in ("child0", "child1", "child2", "lit"):
            for variant in _replace(prog, idx, how):
                yield variant
    # inputs: fewer rows, simpler values
    for k, s in enumerate(prog.stmts):
        if isinstance(s, SInput) and s.shape:
            for axis in range(len(s.shape)):
                if s.shape[axis] > 1:
                    p = clone(prog)
                    _drop_last(p.stmts[k], axis)
                    yield p
            p = clone(prog)
            if _simplify_values(p.stmts[k]):
                yield p


def _slots(prog):
    out = []
    for node in walk(prog.stmts):
        out.extend(child_slots(node))
    return out


def _replace(prog, idx, how):
    p = clone(prog)
    slots = _slots(p)
    if idx >= len(slots):
        return
    slot = slots[idx]
    e = get_slot(slot)
    if how.startswith("child"):
        kids = [get_slot(s) for s in child_slots(e)]
        k = int(how[-1])
        if k < len(kids) and not isinstance(e, Access):
            set_slot(slot, kids[k])
            yield p
        return
    if isinstance(e, Lit):
        if e.value not in (0, 1, True, False):
            for v in (0, 1):
                q = clone(prog)
                s2 = _slots(q)[idx]
                set_slot(s2, Lit(float(v) if isinstance(e.value, float) else v, e.dt))
                yield q
        return
    for dt in LIT_TYPES:
        q = clone(prog)
        s2 = _slots(q)[idx]
        v = {"f32": 1.0, "f64": 1.0, "i32": 1, "i64": 1, "bool": True}[dt]
        set_slot(s2, Lit(v, dt))
        yield q


def _with_where(prog):
    for node in walk(prog.stmts):
        if isinstance(node, (Clause, Red)) and node.where:
            yield node
        if isinstance(node, Clause) and node.else_ is not None:
            yield node
        if isinstance(node, Block) and node.lets:
            yield node


def _drop_where(prog, path):
    for item in range(8):
        p = clone(prog)
        nodes = list(_with_where(p))
        if path >= len(nodes):
            return
        node = nodes[path]
        if isinstance(node, Block):
            if item >= len(node.lets):
                return
            del node.lets[item]
        elif item < len(node.where):
            del node.where[item]
        elif item == len(node.where) and isinstance(node, Clause) and node.else_ is not None:
            node.else_ = None
        else:
            return
        yield p


def _drop_last(s, axis):
    def rec(x, d):
        if d == axis:
            return x[:-1]
        return [rec(y, d + 1) for y in x]
    s.data = rec(s.data, 0)
    s.shape = tuple(n - 1 if a == axis else n for a, n in enumerate(s.shape))


def _simplify_values(s):
    changed = [False]
    def rec(x):
        if isinstance(x, list):
            return [rec(y) for y in x]
        if isinstance(x, bool):
            return x
        if isinstance(x, float) and x != round(x):
            changed[0] = True
            return float(round(x))
        if isinstance(x, int) and abs(x) > 9:
            changed[0] = True
            return x % 10
        return x
    s.data = rec(s.data)
    return changed[0]


def size(prog):
    return len(render(prog))


def deriv_fails(args, cat, wd, bugs):
    import deriv

    def fails(p):
        if not literals.check(p, bugs):
            return None
        req = deriv.request_from(p)
        if req is None:
            return None
        try:
            fd = deriv.expected(req, bugs)
        except Exception:
            return None
        if fd is None:
            return None
        e = deriv.DerivExpect(req, *fd)
        v = deriv.judge_deriv(run_ein(args.ein, render(p), args.cur_mode, wd, "shrink.ein"), e)
        if v is None or v[0] != cat:
            return None
        return e, v
    return fails


def shrink_mismatch(args, m, wd):
    cat = base_category(m.category)
    deadline = time.time() + args.shrink
    want_err = m.exp.error

    bugs = set() if args.all_constructs else known_bugs.active()

    def fails(p):
        e = expect_or_none(p, bugs)
        if e is None or e.error != want_err:
            return None
        if time.time() > deadline:
            return None
        run = run_ein(args.ein, render(p), m.mode, wd, "shrink.ein")
        v = judge(run, e)
        if v is None:
            return None
        if v[0] != cat and not (cat.startswith("value") and v[0].startswith("value")):
            return None
        return e, v

    if m.kind == "deriv":
        if getattr(m.exp, "req", None) is None or m.exp.req.scope != "top":
            m.small = m.prog
            if args.pending:
                m.pending = write_pending(args.pending, m, m.prog, m.exp)
            return
        args.cur_mode = m.mode
        inner = deriv_fails(args, cat, wd, bugs)

        def fails(p):
            return inner(p) if time.time() < deadline else None
    best = m.prog
    best_exp = m.exp
    progress = True
    while progress and time.time() < deadline:
        progress = False
        for cand in candidates(best):
            if time.time() > deadline:
                break
            if size(cand) >= size(best):
                continue
            r = fails(cand)
            if r is not None:
                best, best_exp = cand, r[0]
                m.message = r[1][1]
                progress = True
                break
    m.small = best
    if args.pending:
        m.pending = write_pending(args.pending, m, best, best_exp)


def write_pending(folder, m, prog, exp):
    os.makedirs(folder, exist_ok=True)
    slug = re.sub(r"[^a-z0-9]+", "_", base_category(m.category).lower()).strip("_")
    path = os.path.join(folder, f"diff_{m.seed}_{m.mode}_{slug}.ein")
    msg = " | ".join(x.strip() for x in m.message.splitlines() if x.strip())
    lines = [f"// differential ({m.kind}), EIN_JIT mode {m.mode}: {base_category(m.category)}: "
             f"{msg[:160]}",
             f"// found by tests/differential/run.py --program {m.seed} (seed {m.seed}); area: ?"]
    from runner import MODES
    for k, v in MODES[m.mode].items():
        lines.append(f"//$ {k}={v}")
    src = render(prog)
    if "\n// %%\n" in src:
        lines.append("//# cells")
    lines.append(src.rstrip())
    for ln in fmt_lines(exp.lines):
        lines.append(f"//> {ln}")
    if exp.error:
        lines.append(f"//! {exp.error}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return os.path.relpath(path)
