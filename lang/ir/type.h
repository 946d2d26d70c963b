// Static types (SPEC §3). Rank is part of an array type; extents are shape facts, not types.
// Types are immutable and shared. Inference variables (Var) live only inside type inference;
// every type stored in a unit's final tables is free of them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "lang/ir/dtype.h"
#include "lang/ir/node.h"

namespace ein {
struct Unit;  // a compilation unit (lang/passes/context.h)
}

namespace ein::ir {

struct Type;
using TypeRef = std::shared_ptr<const Type>;

enum class VarKind : uint8_t {
  Any,    // unconstrained; defaults to f32 when it only ever meets numbers, else unit
  Int,    // an integer literal; unifies with i8/i32/i64; defaults to i32
  Float,  // a float literal; unifies with f16/bf16/f32/f64; defaults to f32
  IntOnly,  // an integer literal used where only integers go (ranges, indices); defaults to i32
};

struct Type {
  enum class K : uint8_t {
    Unknown,  // dynamic: produced only where inference cannot know (e.g. unannotated recursion)
    Unit,
    Scalar,   // dtype (Bool is a scalar dtype)
    Str,
    Array,    // elem (a Scalar or Var), rank (-1 = any rank "[T; *]")
    List,     // elem: jagged arrays and arrays of non-numbers
    Tuple,    // elems
    Range,    // elem: the integer type of its bounds
    FnItem,   // def: a named function (maybe generic); calls are specialised per signature
    Lambda,   // node: the Lambda expression; unit: the unit it was created in (captures)
    Builtin,  // def: a builtin function (typed by its own rule)
    FnSig,    // elems = params, elem = result: an annotated function type "(T) -> U"
    Var,      // var_id, var_kind: inference variable
  };
  K k = K::Unknown;
  DType dtype = DType::F32;
  int rank = 0;
  // `{}` on the members without another default: a designated initializer that leaves them out
  // (`Type{.k = K::Array, .rank = 2}`) then says so on purpose (-Wmissing-field-initializers).
  TypeRef elem{};
  std::vector<TypeRef> elems{};
  DefId def{};
  NodeRef node{};
  const ein::Unit* unit = nullptr;
  int var_id = -1;
  VarKind var_kind = VarKind::Any;
};

// Factories (shared singletons for the common scalars).
TypeRef t_unknown();
TypeRef t_unit();
TypeRef t_scalar(DType d);
TypeRef t_bool();
TypeRef t_i32();
TypeRef t_str();
TypeRef t_array(TypeRef elem, int rank);
TypeRef t_list(TypeRef elem);
TypeRef t_tuple(std::vector<TypeRef> elems);
TypeRef t_range(TypeRef elem);
TypeRef t_fn_item(DefId def);
TypeRef t_lambda(NodeRef node, const ein::Unit* unit);
TypeRef t_builtin(DefId def);
TypeRef t_fn_sig(std::vector<TypeRef> params, TypeRef result);
TypeRef t_var(int id, VarKind kind);

// "f32", "[f32; 2]"-style without extents: "[f32; _]" for rank 1, "[f32; _, _]" for rank 2,
// "[f32; *]", "(i32, str)", "fn area", "{integer}" / "{float}" for literal variables.
std::string type_name(const TypeRef& t);
bool type_equal(const TypeRef& a, const TypeRef& b);
// Stable textual key for specialisation caches (types must be free of variables).
std::string type_key(const TypeRef& t);

inline bool is_scalar(const TypeRef& t) { return t && t->k == Type::K::Scalar; }
inline bool is_array(const TypeRef& t) { return t && t->k == Type::K::Array; }
inline bool is_numeric_scalar(const TypeRef& t) {
  return is_scalar(t) && t->dtype != DType::Bool;
}
inline bool is_callable(const TypeRef& t) {
  return t && (t->k == Type::K::FnItem || t->k == Type::K::Lambda || t->k == Type::K::Builtin ||
               t->k == Type::K::FnSig);
}
// Element scalar type of an array, or the scalar itself.
TypeRef elem_of(const TypeRef& t);
// Rank of a value of this type (0 for scalars, -1 unknown).
int rank_of(const TypeRef& t);

}  // namespace ein::ir
