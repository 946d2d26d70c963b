// format_with_spec: the Python-like mini-language subset used by "{x:spec}" interpolation.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/value/value.h"

namespace ein {
namespace {

std::string fs(const Value& v, std::string_view spec) { return format_with_spec(v, spec); }
Value f64(double v) { return Value::floating(v, DType::F64); }
Value f32(double v) { return Value::floating(v, DType::F32); }
Value i32(int64_t v) { return Value::integer(v, DType::I32); }

std::string fault_code(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Fault& f) {
    return f.code;
  }
  return "none";
}

TEST(ValueSpec, FixedAndWidth) {
  EXPECT_EQ(fs(f64(1.0 / 3.0), ".4f"), "0.3333");
  EXPECT_EQ(fs(f64(2.5), "8.2f"), "    2.50");
  EXPECT_EQ(fs(f64(-3.5), "08.2f"), "-0003.50");
  EXPECT_EQ(fs(f64(2.5), "<8.2f"), "2.50    ");
  EXPECT_EQ(fs(f64(2.5), "*^9.1f"), "***2.5***");
  EXPECT_EQ(fs(f64(2.5), "+.1f"), "+2.5");
  EXPECT_EQ(fs(f64(2.5), " .1f"), " 2.5");
  EXPECT_EQ(fs(f64(-0.0), ".2f"), "-0.00");
  EXPECT_EQ(fs(f64(2.0), "f"), "2.000000");
  EXPECT_EQ(fs(f64(1e20), ".0f"), "100000000000000000000");
  EXPECT_EQ(fs(f64(0.125), ".2f"), "0.12");  // exact binary value: ties to even like Python
  EXPECT_EQ(fs(f32(0.1), ".10f"), "0.1000000015");
  EXPECT_EQ(fs(f64(INFINITY), ".2f"), "inf");
  EXPECT_EQ(fs(f64(-INFINITY), "6.2f"), "  -inf");
  EXPECT_EQ(fs(f64(NAN), "f"), "nan");
}

TEST(ValueSpec, Exponent) {
  EXPECT_EQ(fs(f64(1.0 / 3.0), "e"), "3.333333e-01");
  EXPECT_EQ(fs(f64(1.0 / 3.0), ".3e"), "3.333e-01");
  EXPECT_EQ(fs(f64(12345.0), ".2e"), "1.23e+04");
  EXPECT_EQ(fs(f64(1e-300), ".1e"), "1.0e-300");
  EXPECT_EQ(fs(f64(0.0), ".2e"), "0.00e+00");
}

TEST(ValueSpec, General) {
  EXPECT_EQ(fs(f64(1234.5), "g"), "1234.5");
  EXPECT_EQ(fs(f64(0.00001234), "g"), "1.234e-05");
  EXPECT_EQ(fs(f64(1e20), "g"), "1e+20");
  EXPECT_EQ(fs(f64(100.0), "g"), "100");
  EXPECT_EQ(fs(f64(1234567.0), "g"), "1.23457e+06");
  EXPECT_EQ(fs(f64(-0.0), "g"), "-0");
  EXPECT_EQ(fs(f64(0.5), ".0g"), "0.5");
}

TEST(ValueSpec, NoTypeWithPrecisionIsPythonDefault) {
  EXPECT_EQ(fs(f64(1.0 / 3.0), ".3"), "0.333");
  EXPECT_EQ(fs(f64(2.0), ".3"), "2.0");
  EXPECT_EQ(fs(f64(100.0), ".3"), "1e+02");
  EXPECT_EQ(fs(f64(1234.5), ".3"), "1.23e+03");
  EXPECT_EQ(fs(f64(2.0), ".1"), "2e+00");
  EXPECT_EQ(fs(f64(123.0), ".5"), "123.0");
  EXPECT_EQ(fs(f64(1e-5), ".3"), "1e-05");
  EXPECT_EQ(fs(f64(0.0001), ".3"), "0.0001");
  EXPECT_EQ(fs(f64(0.0), ".3"), "0.0");
  EXPECT_EQ(fs(f64(1.0 / 3.0), "10.3"), "     0.333");
}

TEST(ValueSpec, NoTypeNoPrecisionIsRepr) {
  EXPECT_EQ(fs(f32(2.0), "5"), "  2.0");
  EXPECT_EQ(fs(f32(1.0 / 3.0), ">12"), "  0.33333334");
  EXPECT_EQ(fs(f64(1e-5), "<7"), "1e-05  ");
}

TEST(ValueSpec, Integers) {
  EXPECT_EQ(fs(i32(3), "5d"), "    3");
  EXPECT_EQ(fs(i32(3), "5"), "    3");
  EXPECT_EQ(fs(i32(-42), "05d"), "-0042");
  EXPECT_EQ(fs(i32(42), "<5"), "42   ");
  EXPECT_EQ(fs(i32(42), "+d"), "+42");
  EXPECT_EQ(fs(i32(3), ".2f"), "3.00");
  EXPECT_EQ(fs(Value::integer(INT64_MIN, DType::I64), "d"), "-9223372036854775808");
  EXPECT_EQ(fault_code([] { fs(i32(3), ".2"); }), "E006");
  EXPECT_EQ(fault_code([] { fs(i32(3), ".2d"); }), "E006");
  EXPECT_EQ(fault_code([] { fs(f64(3.0), "d"); }), "E006");
}

TEST(ValueSpec, StringsAndBools) {
  EXPECT_EQ(fs(Value::string("ab"), "5"), "ab   ");
  EXPECT_EQ(fs(Value::string("ab"), ">5"), "   ab");
  EXPECT_EQ(fs(Value::string("abcdef"), ".3"), "abc");
  EXPECT_EQ(fs(Value::string("ab"), "s"), "ab");
  EXPECT_EQ(fs(Value::string("\xc3\xa9"), "3"), "\xc3\xa9  ");  // width counts characters
  EXPECT_EQ(fs(Value::string("x"), "\xc3\xa9^3"), "\xc3\xa9x\xc3\xa9");  // UTF-8 fill
  EXPECT_EQ(fs(Value::boolean(true), "6"), "true  ");
  EXPECT_EQ(fs(Value::boolean(true), "d"), "1");
  EXPECT_EQ(fault_code([] { fs(Value::string("a"), "d"); }), "E006");
  EXPECT_EQ(fault_code([] { fs(Value::string("a"), "+"); }), "E006");
  EXPECT_EQ(fault_code([] { fs(i32(1), "s"); }), "E006");
}

TEST(ValueSpec, Containers) {
  Tensor t = Tensor::alloc(DType::F64, {2, 2});
  for (int k = 0; k < 4; ++k) t.set_f64(k, 1.0 / (k + 1));
  EXPECT_EQ(fs(Value::tensor(t), ".2f"), "[[1.00, 0.50], [0.33, 0.25]]");
  EXPECT_EQ(fs(Value::tensor(t), "5.1f"), "[[  1.0,   0.5], [  0.3,   0.2]]");
  EXPECT_EQ(fs(Value::tuple({f64(1.0), Value::string("a")}), ".1f"), "(1.0, \"a\")");
  EXPECT_EQ(fs(Value::range(0, 3), ">6"), "  0..3");
  EXPECT_EQ(fs(Value::unit(), ""), "()");
  EXPECT_EQ(fault_code([&] { fs(Value::tensor(t), "d"); }), "E006");
  EXPECT_EQ(fault_code([] { fs(Value::range(0, 3), ".2f"); }), "E006");
}

TEST(ValueSpec, InvalidSpecs) {
  for (const char* bad : {"x", ".f", "5.2q", "10.2ff", "<<<5", "99999999", ".999999999"}) {
    EXPECT_EQ(fault_code([&] { fs(f64(1.0), bad); }), "E006") << bad;
  }
  try {
    fs(f64(1.0), "5.2q");
  } catch (const Fault& f) {
    EXPECT_NE(std::string(f.what()).find("invalid format spec `5.2q`"), std::string::npos);
  }
  EXPECT_EQ(fs(f64(1.0), ""), "1.0");
  EXPECT_EQ(fs(f64(1.0), "<<5"), "1.0<<");  // fill "<", align "<"
}

}  // namespace
}  // namespace ein
