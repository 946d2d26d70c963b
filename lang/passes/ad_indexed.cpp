// Indexed requests `@h[t, j] / @theta[j]` (SPEC §7, thesis Figure 2.3): inside a declaration,
// one Jacobian entry per point, never the dense Jacobian. The mode is chosen per request from
// how the target point (ti) and the parameter point (pi) vary with the indices bound between
// the request and the statement list where h and theta are visible (level L):
//   vjp_row        ti fixed, pi varies: one reverse sweep (the gradient of h[ti]), read at pi;
//   jvp_column     pi fixed, ti varies: one forward sweep seeded at e_pi, read at ti;
//   jvp_structural both vary, and h[.., j, ..] provably depends on theta only through theta[j]
//                  (every active read keeps j in place): one forward sweep seeded with ones —
//                  the only nonzero term of the sum at h[ti] is the entry at theta[pi];
//   jvp_per_param  both vary, pi is a tuple of index variables with ranges known at L: one forward
//                  sweep per distinct parameter point p, keeping only the entries that use p;
//   vjp_point      otherwise: a reverse sweep per point (in place).
// The hoisted statements are named after the mode, so `%ir after=autodiff` shows the choice.
#include "lang/passes/ad_rewrite.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"

namespace ein::ad {

using ir::Kind;

namespace {

std::vector<NodeRef> indices_of(const NodeRef& n) {
  if (n->kind != Kind::Index) return {};
  return std::vector<NodeRef>(n->kids.begin() + 1, n->kids.end());
}

NodeRef base_of(const NodeRef& n) { return n->kind == Kind::Index ? ir::index_base(n) : n; }

NodeRef index_into(const NodeRef& base, const std::vector<NodeRef>& ix, Span span) {
  if (ix.empty()) return base;
  std::vector<NodeRef> kids{base};
  for (auto& i : ix) kids.push_back(i);
  return ir::make({.kind = Kind::Index, .span = span, .kids = std::move(kids)});
}

// Does every active read keep each of x's axes on one axis of the reader, at the reader's index
// variable for that axis (so h[.., j, ..] depends on x only through x[j])? `diag` starts with the
// target's axis for each axis of x, and x's identity.
bool diagonal(CompileCtx& cx, const Tape& tape, DefId x, int rx, std::unordered_map<DefId, std::vector<int>> diag) {
  std::unordered_set<DefId> active{x};
  for (auto& e : tape.entries()) active.insert(e.def);
  const auto& entries = tape.entries();
  for (size_t i = entries.size(); i-- > 0;) {
    const Entry& e = entries[i];
    auto de = diag.find(e.def);
    if (de == diag.end() || e.rank == 0) return false;  // active, but off the target's diagonal
    const std::vector<int> axes = de->second;
    for (const Clause& cl : e.clauses) {
      if (static_cast<int>(cl.slots.size()) != e.rank) return false;
      // What each diagonal axis holds at this clause's point: an index variable or a literal.
      std::vector<DefId> var(static_cast<size_t>(rx));
      std::vector<int64_t> lit(static_cast<size_t>(rx));
      for (int a = 0; a < rx; ++a) {
        const NodeRef& s = cl.slots[static_cast<size_t>(axes[static_cast<size_t>(a)])];
        if (s->kind == Kind::IdxLit) lit[static_cast<size_t>(a)] = s->ival;
        else if (s->kind == Kind::IdxVar || s->kind == Kind::IdxIn) var[static_cast<size_t>(a)] = s->def;
        else return false;
      }
      auto holds = [&](const NodeRef& ix, int a) {
        if (var[static_cast<size_t>(a)].valid()) return ix->kind == Kind::Name && ix->def == var[static_cast<size_t>(a)];
        auto v = fold_int(cx, cx.cell(), ix);
        return v && *v == lit[static_cast<size_t>(a)];
      };
      bool ok = true;
      std::function<void(const NodeRef&, bool)> walk = [&](const NodeRef& n, bool as_base) {
        if (!n || !ok) return;
        if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && active.count(ir::index_base(n)->def)) {
          DefId f = ir::index_base(n)->def;
          ir::Kids idx = ir::index_args(n);
          int rf = static_cast<int>(idx.size());
          auto df = diag.find(f);
          if (df == diag.end()) {
            std::vector<int> pos;
            for (int a = 0; a < rx && ok; ++a) {
              int found = -1, count = 0;
              for (int p = 0; p < rf; ++p)
                if (holds(idx[static_cast<size_t>(p)], a)) found = p, ++count;
              if (count != 1) ok = false;
              for (int q : pos) ok = ok && q != found;
              pos.push_back(found);
            }
            if (ok) diag[f] = pos;
          } else {
            for (int a = 0; a < rx && ok; ++a) {
              int p = df->second[static_cast<size_t>(a)];
              ok = p < rf && holds(idx[static_cast<size_t>(p)], a);
            }
          }
          return;
        }
        if ((n->kind == Kind::Name || n->kind == Kind::Path) && active.count(n->def) && !as_base) {
          ok = false;  // a whole tensor or an active scalar mixes every column
          return;
        }
        if (n->kind == Kind::Index) {  // the base of an access may name an active tensor whole
          walk(ir::index_base(n), true);
          for (const NodeRef& i : ir::index_args(n)) walk(i, false);
          return;
        }
        for (const NodeRef& k : n->kids) walk(k, false);
      };
      walk(cl.value, false);
      if (!ok) return false;
    }
  }
  return true;
}

}  // namespace

bool Rewriter::varies(const NodeRef& e, size_t level) const {
  bool v = false;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid()) {
      auto it = bound_at_.find(n->def);
      if (it != bound_at_.end() && it->second >= levels_[level].mark) v = true;
    }
  });
  return v;
}

NodeRef Rewriter::indexed(const NodeRef& q) {
  const NodeRef& T = quotient_of(q);
  const NodeRef& X = quotient_by(q);
  NodeRef tb = base_of(T), xb = base_of(X);
  if (tb->kind != Kind::Name || !tb->def.valid()) {
    cx_.error("E013", "the target of a derivative must be a named binding or a point of one", ir::bin_lhs(q)->span,

              "not a binding name", "bind the expression first: `let y = ...;` then `@y / @x`");
    return q;
  }
  if (!checked_param(q, xb)) return q;
  int ry = ir::rank_of(facts_.def_type(tb->def)), rx = ir::rank_of(facts_.def_type(xb->def));
  std::vector<NodeRef> ti = indices_of(T), pi = indices_of(X);
  for (auto* ix : {&ti, &pi})
    for (auto& e : *ix)
      if (e->kind == Kind::RestIdx) {
        cx_.error("E013", "a rest index in a derivative request is not supported", e->span);
        return q;
      }
  if (ry >= 0 && static_cast<int>(ti.size()) > ry) {
    cx_.error("E004", "`" + tb->name + "` has rank " + std::to_string(ry) + " but is indexed with " +
                          std::to_string(ti.size()) + " indices", T->span);
    return q;
  }
  if (rx >= 0 && static_cast<int>(pi.size()) > rx) {
    cx_.error("E004", "`" + xb->name + "` has rank " + std::to_string(rx) + " but is indexed with " +
                          std::to_string(pi.size()) + " indices", X->span);
    return q;
  }
  try {
    if (ry < 0 || rx < 0) unsupported("a value of unknown rank", q->span);
    size_t L = std::max(level_of_def(tb->def), level_of_def(xb->def));
    if (L < levels_.size() && bound_.size() > levels_[L].mark) {
      bool tv = false, pv = false;
      for (auto& e : ti) tv = tv || varies(e, L);
      for (auto& e : pi) pv = pv || varies(e, L);
      bool full = static_cast<int>(pi.size()) == rx && rx > 0;
      if (!tv && pv) return index_into(place(entry_in_place(q, T, xb), "vjp_row_" + tb->name, q->span), pi, q->span);
      if (tv && !pv && full)
        if (NodeRef r = column(q, T, X, L, "jvp_column_", false)) return r;
      if (tv && pv && full && static_cast<int>(ti.size()) == ry)
        if (NodeRef r = structural(q, T, X, L)) return r;
      if (tv && pv && full)
        if (NodeRef r = per_parameter_point(q, T, X, L)) return r;
      if (tv || pv) {
        NodeRef g = entry_in_place(q, T, X);
        DefId d = cx_.resolver.new_def("vjp_point_" + tb->name, DefKind::Local, q->span);
        return with_span(block({let_stmt("vjp_point_" + tb->name, d, g)}, name("vjp_point_" + tb->name, d)), q->span);
      }
    }
    return entry_in_place(q, T, X);
  } catch (const Unsupported& u) {
    return not_differentiable(q, u);
  }

}

// ∂y[ti] / ∂x, read at pi: the target point as a synthetic scalar (or row) binding and one
// reverse sweep, evaluated where the request stands.
NodeRef Rewriter::entry_in_place(const NodeRef& q, const NodeRef& T, const NodeRef& X) {
  NodeRef tb = base_of(T), xb = base_of(X);
  std::vector<NodeRef> ti = indices_of(T), pi = indices_of(X);
  NodeRef g;
  if (T->kind == Kind::Index) {
    std::string tname = tb->name + "_pt";
    DefId target = cx_.resolver.new_def(tname, DefKind::Local, T->span);
    facts_.note_type(T->id, facts_.type(T));
    facts_.note_def_type(target, facts_.type(T));
    g = build(q, T, target, tname, xb, let_stmt(tname, target, T));
  } else {
    g = build(q, T, tb->def, tb->name, xb, nullptr);
  }
  if (pi.empty()) return g;
  int rest = ir::rank_of(facts_.def_type(tb->def)) - static_cast<int>(ti.size());
  if (rest == 0) return index_into(g, pi, q->span);
  // A row of the target: select the parameter point on every remaining target axis.
  DefId gd = cx_.resolver.new_def("jacobian_rows", DefKind::Local, q->span);
  std::vector<NodeRef> read{name("jacobian_rows", gd)}, slots;
  for (int a = 0; a < rest; ++a) {
    std::string nm = "a" + std::to_string(a);
    DefId d = cx_.resolver.new_def(nm, DefKind::Index, q->span);
    read.push_back(name(nm, d));
    slots.push_back(idx_in(nm, d, irb::lit(0), irb::dim_of(tb, static_cast<int>(ti.size()) + a)));
  }
  for (auto& p : pi) read.push_back(p);
  std::vector<NodeRef> kids{ir::make({.kind = Kind::Index, .kids = std::move(read)})};
  for (auto& s : slots) kids.push_back(s);
  DefId sd = cx_.resolver.new_def("jacobian_entries", DefKind::Local, q->span);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .kids = std::move(kids), .name = "jacobian_entries", .def = sd});
  NodeRef grp = ir::make({.kind = Kind::EinGroup, .kids = {decl}, .name = "jacobian_entries", .def = sd});
  return with_span(block({let_stmt("jacobian_rows", gd, g), grp}, name("jacobian_entries", sd)), q->span);
}

// One forward sweep of y's tangent, seeded with e_pi (or, `ones`, with 1 at every point of x),
// computed before the current statement of level L and read at ti. nullptr: not applicable.
NodeRef Rewriter::column(const NodeRef& q, const NodeRef& T, const NodeRef& X, size_t L, const std::string& mode,
                         bool ones) {
  NodeRef tb = base_of(T), xb = base_of(X);
  std::vector<NodeRef> ti = indices_of(T), pi = indices_of(X);
  auto dty = facts_.float_dtype_of_def(tb->def), dtx = facts_.float_dtype_of_def(xb->def);
  if (!dty || !dtx) return nullptr;
  Tape tp = tape();
  if (!tp.build(tb->def, xb->def)) return nullptr;
  std::vector<NodeRef> stmts;
  NodeRef seed = flit(1.0);
  if (ir::rank_of(facts_.def_type(xb->def)) > 0) {
    stmts.push_back(basis_tangent(q, xb, *dtx, ones ? std::vector<NodeRef>{} : pi));
    seed = name(stmts.back()->name, stmts.back()->def);
  }
  Tangents t;
  try {
    t = forward_sweep(cx_, facts_, tp, tb->def, xb->def, seed);
  } catch (const Unsupported&) {
    return nullptr;
  }
  for (auto& s : t.stmts) stmts.push_back(s);
  NodeRef value = with_span(block(std::move(stmts), t.result), q->span);
  if (hoist_level(value) > L) return nullptr;
  std::string nm = mode + tb->name;
  DefId d = cx_.resolver.new_def(nm, DefKind::Local, q->span);
  levels_[L].prelude.push_back(let_stmt(nm, d, value));
  return index_into(ir::make_name(nm, d, q->span), ti, q->span);
}

NodeRef Rewriter::structural(const NodeRef& q, const NodeRef& T, const NodeRef& X, size_t L) {
  NodeRef tb = base_of(T), xb = base_of(X);
  std::vector<NodeRef> ti = indices_of(T), pi = indices_of(X);
  // Each parameter index is one target index, on distinct axes.
  std::vector<int> ax;
  for (auto& p : pi) {
    if (!varies(p, L)) return nullptr;
    int found = -1;
    for (size_t b = 0; b < ti.size(); ++b) {
      bool used = false;
      for (int u : ax) used = used || u == static_cast<int>(b);
      if (!used && ir::structurally_equal(p, ti[b])) {
        found = static_cast<int>(b);
        break;
      }
    }
    if (found < 0) return nullptr;
    ax.push_back(found);
  }
  Tape tp = tape();
  if (!tp.build(tb->def, xb->def)) return nullptr;
  std::vector<int> id;
  for (size_t a = 0; a < pi.size(); ++a) id.push_back(static_cast<int>(a));
  if (!diagonal(cx_, tp, xb->def, static_cast<int>(pi.size()), {{tb->def, ax}, {xb->def, id}})) return nullptr;
  return column(q, T, X, L, "jvp_structural_", true);
}

NodeRef Rewriter::per_parameter_point(const NodeRef& q, const NodeRef& T, const NodeRef& X, size_t L) {
  NodeRef tb = base_of(T), xb = base_of(X);
  std::vector<NodeRef> ti = indices_of(T), pi = indices_of(X);
  auto dtx = facts_.float_dtype_of_def(xb->def);
  if (!dtx || !facts_.float_dtype_of_def(tb->def)) return nullptr;
  // The parameter point: distinct index variables bound below L, over ranges known at L.
  std::vector<DefId> vs, us;
  auto ranged = [&](DefId d) {
    const RangeFact* rf = facts_.range(d);
    return rf && rf->lo && rf->hi && !varies(rf->lo, L) && !varies(rf->hi, L);
  };
  for (auto& p : pi) {
    if (p->kind != Kind::Name || !varies(p, L) || cx_.resolver.info(p->def).kind != DefKind::Index || !ranged(p->def))
      return nullptr;
    for (auto& v : vs)
      if (v == p->def) return nullptr;
    vs.push_back(p->def);
  }
  // The target point may also vary with other index variables (the entries each sweep serves).
  bool ok = true;
  for (auto& e : ti)
    ir::for_each_node(e, [&](const NodeRef& n) {
      if ((n->kind != Kind::Name && n->kind != Kind::Path) || !varies(n, L)) return;
      bool known = std::find(vs.begin(), vs.end(), n->def) != vs.end() || std::find(us.begin(), us.end(), n->def) != us.end();
      if (known) return;
      if (cx_.resolver.info(n->def).kind != DefKind::Index || !ranged(n->def)) ok = false;
      else us.push_back(n->def);
    });
  if (!ok) return nullptr;
  Tape tp = tape();
  if (!tp.build(tb->def, xb->def)) return nullptr;
  // grp[v'..] = { t_x = e_v'; tangent sweep; slice[u'..] = t_y[ti(v', u')]; slice }
  Copier cp(cx_, facts_);
  auto fresh = [&](DefId d, std::vector<NodeRef>& slots) {
    const RangeFact* rf = facts_.range(d);
    std::string nm = cx_.resolver.info(d).name;
    DefId c = cx_.resolver.new_def(nm, DefKind::Index, q->span);
    slots.push_back(idx_in(nm, c, ir::fresh_copy(rf->lo), ir::fresh_copy(rf->hi)));
    cp.subst[d] = name(nm, c);
  };
  std::vector<NodeRef> vslots, uslots, at;
  for (auto& v : vs) fresh(v, vslots);
  for (auto& u : us) fresh(u, uslots);
  for (auto& v : vs) at.push_back(cp.subst[v]);
  std::vector<NodeRef> stmts{basis_tangent(q, xb, *dtx, at)};
  Tangents t;
  try {
    t = forward_sweep(cx_, facts_, tp, tb->def, xb->def, name(stmts[0]->name, stmts[0]->def));
  } catch (const Unsupported&) {
    return nullptr;
  }
  for (auto& s : t.stmts) stmts.push_back(s);
  std::vector<NodeRef> ti2;
  for (auto& e : ti) ti2.push_back(cp.copy(e));
  NodeRef entry = index_into(t.result, ti2, q->span);
  if (!uslots.empty()) {
    DefId sd = cx_.resolver.new_def("entries", DefKind::Local, q->span);
    std::vector<NodeRef> kids{entry};
    for (auto& s : uslots) kids.push_back(s);
    NodeRef decl = ir::make({.kind = Kind::EinDecl, .kids = std::move(kids), .name = "entries", .def = sd});
    stmts.push_back(ir::make({.kind = Kind::EinGroup, .kids = {decl}, .name = "entries", .def = sd}));
    entry = name("entries", sd);
  }
  std::string nm = "jvp_per_param_" + tb->name;
  DefId gd = cx_.resolver.new_def(nm, DefKind::Local, q->span);
  std::vector<NodeRef> gkids{block(std::move(stmts), entry)};
  for (auto& s : vslots) gkids.push_back(s);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .span = q->span, .kids = std::move(gkids), .name = nm, .def = gd});
  NodeRef grp = ir::make({.kind = Kind::EinGroup, .span = q->span, .kids = {decl}, .name = nm, .def = gd});
  if (hoist_level(grp) > L) return nullptr;
  levels_[L].prelude.push_back(grp);
  std::vector<NodeRef> read;
  for (auto& v : vs) read.push_back(name(cx_.resolver.info(v).name, v));
  for (auto& u : us) read.push_back(name(cx_.resolver.info(u).name, u));
  return index_into(ir::make_name(nm, gd, q->span), read, q->span);
}

}  // namespace ein::ad
