// Affine index expressions for range analysis (SPEC §5.2): sum(coef * var) + k + sum(m * sym),
// where a coefficient may be a loop-invariant expression (`oh * stride`), and the bounds an
// index gets from one use: the values that keep the use in bounds for every value of the other
// indices in it. Pure functions over IR; range_site.cpp (SiteSolver) parses and solves with them.
#pragma once
#include <optional>
#include <utility>
#include <vector>

#include "lang/ir/node.h"

namespace ein::ranges {

// c * s: s an invariant integer expression the analysis takes to be positive (a stride; the
// lowering checks it at run time), or null for the constant c.
struct Coef {
  int64_t c = 0;
  ir::NodeRef s;
};

struct Affine {
  std::vector<std::pair<ir::DefId, Coef>> vars;
  int64_t k = 0;
  std::vector<std::pair<ir::NodeRef, int64_t>> syms;  // m * node, node loop-invariant
  bool ok = true;

  const Coef* coef_of(ir::DefId d) const;
  void add_var(ir::DefId d, Coef c);
  void absorb(const Affine& o, int64_t m);  // this += m * o
  void scale(int64_t m);
  // Multiplies by an invariant expression (`(o + 1) * stride`); a product of two invariant
  // factors on one variable is not affine in the sense used here (ok = false).
  void scale_by(const ir::NodeRef& s);
  void drop(ir::DefId d);
  bool invariant() const { return vars.empty(); }
  bool constant() const { return vars.empty() && syms.empty(); }
  // The invariant part as integer IR.
  ir::NodeRef offset() const;

 private:
  int64_t exact(std::optional<int64_t> v);
};

// Bounds on one index `v` from one use: `lo <= v` and `v < hi` (either may be absent).
struct Bounds {
  ir::NodeRef lo, hi;
  std::vector<ir::NodeRef> positive;  // invariant factors assumed > 0 (to be checked)
};

// From the smallest (alpha_lo * v + beta_lo) and largest (alpha_hi * v + beta_hi) value of an
// index expression over the other indices, and the extent `dim` of the axis it indexes: the
// values of v with 0 <= smallest and largest <= dim - 1. Divisions round so that the range is
// exact whenever it is not empty (a start below 0 is raised to 0 by the caller, an end at or
// below 0 is empty). New integer nodes are appended to `made` (they need an i64 type).
// With `moving_only`, a side that does not move with v gives no bound (for a use reached
// through a nested index's explicit range, whose own ends are that range's business: E005).
Bounds solve(const Coef& alpha_lo, const ir::NodeRef& beta_lo, const Coef& alpha_hi,
             const ir::NodeRef& beta_hi, const ir::NodeRef& dim, std::vector<ir::NodeRef>& made,
             bool moving_only = false);

// The value of an integer expression as an i64 whatever the width of its parts (index
// variables are i32, extents i64); IMax(e, e) is evaluated as i64 in every tier.
ir::NodeRef wide(const ir::NodeRef& e);

}  // namespace ein::ranges
