#include "engine/codegen/blas.h"

namespace ein::codegen {

std::optional<std::string> gen_blas(const CompileCtx&, const Unit&, const ir::NodeRef&, const ir::NodeRef&, Kernel&) {
  return std::nullopt;
}

}  // namespace ein::codegen
