#pragma once

namespace ein {
struct CompileCtx;

// Named rest patterns (SPEC §5.6, thesis §5.2): `..b` in declaration slots, reduction slots
// and accesses becomes as many generated index variables as type inference found axes for it
// (Unit::rest_len). After this pass no IdxRest/RestIdx node remains in any unit, and a chained
// access `X[i][k]` of a rectangular array is the one access `X[i, k]`.
void expand_rest(CompileCtx& cx);
}  // namespace ein
