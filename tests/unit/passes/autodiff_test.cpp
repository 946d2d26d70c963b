// Autodiff (SPEC §7): gradients of several programs checked two independent ways —
//  - against values derived by hand (closed-form derivatives evaluated here in C++), and
//  - against central finite differences of the primal program run in f64.
// Each program is a template: {T} is the float type, {P} the literal of the parameter. The
// gradients are computed by ein at f32 (compared with a tolerance fitting f32) and at f64
// (compared tightly).
// Also: Jacobian rows and entries against the full Jacobian, derivatives through earlier
// cells, the symbolic differential, and E013 for unnamed targets and unsupported constructs.
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/passes/ad_fixture.h"

namespace ein::testing {
namespace {

// The programs. Constants are literals typed by context ({T} annotations).
const AdProgram kElementwise{
    "elementwise",
    "use std::math::{sin, exp};\nlet x: [{T}; 3] = {P};\n"
    "let y[i] = sin(x[i]) * x[i] * x[i] + exp(0.5 * x[i]) / (1.0 + x[i] * x[i]);\n"
    "let loss = sum[i](y[i]);",
    "x", {3}, {0.3, -1.2, 2.0}};

const AdProgram kMatmul{
    "matmul",
    "let A: [{T}; 2, 3] = {P};\nlet B: [{T}; 3, 2] = [[1.0, -2.0], [0.5, 3.0], [-1.0, 1.5]];\n"
    "let C[i, j] = sum[k](A[i, k] * B[k, j]);\nlet loss = sum[i, j](C[i, j] * C[i, j]);",
    "A", {2, 3}, {0.5, -1.0, 2.0, 1.5, 0.25, -0.75}};

const AdProgram kWhereConv{
    "where-conv",
    "let s: [{T}; 6] = [1.0, -2.0, 0.5, 3.0, -1.0, 2.0];\nlet r: [{T}; 4] = [1.0, 0.5, -1.0, 2.0];\n"
    "let w: [{T}; 3] = {P};\n"
    "let c[o] = sum[k](s[p] * w[k]) where p = o + k;\n"
    "let loss = sum[o](c[o] * c[o] * r[o]);",
    "w", {3}, {0.2, -0.4, 1.1}};

const AdProgram kSoftmaxCe{
    "softmax-cross-entropy",
    "use std::math::{exp, ln};\nlet z: [{T}; 4] = {P};\nlet m = max[i](z[i]);\n"
    "let e[i] = exp(z[i] - m);\nlet s = sum[i](e[i]);\nlet loss = ln(s) + m - z[2];",
    "z", {4}, {0.5, -1.0, 2.0, 0.25}};

const AdProgram kMlp{
    "mlp",
    "use std::math::tanh;\n"
    "let X: [{T}; 3, 2] = [[1.0, 2.0], [-1.0, 0.5], [0.0, -1.5]];\n"
    "let b1: [{T}; 3] = [0.1, -0.2, 0.3];\nlet W2: [{T}; 3] = [0.7, -1.1, 0.4];\n"
    "let y: [{T}; 3] = [1.0, 0.0, -1.0];\nlet W1: [{T}; 2, 3] = {P};\n"
    "let z[n, j] = sum[k](X[n, k] * W1[k, j]) + b1[j];\nlet h[n, j] = tanh(z[n, j]);\n"
    "let out[n] = sum[j](h[n, j] * W2[j]);\n"
    "let loss = sum[n]((out[n] - y[n]) * (out[n] - y[n])) / 3.0;",
    "W1", {2, 3}, {0.3, -0.2, 0.5, 0.1, 0.4, -0.6}};

const AdProgram kRecurrence1d{
    "recurrence-1d",
    "let x: [{T}; 5] = [0.5, -1.0, 2.0, 0.25, -0.5];\nlet w: [{T}; 2] = {P};\n"
    "let h[0] = x[0];\nlet h[t in 1..5] = h[t - 1] * h[t - 1] * w[0] + x[t] * w[1];\nlet loss = h[4];",
    "w", {2}, {0.8, -0.6}};

const AdProgram kRecurrence2d{
    "recurrence-2d",
    "let a: [{T}; 3] = {P};\nlet P[0, j in 0..3] = a[j];\nlet P[i in 1..3, 0] = 1.0;\n"
    "let P[i in 1..3, j in 1..3] = 0.5 * P[i - 1, j] * P[i, j - 1] + 0.1 * P[i - 1, j - 1];\n"
    "let loss = P[2, 2] + P[1, 2];",
    "a", {3}, {0.9, -1.3, 0.6}};

const AdProgram kMaxMin{
    "max-reduction",
    "let x: [{T}; 4] = {P};\nlet loss = max[i](x[i] * x[i]) + min[i](x[i]);",
    "x", {4}, {0.5, -3.0, 2.0, 1.0}};

const AdProgram kPiecewise{
    "piecewise",
    "let x: [{T}; 4] = {P};\nlet f[0] = x[0] * x[0];\nlet f[i in 1..4] = x[i] * 3.0;\n"
    "let loss = sum[i](f[i] * f[i]);",
    "x", {4}, {1.5, -2.0, 0.5, 3.0}};

// Inputs fed into a recurrence step by step: the reverse sweep splits the adjoint's range at the
// seeds and guards (ad_split.cpp) and, where an input's adjoint equals the state's, shares it.
// Seeds at interior steps; the first step active or not; an input read one step back (no
// sharing); an input longer than the state (no sharing, the adjoint keeps the input's extent).
const AdProgram kRecurrenceInput{
    "recurrence-input",
    "let x: [{T}; 6] = {P};\nlet w: {T} = 0.9;\nlet h[0] = 1.0;\n"
    "let h[t in 1..6] = w * h[t - 1] + x[t];\nlet loss = h[3] + 0.5 * h[5] * h[5];",
    "x", {6}, {0.5, -1.0, 2.0, 0.25, -0.5, 1.5}};

const AdProgram kRecurrenceInputFirst{
    "recurrence-input-first-step",
    "let x: [{T}; 5] = {P};\nlet h[0] = x[0] * x[0];\n"
    "let h[t in 1..5] = 0.5 * h[t - 1] * h[t - 1] + x[t];\nlet loss = h[4];",
    "x", {5}, {0.7, -0.3, 0.4, 0.1, -0.2}};

const AdProgram kRecurrenceInputLagged{
    "recurrence-input-lagged",
    "let x: [{T}; 7] = {P};\nlet h[0] = 1.0;\n"
    "let h[t in 1..6] = 0.8 * h[t - 1] + x[t - 1] + x[t + 1] * x[t + 1];\nlet loss = h[5] + h[2];",
    "x", {7}, {0.5, -1.0, 2.0, 0.25, -0.5, 1.5, 0.75}};

// A 2-D stencil run over time with zero boundary columns: the adjoint's guards bound both axes,
// so it is split into boxes (seed row, boundary columns, interior, first row).
const AdProgram kStencil{
    "stencil-2d",
    "let u0: [{T}; 6] = {P};\nlet u[0, i in 0..6] = u0[i];\nlet u[t in 1..4, 0] = 0.0;\n"
    "let u[t in 1..4, i in 1..5] = u[t - 1, i] + 0.2 * (u[t - 1, i - 1] - 2.0 * u[t - 1, i] + u[t - 1, i + 1]);\n"
    "let u[t in 1..4, 5] = 0.0;\nlet loss = sum[i](u[3, i] * u[3, i] * u0[i]);",
    "u0", {6}, {0.5, -1.0, 2.0, 0.25, -0.5, 1.5}};

// 2-D recurrences whose clauses read the same step on both axes: the adjoint runs the primal's
// order reversed on every carried axis (a DP grid; soft-min edit distance over a cost matrix).
const AdProgram kDpGrid{
    "dp-grid",
    "let a: {T} = {P};\nlet b: {T} = 0.25;\n"
    "let x[i in 0..4, j in 0..5] = (i as {T}) * 0.1 + (j as {T}) * 0.01;\n"
    "let H[0, j in 0..5] = x[0, j];\nlet H[i in 1..4, 0] = x[i, 0];\n"
    "let H[i in 1..4, j in 1..5] = a * H[i - 1, j] + b * H[i, j - 1] + x[i, j] * H[i - 1, j - 1];\n"
    "let loss = H[2, 3] + H[3, 4] * H[3, 4];",
    "a", {}, {0.5}};

const AdProgram kSoftMinEditDistance{
    "soft-min-edit-distance",
    "use std::math::{exp, ln};\nlet g: {T} = 0.5;\nlet cost: [{T}; 4, 3] = {P};\n"
    "let D[0, j in 0..4] = j as {T};\nlet D[i in 1..5, 0] = i as {T};\n"
    "let D[i in 1..5, j in 1..4] = -g * ln(exp(-(D[i - 1, j] + 1.0) / g) + exp(-(D[i, j - 1] + 1.0) / g)"
    " + exp(-(D[i - 1, j - 1] + cost[i - 1, j - 1]) / g));\nlet loss = D[4, 3];",
    "cost", {4, 3}, {0.1, 0.9, 0.4, 0.7, 0.2, 0.8, 0.3, 0.6, 0.05, 0.5, 0.5, 0.5}};

const AdProgram* const kAll[] = {&kDpGrid, &kSoftMinEditDistance, &kElementwise, &kMatmul, &kWhereConv, &kSoftmaxCe, &kMlp,
                                 &kRecurrence1d, &kRecurrence2d, &kMaxMin, &kPiecewise,
                                 &kRecurrenceInput, &kRecurrenceInputFirst, &kRecurrenceInputLagged,
                                 &kStencil};

TEST(Autodiff, F32GradientsMatchFiniteDifferences) {
  for (const AdProgram* p : kAll) {
    std::string err;
    auto g = p->gradient("f32", &err);
    ASSERT_FALSE(g.empty()) << p->name << ": " << err;
    expect_close(g, p->finite_differences(), 1e-4, p->name);
  }
}

TEST(Autodiff, F64GradientsMatchFiniteDifferences) {
  for (const AdProgram* p : kAll) {
    std::string err;
    auto g = p->gradient("f64", &err);
    ASSERT_FALSE(g.empty()) << p->name << ": " << err;
    expect_close(g, p->finite_differences(), 1e-6, p->name);
  }
}

// ---- hand-computed gradients ----------------------------------------------------------------

TEST(Autodiff, ElementwiseMathByHand) {
  // d/dx [sin(x) x^2 + e^(x/2) / (1 + x^2)] = cos x x^2 + 2x sin x + e^(x/2) (0.5 (1 + x^2) - 2x) / (1 + x^2)^2
  std::vector<double> want;
  for (double x : kElementwise.values) {
    double q = 1 + x * x;
    want.push_back(std::cos(x) * x * x + 2 * x * std::sin(x) +
                   std::exp(0.5 * x) * (0.5 * q - 2 * x) / (q * q));
  }
  std::string err;
  expect_close(kElementwise.gradient("f32", &err), want, 1e-5, "elementwise " + err);
}

TEST(Autodiff, MatmulByHand) {
  // L = sum (A B)^2  =>  dL/dA = 2 (A B) B^T.
  const double B[3][2] = {{1.0, -2.0}, {0.5, 3.0}, {-1.0, 1.5}};
  const auto& a = kMatmul.values;
  double C[2][2] = {};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k) C[i][j] += a[i * 3 + k] * B[k][j];
  std::vector<double> want;
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k) want.push_back(2 * (C[i][0] * B[k][0] + C[i][1] * B[k][1]));
  std::string err;
  expect_close(kMatmul.gradient("f32", &err), want, 1e-5, "matmul " + err);
}

TEST(Autodiff, WhereConvByHand) {
  // c[o] = sum_k s[o + k] w[k], L = sum_o r[o] c[o]^2  =>  dL/dw[k] = sum_o 2 r[o] c[o] s[o + k].
  const double s[6] = {1.0, -2.0, 0.5, 3.0, -1.0, 2.0}, r[4] = {1.0, 0.5, -1.0, 2.0};
  const auto& w = kWhereConv.values;
  std::vector<double> want(3, 0.0);
  for (int o = 0; o < 4; ++o) {
    double c = 0;
    for (int k = 0; k < 3; ++k) c += s[o + k] * w[k];
    for (int k = 0; k < 3; ++k) want[k] += 2 * r[o] * c * s[o + k];
  }
  std::string err;
  expect_close(kWhereConv.gradient("f32", &err), want, 1e-5, "where-conv " + err);
}

TEST(Autodiff, SoftmaxCrossEntropyByHand) {
  // The max shift cancels: the gradient is softmax(z) - onehot(2).
  const auto& z = kSoftmaxCe.values;
  double den = 0;
  for (double v : z) den += std::exp(v);
  std::vector<double> want;
  for (size_t i = 0; i < z.size(); ++i) want.push_back(std::exp(z[i]) / den - (i == 2 ? 1.0 : 0.0));
  std::string err;
  expect_close(kSoftmaxCe.gradient("f32", &err), want, 1e-5, "softmax-ce " + err);
}

TEST(Autodiff, RecurrenceByForwardModeByHand) {
  // h[t] = h[t-1]^2 w0 + x[t] w1; dh[t] = 2 h[t-1] dh[t-1] w0 + (h[t-1]^2, x[t]).
  const double x[5] = {0.5, -1.0, 2.0, 0.25, -0.5};
  const double w0 = kRecurrence1d.values[0], w1 = kRecurrence1d.values[1];
  double h = x[0], d0 = 0, d1 = 0;
  for (int t = 1; t < 5; ++t) {
    double n0 = 2 * h * d0 * w0 + h * h, n1 = 2 * h * d1 * w0 + x[t];
    h = h * h * w0 + x[t] * w1, d0 = n0, d1 = n1;
  }
  std::string err;
  expect_close(kRecurrence1d.gradient("f32", &err), {d0, d1}, 1e-5, "recurrence " + err);
}

TEST(Autodiff, MaxMinRouteThroughTheArgExtremum) {
  // max x^2 is at index 1 (9.0) and min x is at index 1 too: d = 2 * (-3) + 1 = -5 there.
  std::string err;
  expect_close(kMaxMin.gradient("f32", &err), {0.0, -5.0, 0.0, 0.0}, 1e-6, "max/min " + err);
}

TEST(Autodiff, PiecewiseByHand) {
  // L = (x0^2)^2 + sum_(i >= 1) (3 x_i)^2: dL/dx0 = 4 x0^3, dL/dx_i = 18 x_i.
  const auto& x = kPiecewise.values;
  std::vector<double> want{4 * x[0] * x[0] * x[0], 18 * x[1], 18 * x[2], 18 * x[3]};
  std::string err;
  expect_close(kPiecewise.gradient("f32", &err), want, 1e-6, "piecewise " + err);
}

TEST(Autodiff, MlpOutputLayerByHand) {
  // dL/dW2[j] = sum_n 2 (out[n] - y[n]) h[n, j] / 3, with the hidden layer computed here.
  const double X[3][2] = {{1.0, 2.0}, {-1.0, 0.5}, {0.0, -1.5}}, b1[3] = {0.1, -0.2, 0.3};
  const double y[3] = {1.0, 0.0, -1.0};
  const std::vector<double> W1 = kMlp.values, W2 = {0.7, -1.1, 0.4};
  std::vector<double> want(3, 0.0);
  for (int n = 0; n < 3; ++n) {
    double hid[3], out = 0;
    for (int j = 0; j < 3; ++j) {
      hid[j] = std::tanh(X[n][0] * W1[0 * 3 + j] + X[n][1] * W1[1 * 3 + j] + b1[j]);
      out += hid[j] * W2[j];
    }
    for (int j = 0; j < 3; ++j) want[j] += 2 * (out - y[n]) * hid[j] / 3.0;
  }
  AdProgram p = kMlp;
  p.tmpl = replace_all(replace_all(p.tmpl, "let W2: [{T}; 3] = [0.7, -1.1, 0.4];", "let W1: [{T}; 2, 3] = "
                       + array_lit(W1, {2, 3}) + ";"), "let W1: [{T}; 2, 3] = {P};", "let W2: [{T}; 3] = {P};");
  p.param = "W2";
  p.shape = {3};
  p.values = W2;
  std::string err;
  expect_close(p.gradient("f32", &err), want, 1e-5, "mlp W2 " + err);
  expect_close(p.gradient("f32", &err), p.finite_differences(), 1e-4, "mlp W2 vs fd");
}

// ---- Jacobians --------------------------------------------------------------------------------

const char* kJacobianSetup =
    "use std::math::tanh;\nlet A = [[1.0, 2.0], [-0.5, 0.25], [3.0, -1.0]];\nlet v = [0.3, -0.2];\n"
    "let z[i] = sum[j](A[i, j] * v[j]);\nlet y[i] = tanh(z[i]);\nlet J = @y / @v;\n";

TEST(Autodiff, FullJacobianByHand) {
  // J[i, j] = (1 - y_i^2) A[i, j].
  const double A[3][2] = {{1.0, 2.0}, {-0.5, 0.25}, {3.0, -1.0}}, v[2] = {0.3, -0.2};
  std::vector<double> want;
  for (int i = 0; i < 3; ++i) {
    double yi = std::tanh(A[i][0] * v[0] + A[i][1] * v[1]);
    for (int j = 0; j < 2; ++j) want.push_back((1 - yi * yi) * A[i][j]);
  }
  std::string err;
  expect_close(eval(std::string(kJacobianSetup) + "J\n", &err), want, 1e-5, "J " + err);
  EXPECT_EQ(eval(std::string(kJacobianSetup) + "shape(J)\n"), (std::vector<double>{3, 2}));
}

TEST(Autodiff, JacobianRowsAndEntriesMatchTheFullJacobian) {
  std::string err;
  auto full = eval(std::string(kJacobianSetup) + "J\n", &err);
  ASSERT_EQ(full.size(), 6u) << err;
  for (int i = 0; i < 3; ++i) {
    auto row = eval(std::string(kJacobianSetup) + "J[" + std::to_string(i) + "]\n", &err);
    expect_close(row, {full[i * 2], full[i * 2 + 1]}, 1e-7, "row " + std::to_string(i) + err);
    for (int j = 0; j < 2; ++j) {
      auto e = eval(std::string(kJacobianSetup) + "J[" + std::to_string(i) + ", " +
                        std::to_string(j) + "]\n",
                    &err);
      expect_close(e, {full[i * 2 + j]}, 1e-7, "entry " + err);
    }
  }
}

TEST(Autodiff, JacobianColumnsMatchTheFullJacobian) {
  // A column is an Einstein clause over J (today evaluated from the materialised rows; the JVP
  // column is not specialised yet).
  std::string err;
  auto full = eval(std::string(kJacobianSetup) + "J\n", &err);
  ASSERT_EQ(full.size(), 6u) << err;
  for (int j = 0; j < 2; ++j) {
    auto col = eval(std::string(kJacobianSetup) + "let c[i] = J[i, " + std::to_string(j) + "];\nc\n", &err);
    expect_close(col, {full[j], full[2 + j], full[4 + j]}, 1e-7, "column " + std::to_string(j) + err);
  }
}

TEST(Autodiff, JacobianOfARecurrence) {
  // h[t] = h[t-1] w0 + w1 (linear): dh[t]/dw0 = h[t-1] + w0 dh[t-1]/dw0, dh[t]/dw1 = 1 + w0 dh[t-1]/dw1.
  const std::string setup =
      "let w = [0.5, 3.0];\nlet h[0] = 2.0;\nlet h[t in 1..4] = h[t - 1] * w[0] + w[1];\nlet J = @h / @w;\n";
  std::string err;
  // h = 2, 4, 5, 5.5; rows: [0, 0], [2, 1], [4 + 1, 1 + 0.5], [5 + 2.5, 1 + 0.75].
  expect_close(eval(setup + "J\n", &err), {0, 0, 2, 1, 5, 1.5, 7.5, 1.75}, 1e-6, "J " + err);
  expect_close(eval(setup + "J[3]\n", &err), {7.5, 1.75}, 1e-6, "J[3] " + err);
  expect_close(eval(setup + "J[2, 1]\n", &err), {1.5}, 1e-6, "J[2, 1] " + err);
}

TEST(Autodiff, PointTargetIsTheJacobianRow) {
  // A target point is a scalar target: its gradient is the same row as J[i].
  std::string err;
  auto full = eval(std::string(kJacobianSetup) + "J\n", &err);
  ASSERT_EQ(full.size(), 6u) << err;
  for (int i = 0; i < 3; ++i) {
    auto point = eval(std::string(kJacobianSetup) + "@y[" + std::to_string(i) + "] / @v\n", &err);
    expect_close(point, {full[i * 2], full[i * 2 + 1]}, 1e-7, "point " + std::to_string(i) + err);
  }
}

// ---- forward mode (JVP): whole Jacobians with fewer parameter than target elements ------------

// h[t] = w h[t-1] + u[t] (h[0] = 1): dh[t]/dw = h[t-1] + w dh[t-1]/dw.
std::string scalar_recurrence(const std::string& w) {
  return "let u[t in 0..6] = ((t * 7) % 13) as f64 * 0.1;\nlet w: f64 = " + w +
         ";\nlet h[0] = 1.0;\nlet h[t in 1..6] = w * h[t - 1] + u[t];\n";
}

TEST(Autodiff, JvpJacobianOfARecurrenceWrtAScalar) {
  const double w = 0.9;
  std::vector<double> want{0.0}, hs{1.0};
  for (int t = 1; t < 6; ++t) {
    want.push_back(hs[t - 1] + w * want[t - 1]);
    hs.push_back(w * hs[t - 1] + ((t * 7) % 13) * 0.1);
  }
  std::string err;
  const std::string src = scalar_recurrence("0.9") + "let J = @h / @w;\n";
  expect_close(eval(src + "J\n", &err), want, 1e-12, "J " + err);
  EXPECT_EQ(eval(src + "shape(J)\n"), (std::vector<double>{6}));
  // The same values by the reverse path (a point target is one VJP) and by finite differences.
  for (int t = 0; t < 6; ++t)
    expect_close(eval(scalar_recurrence("0.9") + "@h[" + std::to_string(t) + "] / @w\n", &err),
                 {want[static_cast<size_t>(t)]}, 1e-12, "point " + std::to_string(t) + err);
  auto hp = eval(scalar_recurrence(lit(w + 1e-6)) + "h\n"), hm = eval(scalar_recurrence(lit(w - 1e-6)) + "h\n");
  ASSERT_EQ(hp.size(), 6u);
  for (size_t t = 0; t < 6; ++t) EXPECT_NEAR(want[t], (hp[t] - hm[t]) / 2e-6, 1e-6) << t;
}

TEST(Autodiff, JvpJacobianOfARecurrenceWrtAVector) {
  // Nonlinear, two parameters: J has shape [6, 2]; rows by point targets (reverse), columns by
  // finite differences of the f64 primal.
  auto src = [](double w0, double w1) {
    return "use std::math::tanh;\nlet x: [f64; 6] = [0.5, -1.0, 2.0, 0.25, -0.5, 1.5];\nlet w: [f64; 2] = [" + lit(w0) +
           ", " + lit(w1) + "];\nlet h[0] = x[0];\nlet h[t in 1..6] = tanh(h[t - 1] * w[0]) + x[t] * w[1] * h[t - 1];\n";
  };
  const double w0 = 0.7, w1 = -0.4, e = 1e-6;
  std::string err;
  auto J = eval(src(w0, w1) + "let J = @h / @w;\nJ\n", &err);
  ASSERT_EQ(J.size(), 12u) << err;
  EXPECT_EQ(eval(src(w0, w1) + "let J = @h / @w;\nshape(J)\n"), (std::vector<double>{6, 2}));
  for (int t = 0; t < 6; ++t)
    expect_close(eval(src(w0, w1) + "@h[" + std::to_string(t) + "] / @w\n", &err),
                 {J[static_cast<size_t>(2 * t)], J[static_cast<size_t>(2 * t + 1)]}, 1e-12, "row " + err);
  auto a = eval(src(w0 + e, w1) + "h\n"), b = eval(src(w0 - e, w1) + "h\n");
  auto c = eval(src(w0, w1 + e) + "h\n"), d = eval(src(w0, w1 - e) + "h\n");
  ASSERT_EQ(a.size(), 6u);
  for (size_t t = 0; t < 6; ++t) {
    EXPECT_NEAR(J[2 * t], (a[t] - b[t]) / (2 * e), 1e-6) << t;
    EXPECT_NEAR(J[2 * t + 1], (c[t] - d[t]) / (2 * e), 1e-6) << t;
  }
}

TEST(Autodiff, JvpForAScalarParameterIsOneTangentSweep) {
  // The derivative IR holds a tangent recurrence t_h (same direction as h), no adjoint rows.
  auto c = compile(scalar_recurrence("0.9") + "let J = @h / @w;\nlet s = sum(J);\n",
                   CompileOpts{.whole_program = true, .dump_after = "autodiff"});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_NE(c->dump.find("(EinGroup t_h"), std::string::npos) << c->dump;
  EXPECT_EQ(c->dump.find("d_h"), std::string::npos) << c->dump;
  EXPECT_EQ(c->dump.find("jacobian"), std::string::npos) << c->dump;
  // Rows at an index variable read J whole: also one tangent sweep, not a VJP per row.
  auto r = compile(scalar_recurrence("0.9") + "let J = @h / @w;\nlet s = sum[t](J[t]);\n",
                   CompileOpts{.whole_program = true, .dump_after = "autodiff"});
  ASSERT_TRUE(r->ok) << r->rendered();
  EXPECT_NE(r->dump.find("(EinGroup t_h"), std::string::npos) << r->dump;
  EXPECT_EQ(r->dump.find("d_h"), std::string::npos) << r->dump;
  // A fixed row stays a lazy VJP.
  auto p = compile(scalar_recurrence("0.9") + "let J = @h / @w;\nlet s = J[3];\n",
                   CompileOpts{.whole_program = true, .dump_after = "autodiff"});
  ASSERT_TRUE(p->ok) << p->rendered();
  EXPECT_NE(p->dump.find("d_h"), std::string::npos) << p->dump;
}

TEST(Autodiff, RecurrenceAdjointIsSplitAtItsSeedAndSharedWithItsInput) {
  // `h[t] = w * h[t - 1] + u[t]`, `last = h[T - 1]`: the adjoint recurrence is two unguarded
  // clauses (the seed point, then the steps below it), and u's adjoint is h's tensor, not a copy.
  auto c = compile(
      "let T = 8;\nlet u[t in 0..T] = t as f64 * 0.5;\nlet w: f64 = 0.9;\nlet h[0] = 1.0;\n"
      "let h[t in 1..T] = w * h[t - 1] + u[t];\nlet last = h[T - 1];\nlet du = @last / @u;\n",
      CompileOpts{.whole_program = true, .dump_after = "autodiff"});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_NE(c->dump.find("(EinDecl d_h #0:"), std::string::npos) << c->dump;
  EXPECT_NE(c->dump.find("(IdxLit 7)"), std::string::npos) << c->dump;
  EXPECT_NE(c->dump.find("(RangeLit (IntLit 1) (IntLit 7))"), std::string::npos) << c->dump;
  EXPECT_EQ(c->dump.find("(Where"), std::string::npos) << c->dump;
  EXPECT_EQ(c->dump.find("d_u"), std::string::npos) << c->dump;
  EXPECT_NE(c->dump.find("(PBind du #0:"), std::string::npos) << c->dump;
  // The values: du[t] = w^(T-1-t) for t >= 1, and 0 at t = 0 (h[0] does not depend on u).
  std::string err;
  auto du = eval("let T = 8;\nlet u[t in 0..T] = t as f64 * 0.5;\nlet w: f64 = 0.9;\nlet h[0] = 1.0;\n"
                 "let h[t in 1..T] = w * h[t - 1] + u[t];\nlet last = h[T - 1];\n@last / @u\n",
                 &err);
  ASSERT_EQ(du.size(), 8u) << err;
  EXPECT_EQ(du[0], 0.0);
  for (int t = 1; t < 8; ++t) EXPECT_NEAR(du[static_cast<size_t>(t)], std::pow(0.9, 7 - t), 1e-12) << t;
}

TEST(Autodiff, ColumnOfAJacobianIsOneJvp) {
  // `J[i, 1]` over i with x as large as y (reverse mode for the whole J): the column is one
  // forward sweep seeded with e_1, computed once before the clause — no adjoint rows.
  const std::string setup =
      "use std::math::tanh;\nlet A = [[1.0, 2.0, 0.5], [-0.5, 0.25, 1.0], [3.0, -1.0, 2.0]];\n"
      "let v = [0.3, -0.2, 0.1];\nlet y[i] = tanh(sum[j](A[i, j] * v[j]));\nlet J = @y / @v;\n";
  auto c = compile(setup + "let col[i] = J[i, 1];\n", CompileOpts{.whole_program = true, .dump_after = "autodiff"});
  ASSERT_TRUE(c->ok) << c->rendered();
  EXPECT_NE(c->dump.find("jacobian_col"), std::string::npos) << c->dump;
  EXPECT_NE(c->dump.find("(EinGroup t_y"), std::string::npos) << c->dump;
  EXPECT_EQ(c->dump.find("d_y"), std::string::npos) << c->dump;
  // Its values are the full Jacobian's column (the session evaluates J whole; the lazy column's
  // values in a file run: tests/golden/regressions/ad_lazy_rows_at_index_variable.ein).
  std::string err;
  auto full = eval(setup + "J\n", &err);
  ASSERT_EQ(full.size(), 9u) << err;
  auto col = eval(setup + "let col[i] = J[i, 1];\ncol\n", &err);
  expect_close(col, {full[1], full[4], full[7]}, 1e-6, "column " + err);
}

// ---- constructs that once failed (regression goldens: tests/golden/regressions/ad_*.ein) -----

TEST(Autodiff, CallWhoseArgumentIsAReduction) {
  // The MLP with the hidden pre-activation inlined into the call must match the bound version.
  AdProgram inl = kMlp;
  inl.tmpl = replace_all(inl.tmpl, "let z[n, j] = sum[k](X[n, k] * W1[k, j]) + b1[j];\nlet h[n, j] = tanh(z[n, j]);",
                         "let h[n, j] = tanh(sum[k](X[n, k] * W1[k, j]) + b1[j]);");
  ASSERT_NE(inl.tmpl, kMlp.tmpl);
  std::string err;
  expect_close(inl.gradient("f32", &err), kMlp.gradient("f32", &err), 1e-6, "inlined mlp " + err);
}

TEST(Autodiff, RecurrenceThroughACall) {
  AdProgram p = kRecurrence1d;
  p.tmpl = "use std::math::tanh;\n" +
           replace_all(p.tmpl, "h[t - 1] * h[t - 1] * w[0] + x[t] * w[1]", "tanh(h[t - 1] * w[0] + x[t] * w[1])");
  std::string err;
  auto g = p.gradient("f32", &err);
  ASSERT_FALSE(g.empty()) << err;
  expect_close(g, p.finite_differences(), 1e-4, "tanh recurrence");
}

TEST(Autodiff, TwoOffsetReadsOfOneArray) {
  AdProgram p{"offset reads", "let x: [{T}; 4] = {P};\nlet g[i] = x[i] * x[i + 1];\nlet loss = sum[i](g[i]);",
              "x", {4}, {1.5, -2.0, 0.5, 3.0}};
  std::string err;
  expect_close(p.gradient("f32", &err), {-2.0, 2.0, 1.0, 0.5}, 1e-6, "offset reads " + err);
}

// ---- sessions, symbolic form, errors ----------------------------------------------------------

TEST(Autodiff, ThroughBindingsOfEarlierCells) {
  SessionOptions so;
  so.out = [](const std::string&) {};
  Session s(so);
  ASSERT_TRUE(s.run_cell("let x = 3.0;\nlet y = x * x;").ok);
  ASSERT_TRUE(s.run_cell("let z = y * x + 1.0;").ok);
  CellResult r = s.run_cell("@z / @x");
  ASSERT_TRUE(r.ok && r.value) << r.rendered;
  EXPECT_DOUBLE_EQ(r.value->as_f64(), 27.0);  // d(x^3 + 1)/dx = 3x^2
}

TEST(Autodiff, SymbolicDifferentialOfTheSpecExample) {
  // SPEC §7: `print(@y)` prints the symbolic form, e.g. `@y = 2 * x * @x`.
  auto r = run_program("let x = 2.0;\nlet y = x * x;\nprint(@y);\n");
  ASSERT_TRUE(r.cell.ok) << r.cell.rendered;
  EXPECT_EQ(r.out, "@y = 2 * x * @x\n");
}

TEST(Autodiff, UnnamedTargetIsE013) {
  auto c = compile("let x = 2.0;\nlet d = @(x * x) / @x;\n");
  const Diagnostic* d = c->diag("E013");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
}

TEST(Autodiff, UnnamedParameterIsE013) {
  auto c = compile("let x = 2.0;\nlet y = x * x;\nlet d = @y / @(x + 1.0);\n");
  const Diagnostic* d = c->diag("E013");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 3);
}

TEST(Autodiff, UnsupportedConstructIsE013AtTheConstruct) {
  // A comprehension of tuples that depend on the parameter is not differentiable (it was a
  // silent zero): the error names it at its own line.
  auto c = compile("let M = [[1.0, 2.0], [3.0, 4.0]];\nlet p = [(r[0], r[1]) | r in M];\n"
                   "let y = [q.0 * 2.0 | q in p];\nlet s = sum(y);\nlet g = @s / @M;\n");
  const Diagnostic* d = c->diag("E013");
  ASSERT_NE(d, nullptr) << c->rendered();
  EXPECT_EQ(c->line_of(d->primary), 2);
}

TEST(Autodiff, NoDifferentialSurvivesCompilation) {
  // After the rewrite, no Diff node may reach the lowered code (the leak check).
  auto c = compile(std::string(kJacobianSetup) + "let r = J[1];\n");
  ASSERT_TRUE(c->ok) << c->rendered();
  for (auto& u : c->cx->units) EXPECT_EQ(count_of(u->lowered, ir::Kind::Diff), 0u) << u->name;
}

TEST(Autodiff, IntegerAndConstantBindingsHaveZeroDerivative) {
  std::string err;
  expect_close(eval("let x = 2.0;\nlet k = 7.0;\nlet c = k * 2.0;\n@c / @x\n", &err), {0.0}, 0, err);
  expect_close(eval("let x = 2.0;\nlet n = 3;\nlet y = x * (n as f32);\n@y / @x\n", &err), {3.0}, 0, err);
}

}  // namespace
}  // namespace ein::testing
