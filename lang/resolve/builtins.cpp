#include "lang/resolve/builtins.h"

#include <string>

namespace ein {
namespace {

const BuiltinInfo kTable[] = {
    {Builtin::Print, "print", false},       {Builtin::Assert, "assert", false},
    {Builtin::Len, "len", false},           {Builtin::Shape, "shape", false},
    {Builtin::Typeof, "typeof", false},     {Builtin::ArrayAppend, "array_append", false},
    {Builtin::Sum, "sum", false},           {Builtin::Max, "max", false},
    {Builtin::Min, "min", false},           {Builtin::Prod, "prod", false},
    {Builtin::Abs, "__abs", true},          {Builtin::Sqrt, "__sqrt", true},
    {Builtin::Exp, "__exp", true},          {Builtin::Log, "__log", true},
    {Builtin::Log2, "__log2", true},        {Builtin::Log10, "__log10", true},
    {Builtin::Log1p, "__log1p", true},      {Builtin::Expm1, "__expm1", true},
    {Builtin::Sin, "__sin", true},          {Builtin::Cos, "__cos", true},
    {Builtin::Tan, "__tan", true},          {Builtin::Asin, "__asin", true},
    {Builtin::Acos, "__acos", true},        {Builtin::Atan, "__atan", true},
    {Builtin::Sinh, "__sinh", true},        {Builtin::Cosh, "__cosh", true},
    {Builtin::Tanh, "__tanh", true},        {Builtin::Asinh, "__asinh", true},
    {Builtin::Acosh, "__acosh", true},      {Builtin::Atanh, "__atanh", true},
    {Builtin::Floor, "__floor", true},      {Builtin::Ceil, "__ceil", true},
    {Builtin::Round, "__round", true},      {Builtin::Trunc, "__trunc", true},
    {Builtin::Erf, "__erf", true},          {Builtin::Sign, "__sign", true},
    {Builtin::Rsqrt, "__rsqrt", true},      {Builtin::Atan2, "__atan2", true},
    {Builtin::Pow, "__pow", true},          {Builtin::Fmod, "__fmod", true},
    {Builtin::Min2, "__min2", true},        {Builtin::Max2, "__max2", true},
    {Builtin::Inf, "__inf", true},          {Builtin::Nan, "__nan", true},
    {Builtin::Eps, "__eps", true},          {Builtin::MaxFloat, "__max_float", true},
    {Builtin::MinFloat, "__min_float", true},
    {Builtin::LoadNpy, "__load_npy", true}, {Builtin::SaveNpy, "__save_npy", true},
    {Builtin::ReadFile, "__read_file", true}, {Builtin::WriteFile, "__write_file", true},
    {Builtin::FileExists, "__file_exists", true}, {Builtin::ListDir, "__list_dir", true},
    {Builtin::Check, "__check", true},      {Builtin::FsTest, "__fs_test", true},
    {Builtin::FsStr, "__fs_str", true},     {Builtin::FsDo, "__fs_do", true},
    {Builtin::FileSize, "__file_size", true}, {Builtin::Reshape, "__reshape", true},
    {Builtin::Cast, "__cast", true},        {Builtin::Einsum, "__einsum", true},
    {Builtin::Convert, "__convert", true},  {Builtin::Split, "__split", true},
    {Builtin::Argsort, "__argsort", true},  {Builtin::Promote, "__promote", true},
    {Builtin::IsInt, "__is_int", true},     {Builtin::IsBool, "__is_bool", true},
};
static_assert(sizeof(kTable) / sizeof(kTable[0]) == static_cast<size_t>(Builtin::Count_));

}  // namespace

const BuiltinInfo& builtin_info(Builtin b) { return kTable[static_cast<size_t>(b)]; }

const char* builtin_shown_name(Builtin b) {
  const BuiltinInfo& i = builtin_info(b);
  return i.intrinsic ? i.name + 2 : i.name;
}

std::optional<Builtin> builtin_by_name(std::string_view name, bool allow_intrinsics) {
  for (const auto& e : kTable)
    if (name == e.name && (allow_intrinsics || !e.intrinsic)) return e.id;
  return std::nullopt;
}

bool is_math_intrinsic(Builtin b) { return b >= Builtin::Abs && b <= Builtin::Max2; }
bool is_binary_math_intrinsic(Builtin b) { return b >= Builtin::Atan2 && b <= Builtin::Max2; }

}  // namespace ein
