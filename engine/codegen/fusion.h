// Internal to engine/codegen: the kernels of producer/consumer fusion. Which producers are
// computed inside which consumer is decided by the fusion_plan pass (Unit::fusions, shown by
// %ir); here each group becomes the consumer's kernel, kept when it compiles and (EIN_JIT=auto)
// its work reaches the threshold. The intermediates are then never stored.
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

FusionPlan fused_kernels(const CompileCtx& cx, const Unit& u, const PlanOptions& opt);

// Rebuilds an extent or check expression with DimOf(producer, a) replaced by the producer's
// own extent expression (producers are not bound when their consumer kernel runs).
ir::NodeRef substitute_extents(const ir::NodeRef& n, const FusionMap& producers);

}  // namespace ein::codegen
