#!/usr/bin/env python3
"""Differential testing of ein: generated programs against an independent reference evaluator,
across execution tiers, and (for float programs) derivatives against finite differences.

    run.py --ein build/ein                     # 500 programs from seed 1 (the test stage)
    run.py --ein build/ein --count 20000 --seed 7 --jobs 2
    run.py --ein build/ein --program 1000042 -v  # one program, by its own seed
    run.py --show 1000042                      # print a generated program and its expected output

Prints `differential: N programs, M mismatches` and exits 1 on any mismatch. Each mismatch is
shrunk to a small program and written to tests/golden/pending/ (--pending DIR, or
--no-pending). Coverage and the generator's rejection counts: --stats. Needs NumPy.
"""
import argparse
import concurrent.futures
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ROOT = os.path.dirname(os.path.dirname(HERE))

import deriv                                  # noqa: E402
import known_bugs                             # noqa: E402
from gen import Stats, generate               # noqa: E402
from ref import Evaluator, GenBug             # noqa: E402
from refnum import IllConditioned, RefError, Unspecified   # noqa: E402
from render import render                     # noqa: E402
from runner import Expect, MODES, run_batch   # noqa: E402
import shrink                                 # noqa: E402
from compare import fmt_lines                 # noqa: E402


def program_seed(run_seed, i):
    return run_seed * 1_000_000 + i


def expect(prog):
    ev = Evaluator(prog)
    try:
        return Expect(ev.run())
    except RefError as e:
        return Expect(ev.out, e.code, e.compile_time)


class Mismatch:
    def __init__(self, seed, mode, category, message, prog, exp, kind="primal"):
        self.seed, self.mode, self.category, self.message = seed, mode, category, message
        self.prog, self.exp, self.kind = prog, exp, kind
        self.small = None
        self.pending = None


def work(args, seeds, bugs):
    """One batch: generate, evaluate, run every mode, derivative checks. Runs in a worker."""
    import gen
    gen.LARGE_SHARE = args.large_share
    stats = Stats()
    progs, exps, used = [], [], []
    solo = []
    skipped = 0
    for s in seeds:
        try:
            p = generate(s, bugs=bugs, stats=stats)
            e = expect(p)
        except (IllConditioned, Unspecified, GenBug) as exc:
            stats.rejects[f"program: {type(exc).__name__}"] = \
                stats.rejects.get(f"program: {type(exc).__name__}", 0) + 1
            skipped += 1
            continue
        except Exception as exc:        # a bug in this tool: counted and shown, never hidden
            key = f"TOOL BUG {type(exc).__name__}: {str(exc)[:60]} (program {s})"
            stats.rejects[key] = stats.rejects.get(key, 0) + 1
            stats.tool_bugs += 1
            skipped += 1
            continue
        (solo if e.error else progs).append((s, p, e))
    if args.only_deriv:
        progs, solo = [], []
    mismatches = []
    with tempfile.TemporaryDirectory(prefix="ein_diff_") as wd:
        for group in [progs] + [[x] for x in solo]:
            if not group:
                continue
            ps = [p for _, p, _ in group]
            es = [e for _, _, e in group]
            for mode in args.modes:
                verdict = run_batch(args.ein, ps, es, mode, wd)
                for k, v in verdict.items():
                    if v is not None:
                        s, p, e = group[k]
                        mismatches.append(Mismatch(s, mode, v[0], v[1], p, e))
        dstats = deriv.check_batch(args, seeds, bugs, stats, wd, mismatches) \
            if args.deriv else (0, 0)
        # one mismatch per program and category is enough to shrink
        seen = set()
        shrunk = 0
        for m in mismatches:
            key = (m.seed, m.kind, m.category)
            if key in seen:
                m.category += " (also)"
                continue
            seen.add(key)
            if args.shrink > 0 and shrunk < args.max_shrink:
                shrunk += 1
                shrink.shrink_mismatch(args, m, wd)
    return {"programs": len(progs) + len(solo), "skipped": skipped, "stats": stats,
            "mismatches": mismatches, "deriv": dstats}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ein", default=os.path.join(ROOT, "build", "ein"))
    ap.add_argument("--count", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--modes", default="never,auto,always,vector")
    ap.add_argument("--no-deriv", dest="deriv", action="store_false")
    ap.add_argument("--only-deriv", action="store_true",
                    help="run the derivative programs only (no primal runs)")
    ap.add_argument("--large-share", type=float, default=0.1,
                    help="fraction of primal programs with one extent in 20..200")
    ap.add_argument("--local-share", type=float, default=deriv.LOCAL_SHARE,
                    help="fraction of derivative programs drawn by local_ad.py (0..1)")
    ap.add_argument("--program", type=int, help="run one program, given its own seed")
    ap.add_argument("--show", type=int, help="print one program and its expected output")
    ap.add_argument("--all-constructs", action="store_true",
                    help="ignore the known-bug switches (known_bugs.py)")
    ap.add_argument("--shrink", type=float, default=60, help="seconds per mismatch (0: off)")
    ap.add_argument("--max-shrink", type=int, default=3, help="mismatches shrunk per batch")
    ap.add_argument("--pending", default=os.path.join(ROOT, "tests", "golden", "pending"))
    ap.add_argument("--no-pending", dest="pending", action="store_const", const=None)
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--budget", type=float, default=0,
                    help="stop starting batches after this many seconds (0: no limit)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    args.modes = [m for m in args.modes.split(",") if m]
    for m in args.modes:
        if m not in MODES:
            ap.error(f"unknown mode {m}")
    bugs = set() if args.all_constructs else known_bugs.active()
    if args.show is not None:
        p = generate(args.show, bugs=bugs)
        print(render(p), end="")
        e = expect(p)
        for ln in fmt_lines(e.lines):
            print("//>", ln)
        if e.error:
            print("//!", e.error)
        dp = deriv.derivative_program(args.show, bugs)
        if dp is not None:
            print("// derivative check:")
            print(render(dp[0]), end="")
        return 0
    if not os.access(args.ein, os.X_OK):
        print(f"differential: {args.ein} is not an executable", file=sys.stderr)
        return 2
    seeds = [args.program] if args.program is not None else \
        [program_seed(args.seed, i) for i in range(args.count)]
    chunks = [seeds[i:i + args.batch] for i in range(0, len(seeds), args.batch)]
    start = time.time()
    total, skipped, mism = 0, 0, []
    dchecked, dskipped = 0, 0
    stats = Stats()
    if bugs:
        print(f"differential: known-bug switches on: {', '.join(sorted(bugs))}")
    budget_hit = 0
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        # Batches are submitted as workers free up, so that a time budget can stop the run
        # between batches (a loaded machine then runs fewer programs, and says so).
        pending = list(chunks)
        running = set()
        while pending or running:
            while pending and len(running) < args.jobs:
                if args.budget and time.time() - start > args.budget:
                    budget_hit = sum(len(c) for c in pending)
                    pending = []
                    break
                running.add(pool.submit(work, args, pending.pop(0), bugs))
            if not running:
                break
            done, running = concurrent.futures.wait(
                running, return_when=concurrent.futures.FIRST_COMPLETED)
            for f in done:
                r = f.result()
                total += r["programs"]
                skipped += r["skipped"]
                dchecked += r["deriv"][0]
                dskipped += r["deriv"][1]
                stats.merge(r["stats"])
                for m in r["mismatches"]:
                    mism.append(m)
                    report(m, args)
    took = time.time() - start
    if stats.tool_bugs:
        print(f"differential: {stats.tool_bugs} exceptions inside the test tool itself "
              f"(--stats lists them); they count as mismatches")
    if budget_hit:
        print(f"differential: the {args.budget:.0f} s budget ran out: {budget_hit} of "
              f"{len(seeds)} programs were not run (a loaded machine?)")
    if args.stats:
        print_stats(stats)
    print(f"differential: {total} programs, {len(mism)} mismatches "
          f"({dchecked} derivative checks, {dskipped} skipped as non-smooth; "
          f"{skipped} programs without one expected output; {took:.0f}s)")
    return 1 if mism or stats.tool_bugs else 0


def report(m, args):
    print(f"MISMATCH seed {m.seed} [{m.kind}] EIN_JIT mode {m.mode}: {m.category}: {m.message}")
    if m.pending:
        print(f"  shrunk to {m.pending}")
    if args.verbose or m.pending is None:
        src = render(m.small or m.prog)
        print("  " + src.replace("\n", "\n  ").rstrip())


def print_stats(stats):
    print("constructs (programs using each):")
    for k, v in sorted(stats.tags.items()):
        print(f"  {k:32s} {v}")
    print("statement kinds kept:")
    for k, v in sorted(stats.kinds.items()):
        print(f"  {k:32s} {v}")
    print("draws rejected by the reference (redrawn):")
    for k, v in sorted(stats.rejects.items(), key=lambda x: -x[1]):
        print(f"  {v:6d}  {k}")


if __name__ == "__main__":
    sys.exit(main())
