// The interpreter's vectorised strategy (thesis §5.5, "Vectorized: the clause body can be
// evaluated with broadcasting over all loop axes"): a clause nest that exec facts marked
// `strategy=vectorized` is evaluated over its whole iteration space at once, one whole-array
// operation per IR node (engine/value's xtensor-backed operators), then scattered into the
// tensor. The scalar path runs whatever this does not accept, with identical results.
#pragma once
#include "engine/interp/interp_impl.h"

namespace ein {

// Runs `nest` (a clause of LTensor `tensor`) vectorised. Returns false, having done nothing, when
// the nest is outside the supported fragment (reductions, calls of user functions, windowed or
// array-element tensors, triangular loops, ...).
bool run_vectorized(Interpreter::Impl& in, const ir::NodeRef& tensor, const ir::NodeRef& nest);

}  // namespace ein
