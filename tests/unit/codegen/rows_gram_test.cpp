// Three codegen rules of session 16 (perf helper), read from the kernel plan and source: guards
// that only bound a reduction variable become its loop's bounds (engine/codegen/reduce_bounds.cpp),
// and where they do not (a bound reading another variable of the reduction, a guard after a let
// that may fail); one packed copy for both sides of a Gram matrix of a computed operand, called
// as syrk (contract.cpp); argmax over a row in one pass of vector lanes (gen_reduce.cpp). Values:
// the goldens regressions/reduce_guard_bounds, gram_shared_pack, jit_argmax_one_pass.
// Session 17: a matrix times a computed vector as one GEMV (lang/passes/contraction.cpp
// computed_operands), and the einsum path's one-loop step without a break in its simd loop;
// values: regressions/gemv_computed_vector. Guards as bounds for a top-level reduction run by a
// thread team (gen_reduce.cpp reduce_parallel); values: regressions/reduce_guard_bounds_toplevel.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/codegen/plan_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using testing::any_kernel;
using testing::compile;
using testing::plan_always;

TEST(ReduceBounds, CausalAndBandGuardsBecomeLoopBounds) {
  auto c = compile(
      "let S[i in 0..64, j in 0..64] = ((i * 7 + j * 3) % 23) as f32 * 0.1 - 1.0;\n"
      "let m[i] = max[j](S[i, j] where j <= i);\n"
      "let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);\n"
      "let b[i] = sum[j](S[i, j] where j > i - 3 && i >= j);\n"
      "let a[i] = argmin[j](S[i, j] where j >= i);\n"
      "print(m[3], z[3], b[3], a[3]);\n");
  CellPlan p = plan_always(*c);
  for (const char* t : {"m", "z", "b", "a"}) EXPECT_TRUE(any_kernel(p, t, "guards as bounds")) << t;
  EXPECT_TRUE(any_kernel(p, "z", "#pragma omp simd reduction(+:", true)) << "the sum of exp vectorises without its test";
}

TEST(ReduceBounds, BoundsOnInnerVariablesOrAfterAFailingLetStayTests) {
  auto c = compile(
      "let X[i in 0..40, j in 0..40] = (i * 3 + j) % 7;\n"
      "let t[i in 0..40] = sum[j, k](X[j, k] where k <= j);\n"
      "let q[i] = sum[j](d where d = 100 / (X[i, j] + 1), j <= i);\n"
      "print(t[0], q[3]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_FALSE(any_kernel(p, "t", "guards as bounds")) << "k's bound reads j, a variable of the same reduction";
  EXPECT_FALSE(any_kernel(p, "q", "guards as bounds")) << "the let before the guard divides (may fail) at every point";
}

TEST(GramPack, BothSidesOfACentredGramMatrixShareOneCopy) {
  auto c = compile(
      "let X[s in 0..400, f in 0..64] = ((s * 7 + f * 3) % 17) as f64 * 0.1 - 0.8;\n"
      "let mu[f] = sum[s](X[s, f]) / 400.0;\n"
      "let C[f, g] = sum[s]((X[s, f] - mu[f]) * (X[s, g] - mu[g])) / 399.0;\n"
      "let D[f, g] = sum[s]((X[s, f] - mu[f]) * (X[s, g] + mu[g]));\n"
      "print(C[3, 5], D[3, 5]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "C", "reads the packed copy of operand 1"));
  EXPECT_TRUE(any_kernel(p, "C", "A->rt->dsyrk(", true));
  EXPECT_FALSE(any_kernel(p, "D", "reads the packed copy")) << "the second side differs";
}

TEST(ArgReduce, LongRowsTakeOnePassInLanes) {
  auto c = compile(
      "let X[i in 0..64, j in 0..1000] = ((i * 7 + j * 13) % 997) as f32;\n"
      "let a[i] = argmax[j](X[i, j]);\n"
      "let Y[i in 0..64, j in 0..10] = X[i, j];\n"
      "let b[i] = argmax[j](Y[i, j]);\n"
      "print(a[3], b[3]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "a", "[32]; int32_t", true)) << "32 lanes of values and their blocks";
  EXPECT_FALSE(any_kernel(p, "b", "[32]; int32_t", true)) << "a row of 10 keeps the one-pass loop";
}

TEST(ArgReduce, BlocksCompareInTwoVectorsAndRowsWithANaNTakeTheOnePassLoop) {
  auto c = compile(
      "let X[i in 0..64, j in 0..1000] = ((i * 7 + j * 13) % 997) as f32;\n"
      "let a[i] = argmin[j](X[i, j] * 2.0);\n"
      "let D[i in 0..64, j in 0..1000] = ((i * 7 + j * 13) % 997) as f64;\n"
      "let b[i] = argmax[j](D[i, j]);\n"
      "let K[i in 0..64, j in 0..1000] = (i * 7 + j * 13) % 997;\n"
      "let k[i] = argmax[j](K[i, j]);\n"
      "print(a[3], b[3], k[3]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "a", "typedef float r1VT __attribute__((vector_size(64)))", true));
  EXPECT_TRUE(any_kernel(p, "a", " < r1V0", true)) << "argmin: strictly smaller replaces";
  EXPECT_TRUE(any_kernel(p, "a", "r1N |= ", true)) << "a NaN is flagged";
  EXPECT_TRUE(any_kernel(p, "a", "if (r1g < 0 && r1c > 0) {", true)) << "and its row takes the one-pass loop";
  EXPECT_TRUE(any_kernel(p, "b", "typedef int64_t r1VI", true)) << "f64: blocks of 16 with 64-bit indices";
  EXPECT_TRUE(any_kernel(p, "k", "typedef i32 r1VT", true) || any_kernel(p, "k", "typedef int32_t r1VT", true));
  EXPECT_FALSE(any_kernel(p, "k", "r1N |= ", true)) << "integers have no NaN";
}

TEST(GemvComputedVector, ColumnSumsOfAMatrixTimesAComputedVectorAreOneGemv) {
  auto c = compile(
      "let X[n in 0..400, d in 0..37] = ((n * 7 + d * 3) % 17) as f32 * 0.1 - 0.8;\n"
      "let y[n in 0..400] = (n % 2) as f32;\n"
      "let p[n in 0..400] = (n % 5) as f32 * 0.2;\n"
      "let g[d] = sum[n](X[n, d] * (p[n] - y[n])) / 400.0;\n"
      "let h[d] = sum[n](X[n, d] * (p[n] - y[n]) * (d as f32));\n"
      "print(g[3], h[3]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "g", "sgemv(Xᵀ, pᵀ)"));
  EXPECT_TRUE(any_kernel(p, "g", "p packed into 1-axis scratch"));
  EXPECT_FALSE(any_kernel(p, "h", "sgemv(")) << "a factor over the free variable d is not a vector over n";
}

TEST(GemvComputedVector, AOneLoopEinsumStepChecksTheStopBeforeItsSimdLoop) {
  auto c = compile(
      "let X[n in 0..333, d in 0..13] = ((n * 5 + d * 11) % 19) as f64 * 0.25 - 2.0;\n"
      "let r[n in 0..333] = (n % 7) as f64 - 3.0;\n"
      "let q[n in 0..333] = (n % 5) as f64 * 0.5;\n"
      "let h[d] = sum[n](X[n, d] * r[n] * q[n]);\n"
      "print(h[3]);\n");
  CellPlan p = plan_always(*c);
  ASSERT_TRUE(any_kernel(p, "h", "contraction factorised"));
  for (auto& k : p.kernels)
    if (k.tensor && k.tensor->name == "h") {
      const size_t at = k.source.find("#pragma omp simd\n");
      ASSERT_NE(at, std::string::npos);
      const size_t brace = k.source.find('{', at);
      const size_t close = k.source.find('}', brace);
      EXPECT_EQ(k.source.substr(brace, close - brace).find("break"), std::string::npos) << k.source;
    }
}

TEST(ReduceBounds, TopLevelReductionsTakeTheirGuardsAsBounds) {
  auto c = compile(
      "let x[i in 0..100000] = ((i * 7) % 23) as f32 * 0.1 - 1.0;\n"
      "let n = 70000;\n"
      "let s = sum[i](x[i] where i >= 6 && i < n);\n"
      "let u = sum[i](x[i] where i >= 6 && i != 500);\n"
      "print(s, u);\n");
  CellPlan p = plan_always(*c);
  // A top-level `let` of a reduction is an Expr kernel (its statement is the Let).
  auto let_kernel = [&](const std::string& name) -> const codegen::Kernel* {
    for (auto& k : p.kernels)
      if (k.kind == codegen::KernelKind::Expr && k.stmt && k.stmt->kind == ir::Kind::Let &&
          ir::let_pattern(*k.stmt)->name == name)
        return &k;
    return nullptr;
  };
  auto has_plan = [](const codegen::Kernel* k, const std::string& text) {
    return k && std::any_of(k->plan.begin(), k->plan.end(), [&](const std::string& l) { return l.find(text) != std::string::npos; });
  };
  const codegen::Kernel* s = let_kernel("s");
  const codegen::Kernel* u = let_kernel("u");
  ASSERT_TRUE(s && u);
  EXPECT_TRUE(has_plan(s, "guards as bounds"));
  EXPECT_NE(s->source.find("#pragma omp simd reduction(+:"), std::string::npos) << "the team's shares vectorise without the test";
  EXPECT_FALSE(has_plan(u, "guards as bounds")) << "`i != 500` is no bound: the conjunction stays a test";
}

}  // namespace
}  // namespace ein
