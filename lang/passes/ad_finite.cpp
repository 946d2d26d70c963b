// Autodiff: can a local partial be infinite (or NaN) at finite primal values? A partial that can
// gets the zero-direction guard (`if d_Z != 0 ..`, `if @x == 0 ..`), which keeps 0 · inf at 0 but
// hides the product from the contraction matcher. Proving a rule finite removes the guard and
// lets the adjoint be a GEMM; a wrong "finite" verdict would turn an adjoint 0 into NaN, so
// every rule below is conservative.
//
// The analysis evaluates the partial over intervals of the extended reals (reads of tensors and
// locals are finite and unbounded: the guard is there for the rule's own singularities, not for
// infinite inputs), so that `exp(-0.5 * x * x)` (argument <= 0) is at most 1, `1 + exp(-x)` is at
// least 1 and dividing by it is finite even where exp(-x) overflows.
#include <cmath>
#include <limits>

#include "lang/passes/ad_common.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::BinOp;
using ir::Kind;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Bounds beyond this count as unbounded: the partial may be evaluated in f32 (overflow at 3.4e38),
// and a bound computed in f64 must hold after rounding to the narrower type.
constexpr double kBig = 1e30;
// A divisor must stay this far from 0: a positive real bound can round to 0 in f32 only below it.
constexpr double kTiny = 1e-30;

struct Val {
  bool nan = true;   // may be NaN
  bool fin = false;  // certainly finite (implies !nan)
  double lo = -kInf, hi = kInf;  // bounds of the value when it is not NaN
  bool may_pinf() const { return !fin && hi == kInf; }
  bool may_ninf() const { return !fin && lo == -kInf; }
  bool may_zero() const { return lo <= 0.0 && hi >= 0.0; }
  bool excludes_zero() const { return lo > kTiny || hi < -kTiny; }
};

Val top() { return {}; }
Val finite(double lo = -kInf, double hi = kInf) {
  Val v;
  v.nan = false;
  v.fin = true;
  v.lo = lo;
  v.hi = hi;
  return v;
}
// Bounds within kBig make a non-NaN value finite.
Val norm(Val v) {
  if (std::isnan(v.lo) || std::isnan(v.hi)) {
    v.lo = -kInf;
    v.hi = kInf;
  }
  if (!v.nan && std::abs(v.lo) < kBig && std::abs(v.hi) < kBig) v.fin = true;
  if (v.nan) v.fin = false;
  return v;
}

// Product of two bounds with 0 · inf taken as 0 (a bound, not a value).
double bmul(double a, double b) { return (a == 0.0 || b == 0.0) ? 0.0 : a * b; }

Val add(const Val& a, const Val& b) {
  Val r;
  r.nan = a.nan || b.nan || (a.may_pinf() && b.may_ninf()) || (a.may_ninf() && b.may_pinf());
  r.fin = a.fin && b.fin;
  r.lo = a.lo + b.lo;
  r.hi = a.hi + b.hi;
  return norm(r);
}

Val negate(const Val& a) {
  Val r = a;
  r.lo = -a.hi;
  r.hi = -a.lo;
  return r;
}

Val mul(const Val& a, const Val& b) {
  Val r;
  r.nan = a.nan || b.nan || (a.may_zero() && (b.may_pinf() || b.may_ninf())) ||
          (b.may_zero() && (a.may_pinf() || a.may_ninf()));
  r.fin = a.fin && b.fin;
  double p[4] = {bmul(a.lo, b.lo), bmul(a.lo, b.hi), bmul(a.hi, b.lo), bmul(a.hi, b.hi)};
  r.lo = std::min(std::min(p[0], p[1]), std::min(p[2], p[3]));
  r.hi = std::max(std::max(p[0], p[1]), std::max(p[2], p[3]));
  return norm(r);
}

Val div(const Val& a, const Val& b) {
  if (!b.excludes_zero()) return top();
  // 1 / b over b's interval (1 / ±inf = 0), then the product.
  Val inv;
  inv.nan = b.nan;
  inv.fin = !b.nan;
  inv.lo = 1.0 / b.hi;
  inv.hi = 1.0 / b.lo;
  Val r = mul(a, norm(inv));
  // inf / inf
  if ((a.may_pinf() || a.may_ninf()) && (b.may_pinf() || b.may_ninf())) r.nan = true;
  return norm(r);
}

// How a function's finiteness follows its argument's: bounded everywhere (tanh, also at ±inf),
// finite at finite arguments (floor, sqrt on its domain), or finite only by its bounds (exp).
enum class Growth { Bounded, Preserves, Grows };

// Monotone (non-decreasing) f applied to a value whose NaN-ness carries over.
template <class F>
Val monotone(const Val& a, F f, Growth g) {
  Val r;
  r.nan = a.nan;
  r.lo = f(a.lo);
  r.hi = f(a.hi);
  r.fin = !a.nan && (g == Growth::Bounded || (g == Growth::Preserves && a.fin));
  return norm(r);
}

// The factors of a product (through unary minus), with the literal ones multiplied into `c`.
void factors(const NodeRef& n, double& c, std::vector<NodeRef>& out) {
  if (n->kind == Kind::Binary && static_cast<BinOp>(n->ival) == BinOp::Mul) {
    factors(ir::bin_lhs(n), c, out);
    factors(ir::bin_rhs(n), c, out);
  } else if (n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg) {
    c = -c;
    factors(ir::unary_operand(n), c, out);
  } else if (n->kind == Kind::FloatLit || n->kind == Kind::IntLit) {
    c *= n->kind == Kind::FloatLit ? n->fval : static_cast<double>(n->ival);
  } else {
    out.push_back(n);
  }
}

// The sign a product's structure fixes: its non-literal factors pair up into squares
// (`-0.5 * x * x` is <= 0 whatever x is). 1: >= 0, -1: <= 0, 0: unknown.
int square_sign(const NodeRef& n) {
  double c = 1.0;
  std::vector<NodeRef> fs;
  factors(n, c, fs);
  if (fs.empty() || fs.size() % 2 != 0) return 0;
  std::vector<bool> used(fs.size(), false);
  for (size_t i = 0; i < fs.size(); ++i) {
    if (used[i]) continue;
    size_t j = i + 1;
    while (j < fs.size() && (used[j] || !ir::structurally_equal(fs[i], fs[j]))) ++j;
    if (j == fs.size()) return 0;
    used[i] = used[j] = true;
  }
  return c >= 0.0 ? 1 : -1;
}

// Any node that can be infinite at finite operands: a call that is not a bounded intrinsic, a
// division by anything but a non-zero literal, a power whose exponent is not a natural literal.
bool may_be_infinite_syntactic(const NodeRef& P) {
  bool inf = false;
  ir::for_each_node(P, [&](const NodeRef& n) {
    if (n->kind == Kind::Call) {
      auto b = builtin_of(ir::call_callee(*n)->def);
      bool bounded = b && (*b == Builtin::Sign || *b == Builtin::Abs || *b == Builtin::Tanh || *b == Builtin::Sin ||
                           *b == Builtin::Cos || *b == Builtin::Erf || *b == Builtin::Min2 || *b == Builtin::Max2 ||
                           *b == Builtin::Floor || *b == Builtin::Ceil || *b == Builtin::Round || *b == Builtin::Trunc);
      if (!bounded) inf = true;
    }
    if (n->kind == Kind::Binary) {
      auto op = static_cast<BinOp>(n->ival);
      const NodeRef& r = ir::bin_rhs(n);
      bool lit = r->kind == Kind::FloatLit || r->kind == Kind::IntLit;
      double v = r->kind == Kind::FloatLit ? r->fval : static_cast<double>(r->ival);
      if (op == BinOp::Div) inf = inf || !lit || v == 0.0;
      if (op == BinOp::Pow) inf = inf || !lit || v < 0.0 || v != static_cast<double>(static_cast<int64_t>(v));
    }
  });
  return inf;
}

class Finite {
 public:
  explicit Finite(const CompileCtx* cx) : cx_(cx) {}
  Val eval(const NodeRef& n) {
    if (!n) return finite(0.0, 0.0);
    switch (n->kind) {
      case Kind::FloatLit: return finite(n->fval, n->fval);
      case Kind::IntLit: return finite(static_cast<double>(n->ival), static_cast<double>(n->ival));
      case Kind::Name:
      case Kind::Path: {
        auto it = env_.find(n->def);
        return it == env_.end() ? finite() : it->second;
      }
      case Kind::Index:
        if (ir::index_base(n)->kind == Kind::Name && !env_.count(ir::index_base(n)->def)) return finite();
        return fallback(n);
      case Kind::Unary:
        if (static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg) return negate(eval(ir::unary_operand(n)));
        return finite(0.0, 1.0);  // not
      case Kind::Cast: return eval(ir::cast_expr(n));
      case Kind::Binary: return binary(n);
      case Kind::Call: return call(n);
      case Kind::If: {
        Val a = eval(ir::if_then(n)), b = eval(ir::if_else(n));
        Val r;
        r.nan = a.nan || b.nan;
        r.fin = a.fin && b.fin;
        r.lo = std::min(a.lo, b.lo);
        r.hi = std::max(a.hi, b.hi);
        return norm(r);
      }
      case Kind::Block: return block(n);
      default: return fallback(n);
    }
  }

 private:
  const CompileCtx* cx_;
  std::unordered_map<DefId, Val> env_;
  int depth_ = 0;

  // A library or user function inside a rule (leaky_relu's `pos_mask`): its body over the
  // arguments' intervals.
  Val fn_call(const NodeRef& n, ir::Kids args) {
    const NodeRef& callee = ir::call_callee(*n);
    if (!cx_ || depth_ >= 8 || (callee->kind != Kind::Name && callee->kind != Kind::Path)) return top();
    const DefInfo& info = cx_->resolver.info(callee->def);
    if (info.kind != DefKind::Fn || !info.node || info.node->kind != Kind::Fn) return top();
    NodeRef fn = info.node;
    ir::Kids params = ir::fn_params(*fn);
    if (params.size() != args.size()) return top();
    std::vector<Val> vals;
    for (auto& a : args) vals.push_back(eval(a));
    auto saved = env_;
    for (size_t i = 0; i < params.size(); ++i) env_[params[i]->def] = vals[i];
    ++depth_;
    Val r = eval(ir::fn_body(*fn));
    --depth_;
    env_ = std::move(saved);
    return r;
  }

  // Kinds the intervals do not model: finite only if no node below can be infinite.
  static Val fallback(const NodeRef& n) { return may_be_infinite_syntactic(n) ? top() : finite(); }

  Val block(const NodeRef& n) {
    ir::Kids stmts = ir::block_stmts(*n);
    if (!n->has(ir::kHasTail) || stmts.empty()) return fallback(n);
    for (size_t i = 0; i + 1 < stmts.size(); ++i) {
      const NodeRef& s = stmts[i];
      if (s->kind != Kind::Let || ir::let_pattern(*s)->kind != Kind::PBind) return fallback(n);
      env_[ir::let_pattern(*s)->def] = eval(ir::let_value(*s));
    }
    return eval(stmts.back());
  }

  Val binary(const NodeRef& n) {
    auto op = static_cast<BinOp>(n->ival);
    const NodeRef &l = ir::bin_lhs(n), &r = ir::bin_rhs(n);
    switch (op) {
      case BinOp::Add: return add(eval(l), eval(r));
      case BinOp::Sub: return add(eval(l), negate(eval(r)));
      case BinOp::Mul: {
        Val v = mul(eval(l), eval(r));
        int s = square_sign(n);
        if (s > 0) v.lo = std::max(v.lo, 0.0);
        if (s < 0) v.hi = std::min(v.hi, 0.0);
        return norm(v);
      }
      case BinOp::Div: return div(eval(l), eval(r));
      case BinOp::Pow: {
        bool lit = r->kind == Kind::FloatLit || r->kind == Kind::IntLit;
        double e = r->kind == Kind::FloatLit ? r->fval : static_cast<double>(r->ival);
        if (!lit || e < 0.0 || e != std::floor(e) || e > 64.0) return fallback(n);
        Val b = eval(l);
        if (!b.fin) return top();
        if (e == 0.0) return finite(1.0, 1.0);
        double plo = std::pow(b.lo, e), phi = std::pow(b.hi, e);
        if (static_cast<int64_t>(e) % 2 != 0) return norm(finite(plo, phi));
        double lo = b.may_zero() ? 0.0 : std::min(plo, phi);
        return norm(finite(lo, std::max(plo, phi)));
      }
      case BinOp::Mod: return fallback(n);
      default: return finite(0.0, 1.0);  // comparisons and logic
    }
  }

  Val call(const NodeRef& n) {
    auto b = builtin_of(ir::call_callee(*n)->def);
    ir::Kids args = ir::call_args(*n);
    if (!b) return fn_call(n, args);
    if (args.empty()) return top();
    Val a = eval(args[0]);
    switch (*b) {
      case Builtin::Exp: return monotone(a, [](double x) { return std::exp(x); }, Growth::Grows);
      case Builtin::Expm1: return monotone(a, [](double x) { return std::expm1(x); }, Growth::Grows);
      case Builtin::Tanh: return monotone(a, [](double x) { return std::tanh(x); }, Growth::Bounded);
      case Builtin::Erf: return monotone(a, [](double x) { return std::erf(x); }, Growth::Bounded);
      case Builtin::Sign: return monotone(a, [](double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }, Growth::Bounded);
      case Builtin::Floor: return monotone(a, [](double x) { return std::floor(x); }, Growth::Preserves);
      case Builtin::Ceil: return monotone(a, [](double x) { return std::ceil(x); }, Growth::Preserves);
      case Builtin::Round: return monotone(a, [](double x) { return std::round(x); }, Growth::Preserves);
      case Builtin::Trunc: return monotone(a, [](double x) { return std::trunc(x); }, Growth::Preserves);
      case Builtin::Sin:
      case Builtin::Cos: return a.fin ? finite(-1.0, 1.0) : top();  // sin(inf) is NaN
      case Builtin::Abs: {
        Val r = a;
        double m = std::max(std::abs(a.lo), std::abs(a.hi));
        r.lo = a.may_zero() ? 0.0 : std::min(std::abs(a.lo), std::abs(a.hi));
        r.hi = m;
        return norm(r);
      }
      case Builtin::Sqrt:
        if (a.lo < 0.0) return top();
        return monotone(a, [](double x) { return std::sqrt(x); }, Growth::Preserves);
      case Builtin::Log:
        if (a.lo <= kTiny) return top();
        return monotone(a, [](double x) { return std::log(x); }, Growth::Preserves);
      case Builtin::Log1p:
        if (a.lo <= -1.0 + 1e-6) return top();
        return monotone(a, [](double x) { return std::log1p(x); }, Growth::Preserves);
      case Builtin::Min2:
      case Builtin::Max2: {
        if (args.size() != 2) return top();
        Val c = eval(args[1]);
        bool mx = *b == Builtin::Max2;
        Val r;
        r.nan = a.nan || c.nan;
        r.lo = mx ? std::max(a.lo, c.lo) : std::min(a.lo, c.lo);
        r.hi = mx ? std::max(a.hi, c.hi) : std::min(a.hi, c.hi);
        r.fin = a.fin && c.fin;
        return norm(r);
      }
      default: return top();
    }
  }
};

}  // namespace

bool may_be_infinite(const NodeRef& P, const CompileCtx* cx) {
  if (!may_be_infinite_syntactic(P)) return false;
  return !Finite(cx).eval(P).fin;
}

}  // namespace ein::ad
