// Squared distances `sum[k]((X[r, k] - Y[j, k]) ** 2)` (contraction.h squared_distance) as
// |x|² + |y|² - 2 x·y: the cross term is one GEMM, a single multiply-add per term where the
// register-tiled loops need a subtraction and a multiply-add, and the GEMM runs near the
// machine's peak. The result is computed in tiles of 256 rows × 512 (f32) or 256 (f64) columns,
// one BLAS thread per tile: each tile's GEMM writes C, and its norms are added while the tile is
// in cache (a second pass over a 16 MB result would cost as much as the GEMM).
//
// Rounding (docs/performance.md, "Squared distances"): the norms are summed in f64 and rounded
// once to the operand type, in which the epilogue adds them (an f64 epilogue cost a third more
// time for f32), so the new error is the GEMM's, at most about K·ε·(|x|² + |y|²), and 3ε·(|x|² +
// |y|²) of the additions. A point where the subtraction cancels, d < (|x|² + |y|²) / 2 (near or
// equal points, points far from the origin compared to their distance, norms past the type's
// range, any inf or NaN), is summed again directly, in the interpreter's order and precision
// (each squared difference in the operand type, summed in f64), so every other point keeps a
// relative error below about 2·(K + 3)·ε: twice the tiled kernel's own bound. Small problems
// (K < 16, or fewer than 2^20 terms) keep the tiled loops.
#include "engine/codegen/gen.h"
#include "lang/passes/contraction_plan.h"

namespace ein::codegen {

using ir::DefId;

void Gen::emit_distance(const ContractionPlan& p, const Contract& c) {
  const ContractionOperand& X = p.c.operands[static_cast<size_t>(p.x)];
  const ContractionOperand& Y = p.c.operands[static_cast<size_t>(p.y)];
  const DefId r = p.dest[0], j = p.dest[1];
  // Needs its norms allocated at entry, and the tensor's own [r, j] layout with unit columns.
  if (!c.sizes_at_entry || c.dest.axes.size() != 2 || c.dest.axes[0] != r || c.dest.axes[1] != j ||
      c.dest.strides[1] != "1LL" || !c.packs[static_cast<size_t>(p.x)].base.empty() ||
      !c.packs[static_cast<size_t>(p.y)].base.empty())
    return emit_tiled(p, c);
  const DType dt = c.dt;
  const std::string T = ctype(dt), f = dt == DType::F32 ? "s" : "d";
  auto ext = [&](DefId d) { return c.ext.at(def_key(d)).c; };
  const std::string M = ext(r), N = ext(j), K = c.K, tn = dt == DType::F32 ? "512LL" : "256LL";
  const int bx = c.bufs[static_cast<size_t>(p.x)], by = c.bufs[static_cast<size_t>(p.y)];
  // Stored [r, k] or [k, r]; the leading dimension is the stride of the first axis.
  const bool ta = X.axes[0] != r, tb = Y.axes[0] == j;
  const std::string xb = "b" + std::to_string(bx) + " + " + block_offset(X, bx, {});
  const std::string yb = "b" + std::to_string(by) + " + " + block_offset(Y, by, {});
  const std::string lda = axis_stride(bx, 0), ldb = axis_stride(by, 0), ldc = c.dest.strides[0];
  auto xat = [&](const std::string& i, const std::string& k) {
    return "(" + xb + ")[" + (ta ? "ein_imul(" + k + ", " + lda + ") + " + i : "ein_imul(" + i + ", " + lda + ") + " + k) + "]";
  };
  auto yat = [&](const std::string& jv, const std::string& k) {
    return "(" + yb + ")[" + (tb ? "ein_imul(" + jv + ", " + ldb + ") + " + k : "ein_imul(" + k + ", " + ldb + ") + " + jv) + "]";
  };
  const std::string id = std::to_string(p.c.reduce->id);
  const std::string xn = scratch_once("dnx|" + id, "dnx", dt, M, p.c.reduce->span);
  const std::string yn = scratch_once("dny|" + id, "dny", dt, N, p.c.reduce->span);
  const bool par = !in_parallel;
  const std::string omp = par ? "#pragma omp parallel for schedule(static) if(ein_imul(" : "";
  em.open("if (" + K + " >= 16LL && " + M + " >= 16LL && " + N + " >= 16LL && ein_imul(ein_imul(" + M + ", " + N +
              "), " + K + ") >= 1048576LL) {",
          true);
  // The norms, summed in f64, rounded once.
  auto norms = [&](const std::string& out, const std::string& n, bool rows) {
    em.open((par ? omp + n + ", " + K + ") >= " + std::to_string(parallel_threshold) + "LL)\n" : std::string()) +
                "for (int64_t dv = 0; dv < " + n + "; ++dv) {",
            false);
    em.line("double s = 0;");
    em.line("for (int64_t dk = 0; dk < " + K + "; ++dk) { const double v = " + (rows ? xat("dv", "dk") : yat("dv", "dk")) +
            "; s += v * v; }");
    em.line(out + "[dv] = (" + T + ")s;");
    em.close();
  };
  norms(xn, M, true);
  norms(yn, N, false);
  em.line("if (ein_stop(A, INT64_MAX)) return A->err->code;");
  em.line("const int64_t dnn = (" + N + " + " + tn + " - 1) / " + tn + ", dnt = ein_imul((" + M + " + 255LL) / 256LL, dnn);");
  if (par) em.line("const int dprev = dnt >= 2 ? A->rt->blas_threads(1) : 0;");
  em.open(std::string(par ? "#pragma omp parallel for schedule(dynamic, 1) if(dnt >= 2)\n" : "") +
              "for (int64_t dt_ = 0; dt_ < dnt; ++dt_) {",
          false);
  em.line(std::string("if (ein_stop(A, INT64_MAX)) ") + (par ? "continue;" : "break;"));
  em.line("const int64_t i0 = (dt_ / dnn) * 256LL, j0 = (dt_ % dnn) * " + tn + ";");
  em.line("const int64_t mi = " + M + " - i0 < 256LL ? " + M + " - i0 : 256LL, nj = " + N + " - j0 < " + tn + " ? " + N +
          " - j0 : " + tn + ";");
  em.line(T + "* ct = " + c.dest.base + " + ein_imul(i0, " + ldc + ") + j0;");
  em.line("A->rt->" + f + "gemm(" + (ta ? "1" : "0") + ", " + (tb ? "1" : "0") + ", mi, nj, " + K + ", -2, " +
          (ta ? "(" + xb + ") + i0" : "(" + xb + ") + ein_imul(i0, " + lda + ")") + ", " + lda + ", " +
          (tb ? "(" + yb + ") + ein_imul(j0, " + ldb + ")" : "(" + yb + ") + j0") + ", " + ldb + ", 0, ct, " + ldc + ");");
  em.open("for (int64_t ii = 0; ii < mi; ++ii) {", false);
  em.line(T + "* crow = ct + ein_imul(ii, " + ldc + ");");
  em.line("const " + T + " xi = " + xn + "[i0 + ii];");
  // One vectorised pass adds the norms; a point that cancels (or meets inf or NaN: the
  // comparison fails) is marked NaN and summed directly in a second pass, when there is one.
  em.line("int bad = 0;");
  em.open("#pragma omp simd reduction(|:bad)\nfor (int64_t jj = 0; jj < nj; ++jj) {", false);
  em.line("const " + T + " s = xi + " + yn + "[j0 + jj];");
  em.line("const " + T + " d = s + crow[jj];");
  // (An infinite s may hide a finite distance: |x|² past the type's range, x·y not.)
  em.line("const int ok = d >= (" + T + ")0.5 * s && s <= " + (dt == DType::F32 ? "__FLT_MAX__" : "__DBL_MAX__") + ";");
  em.line("bad |= !ok;");
  em.line("crow[jj] = ok ? d : (" + T + ")__builtin_nan(\"\");");
  em.close();
  em.open("if (bad) {", false);
  em.open("for (int64_t jj = 0; jj < nj; ++jj) {", false);
  em.open("if (crow[jj] != crow[jj]) {", false);
  em.line("double t = 0;");
  em.line("for (int64_t dk = 0; dk < " + K + "; ++dk) { const " + T + " u = " + xat("(i0 + ii)", "dk") + " - " +
          yat("(j0 + jj)", "dk") + "; t += (double)(" + T + ")(u * u); }");
  em.line("crow[jj] = (" + T + ")t;");
  em.close();
  em.close();
  em.close();
  em.close();
  em.close();
  if (par) em.line("if (dnt >= 2) A->rt->blas_threads(dprev);");
  em.line("if (ein_stop(A, INT64_MAX)) return A->err->code;");
  em.close();
  em.open("else {", true);
  emit_tiled(p, c);
  em.close();
  k.plan.push_back(std::string("distance: ") + ir::index_base(X.read)->name + ", " + ir::index_base(Y.read)->name +
                   " as |x|² + |y|² - 2 x·y (" + f + "gemm" + (ta ? " xᵀ" : "") + (tb ? " yᵀ" : "") +
                   ") in 256-row tiles, one BLAS thread each, norms added in cache; points under half of |x|² + |y|² "
                   "summed directly (when K ≥ 16 and 2^20 terms or more, else the tiles below)");
}

}  // namespace ein::codegen
