// Elementwise specialisations (see elementwise_fn.h): proven from the body, never by name.
#include "lang/passes/elementwise_fn.h"

#include <unordered_set>

#include "lang/ir/kid_families.h"
#include "lang/resolve/builtins.h"
#include "lang/resolve/resolver.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

namespace {

// `lets`: the body's locals bound so far to elementwise values (they are elementwise too).
bool elementwise_expr(const CompileCtx& cx, const Unit& spec, const NodeRef& e, int depth,
                      std::unordered_set<ir::DefId>& lets) {
  if (!e) return false;
  switch (e->kind) {
    case Kind::IntLit: case Kind::FloatLit: case Kind::BoolLit:
      return true;
    case Kind::Name: case Kind::Path: {
      if (!e->def.valid()) return false;
      DefKind k = cx.resolver.info(e->def).kind;
      // a parameter, or a constant whose value is one for every point
      if (k == DefKind::Param || lets.count(e->def)) return true;
      return (k == DefKind::Const || k == DefKind::Global) && ir::rank_of(spec.type(e)) == 0;
    }
    case Kind::Binary: case Kind::Unary:
      for (const NodeRef& k : e->kids)
        if (!elementwise_expr(cx, spec, k, depth, lets)) return false;
      return true;
    case Kind::Cast:
      return elementwise_expr(cx, spec, e->kids[0], depth, lets);
    case Kind::Block: {
      // `let f = __promote(x, "float"); let r = __round(f); r - ..` (std::math::round)
      if (!e->has(ir::kHasTail) || e->kids.empty()) return false;
      for (size_t i = 0; i + 1 < e->kids.size(); ++i) {
        const NodeRef& st = e->kids[i];
        if (!st || st->kind != Kind::Let || ir::let_pattern(*st)->kind != Kind::PBind ||
            !elementwise_expr(cx, spec, ir::let_value(*st), depth, lets))
          return false;
        lets.insert(ir::let_pattern(*st)->def);
      }
      return elementwise_expr(cx, spec, e->kids.back(), depth, lets);
    }
    case Kind::If: {
      // a branch the specialisation decided (`if __is_int(x) { x } else { .. }`)
      auto it = spec.static_ifs.find(e->id);
      if (it == spec.static_ifs.end()) return false;
      return elementwise_expr(cx, spec, it->second ? ir::if_then(e) : ir::if_else(e), depth, lets);
    }
    case Kind::Call: {
      const NodeRef& callee = ir::call_callee(e);
      bool convert = false;
      if (auto b = builtin_of(callee->def)) {
        if (!is_math_intrinsic(*b) && *b != Builtin::Promote && *b != Builtin::Convert) return false;
        convert = *b == Builtin::Promote || *b == Builtin::Convert;
      } else {
        auto tg = spec.call_targets.find(e->id);
        if (tg == spec.call_targets.end() || !tg->second || tg->second->kind != Unit::Kind::Fn ||
            !elementwise_fn(cx, *tg->second, depth + 1))
          return false;
      }
      // `__promote(x, "float")`: the second argument names a kind, not a value.
      ir::Kids args = ir::call_args(e);
      for (size_t i = 0; i < args.size(); ++i) {
        if (convert && i > 0) continue;
        if (!elementwise_expr(cx, spec, args[i], depth, lets)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

bool elementwise_fn(const CompileCtx& cx, const Unit& spec, int depth) {
  if (depth > 8 || spec.in_progress || !spec.body || spec.body->kind != Kind::Fn) return false;
  std::unordered_set<ir::DefId> lets;
  return elementwise_expr(cx, spec, ir::fn_body(*spec.body), depth, lets);
}

}  // namespace ein
