#include "engine/codegen/static_facts.h"

#include <algorithm>

#include "lang/passes/int_fold.h"

namespace ein::codegen {

// One folder for the compiler and the native tier (lang/passes/int_fold.h): planning sees every
// value shape analysis saw.
std::optional<std::vector<int64_t>> static_shape(const CompileCtx& cx, const Unit& u, ir::DefId d) {
  return known_def_shape(cx, u, d);
}

std::optional<int64_t> static_int(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e) {
  return fold_int(cx, u, e);
}

std::optional<double> static_trip(const CompileCtx& cx, const Unit& u, const ir::NodeRef& lo, const ir::NodeRef& hi) {
  auto a = static_int(cx, u, lo), b = static_int(cx, u, hi);
  if (!a || !b) return std::nullopt;
  const __int128 n = static_cast<__int128>(*b) - *a;
  return n > 0 ? static_cast<double>(n) : 0.0;
}

std::optional<double> static_points(const CompileCtx& cx, const Unit& u, const ir::NodeRef& n,
                                    std::optional<double> unknown_trip,
                                    const std::function<bool(const ir::NodeRef&)>& skip) {
  using ir::Kind;
  bool known = true;
  auto trip = [&](const ir::NodeRef& lo, const ir::NodeRef& hi) {
    if (auto t = static_trip(cx, u, lo, hi)) return *t;
    if (!unknown_trip) known = false;
    return unknown_trip.value_or(1.0);
  };
  std::function<double(const ir::NodeRef&)> walk = [&](const ir::NodeRef& x) -> double {
    if (!x || (skip && skip(x))) return 1;
    double inner = 1;
    for (auto& kid : x->kids) inner = std::max(inner, walk(kid));
    if (x->kind == Kind::LFor) return trip(ir::lfor_lo(*x), ir::lfor_hi(*x)) * walk(ir::lfor_body(*x));
    if (x->kind == Kind::LReduce) {
      double w = walk(ir::lreduce_body(*x));
      for (auto& item : ir::lreduce_items(*x))
        if (item->kind == Kind::LoopVar) w *= trip(ir::loopvar_lo(*item), ir::loopvar_hi(*item));
      return std::max(inner, w);
    }
    return inner;
  };
  double w = walk(n);
  if (!known) return std::nullopt;
  return w;
}

}  // namespace ein::codegen
