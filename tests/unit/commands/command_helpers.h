// Helpers for the command-layer tests: a session whose print() output is captured, and short
// ways to run an input the way a terminal or a notebook front end does.
#pragma once
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "engine/session/session.h"

namespace ein::testing_commands {

struct TestSession {
  std::string printed;
  Session s;
  explicit TestSession(SessionOptions o = {})
      : s([&] {
          o.out = [this](const std::string& t) { printed += t; };
          o.jit = o.jit.empty() ? "never" : o.jit;
          return o;
        }()) {}

  // A notebook-style call: rich output goes to displays.
  ExecuteResult rich(const std::string& input) { return s.execute(input, ExecuteOptions{}); }
  // A terminal-style call: everything a terminal shows is in `text`.
  ExecuteResult term(const std::string& input, bool color = false) {
    ExecuteOptions o;
    o.terminal = true;
    o.color = color;
    o.width = 80;
    return s.execute(input, o);
  }
  bool has(const std::string& name) {
    for (auto& n : s.session_names())
      if (n == name) return true;
    return false;
  }
};

// A fresh directory under the system temp dir, removed with everything in it at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "ein-cmdtest-XXXXXX").string();
    if (mkdtemp(t.data())) path = t;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string write(const std::string& rel, const std::string& text) const {
    auto p = path / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline const std::string* mime(const ExecuteResult& r, const std::string& type) {
  for (auto& d : r.displays) {
    auto it = d.mime.find(type);
    if (it != d.mime.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace ein::testing_commands
