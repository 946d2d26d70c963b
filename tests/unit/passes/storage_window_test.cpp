// Storage windows (SPEC §5.5, lang/passes/storage_window.h): a recurrence whose later uses only
// read a bounded suffix may be stored in a circular buffer of W = max(lookback + 1, distance
// from the end) steps — but only when the whole program is known, and never when the tensor is
// observed whole. The observable result must be identical to the full-tensor run, so every
// windowed program here is also run both ways and the outputs compared.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

using ir::Kind;

// Window size of tensor `name` (0 = not windowed); also checks that the flags are consistent:
// a windowed tensor has every store and every read of it marked.
int64_t window_of(Compiled& c, const std::string& name) {
  ir::NodeRef t = c.ltensor(name);
  EXPECT_TRUE(t) << "no LTensor " << name;
  if (!t) return -1;
  bool windowed = t->has(ir::kWindowed);
  ir::DefId def = t->def;
  for (auto& s : nodes_of(c.cell().lowered, Kind::LStore))
    if (s->def == def) {
      EXPECT_EQ(s->has(ir::kWindowed), windowed) << "store of " << name;
    }
  for (auto& i : nodes_of(c.cell().lowered, Kind::Index))
    if (ir::index_base(i)->kind == Kind::Name && ir::index_base(i)->def == def) {
      EXPECT_EQ(i->has(ir::kWindowed), windowed) << "read of " << name;
    }
  if (!windowed) return 0;
  return t->kids[0]->ival;
}

const char* kFibLast =
    "let fib[0] = 0;\nlet fib[1] = 1;\nlet fib[n in 2..30] = fib[n - 1] + fib[n - 2];\n"
    "print(fib[29]);\n";

TEST(StorageWindow, LastPointOnlyGivesLookbackPlusOne) {
  auto c = compile(kFibLast, {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "fib"), 3);  // lookback 2
}

TEST(StorageWindow, LookbackOneGivesTwo) {
  auto c = compile("let T = 50;\nlet x[0] = 1.0;\nlet x[t in 1..T] = x[t - 1] * 0.5 + 1.0;\n"
                   "print(x[T - 1]);\n",
                   {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "x"), 2);
}

TEST(StorageWindow, ReadFurtherFromTheEndWidensTheWindow) {
  // x[T - 4] with lookback 1: the last 4 steps must be kept.
  auto c = compile("let T = 20;\nlet x[0] = 1.0;\nlet x[t in 1..T] = x[t - 1] * 0.5;\n"
                   "print(x[T - 4], x[T - 1]);\n",
                   {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "x"), 4);
}

TEST(StorageWindow, ObservedWholeKeepsTheFullTensor) {
  auto c = compile("let fib[0] = 0;\nlet fib[1] = 1;\nlet fib[n in 2..30] = fib[n - 1] + fib[n - 2];\n"
                   "print(fib[29]);\nprint(fib);\n",
                   {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "fib"), 0);
}

TEST(StorageWindow, ALambdaReadingTheRecurrenceKeepsTheFullTensor) {
  // The lambda is lowered as a unit of its own, whose reads the window would not reach
  // (regressions/closure_reads_windowed_recurrence); a lambda reading only other values does
  // not stand in the way.
  auto c = compile("fn G(f, x) { f(x) }\nlet h[0] = 1.0;\n"
                   "let h[t in 1..20] = G(|u| u * h[t - 1], 1.5);\nprint(h[19]);\n",
                   {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "h"), 0);
  auto d = compile("fn G(f, x) { f(x) }\nlet h[0] = 1.0;\n"
                   "let h[t in 1..20] = G(|u| u * 0.5, h[t - 1]);\nprint(h[19]);\n",
                   {.whole_program = true});
  ASSERT_TRUE(d->ok) << d->rendered();
  EXPECT_EQ(window_of(*d, "h"), 2);
}

TEST(StorageWindow, OtherWholeTensorObservations) {
  // len(), a member access, a reduction over every point, a lambda that captures it, and a
  // data-dependent index all observe more than a bounded suffix.
  const char* uses[] = {
      "print(len(x));",
      "print(x.shape);",
      "print(sum[t](x[t]));",
      "let f = |k| x[k];",
      "let k = len([1.0 | q in 0..3, q > 0]);\nprint(x[k]);",
  };
  for (const char* use : uses) {
    auto c = compile(std::string("let x[0] = 1.0;\nlet x[t in 1..40] = x[t - 1] * 0.5;\nprint(x[39]);\n") +
                         use + "\n",
                     {.whole_program = true});
    ASSERT_TRUE(c->ok) << use << "\n" << c->rendered();
    EXPECT_EQ(window_of(*c, "x"), 0) << use;
  }
}

TEST(StorageWindow, SessionCellsNeverWindowTopLevelBindings) {
  // A later cell may read any point: whole_program = false keeps the tensor.
  auto c = compile(kFibLast, {.whole_program = false});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "fib"), 0);
}

TEST(StorageWindow, NoWindowWhenItWouldNotBeSmaller) {
  // Lookback 2 on 3 points: a window of 3 saves nothing.
  auto c = compile("let f[0] = 0;\nlet f[1] = 1;\nlet f[n in 2..3] = f[n - 1] + f[n - 2];\nprint(f[2]);\n",
                   {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "f"), 0);
}

// Programs whose result must not depend on windowing.
const char* kSameResult[] = {
    kFibLast,
    "let T = 50;\nlet x[0] = 1.0;\nlet x[t in 1..T] = x[t - 1] * 0.5 + 1.0;\nprint(x[T - 1]);\n",
    "let T = 20;\nlet x[0] = 1.0;\nlet x[t in 1..T] = x[t - 1] * 0.5;\nprint(x[T - 4], x[T - 1]);\n",
    // Logistic map (f32), trib (lookback 3), and a 2-D heat equation read at its last row.
    "let r = 3.7;\nlet xs[0] = 0.1;\nlet xs[n in 1..60] = r * xs[n - 1] * (1.0 - xs[n - 1]);\n"
    "print(xs[59]);\n",
    "let tr[0] = 0;\nlet tr[1] = 0;\nlet tr[2] = 1;\n"
    "let tr[n in 3..25] = tr[n - 1] + tr[n - 2] + tr[n - 3];\nprint(tr[24], tr[22]);\n",
    "let u0 = [0.0, 0.0, 1.0, 0.0, 0.0];\nlet u[0, x in 0..5] = u0[x];\nlet u[t in 1..30, 0] = 0.0;\n"
    "let u[t in 1..30, 4] = 0.0;\n"
    "let u[t in 1..30, x in 1..4] = u[t - 1, x] + 0.25 * (u[t - 1, x - 1] - 2.0 * u[t - 1, x] + "
    "u[t - 1, x + 1]);\nprint(u[29]);\n",
};

TEST(StorageWindow, WindowedRunsPrintWhatFullRunsPrint) {
  for (const char* src : kSameResult) {
    auto whole = run_program(src, /*whole_program=*/true);
    auto cells = run_program(src, /*whole_program=*/false);
    ASSERT_TRUE(whole.cell.ok) << src << whole.cell.rendered;
    ASSERT_TRUE(cells.cell.ok) << src << cells.cell.rendered;
    EXPECT_FALSE(whole.out.empty());
    EXPECT_EQ(whole.out, cells.out) << src;
  }
}

TEST(StorageWindow, TheComparedProgramsReallyAreWindowed) {
  // Guards the test above against comparing two identical full-tensor runs.
  const char* names[] = {"fib", "x", "x", "xs", "tr", "u"};
  for (size_t i = 0; i < std::size(kSameResult); ++i) {
    auto c = compile(kSameResult[i], {.whole_program = true});
    ASSERT_TRUE(c->ok) << c->rendered();
    EXPECT_GT(window_of(*c, names[i]), 0) << kSameResult[i];
  }
}

TEST(StorageWindow, KnownValues) {
  // fib(29) = 514229; trib(24) with trib(0..2) = 0, 0, 1 is 410744 and trib(22) = 121415
  // (computed with Python integers).
  EXPECT_EQ(run_program(kFibLast, true).out, "514229\n");
  EXPECT_EQ(run_program(kSameResult[4], true).out, "410744 121415\n");
}


// Recurrences swept from their last row down (adjoints, or written that way) and observed only at
// their first rows keep a window too, but only when every row down to the observed one is
// written whole: an unwritten point would read the row W above it instead of its zero.
int64_t adjoint_window(Compiled& c) {
  int64_t w = -1;
  for (auto& t : nodes_of(c.cell().lowered, Kind::LTensor))
    if (t->has(ir::kAdjoint) && t->has(ir::kReverse)) w = window_of(c, t->name);
  return w;
}

const char* kHeatU0 =
    "let T = 30;\nlet u0[i in 0..6] = i as f64 * 0.1;\nlet u[0, i in 0..6] = u0[i];\n"
    "let u[t in 1..T, 0] = 0.0;\nlet u[t in 1..T, 5] = 0.0;\n"
    "let u[t in 1..T, i in 1..5] = u[t - 1, i] + 0.2 * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);\n"
    "let loss = sum[i](u[T - 1, i] * u[T - 1, i]);\nlet g = @loss / @u0;\nprint(g);\n";

TEST(StorageWindow, AdjointObservedAtItsFirstRowIsWindowed) {
  auto c = compile(kHeatU0, {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "u"), 2);      // the linear stencil's adjoint never reads u
  EXPECT_EQ(adjoint_window(*c), 2);      // lookback 1 swept downwards, read at row 0
  auto whole = run_program(kHeatU0, true), cells = run_program(kHeatU0, false);
  ASSERT_TRUE(whole.cell.ok) << whole.cell.rendered;
  EXPECT_FALSE(whole.out.empty());
  EXPECT_EQ(whole.out, cells.out);
}

TEST(StorageWindow, BackwardsRecurrenceNeedsEveryRowDownToTheObservedOne) {
  // Row 0 of z is never written: its full tensor holds 0 there, a window would hold z[2].
  auto y = compile("let y[9] = 1.0;\nlet y[t in 0..9] = y[t + 1] * 0.5;\nprint(y[0]);\n", {.whole_program = true});
  ASSERT_TRUE(y->ok) << y->rendered();
  EXPECT_EQ(window_of(*y, "y"), 2);
  auto z = compile("let z[9] = 1.0;\nlet z[t in 1..9] = z[t + 1] * 0.5;\nprint(z[0]);\n", {.whole_program = true});
  ASSERT_TRUE(z->ok) << z->rendered();
  EXPECT_EQ(window_of(*z, "z"), 0);
  EXPECT_EQ(run_program("let z[9] = 1.0;\nlet z[t in 1..9] = z[t + 1] * 0.5;\nprint(z[0], z[1]);\n", true).out,
            "0.0 0.00390625\n");
}

TEST(StorageWindow, BackwardsRecurrenceMissingAColumnKeepsTheFullTensor) {
  // Column 0 is written at the last row only: a window would carry it down to every row.
  auto c = compile("let z[9, j in 0..3] = 1.0;\nlet z[t in 0..9, j in 1..3] = z[t + 1, j] * 0.5;\nprint(z[0, 0]);\n",
                   {.whole_program = true});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(window_of(*c, "z"), 0);
}

}  // namespace
}  // namespace ein::testing
