// Operators (SPEC §3, §4) on scalars, strings and tensors, and `as` casts.
//
// Integer arithmetic is done on uint64_t and narrowed afterwards: that gives two's complement
// wrapping for every width without signed-overflow UB. Float tensor paths go through xtensor
// adaptors over the raw buffers; f16/bf16 are computed in float and rounded once at the end.
#include <cmath>
#include <xtensor/xadapt.hpp>
#include <xtensor/xmath.hpp>

#include "engine/value/value.h"
#include "lang/ir/node.h"
#include "engine/value/value_detail.h"

namespace ein {

using vdetail::Tag;
using vdetail::visit_storage;
using ir::BinOp;
using ir::UnOp;

namespace {

// Spelled out rather than range-compared so a reordering of the enum cannot change meaning.
bool is_arith(BinOp op) {
  return op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div ||
         op == BinOp::Mod || op == BinOp::Pow;
}
bool is_order(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge;
}

[[noreturn]] void type_fault(BinOp op, const Value& a, const Value& b) {
  fault("E002", std::string("type mismatch: `") + ir::binop_spelling(op) + "` is not defined for " +
                    vdetail::kind_name(a) + " and " + vdetail::kind_name(b));
}

int64_t wrap_u(uint64_t v, DType dt) { return vdetail::wrap_int(static_cast<int64_t>(v), dt); }

int64_t int_arith(BinOp op, int64_t a, int64_t b, DType dt) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case BinOp::Add: return wrap_u(ua + ub, dt);
    case BinOp::Sub: return wrap_u(ua - ub, dt);
    case BinOp::Mul: return wrap_u(ua * ub, dt);
    case BinOp::Div:
      if (b == 0) fault("E007", "division by zero");
      if (b == -1) return wrap_u(uint64_t{0} - ua, dt);  // MIN / -1 wraps instead of trapping
      return wrap_u(static_cast<uint64_t>(a / b), dt);
    case BinOp::Mod:
      if (b == 0) fault("E007", "remainder by zero");
      if (b == -1) return 0;
      return a % b;
    default: break;
  }
  fault("E002", std::string("`") + ir::binop_spelling(op) + "` is not an arithmetic operator");
}

int64_t int_pow(int64_t base, int64_t e, DType dt) {
  if (e < 0) fault("E006", "negative exponent " + std::to_string(e) + " in integer power");
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  uint64_t ue = static_cast<uint64_t>(e);
  while (ue) {
    if (ue & 1) result *= b;
    b *= b;
    ue >>= 1;
  }
  return wrap_u(result, dt);
}

// C is float for f32/f16/bf16 and double for f64, so f32 math really happens in float.
template <class C> C float_arith(BinOp op, C a, C b) {
  switch (op) {
    case BinOp::Add: return a + b;
    case BinOp::Sub: return a - b;
    case BinOp::Mul: return a * b;
    case BinOp::Div: return a / b;
    case BinOp::Mod: return std::fmod(a, b);
    case BinOp::Pow: return std::pow(a, b);
    default: break;
  }
  return C(0);
}

double float_arith_dt(BinOp op, double a, double b, DType dt) {
  if (dt == DType::F64) return float_arith<double>(op, a, b);
  return static_cast<double>(float_arith<float>(op, static_cast<float>(a), static_cast<float>(b)));
}

// Float base, integer exponent: computed in double (C++ promotes pow(float, int) too) and
// rounded once to the base's precision.
double float_powi(double base, int64_t e) { return std::pow(base, static_cast<double>(e)); }

template <class A> bool ordered(BinOp op, const A& x, const A& y) {
  switch (op) {
    case BinOp::Lt: return x < y;
    case BinOp::Le: return x <= y;
    case BinOp::Gt: return x > y;
    case BinOp::Ge: return x >= y;
    default: return false;
  }
}

Value scalar_binop(BinOp op, const Value& a, const Value& b) {
  using T = Value::Tag;
  if (is_order(op)) {
    if (a.tag == T::Float || b.tag == T::Float) return Value::boolean(ordered(op, a.as_f64(), b.as_f64()));
    return Value::boolean(ordered(op, a.as_i64(), b.as_i64()));
  }
  if (op == BinOp::And || op == BinOp::Or) {
    if (a.tag != T::Bool || b.tag != T::Bool) type_fault(op, a, b);
    return Value::boolean(op == BinOp::And ? (a.b && b.b) : (a.b || b.b));
  }
  if (a.tag == T::Bool || b.tag == T::Bool) type_fault(op, a, b);
  if (op == BinOp::Pow) {
    if (a.tag == T::Int && b.tag == T::Int) return Value::integer(int_pow(a.i, b.i, a.dt), a.dt);
    if (a.tag == T::Float && b.tag == T::Int) return Value::floating(float_powi(a.f, b.i), a.dt);
    if (a.tag == T::Float && b.tag == T::Float && a.dt == b.dt) {
      return Value::floating(float_arith_dt(op, a.f, b.f, a.dt), a.dt);
    }
    type_fault(op, a, b);
  }
  if (a.tag != b.tag || a.dt != b.dt) type_fault(op, a, b);
  if (a.tag == T::Int) return Value::integer(int_arith(op, a.i, b.i, a.dt), a.dt);
  return Value::floating(float_arith_dt(op, a.f, b.f, a.dt), a.dt);
}

Value string_binop(BinOp op, const Value& a, const Value& b) {
  if (op == BinOp::Add) {
    // Checked before the text exists: doubling a string in a loop reaches the limit as E008.
    const int64_t n = static_cast<int64_t>(a.str().size() + b.str().size());
    MemoryHold hold;
    hold.grow_to(n, "concatenating two strings");
    return Value::string(a.str() + b.str());
  }
  if (is_order(op)) return Value::boolean(ordered(op, a.str(), b.str()));
  type_fault(op, a, b);
}

// ---- tensor paths ---------------------------------------------------------------------------

// One side of a tensor operation: either a whole tensor or a broadcast scalar.
struct Operand {
  const Tensor* t = nullptr;
  Value s;
  DType dt() const { return t ? t->dtype() : s.dt; }
  bool is_float() const { return t ? ein::is_float(t->dtype()) : s.tag == Value::Tag::Float; }
  bool is_int() const { return t ? ein::is_int(t->dtype()) : s.tag == Value::Tag::Int; }
};

template <class S> auto adapt_flat(S* p, int64_t n) {
  return xt::adapt(p, static_cast<size_t>(n), xt::no_ownership(),
                   std::vector<size_t>{static_cast<size_t>(n)});
}

void round_storage(Tensor& t) {
  if (t.dtype() != DType::F16 && t.dtype() != DType::BF16) return;
  float* p = t.data_as<float>();
  const int64_t n = t.size();
  for (int64_t k = 0; k < n; ++k) p[k] = static_cast<float>(round_to_float_dtype(p[k], t.dtype()));
}

// Same-dtype float arithmetic through xtensor expressions.
template <class S> void float_tensor_op(BinOp op, const Operand& a, const Operand& b, Tensor& out,
                                        int64_t n) {
  auto O = adapt_flat(out.data_as<S>(), n);
  auto run = [&](auto&& x, auto&& y) {
    switch (op) {
      case BinOp::Add: O = x + y; break;
      case BinOp::Sub: O = x - y; break;
      case BinOp::Mul: O = x * y; break;
      case BinOp::Div: O = x / y; break;
      case BinOp::Mod: O = xt::fmod(x, y); break;
      case BinOp::Pow: O = xt::pow(x, y); break;
      default: break;
    }
  };
  if (a.t && b.t) {
    run(adapt_flat(a.t->data_as<S>(), n), adapt_flat(b.t->data_as<S>(), n));
  } else if (a.t) {
    run(adapt_flat(a.t->data_as<S>(), n), static_cast<S>(b.s.f));
  } else {
    run(static_cast<S>(a.s.f), adapt_flat(b.t->data_as<S>(), n));
  }
  round_storage(out);
}

// Same-dtype integer arithmetic, elementwise with wrapping and E007 on a zero divisor.
template <class S> void int_tensor_op(BinOp op, const Operand& a, const Operand& b, Tensor& out,
                                      int64_t n) {
  const S* pa = a.t ? a.t->data_as<S>() : nullptr;
  const S* pb = b.t ? b.t->data_as<S>() : nullptr;
  const int64_t sa = a.t ? 0 : a.s.i, sb = b.t ? 0 : b.s.i;
  S* po = out.data_as<S>();
  const DType dt = out.dtype();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t x = pa ? int64_t(pa[k]) : sa;
    const int64_t y = pb ? int64_t(pb[k]) : sb;
    po[k] = static_cast<S>(int_arith(op, x, y, dt));
  }
}

// `**` with an integer exponent (i**i or f**i); the exponent may have any integer dtype.
void pow_int_exponent(const Operand& a, const Operand& b, Tensor& out, int64_t n) {
  const DType dt = out.dtype();
  for (int64_t k = 0; k < n; ++k) {
    const int64_t e = b.t ? b.t->get_i64(k) : b.s.i;
    if (is_int(dt)) {
      out.set_i64(k, int_pow(a.t ? a.t->get_i64(k) : a.s.i, e, dt));
    } else {
      out.set_f64(k, float_powi(a.t ? a.t->get_f64(k) : a.s.f, e));
    }
  }
}

Value tensor_binop(BinOp op, const Value& av, const Value& bv) {
  using T = Value::Tag;
  auto operand = [&](const Value& v) {
    Operand o;
    if (v.tag == T::Tensor) o.t = &v.tensor_ref();
    else if (v.is_scalar()) o.s = v;
    else type_fault(op, av, bv);
    return o;
  };
  Operand a = operand(av), b = operand(bv);
  if (!is_arith(op)) {
    fault("E002", std::string("`") + ir::binop_spelling(op) +
                      "` is defined on scalars and strings, not arrays; for an elementwise "
                      "result write indices, e.g. `let m[i] = a[i] > 0.0;`");
  }
  if (a.t && b.t && a.t->shape() != b.t->shape()) {
    fault("E004", "shape mismatch: " + vdetail::shape_str(a.t->shape()) + " vs " +
                      vdetail::shape_str(b.t->shape()));
  }
  if (a.dt() == DType::Bool || b.dt() == DType::Bool) type_fault(op, av, bv);
  const std::vector<int64_t>& shape = a.t ? a.t->shape() : b.t->shape();
  if (op == BinOp::Pow && b.is_int() && (a.is_int() || a.is_float())) {
    Tensor out = Tensor::alloc(a.dt(), shape);
    pow_int_exponent(a, b, out, out.size());
    return Value::tensor(std::move(out));
  }
  if (a.dt() != b.dt()) type_fault(op, av, bv);
  const DType dt = a.dt();
  Tensor out = Tensor::alloc(dt, shape);
  const int64_t n = out.size();
  visit_storage(dt, [&](auto tag) {
    using S = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<S>) {
      float_tensor_op<S>(op, a, b, out, n);
    } else if constexpr (!std::is_same_v<S, uint8_t>) {
      int_tensor_op<S>(op, a, b, out, n);
    }
  });
  return Value::tensor(std::move(out));
}

}  // namespace

Value binary_op(BinOp op, const Value& a0, const Value& b0) {
  using T = Value::Tag;
  if (op == BinOp::Eq) return Value::boolean(values_equal(a0, b0));
  if (op == BinOp::Ne) return Value::boolean(!values_equal(a0, b0));
  if (op == BinOp::In) return Value::boolean(value_contains(b0, a0));
  const Value a = vdetail::scalarize(a0), b = vdetail::scalarize(b0);
  if (a.is_scalar() && b.is_scalar()) return scalar_binop(op, a, b);
  if (a.tag == T::Str && b.tag == T::Str) return string_binop(op, a, b);
  if (a.tag == T::Tensor || b.tag == T::Tensor) return tensor_binop(op, a, b);
  type_fault(op, a, b);
}

Value unary_op(UnOp op, const Value& v0) {
  using T = Value::Tag;
  const Value v = vdetail::scalarize(v0);
  if (op == UnOp::Not) {
    if (v.tag == T::Bool) return Value::boolean(!v.b);
    if (v.tag == T::Tensor && v.dt == DType::Bool) {
      const Tensor& t = v.tensor_ref();
      Tensor out = Tensor::alloc(DType::Bool, t.shape());
      const uint8_t* p = t.data_as<uint8_t>();
      uint8_t* o = out.data_as<uint8_t>();
      for (int64_t k = 0; k < t.size(); ++k) o[k] = p[k] ? 0 : 1;
      return Value::tensor(std::move(out));
    }
    fault("E002", "type mismatch: `!` needs a bool, found " + vdetail::kind_name(v));
  }
  if (v.tag == T::Int) return Value::integer(wrap_u(uint64_t{0} - static_cast<uint64_t>(v.i), v.dt), v.dt);
  if (v.tag == T::Float) return Value::floating(-v.f, v.dt);
  if (v.tag == T::Tensor && v.dt != DType::Bool) {
    const Tensor& t = v.tensor_ref();
    Tensor out = Tensor::alloc(t.dtype(), t.shape());
    const int64_t n = t.size();
    visit_storage(t.dtype(), [&](auto tag) {
      using S = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<S>) {
        // Negation is exact, so f16/bf16 need no re-rounding.
        auto O = adapt_flat(out.data_as<S>(), n);
        O = -adapt_flat(t.data_as<S>(), n);
      } else {
        const S* p = t.data_as<S>();
        S* o = out.data_as<S>();
        for (int64_t k = 0; k < n; ++k) {
          o[k] = static_cast<S>(wrap_u(uint64_t{0} - static_cast<uint64_t>(int64_t(p[k])), t.dtype()));
        }
      }
    });
    return Value::tensor(std::move(out));
  }
  fault("E002", "type mismatch: unary `-` needs a number or numeric array, found " +
                    vdetail::kind_name(v));
}

Value cast_value(const Value& v, DType to) {
  using T = Value::Tag;
  switch (v.tag) {
    case T::Tensor: return Value::tensor(v.tensor_ref().cast(to));
    case T::Bool: return Value::integer(v.b ? 1 : 0, to);  // integer() maps to bool/float too
    case T::Int:
      if (to == DType::Bool) return Value::boolean(v.i != 0);
      if (to == DType::F32) return Value::floating(static_cast<float>(v.i), to);
      return Value::integer(v.i, to);
    case T::Float:
      if (to == DType::Bool) return Value::boolean(v.f != 0);
      if (is_int(to)) return Value::integer(vdetail::saturate_to_dtype(v.f, to), to);
      return Value::floating(v.f, to);
    default: break;
  }
  fault("E002", "cannot cast " + vdetail::kind_name(v) + " to " + dtype_name(to));
}

}  // namespace ein
