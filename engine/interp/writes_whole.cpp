#include "engine/interp/writes_whole.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "lang/ir/kid_families.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

// One clause: a loop per axis, at the innermost level a plain store at the loop variables of
// a value with no guard outside a reduction (a `where` skips points) and no read of the tensor
// itself. A reduction in the value is fine: every kernel that computes one into the tensor
// overwrites it (BLAS with beta = 0, tiles and partial sums stored with `=`, the pairwise
// einsum steps zero their box first: engine/codegen/einsum.cpp); a 9.4 MB batched product spent
// a third of its time zeroing. Returns the box [lo, hi) per axis the clause writes.
std::optional<std::vector<std::pair<int64_t, int64_t>>> clause_box(
    const NodeRef& t, const NodeRef& clause, size_t rank, const std::function<int64_t(const NodeRef&)>& eval) {
  std::vector<std::pair<int64_t, int64_t>> box;
  std::vector<ir::DefId> vars;
  NodeRef n = clause;
  for (size_t a = 0; a < rank; ++a) {
    if (!n || n->kind != Kind::LFor) return std::nullopt;
    const int64_t lo = eval(ir::lfor_lo(*n)), hi = eval(ir::lfor_hi(*n));
    if (lo < 0 || hi < 0) return std::nullopt;  // unknown (or an inner bound naming an outer variable)
    box.emplace_back(lo, hi);
    vars.push_back(n->def);
    n = ir::lfor_body(*n);
  }
  if (!n || n->kind != Kind::LStore || n->def != t->def) return std::nullopt;
  auto idx = ir::lstore_index(*n);
  if (idx.size() != vars.size()) return std::nullopt;
  for (size_t a = 0; a < vars.size(); ++a)
    if (idx[a]->kind != Kind::Name || idx[a]->def != vars[a]) return std::nullopt;
  // A guard inside a reduction's body skips terms, not points (a padded convolution's
  // `sum[k](x[i + k - 3] * w[k] where i + k >= 3, ..)` still writes every i).
  std::function<bool(const NodeRef&, bool)> plain = [&](const NodeRef& x, bool in_reduce) {
    if (!x) return true;
    if ((x->kind == Kind::LGuard && !in_reduce) || x->kind == Kind::LStore || x->kind == Kind::LFor ||
        (x->def == t->def && x->kind == Kind::Name))
      return false;
    for (const NodeRef& k : x->kids)
      if (!plain(k, in_reduce || x->kind == Kind::LReduce)) return false;
    return true;
  };
  if (!plain(ir::lstore_value(*n), false)) return std::nullopt;
  return box;
}

}  // namespace

// The clauses' boxes must cover the storage: one clause spanning every axis, or pieces that
// tile it. guard_split cuts a padded window's point loop at the guards' bounds into [0, 3)
// [3, n - 3) [n - 3, n), each piece its own clause (a 7-tap 'same' correlation over 2^22 f32
// zeroed its reused 16 MiB before the kernel overwrote it), and a padded copy along every
// padded axis (2-D: 5 boxes, 3-D: 7). Checked on the grid of the boxes' edges: every cell must
// lie in some box (pieces may overlap; a cell no box holds means a zero fill).
bool writes_every_point(const NodeRef& t, const std::vector<int64_t>& shape,
                        const std::function<int64_t(const NodeRef&)>& eval) {
  if (shape.empty() || t->has(ir::kWindowed) || t->has(ir::kHasElem)) return false;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> boxes;
  for (const NodeRef& k : ir::ltensor_stmts(*t)) {
    if (k->kind == Kind::LCheck) continue;
    auto box = clause_box(t, k, shape.size(), eval);
    if (!box) return false;
    boxes.push_back(std::move(*box));
  }
  if (boxes.empty()) return false;
  const size_t rank = shape.size();
  std::vector<std::vector<int64_t>> edges(rank);
  size_t cells = 1;
  for (size_t a = 0; a < rank; ++a) {
    edges[a] = {0, shape[a]};
    for (const auto& box : boxes)
      for (int64_t e : {box[a].first, box[a].second}) edges[a].push_back(std::clamp<int64_t>(e, 0, shape[a]));
    std::sort(edges[a].begin(), edges[a].end());
    edges[a].erase(std::unique(edges[a].begin(), edges[a].end()), edges[a].end());
    cells *= edges[a].size() - 1;  // an axis of extent 0: no cell, nothing to write
    if (cells > 4096) return false;  // many pieces: zero fill rather than a long check
  }
  std::vector<size_t> at(rank, 0);
  for (size_t c = 0; c < cells; ++c) {
    size_t rest = c;
    for (size_t a = rank; a-- > 0;) {
      at[a] = rest % (edges[a].size() - 1);
      rest /= edges[a].size() - 1;
    }
    bool held = false;
    for (const auto& box : boxes) {
      bool in = true;
      for (size_t a = 0; a < rank && in; ++a)
        in = box[a].first <= edges[a][at[a]] && edges[a][at[a] + 1] <= box[a].second;
      if (in) {
        held = true;
        break;
      }
    }
    if (!held) return false;
  }
  return true;
}

}  // namespace ein
