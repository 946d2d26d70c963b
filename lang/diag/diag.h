// Diagnostics: what every error in the system becomes before a person sees it.
// Codes follow SPEC §9 (E001..E013). Rendering is rustc-style (see render()).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "lang/syntax/source.h"

namespace ein {

struct Label {
  Span span;
  std::string text;
};

struct Diagnostic {
  std::string code;     // "E004"; empty for plain warnings
  std::string message;  // one line, starts lower-case, no trailing period
  Span primary;         // where the caret goes (may be invalid for span-less errors)
  std::string primary_label;      // text printed after the ^^^ carets (may be empty)
  std::vector<Label> secondary;   // other spans, drawn with ----- and their text
  std::vector<std::string> notes; // "= note: ..." lines
  std::string help;               // "= help: ..." line (may be empty)
  bool warning = false;
};

// Thrown by any layer to abort the current unit of work with one or more diagnostics.
// Caught at the cell boundary by the Session; never escapes to the user as an exception.
struct DiagError : std::runtime_error {
  std::vector<Diagnostic> diags;
  explicit DiagError(Diagnostic d);
  explicit DiagError(std::vector<Diagnostic> ds);
};

// Convenience constructor used everywhere: make_diag("E004", "message", span). A help line is
// set on the result (`d.help`); run-time checks carry theirs beside the message (LCheck's help
// kid, codegen::Site::help), never inside it.
Diagnostic make_diag(std::string code, std::string message, Span primary,
                     std::string primary_label = "");

// Collects diagnostics of one compilation. Passes report and continue where they can, so one
// cell shows all its independent errors (SPEC §9).
class DiagSink {
 public:
  void report(Diagnostic d);
  bool has_errors() const;
  size_t error_count() const;
  const std::vector<Diagnostic>& all() const { return diags_; }
  std::vector<Diagnostic> take();
  void clear() { diags_.clear(); }

 private:
  std::vector<Diagnostic> diags_;
};

struct RenderOptions {
  bool color = false;  // ANSI colours (terminal REPL, Jupyter tracebacks)
};

// rustc-style rendering:
//   error[E004]: index `k` has two different extents
//    --> cell[3]:1:21
//     |
//   1 | let C[i, j] = sum[k](A[i, k] * B[k, j]);
//     |                      ------- 3 here  ^^^^^^^ 2 here
//     = help: A is [2, 3], B is [2, 2]
// Secondary labels on other lines get their own snippet lines (sorted by line).
std::string render(const Diagnostic& d, const SourceMap& sm, const RenderOptions& opt = {});

// "error: aborting due to N previous errors" (or "...due to 1 previous error").
std::string render_abort_line(size_t n_errors, const RenderOptions& opt = {});

}  // namespace ein
