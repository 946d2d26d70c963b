// Where-clause placement. `let s = sum[i](x[i]) where x[i] > 0.0;` and
// `let c[o] = sum[k](s[p] * w[k]) where p = o + k;` write the clause after the reduction but
// mean it inside: a clause belongs to the innermost reduction whose indices it mentions
// (directly or through another moved where-binding). This runs on names, before resolution,
// because it decides which scope the clause's names resolve in.
#include <set>

#include "lang/resolve/resolver_impl.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

void collect_names(const NodeRef& n, std::set<std::string>& out) {
  if (!n) return;
  if (n->kind == Kind::Name) out.insert(n->name);
  for (auto& k : n->kids) collect_names(k, out);
}

bool mentions(const NodeRef& clause, const std::set<std::string>& names) {
  std::set<std::string> used;
  collect_names(ir::where_clause_expr(clause), used);
  for (auto& u : used)
    if (names.count(u)) return true;
  return false;
}

}  // namespace

NodeRef place_where_clauses(const NodeRef& where) {
  const NodeRef& body = ir::where_expr(where);
  if (!body || body->kind != Kind::Reduce) return where;
  std::set<std::string> inner;  // names that only exist inside the reduction
  for (const NodeRef& s : ir::reduce_slots(body)) inner.insert(s->name);
  std::vector<NodeRef> moved, kept;
  NodeRef else_clause;
  for (const NodeRef& c : ir::where_clauses(where)) {
    if (c->kind == Kind::WElse) {
      else_clause = c;
      continue;
    }
    if (mentions(c, inner)) {
      moved.push_back(c);
      if (c->kind == Kind::WBind) inner.insert(c->name);
    } else {
      kept.push_back(c);
    }
  }
  if (moved.empty()) return where;

  // Clauses of the reduction body's own where (if any) come after the moved ones, which they
  // may refer to.
  NodeRef rbody = ir::reduce_body(*body);
  std::vector<NodeRef> inner_kids;
  if (rbody->kind == Kind::Where) {
    inner_kids.push_back(ir::where_expr(rbody));
    for (auto& c : moved) inner_kids.push_back(c);
    for (const NodeRef& c : ir::where_clauses(rbody)) inner_kids.push_back(c);
  } else {
    inner_kids.push_back(rbody);
    for (auto& c : moved) inner_kids.push_back(c);
  }
  NodeRef new_inner =
      ir::make({.kind = Kind::Where, .span = where->span, .kids = std::move(inner_kids)});
  new_inner = place_where_clauses(new_inner);  // nested reductions: keep pushing inward
  std::vector<NodeRef> rkids{new_inner};
  for (const NodeRef& s : ir::reduce_slots(body)) rkids.push_back(s);
  NodeRef new_reduce = ir::with_kids(body, std::move(rkids));

  bool has_guard = false;
  for (auto& c : kept) has_guard |= c->kind == Kind::WGuard;
  if (kept.empty()) return new_reduce;
  std::vector<NodeRef> outer{new_reduce};
  for (auto& c : kept) outer.push_back(c);
  if (else_clause && has_guard) outer.push_back(else_clause);
  return ir::with_kids(where, std::move(outer));
}

}  // namespace ein
