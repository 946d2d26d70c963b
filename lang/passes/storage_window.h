#pragma once

namespace ein {
struct CompileCtx;

// Storage-window inference (SPEC §5.5, thesis §5.8): a recurrence fused over axis 0 with a known
// lookback L, whose every later observation is a point read a bounded distance k from the end
// (`x[T - 1]`), keeps only W = max(L + 1, max k) steps in a circular buffer. The LTensor gets
// kWindowed and LShape::ival = W; its stores and all reads of it get kWindowed (index 0 mod W).
// Whole-tensor observations, dynamic reads, uses in other functions, and top-level bindings of a
// session cell (a later cell may read them) keep the full tensor.
void infer_storage_windows(CompileCtx& cx);
}  // namespace ein
