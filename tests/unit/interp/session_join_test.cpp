// Recurrences typed clause by clause across cells (SPEC §11), through the Session API that the
// REPL and the Jupyter kernel use: a definition that reads points it does not define joins the
// previous cell's indexed definition of its name; in every other case it is a fresh binding and
// an undefined read is E012. Expected values are worked by hand (x[t] = 0.5^t).
#include <gtest/gtest.h>

#include "tests/unit/interp/interp_fixture.h"

namespace ein::testing {
namespace {

TEST(SessionJoin, TwoLinesMakeOneRecurrence) {
  Sess s;
  s.run("let x[0] = 1.0;");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  s.run("let x[t in 1..8] = x[t - 1] * 0.5;");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.value_text("x"), "[1.0, 0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125]");
}

TEST(SessionJoin, ThreeLinesChain) {
  Sess s;
  s.run("let f[0] = 0;");
  s.run("let f[1] = f[0] + 1;");
  s.run("let f[n in 2..8] = f[n - 1] + f[n - 2];");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.value_text("f"), "[0, 1, 1, 2, 3, 5, 8, 13]");
}

TEST(SessionJoin, AClauseThatReadsNothingOfItsNameIsFresh) {
  // SPEC §11: only a definition reading points it does not define joins; `let f[1] = 1;` is a
  // new binding of f (f[0] of the first line is gone), so the recurrence misses f[0].
  Sess s;
  s.run("let f[0] = 0;");
  s.run("let f[1] = 1;");
  EXPECT_EQ(s.value_text("f"), "[0, 1]");
  s.run("let f[n in 2..8] = f[n - 1] + f[n - 2];");
  EXPECT_EQ(s.code(), "E012") << s.last.rendered;
}

TEST(SessionJoin, TheJoinedDefinitionIsANewBinding) {
  Sess s;
  s.run("let x[0] = 2.0;\nlet before = x;");
  s.run("let x[t in 1..3] = x[t - 1] * 2.0;");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.run("print(x, before);"), "[2.0, 4.0, 8.0] [2.0]\n");
}

TEST(SessionJoin, OnlyTheImmediatelyPrecedingCellJoins) {
  Sess s;
  s.run("let x[0] = 1.0;");
  s.run("print(x);");
  s.run("let x[t in 1..8] = x[t - 1] * 0.5;");
  EXPECT_EQ(s.code(), "E012");
  EXPECT_TRUE(s.last.compile_error);
  ASSERT_FALSE(s.last.diags.empty());
  EXPECT_NE(s.last.diags[0].help.find("cell right before"), std::string::npos) << s.last.rendered;
  EXPECT_EQ(s.value_text("x"), "[1.0]") << "a failed cell changes nothing";
}

TEST(SessionJoin, AFailedCompileInBetweenDoesNotCount) {
  // A cell that fails to compile changes nothing, so it is not "the previous cell" either.
  Sess s;
  s.run("let x[0] = 1.0;");
  s.run("let y = nope;");
  ASSERT_EQ(s.code(), "E003");
  s.run("let x[t in 1..3] = x[t - 1] + 1.0;");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.value_text("x"), "[1.0, 2.0, 3.0]");
}

TEST(SessionJoin, ACompleteDefinitionIsFresh) {
  Sess s;
  s.run("let x[i in 0..5] = i * 100;");
  s.run("let x[0] = 1; let x[t in 1..3] = x[t - 1] * 3;");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.value_text("x"), "[1, 3, 9]") << "no clause of the previous definition joined";
}

TEST(SessionJoin, ShadowedByAPlainLetDoesNotJoin) {
  Sess s;
  s.run("let x[0] = 1.0;\nlet x = 3.0;");
  s.run("let x[t in 1..4] = x[t - 1] * 0.5;");
  EXPECT_EQ(s.code(), "E012");
}

TEST(SessionJoin, TypeComesFromThePreviousClauses) {
  // On its own the new clause has no value to type x from; joined, x is an f64 recurrence.
  Sess s;
  s.run("let x[0]: f64 = 1.0;");
  if (!s.last.ok) s.run("let x[0] = 1.0 as f64;");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  s.run("let x[t in 1..3] = x[t - 1] + x[t - 1];");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.value_text("x"), "[1.0, 2.0, 4.0]");
  EXPECT_EQ(s.run("print(typeof(x));"), "[f64; 3]\n");
}

TEST(SessionJoin, TwoDimensionalTableByRowsOfCells) {
  Sess s;
  s.run("let H[0, j in 0..3] = j;");
  s.run("let H[i in 1..3, 0] = H[i - 1, 0] + 1;");
  s.run("let H[i in 1..3, j in 1..3] = H[i - 1, j] + H[i, j - 1];");
  ASSERT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.value_text("H"), "[[0, 1, 2], [1, 2, 4], [2, 4, 8]]");
}

TEST(SessionJoin, TheJoinedResultSurvivesIntoLaterCells) {
  Sess s;
  s.run("let x[0] = 1.0;");
  s.run("let x[t in 1..4] = x[t - 1] * 0.5;");
  EXPECT_EQ(s.run("print(x[3] * 8.0);"), "1.0\n");
}

}  // namespace
}  // namespace ein::testing
