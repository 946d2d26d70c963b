#include "lang/syntax/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ein {

Span Span::join(Span a, Span b) {
  if (!a.valid()) return b;
  if (!b.valid() || a.file != b.file) return a;
  return Span{a.file, std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

SourceMap::SourceMap() { files_.push_back(File{"<generated>", "", {0}}); }

uint32_t SourceMap::add(std::string name, std::string text) {
  File f{std::move(name), std::move(text), {0}};
  for (uint32_t i = 0; i < f.text.size(); ++i)
    if (f.text[i] == '\n') f.line_starts.push_back(i + 1);
  files_.push_back(std::move(f));
  return static_cast<uint32_t>(files_.size() - 1);
}

const SourceMap::File& SourceMap::file(uint32_t id) const {
  return id < files_.size() ? files_[id] : files_[0];
}

LineCol SourceMap::line_col(uint32_t id, uint32_t offset) const {
  const File& f = file(id);
  offset = std::min<uint32_t>(offset, f.text.size());
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
  int line = static_cast<int>(it - f.line_starts.begin());
  uint32_t start = f.line_starts[line - 1];
  int col = 1;
  // Count characters, not bytes: UTF-8 continuation bytes do not advance the column.
  for (uint32_t i = start; i < offset; ++i)
    if ((static_cast<unsigned char>(f.text[i]) & 0xC0) != 0x80) ++col;
  return LineCol{line, col};
}

std::string SourceMap::line_text(uint32_t id, int line) const {
  const File& f = file(id);
  if (line < 1 || line > static_cast<int>(f.line_starts.size())) return "";
  uint32_t b = f.line_starts[line - 1];
  uint32_t e = line < static_cast<int>(f.line_starts.size()) ? f.line_starts[line] : f.text.size();
  std::string s = f.text.substr(b, e - b);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string SourceMap::snippet(Span s) const {
  const File& f = file(s.file);
  if (s.lo >= f.text.size() || s.hi < s.lo) return "";
  return f.text.substr(s.lo, s.hi - s.lo);
}

std::string read_user_file(const std::string& path, size_t max_bytes, std::string& out) {
  out.clear();
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::strerror(errno);
  struct stat st {};
  std::string why;
  if (::fstat(fd, &st) != 0) why = std::strerror(errno);
  else if (S_ISDIR(st.st_mode)) why = "is a directory";
  else if (!S_ISREG(st.st_mode)) why = "is not a regular file";
  auto too_large = [&] {
    return "is larger than " + (max_bytes >= (1u << 20) ? std::to_string(max_bytes >> 20) + " MiB"
                                                          : std::to_string(max_bytes) + " bytes");
  };
  if (why.empty() && static_cast<uint64_t>(st.st_size) > max_bytes) why = too_large();
  // st_size may be 0 for files whose size the kernel does not know (/proc): read to the end,
  // but never more than the bound.
  char buf[1 << 16];
  while (why.empty()) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) why = std::strerror(errno);
    if (n <= 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) why = too_large();
    else out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!why.empty()) out.clear();
  return why;
}

}  // namespace ein
