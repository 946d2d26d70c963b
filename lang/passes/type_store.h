// Internal to type inference: inference variables with union-find binding and unification.
#pragma once
#include <vector>

#include "lang/ir/type.h"

namespace ein {

class TypeStore {
 public:
  ir::TypeRef fresh(ir::VarKind k);
  // Follows variable bindings at the top level only.
  ir::TypeRef shallow(const ir::TypeRef& t) const;
  // Replaces every bound variable inside t. With `defaults`, unbound variables are bound to
  // their default (Int -> i32, Float -> f32, Any -> f32) so later uses agree.
  ir::TypeRef deep(const ir::TypeRef& t, bool defaults);
  // Makes a and b equal if possible; false on mismatch (nothing is bound then).
  bool unify(const ir::TypeRef& a, const ir::TypeRef& b);
  // Is t an integer type or an integer literal variable (after shallow resolution)?
  bool is_intish(const ir::TypeRef& t) const;
  bool is_floatish(const ir::TypeRef& t) const;
  bool is_numeric(const ir::TypeRef& t) const;  // int-ish, float-ish or an Any variable
  bool is_var(const ir::TypeRef& t) const;
  // Is t an integer literal variable that may no longer become a float (require_int)?
  bool is_int_only(const ir::TypeRef& t) const;
  // An integer literal variable used where only integers go (range bounds, indices) may no
  // longer become a float through a later use (`let n = 3; 0..n` then `x_f32 * n` is E002).
  // `inside`: also the elements of arrays and tuples.
  void require_int(const ir::TypeRef& t, bool inside = false);

 private:
  bool can_bind(int var, const ir::TypeRef& t) const;
  void bind(int var, const ir::TypeRef& t);
  mutable std::vector<ir::TypeRef> bound_;  // mutable: shallow() compresses paths
  std::vector<ir::VarKind> kind_;
};

}  // namespace ein
