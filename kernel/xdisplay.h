// Mime rendering for the Jupyter kernel: Einlang values and diagnostics as the JSON the
// messaging protocol carries. Kept free of xeus so that it can be unit-tested without a kernel.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/session/session.h"
#include "engine/value/value.h"

namespace ein::kernel {

// Limits of the HTML table of a tensor. Beyond them the table shows `edge` rows/columns at
// each end with an ellipsis in between, the way NumPy summarises long arrays.
struct HtmlLimits {
  int max_full = 12;   // an axis up to this long is shown whole
  int max_vector = 20; // ... a vector (one row of cells) up to this long
  int edge = 5;        // otherwise this many items at each end
  int max_slices = 6;  // rank >= 3: at most this many 2-D slices (first and last halves)
};

// A mime bundle {"text/plain": ..., "text/html": ...} for a cell result. Numeric tensors of
// rank >= 1 get an HTML table with a caption giving shape and dtype; everything else is plain
// text in the same form the REPL echoes.
nlohmann::json value_bundle(const Value& v, const HtmlLimits& lim = {});

// The HTML table alone (exposed for tests).
std::string tensor_html(const Tensor& t, const HtmlLimits& lim = {});

// A DisplayData of the command layer as a mime bundle. PNG stays base64, as Jupyter expects.
nlohmann::json display_bundle(const DisplayData& d);

// An SVG document as an inline fragment: the <svg> element without XML prolog or DOCTYPE.
std::string svg_fragment(const std::string& svg);

std::string html_escape(const std::string& s);

// How a failed cell is reported on the `error` message.
struct ErrorReport {
  std::string ename;                   // the diagnostic code ("E004"), or a category name
  std::string evalue;                  // plain-text message of the first error
  std::vector<std::string> traceback;  // ANSI-coloured rustc-style lines
};

// From a cell's diagnostics (coloured rendering through the session's source map).
ErrorReport cell_error(const Session& s, const CellResult& r);
// From a command error message. A leading "E0xx" / "error[E0xx]:" becomes the ename.
ErrorReport command_error(const std::string& message);

// Splits text into lines without their terminators (no trailing empty line).
std::vector<std::string> split_lines(const std::string& text);

}  // namespace ein::kernel
