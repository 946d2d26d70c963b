// The common-subexpression plan (a pass after loop_plan, on the lowered IR): which pure
// subexpressions a statement writes more than once, so that native code computes each once.
// The statements are those codegen compiles on its own: every tensor declaration (LTensor), and
// outside them each scalar statement with a reduction (`kernel_statement`) — a `let`, an
// expression statement or a cell's trailing expression, each an expression kernel.
// `a[i] * b[j] + exp(a[i] * b[j])` has one group, `a[i] * b[j]`, used twice.
//
// Two occurrences are the same expression when they have the same structure, the same names
// (DefIds, so a loop variable of one reduction never matches another's) and the same types.
// Only expressions without effects or context take part: arithmetic, comparisons, casts and
// reads of tensors the statement does not write (a recurrence's read of its own tensor sees a
// value a store may change). Calls, reductions, branches and blocks do not: a reduction is
// hoisted and memoised by its own rules (engine/codegen/gen_reduce.cpp).
//
// Codegen (Gen::value) computes a group's first occurrence and reuses it at each later one it
// can see (an occurrence in another branch or an earlier loop's body is computed again), keyed
// by the group and the values its names are bound to where it is printed — a fused producer's
// body or an inlined function is printed once per use, each with its own bindings. The
// interpreter ignores the plan. %ir shows each group on its statement's lines.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "lang/ir/node.h"

namespace ein {

struct CompileCtx;
struct Unit;

struct CseGroup {
  ir::NodeRef first;      // its first occurrence (for %ir)
  int uses = 0;           // occurrences in the statement
  uint32_t statement = 0; // the top-level lowered statement (LTensor, ...) it is in
  bool shown = true;      // false: each occurrence is inside an occurrence of one larger group
};

// Unit::common: node id -> group index in Unit::common_groups.
void cse_plan(CompileCtx& cx);

// The value a scalar statement computes: a let's value, an expression statement's expression, or
// the statement itself (a trailing expression).
const ir::NodeRef& statement_value(const ir::NodeRef& stmt);
// Whether `stmt` (not inside a tensor declaration) is a scalar statement codegen may compile as
// an expression kernel: a `let`, or an expression statement or the cell's trailing expression
// `tail` that is not a call, whose value has a reduction (engine/codegen/plan.cpp tiers these).
bool kernel_statement(const ir::NodeRef& stmt, const ir::NodeRef& tail);
// Whether `e`, met outside tensor declarations and outside the kernel statements codegen takes
// whole, is compiled as an expression kernel of its own: a reduction standing in an expression
// (a call's argument, a function's result, a tuple element, an operand of a statement that is not
// a kernel statement). The interpreter asks the native tier for it where it evaluates it, so
// laziness (branches, `&&`) and evaluation order are the interpreter's.
inline bool expression_reduction(const ir::NodeRef& e) { return e && e->kind == ir::Kind::LReduce; }

// ";;     common: <expr> x<uses>" lines for the groups of one top-level statement.
std::string describe_common(const Unit& u, const ir::NodeRef& statement);
// The same for every planned scalar statement that has groups, each under a heading line.
std::string describe_common_scalar(const Unit& u);

}  // namespace ein
