// Is a function specialisation elementwise in its array parameters? Its body is one expression
// of its parameters (no indexing, reductions, declarations, shape queries or branches) built
// from arithmetic, casts, the math intrinsics and calls of other such functions: applied to
// arrays it works point by point, so `f(S[i])[k]` is `f(S[i, k])`. row_inline uses it for
// callees with a `@fn` derivative rule (SPEC §7), which must stay calls for autodiff to use
// the rule: on the element instead of the row.
#pragma once
#include "lang/passes/context.h"

namespace ein {

// `spec`: an analysed specialisation (Unit::Kind::Fn). Scalar parameters may appear anywhere.
bool elementwise_fn(const CompileCtx& cx, const Unit& spec, int depth = 0);

}  // namespace ein
