#include "lang/passes/check_match.h"

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

using Row = std::vector<NodeRef>;  // one pattern per scrutinee component

bool irrefutable(const NodeRef& p) {
  if (p->kind == Kind::PWild || p->kind == Kind::PBind) return true;
  if (p->kind == Kind::POr) {
    for (auto& k : p->kids)
      if (irrefutable(k)) return true;
  }
  if (p->kind == Kind::PTuple) {
    for (auto& k : p->kids)
      if (!irrefutable(k)) return false;
    return true;
  }
  return false;
}

// Expands or-patterns in the first column so each row starts with a non-or pattern.
std::vector<Row> expand_or(const std::vector<Row>& rows) {
  std::vector<Row> out;
  for (auto& r : rows) {
    if (!r.empty() && r[0]->kind == Kind::POr) {
      for (auto& alt : r[0]->kids) {
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

// Returns "" if the rows cover every value of `types`, else a description of a missing value.
std::string missing(const std::vector<Row>& rows0, const std::vector<TypeRef>& types) {
  if (types.empty()) return rows0.empty() ? "_" : "";
  std::vector<Row> rows = expand_or(rows0);
  const TypeRef& t = types[0];
  std::vector<TypeRef> rest(types.begin() + 1, types.end());
  auto tail = [](const Row& r) { return Row(r.begin() + 1, r.end()); };
  if (ir::is_scalar(t) && t->dtype == DType::Bool) {
    for (bool v : {true, false}) {
      std::vector<Row> sub;
      for (auto& r : rows) {
        const NodeRef& p = r[0];
        bool matches = irrefutable(p) ||
                       (p->kind == Kind::PLit && p->kids[0]->kind == Kind::BoolLit &&
                        (p->kids[0]->ival != 0) == v);
        if (matches) sub.push_back(tail(r));
      }
      std::string m = missing(sub, rest);
      if (!m.empty()) return std::string(v ? "true" : "false") + (rest.empty() ? "" : ", " + m);
    }
    return "";
  }
  if (t && t->k == Type::K::Tuple) {
    size_t n = t->elems.size();
    std::vector<Row> sub;
    for (auto& r : rows) {
      Row nr;
      if (r[0]->kind == Kind::PTuple && r[0]->kids.size() == n) {
        nr = r[0]->kids;
      } else if (irrefutable(r[0])) {
        for (size_t i = 0; i < n; ++i)
          nr.push_back(ir::make({.kind = Kind::PWild}));
      } else {
        continue;
      }
      for (size_t i = 1; i < r.size(); ++i) nr.push_back(r[i]);
      sub.push_back(nr);
    }
    std::vector<TypeRef> ts(t->elems.begin(), t->elems.end());
    ts.insert(ts.end(), rest.begin(), rest.end());
    std::string m = missing(sub, ts);
    if (m.empty()) return "";
    return "(" + m + ")";
  }
  std::vector<Row> sub;
  for (auto& r : rows)
    if (irrefutable(r[0])) sub.push_back(tail(r));
  std::string m = missing(sub, rest);
  if (m.empty()) return "";
  return "_" + (rest.empty() ? "" : ", " + m);
}

class MatchChecker : public ir::RecursiveVisitor {
 public:
  MatchChecker(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  void post(const NodeRef& n) override {
    if (n->kind != Kind::Match) return;
    std::vector<Row> rows;
    for (size_t i = 1; i < n->kids.size(); ++i)
      if (!n->kids[i]->kids[1]) rows.push_back({n->kids[i]->kids[0]});  // guarded arms don't count
    TypeRef t = u_.type(n->kids[0]);
    if (t->k == Type::K::Unknown) return;
    std::string m = missing(rows, {t});
    if (m.empty()) return;
    cx_.error("E002", "non-exhaustive match: `" + m + "` is not covered", n->kids[0]->span,
              "pattern `" + m + "` not covered",
              ir::is_scalar(t) && t->dtype == DType::Bool
                  ? "add the missing arm"
                  : "add a catch-all arm `_ => ...` (only bool and tuples of bools are checked "
                    "case by case)");
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void check_matches(CompileCtx& cx) {
  for (auto& u : cx.units) {
    MatchChecker c(cx, *u);
    c.walk(u->body);
  }
}

}  // namespace ein
