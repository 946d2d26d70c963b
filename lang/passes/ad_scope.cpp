// Derivative requests in every scope (SPEC §7, thesis §2.3): the walk that finds each request
// together with the definitions visible where it stands.
//
// A request sees the definitions of its enclosing statement lists that precede it (the cell's,
// a block's, a function body's) and the where-bindings before it; the derivative follows the
// data flow through them. Values bound by an enclosing construct without a definition to follow
// — function parameters, index variables, comprehension and match variables, and the points of
// the declaration being defined (`h[t - 1]` read inside h's own body) — are held constant:
// `let x[k, j] = { let x0 = ...x[k - 1, j]...; @loss / @x0 }` takes one gradient step per point.
//
// Code that reads nothing bound inside the current statement of an outer statement list is
// computed once, before that statement (`place`): a request inside an Einstein body whose target
// and parameter are outer bindings costs one sweep, not one per point.
#include <functional>

#include "lang/passes/ad_rewrite.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

bool has_diff(const NodeRef& n) {
  if (!n || n->kind == Kind::DiffFn) return false;
  if (n->kind == Kind::Diff) return true;
  for (auto& k : n->kids)
    if (has_diff(k)) return true;
  return false;
}

bool is_quotient(const NodeRef& n) {
  return n->kind == Kind::Binary && static_cast<ir::BinOp>(n->ival) == ir::BinOp::Div &&
         ir::bin_lhs(n)->kind == Kind::Diff && ir::bin_rhs(n)->kind == Kind::Diff;
}

std::unordered_set<DefId> binders_in(const NodeRef& n) {
  std::unordered_set<DefId> out;
  ir::for_each_node(n, [&](const NodeRef& m) {
    switch (m->kind) {
      case Kind::PBind: case Kind::WBind: case Kind::WDerived: case Kind::IdxVar: case Kind::IdxIn:
      case Kind::IdxRest: case Kind::CompGen: case Kind::CompLet: case Kind::Param: case Kind::EinGroup:
      case Kind::EinDecl:
        if (m->def.valid()) out.insert(m->def);
        break;
      default: break;
    }
  });
  return out;
}

namespace {

DefId defined_by(const NodeRef& r) {
  if (r && r->kind == Kind::EinGroup) return r->def;
  if (r && r->kind == Kind::Let && ir::let_pattern(*r)->kind == Kind::PBind) return ir::let_pattern(*r)->def;
  return DefId{};
}

// Is every use of `j` in `stmts` an index that fixes all `ry` output axes, or shape()/len()?
bool only_row_uses(const std::vector<NodeRef>& stmts, DefId j, int ry) {
  bool ok = true;
  std::function<void(const NodeRef&, const NodeRef&)> walk = [&](const NodeRef& n, const NodeRef& parent) {
    if (!n || !ok) return;
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == j) {
      // The base of an access fixing every row axis, or the one argument of shape()/len().
      bool row = parent && parent->kind == Kind::Index && ir::index_base(parent) == n &&
                 static_cast<int>(ir::index_args_count(parent)) >= ry;
      bool meta = false;
      if (parent && parent->kind == Kind::Call && ir::call_args_count(parent) == 1 && ir::call_args(parent)[0] == n)
        if (auto b = builtin_of(ir::call_callee(parent)->def)) meta = *b == Builtin::Shape || *b == Builtin::Len;
      if (!row && !meta) ok = false;
      return;
    }
    if (n->kind == Kind::Lambda) {
      ir::for_each_node(n, [&](const NodeRef& m) { if (m->kind == Kind::Name && m->def == j) ok = false; });
      return;
    }
    for (const NodeRef& k : n->kids) walk(k, n);
  };
  for (auto& s : stmts) walk(s, nullptr);
  return ok;
}

// Does every use `j[..]` fix its `ry` row indices to constants (rows: one VJP each), or, with
// `cols`, give all `ry + rx` indices with the `rx` parameter indices constant (one JVP each)?
bool constant_uses(CompileCtx& cx, const std::vector<NodeRef>& stmts, DefId j, int ry, int rx, bool cols) {
  bool ok = true;
  for (auto& s : stmts)
    ir::for_each_node(s, [&](const NodeRef& n) {
      if (!ok || n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Name || ir::index_base(n)->def != j) return;
      ir::Kids idx = ir::index_args(n);
      if (cols && static_cast<int>(idx.size()) != ry + rx) {
        ok = false;
        return;
      }
      // The row axes [0, ry), or with `cols` the parameter axes [ry, ry + rx), must be constants.
      int lo = cols ? ry : 0, hi = cols ? ry + rx : ry;
      for (int a = lo; a < hi && a < static_cast<int>(idx.size()); ++a)
        if (!fold_int(cx, cx.cell(), idx[static_cast<size_t>(a)])) ok = false;
    });
  return ok;
}

}  // namespace

// ---- binders ----------------------------------------------------------------------------------

void Rewriter::bind(DefId d) {
  if (!d.valid()) return;
  bound_at_[d] = bound_.size();
  bound_.push_back(d);
}

void Rewriter::bind_pattern(const NodeRef& p, bool leaf) {
  ir::for_each_node(p, [&](const NodeRef& n) {
    if (n->kind != Kind::PBind) return;
    bind(n->def);
    if (leaf) leaves_.insert(n->def);
  });
}

void Rewriter::unbind_to(size_t n) {
  while (bound_.size() > n) {
    bound_at_.erase(bound_.back());
    bound_.pop_back();
  }
}

// ---- statement lists --------------------------------------------------------------------------

NodeRef Rewriter::statements(const NodeRef& list, bool top) {
  levels_.push_back(Level{});
  const size_t me = levels_.size() - 1;
  const size_t b0 = bound_.size();
  std::vector<DefId> shown;
  std::vector<NodeRef> kids;
  bool tail = list->has(ir::kHasTail);
  ir::Kids stmts = ir::stmt_list(list);
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    levels_[me].mark = bound_.size();
    levels_[me].remaining.assign(stmts.begin() + static_cast<long>(i), stmts.end());
    // `let J = @y / @x;` with a tensor y whose every later use reads single rows or columns:
    // lazy (only in a whole program, where no later cell can observe J whole).
    if (top && cx_.opt.whole_program && s && s->kind == Kind::Let &&
        ir::let_pattern(*s)->kind == Kind::PBind && is_quotient(ir::let_value(*s)) &&
        quotient_of(ir::let_value(*s))->kind == Kind::Name && !(tail && i + 1 == stmts.size())) {
      const NodeRef& q = ir::let_value(*s);
      int ry = ir::rank_of(facts_.def_type(quotient_of(q)->def));
      std::vector<NodeRef> later(stmts.begin() + static_cast<long>(i) + 1, stmts.end());
      const NodeRef& X = quotient_by(q);
      int rx = X->kind == Kind::Name && X->def.valid() ? ir::rank_of(facts_.def_type(X->def)) : -1;
      DefId jd = ir::let_pattern(*s)->def;
      // Rows read at an index variable (`sum[t](J[t])`) observe J whole: it is built once.
      if (ry > 0 && !waits(q) && only_row_uses(later, jd, ry) &&
          (constant_uses(cx_, later, jd, ry, rx, false) || (rx > 0 && constant_uses(cx_, later, jd, ry, rx, true)))) {
        lazy[jd] = q;
        changed = true;
        continue;
      }
    }
    int deferred0 = deferred_;
    NodeRef r = s ? stmt(s) : s;
    // Generated statements are charged to the request's line (timings, run-time errors).
    for (auto& p : levels_[me].prelude)
      kids.push_back(s ? spanned(p, s->span) : p);
    levels_[me].prelude.clear();
    kids.push_back(r);
    if (!r) continue;
    DefId d = defined_by(r);
    if (r != s) changed = true;
    if ((r != s || deferred_ != deferred0) && d.valid()) pending_.insert(d);
    if (d.valid()) {
      visible_[d] = r;
      shown.push_back(d);
      bind(d);
    } else if (r->kind == Kind::Let) {
      // Tuple destructuring: the tape checks that no differentiated value flows through it.
      ir::for_each_node(ir::let_pattern(*r), [&](const NodeRef& p) {
        if (p->kind != Kind::PBind) return;
        visible_[p->def] = r;
        shown.push_back(p->def);
        bind(p->def);
      });
    }
  }
  for (auto& d : shown) visible_.erase(d);
  unbind_to(b0);
  levels_.pop_back();
  return ir::with_kids(list, std::move(kids));
}

NodeRef Rewriter::stmt(const NodeRef& s) {
  switch (s->kind) {
    case Kind::Fn: case Kind::DiffFn: case Kind::Use: case Kind::Const: case Kind::Mod: return s;
    case Kind::EinGroup: return einstein(s);
    case Kind::Let: {
      const NodeRef& pat = ir::let_pattern(*s);
      const NodeRef& v = ir::let_value(*s);
      // `let df = @f;` binds a differential: `df / dx` is `@f / @x` (SPEC §7).
      if (pat->kind == Kind::PBind && v && is_differential(v)) {
        differentials_[pat->def] = as_diff(v);
        if (cx_.persist) cx_.persist->differentials[pat->def] = as_diff(v);
      }
      NodeRef nv = expr(v);
      if (nv == v) return s;
      return ir::with_kids(s, {pat, ir::let_type(*s), nv});
    }
    default: return expr(s);
  }
}

// ---- expressions ------------------------------------------------------------------------------

NodeRef Rewriter::expr(const NodeRef& n) {
  if (!n) return n;
  if (!lazy.empty())
    if (NodeRef r = lazy_use(n)) return r;
  switch (n->kind) {
    case Kind::Fn: case Kind::DiffFn: return n;
    case Kind::Lambda: return n;  // rewritten per specialisation, like a function (autodiff.cpp)
    case Kind::Diff: return request(n);
    case Kind::Binary:
    case Kind::Unary: {
      bool div = n->kind == Kind::Binary && static_cast<ir::BinOp>(n->ival) == ir::BinOp::Div;
      if (div && is_differential(ir::bin_lhs(n)) && is_differential(ir::bin_rhs(n))) {
        NodeRef q = n;
        if (!is_quotient(n))
          q = ir::make({.kind = Kind::Binary, .span = n->span, .kids = {as_diff(ir::bin_lhs(n)), as_diff(ir::bin_rhs(n))},
                        .ival = n->ival});
        return request(q);
      }
      for (auto& k : n->kids)
        if (is_differential(k)) {
          cx_.error("E013", "arithmetic on a differential is not defined", k->span, "a differential",
                    "`df / dx` of two differentials is the derivative `@f / @x`; nothing else combines them");
          return n;
        }
      break;
    }
    case Kind::Block: return statements(n);
    case Kind::EinGroup: return einstein(n);
    case Kind::Let: return stmt(n);
    case Kind::Reduce: return reduce(n);
    case Kind::Where: return where(n);
    case Kind::Comp: return comp(n);
    case Kind::Match: return match(n);
    default: break;
  }
  std::vector<NodeRef> kids;
  for (auto& k : n->kids) kids.push_back(expr(k));
  return ir::with_kids(n, std::move(kids));
}

NodeRef Rewriter::einstein(const NodeRef& g) {
  // The points of the declaration being defined are values inside its own clauses.
  bool was_leaf = leaves_.count(g->def) > 0;
  leaves_.insert(g->def);
  std::vector<NodeRef> clauses;
  for (auto& c : g->kids) {
    size_t b0 = bound_.size();
    for (const NodeRef& slot : ir::ein_slots(c)) bind(slot->def);
    std::vector<NodeRef> kids;
    for (auto& k : c->kids) kids.push_back(expr(k));
    clauses.push_back(ir::with_kids(c, std::move(kids)));
    unbind_to(b0);
  }
  if (!was_leaf) leaves_.erase(g->def);
  return ir::with_kids(g, std::move(clauses));
}

NodeRef Rewriter::reduce(const NodeRef& r) {
  size_t b0 = bound_.size();
  for (const NodeRef& slot : ir::reduce_slots(r)) bind(slot->def);
  std::vector<NodeRef> kids;
  for (auto& k : r->kids) kids.push_back(expr(k));
  unbind_to(b0);
  return ir::with_kids(r, std::move(kids));
}

NodeRef Rewriter::where(const NodeRef& w) {
  // Items bind in order; the value sees them all. A where-binding is a definition to follow.
  size_t b0 = bound_.size();
  std::vector<DefId> shown;
  std::vector<NodeRef> clauses;
  for (const NodeRef& c : ir::where_clauses(w)) {
    NodeRef nc = ir::with_kids(c, {expr(ir::where_clause_expr(c))});
    clauses.push_back(nc);
    if (c->kind == Kind::WBind) {
      visible_[c->def] = let_stmt(c->name, c->def, ir::wbind_value(nc));
      shown.push_back(c->def);
    }
    if (c->kind == Kind::WBind || c->kind == Kind::WDerived) bind(c->def);
  }
  NodeRef value = expr(ir::where_expr(w));  // sees every item
  for (auto& d : shown) visible_.erase(d);
  unbind_to(b0);
  return ir::with_kids(w, ir::kid_list(value, clauses));
}

NodeRef Rewriter::comp(const NodeRef& c) {
  size_t b0 = bound_.size();
  std::vector<DefId> shown;
  std::vector<NodeRef> clauses;
  for (const NodeRef& g : ir::comp_clauses(c)) {
    NodeRef ng = ir::with_kids(g, {expr(ir::comp_clause_expr(g))});
    clauses.push_back(ng);
    if (g->kind == Kind::CompGen) {
      bind(g->def);
      leaves_.insert(g->def);
    } else if (g->kind == Kind::CompLet) {
      visible_[g->def] = let_stmt(g->name, g->def, ir::complet_value(ng));
      shown.push_back(g->def);
      bind(g->def);
    }
  }
  NodeRef elem = expr(ir::comp_elem(c));  // sees every clause
  for (auto& d : shown) visible_.erase(d);
  unbind_to(b0);
  return ir::with_kids(c, ir::kid_list(elem, clauses));
}

NodeRef Rewriter::match(const NodeRef& m) {
  std::vector<NodeRef> kids{expr(ir::match_scrutinee(m))};
  for (const NodeRef& arm : ir::match_arms(m)) {
    size_t b0 = bound_.size();
    bind_pattern(ir::arm_pattern(arm), true);
    std::vector<NodeRef> sub;
    for (auto& k : arm->kids) sub.push_back(expr(k));
    kids.push_back(ir::with_kids(arm, std::move(sub)));
    unbind_to(b0);
  }
  return ir::with_kids(m, std::move(kids));
}

// ---- requests -----------------------------------------------------------------------------------

bool Rewriter::is_differential(const NodeRef& n) const {
  if (!n) return false;
  if (n->kind == Kind::Diff) return true;
  if (n->kind != Kind::Name || !n->def.valid()) return false;
  return differentials_.count(n->def) || (cx_.persist && cx_.persist->differentials.count(n->def));
}

NodeRef Rewriter::as_diff(const NodeRef& n) const {
  if (n->kind == Kind::Diff) return n;
  if (auto it = differentials_.find(n->def); it != differentials_.end()) return it->second;
  return cx_.persist->differentials.at(n->def);
}

// Does a specialisation (or one it calls) still hold requests? Calls into it are differentiated
// through its rewritten body, once the cell has been analysed with it.
bool Rewriter::unit_waits(const Unit* u, std::unordered_set<const Unit*>& seen) const {
  if (!u || !u->body || !seen.insert(u).second) return false;
  if (has_diff(u->body)) return true;
  bool hit = false;
  ir::for_each_node(u->body, [&](const NodeRef& n) {
    if (!hit && n->kind == Kind::Call) hit = unit_waits(facts_.call_target(n), seen);
  });
  return hit;
}

bool Rewriter::reaches_pending(DefId d, std::unordered_set<DefId>& seen) const {
  if (pending_.count(d)) return true;
  if (!seen.insert(d).second) return false;
  auto it = visible_.find(d);
  if (it == visible_.end()) return false;
  return node_waits(it->second, seen);
}

bool Rewriter::node_waits(const NodeRef& root, std::unordered_set<DefId>& seen) const {
  bool hit = false;
  std::unordered_set<const Unit*> units;
  ir::for_each_node(root, [&](const NodeRef& n) {
    if (hit) return;
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid()) hit = reaches_pending(n->def, seen);
    else if (n->kind == Kind::Call) hit = unit_waits(facts_.call_target(n), units);
  });
  return hit;
}

// A request whose definitions were rewritten in this round has no type facts yet, and one that
// calls a function whose requests are rewritten in this round would differentiate the old body:
// it waits for the analysis of the rewritten cell (the driver runs autodiff again).
bool Rewriter::waits(const NodeRef& q) {
  std::unordered_set<DefId> seen;
  return node_waits(q, seen);
}

NodeRef Rewriter::request(const NodeRef& q) {
  if (waits(q)) {
    ++deferred_;
    return q;
  }
  if (q->kind == Kind::Diff) return differential(q);
  NodeRef r = quotient(q);
  if (r == q) return q;
  r = spanned(r, q->span);
  const NodeRef& T = quotient_of(q);
  std::string tn = T->kind == Kind::Index ? ir::index_base(T)->name : T->name;
  r = place(r, "grad_" + tn, q->span);
  const NodeRef& X = quotient_by(q);

  if (T->kind == Kind::Name && X->kind == Kind::Name && T->def.valid() && X->def.valid()) {
    int ry = ir::rank_of(facts_.def_type(T->def)), rx = ir::rank_of(facts_.def_type(X->def));
    if (ry >= 0 && rx >= 0) cx_.ad_shape_checks.push_back({r->id, ry + rx, q->span});
  }
  return r;
}

// ---- placement ----------------------------------------------------------------------------------

size_t Rewriter::level_of_def(DefId d) const {
  auto it = bound_at_.find(d);
  if (it == bound_at_.end()) return 0;
  for (size_t l = 0; l < levels_.size(); ++l)
    if (levels_[l].mark > it->second) return l;
  return levels_.size();  // bound inside the innermost current statement: nowhere to hoist to
}

size_t Rewriter::hoist_level(const NodeRef& value) const {
  std::unordered_set<DefId> inner = binders_in(value);
  size_t level = 0;
  ir::for_each_node(value, [&](const NodeRef& n) {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid() &&
        !inner.count(n->def))
      level = std::max(level, level_of_def(n->def));
  });
  return level;
}

NodeRef Rewriter::place(const NodeRef& value, const std::string& nm, Span span) {
  if (!value || value->kind == Kind::Name || value->kind == Kind::StrLit || levels_.empty()) return value;
  size_t l = hoist_level(value);
  if (l >= levels_.size() || bound_.size() <= levels_[l].mark) return value;  // nothing per point between: stays
  DefId d = cx_.resolver.new_def(nm, DefKind::Local, span);
  levels_[l].prelude.push_back(let_stmt(nm, d, value));
  return ir::make_name(nm, d, span);
}

NodeRef Rewriter::with_span(const NodeRef& n, Span s) const {
  return ir::edited(n, [&](ir::Node& m) { m.span = s; });
}

}  // namespace ein::ad
