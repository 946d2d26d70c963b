#!/usr/bin/env python3
"""Expected values of ad_strided_reads.ein: each gradient by NumPy, scattering every read's partial
with np.add.at over explicit loops of the same reads (never ein's output). Prints one line per case.

  PYENV_VERSION=system python3 tests/golden/autodiff/gen_strided_reads.py
"""
import numpy as np
x = np.array([0.5, -1.25, 2.0, 0.75, -0.5, 1.5, 3.0, -2.0, 0.25, 1.0])
w = np.array([1.5, -0.5, 2.0])
def fmt(a): return "[" + ", ".join(repr(float(v)) for v in a) + "]"
# 1. y[i, k] = x[i*s + k*d] * w[k], s=2, d=3 (run time), i in 0..3, k in 0..2; L = sum y[i,k]*(i+1+k)
g = np.zeros_like(x)
for i in range(3):
    for k in range(2):
        np.add.at(g, i*2 + k*3, w[k]*(i+1+k))
print("1", fmt(g))
# 2. literal stride: z[i in 0..4] = x[2*i + 1]^2 ; L = sum z*(i+1)
g = np.zeros_like(x)
for i in range(4): np.add.at(g, 2*i+1, 2*x[2*i+1]*(i+1))
print("2", fmt(g))
# 3. s = 0: y[i in 0..3, k in 0..2] = x[i*s + k*d]*w[k] with s=0, d=3
g = np.zeros_like(x)
for i in range(3):
    for k in range(2): np.add.at(g, k*3, w[k]*(i+1+k))
print("3", fmt(g))
# 4. negative run-time coefficient: r[i in 0..4] = x[i*sn + 9] * x[i], sn = -2
g = np.zeros_like(x)
for i in range(4):
    np.add.at(g, 9 - 2*i, x[i]*(i+1)); np.add.at(g, i, x[9-2*i]*(i+1))
print("4", fmt(g))
# 5. 1-D valid correlation c[t in 0..8] = sum[k](x[t + k] * w[k]); L = sum c[t]*(t+1)
g = np.zeros_like(x)
for t in range(8):
    for k in range(3): np.add.at(g, t+k, w[k]*(t+1))
print("5", fmt(g))
# 6. 2-D strided, dilated, padded: X [5,4]; Y[i in 0..3, j in 0..2] = sum[a in 0..2, b in 0..2](X[ih, iw] * W2[a, b] where ih = i*s + a*d - p, iw = j*s + b - p, in bounds), s=2,d=2,p=1
X = np.arange(20, dtype=float).reshape(5, 4) * 0.25 - 2.0
W2 = np.array([[1.0, -2.0], [0.5, 3.0]])
g = np.zeros_like(X)
for i in range(3):
    for j in range(2):
        for a in range(2):
            for b in range(2):
                ih, iw = i*2 + a*2 - 1, j*2 + b - 1
                if 0 <= ih < 5 and 0 <= iw < 4: g[ih, iw] += W2[a, b] * (i + 2*j + 1)
print("6", "[" + ", ".join(fmt(r) for r in g) + "]")
# 7. grouped channels: Z[g in 0..2, c in 0..3] = x[g*CG + c + 1] * (g + 1), CG = 3 (run time); L = sum Z*(c+1)
g7 = np.zeros_like(x)
for gg in range(2):
    for c in range(3): g7[gg*3 + c + 1] += (gg+1)*(c+1)
print("7", fmt(g7))
# 8. unflattened reads: Zm[g in 0..2, q in 0..3] = x[g*3 + q] * (g + 1); Ym[m in 0..6] = Zm[m / K, m % K] * (m + 1)
#    with K = 3 at run time; L = sum Ym. Gradients with respect to Zm and to x.
gz = np.zeros((2, 3))
for m in range(6): gz[m // 3, m % 3] += m + 1
gx = np.zeros_like(x)
for g_ in range(2):
    for q in range(3): gx[g_*3 + q] += (g_ + 1) * gz[g_, q]
print("8", "[" + ", ".join(fmt(r) for r in gz) + "]", fmt(gx))
