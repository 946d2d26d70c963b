// The base-case peel (a pass after lower_einstein, before recurrence_cover): a recurrence whose
// base case is written inline, as a branch on the recurrence index,
//
//     let P[t in 0..5, i, j] = if t == 0 { A[i, j] } else { sum[k](P[t - 1, i, k] * P[t - 1, k, j]) };
//
// is the same definition as the two clauses `let P[0, i, j] = A[i, j];` and
// `let P[t in 1..5, i, j] = sum[k](...)`, but as one clause every point tests the branch, and
// the step is not a plain store of a reduction: no BLAS call (the squaring above ran as a naive
// triple loop, 40 x NumPy), no vector loop over a branch-free body. When a clause's store value
// is `if d == c { A } else { B }` for a loop index d of its nest, c the first or the last value
// of d's constant range, A free of reads of the tensor itself and B reading it (a recurrence),
// the clause becomes the clause form: A at d = c (d replaced by the literal in A and in the
// store index), then B over the rest of the range. Repeated while it applies, so
// `if t == 0 {..} else if t == T - 1 {..} else {..}` peels both ends. The points and each
// point's value are unchanged; recurrence_cover and recurrence_order then see what a user
// writing the clauses would have written (their checks and plans apply unchanged). %ir shows
// the peel on the tensor's line.
#pragma once

namespace ein {

struct CompileCtx;

void base_peel(CompileCtx& cx);

}  // namespace ein
