// Type rules for patterns, `match` and comprehensions (SPEC §4): the forms that bind names
// while they test or iterate a value.
#include "lang/passes/type_infer_impl.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

void Infer::pattern(const NodeRef& p, const TypeRef& st) {
  switch (p->kind) {
    case Kind::PBind: set_def(p->def, st, false); break;
    case Kind::PLit: {
      TypeRef lt = expr(ir::plit_value(p));
      if (!ts.unify(st, lt))
        err("E002", "pattern of type `" + show(lt) + "` cannot match `" + show(st) + "`", p->span);
      break;
    }
    case Kind::PRange:
      for (auto& k : p->kids) {
        TypeRef lt = expr(k);
        if (!ts.unify(st, lt))
          err("E002", "range pattern of type `" + show(lt) + "` cannot match `" + show(st) + "`",
              k->span);
      }
      break;
    case Kind::POr:
      for (auto& k : p->kids) pattern(k, st);
      break;
    case Kind::PAt:
      set_def(p->def, st, false);
      pattern(ir::pat_inner(p), st);
      break;
    case Kind::PArray: {
      // `[a, ..rest, z]` on an array (rows of a higher-rank one) or a list; `rest` has the
      // scrutinee's type (SPEC §4).
      TypeRef r = resolved(st);
      TypeRef elem = ir::t_unknown();
      if (r->k == Type::K::Array)
        elem = r->rank == 1 ? r->elem : r->rank > 1 ? ir::t_array(r->elem, r->rank - 1) : ir::t_unknown();
      else if (r->k == Type::K::List)
        elem = r->elem;
      else if (r->k != Type::K::Unknown)
        err("E002", "array pattern cannot match `" + show(st) + "`", p->span, "not an array",
            r->k == Type::K::Tuple ? "a tuple is matched with `(a, b)`" : "");
      for (auto& k : p->kids) {
        if (k->kind == Kind::PRest) {
          if (k->def.valid()) set_def(k->def, r->k == Type::K::Array || r->k == Type::K::List ? st : ir::t_unknown(), false);
          set(k, st);
        } else {
          pattern(k, elem);
        }
      }
      break;
    }
    case Kind::PTuple: {
      TypeRef r = resolved(st);
      if (r->k == Type::K::Var) {
        std::vector<TypeRef> es;
        for (size_t i = 0; i < p->kids.size(); ++i) es.push_back(ts.fresh(ir::VarKind::Any));
        ts.unify(r, ir::t_tuple(es));
        r = resolved(st);
      }
      if (r->k != Type::K::Tuple || r->elems.size() != p->kids.size()) {
        if (r->k != Type::K::Unknown)
          err("E002", "tuple pattern cannot match `" + show(st) + "`", p->span);
        for (auto& k : p->kids) pattern(k, ir::t_unknown());
        break;
      }
      for (size_t i = 0; i < p->kids.size(); ++i) pattern(ir::ptuple_elems(p)[i], r->elems[i]);
      break;
    }
    default: break;
  }
  set(p, st);
}

TypeRef Infer::match(const NodeRef& e) {
  TypeRef st = expr(ir::match_scrutinee(e));
  TypeRef result;
  for (const NodeRef& arm : ir::match_arms(e)) {
    pattern(ir::arm_pattern(arm), st);
    if (const NodeRef& g = ir::arm_guard(arm)) expect(ir::t_bool(), expr(g), g->span, "a match guard");
    TypeRef bt = expr(ir::arm_body(arm));
    if (!result) {
      result = bt;
    } else if (!ts.unify(result, bt)) {
      err("E002", "match arms have incompatible types: `" + show(result) + "` and `" + show(bt) + "`",
          ir::arm_body(arm)->span, "this arm is `" + show(bt) + "`");
    } else {
      result = join_runtime(result, bt);
    }
  }
  return result ? result : ir::t_unit();
}

TypeRef Infer::comp(const NodeRef& e) {
  for (const NodeRef& c : ir::comp_clauses(e)) {
    TypeRef t = expr(ir::comp_clause_expr(c));
    if (c->kind == Kind::CompGuard) {
      expect(ir::t_bool(), t, ir::compguard_cond(c)->span, "a comprehension guard");
      continue;
    }
    // A binding of literals keeps its literal type variable, as a where-binding and a `let` do
    // (SPEC §3): `[z + v[i] | i in 0..3, z = 1.5]` with v f64 makes z f64.
    if (c->kind == Kind::CompLet) {
      ts.require_int(t, true);
      set_def(c->def, t, false);
      continue;
    }
    TypeRef r = resolved(t);
    TypeRef var;
    if (r->k == Type::K::Range || r->k == Type::K::List) var = r->elem;
    else if (r->k == Type::K::Str) var = ir::t_str();  // characters
    else if (r->k == Type::K::Array) var = r->rank == 1 ? r->elem : (r->rank < 0 ? ir::t_unknown() : ir::t_array(r->elem, r->rank - 1));
    else if (r->k == Type::K::Unknown) var = ir::t_unknown();
    else {
      err("E002", "cannot iterate over a value of type `" + show(t) + "`", ir::compgen_iter(c)->span,
          "not a range or array");
      var = ir::t_unknown();
    }
    set_def(c->def, var, false);
  }
  TypeRef et = expr(ir::comp_elem(e));
  TypeRef r = resolved(et);
  if (r->k == Type::K::Scalar || r->k == Type::K::Var) return ir::t_array(et, 1);
  if (r->k == Type::K::Array) return ir::t_array(r->elem, r->rank < 0 ? -1 : r->rank + 1);
  if (r->k == Type::K::Unknown) return ir::t_unknown();
  return ir::t_list(et);
}

}  // namespace ein
