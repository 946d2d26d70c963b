#include <gtest/gtest.h>

#include "lang/syntax/lexer.h"

namespace ein {
namespace {

std::vector<Tok> kinds(std::string_view text) {
  std::vector<Tok> out;
  for (const Token& t : lex(text)) out.push_back(t.kind);
  return out;
}

std::vector<std::string> texts(std::string_view text) {
  std::vector<std::string> out;
  for (const Token& t : lex(text))
    if (t.kind != Tok::Eof) out.emplace_back(text.substr(t.lo, t.hi - t.lo));
  return out;
}

using V = std::vector<Tok>;
using S = std::vector<std::string>;

TEST(Lexer, KeywordsIdentifiersAndEof) {
  EXPECT_EQ(kinds("let x = sum;"),
            (V{Tok::KwLet, Tok::Ident, Tok::Assign, Tok::Ident, Tok::Semi, Tok::Eof}));
  for (const std::string& kw : keyword_list()) {
    EXPECT_TRUE(is_keyword(kw)) << kw;
    // `mod` is a keyword only where it declares a module (`mod name`); alone it is a name.
    std::string text = kw == "mod" ? kw + " name" : kw;
    EXPECT_TRUE(is_keyword_tok(lex(text)[0].kind)) << kw;
  }
  EXPECT_EQ(lex("mod(a, b)")[0].kind, Tok::Ident);
  EXPECT_EQ(keyword_list().size(), 16u);
  EXPECT_FALSE(is_keyword("sum"));
  EXPECT_FALSE(is_keyword("letx"));
  EXPECT_TRUE(is_reduction_name("argmax"));
  EXPECT_FALSE(is_reduction_name("mean"));
  EXPECT_EQ(kinds(""), V{Tok::Eof});
  EXPECT_EQ(kinds("  // only a comment"), V{Tok::Eof});
  EXPECT_EQ(kinds("\xEF\xBB\xBFx"), (V{Tok::Ident, Tok::Eof}));  // a UTF-8 BOM is skipped
  EXPECT_EQ(kinds("a\r\n\tb"), (V{Tok::Ident, Tok::Ident, Tok::Eof}));
}

TEST(Lexer, Numbers) {
  EXPECT_EQ(kinds("42"), (V{Tok::Int, Tok::Eof}));
  for (const char* f : {"3.14", "1e-3", ".5", "1.5e+10", "2E3", "0.5e7"})
    EXPECT_EQ(kinds(f), (V{Tok::Float, Tok::Eof})) << f;
  // `2.` is not a float and `1..5` is a range.
  EXPECT_EQ(kinds("1..5"), (V{Tok::Int, Tok::DotDot, Tok::Int, Tok::Eof}));
  EXPECT_EQ(kinds("0..=3"), (V{Tok::Int, Tok::DotDotEq, Tok::Int, Tok::Eof}));
  EXPECT_EQ(kinds("2."), (V{Tok::Int, Tok::Dot, Tok::Eof}));
  EXPECT_EQ(texts("1_000 2.5"), (S{"1_000", "2.5"}));
  int64_t v = 0;
  EXPECT_TRUE(int_literal_value("9223372036854775807", v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_FALSE(int_literal_value("9223372036854775808", v));
  EXPECT_TRUE(int_literal_value("1_000", v));
  EXPECT_EQ(v, 1000);
}

TEST(Lexer, TupleFieldsAreNotFloats) {
  EXPECT_EQ(texts("t.0.1"), (S{"t", ".", "0", ".", "1"}));
  EXPECT_EQ(texts("(a, b).0"), (S{"(", "a", ",", "b", ")", ".", "0"}));
  EXPECT_EQ(texts("m[0].1"), (S{"m", "[", "0", "]", ".", "1"}));
  EXPECT_EQ(texts("x + .5"), (S{"x", "+", ".5"}));
}

TEST(Lexer, Operators) {
  EXPECT_EQ(texts("a|>f || b && !c |x| ** * -> => == != <= >= :: .. ..= @ ?"),
            (S{"a", "|>", "f", "||", "b", "&&", "!", "c", "|", "x", "|", "**", "*", "->", "=>",
               "==", "!=", "<=", ">=", "::", "..", "..=", "@", "?"}));
  EXPECT_EQ(tok_spelling(Tok::Semi), "`;`");
  EXPECT_EQ(tok_spelling(Tok::PipeGt), "`|>`");
  EXPECT_EQ(tok_spelling(Tok::KwWhere), "`where`");
  EXPECT_EQ(tok_spelling(Tok::Eof), "end of input");
  EXPECT_EQ(tok_spelling(Tok::Question), "`?`");
}

TEST(Lexer, SpansAndNewlines) {
  std::string src = "let x\n  = 1;";
  auto toks = lex(src);
  ASSERT_EQ(toks.size(), 6u);
  EXPECT_EQ(toks[1].lo, 4u);
  EXPECT_EQ(toks[1].hi, 5u);
  EXPECT_FALSE(toks[1].newline_before);
  EXPECT_TRUE(toks[2].newline_before);
  EXPECT_EQ(toks[5].lo, src.size());
}

TEST(Lexer, StringsAreOneToken) {
  EXPECT_EQ(texts(R"(print("a {b} \" c");)"), (S{"print", "(", R"("a {b} \" c")", ")", ";"}));
  LexResult r = lex_range("\"abc", 1, 0, 100);
  EXPECT_TRUE(r.unterminated);
  ASSERT_EQ(r.diags.size(), 1u);
  EXPECT_EQ(r.diags[0].code, "E001");
  EXPECT_EQ(r.diags[0].primary.lo, 0u);
}

TEST(Lexer, InvalidCharactersCollapse) {
  LexResult r = lex_range("a $$$ b # c", 1, 0, 100);
  ASSERT_EQ(r.diags.size(), 2u);
  EXPECT_EQ(r.diags[0].message, "invalid character `$`");
  EXPECT_EQ(r.diags[0].primary.lo, 2u);
  EXPECT_EQ(r.diags[0].primary.hi, 5u);
  std::vector<Tok> ks;
  for (auto& t : r.tokens) ks.push_back(t.kind);
  EXPECT_EQ(ks, (V{Tok::Ident, Tok::Error, Tok::Ident, Tok::Error, Tok::Ident, Tok::Eof}));
  // A multi-byte character is one error covering the whole character.
  LexResult u = lex_range("x = \xC3\xA9;", 1, 0, 100);
  ASSERT_EQ(u.diags.size(), 1u);
  EXPECT_EQ(u.diags[0].primary.hi - u.diags[0].primary.lo, 2u);
}

TEST(Lexer, SubRangeKeepsAbsoluteOffsets) {
  std::string src = "\"{a + b}\"";
  LexResult r = lex_range(src, 3, 2, 7);
  ASSERT_EQ(r.tokens.size(), 4u);
  EXPECT_EQ(r.tokens[0].lo, 2u);
  EXPECT_EQ(r.tokens[2].lo, 6u);
  EXPECT_EQ(r.tokens[3].lo, 7u);  // Eof at the end of the range
}

TEST(ScanString, PiecesEscapesAndSpecs) {
  std::string src = R"("hi {name}, {{x}} {pi:.4f} {m::f(x)} \t\n\\\"\{\}")";
  StrScan s = scan_string(src, 1, 0, static_cast<uint32_t>(src.size()));
  EXPECT_TRUE(s.diags.empty());
  ASSERT_TRUE(s.has_holes);
  ASSERT_EQ(s.pieces.size(), 7u);
  EXPECT_EQ(s.pieces[0].text, "hi ");
  EXPECT_TRUE(s.pieces[1].hole);
  EXPECT_EQ(src.substr(s.pieces[1].expr_lo, s.pieces[1].expr_hi - s.pieces[1].expr_lo), "name");
  EXPECT_EQ(s.pieces[2].text, ", {x} ");
  EXPECT_EQ(s.pieces[3].spec, ".4f");
  EXPECT_EQ(src.substr(s.pieces[3].expr_lo, s.pieces[3].expr_hi - s.pieces[3].expr_lo), "pi");
  EXPECT_EQ(s.pieces[5].spec, "");
  EXPECT_EQ(src.substr(s.pieces[5].expr_lo, s.pieces[5].expr_hi - s.pieces[5].expr_lo),
            "m::f(x)");
  EXPECT_EQ(s.pieces[6].text, " \t\n\\\"{}");
}

TEST(ScanString, Errors) {
  auto diags = [](std::string src) {
    return scan_string(src, 1, 0, static_cast<uint32_t>(src.size())).diags;
  };
  EXPECT_EQ(diags(R"("a\qb")").at(0).message, "unknown character escape `\\q`");
  EXPECT_EQ(diags(R"("a } b")").at(0).message, "unmatched `}` in string literal");
  EXPECT_EQ(diags(R"("a {b")").at(0).message, "unclosed `{` in string literal");
  EXPECT_EQ(diags(R"("a { }")").at(0).message, "empty expression in string interpolation");
  EXPECT_EQ(diags(R"("{x:abc}")").at(0).message, "invalid format spec `abc`");
  EXPECT_TRUE(diags(R"("{x:8.3f} {y:e} {z:10} {w:.2}")").empty());
  EXPECT_TRUE(diags(R"("plain")").empty());
}

}  // namespace
}  // namespace ein
