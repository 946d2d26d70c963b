// Local derivative requests (SPEC §7, thesis §2.3): `@y / @x` inside blocks, Einstein and
// recurrence bodies, reductions, where-bindings, comprehensions, function and closure bodies
// (also called per step of a recurrence), nested combinations; indexed requests; bound
// differentials. Expected values are independent of ein's derivative code:
//  - a scalar request in a scope is compared with the same scope computing a central finite
//    difference of the same function in f64 (so the request's point — index variables, the
//    previous step of a recurrence — is exactly the one the request sees);
//  - indexed requests are compared with the finite-difference Jacobian of the f64 primal;
//  - gradient descent is compared with its known minimum.
#include <gtest/gtest.h>

#include <functional>

#include "tests/unit/passes/ad_fixture.h"

namespace ein::testing {
namespace {

// ---- scalar requests in scopes, against finite differences in the same scope ----------------

// A function of `$X` written as statements and a result. Its derivative request binds `$X` to
// the scope's parameter expression first: { let p = WRT; ...; let l = ...; @l / @p }.
struct Fn1 {
  std::string name, stmts, result;
};

const Fn1 kFns[] = {
    {"poly-trig", "let u = $X * $X; let v = sin(u) + $X;", "v * u + exp(0.5 * $X)"},
    {"local-tensor", "let w[k in 0..3] = $X * ((k as {T}) + 1.0); let s = sum[k](w[k] * w[k]);",
     "s * $X + ln(1.0 + $X * $X)"},
    {"branch", "let c = if $X > 0.0 { $X * $X } else { -$X }; let hq = $X * 0.5;", "c * tanh($X) + hq"},
};

// A scope holding `{D}` (the derivative of the function at the parameter `{W}`); `r` is what is
// compared.
struct Scope {
  std::string name, src, wrt;
};

const std::string kData = "use std::math::{sin, exp, ln, tanh};\nlet xs: [{T}; 4] = [0.3, -1.2, 2.0, 0.5];\n";

const Scope kScopes[] = {
    {"block", "let a: {T} = 0.7;\nlet r = {D};", "a"},
    {"einstein-body", "let r[i in 0..4] = {D};", "xs[i] * 0.5 + (i as {T}) * 0.25"},
    {"recurrence-body", "let r[0] = 0.2 as {T};\nlet r[t in 1..6] = r[t - 1] - 0.1 * {D};", "r[t - 1]"},
    {"recurrence-2d-body",
     "let r[0, j in 0..3] = xs[j];\nlet r[t in 1..4, j in 0..3] = r[t - 1, j] - 0.05 * {D};", "r[t - 1, j]"},
    {"reduction-body", "let r = sum[i]({D});", "xs[i]"},
    {"where-binding", "let r[i in 0..4] = g * 2.0 where g = {D};", "xs[i]"},
    {"comprehension", "let r = [{D} | q in xs];", "q"},
    {"match-arm", "let r[i in 0..4] = match i { 0 => 0.0, _ => {D} };", "xs[i]"},
    {"function-body", "fn d(q) { {D} }\nlet r[i in 0..4] = d(xs[i]);", "q"},
    {"function-per-recurrence-step", "fn d(q) { {D} }\nlet r[0] = 0.3 as {T};\nlet r[t in 1..6] = r[t - 1] - 0.1 * d(r[t - 1]);",
     "q"},
    {"closure-body", "let d = |q| {D};\nlet r[i in 0..4] = d(xs[i]);", "q"},
    {"function-nested-in-einstein-in-function",
     "fn inner(q) { {D} }\nfn outer(v) { let y[i in 0..4] = inner(v * xs[i]); sum[i](y[i]) }\n"
     "let r[k in 0..3] = outer((k as {T}) * 0.5 - 0.4);",
     "q"},
};

std::string with_x(const std::string& s, const std::string& x) { return replace_all(s, "$X", x); }

std::string request(const Fn1& f, const std::string& wrt) {
  return "{ let p_ = " + wrt + "; " + with_x(f.stmts, "p_") + " let l_ = " + with_x(f.result, "p_") +
         "; @l_ / @p_ }";
}

std::string central_difference(const Fn1& f, const std::string& wrt) {
  auto at = [&](const std::string& x) { return "{ " + with_x(f.stmts, x) + " " + with_x(f.result, x) + " }"; };
  return "((" + at("((" + wrt + ") + 1e-6)") + ") - (" + at("((" + wrt + ") - 1e-6)") + ")) / 2e-6";
}

std::string program(const Scope& s, const std::string& D, const std::string& T) {
  return replace_all(kData + replace_all(s.src, "{D}", D) + "\nr\n", "{T}", T);
}

TEST(AdLocal, ScalarRequestsInEveryScopeMatchFiniteDifferences) {
  for (const Scope& s : kScopes)
    for (const Fn1& f : kFns) {
      std::string what = std::string(s.name) + " / " + f.name;
      std::string err;
      auto want = eval(program(s, central_difference(f, s.wrt), "f64"), &err);
      ASSERT_FALSE(want.empty()) << what << " (finite differences): " << err;
      auto g64 = eval(program(s, request(f, s.wrt), "f64"), &err);
      ASSERT_FALSE(g64.empty()) << what << ": " << err;
      expect_close(g64, want, 1e-6, what + " f64");
      auto g32 = eval(program(s, request(f, s.wrt), "f32"), &err);
      ASSERT_FALSE(g32.empty()) << what << " f32: " << err;
      expect_close(g32, want, 2e-4, what + " f32");
    }
}

TEST(AdLocal, NativeKernelsGiveTheInterpreterValues) {
  for (const Scope& s : kScopes) {
    const Fn1& f = kFns[1];
    std::string err;
    auto interp = eval(program(s, request(f, s.wrt), "f64"), &err);
    ASSERT_FALSE(interp.empty()) << s.name << ": " << err;
    auto native = eval(program(s, request(f, s.wrt), "f64"), &err, "always");
    ASSERT_FALSE(native.empty()) << s.name << " (EIN_JIT=always): " << err;
    expect_close(native, interp, 1e-12, std::string(s.name) + " always vs never");
  }
}

TEST(AdLocal, SecondDerivativeInABlock) {
  // d²(a³)/da² = 6a: the inner request is rewritten first, the outer one differentiates its code.
  std::string err;
  expect_close(eval("let a = 2.0;\n{ let l = a * a * a; let g = @l / @a; let h = @g / @a; h }\n", &err), {12.0},
               1e-6, err);
}

TEST(AdLocal, GradientInsideAnEinsteinBodyMatchesFiniteDifferences) {
  // One gradient (an array) per point, read at the point's j.
  const std::string L = "0.5 * sum[i, l](V[i] * A[i, l] * V[l]) + sum[i](sin(V[i])) - sum[i](b[i] * V[i])";
  auto src = [&](const std::string& T, const std::string& body) {
    return replace_all("use std::math::sin;\nlet A: [{T}; 2, 2] = [[2.0, 0.5], [0.5, 1.0]];\nlet b: [{T}; 2] = [1.0, -1.0];\n"
                       "let P: [{T}; 3, 2] = [[0.0, 0.0], [0.3, -0.7], [1.5, 0.25]];\nfn L(V) { " + L + " }\n"
                       "let r[k in 0..3, j in 0..2] = { let x0[i in 0..2] = P[k, i]; " + body + " };\nr\n", "{T}", T);
  };
  std::string req = "let loss = " + replace_all(L, "V", "x0") + "; let g = @loss / @x0; g[j]";
  std::string fd = "let xp[i in 0..2] = x0[i] + (if i == j { 1e-6 } else { 0.0 }); "
                   "let xm[i in 0..2] = x0[i] - (if i == j { 1e-6 } else { 0.0 }); (L(xp) - L(xm)) / 2e-6";
  std::string err;
  auto want = eval(src("f64", fd), &err);
  ASSERT_EQ(want.size(), 6u) << err;
  expect_close(eval(src("f64", req), &err), want, 1e-6, "f64 " + err);
  expect_close(eval(src("f32", req), &err), want, 1e-4, "f32 " + err);
}

// ---- gradient descent as a recurrence (issue 11): A = 2I, b = [1, 1], step 0.2, 20 steps -----

TEST(AdLocal, GradientDescentRecurrenceConverges) {
  const std::string setup = "let A = [[2.0, 0.0], [0.0, 2.0]];\nlet b = [1.0, 1.0];\nlet x[0, j in 0..2] = 0.0;\n";
  const std::string blocks =
      "let x[k in 1..21, j in 0..2] = {\n  let x0_k[i in 0..2] = x[k - 1, i];\n"
      "  let loss_k = 0.5 * sum[i, l](x0_k[i] * A[i, l] * x0_k[l]) - sum[i](b[i] * x0_k[i]);\n"
      "  let g = @loss_k / @x0_k;\n  x0_k[j] - 0.2 * g[j]\n};\nx[20]\n";
  const std::string train =
      "fn train_step(w: [f32; 2]) -> [f32; 2] {\n"
      "  let loss = 0.5 * sum[i, l](w[i] * A[i, l] * w[l]) - sum[i](b[i] * w[i]);\n"
      "  let n[i in 0..2] = w[i] - 0.2 * (@loss / @w)[i];\n  n\n}\n"
      "let x[k in 1..21, j in 0..2] = train_step(x[k - 1])[j];\nx[20]\n";
  for (const char* jit : {"never", "always"})
    for (const std::string& form : {blocks, train}) {
      std::string err;
      auto x = eval(setup + form, &err, jit);
      ASSERT_EQ(x.size(), 2u) << jit << ": " << err;
      EXPECT_NEAR(x[0], 0.5, 1e-4) << jit;
      EXPECT_NEAR(x[1], 0.5, 1e-4) << jit;
    }
}

// ---- indexed requests, against the finite-difference Jacobian of the primal ------------------

struct Indexed {
  std::string name;
  std::string primal;  // defines `h` from `theta` ({P}); {T} the float type
  std::vector<double> theta;
  std::string request;  // defines `local` (ending in `local`)
  std::string mode;     // the name the chosen mode gives the hoisted code
  // (point of local) -> (flat index into h, index into theta)
  std::function<std::pair<int, int>(const std::vector<int>&)> entry;
  std::vector<int> shape;  // of local
};

std::vector<double> fd_jacobian(const Indexed& c, size_t* ny) {
  std::vector<double> J;
  const double e = 1e-6;
  std::vector<std::vector<double>> cols;
  for (size_t p = 0; p < c.theta.size(); ++p) {
    auto plus = c.theta, minus = c.theta;
    plus[p] += e;
    minus[p] -= e;
    auto src = [&](const std::vector<double>& th) {
      return replace_all(replace_all(c.primal, "{P}", array_lit(th, {static_cast<int>(th.size())})), "{T}", "f64") + "\nh\n";
    };
    auto a = eval(src(plus)), b = eval(src(minus));
    EXPECT_EQ(a.size(), b.size());
    std::vector<double> col;
    for (size_t i = 0; i < a.size(); ++i) col.push_back((a[i] - b[i]) / (2 * e));
    cols.push_back(col);
  }
  *ny = cols.empty() ? 0 : cols[0].size();
  for (size_t i = 0; i < *ny; ++i)
    for (size_t p = 0; p < cols.size(); ++p) J.push_back(cols[p][i]);
  return J;
}

const char* kRec =
    "let theta: [{T}; 2] = {P};\nlet h[0, j in 0..2] = 1.0;\n"
    "let h[t in 1..4, j in 0..2] = theta[j] * h[t - 1, j] + 1.0;\n";
const char* kRecCoupled =
    "use std::math::sin;\nlet theta: [{T}; 2] = {P};\nlet h[0, j in 0..2] = 1.0;\n"
    "let h[t in 1..4, j in 0..2] = theta[j] * h[t - 1, j] + theta[1 - j] * 0.5 + sin(h[t - 1, 1 - j]);\n";
const char* kPlainCoupled =
    "use std::math::tanh;\nlet A: [{T}; 3, 3] = [[1.0, 2.0, 0.5], [-0.5, 0.25, 1.0], [3.0, -1.0, 2.0]];\n"
    "let theta: [{T}; 3] = {P};\nlet h[i] = tanh(sum[k](A[i, k] * theta[k]));\n";
const char* kPlainElementwise =
    "use std::math::sin;\nlet theta: [{T}; 3] = {P};\nlet h[i] = sin(theta[i]) * theta[i] + 0.5;\n";

std::vector<Indexed> indexed_cases() {
  auto grid = [](const std::vector<int>& p) { return p[0] * 2 + p[1]; };
  return {
      {"recurrence, thesis example", kRec, {0.5, 2.0}, "let local[t, j] = @h[t, j] / @theta[j];\nlocal",
       "jvp_structural_h", [&](const std::vector<int>& p) { return std::pair{grid(p), p[1]}; }, {4, 2}},
      {"recurrence, coupled columns", kRecCoupled, {0.5, 1.5}, "let local[t, j] = @h[t, j] / @theta[j];\nlocal",
       "jvp_per_param_h", [&](const std::vector<int>& p) { return std::pair{grid(p), p[1]}; }, {4, 2}},
      {"recurrence, parameter point of an expression", kRecCoupled, {0.5, 1.5},
       "let local[t in 0..4, j in 0..2] = @h[t, j] / @theta[t % 2];\nlocal", "vjp_point_h",
       [&](const std::vector<int>& p) { return std::pair{grid(p), p[0] % 2}; }, {4, 2}},
      {"recurrence, fixed target point", kRecCoupled, {0.5, 1.5}, "let local[j in 0..2] = @h[3, 1] / @theta[j];\nlocal",
       "vjp_row_h", [&](const std::vector<int>& p) { return std::pair{7, p[0]}; }, {2}},
      {"recurrence, fixed parameter point", kRecCoupled, {0.5, 1.5},
       "let local[t in 0..4] = @h[t, 1] / @theta[0];\nlocal", "jvp_column_h",
       [&](const std::vector<int>& p) { return std::pair{p[0] * 2 + 1, 0}; }, {4}},
      {"plain tensor, every output reads every input", kPlainCoupled, {0.3, -0.2, 0.1},
       "let local[i] = @h[i] / @theta[i];\nlocal", "jvp_per_param_h",
       [&](const std::vector<int>& p) { return std::pair{p[0], p[0]}; }, {3}},
      {"plain tensor, elementwise", kPlainElementwise, {0.3, -0.2, 1.1}, "let local[i] = @h[i] / @theta[i];\nlocal",
       "jvp_structural_h", [&](const std::vector<int>& p) { return std::pair{p[0], p[0]}; }, {3}},
  };
}

TEST(AdLocal, IndexedRequestsMatchTheFiniteDifferenceJacobian) {
  for (const Indexed& c : indexed_cases()) {
    size_t ny = 0;
    auto J = fd_jacobian(c, &ny);
    ASSERT_FALSE(J.empty()) << c.name;
    std::vector<double> want;
    std::vector<int> p(c.shape.size(), 0);
    std::function<void(size_t)> each = [&](size_t a) {
      if (a == c.shape.size()) {
        auto [y, x] = c.entry(p);
        want.push_back(J[static_cast<size_t>(y) * c.theta.size() + static_cast<size_t>(x)]);
        return;
      }
      for (p[a] = 0; p[a] < c.shape[a]; ++p[a]) each(a + 1);
    };
    each(0);
    for (const char* T : {"f64", "f32"}) {
      std::string src = replace_all(replace_all(c.primal, "{P}", array_lit(c.theta, {static_cast<int>(c.theta.size())})),
                                    "{T}", T) + c.request + "\n";
      std::string err;
      expect_close(eval(src, &err), want, std::string(T) == "f64" ? 1e-6 : 1e-4, c.name + " " + T + " " + err);
      expect_close(eval(src, &err, "always"), want, std::string(T) == "f64" ? 1e-6 : 1e-4,
                   c.name + " " + T + " always " + err);
    }
  }
}

TEST(AdLocal, IndexedRequestsShowTheirModeInTheIr) {
  for (const Indexed& c : indexed_cases()) {
    std::string src = replace_all(replace_all(c.primal, "{P}", array_lit(c.theta, {static_cast<int>(c.theta.size())})),
                                  "{T}", "f32") + replace_all(c.request, "\nlocal", "\nprint(local);");
    auto r = compile(src, CompileOpts{.whole_program = true, .dump_after = "autodiff"});
    ASSERT_TRUE(r->ok) << c.name << ": " << r->rendered();
    EXPECT_NE(r->dump.find(c.mode), std::string::npos) << c.name << "\n" << r->dump;
    // One Jacobian entry per point: never the dense Jacobian.
    EXPECT_EQ(r->dump.find("(EinGroup jacobian "), std::string::npos) << c.name;
  }
}

// ---- bound differentials ----------------------------------------------------------------------

TEST(AdLocal, BoundDifferentialsDivideToTheDerivative) {
  auto src = [](double x, double y, const std::string& tail) {
    return "use std::math::sin;\nlet x: f64 = " + lit(x) + ";\nlet y: f64 = " + lit(y) +
           ";\nlet f = x * y + sin(x) * y * y;\nlet df = @f;\nlet dx = @x;\nlet dy = @y;\n" + tail + "\n";
  };
  const double x = 0.7, y = -1.3, e = 1e-6;
  auto fval = [&](double a, double b) { return eval(src(a, b, "f")); };
  double fx = (fval(x + e, y)[0] - fval(x - e, y)[0]) / (2 * e);
  double fy = (fval(x, y + e)[0] - fval(x, y - e)[0]) / (2 * e);
  std::string err;
  expect_close(eval(src(x, y, "[df / dx, df / dy, df / @x, @f / dy]"), &err), {fx, fy, fx, fy}, 1e-6, err);
  // In a block, and across cells of a session.
  expect_close(eval(src(x, y, "{ let g = f * x; let dg = @g; dg / dx }"), &err),
               {(fval(x + e, y)[0] * (x + e) - fval(x - e, y)[0] * (x - e)) / (2 * e)}, 1e-6, err);
  SessionOptions so;
  so.out = [](const std::string&) {};
  Session s(so);
  ASSERT_TRUE(s.run_cell(src(x, y, "")).ok);
  CellResult r = s.run_cell("df / dx");
  ASSERT_TRUE(r.ok && r.value) << r.rendered;
  EXPECT_NEAR(r.value->as_f64(), fx, 1e-6);
}

TEST(AdLocal, BoundDifferentialPrintsItsSymbolicForm) {
  auto r = run_program("let x = 2.0;\nlet y = x * x;\nlet dy = @y;\nprint(dy);\n");
  ASSERT_TRUE(r.cell.ok) << r.cell.rendered;
  EXPECT_EQ(r.out, "@y = 2 * x * @x\n");
}

// ---- no silent values: E013 --------------------------------------------------------------------

TEST(AdLocal, UnfollowableDefinitionsAreE013) {
  const char* cases[] = {
      // a differentiated value through a nested tuple pattern
      "let w = 2.0;\nlet ((p, r), q) = ((w * w, w), 1.0);\nlet l = p * w;\nlet g = @l / @w;\n",
      // arithmetic on a bound differential
      "let x = 1.0;\nlet f = x * x;\nlet df = @f;\nlet z = df * 2.0;\n",
      // a global computed from the parameter, read inside a function: its definition is not there
      "let w = 2.0;\nlet v = w * 3.0;\nfn f() { let l = v * v; @l / @w }\nprint(f());\n",
  };
  for (const char* src : cases) {
    auto c = compile(src);
    EXPECT_NE(c->diag("E013"), nullptr) << src << "\n" << c->rendered();
  }
}

TEST(AdLocal, LiteralCallArgumentsTypeAsInThePrimal) {
  // SPEC §3: the literal 0.1 takes f64 from the call; the derivative inlines the call the same way.
  std::string err;
  expect_close(eval("fn f(k, dt) { k * dt }\nlet k: f64 = 0.05;\nlet y = f(k, 0.1);\n@y / @k\n", &err), {0.1}, 1e-15, err);
  expect_close(eval("fn g(v, s) { let r[i] = v[i] * s[i]; sum[i](r[i]) }\nlet v: [f64; 2] = [1.0, 2.0];\n"
                    "let z = g(v, [0.5, 0.25]);\n@z / @v\n", &err),
               {0.5, 0.25}, 1e-15, err);
}

}  // namespace
}  // namespace ein::testing
