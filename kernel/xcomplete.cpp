// Completion and inspection over the Session's introspection API (see xcomplete.h).
#include "kernel/xcomplete.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/session/commands.h"
#include "kernel/xtext.h"
#include "lang/syntax/lexer.h"

namespace ein::kernel {

namespace {

// Names a cell declares before it has run (`let w = ...` above the cursor in the same cell):
// completing them is what a user typing a long cell expects. A light scan, not a parse: a
// wrong guess only adds a candidate. The lexer (linear, never fails) skips comments and
// strings, so a `let` inside them declares nothing.
std::set<std::string> names_in_text(const std::string& code) {
  std::set<std::string> out;
  std::vector<Token> toks = lex(code);
  for (size_t i = 0; i + 1 < toks.size(); ++i) {
    Tok k = toks[i].kind;
    if ((k == Tok::KwLet || k == Tok::KwConst || k == Tok::KwFn || k == Tok::KwMod) &&
        toks[i + 1].kind == Tok::Ident)
      out.insert(code.substr(toks[i + 1].lo, toks[i + 1].hi - toks[i + 1].lo));
  }
  return out;
}

// The completion kinds JupyterLab shows as icons (_jupyter_types_experimental).
std::string kind_of(Session& s, const std::string& match) {
  if (!match.empty() && match[0] == '%') return "magic";
  if (is_keyword(match)) return "keyword";
  if (match.find('/') != std::string::npos) return "path";
  auto info = s.name_info(match);
  // Paths the resolver has not loaded yet are modules found on disk.
  if (!info) return match.find("::") != std::string::npos ? "module" : "text";
  if (info->kind == Session::NameKind::Fn || info->kind == Session::NameKind::Builtin) return "function";
  if (info->kind == Session::NameKind::Module) return "module";
  if (info->kind == Session::NameKind::Const) return "constant";
  return "variable";
}

std::string shape_text(const Tensor& t) {
  std::string shape = "[";
  for (int i = 0; i < t.rank(); ++i) shape += (i ? ", " : "") + std::to_string(t.dim(i));
  return shape + "]";
}

}  // namespace

Completion complete(Session& s, const std::string& code, size_t cursor) {
  Completion c;
  cursor = std::min(cursor, code.size());
  size_t start = cursor;
  std::vector<std::string> matches = s.complete(code, cursor, &start);
  std::set<std::string> all(matches.begin(), matches.end());
  std::string word = code.substr(start, cursor - start);
  // After `X.` or inside an open `use m::{` group, the session's candidates are members or the
  // group's items only.
  size_t group = code.rfind("::{", start);
  bool in_context = (start > 0 && code[start - 1] == '.') ||
                    (group != std::string::npos && code.find_first_of("};", group) >= start);
  bool plain_word = !in_context && !word.empty() && word[0] != '%' && word.find("::") == std::string::npos &&
                    word.find('/') == std::string::npos;
  if (plain_word || (!in_context && word.empty() && !matches.empty()))
    for (auto& n : names_in_text(code))
      if (n.rfind(word, 0) == 0 && n != word) all.insert(n);
  c.start = start;
  c.end = cursor;
  for (auto& m : all) {
    c.matches.push_back(m);
    c.kinds.push_back(kind_of(s, m));
  }
  return c;
}

std::string describe(Session& s, const std::string& name, int detail) {
  // The command layer's %doc knows signatures and doc comments; the kernel adds what a
  // notebook user inspects a binding for: its shape and a glimpse of its value.
  ExecuteResult doc = s.execute("%doc " + name, ExecuteOptions{});
  std::string out = doc.ok ? doc.text : "";
  auto info = s.name_info(name);
  auto v = info && (info->kind == Session::NameKind::Let || info->kind == Session::NameKind::Const) ? s.value_of(name) : std::nullopt;
  if (v) {
    if (out.empty()) out = name + ": " + type_string(*v) + "\n";
    if (v->is_tensor()) {
      const Tensor& t = v->tensor_ref();
      out += "shape: " + shape_text(t) + "   dtype: " + dtype_name(t.dtype()) +
             "   size: " + std::to_string(t.size()) + "\n";
    }
    std::string text = format_value(*v);
    if (text.size() > 400 && detail == 0) text = text.substr(0, 400) + " ...";
    out += "value: " + text + "\n";
  }
  if (out.empty() && is_keyword(name)) out = name + ": keyword (see SPEC.md)\n";
  if (detail > 0 && info && !info->source.empty()) {
    out += "\n" + info->source_name + ":" + std::to_string(info->line) + "\n" + info->source;
    if (info->source.back() != '\n') out += "\n";
  }
  return out;
}

std::string inspect(Session& s, const std::string& code, size_t cursor, int detail) {
  cursor = std::min(cursor, code.size());
  Span2 sp = path_around(code, cursor);
  // Inside the arguments of a call, shift-tab means the called function (IPython shows the
  // signature of `matmul` in `matmul(A, A|`), unless the cursor is in the middle of a name.
  bool mid_name = sp.begin < cursor && cursor < sp.end;
  if (!mid_name) {
    int depth = 0;
    for (size_t i = cursor; i > 0; --i) {
      char ch = code[i - 1];
      if (ch == ')' || ch == ']') ++depth;
      if (ch == '[' && depth > 0) --depth;
      if (ch == ';' || ch == '{' || ch == '}') break;  // the statement ends: no call around
      if (ch == '(' && depth-- == 0) {
        Span2 callee = path_around(code, i - 1);
        if (callee.begin != callee.end) {
          sp = callee;
          break;
        }
        depth = 0;  // a bracketed group, or `sum[k](`: look further out
      }
    }
  }
  if (sp.begin == sp.end) return "";
  return describe(s, code.substr(sp.begin, sp.end - sp.begin), detail);
}

}  // namespace ein::kernel
