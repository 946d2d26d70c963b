"""Property test: reductions whose body ends in `where GUARD else FALLBACK` (docs/language.md:
a point failing the guards contributes the fallback). Random f64 data, reduction kind, guards on
the element or the index, where-bindings and fallbacks, as a whole reduction and per row of a
declaration; expected values from NumPy (np.where, then the reduction).

  PYENV_VERSION=system python3 tests/differential/reduce_else.py --ein build/ein [--count N] [--seed S]
"""

import property_args

import numpy as np

OPS = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


def lit(x):
    return repr(float(x))


def gen(r):
    m, n = r.randint(1, 4), r.randint(1, 6)
    a = np.array([[r.randint(-9, 9) / 2 for _ in range(n)] for _ in range(m)])
    op = r.choice(list(OPS))
    thr = r.randint(-6, 6) / 2
    fb = r.randint(-4, 4) / 2
    kind = r.randrange(3)
    if kind == 0:  # guard on the element
        guard, mask = f"A[i, j] > {lit(thr)}", a > thr
    elif kind == 1:  # guard on the index, through a binding
        k = r.randint(0, n)
        guard, mask = f"z < {k}", np.broadcast_to(np.arange(n) < k, a.shape)
    else:  # two guards
        k = r.randint(0, n)
        guard, mask = f"A[i, j] <= {lit(thr)}, j >= {k}", (a <= thr) & (np.arange(n) >= k)
    fallback = r.choice([lit(fb), "-A[i, j]", "A[i, j] * 2.0"])
    fvals = {lit(fb): np.full(a.shape, fb), "-A[i, j]": -a, "A[i, j] * 2.0": a * 2}[fallback]
    vals = np.where(mask, a * 3, fvals)
    rows = "[" + ", ".join("[" + ", ".join(lit(x) for x in row) + "]" for row in a) + "]"
    body = f"A[i, j] * 3.0 where z = j, {guard} else {fallback}"
    src = (f"let A = {rows} as [f64];\n"
           f"let r[i] = {op}[j]({body});\nprint(r);\n"
           f"print({op}[i, j]({body}));\n")
    f = OPS[op]
    want = [f(vals, axis=1), f(vals)]
    return src, want


def parse(line):
    line = line.strip().strip("[]")
    return np.array([float(x) for x in line.split(",")]) if line else np.array([])


def check(p, want):
    out = p.stdout.splitlines()
    if p.returncode != 0 or len(out) != 2:
        return False
    got = [parse(out[0]), parse(out[1])]
    return all(g.shape == np.atleast_1d(w).shape and np.allclose(g, np.atleast_1d(w), rtol=1e-12, atol=0)
               for g, w in zip(got, want))


def main():
    a, r = property_args.parse()
    property_args.run_all(a, r, gen, check, "reduce else")


if __name__ == "__main__":
    main()
