#include "lang/passes/check_match.h"

#include <algorithm>
#include <optional>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

using Row = std::vector<NodeRef>;      // one pattern per scrutinee component
using Missing = std::vector<std::string>;  // one description per component

bool irrefutable(const NodeRef& p) {
  if (p->kind == Kind::PWild || p->kind == Kind::PBind) return true;
  if (p->kind == Kind::PAt) return irrefutable(ir::pat_inner(*p));
  if (p->kind == Kind::POr) {
    for (auto& k : p->kids)
      if (irrefutable(k)) return true;
  }
  if (p->kind == Kind::PTuple) {
    for (auto& k : p->kids)
      if (!irrefutable(k)) return false;
    return true;
  }
  // `[..]` / `[..rest]` match every array.
  if (p->kind == Kind::PArray) return ir::parray_elems_count(p) == 1 && ir::parray_elems(p)[0]->kind == Kind::PRest;
  return false;
}

// `n @ p` tests what `p` tests.
const NodeRef& strip_at(const NodeRef& p) { return p->kind == Kind::PAt ? strip_at(ir::pat_inner(*p)) : p; }

// Expands or-patterns in the first column so each row starts with a non-or pattern.
std::vector<Row> expand_or(const std::vector<Row>& rows) {
  std::vector<Row> out;
  for (auto& r : rows) {
    const NodeRef& first = r.empty() ? nullptr : strip_at(r[0]);
    if (first && first->kind == Kind::POr) {
      for (auto& alt : first->kids) {
        Row nr = r;
        nr[0] = alt;
        for (auto& x : expand_or({nr})) out.push_back(x);
      }
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Row wildcards(size_t n) {
  Row r;
  for (size_t i = 0; i < n; ++i) r.push_back(ir::make({.kind = Kind::PWild}));
  return r;
}

std::string join(const Missing& m, size_t from, size_t to) {
  std::string s;
  for (size_t i = from; i < to; ++i) s += (i > from ? ", " : "") + m[i];
  return s;
}

// nullopt if the rows cover every value of `types`, else a missing value per component.
std::optional<Missing> missing(const std::vector<Row>& rows0, const std::vector<TypeRef>& types);

std::optional<Missing> prepend(const std::string& first, std::optional<Missing> rest) {
  if (!rest) return std::nullopt;
  rest->insert(rest->begin(), first);
  return rest;
}

// An array column: every length is a case (SPEC §4: a pattern without `..` matches only its
// length). Lengths up to one past the longest fixed part are enough: beyond it only `..`
// patterns match, all in the same way.
std::optional<Missing> missing_array(const std::vector<Row>& rows, const TypeRef& t,
                                     const std::vector<TypeRef>& rest) {
  TypeRef elem = t->k == Type::K::List ? t->elem
                 : t->rank == 1        ? t->elem
                 : t->rank > 1         ? ir::t_array(t->elem, t->rank - 1)
                                       : ir::t_unknown();
  size_t longest = 0;
  for (auto& r : rows) {
    const NodeRef& p = strip_at(r[0]);
    if (p->kind == Kind::PArray) longest = std::max(longest, p->kids.size());
  }
  for (size_t n = 0; n <= longest + 1; ++n) {
    std::vector<Row> sub;
    for (auto& r : rows) {
      const NodeRef& p = strip_at(r[0]);
      Row nr;
      if (p->kind == Kind::PArray) {
        const ir::Kids elems = ir::parray_elems(p);
        auto restp = std::find_if(elems.begin(), elems.end(),
                                  [](const NodeRef& k) { return k->kind == Kind::PRest; });
        bool has_rest = restp != elems.end();
        size_t fixed = elems.size() - (has_rest ? 1 : 0);
        if (has_rest ? fixed > n : fixed != n) continue;
        nr.insert(nr.end(), elems.begin(), restp);
        Row middle = wildcards(n - fixed);
        nr.insert(nr.end(), middle.begin(), middle.end());
        nr.insert(nr.end(), has_rest ? restp + 1 : restp, elems.end());
      } else if (irrefutable(p)) {
        nr = wildcards(n);
      } else {
        continue;
      }
      nr.insert(nr.end(), r.begin() + 1, r.end());
      sub.push_back(nr);
    }
    std::vector<TypeRef> ts(n, elem);
    ts.insert(ts.end(), rest.begin(), rest.end());
    auto m = missing(sub, ts);
    if (!m) continue;
    std::string desc = "[" + join(*m, 0, n) + (n > longest ? (n ? ", .." : "..") : "") + "]";
    Missing out{desc};
    out.insert(out.end(), m->begin() + static_cast<long>(n), m->end());
    return out;
  }
  return std::nullopt;
}

std::optional<Missing> missing(const std::vector<Row>& rows0, const std::vector<TypeRef>& types) {
  if (types.empty()) return rows0.empty() ? std::optional<Missing>(Missing{}) : std::nullopt;
  std::vector<Row> rows = expand_or(rows0);
  const TypeRef& t = types[0];
  std::vector<TypeRef> rest(types.begin() + 1, types.end());
  auto tail = [](const Row& r) { return Row(r.begin() + 1, r.end()); };
  if (ir::is_scalar(t) && t->dtype == DType::Bool) {
    for (bool v : {true, false}) {
      std::vector<Row> sub;
      for (auto& r : rows) {
        const NodeRef& p = strip_at(r[0]);
        bool matches = irrefutable(p) ||
                       (p->kind == Kind::PLit && ir::plit_value(*p)->kind == Kind::BoolLit &&
                        (ir::plit_value(*p)->ival != 0) == v);
        if (matches) sub.push_back(tail(r));
      }
      if (auto m = prepend(v ? "true" : "false", missing(sub, rest))) return m;
    }
    return std::nullopt;
  }
  if (t && t->k == Type::K::Tuple) {
    size_t n = t->elems.size();
    std::vector<Row> sub;
    for (auto& r : rows) {
      const NodeRef& p = strip_at(r[0]);
      Row nr;
      if (p->kind == Kind::PTuple && p->kids.size() == n) {
        nr = p->kids;
      } else if (irrefutable(p)) {
        nr = wildcards(n);
      } else {
        continue;
      }
      for (size_t i = 1; i < r.size(); ++i) nr.push_back(r[i]);
      sub.push_back(nr);
    }
    std::vector<TypeRef> ts(t->elems.begin(), t->elems.end());
    ts.insert(ts.end(), rest.begin(), rest.end());
    auto m = missing(sub, ts);
    if (!m) return std::nullopt;
    Missing out{"(" + join(*m, 0, n) + ")"};
    out.insert(out.end(), m->begin() + static_cast<long>(n), m->end());
    return out;
  }
  if (t && (t->k == Type::K::Array || t->k == Type::K::List)) return missing_array(rows, t, rest);
  std::vector<Row> sub;
  for (auto& r : rows)
    if (irrefutable(r[0])) sub.push_back(tail(r));
  return prepend("_", missing(sub, rest));
}

class MatchChecker : public ir::RecursiveVisitor {
 public:
  MatchChecker(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  void post(const NodeRef& n) override {
    if (n->kind != Kind::Match) return;
    std::vector<Row> rows;
    for (const NodeRef& arm : ir::match_arms(n))
      if (!ir::arm_guard(arm)) rows.push_back({ir::arm_pattern(arm)});  // guarded arms don't count
    TypeRef t = u_.type(ir::match_scrutinee(n));
    if (t->k == Type::K::Unknown) return;
    auto m = missing(rows, {t});
    if (!m) return;
    std::string what = join(*m, 0, m->size());
    bool precise = (ir::is_scalar(t) && t->dtype == DType::Bool) || t->k == Type::K::Tuple ||
                   t->k == Type::K::Array || t->k == Type::K::List;
    cx_.error("E002", "non-exhaustive match: `" + what + "` is not covered", ir::match_scrutinee(n)->span,
              "pattern `" + what + "` not covered",
              precise ? "add an arm for it, or a catch-all arm `_ => ...`"
                      : "add a catch-all arm `_ => ...` (only bools, tuples and arrays are "
                        "checked case by case)");
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void check_match(CompileCtx& cx) {
  for (auto& u : cx.units) {
    MatchChecker c(cx, *u);
    c.walk(u->body);
  }
}

}  // namespace ein
