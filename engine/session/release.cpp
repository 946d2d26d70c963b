// Mark from the session's names, drop unreachable cell-level bindings (see release.h).
#include "engine/session/release.h"

#include <algorithm>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/resolve/release.h"

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

// The cell's text and line table; the slot of its id stays (SourceMap hands out ids as indices),
// and a later lookup sees an empty file. SourceMap has no release of its own yet (adding one to
// lang/syntax/source.h rebuilds every file), so the entry is emptied in place: the File object
// itself is not const, only the accessor is.
void release_text(SourceMap& sm, uint32_t id) {
  if (!sm.has(id)) return;
  auto& f = const_cast<SourceMap::File&>(sm.file(id));
  std::string("<released>").swap(f.name);
  std::string().swap(f.text);
  std::vector<uint32_t>{0}.swap(f.line_starts);
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
  live_ = std::move(live);
  return dropped;
}

void Releaser::begin_cell(uint32_t file_id, uint32_t first_def) {
  CellRecord r;
  r.file_id = file_id;
  r.first_def = std::min(next_def_, first_def);
  r.end_def = r.first_def;
  cells_.push_back(std::move(r));
}

void Releaser::note_tree(const ir::NodeRef& resolved) {
  if (cells_.empty() || !resolved) return;
  ir::for_each_node(resolved, [&](const ir::NodeRef& n) {
    if (n->kind == ir::Kind::Lambda) cells_.back().lambdas.push_back(n->id);
  });
}

void Releaser::end_cell(uint32_t end_def) {
  if (cells_.empty()) return;
  auto& c = cells_.back();
  c.end_def = std::max(c.first_def, end_def + 1);
  c.open = false;
  next_def_ = c.end_def;
}

size_t Releaser::release_cells(Resolver& resolver, SourceMap& sm) {
  size_t released = 0;
  for (auto it = cells_.begin(); it != cells_.end();) {
    bool keep = it->open || it->pinned || (it->witness && live_.count(ir::DefId{ir::kUserCrate, it->witness}));
    if (!keep) it->witness = 0;
    for (uint32_t i = it->first_def; !keep && i < it->end_def; ++i) {
      ir::DefId d{ir::kUserCrate, i};
      const DefInfo& info = resolver.info(d);
      // Items of a module loaded by this cell share its range; such a cell is kept for good.
      it->pinned = !info.module.empty() || info.kind == DefKind::Module;
      if (live_.count(d)) it->witness = i;
      keep = it->pinned || it->witness != 0;
    }
    if (keep) {
      ++it;
      continue;
    }
    for (uint32_t i = it->first_def; i < it->end_def; ++i) release_def(resolver, ir::DefId{ir::kUserCrate, i});
    for (uint32_t l : it->lambdas) forget_lambda_captures(resolver, l);
    release_text(sm, it->file_id);
    it = cells_.erase(it);
    ++released;
  }
  return released;
}

}  // namespace ein
