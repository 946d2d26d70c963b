// Auto tiering of clauses whose size is known only at run time (inside functions): the work
// counted is the points times the terms of a reduction in the stored value, also when the
// reduction sits under an epilogue (`sum[i](x[b, i] * W[o, i]) + bias[o]`, the library
// `linear`). A few rows of a wide layer are few points but many terms.
#include "engine/session/session.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

TEST(TierRuntime, ReductionUnderAnEpilogueCountsItsTerms) {
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  env.set("EIN_JIT_THRESHOLD", "32768");
  std::string out;
  SessionOptions so;
  so.jit = "auto";
  so.out = [&](const std::string& t) { out += t; };
  Session s(so);
  // Inputs from an earlier cell: the call's cell plans only the function's clause.
  ASSERT_TRUE(s.run_cell("let x[r in 0..2, d in 0..256] = ((r * 7 + d * 3) % 23) as f32 * 0.125;\n"
                         "let W[o in 0..512, d in 0..256] = ((o * 5 + d) % 19) as f32 * 0.0625;\n"
                         "let b[o in 0..512] = (o % 7) as f32;\n"
                         "let tiny[r in 0..2, d in 0..4] = (r + d) as f32;\n"
                         "let Wt[o in 0..3, d in 0..4] = (o * d) as f32;\n"
                         "let bt[o in 0..3] = 1.0;")
                  .ok);
  ASSERT_TRUE(s.run_cell("fn layer(x, W, bias) { let y[r, o] = sum[i](x[r, i] * W[o, i]) + bias[o]; y }").ok);
  // 2 x 512 points (below the threshold), 262144 terms (above): compiled when it runs.
  CellResult big = s.run_cell("let y = layer(x, W, b);");
  ASSERT_TRUE(big.ok) << big.rendered;
  EXPECT_EQ(big.kernel_hits + big.kernel_misses, 1);
  // 2 x 3 points of 4 terms: interpreted.
  CellResult small = s.run_cell("let z = layer(tiny, Wt, bt);");
  ASSERT_TRUE(small.ok) << small.rendered;
  EXPECT_EQ(small.kernel_hits + small.kernel_misses, 0);
  // Values by hand: y[0, 0] = sum_d x[0, d] W[0, d] + 0; z[1, 2] = sum_d (1 + d)(2 d) + 1 = 41.
  ASSERT_TRUE(s.run_cell("print(z[1, 2]);").ok);
  EXPECT_NE(out.find("41"), std::string::npos) << out;
}

}  // namespace
}  // namespace ein
