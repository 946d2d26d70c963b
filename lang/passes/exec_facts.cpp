#include "lang/passes/exec_facts.h"

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

// sum[k](A[.., k, ..] * B[.., k, ..]) with plain indices, each access rank 2, and the store
// indexed by the two remaining indices: a matrix product up to transposition.
bool is_gemm(const NodeRef& store) {
  if (store->kids.size() != 3) return false;
  const NodeRef& v = store->kids[0];
  if (v->kind != Kind::LReduce || v->name != "sum" || v->kids.size() != 2) return false;
  const NodeRef& body = v->kids[0];
  if (body->kind != Kind::Binary || static_cast<ir::BinOp>(body->ival) != ir::BinOp::Mul) return false;
  ir::DefId k = v->kids[1]->def;
  ir::DefId i = store->kids[1]->def, j = store->kids[2]->def;
  if (!i.valid() || !j.valid()) return false;
  auto access_ok = [&](const NodeRef& a, ir::DefId other) {
    if (a->kind != Kind::Index || a->kids.size() != 3 || a->kids[0]->kind != Kind::Name) return false;
    bool has_k = false, has_o = false;
    for (size_t x = 1; x < 3; ++x) {
      if (a->kids[x]->kind != Kind::Name) return false;
      has_k |= a->kids[x]->def == k;
      has_o |= a->kids[x]->def == other;
    }
    return has_k && has_o;
  };
  const NodeRef &a = body->kids[0], &b = body->kids[1];
  return (access_ok(a, i) && access_ok(b, j)) || (access_ok(a, j) && access_ok(b, i));
}

class Facts : public ir::Mutator {
 public:
  explicit Facts(Unit& u) : u_(u) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::LTensor) return n;
    for (auto& k : n->kids)
      if (k->kind == Kind::LFor) u_.strategies[k->id] = strategy_of(k, n->def);
    return n;
  }

 private:
  LoopStrategy strategy_of(const NodeRef& nest, ir::DefId def) {
    bool calls = false, self = false, seq = false;
    NodeRef store;
    ir::for_each_node(nest, [&](const NodeRef& x) {
      if (x->kind == Kind::Call && u_.call_targets.count(x->id)) calls = true;
      if (x->kind == Kind::Index && x->kids[0]->kind == Kind::Name && x->kids[0]->def == def) self = true;
      if (x->kind == Kind::LFor && x->has(ir::kSequential)) seq = true;
      if (x->kind == Kind::LStore && !store) store = x;
    });
    if (self || seq) return LoopStrategy::Scalar;
    if (store && nest->kids[2]->kind == Kind::LFor && nest->kids[2]->kids[2] == store && is_gemm(store))
      return LoopStrategy::Gemm;
    return calls ? LoopStrategy::Scalar : LoopStrategy::Vectorized;
  }

  Unit& u_;
};

}  // namespace

const char* strategy_name(LoopStrategy s) {
  switch (s) {
    case LoopStrategy::Vectorized: return "vectorized";
    case LoopStrategy::Gemm: return "gemm";
    case LoopStrategy::Scalar: return "scalar";
  }
  return "?";
}

void compute_exec_facts(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    Facts f(*u);
    u->lowered = f.mutate(u->lowered);
  }
}

std::string describe_exec_plan(const Unit& u) {
  std::string out;
  ir::for_each_node(u.lowered, [&](const NodeRef& n) {
    if (n->kind == Kind::LTensor) {
      out += ";;   tensor " + n->name + ": " +
             (n->has(ir::kWindowed) ? "window=" + std::to_string(n->kids[0]->ival) + " on axis 0"
                                    : std::string("whole tensor stored")) + "\n";
    } else if (n->kind == Kind::LFor) {
      std::string what;
      auto add = [&](const std::string& s) { what += (what.empty() ? "" : " ") + s; };
      if (auto r = u.recurrences.find(n->id); r != u.recurrences.end())
        add("recurrence axis=" + std::to_string(r->second.axis) + " lookback=" +
            (r->second.lookback ? std::to_string(*r->second.lookback) : std::string("?")));
      if (auto s = u.strategies.find(n->id); s != u.strategies.end())
        add(std::string("strategy=") + strategy_name(s->second));
      std::string kind = n->has(ir::kSequential) ? "sequential" : n->has(ir::kParallel) ? "parallel" : "";
      if (!kind.empty()) what += (what.empty() ? "" : ", ") + kind;
      out += ";;     loop " + n->name + (what.empty() ? "" : ": " + what) + "\n";
    }
  });
  return out;
}

}  // namespace ein
