#include "engine/jit/compiler.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A file for captured output, unlinked after reading.
int temp_fd(const std::string& dir, std::string* path) {
  std::string p = dir + "/ein-io-XXXXXX";
  std::vector<char> buf(p.begin(), p.end());
  buf.push_back('\0');
  int fd = mkstemp(buf.data());
  if (fd >= 0) *path = buf.data();
  return fd;
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
    return mkdtemp(buf.data()) ? std::string(buf.data()) : base;
  }();
  return dir;
}

RunResult run_process(const std::vector<std::string>& argv, const std::string& tmp_dir,
                      const std::atomic<bool>* interrupt, bool capture_out) {
  RunResult r;
  std::string out_path, err_path;
  int out_fd = capture_out ? temp_fd(tmp_dir, &out_path) : open("/dev/null", O_WRONLY | O_CLOEXEC);
  int err_fd = temp_fd(tmp_dir, &err_path);
  int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out_fd < 0 || err_fd < 0 || in_fd < 0) {
    r.spawn_error = std::string("cannot create temporary files in ") + tmp_dir + ": " + std::strerror(errno);
    for (int fd : {out_fd, err_fd, in_fd})
      if (fd >= 0) close(fd);
    if (!out_path.empty()) unlink(out_path.c_str());
    if (!err_path.empty()) unlink(err_path.c_str());
    return r;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(in_fd);
  close(out_fd);
  close(err_fd);
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
  }
  if (capture_out) r.out = read_file(out_path);
  r.err = read_file(err_path);
  if (!out_path.empty()) unlink(out_path.c_str());
  unlink(err_path.c_str());
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

const Compiler& compiler(const std::string& memo_dir) {
  std::lock_guard<std::mutex> lock(g_probe_mu);
  Compiler& c = g_compiler;
  if (g_probed) return c;
  g_probed = true;
  std::string name = env_or("EIN_CXX", "c++");
  c.flags = split_words(env_or("EIN_CXXFLAGS", "-O3 -march=native -fopenmp"));
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
  std::string memo = memo_dir.empty() ? "" : memo_dir + "/compiler-" + memo_key.substr(0, 32) + ".id";
  if (!memo.empty()) {
    std::string text = read_file(memo);
    if (text.size() > 64 && text.compare(0, 64, sha256_hex(text.substr(64))) == 0) {
      c.identity = text.substr(64);
      return c;
    }
  }
  std::string tmp = memo_dir.empty() ? scratch_dir() : memo_dir;
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
  if (!memo.empty()) {
    std::string tmpf = memo + ".tmp" + std::to_string(getpid());
    std::ofstream(tmpf, std::ios::binary) << sha256_hex(c.identity) << c.identity;
    if (std::rename(tmpf.c_str(), memo.c_str()) != 0) unlink(tmpf.c_str());
  }
  return c;
}

}  // namespace ein::jit
