// Completion (Session::complete) and input completeness for commands (is_complete_input):
// what the REPL's Tab and continuation prompt, and Jupyter's complete/is_complete, ask for.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>

#include "engine/session/commands.h"

namespace ein {

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const std::vector<std::string>& keywords() {
  static const std::vector<std::string> k = {"let", "const", "fn",   "pub",   "use",   "mod",
                                             "as",  "in",    "if",   "else",  "match", "where",
                                             "true", "false", "jagged"};
  return k;
}

// Builtins a program can call, and the reduction names (SPEC §8, §5.3).
const std::vector<std::string>& builtin_names() {
  static const std::vector<std::string> b = [] {
    std::vector<std::string> v;
    for (auto& d : cmd::builtin_docs()) v.push_back(d.name);
    for (const char* r : {"all", "any", "argmax", "argmin"}) v.push_back(r);
    return v;
  }();
  return b;
}

const std::vector<std::string>& stage_words() {
  static const std::vector<std::string> s = {"ast", "resolved", "lowered", "kernel", "after="};
  return s;
}

// File names for %load and --out: the directory part of `word` is listed.
std::vector<std::string> files(const std::string& word) {
  std::vector<std::string> out;
  size_t slash = word.rfind('/');
  std::string dir = slash == std::string::npos ? "" : word.substr(0, slash + 1);
  std::error_code ec;
  std::filesystem::directory_iterator it(dir.empty() ? "." : dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    std::string n = it->path().filename().string();
    if (n.empty() || (n[0] == '.' && word.substr(dir.size()).rfind('.', 0) != 0)) continue;
    out.push_back(dir + n + (it->is_directory(ec) ? "/" : ""));
  }
  return out;
}

// Members after `X.` (SPEC §2: `a.shape`, `a.length`, `a.size` on arrays, `t.0` on tuples): of
// a session binding by its value; of anything else (a local, a call's result) the array members.
std::vector<std::string> members(Session& s, const std::string& before, size_t dot) {
  size_t b = dot;
  while (b > 0 && word_char(before[b - 1])) --b;
  std::string name = before.substr(b, dot - b);
  if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) return {};  // `1.5`
  if (!name.empty()) {
    if (auto v = s.value_of(name)) {
      if (v->tag == Value::Tag::Tuple) {
        std::vector<std::string> idx;
        for (size_t i = 0; i < v->items().size(); ++i) idx.push_back(std::to_string(i));
        return idx;
      }
      if (v->tag != Value::Tag::Tensor || v->tensor_ref().rank() == 0) return {};
    }
  }
  return {"length", "shape", "size"};
}

// The module path of an unclosed `use PATH::{...` group that the word at `b` is in, else none.
std::optional<ir::ModPath> use_group_path(const std::string& before, size_t b) {
  size_t open = before.rfind("::{", b);
  if (open == std::string::npos) return std::nullopt;
  for (size_t i = open + 3; i < b; ++i) {
    char c = before[i];
    if (!(word_char(c) || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == ':')) return std::nullopt;
  }
  size_t p = open;
  while (p > 0 && (word_char(before[p - 1]) || before[p - 1] == ':')) --p;
  std::string path = before.substr(p, open - p);
  size_t kw = before.find_last_not_of(" \t\n", p == 0 ? std::string::npos : p - 1);
  if (path.empty() || p == 0 || kw == std::string::npos || kw < 2 || before.compare(kw - 2, 3, "use") != 0)
    return std::nullopt;
  return ir::ModPath::parse(path);
}

}  // namespace

std::vector<std::string> Session::complete(const std::string& text, size_t cursor, size_t* start) {
  cursor = std::min(cursor, text.size());
  std::string before = text.substr(0, cursor);
  // The word being completed: identifier characters and `::` separators.
  size_t b = cursor;
  while (b > 0 && (word_char(before[b - 1]) || before[b - 1] == ':')) --b;
  std::string lead = cmd::trim(before.substr(0, b));
  std::vector<std::string> pool;
  bool is_command_name = b > 0 && before[b - 1] == '%' && cmd::trim(before.substr(0, b - 1)).empty();
  const cmd::Command* command = nullptr;
  if (!lead.empty() && lead[0] == '%') {
    size_t e = 1;
    while (e < lead.size() && word_char(lead[e])) ++e;
    command = cmd::find_command(lead.substr(1, e - 1));
  }
  std::string word = before.substr(b);
  std::optional<ir::ModPath> group_path = use_group_path(before, b);
  if (!is_command_name && b > 0 && before[b - 1] == '.' && word.find(':') == std::string::npos) {
    // `A.sh<TAB>`: the members of the value before the dot, not every name in scope.
    pool = members(*this, before, b - 1);
  } else if (group_path) {
    // `use std::math::{si<TAB>`: the items of the group's module.
    for (auto& item : module_children(*group_path)) pool.push_back(item);
  } else if (is_command_name) {
    --b;  // include the '%'
    word = "%" + word;
    for (auto& k : cmd::commands()) pool.push_back(std::string("%") + k.name);
  } else if (command && (std::string(command->name) == "load" || lead.find("--out") != std::string::npos)) {
    // File arguments take path characters too.
    b = before.find_last_of(" \t=") == std::string::npos ? 0 : before.find_last_of(" \t=") + 1;
    word = before.substr(b);
    pool = files(word);
  } else if (size_t sep = word.rfind("::"); sep != std::string::npos) {
    // `std::math::s<TAB>`: the typed module path, then the segment being written.
    if (auto path = ir::ModPath::parse(word.substr(0, sep)))
      for (auto& item : module_children(*path)) pool.push_back((*path / item).text());
  } else {
    if (command && lead.find_first_of(" \t") == std::string::npos) {
      // First argument of a command with a fixed vocabulary.
      std::string n = command->name;
      if (n == "ir") pool = stage_words();
      if (n == "time") pool = {"on", "off"};
      if (n == "cache") pool = {"info", "clear"};
      if (n == "jit") pool = {"auto", "always", "never"};
      if (n == "help")
        for (auto& k : cmd::commands()) pool.push_back(k.name);
    }
    if (!command || command->takes_code || std::string(command->name) == "doc") {
      for (auto& n : session_names()) pool.push_back(n);
      for (auto& k : keywords()) pool.push_back(k);
      for (auto& n : builtin_names()) pool.push_back(n);
      pool.push_back("std");
    }
  }
  if (start) *start = b;
  std::set<std::string> out;
  for (auto& p : pool)
    if (p.size() >= word.size() && p.compare(0, word.size(), word) == 0) out.insert(p);
  return {out.begin(), out.end()};
}

std::string cmd::command_completeness(const Session& s, const std::string& text) {
  std::string t = cmd::trim(text);
  size_t e = 1;
  while (e < t.size() && word_char(t[e])) ++e;
  const cmd::Command* k = cmd::find_command(t.substr(1, e - 1));
  if (!k || !k->takes_code) return "complete";
  // Code carried by a command may span lines; anything that is not "still open" runs (and a
  // malformed argument gets its error from the command).
  std::string args = cmd::trim(t.substr(e));
  if (s.is_complete(args) == "incomplete") return "incomplete";
  size_t sp = args.find_first_of(" \t\n");  // %ir's stage word is not code
  return sp != std::string::npos && s.is_complete(args.substr(sp)) == "incomplete" ? "incomplete" : "complete";
}

}  // namespace ein
