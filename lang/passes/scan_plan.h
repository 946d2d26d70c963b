// The scan plan (a pass after scatter_plan, on the lowered IR): a definition whose every point
// reduces a range that grows with one of its indices,
//
//     let c[i] = sum[k in 0..i + 1](x[k]);                 // a cumulative sum
//     let C[r, j] = sum[k in 0..j + 1](X[r, k]);          // one per row
//
// walks 1 + 2 + ... + n terms: quadratic (10^5 points: 7 s). Each point is the previous one
// plus the term the range gained, so the tensor becomes a recurrence along that index:
//
//     C[r, j0] = sum[k in lo..j0 + c](X[r, k])            // the first point, as written
//     C[r, j]  = C[r, j - 1] + sum[k in j + c - 1..j + c](X[r, k])   // j > j0, sequential
//
// A prefix rewrite is exact: every point adds the same terms in the same order as the reduction
// did (a one-term sum is its term; skipped terms add nothing), integer sums wrap alike. A range
// that shrinks instead (`k in j + c..hi`: a suffix sum, the adjoint autodiff writes for a
// cumulative sum: 20 000 points, 84 s -> 22 ms) is walked down from its last point: the same
// terms associated from the other end, so floats round differently, as any change of summation
// order does (the kernels' vector sums already reassociate; docs/jit.md). A float sum narrower
// than f64 accumulates in an f64 scratch tensor, as the reduction it replaces does, rounded once
// per point. `max`, `min` and `prod` fold the same way when the new term always exists and is
// unguarded (an empty or filtered term has no identity for integers: the reduction stays):
// max/min exactly (first NaN, lowest index on ties, also walking down), prod in the
// reduction's order forward and from the other end for a suffix. One range variable, no
// run-time checks of its own, a body free of j and of the tensor.
// %ir shows the rewrite on the tensor's line; the recurrence then gets the usual plan
// (loop_plan's scalar carry: the previous point stays in a register).
#pragma once

namespace ein {

struct CompileCtx;

void scan_plan(CompileCtx& cx);

}  // namespace ein
