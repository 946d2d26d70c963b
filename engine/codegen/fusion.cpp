#include "engine/codegen/fusion.h"

#include <functional>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

// The single clause of a producer: loops over exactly [0, extent) of every axis around one
// store (with optional where-lets), no guards, no reductions, no self reads.
bool elementwise_producer(const NodeRef& t) {
  if (t->has(ir::kHasElem) || t->has(ir::kWindowed)) return false;
  if (!kernel_dtype(static_cast<DType>(t->ival))) return false;
  const ir::Kids extents = ir::lshape_extents(ir::ltensor_shape(t));
  NodeRef clause;
  for (const NodeRef& k : ir::ltensor_stmts(t)) {
    if (k->kind == Kind::LCheck) continue;
    if (clause) return false;
    clause = k;
  }
  if (!clause) return false;
  std::unordered_map<ir::DefId, std::pair<NodeRef, NodeRef>> bounds;
  NodeRef cur = clause;
  while (cur->kind == Kind::LFor) {
    if (cur->has(ir::kSequential) || cur->has(ir::kReverse)) return false;
    bounds[cur->def] = {ir::lfor_lo(cur), ir::lfor_hi(cur)};
    cur = ir::lfor_body(cur);
  }
  while (cur->kind == Kind::LSeq && ir::lseq_stmts_count(cur) == 2 && ir::lseq_stmts(cur)[0]->kind == Kind::LLet)
    cur = ir::lseq_stmts(cur)[1];
  if (cur->kind != Kind::LStore || ir::lstore_index_count(cur) != extents.size()) return false;
  for (size_t a = 0; a < extents.size(); ++a) {
    const NodeRef& ix = ir::lstore_index(cur)[a];
    auto b = bounds.find(ix->def);
    if (ix->kind != Kind::Name || b == bounds.end()) return false;
    const NodeRef& ext = extents[a];
    if (b->second.first->kind != Kind::IntLit || b->second.first->ival != 0) return false;
    bool whole = ir::structurally_equal(ext, b->second.second) ||
                 (ext->kind == Kind::IMax && ir::imax_a(ext)->kind == Kind::IntLit && ir::imax_a(ext)->ival == 0 &&
                  ir::structurally_equal(ir::imax_b(ext), b->second.second));
    if (!whole) return false;
    bounds.erase(b);
  }
  if (!bounds.empty()) return false;
  bool ok = true;
  ir::for_each_node(cur, [&](const NodeRef& x) {
    if (x->kind == Kind::LReduce || x->kind == Kind::LTensor || x->kind == Kind::Lambda) ok = false;
    if (x->kind == Kind::Index && ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == t->def) ok = false;
  });
  return ok;
}

struct Use {
  NodeRef stmt;     // top-level statement holding the reference
  bool ok = true;
  std::string key;  // the indices of its point reads
};

}  // namespace

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

FusionPlan plan_fusion(const CompileCtx& cx, const Unit& u, const PlanOptions& opt) {
  FusionPlan fp;
  const NodeRef& body = u.lowered;
  if (!body || (body->kind != Kind::Program && body->kind != Kind::Block)) return fp;
  // Statements of the unit body; producers and consumers are top-level LTensors.
  std::vector<NodeRef> stmts = body->kids;
  std::unordered_map<ir::DefId, size_t> producer_at;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s || s->kind != Kind::LTensor || !elementwise_producer(s)) continue;
    DefKind kind = cx.resolver.info(s->def).kind;
    if (kind == DefKind::Global && !cx.opt.whole_program) continue;  // a later cell may read it
    producer_at[s->def] = i;
  }
  if (producer_at.empty()) return fp;
  // Every reference to a candidate must be a proven point read or an extent, inside one later
  // top-level LTensor with a single clause. A read must be "at the point": its indices are the
  // consumer's loop variables, each once, all of them, outside any reduction, and every read
  // has the same indices — so each producer element is computed exactly once.
  std::unordered_map<ir::DefId, Use> uses;
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    std::vector<ir::DefId> loopvars;
    if (s->kind == Kind::LTensor) {
      NodeRef cl;
      size_t n = 0;
      for (auto& c : s->kids)
        if (c->kind != Kind::LShape && c->kind != Kind::LCheck) {
          cl = c;
          ++n;
        }
      for (NodeRef cur = n == 1 ? cl : nullptr; cur && cur->kind == Kind::LFor; cur = ir::lfor_body(cur))
        loopvars.push_back(cur->def);
    }
    auto at_point = [&](const NodeRef& ix, std::string* key) {
      if (ir::index_args_count(ix) != loopvars.size()) return false;
      std::vector<ir::DefId> seen;
      for (const NodeRef& x : ir::index_args(ix)) {
        if (x->kind != Kind::Name) return false;
        if (std::find(loopvars.begin(), loopvars.end(), x->def) == loopvars.end()) return false;
        if (std::find(seen.begin(), seen.end(), x->def) != seen.end()) return false;
        seen.push_back(x->def);
        *key += def_key(x->def) + ",";
      }
      return true;
    };
    std::function<void(const NodeRef&, bool, bool)> scan = [&](const NodeRef& n, bool lam, bool red) {
      if (!n) return;
      lam = lam || n->kind == Kind::Lambda;
      red = red || n->kind == Kind::LReduce;
      auto note = [&](ir::DefId d, bool good, const std::string& key) {
        auto it = producer_at.find(d);
        if (it == producer_at.end() || it->second == i) return;
        Use& use = uses[d];
        if (use.stmt && use.stmt != s) use.ok = false;
        use.stmt = s;
        if (!good || lam || s->kind != Kind::LTensor || it->second > i) use.ok = false;
        if (!key.empty()) {
          if (!use.key.empty() && use.key != key) use.ok = false;
          use.key = key;
        }
      };
      if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && producer_at.count(ir::index_base(n)->def)) {
        std::string key;
        bool good = is_proven(u, n) && !n->has(ir::kWindowed) && !red && at_point(n, &key);
        note(ir::index_base(n)->def, good, key.empty() ? "?" : key);
        for (const NodeRef& ix : ir::index_args(n)) scan(ix, lam, red);
        return;
      }
      if (n->kind == Kind::DimOf && ir::dimof_tensor(n)->kind == Kind::Name) {
        note(ir::dimof_tensor(n)->def, true, "");
        return;
      }
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && producer_at.count(n->def)) note(n->def, false, "");
      for (auto& k : n->kids) scan(k, lam, red);
    };
    scan(s, false, false);
  }
  // Other units (functions reading a global) observe it too.
  for (auto& other : cx.units) {
    if (other.get() == &u || !other->lowered) continue;
    ir::for_each_node(other->lowered, [&](const NodeRef& n) {
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && producer_at.count(n->def)) uses[n->def].ok = false;
    });
  }
  std::unordered_map<ir::DefId, NodeRef> elided;  // producer def -> its LTensor
  for (auto& [d, use] : uses) {
    if (!use.ok || !use.stmt) continue;
    size_t clauses = 0;
    for (auto& c : use.stmt->kids) clauses += c->kind != Kind::LShape && c->kind != Kind::LCheck;
    if (clauses != 1) continue;
    elided[d] = stmts[producer_at[d]];
  }
  if (elided.empty()) return fp;
  // Consumers that are not themselves elided compute the whole chain of producers they reach.
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& c = stmts[i];
    if (!c || c->kind != Kind::LTensor || elided.count(c->def)) continue;
    FusionMap fm;
    std::vector<NodeRef> order;
    std::function<void(const NodeRef&)> reach = [&](const NodeRef& n) {
      ir::for_each_node(n, [&](const NodeRef& x) {
        if ((x->kind == Kind::Name) && elided.count(x->def) && !fm.producers.count(x->def)) {
          const NodeRef& p = elided[x->def];
          fm.producers[x->def] = p;
          reach(p);
          order.push_back(p);
        }
      });
    };
    reach(c);
    if (fm.producers.empty()) continue;
    NodeRef clause;
    for (auto& k : c->kids)
      if (k->kind != Kind::LShape && k->kind != Kind::LCheck) clause = k;
    std::string why;
    auto k = gen_clause(cx, u, c, clause, fm, &why);
    if (!k) continue;
    if (opt.mode == PlanOptions::Mode::Auto && !(k->work >= opt.threshold)) continue;
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
