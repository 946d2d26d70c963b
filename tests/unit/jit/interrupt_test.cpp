// Interrupting a cell while a native kernel runs: the kernel polls the session's flag in its
// outer loops, the cell fails with E007 and the session keeps working. The interrupts are sent
// on events, not after fixed delays (a loaded machine compiles for minutes): the warm-up run is
// interrupted once its kernel is in the cache, so the interrupt lands in the kernel, not in the
// compiler. (No timing assertion: the stop latency is recorded as a test property only.)
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "engine/session/session.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

struct Interrupted {
  CellResult cell;
  double stop_ms = 0;  // from the interrupt request to the end of the cell
};

// Runs `cell` and interrupts it once `ready()` holds (polled; any time after the cell started
// when there is no condition). A cell that ends first is not interrupted.
Interrupted run_and_interrupt(Session& s, const std::string& cell, std::function<bool()> ready = {}) {
  Interrupted out;
  std::atomic<bool> done{false};
  std::chrono::steady_clock::time_point asked;
  std::thread killer([&] {
    // run_cell clears the flag when it starts: the repeated interrupt below covers that, so
    // without a condition a short head start is enough.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    // A condition that never comes true must not leave a cell of minutes running: after ten
    // minutes the interrupt is sent anyway (and the test's checks then fail).
    auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(10);
    while (ready && !done.load() && !ready() && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    asked = std::chrono::steady_clock::now();
    // Repeat in case the cell had not started polling yet.
    while (!done.load()) {
      s.interrupt();
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  out.cell = s.run_cell(cell);
  auto end = std::chrono::steady_clock::now();
  done.store(true);
  killer.join();
  out.stop_ms = std::chrono::duration<double, std::milli>(end - asked).count();
  return out;
}

// A compiled kernel has been stored in the cache directory (build directories are "ein-*").
bool cache_has_kernel(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (it->is_directory(ec) && name.rfind("ein-", 0) == 0) {
      it.disable_recursion_pending();
      continue;
    }
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0 && it->is_regular_file(ec)) return true;
  }
  return false;
}

bool has_code(const CellResult& r, const std::string& code) {
  for (auto& d : r.diags)
    if (d.code == code) return true;
  return false;
}

class JitInterrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    env.set("EIN_CACHE_DIR", dir.path());
    SessionOptions so;
    so.jit = "always";
    so.out = [this](const std::string& t) { out += t; };
    session = std::make_unique<Session>(so);
  }
  TempDir dir;
  ScopedEnv env;
  std::string out;
  std::unique_ptr<Session> session;
};

TEST_F(JitInterrupt, ReductionKernelStopsWithE007) {
  Session& s = *session;
  ASSERT_TRUE(s.run_cell("let n = 3000000;").ok);
  // ~10^13 points: minutes of work unless the kernel notices the interrupt. Kernels are
  // specialised on known extents, so the warm-up is the same cell, interrupted late enough for
  // its kernel to be compiled and cached; the second run then stops inside the cached kernel.
  const std::string cell = "let b = sum[i in 0..n, j in 0..n]((i * j) as f64);";
  // The warm-up is interrupted only once the compiled kernel is in the cache, however long the
  // compiler takes; the cell then stops in its kernel.
  const std::string cache = dir.path();
  Interrupted warm = run_and_interrupt(s, cell, [&] { return cache_has_kernel(cache); });
  EXPECT_FALSE(warm.cell.ok);
  EXPECT_TRUE(has_code(warm.cell, "E007")) << warm.cell.rendered;
  ASSERT_EQ(warm.cell.kernel_misses + warm.cell.kernel_hits, 1) << warm.cell.rendered;
  // Kernels are looked up before they run, so an interrupt at any time stops this one in the
  // cached kernel.
  Interrupted r = run_and_interrupt(s, cell);
  EXPECT_FALSE(r.cell.ok);
  EXPECT_TRUE(has_code(r.cell, "E007")) << r.cell.rendered;
  EXPECT_EQ(r.cell.kernel_misses, 0);  // the cached kernel ran
  EXPECT_EQ(r.cell.kernel_hits, 1);
  RecordProperty("stop_ms", std::to_string(r.stop_ms));
  CellResult after = s.run_cell("print(n + 1);");
  EXPECT_TRUE(after.ok) << after.rendered;
  EXPECT_NE(out.find("3000001"), std::string::npos);
}

TEST_F(JitInterrupt, ParallelClauseKernelStopsWithE007) {
  Session& s = *session;
  ASSERT_TRUE(s.run_cell("let n = 64;").ok);
  CellResult warm = s.run_cell("let r[i in 0..n] = sum[j in 0..n]((i * j) as f64);");
  ASSERT_TRUE(warm.ok) << warm.rendered;
  ASSERT_TRUE(s.run_cell("let n = 4000000;").ok);
  Interrupted r = run_and_interrupt(s, "let r2[i in 0..n] = sum[j in 0..n]((i * j) as f64);");
  EXPECT_FALSE(r.cell.ok);
  EXPECT_TRUE(has_code(r.cell, "E007")) << r.cell.rendered;
  RecordProperty("stop_ms", std::to_string(r.stop_ms));
  EXPECT_TRUE(s.run_cell("let m[i in 0..3] = i * 2;\nprint(m);").ok);
  EXPECT_NE(out.find("[0, 2, 4]"), std::string::npos);
}

TEST_F(JitInterrupt, InterruptDuringCompilationStopsTheCellWithE007) {
  // A compiler that takes ten minutes for the kernels (its identity probes answer at once): the
  // interrupt must kill it and stop the cell with E007 — no "compiler failed" warning, and the
  // cell is not run by the interpreter instead.
  // It leaves a mark when it starts on the kernels: the interrupt is sent then.
  std::string slow = dir.path() + "/slow-c++";
  std::string started = dir.path() + "/compiler-started";
  {
    std::ofstream f(slow);
    f << "#!/bin/sh\ncase \" $* \" in *\" -o \"*) : > '" << started << "'; exec sleep 600;; esac\nexec c++ \"$@\"\n";
  }
  chmod(slow.c_str(), 0700);
  env.set("EIN_CXX", slow);
  Session& s = *session;
  ::testing::internal::CaptureStderr();
  auto t0 = std::chrono::steady_clock::now();
  Interrupted r = run_and_interrupt(s, "let x[i in 0..1000] = i * 2;\nprint(\"after\");",
                                    [&] { return std::filesystem::exists(started); });
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(r.cell.ok);
  ASSERT_TRUE(has_code(r.cell, "E007")) << r.cell.rendered;
  EXPECT_NE(r.cell.rendered.find("compiling"), std::string::npos) << r.cell.rendered;
  EXPECT_EQ(out.find("after"), std::string::npos) << "the cell went on after the interrupt";
  EXPECT_EQ(err.find("warning"), std::string::npos) << err;
  EXPECT_LT(took, 500.0) << "the compiler was not stopped";
  RecordProperty("stop_ms", std::to_string(r.stop_ms));
  env.set("EIN_CXX", std::nullopt);
  CellResult next = s.run_cell("print(\"next\");");
  EXPECT_TRUE(next.ok) << next.rendered;
  EXPECT_NE(out.find("next"), std::string::npos);
}

TEST_F(JitInterrupt, KernelErrorsBecomeDiagnosticsWithTheSourceSpan) {
  Session& s = *session;
  CellResult r = s.run_cell("let v = [1, 2, 0, 4];\nlet q[i] = 12 / v[i];\n");
  EXPECT_FALSE(r.ok);
  ASSERT_TRUE(has_code(r, "E007")) << r.rendered;
  EXPECT_NE(r.rendered.find("division by zero"), std::string::npos);
  EXPECT_NE(r.rendered.find(":2:"), std::string::npos) << r.rendered;
  CellResult b = s.run_cell("let w = [1.0, 2.0];\nlet ix = [0, 5];\nlet z[i] = w[ix[i]];\n");
  EXPECT_FALSE(b.ok);
  EXPECT_TRUE(has_code(b, "E005")) << b.rendered;
  EXPECT_NE(b.rendered.find("index 5 is out of bounds for axis 0 with extent 2"), std::string::npos) << b.rendered;
}

}  // namespace
}  // namespace ein
