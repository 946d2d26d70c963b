// libedit glue. Signals are left to the REPL (EL_SIGNAL off): libedit's own handlers re-raise
// with kill(0, sig), which would hit every process in our group; instead our SIGINT handler
// makes read() fail with EINTR, el_gets returns NULL with count -1, and read() reports
// Interrupted.
#include "repl/line_editor.h"

#include <histedit.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "engine/session/session.h"

namespace ein {

namespace {

constexpr int kHistorySize = 2000;

// \1 brackets escape sequences so libedit does not count them as prompt columns (EL_PROMPT_ESC).
// The reset sits before the trailing space: libedit drops an escaped run at the very end.
const char* kContColor = "\1\033[1;32m\1...\1\033[0m\1 ";

int terminal_width() {
  winsize ws{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

LineEditor* self_of(EditLine* el) {
  void* p = nullptr;
  el_get(el, EL_CLIENTDATA, &p);
  return static_cast<LineEditor*>(p);
}

}  // namespace

LineEditor::LineEditor(Session& session, bool color, std::string history_file)
    : session_(session), color_(color), history_file_(std::move(history_file)) {
  el_ = el_init("ein", stdin, stdout, stderr);
  if (!el_) return;
  hist_ = history_init();
  HistEvent ev;
  if (hist_) {
    history(hist_, &ev, H_SETSIZE, kHistorySize);
    history(hist_, &ev, H_SETUNIQUE, 1);
    // A missing or unreadable file is an empty history.
    if (!history_file_.empty()) history(hist_, &ev, H_LOAD, history_file_.c_str());
    el_set(el_, EL_HIST, history, hist_);
  }
  el_set(el_, EL_CLIENTDATA, static_cast<void*>(this));
  el_set(el_, EL_EDITOR, "emacs");
  el_set(el_, EL_SIGNAL, 0);
  el_set(el_, EL_PROMPT_ESC, &LineEditor::prompt_of, '\1');
  el_set(el_, EL_ADDFN, "ein-complete", "complete a name, module path or command", &LineEditor::complete_key);
  el_set(el_, EL_BIND, "^I", "ein-complete", nullptr);
  el_set(el_, EL_BIND, "^R", "em-inc-search-prev", nullptr);
  el_source(el_, nullptr);  // the user's ~/.editrc may rebind keys
}

LineEditor::~LineEditor() {
  if (el_) el_end(el_);
  if (hist_) history_end(hist_);
}

const char* LineEditor::prompt_of(EditLine* el) {
  LineEditor* self = self_of(el);
  bool cont = self && self->continuation_;
  if (!self) return cont ? "... " : ">>> ";
  if (cont) return self->color_ ? kContColor : "... ";
  return self->prompt_.c_str();
}

void LineEditor::set_number(int n) { prompt_ = prompt_text(n, color_); }

std::string prompt_text(int n, bool color) {
  // The input number matches the `cell[N]` of diagnostics and `%history` (dimmed: it is a label).
  std::string num = "[" + std::to_string(n) + "] ";
  if (!color) return num + ">>> ";
  return "\1\033[2m\1" + num + "\1\033[0;1;32m\1>>>\1\033[0m\1 ";
}

LineEditor::Status LineEditor::read(bool continuation, std::string& line) {
  continuation_ = continuation;
  int count = 0;
  errno = 0;
  const char* s = el_gets(el_, &count);
  if (!s) return count < 0 && errno == EINTR ? Status::Interrupted : Status::Eof;
  line.assign(s, static_cast<size_t>(count));
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  return Status::Line;
}

void LineEditor::remember(const std::string& cell) {
  if (!hist_) return;
  std::string entry = cell;
  while (!entry.empty() && (entry.back() == '\n' || entry.back() == ' ')) entry.pop_back();
  if (entry.empty()) return;
  HistEvent ev;
  history(hist_, &ev, H_ENTER, entry.c_str());
  save_history();
}

void LineEditor::save_history() {
  if (history_file_.empty() || warned_history_) return;
  HistEvent ev;
  if (history(hist_, &ev, H_SAVE, history_file_.c_str()) < 0) {
    // Say it once; an unwritable history must not disturb every later line.
    warned_history_ = true;
    std::fprintf(stderr, "ein: cannot write the history file %s; history is kept for this session only\n",
                 history_file_.c_str());
  }
}

void LineEditor::list_candidates(const std::vector<std::string>& cands) {
  constexpr size_t kMaxShown = 200;
  size_t width = 0;
  for (auto& c : cands) width = std::max(width, c.size());
  width += 2;
  size_t per_row = std::max<size_t>(1, static_cast<size_t>(terminal_width()) / width);
  std::string out = "\n";
  size_t shown = std::min(cands.size(), kMaxShown);
  for (size_t i = 0; i < shown; ++i) {
    out += cands[i];
    bool row_end = (i + 1) % per_row == 0 || i + 1 == shown;
    out += row_end ? "\n" : std::string(width - cands[i].size(), ' ');
  }
  if (cands.size() > shown) out += "... and " + std::to_string(cands.size() - shown) + " more\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
}

unsigned char LineEditor::complete_key(EditLine* el, int) {
  LineEditor* self = self_of(el);
  const LineInfo* li = el_line(el);
  if (!self || !li) return CC_ERROR;
  std::string text(li->buffer, static_cast<size_t>(li->lastchar - li->buffer));
  size_t cursor = static_cast<size_t>(li->cursor - li->buffer);
  size_t start = cursor;
  std::vector<std::string> cands;
  try {
    cands = self->session_.complete(text, cursor, &start);
  } catch (...) {
    return CC_ERROR;  // completion must never end the REPL
  }
  if (cands.empty()) return CC_ERROR;
  std::string word = text.substr(start, cursor - start);
  std::string common = cands[0];
  for (auto& c : cands) {
    size_t n = 0;
    while (n < common.size() && n < c.size() && common[n] == c[n]) ++n;
    common.resize(n);
  }
  if (common.size() > word.size()) {
    el_deletestr(el, static_cast<int>(word.size()));
    el_insertstr(el, common.c_str());
    return CC_REFRESH;
  }
  if (cands.size() == 1) return CC_REFRESH;  // already complete
  self->list_candidates(cands);
  return CC_REDISPLAY;
}

}  // namespace ein
