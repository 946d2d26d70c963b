// xein: the Einlang Jupyter kernel (xeus), and `xein install` for its kernelspec.
//
// Interrupts: the kernelspec says interrupt_mode "signal", so Jupyter sends SIGINT. SIGINT is
// blocked in every thread (the mask is set before any thread starts and is inherited), and one
// thread waits for it with sigwait() and calls Session::interrupt(), which only stores to an
// atomic flag that the interpreter and native kernels poll. Why not a plain handler: a signal
// delivered to one of xeus' zmq threads makes its blocking poll fail with EINTR, which cppzmq
// turns into an exception that would end the kernel.
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
#include <mutex>
#include <thread>

#include <xeus/xhelper.hpp>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xserver_zmq.hpp>

#include "kernel/xhistory.h"
#include "kernel/xinterpreter.h"
#endif

namespace {

constexpr const char* kUsage = R"(usage: xein [-f CONNECTION_FILE]
       xein install [--user | --prefix DIR | --sys-prefix]
       xein --version
Jupyter starts `xein -f CONNECTION_FILE` (see `xein install`). Without -f the kernel picks its
own ports and prints the connection information.
)";

#ifdef EIN_HAVE_XEUS
std::mutex g_session_mu;
ein::Session* g_session = nullptr;  // guarded by g_session_mu

void block_sigint() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void start_interrupt_thread() {
  std::thread([] {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0) continue;
      std::lock_guard<std::mutex> lk(g_session_mu);
      if (g_session) g_session->interrupt();
    }
  }).detach();
}

int run_kernel(int argc, char** argv) {
  block_sigint();
  start_interrupt_thread();
  std::string file = xeus::extract_filename(argc, argv);
  auto interpreter = std::make_unique<ein::kernel::Interpreter>();
  {
    std::lock_guard<std::mutex> lk(g_session_mu);
    g_session = &interpreter->session();
  }
  auto context = xeus::make_context<zmq::context_t>();
  auto history = std::make_unique<ein::kernel::HistoryManager>();
  int status = 0;
  if (!file.empty()) {
    xeus::xconfiguration config = xeus::load_configuration(file);
    xeus::xkernel kernel(config, xeus::get_user_name(), std::move(context), std::move(interpreter),
                         xeus::make_xserver_zmq, std::move(history));
    kernel.start();
    std::lock_guard<std::mutex> lk(g_session_mu);
    g_session = nullptr;
  } else {
    xeus::xkernel kernel(xeus::get_user_name(), std::move(context), std::move(interpreter),
                         xeus::make_xserver_zmq, std::move(history));
    std::cout << xeus::print_starting_message(kernel.get_config()) << std::flush;
    kernel.start();
    std::lock_guard<std::mutex> lk(g_session_mu);
    g_session = nullptr;
  }
  return status;
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
      std::puts("xein 0.1.0");
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
