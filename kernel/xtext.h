// Text positions for the kernel. Jupyter counts cursor positions in Unicode code points
// (protocol 5.2+); the Session works on UTF-8 bytes. These helpers convert between the two and
// find the name a cursor is on.
#pragma once
#include <cstddef>
#include <string>

namespace ein::kernel {

// Byte offset of code point `cp` in UTF-8 `s` (clamped to s.size()).
size_t byte_offset(const std::string& s, long cp);
// Number of code points in s[0, bytes).
long code_points(const std::string& s, size_t bytes);

bool is_name_char(char c);

// The identifier path (`x`, `std::math::si`) that ends at byte `pos`: its start byte.
size_t path_start(const std::string& s, size_t pos);
// The whole identifier path around byte `pos` (for inspection): [begin, end).
struct Span2 {
  size_t begin = 0, end = 0;
};
Span2 path_around(const std::string& s, size_t pos);

}  // namespace ein::kernel
