// Match exhaustiveness (SPEC §4): bool scrutinees must cover true and false exactly, tuples are
// checked component-wise, every other type needs a catch-all (wildcard, or a binding without a
// guard). A non-exhaustive match is rejected at compile time (this project: E002, naming the
// missing case — docs/language.md). Evaluation of the pattern forms is checked by running.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

// Compiles `let r = match <scrutinee> { <arms> };` after a prelude and returns the result.
std::unique_ptr<Compiled> match_prog(const std::string& prelude, const std::string& scrutinee,
                                     const std::string& arms) {
  return compile(prelude + "\nlet r = match " + scrutinee + " { " + arms + " };\n");
}

void expect_exhaustive(const std::unique_ptr<Compiled>& c) {
  EXPECT_TRUE(c->ok) << c->rendered();
}

// Expects the non-exhaustive error, and that its message names `missing`.
void expect_missing(const std::unique_ptr<Compiled>& c, const std::string& missing) {
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_NE(d->message.find("non-exhaustive"), std::string::npos) << d->message;
  EXPECT_NE(d->message.find("`" + missing + "`"), std::string::npos)
      << "expected the missing case " << missing << " in: " << d->message;
}

TEST(Match, BoolWithBothArmsIsExhaustive) {
  expect_exhaustive(match_prog("let b = 1 < 2;", "b", "true => 1, false => 0"));
  expect_exhaustive(match_prog("let b = 1 < 2;", "b", "true | false => 1"));
  expect_exhaustive(match_prog("let b = 1 < 2;", "b", "false => 0, _ => 1"));
}

TEST(Match, BoolMissingOneValue) {
  expect_missing(match_prog("let b = 1 < 2;", "b", "true => 1"), "false");
  expect_missing(match_prog("let b = 1 < 2;", "b", "false => 1"), "true");
}

TEST(Match, GuardedArmDoesNotCount) {
  // `x where x` could fail, so it covers nothing; false is still missing.
  expect_missing(match_prog("let b = 1 < 2;", "b", "x where x => 1, true => 2"), "false");
}

TEST(Match, TupleOfBoolsAllFourCases) {
  const char* pre = "let p = 1 < 2;\nlet q = 2 < 1;";
  expect_exhaustive(match_prog(pre, "(p, q)",
                               "(true, true) => 1, (true, false) => 2, (false, true) => 3, "
                               "(false, false) => 4"));
  expect_exhaustive(match_prog(pre, "(p, q)", "(true, _) => 1, (false, _) => 2"));
  expect_exhaustive(match_prog(pre, "(p, q)", "(true, true) => 1, _ => 2"));
}

TEST(Match, TupleMissingCaseIsNamed) {
  const char* pre = "let p = 1 < 2;\nlet q = 2 < 1;";
  expect_missing(match_prog(pre, "(p, q)",
                            "(true, true) => 1, (true, false) => 2, (false, false) => 4"),
                 "(false, true)");
  expect_missing(match_prog(pre, "(p, q)", "(_, true) => 1"), "(true, false)");
}

TEST(Match, IntegersNeedACatchAll) {
  expect_missing(match_prog("let n = 4;", "n", "0 => 1, 1 | 2 => 2, 3..=9 => 3"), "_");
  expect_exhaustive(match_prog("let n = 4;", "n", "0 => 1, _ => 2"));
  expect_exhaustive(match_prog("let n = 4;", "n", "0 => 1, m => m"));
}

TEST(Match, GuardedBindingIsNotACatchAll) {
  expect_missing(match_prog("let n = 4;", "n", "0 => 1, m where m > 9 => 2"), "_");
}

TEST(Match, StringsAndFloatsNeedACatchAll) {
  expect_missing(match_prog("let s = \"a\";", "s", "\"a\" => 1, \"b\" => 2"), "_");
  expect_exhaustive(match_prog("let s = \"a\";", "s", "\"a\" => 1, _ => 2"));
  expect_missing(match_prog("let f = 0.5;", "f", "0.5 => 1"), "_");
}

TEST(Match, MixedTupleNeedsCatchAllForTheIntComponent) {
  // (bool, i32): covering both bools with literal ints is not enough.
  expect_missing(match_prog("let b = true;\nlet n = 1;", "(b, n)", "(true, _) => 1, (false, 0) => 2"),
                 "(false, _)");
  expect_exhaustive(match_prog("let b = true;\nlet n = 1;", "(b, n)", "(true, _) => 1, (false, _) => 2"));
}

TEST(Match, CheckedInsideFunctionBodies) {
  auto c = compile("fn f(b) { match b { true => 1 } }\nlet r = f(1 < 2);\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 1);
}

TEST(Match, ErrorPointsAtTheScrutinee) {
  auto c = compile("let n = 3;\nlet r = match n {\n  0 => 1,\n  1 => 2,\n};\n");
  const Diagnostic* d = c->diag("E002");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
  EXPECT_EQ(c->text_of(d->primary), "n");
}

TEST(Match, PatternFormsEvaluate) {
  // One arm of each kind (SPEC §4): literal, or, inclusive range, binding with guard, wildcard,
  // negative literal, tuple with wildcards; arms are tried in order.
  auto r = run_program(
      "fn k(n) { match n { 0 => \"zero\", -1 => \"minus one\", 1 | 2 => \"small\", "
      "3..=9 => \"digit\", m where m > 99 => \"huge\", _ => \"other\" } }\n"
      "print(k(0), k(-1), k(2), k(3), k(9), k(10), k(100), k(-5));\n"
      "fn t(p) { match p { (0, _) => 1, (_, 0) => 2, (a, b) where a == b => 3, _ => 4 } }\n"
      "print(t((0, 0)), t((5, 0)), t((7, 7)), t((1, 2)));\n"
      "let x = 15;\nprint(match x { n where n % 2 == 0 => n / 2, n => 3 * n + 1 });\n");
  ASSERT_TRUE(r.cell.ok) << r.cell.rendered;
  EXPECT_EQ(r.out,
            "zero minus one small digit digit other huge other\n"
            "1 2 3 4\n"
            "46\n");
}

TEST(Match, ExclusiveRangePatternExcludesTheEnd) {
  auto r = run_program("fn k(n) { match n { 0..3 => \"low\", _ => \"high\" } }\nprint(k(2), k(3));\n");
  ASSERT_TRUE(r.cell.ok) << r.cell.rendered;
  EXPECT_EQ(r.out, "low high\n");
}

}  // namespace
}  // namespace ein::testing
