// One term of an adjoint (see ad_sweep.h): for a read of b in a consumer clause c,
//   c̄[out] * ∂value/∂read, summed over the clause and reduction indices W with b's read indices =
//   m.
// Read indices that are affine in the point's indices are solved for one of them (a
// substitution plus a range guard, and a divisibility guard for a coefficient other than ±1),
// as are unflattened pairs `[m / k, m % k]`; other reads become equality guards; the remaining
// indices are summed over their ranges.
#include <functional>
#include <map>
#include <tuple>

#include "lang/passes/ad_sweep.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/range_affine.h"

namespace ein::ad {

using ir::Kind;

namespace {

// The affine form of an index (range analysis' one): a read is solved for one of the point's
// indices in it, the others staying summed (`x[oh * s + kh * d]` for oh, summed over kh).
using ranges::Affine;
using ranges::Coef;

struct Solver {
  const std::unordered_set<DefId>& W;
  const std::unordered_map<DefId, NodeRef>& derived;
  const std::unordered_set<DefId>& locals;  // where/block locals of the clause: not symbols
  const std::unordered_map<DefId, NodeRef>* wbound = nullptr;  // `where ih = oh * s + kh - p`

  bool independent(const NodeRef& e) const {
    bool ind = true;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind == Kind::Name &&
          (W.count(n->def) || derived.count(n->def) || locals.count(n->def)))
        ind = false;
      if (n->kind == Kind::Reduce) ind = false;
    });
    return ind;
  }

  Affine affine(const NodeRef& e, int depth = 0) {
    Affine a;
    if (!e || depth > 32) {
      a.ok = false;
      return a;
    }
    switch (e->kind) {
      case Kind::IntLit: a.k = e->ival; return a;
      case Kind::Name:
        if (W.count(e->def)) {
          a.add_var(e->def, Coef{1, nullptr});
          return a;
        }
        if (auto it = derived.find(e->def); it != derived.end())
          return affine(it->second, depth + 1);
        if (wbound)
          if (auto it = wbound->find(e->def); it != wbound->end())
            return affine(it->second, depth + 1);
        break;
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(e->ival);
        if (op == ir::BinOp::Add || op == ir::BinOp::Sub) {
          a = affine(bin_lhs(e), depth + 1);
          a.absorb(affine(bin_rhs(e), depth + 1), op == ir::BinOp::Add ? 1 : -1);
          return a;
        }
        // A stride or dilation: an index times a literal or a loop-invariant value.
        if (op == ir::BinOp::Mul) {
          for (int side = 0; side < 2; ++side) {
            const NodeRef& f = side ? bin_lhs(e) : bin_rhs(e);
            const NodeRef& x = side ? bin_rhs(e) : bin_lhs(e);
            if (!independent(f)) continue;
            Affine ax = affine(x, depth + 1);
            if (!ax.ok || ax.invariant()) continue;
            if (f->kind == Kind::IntLit)
              ax.scale(f->ival);
            else
              ax.scale_by(f);
            return ax;
          }
        }
        break;
      }
      case Kind::Unary:
        if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
          Affine z;
          z.absorb(affine(ir::unary_operand(e), depth + 1), -1);
          return z;
        }
        break;
      default: break;
    }
    if (independent(e))
      a.syms.emplace_back(e, 1);
    else
      a.ok = false;
    return a;
  }
};

// A coefficient as integer IR.
NodeRef coef_ir(const Coef& c) { return c.s ? irb::mul(c.s, c.c) : irb::lit(c.c); }

// Ancestors of `target` (by identity) inside `root` that are reductions, outermost first.
bool path_to(const NodeRef& root, const ir::Node* target, std::vector<NodeRef>& reduces) {
  if (!root) return false;
  if (root.get() == target) return true;
  if (root->kind == Kind::Lambda) return false;
  bool is_red = root->kind == Kind::Reduce;
  if (is_red) reduces.push_back(root);
  for (auto& k : root->kids)
    if (path_to(k, target, reduces)) return true;
  if (is_red) reduces.pop_back();
  return false;
}

// The axes of a read whose subscript names an index bound inside the clause's body other than
// the clause's own and those of the reductions around the read (a nested declaration's).
std::vector<bool> nested_axes(const Clause& cl, const std::vector<NodeRef>& reduces, const NodeRef& read) {
  if (read->kind != Kind::Index) return {};
  std::unordered_set<DefId> outer, nested;
  for (auto& s : cl.slots) outer.insert(s->def);
  for (auto& r : reduces)
    for (const NodeRef& s : ir::reduce_slots(r)) outer.insert(s->def);
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    if ((n->kind == Kind::IdxVar || n->kind == Kind::IdxIn || n->kind == Kind::IdxRest) && n->def.valid() &&
        !outer.count(n->def))
      nested.insert(n->def);
  });
  std::vector<bool> out;
  for (const NodeRef& e : ir::index_args(read)) {
    bool any = false;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind == Kind::Name && nested.count(n->def)) any = true;
    });
    out.push_back(any);
  }
  return out;
}

// e + d, folded into `m + k` when e is `m ± k` (the form recurrence_order reads ranges in).
NodeRef shifted(const NodeRef& e, int64_t d) {
  if (e->kind == Kind::Binary) {
    auto op = static_cast<ir::BinOp>(e->ival);
    auto k = irb::as_lit(bin_rhs(e));
    if (k && (op == ir::BinOp::Add || op == ir::BinOp::Sub) && *k < (int64_t{1} << 52) &&
        *k > -(int64_t{1} << 52))
      return irb::add(bin_lhs(e), irb::lit((op == ir::BinOp::Add ? *k : -*k) + d));
  }
  return irb::add(e, irb::lit(d));
}

// flatten_partial drops a block's unused let, and with it maybe the only read that bounded a
// reduction's index (`sum[l]({ let b = v[1, l]; 1.0 })`: the partial is `sum[l](1.0)`, E004
// when analysed again). Such a slot keeps the range the primal inferred for it (SPEC §5.2: the
// read bounds l whether or not its value is used). Slots still read by a subscript are left
// as written, so contraction-shaped partials look as before.
NodeRef keep_slot_ranges(const NodeRef& n, Facts& facts) {
  if (!n) return n;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(keep_slot_ranges(k, facts));
    changed = changed || kids.back() != k;
  }
  NodeRef out = changed ? ir::with_kids(n, std::move(kids)) : n;
  if (out->kind != Kind::Reduce) return out;
  const NodeRef& body = ir::reduce_body(*out);
  std::unordered_set<DefId> subscripted, inner = binders_in(body);
  ir::for_each_node(body, [&](const NodeRef& x) {
    if (x->kind != Kind::Index) return;
    for (const NodeRef& a : ir::index_args(x))
      ir::for_each_node(a, [&](const NodeRef& y) {
        if (y->kind == Kind::Name) subscripted.insert(y->def);
      });
  });
  auto inner_free = [&](const NodeRef& e) {
    bool ok = true;
    ir::for_each_node(e, [&](const NodeRef& y) { ok = ok && !(y->kind == Kind::Name && inner.count(y->def)); });
    return ok;
  };
  std::vector<NodeRef> slots;
  bool edited = false;
  for (const NodeRef& sl : ir::reduce_slots(out)) {
    const RangeFact* rf = sl->kind == Kind::IdxVar && !subscripted.count(sl->def) ? facts.range(sl->def) : nullptr;
    NodeRef hi = rf && rf->hi ? (rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi) : nullptr;
    if (!rf || !rf->lo || !hi || !inner_free(rf->lo) || !inner_free(hi)) {
      slots.push_back(sl);
      continue;
    }
    slots.push_back(ir::edited(idx_in(sl->name, sl->def, rf->lo, hi), [&](ir::Node& x) { x.span = sl->span; }));
    edited = true;
  }
  if (!edited) return out;
  std::vector<NodeRef> k2(out->kids.begin(), out->kids.end());
  size_t first = k2.size() - slots.size();
  for (size_t i = 0; i < slots.size(); ++i) k2[first + i] = slots[i];
  return ir::with_kids(out, std::move(k2));
}

}  // namespace

// A read solved for an index with a run-time coefficient (`x[oh * s + kh]`, s a stride)
// holds where s != 0; where s == 0 every point of that index reads the same element, so the
// contribution adds the unsolved form (summed under equality guards) for that case.
NodeRef Sweeper::contribution(const Adjoint& bar_b, const Entry& c, const Adjoint& bar_c,
                              const Clause& cl, const Occurrence& occ, int b_rank, bool* self) {
  std::vector<NodeRef> invalid;  // run-time conditions under which the solved form is not
  NodeRef out = contribution(bar_b, c, bar_c, cl, occ, b_rank, self, true, &invalid);
  if (!out || invalid.empty()) return out;
  bool self2 = false;
  NodeRef rest = contribution(bar_b, c, bar_c, cl, occ, b_rank, &self2, false, nullptr);
  *self = *self || self2;
  if (!rest) return out;
  NodeRef any = invalid[0];
  for (size_t i = 1; i < invalid.size(); ++i) any = ir::make_binary(ir::BinOp::Or, any, invalid[i]);
  // (The solved form contributes nothing under these conditions: its own guards fail.)
  return add(out, where(rest, {wguard(any)}));
}

NodeRef Sweeper::contribution(const Adjoint& bar_b, const Entry& c, const Adjoint& bar_c,
                              const Clause& cl, const Occurrence& occ, int b_rank, bool* self,
                              bool runtime_coefs, std::vector<NodeRef>* invalid) {
  std::vector<NodeRef> reduces;
  if (!path_to(cl.value, occ.node.get(), reduces)) return nullptr;
  Forward fwd(cx_, facts_);
  fwd.marker = occ.node->id;
  for (auto& r : reduces) fwd.opened.insert(r->id);
  // A read inside a declaration nested in the body (`let v[i] = x[k - 1, i];` in a block) whose
  // subscript names that declaration's indices meets the adjoint's point only at the points of
  // v where those axes equal it: their test goes into the seed, where v's indices are bound (a
  // guard outside would read them unbound), and only the other axes are solved.
  std::vector<bool> nested = nested_axes(cl, reduces, occ.node);
  NodeRef at;
  for (size_t a = 0; a < nested.size(); ++a)
    if (nested[a]) {
      NodeRef t = index_eq(ir::index_args(occ.node)[a], facts_.type(ir::index_args(occ.node)[a]), bar_b.m[a]);
      at = at ? ir::make_binary(ir::BinOp::And, at, t) : t;
    }
  if (at) fwd.marker_seed = ifz(at, flit(1.0), flit(0.0));
  NodeRef P = fwd.tangent(cl.value);
  if (P) P = keep_slot_ranges(flatten_partial(reuse_args(c, cl, P)), facts_);
  if (!P) return nullptr;
  // A slice (`R[t - 1]` of a 2-D R) used as an array, with a partial (an extent, `len(x[0])`,
  // has none): its reads have no point to solve for.
  if (occ.node->kind == Kind::Index && ir::index_args_count(occ.node) < static_cast<size_t>(b_rank))
    unsupported("`" + cx_.sm.snippet(occ.node->span) + "`, a slice of a differentiated array used as a whole array",
                occ.node->span);
  // (Judged before stored_factors: a stored factor reads as finite whatever its values.)
  const bool infinite = may_be_infinite(P, &cx_);
  P = stored_factors(c, cl, occ, P);
  // The indices of the point: clause indices, then the indices of the opened reductions.
  std::vector<NodeRef> W;
  for (auto& s : cl.slots)
    if (s->kind == Kind::IdxVar || s->kind == Kind::IdxIn) W.push_back(s);
  for (auto& r : reduces)
    for (const NodeRef& s : ir::reduce_slots(r)) W.push_back(s);
  std::unordered_set<DefId> wset, outputs;
  for (auto& s : cl.slots)
    if (s->kind == Kind::IdxVar || s->kind == Kind::IdxIn) outputs.insert(s->def);
  std::map<DefId, std::pair<NodeRef, NodeRef>> ranges;
  for (auto& s : W) {
    if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) unsupported("a rest pattern", s->span);
    const RangeFact* rf = facts_.range(s->def);
    wset.insert(s->def);
    if (rf) {
      ranges[s->def] = {rf->lo, rf->hi};
    } else if (s->kind == Kind::IdxIn && ir::idxin_range(s)->kind == Kind::RangeLit) {
      // Indices made while normalising (array lets) carry their range explicitly.
      const NodeRef& r = ir::idxin_range(s);
      ranges[s->def] = {ir::range_lo(r), r->has(ir::kInclusive)
                                             ? irb::add(ir::range_hi(r), irb::lit(1))
                                             : ir::range_hi(r)};
    } else {
      unsupported("an index whose range is unknown (`" + s->name + "`)", s->span);
    }
  }
  std::unordered_map<DefId, NodeRef> derived, wbound;
  std::unordered_set<DefId> locals;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    if (n->kind == Kind::WDerived) derived[n->def] = wderived_index(n);
    if (n->kind == Kind::WBind) wbound[n->def] = wbind_value(n);
    if (n->kind == Kind::WBind || n->kind == Kind::PBind || n->kind == Kind::CompGen ||
        n->kind == Kind::CompLet)
      locals.insert(n->def);
  });
  // A guard on the read's index stands outside the where that binds the index's locals
  // (`v[p] ... where p = n + q`): it must read their definitions, never the stale names.
  std::function<NodeRef(const NodeRef&, int)> expand = [&](const NodeRef& e, int depth) -> NodeRef {
    if (!e) return e;
    if (e->kind == Kind::Name) {
      auto it = derived.find(e->def);
      if (it == derived.end()) it = wbound.find(e->def);
      if (it != derived.end() && it != wbound.end()) {
        if (depth > 32) unsupported("an index defined through too many where bindings", e->span);
        return expand(it->second, depth + 1);
      }
      if (locals.count(e->def))
        unsupported("a read whose index is a local of the body (`" + e->name + "`)", e->span);
      return e;
    }
    bool changed = false;
    std::vector<NodeRef> kids;
    for (auto& k : e->kids) {
      kids.push_back(expand(k, depth));
      changed = changed || kids.back() != k;
    }
    return changed ? ir::with_kids(e, std::move(kids)) : e;
  };
  std::vector<NodeRef> out_idx;
  for (auto& s : cl.slots)
    out_idx.push_back(s->kind == Kind::IdxLit ? irb::lit(s->ival) : name(s->name, s->def));
  NodeRef cbar;
  if (c.rank == 0) {
    cbar = name(bar_c.name, bar_c.def);
  } else {
    std::vector<NodeRef> kids{name(bar_c.name, bar_c.def)};
    for (auto& o : out_idx) kids.push_back(o);
    cbar = ir::make({.kind = Kind::Index, .kids = std::move(kids)});
  }
  *self = c.def == bar_b_primal_;
  NodeRef term = mul(cbar, P);
  // A point nobody reads has a zero adjoint and contributes nothing, even where its local
  // partial is infinite (`q = 1.0 / x` at x = 0): 0 * inf would be nan.
  if (infinite)
    term = zero_guard(ir::make_binary(ir::BinOp::Ne, cbar, flit(0.0)), term, flit(0.0));
  // Solve the read's indices for the point's indices.
  Solver sv{wset, derived, locals, &wbound};
  std::unordered_map<DefId, NodeRef> solved;
  std::vector<NodeRef> guards;
  struct Bound {
    bool upper;  // repl < bound (else repl >= bound)
    NodeRef repl, bound;
    // repl divides by a coefficient (only valid behind its guards) or names summed indices:
    // a guard, never a bound of another summed index's range.
    bool guard_only = false;
  };
  std::vector<Bound> bounds;  // the solved indices' ranges, as conditions on the point
  // Indices the replacements so far mention (summed ones): solving one of them later would
  // leave its name in an earlier replacement.
  std::unordered_set<DefId> mentioned;
  // Does v's range name an index of the point, or an index's range name v?
  auto names_w = [&](const NodeRef& e, std::optional<DefId> only) {
    bool any = false;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind == Kind::Name && wset.count(n->def) && (!only || n->def == *only)) any = true;
    });
    return any;
  };
  auto range_ties = [&](DefId v) {
    if (names_w(ranges[v].first, std::nullopt) || names_w(ranges[v].second, std::nullopt))
      return true;
    for (auto& [u, r] : ranges)
      if (names_w(r.first, v) || names_w(r.second, v)) return true;
    return false;
  };
  // Subscripts of one index first (`x[i, i + j]` solves i from the first, then j), then the
  // others, in axis order.
  std::vector<int> order;
  std::vector<bool> done(static_cast<size_t>(b_rank), false);
  for (size_t a = 0; a < nested.size() && a < done.size(); ++a) done[a] = nested[a];
  // An unflattened index (`y[m / k, m % k]`, a channel m as group and member): m = m_a * k +
  // m_b, where m_b < k. k <= 0 at run time takes the unsolved form (the primal then fails or
  // reads one point).
  for (int a = 0; runtime_coefs && a < b_rank; ++a)
    for (int b = 0; b < b_rank; ++b) {
      const NodeRef& ea = ir::index_args(occ.node)[static_cast<size_t>(a)];
      const NodeRef& eb = ir::index_args(occ.node)[static_cast<size_t>(b)];
      if (done[static_cast<size_t>(a)] || done[static_cast<size_t>(b)] || a == b ||
          ea->kind != Kind::Binary || eb->kind != Kind::Binary ||
          static_cast<ir::BinOp>(ea->ival) != ir::BinOp::Div ||
          static_cast<ir::BinOp>(eb->ival) != ir::BinOp::Mod ||
          !ir::structurally_equal(bin_lhs(ea), bin_lhs(eb)) ||
          !ir::structurally_equal(bin_rhs(ea), bin_rhs(eb)) || !sv.independent(bin_rhs(ea)))
        continue;
      Affine aff = sv.affine(bin_lhs(ea));
      if (!aff.ok || aff.vars.size() != 1 || aff.vars[0].second.s || aff.vars[0].second.c != 1)
        continue;
      DefId v = aff.vars[0].first;
      if (solved.count(v) || mentioned.count(v) || range_ties(v)) continue;
      NodeRef k = bin_rhs(ea);
      if (!(k->kind == Kind::IntLit && k->ival > 0))
        invalid->push_back(ir::make_binary(ir::BinOp::Le, k, irb::lit(0)));
      guards.push_back(ir::make_binary(ir::BinOp::Lt, bar_b.m[b], k));
      NodeRef repl = irb::sub(irb::add(ir::make_binary(ir::BinOp::Mul, bar_b.m[a], k), bar_b.m[b]),
                              aff.offset());
      solved[v] = repl;
      bounds.push_back({false, repl, expand(ranges[v].first, 0), true});
      bounds.push_back({true, repl, expand(ranges[v].second, 0), true});
      done[static_cast<size_t>(a)] = done[static_cast<size_t>(b)] = true;
    }
  for (int pass = 0; pass < 2; ++pass)
    for (int a = 0; a < b_rank; ++a) {
      if (done[static_cast<size_t>(a)]) continue;
      Affine aff = sv.affine(ir::index_args(occ.node)[static_cast<size_t>(a)]);
      if ((aff.ok && aff.vars.size() == 1) == (pass == 0)) order.push_back(a);
    }
  for (int a : order) {
    const NodeRef& e = ir::index_args(occ.node)[static_cast<size_t>(a)];
    Affine aff = sv.affine(e);
    // A subscript computed in i64 (an i64 offset `x[i + o]`) meets the i32 point as i64.
    NodeRef m_a = bar_b.m[a];
    if (TypeRef et = facts_.type(e); et && ir::is_scalar(et) && et->dtype == DType::I64)
      m_a = ir::make({.kind = Kind::Cast, .kids = {m_a, ty_prim(DType::I64)}});
    // The index to solve for: an index of the clause rather than of a reduction (a pooling
    // window's output position, not its tap: the tap's short range is what stays summed),
    // then one with coefficient ±1 (else a divisibility guard), then the one with the longest
    // known range, unknown counting as longest. The others of the subscript stay summed.
    int pick = -1;
    if (aff.ok) {
      // (Indices already summed by an earlier replacement may stay in this one's rest; a
      // solved one may not: its name would not be replaced there.)
      bool clean = true;
      for (auto& [v, c] : aff.vars) clean = clean && !solved.count(v);
      // Solving for one index of several keeps the others summed: only where no range
      // depends on another index of the point (`sum[n in 0..m + 1](a[m - n])` keeps its guard).
      if (aff.vars.size() > 1)
        for (auto& [v, c] : aff.vars) clean = clean && !range_ties(v);
      auto extent = [&](DefId v) {
        auto lo = facts_.fold(ranges[v].first), hi = facts_.fold(ranges[v].second);
        return lo && hi ? *hi - *lo : INT64_MAX;
      };
      auto unit = [](const Coef& c) { return !c.s && (c.c == 1 || c.c == -1); };
      for (size_t i = 0; clean && i < aff.vars.size(); ++i) {
        if ((aff.vars[i].second.s && !runtime_coefs) || mentioned.count(aff.vars[i].first))
          continue;
        if (pick < 0) {
          pick = static_cast<int>(i);
          continue;
        }
        const auto& [v, c] = aff.vars[i];
        const auto& [pv, pc] = aff.vars[static_cast<size_t>(pick)];
        auto key = [&](DefId x, const Coef& k) {
          return std::make_tuple(outputs.count(x) > 0, unit(k), extent(x));
        };
        if (key(v, c) > key(pv, pc)) pick = static_cast<int>(i);
      }
    }
    if (pick >= 0) {
      auto [v, c] = aff.vars[static_cast<size_t>(pick)];
      // rest: every term of the subscript but v's
      NodeRef rest = aff.offset();
      for (size_t i = 0; i < aff.vars.size(); ++i) {
        if (static_cast<int>(i) == pick) continue;
        auto [u, cu] = aff.vars[i];
        mentioned.insert(u);
        NodeRef un = name(cx_.resolver.info(u).name, u);
        if (!cu.s && (cu.c == 1 || cu.c == -1))
          rest = cu.c == 1 ? irb::add(rest, un) : irb::sub(rest, un);
        else
          rest = irb::add(rest, ir::make_binary(ir::BinOp::Mul, coef_ir(cu), un));
      }
      NodeRef repl;
      bool divided = !(!c.s && (c.c == 1 || c.c == -1));
      if (!divided) {
        repl = c.c == 1 ? irb::sub(m_a, rest) : irb::sub(rest, m_a);
      } else {
        // v = (m - rest) / coef where coef divides m - rest (coef may be 0 or negative at
        // run time: the guards say so before the quotient is read).
        NodeRef num = irb::sub(m_a, rest), k = coef_ir(c);
        if (c.s) invalid->push_back(ir::make_binary(ir::BinOp::Eq, coef_ir(c), irb::lit(0)));
        guards.push_back(ir::make_binary(ir::BinOp::Ne, k, irb::lit(0)));
        guards.push_back(eq(ir::make_binary(ir::BinOp::Mod, num, coef_ir(c)), irb::lit(0)));
        repl = ir::make_binary(ir::BinOp::Div, irb::sub(m_a, rest), coef_ir(c));
      }
      solved[v] = repl;
      // A range bounded by where-bound locals (`max[i in a..b] .. where a = lo[r]`) is
      // stated through their definitions: the guards stand outside the where that binds them.
      NodeRef lo = expand(ranges[v].first, 0), hi = expand(ranges[v].second, 0);
      // `i = m` where i already runs over the whole axis m runs over: no guard, so the adjoint
      // stays a plain contraction (BLAS, vectorisation).
      bool whole = aff.vars.size() == 1 && irb::as_lit(rest) == 0 && !divided && c.c == 1 &&
                   covers_axis(lo, hi, ir::index_base(occ.node), a);

      if (!whole) {
        bool guard_only = divided || aff.vars.size() > 1;
        bounds.push_back({false, repl, lo, guard_only});
        bounds.push_back({true, repl, hi, guard_only});
      }
    } else {
      guards.push_back(index_eq(expand(e, 0), facts_.type(e), bar_b.m[a]));
    }
  }
  std::unordered_set<DefId> summed_defs;
  for (auto& s : W)
    if (!solved.count(s->def)) summed_defs.insert(s->def);
  // A solved index whose range is bounded by a summed one (`k in 0..j` read at k = m1) bounds
  // that summed index by the point: `j in m1 + 1..`, not `j in 1..` under a guard `m1 < j`.
  // As a range, the adjoint's read of itself through j (`s̄[m0, j]`, the same step's later
  // clauses) is one recurrence_order can place (bounded_read); behind a guard it is not, and
  // the loop ran the wrong way without a word. The summed index's own range stays a guard.
  std::unordered_map<DefId, NodeRef> new_lo, new_hi;
  for (auto& b : bounds) {
    Affine aff = sv.affine(b.bound);
    if (!b.guard_only && aff.ok && aff.syms.empty() && aff.vars.size() == 1 &&
        aff.vars[0].second.c == 1 && !aff.vars[0].second.s &&
        summed_defs.count(aff.vars[0].first)) {
      DefId sd = aff.vars[0].first;
      // repl < s + c  <=>  s >= repl - c + 1;   repl >= s + c  <=>  s < repl - c + 1.
      auto& slot = b.upper ? new_lo : new_hi;
      if (!slot.count(sd)) {
        slot[sd] = shifted(b.repl, 1 - aff.k);
        continue;
      }
    }
    guards.push_back(ir::make_binary(b.upper ? ir::BinOp::Lt : ir::BinOp::Ge, b.repl, b.bound));
  }
  std::vector<NodeRef> summed;
  for (auto& s : W) {
    if (solved.count(s->def)) continue;
    NodeRef lo = expand(ranges[s->def].first, 0), hi = expand(ranges[s->def].second, 0);
    NodeRef v = name(s->name, s->def);
    if (auto it = new_lo.find(s->def); it != new_lo.end()) {
      guards.push_back(ir::make_binary(ir::BinOp::Ge, v, lo));
      lo = it->second;
    }
    if (auto it = new_hi.find(s->def); it != new_hi.end()) {
      guards.push_back(ir::make_binary(ir::BinOp::Lt, v, hi));
      hi = it->second;
    }
    summed.push_back(idx_in(s->name, s->def, lo, hi));
  }
  // A guard free of the summed indices stands outside the sum, where the index-set split
  // sees it: a read whose point never meets this adjoint's point (`s[n, 0]` in the clause of
  // `s̄[m, 1]`) then drops out of that clause instead of staying as a same-point self-read
  // (E012 "reads the point being defined") under a guard that is always false.
  std::vector<NodeRef> inner, outer;
  for (auto& g : guards) {
    bool free = true;
    ir::for_each_node(g, [&](const NodeRef& n) {
      if (n->kind == Kind::Name && summed_defs.count(n->def)) free = false;
    });
    (free && !summed.empty() ? outer : inner).push_back(wguard(g));
  }
  NodeRef body = where(term, std::move(inner));
  NodeRef expr = summed.empty() ? body : reduce("sum", body, summed);
  if (!outer.empty()) expr = where(expr, std::move(outer));
  Copier cp(cx_, facts_);
  cp.subst = solved;
  NodeRef out = cp.copy(expr);
  if (mentioned.empty()) return out;
  // A replacement names summed indices (`oh = (m - kh * d) / s`), and the copy renamed their
  // binders while copying replacements as they are: point those names at the sum's binders,
  // the first renaming of each (the outer sum's slots bind before any reduction inside).
  std::unordered_map<DefId, DefId> to;
  for (auto& [orig, copy] : cp.renamed)
    if (mentioned.count(orig) && !to.count(orig)) to[orig] = copy;
  std::function<NodeRef(const NodeRef&)> fix = [&](const NodeRef& n) -> NodeRef {
    if (!n) return n;
    if (n->kind == Kind::Name)
      if (auto it = to.find(n->def); it != to.end()) return ir::with_def(n, it->second);
    std::vector<NodeRef> kids;
    for (auto& k : n->kids) kids.push_back(fix(k));
    return ir::with_kids(n, std::move(kids));
  };
  return fix(out);
}

bool Sweeper::covers_axis(const NodeRef& lo, const NodeRef& hi, const NodeRef& base, int axis) {
  auto l = facts_.fold(lo);
  if (!l || *l != 0) return false;
  NodeRef ext = irb::dim_of(base, axis);
  if (ir::structurally_equal(hi, ext)) return true;
  auto h = facts_.fold(hi), e = facts_.fold(ext);
  return h && e && *h == *e;
}

}  // namespace ein::ad
