// Line editing for the REPL through libedit (emacs keys, Ctrl-R reverse search, Tab completion,
// persistent history). The REPL loop (repl.cpp) owns signals and running cells.
#pragma once
#include <string>
#include <vector>

struct editline;
struct history;

namespace ein {

class Session;

// The primary prompt for input number n; with `color`, escapes are bracketed by \1 for libedit.
std::string prompt_text(int n, bool color);

class LineEditor {
 public:
  enum class Status { Line, Interrupted, Eof };

  // history_file "" = keep history in memory only.
  LineEditor(Session& session, bool color, std::string history_file);
  ~LineEditor();
  LineEditor(const LineEditor&) = delete;
  LineEditor& operator=(const LineEditor&) = delete;

  // False when libedit could not start (the REPL then reads plain lines).
  bool ok() const { return el_ != nullptr; }
  // Reads one physical line (without its newline). `continuation` selects the "... " prompt.
  Status read(bool continuation, std::string& line);
  // The next input's number, shown in the prompt (`[3] >>> `).
  void set_number(int n);
  // Records a whole cell (possibly several lines) and saves the history file.
  void remember(const std::string& cell);

 private:
  static const char* prompt_of(editline* el);
  static unsigned char complete_key(editline* el, int ch);
  void list_candidates(const std::vector<std::string>& cands);
  void save_history();

  Session& session_;
  bool color_;
  bool continuation_ = false;
  std::string prompt_ = ">>> ";
  std::string history_file_;
  bool warned_history_ = false;
  editline* el_ = nullptr;
  history* hist_ = nullptr;
};

}  // namespace ein
