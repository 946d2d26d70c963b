"""Property test: sums, maxima and minima keeping the terms whose key equals a declaration index
(histograms, segment sums and extrema, two-key counts: the forms lang/passes/scatter_plan.h turns
into one pass). Random
keys of every integer width (some outside the index's range, negative too), ranges starting
above 0, values of every numeric type, the other axis inside or outside the pass (also when the key
reads it), extra guards and where-bindings; expected values from NumPy loops over the same data.

  PYENV_VERSION=system python3 tests/differential/keyed_sums.py --ein build/ein [--count N] [--seed S]
"""
import property_args

import numpy as np

VALUE_TYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64}


def arr(xs, t):
    inner = ", ".join(str(int(x)) if t.startswith("i") else repr(float(x)) for x in xs)
    return f"[{inner}] as [{t}]"


def arr2(rows, t):
    return "[" + ", ".join("[" + ", ".join(str(int(x)) if t.startswith("i") else repr(float(x)) for x in row)
                           + "]" for row in rows) + f"] as [{t}]"


def gen(r):
    n = r.randint(0, 40)
    kt = r.choice(["i8", "i32", "i64"])
    vt = r.choice(list(VALUE_TYPES))
    lo, hi = r.choice([0, 0, 1, 2]), r.randint(3, 7)
    keys = [r.randint(-2, hi + 2) for _ in range(n)]
    d = r.randint(1, 3)
    if vt.startswith("i"):
        vals = [[r.randint(-50, 50) for _ in range(d)] for _ in range(n)]
    else:
        vals = [[r.randint(-40, 40) / 4 for _ in range(d)] for _ in range(n)]
    V = np.array(vals, dtype=VALUE_TYPES[vt]).reshape(n, d)
    K = np.array(keys, dtype=np.int64)
    lines = [f"let key = {arr(keys, kt)};", f"let V = {arr2(vals, vt) if n else f'[[0]] as [{vt}]'};"]
    if n == 0:
        # An empty domain: a 0-row V built at run time.
        lines = [f"let key = [k | k in {arr([1], kt)}, k > 5];",
                 f"let m = len(key);",
                 f"let V[i in 0..m, c in 0..{d}] = 1 as {vt};"]
    form = r.randrange(8)
    zero = VALUE_TYPES[vt](0)
    want = None
    thr = r.randint(-20, 20) // 2
    cmp_thr = f"{thr}" if vt.startswith("i") else f"{float(thr)!r}"
    if form == 0:  # 1-D histogram of values
        lines.append(f"let h[b in {lo}..{hi}] = sum[i](V[i, 0] where key[i] == b);")
        want = np.zeros(hi, dtype=np.float64)
        for i in range(n):
            if lo <= K[i] < hi:
                want[K[i]] += V[i, 0]
    elif form == 1:  # segment sums, other axis inner or outer
        order = r.choice(["g, c", "c, g"])
        lines.append(f"let h[{order.replace('g', f'g in {lo}..{hi}')}] = sum[i](V[i, c] where key[i] == g);")
        want = np.zeros((hi, d), dtype=np.float64)
        for i in range(n):
            if lo <= K[i] < hi:
                want[K[i]] += V[i]
        if order == "c, g":
            want = want.T
    elif form == 2:  # a guard reading the other axis, and a binding
        lines.append(f"let h[g in {lo}..{hi}, c] = sum[i](V[i, c] * 2 as {vt} where q = key[i] - 1, "
                     f"V[i, c] > {cmp_thr}, q + 1 == g);")
        want = np.zeros((hi, d), dtype=np.float64)
        for i in range(n):
            if lo <= K[i] < hi:
                want[K[i]] += np.where(V[i] > thr, V[i] * 2, 0)
    elif form == 3:  # counts
        lines.append(f"let h[b in {lo}..{hi}] = sum[i](1 where b == key[i]);")
        want = np.zeros(hi, dtype=np.float64)
        for i in range(n):
            if lo <= K[i] < hi:
                want[K[i]] += 1
    elif form == 5:  # a key reading the other axis (the adjoint of x[n, idx[n, k]])
        lines.append(f"let k2[i, c in 0..{d}] = (key[i] + (c as {kt})) % ({hi + 1} as {kt});")
        lines.append(f"let h[i, b in {lo}..{hi}] = sum[c](V[i, c] where k2[i, c] == b);")
        want = np.zeros((n, hi), dtype=np.float64)
        for i in range(n):
            for c in range(d):
                k2 = int(np.fmod(K[i] + c, hi + 1))
                if lo <= k2 < hi:
                    want[i, k2] += V[i, c]
    elif form in (6, 7):  # segment max / min (float values: an empty segment is -inf / +inf)
        op = "max" if form == 6 else "min"
        val = "V[i, c]" if vt.startswith("f") else "V[i, c] as f64"
        order = r.choice(["g, c", "c, g"])
        lines.append(f"let h[{order.replace('g', f'g in {lo}..{hi}')}] = {op}[i]({val} where key[i] == g);")
        want = np.full((hi, d), -np.inf if op == "max" else np.inf, dtype=np.float64)
        for i in range(n):
            if lo <= K[i] < hi:
                want[K[i]] = np.maximum(want[K[i]], V[i]) if op == "max" else np.minimum(want[K[i]], V[i])
        want[:lo] = 0  # points below the range are not the clause's: 0, as in every tensor
        if order == "c, g":
            want = want.T
    else:  # two keys
        lines.append(f"let k2[i] = (key[i] * 3 + 1) % 4;")
        lines.append(f"let h[a in {lo}..{hi}, b in 0..4] = sum[i](V[i, 0] where key[i] == a, k2[i] == b);")
        want = np.zeros((hi, 4), dtype=np.float64)
        for i in range(n):
            k2 = int(np.fmod(K[i] * 3 + 1, 4))  # remainder with the dividend's sign, as in ein
            if lo <= K[i] < hi and 0 <= k2 < 4:
                want[K[i], k2] += V[i, 0]
    lines.append("print(h);")
    if vt == "f32":
        want = want.astype(np.float32)
    return "\n".join(lines) + "\n", want


def parse(text):
    import json
    import re
    return np.array(json.loads(re.sub(r"\binf\b", "Infinity", text.strip())), dtype=np.float64)


def check(p, want):
    if p.returncode != 0:
        return False
    try:
        got = parse(p.stdout)
    except ValueError:
        return False
    if want.size == 0:  # `[]` prints no inner axes: any empty array matches
        return got.size == 0
    return got.shape == want.shape and np.array_equal(got, want.astype(np.float64))


def main():
    a, r = property_args.parse()
    property_args.run_all(a, r, gen, check, "keyed sums")


if __name__ == "__main__":
    main()
