#include "lang/passes/int_fold.h"

#include <algorithm>

#include "lang/passes/context.h"
#include "lang/ir/kid_families.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using Shape = std::optional<StaticShape>;

Shape shape_of_type(const ir::TypeRef& t) {
  int r = ir::rank_of(t);
  if (t && t->k == ir::Type::K::Unknown) return std::nullopt;
  if (r < 0) return std::nullopt;
  if (t->k == ir::Type::K::List) return StaticShape{-1};
  return StaticShape(static_cast<size_t>(r), -1);
}

Shape known_def_shape(const CompileCtx& cx, const Unit& u, ir::DefId d) {
  if (auto it = u.def_shapes.find(d); it != u.def_shapes.end()) return it->second;
  for (const Unit* p = u.parent; p; p = p->parent)
    if (auto it = p->def_shapes.find(d); it != p->def_shapes.end()) return it->second;
  if (auto it = cx.global_shapes.find(d); it != cx.global_shapes.end()) return it->second;
  if (auto s = cx.env.shape_of(d)) return *s;
  return std::nullopt;
}

Shape known_shape(const CompileCtx& cx, const Unit& u, const NodeRef& e) {
  auto it = u.shapes.find(e->id);
  if (it != u.shapes.end()) return it->second;
  if (e->kind == Kind::Name) return known_def_shape(cx, u, e->def);
  return shape_of_type(u.type(e));
}

std::optional<int64_t> fold_int(const CompileCtx& cx, const Unit& u, const NodeRef& e) {
  if (!e) return std::nullopt;
  auto fold = [&](const NodeRef& x) { return fold_int(cx, u, x); };
  switch (e->kind) {
    case Kind::IntLit: return e->ival;
    case Kind::Unary:
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg)
        if (auto v = fold(ir::unary_operand(*e))) return irb::sub_exact(0, *v);
      return std::nullopt;
    case Kind::Binary: {
      auto a = fold(ir::bin_lhs(*e)), b = fold(ir::bin_rhs(*e));
      if (!a || !b) return std::nullopt;
      switch (static_cast<ir::BinOp>(e->ival)) {
        case ir::BinOp::Add: return irb::add_exact(*a, *b);
        case ir::BinOp::Sub: return irb::sub_exact(*a, *b);
        case ir::BinOp::Mul: return irb::mul_exact(*a, *b);
        case ir::BinOp::Div: if (*b != 0 && !(*b == -1 && *a == INT64_MIN)) return *a / *b; return std::nullopt;
        case ir::BinOp::Mod: if (*b != 0 && *b != -1) return *a % *b; return std::nullopt;
        default: return std::nullopt;
      }
    }
    case Kind::IMin: {
      auto a = fold(ir::imin_a(*e)), b = fold(ir::imin_b(*e));
      if (!a || !b) return std::nullopt;
      return std::min(*a, *b);
    }
    case Kind::IMax: {
      auto a = fold(ir::imax_a(*e)), b = fold(ir::imax_b(*e));
      if (!a || !b) return std::nullopt;
      return std::max(*a, *b);
    }
    case Kind::DimOf: {
      Shape s = known_def_shape(cx, u, ir::dimof_tensor(*e)->def);
      if (s && e->ival >= 0 && e->ival < static_cast<int64_t>(s->size()) && (*s)[e->ival] >= 0)
        return (*s)[e->ival];
      return std::nullopt;
    }
    case Kind::Name:
    case Kind::Path: {
      if (auto it = cx.const_ints.find(e->def); it != cx.const_ints.end()) return it->second;
      if (auto it = u.int_values.find(e->def); it != u.int_values.end()) return it->second;
      return cx.env.int_value(e->def);
    }
    case Kind::Call: {
      if (ir::call_args_count(*e) == 1 && ir::call_callee(*e)->def == builtin_def(Builtin::Len)) {
        Shape s = known_shape(cx, u, ir::call_args(*e)[0]);
        if (s && !s->empty() && (*s)[0] >= 0) return (*s)[0];
      }
      return std::nullopt;
    }
    case Kind::Cast: {
      // `as` wraps into narrower integers at run time; fold only what the cast keeps as is.
      auto v = fold(ir::cast_expr(*e));
      const std::string& to = ir::cast_type(*e)->name;
      if (!v || (to != "i64" && to != "i32" && to != "i8")) return std::nullopt;
      if (to == "i32" && (*v < INT32_MIN || *v > INT32_MAX)) return std::nullopt;
      if (to == "i8" && (*v < INT8_MIN || *v > INT8_MAX)) return std::nullopt;
      return v;
    }
    default: return std::nullopt;
  }
}

// [min, max] of an integer expression over every point of the index variables it mentions,
// each within its folded range (RangeFact::lo_const/hi_const). Interval arithmetic: a hull,
// so a single-point result is exact wherever the expression is evaluated.
std::optional<std::pair<int64_t, int64_t>> int_hull(const CompileCtx& cx, const Unit& u, const NodeRef& e) {
  using Hull = std::optional<std::pair<int64_t, int64_t>>;
  if (!e) return std::nullopt;
  if (auto v = fold_int(cx, u, e)) return std::pair{*v, *v};
  auto hull = [&](const NodeRef& x) { return int_hull(cx, u, x); };
  auto span4 = [](std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c,
                  std::optional<int64_t> d) -> Hull {
    if (!a || !b || !c || !d) return std::nullopt;
    return std::pair{std::min({*a, *b, *c, *d}), std::max({*a, *b, *c, *d})};
  };
  switch (e->kind) {
    case Kind::Name: {
      auto it = u.ranges.find(e->def);
      if (it == u.ranges.end() || !it->second.lo_const || !it->second.hi_const) return std::nullopt;
      if (*it->second.hi_const <= *it->second.lo_const) return std::nullopt;  // never runs
      return std::pair{*it->second.lo_const, *it->second.hi_const - 1};
    }
    case Kind::Unary: {
      if (static_cast<ir::UnOp>(e->ival) != ir::UnOp::Neg) return std::nullopt;
      auto a = hull(ir::unary_operand(*e));
      if (!a) return std::nullopt;
      auto lo = irb::sub_exact(0, a->second), hi = irb::sub_exact(0, a->first);
      if (!lo || !hi) return std::nullopt;
      return std::pair{*lo, *hi};
    }
    case Kind::Binary: {
      auto a = hull(ir::bin_lhs(*e)), b = hull(ir::bin_rhs(*e));
      if (!a || !b) return std::nullopt;
      switch (static_cast<ir::BinOp>(e->ival)) {
        case ir::BinOp::Add: {
          auto lo = irb::add_exact(a->first, b->first), hi = irb::add_exact(a->second, b->second);
          if (!lo || !hi) return std::nullopt;
          return std::pair{*lo, *hi};
        }
        case ir::BinOp::Sub: {
          auto lo = irb::sub_exact(a->first, b->second), hi = irb::sub_exact(a->second, b->first);
          if (!lo || !hi) return std::nullopt;
          return std::pair{*lo, *hi};
        }
        case ir::BinOp::Mul:
          return span4(irb::mul_exact(a->first, b->first), irb::mul_exact(a->first, b->second),
                       irb::mul_exact(a->second, b->first), irb::mul_exact(a->second, b->second));
        default: return std::nullopt;
      }
    }
    case Kind::IMin:
    case Kind::IMax: {
      auto a = hull(ir::iminmax_a(e)), b = hull(ir::iminmax_b(e));
      if (!a || !b) return std::nullopt;
      if (e->kind == Kind::IMin) return std::pair{std::min(a->first, b->first), std::min(a->second, b->second)};
      return std::pair{std::max(a->first, b->first), std::max(a->second, b->second)};
    }
    default: return std::nullopt;
  }
}

std::optional<LinearForm> linear_form(const CompileCtx& cx, const Unit& u, const NodeRef& e) {
  if (!e) return std::nullopt;
  if (auto c = fold_int(cx, u, e)) return LinearForm{{}, false, 0, *c};
  if (e->kind == Kind::Name) return LinearForm{e->def, true, 1, 0};
  if (e->kind != Kind::Binary) return std::nullopt;
  auto op = static_cast<ir::BinOp>(e->ival);
  auto a = linear_form(cx, u, ir::bin_lhs(*e)), b = linear_form(cx, u, ir::bin_rhs(*e));
  if (!a || !b || (a->has_v && b->has_v && (op == ir::BinOp::Mul || a->v != b->v))) return std::nullopt;
  if (op == ir::BinOp::Mul) {
    const LinearForm& x = a->has_v ? *a : *b;
    int64_t s = a->has_v ? b->c : a->c;
    auto k = irb::mul_exact(x.k, s), c = irb::mul_exact(x.c, s);
    if (!k || !c) return std::nullopt;
    return LinearForm{x.v, x.has_v, *k, *c};
  }
  if (op != ir::BinOp::Add && op != ir::BinOp::Sub) return std::nullopt;
  auto neg = [](std::optional<int64_t> x) { return x ? irb::sub_exact(0, *x) : x; };
  auto bk = op == ir::BinOp::Sub ? neg(b->k) : std::optional<int64_t>(b->k);
  auto bc = op == ir::BinOp::Sub ? neg(b->c) : std::optional<int64_t>(b->c);
  if (!bk || !bc) return std::nullopt;
  auto k = irb::add_exact(a->k, *bk), c = irb::add_exact(a->c, *bc);
  if (!k || !c) return std::nullopt;
  bool has = a->has_v || b->has_v;
  return LinearForm{a->has_v ? a->v : b->v, has && *k != 0, has && *k != 0 ? *k : 0, *c};
}

std::optional<int64_t> trip_bound(const CompileCtx& cx, const Unit& u, const NodeRef& lo, const NodeRef& hi) {
  // min(a, b) - lo <= a - lo and <= b - lo; hi - max(a, b) likewise: the least bound found.
  auto least = [](std::optional<int64_t> x, std::optional<int64_t> y) {
    return !x ? y : !y ? x : std::optional<int64_t>(std::min(*x, *y));
  };
  if (hi && hi->kind == Kind::IMin)
    return least(trip_bound(cx, u, lo, ir::iminmax_a(hi)), trip_bound(cx, u, lo, ir::iminmax_b(hi)));
  if (lo && lo->kind == Kind::IMax)
    return least(trip_bound(cx, u, ir::iminmax_a(lo), hi), trip_bound(cx, u, ir::iminmax_b(lo), hi));
  auto a = linear_form(cx, u, lo), b = linear_form(cx, u, hi);
  if (!a || !b || a->has_v != b->has_v || (a->has_v && (a->v != b->v || a->k != b->k))) return std::nullopt;
  auto d = irb::sub_exact(b->c, a->c);
  if (!d) return std::nullopt;
  return std::max<int64_t>(0, *d);
}

}  // namespace ein
