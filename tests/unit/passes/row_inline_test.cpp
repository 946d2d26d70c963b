// The rows rewrite (lang/passes/row_inline.h): a call on a row of an array indexed by the
// statement's own indices becomes declarations over those rows; the rules for when it does not
// apply. Values are checked by the goldens regressions/row_inline_values and
// row_inline_grad (NumPy, central differences).
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/passes/row_test_util.h"

namespace ein::testing {
namespace {

using ir::Kind;

// Einstein declarations of the analysed cell named `name` (at any depth), outside function
// items (the callee's own body keeps its declarations).
int decls_named(Compiled& c, const std::string& name) {
  int n = 0;
  for (auto& k : cell_nodes(c, Kind::EinGroup)) n += k->name == name;
  return n;
}

const char* kPrelude =
    "let X: [f64; 2, 3] = [[0.5, -1.0, 2.0], [0.25, 3.0, -0.5]];\n"
    "let g: [f64; 3] = [1.0, 2.0, 3.0];\n"
    "fn sm(v) { let m = max[k](v[k]); let e[k] = std::math::exp(v[k] - m); let s = sum[k](e[k]); "
    "let y[k] = e[k] / s; y }\n";

TEST(RowInline, UserFunctionOnRowBecomesDeclarationsOverTheRows) {
  auto c = compile(std::string(kPrelude) + "let Z[i, j] = sm(X[i])[j];\nprint(Z);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "sm"), 0);
  // m, e, s, y of the body, each over the row index, and Z itself inside the statement's block.
  EXPECT_EQ(decls_named(*c, "m"), 1);
  EXPECT_EQ(decls_named(*c, "e"), 1);
  EXPECT_EQ(decls_named(*c, "s"), 1);
  EXPECT_EQ(decls_named(*c, "Z"), 1);
  for (auto& k : nodes_of(c->cell().body, Kind::EinGroup))
    if (k->name == "m") {
      EXPECT_EQ(ir::ein_slots(*ir::group_clauses(k)[0]).size(), 1u);  // m[i'] (was a scalar let)
    }
}

TEST(RowInline, LibraryFunctionsAndNestedCallsAreInlined) {
  auto c = compile(std::string(kPrelude) +
                   "let A[i, j] = std::ml::softmax(X[i])[j];\n"
                   "let L[i, j] = std::ml::layer_normalization(X[i], g, g, 0.00001, -1)[j];\n"
                   "print(A, L);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "softmax"), 0);
  EXPECT_EQ(calls_of(*c, "layer_normalization"), 0);
  EXPECT_EQ(calls_of(*c, "normalize_trailing"), 0);  // the second round
}

TEST(RowInline, ScalarResultsReductionsAndSeveralRows) {
  auto c = compile(std::string(kPrelude) +
                   "fn nrm(v) { std::math::sqrt(sum[k](v[k] * v[k])) }\n"
                   "fn pair(a, b) { let d = sum[k](a[k] * b[k]); let y[k] = a[k] * d - b[k]; y }\n"
                   "let n[i] = nrm(X[i]);\nlet t = sum[i](nrm(X[i]));\n"
                   "let P[i, j] = pair(X[i], X[1 - i])[j];\nprint(n, t, P);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "nrm"), 0);
  EXPECT_EQ(calls_of(*c, "pair"), 0);
}

// The first call of `fn` in the analysed cell (null when none).
ir::NodeRef first_call(Compiled& c, const std::string& fn) {
  for (auto& k : nodes_of(c.cell().body, Kind::Call))
    if (ir::call_callee(*k)->name == fn) return k;
  return nullptr;
}

TEST(RowInline, CalleesWithDerivativeRulesStayCallsPerElement) {
  // SPEC §7: the rule is used instead of the body, so the body must not be inlined; an
  // elementwise callee is called on the element, any other stays a call on the row.
  auto c = compile("let X: [f64; 2, 3] = [[0.5, -1.0, 2.0], [0.25, 3.0, -0.5]];\n"  // no sm: its exp
                   "fn q(x) { let y[k] = x[k] * 2.0; y }\n@fn q(x) { @x }\n"
                   "fn q2(x) { let f = x * 2.0; f + 1.0 }\n@fn q2(x) { @x * 2.0 }\n"
                   "let Z[i, j] = q(X[i])[j];\nlet Z2[i, j] = q2(X[i])[j];\n"
                   "let A[i, j] = std::ml::softmax(std::math::exp(X[i]))[j];\nprint(Z, Z2, A);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "q"), 1);
  ASSERT_EQ(calls_of(*c, "q2"), 1);
  ir::NodeRef q2 = first_call(*c, "q2");
  ASSERT_EQ(ir::call_args(*q2)[0]->kind, Kind::Index);
  EXPECT_EQ(ir::index_args_count(ir::call_args(*q2)[0]), 2u);  // X[i, j]: an element
  EXPECT_EQ(calls_of(*c, "softmax"), 0);
  int exps = 0;  // std::math::exp, a path
  for (auto& k : nodes_of(c->cell().body, Kind::Call))
    if (ir::call_callee(*k)->name.ends_with("::exp")) {
      ++exps;
      ASSERT_EQ(ir::call_args(*k)[0]->kind, Kind::Index);
      EXPECT_EQ(ir::index_args_count(ir::call_args(*k)[0]), 2u);  // exp(X[i', j'])
    }
  EXPECT_GE(exps, 1);
}

TEST(RowInline, WhereItDoesNotApplyTheCallStays) {
  // A call on elements (kernels inline those), an effect in the body, an argument that calls
  // a function, and EIN_ROW_INLINE=never. (A recurrence's own previous row: row_step_test.cpp.)
  auto c = compile(std::string(kPrelude) +
                   "fn sq(a) { a * a }\nfn noisy(v) { print(\"n\"); sum[k](v[k]) }\n"
                   "let Q[i, j] = sq(X[i, j]);\nlet N[i] = noisy(X[i]);\n"
                   "let R[i, j] = std::ml::softmax(X[i])[j] * sm(sm(g))[j];\nprint(Q, N, R);\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "sq"), 1);
  EXPECT_EQ(calls_of(*c, "noisy"), 1);
  EXPECT_EQ(calls_of(*c, "sm"), 2);  // sm(sm(g)): no row
  EXPECT_EQ(calls_of(*c, "softmax"), 0);
  CompileOpts never;
  never.row_inline = 0;
  auto k = compile(std::string(kPrelude) + "let Z[i, j] = sm(X[i])[j];\nprint(Z);\n", never);
  ASSERT_TRUE(k->ok) << k->rendered();
  EXPECT_EQ(calls_of(*k, "sm"), 1);
}

TEST(RowInline, FunctionBodiesAreRewrittenPerSpecialisation) {
  // The rewritten body replaces the specialisation's (CompileCtx::ad_bodies): the analysed
  // function unit reaches no softmax, and the cell still calls the function.
  auto c = compile(std::string(kPrelude) +
                   "fn attn(S) { let A[i, j in 0..len(S[0])] = std::ml::softmax(S[i])[j]; A }\n"
                   "print(attn(X));\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_EQ(calls_of(*c, "attn"), 1);
  int softmax_calls = 0;
  for (auto& u : c->cx->units)
    if (u->kind == Unit::Kind::Fn && u->name.rfind("attn", 0) == 0)
      for (auto& k : nodes_of(u->body, Kind::Call)) softmax_calls += ir::call_callee(*k)->name == "softmax";
  EXPECT_EQ(softmax_calls, 0);
}

}  // namespace
}  // namespace ein::testing
