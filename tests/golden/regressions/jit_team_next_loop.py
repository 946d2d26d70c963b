#!/usr/bin/env python3
"""Writes jit_team_next_loop.ein: kernels whose outermost parallel loop has fewer iterations
than threads (a batch of one; conv's group axis of extent 1) or a count that does not divide
among them (3 on 2 or 4 threads), which run that loop in order and open the thread team on the
next loop (engine/codegen/team_split.cpp), and loops whose extents are known only at run time
(library kernels: the team opens by the run-time work). Batches of 1, 3 and 4, user kernels,
generic functions and std::ml (average_pool 2-D and 3-D, max_pool, conv, layer_normalization,
batch_normalization). Expected values come from NumPy here, never from ein.
Usage: PYENV_VERSION=system python3 jit_team_next_loop.py > jit_team_next_loop.ein"""
import numpy as np

f64 = np.float64


def fmt(v):
    return repr(float(v))


def grid(shape, coefs, m, scale, off):
    idx = np.indices(shape)
    acc = sum(c * i for c, i in zip(coefs, idx))
    return (acc % m).astype(f64) * scale - off


def check(Y):
    idx = np.indices(Y.shape)
    wts = (sum(c * i for c, i in zip((5, 3, 7, 1, 2), idx)) % 11).astype(f64)
    return float((Y * wts).sum())


def avg_pool(X, k, pads):
    """count_include_pad = 0, stride 1."""
    nsp = X.ndim - 2
    Xp = np.pad(X, [(0, 0), (0, 0)] + [(p, p) for p in pads])
    ones = np.pad(np.ones(X.shape[2:]), [(p, p) for p in pads])
    outs = [Xp.shape[2 + a] - k[a] + 1 for a in range(nsp)]
    s = np.zeros(X.shape[:2] + tuple(outs))
    c = np.zeros(tuple(outs))
    for t in np.ndindex(*k):
        sl = tuple(slice(t[a], t[a] + outs[a]) for a in range(nsp))
        s += Xp[(slice(None), slice(None)) + sl]
        c += ones[sl]
    return s / c


def max_pool2(X, k, st, pad):
    Xp = np.pad(X, [(0, 0), (0, 0), (pad, pad), (pad, pad)], constant_values=-np.inf)
    OH = (X.shape[2] + 2 * pad - k) // st + 1
    OW = (X.shape[3] + 2 * pad - k) // st + 1
    Y = np.full(X.shape[:2] + (OH, OW), -np.inf)
    for a in range(k):
        for b in range(k):
            Y = np.maximum(Y, Xp[:, :, a:a + st * (OH - 1) + 1:st, b:b + st * (OW - 1) + 1:st])
    return Y


def conv2(X, W, B, pad):
    Xp = np.pad(X, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    KH, KW = W.shape[2:]
    OH, OW = Xp.shape[2] - KH + 1, Xp.shape[3] - KW + 1
    Y = np.zeros((X.shape[0], W.shape[0], OH, OW))
    for a in range(KH):
        for b in range(KW):
            Y += np.einsum("mc,nchw->nmhw", W[:, :, a, b], Xp[:, :, a:a + OH, b:b + OW])
    return Y + B[None, :, None, None]


g = 1.0 + (np.arange(16) % 5) * 0.25
X1 = grid((1, 16, 256, 256), (0, 5, 7, 1), 23, 0.1, 1.0)
X3 = grid((3, 16, 128, 200), (3, 5, 7, 1), 23, 0.1, 1.0)
X4 = grid((4, 16, 128, 160), (2, 5, 7, 1), 19, 0.1, 1.0)
V = grid((1, 8, 16, 64, 64), (0, 5, 7, 3, 1), 23, 0.1, 1.0)
Xc = grid((1, 16, 96, 96), (0, 5, 7, 1), 23, 0.1, 1.0)
K = grid((8, 16, 3, 3), (5, 3, 7, 1), 19, 0.01, 0.09)
Bc = (np.arange(8) % 3) * 0.5 - 0.5
XL = grid((1, 1024, 512), (0, 7, 3), 23, 0.1, 1.0)
gl = 1.0 + (np.arange(512) % 5) * 0.1
bl = (np.arange(512) % 3) * 0.1 - 0.1
mu = (np.arange(16) % 7) * 0.05 - 0.1
var = 0.5 + (np.arange(16) % 4) * 0.25

out = []
out.append(("let Y1 = scale(X1, g);\nprint(Y1[0, 3, 5, 7], Y1[0, 15, 255, 255], check4(Y1));",
            (lambda Y: [Y[0, 3, 5, 7], Y[0, 15, 255, 255], check(Y)])(X1 * g[None, :, None, None] + 0.5)))
out.append(("let Y3 = scale(X3, g);\nprint(Y3[0, 3, 5, 7], Y3[2, 15, 127, 199], check4(Y3));",
            (lambda Y: [Y[0, 3, 5, 7], Y[2, 15, 127, 199], check(Y)])(X3 * g[None, :, None, None] + 0.5)))
out.append(("let Y4 = scale(X4, g);\nprint(Y4[1, 3, 5, 7], Y4[3, 15, 127, 159], check4(Y4));",
            (lambda Y: [Y[1, 3, 5, 7], Y[3, 15, 127, 159], check(Y)])(X4 * g[None, :, None, None] + 0.5)))
out.append(("let Z1[n in 0..1, c in 0..16, h in 0..256, w in 0..256] = X1[n, c, h, w] * g[c] - 0.25;\n"
            "print(Z1[0, 3, 5, 7], Z1[0, 15, 255, 255], check4(Z1));",
            (lambda Y: [Y[0, 3, 5, 7], Y[0, 15, 255, 255], check(Y)])(X1 * g[None, :, None, None] - 0.25)))
out.append(("let P1 = std::ml::average_pool(X1, [3, 3], [1, 1], [1, 1, 1, 1]);\n"
            "print(P1[0, 3, 0, 0], P1[0, 7, 100, 200], P1[0, 15, 255, 255], check4(P1));",
            (lambda Y: [Y[0, 3, 0, 0], Y[0, 7, 100, 200], Y[0, 15, 255, 255], check(Y)])(avg_pool(X1, (3, 3), (1, 1)))))
out.append(("let P3 = std::ml::average_pool(V, [3, 3, 3], [1, 1, 1], [1, 1, 1, 1, 1, 1]);\n"
            "print(P3[0, 3, 0, 0, 0], P3[0, 5, 7, 9, 11], P3[0, 7, 15, 63, 63], check5(P3));",
            (lambda Y: [Y[0, 3, 0, 0, 0], Y[0, 5, 7, 9, 11], Y[0, 7, 15, 63, 63], check(Y)])(avg_pool(V, (3, 3, 3), (1, 1, 1)))))
out.append(("let M3 = std::ml::max_pool(X3, [3, 3], [2, 2], [1, 1, 1, 1]);\n"
            "print(M3[0, 3, 0, 0], M3[2, 15, 63, 99], check4(M3));",
            (lambda Y: [Y[0, 3, 0, 0], Y[2, 15, 63, 99], check(Y)])(max_pool2(X3, 3, 2, 1))))
out.append(("let C1 = std::ml::conv(Xc, K, Bc, [1, 1], [1, 1, 1, 1], [1, 1], 1);\n"
            "print(C1[0, 3, 0, 0], C1[0, 7, 50, 60], C1[0, 0, 95, 95], check4(C1));",
            (lambda Y: [Y[0, 3, 0, 0], Y[0, 7, 50, 60], Y[0, 0, 95, 95], check(Y)])(conv2(Xc, K, Bc, 1))))
m = XL.mean(-1, keepdims=True)
v = XL.var(-1, keepdims=True)
LN = (XL - m) / np.sqrt(v + 1e-5) * gl + bl
out.append(("let L1 = std::ml::layer_normalization(XL, gl, bl, 0.00001, -1);\n"
            "print(L1[0, 3, 5], L1[0, 1023, 511], check3(L1));",
            [LN[0, 3, 5], LN[0, 1023, 511], check(LN)]))
BN = (X1 - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * g[None, :, None, None] + 0.25
out.append(("let N1 = std::ml::batch_normalization(X1, g, bc, mu, var, 0.00001);\n"
            "print(N1[0, 3, 5, 7], N1[0, 15, 255, 255], check4(N1));",
            [BN[0, 3, 5, 7], BN[0, 15, 255, 255], check(BN)]))

print("""// Kernels whose outermost parallel loop has fewer iterations than threads (a batch of one, or
// conv's group axis of extent 1) or a count that does not divide among them (3 on 4 threads)
// run that loop in order and open the thread team on the next loop (engine/codegen/
// team_split.cpp); loops whose extents are known only at run time (every library kernel) open
// the team by their run-time work. Batches of 1, 3 and 4 in user kernels, a generic function
// and std::ml. Values from NumPy (jit_team_next_loop.py writes this file).
//$ EIN_JIT=never|always
//$ OMP_NUM_THREADS=4
fn scale(X, g) {
  let Y[n in 0..len(X), c in 0..len(X[0]), h in 0..len(X[0, 0]), w in 0..len(X[0, 0, 0])] = X[n, c, h, w] * g[c] + 0.5;
  Y
}
fn check3(Y) { sum[n, s, j](Y[n, s, j] * ((n * 5 + s * 3 + j * 7) % 11) as f64) }
fn check4(Y) { sum[n, c, h, w](Y[n, c, h, w] * ((n * 5 + c * 3 + h * 7 + w) % 11) as f64) }
fn check5(Y) { sum[n, c, d, h, w](Y[n, c, d, h, w] * ((n * 5 + c * 3 + d * 7 + h + w * 2) % 11) as f64) }""")
print("""let g[c in 0..16] = 1.0 + (c % 5) as f64 * 0.25;
let bc[c in 0..16] = 0.25;
let mu[c in 0..16] = (c % 7) as f64 * 0.05 - 0.1;
let var[c in 0..16] = 0.5 + (c % 4) as f64 * 0.25;
let X1[n in 0..1, c in 0..16, h in 0..256, w in 0..256] = ((c * 5 + h * 7 + w) % 23) as f64 * 0.1 - 1.0;
let X3[n in 0..3, c in 0..16, h in 0..128, w in 0..200] = ((n * 3 + c * 5 + h * 7 + w) % 23) as f64 * 0.1 - 1.0;
let X4[n in 0..4, c in 0..16, h in 0..128, w in 0..160] = ((n * 2 + c * 5 + h * 7 + w) % 19) as f64 * 0.1 - 1.0;
let V[n in 0..1, c in 0..8, d in 0..16, h in 0..64, w in 0..64] = ((c * 5 + d * 7 + h * 3 + w) % 23) as f64 * 0.1 - 1.0;
let Xc[n in 0..1, c in 0..16, h in 0..96, w in 0..96] = ((c * 5 + h * 7 + w) % 23) as f64 * 0.1 - 1.0;
let K[m in 0..8, c in 0..16, a in 0..3, b in 0..3] = ((m * 5 + c * 3 + a * 7 + b) % 19) as f64 * 0.01 - 0.09;
let Bc[m in 0..8] = (m % 3) as f64 * 0.5 - 0.5;
let XL[n in 0..1, s in 0..1024, j in 0..512] = ((s * 7 + j * 3) % 23) as f64 * 0.1 - 1.0;
let gl[j in 0..512] = 1.0 + (j % 5) as f64 * 0.1;
let bl[j in 0..512] = (j % 3) as f64 * 0.1 - 0.1;""")
for src, vals in out:
    print(src)
    print("//> " + " ".join(fmt(v) for v in vals))
