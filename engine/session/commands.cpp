// Session::execute: routes code to run_cell, `%name args` to a command and `?name` / `name?` to
// the documentation query; plus the small commands (%help %who %reset %load %cache %jit).
#include "engine/session/commands.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/jit/jit.h"
#include "lang/syntax/source.h"

namespace ein {

namespace cmd {

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

bool is_identifier_path(std::string_view s) { return ir::ModPath::parse(s).has_value(); }

std::string help_query(std::string_view text, int* detail) {
  std::string t = trim(text);
  std::string_view v = t;
  size_t marks = 0;
  if (!v.empty() && v[0] == '?') {
    marks = v.size() > 1 && v[1] == '?' ? 2 : 1;
    v.remove_prefix(marks);
  } else if (!v.empty() && v.back() == '?') {
    marks = v.size() > 1 && v[v.size() - 2] == '?' ? 2 : 1;
    v.remove_suffix(marks);
  }
  if (marks == 0) return "";
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.front()))) v.remove_prefix(1);
  while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.remove_suffix(1);
  if (!is_identifier_path(v)) return "";
  if (detail) *detail = marks == 2 ? 1 : 0;
  return std::string(v);
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string format_duration(double ms) {
  if (ms == 0) return "0 ms";
  double v = ms;
  const char* unit = "ms";
  if (ms >= 1000) {
    v = ms / 1000, unit = "s";
  } else if (ms < 1e-3) {
    v = ms * 1e6, unit = "ns";
  } else if (ms < 1) {
    v = ms * 1e3, unit = "µs";
  }
  char buf[48];
  int prec = v >= 100 ? 0 : v >= 10 ? 1 : 2;
  std::snprintf(buf, sizeof buf, "%.*f %s", prec, v, unit);
  return buf;
}

// Display width of UTF-8 text (µ and ± are one column each).
static size_t columns(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string text_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], columns(r[i]));
    }
  std::string out;
  for (auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - columns(r[i]) + 2, ' ');
    }
    out += line + "\n";
  }
  return out;
}

std::string html_table(const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    out += "<tr>";
    for (auto& c : rows[r]) out += (r == 0 ? "<th>" : "<td>") + html_escape(c) + (r == 0 ? "</th>" : "</td>");
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

void emit(Call& c, const std::string& text, const std::string& html) {
  if (c.opt.terminal) c.out.text += text;
  else c.out.displays.push_back(DisplayData{{{"text/plain", text}, {"text/html", html}}});
}

namespace {

void cmd_help(Call& c) {
  std::string name = trim(c.args);
  if (!name.empty() && name[0] == '%') name.erase(0, 1);
  if (!name.empty()) {
    const Command* k = find_command(name);
    if (!k) throw Error("%help: no command `%" + name + "`; %help lists them");
    c.out.text = std::string("%") + k->name + (*k->usage ? " " : "") + k->usage + "\n    " + k->summary + "\n";
    return;
  }
  std::string t = "Commands (details and examples: docs/repl.md)\n";
  for (auto& k : commands())
    t += std::string("  %") + k.name + (*k.usage ? " " : "") + k.usage + "\n      " + k.summary + "\n";
  t += "  ?NAME, NAME?\n      signature and documentation (the same as %doc NAME)\n";
  c.out.text = t;
}

void cmd_who(Call& c) {
  if (!trim(c.args).empty()) throw Error("%who takes no arguments");
  std::vector<std::vector<std::string>> rows = {{"name", "kind", "type"}};
  for (auto& name : c.session.session_names()) {
    auto info = c.session.name_info(name);
    if (!info) continue;
    std::string type;
    if (info->kind == Session::NameKind::Let) {
      auto v = c.session.value_of(name);
      if (!v) continue;  // declared by a cell that failed before giving it a value
      type = type_string(*v);
    } else if (info->kind == Session::NameKind::Fn) {
      type = signature_of(info->node, name);
    } else if (info->kind == Session::NameKind::Const) {
      auto v = c.session.value_of(name);
      type = v ? type_string(*v) : "";
    }
    rows.push_back({name, Session::name_kind_word(info->kind), type});
  }
  if (rows.size() == 1) {
    c.out.text = "no bindings\n";
    return;
  }
  emit(c, text_table(rows), html_table(rows));
}

void cmd_reset(Call& c) {
  if (!trim(c.args).empty()) throw Error("%reset takes no arguments");
  c.session.reset();
  c.out.text = "all bindings forgotten\n";
}

void cmd_load(Call& c) {
  std::string path = trim(c.args);
  if (path.size() >= 2 && (path.front() == '"' || path.front() == '\'') && path.back() == path.front())
    path = path.substr(1, path.size() - 2);
  if (path.empty()) throw Error("usage: %load FILE");
  std::string text;
  if (std::string why = read_user_file(path, kMaxSourceBytes, text); !why.empty())
    throw Error("%load: cannot read `" + path + "`: " + why);
  CellOptions co = c.opt.cell;
  co.source_name = path;
  c.out.cell = c.session.run_cell(text, co);
  c.out.ok = c.out.cell.ok;
}

void cmd_cache(Call& c) {
  std::string a = trim(c.args);
  if (a == "clear") {
    jit::cache_clear();
    c.out.text = "kernel cache cleared\n";
    return;
  }
  if (!a.empty() && a != "info") throw Error("usage: %cache [info|clear]");
  jit::CacheInfo ci = jit::cache_info();
  auto mb = [](int64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(b) / (1024.0 * 1024.0));
    return std::string(buf);
  };
  std::vector<std::vector<std::string>> rows = {
      {"directory", ci.dir.empty() ? "(memory only)" : ci.dir},
      {"kernels on disk", std::to_string(ci.entries)},
      {"size", mb(ci.bytes) + (ci.cap_bytes > 0 ? " of " + mb(ci.cap_bytes) : "")},
      {"hits", std::to_string(ci.hits)},
      {"misses", std::to_string(ci.misses)},
      {"compile time", format_duration(ci.compile_ms)},
  };
  c.out.text = "kernel cache\n" + text_table(rows);
}

void cmd_jit(Call& c) {
  std::string a = trim(c.args);
  if (a.empty()) {
    c.out.text = "jit mode: " + c.session.jit_mode() + "\n";
    return;
  }
  if (a != "auto" && a != "always" && a != "never")
    throw Error("usage: %jit [auto|always|never] (got `" + a + "`)");
  c.session.set_jit_mode(a);
  c.out.text = "jit mode: " + a + "\n";
}

}  // namespace

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"help", "[COMMAND]", "list the commands, or describe one", cmd_help, false},
      {"who", "", "bindings of the session with kind and type (shape)", cmd_who, false},
      {"reset", "", "forget every binding", cmd_reset, false},
      {"load", "FILE", "run a file in this session", cmd_load, false},
      {"ir", "[ast|resolved|after=PASS|lowered|kernel] [NAME | CODE]",
       "IR of a binding's definition or of code at a compiler stage (default lowered)", cmd_ir, true},
      {"time", "CODE | on | off", "run CODE once and show the time of each phase; on/off: after every cell",
       cmd_time, true},
      {"timeit", "CODE", "run CODE repeatedly: mean ± std and best of 7 repeats", cmd_timeit, true},
      {"plot", "EXPR [as line|scatter|heatmap|bar] [title \"T\"] [--out FILE.svg|FILE.png]",
       "plot a 1-D or 2-D array with gnuplot", cmd_plot, true},
      {"history", "[-n] [N | A-B ...] | -g PATTERN",
       "inputs of this session (-n: with their numbers; -g: those matching a glob)", cmd_history, false},
      {"pwd", "", "the working directory", cmd_pwd, false},
      {"cd", "[DIR | -]", "change the working directory (no DIR: home; -: the previous one)", cmd_cd, false},
      {"doc", "NAME", "signature and documentation of a function, builtin or binding", cmd_doc, false},
      {"cache", "[info|clear]", "native kernel cache: statistics, or remove every kernel", cmd_cache, false},
      {"jit", "[auto|always|never]", "show or set when clauses are compiled to native kernels", cmd_jit,
       false},
  };
  return table;
}

const Command* find_command(std::string_view name) {
  for (auto& k : commands())
    if (name == k.name) return &k;
  return nullptr;
}

}  // namespace cmd

Session::CommandState& Session::command_state() {
  if (!cmd_) cmd_ = std::make_shared<CommandState>();
  return *cmd_;
}

namespace cmd {

ExecuteResult execute_single(Session& session, const std::string& input, const ExecuteOptions& opt) {
  ExecuteResult r;
  std::string t = cmd::trim(input);
  try {
    if (!t.empty() && t[0] == '%') {
      r.is_command = true;
      size_t e = 1;
      while (e < t.size() && (std::isalnum(static_cast<unsigned char>(t[e])) || t[e] == '_')) ++e;
      std::string name = t.substr(1, e - 1);
      const cmd::Command* k = cmd::find_command(name);
      if (!k) {
        throw cmd::Error(name.empty() ? "a command name must follow `%`; %help lists them"
                                      : "unknown command `%" + name + "`; %help lists them");
      }
      if (e < t.size() && !std::isspace(static_cast<unsigned char>(t[e])))
        throw cmd::Error("unknown command `" + t.substr(0, t.find_first_of(" \t\n")) + "`; %help lists them");
      cmd::Call call{session, t.substr(e), opt, r};
      k->run(call);
      return r;
    }
    int detail = 0;
    std::string query = cmd::help_query(t, &detail);
    if (!query.empty() || (!t.empty() && t[0] == '?')) {
      // `?` followed by something that is not a name still asks for help: say how to ask.
      r.is_command = true;
      if (query.empty()) throw cmd::Error("usage: ?NAME, NAME?, NAME?? (or %doc NAME)");
      r.text = cmd::doc_text(session, *ir::ModPath::parse(query), detail);
      return r;
    }
    r.cell = session.run_cell(input, opt.cell);
    r.ok = r.cell.ok;
    if (r.cell.value && r.cell.value->tag != Value::Tag::Unit) session.set_last_result(*r.cell.value);
    if (session.command_state().time_every_cell) {
      cmd::Call call{session, "", opt, r};
      cmd::emit(call, cmd::phases_text(r.cell), cmd::phases_html(r.cell));
    }
  } catch (const cmd::Error& e) {
    r.ok = false;
    r.error = e.what();
  } catch (const std::exception& e) {
    // A command must never take the session down; say what failed instead.
    r.ok = false;
    r.error = std::string("internal error: ") + e.what();
  }
  return r;
}

}  // namespace cmd

}  // namespace ein
