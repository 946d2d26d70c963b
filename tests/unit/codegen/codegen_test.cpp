// engine/codegen: what the kernel plan decides for small programs — fusion, bounds-check
// elision, BLAS recognition, storage windows, tiering — read from the CellPlan and the
// generated text. Nothing is compiled here (tests/unit/jit compiles).
#include <gtest/gtest.h>

#include "engine/codegen/codegen.h"
#include "tests/unit/passes/pass_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using codegen::Kernel;
using codegen::PlanOptions;
using testing::compile;
using testing::occurrences;

PlanOptions mode(PlanOptions::Mode m) {
  PlanOptions o;
  o.mode = m;
  return o;
}

CellPlan plan(testing::Compiled& c, PlanOptions::Mode m = PlanOptions::Mode::Always) {
  EXPECT_TRUE(c.ok) << c.rendered();
  return codegen::plan_cell(*c.cx, mode(m));
}

const Kernel* kernel_for(const CellPlan& p, const std::string& tensor) {
  for (auto& k : p.kernels)
    if (k.kind == codegen::KernelKind::Clause && k.tensor->name == tensor) return &k;
  return nullptr;
}

bool has_plan_line(const Kernel& k, const std::string& text) {
  for (auto& l : k.plan)
    if (l.find(text) != std::string::npos) return true;
  return false;
}

std::vector<std::string> fused_names(const Kernel& k) {
  std::vector<std::string> out;
  for (auto& f : k.fused) out.push_back(f->name);
  return out;
}

// ---- fusion -----------------------------------------------------------------------------------

TEST(CodegenFusion, ElementwiseChainIsComputedInTheLastKernel) {
  auto c = compile(
      "let x[i in 0..100] = i as f32 * 0.5;\n"
      "let t[i] = x[i] * x[i];\n"
      "let y[i] = t[i] + 1.0;\n"
      "print(y[3]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  const Kernel* y = kernel_for(p, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(fused_names(*y), (std::vector<std::string>{"x", "t"}));
  EXPECT_EQ(p.elided.size(), 2u);
  EXPECT_EQ(kernel_for(p, "t"), nullptr);  // no kernel stores the intermediate
}

TEST(CodegenFusion, ObservedIntermediatesAreStored) {
  auto c = compile(
      "let x[i in 0..100] = i as f32;\n"
      "let t[i] = x[i] * 2.0;\n"
      "let y[i] = t[i] + 1.0;\n"
      "print(t[1], y[1]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  ASSERT_NE(kernel_for(p, "y"), nullptr);
  EXPECT_EQ(fused_names(*kernel_for(p, "y")), std::vector<std::string>{});
  EXPECT_NE(kernel_for(p, "t"), nullptr);
}

TEST(CodegenFusion, StencilAndReductionReadsAreNotFused) {
  // x[i - 1], x[i + 1]: each x element would be computed three times; sum[k] reads x[k] once
  // per output point. Both keep x stored.
  auto c = compile(
      "let x[i in 0..100] = i as f32;\n"
      "let d[i] = x[i + 1] - x[i - 1];\n"
      "let w[i in 0..100] = i as f32;\n"
      "let s[i in 0..10] = sum[k](w[k]) + i as f32;\n"
      "print(d[3], s[2]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  EXPECT_TRUE(p.elided.empty());
  EXPECT_NE(kernel_for(p, "x"), nullptr);
  EXPECT_NE(kernel_for(p, "w"), nullptr);
}

TEST(CodegenFusion, SessionCellsKeepGlobals) {
  // Without whole-program knowledge a later cell may read t, so it must be stored.
  auto c = compile("let x[i in 0..100] = i as f32;\nlet t[i] = x[i] * 2.0;\nlet y[i] = t[i] + 1.0;\n");
  CellPlan p = plan(*c);
  EXPECT_TRUE(p.elided.empty());
}

// A function's local producer: fused into its one point consumer; not when a closure of the
// function captures it (the closure reads it whole; the walk of the function's own body sees
// the read inside the lambda). fusion_plan walks the other units only for a global or a unit
// with captures (it walked every unit, for every unit with a candidate, on every statement).
size_t fusions_of(testing::Compiled& c, const std::string& prefix) {
  for (auto& u : c.cx->units)
    if (u->name.rfind(prefix, 0) == 0) return u->fusions.size();
  return 99;
}

TEST(CodegenFusion, FunctionLocalsFuseUnlessAClosureCapturesThem) {
  auto c = compile(
      "fn f(x) {\n"
      "  let t[i] = x[i] * 2.0;\n"
      "  let y[i] = t[i] + 1.0;\n"
      "  y\n"
      "}\n"
      "fn g(x) {\n"
      "  let t[i] = x[i] * 2.0;\n"
      "  let h = |j| t[j] * 3.0;\n"
      "  let y[i] = t[i] + h(i);\n"
      "  y\n"
      "}\n"
      "let x[i in 0..100] = i as f32;\n"
      "print(f(x)[3], g(x)[3]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  plan(*c);
  EXPECT_EQ(fusions_of(*c, "f("), 1u);
  EXPECT_EQ(fusions_of(*c, "g("), 0u);
}

// A row reduction read by one later statement at its outer loop variables is computed inside that
// statement's kernel, once per row (lang/passes/fusion_plan, engine/codegen/gen_rowbuf.cpp); when
// the consumer recomputes the reduction's term (a softmax's exp), the sum's loop stores each term
// into the output row and the row loop reads it back: one exp per point instead of two.
TEST(CodegenFusion, RowReductionsKeepTheirTermsInTheOutputRow) {
  auto c = compile(
      "let x[i in 0..64, j in 0..100] = (i + j) as f32 * 0.01;\n"
      "let m[i] = max[j](x[i, j]);\n"
      "let z[i] = sum[j](std::math::exp(x[i, j] - m[i]));\n"
      "let y[i, j] = std::math::exp(x[i, j] - m[i]) / z[i];\n"
      "print(y[1, 2]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  const Kernel* y = kernel_for(p, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(fused_names(*y), std::vector<std::string>{"z"});
  EXPECT_EQ(kernel_for(p, "z"), nullptr);
  EXPECT_NE(kernel_for(p, "m"), nullptr);  // read by two statements: stored
  // One exp call in the kernel, stored into the row, read back in the row loop.
  EXPECT_EQ(occurrences(y->source, "ein_expf("), 1u) << y->source;
  EXPECT_NE(y->source.find("= b0[ix"), std::string::npos) << y->source;
}

// A guarded row sum of cheap math (exp) selects the term or 0 in a vector loop, and a masked
// softmax keeps its terms: the term is read back only under `if` on the same guard.
TEST(CodegenFusion, MaskedRowSumsOfExpVectoriseAndKeepTheirTerms) {
  auto c = compile(
      "let x[i in 0..64, j in 0..100] = (i + j) as f32 * 0.01;\n"
      "let k[i in 0..64, j in 0..100] = (i * 3 + j) % 5;\n"
      "let z[i] = sum[j](std::math::exp(x[i, j]) where k[i, j] > 0);\n"
      "let y[i, j] = if k[i, j] > 0 { std::math::exp(x[i, j]) / z[i] } else { 0.0 };\n"
      "print(y[1, 2]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  const Kernel* y = kernel_for(p, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(fused_names(*y), std::vector<std::string>{"z"});
  EXPECT_NE(y->source.find("#pragma omp simd reduction(+:"), std::string::npos) << y->source;
  EXPECT_EQ(occurrences(y->source, "ein_expf("), 1u) << y->source;
}

TEST(CodegenFusion, RowReductionsStayStoredWhenReadOtherwise) {
  // z read at the inner variable (a column), inside a reduction, by two statements, or by a
  // recurrence (its loop runs in order: the sum would lose its threads): z stays a kernel.
  for (const char* use : {"let y[i, j] = x[i, j] / z[j];\n",
                          "let y[i] = sum[k](x[i, k] * z[k]);\n",
                          "let y[i, j] = x[i, j] / z[i];\nlet w[i] = z[i] + 1.0;\n",
                          "let y[i] = if i == 0 { z[0] } else { y[i - 1] * 0.5 + z[i] };\n"}) {
    auto c = compile(std::string("let x[i in 0..64, j in 0..64] = (i + j) as f32 * 0.01;\n"
                                 "let z[i] = sum[j](std::math::exp(x[i, j]));\n") +
                         use + "print(y[1]);\n",
                     {.whole_program = true});
    ASSERT_TRUE(c->ok) << c->rendered();
    CellPlan p = plan(*c);
    EXPECT_NE(kernel_for(p, "z"), nullptr) << use;
  }
}

// ---- bounds checks ----------------------------------------------------------------------------

TEST(CodegenBounds, InferredRangesNeedNoChecks) {
  auto c = compile("let x = [1.0, 2.0, 3.0];\nlet y[i] = x[i] * 2.0;\nlet z[i] = x[i + 1] - x[i];\n");
  CellPlan p = plan(*c);
  for (const char* name : {"y", "z"}) {
    const Kernel* k = kernel_for(p, name);
    ASSERT_NE(k, nullptr) << name;
    EXPECT_GE(k->accesses, 1);
    EXPECT_EQ(k->checked, 0) << name;
    EXPECT_EQ(k->source.find("EIN_E_BOUNDS, s"), std::string::npos) << k->source;  // no per-read check
  }
}

TEST(CodegenBounds, ExplicitRangesAreTestedOnceAtEntry) {
  // An explicit range is never narrowed, so the read is not proven; it is affine in a loop
  // whose bounds are known at entry: one test, then a fast and a checked version.
  // (The extent is a reduction's value, so shape analysis cannot prove it either.)
  auto c = compile("let x = [1.0, 2.0, 3.0];\nlet n = sum[k in 0..3](1);\nlet y[i in 0..n] = x[i] + 1.0;\n");
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, "y");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(has_plan_line(*k, "checked once at entry")) << k->source;
  EXPECT_EQ(k->checked, 0);
  EXPECT_NE(k->source.find("const bool pc"), std::string::npos);
}

TEST(CodegenBounds, GatheredIndicesAreScannedAtEntry) {
  // A subscript that is another tensor's value: one scan of the index tensor at entry finds its
  // extremes; the fast version reads unchecked, the checked version still reports E005.
  auto c = compile("let x = [1.0, 2.0, 3.0];\nlet ix = [2, 0, 5];\nlet y[i] = x[ix[i]];\n");
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, "y");
  ASSERT_NE(k, nullptr);
  EXPECT_TRUE(has_plan_line(*k, "scanned once at entry")) << k->source;
  EXPECT_EQ(k->checked, 0);
  EXPECT_NE(k->source.find("EIN_E_BOUNDS"), std::string::npos);
}

TEST(CodegenBounds, ComputedDataDependentIndicesAreCheckedPerRead) {
  auto c = compile("let x = [1.0, 2.0, 3.0];\nlet ix = [2, 0, 5];\nlet y[i] = x[ix[i] * 2];\n");
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, "y");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->checked, 1);
  EXPECT_NE(k->source.find("EIN_E_BOUNDS"), std::string::npos);
}

// ---- BLAS -------------------------------------------------------------------------------------

std::string strategy_of(const std::string& src, const std::string& tensor) {
  auto c = compile(src);
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, tensor);
  return k ? k->strategy : "<none>";
}

// Three factors whose cheapest order saves no multiply-adds: factorised only when a step is one
// BLAS call (x_b^T A y_b: X·A is a GEMM, then a row-wise dot), not for an elementwise triple.
TEST(CodegenContraction, BilinearFormIsFactorisedForItsGemm) {
  const char* src =
      "let X[b in 0..300, i in 0..40] = (b + i) as f64;\n"
      "let Y[b in 0..300, j in 0..50] = (b - j) as f64;\n"
      "let A[i in 0..40, j in 0..50] = (i * j) as f64;\n"
      "let s[b] = sum[i, j](X[b, i] * A[i, j] * Y[b, j]);\n"
      "let Z[b in 0..300, i in 0..40] = (b * i) as f64;\n"
      "let e[b] = sum[i](X[b, i] * Z[b, i] * X[b, i]);\n";
  auto c = compile(src);
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, "s");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->strategy, "einsum");
  EXPECT_TRUE(has_plan_line(*k, "1 of them as dgemm calls")) << k->source;
  const Kernel* e = kernel_for(p, "e");
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->strategy, "einsum");
}

const char* kMats =
    "let A[i in 0..3, j in 0..4] = (i + j) as f32;\n"
    "let B[i in 0..4, j in 0..2] = (i - j) as f32;\n"
    "let Bt[j in 0..2, i in 0..4] = (i - j) as f32;\n"
    "let At[j in 0..4, i in 0..3] = (i + j) as f32;\n"
    "let v[k in 0..4] = k as f32;\n";

TEST(CodegenBlas, MatrixProductsUpToTransposition) {
  std::string m = kMats;
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](A[i, k] * B[k, j]);", "C"), "gemm");
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](A[i, k] * Bt[j, k]);", "C"), "gemm");
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](At[k, i] * B[k, j]) * 0.5;", "C"), "gemm");
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](B[k, j] * A[i, k]) / 3.0;", "C"), "gemm");
}

TEST(CodegenBlas, MatrixVectorAndBatched) {
  std::string m = kMats;
  EXPECT_EQ(strategy_of(m + "let y[i] = sum[k](A[i, k] * v[k]);", "y"), "gemv");
  EXPECT_EQ(strategy_of(m + "let y[i] = sum[k](At[k, i] * v[k]);", "y"), "gemv");
  std::string b =
      "let Q[b in 0..2, i in 0..3, d in 0..4] = (b + i + d) as f64;\n"
      "let K[b in 0..2, j in 0..5, d in 0..4] = (b * j - d) as f64;\n";
  EXPECT_EQ(strategy_of(b + "let S[b, i, j] = sum[d](Q[b, i, d] * K[b, j, d]) * 0.125;", "S"), "batched-gemm");
}

// Plan lines of R's kernel for `let R[...] = contraction;` over an 8-wide g and a core T of `rank`.
std::vector<std::string> contraction_plan(int rank, const std::string& contraction, std::string* source) {
  std::string axes = "a in 0..n, b in 0..n, c in 0..n, d in 0..n";
  axes.resize(rank == 3 ? 31 : axes.size());
  auto c = compile("const n = 8;\nlet g[a in 0..n, i in 0..n] = (a - i) as f32;\nlet T[" + axes +
                   "] = (a + b * c) as f32;\nlet R" + contraction + ";\n");
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, "R");
  if (!k) return {};
  *source = k->source;
  return k->plan;
}

TEST(CodegenBlas, ModeProductChainsAreGemmCalls) {
  // The tensor rotation: one GEMM per factor, guarded, with the pairwise loops as fallback.
  std::string src;
  auto lines = contraction_plan(4, "[i, j, k, l] = sum[a, b, c, d](g[a, i] * g[b, j] * g[c, k] * g[d, l] * T[a, b, c, d])", &src);
  bool chain = false;
  for (auto& l : lines) chain = chain || l.find("4 mode products as sgemm") != std::string::npos;
  EXPECT_TRUE(chain) << src;
  // The chain's calls write with beta = 0 (the fallback's pairwise GEMM steps accumulate, beta = 1).
  size_t calls = 0;
  for (size_t at = 0; (at = src.find("A->rt->sgemm(1, ", at)) != std::string::npos; ++at) {
    std::string call = src.substr(at, src.find(';', at) - at);
    if (call.find(", 0, g") != std::string::npos || call.find(", 0, b0,") != std::string::npos) ++calls;
  }
  EXPECT_EQ(calls, 4u);
  // Not a chain (a factor pairs two summed indices): no mode products.
  lines = contraction_plan(3, "[i, k] = sum[a, b, c](g[a, b] * g[c, i] * g[b, k] * T[a, b, c])", &src);
  for (auto& l : lines) EXPECT_EQ(l.find("mode products"), std::string::npos) << l;
}

TEST(CodegenBlas, PairwiseStepsOfMatrixShapeAreGemmCalls) {
  // A chain whose middle factor is stored transposed is no mode-product chain, but each of its
  // two pairwise steps multiplies two matrices: both are GEMM calls (transposition flags).
  std::string src;
  auto lines = contraction_plan(2, "[i, j] = sum[k, l](g[i, k] * g[l, k] * g[l, j])", &src);
  bool said = false;
  for (auto& l : lines) said = said || l.find("2 of them as sgemm calls") != std::string::npos;
  EXPECT_TRUE(said) << src;
  size_t calls = 0;
  for (size_t at = 0; (at = src.find("A->rt->sgemm(", at)) != std::string::npos; ++at) ++calls;
  EXPECT_EQ(calls, 2u) << src;
  // A batch index shared by both operands of a step: no single GEMM for that step.
  lines = contraction_plan(3, "[b, i, j] = sum[k, l](T[b, i, k] * T[b, k, l] * T[b, l, j])", &src);
  for (auto& l : lines) EXPECT_EQ(l.find("as sgemm calls"), std::string::npos) << l;
}

TEST(CodegenBlas, OtherContractionsAreTiledOrLoops) {
  std::string m = kMats;
  // Not a pure product, integer elements: register-tiled kernels. A guard on the clause: the
  // GEMM runs for every point and the branch reads it; a guard inside the sum: ordinary loops.
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](A[i, k] * B[k, j] + 1.0);", "C"), "tiled");
  EXPECT_EQ(strategy_of("let P[i in 0..3, j in 0..3] = i + j;\nlet C[i, j] = sum[k](P[i, k] * P[k, j]);", "C"),
            "tiled");
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](A[i, k] * B[k, j]) where i != j;", "C"), "gemm");
  EXPECT_EQ(strategy_of(m + "let C[i, j] = sum[k](A[i, k] * B[k, j] where k != i);", "C"), "parallel");
}

// ---- storage windows --------------------------------------------------------------------------

TEST(CodegenWindow, RecurrenceObservedAtTheEndKeepsTwoRows) {
  auto c = compile(
      "const X = 64;\nconst T = 50;\n"
      "let u[0, x in 0..X] = x as f32;\n"
      "let u[t in 1..T, x in 0..X] = if x == 0 || x == X - 1 { 0.0 } else {\n"
      "  u[t - 1, x] + 0.25 * (u[t - 1, x - 1] - 2.0 * u[t - 1, x] + u[t - 1, x + 1]) };\n"
      "let last[x in 0..X] = u[T - 1, x];\nprint(last[3]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  int windowed = 0;
  for (auto& k : p.kernels)
    for (auto& b : k.bufs)
      if (b.windowed && b.window > 0) {
        ++windowed;
        EXPECT_EQ(b.window, 2);
        EXPECT_NE(k.source.find("% 2LL"), std::string::npos) << k.source;
      } else if (b.windowed) {
        // A later reader (`last`) sees the window only at run time.
        EXPECT_NE(k.source.find("% b"), std::string::npos) << k.source;
      }
  EXPECT_GE(windowed, 2);  // both clauses of u index rows modulo 2
  bool recurrence = false;
  for (auto& k : p.kernels) recurrence |= k.strategy == "recurrence";
  EXPECT_TRUE(recurrence);
}

TEST(CodegenWindow, PreviousStepIsCarriedInARegister) {
  // s[t - 1] is the value stored one step earlier: kept in a variable, not reloaded through the
  // circular buffer. A read two steps back still goes through memory.
  auto c = compile(
      "const N = 100000;\nlet a[t in 0..N] = (t % 7) as f64;\n"
      "let s[0] = a[0];\nlet s[1] = a[1];\nlet s[t in 2..N] = s[t - 1] * 0.5 + s[t - 2] + a[t];\n"
      "print(s[N - 1]);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  const Kernel* k = nullptr;
  for (auto& kk : p.kernels)
    if (kk.tensor && kk.tensor->name == "s" && has_plan_line(kk, "carried in a register")) k = &kk;
  ASSERT_NE(k, nullptr);
  EXPECT_NE(k->source.find(" % 3LL)]"), std::string::npos) << k->source;  // the window, for s[t - 2]
}

// ---- tiering and support ----------------------------------------------------------------------

TEST(CodegenTiering, AutoCompilesOnlyLargeOrUnknownSizes) {
  auto c = compile(
      "let small[i in 0..10] = i * 2;\n"
      "let big[i in 0..1000000] = i * 2;\n"
      "fn f(a) { let r[i] = a[i] + 1; r }\n"
      "print(small[1], big[1], f(small)[0]);\n");
  CellPlan p = plan(*c, PlanOptions::Mode::Auto);
  EXPECT_EQ(kernel_for(p, "small"), nullptr);
  EXPECT_NE(kernel_for(p, "big"), nullptr);
  bool deferred_r = false;
  for (auto& k : p.deferred) deferred_r |= k.tensor && k.tensor->name == "r";
  EXPECT_TRUE(deferred_r);
  CellPlan never = plan(*c, PlanOptions::Mode::Never);
  EXPECT_TRUE(never.kernels.empty() && never.deferred.empty());
}

TEST(CodegenTiering, ClausesOfOneTensorAreTieredTogether) {
  // The first row (4000 points) is below the threshold on its own, but the recurrence it starts
  // compiles, so it joins the kernel batch; a separate small tensor stays interpreted.
  auto c = compile(
      "let u[0, x in 0..4000] = x as f64;\n"
      "let u[t in 1..300, x in 0..4000] = u[t - 1, x] * 0.5;\n"
      "let small[i in 0..10] = i * 2;\n"
      "print(u[299, 1], small[1]);\n");
  CellPlan p = plan(*c, PlanOptions::Mode::Auto);
  int u_kernels = 0;
  for (auto& k : p.kernels) u_kernels += k.tensor && k.tensor->name == "u";
  EXPECT_EQ(u_kernels, 2);
  EXPECT_EQ(kernel_for(p, "small"), nullptr);
}

TEST(CodegenTiering, PointByPointClausesCompileSoonerThanWholeArrayOnes) {
  // 5000 points: a whole-array clause alone is not worth loading kernels for; a recurrence of
  // 5000 steps (interpreted point by point, ~8x the cost) is, and a 5000-point clause then joins
  // the cell's kernels; a 100-point clause stays interpreted either way.
  auto alone = compile("let x[i in 0..5000] = (i % 7) as f64;\nprint(x[3]);\n");
  CellPlan a = plan(*alone, PlanOptions::Mode::Auto);
  EXPECT_TRUE(a.kernels.empty());
  auto c = compile(
      "let x[i in 0..5000] = (i % 7) as f64;\n"
      "let tiny[i in 0..100] = i * 2;\n"
      "let s[t in 0..5000] = if t == 0 { x[0] } else { s[t - 1] * 0.5 + x[t] };\n"
      "print(s[4999], tiny[3]);\n");
  CellPlan p = plan(*c, PlanOptions::Mode::Auto);
  // The inline base case is a clause of its own (lang/passes/base_peel): the step's kernel is
  // the recurrence.
  const Kernel* s = nullptr;
  for (auto& k : p.kernels)
    if (k.kind == codegen::KernelKind::Clause && k.tensor->name == "s" && (!s || k.interp_cost > s->interp_cost)) s = &k;
  ASSERT_NE(s, nullptr);
  EXPECT_GT(s->interp_cost, 1);
  EXPECT_NE(describe(*c->cx, p, false).find("interpreted, each costs"), std::string::npos);
  EXPECT_NE(kernel_for(p, "x"), nullptr);
  EXPECT_EQ(kernel_for(p, "tiny"), nullptr);
}

TEST(CodegenTiering, MediumClausesCompileWhenTogetherWorthALoad) {
  // Eight 5000-point clauses: none reaches the threshold, together they do.
  std::string src = "let x[i in 0..5000] = (i % 7) as f64;\n";
  for (int j = 1; j < 8; ++j)
    src += "let x" + std::to_string(j) + "[i in 0..5000] = x[i] * " + std::to_string(j) + ".0;\n";
  src += "print(x7[3]);\n";
  auto c = compile(src);
  CellPlan p = plan(*c, PlanOptions::Mode::Auto);
  EXPECT_EQ(p.kernels.size(), 8u);
}

TEST(CodegenTiering, SegmentLoopsCompileByTheirSegmentsWork) {
  // The clauses inside a loop over segments have bounds that move with the segment number
  // (`1 + s .. min(T, 2 + s)`, `max(1, 3 s) .. min(T, 3 s + 3)`): their work is the segment's
  // length times the row, so auto mode compiles the loop kernel instead of interpreting the
  // steps (the heat gradient's forward loop with its tangent ran 10 s interpreted, 16 ms native).
  const std::string heat =
      "let T = 200;\nlet X = 4000;\nlet u0[i in 0..X] = i as f64 * 0.001;\nlet k: f64 = 0.2;\n"
      "let u[0, i in 0..X] = u0[i];\nlet u[t in 1..T, 0] = 0.0;\nlet u[t in 1..T, 3999] = 0.0;\n"
      "let u[t in 1..T, i in 1..X - 1] = u[t - 1, i] + k * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);\n"
      "let loss = sum[i](u[T - 1, i] * u[T - 1, i]);\n";
  for (int forced : {0, 3}) {
    auto c = compile(heat + "let g = @loss / @u0;\nlet gk = @loss / @k;\nprint(g[3], gk);\n",
                     {.whole_program = true, .ad_checkpoint = forced});
    CellPlan p = plan(*c, PlanOptions::Mode::Auto);
    size_t loops = 0;
    for (auto& k : p.kernels) loops += k.kind == codegen::KernelKind::Loop;
    EXPECT_GE(loops, 1u) << describe(*c->cx, p, false);
    for (auto& k : p.deferred) ADD_FAILURE() << "deferred: " << (k.tensor ? k.tensor->name : k.stmt->name);
  }
}

TEST(CodegenLoop, TangentStepsJamWithThePrimalsSteps) {
  // @loss/@k runs a forward tangent beside the primal (checkpoint_fuse.cpp); the tangent reads
  // `u` only at t - 1, so the loop kernel's two time loops become one nest storing both rows.
  auto c = compile(
      "let T = 50;\nlet X = 10000;\nlet u0[i in 0..X] = i as f64 * 0.01;\nlet k: f64 = 0.2;\n"
      "let u[0, i in 0..X] = u0[i];\nlet u[t in 1..T, 0] = 0.0;\nlet u[t in 1..T, 9999] = 0.0;\n"
      "let u[t in 1..T, i in 1..X - 1] = u[t - 1, i] + k * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);\n"
      "let loss = sum[i](u[T - 1, i] * u[T - 1, i]);\nlet gk = @loss / @k;\nprint(gk);\n",
      {.whole_program = true});
  CellPlan p = plan(*c);
  const Kernel* loop = nullptr;
  for (auto& k : p.kernels)
    if (k.kind == codegen::KernelKind::Loop) loop = &k;
  ASSERT_NE(loop, nullptr) << describe(*c->cx, p, false);
  ASSERT_EQ(loop->parts.size(), 1u) << describe(*c->cx, p, true);
  EXPECT_TRUE(has_plan_line(loop->parts[0], "jammed"));
  int bufs_written = 0;
  for (auto& b : loop->parts[0].bufs) bufs_written += b.output;
  EXPECT_EQ(bufs_written, 2);
}

TEST(CodegenVectorise, RowReductionsVectoriseAlongTheRow) {
  // A sum along the contiguous axis: the reduction's own loop carries `omp simd`, the point loop
  // around it does not (outer-loop simd would gather with a run-time stride, and GCC then
  // vectorises neither loop).
  auto c = compile(
      "let X[n in 0..200, c in 0..10] = ((n * 7 + c * 3) % 23) as f32 * 0.2;\n"
      "let r[n] = sum[c](X[n, c] * X[n, c]);\n"
      "print(r[1]);\n");
  CellPlan p = plan(*c);
  const Kernel* r = kernel_for(p, "r");
  ASSERT_NE(r, nullptr);
  EXPECT_NE(r->source.find("#pragma omp simd reduction(+"), std::string::npos) << r->source;
}

TEST(CodegenVectorise, RowArgmaxUnderABranchIsComputedOncePerRowBeforeTheRow) {
  // The argmax over a row of 10 values cannot fail and costs no more than the row loop it
  // leaves: it is computed before that loop (not memoised inside it behind a branch), and the
  // row loop keeps its simd hint. Over a range that may be empty it stays behind the branch.
  auto c = compile(
      "let X[n in 0..200, c in 0..10] = ((n * 7 + c * 3) % 23) as f32 * 0.2 - 2.0;\n"
      "let Y[n, c] = if X[n, c] > 0.0 { (c == argmax[k](X[n, k])) as f32 } else { 0.0 };\n"
      "fn f(Z, m: i32) { let W[n in 0..200, c in 0..10] = if Z[n, c] > 0.0 { argmax[k in 0..m](Z[n, k]) } "
      "else { 0 }; W }\n"
      "print(Y[3, 4], f(X, 0 + 3)[1, 1]);\n");
  CellPlan p = plan(*c);
  const Kernel* y = kernel_for(p, "Y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->source.find("memo"), std::string::npos) << y->source;
  EXPECT_NE(y->source.find("#pragma omp simd"), std::string::npos) << y->source;
  const Kernel* w = kernel_for(p, "W");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->source.find("memo"), std::string::npos) << w->source;
}

TEST(CodegenSupport, UnsupportedClausesStayInterpretedWithAReason) {
  auto c = compile(
      "fn fact(n: i32) -> i32 { if n <= 1 { 1 } else { n * fact(n - 1) } }\n"
      "let y[i in 0..4] = fact(i);\n"
      "let z[i in 0..4] = [i, i];\n");
  CellPlan p = plan(*c);
  EXPECT_EQ(kernel_for(p, "y"), nullptr);
  EXPECT_EQ(kernel_for(p, "z"), nullptr);
  ASSERT_GE(p.skipped.size(), 2u);
  for (auto& s : p.skipped) EXPECT_FALSE(s.reason.empty());
}

TEST(CodegenSupport, FunctionsWithExpressionBodiesAreInlined) {
  auto c = compile("fn sq(v: f32) -> f32 { v * v }\nlet x = [1.0, 2.0];\nlet y[i] = sq(x[i]) + 1.0;\n");
  CellPlan p = plan(*c);
  const Kernel* k = kernel_for(p, "y");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->source.find("sq"), std::string::npos);  // no call left
}

TEST(CodegenSupport, KernelTextUsesNoLibraryHeaders) {
  auto c = compile("let x = [1.0, 2.0];\nlet m = max[i](x[i]);\nlet y[i] = x[i] / m;\n");
  CellPlan p = plan(*c);
  ASSERT_FALSE(p.kernels.empty());
  for (auto& k : p.kernels) {
    EXPECT_EQ(k.source.find("#include"), std::string::npos);
    EXPECT_EQ(k.source.find("std::"), std::string::npos);
  }
  std::string prelude = codegen::prelude_text();
  EXPECT_NE(prelude.find("EIN_ABI_VERSION"), std::string::npos);
  EXPECT_EQ(prelude.find("#include <vector>"), std::string::npos);
}

// ---- loop kernels -------------------------------------------------------------------------------

TEST(CodegenLoop, CheckpointSegmentsRunAsOneKernelEach) {
  // A checkpointed gradient (spacing forced): the forward and the reverse loop over segments
  // become loop kernels calling their clauses; the clauses keep kernels of their own too.
  auto c = compile(
      "let T = 14;\nlet u0[i in 0..7] = i as f64 * 0.1;\nlet k: f64 = 0.2;\nlet u[0, i in 0..7] = u0[i];\n"
      "let u[t in 1..T, 0] = 0.0;\nlet u[t in 1..T, 6] = 0.0;\n"
      "let u[t in 1..T, i in 1..6] = u[t - 1, i] + k * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);\n"
      "let loss = sum[i](u[T - 1, i] * u[T - 1, i]);\nlet g = @loss / @u0;\nlet gk = @loss / @k;\nprint(gk, g[3]);\n",
      {.whole_program = true, .ad_checkpoint = 3});
  CellPlan p = plan(*c);
  std::vector<const Kernel*> loops;
  for (auto& k : p.kernels)
    if (k.kind == codegen::KernelKind::Loop) loops.push_back(&k);
  ASSERT_EQ(loops.size(), 2u);
  for (const Kernel* k : loops) {
    EXPECT_GE(k->parts.size(), 2u);
    size_t sites = 0;
    for (auto& part : k->parts) sites += part.sites.size();
    EXPECT_EQ(k->sites.size(), sites);  // a failing clause's site is found in the loop's table
    // The segment number is set by the driver, not bound from the frame.
    for (auto& s : k->scalars) EXPECT_NE(s.def, k->stmt->def);
    EXPECT_EQ(k->source.find("EIN_KERNEL("), k->source.rfind("EIN_KERNEL("));  // one entry point
  }
  EXPECT_TRUE(loops[1]->stmt->has(ir::kReverse));
  EXPECT_NE(kernel_for(p, "u_seg"), nullptr);
}

}  // namespace
}  // namespace ein
