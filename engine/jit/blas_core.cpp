// OpenBLAS built with DYNAMIC_ARCH (Debian's) picks its kernels from the CPU model number at
// load time. A model newer than the library (OpenBLAS 0.3.21 and a 5th-generation Xeon, family
// 6 model 207, on the development machine) falls through to "Prescott": SSE3 kernels, 4-5x
// slower than the AVX-512 ones the CPU runs (1024² dgemm 390 -> 85 ms, sgemm 180 -> 41 ms). Every
// contraction ein lowers to BLAS pays that, so before the first call the library is asked to
// choose again with OPENBLAS_CORETYPE naming the core the CPU's features support — what a user
// who noticed would put in the environment. The user's own OPENBLAS_CORETYPE is left alone, and
// a library without the dynamic-arch entry points (weak symbols) is left as it is.
//
// The same once-per-process step shortens how long OpenBLAS's idle worker threads spin. The
// pthread build starts its workers when the library loads and, after every threaded call,
// keeps them polling with sched_yield for 2^28 TSC cycles (~0.12 s here) before they sleep.
// On a 2-vCPU machine a yielding spinner takes CPU from the kernels' own OpenMP threads: every
// statement that runs within 0.12 s of the process start or of a BLAS call (all of a benchmark
// run, any statement after a GEMM) loses part of its second core. docs/jit.md "Threads".
#include "engine/jit/blas_core.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

extern "C" {
char* openblas_get_corename(void);
__attribute__((weak)) void gotoblas_dynamic_init(void);
__attribute__((weak)) void gotoblas_dynamic_quit(void);
__attribute__((weak)) void openblas_read_env(void);
__attribute__((weak)) int blas_thread_shutdown_(void);
}

namespace ein::jit {

namespace {

std::once_flag once;
std::string chosen_by_library;

// Cores OpenBLAS falls back to that have no AVX2 kernels.
bool pre_avx2(const char* core) {
  static const char* const kOld[] = {"Prescott", "Core2",  "Penryn",  "Dunnington", "Nehalem", "Atom",
                                     "Katmai",   "Coppermine", "Northwood", "Banias", "Unknown"};
  for (const char* k : kOld)
    if (core && std::strcmp(core, k) == 0) return true;
  return false;
}

const char* supported_core() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512cd"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

// 2^20 TSC cycles (~0.45 ms at 2.3 GHz): longer than the gap between the calls of one
// statement (an RNN's per-step GEMVs come every few microseconds and keep the worker awake),
// short against any kernel that follows. A sleeping worker costs one condition-variable wake
// at the next threaded call. The library reads the variable once per thread start, so the
// workers the library started at load time are stopped; the next threaded call starts them
// again with the new timeout (what OpenBLAS itself does after fork()).
void quiet_idle_blas_workers() {
  if (std::getenv("OPENBLAS_THREAD_TIMEOUT") || !openblas_read_env || !blas_thread_shutdown_) return;
  setenv("OPENBLAS_THREAD_TIMEOUT", "20", 1);
  openblas_read_env();
  unsetenv("OPENBLAS_THREAD_TIMEOUT");  // read into the library; children need not inherit it
  blas_thread_shutdown_();
}

void switch_core() {
  if (std::getenv("OPENBLAS_CORETYPE") || !gotoblas_dynamic_init || !gotoblas_dynamic_quit) return;
  const char* core = openblas_get_corename();
  const char* want = supported_core();
  if (!want || !pre_avx2(core)) return;
  chosen_by_library = core;
  setenv("OPENBLAS_CORETYPE", want, 1);
  gotoblas_dynamic_quit();
  gotoblas_dynamic_init();
  unsetenv("OPENBLAS_CORETYPE");
}

}  // namespace

void select_blas_core() {
  // No BLAS call is running: kernels are the only callers, and this runs before the first.
  std::call_once(once, [] {
    quiet_idle_blas_workers();
    switch_core();
  });
}

std::string blas_core() {
  std::string s = openblas_get_corename();
  if (!chosen_by_library.empty()) s += " (OpenBLAS chose " + chosen_by_library + ")";
  return s;
}

}  // namespace ein::jit
