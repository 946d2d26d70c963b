// Forward mode, part two: the scopes a per-point value opens. Blocks (lets and block-local
// declarations, a recurrence among them with its own tangent recurrence), where-bindings and
// reductions, whose slots keep the ranges the primal inferred. ad_forward.cpp differentiates
// the expressions inside them.
#include "lang/ir/reduce_op.h"
#include "lang/passes/ad_common.h"
#include "lang/passes/ir_build.h"

namespace ein::ad {

using ir::Kind;

namespace {


// Slots (a reduction's or a clause's) with the ranges the primal inferred for them written out
// (those naming nothing bound inside `body`). The derivative rebuilds r over copies of its body
// that may have lost the access such a range came from: a partial drops a block's unused let
// (`max[q, i]({ let b = v[q]; x[i] })`, ad_build's flatten_partial), a tangent's value reads no
// array (`dv[i] = if i == m0 { 1.0 } else { 0.0 }` for `v[i] = x[i]`), and an index inferred
// from nothing is E004.
std::vector<NodeRef> explicit_slots(ir::Kids slots, const NodeRef& body, Facts& facts) {
  std::vector<NodeRef> out;
  std::unordered_set<DefId> inner = binders_in(body);
  auto free_of_inner = [&](const NodeRef& e) {
    bool ok = true;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if ((n->kind == Kind::Name || n->kind == Kind::Path) && inner.count(n->def)) ok = false;
    });
    return ok;
  };
  for (const NodeRef& sl : slots) {
    const RangeFact* rf = sl->kind == Kind::IdxVar ? facts.range(sl->def) : nullptr;
    NodeRef hi = rf && rf->hi ? (rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi) : nullptr;
    if (!rf || !rf->lo || !hi || !free_of_inner(rf->lo) || !free_of_inner(hi)) {
      out.push_back(sl);
      continue;
    }
    out.push_back(ir::edited(idx_in(sl->name, sl->def, rf->lo, hi), [&](ir::Node& x) { x.span = sl->span; }));
  }
  return out;
}

std::vector<NodeRef> explicit_slots(const NodeRef& r, Facts& facts) {
  return explicit_slots(ir::reduce_slots(r), ir::reduce_body(*r), facts);
}

}  // namespace

NodeRef Forward::block(const NodeRef& b) {
  std::vector<NodeRef> stmts;
  bool tail = b->has(ir::kHasTail);
  bool any = false;
  NodeRef tail_t;
  ir::Kids body_stmts = ir::block_stmts(b);
  for (size_t i = 0; i < body_stmts.size(); ++i) {
    const NodeRef& s = body_stmts[i];
    if (!s) continue;
    if (tail && i + 1 == body_stmts.size()) {
      tail_t = tangent(s);
      break;
    }
    stmts.push_back(s);
    if (s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind) {
      NodeRef t = tangent(ir::let_value(*s));
      if (!t) continue;
      const NodeRef& p = ir::let_pattern(*s);
      DefId d = cx_.resolver.new_def("d" + p->name, DefKind::Local, p->span);
      if (unbounded(t)) unbounded_.insert(d);
      TypeRef pt = facts_.def_type(p->def);
      std::optional<DType> dt = ir::rank_of(pt) == 0 ? facts_.float_dtype_of_def(p->def) : std::nullopt;
      stmts.push_back(let_stmt("d" + p->name, d, t, dt));
      tangents[p->def] = name("d" + p->name, d);
      any = true;
    } else if (s->kind == Kind::EinGroup) {
      std::vector<NodeRef> clauses;
      DefId d = cx_.resolver.new_def("d" + s->name, DefKind::Local, s->span);
      // A recurrence (`c[k] = c[k - 1] + x[k]`) reads its own earlier points: their tangents
      // are the tangent's own earlier points (dc[k] = dc[k - 1] + dx[k]); without them each
      // point was differentiated as if the earlier ones were constants. Whether it has a
      // tangent at all is probed without them (reading only itself, it is constant), the
      // probe's tangents thrown away.
      bool self_read = false;
      for (auto& c : s->kids)
        ir::for_each_node(ir::ein_value(*c), [&](const NodeRef& n) {
          self_read = self_read || ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == s->def);
        });
      if (self_read) {
        bool varies = false;
        auto before = tangents;
        for (auto& c : s->kids) varies = varies || tangent(ir::ein_value(*c));
        tangents = std::move(before);
        if (!varies) continue;
        tangents[s->def] = name("d" + s->name, d);
      }
      for (auto& c : s->kids) {
        NodeRef t = tangent(ir::ein_value(*c));
        any = any || t;
        std::vector<NodeRef> slots = explicit_slots(ir::ein_slots(c), ir::ein_value(*c), facts_);
        slots.insert(slots.begin(), t ? t : flit(0.0));
        clauses.push_back(ir::make({.kind = Kind::EinDecl, .span = c->span,
                                    .kids = std::move(slots),
                                    .name = "d" + s->name, .def = d}));
      }
      if (!any) continue;
      stmts.push_back(ir::make({.kind = Kind::EinGroup, .span = s->span, .kids = std::move(clauses),
                                .name = "d" + s->name, .def = d}));
      tangents[s->def] = name("d" + s->name, d);
    } else if (s->kind == Kind::Let) {
      if (tangent(ir::let_value(*s))) unsupported("tuple destructuring of a differentiated value", s->span);
    }
  }
  if (!tail_t && !any) return nullptr;
  return ad::block(std::move(stmts), tail_t ? tail_t : flit(0.0));
}

NodeRef Forward::where(const NodeRef& w) {
  std::vector<NodeRef> items;
  NodeRef else_t;
  bool has_else = false;
  for (const NodeRef& c : ir::where_clauses(w)) {
    if (c->kind == Kind::WElse) {
      has_else = true;
      else_t = tangent(ir::welse_value(c));
      continue;
    }
    items.push_back(c);
    if (c->kind == Kind::WBind) {
      NodeRef t = tangent(ir::wbind_value(c));
      if (!t) continue;
      DefId d = cx_.resolver.new_def("d" + c->name, DefKind::Local, c->span);
      items.push_back(wbind("d" + c->name, d, t));
      tangents[c->def] = name("d" + c->name, d);
    }
  }
  NodeRef tm = tangent(ir::where_expr(w));
  if (!tm && !else_t) return nullptr;
  if (has_else) items.push_back(ir::make({.kind = Kind::WElse, .kids = {else_t ? else_t : flit(0.0)}}));
  return ad::where(tm ? tm : flit(0.0), std::move(items));
}

// `any[slots](true where guards, nz = value)` over fresh copies of r's indices: whether r's
// domain has a point (its ranges and guards; where-bindings stay, the guards may read them).
NodeRef Forward::domain_nonempty(const NodeRef& r) {
  const NodeRef& body = ir::reduce_body(*r);
  std::vector<NodeRef> items;
  if (body->kind == Kind::Where)
    for (const NodeRef& c : ir::where_clauses(body))
      if (c->kind != Kind::WElse) items.push_back(c);
  // The body's value, bound after the guards, keeps the accesses its indices' ranges come from.
  DefId v = cx_.resolver.new_def("nz", DefKind::Local, r->span);
  items.push_back(wbind("nz", v, body->kind == Kind::Where ? ir::where_expr(body) : body));
  NodeRef yes = ir::make({.kind = Kind::BoolLit, .span = r->span, .ival = 1});
  Copier cp(cx_, facts_);
  return cp.copy(ad::reduce("any", ad::where(yes, std::move(items)), explicit_slots(r, facts_)));
}

NodeRef Forward::reduce(const NodeRef& r) {
  const std::string& op = r->name;  // the spelling: for the reductions made here and messages
  const ir::ReduceOp rop = ir::reduce_op(*r);
  if (ir::is_logical_reduce(rop) || ir::is_arg_reduce(rop)) return nullptr;
  const NodeRef& body = ir::reduce_body(*r);
  std::vector<NodeRef> slots = explicit_slots(r, facts_);
  bool open = opened.count(r->id) > 0;
  NodeRef tb = tangent(body);
  if (!tb) return nullptr;
  if (rop == ir::ReduceOp::Sum) return open ? tb : ad::reduce("sum", tb, slots);
  for (auto& sl : slots)
    if (sl->kind != Kind::IdxVar && sl->kind != Kind::IdxIn) unsupported("a rest pattern in `" + op + "`", sl->span);
  auto var = [&](const NodeRef& sl) { return name(sl->name, sl->def); };
  if (rop == ir::ReduceOp::Max || rop == ir::ReduceOp::Min) {
    // The derivative flows through the first extremum in row-major order (SPEC §7: via the
    // arg-extremum): over several indices, slot a must be the first arg-extremum of the
    // extremum over the later slots, with the earlier slots at the point's values.
    // Opened (the reverse sweep's point): guards `slot_a == am_a`. Otherwise the tangent at the
    // extremum itself: the slots bound to am_0, am_1, ... in turn.
    std::vector<NodeRef> items;
    std::unordered_map<DefId, NodeRef> at;  // earlier slots -> their arg-extremum
    for (size_t a = 0; a < slots.size(); ++a) {
      std::vector<NodeRef> rest(slots.begin() + static_cast<long>(a), slots.end());
      Copier cp(cx_, facts_);
      if (!open) cp.subst = at;
      NodeRef c = cp.copy(ad::reduce(op, body, rest));  // fresh binders for slots a..
      // c reduces over this slot, then the later ones: argmax of the inner reduction's value.
      ir::Kids c_slots = ir::reduce_slots(c);
      std::vector<NodeRef> later = ir::kid_list(c_slots.subspan(1));
      NodeRef inner = later.empty() ? ir::reduce_body(c) : ad::reduce(op, ir::reduce_body(c), later);
      DefId am = cx_.resolver.new_def("am", DefKind::Local, r->span);
      items.push_back(wbind("am", am, ir::make({.kind = Kind::Reduce, .span = r->span, .kids = {inner, c_slots[0]},
                                                .name = rop == ir::ReduceOp::Max ? "argmax" : "argmin"})));
      if (open) items.push_back(wguard(eq(var(slots[a]), name("am", am))));
      at[slots[a]->def] = name("am", am);
    }
    // Over an empty domain the extremum is the constant ±inf (SPEC §5.3) with no arg-extremum:
    // the argmax bindings would be E006 at run time, so they are reached only when some point
    // passes the guards (and the tangent is 0 otherwise).
    NodeRef nonempty = domain_nonempty(r);
    if (open) {
      items.insert(items.begin(), wguard(nonempty));
      return ad::where(tb, std::move(items));
    }
    Copier cp(cx_, facts_);
    cp.subst = at;
    return ifz(nonempty, ad::where(cp.copy(tb), std::move(items)), flit(0.0));
  }
  if (rop == ir::ReduceOp::Prod) {
    // The product of the other factors. A guarded body keeps its where-items as the body of
    // that product, so a point the guard skips is still skipped (the identity, not a 0 factor).
    Copier cp(cx_, facts_);
    NodeRef other = cp.copy(ad::reduce(op, body, slots));  // the same reduction over fresh indices
    NodeRef same;
    ir::Kids other_slots = ir::reduce_slots(other);
    for (size_t a = 0; a < slots.size(); ++a) same = land(same, eq(var(other_slots[a]), var(slots[a])));
    const NodeRef& ob = ir::reduce_body(other);
    NodeRef pick = ifz(same, flit(1.0), ob->kind == Kind::Where ? ir::where_expr(ob) : ob);
    if (ob->kind == Kind::Where) {
      std::vector<NodeRef> items = ir::kid_list(ir::where_clauses(ob));
      for (auto& it : items)
        if (it->kind == Kind::WElse) unsupported("`prod` over a body with `where ... else`", r->span);
      pick = ad::where(pick, std::move(items));
    }
    NodeRef others = ad::reduce("prod", pick, ir::kid_list(other_slots));

    NodeRef term = mul(tb, others);
    return open ? term : ad::reduce("sum", term, slots);
  }
  unsupported("the reduction `" + op + "`", r->span);
}

}  // namespace ein::ad
