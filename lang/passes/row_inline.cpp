// Calls on a moving row become declarations over the rows (see row_inline.h). This file finds
// the sites and the rows they move with; row_copy.cpp copies the callee's body.
#include "lang/passes/row_inline.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/elementwise_fn.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/row_copy.h"
#include "lang/resolve/resolver.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;
using namespace row_inline_detail;

namespace {

// One statement list's rewrite: the statements of the cell (or of a block inside one of its
// statements), each with the declarations its sites need in front.
class Inliner {
 public:
  // `unit`: the cell, or a function specialisation whose body is rewritten (its own tables:
  // call targets, ranges, types).
  Inliner(CompileCtx& cx, Unit& unit) : cx_(cx), cell_(unit) {}
  int rewrites = 0;

  // A function body (a block): its statements rewritten in place.
  NodeRef value(const NodeRef& v, std::vector<NodeRef>& emits) { return value_of(v, emits); }

  // A top-level statement: the declarations a site needs go into a block that becomes the
  // statement's value, so they are freed with it and never enter the session's bindings.
  NodeRef top(const NodeRef& s) {
    if (!s) return s;
    if (s->kind == Kind::EinGroup) {
      if (cx_.join_candidates.count(s->name) || cx_.joined.count(s->name)) return s;
      std::vector<NodeRef> emits;
      NodeRef g = group(s, emits);
      if (emits.empty()) return g;  // only a recurrence step changed (row_step.cpp): in place
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
  RowCopier cp_{cx_, cell_};
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
    if (e->kind == Kind::Block && e->has(ir::kHasTail)) return block_value(e, emits);
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

  // A block inside a value (a recurrence step's inlined call, row_step.cpp, whose tail may call
  // the next function: layer_normalization's normalize_trailing): its lets' values and its tail
  // are searched in order; what the block binds is local from its binding on (a row may not
  // read it), other statements are left alone.
  NodeRef block_value(const NodeRef& e, std::vector<NodeRef>& emits) {
    std::vector<NodeRef> kids;
    bool changed = false;
    for (size_t i = 0; i < e->kids.size(); ++i) {
      const NodeRef& s = e->kids[i];
      NodeRef r = s;
      if (i + 1 == e->kids.size()) {
        r = expr(s, emits);
      } else if (s && s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind) {
        NodeRef v = expr(ir::let_value(*s), emits);
        if (v != ir::let_value(*s)) r = ir::with_kids(s, {s->kids[0], s->kids[1], v});
        local_.insert(ir::let_pattern(*s)->def);
      } else if (s) {
        ir::for_each_node(s, [&](const NodeRef& n) {
          if (binder_kind(n->kind) && n->def.valid()) local_.insert(n->def);
        });
      }
      changed = changed || r != s;
      kids.push_back(r);
    }
    return changed ? ir::with_kids(e, std::move(kids)) : e;
  }

  // ---- one site ------------------------------------------------------------------------
  std::string where(Span s) const {
    if (!cx_.sm.has(s.file)) return "?";
    return "line " + std::to_string(cx_.sm.start(s).line);
  }

  // Does the callee (a named function) have an `@fn` derivative rule?
  bool has_rule(const NodeRef& callee) const {
    return (callee->kind == Kind::Name || callee->kind == Kind::Path) && callee->def.valid() &&
           cx_.resolver.info(callee->def).diff_rule;
  }

  // Is `x` a call of an elementwise function with a derivative rule whose one moving argument
  // is a row (`exp(S[i])`, `leaky_relu(h[t - 1], 0.1)`)? Its other arguments are scalars.
  bool ruled_elementwise_row(const NodeRef& x, const std::unordered_set<DefId>& want, size_t* at) {
    if (x->kind != Kind::Call || !has_rule(ir::call_callee(*x))) return false;
    auto tg = cell_.call_targets.find(x->id);
    if (tg == cell_.call_targets.end() || !tg->second || tg->second->kind != Unit::Kind::Fn ||
        !elementwise_fn(cx_, *tg->second))
      return false;
    ir::Kids args = ir::call_args(*x);
    int moving = 0;
    for (size_t a = 0; a < args.size(); ++a) {
      bool moves = false;
      for (DefId d : names_in(args[a])) moves = moves || want.count(d) || d == self_;
      if (moves) {
        ++moving;
        *at = a;
        if (args[a]->kind != Kind::Index) return false;
      } else if (ir::rank_of(cell_.type(args[a])) != 0 || has_call(args[a])) {
        return false;
      }
    }
    return moving == 1;
  }

  // `f(S[i])[k]` as `f(S[i, k])` for an elementwise f: every argument of the result's rank is
  // read at the subscripts, scalars stay. Null when f is not elementwise or not read at a point.
  NodeRef on_element(const Unit& spec, const NodeRef& call, const NodeRef& now, const std::vector<NodeRef>& subs,
                     Span at) {
    const int r = ir::rank_of(cell_.type(call));
    if (subs.empty() || r != static_cast<int>(subs.size()) || !elementwise_fn(cx_, spec)) return nullptr;
    ir::Kids was = ir::call_args(*call), args = ir::call_args(*now);
    std::vector<NodeRef> kids{ir::call_callee(*now)};
    for (size_t a = 0; a < args.size(); ++a) {
      const int ra = ir::rank_of(cell_.type(was[a]));
      if (ra == 0) {
        kids.push_back(args[a]);
        continue;
      }
      if (ra != r) return nullptr;
      std::vector<NodeRef> ix;
      NodeRef base = args[a];
      if (base->kind == Kind::Index && ir::index_base(*base)->kind != Kind::Call) {
        ix.assign(ir::index_args(*base).begin(), ir::index_args(*base).end());
        base = ir::index_base(*base);
      }
      for (const NodeRef& s : subs) ix.push_back(s);
      kids.push_back(index(base, std::move(ix), at));
    }
    if (trace_)
      std::fprintf(stderr, "row_inline: call of %s at %s taken per element (it has a derivative rule)\n",
                   spec.name.c_str(), where(call->span).c_str());
    ++rewrites;
    return ir::make({.kind = Kind::Call, .span = now->span, .kids = std::move(kids)});
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
    // A callee with a `@fn` rule stays a call: autodiff must use the rule, not the inlined
    // body (SPEC §7; a straight-through rule, or relu's at 0). An elementwise one is called on
    // the element instead of the row.
    if (has_rule(ir::call_callee(*now))) return on_element(*spec, call, now, subs, at);
    ir::Kids params = ir::fn_params(*spec->body);
    ir::Kids args = ir::call_args(*now);
    if (params.size() != args.size()) return nullptr;
    // The rows the arguments move with: every statement binder they read must be one of the
    // row indices around the site, with a range known here; ranges naming other row indices
    // bring those along.
    // An argument reading the recurrence's own tensor (`softmax(h[t - 1])`) makes the site a
    // step site: the copy becomes a block in the step (row_step.cpp), nothing is lifted.
    std::unordered_set<DefId> want;
    bool step = false;
    for (auto& a : args)
      for (DefId d : names_in(a)) {
        if (d == self_) step = true;
        else if (std::find(rows_.begin(), rows_.end(), d) != rows_.end()) want.insert(d);
        else if (local_.count(d)) return nullptr;
      }
    if (want.empty()) return nullptr;
    for (bool grew = !step; grew;) {
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
    c.step = step;
    c.self = self_;
    for (DefId r : rows_)
      if (want.count(r) && !step) c.rows.push_back(r);
    std::vector<NodeRef> hoisted;
    bool array_row = false;  // a call on elements (`sq(x[i])`) is left to the kernels' inlining
    for (size_t a = 0; a < params.size(); ++a) {
      const NodeRef& p = params[a];
      const NodeRef& x = args[a];
      bool moves = false;
      for (DefId d : names_in(x)) moves = moves || want.count(d) || d == self_;
      if (moves) {
        // A row: an array read at subscripts of the rows (at most the array's rank), maybe
        // through an elementwise call with a derivative rule (kept a call per element).
        size_t wrap_at = 0;
        const bool wrapped = ruled_elementwise_row(x, want, &wrap_at);
        const NodeRef row = wrapped ? ir::call_args(*x)[wrap_at] : x;
        if (row->kind != Kind::Index) return nullptr;
        const NodeRef& base = ir::index_base(*row);
        if ((base->kind != Kind::Name && base->kind != Kind::Path) || local_.count(base->def)) return nullptr;
        // The recurrence's tensor only as the row itself (not in a subscript: `x[h[t - 1, 0]]`).
        for (size_t i = 1; i < row->kids.size(); ++i)
          if (names_in(row->kids[i]).count(self_)) return nullptr;
        Meaning m{.k = Meaning::K::Row, .base = base, .wrap = wrapped ? x : nullptr, .wrap_at = wrap_at};
        for (size_t i = 1; i < row->kids.size(); ++i) {
          if (row->kids[i]->kind == Kind::RestIdx) return nullptr;
          m.subs.push_back(row->kids[i]);
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
    cp_.body(c, ir::fn_body(*spec->body), &result);
    auto bound_here = [&](DefId d) {
      return d == self_ || local_.count(d) > 0 || std::find(rows_.begin(), rows_.end(), d) != rows_.end();
    };
    std::vector<NodeRef> checks;
    NodeRef stepped = c.ok && step ? step_block(cp_, c, result, subs, at, cx_, bound_here, checks) : nullptr;
    if (!c.ok || c.out.empty()) {
      if (trace_)
        std::fprintf(stderr, "row_inline: call of %s at %s kept: %s\n", spec->name.c_str(),
                     where(call->span).c_str(), c.ok ? "nothing to inline" : c.why.c_str());
      return nullptr;
    }
    if (trace_ && step)
      std::fprintf(stderr, "row_inline: call of %s at %s inlined into the recurrence step\n", spec->name.c_str(),
                   where(call->span).c_str());
    else if (trace_)
      std::fprintf(stderr, "row_inline: call of %s at %s inlined over %zu row indices\n", spec->name.c_str(),
                   where(call->span).c_str(), c.rows.size());
    for (auto& h : hoisted) emits.push_back(h);
    if (step) {
      for (auto& k : checks) emits.push_back(k);
      ++rewrites;
      return stepped;
    }
    for (auto& o : c.out) emits.push_back(o);
    // The call's value at the site's row: the row indices are the site's own names again.
    c.cur.clear();
    for (DefId r : c.rows) c.cur[r] = r;
    for (DefId r : c.rows) explicit_.insert(r);
    ++rewrites;
    return cp_.read(c, result, subs, at);
  }
};

}  // namespace

// The body of a function specialisation, rewritten with its own tables (an attention function
// calling softmax on each row of its scores): the new body replaces the function for that
// specialisation when the cell is analysed again (CompileCtx::ad_bodies, which type inference
// reads by the specialisation's key, as it does for autodiff's rewrites). Null when unchanged.
NodeRef function_body(CompileCtx& cx, Unit& u) {
  const NodeRef& fn = u.body;
  if (!fn || fn->kind != Kind::Fn || u.key.empty() || u.in_progress) return nullptr;
  // (A body this pass rewrote in an earlier round is the unit's body now, and may go on.)
  if (auto ad = cx.ad_bodies.find(u.key); ad != cx.ad_bodies.end() && ad->second != fn) return nullptr;
  const NodeRef& body = ir::fn_body(*fn);
  if (!body || body->kind != Kind::Block) return nullptr;
  Inliner in(cx, u);
  std::vector<NodeRef> emits;
  NodeRef nb = in.value(body, emits);
  if (in.rewrites == 0 || nb == body || !emits.empty()) return nullptr;
  return ir::with_callable_body(fn, nb);
}

void row_inline(CompileCtx& cx) {
  if (cx.opt.row_inline == 0) return;
  NodeRef prog = cx.cell().body;
  if (!prog || prog->kind != Kind::Program) return;
  bool bodies = false;
  for (size_t i = 1; i < cx.units.size(); ++i)
    if (cx.units[i]->kind == Unit::Kind::Fn)
      if (NodeRef nb = function_body(cx, *cx.units[i])) {
        cx.ad_bodies[cx.units[i]->key] = nb;
        bodies = true;
      }
  Inliner in(cx, cx.cell());
  std::vector<NodeRef> out;
  for (const NodeRef& s : prog->kids) out.push_back(in.top(s));
  // A new cell node also when only function bodies changed: the driver analyses the cell again
  // when its node changed (and restores both when the analyses refuse the round).
  if (in.rewrites > 0 || bodies) cx.cell().body = ir::with_kids(prog, std::move(out));
}

}  // namespace ein
