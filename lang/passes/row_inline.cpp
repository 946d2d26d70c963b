// Calls on a moving row become declarations over the rows (see row_inline.h).
#include "lang/passes/row_inline.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"
#include "lang/resolve/resolver.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

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
bool pure(const CompileCtx& cx, const NodeRef& n, std::unordered_set<DefId>& seen, int depth = 0) {
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

// One statement list's rewrite: the statements of the cell (or of a block inside one of its
// statements), each with the declarations its sites need in front.
class Inliner {
 public:
  explicit Inliner(CompileCtx& cx) : cx_(cx), cell_(cx.cell()) {}
  int rewrites = 0;

  // A top-level statement: the declarations a site needs go into a block that becomes the
  // statement's value, so they are freed with it and never enter the session's bindings.
  NodeRef top(const NodeRef& s) {
    if (!s) return s;
    if (s->kind == Kind::EinGroup) {
      if (cx_.join_candidates.count(s->name) || cx_.joined.count(s->name)) return s;
      std::vector<NodeRef> emits;
      NodeRef g = group(s, emits);
      if (emits.empty()) return s;
      // The group keeps its clauses under a local name; the statement binds the old one.
      DefId inner = cx_.resolver.new_def(s->name, DefKind::Local, s->span);
      std::unordered_map<DefId, DefId> ren{{s->def, inner}};
      g = renamed(g, ren);
      emits.push_back(g);
      NodeRef pat = ir::make({.kind = Kind::PBind, .span = s->span, .name = s->name, .def = s->def});
      NodeRef val = block(std::move(emits), irb::ref(s->name, inner, s->span), s->span);
      return ir::make({.kind = Kind::Let, .span = s->span, .kids = {pat, nullptr, val}});
    }
    if (s->kind == Kind::Let) {
      std::vector<NodeRef> emits;
      NodeRef v = value_of(ir::let_value(*s), emits);
      if (emits.empty() && v == ir::let_value(*s)) return s;
      if (!emits.empty()) v = block(std::move(emits), v, v->span);
      return ir::with_kids(s, {s->kids[0], s->kids[1], v});
    }
    return s;
  }

 private:
  CompileCtx& cx_;
  Unit& cell_;
  bool trace_ = cx_.opt.row_inline == 2;

  // ---- the statement around a site ------------------------------------------------------
  // Index variables bound around the current point of the statement, outermost first, that a
  // row may be taken along (declaration slots, reduction slots); and every other binder of the
  // statement (a row may not read those).
  std::vector<DefId> rows_;
  std::unordered_set<DefId> local_;
  DefId self_;
  // Row indices of rewritten sites: their ranges were inferred from the reads the call's
  // arguments made (`S[h, i - 1]` starts i at 1), which moved into the new declarations, so
  // the statement states them (`i in 1..3`) instead of inferring them again from the read of
  // the result (allocated from 0).
  std::unordered_set<DefId> explicit_;

  NodeRef with_explicit_ranges(const NodeRef& n) {
    if (!n || explicit_.empty()) return n;
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : n->kids) {
      kids.push_back(with_explicit_ranges(k));
      changed = changed || kids.back() != k;
    }
    if (n->kind == Kind::IdxVar && explicit_.count(n->def)) {
      const RangeFact& f = cell_.ranges.at(n->def);
      NodeRef lo = f.lo_const ? irb::lit(*f.lo_const) : f.lo;
      NodeRef hi = f.hi_const ? irb::lit(*f.hi_const) : f.hi;
      NodeRef rg = ir::make({.kind = Kind::RangeLit, .span = n->span, .kids = {lo, hi}});
      return ir::make({.kind = Kind::IdxIn, .span = n->span, .kids = {rg}, .name = n->name, .def = n->def});
    }
    return changed ? ir::with_kids(n, std::move(kids)) : n;
  }

  NodeRef renamed(const NodeRef& n, const std::unordered_map<DefId, DefId>& ren) {
    if (!n) return n;
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : n->kids) {
      kids.push_back(renamed(k, ren));
      changed = changed || kids.back() != k;
    }
    auto it = ren.find(n->def);
    if (it != ren.end()) return ir::edited(n, [&](ir::Node& x) {
        x.def = it->second;
        x.kids = std::move(kids);
      });
    return changed ? ir::with_kids(n, std::move(kids)) : n;
  }

  // A value that may be a block: its statements are rewritten in place (the declarations a
  // site needs go before the statement), then its tail.
  NodeRef value_of(const NodeRef& v, std::vector<NodeRef>& emits) {
    if (v && v->kind == Kind::Block) {
      std::vector<NodeRef> out;
      bool changed = false;
      size_t n = v->kids.size();
      bool tail = v->has(ir::kHasTail);
      for (size_t i = 0; i < n; ++i) {
        const NodeRef& s = v->kids[i];
        std::vector<NodeRef> mine;
        NodeRef r = s;
        if (s && s->kind == Kind::EinGroup) r = group(s, mine);
        else if (s && s->kind == Kind::Let) r = ir::with_kids(s, {s->kids[0], s->kids[1], value_of(ir::let_value(*s), mine)});
        else if (s && tail && i + 1 == n) r = value_of(s, mine);
        changed = changed || r != s || !mine.empty();
        for (auto& m : mine) out.push_back(m);
        out.push_back(r);
      }
      return changed ? ir::with_kids(v, std::move(out)) : v;
    }
    rows_.clear();
    local_.clear();
    self_ = DefId{};
    explicit_.clear();
    return with_explicit_ranges(expr(v, emits));
  }

  NodeRef group(const NodeRef& g, std::vector<NodeRef>& emits) {
    std::vector<NodeRef> clauses;
    bool changed = false;
    for (const NodeRef& c : ir::group_clauses(g)) {
      if (!c || c->kind != Kind::EinDecl) {
        clauses.push_back(c);
        continue;
      }
      rows_.clear();
      local_.clear();
      self_ = g->def;
      for (const NodeRef& sl : ir::ein_slots(c)) {
        if (!sl || !sl->def.valid()) continue;
        if (sl->kind == Kind::IdxVar || sl->kind == Kind::IdxIn) rows_.push_back(sl->def);
        else local_.insert(sl->def);
      }
      explicit_.clear();
      NodeRef v = expr(ir::ein_value(c), emits);
      std::vector<NodeRef> kids = c->kids;
      kids[0] = v;
      changed = changed || v != ir::ein_value(c);
      clauses.push_back(with_explicit_ranges(ir::with_kids(c, std::move(kids))));
    }
    return changed ? ir::with_kids(g, std::move(clauses)) : g;
  }

  // The expression with its sites rewritten (kids first: a call on a row whose argument is
  // itself such a call reads the first call's declaration at the row).
  NodeRef expr(const NodeRef& e, std::vector<NodeRef>& emits) {
    if (!e) return e;
    if (e->kind == Kind::Reduce) {
      size_t mark = rows_.size();
      for (const NodeRef& sl : ir::reduce_slots(e))
        if (sl && (sl->kind == Kind::IdxVar || sl->kind == Kind::IdxIn)) rows_.push_back(sl->def);
      std::vector<NodeRef> kids;
      bool changed = false;
      for (auto& k : e->kids) {
        kids.push_back(expr(k, emits));
        changed = changed || kids.back() != k;
      }
      // Rows taken along a reduction's index are only valid inside it.
      rows_.resize(mark);
      for (const NodeRef& sl : ir::reduce_slots(e))
        if (sl) local_.insert(sl->def);
      return changed ? ir::with_kids(e, std::move(kids)) : e;
    }
    if (binder_kind(e->kind) && e->def.valid()) local_.insert(e->def);
    if (e->kind == Kind::Lambda || e->kind == Kind::Block || e->kind == Kind::Where || e->kind == Kind::Comp ||
        e->kind == Kind::Match) {
      // Binders inside: a row may not read them (not tracked per point here).
      ir::for_each_node(e, [&](const NodeRef& n) {
        if (binder_kind(n->kind) && n->def.valid()) local_.insert(n->def);
      });
      return e;
    }
    if (e->kind == Kind::Index && ir::index_base(*e)->kind == Kind::Call) {
      const NodeRef& call = ir::index_base(*e);
      std::vector<NodeRef> ck;
      bool changed = false;
      for (auto& k : call->kids) {
        ck.push_back(k == call->kids[0] ? k : expr(k, emits));
        changed = changed || ck.back() != k;
      }
      NodeRef c2 = changed ? ir::with_kids(call, std::move(ck)) : call;
      std::vector<NodeRef> subs;
      for (size_t i = 1; i < e->kids.size(); ++i) subs.push_back(expr(e->kids[i], emits));
      if (NodeRef r = site(call, c2, subs, e->span, emits)) return r;
      std::vector<NodeRef> kids{c2};
      for (auto& s : subs) kids.push_back(s);
      return ir::with_kids(e, std::move(kids));
    }
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : e->kids) {
      kids.push_back(k && e->kind == Kind::Call && k == e->kids[0] ? k : expr(k, emits));
      changed = changed || kids.back() != k;
    }
    NodeRef m = changed ? ir::with_kids(e, std::move(kids)) : e;
    if (e->kind == Kind::Call)
      if (NodeRef r = site(e, m, {}, e->span, emits)) return r;
    return m;
  }

  // ---- one site ------------------------------------------------------------------------
  // What a name of the callee's body stands for in the inlined copy.
  struct Meaning {
    enum class K { Lifted, Row, Expr } k = K::Expr;
    DefId def{};                  // Lifted: the declaration over the rows
    std::string name{};
    NodeRef base{};               // Row: the array the row is read from
    std::vector<NodeRef> subs{};  // Row: its subscripts, in the site's index names
    NodeRef expr{};               // Expr: what stands in place
  };

  struct Copy {
    const Unit* spec = nullptr;
    std::unordered_map<DefId, Meaning> meaning;
    std::unordered_map<DefId, DefId> fresh;  // the body's binders -> their copies
    std::vector<DefId> rows;                 // the site's row indices
    std::unordered_map<DefId, DefId> cur;    // row index -> its name in the declaration being built
    std::vector<NodeRef> out;                // declarations built so far
    bool ok = true;
    std::string why;  // the first reason it does not apply (EIN_ROW_INLINE=trace)
  };

  std::string where(Span s) const {
    if (!cx_.sm.has(s.file)) return "?";
    return "line " + std::to_string(cx_.sm.start(s).line);
  }

  void fail(Copy& c, const char* why) {
    if (c.ok) c.why = why;
    c.ok = false;
  }

  NodeRef row_name(Copy& c, size_t r, Span at) {
    return irb::ref(cx_.resolver.info(c.rows[r]).name, c.cur.at(c.rows[r]), at);
  }
  std::vector<NodeRef> row_names(Copy& c, Span at) {
    std::vector<NodeRef> v;
    for (size_t r = 0; r < c.rows.size(); ++r) v.push_back(row_name(c, r, at));
    return v;
  }

  // An integer the specialisation knows (a rank, `len(shape(x))`, a let shape analysis folded):
  // a literal in the copy, so tests of it fold again and nothing of the row is read for it.
  std::optional<int64_t> known_int(const Copy& c, const NodeRef& e) {
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
  NodeRef in_cur(Copy& c, const NodeRef& e) {
    if (!e) return e;
    std::vector<NodeRef> kids;
    for (auto& k : e->kids) kids.push_back(in_cur(c, k));
    DefId d = e->def;
    if (e->kind == Kind::Name && c.cur.count(d)) d = c.cur.at(d);
    return remade(e, std::move(kids), d);
  }

  NodeRef read(Copy& c, const Meaning& m, std::vector<NodeRef> more, Span at) {
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
        return index(in_cur(c, m.base), subs, at);
      }
      case Meaning::K::Expr:
        return index(in_cur(c, m.expr), more, at);
    }
    return nullptr;
  }

  NodeRef copy(Copy& c, const NodeRef& e) {
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
    DefId d = e->def;
    if (auto it = c.fresh.find(d); it != c.fresh.end()) d = it->second;
    return remade(e, std::move(kids), d);
  }

  // Fresh slots of the row indices for one new declaration (ranges as at the site).
  std::vector<NodeRef> row_slots(Copy& c, Span at) {
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

  NodeRef declare(const std::string& name, DefId d, const NodeRef& value, const std::vector<NodeRef>& slots,
                  Span at, uint32_t flags) {
    std::vector<NodeRef> kids{value};
    for (auto& s : slots) kids.push_back(s);
    NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = at, .kids = std::move(kids), .name = name, .def = d});
    return ir::make({.kind = Kind::EinGroup, .span = at, .kids = {decl}, .name = name, .def = d, .flags = flags});
  }

  DefId lifted(Copy& c, const NodeRef& binder) {
    DefId d = cx_.resolver.new_def(binder->name, DefKind::Local, binder->span);
    c.meaning[binder->def] = Meaning{.k = Meaning::K::Lifted, .def = d, .name = binder->name};
    return d;
  }

  // Does a copied expression read the rows (their indices, or a declaration over them)?
  bool reads_rows(const Copy& c, const NodeRef& val) const {
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
  void scalar_let(Copy& c, const NodeRef& pat, const NodeRef& v) {
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
  void body(Copy& c, const NodeRef& b, Meaning* result) {
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
  void value(Copy& c, const NodeRef& v, Meaning* result) {
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
  Meaning call_value(Copy& c, const std::string& name, const NodeRef& v, int rank) {
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

  // `call` (as analysed) is `now` after its arguments' own rewrites; `subs` index its result.
  // Returns the read that replaces `call[subs]`, or null (the site stays a call).
  NodeRef site(const NodeRef& call, const NodeRef& now, const std::vector<NodeRef>& subs, Span at,
               std::vector<NodeRef>& emits) {
    if (rows_.empty()) return nullptr;
    auto tg = cell_.call_targets.find(call->id);
    if (tg == cell_.call_targets.end() || !tg->second || tg->second->kind != Unit::Kind::Fn) return nullptr;
    const Unit* spec = tg->second;
    if (!spec->body || spec->body->kind != Kind::Fn || spec->in_progress) return nullptr;
    ir::Kids params = ir::fn_params(*spec->body);
    ir::Kids args = ir::call_args(*now);
    if (params.size() != args.size()) return nullptr;
    // The rows the arguments move with: every statement binder they read must be one of the
    // row indices around the site, with a range known here; ranges naming other row indices
    // bring those along.
    std::unordered_set<DefId> want;
    for (auto& a : args)
      for (DefId d : names_in(a)) {
        if (d == self_) return nullptr;  // a recurrence's own row: the call stays (per step)
        if (std::find(rows_.begin(), rows_.end(), d) != rows_.end()) want.insert(d);
        else if (local_.count(d)) return nullptr;
      }
    if (want.empty()) return nullptr;
    for (bool grew = true; grew;) {
      grew = false;
      for (DefId r : std::vector<DefId>(want.begin(), want.end())) {
        auto f = cell_.ranges.find(r);
        if (f == cell_.ranges.end() || !f->second.lo || !f->second.hi) return nullptr;
        for (const NodeRef& b : {f->second.lo, f->second.hi})
          for (DefId d : names_in(b)) {
            if (d == self_) return nullptr;
            if (std::find(rows_.begin(), rows_.end(), d) != rows_.end()) grew = want.insert(d).second || grew;
            else if (local_.count(d)) return nullptr;
          }
      }
    }
    Copy c;
    c.spec = spec;
    for (DefId r : rows_)
      if (want.count(r)) c.rows.push_back(r);
    std::vector<NodeRef> hoisted;
    bool array_row = false;  // a call on elements (`sq(x[i])`) is left to the kernels' inlining
    for (size_t a = 0; a < params.size(); ++a) {
      const NodeRef& p = params[a];
      const NodeRef& x = args[a];
      bool moves = false;
      for (DefId d : names_in(x)) moves = moves || want.count(d);
      if (moves) {
        // A row: an array read at subscripts of the rows (at most the array's rank).
        if (x->kind != Kind::Index) return nullptr;
        const NodeRef& base = ir::index_base(*x);
        if ((base->kind != Kind::Name && base->kind != Kind::Path) || local_.count(base->def)) return nullptr;
        Meaning m{.k = Meaning::K::Row, .base = base};
        for (size_t i = 1; i < x->kids.size(); ++i) {
          if (x->kids[i]->kind == Kind::RestIdx) return nullptr;
          m.subs.push_back(x->kids[i]);
        }
        c.meaning[p->def] = m;
        auto pt = spec->def_types.find(p->def);
        if (pt != spec->def_types.end() && ir::rank_of(pt->second) > 0) array_row = true;
      } else if (x->kind == Kind::Name || x->kind == Kind::Path || x->kind == Kind::IntLit ||
                 x->kind == Kind::FloatLit || x->kind == Kind::BoolLit || x->kind == Kind::StrLit) {
        c.meaning[p->def] = Meaning{.k = Meaning::K::Expr, .expr = x};
      } else if (!has_call(x)) {
        // Evaluated once before the rows instead of once per point: the same value (no calls,
        // so no effects).
        DefId d = cx_.resolver.new_def(p->name, DefKind::Local, x->span);
        NodeRef pat = ir::make({.kind = Kind::PBind, .span = x->span, .name = p->name, .def = d});
        hoisted.push_back(ir::make({.kind = Kind::Let, .span = x->span, .kids = {pat, nullptr, x}}));
        c.meaning[p->def] = Meaning{.k = Meaning::K::Expr, .expr = irb::ref(p->name, d, x->span)};
      } else {
        return nullptr;
      }
    }
    if (!array_row) return nullptr;
    // The body's own binders get fresh names (one copy per site).
    ir::for_each_node(ir::fn_body(*spec->body), [&](const NodeRef& n) {
      if (binder_kind(n->kind) && n->def.valid() && !c.fresh.count(n->def) && n->kind != Kind::EinGroup &&
          n->kind != Kind::EinDecl)
        c.fresh[n->def] = cx_.resolver.new_def(n->name, n->kind == Kind::IdxVar || n->kind == Kind::IdxIn
                                                            ? DefKind::Index : DefKind::Local, n->span);
    });
    Meaning result;
    body(c, ir::fn_body(*spec->body), &result);
    if (!c.ok || c.out.empty()) {
      if (trace_)
        std::fprintf(stderr, "row_inline: call of %s at %s kept: %s\n", spec->name.c_str(),
                     where(call->span).c_str(), c.ok ? "nothing to inline" : c.why.c_str());
      return nullptr;
    }
    if (trace_)
      std::fprintf(stderr, "row_inline: call of %s at %s inlined over %zu row indices\n", spec->name.c_str(),
                   where(call->span).c_str(), c.rows.size());
    for (auto& h : hoisted) emits.push_back(h);
    for (auto& o : c.out) emits.push_back(o);
    // The call's value at the site's row: the row indices are the site's own names again.
    c.cur.clear();
    for (DefId r : c.rows) c.cur[r] = r;
    for (DefId r : c.rows) explicit_.insert(r);
    ++rewrites;
    return read(c, result, subs, at);
  }
};

}  // namespace

void row_inline(CompileCtx& cx) {
  if (cx.opt.row_inline == 0) return;
  NodeRef prog = cx.cell().body;
  if (!prog || prog->kind != Kind::Program) return;
  Inliner in(cx);
  std::vector<NodeRef> out;
  for (const NodeRef& s : prog->kids) out.push_back(in.top(s));
  if (in.rewrites > 0) cx.cell().body = ir::with_kids(prog, std::move(out));
}

}  // namespace ein
