#include "lang/passes/range_site.h"
#include "lang/passes/range_call.h"

#include <algorithm>
#include <functional>
#include <map>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/ir_build.h"

namespace ein::ranges {

using ir::Kind;

// The exclusive end of a range literal `a..b` / `a..=b`.
NodeRef range_end(const NodeRef& r) {
  return r->has(ir::kInclusive) ? irb::add(ir::range_hi(r), irb::lit(1)) : ir::range_hi(r);
}

void SiteSolver::solve(const NodeRef& root, DefId self, std::vector<NodeRef> self_extents, bool single_clause) {
  self_ = self;
  single_clause_ = single_clause;
  self_extents_ = std::move(self_extents);
  collect_vars(root, true);
  collect_accesses(root);
  // Self-reads of a recurrence only raise the start (x[t - 1] needs t >= 1), so that a
  // second clause supplies the points below it (`let p[0] = ..; let p[i] = p[i - 1] + ..;`).
  // Not a read under an `if`/`match` branch of a definition with one clause: with no other
  // clause the raised start could never be covered, and the branch is how such a program
  // writes its base case (`if t == 0 { x[0] } else { s[t - 1] + x[t] }`); a branch that does
  // read below the start stops at the read (E005), never reads a silent zero.
  for (auto& a : accesses_) {
    if (a.self && single_clause_ && conditional_.count(a.node->id)) continue;
    if (!a.self || !a.aff.ok || a.aff.vars.size() != 1 || !a.aff.syms.empty() || a.aff.k >= 0) continue;
    auto& [v, c] = a.aff.vars[0];
    if (c.c == 1 && !c.s && is_var(v) && a.aff.k != INT64_MIN) self_lo_[v].push_back(irb::lit(-a.aff.k));
  }
  mark_guarded_reads();
  // An index is solved once every use of it has its other indices solved (they are then
  // taken over their whole ranges: SPEC §5.2 "for every value of the indices nested inside
  // it"). When no index is complete, the innermost one that has some usable use is solved
  // from those uses alone, and the others follow.
  std::vector<DefId> pending;
  for (auto& v : order_)
    if (!explicit_.count(v)) pending.push_back(v);
  while (!pending.empty()) {
    bool progress = false;
    for (size_t i = 0; i < pending.size();) {
      if (complete(pending[i])) {
        settle(pending[i]);
        pending.erase(pending.begin() + static_cast<long>(i));
        progress = true;
      } else {
        ++i;
      }
    }
    if (progress) continue;
    for (size_t i = pending.size(); i-- > 0;) {
      if (!has_usable(pending[i])) continue;
      settle(pending[i]);
      pending.erase(pending.begin() + static_cast<long>(i));
      progress = true;
      break;
    }
    if (!progress) break;
  }
  // Accesses proven in bounds: every axis was used to solve an index of it.
  std::map<uint32_t, std::pair<int, bool>> per_node;  // id -> (axes, all ok)
  for (size_t i = 0; i < accesses_.size(); ++i) {
    const Access& a = accesses_[i];
    if (a.self || ir::index_base(a.node)->kind != Kind::Name) continue;
    auto& e = per_node[a.node->id];
    if (e.first == 0) e.second = true;
    e.first++;
    e.second = e.second && contributed_.count(i) > 0;
  }
  for (auto& [id, e] : per_node)
    if (e.second && e.first == static_cast<int>(rank_of_access(id))) u_.proven.insert(id);
}

size_t SiteSolver::rank_of_access(uint32_t id) const {
  auto it = access_arity_.find(id);
  return it == access_arity_.end() ? 0 : it->second;
}

// Can access `a` bound index `v`: a non-self use mentioning v whose base may bound it.
bool SiteSolver::bounds(const Access& a, DefId v) const {
  if (!a.aff.ok || !(a.aff.coef_of(v) || through_inner_range(a, v))) return false;
  // A self-read bounds only a reduction index written plainly (`sum[k](x[t - 1, k])`) that
  // no other array bounds, and only on an axis every clause gives an explicit extent (the
  // allocation is known). With another source the self-read is no use of it: a state read
  // on part of its axis (`R[j, k] * S[t - 1, n, k]`, S twice as wide) is fine.
  if (a.self) return a.self_bounded && a.written_plain && reduce_vars_.count(v) > 0 && !other_source(v);
  return local_bounds(a, v);
}

// A use whose base is computed inside the site bounds only a reduction run after it, by the
// base's own extent (`dim(v)`, which the tape reads back: Tape::explicit_ranges). A nested
// definition's extent written out (nested_ext) serves every other index.
bool SiteSolver::local_bounds(const Access& a, DefId v) const {
  if (a.nested_ext && a.reduce_only) {
    if (!reduce_vars_.count(v) || runs_after(a, v)) return false;
    auto chain = chain_.find(v);
    if (chain == chain_.end() || chain->second.empty()) return false;
    for (DefId d : a.ext_deps) {
      const auto& inside = nested_.at(d).inside;
      if (std::find(inside.begin(), inside.end(), chain->second.back()) != inside.end()) return false;
    }
    return true;
  }
  if (a.nested_ext) return !runs_after(a, v);
  if (!a.point_local) return true;
  return runs_after(a, v);
}

// Is v a reduction variable whose loop starts after the base of `a` exists? A nested
// definition computed inside v's own reduction does not exist when v's loop starts.
bool SiteSolver::runs_after(const Access& a, DefId v) const {
  if (!reduce_vars_.count(v)) return false;
  auto nested = nested_.find(ir::index_base(a.node)->def);
  if (nested == nested_.end()) return true;
  auto chain = chain_.find(v);
  if (chain == chain_.end() || chain->second.empty()) return false;
  const auto& inside = nested->second.inside;
  return std::find(inside.begin(), inside.end(), chain->second.back()) == inside.end();
}

// Does the nested definition exist when v's loop starts? Only a reduction's loop can start
// after it, and only when the definition is not computed inside that reduction.
bool SiteSolver::exists_when_starts(DefId nested, DefId v) const {
  auto it = nested_.find(nested);
  if (it == nested_.end() || !reduce_vars_.count(v)) return false;
  auto chain = chain_.find(v);
  if (chain == chain_.end() || chain->second.empty()) return false;
  const auto& inside = it->second.inside;
  return std::find(inside.begin(), inside.end(), chain->second.back()) == inside.end();
}

// Does `a` reach v through an inner index whose explicit range is written in v
// (`c[i] = sum[j in 0..i + 1](x[j])`)? Then x[j] in bounds for every j bounds i
// (SPEC §5.2: "for every value of the indices nested inside it"); `extreme` substitutes the
// range's ends, so the candidate is an affine form in v like a direct use.
bool SiteSolver::through_inner_range(const Access& a, DefId v) const {
  for (auto& [u, c] : a.aff.vars) {
    if (u == v || !explicit_.count(u) || !outer_to(v, u)) continue;
    auto it = u_.ranges.find(u);
    if (it == u_.ranges.end()) continue;
    bool found = false;
    for (const NodeRef& end : {it->second.lo, it->second.hi})
      ir::for_each_node(end, [&](const NodeRef& x) { found = found || (x->kind == Kind::Name && x->def == v); });
    if (found) return true;
  }
  return false;
}

bool SiteSolver::other_source(DefId v) const {
  for (auto& b : accesses_)
    if (!b.self && b.aff.ok && b.aff.coef_of(v) && local_bounds(b, v)) return true;
  return false;
}

bool SiteSolver::others_solved(const Access& a, DefId v) const {
  for (auto& [u, c] : a.aff.vars)
    if (u != v && (!is_var(u) || !solved(u))) return false;
  return true;
}

bool SiteSolver::complete(DefId v) const {
  bool any = false;
  for (auto& a : accesses_) {
    if (!bounds(a, v)) continue;
    if (!others_solved(a, v)) return false;
    any = true;
  }
  return any;
}

bool SiteSolver::has_usable(DefId v) const {
  for (auto& a : accesses_)
    if (bounds(a, v) && others_solved(a, v)) return true;
  return false;
}

// Gives v its range from every use whose other indices are solved.
void SiteSolver::settle(DefId v) {
  std::vector<Candidate> cands;
  std::vector<size_t> used;
  std::vector<size_t> guarded;  // cands relaxed by a branch (mark_guarded_reads)
  std::vector<std::pair<size_t, NodeRef>> hi_relaxed;  // (cand, its end before relaxing)
  for (size_t i = 0; i < accesses_.size(); ++i) {
    Access& a = accesses_[i];
    if (!bounds(a, v) || !others_solved(a, v)) continue;
    Candidate cand;
    cand.span = a.node->span;
    cand.what = cx_.sm.snippet(a.node->span);
    if (a.written_plain && a.aff.coef_of(v)) {
      // Only the written form `X[i]` is a plain use; `X[i + 0]` is an offset use (SPEC §5.2).
      cand.plain = true;
      cand.extent = a.extent;
      cand.lo = irb::lit(0);
      cand.hi = a.extent;
    } else {
      auto lo = extreme(a.aff, v, false), hi = extreme(a.aff, v, true);
      if (!lo || !hi) continue;
      const Coef* alo = lo->coef_of(v);
      const Coef* ahi = hi->coef_of(v);
      Coef zero;
      std::vector<NodeRef> made;
      // Reached only through a nested index's explicit range (`sum[j in 0..i + 1](x[j])`):
      // the side of that range that does not move with v bounds nothing here.
      const bool through = !a.aff.coef_of(v);
      ranges::Bounds b = ranges::solve(alo ? *alo : zero, lo->offset(), ahi ? *ahi : zero, hi->offset(),
                                       a.extent, made, through);
      for (auto& m : made) u_.types[m->id] = ir::t_scalar(DType::I64);
      if (!b.lo && !b.hi) continue;
      for (auto& s : b.positive) require_positive(v, s, a);
      cand.lo = b.lo;
      cand.hi = b.hi;
      // Through a nested range, the side that does not move with v bounds nothing: unless it
      // is in bounds by itself (a smallest read at a constant >= 0), the read is not proven
      // (`sum[k in 0..i + 1](x[k - 2])` reads x[-2] at k = 0 for every i: with the read taken
      // as proven, native kernels read outside x with exit 0), and is checked when it runs.
      if (through && ((!alo && !(lo->constant() && lo->k >= 0)) || !ahi)) guarded.push_back(cands.size());
      if (a.guarded_side < 0 && a.aff.coef_of(v)) {
        cand.lo = nullptr;
        guarded.push_back(cands.size());
      } else if (a.guarded_side > 0 && a.aff.coef_of(v)) {
        hi_relaxed.emplace_back(cands.size(), cand.hi);
        cand.hi = nullptr;
        guarded.push_back(cands.size());
      }
    }
    cands.push_back(cand);
    used.push_back(i);
  }
  // A guarded read is the only end of v: it stays one (a relaxed start is enough).
  bool has_hi = false;
  for (auto& c : cands) has_hi = has_hi || c.hi;
  if (!has_hi)
    for (auto& [k, hi] : hi_relaxed) cands[k].hi = hi;
  if (finalize(v, cands))
    for (size_t k = 0; k < used.size(); ++k)
      // A relaxed read is not proven in bounds: the branch that guards it is checked at run
      // time (E005 if it does read outside), never assumed.
      if (std::find(guarded.begin(), guarded.end(), k) == guarded.end()) contributed_.insert(used[k]);
}

// A lone recurrence clause writes its base case as a branch (`if i == 0 { .. } else { ..
// x[i - 1, s] .. s[i - 1] .. }`). Its self-read under the branch does not raise the start
// (see solve); a read of another tensor at the same kind of offset under a branch is the same
// step of the same recurrence (the Thomas algorithm's `cp[i - 1, s]` inside dp's step): letting it
// raise i's start made the base case unreachable (E012). Such a read keeps only its other side
// as a bound of v, and only in the direction the self-reads go (x[i - 1] in a forward
// recurrence, x[i + 1] in a backward one); the index's range then comes from its other uses
// and the relaxed read is checked at run time.
void SiteSolver::mark_guarded_reads() {
  if (!single_clause_) return;
  std::unordered_map<DefId, int> direction;  // v -> sign of a conditional self-read's offset
  for (auto& a : accesses_) {
    if (!a.self || !conditional_.count(a.node->id) || !a.aff.ok || a.aff.vars.size() != 1 || !a.aff.syms.empty())
      continue;
    auto& [v, c] = a.aff.vars[0];
    if (c.c == 1 && !c.s && a.aff.k != 0 && a.aff.k != INT64_MIN) direction[v] |= a.aff.k < 0 ? 1 : 2;
  }
  for (auto& a : accesses_) {
    if (a.self || !conditional_.count(a.node->id) || !a.aff.ok || a.aff.vars.size() != 1 || !a.aff.syms.empty())
      continue;
    auto& [v, c] = a.aff.vars[0];
    auto d = direction.find(v);
    if (d == direction.end() || c.c != 1 || c.s || a.aff.k == 0 || a.aff.k == INT64_MIN) continue;
    if (a.aff.k < 0 && (d->second & 1)) a.guarded_side = -1;
    if (a.aff.k > 0 && (d->second & 2)) a.guarded_side = 1;
  }
}

// Smallest (max = false) or largest value of `e` over the solved indices other than `v`,
// as an affine form in v and invariants.
std::optional<Affine> SiteSolver::extreme(Affine e, DefId v, bool max) {
  for (int step = 0; step < 32; ++step) {
    const std::pair<DefId, Coef>* pick = nullptr;
    for (auto& t : e.vars)
      if (t.first != v) {
        pick = &t;
        break;
      }
    if (!pick) return e;
    DefId u = pick->first;
    Coef c = pick->second;
    // An index outer to v has one value for each run of v's loop: the bound on v stays
    // symbolic in it (a dependent range, SPEC §5.2). Taking it over its whole range kept
    // only the values of v valid for every outer value: `f[o in 0..5] = sum[k](s[o + k])`
    // summed k in 0..1 at every o (silent wrong sums).
    if (outer_to(u, v)) {
      if (c.s) return std::nullopt;  // a strided outer term: no candidate, checked at run time
      NodeRef ref = irb::ref(cx_.resolver.info(u).name, u, spans_[u]);
      u_.types[ref->id] = index_type(u);
      e.drop(u);
      e.syms.emplace_back(ref, c.c);
      continue;
    }
    auto it = u_.ranges.find(u);
    if (it == u_.ranges.end()) return std::nullopt;
    bool upper = (c.c > 0) == max;
    // u's range may be written with the extent of a definition nested in the site
    // (`sum[l](sum[k](w[k + 1, l + k]))`, w a block local of a clause body): a symbol for v
    // when w exists before v's loop starts.
    DefId saved = starting_;
    starting_ = v;
    Affine b = bound_affine(upper ? it->second.hi : it->second.lo, upper);
    starting_ = saved;
    if (!b.ok) return std::nullopt;
    if (upper && b.k == INT64_MIN) return std::nullopt;
    if (upper) b.k -= 1;
    e.drop(u);
    b.scale(c.c);
    if (c.s) b.scale_by(c.s);
    e.absorb(b, 1);
    if (!e.ok) return std::nullopt;
  }
  return std::nullopt;
}

// A range bound as an affine form. A bound that no index of this site enters (`min(2, 3)`,
// `min(n, len(x))`) is taken whole, as a symbol: exact. Only a bound over other indices
// (a dependent inner range, `min(2 - q, 3)`) is reduced to one part: `max(a, b)` as a start is
// at least either part, `min(a, b)` as an end at most either; the part over indices is the
// one that varies, the constant part is the hull's. (Taking the constant part of an invariant
// `min(2, 3)` made the hull too wide and the outer range too narrow: a max over an empty
// range printed -inf.)
Affine SiteSolver::bound_affine(const NodeRef& n, bool upper) {
  if (site_independent(n)) return affine(n);
  NodeRef cur = n;
  for (int i = 0; i < 16 && cur && (cur->kind == (upper ? Kind::IMin : Kind::IMax)); ++i) {
    Affine a = affine(ir::iminmax_a(cur));
    if (a.ok && !irb::as_lit(ir::iminmax_a(cur))) return a;
    cur = ir::iminmax_b(cur);
  }
  return affine(cur);
}

void SiteSolver::require_positive(DefId v, const NodeRef& s, const Access& a) {
  for (auto& r : u_.range_checks)
    if (r.index == v && ir::structurally_equal(ir::bin_lhs(r.cond), s)) return;
  NodeRef cond = ir::make_binary(ir::BinOp::Gt, ranges::wide(s), irb::lit(0), a.node->span);
  u_.types[cond->id] = ir::t_bool();
  std::string var = cx_.resolver.info(v).name;
  u_.range_checks.push_back(RangeCheck{
      v, cond, a.node->span, "E006",
      "the factor `" + cx_.sm.snippet(s->span) + "` of `" + var + "` in `" + cx_.sm.snippet(a.node->span) +
          "` must be positive to bound `" + var + "`",
      "give `" + var + "` an explicit range, e.g. `" + var + " in 0..n`"});
}

bool SiteSolver::finalize(DefId v, const std::vector<Candidate>& cands) {
  if (u_.ranges.count(v)) return false;
  RangeFact f;
  f.span = spans_[v];
  std::vector<const Candidate*> plains;
  for (auto& c : cands) {
    if (c.lo) f.lo = f.lo ? irb::imax(f.lo, c.lo) : c.lo;
    if (c.hi) f.hi = f.hi ? irb::imin(f.hi, c.hi) : c.hi;
    if (c.plain) plains.push_back(&c);
  }
  for (auto& l : self_lo_[v]) f.lo = f.lo ? irb::imax(f.lo, l) : l;
  f.lo = f.lo ? irb::imax(irb::lit(0), f.lo) : irb::lit(0);
  if (!f.hi) return false;  // only starts: not a range source
  for (size_t i = 1; i < plains.size(); ++i) {
    if (ir::structurally_equal(plains[0]->extent, plains[i]->extent)) continue;
    u_.agrees.push_back(AgreeFact{v, plains[0]->extent, plains[i]->extent, plains[0]->span,
                                  plains[i]->span, plains[0]->what, plains[i]->what});
  }
  u_.ranges[v] = f;
  return true;
}

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
        return axis < static_cast<int>(self_extents_.size()) ? self_extents_[axis] : nullptr;
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

}  // namespace ein::ranges
