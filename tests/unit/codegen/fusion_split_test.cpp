// engine/codegen + lang/passes/fusion_plan: producers that guard_split cut into boxes are fused
// like one-clause producers (the last box's store, every guard kept, runs at each point), and
// only guard_split's boxes are: other piecewise definitions stay stored. Also the causal forms
// of the kept row terms (gen_rowbuf.cpp): a sum over a prefix range of the row. Read from the
// plan and the generated C++ (nothing compiled).
#include <gtest/gtest.h>

#include "tests/unit/codegen/plan_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using codegen::Kernel;
using testing::clause_kernel;
using testing::compile;
using testing::occurrences;
using testing::plan_always;

// The one clause kernel of `tensor`, computing `fused` inside it (null when it does not).
const Kernel* fused_kernel(const CellPlan& p, const std::string& tensor, const std::string& fused) {
  const Kernel* k = clause_kernel(p, tensor);
  EXPECT_NE(k, nullptr) << tensor;
  if (!k) return nullptr;
  EXPECT_EQ(k->fused.size(), 1u) << tensor;
  if (k->fused.size() != 1 || k->fused[0]->name != fused) return nullptr;
  return k;
}

// A causal softmax: z is cut where `j <= i` holds for every j, fused into A, and its exp terms
// are kept in A's row: one exp in the kernel (two before).
TEST(FusionSplit, CausalRowSumIsFusedAndComputesEachExpOnce) {
  auto c = compile(
      "let S[i in 0..64, j in 0..64] = (i * 7 + j * 3) as f32 * 0.01;\n"
      "let m[i] = max[j](S[i, j] where j <= i);\n"
      "let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);\n"
      "let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };\n"
      "print(A[1, 0]);\n",
      {.whole_program = true});
  CellPlan p = plan_always(*c);
  EXPECT_EQ(clause_kernel(p, "z"), nullptr);
  const Kernel* a = fused_kernel(p, "A", "z");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(occurrences(a->source, "ein_expf("), 1u) << a->source;
}

// In a function (run-time extents: guard_split does not cut, and the trips are unknown) the kept
// row sum read under `if j <= i` is still hoisted before the row: fused, one exp.
TEST(FusionSplit, CausalRowSumInAFunctionIsHoistedBeforeTheRow) {
  auto c = compile(
      "fn causal(S) {\n"
      "  let m[i] = max[j](S[i, j] where j <= i);\n"
      "  let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);\n"
      "  let A[i, j] = if j <= i { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };\n"
      "  A\n"
      "}\n"
      "let S[i in 0..64, j in 0..64] = (i * 7 + j * 3) as f32 * 0.01;\n"
      "print(causal(S)[1, 0]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_EQ(clause_kernel(p, "z"), nullptr);
  const Kernel* a = fused_kernel(p, "A", "z");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(occurrences(a->source, "ein_expf("), 2u) << a->source;  // the i32 and the wide copy of the sum
}

// Piecewise clauses written by the user are not guard_split's boxes: the row sum stays stored.
TEST(FusionSplit, PiecewiseRowSumsStayStored) {
  auto c = compile(
      "let S[i in 0..64, j in 0..64] = (i * 7 + j * 3) as f32 * 0.01;\n"
      "let z[i in 0..32] = sum[j](std::math::exp(S[i, j]));\n"
      "let z[i in 32..64] = sum[j](std::math::exp(S[i, j] * 2.0));\n"
      "let A[i, j] = std::math::exp(S[i, j]) / z[i];\n"
      "print(A[1, 0]);\n",
      {.whole_program = true});
  CellPlan p = plan_always(*c);
  EXPECT_NE(clause_kernel(p, "z"), nullptr);
  const Kernel* a = clause_kernel(p, "A");
  ASSERT_NE(a, nullptr);
  EXPECT_TRUE(a->fused.empty());
}

// A padded copy (an `if` on its own indices, cut into boxes) read at the point by an elementwise
// statement is computed inside it, its test kept.
TEST(FusionSplit, PaddedCopyCutByItsTestIsFusedAtThePoint) {
  auto c = compile(
      "let X[i in 0..16, j in 0..40] = (i + j) as f32;\n"
      "let P[i in 0..16, j in 0..46] = if j >= 2 && j < 42 { X[i, j - 2] } else { 0.0 };\n"
      "let Y[i, j] = P[i, j] * 2.0 + 1.0;\n"
      "print(Y[1, 0]);\n",
      {.whole_program = true});
  CellPlan p = plan_always(*c);
  EXPECT_EQ(clause_kernel(p, "P"), nullptr);
  EXPECT_NE(fused_kernel(p, "Y", "P"), nullptr);
}

// A causal row sum written as a range keeps its terms (stored only below the row's end) when the
// consumer reads them under `if j <= i`; under `if j <= i + 1` (past the range) it does not.
TEST(FusionSplit, PrefixRangeRowSumKeepsItsTermsUnderABranchBelowItsEnd) {
  for (const char* cond : {"j <= i", "j <= i + 1"}) {
    auto c = compile(std::string("let S[i in 0..64, j in 0..64] = (i * 7 + j * 3) as f32 * 0.01;\n"
                                 "let m[i] = max[j in 0..i + 1](S[i, j]);\n"
                                 "let z[i] = sum[j in 0..i + 1](std::math::exp(S[i, j] - m[i]));\n"
                                 "let A[i, j] = if ") +
                         cond + " { std::math::exp(S[i, j] - m[i]) / z[i] } else { 0.0 };\nprint(A[1, 0]);\n",
                     {.whole_program = true});
    CellPlan p = plan_always(*c);
    const Kernel* a = fused_kernel(p, "A", "z");
    ASSERT_NE(a, nullptr) << cond;
    const bool kept = std::string(cond) == "j <= i";
    EXPECT_EQ(occurrences(a->source, "ein_expf("), kept ? 1u : 2u) << cond << "\n" << a->source;
    EXPECT_EQ(a->source.find(" < 64LL) b0[") != std::string::npos, kept) << cond << "\n" << a->source;
  }
}

// A declaration guard (`.. where j <= i;`: the store under an `if`) keeps the row terms: its row
// loop stores 0 where the guard fails, so the whole row is written after the terms.
TEST(FusionSplit, DeclarationGuardRowKeepsItsTermsAndWritesZeros) {
  auto c = compile(
      "let S[i in 0..64, j in 0..64] = (i * 7 + j * 3) as f32 * 0.01;\n"
      "let m[i] = max[j](S[i, j] where j <= i);\n"
      "let z[i] = sum[j](std::math::exp(S[i, j] - m[i]) where j <= i);\n"
      "let A[i, j] = std::math::exp(S[i, j] - m[i]) / z[i] where j <= i;\n"
      "print(A[1, 0]);\n",
      {.whole_program = true});
  CellPlan p = plan_always(*c);
  const Kernel* a = fused_kernel(p, "A", "z");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(occurrences(a->source, "ein_expf("), 1u) << a->source;
  EXPECT_NE(a->source.find("] = 0x0p+0f;"), std::string::npos) << a->source;
}

}  // namespace
}  // namespace ein
