// Requests a function specialisation refuses are lowered at its calls (ad_callsite.cpp), and
// integer subscripts wider than the adjoint's i32 point meet it as i64 (ad_contribution.cpp).
// Expected values by hand.
#include "tests/unit/passes/ad_fixture.h"

namespace ein::testing {
namespace {

// det recurses until t == n: inside the function n is a run-time extent; at the call, 2.
// d det / dA of [[a, b], [c, d]] is [[d, -c], [-b, a]].
TEST(AdCallSite, RequestThroughExtentIterationLowersAtTheCall) {
  std::string err;
  auto g = eval("use std::ml::det;\nfn g(A) { let d = det(A); @d / @A }\n"
                "let A: [f64; 2, 2] = [[2.0, 1.0], [0.5, 3.0]];\ng(A)\n", &err);
  ASSERT_EQ(g.size(), 4u) << err;
  expect_close(g, {3.0, -0.5, -1.0, 2.0}, 1e-12, "det");
  // Through a function calling it: inlined there first, then at the cell's call.
  g = eval("use std::ml::det;\nfn g(A) { let d = det(A); @d / @A }\nfn h(A) { g(A)[0, 1] }\n"
           "let A: [f64; 2, 2] = [[2.0, 1.0], [0.5, 3.0]];\nh(A)\n", &err);
  ASSERT_EQ(g.size(), 1u) << err;
  EXPECT_DOUBLE_EQ(g[0], -0.5);
}

// A request refused at the call too keeps its E013 (a tuple holding the parameter).
TEST(AdCallSite, RefusedAtTheCallStaysE013) {
  auto c = compile("fn f(x) { let t = (x, 3.0); let (a, b) = t; let y = a * b; @y / @x }\nlet r = f(2.0);\n");
  EXPECT_FALSE(c->ok);
  bool e013 = false;
  for (auto& d : c->diags.all()) e013 = e013 || d.code == "E013";
  EXPECT_TRUE(e013) << c->rendered();
}

// `lp[n, t[n]]` with i64 labels and `x[i + o]` with an i64 offset, inside functions.
TEST(AdCallSite, WideIntegerSubscriptsInFunctions) {
  std::string err;
  auto g = eval("fn f(x, t) { let L = sum[n](x[t[n]] * x[t[n]]); @L / @x }\n"
                "let x: [f64; 4] = [0.5, -1.0, 2.0, 3.0];\nf(x, [2, 2, 0] as [i64])\n", &err);
  ASSERT_EQ(g.size(), 4u) << err;
  expect_close(g, {1.0, 0.0, 8.0, 0.0}, 1e-12, "labels");
  g = eval("fn f(x, o) { let y[i in 0..2] = x[i + o]; let L = sum[i](y[i] * y[i]); @L / @x }\n"
           "let x: [f64; 4] = [0.5, -1.0, 2.0, 3.0];\nlet o: i64 = 1;\nf(x, o)\n", &err);
  ASSERT_EQ(g.size(), 4u) << err;
  expect_close(g, {0.0, -2.0, 4.0, 0.0}, 1e-12, "offset");
}

}  // namespace
}  // namespace ein::testing
