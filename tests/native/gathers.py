#!/usr/bin/env python3
"""Generated gathers against NumPy, in every JIT mode.

A gather reads a tensor at a subscript that is another tensor's value: a row gather
`T[I[n], d]`, a shifted one `T[I[n] + c, d]`, token pooling `sum[s](T[I[b, s], d])`, a label
pick `L[n, I[n]]`, and guarded forms (`where I[n] >= 0 && I[n] < V else v`). Native kernels scan
the index tensor once at entry for its extremes and then read unchecked (engine/codegen/
gen_check.cpp); this test checks that scan against NumPy with random index dtypes (i8, i32,
i64), value ranges that fit, straddle or leave the axis, and sizes on both sides of the JIT
threshold. In-bounds cases run as one program; each case whose unguarded index leaves the axis
runs alone and must stop with E005 at its line in every mode, never print a value.
Expected values come from NumPy, never from ein.

  PYENV_VERSION=system python3 tests/native/gathers.py [--ein build/ein] [--cases 40] [--seed 1]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contractions import NUM, data_expr  # noqa: E402


def index_tensor(rng, name, shape, lo, span):
    """An integer index tensor with values lo .. lo + span - 1 (every one of them present when
    the tensor is big enough), in a random dtype."""
    dt = rng.choice(["i8", "i32", "i64"]) if -128 <= lo and lo + span <= 127 else rng.choice(["i32", "i64"])
    a, b = rng.choice([7, 13, 31, 97]), rng.randrange(50)
    ranges = ", ".join(f"a{i} in 0..{n}" for i, n in enumerate(shape))
    flat = "a0" if len(shape) == 1 else f"a0 * {shape[1]} + a1"
    ein = f"let {name}[{ranges}] = ((({flat}) * {a} + {b}) % {span} + {lo}) as {dt};"
    grid = np.indices(shape, dtype=np.int64)
    flat_np = grid[0] if len(shape) == 1 else grid[0] * shape[1] + grid[1]
    return ein, (flat_np * a + b) % span + lo


def gen_case(rng, c, bad):
    """(ein lines, checks [(name, expected array, dtype)], error line offset or None)."""
    dt = rng.choice(["f32", "f64"])
    big = rng.random() < 0.5
    V, D = (rng.choice([300, 1000]), rng.choice([64, 128])) if big else (rng.choice([5, 17, 40]), rng.choice([1, 3, 8]))
    N = rng.choice([2000, 5000]) if big else rng.choice([1, 4, 33])
    tdecl, T = data_expr(f"T{c}", [V, D], dt, rng.randrange(100))
    form = rng.choice(["rows", "shift", "pool", "pick", "guard"])
    shift = rng.choice([-2, -1, 1, 3]) if form == "shift" else 0
    lo, span = -shift, V  # in bounds: shift + lo .. shift + lo + span - 1 == 0 .. V - 1
    if form == "guard" or bad:
        lo, span = rng.choice([(-3, V + 3), (0, V + 2), (-1, V + 1), (0, V + 1), (0, V + 1)])
        lo -= shift
    if form == "pool":
        shape = [rng.choice([3, 16]) if big else 2, rng.choice([8, 50]) if big else 3]
    else:
        shape = [N]
    idecl, I = index_tensor(rng, f"I{c}", shape, lo, span)
    # Read twice, so the index tensor is a buffer (a single read would fuse its formula).
    lines = [tdecl, idecl, f"let IS{c} = sum[{', '.join(f'x{i}' for i in range(len(shape)))}]"
             f"(I{c}[{', '.join(f'x{i}' for i in range(len(shape)))}] as i64);"]
    checks = [(f"IS{c}", np.array(I.sum(), dtype=np.float64), "i64")]
    T64 = T.astype(np.float64)
    if form in ("rows", "shift", "guard"):
        sub = f"I{c}[n]" + (f" + {shift}" if shift > 0 else f" - {-shift}" if shift < 0 else "")
        if form == "guard":
            stmt = f"let G{c}[n, d] = T{c}[{sub}, d] * 2.0 where I{c}[n] >= 0 && I{c}[n] < {V} else 0.5;"
            ok = (I >= 0) & (I < V)
            want = np.where(ok[:, None], T64[np.clip(I, 0, V - 1)] * 2.0, 0.5)
        else:
            stmt = f"let G{c}[n, d] = T{c}[{sub}, d] * 2.0;"
            want = T64[np.clip(I + shift, 0, V - 1)] * 2.0
    elif form == "pool":
        stmt = f"let G{c}[b, d] = sum[s](T{c}[I{c}[b, s], d]);"
        want = T64[np.clip(I, 0, V - 1)].sum(1)
    else:
        ldecl, L = data_expr(f"L{c}", [shape[0], V], dt, rng.randrange(100))
        lines.append(ldecl)
        stmt = f"let G{c}[n] = L{c}[n, I{c}[n]] - 1.0;"
        want = L.astype(np.float64)[np.arange(shape[0]), np.clip(I, 0, V - 1)] - 1.0
    lines.append(stmt)
    checks.append((f"G{c}", want, dt))
    out_of_axis = bool(((I + shift < 0) | (I + shift >= V)).any())
    return lines, checks, (len(lines) if bad and form != "guard" and out_of_axis else None)


def run(ein, path, mode):
    env = dict(os.environ, EIN_JIT=mode)
    return subprocess.run([ein, path], capture_output=True, text=True, env=env, timeout=600)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "ein"))
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lines, checks, bad = [], [], []
    for c in range(args.cases):
        is_bad = c % 3 == 2
        src, ch, err_line = gen_case(rng, c, is_bad)
        if is_bad and err_line is not None:
            bad.append((src, err_line, src[-1]))
        elif not is_bad:
            lines += src
            checks += ch
    samples = []
    for name, want, _ in checks:
        pts = {tuple(0 for _ in want.shape), tuple(n - 1 for n in want.shape)}
        while len(pts) < min(16, want.size):
            pts.add(tuple(rng.randrange(n) for n in want.shape))
        pts = sorted(pts)
        samples.append(np.array([want[p] for p in pts], dtype=np.float64))
        lines.append("print(" + ", ".join(f"{name}[{', '.join(map(str, p))}]" if p else name for p in pts) + ");")
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "gathers.ein")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    failed = 0
    for mode in ["never", "always", "auto"]:
        p = run(args.ein, path, mode)
        if p.returncode != 0:
            print(f"FAIL EIN_JIT={mode}: exit {p.returncode}\n{p.stderr}")
            failed += 1
            continue
        outs = p.stdout.strip().split("\n")
        for (name, _, dt), want, line in zip(checks, samples, outs):
            got = np.array([float(x) for x in NUM.findall(line)])
            tol = 1e-4 if dt == "f32" else 1e-9
            if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
                failed += 1
                print(f"FAIL EIN_JIT={mode} {name}\n  want {want[:8]}\n  got  {got[:8]}")
        if len(outs) != len(checks):
            print(f"FAIL EIN_JIT={mode}: {len(outs)} lines for {len(checks)} checks")
            failed += 1
    for k, (src, err_line, stmt) in enumerate(bad):
        bpath = os.path.join(tmp, f"bad{k}.ein")
        with open(bpath, "w") as f:
            f.write("\n".join(src) + f"\nprint(G{stmt.split('[')[0][5:]}.shape);\n")
        for mode in ["never", "always"]:
            p = run(args.ein, bpath, mode)
            if p.returncode == 0 or "error[E005]" not in p.stderr or f"bad{k}.ein:{err_line}:" not in p.stderr:
                failed += 1
                print(f"FAIL EIN_JIT={mode} (want E005 at line {err_line}): {stmt}\n{p.stdout[-300:]}{p.stderr[-600:]}")
    print(f"{len(checks)} gathers x 3 modes, {len(bad)} out-of-axis cases x 2 modes, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
