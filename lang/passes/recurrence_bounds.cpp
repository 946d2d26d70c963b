#include "lang/passes/recurrence_bounds.h"

#include <algorithm>

#include "lang/passes/ir_build.h"

namespace ein {

using ir::BinOp;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

Comp relative(const NodeRef& r, DefId v, const Fold& fold) {
  if (r->kind == Kind::Name && r->def == v) return Comp{Comp::Exact, 0};
  if (r->kind != Kind::Binary) return Comp{};
  auto op = static_cast<BinOp>(r->ival);
  if (op != BinOp::Add && op != BinOp::Sub) return Comp{};
  auto constant = [&](const NodeRef& e) {
    auto k = irb::as_lit(e);
    if (!k && fold) k = fold(e);
    return k;
  };
  const NodeRef &a = ir::bin_lhs(*r), &b = ir::bin_rhs(*r);
  if (Comp ca = relative(a, v, fold); ca.k == Comp::Exact)
    if (auto k = constant(b)) return Comp{Comp::Exact, op == BinOp::Add ? ca.d + *k : ca.d - *k};
  if (op == BinOp::Add)
    if (Comp cb = relative(b, v, fold); cb.k == Comp::Exact)
      if (auto k = constant(a)) return Comp{Comp::Exact, cb.d + *k};
  return Comp{};
}


void split_and(const NodeRef& c, std::vector<NodeRef>& out) {
  if (c->kind == Kind::Binary && static_cast<BinOp>(c->ival) == BinOp::And) {
    split_and(ir::bin_lhs(*c), out);
    split_and(ir::bin_rhs(*c), out);
  } else {
    out.push_back(c);
  }
}

namespace {

bool is_order(BinOp op) { return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge; }

// `a OP b` as `b OP' a`.
BinOp mirror(BinOp op) {
  switch (op) {
    case BinOp::Lt: return BinOp::Gt;
    case BinOp::Le: return BinOp::Ge;
    case BinOp::Gt: return BinOp::Lt;
    case BinOp::Ge: return BinOp::Le;
    default: return op;
  }
}

// not (a OP b) as a OP' b.
BinOp negate(BinOp op) {
  switch (op) {
    case BinOp::Lt: return BinOp::Ge;
    case BinOp::Le: return BinOp::Gt;
    case BinOp::Gt: return BinOp::Le;
    case BinOp::Ge: return BinOp::Lt;
    case BinOp::Eq: return BinOp::Ne;
    default: return BinOp::Eq;  // Ne
  }
}

}  // namespace

std::pair<bool, int64_t> guard_bound(const NodeRef& cond, DefId v, DefId k) {
  if (cond->kind != Kind::Binary) return {true, 0};
  auto op = static_cast<BinOp>(cond->ival);
  if (!is_order(op)) return {true, 0};
  Comp lv = relative(ir::bin_lhs(*cond), v), lk = relative(ir::bin_lhs(*cond), k);
  Comp rv = relative(ir::bin_rhs(*cond), v), rk = relative(ir::bin_rhs(*cond), k);
  if (lk.k == Comp::Exact && rv.k == Comp::Exact) {  // k + a OP v + b: mirror it
    std::swap(lv, rv);
    std::swap(lk, rk);
    op = mirror(op);
  }
  if (lv.k != Comp::Exact || rk.k != Comp::Exact) return {true, 0};
  int64_t diff = lv.d - rk.d;  // v + a OP k + b  <=>  k - v  OP'  a - b
  switch (op) {
    case BinOp::Lt: return {true, diff + 1};   // k - v >= a - b + 1
    case BinOp::Le: return {true, diff};       // k - v >= a - b
    case BinOp::Gt: return {false, diff - 1};  // k - v <= a - b - 1
    default: return {false, diff};             // k - v <= a - b
  }
}

Bounds bounds_of(DefId v, const std::vector<Known>& known,
                 const Fold& fold) {
  Bounds b;
  auto tighten = [&](bool lower, int64_t x) {
    if (lower) b.lo = b.lo ? std::max(*b.lo, x) : x;
    else b.hi = b.hi ? std::min(*b.hi, x) : x;
  };
  std::function<void(const NodeRef&, bool)> add = [&](const NodeRef& c, bool holds) {
    if (c->kind == Kind::Unary && static_cast<ir::UnOp>(c->ival) == ir::UnOp::Not) {
      add(ir::unary_operand(*c), !holds);
      return;
    }
    if (c->kind != Kind::Binary) return;
    auto op = static_cast<BinOp>(c->ival);
    // Both halves of a conjunction that holds, or of a disjunction that fails (De Morgan).
    if ((op == BinOp::And && holds) || (op == BinOp::Or && !holds)) {
      add(ir::bin_lhs(*c), holds);
      add(ir::bin_rhs(*c), holds);
      return;
    }
    if (!is_order(op) && op != BinOp::Eq && op != BinOp::Ne) return;
    Comp l = relative(ir::bin_lhs(*c), v);
    std::optional<int64_t> k = l.k == Comp::Exact ? fold(ir::bin_rhs(*c)) : std::nullopt;
    if (!k) {  // constant OP v + a: mirror it
      l = relative(ir::bin_rhs(*c), v);
      k = l.k == Comp::Exact ? fold(ir::bin_lhs(*c)) : std::nullopt;
      op = mirror(op);
    }
    if (!k) return;
    if (!holds) op = negate(op);
    int64_t x = *k - l.d;  // v OP x
    switch (op) {
      case BinOp::Lt: tighten(false, x - 1); break;
      case BinOp::Le: tighten(false, x); break;
      case BinOp::Gt: tighten(true, x + 1); break;
      case BinOp::Ge: tighten(true, x); break;
      case BinOp::Eq: tighten(true, x), tighten(false, x); break;
      default: break;
    }
  };
  for (auto& k : known) add(k.cond, k.holds);
  return b;
}

}  // namespace ein
