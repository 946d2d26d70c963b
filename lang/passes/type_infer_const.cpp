// Literals and constant expressions must fit the type inference gave them (SPEC §3): `2 ** 32`
// as an i32 or `1e50` as an f32 is E002 at compile time, never a wrapped or infinite value at
// run time. Integer arithmetic of non-constant values wraps at run time and is not checked here.
#include <cmath>
#include <optional>

#include "lang/ir/visitor.h"
#include "lang/passes/type_infer_impl.h"

namespace ein {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;
using ir::TypeRef;

namespace {

struct Const {
  bool is_int = true;
  __int128 i = 0;
  double f = 0;
  double as_double() const { return is_int ? static_cast<double>(i) : f; }
};

__int128 int_max(DType d) {
  return d == DType::I8 ? 127 : d == DType::I32 ? 2147483647LL : INT64_MAX;
}

// A magnitude beyond every integer type: folding stops growing here (no __int128 overflow).
constexpr __int128 kHuge = static_cast<__int128>(1) << 100;

std::string show_int(__int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  unsigned __int128 u = neg ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return neg ? "-" + s : s;
}

class ConstChecker {
 public:
  ConstChecker(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

  // Checks every maximal constant expression under `n` that this unit typed.
  void walk(const NodeRef& n) {
    if (!n) return;
    // An unannotated literal `const` is inlined at each use and typed there (inline_literals).
    if (n->kind == Kind::Const && !ir::const_type(n) && is_literal(ir::const_value(n))) return;
    if (is_candidate(n) && u_.types.count(n->id)) {
      if (!seen_.insert(n->id).second) return;
      fold(n);
      return;
    }
    for (auto& k : n->kids) walk(k);
  }

 private:
  static bool is_literal(const NodeRef& n) {
    if (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg) return is_literal(ir::unary_operand(n));
    return n->kind == Kind::IntLit || n->kind == Kind::FloatLit;
  }

  static bool is_candidate(const NodeRef& n) {
    return n->kind == Kind::IntLit || n->kind == Kind::FloatLit ||
           (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg) ||
           (n->kind == Kind::Binary && static_cast<BinOp>(n->ival) <= BinOp::Pow);
  }

  std::optional<DType> numeric_type(const NodeRef& n) {
    TypeRef t = u_.type(n);
    if (!ir::is_scalar(t) || t->dtype == DType::Bool) return std::nullopt;
    return t->dtype;
  }

  // The value of a constant expression, or nullopt (not constant, or already reported).
  std::optional<Const> fold(const NodeRef& n) {
    auto dt = numeric_type(n);
    if (!dt) {
      for (auto& k : n->kids) walk(k);
      return std::nullopt;
    }
    std::optional<Const> v;
    switch (n->kind) {
      case Kind::IntLit: v = Const{true, n->ival, 0}; break;  // ival < 0 only for -2^63
      case Kind::FloatLit: v = Const{false, 0, n->fval}; break;
      case Kind::Unary: {
        const NodeRef& a = ir::unary_operand(n);
        std::optional<Const> x;
        if (a->kind == Kind::IntLit && u_.types.count(a->id)) {
          // `-128` is an i8 although `128` alone is not: the literal is checked with its sign.
          x = Const{true, a->ival, 0};
        } else {
          x = fold(a);
        }
        if (!x) return std::nullopt;
        v = x->is_int ? Const{true, -x->i, 0} : Const{false, 0, -x->f};
        break;
      }
      case Kind::Binary: {
        auto a = fold(ir::bin_lhs(n));
        auto b = fold(ir::bin_rhs(n));
        if (!a || !b) return std::nullopt;
        v = binary(static_cast<BinOp>(n->ival), *a, *b, *dt);
        if (!v) return std::nullopt;
        break;
      }
      default: return std::nullopt;
    }
    if (is_float(*dt) && v->is_int) v = Const{false, 0, static_cast<double>(v->i)};
    return check(n, *dt, *v);
  }

  std::optional<Const> binary(BinOp op, const Const& a, const Const& b, DType dt) {
    if (is_int(dt) && a.is_int && b.is_int) {
      __int128 x = a.i, y = b.i;
      auto clamp = [](__int128 r) { return r > kHuge ? kHuge : r < -kHuge ? -kHuge : r; };
      switch (op) {
        case BinOp::Add: return Const{true, clamp(x + y), 0};
        case BinOp::Sub: return Const{true, clamp(x - y), 0};
        case BinOp::Mul: {
          // |x|, |y| <= 2^100 would overflow __int128: saturate first.
          auto mag = [](__int128 v) { return v < 0 ? -v : v; };
          if (x != 0 && y != 0 && mag(x) > kHuge / mag(y)) return Const{true, (x < 0) != (y < 0) ? -kHuge : kHuge, 0};
          return Const{true, clamp(x * y), 0};
        }
        case BinOp::Div:
          if (y == 0) return std::nullopt;  // E007 at run time
          return Const{true, x / y, 0};      // truncation toward zero, as at run time
        case BinOp::Mod:
          if (y == 0) return std::nullopt;
          return Const{true, x % y, 0};
        case BinOp::Pow: {
          if (y < 0) return std::nullopt;
          if (x == 0) return Const{true, y == 0 ? 1 : 0, 0};
          if (x == 1 || x == -1) return Const{true, x == 1 || y % 2 == 0 ? 1 : -1, 0};
          __int128 r = 1;  // |x| >= 2: at most ~100 steps before saturating
          for (__int128 k = 0; k < y && r < kHuge && r > -kHuge; ++k) r = clamp(r * x);
          return Const{true, r, 0};
        }
        default: return std::nullopt;
      }
    }
    if (!is_float(dt)) return std::nullopt;
    double x = a.as_double(), y = b.as_double();
    switch (op) {
      case BinOp::Add: return Const{false, 0, x + y};
      case BinOp::Sub: return Const{false, 0, x - y};
      case BinOp::Mul: return Const{false, 0, x * y};
      case BinOp::Pow: return Const{false, 0, std::pow(x, y)};
      // `1.0 / 0.0` is the usual way to write infinity: division is not checked.
      default: return std::nullopt;
    }
  }

  std::optional<Const> check(const NodeRef& n, DType dt, const Const& v) {
    std::string tn = dtype_name(dt);
    if (is_int(dt)) {
      __int128 max = int_max(dt);
      if (v.is_int && v.i <= max && v.i >= -max - 1) return v;
      std::string value = v.is_int ? (v.i >= kHuge || v.i <= -kHuge ? "beyond 2^100" : show_int(v.i)) : "";
      bool literal = n->kind == Kind::IntLit ||
                     (n->kind == Kind::Unary && ir::unary_operand(n)->kind == Kind::IntLit);
      cx_.error("E002",
                std::string(literal ? "literal out of range for `" : "constant expression overflows `") + tn + "`",
                n->span, "this is " + value + ", which does not fit in `" + tn + "`",
                "annotate a wider type, e.g. `let x: i64 = ...`, or use a float");
      return std::nullopt;
    }
    double r = round_to_float_dtype(v.f, dt);
    if (std::isinf(r) && std::isfinite(v.f)) {
      bool literal = n->kind == Kind::FloatLit || n->kind == Kind::IntLit ||
                     (n->kind == Kind::Unary && (ir::unary_operand(n)->kind == Kind::FloatLit ||
                                                   ir::unary_operand(n)->kind == Kind::IntLit));
      cx_.error("E002",
                std::string(literal ? "literal out of range for `" : "constant expression overflows `") + tn + "`",
                n->span, "this does not fit in `" + tn + "` (it would be infinite)",
                dt == DType::F64 ? "" : "annotate a wider type, e.g. `let y: f64 = ...`");
      return std::nullopt;
    }
    return Const{false, 0, r};
  }

  CompileCtx& cx_;
  Unit& u_;
  std::unordered_set<uint32_t> seen_;
};

}  // namespace

void check_constant_ranges(CompileCtx& cx) {
  for (auto& up : cx.units) {
    ConstChecker c(cx, *up);
    c.walk(up->body);
    // Const items are typed in the cell unit but may live outside its body (modules).
    if (up->kind == Unit::Kind::Cell)
      for (auto& k : cx.consts)
        c.walk(k);
  }
}

}  // namespace ein
