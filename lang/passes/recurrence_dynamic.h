// Self-reads of a recurrence whose position is known only at run time.
//
// Why: recurrence_order orders a clause by the offsets of its self-reads. A read whose offset on
// the carrying loop has no compile-time form (`x[idx[t]]`, `half[t / 2]`, the knapsack's
// `dp[c - w[k]]`) cannot be proven to read an earlier point; run in loop order it would read a
// point not computed yet as 0 — a silent wrong answer. Such a read is wrapped in a run-time
// check (E012, SPEC §5.5) that the point it reads is already computed.
//
// Enters: the read, the point being computed, which loops are ordered, and the boxes of the
// clauses that have not finished when the reader runs (as recurrence_order schedules them).
// Leaves: `{ check; read }`, the check conservative: a point it cannot prove computed is E012.
#pragma once
#include <optional>
#include <vector>

#include "lang/ir/node.h"

namespace ein {

struct CompileCtx;
struct Unit;

// A clause's box on one axis: [lo, hi), a side nullopt when it does not fold.
struct AxisSpan {
  std::optional<int64_t> lo, hi;
};
using ClauseBox = std::vector<AxisSpan>;

struct DynamicReadOrder {
  ClauseBox own;                     // the reading clause's box
  std::vector<ClauseBox> pending;    // other clauses not finished when the reader runs
  std::vector<ir::NodeRef> point;    // per axis: the index of the point being computed
  std::vector<int> lex;              // axes in evaluation order, outermost first
  std::vector<bool> ordered;         // per entry of lex: its loop runs in order (sequential)
  bool reverse = false;              // loops run from high to low
  // Clauses fused along a time axis: any point of an earlier step is computed; `pending` then
  // holds the clauses after the reader within one step, `fused` every clause of the loop (and
  // those after it), outside which a point was computed before the loop began.
  int time_axis = -1;
  std::vector<ClauseBox> fused;
};

ir::NodeRef guard_dynamic_read(CompileCtx& cx, Unit& u, const ir::NodeRef& tensor, const ir::NodeRef& read,
                               const DynamicReadOrder& order);

}  // namespace ein
