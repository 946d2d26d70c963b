// Loop unswitching (engine/codegen/unswitch.cpp), read from the kernel plan: an `if` whose
// condition is fixed before the loops it sits in and whose branch calls something is decided
// once, one copy of the loops per outcome; one comparing the innermost loop's own variable with
// such a value splits that loop in two; conditions that read arrays, may fail, or only select
// between plain values stay branches. Values: the golden test regressions/unswitch_invariant_branch.
#include <gtest/gtest.h>

#include "tests/unit/codegen/plan_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using testing::any_kernel;
using testing::compile;
using testing::plan_always;

constexpr const char* kInputs =
    "let x[i in 0..64, j in 0..100] = (i + j) as f32 * 0.01 - 0.5;\n"
    "let k[i in 0..64, j in 0..100] = (i * 3 + j) % 5;\n"
    "let n = sum[i](k[i, 0]);\n";

TEST(Unswitch, BranchOnAnOuterVariableCallingMathIsDecidedPerRow) {
  auto c = compile(std::string(kInputs) +
                   "let P[i, j] = if i % 2 == 0 { std::math::exp(x[i, j]) } else { std::math::sqrt(std::math::abs(x[i, j])) };\n"
                   "print(P[1, 2]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "P", "unswitched"));
  EXPECT_TRUE(any_kernel(p, "P", "const bool us", true));
}

TEST(Unswitch, ArrayReadsFailingConditionsAndPlainSelectsStayBranches) {
  for (const char* stmt : {"let P[i, j] = if k[i, j] > 0 { std::math::exp(x[i, j]) } else { 0.0 };\n",
                           "let P[i, j] = if 10 / (n - 1) > 1 { std::math::exp(x[i, j]) } else { 0.0 };\n",
                           "let P[i, j] = if i % 2 == 0 { x[i, j] * 2.0 } else { x[i, j] };\n"}) {
    auto c = compile(std::string(kInputs) + stmt + "print(P[1, 2]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_FALSE(any_kernel(p, "P", "unswitched")) << stmt;
  }
}

TEST(Unswitch, CausalBranchOnTheLoopVariableSplitsTheLoop) {
  auto c = compile(std::string(kInputs) +
                   "let A[i, j] = if j <= i { std::math::exp(x[i, j]) } else { 0.0 };\n"
                   "let B[i, j] = if i < j { std::math::exp(x[i, j]) } else { 1.0 };\n"
                   "print(A[1, 2], B[1, 2]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "A", "split: the loop over `j`"));
  EXPECT_TRUE(any_kernel(p, "B", "split: the loop over `j`"));
}

TEST(Unswitch, NoSplitForArrayBoundsFailingBoundsOrPlainSelects) {
  for (const char* stmt : {"let P[i, j] = if j <= k[i, 0] { std::math::exp(x[i, j]) } else { 0.0 };\n",
                           "let P[i, j] = if j <= 10 / (n - 1) { std::math::exp(x[i, j]) } else { 0.0 };\n",
                           "let P[i, j] = if j <= i { x[i, j] } else { 0.0 };\n",
                           "let P[i, j] = if j as i64 <= 3 { std::math::exp(x[i, j]) } else { 0.0 };\n"}) {
    auto c = compile(std::string(kInputs) + stmt + "print(P[1, 2]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_FALSE(any_kernel(p, "P", "split:")) << stmt;
  }
}

}  // namespace
}  // namespace ein
