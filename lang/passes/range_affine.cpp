#include "lang/passes/range_affine.h"

#include "lang/passes/ir_build.h"

namespace ein::ranges {

using ir::Kind;
using ir::NodeRef;

namespace {

bool same_factor(const NodeRef& a, const NodeRef& b) {
  if (!a || !b) return !a && !b;
  return ir::structurally_equal(a, b);
}

}  // namespace

// Coefficients past i64 make the form unusable (ok = false) rather than wrapped.
int64_t Affine::exact(std::optional<int64_t> v) {
  if (!v) ok = false;
  return v.value_or(0);
}

const Coef* Affine::coef_of(ir::DefId d) const {
  for (auto& [v, c] : vars)
    if (v == d) return &c;
  return nullptr;
}

void Affine::add_var(ir::DefId d, Coef c) {
  for (auto it = vars.begin(); it != vars.end(); ++it) {
    if (it->first != d) continue;
    if (!same_factor(it->second.s, c.s)) {
      ok = false;  // `o * 2 + o * stride`: not one coefficient
      return;
    }
    it->second.c = exact(irb::add_exact(it->second.c, c.c));
    if (it->second.c == 0) vars.erase(it);
    return;
  }
  if (c.c != 0) vars.emplace_back(d, std::move(c));
}

void Affine::absorb(const Affine& o, int64_t m) {
  for (auto& [v, c] : o.vars) add_var(v, Coef{exact(irb::mul_exact(c.c, m)), c.s});
  const auto km = irb::mul_exact(o.k, m);
  k = exact(km ? irb::add_exact(k, *km) : std::nullopt);
  for (auto& [n, mm] : o.syms) syms.emplace_back(n, exact(irb::mul_exact(mm, m)));
  ok = ok && o.ok;
}

void Affine::scale(int64_t m) {
  if (m == 0) {
    vars.clear();
    syms.clear();
    k = 0;
    return;
  }
  for (auto& [v, c] : vars) c.c = exact(irb::mul_exact(c.c, m));
  k = exact(irb::mul_exact(k, m));
  for (auto& [n, mm] : syms) mm = exact(irb::mul_exact(mm, m));
}

void Affine::scale_by(const NodeRef& s) {
  for (auto& [v, c] : vars) {
    if (c.s) {
      ok = false;
      return;
    }
    c.s = s;
  }
  std::vector<std::pair<NodeRef, int64_t>> out;
  if (k != 0) out.emplace_back(s, k);
  for (auto& [n, m] : syms) out.emplace_back(ir::make_binary(ir::BinOp::Mul, n, s), m);
  k = 0;
  syms = std::move(out);
}

void Affine::drop(ir::DefId d) {
  for (auto it = vars.begin(); it != vars.end(); ++it)
    if (it->first == d) {
      vars.erase(it);
      return;
    }
}

NodeRef Affine::offset() const {
  NodeRef r = irb::lit(k);
  for (auto& [n, m] : syms) {
    NodeRef t = irb::mul(n, m < 0 ? -m : m);
    r = m > 0 ? irb::add(r, t) : irb::sub(r, t);
  }
  return r;
}

NodeRef wide(const NodeRef& e) {
  if (irb::as_lit(e) || e->kind == Kind::IMin || e->kind == Kind::IMax || e->kind == Kind::DimOf) return e;
  return ir::make({.kind = Kind::IMax, .span = e->span, .kids = {e, e}});
}

namespace {

struct Divisor {
  int64_t k = 1;  // constant part
  NodeRef s;      // invariant factor, assumed > 0
  NodeRef ir() const {
    if (!s) return irb::lit(k);
    // max(1, s): a non-positive stride is reported by the check, never a division by zero.
    NodeRef one_or_s = ir::make({.kind = Kind::IMax, .kids = {irb::lit(1), wide(s)}});
    return k == 1 ? one_or_s : ir::make_binary(ir::BinOp::Mul, one_or_s, irb::lit(k));
  }
  bool unit() const { return !s && k == 1; }
};

NodeRef div(const NodeRef& n, const Divisor& d, std::vector<NodeRef>& made) {
  if (auto a = irb::as_lit(n); a && !d.s) return irb::lit(*a / d.k);
  NodeRef q = ir::make_binary(ir::BinOp::Div, wide(n), wide(d.ir()));
  made.push_back(q);
  return q;
}

// floor(n / d) + 1, exact when it is positive and <= 0 otherwise: trunc((n + d) / d).
NodeRef floor_plus_one(const NodeRef& n, const Divisor& d, std::vector<NodeRef>& made) {
  if (d.unit()) return irb::add(n, irb::lit(1));
  return div(d.s ? irb::add(n, d.ir()) : irb::add(n, irb::lit(d.k)), d, made);
}

// ceil(m / d), exact when it is positive and <= 0 otherwise: trunc((m + d - 1) / d).
NodeRef ceil_div(const NodeRef& m, const Divisor& d, std::vector<NodeRef>& made) {
  if (d.unit()) return m;
  return div(d.s ? irb::sub(irb::add(m, d.ir()), irb::lit(1)) : irb::add(m, irb::lit(d.k - 1)), d, made);
}

}  // namespace

Bounds solve(const Coef& alpha_lo, const NodeRef& beta_lo, const Coef& alpha_hi, const NodeRef& beta_hi,
             const NodeRef& dim, std::vector<NodeRef>& made, bool moving_only) {
  Bounds b;
  // |i64::MIN| has no i64: such a use gives no bounds (the index needs another source).
  if (alpha_lo.c == INT64_MIN || alpha_hi.c == INT64_MIN) return b;
  auto note = [&](const Coef& a) {
    if (a.s) b.positive.push_back(a.s);
  };
  auto tighten_lo = [&](NodeRef x) { b.lo = b.lo ? irb::imax(b.lo, x) : x; };
  auto tighten_hi = [&](NodeRef x) { b.hi = b.hi ? irb::imin(b.hi, x) : x; };
  // A side that does not move with v holds for every v or for none (`x[o - k]` with
  // `k in 0..o + 1` has the smallest value 0 whatever o is). When it fails, the range is empty
  // (SPEC §5.2: narrowed to nothing), else unconstrained. `ok` is 1 when beta_ok >= 0, else 0.
  auto holds_or_empty = [&](const NodeRef& beta_ok) {
    if (auto v = irb::as_lit(beta_ok)) {
      if (*v < 0) tighten_hi(irb::lit(0));
      return;
    }
    NodeRef ok = irb::imin(irb::imax(irb::add(beta_ok, irb::lit(1)), irb::lit(0)), irb::lit(1));
    tighten_hi(irb::mul(ok, int64_t{1} << 40));
  };
  // Smallest value >= 0.
  if (alpha_lo.c == 0 && !moving_only) holds_or_empty(beta_lo);
  if (alpha_lo.c != 0) {
    Divisor d{alpha_lo.c < 0 ? -alpha_lo.c : alpha_lo.c, alpha_lo.s};
    note(alpha_lo);
    if (alpha_lo.c > 0) tighten_lo(ceil_div(irb::neg(beta_lo), d, made));   // v >= -beta / a
    else tighten_hi(floor_plus_one(beta_lo, d, made));                     // v <= beta / a
  }
  // Largest value <= dim - 1.
  if (alpha_hi.c == 0 && !moving_only) holds_or_empty(irb::sub(irb::sub(dim, irb::lit(1)), beta_hi));
  if (alpha_hi.c != 0) {
    Divisor d{alpha_hi.c < 0 ? -alpha_hi.c : alpha_hi.c, alpha_hi.s};
    note(alpha_hi);
    NodeRef room = irb::sub(irb::sub(dim, irb::lit(1)), beta_hi);  // dim - 1 - beta
    if (alpha_hi.c > 0) tighten_hi(floor_plus_one(room, d, made));        // v <= room / a
    else tighten_lo(ceil_div(irb::neg(room), d, made));                    // v >= -room / a
  }
  return b;
}

}  // namespace ein::ranges
