// Value printing (SPEC §8): shortest round-trip floats in Python-repr style, nested-list arrays
// with NumPy-style summarisation, quoted strings inside containers.
#include <charconv>
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/value/value.h"
#include "engine/value/value_detail.h"

namespace ein {
namespace vdetail {

// Splits to_chars scientific output ("-1.2345e-07") into significant digits and exponent,
// dropping trailing zeros of the mantissa.
void parse_sci(std::string_view s, std::string& digits, int& exp) {
  digits.clear();
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  for (; i < s.size() && s[i] != 'e'; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  exp = 0;
  if (i + 1 < s.size()) {
    const size_t at = i + 1 + (s[i + 1] == '+' ? 1 : 0);
    std::from_chars(s.data() + at, s.data() + s.size(), exp);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

void rounded_digits(double a, int sig, std::string& digits, int& exp) {
  if (a == 0) {
    digits = "0";
    exp = 0;
    return;
  }
  sig = std::max(sig, 1);
  std::string buf(size_t(sig) + 32, '\0');
  auto r = std::to_chars(buf.data(), buf.data() + buf.size(), a, std::chars_format::scientific,
                         sig - 1);
  parse_sci(std::string_view(buf.data(), size_t(r.ptr - buf.data())), digits, exp);
}

void shortest_digits(double v, DType dt, std::string& digits, int& exp) {
  char buf[64];
  v = std::fabs(v);
  if (dt == DType::F16 || dt == DType::BF16) {
    // No native shortest printer for half types: take the first precision whose correctly
    // rounded decimal maps back to the same half value. 9 digits always suffice (f32 does).
    const double target = round_to_float_dtype(v, dt);
    for (int p = 1; p <= 9; ++p) {
      auto r = std::to_chars(buf, buf + sizeof buf, target, std::chars_format::scientific, p - 1);
      double back = 0;
      std::from_chars(buf, r.ptr, back);
      if (round_to_float_dtype(back, dt) == target || p == 9) {
        parse_sci(std::string_view(buf, size_t(r.ptr - buf)), digits, exp);
        return;
      }
    }
  }
  std::to_chars_result r;
  if (dt == DType::F64 || !is_float(dt)) {
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  } else {
    r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific);
  }
  parse_sci(std::string_view(buf, size_t(r.ptr - buf)), digits, exp);
}

std::string render_fixed(const std::string& digits, int exp, int min_frac) {
  std::string ip, frac;
  const int n = static_cast<int>(digits.size());
  if (exp >= 0) {
    if (n <= exp + 1) {
      ip = digits + std::string(size_t(exp + 1 - n), '0');
    } else {
      ip = digits.substr(0, size_t(exp + 1));
      frac = digits.substr(size_t(exp + 1));
    }
  } else {
    ip = "0";
    frac = std::string(size_t(-exp - 1), '0') + digits;
  }
  if (static_cast<int>(frac.size()) < min_frac) frac.append(size_t(min_frac) - frac.size(), '0');
  return frac.empty() ? ip : ip + "." + frac;
}

std::string render_sci(const std::string& digits, int exp) {
  std::string s(1, digits.empty() ? '0' : digits[0]);
  if (digits.size() > 1) s += "." + digits.substr(1);
  s += exp < 0 ? "e-" : "e+";
  const int a = exp < 0 ? -exp : exp;
  if (a < 10) s += '0';
  return s + std::to_string(a);
}

std::string render_repr(bool neg, const std::string& digits, int exp) {
  std::string body = (exp >= -4 && exp < 16) ? render_fixed(digits, exp, 1) : render_sci(digits, exp);
  return neg ? "-" + body : body;
}

std::string quote_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static const char* hex = "0123456789abcdef";
          out += "\\x";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// ---- structure ------------------------------------------------------------------------------
namespace {

constexpr int64_t kSummaryThreshold = 1000;  // NumPy's default print threshold
constexpr int64_t kEdge = 3;                 // items kept at each end of a summarised axis

enum class Summ { Unknown, Yes, No };

// Scalar leaves of a list (a tensor counts its elements), stopping early past the threshold.
int64_t leaf_count(const Value& v, int64_t budget) {
  if (v.tag == Value::Tag::Tensor) return v.tensor_ref().size();
  if (v.tag != Value::Tag::List) return 1;
  int64_t n = 0;
  for (const Value& item : v.items()) {
    n += leaf_count(item, budget - n);
    if (n > budget) break;
  }
  return n;
}

// Visits indices 0..len-1 of one axis, replacing the middle by "..." when summarising.
template <class F> void each_index(std::string& out, int64_t len, bool summ, F&& f) {
  out += '[';
  const bool cut = summ && len > 2 * kEdge;
  for (int64_t i = 0; i < len; ++i) {
    if (cut && i == kEdge) {
      out += ", ...";
      i = len - kEdge - 1;
      continue;
    }
    if (i) out += ", ";
    f(i);
  }
  out += ']';
}

void tensor_axis(std::string& out, const Tensor& t, int axis, int64_t offset,
                 const std::vector<int64_t>& strides, bool summ, const LeafFormatter& leaf) {
  if (axis == t.rank()) {
    out += leaf(tensor_get(t, offset), true);
    return;
  }
  const int64_t st = strides[size_t(axis)];
  each_index(out, t.dim(axis), summ, [&](int64_t i) {
    tensor_axis(out, t, axis + 1, offset + i * st, strides, summ, leaf);
  });
}

void structured(std::string& out, const Value& v, Summ summ, bool nested,
                const LeafFormatter& leaf) {
  using T = Value::Tag;
  switch (v.tag) {
    case T::Unit: out += "()"; return;
    case T::Bool:
    case T::Int:
    case T::Float:
    case T::Str: out += leaf(v, nested); return;
    case T::Range:
      // Written with an exclusive end as the program most likely did, unless that end is past
      // i64::MAX.
      if (v.r[1] == std::numeric_limits<int64_t>::max()) out += std::to_string(v.r[0]) + "..=" + std::to_string(v.r[1]);
      else out += std::to_string(v.r[0]) + ".." + std::to_string(v.r[1] + 1);
      return;
    case T::Func: out += "<fn " + (v.obj ? v.func_ref().display_name() : "?") + ">"; return;
    case T::Tuple: {
      const auto& items = v.items();
      out += '(';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        structured(out, items[i], Summ::Unknown, true, leaf);
      }
      out += items.size() == 1 ? ",)" : ")";
      return;
    }
    case T::Tensor: {
      const Tensor& t = v.tensor_ref();
      if (t.rank() == 0) {
        out += leaf(tensor_get(t, 0), nested);
        return;
      }
      const bool s = summ == Summ::Yes || (summ == Summ::Unknown && t.size() > kSummaryThreshold);
      tensor_axis(out, t, 0, 0, t.strides(), s, leaf);
      return;
    }
    case T::List: {
      if (summ == Summ::Unknown) {
        summ = leaf_count(v, kSummaryThreshold) > kSummaryThreshold ? Summ::Yes : Summ::No;
      }
      const auto& items = v.items();
      each_index(out, static_cast<int64_t>(items.size()), summ == Summ::Yes, [&](int64_t i) {
        structured(out, items[size_t(i)], summ, true, leaf);
      });
      return;
    }
  }
}

}  // namespace

void format_structured(std::string& out, const Value& v, const LeafFormatter& leaf) {
  structured(out, v, Summ::Unknown, false, leaf);
}

}  // namespace vdetail

std::string format_float(double v, DType dt) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (is_float(dt)) v = round_to_float_dtype(v, dt);
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";  // e.g. 1e300 shown as an f32
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string digits;
  int exp = 0;
  vdetail::shortest_digits(v, dt, digits, exp);
  return vdetail::render_repr(std::signbit(v), digits, exp);
}

std::string format_value(const Value& v) {
  std::string out;
  vdetail::format_structured(out, v, [](const Value& x, bool nested) -> std::string {
    switch (x.tag) {
      case Value::Tag::Bool: return x.b ? "true" : "false";
      case Value::Tag::Int: return std::to_string(x.i);
      case Value::Tag::Float: return format_float(x.f, x.dt);
      case Value::Tag::Str: return nested ? vdetail::quote_string(x.str()) : x.str();
      default: return "?";
    }
  });
  return out;
}

}  // namespace ein
