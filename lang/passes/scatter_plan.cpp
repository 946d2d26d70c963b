#include "lang/passes/scatter_plan.h"

#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/point_nest.h"
#include "lang/ir/reduce_op.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

using DefSet = std::unordered_set<DefId>;

bool mentions_any(const NodeRef& n, const DefSet& defs) {
  bool hit = false;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::Name && defs.count(x->def)) hit = true;
  });
  return hit;
}

bool is_binop(const NodeRef& n, ir::BinOp op) {
  return n && n->kind == Kind::Binary && static_cast<ir::BinOp>(n->ival) == op;
}

void split_and(const NodeRef& c, std::vector<NodeRef>& out) {
  if (is_binop(c, ir::BinOp::And)) {
    split_and(ir::bin_lhs(c), out);
    split_and(ir::bin_rhs(c), out);
  } else {
    out.push_back(c);
  }
}

// The `sum` reductions a stored value adds up (`sum[..](..) + sum[..](..)`), or false.
bool sum_leaves(const NodeRef& v, std::vector<NodeRef>& out) {
  if (is_binop(v, ir::BinOp::Add)) return sum_leaves(ir::bin_lhs(v), out) && sum_leaves(ir::bin_rhs(v), out);
  if (v->kind != Kind::LReduce || v->name != "sum") return false;
  out.push_back(v);
  return true;
}

// The declaration's loop nest and store, as found.
struct Nest {
  std::vector<NodeRef> loops;  // outermost first
  NodeRef store;
  DefSet decl;
  std::unordered_map<DefId, NodeRef> loop_of;
};

class Planner : public ir::Mutator {
 public:
  Planner(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::LTensor) return n;
    NodeRef r = plan(n);
    return r ? r : n;
  }

 private:
  std::optional<Nest> nest_of(const NodeRef& t, NodeRef& clause) {
    if (static_cast<DType>(t->ival) == DType::Bool) return std::nullopt;
    auto pn = point_nest(t);
    if (!pn) return std::nullopt;
    clause = pn->clause;
    Nest n;
    n.loops = pn->loops;
    n.store = pn->store;
    n.decl = pn->decl;
    for (const NodeRef& l : n.loops) n.loop_of[l->def] = l;
    return n;
  }

  static bool zero_literal(const NodeRef& e) {
    return (e->kind == Kind::FloatLit && e->fval == 0.0) || (e->kind == Kind::IntLit && e->ival == 0);
  }

  NodeRef typed(NodeRef n, ir::TypeRef t) {
    u_.types[n->id] = std::move(t);
    return n;
  }

  NodeRef var_ref(const std::string& name, DefId d) {
    auto it = u_.def_types.find(d);
    return typed(irb::ref(name, d), it != u_.def_types.end() ? it->second : ir::t_i32());
  }

  NodeRef both(const NodeRef& a, const NodeRef& b) {
    if (!a) return b;
    return typed(ir::make_binary(ir::BinOp::And, a, b, b->span), ir::t_bool());
  }

  // lo <= k < hi, compared as i64 (the key may be i64, the bounds i32 literals).
  NodeRef in_range(const NodeRef& k, const NodeRef& loop) {
    NodeRef ge = typed(ir::make_binary(ir::BinOp::Ge, irb::wide(k), irb::wide(ir::lfor_lo(loop))), ir::t_bool());
    NodeRef lt = typed(ir::make_binary(ir::BinOp::Lt, irb::wide(k), irb::wide(ir::lfor_hi(loop))), ir::t_bool());
    return both(ge, lt);
  }

  NodeRef seq(std::vector<NodeRef> stmts) {
    if (stmts.size() == 1) return stmts[0];
    return ir::make({.kind = Kind::LSeq, .kids = std::move(stmts)});
  }

  NodeRef relooped(const NodeRef& loop, NodeRef body, uint32_t flags) {
    return ir::make({.kind = Kind::LFor, .span = loop->span, .kids = {ir::lfor_lo(loop), ir::lfor_hi(loop), std::move(body)},
                     .name = loop->name, .def = loop->def, .flags = flags});
  }

  // One `sum` term as a single pass over its domain adding into `target`; null when the term
  // does not have the form (scatter_plan.h).
  NodeRef scatter_term(const NodeRef& leaf, const Nest& n, DefId target, const std::string& target_name,
                       ir::ReduceOp op = ir::ReduceOp::Sum) {
    std::vector<NodeRef> lvs;
    for (const NodeRef& it : ir::lreduce_items(leaf)) {
      if (it->kind != Kind::LoopVar || mentions_any(it, n.decl)) return nullptr;
      lvs.push_back(it);
    }
    if (lvs.empty()) return nullptr;
    std::vector<NodeRef> chain;
    NodeRef v = ir::lreduce_body(leaf);
    for (;;) {
      // `v where c else 0` adds 0 where `c` fails, which changes no sum: the guard `v where c`.
      if (op == ir::ReduceOp::Sum && v->kind == Kind::If && ir::if_else(*v) && zero_literal(ir::if_else(*v)) &&
          ir::if_then(*v)->kind != Kind::Block)
        v = ir::make({.kind = Kind::LGuard, .span = v->span, .kids = {ir::if_cond(*v), ir::if_then(*v)}});
      if (v->kind != Kind::LGuard && v->kind != Kind::LLetIn) break;
      chain.push_back(v);
      v = v->kind == Kind::LGuard ? ir::lguard_value(v) : ir::lletin_body(v);
    }
    std::unordered_map<DefId, NodeRef> key_of;
    // Per guard, its conjuncts in order, each with the index it keys (invalid: a plain test).
    std::unordered_map<uint32_t, std::vector<std::pair<NodeRef, DefId>>> conj_at;
    std::unordered_map<uint32_t, std::vector<NodeRef>> rest_at;
    for (const NodeRef& g : chain) {
      if (g->kind != Kind::LGuard) continue;
      std::vector<NodeRef> conj;
      split_and(ir::lguard_cond(g), conj);
      for (const NodeRef& c : conj) {
        NodeRef b, key;
        if (is_binop(c, ir::BinOp::Eq)) {
          // The index may be widened to compare with an i64 key (`seg[i] == g as i64`): exact.
          auto index_of = [&](const NodeRef& x) {
            auto t = u_.types.find(x->id);
            bool to_i64 = x->kind == Kind::Cast && t != u_.types.end() && ir::is_scalar(t->second) &&
                          t->second->dtype == DType::I64;
            return to_i64 ? ir::cast_expr(x) : x;
          };
          const NodeRef l = index_of(ir::bin_lhs(c)), r = index_of(ir::bin_rhs(c));
          if (l->kind == Kind::Name && n.decl.count(l->def) && !mentions_any(r, {l->def})) b = l, key = r;
          else if (r->kind == Kind::Name && n.decl.count(r->def) && !mentions_any(l, {r->def})) b = r, key = l;
        }
        auto kt = key ? u_.types.find(key->id) : u_.types.end();
        bool int_key = kt != u_.types.end() && ir::is_scalar(kt->second) && is_int(kt->second->dtype);
        if (b && int_key && !key_of.count(b->def)) {
          key_of[b->def] = key;
          conj_at[g->id].emplace_back(c, b->def);
        } else {
          rest_at[g->id].push_back(c);
          conj_at[g->id].emplace_back(c, DefId{});
        }
      }
    }
    if (key_of.empty()) return nullptr;
    DefSet keyed, unkeyed;
    for (auto& [b, k] : key_of) keyed.insert(b);
    for (DefId d : n.decl)
      if (!keyed.count(d)) unkeyed.insert(d);
    // Everything but the keys' own tests must be free of the keyed indices; parts other than the
    // summed value that read an unkeyed index put its loop outside the pass over the domain.
    // A key may read an unkeyed index (`idx[m0, k] == m1`, the adjoint of `x[n, idx[n, k]]`):
    // that index's loop then runs outside the pass, so each of its iterations adds into its own
    // points. Keys never read a keyed index.
    bool unkeyed_outer = false;
    for (auto& [b, key] : key_of) {
      if (mentions_any(key, keyed)) return nullptr;
      if (mentions_any(key, unkeyed)) unkeyed_outer = true;
    }
    for (const NodeRef& g : chain) {
      std::vector<NodeRef> parts;
      if (g->kind == Kind::LLetIn) parts.push_back(ir::lletin_value(g));
      else parts = rest_at[g->id];
      for (const NodeRef& p : parts) {
        if (mentions_any(p, keyed)) return nullptr;
        if (mentions_any(p, unkeyed)) unkeyed_outer = true;
      }
    }
    if (mentions_any(v, keyed)) return nullptr;

    std::unordered_map<DefId, DefId> local;  // keyed index -> the local holding its key
    for (auto& [b, key] : key_of) {
      DefId k = cx_.resolver.new_def("key_" + n.loop_of.at(b)->name, DefKind::Local, key->span);
      u_.def_types[k] = u_.types.at(key->id);
      local[b] = k;
    }
    std::vector<NodeRef> kids{v};
    for (const NodeRef& x : ir::lstore_index(n.store))
      kids.push_back(keyed.count(x->def) ? var_ref("key_" + x->name, local[x->def]) : var_ref(x->name, x->def));
    NodeRef body = ir::make({.kind = Kind::LAccum, .span = n.store->span, .kids = std::move(kids), .name = target_name,
                             .def = target, .ival = static_cast<int64_t>(op)});
    auto wrap_unkeyed = [&](NodeRef b, uint32_t flags_mask) {
      for (auto it = n.loops.rbegin(); it != n.loops.rend(); ++it)
        if (unkeyed.count((*it)->def)) b = relooped(*it, b, (*it)->flags & flags_mask);
      return b;
    };
    if (!unkeyed_outer) body = wrap_unkeyed(body, ir::kParallel);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const NodeRef& g = *it;
      if (g->kind == Kind::LLetIn) {
        NodeRef let = ir::make({.kind = Kind::LLet, .span = g->span, .kids = {ir::lletin_value(g)}, .name = g->name, .def = g->def});
        body = seq({let, body});
        continue;
      }
      // Left to right, as `&&` evaluates: a key is computed only where the tests before it
      // held (`where i > 0, idx[i - 1] == b` never reads idx[-1]), then tested with the ones after.
      const auto& conj = conj_at[g->id];
      std::vector<NodeRef> after;  // plain tests between this point and the next key
      auto wrap_if = [&](NodeRef first) {
        NodeRef cond = first;
        for (const NodeRef& c : after) cond = both(cond, c);
        if (cond) body = ir::make({.kind = Kind::LIf, .span = g->span, .kids = {cond, body}});
        after.clear();
      };
      for (auto c = conj.rbegin(); c != conj.rend(); ++c) {
        if (!c->second.valid()) {
          after.insert(after.begin(), c->first);
          continue;
        }
        const DefId b = c->second;
        const NodeRef& key = key_of[b];
        wrap_if(in_range(var_ref("key_" + n.loop_of.at(b)->name, local[b]), n.loop_of.at(b)));
        NodeRef let = ir::make({.kind = Kind::LLet, .span = key->span, .kids = {key}, .name = "key_" + n.loop_of.at(b)->name,
                                .def = local[b]});
        body = seq({let, body});
      }
      wrap_if(nullptr);
    }
    for (auto it = lvs.rbegin(); it != lvs.rend(); ++it)
      body = ir::make({.kind = Kind::LFor, .span = (*it)->span,
                       .kids = {ir::loopvar_lo(*it), ir::loopvar_hi(*it), body}, .name = (*it)->name,
                       .def = (*it)->def, .flags = ir::kSequential});
    if (unkeyed_outer) body = wrap_unkeyed(body, ~0u);
    return body;
  }

  NodeRef plan(const NodeRef& t) {
    NodeRef clause;
    auto n = nest_of(t, clause);
    if (!n) return nullptr;
    const NodeRef& value = ir::lstore_value(n->store);
    if (value->kind == Kind::LReduce && (value->name == "max" || value->name == "min"))
      return plan_extremum(t, clause, *n, value);
    std::vector<NodeRef> leaves;
    if (!sum_leaves(value, leaves)) return nullptr;
    const auto dt = static_cast<DType>(t->ival);
    // Narrow float sums accumulate in f64 and round once, like the reductions they replace.
    const bool scratch = dt == DType::F32 || dt == DType::F16 || dt == DType::BF16;
    DefId target = t->def;
    std::string target_name = t->name;
    if (scratch) {
      target = cx_.resolver.new_def(t->name + "_acc", DefKind::Local, t->span);
      target_name = t->name + "_acc";
    }
    std::vector<NodeRef> passes;
    for (const NodeRef& leaf : leaves) {
      NodeRef s = scatter_term(leaf, *n, target, target_name);
      if (!s) return nullptr;
      passes.push_back(s);
    }
    std::vector<NodeRef> replacement;
    std::string what = "scatter: " + std::to_string(leaves.size()) +
                       (leaves.size() == 1 ? " sum walks its domain once" : " sums walk their domains once") +
                       ", adding each term at the point its key names (instead of once per point)";
    if (!scratch) {
      replacement = std::move(passes);
    } else {
      const int rank = static_cast<int>(n->loops.size());
      NodeRef shape = ir::fresh_copy(ir::ltensor_shape(t));
      std::vector<NodeRef> sk{shape};
      for (auto& p : passes) sk.push_back(p);
      NodeRef S = ir::make({.kind = Kind::LTensor, .span = t->span, .kids = std::move(sk), .name = target_name,
                            .def = target, .ival = static_cast<int64_t>(DType::F64)});
      ir::TypeRef st = ir::t_array(ir::t_scalar(DType::F64), rank);
      u_.types[S->id] = st;
      u_.def_types[target] = st;
      // T[b, ..] = T_acc[b, ..]: the one rounding.
      std::vector<NodeRef> rk{irb::ref(target_name, target)};
      u_.types[rk[0]->id] = st;
      for (const NodeRef& x : ir::lstore_index(n->store)) rk.push_back(var_ref(x->name, x->def));
      NodeRef read = typed(ir::make({.kind = Kind::Index, .span = n->store->span, .kids = std::move(rk)}),
                           ir::t_scalar(DType::F64));
      std::vector<NodeRef> stk(n->store->kids.begin(), n->store->kids.end());
      stk[0] = read;
      NodeRef copy = ir::make({.kind = Kind::LStore, .span = n->store->span, .kids = std::move(stk), .name = t->name,
                               .def = t->def});
      for (auto it = n->loops.rbegin(); it != n->loops.rend(); ++it) copy = relooped(*it, copy, (*it)->flags);
      replacement = {S, copy};
      what += " into the f64 scratch `" + target_name + "`, rounded once";
    }
    return clause_replaced(t, clause, replacement, what);
  }

  // The store of the declaration's nest with another value (and target), around its loops.
  NodeRef nest_store(const Nest& n, const NodeRef& value, DefId target, const std::string& target_name,
                     uint32_t flags_mask = ~0u) {
    std::vector<NodeRef> stk(n.store->kids.begin(), n.store->kids.end());
    stk[0] = value;
    NodeRef st = ir::make({.kind = Kind::LStore, .span = n.store->span, .kids = std::move(stk), .name = target_name,
                           .def = target});
    for (auto it = n.loops.rbegin(); it != n.loops.rend(); ++it) st = relooped(*it, st, (*it)->flags & flags_mask);
    return st;
  }

  // `m[b] = max[i](x[i] where key[i] == b)` (or min): every point starts at the identity (-inf
  // or +inf) and one pass over the domain keeps, at the point each key names, the larger (or
  // smaller) of what it holds and the term, with the reduction's own rule (the first NaN
  // wins). Same terms, same order, same result as the per-point reduction, empty segments
  // included (SPEC §5.3: +-inf for floats). Integers (i8/i32) go through an i64 scratch whose
  // identity no term can equal, so an empty segment is still E006 at the reduction, reported at
  // the first such point in order, as before; i64 keeps the per-point form.
  NodeRef plan_extremum(const NodeRef& t, const NodeRef& clause, const Nest& n, const NodeRef& leaf) {
    const auto dt = static_cast<DType>(t->ival);
    const bool fl = is_float(dt);
    if (!fl && dt != DType::I32 && dt != DType::I8) return nullptr;
    const ir::ReduceOp op = leaf->name == "max" ? ir::ReduceOp::Max : ir::ReduceOp::Min;
    const bool mx = op == ir::ReduceOp::Max;
    DefId target = t->def;
    std::string target_name = t->name;
    if (!fl) {
      target = cx_.resolver.new_def(t->name + "_acc", DefKind::Local, t->span);
      target_name = t->name + "_acc";
    }
    NodeRef pass = scatter_term(leaf, n, target, target_name, op);
    if (!pass) return nullptr;
    std::string what = std::string("scatter: 1 ") + leaf->name +
                       " walks its domain once, keeping at the point its key names the " + (mx ? "larger" : "smaller") +
                       " of what it holds and each term (points start at " + (mx ? "-inf" : "+inf");
    if (fl) {
      NodeRef id = typed(ir::make({.kind = Kind::FloatLit, .span = leaf->span,
                                   .fval = mx ? -std::numeric_limits<double>::infinity()
                                              : std::numeric_limits<double>::infinity()}),
                         ir::t_scalar(dt));
      return clause_replaced(t, clause, {nest_store(n, id, target, target_name), pass}, what + ")");
    }
    const int64_t none = mx ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    auto sentinel = [&] { return typed(irb::lit(none), ir::t_scalar(DType::I64)); };
    const int rank = static_cast<int>(n.loops.size());
    ir::TypeRef st = ir::t_array(ir::t_scalar(DType::I64), rank);
    u_.def_types[target] = st;
    NodeRef S = ir::make({.kind = Kind::LTensor, .span = t->span,
                          .kids = {ir::fresh_copy(ir::ltensor_shape(t)), nest_store(n, sentinel(), target, target_name), pass},
                          .name = target_name, .def = target, .ival = static_cast<int64_t>(DType::I64)});
    u_.types[S->id] = st;
    // T[b, ..] = T_acc[b, ..], after checking that some term reached b: in point order, so the
    // first empty point is the one reported (parallel kernels report the first in order too).
    auto read = [&] {
      std::vector<NodeRef> rk{irb::ref(target_name, target)};
      u_.types[rk[0]->id] = st;
      for (const NodeRef& x : ir::lstore_index(n.store)) rk.push_back(var_ref(x->name, x->def));
      return typed(ir::make({.kind = Kind::Index, .span = n.store->span, .kids = std::move(rk)}), ir::t_scalar(DType::I64));
    };
    NodeRef reached = typed(ir::make_binary(ir::BinOp::Ne, read(), sentinel(), leaf->span), ir::t_bool());
    NodeRef check = irb::check("E006", leaf->name + " over an empty range of integers", "", reached, leaf->span);
    std::vector<NodeRef> stk(n.store->kids.begin(), n.store->kids.end());
    stk[0] = read();
    NodeRef body = ir::make({.kind = Kind::LSeq,
                             .kids = {check, ir::make({.kind = Kind::LStore, .span = n.store->span, .kids = std::move(stk),
                                                       .name = t->name, .def = t->def})}});
    for (auto it = n.loops.rbegin(); it != n.loops.rend(); ++it) body = relooped(*it, body, (*it)->flags);
    return clause_replaced(t, clause, {S, body}, what + "; i64 scratch `" + target_name + "`, E006 where no term arrives)");
  }

  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void scatter_plan(CompileCtx& cx) { rewrite_lowered<Planner>(cx); }

}  // namespace ein
