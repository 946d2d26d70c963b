// How the kernels' OpenMP workers wait between parallel regions (see omp_wait.cpp and
// docs/jit.md "Threads between parallel regions").
#pragma once
#include <string>

namespace ein::jit {

// The choice for this process: which variable ein sets for libgomp, and why.
struct OmpWait {
  const char* var = nullptr;    // "GOMP_SPINCOUNT", "OMP_WAIT_POLICY", or nullptr (the user chose)
  std::string value;            // its value
  std::string why;              // one line for EIN_JIT_TRACE
};

// Workers spin this many rounds before they sleep when the machine has an idle CPU.
inline constexpr long kSpinRounds = 10000;

// The pure decision: `policy`/`spincount` are the user's OMP_WAIT_POLICY / GOMP_SPINCOUNT (null
// when unset), `load1` the machine's 1-minute load average (negative when unknown), `online` its
// CPUs, `usable` the CPUs this process may run on.
OmpWait choose_omp_wait(const char* policy, const char* spincount, double load1, int online, int usable);

// Once per process, before the first kernel object is loaded (libgomp reads its environment in
// its constructor, when that object loads it): decides and sets the variable. Returns the choice.
const OmpWait& apply_omp_wait();

}  // namespace ein::jit
