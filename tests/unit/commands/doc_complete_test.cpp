// %doc / ?name / name? and Session::complete.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(CommandDoc, FunctionSignatureAndDocComment) {
  TestSession t;
  ASSERT_TRUE(t.term("// Scales a vector.\n// Returns k * v.\nfn scale(v: [f32], k: f32) -> [f32] { v * k }").ok);
  std::string expect = "fn scale(v: [f32], k: f32) -> [f32]\n    Scales a vector.\n    Returns k * v.\n";
  ExecuteResult d = t.term("%doc scale");
  ASSERT_TRUE(d.ok) << d.error;
  EXPECT_EQ(d.text.rfind(expect, 0), 0u) << d.text;
  EXPECT_NE(d.text.find("defined at cell[1]:3"), std::string::npos) << d.text;
  EXPECT_EQ(t.term("?scale").text, d.text);
  EXPECT_EQ(t.term("scale?").text, d.text);
  EXPECT_EQ(t.term("  ? scale ").text, d.text);
  EXPECT_TRUE(t.term("?scale").is_command);
}

TEST(CommandDoc, Builtins) {
  TestSession t;
  for (const char* b : {"print", "assert", "len", "shape", "typeof", "array_append", "sum", "max", "min", "prod"}) {
    ExecuteResult r = t.term(std::string("?") + b);
    ASSERT_TRUE(r.ok) << b << ": " << r.error;
    EXPECT_EQ(r.text.rfind(std::string(b) + "(", 0), 0u) << r.text;
    EXPECT_NE(r.text.find("\n    "), std::string::npos) << "has a doc line: " << r.text;
  }
  EXPECT_NE(t.term("?shape").text.find("-> [i32]"), std::string::npos);
}

TEST(CommandDoc, BindingsShowTypeAndDefinition) {
  TestSession t;
  t.term("let grid = [[1, 2], [3, 4]];");
  ExecuteResult r = t.term("%doc grid");
  ASSERT_TRUE(r.ok);
  EXPECT_EQ(r.text, "grid: [i32; 2, 2]\ndefined at cell[1]:1: let grid = [[1, 2], [3, 4]];\n");
}

TEST(CommandDoc, LibraryFunctionsNotImportedSayWhereTheyLive) {
  TestSession t;
  ExecuteResult r = t.term("?relu");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text.rfind("fn relu(x)", 0), 0u) << r.text;
  EXPECT_NE(r.text.find("not imported: `use std::ml::relu;`"), std::string::npos) << r.text;
  // Once imported, the help is the function's own, without the hint.
  ASSERT_TRUE(t.term("use std::ml::relu;").ok);
  EXPECT_EQ(t.term("?relu").text.find("not imported"), std::string::npos);
}

TEST(CommandDoc, UnknownNamesAreErrors) {
  TestSession t;
  ExecuteResult r = t.term("?nothing_here");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("`nothing_here` is not defined"), std::string::npos);
  // `x ?` style with something that is not a name is code, which fails to parse: no crash.
  EXPECT_FALSE(t.term("1 + ?").ok);
}

TEST(Completion, SessionNamesKeywordsBuiltins) {
  TestSession t;
  t.term("let alpha = 1; let alps = 2; fn alpine() { 3 }");
  size_t start = 99;
  auto c = t.s.complete("print(al", 8, &start);
  EXPECT_EQ(start, 6u);
  // Session names and the reduction name `all`, sorted.
  EXPECT_EQ(c, (std::vector<std::string>{"all", "alpha", "alpine", "alps"}));
  EXPECT_TRUE(contains(t.s.complete("le", 2, &start), "let"));
  EXPECT_TRUE(contains(t.s.complete("x = pri", 7, &start), "print"));
  EXPECT_TRUE(contains(t.s.complete("arr", 3, &start), "array_append"));
  EXPECT_TRUE(t.s.complete("zzz", 3, &start).empty());
  // The cursor, not the end of the text, ends the word.
  c = t.s.complete("alp + 1", 3, &start);
  EXPECT_EQ(start, 0u);
  EXPECT_TRUE(contains(c, "alpha"));
}

TEST(Completion, ModulePaths) {
  TempDir share, root;
  share.write("std/math.ein", "// Sine.\npub fn sin(x) { x }\npub fn sqrt(x) { x }\nfn secret(x) { x }\npub fn cos(x) { x }\n");
  share.write("std/ml/mod.ein", "pub fn relu(x) { x }\n");
  root.write("geometry.ein", "pub fn area(w, h) { w * h }\n");
  SessionOptions o;
  o.share_dir = share.path.string();
  o.root_dir = root.path.string();
  TestSession t(o);
  size_t start = 0;
  auto c = t.s.complete("let y = std::math::s", 20, &start);
  EXPECT_EQ(start, 8u);
  EXPECT_EQ(c, (std::vector<std::string>{"std::math::sin", "std::math::sqrt"}));
  c = t.s.complete("std::m", 6, &start);
  EXPECT_EQ(c, (std::vector<std::string>{"std::math", "std::ml"}));
  c = t.s.complete("geometry::", 10, &start);
  EXPECT_EQ(c, (std::vector<std::string>{"geometry::area"}));
  EXPECT_TRUE(contains(t.s.complete("st", 2, &start), "std"));
  EXPECT_TRUE(t.s.complete("nomodule::x", 11, &start).empty());
  ExecuteResult doc = t.term("%doc std::math");
  ASSERT_TRUE(doc.ok) << doc.error;
  EXPECT_EQ(doc.text, "module std::math\n    cos, sin, sqrt\n");
  ExecuteResult item = t.term("?std::math::sin");
  ASSERT_TRUE(item.ok) << item.error;
  EXPECT_EQ(item.text.rfind("fn sin(x)\n    Sine.\n", 0), 0u) << item.text;
}

TEST(Completion, CommandsAndTheirArguments) {
  TestSession t;
  size_t start = 9;
  auto c = t.s.complete("%ti", 3, &start);
  EXPECT_EQ(start, 0u);
  EXPECT_EQ(c, (std::vector<std::string>{"%time", "%timeit"}));
  c = t.s.complete("  %w", 4, &start);
  EXPECT_EQ(start, 2u);
  EXPECT_EQ(c, (std::vector<std::string>{"%who"}));
  EXPECT_EQ(t.s.complete("%jit a", 6, &start), (std::vector<std::string>{"always", "auto"}));
  EXPECT_EQ(t.s.complete("%ir lo", 6, &start), (std::vector<std::string>{"lowered"}));
  EXPECT_EQ(t.s.complete("%cache c", 8, &start), (std::vector<std::string>{"clear"}));
  t.term("let zeta = 1;");
  EXPECT_EQ(t.s.complete("%plot ze", 8, &start), (std::vector<std::string>{"zeta"}));
  // `%` inside code is the remainder operator, not a command.
  EXPECT_TRUE(t.s.complete("7 %ti", 5, &start).empty());
}

TEST(Completion, FilesForLoad) {
  TempDir d;
  d.write("prog_one.ein", "1");
  d.write("prog_two.ein", "2");
  TestSession t;
  std::string line = "%load " + d.path.string() + "/prog_o";
  size_t start = 0;
  auto c = t.s.complete(line, line.size(), &start);
  EXPECT_EQ(start, 6u);
  EXPECT_EQ(c, (std::vector<std::string>{d.path.string() + "/prog_one.ein"}));
}

}  // namespace
}  // namespace ein::testing_commands
