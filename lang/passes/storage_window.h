#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;
struct Unit;

// Storage-window inference (SPEC §5.5, thesis §5.8): a recurrence fused over axis 0 with a known
// lookback L, whose every later observation is a point read a bounded distance k from the end
// (`x[T - 1]`), keeps only W = max(L + 1, max k) steps in a circular buffer. The LTensor gets
// kWindowed and LShape::ival = W; its stores and all reads of it get kWindowed (index 0 mod W).
// Whole-tensor observations, dynamic reads, uses in other functions, and top-level bindings of a
// session cell (a later cell may read them) keep the full tensor.
// A recurrence fused over axis 0 and swept from its last row down is windowed only when its
// statements write every row from the extent down to some row r in that order and each row
// rewrites every point an earlier row wrote a non-zero value at; returns r (checkpoint asks too).
void storage_window(CompileCtx& cx);
std::optional<int64_t> backward_rows_down_to(CompileCtx& cx, Unit& u, const ir::NodeRef& tensor);
// Does every row `stmt` writes into `def` (extents `ext`) get all its points (unguarded stores
// over constant boxes covering axes 1..)?
bool writes_whole_rows(CompileCtx& cx, Unit& u, const ir::NodeRef& stmt, ir::DefId def, const std::vector<int64_t>& ext);
}  // namespace ein
