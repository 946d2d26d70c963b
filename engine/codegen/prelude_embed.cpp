// Embeds engine/codegen/prelude.h at build time (see the end of that header) so that the text
// the JIT prepends to every translation unit is exactly the header the runtime was built with.
#define EIN_PRELUDE_EMBED 1
#include "engine/codegen/prelude.h"

#include "engine/codegen/codegen.h"

extern "C" const char ein_prelude_text[];

namespace ein::codegen {

const char* prelude_text() { return ein_prelude_text; }
int prelude_abi() { return EIN_ABI_VERSION; }

}  // namespace ein::codegen
