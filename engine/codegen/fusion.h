// Internal to engine/codegen: producer/consumer fusion (Parakeet ch. 6). A chain of elementwise
// or indexed definitions whose intermediates are read by exactly one later definition, at the
// point being computed, and observed nowhere else, is computed in the consumer's loop nest:
// the intermediates are never stored.
#pragma once
#include <unordered_map>
#include <unordered_set>

#include "engine/codegen/codegen.h"
#include "lang/ir/visitor.h"

namespace ein::codegen {

struct FusionPlan {
  std::unordered_set<uint32_t> elided;               // producer LTensor node ids
  std::unordered_map<uint32_t, Kernel> consumers;    // consumer clause id -> its fused kernel
};

FusionPlan plan_fusion(const CompileCtx& cx, const Unit& u, const PlanOptions& opt);

// Rebuilds an extent or check expression with DimOf(producer, a) replaced by the producer's
// own extent expression (producers are not bound when their consumer kernel runs).
ir::NodeRef substitute_extents(const ir::NodeRef& n, const FusionMap& producers);

}  // namespace ein::codegen
