// Loop versioning on a run-time stride of one (engine/codegen/unit_stride.cpp), read from the
// kernel plan: a vector loop reading along a contiguous axis at `v * s` with s a scalar fixed
// before it gets versions for s == 1 and s == 2, both as an innermost copy loop and as reduce_lanes'
// point loop; literal strides, strides on other axes and loop variables as strides do not.
// Values: the golden test regressions/unit_stride_versions.
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
    "let m = n % 3 + 1;\n";

TEST(UnitStride, CopyAndWindowSumAlongTheContiguousAxisGetAVersionForOne) {
  auto c = compile(std::string(kInputs) +
                   "let P[i in 0..64, o in 0..100] = x[i, o * s + 1];\n"
                   "let S[i in 0..64, o in 0..100] = sum[b in 0..m](x[i, s * o + b]);\n"
                   "print(P[1, 2], S[1, 2]);\n");
  CellPlan p = plan_always(*c);
  EXPECT_TRUE(any_kernel(p, "P", "stride: a read along the contiguous axis steps by a run-time `s`"));
  EXPECT_TRUE(any_kernel(p, "S", "stride: a read along the contiguous axis steps by a run-time `s`"));
  EXPECT_TRUE(any_kernel(p, "S", "lanes:"));
  EXPECT_TRUE(any_kernel(p, "P", " == 1) {", true));
  EXPECT_TRUE(any_kernel(p, "P", " == 2) {", true));
}

TEST(UnitStride, LiteralStridesOtherAxesAndLoopVariablesAreNotVersioned) {
  for (const char* stmt : {"let P[i in 0..64, o in 0..100] = x[i, o * 2];\n",
                           "let P[o in 0..30, j in 0..400] = x[o * s, j];\n",
                           "let P[i in 0..64, o in 0..6] = x[i, o * i];\n"}) {
    auto c = compile(std::string(kInputs) + stmt + "print(P[1, 2]);\n");
    CellPlan p = plan_always(*c);
    EXPECT_FALSE(any_kernel(p, "P", "stride:")) << stmt;
  }
}

}  // namespace
}  // namespace ein
