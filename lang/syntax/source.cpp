#include "lang/syntax/source.h"

#include <algorithm>

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

}  // namespace ein
