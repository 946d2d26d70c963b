// Session::execute for a whole cell: IPython's rules for where commands may stand. A line whose
// first character is `%` followed by a letter is a command wherever it stands in the cell (after
// code, after a comment), as long as the code above it is not left open; the code between
// command lines runs as cells of its own, in order. A first line `%%time` or `%%timeit` is a
// cell magic: the rest of the cell is its code.
#include <cctype>

#include "engine/session/commands.h"

namespace ein {

namespace {

struct Segment {
  bool command = false;
  std::string text;
  int line = 0;  // first line of the segment in the cell, from 0
};

// `%name` at the start of the line (blanks before it allowed). `% x` and `%` alone are not
// command lines, so `a\n% b` still reads as the remainder operator.
bool command_line(const std::string& line) {
  size_t b = line.find_first_not_of(" \t\r");
  return b != std::string::npos && line[b] == '%' && b + 1 < line.size() &&
         std::isalpha(static_cast<unsigned char>(line[b + 1]));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

// A command that takes code (%time, %timeit, %ir, %plot) takes the lines below it too, up to the
// next command line: `%ir after=PASS` over a three-line definition. `%time on|off` takes none.
bool carries_code(const std::string& line) {
  std::string t = cmd::trim(line);
  size_t e = 1;
  while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_')) ++e;
  const cmd::Command* k = cmd::find_command(t.substr(1, e - 1));
  if (!k || !k->takes_code) return false;
  std::string arg = cmd::trim(t.substr(e));
  return !(std::string(k->name) == "time" && (arg == "on" || arg == "off"));
}

// Splits a cell into code and command segments. Code above a command line must be complete or
// invalid (not open), else the `%` line belongs to it.
std::vector<Segment> split_cell(const Session& s, const std::string& text) {
  std::vector<Segment> out;
  std::vector<std::string> lines = lines_of(text);
  Segment code;
  auto flush = [&] {
    if (!cmd::only_comments(code.text)) out.push_back(code);  // nothing to run otherwise
    code = Segment{};
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    if (command_line(lines[i]) &&
        (cmd::only_comments(code.text) || s.is_complete(code.text) != "incomplete")) {
      flush();
      Segment c{true, lines[i], int(i)};
      if (carries_code(lines[i])) {
        while (i + 1 < lines.size() && !command_line(lines[i + 1])) c.text += "\n" + lines[++i];
      } else {
        while (i + 1 < lines.size() && cmd::command_completeness(s, c.text) == "incomplete") c.text += "\n" + lines[++i];
      }
      out.push_back(c);
      code.line = int(i) + 1;
      continue;
    }
    if (code.text.empty()) code.line = int(i);
    code.text += lines[i] + "\n";
  }
  flush();
  return out;
}

// `%%name` on the first line: the command and the code below it.
bool cell_magic(const std::string& t, std::string* name, std::string* head, std::string* body) {
  if (t.compare(0, 2, "%%") != 0) return false;
  size_t nl = t.find('\n');
  std::string first = t.substr(0, nl);
  size_t e = 2;
  while (e < first.size() && (std::isalnum(static_cast<unsigned char>(first[e])) || first[e] == '_')) ++e;
  *name = first.substr(2, e - 2);
  *head = cmd::trim(first.substr(e));
  *body = nl == std::string::npos ? "" : t.substr(nl + 1);
  return true;
}

void run_cell_magic(Session& s, const std::string& name, const std::string& head, const std::string& body,
                    const ExecuteOptions& opt, ExecuteResult& r) {
  r.is_command = true;
  if (name != "time" && name != "timeit")
    throw cmd::Error(name.empty() ? "a cell magic name must follow `%%` (%%time, %%timeit)"
                                  : "unknown cell magic `%%" + name + "`; the cell magics are %%time and %%timeit");
  if (!head.empty()) throw cmd::Error("%%" + name + " takes no arguments on its line; the code goes below it");
  if (cmd::trim(body).empty()) throw cmd::Error("%%" + name + ": the cell has no code below the magic");
  ExecuteOptions shifted = opt;
  shifted.cell.line_offset += 1;  // diagnostics count lines of the whole cell, magic included
  cmd::Call call{s, body, shifted, r};
  (name == "time" ? cmd::cmd_time : cmd::cmd_timeit)(call);
}

}  // namespace

void Session::CommandState::record_input(int number, const std::string& text) {
  inputs.emplace_back(number, text);
  input_bytes += text.size();
  while (inputs.size() > 1 && (inputs.size() > kMaxInputs || input_bytes > kMaxInputBytes)) {
    input_bytes -= inputs.front().second.size();
    inputs.pop_front();
  }
}

ExecuteResult Session::execute(const std::string& input, const ExecuteOptions& opt) {
  if (opt.number > 0) command_state().record_input(opt.number, input);
  std::string t = cmd::trim(input);
  std::string magic, head, body;
  if (cell_magic(t, &magic, &head, &body)) {
    ExecuteResult r;
    try {
      run_cell_magic(*this, magic, head, body, opt, r);
    } catch (const std::exception& e) {
      r.ok = false;
      r.error = e.what();
    }
    return r;
  }
  std::vector<Segment> segs = split_cell(*this, input);
  if (segs.empty() || (segs.size() == 1 && !segs[0].command)) return cmd::execute_single(*this, input, opt);
  if (segs.size() == 1) return cmd::execute_single(*this, segs[0].text, opt);  // comments, then a command
  // Several pieces: run them in order, stop at the first failure; only the last piece's value
  // is the cell's result (IPython shows no value of code followed by a command).
  ExecuteResult all;
  for (size_t i = 0; i < segs.size(); ++i) {
    const Segment& g = segs[i];
    ExecuteOptions o = opt;
    o.number = 0;
    if (!g.command) o.cell.line_offset += g.line;
    ExecuteResult r = cmd::execute_single(*this, g.text, o);
    all.is_command = all.is_command || r.is_command;
    all.text += r.text;
    for (auto& d : r.displays) all.displays.push_back(d);
    bool ran_cell = !r.is_command || r.cell.number != 0;
    if (ran_cell) all.cell = r.cell;
    if (i + 1 < segs.size()) all.cell.value.reset();
    if (!r.ok) {
      all.ok = false;
      all.error = r.error;
      if (ran_cell) all.cell = r.cell;
      break;
    }
  }
  return all;
}

// Completeness of what execute() accepts: a cell magic goes on until an empty line (as in
// IPython's terminal); a cell with command lines is as complete as its last piece.
std::string Session::is_complete_input(const std::string& text) const {
  std::string t = cmd::trim(text);
  if (t.compare(0, 2, "%%") == 0) {
    size_t last_nl = text.find_last_of('\n');
    if (last_nl == std::string::npos) return "incomplete";
    size_t prev = text.find_last_of('\n', last_nl == 0 ? 0 : last_nl - 1);
    std::string last_line = text.substr(prev == std::string::npos ? 0 : prev + 1,
                                        last_nl - (prev == std::string::npos ? 0 : prev + 1));
    bool ends_blank = cmd::trim(last_line).empty() && text.find('\n') < last_nl;
    return ends_blank ? "complete" : "incomplete";
  }
  if (!t.empty() && t[0] == '?') return "complete";
  if (t.empty() || t[0] != '%') {
    // Code, possibly followed by command lines.
    bool has_command = false;
    for (auto& l : lines_of(text)) has_command = has_command || command_line(l);
    if (!has_command) return is_complete(text);
    std::vector<Segment> segs = split_cell(*this, text);
    const Segment& last = segs.back();
    return last.command ? cmd::command_completeness(*this, last.text) : is_complete(last.text);
  }
  return cmd::command_completeness(*this, text);
}

}  // namespace ein
