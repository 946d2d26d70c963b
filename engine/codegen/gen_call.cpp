// Calls inside kernels: math intrinsics map to <math.h> at the operand's precision (as
// engine/value/math.cpp computes them), a few builtins are expressible, and calls of user or
// std functions are inlined when the callee's lowered body is an expression (possibly with
// `let`s). Everything else — printing, closures, recursion — keeps the clause interpreted.
#include "engine/codegen/gen.h"
#include "lang/resolve/builtins.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

// <math.h> names for the one-argument intrinsics, in Builtin order from Abs to Rsqrt.
struct MathName {
  Builtin b;
  const char* f64;
  const char* f32;
};
constexpr MathName kMath[] = {
    {Builtin::Abs, "fabs", "fabsf"},    {Builtin::Sqrt, "sqrt", "sqrtf"},
    {Builtin::Exp, "exp", "ein_expf"},      {Builtin::Log, "log", "logf"},
    {Builtin::Log2, "log2", "log2f"},   {Builtin::Log10, "log10", "log10f"},
    {Builtin::Log1p, "log1p", "log1pf"}, {Builtin::Expm1, "expm1", "expm1f"},
    {Builtin::Sin, "sin", "sinf"},      {Builtin::Cos, "cos", "cosf"},
    {Builtin::Tan, "tan", "tanf"},      {Builtin::Asin, "asin", "asinf"},
    {Builtin::Acos, "acos", "acosf"},   {Builtin::Atan, "atan", "atanf"},
    {Builtin::Sinh, "sinh", "sinhf"},   {Builtin::Cosh, "cosh", "coshf"},
    {Builtin::Tanh, "tanh", "tanhf"},   {Builtin::Asinh, "asinh", "asinhf"},
    {Builtin::Acosh, "acosh", "acoshf"}, {Builtin::Atanh, "atanh", "atanhf"},
    {Builtin::Floor, "floor", "floorf"}, {Builtin::Ceil, "ceil", "ceilf"},
    {Builtin::Round, "round", "roundf"}, {Builtin::Trunc, "trunc", "truncf"},
    {Builtin::Erf, "erf", "erff"},      {Builtin::Sign, "ein_sign", "ein_signf"},
    {Builtin::Atan2, "atan2", "atan2f"}, {Builtin::Pow, "pow", "powf"},
    {Builtin::Fmod, "fmod", "fmodf"},   {Builtin::Min2, "ein_min2", "ein_min2f"},
    {Builtin::Max2, "ein_max2", "ein_max2f"},
};

// Cheap enough to compute speculatively (vector instructions, no libm call).
bool cheap_math(Builtin b) {
  switch (b) {
    case Builtin::Abs:
    case Builtin::Sqrt:
    case Builtin::Floor:
    case Builtin::Ceil:
    case Builtin::Trunc:
    case Builtin::Sign:
    case Builtin::Min2:
    case Builtin::Max2:
    case Builtin::Rsqrt:
    case Builtin::Exp: return true;  // f64 exp is a libm call, but hoisting it is still right
    default: return false;
  }
}

}  // namespace

// Every call in n is a cheap math intrinsic (cheap_math), directly or through expression-bodied
// functions (std::math::exp is `__exp(x)`): computing n where a guard then discards it costs
// vector instructions only (Gen::select_guards).
bool Gen::cheap_calls(const NodeRef& n, const Unit& u, int depth) const {
  if (depth > 4) return false;
  bool ok = true;
  ir::for_each_node(n, [&](const NodeRef& x) {
    if (!ok || x->kind != Kind::Call) return;
    const NodeRef& callee = ir::call_callee(x);
    if (callee->kind != Kind::Name && callee->kind != Kind::Path) {
      ok = false;
      return;
    }
    if (auto b = builtin_of(callee->def)) {
      ok = is_math_intrinsic(*b) && cheap_math(*b);
      return;
    }
    auto it = u.call_targets.find(x->id);
    const Unit* f = it == u.call_targets.end() ? nullptr : it->second;
    ok = f && f->kind == Unit::Kind::Fn && f->captures.empty() && f->lowered && ir::expression_body(f->lowered) &&
         cheap_calls(f->lowered, *f, depth + 1);
  });
  return ok;
}

Val Gen::call(const NodeRef& e) {
  const NodeRef& callee = ir::call_callee(e);
  if (callee->kind != Kind::Name && callee->kind != Kind::Path) unsupported("a call of a computed function");
  std::vector<NodeRef> args(ir::call_args(e).begin(), ir::call_args(e).end());
  if (auto b = builtin_of(callee->def)) {
    if (is_math_intrinsic(*b)) {
      std::vector<Val> v;
      for (auto& a : args) v.push_back(value(a));
      DType dt = v.empty() ? DType::F32 : v[0].dt;
      // Integer minimum and maximum (a clamped index: std::math::clamp): the second operand
      // when it is smaller (larger), as the interpreter takes it (engine/value/math.cpp).
      if ((*b == Builtin::Min2 || *b == Builtin::Max2) && v.size() == 2 && is_int(v[0].dt) && is_int(v[1].dt) &&
          is_int(dtype_of(e))) {
        const DType rt = dtype_of(e);
        Val x = convert(v[0], rt), y = convert(v[1], rt);
        return em.define(rt, ctype(rt), "(" + y.c + (*b == Builtin::Min2 ? " < " : " > ") + x.c + " ? " + y.c + " : " + x.c + ")",
                         std::max(x.level, y.level), Motion::Cheap);
      }
      if (!is_float(dt) || (v.size() == 2 && v[1].dt != dt)) unsupported("math on non-float values");
      int level = 0;
      for (auto& x : v) level = std::max(level, x.level);
      Motion m = cheap_math(*b) ? Motion::Cheap : Motion::Costly;
      const std::string T = ctype(dt);
      if (*b == Builtin::Rsqrt)
        return em.define(dt, T, "((" + T + ")1 / " + (dt == DType::F32 ? "sqrtf(" : "sqrt(") + v[0].c + "))",
                         level, m);
      for (const MathName& mn : kMath) {
        if (mn.b != *b) continue;
        std::string x = std::string(dt == DType::F32 ? mn.f32 : mn.f64) + "(" + v[0].c;
        if (v.size() == 2) x += ", " + v[1].c;
        return em.define(dt, T, x + ")", level, m);
      }
      unsupported("this math intrinsic");
    }
    switch (*b) {
      case Builtin::Max:
      case Builtin::Min: {
        if (args.size() != 2) break;
        Val a = value(args[0]), c = value(args[1]);
        if (a.dt != c.dt || a.dt == DType::Bool) break;
        // engine: `gt = a == a && a > b`; max picks a when gt, min picks b when gt.
        std::string gt = "(" + a.c + " == " + a.c + " && " + a.c + " > " + c.c + ")";
        std::string x = *b == Builtin::Max ? "(" + gt + " ? " + a.c + " : " + c.c + ")"
                                           : "(" + gt + " ? " + c.c + " : " + a.c + ")";
        return em.define(a.dt, ctype(a.dt), x, std::max(a.level, c.level), Motion::Cheap);
      }
      case Builtin::Len: {
        if (args.size() != 1) break;
        if (args[0]->kind == Kind::Name) {
          if (const Local* L = local_of(args[0]->def))
            return em.define(DType::I32, "i32", "((i32)" + L->ext[0] + ")", 0, Motion::Cheap);
          int bi = buffer_of(args[0]);
          if (k.bufs[static_cast<size_t>(bi)].rank == 0) break;
          return em.define(DType::I32, "i32", "((i32)" + extent(bi, 0) + ")", 0, Motion::Cheap);
        }
        // `len(B[0])`, the usual way to name an inner extent (`j in 0..len(B[0])`): the extent
        // of the axis after the indexed ones, once the indices are checked as the row read would
        // be (E005 on an empty B, as in the interpreter). Was: the whole nest interpreted.
        const NodeRef& row = args[0];
        if (row->kind != Kind::Index || ir::index_base(row)->kind != Kind::Name ||
            fusion.producers.count(ir::index_base(row)->def))
          break;
        int bi = buffer_of(ir::index_base(row));
        size_t n = ir::index_args_count(row);
        if (static_cast<int>(n) >= k.bufs[static_cast<size_t>(bi)].rank) break;
        // The value is defined where its indices exist (an extent used by a loop bound may be
        // hoisted, as the contraction plans need), and is 0 when the row does not; the check
        // stays where the interpreter would evaluate it.
        int level = 0;
        std::string inside;
        for (size_t a = 0; a < n; ++a) {
          Val x = index(ir::index_args(row)[a]);
          level = std::max(level, x.level);
          std::string ext = extent(bi, static_cast<int>(a));
          std::string ok = "(uint64_t)" + x.c + " < (uint64_t)" + ext;
          inside += (inside.empty() ? "" : " && ") + ok;
          if (!quiet_len_)
            em.line("if (EIN_UNLIKELY(!(" + ok + "))) ein_fail(A, " + std::to_string(site(row->span)) + ", EIN_E_BOUNDS, " +
                    ord_ + ", " + x.c + ", " + std::to_string(a) + ", " + ext + ");");
        }
        return em.define(DType::I32, "i32", "((" + inside + ") ? (i32)" + extent(bi, static_cast<int>(n)) + " : (i32)0)", level,
                         Motion::Cheap);
      }
      default: break;
    }
    unsupported(std::string("builtin `") + builtin_info(*b).name + "` in a kernel");
  }
  auto it = unit->call_targets.find(e->id);
  if (it == unit->call_targets.end()) unsupported("a call without a static target");
  const Unit* callee_unit = it->second;
  if (callee_unit->kind != Unit::Kind::Fn || !callee_unit->captures.empty())
    unsupported("a call of a closure");
  if (!callee_unit->lowered || callee_unit->lowered->kind != Kind::Block)
    unsupported("a function without a lowered body");
  if (inline_depth >= 8) unsupported("calls nested too deeply to inline");
  for (const Unit* u : inlining)
    if (u == callee_unit) unsupported("a recursive call");
  if (!ir::expression_body(callee_unit->lowered)) unsupported("a call of `" + callee_unit->name + "` (not an expression)");
  if (callee_unit->params.size() != args.size()) unsupported("an argument count mismatch");

  // Arguments are evaluated in the caller's unit; tensors pass as buffer aliases.
  std::vector<std::pair<std::string, int>> aliases;
  std::vector<std::pair<ir::DefId, Val>> vals;
  for (size_t i = 0; i < args.size(); ++i) {
    const NodeRef& a = args[i];
    ir::TypeRef t = unit->type(a);
    if (ir::rank_of(t) > 0) {
      if (a->kind != Kind::Name || fusion.producers.count(a->def)) unsupported("a computed tensor argument");
      aliases.emplace_back(def_key(callee_unit->params[i]), buffer_of(a));
    } else {
      vals.emplace_back(callee_unit->params[i], value(a));
    }
  }
  size_t m = mark();
  for (auto& [d, v] : vals) bind(d, v);
  std::vector<std::pair<std::string, std::optional<int>>> saved;
  for (auto& [key, bi] : aliases) {
    auto old = buf_alias.find(key);
    saved.emplace_back(key, old == buf_alias.end() ? std::nullopt : std::optional<int>(old->second));
    buf_alias[key] = bi;
  }
  const Unit* saved_unit = unit;
  unit = callee_unit;
  inlining.push_back(callee_unit);
  ++inline_depth;
  // An Unsupported thrown from here abandons the whole kernel, so no state needs restoring.
  Val r = value(callee_unit->lowered);
  --inline_depth;
  inlining.pop_back();
  unit = saved_unit;
  for (auto& [key, old] : saved) {
    if (old) buf_alias[key] = *old;
    else buf_alias.erase(key);
  }
  unbind_to(m);
  return convert(r, dtype_of(e));
}

}  // namespace ein::codegen
