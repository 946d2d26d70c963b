#!/usr/bin/env python3
"""Writes jit_short_rows_lanes.ein: reductions over short rows (at most 16 values known before
the run) that kernels compute with the point loop in vector lanes and the row unrolled
(engine/codegen/gen_stmt.cpp, Gen::short_row). Expected values come from NumPy here, never
from ein. Usage: PYENV_VERSION=system python3 jit_short_rows_lanes.py > jit_short_rows_lanes.ein"""
import numpy as np

f32, f64 = np.float32, np.float64


def fmt(v):
    if isinstance(v, np.ndarray):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return str(v) if isinstance(v, np.floating) else repr(v)


R = 261  # rows: more than 256 (a strip-mined point loop, vectorised), 16 vectors of 16 and a tail of 5
i, c = np.meshgrid(np.arange(R), np.arange(10), indexing="ij")
X = ((i * 7 + c * 3) % 23).astype(f32) * f32(0.2) - f32(2.0)
X[5, 3] = np.nan
X[6, :] = -np.inf
X[9, 7] = np.inf
X[258, 9] = np.nan
out = []
with np.errstate(invalid="ignore", over="ignore"):
    m = X.max(1)
    out.append(("let m[i] = max[c](X[i, c]);\nprint(m);", fmt(m)))
    out.append(("let n[i] = min[c](X[i, c]);\nprint(n);", fmt(X.min(1))))
    # ein sums f32 through an f64 accumulator, in the row's order.
    s = np.array([f32(sum(f64(x) for x in row)) for row in X])
    out.append(("let s[i] = sum[c](X[i, c]);\nprint(s);", fmt(s)))
    E = np.exp((X - m[:, None]).astype(f32)).astype(f32)
    se = np.array([f32(sum(f64(x) for x in row)) for row in E])
    lse = (np.log(se).astype(f32) + m).astype(f32)
    out.append(("let lse[i] = log(sum[c](exp(X[i, c] - m[i]))) + m[i];\nprint(lse);", fmt(lse)))
    P = (f32(1.0) + X * f32(0.01)).astype(f32)
    p = np.array([np.prod(row, dtype=f32) for row in P])
    out.append(("let p[i] = prod[c](1.0 + X[i, c] * 0.01);\nprint(p);", fmt(p)))
    g = np.array([f32(sum(f64(x) for x in row if x > 0)) for row in X])
    out.append(("let g[i] = sum[c](X[i, c] where X[i, c] > 0.0);\nprint(g);", fmt(g)))
# f64 rows of 16 (the largest unrolled) and 17 (the row's own vector loop), two short axes.
for w in (1, 16, 17):
    i, c = np.meshgrid(np.arange(R), np.arange(w), indexing="ij")
    D = ((i * 5 + c * 11) % 19).astype(f64) * 0.25 - 2.0
    out.append((f"let D{w}[i in 0..{R}, c in 0..{w}] = ((i * 5 + c * 11) % 19) as f64 * 0.25 - 2.0;\n"
                f"let d{w}[i] = sum[c](D{w}[i, c] * D{w}[i, c]) + max[c](D{w}[i, c]);\nprint(d{w});",
                fmt(np.array([sum(x * x for x in row) for row in D]) + D.max(1))))
i, a, b = np.meshgrid(np.arange(R), np.arange(3), np.arange(4), indexing="ij")
T = (i * 3 + a * 5 + b * 7) % 13 - 6
out.append((f"let T[i in 0..{R}, a in 0..3, b in 0..4] = (i * 3 + a * 5 + b * 7) % 13 - 6;\n"
            "let t[i] = sum[a, b](T[i, a, b] * T[i, a, b]) - max[a, b](T[i, a, b]);\nprint(t);",
            fmt((T * T).sum((1, 2)) - T.max((1, 2)))))

print("// Reductions over short rows (at most 16 values known before the run: a class axis of 10) in")
print("// kernels: the point loop in vector lanes, the row unrolled in each lane (engine/codegen/")
print("// gen_stmt.cpp, Gen::short_row). NaN, inf and -inf rows, 261 rows (16 vectors of 16 and a tail),")
print("// f32 and f64, rows of 1, 16 and 17 values, two short axes, a guarded sum, integers.")
print("// Expected values: NumPy (jit_short_rows_lanes.py writes this file).")
print("//$ EIN_JIT=never|always")
print("use std::math::{exp, log};")
print("let nan_v = 0.0 / 0.0;")
print("let inf_v = 1.0 / 0.0;")
print(f"let X[i in 0..{R}, c in 0..10] = if i == 5 && c == 3 {{ nan_v as f32 }} else if i == 6 {{ -inf_v as f32 }} "
      "else if i == 9 && c == 7 { inf_v as f32 } else if i == 258 && c == 9 { nan_v as f32 } else { ((i * 7 + c * 3) % 23) as f32 * 0.2 - 2.0 };")
for code, expect in out:
    print(code)
    print("//> " + expect)
