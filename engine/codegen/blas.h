// Internal to engine/codegen: contractions that are GEMM or GEMV up to transposition, scaling
// and batching go to BLAS (ARCHITECTURE: "do not hand-write GEMM"); multi-factor contractions
// are factorised into pairwise ones (einsum.cpp).
#pragma once
#include <optional>
#include <string>

#include "engine/codegen/codegen.h"

namespace ein::codegen {

// The kernel text when `clause` is a BLAS-shaped contraction (fills k's arguments and plan).
std::optional<std::string> gen_blas(const CompileCtx& cx, const Unit& u, const ir::NodeRef& tensor,
                                    const ir::NodeRef& clause, Kernel& k);

}  // namespace ein::codegen
