// Shared helpers for the JIT tests: a private cache directory per test, environment changes
// that are undone afterwards, and a trivial kernel text with a distinct cache key.
#pragma once
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "engine/codegen/prelude.h"
#include "engine/jit/jit.h"

namespace ein::testing {

// Sets environment variables for the lifetime of the object, restoring the old values.
class ScopedEnv {
 public:
  void set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) setenv(name.c_str(), value->c_str(), 1);
    else unsetenv(name.c_str());
    jit::reset_for_tests();
  }
  ~ScopedEnv() {
    for (auto& [n, v] : saved_) {
      if (v) setenv(n.c_str(), v->c_str(), 1);
      else unsetenv(n.c_str());
    }
    jit::reset_for_tests();
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// A fresh directory under the system temp dir, removed at the end.
class TempDir {
 public:
  TempDir() {
    std::string p = (std::filesystem::temp_directory_path() / "ein-jit-test-XXXXXX").string();
    std::vector<char> buf(p.begin(), p.end());
    buf.push_back('\0');
    path_ = mkdtemp(buf.data()) ? buf.data() : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A kernel returning `value` in its result; different values give different cache keys.
inline std::string answer_kernel(int64_t value) {
  return "EIN_EXPORT int EIN_KERNEL(ein_args* A) {\n  A->result->i = " + std::to_string(value) +
         "LL;\n  return 0;\n}\n";
}

inline int64_t call_answer(void* fn) {
  ein_scalar res{};
  ein_err err{};
  unsigned char stop = 0;
  ein_args a{};
  a.abi = EIN_ABI_VERSION;
  a.result = &res;
  a.err = &err;
  a.interrupt = &stop;
  int rc = reinterpret_cast<ein_kernel_fn>(fn)(&a);
  return rc == 0 ? res.i : -1;
}

inline std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (auto& e : std::filesystem::directory_iterator(dir, ec)) {
    std::string n = e.path().filename().string();
    if (n.size() > 3 && n.substr(n.size() - 3) == ".so") out.push_back(e.path().string());
  }
  return out;
}

// The `ein` executable built next to the test binary ("" if absent).
inline std::string ein_binary() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  auto p = exe.parent_path() / "ein";
  return std::filesystem::exists(p, ec) ? p.string() : "";
}

}  // namespace ein::testing
