#include "lang/ir/dtype.h"

#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

namespace ein {

const char* dtype_name(DType d) {
  switch (d) {
    case DType::Bool: return "bool";
    case DType::I8: return "i8";
    case DType::I32: return "i32";
    case DType::I64: return "i64";
    case DType::F16: return "f16";
    case DType::BF16: return "bf16";
    case DType::F32: return "f32";
    case DType::F64: return "f64";
  }
  return "?";
}

std::optional<DType> dtype_from_name(std::string_view s) {
  if (s == "bool") return DType::Bool;
  if (s == "i8") return DType::I8;
  if (s == "i32" || s == "int") return DType::I32;
  if (s == "i64") return DType::I64;
  if (s == "f16") return DType::F16;
  if (s == "bf16") return DType::BF16;
  if (s == "f32" || s == "float") return DType::F32;
  if (s == "f64") return DType::F64;
  return std::nullopt;
}

std::optional<DType> cast_type_from_name(std::string_view name) {
  std::string s;
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto d = dtype_from_name(s)) return d;
  static const std::pair<const char*, DType> names[] = {
      {"float32", DType::F32}, {"float", DType::F32},   {"float64", DType::F64}, {"double", DType::F64},
      {"float16", DType::F16}, {"half", DType::F16},    {"bfloat16", DType::BF16}, {"int32", DType::I32},
      {"int64", DType::I64},   {"int8", DType::I8},     {"int16", DType::I32},  {"uint8", DType::I32},
      {"uint16", DType::I32},  {"uint32", DType::I64},  {"uint64", DType::I64}, {"bool", DType::Bool},
      {"boolean", DType::Bool}, {"long", DType::I64}};
  for (auto& [n, d] : names)
    if (s == n) return d;
  return std::nullopt;
}

std::optional<DType> cast_type_from_onnx(int64_t n) {
  switch (n) {
    case 1: return DType::F32;
    case 2: case 4: case 5: case 6: return DType::I32;  // uint8, uint16, int16 widen to i32
    case 3: return DType::I8;
    case 7: case 12: case 13: return DType::I64;         // uint32/uint64 widen to i64
    case 9: return DType::Bool;
    case 10: return DType::F16;
    case 11: return DType::F64;
    case 16: return DType::BF16;
    default: return std::nullopt;
  }
}

int dtype_storage_bytes(DType d) {
  switch (d) {
    case DType::Bool: case DType::I8: return 1;
    case DType::I32: case DType::F16: case DType::BF16: case DType::F32: return 4;
    case DType::I64: case DType::F64: return 8;
  }
  return 8;
}

namespace {

float round_bf16(float f) {
  if (std::isnan(f)) return f;
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint32_t lsb = (u >> 16) & 1u;
  u += 0x7FFFu + lsb;  // round to nearest even on the dropped 16 bits
  u &= 0xFFFF0000u;
  return std::bit_cast<float>(u);
}

float round_f16(float f) {
  if (std::isnan(f) || std::isinf(f)) return f;
  float a = std::fabs(f);
  if (a >= 65520.0f) return std::copysign(INFINITY, f);
  if (a < 6.103515625e-05f) {  // subnormal half: fixed quantum 2^-24
    float q = 5.9604644775390625e-08f;
    return std::copysign(std::nearbyint(a / q) * q, f);
  }
  int e;
  std::frexp(a, &e);                    // a = m * 2^e, m in [0.5, 1)
  float q = std::ldexp(1.0f, e - 11);   // 10 explicit mantissa bits + implicit bit
  return std::copysign(std::nearbyint(a / q) * q, f);
}

}  // namespace

double round_to_float_dtype(double v, DType d) {
  switch (d) {
    case DType::F64: return v;
    case DType::F32: return static_cast<double>(static_cast<float>(v));
    case DType::F16: return round_f16(static_cast<float>(v));
    case DType::BF16: return round_bf16(static_cast<float>(v));
    case DType::I8: return static_cast<double>(static_cast<int8_t>(static_cast<int64_t>(v)));
    case DType::I32: return static_cast<double>(static_cast<int32_t>(static_cast<int64_t>(v)));
    case DType::I64: return std::trunc(v);
    case DType::Bool: return v != 0 ? 1.0 : 0.0;
  }
  return v;
}

}  // namespace ein
