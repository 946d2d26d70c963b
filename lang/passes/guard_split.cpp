#include "lang/passes/guard_split.h"

#include <functional>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/point_nest.h"

namespace ein {

using ir::BinOp;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

// sum of coef[v] * v + k + the `rest` terms (each with a sign): an integer expression affine in
// loop variables, its other parts expressions of scalars only.
struct Affine {
  std::map<DefId, int64_t> coef;
  int64_t k = 0;
  std::vector<std::pair<int, NodeRef>> rest;
};

constexpr int64_t kBig = int64_t{1} << 40;  // coefficients and constants beyond this are not split

bool scalar_only(const NodeRef& n, const std::unordered_set<DefId>& vars) {
  bool ok = true;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::Name) ok = ok && !vars.count(x->def);
    else if (x->kind == Kind::Binary)
      ok = ok && (static_cast<BinOp>(x->ival) == BinOp::Add || static_cast<BinOp>(x->ival) == BinOp::Sub);
    else ok = ok && (x->kind == Kind::IntLit || x->kind == Kind::DimOf || x->kind == Kind::Unary);
  });
  return ok;
}

bool affine(const NodeRef& e, int sign, const std::unordered_set<DefId>& vars, Affine& out) {
  if (e->kind == Kind::IntLit) {
    if (e->ival > kBig || e->ival < -kBig) return false;
    out.k += sign * e->ival;
    return true;
  }
  if (e->kind == Kind::Name && vars.count(e->def)) {
    out.coef[e->def] += sign;
    return true;
  }
  if (e->kind == Kind::Binary) {
    auto op = static_cast<BinOp>(e->ival);
    if (op == BinOp::Add || op == BinOp::Sub)
      return affine(ir::bin_lhs(e), sign, vars, out) && affine(ir::bin_rhs(e), op == BinOp::Add ? sign : -sign, vars, out);
  }
  if (!scalar_only(e, vars)) return false;
  out.rest.emplace_back(sign, e);
  return true;
}

class Splitter : public ir::Mutator {
 public:
  Splitter(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::LTensor) return n;
    NodeRef r = plan(n);
    return r ? r : n;
  }

 private:
  std::unordered_set<DefId> inside_;  // bound inside the value being cut (cuts_of)

  struct Cut {
    std::vector<NodeRef> lower, upper;           // d >= L, d < U
    std::unordered_set<uint32_t> conjuncts;      // the tests that hold between them
  };

  NodeRef typed(NodeRef n, ir::TypeRef t) {
    u_.types[n->id] = std::move(t);
    return n;
  }

  NodeRef copy_typed(const NodeRef& n) { return copy_with_facts(u_, n); }

  static void split_and(const NodeRef& c, std::vector<NodeRef>& out) {
    if (c->kind == Kind::Binary && static_cast<BinOp>(c->ival) == BinOp::And) {
      split_and(ir::bin_lhs(c), out);
      split_and(ir::bin_rhs(c), out);
    } else {
      out.push_back(c);
    }
  }

  // `expr` as IR: sum of the rest terms + k (k folded in).
  NodeRef build(const std::vector<std::pair<int, NodeRef>>& rest, int64_t k) {
    NodeRef e = irb::lit(k);
    for (auto& [sign, x] : rest) e = sign > 0 ? irb::add(e, irb::wide(x)) : irb::sub(e, irb::wide(x));
    return e;
  }

  // The conjunct `c` (inside a reduction over `ranges`) as a bound on a declaration index.
  void bound(const NodeRef& c, const std::unordered_set<DefId>& decl,
             const std::unordered_map<DefId, std::pair<int64_t, int64_t>>& ranges, std::map<DefId, Cut>& cuts) {
    if (c->kind != Kind::Binary) return;
    const auto op = static_cast<BinOp>(c->ival);
    NodeRef a = ir::bin_lhs(c), b = ir::bin_rhs(c);
    int64_t shift = 0;  // E = a - b - shift >= 0
    switch (op) {
      case BinOp::Ge: break;
      case BinOp::Gt: shift = 1; break;
      case BinOp::Le: std::swap(a, b); break;
      case BinOp::Lt: std::swap(a, b), shift = 1; break;
      default: return;
    }
    // Integer comparisons only: the bounds are computed in integers.
    for (const NodeRef& side : {a, b}) {
      auto ty = u_.types.find(side->id);
      if (side->kind != Kind::IntLit && (ty == u_.types.end() || !ir::is_scalar(ty->second) || !is_int(ty->second->dtype)))
        return;
    }
    std::unordered_set<DefId> vars(decl);
    for (auto& [v, r] : ranges) vars.insert(v);
    Affine e;
    if (!affine(a, 1, vars, e) || !affine(b, -1, vars, e)) return;
    // The rest is read where the declaration's loops are cut: it may not name what a reduction
    // or a let inside the value binds (`sum[p](.. sum[q](1.0 where i - p >= 0) ..)`: i's bounds
    // read p, unbound there, E002 "expected an integer, found ()").
    for (auto& [s, x] : e.rest)
      for (DefId v : inside_)
        if (!vars.count(v) && ir::mentions(x, v)) return;
    e.k -= shift;
    DefId d;
    int64_t dc = 0, lo_sum = 0;
    for (auto& [v, cf] : e.coef) {
      if (cf == 0) continue;
      if (decl.count(v)) {
        if (d.valid() || (cf != 1 && cf != -1)) return;
        d = v, dc = cf;
        continue;
      }
      auto r = ranges.find(v);
      if (r == ranges.end() || cf > kBig || cf < -kBig) return;
      // The smallest value of cf * v over the range (the range is not empty: checked by caller).
      lo_sum += std::min(cf * r->second.first, cf * (r->second.second - 1));
    }
    if (!d.valid()) return;
    // dc * d + lo_sum + k + rest >= 0 for every term of the range.
    Cut& cut = cuts[d];
    if (dc == 1) {
      std::vector<std::pair<int, NodeRef>> neg;
      for (auto& [s, x] : e.rest) neg.emplace_back(-s, x);
      cut.lower.push_back(build(neg, -(lo_sum + e.k)));  // d >= -(lo_sum + k + rest)
    } else {
      cut.upper.push_back(build(e.rest, lo_sum + e.k + 1));  // d <= lo_sum + k + rest
    }
    cut.conjuncts.insert(c->id);
  }

  // The guards of every reduction in `value` whose ranges are constant, and the test of a
  // value that is a whole `if c { A } else { B }` (a padded copy: `if h >= p && h < H + p
  // { X[h - p] } else { 0.0 }`, a mask): between its bounds the test holds and the value is A.
  std::map<DefId, Cut> cuts_of(const NodeRef& value, const std::unordered_set<DefId>& decl) {
    std::map<DefId, Cut> cuts;
    inside_.clear();
    ir::for_each_node(value, [&](const NodeRef& n) {
      if (n->kind == Kind::LoopVar || n->kind == Kind::LLetIn || n->kind == Kind::LLet || n->kind == Kind::PBind)
        inside_.insert(n->def);
    });
    if (value->kind == Kind::If && ir::if_else(value)) {
      std::vector<NodeRef> conj;
      split_and(ir::if_cond(value), conj);
      for (const NodeRef& c : conj) bound(c, decl, {}, cuts);
    }
    ir::for_each_node(value, [&](const NodeRef& r) {
      if (r->kind != Kind::LReduce) return;
      std::unordered_map<DefId, std::pair<int64_t, int64_t>> ranges;
      for (const NodeRef& it : ir::lreduce_items(r)) {
        if (it->kind != Kind::LoopVar) return;
        auto lo = fold_int(cx_, u_, ir::loopvar_lo(*it)), hi = fold_int(cx_, u_, ir::loopvar_hi(*it));
        if (!lo || !hi || *hi <= *lo || *lo < -kBig || *hi > kBig) return;
        ranges[it->def] = {*lo, *hi};
      }
      for (NodeRef g = ir::lreduce_body(r); g->kind == Kind::LGuard || g->kind == Kind::LLetIn;
           g = g->kind == Kind::LGuard ? ir::lguard_value(g) : ir::lletin_body(g)) {
        if (g->kind != Kind::LGuard) continue;
        std::vector<NodeRef> conj;
        split_and(ir::lguard_cond(g), conj);
        for (const NodeRef& c : conj) bound(c, decl, ranges, cuts);
      }
    });
    return cuts;
  }

  // `n` without the conjuncts in `gone` (a guard left with none is dropped).
  NodeRef without(const NodeRef& n, const std::unordered_set<uint32_t>& gone) {
    struct Strip : ir::Mutator {
      Splitter* self;
      const std::unordered_set<uint32_t>* gone;
      NodeRef post(const NodeRef& x) override {
        if (x->kind != Kind::LGuard && !(x->kind == Kind::If && ir::if_else(x))) return x;
        std::vector<NodeRef> conj, keep;
        split_and(x->kind == Kind::If ? ir::if_cond(x) : ir::lguard_cond(x), conj);
        for (const NodeRef& c : conj)
          if (!gone->count(c->id)) keep.push_back(c);
        if (keep.size() == conj.size()) return x;
        if (keep.empty() && x->kind == Kind::If) {
          // Its test holds everywhere here: the value is the `then` branch (a block of one
          // expression is that expression).
          NodeRef t = ir::if_then(x);
          while (t->kind == Kind::Block && t->has(ir::kHasTail) && t->kids.size() == 1) t = t->kids[0];
          return t;
        }
        if (keep.empty()) return ir::lguard_value(x);
        NodeRef cond = keep[0];
        for (size_t i = 1; i < keep.size(); ++i)
          cond = self->typed(ir::make_binary(BinOp::And, cond, keep[i], keep[i]->span), ir::t_bool());
        return ir::edited(x, [&](ir::Node& m) { m.kids[0] = cond; });
      }
    } s;
    s.self = this;
    s.gone = &gone;
    return s.mutate(n);
  }

  static NodeRef with_bounds(const NodeRef& loop, NodeRef lo, NodeRef hi, NodeRef body) {
    return ir::make({.kind = Kind::LFor, .span = loop->span, .kids = {std::move(lo), std::move(hi), std::move(body)},
                     .name = loop->name, .def = loop->def, .flags = loop->flags});
  }

  // The nest `loops` (outermost first) around `store`, axis `ax` running over [lo, hi).
  NodeRef nest(const std::vector<NodeRef>& loops, const NodeRef& store, size_t ax, const NodeRef& lo, const NodeRef& hi) {
    NodeRef body = store;
    for (size_t a = loops.size(); a-- > 0;)
      body = a == ax ? with_bounds(loops[a], lo, hi, body) : with_bounds(loops[a], ir::lfor_lo(loops[a]), ir::lfor_hi(loops[a]), body);
    return body;
  }

  NodeRef plan(const NodeRef& t) {
    if (!t->aux.empty()) return nullptr;
    auto pn = point_nest(t);
    if (!pn) return nullptr;
    const NodeRef clause = pn->clause, store = pn->store;
    std::vector<NodeRef> loops = pn->loops;
    const std::unordered_set<DefId>& decl = pn->decl;
    std::map<DefId, Cut> cuts = cuts_of(ir::lstore_value(store), decl);
    if (cuts.empty()) return nullptr;
    // Cut the axes outermost first; each interior is cut again along the next axis.
    // Clauses in the order [lo, a), [a, b), [b, hi) per axis, so that along one axis the points
    // run in their order (the first failing point of a run is still the one reported).
    std::vector<NodeRef> out, back;
    std::unordered_set<uint32_t> gone;
    std::string what = "split: ";
    NodeRef inner_store = store;
    for (size_t ax = 0; ax < loops.size(); ++ax) {
      auto c = cuts.find(loops[ax]->def);
      if (c == cuts.end()) continue;
      const NodeRef& l = loops[ax];
      NodeRef lo = ir::lfor_lo(l), hi = ir::lfor_hi(l);
      NodeRef a = lo, b = hi;
      for (const NodeRef& x : c->second.lower) a = irb::imax(a, x);
      a = irb::imin(a, hi);
      for (const NodeRef& x : c->second.upper) b = irb::imin(b, x);
      b = irb::imax(b, a);
      // The boundary boxes keep the guards of this axis (and the cuts of outer axes: they lie
      // inside the outer interiors).
      out.push_back(copy_typed(nest(loops, inner_store, ax, lo, a)));
      back.push_back(copy_typed(nest(loops, inner_store, ax, b, hi)));
      for (uint32_t id : c->second.conjuncts) gone.insert(id);
      inner_store = without(store, gone);
      loops[ax] = with_bounds(l, a, b, ir::lfor_body(l));
      what += std::string(what.size() > 7 ? ", " : "") + "`" + l->name + "` at the guards' bounds";
    }
    out.push_back(copy_typed(nest(loops, inner_store, loops.size(), nullptr, nullptr)));
    out.insert(out.end(), back.rbegin(), back.rend());
    what += ": the interior box tests none of the guards that hold everywhere in it";
    return clause_replaced(t, clause, out, what);
  }

  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void guard_split(CompileCtx& cx) { rewrite_lowered<Splitter>(cx); }

}  // namespace ein
