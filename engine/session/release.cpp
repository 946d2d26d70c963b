// Mark from the session's names, drop unreachable cell-level bindings (see release.h).
#include "engine/session/release.h"

#include <algorithm>
#include <unordered_set>

#include "lang/ir/visitor.h"

namespace ein {

namespace {

void node_refs(const ir::NodeRef& n, std::vector<ir::DefId>& out) {
  ir::for_each_node(n, [&](const ir::NodeRef& k) {
    if (k->def.valid()) out.push_back(k->def);
  });
}

// Functions inside a value (closures in tuples and lists too) and what they mention.
void value_refs(const Value& v, std::vector<ir::DefId>& out) {
  switch (v.tag) {
    case Value::Tag::Func: {
      const auto* c = dynamic_cast<const Closure*>(&v.func_ref());
      if (!c) return;
      if (c->def.valid()) out.push_back(c->def);
      for (auto& d : c->capture_defs) out.push_back(d);
      if (c->lambda) node_refs(c->lambda, out);
      for (auto& cap : c->captures) value_refs(cap, out);
      return;
    }
    case Value::Tag::Tuple:
    case Value::Tag::List:
      for (auto& item : v.items()) value_refs(item, out);
      return;
    default: return;
  }
}

}  // namespace

const std::vector<ir::DefId>& Releaser::refs_of(ir::DefId d, Resolver& resolver, const RuntimeEnv& env,
                                                const PersistentFacts& facts) {
  if (auto it = refs_.find(d); it != refs_.end()) return it->second;
  std::vector<ir::DefId> out;
  if (auto g = env.globals.find(d); g != env.globals.end()) value_refs(g->second, out);
  if (auto f = facts.defs.find(d); f != facts.defs.end()) node_refs(f->second.stmt, out);
  // `let df = @f;`: a later `df / dx` reads f's definition through this node.
  if (auto f = facts.differentials.find(d); f != facts.differentials.end()) node_refs(f->second, out);
  if (d.crate == ir::kUserCrate) {
    const DefInfo& info = resolver.info(d);
    if (info.node) node_refs(info.node, out);
    if (info.diff_rule) node_refs(info.diff_rule, out);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  auto it = std::find(out.begin(), out.end(), d);
  if (it != out.end()) out.erase(it);
  return refs_.emplace(d, std::move(out)).first->second;
}

size_t Releaser::sweep(Resolver& resolver, RuntimeEnv& env, PersistentFacts& facts) {
  // Only bindings of cells can be dropped: items of modules and the standard library stay
  // reachable through their module paths, and are roots here.
  auto droppable = [&](ir::DefId d) {
    if (d.crate != ir::kUserCrate) return false;
    const DefInfo& info = resolver.info(d);
    return info.module.empty() && (info.kind == DefKind::Global || info.kind == DefKind::Const);
  };
  // References are recomputed each sweep: a recurrence whose clauses are joined across cells
  // gets a longer recorded statement under the same DefId, and a function a later rule.
  refs_.clear();
  std::unordered_set<ir::DefId> live;
  std::vector<ir::DefId> work;
  auto reach = [&](ir::DefId d) {
    if (d.valid() && live.insert(d).second) work.push_back(d);
  };
  for (auto& [name, d] : resolver.session_names()) reach(d);
  for (auto& [d, v] : env.globals)
    if (!droppable(d)) reach(d);
  for (auto& [d, rec] : facts.defs)
    if (!droppable(d)) reach(d);
  for (auto& [d, node] : facts.differentials)
    if (!droppable(d)) reach(d);
  while (!work.empty()) {
    ir::DefId d = work.back();
    work.pop_back();
    // Only definitions that can hold something have references worth following; locals and
    // builtins end the walk.
    bool holder = env.globals.count(d) || facts.defs.count(d) || facts.differentials.count(d);
    if (!holder && d.crate == ir::kUserCrate) {
      DefKind k = resolver.info(d).kind;
      holder = k == DefKind::Fn || k == DefKind::Const;
    }
    if (!holder) continue;
    for (ir::DefId r : refs_of(d, resolver, env, facts)) reach(r);
  }
  size_t dropped = 0;
  for (auto it = env.globals.begin(); it != env.globals.end();) {
    if (!live.count(it->first) && droppable(it->first)) {
      it = env.globals.erase(it);
      ++dropped;
    } else {
      ++it;
    }
  }
  for (auto it = facts.defs.begin(); it != facts.defs.end();) {
    if (!live.count(it->first) && droppable(it->first)) {
      it = facts.defs.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = facts.differentials.begin(); it != facts.differentials.end();)
    it = !live.count(it->first) && droppable(it->first) ? facts.differentials.erase(it) : std::next(it);
  return dropped;
}

}  // namespace ein
