#include "lang/passes/box_cover.h"

#include "lang/passes/ir_build.h"

namespace ein::cover {

Lin constant(int64_t k) {
  Lin l;
  l.k = k;
  return l;
}

Lin symbol(const std::string& key, const ir::NodeRef& node) {
  Lin l;
  l.coef[key] = 1;
  l.node[key] = node;
  return l;
}

Lin add(const Lin& a, const Lin& b) {
  Lin r = a;
  r.exact = a.exact && b.exact;
  auto fit = [&](std::optional<int64_t> v) {
    if (!v) r.exact = false;
    return v.value_or(0);
  };
  r.k = fit(irb::add_exact(r.k, b.k));
  for (auto& [s, c] : b.coef) {
    int64_t& x = r.coef[s];
    x = fit(irb::add_exact(x, c));
    r.node[s] = b.node.at(s);
    if (x == 0) {
      r.coef.erase(s);
      r.node.erase(s);
    }
  }
  return r;
}

Lin scaled(const Lin& a, int64_t s) {
  if (s == 0) return constant(0);
  Lin r = a;
  auto fit = [&](std::optional<int64_t> v) {
    if (!v) r.exact = false;
    return v.value_or(0);
  };
  r.k = fit(irb::mul_exact(r.k, s));
  for (auto& [sym, c] : r.coef) c = fit(irb::mul_exact(c, s));
  return r;
}

std::optional<int64_t> diff(const Lin& a, const Lin& b) {
  Lin d = sub(b, a);
  if (!d.exact || !d.constant()) return std::nullopt;
  return d.k;
}

bool le(const Lin& a, const Lin& b) {
  auto d = diff(a, b);
  return d && *d >= 0;
}

bool lt(const Lin& a, const Lin& b) {
  auto d = diff(a, b);
  return d && *d > 0;
}

ir::NodeRef to_ir(const Lin& a) {
  ir::NodeRef r;
  for (auto& [s, c] : a.coef) {
    ir::NodeRef term = irb::mul(a.node.at(s), c < 0 ? -c : c);
    if (!r) r = c < 0 ? irb::neg(term) : term;
    else r = c < 0 ? irb::sub(r, term) : irb::add(r, term);
  }
  if (!r) return irb::lit(a.k);
  return irb::add(r, irb::lit(a.k));
}

namespace {

std::string spell_symbol(const ir::NodeRef& n) {
  if (n->kind == ir::Kind::Name) return n->name;
  if (n->kind == ir::Kind::DimOf && ir::dimof_tensor(n)->kind == ir::Kind::Name)
    return n->ival == 0 ? "len(" + ir::dimof_tensor(n)->name + ")"
                        : ir::dimof_tensor(n)->name + ".shape[" + std::to_string(n->ival) + "]";
  return "…";
}

}  // namespace

std::string spell(const Lin& a) {
  std::string out;
  for (auto& [s, c] : a.coef) {
    std::string name = spell_symbol(a.node.at(s));
    int64_t m = c < 0 ? -c : c;
    std::string term = m == 1 ? name : std::to_string(m) + " * " + name;
    if (out.empty()) out = c < 0 ? "-" + term : term;
    else out += (c < 0 ? " - " : " + ") + term;
  }
  if (out.empty()) return std::to_string(a.k);
  if (a.k > 0) out += " + " + std::to_string(a.k);
  if (a.k < 0) out += " - " + std::to_string(-a.k);
  return out;
}

namespace {

bool contains(const Box& c, const Box& b) {
  for (size_t a = 0; a < b.size() && a < c.size(); ++a) {
    if (!le(c[a].lo, b[a].lo)) return false;
    if (!c[a].hi) continue;
    if (!b[a].hi || !le(*b[a].hi, *c[a].hi)) return false;
  }
  return true;
}

bool provably_empty(const Box& b) {
  for (auto& iv : b)
    if (iv.hi && le(*iv.hi, iv.lo)) return true;
  return false;
}

bool definitely_outside_all(const Box& b, const std::vector<Box>& clauses) {
  for (auto& iv : b)
    if (!iv.hi || !lt(iv.lo, *iv.hi) || !le(constant(0), iv.lo)) return false;
  for (auto& c : clauses) {
    bool disjoint = false;
    for (size_t a = 0; a < b.size() && a < c.size() && !disjoint; ++a)
      disjoint = (c[a].hi && le(*c[a].hi, b[a].lo)) || le(*b[a].hi, c[a].lo);
    if (!disjoint) return false;
  }
  // Inside the allocation: below some clause's end on every axis.
  for (size_t a = 0; a < b.size(); ++a) {
    bool inside = false;
    for (auto& c : clauses)
      if (a < c.size() && c[a].hi && le(*b[a].hi, *c[a].hi)) inside = true;
    if (!inside) return false;
  }
  return true;
}

struct Splitter {
  const std::vector<Box>& clauses;
  std::vector<Leaf> out;

  void walk(const Box& b, bool widened, int depth) {
    if (provably_empty(b)) return;
    for (auto& c : clauses)
      if (contains(c, b)) return;
    if (depth > 48 || out.size() >= 64) {
      out.push_back(Leaf{b, false});
      return;
    }
    // Cut at a clause boundary strictly inside the box; failing that, at one provably above the
    // box's start whose place relative to its end is unknown (the lower part may then reach
    // past the end: proving more than needed is still a proof).
    for (int pass = 0; pass < 2; ++pass)
      for (auto& c : clauses)
        for (size_t a = 0; a < b.size() && a < c.size(); ++a)
          for (int side = 0; side < 2; ++side) {
            const std::optional<Lin>& s = side == 0 ? std::optional<Lin>(c[a].lo) : c[a].hi;
            if (!s || !lt(b[a].lo, *s)) continue;
            bool inside = !b[a].hi || lt(*s, *b[a].hi);
            bool beyond = b[a].hi && le(*b[a].hi, *s);
            if (beyond || (pass == 0 && !inside)) continue;
            Box lower = b, upper = b;
            lower[a].hi = *s;
            upper[a].lo = *s;
            bool w = widened || !inside;
            walk(lower, w, depth + 1);
            walk(upper, w, depth + 1);
            return;
          }
    out.push_back(Leaf{b, !widened && definitely_outside_all(b, clauses)});
  }
};

}  // namespace

std::vector<Leaf> uncovered(const Box& b, const std::vector<Box>& clauses) {
  Splitter s{clauses, {}};
  s.walk(b, false, 0);
  return s.out;
}

Box clip_to_allocation(Box b, const std::vector<Box>& clauses) {
  for (size_t a = 0; a < b.size(); ++a) {
    Interval& iv = b[a];
    if (!le(constant(0), iv.lo) && le(iv.lo, constant(0))) iv.lo = constant(0);
    // The allocation ends at the largest clause end, when one provably is the largest.
    std::optional<Lin> end;
    bool known = true;
    for (auto& c : clauses) {
      if (a >= c.size() || !c[a].hi) continue;
      if (!end || le(*end, *c[a].hi)) end = c[a].hi;
      else if (!le(*c[a].hi, *end)) known = false;
    }
    if (!end || !known) continue;
    if (!iv.hi || le(*end, *iv.hi)) iv.hi = end;
  }
  return b;
}

std::string spell_points(const std::string& tensor, const Box& b) {
  std::string out = tensor + "[";
  for (size_t a = 0; a < b.size(); ++a) {
    if (a) out += ", ";
    const Interval& iv = b[a];
    if (iv.hi && diff(iv.lo, *iv.hi) == 1) out += spell(iv.lo);
    else out += spell(iv.lo) + ".." + (iv.hi ? spell(*iv.hi) : "");
  }
  return out + "]";
}

}  // namespace ein::cover
