// Completion and inspection over the Session's introspection API (see xcomplete.h).
#include "kernel/xcomplete.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "engine/session/commands.h"
#include "kernel/xtext.h"
#include "lang/syntax/lexer.h"

namespace ein::kernel {

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// Names a cell declares before it has run (`let w = ...` above the cursor in the same cell):
// completing them is what a user typing a long cell expects. A light scan, not a parse: a
// wrong guess only adds a candidate.
std::set<std::string> names_in_text(const std::string& code) {
  static const std::regex decl(R"(\b(?:let|const|fn|mod)\s+([A-Za-z_][A-Za-z0-9_]*))");
  std::set<std::string> out;
  for (std::sregex_iterator it(code.begin(), code.end(), decl), end; it != end; ++it)
    out.insert((*it)[1].str());
  return out;
}

std::string kind_of_info(const std::string& kind) {
  if (kind == "fn" || kind == "builtin") return "function";
  if (kind == "module") return "module";
  if (kind == "const") return "constant";
  return "variable";
}

}  // namespace

Completion complete(Session& s, const std::string& code, size_t cursor) {
  Completion c;
  if (cursor > code.size()) cursor = code.size();
  size_t b = path_start(code, cursor);
  std::string word = code.substr(b, cursor - b);
  c.start = b;
  c.end = cursor;
  // Candidates by name, so that one name offered by several sources appears once.
  std::map<std::string, std::string> cand;

  bool at_cell_start = trim(code.substr(0, b)).empty();
  if (b > 0 && code[b - 1] == '%' && trim(code.substr(0, b - 1)).empty()) {
    // `%ti|`: commands; the reply replaces the `%` too, so a front end shows `%time`.
    c.start = b - 1;
    for (auto& k : cmd::commands())
      if (starts_with(k.name, word)) cand[std::string("%") + k.name] = "magic";
  } else if (size_t sep = word.rfind("::"); sep != std::string::npos) {
    std::string path = word.substr(0, sep), part = word.substr(sep + 2);
    c.start = b + sep + 2;
    for (auto& n : s.module_children(path))
      if (starts_with(n, part)) {
        auto info = s.name_info(path + "::" + n);
        cand[n] = info ? kind_of_info(info->kind) : "module";
      }
  } else {
    for (auto& n : s.session_names())
      if (starts_with(n, word)) {
        auto info = s.name_info(n);
        cand[n] = info ? kind_of_info(info->kind) : "variable";
      }
    for (auto& n : names_in_text(code))
      if (starts_with(n, word) && n != word) cand.emplace(n, "variable");
    for (auto& d : cmd::builtin_docs())
      if (starts_with(d.name, word)) cand.emplace(d.name, "function");
    for (auto& k : keyword_list())
      if (starts_with(k, word)) cand.emplace(k, "keyword");
    if (starts_with("std", word)) cand.emplace("std", "module");
    if (at_cell_start && word.empty()) {
      // An empty cell: offer the commands too, they are what the cell can start with.
      for (auto& k : cmd::commands()) cand.emplace(std::string("%") + k.name, "magic");
    }
  }
  for (auto& [name, kind] : cand) {
    c.matches.push_back(name);
    c.kinds.push_back(kind);
  }
  return c;
}

std::string describe(Session& s, const std::string& name, int detail) {
  std::string out;
  auto info = s.name_info(name);
  if (!info) {
    for (auto& d : cmd::builtin_docs())
      if (name == d.name) return std::string(d.signature) + "\n\n" + d.doc + "\n";
    if (is_keyword(name)) return name + ": keyword\n";
    return "";
  }
  if (info->kind == "builtin") {
    for (auto& d : cmd::builtin_docs())
      if (name == d.name) out = std::string(d.signature) + "\n";
    if (out.empty()) out = name + ": builtin\n";
  } else if (info->kind == "fn") {
    out = cmd::signature_of(info->node, name) + "\n";
  } else if (info->kind == "module") {
    out = "mod " + name + "\n";
    auto items = s.module_children(name);
    if (!items.empty()) {
      out += "items:";
      for (auto& i : items) out += " " + i;
      out += "\n";
    }
  } else if (auto v = s.value_of(name)) {
    out = name + ": " + type_string(*v) + "\n";
    if (v->is_tensor()) {
      const Tensor& t = v->tensor_ref();
      std::string shape = "[";
      for (int i = 0; i < t.rank(); ++i) shape += (i ? ", " : "") + std::to_string(t.dim(i));
      out += "shape: " + shape + "]   dtype: " + dtype_name(t.dtype()) +
             "   size: " + std::to_string(t.size()) + "\n";
    }
    std::string text = format_value(*v);
    if (text.size() > 400 && detail == 0) text = text.substr(0, 400) + " ...";
    out += "value: " + text + "\n";
  } else {
    out = name + ": " + info->kind + "\n";
  }
  if (!info->doc.empty()) out += "\n" + info->doc + (info->doc.back() == '\n' ? "" : "\n");
  if (detail > 0 && !info->source.empty()) {
    out += "\n" + info->source_name + ":" + std::to_string(info->line) + "\n" + info->source;
    if (info->source.back() != '\n') out += "\n";
  }
  return out;
}

std::string inspect(Session& s, const std::string& code, size_t cursor, int detail) {
  Span2 sp = path_around(code, std::min(cursor, code.size()));
  // Nothing right at the cursor: inspect the callee of the call the cursor is in, which is
  // what shift-tab inside `f(a, |)` means.
  if (sp.begin == sp.end) {
    int depth = 0;
    for (size_t i = std::min(cursor, code.size()); i > 0; --i) {
      char ch = code[i - 1];
      if (ch == ')') ++depth;
      if (ch == '(' && depth-- == 0) {
        sp = path_around(code, i - 1);
        break;
      }
    }
  }
  if (sp.begin == sp.end) return "";
  return describe(s, code.substr(sp.begin, sp.end - sp.begin), detail);
}

std::string help_query(const std::string& code, int* detail) {
  static const std::regex after(R"(^\s*([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)\s*(\?\??)\s*$)");
  static const std::regex before(R"(^\s*(\?\??)\s*([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)\s*$)");
  std::smatch m;
  if (std::regex_match(code, m, after)) {
    if (detail) *detail = m[2].length() == 2 ? 1 : 0;
    return m[1].str();
  }
  if (std::regex_match(code, m, before)) {
    if (detail) *detail = m[1].length() == 2 ? 1 : 0;
    return m[2].str();
  }
  return "";
}

}  // namespace ein::kernel
