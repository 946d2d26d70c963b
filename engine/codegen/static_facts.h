// Internal to engine/codegen: what is known about integer expressions before the cell runs —
// literals, constants, integer bindings of earlier cells and static extents. Used for the
// tiering estimate, the parallel thresholds and specialisation.
#pragma once
#include <functional>
#include <optional>

#include "lang/ir/node.h"
#include "lang/passes/context.h"

namespace ein::codegen {

std::optional<int64_t> static_int(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e);
// The one work estimate and trip count (lang/passes/loop_plan.h), for tiering.
using ein::static_points;
using ein::static_trip;
// Static extents of a tensor binding (nullopt: unknown rank; -1: unknown extent).
std::optional<std::vector<int64_t>> static_shape(const CompileCtx& cx, const Unit& u, ir::DefId d);

}  // namespace ein::codegen
