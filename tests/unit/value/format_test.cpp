// Printing of values (SPEC §8): float table, containers, strings, summarisation.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/value/value.h"

namespace ein {
namespace {

struct FloatCase {
  double v;
  DType dt;
  const char* want;
};

// Expected strings: Python repr for f64; for f32/f16/bf16 the shortest digits that round-trip at
// that precision, rendered the same way (checked against a Python reference using struct).
const FloatCase kFloatCases[] = {
    // f64 — SPEC and conformance examples
    {2.0, DType::F64, "2.0"},
    {0.5, DType::F64, "0.5"},
    {-0.25, DType::F64, "-0.25"},
    {100000000.0, DType::F64, "100000000.0"},
    {0.0001, DType::F64, "0.0001"},
    {0.00001, DType::F64, "1e-05"},
    {1e16, DType::F64, "1e+16"},
    {1.0 / 3.0, DType::F64, "0.3333333333333333"},
    {1.5e-7, DType::F64, "1.5e-07"},
    {2.5e20, DType::F64, "2.5e+20"},
    {9999999999999998.0, DType::F64, "9999999999999998.0"},
    {123456789012345678.0, DType::F64, "1.2345678901234568e+17"},
    {0.1 + 0.2, DType::F64, "0.30000000000000004"},
    {5e-324, DType::F64, "5e-324"},
    {1.7976931348623157e308, DType::F64, "1.7976931348623157e+308"},
    {0.0, DType::F64, "0.0"},
    {-0.0, DType::F64, "-0.0"},
    {6000000000.0, DType::F64, "6000000000.0"},
    {0.03125, DType::F64, "0.03125"},
    {9.9e-05, DType::F64, "9.9e-05"},
    {1e-4 * 0.99, DType::F64, "9.900000000000001e-05"},
    // f32
    {1.0 / 3.0, DType::F32, "0.33333334"},
    {0.1, DType::F32, "0.1"},
    {1e-5, DType::F32, "1e-05"},
    {1.5e-7, DType::F32, "1.5e-07"},
    {2.5e20, DType::F32, "2.5e+20"},
    {1e16, DType::F32, "1e+16"},
    {123456789.0, DType::F32, "123456790.0"},
    {16777217.0, DType::F32, "16777216.0"},
    {3.4028235e38, DType::F32, "3.4028235e+38"},
    {1e-45, DType::F32, "1e-45"},
    {0.6009587, DType::F32, "0.6009587"},
    {std::sqrt(30.0), DType::F32, "5.477226"},
    {1234.5678, DType::F32, "1234.5677"},
    {1e15, DType::F32, "1000000000000000.0"},
    {-2.71828, DType::F32, "-2.71828"},
    {9.999e-5, DType::F32, "9.999e-05"},
    {6.0, DType::F32, "6.0"},
    {2.5, DType::F32, "2.5"},
    {1e300, DType::F32, "inf"},  // does not fit: shown as the f32 it becomes
    // f16
    {1.0 / 3.0, DType::F16, "0.3333"},
    {0.1, DType::F16, "0.1"},
    {1e-5, DType::F16, "1e-05"},
    {1.5e-7, DType::F16, "2e-07"},
    {0.6009587, DType::F16, "0.601"},
    {std::sqrt(30.0), DType::F16, "5.477"},
    {65504.0, DType::F16, "65500.0"},
    {70000.0, DType::F16, "inf"},
    {1234.5678, DType::F16, "1235.0"},
    {-2.71828, DType::F16, "-2.719"},
    {1e-8, DType::F16, "0.0"},
    {6e-8, DType::F16, "6e-08"},
    // bf16
    {1.0 / 3.0, DType::BF16, "0.334"},
    {0.1, DType::BF16, "0.1"},
    {123456789.0, DType::BF16, "123000000.0"},
    {16777217.0, DType::BF16, "16800000.0"},
    {std::sqrt(30.0), DType::BF16, "5.47"},
    {-2.71828, DType::BF16, "-2.72"},
    {1234.5678, DType::BF16, "1230.0"},
    {1e16, DType::BF16, "1e+16"},
    {3.4028235e38, DType::BF16, "inf"},
};

TEST(ValueFormat, FloatTable) {
  for (const FloatCase& c : kFloatCases) {
    EXPECT_EQ(format_float(c.v, c.dt), c.want) << "v=" << c.v << " dt=" << dtype_name(c.dt);
  }
}

TEST(ValueFormat, FloatSpecials) {
  const double inf = std::numeric_limits<double>::infinity();
  for (DType dt : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
    EXPECT_EQ(format_float(inf, dt), "inf");
    EXPECT_EQ(format_float(-inf, dt), "-inf");
    EXPECT_EQ(format_float(std::nan(""), dt), "nan");
    EXPECT_EQ(format_float(-std::nan(""), dt), "nan");
    EXPECT_EQ(format_float(-0.0, dt), "-0.0");
  }
}

TEST(ValueFormat, FloatRoundTripsAtOwnPrecision) {
  // Property: parsing the printed text and rounding to the dtype gives the value back.
  for (double v : {0.1, 1.0 / 7.0, 3.14159, 1e-3, 12345.678, 9.87654321e-10, 4.2e30}) {
    for (DType dt : {DType::F16, DType::BF16, DType::F32, DType::F64}) {
      const double r = round_to_float_dtype(v, dt);
      if (r == 0 || std::isinf(r)) continue;
      EXPECT_EQ(round_to_float_dtype(std::stod(format_float(r, dt)), dt), r) << v;
    }
  }
}

TEST(ValueFormat, Scalars) {
  EXPECT_EQ(format_value(Value::integer(42)), "42");
  EXPECT_EQ(format_value(Value::integer(-7, DType::I64)), "-7");
  EXPECT_EQ(format_value(Value::integer(6000000000, DType::I64)), "6000000000");
  EXPECT_EQ(format_value(Value::boolean(true)), "true");
  EXPECT_EQ(format_value(Value::boolean(false)), "false");
  EXPECT_EQ(format_value(Value::unit()), "()");
  EXPECT_EQ(format_value(Value::floating(1.0 / 3.0)), "0.33333334");
  EXPECT_EQ(format_value(Value::floating(1.0 / 3.0, DType::F64)), "0.3333333333333333");
  EXPECT_EQ(format_value(Value::range(0, 5)), "0..5");
}

TEST(ValueFormat, StringsRawAtTopQuotedInside) {
  EXPECT_EQ(format_value(Value::string("hello")), "hello");
  EXPECT_EQ(format_value(Value::string("a\"b\\c\nd")), "a\"b\\c\nd");
  Value t = Value::tuple({Value::integer(1), Value::string("a"), Value::boolean(true)});
  EXPECT_EQ(format_value(t), "(1, \"a\", true)");
  Value l = Value::list({Value::string("q\"x"), Value::string("b\\"), Value::string("n\nl\tt")});
  EXPECT_EQ(format_value(l), R"(["q\"x", "b\\", "n\nl\tt"])");
  EXPECT_EQ(format_value(Value::list({Value::string(std::string("\x01", 1))})), R"(["\x01"])");
}

TEST(ValueFormat, Tuples) {
  EXPECT_EQ(format_value(Value::tuple({Value::integer(1), Value::floating(2.5)})), "(1, 2.5)");
  EXPECT_EQ(format_value(Value::tuple({Value::integer(1)})), "(1,)");
  EXPECT_EQ(format_value(Value::tuple({})), "()");
  Value nested = Value::tuple({Value::tuple({Value::integer(1), Value::integer(2)}), Value::unit()});
  EXPECT_EQ(format_value(nested), "((1, 2), ())");
}

Value iota(DType dt, std::vector<int64_t> shape) {
  Tensor t = Tensor::alloc(dt, std::move(shape));
  for (int64_t k = 0; k < t.size(); ++k) t.set_f64(k, static_cast<double>(k));
  return Value::tensor(std::move(t));
}

TEST(ValueFormat, Tensors) {
  EXPECT_EQ(format_value(iota(DType::I32, {3})), "[0, 1, 2]");
  EXPECT_EQ(format_value(iota(DType::I32, {2, 2})), "[[0, 1], [2, 3]]");
  EXPECT_EQ(format_value(iota(DType::F32, {2})), "[0.0, 1.0]");
  EXPECT_EQ(format_value(iota(DType::F64, {2, 1, 2})), "[[[0.0, 1.0]], [[2.0, 3.0]]]");
  EXPECT_EQ(format_value(iota(DType::Bool, {3})), "[false, true, true]");
  EXPECT_EQ(format_value(iota(DType::F32, {})), "0.0");  // rank 0 prints as its scalar
  EXPECT_EQ(format_value(iota(DType::I32, {0})), "[]");
  EXPECT_EQ(format_value(iota(DType::I32, {2, 0})), "[[], []]");
  EXPECT_EQ(format_value(iota(DType::I32, {0, 3})), "[]");
  Value half = Value::tensor(Tensor::alloc(DType::F16, {1}));
  Tensor h = half.tensor_ref();
  h.set_f64(0, 1.0 / 3.0);
  EXPECT_EQ(format_value(half), "[0.3333]");
}

TEST(ValueFormat, ListsAndFunctions) {
  Value jag = Value::list({iota(DType::I32, {2}), iota(DType::I32, {1})});
  EXPECT_EQ(format_value(jag), "[[0, 1], [0]]");
  struct F : FuncObj {
    std::string display_name() const override { return "square"; }
  };
  Value f = Value::func(std::make_shared<F>());
  EXPECT_EQ(format_value(f), "<fn square>");
  EXPECT_EQ(format_value(Value::func(nullptr)), "<fn ?>");
  EXPECT_EQ(format_value(Value::tuple({f, Value::range(1, 3)})), "(<fn square>, 1..3)");
}

TEST(ValueFormat, SummariseOneD) {
  EXPECT_EQ(format_value(iota(DType::F32, {1000})).find("..."), std::string::npos);
  EXPECT_EQ(format_value(iota(DType::F32, {1001})),
            "[0.0, 1.0, 2.0, ..., 998.0, 999.0, 1000.0]");
  EXPECT_EQ(format_value(iota(DType::I64, {5000})), "[0, 1, 2, ..., 4997, 4998, 4999]");
}

TEST(ValueFormat, SummariseTwoD) {
  // 200 x 10: both axes longer than 6 are cut.
  EXPECT_EQ(format_value(iota(DType::I32, {200, 10})),
            "[[0, 1, 2, ..., 7, 8, 9], [10, 11, 12, ..., 17, 18, 19], "
            "[20, 21, 22, ..., 27, 28, 29], ..., [1970, 1971, 1972, ..., 1977, 1978, 1979], "
            "[1980, 1981, 1982, ..., 1987, 1988, 1989], [1990, 1991, 1992, ..., 1997, 1998, 1999]]");
  // 501 x 2: the short axis is kept whole.
  EXPECT_EQ(format_value(iota(DType::I32, {501, 2})),
            "[[0, 1], [2, 3], [4, 5], ..., [996, 997], [998, 999], [1000, 1001]]");
}

TEST(ValueFormat, SummariseLists) {
  std::vector<Value> rows;
  for (int i = 0; i < 300; ++i) rows.push_back(iota(DType::I32, {i % 2 ? 4 : 5}));
  std::string s = format_value(Value::list(rows));
  EXPECT_EQ(s.rfind("[[0, 1, 2, 3, 4], [0, 1, 2, 3], [0, 1, 2, 3, 4], ...", 0), 0u) << s;
  EXPECT_NE(s.find("], ..., ["), std::string::npos);
  std::vector<Value> few(3, iota(DType::I32, {2}));
  EXPECT_EQ(format_value(Value::list(few)), "[[0, 1], [0, 1], [0, 1]]");
}

}  // namespace
}  // namespace ein
