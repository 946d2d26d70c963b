// Loops over an empty domain cost nothing: `let h[i in 0..10^5, j in 0..10^5, k in 0..0] = 1.0`
// must not walk 10^10 (i, j) pairs to find that k has no values. Before a nest of loops (a
// clause's LFor chain, a reduction's variables, a comprehension's generators) runs, the bounds
// of the inner loops that do not depend on the outer ones are evaluated once; one empty range
// means the whole nest has no points. Only side-effect-free bound expressions are probed, and a
// probe that faults proves nothing (the normal path reports the fault where it belongs).
#include <algorithm>

#include "engine/interp/interp_impl.h"
#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

// Arithmetic of literals, names and extents that mentions none of `outer`.
bool probe_safe(const NodeRef& e, const std::vector<ir::DefId>& outer) {
  if (!e) return false;
  switch (e->kind) {
    case Kind::IntLit: return true;
    case Kind::Name: return std::find(outer.begin(), outer.end(), e->def) == outer.end();
    case Kind::DimOf: return probe_safe(ir::dimof_tensor(e), outer);
    case Kind::Binary: {
      auto op = static_cast<ir::BinOp>(e->ival);
      if (op != ir::BinOp::Add && op != ir::BinOp::Sub && op != ir::BinOp::Mul) return false;
      return probe_safe(ir::bin_lhs(e), outer) && probe_safe(ir::bin_rhs(e), outer);
    }
    case Kind::Unary:
      return static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg && probe_safe(ir::unary_operand(e), outer);
    case Kind::IMin:
    case Kind::IMax: return probe_safe(ir::iminmax_a(e), outer) && probe_safe(ir::iminmax_b(e), outer);
    default: return false;
  }
}

}  // namespace

// A loop over [lo, hi) (or [lo, hi]) that runs zero times, judged before the loops run: only
// when neither bound uses a variable of an enclosing loop (`outer`).
static bool span_empty(Interpreter::Impl& in, const NodeRef& lo, const NodeRef& hi,
                       const std::vector<ir::DefId>& outer, bool inclusive) {
  return probe_safe(lo, outer) && probe_safe(hi, outer) && in.probe_empty(lo, hi, inclusive);
}

bool Interpreter::Impl::probe_empty(const NodeRef& lo, const NodeRef& hi, bool inclusive) {
  try {
    Wide a = eval_wide(lo), b = eval_wide(hi);
    return inclusive ? b < a : b <= a;
  } catch (const Fault&) {
    return false;
  }
}


bool Interpreter::Impl::nest_empty(const NodeRef& f) {
  std::vector<ir::DefId> outer;
  for (NodeRef cur = f; cur && cur->kind == Kind::LFor; cur = ir::lfor_body(cur)) {
    if (cur != f && span_empty(*this, ir::lfor_lo(cur), ir::lfor_hi(cur), outer, false)) return true;
    outer.push_back(cur->def);
  }
  return false;
}

bool Interpreter::Impl::reduce_empty(const NodeRef& r) {
  std::vector<ir::DefId> outer;
  for (const NodeRef& k : ir::lreduce_items(r)) {
    if (k->kind != Kind::LoopVar) continue;
    if (span_empty(*this, ir::loopvar_lo(k), ir::loopvar_hi(k), outer, false)) return true;
    outer.push_back(k->def);
  }
  return false;
}

bool Interpreter::Impl::comp_empty(const NodeRef& c) {
  std::vector<ir::DefId> outer;
  for (const NodeRef& cl : ir::comp_clauses(c)) {
    if (cl->kind == Kind::CompGuard) continue;
    if (cl->kind == Kind::CompGen && ir::compgen_iter(cl)->kind == Kind::RangeLit) {
      const NodeRef& r = ir::compgen_iter(cl);
      if (span_empty(*this, ir::range_lo(r), ir::range_hi(r), outer, r->has(ir::kInclusive))) return true;
    }
    outer.push_back(cl->def);
  }
  return false;
}

bool Interpreter::Impl::has_empty_reduction(const NodeRef& e) {
  bool empty = false;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if (!empty && n->kind == Kind::LReduce) empty = reduce_empty(n);
  });
  return empty;
}

}  // namespace ein
