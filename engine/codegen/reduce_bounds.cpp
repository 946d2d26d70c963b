// Guards that only bound a reduction variable become its loop's bounds. A causal mask
// `sum[j](exp(S[i, j] - m[i]) where j <= i)`, a band `where j >= i - w && j <= i`, a prefix
// `max[k](x[k] where k < t)` visit every point of the row and skip the ones the guard rejects;
// the guard `j <= i` is true exactly for j below i + 1, so the loop stops there instead. The
// remaining points are the same ones in the same order, so every value is the one of the
// guarded loop (an `omp simd` sum may then reassociate, as it does for any unguarded sum), and
// the loop, rid of its branch, vectorises (`%ir kernel`: "guards as bounds:"). A guard qualifies when it
// is a comparison (or a conjunction of comparisons) of a plain reduction variable against an
// integer expression that reads no variable of the reduction and no let of its body, nothing
// before it in the body's let/guard chain can fail (the guarded loop evaluates those at the
// points it then skips), it cannot fail itself, and the variable's loop stays within i32 when
// the variable is an i32 (its value as the comparison sees it is then the loop index: known
// before the run, or tested at entry with the guarded loops as the other version).
#include <algorithm>
#include <functional>

#include "engine/codegen/gen.h"

namespace ein::codegen {

using ir::BinOp;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

struct Bound {
  size_t var;      // position among the reduction's variables
  BinOp op;        // var op e, normalised so the variable is on the left
  NodeRef e;
};

BinOp mirrored(BinOp op) {
  switch (op) {
    case BinOp::Lt: return BinOp::Gt;
    case BinOp::Le: return BinOp::Ge;
    case BinOp::Gt: return BinOp::Lt;
    default: return BinOp::Le;
  }
}

}  // namespace

NodeRef Gen::bound_guards(const NodeRef& r, const std::vector<NodeRef>& vars, std::vector<std::string>& lo_c,
                          std::vector<std::string>& hi_c, std::string& fits) {
  fits.clear();
  const NodeRef& body = ir::lreduce_body(r);
  std::vector<DefId> inner;  // the reduction's variables and the body's lets
  for (const NodeRef& v : vars) inner.push_back(v->def);
  for (NodeRef cur = body; cur->kind == Kind::LLetIn || cur->kind == Kind::LGuard;
       cur = cur->kind == Kind::LLetIn ? ir::lletin_body(cur) : ir::lguard_value(cur))
    if (cur->kind == Kind::LLetIn) inner.push_back(cur->def);
  auto reads_inner = [&](const NodeRef& e) {
    bool hit = false;
    ir::for_each_node(e, [&](const NodeRef& x) {
      if (x->kind == Kind::Name && std::find(inner.begin(), inner.end(), x->def) != inner.end()) hit = true;
    });
    return hit;
  };
  // The variable's language value equals its loop index: an i64, or an i32 over a loop within i32.
  auto plain_var = [&](const NodeRef& x) -> int {
    if (x->kind != Kind::Name) return -1;
    for (size_t k = 0; k < vars.size(); ++k) {
      if (vars[k]->def != x->def) continue;
      DType dt = x->dt >= 0 ? static_cast<DType>(x->dt) : DType::I32;
      if (dt == DType::I64) return static_cast<int>(k);
      if (dt != DType::I32) return -1;
      // Beyond what is known before the run (extents of run-time arrays), a test at entry of
      // the reduction: the caller keeps the guarded loops for ranges outside i32.
      Val lo = index(ir::loopvar_lo(*vars[k])), hi = index(ir::loopvar_hi(*vars[k]));
      if (lo.bits > 31 || hi.bits > 31) {
        const std::string t = "(" + lo.c + " >= -2147483648LL && " + hi.c + " <= 2147483648LL)";
        if (fits.find(t) == std::string::npos) fits += (fits.empty() ? "" : " && ") + t;
      }
      return static_cast<int>(k);
    }
    return -1;
  };
  // Every conjunct of `c` a comparison of a variable against an outer integer expression.
  std::function<bool(const NodeRef&, std::vector<Bound>&)> split = [&](const NodeRef& c, std::vector<Bound>& out) {
    if (c->kind != Kind::Binary) return false;
    auto op = static_cast<BinOp>(c->ival);
    if (op == BinOp::And) return split(ir::bin_lhs(c), out) && split(ir::bin_rhs(c), out);
    if (op != BinOp::Lt && op != BinOp::Le && op != BinOp::Gt && op != BinOp::Ge) return false;
    const NodeRef &a = ir::bin_lhs(c), &b = ir::bin_rhs(c);
    int k = plain_var(a);
    NodeRef e = b;
    if (k < 0) {
      k = plain_var(b);
      e = a;
      op = mirrored(op);
    }
    if (k < 0 || e->dt != a->dt || e->dt != b->dt || e->dt < 0 || !is_int(static_cast<DType>(e->dt)) || reads_inner(e))
      return false;
    out.push_back(Bound{static_cast<size_t>(k), op, e});
    return true;
  };
  std::vector<Bound> bounds;
  std::vector<const ir::Node*> dropped;
  for (NodeRef cur = body; cur->kind == Kind::LLetIn || cur->kind == Kind::LGuard;) {
    if (cur->kind == Kind::LLetIn) {
      if (may_fail(ir::lletin_value(cur), *unit, 0)) break;
      cur = ir::lletin_body(cur);
      continue;
    }
    const NodeRef& c = ir::lguard_cond(cur);
    if (may_fail(c, *unit, 0)) break;
    std::vector<Bound> got;
    if (split(c, got)) {
      bounds.insert(bounds.end(), got.begin(), got.end());
      dropped.push_back(cur.get());
    }
    cur = ir::lguard_value(cur);
  }
  if (bounds.empty()) {
    fits.clear();
    return body;
  }
  lo_c.assign(vars.size(), "");
  hi_c.assign(vars.size(), "");
  for (const Bound& b : bounds) {
    std::string& lo = lo_c[b.var];
    std::string& hi = hi_c[b.var];
    if (lo.empty()) lo = index(ir::loopvar_lo(*vars[b.var])).c;
    if (hi.empty()) hi = index(ir::loopvar_hi(*vars[b.var])).c;
    // The comparison's operand as the program computes it (its own type's arithmetic), widened.
    const std::string e = "(int64_t)" + value(b.e).c;
    // v <= e: v < e + 1, written so that e + 1 cannot overflow; v > e likewise.
    switch (b.op) {
      case BinOp::Lt: hi = "ein_imin(" + hi + ", " + e + ")"; break;
      case BinOp::Le: hi = "(" + e + " < " + hi + " ? " + e + " + 1 : " + hi + ")"; break;
      case BinOp::Ge: lo = "ein_imax(" + lo + ", " + e + ")"; break;
      default: lo = "(" + e + " >= " + lo + " ? (" + e + " < " + hi + " ? " + e + " + 1 : " + hi + ") : " + lo + ")"; break;
    }
  }
  for (size_t k = 0; k < vars.size(); ++k) {
    if (lo_c[k].empty()) continue;
    Val lo = em.define(DType::I64, "int64_t", lo_c[k], em.depth(), Motion::Cheap);
    Val hi = em.define(DType::I64, "int64_t", hi_c[k], em.depth(), Motion::Cheap);
    lo_c[k] = lo.c;
    hi_c[k] = hi.c;
  }
  std::string names;
  for (size_t k = 0; k < vars.size(); ++k)
    if (!lo_c[k].empty()) names += (names.empty() ? "`" : ", `") + vars[k]->name + "`";
  const std::string note = "guards as bounds: " + r->name + " over " + names + " runs only where its guards hold (no test per point)";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  // The body without the dropped guards (lets and other guards stay in order).
  std::function<NodeRef(const NodeRef&)> strip = [&](const NodeRef& n) -> NodeRef {
    if (n->kind == Kind::LGuard) {
      if (std::find(dropped.begin(), dropped.end(), n.get()) != dropped.end()) return strip(ir::lguard_value(n));
      return ir::with_kids(n, {ir::lguard_cond(n), strip(ir::lguard_value(n))});
    }
    if (n->kind == Kind::LLetIn) return ir::with_kids(n, {ir::lletin_value(n), strip(ir::lletin_body(n))});
    return n;
  };
  return strip(body);
}

}  // namespace ein::codegen
