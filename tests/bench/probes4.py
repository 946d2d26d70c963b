#!/usr/bin/env python3
"""Everyday probes, fourth set (issue 14, session 16): a batch of one. Inference on one image,
one utterance, one volume: the std::ml layers (conv in 1-D, 2-D and 3-D, pooling, batch,
layer and instance normalisation) called with N = 1, where a kernel that parallelises only its
outermost loop (the batch axis, or conv's group axis) runs on one thread. Same driver and table
as probes.py; values are checked against NumPy in every row.
  PYENV_VERSION=system python3 tests/bench/probes4.py [--ein build/ein] [--reps 5] [-k NAME]
Targets as issue 14: contraction <= 1.1, fusable <= 0.5 x NumPy. Not part of scripts/test.sh
(timings are facts about a machine)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import probes3  # noqa: E402  (nd: the inputs built as the ein programs build them)
variants, nd = probes3.variants, probes3.nd
bench, np = variants.bench, variants.np
f32, f64 = np.float32, np.float64
P = []
probe = variants.registry(P)


def im2col_conv(X, W, pads):
    """NumPy's usual convolution: zero-pad, stack the shifted views (taps), one tensordot."""
    nsp = X.ndim - 2
    Xp = np.pad(X, [(0, 0), (0, 0)] + [(p, p) for p in pads])
    ks = W.shape[2:]
    outs = [Xp.shape[2 + a] - ks[a] + 1 for a in range(nsp)]
    taps = []
    for t in np.ndindex(*ks):
        taps.append(Xp[(slice(None), slice(None)) + tuple(slice(t[a], t[a] + outs[a]) for a in range(nsp))])
    cols = np.stack(taps, 2)  # N, C, taps, ..out
    Wr = W.reshape(W.shape[0], W.shape[1], -1)  # M, C, taps
    Y = np.tensordot(Wr, cols, axes=([1, 2], [1, 2]))  # M, N, ..out
    return np.moveaxis(Y, 0, 1)


@probe("conv2d_b1", "contraction", """
let X[n in 0..1, c in 0..64, h in 0..56, w in 0..56] = ((c * 7 + h * 3 + w * 5) % 23) as f32 * 0.1 - 1.0;
let W[m in 0..64, c in 0..64, a in 0..3, b in 0..3] = ((m * 5 + c * 3 + a * 7 + b) % 19) as f32 * 0.01 - 0.09;
let B[m in 0..64] = (m % 7) as f32 * 0.1 - 0.3;
// bench: begin
let Y = std::ml::conv(X, W, B, [1, 1], [1, 1, 1, 1], [1, 1], 1);
// bench: end
print(Y[0, 3, 5, 7], Y[0, 63, 55, 55], Y[0, 0, 0, 0]);
""")
def np_conv2d_b1(reps):
    X = nd((1, 64, 56, 56), (0, 7, 3, 5), 23, 0.1, 1.0, f32)
    W = nd((64, 64, 3, 3), (5, 3, 7, 1), 19, 0.01, 0.09, f32)
    B = (np.arange(64) % 7).astype(f32) * f32(0.1) - f32(0.3)
    ms, Y = bench.best_of(reps, lambda: im2col_conv(X, W, (1, 1)) + B[None, :, None, None])
    return ms, (Y[0, 3, 5, 7], Y[0, 63, 55, 55], Y[0, 0, 0, 0])


@probe("conv1d_b1", "contraction", """
let X[n in 0..1, c in 0..80, t in 0..3000] = ((c * 7 + t * 3) % 23) as f32 * 0.1 - 1.0;
let W[m in 0..384, c in 0..80, k in 0..3] = ((m * 5 + c * 3 + k * 7) % 19) as f32 * 0.01 - 0.09;
let B[m in 0..384] = (m % 7) as f32 * 0.1 - 0.3;
// bench: begin
let Y = std::ml::conv(X, W, B, [1], [1, 1], [1], 1);
// bench: end
print(Y[0, 3, 5], Y[0, 383, 2999], Y[0, 0, 0]);
""")
def np_conv1d_b1(reps):
    X = nd((1, 80, 3000), (0, 7, 3), 23, 0.1, 1.0, f32)
    W = nd((384, 80, 3), (5, 3, 7), 19, 0.01, 0.09, f32)
    B = (np.arange(384) % 7).astype(f32) * f32(0.1) - f32(0.3)
    ms, Y = bench.best_of(reps, lambda: im2col_conv(X, W, (1,)) + B[None, :, None])
    return ms, (Y[0, 3, 5], Y[0, 383, 2999], Y[0, 0, 0])


@probe("conv3d_b1", "contraction", """
let X[n in 0..1, c in 0..8, d in 0..24, h in 0..48, w in 0..48] = ((c * 5 + d * 7 + h * 3 + w) % 23) as f32 * 0.1 - 1.0;
let W[m in 0..16, c in 0..8, a in 0..3, b in 0..3, e in 0..3] = ((m * 5 + c * 3 + a * 7 + b * 2 + e) % 19) as f32 * 0.01 - 0.09;
let B[m in 0..16] = (m % 7) as f32 * 0.1 - 0.3;
// bench: begin
let Y = std::ml::conv(X, W, B, [1, 1, 1], [1, 1, 1, 1, 1, 1], [1, 1, 1], 1);
// bench: end
print(Y[0, 3, 5, 7, 9], Y[0, 15, 23, 47, 47], Y[0, 0, 0, 0, 0]);
""")
def np_conv3d_b1(reps):
    X = nd((1, 8, 24, 48, 48), (0, 5, 7, 3, 1), 23, 0.1, 1.0, f32)
    W = nd((16, 8, 3, 3, 3), (5, 3, 7, 2, 1), 19, 0.01, 0.09, f32)
    B = (np.arange(16) % 7).astype(f32) * f32(0.1) - f32(0.3)
    ms, Y = bench.best_of(reps, lambda: im2col_conv(X, W, (1, 1, 1)) + B[None, :, None, None, None])
    return ms, (Y[0, 3, 5, 7, 9], Y[0, 15, 23, 47, 47], Y[0, 0, 0, 0, 0])


@probe("maxpool2d_b1", "fusable", """
let X[n in 0..1, c in 0..64, h in 0..112, w in 0..112] = ((c * 5 + h * 7 + w) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y = std::ml::max_pool(X, [3, 3], [2, 2], [1, 1, 1, 1]);
// bench: end
print(Y[0, 3, 5, 7], Y[0, 63, 55, 55], Y[0, 0, 0, 0]);
""")
def np_maxpool2d_b1(reps):
    X = nd((1, 64, 112, 112), (0, 5, 7, 1), 23, 0.1, 1.0, f32)
    def f():
        Xp = np.pad(X, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=-np.inf)
        Y = None
        for a in range(3):
            for b in range(3):
                t = Xp[:, :, a:a + 111:2, b:b + 111:2]
                Y = t.copy() if Y is None else np.maximum(Y, t, out=Y)
        return Y
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[0, 3, 5, 7], Y[0, 63, 55, 55], Y[0, 0, 0, 0])


@probe("avgpool2d_b1", "fusable", """
let X[n in 0..1, c in 0..64, h in 0..112, w in 0..112] = ((c * 5 + h * 7 + w) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y = std::ml::average_pool(X, [3, 3], [1, 1], [1, 1, 1, 1]);
// bench: end
print(Y[0, 3, 5, 7], Y[0, 63, 111, 111], Y[0, 0, 0, 0]);
""")
def np_avgpool2d_b1(reps):
    X = nd((1, 64, 112, 112), (0, 5, 7, 1), 23, 0.1, 1.0, f32)
    cnt = np.full(112, 3.0, f32); cnt[0] = cnt[-1] = 2.0
    def f():
        p = np.pad(X, [(0, 0), (0, 0), (1, 1), (1, 1)])
        s = p[:, :, :, 0:112] + p[:, :, :, 1:113] + p[:, :, :, 2:114]
        s = s[:, :, 0:112] + s[:, :, 1:113] + s[:, :, 2:114]
        return s / (cnt[:, None] * cnt[None, :])
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[0, 3, 5, 7], Y[0, 63, 111, 111], Y[0, 0, 0, 0])


@probe("batchnorm_b1", "fusable", """
let X[n in 0..1, c in 0..64, h in 0..112, w in 0..112] = ((c * 5 + h * 7 + w) % 23) as f32 * 0.1 - 1.0;
let g[c in 0..64] = 1.0 + (c % 5) as f32 * 0.1;
let b[c in 0..64] = (c % 3) as f32 * 0.1 - 0.1;
let mu[c in 0..64] = (c % 7) as f32 * 0.05 - 0.1;
let var[c in 0..64] = 0.5 + (c % 4) as f32 * 0.25;
// bench: begin
let Y = std::ml::batch_normalization(X, g, b, mu, var, 0.00001);
// bench: end
print(Y[0, 3, 5, 7], Y[0, 63, 111, 111], Y[0, 0, 0, 0]);
""")
def np_batchnorm_b1(reps):
    X = nd((1, 64, 112, 112), (0, 5, 7, 1), 23, 0.1, 1.0, f32)
    c = np.arange(64)
    g = f32(1) + (c % 5).astype(f32) * f32(0.1); b = (c % 3).astype(f32) * f32(0.1) - f32(0.1)
    mu = (c % 7).astype(f32) * f32(0.05) - f32(0.1); var = f32(0.5) + (c % 4).astype(f32) * f32(0.25)
    def f():
        s = (g / np.sqrt(var + f32(1e-5)))[None, :, None, None]
        return (X - mu[None, :, None, None]) * s + b[None, :, None, None]
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[0, 3, 5, 7], Y[0, 63, 111, 111], Y[0, 0, 0, 0])


@probe("layernorm_b1", "fusable", """
let X[n in 0..1, s in 0..1500, j in 0..384] = ((s * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
let g[j in 0..384] = 1.0 + (j % 5) as f32 * 0.1;
let b[j in 0..384] = (j % 3) as f32 * 0.1 - 0.1;
// bench: begin
let Y = std::ml::layer_normalization(X, g, b, 0.00001, -1);
// bench: end
print(Y[0, 3, 5], Y[0, 1499, 383], Y[0, 0, 0]);
""")
def np_layernorm_b1(reps):
    X = nd((1, 1500, 384), (0, 7, 3), 23, 0.1, 1.0, f32)
    j = np.arange(384)
    g = f32(1) + (j % 5).astype(f32) * f32(0.1); b = (j % 3).astype(f32) * f32(0.1) - f32(0.1)
    def f():
        mu = X.mean(-1, keepdims=True); var = X.var(-1, keepdims=True)
        return (X - mu) / np.sqrt(var + f32(1e-5)) * g + b
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[0, 3, 5], Y[0, 1499, 383], Y[0, 0, 0])


@probe("instancenorm_b1", "fusable", """
let X[n in 0..1, c in 0..32, h in 0..128, w in 0..128] = ((c * 5 + h * 7 + w) % 23) as f32 * 0.1 - 1.0;
let g[c in 0..32] = 1.0 + (c % 5) as f32 * 0.1;
let b[c in 0..32] = (c % 3) as f32 * 0.1 - 0.1;
// bench: begin
let Y = std::ml::instance_normalization(X, g, b, 0.00001);
// bench: end
print(Y[0, 3, 5, 7], Y[0, 31, 127, 127], Y[0, 0, 0, 0]);
""")
def np_instancenorm_b1(reps):
    X = nd((1, 32, 128, 128), (0, 5, 7, 1), 23, 0.1, 1.0, f32)
    c = np.arange(32)
    g = f32(1) + (c % 5).astype(f32) * f32(0.1); b = (c % 3).astype(f32) * f32(0.1) - f32(0.1)
    def f():
        mu = X.mean((2, 3), keepdims=True); var = X.var((2, 3), keepdims=True)
        return (X - mu) / np.sqrt(var + f32(1e-5)) * g[None, :, None, None] + b[None, :, None, None]
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[0, 3, 5, 7], Y[0, 31, 127, 127], Y[0, 0, 0, 0])


if __name__ == "__main__":
    variants.main(P)
