// Block-local arrays in a clause body on the tape: `let y[k] = { let v[i in 0..3] = x[k + i];
// f(v) }`. Read only at points, v is inlined (Tape::inline_point_arrays, ad_tape.cpp); used
// whole (summed whole, passed to a function, returned), v becomes a tape entry of its own over
// the clause's indices, V[k, i] = x[k + i], and the body reads its row V[k]. The reverse sweep
// then runs once through V (linear in the points) instead of differentiating the body forward
// once per point of x's adjoint with a seed testing k + i == m (quadratic).
#include <algorithm>
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
      // Not lifted (a recurrence's step declaring u from its own earlier point: the entry and
      // the recurrence would read each other): u stays in the block, and the reverse sweep
      // differentiates the step forward per point of its adjoint (Forward::block gives u its
      // tangent declaration). The intermediates the sweep stores never read u (ad_stored.cpp
      // `binds`): stored over the clause's ranges, they read the u of the last step.
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

// A call inlined where indices around it vary (`let t[q, n] = softmax(X[q])[n] * ..`): the body's
// statements that read those indices (the row's max m, its exps e, their sum s, the result y)
// hold one value per point of the indices. Each becomes a tape entry with the indices as
// leading axes (m_rows[q] = max[j](X[q, j]), e_rows[q, j] = exp(X[q, j] - m_rows[q]), ...),
// and the call's value reads its row (y_rows[q]). The entries are linear in the points, like
// the function applied to each row; per point, the body would be differentiated once per
// element of every row. An elementwise array let (`let f = X[q]`, `let f = X[q] + v`) is read
// through in place.
NodeRef Tape::lift_call_locals(const NodeRef& call, size_t from, const NodeRef& value,
                               const std::vector<NodeRef>& site) {
  auto refuse = [&](const std::string& why) {
    unsupported("`" + cx_.sm.snippet(call->span) + "`: a call whose body " + why, call->span);
  };
  std::vector<NodeRef> stmts(emits_.begin() + static_cast<std::ptrdiff_t>(from), emits_.end());
  emits_.resize(from);
  auto bound_by = [](const NodeRef& st) {
    if (st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind) return ir::let_pattern(*st)->def;
    return st->kind == Kind::EinGroup ? st->def : DefId{};
  };
  // Which statements hold values per point, and the indices they read (the new axes).
  std::unordered_set<DefId> per_point;
  std::vector<DefId> axes;
  std::vector<bool> moving(stmts.size(), false);
  for (size_t i = 0; i < stmts.size(); ++i) {
    bool pp = false;
    ir::for_each_node(stmts[i], [&](const NodeRef& n) {
      if ((n->kind != Kind::Name && n->kind != Kind::Path) || !n->def.valid()) return;
      if (bound_.count(n->def)) {
        pp = true;
        if (std::find(axes.begin(), axes.end(), n->def) == axes.end()) axes.push_back(n->def);
      } else if (per_point.count(n->def)) {
        pp = true;
      }
    });
    if (!pp) continue;
    DefId b = bound_by(stmts[i]);
    if (!b.valid()) {
      // A check (`__check(rank == ..)`) binds nothing the derivative reads, and the primal
      // statement the tape follows has run it already.
      if (stmts[i]->kind == Kind::Let || stmts[i]->kind == Kind::EinGroup)
        refuse("has a statement other than a declaration or a let that reads the indices around the call");
      stmts[i] = nullptr;
      continue;
    }
    per_point.insert(b);
    moving[i] = true;
  }
  bool recurrent = false;
  for (size_t i = 0; i < stmts.size(); ++i)
    recurrent = recurrent || (moving[i] && self_.valid() && names_any(stmts[i], {self_}));
  // In a recurrence's step, a call on a block-local array of the step (`{ let u[k] = h[t - 1,
  // k] * 2.0; softmax(u)[j] }`: u could not be lifted, it reads the earlier point) varies with
  // u, not with indices: the same inlining as a call reading the earlier point itself.
  for (DefId a : axes)
    recurrent = recurrent || (self_.valid() && cx_.resolver.info(a).kind != DefKind::Index);
  if (recurrent) return inlined_call_locals(call, stmts, moving, value, site);
  std::vector<NodeRef> alo, ahi;
  std::unordered_set<DefId> axis_set(axes.begin(), axes.end());
  for (DefId a : axes) {
    const RangeFact* rf = facts_.range(a);
    if (cx_.resolver.info(a).kind != DefKind::Index || !rf || !rf->lo || !rf->hi)
      refuse("defines arrays from values of the point that are not indices with known ranges");
    NodeRef hi = rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi;
    if (names_any(rf->lo, bound_) || names_any(hi, bound_))
      refuse("defines arrays from indices whose ranges depend on each other");
    alo.push_back(rf->lo);
    ahi.push_back(hi);
  }
  const size_t k = axes.size();
  // Per lifted statement: its entry; per elementwise let: its value (read in place).
  struct Lifted {
    DefId def;
    TypeRef type;
  };
  std::unordered_map<DefId, Lifted> lifted;
  std::unordered_map<DefId, NodeRef> aliased;
  // A Copier reading lifted and aliased locals through `axis` names (the axes' own Names at the
  // call, fresh ones inside an entry).
  auto reader = [&](Copier& cp, const std::vector<NodeRef>& axis) {
    for (auto& [d, l] : lifted) {
      NodeRef base = name(cx_.resolver.info(l.def).name, l.def);
      facts_.note_type(base->id, l.type);
      std::vector<NodeRef> ks{base};
      for (const NodeRef& a : axis) ks.push_back(ir::fresh_copy(a));
      NodeRef rd = ir::make({.kind = Kind::Index, .span = call->span, .kids = std::move(ks)});
      facts_.note_type(rd->id, facts_.def_type(d));
      cp.subst[d] = rd;
    }
    Copier at(cx_, facts_);
    for (size_t a = 0; a < k; ++a) at.subst[axes[a]] = axis[a];
    for (auto& [d, e] : aliased) cp.subst[d] = at.copy(e);
  };
  std::vector<NodeRef> at_call;
  for (DefId a : axes) at_call.push_back(name(cx_.resolver.info(a).name, a));
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& st = stmts[i];
    if (!st) continue;
    if (!moving[i]) {
      emits_.push_back(st);
      continue;
    }
    DefId L = bound_by(st);
    visible_.erase(L);
    TypeRef lt = facts_.def_type(L);
    if (st->kind == Kind::Let && ir::rank_of(lt) > 0) {
      // A row of an array (`let f = X[q]`, a promotion type_infer dropped) or an elementwise
      // expression of rows: read in place.
      NodeRef e = ir::let_value(*st);
      if (!elementwise_value(e)) refuse("defines arrays from the indices around the call");
      Copier cp(cx_, facts_);
      reader(cp, at_call);
      aliased[L] = cp.copy(e);
      continue;
    }
    // The entry's axes, then the statement's own slots.
    Copier cp(cx_, facts_);
    std::vector<NodeRef> kids{nullptr}, fresh_axes;
    for (size_t a = 0; a < k; ++a) {
      const std::string& an = cx_.resolver.info(axes[a]).name;
      DefId ad = cx_.resolver.new_def(an, DefKind::Index, call->span);
      facts_.note_def_type(ad, ir::t_scalar(DType::I32));  // read where a scalar is needed
      kids.push_back(idx_in(an, ad, alo[a], ahi[a]));
      fresh_axes.push_back(name(an, ad));
    }
    reader(cp, fresh_axes);
    for (size_t a = 0; a < k; ++a) cp.subst[axes[a]] = fresh_axes[a];
    NodeRef val;
    std::string nm = cx_.resolver.info(L).name + "_rows";
    if (st->kind == Kind::Let) {
      val = ir::let_value(*st);
    } else {
      if (ir::group_clauses_count(st) != 1 || ir::group_clauses(st)[0]->kind != Kind::EinDecl)
        refuse("defines a recurrence from the indices around the call");
      const NodeRef& c = ir::group_clauses(st)[0];
      for (const NodeRef& sl : ir::ein_slots(c)) {
        const RangeFact* rf = facts_.range(sl->def);
        if ((sl->kind != Kind::IdxVar && sl->kind != Kind::IdxIn) || !rf || !rf->lo || !rf->hi)
          refuse("defines arrays whose extents are not known");
        DefId sd = cx_.resolver.new_def(sl->name, DefKind::Index, sl->span);
        facts_.note_def_type(sd, ir::t_scalar(DType::I32));
        NodeRef lo = cp.copy(rf->lo), hi = cp.copy(rf->hi_const ? irb::lit(*rf->hi_const) : rf->hi);
        if (names_any(lo, axis_set) || names_any(hi, axis_set)) refuse("defines arrays from indices whose ranges depend on each other");
        kids.push_back(idx_in(sl->name, sd, lo, hi));
        cp.subst[sl->def] = name(sl->name, sd);
      }
      val = ir::ein_value(*c);
    }
    kids[0] = cp.copy(val);
    copy_index_ranges(cx_, facts_, cp);
    DefId vd = cx_.resolver.new_def(nm, DefKind::Local, st->span);
    NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = st->span, .kids = std::move(kids), .name = nm, .def = vd});
    NodeRef group = ir::make({.kind = Kind::EinGroup, .span = st->span, .kids = {decl}, .name = nm, .def = vd});
    TypeRef et = ir::rank_of(lt) > 0 ? ir::elem_of(lt) : lt;
    TypeRef vt = ir::t_array(et, static_cast<int>(k) + ir::rank_of(lt));
    facts_.note_def_type(vd, vt);
    emits_.push_back(group);
    visible_[vd] = group;
    if (auto sw = stmt_within_.find(st->id); sw != stmt_within_.end()) stmt_within_[group->id] = sw->second;
    lifted[L] = Lifted{vd, vt};
  }
  Copier cp(cx_, facts_);
  reader(cp, at_call);
  NodeRef v = cp.copy(value);
  copy_index_ranges(cx_, facts_, cp);
  return v;
}

// The same statements in a recurrence's step (`Q[t, j] = softmax(Q[t - 1])[j]`): lifted, the
// entries and the recurrence would read each other. Arrays read only at points are written out
// where they are read (inline_point_arrays), scalars stay lets of a block the value is (forward
// mode differentiates it per point, and the memo computes a row's lets once per row).
NodeRef Tape::inlined_call_locals(const NodeRef& call, const std::vector<NodeRef>& stmts,
                                  const std::vector<bool>& moving, const NodeRef& value,
                                  const std::vector<NodeRef>& site) {
  auto refuse = [&](const std::string& what) {
    unsupported("`" + cx_.sm.snippet(call->span) + "`: a call in a recurrence's step whose body uses " + what +
                    " of the earlier point whole",
                call->span);
  };
  const int rank = ir::rank_of(facts_.type(value));
  if (rank > 0 && site.size() != static_cast<size_t>(rank)) refuse("its result");
  std::vector<NodeRef> kids;
  std::unordered_map<DefId, NodeRef> aliased;  // elementwise array lets, read in place
  for (size_t i = 0; i < stmts.size(); ++i) {
    NodeRef st = stmts[i];
    if (!st) continue;
    if (!moving[i]) {
      emits_.push_back(st);
      continue;
    }
    if (st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind) {
      DefId L = ir::let_pattern(*st)->def;
      visible_.erase(L);
      if (ir::rank_of(facts_.def_type(L)) > 0 && elementwise_value(ir::let_value(*st))) {
        Copier cp(cx_, facts_);  // read in place, through the earlier ones
        cp.subst = aliased;
        aliased[L] = cp.copy(ir::let_value(*st));
        copy_index_ranges(cx_, facts_, cp);
        continue;
      }
    } else if (st->kind == Kind::EinGroup) {
      visible_.erase(st->def);
      // `let m[..b] = max[j](x[..b, j])` with no leading axes: a scalar let.
      if (ir::group_clauses_count(st) == 1 && ir::group_clauses(st)[0]->kind == Kind::EinDecl &&
          ir::ein_slots_count(ir::group_clauses(st)[0]) == 0)
        st = let_typed(st->name, st->def, ir::ein_value(*ir::group_clauses(st)[0]), facts_.def_type(st->def));
    }
    kids.push_back(st);
  }
  NodeRef tail = value;
  if (rank > 0) {
    tail = ir::make({.kind = Kind::Index, .span = call->span, .kids = ir::kid_list(value, site)});
    facts_.note_type(tail->id, ir::elem_of(facts_.type(value)));
    site_taken_ = true;
  }
  kids.push_back(tail);
  NodeRef blk = ir::make({.kind = Kind::Block, .span = call->span, .kids = std::move(kids), .flags = ir::kHasTail});
  facts_.note_type(blk->id, facts_.type(tail));
  if (!aliased.empty()) {
    Copier cp(cx_, facts_);
    cp.subst = aliased;
    blk = cp.copy(blk);
    copy_index_ranges(cx_, facts_, cp);
  }
  blk = inline_point_arrays(flat_index(blk), self_);
  ir::Kids out = ir::block_stmts(blk);
  for (size_t i = 0; i + 1 < out.size(); ++i) {
    const NodeRef& st = out[i];
    bool scalar_let = st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind &&
                      ir::rank_of(facts_.def_type(ir::let_pattern(*st)->def)) == 0;
    // A local declaration that stays whole (a recurrence `c[k] = c[k - 1] + x[k]`, an array
    // passed on whole): forward mode differentiates it with the block, its tangent a
    // declaration of its own (Forward::block), per point of the step.
    if (st->kind == Kind::EinGroup) continue;
    if (!scalar_let) refuse("an array value");
  }
  return blk;
}

// Can `e[i..]` be written as e with the read pushed inside (index_elementwise)?
bool Tape::elementwise_value(const NodeRef& e) {
  const int r = ir::rank_of(facts_.type(e));
  if (r <= 0) return false;
  std::vector<NodeRef> idx;
  for (int a = 0; a < r; ++a) {
    DefId d = cx_.resolver.new_def("i", DefKind::Index, e->span);
    facts_.note_def_type(d, ir::t_scalar(DType::I32));
    idx.push_back(name("i", d));
  }
  return index_elementwise(e, idx, 0) != nullptr;
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
