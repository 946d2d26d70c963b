#include "lang/passes/checkpoint.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/ir/reduce_op.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/shape_analysis.h"
#include "lang/passes/storage_window.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// v + c for v among `vars` (a loop's variable and the clause variables bound to it), also
// nested: the adjoint's `(m + 1) - 1`.
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

bool is_ref(const NodeRef& n, DefId d) { return (n->kind == Kind::Name || n->kind == Kind::Path) && n->def == d; }
bool reads_of(const NodeRef& n, DefId d) { return n->kind == Kind::Index && is_ref(ir::index_base(*n), d); }

bool mentions(const NodeRef& n, DefId d) {
  if (!d.valid()) return false;
  bool hit = false;
  ir::for_each_node(n, [&](const NodeRef& x) { hit = hit || ((x->kind == Kind::Name || x->kind == Kind::Path) && x->def == d); });
  return hit;
}

// The loop variable of `loop` and the clause variables bound to it inside (`LLet m = t`).
std::unordered_set<DefId> time_vars(const NodeRef& loop) {
  std::unordered_set<DefId> v{loop->def};
  ir::for_each_node(ir::lfor_body(*loop), [&](const NodeRef& x) {
    if (x->kind == Kind::LLet && ir::llet_value(*x)->kind == Kind::Name && v.count(ir::llet_value(*x)->def)) v.insert(x->def);
  });
  return v;
}

struct Range {
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  void add(int64_t x) { lo = std::min(lo, x), hi = std::max(hi, x); }
  void add(const Range& r) {
    if (r.any()) add(r.lo), add(r.hi);
  }
  bool any() const { return lo <= hi; }
};

// A reduction statement `let x = sum[t, ..](..)` whose terms are split per segment.
// A reduction over the rows whose terms are added per segment: a scalar `let x = sum[t, ..](..)`
// (partial sums per segment, then their sum), or a tensor whose one clause stores such a sum at
// each of its points — the adjoint of a vector parameter, `d_W[j, k] = sum[t](d_h[t, j] *
// h[t - 1, k])` — which adds each segment's terms into itself.
struct Reduction {
  size_t stmt;
  DefId t;           // its LoopVar along the rows
  int64_t lo, hi;    // its range
  NodeRef red;       // the LReduce
  NodeRef clause;    // tensors: the clause (a loop per axis around the store)
};

// What the statements beside a primal P and its adjoint A read of them (Checkpoint::readers).
struct Readers {
  std::vector<Reduction> reds;
  Range e, a;              // offsets of P's and A's rows read by the reductions' terms
  Range a_points;          // constant rows of A read elsewhere
  int64_t end_min = INT64_MAX;  // lowest constant row of P read elsewhere
  bool a_whole = false;    // A read otherwise: it keeps every row
  bool ok = true;
};

class Checkpoint {
 public:
  Checkpoint(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}
  // (windows_ is declared first: the constructor leaves it empty.)

  void run() {
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
      if (!hit) break;
      any = true;
    }
    if (!any) u_.lowered = saved;
  }

  static NodeRef hoisted(const NodeRef& prog) {
    std::vector<NodeRef> out;
    for (auto& s : prog->kids) {
      const NodeRef& v = s && s->kind == Kind::Let ? ir::let_value(*s) : nullptr;
      bool plain = v && v->kind == Kind::Block && v->has(ir::kHasTail) && !ir::block_stmts(v).empty() &&
                   ir::let_pattern(*s)->kind == Kind::PBind;
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

 private:
  ir::TypeRef type_of(const NodeRef& t) {
    auto it = u_.types.find(t->id);
    return it == u_.types.end() ? nullptr : it->second;
  }

  std::optional<std::vector<int64_t>> extents(const NodeRef& t) {
    std::vector<int64_t> e;
    for (auto& x : ir::lshape_extents(*ir::ltensor_shape(*t))) {
      auto v = fold_int(cx_, u_, x);
      if (!v || *v <= 0) return std::nullopt;
      e.push_back(*v);
    }
    if (e.empty()) return std::nullopt;
    return e;
  }

  // The recurrence loop of an LTensor (recurrence_order's fact on axis 0).
  NodeRef time_loop(const NodeRef& t, bool reverse, int64_t* lookback) {
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

  bool movable(DefId d) {
    DefKind k = cx_.resolver.info(d).kind;
    if (k == DefKind::Global && !cx_.opt.whole_program) return false;  // a later cell may read it
    return k == DefKind::Global || k == DefKind::Local;
  }

  bool try_primal(size_t ip) {
    const auto& st = u_.lowered->kids;
    const NodeRef& P = st[ip];
    if (!P || P->kind != Kind::LTensor || P->has(ir::kResume) || P->has(ir::kWindowed) || P->has(ir::kHasElem) ||
        P->has(ir::kReverse) || !(movable(P->def) || cx_.resolver.info(P->def).kind == DefKind::Global))
      return false;
    // A global of a session cell is not moved (a later cell may read every row): its gradient
    // can only run in blocks over the stored rows.
    stored_only_ = !movable(P->def);
    int64_t L = 0;
    NodeRef ploop = time_loop(P, false, &L);
    auto ext = extents(P);
    if (!ploop || !ext || L < 1 || ir::ltensor_stmts(*P).back() != ploop) return false;
    auto b = fold_int(cx_, u_, ir::lfor_lo(*ploop)), hi = fold_int(cx_, u_, ir::lfor_hi(*ploop));
    const int64_t T = (*ext)[0];
    if (!b || !hi || *hi != T || *b < L || *b >= T || T > INT32_MAX / 2) return false;
    // Base rows below the loop; the loop writes whole rows (a recomputed row is complete).
    for (auto& k : ir::ltensor_stmts(*P)) {
      if (k == ploop) continue;
      bool ok = true;
      ir::for_each_node(k, [&](const NodeRef& x) {
        if (x->kind != Kind::LStore || x->def != P->def) return;
        auto r = fold_int(cx_, u_, ir::lstore_index(*x)[0]);
        ok = ok && r && *r >= 0 && *r < *b;
      });
      if (!ok) return false;
    }
    if (!writes_whole_rows(cx_, u_, ploop, P->def, *ext)) return false;
    // The adjoint sweep: the first later recurrence swept downwards that reads P or is read
    // with P by a reduction (a linear step's adjoint reads only itself: `@loss / @w` reads both).
    size_t ia = 0;
    auto paired = [&](size_t j) {
      if (mentions(st[j], P->def)) return true;
      for (size_t q = j + 1; q < st.size(); ++q)
        if (st[q] && st[q]->kind == Kind::Let && mentions(st[q], P->def) && mentions(st[q], st[j]->def)) return true;
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
    NodeRef aloop = !A->has(ir::kResume) && !A->has(ir::kHasElem) && !A->has(ir::kWindowed) && movable(A->def)
                        ? time_loop(A, true, &La) : nullptr;
    auto aext = aloop ? extents(A) : std::nullopt;
    if (!aloop || !aext || (*aext)[0] != T) return false;
    auto alo = fold_int(cx_, u_, ir::lfor_lo(*aloop)), ahi = fold_int(cx_, u_, ir::lfor_hi(*aloop));
    if (!alo || !ahi) return false;

    Range e;                  // offsets of P's rows read per step (A's loop, reductions)
    Range a;                  // offsets of A's rows read by reductions
    int64_t end_min = T;      // lowest constant row of P read outside the sweep (P's window)
    int64_t low_max = -1;     // highest constant row of P read by A after its loop (from P.seg)
    Range a_points;           // constant rows of A read elsewhere
    bool a_whole = false;     // A observed otherwise: it keeps every row
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
      if (other.get() != &u_ && other->lowered && (mentions(other->lowered, P->def) || mentions(other->lowered, A->def)))
        return false;
    const int64_t e0 = std::min<int64_t>(e.any() ? e.lo : 0, 0), e1 = std::max<int64_t>(e.any() ? e.hi : 0, 0);
    if (a.any() && a.lo < 0) return false;  // a reduction would read A's rows of a later segment
    for (auto& r : reds)
      if (r.lo + (a.any() ? a.lo : 0) < *alo && a.any()) return false;
    return rewrite(ip, ia, ploop, aloop, *ext, *aext, T, *b, L, La, *alo, *ahi, e0, e1, a, end_min, low_max, a_points,
                   a_whole, reds);
  }

  // The statements other than P's (at ip; none when ip is npos) and A's (at ia) that read P or
  // A: reductions whose terms can be added per segment, and the rows the others read.
  Readers readers(size_t ip, size_t ia, DefId P, DefId A, int64_t T) {
    const auto& st = u_.lowered->kids;
    Readers rd;
    std::unordered_map<DefId, size_t> defined_at;
    for (size_t j = 0; j < st.size(); ++j) {
      if (!st[j]) continue;
      if (st[j]->kind == Kind::LTensor) defined_at[st[j]->def] = j;
      if (st[j]->kind == Kind::Let)
        ir::for_each_node(ir::let_pattern(*st[j]), [&](const NodeRef& p) {
          if (p->kind == Kind::PBind) defined_at[p->def] = j;
        });
    }
    for (size_t j = 0; j < st.size() && rd.ok; ++j) {
      if (j == ip || j == ia || !st[j]) continue;
      const NodeRef& s = st[j];
      if (!mentions(s, P) && !mentions(s, A)) continue;
      if (j > ia && s->kind == Kind::Let && ir::let_value(*s)->kind == Kind::LReduce &&
          ir::reduce_op(*ir::let_value(*s)) == ir::ReduceOp::Sum && ir::let_pattern(*s)->kind == Kind::PBind) {
        if (auto r = reduction(j, ir::let_value(*s), P, A, ia, defined_at, rd.e, rd.a)) {
          rd.reds.push_back(*r);
          continue;
        }
      }
      if (NodeRef cl = j > ia ? summed_clause(s) : nullptr) {
        if (auto r = reduction(j, ir::lstore_value(*innermost(cl)), P, A, ia, defined_at, rd.e, rd.a)) {
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
      rd.ok = rd.ok && scan(s, A, [&](const NodeRef& row) {
                auto r = fold_int(cx_, u_, row);
                if (r) rd.a_points.add(*r);
                else rd.a_whole = true;
                return true;
              }, &rd.a_whole);
    }
    // Terms read by a reduction are computed before A's sweep (`reduction` checked that); a
    // reduction reading A's rows below A's loop would read them before A's last statements.
    return rd;
  }

  // A reverse sweep A whose primal is not a statement of this unit: a session cell's gradient of
  // a recurrence an earlier cell defined (a global, stored whole). Nothing is recomputed; the
  // sweep runs in blocks, each followed by its terms of the reductions, and A keeps a window
  // instead of every row (the blocked plan of a stored primal). Only when every tensor the
  // terms read besides A comes from outside this unit: a primal in this unit is try_primal's.
  bool try_adjoint(size_t ia) {
    const auto& st = u_.lowered->kids;
    const NodeRef& A = st[ia];
    if (!A || A->kind != Kind::LTensor || !A->has(ir::kReverse) || A->has(ir::kResume) || A->has(ir::kHasElem) ||
        A->has(ir::kWindowed) || !movable(A->def))
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
        if (x->kind == Kind::Index && ir::index_base(*x)->def != A->def && local.count(ir::index_base(*x)->def))
          external = false;
      });
    };
    outside(aloop);
    for (auto& r : rd.reds) outside(r.red);
    if (!external) return false;
    stored_only_ = true;
    return rewrite(std::string::npos, ia, aloop, aloop, *aext, *aext, T, 0, 0, La, *alo, *ahi, 0, 0, rd.a, T, -1,
                   rd.a_points, rd.a_whole, rd.reds);
  }

  // Applies `row_ok` to the row index of every read of `d` in `n`; false when one fails or `d`
  // is named otherwise (whole), unless `whole` takes that case.
  bool scan(const NodeRef& n, DefId d, const std::function<bool(const NodeRef&)>& row_ok, bool* whole = nullptr) {
    bool ok = true;
    if (!d.valid()) return true;
    std::function<void(const NodeRef&)> walk = [&](const NodeRef& x) {
      if (!x || !ok) return;
      if (reads_of(x, d) && ir::index_args(*x).size() >= 1) {
        ok = row_ok(ir::index_args(*x)[0]);
        for (auto& k : ir::index_args(*x)) walk(k);
        return;
      }
      if (is_ref(x, d) || (x->kind == Kind::Lambda && mentions(x, d))) {
        if (whole) *whole = true;
        else ok = false;
        return;
      }
      for (auto& k : x->kids) walk(k);
    };
    walk(n);
    return ok;
  }

  static NodeRef innermost(NodeRef n) {
    while (n && n->kind == Kind::LFor) n = ir::lfor_body(*n);
    return n;
  }

  // The one clause of a float tensor that stores a `sum` at each of its points: a loop per axis
  // (variables in order), then `T[v0, v1, ..] = sum[..](..)` not reading T.
  NodeRef summed_clause(const NodeRef& t) {
    if (!t || t->kind != Kind::LTensor || t->has(ir::kResume) || t->has(ir::kWindowed) || t->has(ir::kHasElem) ||
        t->has(ir::kReverse) || !movable(t->def) || !is_float(static_cast<DType>(t->ival)))
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
    if (v->kind != Kind::LReduce || ir::reduce_op(*v) != ir::ReduceOp::Sum || mentions(v, t->def)) return nullptr;
    return clause;
  }

  std::optional<Reduction> reduction(size_t j, const NodeRef& r, DefId P, DefId A, size_t ia,
                                     const std::unordered_map<DefId, size_t>& defined_at, Range& e, Range& a) {
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
      bool ok = scan(r, P, [&](const NodeRef& row) {
                  auto o = offset_of(row, vars);
                  if (o) pe.add(*o);
                  return o.has_value();
                }) &&
                scan(r, A, [&](const NodeRef& row) {
                  auto o = offset_of(row, vars);
                  if (o) ae.add(*o);
                  return o.has_value();
                });
      auto lo = fold_int(cx_, u_, ir::loopvar_lo(*item)), hi = fold_int(cx_, u_, ir::loopvar_hi(*item));
      if (!ok || !lo || !hi || (!pe.any() && !ae.any())) continue;
      if (pe.any()) e.add(pe.lo), e.add(pe.hi);
      if (ae.any()) a.add(ae.lo), a.add(ae.hi);
      return Reduction{j, item->def, *lo, *hi, r, nullptr};
    }
    return std::nullopt;
  }

  // A segment number read inside a kernel comes in as a scalar argument: it needs its type.
  NodeRef seg_ref(DefId s) {
    NodeRef r = irb::ref("s", s);
    u_.types[r->id] = ir::t_i32();
    return r;
  }

  DefId new_index(const std::string& name) {
    DefId d = cx_.resolver.new_def(name, DefKind::Index);
    u_.def_types[d] = ir::t_i32();
    return d;
  }

  NodeRef new_tensor(const std::string& name, DefId d, DType dt, std::vector<int64_t> shape, std::vector<NodeRef> stmts,
                     std::string aux = "") {
    std::vector<NodeRef> ex;
    for (auto x : shape) ex.push_back(irb::lit(x));
    std::vector<NodeRef> kids{ir::make({.kind = Kind::LShape, .kids = std::move(ex)})};
    for (auto& s : stmts) kids.push_back(s);
    NodeRef t = ir::make({.kind = Kind::LTensor, .kids = std::move(kids), .name = name,
                          .aux = std::move(aux), .def = d, .ival = static_cast<int64_t>(dt)});
    u_.types[t->id] = ir::t_array(ir::t_scalar(dt), static_cast<int>(shape.size()));
    u_.def_types[d] = u_.types[t->id];
    return t;
  }

  // A later statement writing into tensor `t` (allocated by an earlier one).
  NodeRef resumed(const NodeRef& t, std::vector<NodeRef> stmts) {
    std::vector<NodeRef> kids{ir::ltensor_shape(*t)};
    for (auto& s : stmts) kids.push_back(s);
    NodeRef r = ir::make({.kind = Kind::LTensor, .span = t->span, .kids = std::move(kids), .name = t->name,
                          .def = t->def, .ival = t->ival, .flags = t->flags | ir::kResume});
    if (auto ty = type_of(t)) u_.types[r->id] = ty;
    return r;
  }

  NodeRef loop(DefId v, const std::string& name, NodeRef lo, NodeRef hi, NodeRef body, uint32_t flags) {
    return ir::make({.kind = Kind::LFor, .span = span_, .kids = {std::move(lo), std::move(hi), std::move(body)}, .name = name,
                     .def = v, .flags = flags});
  }

  NodeRef typed_index(DefId d, const std::string& name, std::vector<NodeRef> args, DType dt) {
    std::vector<NodeRef> kids{irb::ref(name, d)};
    for (auto& x : args) kids.push_back(x);
    NodeRef n = ir::make({.kind = Kind::Index, .kids = std::move(kids)});
    u_.types[n->id] = ir::t_scalar(dt);
    return n;
  }

  // `dst[rows_dst(j), x..] = src[rows_src(j), x..]` for j in [0, n) and every x: whole rows.
  NodeRef copy_rows(DefId dst, const std::string& dname, std::vector<NodeRef> dst_pre, DefId src, const std::string& sname,
                    std::vector<NodeRef> src_pre, const std::vector<int64_t>& ext, DType dt, int64_t n,
                    const std::function<NodeRef(const NodeRef&)>& dst_row, const std::function<NodeRef(const NodeRef&)>& src_row) {
    DefId j = new_index("j");
    NodeRef jr = irb::ref("j", j);
    std::vector<DefId> xs;
    std::vector<NodeRef> di = dst_pre, si = src_pre;
    di.push_back(dst_row(jr));
    si.push_back(src_row(jr));
    for (size_t a = 1; a < ext.size(); ++a) {
      xs.push_back(new_index("x" + std::to_string(a)));
      di.push_back(irb::ref("x" + std::to_string(a), xs.back()));
      si.push_back(irb::ref("x" + std::to_string(a), xs.back()));
    }
    std::vector<NodeRef> sk{typed_index(src, sname, si, dt)};
    for (auto& x : di) sk.push_back(x);
    NodeRef body = ir::make({.kind = Kind::LStore, .kids = std::move(sk), .name = dname, .def = dst});
    for (size_t a = ext.size() - 1; a >= 1; --a)
      body = loop(xs[a - 1], "x" + std::to_string(a), irb::lit(0), irb::lit(ext[a]), body, ir::kSequential);
    return loop(j, "j", irb::lit(0), irb::lit(n), body, ir::kSequential);
  }

  // Reads and stores of `from` become reads and stores of `to` (the segment buffer).
  // With `keep_constant_rows`, reads at a row that folds to a constant stay reads of `from`: rows
  // near its end, which its window keeps (an adjoint loop that also seeds its last row reads
  // `u[T - 1, ..]` there; the segment buffer holds only the current segment's rows).
  NodeRef renamed(const NodeRef& n, DefId from, DefId to, const std::string& name, bool keep_constant_rows = false) {
    if (!n) return n;
    if (keep_constant_rows && reads_of(n, from) && ir::index_args(*n).size() >= 1 &&
        fold_int(cx_, u_, ir::index_args(*n)[0]))
      return n;
    std::vector<NodeRef> kids;
    for (auto& k : n->kids) kids.push_back(renamed(k, from, to, name, keep_constant_rows));
    NodeRef m = ir::with_kids(n, std::move(kids));
    if ((m->kind == Kind::Name && m->def == from) || (m->kind == Kind::LStore && m->def == from))
      return ir::edited(m, [&](ir::Node& x) {
        x.def = to;
        x.name = name;
      });
    return m;
  }

  bool rewrite(size_t ip, size_t ia, const NodeRef& ploop, const NodeRef& aloop, const std::vector<int64_t>& ext,
               const std::vector<int64_t>& aext, int64_t T, int64_t b, int64_t L, int64_t La, int64_t alo, int64_t ahi,
               int64_t e0, int64_t e1, const Range& a, int64_t end_min, int64_t low_max, const Range& a_points,
               bool a_whole, const std::vector<Reduction>& reds);
  NodeRef apply_windows(const NodeRef& n);

  int64_t spacing(int64_t T, int64_t Lc, double row_p, double row_a, double fixed_bytes) const;
  static constexpr double kSegmentCache = 1.5 * 1048576.0;  // three quarters of a 2 MiB L2
  static constexpr double kBlockCache = 64.0 * 1024.0;        // a block of stored rows: L1 and L2's nearest part

  std::unordered_map<DefId, int64_t> windows_;
  bool stored_only_ = false;  // the primal of try_primal stays as it is
  Span span_;  // of the primal: where a failure in the generated loops points
  CompileCtx& cx_;
  Unit& u_;
};

// The segment length. sqrt(T Lc) makes the checkpoints and the segment buffer equal (least
// memory), but the reverse sweep walks each segment three times (recompute, adjoint steps, the
// reductions' terms): when a segment's rows of the buffer and the adjoint fit in the cache, those
// walks run at cache speed instead of the L3's (the 1000-wide f32 gradient: an 8 MiB segment ran
// its backward sweep at 1.37 s, 1 MiB segments at 0.84 s). So segments are shortened to fit
// kSegmentCache, unless that would make the checkpoints exceed a quarter of the budget.
int64_t Checkpoint::spacing(int64_t T, int64_t Lc, double row_p, double row_a, double fixed_bytes) const {
  const double least_memory = std::round(std::sqrt(static_cast<double>(T) * static_cast<double>(Lc)));
  const double in_cache = std::floor((kSegmentCache - fixed_bytes) / (row_p + row_a));
  const double quarter = static_cast<double>(cx_.opt.ad_memory) / 4.0;
  const double fewest = std::ceil(static_cast<double>(T) * static_cast<double>(Lc) * row_p / quarter);
  double k = std::max(fewest, std::min(least_memory, in_cache));
  return static_cast<int64_t>(std::clamp(k, 1.0, static_cast<double>(T)));
}

bool Checkpoint::rewrite(size_t ip, size_t ia, const NodeRef& ploop, const NodeRef& aloop, const std::vector<int64_t>& ext,
                         const std::vector<int64_t>& aext, int64_t T, int64_t b, int64_t L, int64_t La, int64_t alo,
                         int64_t ahi, int64_t e0, int64_t e1, const Range& a, int64_t end_min, int64_t low_max,
                         const Range& a_points, bool a_whole, const std::vector<Reduction>& reds) {
  const auto& st = u_.lowered->kids;
  // No P (ip is npos): the primal is not in this unit (try_adjoint), stored whole, sized as A.
  const NodeRef P = ip < ia ? st[ip] : nullptr, &A = st[ia];
  const std::string pname = P ? "`" + P->name + "`" : "its primal (defined outside this cell)";
  span_ = (P ? P : A)->span;
  const DType adt = static_cast<DType>(A->ival), pdt = P ? static_cast<DType>(P->ival) : adt;
  double row_p = dtype_storage_bytes(pdt), row_a = dtype_storage_bytes(adt);
  for (size_t x = 1; x < ext.size(); ++x) row_p *= static_cast<double>(ext[x]);
  for (size_t x = 1; x < aext.size(); ++x) row_a *= static_cast<double>(aext[x]);
  // The rows a segment starts from: the base rows for the first, L (at least) for the others.
  const int64_t Lc = b;
  const double full = static_cast<double>(T) * (row_p + row_a);
  int64_t k = cx_.opt.ad_checkpoint;
  const bool forced = k > 0;
  // Within the budget, storing is still the slower choice once the rows outgrow the cache: every
  // stored row is fresh memory, touched once forward and once back, while a segment recomputes in
  // cache (heat, 2000 steps x 1000 points: 29.6 ms stored, 3.5 ms checkpointed, 43 -> 12 MiB).
  // Then checkpoints are placed only when they save most of the memory (below a quarter): where
  // the adjoint is kept whole anyway (`@last / @u` reads every row) they would save little and
  // recompute a sequential chain (a 10^6-step scalar recurrence: 42 ms stored, 101 ms with).
  const bool over_budget = full > static_cast<double>(cx_.opt.ad_memory);
  if (!forced) {
    if (!over_budget && full <= 4 * kSegmentCache) return false;  // storing everything fits the cache
    k = spacing(T, Lc, row_p, row_a, static_cast<double>((e1 - e0 + Lc)) * row_p + (a.any() ? a.hi : 0) * row_a);
  }
  k = std::clamp<int64_t>(k, 1, T);
  int64_t S = (T + k - 1) / k;
  const int64_t Wp = std::max({L + 1, Lc, T - end_min});
  const int64_t Wb = std::min(T, k + e1 - e0 + Lc);
  auto adjoint_window = [&](int64_t seg) -> int64_t {
    if (a_whole) return 0;
    auto lowest = backward_rows_down_to(cx_, u_, A);
    if (!lowest || (a_points.any() && a_points.lo < *lowest)) return 0;
    int64_t w = std::max({La + 1, seg + (a.any() ? a.hi : 0), a_points.any() ? a_points.hi - *lowest + 1 : int64_t{1}});
    return w >= T ? 0 : w;
  };
  int64_t Wa = adjoint_window(k);
  const double pred = static_cast<double>(S * Lc) * row_p + static_cast<double>(Wp < T ? Wp : T) * row_p +
                      static_cast<double>(Wb) * row_p + static_cast<double>(Wa ? Wa : T) * row_a;
  // Checkpoints that would save little are not placed, but a sweep whose rows outgrow the cache
  // still runs in blocks when reductions read it (`@last / @w` beside `@last / @u`): each block
  // of the adjoint's steps is followed by its terms of the reductions while the block's rows of
  // P and A are in cache, instead of one more pass over all of them from memory afterwards
  // (the 10^6-step scalar recurrence: the `@last / @w` pass was a third of its gradient).
  // A session cell's state stays whole (a later cell may read any row of it): only the blocks.
  bool blocked = false;
  if (stored_only_ || (!forced && (pred >= full || (!over_budget && 4 * pred > full)))) {
    if (reds.empty() || full <= 4 * kSegmentCache) return false;
    blocked = true;
    k = std::clamp<int64_t>(static_cast<int64_t>(kBlockCache / (row_p + row_a)), 1, T);
    S = (T + k - 1) / k;
    Wa = adjoint_window(k);
  } else if (low_max >= std::min(T, k + e1)) {
    return false;  // A's last rows read P rows the buffer no longer has
  }

  auto row_start = [&](const NodeRef& s, int64_t plus) {  // max(b, (s + plus) k + e0)
    return irb::imax(irb::lit(b), irb::add(irb::mul(s, k), irb::lit(plus * k + e0)));
  };
  std::vector<NodeRef> base;
  NodeRef P_alloc;
  if (!blocked) {
    for (auto& x : ir::ltensor_stmts(*P))
      if (x != ploop) base.push_back(x);
    std::vector<NodeRef> pk{ir::ltensor_shape(*P)};
    pk.insert(pk.end(), base.begin(), base.end());
    P_alloc = ir::with_kids(P, pk);
  }
  auto size = [](double bytes) {
    char buf[32];
    if (bytes < 1048576.0) std::snprintf(buf, sizeof buf, "%.1f KiB", bytes / 1024.0);
    else std::snprintf(buf, sizeof buf, "%.1f MiB", bytes / 1048576.0);
    return std::string(buf);
  };
  const std::string mib = size(pred) + " (storing every step: " + size(full) + ")";
  std::string plan =
      blocked ? "the reverse sweep of `" + A->name + "` runs in blocks of " + std::to_string(k) + " steps (" +
                    std::to_string(S) + "), each followed by its terms of " + std::to_string(reds.size()) +
                    " reduction(s) while its rows are in cache; " + pname +
                    " stored whole (" +
                    (!P ? std::string("nothing to recompute") : stored_only_ ? "a later cell may read any row"
                                     : "checkpoints would save little: " + size(pred) + " against " + size(full)) + ")"
              : "checkpoints of `" + P->name + "` every " + std::to_string(k) + " steps (" + std::to_string(S) + " x " +
                    std::to_string(Lc) + " rows" + (forced ? ", spacing forced by EIN_AD_CHECKPOINT" : "") +
                    "); the reverse sweep of `" + A->name + "` recomputes each segment into `" + P->name +
                    "_seg` (window " + std::to_string(Wb) + "), `" + A->name + "` " +
                    (Wa ? "window " + std::to_string(Wa) : std::string("whole")) + ", `" + P->name + "` " +
                    (Wp < T ? "window " + std::to_string(Wp) : std::string("whole")) + "; predicted memory " + mib +
                    ", recomputation " + std::to_string(T - b) + " steps";
  std::vector<NodeRef> out(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(P ? ip : 0));
  DefId ck;
  std::string ck_name;
  if (blocked) {
    if (P) out.push_back(P);
  } else {
    ck = cx_.resolver.new_def(P->name + "_ckpt", DefKind::Local);
    std::vector<int64_t> ckshape{S, Lc};
    ckshape.insert(ckshape.end(), ext.begin() + 1, ext.end());
    // Every segment's capture writes its rows (all of them) before the reverse sweep reads one.
    NodeRef CK = ir::edited(new_tensor(P->name + "_ckpt", ck, pdt, ckshape, {}, plan),
                            [](ir::Node& x) { x.flags |= ir::kFilledLater; });

    // Forward: checkpoint the rows segment s starts from, then run its steps.
    DefId sf = new_index("s");
    NodeRef sfr = seg_ref(sf);
    NodeRef capture = copy_rows(ck, CK->name, {sfr}, P->def, P->name, {}, ext, pdt, Lc, [](const NodeRef& j) { return j; },
                                [&](const NodeRef& j) { return irb::add(irb::add(row_start(sfr, 0), irb::lit(-Lc)), j); });
    NodeRef fstep = loop(ploop->def, ploop->name, row_start(sfr, 0), irb::imin(irb::lit(T), row_start(sfr, 1)),
                         ir::lfor_body(*ploop), ploop->flags);
    NodeRef fwd = loop(sf, "s", irb::lit(0), irb::lit(S),
                       ir::make({.kind = Kind::LSeq, .kids = {resumed(CK, {capture}), resumed(P_alloc, {fstep})}}),
                       ir::kSequential);
    out.insert(out.end(), {P_alloc, CK, fwd});
    ck_name = CK->name;
    const int64_t last_start = std::max(b, S * k + e0);
    if (last_start < T)
      out.push_back(resumed(P_alloc, {loop(ploop->def, ploop->name, irb::lit(last_start), irb::lit(T), ir::lfor_body(*ploop),
                                           ploop->flags)}));
  }
  if (P) out.insert(out.end(), st.begin() + static_cast<std::ptrdiff_t>(ip) + 1, st.begin() + static_cast<std::ptrdiff_t>(ia));
  else out.insert(out.end(), st.begin(), st.begin() + static_cast<std::ptrdiff_t>(ia));

  // Backward: per segment from the last, recompute P's rows, run A's steps, add the terms.
  std::vector<NodeRef> ak{ir::ltensor_shape(*A)}, after;
  bool seen = false;
  for (auto& x : ir::ltensor_stmts(*A)) {
    if (x == aloop) seen = true;
    else if (seen) after.push_back(x);
    else ak.push_back(x);
  }
  NodeRef A_alloc = ir::with_kids(A, ak);
  if (blocked) A_alloc = ir::edited(A_alloc, [&](ir::Node& x) { x.aux = plan; });
  // The segment's rows of P: recomputed into P.seg, or P itself when it is stored whole.
  // (Blocked: nothing is renamed.)
  DefId bd = blocked ? DefId{} : cx_.resolver.new_def(P->name + "_seg", DefKind::Local);
  NodeRef B = blocked ? nullptr : new_tensor(P->name + "_seg", bd, pdt, ext, {});
  auto to_seg = [&](const NodeRef& n, bool keep_constant_rows = false) {
    return blocked ? n : renamed(n, P->def, bd, B->name, keep_constant_rows);
  };
  for (auto& x : after) x = to_seg(x);
  DefId sb = new_index("s");
  NodeRef sbr = seg_ref(sb);
  NodeRef seg_lo = irb::mul(sbr, k), seg_hi = irb::add(irb::mul(sbr, k), irb::lit(k));
  NodeRef astep = loop(aloop->def, aloop->name, irb::imax(irb::lit(alo), seg_lo), irb::imin(irb::lit(ahi), seg_hi),
                       to_seg(ir::lfor_body(*aloop), true), aloop->flags);
  std::vector<NodeRef> seg, allocs{A_alloc};
  if (!blocked) {
    NodeRef preload = copy_rows(bd, B->name, {}, ck, ck_name, {sbr}, ext, pdt, Lc,
                                [&](const NodeRef& j) { return irb::add(irb::add(row_start(sbr, 0), irb::lit(-Lc)), j); },
                                [](const NodeRef& j) { return j; });
    NodeRef recompute = loop(ploop->def, ploop->name, row_start(sbr, 0),
                             irb::imin(irb::lit(T), irb::add(irb::mul(sbr, k), irb::lit(k + e1))),
                             to_seg(ir::lfor_body(*ploop)), ploop->flags);
    seg.push_back(resumed(B, {preload, recompute}));
    allocs.push_back(B);
  }
  seg.push_back(resumed(A_alloc, {astep}));
  std::unordered_map<size_t, NodeRef> finals;
  auto segment_terms = [&](const Reduction& r) {  // its terms of segment s only, reading P.seg
    return ir::edited(to_seg(r.red), [&](ir::Node& x) {
      for (auto& item : x.kids)
        if (item->kind == Kind::LoopVar && item->def == r.t)
          item = ir::edited(item, [&](ir::Node& v) {
            v.kids = {irb::imax(irb::lit(r.lo), seg_lo), irb::imin(irb::lit(r.hi), seg_hi)};
          });
    });
  };
  for (auto& r : reds) {
    auto rt = type_of(r.red);
    if (!rt || !ir::is_scalar(rt) || !is_float(rt->dtype)) return false;
    if (r.clause) {
      // A tensor of sums: allocated (zero) before the sweep; each segment adds its terms.
      const NodeRef& R = st[r.stmt];
      std::vector<NodeRef> rk{ir::ltensor_shape(*R)};
      for (auto& x : ir::ltensor_stmts(*R))
        if (x->kind == Kind::LCheck) rk.push_back(x);
      NodeRef R_alloc = ir::with_kids(R, rk);
      allocs.push_back(R_alloc);
      NodeRef store = innermost(r.clause);
      NodeRef terms = segment_terms(r);
      std::vector<NodeRef> at;
      for (auto& x : ir::lstore_index(*store)) at.push_back(x);
      NodeRef sum = ir::make({.kind = Kind::Binary, .span = r.red->span,
                              .kids = {typed_index(R->def, R->name, at, rt->dtype), terms},
                              .ival = static_cast<int64_t>(ir::BinOp::Add)});
      u_.types[sum->id] = rt;
      std::function<NodeRef(const NodeRef&)> with_sum = [&](const NodeRef& n) -> NodeRef {
        // The clause is loops (summed_clause checked it) down to the store.
        if (n == store) return ir::with_kids(n, ir::kid_list(sum, ir::lstore_index(n)));
        return ir::with_kids(n, {ir::lfor_lo(n), ir::lfor_hi(n), with_sum(ir::lfor_body(n))});
      };
      seg.push_back(resumed(R_alloc, {with_sum(r.clause)}));
      finals[r.stmt] = nullptr;
      continue;
    }
    const NodeRef& let = st[r.stmt];
    const NodeRef& red = r.red;
    std::string name = ir::let_pattern(*let)->name + "_part";
    DefId pd = cx_.resolver.new_def(name, DefKind::Local);
    NodeRef R = new_tensor(name, pd, rt->dtype, {S}, {});
    allocs.push_back(R);
    NodeRef part = segment_terms(r);
    seg.push_back(resumed(R, {ir::make({.kind = Kind::LStore, .kids = {part, sbr}, .name = name, .def = pd})}));
    DefId s2 = new_index("s");
    NodeRef total = ir::make({.kind = Kind::LReduce, .span = red->span,
                              .kids = {typed_index(pd, name, {seg_ref(s2)}, rt->dtype),
                                       ir::make({.kind = Kind::LoopVar, .kids = {irb::lit(0), irb::lit(S)}, .name = "s", .def = s2})},
                              .name = "sum"});
    u_.types[total->id] = rt;
    finals[r.stmt] = ir::with_kids(let, {ir::let_pattern(let), ir::let_type(let), total});
  }
  out.insert(out.end(), allocs.begin(), allocs.end());
  out.push_back(loop(sb, "s", irb::lit(0), irb::lit(S), ir::make({.kind = Kind::LSeq, .kids = seg}),
                     ir::kSequential | ir::kReverse));
  if (!after.empty()) out.push_back(resumed(A_alloc, after));
  for (size_t j = ia + 1; j < st.size(); ++j) {
    if (!finals.count(j)) out.push_back(st[j]);
    else if (finals[j]) out.push_back(finals[j]);  // a tensor of sums was allocated before the sweep
  }

  windows_.clear();
  if (!blocked && Wp < T) windows_[P->def] = Wp;
  if (!blocked) windows_[bd] = Wb;
  if (Wa) windows_[A->def] = Wa;
  u_.lowered = apply_windows(ir::with_kids(u_.lowered, std::move(out)));
  return true;
}

NodeRef Checkpoint::apply_windows(const NodeRef& n) {
  if (!n) return n;
  std::vector<NodeRef> kids;
  for (auto& k : n->kids) kids.push_back(apply_windows(k));
  NodeRef m = ir::with_kids(n, std::move(kids));
  auto w = windows_.end();
  if (m->kind == Kind::LTensor || m->kind == Kind::LStore) w = windows_.find(m->def);
  if (m->kind == Kind::Index && ir::index_base(*m)->kind == Kind::Name) w = windows_.find(ir::index_base(*m)->def);
  if (w == windows_.end()) return m;
  int64_t W = w->second;
  if (m->kind == Kind::LTensor) return ir::with_window(m, W);
  return ir::edited(m, [](ir::Node& x) { x.flags |= ir::kWindowed; });
}

}  // namespace

void checkpoint(CompileCtx& cx) {
  for (auto& u : cx.units) Checkpoint(cx, *u).run();
}

}  // namespace ein
