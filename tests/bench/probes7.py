#!/usr/bin/env python3
"""Calls on rows (issue 14, session 21, rowcall helper): a function called on a row of an array
inside a declaration (`softmax(S[h, i])[j]`, a layer norm per token, a user function per row) and
a recurrence whose step calls softmax on the previous row. Each written the way a user writes it
and timed beside its idiomatic NumPy form. Same driver and table as probes.py:
  PYENV_VERSION=system python3 tests/bench/probes7.py [--ein build/ein] [--reps 5] [-k NAME]
Targets as issue 14 (fusable <= 0.5, recurrence <= 1.0 x NumPy's Python loop). Not part of
scripts/test.sh (timings are facts about a machine)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import variants  # noqa: E402
from probes3 import nd  # noqa: E402  (the inputs as the ein programs build them)
bench, np = variants.bench, variants.np
f32 = np.float32
P = []
probe = variants.registry(P)


def softmax_rows(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@probe("attn_softmax_rows", "fusable", """
let S[h in 0..8, i in 0..256, j in 0..256] = ((h * 5 + i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let attn[h, i, j] = std::ml::softmax(S[h, i])[j];
// bench: end
print(attn[3, 5, 7], attn[7, 255, 255]);
""")
def np_attn_rows(reps):
    S = nd((8, 256, 256), (5, 7, 3), 23, 0.1, 1.0, f32)
    ms, A = bench.best_of(reps, lambda: softmax_rows(S))
    return ms, (A[3, 5, 7], A[7, 255, 255])


@probe("layer_norm_rows", "fusable", """
let x[b in 0..16, t in 0..128, d in 0..256] = ((b * 5 + t * 7 + d * 3) % 23) as f32 * 0.1 - 1.0;
let g[d in 0..256] = 1.0 + (d % 5) as f32 * 0.1;
let e[d in 0..256] = (d % 3) as f32 * 0.1 - 0.1;
// bench: begin
let y[b, t, d] = std::ml::layer_normalization(x[b, t], g, e, 0.00001, -1)[d];
// bench: end
print(y[3, 5, 7], y[15, 127, 255]);
""")
def np_layer_norm_rows(reps):
    x = nd((16, 128, 256), (5, 7, 3), 23, 0.1, 1.0, f32)
    g = f32(1) + (np.arange(256) % 5).astype(f32) * f32(0.1)
    e = (np.arange(256) % 3).astype(f32) * f32(0.1) - f32(0.1)
    def f():
        mu = x.mean(-1, keepdims=True); var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + f32(1e-5)) * g + e
    ms, y = bench.best_of(reps, f)
    return ms, (y[3, 5, 7], y[15, 127, 255])


@probe("user_fn_rows", "fusable", """
fn my_fn(v) {
  let m = max[k](v[k]);
  let e[k] = std::math::exp(v[k] - m);
  let s = sum[k](e[k]);
  let y[k] = e[k] / s * len(v) as f32;
  y
}
let X[i in 0..2048, k in 0..256] = ((i * 7 + k * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let z[i, j] = my_fn(X[i])[j];
// bench: end
print(z[3, 5], z[2047, 255]);
""")
def np_user_fn_rows(reps):
    X = nd((2048, 256), (7, 3), 23, 0.1, 1.0, f32)
    ms, z = bench.best_of(reps, lambda: softmax_rows(X) * f32(256))
    return ms, (z[3, 5], z[2047, 255])


def softmax_recurrence(x):
    """h[0] = x[0]; h[t] = softmax(h[t - 1]) + x[t] along axis 0 (NumPy's Python loop)."""
    h = np.empty_like(x); h[0] = x[0]
    for t in range(1, x.shape[0]):
        h[t] = softmax_rows(h[t - 1]) + x[t]
    return h


@probe("rec_softmax_prev_row", "recurrence", """
let x[t in 0..1000, j in 0..64] = ((t * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let h[0, j] = x[0, j];
let h[t in 1..1000, j in 0..64] = std::ml::softmax(h[t - 1])[j] + x[t, j];
// bench: end
print(h[3, 5], h[999, 63]);
""")
def np_rec_softmax(reps):
    x = nd((1000, 64), (7, 3), 23, 0.1, 1.0, f32)
    ms, h = bench.best_of(reps, lambda: softmax_recurrence(x))
    return ms, (h[3, 5], h[999, 63])


# Session 22 (rowcall helper): more recurrences calling a function on an earlier row, each now
# inlined into the step (lang/passes/row_step.cpp).
@probe("rec_fn_two_rows", "recurrence", """
fn step(v, w) {
  let m = max[k](v[k]);
  let e[k] = std::math::exp(v[k] - m) * w[k];
  let s = sum[k](e[k]);
  let y[k] = e[k] / s;
  y
}
let x[t in 0..1000, j in 0..64] = ((t * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
let W[t in 0..1000, j in 0..64] = 1.0 + ((t + 2 * j) % 3) as f32 * 0.5;
// bench: begin
let h[0, j] = x[0, j];
let h[1, j] = x[1, j];
let h[t in 2..1000, j in 0..64] = step(h[t - 2], W[t])[j] + x[t, j];
// bench: end
print(h[3, 5], h[999, 63]);
""")
def np_rec_fn_two_rows(reps):
    x = nd((1000, 64), (7, 3), 23, 0.1, 1.0, f32)
    W = (f32(1) + ((np.arange(1000)[:, None] + 2 * np.arange(64)[None, :]) % 3).astype(f32) * f32(0.5))
    def f():
        h = np.empty_like(x); h[0] = x[0]; h[1] = x[1]
        for t in range(2, 1000):
            v = h[t - 2]
            e = np.exp(v - v.max()) * W[t]
            h[t] = e / e.sum() + x[t]
        return h
    ms, h = bench.best_of(reps, f)
    return ms, (h[3, 5], h[999, 63])


@probe("rec_softmax_state2d", "recurrence", """
let x[t in 0..1000, b in 0..8, j in 0..64] = ((t * 7 + b * 5 + j * 3) % 23) as f32 * 0.1 - 1.0;
// bench: begin
let h[0, b, j] = x[0, b, j];
let h[t in 1..1000, b in 0..8, j in 0..64] = std::ml::softmax(h[t - 1, b])[j] + x[t, b, j];
// bench: end
print(h[3, 2, 5], h[999, 7, 63]);
""")
def np_rec_softmax_state2d(reps):
    x = nd((1000, 8, 64), (7, 5, 3), 23, 0.1, 1.0, f32)
    ms, h = bench.best_of(reps, lambda: softmax_recurrence(x))
    return ms, (h[3, 2, 5], h[999, 7, 63])


@probe("rec_softmax_matvec", "recurrence", """
let x[t in 0..1000, j in 0..64] = ((t * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;
let W[k in 0..64, j in 0..64] = ((k * 5 + j * 3) % 17) as f32 * 0.02 - 0.16;
// bench: begin
let h[0, j] = x[0, j];
let h[t in 1..1000, j in 0..64] = sum[k](std::ml::softmax(h[t - 1])[k] * W[k, j]) + x[t, j];
// bench: end
print(h[3, 5], h[999, 63]);
""")
def np_rec_softmax_matvec(reps):
    x = nd((1000, 64), (7, 3), 23, 0.1, 1.0, f32)
    W = nd((64, 64), (5, 3), 17, 0.02, 0.16, f32)
    def f():
        h = np.empty_like(x); h[0] = x[0]
        for t in range(1, 1000):
            h[t] = softmax_rows(h[t - 1]) @ W + x[t]
        return h
    ms, h = bench.best_of(reps, f)
    return ms, (h[3, 5], h[999, 63])


if __name__ == "__main__":
    variants.main(P)
