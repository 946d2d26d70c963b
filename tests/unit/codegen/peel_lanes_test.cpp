// Two general rules of session 15, read from the kernel plan: an inline base case peeled into a
// clause of its own (lang/passes/base_peel), so the step of a matrix power by squaring is a
// GEMM; a point loop over a reduction with a run-time trip in vector lanes
// (engine/codegen/reduce_lanes.cpp), and where neither applies. Values: the golden tests
// regressions/recurrence_inline_base_peeled and regressions/jit_reduce_lanes.
#include <gtest/gtest.h>

#include "tests/unit/codegen/plan_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using codegen::Kernel;
using testing::any_kernel;
using testing::compile;
using testing::plan_always;

TEST(BasePeel, InlineBaseCaseOfAMatrixPowerLeavesAGemmStep) {
  auto c = compile(
      "let A[i in 0..64, j in 0..64] = ((i * 7 + j * 3) % 23) as f64 * 0.001;\n"
      "let P[t in 0..5, i in 0..64, j in 0..64] = if t == 0 { A[i, j] } else { sum[k](P[t - 1, i, k] * P[t - 1, k, j]) };\n"
      "print(P[4, 3, 5]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "P", "dgemm")) << "the step is a BLAS call";
}

TEST(BasePeel, BaseReadingTheTensorOrAMiddleIndexIsNotPeeled) {
  // A base case that reads the tensor stays a branch (its order in the time loop matters), and
  // so does a test at a point inside the range: the program is compiled as written.
  auto c = compile(
      "let x = [1.0, 2.0, 3.0, 4.0, 5.0];\n"
      "let e[t in 0..5] = if t == 0 { 1.0 } else if t == 4 { e[t - 1] * 2.0 } else { e[t - 1] + x[t] };\n"
      "let m[t in 0..5] = if t == 2 { 1.0 } else { x[t] };\n"
      "print(e, m);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  int peeled_e = 0, peeled_m = 0;
  for (auto& u : c->cx->units)
    if (u->lowered)
      ir::for_each_node(u->lowered, [&](const ir::NodeRef& n) {
        if (n->kind != ir::Kind::LTensor) return;
        size_t at = 0;
        for (; (at = n->aux.find("peeled", at)) != std::string::npos; ++at) (n->name == "e" ? peeled_e : peeled_m) += 1;
      });
  EXPECT_EQ(peeled_e, 1) << "t == 0 peeled, t == 4 (reads e) kept";
  EXPECT_EQ(peeled_m, 0) << "not a recurrence, and t == 2 is inside the range";
}

TEST(ReduceLanes, RunTimeTripWindowsRunInLanesRowSumsDoNot) {
  auto c = compile(
      "fn pool(X, k) {\n"
      "  let H = len(X);\n"
      "  let W = len(X[0]);\n"
      "  let R[r in 0..H, o in 0..W - k + 1] = sum[e in 0..k](X[r, o + e]);\n"
      "  let C[r in 0..H - k + 1, o in 0..W] = sum[e in 0..k](X[r + e, o]);\n"
      "  let S[r in 0..3, q in 0..H] = sum[e in 0..k](X[q, e]) * r as f32;\n"
      "  R[0, 0] + C[0, 0] + S[0, 0]\n"
      "}\n"
      "let X[i in 0..300, j in 0..400] = (i * 3 + j) as f32;\n"
      "print(pool(X, 3));\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "R", "lanes: sum"));
  EXPECT_TRUE(any_kernel(p, "C", "lanes: sum"));
  EXPECT_FALSE(any_kernel(p, "S", "lanes:")) << "a row sum vectorises along its own loop";
}

}  // namespace
}  // namespace ein
