// The guard split (a pass after scan_plan, on the lowered IR): a reduction whose guards keep
// its terms inside an array, as a hand-written padded ("same") convolution does,
//
//     let y[i in 0..N] = sum[k in 0..7](x[i + k - 3] * w[k] where i + k >= 3, i + k - 3 < N);
//
// tests every guard at every term, and its reads cannot be proven in bounds (the proof does not
// use guards), so the loop neither vectorises nor drops its bounds checks. Most points are
// interior: for 3 <= i < N - 3 every k passes both tests. A guard conjunct that is affine in one
// declaration index d (coefficient +-1) and in the reduction's own indices (constant ranges),
// compared with an expression of scalars, holds for every k exactly when d is in a range computed
// once; the clause is cut along d into [lo, a), [a, b), [b, hi), and the middle copy loses the
// conjuncts that hold there. Several axes are cut one after another (a 2-D padded convolution:
// 5 clauses). The points and the terms each point adds are unchanged; the boundary clauses are
// the original. %ir shows the cut on the tensor's line.
#pragma once

namespace ein {

struct CompileCtx;

void guard_split(CompileCtx& cx);

}  // namespace ein
