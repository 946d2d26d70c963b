// A derivative through an earlier cell's binding follows the specialisations of the functions
// that binding called (lang/passes/driver.cpp, remember_definitions): the record must keep them.
// They were freed with the cell's compilation and read afterwards -- an invalid read that
// usually gives the right answer from stale memory, so the check is memcheck's, on the real
// `ein` (skipped when valgrind is not installed; ~12 s of CPU).
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "tests/unit/jit/jit_fixture.h"
#include "tests/unit/robustness/spawn_ein.h"


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
  pid_t pid = testing::spawn_ein({vg, "-q", "--error-exitcode=99", ein, "--cells", prog}, dir.path(), "never");
  ASSERT_GT(pid, 0);
  int st = 0;
  waitpid(pid, &st, 0);
  std::string e = testing::slurp(err), o = testing::slurp(out);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << e;
  EXPECT_NE(o.find("[2.0, 4.0, 6.0]"), std::string::npos) << o;  // d/dx sum x^2 = 2x
}

}  // namespace
}  // namespace ein
