#include "lang/passes/ir_build.h"

namespace ein::irb {

using ir::Kind;
using ir::NodeRef;

NodeRef lit(int64_t v) {
  if (v < 0) return ir::make_unary(ir::UnOp::Neg, ir::make_int(-v));
  return ir::make_int(v);
}

std::optional<int64_t> as_lit(const NodeRef& n) {
  if (!n) return std::nullopt;
  if (n->kind == Kind::IntLit) return n->ival;
  if (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg &&
      n->kids[0]->kind == Kind::IntLit)
    return -n->kids[0]->ival;
  return std::nullopt;
}

NodeRef add(const NodeRef& a, const NodeRef& b) {
  auto x = as_lit(a), y = as_lit(b);
  if (x && y) return lit(*x + *y);
  if (x && *x == 0) return b;
  if (y && *y == 0) return a;
  if (y && *y < 0) return ir::make_binary(ir::BinOp::Sub, a, lit(-*y));
  return ir::make_binary(ir::BinOp::Add, a, b);
}

NodeRef sub(const NodeRef& a, const NodeRef& b) {
  auto x = as_lit(a), y = as_lit(b);
  if (x && y) return lit(*x - *y);
  if (y && *y == 0) return a;
  if (y && *y < 0) return ir::make_binary(ir::BinOp::Add, a, lit(-*y));
  return ir::make_binary(ir::BinOp::Sub, a, b);
}

NodeRef mul(const NodeRef& a, int64_t k) {
  if (k == 1) return a;
  if (k == -1) return neg(a);
  if (auto x = as_lit(a)) return lit(*x * k);
  return ir::make_binary(ir::BinOp::Mul, a, lit(k));
}

NodeRef neg(const NodeRef& a) {
  if (auto x = as_lit(a)) return lit(-*x);
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

}  // namespace ein::irb
