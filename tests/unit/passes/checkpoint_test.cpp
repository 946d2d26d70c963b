// Checkpointed reverse sweeps (lang/passes/checkpoint.h): which gradients get checkpoints, and
// the windows of the tensors around them. The values are checked against finite differences by
// the goldens tests/golden/autodiff/ad_checkpoint_*.ein (both tiers, spacing forced to 3).
#include <gtest/gtest.h>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

using ir::Kind;

const char* kHeat =
    "let T = 14;\nlet u0[i in 0..7] = i as f64 * 0.1;\nlet k: f64 = 0.2;\nlet u[0, i in 0..7] = u0[i];\n"
    "let u[t in 1..T, 0] = 0.0;\nlet u[t in 1..T, 6] = 0.0;\n"
    "let u[t in 1..T, i in 1..6] = u[t - 1, i] + k * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);\n"
    "let loss = sum[i](u[T - 1, i] * u[T - 1, i]);\nlet g = @loss / @u0;\nlet gk = @loss / @k;\nprint(gk, g[3]);\n";

// The heat gradient of kHeat over T steps and X points (zero boundary columns). `nonlinear` adds
// a decay term quadratic in the state: then `@loss / @k` is a term of the reverse sweep (whose
// adjoint reads the state anyway), not a forward tangent (ad_request.cpp `tangent_first`).
std::string heat_src(int T, int X, bool nonlinear = true) {
  const std::string t = std::to_string(T), x = std::to_string(X), last = std::to_string(X - 1);
  return "let T = " + t + ";\nlet u0[i in 0.." + x + "] = i as f64 * 0.001;\nlet k: f64 = 0.2;\nlet u[0, i in 0.." + x +
         "] = u0[i];\nlet u[t in 1..T, 0] = 0.0;\nlet u[t in 1..T, " + last + "] = 0.0;\nlet u[t in 1..T, i in 1.." + last +
         "] = u[t - 1, i] + k * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1])" +
         (nonlinear ? " - 0.01 * u[t - 1, i] * u[t - 1, i]" : "") + ";\n"
         "let loss = sum[i](u[T - 1, i] * u[T - 1, i]);\nlet g = @loss / @u0;\nlet gk = @loss / @k;\nprint(gk, g[3]);\n";
}

int64_t window(Compiled& c, const std::string& name) {
  ir::NodeRef t = c.ltensor(name);
  if (!t) return -1;
  return ir::ltensor_window(t);
}

TEST(Checkpoint, ForcedSpacingSegmentsTheSweep) {
  auto c = compile(kHeat, {.whole_program = true, .ad_checkpoint = 3});
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef ck = c->ltensor("u_ckpt");
  ASSERT_TRUE(ck);
  // 14 rows in segments of 3: 5 checkpoints of the one base row, 7 points each.
  auto ext = ir::lshape_extents(*ir::ltensor_shape(*ck));
  ASSERT_EQ(ext.size(), 3u);
  EXPECT_EQ(ext[0]->ival, 5);
  EXPECT_EQ(ext[1]->ival, 1);
  EXPECT_NE(ck->aux.find("every 3 steps"), std::string::npos) << ck->aux;
  EXPECT_EQ(window(*c, "u"), 2);
  // Segment rows 3, the reduction reads u[t - 1] (one more), the row the segment starts from.
  EXPECT_EQ(window(*c, "u_seg"), 5);
  EXPECT_TRUE(c->ltensor("d_k_part"));  // the reduction's partial sums, one per segment
  // The segments write into tensors allocated before the loop over segments: they say so with a
  // flag (the interpreter allocates nothing for them), not with a word in their text.
  int resumed = 0;
  ir::for_each_node(c->cell().lowered, [&](const ir::NodeRef& n) {
    if (n->kind != Kind::LTensor || !n->has(ir::kResume)) return;
    ++resumed;
    EXPECT_TRUE(n->aux.empty()) << n->name << ": " << n->aux;
  });
  EXPECT_GE(resumed, 2);
}

TEST(Checkpoint, SmallGradientsStoreEverything) {
  auto c = compile(kHeat, {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_FALSE(c->ltensor("u_ckpt"));
}

TEST(Checkpoint, SessionCellsKeepTheirTensors) {
  // A later cell may read every row of u: nothing is recomputed or windowed.
  auto c = compile(kHeat, {.whole_program = false, .ad_checkpoint = 3});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_FALSE(c->ltensor("u_ckpt"));
}

TEST(Checkpoint, WholeObservationOfTheStateKeepsTheStoredForm) {
  std::string src = kHeat;
  src += "print(u);\n";
  auto c = compile(src, {.whole_program = true, .ad_checkpoint = 3});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_FALSE(c->ltensor("u_ckpt"));
}

// The bench's heat gradient (10^3 steps x 10^4 points, f64: 153 MiB stored). sqrt(T) = 32 would
// use least memory; segments of 8 keep a segment's 10 buffer rows and 8 adjoint rows (1.4 MiB)
// in a 2 MiB L2, and 125 checkpoints of 80 KiB stay under a quarter of the 64 MiB budget.
TEST(Checkpoint, DefaultSpacingKeepsASegmentInCache) {
  const std::string src = heat_src(1000, 10000);
  auto c = compile(src, {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef ck = c->ltensor("u_ckpt");
  ASSERT_TRUE(ck);
  EXPECT_NE(ck->aux.find("every 8 steps"), std::string::npos) << ck->aux;
  EXPECT_EQ(window(*c, "d_u"), 8);
}

// The linear heat stencil's `@loss / @k` is a forward tangent: it runs in the time loop of `u`
// (checkpoint_fuse.cpp), the reverse sweep of `@loss / @u0` reads only the last row of `u`, and
// nothing is checkpointed: `u`, its tangent and the adjoint keep two rows each.
TEST(Checkpoint, ScalarParameterTangentRunsBesideThePrimal) {
  auto c = compile(heat_src(1000, 10000, false), {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_FALSE(c->ltensor("u_ckpt"));
  EXPECT_EQ(window(*c, "u"), 2);
  EXPECT_EQ(window(*c, "t_u"), 2);
  EXPECT_EQ(window(*c, "d_u"), 2);
  bool planned = false;
  ir::for_each_node(c->cell().lowered, [&](const ir::NodeRef& n) {
    planned = planned || (n->kind == Kind::LTensor && n->name == "u" &&
                          n->aux.find("`t_u` run(s) in the time loop of `u`") != std::string::npos);
  });
  EXPECT_TRUE(planned);
  // Another reader of every row of `u` (here the whole state printed) keeps it whole: no window.
  auto whole = compile(heat_src(1000, 10000, false) + "print(u);\n", {.whole_program = true});
  ASSERT_TRUE(whole->ok) << whole->rendered();
  EXPECT_EQ(window(*whole, "u"), 0);
}

// An f32 state keeps the reverse terms (summed in f64): an f32 tangent of a slowly decaying step
// settles eps / (1 - w) away from the derivative (ad_request.cpp `tangent_first`).
TEST(Checkpoint, SinglePrecisionStatesKeepTheReverseTerms) {
  auto c = compile(
      "let T = 1000;\nlet x[i in 0..1000] = ((i * 7) % 13) as f32 * 0.001;\nlet w: f32 = 0.999;\n"
      "let h[0, i in 0..1000] = x[i];\nlet h[t in 1..T, i in 0..1000] = w * h[t - 1, i] + 0.001 * x[i];\n"
      "let loss = sum[i](h[T - 1, i]);\nlet gw = @loss / @w;\nprint(gw);\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_FALSE(c->ltensor("t_h"));
  EXPECT_TRUE(c->ltensor("d_h"));
}

TEST(Checkpoint, VectorParameterGradientsAddPerSegment) {
  // `@loss / @W` is a tensor of sums over time: allocated before the reverse sweep, each segment
  // adds its terms (a resumed clause of d_W inside the loop over segments), so the state is
  // checkpointed instead of stored.
  auto c = compile(
      "use std::math::tanh;\nlet T = 11;\nlet W[j in 0..3, k in 0..3] = (j * 2 + k) as f64 * 0.1;\n"
      "let h[0, j in 0..3] = 0.5;\nlet h[t in 1..T, j in 0..3] = tanh(sum[k](W[j, k] * h[t - 1, k]));\n"
      "let loss = sum[j](h[T - 1, j]);\nlet gW = @loss / @W;\nprint(gW);\n",
      {.whole_program = true, .ad_checkpoint = 3});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_TRUE(c->ltensor("h_ckpt"));
  int resumed = 0;
  ir::for_each_node(c->cell().lowered, [&](const ir::NodeRef& n) {
    resumed += n->kind == Kind::LTensor && n->name == "d_W" && n->has(ir::kResume);
  });
  EXPECT_EQ(resumed, 1);
}

// Below the budget: the 2000 x 1000 heat gradient would store 31 MiB of fresh rows, which are slower
// to touch than a segment recomputed in cache, and checkpoints save nearly all of it; the 10^6-step
// scalar recurrence whose adjoint is read whole (`@last / @u`) would save only half: stored.
TEST(Checkpoint, BelowTheBudgetOnlyLargeSavingsAreCheckpointed) {
  auto heat = compile(heat_src(2000, 1000), {.whole_program = true});
  ASSERT_TRUE(heat->ok) << heat->rendered();
  EXPECT_TRUE(heat->ltensor("u_ckpt"));
  auto rec = compile(
      "let T = 1000000;\nlet u[t in 0..T] = ((t * 7) % 13) as f64 * 0.001;\nlet w: f64 = 0.999;\nlet h[0] = 1.0;\n"
      "let h[t in 1..T] = w * h[t - 1] + u[t];\nlet last = h[T - 1];\nlet dw = @last / @w;\nlet du = @last / @u;\n"
      "print(dw, du[3]);\n",
      {.whole_program = true});
  ASSERT_TRUE(rec->ok) << rec->rendered();
  EXPECT_FALSE(rec->ltensor("h_ckpt"));
}

const char* kStoredRecurrence =
    "let T = 1000000;\nlet u[t in 0..T] = ((t * 7) % 13) as f64 * 0.001;\nlet w: f64 = 0.999;\nlet h[0] = 1.0;\n"
    "let h[t in 1..T] = w * h[t - 1] + u[t];\nlet last = h[T - 1];\nlet dw = @last / @w;\nlet du = @last / @u;\n"
    "print(dw, du[3]);\n";

// The sweep's plan (the aux of the adjoint's allocation) and whether its reduction became partial
// sums added per block.
void expect_blocks(Compiled& c, const std::string& blocks) {
  ir::NodeRef a = c.ltensor("d_h");
  ASSERT_TRUE(a);
  EXPECT_NE(a->aux.find("runs in blocks of " + blocks), std::string::npos) << a->aux;
  EXPECT_TRUE(c.ltensor("d_w_part"));
  EXPECT_FALSE(c.ltensor("h_ckpt"));
  EXPECT_EQ(window(c, "h"), 0);  // stored whole
}

// Stored (checkpoints would save half), but more than the cache holds: the adjoint's steps run in
// blocks of 64 KiB of rows (4096 steps of two f64), each followed by its terms of `@last / @w`.
TEST(Checkpoint, StoredSweepsRunInBlocksWithTheirReductions) {
  auto c = compile(kStoredRecurrence, {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  expect_blocks(*c, "4096 steps (245)");
}

// In a session cell the state is a global a later cell may read whole: never checkpointed or
// windowed, even when the spacing is forced, but its gradient's sweep runs in blocks.
TEST(Checkpoint, SessionCellsSweepInBlocks) {
  for (int64_t forced : {0, 3}) {
    auto c = compile(kStoredRecurrence, {.whole_program = false, .ad_checkpoint = forced});
    ASSERT_TRUE(c->ok) << c->rendered();
    expect_blocks(*c, "4096 steps (245)");
  }
  // Rows that fit the cache: nothing to gain, the plain form.
  auto small = compile(kHeat, {.whole_program = false});
  ASSERT_TRUE(small->ok) << small->rendered();
  EXPECT_FALSE(small->ltensor("d_k_part"));
}

// Tensors whose statements write every point skip the zero fill of a reused block
// (checkpoint_fill.cpp); points none writes get zero stores first. Values: the golden
// autodiff/ad_fill_reused_blocks.ein, whose tensors get a dropped tensor's bytes.
TEST(Checkpoint, TensorsWrittenWholeSkipTheZeroFill) {
  auto c = compile(kStoredRecurrence, {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  // The primal: a base row and the recurrence's rows.
  ASSERT_TRUE(c->ltensor("h"));
  EXPECT_TRUE(c->ltensor("h")->has(ir::kFilledLater));
  // The adjoint: its last row, then the blocks' rows [1, T - 1) tile over the loop of blocks;
  // row 0 (no step reaches it) is stored as a zero before anything else.
  ir::NodeRef a = c->ltensor("d_h");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->has(ir::kFilledLater));
  auto st = ir::ltensor_stmts(*a);
  ASSERT_FALSE(st.empty());
  ASSERT_EQ(st.front()->kind, Kind::LStore);
  EXPECT_EQ(ir::lstore_value(*st.front())->kind, Kind::FloatLit);
  EXPECT_EQ(ir::lstore_index(*st.front())[0]->ival, 0);
}

TEST(Checkpoint, PartlyWrittenOrAccumulatedTensorsKeepTheFill) {
  auto c = compile(
      "let x[i in 0..40000, j in 0..3] = (i + j) as f64;\n"
      "let s[i in 0..40000] = sum[j](x[i, j]);\n"                         // a contraction adds into it
      "let g[i in 0..80000] = x[i % 4, 0] where i > 2;\n"                 // a guard skips points
      "let b[i in 0..30000] = 1.0;\nlet b[i in 50000..90000] = 2.0;\n"    // a hole
      "let small[2] = 7.0;\n"                                             // a fill below 64 KiB: as written
      "print(s[3], g[5], b[40000], small);\n",
      {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_TRUE(c->ltensor("x")->has(ir::kFilledLater));
  EXPECT_FALSE(c->ltensor("s")->has(ir::kFilledLater));
  EXPECT_FALSE(c->ltensor("g")->has(ir::kFilledLater));
  EXPECT_FALSE(c->ltensor("small")->has(ir::kFilledLater));
  // The hole [30000, 50000) becomes a zero store (a loop) before b's own statements.
  ir::NodeRef b = c->ltensor("b");
  EXPECT_TRUE(b->has(ir::kFilledLater));
  auto st = ir::ltensor_stmts(*b);
  ASSERT_EQ(st.size(), 3u);
  ASSERT_EQ(st[0]->kind, Kind::LFor);
  EXPECT_EQ(ir::lfor_lo(*st[0])->ival, 30000);
  EXPECT_EQ(ir::lfor_hi(*st[0])->ival, 50000);
}

}  // namespace
}  // namespace ein::testing
