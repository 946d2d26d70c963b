#include "engine/codegen/fusion.h"

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

NodeRef substitute_extents(const NodeRef& n, const FusionMap& producers) {
  if (!n) return n;
  if (n->kind == Kind::DimOf && ir::dimof_tensor(n)->kind == Kind::Name) {
    auto it = producers.producers.find(ir::dimof_tensor(n)->def);
    if (it != producers.producers.end()) {
      const ir::Kids extents = ir::lshape_extents(ir::ltensor_shape(it->second));
      size_t axis = static_cast<size_t>(n->ival);
      if (axis < extents.size()) return substitute_extents(extents[axis], producers);
    }
  }
  std::vector<NodeRef> kids;
  kids.reserve(n->kids.size());
  for (auto& k : n->kids) kids.push_back(substitute_extents(k, producers));
  return ir::with_kids(n, std::move(kids));
}

FusionPlan fused_kernels(const CompileCtx& cx, const Unit& u, const PlanOptions& opt) {
  FusionPlan fp;
  if (u.fusions.empty()) return fp;
  std::unordered_map<ir::DefId, NodeRef> tensors;  // top-level LTensors by definition
  std::unordered_map<uint32_t, NodeRef> by_id;
  for (const NodeRef& s : u.lowered->kids)
    if (s && s->kind == Kind::LTensor) {
      tensors[s->def] = s;
      by_id[s->id] = s;
    }
  for (const FusionGroup& g : u.fusions) {
    auto ct = by_id.find(g.consumer);
    if (ct == by_id.end()) continue;
    const NodeRef& c = ct->second;
    FusionMap fm;
    std::vector<NodeRef> order;
    for (ir::DefId d : g.producers)
      if (auto t = tensors.find(d); t != tensors.end()) {
        order.push_back(t->second);
        fm.producers[d] = t->second;
      }
    NodeRef clause;
    for (const NodeRef& k : ir::ltensor_stmts(c))
      if (k->id == g.clause) clause = k;
    if (!clause || order.size() != g.producers.size()) continue;
    std::string why;
    auto k = gen_clause(cx, u, c, clause, fm, &why);
    if (!k) continue;
    if (opt.mode == PlanOptions::Mode::Auto && !(interpreted_work(*k) >= opt.threshold)) continue;
    k->fused = order;
    k->shape = substitute_extents(ir::ltensor_shape(c), fm);
    k->checks.clear();
    for (auto& p : order)
      for (auto& pk : p->kids)
        if (pk->kind == Kind::LCheck) k->checks.push_back(substitute_extents(pk, fm));
    for (auto& ck : c->kids)
      if (ck->kind == Kind::LCheck) k->checks.push_back(substitute_extents(ck, fm));
    for (auto& p : order) fp.elided.insert(p->id);
    fp.consumers[clause->id] = std::move(*k);
  }
  return fp;
}

}  // namespace ein::codegen
