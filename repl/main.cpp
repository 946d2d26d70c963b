// `ein`: the file runner and (with no file and a terminal) the interactive REPL.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/config/env.h"
#include "engine/session/commands.h"
#include "engine/session/session.h"
#include "lang/syntax/source.h"
#include "repl/file_interrupt.h"
#include "repl/process_clock.h"
#include "repl/repl.h"

namespace {

constexpr const char* kUsage = R"(usage: ein [options] [FILE.ein | -]
  ein                      interactive REPL (reads a program from stdin when it is not a terminal)
  ein FILE.ein             run a program
  ein -c CODE              run CODE
  ein -                    run the program on standard input
  ein --cells FILE         run FILE as notebook cells separated by `// %%` lines, echoing
                           each cell's trailing expression as `Out[n]: value`
  ein --dump-ir STAGE FILE print the IR of FILE at STAGE (ast, resolved, lowered, or a pass
                           name such as type_infer, range_analysis, lower_einstein)
  ein --timings FILE       run FILE, then print per-phase, per-pass and per-statement times to stderr
                           (with --cells: after each cell, headed `timing: cell N`); the phases
                           from `start` (exec to the first cell) to `exit` (the last cell's end
                           to the process's last destructor) add up to the process's time
  ein --version            print the version
Exit status: 0 on success, 1 on any error (diagnostics go to stderr).
)";


std::string dir_of(const std::string& path) {
  std::filesystem::path p(path);
  std::string d = p.parent_path().string();
  return d.empty() ? "." : d;
}

// A `// %%` line (blanks allowed around `//`) separates cells. A hand-written scan: a line may
// be 50 000 characters long, which a backtracking regex would have to recurse through.
bool cell_separator(const std::string& line) {
  size_t i = line.find_first_not_of(" \t\r");
  if (i == std::string::npos || line.compare(i, 2, "//") != 0) return false;
  i = line.find_first_not_of(" \t", i + 2);
  return i != std::string::npos && line.compare(i, 2, "%%") == 0;
}

// `before` is "start" (exec to the first cell) or "gap" (the previous cell's end to this one:
// its value and report printed); together with "exit" the rows add up to the process's time.
void print_timings(const ein::CellResult& r, const char* before, double before_ms) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "timing: %s %.3f ms\n", before, before_ms);
  std::string report = buf + ein::cmd::timings_report(r);
  std::fwrite(report.data(), 1, report.size(), stderr);
}

int run_program(const std::string& text, const std::string& name, const std::string& root,
                const std::string& dump_stage, bool timings) {
  ein::SessionOptions so;
  so.root_dir = root;
  so.whole_program = true;
  ein::Session session(so);
  ein::FileInterrupt sigint(session);
  ein::CellOptions co;
  co.source_name = name;
  co.dump_stage = dump_stage;
  co.execute = dump_stage.empty();
  const double start_ms = ein::proc::lap_ms();
  ein::CellResult r = session.run_cell(text, co);
  if (timings) ein::proc::mark_cell_end();
  std::fflush(stdout);
  if (!r.dump.empty()) std::fputs(r.dump.c_str(), stdout);
  if (!r.rendered.empty()) std::fputs(r.rendered.c_str(), stderr);
  if (!dump_stage.empty() && r.dump.empty() && r.ok)
    std::fprintf(stderr, "ein: unknown IR stage `%s`\n", dump_stage.c_str());
  if (timings) print_timings(r, "start", start_ms);
  if (sigint.finish(r)) return 130;
  return r.ok ? 0 : 1;
}

int run_cells(const std::string& text, const std::string& name, const std::string& root, bool timings) {
  ein::SessionOptions so;
  so.root_dir = root;
  ein::Session session(so);
  ein::FileInterrupt sigint(session);
  std::vector<std::pair<int, std::string>> cells;  // (line offset, text)
  std::istringstream in(text);
  std::string line, cur;
  int line_no = 0, start = 0;
  while (std::getline(in, line)) {
    if (cell_separator(line)) {
      cells.emplace_back(start, cur);
      cur.clear();
      start = line_no + 1;
    } else {
      cur += line + "\n";
    }
    ++line_no;
  }
  cells.emplace_back(start, cur);
  int failed = 0;
  int n = 0, first = 0;
  for (size_t i = 0; i < cells.size() && !first; ++i)
    if (cells[i].second.find_first_not_of(" \t\r\n") != std::string::npos) first = static_cast<int>(i) + 1;
  for (auto& [offset, body] : cells) {
    ++n;
    if (body.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    if (sigint.pending()) return 130;
    ein::CellOptions co;
    co.source_name = name;
    co.line_offset = offset;
    const double before_ms = ein::proc::lap_ms();
    ein::CellResult r = session.run_cell(body, co);
    if (timings) ein::proc::mark_cell_end();
    std::fflush(stdout);
    if (r.value && r.value->tag != ein::Value::Tag::Unit)
      std::printf("Out[%d]: %s\n", n, ein::format_value(*r.value).c_str());
    std::fflush(stdout);
    if (!r.rendered.empty()) std::fputs(r.rendered.c_str(), stderr);
    if (timings) {
      std::fprintf(stderr, "timing: cell %d\n", n);
      print_timings(r, n == first ? "start" : "gap", before_ms);
    }
    if (sigint.finish(r)) return 130;  // the later cells do not run
    if (!r.ok) ++failed;
  }
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string dump_stage, code, file;
  bool have_code = false, cells = false, timings = false, from_stdin = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kUsage, stdout);
      std::fputs(ein::config::help_text().c_str(), stdout);
      return 0;
    } else if (a == "--version") {
      std::puts("ein " EIN_VERSION);
      return 0;
    } else if (a == "-c" && i + 1 < args.size()) {
      code = args[++i];
      have_code = true;
    } else if (a == "--cells") {
      cells = true;
    } else if (a == "--timings") {
      timings = true;
    } else if (a == "--dump-ir" && i + 1 < args.size()) {
      dump_stage = args[++i];
    } else if (a == "-") {
      from_stdin = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "ein: unknown option `%s`\n%s", a.c_str(), kUsage);
      return 1;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "ein: more than one file given\n");
      return 1;
    }
  }
  if (have_code) return run_program(code, "<command line>", ".", dump_stage, timings);
  if (from_stdin || (file.empty() && !isatty(STDIN_FILENO))) {
    std::stringstream ss;
    ss << std::cin.rdbuf();
    return run_program(ss.str(), "<stdin>", ".", dump_stage, timings);
  }
  if (file.empty()) return ein::run_repl();
  std::string text;
  if (std::string why = ein::read_user_file(file, ein::kMaxSourceBytes, text); !why.empty()) {
    std::fprintf(stderr, "error[E009]: cannot read `%s`: %s\n", file.c_str(), why.c_str());
    return 1;
  }
  if (cells) return run_cells(text, file, dir_of(file), timings);
  return run_program(text, file, dir_of(file), dump_stage, timings);
}
