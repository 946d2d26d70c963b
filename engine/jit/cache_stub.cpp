// Placeholder until the native tier lands: no kernels, no cache.
#include "engine/jit/jit.h"

namespace ein::jit {

CacheInfo cache_info() { return CacheInfo{}; }
void cache_clear() {}

}  // namespace ein::jit
