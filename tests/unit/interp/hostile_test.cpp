// Hostile inputs (SPEC §9: "no input, however malformed, may produce a segfault, abort, uncaught
// exception or hang"). Each program must end either normally or with diagnostics; where the
// SPEC fixes the category, the code is checked too. The programs target corners of the
// compiler and interpreter rather than the parser (tests/unit/robustness covers prefixes).
#include <gtest/gtest.h>

#include "tests/unit/interp/interp_fixture.h"

namespace ein::testing {
namespace {

struct Hostile {
  const char* src;
  const char* code;  // expected first diagnostic code, "" = must succeed, nullptr = either
};

const Hostile kCases[] = {
    // Empty and degenerate arrays and ranges.
    {"let v = []; print(v, len(v));", nullptr},
    {"let e[i in 0..0] = 1.0; print(e, e.shape);", ""},
    {"let e[i in 0..0, j in 0..3] = 1; print(e);", ""},
    {"let n = 0 - 5; let t[i in 0..n] = i; print(t);", ""},
    {"let r = 5..1; print([i | i in r]);", ""},
    {"let v = [1, 2, 3]; let w[i] = v[i + 100]; print(w);", ""},
    // Self reference and cycles.
    {"let x = x;", "E003"},
    {"let x[i in 0..3] = x;", nullptr},
    {"let v = [1, 2, 3]; let w[i] = v[i] where w[i] > 0;", "E012"},
    {"let x[t] = x[t - 1];", "E004"},
    {"fn f(f) { f(f) }\nprint(f(f));", "E007"},
    {"let f = |x| x(x);\nprint(f(f));", "E007"},
    // Functions and builtins as values.
    {"print(print);", ""},
    {"print(print(1));", ""},
    {"let p = print; p(2);", ""},
    {"print(typeof(typeof));", ""},
    // Numeric corners.
    {"let a: i8 = 1; let b = a / (a - 1);", "E007"},
    {"print(10 ** -1);", "E006"},
    {"print(2 ** 62, 2 ** 64, (-2) ** 63);", "E002"},  // constants that do not fit i32 (SPEC §3)
    {"let b: i64 = 2; let e = 64; print(b ** 62, b ** e, (-b) ** 63);", ""},
    {"let f: f64 = 1e308; print(f * 10.0, (f * 10.0) as i64);", ""},
    {"print(1.0 % 0.0);", ""},
    {"print(1e999);", "E001"},
    {"let n: i64 = 9223372036854775807; let r[i in 0..n] = 1;", "E008"},
    {"let n: i64 = 4611686018427387904; let r[i in 0..n, j in 0..n] = 1;", "E008"},
    // Formatting corners.
    {"let x = 1.5; print(\"{x:.400f}\");", ""},
    {"let x = 1.5; print(\"{x:99999999d}\");", "E006"},
    {"let x = \"s\"; print(\"{x:.2f}\");", "E006"},
    {"print(\"{\", 1);", "E001"},
    {"print(\"}\");", "E001"},
    {"print(\"{1 +}\");", "E001"},
    // Indexing corners.
    {"let M = [[1, 2], [3, 4]]; print(M[1, 1][0]);", "E002"},
    {"let v = [1, 2, 3]; let w[i] = v[v[i]];", "E005"},
    {"let v = [1, 2, 3]; let w[i in 0..100] = v[i];", "E005"},
    {"let v = [1, 2, 3]; let w[..a, ..b] = v[..a, ..b];", "E004"},
    {"let t = (1, 2); print(t.5);", nullptr},
    {"let t = (); print(t.0);", nullptr},
    // Recurrence corners.
    {"let x[0] = 1; let x[t in 1..5] = x[t - 1] + x[t - 10]; print(x);", "E005"},
    {"let x[0] = 1; let x[t in 1..5] = sum[k in 0..t](x[k]); print(x);", ""},
    // Autodiff corners.
    {"let x = 2.0; let g = @x / @x; print(g);", ""},
    {"let x = 2.0; let g = @g / @x;", "E003"},
    {"let x = 2.0; let y = x * x; print(@y / @x / @x);", nullptr},
    {"let x = [[1.0, 2.0]]; let p = [(r[0], 1.0) | r in x]; let y = [q.0 * 2.0 | q in p]; print(@y / @x);", "E013"},
    {"@fn nothing(x) { @x }", "E003"},
    {"print(@);", "E001"},
    // Matches and control flow.
    {"print(match 5 { });", "E002"},
    {"print(match 5 { _ => });", "E001"},
    {"let x = if true { 1 };", nullptr},
    // Deep nesting of expressions and blocks.
    {"let x = ((((((((((((((((((((((((((((((1))))))))))))))))))))))))))))));", ""},
    {"let x = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]];\nprint(shape(x));", ""},
    {"let x = {{{{{{{{{{{{{{{{{{{{1}}}}}}}}}}}}}}}}}}}};\nprint(x);", ""},
};

TEST(Hostile, EveryProgramEndsWithAResultOrDiagnostics) {
  for (const Hostile& h : kCases) {
    Sess s(/*max_depth=*/500);
    s.run(h.src);
    if (!s.last.ok) {
      ASSERT_FALSE(s.last.diags.empty()) << h.src << ": failed without a diagnostic";
      EXPECT_FALSE(s.last.rendered.empty()) << h.src;
    }
    if (h.code == nullptr) continue;
    EXPECT_EQ(s.code(), h.code) << h.src << "\n" << s.last.rendered;
  }
}

TEST(Hostile, SessionSurvivesEveryCaseInSequence) {
  // The same programs in one session: no failure may poison the session for the next cell.
  Sess s(/*max_depth=*/500);
  for (const Hostile& h : kCases) {
    s.run(h.src);
    EXPECT_EQ(s.run("print(40 + 2);"), "42\n") << "after: " << h.src << "\n" << s.last.rendered;
  }
}

TEST(Hostile, LongRandomishTokenSoupsAreRejectedCleanly) {
  // Tokens of the language in a deterministic scrambled order (a linear congruential sequence):
  // the parser and every later stage must stay well-behaved.
  const char* toks[] = {"let", "x", "=", "[", "]", "(", ")", "{", "}", "sum", "i", "in", "0..3",
                        "where", "@", "/", "*", "+", ";", ",", "1", "2.5", "\"s\"", "fn", "|",
                        "match", "=>", "_", "..b", "->", "if", "else", ".", "0"};
  uint64_t state = 12345;
  for (int prog = 0; prog < 200; ++prog) {
    std::string src;
    for (int t = 0; t < 40; ++t) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      src += toks[(state >> 33) % std::size(toks)];
      src += ' ';
    }
    Sess s(/*max_depth=*/200);
    s.run(src);
    if (!s.last.ok) {
      ASSERT_FALSE(s.last.diags.empty()) << src;
    }
  }
}

}  // namespace
}  // namespace ein::testing
