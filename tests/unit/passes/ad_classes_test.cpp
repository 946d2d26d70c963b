// Autodiff through the constructs the differential tester found rejected or wrong (SPEC §7:
// derivatives go through every expression): where-derived indices in declarations, whole-array
// reduction functions, comprehensions (generators over arrays, guards, lets, nesting, inside
// larger expressions), recurrences that run from high to low, `x ** 0`. Every gradient is
// compared with central finite differences of the f64 primal (ad_fixture.h), in f32 and f64.
#include <gtest/gtest.h>

#include "tests/unit/passes/ad_fixture.h"

namespace ein::testing {
namespace {

const AdProgram kDerivedIndexDecl{
    "where-derived index in a declaration",
    "let v: [{T}; 4] = {P};\nlet w: [{T}; 2] = [0.5, -1.5];\n"
    "let t[n] = sum[q in 0..2](v[p] * v[q] * w[q] where p = n + q);\n"
    "let u[n] = sum[q in 0..2](v[p] * w[q]) where p = n + q;\n"
    "let loss = sum[n](t[n] * t[n]) + sum[n](u[n] * t[n]);",
    "v", {4}, {-1.0, 2.0, 0.5, 1.25}};

const AdProgram kDerivedIndexChain{
    "where-derived index through a binding",
    "let v: [{T}; 5] = {P};\n"
    "let t[n in 0..2] = sum[q in 0..2](v[r] * v[q]) where p = n + q, r = p + 1;\n"
    "let loss = t[0] * t[1];",
    "v", {5}, {0.5, -1.0, 2.0, 0.25, 1.5}};

const AdProgram kWholeArrayReductions{
    "whole-array reduction functions",
    "let v: [{T}; 4] = {P};\nlet M[i in 0..2, j in 0..2] = v[i] * v[j + 2];\n"
    "let loss = sum(v) * max(v) + min(M) * prod(v) + sum(v * v) / max(M);",
    "v", {4}, {1.0, 5.0, -2.0, 0.5}};

const AdProgram kComprehensions{
    "comprehensions",
    "let v: [{T}; 4] = {P};\nlet w: {T} = 1.5;\n"
    "let c = [x * x * w | x in v, x > 0.0];\n"
    "let d = [y + v[0] | y in c, z = y * y, z < 100.0];\n"
    "let e = [z * v[i] | i in 0..3, z = v[i + 1] * 2.0, i != 1];\n"
    "let loss = sum[i](c[i] * c[i]) + sum[i](d[i]) * sum([x * 2.0 + w | x in v]) + sum(e);",
    "v", {4}, {1.0, -2.0, 3.0, 0.5}};

const AdProgram kComprehensionMatrix{
    "comprehension over a matrix",
    "let M: [{T}; 2, 3] = {P};\n"
    "let f = [M[i, j] * M[1 - i, 2 - j] | i in 0..2, j in 0..3, i + j != 2];\n"
    "let loss = sum[k](f[k] * (k as {T} + 1.0));",
    "M", {2, 3}, {1.0, 2.0, -3.0, 0.5, 4.0, -1.0}};

const AdProgram kReverseRecurrence{
    "recurrence from high to low",
    "let v: [{T}; 4] = {P};\nlet a: {T} = 0.7;\nlet h[3] = v[3];\n"
    "let h[i in 0..3] = a * h[i + 1] * h[i + 1] + v[i];\nlet loss = h[0] + h[1] * h[2];",
    "v", {4}, {0.5, -0.25, 0.8, 0.3}};

const AdProgram kReverseRecurrence2d{
    "2-D recurrence from high to low",
    "let v: [{T}; 4] = {P};\nlet a: {T} = 0.7;\n"
    "let H[i in 0..3, 2] = v[i];\nlet H[2, j in 0..2] = v[j + 1];\n"
    "let H[i in 0..2, j in 0..2] = a * H[i + 1, j] + H[i, j + 1] * H[i + 1, j + 1];\n"
    "let loss = H[0, 0] + H[1, 0];",
    "v", {4}, {0.5, -0.25, 0.8, 0.3}};

const AdProgram* const kClasses[] = {&kDerivedIndexDecl, &kDerivedIndexChain, &kWholeArrayReductions,
                                     &kComprehensions, &kComprehensionMatrix, &kReverseRecurrence,
                                     &kReverseRecurrence2d};

TEST(AdClasses, F32GradientsMatchFiniteDifferences) {
  for (const AdProgram* p : kClasses) {
    std::string err;
    auto g = p->gradient("f32", &err);
    ASSERT_FALSE(g.empty()) << p->name << ": " << err;
    expect_close(g, p->finite_differences(), 1e-4, p->name);
  }
}

TEST(AdClasses, F64GradientsMatchFiniteDifferences) {
  for (const AdProgram* p : kClasses) {
    std::string err;
    auto g = p->gradient("f64", &err);
    ASSERT_FALSE(g.empty()) << p->name << ": " << err;
    expect_close(g, p->finite_differences(), 1e-6, p->name);
  }
}

TEST(AdClasses, NativeKernelsGiveTheInterpreterValues) {
  for (const AdProgram* p : kClasses) {
    std::string err;
    std::string src = p->source("f64", p->values) + "\n@loss / @" + p->param + "\n";
    auto a = eval(src, &err, "never");
    ASSERT_FALSE(a.empty()) << p->name << ": " << err;
    auto b = eval(src, &err, "always");
    ASSERT_FALSE(b.empty()) << p->name << ": " << err;
    expect_close(b, a, 1e-9, p->name);
  }
}

// d(x ** 0)/dx is 0 everywhere, also at 0 (n * x ** (n - 1) would be 0 * inf there), whether the
// exponent is a literal or a value.
TEST(AdClasses, PowerZeroHasZeroDerivativeAtZero) {
  std::string err;
  auto g = eval("let x: f64 = 0.0;\nlet n = 0;\nlet k: f64 = 0.0;\n"
                "let y = x ** 0 + x ** n + x ** k + x ** 0.0;\n@y / @x\n", &err);
  ASSERT_EQ(g.size(), 1u) << err;
  EXPECT_EQ(g[0], 0.0);
  g = eval("let x: f64 = 2.0;\nlet n = 3;\nlet y = x ** n;\n@y / @x\n", &err);
  ASSERT_EQ(g.size(), 1u) << err;
  EXPECT_DOUBLE_EQ(g[0], 12.0);
}

// A row of a lazy Jacobian of an independent target has the row's shape, not the whole zero
// Jacobian's.
TEST(AdClasses, RowOfAZeroJacobianHasTheRowShape) {
  std::string err;
  auto g = eval("let x: [f64; 3] = [1.0, 2.0, 3.0];\nlet c: f64 = 1.0;\n"
                "let t[i in 0..2, j in 0..4] = c;\nlet J = @t / @x;\nJ[1]\n", &err);
  EXPECT_EQ(g.size(), 12u) << err;
  g = eval("let x: [f64; 3] = [1.0, 2.0, 3.0];\nlet c: f64 = 1.0;\n"
           "let t[i in 0..2] = c;\nlet J = @t / @x;\nJ[1]\n", &err);
  EXPECT_EQ(g.size(), 3u) << err;
}

}  // namespace
}  // namespace ein::testing
