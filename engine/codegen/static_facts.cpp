#include "engine/codegen/static_facts.h"

#include "lang/passes/ir_build.h"

namespace ein::codegen {

using ir::Kind;

std::optional<std::vector<int64_t>> static_shape(const CompileCtx& cx, const Unit& u, ir::DefId d) {
  if (auto it = u.def_shapes.find(d); it != u.def_shapes.end()) return it->second;
  if (auto it = cx.global_shapes.find(d); it != cx.global_shapes.end()) return it->second;
  if (auto s = cx.env.shape_of(d)) return *s;
  return std::nullopt;
}

std::optional<int64_t> static_int(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e) {
  if (!e) return std::nullopt;
  switch (e->kind) {
    case Kind::IntLit: return e->ival;
    case Kind::Name: {
      if (auto it = cx.const_ints.find(e->def); it != cx.const_ints.end()) return it->second;
      if (auto it = u.int_values.find(e->def); it != u.int_values.end()) return it->second;
      return cx.env.int_value(e->def);
    }
    case Kind::Binary: {
      auto a = static_int(cx, u, e->kids[0]), b = static_int(cx, u, e->kids[1]);
      if (!a || !b) return std::nullopt;
      switch (static_cast<ir::BinOp>(e->ival)) {
        case ir::BinOp::Add: return irb::add_exact(*a, *b);
        case ir::BinOp::Sub: return irb::sub_exact(*a, *b);
        case ir::BinOp::Mul: return irb::mul_exact(*a, *b);
        default: return std::nullopt;
      }
    }
    case Kind::Unary: {
      auto a = static_int(cx, u, e->kids[0]);
      if (a && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) return irb::sub_exact(0, *a);
      return std::nullopt;
    }
    case Kind::IMin:
    case Kind::IMax: {
      auto a = static_int(cx, u, e->kids[0]), b = static_int(cx, u, e->kids[1]);
      if (!a || !b) {
        // max(0, x) with x unknown stays unknown; min(a, ?) too.
        return std::nullopt;
      }
      return e->kind == Kind::IMin ? std::min(*a, *b) : std::max(*a, *b);
    }
    case Kind::DimOf: {
      if (e->kids[0]->kind != Kind::Name) return std::nullopt;
      auto s = static_shape(cx, u, e->kids[0]->def);
      size_t axis = static_cast<size_t>(e->ival);
      if (!s || axis >= s->size() || (*s)[axis] < 0) return std::nullopt;
      return (*s)[axis];
    }
    default: return std::nullopt;
  }
}

std::optional<double> static_trip(const CompileCtx& cx, const Unit& u, const ir::NodeRef& lo, const ir::NodeRef& hi) {
  auto a = static_int(cx, u, lo), b = static_int(cx, u, hi);
  if (!a || !b) return std::nullopt;
  const __int128 n = static_cast<__int128>(*b) - *a;
  return n > 0 ? static_cast<double>(n) : 0.0;
}

}  // namespace ein::codegen
