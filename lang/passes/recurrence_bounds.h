// What recurrence_order knows about one index of a read: its offset from a loop variable, and
// the bounds that guards and branch conditions around the read put on loop or reduction
// variables. Enters: lowered index and condition expressions; leaves: offsets and bounds.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "lang/ir/node.h"

namespace ein {

struct Comp {
  enum K { Exact, Unknown } k = Unknown;
  int64_t d = 0;
};

// Folds an integer expression known at compile time, or nullopt.
using Fold = std::function<std::optional<int64_t>(const ir::NodeRef&)>;

// Read index relative to the loop variable `v`: v + d, or unknown. The index is `v`, or
// `x + e`, `x - e`, `e + x` (nested) with x relative to v and e a constant: an integer literal,
// or with `fold` anything it folds (`a[j + H]` with `let H = len(w)`, `c[j - (0 - H)]`).
Comp relative(const ir::NodeRef& r, ir::DefId v, const Fold& fold = {});


// The conjuncts of `c` (`a && b && c`).
void split_and(const ir::NodeRef& c, std::vector<ir::NodeRef>& out);

// A guard comparing `v + a` with `k + b`: a bound on k - v, as (is_lower, value); a guard of
// another form gives (true, 0), which proves nothing.
std::pair<bool, int64_t> guard_bound(const ir::NodeRef& cond, ir::DefId v, ir::DefId k);

// A condition known at a read: `cond` holds there (`holds`), or is known false (the read is in
// the else branch).
struct Known {
  ir::NodeRef cond;
  bool holds = true;
};

// Bounds on `v` (v >= lo, v <= hi) implied by comparisons of `v + a` with constants among the
// known conditions; `fold` gives a constant's value.
struct Bounds {
  std::optional<int64_t> lo, hi;
};
Bounds bounds_of(ir::DefId v, const std::vector<Known>& known,
                 const Fold& fold);

}  // namespace ein
