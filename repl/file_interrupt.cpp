#include "repl/file_interrupt.h"

#include <signal.h>

#include <atomic>
#include <cstdio>

namespace ein {

namespace {

Session* g_session = nullptr;
volatile sig_atomic_t g_count = 0;

void on_sigint(int) {
  g_count = g_count + 1;
  if (g_count > 1) {
    // Second Ctrl-C: the usual death by SIGINT (status 130 as seen by a shell).
    signal(SIGINT, SIG_DFL);
    raise(SIGINT);
    return;
  }
  if (g_session) g_session->interrupt();  // an atomic store
}

}  // namespace

FileInterrupt::FileInterrupt(Session& session) {
  g_session = &session;
  g_count = 0;
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // the program's own output is not cut short
  sigaction(SIGINT, &sa, nullptr);
}

FileInterrupt::~FileInterrupt() {
  signal(SIGINT, SIG_DFL);
  g_session = nullptr;
}

bool FileInterrupt::finish(const CellResult& r) const {
  if (g_count == 0) return false;
  bool shown = false;
  for (auto& d : r.diags) shown = shown || d.code == "E007";
  if (!shown) std::fputs("error[E007]: interrupted\n", stderr);
  std::fflush(stderr);
  return true;
}

bool FileInterrupt::pending() const {
  if (g_count == 0) return false;
  std::fputs("error[E007]: interrupted\n", stderr);
  std::fflush(stderr);
  return true;
}

}  // namespace ein
