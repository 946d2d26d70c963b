// The wait policy ein chooses reaches libgomp (engine/jit/omp_wait.cpp, docs/jit.md "Threads
// between parallel regions"): a bounded spin when the machine has an idle CPU, passive when it
// has none. libgomp reads the variable once, in its constructor; if the executable itself needed
// libgomp, that ran before main() and the choice ein makes later was never seen (idle workers
// spun ~6 ms after every parallel region beside the next BLAS call). After a parallel kernel has
// run, the libgomp it loaded must report the spin count ein chose (0 for passive) unless the
// user chose a policy or spin count. (Fails when anything linked into the executable needs
// libgomp: keep OpenMP out of the engine's own code.)
#include <dlfcn.h>

#include "engine/jit/omp_wait.h"
#include "engine/session/session.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

// The decision itself: the user's variables win; an idle CPU spins a bounded count; a busy
// machine or a single usable CPU sleeps.
TEST(OmpWait, SpinsBrieflyOnlyWhenACpuIsIdle) {
  jit::OmpWait u = jit::choose_omp_wait("active", nullptr, 0.1, 2, 2);
  EXPECT_EQ(u.var, nullptr);
  u = jit::choose_omp_wait(nullptr, "0", 0.1, 2, 2);
  EXPECT_EQ(u.var, nullptr);
  jit::OmpWait idle = jit::choose_omp_wait(nullptr, nullptr, 0.9, 2, 2);
  ASSERT_NE(idle.var, nullptr);
  EXPECT_EQ(std::string(idle.var), "GOMP_SPINCOUNT");
  EXPECT_EQ(idle.value, std::to_string(jit::kSpinRounds));
  EXPECT_GT(jit::kSpinRounds, 0);
  EXPECT_LE(jit::kSpinRounds, 100000);  // bounded: libgomp's default 300 000 spun ~6 ms beside BLAS
  for (double load : {1.6, 5.0}) {
    jit::OmpWait busy = jit::choose_omp_wait(nullptr, nullptr, load, 2, 2);
    ASSERT_NE(busy.var, nullptr);
    EXPECT_EQ(std::string(busy.var), "OMP_WAIT_POLICY");
    EXPECT_EQ(busy.value, "passive");
  }
  // Unknown load, or one usable CPU of an idle machine: sleep.
  EXPECT_EQ(std::string(jit::choose_omp_wait(nullptr, nullptr, -1, 2, 2).var), "OMP_WAIT_POLICY");
  EXPECT_EQ(std::string(jit::choose_omp_wait(nullptr, nullptr, 0.2, 64, 1).var), "OMP_WAIT_POLICY");
  // The machine's load against the machine's CPUs: 10 runnable tasks on 64 CPUs leave idle ones.
  EXPECT_EQ(std::string(jit::choose_omp_wait(nullptr, nullptr, 10, 64, 2).var), "GOMP_SPINCOUNT");
}

TEST(OmpWait, KernelsRunWithThePolicyEinChose) {
  const jit::OmpWait& chosen = jit::apply_omp_wait();  // the first kernel load's, or decided now
  if (!chosen.var) GTEST_SKIP() << chosen.why;
  TempDir dir;
  ScopedEnv env;
  env.set("EIN_CACHE_DIR", dir.path());
  SessionOptions so;
  so.jit = "always";
  Session s(so);
  CellResult r = s.run_cell("let a[i in 0..4096, j in 0..512] = (i + j) as f32 * 0.5;\nprint(a[4095, 511]);");
  ASSERT_TRUE(r.ok) << r.rendered;
  ASSERT_GE(r.kernel_hits + r.kernel_misses, 1);
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (!gomp) GTEST_SKIP() << "kernels built without OpenMP";
  auto display = reinterpret_cast<void (*)(int)>(dlsym(gomp, "omp_display_env"));
  ASSERT_NE(display, nullptr);
  ::testing::internal::CaptureStderr();
  display(1);
  std::fflush(stderr);
  const std::string shown = ::testing::internal::GetCapturedStderr();
  dlclose(gomp);
  const std::string spins = std::string(chosen.var) == "GOMP_SPINCOUNT" ? chosen.value : "0";
  EXPECT_NE(shown.find("GOMP_SPINCOUNT = '" + spins + "'"), std::string::npos) << chosen.why << "\n" << shown;
}

}  // namespace
}  // namespace ein
