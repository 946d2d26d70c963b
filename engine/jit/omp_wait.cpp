// How the kernels' OpenMP workers wait between parallel regions. libgomp reads the choice once,
// from the environment, in its constructor — when the first kernel object loads it (no code
// linked into ein may use OpenMP itself, or libgomp would start before main(); unit
// OmpWait.*). docs/jit.md "Threads between parallel regions" has the measurements.
//
// Neither of libgomp's policies suits a 2-CPU machine both idle and busy:
// - Spinning workers (libgomp's default, 300 000 rounds, ~6 ms here) answer the next region in
//   microseconds. But a worker that spins beside a BLAS call takes a core from OpenBLAS's own
//   threads (linear layer 1.40 × NumPy against 0.94), and when the machine is busy a worker the
//   scheduler placed on the master's CPU stays there: every region then waits for the spin to
//   end (a 0.13 ms statement took 1–5 ms with 10^4 rounds, 24 ms with the default, at load 9).
// - Sleeping workers (passive) cost two futex wakes per region: ~0.12 ms with the other CPU
//   busy, more when it is idle (a halted vCPU wakes slowly: kmeans_assign 0.50 -> 1.05 ms,
//   quiet). They never wait for a spinner, so a busy machine sees no regime of slow processes.
// So: a short bounded spin (kSpinRounds, ~0.2 ms, longer than the gap between the kernels of
// consecutive statements, short against a GEMM) when the machine has an idle CPU, passive
// when it has none. The load is read once, at the first kernel load; a process keeps its
// choice (libgomp cannot change it later). A user's OMP_WAIT_POLICY or GOMP_SPINCOUNT wins.
#include "engine/jit/omp_wait.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace ein::jit {

OmpWait choose_omp_wait(const char* policy, const char* spincount, double load1, int online, int usable) {
  OmpWait w;
  if (policy || spincount) {
    w.why = std::string("the user's ") + (policy ? "OMP_WAIT_POLICY" : "GOMP_SPINCOUNT");
    return w;
  }
  char buf[96];
  // An idle CPU on average over the last minute: the load is the machine's (ein itself counts
  // as one runnable task), so it is compared with the machine's CPUs. With one usable CPU a
  // worker only ever shares the master's: never spin.
  if (usable >= 2 && load1 >= 0 && load1 < online - 0.5) {
    w.var = "GOMP_SPINCOUNT";
    w.value = std::to_string(kSpinRounds);
    std::snprintf(buf, sizeof buf, "load %.2f on %d CPUs: workers spin %ld rounds", load1, online, kSpinRounds);
  } else {
    w.var = "OMP_WAIT_POLICY";
    w.value = "passive";
    std::snprintf(buf, sizeof buf, "load %.2f on %d CPUs (%d usable): workers sleep", load1, online, usable);
  }
  w.why = buf;
  return w;
}

namespace {

double load_average() {
  double l = -1;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = -1;
    std::fclose(f);
  }
  return l;
}

int online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return 1;
}

}  // namespace

const OmpWait& apply_omp_wait() {
  static OmpWait chosen;
  static std::once_flag once;
  std::call_once(once, [] {
    chosen = choose_omp_wait(std::getenv("OMP_WAIT_POLICY"), std::getenv("GOMP_SPINCOUNT"), load_average(),
                             online_cpus(), usable_cpus());
    if (chosen.var) setenv(chosen.var, chosen.value.c_str(), 0);
  });
  return chosen;
}

}  // namespace ein::jit
