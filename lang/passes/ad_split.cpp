// Index-set splitting of adjoint declarations (part of the reverse sweep, ad_reverse.cpp).
//
// A reverse sweep writes b̄[m] as a sum of contributions, each valid on a range of m that it
// states with `where` guards: `b̄[m] = c̄[m + 1] * w where m + 1 < T  +  seed where m == T - 1`.
// Evaluated as written, every point tests every guard and adds the zero of every term that does
// not apply; in a reverse recurrence that add sits on the critical path of each step. When
// every guard bounds one axis by constants (the extents are known at compile time), each axis
// is cut at the guards' end points and each box becomes its own clause holding only the terms
// that apply there, unguarded: `b̄[T - 1] = seed; b̄[m in 0..T - 1] = c̄[m + 1] * w`. Axes are cut
// outermost first and equal neighbouring slabs merge, so a 2-D stencil's adjoint is a handful
// of clauses (boundary columns, the interior, the seed row), not a grid of them.
//
// Points of b whose every clause is inactive (reads nothing differentiated, like `h[0] = 1.0`)
// have adjoints nobody reads; they are left 0. That keeps an identity contribution exact: when
// u's adjoint is c̄ wherever c̄ can be non-zero, u's adjoint *is* c̄ and the sweep binds it to the
// same tensor instead of copying it (`alias_of`).
#include <algorithm>

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"

namespace ein::ad {

using ir::Kind;

namespace {

// Guards over several axes stay on their term inside the box (its point still tests them).
// Offsets beyond this are not split (keeps every bound computed below free of overflow).
constexpr int64_t kBig = int64_t{1} << 52;

// c * m[axis] + k, with m-free parts folded to constants.
struct Lin {
  int axis = -1;
  int64_t c = 0, k = 0;
  bool ok = true;
};

class Splitter {
 public:
  Splitter(Facts& facts, const std::vector<NodeRef>& m) : facts_(facts), m_(m) {}

  Lin lin(const NodeRef& e, int depth = 0) {
    Lin l;
    if (!e || depth > 32) return bad();
    if (e->kind == Kind::Name)
      for (size_t i = 0; i < m_.size(); ++i)
        if (e->def == m_[i]->def) return Lin{static_cast<int>(i), 1, 0, true};
    if (e->kind == Kind::Binary) {
      auto op = static_cast<ir::BinOp>(e->ival);
      if (op == ir::BinOp::Add || op == ir::BinOp::Sub) {
        Lin a = lin(ir::bin_lhs(e), depth + 1), b = lin(ir::bin_rhs(e), depth + 1);
        return combine(a, b, op == ir::BinOp::Add ? 1 : -1);
      }
    }
    if (e->kind == Kind::Unary && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg)
      return combine(Lin{}, lin(ir::unary_operand(e), depth + 1), -1);
    if (mentions_m(e)) return bad();
    auto v = facts_.fold(e);  // in a function: with its specialisation's facts
    if (!v || *v > kBig || *v < -kBig) return bad();
    l.k = *v;
    return l;
  }

  // The range [lo, hi) of m[axis] where guard g holds; false when g is not of that form.
  bool interval(const NodeRef& g, int* axis, int64_t* lo, int64_t* hi) {
    if (g->kind != Kind::Binary) return false;
    auto op = static_cast<ir::BinOp>(g->ival);
    Lin d = combine(lin(ir::bin_lhs(g)), lin(ir::bin_rhs(g)), -1);  // d = lhs - rhs
    if (!d.ok || d.axis < 0 || (d.c != 1 && d.c != -1)) return false;
    if (*axis >= 0 && *axis != d.axis) return false;
    *axis = d.axis;
    // Normalise to c = 1: m + k (op) 0, mirroring the comparison when c = -1.
    int64_t k = d.k * d.c;
    if (d.c == -1) {
      if (op == ir::BinOp::Ge) op = ir::BinOp::Le;
      else if (op == ir::BinOp::Le) op = ir::BinOp::Ge;
      else if (op == ir::BinOp::Gt) op = ir::BinOp::Lt;
      else if (op == ir::BinOp::Lt) op = ir::BinOp::Gt;
    }
    switch (op) {
      case ir::BinOp::Ge: *lo = std::max(*lo, -k); return true;
      case ir::BinOp::Gt: *lo = std::max(*lo, -k + 1); return true;
      case ir::BinOp::Le: *hi = std::min(*hi, -k + 1); return true;
      case ir::BinOp::Lt: *hi = std::min(*hi, -k); return true;
      case ir::BinOp::Eq:
        *lo = std::max(*lo, -k);
        *hi = std::min(*hi, -k + 1);
        return true;
      default: return false;
    }
  }

 private:
  static Lin bad() {
    Lin l;
    l.ok = false;
    return l;
  }
  static Lin combine(Lin a, const Lin& b, int sign) {
    if (!a.ok || !b.ok) return bad();
    if (b.axis >= 0) {
      if (a.axis >= 0 && a.axis != b.axis) return bad();
      if (a.axis < 0) a.axis = b.axis;
      a.c += sign * b.c;
    }
    a.k += sign * b.k;
    if (a.c == 0) a.axis = -1;
    if (a.k > kBig || a.k < -kBig || a.c > 2 || a.c < -2) return bad();  // no overflow below
    return a;
  }
  bool mentions_m(const NodeRef& e) const {
    bool any = false;
    ir::for_each_node(e, [&](const NodeRef& n) {
      if (n->kind == Kind::Name)
        for (auto& v : m_) any = any || n->def == v->def;
    });
    return any;
  }

  Facts& facts_;
  const std::vector<NodeRef>& m_;
};

struct Term {
  NodeRef value{};                  // without its guards
  std::vector<int64_t> lo{}, hi{};  // per axis, where its guards hold
  std::vector<NodeRef> rest{};      // guards that bound no single axis (`m0 - 2 == m1`): kept
};

// A box of the index space with the terms that apply on all of it.
struct Box {
  std::vector<int64_t> lo, hi;
  std::vector<size_t> use;
};

void flatten_sum(const NodeRef& e, std::vector<NodeRef>& out) {
  if (e->kind == Kind::Binary && static_cast<ir::BinOp>(e->ival) == ir::BinOp::Add) {
    flatten_sum(ir::bin_lhs(e), out);
    flatten_sum(ir::bin_rhs(e), out);
  } else {
    out.push_back(e);
  }
}

// Does the clause read anything differentiated (an entry of the tape or a parameter)?
bool active_value(const NodeRef& v, const std::unordered_set<DefId>& active) {
  bool any = false;
  ir::for_each_node(v, [&](const NodeRef& n) {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && active.count(n->def)) any = true;
  });
  return any;
}

// The range of `slot` on its axis, when it folds.
bool slot_range(Facts& facts, const NodeRef& s, int64_t* lo, int64_t* hi) {
  if (s->kind == Kind::IdxLit) {
    *lo = s->ival;
    *hi = s->ival + 1;
    return true;
  }
  NodeRef l, h;
  bool inclusive = false;
  if (s->kind == Kind::IdxIn && ir::idxin_range(s)->kind == Kind::RangeLit) {
    const NodeRef& range = ir::idxin_range(s);
    l = ir::range_lo(range);
    h = ir::range_hi(range);
    inclusive = range->has(ir::kInclusive);
  } else if (const RangeFact* rf = facts.range(s->def)) {
    l = rf->lo;
    h = rf->hi;
  } else {
    return false;
  }
  auto fl = facts.fold(l), fh = facts.fold(h);
  if (!fl || !fh) return false;
  *lo = *fl;
  *hi = *fh + (inclusive ? 1 : 0);
  return true;
}

// Cuts the box along axis a (then the deeper axes) at `cuts`; neighbouring slabs whose boxes
// below are the same merge, so a row where only the seed applies stays one clause.
std::vector<Box> split_box(const Box& b, size_t a, const std::vector<std::vector<int64_t>>& cuts,
                           const std::vector<Term>& terms, const std::vector<Box>& live) {
  const size_t rank = b.lo.size();
  if (a == rank) {
    Box leaf = b;
    bool is_live = false;
    for (auto& l : live) {
      bool inside = true;
      for (size_t k = 0; k < rank; ++k) inside = inside && l.lo[k] <= b.lo[k] && b.hi[k] <= l.hi[k];
      is_live = is_live || inside;
    }
    if (is_live)
      for (size_t j = 0; j < terms.size(); ++j) {
        bool inside = true;
        for (size_t k = 0; k < rank; ++k) inside = inside && terms[j].lo[k] <= b.lo[k] && b.hi[k] <= terms[j].hi[k];
        if (inside) leaf.use.push_back(j);
      }
    return {leaf};
  }
  std::vector<int64_t> at{b.lo[a]};
  for (int64_t c : cuts[a])
    if (c > b.lo[a] && c < b.hi[a]) at.push_back(c);
  at.push_back(b.hi[a]);
  std::vector<Box> out, prev;
  auto same_below = [&](const std::vector<Box>& x, const std::vector<Box>& y) {
    if (x.size() != y.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (x[i].use != y[i].use) return false;
      for (size_t k = a + 1; k < rank; ++k)
        if (x[i].lo[k] != y[i].lo[k] || x[i].hi[k] != y[i].hi[k]) return false;
    }
    return true;
  };
  for (size_t i = 0; i + 1 < at.size(); ++i) {
    Box slab = b;
    slab.lo[a] = at[i];
    slab.hi[a] = at[i + 1];
    std::vector<Box> sub = split_box(slab, a + 1, cuts, terms, live);
    if (!prev.empty() && same_below(prev, sub)) {
      for (auto& p : prev) p.hi[a] = at[i + 1];
    } else {
      out.insert(out.end(), prev.begin(), prev.end());
      prev = std::move(sub);
    }
  }
  out.insert(out.end(), prev.begin(), prev.end());
  return out;
}

}  // namespace

std::optional<AdjSplit> split_adjoint(CompileCtx& cx, Facts& facts, const Adjoint& t, const NodeRef& sum,
                                      DType dt, const Entry* primal, const std::unordered_set<DefId>& active,
                                      bool reverse) {
  const size_t rank = t.m.size();
  if (rank == 0 || !sum) return std::nullopt;
  Splitter sp(facts, t.m);
  std::vector<int64_t> ext(rank);
  for (size_t a = 0; a < rank; ++a) {
    int64_t lo = 0;
    if (!slot_range(facts, t.slots[a], &lo, &ext[a]) || lo != 0 || ext[a] <= 0) return std::nullopt;
  }
  // A self-read of the same step through a summed index on an inner axis (`t̄[m0, j]`, j in
  // m1 + 1..: the step's later points) orders the points within a step. Cut into per-row
  // clauses, that order would have to come from fusing the rows' clauses, which
  // recurrence_order does along the wrong axis; one clause over the box keeps it a dependence
  // recurrence_order places itself. (A read of another step, `h̄[m0 + 1, j]` of an RNN, is
  // ordered by the steps: split as usual.)
  bool same_step_summed_read = false;
  ir::for_each_node(sum, [&](const NodeRef& n) {
    if (n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Name || ir::index_base(n)->def != t.def) return;
    ir::Kids idx = ir::index_args(n);
    for (size_t a = 0; a < idx.size() && a < rank; ++a) {
      const NodeRef& ix = idx[a];
      if (ix->kind == Kind::Name && ix->def == t.m[a]->def) continue;  // the point's own
      if (a == 0) break;  // another step (split boxes on axis 0 order those)
      ir::for_each_node(ix, [&](const NodeRef& x) {
        if (x->kind != Kind::Name) return;
        bool is_m = false;
        for (auto& v : t.m) is_m = is_m || v->def == x->def;
        if (!is_m) same_step_summed_read = true;
      });
      break;
    }
  });
  if (same_step_summed_read && rank >= 2) return std::nullopt;
  std::vector<NodeRef> parts;
  flatten_sum(sum, parts);
  bool guarded = false;
  std::vector<Term> terms;
  const int64_t kInf = INT64_MAX / 4;
  for (auto& p : parts) {
    Term term{p, std::vector<int64_t>(rank, -kInf), std::vector<int64_t>(rank, kInf)};
    if (p->kind == Kind::Where) {
      for (const NodeRef& item : ir::where_clauses(p)) {
        if (item->kind != Kind::WGuard) return std::nullopt;
        int axis = -1;
        int64_t lo = -kInf, hi = kInf;
        if (!sp.interval(ir::wguard_cond(item), &axis, &lo, &hi)) {
          term.rest.push_back(item);
          continue;
        }
        auto ax = static_cast<size_t>(axis);
        term.lo[ax] = std::max(term.lo[ax], lo);
        term.hi[ax] = std::min(term.hi[ax], hi);
      }
      term.value = ir::where_expr(p);
      guarded = true;
    }
    terms.push_back(term);
  }
  // Boxes covered by an active clause of the primal; elsewhere the adjoint is never read.
  Box whole{std::vector<int64_t>(rank, 0), ext, {}};
  std::vector<Box> live;
  if (primal) {
    for (auto& cl : primal->clauses) {
      if (!active_value(cl.value, active)) continue;
      Box l = whole;
      bool known = cl.slots.size() == rank;
      for (size_t a = 0; a < rank && known; ++a) known = slot_range(facts, cl.slots[a], &l.lo[a], &l.hi[a]);
      live.push_back(known ? l : whole);
    }
  } else {
    live.push_back(whole);
  }
  std::vector<std::vector<int64_t>> cuts(rank);
  for (size_t a = 0; a < rank; ++a) {
    for (auto& tm : terms) cuts[a].insert(cuts[a].end(), {tm.lo[a], tm.hi[a]});
    for (auto& l : live) cuts[a].insert(cuts[a].end(), {l.lo[a], l.hi[a]});
    std::sort(cuts[a].begin(), cuts[a].end());
    cuts[a].erase(std::unique(cuts[a].begin(), cuts[a].end()), cuts[a].end());
  }
  std::vector<Box> leaves = split_box(whole, 0, cuts, terms, live);
  bool some_dead = false;
  for (auto& l : leaves) some_dead = some_dead || l.use.empty();
  if (!guarded && !some_dead) return std::nullopt;  // nothing to gain
  if (leaves.size() > 16) return std::nullopt;      // keep the IR (and the kernels) few
  AdjSplit out;
  out.extent = ext[0];
  for (auto& l : leaves) {
    AdjSegment seg{l.lo[0], l.hi[0], nullptr};
    for (size_t j : l.use) seg.body = add(seg.body, terms[j].rest.empty() ? terms[j].value : where(terms[j].value, terms[j].rest));
    out.segs.push_back(seg);
  }
  // One clause per non-zero box over fresh indices; uncovered points are 0 (SPEC §5.4), and a
  // zero box at the far corner keeps the extents with one zero point.
  std::vector<NodeRef> decls;
  for (size_t i = 0; i < leaves.size(); ++i) {
    Box box = leaves[i];
    const NodeRef& body = out.segs[i].body;
    bool corner = true;
    for (size_t a = 0; a < rank; ++a) corner = corner && box.hi[a] == ext[a];
    if (!body && !corner) continue;
    if (!body)
      for (size_t a = 0; a < rank; ++a) box.lo[a] = box.hi[a] - 1;
    Copier cp(cx, facts);
    std::vector<NodeRef> slots;
    for (size_t a = 0; a < rank; ++a) {
      if (box.hi[a] - box.lo[a] == 1) {
        slots.push_back(ir::make({.kind = Kind::IdxLit, .ival = box.lo[a]}));
        cp.subst[t.m[a]->def] = irb::lit(box.lo[a]);
        continue;
      }
      DefId d = cx.resolver.new_def(t.m[a]->name, DefKind::Index);
      cp.subst[t.m[a]->def] = name(t.m[a]->name, d);
      slots.push_back(idx_in(t.m[a]->name, d, irb::lit(box.lo[a]), irb::lit(box.hi[a])));
    }
    NodeRef value = body ? cp.copy(body) : zero_of(dt);
    decls.push_back(ir::make({.kind = Kind::EinDecl, .kids = ir::kid_list(value, slots), .name = t.name, .def = t.def}));
  }
  // A reverse recurrence computes its last points first.
  if (reverse) std::reverse(decls.begin(), decls.end());
  out.decls = std::move(decls);
  return out;
}

std::optional<DefId> alias_of(const Adjoint& b, const AdjSplit& sb,
                              const std::unordered_map<DefId, AdjSplit>& splits) {
  if (b.m.size() != 1) return std::nullopt;
  std::optional<DefId> src;
  for (auto& seg : sb.segs) {
    if (!seg.body) continue;
    const NodeRef& e = seg.body;
    if (e->kind != Kind::Index || ir::index_args_count(e) != 1 || ir::index_base(e)->kind != Kind::Name ||
        ir::index_args(e)[0]->kind != Kind::Name || ir::index_args(e)[0]->def != b.m[0]->def)
      return std::nullopt;
    if (src && *src != ir::index_base(e)->def) return std::nullopt;
    src = ir::index_base(e)->def;

  }
  if (!src) return std::nullopt;
  auto it = splits.find(*src);
  if (it == splits.end() || it->second.extent != sb.extent) return std::nullopt;
  // Wherever b's adjoint is 0, the source's must be 0 too.
  for (auto& z : sb.segs) {
    if (z.body) continue;
    for (auto& s : it->second.segs)
      if (s.body && s.lo < z.hi && z.lo < s.hi) return std::nullopt;
  }
  return src;
}

}  // namespace ein::ad
