#include "lang/passes/expand_rest.h"

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

class RestExpander : public ir::Mutator {
 public:
  RestExpander(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  const std::vector<ir::DefId>& generated(const NodeRef& rest) {
    auto it = u_.rest_defs.find(rest->def);
    if (it != u_.rest_defs.end()) return it->second;
    std::vector<ir::DefId> defs;
    auto len = u_.rest_len.find(rest->def);
    int n = len == u_.rest_len.end() ? 0 : std::max(0, len->second);
    for (int i = 0; i < n; ++i) {
      ir::DefId d = cx_.resolver.new_def(rest->name + "." + std::to_string(i), DefKind::Index,
                                         rest->span);
      u_.def_types[d] = ir::t_i32();
      defs.push_back(d);
    }
    return u_.rest_defs[rest->def] = std::move(defs);
  }

  NodeRef post(const NodeRef& n) override {
    bool has_rest = false;
    for (auto& k : n->kids)
      if (k && (k->kind == Kind::IdxRest || k->kind == Kind::RestIdx)) has_rest = true;
    if (!has_rest) return n;
    std::vector<NodeRef> kids;
    for (auto& k : n->kids) {
      if (!k || (k->kind != Kind::IdxRest && k->kind != Kind::RestIdx)) {
        kids.push_back(k);
        continue;
      }
      const auto& defs = generated(k);
      for (size_t i = 0; i < defs.size(); ++i) {
        std::string nm = k->name + "." + std::to_string(i);
        NodeRef g = k->kind == Kind::IdxRest
                        ? ir::make({.kind = Kind::IdxVar, .span = k->span, .name = nm, .def = defs[i]})
                        : ir::make_name(nm, defs[i], k->span);
        u_.types[g->id] = ir::t_i32();
        kids.push_back(g);
      }
    }
    return ir::with_kids(n, std::move(kids));
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void expand_rest(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (u->rest_len.empty()) continue;
    RestExpander ex(cx, *u);
    u->body = ex.mutate(u->body);
  }
}

}  // namespace ein
