#include "lang/passes/type_store.h"

namespace ein {

using ir::Type;
using ir::TypeRef;
using ir::VarKind;

TypeRef TypeStore::fresh(VarKind k) {
  bound_.push_back(nullptr);
  kind_.push_back(k);
  return ir::t_var(static_cast<int>(bound_.size()) - 1, k);
}

TypeRef TypeStore::shallow(const TypeRef& t) const {
  TypeRef cur = t;
  while (cur && cur->k == Type::K::Var && bound_[cur->var_id]) cur = bound_[cur->var_id];
  // Path compression: point every variable on the way at the end of the chain.
  for (TypeRef v = t; v && v->k == Type::K::Var && bound_[v->var_id] && bound_[v->var_id] != cur;) {
    TypeRef next = bound_[v->var_id];
    bound_[v->var_id] = cur;
    v = next;
  }
  if (cur && cur->k == Type::K::Var && cur->var_kind != kind_[cur->var_id])
    return ir::t_var(cur->var_id, kind_[cur->var_id]);  // kind may have narrowed
  return cur;
}

TypeRef TypeStore::deep(const TypeRef& t0, bool defaults) {
  TypeRef t = shallow(t0);
  if (!t) return ir::t_unknown();
  switch (t->k) {
    case Type::K::Var: {
      if (!defaults) return t;
      VarKind k = kind_[t->var_id];
      DType d = k == VarKind::Int || k == VarKind::IntOnly ? DType::I32 : DType::F32;
      TypeRef s = ir::t_scalar(d);
      bound_[t->var_id] = s;
      return s;
    }
    case Type::K::Array: {
      TypeRef e = deep(t->elem, defaults);
      return e == t->elem ? t : ir::t_array(e, t->rank);
    }
    case Type::K::List: return ir::t_list(deep(t->elem, defaults));
    case Type::K::Range: return ir::t_range(deep(t->elem, defaults));
    case Type::K::Tuple:
    case Type::K::FnSig: {
      std::vector<TypeRef> es;
      for (auto& e : t->elems) es.push_back(deep(e, defaults));
      if (t->k == Type::K::Tuple) return ir::t_tuple(std::move(es));
      return ir::t_fn_sig(std::move(es), deep(t->elem, defaults));
    }
    default: return t;
  }
}

bool TypeStore::is_var(const TypeRef& t) const {
  TypeRef s = shallow(t);
  return s && s->k == Type::K::Var;
}

bool TypeStore::is_intish(const TypeRef& t) const {
  TypeRef s = shallow(t);
  if (!s) return false;
  if (s->k == Type::K::Var) return kind_[s->var_id] == VarKind::Int || kind_[s->var_id] == VarKind::IntOnly;
  return s->k == Type::K::Scalar && is_int(s->dtype);
}

bool TypeStore::is_int_only(const TypeRef& t) const {
  TypeRef s = shallow(t);
  return s && s->k == Type::K::Var && kind_[s->var_id] == VarKind::IntOnly;
}

bool TypeStore::is_floatish(const TypeRef& t) const {
  TypeRef s = shallow(t);
  if (!s) return false;
  if (s->k == Type::K::Var) return kind_[s->var_id] == VarKind::Float;
  return s->k == Type::K::Scalar && is_float(s->dtype);
}

bool TypeStore::is_numeric(const TypeRef& t) const {
  TypeRef s = shallow(t);
  if (!s) return false;
  if (s->k == Type::K::Var) return true;
  if (s->k == Type::K::Unknown) return true;
  return s->k == Type::K::Scalar && s->dtype != DType::Bool;
}

// An integer literal is also a valid float literal ("x * 2" with x: f32 makes the 2 an f32);
// a float literal never becomes an integer.
// An integer literal used only where integers go (a range bound, an index) stays an integer.
bool TypeStore::can_bind(int var, const TypeRef& t) const {
  if (t->k == Type::K::Var) {
    VarKind a = kind_[var], b = kind_[t->var_id];
    return !((a == VarKind::IntOnly && b == VarKind::Float) || (a == VarKind::Float && b == VarKind::IntOnly));
  }
  switch (kind_[var]) {
    case VarKind::Any: return true;
    case VarKind::Int: return t->k == Type::K::Scalar && t->dtype != DType::Bool;
    case VarKind::IntOnly: return t->k == Type::K::Scalar && is_int(t->dtype);
    case VarKind::Float: return t->k == Type::K::Scalar && is_float(t->dtype);
  }
  return false;
}

void TypeStore::bind(int var, const TypeRef& t) {
  if (t->k == Type::K::Var) {
    // Merging two variables: the survivor takes the narrower kind (Any < Int < Float, IntOnly).
    VarKind& k = kind_[t->var_id];
    VarKind mine = kind_[var];
    if (k == VarKind::Any || (k == VarKind::Int && mine != VarKind::Any)) k = mine;
  }
  bound_[var] = t;
}

void TypeStore::require_int(const TypeRef& t, bool inside) {
  TypeRef s = shallow(t);
  if (!s) return;
  if (s->k == Type::K::Var && kind_[s->var_id] == VarKind::Int) kind_[s->var_id] = VarKind::IntOnly;
  if (!inside) return;
  if (s->elem && (s->k == Type::K::Array || s->k == Type::K::List)) require_int(s->elem, true);
  if (s->k == Type::K::Tuple)
    for (auto& e : s->elems) require_int(e, true);
}

bool TypeStore::unify(const TypeRef& a0, const TypeRef& b0) {
  TypeRef a = shallow(a0), b = shallow(b0);
  if (!a || !b) return true;
  if (a == b) return true;
  // A value whose type is only known at run time makes an unconstrained variable dynamic too
  // (e.g. the result of a library wrapper around __load_npy); literals keep their defaults.
  if (a->k == Type::K::Unknown && b->k == Type::K::Var && kind_[b->var_id] == VarKind::Any) {
    bound_[b->var_id] = a;
    return true;
  }
  if (b->k == Type::K::Unknown && a->k == Type::K::Var && kind_[a->var_id] == VarKind::Any) {
    bound_[a->var_id] = b;
    return true;
  }
  if (a->k == Type::K::Unknown || b->k == Type::K::Unknown) return true;
  if (a->k == Type::K::Var && b->k == Type::K::Var && a->var_id == b->var_id) return true;
  if (a->k == Type::K::Var && b->k == Type::K::Var) {
    // Two roots: the newer joins the older, so long literals do not build long chains.
    if (!can_bind(b->var_id, a)) return false;
    bind(b->var_id, a);
    return true;
  }
  if (a->k == Type::K::Var) {
    if (!can_bind(a->var_id, b)) return false;
    bind(a->var_id, b);
    return true;
  }
  if (b->k == Type::K::Var) {
    if (!can_bind(b->var_id, a)) return false;
    bind(b->var_id, a);
    return true;
  }
  if (a->k != b->k) return false;
  switch (a->k) {
    case Type::K::Scalar: return a->dtype == b->dtype;
    case Type::K::Array:
      if (a->rank >= 0 && b->rank >= 0 && a->rank != b->rank) return false;
      return unify(a->elem, b->elem);
    case Type::K::List:
    case Type::K::Range: return unify(a->elem, b->elem);
    case Type::K::Tuple:
      if (a->elems.size() != b->elems.size()) return false;
      for (size_t i = 0; i < a->elems.size(); ++i)
        if (!unify(a->elems[i], b->elems[i])) return false;
      return true;
    case Type::K::FnSig:
      if (a->elems.size() != b->elems.size()) return false;
      for (size_t i = 0; i < a->elems.size(); ++i)
        if (!unify(a->elems[i], b->elems[i])) return false;
      return unify(a->elem, b->elem);
    default: return ir::type_equal(a, b);
  }
}

}  // namespace ein
