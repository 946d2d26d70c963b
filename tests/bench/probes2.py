#!/usr/bin/env python3
"""More everyday probes (issue 14, session 13): programs that run.py, variants.py and probes.py
do not contain, written the way a NumPy user writes them, each beside its idiomatic NumPy form.
Same driver and table as probes.py:
  PYENV_VERSION=system python3 tests/bench/probes2.py [--ein build/ein] [--reps 5] [-k NAME]
Not part of scripts/test.sh (timings are facts about a machine)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import variants  # noqa: E402
bench, np, vals = variants.bench, variants.np, variants.vals
f32, f64 = np.float32, np.float64
P = []
probe = variants.registry(P)

@probe("kmeans_assign", "fusable", """
let X[i in 0..20000, k in 0..32] = ((i * 7 + k * 3) % 23) as f32 * 0.1 - 1.0;
let C[c in 0..16, k in 0..32] = ((c * 5 + k * 11) % 19) as f32 * 0.1 - 0.9;
// bench: begin
let a[i] = argmin[c](sum[k]((X[i, k] - C[c, k]) * (X[i, k] - C[c, k])));
// bench: end
print(a[3], a[19999]);
""")
def np_kmeans(reps):
    X = vals((20000, 32), 7, 3, 23, 0.1, 1.0, f32); C = vals((16, 32), 5, 11, 19, 0.1, 0.9, f32)
    def f():
        d = (X * X).sum(1)[:, None] - 2 * X @ C.T + (C * C).sum(1)[None, :]
        return d.argmin(1)
    ms, a = bench.best_of(reps, f)
    return ms, (a[3], a[19999])

@probe("cosine_sim", "contraction", """
let A[i in 0..2000, k in 0..128] = ((i * 7 + k * 3) % 23) as f32 * 0.1 - 1.0;
let B[j in 0..1500, k in 0..128] = ((j * 5 + k * 11) % 19) as f32 * 0.1 - 0.9;
// bench: begin
let na[i] = std::math::sqrt(sum[k](A[i, k] * A[i, k]));
let nb[j] = std::math::sqrt(sum[k](B[j, k] * B[j, k]));
let S[i, j] = sum[k](A[i, k] * B[j, k]) / (na[i] * nb[j]);
// bench: end
print(S[3, 5], S[1999, 1499]);
""")
def np_cos(reps):
    A = vals((2000, 128), 7, 3, 23, 0.1, 1.0, f32); B = vals((1500, 128), 5, 11, 19, 0.1, 0.9, f32)
    def f():
        return (A @ B.T) / (np.sqrt((A*A).sum(1))[:, None] * np.sqrt((B*B).sum(1))[None, :])
    ms, S = bench.best_of(reps, f)
    return ms, (S[3, 5], S[1999, 1499])

@probe("col_sums_f32", "memory", """
let X[i in 0..4000, j in 0..3000] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let s[j] = sum[i](X[i, j]);
// bench: end
print(s[3], s[2999]);
""")
def np_colsum(reps):
    X = vals((4000, 3000), 7, 3, 23, 0.1, 1.0, f32)
    ms, s = bench.best_of(reps, lambda: X.sum(0))
    return ms, (s[3], s[2999])

@probe("conv2d_nchw", "contraction", """
let I[c in 0..16, y in 0..66, x in 0..66] = ((c * 7 + y * 3 + x * 5) % 23) as f32 * 0.1 - 1.0;
let W[o in 0..32, c in 0..16, a in 0..3, b in 0..3] = ((o * 5 + c * 3 + a * 7 + b) % 19) as f32 * 0.01 - 0.09;
// bench: begin
let O[o, y, x] = sum[c, a, b](I[c, y + a, x + b] * W[o, c, a, b]);
// bench: end
print(O[3, 5, 7], O[31, 63, 63]);
""")
def np_conv(reps):
    c, y, x = np.indices((16, 66, 66)); I = (((c*7 + y*3 + x*5) % 23).astype(f32) * f32(0.1) - f32(1.0))
    o, c, a, b = np.indices((32, 16, 3, 3)); W = (((o*5 + c*3 + a*7 + b) % 19).astype(f32) * f32(0.01) - f32(0.09))
    def f():
        cols = np.stack([I[:, a:a+64, b:b+64] for a in range(3) for b in range(3)], 1)  # c,9,64,64
        return np.tensordot(W.reshape(32, 16, 9), cols, axes=([1, 2], [0, 1]))
    ms, O = bench.best_of(reps, f)
    return ms, (O[3, 5, 7], O[31, 63, 63])

@probe("l2_normalize_rows", "fusable", """
let X[i in 0..4000, j in 0..1000] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y[i, j] = X[i, j] / std::math::sqrt(sum[k](X[i, k] * X[i, k]) + 0.000001);
// bench: end
print(Y[3, 5], Y[3999, 999]);
""")
def np_l2(reps):
    X = vals((4000, 1000), 7, 3, 23, 0.1, 1.0, f32)
    ms, Y = bench.best_of(reps, lambda: X / np.sqrt((X * X).sum(1, keepdims=True) + f32(1e-6)))
    return ms, (Y[3, 5], Y[3999, 999])

@probe("permute_3d", "memory", """
let X[a in 0..64, b in 0..256, c in 0..256] = ((a * 7 + b * 3 + c) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let Y[c, a, b] = X[a, b, c];
// bench: end
print(Y[3, 5, 7], Y[255, 63, 255]);
""")
def np_perm(reps):
    a, b, c = np.indices((64, 256, 256)); X = (((a*7 + b*3 + c) % 23).astype(f32) * f32(0.1) - f32(1.0))
    ms, Y = bench.best_of(reps, lambda: np.ascontiguousarray(X.transpose(2, 0, 1)))
    return ms, (Y[3, 5, 7], Y[255, 63, 255])

@probe("logsumexp_rows_f64", "fusable", """
let X[i in 0..2000, j in 0..2000] = ((i * 7 + j * 3) % 23) as f64 * 0.1 - 1.0;
// bench: begin
let m[i] = max[j](X[i, j]);
let l[i] = m[i] + std::math::ln(sum[j](std::math::exp(X[i, j] - m[i])));
// bench: end
print(l[3], l[1999]);
""")
def np_lse(reps):
    X = vals((2000, 2000), 7, 3, 23, 0.1, 1.0, f64)
    def f():
        m = X.max(1); return m + np.log(np.exp(X - m[:, None]).sum(1))
    ms, l = bench.best_of(reps, f)
    return ms, (l[3], l[1999])

@probe("batch_matvec", "contraction", """
let A[b in 0..512, i in 0..64, j in 0..64] = ((b * 7 + i * 3 + j) % 23) as f32 * 0.1 - 1.0;
let v[b in 0..512, j in 0..64] = ((b * 5 + j) % 19) as f32 * 0.1 - 0.9;
// bench: begin
let y[b, i] = sum[j](A[b, i, j] * v[b, j]);
// bench: end
print(y[3, 5], y[511, 63]);
""")
def np_bmv(reps):
    b, i, j = np.indices((512, 64, 64)); A = (((b*7 + i*3 + j) % 23).astype(f32) * f32(0.1) - f32(1.0))
    v = vals((512, 64), 5, 1, 19, 0.1, 0.9, f32)
    ms, y = bench.best_of(reps, lambda: np.einsum('bij,bj->bi', A, v))
    return ms, (y[3, 5], y[511, 63])

@probe("cumprod_rows", "recurrence", """
let X[i in 0..1000, j in 0..2000] = 1.0 + ((i * 7 + j * 3) % 23) as f64 * 0.0001;
// bench: begin
let P[i, j] = if j == 0 { X[i, 0] } else { P[i, j - 1] * X[i, j] };
// bench: end
print(P[3, 5], P[999, 1999]);
""")
def np_cumprod(reps):
    X = 1.0 + vals((1000, 2000), 7, 3, 23, 0.0001, 0.0, f64)
    ms, P = bench.best_of(reps, lambda: np.cumprod(X, 1))
    return ms, (P[3, 5], P[999, 1999])

@probe("bias_gelu_mlp", "contraction", """
let X[s in 0..512, d in 0..256] = ((s * 7 + d * 3) % 23) as f32 * 0.1 - 1.0;
let W1[d in 0..256, h in 0..1024] = ((d * 5 + h * 3) % 19) as f32 * 0.01 - 0.09;
let b1[h in 0..1024] = (h % 7) as f32 * 0.01;
let W2[h in 0..1024, e in 0..256] = ((h * 3 + e * 5) % 17) as f32 * 0.01 - 0.08;
// bench: begin
let H[s, h] = std::ml::gelu(sum[d](X[s, d] * W1[d, h]) + b1[h]);
let Y[s, e] = sum[h](H[s, h] * W2[h, e]) + X[s, e];
// bench: end
print(Y[3, 5], Y[511, 255]);
""")
def np_mlp(reps):
    X = vals((512, 256), 7, 3, 23, 0.1, 1.0, f32); W1 = vals((256, 1024), 5, 3, 19, 0.01, 0.09, f32)
    b1 = ((np.arange(1024) % 7).astype(f32) * f32(0.01)); W2 = vals((1024, 256), 3, 5, 17, 0.01, 0.08, f32)
    import math
    def f():
        Z = X @ W1 + b1
        H = f32(0.5) * Z * (f32(1) + np.tanh(f32(math.sqrt(2 / math.pi)) * (Z + f32(0.044715) * Z ** 3)))
        return H @ W2 + X
    ms, Y = bench.best_of(reps, f)
    return ms, (Y[3, 5], Y[511, 255])

if __name__ == "__main__":
    variants.main(P)
