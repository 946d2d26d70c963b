// The extents of a call's result, read from the callee's own range facts (SPEC §5.2: plain uses
// on any array expression bound an index). `softmax(X[q])[n]` inside `let t[q, n] = ..`: the
// callee declares its result `y[j]` with `j in 0..dim(x, 0)`; at the call that is
// `dim(X[q], 0)`, the extent of X's second axis whatever q is. Used by range_site.cpp for calls
// whose arguments read the site's indices; range_analysis.cpp analyses callees first.
#pragma once
#include "lang/passes/context.h"

namespace ein::ranges {

// The extent of axis `axis` of the value `call` (standing in unit `u`) returns, written with
// the call's arguments (`dim(X[q], 0)` simplified to `dim(X, 1)`) and names visible in `u`, its
// nodes typed in u; null when it cannot be followed (a callee not analysed, a branch decided at
// run time, a local's value, a recursion).
ir::NodeRef call_result_extent(CompileCtx& cx, Unit& u, const ir::NodeRef& call, int axis);

// The operand of an elementwise value (`S[i] * 0.5`, `__exp(x)`, `x as f64`, nested) that has
// its rank and so its extents; x itself when x is not elementwise.
ir::NodeRef elementwise_base(CompileCtx& cx, Unit& u, ir::NodeRef x);

// e with each `dim(v, a)` of an array expression v written with an array's own extent where
// one is known: `dim(S[i] * 0.5, 0)` is `dim(S, 1)`, `dim(exp(X[q]), 0)` the callee's result
// extent, `dim([1, 2, 3], 0)` is 3. An inlined call's ranges carry such extents of its
// arguments; written plainly they no longer read the site's indices.
ir::NodeRef plain_dims(CompileCtx& cx, Unit& u, const ir::NodeRef& e);

// Extent of axis `axis` of an array literal `[[1, 2], [3, 4]]` (null when not one).
ir::NodeRef literal_extent(const ir::NodeRef& lit, int axis);

}  // namespace ein::ranges
