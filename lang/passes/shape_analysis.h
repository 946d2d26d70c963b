#pragma once
#include <optional>

#include "lang/ir/node.h"
#include "lang/passes/int_fold.h"  // fold_int: what shape analysis knows, folded

namespace ein {
struct CompileCtx;
struct Unit;

// Shape analysis (thesis §4.4.3): walks every unit in statement order computing static extents
// (Unit::shapes, Unit::def_shapes, CompileCtx::global_shapes) from literals, earlier cells'
// values, constants and folded ranges. Everything it can decide at compile time it decides:
// ragged literals and array-array shape mismatches (E004), plain index uses with two different
// known extents (E004, both uses labelled), constant or explicit-range accesses out of bounds
// (E005), annotation extents (E004). AgreeFacts it cannot decide stay for a runtime check.
// Folded range bounds are stored in RangeFact::lo_const / hi_const.
void shape_analysis(CompileCtx& cx);


}  // namespace ein
