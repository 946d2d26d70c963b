// The xeus interpreter of the Einlang kernel: a thin adapter from Jupyter requests to the
// shared Session (ARCHITECTURE: kernel/ holds no language logic). Rendering of values and
// errors lives in xdisplay, output batching in xio, completion/inspection in xcomplete.
#pragma once
#ifdef EIN_HAVE_XEUS
#include <atomic>
#include <memory>
#include <string>

#include <xeus/xinterpreter.hpp>

#include "engine/session/progress_monitor.h"
#include "engine/session/session.h"
#include "kernel/xio.h"

namespace ein::kernel {

class Interpreter final : public xeus::xinterpreter {
 public:
  Interpreter();
  ~Interpreter() override;
  Session& session() { return *session_; }
  // The In[N] number of the request being (or last) executed; the history numbers lines by it.
  int last_counter() const { return last_counter_.load(); }

 private:
  void configure_impl() override;
  nl::json execute_request_impl(int execution_counter, const std::string& code, bool silent,
                                bool store_history, nl::json user_expressions,
                                bool allow_stdin) override;
  nl::json complete_request_impl(const std::string& code, int cursor_pos) override;
  nl::json inspect_request_impl(const std::string& code, int cursor_pos,
                                int detail_level) override;
  nl::json is_complete_request_impl(const std::string& code) override;
  nl::json kernel_info_request_impl() override;
  void shutdown_request_impl() override {}

  nl::json execute_code(int counter, const std::string& code, bool silent, bool store_history);
  nl::json execute_help(const std::string& code, const std::string& name, int detail);
  nl::json report_error(const std::string& ename, const std::string& evalue,
                        const std::vector<std::string>& traceback, bool silent);

  // Progress of long cells: one display_data per cell, updated by display_id (transient, so
  // a saved notebook does not keep the id), emptied when the cell ends (docs/jupyter.md).
  void show_progress(const ProgressSnapshot& p, double seconds);
  void hide_progress();

  OutputSink sink_;
  std::atomic<int> last_counter_{0};
  std::unique_ptr<Session> session_;
  std::string progress_id_;     // display_id of the running cell's progress display
  bool progress_shown_ = false;  // (both used by the monitor's thread only)
  std::string progress_last_;
  std::unique_ptr<ProgressMonitor> progress_;
};

}  // namespace ein::kernel
#endif
