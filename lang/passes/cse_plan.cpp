#include "lang/passes/cse_plan.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {

using ir::Kind;
using ir::Node;
using ir::NodeRef;

namespace {

// Same structure, names, payload and types (structurally_equal leaves types out: the literal
// `2` may be an i32 in one place and an f64 in another).
bool same(const Unit& u, const NodeRef& a, const NodeRef& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->name != b->name || a->aux != b->aux || a->def != b->def || a->ival != b->ival ||
      a->flags != b->flags || a->slot != b->slot || a->dt != b->dt || a->kids.size() != b->kids.size() ||
      !(a->fval == b->fval || (a->fval != a->fval && b->fval != b->fval)))
    return false;
  if (!ir::type_equal(u.type(a), u.type(b))) return false;
  for (size_t i = 0; i < a->kids.size(); ++i)
    if (!same(u, a->kids[i], b->kids[i])) return false;
  return true;
}

struct Occurrence {
  NodeRef node;
  const Node* parent;  // the enclosing candidate expression, or null
  size_t order;        // position in the walk (groups are numbered in this order)
};

class Planner {
 public:
  Planner(Unit& u, const NodeRef& statement) : u_(u), stmt_(statement) {
    ir::for_each_node(statement, [&](const NodeRef& n) {
      if (n->kind == Kind::LStore || n->kind == Kind::LAccum || n->kind == Kind::LTensor) writes_.insert(n->def);
    });
  }

  void run() {
    walk(stmt_, nullptr);
    std::vector<std::vector<const Occurrence*>> found;
    std::unordered_map<const Node*, int> group_of;
    const size_t base = u_.common_groups.size();
    for (auto& kv : buckets_) {
      const std::vector<Occurrence>& bucket = kv.second;
      // A bucket may hold different expressions with the same hash: split it by `same`.
      std::vector<std::vector<const Occurrence*>> classes;
      for (const Occurrence& o : bucket) {
        auto it = std::find_if(classes.begin(), classes.end(),
                               [&](auto& c) { return same(u_, c.front()->node, o.node); });
        if (it == classes.end()) classes.push_back({&o});
        else it->push_back(&o);
      }
      for (auto& c : classes)
        if (c.size() > 1) found.push_back(c);
    }
    std::sort(found.begin(), found.end(), [](auto& a, auto& b) { return a.front()->order < b.front()->order; });
    for (auto& c : found) {
      const int g = static_cast<int>(u_.common_groups.size());
      u_.common_groups.push_back(CseGroup{c.front()->node, static_cast<int>(c.size()), stmt_->id, true});
      members_.push_back(c);
      for (const Occurrence* o : c) {
        u_.common[o->node->id] = g;
        group_of[o->node.get()] = g;
      }
    }
    // A group whose every occurrence sits in an occurrence of one other group is computed with
    // it: %ir shows the larger one only.
    for (size_t i = 0; i < members_.size(); ++i) {
      int outer = -2;
      for (const Occurrence* o : members_[i]) {
        auto it = o->parent ? group_of.find(o->parent) : group_of.end();
        const int g = it == group_of.end() ? -1 : it->second;
        outer = outer == -2 || outer == g ? g : -1;
      }
      if (outer >= 0) u_.common_groups[base + i].shown = false;
    }
  }

 private:
  static bool candidate_kind(Kind k) {
    return k == Kind::Binary || k == Kind::Unary || k == Kind::Cast || k == Kind::Index;
  }
  static bool leaf_kind(Kind k) {
    return k == Kind::Name || k == Kind::IntLit || k == Kind::FloatLit || k == Kind::BoolLit;
  }

  // Whether `n` is free of effects and context (a leaf or a candidate over such kids); records
  // every candidate. `parent`: the nearest enclosing candidate.
  bool walk(const NodeRef& n, const Node* parent) {
    if (!n) return false;
    if (n != stmt_ && n->kind == Kind::LTensor) return false;  // planned on its own
    if (leaf_kind(n->kind)) return true;
    const bool cand = candidate_kind(n->kind) &&
                      !(n->kind == Kind::Index && (ir::index_base(n)->kind != Kind::Name ||
                                                   writes_.count(ir::index_base(n)->def)));
    bool pure = cand;
    for (const NodeRef& k : n->kids) pure = walk(k, cand ? n.get() : parent) && pure;
    if (!pure) return false;
    buckets_[ir::structural_hash(n) ^ (static_cast<uint64_t>(static_cast<uint8_t>(n->dt)) << 56)].push_back(
        Occurrence{n, parent, count_++});
    return true;
  }

  Unit& u_;
  NodeRef stmt_;
  std::unordered_set<ir::DefId> writes_;
  std::unordered_map<uint64_t, std::vector<Occurrence>> buckets_;
  std::vector<std::vector<const Occurrence*>> members_;
  size_t count_ = 0;
};

}  // namespace

const NodeRef& statement_value(const NodeRef& stmt) {
  if (stmt->kind == Kind::Let) return ir::let_value(*stmt);
  if (stmt->kind == Kind::ExprStmt) return ir::stmt_expr(stmt);
  return stmt;
}

bool kernel_statement(const NodeRef& stmt, const NodeRef& tail) {
  if (!stmt || !(stmt->kind == Kind::Let || stmt->kind == Kind::ExprStmt || stmt == tail)) return false;
  const NodeRef& v = statement_value(stmt);
  // (A call as a statement — `print(sum(..))` — is no kernel; its reductions are, one by one:
  // `expression_reduction`.)
  if (stmt->kind != Kind::Let && v->kind == Kind::Call) return false;
  bool reduces = false;
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& x) {
    if (!x || reduces || x->kind == Kind::Lambda) return;
    reduces = x->kind == Kind::LReduce;
    for (auto& k : x->kids) walk(k);
  };
  walk(v);
  return reduces;
}

void cse_plan(CompileCtx& cx) {
  for (auto& up : cx.units) {
    Unit& u = *up;
    u.common.clear();
    u.common_groups.clear();
    if (!u.lowered) continue;
    const NodeRef tail = u.kind == Unit::Kind::Cell && u.lowered->has(ir::kHasTail) && !u.lowered->kids.empty()
                             ? u.lowered->kids.back()
                             : nullptr;
    // Tensors wherever they are; scalar statements outside tensors (a `let` in a clause's block
    // is part of its tensor's plan) and lambdas, as codegen's cell plan finds them.
    std::vector<NodeRef> statements;
    std::function<void(const NodeRef&, bool)> walk = [&](const NodeRef& n, bool scalars) {
      if (!n) return;
      const bool scalar = scalars && n->kind != Kind::LTensor &&
                          (kernel_statement(n, tail) || (n->kind != Kind::Lambda && expression_reduction(n)));
      if (n->kind == Kind::LTensor || scalar) statements.push_back(n);
      // Below a planned statement, its own plan covers the nested ones.
      for (const NodeRef& k : n->kids) walk(k, scalars && !scalar && n->kind != Kind::LTensor && n->kind != Kind::Lambda);
    };
    walk(u.lowered, true);
    for (const NodeRef& s : statements) Planner(u, s).run();
  }
}

std::string describe_common_scalar(const Unit& u) {
  std::unordered_set<uint32_t> planned;
  for (const CseGroup& g : u.common_groups)
    if (g.shown) planned.insert(g.statement);
  std::string out;
  ir::for_each_node(u.lowered, [&](const NodeRef& n) {
    if (n->kind == Kind::LTensor || !planned.count(n->id)) return;
    const NodeRef& pat = n->kind == Kind::Let ? ir::let_pattern(*n) : nullptr;
    out += std::string(";;   ") + (pat ? "let " + pat->name : "expression") + ":\n" + describe_common(u, n);
  });
  return out;
}

std::string describe_common(const Unit& u, const NodeRef& statement) {
  std::string out;
  for (const CseGroup& g : u.common_groups)
    if (g.statement == statement->id && g.shown)
      out += ";;     common: " + ir::to_sexpr(g.first, ir::PrintOptions{false, false, 0}) + " x" +
             std::to_string(g.uses) + "\n";
  return out;
}

}  // namespace ein
