#include "lang/ir/type.h"

namespace ein::ir {
namespace {

TypeRef mk(Type t) { return std::make_shared<const Type>(std::move(t)); }

TypeRef scalar_singleton(DType d) {
  static const TypeRef table[] = {
      mk(Type{.k = Type::K::Scalar, .dtype = DType::Bool}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::I8}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::I32}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::I64}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::F16}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::BF16}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::F32}),
      mk(Type{.k = Type::K::Scalar, .dtype = DType::F64}),
  };
  return table[static_cast<int>(d)];
}

}  // namespace

TypeRef t_unknown() {
  static TypeRef t = mk(Type{.k = Type::K::Unknown});
  return t;
}
TypeRef t_unit() {
  static TypeRef t = mk(Type{.k = Type::K::Unit});
  return t;
}
TypeRef t_scalar(DType d) { return scalar_singleton(d); }
TypeRef t_bool() { return scalar_singleton(DType::Bool); }
TypeRef t_i32() { return scalar_singleton(DType::I32); }
TypeRef t_str() {
  static TypeRef t = mk(Type{.k = Type::K::Str});
  return t;
}
TypeRef t_array(TypeRef elem, int rank) {
  return mk(Type{.k = Type::K::Array, .rank = rank, .elem = std::move(elem)});
}
TypeRef t_list(TypeRef elem) { return mk(Type{.k = Type::K::List, .elem = std::move(elem)}); }
TypeRef t_tuple(std::vector<TypeRef> elems) {
  if (elems.empty()) return t_unit();
  return mk(Type{.k = Type::K::Tuple, .elems = std::move(elems)});
}
TypeRef t_range(TypeRef elem) { return mk(Type{.k = Type::K::Range, .elem = std::move(elem)}); }
TypeRef t_fn_item(DefId def) { return mk(Type{.k = Type::K::FnItem, .def = def}); }
TypeRef t_lambda(NodeRef node, const ein::Unit* unit) {
  return mk(Type{.k = Type::K::Lambda, .node = std::move(node), .unit = unit});
}
TypeRef t_builtin(DefId def) { return mk(Type{.k = Type::K::Builtin, .def = def}); }
TypeRef t_fn_sig(std::vector<TypeRef> params, TypeRef result) {
  return mk(Type{.k = Type::K::FnSig, .elem = std::move(result), .elems = std::move(params)});
}
TypeRef t_var(int id, VarKind kind) {
  return mk(Type{.k = Type::K::Var, .var_id = id, .var_kind = kind});
}

std::string type_name(const TypeRef& t) {
  if (!t) return "?";
  switch (t->k) {
    case Type::K::Unknown: return "_";
    case Type::K::Unit: return "()";
    case Type::K::Scalar: return dtype_name(t->dtype);
    case Type::K::Str: return "str";
    case Type::K::Array: {
      std::string s = "[" + type_name(t->elem);
      if (t->rank < 0) return s + "; *]";
      if (t->rank == 1) return s + "]";
      s += "; ";
      for (int i = 0; i < t->rank; ++i) s += i ? ", ?" : "?";
      return s + "]";
    }
    case Type::K::List: return "jagged[" + type_name(t->elem) + "]";
    case Type::K::Tuple: {
      std::string s = "(";
      for (size_t i = 0; i < t->elems.size(); ++i) s += (i ? ", " : "") + type_name(t->elems[i]);
      return s + (t->elems.size() == 1 ? ",)" : ")");
    }
    case Type::K::Range: return "range";
    case Type::K::FnItem: return "fn";
    case Type::K::Lambda: return "closure";
    case Type::K::Builtin: return "builtin fn";
    case Type::K::FnSig: {
      std::string s = "(";
      for (size_t i = 0; i < t->elems.size(); ++i) s += (i ? ", " : "") + type_name(t->elems[i]);
      return s + ") -> " + type_name(t->elem);
    }
    case Type::K::Var:
      return t->var_kind == VarKind::Int || t->var_kind == VarKind::IntOnly ? "{integer}"
             : t->var_kind == VarKind::Float ? "{float}"
                                             : "_";
  }
  return "?";
}

bool type_equal(const TypeRef& a, const TypeRef& b) {
  if (a == b) return true;
  if (!a || !b || a->k != b->k) return false;
  switch (a->k) {
    case Type::K::Scalar: return a->dtype == b->dtype;
    case Type::K::Array: return a->rank == b->rank && type_equal(a->elem, b->elem);
    case Type::K::List:
    case Type::K::Range: return type_equal(a->elem, b->elem);
    case Type::K::Tuple:
    case Type::K::FnSig:
      if (a->elems.size() != b->elems.size()) return false;
      for (size_t i = 0; i < a->elems.size(); ++i)
        if (!type_equal(a->elems[i], b->elems[i])) return false;
      return a->k == Type::K::Tuple || type_equal(a->elem, b->elem);
    case Type::K::FnItem:
    case Type::K::Builtin: return a->def == b->def;
    case Type::K::Lambda: return a->node == b->node && a->unit == b->unit;
    case Type::K::Var: return a->var_id == b->var_id;
    default: return true;
  }
}

std::string type_key(const TypeRef& t) {
  if (!t) return "?";
  switch (t->k) {
    case Type::K::FnItem: return "fn#" + std::to_string(t->def.crate) + ":" +
                                 std::to_string(t->def.index);
    case Type::K::Builtin: return "builtin#" + std::to_string(t->def.index);
    case Type::K::Lambda:
      return "lambda#" + std::to_string(t->node ? t->node->id : 0) + "@" +
             std::to_string(reinterpret_cast<uintptr_t>(t->unit));
    case Type::K::Array: return "[" + type_key(t->elem) + ";" + std::to_string(t->rank) + "]";
    case Type::K::List: return "jagged[" + type_key(t->elem) + "]";
    case Type::K::Range: return "range<" + type_key(t->elem) + ">";
    case Type::K::Tuple:
    case Type::K::FnSig: {
      std::string s = t->k == Type::K::Tuple ? "(" : "fn(";
      for (auto& e : t->elems) s += type_key(e) + ",";
      s += ")";
      if (t->k == Type::K::FnSig) s += "->" + type_key(t->elem);
      return s;
    }
    default: return type_name(t);
  }
}

TypeRef elem_of(const TypeRef& t) {
  if (t && (t->k == Type::K::Array || t->k == Type::K::List)) return t->elem;
  return t;
}

int rank_of(const TypeRef& t) {
  if (!t) return -1;
  if (t->k == Type::K::Array) return t->rank;
  if (t->k == Type::K::Scalar) return 0;
  return t->k == Type::K::List ? 1 : 0;
}

}  // namespace ein::ir
