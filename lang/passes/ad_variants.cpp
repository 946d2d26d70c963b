// Derivatives through branches on values known only at run time. A library function dispatches
// on shapes, flags and mode numbers (`if shape(a) == shape(b) { (a, b) } else { .. stretched }`,
// `if trans_a != 0 { swap(A) } else { A }`); inside a generic function, or for inputs whose
// extents only a run shows, the condition does not fold, and an arm that holds statements or
// non-elementwise calls has no per-point rule. The derivative of `if c { A } else { B }` with c
// constant for the derivative is A's where c holds and B's elsewhere: the request is lowered once
// per combination of arms, each on a tape that assumes its arms (Tape::branch_on), and the
// sweeps are put under `if` on the conditions, each tested where its tape binds it (after the
// statements it reads, before the arm's own).
#include "lang/passes/ad_rewrite.h"

namespace ein::ad {

using ir::Kind;

NodeRef Rewriter::variants(const std::function<NodeRef(Tape&)>& lower, const std::vector<bool>& arms, int& budget,
                           Span span) {
  if (--budget < 0)
    unsupported("more than " + std::to_string(kMaxVariants) + " combinations of branches on values known only at run time",
                span);
  Tape tp = tape();
  tp.branch_on(arms);
  NodeRef b = lower(tp);
  const std::vector<DefId>& ds = tp.decisions();
  // The arms assumed by an earlier tape must be met again (the tape is built deterministically).
  if (ds.size() < arms.size()) unsupported("a branch on a value known only at run time met on one path only", span);
  if (ds.size() == arms.size()) return b;
  if (b->kind != Kind::Block || !b->has(ir::kHasTail))
    unsupported("a branch on a value known only at run time in this kind of derivative", span);
  ir::Kids all = ir::block_stmts(b);
  std::vector<NodeRef> stmts(all.begin(), all.end() - 1);
  NodeRef tail = all.back();
  // Where each condition this tape decided freely is bound, in order; a condition moved into a
  // nested block (a per-point body) or dropped cannot guard the sweep.
  std::vector<size_t> pos;
  for (size_t k = arms.size(); k < ds.size(); ++k) {
    size_t i = pos.empty() ? 0 : pos.back() + 1;
    while (i < stmts.size() && !(stmts[i]->kind == Kind::Let && ir::let_pattern(*stmts[i])->kind == Kind::PBind &&
                                 ir::let_pattern(*stmts[i])->def == ds[k]))
      ++i;
    if (i == stmts.size()) unsupported("a branch on a value known only at run time inside a per-point body", span);
    pos.push_back(i);
  }
  auto slice = [&](size_t from, size_t to) { return std::vector<NodeRef>(stmts.begin() + from, stmts.begin() + to); };
  NodeRef value = block(slice(pos.back() + 1, stmts.size()), tail);
  for (size_t j = pos.size(); j-- > 0;) {
    // The other arm of branch k, with the arms before it as this tape took them.
    std::vector<bool> other = arms;
    other.resize(arms.size() + j, false);
    other.push_back(true);
    NodeRef alt = variants(lower, other, budget, span);
    DefId c = ds[arms.size() + j];
    NodeRef test = ir::make({.kind = Kind::If, .span = span, .kids = {name("branch", c), value, alt}});
    value = block(slice(j == 0 ? 0 : pos[j - 1] + 1, pos[j] + 1), test);
  }
  return value;
}

NodeRef Rewriter::shared_variants(DefId target, const std::vector<NodeRef>& wrts, const std::vector<DefId>& defs,
                                  const std::vector<Leaf>& leaves) {
  const NodeRef& X = wrts.front();
  NodeRef v;
  try {
    int budget = kMaxVariants;
    v = variants(
        [&](Tape& tp) {
          if (!tp.build(target, defs)) unsupported("a target that depends on none of its parameters", X->span);
          Sweep s = reverse_sweep(cx_, facts_, tp, target, leaves, nullptr);
          return block(std::move(s.stmts), ir::make({.kind = Kind::TupleLit, .kids = s.results}));
        },
        {}, budget, X->span);
  } catch (const Unsupported&) {
    return nullptr;
  }
  size_t l = hoist_level(v);
  if (l >= levels_.size()) return nullptr;
  DefId t = cx_.resolver.new_def("adjoints", DefKind::Local, X->span);
  levels_[l].prelude.push_back(let_stmt("adjoints", t, v));
  auto& res = levels_[l].shared[target];
  for (size_t i = 0; i < wrts.size(); ++i)
    res[wrts[i]->def] = ir::make({.kind = Kind::Member, .span = X->span, .kids = {name("adjoints", t)},
                                  .ival = static_cast<int64_t>(i), .flags = ir::kTupleField});
  NodeRef mine = res[X->def];
  return mine ? ir::fresh_copy(mine) : nullptr;
}

}  // namespace ein::ad
