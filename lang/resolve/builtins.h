// The builtin crate: functions every program sees (SPEC §8) and the intrinsics that only the
// standard library may call (their names start with "__"). DefId index = position + 1.
#pragma once
#include <optional>
#include <string_view>

#include "lang/ir/node.h"

namespace ein {

enum class Builtin : uint16_t {
  // user-visible
  Print, Assert, Len, Shape, Typeof, ArrayAppend, Sum, Max, Min, Prod,
  // std-only intrinsics: elementwise math (name "__" + math name)
  Abs, Sqrt, Exp, Log, Log2, Log10, Log1p, Expm1, Sin, Cos, Tan, Asin, Acos, Atan,
  Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Floor, Ceil, Round, Trunc, Erf, Sign, Rsqrt,
  Atan2, Pow, Fmod, Min2, Max2,
  // std-only intrinsics: constants and I/O
  Inf, Nan, Eps, MaxFloat, MinFloat,
  LoadNpy, SaveNpy, ReadFile, WriteFile, FileExists, ListDir,
  // std-only intrinsics of engine/interp/builtins_std.cpp: error checks, file-system
  // operations, and the operations whose result type is known only at run time
  Check, FsTest, FsStr, FsDo, FileSize, Reshape, Cast, Einsum, Convert, Split, Argsort,
  // std-only: NumPy's promotion of an argument, and the element-type tests that choose an
  // integer or bool path (`if __is_int(x)`, decided per specialisation like a rank test;
  // type_infer_builtin.cpp, Infer::static_bool)
  Promote, IsInt, IsBool,
  Count_
};

struct BuiltinInfo {
  Builtin id;
  const char* name;  // as written in source
  bool intrinsic;    // only resolvable from std modules
};

const BuiltinInfo& builtin_info(Builtin b);
// The name shown to users (printed differentials, messages): an intrinsic's source name is its
// shown name behind the `__` that keeps it out of user code.
const char* builtin_shown_name(Builtin b);
std::optional<Builtin> builtin_by_name(std::string_view name, bool allow_intrinsics);
inline ir::DefId builtin_def(Builtin b) {
  return ir::DefId{ir::kBuiltinCrate, static_cast<uint32_t>(b) + 1};
}
inline std::optional<Builtin> builtin_of(ir::DefId d) {
  if (d.crate != ir::kBuiltinCrate || d.index == 0 || d.index > static_cast<uint32_t>(Builtin::Count_))
    return std::nullopt;
  return static_cast<Builtin>(d.index - 1);
}
// Is b one of the elementwise math intrinsics (Abs..Max2)?
bool is_math_intrinsic(Builtin b);
bool is_binary_math_intrinsic(Builtin b);

}  // namespace ein
