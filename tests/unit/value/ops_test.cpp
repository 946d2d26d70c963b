// Operators and casts: integer semantics, float precision, faults, broadcasting.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "engine/value/value.h"

namespace ein {
namespace {

using ir::BinOp;
using ir::UnOp;

Value i32(int64_t v) { return Value::integer(v, DType::I32); }
Value i8(int64_t v) { return Value::integer(v, DType::I8); }
Value i64(int64_t v) { return Value::integer(v, DType::I64); }
Value f32(double v) { return Value::floating(v, DType::F32); }
Value f64(double v) { return Value::floating(v, DType::F64); }
Value str(const char* s) { return Value::string(s); }
Value bin(BinOp op, const Value& a, const Value& b) { return binary_op(op, a, b); }

std::string fault_code(const std::function<void()>& fn, std::string* msg = nullptr) {
  try {
    fn();
  } catch (const Fault& f) {
    if (msg) *msg = f.what();
    return f.code;
  }
  return "none";
}

Value vec(DType dt, std::vector<double> xs) {
  Tensor t = Tensor::alloc(dt, {static_cast<int64_t>(xs.size())});
  for (size_t k = 0; k < xs.size(); ++k) t.set_f64(int64_t(k), xs[k]);
  return Value::tensor(std::move(t));
}
Value mat(DType dt, int64_t r, int64_t c, std::vector<double> xs) {
  return Value::tensor(vec(dt, xs).tensor_ref().reshaped({r, c}));
}

TEST(ValueOps, IntegerDivisionAndRemainder) {
  EXPECT_EQ(bin(BinOp::Div, i32(7), i32(2)).i, 3);
  EXPECT_EQ(bin(BinOp::Div, i32(-7), i32(2)).i, -3);
  EXPECT_EQ(bin(BinOp::Div, i32(7), i32(-2)).i, -3);
  EXPECT_EQ(bin(BinOp::Mod, i32(7), i32(3)).i, 1);
  EXPECT_EQ(bin(BinOp::Mod, i32(-7), i32(3)).i, -1);
  EXPECT_EQ(bin(BinOp::Mod, i32(7), i32(-3)).i, 1);
  std::string msg;
  EXPECT_EQ(fault_code([] { bin(BinOp::Div, i32(1), i32(0)); }, &msg), "E007");
  EXPECT_EQ(msg, "division by zero");
  EXPECT_EQ(fault_code([] { bin(BinOp::Mod, i64(1), i64(0)); }, &msg), "E007");
  EXPECT_EQ(msg, "remainder by zero");
  // MIN / -1 wraps rather than trapping.
  EXPECT_EQ(bin(BinOp::Div, i32(INT32_MIN), i32(-1)).i, INT32_MIN);
  EXPECT_EQ(bin(BinOp::Div, i64(INT64_MIN), i64(-1)).i, INT64_MIN);
  EXPECT_EQ(bin(BinOp::Mod, i64(INT64_MIN), i64(-1)).i, 0);
  EXPECT_EQ(bin(BinOp::Div, i8(-128), i8(-1)).i, -128);
}

TEST(ValueOps, IntegerWrap) {
  EXPECT_EQ(bin(BinOp::Add, i32(INT32_MAX), i32(1)).i, INT32_MIN);
  EXPECT_EQ(bin(BinOp::Mul, i8(100), i8(3)).i, 44);  // 300 mod 256
  EXPECT_EQ(bin(BinOp::Sub, i64(INT64_MIN), i64(1)).i, INT64_MAX);
  EXPECT_EQ(bin(BinOp::Mul, i64(3000000000), i64(2)).i, 6000000000);
  EXPECT_EQ(Value::integer(300, DType::I8).i, 44);
  EXPECT_EQ(unary_op(UnOp::Neg, i32(INT32_MIN)).i, INT32_MIN);
  EXPECT_EQ(unary_op(UnOp::Neg, i8(5)).i, -5);
  EXPECT_EQ(unary_op(UnOp::Neg, i8(5)).dt, DType::I8);
}

TEST(ValueOps, Power) {
  EXPECT_EQ(bin(BinOp::Pow, i32(2), i32(10)).i, 1024);
  EXPECT_EQ(bin(BinOp::Pow, i32(2), bin(BinOp::Pow, i32(3), i32(2))).i, 512);
  EXPECT_EQ(bin(BinOp::Pow, i32(0), i32(0)).i, 1);
  EXPECT_EQ(bin(BinOp::Pow, i32(2), i32(31)).i, INT32_MIN);  // wraps
  EXPECT_EQ(bin(BinOp::Pow, i64(3), i64(40)).i, -6289078614652622815LL);  // 3^40 mod 2^64
  EXPECT_EQ(bin(BinOp::Pow, i32(-1), i64(INT64_MAX)).i, -1);
  EXPECT_EQ(fault_code([] { bin(BinOp::Pow, i32(2), i32(-1)); }), "E006");
  Value p = bin(BinOp::Pow, f32(2.0), i32(3));
  EXPECT_EQ(p.tag, Value::Tag::Float);
  EXPECT_EQ(p.dt, DType::F32);
  EXPECT_EQ(p.f, 8.0);
  EXPECT_EQ(bin(BinOp::Pow, f32(9.0), f32(0.5)).f, 3.0);
  EXPECT_EQ(bin(BinOp::Pow, f64(2.0), i32(-2)).f, 0.25);
  EXPECT_EQ(fault_code([] { bin(BinOp::Pow, i32(2), f32(0.5)); }), "E002");
}

TEST(ValueOps, FloatPrecision) {
  Value third32 = bin(BinOp::Div, f32(1.0), f32(3.0));
  EXPECT_EQ(third32.f, static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(format_value(third32), "0.33333334");
  Value third64 = bin(BinOp::Div, f64(1.0), f64(3.0));
  EXPECT_EQ(format_value(third64), "0.3333333333333333");
  // f32 add happens in float: 1 + 2^-30 is lost.
  EXPECT_EQ(bin(BinOp::Add, f32(1.0), f32(std::ldexp(1.0, -30))).f, 1.0);
  EXPECT_EQ(bin(BinOp::Div, f64(1.0), f64(0.0)).f, INFINITY);
  EXPECT_EQ(bin(BinOp::Mod, f64(-7.5), f64(2.0)).f, -1.5);
  // f16 results are rounded to f16.
  Value h = bin(BinOp::Div, Value::floating(1.0, DType::F16), Value::floating(3.0, DType::F16));
  EXPECT_EQ(format_value(h), "0.3333");
  EXPECT_EQ(bin(BinOp::Mul, Value::floating(300.0, DType::F16), Value::floating(300.0, DType::F16)).f,
            INFINITY);
}

TEST(ValueOps, Comparisons) {
  EXPECT_TRUE(bin(BinOp::Lt, i32(1), i32(2)).b);
  EXPECT_FALSE(bin(BinOp::Ge, f32(1.0), f32(2.0)).b);
  EXPECT_FALSE(bin(BinOp::Lt, f64(NAN), f64(1.0)).b);
  EXPECT_TRUE(bin(BinOp::Lt, str("abc"), str("abd")).b);
  EXPECT_TRUE(bin(BinOp::Le, str("ab"), str("abc")).b);
  EXPECT_TRUE(bin(BinOp::Eq, str("x"), str("x")).b);
  EXPECT_TRUE(bin(BinOp::Ne, str("x"), i32(1)).b);
  EXPECT_FALSE(bin(BinOp::Eq, f64(NAN), f64(NAN)).b);
  EXPECT_TRUE(bin(BinOp::And, Value::boolean(true), Value::boolean(true)).b);
  EXPECT_TRUE(bin(BinOp::Or, Value::boolean(false), Value::boolean(true)).b);
  EXPECT_EQ(fault_code([] { bin(BinOp::And, i32(1), i32(1)); }), "E002");
  EXPECT_TRUE(bin(BinOp::In, i32(2), Value::range(0, 3)).b);
}

TEST(ValueOps, StringsAndTypeFaults) {
  EXPECT_EQ(bin(BinOp::Add, str("ab"), str("cd")).str(), "abcd");
  EXPECT_EQ(fault_code([] { bin(BinOp::Sub, str("a"), str("b")); }), "E002");
  EXPECT_EQ(fault_code([] { bin(BinOp::Add, str("a"), i32(1)); }), "E002");
  EXPECT_EQ(fault_code([] { bin(BinOp::Add, i32(1), f32(1.0)); }), "E002");
  EXPECT_EQ(fault_code([] { bin(BinOp::Add, f32(1.0), f64(1.0)); }), "E002");
  EXPECT_EQ(fault_code([] { bin(BinOp::Add, Value::boolean(true), Value::boolean(true)); }), "E002");
  EXPECT_EQ(fault_code([] { unary_op(UnOp::Neg, Value::boolean(true)); }), "E002");
  EXPECT_EQ(fault_code([] { unary_op(UnOp::Not, i32(1)); }), "E002");
  EXPECT_EQ(fault_code([] { unary_op(UnOp::Neg, str("a")); }), "E002");
  EXPECT_FALSE(unary_op(UnOp::Not, Value::boolean(true)).b);
}

TEST(ValueOps, TensorElementwiseAndBroadcast) {
  Value F = mat(DType::F32, 2, 2, {1, 2, 3, 4});
  EXPECT_EQ(format_value(bin(BinOp::Mul, F, f32(2.0))), "[[2.0, 4.0], [6.0, 8.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Add, F, F)), "[[2.0, 4.0], [6.0, 8.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Sub, F, f32(1.0))), "[[0.0, 1.0], [2.0, 3.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Mul, F, F)), "[[1.0, 4.0], [9.0, 16.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Sub, f32(10.0), F)), "[[9.0, 8.0], [7.0, 6.0]]");
  EXPECT_EQ(format_value(unary_op(UnOp::Neg, F)), "[[-1.0, -2.0], [-3.0, -4.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Div, vec(DType::F32, {1}), f32(3.0))), "[0.33333334]");
  EXPECT_EQ(format_value(bin(BinOp::Pow, F, i32(2))), "[[1.0, 4.0], [9.0, 16.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Pow, F, f32(0.5))), "[[1.0, 1.4142135], [1.7320508, 2.0]]");
  Value I = vec(DType::I32, {-7, 7, INT32_MAX});
  EXPECT_EQ(format_value(bin(BinOp::Div, I, i32(2))), "[-3, 3, 1073741823]");
  EXPECT_EQ(format_value(bin(BinOp::Mod, I, i32(3))), "[-1, 1, 1]");
  EXPECT_EQ(format_value(bin(BinOp::Add, I, i32(1))), "[-6, 8, -2147483648]");
  EXPECT_EQ(format_value(unary_op(UnOp::Neg, I)), "[7, -7, -2147483647]");
  EXPECT_EQ(format_value(bin(BinOp::Pow, vec(DType::I64, {2, 3}), vec(DType::I64, {3, 2}))), "[8, 9]");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Div, I, vec(DType::I32, {1, 0, 1})); }), "E007");
  Value H = mat(DType::F16, 1, 2, {1, 3});
  EXPECT_EQ(format_value(bin(BinOp::Div, H, Value::floating(3.0, DType::F16))), "[[0.3333, 1.0]]");
  // Rank-0 tensors act as scalars.
  Value r0 = Value::tensor(Tensor::scalar_tensor(DType::F32, 2.0));
  EXPECT_EQ(format_value(bin(BinOp::Mul, F, r0)), "[[2.0, 4.0], [6.0, 8.0]]");
  EXPECT_EQ(format_value(bin(BinOp::Add, r0, f32(1.0))), "3.0");
  Value b = vec(DType::Bool, {1, 0});
  EXPECT_EQ(format_value(unary_op(UnOp::Not, b)), "[false, true]");
}

TEST(ValueOps, EmptyTensors) {
  for (DType dt : {DType::I8, DType::I32, DType::I64, DType::F16, DType::F32, DType::F64}) {
    Value e = vec(dt, {});
    Value one = cast_value(Value::integer(1, DType::I64), dt);
    EXPECT_EQ(format_value(bin(BinOp::Add, e, e)), "[]");
    EXPECT_EQ(format_value(bin(BinOp::Div, e, one)), "[]");
    EXPECT_EQ(format_value(bin(BinOp::Pow, e, i32(2))), "[]");
    EXPECT_EQ(format_value(unary_op(UnOp::Neg, e)), "[]");
    EXPECT_EQ(format_value(cast_value(e, DType::Bool)), "[]");
    EXPECT_TRUE(bin(BinOp::Eq, e, vec(dt, {})).b);
  }
  Value z = Value::tensor(Tensor::alloc(DType::F32, {0, 3}));
  EXPECT_EQ(format_value(bin(BinOp::Mul, z, f32(2.0))), "[]");
  EXPECT_EQ(format_value(math1(MathFn::Sqrt, z)), "[]");
  EXPECT_EQ(format_value(math2(MathFn::Max2, z, z)), "[]");
}

TEST(ValueOps, TensorFaults) {
  Value M = mat(DType::F32, 2, 2, {1, 2, 3, 4});
  Value v = vec(DType::F32, {1, 2});
  std::string msg;
  EXPECT_EQ(fault_code([&] { bin(BinOp::Add, M, v); }, &msg), "E004");
  EXPECT_NE(msg.find("[2, 2]"), std::string::npos);
  EXPECT_NE(msg.find("[2]"), std::string::npos);
  EXPECT_EQ(msg, "shape mismatch: [2, 2] vs [2]");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Add, M, vec(DType::F64, {1, 2, 3, 4})); }), "E004");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Add, v, vec(DType::F64, {1, 2})); }), "E002");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Add, v, i32(1)); }), "E002");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Lt, v, v); }), "E002");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Add, vec(DType::Bool, {1}), vec(DType::Bool, {1})); }), "E002");
  EXPECT_EQ(fault_code([&] { bin(BinOp::Add, v, str("a")); }), "E002");
  EXPECT_EQ(fault_code([&] { unary_op(UnOp::Neg, vec(DType::Bool, {1})); }), "E002");
}

TEST(ValueOps, WholeValueEquality) {
  Value v = vec(DType::I32, {10, 20, 30, 40});
  EXPECT_TRUE(bin(BinOp::Eq, v, vec(DType::I32, {10, 20, 30, 40})).b);
  EXPECT_TRUE(bin(BinOp::Ne, v, vec(DType::I32, {10, 20, 30, 41})).b);
  EXPECT_FALSE(bin(BinOp::Eq, v, vec(DType::I32, {10, 20})).b);  // shapes differ: false, no fault
  EXPECT_FALSE(bin(BinOp::Eq, v, mat(DType::I32, 2, 2, {10, 20, 30, 40})).b);
}

TEST(ValueCast, Scalars) {
  EXPECT_EQ(cast_value(f32(3.7), DType::I32).i, 3);
  EXPECT_EQ(cast_value(f32(-3.7), DType::I32).i, -3);
  EXPECT_EQ(cast_value(f64(NAN), DType::I32).i, 0);
  EXPECT_EQ(cast_value(f64(1e20), DType::I32).i, INT32_MAX);
  EXPECT_EQ(cast_value(f64(-1e20), DType::I32).i, INT32_MIN);
  EXPECT_EQ(cast_value(f64(INFINITY), DType::I64).i, INT64_MAX);
  EXPECT_EQ(cast_value(f64(-INFINITY), DType::I8).i, -128);
  EXPECT_EQ(cast_value(f64(200.9), DType::I8).i, 127);
  EXPECT_EQ(cast_value(f64(9.3e18), DType::I64).i, INT64_MAX);
  EXPECT_EQ(cast_value(i32(300), DType::I8).i, 44);  // int -> int wraps
  EXPECT_EQ(cast_value(i64(-1), DType::I32).i, -1);
  Value x = cast_value(i32(5), DType::F32);
  EXPECT_EQ(x.tag, Value::Tag::Float);
  EXPECT_EQ(format_value(bin(BinOp::Div, x, f32(2.0))), "2.5");
  EXPECT_EQ(cast_value(i64(16777217), DType::F32).f, 16777216.0);
  EXPECT_EQ(cast_value(i64((1LL << 60) + (1LL << 36) + 1), DType::F32).f,
            static_cast<double>(static_cast<float>((1LL << 60) + (1LL << 36) + 1)));
  EXPECT_EQ(cast_value(i32(2049), DType::F16).f, 2048.0);
  EXPECT_EQ(cast_value(f64(1.0 / 3.0), DType::F32).f, static_cast<double>(1.0f / 3.0f));
  EXPECT_EQ(cast_value(Value::boolean(true), DType::F64).f, 1.0);
  EXPECT_EQ(cast_value(Value::boolean(true), DType::I8).i, 1);
  EXPECT_TRUE(cast_value(f64(0.1), DType::Bool).b);
  EXPECT_FALSE(cast_value(i32(0), DType::Bool).b);
  EXPECT_EQ(cast_value(Value::boolean(false), DType::Bool).tag, Value::Tag::Bool);
  EXPECT_EQ(fault_code([] { cast_value(str("1"), DType::I32); }), "E002");
}

TEST(ValueCast, Tensors) {
  Value t = vec(DType::F64, {3.7, -3.7, NAN, 1e30, -1e30, 0.0});
  EXPECT_EQ(format_value(cast_value(t, DType::I32)),
            "[3, -3, 0, 2147483647, -2147483648, 0]");
  EXPECT_EQ(format_value(cast_value(t, DType::Bool)), "[true, true, true, true, true, false]");
  EXPECT_EQ(format_value(cast_value(vec(DType::I32, {1, 300}), DType::I8)), "[1, 44]");
  EXPECT_EQ(format_value(cast_value(vec(DType::F64, {1.0 / 3.0}), DType::F32)), "[0.33333334]");
  EXPECT_EQ(format_value(cast_value(vec(DType::F32, {1.0 / 3.0}), DType::BF16)), "[0.334]");
  EXPECT_EQ(cast_value(vec(DType::I32, {1}), DType::F64).tensor_ref().dtype(), DType::F64);
}

}  // namespace
}  // namespace ein
