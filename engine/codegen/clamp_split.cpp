// Index-set splitting of a clamped read along the vector lanes. std max_pool pads by reading
// the nearest edge value, `X[.., clampi(ow * s + b - p, 0, W - 1)]` (share/std/ml/pool_ops.ein);
// in reduce_lanes' vector loop over ow that index is a clamp per lane and the read a gather.
// Only the first and last few points of a row ever reach a bound: for the points whose value
// v = ow * c + r lies in [lo, hi] the clamp is v itself, so the loop runs as three loops, the
// middle one reading X at v (an affine index: strided or contiguous loads). A C++ model of the
// max_pool row pass (64 × 112 rows, 56 outputs, stride 2, one thread): clamped 0.79 ms, split
// 0.39 ms (run-time stride), 0.30 ms (stride known).
//
// Exact: in the middle loop v's exact value is in [lo, hi], inside i32 when both bounds are,
// so the wrapping i32 value the body computed before is that value and the clamp would return
// it (any form of the tests, < or <=: a value equal to a bound is the bound). There the clamp
// is printed as `j * c + r` in plain int64 (clamp_value), r = v at j = 0 kept only when
// |r| < 2^62 so that j * c = v - r cannot overflow: the i32 wrap had hidden the stride from
// GCC, which gathered even with c known. The split points are computed once per block in
// int64; c must be positive at run time (else the middle loop is empty and the edge loops,
// the original body, cover every point). Measured: docs/performance.md, session 22.
#include "engine/codegen/gen.h"
#include "lang/resolve/builtins.h"

namespace ein::codegen {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

// A clamp of v between lo and hi (lo the bound tested from below): `if v < lo { lo } else if
// v > hi { hi } else { v }` in place (either test first, < or <=, either side), or a call of a
// user function whose body is that over its parameters (std's clampi), or
// `__min2(__max2(v, lo), hi)` / `__max2(__min2(v, hi), lo)`. The nodes returned are the
// caller's (arguments or literals).
bool Gen::clamp_parts(const NodeRef& e0, NodeRef& v, NodeRef& lo, NodeRef& hi) {
  const NodeRef e = unwrap_tail(e0);
  if (!e) return false;
  auto chain = [&](const NodeRef& body, const std::function<NodeRef(const NodeRef&)>& map) -> bool {
    const NodeRef x = unwrap_tail(body);
    if (!x || x->kind != Kind::If || !ir::if_else(x)) return false;
    const NodeRef b1 = unwrap_tail(ir::if_then(x)), inner = unwrap_tail(ir::if_else(x));
    if (!b1 || !inner || inner->kind != Kind::If || !ir::if_else(inner)) return false;
    const NodeRef b2 = unwrap_tail(ir::if_then(inner)), val = unwrap_tail(ir::if_else(inner));
    if (!b2 || !val) return false;
    const int s1 = bound_test(ir::if_cond(x), val, b1), s2 = bound_test(ir::if_cond(inner), val, b2);
    if (s1 == 0 || s2 == 0 || s1 == s2) return false;
    NodeRef mv = map(val), m1 = map(b1), m2 = map(b2);
    if (!mv || !m1 || !m2) return false;
    v = mv;
    lo = s1 < 0 ? m1 : m2;
    hi = s1 < 0 ? m2 : m1;
    return true;
  };
  if (e->kind == Kind::If) return chain(e, [](const NodeRef& n) { return n; });
  if (e->kind != Kind::Call) return false;
  const NodeRef& callee = ir::call_callee(e);
  const auto& args = ir::call_args(e);
  auto b = callee->kind == Kind::Name ? builtin_of(callee->def) : std::nullopt;
  bool outer_min = false;
  const auto nests = min_max_nests(e, outer_min);
  if (!nests.empty()) {
    // __min2(__max2(v, lo), hi): the inner max raises v to lo, the outer min lowers it to hi.
    // Which argument of the inner call is v is decided by the caller (the one moving with the
    // point): here the second.
    const auto& [in, outer] = nests.front();
    v = ir::call_args(in)[1];
    const NodeRef inner = ir::call_args(in)[0];
    lo = outer_min ? inner : outer;
    hi = outer_min ? outer : inner;
    return true;
  }
  if (b) return false;
  auto it = unit->call_targets.find(e->id);
  if (it == unit->call_targets.end() || !it->second->lowered || it->second->params.size() != args.size()) return false;
  const Unit* cu = it->second;
  if (cu->kind != Unit::Kind::Fn || !cu->captures.empty()) return false;
  return chain(cu->lowered, [&](const NodeRef& n) -> NodeRef {
    if (n->kind == Kind::IntLit) return n;
    if (n->kind != Kind::Name) return nullptr;
    for (size_t i = 0; i < cu->params.size(); ++i)
      if (n->def == cu->params[i]) return args[i];
    return nullptr;
  });
}

bool Gen::clamp_split(const NodeRef& s, const NodeRef& body, int bits, ClampSplit& out) {
  out = ClampSplit{};
  // v's terms: exactly one `j`, `j * c` or `c * j` (j the point variable, added), the rest
  // free of j; integer arithmetic only.
  auto split_terms = [&](const NodeRef& v, NodeRef& coef) -> bool {
    int found = 0;
    bool ok = true;
    std::function<void(const NodeRef&, int)> walk = [&](const NodeRef& x, int sign) {
      if (!ok) return;
      if (!mentions_def(x, s->def)) return;
      if (x->kind == Kind::Name && x->def == s->def) {
        ok = sign > 0;
        ++found;
        coef = nullptr;
        return;
      }
      if (x->kind == Kind::Binary) {
        const auto op = static_cast<BinOp>(x->ival);
        const NodeRef &l = ir::bin_lhs(x), &r = ir::bin_rhs(x);
        if (op == BinOp::Add || op == BinOp::Sub) {
          walk(l, sign);
          walk(r, op == BinOp::Sub ? -sign : sign);
          return;
        }
        if (op == BinOp::Mul) {
          const bool left = l->kind == Kind::Name && l->def == s->def;
          const NodeRef& c = left ? r : l;
          const NodeRef& jv = left ? l : r;
          if (jv->kind != Kind::Name || jv->def != s->def || mentions_def(c, s->def) ||
              (c->kind != Kind::IntLit && !fixed_before(s, c))) {
            ok = false;
            return;
          }
          ok = sign > 0;
          ++found;
          coef = c;
          return;
        }
      }
      ok = false;
    };
    walk(v, 1);
    return ok && found == 1;
  };
  ir::for_each_node(body, [&](const NodeRef& x) {
    if (out.clamp || (x->kind != Kind::If && x->kind != Kind::Call)) return;
    NodeRef v, lo, hi;
    if (!clamp_parts(x, v, lo, hi)) return;
    // __min2/__max2: v is the argument that moves with the point.
    if (!mentions_def(v, s->def) && mentions_def(lo, s->def)) std::swap(v, lo);
    if (!mentions_def(v, s->def) && mentions_def(hi, s->def)) std::swap(v, hi);
    if (mentions_def(lo, s->def) || mentions_def(hi, s->def) || !fixed_before(s, lo) || !fixed_before(s, hi)) return;
    // i32 values only: r below is formed in exact index arithmetic, which for i64 operands
    // could need 128 bits (a failure the interpreter does not have).
    if (v->dt < 0 || static_cast<DType>(v->dt) != DType::I32 || may_fail(v, *unit, 0)) return;
    bool plain = true;  // no calls, casts, reads: v is re-evaluated with j = 0
    ir::for_each_node(v, [&](const NodeRef& y) {
      plain = plain && (y->kind == Kind::Name || y->kind == Kind::IntLit || y->kind == Kind::Binary);
    });
    NodeRef coef;
    // Every other name in v is bound before the vector loops (outer points, the reduction's
    // own indices, kernel scalars): r is formed there. A let of the body is bound only inside.
    ir::for_each_node(v, [&](const NodeRef& y) {
      if (y->kind == Kind::Name && y->def != s->def && !lookup(y->def) && !fixed_before(s, y)) plain = false;
    });
    if (!plain || !split_terms(v, coef)) return;
    // r = v at j = 0, c the coefficient: exact (index arithmetic), kept only when |r| < 2^62
    // (v's names and literals are i32 values, so that fails only for products of names): then
    // j * c = v - r fits in i64 for every j of the middle part, where |v| < 2^31.
    const size_t m = mark();
    Val zero{"0LL", DType::I64, 0, true};
    zero.bits = 1;
    bind(s->def, zero);
    const Val r = index(v);
    unbind_to(m);
    if (r.bits > 62) return;
    const std::string cr = em.fresh("cr"), cc = cr + "c", pos = cr + "p";
    em.line("const int64_t " + cr + " = " + r.c + ";");
    em.line("const int64_t " + cc + " = " + (coef ? index(coef).c : std::string("1LL")) + ";");
    const std::string L = index(lo).c, H = index(hi).c;
    // For c > 0 and bounds within i32 (i32 values: always): first = ceil((lo - r) / c),
    // last1 = floor((hi - r) / c) + 1, clamped to the block by the caller; else an empty middle.
    auto floor_div = [](const std::string& a, const std::string& d) {
      return "((" + a + ") >= 0 ? (" + a + ") / " + d + " : -((-(" + a + ") + " + d + " - 1) / " + d + "))";
    };
    em.line("const bool " + pos + " = " + cc + " > 0 && " + L + " >= -2147483648LL && " + H + " < 2147483648LL;");
    out.clamp = x;
    out.value = v;
    out.coef = cc;
    out.rest = cr;
    out.first = "(" + pos + " ? -" + floor_div("(" + cr + ") - (" + L + ")", cc) + " : 0LL)";
    out.last1 = "(" + pos + " ? " + floor_div("(" + H + ") - (" + cr + ")", cc) + " + 1 : 0LL)";
    (void)bits;
  });
  return out.clamp != nullptr;
}

}  // namespace ein::codegen

namespace ein::codegen {

// The clamp's value in the middle part: j * c + r, in [lo, hi] there (an i32 value), in plain
// int64 arithmetic that keeps the read affine in j (contiguous or strided loads, no gather).
Val Gen::clamp_value(const ClampAt& c) {
  const Val* j = lookup(c.point);
  if (!j) unsupported("a clamp split outside its loop");
  Val v = em.define(DType::I64, "int64_t", "(" + j->c + " * " + c.coef + " + " + c.rest + ")", em.depth(), Motion::Cheap);
  v.index = true;
  v.bits = 32;
  return v;
}

}  // namespace ein::codegen
