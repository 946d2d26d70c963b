// No input to Session::execute may crash or throw: malformed commands, odd bytes, huge
// arguments. After each, the session still answers.
#include <gtest/gtest.h>

#include <random>

#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

void survives(TestSession& t, const std::string& input) {
  ExecuteResult r;
  EXPECT_NO_THROW(r = t.term(input)) << input;
  EXPECT_NO_THROW(r = t.rich(input)) << input;
}

TEST(CommandRobustness, MalformedArguments) {
  TempDir d;
  TestSession t;
  t.term("let v = [1.0, 2.0]; let m = [[1, 2], [3, 4]];");
  const char* commands[] = {"help", "who", "reset", "load", "ir", "time", "plot", "doc", "cache", "jit"};
  const std::string args[] = {"",          " ",        "\"",       "\"unterminated", "((((",
                              "}",         "%",        "%%who",    "?",              "::",
                              "std::",     "a::b::c",  "after=",   "after=ast",      "--out",
                              "--out=",    "title",    "as",       "as heatmap",     "v as",
                              "\t\n\n",    "\xff\xfe", "é ü 漢字", "v title \"a\\\"b\" --out /",
                              std::string(5000, '('), std::string(3000, 'x'),  d.path.string()};
  for (auto* c : commands)
    for (auto& a : args) {
      if (std::string(c) == "reset") continue;  // would forget v and m
      survives(t, std::string("%") + c + " " + a);
    }
  for (auto& a : args) {
    survives(t, "?" + a);
    survives(t, a + "?");
  }
  EXPECT_FALSE(t.term("%load " + d.path.string()).ok);
  EXPECT_NE(t.term("%load " + d.path.string()).error.find("is a directory"), std::string::npos);
  ExecuteResult r = t.term("v[1] + 1.0");
  ASSERT_TRUE(r.cell.value.has_value());
  EXPECT_EQ(format_value(*r.cell.value), "3.0");
}

TEST(CommandRobustness, RandomInputs) {
  // Inputs built from the characters commands care about; %timeit is left out because valid
  // code would make it measure for seconds.
  const std::string alphabet = "%?:;\"\\ \t\n{}[]()<>=+-*/.,_aeiostxv0123456789\xc3\xa9";
  const char* heads[] = {"%ir ", "%time ", "%plot ", "%doc ", "%load ", "%who", "%jit ", "?", "", "%"};
  std::mt19937 rng(12345);
  TestSession t;
  t.term("let v = [1.0, 2.0];");
  for (int i = 0; i < 400; ++i) {
    std::string s = heads[rng() % std::size(heads)];
    int n = static_cast<int>(rng() % 24);
    for (int k = 0; k < n; ++k) s += alphabet[rng() % alphabet.size()];
    survives(t, s);
    size_t start = 0;
    EXPECT_NO_THROW(t.s.complete(s, rng() % (s.size() + 2), &start)) << s;
    EXPECT_NO_THROW(t.s.is_complete_input(s)) << s;
  }
  EXPECT_TRUE(t.term("v").ok);
}

}  // namespace
}  // namespace ein::testing_commands
