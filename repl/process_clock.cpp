#include "repl/process_clock.h"

#include <time.h>

#include <chrono>
#include <cstdio>

namespace ein::proc {
namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Constructed before every other static object of the executable (priority 101 is the first a
// program may use), so destroyed after all of them. The libraries' finalizers and the kernel's
// teardown of the address space still follow (docs/architecture.md: their measured size).
struct ProcessClock {
  Clock::time_point mark = Clock::now();
  double before_ms = 0;  // main thread CPU time before the first mark, added to the first lap
  bool report_exit = false;
  ProcessClock() {
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
      before_ms = static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
  }
  ~ProcessClock() {
    if (report_exit) std::fprintf(stderr, "timing: exit %.3f ms\n", ms_between(mark, Clock::now()));
  }
};

ProcessClock the_clock __attribute__((init_priority(101)));

}  // namespace

double lap_ms() {
  const Clock::time_point now = Clock::now();
  const double ms = the_clock.before_ms + ms_between(the_clock.mark, now);
  the_clock.before_ms = 0;
  the_clock.mark = now;
  return ms;
}

void mark_cell_end() {
  the_clock.before_ms = 0;
  the_clock.mark = Clock::now();
  the_clock.report_exit = true;
}

}  // namespace ein::proc
