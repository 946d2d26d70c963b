// Row declarations fused into their consumer (a pass after guard_split, on the lowered IR).
//
// row_inline turns a call on a row (`let attn[h, i, j] = softmax(S[h, i])[j];`) into
// declarations over the rows, in a block that is the statement's value:
//
//     m[h, i] = max[k](S[h, i, k]);  e[h, i, k] = exp(S[h, i, k] - m[h, i]);
//     s[h, i] = sum[k](e[h, i, k]);  y[h, i, k] = e[h, i, k] / s[h, i];  attn[h, i, j] = y[h, i, j]
//
// Stored, each is a whole-array temporary and its own pass over memory. Here such a group
// becomes block-local values of its last declaration (the consumer), one row at a time:
//
//     attn[h, i, j] = { let m' = max[k](S[h, i, k]); let e'[k] = exp(S[h, i, k] - m');
//                       let s' = sum[k](e'[k]); e'[j] / s' }
//
// A declaration D of a block joins the consumer C's group when it is a single clause over
// [0, extent) of every axis (lang/passes/point_nest), and it is read only by C and by other
// members, each read at the reader's own first p loop variables (the row; p the same for the
// whole group, at least 1, the reader's and D's first p loops having the same bounds as C's),
// every member's value cannot fail (in-bounds reads, no checks, no integer division, no call of a
// user or library function: a native kernel keeps a fill that may fail at every point), and no
// member has more than one axis past the row (a row, not a slab).
// Then D becomes, in C's value:
//   - a scalar `let` when its rank is p (a row reduction: max, sum, mean),
//   - nothing when it is elementwise (no reduction), read once, in bounds, and cannot fail:
//     its value is substituted at the read (same operations on the same operands),
//   - otherwise a block-local array over its other axes (its rows: `e'[k]`).
// Values are unchanged: every element is computed by the same operations in the same order
// (the sums over a row keep their order). The interpreter keeps the block's lets and arrays
// per row (memo_plan); native kernels fill the arrays in per-thread scratch once per row
// (engine/codegen/gen_local.cpp). `EIN_ROW_FUSE=never` keeps the declarations.
//
// The same pass gives a recurrence step a per-step scratch row (row_hoist.cpp): the part of a
// contraction's term that is a costly function of the earlier row (`softmax(h[t - 1])[k]` in
// `sum[k](softmax(h[t - 1])[k] * W[k, j])`) becomes a block-local array computed once per step.
#pragma once

#include "lang/ir/node.h"

namespace ein {

struct CompileCtx;
struct Unit;

void row_fuse(CompileCtx& cx);

// row_hoist.cpp: a recurrence step's costly function of its earlier row, read by a contraction
// at every point of the row, as a block-local array computed once per step (see there).
ir::NodeRef row_hoist(CompileCtx& cx, Unit& u, const ir::NodeRef& root);

}  // namespace ein
