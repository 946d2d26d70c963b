// The `kernel` stage of %ir: the generated C++ of a snippet's native kernels. The native tier
// replaces this body (it owns code generation); %ir only routes the request here.
#include "engine/session/commands.h"

namespace ein::cmd {

std::string kernel_ir(Session& s, const std::string& code, const CellOptions& where) {
  (void)s, (void)code, (void)where;
  return "native kernels: not available in this build\n";
}

}  // namespace ein::cmd
