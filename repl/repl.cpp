// The interactive loop: reads lines until the input is complete (Session::is_complete_input),
// hands it to Session::execute, and prints what came back. Ctrl-C cancels the line being typed
// or interrupts the running cell; Ctrl-D exits.
#include "repl/repl.h"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <string>

#include "engine/config/env.h"
#include "engine/session/commands.h"
#include "engine/session/echo.h"
#include "engine/session/progress_monitor.h"
#include "engine/session/session.h"
#include "repl/line_editor.h"

namespace ein {

namespace {

// The SIGINT handler only touches these and Session::interrupt (two lock-free atomic stores).
Session* g_session = nullptr;
std::atomic<bool> g_cell_running{false};
volatile sig_atomic_t g_sigint = 0;

void on_sigint(int) {
  g_sigint = 1;
  if (g_cell_running.load() && g_session) g_session->interrupt();
}

// While a line is read, SIGINT must interrupt the blocking read() (no SA_RESTART) so libedit
// returns; while a cell runs, it must not cut short the cell's own writes (SA_RESTART).
void install_sigint(bool restart) {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = restart ? SA_RESTART : 0;
  sigaction(SIGINT, &sa, nullptr);
}

bool color_wanted(int fd) {
  if (!isatty(fd)) return false;
  const char* no = std::getenv("NO_COLOR");
  if (no && *no) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::strcmp(term, "dumb") == 0);
}

int terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    int n = std::atoi(c);
    if (n > 0) return n;
  }
  return 80;
}

// $EIN_HISTORY, else ~/.ein_history; EIN_HISTORY= (empty) keeps history in memory only.
std::string history_path() {
  if (const char* h = config::raw(config::Env::History)) return h;
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) + "/.ein_history" : "";
}

// Python's reflexes, for words that are not bindings of the session: `exit`, `quit` (with or
// without `()`) leave; `help` / `help()` list the commands and `help(NAME)` documents NAME.
// Returns the input to run instead ("" = none), or sets *leave.
std::string python_reflex(const Session& s, const std::string& input, bool* leave) {
  size_t b = input.find_first_not_of(" \t\r\n"), e = input.find_last_not_of(" \t\r\n;");
  if (b == std::string::npos || e < b) return "";
  std::string t = input.substr(b, e - b + 1);
  std::string word = t.substr(0, t.find('('));
  if (word != "exit" && word != "quit" && word != "help") return "";
  for (auto& n : s.session_names())
    if (n == word) return "";  // the user's own binding wins
  if (word != "help") {
    if (t == word || t == word + "()") *leave = true;
    return "";
  }
  if (t == "help" || t == "help()") return "%help";
  if (t.size() > 6 && t.back() == ')') return "?" + t.substr(5, t.size() - 6);
  return "";
}

void write_out(const std::string& s, FILE* f) {
  if (s.empty()) return;
  std::fwrite(s.data(), 1, s.size(), f);
  if (s.back() != '\n') std::fputc('\n', f);
  std::fflush(f);
}

// The progress bar of long cells (engine/session/progress_monitor.h) on standard error, only
// when that is a terminal; never on standard output, so piped output stays byte-identical. It
// is one line redrawn in place and erased when the cell ends; program output written while it
// shows erases it first (the next tick draws it again below that output).
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  void show(const ProgressSnapshot& p, double seconds) {
    std::string line = progress_text(p, seconds, terminal_width());
    std::lock_guard<std::mutex> lk(mu_);
    std::string out = "\r" + line;
    size_t cols = 0;
    for (unsigned char c : line) cols += (c & 0xC0) != 0x80;
    if (cols < shown_) out += std::string(shown_ - cols, ' ') + "\r" + line;
    shown_ = cols;
    std::fputs(out.c_str(), stderr);
    std::fflush(stderr);
  }
  void hide() {
    std::lock_guard<std::mutex> lk(mu_);
    erase_locked();
  }
  // print() output of the running cell.
  void program_output(const std::string& s) {
    std::lock_guard<std::mutex> lk(mu_);
    erase_locked();
    std::fwrite(s.data(), 1, s.size(), stdout);
    std::fflush(stdout);
  }
  bool enabled() const { return enabled_; }

 private:
  void erase_locked() {
    if (!shown_) return;
    std::fputs(("\r" + std::string(shown_, ' ') + "\r").c_str(), stderr);
    std::fflush(stderr);
    shown_ = 0;
  }
  const bool enabled_;
  std::mutex mu_;
  size_t shown_ = 0;  // columns of the line on the screen, 0 = none
};

SessionOptions repl_options(ProgressBar& bar) {
  SessionOptions o;
  o.out = [&bar](const std::string& s) { bar.program_output(s); };
  return o;
}

class Repl {
 public:
  Repl()
      : color_out_(color_wanted(STDOUT_FILENO)),
        color_err_(color_wanted(STDERR_FILENO)),
        bar_(isatty(STDERR_FILENO) != 0),
        session_(repl_options(bar_)),
        monitor_(session_,
                 ProgressMonitor::View{[this](const ProgressSnapshot& p, double s) { bar_.show(p, s); },
                                       [this] { bar_.hide(); }},
                 std::chrono::milliseconds(1000), std::chrono::milliseconds(200)) {}

  int run() {
    g_session = &session_;
    std::setlocale(LC_CTYPE, "");  // libedit handles UTF-8 input only in a UTF-8 locale
    LineEditor editor(session_, color_out_, history_path());
    install_sigint(false);
    std::printf("ein " EIN_VERSION " · Einlang REPL · %%help lists commands · Ctrl-D exits\n");
    std::fflush(stdout);
    std::string buf;
    bool previous_blank = false;
    while (true) {
      std::string line;
      g_sigint = 0;
      if (buf.empty()) editor.set_number(number_);
      LineEditor::Status st = editor.ok() ? editor.read(!buf.empty(), line) : read_plain(!buf.empty(), line);
      if (st == LineEditor::Status::Eof) break;
      if (st == LineEditor::Status::Interrupted) {
        buf.clear();  // Ctrl-C drops the whole unfinished cell, not only the current line
        std::fputs("^C\n", stdout);
        std::fflush(stdout);
        continue;
      }
      bool blank_line = line.find_first_not_of(" \t\r") == std::string::npos;
      bool ends_input = blank_line && !buf.empty() && (previous_blank || cmd::open_brackets(buf) <= 0);
      previous_blank = blank_line;
      buf += line + "\n";
      // An empty line ends an unfinished statement (`let y = 1 +`): it runs, and the parser
      // says what is missing. Inside brackets it takes two, since a body may hold blank lines.
      if (!ends_input && session_.is_complete_input(buf) == "incomplete") continue;
      previous_blank = false;
      if (cmd::only_comments(buf)) {
        // A comment typed alone is usually the doc comment of the item on the next line, so
        // the cell goes on; an empty line ends it (there is nothing to run).
        if (blank_line) buf.clear();
        continue;
      }
      if (editor.ok()) editor.remember(buf);
      bool leave = false;
      std::string instead = python_reflex(session_, buf, &leave);
      if (leave) break;
      run_input(instead.empty() ? buf : instead);
      buf.clear();
    }
    std::fputs("\n", stdout);
    g_session = nullptr;
    return 0;
  }

 private:
  LineEditor::Status read_plain(bool continuation, std::string& line) {
    std::fputs(continuation ? "... " : prompt_text(number_, false).c_str(), stdout);
    std::fflush(stdout);
    if (!std::getline(std::cin, line)) {
      if (g_sigint) {
        std::cin.clear();
        return LineEditor::Status::Interrupted;
      }
      return LineEditor::Status::Eof;
    }
    return LineEditor::Status::Line;
  }

  void run_input(const std::string& input) {
    ExecuteOptions eo;
    eo.terminal = true;
    eo.color = color_out_;
    eo.width = terminal_width();
    // Diagnostics name the cell by the number its prompt showed; %history lists it under it.
    eo.number = number_;
    eo.cell.source_name = "cell[" + std::to_string(number_++) + "]";
    install_sigint(true);
    g_sigint = 0;
    g_cell_running.store(true);
    if (bar_.enabled()) monitor_.begin();
    ExecuteResult r = session_.execute(input, eo);
    if (bar_.enabled()) monitor_.end();
    g_cell_running.store(false);
    install_sigint(false);
    // The terminal echoed ^C in the middle of a line; start the report on a fresh one.
    if (g_sigint) std::fputc('\n', stdout);
    std::fflush(stdout);
    show(r);
  }

  void show(const ExecuteResult& r) {
    const CellResult& c = r.cell;
    if (c.value && c.value->tag != Value::Tag::Unit) write_out(format_echo(*c.value, terminal_width()), stdout);
    if (!c.diags.empty()) {
      std::string diag;
      if (color_err_) {
        size_t errors = 0;
        for (auto& d : c.diags) errors += d.warning ? 0 : 1;
        diag = session_.render(c.diags, true);
        if (c.compile_error) diag += render_abort_line(errors, RenderOptions{true});
      } else {
        diag = c.rendered;
      }
      write_out(diag, stderr);
    } else if (!c.rendered.empty()) {
      write_out(c.rendered, stderr);
    }
    // Terminal front ends show `text`; displays are the rich twins for notebooks.
    write_out(r.text, stdout);
    if (!r.error.empty())
      write_out((color_err_ ? "\033[1;31merror\033[0m\033[1m: " : "error: ") + r.error +
                    (color_err_ ? "\033[0m" : ""),
                stderr);
  }

  bool color_out_, color_err_;
  ProgressBar bar_;
  Session session_;
  ProgressMonitor monitor_;
  int number_ = 1;  // the next input's number (In [N], `cell[N]`)
};

}  // namespace

int run_repl() {
  Repl repl;
  return repl.run();
}

}  // namespace ein
