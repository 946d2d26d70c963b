// Helpers shared by the autodiff tests (autodiff_test.cpp, ad_local_test.cpp): evaluate a cell in
// a fresh session and compare numbers.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/unit/passes/pass_fixture.h"

namespace ein::testing {

// Every element of a value as doubles (scalars give one element).
inline std::vector<double> flat(const Value& v) {
  if (v.is_scalar()) return {v.as_f64()};
  std::vector<double> out;
  if (v.is_tensor()) {
    const Tensor& t = v.tensor_ref();
    for (int64_t i = 0; i < t.size(); ++i) out.push_back(t.get_f64(i));
  }
  return out;
}

// The value of the cell `src` (ending in an expression), evaluated in a fresh session.
inline std::vector<double> eval(const std::string& src, std::string* error = nullptr,
                                const std::string& jit = "never") {
  SessionOptions so;
  so.out = [](const std::string&) {};
  so.jit = jit;
  Session s(so);
  CellResult r = s.run_cell(src);
  if (!r.ok || !r.value) {
    if (error) *error = r.rendered.empty() ? "no value" : r.rendered;
    return {};
  }
  return flat(*r.value);
}

// A float literal that round-trips (always with a '.' or an exponent).
inline std::string lit(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}

// Nested array literal of `xs` (row-major) with the given shape.
inline std::string array_lit(const std::vector<double>& xs, const std::vector<int>& shape, size_t axis = 0,
                             size_t* pos = nullptr) {
  size_t p0 = 0;
  if (!pos) pos = &p0;
  if (shape.empty()) return lit(xs[(*pos)++]);
  std::string s = "[";
  for (int i = 0; i < shape[axis]; ++i) {
    if (i) s += ", ";
    if (axis + 1 == shape.size()) s += lit(xs[(*pos)++]);
    else s += array_lit(xs, shape, axis + 1, pos);
  }
  return s + "]";
}

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
    s.replace(p, from.size(), to);
  return s;
}

inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, double tol,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << what << " element " << i;
}

// A program defining `loss` from the parameter `param`, as a template: {T} is the float type,
// {P} the literal of the parameter. Its gradient is compared with central finite differences of
// the f64 primal.
struct AdProgram {
  std::string name;
  std::string tmpl;            // defines `loss` from the parameter `param`
  std::string param;
  std::vector<int> shape;      // of the parameter ({} for a scalar)
  std::vector<double> values;  // the parameter, row-major

  std::string source(const std::string& T, const std::vector<double>& p) const {
    std::string s = replace_all(tmpl, "{T}", T);
    return replace_all(s, "{P}", array_lit(p, shape));
  }
  std::vector<double> gradient(const std::string& T, std::string* err) const {
    return eval(source(T, values) + "\n@loss / @" + param + "\n", err);
  }
  double loss64(const std::vector<double>& p) const {
    std::string err;
    auto v = eval(source("f64", p) + "\nloss\n", &err);
    EXPECT_EQ(v.size(), 1u) << name << ": " << err;
    return v.empty() ? NAN : v[0];
  }
  // Central differences of the f64 primal: truncation ~h^2, rounding ~1e-16 / h.
  std::vector<double> finite_differences() const {
    const double h = 1e-6;
    std::vector<double> g;
    for (size_t i = 0; i < values.size(); ++i) {
      auto plus = values, minus = values;
      plus[i] += h;
      minus[i] -= h;
      g.push_back((loss64(plus) - loss64(minus)) / (2 * h));
    }
    return g;
  }
};

}  // namespace ein::testing
