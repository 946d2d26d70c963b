// Plots through gnuplot (Debian gnuplot-nox), started as a child process with an argument
// vector (no shell). What enters: numbers already taken out of Einlang values (the command
// layer, engine/session/commands_plot.cpp, does that). What leaves: the bytes of an SVG, a PNG,
// or an ANSI text drawing for terminals, or an error message — never an exception for a
// missing or failing gnuplot.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ein::plot {

enum class Kind { Line, Scatter, Heatmap, Bar };
enum class Format { Svg, Png, Text };

// One curve: y values at x = 0, 1, 2, ... unless x is given (same length as y).
struct Series {
  std::string label;
  std::vector<double> x;
  std::vector<double> y;
};

struct Spec {
  Kind kind = Kind::Line;
  std::string title;
  std::vector<Series> series;               // Line, Scatter, Bar
  std::vector<std::vector<double>> matrix;  // Heatmap: rows of equal length, row 0 on top
};

struct Size {
  int width = 640, height = 400;  // pixels for SVG/PNG
  int cols = 80, rows = 24;       // characters for Text
  bool color = true;              // ANSI colours in Text
};

struct Result {
  bool ok = false;
  std::map<Format, std::string> out;  // requested format -> bytes
  std::string error;                  // why not ok (gnuplot missing, failed, timed out)
};

// Renders `spec` in every requested format with one gnuplot process.
Result render(const Spec& spec, const std::vector<Format>& formats, const Size& size = {});

// The gnuplot program render() runs; outputs[i] is the file written for formats[i].
// Exposed for tests: it needs no gnuplot.
std::string script(const Spec& spec, const std::vector<Format>& formats,
                   const std::vector<std::string>& outputs, const Size& size);

// The gnuplot executable: $EIN_GNUPLOT if set, else "gnuplot" looked up on PATH.
std::string gnuplot_program();

// A heat map drawn as text without gnuplot (engine/plot/heatmap_text.cpp): a sequential palette
// (viridis on the xterm 256-colour cube, two pixels per character) or, without colours, a ramp
// of denser characters; a colour bar labelled with the data's minimum, middle and maximum.
std::string text_heatmap(const Spec& spec, const Size& size);
// The palette step (0 .. 15) of v in [lo, hi], -1 for a non-finite value, and its xterm colour.
int palette_level(double v, double lo, double hi);
int palette_color(int level);

std::string base64(std::string_view bytes);
const char* kind_name(Kind k);

}  // namespace ein::plot
