// SIGINT to `ein FILE`, `ein -c CODE` and `ein --cells FILE` while a long statement runs: the
// statement stops with an E007 diagnostic that points at it, and ein exits with status 130
// (issue 19). In both tiers; with native kernels the interrupt may land in the compiler or in
// the kernel, and either way it is E007.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "tests/unit/jit/jit_fixture.h"
#include "tests/unit/robustness/spawn_ein.h"


namespace ein {
namespace {

using testing::slurp;
using testing::TempDir;

struct Outcome {
  int status = -1;  // exit status, or 128 + signal
  std::string out, err;
};

// Starts ein with `args`, waits until its stdout contains "started", sends SIGINT, waits.
Outcome interrupt_run(const std::vector<std::string>& args, const std::string& dir, const std::string& tier) {
  std::string ein = testing::ein_binary();
  std::string out = dir + "/out", err = dir + "/err";
  std::vector<std::string> all = {ein};
  all.insert(all.end(), args.begin(), args.end());
  Outcome r;
  pid_t pid = testing::spawn_ein(all, dir, tier);
  if (pid < 0) return r;
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

void file_modes_stop(const char* tier) {
  if (testing::ein_binary().empty()) GTEST_SKIP() << "ein binary not found next to the test binary";
  TempDir dir;
  std::string prog = dir.path() + "/long.ein";
  // The long statement is on line 2 of the file (and of the first cell).
  std::ofstream(prog) << kStart << kLong << "print(\"not reached\");\n";
  std::string cells = dir.path() + "/cells.ein";
  std::ofstream(cells) << kStart << kLong << "// %%\nprint(\"later cell\");\n";
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

TEST(Sigint, FileModesStopTheStatementWithE007AndExit130Interpreted) { file_modes_stop("never"); }
TEST(Sigint, FileModesStopTheStatementWithE007AndExit130InKernels) { file_modes_stop("always"); }

// Interpreter operations that do a statement's whole work in one call must poll too: a
// vectorised clause over 2^24 points (about a minute of math between two polls; the next
// statement ran before E007) and an einsum whose product of extents no memory limit bounds
// (8 * 10^9 products; it never answered). Line 2 holds the long statement in both programs.
TEST(Sigint, WholeArrayOperationsOfTheInterpreterPoll) {
  if (testing::ein_binary().empty()) GTEST_SKIP() << "ein binary not found next to the test binary";
  TempDir dir;
  const char* programs[] = {
      "use std::math::{sin, cos, exp}; print(\"started\"); const N = 16777216;\n"
      "let p[i in 0..N] = sin(cos(sin(cos(sin(cos((i % 1000) as f64 * 0.001)))))) +"
      " exp(sin(cos(sin(cos(sin(cos(sin(cos(sin((i % 7) as f64))))))))));\n"
      "print(\"not reached\");\n",
      "use std::ml::einsum; let a[i in 0..400, j in 0..400] = 1.0; print(\"started\");\n"
      "let c = einsum(\"ij,kl->\", [a, a]);\n"
      "print(\"not reached\", c);\n",
  };
  for (const char* text : programs) {
    std::string prog = dir.path() + "/long.ein";
    std::ofstream(prog) << text;
    Outcome r = interrupt_run({prog}, dir.path(), "never");
    EXPECT_EQ(r.status, 130) << text << "\n" << r.err;
    EXPECT_NE(r.err.find("error[E007]"), std::string::npos) << text << "\n" << r.err;
    EXPECT_NE(r.err.find(prog + ":2:"), std::string::npos) << text << "\n" << r.err;
    EXPECT_EQ(r.out.find("not reached"), std::string::npos) << text << "\n" << r.out;
  }
}

TEST(Sigint, CtrlCWhileTheCompilerRunsStopsTheProgram) {
  // A terminal's Ctrl-C signals the whole foreground process group. The compiler (here one that
  // takes ten minutes) must not die behind ein's back and be reported as failed: ein stops it and
  // the statement with E007, runs nothing interpreted instead, and exits 130.
  std::string ein = testing::ein_binary();
  if (ein.empty()) GTEST_SKIP() << "ein binary not found next to the test binary";
  TempDir dir;
  std::string slow = dir.path() + "/slow-c++";
  std::string started = dir.path() + "/compiler-started";  // left by the compiler when it starts
  std::ofstream(slow) << "#!/bin/sh\ncase \" $* \" in *\" -o \"*) : > '" << started
                      << "'; exec sleep 600;; esac\nexec c++ \"$@\"\n";
  chmod(slow.c_str(), 0700);
  std::string prog = dir.path() + "/p.ein", out = dir.path() + "/out", err = dir.path() + "/err";
  std::ofstream(prog) << "let x[i in 0..1000] = i * 2;\nprint(\"after\", x[3]);\n";
  pid_t pid = testing::spawn_ein({ein, prog}, dir.path(), "always", {"EIN_CXX=" + slow}, true);
  ASSERT_GT(pid, 0);
  // The signal is sent once the compiler runs (an event, not a delay: the machine may be loaded).
  for (int i = 0; i < 3000 && access(started.c_str(), F_OK) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(access(started.c_str(), F_OK), 0) << "the compiler never started";
  kill(-pid, SIGINT);  // the whole group, as a terminal does
  int st = 0;
  bool done = false;
  for (int i = 0; i < 3000 && !done; ++i) {  // well before the fake compiler's ten minutes are over
    done = waitpid(pid, &st, WNOHANG) == pid;
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!done) {
    kill(-pid, SIGKILL);
    waitpid(pid, &st, 0);
  }
  ASSERT_TRUE(done) << "ein did not stop the compiler";
  std::string e = slurp(err);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 130) << e;
  EXPECT_NE(e.find("error[E007]"), std::string::npos) << e;
  EXPECT_EQ(e.find("warning"), std::string::npos) << e;
  EXPECT_EQ(slurp(out).find("after"), std::string::npos) << "the program went on interpreted";
}

}  // namespace
}  // namespace ein
