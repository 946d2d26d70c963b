// NumPy .npy reading and writing for std::io. Placeholder until the standard-library work.
#include "engine/interp/interp_impl.h"

namespace ein {

Value io_builtin(Builtin b, std::vector<Value>& args) {
  (void)args;
  fault("E011", std::string("`") + builtin_info(b).name + "` is not implemented yet");
}

}  // namespace ein
