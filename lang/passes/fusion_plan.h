// The fusion plan (a pass after contraction_plan, on the lowered IR): which top-level tensors are
// elementwise producers computed inside one later consumer's loop nest instead of being stored
// (Parakeet ch. 6). A chain of producers whose intermediates are read by exactly one later
// single-clause tensor, at the point being computed, and observed nowhere else (not by another
// statement, unit or cell) is one FusionGroup in Unit::fusions. Codegen generates the consumer's
// kernel from the group and only decides whether that kernel is worth compiling; %ir lists the
// groups (describe_fusion). The interpreter ignores them: it stores every tensor.
//
// A producer: one clause of loops over exactly [0, extent) of every axis around one store
// (where-lets allowed), no guard, reduction or self-read, an element type native kernels compute
// (not f16/bf16), and not a session global unless the whole program is known (a later cell may
// read it). Or a row reduction: the same, except that the stored value holds sum/max/min/prod
// reductions (nothing nested in them, no contraction plan: `z[i] = sum[j](exp(x[i, j] - m[i]))`,
// `ls[i] = ln(sum[j](..))`); it may also be read at the consumer's outer loop variables in order
// (`z[i]` inside loops over i and j), not by a consumer whose loops run in order. Codegen
// computes it once per row (or refuses the fused kernel) and, when the consumer recomputes the
// reduction's term, keeps the terms in the output row (engine/codegen/gen_rowbuf.cpp).
// A producer may also be guard_split's boxes of one such clause (a causal row sum
// `sum[j](.. where j <= i)`): fused, the original store (the last box's) runs at every point.
#pragma once
#include <string>

#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;
struct Unit;

void fusion_plan(CompileCtx& cx);

// The clause whose store a fused read of `producer` (a planned producer's LTensor) computes at
// any point: its only clause, or the last of guard_split's boxes (the store with every guard).
ir::NodeRef fused_clause(const ir::NodeRef& producer);

// One line per fusion group of the unit, for %ir's execution plan.
std::string describe_fusion(const Unit& u);
}  // namespace ein
