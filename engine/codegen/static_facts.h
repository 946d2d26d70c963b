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
// Points of the loop lo..hi when both bounds are known (exact: i64::MIN..i64::MAX has 2^64 - 1).
std::optional<double> static_trip(const CompileCtx& cx, const Unit& u, const ir::NodeRef& lo, const ir::NodeRef& hi);
// Points a statement executes per run: the product of the trip counts along its deepest loop
// chain (the one work estimate of tiering, parallel thresholds and blocking). A trip count not
// known before the run counts as `unknown_trip`, or makes the answer unknown when that is
// nullopt; a reduction `skip` accepts counts as one point (it is computed elsewhere).
std::optional<double> static_points(const CompileCtx& cx, const Unit& u, const ir::NodeRef& n,
                                    std::optional<double> unknown_trip,
                                    const std::function<bool(const ir::NodeRef&)>& skip = nullptr);
// Static extents of a tensor binding (nullopt: unknown rank; -1: unknown extent).
std::optional<std::vector<int64_t>> static_shape(const CompileCtx& cx, const Unit& u, ir::DefId d);

}  // namespace ein::codegen
