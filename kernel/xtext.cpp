// Code-point/byte conversions and name extraction (see xtext.h).
#include "kernel/xtext.h"

#include <cctype>

namespace ein::kernel {

namespace {
bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

size_t byte_offset(const std::string& s, long cp) {
  if (cp <= 0) return 0;
  long seen = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (continuation(s[i])) continue;
    if (seen == cp) return i;
    ++seen;
  }
  return s.size();
}

long code_points(const std::string& s, size_t bytes) {
  long n = 0;
  for (size_t i = 0; i < bytes && i < s.size(); ++i)
    if (!continuation(s[i])) ++n;
  return n;
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

size_t path_start(const std::string& s, size_t pos) {
  if (pos > s.size()) pos = s.size();
  size_t b = pos;
  for (;;) {
    while (b > 0 && is_name_char(s[b - 1])) --b;
    // Continue through `::` only when a name precedes it: `std::ma` but not `::ma` alone.
    if (b >= 3 && s[b - 1] == ':' && s[b - 2] == ':' && is_name_char(s[b - 3])) {
      b -= 2;
      continue;
    }
    return b;
  }
}

Span2 path_around(const std::string& s, size_t pos) {
  if (pos > s.size()) pos = s.size();
  // A cursor just after a name (the usual case for shift-tab) inspects that name.
  size_t e = pos;
  for (;;) {
    while (e < s.size() && is_name_char(s[e])) ++e;
    if (e + 2 < s.size() && s[e] == ':' && s[e + 1] == ':' && is_name_char(s[e + 2])) {
      e += 2;
      continue;
    }
    break;
  }
  return {path_start(s, pos), e};
}

}  // namespace ein::kernel
