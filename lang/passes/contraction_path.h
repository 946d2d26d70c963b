// The pairwise order of a Factorised contraction (contraction_plan.h): which two operands or
// partial products are contracted at each step, which step is one GEMM/GEMV, the mode-product
// chain tried in front, and the names %ir prints them with. contraction_plan.cpp decides that a
// contraction is factorised and calls these.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/passes/contraction_plan.h"

namespace ein {

// The cheapest order of pairwise steps for a product of three or more operands into `p.path`
// (with `p.path_cost`, `p.naive_cost`), given each variable's extent: an exhaustive search over
// pairings (dynamic programming over subsets of operands, 3^n for n <= 8), the cost of a step
// being the product of the extents of every index it touches. False (and no path) when the
// steps cost more than a quarter of the plain nest: then temporaries do not pay.
bool factor_path(ContractionPlan& p, std::unordered_map<ir::DefId, double> extents);

// A whole, in-place plan's chain of mode products (ContractionPlan::chain), if it is one.
void mode_chain(ContractionPlan& p);

// Sets each step's `gemm` once the plan's dest is final.
void plan_step_gemms(ContractionPlan& p);

// The source names of a contraction's variables, from the operands' subscripts, and a list of
// variables by those names ("i,k"; "?" for one without).
using VarNames = std::unordered_map<ir::DefId, std::string>;
VarNames variable_names(const Contraction& c);
std::string names(const std::vector<ir::DefId>& ds, const VarNames& nm);

}  // namespace ein
