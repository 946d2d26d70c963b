// Interpreter semantics through the Session (SPEC §4, §5.3, §6, §9): integer division and
// remainder signs, fixed-width wrap-around, IEEE float results, and the runtime errors — E007
// division by zero / assert / recursion limit, E005 out of bounds at the right line, E006 for an
// empty integer max — each of which must leave the session usable.
#include <gtest/gtest.h>

#include "tests/unit/interp/interp_fixture.h"

namespace ein::testing {
namespace {

TEST(InterpArith, IntegerDivisionTruncatesTowardZero) {
  Sess s;
  // Values computed by hand from SPEC §4 (C/Rust semantics, not Python's floor division).
  EXPECT_EQ(s.run("print(7 / 2, -7 / 2, 7 / -2, -7 / -2);"), "3 -3 -3 3\n");
  EXPECT_EQ(s.run("print(7 % 3, -7 % 3, 7 % -3, -7 % -3);"), "1 -1 1 -1\n");
  // Non-literal operands take the same path as runtime values.
  EXPECT_EQ(s.run("let a = -9;\nlet b = 4;\nprint(a / b, a % b, b / a, b % a);"), "-2 -1 0 4\n");
}

TEST(InterpArith, WidthsOtherThanI32) {
  Sess s;
  EXPECT_EQ(s.run("let a: i64 = -9000000000;\nlet b: i64 = 7;\nprint(a / b, a % b);"),
            "-1285714285 -5\n");
  EXPECT_EQ(s.run("let a: i8 = -100;\nlet b: i8 = 7;\nprint(a / b, a % b);"), "-14 -2\n");
}

TEST(InterpArith, OverflowWraps) {
  Sess s;
  EXPECT_EQ(s.run("let a: i32 = 2147483647;\nprint(a + 1);"), "-2147483648\n");
  EXPECT_EQ(s.run("let a = 65536;\nprint(a * a);"), "0\n");
  EXPECT_EQ(s.run("let a: i8 = 127;\nlet one: i8 = 1;\nprint(a + one);"), "-128\n");
  EXPECT_EQ(s.run("let a: i64 = 9223372036854775807;\nprint(a + 1);"), "-9223372036854775808\n");
  // Run-time arithmetic wraps; the same values as constant expressions are E002 (SPEC §3).
  EXPECT_EQ(s.run("let two = 2;\nlet three = 3;\nprint(two ** 31, three ** 21);"), "-2147483648 1870418611\n");
  s.run("print(2 ** 31);");
  EXPECT_FALSE(s.last.ok);
}

TEST(InterpArith, MinDividedByMinusOneDoesNotTrap) {
  // The one signed division that overflows: it must wrap (no SIGFPE), and % gives 0.
  Sess s;
  EXPECT_EQ(s.run("let a = -2147483647 - 1;\nlet m = -1;\nprint(a / m, a % m);"),
            "-2147483648 0\n");
  EXPECT_TRUE(s.last.ok) << s.last.rendered;
  EXPECT_EQ(s.run("let a: i64 = -9223372036854775807 - 1;\nlet m: i64 = -1;\nprint(a / m, a % m);"),
            "-9223372036854775808 0\n");
}

TEST(InterpArith, FloatDivisionByZeroIsIeee) {
  Sess s;
  EXPECT_EQ(s.run("let x: f64 = 1.0;\nlet z = x - 1.0;\nprint(x / z, -x / z, z / z);"),
            "inf -inf nan\n");
  EXPECT_TRUE(s.last.ok);
}

TEST(InterpArith, F32StaysF32) {
  // 0.1 + 0.2 in f32 is the f32 nearest 0.3 (prints 0.3); in f64 it is 0.30000000000000004.
  Sess s;
  EXPECT_EQ(s.run("let a = 0.1;\nlet b = 0.2;\nprint(a + b);"), "0.3\n");
  EXPECT_EQ(s.run("let a: f64 = 0.1;\nlet b: f64 = 0.2;\nprint(a + b);"), "0.30000000000000004\n");
  // 16777216 + 1 is not representable in f32.
  EXPECT_EQ(s.run("let big: f32 = 16777216.0;\nprint(big + 1.0);"), "16777216.0\n");
}

TEST(InterpArith, CastsTruncateAndSaturate) {
  Sess s;
  EXPECT_EQ(s.run("print(3.7 as i32, -3.7 as i32, 2.5 as i64);"), "3 -3 2\n");
  // Rust `as`: float to int saturates, NaN becomes 0, int to narrower int wraps.
  EXPECT_EQ(s.run("let big: f64 = 1e10;\nprint(big as i32, -big as i32);"), "2147483647 -2147483648\n");
  EXPECT_EQ(s.run("let z: f64 = 0.0;\nprint((z / z) as i32);"), "0\n");
  EXPECT_EQ(s.run("let n = 300;\nprint(n as i8);"), "44\n");
}

TEST(InterpErrors, DivisionByZeroIsE007AtItsLine) {
  Sess s;
  std::string out = s.run("let a = 10;\nprint(a);\nlet z = a - 10;\nprint(a / z);\nprint(99);");
  EXPECT_EQ(out, "10\n") << "statements before the failure run, those after do not";
  EXPECT_FALSE(s.last.ok);
  EXPECT_FALSE(s.last.compile_error);
  EXPECT_EQ(s.code(), "E007");
  EXPECT_EQ(s.line(), 4);
}

TEST(InterpErrors, RemainderByZeroIsE007) {
  Sess s;
  s.run("let a = 5;\nlet z = a - 5;\nprint(a % z);");
  EXPECT_EQ(s.code(), "E007");
  EXPECT_EQ(s.line(), 3);
  // The session keeps working.
  EXPECT_EQ(s.run("print(a + 1);"), "6\n");
}

TEST(InterpErrors, DivisionByZeroInsideAnEinsteinBody) {
  Sess s;
  s.run("let v = [1, 2, 0, 4];\nlet r[i] = 12 / v[i];\nprint(r);");
  EXPECT_EQ(s.code(), "E007");
  EXPECT_EQ(s.line(), 2);
}

TEST(InterpErrors, OutOfBoundsIsE005AtTheRightLine) {
  Sess s;
  // The index is data-dependent (a comprehension length), so only the run can catch it.
  std::string out = s.run("let v = [1, 2, 3];\nlet k = len([x | x in v, x > 0]);\nprint(v[0]);\n"
                          "print(v[k]);");
  EXPECT_EQ(out, "1\n");
  EXPECT_EQ(s.code(), "E005");
  EXPECT_EQ(s.line(), 4);
}

TEST(InterpErrors, NegativeIndexIsE005) {
  // There is no Python-style negative indexing.
  Sess s;
  s.run("let v = [1, 2, 3];\nlet k = len([x | x in v, x > 5]) - 1;\nprint(v[k]);");
  EXPECT_EQ(s.code(), "E005");
  EXPECT_EQ(s.line(), 3);
}

TEST(InterpErrors, RowIndexOutOfBounds) {
  Sess s;
  s.run("let M = [[1, 2], [3, 4]];\nlet k = len([x | x in [1, 2, 3], x > 0]);\nlet r = M[k];");
  EXPECT_EQ(s.code(), "E005");
  EXPECT_EQ(s.line(), 3);
}

TEST(InterpErrors, FailedAssertIsE007WithTheMessage) {
  Sess s;
  s.run("let ok = 1;\nassert(ok == 2, \"ok must be two\");");
  EXPECT_EQ(s.code(), "E007");
  EXPECT_EQ(s.line(), 2);
  ASSERT_FALSE(s.last.diags.empty());
  std::string all = s.last.diags[0].message + s.last.rendered;
  EXPECT_NE(all.find("ok must be two"), std::string::npos) << s.last.rendered;
  s.run("assert(1 == 1);\nassert(1 < 2, \"fine\");");
  EXPECT_TRUE(s.last.ok) << s.last.rendered;
}

TEST(InterpErrors, RecursionLimitIsE007NotACrash) {
  Sess s;
  s.run("fn f(n) { f(n + 1) }\nprint(f(0));");
  EXPECT_EQ(s.code(), "E007");
  // docs/language.md: reported at the outermost call.
  EXPECT_EQ(s.line(), 2);
  // Deep but finite recursion below the limit works, and the session is still usable.
  EXPECT_EQ(s.run("fn down(n) { if n == 0 { 0 } else { 1 + down(n - 1) } }\nprint(down(4000));"),
            "4000\n");
  EXPECT_TRUE(s.last.ok) << s.last.rendered;
}

TEST(InterpErrors, ConfiguredDepthLimit) {
  Sess s(/*max_depth=*/50);
  EXPECT_EQ(s.run("fn down(n) { if n == 0 { 0 } else { 1 + down(n - 1) } }\nprint(down(40));"), "40\n");
  s.run("print(down(60));");
  EXPECT_EQ(s.code(), "E007");
}

TEST(InterpErrors, MutualRecursionLimit) {
  Sess s;
  s.run("fn ping(n) { pong(n + 1) }\nfn pong(n) { ping(n + 1) }\nlet r = ping(0);");
  EXPECT_EQ(s.code(), "E007");
}

TEST(InterpErrors, EmptyIntegerMaxIsE006) {
  // SPEC §5.3: max / min over an empty domain are +-inf for floats and E006 for integers.
  Sess s;
  EXPECT_EQ(s.run("let n = len([x | x in [1, 2], x > 5]);\nprint(max[i in 0..n](i as f32), "
                  "min[i in 0..n](i as f32));"),
            "-inf inf\n");
  s.run("let n = len([x | x in [1, 2], x > 5]);\nprint(max[i in 0..n](i));");
  EXPECT_EQ(s.code(), "E006");
  EXPECT_EQ(s.line(), 2);
}

TEST(InterpErrors, ReductionIdentitiesOnEmptyDomains) {
  Sess s;
  EXPECT_EQ(s.run("let n = len([x | x in [1, 2], x > 5]);\n"
                  "print(sum[i in 0..n](i), prod[i in 0..n](i), all[i in 0..n](i > 0), "
                  "any[i in 0..n](i > 0));"),
            "0 1 true false\n");
}

TEST(InterpErrors, HugeAllocationIsE008) {
  Sess s;
  s.run("let n = 3;\nlet huge[i in 0..100000, j in 0..100000, k in 0..100000] = 1.0;");
  EXPECT_EQ(s.code(), "E008");
  EXPECT_EQ(s.line(), 2);
  EXPECT_EQ(s.run("print(n);"), "3\n");
}

}  // namespace
}  // namespace ein::testing
