#include "lang/passes/recurrence_dynamic.h"

#include "lang/ir/kid_families.h"
#include "lang/ir/layout.h"
#include "lang/passes/context.h"
#include "lang/passes/ir_build.h"

namespace ein {
namespace {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

class Guard {
 public:
  Guard(Unit& u, const std::vector<NodeRef>& q) : u_(u), q_(q) {}

  // q lies outside `box` on some axis whose bound folds (nothing when no bound is known).
  NodeRef outside(const ClauseBox& box) {
    NodeRef any;
    for (size_t a = 0; a < box.size() && a < q_.size(); ++a) {
      if (box[a].lo) any = either(any, bin(BinOp::Lt, q_[a], irb::lit(*box[a].lo)));
      if (box[a].hi) any = either(any, bin(BinOp::Ge, q_[a], irb::lit(*box[a].hi)));
    }
    return any ? any : ir::make_bool(false);
  }

  // q comes before the point p in the evaluation order. Loops that run in parallel order
  // nothing: along them only the same index is safe.
  NodeRef before(const DynamicReadOrder& o) {
    NodeRef rest = ir::make_bool(false);  // the point itself is not computed yet
    for (size_t k = o.lex.size(); k-- > 0;) {
      int a = o.lex[k];
      if (a < 0 || a >= static_cast<int>(q_.size()) || a >= static_cast<int>(o.point.size())) return ir::make_bool(false);
      NodeRef p = irb::wide(point(o.point[a]));
      NodeRef same = bin(BinOp::And, bin(BinOp::Eq, q_[a], p), rest);
      rest = o.ordered[k] ? either(bin(o.reverse ? BinOp::Gt : BinOp::Lt, q_[a], p), same) : same;
    }
    return rest;
  }

  // The index being computed: a literal, or a fresh typed reference to the loop variable (the
  // store's own index nodes are not typed expressions).
  NodeRef point(const NodeRef& p) {
    if (p->kind != Kind::Name) return p;
    NodeRef r = irb::ref(p->name, p->def, p->span);
    auto t = u_.def_types.find(p->def);
    u_.types[r->id] = t != u_.def_types.end() ? t->second : ir::t_i32();
    return r;
  }

  NodeRef bin(BinOp op, const NodeRef& a, const NodeRef& b) {
    NodeRef n = ir::make_binary(op, a, b);
    if (op >= BinOp::Eq && op <= BinOp::Or) u_.types[n->id] = ir::t_bool();
    return n;
  }
  NodeRef either(const NodeRef& a, const NodeRef& b) { return a ? bin(BinOp::Or, a, b) : b; }

 private:
  Unit& u_;
  const std::vector<NodeRef>& q_;
};

}  // namespace

// A literal index the box excludes on some axis: the read is outside it whatever runs.
static bool outside_statically(const ClauseBox& box, const ir::Kids& idx) {
  for (size_t a = 0; a < box.size() && a < idx.size(); ++a)
    if (auto v = irb::as_lit(idx[a]); v && ((box[a].lo && *v < *box[a].lo) || (box[a].hi && *v >= *box[a].hi)))
      return true;
  return false;
}

NodeRef guard_dynamic_read(CompileCtx& cx, Unit& u, const NodeRef& tensor, const NodeRef& read,
                           const DynamicReadOrder& order) {
  // Another clause's point that has finished before this clause runs (`S[t, n, 0, k]` read by
  // the clause of slot 1 after the clause of slot 0): nothing to check.
  const ir::Kids idx = ir::index_args(*read);
  bool settled = outside_statically(order.own, idx);
  for (auto& b : order.pending) settled = settled && outside_statically(b, idx);
  if (settled && order.time_axis < 0) return read;
  if (settled && order.time_axis >= 0 && order.time_axis < static_cast<int>(idx.size()) &&
      order.time_axis < static_cast<int>(order.point.size()) &&
      ir::structurally_equal(idx[order.time_axis], order.point[order.time_axis]))
    return read;  // the same step, where every clause before this one has run
  std::vector<NodeRef> q;
  for (auto& i : ir::index_args(*read)) q.push_back(irb::wide(i));
  Guard g(u, q);
  // Computed: no unfinished clause writes it, and either the reader does not write it either or
  // it writes it at an earlier point of its own order.
  NodeRef ok = g.either(g.outside(order.own), g.before(order));
  for (auto& b : order.pending) ok = g.bin(BinOp::And, g.outside(b), ok);
  if (int t = order.time_axis; t >= 0 && t < static_cast<int>(q.size())) {
    NodeRef step = irb::wide(g.point(order.point[t]));
    NodeRef earlier = g.bin(order.reverse ? BinOp::Gt : BinOp::Lt, q[t], step);
    ok = g.either(earlier, g.bin(BinOp::And, g.bin(BinOp::Eq, q[t], step), ok));
    NodeRef first = ir::make_bool(true);
    for (auto& b : order.fused) first = g.bin(BinOp::And, g.outside(b), first);
    ok = g.either(first, ok);
  }
  std::string text = cx.sm.snippet(read->span);
  NodeRef check = irb::check(
      "E012", "`" + text + "` reads a point of `" + tensor->name + "` that is not computed yet",
      "its position is known only at run time, and this run reached a point the recurrence computes "
      "at this step or later; a recurrence may only read earlier points (SPEC 5.5)",
      ok, read->span);
  NodeRef block = ir::make({.kind = Kind::Block, .span = read->span, .kids = {check, read}, .flags = ir::kHasTail});
  u.types[block->id] = u.type(read);
  return block;
}

}  // namespace ein
