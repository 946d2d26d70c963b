// Decisions about kernels that passes make and %ir shows before any C++ is printed (issue 17):
// which pairwise step of a factorised contraction is one BLAS call (contraction_plan), and how
// each loop runs (loop_plan: unrolled, innermost/strip-mined/simd, the parallel threshold, a
// scalar carry). Each test also checks the values, which come from NumPy (comments), not ein.
#include <gtest/gtest.h>

#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

// contraction_plan decides per pairwise step whether its operands' layouts make it one GEMM or
// GEMV (PairStep::gemm); a step over a variable both operands keep (a batch) is loops. The
// kernel counts the same steps as BLAS calls.
TEST(CommandIrDecisions, PairwiseStepIsGemmGemvOrLoopsInTheIr) {
  TestSession t;
  ASSERT_TRUE(t.term("let A[i in 0..50, k in 0..40] = (i + k) as f64;").ok);
  ASSERT_TRUE(t.term("let B[k in 0..40, l in 0..30] = (k - l) as f64;").ok);
  ASSERT_TRUE(t.term("let x[l in 0..30] = l as f64;").ok);
  ASSERT_TRUE(t.term("let E[i in 0..3, l in 0..4, k in 0..5] = (i * l + k) as f64;").ok);
  ASSERT_TRUE(t.term("let F[i in 0..3, l in 0..4, j in 0..5] = (i + l * j) as f64;").ok);
  ASSERT_TRUE(t.term("let G[k in 0..5, j in 0..5] = (k + j) as f64;").ok);
  const std::string chain = "let y[i] = sum[k, l](A[i, k] * B[k, l] * x[l]);";
  ExecuteResult plan = t.term("%ir after=contraction_plan " + chain);
  ASSERT_TRUE(plan.ok) << plan.error << plan.cell.rendered;
  EXPECT_NE(plan.text.find("(1) = B·x over [l] as GEMV, (2) = A·(1) over [k] as GEMV"), std::string::npos)
      << plan.text;
  ExecuteResult k = t.term("%ir kernel " + chain);
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_NE(k.text.find("2 of them as dgemm calls"), std::string::npos) << k.text;
  const std::string batched = "let H[i, j] = sum[l, k, m](E[i, l, k] * F[i, l, m] * G[k, m] * x[j]);";
  ExecuteResult mixed = t.term("%ir " + batched);
  ASSERT_TRUE(mixed.ok) << mixed.error;
  EXPECT_NE(mixed.text.find("(1) = E·G over [k] as GEMM, (2) = (1)·F over [l,m], (3) = (2)·x over []"),
            std::string::npos)
      << mixed.text;
  // NumPy: (A @ B @ x)[1] = 2259100.0; einsum('ilk,ilm,km,j->ij')[1, 2] = 17400.0.
  ASSERT_TRUE(t.term(chain).ok);
  ASSERT_TRUE(t.term(batched).ok);
  EXPECT_EQ(format_value(*t.term("y[1]").cell.value), "2259100.0");
  EXPECT_EQ(format_value(*t.term("H[1, 2]").cell.value), "17400.0");
}

double number(TestSession& t, const std::string& expr) {
  ExecuteResult r = t.term(expr);
  EXPECT_TRUE(r.ok && r.cell.value.has_value()) << expr << ": " << r.error << r.cell.rendered;
  return r.ok && r.cell.value ? std::stod(format_value(*r.cell.value)) : 0.0;
}

// loop_plan: a sequential 1-D recurrence reading its previous step carries it in a register
// (and, when the step depends on nothing else, ends in a fill at a bit-exact fixed point); a
// clause's outer parallel loop opens threads from a work threshold; the loop inside it is
// innermost (strip-mined, simd); a loop of 3 known iterations is unrolled. %ir shows each on the
// loop's line; the kernel prints what the plan says.
TEST(CommandIrDecisions, LoopPlanIsShownBeforeTheKernel) {
  TestSession t;
  const std::string decay = "let x[0] = 1.0;\nlet x[t in 1..1000] = x[t - 1] * 0.999;\n";
  ExecuteResult plan = t.term("%ir after=loop_plan " + decay);
  ASSERT_TRUE(plan.ok) << plan.error << plan.cell.rendered;
  EXPECT_NE(plan.text.find("sequential, innermost (strip-mined), carries x[t - 1] in a register, ends in a fill at a fixed point"),
            std::string::npos)
      << plan.text;
  ExecuteResult k = t.term("%ir kernel " + decay);
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_NE(k.text.find("the previous step's value is carried in a register"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("the rest is a fill"), std::string::npos) << k.text;
  // The step reads t: carried, but no fixed point.
  const std::string driven = "let y[0] = 1.0;\nlet y[t in 1..1000] = y[t - 1] * 0.5 + t as f64;\n";
  ExecuteResult d = t.term("%ir " + driven);
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_NE(d.text.find("carries y[t - 1] in a register"), std::string::npos) << d.text;
  EXPECT_EQ(d.text.find("fixed point"), std::string::npos) << d.text;

  ASSERT_TRUE(t.term("let A[i in 0..500, j in 0..400] = (i * j % 7) as f32;").ok);
  ExecuteResult nest = t.term("%ir let W[i, j, k in 0..3] = A[i, j] * (k as f32);");
  ASSERT_TRUE(nest.ok) << nest.error;
  EXPECT_NE(nest.text.find("loop i: strategy=vectorized, parallel, threads when iterations x 1200 >= 1048576 points"),
            std::string::npos)
      << nest.text;
  EXPECT_NE(nest.text.find("loop j: parallel, innermost (strip-mined), simd"), std::string::npos) << nest.text;
  EXPECT_NE(nest.text.find("loop k: parallel, unrolled"), std::string::npos) << nest.text;
  ExecuteResult nk = t.term("%ir kernel let W[i, j, k in 0..3] = A[i, j] * (k as f32);");
  ASSERT_TRUE(nk.ok) << nk.error;
  EXPECT_NE(nk.text.find("* 1200.0 >= 1048576.0"), std::string::npos) << nk.text;
  EXPECT_NE(nk.text.find("#pragma omp simd"), std::string::npos) << nk.text;

  // NumPy, f32 like the literals: x *= float32(0.999) 999 times = 0.36806830763816833 (shown
  // with f32's digits); y[999] = 1996.0 (the loop in Python); A[3].sum() = 1197.0.
  ASSERT_TRUE(t.term(decay + driven + "let W[i, j, k in 0..3] = A[i, j] * (k as f32);").ok);
  EXPECT_NEAR(number(t, "x[999]"), 0.36806830763816833, 1e-7);
  EXPECT_EQ(number(t, "y[999]"), 1996.0);
  EXPECT_EQ(number(t, "sum[j](W[3, j, 1])"), 1197.0);
}

}  // namespace
}  // namespace ein::testing_commands
