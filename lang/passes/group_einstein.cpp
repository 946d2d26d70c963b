#include "lang/passes/group_einstein.h"

#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

// The previous cell's clauses of `old`, made clauses of `now`.
std::vector<NodeRef> clauses_renamed(const NodeRef& group, ir::DefId old, ir::DefId now) {
  struct Rename : ir::Mutator {
    ir::DefId old, now;
    NodeRef post(const NodeRef& n) override {
      if ((n->kind == Kind::Name || n->kind == Kind::EinDecl) && n->def == old) return ir::with_def(n, now);
      return n;
    }
  } r;
  r.old = old;
  r.now = now;
  std::vector<NodeRef> out;
  for (auto& c : group->kids) out.push_back(r.mutate(c));
  return out;
}

bool is_item_kind(Kind k) {
  return k == Kind::Fn || k == Kind::DiffFn || k == Kind::Const || k == Kind::Use || k == Kind::Mod ||
         k == Kind::StructDecl || k == Kind::EnumDecl;
}

class Grouper : public ir::Mutator {
 public:
  explicit Grouper(CompileCtx& cx) : cx_(cx) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::Program && n->kind != Kind::Block) return n;
    std::vector<NodeRef> out;
    bool changed = false;
    const ir::Kids stmts = n->kids;  // a statement sequence: positions are order, not layout
    for (size_t i = 0; i < stmts.size(); ++i) {
      const NodeRef& s = stmts[i];
      if (!s || s->kind != Kind::EinDecl) {
        out.push_back(s);
        continue;
      }
      std::vector<NodeRef> clauses;
      if (n->kind == Kind::Program) clauses = joined_clauses(s);
      clauses.push_back(s);
      // The resolver gave consecutive clauses one DefId; items between them are hoisted and
      // keep their place after the group.
      std::vector<NodeRef> items;
      size_t last = i;
      for (size_t j = i + 1; j < stmts.size() && stmts[j]; ++j) {
        const NodeRef& k = stmts[j];
        if (k->kind == Kind::EinDecl && k->def == s->def) {
          clauses.push_back(k);
          last = j;
        } else if (!is_item_kind(k->kind)) {
          break;
        }
      }
      for (size_t j = i + 1; j < last; ++j)
        if (stmts[j]->kind != Kind::EinDecl) items.push_back(stmts[j]);
      i = last;
      Span span = s->span;
      for (auto& c : clauses)
        if (c->span.file == span.file) span = Span::join(span, c->span);
      out.push_back(ir::make({.kind = Kind::EinGroup, .span = span, .kids = std::move(clauses),
                              .name = s->name, .def = s->def}));
      for (auto& it : items) out.push_back(it);
      changed = true;
    }
    if (!changed) return n;
    return ir::edited(n, [&](ir::Node& m) { m.kids = std::move(out); });
  }

 private:
  std::vector<NodeRef> joined_clauses(const NodeRef& first) {
    auto it = cx_.joined.find(first->name);
    if (it == cx_.joined.end() || !cx_.persist || done_.count(first->name)) return {};
    done_.insert(first->name);
    auto rec = cx_.persist->defs.find(it->second);
    if (rec == cx_.persist->defs.end() || rec->second.stmt->kind != Kind::EinGroup) return {};
    return clauses_renamed(rec->second.stmt, it->second, first->def);
  }

  CompileCtx& cx_;
  std::unordered_set<std::string> done_;
};

}  // namespace

NodeRef group_einstein(const NodeRef& body, CompileCtx& cx) {
  Grouper g(cx);
  return g.mutate(body);
}

void find_join_candidates(const NodeRef& program, CompileCtx& cx) {
  cx.join_candidates.clear();
  if (!cx.persist || cx.persist->last_cell.empty() || !program) return;
  std::unordered_set<std::string> bound;  // names this cell has bound so far
  const ir::Kids stmts = ir::program_stmts(program);
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    if (s->kind == Kind::Let) {
      ir::for_each_node(ir::let_pattern(*s), [&](const NodeRef& p) {
        if (p->kind == Kind::PBind) bound.insert(p->name);
      });
      continue;
    }
    if (s->kind != Kind::EinDecl) continue;
    bool reads_itself = false;
    size_t j = i;
    for (; j < stmts.size() && stmts[j] && stmts[j]->kind == Kind::EinDecl && stmts[j]->def == s->def; ++j)
      ir::for_each_node(stmts[j], [&](const NodeRef& n) {
        if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == s->def)
          reads_itself = true;
      });
    i = j - 1;
    if (!bound.insert(s->name).second || !reads_itself) continue;
    auto it = cx.persist->last_cell.find(s->name);
    if (it == cx.persist->last_cell.end() || !it->second.valid() || !cx.env.type_of(it->second)) continue;
    if (!cx.persist->defs.count(it->second)) continue;
    cx.join_candidates[s->name] = it->second;
  }
}

}  // namespace ein
