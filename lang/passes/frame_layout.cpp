#include "lang/passes/frame_layout.h"

#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

class Layout {
 public:
  Layout(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  void run() {
    for (auto& p : u_.params) slot(p);
    for (auto& c : u_.captures) slot(c);
    collect(u_.lowered);
    u_.lowered = rewrite(u_.lowered);
    u_.frame_size = static_cast<int>(u_.slot_of.size());
  }

 private:
  int slot(DefId d) {
    auto it = u_.slot_of.find(d);
    if (it != u_.slot_of.end()) return it->second;
    int s = static_cast<int>(u_.slot_of.size());
    u_.slot_of[d] = s;
    return s;
  }

  bool is_local(DefId d) const {
    DefKind k = cx_.resolver.info(d).kind;
    return k == DefKind::Local || k == DefKind::Param || k == DefKind::Index;
  }

  void collect(const NodeRef& n) {
    if (!n) return;
    switch (n->kind) {
      case Kind::Lambda: return;  // separate unit
      case Kind::PBind:
      case Kind::PAt:
      case Kind::PRest:
      case Kind::LTensor:
      case Kind::LFor:
      case Kind::LoopVar:
      case Kind::LLet:
      case Kind::LLetIn:
      case Kind::CompGen:
      case Kind::CompLet:
        if (n->def.valid() && is_local(n->def)) slot(n->def);
        break;
      default: break;
    }
    for (auto& k : n->kids) collect(k);
  }

  NodeRef rewrite(const NodeRef& n) {
    if (!n) return n;
    if (n->kind == Kind::Lambda) return n;
    std::vector<NodeRef> kids;
    kids.reserve(n->kids.size());
    for (auto& k : n->kids) kids.push_back(rewrite(k));
    NodeRef m = ir::with_kids(n, std::move(kids));
    int s = m->slot;
    if (m->def.valid()) {
      auto it = u_.slot_of.find(m->def);
      if (it != u_.slot_of.end()) s = it->second;
    }
    int8_t dt = m->dt;
    auto t = u_.types.find(m->id);
    if (t != u_.types.end()) {
      ir::TypeRef el = ir::elem_of(t->second);
      if (el && el->k == ir::Type::K::Scalar) dt = static_cast<int8_t>(el->dtype);
    } else if ((m->kind == Kind::LFor || m->kind == Kind::LoopVar || m->kind == Kind::CompGen) &&
               m->def.valid()) {
      // Loop variables carry the integer type of their index (i64 bounds give i64 indices).
      auto d = u_.def_types.find(m->def);
      if (d != u_.def_types.end() && ir::is_scalar(d->second)) dt = static_cast<int8_t>(d->second->dtype);
    }
    uint32_t flags = m->flags;
    if (m->kind == Kind::ArrayLit && t != u_.types.end() && t->second->k == ir::Type::K::List)
      flags |= ir::kJagged;
    if (s == m->slot && dt == m->dt && flags == m->flags) return m;
    return ir::edited(m, [&](ir::Node& x) {
      x.slot = s;
      x.dt = dt;
      x.flags = flags;
    });
  }

  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void frame_layout(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    Layout l(cx, *u);
    l.run();
  }
}

}  // namespace ein
