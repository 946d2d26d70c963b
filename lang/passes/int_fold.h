// What is known about integer expressions and extents before the cell runs, in one place. Shape
// analysis folds with it while it fills the tables; later passes (recurrence_order, autodiff)
// and the native tier's planning (engine/codegen/static_facts) ask the same questions and get
// the same answers.
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "lang/ir/node.h"
#include "lang/ir/type.h"

namespace ein {
struct CompileCtx;
struct Unit;

// Static extents of a binding seen from unit `u` (-1: unknown extent): its own table, the units
// it was created in (closures), this cell's globals, then earlier cells' values. nullopt when
// not even the rank is known.
std::optional<std::vector<int64_t>> known_def_shape(const CompileCtx& cx, const Unit& u, ir::DefId d);
// As many unknown extents as type `t` has axes (a list: one); nullopt for an unknown rank.
std::optional<std::vector<int64_t>> shape_of_type(const ir::TypeRef& t);
// Static extents of an expression: the shape recorded for it, its binding's, else as many
// unknown extents as its type has axes.
std::optional<std::vector<int64_t>> known_shape(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e);

// The value of an integer IR expression when it is known before the run: literals, constants,
// integer bindings (this cell's and earlier cells'), static extents (`DimOf`, `len`), exact
// + - * / %, min/max, and casts that keep the value. Exact or not at all: a result past i64
// stays unknown, for the run-time E006/E008.
std::optional<int64_t> fold_int(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e);

// The least and greatest value of an integer IR expression over the points of the index
// variables it mentions (each in its folded range), when fold_int's rules and interval
// arithmetic (+ - * unary -, min/max) bound it; nullopt otherwise or when a range is empty.
// A bound of a dependent range whose hull is one value (`max(0, -t)` for t in 0..n) is that
// value at every point the range is used.
std::optional<std::pair<int64_t, int64_t>> int_hull(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e);

// `k * v + c` over at most one variable `v` (a name fold_int does not know), exact or nullopt.
struct LinearForm {
  ir::DefId v{};
  bool has_v = false;
  int64_t k = 0, c = 0;
};
std::optional<LinearForm> linear_form(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e);

// The most points the loop lo..hi can have when its bounds move with an outer variable by the
// same amount: a segment `max(c1, s k + o1)..min(c2, s k + o2)` has at most o2 - o1, whatever s.
// nullopt when no such bound is known.
std::optional<int64_t> trip_bound(const CompileCtx& cx, const Unit& u, const ir::NodeRef& lo, const ir::NodeRef& hi);

}  // namespace ein
