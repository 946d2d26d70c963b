#!/usr/bin/env python3
"""std::ml convolutions and pooling against NumPy (im2col + matmul, written here), f32.

  PYENV_VERSION=system python3 tests/stdlib/bench/bench_conv.py [--ein build/ein] [--reps 3]

ein: `ein --timings conv_pool.ein`, the statements between `// bench: begin` and `// bench: end`
(each a second call of the same function, so kernels are loaded), best of --reps runs.
NumPy: best of 5. Prints both and the ratio; also checks that both print the same values.
Timings are facts about a loaded machine, not pass/fail conditions: not part of the suite.
"""
import argparse
import os
import re
import subprocess
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
f32 = np.float32


def windows(Xp, K, s, d, O):
    nsp = len(K)
    N, C = Xp.shape[:2]
    cols = np.empty((N, C) + tuple(K) + tuple(O), Xp.dtype)
    for ks in np.ndindex(*K):
        sl = tuple(slice(ks[a] * d[a], ks[a] * d[a] + s[a] * (O[a] - 1) + 1, s[a]) for a in range(nsp))
        cols[(slice(None), slice(None)) + ks] = Xp[(slice(None), slice(None)) + sl]
    return cols


def conv(X, W, B, s, p, d, G):
    nsp = X.ndim - 2
    N = X.shape[0]
    M, CG = W.shape[:2]
    K = W.shape[2:]
    Xp = np.pad(X, ((0, 0), (0, 0)) + tuple((p[a], p[a + nsp]) for a in range(nsp)))
    O = [(Xp.shape[2 + a] - d[a] * (K[a] - 1) - 1) // s[a] + 1 for a in range(nsp)]
    cols = windows(Xp, K, s, d, O).reshape(N, G, CG * int(np.prod(K)), int(np.prod(O)))
    Wg = W.reshape(G, M // G, -1)
    Y = np.matmul(Wg[0], cols[:, 0]) if G == 1 else np.matmul(Wg[None], cols)
    return Y.reshape((N, M) + tuple(O)) + B.reshape((M,) + (1,) * nsp)


def conv_t(X, W, B, s, p, op):
    N, C, H, Wd = X.shape
    _, M, KH, KW = W.shape
    OH, OW = s[0] * (H - 1) + op[0] + KH - p[0] - p[2], s[1] * (Wd - 1) + op[1] + KW - p[1] - p[3]
    cols = np.matmul(W.reshape(C, M * KH * KW).T, X.transpose(1, 0, 2, 3).reshape(C, -1))
    cols = cols.reshape(M, KH, KW, N, H, Wd)
    full = np.zeros((N, M, s[0] * (H - 1) + KH + op[0], s[1] * (Wd - 1) + KW + op[1]), X.dtype)
    for kh in range(KH):
        for kw in range(KW):
            full[:, :, kh:kh + s[0] * (H - 1) + 1:s[0], kw:kw + s[1] * (Wd - 1) + 1:s[1]] += cols[:, kh, kw].transpose(1, 0, 2, 3)
    return full[:, :, p[0]:p[0] + OH, p[1]:p[1] + OW] + B[:, None, None]


def maxpool(X, k):
    N, C, H, W = X.shape
    return X[:, :, :H // k * k, :W // k * k].reshape(N, C, H // k, k, W // k, k).max(axis=(3, 5))


def avgpool3(X):
    Xp = np.pad(X, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ones = np.pad(np.ones(X.shape[2:], X.dtype), 1)
    H, W = X.shape[2:]
    t = sum(Xp[:, :, a:a + H, b:b + W] for a in range(3) for b in range(3))
    return t / sum(ones[a:a + H, b:b + W] for a in range(3) for b in range(3))


def best(f, r=5):
    b, out = 1e9, None
    for _ in range(r):
        t = time.perf_counter()
        out = f()
        b = min(b, time.perf_counter() - t)
    return b * 1e3, out


def inputs():
    n, c, h, w = np.indices((8, 16, 64, 64))
    X = ((n * 7 + c * 3 + h * 5 + w) % 17).astype(f32) * f32(0.1) - f32(0.8)
    m, c, a, b = np.indices((32, 16, 3, 3))
    W = ((m * 5 + c + a * 3 + b) % 11).astype(f32) * f32(0.05) - f32(0.25)
    B = np.arange(32).astype(f32) * f32(0.01)
    n, c, t = np.indices((8, 32, 4096))
    X1 = ((n * 7 + c * 3 + t) % 17).astype(f32) * f32(0.1) - f32(0.8)
    m, c, k = np.indices((64, 32, 5))
    W1 = ((m * 5 + c + k * 3) % 11).astype(f32) * f32(0.05) - f32(0.25)
    B1 = np.arange(64).astype(f32) * f32(0.01)
    n, c, d, h, w = np.indices((2, 8, 24, 24, 24))
    X3 = ((n * 7 + c * 3 + d * 2 + h * 5 + w) % 17).astype(f32) * f32(0.1) - f32(0.8)
    m, c, a, b, e = np.indices((16, 8, 3, 3, 3))
    W3 = ((m * 5 + c + a * 3 + b + e * 2) % 11).astype(f32) * f32(0.05) - f32(0.25)
    B3 = np.arange(16).astype(f32) * f32(0.01)
    c, m, a, b = np.indices((16, 8, 3, 3))
    WT = ((m * 5 + c + a * 3 + b) % 11).astype(f32) * f32(0.05) - f32(0.25)
    BT = np.arange(8).astype(f32) * f32(0.01)
    return [
        ("conv g1", lambda: conv(X, W, B, [1, 1], [1] * 4, [1, 1], 1), (1, 2, 3, 4)),
        ("conv g4", lambda: conv(X, np.ascontiguousarray(W[:, :4]), B, [1, 1], [1] * 4, [1, 1], 4), (1, 2, 3, 4)),
        ("depthwise", lambda: conv(X, np.ascontiguousarray(W[:16, :1]), B[:16], [1, 1], [1] * 4, [1, 1], 16), (1, 2, 3, 4)),
        ("conv 1-D", lambda: conv(X1, W1, B1, [1], [2, 2], [1], 1), (1, 2, 3)),
        ("conv 3-D", lambda: conv(X3, W3, B3, [1, 1, 1], [1] * 6, [1, 1, 1], 1), (1, 2, 3, 4, 5)),
        ("conv_transpose", lambda: conv_t(X, WT, BT, [2, 2], [1] * 4, [1, 1]), (1, 2, 3, 4)),
        ("max_pool", lambda: maxpool(X, 2), (1, 2, 3, 4)),
        ("average_pool", lambda: avgpool3(X), (1, 2, 3, 4)),
        ("conv2d", lambda: conv(X, W, B, [1, 1], [1] * 4, [1, 1], 1), (1, 2, 3, 4)),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ein", default=os.path.join(HERE, "..", "..", "..", "build", "ein"))
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    prog = os.path.join(HERE, "conv_pool.ein")
    lines = open(prog).read().split("\n")
    lo = next(i for i, s in enumerate(lines) if "bench: begin" in s) + 1
    hi = next(i for i, s in enumerate(lines) if "bench: end" in s) + 1
    ein_ms, printed = None, None
    for _ in range(args.reps):
        p = subprocess.run([args.ein, "--timings", prog], capture_output=True, text=True, check=True)
        got = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"stmt line=(\d+) ([\d.]+) ms", p.stderr)}
        ms = [got.get(n, float("nan")) for n in range(lo + 1, hi)]
        ein_ms = ms if ein_ms is None else [min(a, b) for a, b in zip(ein_ms, ms)]
        printed = [float(v) for v in p.stdout.split()]
    print(f"{'':16s} {'ein ms':>9s} {'NumPy ms':>9s} {'ratio':>6s}")
    for (name, f, at), e, v in zip(inputs(), ein_ms, printed):
        ms, out = best(f)
        same = abs(float(out[at]) - v) <= 1e-5 * max(1.0, abs(v))
        print(f"{name:16s} {e:9.1f} {ms:9.1f} {e / ms:6.2f}{'' if same else '  VALUES DIFFER'}")


if __name__ == "__main__":
    main()
