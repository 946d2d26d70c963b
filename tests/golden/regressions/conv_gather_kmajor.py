#!/usr/bin/env python3
"""Writes conv_gather_kmajor.ein: user-written convolutions planned as a packed copy of the
input (im2col) and one GEMM, the copy laid out summed-axes first so that it reads the input
along its contiguous axis (lang/passes/contraction_plan.cpp try_gathered). Covered: a 2-D
multi-channel convolution, strided and dilated windows, a 1-D multi-channel one, a window
with the tap variable outermost in the subscript (`x + b` against `b + x`), f32 and f64, and
sizes below the BLAS threshold (loops). Expected values come from NumPy here, never from ein.
Usage: PYENV_VERSION=system python3 conv_gather_kmajor.py > conv_gather_kmajor.ein"""
import numpy as np

f32, f64 = np.float32, np.float64


def fmt(v):
    return repr(float(v))


def grid(shape, coefs, m, scale, off, dt):
    idx = np.indices(shape)
    acc = sum(c * i for c, i in zip(coefs, idx))
    return (acc % m).astype(dt) * dt(scale) - dt(off)


def corr2(I, W, sy, sx, dy, dx, OY, OX):
    O = np.zeros((W.shape[0], OY, OX), dtype=f64)
    for a in range(W.shape[2]):
        for b in range(W.shape[3]):
            win = I[:, a * dy: a * dy + sy * (OY - 1) + 1: sy, b * dx: b * dx + sx * (OX - 1) + 1: sx].astype(f64)
            O += np.einsum("oc,cyx->oyx", W[:, :, a, b].astype(f64), win)
    return O


out = []
I = grid((16, 66, 70), (7, 3, 5), 23, 0.1, 1.0, f32)
W = grid((32, 16, 3, 3), (5, 3, 7, 1), 19, 0.01, 0.09, f32)
O = corr2(I, W, 1, 1, 1, 1, 64, 68)
out.append(("""let I[c in 0..16, y in 0..66, x in 0..70] = ((c * 7 + y * 3 + x * 5) % 23) as f32 * 0.1 - 1.0;
let W[o in 0..32, c in 0..16, a in 0..3, b in 0..3] = ((o * 5 + c * 3 + a * 7 + b) % 19) as f32 * 0.01 - 0.09;
let O[o, y, x] = sum[c, a, b](I[c, y + a, x + b] * W[o, c, a, b]);
print(O[3, 5, 7], O[31, 63, 67], O[0, 0, 0], O[17, 40, 33]);""",
            [O[3, 5, 7], O[31, 63, 67], O[0, 0, 0], O[17, 40, 33]], 1e-4))
Ob = corr2(I, W, 1, 1, 1, 1, 64, 68)
out.append(("""let Ob[o, y, x] = sum[c, a, b](I[c, a + y, b + x] * W[o, c, a, b]);
print(Ob[3, 5, 7], Ob[31, 63, 67], Ob[9, 0, 67]);""",
            [Ob[3, 5, 7], Ob[31, 63, 67], Ob[9, 0, 67]], 1e-4))
I64 = grid((8, 41, 45), (7, 3, 5), 23, 0.1, 1.0, f64)
W64 = grid((12, 8, 3, 3), (5, 3, 7, 1), 19, 0.01, 0.09, f64)
Os = corr2(I64, W64, 2, 2, 1, 1, 20, 22)
out.append(("""let I64[c in 0..8, y in 0..41, x in 0..45] = ((c * 7 + y * 3 + x * 5) % 23) as f64 * 0.1 - 1.0;
let W64[o in 0..12, c in 0..8, a in 0..3, b in 0..3] = ((o * 5 + c * 3 + a * 7 + b) % 19) as f64 * 0.01 - 0.09;
let Os[o in 0..12, y in 0..20, x in 0..22] = sum[c, a, b](I64[c, 2 * y + a, 2 * x + b] * W64[o, c, a, b]);
print(Os[3, 5, 7], Os[11, 19, 21], sum[o, y, x](Os[o, y, x]));""",
            [Os[3, 5, 7], Os[11, 19, 21], Os.sum()], 1e-9))
Od = corr2(I64, W64, 1, 1, 2, 3, 37, 39)
out.append(("""let Od[o in 0..12, y in 0..37, x in 0..39] = sum[c, a, b](I64[c, y + 2 * a, x + 3 * b] * W64[o, c, a, b]);
print(Od[3, 5, 7], Od[11, 36, 38], sum[o, y, x](Od[o, y, x]));""",
            [Od[3, 5, 7], Od[11, 36, 38], Od.sum()], 1e-9))
x1 = grid((24, 1000), (7, 3), 23, 0.1, 1.0, f64)
w1 = grid((40, 24, 5), (5, 3, 7), 19, 0.01, 0.09, f64)
y1 = np.zeros((40, 996))
for k in range(5):
    y1 += w1[:, :, k] @ x1[:, k:k + 996]
out.append(("""let x1[c in 0..24, t in 0..1000] = ((c * 7 + t * 3) % 23) as f64 * 0.1 - 1.0;
let w1[o in 0..40, c in 0..24, k in 0..5] = ((o * 5 + c * 3 + k * 7) % 19) as f64 * 0.01 - 0.09;
let y1[o, t] = sum[c, k](x1[c, t + k] * w1[o, c, k]);
print(y1[3, 5], y1[39, 995], sum[o, t](y1[o, t]));""",
            [y1[3, 5], y1[39, 995], y1.sum()], 1e-9))
Is = grid((2, 6, 6), (7, 3, 5), 23, 0.1, 1.0, f64)
Ws = grid((2, 2, 3, 3), (5, 3, 7, 1), 19, 0.01, 0.09, f64)
Osm = corr2(Is, Ws, 1, 1, 1, 1, 4, 4)
out.append(("""let Is[c in 0..2, y in 0..6, x in 0..6] = ((c * 7 + y * 3 + x * 5) % 23) as f64 * 0.1 - 1.0;
let Ws[o in 0..2, c in 0..2, a in 0..3, b in 0..3] = ((o * 5 + c * 3 + a * 7 + b) % 19) as f64 * 0.01 - 0.09;
let Osm[o, y, x] = sum[c, a, b](Is[c, y + a, x + b] * Ws[o, c, a, b]);
print(Osm[0, 0, 0], Osm[1, 3, 3], sum[o, y, x](Osm[o, y, x]));""",
            [Osm[0, 0, 0], Osm[1, 3, 3], Osm.sum()], 1e-9))

print("""// User-written convolutions planned as a packed copy of the input (im2col) and one GEMM; the
// copy is laid out summed axes first, so that it reads the input along its contiguous axis
// (lang/passes/contraction_plan.cpp try_gathered). A 2-D multi-channel convolution in both
// subscript orders, strided and dilated windows, a 1-D multi-channel one, f32 and f64, and
// one below the BLAS threshold (loops). Values from NumPy (conv_gather_kmajor.py writes this
// file); f32 results compared point by point (the
// golden tolerance, 1e-5 relative, covers sgemm's f32 rounding).
//$ EIN_JIT=never|always""")
for src, vals, tol in out:
    print(src)
    print("//> " + " ".join(fmt(v) for v in vals))
