#include "lang/passes/checkpoint.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "lang/ir/kid_families.h"
#include "lang/ir/reduce_op.h"
#include "lang/ir/visitor.h"
#include "lang/passes/checkpoint_impl.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/passes/storage_window.h"

namespace ein::ckpt {

std::optional<int64_t> offset_of(const NodeRef& e, const std::unordered_set<DefId>& vars) {
  if (e->kind == Kind::Name && vars.count(e->def)) return 0;
  if (e->kind != Kind::Binary) return std::nullopt;
  auto op = static_cast<ir::BinOp>(e->ival);
  const NodeRef &a = ir::bin_lhs(*e), &b = ir::bin_rhs(*e);
  if (op != ir::BinOp::Add && op != ir::BinOp::Sub) return std::nullopt;
  if (auto k = irb::as_lit(b)) {
    auto o = offset_of(a, vars);
    if (!o || *k > INT32_MAX || *k < -INT32_MAX) return std::nullopt;
    return op == ir::BinOp::Add ? *o + *k : *o - *k;
  }
  if (auto k = irb::as_lit(a); k && op == ir::BinOp::Add && *k <= INT32_MAX && *k >= -INT32_MAX) {
    auto o = offset_of(b, vars);
    if (o) return *o + *k;
  }
  return std::nullopt;
}

bool is_ref(const NodeRef& n, DefId d) {
  return (n->kind == Kind::Name || n->kind == Kind::Path) && n->def == d;
}
bool reads_of(const NodeRef& n, DefId d) {
  return n->kind == Kind::Index && is_ref(ir::index_base(*n), d);
}

bool names_def(const NodeRef& n, DefId d) {
  if (!d.valid()) return false;
  bool hit = false;
  ir::for_each_node(n, [&](const NodeRef& x) {
    hit = hit || ((x->kind == Kind::Name || x->kind == Kind::Path) && x->def == d);
  });
  return hit;
}

std::unordered_set<DefId> time_vars(const NodeRef& loop) {
  std::unordered_set<DefId> v{loop->def};
  ir::for_each_node(ir::lfor_body(*loop), [&](const NodeRef& x) {
    if (x->kind == Kind::LLet && ir::llet_value(*x)->kind == Kind::Name &&
        v.count(ir::llet_value(*x)->def))
      v.insert(x->def);
  });
  return v;
}

// (windows_ is declared first: the constructor leaves it empty.)

void Checkpoint::run() {
  if (u_.kind != Unit::Kind::Cell || !u_.lowered || u_.lowered->kind != Kind::Program) return;
  // A request alone (`let g = @loss / @w`) is a block of the adjoint's statements: they are
  // looked at hoisted in front of the `let` (their names are unique), kept so only if the
  // rewrite happens.
  NodeRef saved = u_.lowered;
  u_.lowered = hoisted(saved);
  // Each rewrite moves the statements: look again from the start (a rewritten primal has no
  // time loop left and is not found twice).
  bool any = false;
  for (int round = 0; round < 16; ++round) {
    bool hit = false;
    for (size_t i = 0; i < u_.lowered->kids.size() && !hit; ++i) hit = try_primal(i);
    for (size_t i = 0; i < u_.lowered->kids.size() && !hit; ++i) hit = try_adjoint(i);
    for (size_t i = 0; i < u_.lowered->kids.size() && !hit; ++i) hit = try_fuse(i);
    if (!hit) break;
    any = true;
  }
  if (!any) u_.lowered = saved;
}

NodeRef Checkpoint::hoisted(const NodeRef& prog) {
  std::vector<NodeRef> out;
  for (auto& s : prog->kids) {
    const NodeRef& v = s && s->kind == Kind::Let ? ir::let_value(*s) : nullptr;
    bool plain = v && v->kind == Kind::Block && v->has(ir::kHasTail) &&
                 !ir::block_stmts(v).empty() && ir::let_pattern(*s)->kind == Kind::PBind;
    ir::Kids body = plain ? ir::block_stmts(v) : ir::Kids();
    for (size_t i = 0; plain && i + 1 < body.size(); ++i) {
      Kind k = body[i]->kind;
      plain = k == Kind::Let || k == Kind::LTensor || k == Kind::LNop;
    }
    if (!plain) {
      out.push_back(s);
      continue;
    }
    out.insert(out.end(), body.begin(), body.end() - 1);
    out.push_back(ir::with_kids(s, {ir::let_pattern(s), ir::let_type(s), ir::tail_expr(*v)}));
  }
  return ir::with_kids(prog, std::move(out));
}

ir::TypeRef Checkpoint::type_of(const NodeRef& t) {
  auto it = u_.types.find(t->id);
  return it == u_.types.end() ? nullptr : it->second;
}

std::optional<std::vector<int64_t>> Checkpoint::extents(const NodeRef& t) {
  std::vector<int64_t> e;
  for (auto& x : ir::lshape_extents(*ir::ltensor_shape(*t))) {
    auto v = fold_int(cx_, u_, x);
    if (!v || *v <= 0) return std::nullopt;
    e.push_back(*v);
  }
  if (e.empty()) return std::nullopt;
  return e;
}

NodeRef Checkpoint::time_loop(const NodeRef& t, bool reverse, int64_t* lookback) {
  NodeRef found;
  for (auto& k : ir::ltensor_stmts(*t)) {
    if (k->kind != Kind::LFor) continue;
    auto it = u_.recurrences.find(k->id);
    if (it == u_.recurrences.end() || it->second.axis != 0 || !it->second.lookback) continue;
    if (k->has(ir::kReverse) != reverse || found) return nullptr;
    found = k;
    *lookback = *it->second.lookback;
  }
  return found;
}

bool Checkpoint::movable(DefId d) {
  DefKind k = cx_.resolver.info(d).kind;
  if (k == DefKind::Global && !cx_.opt.whole_program) return false;  // a later cell may read it
  return k == DefKind::Global || k == DefKind::Local;
}

bool Checkpoint::try_primal(size_t ip) {
  const auto& st = u_.lowered->kids;
  const NodeRef& P = st[ip];
  if (!P || P->kind != Kind::LTensor || P->has(ir::kResume) || P->has(ir::kWindowed) ||
      P->has(ir::kHasElem) || P->has(ir::kReverse) ||
      !(movable(P->def) || cx_.resolver.info(P->def).kind == DefKind::Global))
    return false;
  // A global of a session cell is not moved (a later cell may read every row): its gradient
  // can only run in blocks over the stored rows.
  stored_only_ = !movable(P->def);
  auto pr = primal_recurrence(P);
  if (!pr) return false;
  const NodeRef& ploop = pr->loop;
  const int64_t L = pr->L, T = pr->T;
  const std::vector<int64_t>* ext = &pr->ext;
  const int64_t* b = &pr->b;
  // The adjoint sweep: the first later recurrence swept downwards that reads P or is read
  // with P by a reduction (a linear step's adjoint reads only itself: `@loss / @w` reads both).
  size_t ia = 0;
  auto paired = [&](size_t j) {
    if (names_def(st[j], P->def)) return true;
    for (size_t q = j + 1; q < st.size(); ++q)
      if (st[q] && st[q]->kind == Kind::Let && names_def(st[q], P->def) &&
          names_def(st[q], st[j]->def))
        return true;
    return false;
  };
  for (size_t j = ip + 1; j < st.size() && !ia; ++j) {
    if (!st[j] || st[j]->kind != Kind::LTensor || !st[j]->has(ir::kReverse)) continue;
    int64_t lb = 0;
    if (time_loop(st[j], true, &lb) && paired(j)) ia = j;
  }
  if (!ia) return false;
  const NodeRef& A = st[ia];
  int64_t La = 0;
  NodeRef aloop =
      !A->has(ir::kResume) && !A->has(ir::kHasElem) && !A->has(ir::kWindowed) && movable(A->def)
          ? time_loop(A, true, &La)
          : nullptr;
  auto aext = aloop ? extents(A) : std::nullopt;
  if (!aloop || !aext || (*aext)[0] != T) return false;
  auto alo = fold_int(cx_, u_, ir::lfor_lo(*aloop)), ahi = fold_int(cx_, u_, ir::lfor_hi(*aloop));
  if (!alo || !ahi) return false;

  Range e;               // offsets of P's rows read per step (A's loop, reductions)
  Range a;               // offsets of A's rows read by reductions
  int64_t end_min = T;   // lowest constant row of P read outside the sweep (P's window)
  int64_t low_max = -1;  // highest constant row of P read by A after its loop (from P.seg)
  Range a_points;        // constant rows of A read elsewhere
  bool a_whole = false;  // A observed otherwise: it keeps every row
  // A's own statements.
  bool before = true, ok = true;
  for (auto& k : ir::ltensor_stmts(*A)) {
    if (k == aloop) {
      before = false;
      auto vars = time_vars(aloop);
      ok = ok && scan(k, P->def, [&](const NodeRef& row) {
             auto o = offset_of(row, vars);
             if (o) e.add(*o);
             if (o) return true;
             auto r = fold_int(cx_, u_, row);  // a constant row: read from P's window
             if (r) end_min = std::min(end_min, *r);
             return r && *r >= 0 && *r < T;
           });
      continue;
    }
    ok = ok && scan(k, P->def, [&](const NodeRef& row) {
           auto r = fold_int(cx_, u_, row);
           if (r && before) end_min = std::min(end_min, *r);
           if (r && !before) low_max = std::max(low_max, *r);
           return r && *r >= 0 && *r < T;
         });
  }
  if (!ok) return false;
  // Every other statement.
  Readers rd = readers(ip, ia, P->def, A->def, T);
  if (!rd.ok) return false;
  std::vector<Reduction>& reds = rd.reds;
  e.add(rd.e), a.add(rd.a), a_points.add(rd.a_points);
  end_min = std::min(end_min, rd.end_min);
  a_whole = a_whole || rd.a_whole;
  if (reds.empty() && !e.any()) return false;
  // Other units (functions reading a global whole) and closures: not followed.
  for (auto& other : cx_.units)
    if (other.get() != &u_ && other->lowered &&
        (names_def(other->lowered, P->def) || names_def(other->lowered, A->def)))
      return false;
  const int64_t e0 = std::min<int64_t>(e.any() ? e.lo : 0, 0),
                e1 = std::max<int64_t>(e.any() ? e.hi : 0, 0);
  if (a.any() && a.lo < 0) return false;  // a reduction would read A's rows of a later segment
  for (auto& r : reds)
    if (r.lo + (a.any() ? a.lo : 0) < *alo && a.any()) return false;
  return rewrite(ip, ia, ploop, aloop, *ext, *aext, T, *b, L, La, *alo, *ahi, e0, e1, a, end_min,
                 low_max, a_points, a_whole, reds);
}

Readers Checkpoint::readers(size_t ip, size_t ia, DefId P, DefId A, int64_t T) {
  const auto& st = u_.lowered->kids;
  Readers rd;
  const std::unordered_map<DefId, size_t> defined_at = definitions();
  for (size_t j = 0; j < st.size() && rd.ok; ++j) {
    if (j == ip || j == ia || !st[j]) continue;
    const NodeRef& s = st[j];
    // Another statement writing into P or A: the terms, moved into the sweep, would read rows
    // it has not written yet.
    if (s->kind == Kind::LTensor && (s->def == P || s->def == A)) rd.ok = false;
    if (!names_def(s, P) && !names_def(s, A)) continue;
    if (j > ia && s->kind == Kind::Let && ir::let_value(*s)->kind == Kind::LReduce &&
        ir::reduce_op(*ir::let_value(*s)) == ir::ReduceOp::Sum &&
        ir::let_pattern(*s)->kind == Kind::PBind) {
      if (auto r = reduction(j, ir::let_value(*s), P, A, ia, defined_at, rd.e, rd.a)) {
        rd.reds.push_back(*r);
        continue;
      }
    }
    if (NodeRef cl = j > ia ? summed_clause(s) : nullptr) {
      if (auto r =
              reduction(j, ir::lstore_value(*innermost(cl)), P, A, ia, defined_at, rd.e, rd.a)) {
        r->clause = cl;
        rd.reds.push_back(*r);
        continue;
      }
    }
    rd.ok = rd.ok && scan(s, P, [&](const NodeRef& row) {
              auto r = fold_int(cx_, u_, row);
              if (r) rd.end_min = std::min(rd.end_min, *r);
              return r && *r >= 0 && *r < T;
            });
    rd.ok = rd.ok && scan(
                         s, A,
                         [&](const NodeRef& row) {
                           auto r = fold_int(cx_, u_, row);
                           if (r)
                             rd.a_points.add(*r);
                           else
                             rd.a_whole = true;
                           return true;
                         },
                         &rd.a_whole);
  }
  // Terms read by a reduction are computed before A's sweep (`reduction` checked that); a
  // reduction reading A's rows below A's loop would read them before A's last statements.
  return rd;
}

bool Checkpoint::try_adjoint(size_t ia) {
  const auto& st = u_.lowered->kids;
  const NodeRef& A = st[ia];
  if (!A || A->kind != Kind::LTensor || !A->has(ir::kReverse) || A->has(ir::kResume) ||
      A->has(ir::kHasElem) || A->has(ir::kWindowed) || !movable(A->def))
    return false;
  int64_t La = 0;
  NodeRef aloop = time_loop(A, true, &La);
  auto aext = aloop ? extents(A) : std::nullopt;
  if (!aloop || !aext) return false;
  auto alo = fold_int(cx_, u_, ir::lfor_lo(*aloop)), ahi = fold_int(cx_, u_, ir::lfor_hi(*aloop));
  const int64_t T = (*aext)[0];
  if (!alo || !ahi || T > INT32_MAX / 2) return false;
  Readers rd = readers(std::string::npos, ia, DefId{}, A->def, T);
  if (!rd.ok || rd.reds.empty() || (rd.a.any() && rd.a.lo < 0)) return false;
  for (auto& r : rd.reds)
    if (rd.a.any() && r.lo + rd.a.lo < *alo) return false;
  std::unordered_set<DefId> local;
  for (auto& s : st)
    if (s && s->kind == Kind::LTensor) local.insert(s->def);
  bool external = true;
  auto outside = [&](const NodeRef& n) {
    ir::for_each_node(n, [&](const NodeRef& x) {
      if (x->kind == Kind::Index && ir::index_base(*x)->def != A->def &&
          local.count(ir::index_base(*x)->def))
        external = false;
    });
  };
  outside(aloop);
  for (auto& r : rd.reds) outside(r.red);
  if (!external) return false;
  stored_only_ = true;
  return rewrite(std::string::npos, ia, aloop, aloop, *aext, *aext, T, 0, 0, La, *alo, *ahi, 0, 0,
                 rd.a, T, -1, rd.a_points, rd.a_whole, rd.reds);
}

bool Checkpoint::scan(const NodeRef& n, DefId d, const std::function<bool(const NodeRef&)>& row_ok,
                      bool* whole) {
  bool ok = true;
  if (!d.valid()) return true;
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& x) {
    if (!x || !ok) return;
    if (reads_of(x, d) && ir::index_args(*x).size() >= 1) {
      ok = row_ok(ir::index_args(*x)[0]);
      for (auto& k : ir::index_args(*x)) walk(k);
      return;
    }
    if (is_ref(x, d) || (x->kind == Kind::Lambda && names_def(x, d))) {
      if (whole)
        *whole = true;
      else
        ok = false;
      return;
    }
    for (auto& k : x->kids) walk(k);
  };
  walk(n);
  return ok;
}

NodeRef Checkpoint::innermost(NodeRef n) {
  while (n && n->kind == Kind::LFor) n = ir::lfor_body(*n);
  return n;
}

NodeRef Checkpoint::summed_clause(const NodeRef& t) {
  if (!t || t->kind != Kind::LTensor || t->has(ir::kResume) || t->has(ir::kWindowed) ||
      t->has(ir::kHasElem) || t->has(ir::kReverse) || !movable(t->def) ||
      !is_float(static_cast<DType>(t->ival)))
    return nullptr;
  NodeRef clause;
  for (auto& k : ir::ltensor_stmts(*t)) {
    if (k->kind == Kind::LCheck) continue;
    if (clause) return nullptr;
    clause = k;
  }
  std::vector<DefId> vars;
  NodeRef n = clause;
  for (; n && n->kind == Kind::LFor; n = ir::lfor_body(*n)) vars.push_back(n->def);
  if (!n || n->kind != Kind::LStore || n->def != t->def || vars.empty()) return nullptr;
  auto idx = ir::lstore_index(*n);
  if (idx.size() != vars.size()) return nullptr;
  for (size_t x = 0; x < vars.size(); ++x)
    if (idx[x]->kind != Kind::Name || idx[x]->def != vars[x]) return nullptr;
  const NodeRef& v = ir::lstore_value(*n);
  if (v->kind != Kind::LReduce || ir::reduce_op(*v) != ir::ReduceOp::Sum || names_def(v, t->def))
    return nullptr;
  return clause;
}

std::optional<Reduction> Checkpoint::reduction(size_t j, const NodeRef& r, DefId P, DefId A,
                                               size_t ia,
                                               const std::unordered_map<DefId, size_t>& defined_at,
                                               Range& e, Range& a) {
  // Its inputs must exist before A's sweep, where its terms are now added.
  bool early = true;
  ir::for_each_node(r, [&](const NodeRef& x) {
    if (x->kind != Kind::Name || x->def == P || x->def == A) return;
    auto it = defined_at.find(x->def);
    if (it != defined_at.end() && it->second >= ia) early = false;
  });
  if (!early) return std::nullopt;
  for (auto& item : ir::lreduce_items(*r)) {
    if (item->kind != Kind::LoopVar) continue;
    std::unordered_set<DefId> vars{item->def};
    Range pe, ae;
    bool ok = scan(r, P,
                   [&](const NodeRef& row) {
                     auto o = offset_of(row, vars);
                     if (o) pe.add(*o);
                     return o.has_value();
                   }) &&
              scan(r, A, [&](const NodeRef& row) {
                auto o = offset_of(row, vars);
                if (o) ae.add(*o);
                return o.has_value();
              });
    auto lo = fold_int(cx_, u_, ir::loopvar_lo(*item)),
         hi = fold_int(cx_, u_, ir::loopvar_hi(*item));
    if (!ok || !lo || !hi || (!pe.any() && !ae.any())) continue;
    if (pe.any()) e.add(pe.lo), e.add(pe.hi);
    if (ae.any()) a.add(ae.lo), a.add(ae.hi);
    return Reduction{j, item->def, *lo, *hi, r, nullptr};
  }
  return std::nullopt;
}

}  // namespace ein::ckpt

namespace ein {

void checkpoint(CompileCtx& cx) {
  for (auto& u : cx.units) {
    ckpt::Checkpoint(cx, *u).run();
    ckpt::mark_filled(cx, *u);
  }
}

}  // namespace ein
