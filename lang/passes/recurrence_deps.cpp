// The read analysis of recurrence ordering (recurrence_deps.h).
#include "lang/passes/recurrence_deps.h"

#include <optional>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"

namespace ein::recurrence {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

Clause ReadDeps::analyze(const NodeRef& nest, DefId def) {
  Clause c;
  static_cast<LoopNest&>(c) = peel_nest(nest, def);
  c.nest = nest;
  collect_reads(c, def, c.body, {});
  ir::for_each_node(c.body, [&](const NodeRef& x) {
    if (x->kind == Kind::LoopVar) c.reduce_ranges[x->def] = {ir::loopvar_lo(*x), ir::loopvar_hi(*x)};
    if (x->kind == Kind::LReduce) {
      // The guards directly around the reduction's body hold for every point it reads.
      std::vector<NodeRef> conj;
      NodeRef b = ir::lreduce_body(x);
      while (b && b->kind == Kind::LGuard) {
        split_and(ir::lguard_cond(*b), conj);
        b = ir::lguard_value(*b);
      }
      for (const NodeRef& item : ir::lreduce_items(x))
        if (item->kind == Kind::LoopVar)
          c.reduce_guards[item->def].insert(c.reduce_guards[item->def].end(), conj.begin(), conj.end());
    }
  });
  for (size_t i = 0; i < c.loops.size(); ++i) c.order.push_back(static_cast<int>(i));
  c.seq.assign(c.loops.size(), false);
  return c;
}

// Reads of `def` in `n`, with the conditions that hold where each stands (a branch of an
// `if`, the value of a guard).
void ReadDeps::collect_reads(Clause& c, DefId def, const NodeRef& n, std::vector<Known> known, bool conditional) {
  if (!n) return;
  if (n->kind == Kind::Index && ir::index_base(*n)->kind == Kind::Name && ir::index_base(*n)->def == def) {
    auto idx = ir::index_args(*n);
    c.reads.push_back(Read{n, std::vector<NodeRef>(idx.begin(), idx.end()), known, conditional});
  }
  if (n->kind == Kind::If || n->kind == Kind::LGuard) {
    const NodeRef& cond = n->kind == Kind::If ? ir::if_cond(*n) : ir::lguard_cond(*n);
    collect_reads(c, def, cond, known, conditional);
    known.push_back(Known{cond, true});
    collect_reads(c, def, n->kind == Kind::If ? ir::if_then(*n) : ir::lguard_value(*n), known, true);
    if (n->kind == Kind::If) {
      known.back().holds = false;
      collect_reads(c, def, ir::if_else(*n), known, true);
    }
    return;
  }
  // Kids after the first run only sometimes: match arms, the right operand of && and ||.
  bool later_conditional = n->kind == Kind::Match ||
                           (n->kind == Kind::Binary && (static_cast<ir::BinOp>(n->ival) == ir::BinOp::And ||
                                                        static_cast<ir::BinOp>(n->ival) == ir::BinOp::Or));
  for (size_t i = 0; i < n->kids.size(); ++i)
    collect_reads(c, def, n->kids[i], known, conditional || (later_conditional && i > 0));
}

// A read of another step than the clause's literal one (`P[2, 0]` in `P[3, j] = ...`): the
// steps order it (order_tensor checks it is earlier), not this clause's loops, which it
// neither carries nor blocks. Steps are taken on axis 0, where recurrences keep their time.
bool ReadDeps::other_step(const Clause& c, const Read& r) {
  if (c.write.empty() || r.idx.empty()) return false;
  auto w = irb::as_lit(c.write[0]);
  if (!w) return false;
  auto x = fold_int(cx_, u_, r.idx[0]);
  return x && *x != *w;
}

// Dependence component of `r` on each loop (by index into c.loops).
std::vector<Comp> ReadDeps::vector_of(const Clause& c, const Read& r) {
  std::vector<Comp> v(c.loops.size());
  for (size_t l = 0; l < c.loops.size(); ++l) {
    int a = axis_of(c, c.loops[l]->def);
    if (a < 0 || a >= static_cast<int>(r.idx.size())) continue;
    // An offset that folds at compile time but is not a literal (`a[j + H]`, `let H =
    // len(w)`) is exact too: taken as unknown, such a read ran in loop order and read points
    // not computed yet (silent wrong values).
    v[l] = relative(r.idx[a], c.loops[l]->def, [&](const NodeRef& e) { return fold_int(cx_, u_, e); });
    if (v[l].k == Comp::Unknown) v[l] = constant_read(c.loops[l], a, r);
    if (v[l].k == Comp::Unknown) v[l] = bounded_read(c, c.loops[l]->def, r.idx[a]);
  }
  return v;
}

// A read through a reduction index bounded by the loop variable (`x[k]` in
// `sum[k in i + 1..n]` reads only later points; in `sum[k in 0..i]` only earlier ones).
Comp ReadDeps::bounded_read(const Clause& c, DefId loop_var, const NodeRef& idx) {
  if (idx->kind != Kind::Name) return Comp{};
  auto it = c.reduce_ranges.find(idx->def);
  if (it == c.reduce_ranges.end()) return Comp{};
  Comp lo = relative(it->second.first, loop_var), hi = relative(it->second.second, loop_var);
  if (lo.k == Comp::Exact && lo.d >= 1) return Comp{Comp::Exact, lo.d};       // k > i
  if (hi.k == Comp::Exact && hi.d <= 0) return Comp{Comp::Exact, hi.d - 1};  // k < i
  // A guard bounds it as well as a range does: `sum[k in 0..n](x[k] where i < k)`.
  if (auto g = c.reduce_guards.find(idx->def); g != c.reduce_guards.end())
    for (auto& cond : g->second) {
      auto [lower, bound] = guard_bound(cond, loop_var, idx->def);
      if (lower && bound >= 1) return Comp{Comp::Exact, bound};
      if (!lower && bound <= -1) return Comp{Comp::Exact, bound};
    }
  return Comp{};
}

// A read at a constant point `c` of a loop's axis: backward when c precedes every iteration
// or lies in a region an initial (non-recurrent) clause writes; forward when an iteration
// reaches it before it is computed (SPEC §5.5: E012).

Comp ReadDeps::constant_read(const NodeRef& loop, int axis, const Read& r) {
  auto c = fold_int(cx_, u_, r.idx[axis]);
  if (!c) return Comp{};
  if (all_)
    for (auto& other : *all_) {
      if (other.recurrent() || axis >= static_cast<int>(other.write.size())) continue;
      auto w = irb::as_lit(other.write[axis]);
      if (w && *w == *c) return Comp{Comp::Exact, reverse_ ? 1 : -1};
    }
  auto lo = fold_int(cx_, u_, ir::lfor_lo(loop)), hi = fold_int(cx_, u_, ir::lfor_hi(loop));
  if (!lo || !hi) return Comp{};
  // A condition around the read can keep it to iterations after the point it reads
  // (`if j < 1 { .. } else { S[t, 0] }`): an earlier point, however the loop starts.
  Bounds b = bounds_of(loop->def, r.known, [&](const NodeRef& e) { return fold_int(cx_, u_, e); });
  // A condition fixing the loop variable (`d̄[0, m1 + 1] where m0 == 0`, a term of an adjoint
  // not split into clauses) makes the read exactly that many iterations away, 0 included:
  // the other loops order it.
  if (b.lo && b.hi && *b.lo == *b.hi) return Comp{Comp::Exact, *c - *b.lo};
  if (!reverse_ && b.lo && *b.lo > *c) return Comp{Comp::Exact, -1};
  if (reverse_ && b.hi && *b.hi < *c) return Comp{Comp::Exact, 1};
  if (!reverse_) return Comp{Comp::Exact, *c < *lo ? -1 : 1};
  return Comp{Comp::Exact, *c >= *hi ? 1 : -1};
}

bool ReadDeps::same_literals(const Clause& c, const Read& r) {
  for (size_t a = 0; a < c.write.size() && a < r.idx.size(); ++a) {
    if (c.write[a]->kind == Kind::Name) continue;
    auto w = irb::as_lit(c.write[a]), x = irb::as_lit(r.idx[a]);
    if (!w || !x || *w != *x) return false;
  }
  return true;
}

// Classifies a read in the clause's loop order: -1 backward (carrier loop in *carrier),
// 0 same point on loops, +1 forward.
int ReadDeps::classify(const std::vector<Comp>& v, const std::vector<int>& order,
                       int* carrier) {
  for (int l : order) {
    if (v[l].k == Comp::Unknown) {
      *carrier = l;
      return proven_only_ ? 1 : -1;  // cannot prove either way; loop order decides, run it sequentially
    }
    // A reverse recurrence (generated adjoints) runs from high to low: x[t + 1] is earlier.
    int64_t d = reverse_ ? -v[l].d : v[l].d;
    if (d < 0) {
      *carrier = l;
      return -1;
    }
    if (d > 0) {
      *carrier = l;
      return 1;
    }
  }
  *carrier = -1;
  return 0;
}

// The read's index on the carrying loop's axis is a reduction index that nothing relates to
// the loop variable (no guard, no condition mentions it) and whose range contains the whole
// loop's: at every point the reduction reads the point itself.
bool ReadDeps::reads_itself(const Clause& c, const Read& r, int carrier) {
  auto v = vector_of(c, r);
  if (v[carrier].k != Comp::Unknown) return false;
  int a = axis_of(c, c.loops[carrier]->def);
  if (a < 0 || a >= static_cast<int>(r.idx.size()) || r.idx[a]->kind != Kind::Name) return false;
  DefId k = r.idx[a]->def;
  auto range = c.reduce_ranges.find(k);
  if (range == c.reduce_ranges.end()) return false;
  bool conditioned = false;
  ir::for_each_node(c.body, [&](const NodeRef& x) {
    if (conditioned || (x->kind != Kind::If && x->kind != Kind::LGuard)) return;
    ir::for_each_node(x->kind == Kind::If ? ir::if_cond(x) : ir::lguard_cond(x), [&](const NodeRef& y) {
      conditioned = conditioned || (y->kind == Kind::Name && y->def == k);
    });
  });
  if (conditioned) return false;
  for (size_t a2 = 0; a2 < c.write.size() && a2 < r.idx.size(); ++a2)
    if (static_cast<int>(a2) != a && !(r.idx[a2]->kind == Kind::Name && c.write[a2]->kind == Kind::Name &&
                                       r.idx[a2]->def == c.write[a2]->def) &&
        !(irb::as_lit(r.idx[a2]) && irb::as_lit(c.write[a2]) && *irb::as_lit(r.idx[a2]) == *irb::as_lit(c.write[a2])))
      return false;  // another axis reads elsewhere: not the point itself
  auto klo = fold_int(cx_, u_, range->second.first), khi = fold_int(cx_, u_, range->second.second);
  auto llo = fold_int(cx_, u_, ir::lfor_lo(c.loops[carrier])), lhi = fold_int(cx_, u_, ir::lfor_hi(c.loops[carrier]));
  return klo && khi && llo && lhi && *llo < *lhi && *klo <= *llo && *khi >= *lhi;
}

// Can the read `r` hit a point clause `w` writes (axes other than the time axis)?
bool ReadDeps::hits_clause(const Read& r, const Clause& w, int time_axis, const Clause* reader) {
  for (size_t a = 0; a < w.write.size() && a < r.idx.size(); ++a) {
    if (static_cast<int>(a) == time_axis) continue;
    auto x = fold_int(cx_, u_, r.idx[a]);
    // `d[m0 + 1, m1]` with m0 in 1..3 reads rows 2..3 only: not a clause writing row 0 (the
    // adjoint of a table with edge clauses, split per edge, read as a same-step cycle).
    if (!x && reader) {
      if (auto span = read_interval(r.idx[a], *reader)) {
        std::optional<int64_t> lo, hi;  // of w on this axis, [lo, hi)
        if (auto l = irb::as_lit(w.write[a])) {
          lo = *l, hi = *l + 1;
        } else if (w.write[a]->kind == Kind::Name) {
          for (auto& f : w.loops)
            if (f->def == w.write[a]->def) lo = fold_int(cx_, u_, ir::lfor_lo(f)), hi = fold_int(cx_, u_, ir::lfor_hi(f));
        }
        if (lo && hi && (span->second < *lo || span->first >= *hi)) return false;
      }
    }
    if (w.write[a]->kind == Kind::Name) {
      // A point outside the range w loops over on this axis is not w's (adjoints of grids:
      // `d[2, 3]` reads `d[2, 4]`, which the clause over `d[2, 1..3]` never writes).
      for (auto& f : w.loops) {
        if (f->def != w.write[a]->def || !x) continue;
        auto lo = fold_int(cx_, u_, ir::lfor_lo(f)), hi = fold_int(cx_, u_, ir::lfor_hi(f));
        if (lo && hi && (*x < *lo || *x >= *hi)) return false;
      }
      continue;
    }
    if (x && *x != *irb::as_lit(w.write[a])) return false;
  }
  return true;
}

// The values [first, last] a subscript `v`, `v + k` or `v - k` takes over the reader's loop of v
// (bounds that fold); none otherwise.
std::optional<std::pair<int64_t, int64_t>> ReadDeps::read_interval(const NodeRef& ix, const Clause& reader) {
  NodeRef var = ix;
  int64_t off = 0;
  if (ix->kind == Kind::Binary) {
    auto op = static_cast<ir::BinOp>(ix->ival);
    auto k = fold_int(cx_, u_, ir::bin_rhs(ix));
    if (!k || (op != ir::BinOp::Add && op != ir::BinOp::Sub) || *k > (int64_t{1} << 40) || *k < -(int64_t{1} << 40))
      return std::nullopt;
    var = ir::bin_lhs(ix);
    off = op == ir::BinOp::Add ? *k : -*k;
  }
  if (var->kind != Kind::Name) return std::nullopt;
  for (auto& f : reader.loops) {
    if (f->def != var->def) continue;
    auto lo = fold_int(cx_, u_, ir::lfor_lo(f)), hi = fold_int(cx_, u_, ir::lfor_hi(f));
    if (!lo || !hi || *hi <= *lo || *lo < -(int64_t{1} << 40) || *hi > (int64_t{1} << 40)) return std::nullopt;
    return std::make_pair(*lo + off, *hi - 1 + off);
  }
  return std::nullopt;
}

// Does read `r` touch a point clause `w` writes? 1 certainly, 0 no, -1 perhaps.
int ReadDeps::hits(const Read& r, const Clause& w) {
  int res = 1;
  for (size_t a = 0; a < w.write.size() && a < r.idx.size(); ++a) {
    auto x = fold_int(cx_, u_, r.idx[a]);
    std::optional<int64_t> lo, hi, lit = irb::as_lit(w.write[a]);
    if (lit) {
      lo = *lit, hi = *lit + 1;
    } else {
      for (auto& f : w.loops)
        if (w.write[a]->kind == Kind::Name && f->def == w.write[a]->def) {
          lo = fold_int(cx_, u_, ir::lfor_lo(f));
          hi = fold_int(cx_, u_, ir::lfor_hi(f));
        }
    }
    if (!x || !lo || !hi) res = -1;
    else if (*x < *lo || *x >= *hi) return 0;
  }
  return res;
}

// The points clause `c` writes, per axis of its tensor (a side unknown when it does not fold).
ClauseBox ReadDeps::box_of(const Clause& c) {
  ClauseBox b(c.write.size());
  for (size_t a = 0; a < c.write.size(); ++a) {
    if (auto l = irb::as_lit(c.write[a])) {
      b[a] = {*l, *l + 1};
      continue;
    }
    for (auto& lp : c.loops)
      if (c.write[a]->kind == Kind::Name && lp->def == c.write[a]->def)
        b[a] = {fold_int(cx_, u_, ir::lfor_lo(*lp)), fold_int(cx_, u_, ir::lfor_hi(*lp))};
  }
  return b;
}

}  // namespace ein::recurrence
