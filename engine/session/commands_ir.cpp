// %ir [STAGE] [NAME | CODE]: the IR of a binding's definition or of a snippet at a compiler
// stage. Nothing is executed: the snippet is compiled as a cell with execute=false, which the
// session rolls back, so %ir never changes the session.
#include <algorithm>

#include "engine/session/commands.h"
#include "lang/passes/driver.h"

namespace ein::cmd {

namespace {

struct Request {
  std::string stage = "lowered";  // as typed: ast, resolved, lowered, kernel, after=PASS, PASS
  std::string code;
  CellOptions where;              // source name and line offset of the code
  std::string name;               // set when the IR of a binding was asked for
};

bool is_pass(const std::string& s) { return !canonical_pass_name(s).empty(); }

std::string stage_list() {
  std::string s = "ast, resolved, lowered, kernel, after=PASS (PASS one of";
  for (auto& p : pass_names()) s += " " + p;
  return s + ")";
}

bool is_stage_word(const std::string& w) {
  return w == "ast" || w == "resolved" || w == "lowered" || w == "kernel" || w.rfind("after=", 0) == 0 ||
         is_pass(w);
}

Request parse_request(Session& s, const std::string& args) {
  Request q;
  q.where.execute = false;
  std::string rest = trim(args);
  size_t sp = rest.find_first_of(" \t\n");
  std::string first = rest.substr(0, sp);
  if (is_stage_word(first)) {
    q.stage = first;
    rest = sp == std::string::npos ? "" : trim(rest.substr(sp));
  } else if (first.rfind("after", 0) == 0 && first.size() > 5 && !is_identifier_path(first)) {
    throw Error("%ir: write after=PASS; stages: " + stage_list());
  }
  if (q.stage.rfind("after=", 0) == 0 && !is_pass(q.stage.substr(6)))
    throw Error("%ir: unknown pass `" + q.stage.substr(6) + "`; stages: " + stage_list());
  if (rest.empty()) throw Error("usage: %ir [STAGE] NAME | CODE   (stages: " + stage_list() + ")");
  if (is_identifier_path(rest)) {
    if (auto info = s.name_info(rest)) {
      if (!info->in_session && info->kind != Session::NameKind::Builtin && !info->source_name.empty())
        throw Error("%ir: `" + rest + "` is defined in " + info->source_name +
                    ", not in this session; %ir shows session bindings and code");
      if (info->in_session && !info->source.empty() &&
          (info->kind == Session::NameKind::Let || info->kind == Session::NameKind::Fn || info->kind == Session::NameKind::Const)) {
        q.name = rest;
        q.code = info->source;
        q.where.source_name = info->source_name;
        q.where.line_offset = info->line - 1;
        return q;
      }
    }
  }
  q.code = rest;
  q.where.source_name = "%ir";
  return q;
}

}  // namespace

void cmd_ir(Call& c) {
  Request q = parse_request(c.session, c.args);
  CellOptions co = q.where;
  co.dump_stage = q.stage;
  CellResult r = c.session.run_cell(q.code, co);
  if (!r.ok) {
    c.out.cell = r;
    c.out.ok = false;
    return;
  }
  std::string text = r.dump;
  if (q.stage == "kernel") {
    // The native tier's plan and generated C++ (session.cpp fills the dump for this stage).
    if (text.empty()) text = "native kernels: not available in this build\n";
  } else {
    if (!q.name.empty()) {
      auto info = c.session.name_info(q.name);
      const auto& fns = r.dumped_fns;
      if (info && info->kind == Session::NameKind::Fn && std::find(fns.begin(), fns.end(), q.name) == fns.end())
        text += ";; fn " + q.name + " is compiled per call signature; `%ir " + q.stage + " " + q.name +
                "(...)` with arguments shows a specialisation\n";
    }
    if (text.empty()) text = "(no IR at stage " + q.stage + ")\n";
  }
  if (!q.name.empty())
    text = ";; " + q.name + " defined at " + q.where.source_name + ":" + std::to_string(q.where.line_offset + 1) +
           "\n" + text;
  emit(c, text, "<pre>" + html_escape(text) + "</pre>\n");
}

}  // namespace ein::cmd
