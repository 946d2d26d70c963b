// Interpolation with a format spec, "{x:.4f}": a subset of Python's format mini-language,
//   [[fill]align][sign][0][width][.precision][type]
// align in < > ^ =, sign in + - space, type in f e g d s. Output matches Python's format() for
// these inputs; Einlang-specific parts are bools ("true"/"false") and arrays/tuples, which apply
// the spec to every element inside the usual list syntax.
#include <charconv>
#include <cmath>

#include "engine/value/value.h"
#include "engine/value/value_detail.h"

namespace ein {

namespace {

constexpr int64_t kMaxWidth = 100000;  // beyond this a spec is a mistake, not a layout

struct Spec {
  std::string text;     // original, for messages
  std::string fill = " ";
  bool fill_given = false;
  char align = 0;       // 0 = default for the value kind
  char sign = 0;        // 0, '+', '-', ' '
  bool zero = false;
  int64_t width = -1;
  int prec = -1;
  char type = 0;
};

[[noreturn]] void bad_spec(std::string_view spec) {
  fault("E006", "invalid format spec `" + std::string(spec) + "`");
}

[[noreturn]] void misfit(const Spec& s, const std::string& why) {
  fault("E006", "invalid format spec `" + s.text + "`: " + why);
}

size_t utf8_len(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  if ((c >> 3) == 0x1E) return 4;
  return 1;
}

int64_t codepoints(const std::string& s) {
  int64_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

Spec parse_spec(std::string_view sv) {
  Spec s;
  s.text = std::string(sv);
  size_t pos = 0;
  const size_t n = sv.size();
  const size_t cp = n ? std::min(utf8_len(static_cast<unsigned char>(sv[0])), n) : 0;
  if (n > cp && is_align(sv[cp])) {
    s.fill = std::string(sv.substr(0, cp));
    s.fill_given = true;
    s.align = sv[cp];
    pos = cp + 1;
  } else if (n && is_align(sv[0])) {
    s.align = sv[0];
    pos = 1;
  }
  if (pos < n && (sv[pos] == '+' || sv[pos] == '-' || sv[pos] == ' ')) s.sign = sv[pos++];
  if (pos < n && sv[pos] == '0') {
    s.zero = true;
    ++pos;
  }
  auto number = [&](int64_t& out) {
    const size_t start = pos;
    out = 0;
    while (pos < n && sv[pos] >= '0' && sv[pos] <= '9') {
      out = out * 10 + (sv[pos] - '0');
      if (out > kMaxWidth) bad_spec(sv);
      ++pos;
    }
    return pos > start;
  };
  int64_t w = 0;
  if (number(w)) s.width = w;
  if (pos < n && sv[pos] == '.') {
    ++pos;
    int64_t p = 0;
    if (!number(p)) bad_spec(sv);
    s.prec = static_cast<int>(p);
  }
  if (pos < n && std::string_view("fegds").find(sv[pos]) != std::string_view::npos) s.type = sv[pos++];
  if (pos != n) bad_spec(sv);
  if (s.zero && !s.fill_given) s.fill = "0";
  return s;
}

// Pads `text` to the spec's width. sign_len is how many leading bytes '=' keeps left of the fill.
std::string pad(const std::string& text, const Spec& s, char default_align, size_t sign_len) {
  const int64_t len = codepoints(text);
  if (s.width <= len) return text;
  const int64_t k = s.width - len;
  char align = s.align ? s.align : default_align;
  auto fill = [&](int64_t m) {
    std::string f;
    for (int64_t i = 0; i < m; ++i) f += s.fill;
    return f;
  };
  switch (align) {
    case '<': return text + fill(k);
    case '^': return fill(k / 2) + text + fill(k - k / 2);
    case '=': return text.substr(0, sign_len) + fill(k) + text.substr(sign_len);
    default: return fill(k) + text;
  }
}

std::string sign_prefix(bool neg, const Spec& s) {
  if (neg) return "-";
  if (s.sign == '+') return "+";
  if (s.sign == ' ') return " ";
  return "";
}

std::string format_number(const std::string& sign, const std::string& body, const Spec& s) {
  return pad(sign + body, s, s.zero ? '=' : '>', sign.size());
}

std::string format_text(const std::string& text0, const Spec& s) {
  if (s.sign) misfit(s, "a sign is not allowed for text");
  if (s.align == '=') misfit(s, "`=` alignment is not allowed for text");
  std::string text = text0;
  if (s.prec >= 0 && codepoints(text) > s.prec) {
    // Precision truncates text to that many characters, as in Python.
    size_t i = 0;
    for (int64_t c = 0; c < s.prec && i < text.size(); ++c) i += utf8_len(static_cast<unsigned char>(text[i]));
    text.resize(std::min(i, text.size()));
  }
  return pad(text, s, '<', 0);
}

std::string float_body(double a, DType dt, const Spec& s) {
  if (std::isnan(a)) return "nan";
  if (std::isinf(a)) return "inf";
  std::string digits;
  int exp = 0;
  switch (s.type) {
    case 'f':
    case 'e': {
      const int p = s.prec < 0 ? 6 : s.prec;
      std::string buf(size_t(p) + 400, '\0');  // 309 integer digits at most, plus the fraction
      auto r = std::to_chars(buf.data(), buf.data() + buf.size(), a,
                             s.type == 'f' ? std::chars_format::fixed : std::chars_format::scientific, p);
      return std::string(buf.data(), r.ptr);
    }
    case 'g': {
      const int p = s.prec < 0 ? 6 : std::max(s.prec, 1);
      vdetail::rounded_digits(a, p, digits, exp);
      if (exp >= -4 && exp < p) return vdetail::render_fixed(digits, exp, 0);
      return vdetail::render_sci(digits, exp);
    }
    default: {
      if (s.prec < 0) return format_float(a, dt);  // repr
      // Python's no-type-with-precision: like 'g', but a fixed result keeps a ".0" and the
      // switch to scientific happens one exponent earlier.
      const int p = std::max(s.prec, 1);
      vdetail::rounded_digits(a, p, digits, exp);
      if (exp >= -4 && exp < p - 1) return vdetail::render_fixed(digits, exp, 1);
      return vdetail::render_sci(digits, exp);
    }
  }
}

std::string format_float_spec(double v, DType dt, const Spec& s) {
  if (s.type == 'd') misfit(s, std::string("`d` needs an integer, found ") + dtype_name(dt));
  if (s.type == 's') misfit(s, std::string("`s` needs a string, found ") + dtype_name(dt));
  const bool neg = std::signbit(v) && !std::isnan(v);
  return format_number(sign_prefix(neg, s), float_body(std::fabs(v), dt, s), s);
}

std::string format_int_spec(int64_t v, DType dt, const Spec& s) {
  if (s.type == 'f' || s.type == 'e' || s.type == 'g') {
    return format_float_spec(static_cast<double>(v), DType::F64, s);
  }
  if (s.type == 's') misfit(s, std::string("`s` needs a string, found ") + dtype_name(dt));
  if (s.prec >= 0) misfit(s, "precision is not allowed for integers");
  const uint64_t mag = v < 0 ? uint64_t{0} - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return format_number(sign_prefix(v < 0, s), std::to_string(mag), s);
}

std::string format_leaf(const Value& x, bool nested, const Spec& s) {
  switch (x.tag) {
    case Value::Tag::Bool:
      if (s.type == 0 || s.type == 's') return format_text(x.b ? "true" : "false", s);
      return format_int_spec(x.b ? 1 : 0, DType::I32, s);
    case Value::Tag::Int: return format_int_spec(x.i, x.dt, s);
    case Value::Tag::Float: return format_float_spec(x.f, x.dt, s);
    case Value::Tag::Str:
      if (s.type != 0 && s.type != 's') {
        // "{pair:.2f}" on (1.5, "a"): the spec is meant for the numbers; leave the text alone.
        if (nested) return vdetail::quote_string(x.str());
        misfit(s, std::string("`") + s.type + "` needs a number, found str");
      }
      return format_text(nested ? vdetail::quote_string(x.str()) : x.str(), s);
    default: return format_value(x);
  }
}

}  // namespace

std::string format_with_spec(const Value& v, std::string_view spec) {
  if (spec.empty()) return format_value(v);
  const Spec s = parse_spec(spec);
  using T = Value::Tag;
  switch (v.tag) {
    case T::Unit:
    case T::Range:
    case T::Func:
      if (s.type || s.prec >= 0 || s.sign || s.zero) {
        misfit(s, "only fill, alignment and width apply to " + type_string(v));
      }
      return format_text(format_value(v), s);
    default: break;
  }
  std::string out;
  vdetail::format_structured(out, v, [&s](const Value& x, bool nested) { return format_leaf(x, nested, s); });
  return out;
}

}  // namespace ein
