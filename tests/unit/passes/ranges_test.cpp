// Range analysis (SPEC §5.2): where each index variable's [lo, hi) comes from. The facts are
// read from Unit::ranges after the whole pipeline, using the folded bounds shape analysis stores
// in RangeFact::lo_const / hi_const, so every expectation is a concrete number derived from the
// SPEC rules (plain use = whole axis, offsets narrow, explicit ranges are kept as written).
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

// Expects index `idx` of tensor `t` (clause `clause`) to have the constant range [lo, hi).
void expect_range(Compiled& c, const std::string& t, const std::string& idx, int64_t lo, int64_t hi,
                  int clause = 0) {
  const RangeFact* r = c.range(t, idx, clause);
  ASSERT_NE(r, nullptr) << "no range for " << t << "[" << idx << "]\n" << c.rendered();
  ASSERT_TRUE(r->lo_const.has_value()) << t << "[" << idx << "]: lower bound not folded";
  ASSERT_TRUE(r->hi_const.has_value()) << t << "[" << idx << "]: upper bound not folded";
  EXPECT_EQ(*r->lo_const, lo) << t << "[" << idx << "]";
  EXPECT_EQ(*r->hi_const, hi) << t << "[" << idx << "]";
}

TEST(Ranges, PlainUseSpansTheWholeAxis) {
  // A transpose: i runs over axis 1 of A (3), j over axis 0 (2).
  auto c = compile("let A = [[1, 2, 3], [4, 5, 6]];\nlet T[i, j] = A[j, i];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "T", "i", 0, 3);
  expect_range(*c, "T", "j", 0, 2);
  EXPECT_FALSE(c->range("T", "i")->is_explicit);
  EXPECT_EQ(c->shape_of("T"), (StaticShape{3, 2}));
}

TEST(Ranges, PlainUsesThatAgreeAreAccepted) {
  // i is used plainly on v (3) and on axis 0 of M (3): one range, no error, no runtime check left.
  auto c = compile("let v = [1, 2, 3];\nlet M = [[1, 0], [0, 1], [1, 1]];\n"
                   "let r[i, j] = v[i] * M[i, j];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "r", "i", 0, 3);
  expect_range(*c, "r", "j", 0, 2);
  EXPECT_TRUE(c->cell().agrees.empty()) << "shape analysis should have decided the agreement";
}

TEST(Ranges, ForwardOffsetNarrowsTheEnd) {
  // SPEC §5.2 example: on a 2x3 M, `M[i, j + 1]` keeps j in 0..2.
  auto c = compile("let M = [[1, 2, 3], [4, 5, 6]];\nlet d[i, j] = M[i, j + 1] - M[i, j];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "d", "i", 0, 2);
  expect_range(*c, "d", "j", 0, 2);
  EXPECT_EQ(c->shape_of("d"), (StaticShape{2, 2}));
}

TEST(Ranges, StencilStartsAboveZero) {
  // SPEC §5.2: `lap[i] = x[i-1] - 2x[i] + x[i+1]` gives i in 1..N-1 (N = 5); indices are
  // absolute, so the allocation still reaches N-1 = 4.
  auto c = compile("let x = [1.0, 4.0, 9.0, 16.0, 25.0];\n"
                   "let lap[i] = x[i - 1] - 2.0 * x[i] + x[i + 1];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "lap", "i", 1, 4);
  EXPECT_EQ(c->shape_of("lap"), (StaticShape{4}));
}

TEST(Ranges, ConvolutionOutputIndexFromTwoVariableOffset) {
  // `s[o + k]` with k over w: o in 0..len(s) - len(w) + 1 = 0..5 for 6 and 2.
  auto c = compile("let s = [1, 2, 3, 4, 5, 6];\nlet w = [1, -1];\n"
                   "let c[o] = sum[k](s[o + k] * w[k]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "c", "o", 0, 5);
  expect_range(*c, "c", "k", 0, 2);
}

TEST(Ranges, ConvolutionWithLongerKernel) {
  // Same rule with other numbers, so a hard-coded "len - 1" would fail: 7 - 3 + 1 = 5.
  auto c = compile("let s = [1, 2, 3, 4, 5, 6, 7];\nlet w = [1, 0, -1];\n"
                   "let c[o] = sum[k](s[o + k] * w[k]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "c", "o", 0, 5);
}

TEST(Ranges, WhereDerivedIndexNarrowsLikeAnOffset) {
  // `where p = o + k` is folded into the access signal[p]: 5 - 3 + 1 = 3 output points.
  auto c = compile("let signal = [1.0, 2.0, 3.0, 4.0, 5.0];\nlet kernel = [1.0, 0.0, -1.0];\n"
                   "let conv1[o] = sum[k](signal[p] * kernel[k]) where p = o + k;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "conv1", "o", 0, 3);
  expect_range(*c, "conv1", "k", 0, 3);
}

TEST(Ranges, TwoDimensionalWhereDerivedIndices) {
  // 3x4 image, 2x2 box: (3-2+1) x (4-2+1) = 2 x 3 outputs.
  auto c = compile("let img = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]];\n"
                   "let box = [[1, 1], [1, 1]];\n"
                   "let conv2[oh, ow] = sum[kh, kw](img[ih, iw] * box[kh, kw]) "
                   "where ih = oh + kh, iw = ow + kw;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "conv2", "oh", 0, 2);
  expect_range(*c, "conv2", "ow", 0, 3);
  EXPECT_EQ(c->shape_of("conv2"), (StaticShape{2, 3}));
}

TEST(Ranges, NegativeCoefficientReversesTheBounds) {
  // v[2 - i] on a length-5 v is in bounds for 2 - i in 0..4, i.e. i in -2..=2; never below 0.
  auto c = compile("let v = [10, 20, 30, 40, 50];\nlet r[i] = v[2 - i];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "r", "i", 0, 3);
}

TEST(Ranges, ExplicitRangeIsKeptAsWritten) {
  // x has 5 elements, but the explicit 1..4 is neither widened nor narrowed, and stays explicit.
  auto c = compile("let x = [1, 2, 3, 4, 5];\nlet e[i in 1..4] = x[i - 1] + x[i];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "e", "i", 1, 4);
  EXPECT_TRUE(c->range("e", "i")->is_explicit);
}

TEST(Ranges, InclusiveExplicitRangeAddsOne) {
  auto c = compile("let sq[i in 0..=4] = i * i;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "sq", "i", 0, 5);
}

TEST(Ranges, ExplicitRangeIsNotNarrowedByAnOffset) {
  // With an explicit range an offset access is not a range source: 0..3 with x[i + 1] on a
  // length-3 x stays 0..3 (and is a compile-time E005, checked in shapes_test).
  auto c = compile("let x = [1, 2, 3];\nlet bad[i in 0..3] = x[i + 1];\n");
  EXPECT_TRUE(c->has_code("E005")) << c->rendered();
  const RangeFact* r = c->range("bad", "i");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->hi_const, 3);
}

TEST(Ranges, RecurrenceSelfReadRaisesOnlyTheLowerBound) {
  // csum[t] reads csum[t - 1]: t starts at 1; its end still comes from data (8).
  auto c = compile("let data = [3, 1, 4, 1, 5, 9, 2, 6];\nlet csum[0] = data[0];\n"
                   "let csum[t] = csum[t - 1] + data[t];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_range(*c, "csum", "t", 1, 8, /*clause=*/1);
}

TEST(Ranges, SymbolicRangeOfANestedReduction) {
  // sum[k in 0..i + 1] depends on the outer index: the range exists but cannot be folded.
  auto c = compile("let tri[i in 0..5] = sum[k in 0..i + 1](k);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  const RangeFact* r = c->range("tri", "k");
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->is_explicit);
  EXPECT_EQ(r->lo_const, 0);
  EXPECT_FALSE(r->hi_const.has_value()) << "k's end depends on i";
}

TEST(Ranges, ReductionIndexOfATopLevelSum) {
  auto c = compile("let v = [1.0, 2.0, 3.0, 4.0];\nlet n = sum[i](v[i] * v[i]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  const RangeFact* r = c->let_range("n", "i");
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->lo_const, 0);
  EXPECT_EQ(r->hi_const, 4);
}

TEST(Ranges, DisagreeingPlainUsesAreE004WithBothSpans) {
  // A is 2x3 and B is 2x2: k is 3 by A[i, k] and 2 by B[k, j].
  auto c = compile("let A = [[1, 2, 3], [4, 5, 6]];\nlet B = [[1, 2], [3, 4]];\n"
                   "let C[i, j] = sum[k](A[i, k] * B[k, j]);\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
  ASSERT_EQ(d->secondary.size(), 1u) << c->rendered();
  std::set<std::string> texts{c->text_of(d->primary), c->text_of(d->secondary[0].span)};
  EXPECT_EQ(texts, (std::set<std::string>{"A[i, k]", "B[k, j]"}));
  // Each label says the extent that use gives.
  std::set<std::string> labels{d->primary_label, d->secondary[0].text};
  EXPECT_EQ(labels, (std::set<std::string>{"3 here", "2 here"}));
  EXPECT_NE(d->message.find("`k`"), std::string::npos) << d->message;
}

TEST(Ranges, OneErrorPerDisagreeingIndex) {
  // Both i and j disagree (2 vs 3, 3 vs 2): two independent errors, each reported once.
  auto c = compile("let A = [[1, 2, 3], [4, 5, 6]];\nlet B = [[1, 2], [3, 4], [5, 6]];\n"
                   "let S[i, j] = A[i, j] + B[i, j];\n");
  ASSERT_FALSE(c->ok);
  int e004 = 0;
  for (auto& code : c->codes()) e004 += code == "E004";
  EXPECT_EQ(e004, 2) << c->rendered();
}

TEST(Ranges, IndexWithoutRangeSourceIsE004WithHelp) {
  // k is only used as a value, never to index an array.
  auto c = compile("let v = [1, 2, 3];\nlet s = sum[k](k * 2);\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
  EXPECT_EQ(c->text_of(d->primary), "k");
  EXPECT_NE(d->help.find("k in "), std::string::npos) << "help should suggest `k in a..b`: " << d->help;
}

TEST(Ranges, DeclarationIndexWithoutRangeSource) {
  auto c = compile("let t[i] = i * 2;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->text_of(d->primary), "i");
}

TEST(Ranges, AccessesInBoundsByConstructionAreProven) {
  // Both M accesses of d follow from the inferred ranges; the explicit-range access of e does
  // not (explicit ranges are not derived from the access) and its extent is only known at run
  // time, so it is not proven. f's explicit range folds to 0..2, which shape analysis proves.
  auto c = compile("let M = [[1, 2, 3], [4, 5, 6]];\nlet d[i, j] = M[i, j + 1] - M[i, j];\n"
                   "let n = sum[k in 0..2](1);\nlet e[i in 0..n] = M[i, 0];\nlet f[i in 0..2] = M[i, 0];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto d_idx = nodes_of(c->stmt(ir::Kind::EinGroup, "d"), ir::Kind::Index);
  ASSERT_EQ(d_idx.size(), 2u);
  for (auto& n : d_idx) EXPECT_TRUE(c->cell().proven.count(n->id)) << c->text_of(n->span);
  auto e_idx = nodes_of(c->stmt(ir::Kind::EinGroup, "e"), ir::Kind::Index);
  ASSERT_EQ(e_idx.size(), 1u);
  EXPECT_FALSE(c->cell().proven.count(e_idx[0]->id));
  auto f_idx = nodes_of(c->stmt(ir::Kind::EinGroup, "f"), ir::Kind::Index);
  ASSERT_EQ(f_idx.size(), 1u);
  EXPECT_TRUE(c->cell().proven.count(f_idx[0]->id));
}

TEST(Ranges, RangesInsideFunctionSpecialisations) {
  // Ranges are per unit: inside a generic function the extent is the parameter's, symbolic.
  auto c = compile("fn shift(x) { let d[i] = x[i + 1] - x[i]; d }\nlet r = shift([1, 4, 9, 16]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ASSERT_GE(c->cx->units.size(), 2u);
  Unit& fn = *c->cx->units[1];
  bool found = false;
  for (auto& [def, fact] : fn.ranges) {
    if (c->resolver.info(def).name != "i") continue;
    found = true;
    EXPECT_EQ(fact.lo_const, 0);
    EXPECT_FALSE(fact.is_explicit);
    ASSERT_TRUE(fact.hi);
    // x's extent is not a compile-time constant inside the function: the end stays symbolic
    // and must mention the parameter.
    EXPECT_NE(ir::to_sexpr(fact.hi).find("DimOf"), std::string::npos) << ir::to_sexpr(fact.hi);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ein::testing
