// SIGINT to `ein FILE`, `ein -c CODE` and `ein --cells FILE` while a long statement runs: the
// statement stops with an E007 diagnostic that points at it, and ein exits with status 130
// (issue 19). In both tiers; with native kernels the interrupt may land in the compiler or in
// the kernel, and either way it is E007.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/unit/jit/jit_fixture.h"

extern char** environ;

namespace ein {
namespace {

using testing::TempDir;

struct Outcome {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Starts ein with `args`, waits until its stdout contains "started", sends SIGINT, waits.
Outcome interrupt_run(const std::vector<std::string>& args, const std::string& dir, const std::string& tier) {
  std::string ein = testing::ein_binary();
  std::string out = dir + "/out", err = dir + "/err";
  std::vector<std::string> envs = {"EIN_JIT=" + tier, "EIN_CACHE_DIR=" + dir + "/cache"};
  for (char** e = environ; *e; ++e) {
    std::string v = *e;
    if (v.rfind("EIN_JIT=", 0) != 0 && v.rfind("EIN_CACHE_DIR=", 0) != 0) envs.push_back(v);
  }
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> all = {ein};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  Outcome r;
  if (posix_spawn(&pid, ein.c_str(), &fa, nullptr, argv.data(), envp.data()) != 0) return r;
  posix_spawn_file_actions_destroy(&fa);
  for (int i = 0; i < 1200 && slurp(out).find("started") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // inside the long statement
  kill(pid, SIGINT);
  int st = 0;
  bool done = false;
  for (int i = 0; i < 1200 && !done; ++i) {  // two minutes at most, then it is a hang
    done = waitpid(pid, &st, WNOHANG) == pid;
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!done) {
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    r.status = -2;
  } else {
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const char* kStart = "print(\"started\"); let n: i64 = 4000000000;\n";
const char* kLong = "let s = sum[i in 0..n, j in 0..n]((i * j) as f64);\n";

TEST(Sigint, FileModesStopTheStatementWithE007AndExit130) {
  if (testing::ein_binary().empty()) GTEST_SKIP() << "ein binary not found next to the test binary";
  TempDir dir;
  std::string prog = dir.path() + "/long.ein";
  // The long statement is on line 2 of the file (and of the second cell).
  std::ofstream(prog) << kStart << kLong << "print(\"not reached\");\n";
  std::string cells = dir.path() + "/cells.ein";
  std::ofstream(cells) << kStart << kLong << "// %%\nprint(\"later cell\");\n";
  for (const char* tier : {"never", "always"}) {
    struct Case {
      std::vector<std::string> args;
      std::string where;  // the diagnostic's location prefix
    };
    Case cases[] = {
        {{prog}, prog + ":2:"},
        {{"-c", std::string(kStart) + kLong}, "<command line>:2:"},
        {{"--cells", cells}, cells + ":2:"},
    };
    for (auto& c : cases) {
      Outcome r = interrupt_run(c.args, dir.path(), tier);
      EXPECT_EQ(r.status, 130) << tier << " " << c.args[0] << "\n" << r.err;
      EXPECT_NE(r.err.find("error[E007]"), std::string::npos) << tier << " " << c.args[0] << "\n" << r.err;
      EXPECT_NE(r.err.find(c.where), std::string::npos) << tier << " " << c.args[0] << "\n" << r.err;
      EXPECT_EQ(r.out.find("not reached"), std::string::npos) << r.out;
      EXPECT_EQ(r.out.find("later cell"), std::string::npos) << r.out;
      EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    }
  }
}

}  // namespace
}  // namespace ein
