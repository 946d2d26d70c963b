#!/usr/bin/env python3
"""Survey (not a test stage, session 23): the diagnostics of std functions misused as programs
misuse them (gen/diag_table.py: wrong ranks, lengths that disagree, axes out of range, attribute
lists of the wrong length, k past the axis, reshape counts, indices out of range at run time).
Each case runs as its own program in EIN_JIT=never and always and must

- exit with a status other than 0 and print nothing (never a value, never a crash or a hang),
- report an error code the table accepts (never E007 "division by zero" / "index out of range"
  raised inside the library: the cause is the arguments),
- put the first error's location (` --> FILE:LINE:COL`) on the line of the user's call (also
  when the call is inside a user function: the `fn:` cases), and
- say in the first error's message what it is about (one of the table's words, usually the
  parameter's name).

    PYENV_VERSION=system python3 tests/stdlib/survey_diag.py --ein build/ein [--out DIR] [-k TEXT] [-v]
"""
import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "gen"))

import diag_table  # noqa: E402
from diag_table import program  # noqa: E402

def judge(name, call, codes, words, mode, ein, out):
    src, at = program(name, call)
    path = os.path.join(out, f"{name.replace(':', '_')}_{mode}.ein")
    with open(path, "w") as f:
        f.write(src)
    env = dict(os.environ, EIN_JIT=mode)
    try:
        r = subprocess.run([ein, os.path.basename(path)], cwd=out, capture_output=True, text=True, timeout=120,
                           env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return ["timeout"], ""
    problems = []
    err = r.stderr
    first = next((l for l in err.split("\n") if l.startswith("error[")), "")
    if r.returncode == 0:
        problems.append("exit 0")
    elif r.returncode < 0 or r.returncode >= 128:
        problems.append(f"crash (status {r.returncode})")
    if r.stdout.strip():
        problems.append(f"printed {r.stdout.strip()[:60]!r}")
    m = re.match(r"error\[(E\d+)\]: (.*)", first)
    if not m:
        problems.append("no error code")
    else:
        code, msg = m.group(1), m.group(2)
        if code not in codes.split():
            problems.append(f"code {code} (want {codes})")
        if not any(w.lower() in msg.lower() for w in words):
            problems.append(f"message names none of {words}")
        loc = re.search(r"--> ([^:\n]+):(\d+):", err)
        if not loc or os.path.basename(loc.group(1)) != os.path.basename(path) or int(loc.group(2)) != at:
            problems.append(f"located at {loc.group(1) + ':' + loc.group(2) if loc else 'nowhere'} (want line {at})")
    return problems, first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", required=True)
    ap.add_argument("--out", default="/tmp/ein_stdlib_diag_survey")
    ap.add_argument("-k", default="", help="only the cases whose name or call contains TEXT")
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--modes", default="never,always")
    ap.add_argument("-v", action="store_true", help="also print the first error line of passing cases")
    args = ap.parse_args()
    ein = os.path.abspath(args.ein)
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    jobs = [(c, mode) for c in diag_table.CASES if args.k in c[0] or args.k in c[1] for mode in args.modes.split(",")]
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        results = list(pool.map(lambda j: judge(*j[0], j[1], ein, args.out), jobs))
    for ((name, call, _, _), mode), (problems, first) in zip(jobs, results):
        if problems:
            failed += 1
            print(f"FAIL {name} [{mode}] {call}: {'; '.join(problems)}\n     {first[:160]}")
        elif args.v:
            print(f"PASS {name} [{mode}] {first[:160]}")
    print(f"{len(jobs) - failed} passed, {failed} failed ({len(jobs)} runs: cases x {args.modes})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
