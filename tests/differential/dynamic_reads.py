"""Property test: recurrences whose self-reads are positioned by data (`x[idx[t]]`,
`dp[c - w[k]]`, `D[i, jmp[j]]`), the class recurrence_order cannot order at compile time.

Each generated program is run by ein (every given JIT mode) and simulated here point by point in
the evaluation order SPEC §5.5 fixes (ascending, or descending for a recurrence whose base is its
last point). A run that reads a point not computed yet must be E012; any other run must print the
simulated values. A wrong number is the failure this test exists for.

  PYENV_VERSION=system python3 tests/differential/dynamic_reads.py --ein build/ein [--count N] [--seed S]
"""
import os
import random
import subprocess
import sys
import tempfile

import property_args




def fmt(xs):
    return "[" + ", ".join(str(x) for x in xs) + "]"


def gen_forward(r):
    n = r.randint(3, 9)
    idx = [r.randrange(0, n) for _ in range(n)]
    if r.random() < 0.6:  # mostly valid: reads behind the point
        idx = [r.randrange(0, t) if t else 0 for t in range(n)]
        if r.random() < 0.3:
            t = r.randrange(1, n)
            idx[t] = r.randrange(t, n)
    a = r.randint(1, 3)
    src = (f"let idx = {fmt(idx)};\nlet x[0] = 1;\n"
           f"let x[t in 1..{n}] = x[idx[t]] * {a} + t;\nprint(x);\n")
    x = [None] * n
    x[0] = 1
    for t in range(1, n):
        if x[idx[t]] is None:
            return src, None
        x[t] = x[idx[t]] * a + t
    return src, [fmt(x)]


def gen_knapsack(r):
    n = r.randint(4, 10)
    w = [r.randint(0 if r.random() < 0.25 else 1, 4) for _ in range(r.randint(1, 3))]
    v = [float(r.randint(1, 5)) for _ in w]
    src = (f"let w = {fmt(w)};\nlet v = {fmt([f'{x:.1f}' for x in v])};\nlet dp[0] = 0.0;\n"
           f"let dp[c in 1..{n}] = max[k](dp[c - w[k]] + v[k] where w[k] <= c);\nprint(dp);\n")
    dp = [None] * n
    dp[0] = 0.0
    for c in range(1, n):
        best = float("-inf")
        for k in range(len(w)):
            if w[k] <= c:
                if dp[c - w[k]] is None:
                    return src, None
                best = max(best, dp[c - w[k]] + v[k])
        dp[c] = best
    out = ", ".join("-inf" if x == float("-inf") else f"{x:.1f}" for x in dp)
    return src, [f"[{out}]"]


def gen_rows(r):
    m, n = r.randint(2, 4), r.randint(3, 7)
    jmp = [r.randrange(0, j) if j else 0 for j in range(n)]
    if r.random() < 0.4:
        j = r.randrange(1, n)
        jmp[j] = r.randrange(j, n)
    src = (f"let jmp = {fmt(jmp)};\nlet D[i in 0..{m}, 0] = i + 1;\n"
           f"let D[0, j in 1..{n}] = j;\n"
           f"let D[i in 1..{m}, j in 1..{n}] = D[i, jmp[j]] * 2 + D[i - 1, j];\nprint(D);\n")
    D = [[None] * n for _ in range(m)]
    for i in range(m):
        D[i][0] = i + 1
    for j in range(1, n):
        D[0][j] = j
    for i in range(1, m):
        for j in range(1, n):
            if D[i][jmp[j]] is None:
                return src, None
            D[i][j] = D[i][jmp[j]] * 2 + D[i - 1][j]
    return src, ["[" + ", ".join(fmt(row) for row in D) + "]"]


def gen_reverse(r):
    n = r.randint(3, 8)
    nxt = [r.randrange(t + 1, n) if t + 1 < n else n - 1 for t in range(n)]
    if r.random() < 0.4:
        t = r.randrange(0, n - 1)
        nxt[t] = r.randrange(0, t + 1)
    src = (f"let nxt = {fmt(nxt)};\nlet x[{n - 1}] = 2;\n"
           f"let x[t in 0..{n - 1}] = x[nxt[t]] + x[t + 1] + t;\nprint(x);\n")
    x = [None] * n
    x[n - 1] = 2
    for t in range(n - 2, -1, -1):
        if x[nxt[t]] is None:
            return src, None
        x[t] = x[nxt[t]] + x[t + 1] + t
    return src, [fmt(x)]


GENERATORS = [gen_forward, gen_knapsack, gen_rows, gen_reverse]


def run(ein, src, mode):
    with tempfile.NamedTemporaryFile("w", suffix=".ein", delete=False) as f:
        f.write(src)
        path = f.name
    try:
        env = dict(os.environ, EIN_JIT=mode)
        p = subprocess.run([ein, path], capture_output=True, text=True, timeout=120, env=env)
        return p.returncode, p.stdout.splitlines(), p.stderr
    finally:
        os.unlink(path)


def main():
    a, r = property_args.parse()
    bad = errors = 0
    for i in range(a.count):
        src, want = GENERATORS[i % len(GENERATORS)](r)
        errors += want is None
        for mode in a.modes.split(","):
            rc, out, err = run(a.ein, src, mode)
            if want is None:
                ok = rc != 0 and "error[E012]" in err and not out
            else:
                ok = rc == 0 and out == want
            if not ok:
                bad += 1
                print(f"MISMATCH ({mode})\n{src}want: {want or 'E012'}\ngot rc={rc}: {out}\n{err}")
    print(f"dynamic reads: {a.count} programs ({errors} must be E012), {bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
