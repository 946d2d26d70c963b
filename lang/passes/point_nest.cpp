#include "lang/passes/point_nest.h"

#include <functional>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

std::optional<PointNest> point_nest(const NodeRef& t) {
  if (t->has(ir::kHasElem) || t->has(ir::kWindowed) || t->has(ir::kResume)) return std::nullopt;
  PointNest n;
  for (const NodeRef& k : ir::ltensor_stmts(t)) {
    if (k->kind == Kind::LCheck) continue;
    if (n.clause) return std::nullopt;  // piecewise clauses: each writes its own points
    n.clause = k;
  }
  if (!n.clause) return std::nullopt;
  NodeRef cur = n.clause;
  while (cur->kind == Kind::LFor) {
    if (cur->has(ir::kSequential) || cur->has(ir::kReverse)) return std::nullopt;
    n.loops.push_back(cur);
    n.decl.insert(cur->def);
    cur = ir::lfor_body(cur);
  }
  if (n.loops.empty() || cur->kind != Kind::LStore || cur->def != t->def || cur->has(ir::kWindowed)) return std::nullopt;
  bool moves = false;
  for (const NodeRef& l : n.loops)
    for (const NodeRef& b : {ir::lfor_lo(l), ir::lfor_hi(l)})
      ir::for_each_node(b, [&](const NodeRef& x) { moves = moves || (x->kind == Kind::Name && n.decl.count(x->def)); });
  if (moves) return std::nullopt;
  const ir::Kids idx = ir::lstore_index(cur);
  if (idx.size() != n.loops.size()) return std::nullopt;
  std::unordered_set<DefId> seen;
  for (const NodeRef& x : idx)
    if (x->kind != Kind::Name || !n.decl.count(x->def) || !seen.insert(x->def).second) return std::nullopt;
  n.store = cur;
  return n;
}

NodeRef copy_with_facts(Unit& u, const NodeRef& n) {
  NodeRef f = ir::fresh_copy(n);
  std::function<void(const NodeRef&, const NodeRef&)> walk = [&](const NodeRef& a, const NodeRef& b) {
    if (!a) return;
    auto it = u.types.find(a->id);
    if (it != u.types.end()) u.types[b->id] = it->second;
    if (u.proven.count(a->id)) u.proven.insert(b->id);
    // A call of a function in the copy runs the same specialisation (without it the copy
    // failed at run time with E011: a guarded reduction calling std::math::exp, cut in boxes).
    if (auto c = u.call_targets.find(a->id); c != u.call_targets.end()) u.call_targets[b->id] = c->second;
    if (auto c = u.static_ifs.find(a->id); c != u.static_ifs.end()) u.static_ifs[b->id] = c->second;
    if (auto c = u.shapes.find(a->id); c != u.shapes.end()) u.shapes[b->id] = c->second;
    for (size_t i = 0; i < a->kids.size(); ++i) walk(a->kids[i], b->kids[i]);
  };
  walk(n, f);
  return f;
}

NodeRef clause_replaced(const NodeRef& t, const NodeRef& clause, const std::vector<NodeRef>& replacement,
                        const std::string& what) {
  std::vector<NodeRef> kids{ir::ltensor_shape(t)};
  for (const NodeRef& k : ir::ltensor_stmts(t)) {
    if (k != clause) kids.push_back(k);
    else kids.insert(kids.end(), replacement.begin(), replacement.end());
  }
  return ir::edited(t, [&](ir::Node& m) {
    m.kids = std::move(kids);
    m.aux = m.aux.empty() ? what : m.aux + "; " + what;
  });
}

}  // namespace ein
