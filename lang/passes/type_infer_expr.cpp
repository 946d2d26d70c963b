// Type rules for expressions (SPEC §3-§5).
#include "lang/ir/member_field.h"
#include "lang/ir/reduce_op.h"
#include "lang/passes/type_infer_impl.h"

namespace ein {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

bool Infer::expect(const TypeRef& want, const TypeRef& got, Span at, const std::string& what) {
  if (ts.unify(want, got)) return true;
  err("E002", "mismatched types: " + what + " must be `" + show(want) + "`, found `" + show(got) + "`",
      at, "expected `" + show(want) + "`");
  return false;
}

TypeRef Infer::expr(const NodeRef& e) {
  if (!e) return ir::t_unit();
  TypeRef t = set(e, expr_inner(e));
  // (A literal's open type counts: `if t == 0 { 100 } else { max(v[0], s[t - 1]) }` is an i32
  // recurrence, not an f32 self-read against an integer base.)
  if (pending_elem_ && pending_tails_.count(e->id) &&
      (resolved(t)->k == Type::K::Scalar || ts.is_intish(t) || ts.is_floatish(t)))
    (void)ts.unify(pending_elem_, t);  // a mismatch is reported where the clause is unified
  return t;
}

TypeRef Infer::expr_inner(const NodeRef& e) {
  switch (e->kind) {
    case Kind::IntLit: return ts.fresh(ir::VarKind::Int);
    case Kind::FloatLit: return ts.fresh(ir::VarKind::Float);
    case Kind::BoolLit: return ir::t_bool();
    case Kind::StrLit: return ir::t_str();
    case Kind::Interp:
      for (auto& part : e->kids)
        if (part->kind == Kind::InterpHole) set(part, expr(ir::hole_expr(part)));
      return ir::t_str();
    case Kind::Name:
    case Kind::Path: return def_type(e->def, e->span);
    case Kind::ArrayLit: return array_lit(e);
    case Kind::TupleLit: {
      std::vector<TypeRef> es;
      for (auto& k : e->kids) es.push_back(expr(k));
      return ir::t_tuple(std::move(es));
    }
    case Kind::RangeLit: {
      TypeRef lo = expr(ir::range_lo(e)), hi = expr(ir::range_hi(e));
      if (!ts.is_intish(lo) && resolved(lo)->k != Type::K::Unknown)
        err("E002", "range bounds must be integers, found `" + show(lo) + "`", ir::range_lo(e)->span);
      if (!ts.unify(lo, hi))
        err("E002", "range bounds have different types: `" + show(lo) + "` and `" + show(hi) + "`",
            e->span);
      else if (ts.is_floatish(hi) || (resolved(hi)->k == Type::K::Scalar && !is_int(resolved(hi)->dtype)))
        // `0..n` with a float n: the literal start took n's type (`0..2.5` over a float n ran
        // as if truncated to 0..2, exit 0).
        err("E002", "range bounds must be integers, found `" + show(hi) + "`", ir::range_hi(e)->span);
      ts.require_int(lo);
      return ir::t_range(lo);
    }
    case Kind::Unary: {
      TypeRef t = expr(ir::unary_operand(e));
      TypeRef el = resolved(ir::elem_of(resolved(t)));
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Not) {
        if (!ts.unify(t, ir::t_bool()))
          err("E002", "`!` needs a bool, found `" + show(t) + "`", e->span);
        return ir::t_bool();
      }
      if (!ts.is_numeric(el))
        err("E002", "cannot negate a value of type `" + show(t) + "`", e->span);
      return t;
    }
    case Kind::Diff:
      // Requests are rewritten by the autodiff pass, which then re-runs inference.
      expr(ir::diff_expr(e));
      return ir::t_unknown();
    case Kind::DimOf:
      expr(ir::dimof_tensor(e));
      return ir::t_i32();
    case Kind::IMin:
    case Kind::IMax: {
      TypeRef a = expr(ir::iminmax_a(e)), b = expr(ir::iminmax_b(e));
      ts.unify(a, b);
      return a;
    }
    case Kind::Binary: {
      // `df / dx` of differentials bound in earlier cells (their values print as symbolic
      // strings): the autodiff pass rewrites it into the derivative (SPEC §7).
      auto earlier = [&](const NodeRef& k) {
        return k->kind == Kind::Name && cx.persist && cx.persist->differentials.count(k->def);
      };
      auto diff = [&](const NodeRef& k) { return k->kind == Kind::Diff || earlier(k); };
      if (static_cast<BinOp>(e->ival) == BinOp::Div && diff(ir::bin_lhs(e)) && diff(ir::bin_rhs(e)) &&
          (earlier(ir::bin_lhs(e)) || earlier(ir::bin_rhs(e)))) {
        expr(ir::bin_lhs(e));
        expr(ir::bin_rhs(e));
        return ir::t_unknown();
      }
      return binary(e);
    }
    case Kind::Cast: return cast(e);
    case Kind::Call: return call(e);
    case Kind::Index: return index(e);
    case Kind::Member: return member(e);
    case Kind::If: {
      expect(ir::t_bool(), expr(ir::if_cond(e)), ir::if_cond(e)->span, "an `if` condition");
      // A condition on ranks is constant in each specialisation: only the taken branch is
      // compiled (rank-generic code that peels an axis per call), like C++ `if constexpr`.
      // A condition without a rank test (`if true`, `!false && true`) stays code: both branches
      // are typed together and every index use in them counts for ranges (SPEC §4, §5.2);
      // static_bool decides rank tests only (it leaves `true` and `1 == 1` undecided).
      if (auto taken = static_bool(ir::if_cond(e))) {
        u.static_ifs[e->id] = *taken;
        const NodeRef& branch = *taken ? ir::if_then(e) : ir::if_else(e);
        TypeRef bt = branch ? expr(branch) : ir::t_unit();
        return ir::if_else(e) ? bt : ir::t_unit();
      }
      if (!ir::if_else(e)) {
        (void)expr(ir::if_then(e));
        return ir::t_unit();  // without `else` an `if` is unit (SPEC §4)
      }
      // The branch without the recurrence's self-read first: it fixes the element type.
      TypeRef a, b;
      if (reads_pending(ir::if_then(e)) && !reads_pending(ir::if_else(e))) {
        b = expr(ir::if_else(e));
        a = expr(ir::if_then(e));
      } else {
        a = expr(ir::if_then(e));
        b = expr(ir::if_else(e));
      }
      if (!ts.unify(a, b)) {
        err("E002", "`if` and `else` have incompatible types: `" + show(a) + "` and `" + show(b) + "`",
            ir::if_else(e)->span, "this is `" + show(b) + "`");
      }
      return join_runtime(a, b);
    }
    case Kind::Block: return block(e);
    case Kind::Match: return match(e);
    case Kind::Lambda: return ir::t_lambda(e, &u);
    case Kind::Comp: return comp(e);
    case Kind::Reduce: return reduce(e);
    case Kind::Where: return where(e);
    default: return ir::t_unknown();
  }
}

// A literal beside a value typed only at run time takes that value's type when it runs
// (engine/interp/eval.cpp), and so does the other branch of an `if`: typing the result as the
// literal's default narrowed f64 data to f32 and i64 to i32 without a word.
TypeRef Infer::join_runtime(const TypeRef& a, const TypeRef& b) {
  const TypeRef ra = resolved(a), rb = resolved(b);
  if (ra->k != Type::K::Unknown && rb->k != Type::K::Unknown) return a;
  const TypeRef& other = ra->k == Type::K::Unknown ? b : a;
  const Type::K ko = resolved(other)->k;
  return ko == Type::K::Var || ko == Type::K::Unknown ? ir::t_unknown() : other;
}

// `x as T` converts numbers and bools; `a as [T]` / `a as [T; 2, ?]` / `a as [T; *]` converts
// every element of an array (SPEC §3). `[T]` in a cast keeps the rank; listed extents assert the
// shape (shape analysis at compile time, the interpreter at run time) and give the value a static
// type. The operand is not typed by the cast: `0.1 as f64` is the f32 0.1 widened
// (docs/language.md), as tests/differential's reference computes it.
namespace {

// Built only from number literals (`-1.2`, `[0.5, 1.0 / 3.0]`): its literals' types are its own.
bool literal_only(const NodeRef& e) {
  if (!e) return false;
  switch (e->kind) {
    case Kind::IntLit: case Kind::FloatLit: return true;
    case Kind::Unary: case Kind::Binary: case Kind::ArrayLit:
      for (const NodeRef& k : e->kids)
        if (!literal_only(k)) return false;
      return !e->kids.empty();
    default: return false;
  }
}

}  // namespace

// `as` is a typing context for an operand built only from literals (SPEC §3, literals typed by
// context): `-1.2 as f64` is the f64 -1.2, not the f32 nearest to it widened
// (-1.2000000476837158); `[0.1, 0.2] as [f64]` likewise; `5000000000 as i64` is an i64 literal.
// A float literal cast to an integer type is read as f64 before truncating. Operands that name
// bindings keep their own types.
void Infer::type_cast_literals(const NodeRef& operand, const TypeRef& st, const TypeRef& target_elem) {
  if (!literal_only(operand) || !target_elem || target_elem->k != Type::K::Scalar) return;
  TypeRef r = resolved(st);
  TypeRef el = r->k == Type::K::Array ? resolved(r->elem) : r;
  if (el->k != Type::K::Var) return;
  // Only widening: a narrower target (`0.1 as f16`, `-129 as i8`) converts the default-typed
  // value as before (rounding once more, or wrapping as SPEC §3 says).
  const DType d = target_elem->dtype;
  if (el->var_kind == ir::VarKind::Float && (d == DType::F64 || is_int(d))) ts.unify(el, ir::t_scalar(DType::F64));
  else if (el->var_kind == ir::VarKind::Int && d == DType::I64) ts.unify(el, target_elem);
}

TypeRef Infer::cast(const NodeRef& e) {
  TypeRef st = expr(ir::cast_expr(e));
  const NodeRef& ty = ir::cast_type(e);
  type_cast_literals(ir::cast_expr(e), st,
                     type_from_annotation(ty->kind == Kind::TyArray ? ir::tyarray_elem(ty) : ty, cx));
  TypeRef rs = resolved(st);
  if (ty->kind == Kind::TyArray) {
    TypeRef elem = type_from_annotation(ir::tyarray_elem(ty), cx);
    if (!ir::is_scalar(elem)) {
      if (elem->k != Type::K::Unknown)
        err("E002", "`as` converts arrays of numbers or bools, not to `" + show(elem) + "`",
            ir::tyarray_elem(ty)->span, "not a number type");
      return ir::t_unknown();
    }
    int want = ty->has(ir::kAnyRank) || ty->kids.size() == 1 ? -1 : static_cast<int>(ty->kids.size()) - 1;
    if (rs->k == Type::K::Unknown) return ir::t_array(elem, want);
    if (rs->k != Type::K::Array) {
      err("E002", "cannot cast `" + show(st) + "` to an array type", e->span,
          "this is `" + show(st) + "`",
          rs->k == Type::K::List ? "a jagged array has rows of different lengths; convert each row"
                                 : "to convert a number write `x as " + show(elem) + "`");
      return ir::t_unknown();
    }
    if (!ts.is_numeric(rs->elem) && !ts.unify(rs->elem, ir::t_bool())) {
      err("E002", "cannot cast `" + show(st) + "` to `" + show(elem) + "` elements", e->span);
      return ir::t_unknown();
    }
    if (want >= 0 && rs->rank >= 0 && want != rs->rank) {
      err("E004", "rank mismatch: `as` asks for rank " + std::to_string(want) + ", the value has rank " +
                      std::to_string(rs->rank),
          e->span, "this value is `" + show(st) + "`",
          "write `as [" + show(elem) + "]` to convert the elements and keep the rank");
      return ir::t_unknown();
    }
    return ir::t_array(elem, want >= 0 ? want : rs->rank);
  }
  TypeRef target = type_from_annotation(ty, cx);
  if (!ir::is_scalar(target)) {
    if (target->k != Type::K::Unknown)
      err("E002", "`as` converts to a number or bool type, or to an array of them (`as [f32]`)",
          ty->span, "not a number type");
    return ir::t_unknown();
  }
  if (rs->k == Type::K::Array) {
    return ir::t_array(target, rs->rank);
  }
  if (rs->k == Type::K::Scalar || rs->k == Type::K::Var || rs->k == Type::K::Unknown) {
    return target;
  }
  err("E002", "cannot cast `" + show(st) + "` to `" + show(target) + "`", e->span);
  return target;
}

std::optional<int64_t> Infer::static_int(const NodeRef& e) {
  if (!e) return std::nullopt;
  if (e->kind == Kind::IntLit) return e->ival;
  auto rank = [&](const NodeRef& x) -> std::optional<int64_t> {
    TypeRef t = resolved(u.type(x));
    if (t->k == Type::K::Var && t->var_kind != ir::VarKind::Any) return 0;  // a literal scalar
    int r = ir::rank_of(t);
    if (r < 0 || !(t->k == Type::K::Array || t->k == Type::K::Scalar)) return std::nullopt;
    return r;
  };
  auto is_builtin = [&](const NodeRef& c, Builtin b) {
    return c->kind == Kind::Call && ir::call_args_count(c) == 1 && ir::call_callee(c)->def == builtin_def(b);
  };
  // len(shape(x)), len(x.shape), x.rank
  if (is_builtin(e, Builtin::Len)) {
    const NodeRef& a = ir::call_args(e)[0];
    if (is_builtin(a, Builtin::Shape)) return rank(ir::call_args(a)[0]);
    if (a->kind == Kind::Member && ir::member_field(a) == ir::MemberField::Shape) return rank(ir::member_base(a));
  }
  if (e->kind == Kind::Member && ir::member_field(e) == ir::MemberField::Rank) return rank(ir::member_base(e));
  return std::nullopt;
}

std::optional<bool> Infer::static_bool(const NodeRef& e) {
  // Only conditions on ranks are decided here: they are what a specialisation fixes and what
  // rank-generic code needs (the untaken branch may not type). A literal `true`/`false` alone
  // is ordinary code: both branches are typed and give the `if` one type (SPEC §4), so
  // `if false { x_f64 } else { 0.1 }` is an f64.
  if (!e) return std::nullopt;
  // `__is_int(x)`, `__is_bool(x)` (std only): decided from x's element type like a rank test,
  // so a library function keeps integers on an integer path (round of ints is the ints, as
  // np.round) and bools on a bool one (reduce_max of bools is `any`), and the float path, which
  // would not type, is never compiled for them. An integer literal counts as an integer, a
  // float literal as a float; an unconstrained or run-time type stays code.
  if (e->kind == Kind::Call && ir::call_args_count(e) == 1 &&
      (ir::call_callee(e)->def == builtin_def(Builtin::IsInt) || ir::call_callee(e)->def == builtin_def(Builtin::IsBool))) {
    bool want_int = ir::call_callee(e)->def == builtin_def(Builtin::IsInt);
    TypeRef t = resolved(u.type(ir::call_args(e)[0]));
    TypeRef el = t->k == Type::K::Array ? resolved(t->elem) : t;
    if (el && el->k == Type::K::Scalar) return want_int ? is_int(el->dtype) : el->dtype == DType::Bool;
    if (el && el->k == Type::K::Var && el->var_kind != ir::VarKind::Any)
      return want_int && el->var_kind != ir::VarKind::Float;
    return std::nullopt;
  }
  if (e->kind == Kind::Unary && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Not) {
    auto v = static_bool(ir::unary_operand(e));
    return v ? std::optional<bool>(!*v) : std::nullopt;
  }
  if (e->kind != Kind::Binary) return std::nullopt;
  auto op = static_cast<BinOp>(e->ival);
  if (op == BinOp::And || op == BinOp::Or) {
    auto lit = [](const NodeRef& k) {
      return k->kind == Kind::BoolLit ? std::optional<bool>(k->ival != 0) : std::nullopt;
    };
    auto a = static_bool(ir::bin_lhs(e)), b = static_bool(ir::bin_rhs(e));
    if (!a && !b) return std::nullopt;  // at least one side is a rank test
    if (!a) a = lit(ir::bin_lhs(e));
    if (!b) b = lit(ir::bin_rhs(e));
    if (a && b) return op == BinOp::And ? (*a && *b) : (*a || *b);
    return std::nullopt;
  }
  auto a = static_int(ir::bin_lhs(e)), b = static_int(ir::bin_rhs(e));
  if (!a || !b) return std::nullopt;
  if (ir::bin_lhs(e)->kind == Kind::IntLit && ir::bin_rhs(e)->kind == Kind::IntLit)
    return std::nullopt;  // only rank tests are decided statically; `1 == 1` stays code
  switch (op) {
    case BinOp::Eq: return *a == *b;
    case BinOp::Ne: return *a != *b;
    case BinOp::Lt: return *a < *b;
    case BinOp::Le: return *a <= *b;
    case BinOp::Gt: return *a > *b;
    case BinOp::Ge: return *a >= *b;
    default: return std::nullopt;
  }
}

TypeRef Infer::array_lit(const NodeRef& e) {
  if (e->kids.empty()) return ir::t_array(ts.fresh(ir::VarKind::Any), 1);
  std::vector<TypeRef> ts_;
  for (auto& k : e->kids) ts_.push_back(expr(k));
  TypeRef first = resolved(ts_[0]);
  for (size_t i = 1; i < ts_.size(); ++i) {
    if (!ts.unify(ts_[0], ts_[i])) {
      TypeRef a = resolved(ts_[0]), b = resolved(ts_[i]);
      bool rank_issue = (a->k == Type::K::Array) != (b->k == Type::K::Array) ||
                        (a->k == Type::K::Array && a->rank != b->rank);
      err(rank_issue ? "E004" : "E002",
          rank_issue ? "array literal is not rectangular: elements have different ranks"
                     : "array elements have different types: `" + show(ts_[0]) + "` and `" +
                           show(ts_[i]) + "`",
          ir::array_elems(e)[i]->span, "this is `" + show(ts_[i]) + "`");
      return ir::t_unknown();
    }
  }
  first = resolved(ts_[0]);
  if (first->k == Type::K::Array) return ir::t_array(first->elem, first->rank < 0 ? -1 : first->rank + 1);
  if (first->k == Type::K::Scalar || first->k == Type::K::Var) return ir::t_array(first, 1);
  if (first->k == Type::K::Unknown) return ir::t_unknown();
  return ir::t_list(first);
}

TypeRef Infer::binary(const NodeRef& e) {
  auto op = static_cast<BinOp>(e->ival);
  TypeRef a = expr(ir::bin_lhs(e)), b = expr(ir::bin_rhs(e));
  TypeRef ra = resolved(a), rb = resolved(b);
  const char* sp = ir::binop_spelling(op);
  auto unknown = [&] { return ra->k == Type::K::Unknown || rb->k == Type::K::Unknown; };
  if (e->has(ir::kUnaryPlus) && ra->k != Type::K::Unknown && !ts.is_numeric(ir::elem_of(ra))) {
    err("E002", "unary `+` needs a number, found `" + show(a) + "`", e->span, "not a number");
    return ir::t_unknown();
  }
  switch (op) {
    case BinOp::And:
    case BinOp::Or:
      expect(ir::t_bool(), a, ir::bin_lhs(e)->span, std::string("the left side of `") + sp + "`");
      expect(ir::t_bool(), b, ir::bin_rhs(e)->span, std::string("the right side of `") + sp + "`");
      return ir::t_bool();
    case BinOp::Eq:
    case BinOp::Ne:
      if (!ts.unify(a, b))
        err("E002", "cannot compare `" + show(a) + "` with `" + show(b) + "`", e->span,
            "mismatched types");
      return ir::t_bool();
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge:
      if (ra->k == Type::K::Array || rb->k == Type::K::Array) {
        err("E002", std::string("`") + sp + "` compares scalars, not arrays", e->span,
            "array operand", "for an elementwise mask write indices: `let m[i] = a[i] " +
                                 std::string(sp) + " b[i];`");
      } else if (!ts.unify(a, b)) {
        err("E002", "cannot compare `" + show(a) + "` with `" + show(b) + "`", e->span,
            "mismatched types", "convert one side with `as`");
      } else if (!unknown() && !ts.is_numeric(a) && resolved(a)->k != Type::K::Str) {
        err("E002", std::string("`") + sp + "` is not defined for `" + show(a) + "`", e->span);
      }
      return ir::t_bool();
    case BinOp::In: {
      if (rb->k == Type::K::Range) {
        if (!ts.unify(a, rb->elem)) err("E002", "`in` a range needs an integer, found `" + show(a) + "`", ir::bin_lhs(e)->span);
      } else if (rb->k == Type::K::Array) {
        TypeRef want = rb->rank == 1 ? rb->elem : ir::t_array(rb->elem, rb->rank - 1);
        if (rb->rank >= 1 && !ts.unify(a, want))
          err("E002", "`in` needs a `" + show(want) + "` for this array, found `" + show(a) + "`",
              ir::bin_lhs(e)->span);
      } else if (rb->k == Type::K::List) {
        ts.unify(a, rb->elem);
      } else if (rb->k == Type::K::Str) {
        if (!ts.unify(a, ir::t_str()))
          err("E002", "`in` a string needs a string, found `" + show(a) + "`", ir::bin_lhs(e)->span);
      } else if (rb->k != Type::K::Unknown) {
        err("E002", "`in` needs a range or an array on the right, found `" + show(b) + "`",
            ir::bin_rhs(e)->span);
      }
      return ir::t_bool();
    }
    case BinOp::Pow: {
      TypeRef ea = ir::elem_of(ra), eb = ir::elem_of(rb);
      if (!ts.is_numeric(ea) && !unknown()) {
        err("E002", "`**` needs a number, found `" + show(a) + "`", ir::bin_lhs(e)->span);
        return a;
      }
      if (rb->k == Type::K::Array && ra->k != Type::K::Array) {
        err("E004", "`**` with an array exponent needs an array base of the same rank", e->span);
        return a;
      }
      if (ts.is_intish(eb)) return a;
      if (ts.is_floatish(eb)) {
        if (!ts.unify(ea, eb))
          err("E002", "`**` with a float exponent needs a float base of the same type, found `" +
                          show(ea) + " ** " + show(eb) + "`",
              e->span, "", "convert with `as`, e.g. `(n as f32) ** 0.5`");
        return a;
      }
      if (!unknown() && !ts.is_numeric(eb))
        err("E002", "`**` needs a numeric exponent, found `" + show(b) + "`", ir::bin_rhs(e)->span);
      return a;
    }
    default: break;
  }
  // Arithmetic: + - * / %
  if (ra->k == Type::K::Str || rb->k == Type::K::Str) {
    if (op == BinOp::Add && ts.unify(a, b)) return ir::t_str();
    err("E002", std::string("cannot apply `") + sp + "` to `" + show(a) + "` and `" + show(b) + "`",
        e->span, "", op == BinOp::Add ? "both sides must be strings to concatenate" : "");
    return ir::t_unknown();
  }
  if (unknown()) return join_runtime(a, b);
  bool A = ra->k == Type::K::Array, B = rb->k == Type::K::Array;
  TypeRef ea = A ? ra->elem : ra, eb = B ? rb->elem : rb;
  if (A && B && ra->rank >= 0 && rb->rank >= 0 && ra->rank != rb->rank) {
    err("E004", "cannot combine arrays of rank " + std::to_string(ra->rank) + " and rank " +
                    std::to_string(rb->rank) + " with `" + sp + "`",
        e->span, "rank " + std::to_string(ra->rank) + " vs rank " + std::to_string(rb->rank),
        "arrays broadcast only with scalars; write indices to say how the axes align, e.g. "
        "`let s[i, j] = M[i, j] + v[j];`");
    return ir::t_unknown();
  }
  bool ok_types = (ts.is_numeric(ea) || resolved(ea)->k == Type::K::Unknown) &&
                  (ts.is_numeric(eb) || resolved(eb)->k == Type::K::Unknown);
  if (!ok_types || !ts.unify(ea, eb)) {
    err("E002", "mismatched types: `" + show(a) + " " + sp + " " + show(b) + "`", e->span,
        "`" + show(a) + "` " + sp + " `" + show(b) + "`",
        ok_types ? "there is no implicit conversion; convert one side with `as`" : "");
    return ir::t_unknown();
  }
  if (A) return a;
  if (B) return b;
  return a;
}

TypeRef Infer::index(const NodeRef& e) {
  TypeRef bt = expr(ir::index_base(e));
  if (e->kids.size() == 1) return bt;  // a rest over zero axes, already expanded
  TypeRef rb = resolved(bt);
  int plain = 0;
  std::vector<NodeRef> rests;
  for (const NodeRef& k : ir::index_args(e)) {
    if (k->kind == Kind::RestIdx) {
      rests.push_back(k);
      continue;
    }
    ++plain;
    TypeRef it = expr(k);
    ts.require_int(it);
    if (!ts.is_intish(it) && resolved(it)->k != Type::K::Unknown) {
      if (ts.is_var(it) && !ts.is_floatish(it) && ts.unify(it, ts.fresh(ir::VarKind::IntOnly))) continue;
      err("E002", "array indices must be integers, found `" + show(it) + "`", k->span,
          resolved(it)->k == Type::K::Range ? "ranges cannot slice arrays" : "not an integer",
          resolved(it)->k == Type::K::Range ? "define a new tensor with an index instead" : "");
    }
  }
  if (rb->k == Type::K::Unknown) return ir::t_unknown();
  if ((rb->k == Type::K::Scalar || rb->k == Type::K::Var) && plain == 0 && rests.size() == 1) {
    // `x[..r]` on a scalar: the rest stands for zero axes (elementwise code on scalars).
    u.rest_len[rests[0]->def] = 0;
    return bt;
  }
  if (rb->k == Type::K::Str) {
    // s[i] is the i-th character (a one-character string), as in Python.
    if (plain != 1 || !rests.empty()) err("E004", "a string takes one index", e->span);
    return ir::t_str();
  }
  if (rb->k == Type::K::List) {
    if (plain != 1 || !rests.empty())
      err("E004", "jagged arrays take one index at a time: `a[i][j]`", e->span);
    return rb->elem;
  }
  if (rb->k != Type::K::Array) {
    std::string help = rb->k == Type::K::Tuple ? "use `.0`, `.1` to access tuple fields" : "";
    err("E002", "cannot index a value of type `" + show(bt) + "`", ir::index_base(e)->span,
        "not an array", help);
    return ir::t_unknown();
  }
  int count = plain;
  for (auto& r : rests) {
    auto it = u.rest_len.find(r->def);
    if (it == u.rest_len.end()) {
      if (rb->rank < 0 || rests.size() > 1) {
        err("E004", "cannot determine how many axes `.." + r->name + "` stands for", r->span,
            "rank unknown", "annotate the array's rank or index it explicitly");
        return ir::t_unknown();
      }
      int n = rb->rank - plain;
      if (n < 0) n = -1;
      u.rest_len[r->def] = n;
      it = u.rest_len.find(r->def);
    }
    if (it->second < 0) return ir::t_unknown();
    count += it->second;
  }
  if (rb->rank < 0) return ir::t_unknown();
  if (count > rb->rank) {
    err("E004", "too many indices: an array of rank " + std::to_string(rb->rank) + " indexed with " +
                    std::to_string(count),
        e->span, "rank " + std::to_string(rb->rank));
    return ir::t_unknown();
  }
  if (count == rb->rank) return rb->elem;
  return ir::t_array(rb->elem, rb->rank - count);
}

TypeRef Infer::member(const NodeRef& e) {
  TypeRef bt = expr(ir::member_base(e));
  TypeRef rb = resolved(bt);
  const std::string& f = e->name;
  if (rb->k == Type::K::Unknown) return ir::t_unknown();
  const ir::MemberField field = ir::member_field(e);
  if (field == ir::MemberField::Tuple) {
    if (rb->k == Type::K::Tuple) {
      auto i = static_cast<size_t>(e->ival);
      if (i < rb->elems.size()) return rb->elems[i];
      err("E002", "tuple `" + show(bt) + "` has no field " + f, e->span,
          "it has " + std::to_string(rb->elems.size()) + " fields");
      return ir::t_unknown();
    }
    err("E002", "`." + f + "` needs a tuple, found `" + show(bt) + "`", e->span);
    return ir::t_unknown();
  }
  bool arrayish = rb->k == Type::K::Array || rb->k == Type::K::List;
  if (field == ir::MemberField::Shape && arrayish) return ir::t_array(ir::t_i32(), 1);
  if ((field == ir::MemberField::Length || field == ir::MemberField::Size) && (arrayish || rb->k == Type::K::Str))
    return ir::t_i32();
  if (field == ir::MemberField::Rank && arrayish) return ir::t_i32();
  err("E002", "no field `" + f + "` on a value of type `" + show(bt) + "`", e->span, "unknown field",
      arrayish ? "arrays have .shape, .length, .size" : "");
  return ir::t_unknown();
}

TypeRef Infer::index_slots(ir::Kids slots) {
  for (const NodeRef& s : slots) {
    if (s->kind == Kind::IdxVar) {
      set_def(s->def, ir::t_i32(), false);
    } else if (s->kind == Kind::IdxIn) {
      TypeRef rt = expr(ir::idxin_range(s));
      TypeRef r = resolved(rt);
      if (r->k != Type::K::Range && r->k != Type::K::Unknown)
        err("E002", "`" + s->name + " in ...` needs a range such as `0..N`, found `" + show(rt) + "`",
            ir::idxin_range(s)->span);
      // The index has the integer type of its bounds (i64 bounds give an i64 index).
      // A literal range (`0..2`) leaves the index open: its use decides (`n + i` with an i64 n).
      TypeRef it = r->k == Type::K::Range ? ts.shallow(r->elem) : ir::t_i32();
      bool ok = (ir::is_scalar(it) && is_int(it->dtype)) || (ts.is_var(it) && ts.is_intish(it));
      set_def(s->def, ok ? it : ir::t_i32(), false);
    }
  }
  return ir::t_unit();
}

TypeRef Infer::reduce(const NodeRef& e) {
  index_slots(ir::reduce_slots(e));
  TypeRef bt = expr(ir::reduce_body(*e));
  for (const NodeRef& s : ir::reduce_slots(e)) {
    if (s->kind == Kind::IdxRest && !u.rest_len.count(s->def))
      err("E004", "cannot determine how many axes `.." + s->name + "` stands for", s->span,
          "rank unknown", "use `.." + s->name + "` in an access of an array whose rank is known");
  }
  const std::string& op = e->name;  // the spelling, for messages
  const ir::ReduceOp rop = ir::reduce_op(*e);
  TypeRef rb = resolved(bt);
  if (ir::is_logical_reduce(rop)) {
    expect(ir::t_bool(), bt, ir::reduce_body(*e)->span, "the body of `" + op + "`");
    return ir::t_bool();
  }
  TypeRef el = ir::elem_of(rb);
  if (!ts.is_numeric(el) && rb->k != Type::K::Unknown)
    err("E002", "`" + op + "` needs a numeric body, found `" + show(bt) + "`",
        ir::reduce_body(*e)->span);
  if (ir::is_arg_reduce(rop)) {
    if (e->kids.size() != 2)
      err("E011", "`" + op + "` over several indices is not supported", e->span);
    if (rb->k == Type::K::Array) err("E002", "`" + op + "` needs a scalar body", e->span);
    return ir::t_i32();
  }
  if ((rop == ir::ReduceOp::Max || rop == ir::ReduceOp::Min) && rb->k == Type::K::Array)
    err("E002", "`" + op + "[..]` needs a scalar body", ir::reduce_body(*e)->span);
  return bt;
}

TypeRef Infer::where(const NodeRef& e) {
  TypeRef fallback;
  NodeRef else_node;
  for (const NodeRef& c : ir::where_clauses(e)) {
    switch (c->kind) {
      // A where-binding of literals keeps its literal type variable like a `let` (SPEC §3):
      // `x where x = 0.5` is typed by the uses of the definition in the rest of the unit.
      case Kind::WBind: {
        TypeRef wt = expr(ir::wbind_value(c));
        ts.require_int(wt, true);
        set_def(c->def, wt, false);
        break;
      }
      case Kind::WDerived: set_def(c->def, ts.deep(expr(ir::wderived_index(c)), true), false); break;
      case Kind::WGuard: expect(ir::t_bool(), expr(ir::wguard_cond(c)), ir::wguard_cond(c)->span, "a where guard"); break;
      case Kind::WElse: else_node = c; break;
      default: break;
    }
  }
  TypeRef t = expr(ir::where_expr(e));
  if (else_node) {
    TypeRef ft = expr(ir::welse_value(else_node));
    if (!ts.unify(t, ft))
      err("E002", "the `else` value has type `" + show(ft) + "` but the definition has `" + show(t) + "`",
          ir::welse_value(else_node)->span);
  }
  return t;
}

}  // namespace ein
