#include "lang/passes/ir_build.h"

#include <limits>

#include "lang/ir/visitor.h"

namespace ein::irb {

using ir::Kind;
using ir::NodeRef;

std::optional<int64_t> add_exact(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> sub_exact(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> mul_exact(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Negative values are written `-(k)` for readable dumps; i64::MIN has no positive k, so it stays
// a negative IntLit (every evaluator reads ival as is).
NodeRef lit(int64_t v) {
  if (v < 0 && v != std::numeric_limits<int64_t>::min()) return ir::make_unary(ir::UnOp::Neg, ir::make_int(-v));
  return ir::make_int(v);
}

std::optional<int64_t> as_lit(const NodeRef& n) {
  if (!n) return std::nullopt;
  if (n->kind == Kind::IntLit) return n->ival;
  if (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg &&
      ir::unary_operand(n)->kind == Kind::IntLit)
    return sub_exact(0, ir::unary_operand(n)->ival);
  return std::nullopt;
}

// Folding happens only when the exact result fits i64; otherwise the node stays symbolic and
// the evaluators compute it exactly (E006/E008 at run time), never a wrapped constant.
NodeRef add(const NodeRef& a, const NodeRef& b) {
  auto x = as_lit(a), y = as_lit(b);
  if (x && y)
    if (auto r = add_exact(*x, *y)) return lit(*r);
  if (x && *x == 0) return b;
  if (y && *y == 0) return a;
  if (y && *y < 0 && *y != std::numeric_limits<int64_t>::min()) return ir::make_binary(ir::BinOp::Sub, a, lit(-*y));
  return ir::make_binary(ir::BinOp::Add, a, b);
}

NodeRef sub(const NodeRef& a, const NodeRef& b) {
  auto x = as_lit(a), y = as_lit(b);
  if (x && y)
    if (auto r = sub_exact(*x, *y)) return lit(*r);
  if (y && *y == 0) return a;
  if (y && *y < 0 && *y != std::numeric_limits<int64_t>::min()) return ir::make_binary(ir::BinOp::Add, a, lit(-*y));
  return ir::make_binary(ir::BinOp::Sub, a, b);
}

NodeRef mul(const NodeRef& a, int64_t k) {
  if (k == 1) return a;
  if (k == -1) return neg(a);
  if (auto x = as_lit(a))
    if (auto r = mul_exact(*x, k)) return lit(*r);
  return ir::make_binary(ir::BinOp::Mul, a, lit(k));
}

NodeRef neg(const NodeRef& a) {
  if (auto x = as_lit(a))
    if (auto r = sub_exact(0, *x)) return lit(*r);
  return ir::make_unary(ir::UnOp::Neg, a);
}

NodeRef imax(const NodeRef& a, const NodeRef& b) {
  auto x = as_lit(a), y = as_lit(b);
  if (x && y) return lit(std::max(*x, *y));
  if (!a) return b;
  if (!b) return a;
  if (ir::structurally_equal(a, b)) return a;
  return ir::make({.kind = Kind::IMax, .kids = {a, b}});
}

NodeRef imin(const NodeRef& a, const NodeRef& b) {
  auto x = as_lit(a), y = as_lit(b);
  if (x && y) return lit(std::min(*x, *y));
  if (!a) return b;
  if (!b) return a;
  if (ir::structurally_equal(a, b)) return a;
  return ir::make({.kind = Kind::IMin, .kids = {a, b}});
}

NodeRef dim_of(const NodeRef& name_node, int axis) {
  NodeRef r = ref(name_node->name, name_node->def, name_node->span);
  return ir::make({.kind = Kind::DimOf, .span = name_node->span, .kids = {r}, .ival = axis});
}

NodeRef ref(const std::string& name, ir::DefId def, Span span) {
  return ir::make_name(name, def, span);
}

NodeRef check(const std::string& code, const std::string& message, const std::string& help, const NodeRef& cond,
              Span span) {
  std::vector<NodeRef> kids{cond};
  if (!help.empty()) kids.push_back(ir::make({.kind = Kind::StrLit, .span = span, .name = help}));
  return ir::make({.kind = Kind::LCheck, .span = span, .kids = std::move(kids), .name = code, .aux = message});
}

NodeRef wide(const NodeRef& e) {
  if (as_lit(e) || e->kind == Kind::IMin || e->kind == Kind::IMax || e->kind == Kind::DimOf) return e;
  return ir::make({.kind = Kind::IMax, .span = e->span, .kids = {e, e}});
}

NodeRef replace_by_id(const NodeRef& root, const std::unordered_map<uint32_t, NodeRef>& with) {
  struct Rep : ir::Mutator {
    const std::unordered_map<uint32_t, NodeRef>& with;
    explicit Rep(const std::unordered_map<uint32_t, NodeRef>& w) : with(w) {}
    NodeRef pre(const NodeRef& x) override {
      auto it = with.find(x->id);
      return it == with.end() ? nullptr : it->second;
    }
  } r(with);
  return r.mutate(root);
}

}  // namespace ein::irb
