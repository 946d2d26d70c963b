#include "engine/codegen/static_facts.h"

#include "lang/passes/int_fold.h"

namespace ein::codegen {

// One folder for the compiler and the native tier (lang/passes/int_fold.h): planning sees every
// value shape analysis saw.
std::optional<std::vector<int64_t>> static_shape(const CompileCtx& cx, const Unit& u, ir::DefId d) {
  return known_def_shape(cx, u, d);
}

std::optional<int64_t> static_int(const CompileCtx& cx, const Unit& u, const ir::NodeRef& e) {
  return fold_int(cx, u, e);
}


}  // namespace ein::codegen
