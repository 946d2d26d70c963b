// Mime bundles for values, command displays and errors (see xdisplay.h).
#include "kernel/xdisplay.h"

#include <cctype>
#include <cstdint>
#include <sstream>

#include "engine/session/echo.h"
#include "lang/diag/diag.h"

namespace ein::kernel {

namespace {

// Indices of one axis to show; -1 marks the ellipsis.
std::vector<int64_t> shown(int64_t n, const HtmlLimits& lim) {
  std::vector<int64_t> out;
  if (n <= lim.max_full) {
    for (int64_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  for (int64_t i = 0; i < lim.edge; ++i) out.push_back(i);
  out.push_back(-1);
  for (int64_t i = n - lim.edge; i < n; ++i) out.push_back(i);
  return out;
}

std::string cell_text(const Tensor& t, int64_t flat) {
  return html_escape(format_value(tensor_get(t, flat)));
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Styles are inline because notebook front ends and nbconvert strip <style> blocks differently;
// right-aligned monospace digits line up like the text form.
constexpr const char* kTable =
    "<table style=\"border-collapse:collapse;font-family:monospace;font-size:12px\">";
constexpr const char* kTh =
    "<th style=\"padding:1px 6px;color:#888;font-weight:normal;text-align:right\">";
constexpr const char* kTd = "<td style=\"padding:1px 6px;text-align:right\">";

// One 2-D table: rows x cols of the tensor starting at element `base` (rank 1 is one row
// without a row header).
void table2d(std::ostringstream& o, const Tensor& t, int64_t base, int64_t rows, int64_t cols,
             int64_t row_stride, bool has_rows, const std::string& caption,
             const HtmlLimits& lim) {
  o << kTable;
  if (!caption.empty())
    o << "<caption style=\"caption-side:top;text-align:left;color:#555;font-family:monospace;"
         "white-space:nowrap\">"
      << caption << "</caption>";
  auto cs = shown(cols, lim);
  o << "<tr>";
  if (has_rows) o << kTh << "</th>";
  for (auto c : cs) o << kTh << (c < 0 ? "&hellip;" : std::to_string(c)) << "</th>";
  o << "</tr>";
  for (auto r : has_rows ? shown(rows, lim) : std::vector<int64_t>{0}) {
    o << "<tr>";
    if (has_rows) o << kTh << (r < 0 ? "&#8942;" : std::to_string(r)) << "</th>";
    for (auto c : cs) {
      o << kTd;
      if (r < 0)
        o << (c < 0 ? "&#8945;" : "&#8942;");
      else if (c < 0)
        o << "&hellip;";
      else
        o << cell_text(t, base + r * row_stride + c);
      o << "</td>";
    }
    o << "</tr>";
  }
  o << "</table>";
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string tensor_html(const Tensor& t, const HtmlLimits& lim) {
  const auto& shape = t.shape();
  int rank = t.rank();
  std::ostringstream o;
  std::string caption = std::string(dtype_name(t.dtype())) + " &middot; shape " +
                        shape_text(shape);
  bool truncated = false;
  for (auto n : shape) truncated |= n > (rank == 1 ? lim.max_vector : lim.max_full);
  if (truncated) caption += " &middot; truncated";
  if (t.size() == 0) {
    o << "<div style=\"font-family:monospace;color:#555\">" << caption << " &middot; empty</div>";
    return o.str();
  }
  if (rank == 1) {
    HtmlLimits wide = lim;
    wide.max_full = lim.max_vector;
    table2d(o, t, 0, 1, shape[0], 0, false, caption, wide);
    return o.str();
  }
  int64_t rows = shape[size_t(rank - 2)], cols = shape[size_t(rank - 1)];
  if (rank == 2) {
    table2d(o, t, 0, rows, cols, cols, true, caption, lim);
    return o.str();
  }
  // Rank >= 3: one table per leading index tuple, each titled like A[i, j, :, :].
  int64_t slices = t.size() / (rows * cols);
  std::vector<int64_t> picks;
  if (slices <= lim.max_slices) {
    for (int64_t s = 0; s < slices; ++s) picks.push_back(s);
  } else {
    int64_t half = lim.max_slices / 2;
    for (int64_t s = 0; s < half; ++s) picks.push_back(s);
    picks.push_back(-1);
    for (int64_t s = slices - half; s < slices; ++s) picks.push_back(s);
  }
  o << "<div style=\"font-family:monospace;color:#555\">" << caption << "</div>";
  for (auto s : picks) {
    if (s < 0) {
      o << "<div style=\"font-family:monospace;color:#888\">&#8942; "
        << (slices - 2 * (lim.max_slices / 2)) << " more slices</div>";
      continue;
    }
    // Leading indices of slice s (row-major over the leading axes).
    std::vector<int64_t> lead(size_t(rank - 2));
    int64_t rem = s;
    for (int a = rank - 3; a >= 0; --a) {
      lead[size_t(a)] = rem % shape[size_t(a)];
      rem /= shape[size_t(a)];
    }
    std::string title = "[";
    for (auto i : lead) title += std::to_string(i) + ", ";
    title += ":, :]";
    table2d(o, t, s * rows * cols, rows, cols, cols, true, title, lim);
  }
  return o.str();
}

nlohmann::json value_bundle(const Value& v, const HtmlLimits& lim) {
  nlohmann::json b = nlohmann::json::object();
  b["text/plain"] = format_echo(v, 80);  // one row per line (console and text/plain)
  if (v.is_tensor() && v.tensor_ref().rank() >= 1) b["text/html"] = tensor_html(v.tensor_ref(), lim);
  return b;
}

nlohmann::json display_bundle(const DisplayData& d) {
  nlohmann::json b = nlohmann::json::object();
  for (auto& [mime, content] : d.mime) b[mime] = mime == "image/svg+xml" ? svg_fragment(content) : content;
  return b;
}

std::string svg_fragment(const std::string& svg) {
  // Front ends inline SVG into HTML; an XML declaration or DOCTYPE there is invalid (nbconvert's
  // HTML export rejects it outright), so the bundle carries the <svg> element alone.
  size_t at = svg.find("<svg");
  return at == std::string::npos ? svg : svg.substr(at);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

ErrorReport cell_error(const Session& s, const CellResult& r) {
  ErrorReport e;
  size_t errors = 0;
  for (auto& d : r.diags) {
    if (d.warning) continue;
    ++errors;
    if (e.ename.empty()) {
      e.ename = d.code.empty() ? "Error" : d.code;
      e.evalue = d.message;
    }
  }
  std::string text = s.render(r.diags, /*color=*/true);
  // The abort line belongs to compilation (SPEC §9); a run-time error stops at its first fault.
  if (r.compile_error) text += render_abort_line(errors, RenderOptions{true});
  e.traceback = split_lines(text);
  if (e.ename.empty()) {  // a failure without diagnostics should not happen; say so plainly
    e.ename = "Error";
    e.evalue = r.rendered.empty() ? "the cell failed" : r.rendered;
    if (e.traceback.empty()) e.traceback = split_lines(e.evalue);
  }
  return e;
}

ErrorReport command_error(const std::string& message) {
  ErrorReport e;
  std::string m = message;
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  auto is_code = [](const std::string& s, size_t at) {
    return s.size() >= at + 4 && s[at] == 'E' && std::isdigit((unsigned char)s[at + 1]) &&
           std::isdigit((unsigned char)s[at + 2]) && std::isdigit((unsigned char)s[at + 3]);
  };
  if (m.rfind("error[", 0) == 0 && is_code(m, 6)) {
    e.ename = m.substr(6, 4);
  } else if (is_code(m, 0)) {
    e.ename = m.substr(0, 4);
  } else {
    e.ename = "UsageError";  // IPython's name for a misused magic
  }
  auto lines = split_lines(m);
  e.evalue = lines.empty() ? "" : lines.front();
  // Same colours as diagnostics: bold red heading, then the rest unchanged.
  for (size_t i = 0; i < lines.size(); ++i)
    e.traceback.push_back(i == 0 ? "\x1b[1;31m" + lines[i] + "\x1b[0m" : lines[i]);
  return e;
}

}  // namespace ein::kernel
