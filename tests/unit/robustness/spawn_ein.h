// Starting a real process from a unit test: `args[0]` with its arguments, stdout and stderr
// into DIR/out and DIR/err, and the caller's environment with EIN_JIT=TIER and a private
// EIN_CACHE_DIR=DIR/cache (so tests neither share nor pollute the user's kernel cache).
#pragma once
#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern char** environ;

namespace ein::testing {

// The child's pid, or -1 if it could not be started. `extra_env` ("NAME=value") overrides the
// caller's environment too; `own_group` puts the child in a process group of its own (to signal
// it as a terminal signals its foreground group).
inline pid_t spawn_ein(const std::vector<std::string>& args, const std::string& dir, const std::string& tier,
                       const std::vector<std::string>& extra_env = {}, bool own_group = false) {
  std::vector<std::string> envs = {"EIN_JIT=" + tier, "EIN_CACHE_DIR=" + dir + "/cache"};
  envs.insert(envs.end(), extra_env.begin(), extra_env.end());
  size_t own = envs.size();
  for (char** e = environ; *e; ++e) {
    std::string v = *e;
    bool skip = false;
    for (size_t i = 0; i < own && !skip; ++i) {
      size_t n = envs[i].find('=') + 1;  // "NAME=" of a variable set here
      skip = v.compare(0, n, envs[i], 0, n) == 0;
    }
    if (!skip) envs.push_back(v);
  }
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> all = args;
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::string out = dir + "/out", err = dir + "/err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = -1;
  int rc = posix_spawn(&pid, all[0].c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace ein::testing
