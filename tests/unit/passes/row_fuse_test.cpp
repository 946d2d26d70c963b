// Row declarations fused into their consumer (lang/passes/row_fuse.cpp) and a recurrence step's
// per-step scratch row (row_hoist.cpp), on the lowered IR: which declarations become scalar
// lets, block-local arrays or substituted values, and when they stay stored. Values: goldens
// regressions/block_local_arrays, row_inline_values, row_inline_step_values (NumPy).
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

using ir::Kind;

// LTensors named `name` inside a store's value (block-local arrays), and those that are
// statements of a block outside every store (stored row declarations).
int local_in_store(Compiled& c, const std::string& name) {
  int n = 0;
  for (auto& s : nodes_of(c.cell().lowered, Kind::LStore))
    for (auto& t : nodes_of(ir::lstore_value(s), Kind::LTensor)) n += t->name == name;
  return n;
}
int stored(Compiled& c, const std::string& name) {
  int n = 0;
  for (auto& b : nodes_of(c.cell().lowered, Kind::Block))
    for (auto& k : b->kids) n += k && k->kind == Kind::LTensor && k->name == name;
  return n - local_in_store(c, name);
}
int lets_in_store(Compiled& c, const std::string& name) {
  int n = 0;
  for (auto& s : nodes_of(c.cell().lowered, Kind::LStore))
    for (auto& l : nodes_of(ir::lstore_value(s), Kind::Let)) n += ir::let_pattern(*l)->name == name;
  return n;
}

const char* kSoftmax =
    "let S[h in 0..2, i in 0..3, j in 0..5] = ((h * 5 + i * 7 + j * 3) % 11) as f32 * 0.2;\n"
    "let attn[h, i, j] = std::ml::softmax(S[h, i])[j];\nprint(attn);\n";

TEST(RowFuse, SoftmaxPerRowBecomesOneDeclarationWithARowArray) {
  auto c = compile(kSoftmax);
  ASSERT_TRUE(c->ok) << c->rendered();
  // max and sum per row: lets; exp per element read twice (the sum, the quotient): a row array;
  // the quotient read once: substituted into attn's value.
  EXPECT_EQ(stored(*c, "m") + stored(*c, "e") + stored(*c, "s") + stored(*c, "y"), 0);
  EXPECT_EQ(lets_in_store(*c, "m"), 1);
  EXPECT_EQ(lets_in_store(*c, "s"), 1);
  EXPECT_EQ(local_in_store(*c, "e"), 1);
  EXPECT_EQ(local_in_store(*c, "y"), 0);
}

TEST(RowFuse, NeverKeepsTheDeclarations) {
  CompileOpts o;
  o.row_fuse = 0;
  auto c = compile(kSoftmax, o);
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(stored(*c, "m") + stored(*c, "e") + stored(*c, "s"), 3);
  EXPECT_EQ(local_in_store(*c, "e"), 0);
}

TEST(RowFuse, DeclarationsReadOtherwiseStayStored) {
  // e is also read by the block's value, outside the consumer s.
  auto c = compile(
      "let S[i in 0..3, k in 0..5] = (i * 7 + k * 3) as f64 * 0.1;\n"
      "let z = { let e[i2, k] = S[i2, k] * 2.0; let s[i2] = sum[k](e[i2, k]); s[1] + e[2, 0] };\nprint(z);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(stored(*c, "e"), 1);
  EXPECT_EQ(stored(*c, "s"), 1);
}

const char* kStepMatvec =
    "let x[t in 0..4, j in 0..3] = (t * 3 + j) as f64 * 0.1;\n"
    "let W[k in 0..3, j in 0..3] = (k + 2 * j) as f64 * 0.1;\n"
    "let h[0, j] = x[0, j];\n"
    "let h[t in 1..4, j in 0..3] = sum[k](std::ml::softmax(h[t - 1])[k] * W[k, j]) + x[t, j];\nprint(h);\n";

TEST(RowFuse, RecurrenceStepGetsAPerStepRow) {
  auto c = compile(kStepMatvec);
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(local_in_store(*c, "row"), 1);
  // Without it the softmax stays substituted inside the sum over k (computed per j and k).
  CompileOpts o;
  o.row_fuse = 0;
  auto d = compile(kStepMatvec, o);
  ASSERT_TRUE(d->ok) << d->rendered();
  EXPECT_EQ(local_in_store(*d, "row"), 0);
}

TEST(RowFuse, NonRecurrentContractionsAreLeftToThePlanner) {
  // exp(A[i, k]) * B[k, j]: the contraction planner packs the computed operand for BLAS.
  auto c = compile(
      "let A[i in 0..3, k in 0..4] = (i + k) as f64 * 0.1;\nlet B[k in 0..4, j in 0..2] = (k - j) as f64;\n"
      "let C[i, j] = sum[k](std::math::exp(A[i, k]) * B[k, j]);\nprint(C);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(local_in_store(*c, "row"), 0);
}

}  // namespace
}  // namespace ein::testing
