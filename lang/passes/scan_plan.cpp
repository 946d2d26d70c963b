#include "lang/passes/scan_plan.h"

#include <functional>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/point_nest.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

using ir::mentions;

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
  NodeRef typed(NodeRef n, ir::TypeRef t) {
    u_.types[n->id] = std::move(t);
    return n;
  }

  NodeRef var_ref(const std::string& name, DefId d) {
    auto it = u_.def_types.find(d);
    return typed(irb::ref(name, d), it != u_.def_types.end() ? it->second : ir::t_i32());
  }

  static NodeRef loop(const NodeRef& l, NodeRef lo, NodeRef hi, NodeRef body, uint32_t flags) {
    return ir::make({.kind = Kind::LFor, .span = l->span, .kids = {std::move(lo), std::move(hi), std::move(body)},
                     .name = l->name, .def = l->def, .flags = flags});
  }

  NodeRef copy_typed(const NodeRef& n) { return copy_with_facts(u_, n); }

  // n with every reference to d replaced by `by` (fresh nodes on the way, typed as before).
  NodeRef substituted(const NodeRef& n, DefId d, const NodeRef& by) {
    struct Sub : ir::Mutator {
      DefId d;
      NodeRef by;
      NodeRef pre(const NodeRef& x) override { return x->kind == Kind::Name && x->def == d ? by : nullptr; }
    } m;
    m.d = d;
    m.by = by;
    return m.mutate(n);
  }

  // One step of a max/min/prod fold: `prev` holds the points already folded, `term` the new one.
  // A product multiplies in the reduction's order (prefix) or from the other end (suffix, as
  // the sum). max/min keep the reduction's exact result: the first NaN wins, and among equal
  // values the one at the lowest k (so a walk down takes the new term on ties, a walk up keeps
  // the old point; 0.0 and -0.0 stay apart as in the reduction). The term is bound once.
  NodeRef step(const std::string& op, const NodeRef& prev, const NodeRef& term, bool reverse, DType dt, Span sp) {
    const ir::TypeRef st = ir::t_scalar(dt), bt = ir::t_bool();
    if (op == "prod") return typed(ir::make_binary(ir::BinOp::Mul, prev, term, sp), st);
    DefId d = cx_.resolver.new_def("scan_term", DefKind::Local, sp);
    u_.def_types[d] = st;
    auto tv = [&] { return typed(irb::ref("scan_term", d), st); };
    auto pv = [&] { return copy_typed(prev); };
    auto bin = [&](ir::BinOp o, NodeRef a, NodeRef b) { return typed(ir::make_binary(o, std::move(a), std::move(b), sp), bt); };
    const bool mx = op == "max";
    const ir::BinOp beats = reverse ? (mx ? ir::BinOp::Ge : ir::BinOp::Le) : (mx ? ir::BinOp::Gt : ir::BinOp::Lt);
    NodeRef take = bin(beats, tv(), pv());
    if (is_float(dt)) {
      NodeRef tnan = bin(ir::BinOp::Ne, tv(), tv()), pok = bin(ir::BinOp::Eq, pv(), pv());
      // Walking up: the old point's NaN came first; walking down: the new term's does.
      take = reverse ? bin(ir::BinOp::Or, tnan, bin(ir::BinOp::And, pok, take))
                     : bin(ir::BinOp::And, pok, bin(ir::BinOp::Or, tnan, take));
    }
    NodeRef pick = typed(ir::make({.kind = Kind::If, .span = sp, .kids = {take, tv(), pv()}}), st);
    return typed(ir::make({.kind = Kind::LLetIn, .span = sp, .kids = {term, pick}, .name = "scan_term", .def = d}), st);
  }

  NodeRef plan(const NodeRef& t) {
    if (!t->aux.empty()) return nullptr;
    const auto dt = static_cast<DType>(t->ival);
    if (dt == DType::Bool) return nullptr;
    auto pn = point_nest(t);
    if (!pn) return nullptr;
    const NodeRef clause = pn->clause, store = pn->store;
    const std::vector<NodeRef>& loops = pn->loops;
    const std::unordered_set<DefId>& decl = pn->decl;
    const ir::Kids idx = ir::lstore_index(store);
    const NodeRef& r = ir::lstore_value(store);
    if (r->kind != Kind::LReduce) return nullptr;
    // max/min/prod: a fold whose step is not `+` (cumulative maxima, running products).
    const bool additive = r->name == "sum";
    if (!additive && r->name != "max" && r->name != "min" && r->name != "prod") return nullptr;
    const ir::Kids items = ir::lreduce_items(r);
    if (items.size() != 1 || items[0]->kind != Kind::LoopVar) return nullptr;
    const NodeRef& kv = items[0];
    // The range's end is `j` or `j + c` for a declaration index j (c free of every declaration
    // index), its start free of j: a prefix, walked forward. Or the start is `j` / `j + c` and the
    // end free of j: a suffix (the adjoint of a prefix sum), walked backward.
    auto moving = [&](const NodeRef& e, NodeRef& jn, NodeRef& c) {
      if (e->kind == Kind::Name && decl.count(e->def)) {
        jn = e;
      } else if (e->kind == Kind::Binary && static_cast<ir::BinOp>(e->ival) == ir::BinOp::Add) {
        const NodeRef &x = ir::bin_lhs(e), &y = ir::bin_rhs(e);
        if (x->kind == Kind::Name && decl.count(x->def)) jn = x, c = y;
        else if (y->kind == Kind::Name && decl.count(y->def)) jn = y, c = x;
      }
      if (jn && c)
        for (DefId d : decl)
          if (mentions(c, d)) jn = nullptr;
      return jn != nullptr;
    };
    const NodeRef& hi = ir::loopvar_hi(*kv);
    const NodeRef& klo = ir::loopvar_lo(*kv);
    NodeRef jn, c;
    bool reverse = false;
    if (!moving(hi, jn, c)) {
      c = nullptr;
      if (!moving(klo, jn, c)) return nullptr;
      reverse = true;
    }
    const DefId j = jn->def;
    const NodeRef& fixed = reverse ? hi : klo;
    if (mentions(fixed, j) || mentions(ir::lreduce_body(r), j) || mentions(ir::lreduce_body(r), t->def) ||
        mentions(fixed, t->def))
      return nullptr;
    size_t jp = 0;
    while (loops[jp]->def != j) ++jp;
    const NodeRef& jl = loops[jp];

    // Narrow float sums accumulate in f64 (docs/jit.md): the recurrence runs in an f64 scratch.
    const bool scratch = additive && (dt == DType::F32 || dt == DType::F16 || dt == DType::BF16);
    const DType acc_dt = scratch ? DType::F64 : dt;
    DefId target = t->def;
    std::string target_name = t->name;
    const int rank = static_cast<int>(loops.size());
    ir::TypeRef at = ir::t_array(ir::t_scalar(acc_dt), rank);
    if (scratch) {
      target = cx_.resolver.new_def(t->name + "_run", DefKind::Local, t->span);
      target_name = t->name + "_run";
      u_.def_types[target] = at;
    }
    auto store_into = [&](NodeRef value) {
      std::vector<NodeRef> k{std::move(value)};
      for (const NodeRef& x : idx) k.push_back(var_ref(x->name, x->def));
      return ir::make({.kind = Kind::LStore, .span = store->span, .kids = std::move(k), .name = target_name, .def = target});
    };
    auto nest = [&](NodeRef body, const NodeRef& jlo, const NodeRef& jhi, uint32_t jflags) {
      for (size_t a = loops.size(); a-- > 0;) {
        const NodeRef& l = loops[a];
        body = a == jp ? loop(l, jlo, jhi, body, jflags) : loop(l, ir::lfor_lo(l), ir::lfor_hi(l), body, l->flags);
      }
      return body;
    };
    auto reduce_over = [&](NodeRef body, NodeRef lo, NodeRef hi2) {
      NodeRef lv = ir::make({.kind = Kind::LoopVar, .span = kv->span, .kids = {std::move(lo), std::move(hi2)},
                             .name = kv->name, .def = kv->def});
      NodeRef red = ir::make({.kind = Kind::LReduce, .span = r->span, .kids = {std::move(body), lv}, .name = r->name});
      return typed(red, ir::t_scalar(acc_dt));
    };
    const NodeRef jlo = ir::lfor_lo(jl), jhi = ir::lfor_hi(jl);
    // The first point along j (the last one for a suffix), as written; then the rest from the
    // point before (after) it: prefix j in [j0 + 1, j1), suffix j in [j0, j1 - 1) walked down.
    const NodeRef j1 = irb::add(jlo, irb::lit(1)), jm = irb::imax(irb::sub(jhi, irb::lit(1)), jlo);
    // (Its range with j at that point: the one iteration of its loop, or none, so the work is
    // known statically.)
    const NodeRef jf = reverse ? jm : jlo;
    NodeRef whole = reduce_over(ir::lreduce_body(r), substituted(klo, j, jf), substituted(hi, j, jf));
    NodeRef first = reverse ? nest(store_into(whole), jm, jhi, jl->flags) : nest(store_into(whole), jlo, irb::imin(j1, jhi), jl->flags);
    NodeRef jref = var_ref(jl->name, j);
    const NodeRef& moved = reverse ? klo : hi;
    NodeRef end = c ? typed(ir::make_binary(ir::BinOp::Add, jref, copy_typed(c), moved->span),
                            u_.types.count(moved->id) ? u_.types.at(moved->id) : ir::t_i32())
                    : jref;
    // The one term the range gained: k = end - 1 for a prefix (none while the range is still
    // empty, `k in 0..j - 2`), k = start for a suffix (none once it is empty).
    NodeRef kt = reverse ? end : typed(irb::sub(end, irb::lit(1)), ir::t_i32());
    NodeRef tlo = reverse ? end : irb::imax(kt, copy_typed(klo));
    NodeRef thi = reverse ? irb::imin(typed(irb::add(end, irb::lit(1)), ir::t_i32()), copy_typed(hi)) : end;
    std::vector<NodeRef> pk{var_ref(target_name, target)};
    u_.types[pk[0]->id] = at;
    for (const NodeRef& x : idx)
      pk.push_back(x->def == j ? typed(reverse ? irb::add(var_ref(x->name, x->def), irb::lit(1))
                                               : irb::sub(var_ref(x->name, x->def), irb::lit(1)),
                                       ir::t_i32())
                               : var_ref(x->name, x->def));
    NodeRef prev = typed(ir::make({.kind = Kind::Index, .span = store->span, .kids = std::move(pk)}), ir::t_scalar(acc_dt));
    // When the new term always exists (known at compile time) it is the body at k, its guards
    // a select of 0: no inner loop, and the work is known statically. (prev + v is prev +
    // (0 + v), and prev + 0 is prev: the sum is never -0.)
    NodeRef term;
    const NodeRef body = copy_typed(ir::lreduce_body(r));
    auto j0 = fold_int(cx_, u_, jlo), jn1 = fold_int(cx_, u_, jhi), kl = fold_int(cx_, u_, klo), kh = fold_int(cx_, u_, hi);
    auto cc = c ? fold_int(cx_, u_, c) : std::optional<int64_t>(0);
    const bool always = reverse ? (jn1 && kh && cc && *jn1 - 2 + *cc < *kh) : (j0 && kl && cc && *j0 + *cc >= *kl);
    std::vector<NodeRef> conds;
    NodeRef v = body;
    while (v->kind == Kind::LGuard) {
      conds.push_back(ir::lguard_cond(v));
      v = ir::lguard_value(v);
    }
    bool plain = true;
    ir::for_each_node(v, [&](const NodeRef& x) { plain = plain && x->kind != Kind::LGuard && x->kind != Kind::LLetIn; });
    for (const NodeRef& cd : conds)
      ir::for_each_node(cd, [&](const NodeRef& x) { plain = plain && x->kind != Kind::LReduce; });
    if (plain && always) {
      auto at_k = [&](const NodeRef& e) { return substituted(e, kv->def, copy_typed(kt)); };
      term = at_k(v);
      auto bt = u_.types.find(v->id);
      const bool same = bt != u_.types.end() && ir::is_scalar(bt->second) && bt->second->dtype == acc_dt;
      if (!same) {
        NodeRef ty = ir::make({.kind = Kind::TyPrim, .span = v->span, .name = dtype_name(acc_dt)});
        term = typed(ir::make({.kind = Kind::Cast, .span = v->span, .kids = {term, ty}}), ir::t_scalar(acc_dt));
      }
      if (!conds.empty()) {
        NodeRef cond = at_k(conds[0]);
        for (size_t i = 1; i < conds.size(); ++i)
          cond = typed(ir::make_binary(ir::BinOp::And, cond, at_k(conds[i]), conds[i]->span), ir::t_bool());
        NodeRef zero = is_float(acc_dt) ? ir::make({.kind = Kind::FloatLit, .span = v->span, .fval = 0.0})
                                        : ir::make({.kind = Kind::IntLit, .span = v->span, .ival = 0});
        typed(zero, ir::t_scalar(acc_dt));
        term = typed(ir::make({.kind = Kind::If, .span = v->span, .kids = {cond, term, zero}}), ir::t_scalar(acc_dt));
      }
    } else if (additive) {
      term = reduce_over(body, tlo, thi);
    } else {
      return nullptr;  // a possibly empty or guarded new term has no identity to fall back on (E006)
    }
    if (!additive && !conds.empty()) return nullptr;
    NodeRef next = additive ? typed(ir::make_binary(ir::BinOp::Add, prev, term, r->span), ir::t_scalar(acc_dt))
                            : step(r->name, prev, term, reverse, acc_dt, r->span);
    uint32_t seq = (jl->flags & ~ir::kParallel) | ir::kSequential | (reverse ? ir::kReverse : 0u);
    NodeRef rest = reverse ? nest(store_into(next), jlo, jm, seq) : nest(store_into(next), j1, jhi, seq);
    std::string what = std::string("scan: the ") + r->name + " over a range " + (reverse ? "shrinking" : "growing") +
                       " with `" + jl->name + "` is the " + (reverse ? "next" : "previous") + " point " +
                       (additive ? "plus" : "combined with") + " the new term (a recurrence along `" + jl->name + "`" +
                       (reverse ? ", walked down" : "") + ")";
    std::vector<NodeRef> replacement;
    if (!scratch) {
      replacement = {first, rest};
    } else {
      NodeRef S = ir::make({.kind = Kind::LTensor, .span = t->span, .kids = {ir::fresh_copy(ir::ltensor_shape(t)), first, rest},
                            .name = target_name, .def = target, .ival = static_cast<int64_t>(acc_dt)});
      u_.types[S->id] = at;
      std::vector<NodeRef> rk{var_ref(target_name, target)};
      u_.types[rk[0]->id] = at;
      for (const NodeRef& x : idx) rk.push_back(var_ref(x->name, x->def));
      NodeRef read = typed(ir::make({.kind = Kind::Index, .span = store->span, .kids = std::move(rk)}), ir::t_scalar(acc_dt));
      std::vector<NodeRef> sk(store->kids.begin(), store->kids.end());
      sk[0] = read;
      NodeRef copy = ir::make({.kind = Kind::LStore, .span = store->span, .kids = std::move(sk), .name = t->name, .def = t->def});
      for (size_t a = loops.size(); a-- > 0;) copy = loop(loops[a], ir::lfor_lo(loops[a]), ir::lfor_hi(loops[a]), copy, loops[a]->flags);
      replacement = {S, copy};
      what += " in the f64 scratch `" + target_name + "`, rounded once per point";
    }
    return clause_replaced(t, clause, replacement, what);
  }

  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void scan_plan(CompileCtx& cx) { rewrite_lowered<Planner>(cx); }

}  // namespace ein
