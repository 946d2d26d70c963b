// Private helpers shared by the engine/value/*.cpp files. Not part of the contract (value.h) and
// deliberately free of xtensor headers, so it stays cheap to include.
#pragma once
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "engine/value/value.h"

namespace ein::vdetail {

template <class T> struct Tag { using type = T; };

// Calls f(Tag<S>{}) with S the storage element type of dt. f16/bf16 live in float storage.
template <class F> decltype(auto) visit_storage(DType dt, F&& f) {
  switch (dt) {
    case DType::Bool: return f(Tag<uint8_t>{});
    case DType::I8: return f(Tag<int8_t>{});
    case DType::I32: return f(Tag<int32_t>{});
    case DType::I64: return f(Tag<int64_t>{});
    case DType::F16:
    case DType::BF16:
    case DType::F32: return f(Tag<float>{});
    case DType::F64: return f(Tag<double>{});
  }
  return f(Tag<double>{});
}

// Two's complement wrap of an int64 into an integer dtype (conversion to a narrower signed type
// is modular since C++20, so this is well defined).
inline int64_t wrap_int(int64_t v, DType dt) {
  switch (dt) {
    case DType::I8: return static_cast<int8_t>(v);
    case DType::I32: return static_cast<int32_t>(v);
    default: return v;
  }
}

// Rust `as` from a float to an integer type: truncate toward zero, saturate, NaN -> 0.
// Written with explicit range checks because an out-of-range float->int conversion is UB in C++.
template <class I> I saturate_to(double v) {
  if (std::isnan(v)) return 0;
  constexpr double lo = static_cast<double>(std::numeric_limits<I>::min());
  // 2^(bits-1) is exactly representable; anything >= it saturates.
  constexpr double hi_excl = -lo;
  if (v <= lo) return std::numeric_limits<I>::min();
  if (v >= hi_excl) return std::numeric_limits<I>::max();
  return static_cast<I>(v);  // in range: truncates toward zero
}

inline int64_t saturate_to_dtype(double v, DType dt) {
  switch (dt) {
    case DType::I8: return saturate_to<int8_t>(v);
    case DType::I32: return saturate_to<int32_t>(v);
    default: return saturate_to<int64_t>(v);
  }
}

// Convert a double to storage type S for dtype dt (rounding floats to dt, saturating ints).
template <class S> S store_from_f64(double v, DType dt) {
  if constexpr (std::is_same_v<S, uint8_t>) {
    return v != 0 ? 1 : 0;
  } else if constexpr (std::is_floating_point_v<S>) {
    return static_cast<S>(round_to_float_dtype(v, dt));
  } else {
    return saturate_to<S>(v);
  }
}

// Convert an int64 to storage type S (wrapping ints like Rust `as`, rounding floats).
template <class S> S store_from_i64(int64_t v, DType dt) {
  if constexpr (std::is_same_v<S, uint8_t>) {
    return v != 0 ? 1 : 0;
  } else if constexpr (std::is_floating_point_v<S>) {
    // Direct int64->float conversion rounds once; going through double could round twice.
    if (dt == DType::F32) return static_cast<S>(static_cast<float>(v));
    return static_cast<S>(round_to_float_dtype(static_cast<double>(v), dt));
  } else {
    return static_cast<S>(v);  // modular narrowing
  }
}

// "[2, 3]"
std::string shape_str(const std::vector<int64_t>& shape);

// Counts storage that already exists (no limit check: the builder reserved it beforehand).
void count_memory(int64_t bytes);

// A default-constructed Tensor has rank 0 (size 1) but no storage; every path that reads
// elements checks this first so that such a value faults (E006) instead of dereferencing null.
void require_storage(const Tensor& t);

// Rank-0 tensors behave like their scalar in operators; lifts them out.
Value scalarize(const Value& v);

// Human name of a value's kind for error messages ("str", "tuple", "[f32; 2]").
std::string kind_name(const Value& v);

}  // namespace ein::vdetail

// ---- shared by format.cpp and format_spec.cpp -----------------------------------------------
namespace ein::vdetail {

// Formats one leaf: a scalar (Bool/Int/Float) or a string. `nested` is true inside a container.
using LeafFormatter = std::function<std::string(const Value& leaf, bool nested)>;

// Writes v with the structural rules of SPEC §8 (nested lists, tuples, summarisation of arrays
// above 1000 elements), delegating scalars and strings to `leaf`.
void format_structured(std::string& out, const Value& v, const LeafFormatter& leaf);

// "a\"b" with \" \\ \n \t \r and \xNN for other control bytes.
std::string quote_string(const std::string& s);

// Shortest round-trip digits of |v| at dtype precision: v = 0.d1d2...dn * 10^(exp+1), i.e.
// d1.d2...dn * 10^exp. v must be finite and non-zero.
void shortest_digits(double v, DType dt, std::string& digits, int& exp);

// Significant digits of |a| correctly rounded to `sig` digits (trailing zeros dropped); a may be 0.
void rounded_digits(double a, int sig, std::string& digits, int& exp);
void parse_sci(std::string_view s, std::string& digits, int& exp);

// Python-repr rendering of a digit string: fixed for -4 <= exp < 16, else scientific.
std::string render_repr(bool neg, const std::string& digits, int exp);
// Fixed notation of digits*10^exp with at least `min_frac` fractional digits ("1" exp 2 -> "100").
std::string render_fixed(const std::string& digits, int exp, int min_frac);
// Scientific "d.ddde+XX" (no '.' when one digit).
std::string render_sci(const std::string& digits, int exp);

}  // namespace ein::vdetail
