// %ir: stages, NAME versus CODE, the execution plan summary, and that nothing changes.
#include <gtest/gtest.h>

#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

constexpr const char* kRecurrence =
    "let x[0] = 1.0;\n"
    "let x[t in 1..10] = x[t - 1] * 0.5;\n";

TEST(CommandIr, LoweredIsTheDefaultAndShowsThePlan) {
  TestSession t;
  t.term("let A = [[1.0, 2.0], [3.0, 4.0]];");
  ExecuteResult r = t.term("%ir let C[i, j] = sum[k](A[i, k] * A[k, j]);");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_NE(r.text.find(";; execution plan"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find(";;   tensor C:"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("(LTensor C"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("strategy="), std::string::npos) << r.text;
  // Compiling for %ir defines nothing.
  EXPECT_FALSE(t.has("C"));
}

TEST(CommandIr, RecurrenceDecisionOfABinding) {
  TestSession t;
  ASSERT_TRUE(t.term(kRecurrence).ok);
  ExecuteResult r = t.term("%ir lowered x");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_EQ(r.text.rfind(";; x defined at cell[1]:1\n", 0), 0u) << r.text;
  EXPECT_NE(r.text.find("recurrence axis=0 lookback=1"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("loop t: recurrence axis=0 lookback=1"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("sequential"), std::string::npos) << r.text;
  // Both piecewise clauses are part of the definition.
  EXPECT_NE(r.text.find("(LStore x"), std::string::npos);
  EXPECT_NE(r.text.find("(FloatLit 1.0)"), std::string::npos);
}

TEST(CommandIr, StorageWindowIsShown) {
  // A session binding may be observed whole by a later cell, so only a local recurrence whose
  // last point alone is used gets a sliding window.
  TestSession t;
  ExecuteResult r = t.term(std::string("%ir lowered {\n") + kRecurrence + "x[9] }");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_NE(r.text.find("tensor x: window=2 on axis 0"), std::string::npos) << r.text;
}

TEST(CommandIr, EarlierStages) {
  TestSession t;
  t.term("let v = [1, 2, 3];");
  ExecuteResult ast = t.term("%ir ast v[0] + 1");
  ASSERT_TRUE(ast.ok);
  EXPECT_NE(ast.text.find("(Binary +"), std::string::npos) << ast.text;
  EXPECT_EQ(ast.text.find("#0:"), std::string::npos) << "no DefIds before resolution: " << ast.text;
  ExecuteResult res = t.term("%ir resolved v[0] + 1");
  ASSERT_TRUE(res.ok);
  EXPECT_NE(res.text.find("(Name v #"), std::string::npos) << res.text;
  ExecuteResult after = t.term("%ir after=type_inference v");
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_EQ(after.text.rfind(";; v defined at cell[1]:1", 0), 0u) << after.text;
  ExecuteResult bare = t.term("%ir range_analysis v[1]");
  ASSERT_TRUE(bare.ok) << bare.error;
  EXPECT_NE(bare.text.find("(Index"), std::string::npos);
}

TEST(CommandIr, DerivativeIrAfterAutodiff) {
  // Issue "autodiff": `%ir after=autodiff NAME` shows the derivative IR: the adjoint declarations
  // the request became, and no `@` node.
  TestSession t;
  ASSERT_TRUE(t.term("let x = [1.0, 2.0];").ok);
  ASSERT_TRUE(t.term("let y = sum[i](x[i] * x[i]);").ok);
  ASSERT_TRUE(t.term("let g = @y / @x;").ok);
  ExecuteResult r = t.term("%ir after=autodiff g");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_NE(r.text.find("d_x"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("(Diff"), std::string::npos) << r.text;
}

TEST(CommandIr, KernelStageIsOneBranch) {
  TestSession t;
  ExecuteResult r = t.term("%ir kernel let y[i in 0..4] = i * 2;");
  EXPECT_TRUE(r.ok);
  EXPECT_FALSE(r.text.empty());
  EXPECT_FALSE(t.has("y"));
}

// Producer/consumer fusion is decided by the fusion_plan pass and shown in the execution plan;
// the kernel stage prints the C++ made from that decision (the producer is not stored).
TEST(CommandIr, FusionDecisionIsShownBeforeTheKernel) {
  TestSession t;
  t.term("fn f(A) { let D[i, j] = A[i, j] * 2.0; let E[i, j] = D[i, j] + 1.0; E }");
  ExecuteResult r = t.term("%ir f([[1.0, 2.0], [3.0, 4.0]])");
  ASSERT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_NE(r.text.find(";;   fusion: D is computed inside the loops of E, not stored"), std::string::npos)
      << r.text;
  ExecuteResult after = t.term("%ir after=fusion_plan f([[1.0, 2.0], [3.0, 4.0]])");
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_NE(after.text.find("fusion: D"), std::string::npos) << after.text;
  ExecuteResult k = t.term("%ir kernel f([[1.0, 2.0], [3.0, 4.0]])");
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_NE(k.text.find("fused (not stored): D"), std::string::npos) << k.text;
  // A producer also read at another point is stored: no decision shown.
  t.term("fn g(A) { let D[i, j] = A[i, j] * 2.0; let E[i, j] = D[i, j] + D[0, j]; E }");
  ExecuteResult other = t.term("%ir g([[1.0, 2.0], [3.0, 4.0]])");
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_EQ(other.text.find("fusion:"), std::string::npos) << other.text;
  EXPECT_EQ(format_value(*t.term("f([[1.0, 2.0], [3.0, 4.0]])").cell.value), "[[3.0, 5.0], [7.0, 9.0]]");
}

TEST(CommandIr, FunctionsAreCompiledPerCall) {
  TestSession t;
  t.term("fn twice(a) { a * 2 }");
  ExecuteResult def = t.term("%ir twice");
  ASSERT_TRUE(def.ok) << def.error;
  EXPECT_NE(def.text.find("compiled per call signature"), std::string::npos) << def.text;
  ExecuteResult call = t.term("%ir twice(21)");
  ASSERT_TRUE(call.ok) << call.error;
  EXPECT_NE(call.text.find(";; twice"), std::string::npos) << call.text;
}

TEST(CommandIr, ErrorsAreReportedAndChangeNothing) {
  TestSession t;
  t.term("let keep = 1;");
  ExecuteResult bad_stage = t.term("%ir after=nosuchpass keep");
  EXPECT_FALSE(bad_stage.ok);
  EXPECT_NE(bad_stage.error.find("unknown pass `nosuchpass`"), std::string::npos);
  EXPECT_NE(bad_stage.error.find("frame_layout"), std::string::npos) << "lists the passes";
  ExecuteResult bad_code = t.term("%ir lowered keep + missing");
  EXPECT_FALSE(bad_code.ok);
  EXPECT_TRUE(bad_code.error.empty());
  EXPECT_NE(bad_code.cell.rendered.find("E003"), std::string::npos);
  EXPECT_FALSE(t.term("%ir lowered").ok);
  EXPECT_TRUE(t.has("keep"));
  EXPECT_EQ(format_value(*t.term("keep").cell.value), "1");
}

TEST(CommandIr, NotebookGetsPreformattedHtml) {
  TestSession t;
  ExecuteResult r = t.rich("%ir ast 1 + 2");
  ASSERT_TRUE(r.ok);
  const std::string* html = mime(r, "text/html");
  ASSERT_NE(html, nullptr);
  EXPECT_EQ(html->rfind("<pre>", 0), 0u);
  EXPECT_NE(mime(r, "text/plain"), nullptr);
}

// The order of a factorised contraction is decided once, by the contraction_plan pass: %ir shows
// it before the C++, and the kernel of a clause that is nothing but the sum prints those steps.
TEST(CommandIr, ContractionOrderIsThePlansInTheKernel) {
  TestSession t;
  // A is 2×40, B 40×30, C 30×50: (A·B)·C costs 2·40·30 + 2·30·50 = 5400 multiply-adds,
  // A·(B·C) 40·30·50 + 2·40·50 = 64000, point by point 2·40·30·50 = 120000.
  ASSERT_TRUE(t.term("let A[i in 0..2, k in 0..40] = (i + k) as f64;").ok);
  ASSERT_TRUE(t.term("let B[k in 0..40, l in 0..30] = (k - l) as f64;").ok);
  ASSERT_TRUE(t.term("let C[l in 0..30, j in 0..50] = (l * j) as f64;").ok);
  const std::string clause = "let D[i, j] = sum[k, l](A[i, k] * B[k, l] * C[l, j]);";
  const std::string path = "factorised into 2 pairwise steps (1) = A·B over [k] as GEMM, (2) = (1)·C over [l] as GEMM";
  ExecuteResult plan = t.term("%ir " + clause);
  ASSERT_TRUE(plan.ok) << plan.error << plan.cell.rendered;
  EXPECT_NE(plan.text.find(path), std::string::npos) << plan.text;
  EXPECT_NE(plan.text.find("cost 5400 instead of 120000"), std::string::npos) << plan.text;
  ExecuteResult k = t.term("%ir kernel " + clause);
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_NE(k.text.find("strategy=einsum"), std::string::npos) << k.text;
  EXPECT_NE(k.text.find("contraction " + path + " (the plan's order), cost 5400 instead of 120000"),
            std::string::npos)
      << k.text;
}

// Cache blocking of a nest that reads an operand transposed is decided by the tile_plan pass:
// %ir shows it on the loop's line, the kernel prints it, and a small nest (fits in cache) or one
// without a transposed read is not tiled.
TEST(CommandIr, TilingIsDecidedByThePassAndShownBeforeTheKernel) {
  TestSession t;
  ASSERT_TRUE(t.term("let A[i in 0..300, j in 0..300] = (i * 300 + j) as f32;").ok);
  ASSERT_TRUE(t.term("let a[i in 0..100, j in 0..100] = (i * 100 + j) as f32;").ok);
  ExecuteResult plan = t.term("%ir after=tile_plan let S[i, j] = A[i, j] + A[j, i];");
  ASSERT_TRUE(plan.ok) << plan.error << plan.cell.rendered;
  EXPECT_NE(plan.text.find("tiled=64x64 (A read transposed)"), std::string::npos) << plan.text;
  ExecuteResult k = t.term("%ir kernel let S[i, j] = A[i, j] + A[j, i];");
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_NE(k.text.find("transposed read of A: the nest walks 64 x 64 cache blocks (tile_plan)"), std::string::npos)
      << k.text;
  ExecuteResult small = t.term("%ir let s[i, j] = a[i, j] + a[j, i];");
  ASSERT_TRUE(small.ok) << small.error;
  EXPECT_EQ(small.text.find("tiled="), std::string::npos) << small.text;
  ExecuteResult straight = t.term("%ir let R[i, j] = A[i, j] * 2.0;");
  ASSERT_TRUE(straight.ok) << straight.error;
  EXPECT_EQ(straight.text.find("tiled="), std::string::npos) << straight.text;
  // The values are the plain nest's: S[1, 2] = A[1, 2] + A[2, 1] = 302 + 601.
  ASSERT_TRUE(t.term("let S[i, j] = A[i, j] + A[j, i];").ok);
  EXPECT_EQ(format_value(*t.term("S[1, 2]").cell.value), "903.0");
}

// A chain of mode products (the tensor rotation) is recognised by the contraction_plan pass and
// shown by %ir; the kernel puts one GEMM per mode in front of the plan's pairwise steps.
TEST(CommandIr, ModeProductChainIsThePlans) {
  TestSession t;
  ASSERT_TRUE(t.term("let g[a in 0..6, i in 0..6] = (a * 3 + i) as f64 * 0.1;").ok);
  ASSERT_TRUE(t.term("let T[a in 0..6, b in 0..6, c in 0..6, d in 0..6] = (a + 2 * b + 3 * c + d) as f64;").ok);
  const std::string clause = "let R[i, j, k, l] = sum[a, b, c, d](g[a, i] * g[b, j] * g[c, k] * g[d, l] * T[a, b, c, d]);";
  ExecuteResult plan = t.term("%ir " + clause);
  ASSERT_TRUE(plan.ok) << plan.error << plan.cell.rendered;
  EXPECT_NE(plan.text.find("first tried as 4 mode products of T (one GEMM each"), std::string::npos) << plan.text;
  ExecuteResult k = t.term("%ir kernel " + clause);
  ASSERT_TRUE(k.ok) << k.error;
  EXPECT_NE(k.text.find("BLAS: 4 mode products as dgemm calls"), std::string::npos) << k.text;
  // A factor paired with the wrong output axis (g[b, k] under axis j) is no chain.
  ExecuteResult other = t.term("%ir let Q[i, j, k, l] = sum[a, b, c, d](g[a, i] * g[b, k] * g[c, j] * g[d, l] * T[a, b, c, d]);");
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_EQ(other.text.find("mode products"), std::string::npos) << other.text;
  // R[1, 2, 3, 4] = sum g[a,1] g[b,2] g[c,3] g[d,4] (a + 2b + 3c + d), by hand in NumPy: 29863.6065.
  ASSERT_TRUE(t.term(clause).ok);
  EXPECT_EQ(format_value(*t.term("R[1, 2, 3, 4]").cell.value), "29863.606499999965");
}

}  // namespace
}  // namespace ein::testing_commands
