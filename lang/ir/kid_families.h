// Accessors over families of kinds that share a role: the one child of any `where` clause, of
// any comprehension clause, the index slots of a declaration or a reduction, the operands of
// `min`/`max`. The per-kind accessors of layout.h throw on another kind; a pass that handles a
// whole family at once (shape analysis walks every clause's value alike) names the role here
// instead of reading a child by position.
//
// Kept out of layout.h on purpose: that header is included by every file through node.h, and
// these are used by a handful of passes.
#pragma once
#include <vector>

#include "lang/ir/node.h"

namespace ein::ir {

// The statements of a program or of a block.
inline Kids stmt_list(const Node& n) { return n.kind == Kind::Program ? program_stmts(n) : block_stmts(n); }
inline Kids stmt_list(const NodeRef& n) { return stmt_list(*n); }

// The value, index, condition or fallback of a `where` clause (WBind, WDerived, WGuard, WElse).
inline const NodeRef& where_clause_expr(const Node& c) {
  switch (c.kind) {
    case Kind::WBind: return wbind_value(c);
    case Kind::WDerived: return wderived_index(c);
    case Kind::WGuard: return wguard_cond(c);
    default: return welse_value(c);  // throws on a non-clause
  }
}
inline const NodeRef& where_clause_expr(const NodeRef& c) { return where_clause_expr(*c); }

// The iterable, condition or value of a comprehension clause (CompGen, CompGuard, CompLet).
inline const NodeRef& comp_clause_expr(const Node& c) {
  switch (c.kind) {
    case Kind::CompGen: return compgen_iter(c);
    case Kind::CompGuard: return compguard_cond(c);
    default: return complet_value(c);  // throws on a non-clause
  }
}
inline const NodeRef& comp_clause_expr(const NodeRef& c) { return comp_clause_expr(*c); }

// The index slots of an Einstein declaration or of a reduction.
inline Kids index_slots_of(const Node& n) {
  return n.kind == Kind::Reduce ? reduce_slots(n) : ein_slots(n);
}
inline Kids index_slots_of(const NodeRef& n) { return index_slots_of(*n); }

// The operands of IMin / IMax (the lowered integer `min`/`max`).
inline const NodeRef& iminmax_a(const Node& n) { return n.kind == Kind::IMax ? imax_a(n) : imin_a(n); }
inline const NodeRef& iminmax_b(const Node& n) { return n.kind == Kind::IMax ? imax_b(n) : imin_b(n); }
inline const NodeRef& iminmax_a(const NodeRef& n) { return iminmax_a(*n); }
inline const NodeRef& iminmax_b(const NodeRef& n) { return iminmax_b(*n); }

// The bounds of a lowered loop, whether an LFor statement or a LoopVar of an LReduce.
inline const NodeRef& loop_lo(const Node& n) { return n.kind == Kind::LFor ? lfor_lo(n) : loopvar_lo(n); }
inline const NodeRef& loop_hi(const Node& n) { return n.kind == Kind::LFor ? lfor_hi(n) : loopvar_hi(n); }
inline const NodeRef& loop_lo(const NodeRef& n) { return loop_lo(*n); }
inline const NodeRef& loop_hi(const NodeRef& n) { return loop_hi(*n); }

// The bound value of a lowered local (LLet statement or LLetIn expression).
inline const NodeRef& lowered_let_value(const Node& n) {
  return n.kind == Kind::LLetIn ? lletin_value(n) : llet_value(n);
}
inline const NodeRef& lowered_let_value(const NodeRef& n) { return lowered_let_value(*n); }

// The parameters and the body of a function item (Fn, DiffFn) or of a closure (Lambda).
inline Kids callable_params(const Node& n) { return n.kind == Kind::Lambda ? lambda_params(n) : fn_params(n); }
inline Kids callable_params(const NodeRef& n) { return callable_params(*n); }
inline const NodeRef& callable_body(const Node& n) { return n.kind == Kind::Lambda ? lambda_body(n) : fn_body(n); }
inline const NodeRef& callable_body(const NodeRef& n) { return callable_body(*n); }

// A kid list copied from a role's span, or with a new first kid before it: how a pass rebuilds
// a node with its head role replaced (a clause with a new value, an access of another base)
// while naming the tail it keeps.
inline std::vector<NodeRef> kid_list(Kids tail) { return {tail.begin(), tail.end()}; }
inline std::vector<NodeRef> kid_list(NodeRef head, Kids tail) {
  std::vector<NodeRef> out;
  out.reserve(tail.size() + 1);
  out.push_back(std::move(head));
  out.insert(out.end(), tail.begin(), tail.end());
  return out;
}

// The storage window of an LTensor (storage_window, checkpoint): how many rows of axis 0 it
// keeps, circularly; 0 when it is stored whole. Kept in the LShape's payload.
inline int64_t ltensor_window(const Node& t) { return t.has(kWindowed) ? ltensor_shape(t)->ival : 0; }
inline int64_t ltensor_window(const NodeRef& t) { return ltensor_window(*t); }
// The LTensor `t` keeping only `rows` rows of axis 0 (its stores and reads get kWindowed apart).
inline NodeRef with_window(const NodeRef& t, int64_t rows) {
  NodeRef shape = edited(ltensor_shape(t), [&](Node& s) { s.ival = rows; });
  return edited(with_kids(t, kid_list(shape, ltensor_stmts(t))), [](Node& x) { x.flags |= kWindowed; });
}

// A node like `n` with other kids (and `def`) as a node of its own. with_kids keeps n's id, right
// for an edit of the same expression; a pass that builds another expression of n's shape (an
// element read out of an array expression, a callee's extent written with the arguments, a copy
// with renamed binders) needs an id of its own, or the facts noted under the id (types, ranges,
// origins) would be shared by both.
inline NodeRef rebuilt_fresh(const NodeRef& n, std::vector<NodeRef> kids, DefId def) {
  return make({.kind = n->kind, .span = n->span, .kids = std::move(kids), .name = n->name, .aux = n->aux,
               .path = n->path, .def = def, .ival = n->ival, .fval = n->fval, .flags = n->flags});
}
inline NodeRef rebuilt_fresh(const NodeRef& n, std::vector<NodeRef> kids) {
  return rebuilt_fresh(n, std::move(kids), n->def);
}

// The operand of an elementwise expression (`X[q] * 2.0`, `-v`, `v as f64`, nested) that has the
// expression's rank: the expression's extents are its extents. `x` itself when it is not
// elementwise or no operand has its rank; `rank_of` reads the analysed type of a node.
template <class RankOf>
NodeRef through_elementwise(NodeRef x, RankOf rank_of) {
  for (int hop = 0; hop < 64 && x && (x->kind == Kind::Binary || x->kind == Kind::Unary || x->kind == Kind::Cast); ++hop) {
    const int r = rank_of(x);
    NodeRef next;
    for (const NodeRef& k : x->kids)
      if (!next && r > 0 && k && k->kind != Kind::TyPrim && k->kind != Kind::TyArray && rank_of(k) == r) next = k;
    if (!next) break;
    x = next;
  }
  return x;
}

// A function item or closure with its body replaced (parameters and return type kept).
inline NodeRef with_callable_body(const NodeRef& n, NodeRef body) {
  if (n->kind == Kind::Lambda) return with_kids(n, kid_list(std::move(body), lambda_params(n)));
  std::vector<NodeRef> kids{fn_ret_type(n), std::move(body)};
  kids.insert(kids.end(), fn_params(n).begin(), fn_params(n).end());
  return with_kids(n, std::move(kids));
}

}  // namespace ein::ir
