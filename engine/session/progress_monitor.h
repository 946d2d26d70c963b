// Live progress of long inputs, for the front ends (REPL: a bar on the terminal's stderr;
// kernel: an updating display_data). A front end calls begin()/end() around
// Session::execute; one timer thread per front end (not per input) waits `delay`, then polls
// Session::progress() every `period` and hands the snapshot to the view, and has the view
// remove what it showed before end() returns. The cell's own thread only stores counters
// (engine/interp/progress.h), so the display costs the computation nothing measurable.
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "engine/session/session.h"

namespace ein {

class ProgressMonitor {
 public:
  struct View {
    // Called on the timer thread; `seconds` since begin(). Never concurrently with itself.
    std::function<void(const ProgressSnapshot&, double seconds)> show;
    // Called once after an input whose progress was shown has ended, before end() returns.
    std::function<void()> hide;
  };
  ProgressMonitor(const Session& s, View view, std::chrono::milliseconds delay, std::chrono::milliseconds period);
  ~ProgressMonitor();
  ProgressMonitor(const ProgressMonitor&) = delete;
  ProgressMonitor& operator=(const ProgressMonitor&) = delete;

  void begin();  // an input starts executing (on the thread that executes it)
  void end();    // it has ended; returns once the view has hidden what it showed

 private:
  void run();

  const Session& session_;
  View view_;
  std::chrono::milliseconds delay_, period_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool active_ = false, showing_ = false, stop_ = false;
  uint64_t generation_ = 0;
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;
};

// One line for a terminal of `width` columns:
//   line 3: let x[t in 1..N] = x[t-1] * 0.5…  [██████░░░░░░]  45%  4.50M/10.0M · 3.2 s
// (a command's label first; "compiling native kernels" while the C++ compiler runs).
std::string progress_text(const ProgressSnapshot& p, double seconds, int width);
// The same for a notebook: an HTML <progress> element and the escaped text.
std::string progress_html(const ProgressSnapshot& p, double seconds);

}  // namespace ein
