// xein: the Einlang Jupyter kernel (xeus), and `xein install` for its kernelspec.
//
// Interrupts: the kernelspec says interrupt_mode "signal", so Jupyter sends SIGINT. SIGINT is
// blocked in every thread main() starts (the mask is inherited), and one thread waits for it
// with sigwait() and calls Session::interrupt(), which only stores to an atomic flag that the
// interpreter and native kernels poll. Why not only a plain handler: a signal delivered to one
// of xeus' zmq threads makes its blocking poll fail with EINTR, which cppzmq turns into an
// exception that would end the kernel. Threads that exist before main() (OpenBLAS starts its
// pool from a library constructor) still accept SIGINT, so a handler doing the same atomic
// store is installed too: with the default action, a SIGINT landing there would kill us.
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kernel/kernelspec.h"

#ifdef EIN_HAVE_XEUS
#include <pthread.h>

#include <iostream>
#include <memory>
#include <atomic>
#include <thread>

#include <xeus/xhelper.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver_zmq.hpp>

#include "kernel/xhistory.h"
#include "kernel/xinterpreter.h"
#include "kernel/xserver.h"
#endif

namespace {

constexpr const char* kUsage = R"(usage: xein [-f CONNECTION_FILE]
       xein install [--user | --prefix DIR | --sys-prefix]
       xein --version
Jupyter starts `xein -f CONNECTION_FILE` (see `xein install`). Without -f the kernel picks its
own ports and prints the connection information.
)";

#ifdef EIN_HAVE_XEUS
std::atomic<ein::Session*> g_session{nullptr};

void interrupt_session() {
  if (ein::Session* s = g_session.load()) s->interrupt();  // lock-free atomic stores only
}

extern "C" void on_sigint(int) { interrupt_session(); }

void setup_sigint() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) == 0) interrupt_session();
    }
  }).detach();
}

// Before the session goes away: no handler may reach it any more.
void detach_session() {
  signal(SIGINT, SIG_IGN);
  g_session.store(nullptr);
}

int run_kernel(int argc, char** argv) {
  setup_sigint();
  std::string file = xeus::extract_filename(argc, argv);
  auto interpreter = std::make_unique<ein::kernel::Interpreter>();
  g_session.store(&interpreter->session());
  auto context = xeus::make_context<zmq::context_t>();
  ein::kernel::Interpreter* interp = interpreter.get();
  auto history = std::make_unique<ein::kernel::HistoryManager>([interp] { return interp->last_counter(); });
  ein::kernel::set_execution_count_source([interp] { return interp->last_counter(); });
  // Output that is not valid UTF-8 (print of a binary file's bytes) is sent with U+FFFD in
  // place of the bad bytes; the default, strict, would throw and lose the reply.
  const auto eh = nl::json::error_handler_t::replace;
  if (!file.empty()) {
    xeus::xconfiguration config = xeus::load_configuration(file);
    xeus::xkernel kernel(config, xeus::get_user_name(), std::move(context), std::move(interpreter),
                         ein::kernel::make_server, std::move(history), nullptr, xeus::make_null_debugger,
                         nl::json::object(), eh);
    kernel.start();
    detach_session();
  } else {
    xeus::xkernel kernel(xeus::get_user_name(), std::move(context), std::move(interpreter),
                         ein::kernel::make_server, std::move(history), nullptr, xeus::make_null_debugger,
                         nl::json::object(), eh);
    std::cout << xeus::print_starting_message(kernel.get_config()) << std::flush;
    kernel.start();
    detach_session();
  }
  return 0;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "install")
    return ein::kernel::install_command({args.begin() + 1, args.end()});
  for (auto& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version") {
#ifdef EIN_HAVE_XEUS
      std::printf("xein " EIN_VERSION " (xeus %d.%d.%d)\n", XEUS_VERSION_MAJOR, XEUS_VERSION_MINOR,
                  XEUS_VERSION_PATCH);
#else
      std::puts("xein " EIN_VERSION " (built without xeus)");
#endif
      return 0;
    }
  }
#ifdef EIN_HAVE_XEUS
  return run_kernel(argc, argv);
#else
  std::fputs("xein: built without xeus (install xeus-dev and rebuild); only `xein install` works\n",
             stderr);
  return 1;
#endif
}
