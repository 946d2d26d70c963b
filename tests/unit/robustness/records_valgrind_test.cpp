// A derivative through an earlier cell's binding follows the specialisations of the functions
// that binding called (lang/passes/driver.cpp, remember_definitions): the record must keep them.
// They were freed with the cell's compilation and read afterwards -- an invalid read that
// usually gives the right answer from stale memory, so the check is memcheck's, on the real
// `ein` (skipped when valgrind is not installed; ~12 s of CPU).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/unit/jit/jit_fixture.h"

extern char** environ;

namespace ein {
namespace {

std::string find_valgrind() {
  for (const char* d : {"/usr/bin/valgrind", "/usr/local/bin/valgrind"})
    if (access(d, X_OK) == 0) return d;
  return "";
}

TEST(Records, DerivativesThroughEarlierCallsReadOnlyLiveMemory) {
  std::string ein = testing::ein_binary(), vg = find_valgrind();
  if (ein.empty() || vg.empty()) GTEST_SKIP() << "needs the ein binary and valgrind";
  testing::TempDir dir;
  std::string prog = dir.path() + "/cells.ein", out = dir.path() + "/out", err = dir.path() + "/err";
  std::ofstream(prog) << "fn sq(x) { x * x }\n// %%\nlet xs = [1.0, 2.0, 3.0];\nlet y = sum[i](sq(xs[i]));\n"
                         "// %%\n@y / @xs\n";
  std::vector<std::string> args = {vg, "-q", "--error-exitcode=99", ein, "--cells", prog};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> envs = {"EIN_JIT=never", "EIN_CACHE_DIR=" + dir.path() + "/cache"};
  for (char** e = environ; *e; ++e) {
    std::string v = *e;
    if (v.rfind("EIN_JIT=", 0) != 0 && v.rfind("EIN_CACHE_DIR=", 0) != 0) envs.push_back(v);
  }
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, vg.c_str(), &fa, nullptr, argv.data(), envp.data()), 0);
  posix_spawn_file_actions_destroy(&fa);
  int st = 0;
  waitpid(pid, &st, 0);
  std::ifstream eo(err), oo(out);
  std::string e((std::istreambuf_iterator<char>(eo)), {}), o((std::istreambuf_iterator<char>(oo)), {});
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << e;
  EXPECT_NE(o.find("[2.0, 4.0, 6.0]"), std::string::npos) << o;  // d/dx sum x^2 = 2x
}

}  // namespace
}  // namespace ein
