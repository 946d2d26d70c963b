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
    if (n->kind == Kind::Index) return join_chained(expand(n));
    return expand(n);
  }

  // `X[i][k]` on a rectangular X is `X[i, k]`: one access, so range analysis takes k from X's
  // axis 1 and the contraction planner sees a GEMM in `sum[k](A[i][k] * B[k][j])`. Rows of a
  // jagged array (a List) keep their own lengths and are left chained.
  NodeRef join_chained(const NodeRef& n) {
    const NodeRef& inner = ir::index_base(n);
    if (inner->kind != Kind::Index) return n;
    auto t = u_.types.find(ir::index_base(inner)->id);
    if (t == u_.types.end() || !t->second || t->second->k != ir::Type::K::Array) return n;
    if (t->second->rank >= 0 && static_cast<size_t>(t->second->rank) < inner->kids.size() + n->kids.size() - 2)
      return n;
    std::vector<NodeRef> kids(inner->kids.begin(), inner->kids.end());
    kids.insert(kids.end(), n->kids.begin() + 1, n->kids.end());
    return ir::edited(n, [&](ir::Node& m) { m.kids = std::move(kids); });
  }

  NodeRef expand(const NodeRef& n) {
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
    RestExpander ex(cx, *u);
    u->body = ex.mutate(u->body);
  }
}

}  // namespace ein
