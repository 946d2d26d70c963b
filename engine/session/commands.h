// The command layer behind Session::execute: `%command args` and `?name` queries, shared by the
// terminal REPL and the Jupyter kernel (ARCHITECTURE "The one picture"). One file per family:
// commands.cpp (dispatch, %help %who %reset %load %cache %jit), commands_ir.cpp, commands_time.cpp,
// commands_doc.cpp, commands_plot.cpp, commands_complete.cpp.
#pragma once
#include <deque>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/session/session.h"

namespace ein {

struct Session::CommandState {
  bool time_every_cell = false;  // %time on
  // (In [N], text) for %history: the newest kMaxInputs inputs and at most kMaxInputBytes of
  // text, as the kernel's history keeps (a long session's memory stays flat, issue 20).
  std::deque<std::pair<int, std::string>> inputs;
  size_t input_bytes = 0;
  static constexpr size_t kMaxInputs = 1000;
  static constexpr size_t kMaxInputBytes = size_t{4} << 20;
  void record_input(int number, const std::string& text);
  std::string previous_dir;                          // %cd -
};

namespace cmd {

// A bad argument or a failed command: execute() reports the message and keeps the session.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One cell's phase times grouped the way %time and `ein --timings` show them: parse; analysis
// (resolve .. check_match, their reruns over autodiff's rewrites included, and the driver's own
// bookkeeping); lowering (lower_einstein .. contraction_plan); codegen (the native tier planning
// kernels and writing their C++); compile (CellResult::compile_ms); load (finding kernels in the
// cache, writing and loading the shared objects, the compiler aside); run; session (the cell's
// time outside every phase: its thread, the text, releasing memory). `unattributed` holds
// phases of no known name: always 0 unless a new phase was logged without a place here (a unit
// test checks it).
struct Phases {
  double parse = 0, analysis = 0, lowering = 0, codegen = 0, compile = 0, load = 0, run = 0, session = 0,
         unattributed = 0;
  double total() const { return parse + analysis + lowering + codegen + compile + load + run + session + unattributed; }
};
Phases group_phases(const CellResult& r);
// Every compiler pass (and resolve, codegen) with the total time it spent in the cell, runs over
// autodiff's rewrites included, in the order each first ran.
std::vector<std::pair<std::string, double>> pass_times(const CellResult& r);
// `ein --timings`: "timing: <phase> <ms> ms" per group, "timing: pass <name> <ms> ms" per pass
// (pass_times), "timing: stmt line=<L> <ms> ms" per top-level statement, "kernels: <H> hits,
// <M> misses, compile <ms> ms".
std::string timings_report(const CellResult& r);
// %time's text table and its HTML twin.
std::string phases_text(const CellResult& r);
std::string phases_html(const CellResult& r);

// What a handler gets: the session, the argument text after the command name, the options of
// this execute() call, and the result to fill (text, displays, cell).
struct Call {
  Session& session;
  std::string args;
  const ExecuteOptions& opt;
  ExecuteResult& out;
};

// Output of a command, once: a terminal (ExecuteOptions::terminal) gets `text`; a rich front
// end gets one DisplayData with the text as text/plain and its HTML twin, and no `text`, so a
// notebook that shows both streams and displays does not show it twice.
void emit(Call& c, const std::string& text, const std::string& html);

struct Command {
  const char* name;     // without '%'
  const char* usage;    // argument synopsis
  const char* summary;  // one line for %help
  void (*run)(Call&);
  bool takes_code;      // the argument may be multi-line code (continuation, completion)
};
const std::vector<Command>& commands();
const Command* find_command(std::string_view name);

// One input without command lines inside it: code, `%command args` or `?name`.
ExecuteResult execute_single(Session& session, const std::string& input, const ExecuteOptions& opt);
// Completeness of one `%command args` input (its code may still be open).
std::string command_completeness(const Session& s, const std::string& text);
// Shell-style glob (`*`, `?`) over the whole text; linear in practice, no recursion.
bool glob_match(const std::string& pattern, const std::string& text);
// True for text of nothing but blank lines and // comments (no text at all included).
bool only_comments(const std::string& text);
// Brackets ( [ { still open at the end of text, strings and // comments skipped (negative when
// more close than open); *top_semicolon is set when a `;` stands outside every bracket.
int open_brackets(const std::string& text, bool* top_semicolon = nullptr);
// Code run for a look or a measurement (%plot, %timeit) must bind nothing. An expression binds
// nothing as it is; code with top-level statements (`let t = f(x); t`) is put in a block.
bool binds_nothing(const std::string& code);

void cmd_ir(Call& c);
void cmd_history(Call& c);
void cmd_pwd(Call& c);
void cmd_cd(Call& c);
void cmd_time(Call& c);
void cmd_timeit(Call& c);
void cmd_plot(Call& c);
void cmd_doc(Call& c);
// What %doc NAME shows; detail 1 (NAME??) adds the whole defining source. Throws Error for an
// unknown name.
std::string doc_text(Session& s, const ir::ModPath& path, int detail);

// Builtins' signatures and docs (SPEC §8), for %doc and ?name.
struct BuiltinDoc {
  const char* name;
  const char* signature;
  const char* doc;
};
const std::vector<BuiltinDoc>& builtin_docs();
// `fn name(a, b: f32) -> f32` from a resolved Fn node; `name` when the node is not a Fn.
std::string signature_of(const ir::NodeRef& fn, const std::string& name);

// Small text helpers shared by the commands.
std::string trim(std::string_view s);
bool is_identifier_path(std::string_view s);  // `x`, `std::math::sin`
// `name?`, `name??`, `?name`, `??name` (blanks around allowed): the queried path, else "".
// *detail is 1 for the doubled form (which adds the defining source). A linear scan: the text
// may be a million characters long.
std::string help_query(std::string_view text, int* detail);
std::string html_escape(std::string_view s);
std::string format_duration(double ms);  // 3 significant digits with ns / µs / ms / s
// Columns padded to the widest cell; the first row is the header.
std::string text_table(const std::vector<std::vector<std::string>>& rows);
std::string html_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace cmd
}  // namespace ein
