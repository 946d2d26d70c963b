#include "lang/passes/exec_facts.h"

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/contraction.h"
#include "lang/passes/contraction_plan.h"
#include "lang/passes/fusion_plan.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

// A clause that is one matrix product up to transposition: a perfect nest storing
// sum[k](A * B) whose GEMM view (contraction.h) has both a row and a column group and no batch.
bool is_gemm(const NodeRef& nest) {
  std::vector<ir::DefId> vars;
  NodeRef cur = nest;
  for (; cur->kind == Kind::LFor; cur = ir::lfor_body(*cur)) vars.push_back(cur->def);
  if (cur->kind != Kind::LStore || ir::lstore_value(*cur)->kind != Kind::LReduce) return false;
  std::vector<ir::DefId> dest;
  for (const NodeRef& ix : ir::lstore_index(*cur)) {
    if (ix->kind != Kind::Name) return false;
    dest.push_back(ix->def);
  }
  auto c = match_contraction(ir::lstore_value(*cur), vars);
  if (!c || c->free.size() != dest.size()) return false;
  auto g = gemm_shape(*c, dest);
  return g && !g->m.empty() && !g->n.empty() && g->batch.empty();
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
      if (x->kind == Kind::Index && ir::index_base(*x)->kind == Kind::Name && ir::index_base(*x)->def == def) self = true;
      if (x->kind == Kind::LFor && x->has(ir::kSequential)) seq = true;
      if (x->kind == Kind::LStore && !store) store = x;
    });
    if (self || seq) return LoopStrategy::Scalar;
    if (store && is_gemm(nest))
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

void exec_facts(CompileCtx& cx) {
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
             (n->has(ir::kWindowed) ? "window=" + std::to_string(ir::ltensor_window(n)) + " on axis 0"
                                    : std::string("whole tensor stored")) +
             (n->aux.empty() ? "" : "\n;;     " + n->aux) + "\n" + describe_common(u, n);
    } else if (n->kind == Kind::LFor) {
      std::string what;
      auto add = [&](const std::string& s) { what += (what.empty() ? "" : " ") + s; };
      if (auto r = u.recurrences.find(n->id); r != u.recurrences.end())
        add("recurrence axis=" + std::to_string(r->second.axis) + " lookback=" +
            (r->second.lookback ? std::to_string(*r->second.lookback) : std::string("?")));
      if (auto s = u.strategies.find(n->id); s != u.strategies.end())
        add(std::string("strategy=") + strategy_name(s->second));
      if (auto t = u.tiles.find(n->id); t != u.tiles.end())
        add("tiled=" + std::to_string(t->second.size) + "x" + std::to_string(t->second.size) + " (" + t->second.read +
            " read transposed)");
      std::string kind = n->has(ir::kSequential) ? "sequential" : n->has(ir::kParallel) ? "parallel" : "";
      if (!kind.empty()) what += (what.empty() ? "" : ", ") + kind;
      if (std::string loop = describe_loop(u, n); !loop.empty()) what += (what.empty() ? "" : ", ") + loop;
      out += ";;     loop " + n->name + (what.empty() ? "" : ": " + what) + "\n";
    }
  });
  return out + describe_common_scalar(u) + describe_contractions(u) + describe_fusion(u);
}

}  // namespace ein
