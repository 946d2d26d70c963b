// Element types shared by the compiler (types) and the engine (values).
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace ein {

enum class DType : uint8_t { Bool, I8, I32, I64, F16, BF16, F32, F64 };

inline bool is_float(DType d) { return d >= DType::F16; }
inline bool is_int(DType d) { return d == DType::I8 || d == DType::I32 || d == DType::I64; }

// Spelling used by typeof() and diagnostics: "bool" "i8" "i32" "i64" "f16" "bf16" "f32" "f64".
const char* dtype_name(DType d);
// Parses a spelling, including the aliases "int" (i32) and "float" (f32).
std::optional<DType> dtype_from_name(std::string_view s);
// A type name as ONNX Cast / std::ml::cast take it, case-insensitive: the spellings above, NumPy's
// ("float32", "float64", "int64", "bool", ...) and C's ("float", "double", "long"); unsigned and
// 16-bit integers widen (uint8 -> i32, uint32 -> i64).
std::optional<DType> cast_type_from_name(std::string_view s);
// ONNX TensorProto type numbers (1 float, 11 double, ...; unsigned types widen); nullopt for
// the numbers without an element type here.
std::optional<DType> cast_type_from_onnx(int64_t n);
// Bytes per element as stored (f16 and bf16 are stored as f32, rounded on store).
int dtype_storage_bytes(DType d);
// Round a double to what dtype `d` can hold (f32 rounding, f16/bf16 rounding, integer wrap).
double round_to_float_dtype(double v, DType d);

}  // namespace ein
