// The reverse sweep (VJP, thesis §6.4): for every active binding b, in reverse dependency order,
//   b̄[m..] = seed + Σ over every read of b in a consumer clause c of that read's contribution
// (ad_contribution.cpp, ad_stored.cpp), written as ordinary Einstein code. A binding read by its
// own recurrence gets a reverse recurrence (the adjoint runs from the last step to the first).
#include <map>
#include <tuple>

#include "lang/passes/ad_sweep.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

namespace {

void find_reads(const NodeRef& n, DefId b, bool scalar, std::vector<Occurrence>& out, bool as_base) {
  if (!n || n->kind == Kind::DimOf) return;  // an extent is not a value read
  // Nor are `len(b)` and `shape(b)` (a library's batch size `__convert(len(p), p)`).
  if (n->kind == Kind::Call && ir::call_args_count(n) == 1 && ir::call_args(n)[0]->kind == Kind::Name)
    if (auto f = builtin_of(ir::call_callee(n)->def); f && (*f == Builtin::Len || *f == Builtin::Shape)) return;
  if (n->kind == Kind::Lambda) {
    ir::for_each_node(n, [&](const NodeRef& m) {
      if (m->kind == Kind::Name && m->def == b) unsupported("a closure that captures a differentiated value", m->span);
    });
    return;
  }
  if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == b && !scalar) {
    out.push_back({n});
    for (const NodeRef& i : ir::index_args(n)) find_reads(i, b, scalar, out, false);
    return;
  }
  if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == b) {
    if (scalar) out.push_back({n});
    else if (!as_base) unsupported("a use of the whole array `" + n->name + "` inside an indexed expression", n->span);
    return;
  }
  if (n->kind == Kind::Index) {  // the base of an access may name b whole; its indices may not
    find_reads(ir::index_base(n), b, scalar, out, true);
    for (const NodeRef& i : ir::index_args(n)) find_reads(i, b, scalar, out, false);
    return;
  }
  for (const NodeRef& k : n->kids) find_reads(k, b, scalar, out, false);
}

// The offset of an index expression from the Name `m` (`m`, `m + k`, `m - k`, `k + m`).
std::optional<int64_t> offset_from(const NodeRef& e, DefId m) {
  if (e->kind == Kind::Name) return e->def == m ? std::optional<int64_t>(0) : std::nullopt;
  if (e->kind != Kind::Binary) return std::nullopt;
  auto op = static_cast<ir::BinOp>(e->ival);
  if (op != ir::BinOp::Add && op != ir::BinOp::Sub) return std::nullopt;
  auto l = irb::as_lit(bin_rhs(e)), k = irb::as_lit(bin_lhs(e));
  if (l)
    if (auto o = offset_from(bin_lhs(e), m)) return op == ir::BinOp::Add ? *o + *l : *o - *l;
  if (k && op == ir::BinOp::Add)
    if (auto o = offset_from(bin_rhs(e), m)) return *o + *k;
  return std::nullopt;
}

// Which way an adjoint's reads of itself point: +1 when every read is of a later point (on its
// outermost differing axis), so it runs from high to low; -1 when every read is of an earlier
// point (the adjoint of a recurrence that itself runs from high to low); 0 when unknown.
int self_direction(const NodeRef& sum, const Adjoint& bb) {
  int dir = 0;
  bool mixed = false;
  ir::for_each_node(sum, [&](const NodeRef& n) {
    if (n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Name || ir::index_base(n)->def != bb.def) return;
    ir::Kids idx = ir::index_args(n);
    if (idx.size() != bb.m.size()) {
      mixed = true;
      return;
    }
    int d = 0;
    for (size_t a = 0; a < bb.m.size() && d == 0; ++a) {
      auto o = offset_from(idx[a], bb.m[a]->def);
      if (!o) {
        mixed = true;
        return;
      }
      d = *o > 0 ? 1 : *o < 0 ? -1 : 0;
    }
    if (d == 0) return;
    if (dir != 0 && dir != d) mixed = true;
    dir = d;
  });
  return mixed ? 0 : dir;
}

// Which way a primal recurrence reads itself: +1 when every self-read is of a higher point (on
// its outermost differing axis; back substitution `x[i] = .. sum[k in i + 1..n](.. x[k])`), so
// it runs from high to low; -1 when every read is of a lower point; 0 when unknown. Reads
// through a reduction index count by the index's range relative to the clause's slot.
int primal_direction(const Entry& e) {
  int dir = 0;
  bool mixed = false;
  for (auto& cl : e.clauses) {
    std::unordered_map<DefId, std::pair<NodeRef, NodeRef>> ranges;  // reduction index -> lo, hi
    ir::for_each_node(cl.value, [&](const NodeRef& n) {
      if (n->kind != Kind::Reduce) return;
      for (const NodeRef& sl : ir::reduce_slots(n)) {
        if (sl->kind != Kind::IdxIn) continue;
        if (const NodeRef& rg = ir::idxin_range(sl); rg && rg->kind == Kind::RangeLit)
          ranges[sl->def] = {ir::range_lo(rg), ir::range_hi(rg)};
      }
    });
    ir::for_each_node(cl.value, [&](const NodeRef& n) {
      if (n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Name || ir::index_base(n)->def != e.def) return;
      ir::Kids idx = ir::index_args(n);
      if (idx.size() != cl.slots.size()) {
        mixed = true;
        return;
      }
      int d = 0;
      for (size_t a = 0; a < cl.slots.size() && d == 0; ++a) {
        const NodeRef& sl = cl.slots[a];
        const NodeRef& ix = idx[a];
        if (sl->kind != Kind::IdxIn && sl->kind != Kind::IdxVar) {
          auto q = irb::as_lit(ix);
          if (sl->kind != Kind::IdxLit || !q) { mixed = true; return; }
          std::optional<int64_t> p = sl->ival;
          d = *q > *p ? 1 : *q < *p ? -1 : 0;
          continue;
        }
        if (auto o = offset_from(ix, sl->def)) {
          d = *o > 0 ? 1 : *o < 0 ? -1 : 0;
          continue;
        }
        auto r = ix->kind == Kind::Name ? ranges.find(ix->def) : ranges.end();
        if (r == ranges.end()) { mixed = true; return; }
        auto lo = offset_from(r->second.first, sl->def), hi = offset_from(r->second.second, sl->def);
        if (lo && *lo >= 1) d = 1;
        else if (hi && *hi <= 0) d = -1;
        else { mixed = true; return; }
      }
      if (d == 0) return;
      if (dir != 0 && dir != d) mixed = true;
      dir = d;
    });
  }
  return mixed ? 0 : dir;
}

}  // namespace

Sweep reverse_sweep(CompileCtx& cx, Facts& facts, const Tape& tape, DefId target,
                    const std::vector<Leaf>& leaves,
                    const std::function<NodeRef(const std::vector<NodeRef>&)>& seed) {
  Sweep out;
  out.stmts = tape.emits();
  const auto& entries = tape.entries();
  std::unordered_map<DefId, Adjoint> bars;
  auto make_bar = [&](DefId d, const std::string& nm, int rank) {
    Adjoint a;
    a.name = "d_" + nm;
    a.def = cx.resolver.new_def(a.name, DefKind::Local);
    for (int i = 0; i < rank; ++i) {
      std::string mn = "m" + std::to_string(i);
      DefId md = cx.resolver.new_def(mn, DefKind::Index);
      a.m.push_back(name(mn, md));
      a.slots.push_back(idx_in(mn, md, irb::lit(0), irb::dim_of(name(nm, d), i)));
    }
    bars[d] = a;
  };
  for (auto& e : entries) make_bar(e.def, e.name, e.rank);
  for (auto& l : leaves)
    if (!bars.count(l.def)) make_bar(l.def, l.name, l.rank);

  Sweeper sw(cx, facts);
  std::unordered_set<DefId> active;  // entries and parameters: what a clause must read to be active
  for (auto& e : entries) active.insert(e.def);
  for (auto& l : leaves) active.insert(l.def);
  std::unordered_map<DefId, AdjSplit> splits;  // adjoint def -> its pieces
  // Adjoints from the target back to the leaf.
  std::vector<std::tuple<DefId, int, DType>> order;
  for (size_t i = entries.size(); i-- > 0;) order.emplace_back(entries[i].def, entries[i].rank, entries[i].dt);
  for (auto& l : leaves) {
    bool is_entry = false;
    for (auto& e : entries) is_entry = is_entry || e.def == l.def;
    bool seen = false;
    for (auto& [d, r, t] : order) seen = seen || d == l.def;
    if (!is_entry && !seen) order.emplace_back(l.def, l.rank, l.dt);
  }
  for (auto& [b, rank, bdt] : order) {
    const Adjoint& bb = bars[b];
    NodeRef sum;
    if (b == target) sum = seed ? seed(bb.m) : flit(1.0);
    bool self_read = false;
    sw.bar_b_primal_ = b;
    for (auto& c : entries) {
      const Adjoint& bc = bars[c.def];
      for (auto& cl : c.clauses) {
        std::vector<Occurrence> occs;
        find_reads(cl.value, b, rank == 0, occs, false);
        for (auto& o : occs) {
          bool self = false;
          NodeRef contrib = sw.contribution(bb, c, bc, cl, o, rank, &self);
          if (!contrib) continue;
          // c̄ · ∂c/∂b has c's width; b̄ sums in b's (a cast between float widths in the primal,
          // `let y = v as [f32]` with v f64).
          if (c.dt != bdt && is_float(bdt))
            contrib = ir::make({.kind = Kind::Cast, .kids = {contrib, ir::make({.kind = Kind::TyPrim,
                                                                                .name = dtype_name(bdt)})}});
          self_read = self_read || self;
          sum = add(sum, contrib);
        }
      }
    }
    if (!sum) sum = zero_of(bdt);
    if (rank == 0) {
      out.stmts.push_back(let_stmt(bb.name, bb.def, sum, bdt));
      continue;
    }
    const Entry* primal = nullptr;
    bool is_leaf = false;
    for (auto& l : leaves) is_leaf = is_leaf || l.def == b;
    for (auto& e : entries)
      if (e.def == b && !is_leaf) primal = &e;
    std::vector<NodeRef> decls;
    // The adjoint runs against the primal's order: from high to low unless it only reads
    // earlier points (the primal ran from high to low).
    // When the adjoint's own reads do not tell (reads through reduction indices), the primal's
    // do: the adjoint runs against them.
    int sd = self_direction(sum, bb);
    if (self_read && sd == 0 && primal) sd = -primal_direction(*primal);
    bool rev = self_read && sd >= 0;
    if (auto sp = split_adjoint(cx, facts, bb, sum, bdt, primal, active, rev)) {
      if (auto src = alias_of(bb, *sp, splits)) {
        // ū is h̄ wherever either can be non-zero: the same tensor, not a copy. Later
        // contributions and the result read h̄ under b's adjoint.
        for (auto& [d, ad] : bars)
          if (ad.def == *src) {
            bars[b].name = ad.name;
            bars[b].def = ad.def;
            break;
          }
        continue;
      }
      decls = sp->decls;
      splits[bb.def] = std::move(*sp);
    } else {
      std::vector<NodeRef> kids{sum};
      for (auto& s : bb.slots) kids.push_back(s);
      decls.push_back(ir::make({.kind = Kind::EinDecl, .kids = std::move(kids), .name = bb.name, .def = bb.def}));
    }
    out.stmts.push_back(ir::make({.kind = Kind::EinGroup, .kids = std::move(decls), .name = bb.name,
                                  .def = bb.def, .flags = (rev ? ir::kReverse : 0u) | ir::kAdjoint}));
  }
  out.stmts.insert(out.stmts.begin() + static_cast<std::ptrdiff_t>(tape.emits().size()), sw.pre_stmts.begin(),
                   sw.pre_stmts.end());
  for (auto& l : leaves) out.results.push_back(name(bars[l.def].name, bars[l.def].def));
  out.result = out.results.front();
  return out;
}

}  // namespace ein::ad
