// Calls on a moving row inlined as declarations over the rows (issue 14, session 21).
//
// A top-level statement that calls a user or library function on a row of an array indexed by
// its own index variables (`let a[h, i, j] = softmax(S[h, i])[j];`, `let n[i] = norm(X[i]);`,
// `let s = sum[i](F(X[i])[0]);`) ran the callee once per row (per point, before memo_plan) in
// the interpreter. Here the callee's specialised body is copied once for all rows: each of its
// declarations and scalar lets becomes a declaration with the row indices in front
// (`m[h', i'] = max[j](S[h', i', j])`, `e[h', i', j] = exp(S[h', i', j] - m[h', i'])`, ...), its
// parameter reads become reads of the argument's array at the row, and the call becomes a read
// of the returned declaration at the row (`y[h, i, j]`). The statement's value becomes a block
// holding those declarations, so they are ordinary Einstein nests for every later pass (kernels,
// fusion, autodiff) and are freed with the block.
//
// The rewrite applies only when it is sure to compute the same values: the callee's body is
// declarations, scalar lets, aliases, branches its specialisation decided statically and checks
// that fold to true; every argument that moves with the rows is an array read at the row; the
// others read nothing bound in the statement and are evaluated once (they may not call
// functions: effects). Anything else leaves the call as it is (the interpreter runs it, as
// before). The driver analyses the cell again after a rewrite and runs this pass again (calls
// in the inlined bodies: `layer_normalization` → `normalize_trailing`), at most 4 rounds.
// The same applies inside function specialisations' bodies (CompileCtx::ad_bodies), and a call
// on the recurrence's own earlier row becomes a block in the step (row_step.cpp).
#pragma once

namespace ein {
struct CompileCtx;

// Rewrites cx.cell().body; leaves it pointer-identical when nothing applied.
void row_inline(CompileCtx& cx);
}  // namespace ein
