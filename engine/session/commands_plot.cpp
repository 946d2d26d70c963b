// %plot EXPR [as line|scatter|heatmap|bar] [title "T"] [--out FILE.svg|FILE.png]
// EXPR is evaluated as a cell of its own, wrapped in a block so that nothing it might bind stays
// in the session; its value becomes numbers for engine/plot, which runs gnuplot.
#include <cmath>
#include <fstream>
#include <string_view>

#include "engine/plot/plot.h"
#include "engine/session/commands.h"

namespace ein::cmd {

namespace {

constexpr size_t kMaxPoints = 2'000'000;  // gnuplot copes; the data block is ~40 MB of text

struct Args {
  std::string expr;
  plot::Kind kind = plot::Kind::Line;
  bool kind_given = false;
  std::string title;
  std::string out;
};

bool is_type_name(const std::string& w) {
  static const char* types[] = {"i8", "i32", "i64", "f16", "bf16", "f32", "f64", "bool", "str", "int", "float"};
  for (auto* t : types)
    if (w == t) return true;
  return false;
}

bool blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// A double quote at s[i] that ends a string: not escaped by an odd run of backslashes.
bool unescaped_quote(std::string_view s, size_t i) {
  size_t k = i;
  while (k > 0 && s[k - 1] == '\\') --k;
  return s[i] == '"' && (i - k) % 2 == 0;
}

// Removes one option from the end of s (already without trailing blanks) into `a`; false when
// s does not end in an option. Every step looks only at the option it removes and the blanks
// around it, so peeling all options off is linear in the length of the text: the argument may
// be a million characters long (a `std::regex` here once overflowed the stack).
bool strip_option(std::string_view& s, Args& a) {
  auto word_before = [&](size_t end, size_t* begin) {  // the blank-delimited word ending at end
    size_t b = end;
    while (b > 0 && !blank(s[b - 1])) --b;
    *begin = b;
    return s.substr(b, end - b);
  };
  auto skip_blanks = [&](size_t end) {
    while (end > 0 && blank(s[end - 1])) --end;
    return end;
  };
  if (s.empty()) return false;
  size_t n = s.size();
  if (s.back() == '"') {
    // title "T" | --out "F" | --out="F"
    size_t q = n - 1;
    do {
      if (q == 0) return false;
      --q;
    } while (!unescaped_quote(s, q));
    std::string_view body = s.substr(q + 1, n - q - 2);
    if (q >= 6 && s.substr(q - 6, 6) == "--out=" && (q == 6 || blank(s[q - 7]))) {
      a.out = std::string(body);
      s = s.substr(0, skip_blanks(q - 6));
      return true;
    }
    size_t end = skip_blanks(q);
    if (end == q) return false;  // the quote must be separated from its keyword
    size_t b = 0;
    std::string_view kw = word_before(end, &b);
    if (kw == "--out") {
      a.out = std::string(body);
    } else if (kw == "title") {
      std::string t;
      for (size_t i = 0; i < body.size(); ++i) t += body[i] == '\\' && i + 1 < body.size() ? body[++i] : body[i];
      a.title = t;
    } else {
      return false;
    }
    s = s.substr(0, skip_blanks(b));
    return true;
  }
  size_t b = 0;
  std::string_view last = word_before(n, &b);
  if (last.substr(0, 6) == "--out=" && last.size() > 6) {
    a.out = std::string(last.substr(6));
    s = s.substr(0, skip_blanks(b));
    return true;
  }
  size_t end = skip_blanks(b);
  if (end == b || end == 0) return false;
  size_t kb = 0;
  std::string_view kw = word_before(end, &kb);
  if (kw == "--out") {
    a.out = std::string(last);
  } else if (kw == "as" && is_identifier_path(last) && last.find(':') == std::string_view::npos &&
             !is_type_name(std::string(last))) {
    std::string k(last);
    if (k == "line") a.kind = plot::Kind::Line;
    else if (k == "scatter") a.kind = plot::Kind::Scatter;
    else if (k == "heatmap") a.kind = plot::Kind::Heatmap;
    else if (k == "bar") a.kind = plot::Kind::Bar;
    else throw Error("%plot: unknown plot kind `" + k + "` (line, scatter, heatmap, bar)");
    a.kind_given = true;
  } else {
    return false;
  }
  s = s.substr(0, skip_blanks(kb));
  return true;
}

// Options are recognised at the end of the argument text, in any order; what precedes them is
// the expression (which may itself contain `as` casts).
Args parse_args(const std::string& text) {
  Args a;
  std::string t = trim(text);
  std::string_view s = t;
  while (strip_option(s, a)) {
  }
  a.expr = std::string(s);
  if (a.expr.empty())
    throw Error("usage: %plot EXPR [as line|scatter|heatmap|bar] [title \"T\"] [--out FILE.svg|FILE.png]");
  return a;
}

bool numeric_scalar(const Value& v) { return v.is_scalar(); }

// A 1-D sequence of numbers: a rank-1 tensor, a list of scalars, or a range.
bool as_vector(const Value& v, std::vector<double>& out) {
  out.clear();
  if (v.tag == Value::Tag::Tensor && v.tensor_ref().rank() == 1) {
    const Tensor& t = v.tensor_ref();
    for (int64_t i = 0; i < t.size(); ++i) out.push_back(tensor_get(t, i).as_f64());
    return true;
  }
  if (v.tag == Value::Tag::List) {
    for (auto& e : v.items()) {
      if (!numeric_scalar(e)) return false;
      out.push_back(e.as_f64());
    }
    return true;
  }
  if (v.tag == Value::Tag::Range) {
    if (v.range_size() > kMaxPoints) return false;
    for (uint64_t k = 0; k < v.range_size(); ++k)
      out.push_back(static_cast<double>(v.range_lo()) + static_cast<double>(k));
    return true;
  }
  return false;
}

// Rows of a 2-D value: a rank-2 tensor, or a list of 1-D sequences (jagged rows allowed).
bool as_rows(const Value& v, std::vector<std::vector<double>>& rows) {
  rows.clear();
  if (v.tag == Value::Tag::Tensor && v.tensor_ref().rank() == 2) {
    const Tensor& t = v.tensor_ref();
    for (int64_t i = 0; i < t.dim(0); ++i) {
      std::vector<double> row;
      for (int64_t j = 0; j < t.dim(1); ++j) row.push_back(tensor_get(t, i * t.dim(1) + j).as_f64());
      rows.push_back(std::move(row));
    }
    return true;
  }
  if (v.tag == Value::Tag::List && !v.items().empty() && !numeric_scalar(v.items()[0])) {
    for (auto& e : v.items()) {
      std::vector<double> row;
      if (!as_vector(e, row)) return false;
      rows.push_back(std::move(row));
    }
    return true;
  }
  return false;
}

std::string describe(const Value& v) {
  return v.tag == Value::Tag::Tensor ? "an array of rank " + std::to_string(v.tensor_ref().rank()) + " (" + type_string(v) + ")"
                                     : "a value of type " + type_string(v);
}

plot::Spec make_spec(const Value& v, const Args& a) {
  plot::Spec spec;
  spec.kind = a.kind;
  spec.title = a.title;
  std::vector<double> xs, ys;
  std::vector<std::vector<double>> rows;
  if (v.tag == Value::Tag::Tuple && v.items().size() == 2 && as_vector(v.items()[0], xs)) {
    // (xs, ys) or (xs, rows): curves over explicit x values.
    if (as_vector(v.items()[1], ys)) rows = {ys};
    else if (!as_rows(v.items()[1], rows)) throw Error("%plot: the second element of (xs, ys) must be a 1-D or 2-D array");
    for (auto& r : rows)
      if (r.size() != xs.size())
        throw Error("%plot: xs has " + std::to_string(xs.size()) + " values but a curve has " + std::to_string(r.size()));
    if (a.kind == plot::Kind::Heatmap) throw Error("%plot: a heatmap takes a 2-D array, not (xs, ys)");
  } else if (as_vector(v, ys)) {
    rows = {ys};
  } else if (!as_rows(v, rows)) {
    throw Error("%plot: cannot plot " + describe(v) + "; give a 1-D or 2-D array, or a tuple (xs, ys)");
  }
  size_t points = 0;
  for (auto& r : rows) points += r.size();
  if (points == 0) throw Error("%plot: nothing to plot (the array is empty)");
  if (points > kMaxPoints) throw Error("%plot: too many points (" + std::to_string(points) + ")");
  // A 2-D array without a kind: a few rows read well as curves, many rows as an image.
  if (!a.kind_given && rows.size() > 10) spec.kind = plot::Kind::Heatmap;
  if (spec.kind == plot::Kind::Heatmap) {
    for (auto& r : rows)
      if (r.size() != rows[0].size()) throw Error("%plot: a heatmap needs rows of equal length");
    spec.matrix = std::move(rows);
    return spec;
  }
  for (size_t i = 0; i < rows.size(); ++i)
    spec.series.push_back(plot::Series{"row " + std::to_string(i), xs, std::move(rows[i])});
  return spec;
}

}  // namespace

void cmd_plot(Call& c) {
  Args a = parse_args(c.args);
  std::optional<plot::Format> file_fmt;
  if (!a.out.empty()) {
    auto ends = [&](const char* ext) {
      std::string e = ext;
      return a.out.size() > e.size() && a.out.compare(a.out.size() - e.size(), e.size(), e) == 0;
    };
    if (ends(".svg")) file_fmt = plot::Format::Svg;
    else if (ends(".png")) file_fmt = plot::Format::Png;
    else throw Error("%plot: --out needs a file name ending in .svg or .png (got `" + a.out + "`)");
  }
  CellOptions co = c.opt.cell;
  co.source_name = co.source_name.empty() ? "%plot" : co.source_name;
  // An expression runs as written, so that its diagnostics show the user's text.
  co.as_block = !binds_nothing(a.expr);
  CellResult r = c.session.run_cell(a.expr, co);
  if (!r.ok) {
    c.out.cell = r;
    c.out.ok = false;
    return;
  }
  if (!r.value) throw Error("%plot: `" + a.expr + "` has no value to plot");
  plot::Spec spec = make_spec(*r.value, a);

  // A notebook gets a PNG, not an SVG: nbconvert's HTML export (and the Notebook's "Download as
  // HTML") prefers image/svg+xml and its sanitiser strips gnuplot's SVG to an empty box, while a
  // PNG survives every export and viewer. Its text/plain is the terminal drawing, which is what
  // `jupyter console` shows. `--out FILE.svg` still writes SVG.
  std::vector<plot::Format> formats = {plot::Format::Text};
  if (!c.opt.terminal) formats.push_back(plot::Format::Png);
  if (file_fmt && std::find(formats.begin(), formats.end(), *file_fmt) == formats.end())
    formats.push_back(*file_fmt);
  plot::Size size;
  size.cols = std::clamp(c.opt.width, 40, 240) - 1;
  size.rows = std::clamp(size.cols * 3 / 10, 12, 32);
  size.color = c.opt.color && c.opt.terminal;  // text/plain in a notebook has no colours
  plot::Result pr = plot::render(spec, formats, size);
  if (!pr.ok) throw Error("%plot: " + pr.error);

  std::string note;
  if (file_fmt) {
    std::ofstream f(a.out, std::ios::binary);
    f << pr.out[*file_fmt];
    if (!f) throw Error("%plot: cannot write `" + a.out + "`");
    note = "saved plot to " + a.out + "\n";
  }
  if (c.opt.terminal) {
    c.out.text = pr.out[plot::Format::Text] + note;
  } else {
    c.out.text = note;
    c.out.displays.push_back(DisplayData{{{"image/png", plot::base64(pr.out[plot::Format::Png])},
                                          {"text/plain", pr.out[plot::Format::Text] + note}}});
  }
}

}  // namespace ein::cmd
