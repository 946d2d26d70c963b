// gnuplot programs for the plot kinds, and base64 for PNGs in notebook display data.
#include "engine/plot/plot.h"

#include "engine/config/env.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace ein::plot {

namespace {

// Single-quoted gnuplot strings have no escapes except '' for '; a newline would end the
// command, so titles are kept to one line.
std::string quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else out += c;
  }
  return out + "'";
}

std::string num(double v) {
  // Infinities cannot be drawn; gnuplot treats NaN as a gap (set datafile missing below).
  if (!std::isfinite(v)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// A line of a million points draws no more than its envelope per pixel column: above 4 points
// per bucket, each of kBuckets x-intervals keeps its first, lowest, highest and last point (in x
// order), so every peak and the curve's extent survive while the data shrinks to <= 4 kBuckets
// points. A non-finite value keeps its point, so gaps stay gaps. Needs x non-decreasing.
constexpr size_t kBuckets = 2000;  // above the pixel width of any picture we draw

std::vector<size_t> envelope(const Series& ser) {
  size_t n = ser.y.size();
  auto x_at = [&](size_t i) { return i < ser.x.size() ? ser.x[i] : static_cast<double>(i); };
  std::vector<size_t> keep;
  bool sorted = true;
  for (size_t i = 1; i < n && sorted; ++i) sorted = x_at(i) >= x_at(i - 1);
  if (n <= 4 * kBuckets || !sorted || !std::isfinite(x_at(0)) || !std::isfinite(x_at(n - 1))) {
    for (size_t i = 0; i < n; ++i) keep.push_back(i);
    return keep;
  }
  double lo = x_at(0), span = x_at(n - 1) - x_at(0);
  size_t i = 0;
  while (i < n) {
    size_t b = span > 0 ? std::min(kBuckets - 1, size_t((x_at(i) - lo) / span * double(kBuckets))) : 0;
    size_t first = i, lowest = n, highest = n;
    std::vector<size_t> gaps;
    for (; i < n; ++i) {
      size_t bi = span > 0 ? std::min(kBuckets - 1, size_t((x_at(i) - lo) / span * double(kBuckets))) : 0;
      if (bi != b) break;
      double y = ser.y[i];
      if (!std::isfinite(y)) {
        gaps.push_back(i);
        continue;
      }
      if (lowest == n || y < ser.y[lowest]) lowest = i;
      if (highest == n || y > ser.y[highest]) highest = i;
    }
    std::vector<size_t> pts = {first, i - 1};
    if (lowest != n) pts.push_back(lowest);
    if (highest != n) pts.push_back(highest);
    pts.insert(pts.end(), gaps.begin(), gaps.begin() + std::min<size_t>(gaps.size(), 2));
    std::sort(pts.begin(), pts.end());
    pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
    keep.insert(keep.end(), pts.begin(), pts.end());
  }
  return keep;
}

std::string datablocks(const Spec& spec) {
  std::string s;
  if (spec.kind == Kind::Heatmap) {
    s += "$m << EOD\n";
    for (auto& row : spec.matrix) {
      for (size_t j = 0; j < row.size(); ++j) s += (j ? " " : "") + num(row[j]);
      s += "\n";
    }
    return s + "EOD\n";
  }
  for (size_t k = 0; k < spec.series.size(); ++k) {
    const Series& ser = spec.series[k];
    s += "$d" + std::to_string(k) + " << EOD\n";
    double nser = static_cast<double>(spec.series.size());
    std::vector<size_t> shown;
    if (spec.kind == Kind::Line) shown = envelope(ser);
    else for (size_t i = 0; i < ser.y.size(); ++i) shown.push_back(i);
    for (size_t i : shown) {
      double x = i < ser.x.size() ? ser.x[i] : static_cast<double>(i);
      // Grouped bars: each series is shifted inside the unit slot of its x position.
      if (spec.kind == Kind::Bar && nser > 1) x += (static_cast<double>(k) - (nser - 1) / 2) * 0.8 / nser;
      s += num(x) + " " + num(ser.y[i]) + "\n";
    }
    s += "EOD\n";
  }
  return s;
}

std::string plot_command(const Spec& spec) {
  if (spec.kind == Kind::Heatmap) return "plot $m matrix with image notitle\n";
  std::string style;
  switch (spec.kind) {
    case Kind::Line: style = "with lines lw 2"; break;
    case Kind::Scatter: style = "with points pt 7 ps 0.7"; break;
    case Kind::Bar: style = "with boxes"; break;
    case Kind::Heatmap: break;
  }
  std::string cmd = "plot ";
  for (size_t k = 0; k < spec.series.size(); ++k) {
    if (k) cmd += ", \\\n     ";
    cmd += "$d" + std::to_string(k) + " using 1:2 " + style + " lc " + std::to_string(k + 1);
    cmd += spec.series.size() > 1 ? " title " + quote(spec.series[k].label) : " notitle";
  }
  return cmd + "\n";
}

std::string terminal(Format f, const Size& z) {
  std::string w = std::to_string(z.width), h = std::to_string(z.height);
  switch (f) {
    case Format::Svg:
      return "set terminal svg size " + w + "," + h +
             " dynamic noenhanced font 'sans,11' background rgb 'white'\n";
    case Format::Png:
      return "set terminal pngcairo size " + w + "," + h +
             " noenhanced font 'sans,10' background rgb 'white'\n";
    case Format::Text:
      return "set terminal dumb size " + std::to_string(z.cols) + "," + std::to_string(z.rows) +
             " noenhanced nofeed " + (z.color ? "ansi" : "mono") + "\n";
  }
  return "";
}

}  // namespace

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Line: return "line";
    case Kind::Scatter: return "scatter";
    case Kind::Heatmap: return "heatmap";
    case Kind::Bar: return "bar";
  }
  return "?";
}

std::string script(const Spec& spec, const std::vector<Format>& formats,
                   const std::vector<std::string>& outputs, const Size& size) {
  std::string s = "set encoding utf8\nset datafile missing 'NaN'\n";
  s += datablocks(spec);
  if (!spec.title.empty()) s += "set title " + quote(spec.title) + "\n";
  s += spec.series.size() > 1 ? "set key outside right top\n" : "set key off\n";
  if (spec.kind == Kind::Heatmap) {
    size_t rows = spec.matrix.size(), cols = rows ? spec.matrix[0].size() : 0;
    // Matrix orientation: row 0 at the top, like the printed array.
    s += "set xrange [-0.5:" + num(static_cast<double>(cols) - 0.5) + "]\n";
    s += "set yrange [" + num(static_cast<double>(rows) - 0.5) + ":-0.5]\n";
  } else if (spec.kind == Kind::Bar) {
    double n = static_cast<double>(spec.series.size());
    s += "set style fill solid 0.7 border -1\nset boxwidth " + num(0.8 / (n > 0 ? n : 1)) +
         " absolute\nset yrange [*<0:0<*]\n";
  }
  if (spec.kind == Kind::Bar || spec.kind == Kind::Line || spec.kind == Kind::Scatter)
    s += "set autoscale xfix\nset offsets graph 0.02, graph 0.02, graph 0.05, graph 0.05\n";
  std::string cmd = plot_command(spec);
  for (size_t i = 0; i < formats.size() && i < outputs.size(); ++i) {
    s += terminal(formats[i], size);
    s += "set output " + quote(outputs[i]) + "\n";
    s += cmd;
    s += "unset output\n";
  }
  return s;
}

std::string gnuplot_program() {
  return config::value(config::Env::Gnuplot).value_or("gnuplot");
}

std::string base64(std::string_view bytes) {
  static const char* abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += abc[(v >> 6) & 63];
    out += abc[v & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= uint8_t(bytes[i + 1]) << 8;
    out += abc[(v >> 18) & 63];
    out += abc[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? abc[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace ein::plot
