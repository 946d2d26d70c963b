// Helpers shared by the lowered-IR passes that rewrite one tensor's clause into several
// (scatter_plan, scan_plan, guard_split): finding the clause's loop nest, copying a subtree with
// its facts, and putting the new statements in the clause's place.
#pragma once
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "lang/ir/node.h"

namespace ein {

struct Unit;

// A tensor's only clause (checks aside) as a perfect nest of loops (not sequential, not
// reversed, bounds free of each other's variables) around one store at the loop variables, each
// used once. Tensors with elements, windows or resumable loops have none.
struct PointNest {
  ir::NodeRef clause;
  std::vector<ir::NodeRef> loops;  // outermost first
  ir::NodeRef store;
  std::unordered_set<ir::DefId> decl;
};
std::optional<PointNest> point_nest(const ir::NodeRef& tensor);

// A deep copy with fresh ids, keeping the original's types and its in-bounds proofs (callers
// copy subtrees that read a subset of the points the original read).
ir::NodeRef copy_with_facts(Unit& u, const ir::NodeRef& n);

// `tensor` with `clause` replaced by `replacement`, and `what` added to its %ir line.
ir::NodeRef clause_replaced(const ir::NodeRef& tensor, const ir::NodeRef& clause,
                            const std::vector<ir::NodeRef>& replacement, const std::string& what);

// Runs a per-unit rewriter (constructed from the context and a unit, with ir::Mutator's
// mutate) over every lowered unit: the whole body of the clause-nest passes' entry points.
template <class Pass, class Ctx>
void rewrite_lowered(Ctx& cx) {
  for (auto& up : cx.units) {
    if (!up->lowered) continue;
    Pass pass(cx, *up);
    up->lowered = pass.mutate(up->lowered);
  }
}

}  // namespace ein
