// The one API every front end uses (ARCHITECTURE "The one picture"): a Session compiles cells
// incrementally against a persistent DefId environment and runs them.
#pragma once
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/value/value.h"
#include "lang/diag/diag.h"

namespace ein {

struct SessionOptions {
  std::string root_dir;     // where local modules are looked up ("" = current directory)
  std::string share_dir;    // holds std/ ("" = the build's share dir or $EIN_SHARE_DIR)
  bool whole_program = false;  // a file run: no later cell can observe bindings
  std::function<void(const std::string&)> out;  // print() output (default: stdout)
  int max_depth = 5000;     // nested calls before E007
  std::string jit;          // "auto" | "always" | "never"; "" = $EIN_JIT, else "auto"
};

struct Timing {
  std::string phase;  // "parse", "resolve", a pass name, "run"
  double ms = 0;
};

struct CellOptions {
  std::string source_name;  // "" = "cell[N]"
  int line_offset = 0;      // cells of a file: report lines of the file
  std::string dump_stage;   // "ast" | "resolved" | "lowered" | a pass name | "after=PASS"
  bool execute = true;
  // Run the text inside a block opened on its first line (`{ TEXT\n}`): its `let`s stay local
  // (%timeit, %plot). Diagnostics keep the text's line numbers; progress shows the text itself.
  bool as_block = false;
};

struct CellResult {
  bool ok = true;
  bool compile_error = false;        // nothing ran, nothing changed
  std::optional<Value> value;        // the trailing expression's value, if the cell has one
  std::vector<Diagnostic> diags;
  std::string rendered;              // diagnostics rendered without colour (+ abort line)
  std::string dump;                  // IR requested by dump_stage
  std::vector<std::string> dumped_fns;  // functions with a specialisation in `dump` (%ir's note)
  std::vector<Timing> timings;
  std::vector<std::pair<int, double>> stmt_ms;  // (first line, ms) per top-level statement
  int kernel_hits = 0;               // native kernels found in the cache
  int kernel_misses = 0;             // native kernels generated and compiled for this cell
  double compile_ms = 0;             // time spent in the C++ compiler for this cell
  int number = 0;                    // execution count
  uint32_t file_id = 0;              // where the cell's text lives in the source map
};

// Rich output of a command or a cell: mime type -> content. Keys used: "text/plain",
// "text/html", "image/svg+xml", "image/png" (base64-encoded).
struct DisplayData {
  std::map<std::string, std::string> mime;
};

struct ExecuteOptions {
  bool terminal = false;  // a terminal front end: plots as ANSI text, colours allowed
  bool color = false;     // render diagnostics with ANSI colours
  int width = 80;         // terminal width for text plots
  CellOptions cell;       // passed through to run_cell for code
  int number = 0;         // the front end's input number (In [N]); > 0 records it for %history
};

// What execute() did with one input: a code cell, a %command or a ?name query.
struct ExecuteResult {
  bool is_command = false;
  bool ok = true;
  CellResult cell;                    // for code (and %time / %timeit / %load, which run code)
  std::string text;                   // plain-text output of a command (already formatted)
  std::vector<DisplayData> displays;  // rich outputs (plots, HTML tables of %time / %ir)
  std::string error;                  // a command's error message (ok == false), if not a cell error
};

// What the running input is doing, for a front end's progress display (Session::progress).
struct ProgressSnapshot {
  bool running = false;     // a cell's statements are executing (else: compiling it, or idle)
  bool compiling = false;   // the C++ compiler is building native kernels
  int line = 0;             // line (in the cell) of the top-level statement running, 0 = none
  std::string statement;    // that line's text
  int64_t done = 0;         // iterations done of that statement's outermost loop
  int64_t total = 0;        // its iteration count; 0 = not in a loop (or not known)
  std::string label;        // what a command is doing (%timeit: "run 3 of 7 · 500 loops each")
};

class Session {
 public:
  explicit Session(SessionOptions opt = {});
  ~Session();

  CellResult run_cell(const std::string& text, const CellOptions& opt = {});
  // The front ends' entry point: code, `%command args`, `?name` / `name?` (engine/session/
  // commands*.cpp). Plain code is exactly run_cell().
  ExecuteResult execute(const std::string& input, const ExecuteOptions& opt = {});
  // "complete" | "incomplete" | "invalid" (the REPL's continuation and Jupyter's is_complete).
  std::string is_complete(const std::string& text) const;
  // Renders diagnostics of a result with or without colour.
  std::string render(const std::vector<Diagnostic>& diags, bool color) const;
  // Forget every binding (modules stay cached).
  void reset();
  // Interrupt the running cell (safe to call from a signal handler or another thread).
  void interrupt();
  // How far the running input has got (any thread; a front end's timer polls it).
  ProgressSnapshot progress() const;
  // Binds `_` to a cell's value (execute() does it for code whose value is shown, as IPython).
  void set_last_result(const Value& v);

  // Introspection used by commands, completion and inspection.
  std::vector<std::pair<std::string, std::string>> bindings() const;  // name -> type string
  std::optional<Value> value_of(const std::string& name) const;
  std::vector<std::string> module_items(const ir::ModPath& path);
  std::string doc_of(const std::string& name);
  int execution_count() const;
  // Execution tier (SPEC-independent, ARCHITECTURE "Tiering"): "auto" | "always" | "never".
  void set_jit_mode(const std::string& mode);
  std::string jit_mode() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;

  // ---- for the command layer (engine/session/commands*.cpp) and completion ----------------
 public:
  // Counts interrupt() calls. run_cell() clears the per-cell flag when it starts, so commands
  // that run several cells (%timeit) compare this counter to notice a Ctrl-C between cells.
  uint64_t interrupt_count() const;
  // What a command running several cells is doing (ProgressSnapshot::label); "" clears it.
  void set_progress_label(const std::string& label);
  // What a session name or path (`f`, `x`, `std::math::sin`) refers to.
  // What a session name is; `name_kind_word` is its spelling in %who.
  enum class NameKind { Fn, Const, Let, Builtin, Module, Local };
  static const char* name_kind_word(NameKind k);
  struct NameInfo {
    std::string name;
    NameKind kind = NameKind::Local;
    bool in_session = false;  // defined by a cell of this session (not a module, not builtin)
    std::string doc;          // the // comment lines right above the item
    std::string source;       // text of the defining top-level statement(s), "" if unknown
    std::string source_name;  // the cell or file that text comes from
    int line = 0;             // first line of `source` there
    ir::NodeRef node;         // fn / const: the resolved item
  };
  std::optional<NameInfo> name_info(const ir::ModPath& name_or_path);
  // The same for text a user typed (`x`, `std::math::sin`); nullopt if it is not a path.
  std::optional<NameInfo> name_info(const std::string& typed);
  // Every name visible at session level (newest binding of each; items, imports, globals).
  std::vector<std::string> session_names() const;
  // Public items and submodules of a module path (std, std::math), including modules not
  // loaded yet (found on disk); for completion of `std::math::s<TAB>`.
  std::vector<std::string> module_children(const ir::ModPath& path);
  // The standard-library modules that define a public item `name` (std::ml, ...), for the
  // help of a name the session has not imported.
  std::vector<ir::ModPath> std_homes(const std::string& name);
  // Completion candidates for the word that ends at `cursor` in `text` (session names,
  // keywords, builtins, module paths after `::`, %commands and their arguments); *start gets
  // the offset where that word begins. Sorted, without duplicates.
  std::vector<std::string> complete(const std::string& text, size_t cursor, size_t* start);
  // is_complete() for anything execute() accepts: a %command or ?query is one line unless the
  // code it carries (%time, %timeit, %ir, %plot) is still open.
  std::string is_complete_input(const std::string& text) const;
  // Per-session state of the command layer (%time on, ...); defined in commands.cpp.
  struct CommandState;
  CommandState& command_state();

 private:
  std::shared_ptr<CommandState> cmd_;
};

// Default share directory: $EIN_SHARE_DIR, else next to the executable (../share), else the
// source tree's share/ baked in at build time.
std::string default_share_dir();

}  // namespace ein
