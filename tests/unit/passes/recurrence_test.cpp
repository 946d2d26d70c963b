// Recurrence ordering (SPEC §5.5, lang/passes/recurrence_order.h): E012 for reads of points that
// are not computed yet (future reads, the point being written, same-step cycles), the
// sequential / parallel flags of loops, the fused time loop with same-step clause order, loop
// reordering when slot order would read the future, and the recurrence facts (axis, lookback)
// that storage windows rely on. Values are checked against hand-computed sequences.
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

using ir::Kind;

// The LFor kids of an LTensor (its clause nests and fused time loop), in order.
std::vector<ir::NodeRef> top_loops(const ir::NodeRef& t) {
  std::vector<ir::NodeRef> out;
  for (auto& k : t->kids)
    if (k->kind == Kind::LFor) out.push_back(k);
  return out;
}

// "axis=A lookback=L" of a loop that recurrence_order made a fused time loop, else "".
std::string recurrence_of(const Unit& u, const ir::NodeRef& loop) {
  auto it = u.recurrences.find(loop->id);
  if (it == u.recurrences.end()) return "";
  return "axis=" + std::to_string(it->second.axis) + " lookback=" +
         (it->second.lookback ? std::to_string(*it->second.lookback) : std::string("?"));
}

// The fused time loop of a recurrence of the cell, or null.
ir::NodeRef time_loop(Compiled& c, const ir::NodeRef& t) {
  for (auto& l : top_loops(t))
    if (!recurrence_of(c.cell(), l).empty()) return l;
  return nullptr;
}

const char* kFib =
    "let fib[0] = 0;\nlet fib[1] = 1;\nlet fib[n in 2..15] = fib[n - 1] + fib[n - 2];\n";

TEST(Recurrence, FutureReadIsE012) {
  auto c = compile("let x[0] = 1;\nlet x[t in 1..5] = x[t + 1] + 1;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E012");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
  EXPECT_EQ(c->text_of(d->primary), "x[t + 1]");
}

TEST(Recurrence, ReadingThePointBeingWrittenIsE012) {
  auto c = compile("let x[t in 0..5] = x[t] + 1;\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E012");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->text_of(d->primary), "x[t]");
  EXPECT_NE(d->message.find("being defined"), std::string::npos) << d->message;
}

TEST(Recurrence, FutureReadOnTheInnerAxisIsE012) {
  // H[i, j + 1] reads forward along j at the same i; with j moved outermost it still reads a
  // later j. No loop order makes it backward.
  auto c = compile("let H[i in 1..4, j in 0..3] = H[i - 1, j] + H[i, j + 1];\n");
  EXPECT_TRUE(c->has_code("E012")) << c->rendered();
}

TEST(Recurrence, SameStepCycleWithLookbackIsE012) {
  auto c = compile("let s[0, 0] = 1.0;\nlet s[0, 1] = 1.0;\n"
                   "let s[t in 1..3, 0] = s[t, 1] + s[t - 1, 0];\n"
                   "let s[t in 1..3, 1] = s[t, 0] + s[t - 1, 1];\n");
  ASSERT_FALSE(c->ok);
  const Diagnostic* d = c->diag("E012");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_NE(d->message.find("within one step"), std::string::npos) << d->message;
}

TEST(Recurrence, SameStepCycleWithoutLookbackIsE012) {
  auto c = compile("let s[t in 0..3, 0] = s[t, 1];\nlet s[t in 0..3, 1] = s[t, 0];\n");
  EXPECT_TRUE(c->has_code("E012")) << c->rendered();
}

TEST(Recurrence, FibonacciAuxRecordsAxisAndLookback) {
  auto c = compile(kFib);
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("fib");
  ASSERT_TRUE(t);
  ir::NodeRef tl = time_loop(*c, t);
  ASSERT_TRUE(tl) << ir::to_sexpr(t);
  EXPECT_EQ(recurrence_of(c->cell(), tl), "axis=0 lookback=2");
  EXPECT_TRUE(tl->has(ir::kSequential));
  EXPECT_FALSE(tl->has(ir::kParallel));
  // The two initial conditions are plain stores before the loop.
  ASSERT_GE(t->kids.size(), 4u);
  EXPECT_EQ(t->kids[1]->kind, Kind::LStore);
  EXPECT_EQ(t->kids[2]->kind, Kind::LStore);
  EXPECT_EQ(t->kids.back(), tl);
}

TEST(Recurrence, LookbackIsTheLargestBackwardDistance) {
  auto c = compile("let trib[0] = 0;\nlet trib[1] = 0;\nlet trib[2] = 1;\n"
                   "let trib[n in 3..12] = trib[n - 1] + trib[n - 2] + trib[n - 3];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef tl = time_loop(*c, c->ltensor("trib"));
  ASSERT_TRUE(tl);
  EXPECT_EQ(recurrence_of(c->cell(), tl), "axis=0 lookback=3");
}

TEST(Recurrence, FibonacciValues) {
  auto r = run_program(std::string(kFib) + "print(fib);\n");
  ASSERT_TRUE(r.cell.ok) << r.cell.rendered;
  EXPECT_EQ(r.out, "[0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377]\n");
}

TEST(Recurrence, NonRecurrentClausesAreParallel) {
  auto c = compile("let A = [[1, 2], [3, 4]];\nlet B[i, j] = A[j, i] * 2;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto loops = nodes_of(c->ltensor("B"), Kind::LFor);
  ASSERT_EQ(loops.size(), 2u);
  for (auto& l : loops) {
    EXPECT_TRUE(l->has(ir::kParallel)) << l->name;
    EXPECT_FALSE(l->has(ir::kSequential)) << l->name;
  }
}

TEST(Recurrence, OnlyTheCarryingLoopIsSequential) {
  // Heat equation: u[t, x] reads u[t - 1, x +- 1]. Time is sequential, space parallel.
  auto c = compile("let u0 = [0.0, 0.0, 1.0, 0.0, 0.0];\n"
                   "let u[0, x in 0..5] = u0[x];\n"
                   "let u[t in 1..4, 0] = 0.0;\n"
                   "let u[t in 1..4, 4] = 0.0;\n"
                   "let u[t in 1..4, x in 1..4] = u[t - 1, x] + 0.25 * (u[t - 1, x - 1] - "
                   "2.0 * u[t - 1, x] + u[t - 1, x + 1]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("u");
  ir::NodeRef tl = time_loop(*c, t);
  ASSERT_TRUE(tl) << ir::to_sexpr(t);
  EXPECT_TRUE(tl->has(ir::kSequential));
  EXPECT_EQ(recurrence_of(c->cell(), tl), "axis=0 lookback=1");
  // The three clauses that loop over t are fused into the time loop: their stores are inside
  // it; the initial row (literal t = 0) runs first, outside.
  EXPECT_EQ(count_of(tl, Kind::LStore), 3u);
  EXPECT_EQ(count_of(t, Kind::LStore), 4u);
  auto tops = top_loops(t);
  ASSERT_EQ(tops.size(), 2u);
  EXPECT_EQ(tops[1], tl) << "the initial condition runs before the time loop";
  // Inside the time loop the only loop left is the x loop of the interior clause: parallel.
  auto inner = nodes_of(tl->kids[2], Kind::LFor);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_EQ(inner[0]->name, "x");
  EXPECT_TRUE(inner[0]->has(ir::kParallel));
}

TEST(Recurrence, TwoCarriedAxesAreBothSequential) {
  // Lattice paths: P[i, j] reads P[i - 1, j] and P[i, j - 1]: both loops carry a dependence.
  auto c = compile("let P[0, j in 0..5] = 1;\nlet P[i in 1..5, 0] = 1;\n"
                   "let P[i in 1..5, j in 1..5] = P[i - 1, j] + P[i, j - 1];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef tl = time_loop(*c, c->ltensor("P"));
  ASSERT_TRUE(tl);
  auto inner = nodes_of(tl->kids[2], Kind::LFor);
  ASSERT_EQ(inner.size(), 1u);
  EXPECT_TRUE(inner[0]->has(ir::kSequential));
  auto r = run_program("let P[0, j in 0..5] = 1;\nlet P[i in 1..5, 0] = 1;\n"
                       "let P[i in 1..5, j in 1..5] = P[i - 1, j] + P[i, j - 1];\nprint(P[4]);\n");
  // Row 4 of Pascal's lattice: C(4 + j, j) = 1, 5, 15, 35, 70.
  EXPECT_EQ(r.out, "[1, 5, 15, 35, 70]\n");
}

TEST(Recurrence, IndependentOuterAxisStaysParallel) {
  // c[i, t] reads c[i, t - 1]: t carries, i does not.
  auto c = compile("let c[i in 0..3, t in 0..4] = if t == 0 { i } else { c[i, t - 1] * 2 };\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto loops = nodes_of(c->ltensor("c"), Kind::LFor);
  std::map<std::string, uint32_t> flags;
  for (auto& l : loops) flags[l->name] = l->flags;
  ASSERT_TRUE(flags.count("i") && flags.count("t"));
  EXPECT_TRUE(flags["t"] & ir::kSequential);
  EXPECT_TRUE(flags["i"] & ir::kParallel);
  auto r = run_program("let c[i in 0..3, t in 0..4] = if t == 0 { i } else { c[i, t - 1] * 2 };\n"
                       "print(c);\n");
  EXPECT_EQ(r.out, "[[0, 0, 0, 0], [1, 2, 4, 8], [2, 4, 8, 16]]\n");
}

TEST(Recurrence, SameStepClausesAreOrderedByDependency) {
  // The clause for s[t, 1] is written first but reads s[t, 0] of the same step: the fused loop
  // must run the s[t, 0] clause first.
  const char* src =
      "let forcing = [1.0, 2.0, 0.0, -1.0, 3.0];\nlet s[0, 0] = 0.0;\nlet s[0, 1] = 0.0;\n"
      "let s[t in 1..5, 1] = s[t - 1, 1] + s[t, 0];\n"
      "let s[t in 1..5, 0] = s[t - 1, 0] + forcing[t];\n";
  auto c = compile(src);
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef tl = time_loop(*c, c->ltensor("s"));
  ASSERT_TRUE(tl);
  auto stores = nodes_of(tl, Kind::LStore);
  ASSERT_EQ(stores.size(), 2u);
  ASSERT_EQ(stores[0]->kids.size(), 3u);
  EXPECT_EQ(stores[0]->kids[2]->ival, 0) << "s[t, 0] must be stored first";
  EXPECT_EQ(stores[1]->kids[2]->ival, 1);
  // s[:, 0] is the running sum of forcing from t = 1; s[:, 1] the running sum of s[:, 0].
  auto r = run_program(std::string(src) + "print(s);\n");
  EXPECT_EQ(r.out, "[[0.0, 0.0], [2.0, 2.0], [2.0, 4.0], [1.0, 5.0], [4.0, 9.0]]\n");
}

TEST(Recurrence, SameStepReadWithoutLookbackIsOrdered) {
  auto r = run_program("let s[t in 0..3, 0] = s[t, 1] + 1.0;\nlet s[t in 0..3, 1] = 5.0;\nprint(s);\n");
  EXPECT_EQ(r.out, "[[6.0, 5.0], [6.0, 5.0], [6.0, 5.0]]\n");
}

TEST(Recurrence, CarrierLoopIsMovedOutermost) {
  // Slot order (j, i) would read W[j + 1, ..] before it is computed; with i outermost every
  // read W[j + 1, i - 1] is from the previous i. Values by hand:
  //   j = 2: 2 2 2 2;  j = 1: 1 3 3 3;  j = 0: 0 2 4 4.
  const char* src =
      "let W[j in 0..3, i in 0..4] = if i == 0 || j == 2 { j } else { W[j + 1, i - 1] + 1 };\n";
  auto c = compile(src);
  ASSERT_TRUE(c->ok) << c->rendered();
  ir::NodeRef t = c->ltensor("W");
  auto tops = top_loops(t);
  ASSERT_EQ(tops.size(), 1u);
  EXPECT_EQ(tops[0]->name, "i") << ir::to_sexpr(t);
  EXPECT_TRUE(tops[0]->has(ir::kSequential));
  EXPECT_EQ(recurrence_of(c->cell(), tops[0]).rfind("axis=1 ", 0), 0u) << recurrence_of(c->cell(), tops[0]);
  auto r = run_program(std::string(src) + "print(W);\n");
  EXPECT_EQ(r.out, "[[0, 2, 4, 4], [1, 3, 3, 3], [2, 2, 2, 2]]\n");
}

TEST(Recurrence, RecurrenceInsideAFunction) {
  // Recurrences are ordered in every unit, not only the cell.
  auto c = compile("fn cum(v) { let c[0] = v[0]; let c[t in 1..len(v)] = c[t - 1] + v[t]; c }\n"
                   "let r = cum([1, 2, 3, 4]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  bool found = false;
  for (auto& u : c->cx->units) {
    if (u->kind != Unit::Kind::Fn) continue;
    for (auto& l : nodes_of(u->lowered, Kind::LFor))
      if (recurrence_of(*u, l) == "axis=0 lookback=1") found = true;
  }
  EXPECT_TRUE(found);
  auto r = run_program("fn cum(v) { let c[0] = v[0]; let c[t in 1..len(v)] = c[t - 1] + v[t]; c }\n"
                       "print(cum([1, 2, 3, 4]), cum([5, -5]));\n");
  EXPECT_EQ(r.out, "[1, 3, 6, 10] [5, 0]\n");
}

TEST(Recurrence, ExplicitRangeReadingBeforeZeroIsE005AtRunTime) {
  // x[t - 1] with t from 0: the explicit range is not narrowed, so t = 0 reads x[-1].
  auto r = run_program("print(1);\nlet x[t in 0..5] = x[t - 1] + 1;\nprint(x);\n");
  EXPECT_EQ(r.out, "1\n");
  ASSERT_FALSE(r.cell.ok);
  ASSERT_FALSE(r.cell.diags.empty());
  EXPECT_EQ(r.cell.diags[0].code, "E005") << r.cell.rendered;
}

}  // namespace
}  // namespace ein::testing
