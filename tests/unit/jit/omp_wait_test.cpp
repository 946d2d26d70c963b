// OMP_WAIT_POLICY=passive reaches libgomp (engine/jit/jit.cpp load_object, docs/jit.md
// "Threads between parallel regions"). libgomp reads the variable once, in its constructor; if
// the executable itself needed libgomp, that ran before main() and the policy ein sets later was
// never seen (idle workers spun ~10 ms after every parallel region beside the next BLAS call).
// After a parallel kernel has run, the libgomp it loaded must report a spin count of 0 (the
// passive policy) unless the user chose a policy or spin count. (Fails when anything linked
// into the executable needs libgomp: keep OpenMP out of the engine's own code.)
#include <dlfcn.h>

#include "engine/session/session.h"
#include "tests/unit/jit/jit_fixture.h"

namespace ein {
namespace {

using testing::ScopedEnv;
using testing::TempDir;

TEST(OmpWait, KernelsRunWithThePassivePolicy) {
  const char* policy = std::getenv("OMP_WAIT_POLICY");  // ours after an earlier kernel load
  if (policy && std::string(policy) != "passive") GTEST_SKIP() << "the user chose OMP_WAIT_POLICY";
  if (std::getenv("GOMP_SPINCOUNT")) GTEST_SKIP() << "the user chose GOMP_SPINCOUNT";
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
  EXPECT_NE(shown.find("GOMP_SPINCOUNT = '0'"), std::string::npos) << shown;
}

}  // namespace
}  // namespace ein
