#!/usr/bin/env python3
"""Generated contractions against NumPy, in every JIT mode.

Each case is one Einstein statement C[out..] = epilogue(op[k..](f(X[..], Y[..]))) with random
index layouts (transposed operands, batch axes, fixed subscripts, several indices per group),
combiners (sum, max, min), bodies (products, squared and absolute differences, sums), epilogues
(bias, scaling, activation), dtypes (f32, f64, i32) and sizes on both sides of the thresholds
where kernels switch strategy (BLAS from 4096 multiply-adds, register tiles of 4 x 32 points).
Hand-written cases cover recurrences whose step is a contraction (a GEMV per step, max-plus);
generated ones cover chains of three or four factors in epilogues (factorised into pairwise
steps) and reductions down columns or over part of the nest.
Expected values come from NumPy (einsum / explicit loops), never from ein.

  PYENV_VERSION=system python3 tests/native/contractions.py [--ein build/ein] [--cases 60] [--seed 1]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?inf|nan")


def data_expr(name, axes, dt, seed):
    """An ein declaration of a tensor from a formula, and the same tensor in NumPy."""
    ranges = ", ".join(f"a{i} in 0..{n}" for i, n in enumerate(axes))
    mix = " + ".join(f"a{i} * {p}" for i, p in enumerate([7, 3, 5, 11, 13][:len(axes)]))
    mod = 11 + seed % 5
    if dt == "i32":
        ein = f"let {name}[{ranges}] = (({mix} + {seed}) % {mod}) - 5;"
    else:
        ein = f"let {name}[{ranges}] = (({mix} + {seed}) % {mod}) as {dt} * 0.25 - 1.0;"
    grid = np.indices(axes, dtype=np.int64) if axes else np.zeros((0,), np.int64)
    val = sum(grid[i] * p for i, p in enumerate([7, 3, 5, 11, 13][:len(axes)])) + seed
    val = val % mod
    npdt = {"f32": np.float32, "f64": np.float64, "i32": np.int32}[dt]
    arr = (val - 5).astype(npdt) if dt == "i32" else val.astype(npdt) * npdt(0.25) - npdt(1.0)
    return ein, arr


def gen_case(rng, idx, big):
    dt = rng.choice(["f32", "f32", "f64", "i32"])
    op = rng.choice(["sum", "sum", "sum", "max", "min"])
    body = rng.choice(["prod", "prod", "sqdiff", "add", "absdiff"] if dt != "i32" else ["prod", "add"])
    if op != "sum" and body == "prod" and dt != "i32":
        body = "add"
    ext = (lambda: rng.choice([1, 3, 5, 17, 33])) if not big else (lambda: rng.choice([20, 24, 37, 64]))
    names = iter("pqrsuvwz")
    batch = [next(names) for _ in range(rng.choice([0, 0, 1]))]
    gi = [next(names) for _ in range(rng.choice([0, 1, 1, 2]))]
    gj = [next(names) for _ in range(rng.choice([1, 1, 2]))]
    gk = [next(names) for _ in range(rng.choice([1, 1, 2]))]
    n = {v: ext() for v in batch + gi + gj + gk}
    if big:  # keep the point count moderate
        for v in gk[1:] + gi[1:] + gj[1:]:
            n[v] = rng.choice([2, 3])
    xa = batch + gi + gk
    ya = batch + gk + gj
    rng.shuffle(xa)
    rng.shuffle(ya)
    fixed_x = rng.random() < 0.25
    X, Y = f"X{idx}", f"Y{idx}"
    xshape = ([3] if fixed_x else []) + [n[v] for v in xa]
    yshape = [n[v] for v in ya]
    xd, xarr = data_expr(X, xshape, dt, idx * 3 + 1)
    yd, yarr = data_expr(Y, yshape, dt, idx * 3 + 2)
    xr = f"{X}[{', '.join((['2'] if fixed_x else []) + xa)}]"
    yr = f"{Y}[{', '.join(ya)}]"
    if fixed_x:
        xarr = xarr[2]
    lit = "" if dt == "i32" else ".0"
    f = {"prod": f"{xr} * {yr}", "add": f"{xr} + {yr}", "sqdiff": f"({xr} - {yr}) ** 2",
         "absdiff": f"abs({xr} - {yr})"}[body]
    out = batch + gi + gj
    rng.shuffle(out)
    red = f"{op}[{', '.join(gk)}]({f})"
    epi = rng.choice(["none", "none", "scale", "bias", "act"] if dt != "i32" else ["none", "bias"])
    B = f"B{idx}"
    decls = [xd, yd]
    bias = None
    if epi == "bias":
        bd, bias = data_expr(B, [n[gj[-1]]], dt, idx * 3 + 3)
        decls.append(bd)
    val = {"none": red, "scale": f"{red} * 0.5", "bias": f"{red} + {B}[{gj[-1]}]", "act": f"tanh({red})"}[epi]
    stmt = f"let C{idx}[{', '.join(out)}] = {val};"
    # NumPy: broadcast X and Y over all variables, then reduce.
    allv = out + gk
    def expand(arr, axes):
        perm = [axes.index(v) for v in allv if v in axes]
        a = np.transpose(arr, perm) if arr.ndim else arr
        shape = [n[v] if v in axes else 1 for v in allv]
        return a.reshape(shape)
    x, y = expand(xarr, xa), expand(yarr, ya)
    with np.errstate(over="ignore"):
        if body == "prod":
            e = x * y
        elif body == "add":
            e = x + y
        elif body == "sqdiff":
            e = (x.astype(np.float64) - y) ** 2
            e = e.astype(x.dtype)
        else:
            e = np.abs(x - y)
        axes = tuple(range(len(out), len(allv)))
        r = {"sum": np.sum, "max": np.max, "min": np.min}[op](e.astype(np.float64) if dt != "i32" else e, axis=axes)
    if epi == "scale":
        r = r * 0.5
    elif epi == "bias":
        r = r + expand(bias, [gj[-1]]).reshape([n[v] if v == gj[-1] else 1 for v in out])
    elif epi == "act":
        r = np.tanh(r)
    if dt == "i32":
        r = r.astype(np.int64)
    return decls + [stmt], f"C{idx}", r, dt


def recurrence_cases():
    """Recurrences whose step is a contraction: a GEMV per step (tanh RNN) and max-plus."""
    H, T, S = 40, 30, 37
    j = np.arange(H)
    W = (((j[:, None] * 7 + j[None, :] * 3) % 17).astype(np.float32) * np.float32(0.01) - np.float32(0.08))
    x = (((np.arange(T)[:, None] * 5 + j[None, :] * 11) % 13).astype(np.float32) * np.float32(0.1) - np.float32(0.6))
    h = np.zeros(H, np.float32)
    for t in range(1, T):
        h = np.tanh(W.astype(np.float64) @ h + x[t]).astype(np.float32)
    src = [f"let RW[j in 0..{H}, k in 0..{H}] = ((j * 7 + k * 3) % 17) as f32 * 0.01 - 0.08;",
           f"let Rx[t in 0..{T}, j in 0..{H}] = ((t * 5 + j * 11) % 13) as f32 * 0.1 - 0.6;",
           f"let Rh[0, j in 0..{H}] = 0.0;",
           f"let Rh[t in 1..{T}, j in 0..{H}] = tanh(sum[k](RW[j, k] * Rh[t - 1, k]) + Rx[t, j]);",
           f"let Rlast[j in 0..{H}] = Rh[{T - 1}, j];"]
    s = np.arange(S)
    A = ((s[:, None] * 7 + s[None, :] * 3) % 17).astype(np.float64) * -0.5
    E = ((np.arange(T)[:, None] * 5 + s[None, :] * 11) % 13).astype(np.float64) * -0.25
    V = E[0].copy()
    for t in range(1, T):
        V = (V[:, None] + A).max(axis=0) + E[t]
    src += [f"let MA[p in 0..{S}, s in 0..{S}] = ((p * 7 + s * 3) % 17) as f64 * -0.5;",
            f"let ME[t in 0..{T}, s in 0..{S}] = ((t * 5 + s * 11) % 13) as f64 * -0.25;",
            f"let MV[0, s in 0..{S}] = ME[0, s];",
            f"let MV[t in 1..{T}, s in 0..{S}] = max[p](MV[t - 1, p] + MA[p, s]) + ME[t, s];",
            f"let Mlast[s in 0..{S}] = MV[{T - 1}, s];"]
    return src, [("Rlast", h, "f32"), ("Mlast", V, "f64")]


def transpose_cases(rng):
    """Nests that read an operand transposed (cache-blocked in native code): square and
    rectangular, sizes that are not multiples of the 64 x 64 tile, explicit ranges with an
    offset read, f32 and f64. Each source has two consumers, so it is stored (not fused)."""
    src, checks = [], []
    for c in range(4):
        dt = rng.choice(["f32", "f64"])
        npdt = np.float32 if dt == "f32" else np.float64
        n, m = rng.choice([130, 150, 257]), rng.choice([129, 200, 131])
        a_src, A = data_expr(f"TA{c}", [n, n], dt, 3 + c)
        b_src, B = data_expr(f"TB{c}", [m, n], dt, 7 + c)
        src += [a_src, b_src, f"let TU{c}[i, j] = TB{c}[i, j] + 1.0;",
                f"let TS{c}[i, j] = TA{c}[i, j] + TA{c}[j, i] * 0.5;",
                f"let TT{c}[j, i] = TB{c}[i, j] * 2.0 - 1.0;",
                f"let TO{c}[i in 0..{n - 1}, j in 0..{n - 1}] = TA{c}[j + 1, i] - TA{c}[i, j];"]
        checks += [(f"TU{c}", (B + npdt(1.0)).astype(npdt), dt),
                   (f"TS{c}", (A + A.T * npdt(0.5)).astype(npdt), dt),
                   (f"TT{c}", (B * npdt(2.0) - npdt(1.0)).T.copy(), dt),
                   (f"TO{c}", (A[1:, :n - 1].T - A[:n - 1, :n - 1]).astype(npdt), dt)]
    return src, checks


def chain_cases(rng, count):
    """Sums of products of three or four operands (matrix chains, a chain ending in a vector, a
    batch index in two factors) in random storage layouts, inside random epilogues: the plan
    factorises them into pairwise steps (GEMM, GEMV or loops). NumPy: einsum."""
    src, checks = [], []
    for c in range(count):
        dt = rng.choice(["f32", "f64"])
        nf = rng.choice([3, 3, 4])
        ext = lambda: rng.choice([3, 5, 17, 33, 40])
        # A chain i - k0 - k1 (- k2) - j; sometimes the last factor is a vector (no j), sometimes a
        # batch index b rides on the first and last factor.
        chain = ["i"] + [f"k{t}" for t in range(nf - 1)] + ["j"]
        vec = rng.random() < 0.25
        batch = not vec and rng.random() < 0.25
        n = {v: ext() for v in chain + ["b"]}
        n["b"] = rng.choice([2, 3])
        facs = []
        for t in range(nf):
            ax = [chain[t], chain[t + 1]]
            if vec and t == nf - 1:
                ax = [chain[t]]
            rng.shuffle(ax)
            if batch and t in (0, nf - 1):
                ax = ["b"] + ax
            facs.append(ax)
        names, decls, arrs = [], [], []
        for t, ax in enumerate(facs):
            nm = f"F{c}_{t}"
            d, arr = data_expr(nm, [n[v] for v in ax], dt, c * 7 + t)
            decls.append(d)
            names.append(f"{nm}[{', '.join(ax)}]")
            arrs.append(arr)
        out = (["b"] if batch else []) + ["i"] + ([] if vec else ["j"])
        if rng.random() < 0.3 and len(out) >= 2:
            out = out[::-1]
        summed = chain[1:-1]
        red = f"sum[{', '.join(summed)}]({' * '.join(names)})"
        epi = rng.choice(["none", "scale", "bias", "relu", "if"])
        last = out[-1]
        bias_d, bias = data_expr(f"G{c}", [n[last]], dt, c * 7 + 5)
        val = {"none": red, "scale": f"0.5 * {red}", "bias": f"{red} + G{c}[{last}]",
               "relu": f"std::math::max({red}, 0.0)",
               "if": f"if {out[0]} < 2 {{ -1.0 }} else {{ {red} * 2.0 }}"}[epi]
        src += decls + [bias_d, f"let CH{c}[{', '.join(out)}] = {val};"]
        spec = ",".join("".join("i" if v == "i" else "j" if v == "j" else "b" if v == "b" else "klmn"[int(v[1])]
                                for v in ax) for ax in facs)
        o = "".join({"i": "i", "j": "j", "b": "b"}[v] for v in out)
        r = np.einsum(spec + "->" + o, *[a.astype(np.float64) for a in arrs])
        if epi == "scale":
            r = 0.5 * r
        elif epi == "bias":
            r = r + bias.astype(np.float64).reshape([-1 if v == last else 1 for v in out])
        elif epi == "relu":
            r = np.maximum(r, 0.0)
        elif epi == "if":
            first = np.arange(n[out[0]]).reshape([-1] + [1] * (len(out) - 1))
            r = np.where(first < 2, -1.0, r * 2.0)
        checks.append((f"CH{c}", r, dt))
    return src, checks


def column_cases(rng, count):
    """Reductions down columns or over part of the nest: a column sum, max or min (also of a
    product of two arrays), under a row loop or alone, with a batch axis in front sometimes,
    extents on both sides of the 512-point block. NumPy: sums and maxima along axis 0/1."""
    src, checks = [], []
    for c in range(count):
        dt = rng.choice(["f32", "f64", "i32"])
        op = rng.choice(["sum", "max", "min"])
        r_, m = rng.choice([3, 9, 40]), rng.choice([7, 513, 700])
        batch = rng.random() < 0.3
        shape = ([2] if batch else []) + [r_, m]
        ax = (["b"] if batch else []) + ["k", "j"]
        xd, X = data_expr(f"CX{c}", shape, dt, c * 5 + 1)
        yd, Y = data_expr(f"CY{c}", shape, dt, c * 5 + 2)
        two = op == "sum" and rng.random() < 0.4
        rd = f"CX{c}[{', '.join(ax)}]" + (f" * CY{c}[{', '.join(ax)}]" if two else "")
        red = f"{op}[k]({rd})"
        e = X.astype(np.float64) * (Y if two else 1)
        col = {"sum": np.sum, "max": np.max, "min": np.min}[op](e, axis=-2)
        lit = "" if dt == "i32" else ".0"
        if rng.random() < 0.5:  # the whole clause
            out = (["b"] if batch else []) + ["j"]
            stmt = f"let CC{c}[{', '.join(out)}] = {red} + 1{lit};"
            r = col + 1
        else:  # under a row loop: the reduction uses j only
            out = (["b"] if batch else []) + ["i", "j"]
            stmt = f"let CC{c}[{', '.join(out)}] = CX{c}[{', '.join((['b'] if batch else []) + ['i', 'j'])}] - {red};"
            r = X.astype(np.float64) - np.expand_dims(col, -2)
        src += [xd, yd, stmt]
        if dt == "i32":
            r = r.astype(np.int64)
        checks.append((f"CC{c}", r, dt))
    return src, checks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(os.path.dirname(__file__), "..", "..", "build", "ein"))
    ap.add_argument("--cases", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    lines, checks = ["use std::math::{tanh, abs};"], []
    for i in range(args.cases):
        decls, name, want, dt = gen_case(rng, i, big=i % 3 == 0)
        lines += decls
        checks.append((name, want, dt, decls[-1]))
    src, rec = recurrence_cases()
    lines += src
    for name, want, dt in rec:
        checks.append((name, want, dt, name))
    for cases in (transpose_cases(rng), chain_cases(rng, max(4, args.cases // 6)),
                  column_cases(rng, max(4, args.cases // 6))):
        src, tr = cases
        lines += src
        for name, want, dt in tr:
            checks.append((name, want, dt, name))
    # Tensors print elided: print sampled points (corners and random ones) instead.
    samples = []
    for name, want, _, _ in checks:
        pts = {tuple(0 for _ in want.shape), tuple(n - 1 for n in want.shape)}
        while len(pts) < min(24, want.size):
            pts.add(tuple(rng.randrange(n) for n in want.shape))
        pts = sorted(pts)
        samples.append(np.array([want[p] for p in pts], dtype=np.float64))
        lines.append("print(" + ", ".join(f"{name}[{', '.join(map(str, p))}]" for p in pts) + ");")
    fd, path = tempfile.mkstemp(suffix=".ein")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    failed = 0
    for mode in ["never", "always", "auto"]:
        env = dict(os.environ, EIN_JIT=mode)
        p = subprocess.run([args.ein, path], capture_output=True, text=True, env=env, timeout=600)
        if p.returncode != 0:
            print(f"FAIL EIN_JIT={mode}: exit {p.returncode}\n{p.stderr}")
            failed += 1
            continue
        outs = p.stdout.strip().split("\n")
        if len(outs) != len(checks):
            print(f"FAIL EIN_JIT={mode}: {len(outs)} lines for {len(checks)} checks\n{p.stdout[-2000:]}")
            failed += 1
            continue
        for (name, _, dt, stmt), want, line in zip(checks, samples, outs):
            got = np.array([float(x) for x in NUM.findall(line)])
            tol = 1e-4 if dt == "f32" else 1e-9
            ok = got.shape == want.shape and np.allclose(got, want.astype(np.float64), rtol=tol, atol=tol)
            if not ok:
                failed += 1
                print(f"FAIL EIN_JIT={mode} {name}: {stmt}\n  want {want[:8]}\n  got  {got[:8]}")
    os.unlink(path)
    print(f"{len(checks)} contractions x 3 modes, {failed} failures")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
