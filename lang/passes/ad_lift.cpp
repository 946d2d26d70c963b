// Block-local arrays in a clause body on the tape: `let y[k] = { let v[i in 0..3] = x[k + i];
// f(v) }`. Read only at points, v is inlined (Tape::inline_point_arrays, ad_tape.cpp); used
// whole (summed whole, passed to a function, returned), v becomes a tape entry of its own over
// the clause's indices, V[k, i] = x[k + i], and the body reads its row V[k]. The reverse sweep
// then runs once through V (linear in the points) instead of differentiating the body forward
// once per point of x's adjoint with a seed testing k + i == m (quadratic).
#include <functional>

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"

namespace ein::ad {

using ir::Kind;

std::vector<NodeRef> Tape::extents_of(const std::vector<DefId>& slots) const {
  std::vector<NodeRef> extents;
  for (DefId s : slots) {
    const RangeFact* rf = facts_.range(s);
    if (!rf || !rf->hi) break;
    extents.push_back(rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi);
  }
  return extents;
}

// `n` with every inferred index whose range reads the extents of the array `v` the tape drops
// given those extents instead, as an explicit range (and as its range fact).
NodeRef Tape::explicit_ranges(const NodeRef& n, DefId v, const std::vector<NodeRef>& extents) {
  bool hit = false;
  std::function<NodeRef(const NodeRef&)> sub = [&](const NodeRef& e) -> NodeRef {
    if (!e) return e;
    if (e->kind == Kind::DimOf && !e->kids.empty() && e->kids[0]->def == v && e->ival >= 0 &&
        static_cast<size_t>(e->ival) < extents.size()) {
      hit = true;
      return extents[static_cast<size_t>(e->ival)];
    }
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : e->kids) {
      kids.push_back(sub(k));
      changed = changed || kids.back() != k;
    }
    return changed ? ir::with_kids(e, std::move(kids)) : e;
  };
  std::function<NodeRef(const NodeRef&)> walk = [&](const NodeRef& e) -> NodeRef {
    if (!e || e->kind == Kind::Lambda) return e;
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : e->kids) {
      kids.push_back(walk(k));
      changed = changed || kids.back() != k;
    }
    NodeRef m = changed ? ir::with_kids(e, std::move(kids)) : e;
    if (m->kind != Kind::IdxVar) return m;
    const RangeFact* rf = facts_.range(m->def);
    if (!rf || !rf->lo || !rf->hi) return m;
    hit = false;
    RangeFact f = *rf;
    f.lo = sub(rf->lo);
    f.hi = sub(rf->hi);
    if (!hit) return m;
    NodeRef r = idx_in(m->name, m->def, f.lo, f.hi);
    r = ir::edited(r, [&](ir::Node& x) { x.span = m->span; });
    f.is_explicit = true;
    facts_.add_range(m->def, std::move(f));
    return r;
  };
  return walk(n);
}

namespace {

// Does e name any of `defs`?
bool names_any(const NodeRef& e, const std::unordered_set<DefId>& defs) {
  bool hit = false;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && defs.count(n->def)) hit = true;
  });
  return hit;
}

}  // namespace

NodeRef Tape::lift_local_arrays(const NodeRef& value, const std::vector<NodeRef>& slots, DefId self) {
  if (!value || value->kind != Kind::Block || !value->has(ir::kHasTail)) return value;
  // The clause's index variables and their ranges: V's leading axes.
  std::vector<NodeRef> outer, olo, ohi;
  for (const NodeRef& s : slots) {
    if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) continue;
    const RangeFact* rf = facts_.range(s->def);
    NodeRef lo = rf ? rf->lo : nullptr, hi = rf ? (rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi) : nullptr;
    if (!rf && s->kind == Kind::IdxIn && ir::idxin_range(s)->kind == Kind::RangeLit &&
        !ir::idxin_range(s)->has(ir::kInclusive)) {
      lo = ir::range_lo(ir::idxin_range(s));
      hi = ir::range_hi(ir::idxin_range(s));
    }
    if (!lo || !hi) return value;
    outer.push_back(s);
    olo.push_back(lo);
    ohi.push_back(hi);
  }
  if (outer.empty()) return value;
  std::vector<NodeRef> stmts(ir::block_stmts(value).begin(), ir::block_stmts(value).end());
  std::unordered_set<DefId> locals;  // bound by the block's earlier statements
  std::vector<NodeRef> lets;         // earlier scalar lets the lifted value reads
  bool any = false;
  for (size_t i = 0; i + 1 < stmts.size(); ++i) {
    const NodeRef g = stmts[i];
    if (!g) continue;
    std::unordered_set<DefId> own = binders_in(g);
    bool liftable = g->kind == Kind::EinGroup && ir::group_clauses_count(g) == 1 &&
                    ir::group_clauses(g)[0]->kind == Kind::EinDecl;
    std::vector<DefId> vslots;
    std::vector<NodeRef> vlo, vhi;
    if (liftable) {
      const NodeRef& c = ir::group_clauses(g)[0];
      for (const NodeRef& sl : ir::ein_slots(c)) {
        const RangeFact* rf = facts_.range(sl->def);
        if ((sl->kind != Kind::IdxVar && sl->kind != Kind::IdxIn) || !rf || !rf->lo || !rf->hi) {
          liftable = false;
          break;
        }
        vslots.push_back(sl->def);
        vlo.push_back(rf->lo);
        vhi.push_back(rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi);
      }
      std::unordered_set<DefId> bad = locals;
      bad.insert(self);
      bad.insert(g->def);
      for (size_t a = 0; liftable && a < vlo.size(); ++a)
        liftable = !names_any(vlo[a], bad) && !names_any(vhi[a], bad);
      // Its value may read the clause's indices, outer values and the block's earlier scalar
      // lets (copied into V's value), not other locals nor the definition being normalised (a
      // recurrence's step: lifted, the two would read each other).
      lets.clear();
      std::unordered_set<DefId> need;
      ir::for_each_node(ir::ein_value(*c), [&](const NodeRef& n) {
        if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid()) need.insert(n->def);
      });
      for (size_t j = i; liftable && j-- > 0;) {
        const NodeRef& st = stmts[j];
        if (!st || st->kind != Kind::Let || ir::let_pattern(*st)->kind != Kind::PBind ||
            !need.count(ir::let_pattern(*st)->def))
          continue;
        if (ir::rank_of(facts_.def_type(ir::let_pattern(*st)->def)) != 0) liftable = false;
        lets.insert(lets.begin(), st);
        ir::for_each_node(ir::let_value(*st), [&](const NodeRef& n) {
          if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid()) need.insert(n->def);
        });
      }
      for (const NodeRef& st : lets) bad.erase(ir::let_pattern(*st)->def);
      if (names_any(ir::ein_value(*c), {self, g->def})) liftable = false;
      for (const NodeRef& st : lets)
        if (names_any(ir::let_value(*st), bad)) liftable = false;
      liftable = liftable && !names_any(ir::ein_value(*c), bad) &&
                 ir::rank_of(facts_.def_type(g->def)) == static_cast<int>(vslots.size());
      // Read only at points it is inlined instead; otherwise some later use is whole.
    }
    if (!liftable) {
      // A step of a recurrence declaring an array from its own earlier point read alike at
      // every point of the array (`let u[i in 0..3] = h[t - 1] * x[t + i]; f(u)`), the array
      // used whole: the forward seed per point gave wrong adjoints through h (NumPy 40.4, ein
      // 0.0001). Refused rather than a silent wrong number.
      if (g->kind == Kind::EinGroup)
        ir::for_each_node(g, [&](const NodeRef& n) {
          if (n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Name || ir::index_base(n)->def != self) return;
          std::unordered_set<DefId> slots_of_g;
          for (const NodeRef& c : ir::group_clauses(g))
            for (const NodeRef& sl : ir::ein_slots(c)) slots_of_g.insert(sl->def);
          bool per_point = false;
          for (const NodeRef& a : ir::index_args(n)) per_point = per_point || names_any(a, slots_of_g);
          if (!per_point)
            unsupported("`" + g->name + "`, an array declared in a recurrence's step from its earlier point and used whole",
                        n->span);
        });
      locals.insert(own.begin(), own.end());
      continue;
    }
    const NodeRef& c = ir::group_clauses(g)[0];
    std::string nm = g->name + "_rows";
    DefId vd = cx_.resolver.new_def(nm, DefKind::Local, g->span);
    Copier cp(cx_, facts_);
    std::vector<NodeRef> kids{nullptr}, onames;
    for (size_t a = 0; a < outer.size(); ++a) {
      DefId od = cx_.resolver.new_def(outer[a]->name, DefKind::Index, outer[a]->span);
      kids.push_back(idx_in(outer[a]->name, od, olo[a], ohi[a]));
      cp.subst[outer[a]->def] = name(outer[a]->name, od);
      onames.push_back(name(outer[a]->name, outer[a]->def));
    }
    const ir::Kids vs = ir::ein_slots(c);
    for (size_t a = 0; a < vs.size(); ++a) {
      DefId sd = cx_.resolver.new_def(vs[a]->name, DefKind::Index, vs[a]->span);
      NodeRef lo = cp.copy(vlo[a]), hi = cp.copy(vhi[a]);
      kids.push_back(idx_in(vs[a]->name, sd, lo, hi));
      cp.subst[vs[a]->def] = name(vs[a]->name, sd);
    }
    if (lets.empty()) {
      kids[0] = cp.copy(ir::ein_value(*c));
    } else {  // `{ let s = ..; value }`: the copy renames the lets
      NodeRef blk = ir::make({.kind = Kind::Block, .span = c->span, .kids = lets, .flags = ir::kHasTail});
      blk = ir::edited(blk, [&](ir::Node& b) { b.kids.push_back(ir::ein_value(*c)); });
      facts_.note_type(blk->id, ir::elem_of(facts_.def_type(g->def)));
      kids[0] = cp.copy(blk);
    }
    copy_index_ranges(cx_, facts_, cp);
    NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = c->span, .kids = std::move(kids), .name = nm, .def = vd});
    NodeRef group = ir::make({.kind = Kind::EinGroup, .span = g->span, .kids = {decl}, .name = nm, .def = vd});
    TypeRef vt = facts_.def_type(g->def);
    TypeRef Vt = ir::t_array(ir::elem_of(vt), static_cast<int>(outer.size() + vslots.size()));
    facts_.note_def_type(vd, Vt);
    emits_.push_back(group);
    visible_[vd] = group;
    if (within_) stmt_within_[group->id] = within_;
    // Later statements read V's row at the clause's point: v[a..] -> V[k.., a..], v -> V[k..].
    std::vector<NodeRef> extents = extents_of(vslots);
    std::function<NodeRef(const NodeRef&)> reread = [&](const NodeRef& e) -> NodeRef {
      if (!e) return e;
      bool read = e->kind == Kind::Index && ir::index_base(e)->kind == Kind::Name && ir::index_base(e)->def == g->def;
      bool whole = (e->kind == Kind::Name || e->kind == Kind::Path) && e->def == g->def;
      if (read || whole) {
        NodeRef base = name(nm, vd);
        facts_.note_type(base->id, Vt);
        std::vector<NodeRef> ks{base};
        for (auto& o : onames) ks.push_back(ir::fresh_copy(o));
        if (read)
          for (const NodeRef& a : ir::index_args(e)) ks.push_back(reread(a));
        NodeRef n = ir::make({.kind = Kind::Index, .span = e->span, .kids = std::move(ks)});
        facts_.note_type(n->id, facts_.type(e));
        return n;
      }
      std::vector<NodeRef> ks;
      bool changed = false;
      for (auto& k : e->kids) {
        ks.push_back(reread(k));
        changed = changed || ks.back() != k;
      }
      if (!changed) return e;
      NodeRef n = ir::with_kids(e, std::move(ks));
      facts_.note_origin(n->id, e->id);  // its type, a call's target
      return n;
    };
    for (size_t j = i + 1; j < stmts.size(); ++j) {
      if (!stmts[j]) continue;
      if (extents.size() == vslots.size()) stmts[j] = explicit_ranges(stmts[j], g->def, extents);
      stmts[j] = reread(stmts[j]);
    }
    stmts[i] = nullptr;
    any = true;
  }
  return any ? rebuilt_block(value, stmts) : value;
}

NodeRef Tape::rebuilt_block(const NodeRef& block, const std::vector<NodeRef>& stmts) {
  std::vector<NodeRef> kept;
  for (auto& st : stmts)
    if (st) kept.push_back(st);
  NodeRef b = ir::make({.kind = Kind::Block, .span = block->span, .kids = std::move(kept), .flags = block->flags});
  facts_.note_type(b->id, facts_.type(block));
  return b;
}

}  // namespace ein::ad
