// Auto tiering of clauses whose size is known only at run time (inside functions): the work
// counted is the points times the terms of a reduction in the stored value, also when the
// reduction sits under an epilogue (`sum[i](x[b, i] * W[o, i]) + bias[o]`, the library
// `linear`). A few rows of a wide layer are few points but many terms.
#include <memory>

#include "engine/session/session.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

// A session in auto mode with its own kernel cache and the given threshold; prints into `out`.
struct AutoSession {
  TempDir dir;
  ScopedEnv env;
  std::string out;
  std::unique_ptr<Session> session;
  explicit AutoSession(const char* threshold) {
    env.set("EIN_CACHE_DIR", dir.path());
    env.set("EIN_JIT_THRESHOLD", threshold);
    SessionOptions so;
    so.jit = "auto";
    so.out = [this](const std::string& t) { out += t; };
    session = std::make_unique<Session>(so);
  }
};

TEST(TierRuntime, ReductionUnderAnEpilogueCountsItsTerms) {
  AutoSession a("32768");
  Session& s = *a.session;
  std::string& out = a.out;
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

TEST(TierRuntime, SmallRunsOfAFunctionAddUpAcrossCallsAndCells) {
  // Each run of the clause is below the threshold; its runs are counted together (in the cell
  // and across cells, by the specialisation's signature and the clause's span) and the clause is
  // compiled once they reach it. A redefined function is another DefId and counts afresh.
  AutoSession a("100");
  Session& s = *a.session;
  std::string& out = a.out;
  ASSERT_TRUE(s.run_cell("let x[r in 0..2, d in 0..4] = (r + d) as f32;\nlet W[o in 0..3, d in 0..4] = (o * d) as f32;").ok);
  ASSERT_TRUE(s.run_cell("fn layer(x, W) { let y[r, o] = sum[i](x[r, i] * W[o, i]) + 1.0; y }").ok);
  // 6 points of 4 terms (24 < 100) a run.
  int first = -1;
  for (int cell = 0; cell < 8; ++cell) {
    CellResult r = s.run_cell("let z = layer(x, W);\nprint(z[1, 2]);");
    ASSERT_TRUE(r.ok) << r.rendered;
    if (r.kernel_hits + r.kernel_misses > 0 && first < 0) first = cell;
  }
  EXPECT_GE(first, 1) << "the first small run is interpreted";
  EXPECT_LE(first, 5) << "runs of 24 reach 100 by the fifth";
  // z[1, 2] = sum_d (1 + d)(2 d) + 1 = 41, interpreted and compiled alike.
  size_t n = 0;
  for (size_t at = out.find("41"); at != std::string::npos; at = out.find("41", at + 1)) ++n;
  EXPECT_EQ(n, 8u) << out;
  // Four calls in one cell of a function redefined with another body: counted afresh, together.
  ASSERT_TRUE(s.run_cell("fn layer(x, W) { let y[r, o] = sum[i](x[r, i] * W[o, i]) + 2.0; y }").ok);
  CellResult one = s.run_cell("let a = layer(x, W);\nprint(a[1, 2]);");
  ASSERT_TRUE(one.ok) << one.rendered;
  EXPECT_EQ(one.kernel_hits + one.kernel_misses, 0);
  CellResult four = s.run_cell("let b = layer(x, W);\nlet c = layer(x, W);\nlet d = layer(x, W);\nlet e = layer(x, W);\n"
                               "print(e[1, 2]);");
  ASSERT_TRUE(four.ok) << four.rendered;
  EXPECT_EQ(four.kernel_hits + four.kernel_misses, 1);
  EXPECT_NE(out.find("42"), std::string::npos) << out;
}

}  // namespace
}  // namespace ein
