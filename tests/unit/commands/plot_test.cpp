// %plot and engine/plot: argument parsing, value checks, valid SVG and PNG files, notebook
// display data, terminal drawings, and a clear message when gnuplot is missing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "engine/plot/plot.h"
#include "tests/unit/commands/command_helpers.h"

namespace ein::testing_commands {
namespace {

bool have_gnuplot() {
  static const bool yes = [] {
    plot::Spec s;
    s.series.push_back(plot::Series{"a", {}, {1, 2}});
    return plot::render(s, {plot::Format::Text}).ok;
  }();
  return yes;
}

#define NEED_GNUPLOT() \
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed"

std::string decode_base64(const std::string& in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::string out;
  int bits = 0, acc = 0;
  for (char c : in) {
    int v = val(c);
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

bool is_png(const std::string& bytes) { return bytes.rfind("\x89PNG\r\n\x1a\n", 0) == 0; }

bool is_svg(const std::string& text) {
  size_t root = text.find("<svg");
  return root != std::string::npos && text.find("</svg>") != std::string::npos &&
         text.find("xmlns=\"http://www.w3.org/2000/svg\"") != std::string::npos &&
         text.rfind("<?xml", 0) == 0;
}

TEST(PlotLib, Base64) {
  EXPECT_EQ(plot::base64(""), "");
  EXPECT_EQ(plot::base64("f"), "Zg==");
  EXPECT_EQ(plot::base64("fo"), "Zm8=");
  EXPECT_EQ(plot::base64("foo"), "Zm9v");
  EXPECT_EQ(plot::base64(std::string("\x89PNG", 4)), "iVBORw==");
}

TEST(PlotLib, ScriptQuotesTitlesAndMarksGaps) {
  plot::Spec s;
  s.title = "it's\nhere";
  s.series.push_back(plot::Series{"row 0", {}, {1.0, std::nan(""), 3.0}});
  std::string gp = plot::script(s, {plot::Format::Svg}, {"/tmp/o.svg"}, plot::Size{});
  EXPECT_NE(gp.find("set title 'it''s here'"), std::string::npos) << gp;
  EXPECT_NE(gp.find("1 NaN\n"), std::string::npos) << gp;
  EXPECT_NE(gp.find("set output '/tmp/o.svg'"), std::string::npos);
  EXPECT_NE(gp.find("with lines"), std::string::npos);
}

TEST(PlotCommand, WritesValidSvgAndPngFiles) {
  NEED_GNUPLOT();
  TempDir d;
  TestSession t;
  t.term("let ys[i in 0..50] = (i * i) as f32;");
  std::string svg = (d.path / "curve.svg").string(), png = (d.path / "curve.png").string();
  ExecuteResult a = t.term("%plot ys title \"squares\" --out " + svg);
  ASSERT_TRUE(a.ok) << a.error << a.cell.rendered;
  EXPECT_NE(a.text.find("saved plot to " + svg), std::string::npos);
  std::string svg_text = read_file(svg);
  EXPECT_TRUE(is_svg(svg_text)) << svg_text.substr(0, 200);
  EXPECT_NE(svg_text.find("squares"), std::string::npos);
  ExecuteResult b = t.rich("%plot ys as scatter --out " + png);
  ASSERT_TRUE(b.ok) << b.error;
  EXPECT_TRUE(is_png(read_file(png)));
}

// A notebook display is a PNG (which survives nbconvert's HTML sanitiser, an SVG does not) and
// the terminal drawing as text/plain, without colours (jupyter console shows it).
TEST(PlotCommand, NotebookDisplayHasBase64PngAndTextDrawing) {
  NEED_GNUPLOT();
  TestSession t;
  ExecuteResult r = t.rich("%plot [[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]] as bar");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.displays.size(), 1u);
  const auto& m = r.displays[0].mime;
  ASSERT_TRUE(m.count("image/png") && m.count("text/plain"));
  EXPECT_FALSE(m.count("image/svg+xml"));
  EXPECT_TRUE(is_png(decode_base64(m.at("image/png"))));
  EXPECT_NE(m.at("text/plain").find("+---"), std::string::npos) << m.at("text/plain");
  EXPECT_EQ(m.at("text/plain").find('\033'), std::string::npos);
}

// The terminal heat map: colours ordered by value along a row, the bar labelled with the data's
// own extremes (gnuplot's dumb terminal used unordered colours and the palette's range).
TEST(TextHeatmap, ColoursAreOrderedAndTheBarIsLabelledWithTheData) {
  plot::Spec spec;
  spec.kind = plot::Kind::Heatmap;
  for (int r = 0; r < 4; ++r) {
    std::vector<double> row;
    for (int c = 0; c < 8; ++c) row.push_back(10.0 + c * 5.0);  // 10 .. 45 left to right
    spec.matrix.push_back(row);
  }
  plot::Size size;
  size.cols = 60;
  size.rows = 12;
  size.color = true;
  std::string text = plot::text_heatmap(spec, size);
  std::string first = text.substr(0, text.find('\n'));
  std::vector<int> levels;
  for (size_t at = first.find("\033[38;5;"); at != std::string::npos; at = first.find("\033[38;5;", at + 1)) {
    int code = std::atoi(first.c_str() + at + 7);
    int level = -1;
    for (int l = 0; l < 16; ++l)
      if (plot::palette_color(l) == code) level = l;
    ASSERT_GE(level, 0) << code;
    levels.push_back(level);
  }
  ASSERT_GE(levels.size(), 8u);
  EXPECT_TRUE(std::is_sorted(levels.begin(), levels.end()));
  EXPECT_EQ(levels.front(), 0);
  EXPECT_EQ(levels.back(), 15);
  EXPECT_EQ(first.substr(first.size() - 3), " 45") << first;  // the maximum, at the top
  std::string rest = text.substr(0, text.rfind('\n', text.size() - 2));
  std::string last_row = rest.substr(rest.rfind('\n') + 1);
  EXPECT_EQ(last_row.substr(last_row.size() - 3), " 10") << text;  // the minimum, at the bottom
  // The palette's colours are distinct and get strictly lighter with the value (viridis):
  // relative luminance (WCAG) of the xterm cube's sRGB levels 0, 95, 135, 175, 215, 255.
  auto luminance = [](int idx) {
    const int v = idx - 16, lv[3] = {v / 36, (v / 6) % 6, v % 6}, step[6] = {0, 95, 135, 175, 215, 255};
    const double w[3] = {0.2126, 0.7152, 0.0722};
    double y = 0;
    for (int k = 0; k < 3; ++k) {
      double c = step[lv[k]] / 255.0;
      y += w[k] * (c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
    }
    return y;
  };
  for (int l = 0; l < 16; ++l) {
    EXPECT_GE(plot::palette_color(l), 16) << l;  // the 6x6x6 cube, whose sRGB values are fixed
    EXPECT_LE(plot::palette_color(l), 231) << l;
  }
  for (int l = 1; l < 16; ++l)
    EXPECT_GT(luminance(plot::palette_color(l)), luminance(plot::palette_color(l - 1)) * 1.04) << l;
  // Without colours: a ramp of denser characters, ordered too, and NaN left blank.
  spec.matrix[0][0] = std::nan("");
  size.color = false;
  text = plot::text_heatmap(spec, size);
  std::string row1 = text.substr(text.find("\n 3 ") + 1);  // the last matrix row (no NaN)
  row1 = row1.substr(0, row1.find('\n'));
  const std::string ramp = ".,:-=+*#%@";
  std::vector<size_t> ink;
  for (size_t i = 3; i < row1.size() && row1[i] != ' '; ++i) ink.push_back(ramp.find(row1[i]));  // after " 0 "
  ASSERT_GE(ink.size(), 8u) << text;
  EXPECT_TRUE(std::is_sorted(ink.begin(), ink.end())) << row1;
  EXPECT_EQ(ink.front(), 0u);
  EXPECT_EQ(ink.back(), ramp.size() - 1);
  EXPECT_EQ(text.substr(0, text.find('\n')).find("0  "), 1u) << text;  // NaN at [0][0] is blank
}

// 10^6 points of a line keep their envelope: every bucket's extremes, far fewer points.
TEST(PlotScript, LongLinesAreReducedToTheirEnvelope) {
  plot::Spec spec;
  plot::Series s;
  const size_t n = 1000000;
  for (size_t i = 0; i < n; ++i) s.y.push_back(std::sin(double(i) * 0.001));
  s.y[123457] = 5.0;   // one spike far above the curve
  s.y[800001] = -7.0;  // and one below
  spec.series.push_back(s);
  std::string text = plot::script(spec, {plot::Format::Png}, {"/dev/null"}, plot::Size{});
  size_t lines = 0;
  for (char ch : text) lines += ch == '\n';
  EXPECT_LT(lines, 10000u);
  EXPECT_NE(text.find("\n123457 5\n"), std::string::npos);
  EXPECT_NE(text.find("\n800001 -7\n"), std::string::npos);
  EXPECT_NE(text.find("\n0 0\n"), std::string::npos);  // the first point
  EXPECT_NE(text.find("\n999999 "), std::string::npos);  // and the last
  // A scatter plot is drawn point by point.
  spec.kind = plot::Kind::Scatter;
  spec.series[0].y.resize(20000);
  text = plot::script(spec, {plot::Format::Png}, {"/dev/null"}, plot::Size{});
  lines = 0;
  for (char ch : text) lines += ch == '\n';
  EXPECT_GT(lines, 20000u);
}

TEST(PlotCommand, TerminalDrawing) {
  NEED_GNUPLOT();
  TestSession t;
  t.term("let v = [0.0, 1.0, 4.0, 9.0, 16.0];");
  ExecuteResult plain = t.term("%plot v", /*color=*/false);
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_TRUE(plain.displays.empty());
  EXPECT_EQ(plain.text.find('\033'), std::string::npos) << "no colours when not asked";
  EXPECT_NE(plain.text.find("+---"), std::string::npos) << plain.text;  // the frame
  EXPECT_NE(plain.text.find("16"), std::string::npos) << plain.text;    // a y tic
  ExecuteResult color = t.term("%plot v as line title \"v\"", /*color=*/true);
  ASSERT_TRUE(color.ok) << color.error;
  EXPECT_NE(color.text.find("\033["), std::string::npos);
  ExecuteResult heat = t.term("%plot [[1, 2], [3, 4]] as heatmap", true);
  EXPECT_TRUE(heat.ok) << heat.error;
}

TEST(PlotCommand, ExpressionOptionsAndCasts) {
  NEED_GNUPLOT();
  TestSession t;
  // `as f64` is a cast inside the expression, `as line` the plot kind.
  ExecuteResult r = t.rich("%plot [1, 2, 3] as f64 as line");
  EXPECT_TRUE(r.ok) << r.error << r.cell.rendered;
  ExecuteResult xy = t.rich("%plot ([0.0, 0.5, 1.0], [1.0, 4.0, 2.0]) as scatter");
  EXPECT_TRUE(xy.ok) << xy.error << xy.cell.rendered;
  ExecuteResult range = t.rich("%plot 0..20");
  EXPECT_TRUE(range.ok) << range.error;
}

TEST(PlotCommand, BadInputsAreClearErrors) {
  TestSession t;
  t.term("let s = 3.0; let cube = [[[1.0]]];");
  struct Case {
    const char* input;
    const char* message;
  } cases[] = {
      {"%plot s", "cannot plot a value of type f32"},
      {"%plot cube", "cannot plot an array of rank 3"},
      {"%plot [1.0, 2.0] as pie", "unknown plot kind `pie`"},
      {"%plot [1.0] --out x.jpg", "--out needs a file name ending in .svg or .png"},
      {"%plot ([1.0, 2.0], [1.0]) as line", "xs has 2 values but a curve has 1"},
      {"%plot title \"only a title\"", "usage: %plot"},
  };
  for (auto& c : cases) {
    ExecuteResult r = t.term(c.input);
    EXPECT_FALSE(r.ok) << c.input;
    EXPECT_NE(r.error.find(c.message), std::string::npos) << c.input << " -> " << r.error;
  }
  ExecuteResult code = t.term("%plot nowhere + 1");
  EXPECT_FALSE(code.ok);
  EXPECT_NE(code.cell.rendered.find("E003"), std::string::npos);
}

TEST(PlotCommand, LeavesNoBindings) {
  NEED_GNUPLOT();
  TestSession t;
  auto before = t.s.session_names();
  ExecuteResult r = t.rich("%plot let tmp = [1.0, 2.0]; tmp");
  EXPECT_TRUE(r.ok) << r.error << r.cell.rendered;
  EXPECT_EQ(t.s.session_names(), before);
  EXPECT_FALSE(t.has("tmp"));
}

TEST(PlotCommand, MissingGnuplotIsAMessage) {
  const char* old = std::getenv("EIN_GNUPLOT");
  std::string saved = old ? old : "";
  setenv("EIN_GNUPLOT", "/nonexistent/bin/gnuplot", 1);
  TestSession t;
  ExecuteResult r = t.rich("%plot [1.0, 2.0]");
  if (old) setenv("EIN_GNUPLOT", saved.c_str(), 1);
  else unsetenv("EIN_GNUPLOT");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("gnuplot is not installed"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("gnuplot-nox"), std::string::npos) << r.error;
  EXPECT_TRUE(t.term("1 + 1").ok);
}

}  // namespace
}  // namespace ein::testing_commands
