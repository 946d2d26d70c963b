// %history, %pwd and %cd (the shell reflexes of IPython users), and two text helpers the other
// commands share: glob patterns and "does this code bind anything".
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "engine/session/commands.h"

namespace ein::cmd {

bool glob_match(const std::string& pattern, const std::string& text) {
  // Iterative matcher with one backtrack point: no recursion on hostile patterns.
  size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++p;
      ++t;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool only_comments(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    size_t b = text.find_first_not_of(" \t\r", pos);
    if (b < end && text.compare(b, 2, "//") != 0) return false;
    pos = end + 1;
  }
  return true;
}

int open_brackets(const std::string& text, bool* top_semicolon) {
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {  // a string: skip to its closing quote
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (c == ';' && depth <= 0 && top_semicolon) {
      *top_semicolon = true;
    }
  }
  return depth;
}

bool binds_nothing(const std::string& code) {
  size_t b = code.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return true;
  size_t e = b;
  while (e < code.size() && (std::isalnum(static_cast<unsigned char>(code[e])) || code[e] == '_')) ++e;
  std::string first = code.substr(b, e - b);
  for (const char* kw : {"let", "fn", "use", "const", "mod", "pub"})
    if (first == kw) return false;
  bool statements = false;
  open_brackets(code, &statements);
  return !statements;
}

namespace {

std::string numbered(int n, const std::string& text, bool numbers) {
  std::string body = text;
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.pop_back();
  if (!numbers) return body + "\n";
  std::string pad(std::to_string(n).size() + 2, ' ');
  std::string out = std::to_string(n) + ": ";
  for (char ch : body) {
    out += ch;
    if (ch == '\n') out += pad;
  }
  return out + "\n";
}

}  // namespace

// %history [-n] [-g PATTERN] [N | A-B ...]: the inputs of this session, by their In [N] numbers.
// -g searches with a glob (`*` and `?`; IPython's -g finds the pattern anywhere in the input).
void cmd_history(Call& c) {
  auto& inputs = c.session.command_state().inputs;
  std::vector<std::pair<int, std::string>> past(inputs.begin(), inputs.end());
  if (!past.empty() && c.opt.number > 0 && past.back().first == c.opt.number) past.pop_back();
  bool numbers = false;
  std::string pattern;
  bool search = false;
  std::vector<std::pair<int, int>> ranges;
  std::string a = trim(c.args);
  size_t i = 0;
  auto word = [&]() {
    while (i < a.size() && std::isspace(static_cast<unsigned char>(a[i]))) ++i;
    size_t b = i;
    while (i < a.size() && !std::isspace(static_cast<unsigned char>(a[i]))) ++i;
    return a.substr(b, i - b);
  };
  for (std::string w = word(); !w.empty(); w = word()) {
    if (w == "-n") {
      numbers = true;
    } else if (w == "-g") {
      search = numbers = true;
      pattern = trim(a.substr(i));
      break;
    } else {
      size_t dash = w.find('-', 1);
      char* end = nullptr;
      long lo = std::strtol(w.c_str(), &end, 10);
      long hi = lo;
      bool ok = end && end != w.c_str() && (*end == 0 || size_t(end - w.c_str()) == dash);
      if (ok && dash != std::string::npos) {
        char* end2 = nullptr;
        hi = std::strtol(w.c_str() + dash + 1, &end2, 10);
        ok = end2 && *end2 == 0 && end2 != w.c_str() + dash + 1;
      }
      if (!ok || lo < 1 || hi < lo)
        throw Error("usage: %history [-n] [N | A-B ...] | %history -g PATTERN (got `" + w + "`)");
      ranges.emplace_back(int(lo), int(hi));
    }
  }
  std::string glob = "*" + pattern + "*";
  std::string out;
  for (auto& [n, text] : past) {
    bool in = ranges.empty();
    for (auto& [lo, hi] : ranges) in = in || (n >= lo && n <= hi);
    if (!in || (search && !glob_match(glob, text))) continue;
    out += numbered(n, text, numbers);
  }
  c.out.text = out.empty() ? (search ? "no input matches `" + pattern + "`\n" : "no history yet\n") : out;
}

void cmd_pwd(Call& c) {
  if (!trim(c.args).empty()) throw Error("%pwd takes no arguments");
  std::error_code ec;
  c.out.text = std::filesystem::current_path(ec).string() + "\n";
}

// %cd [DIR | -]: changes the process's working directory (files the program reads, %load, local
// modules); no argument goes home, `-` back to the previous directory.
void cmd_cd(Call& c) {
  std::string dir = trim(c.args);
  if (dir.size() >= 2 && (dir.front() == '"' || dir.front() == '\'') && dir.back() == dir.front())
    dir = dir.substr(1, dir.size() - 2);
  auto& state = c.session.command_state();
  if (dir.empty()) {
    const char* home = std::getenv("HOME");
    if (!home || !*home) throw Error("%cd: $HOME is not set; give a directory");
    dir = home;
  } else if (dir == "-") {
    if (state.previous_dir.empty()) throw Error("%cd -: no previous directory");
    dir = state.previous_dir;
  } else if (dir[0] == '~' && (dir.size() == 1 || dir[1] == '/')) {
    const char* home = std::getenv("HOME");
    if (home && *home) dir = home + dir.substr(1);
  }
  std::error_code ec;
  std::string before = std::filesystem::current_path(ec).string();
  if (::chdir(dir.c_str()) != 0) throw Error("%cd: cannot change to `" + dir + "`: " + std::strerror(errno));
  state.previous_dir = before;
  c.out.text = std::filesystem::current_path(ec).string() + "\n";
}

}  // namespace ein::cmd
