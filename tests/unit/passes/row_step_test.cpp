// A call on a recurrence's own earlier row inlined into the step (lang/passes/row_step.cpp):
// the callee's scalar lets stay lets of a block in the step, its declarations without a
// reduction are substituted where read; the rules for when the call stays. Values: goldens
// regressions/row_inline_step_values and row_inline_step_grad (NumPy, central differences).
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/passes/row_test_util.h"

namespace ein::testing {
namespace {

using ir::Kind;

int named(Compiled& c, Kind kind, const std::string& name) {
  int n = 0;
  for (auto& k : cell_nodes(c, kind)) n += (kind == Kind::Let ? ir::let_pattern(*k)->name : k->name) == name;
  return n;
}

const char* kPrelude =
    "let g: [f64; 3] = [1.0, 2.0, 3.0];\n"
    "fn sm(v) { let m = max[k](v[k]); let e[k] = std::math::exp(v[k] - m); let s = sum[k](e[k]); "
    "let y[k] = e[k] / s; y }\n";

TEST(RowStep, PreviousRowCallBecomesABlockInTheStep) {
  auto c = compile(std::string(kPrelude) +
                   "let H[0, j] = g[j];\nlet H[t in 1..4, j in 0..3] = sm(H[t - 1])[j] + g[j];\nprint(H);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "sm"), 0);
  EXPECT_EQ(named(*c, Kind::Let, "m"), 1);  // computed once per step by the tiers' hoisting
  EXPECT_EQ(named(*c, Kind::Let, "s"), 1);
  EXPECT_EQ(named(*c, Kind::EinGroup, "e"), 0);  // substituted where read
  EXPECT_EQ(named(*c, Kind::EinGroup, "y"), 0);
  EXPECT_EQ(named(*c, Kind::EinGroup, "H"), 1);  // still one recurrence
  // The reductions got the row's extent as an explicit range (H has none while it is defined).
  for (auto& r : cell_nodes(*c, Kind::Reduce))
    for (const auto& sl : ir::reduce_slots(r)) EXPECT_EQ(sl->kind, Kind::IdxIn);
}

TEST(RowStep, LibraryCallsTwoStatesAndTwoRoundsAreInlined) {
  auto c = compile(std::string(kPrelude) +
                   "let X[t in 0..4, b in 0..2, j in 0..3] = (t + b + j) as f64 * 0.1;\n"
                   "let A[0, b, j] = X[0, b, j];\n"
                   "let A[t in 1..4, b in 0..2, j in 0..3] = std::ml::softmax(A[t - 1, b])[j] + X[t, b, j];\n"
                   "let L[0, j] = g[j];\n"
                   "let L[t in 1..4, j in 0..3] = std::ml::layer_normalization(L[t - 1], g, g, 0.00001, -1)[j];\n"
                   "print(A, L);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "softmax"), 0);
  EXPECT_EQ(calls_of(*c, "layer_normalization"), 0);
  EXPECT_EQ(calls_of(*c, "normalize_trailing"), 0);  // the second round, inside the block
}

TEST(RowStep, WhereItDoesNotApplyTheCallStays) {
  // A declaration of the callee holding a reduction (a product with a matrix: recomputed at
  // every read if substituted), a declaration used whole, and the recurrence's tensor inside a
  // subscript of the argument.
  auto c = compile(std::string(kPrelude) +
                   "let M: [f64; 3, 3] = [[1.0, 0.5, 0.0], [0.0, 1.0, 0.5], [0.5, 0.0, 1.0]];\n"
                   "fn mv(v, W) { let a[i] = sum[k](W[i, k] * v[k]); let y[i] = a[i] - max[k](a[k]); y }\n"
                   "fn whole(v) { let e[k] = v[k] * 2.0; let y[k] = e[k] / len(e) as f64; y }\n"
                   "let P[0, j] = g[j];\nlet P[t in 1..3, j in 0..3] = mv(P[t - 1], M)[j];\n"
                   "let Q[0, j] = g[j];\nlet Q[t in 1..3, j in 0..3] = whole(Q[t - 1])[j];\n"
                   "let R[0, j] = g[j];\nlet R[t in 1..3, j in 0..3] = sm(M[R[t - 1, 0] as i32 % 3])[j];\n"
                   "print(P, Q, R);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "mv"), 1);
  EXPECT_EQ(calls_of(*c, "sm"), 1);
}

}  // namespace
}  // namespace ein::testing
