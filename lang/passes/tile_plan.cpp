#include "lang/passes/tile_plan.h"

#include <unordered_set>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/int_fold.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

constexpr int64_t kTile = 64;

using ir::mentions;

bool is_var(const NodeRef& x, ir::DefId d) { return x->kind == Kind::Name && x->def == d; }

// The name of a read that walks the nest transposed, or "" when the nest is not to be tiled.
std::string transposed_read(const CompileCtx& cx, const Unit& u, const NodeRef& tensor, const NodeRef& outer,
                            const std::unordered_set<ir::DefId>& fused) {
  if (outer->flags != ir::kParallel) return "";
  const NodeRef& inner = ir::lfor_body(outer);
  if (!inner || inner->kind != Kind::LFor || inner->flags != ir::kParallel) return "";
  const NodeRef& st = ir::lfor_body(inner);
  if (!st || st->kind != Kind::LStore || st->def != tensor->def || ir::lstore_index_count(st) < 2) return "";
  // The store is contiguous in the inner index and the inner bounds do not move with the outer.
  const ir::Kids sx = ir::lstore_index(st);
  if (!is_var(sx.back(), inner->def) || !is_var(sx[sx.size() - 2], outer->def)) return "";
  if (mentions(ir::lfor_lo(inner), outer->def) || mentions(ir::lfor_hi(inner), outer->def)) return "";
  std::string read;
  bool simple = true;
  ir::for_each_node(ir::lstore_value(st), [&](const NodeRef& x) {
    // Reductions keep their own loop structure (and contraction plans): not blocked here.
    if (x->kind == Kind::LReduce || x->kind == Kind::Block) simple = false;
    if (x->kind != Kind::Index || ir::index_base(x)->kind != Kind::Name) return;
    if (fused.count(ir::index_base(x)->def)) return;
    const ir::Kids xs = ir::index_args(x);
    if (xs.size() < 2 || !is_var(xs.back(), outer->def)) return;
    for (const NodeRef& ix : xs.first(xs.size() - 1))
      if (mentions(ix, inner->def) && read.empty()) read = ir::index_base(x)->name;
  });
  if (read.empty() || !simple) return "";
  // Small nests fit in cache whole.
  auto small = [&](const NodeRef& loop) {
    auto lo = fold_int(cx, u, ir::lfor_lo(loop)), hi = fold_int(cx, u, ir::lfor_hi(loop));
    return lo && hi && static_cast<__int128>(*hi) - *lo < 2 * kTile;
  };
  if (small(outer) || small(inner)) return "";
  return read;
}

}  // namespace

void tile_plan(CompileCtx& cx) {
  for (auto& up : cx.units) {
    Unit& u = *up;
    u.tiles.clear();
    if (!u.lowered) continue;
    ir::for_each_node(u.lowered, [&](const NodeRef& t) {
      if (t->kind != Kind::LTensor) return;
      std::unordered_set<ir::DefId> fused;  // producers computed inside this tensor's loops
      for (const FusionGroup& g : u.fusions)
        if (g.consumer == t->id) fused.insert(g.producers.begin(), g.producers.end());
      ir::for_each_node(t, [&](const NodeRef& n) {
        if (n->kind != Kind::LFor) return;
        std::string read = transposed_read(cx, u, t, n, fused);
        if (!read.empty()) u.tiles[n->id] = TileFact{kTile, read};
      });
    });
  }
}

}  // namespace ein
