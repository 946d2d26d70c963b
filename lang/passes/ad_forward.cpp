// Symbolic forward-mode differentiation of per-point expressions: the local partial
// derivatives the reverse sweep needs, through arithmetic, math intrinsics, `@fn` rules, inlined
// calls and if/match (blocks, where-bindings and reductions: ad_forward_scope.cpp).
#include <algorithm>

#include "lang/ir/reduce_op.h"
#include "lang/passes/ad_common.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::BinOp;
using ir::Kind;

namespace {

constexpr int kMaxInline = 64;
thread_local int g_inline_depth = 0;



// Does `e` read one of the locals `ds`?
bool reads_any(const NodeRef& e, const std::vector<DefId>& ds) {
  bool any = false;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if (n->kind == Kind::Name && std::find(ds.begin(), ds.end(), n->def) != ds.end()) any = true;
  });
  return any;
}

// `r` with every product `c * dt` of a coefficient and one of the tangents `ds` (which may be
// infinite) written as `if c == 0 { 0 } else { c * dt }`: a term whose coefficient is exactly 0
// contributes nothing, also where its tangent is infinite. A rule that selects by a blend
// (`(1 - m) * @a + m * @b`, std::math::max, clamp, relu6) otherwise carries the tangent of the
// branch it does not take: `max(ln(p), -100.0)` at p = 0 (the clamped log of a cross-entropy)
// had the gradient 0 * inf = NaN where finite differences see 0.
NodeRef strong_zero(const NodeRef& r, const std::vector<DefId>& ds) {
  if (!r || !reads_any(r, ds)) return r;
  std::vector<NodeRef> kids;
  for (auto& k : r->kids) kids.push_back(strong_zero(k, ds));
  NodeRef n = ir::with_kids(r, std::move(kids));
  if (n->kind != Kind::Binary || static_cast<BinOp>(n->ival) != BinOp::Mul) return n;
  const NodeRef &a = ir::bin_lhs(n), &b = ir::bin_rhs(n);
  const bool ta = reads_any(a, ds), tb = reads_any(b, ds);
  if (ta == tb) return n;
  const NodeRef& c = ta ? b : a;
  if (c->kind == Kind::FloatLit) return c->fval == 0.0 ? flit(0.0) : n;
  return zero_guard(eq(c, flit(0.0)), flit(0.0), n);
}

// A rule that can be infinite where its arguments' tangents are exactly 0 (`sqrt` at 0, `a / b`
// at b = 0): the tangent is then 0 (a zero direction), as finite differences see it, and not
// 0 * inf = nan — which a select written as a blend (`(1 - m) * @a + m * @b`) would carry even
// from the branch it does not take (`max(x, c / 0.0)`). Tangents other than plain names are bound
// once so the test does not repeat them; a nonzero literal tangent (the reverse sweep's marker)
// needs no test. `of[i]` is the argument whose tangent t[i] is (for its float width).
NodeRef zero_direction(CompileCtx& cx, Facts& facts, std::vector<NodeRef>& t, const std::vector<NodeRef>& of,
                       std::unordered_set<DefId>& unbounded_names, const std::function<bool(const NodeRef&)>& unbounded,
                       const std::function<NodeRef()>& rule, Span span) {
  std::vector<NodeRef> lets, zero_tests;
  std::vector<DefId> infinite;  // tangents that may be infinite (scalar calls only)
  bool scalar = true;
  for (const NodeRef& a : of) scalar = scalar && ir::rank_of(facts.type(a)) == 0;
  bool nonzero = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i]) continue;
    if (t[i]->kind == Kind::FloatLit && t[i]->fval != 0.0) nonzero = true;
    const bool may_inf = t[i]->kind != Kind::FloatLit && unbounded(t[i]);
    const bool inf = scalar && may_inf;
    if (t[i]->kind != Kind::Name && t[i]->kind != Kind::FloatLit) {
      DefId d = cx.resolver.new_def("dt", DefKind::Local, span);
      lets.push_back(let_stmt("dt", d, t[i], facts.float_dtype(of[i])));
      // The rule sees this name: an inlined body's own calls (std::math::max calling its
      // elementwise max_ew) must still know that it may be infinite.
      if (may_inf) unbounded_names.insert(d);
      t[i] = name("dt", d);
    }
    if (inf) infinite.push_back(t[i]->def);
    zero_tests.push_back(eq(t[i], flit(0.0)));
  }
  NodeRef r = strong_zero(rule(), infinite);
  if (!r) return r;
  if (nonzero || zero_tests.empty() || !may_be_infinite(r, &cx)) return lets.empty() ? r : ad::alias_block(std::move(lets), r);
  NodeRef all_zero = zero_tests[0];
  for (size_t i = 1; i < zero_tests.size(); ++i) all_zero = ir::make_binary(BinOp::And, all_zero, zero_tests[i]);
  return ad::alias_block(std::move(lets), zero_guard(all_zero, flit(0.0), r));
}

}  // namespace

bool Forward::unbounded(const NodeRef& t) const {
  return t && (may_be_infinite(t, &cx_) || (!unbounded_.empty() && reads_any(t, {unbounded_.begin(), unbounded_.end()})));
}

NodeRef Forward::tangent(const NodeRef& e) {
  if (!e) return nullptr;
  if (e->id == marker) return marker_seed ? marker_seed : flit(1.0);
  switch (e->kind) {
    case Kind::Name:
    case Kind::Path: {
      auto it = tangents.find(e->def);
      return it == tangents.end() ? nullptr : it->second;
    }
    case Kind::Index: {
      const NodeRef& base = ir::index_base(e);
      ir::Kids idx = ir::index_args(e);
      if (idx.empty()) return tangent(base);  // `m[..b]` over zero axes is m itself
      if (base->kind == Kind::Name) {
        auto it = tangents.find(base->def);
        if (it != tangents.end())
          return ir::make({.kind = Kind::Index, .span = e->span, .kids = ir::kid_list(it->second, idx)});
        return nullptr;
      }
      // A literal read at a point: `if i == 0 { e0[rest..] } else ..`, differentiated.
      if (base->kind == Kind::ArrayLit && !ir::array_elems(base).empty() && ir::array_elems_count(base) <= 256) {
        ir::Kids elems = ir::array_elems(base);

        ir::Kids rest = idx.subspan(1);  // the axes inside the element
        auto at = [&](const NodeRef& el) {
          if (rest.empty()) return el;
          return ir::make({.kind = Kind::Index, .span = e->span, .kids = ir::kid_list(el, rest)});
        };
        NodeRef sel = at(elems.back());
        for (size_t k = elems.size() - 1; k-- > 0;)
          sel = ifz(ir::make_binary(BinOp::Eq, idx.front(), ir::make_int(static_cast<int64_t>(k))), at(elems[k]), sel);
        return tangent(sel);
      }
      // Any other indexed array expression: its tangent is not known per point; a zero here
      // would be a silent wrong derivative.
      bool active = false;
      ir::for_each_node(base, [&](const NodeRef& n) {
        if (n->id == marker || (n->kind == Kind::Name && tangents.count(n->def))) active = true;
      });
      if (active)
        unsupported(std::string("`") + cx_.sm.snippet(e->span) + "` (an indexed array expression)", e->span);
      return nullptr;
    }
    case Kind::Unary:
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) return neg(tangent(ir::unary_operand(e)));
      return nullptr;
    case Kind::Binary: {
      auto op = static_cast<BinOp>(e->ival);
      const NodeRef &a = ir::bin_lhs(e), &b = ir::bin_rhs(e);
      switch (op) {
        case BinOp::Add: return add(tangent(a), tangent(b));
        case BinOp::Sub: return sub(tangent(a), tangent(b));
        case BinOp::Mul: return add(mul(a, tangent(b)), mul(tangent(a), b));
        case BinOp::Div: {
          std::vector<NodeRef> t{tangent(a), tangent(b)};
          if (!t[0] && !t[1]) return nullptr;
          return zero_direction(cx_, facts_, t, {a, b}, unbounded_, [&](const NodeRef& x) { return unbounded(x); },
                                [&] { return sub(div(t[0], b), div(mul(a, t[1]), mul(b, b))); }, e->span);
        }
        case BinOp::Mod: return tangent(a);  // d(a % b)/da = 1 almost everywhere
        case BinOp::Pow: return pow(e, tangent(a), tangent(b));
        default: return nullptr;  // comparisons and logic: no derivative
      }
    }
    case Kind::Cast: {
      NodeRef t = tangent(ir::cast_expr(e));
      // An array cast `a as [T; ..]` converts each element like `a as T`.
      const NodeRef& to_ty = ir::cast_type(e);
      const NodeRef& ty = to_ty->kind == Kind::TyArray ? ir::tyarray_elem(to_ty) : to_ty;
      auto to = dtype_from_name(ty->name);
      if (!t || !to || !is_float(*to)) return nullptr;
      return ir::make({.kind = Kind::Cast, .span = e->span, .kids = {t, ty}});
    }
    case Kind::Call: return call(e);
    case Kind::If: {
      if (e->name == kZeroGuard && ir::if_else(e)) {
        const bool then_zero = ir::if_then(e)->kind == Kind::FloatLit && ir::if_then(e)->fval == 0.0;
        return tangent(then_zero ? ir::if_else(e) : ir::if_then(e));
      }
      NodeRef ta = tangent(ir::if_then(e));
      NodeRef tb = ir::if_else(e) ? tangent(ir::if_else(e)) : nullptr;
      if (!ta && !tb) return nullptr;
      return ifz(ir::if_cond(e), ta ? ta : flit(0.0), tb ? tb : flit(0.0));
    }
    case Kind::Block: return block(e);
    case Kind::Where: return where(e);
    case Kind::Reduce: return reduce(e);
    case Kind::Match: {
      if (NodeRef plain = match_bindings(e, facts_); plain != e) return tangent(plain);
      if (tangent(ir::match_scrutinee(e)))
        for (const NodeRef& arm : ir::match_arms(e))
          ir::for_each_node(ir::arm_pattern(arm), [&](const NodeRef& p) {
            if (p->kind == Kind::PBind || p->kind == Kind::PAt || p->kind == Kind::PRest)
              unsupported("a match that binds a value being differentiated", p->span);
          });
      std::vector<NodeRef> kids{ir::match_scrutinee(e)};
      bool any = false;
      for (const NodeRef& arm : ir::match_arms(e)) {
        NodeRef t = tangent(ir::arm_body(arm));
        any = any || t;
        kids.push_back(ir::make({.kind = Kind::Arm, .span = arm->span,
                                 .kids = {ir::arm_pattern(arm), ir::arm_guard(arm), t ? t : flit(0.0)}}));
      }
      if (!any) return nullptr;
      return ir::make({.kind = Kind::Match, .span = e->span, .kids = std::move(kids)});
    }
    case Kind::ArrayLit: {
      std::vector<NodeRef> kids;
      bool any = false;
      bool nested = false;
      for (auto& k : e->kids) {
        NodeRef t = tangent(k);
        any = any || t;
        nested = nested || (!t && ir::rank_of(facts_.type(k)) != 0);
        kids.push_back(t ? t : flit(0.0));
      }
      if (!any) return nullptr;
      if (nested)  // a scalar zero would not have the element's shape
        unsupported("an array literal of arrays only some of which depend on the parameter", e->span);
      return ir::make({.kind = Kind::ArrayLit, .span = e->span, .kids = std::move(kids)});
    }
    default: {
      bool active = false;
      ir::for_each_node(e, [&](const NodeRef& n) {
        if (n->id == marker || (n->kind == Kind::Name && tangents.count(n->def))) active = true;
      });
      if (active)
        unsupported(std::string("`") + cx_.sm.snippet(e->span) + "` (" + ir::kind_name(e->kind) +
                        ")",
                    e->span);
      return nullptr;
    }
  }
}

NodeRef Forward::pow(const NodeRef& e, const NodeRef& ta, const NodeRef& tb) {
  const NodeRef &a = ir::bin_lhs(e), &b = ir::bin_rhs(e);
  if (!ta && !tb) return nullptr;
  if (!tb) {
    // d(a ** n) = n * a ** (n - 1) * da, with n converted to a's float type.
    auto dt = facts_.float_dtype(a).value_or(DType::F32);
    TypeRef bt = ir::elem_of(facts_.type(b));
    bool int_exp = bt && bt->k == ir::Type::K::Scalar && is_int(bt->dtype);
    NodeRef nf = int_exp ? ir::make({.kind = Kind::Cast, .kids = {b, ty_prim(dt)}}) : b;
    NodeRef nm1 = int_exp ? ir::make_binary(BinOp::Sub, b, ir::make_int(1)) : sub(b, flit(1.0));
    // a ** 0 is the constant 1: its derivative is 0 even at a = 0, where n * a ** (n - 1) is
    // 0 * inf.
    if ((b->kind == Kind::IntLit && b->ival == 0) || (b->kind == Kind::FloatLit && b->fval == 0.0)) return nullptr;
    if (b->kind == Kind::IntLit) {  // fold literal exponents: x ** 3 -> 3.0 * x ** 2
      nf = flit(static_cast<double>(b->ival));
      nm1 = ir::make_int(b->ival - 1);
      if (b->ival == 1) return ta;
      if (b->ival == 2) return mul(mul(nf, a), ta);
    } else if (b->kind == Kind::FloatLit) {
      nm1 = flit(b->fval - 1.0);
    }
    NodeRef d = mul(mul(nf, ir::make_binary(BinOp::Pow, a, nm1)), ta);
    if (b->kind == Kind::IntLit || b->kind == Kind::FloatLit) return d;
    return ifz(eq(b, int_exp ? ir::make_int(0) : flit(0.0)), zero_of(dt), d);
  }
  // d(a ** b) = a ** b * (db * ln a + b * da / a)
  NodeRef lna = call_builtin(static_cast<int>(Builtin::Log), {a});
  return mul(e, add(mul(tb, lna), div(mul(b, ta), a)));
}

NodeRef Forward::builtin_rule(int bi, const NodeRef& e, const std::vector<NodeRef>& t) {
  auto b = static_cast<Builtin>(bi);
  // `max(a, b)` / `min(a, b)` without a `use` is the builtin's elementwise two-argument form
  // (the interpreter and codegen run it so), not a whole-array reduction.
  ir::Kids args = ir::call_args(e);
  if ((b == Builtin::Max || b == Builtin::Min) && args.size() == 2)
    b = b == Builtin::Max ? Builtin::Max2 : Builtin::Min2;
  const NodeRef& a = !args.empty() ? args[0] : nullptr;
  NodeRef ta = t.empty() ? nullptr : t[0];
  auto f = [&](Builtin g, NodeRef x) { return call_builtin(static_cast<int>(g), {std::move(x)}); };
  auto sq = [&](const NodeRef& x) { return mul(x, x); };
  switch (b) {
    case Builtin::Abs: return mul(f(Builtin::Sign, a), ta);
    case Builtin::Sqrt: return div(ta, mul(flit(2.0), f(Builtin::Sqrt, a)));
    case Builtin::Exp: return mul(f(Builtin::Exp, a), ta);
    case Builtin::Expm1: return mul(f(Builtin::Exp, a), ta);
    case Builtin::Log: return div(ta, a);
    case Builtin::Log2: return div(ta, mul(a, flit(0.6931471805599453)));
    case Builtin::Log10: return div(ta, mul(a, flit(2.302585092994046)));
    case Builtin::Log1p: return div(ta, add(flit(1.0), a));
    case Builtin::Sin: return mul(f(Builtin::Cos, a), ta);
    case Builtin::Cos: return neg(mul(f(Builtin::Sin, a), ta));
    case Builtin::Tan: return div(ta, sq(f(Builtin::Cos, a)));
    case Builtin::Asin: return div(ta, f(Builtin::Sqrt, sub(flit(1.0), sq(a))));
    case Builtin::Acos: return neg(div(ta, f(Builtin::Sqrt, sub(flit(1.0), sq(a)))));
    case Builtin::Atan: return div(ta, add(flit(1.0), sq(a)));
    case Builtin::Sinh: return mul(f(Builtin::Cosh, a), ta);
    case Builtin::Cosh: return mul(f(Builtin::Sinh, a), ta);
    case Builtin::Tanh: return mul(sub(flit(1.0), sq(f(Builtin::Tanh, a))), ta);
    case Builtin::Asinh: return div(ta, f(Builtin::Sqrt, add(sq(a), flit(1.0))));
    case Builtin::Acosh: return div(ta, f(Builtin::Sqrt, sub(sq(a), flit(1.0))));
    case Builtin::Atanh: return div(ta, sub(flit(1.0), sq(a)));
    case Builtin::Erf:
      return mul(mul(flit(1.1283791670955126), f(Builtin::Exp, neg(sq(a)))), ta);
    case Builtin::Rsqrt: return mul(flit(-0.5), div(mul(ta, f(Builtin::Rsqrt, a)), a));
    case Builtin::Floor:
    case Builtin::Ceil:
    case Builtin::Round:
    case Builtin::Trunc:
    case Builtin::Sign: return nullptr;
    case Builtin::Atan2: {
      const NodeRef& x = args[1];
      NodeRef tx = t.size() > 1 ? t[1] : nullptr;
      return div(sub(mul(x, ta), mul(a, tx)), add(sq(x), sq(a)));
    }
    case Builtin::Pow: {
      NodeRef p = ir::make_binary(BinOp::Pow, a, args[1]);
      return pow(p, ta, t.size() > 1 ? t[1] : nullptr);
    }
    case Builtin::Fmod: {
      NodeRef tb = t.size() > 1 ? t[1] : nullptr;
      return sub(ta, mul(f(Builtin::Trunc, div(a, args[1])), tb));
    }
    case Builtin::Min2:
    case Builtin::Max2: {
      NodeRef tb = t.size() > 1 ? t[1] : nullptr;
      if (!ta && !tb) return nullptr;
      BinOp cmp = b == Builtin::Min2 ? BinOp::Le : BinOp::Ge;
      return ifz(ir::make_binary(cmp, a, args[1]), ta ? ta : flit(0.0), tb ? tb : flit(0.0));
    }
    case Builtin::Sum:
    case Builtin::Max:
    case Builtin::Min:
    case Builtin::Prod:
      if (ta || (t.size() > 1 && t[1]))
        unsupported("a whole-array reduction inside an indexed expression", e->span);
      return nullptr;
    default: return nullptr;
  }
}


NodeRef Forward::arg_value(const NodeRef& arg) {
  if (!stored_arg) return arg;
  bool reduces = false;
  ir::for_each_node(arg, [&](const NodeRef& n) { reduces = reduces || n->kind == Kind::Reduce; });
  if (!reduces) return arg;
  NodeRef v = stored_arg(arg);
  return v ? v : arg;
}

NodeRef Forward::call(const NodeRef& e) {
  std::vector<NodeRef> t;
  bool any = false;
  const NodeRef& callee = ir::call_callee(e);
  // A lambda written as the argument of a user function (`A(|u| u * c, x)` inside F) has no
  // tangent of its own: the inlined body calls it, and that call differentiates its body with
  // what it captures (below). A builtin given one keeps the E013 of tangent().
  const bool user_fn = (callee->kind == Kind::Name || callee->kind == Kind::Path) && callee->def.valid() &&
                       cx_.resolver.info(callee->def).kind == DefKind::Fn && !builtin_of(callee->def);
  bool lambda_arg = false;
  for (const NodeRef& a : ir::call_args(e)) {
    if (user_fn && a->kind == Kind::Lambda) {
      t.push_back(nullptr);
      lambda_arg = true;
      continue;
    }
    t.push_back(tangent(a));
    any = any || t.back();
  }
  // A closure varies with what it captures (`|u| -k * u` called at a constant) even when no
  // argument does: its body is differentiated either way.
  TypeRef ct = facts_.type(callee);
  bool closure = callee->kind == Kind::Lambda || (ct && ct->k == ir::Type::K::Lambda) || lambda_arg;
  // (A function reading an active top-level binding never gets here from a tape: extract_calls
  // inlines it, ad_inline.cpp.)
  if (!any && !closure) return nullptr;
  std::vector<NodeRef> args = ir::kid_list(ir::call_args(e));
  return zero_direction(cx_, facts_, t, args, unbounded_, [&](const NodeRef& x) { return unbounded(x); },
                        [&] { return call_rule(e, t); }, e->span);
}

NodeRef Forward::call_rule(const NodeRef& e, std::vector<NodeRef> t) {
  const NodeRef& callee = ir::call_callee(e);
  ir::Kids args = ir::call_args(e);
  if (auto b = builtin_of(callee->def)) return builtin_rule(static_cast<int>(*b), e, t);
  NodeRef fn, body;
  std::vector<NodeRef> params;
  const DefInfo* info = nullptr;
  if ((callee->kind == Kind::Name || callee->kind == Kind::Path) &&
      cx_.resolver.info(callee->def).kind == DefKind::Fn) {
    info = &cx_.resolver.info(callee->def);
    fn = info->node;
  } else if (callee->kind == Kind::Lambda) {
    fn = callee;
  } else {
    TypeRef ct = facts_.type(callee);
    if (ct && ct->k == ir::Type::K::Lambda) fn = ct->node;
    if (ct && ct->k == ir::Type::K::FnItem) {
      info = &cx_.resolver.info(ct->def);
      fn = info->node;
    }
  }
  if (!fn) unsupported("a call of a function value that cannot be resolved statically", e->span);
  if (g_inline_depth >= kMaxInline) unsupported("a recursive function", e->span);
  // The specialisation's body: derivative requests inside it are already rewritten there.
  const Unit* spec = facts_.call_target(e, unit);
  if (spec && spec->body && spec->body->kind == fn->kind && (fn->kind == Kind::Fn || fn->kind == Kind::Lambda))
    fn = spec->body;
  else
    spec = nullptr;
  // A custom rule `@fn f(x) { ... }`: its value is the tangent of the result given `@x`.
  if (info && info->diff_rule) {
    NodeRef rule = info->diff_rule;  // a copy: new_def below may move the DefInfo table
    info = nullptr;
    return custom_rule(e, t, rule, fn);
  }
  // Otherwise differentiate the inlined body (JVP through the call).
  ir::Kids fn_params = fn->kind == Kind::Lambda ? ir::lambda_params(*fn) : ir::fn_params(*fn);
  body = fn->kind == Kind::Lambda ? ir::lambda_body(*fn) : ir::fn_body(*fn);
  std::vector<NodeRef> stmts;
  auto saved = tangents;
  for (size_t a = 0; a < fn_params.size() && a < t.size(); ++a) {
    const NodeRef& p = fn_params[a];
    stmts.push_back(let_typed(p->name, p->def, arg_value(args[a]), facts_.type(args[a])));
    if (t[a]) {
      DefId dp = cx_.resolver.new_def("d" + p->name, DefKind::Local, p->span);
      if (unbounded(t[a])) unbounded_.insert(dp);
      stmts.push_back(let_stmt("d" + p->name, dp, t[a], facts_.float_dtype(args[a])));
      tangents[p->def] = name("d" + p->name, dp);
    } else {
      tangents.erase(p->def);
    }
  }
  ++g_inline_depth;
  // Specialisations share the function's nodes: the body's types (a local's width, a literal
  // typed by the call) and its calls' targets are this specialisation's, not the first one
  // that has the node (`f(k_f64)` next to `f(1.0)`).
  const Unit* saved_unit = unit;
  if (spec) {
    facts_.prefer(spec);
    unit = spec;
  }
  auto restore = [&]() {
    --g_inline_depth;
    tangents = saved;
    if (spec) facts_.unprefer();
    unit = saved_unit;
  };
  NodeRef tb;
  try {
    tb = tangent(body);
  } catch (...) {
    restore();
    throw;
  }
  restore();
  if (!tb) return nullptr;
  return ad::block(std::move(stmts), tb);
}

}  // namespace ein::ad
