#!/usr/bin/env python3
"""Writes unit_stride_versions.ein: reads along a contiguous axis at `v * s` with a run-time s
(engine/codegen/unit_stride.cpp versions the vector loop on s == 1 and s == 2). Values from NumPy."""
import numpy as np

f32, f64 = np.float32, np.float64


def gen(shape, mults, mod, scale, off, dt):
    idx = np.indices(shape)
    v = sum(m * i for m, i in zip(mults, idx)) % mod
    return (v.astype(dt) * dt(scale) - dt(off)).astype(dt)


def fmt(x):
    x = float(x)
    return repr(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


out = []
w = out.append
w("// Reads along the contiguous axis at `o * s + ..` with s a run-time value (a function's")
w("// parameter): engine/codegen/unit_stride.cpp prints the vector loop three times, versions for")
w("// s == 1 (contiguous loads), s == 2 and any other s. Each function is called with s = 1")
w("// and with other strides (2, 3, 0, -1), on rows of 1, 15, 16, 17, 33 and 257 values (vector")
w("// remainders, one lane block of 256 and one more). Copies (the innermost vector loop) and")
w("// window sums/maxima (reduce_lanes' point loop), f32 and f64, std average_pool and conv with")
w("// strides 1 and 2. Values from NumPy (unit_stride_versions.py writes this file); f32 sums")
w("// accumulate in f64 as the interpreter's do.")
w("//$ EIN_JIT=never|always")
w("fn pick(X, s, q, OL) { let Y[i in 0..len(X), o in 0..OL] = X[i, o * s + q]; Y }")
w("fn wsum(X, s, k, OL) { let Y[i in 0..len(X), o in 0..OL] = sum[b in 0..k](X[i, o * s + b]); Y }")
w("fn wmax(X, s, k, OL) { let Y[i in 0..len(X), o in 0..OL] = max[b in 0..k](X[i, s * o + b]); Y }")
w("fn dil(X, s, d, k, OL) { let Y[i in 0..len(X), o in 0..OL] = sum[b in 0..k](X[i, o * s + b * d] * 0.5); Y }")

for dtn, dt in (("f32", f32), ("f64", f64)):
    for L in (1, 15, 16, 17, 33, 257):
        W = 3 * L + 4
        name = f"X{dtn}{L}"
        X = gen((5, W), (7, 3), 23, 0.1, 1.0, dt)
        w(f"let {name}[i in 0..5, j in 0..{W}] = ((i * 7 + j * 3) % 23) as {dtn} * 0.1 - 1.0;")
        for s in (1, 2, 3, 0):
            q = 1
            Y = X[:, q + s * np.arange(L)]
            w(f"let P = pick({name}, {s}, {q}, {L});")
            w(f"print(P[0, 0], P[4, {L - 1}], P[2, {L // 2}], sum[i, o](P[i, o]));")
            w("//> " + " ".join(fmt(v) for v in (Y[0, 0], Y[4, L - 1], Y[2, L // 2], Y.astype(f64).sum())))
            k = 3
            idx = s * np.arange(L)[:, None] + np.arange(k)[None, :]
            S = X.astype(f64)[:, idx].sum(axis=2).astype(dt)
            M = X[:, idx].max(axis=2)
            w(f"let S = wsum({name}, {s}, {k}, {L});")
            w(f"let M = wmax({name}, {s}, {k}, {L});")
            w(f"print(S[0, 0], S[4, {L - 1}], M[3, {L - 1}], sum[i, o](S[i, o]), sum[i, o](M[i, o]));")
            w("//> " + " ".join(fmt(v) for v in (S[0, 0], S[4, L - 1], M[3, L - 1], S.astype(f64).sum(), M.astype(f64).sum())))
        # a stride of -1: the row read backwards from its end
        Y = X[:, (W - 1) - np.arange(L)]
        w(f"let R = pick({name}, -1, {W - 1}, {L});")
        w(f"print(R[0, 0], R[4, {L - 1}], sum[i, o](R[i, o]));")
        w("//> " + " ".join(fmt(v) for v in (Y[0, 0], Y[4, L - 1], Y.astype(f64).sum())))
        # stride and dilation both run-time
        for s, d in ((1, 1), (1, 2), (2, 1)):
            idx = s * np.arange(L)[:, None] + d * np.arange(2)[None, :]
            D = (X.astype(f64)[:, idx] * 0.5).sum(axis=2).astype(dt) if dt == f64 else \
                (X[:, idx] * f32(0.5)).astype(f64).sum(axis=2).astype(dt)
            w(f"let D = dil({name}, {s}, {d}, 2, {L});")
            w(f"print(D[0, 0], D[4, {L - 1}], sum[i, o](D[i, o]));")
            w("//> " + " ".join(fmt(v) for v in (D[0, 0], D[4, L - 1], D.astype(f64).sum())))

# std layers with strides 1 and 2 (the library passes them as arguments)
X = gen((1, 3, 9, 19), (0, 5, 7, 1), 23, 0.1, 1.0, f32)
w("let I[n in 0..1, c in 0..3, h in 0..9, w in 0..19] = ((c * 5 + h * 7 + w) % 23) as f32 * 0.1 - 1.0;")
for s in (1, 2):
    Xp = np.pad(X.astype(f64), [(0, 0), (0, 0), (1, 1), (1, 1)])
    ones = np.pad(np.ones((9, 19)), [(1, 1), (1, 1)])
    OH, OW = (9 + 2 - 3) // s + 1, (19 + 2 - 3) // s + 1
    Y = np.zeros((1, 3, OH, OW))
    C = np.zeros((OH, OW))
    for a in range(3):
        for b in range(3):
            Y += Xp[:, :, a:a + s * (OH - 1) + 1:s, b:b + s * (OW - 1) + 1:s]
            C += ones[a:a + s * (OH - 1) + 1:s, b:b + s * (OW - 1) + 1:s]
    Y = (Y / C).astype(f32)
    w(f"let A = std::ml::average_pool(I, [3, 3], [{s}, {s}], [1, 1, 1, 1]);")
    w(f"print(A[0, 0, 0, 0], A[0, 2, {OH - 1}, {OW - 1}], A[0, 1, 1, {OW // 2}], sum[n, c, h, w](A[n, c, h, w]));")
    w("//> " + " ".join(fmt(v) for v in (Y[0, 0, 0, 0], Y[0, 2, OH - 1, OW - 1], Y[0, 1, 1, OW // 2], Y.astype(f64).sum())))
x1 = gen((1, 4, 37), (0, 7, 3), 23, 0.1, 1.0, f64)
k1 = gen((5, 4, 3), (5, 3, 7), 19, 0.01, 0.09, f64)
w("let x1[n in 0..1, c in 0..4, t in 0..37] = ((c * 7 + t * 3) % 23) as f64 * 0.1 - 1.0;")
w("let k1[m in 0..5, c in 0..4, k in 0..3] = ((m * 5 + c * 3 + k * 7) % 19) as f64 * 0.01 - 0.09;")
w("let b1[m in 0..5] = (m % 3) as f64 * 0.5 - 0.5;")
b1 = (np.arange(5) % 3).astype(f64) * 0.5 - 0.5
for s in (1, 2):
    xp = np.pad(x1, [(0, 0), (0, 0), (1, 1)])
    OL = (37 + 2 - 3) // s + 1
    Y = np.zeros((1, 5, OL))
    for k in range(3):
        Y += np.einsum("mc,nco->nmo", k1[:, :, k], xp[:, :, k:k + s * (OL - 1) + 1:s])
    Y += b1[None, :, None]
    w(f"let C1 = std::ml::conv(x1, k1, b1, [{s}], [1, 1], [1], 1);")
    w(f"print(C1[0, 0, 0], C1[0, 4, {OL - 1}], C1[0, 2, {OL // 2}], sum[n, m, o](C1[n, m, o]));")
    w("//> " + " ".join(fmt(v) for v in (Y[0, 0, 0], Y[0, 4, OL - 1], Y[0, 2, OL // 2], Y.sum())))

open(__file__.replace(".py", ".ein"), "w").write("\n".join(out) + "\n")
