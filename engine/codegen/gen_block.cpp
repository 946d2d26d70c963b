// Cache blocking of two-deep nests that read an operand transposed, as the tile_plan pass
// decided (lang/passes/tile_plan.h: the rule and why); this file prints the blocked nest where a
// parallel loop may be opened (not inside another parallel loop or a carried recurrence).
//
// Order of failures: tiles visit points out of row-major order, but each row is still visited
// from left to right, so failures are ordered by the outer index (ein_fail keeps the smallest
// order, and the first failure of a row is recorded first): the failure reported is the one the
// interpreter reports.
#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/passes/context.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

bool Gen::blocked_nest(const NodeRef& outer) {
  if (!allow_parallel || in_parallel || !carry_.name.empty()) return false;
  auto planned = unit->tiles.find(outer->id);
  if (planned == unit->tiles.end()) return false;
  const NodeRef& inner = ir::lfor_body(outer);
  const NodeRef& st = ir::lfor_body(inner);
  if (st->kind != Kind::LStore || st->def != out_def) return false;  // another tensor's kernel
  const int64_t kTile = planned->second.size;

  Val lo_i = index(ir::lfor_lo(outer)), hi_i = index(ir::lfor_hi(outer));
  Val lo_j = index(ir::lfor_lo(inner)), hi_j = index(ir::lfor_hi(inner));
  const std::string T = std::to_string(kTile) + "LL";
  const std::string ib = em.fresh("ib"), jb = em.fresh("jb");
  const std::string saved_ord = ord_, saved_stop = stop_ord_;
  const bool saved_par = in_parallel, saved_omp_for = loop_is_omp_for;
  char work[64];
  std::snprintf(work, sizeof work, "%.0f", std::max(1.0, std::min(loop_work(outer), 1e12)));
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
  const std::string note = "transposed read of " + planned->second.read + ": the nest walks " + std::to_string(kTile) +
                           " x " + std::to_string(kTile) + " cache blocks (tile_plan)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  return true;
}

}  // namespace ein::codegen
