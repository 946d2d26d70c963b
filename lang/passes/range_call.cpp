// Extents of a call's result through the callee's range facts (see range_call.h). The callee's
// returned value is followed through tail blocks, branches its specialisation decided
// statically (rank tests), lets, nested calls and its parameters; a declaration's extent on an
// axis is the end of that slot's range (allocations start at 0, SPEC §5.2).
#include "lang/passes/range_call.h"

#include <functional>
#include <unordered_map>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein::ranges {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

struct Follow {
  CompileCtx& cx;
  int depth = 0;

  // The returned value of a function body, through tail blocks and static branches; `lets`
  // collects the body's bindings on the way.
  NodeRef returned(const Unit& f, NodeRef e, std::unordered_map<DefId, NodeRef>& decls) {
    for (int hop = 0; e && hop < 64; ++hop) {
      if (e->kind == Kind::Block) {
        if (!e->has(ir::kHasTail) || e->kids.empty()) return nullptr;
        for (const NodeRef& s : ir::block_stmts(e)) {
          if (s == e->kids.back()) break;
          if (s && s->kind == Kind::EinGroup) decls[s->def] = s;
          if (s && s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind)
            decls[ir::let_pattern(*s)->def] = s;
        }
        e = ir::tail_expr(*e);
      } else if (e->kind == Kind::If) {
        auto it = f.static_ifs.find(e->id);
        if (it == f.static_ifs.end()) return nullptr;  // decided at run time
        e = it->second ? ir::if_then(e) : ir::if_else(e);
      } else if (e->kind == Kind::Name && decls.count(e->def) && decls[e->def]->kind == Kind::Let) {
        e = ir::let_value(*decls[e->def]);
      } else {
        return e;
      }
    }
    return nullptr;
  }

  // Axis `axis` of the value of `e` (in unit f), written in f's names; null when unknown.
  NodeRef extent(Unit& f, const NodeRef& e, int axis, std::unordered_map<DefId, NodeRef>& decls) {
    if (!e || ++depth > 16) return nullptr;
    // An elementwise value (`__max2(x, 0)`, `1.0 / (1.0 + __exp(-x))`, `x as f64`, NumPy's
    // promotion of x): its operand of its rank has its extents.
    // `@y / @x` has shape(y) ++ shape(x) (SPEC §7): a function may return a gradient.
    if (e->kind == Kind::Binary && static_cast<ir::BinOp>(e->ival) == ir::BinOp::Div &&
        ir::bin_lhs(e)->kind == Kind::Diff && ir::bin_rhs(e)->kind == Kind::Diff) {
      const NodeRef& y = ir::bin_lhs(e)->kids[0];
      const NodeRef& x = ir::bin_rhs(e)->kids[0];
      const int ry = ir::rank_of(f.type(y));
      if (ry < 0) return nullptr;
      return axis < ry ? extent(f, y, axis, decls) : extent(f, x, axis - ry, decls);
    }
    if (NodeRef op = elementwise_operand(f, e)) return extent(f, op, axis, decls);
    if (e->kind == Kind::Call) {
      auto it = f.call_targets.find(e->id);
      if (it == f.call_targets.end() || !it->second || it->second->kind != Unit::Kind::Fn) return nullptr;
      Unit& g = *it->second;
      if (!g.body || g.body->kind != Kind::Fn || g.in_progress) return nullptr;
      std::unordered_map<DefId, NodeRef> inner;
      NodeRef r = returned(g, ir::fn_body(*g.body), inner);
      NodeRef x = extent(g, r, axis, inner);
      if (!x) return nullptr;
      // g's parameters -> this call's arguments.
      ir::Kids params = ir::fn_params(*g.body);
      ir::Kids args = ir::call_args(e);
      std::unordered_map<DefId, NodeRef> sub;
      for (size_t k = 0; k < params.size() && k < args.size(); ++k) sub[params[k]->def] = args[k];
      return translate(g, f, x, sub, inner);
    }
    if (e->kind == Kind::Name && e->def.valid()) {
      auto d = decls.find(e->def);
      if (d == decls.end()) {
        // A parameter (or a global): its own extent.
        DefKind k = cx.resolver.info(e->def).kind;
        if (k != DefKind::Param && k != DefKind::Global && k != DefKind::Const) return nullptr;
        return irb::dim_of(e, axis);
      }
      const NodeRef& st = d->second;
      // `let r = __round(f); r - ..` (an elementwise library body): the let's value.
      if (st->kind == Kind::Let) return extent(f, ir::let_value(*st), axis, decls);
      if (st->kind != Kind::EinGroup) return nullptr;
      // The allocation: per axis the largest end of the clauses (SPEC §5.4), `c[0] = ..;
      // c[k in 1..len(x)] = ..` has len(x) points.
      NodeRef out;
      for (const NodeRef& c : ir::group_clauses(st)) {
        if (c->kind != Kind::EinDecl || axis >= static_cast<int>(ir::ein_slots_count(c))) return nullptr;
        const NodeRef& sl = ir::ein_slots(c)[static_cast<size_t>(axis)];
        NodeRef end;
        if (sl->kind == Kind::IdxLit) {
          end = irb::lit(sl->ival + 1);
        } else {
          auto rf = f.ranges.find(sl->def);
          if (rf == f.ranges.end() || !rf->second.hi) return nullptr;
          end = rf->second.hi_const ? irb::lit(*rf->second.hi_const) : rf->second.hi;
        }
        out = out ? irb::imax(out, end) : end;
      }
      return out;
    }
    return nullptr;
  }

  // The operand of an elementwise e of e's rank (null when e is not elementwise).
  NodeRef elementwise_operand(Unit& f, const NodeRef& e) {
    ir::Kids ops;
    if (e->kind == Kind::Binary || e->kind == Kind::Unary || e->kind == Kind::Cast) {
      ops = e->kids;
    } else if (e->kind == Kind::Call) {
      auto b = builtin_of(ir::call_callee(e)->def);
      if (!b || !(is_math_intrinsic(*b) || *b == Builtin::Promote || *b == Builtin::Convert)) return nullptr;
      ops = ir::call_args(e);
      if (*b == Builtin::Promote || *b == Builtin::Convert) ops = ops.first(1);
    } else {
      return nullptr;
    }
    const int r = ir::rank_of(f.type(e));
    if (r <= 0) return nullptr;
    for (const NodeRef& k : ops)
      if (k && k->kind != Kind::TyPrim && k->kind != Kind::TyArray && ir::rank_of(f.type(k)) == r) return k;
    return nullptr;
  }

  // x (in unit g, reading g's parameters) with the parameters replaced by `sub` (expressions of
  // unit f); null when x reads anything else of g. `dim(p, a)` of an argument `X[i, ..]` is
  // `dim(X, a + #subscripts)`.
  NodeRef translate(Unit& g, Unit& f, const NodeRef& x, const std::unordered_map<DefId, NodeRef>& sub,
                    std::unordered_map<DefId, NodeRef>& decls) {
    bool ok = true;
    std::function<NodeRef(const NodeRef&)> walk = [&](const NodeRef& n) -> NodeRef {
      if (!ok || !n) return n;
      // `len(x)` of an array is its first extent.
      if (n->kind == Kind::Call && ir::call_args_count(n) == 1 && ir::call_args(n)[0]->kind == Kind::Name &&
          builtin_of(ir::call_callee(n)->def) == Builtin::Len && ir::rank_of(g.type(ir::call_args(n)[0])) > 0)
        return walk(irb::dim_of(ir::call_args(n)[0], 0));
      if (n->kind == Kind::DimOf && !n->kids.empty() && n->kids[0]->kind == Kind::Name) {
        // A let of g naming another array (`let f = x;`, a promotion type_infer dropped):
        // that array's extent.
        NodeRef named = n->kids[0];
        for (int hop = 0; hop < 8; ++hop) {
          auto d = decls.find(named->def);
          if (d == decls.end() || d->second->kind != Kind::Let) break;
          const NodeRef& v = ir::let_value(*d->second);
          if (v->kind != Kind::Name) break;
          named = v;
        }
        // A declaration of g (`y[j]` with j in 0..dim(e, 0)): its own extent, followed.
        if (auto d = decls.find(named->def); d != decls.end() && d->second->kind == Kind::EinGroup) {
          NodeRef inner = extent(g, named, static_cast<int>(n->ival), decls);
          if (!inner) {
            ok = false;
            return n;
          }
          return walk(inner);
        }
        auto s = sub.find(named->def);
        NodeRef base = s != sub.end() ? s->second : named;
        if (s == sub.end() && !outer(named->def)) {
          ok = false;
          return n;
        }
        int64_t axis = n->ival;
        // An elementwise expression of arrays (`X[q] * 2.0`): its operand of its rank.
        base = ir::through_elementwise(base, [&](const NodeRef& k) { return ir::rank_of(f.type(k)); });
        while (base->kind == Kind::Index) {
          for (const NodeRef& a : ir::index_args(base))
            if (a->kind == Kind::RangeLit || a->kind == Kind::RestIdx) ok = false;
          axis += static_cast<int64_t>(ir::index_args_count(base));
          base = ir::index_base(base);
        }
        // A call on the row (`softmax(log_softmax(S[i]))`): that call's result extent.
        if (ok && base->kind == Kind::Call) {
          std::unordered_map<DefId, NodeRef> none;
          if (NodeRef x = extent(f, base, static_cast<int>(axis), none)) return x;
        }
        if (ok && base->kind == Kind::ArrayLit)
          if (NodeRef x = literal_extent(base, static_cast<int>(axis))) return x;
        if (base->kind != Kind::Name && base->kind != Kind::Path) ok = false;
        if (!ok) return n;
        NodeRef d = irb::dim_of(base, static_cast<int>(axis));
        f.types[d->id] = ir::t_scalar(DType::I64);
        return d;
      }
      if (n->kind == Kind::Name || n->kind == Kind::Path) {
        if (!n->def.valid()) return n;
        if (auto s = sub.find(n->def); s != sub.end()) return s->second;  // an integer parameter
        if (!outer(n->def)) ok = false;  // a local of g
        return n;
      }
      std::vector<NodeRef> kids;
      for (const NodeRef& k : n->kids) kids.push_back(walk(k));
      NodeRef m = ir::rebuilt_fresh(n, std::move(kids));
      auto t = g.types.find(n->id);
      f.types[m->id] = t != g.types.end() ? t->second : ir::t_scalar(DType::I64);
      return m;
    };
    NodeRef r = walk(x);
    return ok ? r : nullptr;
  }

  bool outer(DefId d) const {
    DefKind k = cx.resolver.info(d).kind;
    return k == DefKind::Global || k == DefKind::Const;
  }
};

}  // namespace

NodeRef elementwise_base(CompileCtx& cx, Unit& u, NodeRef x) {
  Follow fl{cx};
  for (int hop = 0; x && hop < 64; ++hop) {
    NodeRef op = fl.elementwise_operand(u, x);
    if (!op) break;
    x = op;
  }
  return x;
}

NodeRef plain_dims(CompileCtx& cx, Unit& u, const NodeRef& e) {
  if (!e) return e;
  std::unordered_map<uint32_t, NodeRef> with;
  ir::for_each_node(e, [&](const NodeRef& d) {
    NodeRef x;
    int64_t axis = 0;
    if (d->kind == Kind::DimOf && !d->kids.empty()) {
      x = d->kids[0];
      axis = d->ival;
    } else if (d->kind == Kind::Call && ir::call_args_count(d) == 1 &&
               builtin_of(ir::call_callee(d)->def) == Builtin::Len && ir::rank_of(u.type(ir::call_args(d)[0])) > 0) {
      // `len(r_rows[h, i])`, an inlined or lifted callee's `len(x)`: the first extent. Only
      // rows at index variables (which exist wherever the clause has a point); `len(B[0])`
      // stays a read of row 0 (E005 when B has no rows).
      x = ir::call_args(d)[0];
      if (x->kind != Kind::Index) return;
      for (const NodeRef& a : ir::index_args(x))
        if (a->kind != Kind::Name || !a->def.valid() || cx.resolver.info(a->def).kind != DefKind::Index) return;
    } else {
      return;
    }
    const NodeRef written = x;
    for (int hop = 0; x && hop < 64; ++hop) {
      NodeRef y = elementwise_base(cx, u, x);
      bool slice = y->kind == Kind::Index;
      if (slice)
        for (const NodeRef& a : ir::index_args(y))
          slice = slice && a->kind != Kind::RangeLit && a->kind != Kind::RestIdx;
      if (!slice) {
        x = y;
        break;
      }
      axis += static_cast<int64_t>(ir::index_args_count(y));
      x = ir::index_base(y);
    }
    if (!x || ((x->kind == Kind::Name || x->kind == Kind::Path) && x == written)) return;
    NodeRef r;
    if (x->kind == Kind::Name || x->kind == Kind::Path) {
      r = irb::dim_of(x, static_cast<int>(axis));
    } else if (x->kind == Kind::ArrayLit) {
      r = literal_extent(x, static_cast<int>(axis));
    } else if (x->kind == Kind::Call) {
      r = call_result_extent(cx, u, x, static_cast<int>(axis));
    }
    if (!r) return;
    u.types[r->id] = ir::t_scalar(DType::I64);
    with[d->id] = r;
  });
  return with.empty() ? e : irb::replace_by_id(e, with);
}

// Its shape does not depend on the values inside, so `[1, 2, 3][i]` bounds i like an array
// does (SPEC §5.2).
NodeRef literal_extent(const NodeRef& lit, int axis) {
  NodeRef cur = lit;
  for (int a = 0; a < axis; ++a) {
    if (!cur || cur->kind != Kind::ArrayLit || cur->kids.empty()) return nullptr;
    cur = ir::array_elems(cur)[0];
  }
  if (!cur || cur->kind != Kind::ArrayLit) return nullptr;
  return irb::lit(static_cast<int64_t>(cur->kids.size()));
}

NodeRef call_result_extent(CompileCtx& cx, Unit& u, const NodeRef& call, int axis) {
  if (!call || call->kind != Kind::Call) return nullptr;
  Follow fl{cx};
  std::unordered_map<DefId, NodeRef> none;
  return fl.extent(u, call, axis, none);
}

}  // namespace ein::ranges
