// The terminal heat map (see plot.h, text_heatmap). gnuplot's dumb terminal maps an image's
// values to its few ANSI colours in no perceptual order and labels its colour box with the
// palette's range rather than the data's, so the REPL draws heat maps itself: a sequential
// palette (viridis on the xterm 256-colour cube, 16 steps of increasing luminance) with two
// pixels per character cell (upper half block, foreground = upper pixel, background = lower),
// and a colour bar labelled with the data's own minimum, middle and maximum.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/plot/plot.h"

namespace ein::plot {

namespace {

// Light to dark would read as "more ink is more"; viridis goes dark purple (low) to yellow
// (high) with luminance increasing monotonically, which is what makes it readable. Sampling
// viridis and rounding to the 6x6x6 cube gave only ten distinct colours, one of them darker
// than the step below it; these sixteen cube colours are the closest to viridis at 16 equal
// steps under the constraint that each is distinct and at least 5% more luminous (WCAG
// relative luminance of the xterm cube's sRGB values) than the one before.
constexpr int kLevels = 16;  // distinct colours shown
constexpr int kPalette[kLevels] = {53, 54, 55, 59, 60, 61, 30, 31, 66, 36, 72, 77, 114, 149, 184, 220};
constexpr const char* kRamp = ".,:-=+*#%@";  // without colours: more ink, higher value (NaN: blank)

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

int palette_level(double v, double lo, double hi) {
  if (!std::isfinite(v)) return -1;
  if (!(hi > lo)) return kLevels / 2;
  return std::clamp(int((v - lo) / (hi - lo) * kLevels), 0, kLevels - 1);
}

int palette_color(int level) { return kPalette[std::clamp(level, 0, kLevels - 1)]; }

std::string text_heatmap(const Spec& spec, const Size& size) {
  const auto& m = spec.matrix;
  const size_t R = m.size(), C = R ? m[0].size() : 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (auto& row : m)
    for (double v : row)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  const bool any = lo <= hi;
  if (!any) lo = hi = 0;
  const std::string top = label(hi), mid = label((lo + hi) / 2), bottom = label(lo);
  const size_t bar_w = 2 + 1 + std::max({top.size(), mid.size(), bottom.size()});
  const size_t margin = std::to_string(R ? R - 1 : 0).size() + 2;
  const size_t avail_w = size_t(std::max(10, size.cols)) > margin + bar_w + 4 ? size_t(size.cols) - margin - bar_w - 4 : 10;
  const size_t avail_h = size_t(std::max(4, size.rows - 3));
  // With colours a character holds two pixels, so k x k pixels per matrix cell look square; a
  // matrix larger than the space is sampled (nearest point) at the space's resolution.
  const bool color = size.color;
  const size_t pix_h = color ? 2 * avail_h : avail_h;
  const size_t k = std::max<size_t>(1, std::min(C ? avail_w / C : 1, R ? pix_h / R : 1));
  const size_t W = std::min(avail_w, C * k), H = std::min(pix_h, R * k);
  auto at = [&](size_t py, size_t px) { return m[std::min(R - 1, py * R / H)][std::min(C - 1, px * C / W)]; };
  std::string out;
  if (!spec.title.empty()) out += std::string(margin + (W > spec.title.size() ? (W - spec.title.size()) / 2 : 0), ' ') + spec.title + "\n";
  const size_t lines = color ? (H + 1) / 2 : H;
  for (size_t y = 0; y < lines; ++y) {
    // Row labels: the first and last matrix row.
    std::string lab = y == 0 ? "0" : y + 1 == lines ? std::to_string(R - 1) : "";
    out += std::string(margin - 1 - lab.size(), ' ') + lab + " ";
    for (size_t x = 0; x < W; ++x) {
      if (!color) {
        int l = palette_level(at(y, x), lo, hi);
        out += l < 0 ? ' ' : kRamp[size_t(l) * (std::char_traits<char>::length(kRamp) - 1) / (kLevels - 1)];
        continue;
      }
      int up = palette_level(at(2 * y, x), lo, hi);
      int down = 2 * y + 1 < H ? palette_level(at(2 * y + 1, x), lo, hi) : -1;
      std::string cell = up >= 0 ? "\033[38;5;" + std::to_string(palette_color(up)) + "m" : "\033[39m";
      cell += down >= 0 ? "\033[48;5;" + std::to_string(palette_color(down)) + "m" : "\033[49m";
      out += cell + (up >= 0 ? "\u2580" : " ");  // NaN: the terminal's own background
    }
    if (color) out += "\033[0m";
    // Colour bar: top = maximum, as the labels say.
    int level = lines <= 1 ? kLevels - 1 : int((lines - 1 - y) * (kLevels - 1) / (lines - 1));
    out += "   ";
    if (color) out += "\033[48;5;" + std::to_string(palette_color(level)) + "m  \033[0m";
    else out += std::string(2, kRamp[size_t(level) * (std::char_traits<char>::length(kRamp) - 1) / (kLevels - 1)]);
    std::string bl = y == 0 ? top : y + 1 == lines ? bottom : y == lines / 2 ? mid : "";
    out += bl.empty() ? "" : " " + bl;
    out += "\n";
  }
  // Column labels: the first and last matrix column under their ends.
  std::string last = std::to_string(C ? C - 1 : 0);
  std::string axis = std::string(margin, ' ') + "0";
  if (W > last.size() + 1) axis += std::string(W - 1 - last.size(), ' ') + last;
  out += axis + "\n";
  if (!any) out += "(no finite values)\n";
  return out;
}

}  // namespace ein::plot
