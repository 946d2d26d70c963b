#include "engine/jit/compiler.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "engine/config/env.h"
#include "engine/jit/disk_cache.h"
#include "engine/jit/sha256.h"

extern char** environ;

namespace ein::jit {

namespace {

std::string env_or(const char* name, const char* dflt) {
  const char* v = std::getenv(name);
  return v && *v ? v : dflt;
}

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// Captured output beyond this is dropped (a compiler error message is read for its first lines).
constexpr size_t kMaxCapture = size_t{1} << 20;

// An anonymous file for captured output: made with an unpredictable name, unlinked at once, so
// only the descriptor (and the child's copy of it) reaches it.
int temp_fd(const std::string& dir) {
  std::string p = dir + "/ein-io-XXXXXX";
  std::vector<char> buf(p.begin(), p.end());
  buf.push_back('\0');
  int fd = mkostemp(buf.data(), O_CLOEXEC);
  if (fd >= 0) unlink(buf.data());
  return fd;
}

std::string read_back(int fd) {
  std::string out;
  if (lseek(fd, 0, SEEK_SET) != 0) return out;
  char buf[8192];
  while (out.size() < kMaxCapture) {
    ssize_t r = read(fd, buf, std::min(sizeof buf, kMaxCapture - out.size()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    out.append(buf, static_cast<size_t>(r));
  }
  return out;
}

std::string find_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    char real[4096];
    return realpath(name.c_str(), real) && access(real, X_OK) == 0 ? real : "";
  }
  std::istringstream in(env_or("PATH", "/usr/local/bin:/usr/bin:/bin"));
  std::string dir;
  while (std::getline(in, dir, ':')) {
    if (dir.empty()) dir = ".";
    std::string cand = dir + "/" + name;
    char real[4096];
    if (access(cand.c_str(), X_OK) == 0 && realpath(cand.c_str(), real)) return real;
  }
  return "";
}

// What distinguishes this machine for -march=native: the CPU model and its feature flags.
std::string cpu_fingerprint() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, flags;
  while (std::getline(in, line)) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line;
    if (flags.empty() && line.rfind("flags", 0) == 0) flags = line;
    if (!model.empty() && !flags.empty()) break;
  }
  return model + "\n" + flags;
}

}  // namespace

std::string scratch_dir() {
  std::string base = env_or("TMPDIR", "/tmp");
  static std::string dir = [&] {
    std::string p = base + "/ein-jit-XXXXXX";
    std::vector<char> buf(p.begin(), p.end());
    buf.push_back('\0');
    // Never fall back to a shared directory: predictable names there could be planted.
    return mkdtemp(buf.data()) ? std::string(buf.data()) : std::string();
  }();
  return dir;
}

RunResult run_process(const std::vector<std::string>& argv, const std::string& tmp_dir,
                      const std::atomic<bool>* interrupt, bool capture_out) {
  RunResult r;
  int out_fd = capture_out ? temp_fd(tmp_dir) : open("/dev/null", O_WRONLY | O_CLOEXEC);
  int err_fd = temp_fd(tmp_dir);
  int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  auto close_all = [&] {
    for (int fd : {out_fd, err_fd, in_fd})
      if (fd >= 0) close(fd);
  };
  if (out_fd < 0 || err_fd < 0 || in_fd < 0) {
    r.spawn_error = std::string("cannot create temporary files in ") + tmp_dir + ": " + std::strerror(errno);
    close_all();
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  // Its own process group: a Ctrl-C typed at the terminal reaches ein, which decides (and kills
  // the compiler through the interrupt flag), instead of killing the compiler behind ein's back
  // and looking like a compiler failure.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    r.spawn_error = "cannot start `" + argv[0] + "`: " + std::strerror(rc);
  } else {
    r.started = true;
    int st = 0;
    while (true) {
      pid_t w = waitpid(pid, &st, WNOHANG);
      if (w == pid) break;
      if (w < 0 && errno != EINTR) break;
      if (interrupt && interrupt->load(std::memory_order_relaxed) && !r.interrupted) {
        kill(pid, SIGKILL);  // our own child, by its pid
        r.interrupted = true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    // Killed by a signal while an interrupt is pending (someone signalled its group): that is
    // the interrupt, not a compiler failure.
    if (WIFSIGNALED(st) && interrupt && interrupt->load(std::memory_order_relaxed)) r.interrupted = true;
  }
  if (capture_out) r.out = read_back(out_fd);
  r.err = read_back(err_fd);
  close_all();
  return r;
}

namespace {
std::mutex g_probe_mu;
Compiler g_compiler;
bool g_probed = false;
}  // namespace

void reset_compiler() {
  std::lock_guard<std::mutex> lock(g_probe_mu);
  g_probed = false;
  g_compiler = Compiler{};
}

const Compiler& compiler(const DiskCache& memo_cache, const std::string& work_dir) {
  std::lock_guard<std::mutex> lock(g_probe_mu);
  Compiler& c = g_compiler;
  if (g_probed) return c;
  g_probed = true;
  std::string name = config::value(config::Env::Cxx).value_or("c++");
  c.flags = split_words(config::value(config::Env::CxxFlags).value_or("-O3 -march=native -fopenmp"));
  // Fixed flags: kernels are position independent shared objects; math functions do not set
  // errno (nobody can observe it), which lets them vectorise; a*b+c is not contracted to an FMA
  // so that kernels round exactly as the interpreter does; floating-point exceptions are not
  // observable either, so comparisons may be if-converted (vectorised selects).
  for (const char* f : {"-shared", "-fPIC", "-fno-math-errno", "-fno-trapping-math", "-ffp-contract=off", "-fno-exceptions",
                        "-fno-rtti", "-fvisibility=hidden", "-w"})
    c.flags.push_back(f);
  c.path = find_in_path(name);
  if (c.path.empty()) {
    c.error = "no C++ compiler `" + name + "` found (set EIN_CXX)";
    return c;
  }
  std::string flag_text;
  for (auto& f : c.flags) flag_text += f + " ";
  struct stat st {};
  stat(c.path.c_str(), &st);
  std::string memo_key = sha256_hex(c.path + "\n" + std::to_string(st.st_size) + " " + std::to_string(st.st_mtime) +
                                    " " + std::to_string(st.st_ino) + "\n" + flag_text + "\n" + cpu_fingerprint());
  // The memo is read like a cache entry: a FIFO or symlink in its place, or a record that was
  // not authenticated with our key, is ignored (and rewritten below).
  std::string memo = "compiler-" + memo_key.substr(0, 32) + ".id";
  if (auto text = memo_cache.read_record(memo); text && !text->empty()) {
    c.identity = *text;
    return c;
  }
  if (work_dir.empty()) {
    c.error = "no private directory for the compiler's files could be made";
    return c;
  }
  const std::string& tmp = work_dir;
  RunResult v = run_process({c.path, "--version"}, tmp, nullptr, true);
  if (!v.started || v.status != 0) {
    c.error = v.started ? "`" + c.path + " --version` failed" : v.spawn_error;
    return c;
  }
  // -march=native means different code on different machines: resolve it to the options the
  // compiler actually uses (GCC: -Q --help=target; others: the driver's -### command).
  std::vector<std::string> q = {c.path};
  for (auto& f : c.flags) q.push_back(f);
  q.insert(q.end(), {"-Q", "--help=target"});
  RunResult t = run_process(q, tmp, nullptr, true);
  std::string target = t.status == 0 ? t.out : "";
  if (target.empty()) {
    std::vector<std::string> d = {c.path};
    for (auto& f : c.flags) d.push_back(f);
    d.insert(d.end(), {"-###", "-x", "c++", "-c", "/dev/null", "-o", "/dev/null"});
    target = run_process(d, tmp, nullptr, false).err;
  }
  c.identity = c.path + "\n" + v.out.substr(0, v.out.find('\n')) + "\n" + sha256_hex(target) + "\n" + flag_text;
  memo_cache.write_record(memo, c.identity);
  return c;
}

}  // namespace ein::jit
