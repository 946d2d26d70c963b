// Values: factories, array literals, membership, equality, typeof, reductions, math intrinsics.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

#include "engine/value/value.h"

namespace ein {
namespace {

Value i32(int64_t v) { return Value::integer(v, DType::I32); }
Value f32(double v) { return Value::floating(v, DType::F32); }
Value f64(double v) { return Value::floating(v, DType::F64); }
Value str(const char* s) { return Value::string(s); }

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

TEST(ValueBasics, FactoriesNormalise) {
  EXPECT_EQ(Value::integer(-129, DType::I8).i, 127);
  EXPECT_EQ(Value::integer(1LL << 32, DType::I32).i, 0);
  EXPECT_EQ(Value::floating(0.1, DType::F32).f, static_cast<double>(0.1f));
  EXPECT_EQ(Value::floating(0.1, DType::F64).f, 0.1);
  EXPECT_EQ(Value::integer(3, DType::F64).tag, Value::Tag::Float);  // kind follows dtype
  EXPECT_EQ(Value::floating(2.7, DType::I32).i, 2);
  EXPECT_EQ(Value::range(0, 5).range_size(), 5u);
  EXPECT_EQ(Value::range(5, 1).range_size(), 0u);
  // An inclusive range may end at i64::MAX, whose exclusive end is not an i64.
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(Value::range_inclusive(kMax - 3, kMax).range_size(), 4u);
  EXPECT_TRUE(Value::range_inclusive(kMax - 3, kMax).range_has(kMax));
  EXPECT_EQ(Value::range(7, kMin).range_size(), 0u);
  EXPECT_EQ(Value::range(kMin, kMin).range_size(), 0u);
  EXPECT_EQ(Value::range_inclusive(kMin, kMax).range_size(), UINT64_MAX);  // saturated
  EXPECT_EQ(i32(5).as_f64(), 5.0);
  EXPECT_EQ(f32(-2.5).as_i64(), -2);
  EXPECT_EQ(Value::boolean(true).as_i64(), 1);
  EXPECT_EQ(fault_code([] { str("a").as_f64(); }), "E002");
  EXPECT_TRUE(i32(1).is_scalar());
  EXPECT_FALSE(str("a").is_scalar());
}

TEST(ValueArray, ScalarsAndStacking) {
  Value v = make_array({i32(1), i32(2), i32(3)}, DType::I32);
  ASSERT_TRUE(v.is_tensor());
  EXPECT_EQ(format_value(v), "[1, 2, 3]");
  EXPECT_EQ(type_string(v), "[i32; 3]");
  Value m = make_array({v, make_array({i32(4), i32(5), i32(6)}, DType::I32)}, DType::I32);
  EXPECT_EQ(format_value(m), "[[1, 2, 3], [4, 5, 6]]");
  EXPECT_EQ(type_string(m), "[i32; 2, 3]");
  Value cube = make_array({m, m}, DType::I32);
  EXPECT_EQ(cube.tensor_ref().shape(), (std::vector<int64_t>{2, 2, 3}));
  EXPECT_EQ(tensor_get(cube.tensor_ref(), 11).i, 6);
  Value fl = make_array({f64(1.5), f64(2.0)}, DType::F64);
  EXPECT_EQ(format_value(fl), "[1.5, 2.0]");
  Value e = make_array({}, DType::F32);
  EXPECT_EQ(e.tensor_ref().shape(), (std::vector<int64_t>{0}));
  EXPECT_EQ(type_string(e), "[f32; 0]");
  // Empty rows stack to [n, 0].
  EXPECT_EQ(make_array({e, e}, DType::F32).tensor_ref().shape(), (std::vector<int64_t>{2, 0}));
  // Rows of another dtype are converted to the literal's dtype.
  Value conv = make_array({vec(DType::F64, {1.0 / 3.0})}, DType::F32);
  EXPECT_EQ(format_value(conv), "[[0.33333334]]");
}

TEST(ValueArray, ListRowsBecomeTensors) {
  // Rows produced as lists of numbers (e.g. comprehension results) stack like tensors.
  Value row = Value::list({i32(1), i32(2)});
  Value m = make_array({row, row}, DType::I32);
  ASSERT_TRUE(m.is_tensor());
  EXPECT_EQ(type_string(m), "[i32; 2, 2]");
  EXPECT_EQ(fault_code([&] { make_array({row, Value::list({i32(1)})}, DType::I32); }), "E004");
  // A jagged list stays a list inside a literal.
  Value jag = Value::list({vec(DType::I32, {1, 2}), vec(DType::I32, {3})});
  Value jj = make_array({jag, jag}, DType::I32);
  EXPECT_EQ(jj.tag, Value::Tag::List);
  EXPECT_EQ(format_value(jj), "[[[1, 2], [3]], [[1, 2], [3]]]");
}

TEST(ValueArray, RaggedFaults) {
  Value r0 = make_array({i32(1), i32(2)}, DType::I32);
  Value r1 = make_array({i32(3)}, DType::I32);
  std::string msg;
  EXPECT_EQ(fault_code([&] { make_array({r0, r1}, DType::I32); }, &msg), "E004");
  EXPECT_EQ(msg, "array literal is not rectangular: row 1 has 1 element, row 0 has 2 elements");
  EXPECT_EQ(fault_code([&] { make_array({r0, i32(3)}, DType::I32); }, &msg), "E004");
  EXPECT_EQ(msg, "array literal is not rectangular: row 1 is a scalar, row 0 has 2 elements");
  Value m = make_array({r0, r0}, DType::I32);
  EXPECT_EQ(fault_code([&] { make_array({m, make_array({r0}, DType::I32)}, DType::I32); }, &msg),
            "E004");
  EXPECT_NE(msg.find("[1, 2]"), std::string::npos);
  EXPECT_EQ(fault_code([&] { make_array({i32(1), str("a")}, DType::I32); }), "E004");
}

TEST(ValueArray, NonNumericElementsMakeLists) {
  Value l = make_array({str("a"), str("bc"), str("d")}, DType::I32);
  EXPECT_EQ(l.tag, Value::Tag::List);
  EXPECT_EQ(format_value(l), R"(["a", "bc", "d"])");
  EXPECT_EQ(type_string(l), "[str; 3]");
  Value tl = make_array({Value::tuple({i32(1), str("x")}), Value::tuple({i32(2), str("y")})}, DType::I32);
  EXPECT_EQ(type_string(tl), "[(i32, str); 2]");
  Value nested = make_array({l, l}, DType::I32);
  EXPECT_EQ(type_string(nested), "[str; 2, 3]");
}

TEST(ValueTypeString, All) {
  EXPECT_EQ(type_string(i32(1)), "i32");
  EXPECT_EQ(type_string(Value::integer(1, DType::I64)), "i64");
  EXPECT_EQ(type_string(Value::integer(1, DType::I8)), "i8");
  EXPECT_EQ(type_string(f32(1)), "f32");
  EXPECT_EQ(type_string(Value::floating(1, DType::BF16)), "bf16");
  EXPECT_EQ(type_string(Value::boolean(true)), "bool");
  EXPECT_EQ(type_string(str("s")), "str");
  EXPECT_EQ(type_string(Value::unit()), "()");
  EXPECT_EQ(type_string(Value::range(0, 3)), "range");
  EXPECT_EQ(type_string(Value::tuple({i32(1), f32(2)})), "(i32, f32)");
  EXPECT_EQ(type_string(Value::tuple({i32(1)})), "(i32,)");
  EXPECT_EQ(type_string(Value::tensor(Tensor::alloc(DType::F32, {2, 3}))), "[f32; 2, 3]");
  EXPECT_EQ(type_string(Value::tensor(Tensor::alloc(DType::F64, {}))), "f64");
  Value jag = Value::list({vec(DType::I32, {1, 2}), vec(DType::I32, {3})});
  EXPECT_EQ(type_string(jag), "jagged[i32]");
  EXPECT_EQ(type_string(Value::list({vec(DType::I32, {1}), str("a")})), "jagged[?]");
  EXPECT_EQ(type_string(Value::list({})), "[?; 0]");
  struct F : FuncObj {
    std::string display_name() const override { return "f"; }
  };
  EXPECT_EQ(type_string(Value::func(std::make_shared<F>())), "fn");
}

TEST(ValueContains, RangesArraysLists) {
  Value v = vec(DType::I32, {10, 20, 30, 40});
  EXPECT_TRUE(value_contains(v, i32(30)));
  EXPECT_FALSE(value_contains(v, i32(5)));
  EXPECT_TRUE(value_contains(vec(DType::F32, {0.5, 1.5}), f32(1.5)));
  EXPECT_FALSE(value_contains(vec(DType::F32, {NAN}), f32(NAN)));
  EXPECT_TRUE(value_contains(Value::range(0, 3), i32(2)));
  EXPECT_FALSE(value_contains(Value::range(0, 3), i32(3)));
  EXPECT_FALSE(value_contains(Value::range(0, 3), i32(-1)));
  EXPECT_TRUE(value_contains(Value::range(-5, 0), Value::integer(-5, DType::I64)));
  Value M = make_array({vec(DType::I32, {1, 2, 3}), vec(DType::I32, {4, 5, 6})}, DType::I32);
  EXPECT_TRUE(value_contains(M, vec(DType::I32, {4, 5, 6})));
  EXPECT_FALSE(value_contains(M, vec(DType::I32, {4, 5})));
  EXPECT_FALSE(value_contains(M, i32(4)));
  Value l = Value::list({str("a"), str("b")});
  EXPECT_TRUE(value_contains(l, str("b")));
  EXPECT_FALSE(value_contains(l, str("c")));
  EXPECT_TRUE(value_contains(str("hello"), str("ell")));
  EXPECT_EQ(fault_code([] { value_contains(i32(3), i32(3)); }), "E002");
}

TEST(ValueEquality, Structural) {
  EXPECT_TRUE(values_equal(i32(3), i32(3)));
  EXPECT_FALSE(values_equal(i32(3), i32(4)));
  EXPECT_TRUE(values_equal(f64(0.0), f64(-0.0)));
  EXPECT_FALSE(values_equal(f64(NAN), f64(NAN)));
  EXPECT_TRUE(values_equal(str("a"), str("a")));
  EXPECT_FALSE(values_equal(str("a"), i32(1)));
  EXPECT_TRUE(values_equal(Value::unit(), Value::unit()));
  EXPECT_TRUE(values_equal(Value::tuple({i32(1), str("a")}), Value::tuple({i32(1), str("a")})));
  EXPECT_FALSE(values_equal(Value::tuple({i32(1)}), Value::tuple({i32(1), i32(2)})));
  EXPECT_TRUE(values_equal(Value::range(0, 3), Value::range(0, 3)));
  EXPECT_TRUE(values_equal(Value::range(5, 3), Value::range(9, 1)));  // both empty
  Value a = vec(DType::F32, {1, 2});
  EXPECT_TRUE(values_equal(a, vec(DType::F32, {1, 2})));
  EXPECT_FALSE(values_equal(a, vec(DType::F32, {1, 2, 3})));
  Value jag = Value::list({vec(DType::I32, {1, 2}), vec(DType::I32, {3})});
  EXPECT_TRUE(values_equal(jag, Value::list({vec(DType::I32, {1, 2}), vec(DType::I32, {3})})));
  EXPECT_FALSE(values_equal(jag, a));
  // Rank-0 tensors compare as their scalar.
  EXPECT_TRUE(values_equal(Value::tensor(Tensor::scalar_tensor(DType::I32, 7)), i32(7)));
}

TEST(ValueReduce, AllOps) {
  Value v = vec(DType::I32, {3, -1, 4, 1, 5});
  EXPECT_EQ(reduce_all(ir::ReduceOp::Sum, v).i, 12);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Prod, v).i, -60);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Max, v).i, 5);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Min, v).i, -1);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Sum, v).dt, DType::I32);
  EXPECT_TRUE(reduce_all(ir::ReduceOp::Any, v).b);
  EXPECT_TRUE(reduce_all(ir::ReduceOp::All, v).b);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Sum, vec(DType::I32, {INT32_MAX, 1})).i, INT32_MIN);  // wraps
  Value f = vec(DType::F32, {0.1, 0.2, 0.3});
  Value s = reduce_all(ir::ReduceOp::Sum, f);
  EXPECT_EQ(s.dt, DType::F32);
  EXPECT_EQ(s.f, static_cast<double>((0.1f + 0.2f) + 0.3f));
  EXPECT_EQ(reduce_all(ir::ReduceOp::Max, vec(DType::F64, {1, NAN, 3})).tag, Value::Tag::Float);
  EXPECT_TRUE(std::isnan(reduce_all(ir::ReduceOp::Max, vec(DType::F64, {1, NAN, 3})).f));
  Value empty_f = vec(DType::F64, {});
  EXPECT_EQ(reduce_all(ir::ReduceOp::Sum, empty_f).f, 0.0);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Prod, empty_f).f, 1.0);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Max, empty_f).f, -INFINITY);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Min, empty_f).f, INFINITY);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Sum, vec(DType::I64, {})).i, 0);
  EXPECT_EQ(fault_code([] { reduce_all(ir::ReduceOp::Max, vec(DType::I32, {})); }), "E006");
  EXPECT_EQ(fault_code([] { reduce_all(ir::ReduceOp::Min, vec(DType::I8, {})); }), "E006");
  Value b = vec(DType::Bool, {1, 0, 1});
  EXPECT_FALSE(reduce_all(ir::ReduceOp::All, b).b);
  EXPECT_TRUE(reduce_all(ir::ReduceOp::Any, b).b);
  EXPECT_TRUE(reduce_all(ir::ReduceOp::All, vec(DType::Bool, {})).b);
  EXPECT_FALSE(reduce_all(ir::ReduceOp::Any, vec(DType::Bool, {})).b);
  EXPECT_EQ(fault_code([&] { reduce_all(ir::ReduceOp::Sum, b); }), "E002");
  EXPECT_EQ(fault_code([&] { reduce_all(ir::ReduceOp::ArgMax, v); }), "E006");  // not a whole-array reduction
  EXPECT_EQ(fault_code([] { reduce_all(ir::ReduceOp::Sum, str("x")); }), "E002");
  // Any rank; long f32 sums stay accurate (pairwise).
  Tensor big = Tensor::alloc(DType::F32, {100, 1000});
  for (int64_t k = 0; k < big.size(); ++k) big.set_f64(k, 0.1);
  EXPECT_NEAR(reduce_all(ir::ReduceOp::Sum, Value::tensor(big)).f, 10000.0, 0.05);
  EXPECT_EQ(reduce_all(ir::ReduceOp::Sum, f32(2.5)).f, 2.5);
}

TEST(ValueMath, Unary) {
  EXPECT_EQ(mathfn_from_name("sqrt"), MathFn::Sqrt);
  EXPECT_EQ(mathfn_from_name("ln"), MathFn::Log);
  EXPECT_EQ(mathfn_from_name("atan2"), MathFn::Atan2);
  EXPECT_FALSE(mathfn_from_name("nope").has_value());
  EXPECT_EQ(math1(MathFn::Sqrt, f32(16.0)).f, 4.0);
  EXPECT_EQ(math1(MathFn::Sqrt, f32(2.0)).f, static_cast<double>(std::sqrt(2.0f)));
  EXPECT_EQ(math1(MathFn::Sqrt, f64(2.0)).f, std::sqrt(2.0));
  EXPECT_EQ(math1(MathFn::Exp, f32(1.0)).dt, DType::F32);
  EXPECT_EQ(math1(MathFn::Abs, f32(-2.5)).f, 2.5);
  EXPECT_EQ(math1(MathFn::Abs, i32(-3)).i, 3);
  EXPECT_EQ(math1(MathFn::Abs, i32(INT32_MIN)).i, INT32_MIN);
  EXPECT_EQ(math1(MathFn::Sign, i32(-9)).i, -1);
  EXPECT_EQ(math1(MathFn::Sign, f64(0.0)).f, 0.0);
  EXPECT_TRUE(std::isnan(math1(MathFn::Sign, f64(NAN)).f));
  EXPECT_EQ(math1(MathFn::Round, f64(2.5)).f, 3.0);
  EXPECT_EQ(math1(MathFn::Round, f64(-2.5)).f, -3.0);
  EXPECT_EQ(math1(MathFn::Floor, f64(2.7)).f, 2.0);
  EXPECT_EQ(math1(MathFn::Ceil, f64(2.2)).f, 3.0);
  EXPECT_EQ(math1(MathFn::Trunc, f64(-2.7)).f, -2.0);
  EXPECT_EQ(math1(MathFn::Erf, f64(0.5)).f, std::erf(0.5));
  EXPECT_EQ(math1(MathFn::Rsqrt, f64(4.0)).f, 0.5);
  EXPECT_TRUE(std::isnan(math1(MathFn::Sqrt, f64(-1.0)).f));
  EXPECT_EQ(math1(MathFn::Log, f64(0.0)).f, -INFINITY);
  EXPECT_EQ(format_value(math1(MathFn::Sqrt, Value::floating(2.0, DType::F16))), "1.414");
  EXPECT_EQ(fault_code([] { math1(MathFn::Sqrt, i32(4)); }), "E002");
  EXPECT_EQ(fault_code([] { math1(MathFn::Sin, Value::boolean(true)); }), "E002");
  EXPECT_EQ(fault_code([] { math1(MathFn::Sin, str("x")); }), "E002");
  EXPECT_EQ(fault_code([] { math1(MathFn::Atan2, f32(1)); }), "E006");
}

TEST(ValueMath, UnaryTensors) {
  EXPECT_EQ(format_value(math1(MathFn::Sqrt, vec(DType::F32, {1, 4, 9}))), "[1.0, 2.0, 3.0]");
  EXPECT_EQ(format_value(math1(MathFn::Tanh, vec(DType::F64, {0}))), "[0.0]");
  EXPECT_EQ(format_value(math1(MathFn::Abs, vec(DType::I8, {-128, -3, 4}))), "[-128, 3, 4]");
  EXPECT_EQ(format_value(math1(MathFn::Sign, vec(DType::F32, {-2, 0, 3}))), "[-1.0, 0.0, 1.0]");
  EXPECT_EQ(format_value(math1(MathFn::Round, vec(DType::F32, {0.5, 1.5, -0.5}))), "[1.0, 2.0, -1.0]");
  EXPECT_EQ(format_value(math1(MathFn::Exp, vec(DType::F16, {1}))), "[2.719]");
  // Every unary function agrees between the scalar and the tensor path.
  for (int f = int(MathFn::Abs); f <= int(MathFn::Rsqrt); ++f) {
    for (double x : {0.3, 0.9, 1.7, -0.4}) {
      for (DType dt : {DType::F32, DType::F64, DType::BF16}) {
        Value s = math1(MathFn(f), Value::floating(x, dt));
        Value t = math1(MathFn(f), vec(dt, {x}));
        const double a = s.f, b = t.tensor_ref().get_f64(0);
        EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << f << " " << x;
      }
    }
  }
  EXPECT_EQ(fault_code([] { math1(MathFn::Exp, vec(DType::I32, {1})); }), "E002");
}

TEST(ValueMath, Binary) {
  EXPECT_EQ(math2(MathFn::Atan2, f64(1.0), f64(1.0)).f, std::atan2(1.0, 1.0));
  EXPECT_EQ(math2(MathFn::Pow, f32(2.0), f32(3.0)).f, 8.0);
  EXPECT_EQ(math2(MathFn::Pow, i32(2), i32(5)).i, 32);
  EXPECT_EQ(math2(MathFn::Fmod, f64(7.5), f64(2.0)).f, 1.5);
  EXPECT_EQ(math2(MathFn::Fmod, f64(-7.5), f64(2.0)).f, -1.5);
  EXPECT_EQ(fault_code([] { math2(MathFn::Fmod, i32(1), i32(0)); }), "E007");
  EXPECT_EQ(math2(MathFn::Min2, f64(1.0), f64(2.0)).f, 1.0);
  EXPECT_EQ(math2(MathFn::Max2, i32(1), i32(2)).i, 2);
  EXPECT_TRUE(std::isnan(math2(MathFn::Max2, f64(NAN), f64(2.0)).f));
  EXPECT_TRUE(std::isnan(math2(MathFn::Min2, f64(2.0), f64(NAN)).f));
  EXPECT_EQ(format_value(math2(MathFn::Max2, vec(DType::F32, {1, 5, NAN}), f32(3.0))), "[3.0, 5.0, nan]");
  EXPECT_EQ(format_value(math2(MathFn::Min2, vec(DType::I32, {1, 5}), vec(DType::I32, {4, 2}))), "[1, 2]");
  EXPECT_EQ(format_value(math2(MathFn::Atan2, f64(0.0), vec(DType::F64, {1}))), "[0.0]");
  EXPECT_EQ(fault_code([] { math2(MathFn::Max2, vec(DType::F32, {1, 2}), vec(DType::F32, {1})); }), "E004");
  EXPECT_EQ(fault_code([] { math2(MathFn::Max2, f32(1), f64(1)); }), "E002");
  EXPECT_EQ(fault_code([] { math2(MathFn::Atan2, i32(1), i32(1)); }), "E002");
  EXPECT_EQ(fault_code([] { math2(MathFn::Sqrt, f32(1), f32(1)); }), "E006");
}

}  // namespace
}  // namespace ein
