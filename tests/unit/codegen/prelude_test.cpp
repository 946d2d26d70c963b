// The kernel prelude's helpers, compiled here as generated code sees them: they must agree with
// engine/value's semantics (Rust casts, SPEC integer division) and be accurate (exp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#define EIN_KERNEL_TU 1
#include "engine/codegen/prelude.h"

namespace {

int64_t ulps(float a, float b) {
  if (a == b) return 0;
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(int64_t(ia) - int64_t(ib));
}

TEST(KernelPrelude, ExpIsWithinTwoUlpOfLibm) {
  int64_t worst = 0;
  float at = 0;
  for (float x = -103.0f; x < 88.7f; x += 0.0013f) {
    float want = std::exp(x);
    if (want < std::numeric_limits<float>::min()) continue;  // subnormal results: see below
    int64_t u = ulps(ein_expf(x), want);
    if (u > worst) {
      worst = u;
      at = x;
    }
  }
  EXPECT_LE(worst, 2) << "at x = " << at;
  EXPECT_EQ(ein_expf(0.0f), 1.0f);
  EXPECT_TRUE(std::isinf(ein_expf(89.0f)));
  EXPECT_TRUE(std::isinf(ein_expf(INFINITY)));
  EXPECT_EQ(ein_expf(-INFINITY), 0.0f);
  EXPECT_EQ(ein_expf(-200.0f), 0.0f);
  EXPECT_TRUE(std::isnan(ein_expf(NAN)));
  EXPECT_NEAR(ein_expf(-100.0f), std::exp(-100.0f), 1e-45f * 4);
}

TEST(KernelPrelude, FloatToIntCastsSaturateLikeRust) {
  EXPECT_EQ(ein_f2i32(3.9), 3);
  EXPECT_EQ(ein_f2i32(-3.9), -3);
  EXPECT_EQ(ein_f2i32(1e20), INT32_MAX);
  EXPECT_EQ(ein_f2i32(-1e20), INT32_MIN);
  EXPECT_EQ(ein_f2i32(NAN), 0);
  EXPECT_EQ(ein_f2i8(300.0), 127);
  EXPECT_EQ(ein_f2i64(1e300), INT64_MAX);
  EXPECT_EQ(ein_f2i64(-1e300), INT64_MIN);
}

TEST(KernelPrelude, IntegerDivisionFollowsTheSpec) {
  ein_err err{};
  unsigned char stop = 0;
  ein_args a{};
  a.err = &err;
  a.interrupt = &stop;
  EXPECT_EQ(ein_div_i32(&a, 0, 0, -7, 2), -3);
  EXPECT_EQ(ein_rem_i32(&a, 0, 0, -7, 3), -1);
  EXPECT_EQ(ein_div_i32(&a, 0, 0, INT32_MIN, -1), INT32_MIN);  // wraps, no trap
  EXPECT_EQ(ein_rem_i64(&a, 0, 0, INT64_MIN, -1), 0);
  EXPECT_EQ(err.code, 0);
  ein_div_i32(&a, 5, 9, 1, 0);
  EXPECT_EQ(err.code, EIN_E_DIV);
  EXPECT_EQ(err.site, 5);
  // A later failure in sequential order does not replace the first one.
  ein_rem_i32(&a, 6, 12, 1, 0);
  EXPECT_EQ(err.site, 5);
  ein_rem_i32(&a, 7, 3, 1, 0);
  EXPECT_EQ(err.site, 7);
  EXPECT_EQ(err.code, EIN_E_REM);
  EXPECT_EQ(ein_ipow_i32(&a, 0, 0, 3, 4), 81);
}

}  // namespace
