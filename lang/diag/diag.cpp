// rustc-style diagnostic rendering. The layout rules are documented in lang/diag/README.md;
// the tests in tests/unit/diag/ pin them down character by character.
#include "lang/diag/diag.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace ein {

DiagError::DiagError(Diagnostic d) : std::runtime_error(d.message), diags{std::move(d)} {}

DiagError::DiagError(std::vector<Diagnostic> ds)
    : std::runtime_error(ds.empty() ? std::string("error") : ds.front().message),
      diags(std::move(ds)) {}

Diagnostic make_diag(std::string code, std::string message, Span primary,
                     std::string primary_label) {
  Diagnostic d;
  d.code = std::move(code);
  d.message = std::move(message);
  d.primary = primary;
  d.primary_label = std::move(primary_label);
  return d;
}

void DiagSink::report(Diagnostic d) { diags_.push_back(std::move(d)); }

bool DiagSink::has_errors() const { return error_count() > 0; }

size_t DiagSink::error_count() const {
  return static_cast<size_t>(
      std::count_if(diags_.begin(), diags_.end(), [](const Diagnostic& d) { return !d.warning; }));
}

std::vector<Diagnostic> DiagSink::take() {
  std::vector<Diagnostic> out = std::move(diags_);
  diags_.clear();
  return out;
}

namespace {

enum class Style { None, Error, Warning, Gutter, Primary, Secondary };

const char* ansi(Style s) {
  switch (s) {
    case Style::Error: return "\x1b[1;31m";
    case Style::Warning: return "\x1b[1;33m";
    case Style::Gutter: return "\x1b[1;34m";
    case Style::Primary: return "\x1b[31m";
    case Style::Secondary: return "\x1b[34m";
    case Style::None: break;
  }
  return "";
}

struct Painter {
  bool color;
  std::string paint(std::string_view text, Style s) const {
    if (!color || s == Style::None || text.empty()) return std::string(text);
    return ansi(s) + std::string(text) + "\x1b[0m";
  }
};

// One character as it will appear on screen. Source text is untrusted: a stray escape byte or
// invalid UTF-8 must neither corrupt the terminal nor shift the carets, so everything that is
// not a printable character becomes U+FFFD with width 1, and tabs become four spaces (the same
// four in the source line and under it, so the carets stay aligned).
struct Glyph {
  uint32_t lo = 0, hi = 0;  // byte range in the file (only meaningful for source glyphs)
  std::string text;
  int width = 1;
};

constexpr const char* kReplacement = "\xEF\xBF\xBD";

size_t utf8_length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 0;  // continuation byte or invalid lead byte
}

std::vector<Glyph> decode(std::string_view bytes, uint32_t base, bool tabs_as_four) {
  std::vector<Glyph> out;
  size_t i = 0;
  while (i < bytes.size()) {
    auto c = static_cast<unsigned char>(bytes[i]);
    size_t n = utf8_length(c);
    bool ok = n > 0 && i + n <= bytes.size();
    for (size_t k = 1; ok && k < n; ++k)
      ok = (static_cast<unsigned char>(bytes[i + k]) & 0xC0) == 0x80;
    if (!ok) n = 1;
    Glyph g{base + static_cast<uint32_t>(i), base + static_cast<uint32_t>(i + n), "", 1};
    if (c == '\t') {
      g.text = tabs_as_four ? "    " : " ";
      g.width = tabs_as_four ? 4 : 1;
    } else if (!ok || c < 0x20 || c == 0x7F) {
      g.text = kReplacement;
    } else {
      g.text = std::string(bytes.substr(i, n));
    }
    out.push_back(std::move(g));
    i += n;
  }
  return out;
}

// An underline in display columns [start, end) of one snippet line.
struct Mark {
  int start = 0, end = 1;
  bool primary = false;
  std::vector<Glyph> label;  // sanitized label text, one glyph per column
};

// A row of single-column cells below a source line; labels are written glyph by glyph.
struct Cell {
  std::string text = " ";
  Style style = Style::None;
};
using Row = std::vector<Cell>;

void put(Row& r, int col, std::string text, Style s) {
  if (col < 0) return;
  if (static_cast<size_t>(col) >= r.size()) r.resize(col + 1);
  r[col] = Cell{std::move(text), s};
}

void put_label(Row& r, int col, const std::vector<Glyph>& label) {
  for (size_t i = 0; i < label.size(); ++i) put(r, col + static_cast<int>(i), label[i].text, Style::None);
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string row_text(const Row& r, const Painter& p) {
  size_t n = r.size();
  while (n > 0 && r[n - 1].text == " ") --n;  // no trailing blanks (and no colour on them)
  std::string out;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    std::string run;
    while (j < n && r[j].style == r[i].style) run += r[j++].text;
    out += p.paint(run, r[i].style);
    i = j;
  }
  return out;
}

// Lays out the underline row and the label rows of one source line. Runs are all drawn on the
// first row (primary last, so ^ wins where spans overlap). A label goes inline, after its run,
// when the columns it needs (plus two blanks before whatever follows) are free; labels are
// tried right to left so the rightmost one always fits. The rest hang below their run's first
// column on '|' connectors, rightmost first, as rustc does.
std::vector<Row> layout(const std::vector<Mark>& marks, Style primary_style) {
  Row under;
  std::vector<bool> used;
  auto occupy = [&](int col) {
    if (static_cast<size_t>(col) >= used.size()) used.resize(col + 1, false);
    used[col] = true;
  };
  auto is_used = [&](int col) { return static_cast<size_t>(col) < used.size() && used[col]; };
  for (int pass = 0; pass < 2; ++pass)
    for (const Mark& m : marks) {
      if (m.primary != (pass == 1)) continue;
      for (int c = m.start; c < m.end; ++c) {
        put(under, c, m.primary ? "^" : "-", m.primary ? primary_style : Style::Secondary);
        occupy(c);
      }
    }

  std::vector<const Mark*> order;
  for (const Mark& m : marks)
    if (!m.label.empty()) order.push_back(&m);
  std::stable_sort(order.begin(), order.end(), [](const Mark* a, const Mark* b) {
    return a->end != b->end ? a->end > b->end : a->start > b->start;
  });
  std::vector<const Mark*> hanging;
  for (const Mark* m : order) {
    int from = m->end + 1, width = static_cast<int>(m->label.size());
    bool free = true;
    // Two blank columns after the text keep "3 here  ^^^" from reading as one phrase.
    for (int c = m->end; free && c <= from + width + 1; ++c) free = !is_used(c);
    if (!free) {
      hanging.push_back(m);
      continue;
    }
    put_label(under, from, m->label);
    for (int c = m->end; c < from + width; ++c) occupy(c);
  }

  std::vector<Row> rows{under};
  if (hanging.empty()) return rows;
  std::stable_sort(hanging.begin(), hanging.end(), [](const Mark* a, const Mark* b) {
    return a->start != b->start ? a->start > b->start : a->end > b->end;
  });
  Row connectors;
  for (const Mark* m : hanging) put(connectors, m->start, "|", Style::None);
  rows.push_back(connectors);
  for (size_t i = 0; i < hanging.size(); ++i) {
    Row r;
    for (size_t j = i + 1; j < hanging.size(); ++j) put(r, hanging[j]->start, "|", Style::None);
    put_label(r, hanging[i]->start, hanging[i]->label);
    rows.push_back(r);
  }
  return rows;
}

struct Annotation {
  Span span;
  bool primary;
  std::string text;
};

struct ShownLine {
  std::vector<Glyph> glyphs;
  std::vector<Mark> marks;
};

// All annotations of one file: its snippet lines keyed by 1-based line number.
struct FileSection {
  uint32_t file = 0;
  Span anchor;  // the span named in the --> / ::: line
  std::map<int, ShownLine> lines;
};

int digits(int n) {
  int d = 1;
  while (n >= 10) n /= 10, ++d;
  return d;
}

class Renderer {
 public:
  Renderer(const SourceMap& sm, const RenderOptions& opt) : sm_(sm), p_{opt.color} {}

  std::string run(const Diagnostic& d) {
    Style head = d.warning ? Style::Warning : Style::Error;
    std::string kind = d.warning ? "warning" : "error";
    if (!d.code.empty()) kind += "[" + d.code + "]";
    std::string out = p_.paint(kind, head) + ": " + d.message + "\n";

    std::vector<std::string> notes;
    std::vector<FileSection> sections;
    if (usable(d.primary)) {
      add(sections, Annotation{d.primary, true, d.primary_label});
      for (const Label& l : d.secondary) {
        if (usable(l.span))
          add(sections, Annotation{l.span, false, l.text});
        else if (!l.text.empty())
          notes.push_back(l.text);
      }
    } else {
      // Without a primary location there is no snippet to hang labels on; keep their text.
      if (!d.primary_label.empty()) notes.push_back(d.primary_label);
      for (const Label& l : d.secondary)
        if (!l.text.empty()) notes.push_back(usable(l.span) ? where(l.span) + ": " + l.text : l.text);
    }
    notes.insert(notes.end(), d.notes.begin(), d.notes.end());

    int width = 1;
    for (const FileSection& s : sections)
      if (!s.lines.empty()) width = std::max(width, digits(s.lines.rbegin()->first));
    std::string pad(width, ' ');
    for (size_t i = 0; i < sections.size(); ++i) {
      if (i > 0) out += gutter(pad) + "\n";
      out += p_.paint(pad + (i == 0 ? "-->" : ":::"), Style::Gutter) + " " + where(sections[i].anchor) + "\n";
      out += gutter(pad) + "\n";
      emit(out, sections[i], width, head == Style::Warning ? Style::Warning : Style::Primary);
    }
    for (const std::string& n : notes) out += footer(pad, "note", n);
    if (!d.help.empty()) out += footer(pad, "help", d.help);
    return out;
  }

 private:
  bool usable(Span s) const { return s.valid() && sm_.has(s.file); }

  std::string where(Span s) const {
    // Snap an offset inside a multi-byte character to its start, as the carets do.
    const std::string& text = sm_.file(s.file).text;
    uint32_t lo = std::min<uint32_t>(s.lo, text.size());
    while (lo > 0 && lo < text.size() && (static_cast<unsigned char>(text[lo]) & 0xC0) == 0x80) --lo;
    LineCol lc = sm_.line_col(s.file, lo);
    return sm_.file(s.file).name + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
  }

  std::string gutter(const std::string& pad) const { return p_.paint(pad + " |", Style::Gutter); }

  // "= note: text"; continuation lines of a multi-line text are indented under the first.
  std::string footer(const std::string& pad, const std::string& kind, const std::string& text) const {
    std::string lead = pad + " " + p_.paint("=", Style::Gutter) + " " + kind + ": ";
    std::string indent(pad.size() + 3 + kind.size() + 2, ' ');
    std::string out = lead;
    for (char c : text) {
      out += c;
      if (c == '\n') out += indent;
    }
    return rtrim(out) + "\n";
  }

  void add(std::vector<FileSection>& sections, const Annotation& a) {
    auto it = std::find_if(sections.begin(), sections.end(),
                           [&](const FileSection& s) { return s.file == a.span.file; });
    if (it == sections.end()) {
      sections.push_back(FileSection{a.span.file, a.span, {}});
      it = sections.end() - 1;
    }
    const SourceMap::File& f = sm_.file(a.span.file);
    auto size = static_cast<uint32_t>(f.text.size());
    uint32_t lo = std::min(a.span.lo, size);
    uint32_t hi = std::clamp(a.span.hi, lo, size);
    int line = sm_.line_col(a.span.file, lo).line;
    line = std::clamp(line, 1, static_cast<int>(f.line_starts.size()));
    ShownLine& shown = it->lines[line];
    uint32_t begin = f.line_starts[line - 1];
    uint32_t end = begin;
    while (end < size && f.text[end] != '\n') ++end;
    if (end > begin && f.text[end - 1] == '\r') --end;
    if (shown.glyphs.empty())
      shown.glyphs = decode(std::string_view(f.text).substr(begin, end - begin), begin, true);

    // A start inside a character snaps to that character; an end inside one includes it.
    Mark m;
    m.primary = a.primary;
    m.start = m.end = 0;
    for (const Glyph& g : shown.glyphs) {
      if (g.hi <= lo) m.start += g.width;
      if (g.lo < std::min(hi, end)) m.end += g.width;
    }
    if (m.end <= m.start) m.end = m.start + 1;  // zero-width spans still get one marker
    m.label = decode(a.text, 0, false);
    shown.marks.push_back(std::move(m));
  }

  void emit(std::string& out, const FileSection& s, int width, Style primary_style) const {
    std::string pad(width, ' ');
    int prev = 0;
    for (const auto& [line, shown] : s.lines) {
      if (prev != 0 && line > prev + 1) out += p_.paint("...", Style::Gutter) + "\n";
      prev = line;
      std::string num = std::to_string(line);
      std::string text;
      for (const Glyph& g : shown.glyphs) text += g.text;
      text = rtrim(text);
      out += p_.paint(std::string(width - num.size(), ' ') + num + " |", Style::Gutter);
      out += (text.empty() ? "" : " " + text) + "\n";
      for (const Row& r : layout(shown.marks, primary_style)) {
        std::string body = row_text(r, p_);
        out += gutter(pad) + (body.empty() ? "" : " " + body) + "\n";
      }
    }
  }

  const SourceMap& sm_;
  Painter p_;
};

}  // namespace

std::string render(const Diagnostic& d, const SourceMap& sm, const RenderOptions& opt) {
  return Renderer(sm, opt).run(d);
}

std::string render_abort_line(size_t n_errors, const RenderOptions& opt) {
  Painter p{opt.color};
  return p.paint("error", Style::Error) + ": aborting due to " + std::to_string(n_errors) +
         (n_errors == 1 ? " previous error" : " previous errors") + "\n";
}

}  // namespace ein

namespace ein {

void point_at_call(Diagnostic& d, Span call, const std::string& callee, const SourceMap& sm) {
  auto lc = sm.start(d.primary);
  d.notes.push_back("inside `" + callee + "` at " + sm.file(d.primary.file).name + ":" +
                    std::to_string(lc.line) + ":" + std::to_string(lc.col));
  d.secondary.push_back(Label{d.primary, "the library reported it here"});
  d.primary = call;
  d.primary_label = "in this call";
}

}  // namespace ein
