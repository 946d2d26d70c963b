// Internal to engine/jit: the system C++ compiler — found, identified and started without a shell.
#pragma once
#include <atomic>
#include <string>
#include <vector>

namespace ein::jit {

struct RunResult {
  bool started = false;      // the process could be spawned
  bool interrupted = false;  // killed because the interrupt flag was set
  int status = -1;           // exit status (-1: killed by a signal)
  std::string out, err;      // captured streams (out only when asked for)
  std::string spawn_error;   // why it could not be started
};

// Runs argv (argv[0] searched in PATH) with posix_spawn and an argument vector — never a shell —
// with stdin from /dev/null and stdout/stderr captured through files in `tmp_dir`. Polls
// `interrupt` while waiting and kills the child when it is set.
RunResult run_process(const std::vector<std::string>& argv, const std::string& tmp_dir,
                      const std::atomic<bool>* interrupt, bool capture_out);

struct Compiler {
  std::string path;                // absolute path of $EIN_CXX (default c++); "" if not found
  std::vector<std::string> flags;  // $EIN_CXXFLAGS (default -O3 -march=native -fopenmp) + fixed ones
  std::string identity;            // path, version, resolved target options, flags
  std::string error;               // why it cannot be used ("" = usable)
};

struct DiskCache;

// Probed once per process. The identity costs two compiler runs, so it is memoised in the disk
// cache (an authenticated record keyed by the compiler file, flags and CPU) when there is one.
// The probes' temporary files go to `work_dir`.
const Compiler& compiler(const DiskCache& memo, const std::string& work_dir);
// Forget the probe (tests change $EIN_CXX between cases).
void reset_compiler();

// A private directory (0700, made with mkdtemp) for compiler files when there is no cache
// directory; "" when none can be made.
std::string scratch_dir();

}  // namespace ein::jit
