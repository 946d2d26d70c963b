// Internal to the reverse sweep (ad_reverse.cpp, ad_contribution.cpp, ad_stored.cpp). The
// Sweeper turns one read of a binding b in a consumer clause into b's adjoint contribution: the
// clause's local partial times the clause's adjoint, solved for b's point (ad_contribution.cpp).
// Where the partial would recompute something the primal already has (the clause's own result,
// a summing argument of an activation), it reads a stored value instead (ad_stored.cpp), so a
// layer's gradient stays as cheap as its primal.
#pragma once
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/passes/ad_reverse.h"

namespace ein::ad {

// One read of the differentiated binding b in a consumer clause.
struct Occurrence {
  NodeRef node;  // Index (tensor b) or Name (scalar b)
};

class Sweeper {
 public:
  Sweeper(CompileCtx& cx, Facts& facts) : cx_(cx), facts_(facts) {}

  // b̄'s term from one read `occ` of b in clause `cl` of c (c̄ · ∂value/∂read, summed over the
  // point's other indices); *self when c is b itself (a recurrence). nullptr: no term.
  NodeRef contribution(const Adjoint& bar_b, const Entry& c, const Adjoint& bar_c, const Clause& cl,
                       const Occurrence& occ, int b_rank, bool* self);

  DefId bar_b_primal_;
  std::vector<NodeRef>
      pre_stmts;  // the intermediates stored_arg declared, to emit before the adjoints

 private:
  // runtime_coefs: solve reads whose coefficient is known only at run time, recording in
  // `invalid` the conditions under which that solution does not hold.
  NodeRef contribution(const Adjoint& bar_b, const Entry& c, const Adjoint& bar_c, const Clause& cl,
                       const Occurrence& occ, int b_rank, bool* self, bool runtime_coefs,
                       std::vector<NodeRef>* invalid);
  // ad_stored.cpp
  NodeRef stored_value(const Entry& c, const Clause& cl) const;
  bool nested_arg(const Clause& cl, const NodeRef& arg);
  NodeRef stored_arg(const Entry& c, const Clause& cl, const NodeRef& arg);
  bool recurrence_budget(const Entry& c, const Clause& cl, DType dt);
  bool reads_itself(const Entry& c, const Clause& cl);
  bool stored_slots(const Clause& cl) const;
  NodeRef stored_before(const Clause& cl, const NodeRef& e) const;
  NodeRef store(const Entry& c, const Clause& cl, const NodeRef& e);
  NodeRef with_args(const Clause& cl, const NodeRef& e) const;
  NodeRef stored_factors(const Entry& c, const Clause& cl, const Occurrence& occ, const NodeRef& partial);
  // The partial with the primal values of stored arguments (a gate `sigmoid(..)` the product
  // rule leaves beside the other factor's tangent) read from their intermediates.
  NodeRef reuse_args(const Entry& c, const Clause& cl, const NodeRef& partial);
  // Is [lo, hi) exactly 0..dim(base, axis)?
  bool covers_axis(const NodeRef& lo, const NodeRef& hi, const NodeRef& base, int axis);

  std::unordered_map<const ir::Node*, NodeRef> pre_reads_;
  std::vector<std::tuple<const ir::Node*, NodeRef, NodeRef>> pre_args_;  // clause value, argument, read
  std::unordered_set<DefId> budgeted_;  // recurrences whose arguments are stored (recurrence_budget)
  double stored_bytes_ = 0;
  CompileCtx& cx_;
  Facts& facts_;
};

}  // namespace ein::ad
