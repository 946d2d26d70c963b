// The echo of a cell's value in a terminal and in Jupyter's text/plain (see echo.h).
#include "engine/session/echo.h"

#include <algorithm>

namespace ein {

namespace {

constexpr int64_t kSummaryThreshold = 1000;  // as print (SPEC §8): summarise above 1000 items
constexpr int64_t kEdge = 3;                 // items kept at each end of a summarised axis

size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

// The indices shown along an axis of extent n; -1 stands for the elided middle.
std::vector<int64_t> shown(int64_t n, int64_t edge) {
  std::vector<int64_t> out;
  if (edge < 0 || n <= 2 * edge) {
    for (int64_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (int64_t i = 0; i < edge; ++i) out.push_back(i);
  out.push_back(-1);
  for (int64_t i = n - edge; i < n; ++i) out.push_back(i);
  return out;
}

struct Grid {
  const Tensor& t;
  std::vector<int64_t> strides;
  std::vector<std::vector<int64_t>> axes;  // shown indices per axis
  size_t width = 0;                        // widest item: every item is right-aligned to it

  std::string item(int64_t flat) const { return format_value(tensor_get(t, flat)); }

  void measure(int axis, int64_t offset) {
    for (int64_t i : axes[size_t(axis)]) {
      if (i < 0) continue;
      int64_t o = offset + i * strides[size_t(axis)];
      if (axis + 1 == t.rank()) width = std::max(width, columns(item(o)));
      else measure(axis + 1, o);
    }
  }

  void render(std::string& out, int axis, int64_t offset) const {
    out += '[';
    const auto& idx = axes[size_t(axis)];
    const bool last = axis + 1 == t.rank();
    for (size_t k = 0; k < idx.size(); ++k) {
      if (k) {
        out += ',';
        if (last) {
          out += ' ';
        } else {
          // Rows of a matrix on their own lines; a blank line between 2-D slices (as NumPy).
          out += std::string(size_t(t.rank() - axis - 1), '\n');
          out += std::string(size_t(axis + 1), ' ');
        }
      }
      if (idx[k] < 0) {
        out += "...";
        continue;
      }
      int64_t o = offset + idx[k] * strides[size_t(axis)];
      if (last) {
        std::string s = item(o);
        out += std::string(width - std::min(width, columns(s)), ' ') + s;
      } else {
        render(out, axis + 1, o);
      }
    }
    out += ']';
  }
};

}  // namespace

std::string format_echo(const Value& v, int width) {
  if (v.tag != Value::Tag::Tensor || v.tensor_ref().rank() < 2) return format_value(v);
  const Tensor& t = v.tensor_ref();
  if (t.size() == 0) return type_string(v) + " (empty)";
  const bool summarise = t.size() > kSummaryThreshold;
  Grid g{t, t.strides(), {}, 0};
  for (int a = 0; a < t.rank(); ++a) g.axes.push_back(shown(t.dim(a), summarise ? kEdge : -1));
  g.measure(0, 0);
  // A row must fit the width: keep as many items at each end of the last axis as fit.
  const int64_t cols = t.dim(t.rank() - 1);
  auto row_width = [&](int64_t items) { return int64_t(t.rank()) * 2 + items * int64_t(g.width + 2); };
  if (width > 0 && row_width(int64_t(g.axes.back().size())) > width) {
    int64_t edge = 1;
    while (2 * (edge + 1) + 1 < cols && row_width(2 * (edge + 1) + 1) <= width) ++edge;
    g.axes.back() = shown(cols, edge);
  }
  std::string out;
  if (summarise || g.axes.back().size() < size_t(cols)) out += type_string(v) + "\n";
  g.render(out, 0, 0);
  return out;
}

}  // namespace ein
