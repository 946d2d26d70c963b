// The memo plan (lang/passes/memo_plan.h): which calls, block lets and local tensors inside loops
// the interpreter may reuse. Each test is a rule: what depends on fewer loop variables than the
// point is marked; what reads the innermost variable, has an effect, takes a closure or reads
// the tensor being computed where its statement is writing is not. Values are checked by the
// golden regressions/memo_loop_invariant (NumPy).
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

using ir::Kind;

// Marked calls of the function named `fn` in the cell, and all calls of it.
std::pair<int, int> calls_of(Compiled& c, const std::string& fn) {
  int marked = 0, all = 0;
  std::set<uint32_t> seen;
  for (auto& n : nodes_of(c.cell().lowered, Kind::Call)) {
    const ir::NodeRef& callee = ir::call_callee(*n);
    if (callee->name.find(fn) == std::string::npos || !seen.insert(n->id).second) continue;
    ++all;
    marked += n->has(ir::kInvariantCall);
  }
  return {marked, all};
}

bool let_marked(Compiled& c, const std::string& name) {
  for (auto& n : nodes_of(c.cell().lowered, Kind::Let))
    if (ir::let_pattern(*n)->name == name) return n->has(ir::kInvariantCall);
  ADD_FAILURE() << "no let " << name;
  return false;
}

const char* kPrelude =
    "let x: [f64; 4] = [0.5, -1.0, 2.0, 0.25];\nfn tot(v) { sum[k](v[k]) }\nfn sq(a) { a * a }\n";

TEST(MemoPlan, RecurrenceStepLocalsDependOnTimeOnly) {
  auto c = compile(std::string(kPrelude) +
                   "let H[0, i in 0..4] = x[i];\n"
                   "let H[t in 1..9, i in 0..4] = { let hp[e] = H[t - 1, e] * 3.0; "
                   "let p = std::ml::softmax(hp); p[i] + x[i] };\nprint(H[8]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  ASSERT_TRUE(c->ltensor("hp"));
  EXPECT_TRUE(c->ltensor("hp")->has(ir::kInvariantCall));
  EXPECT_TRUE(let_marked(*c, "p"));
}

TEST(MemoPlan, ReadOfTheRowBeingWrittenIsNotReused) {
  // A[i, 0] is written by the same outermost iteration i that reads it.
  auto c = compile(std::string(kPrelude) +
                   "let A[i in 0..3, j in 0..4] = if j == 0 { 1.0 } else { sq(A[i, 0]) + tot(x) };\n"
                   "print(A);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "sq"), std::make_pair(0, 1));
  EXPECT_EQ(calls_of(*c, "tot"), std::make_pair(1, 1));
}

TEST(MemoPlan, InnermostVariableEffectsAndClosuresAreNotMarked) {
  auto c = compile(std::string(kPrelude) +
                   "fn noisy(v) { print(\"n\"); tot(v) }\nfn ap(f, v) { f(v[0]) }\n"
                   "let y[i in 0..4] = sq(x[i]) + noisy(x) + ap(|u| u * 2.0, x);\nprint(y);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "sq"), std::make_pair(0, 1));
  EXPECT_EQ(calls_of(*c, "noisy"), std::make_pair(0, 1));
  EXPECT_EQ(calls_of(*c, "ap"), std::make_pair(0, 1));
}

TEST(MemoPlan, OuterIndexAndStatementReductionCallsAreMarked) {
  // The call on a row `tot(X[i])` as written: row_inline would make it a declaration over i.
  CompileOpts calls_kept;
  calls_kept.row_inline = 0;
  auto c = compile(std::string(kPrelude) +
                   "let X[i in 0..3, d in 0..4] = x[d] * (i as f64);\n"
                   "let Y[i in 0..3, j in 0..4] = tot(X[i]) * x[j];\n"
                   "let s = sum[j](std::ml::softmax(x)[j] * x[j]);\nprint(Y, s);\n",
                   calls_kept);
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "tot"), std::make_pair(1, 1));
  EXPECT_EQ(calls_of(*c, "softmax"), std::make_pair(1, 1));
}

TEST(MemoPlan, OutsideLoopsNothingIsMarked) {
  auto c = compile(std::string(kPrelude) + "let s = tot(x) + sq(2.0);\nprint(s);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "tot"), std::make_pair(0, 1));
  EXPECT_EQ(calls_of(*c, "sq"), std::make_pair(0, 1));
}

}  // namespace
}  // namespace ein::testing
