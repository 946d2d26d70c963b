// What the reverse sweep reads from the primal instead of recomputing it (see ad_sweep.h): a
// clause's stored output where a `@fn` rule recomputes its own result, and a primal
// intermediate `pre_Z` for a summing argument an activation's rule needs.
#include <functional>

#include "lang/passes/ad_sweep.h"
#include "lang/passes/ir_build.h"

namespace ein::ad {

using ir::Kind;

// The primal's stored value at the clause's point, when it is exactly the clause value (a
// scalar point of an f32/f64 tensor: narrower types round on store).
NodeRef Sweeper::stored_value(const Entry& c, const Clause& cl) const {
  if (c.dt != DType::F32 && c.dt != DType::F64) return nullptr;
  if (cl.value->kind != Kind::Call || facts_.float_dtype(cl.value) != c.dt) return nullptr;
  std::vector<NodeRef> kids{name(c.name, c.def)};
  for (auto& s : cl.slots) {
    if (s->kind == Kind::IdxLit)
      kids.push_back(irb::lit(s->ival));
    else if (s->kind == Kind::IdxVar || s->kind == Kind::IdxIn)
      kids.push_back(name(s->name, s->def));
    else
      return nullptr;
  }
  if (static_cast<int>(kids.size()) - 1 != c.rank) return nullptr;
  if (c.rank == 0) return kids[0];
  return ir::make({.kind = Kind::Index, .kids = std::move(kids)});
}

// An argument of the clause's call (`gelu(sum[k](X[n, k] * W[j, k]))`) as a read of a primal
// intermediate `pre_Z[n, j]`, declared once over the clause's own ranges and computed after
// the primal (a contraction is one GEMM there, instead of one per partial). Not for a clause
// that reads its own tensor: a recurrence's argument exists only during its sweep.
bool Sweeper::nested_arg(const Clause& cl, const NodeRef& arg) {
  bool call_arg = false, sums = false;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    if (n->kind == Kind::Call)
      for (const NodeRef& a : ir::call_args(n)) call_arg = call_arg || a == arg;
  });
  ir::for_each_node(arg, [&](const NodeRef& n) { sums = sums || n->kind == Kind::Reduce; });
  if (!call_arg || !sums) return false;
  auto binders = [](const NodeRef& root, const ir::Node* skip) {
    std::unordered_set<DefId> out;
    std::function<void(const NodeRef&)> walk = [&](const NodeRef& n) {
      if (!n || n.get() == skip) return;
      if (n->kind == Kind::IdxVar || n->kind == Kind::IdxIn || n->kind == Kind::PBind ||
          n->kind == Kind::WBind || n->kind == Kind::WDerived || n->kind == Kind::CompGen ||
          n->kind == Kind::CompLet)
        out.insert(n->def);
      for (auto& k : n->kids) walk(k);
    };
    walk(root);
    return out;
  };
  std::unordered_set<DefId> outside = binders(cl.value, arg.get());
  bool free = true;
  ir::for_each_node(arg, [&](const NodeRef& n) {
    free = free && !(n->kind == Kind::Name && outside.count(n->def));
  });
  return free;
}

NodeRef Sweeper::stored_arg(const Entry& c, const Clause& cl, const NodeRef& arg) {
  auto hit = pre_reads_.find(arg.get());
  if (hit != pre_reads_.end()) return hit->second;
  NodeRef& out = pre_reads_[arg.get()];
  bool is_arg = false;
  if (cl.value->kind == Kind::Call)
    for (const NodeRef& a : ir::call_args(cl.value)) is_arg = is_arg || a == arg;
  // A call deeper in the value (a residual `X[n, j] + gelu(..)`, a gate `sigmoid(..) * h`)
  // when its argument sums (else storing costs more than it saves) and reads no index or
  // local the value binds outside the argument (a point of the clause determines it).
  if (!is_arg && nested_arg(cl, arg)) is_arg = true;
  bool self_read = false;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    self_read = self_read || (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name &&
                              ir::index_base(n)->def == c.def);
  });
  if (!is_arg || self_read || cl.slots.empty() || !facts_.float_dtype(arg)) return nullptr;
  std::string nm = "pre_" + c.name;
  Copier cp(cx_, facts_);
  std::vector<NodeRef> slots, read{name(nm, DefId{})};
  for (auto& s : cl.slots) {
    if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) return nullptr;
    const RangeFact* rf = facts_.range(s->def);
    if (!rf || !rf->lo || !rf->hi) return nullptr;
    DefId nd = cx_.resolver.new_def(s->name, DefKind::Index, s->span);
    slots.push_back(idx_in(s->name, nd, rf->lo, rf->hi));
    cp.subst[s->def] = name(s->name, nd);
    read.push_back(name(s->name, s->def));
  }
  DefId pd = cx_.resolver.new_def(nm, DefKind::Local, cl.value->span);
  read[0] = name(nm, pd);
  std::vector<NodeRef> kids{cp.copy(arg)};
  for (auto& s : slots) kids.push_back(s);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .kids = std::move(kids), .name = nm, .def = pd});
  pre_stmts.push_back(ir::make({.kind = Kind::EinGroup, .kids = {decl}, .name = nm, .def = pd}));
  out = ir::make({.kind = Kind::Index, .kids = std::move(read)});
  return out;
}

}  // namespace ein::ad
