// Syntax errors: messages, spans, recovery without cascades, and completeness for the REPL.
#include <gtest/gtest.h>

#include "lang/syntax/parser.h"

namespace ein {
namespace {

struct Parsed {
  SourceMap sm;
  uint32_t id = 0;
  ParseResult r;
  int line(size_t i) const { return sm.start(r.diags.at(i).primary).line; }
  int col(size_t i) const { return sm.start(r.diags.at(i).primary).col; }
  const std::string& msg(size_t i) const { return r.diags.at(i).message; }
};

std::unique_ptr<Parsed> parse(const std::string& src) {
  auto p = std::make_unique<Parsed>();
  p->id = p->sm.add("t", src);
  p->r = parse_program(p->sm, p->id);
  for (const auto& d : p->r.diags) EXPECT_EQ(d.code, "E001") << d.message;
  return p;
}

std::string all_messages(const Parsed& p) {
  std::string s;
  for (const auto& d : p.r.diags) s += d.message + "\n";
  return s;
}

TEST(ParseErrors, MissingSemicolonReportsAtNextLine) {
  auto p = parse("let x = 1\nprint(x);\n");  // conformance errors/e01_syntax.ein
  ASSERT_EQ(p->r.diags.size(), 1u) << all_messages(*p);
  EXPECT_EQ(p->msg(0), "expected `;`, found `print`");
  EXPECT_EQ(p->line(0), 2);
  EXPECT_EQ(p->col(0), 1);
  EXPECT_FALSE(p->r.incomplete);
  // Recovery keeps both statements.
  ASSERT_EQ(p->r.program->size(), 2u);
  EXPECT_EQ(p->r.program->kids[0]->kind, ir::Kind::Let);
  EXPECT_EQ(p->r.program->kids[1]->kind, ir::Kind::ExprStmt);
}

TEST(ParseErrors, UnbalancedParenthesis) {
  auto p = parse("let x = [1.0, 2.0];\nlet y = (x[0] + x[1];\n");  // errors/e19_unbalanced.ein
  ASSERT_EQ(p->r.diags.size(), 1u) << all_messages(*p);
  EXPECT_EQ(p->line(0), 2);
  EXPECT_EQ(p->col(0), 21);
  const Diagnostic& d = p->r.diags[0];
  ASSERT_EQ(d.secondary.size(), 1u);
  EXPECT_EQ(d.secondary[0].text, "unclosed delimiter");
  EXPECT_EQ(p->sm.start(d.secondary[0].span).col, 9);
  EXPECT_EQ(p->r.program->kids[1]->kind, ir::Kind::Error);
}

TEST(ParseErrors, IndependentErrorsAreAllReported) {
  auto p = parse(
      "let a = f(1, 2;\n"
      "let b = 2;\n"
      "fn g(x) {\n"
      "  let y = x +* 2;\n"
      "  y\n"
      "}\n"
      "let c = [1, 2 3];\n"
      "print(a, b, c);\n"
      "let d = 1 }\n"
      "let e = 5 6;\n"
      "let ok = 7;\n");
  ASSERT_EQ(p->r.diags.size(), 5u) << all_messages(*p);
  EXPECT_EQ(p->line(0), 1);
  EXPECT_EQ(p->line(1), 4);
  EXPECT_EQ(p->msg(1), "expected expression, found `*`");
  EXPECT_EQ(p->line(2), 7);
  EXPECT_EQ(p->msg(2), "expected `,` or `]`, found `3`");
  EXPECT_EQ(p->line(3), 9);
  EXPECT_EQ(p->msg(3), "unexpected closing delimiter `}`");
  EXPECT_EQ(p->line(4), 10);
  // Statements between and after the errors survive.
  const auto& kids = p->r.program->kids;
  EXPECT_EQ(kids[1]->kind, ir::Kind::Let);
  EXPECT_EQ(kids[2]->kind, ir::Kind::Fn);
  EXPECT_EQ(kids.back()->kind, ir::Kind::Let);
  EXPECT_EQ(kids.back()->kids[0]->name, "ok");
}

TEST(ParseErrors, NoCascades) {
  // One missing `)` in a call: one error, the rest of the file parses.
  auto p = parse("print(f(1, 2);\nlet a = 1;\nlet b = a + 1;\nprint(b);\n");
  ASSERT_EQ(p->r.diags.size(), 1u) << all_messages(*p);
  EXPECT_EQ(p->r.program->size(), 4u);
  // An unclosed `(` without any `;` stops at the next statement keyword.
  p = parse("let a = (1 + 2\nlet b = 3;\nprint(b);");
  ASSERT_EQ(p->r.diags.size(), 1u) << all_messages(*p);
  EXPECT_EQ(p->msg(0), "expected `,` or `)`, found keyword `let`");
  // Errors inside a function body recover inside the body.
  p = parse("fn f(x) {\n  let a = ;\n  let b = x;\n  b\n}\nprint(f(1));");
  ASSERT_EQ(p->r.diags.size(), 1u) << all_messages(*p);
  EXPECT_EQ(p->r.program->size(), 2u);
  // A broken item header skips the item's body as a whole.
  p = parse("fn f(a b) { let x = ; }\nlet z = 1;");
  ASSERT_EQ(p->r.diags.size(), 1u) << all_messages(*p);
  EXPECT_EQ(p->r.program->kids.back()->kind, ir::Kind::Let);
  // Invalid characters are reported once by the lexer, not again by the parser.
  p = parse("let a = 1 $ 2;\nlet b = #;\n");
  ASSERT_EQ(p->r.diags.size(), 2u) << all_messages(*p);
  EXPECT_EQ(p->msg(0), "invalid character `$`");
  EXPECT_EQ(p->msg(1), "invalid character `#`");
}

TEST(ParseErrors, Messages) {
  auto one = [](const std::string& src) {
    auto p = parse(src);
    EXPECT_EQ(p->r.diags.size(), 1u) << src << "\n" << all_messages(*p);
    return p->r.diags.empty() ? std::string() : p->r.diags[0].message;
  };
  EXPECT_EQ(one("let x = );"), "expected expression, found `)`");
  EXPECT_EQ(one("let x 1;"), "expected `=`, found `1`");
  EXPECT_EQ(one("let = 1;"), "expected identifier or `(`, found `=`");
  EXPECT_EQ(one("let b = a < b < c;"), "comparison operators cannot be chained");
  EXPECT_EQ(one("let b = a == b != c;"), "comparison operators cannot be chained");
  EXPECT_EQ(one("let r = 0..1..2;"), "range operators cannot be chained");
  EXPECT_EQ(one("let t = (1,);"), "one-element tuples are not supported");
  EXPECT_EQ(one("let k = 2.;"), "expected field name after `.`, found `;`");
  EXPECT_EQ(one("let z = 99999999999999999999;"), "integer literal is too large");
  EXPECT_EQ(one("let f = 1e999;"), "float literal is out of range");
  EXPECT_EQ(one("let s = \"a\\qb\";"), "unknown character escape `\\q`");
  EXPECT_EQ(one("let s = \"{x:zz}\";"), "invalid format spec `zz`");
  EXPECT_EQ(one("let s = \"{a +}\";"), "expected expression, found end of interpolation");
  EXPECT_EQ(one("let s = \"{a b}\";"), "expected end of interpolation, found `b`");
  EXPECT_EQ(one("let s = \"{}\";"), "empty expression in string interpolation");
  // `pub let` exports a module-level binding (SPEC §6); anything else after `pub` is an error.
  EXPECT_EQ(one("pub if x { 1 }"), "expected `fn`, `let`, `const`, `use` or `mod` after `pub`, "
                                   "found keyword `if`");
  EXPECT_EQ(one("let v = a[];"), "expected index, found `]`");
  EXPECT_EQ(one("let s = sum[0](x);"), "expected index name or `..rest`, found `0`");
  EXPECT_EQ(one("if x { 1 } else 2;"), "expected `{` or `if` after `else`, found `2`");
  EXPECT_EQ(one("match x { 1 => 2 3 => 4 }"), "expected `,` or `}`, found `3`");
  EXPECT_EQ(one("use a::;"), "expected identifier or `{` or `*`, found `;`");
  EXPECT_EQ(one("let m: [f32; x] = 1;"), "expected extent, `?` or `*`, found `x`");
  EXPECT_EQ(one("let x = a & b;"), "invalid character `&`");
}

TEST(ParseErrors, SpanOfUnexpectedToken) {
  auto p = parse("let s = \"{a b}\";");
  ASSERT_EQ(p->r.diags.size(), 1u);
  EXPECT_EQ(p->sm.snippet(p->r.diags[0].primary), "b");
  p = parse("let x = 1 +\n   ) ;");
  ASSERT_EQ(p->r.diags.size(), 1u);
  EXPECT_EQ(p->line(0), 2);
  EXPECT_EQ(p->col(0), 4);
}

TEST(ParseErrors, NestingTooDeep) {
  for (std::string open : {"(", "[", "-", "!", "@", "{", "[1, "}) {
    std::string src = "let x = ";
    for (int i = 0; i < 100000; ++i) src += open;
    src += "1;\nlet y = 2;";
    auto p = parse(src);
    ASSERT_FALSE(p->r.diags.empty()) << open;
    EXPECT_LE(p->r.diags.size(), 3u) << open << "\n" << all_messages(*p);
    EXPECT_EQ(p->msg(0), "nesting too deep") << open;
  }
  std::string chain = "let x = 1";
  for (int i = 0; i < 100000; ++i) chain += " + 1";
  auto p = parse(chain + ";\nlet y = 2;");
  ASSERT_EQ(p->r.diags.size(), 1u);
  EXPECT_EQ(p->msg(0), "nesting too deep");
  EXPECT_EQ(p->r.program->kids.back()->kind, ir::Kind::Let);
  // Moderate nesting is fine.
  std::string ok = "let x = ";
  for (int i = 0; i < 100; ++i) ok += "(";
  ok += "1";
  for (int i = 0; i < 100; ++i) ok += ")";
  EXPECT_TRUE(parse(ok + ";")->r.diags.empty());
}

TEST(ParseErrors, DiagnosticsAreCapped) {
  std::string src;
  for (int i = 0; i < 200; ++i) src += "let = 1;\n";
  auto p = parse(src);
  EXPECT_EQ(p->r.diags.size(), syntax_detail::kMaxDiags);
  std::string junk(1000, '$');
  for (int i = 0; i < 100; ++i) junk += " $";
  EXPECT_EQ(parse(junk)->r.diags.size(), syntax_detail::kMaxDiags);
}

TEST(Completeness, Classification) {
  for (const char* s : {"", "   ", "// comment", "let x = 1;", "C", "x + 1", "fn f(x) { x }",
                        "let x = 1;\nx", "if a { 1 } else { 2 }", "let x = 1", "use std::math::sqrt", "print(\"{x}\");",
                        "let s = \"{{\";", "mod m { fn f() {} }"})
    EXPECT_EQ(completeness(s), "complete") << s;
  // A last `let` without `;` is complete (SPEC §1, §11): the REPL runs it.
  for (const char* s : {"let x =", "fn f(x) {", "let y = 1 +", "print(\"abc",
                        "let a = [1, 2,", "if x { 1 } else", "match x {", "mod m {",
                        "let s = \"a\" +", "x |>", "use a::", "@fn f(x) { @x", "(1, 2",
                        "let v = f(\n  1,\n", "\"", "let x = {", "let f = |x|", "let t: (i32,",
                        "let x = \"}}\" + \""})
    EXPECT_EQ(completeness(s), "incomplete") << s;
  for (const char* s : {"let x = );", ")", "let x = 1; }", "let = 1;", "\"{a\"", "let 1 = 2",
                        "let x = $", "fn (", "let x = 1 2", "let x = ]; let y = ("})
    EXPECT_EQ(completeness(s), "invalid") << s;
}

}  // namespace
}  // namespace ein
