// The scatter plan (a pass after checkpoint, on the lowered IR): a definition whose every point
// sums the same domain keeping only the terms whose key equals the point,
//
//     let h[b] = sum[i](1 where idx[i] == b);                 // a histogram
//     let s[g, d] = sum[i](x[i, d] where seg[i] == g);        // segment sums
//     d_x[m, d] = sum[i](d_e[i, d] where tok[i] == m)         // the adjoint of a gather x[tok[i], d]
//
// walks the domain |b| times, once per point, and keeps one term in |b| (a 50 000-row embedding
// gradient over 20 000 tokens: 2 minutes). Walked once, each term is added at the point its key
// names: O(|i| + |b|) instead of O(|i| · |b|). The rewrite is exact: every point receives the
// same terms in the same order (i ascending), and a float sum narrower than f64 accumulates into
// an f64 scratch tensor and is rounded once at the end, as the reduction it replaces does
// (docs/jit.md, "f32 sums accumulate wide"); integer sums wrap alike in any order.
//
// The rule: a tensor with one clause, a perfect nest of loops whose bounds do not move with each
// other around one store at the loop variables, and a stored value that is a `sum` reduction (or
// a `+` of such) with no run-time checks of its own, whose guards include `key == b` for some
// declaration index b (several such: `C[a, b] = sum[i](1 where y[i] == a, p[i] == b)`), with
// keys, reduction bounds and everything else in the body free of the keyed indices. Unkeyed
// declaration indices read by a key or a guard run outside the pass (`d_x[m0, m1] = sum[k](..
// where idx[m0, k] == m1)`, the adjoint of `x[n, idx[n, k]]`), else inside it around the add.
// A key outside b's range contributes nothing, as before. `v where c else 0` is the guard
// `v where c` (adding 0 changes no sum), and `k == b as i64` tests b itself (the widening is
// exact).
// The reduction's loops become sequential loops (LFor, kSequential) around an LAccum.
// %ir shows the rewrite on the tensor's line.
#pragma once

namespace ein {

struct CompileCtx;

void scatter_plan(CompileCtx& cx);

}  // namespace ein
