// Calls with literal arguments (`average_pool(X, [3, 3], [1, 1], [1, 1, 1, 1])`) share one
// specialisation when their literals are structurally equal and every open argument is a
// literal written at the call (type_infer_call.cpp, `shares_literals`); other literals, a
// literal reached through a binding, or a result type the caller still decides keep a unit of
// their own. Sharing is what keeps the second and later calls from being analysed, lowered and
// planned again (docs/performance.md, "per-call cost").
#include <gtest/gtest.h>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {
namespace {

// The specialisation each `let NAME = ...` statement's first call resolves to.
std::map<std::string, const Unit*> targets(Compiled& c, std::initializer_list<const char*> names) {
  std::map<std::string, const Unit*> out;
  for (const char* n : names) {
    auto calls = nodes_of(c.stmt(ir::Kind::Let, n), ir::Kind::Call);
    if (calls.empty()) continue;
    auto it = c.cell().call_targets.find(calls[0]->id);
    out[n] = it == c.cell().call_targets.end() ? nullptr : it->second;
  }
  return out;
}

size_t fn_units(Compiled& c, const std::string& prefix) {
  size_t n = 0;
  for (auto& u : c.cx->units)
    if (u->kind == Unit::Kind::Fn && u->name.rfind(prefix, 0) == 0) ++n;
  return n;
}

// Sums over windows of k[0] elements: the literal k decides the result's extent.
const std::string kWin =
    "fn win(x, k) { let y[i in 0..len(x) - k[0] + 1] = sum[j in 0..k[0]](x[i + j]); y }\n"
    "let x: [f32; 8] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];\n";

TEST(SpecShare, EqualWrittenLiteralsShareOneSpecialisation) {
  auto c = compile(kWin + "let a = win(x, [3]);\nlet b = win(x, [3]);\nlet c = win(x, [2]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto t = targets(*c, {"a", "b", "c"});
  ASSERT_TRUE(t["a"] && t["b"] && t["c"]);
  EXPECT_EQ(t["a"], t["b"]);
  EXPECT_NE(t["a"], t["c"]) << "other literal values are another specialisation";
  EXPECT_EQ(fn_units(*c, "win("), 2u);
}

TEST(SpecShare, StdLayerCalledAgainIsAnalysedOnce) {
  // The pool helper's finding: each of these calls was a specialisation of its own (with the
  // std helpers it calls), about 10 ms of analysis and planning each.
  std::string src = "let X[n in 0..1, c in 0..2, h in 0..6, w in 0..6] = (c + h * w) as f32;\n";
  for (int k = 0; k < 4; ++k)
    src += "let Y" + std::to_string(k) + " = std::ml::average_pool(X, [3, 3], [1, 1], [1, 1, 1, 1]);\n";
  src += "let Z = std::ml::average_pool(X, [2, 2], [1, 1], [0, 0, 0, 0]);\n";
  auto c = compile(src);
  ASSERT_TRUE(c->ok) << c->rendered();
  auto t = targets(*c, {"Y0", "Y1", "Y2", "Y3", "Z"});
  for (const char* n : {"Y1", "Y2", "Y3"}) EXPECT_EQ(t[n], t["Y0"]) << n;
  EXPECT_NE(t["Z"], t["Y0"]);
  EXPECT_EQ(fn_units(*c, "average_pool("), 2u);
}

TEST(SpecShare, LiteralThroughABindingKeepsItsOwnUnit) {
  // `k`'s type may be decided by the caller's other uses of k: such a call never shares.
  auto c = compile(kWin + "let k = [3];\nlet a = win(x, k);\nlet b = win(x, [3]);\nlet c = win(x, [3]);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto t = targets(*c, {"a", "b", "c"});
  EXPECT_NE(t["a"], t["b"]);
  EXPECT_EQ(t["b"], t["c"]);
}

TEST(SpecShare, OpenResultIsNeverShared) {
  // first([3, 3]) is an integer literal's type until the caller decides: i64 here, i32 there.
  // Sharing would unify the two (E002); each call keeps its own specialisation.
  auto c = compile("fn first(a) { a[0] }\nlet p: i64 = first([3, 3]);\nlet q: i32 = first([3, 3]);\n"
                   "let r = p + 1;\nlet s = q + 1;\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  auto t = targets(*c, {"p", "q"});
  EXPECT_NE(t["p"], t["q"]);
  EXPECT_EQ(c->type_name_of("r"), "i64");
  EXPECT_EQ(c->type_name_of("s"), "i32");
}

}  // namespace
}  // namespace ein::testing
