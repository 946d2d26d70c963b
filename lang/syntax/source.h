// Source files and spans. Every node and diagnostic points into a SourceMap by file id and
// byte offsets, so a cell's text stays available for carets long after it was compiled.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ein {

struct Span {
  uint32_t file = 0;  // 0 = no source (compiler-generated)
  uint32_t lo = 0;    // byte offset of first character
  uint32_t hi = 0;    // byte offset one past the last character
  bool valid() const { return file != 0; }
  static Span join(Span a, Span b);  // smallest span covering both (same file), or the valid one
};

struct LineCol {
  int line = 0;  // 1-based
  int col = 0;   // 1-based, in characters (UTF-8 aware)
};

class SourceMap {
 public:
  struct File {
    std::string name;  // "cell[3]", a path, or "<stdin>"
    std::string text;
    std::vector<uint32_t> line_starts;
  };
  SourceMap();
  uint32_t add(std::string name, std::string text);  // returns the new file id (>= 1)
  const File& file(uint32_t id) const;
  bool has(uint32_t id) const { return id > 0 && id < files_.size(); }
  LineCol line_col(uint32_t file, uint32_t offset) const;
  LineCol start(Span s) const { return line_col(s.file, s.lo); }
  std::string line_text(uint32_t file, int line) const;  // without the newline
  std::string snippet(Span s) const;                      // the spanned text

 private:
  std::vector<File> files_;
};

// Source files (programs, modules, %load) larger than this are refused: spans hold 32-bit
// offsets, and nothing of that size is a program a person wrote.
constexpr size_t kMaxSourceBytes = size_t(64) << 20;

// Reads the whole file a user named (a program, a module, the argument of read_file) into
// `out`. Refuses what is not a regular file (a directory, /dev/zero, a FIFO: opened without
// blocking) and files larger than max_bytes, without reading past that bound. Returns "" on
// success, else the reason: "is a directory", "is not a regular file", "is larger than N MiB",
// or the system's error text.
std::string read_user_file(const std::string& path, size_t max_bytes, std::string& out);

}  // namespace ein
