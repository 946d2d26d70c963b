#!/usr/bin/env python3
"""Property test of the range rule (SPEC §5.2) against brute-force enumeration.

Generates random Einstein declarations whose output index `o` has no explicit range, with
affine index expressions: offsets, negative and non-unit coefficients (strides), reductions
over constant and dependent inner ranges (`k in 0..o + 1`), where-derived indices, strides
given at run time (a function parameter), two uses of `o` at once, and array literals. Kind
`inner` turns it around: `o` has an explicit range and the inner `k` is inferred, per `o`.

For each one an independent enumerator (plain Python, no ein) decides which `o >= 0` keep
every access in bounds for every value of the inner indices; SPEC §5.2 makes `o` run over the
largest such interval, so the expected output is computed point by point in Python: 0 below
the start, the reduction above it, length = the end. The program printed by ein must match
exactly. A case whose valid set is empty only requires every printed value to be 0.

    python3 tests/ranges/property_ranges.py --ein build/ein [--cases 300] [--seed 1] [-v]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile


class Case:
    """One declaration `let yN[o] = ...;` and the Python model of it."""

    def __init__(self, rng, n):
        self.name = "y%d" % n
        self.in_fn = False
        self.stride_param = None
        self.lines = []
        lens = rng.choice([4, 5, 6, 7, 9, 12])
        self.xlen = lens
        self.x = [rng.randint(1, 9) for _ in range(lens)]
        kind = rng.choice(["offset", "stride", "dep", "two", "where", "param", "literal", "neg", "twoaxis",
                           "inner", "inner"])
        self.kind = kind
        a = rng.choice([1, 1, 2, 3])
        b = rng.randint(-4, 4)
        K = rng.randint(1, 4)
        c = rng.choice([1, 1, 2])
        if kind == "offset":
            # x[o + b]
            self.expr = "o + (%d)" % b
            self.ev = lambda o, k: o + b
            self.krange = None
        elif kind == "stride":
            # x[o * a + k * c + b], k in 0..K
            self.expr = "o * %d + k * %d + (%d)" % (a, c, b)
            self.ev = lambda o, k: o * a + k * c + b
            self.krange = ("0", "%d" % K, lambda o: range(0, K))
        elif kind == "dep":
            # causal / prefix forms: x[o - k + b] with k in 0..o + 1 (+ shift), never empty for o >= 0
            s = rng.randint(0, 2)
            self.expr = "o * %d - k + (%d)" % (a, b)
            self.ev = lambda o, k: o * a - k + b
            self.krange = ("%d" % s, "o + %d" % (s + 1), lambda o: range(s, o + s + 1))
        elif kind == "two":
            # two uses: x[o + b] and x[o * a + k] with k in 0..K
            b2 = rng.randint(-3, 3)
            self.expr = None
            self.expr2 = ("o + (%d)" % b2, "o * %d + k" % a)
            self.ev2 = (lambda o, k: o + b2, lambda o, k: o * a + k)
            self.krange = ("0", "%d" % K, lambda o: range(0, K))
        elif kind == "where":
            # a where-derived index p = o * a + k + b
            self.expr = "p"
            self.where = "p = o * %d + k + (%d)" % (a, b)
            self.ev = lambda o, k: o * a + k + b
            self.krange = ("0", "%d" % K, lambda o: range(0, K))
        elif kind == "param":
            # the stride is a run-time parameter of a function
            self.in_fn = True
            self.stride_param = a
            self.expr = "o * s + k + (%d)" % b
            self.ev = lambda o, k: o * a + k + b
            self.krange = ("0", "%d" % K, lambda o: range(0, K))
        elif kind == "literal":
            # plain and offset uses on an array literal
            self.expr = "o + (%d)" % b
            self.ev = lambda o, k: o + b
            self.krange = None
        elif kind == "neg":
            # reversed: x[b2 - o * a - k]
            b2 = rng.randint(0, lens + 3)
            self.expr = "%d - o * %d - k" % (b2, a)
            self.ev = lambda o, k: b2 - o * a - k
            self.krange = ("0", "%d" % K, lambda o: range(0, K))
        elif kind == "inner":
            # an explicit outer range, the inner index inferred: x[o * a + k * c + b], and w[k]
            # when `self.w` is set. The outer range is never narrowed; k gets, at each o, the
            # values that keep every use in bounds (a dependent range, docs/language.md).
            self.n_outer = rng.randint(1, lens + 2)
            self.w = [rng.randint(1, 5) for _ in range(K)] if rng.random() < 0.5 else None
            self.expr = "o * %d + k * %d + (%d)" % (a, c, b)
            self.ev = lambda o, k: o * a + k * c + b
            self.krange = "inner"
        elif kind == "twoaxis":
            # a 2-D array indexed [o + b, k] with k over its second axis (a plain use)
            self.cols = rng.randint(1, 4)
            self.m = [[rng.randint(1, 9) for _ in range(self.cols)] for _ in range(lens)]
            self.expr = "o + (%d)" % b
            self.ev = lambda o, k: o + b
            self.krange = "plain"

    def valid(self, o):
        n = self.xlen
        if self.kind == "two":
            ks = self.krange[2](o)
            return all(0 <= f(o, k) < n for f in self.ev2 for k in ks)
        if self.krange is None or self.krange == "plain":
            return 0 <= self.ev(o, 0) < n
        ks = list(self.krange[2](o))
        return all(0 <= self.ev(o, k) < n for k in ks)

    def point(self, o):
        if self.kind == "two":
            return sum(self.x[self.ev2[0](o, k)] + self.x[self.ev2[1](o, k)] for k in self.krange[2](o)) + 1
        if self.krange is None:
            return self.x[self.ev(o, 0)] + 1
        if self.krange == "plain":
            return sum(self.m[self.ev(o, 0)][k] for k in range(self.cols)) + 1
        return sum(self.x[self.ev(o, k)] for k in self.krange[2](o)) + 1

    def expected(self):
        if self.kind == "inner":
            out = []
            for o in range(self.n_outer):
                ks = [k for k in range(0, 80) if 0 <= self.ev(o, k) < self.xlen and
                      (self.w is None or k < len(self.w))]
                assert ks == list(range(ks[0], ks[-1] + 1)) if ks else True
                w = self.w or [1] * 80
                out.append(sum(self.x[self.ev(o, k)] * w[k] for k in ks) + 1)
            return out
        ok = [o for o in range(0, 80) if self.valid(o)]
        if not ok:
            return None
        lo = ok[0]
        hi = lo
        while hi in ok:
            hi += 1
        assert all(o < hi for o in ok), "valid set is not an interval"  # affine: never happens
        return [0] * lo + [self.point(o) for o in range(lo, hi)]

    def source(self):
        arr = "[" + ", ".join(map(str, self.x)) + "]"
        xs = "x_" + self.name
        out = []
        if self.kind == "twoaxis":
            out.append("let %s = [%s];" % (xs, ", ".join("[" + ", ".join(map(str, r)) + "]" for r in self.m)))
            body = "sum[k](%s[%s, k]) + 1" % (xs, self.expr)
            out.append("let %s[o] = %s;" % (self.name, body))
            return out
        if self.kind == "inner":
            out.append("let %s = %s;" % (xs, arr))
            term = "%s[%s]" % (xs, self.expr)
            if self.w is not None:
                out.append("let w_%s = [%s];" % (self.name, ", ".join(map(str, self.w))))
                term += " * w_%s[k]" % self.name
            out.append("let %s[o in 0..%d] = sum[k](%s) + 1;" % (self.name, self.n_outer, term))
            return out
        if self.kind == "literal":
            out.append("let %s[o] = %s[%s] + 1;" % (self.name, arr, self.expr))
            return out
        out.append("let %s = %s;" % (xs, arr))
        if self.kind == "two":
            red = "sum[k in %s..%s](%s[%s] + %s[%s])" % (self.krange[0], self.krange[1], xs, self.expr2[0], xs,
                                                         self.expr2[1])
            out.append("let %s[o] = %s + 1;" % (self.name, red))
            return out
        if self.krange is None:
            out.append("let %s[o] = %s[%s] + 1;" % (self.name, xs, self.expr))
            return out
        inner = "%s[%s]" % ("v" if self.in_fn else xs, self.expr)
        red = "sum[k in %s..%s](%s%s)" % (self.krange[0], self.krange[1], inner,
                                          " where " + self.where if self.kind == "where" else "")
        if self.in_fn:
            fn = "f_" + self.name
            out.append("fn %s(v, s) { let r[o] = %s + 1; r }" % (fn, red))
            out.append("let %s = %s(%s, %d);" % (self.name, fn, xs, self.stride_param))
        else:
            out.append("let %s[o] = %s + 1;" % (self.name, red))
        return out


def run(ein, cases, env, verbose):
    lines = []
    for c in cases:
        lines += c.source()
        lines.append("print(%s);" % c.name)
    src = "\n".join(lines) + "\n"
    with tempfile.NamedTemporaryFile("w", suffix=".ein", delete=False) as f:
        f.write(src)
        path = f.name
    try:
        p = subprocess.run([ein, path], capture_output=True, text=True, env=env, timeout=300)
    finally:
        os.unlink(path)
    if p.returncode != 0:
        return ["ein failed (%d):\n%s\n--- program ---\n%s" % (p.returncode, p.stderr, src)]
    got = p.stdout.splitlines()
    failures = []
    if len(got) != len(cases):
        return ["expected %d lines, got %d:\n%s" % (len(cases), len(got), p.stdout)]
    for c, line in zip(cases, got):
        exp = c.expected()
        vals = [int(t) for t in line.strip("[]").split(",") if t.strip()]
        if exp is None:
            if any(vals):
                failures.append("%s: no valid o, yet ein computed %s\n  %s" % (c.name, line, "\n  ".join(c.source())))
        elif vals != exp:
            failures.append("%s: expected %s, got %s\n  %s" % (c.name, exp, line, "\n  ".join(c.source())))
        elif verbose:
            print("ok %s %s" % (c.kind, " ".join(c.source())))
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ein", default="build/ein")
    ap.add_argument("--cases", type=int, default=int(os.environ.get("EIN_RANGE_CASES", "240")))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-file", type=int, default=60)
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    failures = []
    for mode in ("never", "auto"):
        env = dict(os.environ, EIN_JIT=mode)
        for start in range(0, args.cases, args.per_file):
            batch = [Case(rng, i) for i in range(start, min(args.cases, start + args.per_file))]
            failures += ["[EIN_JIT=%s] %s" % (mode, f) for f in run(args.ein, batch, env, args.v)]
    for f in failures:
        print("FAIL " + f)
    print("%d cases x 2 modes, %d failures" % (args.cases, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
