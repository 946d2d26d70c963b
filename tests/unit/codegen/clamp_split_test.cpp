// Index-set splitting of a clamped read in reduce_lanes' vector loop (engine/codegen/
// clamp_split.cpp), read from the kernel plan and source: a window reduction of run-time
// extent whose index is a clamp of `o * s + b - p` (a user function like std's clampi, an
// if-chain in place: its branches are blocks of one value, which lanes take) runs as
// three loops over each block, the middle one reading at `o * c + r` in int64 arithmetic; a
// negative coefficient or a constant window (unrolled per point) is not split.
// Values: the golden tests regressions/clamp_split_user_windows and max_pool_edge_clamp.
#include <gtest/gtest.h>

#include "tests/unit/codegen/plan_fixture.h"

namespace ein {
namespace {

using codegen::CellPlan;
using testing::any_kernel;
using testing::compile;
using testing::plan_always;

constexpr const char* kInputs =
    "let x[i in 0..64, j in 0..400] = (i + j) as f32 * 0.01 - 0.5;\n"
    "let k[i in 0..64] = (i * 3) % 5;\n"
    "let n = sum[i](k[i]);\n"
    "let s = n % 2 + 1;\n"
    "let m = n % 3 + 1;\n"
    "fn cl(v, lo, hi) { if v < lo { lo } else if v > hi { hi } else { v } }\n";

TEST(ClampSplit, ClampedWindowReadsSplitAlongTheOutputRow) {
  for (const char* stmt : {"let Y[i in 0..64, o in 0..200] = max[b in 0..m](x[i, cl(o * s + b - 1, 0, 399)]);\n",
                           "let Y[i in 0..64, o in 0..200] = sum[b in 0..m](x[i, cl(2 * o + b - m, 3, 396)]);\n",
                           "let Y[i in 0..64, o in 0..200] = sum[b in 0..m](x[i, if o * 2 + b - m < 0 { 0 } else if "
                           "o * 2 + b - m > 399 { 399 } else { o * 2 + b - m }]);\n"}) {
    auto c = compile(std::string(kInputs) + stmt + "print(Y[1, 2]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_TRUE(any_kernel(p, "Y", "clamp split: the points of `o`")) << stmt;
    EXPECT_TRUE(any_kernel(p, "Y", "lanes:")) << stmt;
    // The middle loop reads at the value in int64 index arithmetic (no i32 wrap, no clamp).
    EXPECT_TRUE(any_kernel(p, "Y", "const int64_t cr", true)) << stmt;
  }
}

TEST(ClampSplit, NegativeCoefficientsAndConstantWindowsAreNotSplit) {
  for (const char* stmt : {"let Y[i in 0..64, o in 0..200] = max[b in 0..m](x[i, cl(399 - o * s + b, 0, 399)]);\n",
                           "let Y[i in 0..64, o in 0..200] = max[b in 0..3](x[i, cl(o * s + b - 1, 0, 399)]);\n"}) {
    auto c = compile(std::string(kInputs) + stmt + "print(Y[1, 2]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_FALSE(any_kernel(p, "Y", "clamp split:")) << stmt;
  }
}

}  // namespace
}  // namespace ein
