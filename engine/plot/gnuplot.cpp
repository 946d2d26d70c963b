// Running gnuplot: a private temporary directory holds the script and the outputs, the child
// gets an argument vector (posix_spawnp, no shell) and a wall-clock limit.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "engine/plot/plot.h"

extern char** environ;

namespace ein::plot {

namespace {

constexpr int kTimeoutMs = 20000;  // a plot of a few thousand points takes ~50 ms

bool read_all(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// Removes the directory and everything in it when render() returns, however it returns.
struct TempDir {
  std::string path;
  TempDir() {
    std::error_code ec;
    std::string base = std::filesystem::temp_directory_path(ec).string();
    if (ec || base.empty()) base = "/tmp";
    std::string tmpl = base + "/ein-plot-XXXXXX";
    if (mkdtemp(tmpl.data())) path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

struct Run {
  bool spawned = false;
  int spawn_errno = 0;
  bool timed_out = false;
  int status = 0;
};

Run run_child(const std::vector<std::string>& argv, const std::string& out_path,
              const std::string& err_path) {
  Run r;
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    r.spawn_errno = rc;
    return r;
  }
  r.spawned = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
  for (int delay_us = 200;; delay_us = std::min(delay_us * 2, 20000)) {
    pid_t w = waitpid(pid, &r.status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
      }
      r.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
  }
  return r;
}

// gnuplot's messages repeat the offending script line; the last non-empty line says what failed.
std::string summarize(const std::string& err) {
  std::string last, line;
  std::istringstream in(err);
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t^") != std::string::npos) last = line;
  if (last.size() > 300) last.resize(300);
  return last;
}

// Text without ANSI escape sequences, to judge whether a line shows anything.
std::string visible(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033' && i + 1 < s.size() && s[i + 1] == '[') {
      i += 2;
      while (i < s.size() && !(s[i] >= '@' && s[i] <= '~')) ++i;
      continue;
    }
    out += s[i];
  }
  return out;
}

// The dumb terminal starts its page with a form feed and pads lines with blanks; blank lines
// above and below the drawing would only push it off a small terminal.
std::string tidy_text(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) {
    std::string clean;
    for (char c : line)
      if (c != '\f' && c != '\r') clean += c;
    size_t end = clean.find_last_not_of(' ');
    clean.resize(end == std::string::npos ? 0 : end + 1);
    lines.push_back(clean);
  }
  auto blank = [](const std::string& l) { return visible(l).find_first_not_of(' ') == std::string::npos; };
  size_t b = 0, e = lines.size();
  while (b < e && blank(lines[b])) ++b;
  while (e > b && blank(lines[e - 1])) --e;
  std::string out;
  for (size_t i = b; i < e; ++i) out += lines[i] + "\n";
  // Leave the terminal's colours as they were found.
  if (out.find("\033[") != std::string::npos) out = out.substr(0, out.size() - 1) + "\033[0m\n";
  return out;
}

const char* extension(Format f) {
  switch (f) {
    case Format::Svg: return "svg";
    case Format::Png: return "png";
    case Format::Text: return "txt";
  }
  return "out";
}

}  // namespace

Result render(const Spec& spec, const std::vector<Format>& all_formats, const Size& size) {
  Result res;
  // A heat map's text drawing is ours (ordered colours, a true colour bar), not gnuplot's.
  std::vector<Format> formats;
  for (Format f : all_formats) {
    if (f == Format::Text && spec.kind == Kind::Heatmap) res.out[f] = text_heatmap(spec, size);
    else formats.push_back(f);
  }
  if (formats.empty()) {
    res.ok = true;
    return res;
  }
  TempDir dir;
  if (dir.path.empty()) {
    res.error = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return res;
  }
  std::vector<std::string> outputs;
  for (size_t i = 0; i < formats.size(); ++i)
    outputs.push_back(dir.path + "/plot" + std::to_string(i) + "." + extension(formats[i]));
  std::string script_path = dir.path + "/plot.gp";
  {
    std::ofstream f(script_path, std::ios::binary);
    f << script(spec, formats, outputs, size);
    if (!f) {
      res.error = "cannot write the gnuplot script in " + dir.path;
      return res;
    }
  }
  std::string prog = gnuplot_program();
  Run run = run_child({prog, script_path}, dir.path + "/stdout", dir.path + "/stderr");
  if (!run.spawned) {
    res.error = run.spawn_errno == ENOENT
                    ? "gnuplot is not installed (`" + prog + "` not found); install the Debian package gnuplot-nox"
                    : "cannot start `" + prog + "`: " + std::strerror(run.spawn_errno);
    return res;
  }
  std::string err;
  read_all(dir.path + "/stderr", err);
  if (run.timed_out) {
    res.error = "gnuplot did not finish within " + std::to_string(kTimeoutMs / 1000) + " s";
    return res;
  }
  bool exited_ok = WIFEXITED(run.status) && WEXITSTATUS(run.status) == 0;
  if (!exited_ok) {
    // posix_spawnp reports a missing program as exit status 127 on some libcs.
    if (WIFEXITED(run.status) && WEXITSTATUS(run.status) == 127 && err.empty())
      res.error = "gnuplot is not installed (`" + prog + "` not found); install the Debian package gnuplot-nox";
    else if (WIFSIGNALED(run.status))
      res.error = "gnuplot was stopped by signal " + std::to_string(WTERMSIG(run.status));
    else
      res.error = "gnuplot failed: " + (err.empty() ? std::string("no message") : summarize(err));
    return res;
  }
  for (size_t i = 0; i < formats.size(); ++i) {
    std::string bytes;
    if (!read_all(outputs[i], bytes) || bytes.empty()) {
      res.error = std::string("gnuplot wrote no ") + extension(formats[i]) + " output" +
                  (err.empty() ? "" : ": " + summarize(err));
      return res;
    }
    res.out[formats[i]] = formats[i] == Format::Text ? tidy_text(bytes) : std::move(bytes);
  }
  res.ok = true;
  return res;
}

}  // namespace ein::plot
