#!/usr/bin/env python3
"""Checks that library code compiles to native kernels like user code: plans every test
program of tests/stdlib/cases with EIN_JIT=always (`ein --dump-ir kernel`, which plans without
compiling) and lists the Einstein clauses of std:: functions left to the interpreter, with the
planner's reason. The clauses allowed to stay interpreted are in kernels_allowed.txt (function
and reason: rank-0 results of rest patterns on scalars, closures, recursion, per-axis
parameter arrays of a few elements); any other one fails the check, as does one named in
NEVER_INTERPRETED (the N-D convolutions and pools, whose work is in those clauses).

    python3 tests/stdlib/check_kernels.py --ein build/ein [-v]
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ALLOWED = os.path.join(HERE, "kernels_allowed.txt")
NEVER_INTERPRETED = re.compile(r"^(conv[123]|convt[123]|pool[123]|bias_of|keep_spatial|global_\w+_pool|max_roi_pool)$")
LINE = re.compile(r"^interpreted \((?:(\w+)\(.*\) )?line \d+\): (.*)$")


def plan(ein, path):
    env = dict(os.environ, EIN_JIT="always")
    p = subprocess.run([ein, "--dump-ir", "kernel", os.path.basename(path)], cwd=os.path.dirname(path),
                       capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    return p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(ROOT, "build", "ein"))
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    allowed = set()
    with open(ALLOWED, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                fn, _, why = line.partition("  ")
                allowed.add((fn.strip(), why.strip()))
    seen = {}
    cases = os.path.join(HERE, "cases")
    for d, _, files in os.walk(cases):
        # runtime/: inputs typed when they run; a plan made without running (as here) sees
        # them dynamic, while a run types them first (staged cells, docs/language.md).
        if os.sep + "errors" in d or os.sep + "runtime" in d:
            continue
        for f in sorted(files):
            if not f.endswith(".ein"):
                continue
            # Functions the test program defines itself are user code (the outside hunts' training
            # steps), not the library's: a clause of theirs left to the interpreter is the
            # compiler's business (reported elsewhere), not a library kernel gap.
            with open(os.path.join(d, f), encoding="utf-8") as src:
                own = set(re.findall(r"^\s*(?:pub\s+)?fn\s+(\w+)", src.read(), re.M))
            for line in plan(args.ein, os.path.join(d, f)).split("\n"):
                m = LINE.match(line)
                if m and m.group(1) and m.group(1) not in own:
                    seen.setdefault((m.group(1), m.group(2)), set()).add(os.path.relpath(os.path.join(d, f), cases))
    bad = 0
    for (fn, why), where in sorted(seen.items()):
        if NEVER_INTERPRETED.match(fn) or (fn, why) not in allowed:
            bad += 1
            print(f"FAIL {fn}: interpreted ({why}) in {', '.join(sorted(where))}")
        elif args.v:
            print(f"allowed {fn}: {why}")
    for fn, why in sorted(allowed - set(seen)):
        print(f"note: {fn} ({why}) is compiled now; its line in {os.path.relpath(ALLOWED, ROOT)} can go")
    print(f"{len(seen) - bad} interpreted library clause kinds, all allowed" if not bad else
          f"{bad} library clause kind(s) interpreted that should be kernels")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
