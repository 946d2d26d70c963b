// Per-step scratch rows for recurrences (part of the row_fuse pass, lang/passes/row_fuse.h).
//
// A recurrence step whose contraction reads a costly function of the previous row,
//
//     h[t, j] = sum[k]({ let m = max[q](h[t - 1, q]); let s = ..; exp(h[t - 1, k] - m) / s }
//                      * W[k, j]) + x[t, j]
//
// (what row_step makes of `sum[k](softmax(h[t - 1])[k] * W[k, j])`), evaluates that function at
// every (j, k): H² exps per step where H are needed. The term's part that does not move with the
// store's innermost loop variable j but moves with k becomes a block-local array over k,
//
//     h[t, j] = { let r[k'] = { .. exp(h[t - 1, k'] - m) / s }; sum[k](r[k] * W[k, j]) + x[t, j] }
//
// computed once per step (the interpreter's memo keeps it per t; native kernels fill it in
// per-thread scratch before the j loop, engine/codegen/gen_local.cpp). Same operations on the
// same operands: the same values. Only for recurrences (the part reads the tensor being written,
// at an earlier row of the store's own index): outside them the contraction planner already
// computes such an operand once, packed, for BLAS. The part must not be able to fail (it is then
// computed at every k, also where a guard of the reduction would have skipped it), its range
// must start at 0 and not move with j.
#include <functional>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/point_nest.h"
#include "lang/passes/row_fuse.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

class Hoister {
 public:
  Hoister(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  // The store's value with its hoistable parts in block-local arrays, or null.
  NodeRef store_value(const NodeRef& store, DefId innermost) {
    store_ = store;
    jv_ = innermost;
    locals_.clear();
    NodeRef v = rewrite(ir::lstore_value(store));
    if (locals_.empty()) return nullptr;
    auto t = u_.types.find(ir::lstore_value(store)->id);
    locals_.push_back(v);
    return typed(ir::make({.kind = Kind::Block, .span = v->span, .kids = std::move(locals_), .flags = ir::kHasTail}),
                 t != u_.types.end() ? t->second : nullptr);
  }

 private:
  CompileCtx& cx_;
  Unit& u_;
  NodeRef store_;
  DefId jv_;
  std::vector<NodeRef> locals_;

  NodeRef typed(NodeRef n, ir::TypeRef t) {
    if (t) u_.types[n->id] = std::move(t);
    return n;
  }

  bool proven(const NodeRef& x) const { return x->has(ir::kProven) || u_.proven.count(x->id) > 0; }

  // A read of the tensor being written at `v - c` (c >= 1) where the store writes `v`.
  bool earlier_row(const NodeRef& x) const {
    const ir::Kids at = ir::lstore_index(store_);
    const ir::Kids args = ir::index_args(x);
    for (size_t a = 0; a < at.size() && a < args.size(); ++a) {
      const NodeRef &w = at[a], &r = args[a];
      if (w->kind != Kind::Name || r->kind != Kind::Binary || static_cast<ir::BinOp>(r->ival) != ir::BinOp::Sub) continue;
      const NodeRef &v = ir::bin_lhs(*r), &c = ir::bin_rhs(*r);
      if (v->kind == Kind::Name && v->def == w->def && c->kind == Kind::IntLit && c->ival >= 1) return true;
    }
    return false;
  }

  // Costly, reads the output only at earlier rows (and does so at least once), and cannot fail
  // but by a read out of bounds: the array is filled at the points k the reduction visits at every
  // j anyway, so only such a read under a condition (a guard, a branch) must be proven.
  bool hoistable(const NodeRef& e, DefId k, const std::unordered_set<DefId>& bound_inside, bool conditional) const {
    if (!ir::mentions(e, k) || ir::mentions(e, jv_)) return false;
    bool costly = false, ok = true, recurrent = false;
    std::unordered_set<DefId> own;
    ir::for_each_node(e, [&](const NodeRef& x) {
      if (x->kind == Kind::PBind || x->kind == Kind::LoopVar || x->kind == Kind::LLetIn) own.insert(x->def);
    });
    ir::for_each_node(e, [&](const NodeRef& x) {
      switch (x->kind) {
        case Kind::Name:
          if (x->def != k && bound_inside.count(x->def) && !own.count(x->def)) ok = false;
          break;
        case Kind::Index:
          if (ir::index_base(x)->kind == Kind::Name && ir::index_base(x)->def == store_->def) {
            if (!earlier_row(x)) ok = false;
            recurrent = true;
          }
          ok = ok && (proven(x) || !conditional);
          break;
        case Kind::Call:
          costly = true;
          ok = ok && !u_.call_targets.count(x->id);
          break;
        case Kind::LReduce: {
          costly = true;
          auto t = u_.types.find(x->id);
          const bool fl = t != u_.types.end() && t->second && ir::is_scalar(t->second) && is_float(t->second->dtype);
          ok = ok && (x->name == "sum" || ((x->name == "max" || x->name == "min") && fl));
          break;
        }
        case Kind::LCheck:
        case Kind::LTensor:
        case Kind::LGuard: ok = false; break;
        case Kind::Binary: {
          auto op = static_cast<ir::BinOp>(x->ival);
          if (op == ir::BinOp::Div || op == ir::BinOp::Mod || op == ir::BinOp::Pow) {
            costly = true;
            auto t = u_.types.find(x->id);
            if (t == u_.types.end() || !t->second || !ir::is_scalar(t->second) || !is_float(t->second->dtype)) ok = false;
          }
          break;
        }
        default: break;
      }
    });
    return ok && costly && recurrent;
  }

  // Descends to reductions over one variable that move with j; hoists their maximal parts.
  NodeRef rewrite(const NodeRef& n) {
    struct Walk : ir::Mutator {
      Hoister* h;
      std::unordered_set<DefId> bound;  // defs bound inside the store's value around here
      NodeRef pre(const NodeRef& x) override {
        if (x->kind != Kind::LReduce) return nullptr;
        const ir::Kids items = ir::lreduce_items(x);
        if (items.size() != 1 || items[0]->kind != Kind::LoopVar || !ir::mentions(x, h->jv_)) return nullptr;
        const NodeRef& kv = items[0];
        const NodeRef &lo = ir::loopvar_lo(*kv), &hi = ir::loopvar_hi(*kv);
        if (lo->kind != Kind::IntLit || lo->ival != 0 || ir::mentions(hi, h->jv_)) return nullptr;
        for (DefId d : bound)
          if (ir::mentions(hi, d)) return nullptr;
        std::unordered_set<DefId> inside = bound;
        ir::for_each_node(ir::lreduce_body(x), [&](const NodeRef& y) {
          if (y->kind == Kind::PBind || y->kind == Kind::LoopVar || y->kind == Kind::LLetIn) inside.insert(y->def);
        });
        NodeRef body = h->hoist_in(ir::lreduce_body(x), kv, inside, false);
        if (body == ir::lreduce_body(x)) return nullptr;
        std::vector<NodeRef> kids = x->kids;
        kids[0] = body;
        return ir::with_kids(x, std::move(kids));
      }
      NodeRef post(const NodeRef& x) override {
        if (x->kind == Kind::PBind || x->kind == Kind::LLetIn) bound.insert(x->def);
        return x;
      }
    } w;
    w.h = this;
    ir::for_each_node(n, [&](const NodeRef& y) {
      if (y->kind == Kind::PBind || y->kind == Kind::LLetIn || y->kind == Kind::LoopVar) w.bound.insert(y->def);
    });
    return w.mutate(n);
  }

  // e with its maximal hoistable subexpressions replaced by reads of new block-local arrays.
  NodeRef hoist_in(const NodeRef& e, const NodeRef& kv, const std::unordered_set<DefId>& inside, bool conditional) {
    const DefId k = kv->def;
    if (hoistable(e, k, inside, conditional)) return local_for(e, kv);
    if (e->kind == Kind::LReduce || e->kind == Kind::Block || e->kind == Kind::LLetIn) return e;
    const bool logic = e->kind == Kind::Binary && (static_cast<ir::BinOp>(e->ival) == ir::BinOp::And ||
                                                   static_cast<ir::BinOp>(e->ival) == ir::BinOp::Or);
    const bool branch = conditional || logic || e->kind == Kind::If || e->kind == Kind::LGuard;
    std::vector<NodeRef> kids;
    bool changed = false;
    for (const NodeRef& c : e->kids) {
      kids.push_back(c ? hoist_in(c, kv, inside, branch) : c);
      changed = changed || kids.back() != c;
    }
    return changed ? ir::with_kids(e, std::move(kids)) : e;
  }

  NodeRef local_for(const NodeRef& e, const NodeRef& kv) {
    auto et = u_.types.find(e->id);
    if (et == u_.types.end() || !et->second || !ir::is_scalar(et->second)) return e;
    const DType dt = et->second->dtype;
    const DefId r = cx_.resolver.new_def("row", DefKind::Local, e->span);
    u_.def_types[r] = ir::t_array(ir::t_scalar(dt), 1);
    const DefId k2 = cx_.resolver.new_def(kv->name, DefKind::Index, kv->span);
    auto kt = u_.def_types.find(kv->def);
    const ir::TypeRef ktype = kt != u_.def_types.end() ? kt->second : ir::t_i32();
    u_.def_types[k2] = ktype;
    // The fill: r[k2] = e with k read as k2.
    struct Sub : ir::Mutator {
      DefId from;
      std::function<NodeRef()> to;
      NodeRef pre(const NodeRef& x) override { return x->kind == Kind::Name && x->def == from ? to() : nullptr; }
    } sub;
    sub.from = kv->def;
    sub.to = [&] { return typed(irb::ref(kv->name, k2, kv->span), ktype); };
    NodeRef value = sub.mutate(copy_with_facts(u_, e));
    NodeRef st = ir::make({.kind = Kind::LStore, .span = e->span, .kids = {value, sub.to()}, .name = "row", .def = r});
    NodeRef loop = ir::make({.kind = Kind::LFor, .span = kv->span,
                             .kids = {copy_with_facts(u_, ir::loopvar_lo(*kv)), copy_with_facts(u_, ir::loopvar_hi(*kv)), st},
                             .name = kv->name, .def = k2, .flags = ir::kParallel});
    NodeRef shape = ir::make({.kind = Kind::LShape, .span = e->span, .kids = {copy_with_facts(u_, ir::loopvar_hi(*kv))}});
    locals_.push_back(typed(ir::make({.kind = Kind::LTensor, .span = e->span, .kids = {shape, loop}, .name = "row", .def = r,
                                      .ival = static_cast<int64_t>(dt)}),
                            u_.def_types[r]));
    NodeRef base = typed(irb::ref("row", r, e->span), u_.def_types[r]);
    NodeRef kref = typed(irb::ref(kv->name, kv->def, kv->span), ktype);
    return typed(ir::make({.kind = Kind::Index, .span = e->span, .kids = {base, kref}, .flags = ir::kProven}),
                 et->second);
  }
};

}  // namespace

NodeRef row_hoist(CompileCtx& cx, Unit& u, const NodeRef& root) {
  // Stores of recurrences: their clause has a sequential loop around them.
  struct Walk : ir::Mutator {
    Hoister* h;
    std::vector<NodeRef> loops;
    NodeRef pre(const NodeRef& x) override {
      if (x->kind == Kind::LFor) {
        loops.push_back(x);
        std::vector<NodeRef> kids;
        for (const NodeRef& c : x->kids) kids.push_back(mutate(c));
        loops.pop_back();
        return ir::with_kids(x, std::move(kids));
      }
      if (x->kind != Kind::LStore || loops.size() < 2) return nullptr;
      bool seq = false;
      for (const NodeRef& l : loops) seq = seq || l->has(ir::kSequential);
      if (!seq || loops.back()->has(ir::kSequential)) return nullptr;
      NodeRef v = h->store_value(x, loops.back()->def);
      if (!v) return nullptr;
      std::vector<NodeRef> kids = x->kids;
      kids[0] = v;
      return ir::with_kids(x, std::move(kids));
    }
  } w;
  Hoister h(cx, u);
  w.h = &h;
  return w.mutate(root);
}

}  // namespace ein
