#!/usr/bin/env python3
"""Survey (not a test stage): every top-level gradient case of tests/stdlib/autodiff/grad rewritten
as a gradient requested inside a generic function, `fn grad_x(params) { let out_ = ..; let loss_
= ..; @loss_ / @x }`, where extents are known only when it runs. Writes the files to OUT and runs
them with run_golden.py; the expected values are the cases' own (NumPy finite differences).

Annotated top-level lets become parameters, unannotated ones are copied into the body. Cases
whose inputs come from a destructuring `let (a, b) = ..` or a closure over a top-level value
read those globals (not the parameter) and are not meaningful here (split_destructured,
euler_closure, rk4_closure).

    PYENV_VERSION=system python3 tests/stdlib/survey_in_fn.py --ein build/ein [--out DIR]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rewrite(text):
    head, params, inner, body, checks = [], [], [], [], []
    in_body = False
    for line in text.split("\n"):
        m = re.match(r"let (\w+)(:[^=]*)?= ", line)
        in_body = in_body or line.startswith("let out_")
        if not in_body:
            if m and m.group(2):
                params.append(m.group(1))
                head.append(line)
            elif m:
                inner.append(line)
            else:
                head.append(line)
            continue
        mp = re.match(r"print\(@loss_ / @(\w+)\);", line)
        if mp:
            checks.append([mp.group(1), None])
        elif line.startswith("//>") and checks:
            checks[-1][1] = line
        elif line.strip():
            body.append(line)
    if not checks or any(c[1] is None for c in checks) or any(not b.startswith("let ") for b in body):
        return None
    out = "\n".join(head) + "\n"
    for v, expected in checks:
        out += "fn grad_%s(%s) { %s @loss_ / @%s }\n" % (v, ", ".join(params), " ".join(inner + body), v)
        out += "print(grad_%s(%s));\n%s\n" % (v, ", ".join(params), expected)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--out", default="/tmp/ein_stdlib_in_fn_survey")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    n = 0
    for f in sorted(glob.glob(os.path.join(HERE, "autodiff", "grad", "*.ein"))):
        if os.path.basename(f).startswith("in_fn_"):
            continue
        text = rewrite(open(f, encoding="utf-8").read())
        if text:
            open(os.path.join(args.out, os.path.basename(f)), "w", encoding="utf-8").write(text)
            n += 1
    print(f"{n} cases rewritten into {args.out}", flush=True)
    runner = os.path.join(HERE, "..", "golden", "run_golden.py")
    return subprocess.call([sys.executable, runner, "--ein", args.ein, "--dir", args.out, "-j", "2"])


if __name__ == "__main__":
    sys.exit(main())
