#!/usr/bin/env python3
"""Writes jit_gather_rows_prefetch.ein: sums of rows read through an index tensor (an embedding
bag, a weighted sum over a graph's neighbours), which kernels run with the rows of later terms
prefetched (engine/codegen/reduce_lanes.cpp). Covered: bags shorter than, equal to and longer
than the prefetch distance (16), rows of 1, 200 and 300 values (one and two blocks of 256
lanes), indices at both ends of the table, f32 (accumulated in f64, rounded once) and f64, a
max, a weighted sum, and an index past the end (E005 in the _e005 file). Expected values come
from NumPy here, never from ein.
Usage: PYENV_VERSION=system python3 jit_gather_rows_prefetch.py > jit_gather_rows_prefetch.ein"""
import numpy as np

f32, f64 = np.float32, np.float64


def fmt(v):
    return repr(float(v))


def table(V, D, dt):
    v, d = np.indices((V, D))
    return ((v * 7 + d * 3) % 17).astype(dt) * dt(0.1) - dt(0.8)


def bag(B, L, V):
    b, l = np.indices((B, L))
    return (b * 7919 + l * 104729) % V


def sum_f32(x, axis):
    """ein's f32 sum: f64 accumulator, rounded once."""
    return x.astype(f64).sum(axis).astype(f32)


out = []
for (V, D, B, L) in [(5000, 200, 300, 32), (5000, 300, 40, 7), (70000, 1, 500, 16), (300, 64, 100, 17)]:
    T = table(V, D, f32)
    idx = bag(B, L, V)
    idx[0, 0] = 0
    idx[B - 1, L - 1] = V - 1
    y = sum_f32(T[idx], 1) / f32(L)
    out.append((V, D, B, L, "f32", [y[0, 0], y[B - 1, D - 1], y[B // 2, D // 2], y.astype(f64).sum()]))
T64 = table(4000, 260, f64)
idx = bag(900, 20, 4000)
idx[0, 0] = 0
idx[899, 19] = 3999
y = T64[idx].sum(1)
out64 = [y[0, 0], y[899, 259], y[450, 256], y.sum()]
m = T64[idx].max(1)
outmax = [m[0, 0], m[899, 259], m.sum()]
w = ((np.indices((900, 20))[0] + np.indices((900, 20))[1] * 3) % 5).astype(f64) * 0.5
yw = (T64[idx] * w[:, :, None]).sum(1)
outw = [yw[3, 7], yw[899, 259], yw.sum()]

print("""// Sums of rows read through an index tensor (an embedding bag, a weighted sum over a graph's
// neighbours): the kernel prefetches the rows of the terms 16 ahead (engine/codegen/
// reduce_lanes.cpp). Bags shorter than, equal to and longer than 16; rows of 1, 64, 200, 260
// and 300 values (one and two blocks of lanes); indices at both ends of the table; f32 (f64
// accumulator, rounded once), f64, max and a weighted sum. Values from NumPy
// (jit_gather_rows_prefetch.py writes this file).
//$ EIN_JIT=never|always
fn table(V, D) {
  let T[v in 0..V, d in 0..D] = ((v * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;
  T
}
fn bag(B, L, V) {
  let idx[b in 0..B, l in 0..L] = if b == 0 && l == 0 { 0 } else if b == B - 1 && l == L - 1 { V - 1 } else { (b * 7919 + l * 104729) % V };
  idx
}
fn mean_bag(T, idx) {
  let L = len(idx[0]);
  let y[b in 0..len(idx), d in 0..len(T[0])] = sum[l in 0..L](T[idx[b, l], d]) / L as f32;
  y
}
fn check(y) { sum[b, d](y[b, d] as f64) }""")
for V, D, B, L, dt, vals in out:
    print(f"let y_{V}_{D} = mean_bag(table({V}, {D}), bag({B}, {L}, {V}));")
    print(f"print(y_{V}_{D}[0, 0], y_{V}_{D}[{B - 1}, {D - 1}], y_{V}_{D}[{B // 2}, {D // 2}], check(y_{V}_{D}));")
    print("//> " + " ".join(fmt(v) for v in vals))
print("""let T64[v in 0..4000, d in 0..260] = ((v * 7 + d * 3) % 17) as f64 * 0.1 - 0.8;
let i64[b in 0..900, l in 0..20] = if b == 0 && l == 0 { 0 } else if b == 899 && l == 19 { 3999 } else { (b * 7919 + l * 104729) % 4000 };
let s64[b, d] = sum[l](T64[i64[b, l], d]);
print(s64[0, 0], s64[899, 259], s64[450, 256], sum[b, d](s64[b, d]));""")
print("//> " + " ".join(fmt(v) for v in out64))
print("""let m64[b, d] = max[l](T64[i64[b, l], d]);
print(m64[0, 0], m64[899, 259], sum[b, d](m64[b, d]));""")
print("//> " + " ".join(fmt(v) for v in outmax))
print("""let wt[b in 0..900, l in 0..20] = ((b + l * 3) % 5) as f64 * 0.5;
let w64[b, d] = sum[l](T64[i64[b, l], d] * wt[b, l]);
print(w64[3, 7], w64[899, 259], sum[b, d](w64[b, d]));""")
print("//> " + " ".join(fmt(v) for v in outw))
