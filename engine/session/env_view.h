// What the compiler may know about values of earlier cells: exact types and shapes, integer
// constants (GlobalEnvView over the runtime environment).
#pragma once
#include "engine/interp/interp.h"
#include "lang/passes/context.h"

namespace ein {

// The static type of a runtime value (rank exact; closures by identity).
ir::TypeRef type_of_value(const Value& v);

class EnvView : public GlobalEnvView {
 public:
  explicit EnvView(const RuntimeEnv& env) : env_(env) {}
  ir::TypeRef type_of(ir::DefId d) const override;
  std::optional<std::vector<int64_t>> shape_of(ir::DefId d) const override;
  std::optional<int64_t> int_value(ir::DefId d) const override;

 private:
  const Value* find(ir::DefId d) const;
  const RuntimeEnv& env_;
};

}  // namespace ein
