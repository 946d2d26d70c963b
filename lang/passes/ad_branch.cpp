// Compile-time branches in inlined bodies: `if len(shape(X)) == 3 { .. } else { .. }`,
// `if len(B) == 0 { .. }`, `if kind == 0 { .. }` with `kind` a constant argument. Library
// functions dispatch on rank, on an empty optional argument or on a mode code this way; their
// branches hold statements (and arrays of other ranks) that the tape cannot treat as one
// elementwise value. When the condition folds to a constant, only the branch the primal takes
// is taped. A condition that does not fold keeps the `if` (the elementwise rule or an E013).
#include <cmath>

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

namespace {

// A Name that only renames another value (`let B' = B;` of an inlined parameter).
const NodeRef* renamed_value(const std::unordered_map<DefId, NodeRef>& visible, const NodeRef& e) {
  if (e->kind != Kind::Name && e->kind != Kind::Path) return nullptr;
  auto it = visible.find(e->def);
  if (it == visible.end() || it->second->kind != Kind::Let) return nullptr;
  if (ir::let_pattern(*it->second)->kind != Kind::PBind) return nullptr;
  return &ir::let_value(*it->second);
}

// A comparison's truth (1 or 0), or nullopt for another operator.
template <class T>
std::optional<int64_t> compare(ir::BinOp op, T a, T b) {
  switch (op) {
    case ir::BinOp::Eq: return a == b;
    case ir::BinOp::Ne: return a != b;
    case ir::BinOp::Lt: return a < b;
    case ir::BinOp::Le: return a <= b;
    case ir::BinOp::Gt: return a > b;
    case ir::BinOp::Ge: return a >= b;
    default: return std::nullopt;
  }
}

// `shape(x)`: x, else nullptr.
NodeRef shape_call_arg(const NodeRef& c) {
  if (c->kind != Kind::Call || ir::call_args_count(c) != 1) return nullptr;
  auto b = builtin_of(ir::call_callee(c)->def);
  return b && *b == Builtin::Shape ? ir::call_args(c)[0] : nullptr;
}

}  // namespace

// The value an inlined parameter stands for, through chains of renaming lets: the name the
// caller (or the cell) bound, whose shape facts the analysis has.
NodeRef Tape::through_renames(const NodeRef& e) const {
  NodeRef cur = e;
  for (int depth = 0; depth < 64; ++depth) {
    const NodeRef* v = renamed_value(visible_, cur);
    if (!v || ((*v)->kind != Kind::Name && (*v)->kind != Kind::Path)) return cur;
    cur = *v;
  }
  return cur;
}

std::optional<int64_t> Tape::fold_scalar(const NodeRef& e, int depth, const FoldEnv* env) const {
  if (!e || depth > 64) return std::nullopt;
  switch (e->kind) {
    case Kind::IntLit:
    case Kind::BoolLit: return e->ival;
    case Kind::Name:
    case Kind::Path: {
      // Inside a function being evaluated only its folded parameters and locals are known (a
      // specialisation's facts would belong to some other call of it).
      if (env) {
        if (auto it = env->ints.find(e->def); it != env->ints.end()) return it->second;
        return std::nullopt;
      }
      if (const NodeRef* v = renamed_value(visible_, e)) {
        // Only integer and boolean values decide branches: a float literal is never folded.
        TypeRef t = facts_.type(*v);
        if (ir::rank_of(t) == 0 && !facts_.float_dtype(*v)) return fold_scalar(*v, depth + 1, env);
        return std::nullopt;
      }
      return facts_.fold(e);
    }
    case Kind::Unary: {
      auto v = fold_scalar(ir::unary_operand(*e), depth + 1, env);
      if (!v) return std::nullopt;
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Not) return *v == 0 ? 1 : 0;
      if (*v == INT64_MIN) return std::nullopt;
      return -*v;
    }
    case Kind::Binary: {
      auto op = static_cast<ir::BinOp>(e->ival);
      const NodeRef &lhs = ir::bin_lhs(*e), &rhs = ir::bin_rhs(*e);
      auto a = fold_scalar(lhs, depth + 1, env);
      // `&&` and `||` decide on their left side alone, as the primal's evaluation does.
      if (op == ir::BinOp::And && a && *a == 0) return 0;
      if (op == ir::BinOp::Or && a && *a != 0) return 1;
      if ((op == ir::BinOp::Eq || op == ir::BinOp::Ne) && !env)
        if (auto same = same_shape(lhs, rhs)) return op == ir::BinOp::Eq ? *same : !*same;
      // Mode names (`direction == "forward"`) compare by their text.
      if (op == ir::BinOp::Eq || op == ir::BinOp::Ne)
        if (auto x = fold_str(lhs, depth + 1, env)) {
          auto y = fold_str(rhs, depth + 1, env);
          if (!y) return std::nullopt;
          return (*x == *y) == (op == ir::BinOp::Eq);
        }
      // A comparison of floats (`sc[a] == 1.0`): both sides folded exactly.
      if (!env && ir::rank_of(facts_.type(lhs)) == 0 && facts_.float_dtype(lhs) && facts_.float_dtype(rhs)) {
        auto x = fold_real(lhs, depth + 1), y = fold_real(rhs, depth + 1);
        if (!x || !y) return std::nullopt;
        return compare(op, *x, *y);
      }
      auto b = fold_scalar(rhs, depth + 1, env);
      if (!a || !b) {
        // A flag compared as a float (`(t as f64) != 0.0` of `true` or `1`): whole numbers.
        auto x = whole(lhs, depth + 1, env), y = whole(rhs, depth + 1, env);
        if (x && y) return compare(op, *x, *y);
        return std::nullopt;
      }
      if (auto c = compare(op, *a, *b)) return c;
      switch (op) {
        case ir::BinOp::And: return *a != 0 && *b != 0;
        case ir::BinOp::Or: return *a != 0 || *b != 0;
        case ir::BinOp::Add: return irb::add_exact(*a, *b);
        case ir::BinOp::Sub: return irb::sub_exact(*a, *b);
        case ir::BinOp::Mul: return irb::mul_exact(*a, *b);
        default: return std::nullopt;  // division rounding and overflow stay the primal's
      }
    }
    case Kind::Block: {
      // A function body evaluated for its integer result (`fn MAXP() { 0 }`, `norm_axis`):
      // scalar integer and string lets are bound, other statements (`__check`) are the primal's
      // to run.
      if (!e->has(ir::kHasTail)) return std::nullopt;
      FoldEnv local = env ? *env : FoldEnv{};
      ir::Kids stmts = ir::block_stmts(*e);
      for (size_t i = 0; i + 1 < stmts.size(); ++i) {
        const NodeRef& st = stmts[i];
        if (!st || st->kind != Kind::Let || ir::let_pattern(*st)->kind != Kind::PBind) continue;
        DefId d = ir::let_pattern(*st)->def;
        if (auto v = fold_scalar(ir::let_value(*st), depth + 1, &local)) local.ints[d] = *v;
        else if (auto t = fold_str(ir::let_value(*st), depth + 1, &local)) local.strs[d] = *t;
      }
      // A branch without bindings (`{ len(W) }`) stays in the enclosing context, where the
      // inlined body's lets and the shape facts are known.
      bool none = !env && local.ints.empty() && local.strs.empty();
      return fold_scalar(ir::tail_expr(*e), depth + 1, none ? nullptr : &local);
    }
    case Kind::If: {
      auto c = fold_scalar(ir::if_cond(*e), depth + 1, env);
      if (!c) return std::nullopt;
      return fold_scalar(*c ? ir::if_then(*e) : ir::if_else(*e), depth + 1, env);
    }
    case Kind::IMin:
    case Kind::IMax: {  // an inlined declaration's range (`o in 0..min(dim(W), dim(b))`)
      auto a = fold_scalar(e->kids[0], depth + 1, env), b = fold_scalar(e->kids[1], depth + 1, env);
      if (!a || !b) return std::nullopt;
      return e->kind == Kind::IMin ? std::min(*a, *b) : std::max(*a, *b);
    }
    case Kind::DimOf:
      if (env || !ir::dimof_tensor(*e)) return std::nullopt;
      return fold_extent(ir::dimof_tensor(*e), static_cast<int>(e->ival));
    case Kind::Cast: {
      // Integer casts that keep the value (`axes[k] as i32` of an axis list); a float cast to an
      // integer truncates toward zero (`__floor(n as f64 * s) as i32`, an output extent).
      const NodeRef& to = ir::cast_type(*e);
      std::optional<int64_t> v;
      if (facts_.float_dtype(ir::cast_expr(*e))) {
        if (env) return std::nullopt;
        auto r = fold_real(ir::cast_expr(*e), depth + 1);
        if (r && std::isfinite(*r) && std::fabs(*r) < 9.0e15) v = static_cast<int64_t>(std::trunc(*r));
      } else {
        v = fold_scalar(ir::cast_expr(*e), depth + 1, env);
      }
      if (!v || to->kind != Kind::TyPrim) return std::nullopt;
      auto dt = dtype_from_name(to->name);
      if (dt == DType::I64) return v;
      if (dt == DType::I32 && *v >= INT32_MIN && *v <= INT32_MAX) return v;
      return std::nullopt;
    }
    case Kind::Index: {
      if (env || facts_.float_dtype(e)) return std::nullopt;
      // `shape(x)[k]`: an extent.
      if (ir::index_args_count(*e) == 1)
        if (NodeRef x = shape_call_arg(ir::index_base(*e))) {
          auto k = fold_scalar(ir::index_args(*e)[0], depth + 1, nullptr);
          int r = ir::rank_of(facts_.type(x));
          if (!k || *k < 0 || *k >= r) return std::nullopt;
          return fold_extent(x, static_cast<int>(*k));
        }
      NodeRef v = element_expr(e, depth);
      return v ? fold_scalar(v, depth + 1, nullptr) : std::nullopt;
    }
    case Kind::Call: {
      const NodeRef& callee = ir::call_callee(*e);
      ir::Kids call_args = ir::call_args(*e);
      auto b = builtin_of(callee->def);
      if (b && *b == Builtin::Len && call_args.size() == 1 && !env) {
        const NodeRef& arg = call_args[0];
        // len(shape(x)) is x's rank, which its type states.
        if (NodeRef x = shape_call_arg(arg)) {
          int r = ir::rank_of(facts_.type(x));
          if (r < 0) r = ir::rank_of(facts_.type(through_renames(x)));
          if (r >= 0) return r;
          return std::nullopt;
        }
        return fold_extent(arg, 0);
      }
      if (b) return std::nullopt;
      // A call of a function whose arguments fold, evaluated on them (`fn MAXP() { 0 }`,
      // `norm_axis(axis, len(shape(X)))`).
      TypeRef ct = facts_.type(callee);
      NodeRef fn = ct && ct->k == ir::Type::K::FnItem ? cx_.resolver.info(ct->def).node
                                                       : cx_.resolver.info(callee->def).node;
      if (!fn || fn->kind != Kind::Fn || ir::fn_params_count(*fn) != call_args.size()) return std::nullopt;
      FoldEnv args;
      for (size_t i = 0; i < call_args.size(); ++i) {
        DefId p = ir::fn_params(*fn)[i]->def;
        if (auto v = fold_scalar(call_args[i], depth + 1, env)) args.ints[p] = *v;
        else if (auto t = fold_str(call_args[i], depth + 1, env)) args.strs[p] = *t;
        else return std::nullopt;
      }
      return fold_scalar(ir::fn_body(*fn), depth + 1, &args);
    }
    default: return std::nullopt;
  }
}

// An integer or boolean converted to a float (`t as f64`) or a float literal with a whole
// value: that whole number (within 2^53, where the conversion is exact).
std::optional<int64_t> Tape::whole(const NodeRef& e, int depth, const FoldEnv* env) const {
  if (!e || depth > 64) return std::nullopt;
  std::optional<int64_t> v;
  if (e->kind == Kind::FloatLit && std::fabs(e->fval) < 9.0e15 && e->fval == std::trunc(e->fval))
    v = static_cast<int64_t>(e->fval);
  else if (e->kind == Kind::Cast && facts_.float_dtype(e) && !facts_.float_dtype(ir::cast_expr(*e)))
    v = fold_scalar(ir::cast_expr(*e), depth + 1, env);
  if (!v || *v > (int64_t{1} << 53) || *v < -(int64_t{1} << 53)) return std::nullopt;
  return v;
}

// A string known at compile time: a literal, a string parameter of a function being folded, or
// a name the inlined body binds to one (`let direction' = "forward";`).
std::optional<std::string> Tape::fold_str(const NodeRef& e, int depth, const FoldEnv* env) const {
  if (!e || depth > 64) return std::nullopt;
  if (e->kind == Kind::StrLit) return e->name;
  if (e->kind != Kind::Name && e->kind != Kind::Path) return std::nullopt;
  if (env) {
    if (auto it = env->strs.find(e->def); it != env->strs.end()) return it->second;
    return std::nullopt;
  }
  if (const NodeRef* v = renamed_value(visible_, e)) return fold_str(*v, depth + 1, nullptr);
  return std::nullopt;
}

// `a[k]` of an array an inlined body binds, as an expression to fold: the element of a literal
// (`axes` given as `[0, 2, 3]`) or, for a declaration over plain indices (`ax[k in 0..len(axes)]
// = norm_axis(..)`), a copy of its value with the indices substituted, at a folded point inside
// the extent. Library functions that take an axis list or scales dispatch on their elements.
NodeRef Tape::element_expr(const NodeRef& e, int depth) const {
  NodeRef base = through_renames(ir::index_base(*e));
  ir::Kids idx = ir::index_args(*e);
  if (base->kind != Kind::Name && base->kind != Kind::Path) return nullptr;
  // A condition on the value being differentiated is the primal's to decide at run time
  // (tests/golden/autodiff/ad_runtime_branch_arrays_e013.ein), even when its literal is in view.
  if (wrts_.count(base->def) || wrts_.count(ir::index_base(*e)->def)) return nullptr;
  if (ir::rank_of(facts_.def_type(base->def)) != static_cast<int>(idx.size())) return nullptr;
  std::vector<int64_t> at;
  for (size_t i = 0; i < idx.size(); ++i) {
    auto k = fold_scalar(idx[i], depth + 1, nullptr);
    auto n = fold_extent(base, static_cast<int>(i));
    if (!k || !n || *k < 0 || *k >= *n) return nullptr;
    at.push_back(*k);
  }
  auto it = visible_.find(base->def);
  if (it == visible_.end()) return nullptr;
  const NodeRef& st = it->second;
  if (st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind) {
    NodeRef v = ir::let_value(*st);
    for (int64_t k : at) {
      if (v->kind != Kind::ArrayLit || k >= static_cast<int64_t>(ir::array_elems_count(v))) return nullptr;
      v = ir::array_elems(v)[static_cast<size_t>(k)];
    }
    return v;
  }
  if (st->kind != Kind::EinGroup || ir::group_clauses_count(st) != 1) return nullptr;
  const NodeRef& c = ir::group_clauses(st)[0];  // the declaration's only clause
  ir::Kids slots = ir::ein_slots(c);
  if (slots.size() != at.size()) return nullptr;
  Copier cp(cx_, facts_);
  for (size_t a = 0; a < at.size(); ++a) {
    const NodeRef& s = slots[a];
    if (s->kind != Kind::IdxIn && s->kind != Kind::IdxVar) return nullptr;
    cp.subst[s->def] = ir::make_int(at[a]);
  }
  return cp.copy(ir::ein_value(*c));
}

// A float expression folded exactly as the primal computes it (each operation rounded to the
// expression's float type; only + - * /, floor and ceil, casts and literals), so that a branch
// on it (`sc[a] == 1.0`) or an extent from it (`__floor(n as f64 * sc[a]) as i32`) is decided
// as at run time.
std::optional<double> Tape::fold_real(const NodeRef& e, int depth) const {
  if (!e || depth > 64) return std::nullopt;
  auto dt = facts_.float_dtype(e);
  auto round = [&](double v) -> std::optional<double> {
    if (!dt) return std::nullopt;
    if (*dt == DType::F64) return v;
    if (*dt == DType::F32) return static_cast<double>(static_cast<float>(v));
    return std::nullopt;  // f16 / bf16: not folded
  };
  switch (e->kind) {
    case Kind::FloatLit:
      // A literal whose width no analysis recorded (an element of a literal argument) is
      // folded only when it is exact in every float type it could have.
      if (!dt) return static_cast<double>(static_cast<float>(e->fval)) == e->fval ? std::optional<double>(e->fval) : std::nullopt;
      return round(e->fval);
    case Kind::Name:
    case Kind::Path:
      if (const NodeRef* v = renamed_value(visible_, e); v && ir::rank_of(facts_.type(*v)) == 0)
        return fold_real(*v, depth + 1);
      return std::nullopt;
    case Kind::Cast: {
      if (!dt) return std::nullopt;
      const NodeRef& x = ir::cast_expr(*e);
      if (facts_.float_dtype(x)) {
        auto v = fold_real(x, depth + 1);
        return v ? round(*v) : std::nullopt;
      }
      auto v = fold_scalar(x, depth + 1, nullptr);
      if (!v || *v > (int64_t{1} << 53) || *v < -(int64_t{1} << 53)) return std::nullopt;
      return round(static_cast<double>(*v));
    }
    case Kind::Unary: {
      if (static_cast<ir::UnOp>(e->ival) != ir::UnOp::Neg) return std::nullopt;
      auto v = fold_real(ir::unary_operand(*e), depth + 1);
      return v ? std::optional<double>(-*v) : std::nullopt;
    }
    case Kind::Binary: {
      auto a = fold_real(ir::bin_lhs(*e), depth + 1), b = fold_real(ir::bin_rhs(*e), depth + 1);
      if (!a || !b) return std::nullopt;
      switch (static_cast<ir::BinOp>(e->ival)) {
        case ir::BinOp::Add: return round(*a + *b);
        case ir::BinOp::Sub: return round(*a - *b);
        case ir::BinOp::Mul: return round(*a * *b);
        case ir::BinOp::Div: return *b == 0.0 ? std::nullopt : round(*a / *b);
        default: return std::nullopt;
      }
    }
    case Kind::If: {
      auto c = fold_scalar(ir::if_cond(*e), depth + 1, nullptr);
      if (!c) return std::nullopt;
      return fold_real(*c ? ir::if_then(*e) : ir::if_else(*e), depth + 1);
    }
    case Kind::Index: return fold_real(element_expr(e, depth), depth + 1);
    case Kind::Block:  // `{ scales[a] as f64 }`, a branch without statements
      if (!e->has(ir::kHasTail) || ir::block_stmts_count(*e) != 1) return std::nullopt;
      return fold_real(ir::tail_expr(*e), depth + 1);
    case Kind::Call: {
      auto b = builtin_of(ir::call_callee(*e)->def);
      if (!b || (*b != Builtin::Floor && *b != Builtin::Ceil) || ir::call_args_count(*e) != 1) return std::nullopt;
      auto v = fold_real(ir::call_args(*e)[0], depth + 1);
      if (!v) return std::nullopt;
      return *b == Builtin::Floor ? std::floor(*v) : std::ceil(*v);
    }
    default: return std::nullopt;
  }
}

// `shape(a) == shape(b)` (the library's test for operands that need no broadcasting), decided
// when both ranks and every extent are known at compile time.
std::optional<bool> Tape::same_shape(const NodeRef& l, const NodeRef& r) const {
  NodeRef a = shape_call_arg(l), b = shape_call_arg(r);

  if (!a || !b) return std::nullopt;
  int ra = ir::rank_of(facts_.type(a)), rb = ir::rank_of(facts_.type(b));
  if (ra < 0 || rb < 0) return std::nullopt;
  if (ra != rb) return false;
  for (int k = 0; k < ra; ++k) {
    auto ea = fold_extent(a, k), eb = fold_extent(b, k);
    if (!ea || !eb) return std::nullopt;
    if (*ea != *eb) return false;
  }
  return true;
}

// `if c { A } else { B }` whose c folds: the branch taken (a block or an expression; a missing
// else is the unit value, which no array-valued body has). nullptr when c does not fold.
NodeRef Tape::taken_branch(const NodeRef& e) const {
  if (!e || e->kind != Kind::If) return nullptr;
  auto c = fold_scalar(ir::if_cond(*e), 0, nullptr);
  if (!c) return nullptr;
  if (*c != 0) return ir::if_then(*e);
  return ir::if_else(*e);
}

// `if c { A } else { B }` whose c does not fold, met while branching: the arm this tape
// assumes, c bound on the tape (`let branch = c;`) where the branch stands, so that the sweep
// can test it. Each arm is then differentiated like a branch that folded (its statements on the
// tape, its calls inlined); the conditions of array-valued branches are shapes, flags and mode
// numbers, constant for the derivative. A condition that reads the point of an enclosing clause
// (a per-point argument) cannot stand before the sweep: no decision, as without branching.
NodeRef Tape::branch_taken(const NodeRef& e) {
  if (NodeRef br = taken_branch(e)) return br;
  if (!branching_ || !e || e->kind != Kind::If || !ir::if_else(*e)) return nullptr;
  const NodeRef& c = ir::if_cond(*e);
  bool per_point = false;
  ir::for_each_node(c, [&](const NodeRef& n) {
    per_point = per_point || ((n->kind == Kind::Name || n->kind == Kind::Path) && bound_.count(n->def));
  });
  if (per_point) return nullptr;
  bool other = decisions_.size() < arms_.size() && arms_[decisions_.size()];
  DefId d = cx_.resolver.new_def("branch", DefKind::Local, c->span);
  facts_.note_def_type(d, ir::t_bool());
  NodeRef let = let_typed("branch", d, c, ir::t_bool());
  if (within_) stmt_within_[let->id] = within_;
  emits_.push_back(let);
  decisions_.push_back(d);
  return other ? ir::if_else(*e) : ir::if_then(*e);
}

}  // namespace ein::ad
