// Integer divisors fixed at kernel entry (engine/codegen/gen_check.cpp), read from the kernel
// plan: a quotient or remainder by a scalar is tested once at entry and divided in plain C in
// the fast version, and a read at `m / c`, `m % c` is decided at entry; a divisor bound inside
// the statement (a loop variable, a block local) or a literal is not. Values: the golden test
// regressions/entry_tested_divisors.
#include <gtest/gtest.h>

#include "tests/unit/codegen/plan_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using testing::any_kernel;
using testing::compile;
using testing::plan_always;

constexpr const char* kInputs =
    "let x[i in 0..64, j in 0..300] = i * 300 + j - 5000;\n"
    "let g[a in 0..4, b in 0..16, j in 0..300] = (a * 16 + b + j) as f32;\n"
    "let n = sum[i](x[i, 0]) % 5 + 2;\n";

TEST(EntryDivisor, QuotientsByAScalarAreTestedAtEntry) {
  auto c = compile(std::string(kInputs) +
                   "let P[i, j] = x[i, j] / n + x[i, j] % n;\n"
                   "let MG = n - n + 16;\n"
                   "let Q[m in 0..64, j in 0..300] = g[m / MG, m % MG, j] * 2.0;\n"
                   "print(P[1, 2], Q[1, 2]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "P", "divisors: 1 integer divisor(s) fixed at entry"));
  EXPECT_TRUE(any_kernel(p, "P", " / a0)", true));
  EXPECT_TRUE(any_kernel(p, "Q", "bounds: 1 read(s) checked once at entry"));
}

TEST(EntryDivisor, LoopVariablesAndBlockLocalsAreNotEntryDivisors) {
  for (const char* stmt : {"let P[i in 1..64, j in 0..300] = x[i, j] / i;\n",
                           "let P[i, j] = { let d = x[i, 0] % 3 + 1; x[i, j] / d };\n"}) {
    auto c = compile(std::string(kInputs) + stmt + "print(P[1, 2]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_FALSE(any_kernel(p, "P", "divisors:")) << stmt;
  }
}

// Extents written in place in a loop's range: `len(X[0])` (gen_check.cpp extent_call: fixed at
// entry like `len(X)`) and `shape(X)[k]` at a literal k (gen_kernel.cpp load: X's extent k; the
// clause was interpreted, "indexing a computed value"). Either way the window's reads are
// checked once at entry and it runs in vector lanes.
TEST(EntryBounds, ExtentsWrittenInPlaceAreFixedAtEntry) {
  const char* forms[2][3] = {{"len(X)", "len(X[0])", "len(X[0, 0])"}, {"shape(X)[0]", "shape(X)[1]", "shape(X)[2]"}};
  for (const auto& e : forms) {
    auto c = compile("fn cl(v, lo, hi) { if v < lo { lo } else if v > hi { hi } else { v } }\n"
                     "fn w(X, s, k, OW) { let W1 = " + std::string(e[2]) + " - 1;\n"
                     "  let R[c in 0.." + e[0] + ", h in 0.." + e[1] +
                     ", o in 0..OW] = max[b in 0..k](X[c, h, cl(o * s + b - 1, 0, W1)]); R }\n"
                     "let X[c in 0..8, h in 0..40, w in 0..300] = ((c + h * 3 + w * 7) % 11) as f32;\n"
                     "let Y = w(X, 2, 3, 150);\n"
                     "print(Y[1, 2, 3]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_TRUE(any_kernel(p, "R", "bounds: 1 read(s) checked once at entry")) << e[1];
    EXPECT_TRUE(any_kernel(p, "R", "lanes: max over 1 index(es)")) << e[1];
  }
}

}  // namespace
}  // namespace ein
