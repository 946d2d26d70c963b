// How far the running cell has got, for front ends that show progress (engine/session/
// progress_monitor.h). Written by the cell's thread (interpreter and native kernels) with
// relaxed atomic stores only, read by a front end's timer thread: the hot loops pay one plain
// store per outer iteration, never a lock or a read-modify-write.
#pragma once
#include <atomic>
#include <cstdint>

namespace ein {

struct Progress {
  // First line (in the cell's text) of the top-level statement running; 0 = none yet (compiling).
  std::atomic<int32_t> line{0};
  // The C++ compiler is building native kernels for the cell.
  std::atomic<bool> compiling{false};
  // [0] iterations done, [1] iteration count, of the running statement's outermost loop
  // (a recurrence's time loop); [1] == 0: not in a loop. Native kernels store into this array
  // through a plain int64_t* (std::atomic<int64_t> is lock-free with int64_t's layout).
  std::atomic<int64_t> steps[2] = {0, 0};

  void start_statement(int32_t l) {
    steps[1].store(0, std::memory_order_relaxed);
    steps[0].store(0, std::memory_order_relaxed);
    line.store(l, std::memory_order_relaxed);
  }
  // The statement's outermost loop starts: its own line (a clause inside a block) and count.
  void enter_loop(int32_t l, int64_t total) {
    steps[1].store(total, std::memory_order_relaxed);
    if (l > 0) line.store(l, std::memory_order_relaxed);
  }
  int64_t* raw_steps() { return reinterpret_cast<int64_t*>(&steps[0]); }
};
static_assert(std::atomic<int64_t>::is_always_lock_free && sizeof(std::atomic<int64_t>) == sizeof(int64_t),
              "kernels store into Progress::steps as plain int64_t");

}  // namespace ein
