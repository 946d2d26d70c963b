// Symbolic boxes of integer points, for the coverage check of recurrences (recurrence_cover):
// does the set of points a self-read can touch lie inside the union of the clauses' domains?
// Bounds are affine forms over opaque symbols (`n`, `len(x)`), so `[0, n - 1)` is provably
// inside `[0, 1) ∪ [1, n)` without knowing n. Everything here is pure and unit-tested.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "lang/ir/node.h"

namespace ein::cover {

// k + sum(coef[s] * s) over opaque symbols, keyed by a canonical spelling.
struct Lin {
  std::map<std::string, int64_t> coef;
  std::map<std::string, ir::NodeRef> node;  // symbol key -> its IR (for rebuilding)
  int64_t k = 0;
  bool exact = true;  // false once a coefficient or constant left i64: the form is unusable
  bool constant() const { return coef.empty(); }
};
Lin constant(int64_t k);
Lin symbol(const std::string& key, const ir::NodeRef& node);
Lin add(const Lin& a, const Lin& b);
Lin scaled(const Lin& a, int64_t s);
inline Lin sub(const Lin& a, const Lin& b) { return add(a, scaled(b, -1)); }
// b - a when it is a constant (the symbols cancel), else nothing.
std::optional<int64_t> diff(const Lin& a, const Lin& b);
// Provable order: a <= b, a < b.
bool le(const Lin& a, const Lin& b);
bool lt(const Lin& a, const Lin& b);
// Back to integer IR (literals, +, -, * by constants).
ir::NodeRef to_ir(const Lin& a);
// Readable spelling for messages: "n - 1", "3"; `name_of` spells a symbol.
std::string spell(const Lin& a);

// [lo, hi); without hi the interval is unbounded above.
struct Interval {
  Lin lo;
  std::optional<Lin> hi;
};
using Box = std::vector<Interval>;

struct Leaf {
  Box box;
  // The leaf is certainly non-empty and certainly disjoint from every clause: its points are
  // read and defined by nobody. Otherwise the leaf is only not proven covered.
  bool definite = false;
};

// Splits `b` along the clauses' boundaries and returns the parts that no clause provably
// contains. Empty result: `b` is covered. `clauses` must be bounded on every axis. A leaf is
// marked definite only if it was never widened by a split whose position is unknown.
std::vector<Leaf> uncovered(const Box& b, const std::vector<Box>& clauses);

// Narrows `b` to the allocation [0, max clause end) on each axis where that is provable;
// where it is not, the axis is left wider (which only makes a proof harder, never wrong).
Box clip_to_allocation(Box b, const std::vector<Box>& clauses);

// "x[0]", "x[2..5, 0]".
std::string spell_points(const std::string& tensor, const Box& b);

}  // namespace ein::cover
