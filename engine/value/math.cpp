// Elementwise math intrinsics (std::math natives) and whole-array reductions.
//
// Precision rule: a value is computed at its own float precision — f32 (and f16/bf16, which are
// stored as f32) through the float overloads of <cmath>, f64 through the double ones — and the
// result keeps the input dtype.
#include <cmath>
#include <limits>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>

#include "engine/value/value.h"
#include "engine/value/value_detail.h"

namespace ein {

using vdetail::visit_storage;

namespace {

struct NameFn {
  const char* name;
  MathFn fn;
};
constexpr NameFn kNames[] = {
    {"abs", MathFn::Abs},     {"sqrt", MathFn::Sqrt},   {"exp", MathFn::Exp},
    {"log", MathFn::Log},     {"ln", MathFn::Log},      {"log2", MathFn::Log2},
    {"log10", MathFn::Log10}, {"log1p", MathFn::Log1p}, {"expm1", MathFn::Expm1},
    {"sin", MathFn::Sin},     {"cos", MathFn::Cos},     {"tan", MathFn::Tan},
    {"asin", MathFn::Asin},   {"acos", MathFn::Acos},   {"atan", MathFn::Atan},
    {"sinh", MathFn::Sinh},   {"cosh", MathFn::Cosh},   {"tanh", MathFn::Tanh},
    {"asinh", MathFn::Asinh}, {"acosh", MathFn::Acosh}, {"atanh", MathFn::Atanh},
    {"floor", MathFn::Floor}, {"ceil", MathFn::Ceil},   {"round", MathFn::Round},
    {"trunc", MathFn::Trunc}, {"erf", MathFn::Erf},     {"sign", MathFn::Sign},
    {"rsqrt", MathFn::Rsqrt}, {"atan2", MathFn::Atan2}, {"pow", MathFn::Pow},
    {"fmod", MathFn::Fmod},   {"min2", MathFn::Min2},   {"max2", MathFn::Max2},
    {"minimum", MathFn::Min2}, {"maximum", MathFn::Max2},
};

const char* fn_name(MathFn f) {
  for (const NameFn& n : kNames) {
    if (n.fn == f) return n.name;
  }
  return "?";
}

template <class C> C apply1(MathFn f, C x) {
  switch (f) {
    case MathFn::Abs: return std::fabs(x);
    case MathFn::Sqrt: return std::sqrt(x);
    case MathFn::Exp: return std::exp(x);
    case MathFn::Log: return std::log(x);
    case MathFn::Log2: return std::log2(x);
    case MathFn::Log10: return std::log10(x);
    case MathFn::Log1p: return std::log1p(x);
    case MathFn::Expm1: return std::expm1(x);
    case MathFn::Sin: return std::sin(x);
    case MathFn::Cos: return std::cos(x);
    case MathFn::Tan: return std::tan(x);
    case MathFn::Asin: return std::asin(x);
    case MathFn::Acos: return std::acos(x);
    case MathFn::Atan: return std::atan(x);
    case MathFn::Sinh: return std::sinh(x);
    case MathFn::Cosh: return std::cosh(x);
    case MathFn::Tanh: return std::tanh(x);
    case MathFn::Asinh: return std::asinh(x);
    case MathFn::Acosh: return std::acosh(x);
    case MathFn::Atanh: return std::atanh(x);
    case MathFn::Floor: return std::floor(x);
    case MathFn::Ceil: return std::ceil(x);
    case MathFn::Round: return std::round(x);  // half away from zero
    case MathFn::Trunc: return std::trunc(x);
    case MathFn::Erf: return std::erf(x);
    case MathFn::Sign:
      // NumPy: -1/1, zero keeps its sign, NaN stays NaN.
      return x > C(0) ? C(1) : x < C(0) ? C(-1) : x;
    case MathFn::Rsqrt: return C(1) / std::sqrt(x);
    default: break;
  }
  return x;
}

template <class C> C apply2(MathFn f, C x, C y) {
  switch (f) {
    case MathFn::Atan2: return std::atan2(x, y);
    // NaN-propagating like NumPy's minimum/maximum (std::fmin/fmax would drop the NaN); equal
    // operands give the second, as NumPy's do, which decides the sign of a zero:
    // maximum(-0.0, 0.0) is 0.0, so relu(-0.0) = __max2(-0.0, 0) is 0.0 (ONNX Relu's reference).
    case MathFn::Min2: return (std::isnan(x) || std::isnan(y)) ? std::numeric_limits<C>::quiet_NaN() : (x < y ? x : y);
    case MathFn::Max2: return (std::isnan(x) || std::isnan(y)) ? std::numeric_limits<C>::quiet_NaN() : (x > y ? x : y);
    default: break;
  }
  return x;
}

double apply1_dt(MathFn f, double x, DType dt) {
  if (dt == DType::F64) return apply1<double>(f, x);
  return static_cast<double>(apply1<float>(f, static_cast<float>(x)));
}

int64_t int_math1(MathFn f, int64_t v, DType dt) {
  if (f == MathFn::Sign) return v > 0 ? 1 : v < 0 ? -1 : 0;
  // abs(MIN) wraps to MIN, like Rust's wrapping_abs.
  return vdetail::wrap_int(v < 0 ? static_cast<int64_t>(uint64_t{0} - static_cast<uint64_t>(v)) : v, dt);
}

template <class S> auto adapt_flat(S* p, int64_t n) {
  return xt::adapt(p, static_cast<size_t>(n), xt::no_ownership(),
                   std::vector<size_t>{static_cast<size_t>(n)});
}

// Float tensor path: xtensor's vectorised functions where they match apply1 exactly.
template <class S> void float_math1(MathFn f, const Tensor& t, Tensor& out) {
  const int64_t n = t.size();
  auto A = adapt_flat(t.data_as<S>(), n);
  auto O = adapt_flat(out.data_as<S>(), n);
  switch (f) {
    case MathFn::Abs: O = xt::abs(A); break;
    case MathFn::Sqrt: O = xt::sqrt(A); break;
    case MathFn::Exp: O = xt::exp(A); break;
    case MathFn::Log: O = xt::log(A); break;
    case MathFn::Sin: O = xt::sin(A); break;
    case MathFn::Cos: O = xt::cos(A); break;
    case MathFn::Tanh: O = xt::tanh(A); break;
    case MathFn::Floor: O = xt::floor(A); break;
    case MathFn::Ceil: O = xt::ceil(A); break;
    case MathFn::Trunc: O = xt::trunc(A); break;
    default: {
      const S* p = t.data_as<S>();
      S* o = out.data_as<S>();
      for (int64_t k = 0; k < n; ++k) o[k] = apply1<S>(f, p[k]);
    }
  }
  if (t.dtype() == DType::F16 || t.dtype() == DType::BF16) {
    S* o = out.data_as<S>();
    for (int64_t k = 0; k < n; ++k) o[k] = static_cast<S>(round_to_float_dtype(o[k], t.dtype()));
  }
}

[[noreturn]] void needs_float(MathFn f, const Value& x) {
  fault("E002", std::string("type mismatch: `") + fn_name(f) + "` needs a float or float array, found " +
                    vdetail::kind_name(x) + " (convert with `as f32`)");
}

}  // namespace

std::optional<MathFn> mathfn_from_name(std::string_view name) {
  for (const NameFn& n : kNames) {
    if (name == n.name) return n.fn;
  }
  return std::nullopt;
}

Value math1(MathFn f, const Value& x0) {
  using T = Value::Tag;
  const Value x = vdetail::scalarize(x0);
  const bool int_ok = f == MathFn::Abs || f == MathFn::Sign;
  if (f >= MathFn::Atan2) fault("E006", std::string("`") + fn_name(f) + "` takes two arguments");
  if (x.tag == T::Float) return Value::floating(apply1_dt(f, x.f, x.dt), x.dt);
  if (x.tag == T::Int && int_ok) return Value::integer(int_math1(f, x.i, x.dt), x.dt);
  if (x.tag != T::Tensor) needs_float(f, x);
  const Tensor& t = x.tensor_ref();
  if (t.dtype() == DType::Bool || (is_int(t.dtype()) && !int_ok)) needs_float(f, x);
  Tensor out = Tensor::alloc(t.dtype(), t.shape());
  visit_storage(t.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<S>) {
      float_math1<S>(f, t, out);
    } else {
      const S* p = t.data_as<S>();
      S* o = out.data_as<S>();
      for (int64_t k = 0; k < t.size(); ++k) o[k] = static_cast<S>(int_math1(f, p[k], t.dtype()));
    }
  });
  return Value::tensor(std::move(out));
}

Value math2(MathFn f, const Value& x0, const Value& y0) {
  using T = Value::Tag;
  if (f == MathFn::Pow) return binary_op(ir::BinOp::Pow, x0, y0);
  // fmod is the float remainder, which is exactly what `%` does (ints: E007 on zero).
  if (f == MathFn::Fmod) return binary_op(ir::BinOp::Mod, x0, y0);
  if (f < MathFn::Atan2) fault("E006", std::string("`") + fn_name(f) + "` takes one argument");
  const Value x = vdetail::scalarize(x0), y = vdetail::scalarize(y0);
  auto dtype_of = [&](const Value& v) -> DType {
    if (v.tag == T::Tensor || v.tag == T::Int || v.tag == T::Float) return v.dt;
    needs_float(f, v);
  };
  const DType dt = dtype_of(x);
  if (dtype_of(y) != dt) {
    fault("E002", std::string("type mismatch: `") + fn_name(f) + "` on " + vdetail::kind_name(x) +
                      " and " + vdetail::kind_name(y));
  }
  if (is_int(dt) && f == MathFn::Atan2) needs_float(f, x);
  const Tensor* tx = x.tag == T::Tensor ? &x.tensor_ref() : nullptr;
  const Tensor* ty = y.tag == T::Tensor ? &y.tensor_ref() : nullptr;
  if (tx && ty && tx->shape() != ty->shape()) {
    fault("E004", "shape mismatch: " + vdetail::shape_str(tx->shape()) + " vs " +
                      vdetail::shape_str(ty->shape()));
  }
  if (!tx && !ty) {
    if (is_int(dt)) {
      const bool take_y = f == MathFn::Min2 ? y.i < x.i : y.i > x.i;
      return take_y ? y : x;
    }
    const double r = dt == DType::F64 ? apply2<double>(f, x.f, y.f)
                                      : apply2<float>(f, float(x.f), float(y.f));
    return Value::floating(r, dt);
  }
  Tensor out = Tensor::alloc(dt, tx ? tx->shape() : ty->shape());
  const int64_t n = out.size();
  visit_storage(dt, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const S* px = tx ? tx->data_as<S>() : nullptr;
    const S* py = ty ? ty->data_as<S>() : nullptr;
    S* o = out.data_as<S>();
    if constexpr (std::is_floating_point_v<S>) {
      const S sx = tx ? S(0) : static_cast<S>(x.f), sy = ty ? S(0) : static_cast<S>(y.f);
      for (int64_t k = 0; k < n; ++k) {
        S r = apply2<S>(f, px ? px[k] : sx, py ? py[k] : sy);
        o[k] = dt == DType::F16 || dt == DType::BF16 ? static_cast<S>(round_to_float_dtype(r, dt)) : r;
      }
    } else {
      const S sx = tx ? S(0) : static_cast<S>(x.i), sy = ty ? S(0) : static_cast<S>(y.i);
      for (int64_t k = 0; k < n; ++k) {
        const S a = px ? px[k] : sx, b = py ? py[k] : sy;
        o[k] = (f == MathFn::Min2 ? a < b : a > b) ? a : b;
      }
    }
  });
  return Value::tensor(std::move(out));
}

// ---- reductions -----------------------------------------------------------------------------
namespace {

// Pairwise summation in the compute type: identical to a sequential loop for short arrays,
// and keeps f32 sums of long arrays accurate (NumPy does the same).
template <class C, class S> C pairwise_sum(const S* p, int64_t n) {
  if (n <= 128) {
    C acc = 0;
    for (int64_t k = 0; k < n; ++k) acc += static_cast<C>(p[k]);
    return acc;
  }
  const int64_t h = n / 2;
  return pairwise_sum<C>(p, h) + pairwise_sum<C>(p + h, n - h);
}

template <class S> Value reduce_typed(ir::ReduceOp op, const Tensor& t) {
  using Op = ir::ReduceOp;
  const DType dt = t.dtype();
  const S* p = t.data_as<S>();
  const int64_t n = t.size();
  if (ir::is_logical_reduce(op)) {
    const bool want = op == Op::Any;
    for (int64_t k = 0; k < n; ++k) {
      if ((p[k] != S(0)) == want) return Value::boolean(want);
    }
    return Value::boolean(!want);
  }
  const bool is_max = op == Op::Max, is_min = op == Op::Min;
  if constexpr (std::is_same_v<S, uint8_t>) {
    // On bools max is "any" and min is "all"; sums and products are type errors.
    if (is_max) return reduce_typed<S>(Op::Any, t);
    if (is_min) return reduce_typed<S>(Op::All, t);
    fault("E002", "type mismatch: `" + std::string(ir::reduce_op_name(op)) + "` needs a numeric array, found " +
                      "[bool; " + vdetail::shape_str(t.shape()).substr(1));
  } else if constexpr (std::is_floating_point_v<S>) {
    using C = S;  // float storage computes in float, double in double
    if (op == Op::Sum) return Value::floating(static_cast<double>(pairwise_sum<C>(p, n)), dt);
    if (op == Op::Prod) {
      C acc = 1;
      for (int64_t k = 0; k < n; ++k) acc *= p[k];
      return Value::floating(static_cast<double>(acc), dt);
    }
    if (is_max || is_min) {
      C acc = is_max ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::infinity();
      for (int64_t k = 0; k < n; ++k) {
        if (std::isnan(p[k])) return Value::floating(static_cast<double>(p[k]), dt);
        if (is_max ? p[k] > acc : p[k] < acc) acc = p[k];
      }
      return Value::floating(static_cast<double>(acc), dt);
    }
  } else {
    if (op == Op::Sum || op == Op::Prod) {
      const bool sum = op == Op::Sum;
      uint64_t acc = sum ? 0 : 1;
      for (int64_t k = 0; k < n; ++k) {
        const uint64_t v = static_cast<uint64_t>(static_cast<int64_t>(p[k]));
        acc = sum ? acc + v : acc * v;
      }
      return Value::integer(static_cast<int64_t>(acc), dt);
    }
    if (is_max || is_min) {
      if (n == 0) fault("E006", std::string(ir::reduce_op_name(op)) + " of an empty integer array");
      S acc = p[0];
      for (int64_t k = 1; k < n; ++k) {
        if (is_max ? p[k] > acc : p[k] < acc) acc = p[k];
      }
      return Value::integer(acc, dt);
    }
  }
  fault("E006", "unknown reduction `" + std::string(ir::reduce_op_name(op)) + "`");
}

}  // namespace

Value reduce_all(ir::ReduceOp op, const Value& v0) {
  using T = Value::Tag;
  Value v = v0;
  if (v.is_scalar()) {
    // A scalar is a one-element array.
    Tensor t = Tensor::alloc(v.dt, {});
    tensor_set(t, 0, v);
    v = Value::tensor(std::move(t));
  } else if (v.tag == T::List) {
    const auto& items = v.items();
    if (items.empty()) fault("E002", "`" + std::string(ir::reduce_op_name(op)) + "` needs a numeric array, found an empty list");
    v = make_array(items, items[0].dt);  // faults (E004) unless it is rectangular
    if (v.tag != T::Tensor) {
      fault("E002", "`" + std::string(ir::reduce_op_name(op)) + "` needs a numeric array, found " + type_string(v0));
    }
  }
  if (v.tag != T::Tensor) {
    fault("E002", "`" + std::string(ir::reduce_op_name(op)) + "` needs an array, found " + vdetail::kind_name(v));
  }
  const Tensor& t = v.tensor_ref();
  vdetail::require_storage(t);
  return visit_storage(t.dtype(), [&](auto tag) -> Value {
    using S = typename decltype(tag)::type;
    return reduce_typed<S>(op, t);
  });
}

}  // namespace ein
