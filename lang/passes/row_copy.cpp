// The body copier of row_inline (see row_copy.h).
#include "lang/passes/row_copy.h"

#include <algorithm>
#include <functional>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"
#include "lang/resolve/resolver.h"

namespace ein::row_inline_detail {

// A copy of `n` with a fresh id (two inlined copies of one body must not share the per-node
// tables of the cell) and the given kids; facts of the lowering tiers are not carried over.
NodeRef remade(const NodeRef& n, std::vector<NodeRef> kids, DefId def) {
  return ir::edited(ir::rebuilt_fresh(n, std::move(kids), def),
                    [](ir::Node& m) { m.flags &= ~(ir::kProven | ir::kInvariantCall); });
}

NodeRef index(NodeRef base, std::vector<NodeRef> subs, Span at) {
  if (subs.empty()) return base;
  subs.insert(subs.begin(), std::move(base));
  return ir::make({.kind = Kind::Index, .span = at, .kids = std::move(subs)});
}

NodeRef block(std::vector<NodeRef> stmts, NodeRef tail, Span at) {
  stmts.push_back(std::move(tail));
  return ir::make({.kind = Kind::Block, .span = at, .kids = std::move(stmts), .flags = ir::kHasTail});
}

bool binder_kind(Kind k) {
  switch (k) {
    case Kind::PBind:
    case Kind::IdxVar:
    case Kind::IdxIn:
    case Kind::EinGroup:
    case Kind::EinDecl:
    case Kind::Param:
    case Kind::WBind:
    case Kind::WDerived:
    case Kind::CompGen:
    case Kind::CompLet:
    case Kind::PAt:
      return true;
    default:
      return false;
  }
}

// Names (resolved) that `e` reads.
std::unordered_set<DefId> names_in(const NodeRef& e) {
  std::unordered_set<DefId> out;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid()) out.insert(n->def);
  });
  return out;
}

bool has_call(const NodeRef& e) {
  bool hit = false;
  ir::for_each_node(e, [&](const NodeRef& n) { hit = hit || n->kind == Kind::Call || n->kind == Kind::Lambda; });
  return hit;
}

// A condition the specialisation decides (rank and shape tests: `a >= 0 && a < rank`).
std::optional<bool> fold_bool(const CompileCtx& cx, const Unit& u, const NodeRef& e) {
  if (!e) return std::nullopt;
  if (e->kind == Kind::BoolLit) return e->ival != 0;
  if (e->kind == Kind::Unary && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Not) {
    auto a = fold_bool(cx, u, ir::unary_operand(*e));
    if (a) return !*a;
    return std::nullopt;
  }
  if (e->kind != Kind::Binary) return std::nullopt;
  auto op = static_cast<ir::BinOp>(e->ival);
  if (op == ir::BinOp::And || op == ir::BinOp::Or) {
    auto a = fold_bool(cx, u, ir::bin_lhs(*e)), b = fold_bool(cx, u, ir::bin_rhs(*e));
    if (op == ir::BinOp::And && ((a && !*a) || (b && !*b))) return false;
    if (op == ir::BinOp::Or && ((a && *a) || (b && *b))) return true;
    if (a && b) return op == ir::BinOp::And ? (*a && *b) : (*a || *b);
    return std::nullopt;
  }
  auto a = fold_int(cx, u, ir::bin_lhs(*e)), b = fold_int(cx, u, ir::bin_rhs(*e));
  if (!a || !b) return std::nullopt;
  switch (op) {
    case ir::BinOp::Eq: return *a == *b;
    case ir::BinOp::Ne: return *a != *b;
    case ir::BinOp::Lt: return *a < *b;
    case ir::BinOp::Le: return *a <= *b;
    case ir::BinOp::Gt: return *a > *b;
    case ir::BinOp::Ge: return *a >= *b;
    default: return std::nullopt;
  }
}

bool effectful(Builtin b) {
  switch (b) {
    case Builtin::Print: case Builtin::SaveNpy: case Builtin::WriteFile: case Builtin::FsDo:
    case Builtin::LoadNpy: case Builtin::ReadFile: case Builtin::FileExists: case Builtin::ListDir:
    case Builtin::FileSize: case Builtin::FsTest: case Builtin::FsStr: case Builtin::Check:
    case Builtin::Assert:
      return true;
    default: return false;
  }
}

// Every call in `n` (through every function it reaches) is without effects or checks: a value
// that may be computed once instead of once per row.
bool pure(const CompileCtx& cx, const NodeRef& n, std::unordered_set<DefId>& seen, int depth) {
  bool ok = depth < 16;
  ir::for_each_node(n, [&](const NodeRef& k) {
    if (!ok) return;
    if (k->kind == Kind::Lambda) ok = false;
    if (k->kind != Kind::Call) return;
    const NodeRef& c = ir::call_callee(*k);
    if ((c->kind != Kind::Name && c->kind != Kind::Path) || !c->def.valid()) ok = false;
    else if (auto b = builtin_of(c->def)) ok = !effectful(*b);
    else if (cx.resolver.info(c->def).kind != DefKind::Fn || !cx.resolver.info(c->def).node) ok = false;
    else if (seen.insert(c->def).second) ok = pure(cx, cx.resolver.info(c->def).node, seen, depth + 1);
  });
  return ok;
}

void RowCopier::fail(Copy& c, const char* why) {
  if (c.ok) c.why = why;
  c.ok = false;
}

NodeRef RowCopier::row_name(Copy& c, size_t r, Span at) {
  return irb::ref(cx_.resolver.info(c.rows[r]).name, c.cur.at(c.rows[r]), at);
}
std::vector<NodeRef> RowCopier::row_names(Copy& c, Span at) {
  std::vector<NodeRef> v;
  for (size_t r = 0; r < c.rows.size(); ++r) v.push_back(row_name(c, r, at));
  return v;
}

// An integer the specialisation knows (a rank, `len(shape(x))`, a let shape analysis folded):
// a literal in the copy, so tests of it fold again and nothing of the row is read for it.
std::optional<int64_t> RowCopier::known_int(const Copy& c, const NodeRef& e) {
  if (e->kind == Kind::Call && ir::call_args(*e).size() == 1 &&
      builtin_of(ir::call_callee(*e)->def) == std::optional<Builtin>(Builtin::Len)) {
    const NodeRef& a = ir::call_args(*e)[0];
    if (a->kind == Kind::Call && ir::call_args(*a).size() == 1 &&
        builtin_of(ir::call_callee(*a)->def) == std::optional<Builtin>(Builtin::Shape)) {
      const NodeRef& x = ir::call_args(*a)[0];
      if (x->kind == Kind::Name)
        if (auto t = c.spec->def_types.find(x->def); t != c.spec->def_types.end() && ir::rank_of(t->second) >= 0)
          return ir::rank_of(t->second);
    }
  }
  if (e->kind == Kind::Name && c.spec->int_values.count(e->def)) return c.spec->int_values.at(e->def);
  return std::nullopt;
}

// Row subscripts: written in the site's index names, read in the current declaration's.
NodeRef RowCopier::in_cur(Copy& c, const NodeRef& e) {
  if (!e) return e;
  std::vector<NodeRef> kids;
  for (auto& k : e->kids) kids.push_back(in_cur(c, k));
  DefId d = e->def;
  if (e->kind == Kind::Name && c.cur.count(d)) d = c.cur.at(d);
  return remade(e, std::move(kids), d);
}

NodeRef RowCopier::read(Copy& c, const Meaning& m, std::vector<NodeRef> more, Span at) {
  switch (m.k) {
    case Meaning::K::Lifted: {
      std::vector<NodeRef> subs = row_names(c, at);
      for (auto& x : more) subs.push_back(x);
      return index(irb::ref(m.name, m.def, at), subs, at);
    }
    case Meaning::K::Row: {
      std::vector<NodeRef> subs;
      for (auto& s : m.subs) subs.push_back(in_cur(c, s));
      for (auto& x : more) subs.push_back(x);
      NodeRef r = index(in_cur(c, m.base), subs, at);
      if (!m.wrap) return r;
      std::vector<NodeRef> kids{ir::call_callee(*m.wrap)};
      ir::Kids args = ir::call_args(*m.wrap);
      for (size_t a = 0; a < args.size(); ++a) kids.push_back(a == m.wrap_at ? r : in_cur(c, args[a]));
      return ir::make({.kind = Kind::Call, .span = at, .kids = std::move(kids)});
    }
    case Meaning::K::Expr:
      return index(in_cur(c, m.expr), more, at);
  }
  return nullptr;
}

NodeRef RowCopier::copy(Copy& c, const NodeRef& e) {
  if (!e || !c.ok) return e;
  if (auto k = known_int(c, e)) return ir::make({.kind = Kind::IntLit, .span = e->span, .ival = *k});
  if ((e->kind == Kind::Name || e->kind == Kind::Path) && c.meaning.count(e->def))
    return read(c, c.meaning.at(e->def), {}, e->span);
  if (e->kind == Kind::Index && c.meaning.count(ir::index_base(*e)->def) &&
      (ir::index_base(*e)->kind == Kind::Name || ir::index_base(*e)->kind == Kind::Path)) {
    std::vector<NodeRef> more;
    for (size_t i = 1; i < e->kids.size(); ++i) more.push_back(copy(c, e->kids[i]));
    return read(c, c.meaning.at(ir::index_base(*e)->def), std::move(more), e->span);
  }
  if (e->kind == Kind::DimOf && ir::dimof_tensor(*e)->def.valid() && c.meaning.count(ir::dimof_tensor(*e)->def)) {
    const Meaning& m = c.meaning.at(ir::dimof_tensor(*e)->def);
    NodeRef base = m.k == Meaning::K::Lifted ? irb::ref(m.name, m.def, e->span)
                   : m.k == Meaning::K::Row  ? in_cur(c, m.base)
                                             : in_cur(c, m.expr);
    int64_t shift = m.k == Meaning::K::Lifted ? static_cast<int64_t>(c.rows.size())
                    : m.k == Meaning::K::Row  ? static_cast<int64_t>(m.subs.size())
                                              : 0;
    return ir::make({.kind = Kind::DimOf, .span = e->span, .kids = {base}, .ival = e->ival + shift});
  }
  if (e->kind == Kind::Call && ir::call_args(*e).size() == 1) {
    auto b = builtin_of(ir::call_callee(*e)->def);
    const NodeRef& a = ir::call_args(*e)[0];
    if (b && *b == Builtin::Len && (a->kind == Kind::Name) && c.meaning.count(a->def) &&
        c.meaning.at(a->def).k != Meaning::K::Expr) {
      NodeRef d = ir::make({.kind = Kind::DimOf, .span = e->span, .kids = {a}, .ival = 0});
      return copy(c, d);
    }
  }
  if (e->kind == Kind::If) {
    auto it = c.spec->static_ifs.find(e->id);
    if (it != c.spec->static_ifs.end()) {
      const NodeRef& br = it->second ? ir::if_then(*e) : ir::if_else(*e);
      if (br && br->kind == Kind::Block && br->has(ir::kHasTail) && br->kids.size() == 1) return copy(c, br->kids[0]);
      if (br && br->kind != Kind::Block) return copy(c, br);
    }
    // A branch decided per row stays a branch: fine inside a declaration's value.
  }
  if (e->kind == Kind::RestIdx || e->kind == Kind::IdxRest || e->kind == Kind::Diff) {
    fail(c, "rest pattern or derivative in the body");
    return e;
  }
  std::vector<NodeRef> kids;
  for (auto& k : e->kids) kids.push_back(copy(c, k));
  if (c.step && e->kind == Kind::Reduce)
    for (size_t i = 1; i < kids.size(); ++i) kids[i] = ranged_slot(c, e->kids[i], kids[i]);
  DefId d = e->def;
  if (auto it = c.fresh.find(d); it != c.fresh.end()) d = it->second;
  return remade(e, std::move(kids), d);
}

// A reduction's index in a recurrence step's copy (`max[j](f[j])` on `h[t - 1]`): an explicit
// range, the specialisation's (`0..dim(f, 0)`) in the site's terms (`0..dim(h, 1)`), folded to
// a literal where it names the recurrence's own tensor (`0..64`). Inferred again from the copy
// it would come from a read of the tensor being defined, which has no extent yet (E004); an
// extent of it known only at run time keeps the call.
NodeRef RowCopier::ranged_slot(Copy& c, const NodeRef& was, const NodeRef& now) {
  if (!now || now->kind != Kind::IdxVar) return now;
  auto f = c.spec->ranges.find(was->def);
  NodeRef lo = f == c.spec->ranges.end() ? nullptr : step_bound(c, f->second, false);
  NodeRef hi = f == c.spec->ranges.end() ? nullptr : step_bound(c, f->second, true);
  if (!lo || !hi) {
    fail(c, "a row extent not known before the run (recurrence step)");
    return now;
  }
  NodeRef rg = ir::make({.kind = Kind::RangeLit, .span = now->span, .kids = {lo, hi}});
  return ir::make({.kind = Kind::IdxIn, .span = now->span, .kids = {rg}, .name = now->name, .def = now->def});
}

// One bound of a specialisation's range in a step copy: a literal, or the copied expression
// with the extents of the step's own declarations put in (`dim(e, 0)` is e's index's range),
// folded; null when it still names the recurrence's tensor or a step declaration.
NodeRef RowCopier::step_bound(Copy& c, const RangeFact& f, bool hi) {
  if (const std::optional<int64_t>& k = hi ? f.hi_const : f.lo_const) return irb::lit(*k);
  const NodeRef& b = hi ? f.hi : f.lo;
  if (!b) return nullptr;
  const bool was_ok = c.ok;
  NodeRef e = copy(c, b);
  if (!c.ok) {
    if (was_ok) c.ok = true;  // only this bound is unknown
    return nullptr;
  }
  std::function<NodeRef(const NodeRef&)> put = [&](const NodeRef& n) -> NodeRef {
    if (!n) return n;
    if (n->kind == Kind::DimOf && ir::dimof_tensor(*n)->def.valid()) {
      auto it = c.extents.find(ir::dimof_tensor(*n)->def);
      if (it != c.extents.end() && n->ival >= 0 && static_cast<size_t>(n->ival) < it->second.size() &&
          it->second[static_cast<size_t>(n->ival)])
        return it->second[static_cast<size_t>(n->ival)];
    }
    std::vector<NodeRef> kids;
    for (auto& k : n->kids) kids.push_back(put(k));
    return remade(n, std::move(kids), n->def);
  };
  e = put(e);
  if (auto v = fold_int(cx_, cell_, e)) return irb::lit(*v);
  for (DefId d : names_in(e))
    if (d == c.self || c.extents.count(d)) return nullptr;
  return e;
}

// Fresh slots of the row indices for one new declaration (ranges as at the site).
std::vector<NodeRef> RowCopier::row_slots(Copy& c, Span at) {
  c.cur.clear();
  for (DefId r : c.rows) c.cur[r] = cx_.resolver.new_def(cx_.resolver.info(r).name, DefKind::Index, at);
  std::vector<NodeRef> slots;
  for (DefId r : c.rows) {
    const RangeFact& f = cell_.ranges.at(r);
    NodeRef lo = f.lo_const ? irb::lit(*f.lo_const) : in_cur(c, f.lo);
    NodeRef hi = f.hi_const ? irb::lit(*f.hi_const) : in_cur(c, f.hi);
    NodeRef rg = ir::make({.kind = Kind::RangeLit, .span = at, .kids = {lo, hi}});
    slots.push_back(ir::make({.kind = Kind::IdxIn, .span = at, .kids = {rg},
                              .name = cx_.resolver.info(r).name, .def = c.cur.at(r)}));
  }
  return slots;
}

NodeRef RowCopier::declare(const std::string& name, DefId d, const NodeRef& value,
                           const std::vector<NodeRef>& slots, Span at, uint32_t flags) {
  std::vector<NodeRef> kids{value};
  for (auto& s : slots) kids.push_back(s);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = at, .kids = std::move(kids), .name = name, .def = d});
  return ir::make({.kind = Kind::EinGroup, .span = at, .kids = {decl}, .name = name, .def = d, .flags = flags});
}

DefId RowCopier::lifted(Copy& c, const NodeRef& binder) {
  DefId d = cx_.resolver.new_def(binder->name, DefKind::Local, binder->span);
  c.meaning[binder->def] = Meaning{.k = Meaning::K::Lifted, .def = d, .name = binder->name};
  return d;
}

// Does a copied expression read the rows (their indices, or a declaration over them)?
bool RowCopier::reads_rows(const Copy& c, const NodeRef& val) const {
  std::unordered_set<DefId> lifted_defs;
  for (auto& [d, m] : c.meaning)
    if (m.k == Meaning::K::Lifted) lifted_defs.insert(m.def);
  for (DefId d : names_in(val)) {
    if (lifted_defs.count(d)) return true;
    for (auto& [r, o] : c.cur)
      if (d == o || d == r) return true;
  }
  return false;
}

// A scalar let of the body, lifted to a declaration over the rows; one that reads nothing of
// the rows and calls nothing with effects stays a let (computed once, `ax = attr_i32(axis)`).
void RowCopier::scalar_let(Copy& c, const NodeRef& pat, const NodeRef& v) {
  std::vector<NodeRef> slots = row_slots(c, pat->span);
  NodeRef val = copy(c, v);
  std::unordered_set<DefId> seen;
  if (!reads_rows(c, val) && pure(cx_, val, seen)) {
    DefId d = cx_.resolver.new_def(pat->name, DefKind::Local, pat->span);
    NodeRef p = ir::make({.kind = Kind::PBind, .span = pat->span, .name = pat->name, .def = d});
    c.out.push_back(ir::make({.kind = Kind::Let, .span = pat->span, .kids = {p, nullptr, val}}));
    c.meaning[pat->def] = Meaning{.k = Meaning::K::Expr, .expr = irb::ref(pat->name, d, pat->span)};
    return;
  }
  DefId d = lifted(c, pat);
  c.out.push_back(declare(pat->name, d, val, slots, pat->span, 0));
}

// The body's statements (a block, or a branch its specialisation took); the tail's meaning
// goes to `*result`.
void RowCopier::body(Copy& c, const NodeRef& b, Meaning* result) {
  if (!b || b->kind != Kind::Block) {
    fail(c, "body is not a block");
    return;
  }
  size_t n = b->kids.size();
  bool tail = b->has(ir::kHasTail);
  for (size_t i = 0; i < n && c.ok; ++i) {
    const NodeRef& s = b->kids[i];
    if (!s) continue;
    if (tail && i + 1 == n) {
      if (result) value(c, s, result);
      else fail(c, "a block without value");
      break;
    }
    if (irb::is_item_decl(s->kind)) continue;
    if (s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind) {
      const NodeRef& pat = ir::let_pattern(*s);
      NodeRef v = ir::let_value(*s);
      if ((v->kind == Kind::Name || v->kind == Kind::Path) && c.meaning.count(v->def)) {
        c.meaning[pat->def] = c.meaning.at(v->def);  // an alias: `let f = x;`
      } else if (auto it = c.spec->int_values.find(pat->def); it != c.spec->int_values.end()) {
        c.meaning[pat->def] = Meaning{.k = Meaning::K::Expr, .expr = irb::lit(it->second)};
      } else if (auto t = c.spec->def_types.find(pat->def);
                 t != c.spec->def_types.end() && ir::is_scalar(t->second)) {
        scalar_let(c, pat, v);
      } else if (t != c.spec->def_types.end() && ir::rank_of(t->second) > 0 && v->kind == Kind::Call) {
        // `let p = softmax(v);`: a declaration reading the call at its own indices (a site
        // of the next round).
        c.meaning[pat->def] = call_value(c, pat->name, v, ir::rank_of(t->second));
      } else {
        fail(c, "a let of an array value");
      }
    } else if (s->kind == Kind::EinGroup) {
      DefId d = lifted(c, s);
      std::vector<NodeRef> clauses;
      for (const NodeRef& cl : ir::group_clauses(s)) {
        if (!cl || cl->kind != Kind::EinDecl) {
          fail(c, "a clause that is not a declaration");
          break;
        }
        std::vector<NodeRef> slots = row_slots(c, cl->span);
        for (const NodeRef& sl : ir::ein_slots(cl)) slots.push_back(copy(c, sl));
        if (c.step && !c.extents.count(d)) {
          // Its extents, for reductions over it (`sum[j](e[j])`: j in 0..dim(e, 0)).
          std::vector<NodeRef>& ext = c.extents[d];
          for (const NodeRef& sl : ir::ein_slots(cl)) {
            auto f = sl && sl->def.valid() ? c.spec->ranges.find(sl->def) : c.spec->ranges.end();
            NodeRef lo = f == c.spec->ranges.end() ? nullptr : step_bound(c, f->second, false);
            ext.push_back(lo && irb::as_lit(lo) == std::optional<int64_t>(0) ? step_bound(c, f->second, true) : nullptr);
          }
        }
        std::vector<NodeRef> kids{copy(c, ir::ein_value(cl))};
        for (auto& sl : slots) kids.push_back(sl);
        clauses.push_back(ir::make({.kind = Kind::EinDecl, .span = cl->span, .kids = std::move(kids),
                                    .name = s->name, .def = d}));
      }
      c.out.push_back(ir::make({.kind = Kind::EinGroup, .span = s->span, .kids = std::move(clauses),
                                .name = s->name, .def = d, .flags = s->flags}));
    } else if (s->kind == Kind::ExprStmt && ir::stmt_expr(*s)->kind == Kind::Call) {
      // A check the specialisation decides (a rank or shape test) is dropped when it holds;
      // any other statement (an effect, a check on values) keeps the call.
      // A check that reads nothing of the rows (a test of ranks, of an attribute) is made once
      // before the rows instead of once per row: the same outcome whenever there is a row.
      const NodeRef& call = ir::stmt_expr(*s);
      auto b2 = builtin_of(ir::call_callee(*call)->def);
      if (!b2 || (*b2 != Builtin::Check && *b2 != Builtin::Assert) || ir::call_args(*call).empty()) {
        fail(c, "a statement with an effect");
      } else if (fold_bool(cx_, *c.spec, ir::call_args(*call)[0]) != std::optional<bool>(true)) {
        row_slots(c, s->span);  // names the rows, so a read of them is seen
        NodeRef chk = copy(c, call);
        std::unordered_set<DefId> seen;
        bool args_pure = true;
        for (const NodeRef& a : ir::call_args(*chk)) args_pure = args_pure && pure(cx_, a, seen);
        if (reads_rows(c, chk) || !args_pure) fail(c, "a check on the row's values");
        else c.out.push_back(ir::make({.kind = Kind::ExprStmt, .span = s->span, .kids = {chk}}));
      }
    } else if (s->kind == Kind::ExprStmt && ir::stmt_expr(*s)->kind == Kind::If &&
               c.spec->static_ifs.count(ir::stmt_expr(*s)->id)) {
      const NodeRef& f = ir::stmt_expr(*s);
      const NodeRef& br = c.spec->static_ifs.at(f->id) ? ir::if_then(*f) : ir::if_else(*f);
      if (br) body(c, br, nullptr);
    } else {
      fail(c, "a statement other than let, declaration, check");
    }
  }
}

// The body's value: a name (of a declaration, a lifted let, a parameter), a branch its
// specialisation took, a scalar expression (lifted), or a call returning an array (a
// declaration reading it at its own indices: the call is a site of the next round).
void RowCopier::value(Copy& c, const NodeRef& v, Meaning* result) {
  if ((v->kind == Kind::Name || v->kind == Kind::Path) && c.meaning.count(v->def)) {
    *result = c.meaning.at(v->def);
    return;
  }
  if (v->kind == Kind::If && c.spec->static_ifs.count(v->id)) {
    const NodeRef& br = c.spec->static_ifs.at(v->id) ? ir::if_then(*v) : ir::if_else(*v);
    if (br && br->kind == Kind::Block) body(c, br, result);
    else if (br) value(c, br, result);
    else fail(c, "a branch without value");
    return;
  }
  if (v->kind == Kind::Block) {
    body(c, v, result);
    return;
  }
  int rank = ir::rank_of(c.spec->ret_type);
  if (rank == 0 && ir::is_scalar(c.spec->ret_type)) {
    std::vector<NodeRef> slots = row_slots(c, v->span);
    NodeRef val = copy(c, v);
    DefId d = cx_.resolver.new_def("result", DefKind::Local, v->span);
    c.out.push_back(declare("result", d, val, slots, v->span, 0));
    *result = Meaning{.k = Meaning::K::Lifted, .def = d, .name = "result"};
    return;
  }
  if (rank > 0 && v->kind == Kind::Call) {
    *result = call_value(c, "result", v, rank);
    return;
  }
  fail(c, "a value that is not a name, scalar or call");
}

// An array-valued call of the body as a declaration over the rows reading it at its own
// indices (`result[i', r0] = normalize_trailing(X[i'], ..)[r0]`): the call is a site of the
// next round, whose extents range_call gives.
Meaning RowCopier::call_value(Copy& c, const std::string& name, const NodeRef& v, int rank) {
  std::vector<NodeRef> slots = row_slots(c, v->span);
  std::vector<NodeRef> subs;
  for (int a = 0; a < rank; ++a) {
    std::string nm = "r" + std::to_string(a);
    DefId t = cx_.resolver.new_def(nm, DefKind::Index, v->span);
    slots.push_back(ir::make({.kind = Kind::IdxVar, .span = v->span, .name = nm, .def = t}));
    subs.push_back(irb::ref(nm, t, v->span));
  }
  NodeRef val = index(copy(c, v), subs, v->span);
  DefId d = cx_.resolver.new_def(name, DefKind::Local, v->span);
  c.out.push_back(declare(name, d, val, slots, v->span, 0));
  return Meaning{.k = Meaning::K::Lifted, .def = d, .name = name};
}

}  // namespace ein::row_inline_detail
