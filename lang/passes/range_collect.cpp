// Range analysis of one site, part two: collecting what the solver (range_site.cpp) works
// from. The site's index variables and explicit ranges, every access that mentions them as an
// affine form with its axis extent (calls included: their result extents come from range_call),
// and which values are the same at every point of the site.
#include "lang/passes/range_site.h"
#include "lang/passes/range_call.h"

#include <algorithm>
#include <functional>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/ir_build.h"

namespace ein::ranges {

using ir::Kind;

// A definition nested in the site whose slots all have explicit ranges (`let v[i in 0..3] =
// x[k + i];` in y[k]'s body) is computed whole at every point of the site: its reads must stay
// in bounds for every value of its slots, so they bound the site's indices as a nested
// reduction's reads do (SPEC §5.2, "for every value of the indices nested inside it"). Its slots
// join the site as explicit indices nested in it; its body's own reductions stay its own.
void SiteSolver::adopt_explicit_slots(const NodeRef& group) {
  if (group->kids.size() != 1 || group->kids[0]->kind != Kind::EinDecl) return;
  const NodeRef& clause = group->kids[0];
  for (const NodeRef& s : ir::ein_slots(clause))
    if (s->kind != Kind::IdxLit && !(s->kind == Kind::IdxIn && ir::idxin_range(s)->kind == Kind::RangeLit)) return;
  binders_.push_back(clause->id);
  for (const NodeRef& s : ir::ein_slots(clause)) {
    if (s->kind != Kind::IdxIn) continue;
    var_set_.insert(s->def);
    chain_[s->def] = binders_;
    order_.push_back(s->def);
    spans_[s->def] = s->span;
    add_explicit(s);
  }
  binders_.pop_back();
}

// Index variables introduced at this site (slots of the root and of nested reductions).
void SiteSolver::collect_vars(const NodeRef& n, bool is_root) {
  if (!n) return;
  if (n->kind == Kind::Lambda) return;
  if (!is_root && n->kind == Kind::EinGroup) {  // a nested definition is its own site
    adopt_explicit_slots(n);
    return;
  }
  bool binder = n->kind == Kind::EinDecl || n->kind == Kind::Reduce;
  if (binder) binders_.push_back(n->id);
  if (binder) {
    for (const NodeRef& s : ir::index_slots_of(n)) {
      if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) continue;
      var_set_.insert(s->def);
      chain_[s->def] = binders_;
      if (n->kind == Kind::Reduce) reduce_vars_.insert(s->def);
      order_.push_back(s->def);
      spans_[s->def] = s->span;
      if (s->kind == Kind::IdxIn) add_explicit(s);
    }
  }
  if (n->kind == Kind::Where)
    for (const NodeRef& c : ir::where_clauses(n))
      if (c->kind == Kind::WDerived) derived_[c->def] = ir::wderived_index(c);
  // A derived index that a guard of the same `where` tests (`cc = c - 1 + k, cc >= 0, cc < C`:
  // a padded window) is kept in bounds by that guard: its accesses must not narrow the
  // declaration's indices, or the points whose window is partly outside would be dropped
  // (silently 0). An access the guard does not keep in bounds is still checked (E005).
  if (n->kind == Kind::Where)
    for (auto c : ir::where_clauses(*n))
      if (c->kind == Kind::WGuard)
        ir::for_each_node(ir::wguard_cond(*c), [&](const NodeRef& x) {
          if (x->kind == Kind::Name && derived_.count(x->def)) guarded_derived_.insert(x->def);
        });
  for (auto& k : n->kids) collect_vars(k, false);
  if (binder) binders_.pop_back();
}

// Is u bound by a binder enclosing v's own (a declaration slot seen from a reduction, or an
// outer reduction's index)? Indices of one binder are level-mates, not outer.
bool SiteSolver::outer_to(DefId u, DefId v) const {
  auto iu = chain_.find(u), iv = chain_.find(v);
  if (iu == chain_.end() || iv == chain_.end() || iu->second.empty()) return false;
  uint32_t bu = iu->second.back();
  const auto& cv = iv->second;
  if (cv.empty() || cv.back() == bu) return false;
  return std::find(cv.begin(), cv.end(), bu) != cv.end();
}

ir::TypeRef SiteSolver::index_type(DefId u) const {
  auto it = u_.def_types.find(u);
  return it != u_.def_types.end() ? it->second : ir::t_scalar(DType::I32);
}

void SiteSolver::add_explicit(const NodeRef& slot) {
  const NodeRef& r = ir::idxin_range(slot);
  RangeFact f;
  f.is_explicit = true;
  f.span = slot->span;
  if (r->kind == Kind::RangeLit) {
    // An inlined call's range reads its argument (`0..dim(S[i] * 0.5, 0)`): written plainly.
    f.lo = plain_dims(cx_, u_, ir::range_lo(r));
    f.hi = plain_dims(cx_, u_, range_end(r));
  } else {
    cx_.error("E011", "an index range must be written as `a..b` or `a..=b`", r->span,
              "not a range literal");
    f.lo = irb::lit(0);
    f.hi = irb::lit(0);
  }
  explicit_.insert(slot->def);
  u_.ranges[slot->def] = f;
}

Affine SiteSolver::affine(const NodeRef& e, int depth) {
  Affine a;
  if (!e || depth > 64) {
    a.ok = false;
    return a;
  }
  switch (e->kind) {
    case Kind::IntLit: a.k = e->ival; return a;
    case Kind::Name: {
      if (is_var(e->def)) {
        a.add_var(e->def, Coef{1, nullptr});
        return a;
      }
      if (auto it = derived_.find(e->def); it != derived_.end()) return affine(it->second, depth + 1);
      if (auto it = cx_.const_ints.find(e->def); it != cx_.const_ints.end()) {
        a.k = it->second;
        return a;
      }
      break;
    }
    case Kind::Binary: {
      auto op = static_cast<ir::BinOp>(e->ival);
      if (op == ir::BinOp::Add || op == ir::BinOp::Sub) {
        a = affine(ir::bin_lhs(e), depth + 1);
        a.absorb(affine(ir::bin_rhs(e), depth + 1), op == ir::BinOp::Add ? 1 : -1);
        return a;
      }
      if (op == ir::BinOp::Mul) {
        Affine x = affine(ir::bin_lhs(e), depth + 1), y = affine(ir::bin_rhs(e), depth + 1);
        if (x.ok && y.ok) {
          if (x.constant()) {
            y.scale(x.k);
            return y;
          }
          if (y.constant()) {
            x.scale(y.k);
            return x;
          }
          // A loop-invariant factor: a stride (`oh * stride`), taken to be positive.
          if (x.invariant() && site_independent(ir::bin_lhs(e))) {
            y.scale_by(ir::bin_lhs(e));
            return y;
          }
          if (y.invariant() && site_independent(ir::bin_rhs(e))) {
            x.scale_by(ir::bin_rhs(e));
            return x;
          }
        }
        if (site_independent(e)) break;
        a.ok = false;
        return a;
      }
      break;
    }
    case Kind::Unary:
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
        a = affine(ir::unary_operand(e), depth + 1);
        a.scale(-1);
        return a;
      }
      break;
    default: break;
  }
  // Anything else is a symbol if it cannot depend on this site's loops.
  if (site_independent(e)) {
    a.syms.emplace_back(e, 1);
    return a;
  }
  a.ok = false;
  return a;
}

bool SiteSolver::site_independent(const NodeRef& e, std::vector<DefId>* nested_deps) {
  bool ok = true;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if (nested_deps && n->kind == Kind::Name && nested_.count(n->def)) {
      nested_deps->push_back(n->def);
      return;
    }
    if (!nested_deps && starting_.valid() && n->kind == Kind::Name && exists_when_starts(n->def, starting_)) return;
    if (n->kind == Kind::Name && n->def.valid()) {
      if (is_var(n->def) || derived_.count(n->def)) ok = false;
      DefKind k = cx_.resolver.info(n->def).kind;
      // A local bound before the site (a block's `let a = ..` above the declaration) has one
      // value for the whole site: `dim(a)` is a symbol like a global's extent. Where-locals
      // and lets inside the site are per point; outer loop indices vary.
      // A value a lambda captures (an index of the declaration around it, `|u| max[q](v[m +
      // q, q])`) is one value for the whole of the lambda's body.
      if (captured(n->def)) return;
      if ((k == DefKind::Local && !local_outside_site(n->def)) || k == DefKind::Index) ok = false;
    }
    if (n->kind == Kind::Reduce || n->kind == Kind::Lambda) ok = false;
  });
  return ok;
}

// A call's value is the same at every point of the site when its arguments read nothing that
// varies there, apart from what they bind themselves: `f(v, sum[k](v[k]))[j]` reduces over its
// own k (a reduction or a where-binding inside an argument is computed with the call).
bool SiteSolver::call_site_independent(const NodeRef& call, bool* point_local) {
  std::unordered_set<DefId> own;
  ir::for_each_node(call, [&](const NodeRef& n) {
    switch (n->kind) {
      case Kind::IdxVar: case Kind::IdxIn: case Kind::WBind: case Kind::WDerived: case Kind::PBind:
        if (n->def.valid()) own.insert(n->def);
        break;
      default: break;
    }
  });
  // A local computed inside the site (`let l[j] = ..; sum[k](softmax(l)[k])`) is recomputed per
  // point: the call's extent then bounds only a reduction evaluated after it, like `l[k]`'s.
  bool ok = true;
  ir::for_each_node(call, [&](const NodeRef& n) {
    if (n->kind == Kind::Lambda) ok = false;
    if (n->kind != Kind::Name || !n->def.valid() || own.count(n->def)) return;
    if (is_var(n->def) || derived_.count(n->def)) ok = false;
    DefKind k = cx_.resolver.info(n->def).kind;
    if (captured(n->def)) return;
    if (k == DefKind::Index) ok = false;
    if (k == DefKind::Local && !local_outside_site(n->def)) *point_local = true;
  });
  return ok;
}

void SiteSolver::collect_accesses(const NodeRef& n, bool cond) {
  if (!n || n->kind == Kind::Lambda) return;
  if (n->kind == Kind::Index) {
    if (cond) conditional_.insert(n->id);
    add_access(n);
  }
  size_t first_conditional = n->kids.size();  // kids from here on run only sometimes
  if (n->kind == Kind::If || n->kind == Kind::Match) first_conditional = 1;
  if (n->kind == Kind::Binary && (static_cast<ir::BinOp>(n->ival) == ir::BinOp::And ||
                                  static_cast<ir::BinOp>(n->ival) == ir::BinOp::Or))
    first_conditional = 1;
  size_t i = 0;
  for (auto& k : n->kids) collect_accesses(k, cond || i++ >= first_conditional);
}

void SiteSolver::add_access(const NodeRef& n) {
  // `(S[i] * 0.5)[j]` (an inlined call's parameter read at a point): the elementwise value
  // has its operand's extents.
  const NodeRef base = elementwise_base(cx_, u_, ir::index_base(n));
  bool point_local = false;
  std::function<NodeRef(int)> extent;
  if (base->kind == Kind::Name && base->def.valid()) {
    DefKind k = cx_.resolver.info(base->def).kind;
    bool usable = k == DefKind::Global || k == DefKind::Param || k == DefKind::Const ||
                  (k == DefKind::Local && !derived_.count(base->def));
    if (!usable && base->def != self_) return;
    // A local computed inside the site is recomputed per point: its extent cannot bound the
    // declaration's own loops, but it can bound a reduction evaluated after it.
    point_local = k == DefKind::Local && !local_outside_site(base->def);
    bool self_read = base->def == self_;
    auto nested = nested_.find(base->def);
    if (nested != nested_.end()) {
      // A definition nested in the site exists only inside it: `dim(wp)` cannot be evaluated
      // where the site's loops start. Its extent is usable when it is the same at every point
      // (`let wp[e] = W[t - 1, e];` inside W's clause: e's end does not move with t — unless it
      // is W's own extent, which this site is computing); otherwise it bounds nothing here
      // and the access is checked when it runs.
      for (size_t i = 0; i < ir::index_args_count(n); ++i) {
        int axis = static_cast<int>(i);
        const auto& ext = nested->second.extents;
        NodeRef e = axis < static_cast<int>(ext.size()) ? ext[axis] : nullptr;
        // `let wp[e] = W[t - 1, e];` inside W's own clause: e runs over W's axis, whose extent
        // this clause helps to fix. The clauses before it already give one; with this clause
        // taking the same, the allocation is consistent (the smallest extent that is).
        if (e && e->kind == Kind::DimOf && ir::dimof_tensor(*e)->kind == Kind::Name &&
            ir::dimof_tensor(*e)->def == self_ && e->ival >= 0 &&
            e->ival < static_cast<int64_t>(prior_extents_.size()))
          e = prior_extents_[e->ival];
        // Sized by another definition nested in the site whose own extent is known (`let e[k]
        // = S[i, k] * 2.0; let a[k] = e[k] + 1.0;` in a block: a's extent is dim(e, 0), e's is
        // dim(S, 1)): that extent, followed through the chain.
        for (int hop = 0; e && hop < 8; ++hop) {
          std::unordered_map<uint32_t, NodeRef> with;
          ir::for_each_node(e, [&](const NodeRef& d) {
            if (d->kind != Kind::DimOf || ir::dimof_tensor(*d)->kind != Kind::Name || d->ival < 0) return;
            auto nd = nested_.find(ir::dimof_tensor(*d)->def);
            if (nd == nested_.end() || d->ival >= static_cast<int64_t>(nd->second.extents.size())) return;
            if (const NodeRef& x = nd->second.extents[d->ival]) with[d->id] = x;
          });
          if (with.empty()) break;
          e = irb::replace_by_id(e, with);
        }
        bool usable_ext = e && site_independent(e) && !ir::mentions(e, self_);
        // Sized by another definition nested in the site (`let v[k] = T_l[k] ..` inside a
        // reduction, T_l declared before it in the block): the extent is fixed while the
        // reduction runs, so it bounds the reductions enclosing v but not T_l.
        std::vector<DefId> deps;
        bool red_ext = !usable_ext && e && !ir::mentions(e, self_) && site_independent(e, &deps);
        const NodeRef& ix = ir::index_args(n)[i];
        bool plain = ix->kind == Kind::Name && is_var(ix->def);
        if (usable_ext || red_ext) {
          accesses_.push_back(Access{n, axis, affine(ix), e, false, false, plain, false});
          accesses_.back().nested_ext = true;
          accesses_.back().ext_deps = std::move(deps);
          accesses_.back().reduce_only = red_ext;
        }
        // bounds only a reduction run after the definition (see local_bounds)
        accesses_.push_back(Access{n, axis, affine(ix), irb::dim_of(base, axis), false, true, plain, false});
      }
      access_arity_[n->id] = ir::index_args_count(n);
      return;
    }
    // `where p = X[1]`: p is bound per point, but a value that reads nothing of the site has
    // one extent for all of it, the value's own (SPEC §5.2: p's reads bound the index).
    if (auto wv = where_values_.find(base->def); wv != where_values_.end() && site_independent(wv->second)) {
      point_local = false;
      NodeRef value = wv->second;
      extent = [this, value](int axis) {
        NodeRef d = ir::make({.kind = Kind::DimOf, .span = value->span, .kids = {value}, .ival = axis});
        u_.types[d->id] = ir::t_scalar(DType::I64);
        return d;
      };
    } else {
      extent = [&, self_read](int axis) -> NodeRef {
        if (!self_read) return irb::dim_of(base, axis);
        if (axis < static_cast<int>(self_extents_.size()) && self_extents_[axis]) return self_extents_[axis];
        return prior_self_extent(axis);
      };
    }
    access_arity_[n->id] = ir::index_args_count(n);
  } else if (base->kind == Kind::ArrayLit) {
    extent = [&](int axis) { return literal_extent(base, axis); };
  } else if (base->kind == Kind::Index && ir::index_base(base)->kind == Kind::Name &&
             ir::index_base(base)->def.valid()) {
    // A read of a slice (`R[t - 1][e]`, `x[0][j]`): its axes are the array's axes after the
    // subscripts already given, whatever their values. Plain arrays only (no nested or
    // per-point locals, no range or rest subscripts).
    const NodeRef& arr = ir::index_base(base);
    DefKind k = cx_.resolver.info(arr->def).kind;
    bool usable = k == DefKind::Global || k == DefKind::Param || k == DefKind::Const ||
                  (k == DefKind::Local && !derived_.count(arr->def) && local_outside_site(arr->def));
    const bool self_read = arr->def == self_;
    for (const NodeRef& a : ir::index_args(base))
      if (a->kind == Kind::RangeLit || a->kind == Kind::RestIdx) usable = false;
    if ((!usable && !self_read) || nested_.count(arr->def)) return;
    const int lead = static_cast<int>(ir::index_args_count(base));
    extent = [&, arr, lead, self_read](int axis) -> NodeRef {
      if (!self_read) return irb::dim_of(arr, lead + axis);
      return lead + axis < static_cast<int>(self_extents_.size()) ? self_extents_[lead + axis] : nullptr;
    };
  } else if ((base->kind == Kind::Call ||
              (base->kind == Kind::Member && base->has(ir::kTupleField) &&
               (ir::member_base(*base)->kind == Kind::Name || ir::member_base(*base)->kind == Kind::Path))) &&
             call_site_independent(base, &point_local)) {
    // SPEC §5.2: plain uses on any array expression bound an index. A call's result that
    // reads nothing of the site (`softmax(X[0])[j]`, `f(x)[j]`), or a field of a tuple of
    // arrays (`parts.0[i]` of a split, `t.1[i]`), has one extent for all of it.
    extent = [&](int axis) {
      NodeRef d = ir::make({.kind = Kind::DimOf, .span = base->span, .kids = {base}, .ival = axis});
      u_.types[d->id] = ir::t_scalar(DType::I64);
      return d;
    };
    // On an array the site's block declares (`{ let r[k] = S[i, k]; F(r)[j] }`) the call runs
    // per point, but its extent, written with r's solved extent, may be the same everywhere.
    if (point_local && base->kind == Kind::Call) {
      std::vector<NodeRef> exts = call_extents(base, ir::index_args_count(n));
      if (std::all_of(exts.begin(), exts.end(), [](const NodeRef& e) { return e != nullptr; })) {
        point_local = false;
        extent = [exts](int axis) { return axis < static_cast<int>(exts.size()) ? exts[axis] : nullptr; };
      }
    }
  } else if (base->kind == Kind::Call) {
    // A call reading the site's indices (`softmax(X[q])[n]`): the callee's result extents,
    // written with the arguments, where they do not move with the site (range_call.cpp).
    std::vector<NodeRef> exts = call_extents(base, ir::index_args_count(n));
    extent = [exts](int axis) { return axis < static_cast<int>(exts.size()) ? exts[axis] : nullptr; };
  } else {
    return;
  }
  for (size_t i = 0; i < ir::index_args_count(n); ++i) {
    int axis = static_cast<int>(i);
    NodeRef ext = extent(axis);
    // A read of the declaration itself, whole or through a slice (`x[t - 1][e]`).
    const bool chained = base->kind == Kind::Index;
    const NodeRef& arr = chained ? ir::index_base(base) : base;
    const int lead = chained ? static_cast<int>(ir::index_args_count(base)) : 0;
    bool self_read = arr->kind == Kind::Name && arr->def == self_;
    if (self_read && ext && !chained && prior_extent_of(ext, axis)) {
      // Only a plain reduction index reads the earlier clauses' extent (`max[k](R[t - 1, k])`);
      // on the recurrence's own axis (`x[t - 1]`) the clauses before cover other points.
      const NodeRef& ix0 = ir::index_args(n)[i];
      if (ix0->kind == Kind::Name && reduce_vars_.count(ix0->def)) {
        if (std::find(prior_used_.begin(), prior_used_.end(), axis) == prior_used_.end()) prior_used_.push_back(axis);
      } else {
        ext = nullptr;
      }
    }
    bool self_bounded = self_read && ext;
    if (self_read && !ext) ext = irb::dim_of(arr, lead + axis);  // a start fact only (x[t - 1])
    if (!ext) continue;
    const NodeRef& ix = ir::index_args(n)[i];
    if (mentions_guarded_derived(ix)) continue;
    bool plain = ix->kind == Kind::Name && is_var(ix->def);
    // `x[i / c]` (c a positive literal: nearest upsampling) is in bounds where 0 <= i < c * dim,
    // the access `i` into an axis c times as long. (Where i / c truncates a small negative to
    // 0 this bound is narrower than needed: never wider.)
    if (ix->kind == Kind::Binary && static_cast<ir::BinOp>(ix->ival) == ir::BinOp::Div &&
        ir::bin_rhs(ix)->kind == Kind::IntLit && ir::bin_rhs(ix)->ival > 0 && ir::bin_rhs(ix)->ival < (1 << 20)) {
      Affine num = affine(ir::bin_lhs(ix));
      if (num.ok && !num.invariant()) {
        NodeRef c = irb::lit(ir::bin_rhs(ix)->ival);
        NodeRef scaled = ir::make_binary(ir::BinOp::Mul, ranges::wide(ext), c);
        u_.types[c->id] = ir::t_scalar(DType::I64);
        u_.types[scaled->id] = ir::t_scalar(DType::I64);
        accesses_.push_back(Access{n, axis, num, scaled, self_read, point_local, false, self_bounded});
        continue;
      }
    }
    accesses_.push_back(Access{n, axis, affine(ix), ext, self_read, point_local, plain, self_bounded});
  }
}

// A call's result extent is written with its arguments' extents. On the declaration's own
// earlier row (`softmax(R[t - 1])[j]`) that is `dim(R, 1)`, the extent this site is computing:
// the clauses before it (or the explicit ranges) give it. On an array declared in the site's
// block (`{ let r[k] = S[i, k]; F(r)[j] }`) it is that array's solved extent when the extent
// does not move with the site. Otherwise the call bounds nothing.
NodeRef SiteSolver::call_extent_known(const NodeRef& e) {
  if (!e) return e;
  std::unordered_map<uint32_t, NodeRef> with;
  bool missing = false;
  ir::for_each_node(e, [&](const NodeRef& x) {
    if (x->kind != Kind::DimOf || ir::dimof_tensor(*x)->kind != Kind::Name) return;
    DefId d = ir::dimof_tensor(*x)->def;
    auto pick = [&](const std::vector<NodeRef>& v) -> NodeRef {
      return x->ival >= 0 && x->ival < static_cast<int64_t>(v.size()) ? v[x->ival] : nullptr;
    };
    NodeRef r;
    if (d == self_) {
      r = pick(prior_extents_);
      if (!r) r = pick(self_extents_);
    } else if (auto nested = nested_.find(d); nested != nested_.end()) {
      r = pick(nested->second.extents);
      if (r && (!site_independent(r) || ir::mentions(r, self_))) r = nullptr;
    } else {
      return;
    }
    if (r) with[x->id] = r;
    else missing = true;
  });
  if (missing) return nullptr;
  NodeRef out = with.empty() ? e : irb::replace_by_id(e, with);
  return ir::mentions(out, self_) ? nullptr : out;
}

std::vector<NodeRef> SiteSolver::call_extents(const NodeRef& call, size_t axes) {
  std::vector<NodeRef> exts;
  for (size_t i = 0; i < axes; ++i) {
    NodeRef e = call_extent_known(call_result_extent(cx_, u_, call, static_cast<int>(i)));
    exts.push_back(e && site_independent(e) ? e : nullptr);
  }
  return exts;
}

bool SiteSolver::mentions_guarded_derived(const NodeRef& ix) const {
  bool found = false;
  ir::for_each_node(ix, [&](const NodeRef& x) {
    found = found || (x->kind == Kind::Name && guarded_derived_.count(x->def));
  });
  return found;
}

// A read of the declaration's earlier point on an axis whose extent the clauses before this one
// give (`let R[0, j] = X[0, j]; let R[t in 1..3, j] = max[k](R[t - 1, k]) + X[t, j];`): that
// extent, when this clause ranges the axis by an index it solves (j), for a plain reduction
// index (add_access). The allocation is the larger of the two; the reduction runs over the
// earlier clauses' part only if the two agree, so they must (an AgreeFact: E004 at run time
// when they differ, see solve).
NodeRef SiteSolver::prior_self_extent(int axis) {
  if (!root_ || root_->kind != Kind::EinDecl || axis < 0 || axis >= static_cast<int>(prior_extents_.size()) ||
      !prior_extents_[axis] || axis >= static_cast<int>(ir::ein_slots_count(root_)))
    return nullptr;
  const NodeRef& slot = ir::ein_slots(root_)[axis];
  if (slot->kind != Kind::IdxVar && slot->kind != Kind::IdxIn) return nullptr;
  return prior_extents_[axis];
}

bool SiteSolver::prior_extent_of(const NodeRef& ext, int axis) const {
  return axis >= 0 && axis < static_cast<int>(prior_extents_.size()) && ext == prior_extents_[axis] &&
         !(axis < static_cast<int>(self_extents_.size()) && self_extents_[axis]);
}

}  // namespace ein::ranges
