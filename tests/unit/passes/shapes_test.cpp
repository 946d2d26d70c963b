// Shape analysis (SPEC §3 arrays, §5.2, §5.4): static extents of literals, Einstein results and
// piecewise definitions, and every error it must decide before anything runs: ragged literals,
// annotation extents, elementwise shape mismatches (E004) and provable out-of-bounds accesses
// (E005). Expected shapes are computed by hand from the programs.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

TEST(Shapes, LiteralsAndScalars) {
  auto c = compile("let a = [[1, 2, 3], [4, 5, 6]];\nlet s = 4;\nlet v = [1.5];\n"
                   "let z = [[[1], [2]], [[3], [4]], [[5], [6]]];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("a"), (StaticShape{2, 3}));
  EXPECT_EQ(c->shape_of("s"), (StaticShape{}));
  EXPECT_EQ(c->shape_of("v"), (StaticShape{1}));
  EXPECT_EQ(c->shape_of("z"), (StaticShape{3, 2, 1}));
}

TEST(Shapes, EinsteinResults) {
  // (2x3) @ (3x2) -> 2x2; transpose of 2x3 -> 3x2; outer product of 3 and 2 -> 3x2.
  auto c = compile("let A = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];\n"
                   "let B = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];\n"
                   "let C[i, j] = sum[k](A[i, k] * B[k, j]);\n"
                   "let At[i, j] = A[j, i];\n"
                   "let u = [1, 2, 3];\nlet w = [10, 20];\nlet o[i, j] = u[i] * w[j];\n"
                   "let t = sum[i, j](A[i, j]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("C"), (StaticShape{2, 2}));
  EXPECT_EQ(c->shape_of("At"), (StaticShape{3, 2}));
  EXPECT_EQ(c->shape_of("o"), (StaticShape{3, 2}));
  EXPECT_EQ(c->shape_of("t"), (StaticShape{}));
}

TEST(Shapes, ExplicitRangesGiveTheAllocation) {
  // Indices are absolute: 2..5 allocates 5 (points 0 and 1 stay 0).
  auto c = compile("let g[i in 0..2, j in 0..3] = 10 * i + j;\nlet h[i in 2..5] = i;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("g"), (StaticShape{2, 3}));
  EXPECT_EQ(c->shape_of("h"), (StaticShape{5}));
}

TEST(Shapes, PiecewiseAllocationIsThePerAxisMaximum) {
  // SPEC §5.4: frame's clauses cover [1,4], [3,1], [3,4] -> 3x4; sparse's literals 2 and 4 -> 5.
  auto c = compile("let frame[0, j in 0..4] = 1;\nlet frame[i in 1..3, 0] = 2;\n"
                   "let frame[i in 1..3, j in 1..4] = 3;\n"
                   "let sparse[2] = 7;\nlet sparse[4] = 9;\n"
                   "let edge[0] = 100;\nlet edge[i in 1..6] = i;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("frame"), (StaticShape{3, 4}));
  EXPECT_EQ(c->shape_of("sparse"), (StaticShape{5}));
  EXPECT_EQ(c->shape_of("edge"), (StaticShape{6}));
}

TEST(Shapes, ArrayValuedBodyAppendsAnElementAxis) {
  // SPEC §5.1: a non-scalar body gives an element shape after the declared axes.
  auto c = compile("let rows[i in 0..3] = [i, i * 2];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("rows"), (StaticShape{3, 2}));
}

TEST(Shapes, ElementwiseAndBroadcastResults) {
  auto c = compile("let F = [[1.0, 2.0], [3.0, 4.0]];\nlet a = F * 2.0;\nlet b = F + F;\n"
                   "let n = -F;\nlet r = F[1];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("a"), (StaticShape{2, 2}));
  EXPECT_EQ(c->shape_of("b"), (StaticShape{2, 2}));
  EXPECT_EQ(c->shape_of("n"), (StaticShape{2, 2}));
  EXPECT_EQ(c->shape_of("r"), (StaticShape{2}));
}

TEST(Shapes, ComprehensionLengthIsUnknown) {
  auto c = compile("let data = [5, -2, 7];\nlet p = [x | x in data, x > 0];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("p"), (StaticShape{-1}));
}

TEST(Shapes, RaggedLiteralIsE004OnTheShortRow) {
  auto c = compile("let ok = [1, 2];\nlet ragged = [[1, 2],\n  [3]];\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
  EXPECT_EQ(c->text_of(d->primary), "[3]");
  ASSERT_FALSE(d->secondary.empty());
  EXPECT_EQ(c->text_of(d->secondary[0].span), "[1, 2]");
}

TEST(Shapes, RaggedInnerAxisIsE004) {
  auto c = compile("let r = [[[1, 2], [3, 4]], [[5, 6], [7, 8, 9]]];\n");
  EXPECT_TRUE(c->has_code("E004")) << c->rendered();
}

TEST(Shapes, JaggedAnnotationAcceptsRaggedRows) {
  auto c = compile("let j: jagged[i32] = [[1, 2], [3]];\n");
  EXPECT_TRUE(c->ok) << c->rendered();
}

TEST(Shapes, AnnotationExtentMismatchIsE004) {
  auto c = compile("let m: [f32; 2, 2] = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 1);
}

TEST(Shapes, AnnotationWithUnknownExtentsAccepts) {
  auto c = compile("let m: [f32; ?, 3] = [[1.0, 2.0, 3.0]];\nlet a: [i32; *] = [[1], [2]];\n");
  EXPECT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(c->shape_of("m"), (StaticShape{1, 3}));
}

TEST(Shapes, ElementwiseShapeMismatchIsE004) {
  auto c = compile("let a = [1.0, 2.0];\nlet b = [1.0, 2.0, 3.0];\nlet s = a + b;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E004");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
}

TEST(Shapes, RankMismatchIsE004NotABroadcast) {
  // SPEC §4: different ranks are E004, never NumPy broadcasting.
  auto c = compile("let v = [1.0, 2.0];\nlet M = [[1.0, 2.0], [3.0, 4.0]];\nlet s = M + v;\n");
  ASSERT_FALSE(c->ok);
  EXPECT_TRUE(c->has_code("E004")) << c->rendered();
  EXPECT_FALSE(c->has_code("E002")) << c->rendered();
}

TEST(Shapes, ExplicitRangeOffsetOutOfBoundsIsCompileTimeE005) {
  // SPEC §5.2: an explicit range is never narrowed; j + 1 reaches 2 on an axis of extent 2.
  auto c = compile("let M = [[1, 2], [3, 4]];\nlet bad[i in 0..2, j in 0..2] = M[i, j + 1];\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E005");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
  EXPECT_EQ(c->text_of(d->primary), "j + 1");
}

TEST(Shapes, ExplicitRangeBelowZeroIsE005) {
  auto c = compile("let x = [1, 2, 3];\nlet bad[i in 0..3] = x[i - 1];\n");
  const Diagnostic* d = c->diag("E005");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->text_of(d->primary), "i - 1");
}

TEST(Shapes, ExplicitRangeInsideTheAxisIsAccepted) {
  // The same offset with a range that fits: 0..1 + 1 stays below 2.
  auto c = compile("let M = [[1, 2], [3, 4]];\nlet ok[i in 0..2, j in 0..1] = M[i, j + 1];\n");
  EXPECT_TRUE(c->ok) << c->rendered();
}

TEST(Shapes, ConstantIndexOutOfBoundsIsE005) {
  // The index folds to 5 (len 3 + 2) at compile time.
  auto c = compile("let v = [1, 2, 3];\nlet n = len(v) + 2;\nprint(v[n]);\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E005");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
}

TEST(Shapes, UndecidableAgreementBecomesARuntimeCheck) {
  // Inside a generic function the extents of a and b are unknown: the agreement of i stays as
  // an AgreeFact and lowering turns it into an LCheck (E004 at run time).
  auto c = compile("fn add(a, b) { let s[i] = a[i] + b[i]; s }\nlet r = add([1, 2], [3, 4]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ASSERT_GE(c->cx->units.size(), 2u);
  Unit& fn = *c->cx->units[1];
  EXPECT_EQ(fn.agrees.size(), 1u);
  auto checks = nodes_of(fn.lowered, ir::Kind::LCheck);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0]->name, "E004");
}

TEST(Shapes, CallSiteExtentsAreCheckedAtCompileTime) {
  // With literal arguments the callee's agreement is decided at the call: nothing runs.
  auto r = run_program("fn add(a, b) { let s[i] = a[i] + b[i]; s }\nprint(add([1, 2], [3, 4]));\n"
                       "print(add([1, 2], [3, 4, 5]));\n");
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.cell.ok);
  EXPECT_TRUE(r.cell.compile_error);
  ASSERT_FALSE(r.cell.diags.empty());
  EXPECT_EQ(r.cell.diags[0].code, "E004") << r.cell.rendered;
}

TEST(Shapes, RuntimeAgreementCheckFires) {
  // A comprehension with a guard has a data-dependent length: only the run can compare it.
  auto r = run_program("fn add(a, b) { let s[i] = a[i] + b[i]; s }\nprint(add([1, 2], [3, 4]));\n"
                       "let b = [x | x in [3, 4, 5], x > 0];\nprint(add([1, 2], b));\n");
  EXPECT_EQ(r.out, "[4, 6]\n");
  EXPECT_FALSE(r.cell.compile_error);
  ASSERT_FALSE(r.cell.ok);
  ASSERT_FALSE(r.cell.diags.empty());
  EXPECT_EQ(r.cell.diags[0].code, "E004") << r.cell.rendered;
}

}  // namespace
}  // namespace ein::testing
