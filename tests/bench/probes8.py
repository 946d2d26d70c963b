#!/usr/bin/env python3
"""Session 23 census of everyday programs no earlier probe covers (the coordinator's hidden-set
refresh for issue 14): RBF kernel matrices, Gram matrices, 4-D attention scores, a two-layer ReLU
MLP, a heat-equation recurrence read at its last step, power iteration (a recurrence whose step is
a GEMV and a norm), Viterbi-style max-plus with the best previous state, the game of life on ints,
a leaky-ReLU / clip chain, and a cross-entropy that gathers by label. Same driver and table as
probes.py:
  PYENV_VERSION=system python3 tests/bench/probes8.py [--ein build/ein] [--reps 5] [-k NAME]
Not part of scripts/test.sh (timings are facts about a machine)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import variants  # noqa: E402
from probes3 import nd  # noqa: E402
bench, np = variants.bench, variants.np
f32, f64 = np.float32, np.float64
P = []
probe = variants.registry(P)


@probe("rbf_kernel", "contraction", """
let X[i in 0..1024, d in 0..32] = ((i * 7 + d * 3) % 23) as f32 * 0.05 - 0.5;
let Y[j in 0..512, d in 0..32] = ((j * 5 + d * 11) % 19) as f32 * 0.05 - 0.45;
// bench: begin
let K[i, j] = std::math::exp(-sum[d]((X[i, d] - Y[j, d]) ** 2) * 0.5);
// bench: end
print(K[3, 5], K[1023, 511]);
""")
def np_rbf(reps):
    X = nd((1024, 32), (7, 3), 23, 0.05, 0.5, f32)
    Y = nd((512, 32), (5, 11), 19, 0.05, 0.45, f32)
    def f():
        d2 = (X * X).sum(1)[:, None] + (Y * Y).sum(1)[None, :] - 2 * X @ Y.T
        return np.exp(-d2 * f32(0.5))
    ms, K = bench.best_of(reps, f)
    return ms, (K[3, 5], K[1023, 511])


@probe("gram_xtx", "contraction", """
let X[n in 0..4096, a in 0..256] = ((n * 7 + a * 3) % 23) as f32 * 0.05 - 0.5;
// bench: begin
let G[a, b] = sum[n](X[n, a] * X[n, b]);
// bench: end
print(G[3, 5], G[255, 255]);
""")
def np_gram(reps):
    X = nd((4096, 256), (7, 3), 23, 0.05, 0.5, f32)
    ms, G = bench.best_of(reps, lambda: X.T @ X)
    return ms, (G[3, 5], G[255, 255])


@probe("attn_scores_4d", "contraction", """
let Q[b in 0..4, h in 0..8, i in 0..128, d in 0..64] = ((b * 3 + h * 5 + i * 7 + d) % 23) as f32 * 0.05 - 0.5;
let K[b in 0..4, h in 0..8, j in 0..128, d in 0..64] = ((b * 5 + h * 3 + j * 11 + d * 2) % 19) as f32 * 0.05 - 0.45;
// bench: begin
let S[b, h, i, j] = sum[d](Q[b, h, i, d] * K[b, h, j, d]) * 0.125;
// bench: end
print(S[1, 2, 3, 4], S[3, 7, 127, 127]);
""")
def np_attn_scores(reps):
    Q = nd((4, 8, 128, 64), (3, 5, 7, 1), 23, 0.05, 0.5, f32)
    K = nd((4, 8, 128, 64), (5, 3, 11, 2), 19, 0.05, 0.45, f32)
    ms, S = bench.best_of(reps, lambda: (Q @ K.transpose(0, 1, 3, 2)) * f32(0.125))
    return ms, (S[1, 2, 3, 4], S[3, 7, 127, 127])


@probe("mlp2_relu", "contraction", """
let X[s in 0..512, d in 0..256] = ((s * 7 + d * 3) % 23) as f32 * 0.05 - 0.5;
let W1[d in 0..256, h in 0..512] = ((d * 5 + h * 3) % 17) as f32 * 0.01 - 0.08;
let b1[h in 0..512] = (h % 7) as f32 * 0.01;
let W2[h in 0..512, o in 0..128] = ((h * 3 + o * 7) % 13) as f32 * 0.01 - 0.06;
// bench: begin
let H[s, h] = std::math::max(sum[d](X[s, d] * W1[d, h]) + b1[h], 0.0);
let O[s, o] = sum[h](H[s, h] * W2[h, o]);
// bench: end
print(O[3, 5], O[511, 127]);
""")
def np_mlp2(reps):
    X = nd((512, 256), (7, 3), 23, 0.05, 0.5, f32)
    W1 = nd((256, 512), (5, 3), 17, 0.01, 0.08, f32)
    b1 = (np.arange(512) % 7).astype(f32) * f32(0.01)
    W2 = nd((512, 128), (3, 7), 13, 0.01, 0.06, f32)
    ms, O = bench.best_of(reps, lambda: np.maximum(X @ W1 + b1, f32(0)) @ W2)
    return ms, (O[3, 5], O[511, 127])


@probe("heat_last_step", "recurrence", """
let u0[x in 0..4096] = ((x * 7) % 23) as f64 * 0.1;
// bench: begin
let u[0, x in 0..4096] = u0[x];
let u[t in 1..500, x in 0..4096] = if x == 0 || x == 4095 { u[t - 1, x] } else { u[t - 1, x] + 0.25 * (u[t - 1, x - 1] - 2.0 * u[t - 1, x] + u[t - 1, x + 1]) };
let energy = sum[x](u[499, x] * u[499, x]);
// bench: end
print(energy);
""")
def np_heat(reps):
    u0 = ((np.arange(4096) * 7) % 23).astype(f64) * 0.1
    def f():
        u = u0.copy()
        for _ in range(1, 500):
            v = u.copy()
            v[1:-1] = u[1:-1] + 0.25 * (u[:-2] - 2.0 * u[1:-1] + u[2:])
            u = v
        return (u * u).sum()
    ms, e = bench.best_of(reps, f)
    return ms, (e,)


@probe("power_iteration", "recurrence", """
let A[i in 0..512, j in 0..512] = ((i * 7 + j * 3) % 23) as f64 * 0.01 + (if i == j { 1.0 } else { 0.0 });
// bench: begin
let v[0, j in 0..512] = 1.0;
let v[t in 1..100, i in 0..512] = { let w[k in 0..512] = sum[j](A[k, j] * v[t - 1, j]); w[i] / std::math::sqrt(sum[k](w[k] * w[k])) };
// bench: end
print(v[99, 0], v[99, 511]);
""")
def np_power(reps):
    i, j = np.indices((512, 512))
    A = ((i * 7 + j * 3) % 23).astype(f64) * 0.01 + (i == j)
    def f():
        v = np.ones(512)
        for _ in range(1, 100):
            w = A @ v
            v = w / np.sqrt(w @ w)
        return v
    ms, v = bench.best_of(reps, f)
    return ms, (v[0], v[511])


@probe("viterbi_maxplus", "recurrence", """
let E[t in 0..2000, s in 0..64] = ((t * 7 + s * 3) % 23) as f32 * -0.1;
let A[p in 0..64, s in 0..64] = ((p * 5 + s * 3) % 17) as f32 * -0.05;
// bench: begin
let V[0, s in 0..64] = E[0, s];
let V[t in 1..2000, s in 0..64] = max[p](V[t - 1, p] + A[p, s]) + E[t, s];
let best[t in 1..2000, s in 0..64] = argmax[p](V[t - 1, p] + A[p, s]);
// bench: end
print(V[1999, 5], best[1999, 63]);
""")
def np_viterbi(reps):
    E = nd((2000, 64), (7, 3), 23, -0.1, 0.0, f32)
    A = nd((64, 64), (5, 3), 17, -0.05, 0.0, f32)
    def f():
        V = np.empty_like(E); V[0] = E[0]
        best = np.zeros((2000, 64), dtype=np.int64)
        for t in range(1, 2000):
            M = V[t - 1][:, None] + A
            best[t] = M.argmax(0)
            V[t] = M.max(0) + E[t]
        return V, best
    ms, (V, best) = bench.best_of(reps, f)
    return ms, (V[1999, 5], best[1999, 63])


@probe("game_of_life", "recurrence", """
let G0[i in 0..256, j in 0..256] = if (i * 7 + j * 13) % 5 < 2 { 1 } else { 0 };
// bench: begin
let G[0, i in 0..256, j in 0..256] = G0[i, j];
let G[t in 1..50, i in 0..256, j in 0..256] = {
  let n = sum[a in 0..3, b in 0..3](if i + a >= 1 && i + a <= 256 && j + b >= 1 && j + b <= 256 && (a != 1 || b != 1) { G[t - 1, min(max(i + a - 1, 0), 255), min(max(j + b - 1, 0), 255)] } else { 0 });
  if n == 3 || (n == 2 && G[t - 1, i, j] == 1) { 1 } else { 0 }
};
let alive = sum[i, j](G[49, i, j]);
// bench: end
print(alive);
""")
def np_life(reps):
    i, j = np.indices((256, 256))
    G0 = ((i * 7 + j * 13) % 5 < 2).astype(np.int64)
    def f():
        g = G0
        for _ in range(1, 50):
            p = np.pad(g, 1)
            n = sum(p[a:a + 256, b:b + 256] for a in range(3) for b in range(3)) - g
            g = ((n == 3) | ((n == 2) & (g == 1))).astype(np.int64)
        return g.sum()
    ms, a = bench.best_of(reps, f)
    return ms, (a,)


@probe("leaky_clip_chain", "fusable", """
let X[i in 0..2048, j in 0..1024] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.1;
// bench: begin
let Y[i, j] = std::math::min(std::math::max(if X[i, j] > 0.0 { X[i, j] } else { 0.01 * X[i, j] }, -0.5), 0.8) * 2.0 + 1.0;
// bench: end
print(Y[3, 5], Y[2047, 1023]);
""")
def np_leaky(reps):
    X = nd((2048, 1024), (7, 3), 23, 0.1, 1.1, f32)
    ms, Y = bench.best_of(reps, lambda: np.clip(np.where(X > 0, X, f32(0.01) * X), f32(-0.5), f32(0.8)) * f32(2) + f32(1))
    return ms, (Y[3, 5], Y[2047, 1023])


@probe("xent_gather_labels", "fusable", """
let Z[i in 0..8192, c in 0..100] = ((i * 7 + c * 3) % 23) as f32 * 0.1 - 1.1;
let y[i in 0..8192] = (i * 13) % 100;
// bench: begin
let m[i] = max[c](Z[i, c]);
let lse[i] = m[i] + std::math::log(sum[c](std::math::exp(Z[i, c] - m[i])));
let loss = sum[i](lse[i] - Z[i, y[i]]) / 8192.0;
// bench: end
print(loss);
""")
def np_xent(reps):
    Z = nd((8192, 100), (7, 3), 23, 0.1, 1.1, f32)
    y = (np.arange(8192) * 13) % 100
    def f():
        m = Z.max(1)
        lse = m + np.log(np.exp(Z - m[:, None]).sum(1))
        return (lse - Z[np.arange(8192), y]).sum() / f32(8192)
    ms, L = bench.best_of(reps, f)
    return ms, (L,)


if __name__ == "__main__":
    variants.main(P)
