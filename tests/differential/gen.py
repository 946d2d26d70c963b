"""The program generator: seed -> Program (ir.py), deterministic (one random.Random per seed).

A program is a few input arrays and scalars followed by statements of the kinds in KINDS, each
drawn, then checked by running the reference evaluator on the program so far: a statement the
reference finds ill-conditioned, unspecified or invalid is drawn again (the rates are counted
and reported), so every program is well typed and has one expected output. With a small
probability (ERROR_RATE) a statement that the SPEC says must fail (E005, E006, E007, E004, E012)
is kept, and it ends the program: then ein must fail the same way.

Constructs hidden by a known bug are switched off by name (known_bugs.py); nothing else is
avoided.
"""
import random

import known_bugs
from gen_expr import Ctx, ExprGen, Idx
from gen_fn import FnGen
from gen_red import RedGen
import gen_stmt
from ir import Program, Ref, SInput, SPrint, Access, Lit
from ref import Evaluator, GenBug, Tensor
from refnum import IllConditioned, RefError, Unspecified
import refnum

ERROR_RATE = 0.04
# A fraction of primal programs gets one large extent (20..200) in its pool, so that per-point
# costs, vector-width remainders and tile edges of compiled kernels are reached; an input has
# at most one large axis, and ref.WORK_LIMIT redraws statements too costly for the reference.
# Drawn from a stream of its own: the other programs of every seed stay as they were.
LARGE_SHARE = 0.1
LARGE = [20, 23, 31, 32, 33, 47, 63, 64, 65, 97, 127, 128, 129, 150, 199, 200]
KINDS = {
    "einstein": 8, "scalar_red": 3, "scalar": 1, "piecewise": 2, "rec1": 3, "rec1_inferred": 1.5, "rec2": 1.5,
    "stencil": 1.5, "state": 1, "rest": 1.5, "fn": 2, "whole": 1.5, "error": 0.3,
    "comprehension": 1, "fn_local_decl": 1, "body_local": 1,
    # calls (gen_call.py): closures, indexed call results, invariant calls, calls in steps
    "closure": 2, "indexed_call": 2, "invariant_call": 1.2, "rec_call": 1.2,
}


class Stats:
    def __init__(self):
        self.tags = {}
        self.rejects = {}
        self.kinds = {}
        self.tool_bugs = 0

    def merge(self, other):
        self.tool_bugs += other.tool_bugs
        for a, b in ((self.tags, other.tags), (self.rejects, other.rejects),
                     (self.kinds, other.kinds)):
            for k, v in b.items():
                a[k] = a.get(k, 0) + v


class Gen:
    def __init__(self, seed, deriv=False, bugs=None, stats=None):
        self.seed = seed
        self.r = random.Random(seed)
        self.deriv = deriv
        self.bugs = known_bugs.active() if bugs is None else set(bugs)
        self.stats = stats or Stats()
        self.names = 0
        self.ex = ExprGen(self)
        self.reds = RedGen(self)
        self.fns_gen = FnGen(self)
        self.arrays = {}
        self.scalars = {}
        self.fns = []
        self.stmts = []
        self.prints = []
        self.tags = set()
        self.ev = Evaluator(Program([]))
        self.main = "f64" if deriv else self.r.choice(["f32", "f32", "f64"])
        self.cur_dt = self.main

    # ------------------------------------------------------------------------------ helpers
    def tag(self, t):
        self.tags.add(t)

    def bug_on(self, name):
        return name in self.bugs

    def fresh(self, p):
        self.names += 1
        return f"{p}{self.names}"

    def fresh_index(self):
        self.names += 1
        return "ijklmnq"[self.names % 7] + str(self.names)

    def fn_info(self, name):
        for f in self.fns:
            if f.name == name:
                return f
        return None

    def callable_fns(self, dt):
        return [f for f in self.fns if f.ret == dt]

    def prefer_type(self, t, ctx):
        have = {d for d, _ in ctx.arrays.values()} | set(ctx.vars.values())
        if t not in have and self.r.random() < 0.7:
            opts = sorted(x for x in have if x != "bool")
            if opts:
                return self.r.choice(opts)
        return t

    def ctx(self, self_decl=None):
        return Ctx(self, self.arrays, self.scalars, self_decl)

    def num_type(self):
        r = self.r.random()
        if self.deriv:
            return "f64" if r < 0.85 else "i32"
        if r < 0.6:
            return self.main
        return self.r.choice(["f32", "f64", "i32", "i64", "i32"])

    # ------------------------------------------------------------------------------- inputs
    def value(self, dt):
        r = self.r
        if dt == "bool":
            return r.random() < 0.5
        if dt in ("i32", "i64"):
            if r.random() < 0.05:
                return r.choice([2147483000, -2147483000, 65536, 1 << 20])
            return r.randint(-9, 9)
        x = r.random()
        if x < 0.7:
            return round(r.uniform(-3, 3), 2)
        if x < 0.85:
            return float(r.randint(-4, 4))
        return r.choice([0.1, -0.001, 12.5, 0.3, 1e-3, 7.25])

    def input(self, shape=None, dt=None):
        r = self.r
        dt = dt or (self.num_type() if r.random() < 0.92 else "bool")
        if shape is None:
            rank = r.choices([0, 1, 2, 3], [1, 5, 4, 1])[0]
            shape = tuple(r.choice(self.extents) for _ in range(rank))
            if self.large and sum(1 for d in shape if d == self.large) > 1:
                small = [e for e in self.extents if e != self.large]
                k = shape.index(self.large)
                shape = tuple(d if d != self.large or i == k else r.choice(small)
                              for i, d in enumerate(shape))
        def data(d):
            if d == len(shape):
                return self.value(dt)
            return [data(d + 1) for _ in range(shape[d])]
        name = self.fresh("v")
        s = SInput(name, dt, shape, data(0), annotate=r.random() < 0.9 or dt == "i32")
        if not s.annotate and dt not in ("i32", "f32"):
            s.annotate = True
        self.commit([s])
        self.tag("input")

    # ---------------------------------------------------------------------------- statements
    def commit(self, stmts, prints=()):
        for s in stmts:
            self.ev.stmt(s)
            self.stmts.append(s)
            if isinstance(s, SInput) or hasattr(s, "name"):
                v = self.ev.g.get(s.name)
                if isinstance(v, Tensor):
                    self.arrays[s.name] = (v.dt, v.shape)
                elif isinstance(v, tuple):
                    self.scalars[s.name] = v[0]
        self.prints.extend(prints)

    def attempt(self, kind):
        """Draw one statement of `kind` and keep it if the reference accepts it. Returns
        "ok", "error" (kept, expected to fail) or "reject"."""
        saved = (dict(self.ev.g), dict(self.arrays), dict(self.scalars), list(self.fns),
                 set(self.tags), len(self.ev.out))
        try:
            stmts, prints = getattr(gen_stmt, kind)(self)
            if not stmts:
                key = f"{kind}: nothing to build on"
                self.stats.rejects[key] = self.stats.rejects.get(key, 0) + 1
                self.tags = saved[4]
                return "reject"
            probe = Evaluator(Program(stmts))
            probe.g = dict(self.ev.g)
            for s in stmts:
                probe.stmt(s)
                self.stats.kinds[kind] = self.stats.kinds.get(kind, 0)
            for p in prints:
                probe.stmt(p)
            self.ev.g = probe.g
            for s in stmts:
                self.stmts.append(s)
                v = probe.g.get(getattr(s, "name", None))
                if isinstance(v, Tensor):
                    self.arrays[s.name] = (v.dt, v.shape)
                elif isinstance(v, tuple):
                    self.scalars[s.name] = v[0]
            self.prints.extend(prints)
            self.stats.kinds[kind] = self.stats.kinds.get(kind, 0) + 1
            return "ok"
        except RefError as e:
            if kind == "error" or self.r.random() < ERROR_RATE:
                self.stmts.extend(stmts)
                self.prints.extend(prints)
                self.tag(f"expect_{e.code}")
                return "error"
            why = f"error {e.code}"
        except IllConditioned:
            why = "ill-conditioned"
        except Unspecified as e:
            why = f"unspecified: {str(e).split(':')[0][:40]}"
        except GenBug as e:
            why = f"genbug: {e}"
        except RecursionError:
            why = "recursion"
        except Exception as e:          # a bug in this tool: the statement is drawn again
            why = f"TOOL BUG {type(e).__name__}: {str(e)[:60]}"
            self.stats.tool_bugs += 1
        self.ev.g, self.arrays, self.scalars, self.fns, self.tags = \
            saved[0], saved[1], saved[2], saved[3], saved[4]
        key = f"{kind}: {why}"
        self.stats.rejects[key] = self.stats.rejects.get(key, 0) + 1
        return "reject"

    def program(self):
        r = self.r
        self.extents = r.sample([1, 2, 3, 4, 5, 6], r.randint(2, 3))
        self.large = None
        big = random.Random(self.seed ^ 0xB16E)
        if not self.deriv and big.random() < LARGE_SHARE:
            self.large = big.choice(LARGE) if big.random() < 0.6 else big.randint(20, 200)
            self.extents.append(self.large)
            self.tag("large_extent")
        for _ in range(r.randint(2, 4)):
            self.input()
        for _ in range(r.randint(0, 1)):
            self.input(shape=())
        # An integer offset as programs write it (`let g = 1;`), for where-derived indices with
        # a loop-invariant offset. Its own stream: the programs of every seed stay as they were.
        side = random.Random(self.seed ^ 0x5EED)
        if side.random() < 0.3:
            self.commit([SInput(self.fresh("g"), "i32", (), side.choice([0, 1, 2, 3, -1]),
                                annotate=side.random() < 0.5)])
            self.tag("input_offset")
        kinds = dict(KINDS)
        if self.deriv:
            kinds["error"] = 0
            # SPEC §7 does not list comprehensions among the differentiable constructs (ein
            # says E013, which the SPEC allows), so derivative programs have none.
            kinds["comprehension"] = 0
        if self.deriv and self.bug_on("ad_recurrence_diagonal_read"):
            kinds["state"] = 0
        n = r.randint(2, 5)
        done = 0
        tries = 0
        while done < n and tries < 4 * n:
            tries += 1
            kind = self.ex.pick(kinds)
            res = self.attempt(kind)
            if res == "ok":
                done += 1
            elif res == "error":
                break
        stmts = self.stmts + [p for p in self.prints]
        prog = Program(stmts, seed=self.seed, kind="deriv" if self.deriv else "primal",
                       tags=set(self.tags))
        for t in self.tags:
            self.stats.tags[t] = self.stats.tags.get(t, 0) + 1
        return prog


def generate(seed, deriv=False, bugs=None, stats=None):
    return Gen(seed, deriv, bugs, stats).program()
