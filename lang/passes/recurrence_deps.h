// Internal to recurrence_order (lang/passes/recurrence_order.h): what one tensor's clauses read
// of the tensor itself. Each clause's self-reads with the conditions around them, the dependence
// component of each read on each loop (exact offset, bounded by a reduction range or a guard,
// a constant point, or unknown), and which points a clause writes. recurrence_order.cpp
// chooses loop orders, time loops and clause orders from these and rebuilds the nests.
#pragma once
#include <unordered_map>
#include <utility>
#include <vector>

#include "lang/ir/node.h"
#include "lang/passes/loop_nest.h"
#include "lang/passes/recurrence_bounds.h"
#include "lang/passes/recurrence_dynamic.h"

namespace ein {

struct CompileCtx;
struct Unit;

namespace recurrence {

struct Read {
  ir::NodeRef node;
  std::vector<ir::NodeRef> idx;
  std::vector<Known> known;  // branch conditions and guards around the read
  bool conditional = false;  // under an if/match branch, a guard, or the right of && / ||
};

struct Clause : LoopNest {  // loops in slot order
  ir::NodeRef nest;
  std::vector<Read> reads;
  std::vector<int> order;      // chosen loop order (indices into loops)
  std::vector<bool> seq;       // per loop (index into loops): carries a dependence
  int time_axis = -1;          // axis of the outermost chosen loop when recurrent
  std::unordered_map<ir::DefId, std::pair<ir::NodeRef, ir::NodeRef>> reduce_ranges;  // LoopVar -> [lo, hi)
  std::unordered_map<ir::DefId, std::vector<ir::NodeRef>> reduce_guards;  // LoopVar -> conjuncts of its guards
  std::vector<ir::NodeRef> dynamic;  // self-reads whose offset on the carrying loop is known only at run time
  bool recurrent() const { return !reads.empty(); }
};

// The axis of the clause's tensor that loop variable `v` writes, or -1.
inline int axis_of(const Clause& c, ir::DefId v) {
  for (size_t a = 0; a < c.write.size(); ++a)
    if (c.write[a]->kind == ir::Kind::Name && c.write[a]->def == v) return static_cast<int>(a);
  return -1;
}

// The read analysis of the tensor being ordered; RecurrenceOrder derives from it.
class ReadDeps {
 public:
  ReadDeps(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  // A clause of tensor `def` (its loop nest) with its self-reads; loops in slot order.
  Clause analyze(const ir::NodeRef& nest, ir::DefId def);
  static void collect_reads(Clause& c, ir::DefId def, const ir::NodeRef& n, std::vector<Known> known,
                            bool conditional = false);
  bool other_step(const Clause& c, const Read& r);
  std::vector<Comp> vector_of(const Clause& c, const Read& r);
  Comp bounded_read(const Clause& c, ir::DefId loop_var, const ir::NodeRef& idx);
  Comp constant_read(const ir::NodeRef& loop, int axis, const Read& r);
  bool same_literals(const Clause& c, const Read& r);
  int classify(const std::vector<Comp>& v, const std::vector<int>& order, int* carrier);
  bool reads_itself(const Clause& c, const Read& r, int carrier);
  // `reader` (the clause making the read) bounds subscripts written in its loop indices.
  bool hits_clause(const Read& r, const Clause& w, int time_axis, const Clause* reader = nullptr);
  std::optional<std::pair<int64_t, int64_t>> read_interval(const ir::NodeRef& ix, const Clause& reader);
  int hits(const Read& r, const Clause& w);
  ClauseBox box_of(const Clause& c);

  CompileCtx& cx_;
  Unit& u_;
  bool reverse_ = false;                // the tensor runs from high to low indices
  bool proven_only_ = false;            // classify: a run-time position proves no order
  std::vector<Clause>* all_ = nullptr;  // every clause of the tensor being ordered
};

}  // namespace recurrence
}  // namespace ein
