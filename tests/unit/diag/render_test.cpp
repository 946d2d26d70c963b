// Exact-output tests for the rustc-style renderer. Expected strings are written out in full so
// that any layout change shows up as a readable diff.
#include <gtest/gtest.h>

#include <string>

#include "lang/diag/diag.h"

namespace ein {
namespace {

// The span of the nth occurrence of `needle` in file `f`.
Span at(const SourceMap& sm, uint32_t f, const std::string& needle, int nth = 0) {
  const std::string& t = sm.file(f).text;
  size_t p = t.find(needle);
  while (nth-- > 0 && p != std::string::npos) p = t.find(needle, p + 1);
  EXPECT_NE(p, std::string::npos) << needle;
  return Span{f, static_cast<uint32_t>(p), static_cast<uint32_t>(p + needle.size())};
}

Span point(uint32_t f, uint32_t off) { return Span{f, off, off}; }

TEST(DiagRender, SingleLine) {
  SourceMap sm;
  uint32_t f = sm.add("cell[1]", "let x = 1 + y;");
  Diagnostic d = make_diag("E003", "undefined name `y`", at(sm, f, "y"), "not found in this scope");
  EXPECT_EQ(render(d, sm),
            "error[E003]: undefined name `y`\n"
            " --> cell[1]:1:13\n"
            "  |\n"
            "1 | let x = 1 + y;\n"
            "  |             ^ not found in this scope\n");
}

TEST(DiagRender, NoLabelNoCode) {
  SourceMap sm;
  uint32_t f = sm.add("a.ein", "print(1)\n");
  Diagnostic d = make_diag("", "expected `;`", point(f, 8));
  EXPECT_EQ(render(d, sm),
            "error: expected `;`\n"
            " --> a.ein:1:9\n"
            "  |\n"
            "1 | print(1)\n"
            "  |         ^\n");
}

// The SPEC §9 example: "3 here" would run into the primary carets, so it hangs below.
TEST(DiagRender, TwoLabelsOneLineCollide) {
  SourceMap sm;
  uint32_t f = sm.add("cell[3]", "let C[i, j] = sum[k](A[i, k] * B[k, j]);");
  Diagnostic d = make_diag("E004", "index `k` has two different extents", at(sm, f, "B[k, j]"),
                           "2 here");
  d.secondary.push_back({at(sm, f, "A[i, k]"), "3 here"});
  d.help = "A is [2, 3], B is [2, 2]";
  EXPECT_EQ(render(d, sm),
            "error[E004]: index `k` has two different extents\n"
            " --> cell[3]:1:32\n"
            "  |\n"
            "1 | let C[i, j] = sum[k](A[i, k] * B[k, j]);\n"
            "  |                      -------   ^^^^^^^ 2 here\n"
            "  |                      |\n"
            "  |                      3 here\n"
            "  = help: A is [2, 3], B is [2, 2]\n");
}

TEST(DiagRender, TwoLabelsOneLineInline) {
  SourceMap sm;
  uint32_t f = sm.add("cell[3]", "let C[i, j] = sum[k](A[i, k] * B[k, j]);");
  Diagnostic d = make_diag("E004", "index `k` has two different extents", at(sm, f, "B[k, j]"),
                           "2 here");
  d.secondary.push_back({at(sm, f, "C[i, j]"), "3 here"});
  EXPECT_EQ(render(d, sm),
            "error[E004]: index `k` has two different extents\n"
            " --> cell[3]:1:32\n"
            "  |\n"
            "1 | let C[i, j] = sum[k](A[i, k] * B[k, j]);\n"
            "  |     ------- 3 here             ^^^^^^^ 2 here\n");
}

// Several hanging labels form a staircase, rightmost first, with connectors for the rest.
TEST(DiagRender, ThreeLabelsStaircase) {
  SourceMap sm;
  uint32_t f = sm.add("s", "f(aa, bb, cc)");
  Diagnostic d = make_diag("E002", "bad call", at(sm, f, "cc"), "third");
  d.secondary.push_back({at(sm, f, "aa"), "first"});
  d.secondary.push_back({at(sm, f, "bb"), "second"});
  EXPECT_EQ(render(d, sm),
            "error[E002]: bad call\n"
            " --> s:1:11\n"
            "  |\n"
            "1 | f(aa, bb, cc)\n"
            "  |   --  --  ^^ third\n"
            "  |   |   |\n"
            "  |   |   second\n"
            "  |   first\n");
}

// A label inside a wider span cannot sit on the underline row.
TEST(DiagRender, NestedSpans) {
  SourceMap sm;
  uint32_t f = sm.add("s", "let y = g(h(x));");
  Diagnostic d = make_diag("E002", "type mismatch", at(sm, f, "x"), "f64");
  d.secondary.push_back({at(sm, f, "g(h(x))"), "expects i32"});
  EXPECT_EQ(render(d, sm),
            "error[E002]: type mismatch\n"
            " --> s:1:13\n"
            "  |\n"
            "1 | let y = g(h(x));\n"
            "  |         ----^-- expects i32\n"
            "  |             |\n"
            "  |             f64\n");
}

TEST(DiagRender, LabelsOnDifferentLines) {
  SourceMap sm;
  std::string text = "fn f(x) {\n  x\n}\n";
  for (int i = 4; i <= 9; ++i) text += "\n";
  text += "let y = f(1, 2);\nlet z = y;\n";
  uint32_t f = sm.add("prog.ein", text);
  Diagnostic d = make_diag("E002", "function takes 1 argument", at(sm, f, "f(1, 2)"), "2 given");
  d.secondary.push_back({at(sm, f, "let z"), "later use"});
  d.secondary.push_back({at(sm, f, "fn f"), "defined here"});
  d.notes.push_back("arity is checked at compile time");
  EXPECT_EQ(render(d, sm),
            "error[E002]: function takes 1 argument\n"
            "  --> prog.ein:10:9\n"
            "   |\n"
            " 1 | fn f(x) {\n"
            "   | ---- defined here\n"
            "...\n"
            "10 | let y = f(1, 2);\n"
            "   |         ^^^^^^^ 2 given\n"
            "11 | let z = y;\n"
            "   | ----- later use\n"
            "   = note: arity is checked at compile time\n");
}

TEST(DiagRender, MultiLineSpanUnderlinesToEndOfFirstLine) {
  SourceMap sm;
  uint32_t f = sm.add("m", "let a = [1, 2,\n         3];\n");
  Diagnostic d = make_diag("E004", "ragged literal", at(sm, f, "[1, 2,\n         3]"), "here");
  EXPECT_EQ(render(d, sm),
            "error[E004]: ragged literal\n"
            " --> m:1:9\n"
            "  |\n"
            "1 | let a = [1, 2,\n"
            "  |         ^^^^^^ here\n");
}

TEST(DiagRender, ZeroWidthAtEof) {
  SourceMap sm;
  uint32_t f = sm.add("t", "let x = (1 + 2");
  Diagnostic d = make_diag("E001", "unexpected end of input", point(f, 14), "expected `)`");
  EXPECT_EQ(render(d, sm),
            "error[E001]: unexpected end of input\n"
            " --> t:1:15\n"
            "  |\n"
            "1 | let x = (1 + 2\n"
            "  |               ^ expected `)`\n");
  // After a final newline, EOF is the start of an (empty) next line.
  uint32_t g = sm.add("u", "let x = 1\n");
  Diagnostic e = make_diag("E001", "expected `;`", point(g, 10));
  EXPECT_EQ(render(e, sm),
            "error[E001]: expected `;`\n"
            " --> u:2:1\n"
            "  |\n"
            "2 |\n"
            "  | ^\n");
}

TEST(DiagRender, TabsExpandToFourSpaces) {
  SourceMap sm;
  uint32_t f = sm.add("tab", "\tlet\tx = q;");
  Diagnostic d = make_diag("E003", "undefined name `q`", at(sm, f, "q"), "here");
  d.secondary.push_back({at(sm, f, "let\tx"), "binding"});
  // The column in --> counts the tabs as one character each, like every other character.
  EXPECT_EQ(render(d, sm),
            "error[E003]: undefined name `q`\n"
            " --> tab:1:10\n"
            "  |\n"
            "1 |     let    x = q;\n"
            "  |     --------   ^ here\n"
            "  |     |\n"
            "  |     binding\n");
}

TEST(DiagRender, Utf8Columns) {
  SourceMap sm;
  uint32_t f = sm.add("u8", "let s = \"héllo\" + β;");
  Diagnostic d = make_diag("E003", "undefined name `β`", at(sm, f, "β"), "unknown");
  d.secondary.push_back({at(sm, f, "\"héllo\""), "str"});
  EXPECT_EQ(render(d, sm),
            "error[E003]: undefined name `β`\n"
            " --> u8:1:19\n"
            "  |\n"
            "1 | let s = \"héllo\" + β;\n"
            "  |         -------   ^ unknown\n"
            "  |         |\n"
            "  |         str\n");
}

TEST(DiagRender, SpanStartingInsideCharacterSnapsToIt) {
  SourceMap sm;
  uint32_t f = sm.add("u8", "aé b");  // é is bytes 1..3
  Diagnostic d = make_diag("E006", "bad", Span{f, 2, 3});
  EXPECT_EQ(render(d, sm),
            "error[E006]: bad\n"
            " --> u8:1:2\n"
            "  |\n"
            "1 | aé b\n"
            "  |  ^\n");
}

TEST(DiagRender, ControlCharactersAreNeutralised) {
  SourceMap sm;
  uint32_t f = sm.add("c", std::string("a\x1b[2Jb = \xff;"));
  Diagnostic d = make_diag("E001", "bad byte", at(sm, f, "\xff"));
  EXPECT_EQ(render(d, sm),
            "error[E001]: bad byte\n"
            " --> c:1:10\n"
            "  |\n"
            "1 | a\xEF\xBF\xBD[2Jb = \xEF\xBF\xBD;\n"
            "  |          ^\n");
}

TEST(DiagRender, NoSpan) {
  SourceMap sm;
  Diagnostic d = make_diag("E009", "cannot read `data.npy`", Span{});
  d.notes = {"the file does not exist", "searched in\n/tmp"};
  d.help = "check the path";
  EXPECT_EQ(render(d, sm),
            "error[E009]: cannot read `data.npy`\n"
            "  = note: the file does not exist\n"
            "  = note: searched in\n"
            "          /tmp\n"
            "  = help: check the path\n");
}

TEST(DiagRender, NoPrimaryKeepsLabelTextAsNotes) {
  SourceMap sm;
  uint32_t f = sm.add("x.ein", "let a = 1;\n");
  Diagnostic d = make_diag("E010", "import cycle", Span{}, "while loading std");
  d.secondary.push_back({at(sm, f, "a"), "imported here"});
  d.secondary.push_back({Span{}, "somewhere"});
  EXPECT_EQ(render(d, sm),
            "error[E010]: import cycle\n"
            "  = note: while loading std\n"
            "  = note: x.ein:1:5: imported here\n"
            "  = note: somewhere\n");
}

TEST(DiagRender, SecondaryInOtherFile) {
  SourceMap sm;
  uint32_t lib = sm.add("lib.ein", "pub fn g(x) { x }\n");
  uint32_t main = sm.add("main.ein", "use lib::g;\nlet y = g(1, 2);\n");
  Diagnostic d = make_diag("E002", "wrong arity", at(sm, main, "g(1, 2)"));
  d.secondary.push_back({at(sm, lib, "fn g"), "defined here"});
  EXPECT_EQ(render(d, sm),
            "error[E002]: wrong arity\n"
            " --> main.ein:2:9\n"
            "  |\n"
            "2 | let y = g(1, 2);\n"
            "  |         ^^^^^^^\n"
            "  |\n"
            " ::: lib.ein:1:5\n"
            "  |\n"
            "1 | pub fn g(x) { x }\n"
            "  |     ---- defined here\n");
}

TEST(DiagRender, WarningHeader) {
  SourceMap sm;
  uint32_t f = sm.add("w", "let unused = 1;");
  Diagnostic d = make_diag("", "binding `unused` is never read", at(sm, f, "unused"));
  d.warning = true;
  EXPECT_EQ(render(d, sm),
            "warning: binding `unused` is never read\n"
            " --> w:1:5\n"
            "  |\n"
            "1 | let unused = 1;\n"
            "  |     ^^^^^^\n");
}

TEST(DiagRender, ColourOn) {
  SourceMap sm;
  uint32_t f = sm.add("c", "a      + b");
  Diagnostic d = make_diag("E002", "mismatch", at(sm, f, "b"), "f64");
  d.secondary.push_back({at(sm, f, "a"), "i32"});
  d.help = "cast one side";
  EXPECT_EQ(render(d, sm, {.color = true}),
            "\x1b[1;31merror[E002]\x1b[0m: mismatch\n"
            "\x1b[1;34m -->\x1b[0m c:1:10\n"
            "\x1b[1;34m  |\x1b[0m\n"
            "\x1b[1;34m1 |\x1b[0m a      + b\n"
            "\x1b[1;34m  |\x1b[0m \x1b[34m-\x1b[0m i32    \x1b[31m^\x1b[0m f64\n"
            "  \x1b[1;34m=\x1b[0m help: cast one side\n");
  d.warning = true;
  std::string w = render(d, sm, {.color = true});
  EXPECT_EQ(w.rfind("\x1b[1;33mwarning[E002]\x1b[0m: mismatch\n", 0), 0u) << w;
  EXPECT_NE(w.find("\x1b[1;33m^\x1b[0m f64"), std::string::npos) << w;
}

TEST(DiagRender, ColourOffHasNoEscapes) {
  SourceMap sm;
  uint32_t f = sm.add("c", "a + b\nc\n");
  Diagnostic d = make_diag("E002", "mismatch", at(sm, f, "b"), "f64");
  d.secondary.push_back({at(sm, f, "c"), "i32"});
  d.notes.push_back("n");
  EXPECT_EQ(render(d, sm, {.color = false}).find('\x1b'), std::string::npos);
  EXPECT_EQ(render_abort_line(2).find('\x1b'), std::string::npos);
}

TEST(DiagRender, AbortLine) {
  EXPECT_EQ(render_abort_line(1), "error: aborting due to 1 previous error\n");
  EXPECT_EQ(render_abort_line(3), "error: aborting due to 3 previous errors\n");
  EXPECT_EQ(render_abort_line(3, {.color = true}),
            "\x1b[1;31merror\x1b[0m: aborting due to 3 previous errors\n");
}

TEST(DiagRender, BadSpansDoNotCrash) {
  SourceMap sm;
  uint32_t empty = sm.add("empty", "");
  uint32_t f = sm.add("f", "ab\r\ncd");
  // Invalid file id: rendered as if span-less.
  EXPECT_EQ(render(make_diag("E001", "m", Span{99, 0, 4}, "lbl"), sm),
            "error[E001]: m\n"
            "  = note: lbl\n");
  EXPECT_EQ(render(make_diag("E001", "m", point(empty, 0)), sm),
            "error[E001]: m\n"
            " --> empty:1:1\n"
            "  |\n"
            "1 |\n"
            "  | ^\n");
  // Past EOF, reversed, and a span covering the CR of a CRLF line.
  EXPECT_EQ(render(make_diag("E001", "m", Span{f, 500, 900}), sm),
            "error[E001]: m\n"
            " --> f:2:3\n"
            "  |\n"
            "2 | cd\n"
            "  |   ^\n");
  EXPECT_EQ(render(make_diag("E001", "m", Span{f, 1, 0}), sm),
            "error[E001]: m\n"
            " --> f:1:2\n"
            "  |\n"
            "1 | ab\n"
            "  |  ^\n");
  EXPECT_EQ(render(make_diag("E001", "m", Span{f, 1, 4}), sm),
            "error[E001]: m\n"
            " --> f:1:2\n"
            "  |\n"
            "1 | ab\n"
            "  |  ^\n");
}

// Every combination of offsets (in range, at the edges, far past the end) in a file full of
// awkward bytes must render without crashing and without escape codes when colour is off.
TEST(DiagRender, SweepOfSpans) {
  SourceMap sm;
  uint32_t f = sm.add("sweep", "a\tβ\n\n\xff\xc3\r\nz\n");
  uint32_t size = static_cast<uint32_t>(sm.file(f).text.size());
  for (uint32_t lo = 0; lo <= size + 2; ++lo)
    for (uint32_t hi = 0; hi <= size + 2; ++hi) {
      Diagnostic d = make_diag("E001", "m", Span{f, lo, hi}, "p");
      d.secondary.push_back({Span{f, hi, lo}, "s"});
      d.secondary.push_back({Span{f, lo / 2, hi + 1}, ""});
      std::string out = render(d, sm);
      ASSERT_EQ(out.find('\x1b'), std::string::npos) << out;
      ASSERT_NE(out.find("^"), std::string::npos) << out;
    }
}

}  // namespace
}  // namespace ein
