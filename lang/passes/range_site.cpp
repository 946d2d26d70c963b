// Range analysis of one site, part one: the solver. Every index variable gets its range from the
// accesses range_collect.cpp gathered (SPEC §5.2), settled in dependency order.
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
  root_ = root;
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
  // Self-reads bounded by the earlier clauses' extent (prior_self_extent): this clause's own
  // extent on that axis must be the same.
  for (int axis : prior_used_) {
    const NodeRef& slot = ir::ein_slots(root_)[axis];
    auto r = u_.ranges.find(slot->def);
    if (r == u_.ranges.end() || !r->second.hi) continue;
    NodeRef own = r->second.hi_const ? irb::lit(*r->second.hi_const) : r->second.hi;
    u_.agrees.push_back(AgreeFact{slot->def, prior_extents_[axis], own, slot->span, slot->span,
                                  cx_.resolver.info(self_).name + " (its earlier clauses)", slot->name});
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

}  // namespace ein::ranges
