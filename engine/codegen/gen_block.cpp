// Cache blocking of two-deep nests that read an operand transposed. In `S[i, j] = A[i, j] +
// A[j, i]` the inner loop over j walks `A[j, i]` with a stride of a whole row per element: every
// read touches a new cache line (and, on large matrices, a new page). Walking the (i, j) space
// in 64 × 64 tiles keeps the tile's rows of S, A and the transposed columns of A in cache, so
// each line fetched is used 16 times (f32) instead of once. The rule is the loop structure, not
// the program: any nest whose innermost store is contiguous in the inner index and which reads
// some operand with the outer index on its last axis and the inner index before it.
//
// Order of failures: tiles visit points out of row-major order, but each row is still visited
// from left to right, so failures are ordered by the outer index (ein_fail keeps the smallest
// order, and the first failure of a row is recorded first): the failure reported is the one the
// interpreter reports.
#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

constexpr int64_t kTile = 64;

bool mentions(const NodeRef& n, ir::DefId d) {
  bool hit = false;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (x->kind == Kind::Name && x->def == d) hit = true;
  });
  return hit;
}

bool is_var(const NodeRef& x, ir::DefId d) { return x->kind == Kind::Name && x->def == d; }

}  // namespace

bool Gen::blocked_nest(const NodeRef& outer) {
  if (!allow_parallel || in_parallel || !carry_.name.empty()) return false;
  if (outer->flags != ir::kParallel) return false;
  const NodeRef& inner = ir::lfor_body(outer);
  if (!inner || inner->kind != Kind::LFor || inner->flags != ir::kParallel) return false;
  const NodeRef& st = ir::lfor_body(inner);
  if (!st || st->kind != Kind::LStore || st->def != out_def || ir::lstore_index_count(st) < 2) return false;
  // The store is contiguous in the inner index and the inner bounds do not move with the outer.
  const ir::Kids sx = ir::lstore_index(st);
  if (!is_var(sx.back(), inner->def) || !is_var(sx[sx.size() - 2], outer->def)) return false;
  if (mentions(ir::lfor_lo(inner), outer->def) || mentions(ir::lfor_hi(inner), outer->def)) return false;
  bool transposed = false, simple = true;
  ir::for_each_node(ir::lstore_value(st), [&](const NodeRef& x) {
    // Reductions keep their own loop structure (and parallel plans): not blocked here.
    if (x->kind == Kind::LReduce || x->kind == Kind::Block) simple = false;
    if (x->kind != Kind::Index || ir::index_base(x)->kind != Kind::Name) return;
    // A fused producer is computed at the read, not loaded: no strided walk to block.
    if (fusion.producers.count(ir::index_base(x)->def)) return;
    const ir::Kids xs = ir::index_args(x);
    if (xs.size() < 2 || !is_var(xs.back(), outer->def)) return;
    for (const NodeRef& ix : xs.first(xs.size() - 1))
      if (mentions(ix, inner->def)) transposed = true;
  });
  if (!transposed || !simple) return false;
  // Small nests fit in cache whole.
  auto ti = static_trip(cx, *unit, ir::lfor_lo(outer), ir::lfor_hi(outer));
  auto tj = static_trip(cx, *unit, ir::lfor_lo(inner), ir::lfor_hi(inner));
  if ((ti && *ti < 2 * kTile) || (tj && *tj < 2 * kTile)) return false;

  Val lo_i = index(ir::lfor_lo(outer)), hi_i = index(ir::lfor_hi(outer));
  Val lo_j = index(ir::lfor_lo(inner)), hi_j = index(ir::lfor_hi(inner));
  const std::string T = std::to_string(kTile) + "LL";
  const std::string ib = em.fresh("ib"), jb = em.fresh("jb");
  const std::string saved_ord = ord_, saved_stop = stop_ord_;
  const bool saved_par = in_parallel, saved_omp_for = loop_is_omp_for;
  char work[64];
  std::snprintf(work, sizeof work, "%.0f", std::max(1.0, std::min(static_work(inner), 1e12)));
  const std::string cond = "ein_imul(ein_isub(" + hi_i.c + ", " + lo_i.c + "), " + work + "LL) >= " +
                           std::to_string(parallel_threshold) + "LL";
  const bool report = reports_progress();
  if (report) em.line("ein_progress_total(A, ein_isub(" + hi_i.c + ", " + lo_i.c + "));");
  em.open("#pragma omp parallel for schedule(static) if(" + cond + ")\nfor (int64_t " + ib + " = " + lo_i.c + "; " +
              ib + " < " + hi_i.c + "; " + ib + " += " + T + ") {",
          false);
  in_parallel = true;
  ord_ = ib;
  stop_ord_ = ib;
  loop_is_omp_for = true;
  em.line(stop_check());
  if (report) emit_progress("ein_isub(" + ib + ", " + lo_i.c + ")", true);
  loop_is_omp_for = false;
  em.open("for (int64_t " + jb + " = " + lo_j.c + "; " + jb + " < " + hi_j.c + "; " + jb + " += " + T + ") {", false);
  em.line(stop_check());
  // The loop over one tile of a variable: [block, min(block + T, hi)).
  auto tile = [&](ir::DefId def, const std::string& block, const Val& lo, const Val& hi) {
    LoopSpec sp;
    sp.def = def;
    sp.lo_c = block;
    sp.hi_c = "ein_imin(" + block + " + " + T + ", " + hi.c + ")";
    sp.bits = std::max(lo.bits, hi.bits) + 1;
    return sp;
  };
  LoopSpec si = tile(outer->def, ib, lo_i, hi_i);
  si.order_by_var = true;
  LoopSpec sj = tile(inner->def, jb, lo_j, hi_j);
  sj.innermost = true;
  sj.simd = true;
  open_loop(si);
  open_loop(sj);
  stmt(st);
  close_loop();
  close_loop();
  em.close();
  em.close();
  ord_ = saved_ord;
  stop_ord_ = saved_stop;
  in_parallel = saved_par;
  loop_is_omp_for = saved_omp_for;
  const std::string note = "transposed read: the nest walks 64 x 64 cache blocks";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  return true;
}

}  // namespace ein::codegen
