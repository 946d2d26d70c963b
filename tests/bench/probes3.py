#!/usr/bin/env python3
"""Everyday probes, third set (issue 14, session 15): kinds of program that run.py, variants.py,
probes.py and probes2.py do not contain (normalisation over NCHW, strided and pooled windows,
image filters and resampling, gathers with a reduction, masked softmax, recurrences over
coefficients, time and a tridiagonal system, a matrix power), each written the way a NumPy user
writes it and timed beside its idiomatic NumPy form. Same driver and table as probes.py:
  PYENV_VERSION=system python3 tests/bench/probes3.py [--ein build/ein] [--reps 5] [-k NAME]
Targets as issue 14: contraction <= 1.1, fusable <= 0.5, recurrence <= 1.0 (NumPy's Python
loop), memory <= 1.1 x NumPy. Not part of scripts/test.sh (timings are facts about a machine)."""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import variants  # noqa: E402
bench, np = variants.bench, variants.np
f32, f64 = np.float32, np.float64
P = []
probe = variants.registry(P)


def nd(shape, coefs, m, scale, off, dt):
    """((sum of coef * index) % m) * scale - off over `shape`, built as the ein programs build it."""
    idx = np.indices(shape)
    acc = sum(c * i for c, i in zip(coefs, idx))
    return (acc % m).astype(dt) * dt(scale) - dt(off)


@probe("batchnorm_nchw", "fusable", """
let X[n in 0..16, c in 0..32, h in 0..56, w in 0..56] = ((n * 7 + c * 5 + h * 3 + w) % 23) as f32 * 0.1 - 1.0;
let g[c in 0..32] = 1.0 + (c % 5) as f32 * 0.1;
let b[c in 0..32] = (c % 3) as f32 * 0.1 - 0.1;
// bench: begin
let mu[c] = sum[n, h, w](X[n, c, h, w]) / 50176.0;
let var[c] = sum[n, h, w]((X[n, c, h, w] - mu[c]) * (X[n, c, h, w] - mu[c])) / 50176.0;
let Y[n, c, h, w] = (X[n, c, h, w] - mu[c]) / std::math::sqrt(var[c] + 0.00001) * g[c] + b[c];
// bench: end
print(Y[3, 5, 7, 9], Y[15, 31, 55, 55]);
""")
def np_batchnorm(reps):
    X = nd((16, 32, 56, 56), (7, 5, 3, 1), 23, 0.1, 1.0, f32)
    g = f32(1) + (np.arange(32) % 5).astype(f32) * f32(0.1); b = (np.arange(32) % 3).astype(f32) * f32(0.1) - f32(0.1)
    def f():
        mu = X.mean((0, 2, 3), keepdims=True); var = X.var((0, 2, 3), keepdims=True)
        return (X - mu) / np.sqrt(var + f32(1e-5)) * g[None, :, None, None] + b[None, :, None, None]
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[3, 5, 7, 9], Y[15, 31, 55, 55])


@probe("conv1d_stride2", "contraction", """
let x[c in 0..64, t in 0..16386] = ((c * 7 + t * 3) % 23) as f32 * 0.1 - 1.0;
let w[o in 0..64, c in 0..64, k in 0..4] = ((o * 5 + c * 3 + k * 7) % 19) as f32 * 0.01 - 0.09;
// bench: begin
let y[o in 0..64, t in 0..8192] = sum[c, k](x[c, 2 * t + k] * w[o, c, k]);
// bench: end
print(y[3, 5], y[63, 8191]);
""")
def np_conv1d_s2(reps):
    x = nd((64, 16386), (7, 3), 23, 0.1, 1.0, f32); w = nd((64, 64, 4), (5, 3, 7), 19, 0.01, 0.09, f32)
    def f():
        cols = np.stack([x[:, k:k + 2 * 8192:2] for k in range(4)], 1)  # c, 4, T
        return np.tensordot(w, cols, axes=([1, 2], [0, 1]))
    ms, y = bench.best_of(reps, f)
    return ms, (y[3, 5], y[63, 8191])


@probe("avgpool3d_same", "fusable", """
let X[n in 0..1, c in 0..8, d in 0..32, h in 0..64, w in 0..64] = ((c * 5 + d * 7 + h * 3 + w) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y = std::ml::average_pool(X, [3, 3, 3], [1, 1, 1], [1, 1, 1, 1, 1, 1]);
// bench: end
print(Y[0, 3, 0, 0, 0], Y[0, 5, 7, 9, 11], Y[0, 7, 31, 63, 63]);
""")
def np_avgpool3d(reps):
    X = nd((1, 8, 32, 64, 64), (0, 5, 7, 3, 1), 23, 0.1, 1.0, f32)
    def win(a, axis):  # sums of 3 neighbours along `axis` with zero padding, and the tap counts
        n = a.shape[axis]; p = np.pad(a, [(1, 1) if i == axis else (0, 0) for i in range(a.ndim)])
        sl = lambda s: tuple(slice(s, s + n) if i == axis else slice(None) for i in range(a.ndim))
        cnt = np.full(n, 3.0, f32); cnt[0] = cnt[-1] = 2.0
        return p[sl(0)] + p[sl(1)] + p[sl(2)], cnt
    def f():
        s, cd = win(X, 2); s, ch = win(s, 3); s, cw = win(s, 4)
        return s / (cd[:, None, None] * ch[None, :, None] * cw[None, None, :])
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[0, 3, 0, 0, 0], Y[0, 5, 7, 9, 11], Y[0, 7, 31, 63, 63])


@probe("avgpool2d_s2", "fusable", """
let X[n in 0..8, c in 0..64, h in 0..112, w in 0..112] = ((n * 3 + c * 5 + h * 7 + w) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y = std::ml::average_pool(X, [2, 2], [2, 2], [0, 0, 0, 0]);
// bench: end
print(Y[3, 5, 7, 9], Y[7, 63, 55, 55]);
""")
def np_avgpool2d(reps):
    X = nd((8, 64, 112, 112), (3, 5, 7, 1), 23, 0.1, 1.0, f32)
    ms, Y = bench.best_of(reps, lambda: X.reshape(8, 64, 56, 2, 56, 2).mean((3, 5)))
    return ms, (Y[3, 5, 7, 9], Y[7, 63, 55, 55])


@probe("sobel_magnitude", "fusable", """
let I[y in 0..2048, x in 0..2048] = ((y * 7 + x * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let G[y in 1..2047, x in 1..2047] = std::math::sqrt(
    (I[y - 1, x + 1] + 2.0 * I[y, x + 1] + I[y + 1, x + 1] - I[y - 1, x - 1] - 2.0 * I[y, x - 1] - I[y + 1, x - 1]) ** 2 +
    (I[y + 1, x - 1] + 2.0 * I[y + 1, x] + I[y + 1, x + 1] - I[y - 1, x - 1] - 2.0 * I[y - 1, x] - I[y - 1, x + 1]) ** 2);
// bench: end
print(G[3, 5], G[2046, 2046]);
""")
def np_sobel(reps):
    I = nd((2048, 2048), (7, 3), 23, 0.1, 1.0, f32)
    def f():
        c, u, d = I[1:-1], I[:-2], I[2:]
        gx = u[:, 2:] + f32(2) * c[:, 2:] + d[:, 2:] - u[:, :-2] - f32(2) * c[:, :-2] - d[:, :-2]
        gy = d[:, :-2] + f32(2) * d[:, 1:-1] + d[:, 2:] - u[:, :-2] - f32(2) * u[:, 1:-1] - u[:, 2:]
        return np.sqrt(gx * gx + gy * gy)
    ms, G = bench.best_of(reps, f)
    return ms, (G[2, 4], G[2045, 2045])  # G starts at y = x = 1


@probe("horner_coeffs_f64", "recurrence", """
let X[i in 0..1000, j in 0..1000] = ((i * 7 + j * 3) % 23) as f64 * 0.05 - 0.5;
let c[k in 0..9] = ((k * 5) % 7) as f64 * 0.25 - 0.5;
// bench: begin
let h[k in 0..9, i in 0..1000, j in 0..1000] = if k == 0 { c[8] } else { h[k - 1, i, j] * X[i, j] + c[8 - k] };
let y[i, j] = h[8, i, j];
// bench: end
print(y[3, 5], y[999, 999]);
""")
def np_horner(reps):
    X = nd((1000, 1000), (7, 3), 23, 0.05, 0.5, f64)
    c = (np.arange(9) * 5 % 7).astype(f64) * 0.25 - 0.5
    def f():
        y = np.full_like(X, c[8])
        for k in range(7, -1, -1):
            y = y * X + c[k]
        return y
    ms, y = bench.best_of(reps, f)
    return ms, (y[3, 5], y[999, 999])


@probe("embedding_bag_mean", "fusable", """
let T[v in 0..50000, d in 0..128] = ((v * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;
let idx[b in 0..4096, l in 0..32] = (b * 7919 + l * 104729) % 50000;
let nidx = idx[3, 5] + idx[4095, 31];
// bench: begin
let y[b, d] = sum[l](T[idx[b, l], d]) / 32.0;
// bench: end
print(y[3, 5], y[4095, 127], nidx);
""")
def np_embag(reps):
    T = nd((50000, 128), (7, 3), 17, 0.1, 0.8, f32)
    b, l = np.indices((4096, 32)); idx = (b * 7919 + l * 104729) % 50000
    ms, y = bench.best_of(reps, lambda: T[idx].mean(1))
    return ms, (y[3, 5], y[4095, 127], idx[3, 5] + idx[4095, 31])


@probe("confusion_matrix", "memory", """
let pred[n in 0..1000000] = ((n % 1009) * 7 + 13) % 10;
let label[n in 0..1000000] = ((n % 997) * 3 + n / 1000) % 10;
let np = sum[n](pred[n] + label[n]);
// bench: begin
let cm[a in 0..10, b in 0..10] = sum[n](1 where pred[n] == a && label[n] == b else 0);
// bench: end
print(cm[3, 5], cm[9, 9], np);
""")
def np_confusion(reps):
    n = np.arange(1000000); pred = ((n % 1009) * 7 + 13) % 10; label = ((n % 997) * 3 + n // 1000) % 10
    ms, cm = bench.best_of(reps, lambda: np.bincount(pred * 10 + label, minlength=100).reshape(10, 10))
    return ms, (cm[3, 5], cm[9, 9], (pred + label).sum())


@probe("causal_softmax", "fusable", """
let S[i in 0..2048, j in 0..2048] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let m[i] = max[j](S[i, j] where j <= i);
let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);
let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };
// bench: end
print(A[3, 2], A[2047, 1000], A[5, 9]);
""")
def np_causal(reps):
    S = nd((2048, 2048), (7, 3), 23, 0.1, 1.0, f32)
    mask = np.tril(np.ones((2048, 2048), bool))
    def f():
        Sm = np.where(mask, S, f32(-np.inf))
        e = np.exp(Sm - Sm.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
    ms, A = bench.best_of(reps, f)
    return ms, (A[3, 2], A[2047, 1000], A[5, 9])


@probe("top1_with_value", "fusable", """
let X[i in 0..8192, j in 0..1000] = ((i * 7 + j * 13) % 997) as f32 * 0.001 - 0.5;
// bench: begin
let a[i] = argmax[j](X[i, j]);
let v[i] = X[i, a[i]];
// bench: end
print(a[3], v[3], a[8191], v[8191]);
""")
def np_top1(reps):
    X = nd((8192, 1000), (7, 13), 997, 0.001, 0.5, f32)
    def f():
        a = X.argmax(1)
        return a, np.take_along_axis(X, a[:, None], 1)[:, 0]
    ms, (a, v) = bench.best_of(reps, f)
    return ms, (a[3], v[3], a[8191], v[8191])


@probe("covariance_f64", "contraction", """
let X[s in 0..4000, f in 0..256] = ((s * 7 + f * 3) % 17) as f64 * 0.1 - 0.8;
// bench: begin
let mu[f] = sum[s](X[s, f]) / 4000.0;
let C[f, g] = sum[s]((X[s, f] - mu[f]) * (X[s, g] - mu[g])) / 3999.0;
// bench: end
print(C[3, 5], C[255, 17]);
""")
def np_cov(reps):
    X = nd((4000, 256), (7, 3), 17, 0.1, 0.8, f64)
    def f():
        Xc = X - X.mean(0)
        return Xc.T @ Xc / 3999.0
    ms, C = bench.best_of(reps, f)
    return ms, (C[3, 5], C[255, 17])


@probe("ema_time_major", "recurrence", """
let X[t in 0..4096, i in 0..512] = ((t * 7 + i * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let e[t, i] = if t == 0 { X[0, i] } else { 0.9 * e[t - 1, i] + 0.1 * X[t, i] };
// bench: end
print(e[3, 5], e[4095, 511]);
""")
def np_ema(reps):
    X = nd((4096, 512), (7, 3), 23, 0.1, 1.0, f32)
    def f():
        e = np.empty_like(X); e[0] = X[0]
        for t in range(1, 4096):
            e[t] = f32(0.9) * e[t - 1] + f32(0.1) * X[t]
        return e
    ms, e = bench.best_of(reps, f)
    return ms, (e[3, 5], e[4095, 511])


@probe("thomas_batch_f64", "recurrence", """
let a[i in 0..2048, s in 0..256] = -1.0 - ((i + s) % 3) as f64 * 0.1;
let b[i in 0..2048, s in 0..256] = 4.0 + ((i * 7 + s) % 5) as f64 * 0.1;
let c[i in 0..2048, s in 0..256] = -1.0 + ((i * 3 + s) % 4) as f64 * 0.1;
let d[i in 0..2048, s in 0..256] = ((i * 7 + s * 3) % 23) as f64 * 0.1 - 1.0;
// bench: begin
let cp[i, s] = if i == 0 { c[0, s] / b[0, s] } else { c[i, s] / (b[i, s] - a[i, s] * cp[i - 1, s]) };
// dp's ranges are written out: inferred, cp[i - 1, s] under the else would start i at 1 (E012).
let dp[i in 0..2048, s in 0..256] = if i == 0 { d[0, s] / b[0, s] } else { (d[i, s] - a[i, s] * dp[i - 1, s]) / (b[i, s] - a[i, s] * cp[i - 1, s]) };
let x[i, s] = if i == 2047 { dp[2047, s] } else { dp[i, s] - cp[i, s] * x[i + 1, s] };
// bench: end
print(x[3, 5], x[0, 0], x[2047, 255]);
""")
def np_thomas(reps):
    i, s = np.indices((2048, 256))
    a = -1.0 - ((i + s) % 3) * 0.1; b = 4.0 + ((i * 7 + s) % 5) * 0.1
    c = -1.0 + ((i * 3 + s) % 4) * 0.1; d = ((i * 7 + s * 3) % 23) * 0.1 - 1.0
    def f():
        cp = np.empty_like(d); dp = np.empty_like(d); x = np.empty_like(d)
        cp[0] = c[0] / b[0]; dp[0] = d[0] / b[0]
        for k in range(1, 2048):
            den = b[k] - a[k] * cp[k - 1]
            cp[k] = c[k] / den; dp[k] = (d[k] - a[k] * dp[k - 1]) / den
        x[2047] = dp[2047]
        for k in range(2046, -1, -1):
            x[k] = dp[k] - cp[k] * x[k + 1]
        return x
    ms, x = bench.best_of(reps, f)
    return ms, (x[3, 5], x[0, 0], x[2047, 255])


@probe("matpow_squaring", "contraction", """
let A[i in 0..512, j in 0..512] = ((i * 7 + j * 3) % 23) as f64 * 0.0002;
// bench: begin
let P[t in 0..5, i in 0..512, j in 0..512] = if t == 0 { A[i, j] } else { sum[k](P[t - 1, i, k] * P[t - 1, k, j]) };
let A16[i, j] = P[4, i, j];
// bench: end
print(A16[3, 5], A16[511, 511]);
""")
def np_matpow(reps):
    A = nd((512, 512), (7, 3), 23, 0.0002, 0.0, f64)
    def f():
        M = A
        for _ in range(4):
            M = M @ M
        return M
    ms, M = bench.best_of(reps, f)
    return ms, (M[3, 5], M[511, 511])


@probe("bilinear_resize", "fusable", """
let I[y in 0..1024, x in 0..1024] = ((y * 7 + x * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let sy[o in 0..1536] = std::math::max((o as f32 + 0.5) / 1.5 - 0.5, 0.0);
let y0[o in 0..1536] = std::math::min(std::math::floor(sy[o]) as i32, 1023);
let y1[o in 0..1536] = std::math::min(y0[o] + 1, 1023);
let wy[o in 0..1536] = sy[o] - y0[o] as f32;
let R[oy in 0..1536, ox in 0..1536] =
    (1.0 - wy[oy]) * ((1.0 - wy[ox]) * I[y0[oy], y0[ox]] + wy[ox] * I[y0[oy], y1[ox]]) +
    wy[oy] * ((1.0 - wy[ox]) * I[y1[oy], y0[ox]] + wy[ox] * I[y1[oy], y1[ox]]);
// bench: end
print(R[3, 5], R[1535, 1535], R[700, 2]);
""")
def np_bilinear(reps):
    I = nd((1024, 1024), (7, 3), 23, 0.1, 1.0, f32)
    def f():
        s = np.maximum((np.arange(1536, dtype=f32) + f32(0.5)) / f32(1.5) - f32(0.5), f32(0))
        i0 = np.minimum(np.floor(s).astype(np.int64), 1023); i1 = np.minimum(i0 + 1, 1023)
        w = (s - i0.astype(f32))
        wy, wx = w[:, None], w[None, :]
        top = (f32(1) - wx) * I[i0][:, i0] + wx * I[i0][:, i1]
        bot = (f32(1) - wx) * I[i1][:, i0] + wx * I[i1][:, i1]
        return (f32(1) - wy) * top + wy * bot
    ms, R = bench.best_of(reps, f)
    return ms, (R[3, 5], R[1535, 1535], R[700, 2])


if __name__ == "__main__":
    variants.main(P)
