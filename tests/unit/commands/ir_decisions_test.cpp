// Decisions about kernels that passes make and %ir shows before any C++ is printed (issue 17):
// which pairwise step of a factorised contraction is one BLAS call. Each test also checks the
// values, which come from NumPy (comments), not from ein.
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

}  // namespace
}  // namespace ein::testing_commands
