#include "lang/passes/lower_einstein.h"

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

class Lowerer : public ir::Mutator {
 public:
  Lowerer(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  NodeRef lower_unit() {
    const NodeRef& b = u_.body;
    if (b->kind == Kind::Fn || b->kind == Kind::DiffFn) return mutate(ir::fn_body(*b));
    if (b->kind == Kind::Lambda) return mutate(ir::lambda_body(*b));
    return mutate(b);
  }

 protected:
  NodeRef pre(const NodeRef& n) override {
    switch (n->kind) {
      case Kind::EinGroup: return lower_group(n);
      case Kind::Reduce: return lower_reduce(n);
      case Kind::Where: return lower_where_expr(n);
      case Kind::Lambda: return n;  // its body belongs to its own units
      case Kind::Const: return ir::make({.kind = Kind::LNop, .span = n->span});
      default: return irb::is_item_decl(n->kind) ? ir::make({.kind = Kind::LNop, .span = n->span}) : nullptr;
    }
  }

 private:
  NodeRef typed(NodeRef n, const ir::TypeRef& t) {
    u_.types[n->id] = t;
    return n;
  }

  NodeRef zero_of(const ir::TypeRef& t, Span s) {
    ir::TypeRef el = ir::elem_of(t);
    NodeRef z;
    if (ir::is_scalar(el) && el->dtype == DType::Bool) z = ir::make_bool(false, s);
    else if (ir::is_scalar(el) && is_float(el->dtype)) z = ir::make_float(0.0, s);
    else z = ir::make_int(0, s);
    return typed(z, el && el->k == ir::Type::K::Scalar ? el : ir::t_i32());
  }

  std::vector<NodeRef> checks_for(const std::unordered_set<DefId>& vars) {
    std::vector<NodeRef> out;
    for (auto& a : u_.agrees) {
      if (!vars.count(a.index)) continue;
      std::string msg = "index `" + cx_.resolver.info(a.index).name +
                        "` has two different extents (`" + a.what_a + "` and `" + a.what_b + "`)";
      // Lowered like a range's bounds: an extent measured on a call with a reduction in its
      // arguments (`F(h, min[m](v[m]))[n]`) was E011 "cannot execute `Reduce`".
      NodeRef cond = ir::make_binary(ir::BinOp::Eq, mutate(a.extent_a), mutate(a.extent_b), a.span_b);
      out.push_back(irb::check("E004", msg, "", cond, a.span_b));
    }
    for (auto& r : u_.range_checks)
      if (vars.count(r.index))
        out.push_back(irb::check(r.code, r.message, r.help, mutate(r.cond), r.span));
    return out;
  }

  void site_vars(const NodeRef& n, std::unordered_set<DefId>& out) {
    ir::for_each_node(n, [&](const NodeRef& k) {
      if (k->kind == Kind::IdxVar || k->kind == Kind::IdxIn) out.insert(k->def);
    });
  }

  std::pair<NodeRef, NodeRef> range(DefId d, Span at) {
    auto it = u_.ranges.find(d);
    if (it == u_.ranges.end()) return {irb::lit(0), irb::lit(0)};
    (void)at;
    // Bounds shape analysis folded are literals for every tier (no run-time arithmetic).
    const RangeFact& f = it->second;
    // A bound written with a reduction (`e in 0..prod[k in 0..2](os[k])`) is lowered like
    // any expression (it was E011 "cannot execute `Reduce`").
    return {f.lo_const ? irb::lit(*f.lo_const) : (f.lo ? mutate(f.lo) : f.lo),
            f.hi_const ? irb::lit(*f.hi_const) : (f.hi ? mutate(f.hi) : f.hi)};
  }

  // A slot's range may name another slot of its clause (`let L[i in 0..n, j in 0..i + 1]`, a
  // triangle, SPEC §5.2 "ranges may be symbolic"): the allocation is the bounding box, the
  // largest end over the values of the slots it names. Points outside the triangle are 0 like
  // any point no clause covers (§5.4). An end that is not a sum of constant multiples of slots
  // and slot-free terms has no such bound here: E004, never a shape read from an unbound index.
  NodeRef slot_extent(const NodeRef& c, const NodeRef& s) {
    std::unordered_set<DefId> slots;
    for (const NodeRef& o : ir::ein_slots(c))
      if (o->kind != Kind::IdxLit) slots.insert(o->def);
    auto it = u_.ranges.find(s->def);
    if (it == u_.ranges.end() || it->second.hi_const || !it->second.hi || !names_any(it->second.hi, slots))
      return range(s->def, s->span).second;
    std::unordered_map<DefId, int> seen;
    NodeRef hi = extreme(it->second.hi, true, slots, seen, 0);
    // Interval bounds are the exact maximum only when no slot is reached twice (through the
    // ranges of the slots named): `l - j` with `l in j..j + 2` would be bounded by n, not 1.
    for (auto& [d, k] : seen)
      if (k > 1) hi = nullptr;
    if (!hi) {
      cx_.error("E004", "the end of `" + s->name + "`'s range depends on another index of `" + c->name +
                "` in a way whose largest value is not known before the loops run", s->span, "",
                "write the end as a sum of constant multiples of other indices, each named once "
                "(`" + s->name + " in 0..i + 1`), or give the array a fixed range and a `where` guard");
      return nullptr;
    }
    return mutate(hi);
  }

  static bool names_any(const NodeRef& e, const std::unordered_set<DefId>& slots) {
    bool found = false;
    ir::for_each_node(e, [&](const NodeRef& k) {
      if (k->kind == Kind::Name && slots.count(k->def)) found = true;
    });
    return found;
  }

  // The largest (hi) or smallest value of e over the slots' ranges (a slot runs lo..hi - 1).
  NodeRef extreme(const NodeRef& e, bool hi, const std::unordered_set<DefId>& slots,
                  std::unordered_map<DefId, int>& seen, int depth) {
    if (!names_any(e, slots)) return e;
    if (depth > 32) return nullptr;
    switch (e->kind) {
      case Kind::Name: {
        ++seen[e->def];
        auto it = u_.ranges.find(e->def);
        if (it == u_.ranges.end()) return nullptr;
        const RangeFact& f = it->second;
        if (hi) {
          NodeRef end = f.hi_const ? irb::lit(*f.hi_const) : (f.hi ? extreme(f.hi, true, slots, seen, depth + 1) : nullptr);
          return end ? irb::sub(end, irb::lit(1)) : nullptr;
        }
        return f.lo_const ? irb::lit(*f.lo_const) : (f.lo ? extreme(f.lo, false, slots, seen, depth + 1) : nullptr);
      }
      case Kind::Unary:
        if (static_cast<ir::UnOp>(e->ival) != ir::UnOp::Neg) return nullptr;
        if (NodeRef x = extreme(ir::unary_operand(e), !hi, slots, seen, depth + 1)) return irb::neg(x);
        return nullptr;
      case Kind::IMax:
      case Kind::IMin: {
        std::vector<NodeRef> kids;
        for (const NodeRef& k : e->kids) {
          NodeRef x = extreme(k, hi, slots, seen, depth + 1);
          if (!x) return nullptr;
          kids.push_back(x);
        }
        return ir::make({.kind = e->kind, .span = e->span, .kids = std::move(kids)});
      }
      case Kind::Binary: {
        const NodeRef& a = e->kids[0];
        const NodeRef& b = e->kids[1];
        switch (static_cast<ir::BinOp>(e->ival)) {
          case ir::BinOp::Add: {
            NodeRef x = extreme(a, hi, slots, seen, depth + 1), y = extreme(b, hi, slots, seen, depth + 1);
            return x && y ? irb::add(x, y) : nullptr;
          }
          case ir::BinOp::Sub: {
            NodeRef x = extreme(a, hi, slots, seen, depth + 1), y = extreme(b, !hi, slots, seen, depth + 1);
            return x && y ? irb::sub(x, y) : nullptr;
          }
          case ir::BinOp::Mul: {
            auto k = irb::as_lit(a) ? irb::as_lit(a) : irb::as_lit(b);
            if (!k) return nullptr;
            NodeRef x = extreme(irb::as_lit(a) ? b : a, *k >= 0 ? hi : !hi, slots, seen, depth + 1);
            return x ? irb::mul(x, *k) : nullptr;
          }
          case ir::BinOp::Div: {
            // Integer division by a positive constant never decreases when its dividend grows
            // (floor or truncation alike), so the extreme dividend gives the extreme quotient.
            auto k = irb::as_lit(b);
            if (!k || *k <= 0) return nullptr;
            NodeRef x = extreme(a, hi, slots, seen, depth + 1);
            return x ? ir::make_binary(ir::BinOp::Div, x, irb::lit(*k), e->span) : nullptr;
          }
          default: return nullptr;
        }
      }
      default: return nullptr;
    }
  }

  NodeRef lower_group(const NodeRef& g) {
    ir::TypeRef t = u_.def_types.count(g->def) ? u_.def_types[g->def] : cx_.global_types[g->def];
    ir::TypeRef el = ir::elem_of(t);
    DType dt = ir::is_scalar(el) ? el->dtype : DType::F32;
    size_t nslots = ir::ein_slots_count(ir::group_clauses(g)[0]);
    std::vector<NodeRef> extents(nslots);
    for (auto& c : g->kids) {
      for (size_t a = 0; a < nslots && a < ir::ein_slots_count(c); ++a) {
        const NodeRef& s = ir::ein_slots(c)[a];
        NodeRef e = s->kind == Kind::IdxLit ? irb::add(irb::lit(s->ival), irb::lit(1)) : slot_extent(c, s);
        if (!e) return ir::make({.kind = Kind::LNop, .span = g->span});  // E004 reported
        extents[a] = extents[a] ? irb::imax(extents[a], e) : e;
      }
    }
    for (auto& e : extents) e = irb::imax(irb::lit(0), e);
    std::vector<NodeRef> kids;
    kids.push_back(ir::make({.kind = Kind::LShape, .span = g->span, .kids = extents}));
    std::unordered_set<DefId> vars;
    site_vars(g, vars);
    // A check on the extent of a value bound inside a clause (`let xc = x[t - 1];` then
    // `sum[p](b[p] * xc[p])`) cannot run before the clause: its reduction carries it.
    auto saved_locals = std::move(group_locals_);
    group_locals_.clear();
    // So does one on a tensor declared inside a clause's block (`{ let D[m] = ..; sum[j](v[j]
    // where D[j] != 0.0) }`): before the loops, D does not exist yet.
    // And one on a clause's `where p = add2(X[0], W[t - 1])`, bound per point.
    ir::for_each_node(g, [&](const NodeRef& k) {
      if (k->kind == Kind::PBind || k->kind == Kind::WBind || (k->kind == Kind::EinGroup && k->def != g->def))
        group_locals_.insert(k->def);
    });
    for (auto& c : checks_for(vars))
      if (!mentions_local(c)) kids.push_back(c);
    ++in_group_;
    for (auto& c : g->kids) kids.push_back(lower_clause(c, g->def));
    --in_group_;
    group_locals_ = std::move(saved_locals);
    // Elements whose type is known only at run time (read from an unannotated load_npy) are
    // allocated at the first store, with that value's type and shape, like array elements.
    const bool runtime_elem = !el || el->k == ir::Type::K::Unknown;
    uint32_t flags = ir::rank_of(t) > static_cast<int>(nslots) || runtime_elem ? ir::kHasElem : 0;
    flags |= g->flags & (ir::kReverse | ir::kAdjoint);
    NodeRef lt = ir::make({.kind = Kind::LTensor, .span = g->span, .kids = std::move(kids),
                           .name = g->name, .def = g->def, .ival = static_cast<int64_t>(dt),
                           .flags = flags});
    return typed(lt, t);
  }

  NodeRef lower_clause(const NodeRef& c, DefId def) {
    NodeRef value = ir::ein_value(*c);
    std::vector<NodeRef> items;
    NodeRef else_value;
    if (value->kind == Kind::Where) {
      for (const NodeRef& k : ir::where_clauses(value)) {
        if (k->kind == Kind::WElse) else_value = ir::welse_value(k);
        else items.push_back(k);
      }
      value = ir::where_expr(value);
    }
    std::vector<NodeRef> idx;
    for (const NodeRef& s : ir::ein_slots(c)) {
      idx.push_back(s->kind == Kind::IdxLit ? irb::lit(s->ival) : irb::ref(s->name, s->def, s->span));
    }
    auto store = [&](const NodeRef& v) {
      std::vector<NodeRef> kids{mutate(v)};
      for (auto& i : idx) kids.push_back(i);
      return ir::make({.kind = Kind::LStore, .span = v->span, .kids = std::move(kids),
                       .name = c->name, .def = def});
    };
    NodeRef body = store(value);
    NodeRef else_store = else_value ? store(else_value) : nullptr;
    for (size_t i = items.size(); i-- > 0;) {
      const NodeRef& it = items[i];
      if (it->kind == Kind::WGuard) {
        std::vector<NodeRef> k{mutate(ir::wguard_cond(it)), body};
        if (else_store) k.push_back(else_store);
        body = ir::make({.kind = Kind::LIf, .span = it->span, .kids = std::move(k)});
      } else {
        NodeRef let = ir::make({.kind = Kind::LLet, .span = it->span, .kids = {mutate(ir::where_clause_expr(it))},
                                .name = it->name, .def = it->def});
        body = ir::make({.kind = Kind::LSeq, .span = c->span, .kids = {let, body}});
      }
    }
    const ir::Kids slots = ir::ein_slots(c);
    for (auto si = slots.rbegin(); si != slots.rend(); ++si) {
      const NodeRef& s = *si;
      if (s->kind == Kind::IdxLit) continue;
      auto [lo, hi] = range(s->def, s->span);
      body = ir::make({.kind = Kind::LFor, .span = c->span, .kids = {lo, hi, body},
                       .name = s->name, .def = s->def});
    }
    return body;
  }

  NodeRef lower_point(const NodeRef& body0) {
    // `sum[i](e where g else f)`: a point failing the guard contributes f, as the expression
    // reads, not the reduction's identity.
    if (body0->kind == Kind::Where)
      for (const NodeRef& k : ir::where_clauses(body0))
        if (k->kind == Kind::WElse) return lower_where_expr(body0);
    NodeRef body = body0;
    std::vector<NodeRef> items;
    if (body->kind == Kind::Where) {
      for (const NodeRef& k : ir::where_clauses(body))
        if (k->kind != Kind::WElse) items.push_back(k);
      body = ir::where_expr(body);
    }
    NodeRef x = mutate(body);
    ir::TypeRef t = u_.type(body);
    for (size_t i = items.size(); i-- > 0;) {
      const NodeRef& it = items[i];
      if (it->kind == Kind::WGuard) {
        x = typed(ir::make({.kind = Kind::LGuard, .span = it->span, .kids = {mutate(ir::wguard_cond(it)), x}}), t);
      } else {
        x = typed(ir::make({.kind = Kind::LLetIn, .span = it->span,
                            .kids = {mutate(ir::where_clause_expr(it)), x}, .name = it->name, .def = it->def}),
                  t);
      }
    }
    return x;
  }

  NodeRef lower_reduce(const NodeRef& r) {
    bool top = in_group_ == 0 && in_reduce_ == 0;
    ++in_reduce_;
    std::vector<NodeRef> kids{lower_point(ir::reduce_body(*r))};
    --in_reduce_;
    std::unordered_set<DefId> vars;
    for (const NodeRef& s : ir::reduce_slots(r)) {
      auto [lo, hi] = range(s->def, s->span);
      kids.push_back(ir::make({.kind = Kind::LoopVar, .span = s->span, .kids = {lo, hi},
                               .name = s->name, .def = s->def}));
    }
    if (top) {
      site_vars(r, vars);
      for (auto& c : checks_for(vars)) kids.push_back(c);
    } else if (in_group_ > 0 && !group_locals_.empty()) {
      for (const NodeRef& s : ir::reduce_slots(r)) vars.insert(s->def);
      for (auto& c : checks_for(vars))
        if (mentions_local(c)) kids.push_back(c);
    }
    // Keep the reduction's id: its type stays in the unit's table.
    return ir::edited(r, [&](ir::Node& n) {
      n.kind = Kind::LReduce;
      n.kids = std::move(kids);
    });
  }

  NodeRef lower_where_expr(const NodeRef& w) {
    ir::TypeRef t = u_.type(w);
    NodeRef x = mutate(ir::where_expr(w));
    NodeRef fallback;
    const ir::Kids clauses = ir::where_clauses(w);
    for (const NodeRef& k : clauses)
      if (k->kind == Kind::WElse) fallback = mutate(ir::welse_value(k));
    for (auto ci = clauses.rbegin(); ci != clauses.rend(); ++ci) {
      const NodeRef& it = *ci;
      if (it->kind == Kind::WElse) continue;
      if (it->kind == Kind::WGuard) {
        NodeRef alt = fallback ? fallback : zero_of(t, it->span);
        x = typed(ir::make({.kind = Kind::If, .span = it->span, .kids = {mutate(ir::wguard_cond(it)), x, alt}}), t);
      } else {
        x = typed(ir::make({.kind = Kind::LLetIn, .span = it->span,
                            .kids = {mutate(ir::where_clause_expr(it)), x}, .name = it->name, .def = it->def}),
                  t);
      }
    }
    return x;
  }

  bool mentions_local(const NodeRef& n) const {
    bool any = false;
    ir::for_each_node(n, [&](const NodeRef& k) { any = any || (k->kind == Kind::Name && group_locals_.count(k->def)); });
    return any;
  }

  CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<DefId> group_locals_;  // bound by lets inside the group being lowered
  int in_group_ = 0;
  int in_reduce_ = 0;
};

}  // namespace

void lower_einstein(CompileCtx& cx) {
  for (auto& u : cx.units) {
    Lowerer l(cx, *u);
    u->lowered = l.lower_unit();
  }
}

}  // namespace ein
